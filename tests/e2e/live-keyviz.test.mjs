// End-to-end tests of the live Key Visualizer ("Your tables") on the
// release build: a read typed into the console lights up exactly the keys
// it read on the heatmap of the real table (checked through the map's
// data table, the numbers a screen reader gets, not pixels); sample data
// shows its write pattern; after a large load the map follows by itself,
// in slices (a line says the table is being read while the map drawn
// before stays); the view and the traffic survive a reload.
// Screenshots go to tests/e2e/screenshots/live-keyviz-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SCREENSHOTS, openApp as open, region, runCommand, useApp, waitForLoad } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);

/** The Key Visualizer's data table: `[key range, [values...]]` per row. */
async function dataTable(page) {
  const kv = region(page, 'Key Visualizer');
  if ((await kv.locator('.kv-table').count()) === 0) {
    await kv.getByRole('button', { name: 'Data table' }).click();
  }
  await kv.locator('.kv-table').waitFor();
  return kv.locator('.kv-table tbody tr').evaluateAll((rows) =>
    rows.map((r) => [r.querySelector('th').textContent, [...r.querySelectorAll('td')].map((td) => td.textContent)]),
  );
}

/** The number a data-table cell starts with (`0.10 rows/s` is 0.1). */
const amount = (text) => Number.parseFloat(text.replace(/,/g, ''));

/** Waits until the live map has been built this many times at least. */
async function builtAtLeast(page, n) {
  await page.waitForFunction(
    (n) => {
      const kv = document.querySelector('section.keyviz-panel');
      return kv?.dataset.view === 'live' && Number(kv.dataset.liveBuilds) >= n && !!document.querySelector('.kv-live-summary');
    },
    n,
  );
  return Number(await page.locator('section.keyviz-panel').getAttribute('data-live-builds'));
}

test('a console read lights up the keys it read on the live heatmap', async () => {
  const { page, problems, context } = await openApp();
  const kv = region(page, 'Key Visualizer');
  // Nothing done yet: the simulation and its invitation.
  assert.equal(await kv.getAttribute('data-view'), 'simulation');
  assert.match(await kv.textContent(), /Pick a scenario/);

  await runCommand(page, 'read mobile-time-series prefix=phone#4c41');
  const builds = await builtAtLeast(page, 1);
  assert.equal(await kv.getByRole('button', { name: 'Your tables', exact: true }).getAttribute('aria-pressed'), 'true');
  await kv.getByRole('img', { name: 'Key Visualizer heatmap' }).waitFor();
  assert.match(await kv.locator('.kv-live-summary').textContent(), /2 rows read, 4 written/);

  await kv.getByRole('combobox', { name: 'Metric' }).selectOption('read_rows');
  const table = await dataTable(page);
  const last = (row) => amount(row[1][row[1].length - 1]);
  const phone41 = table.filter(([keys]) => keys.startsWith('phone#4c41'));
  const others = table.filter(([keys]) => !keys.startsWith('phone#4c41'));
  assert.ok(phone41.some((r) => last(r) > 0), JSON.stringify(table));
  assert.ok(others.length > 0 && others.every((r) => last(r) === 0), JSON.stringify(table));
  // The columns are times on the instance clock.
  const columns = await kv.locator('.kv-table thead th').allTextContents();
  assert.match(columns[columns.length - 1], /UTC/);

  // Another read, of the tablet rows: the map follows.
  await runCommand(page, 'read mobile-time-series prefix=tablet');
  await builtAtLeast(page, builds + 1);
  const after = await dataTable(page);
  const tablet = after.filter(([keys]) => keys.startsWith('tablet#'));
  assert.ok(tablet.length > 0 && tablet.every((r) => last(r) > 0), JSON.stringify(after));
  await kv.getByRole('button', { name: 'Data table' }).click();
  await kv.screenshot({ path: path.join(SCREENSHOTS, 'live-keyviz-read.png') });

  // The choice and the recorded traffic come back after a reload.
  await kv.getByRole('button', { name: 'Simulation' }).click();
  assert.equal(await kv.getAttribute('data-view'), 'simulation');
  await kv.getByRole('button', { name: 'Your tables', exact: true }).click();
  await page.waitForTimeout(1500); // autosave waits for the page to be still
  await page.reload();
  await page.waitForSelector('#rows .row');
  await builtAtLeast(page, 1);
  assert.match(await kv.locator('.kv-live-summary').textContent(), /3 rows read, 4 written/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('sample data shows its write pattern across the key space', async () => {
  const { page, problems, context } = await openApp();
  const rows = region(page, 'Rows');
  await rows.getByText('Load sample data').click();
  await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption('10000');
  await rows.getByRole('button', { name: 'Generate' }).click();
  await waitForLoad(page);
  const kv = region(page, 'Key Visualizer');
  await builtAtLeast(page, 1);
  await page.waitForFunction(() => /10,004 rows in/.test(document.querySelector('.kv-live-summary')?.textContent));
  await kv.getByRole('combobox', { name: 'Metric' }).selectOption('write_rows');
  const table = await dataTable(page);
  // Random keys: every part of the key space was written.
  const written = table.filter((r) => r[1].some((v) => amount(v) > 0));
  assert.ok(table.length >= 10 && written.length === table.length, JSON.stringify(table));
  await kv.getByRole('button', { name: 'Data table' }).click();
  await kv.screenshot({ path: path.join(SCREENSHOTS, 'live-keyviz-load.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('after a large load the map follows by itself, in slices, keeping the old map meanwhile', async () => {
  const { page, problems, context } = await openApp();
  const kv = region(page, 'Key Visualizer');
  await kv.getByRole('button', { name: 'Your tables', exact: true }).click();
  await runCommand(page, 'read mobile-time-series count=1');
  await builtAtLeast(page, 1);
  // Note every time the progress line shows, with the summary beside it.
  await page.evaluate(() => {
    window.__building = [];
    new MutationObserver(() => {
      const line = document.querySelector('.kv-building');
      if (line) window.__building.push([line.textContent, document.querySelector('.kv-live-summary')?.textContent ?? '']);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const rows = region(page, 'Rows');
  await rows.getByText('Load sample data').click();
  await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption('100000');
  await rows.getByRole('button', { name: 'Generate' }).click();
  await waitForLoad(page);
  // No click: the map counts every row once the reading is done.
  await page.waitForFunction(() => /^100,004 rows in/.test(document.querySelector('.kv-live-summary')?.textContent ?? ''), null, {
    timeout: 60_000,
  });
  assert.equal(await kv.getByRole('button', { name: 'Update map' }).count(), 0);
  assert.equal(await kv.getAttribute('data-live-building'), 'false');
  const seen = await page.evaluate(() => window.__building);
  assert.ok(seen.length >= 1, 'a line said the map was being brought up to date');
  // In slices: the longest one is less than the whole build's work.
  const slice = Number(await kv.getAttribute('data-live-slice-ms'));
  const work = Number(await kv.getAttribute('data-live-build-ms'));
  assert.ok(slice < work, `${slice} ms of ${work} ms in one slice`);
  assert.ok(
    seen.every(([line]) => /^Adding your latest operations to the map: reading the table…$/.test(line)),
    JSON.stringify(seen.slice(0, 3)),
  );
  // Meanwhile the map drawn before stayed, with its own count.
  assert.ok(
    seen.some(([, summary]) => summary !== '' && !summary.startsWith('100,004 rows')),
    JSON.stringify(seen.slice(0, 3)),
  );
  await kv.screenshot({ path: path.join(SCREENSHOTS, 'live-keyviz-large-load.png') });
  assert.deepEqual(problems, []);
  await context.close();
});
