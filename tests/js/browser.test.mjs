// The browser build of tabletop-js in headless Chromium: the package is
// installed from its folder (npm install --install-links) into a temporary
// project, that project is served over HTTP (tests/e2e/static-server.mjs),
// and a page imports web/index.js as an ES module, calls init() and drives
// the same methods as in Node.
//
// Run: node --test tests/js/   (CHROMIUM names the browser; /usr/bin/chromium
// by default).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serveStatic } from '../e2e/static-server.mjs';
import { installPackage } from './install.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// What the page runs, once the module is loaded: every answer it gets, or
// the name, status and message of what it threw.
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>tabletop-js in a browser</title>
<script type="module">
import init, { Tabletop, TabletopError } from './node_modules/tabletop-js/web/index.js';
const TABLE = 'projects/p/instances/i/tables/t';
const bytes = (s) => new TextEncoder().encode(s);
const attempt = (fn) => {
  try {
    return { ok: fn() };
  } catch (e) {
    return { threw: e.name, status: e.status, code: e.code, isTabletopError: e instanceof TabletopError };
  }
};
// Before init(): each way in says to await init() first.
const beforeInit = [() => new Tabletop(), () => Tabletop.restore(new Uint8Array(3)), () => Tabletop.reserveMemory(1),
  () => Tabletop.methods(), () => Tabletop.cbtCommands()].map((fn) => attempt(fn));
const beforeInitMessage = (() => { try { new Tabletop(); } catch (e) { return e.message; } })();
window.run = async () => {
  // A failed init() rejects with its reason, objects then say so, and
  // init() can be called again.
  const failedInit = await init('./no-such-module.wasm').then(() => 'loaded', (e) => e instanceof Error);
  const afterFailure = attempt(() => new Tabletop());
  const afterFailureMessage = (() => { try { new Tabletop(); } catch (e) { return e.message; } })();
  await init();
  const db = new Tabletop();
  const out = { beforeInit, beforeInitMessage, failedInit, afterFailure, afterFailureMessage };
  out.created = db.createTable({ parent: 'projects/p/instances/i', tableId: 't', table: { columnFamilies: { cf: {} } } });
  out.written = db.mutateRows({
    tableName: TABLE,
    entries: ['a', 'b', 'c'].map((k) => ({ rowKey: bytes(k), mutations: [{ setCell: { familyName: 'cf', columnQualifier: bytes('q'), value: bytes(k + k) } }] })),
  });
  out.read = db.readRows({ tableName: TABLE, rows: { rowKeys: [bytes('b')] } });
  out.iterated = [...db.readRowsIter({ tableName: TABLE, reversed: true })].map((r) => r.key);
  out.notFound = attempt(() => db.getTable({ name: TABLE + 'x' }));
  out.typeError = attempt(() => db.handle(12345));
  db.maxAnswerBytes = 1024;
  db.mutateRow({ tableName: TABLE, rowKey: bytes('big'), mutations: [{ setCell: { familyName: 'cf', value: new Uint8Array(4096) } }] });
  out.tooBig = attempt(() => db.readRows({ tableName: TABLE }));
  out.snapshotRows = Tabletop.restore(db.snapshot()).readRows({ tableName: TABLE }).rows.length;
  out.cbt = db.cbt('count t');
  // After the failed answer, reads whose strings come from the object's
  // dictionary (the second time), one of them long (not in it).
  db.mutateRow({ tableName: TABLE, rowKey: bytes('long'), mutations: [{ setCell: { familyName: 'cf', columnQualifier: bytes('q'), value: bytes('x'.repeat(40)) } }] });
  const req = { tableName: TABLE, rows: { rowKeys: [bytes('a'), bytes('c'), bytes('long')] } };
  out.again = [db.readRows(req), db.readRows(req)];
  out.againJson = JSON.parse(db.handle(JSON.stringify({ method: 'readRows', request: { tableName: TABLE, rows: { rowKeys: ['YQ==', 'Yw==', btoa('long')] } } }))).response;
  // Binary and long row keys (here the packer writes their base64; Node's
  // reader takes their bytes), and a plain read that fails in the core
  // followed by one that answers.
  const odd = [Uint8Array.of(0), Uint8Array.of(0xff, 0xfe), Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256)];
  db.mutateRows({ tableName: TABLE, entries: odd.map((rowKey) => ({ rowKey, mutations: [{ setCell: { familyName: 'cf', value: bytes('v') } }] })) });
  const base64 = (u8) => btoa(String.fromCharCode(...u8));
  out.oddKeys = db.readRows({ tableName: TABLE, rows: { rowKeys: odd } }).rows.map((r) => r.key);
  out.oddExpected = [odd[0], odd[2], odd[1]].map(base64);
  out.missing = attempt(() => db.readRows({ tableName: TABLE + 'x', rows: { rowKeys: [bytes('a')] } }));
  out.afterMissing = db.readRows({ tableName: TABLE, rows: { rowKeys: [bytes('a')] } }).rows.length;
  // Row keys, qualifiers and values of every length from 1 to 52 bytes
  // (as base64, 4 to 72 characters: each way of making a string, and the
  // ends of each) and timestamps of 4 to 16 digits,
  // read whole and a chunk at a time (where the last string of a chunk
  // ends its buffer), against the JSON path, in an object of its own.
  const lengthsDb = new Tabletop();
  const LENGTHS = 'projects/p/instances/i/tables/lengths';
  lengthsDb.createTable({ parent: 'projects/p/instances/i', tableId: 'lengths', table: { columnFamilies: { cf: {} } } });
  lengthsDb.mutateRows({
    tableName: LENGTHS,
    entries: Array.from({ length: 52 }, (_, i) => ({
      rowKey: bytes('k'.repeat(i + 1)),
      mutations: [{ setCell: { familyName: 'cf', columnQualifier: bytes('q'.repeat(i + 1)), timestampMicros: String(1000 * 10 ** (i % 13)), value: bytes('v'.repeat(i + 1)) } }],
    })),
  });
  const lengths = { tableName: LENGTHS };
  out.lengths = {
    whole: lengthsDb.readRows(lengths),
    iterated: [...lengthsDb.readRowsIter(lengths)],
    json: JSON.parse(lengthsDb.handle(JSON.stringify({ method: 'readRows', request: lengths }))).response,
  };
  return out;
};
window.ready = true;
</script>`;

let installed;
let server;
let browser;

before(async () => {
  installed = installPackage({ from: 'folder' });
  writeFileSync(path.join(installed.dir, 'index.html'), PAGE);
  server = await serveStatic(installed.dir, '/app/');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
  installed?.remove();
});

test('the browser build loads with init() and answers like the Node one', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.url}index.html`);
  await page.waitForFunction(() => window.ready === true);
  const out = await page.evaluate(() => window.run());
  assert.deepEqual(errors, []);
  assert.deepEqual(out.beforeInit, Array(5).fill({ threw: 'TabletopError', status: 'FAILED_PRECONDITION', code: 9, isTabletopError: true }));
  assert.match(out.beforeInitMessage, /await init\(\)/);
  assert.equal(out.failedInit, true);
  assert.deepEqual(out.afterFailure, { threw: 'TabletopError', status: 'FAILED_PRECONDITION', code: 9, isTabletopError: true });
  assert.match(out.afterFailureMessage, /init\(\) failed \(.+\); call init\(\) again/);
  assert.equal(out.created.name, 'projects/p/instances/i/tables/t');
  assert.deepEqual(out.written.entries.map((e) => e.status.code), [0, 0, 0]);
  assert.deepEqual(out.read, {
    rows: [{ key: 'Yg==', families: [{ name: 'cf', columns: [{ qualifier: 'cQ==', cells: [{ value: 'YmI=' }] }] }] }],
  });
  assert.deepEqual(out.iterated, ['Yw==', 'Yg==', 'YQ==']);
  assert.deepEqual(out.notFound, { threw: 'TabletopError', status: 'NOT_FOUND', code: 5, isTabletopError: true });
  assert.equal(out.typeError.threw, 'TypeError');
  assert.equal(out.tooBig.status, 'RESOURCE_EXHAUSTED');
  assert.equal(out.snapshotRows, 4);
  assert.equal(out.cbt, '4\n');
  assert.equal(out.againJson.rows.length, 3);
  assert.deepEqual(out.again, [out.againJson, out.againJson]);
  assert.equal(out.oddKeys.length, 3);
  assert.deepEqual(out.oddKeys, out.oddExpected);
  assert.equal(out.missing.status, 'NOT_FOUND');
  assert.equal(out.missing.isTabletopError, true);
  assert.equal(out.afterMissing, 1);
  assert.equal(out.lengths.json.rows.length, 52);
  assert.deepEqual(out.lengths.whole, out.lengths.json);
  assert.deepEqual(out.lengths.iterated, out.lengths.json.rows);
  await page.close();
});
