// End-to-end tests of what autosave keeps of work made by hand: past the
// size whose rows autosave stores, a reload rebuilds the tables from their
// definitions, replays the data loads and then the rows written by hand
// after them; work it cannot replay (a deleted table) brings a strip that
// says what a reload loses and offers Export snapshot. With a small
// instance no strip shows and a typed row survives a reload. Screenshots: unsaved-work*.png in tests/e2e/screenshots/. Run
// `trunk build --release` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SCREENSHOTS, audit, openApp as open, region, runCommand, useApp, waitForLoad } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);

const STRIP = 'Work autosave does not keep';

/** Autosave writes once the page has been still for a moment. */
const settle = (page) => page.waitForTimeout(1500);

async function typeRow(page, table) {
  const entry = await runCommand(page, `set ${table} zz-by-hand stats_summary:q=typed-by-hand`);
  assert.doesNotMatch(await entry.getAttribute('class'), /error/);
}

/** Looks `key` up until the reloaded page has run its loads and logged writes again. */
async function lookUpAfterReload(page, table, key) {
  for (let i = 0; i < 60; i += 1) {
    const entry = await runCommand(page, `lookup ${table} ${key}`);
    const text = await entry.textContent();
    if (text.includes('typed-by-hand')) return text;
    await page.waitForTimeout(1000);
  }
  return '';
}

test('past the autosave limit typed rows come back after the loads, and other work brings a strip', async () => {
  const { page, problems, context } = await openApp();
  const rows = region(page, 'Rows');
  await rows.getByText('Load sample data').click();
  await rows.getByRole('textbox', { name: 'Table to load into' }).fill('gen');
  await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption('10000');
  await rows.getByRole('button', { name: 'Generate' }).click();
  await waitForLoad(page);
  await settle(page);
  // A load alone is rebuilt by its replay: nothing to warn of.
  assert.equal(await region(page, STRIP).count(), 0, 'no strip for a load alone');

  // A row typed after the load is logged and written again after it.
  await typeRow(page, 'gen');
  await settle(page);
  assert.equal(await region(page, STRIP).count(), 0, 'no strip for a logged write');
  const before = await (await runCommand(page, 'lookup gen zz-by-hand')).textContent();
  await settle(page);
  await page.reload();
  await page.waitForSelector('#rows .row');
  const after = await lookUpAfterReload(page, 'gen', 'zz-by-hand');
  const stamp = (text) => text.match(/@ ?[0-9][0-9/:.-]+/)?.[0];
  assert.ok(stamp(before), before);
  assert.equal(stamp(after), stamp(before), 'the typed cell is back with its timestamp');

  // Deleting a table is work the log does not keep.
  const deleted = await runCommand(page, 'deletetable mobile-time-series');
  assert.doesNotMatch(await deleted.getAttribute('class'), /error/);
  const strip = region(page, STRIP);
  await strip.waitFor({ timeout: 15_000 });
  const text = await strip.textContent();
  assert.match(text, /not keeping all of your work/);
  assert.match(text, /runs the 1 data load again/);
  assert.match(text, /rows deleted from loaded data would come back/);
  assert.ok(await strip.getByRole('button', { name: 'Export snapshot' }).isVisible());
  assert.deepEqual(await audit(page), [], 'the strip passes axe');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'unsaved-work.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'unsaved-work-dark.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'unsaved-work-phone-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'unsaved-work-phone.png') });
  await page.setViewportSize({ width: 1440, height: 900 });

  // The strip's button downloads the whole instance.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    strip.getByRole('button', { name: 'Export snapshot' }).click(),
  ]);
  assert.ok((await download.path()) !== null);

  // Once the instance is small enough to be saved whole, the strip goes.
  const entry = await runCommand(page, 'deletetable gen');
  assert.doesNotMatch(await entry.getAttribute('class'), /error/);
  await strip.waitFor({ state: 'detached', timeout: 15_000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a row typed into a small instance shows no strip and survives a reload', async () => {
  const { page, problems, context } = await openApp();
  await typeRow(page, 'mobile-time-series');
  await settle(page);
  assert.equal(await region(page, STRIP).count(), 0);
  await page.reload();
  await page.waitForSelector('#rows .row');
  const entry = await runCommand(page, 'lookup mobile-time-series zz-by-hand');
  assert.match(await entry.textContent(), /typed-by-hand/);
  assert.equal(await region(page, STRIP).count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
