// tabletop-js against sql.js (SQLite in wasm) on the peer workload: the
// mobile time series of bench/src/lib.rs (same generator, same rows, same
// sampled keys and prefixes), loaded and read through each package's own
// API. Each configuration runs in a Node process of its own (this script
// again, with --only NAME), one after the other: in one shared process the
// first configuration paid V8's warm-up and the later ones the garbage of
// the earlier ones, so figures depended on the order.
//
//   node bench/js/peer.mjs [ROWS] [PACKAGE_DIR]    defaults: 100000, target/tabletop-js
//
// scripts/bench.sh --js builds the package and runs this beside the core's
// own in-process figures. BENCHMARKS.md explains the phases. Each read
// here is timed once, after 100 untimed point reads and prefix scans:
// bench/js/goals.mjs times the goals' reads warm, over many rounds.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { DETAIL, QUALIFIERS, SUMMARY, VALUE_REGEX, generate, prefixEnd, sample } from './mobile-data.mjs';
import { TABLE, createMobileTable, pointRequests, prefixRequests, REGEX_REQUEST, writeAll, writeBatches } from './package-requests.mjs';
import { CellReads, insertAll, insertBatches, openCells } from './sqljs-store.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const ROWS = Number(process.argv[2] ?? 100000);
const PKG = path.resolve(process.argv[3] ?? path.join(ROOT, 'target', 'tabletop-js'));
const ONLY = process.argv[4] === '--only' ? process.argv[5] : null;
const require = createRequire(import.meta.url);
const { Tabletop } = require(path.join(PKG, 'node', 'index.cjs'));

// ----------------------------------------------------------------- timing

/**
 * Runs `fn`; answers [wall-clock ms, its result, CPU ms]. The CPU time is
 * the process's (user + system, `process.cpuUsage()`): on a machine shared
 * with other work the wall clock also counts the time spent waiting for a
 * core, the CPU time only the work done (the garbage collector's threads
 * included). Each phase starts after a full garbage collection, outside
 * its time (children run with --expose-gc), so that a read phase does not
 * pay for the garbage of the load before it.
 */
function time(fn) {
  globalThis.gc?.();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = fn();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return [wall, result, (used.user + used.system) / 1000];
}

const BATCH = 1000;
/** Point reads and prefix scans made before the timed ones, on each store (JIT warm-up). */
const WARM_UP = 100;
function tabletop(data, keys, prefixes, options = {}) {
  // Requests are built before the clock starts, as sql.js's parameters are.
  let batches = writeBatches(data.rows, BATCH);
  const db = new Tabletop(options.engine ? { engine: options.engine } : undefined);
  const read = options.values || options.shape ? { values: options.values, shape: options.shape } : undefined;
  createMobileTable(db);
  const out = {};
  [out.load, , out.loadCpu] = time(() => writeAll(db, batches));
  batches = null;
  [out.compact] = time(() => db.compact({ tableName: TABLE }));
  const pointReqs = pointRequests(keys);
  const prefixReqs = prefixRequests(prefixes);
  for (const q of pointReqs.slice(0, WARM_UP)) db.readRows(q, read);
  for (const q of prefixReqs.slice(0, WARM_UP)) db.readRows(q, read);
  let n = 0;
  [out.point, , out.pointCpu] = time(() => { for (const q of pointReqs) n += db.readRows(q, read).rows.length; });
  out.pointRows = n;
  n = 0;
  [out.prefix, , out.prefixCpu] = time(() => { for (const q of prefixReqs) n += db.readRows(q, read).rows.length; });
  out.prefixRows = n;
  const regex = REGEX_REQUEST;
  [out.regex, out.regexRows, out.regexCpu] = time(() => db.readRows(regex, read).rows.length);
  [out.regexIter, out.regexIterRows, out.regexIterCpu] = time(() => {
    let count = 0;
    for (const _ of db.readRowsIter(regex, read)) count += 1;
    return count;
  });
  [out.fullScan, out.fullRows, out.fullScanCpu] = time(() => db.readRows({ tableName: TABLE }, read).rows.length);
  [out.fullIter, out.fullIterRows, out.fullIterCpu] = time(() => {
    let count = 0;
    for (const _ of db.readRowsIter({ tableName: TABLE }, read)) count += 1;
    return count;
  });
  db.free();
  return out;
}

/** The same workload through `handle`, the JSON-text API the package keeps. */
function textApi(data, keys, prefixes) {
  const b64 = (text) => Buffer.from(text).toString('base64');
  const qualifiers = new Map(QUALIFIERS.map((q) => [q, b64(q)]));
  let lines = [];
  for (let i = 0; i < data.rows.length; i += BATCH) {
    lines.push(JSON.stringify({ method: 'mutateRows', request: {
      tableName: TABLE,
      entries: data.rows.slice(i, i + BATCH).map((r) => ({
        rowKey: b64(r.key),
        mutations: r.cells.map(([family, q, value]) => ({
          setCell: { familyName: family, columnQualifier: qualifiers.get(q), timestampMicros: String(r.ts), value: b64(value) },
        })),
      })),
    } }));
  }
  const db = new Tabletop();
  const call = (method, request) => {
    const answer = JSON.parse(db.handle(JSON.stringify({ method, request })));
    if (answer.error) throw new Error(answer.error.message);
    return answer.response;
  };
  call('createTable', { parent: 'projects/p/instances/i', tableId: 'mobile', table: { columnFamilies: { [SUMMARY]: {}, [DETAIL]: {} } } });
  const out = {};
  [out.load, , out.loadCpu] = time(() => {
    for (const line of lines) {
      const answer = JSON.parse(db.handle(line));
      if (answer.response.entries.some((e) => e.status.code !== 0)) throw new Error('a write failed');
    }
  });
  lines = null;
  call('compact', { tableName: TABLE });
  const point = (k) => call('readRows', { tableName: TABLE, rows: { rowKeys: [b64(k)] } }).rows.length;
  for (const k of keys.slice(0, WARM_UP)) point(k);
  for (const p of prefixes.slice(0, WARM_UP)) {
    call('readRows', { tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: b64(p), endKeyOpen: b64(prefixEnd(p)) }] } });
  }
  let n = 0;
  [out.point, , out.pointCpu] = time(() => { for (const k of keys) n += point(k); });
  n = 0;
  [out.prefix, , out.prefixCpu] = time(() => {
    for (const p of prefixes) {
      n += call('readRows', { tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: b64(p), endKeyOpen: b64(prefixEnd(p)) }] } }).rows.length;
    }
  });
  [out.regex, , out.regexCpu] = time(() => call('readRows', { tableName: TABLE, filter: { valueRegexFilter: b64(VALUE_REGEX) } }).rows.length);
  [out.fullScan, , out.fullScanCpu] = time(() => call('readRows', { tableName: TABLE }).rows.length);
  db.free();
  return out;
}

async function sqljs(data, keys, prefixes) {
  const db = await openCells();
  let batches = insertBatches(data.rows, BATCH);
  const out = {};
  [out.load, , out.loadCpu] = time(() => insertAll(db, batches));
  batches = null;
  const reads = new CellReads(db);
  reads.points(keys.slice(0, WARM_UP));
  let n = 0;
  [out.point, , out.pointCpu] = time(() => { n = reads.points(keys); });
  out.pointRows = n;
  reads.prefixes(prefixes.slice(0, WARM_UP));
  [out.prefix, , out.prefixCpu] = time(() => { n = reads.prefixes(prefixes); });
  out.prefixRows = n;
  [out.regex, out.regexRows, out.regexCpu] = time(() => reads.globScan());
  [out.regexFn, out.regexFnRows, out.regexFnCpu] = time(() => reads.regexpScan());
  [out.fullScan, out.fullRows, out.fullScanCpu] = time(() => reads.scan());
  reads.free();
  db.close();
  return out;
}

const ms = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const ratio = (a, b) => `${(a / b).toFixed(1)}x`;

/** The configurations, each run in a process of its own. */
const CONFIGS = {
  default: (d, k, p) => tabletop(d, k, p),
  // The options for large data: the engine's bulk thresholds, and cell
  // values as bytes (no base64 text made).
  'bulk-bytes': (d, k, p) => tabletop(d, k, p, { engine: 'bulk', values: 'bytes' }),
  // The bulk engine with answers in the flat shape (`{ shape: 'flat' }`:
  // each row's cells in one array, base64 values).
  'bulk-flat': (d, k, p) => tabletop(d, k, p, { engine: 'bulk', shape: 'flat' }),
  handle: (d, k, p) => textApi(d, k, p),
  sqljs: (d, k, p) => sqljs(d, k, p),
};

if (ONLY !== null) {
  // A child: one configuration, its figures as one JSON line.
  const data = generate(ROWS);
  const keys = sample(data.rows.map((r) => r.key), 1000, 7n);
  const prefixes = sample(data.monthPrefixes, 1000, 11n);
  const out = await CONFIGS[ONLY](data, keys, prefixes);
  console.log(JSON.stringify(out));
  process.exit(0);
}

const data = generate(ROWS);
const cells = data.rows.reduce((s, r) => s + r.cells.length, 0);
data.rows.length = 0;
console.log(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; node ${process.version}`);
console.log(`data: ${ROWS} rows, ${cells} cells; writes in mutateRows of ${BATCH} rows; each configuration in a process of its own`);
const run = (name) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), String(ROWS), PKG, '--only', name], {
  encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'],
}));
const t = run('default');
const b = run('bulk-bytes');
const f = run('bulk-flat');
const h = run('handle');
const s = run('sqljs');
for (const x of [t, b, f]) {
  if (x.pointRows !== s.pointRows || x.prefixRows !== s.prefixRows || x.regexRows !== s.regexRows || x.regexRows !== s.regexFnRows || x.fullRows !== s.fullRows || x.fullIterRows !== s.fullRows) {
    throw new Error(`row counts differ: ${JSON.stringify({ x, s })}`);
  }
}
console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('');
console.log("| phase | rows returned | tabletop-js | tabletop-js, bulk engine + bytes | tabletop-js, bulk + flat | sql.js | speed-up | speed-up, bulk + bytes | speed-up, bulk + flat | handle (JSON text) |");
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const cell = (v) => (v === undefined ? '' : `${ms(v)} ms`);
const speedUp = (sq, x) => (sq === undefined || x === undefined ? '' : ratio(sq, x));
const line = (phase, rows, a, a2, a3, sq, c) => console.log(`| ${phase} | ${rows} | ${ms(a)} ms | ${cell(a2)} | ${cell(a3)} | ${cell(sq)} | ${speedUp(sq, a)} | ${speedUp(sq, a2)} | ${speedUp(sq, a3)} | ${cell(c)} |`);
line(`load, ${cells.toLocaleString('en')} cells`, '-', t.load, b.load, f.load, s.load, h.load);
line('1000 point reads', t.pointRows, t.point, b.point, f.point, s.point, h.point);
line('1000 prefix scans', t.prefixRows, t.prefix, b.prefix, f.prefix, s.prefix, h.prefix);
line('value-regex full scan (sql.js: GLOB)', t.regexRows, t.regex, b.regex, f.regex, s.regex, h.regex);
line('value-regex full scan (sql.js: REGEXP, a JS function)', t.regexRows, t.regex, b.regex, f.regex, s.regexFn);
line('value-regex full scan, readRowsIter (sql.js: GLOB)', t.regexIterRows, t.regexIter, b.regexIter, f.regexIter, s.regex);
line('full scan, readRows (one answer of every row)', t.fullRows, t.fullScan, b.fullScan, f.fullScan, s.fullScan, h.fullScan);
line('full scan, readRowsIter (row by row)', t.fullIterRows, t.fullIter, b.fullIter, f.fullIter, s.fullScan);
console.log(`| (tabletop-js: compact before the reads) | | ${ms(t.compact)} ms | ${ms(b.compact)} ms | ${ms(f.compact)} ms | | | | | |`);
console.log('');
console.log('CPU time of the process (user + system) in the same phases:');
console.log('');
console.log("| phase | rows returned | tabletop-js | tabletop-js, bulk engine + bytes | tabletop-js, bulk + flat | sql.js | speed-up | speed-up, bulk + bytes | speed-up, bulk + flat | handle (JSON text) |");
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
line(`load, ${cells.toLocaleString('en')} cells`, '-', t.loadCpu, b.loadCpu, f.loadCpu, s.loadCpu, h.loadCpu);
line('1000 point reads', t.pointRows, t.pointCpu, b.pointCpu, f.pointCpu, s.pointCpu, h.pointCpu);
line('1000 prefix scans', t.prefixRows, t.prefixCpu, b.prefixCpu, f.prefixCpu, s.prefixCpu, h.prefixCpu);
line('value-regex full scan (sql.js: GLOB)', t.regexRows, t.regexCpu, b.regexCpu, f.regexCpu, s.regexCpu, h.regexCpu);
line('value-regex full scan (sql.js: REGEXP, a JS function)', t.regexRows, t.regexCpu, b.regexCpu, f.regexCpu, s.regexFnCpu);
line('value-regex full scan, readRowsIter (sql.js: GLOB)', t.regexIterRows, t.regexIterCpu, b.regexIterCpu, f.regexIterCpu, s.regexCpu);
line('full scan, readRows (one answer of every row)', t.fullRows, t.fullScanCpu, b.fullScanCpu, f.fullScanCpu, s.fullScanCpu, h.fullScanCpu);
line('full scan, readRowsIter (row by row)', t.fullIterRows, t.fullIterCpu, b.fullIterCpu, f.fullIterCpu, s.fullScanCpu);
