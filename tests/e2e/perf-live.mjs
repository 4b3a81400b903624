// What keeping the live Key Visualizer up to date costs in the release
// build, in headless Chromium. Run by hand, not in CI (its figures depend
// on the machine):
//
//   trunk build --release && node tests/e2e/perf-live.mjs [rows...]
//
// For each size (default 10,000 and 100,000 sample rows), with the live
// view ("Your tables") shown:
//
// 1. after load: loads the sample data and waits from the load's end until
//    the map counts every row;
// 2. after a write: writes one row in the console and waits until the map
//    counts it;
// 3. after reads: runs five prefix reads, each followed by the map.
//
// Where the panel waits for *Update map* (older builds), the script clicks
// it as a person would. For 1 and 2 it prints the wall time until the map
// caught up, the long tasks (over 50 ms) meanwhile, the frame intervals,
// and what the app's own measures say (`tabletop:live`: the build's
// slices; older builds have none), plus the build's summed work and its
// longest slice as the panel reports them (`data-live-build-ms`,
// `data-live-slice-ms`). For 3 the refresh times, sorted, and their median.
// TABLETOP_DIST=/some/dist measures another build.
import { line, partsLine, printTable, startWatch, stopWatch, withApp } from './perf-watch.mjs';

const SIZES = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [10_000, 100_000];
const region = (page, name) => page.getByRole('region', { name, exact: true });
const DEMO_ROWS = 4;

/** Waits until the live map counts `rows` rows, clicking Update map if the panel waits for it. */
async function mapCounts(page, rows) {
  const text = `${rows.toLocaleString('en')} rows in`;
  for (;;) {
    const done = await page.waitForFunction(
      (text) =>
        (document.querySelector('.kv-live-summary')?.textContent ?? '').startsWith(text) ||
        (!!document.querySelector('.kv-behind button') && 'click'),
      text,
      { timeout: 600_000, polling: 20 },
    );
    if ((await done.jsonValue()) !== 'click') return;
    await page.locator('.kv-behind button').click();
  }
}

/** The panel's figures of its last build: summed work and longest slice (ms). */
async function buildFigures(page) {
  const kv = page.locator('section.keyviz-panel');
  const work = Number(await kv.getAttribute('data-live-build-ms'));
  const slice = await kv.getAttribute('data-live-slice-ms');
  return `build work ${work.toFixed(1)} ms, longest slice ${slice === null ? `${work.toFixed(1)} (one piece)` : Number(slice).toFixed(1)} ms`;
}

const { lines, notes } = await withApp(async ({ fresh }) => {
  const lines = [];
  const notes = [];
  for (const size of SIZES) {
    const page = await fresh();
    const kv = region(page, 'Key Visualizer');
    await kv.getByRole('button', { name: 'Your tables', exact: true }).click();
    const rows = region(page, 'Rows');
    await rows.getByText('Load sample data').click();
    await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption(String(size));
    await rows.getByRole('button', { name: 'Generate' }).click();
    await page.waitForSelector('[aria-label="Loading sample data"]', { timeout: 30_000 });
    await page.waitForSelector('[aria-label="Loading sample data"]', { state: 'detached', timeout: 600_000 });
    await startWatch(page);
    const label = size.toLocaleString('en');
    await mapCounts(page, size + DEMO_ROWS);
    let r = await stopWatch(page);
    lines.push(line(`${label} rows: from the load's end to the map`, r));
    notes.push(`${partsLine(`${label} rows, after load`, r)}; ${await buildFigures(page)}`);

    await page.waitForTimeout(1000);
    const console_ = region(page, 'Console');
    const command = console_.getByRole('textbox', { name: 'Command' });
    await startWatch(page);
    await command.fill('set mobile-time-series zzzz stats_summary:q=v');
    await console_.getByRole('button', { name: 'Run', exact: true }).click();
    await mapCounts(page, size + DEMO_ROWS + 1);
    r = await stopWatch(page);
    lines.push(line(`${label} rows: from a write to the map`, r));
    notes.push(`${partsLine(`${label} rows, after a write`, r)}; ${await buildFigures(page)}`);

    const times = [];
    for (let i = 0; i < 5; i++) {
      const before = Number(await kv.getAttribute('data-live-builds'));
      await command.fill(`read mobile-time-series prefix=phone#${i} count=20`);
      await console_.getByRole('button', { name: 'Run', exact: true }).click();
      await page.waitForFunction((n) => Number(document.querySelector('section.keyviz-panel').dataset.liveBuilds) > n, before);
      times.push(Number(await kv.getAttribute('data-live-build-ms')));
    }
    times.sort((a, b) => a - b);
    notes.push(`${label} rows: refresh after a read ${times.join(', ')} ms; median ${times[2]} ms`);
    await page.close();
  }
  return { lines, notes };
});
printTable('wall time', lines, notes);
