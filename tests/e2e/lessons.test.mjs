// End-to-end tests of the learning half: the Lessons panel (a lesson done
// entirely through the UI, its progress kept across a reload) and the
// advisor beside the schema (a one-click fix, previewed, applied, undone),
// and a lesson's sample rows at its own size or the one the learner picks.
// Screenshots: panel-lessons*.png and panel-findings*.png in
// tests/e2e/screenshots/. Run `trunk build --release` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SCREENSHOTS, audit, openApp as open, region, rowKeys, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);

async function showLessons(page) {
  await page.getByRole('tab', { name: 'Lessons' }).click();
  const lessons = region(page, 'Lessons');
  await lessons.waitFor({ state: 'visible' });
  return lessons;
}

test('the row-ranges lesson is done through the UI and stays done after a reload', async () => {
  const { page, problems, context } = await openApp();
  const lessons = await showLessons(page);
  assert.match(await lessons.locator('.lesson-progress').textContent(), /^0 of \d+ done$/);
  await lessons.locator('.lesson-open[data-lesson="row-ranges"]').click();
  await lessons.getByRole('heading', { name: 'Read by key, prefix or range, not by scanning' }).waitFor();

  await lessons.getByRole('button', { name: 'Start lesson', exact: true }).click();
  // The lesson's table replaced the playground's, and its slow read is in
  // the console. Its task, hint and Check are pinned above the left
  // column's tabs.
  await page.waitForFunction(() => document.querySelector('#rows .row .key')?.textContent.startsWith('phone#4c410523#202004'));
  assert.equal((await rowKeys(page))[0], 'phone#4c410523#20200401');
  const setupRead = page.locator('.transcript .entry').last();
  assert.match(await setupRead.textContent(), /read mobile regex=phone#4c410523#202005/);
  const dock = region(page, 'Lesson in progress');
  await dock.waitFor();
  // The hint is behind a disclosure.
  const hint = dock.locator('details.lesson-hint').first();
  assert.equal(await hint.getAttribute('open'), null);

  // The check fails on the start state and says why.
  await dock.getByRole('button', { name: 'Check', exact: true }).click();
  const verdict = dock.locator('.verdict');
  await verdict.waitFor();
  assert.match(await verdict.getAttribute('class'), /failed/);
  assert.match(await verdict.textContent(), /0 of 1 checks pass/);
  assert.match(await verdict.locator('.check-found').textContent(), /scanned 360/);
  await dock.screenshot({ path: path.join(SCREENSHOTS, 'panel-lessons-failed.png') });

  // Open the hint, then do the task in the console.
  await hint.locator('summary').click();
  assert.match(await hint.textContent(), /read mobile prefix=phone#4c410523#202005/);
  const entry = await runCommand(page, 'read mobile prefix=phone#4c410523#202005');
  assert.match(await entry.textContent(), /30 returned/);
  await dock.getByRole('button', { name: 'Check', exact: true }).click();
  await dock.locator('.verdict.passed').waitFor();
  assert.match(await dock.locator('.verdict').textContent(), /Lesson complete/);
  assert.match(await dock.locator('.lesson-takeaway').textContent(), /Point reads, prefix scans and range scans/);
  await dock.screenshot({ path: path.join(SCREENSHOTS, 'panel-lessons.png') });
  await showLessons(page);
  assert.match(await lessons.locator('.lesson-kicker').textContent(), /✓ completed/);

  // Next and previous lessons.
  await lessons.getByRole('button', { name: 'Next lesson' }).click();
  await lessons.getByRole('heading', { name: 'Several values in one key, with delimiters' }).waitFor();
  assert.equal(await lessons.getByRole('button', { name: 'Previous lesson' }).isDisabled(), false);
  await lessons.getByRole('button', { name: 'Previous lesson' }).click();
  await lessons.getByRole('heading', { name: 'Read by key, prefix or range, not by scanning' }).waitFor();
  assert.equal(await lessons.getByRole('button', { name: 'Previous lesson' }).isDisabled(), true);

  // The list marks it done.
  await lessons.getByRole('button', { name: 'All lessons' }).click();
  const item = lessons.locator('.lesson-item').first();
  assert.equal(await item.locator('.done-mark').count(), 1);
  assert.match(await lessons.locator('.lesson-progress').textContent(), /^1 of \d+ done$/);
  await region(page, 'Lessons').screenshot({ path: path.join(SCREENSHOTS, 'panel-lessons-list.png') });

  // Reload: the progress, the open lesson and the running lesson come back.
  await lessons.locator('.lesson-open[data-lesson="row-ranges"]').click();
  // Autosave writes once the page has been still for a moment.
  await page.waitForTimeout(1000);
  await page.reload();
  await page.waitForSelector('#rows .row');
  const again = await showLessons(page);
  await again.getByRole('heading', { name: 'Read by key, prefix or range, not by scanning' }).waitFor();
  assert.match(await again.locator('.lesson-kicker').textContent(), /✓ completed/);
  assert.match(await again.locator('.lesson-progress').textContent(), /^1 of \d+ done$/);
  // The autosave kept the lesson's table, and the lesson goes on.
  assert.equal((await rowKeys(page))[0], 'phone#4c410523#20200401');
  await runCommand(page, 'read mobile start=phone#4c410523#20200501 end=phone#4c410523#20200601');
  await dock.getByRole('button', { name: 'Check', exact: true }).click();
  await dock.locator('.verdict.passed').waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a one-click advisor fix is previewed, applied and undone', async () => {
  const { page, problems, context } = await openApp();
  const schema = region(page, 'Schema');
  await schema.getByRole('combobox', { name: 'Start from a scenario' }).selectOption('lesson_scores_unpadded.toml');
  const finding = schema.locator('.finding', { has: page.locator('.rule-id', { hasText: /^unpadded_number$/ }) });
  await finding.waitFor();
  assert.match(await schema.locator('.kd-pattern').textContent(), /^\{player_id:int\}#\{game:enum\}$/);
  const before = await schema.locator('.kd-examples li').allTextContents();
  assert.equal(before.length, 5);
  await schema.locator('.key-designer').screenshot({ path: path.join(SCREENSHOTS, 'designer.png') });
  assert.match(await finding.locator('.sev-badge').textContent(), /warning|error/);
  assert.match(await finding.locator('.finding-target').textContent(), /player_id/);
  assert.match(await finding.locator('.finding-lesson').textContent(), /Pad numbers/);
  // The declared read and its shape under the current key.
  assert.match(await schema.locator('.access-item').first().textContent(), /players 100 to 199/);

  // Focus (or hover) previews the fix's keys.
  const fix = finding.locator('.fix-apply').first();
  await fix.focus();
  const preview = schema.locator('.kd-preview-keys li');
  await preview.first().waitFor();
  const previewed = await preview.allTextContents();
  assert.notDeepEqual(previewed, before.slice(0, previewed.length));
  for (const key of previewed) assert.match(key, /^\d{4,}#/);
  await finding.scrollIntoViewIfNeeded();
  await schema.screenshot({ path: path.join(SCREENSHOTS, 'panel-findings.png') });

  await fix.click();
  await page.waitForFunction(
    () => ![...document.querySelectorAll('.rule-id')].some((e) => e.textContent === 'unpadded_number'),
  );
  const after = await schema.locator('.kd-examples li').allTextContents();
  assert.notDeepEqual(after, before);
  for (const key of after) assert.match(key, /^\d{4,}#/);
  assert.match(await schema.locator('.kd-pattern').textContent(), /player_id:int\d+/);
  assert.match(await schema.locator('.undo-bar').textContent(), /Applied/);
  await schema.screenshot({ path: path.join(SCREENSHOTS, 'panel-findings-fixed.png') });

  // Undo brings the finding back.
  await schema.locator('.undo-bar').getByRole('button', { name: 'Undo' }).click();
  await finding.waitFor();
  assert.deepEqual(await schema.locator('.kd-examples li').allTextContents(), before);

  // The designer validates as you type with the core's messages.
  const width = schema.getByRole('textbox', { name: 'Segment 1 width' });
  await width.fill('99');
  assert.match(await schema.locator('.key-designer .field-error').textContent(), /1 to 20 digits/);
  await width.fill('5');
  await page.waitForFunction(() => document.querySelector('.kd-pattern')?.textContent.includes('int5'));
  assert.equal(await schema.locator('.key-designer .field-error').count(), 0);

  // Clearing the width brings the finding back; its lesson opens in the
  // Lessons panel.
  await width.fill('');
  await page.waitForFunction(() => document.querySelector('.kd-pattern')?.textContent.startsWith('{player_id:int}'));
  await finding.locator('.finding-lesson').click();
  await region(page, 'Lessons').getByRole('heading', { name: 'Pad numbers so byte order is numeric order' }).waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

test('the learning panels read well in the dark theme and embed alone', async () => {
  const { page, problems, context } = await openApp({ colorScheme: 'dark' });
  const schema = region(page, 'Schema');
  await schema.getByRole('combobox', { name: 'Start from a scenario' }).selectOption('mobile_timestamp_first.toml');
  await schema.locator('.finding').first().waitFor();
  await schema.locator('.findings').scrollIntoViewIfNeeded();
  await schema.screenshot({ path: path.join(SCREENSHOTS, 'panel-findings-dark.png') });
  const lessons = await showLessons(page);
  await lessons.locator('.lesson-open[data-lesson="zero-padding"]').click();
  await lessons.getByRole('button', { name: 'Start lesson', exact: true }).click();
  const dock = region(page, 'Lesson in progress');
  await dock.getByRole('button', { name: 'Check', exact: true }).click();
  await dock.locator('.verdict.failed').waitFor();
  await dock.screenshot({ path: path.join(SCREENSHOTS, 'panel-lessons-dark.png') });
  // The lesson's design is edited in the designer, which is on screen
  // below the task: pad the player number, and the sample rows are
  // written again under the new key.
  const width = schema.getByRole('textbox', { name: 'Segment 1 width' });
  assert.ok(await width.isVisible(), 'a design lesson opens beside the designer');
  await dock.getByRole('button', { name: 'Row-key designer' }).click();
  await width.fill('6');
  await page.waitForFunction(() => document.querySelector('#rows .row .key')?.textContent.startsWith('0000'));
  await dock.getByRole('button', { name: 'Check', exact: true }).click();
  await dock.locator('.verdict.passed').waitFor();
  assert.deepEqual(problems, []);
  await context.close();

  const embed = await openApp({ url: `${env.server.url}?embed=1&panels=lessons`, waitFor: '.lesson-list' });
  assert.equal(await region(embed.page, 'Lessons').count(), 1);
  assert.equal(await region(embed.page, 'Schema').count(), 0);
  assert.equal(await embed.page.getByRole('tab', { name: 'Lessons' }).count(), 0, 'no tabs for one panel');
  await embed.page.screenshot({ path: path.join(SCREENSHOTS, 'embed-lessons.png') });
  assert.deepEqual(embed.problems, []);
  await embed.context.close();
});

test('a lesson writes its own small sample by default, or the size the learner picks', async () => {
  const { page, problems, context } = await openApp();
  const lessons = await showLessons(page);
  await lessons.locator('.lesson-open[data-lesson="reverse-timestamps"]').click();
  // Before the start: the lesson's own number is chosen.
  const before = lessons.getByRole('combobox', { name: 'Sample rows' });
  assert.equal(await before.inputValue(), '2000');
  assert.match(await before.locator('option:checked').textContent(), /2,000 rows \(the lesson's\)/);
  await lessons.getByRole('button', { name: 'Start lesson', exact: true }).click();
  const data = page.locator('.scenario-data');
  await page.waitForFunction(() => /2,000 rows in readings/.test(document.querySelector('.scenario-data')?.textContent ?? ''));
  // A bigger sample, picked in the dock: the table is written again, in
  // slices, at that size.
  const dock = region(page, 'Lesson in progress');
  await dock.getByRole('combobox', { name: 'Sample rows' }).selectOption('10000');
  await page.waitForFunction(() => /10,000 rows in readings/.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
    timeout: 60_000,
  });
  assert.match(await data.textContent(), /10,000 rows in readings/);
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await audit(page), [], `axe-core violations with the sample choice (${colorScheme})`);
    await dock.screenshot({ path: path.join(SCREENSHOTS, `lesson-sample-${colorScheme}.png`) });
  }
  // The choice is kept: a restart writes 10,000 again.
  await dock.getByRole('button', { name: 'Restart' }).click();
  await page.waitForFunction(() => /10,000 rows in readings/.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
    timeout: 60_000,
  });
  assert.equal(await dock.getByRole('combobox', { name: 'Sample rows' }).inputValue(), '10000');
  assert.deepEqual(problems, []);
  await context.close();
});
