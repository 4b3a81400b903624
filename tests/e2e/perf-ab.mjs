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
import { chromium } from 'playwright-core';
import { ARGS, CHROMIUM, DIST, SUB_PATH } from './harness.mjs';
import { serveStatic } from './static-server.mjs';

const RUNS = Number(process.argv[2] ?? 3);
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
const ms = (x) => `${x.toFixed(1)} ms`;

const server = await serveStatic(DIST, SUB_PATH);
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
const lines = [];
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(server.url);
  await page.waitForSelector('#rows .row', { timeout: 60_000 });
  const kv = page.getByRole('region', { name: 'Key Visualizer', exact: true });
  await kv.getByRole('button', { name: 'A/B', exact: true }).click();
  for (let run = 1; run <= RUNS; run += 1) {
    await page.evaluate(() => {
      const w = { long: [], frames: [], last: performance.now(), on: true };
      window.__watch = w;
      w.observer = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.long.push(e.duration);
      });
      w.observer.observe({ type: 'longtask' });
      const tick = (t) => {
        if (!w.on) return;
        w.frames.push(t - w.last);
        w.last = t;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      w.start = performance.now();
    });
    await kv.getByRole('button', { name: 'Run A/B' }).click();
    await kv.locator('.ab-verdict').waitFor({ timeout: 300_000 });
    // Long tasks are reported after they end: give the last one a frame.
    await page.waitForTimeout(200);
    const r = await page.evaluate(() => {
      const w = window.__watch;
      w.on = false;
      w.observer.disconnect();
      return { seconds: (performance.now() - w.start) / 1000, long: w.long, frames: w.frames.slice(1) };
    });
    const longest = r.long.length ? Math.max(...r.long) : 0;
    lines.push(
      `| A/B run ${run} | ${r.seconds.toFixed(2)} s | ${r.long.length} (longest ${ms(longest)}) | ${ms(pct(r.frames, 50))} / ${ms(pct(r.frames, 95))} / ${ms(Math.max(0, ...r.frames))} |`,
    );
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`Build: ${DIST}\n`);
console.log('| what | click to verdict | long tasks (over 50 ms) | frame interval median / p95 / longest |');
console.log('|---|---|---|---|');
for (const l of lines) console.log(l);
