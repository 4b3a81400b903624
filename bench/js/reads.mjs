// The reads of the peer workload through one tabletop-js build, alone in
// its process, for comparing builds in one sitting: the data set of
// bench/js/mobile-data.mjs loaded with the bulk engine and compacted (as
// the core's in-process benchmark does), then ROUNDS rounds of 1000 point
// reads, 1000 prefix scans of ten rows and one value-regex full scan, each
// phase timed by the CPU time of the process (user + system) and by the
// wall clock. Prints each phase's median and lowest CPU time, and with
// --expose-gc the median CPU time of the full collection after it.
//
//   node bench/js/reads.mjs [ROWS] [PACKAGE_DIR] [ROUNDS] [PHASES]
//   defaults: 100000, target/tabletop-js, 7, point,prefix,regex
//
// More phases, for builds that have `{ shape: 'flat' }`: point-flat,
// prefix-flat, regex-flat (the same reads in the flat shape), and empty
// (1000 flat reads of a range with no rows, as in bench/js/pair.mjs: what
// a call costs before its rows).
//
// Unlike bench/js/peer.mjs, nothing else lives in the process (no sql.js,
// no second store, the write requests dropped before the reads), so the
// garbage collector works only on the reads' own answers. Alternate builds
// (before, after, before, after) to compare them on a busy machine.
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { DETAIL, QUALIFIERS, SUMMARY, generate, prefixEnd, sample } from './mobile-data.mjs';
import { settle } from './settle.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROWS = Number(process.argv[2] ?? 100000);
const PKG = path.resolve(process.argv[3] ?? path.join(ROOT, 'target', 'tabletop-js'));
const ROUNDS = Number(process.argv[4] ?? 7);
const PHASES = (process.argv[5] ?? 'point,prefix,regex').split(',');
const { Tabletop } = createRequire(import.meta.url)(path.join(PKG, 'node', 'index.cjs'));

const TABLE = 'projects/p/instances/i/tables/mobile';
const VALUE_REGEX = 'PQ2A\\.19040[0-9]\\.003';
const BATCH = 1000;
const FLAT = { shape: 'flat' };

/** A full garbage collection; answers the CPU ms it took. */
function collect() {
  const before = process.cpuUsage();
  globalThis.gc();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

/**
 * CPU ms and wall ms of `fn()`, and what it returned. Run with
 * `node --expose-gc`, a full garbage collection runs before the phase and
 * another right after it, both outside the phase's time; the one after is
 * reported apart (`gc`, CPU ms). So a phase's figure is the reads' own
 * work with the young-generation collections that happen during it, as an
 * application pays it, and the cost of collecting all its garbage at once
 * is still shown beside it. (Earlier versions ran the second collection
 * inside the phase's time; BENCHMARKS.md's reads.mjs figures before the
 * subsection "Reads that stay optimized across collections" include it.)
 */
function time(fn) {
  const gc = globalThis.gc;
  if (gc) {
    collect();
    settle();
  }
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = fn();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const gcCpu = gc ? collect() : NaN;
  return { cpu: (used.user + used.system) / 1000, wall, gc: gcCpu, result };
}

function load(data) {
  const b64 = (text) => Buffer.from(text).toString('base64');
  const qualifiers = new Map(QUALIFIERS.map((q) => [q, b64(q)]));
  const db = new Tabletop({ engine: 'bulk' });
  db.createTable({
    parent: 'projects/p/instances/i', tableId: 'mobile',
    table: { columnFamilies: { [SUMMARY]: {}, [DETAIL]: {} } },
  });
  for (let i = 0; i < data.rows.length; i += BATCH) {
    const answer = db.mutateRows({
      tableName: TABLE,
      entries: data.rows.slice(i, i + BATCH).map((r) => ({
        rowKey: b64(r.key),
        mutations: r.cells.map(([family, q, value]) => ({
          setCell: { familyName: family, columnQualifier: qualifiers.get(q), timestampMicros: r.ts, value: b64(value) },
        })),
      })),
    });
    if (answer.entries.some((e) => e.status.code !== 0)) throw new Error('a write failed');
  }
  db.compact({ tableName: TABLE });
  return db;
}

const data = generate(ROWS);
const enc = new TextEncoder();
const points = sample(data.rows.map((r) => r.key), 1000, 7n)
  .map((k) => ({ tableName: TABLE, rows: { rowKeys: [enc.encode(k)] } }));
const prefixes = sample(data.monthPrefixes, 1000, 11n).map((p) => ({
  tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: enc.encode(p), endKeyOpen: enc.encode(prefixEnd(p)) }] },
}));
const empties = prefixes.map((_, i) => ({
  tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: enc.encode(`zzz${i}`), endKeyOpen: enc.encode(`zzz${i}a`) }] },
}));
const regex = { tableName: TABLE, filter: { valueRegexFilter: Buffer.from(VALUE_REGEX).toString('base64') } };
const db = load(data);
data.rows.length = 0;

const phases = {
  point: () => points.reduce((n, q) => n + db.readRows(q).rows.length, 0),
  prefix: () => prefixes.reduce((n, q) => n + db.readRows(q).rows.length, 0),
  regex: () => db.readRows(regex).rows.length,
  'point-flat': () => points.reduce((n, q) => n + db.readRows(q, FLAT).rows.length, 0),
  'prefix-flat': () => prefixes.reduce((n, q) => n + db.readRows(q, FLAT).rows.length, 0),
  'regex-flat': () => db.readRows(regex, FLAT).rows.length,
  empty: () => empties.reduce((n, q) => n + db.readRows(q, FLAT).rows.length, 0),
};
for (const q of points.slice(0, 100)) db.readRows(q);
const runs = new Map(PHASES.map((p) => [p, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const p of PHASES) runs.get(p).push(time(phases[p]));
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
console.log(`${path.relative(ROOT, PKG) || PKG}: ${ROWS} rows, ${ROUNDS} rounds${globalThis.gc ? ', a full GC after each phase, timed apart' : ''}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
for (const [p, xs] of runs) {
  const cpu = xs.map((x) => x.cpu);
  const wall = xs.map((x) => x.wall);
  const gcs = xs.map((x) => x.gc);
  const gcText = globalThis.gc ? `; the GC after it median ${median(gcs).toFixed(1)} ms` : '';
  console.log(`${p.padEnd(11)} rows ${String(xs[0].result).padStart(6)}  CPU median ${median(cpu).toFixed(1)} ms, lowest ${Math.min(...cpu).toFixed(1)} ms; wall median ${median(wall).toFixed(1)} ms${gcText}`);
}
db.free();
