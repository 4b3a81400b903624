// End-to-end tests of the console fitting the work, on the release build
// served under /tabletop/: suggestion chips and the placeholder follow the
// tables there are (never a table that is gone), the console grows so an
// EXPLAIN fits, a multi-megabyte command runs whole but its echo is cut,
// cbt's silent successes are marked done, messages go by themselves and
// cover no control, and text between backticks is drawn as code.
// Screenshots go to tests/e2e/screenshots/console-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SCREENSHOTS, openApp as open, region, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);

/** Every chip's text and the Command box's placeholder, for each tab. */
async function suggestions(page) {
  const console = region(page, 'Console');
  const out = {};
  for (const tab of ['cbt', 'JSON', 'SQL']) {
    await console.getByRole('tab', { name: tab, exact: true }).click();
    const chips = console.getByRole('group', { name: 'Suggested commands' }).getByRole('button');
    const texts = await chips.evaluateAll((buttons) => buttons.map((b) => `${b.textContent} ${b.title}`));
    const placeholder = await console.getByRole('textbox', { name: 'Command' }).getAttribute('placeholder');
    out[tab] = { chips: texts, placeholder };
  }
  await console.getByRole('tab', { name: 'cbt', exact: true }).click();
  return out;
}

test('the chips and the placeholder follow the tables and never name a missing one', async () => {
  const { page, problems, context } = await openApp();
  const before = await suggestions(page);
  assert.ok(before.cbt.chips.some((c) => c.startsWith('read mobile-time-series count=5')), before.cbt.chips.join(' | '));
  // A key prefix taken from the rows there are.
  assert.ok(before.cbt.chips.some((c) => c.includes('prefix=phone#')), before.cbt.chips.join(' | '));
  assert.match(before.SQL.placeholder, /mobile-time-series/);

  await runCommand(page, 'createtable visits families=hits');
  await runCommand(page, 'set visits home#2024 hits:n=1');
  // Delete the sample table in the Schema panel.
  const schema = region(page, 'Schema');
  await schema.getByRole('button', { name: 'Delete table mobile-time-series…' }).click();
  await schema.getByRole('alertdialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await page.waitForSelector('#table-list .table-name:text-is("visits")');
  await page.waitForFunction(() => ![...document.querySelectorAll('#table-list .table-name')].some((t) => t.textContent === 'mobile-time-series'));

  const after = await suggestions(page);
  for (const [tab, { chips, placeholder }] of Object.entries(after)) {
    for (const text of [...chips, placeholder]) assert.doesNotMatch(text, /mobile-time-series/, `${tab}: ${text}`);
    assert.ok([...chips, placeholder].some((t) => t.includes('visits')), `${tab} names the table there is: ${chips}`);
  }
  assert.ok(after.cbt.chips.some((c) => c.includes('prefix=home# columns=hits:')), after.cbt.chips.join(' | '));
  await region(page, 'Console').screenshot({ path: path.join(SCREENSHOTS, 'console-chips.png') });

  // A chip puts its command in the box, and it runs.
  const console = region(page, 'Console');
  await console.getByRole('group', { name: 'Suggested commands' }).getByRole('button', { name: 'count visits', exact: true }).click();
  assert.equal(await console.getByRole('textbox', { name: 'Command' }).inputValue(), 'count visits');
  await console.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('.transcript .entry:last-child .entry-output')?.textContent === '1\n');

  // With no tables left, the chips offer to create one, or help.
  await runCommand(page, 'deletetable visits');
  const none = await suggestions(page);
  assert.deepEqual(
    none.cbt.chips.map((c) => c.trim()),
    ['createtable my-table families=cf', 'help'],
  );
  assert.match(none.cbt.placeholder, /no tables yet/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('createtable and set stay silent as in cbt, and the transcript marks them done', async () => {
  const { page, problems, context } = await openApp();
  for (const command of ['createtable marks families=cf', 'set marks r1 cf:q=v']) {
    const entry = await runCommand(page, command);
    assert.equal(await entry.locator('.entry-output').count(), 0, `${command}: cbt prints nothing`);
    const mark = entry.locator('.entry-mark');
    assert.equal(await mark.textContent(), '✓ done');
    assert.match(await mark.getAttribute('class'), /\bdone\b/);
    assert.match(await mark.getAttribute('title'), /cbt prints nothing/);
    assert.ok(await mark.isVisible());
  }
  const failed = await runCommand(page, 'createtable marks');
  assert.equal(await failed.locator('.entry-mark').textContent(), '✗ failed');
  assert.match(await failed.locator('.entry-output').textContent(), /AlreadyExists/);
  // A command that prints gets no mark: its output speaks.
  const ls = await runCommand(page, 'ls');
  assert.equal(await ls.locator('.entry-mark').count(), 0);
  await region(page, 'Console').screenshot({ path: path.join(SCREENSHOTS, 'console-marks.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a multi-megabyte command runs in full but its echo is cut', async () => {
  const { page, problems, context } = await openApp();
  const size = 3 * 1024 * 1024;
  const command = `set mobile-time-series huge stats_summary:blob=${'x'.repeat(size)}`;
  const entry = await runCommand(page, command);
  assert.ok(await entry.evaluate((e) => e.classList.contains('ok')));
  const echo = await entry.locator('.command').textContent();
  assert.ok(echo.length <= 2000, `the echo is cut: ${echo.length} characters`);
  assert.ok(command.startsWith(echo));
  assert.equal(
    await entry.locator('.echo-note').textContent(),
    `(command shortened here: 2,000 of its ${command.length.toLocaleString('en-US')} characters shown; it ran in full)`,
  );
  await region(page, 'Console').screenshot({ path: path.join(SCREENSHOTS, 'console-huge-command.png') });
  const transcript = await page.locator('.transcript').evaluate((t) => t.textContent.length);
  assert.ok(transcript < 20_000, `the transcript stays small: ${transcript} characters`);
  // The value went in whole: the table now holds three megabytes.
  await page.waitForFunction(() => /· 3(\.\d)? MiB/.test(document.querySelector('#table-list')?.textContent ?? ''));
  assert.deepEqual(problems, []);
  await context.close();
});

test('the console grows so an EXPLAIN fits, and goes back', async () => {
  const { page, problems, context } = await openApp();
  const console = region(page, 'Console');
  const height = () => console.evaluate((c) => c.getBoundingClientRect().height);
  const usual = await height();
  const taller = console.getByRole('button', { name: 'Taller' });
  assert.equal(await taller.getAttribute('aria-pressed'), 'false');
  const explain = await runCommand(page, "EXPLAIN SELECT _key FROM `mobile-time-series` WHERE STARTS_WITH(_key, 'phone#')", { tab: 'SQL' });
  await taller.click();
  await page.waitForFunction((h) => document.querySelector('.console-panel').getBoundingClientRect().height > h + 100, usual);
  assert.equal(await taller.getAttribute('aria-pressed'), 'true');
  const tall = await height();
  assert.ok(tall >= 0.55 * 900, `most of the window: ${tall} px`);
  // The whole EXPLAIN and its report are on screen in the transcript.
  const fits = await explain.evaluate((entry) => {
    const box = entry.getBoundingClientRect();
    const view = entry.closest('.transcript').getBoundingClientRect();
    return box.height <= view.height && box.height > 0;
  });
  assert.ok(fits, 'the EXPLAIN fits in the taller console');
  await explain.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'console-taller.png') });
  await taller.click();
  await page.waitForFunction((h) => document.querySelector('.console-panel').getBoundingClientRect().height < h, tall);
  assert.ok(Math.abs((await height()) - usual) < 2, 'back to the usual height');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a message goes by itself after a few seconds, covers no control, and draws code as code', async () => {
  const { page, problems, context } = await openApp();
  await runCommand(page, 'createtable toast families=cf');
  // The advisor offers a GC rule for the new family; applying it says so.
  await page.getByRole('button', { name: /^Fix: Keep only the newest version in cf$/ }).click();
  const notice = page.locator('.notice');
  await notice.waitFor();
  const shown = Date.now();
  assert.match(await notice.locator('.notice-text').textContent(), /^Applied: Keep only the newest version in cf$/);
  assert.equal(await notice.locator('code').textContent(), 'cf', 'the backticks became code');
  assert.doesNotMatch(await notice.textContent(), /`/);
  // It covers no control: it sits in the header's own line (not over the
  // panels), beside the header's buttons, not on them.
  const placement = await page.evaluate(() => {
    const notice = document.querySelector('.notice');
    const header = document.querySelector('.app-header');
    const box = notice.getBoundingClientRect();
    const head = header.getBoundingClientRect();
    const hit = (r) => r.width > 0 && r.height > 0 && r.left < box.right && r.right > box.left && r.top < box.bottom && r.bottom > box.top;
    return {
      position: getComputedStyle(notice.closest('.status-line')).position,
      inHeader: box.top >= head.top && box.bottom <= head.bottom && box.left >= head.left && box.right <= head.right,
      workspaceBelow: document.querySelector('.workspace').getBoundingClientRect().top >= head.bottom,
      covered: [...header.querySelectorAll('button, a, input, select, textarea')]
        .filter((e) => !e.closest('.notice') && hit(e.getBoundingClientRect()))
        .map((e) => e.textContent),
    };
  });
  assert.deepEqual(placement, { position: 'static', inHeader: true, workspaceBelow: true, covered: [] });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'console-notice.png') });
  // Still there a moment later, gone after a few seconds.
  await page.waitForTimeout(2000);
  assert.ok(await notice.isVisible(), 'a message stays long enough to read');
  await notice.waitFor({ state: 'detached', timeout: 15_000 });
  const lasted = Date.now() - shown;
  assert.ok(lasted >= 4000 && lasted < 12_000, `it lasted ${lasted} ms`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a message waits while the pointer is on it or the focus is in it', async () => {
  const { page, problems, context } = await openApp();
  await runCommand(page, 'createtable held families=cf');
  await page.getByRole('button', { name: /^Fix: Keep only the newest version in cf$/ }).click();
  const notice = page.locator('.notice');
  await notice.waitFor();
  // Read with the pointer: it stays past its usual six seconds.
  await notice.hover();
  await page.waitForTimeout(7000);
  assert.ok(await notice.isVisible(), 'a message under the pointer stays');
  // Reached with the keyboard: the focus holds it too.
  await notice.getByRole('button', { name: 'Dismiss the message' }).focus();
  await page.mouse.move(5, 890);
  await page.waitForTimeout(7000);
  assert.ok(await notice.isVisible(), 'a message with the focus in it stays');
  // Let go of both: it goes after its own time again.
  await page.evaluate(() => document.activeElement.blur());
  const released = Date.now();
  await notice.waitFor({ state: 'detached', timeout: 15_000 });
  const lasted = Date.now() - released;
  assert.ok(lasted >= 4000 && lasted < 12_000, `it lasted ${lasted} ms after release`);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the importer's errors draw text between backticks as code", async () => {
  const { page, problems, context } = await openApp();
  await page.getByRole('button', { name: 'Import…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a design or data' });
  await dialog.getByRole('radio', { name: 'Oracle NoSQL DDL' }).check();
  await dialog.getByRole('textbox', { name: 'Oracle NoSQL DDL' }).fill('CREATE TABLE users (\n  id INTEGER,\n  PRIMARY KEY(id)\n');
  const alert = dialog.locator('#import-error');
  await alert.waitFor();
  const message = alert.locator('p').first();
  assert.match(await message.textContent(), /expected \), found the end of the DDL/);
  assert.equal(await message.locator('code').textContent(), ')');
  assert.doesNotMatch(await message.textContent(), /`/);
  assert.deepEqual(problems, []);
  await context.close();
});
