// The Key Visualizer's A/B run, measured with the Long Tasks API. Run by
// hand on a release build (its figures depend on the machine):
//
//   trunk build --release && node tests/e2e/perf-ab.mjs [runs]
//
// Opens the A/B view, runs the shipped pair (timestamp-first vs
// device-first, 30 simulated minutes each) `runs` times (default 3), and
// prints for each the wall time from the click on Run A/B until the
// verdict shows, the long tasks (over 50 ms) the page reported meanwhile
// (count and longest) and the frame intervals (median / p95 / longest).
// TABLETOP_DIST=/some/dist measures another build.
import { line, printTable, startWatch, stopWatch, withApp } from './perf-watch.mjs';

const RUNS = Number(process.argv[2] ?? 3);

const lines = await withApp(async ({ fresh }) => {
  const out = [];
  const page = await fresh();
  const kv = page.getByRole('region', { name: 'Key Visualizer', exact: true });
  await kv.getByRole('button', { name: 'A/B', exact: true }).click();
  for (let run = 1; run <= RUNS; run += 1) {
    await startWatch(page);
    await kv.getByRole('button', { name: 'Run A/B' }).click();
    await kv.locator('.ab-verdict').waitFor({ timeout: 300_000 });
    out.push(line(`A/B run ${run}`, await stopWatch(page)));
  }
  return out;
});
printTable('click to verdict', lines);
