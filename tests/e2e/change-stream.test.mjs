// End-to-end tests of the change stream feed beside the console, on the
// release build served under /tabletop/: the feed offers to record the
// selected table's changes, then shows each write as it commits (newest
// first, with its time, row key, USER or GC, and what changed), GC
// deletions after *Compact now*, and turning it off; axe-core finds no
// serious violation in it, light or dark, on a laptop or a phone.
// Screenshots go to tests/e2e/screenshots/change-stream-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, SCREENSHOTS, openApp as open, region, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);
const AXE = readFile(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const TABLE = 'mobile-time-series';

async function seriousViolations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: await AXE });
  return page.evaluate(async () => {
    const result = await window.axe.run(document.querySelector('.console-panel'), { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** The feed's lines as `KIND key: summary`, newest first. */
const feedLines = (page) =>
  page.$$eval('.change-feed .cf-line', (lines) =>
    lines.map((l) => `${l.querySelector('.cf-kind').textContent} ${l.querySelector('.cf-key').textContent}: ${l.querySelector('.cf-summary').textContent}`),
  );

async function openFeed(page) {
  const console = region(page, 'Console');
  await console.getByRole('button', { name: 'Change stream' }).click();
  return page.getByRole('complementary', { name: 'Change stream' });
}

test('the feed offers a change stream, then shows writes and GC deletions as they commit', async () => {
  const { page, problems, context } = await openApp();
  const feed = await openFeed(page);
  await feed.getByRole('button', { name: `Record changes of ${TABLE} (keep 1 day)` }).click();
  // The request went through the console, as the Schema panel's do.
  const entry = page.locator('.transcript .entry').last();
  assert.match(await entry.locator('.command').textContent(), /updateTable/);
  await feed.getByText('No changes yet').waitFor();

  await runCommand(page, `set ${TABLE} phone#feed stats_summary:os_build=PQ2A`);
  await runCommand(page, `set ${TABLE} phone#feed stats_summary:os_build=PQ2B`);
  await page.waitForFunction(() => document.querySelectorAll('.change-feed .cf-line').length === 2);
  assert.deepEqual(await feedLines(page), [
    'USER phone#feed: set stats_summary:os_build = "PQ2B"',
    'USER phone#feed: set stats_summary:os_build = "PQ2A"',
  ]);
  assert.match(await feed.locator('.cf-meta').textContent(), /2 kept · 1 day/);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'change-stream-light.png') });

  // The family keeps one version: compacting collects the older one.
  await region(page, 'Rows').getByRole('button', { name: 'Compact now' }).click();
  await page.waitForFunction(() => document.querySelector('.change-feed .cf-kind')?.textContent === 'GC');
  const lines = await feedLines(page);
  assert.ok(lines.some((l) => l.startsWith('GC phone#feed: delete stats_summary:os_build @')), lines.join('\n'));

  assert.deepEqual(await seriousViolations(page), []);
  await feed.getByRole('button', { name: 'Turn off' }).click();
  await feed.getByRole('button', { name: /Record changes of/ }).waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

for (const [name, viewport, colorScheme] of [
  ['dark', { width: 1440, height: 900 }, 'dark'],
  ['phone', { width: 390, height: 844 }, 'light'],
  ['phone-dark', { width: 390, height: 844 }, 'dark'],
]) {
  test(`the feed reads well and passes axe-core: ${name}`, async () => {
    const { page, problems, context } = await openApp({ viewport, colorScheme });
    const feed = await openFeed(page);
    await feed.getByRole('button', { name: /Record changes of/ }).click();
    await runCommand(page, `set ${TABLE} phone#${name} stats_summary:os_build=PQ2A`);
    await runCommand(page, `deleterow ${TABLE} phone#4c410523#20200501`);
    await page.waitForFunction(() => document.querySelectorAll('.change-feed .cf-line').length === 2);
    assert.match((await feedLines(page))[0], /^USER phone#4c410523#20200501: delete family /);
    await feed.scrollIntoViewIfNeeded();
    assert.deepEqual(await seriousViolations(page), []);
    await page.screenshot({ path: path.join(SCREENSHOTS, `change-stream-${name}.png`), fullPage: viewport.width < 500 });
    assert.deepEqual(problems, []);
    await context.close();
  });
}
