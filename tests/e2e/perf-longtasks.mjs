// The long tasks of a bulk load, one by one, with what the app was doing
// in each. Run by hand on a release build (its figures depend on the
// machine):
//
//   trunk build --release && node tests/e2e/perf-longtasks.mjs [rows] [sample|scenario|redraws...]
//
// For each load it records the Long Tasks API entries (over 50 ms) from
// the click until 1.5 s after the load ended (the catching up, the live
// map's build and the autosave come after the last row), then prints each
// task's start (from the click) and length, and the app's User Timing
// measures (`tabletop:*`) that overlap it, with the time each spent inside
// the task. Then the count of long tasks, their total, and how many times
// the Key Visualizer's map was drawn (`data-renders`, where the build has
// it). `redraws` (not run by default) times, after a load, redraws that
// change no data: the Key Visualizer's view asked for again and
// keystrokes in the console, from the event until Yew has drawn it.
// TABLETOP_DIST=/some/dist measures another build.
import os from 'node:os';
import { createTableWithRows, loadSampleData, withApp } from './perf-watch.mjs';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const WHAT = process.argv.length > 3 ? process.argv.slice(3) : ['sample', 'scenario'];
const AFTER_MS = 1500;

/** Starts the long-task observer (the click follows). */
const observe = (page) =>
  page.evaluate(() => {
    const w = { tasks: [], start: performance.now() };
    window.__probe = w;
    w.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.tasks.push({ start: e.startTime, end: e.startTime + e.duration });
    });
    w.observer.observe({ type: 'longtask' });
  });

/** Waits AFTER_MS, stops, and returns each long task with the measures inside it. */
async function collect(page) {
  await page.waitForTimeout(AFTER_MS);
  return page.evaluate(() => {
    const w = window.__probe;
    w.observer.disconnect();
    const measures = performance
      .getEntriesByType('measure')
      .filter((m) => m.name.startsWith('tabletop:') && m.startTime + m.duration >= w.start)
      .map((m) => ({ name: m.name.replace('tabletop:', ''), start: m.startTime, end: m.startTime + m.duration }));
    performance.clearMeasures();
    const renders = [...document.querySelectorAll('.kv-map')].map((e) => e.getAttribute('data-renders'));
    return {
      renders,
      tasks: w.tasks.map((t) => {
        const parts = {};
        for (const m of measures) {
          const inside = Math.min(t.end, m.end) - Math.max(t.start, m.start);
          if (inside > 0) parts[m.name] = (parts[m.name] ?? 0) + inside;
        }
        return { at: t.start - w.start, ms: t.end - t.start, parts };
      }),
    };
  });
}

function print(name, r) {
  const total = r.tasks.reduce((s, t) => s + t.ms, 0);
  console.log(`\n${name}: ${r.tasks.length} long tasks, ${total.toFixed(0)} ms in all; map renders ${r.renders.join(', ') || '-'}`);
  for (const t of r.tasks) {
    const parts = Object.entries(t.parts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ');
    console.log(`  +${(t.at / 1000).toFixed(2)} s  ${t.ms.toFixed(1)} ms  ${parts || '(no measure)'}`);
  }
}

console.log(`Build: ${process.env.TABLETOP_DIST ?? 'dist'}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await withApp(async ({ fresh }) => {
  if (WHAT.includes('sample')) {
    const page = await fresh();
    await loadSampleData(page, ROWS, () => observe(page));
    print(`Load sample data, ${ROWS.toLocaleString('en')} rows`, await collect(page));
    await page.close();
  }
  if (WHAT.includes('scenario')) {
    const page = await fresh();
    await createTableWithRows(page, ROWS, () => observe(page));
    print(`Create table with rows, ${ROWS.toLocaleString('en')} rows`, await collect(page));
    await page.close();
  }
  if (WHAT.includes('redraws')) {
    // After a load (the live map of its table on screen), redraws that
    // change no data: the Key Visualizer's view asked for again, and
    // keystrokes in the console. Each is timed from the event until the
    // page has drawn it (Yew's work, not the browser's paint).
    const page = await fresh();
    await loadSampleData(page, ROWS);
    await page.waitForSelector('section.keyviz-panel[data-view=live][data-live-building=false] canvas', { timeout: 60_000 });
    await page.waitForTimeout(AFTER_MS);
    const timed = (what) =>
      page.evaluate(async (what) => {
        const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const times = [];
        const input = document.querySelector('textarea[aria-label=Command]');
        const button = [...document.querySelectorAll('.kv-switch button')].find((b) => b.textContent === 'Your tables');
        for (let i = 0; i < 10; i++) {
          await frame();
          const t = performance.now();
          if (what === 'view') {
            button.click();
          } else {
            input.value = 'read perf count=' + i;
            input.dispatchEvent(new InputEvent('input', { bubbles: true }));
          }
          // Yew draws in microtasks after the event: a zero timeout runs
          // once they are done (the paint itself is not counted).
          await new Promise((r) => setTimeout(r, 0));
          times.push(performance.now() - t);
        }
        return times.sort((a, b) => a - b);
      }, what);
    for (const [what, name] of [['view', 'the Key Visualizer view asked for again'], ['typing', 'a keystroke in the console']]) {
      const times = await timed(what);
      const renders = await page.evaluate(() => document.querySelector('.kv-map')?.getAttribute('data-renders'));
      console.log(`\n${name}, 10 times: median ${times[5].toFixed(1)} ms, longest ${times[9].toFixed(1)} ms; map renders ${renders ?? '-'}`);
    }
    await page.close();
  }
});
console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
