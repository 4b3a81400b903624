// tabletop-js's browser build in headless Chromium: the workload's reads
// (bench/js/mobile-data.mjs) through the package's methods in a page, each
// package in its own page, the pages taken in turn (A B A B ...) so that
// an A/B of two builds sees the same machine.
//
//   node bench/js/browser.mjs [ROWS] [ROUNDS] [PACKAGE_DIR ...]
//   defaults: 100000, 15, target/tabletop-js
//
// Each page writes the rows (keys, qualifiers and values as bytes, 1000 rows
// a mutateRows call, the requests made before the clock starts; timed once),
// compacts (timed apart), runs 8 untimed rounds of the phases, then ROUNDS
// timed rounds, and reports each phase's median wall time in ms (a page has
// no CPU clock and no forced collection). CHROMIUM names the
// browser (/usr/bin/chromium by default). Serves the files itself on a
// loopback port (tests/e2e/static-server.mjs); nothing is downloaded.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from '../../tests/e2e/static-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const ROWS = Number(process.argv[2] ?? 100000);
const ROUNDS = Number(process.argv[3] ?? 15);
const PACKAGES = process.argv.slice(4).map((d) => path.resolve(d));
if (PACKAGES.length === 0) PACKAGES.push(path.join(ROOT, 'target', 'tabletop-js'));
if (!(ROWS > 0) || !(ROUNDS > 0)) {
  console.error('usage: node bench/js/browser.mjs [ROWS] [ROUNDS] [PACKAGE_DIR ...]');
  process.exit(2);
}
const SITTINGS = PACKAGES.length > 1 ? 2 : 1;

// What each page runs: the same phases as goals.mjs, by the same requests.
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>tabletop-js in a browser: the workload's reads</title>
<script type="module">
import init, { Tabletop } from './pkg/web/index.js';
import { QUALIFIERS, VALUE_REGEX, generate, prefixEnd, sample } from './mobile-data.mjs';
const median = (v) => v.sort((a, b) => a - b)[v.length >> 1];
window.run = async (rows, rounds) => {
  await init();
  const enc = new TextEncoder();
  const data = generate(rows);
  const PARENT = 'projects/p/instances/i';
  const TABLE = PARENT + '/tables/mobile';
  const db = new Tabletop({ engine: 'bulk' });
  db.createTable({ parent: PARENT, tableId: 'mobile', table: { columnFamilies: { stats_summary: {}, stats_detail: {} } } });
  const qualifiers = new Map(QUALIFIERS.map((q) => [q, enc.encode(q)]));
  const batches = [];
  for (let i = 0; i < data.rows.length; i += 1000) {
    batches.push({
      tableName: TABLE,
      entries: data.rows.slice(i, i + 1000).map((r) => ({
        rowKey: enc.encode(r.key),
        mutations: r.cells.map(([family, q, value]) => ({
          setCell: { familyName: family, columnQualifier: qualifiers.get(q), timestampMicros: r.ts, value: enc.encode(value) },
        })),
      })),
    });
  }
  let start = performance.now();
  for (const batch of batches) db.mutateRows(batch);
  const load = performance.now() - start;
  batches.length = 0;
  start = performance.now();
  db.compact({ tableName: TABLE });
  const compact = performance.now() - start;
  const keys = sample(data.rows.map((r) => r.key), 1000, 7n);
  const prefixes = sample(data.monthPrefixes, 1000, 11n);
  const points = keys.map((k) => ({ tableName: TABLE, rows: { rowKeys: [enc.encode(k)] } }));
  const ranges = prefixes.map((p) => ({
    tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: enc.encode(p), endKeyOpen: enc.encode(prefixEnd(p)) }] },
  }));
  const regex = { tableName: TABLE, filter: { valueRegexFilter: btoa(VALUE_REGEX) } };
  const FLAT = { shape: 'flat' };
  const count = (requests, options) => requests.reduce((n, q) => n + db.readRows(q, options).rows.length, 0);
  const phases = {
    'point reads, nested': () => count(points),
    'point reads, flat': () => count(points, FLAT),
    'prefix scans, nested': () => count(ranges),
    'prefix scans, flat': () => count(ranges, FLAT),
    'regex scan, nested': () => db.readRows(regex).rows.length,
    'regex scan, flat': () => db.readRows(regex, FLAT).rows.length,
  };
  for (let i = 0; i < 8; i++) for (const run of Object.values(phases)) run();
  const times = {};
  for (let i = 0; i < rounds; i++) {
    for (const [name, run] of Object.entries(phases)) {
      const start = performance.now();
      run();
      (times[name] ??= []).push(performance.now() - start);
    }
  }
  const out = { load: { rows, ms: load }, 'compaction (not in the load)': { rows, ms: compact } };
  for (const [name, run] of Object.entries(phases)) out[name] = { rows: run(), ms: median(times[name]) };
  return out;
};
window.ready = true;
</script>`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'tabletop-js-browser-bench-'));
writeFileSync(path.join(dir, 'index.html'), PAGE);
cpSync(path.join(HERE, 'mobile-data.mjs'), path.join(dir, 'mobile-data.mjs'));
const server = await serveStatic(dir, '/bench/');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const version = browser.version();
const results = PACKAGES.map(() => []);
try {
  for (let sitting = 0; sitting < SITTINGS; sitting++) {
    for (const [i, pkg] of PACKAGES.entries()) {
      rmSync(path.join(dir, 'pkg'), { recursive: true, force: true });
      cpSync(pkg, path.join(dir, 'pkg'), { recursive: true });
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${server.url}index.html`);
      await page.waitForFunction(() => window.ready === true);
      results[i].push(await page.evaluate(([rows, rounds]) => window.run(rows, rounds), [ROWS, ROUNDS]));
      await page.close();
      if (errors.length) throw new Error(`the page failed: ${errors.join('; ')}`);
    }
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`Chromium ${version}, ${ROWS} rows, ${ROUNDS} timed rounds; ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('Wall ms, median of the rounds (one figure a page; pages in turn):\n');
console.log(`| phase | rows | ${PACKAGES.map((p) => path.relative(process.cwd(), p) || '.').join(' | ')} |`);
console.log(`|---|---:|${PACKAGES.map(() => '---:').join('|')}|`);
for (const phase of Object.keys(results[0][0])) {
  const cells = results.map((sittings) => sittings.map((s) => s[phase].ms.toFixed(1)).join(', '));
  console.log(`| ${phase} | ${results[0][0][phase].rows.toLocaleString('en-US')} | ${cells.join(' | ')} |`);
}
