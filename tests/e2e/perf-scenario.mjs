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
import { chromium } from 'playwright-core';
import { ARGS, CHROMIUM, DIST, SUB_PATH } from './harness.mjs';
import { serveStatic } from './static-server.mjs';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const WHAT = process.argv.length > 3 ? process.argv.slice(3) : ['sample', 'scenario', 'replay'];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
const ms = (x) => `${x.toFixed(1)} ms`;

/** Starts recording long tasks and frame intervals in the page. */
async function startWatch(page) {
  await page.evaluate(() => {
    const w = { long: [], frames: [], last: performance.now(), on: true };
    window.__watch = w;
    w.tasks = [];
    w.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        w.long.push(e.duration);
        w.tasks.push({ start: e.startTime, end: e.startTime + e.duration });
      }
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
}

/** Stops recording; returns what was seen. */
async function stopWatch(page) {
  return page.evaluate(() => {
    const w = window.__watch;
    w.on = false;
    w.observer.disconnect();
    // The app's User Timing measures (tabletop:slice, :tick, :redraw)
    // since the start: totals, and their share of the long tasks.
    const measures = performance
      .getEntriesByType('measure')
      .filter((m) => m.name.startsWith('tabletop:') && m.startTime >= w.start)
      .map((m) => ({ name: m.name, start: m.startTime, end: m.startTime + m.duration }));
    performance.clearMeasures();
    const parts = {};
    for (const m of measures) {
      const p = (parts[m.name] ??= { count: 0, total: 0, max: 0, inLong: 0 });
      p.count += 1;
      p.total += m.end - m.start;
      p.max = Math.max(p.max, m.end - m.start);
      for (const t of w.tasks) p.inLong += Math.max(0, Math.min(t.end, m.end) - Math.max(t.start, m.start));
    }
    return { seconds: (performance.now() - w.start) / 1000, long: w.long, frames: w.frames.slice(1), parts };
  });
}

/** What the app's measures say about one run. */
function partsLine(name, r) {
  const fmt = ([k, p]) =>
    `${k.replace('tabletop:', '')} ${p.count}x, total ${p.total.toFixed(0)} ms, longest ${p.max.toFixed(1)} ms, ${p.inLong.toFixed(0)} ms inside long tasks`;
  return `${name}: ${Object.entries(r.parts).map(fmt).join('; ') || 'no measures (an older build)'}`;
}

function line(name, r) {
  const longest = r.long.length ? Math.max(...r.long) : 0;
  return `| ${name} | ${r.seconds.toFixed(2)} s | ${r.long.length} (longest ${ms(longest)}) | ${ms(pct(r.frames, 50))} / ${ms(pct(r.frames, 95))} / ${ms(Math.max(0, ...r.frames))} |`;
}

const server = await serveStatic(DIST, SUB_PATH);
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
const lines = [];
const notes = [];
try {
  const region = (page, name) => page.getByRole('region', { name, exact: true });
  const fresh = async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(server.url);
    await page.waitForSelector('#rows .row', { timeout: 60_000 });
    return page;
  };
  if (WHAT.includes('sample')) {
    const page = await fresh();
    const rows = region(page, 'Rows');
    await rows.getByText('Load sample data').click();
    await rows.getByRole('textbox', { name: 'Table to load into' }).fill('perf');
    await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption(String(ROWS));
    await startWatch(page);
    await rows.getByRole('button', { name: 'Generate' }).click();
    await page.waitForSelector('[aria-label="Loading sample data"]', { timeout: 30_000 });
    await page.waitForSelector('[aria-label="Loading sample data"]', { state: 'detached', timeout: 300_000 });
    const r = await stopWatch(page);
    lines.push(line(`Load sample data, ${ROWS.toLocaleString('en')} rows`, r));
    notes.push(partsLine('Load sample data', r));
    await page.close();
  }
  if (WHAT.includes('scenario') || WHAT.includes('replay')) {
    const page = await fresh();
    const kv = region(page, 'Key Visualizer');
    await kv.getByRole('combobox', { name: 'Scenario' }).selectOption('mobile_timestamp_first.toml');
    await kv.getByRole('combobox', { name: 'Rows to generate' }).selectOption(String(ROWS));
    await startWatch(page);
    await kv.getByRole('button', { name: 'Create table with rows' }).click();
    await page.waitForFunction(() => /rows in /.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
      timeout: 300_000,
      polling: 50,
    });
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
} finally {
  await browser.close();
  await server.close();
}
console.log(`Build: ${DIST}\n`);
console.log('| what | click to done | long tasks (over 50 ms) | frame interval median / p95 / longest |');
console.log('|---|---|---|---|');
for (const l of lines) console.log(l);
console.log('');
for (const n of notes) console.log(n);
