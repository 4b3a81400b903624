// End-to-end test of "a scenario becomes data" on the release build: a
// scenario picked in the Key Visualizer creates its table with generated
// rows whose keys follow its row-key template (the Rows panel and `cbt ls`
// show them, the sample table stays), and replaying its workload on that
// table draws the scenario's pattern on the live heatmap (timestamp-first
// keys: the busiest key range moves up the key space over time).
// Screenshots go to tests/e2e/screenshots/scenario-data-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SCREENSHOTS, openApp as open, region, rowKeys, runCommand, useApp } from './harness.mjs';

const env = useApp();

/** The Key Visualizer's data table: `[key range, [values...]]` per row. */
async function dataTable(page) {
  const kv = region(page, 'Key Visualizer');
  if ((await kv.locator('.kv-table').count()) === 0) {
    await kv.getByRole('button', { name: 'Data table' }).click();
  }
  await kv.locator('.kv-table').waitFor();
  return kv.locator('.kv-table tbody tr').evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => Number.parseFloat(td.textContent.replace(/,/g, '')) || 0)),
  );
}

const status = (page) => page.locator('.scenario-data .scenario-data-text').textContent();

test('a scenario becomes a table of its keys, and its replay lights up the live heatmap', async () => {
  const { page, problems, context } = await open(env);
  const kv = region(page, 'Key Visualizer');
  await kv.getByRole('combobox', { name: 'Scenario' }).selectOption('mobile_timestamp_first.toml');
  const replay = kv.getByRole('button', { name: 'Run workload on the table' });
  assert.equal(await replay.isDisabled(), true, 'no table yet');

  await kv.getByRole('combobox', { name: 'Rows to generate' }).selectOption('10000');
  await kv.getByRole('button', { name: 'Create table with rows' }).click();
  await page.waitForFunction(() => /10,000 rows in mobile_time_series\./.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
    timeout: 60_000,
  });
  // The Rows panel shows the design's keys: a millisecond timestamp, the
  // device type, the device id.
  await page.waitForFunction(() => /^\d{13}#(phone|tablet)#[0-9a-f]{8}$/.test(document.querySelector('#rows .row .key')?.textContent ?? ''));
  const keys = await rowKeys(page);
  assert.ok(keys.length > 3 && keys.every((k) => /^\d{13}#(phone|tablet)#[0-9a-f]{8}$/.test(k)), keys.join('\n'));
  assert.deepEqual([...keys].sort(), keys, 'in key order');
  const ls = await runCommand(page, 'ls');
  assert.match(await ls.textContent(), /mobile-time-series[\s\S]*mobile_time_series|mobile_time_series[\s\S]*mobile-time-series/);
  const count = await runCommand(page, 'count mobile_time_series');
  assert.match(await count.textContent(), /10000/);
  await kv.screenshot({ path: path.join(SCREENSHOTS, 'scenario-data-loaded.png') });

  await replay.click();
  await page.waitForFunction(() => /Replayed/.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
    timeout: 120_000,
  });
  assert.match(await status(page), /Replayed 20,000 requests on mobile_time_series: [\d,]+ writes, [\d,]+ reads/);
  assert.equal(await kv.getAttribute('data-view'), 'live');
  await page.waitForFunction(() => !!document.querySelector('.kv-live-summary'));
  // The map follows by itself, in slices: wait for the build to end.
  await page.waitForFunction(
    () => document.querySelector('[data-live-building]')?.getAttribute('data-live-building') === 'false',
    null,
    { timeout: 60_000 },
  );
  await kv.getByRole('combobox', { name: 'Metric' }).selectOption('write_rows');
  const table = await dataTable(page);
  // Columns with writes; the first is the load itself (writes everywhere),
  // the replay's follow. In each, the key bucket written most.
  const columns = table[0].length;
  const busiest = [];
  for (let c = 0; c < columns; c++) {
    const column = table.map((row) => row[c]);
    const top = Math.max(...column);
    if (top > 0) busiest.push(column.indexOf(top));
  }
  assert.ok(busiest.length >= 6, JSON.stringify(busiest));
  const replayed = busiest.slice(1);
  const rising = replayed.every((b, i) => i === 0 || b >= replayed[i - 1]);
  const falling = replayed.every((b, i) => i === 0 || b <= replayed[i - 1]);
  assert.ok(rising || falling, `the busiest bucket moves one way: ${JSON.stringify(busiest)}`);
  // The diagonal: new timestamps sort after the old ones, so the written
  // range climbs the key axis (the rows are listed from the top key down
  // or up; either way it moves one way).
  const first = replayed.slice(0, 3).reduce((a, b) => a + b, 0) / 3;
  const last = replayed.slice(-3).reduce((a, b) => a + b, 0) / 3;
  assert.ok(Math.abs(last - first) >= table.length / 4, `busiest bucket per column: ${JSON.stringify(busiest)} of ${table.length}`);
  await kv.getByRole('button', { name: 'Data table' }).click();
  // The live findings name what the simulation names for this design,
  // though the load's column is far busier than any of the replay's.
  const findings = await kv.textContent();
  assert.match(findings, /Hotspot: sequential writes/);
  assert.doesNotMatch(findings, /Even load/);
  await kv.screenshot({ path: path.join(SCREENSHOTS, 'scenario-data-replayed.png') });
  assert.deepEqual(problems, []);
  await context.close();
});
