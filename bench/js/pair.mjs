// The reads of the peer workload through several tabletop-js builds in ONE
// Node process, their rounds interleaved (build 1, build 2, ..., then in
// reverse order the next round), so that the figures of a round see the
// same machine load. Prints, per phase and build, the median and lowest
// CPU time of the process (user + system) over the rounds and the median
// of each round's ratio to the first build's.
//
//   node --expose-gc bench/js/pair.mjs ROWS ROUNDS PHASES DIR1 DIR2 ...
//   e.g. node --expose-gc bench/js/pair.mjs 100000 21 point,prefix-flat,regex-flat \
//            target/tabletop-js-main target/tabletop-js
//
// Phases: those of bench/js/reads.mjs (point, prefix, regex, point-flat,
// prefix-flat, regex-flat) and `empty` (1000 flat reads of a range with no
// rows: what a call costs before its rows). A full collection runs before
// each timed phase, outside its time (reads.mjs also runs one inside).
//
// On a machine shared with other builds, figures from separate processes
// (reads.mjs, alternated) move by 30 % or more from run to run; the ratios
// here are steadier. The builds share one JavaScript heap, so each one's
// garbage is collected in the others' time too: use reads.mjs for absolute
// figures, this for the difference between builds.
import { createRequire } from 'node:module';
import path from 'node:path';
import { DETAIL, QUALIFIERS, SUMMARY, generate, prefixEnd, sample } from './mobile-data.mjs';
import { collectAndSettle } from './settle.mjs';

const [ROWS, ROUNDS, PHASES, ...DIRS] = process.argv.slice(2);
if (!DIRS.length) {
  console.error('usage: node --expose-gc bench/js/pair.mjs ROWS ROUNDS PHASES DIR...');
  process.exit(2);
}
const require = createRequire(import.meta.url);
const TABLE = 'projects/p/instances/i/tables/mobile';
const FLAT = { shape: 'flat' };
const b64 = (text) => Buffer.from(text).toString('base64');
const enc = new TextEncoder();

const data = generate(Number(ROWS));
const qualifiers = new Map(QUALIFIERS.map((q) => [q, b64(q)]));
const points = sample(data.rows.map((r) => r.key), 1000, 7n)
  .map((k) => ({ tableName: TABLE, rows: { rowKeys: [enc.encode(k)] } }));
const prefixes = sample(data.monthPrefixes, 1000, 11n).map((p) => ({
  tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: enc.encode(p), endKeyOpen: enc.encode(prefixEnd(p)) }] },
}));
const empties = prefixes.map((_, i) => ({
  tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: enc.encode(`zzz${i}`), endKeyOpen: enc.encode(`zzz${i}a`) }] },
}));
const regex = { tableName: TABLE, filter: { valueRegexFilter: b64('PQ2A\\.19040[0-9]\\.003') } };

/** The data set loaded through the build in `dir` (bulk engine, compacted), warmed up. */
function load(dir) {
  const { Tabletop } = require(path.resolve(dir, 'node', 'index.cjs'));
  const db = new Tabletop({ engine: 'bulk' });
  db.createTable({
    parent: 'projects/p/instances/i', tableId: 'mobile',
    table: { columnFamilies: { [SUMMARY]: {}, [DETAIL]: {} } },
  });
  for (let i = 0; i < data.rows.length; i += 1000) {
    const answer = db.mutateRows({
      tableName: TABLE,
      entries: data.rows.slice(i, i + 1000).map((r) => ({
        rowKey: b64(r.key),
        mutations: r.cells.map(([family, q, value]) => ({
          setCell: { familyName: family, columnQualifier: qualifiers.get(q), timestampMicros: r.ts, value: b64(value) },
        })),
      })),
    });
    if (answer.entries.some((e) => e.status.code !== 0)) throw new Error('a write failed');
  }
  db.compact({ tableName: TABLE });
  for (const q of points.slice(0, 100)) db.readRows(q);
  return db;
}

const dbs = DIRS.map(load);
data.rows.length = 0;

const count = (db, requests, options) => requests.reduce((n, q) => n + db.readRows(q, options).rows.length, 0);
const phases = {
  point: (db) => count(db, points),
  prefix: (db) => count(db, prefixes),
  regex: (db) => db.readRows(regex).rows.length,
  'point-flat': (db) => count(db, points, FLAT),
  'prefix-flat': (db) => count(db, prefixes, FLAT),
  'regex-flat': (db) => db.readRows(regex, FLAT).rows.length,
  empty: (db) => count(db, empties, FLAT),
};

const names = PHASES.split(',');
const runs = new Map();
for (let round = 0; round < Number(ROUNDS); round++) {
  for (const p of names) {
    const order = dbs.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) {
      if (globalThis.gc) collectAndSettle();
      const start = process.cpuUsage();
      const rows = phases[p](dbs[i]);
      const used = process.cpuUsage(start);
      const key = `${p} ${i}`;
      if (!runs.has(key)) runs.set(key, []);
      runs.get(key).push({ cpu: (used.user + used.system) / 1000, rows });
    }
  }
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
console.log(`${ROWS} rows, ${ROUNDS} rounds, CPU ms: median (lowest), median ratio to the first build`);
for (const p of names) {
  const first = runs.get(`${p} 0`).map((r) => r.cpu);
  const cols = DIRS.map((dir, i) => {
    const rs = runs.get(`${p} ${i}`);
    const cpu = rs.map((r) => r.cpu);
    const ratio = median(cpu.map((c, j) => c / first[j]));
    return `${path.basename(dir)} ${median(cpu).toFixed(1)} (${Math.min(...cpu).toFixed(1)}) x${ratio.toFixed(2)}, ${rs[0].rows} rows`;
  });
  console.log(`${p.padEnd(11)} ${cols.join(' | ')}`);
}
for (const db of dbs) db.free();
