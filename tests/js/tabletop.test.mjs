// The JS API (crate js/, package tabletop-js) in Node: builds the crate for
// wasm32 in release mode, runs wasm-bindgen --target nodejs into
// target/js-pkg/, loads it and drives it through `handle` (the JSON
// protocol) and `cbt` (the cbt language).
//
// Run: node --test tests/js/
// Set TABLETOP_JS_PKG to a directory that already holds the wasm-bindgen
// output to skip the build.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const TARGET = process.env.CARGO_TARGET_DIR ?? path.join(ROOT, 'target');
const PKG = process.env.TABLETOP_JS_PKG ?? path.join(TARGET, 'js-pkg');
const TABLE = 'projects/p/instances/i/tables/t';

function wasmBindgen() {
  const local = path.join(homedir(), '.cargo', 'bin', 'wasm-bindgen');
  return existsSync(local) ? local : 'wasm-bindgen';
}

let Tabletop;

before(() => {
  if (!process.env.TABLETOP_JS_PKG) {
    const run = (cmd, args) => execFileSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    run('cargo', ['build', '-p', 'tabletop-js', '--target', 'wasm32-unknown-unknown', '--release']);
    run(wasmBindgen(), [
      '--target', 'nodejs',
      '--out-dir', PKG,
      path.join(TARGET, 'wasm32-unknown-unknown', 'release', 'tabletop_js.wasm'),
    ]);
  }
  const require = createRequire(import.meta.url);
  ({ Tabletop } = require(path.join(PKG, 'tabletop_js.js')));
});

/** Sends one request and returns the parsed answer line. */
function call(db, method, request) {
  const line = db.handle(JSON.stringify({ method, request }));
  assert.equal(line.includes('\n'), false, 'one answer line');
  return JSON.parse(line);
}

function ok(db, method, request) {
  const answer = call(db, method, request);
  assert.ok('response' in answer, `${method} failed: ${JSON.stringify(answer)}`);
  return answer.response;
}

const b64 = (bytes) => Buffer.from(bytes).toString('base64');
const unb64 = (text) => [...Buffer.from(text, 'base64')];

function withTable() {
  const db = new Tabletop();
  ok(db, 'createTable', {
    parent: 'projects/p/instances/i',
    tableId: 't',
    table: { columnFamilies: { cf: { gcRule: { maxNumVersions: 1 } } } },
  });
  return db;
}

test('createTable and getTable answer Table resources', () => {
  const db = withTable();
  assert.deepEqual(ok(db, 'getTable', { name: TABLE }), {
    name: TABLE,
    granularity: 'MILLIS',
    columnFamilies: { cf: { gcRule: { maxNumVersions: 1 } } },
  });
  assert.deepEqual(ok(db, 'listTables', { parent: 'projects/p/instances/i' }), { tables: [{ name: TABLE }] });
});

test('binary keys and values round-trip through base64', () => {
  const db = withTable();
  const key = [0x00, 0xff, 0x80, 0x0a];
  const value = Array.from({ length: 256 }, (_, i) => i);
  ok(db, 'mutateRow', {
    tableName: TABLE,
    rowKey: b64(key),
    mutations: [{ setCell: { familyName: 'cf', columnQualifier: b64([1, 2]), timestampMicros: '5000', value: b64(value) } }],
  });
  const { rows } = ok(db, 'readRows', { tableName: TABLE });
  assert.equal(rows.length, 1);
  assert.deepEqual(unb64(rows[0].key), key);
  const [family] = rows[0].families;
  assert.equal(family.name, 'cf');
  assert.deepEqual(unb64(family.columns[0].qualifier), [1, 2]);
  assert.equal(family.columns[0].cells[0].timestampMicros, '5000');
  assert.deepEqual(unb64(family.columns[0].cells[0].value), value);
});

test('errors come back as gRPC codes naming the field', () => {
  const db = withTable();
  const bad = call(db, 'readRows', { tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: '$$' }] } });
  assert.equal(bad.error.code, 3);
  assert.equal(bad.error.status, 'INVALID_ARGUMENT');
  assert.match(bad.error.message, /^request\.rows\.rowRanges\[0\]\.startKeyClosed: invalid base64/);
  const missing = call(db, 'getTable', { name: 'projects/p/instances/i/tables/nope' });
  assert.equal(missing.error.status, 'NOT_FOUND');
  assert.equal(JSON.parse(db.handle('not json')).error.code, 3);
});

test('mutateRows reports one status per entry', () => {
  const db = withTable();
  const { entries } = ok(db, 'mutateRows', {
    tableName: TABLE,
    entries: [
      { rowKey: b64([1]), mutations: [{ setCell: { familyName: 'cf', value: b64([1]) } }] },
      { rowKey: b64([2]), mutations: [{ setCell: { familyName: 'nope', value: b64([2]) } }] },
    ],
  });
  // The documented form: every entry, a numeric index, a status code.
  assert.deepEqual(entries[0], { index: 0, status: { code: 0 } });
  assert.equal(entries[1].index, 1);
  assert.equal(entries[1].status.code, 5);
});

test('the clock is an input', () => {
  const db = withTable();
  assert.equal(ok(db, 'advanceClock', {}).nowMicros, '0');
  const now = ok(db, 'advanceClock', { nowMicros: '1600000000000000' });
  assert.equal(now.time, '2020-09-13T12:26:40Z');
});

test('cbt speaks to the same instance', () => {
  const db = withTable();
  assert.equal(db.cbt('ls'), 't\n');
  db.cbt('set t row1 cf:q=hello@1000');
  const { rows } = ok(db, 'readRows', { tableName: TABLE });
  assert.deepEqual(unb64(rows[0].key), [...Buffer.from('row1')]);
  assert.match(db.cbt('read t'), /row1\n\s+cf:q\s+@ 1970\/01\/01-00:00:00\.001000\n\s+"hello"/);
  const failed = JSON.parse(db.cbtOutcome('read nosuchtable'));
  assert.equal(failed.exitCode, 1);
  assert.notEqual(failed.stderr, '');
});

test('instances are independent and methods are listed', () => {
  const a = withTable();
  const b = new Tabletop();
  assert.deepEqual(ok(b, 'listTables', { parent: 'projects/p/instances/i' }), {});
  assert.equal(ok(a, 'listTables', { parent: 'projects/p/instances/i' }).tables.length, 1);
  const methods = JSON.parse(Tabletop.methods());
  const bigtable = methods.filter((m) => m.service !== 'playground').map((m) => m.name);
  assert.equal(bigtable.length, 17);
  assert.ok(bigtable.includes('createAuthorizedView'));
  assert.ok(bigtable.includes('readRows'));
  assert.ok(methods.some((m) => m.name === 'advanceClock' && m.service === 'playground'));
  assert.ok(JSON.parse(Tabletop.cbtCommands()).includes('createtable'));
});

test('traced calls say what each operation did', () => {
  const db = withTable();
  const set = JSON.parse(db.cbtTraced('set t row1 cf:q=hello@1000'));
  assert.equal(set.exitCode, 0);
  assert.equal(set.traces[0].operation, 'MutateRow');
  assert.equal(set.traces[0].cellsWritten, 1);
  const read = JSON.parse(db.cbtTraced('read t prefix=row'));
  assert.match(read.stdout, /row1/);
  assert.equal(read.traces[0].shape, 'single_range');
  assert.equal(read.traces[0].rowsReturned, 1);
  assert.equal(read.traces[0].tabletsVisited.length, 1);
  const json = JSON.parse(db.handleTraced(JSON.stringify({
    method: 'readRows', request: { tableName: TABLE, rowsLimit: '1' },
  })));
  assert.equal(json.answer.response.rows.length, 1);
  assert.equal(json.traces[0].rowsLimit, 1);
  const failed = JSON.parse(db.handleTraced(JSON.stringify({ method: 'readRows', request: { tableName: 'projects/p/instances/i/tables/nope' } })));
  assert.equal(failed.answer.error.status, 'NOT_FOUND');
  assert.deepEqual(failed.traces, []);
});
