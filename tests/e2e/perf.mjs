// Performance of the release build in headless Chromium. Run by hand, not in
// CI (it takes about a minute and its figures depend on the machine):
//
//   trunk build --release && node tests/e2e/perf.mjs [rows]
//
// Measures, and prints as a Markdown section for BENCHMARKS.md:
// - time to interactive: navigation start until the sample rows are drawn
//   and the console's Command box takes input (median of 5 fresh loads);
// - loading generated data (default 1,000,000 rows) through the Rows panel:
//   total time, and the longest gap between animation frames meanwhile
//   (the page must never freeze);
// - scrolling the rows panel with that data: frame intervals while
//   scrolling steadily and while jumping to random positions, and the
//   app's work per scroll (from the scroll event to the new rows being in
//   the DOM: reading the window from the core and redrawing it);
// - the console reading and counting the whole table;
// - the simulation (timestamp-first scenario): frame intervals while it
//   plays at 4x and at Max speed (target: no frame over 50 ms), and the Key
//   Visualizer's redraw of a full map (paint + putImageData, from the
//   canvas's data-redraw-ms; target under 16 ms) for each metric and scale;
// - the size of dist/, raw and gzipped.
//
// TABLETOP_DIST=/some/dist measures another build than dist/.
import { readdir, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serveStatic } from './static-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.TABLETOP_DIST ? path.resolve(process.env.TABLETOP_DIST) : path.resolve(HERE, '..', '..', 'dist');
const ROWS = Number(process.argv[2] ?? 1_000_000);
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const ms = (x) => `${x.toFixed(1)} ms`;

async function distSize() {
  let raw = 0;
  let gz = 0;
  const files = [];
  for (const name of await readdir(DIST)) {
    const file = path.join(DIST, name);
    if (!(await stat(file)).isFile()) continue;
    const body = await readFile(file);
    const packed = gzipSync(body, { level: 9 }).length;
    raw += body.length;
    gz += packed;
    files.push({ name, raw: body.length, gz: packed });
  }
  return { raw, gz, files };
}

const server = await serveStatic(DIST, '/tabletop/');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS });

// Time to interactive, five fresh loads.
const tti = [];
for (let i = 0; i < 5; i++) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForSelector('#rows .row');
  await page.getByRole('textbox', { name: 'Command' }).waitFor();
  tti.push(await page.evaluate(() => performance.now()));
  await context.close();
}

const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
const page = await context.newPage();
const problems = [];
page.on('pageerror', (e) => problems.push(e.message));
await page.goto(server.url);
await page.waitForSelector('#rows .row');

// Load generated data, watching frame gaps meanwhile.
await page.evaluate(() => {
  window.__frames = [];
  let last = performance.now();
  const tick = (t) => {
    window.__frames.push(t - last);
    last = t;
    if (window.__recording) requestAnimationFrame(tick);
  };
  window.__recording = true;
  requestAnimationFrame(tick);
});
await page.getByText('Load sample data').click();
await page.getByRole('textbox', { name: 'Table to load into' }).fill('perf');
await page.evaluate((rows) => {
  const select = document.querySelector('select[aria-label="Rows to generate"]');
  if (![...select.options].some((o) => o.value === String(rows))) {
    select.add(new Option(String(rows), String(rows)));
  }
}, ROWS);
await page.getByRole('combobox', { name: 'Rows to generate' }).selectOption(String(ROWS));
// Every frame, note when the progress bar goes (rows written) and when the
// row count stops saying "counting" (the row index is built). A small load
// can finish before the bar is ever drawn: three frames after the click
// without a bar count as written too.
await page.evaluate(() => {
  window.__marks = {};
  const watch = () => {
    const now = performance.now();
    const bar = document.querySelector('[role=progressbar]');
    const text = document.querySelector('#rows-position')?.textContent ?? '';
    if (window.__marks.clicked !== undefined) window.__marks.frames = (window.__marks.frames ?? 0) + 1;
    if (bar && window.__marks.start === undefined) window.__marks.start = now;
    const settled = window.__marks.start !== undefined || window.__marks.frames >= 3;
    if (settled && !bar && window.__marks.written === undefined) window.__marks.written = now;
    if (window.__marks.written !== undefined && !text.includes('counting')) {
      window.__marks.indexed = now;
      return;
    }
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
});
const clicked = await page.evaluate(() => (window.__marks.clicked = performance.now()));
await page.getByRole('button', { name: 'Generate' }).click();
await page.waitForFunction(() => window.__marks.indexed !== undefined, null, { timeout: 600_000, polling: 500 });
const marks = await page.evaluate(() => window.__marks);
const generated = marks.written - clicked;
const indexed = marks.indexed - clicked;
const loadFrames = await page.evaluate(() => {
  window.__recording = false;
  return window.__frames;
});
const position = await page.textContent('#rows-position');
const tables = await page.$$eval('#table-list .table-item', (els) =>
  els.map((e) => `${e.querySelector('.table-name').textContent} (${e.querySelector('.table-meta').textContent})`));
const memoryMb = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize / 1e6 : NaN));

// Scrolling: steady steps, then random jumps. Each step sets scrollTop in
// a frame; frame intervals and redraw times are recorded in the page.
async function scrollRun(kind, steps) {
  return page.evaluate(
    ({ kind, steps }) =>
      new Promise((resolve) => {
        const viewport = document.querySelector('.rows-viewport');
        const rows = document.querySelector('.rows-window');
        const frames = [];
        const redraws = [];
        let pending = null;
        // The scroll event reaches the window first (capture phase), before
        // the app's handler; the mutation observer fires once the new rows
        // are in the DOM: the time between is the app's work for one scroll
        // (reading the rows from the core and redrawing them).
        const onScroll = (e) => {
          if (e.target === viewport) pending = performance.now();
        };
        window.addEventListener('scroll', onScroll, { capture: true });
        const observer = new MutationObserver(() => {
          if (pending !== null) {
            redraws.push(performance.now() - pending);
            pending = null;
          }
        });
        observer.observe(rows, { childList: true, subtree: true, characterData: true });
        let n = 0;
        let last = performance.now();
        let seed = 12345;
        const random = () => {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          return seed / 2147483648;
        };
        const max = viewport.scrollHeight - viewport.clientHeight;
        const step = (t) => {
          if (n > 0) frames.push(t - last);
          last = t;
          if (n++ >= steps) {
            observer.disconnect();
            window.removeEventListener('scroll', onScroll, { capture: true });
            resolve({ frames, redraws });
            return;
          }
          viewport.scrollTop = kind === 'steady' ? Math.min(max, viewport.scrollTop + 240) : Math.floor(random() * max);
          requestAnimationFrame(step);
        };
        viewport.scrollTop = kind === 'steady' ? Math.floor(max / 3) : 0;
        requestAnimationFrame(step);
      }),
    { kind, steps },
  );
}
await page.waitForTimeout(500);
// Main-thread time (script, style, layout, paint) per frame, from Chromium.
const cdp = await context.newCDPSession(page);
await cdp.send('Performance.enable');
const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
async function measured(kind, steps) {
  const before = await metrics();
  const run = await scrollRun(kind, steps);
  const after = await metrics();
  run.taskPerFrame = ((after.TaskDuration - before.TaskDuration) * 1000) / steps;
  run.scriptPerFrame = ((after.ScriptDuration - before.ScriptDuration) * 1000) / steps;
  return run;
}
const steady = await measured('steady', 240);
const jumps = await measured('jumps', 120);
const after = await page.textContent('#rows-position');

// The console on the whole table: from Enter to the new entry in the DOM.
async function consoleRun(command) {
  const box = page.getByRole('textbox', { name: 'Command' });
  await box.fill(command);
  const before = await page.locator('.entry').count();
  const t0 = await page.evaluate(() => performance.now());
  await box.press('Enter');
  await page.waitForFunction((n) => document.querySelectorAll('.entry').length > n, before, { timeout: 600_000 });
  return (await page.evaluate(() => performance.now())) - t0;
}
const readAll = await consoleRun('read perf');
const countAll = await consoleRun('count perf');

// The simulation: play the timestamp-first scenario, recording frame
// intervals, then redraw the full heatmap for every metric and scale.
async function simRun() {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const p = await ctx.newPage();
  p.on('pageerror', (e) => problems.push(e.message));
  await p.goto(server.url);
  await p.waitForSelector('#rows .row');
  const kv = p.getByRole('region', { name: 'Key Visualizer', exact: true });
  await kv.getByLabel('Scenario', { exact: true }).selectOption('mobile_timestamp_first.toml');
  await p.locator('canvas.kv-canvas').waitFor();
  const session = await ctx.newCDPSession(p);
  await session.send('Performance.enable');
  const taskTimes = async () =>
    Object.fromEntries((await session.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  // Back to the start (building the simulation again) before each
  // measured run, timing the click's synchronous work (the reducer).
  const resets = [];
  const play = async (speed) => {
    await kv.getByLabel('Speed', { exact: true }).selectOption(speed);
    resets.push(
      await p.evaluate(() => {
        const button = [...document.querySelectorAll('.keyviz-panel button')].find((b) => b.textContent === 'Reset');
        const t = performance.now();
        button.click();
        return performance.now() - t;
      }),
    );
    await p.waitForTimeout(200);
    // Long tasks (over 50 ms) on the main thread, as Chromium reports them.
    await p.evaluate(() => {
      window.__longTasks = [];
      if (!window.__longObserver) {
        window.__longObserver = new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__longTasks.push(e.duration);
        });
        window.__longObserver.observe({ type: 'longtask' });
      }
    });
    await p.evaluate(() => {
      window.__simFrames = [];
      let last = performance.now();
      const tick = (t) => {
        window.__simFrames.push(t - last);
        last = t;
        if (window.__simRecording) requestAnimationFrame(tick);
      };
      window.__simRecording = true;
      requestAnimationFrame(tick);
    });
    const started = Date.now();
    const before = await taskTimes();
    await kv.getByRole('button', { name: 'Play', exact: true }).click();
    await kv.getByRole('button', { name: 'Replay' }).waitFor({ timeout: 120_000 });
    const wall = Date.now() - started;
    const after = await taskTimes();
    const { frames, longTasks } = await p.evaluate(() => {
      window.__simRecording = false;
      return { frames: window.__simFrames.slice(1), longTasks: window.__longTasks };
    });
    const taskPerFrame = ((after.TaskDuration - before.TaskDuration) * 1000) / frames.length;
    const scriptPerFrame = ((after.ScriptDuration - before.ScriptDuration) * 1000) / frames.length;
    return { frames, wall, longTasks, taskPerFrame, scriptPerFrame };
  };
  const normal = await play('quadruple');
  // The app's own estimates of a map rebuild and a diagnosis while playing.
  const costs = await p.locator('section.keyviz-panel').evaluate((e) => [e.dataset.mapMs, e.dataset.diagnoseMs]);
  const max = await play('max');
  const redraws = [];
  const canvas = p.locator('canvas.kv-canvas');
  for (const metric of ['ops', 'write_rows', 'read_rows', 'write_bytes', 'data_stored', 'rows']) {
    for (const scale of ['absolute', 'relative']) {
      await kv.getByLabel('Metric', { exact: true }).selectOption(metric);
      await kv.getByLabel('Scale', { exact: true }).selectOption(scale);
      // Each change redraws once, in the frame after it.
      await p.waitForTimeout(50);
      redraws.push(Number(await canvas.getAttribute('data-redraw-ms')));
    }
  }
  const pixels = await canvas.evaluate((c) => `${c.width}x${c.height}`);
  const tablets = await p.locator('.sim-tablets-panel .panel-meta').textContent();
  await ctx.close();
  return { normal, max, redraws, pixels, tablets, resets, costs };
}
const sim = await simRun();
const size = await distSize();
await browser.close();
await server.close();

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const out = [];
out.push('## Browser');
out.push('');
out.push(
  `**Reproduce:** \`trunk build --release && node tests/e2e/perf.mjs ${ROWS}\` (headless Chromium ${browser.version()}, ` +
    `viewport 1440x900, ${os.cpus().length} cores, ${cpu}). Source: \`tests/e2e/perf.mjs\`.`,
);
out.push('');
out.push('| what | figure | target |');
out.push('|---|---|---|');
out.push(`| time to interactive (sample rows drawn, Command box ready), median of 5 fresh loads | ${ms(median(tti))} (all: ${tti.map((x) => x.toFixed(0)).join(', ')} ms) | |`);
out.push(`| generate ${ROWS.toLocaleString('en')} rows in the page (Rows panel → Load sample data) | ${(generated / 1000).toFixed(1)} s, then the row index in ${((indexed - generated) / 1000).toFixed(1)} s | never freeze |`);
out.push(`| frame intervals while loading: median / p95 / longest | ${ms(median(loadFrames))} / ${ms(pct(loadFrames, 95))} / ${ms(Math.max(...loadFrames))} | no long freeze |`);
out.push(`| steady scroll, 240 frames of 240 px: frame interval median / p95 / longest | ${ms(median(steady.frames))} / ${ms(pct(steady.frames, 95))} / ${ms(Math.max(...steady.frames))} | under 16.7 ms |`);
out.push(`| steady scroll: work per scroll (scroll event → new rows in the DOM) median / p95 | ${ms(median(steady.redraws))} / ${ms(pct(steady.redraws, 95))} | under 16 ms |`);
out.push(`| steady scroll: main-thread time per frame (all tasks) / of it script (Chromium's TaskDuration, ScriptDuration) | ${ms(steady.taskPerFrame)} / ${ms(steady.scriptPerFrame)} | under 16 ms |`);
out.push(`| random jumps, 120 frames: frame interval median / p95 / longest | ${ms(median(jumps.frames))} / ${ms(pct(jumps.frames, 95))} / ${ms(Math.max(...jumps.frames))} | under 16.7 ms |`);
out.push(`| random jumps: work per scroll median / p95 | ${ms(median(jumps.redraws))} / ${ms(pct(jumps.redraws, 95))} | under 16 ms |`);
out.push(`| random jumps: main-thread time per frame / of it script | ${ms(jumps.taskPerFrame)} / ${ms(jumps.scriptPerFrame)} | under 16 ms |`);
out.push(`| console: \`read perf\` on every row (a screenful printed, the rest read and counted) / \`count perf\`, Enter to output drawn | ${ms(readAll)} / ${ms(countAll)} | |`);
out.push(`| simulation at 4× (timestamp-first, 1 h simulated in ${(sim.normal.wall / 1000).toFixed(1)} s): frame interval median / p95 / longest | ${ms(median(sim.normal.frames))} / ${ms(pct(sim.normal.frames, 95))} / ${ms(Math.max(...sim.normal.frames))} | longest under 50 ms |`);
out.push(`| simulation at 4×: main-thread time per frame (all tasks) / of it script; long tasks (over 50 ms) | ${ms(sim.normal.taskPerFrame)} / ${ms(sim.normal.scriptPerFrame)}; ${sim.normal.longTasks.length ? sim.normal.longTasks.map((x) => x.toFixed(0)).join(', ') + ' ms' : 'none'} | under 16 ms; none |`);
out.push(`| simulation at Max (the whole run in ${(sim.max.wall / 1000).toFixed(1)} s, ${sim.max.frames.length} frames): frame interval median / p95 / longest | ${ms(median(sim.max.frames))} / ${ms(pct(sim.max.frames, 95))} / ${ms(Math.max(...sim.max.frames))} | longest under 50 ms |`);
out.push(`| while playing, the app's cost estimates (the larger of the last and a slowly decaying average): rebuilding the map / diagnosing | ${sim.costs[0]} ms / ${sim.costs[1]} ms | |`);
out.push(`| Reset (building the simulation again: sampling the key space, laying out tablets, an empty map): the click's work | ${sim.resets.map(ms).join(', ')} | a one-off, not while running |`);
out.push(`| Key Visualizer redraw of the full map (300 columns x 500 key buckets onto a ${sim.pixels} canvas; paint + putImageData), ${sim.redraws.length} redraws: median / longest | ${ms(median(sim.redraws))} / ${ms(Math.max(...sim.redraws))} | under 16 ms |`);
out.push(`| dist/ size, raw / gzipped (level 9) | ${(size.raw / 1024).toFixed(0)} KiB / ${(size.gz / 1024).toFixed(0)} KiB | under 1.5 MB gzipped |`);
out.push('');
out.push(`Simulation at the end: ${sim.tablets}.`);
out.push('');
out.push(`Data after loading: ${position}; tables: ${tables.join(', ')}. JS heap in use: ${memoryMb.toFixed(0)} MB (the wasm memory is separate). Last position: ${after}.`);
out.push('');
out.push('dist/ files (raw / gzipped):');
out.push('');
for (const f of size.files) out.push(`- \`${f.name}\`: ${(f.raw / 1024).toFixed(1)} KiB / ${(f.gz / 1024).toFixed(1)} KiB`);
if (problems.length) out.push('', `Page errors: ${problems.join('; ')}`);
console.log(out.join('\n'));
