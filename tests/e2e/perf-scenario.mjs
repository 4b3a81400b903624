// Bulk loading in the page, measured with the Long Tasks API. Run by hand
// on a release build (its figures depend on the machine):
//
//   trunk build --release && node tests/e2e/perf-scenario.mjs [rows] [what...]
//
// `what` is any of `sample` (Rows panel -> Load sample data), `scenario`
// (Key Visualizer -> the timestamp-first scenario -> Create table with
// rows) and `replay` (then Run workload on the table); all three by
// default. For each it prints the wall time from the click until the
// work is done, the long tasks (over 50 ms) the page reported meanwhile
// (count and longest) and the frame intervals (median / p95 / longest).
// Then, from the app's User Timing measures (`tabletop:slice`, `:tick`,
// `:refresh`, `:redraw`; builds before them have none), how often each part
// ran, its total and longest time, and how much of it fell inside long
// tasks: what the long tasks were made of.
// TABLETOP_DIST=/some/dist measures another build (e.g. an older one, for
// a before/after comparison; `scenario` and `replay` need this branch).
import { region } from './harness.mjs';
import { createTableWithRows, line, loadSampleData, partsLine, printTable, startWatch, stopWatch, withApp } from './perf-watch.mjs';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const WHAT = process.argv.length > 3 ? process.argv.slice(3) : ['sample', 'scenario', 'replay'];

const { lines, notes } = await withApp(async ({ fresh }) => {
  const lines = [];
  const notes = [];
  if (WHAT.includes('sample')) {
    const page = await fresh();
    await loadSampleData(page, ROWS, () => startWatch(page));
    const r = await stopWatch(page);
    lines.push(line(`Load sample data, ${ROWS.toLocaleString('en')} rows`, r));
    notes.push(partsLine('Load sample data', r));
    await page.close();
  }
  if (WHAT.includes('scenario') || WHAT.includes('replay')) {
    const page = await fresh();
    await createTableWithRows(page, ROWS, () => startWatch(page));
    const kv = region(page, 'Key Visualizer');
    const r = await stopWatch(page);
    lines.push(line(`Create table with rows (timestamp-first), ${ROWS.toLocaleString('en')} rows`, r));
    notes.push(partsLine('Create table with rows', r));
    if (WHAT.includes('replay')) {
      await page.waitForTimeout(1000);
      await startWatch(page);
      await kv.getByRole('button', { name: 'Run workload on the table' }).click();
      await page.waitForFunction(() => /Replayed/.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
        timeout: 300_000,
        polling: 50,
      });
      lines.push(line('Run workload on the table (20,000 requests)', await stopWatch(page)));
    }
    await page.close();
  }
  return { lines, notes };
});
printTable('click to done', lines, notes);
