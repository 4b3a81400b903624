// Issue 18's goals for tabletop-js, measured in ONE Node process and one
// sitting: the core in-process (the bench crate's wasm, CoreReads: rows
// counted in wasm, never made into JavaScript values), the package
// through its public methods (readRows in the default nested shape and in
// `{ shape: 'flat' }`), and sql.js (bench/js/sqljs-store.mjs, as peer.mjs
// sets it up), all on the mobile data set of bench/js/mobile-data.mjs.
//
//   node bench/js/goals.mjs [ROWS] [ROUNDS] [PACKAGE_DIR]
//   defaults: 100000, 11, target/tabletop-js
//
// Needs the bench crate's wasm for Node in target/bench-node (scripts/bench.sh
// --js builds it and runs this). Each store is loaded once (the load timed;
// the package's and the core's compaction timed apart), then WARM_UP
// untimed rounds and ROUNDS timed rounds of each read phase, the stores
// interleaved (their order reversed every other round) so that each
// round's figures see the same machine. Every phase starts after a full
// garbage collection outside its time, and is timed by the CPU time of the
// process (user + system, which counts the work done, the garbage
// collector's and compiler's threads included, but not time spent waiting
// for a core) and by the wall clock. Then the core's rounds alone, back to
// back with no collection between them (its best case, caches hot). The
// goals' status is computed from the CPU medians, against the core's
// interleaved figures, measured as the package's are (like for like); its
// rounds alone are printed beside them as context.
//
// The package's load is also measured alone in processes of its own
// (bench/js/load.mjs, three each way in turn): as in this process, and
// after Tabletop.reserveMemory at the start. In Node 20 each growth of wasm
// memory during a load, with the data set's 200 MB of requests alive, can
// start a full collection of that heap; the core's load above runs before
// the data set exists, when such collections cost next to nothing.
//
// The "floor" row is plain JavaScript, no wasm: the regex answer's row
// keys made as strings from base64 text in a buffer (Buffer's latin1Slice,
// cheaper in JavaScript than base64Slice of the raw bytes) and one
// `{ key, cells }` object per row. No API that answers one JavaScript
// object per row can cost less than the engine's scan plus that.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { VALUE_REGEX, generate, sample } from './mobile-data.mjs';
import { REGEX_REQUEST, TABLE, createMobileTable, pointRequests, prefixRequests, writeAll, writeBatches } from './package-requests.mjs';
import { CellReads, insertAll, insertBatches, openCells } from './sqljs-store.mjs';
import { collectAndSettle } from './settle.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROWS = Number(process.argv[2] ?? 100000);
const ROUNDS = Number(process.argv[3] ?? 11);
const PKG = path.resolve(process.argv[4] ?? path.join(ROOT, 'target', 'tabletop-js'));
if (!(ROWS > 0) || !(ROUNDS > 0)) {
  console.error('usage: node bench/js/goals.mjs [ROWS] [ROUNDS] [PACKAGE_DIR]');
  process.exit(2);
}
/**
 * Untimed rounds before the timed ones. The core's wasm read code reaches
 * its steady cost after about 8 to 10 rounds of the three phases in Node 20
 * (read_rounds with no warm-up: 1000 point reads 6-9 ms of CPU in the
 * first round, 1.0-1.3 ms from about the tenth; see BENCHMARKS.md).
 */
const WARM_UP = 10;
const BATCH = 1000;
const require = createRequire(import.meta.url);
const { Tabletop } = require(path.join(PKG, 'node', 'index.cjs'));
const { CoreReads } = require(path.join(ROOT, 'target', 'bench-node', 'tabletop_bench.js'));

// A full collection between phases, with or without --expose-gc.
if (typeof globalThis.gc !== 'function') {
  v8.setFlagsFromString('--expose-gc');
  globalThis.gc = vm.runInNewContext('gc');
}

/** CPU ms and wall ms of `fn()`, and its result; a full GC first, untimed, unless `collect` is false. */
function time(fn, collect = true) {
  if (collect) collectAndSettle();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = fn();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / 1000, wall, result };
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
const loadAtStart = loadAverage();

// ------------------------------------------------------------ the stores

// The core first, before the JavaScript data set exists: while a large
// JavaScript heap is alive, each growth of a wasm memory can set off a full
// collection of that heap, which tripled the core's load (about 0.9 s of CPU
// against 0.3 s) though the core never touches it.
const loads = {};
const core = new CoreReads(ROWS);
loads.coreLoad = time(() => core.load());
if (loads.coreLoad.result !== 0) throw new Error('the core failed writes');
loads.coreCompact = time(() => core.compact());

const data = generate(ROWS);
const cells = data.rows.reduce((s, r) => s + r.cells.length, 0);
const keys = sample(data.rows.map((r) => r.key), 1000, 7n);
const prefixes = sample(data.monthPrefixes, 1000, 11n);

/** The floor's input: the regex answer's row keys as base64 text in one buffer. */
function floorInput() {
  const re = new RegExp(`^(?:${VALUE_REGEX})$`);
  const texts = data.rows
    .filter((r) => r.cells.some(([, , value]) => re.test(value)))
    .map((r) => Buffer.from(r.key).toString('base64'));
  const ends = new Uint32Array(texts.length);
  let end = 0;
  texts.forEach((t, i) => { end += t.length; ends[i] = end; });
  return { buf: Buffer.from(texts.join(''), 'latin1'), ends };
}
const floor = floorInput();
const NO_CELLS = Object.freeze([]);
let kept = null;
/** The floor: one key string and one row object per row of the regex answer. */
function floorRows() {
  const rows = [];
  let start = 0;
  for (const end of floor.ends) {
    rows.push({ key: floor.buf.latin1Slice(start, end), cells: NO_CELLS });
    start = end;
  }
  kept = rows;
  return rows.length;
}

let batches = writeBatches(data.rows, BATCH);
const db = new Tabletop({ engine: 'bulk' });
createMobileTable(db);
loads.packageLoad = time(() => writeAll(db, batches));
batches = null;
loads.packageCompact = time(() => db.compact({ tableName: TABLE }));

const sql = await openCells();
let params = insertBatches(data.rows, BATCH);
loads.sqlLoad = time(() => insertAll(sql, params));
params = null;
data.rows.length = 0;
const sqlReads = new CellReads(sql);

const points = pointRequests(keys);
const ranges = prefixRequests(prefixes);
const FLAT = { shape: 'flat' };
const count = (requests, options) => requests.reduce((n, q) => n + db.readRows(q, options).rows.length, 0);

/** Each phase's runs, one per store, in their order within a round. */
const PHASES = {
  point: {
    core: () => core.point_reads(),
    nested: () => count(points),
    flat: () => count(points, FLAT),
    sql: () => sqlReads.points(keys),
  },
  prefix: {
    core: () => core.prefix_scans(),
    nested: () => count(ranges),
    flat: () => count(ranges, FLAT),
    sql: () => sqlReads.prefixes(prefixes),
  },
  regex: {
    core: () => core.regex_scan(),
    nested: () => db.readRows(REGEX_REQUEST).rows.length,
    flat: () => db.readRows(REGEX_REQUEST, FLAT).rows.length,
    sql: () => sqlReads.globScan(),
    sqlRegexp: () => sqlReads.regexpScan(),
    floor: floorRows,
  },
};

// ------------------------------------------------------------ the rounds

for (let round = 0; round < WARM_UP; round++) {
  for (const runs of Object.values(PHASES)) for (const run of Object.values(runs)) run();
}
const figures = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [phase, runs] of Object.entries(PHASES)) {
    const stores = Object.keys(runs);
    if (round % 2) stores.reverse();
    for (const store of stores) {
      const key = `${phase} ${store}`;
      (figures[key] ??= []).push(time(runs[store]));
    }
  }
}
// The core's phases once more, back to back with nothing between them, not
// even the collection (as read_rounds times them): its store still in the
// processor's caches from the phase before. A full collection walks the
// whole JavaScript heap and leaves the caches cold: the same wasm phases
// then cost about twice as much (100,000 rows: the regex scan 3.7-3.9 ms of
// CPU after a collection, 1.7-1.8 ms without), so this is the core's best
// case, and the interleaved rounds the like-for-like comparison.
const CORE_PHASES = { point: PHASES.point.core, prefix: PHASES.prefix.core, regex: PHASES.regex.core };
for (let round = 0; round < ROUNDS; round++) {
  for (const [phase, run] of Object.entries(CORE_PHASES)) (figures[`${phase} coreAlone`] ??= []).push(time(run, false));
}
sqlReads.free();
sql.close();
db.free();
core.free();

// The package's load once more, in processes of their own (load.mjs), each
// way in turn: as above (the memory grows during the load, with the data
// set's requests alive), and after Tabletop.reserveMemory at the start,
// before the data set is made. RESERVE_BYTES_PER_CELL covers the bulk
// engine's memtable with room to spare (100,000 rows: 74 MiB used of 119).
const LOAD_RUNS = 3;
const RESERVE_BYTES_PER_CELL = 160;
const reserveMiB = Math.ceil((cells * RESERVE_BYTES_PER_CELL) / 1048576);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const loadRuns = { plain: [], reserved: [] };
for (let i = 0; i < LOAD_RUNS; i++) {
  const order = [['plain', 0], ['reserved', reserveMiB]];
  if (i % 2) order.reverse();
  for (const [way, mib] of order) {
    const out = execFileSync(process.execPath, ['--expose-gc', path.join(HERE, 'load.mjs'), '--json', `--reserve=${mib}`, String(ROWS), PKG],
      { encoding: 'utf8' });
    loadRuns[way].push(JSON.parse(out));
  }
}
const loadAtEnd = loadAverage();

// ------------------------------------------------------------ the report

for (const [phase, runs] of Object.entries(PHASES)) {
  const expected = figures[`${phase} core`][0].result;
  for (const store of [...Object.keys(runs), 'coreAlone']) {
    for (const f of figures[`${phase} ${store}`]) {
      if (f.result !== expected) throw new Error(`${phase}: ${store} counted ${f.result} rows, the core ${expected}`);
    }
  }
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
/** The median of the load's runs in processes of their own, `way` ('plain' or 'reserved'), by `clock`. */
const loadFigure = (way, clock) => median(loadRuns[way].map((r) => r[clock]));
/** A phase's median and lowest time by `clock` ('cpu' or 'wall'), and its rows. */
function stat(phase, store, clock) {
  const runs = figures[`${phase} ${store}`];
  if (!runs) return undefined;
  const xs = runs.map((f) => f[clock]);
  return { median: median(xs), low: Math.min(...xs), rows: runs[0].result };
}
const one = (f, clock) => ({ median: f[clock], low: f[clock] });
const ms = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const x = (v) => `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)}x`;
const both = (f) => (f === undefined ? '' : f.median === f.low ? ms(f.median) : `${ms(f.median)} (${ms(f.low)})`);

/** The table's rows by `clock`; each has the stores' figures and, for the goals, the speed-up wanted. */
function rowsBy(clock) {
  const row = (phase, label, sqlStore, goal) => ({
    phase: label, rows: stat(phase, 'core', clock).rows, core: stat(phase, 'core', clock), alone: stat(phase, 'coreAlone', clock),
    nested: stat(phase, 'nested', clock), flat: stat(phase, 'flat', clock), sql: stat(phase, sqlStore, clock), goal,
  });
  const coreLoad = one(loads.coreLoad, clock);
  return [
    { phase: `load, ${cells.toLocaleString('en')} cells`, rows: '-', core: coreLoad, alone: coreLoad,
      nested: one(loads.packageLoad, clock), sql: one(loads.sqlLoad, clock), goal: 5 },
    row('point', '1000 point reads', 'sql', 2),
    row('prefix', '1000 prefix scans (10 rows each)', 'sql', 2),
    row('regex', 'value-regex full scan (sql.js: GLOB)', 'sql', 10),
    row('regex', 'value-regex full scan (sql.js: REGEXP, a JavaScript function)', 'sqlRegexp'),
    { ...row('regex', "floor: the regex answer's keys and one row object each, plain JavaScript"),
      nested: undefined, flat: stat('regex', 'floor', clock), sql: undefined },
  ];
}

const rowCount = (r) => (typeof r.rows === 'number' ? r.rows.toLocaleString('en') : r.rows);
function table(clock) {
  const rows = rowsBy(clock);
  console.log('| phase | rows | core, interleaved | core, its rounds alone (no GC) | package, nested | package, flat | sql.js | speed-up over sql.js, nested / flat | to the core interleaved, nested / flat | to the core alone, nested / flat |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const over = (p) => (p && r.sql ? x(r.sql.median / p.median) : '-');
    const to = (p, c) => (p ? x(p.median / c.median) : '-');
    console.log(`| ${r.phase} | ${rowCount(r)} | ${both(r.core)} | ${both(r.alone)} | ${both(r.nested)} | ${both(r.flat)} | ${both(r.sql)} | ${over(r.nested)} / ${over(r.flat)} | ${to(r.nested, r.core)} / ${to(r.flat, r.core)} | ${to(r.nested, r.alone)} / ${to(r.flat, r.alone)} |`);
  }
  return rows;
}

/** The package's figures of row `r` (the load has one, the reads one per shape). */
const shapes = (r) => (r.flat ? [['nested', r.nested], ['flat', r.flat]] : [['', r.nested]]);
/** `value(figure)` and whether `met(figure)` holds, per shape. */
function judged(r, value, met) {
  const parts = shapes(r).map(([name, f]) => ({ name, text: x(value(f)), met: met(f) }));
  const label = (p) => (p.name ? `${p.name} ` : '');
  return {
    figures: parts.map((p) => `${label(p)}${p.text}`).join(', '),
    status: parts.map((p) => `${label(p)}**${p.met ? 'met' : 'not met'}**`).join(', '),
  };
}

console.log(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}; node ${process.version}`);
console.log(`load average at start ${loadAtStart}, at end ${loadAtEnd}`);
console.log(`data: ${ROWS} rows, ${cells} cells; package ${path.relative(ROOT, PKG) || PKG} (engine 'bulk'); ${WARM_UP} untimed rounds, then ${ROUNDS} timed rounds, stores interleaved; then ${ROUNDS} rounds of the core alone`);
console.log(`compaction (not in the load): core ${ms(loads.coreCompact.cpu)} ms, package ${ms(loads.packageCompact.cpu)} ms CPU`);
console.log('');
console.log(`The package's load alone, ${LOAD_RUNS} processes each way in turn (bench/js/load.mjs), medians:`);
console.log('');
console.log('| the load | CPU ms | wall ms | wasm memory grew | memory after |');
console.log('|---|---:|---:|---:|---:|');
for (const [way, label] of [['plain', 'as in this process'], ['reserved', `after Tabletop.reserveMemory(${reserveMiB} MiB) at the start`]]) {
  const runs = loadRuns[way];
  console.log(`| ${label} | ${ms(loadFigure(way, 'cpu'))} | ${ms(loadFigure(way, 'wall'))} | ${median(runs.map((r) => r.growths))} times | ${(median(runs.map((r) => r.memoryAfter)) / 1048576).toFixed(0)} MiB |`);
}
console.log('');
console.log("CPU time of the process, ms, median (lowest) over the rounds (the loads: one run each; the package's load, one figure for both shapes, in the nested column):");
console.log('');
const cpu = table('cpu');
console.log('');
console.log('Wall-clock time, ms, same runs:');
console.log('');
table('wall');
console.log('');
console.log("Issue 18's goals, from the CPU medians:");
console.log('');
console.log('| goal | figures | status |');
console.log('|---|---|---|');
const [load, point, prefix, glob, regexp, floorRow] = cpu;
for (const [name, r] of [['load at least 5x faster than sql.js', load], ['point reads at least 2x faster than sql.js', point],
  ['prefix scans at least 2x faster than sql.js', prefix], ["value-regex full scan at least 10x faster than sql.js's GLOB", glob]]) {
  const j = judged(r, (f) => r.sql.median / f.median, (f) => r.sql.median / f.median >= r.goal);
  console.log(`| ${name} | ${j.figures} | ${j.status} |`);
}
console.log(`| (the same scan against sql.js's REGEXP, not a goal) | ${judged(regexp, (f) => regexp.sql.median / f.median, () => true).figures} | |`);
// The goal compares like with like: the core's rounds interleaved with the
// package's, each phase after a full collection as the package's are. The
// core's rounds alone (caches hot, no collection) are a context line: the
// package is never measured that way.
for (const [name, r] of [['load within 2x of the core', load], ['point reads within 2x of the core', point],
  ['prefix scans within 2x of the core', prefix], ['value-regex full scan within 2x of the core', glob]]) {
  const j = judged(r, (f) => f.median / r.core.median, (f) => f.median / r.core.median <= 2);
  console.log(`| ${name} | ${j.figures} | ${j.status} |`);
  if (r !== load) {
    const alone = judged(r, (f) => f.median / r.alone.median, () => true);
    console.log(`| (the same against the core's rounds alone, caches hot; context, not the goal) | ${alone.figures} | |`);
  } else {
    for (const way of ['plain', 'reserved']) {
      const ratio = loadFigure(way, 'cpu') / r.core.median;
      const how = way === 'plain' ? 'as above' : `after Tabletop.reserveMemory(${reserveMiB} MiB) at the start`;
      console.log(`| (the load alone in processes of its own, ${how}: ${ms(loadFigure(way, 'cpu'))} ms CPU, against the core) | ${x(ratio)} | ${ratio <= 2 ? '**met**' : '**not met**'} |`);
    }
  }
}
// No package can answer in less than the engine's scan plus the making of
// its answer's JavaScript values: the floor row added to the core's scan.
for (const [against, c] of [['interleaved', floorRow.core], ['its rounds alone', floorRow.alone]]) {
  const least = (c.median + floorRow.flat.median) / c.median;
  console.log(`| (the least any answer of one object per row could cost: the core's regex scan, ${against}, plus the floor row, against that scan) | ${x(least)} | ${least <= 2 ? 'within 2x: reachable' : 'over 2x: out of reach for any answer of one object per row'} |`);
}
if (kept === null) throw new Error('the floor never ran');
