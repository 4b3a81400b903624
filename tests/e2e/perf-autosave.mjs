// When the autosave is written during a bulk load. Run by hand on a release
// build:
//
//   trunk build --release && node tests/e2e/perf-autosave.mjs [rows] [cpu-slowdown]
//
// For Load sample data and Create table with rows (timestamp-first) it
// slows the page's CPU (4x by default, as a slower machine would run it;
// the loads then outlast the 3 s the saves of a busy page wait at most),
// records every write of the shared autosave in localStorage, and prints
// how many fell inside the load (from the click until the load's end is on
// screen) and when the first one after it came. TABLETOP_DIST=/some/dist
// measures another build.
import os from 'node:os';
import { createTableWithRows, loadSampleData, withApp } from './perf-watch.mjs';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const SLOWDOWN = Number(process.argv[3] ?? 4);

/** Wraps localStorage.setItem so that each autosave write is timed. */
const recordWrites = (page) =>
  page.evaluate(() => {
    window.__writes = [];
    const setItem = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key, value) {
      if (this === window.localStorage && key === 'tabletop.autosave') window.__writes.push(performance.now());
      return setItem.call(this, key, value);
    };
  });

const LOADS = {
  'Load sample data': (page) => loadSampleData(page, ROWS, undefined, 600_000),
  'Create table with rows': (page) => createTableWithRows(page, ROWS, undefined, 600_000),
};

console.log(`Build: ${process.env.TABLETOP_DIST ?? 'dist'}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await withApp(async ({ fresh }) => {
  for (const [name, load] of Object.entries(LOADS)) {
    const page = await fresh();
    await page.waitForTimeout(1000);
    await recordWrites(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: SLOWDOWN });
    const start = await page.evaluate(() => performance.now());
    await load(page);
    const end = await page.evaluate(() => performance.now());
    await page.waitForTimeout(2000);
    const writes = await page.evaluate(() => window.__writes);
    const during = writes.filter((t) => t < end).map((t) => `${((t - start) / 1000).toFixed(1)} s`);
    const after = writes.filter((t) => t >= end);
    console.log(
      `${name}, ${ROWS.toLocaleString('en')} rows, CPU ${SLOWDOWN}x slower: load ${((end - start) / 1000).toFixed(1)} s; ` +
        `${during.length} autosave writes during it${during.length ? ` (at ${during.join(', ')})` : ''}; ` +
        `first after it: ${after.length ? `${(after[0] - end).toFixed(0)} ms after the end` : 'none within 2 s'}`,
    );
    await page.close();
  }
});
