// What the page-performance scripts (perf-ab.mjs, perf-scenario.mjs) share:
// serving a build and launching headless Chromium on it, recording the
// Long Tasks API entries (over 50 ms) and the intervals between animation
// frames while the page works, and printing what was seen as a Markdown
// table row. Not a test file: the scripts are run by hand on a release
// build, since their figures depend on the machine.
import os from 'node:os';
import { chromium } from 'playwright-core';
import { ARGS, CHROMIUM, DIST, SUB_PATH, region } from './harness.mjs';
import { serveStatic } from './static-server.mjs';

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
const ms = (x) => `${x.toFixed(1)} ms`;

/**
 * Serves the build under the sub-path, launches Chromium, runs
 * `body({ fresh })` (`fresh()` opens the app at 1440x900 and waits for its
 * first rows) and closes both, even when `body` throws.
 */
export async function withApp(body) {
  const server = await serveStatic(DIST, SUB_PATH);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const fresh = async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(server.url);
    await page.waitForSelector('#rows .row', { timeout: 60_000 });
    return page;
  };
  try {
    return await body({ fresh });
  } finally {
    await browser.close();
    await server.close();
  }
}

/** Starts recording long tasks and frame intervals in the page. */
/**
 * *Load sample data* of `rows` rows into table `perf` from the Rows panel:
 * `before()` runs just before the click (to start watching), and the
 * promise ends when the load's progress bar has gone and the Rows panel
 * counts every row.
 */
export async function loadSampleData(page, rows, before = async () => {}, timeout = 300_000) {
  const panel = region(page, 'Rows');
  await panel.getByText('Load sample data').click();
  await panel.getByRole('textbox', { name: 'Table to load into' }).fill('perf');
  await panel.getByRole('combobox', { name: 'Rows to generate' }).selectOption(String(rows));
  await before();
  await panel.getByRole('button', { name: 'Generate' }).click();
  // A small load can end before a wait for its progress bar begins: wait
  // for the bar to be gone and the table to hold every row.
  const whole = `of ${rows.toLocaleString('en')} rows`;
  await page.waitForFunction(
    (whole) =>
      !document.querySelector('[aria-label="Loading sample data"]') &&
      (document.querySelector('#rows-position')?.textContent ?? '').endsWith(whole),
    whole,
    { timeout, polling: 50 },
  );
}

/**
 * *Create table with rows* of the timestamp-first scenario with `rows`
 * rows, from the Key Visualizer: `before()` runs just before the click,
 * and the promise ends when the panel says how many rows the table got.
 */
export async function createTableWithRows(page, rows, before = async () => {}, timeout = 300_000) {
  const kv = region(page, 'Key Visualizer');
  await kv.getByRole('combobox', { name: 'Scenario' }).selectOption('mobile_timestamp_first.toml');
  await kv.getByRole('combobox', { name: 'Rows to generate' }).selectOption(String(rows));
  await before();
  await kv.getByRole('button', { name: 'Create table with rows' }).click();
  await page.waitForFunction(() => /rows in /.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
    timeout,
    polling: 50,
  });
}

export async function startWatch(page) {
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

/**
 * Stops the clock now and the recording 200 ms later (long tasks are
 * reported after they end); returns the seconds from start to stop, the
 * long tasks' durations, the frame intervals and, from the app's User
 * Timing measures (`tabletop:slice`, `:tick`, `:refresh`, `:redraw`;
 * builds before them have none), each part's count, total and longest
 * time and how much of it fell inside long tasks.
 */
export async function stopWatch(page) {
  await page.evaluate(() => {
    window.__watch.end = performance.now();
  });
  await page.waitForTimeout(200);
  return page.evaluate(() => {
    const w = window.__watch;
    w.on = false;
    w.observer.disconnect();
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
    return { seconds: (w.end - w.start) / 1000, long: w.long, frames: w.frames.slice(1), parts };
  });
}

/** One table row: what, wall time, long tasks, frame intervals. */
export function line(name, r) {
  const longest = r.long.length ? Math.max(...r.long) : 0;
  return `| ${name} | ${r.seconds.toFixed(2)} s | ${r.long.length} (longest ${ms(longest)}) | ${ms(pct(r.frames, 50))} / ${ms(pct(r.frames, 95))} / ${ms(Math.max(0, ...r.frames))} |`;
}

/** What the app's measures say about one run: what its long tasks were made of. */
export function partsLine(name, r) {
  const fmt = ([k, p]) =>
    `${k.replace('tabletop:', '')} ${p.count}x, total ${p.total.toFixed(0)} ms, longest ${p.max.toFixed(1)} ms, ${p.inLong.toFixed(0)} ms inside long tasks`;
  return `${name}: ${Object.entries(r.parts).map(fmt).join('; ') || 'no measures (an older build)'}`;
}

/** Prints the build, the machine's load and the table. */
export function printTable(done, lines, notes = []) {
  console.log(`Build: ${DIST}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  console.log(`| what | ${done} | long tasks (over 50 ms) | frame interval median / p95 / longest |`);
  console.log('|---|---|---|---|');
  for (const l of lines) console.log(l);
  if (notes.length) console.log(`\n${notes.join('\n')}`);
}
