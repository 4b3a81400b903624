// The package's load alone, for comparing builds in one sitting: the
// mutateRows requests of the peer workload (batches of 1,000 rows of
// bench/js/mobile-data.mjs, byte fields as base64 strings, as goals.mjs
// makes them) built before the clock, a full collection, then every batch
// written once into a bulk-engine table, timed by the CPU time of the
// process (user + system) and by the wall clock. Also prints how many times
// wasm memory grew during the load and its size before and after: each
// growth with a large JavaScript heap alive can set off a full collection.
//
//   node --expose-gc bench/js/load.mjs [--reserve=MIB] [--json] [ROWS] [PACKAGE_DIR] [PROFILE_OUT]
//   defaults: no reservation, 100000, target/tabletop-js, no profile
//
// --reserve=MIB calls Tabletop.reserveMemory(MIB MiB) first, before the
// data set is made (as a suite would at its start), so that the load grows
// no memory; --json prints the figures as one JSON object (goals.mjs runs
// this script both ways, in processes of their own, and reads that).
//
// With PROFILE_OUT, the inspector's sampling profiler (every 200 us) runs
// around the load alone and its .cpuprofile is written there. One load per
// process (a second load into memory already grown costs much less):
// alternate builds (before, after, before, after) on a busy machine.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import inspector from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { generate } from './mobile-data.mjs';
import { createMobileTable, writeAll, writeBatches } from './package-requests.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const ROWS = Number(args[0] ?? 100000);
const PKG = path.resolve(args[1] ?? path.join(ROOT, 'target', 'tabletop-js'));
const PROFILE_OUT = args[2];
const RESERVE_MIB = Number(flags.find((f) => f.startsWith('--reserve='))?.slice('--reserve='.length) ?? 0);
const JSON_OUT = flags.includes('--json');
const unknown = flags.filter((f) => f !== '--json' && !f.startsWith('--reserve='));
if (unknown.length || !(ROWS > 0) || !(RESERVE_MIB >= 0)) {
  console.error('usage: node --expose-gc bench/js/load.mjs [--reserve=MIB] [--json] [ROWS] [PACKAGE_DIR] [PROFILE_OUT]');
  process.exit(2);
}

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const require = createRequire(import.meta.url);
const { Tabletop } = require(path.join(PKG, 'node', 'index.cjs'));
const reservedTo = RESERVE_MIB > 0 ? Tabletop.reserveMemory(RESERVE_MIB * 1048576) : null;

const data = generate(ROWS);
const cells = data.rows.reduce((s, r) => s + r.cells.length, 0);
const batches = writeBatches(data.rows, 1000);
data.rows.length = 0;
const db = new Tabletop({ engine: 'bulk' });
createMobileTable(db);
const memory = require(path.join(PKG, 'node', 'tabletop_js.js')).Tabletop.memory();
globalThis.gc();

const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => {
  session.post(method, params, (e, r) => (e ? reject(e) : resolve(r)));
});
if (PROFILE_OUT) {
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
}

const mb = (bytes) => (bytes / 1048576).toFixed(0);
const memoryBefore = memory.buffer.byteLength;
let buffer = memory.buffer;
let growths = 0;
const cpuStart = process.cpuUsage();
const wallStart = performance.now();
for (const batch of batches) {
  writeAll(db, [batch]);
  if (memory.buffer !== buffer) {
    growths += 1;
    buffer = memory.buffer;
  }
}
const cpu = process.cpuUsage(cpuStart);
const wall = performance.now() - wallStart;

if (PROFILE_OUT) {
  const { profile } = await post('Profiler.stop');
  fs.writeFileSync(PROFILE_OUT, JSON.stringify(profile));
}
if (JSON_OUT) {
  console.log(JSON.stringify({
    rows: ROWS, cells, reserveMiB: RESERVE_MIB, cpu: (cpu.user + cpu.system) / 1000, wall, growths,
    memoryBefore: memoryBefore, memoryAfter: buffer.byteLength, reservedTo,
  }));
  process.exit(0);
}
console.log(`${path.basename(PKG)}: ${RESERVE_MIB ? `after reserveMemory(${RESERVE_MIB} MiB), ` : ''}load of ${ROWS} rows (${cells} cells) ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU, `
  + `${wall.toFixed(0)} ms wall; wasm memory grew ${growths} times, ${mb(memoryBefore)} -> ${mb(buffer.byteLength)} MB; `
  + `load average ${os.loadavg()[0].toFixed(1)}`);
