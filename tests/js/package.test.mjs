// The tabletop-js package in Node, installed from its packed .tgz into a
// temporary project (tests/js/install.mjs) and loaded from there by name,
// as an ES module and as CommonJS: every method, errors as TabletopError,
// TypeErrors for wrong-typed arguments, the answer cap and the row
// iterator, snapshots, and the object still answering after each failure.
//
// Run: node --test tests/js/   (builds the package with scripts/build-js.sh;
// set TABLETOP_JS_PKG to a built package folder to skip the build).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { installPackage } from './install.mjs';

const TABLE = 'projects/p/instances/i/tables/t';
const PARENT = 'projects/p/instances/i';

let installed;
let esm;
let cjs;
let Tabletop;
let TabletopError;

before(async () => {
  installed = installPackage({ from: 'tgz' });
  esm = await import(pathToFileURL(installed.esm).href);
  cjs = createRequire(installed.cjs)(installed.cjs);
  ({ Tabletop, TabletopError } = esm);
});

after(() => installed?.remove());

const b64 = (bytes) => Buffer.from(bytes).toString('base64');
const text = (base64) => Buffer.from(base64, 'base64').toString();
const bytes = (s) => new TextEncoder().encode(s);

function withTable(families = { cf: { gcRule: { maxNumVersions: 1 } } }) {
  const db = new Tabletop();
  db.createTable({ parent: PARENT, tableId: 't', table: { columnFamilies: families } });
  return db;
}

/** The answer `handle` (JSON text) gives, for comparing with the methods. */
function viaHandle(db, method, request) {
  return JSON.parse(db.handle(JSON.stringify({ method, request })));
}

function throwsStatus(fn, status) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof TabletopError, `expected a TabletopError, got ${err}`);
    assert.ok(err instanceof Error);
    assert.equal(err.status, status, err.message);
    assert.equal(typeof err.code, 'number');
    return true;
  });
}

/** The object still answers: a write and a read of a row of its own. */
function stillAnswers(db) {
  const key = bytes(`alive-${Math.random()}`);
  db.mutateRow({ tableName: TABLE, rowKey: key, mutations: [{ setCell: { familyName: 'cf', value: 'eQ==' } }] });
  const { rows } = db.readRows({ tableName: TABLE, rows: { rowKeys: [key] } });
  assert.equal(rows.length, 1);
  assert.equal(db.cbt('ls'), 't\n');
}

describe('the installed package', () => {
  test('loads by name as an ES module and as CommonJS, one class for both', () => {
    assert.equal(typeof esm.Tabletop, 'function');
    assert.equal(esm.Tabletop, cjs.Tabletop);
    assert.equal(esm.TabletopError, cjs.TabletopError);
    const db = new cjs.Tabletop();
    assert.deepEqual(db.listTables({ parent: PARENT }), {});
  });

  test('carries package.json with an exports map, types and both builds', () => {
    const dir = path.join(installed.dir, 'node_modules', 'tabletop-js');
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    assert.equal(pkg.name, 'tabletop-js');
    assert.deepEqual(Object.keys(pkg.exports['.']), ['types', 'browser', 'import', 'require']);
    // Declarations for import (an ES module's) and for require (CommonJS's): the same text.
    assert.deepEqual(pkg.exports['.'].types, { import: './index.d.mts', require: './index.d.ts' });
    const types = readFileSync(path.join(dir, pkg.exports['.'].types.require), 'utf8');
    assert.equal(readFileSync(path.join(dir, pkg.exports['.'].types.import), 'utf8'), types);
    for (const m of ['createTable', 'getTable', 'listTables', 'deleteTable', 'modifyColumnFamilies', 'dropRowRange',
      'mutateRow', 'mutateRows', 'checkAndMutateRow', 'readModifyWriteRow', 'readRows', 'readRowsIter',
      'sampleRowKeys', 'sql', 'snapshot', 'restore', 'cbt', 'handle']) {
      assert.match(types, new RegExp(`\\n  (static )?${m}\\(`), `index.d.ts declares ${m}`);
    }
    assert.match(types, /export interface Row \{ key: string; families\?: Family\[\] \}/);
    readFileSync(path.join(dir, 'web', 'index.js'));
    readFileSync(path.join(dir, 'web', 'tabletop_js_bg.wasm'));
  });

  test("the README's example test passes when run with node --test", () => {
    const readme = readFileSync(path.join(installed.dir, 'node_modules', 'tabletop-js', 'README.md'), 'utf8');
    const example = readme.match(/```js\n(\/\/ example\.test\.mjs\n[\s\S]*?)```/);
    assert.ok(example, 'README.md has the example test');
    writeFileSync(path.join(installed.dir, 'example.test.mjs'), example[1]);
    const out = execFileSync(process.execPath, ['--test', '--test-reporter=tap', 'example.test.mjs'], {
      cwd: installed.dir, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined },
    });
    assert.match(out, /^# pass 4$/m);
    assert.match(out, /^# fail 0$/m);
  });
});

describe('table admin', () => {
  test('createTable, getTable, listTables, modifyColumnFamilies, deleteTable', () => {
    const db = withTable();
    assert.deepEqual(db.getTable({ name: TABLE }), {
      name: TABLE,
      granularity: 'MILLIS',
      columnFamilies: { cf: { gcRule: { maxNumVersions: 1 } } },
    });
    assert.deepEqual(db.listTables({ parent: PARENT }), { tables: [{ name: TABLE }] });
    const modified = db.modifyColumnFamilies({ name: TABLE, modifications: [{ id: 'cf2', create: {} }] });
    assert.deepEqual(Object.keys(modified.columnFamilies).sort(), ['cf', 'cf2']);
    throwsStatus(() => db.createTable({ parent: PARENT, tableId: 't' }), 'ALREADY_EXISTS');
    assert.deepEqual(db.deleteTable({ name: TABLE }), {});
    throwsStatus(() => db.getTable({ name: TABLE }), 'NOT_FOUND');
    assert.deepEqual(db.listTables({ parent: PARENT }), {});
  });

  test('dropRowRange deletes a prefix', () => {
    const db = withTable();
    db.mutateRows({
      tableName: TABLE,
      entries: ['a1', 'a2', 'b1'].map((k) => ({ rowKey: bytes(k), mutations: [{ setCell: { familyName: 'cf', value: 'eA==' } }] })),
    });
    assert.deepEqual(db.dropRowRange({ name: TABLE, rowKeyPrefix: bytes('a') }), {});
    assert.deepEqual(db.readRows({ tableName: TABLE }).rows.map((r) => text(r.key)), ['b1']);
  });
});

describe('writes', () => {
  test('binary keys and values round-trip, given as base64 or as Uint8Array', () => {
    const db = withTable();
    const key = [0x00, 0xff, 0x80, 0x0a];
    const value = Array.from({ length: 256 }, (_, i) => i);
    assert.deepEqual(db.mutateRow({
      tableName: TABLE,
      rowKey: b64(key),
      mutations: [{ setCell: { familyName: 'cf', columnQualifier: new Uint8Array([1, 2]), timestampMicros: '5000', value: new Uint8Array(value) } }],
    }), {});
    const { rows } = db.readRows({ tableName: TABLE });
    assert.equal(rows.length, 1);
    assert.deepEqual([...Buffer.from(rows[0].key, 'base64')], key);
    const [family] = rows[0].families;
    assert.equal(family.name, 'cf');
    assert.equal(family.columns[0].qualifier, b64([1, 2]));
    assert.equal(family.columns[0].cells[0].timestampMicros, '5000');
    assert.deepEqual([...Buffer.from(family.columns[0].cells[0].value, 'base64')], value);
    // A Node Buffer is a Uint8Array too.
    db.mutateRow({ tableName: TABLE, rowKey: Buffer.from('buf'), mutations: [{ setCell: { familyName: 'cf', value: Buffer.from('v') } }] });
    assert.equal(db.readRows({ tableName: TABLE, rows: { rowKeys: [Buffer.from('buf')] } }).rows.length, 1);
  });

  test('mutateRows reports one status per entry, in the documented form', () => {
    const db = withTable();
    const answer = db.mutateRows({
      tableName: TABLE,
      entries: [
        { rowKey: bytes('1'), mutations: [{ setCell: { familyName: 'cf', value: 'AQ==' } }] },
        { rowKey: bytes('2'), mutations: [{ setCell: { familyName: 'nope', value: 'Ag==' } }] },
        { rowKey: 'Mw==', mutations: [{ deleteFromRow: {} }] },
      ],
    });
    assert.deepEqual(answer.entries[0], { index: 0, status: { code: 0 } });
    assert.equal(answer.entries[1].index, 1);
    assert.equal(answer.entries[1].status.code, 5);
    assert.match(answer.entries[1].status.message, /nope/);
    assert.deepEqual(answer.entries[2], { index: 2, status: { code: 0 } });
  });

  test('the packed path and the JSON path write the same and answer the same', () => {
    const requests = [
      { tableName: TABLE, entries: [
        { rowKey: 'cjE=', mutations: [
          { setCell: { familyName: 'cf', columnQualifier: 'cQ==', timestampMicros: 1000, value: 'dg==' } },
          { setCell: { familyName: 'cf', columnQualifier: 'cQ==', timestampMicros: '2000', value: 'dzI=' } },
          { setCell: { familyName: 'cf2', value: '' } },
        ] },
        { rowKey: 'cjI=', mutations: [{ setCell: { familyName: 'cf', timestampMicros: -1, value: 'eA==' } }] },
      ] },
      { tableName: TABLE, entries: [
        { rowKey: 'cjE=', mutations: [{ deleteFromColumn: { familyName: 'cf', columnQualifier: 'cQ==', timeRange: { startTimestampMicros: '1000', endTimestampMicros: 1500 } } }] },
        { rowKey: 'cjI=', mutations: [{ deleteFromFamily: { familyName: 'cf' } }] },
        { rowKey: 'cjM=', mutations: [{ setCell: { familyName: 'missing', value: 'eA==' } }] },
      ] },
    ];
    const families = { cf: {}, cf2: {} };
    const a = withTable(families);
    const b = withTable(families);
    for (const req of requests) {
      assert.deepEqual(a.mutateRows(req), viaHandle(b, 'mutateRows', req).response);
    }
    const read = { tableName: TABLE };
    assert.deepEqual(a.readRows(read), viaHandle(b, 'readRows', read).response);
    assert.deepEqual(a.readRows(read), b.readRows(read));
  });

  test('every form of base64 text writes what the JSON path writes, or fails as it fails', () => {
    // The packer decodes plain base64 itself (groups of four, standard
    // alphabet, '=' only closing the last group) and leaves everything else
    // to wasm: each form here must end as the JSON path ends it.
    const forms = [
      '', 'QQ==', 'QUI=', 'QUJD', 'QUJDRA==', '/+8=', '+/+/', 'QR==', 'QUJ=', // plain (QR==, QUJ= with trailing bits)
      'QQ', 'QUJDRA', '-_8=', '_w', 'QQ=', // valid for the core, left to wasm
      'Q===', '====', 'QQ==QQ==', 'QU=D', 'QUJD\n', '!!!!', 'QUJ\u0141', 'Q\u0141==', '\u00c4QQ=', // invalid
    ];
    const families = { cf: {} };
    for (const form of forms) {
      for (const field of ['rowKey', 'columnQualifier', 'value']) {
        const cell = { familyName: 'cf', columnQualifier: 'cQ==', timestampMicros: 1000, value: 'dg==' };
        let rowKey = 'cm93';
        if (field === 'rowKey') rowKey = form;
        else cell[field] = form;
        const req = { tableName: TABLE, entries: [{ rowKey, mutations: [{ setCell: cell }] }] };
        const a = withTable(families);
        const b = withTable(families);
        const expected = viaHandle(b, 'mutateRows', req);
        const what = `${field} ${JSON.stringify(form)}`;
        if (expected.error) {
          assert.throws(() => a.mutateRows(req), (err) => {
            assert.deepEqual({ code: err.code, status: err.status, message: err.message }, expected.error, what);
            return true;
          });
        } else {
          assert.deepEqual(a.mutateRows(req), expected.response, what);
        }
        assert.deepEqual(a.readRows({ tableName: TABLE }), b.readRows({ tableName: TABLE }), what);
      }
    }
  });

  test('writes that outgrow the request buffer in wasm memory, then reads and small writes', () => {
    // Each object packs its requests straight into a buffer in wasm's
    // memory that starts small: a larger request is packed apart and
    // copied in, and the buffer grows for the next ones, which then share
    // it with plain reads (whose table name the packer may keep there).
    const db = withTable({ cf: {} });
    const batch = (from, n, size) => ({ tableName: TABLE, entries: Array.from({ length: n }, (_, i) => ({
      rowKey: b64(`k${String(from + i).padStart(6, '0')}`),
      mutations: [{ setCell: { familyName: 'cf', columnQualifier: 'cQ==', timestampMicros: (from + i) * 1000, value: b64('v'.repeat(size)) } }],
    })) });
    const point = (i) => ({ tableName: TABLE, rows: { rowKeys: [bytes(`k${String(i).padStart(6, '0')}`)] } });
    let written = 0;
    for (const [n, size] of [[10, 3], [2000, 40], [1, 5], [3000, 100], [5, 7], [2500, 60]]) {
      assert.equal(db.readRows(point(0)).rows.length, written ? 1 : 0);
      const answer = db.mutateRows(batch(written, n, size));
      assert.equal(answer.entries.length, n);
      assert.ok(answer.entries.every((e, i) => e.index === i && e.status.code === 0));
      const last = db.readRows(point(written + n - 1)).rows[0];
      assert.equal(text(last.families[0].columns[0].cells[0].value), 'v'.repeat(size));
      assert.equal(last.families[0].columns[0].cells[0].timestampMicros, String((written + n - 1) * 1000));
      written += n;
      // An entry that fails in a large batch still fails alone.
      const mixed = batch(written, 1500, 20);
      mixed.entries[700].mutations[0].setCell.familyName = 'nope';
      const statuses = db.mutateRows(mixed).entries.map((e) => e.status.code);
      assert.deepEqual(statuses.filter((c) => c !== 0), [5]);
      assert.equal(statuses[700], 5);
      written += 1500;
    }
    assert.equal(db.readRows({ tableName: TABLE }).rows.length, written - 6);
  });

  test('requests the packed path declines get the precise errors of the JSON path', () => {
    const db = withTable();
    const bad = [
      { tableName: TABLE, entries: [{ rowKey: '$$', mutations: [{ deleteFromRow: {} }] }] },
      { tableName: TABLE, entries: [{ rowKey: 'cg==', mutations: [] }] },
      { tableName: TABLE, entries: [{ rowKey: 'cg==', mutations: [{ setCell: { familyName: 'cf', extra: 1 } }] }] },
      { tableName: TABLE, entries: [{ rowKey: 'cg==', mutations: [{ setCell: { familyName: 'cf', timestampMicros: 1.5 } }] }] },
      { tableName: 'tables/t', entries: [{ rowKey: 'cg==', mutations: [{ deleteFromRow: {} }] }] },
    ];
    for (const req of bad) {
      const expected = viaHandle(db, 'mutateRows', req).error;
      assert.ok(expected, JSON.stringify(req));
      assert.throws(() => db.mutateRows(req), (err) => {
        assert.ok(err instanceof TabletopError);
        assert.deepEqual({ code: err.code, status: err.status, message: err.message }, expected);
        return true;
      });
      stillAnswers(db);
    }
  });

  test('an invalid mutation leaves the row untouched', () => {
    const db = withTable();
    db.mutateRow({ tableName: TABLE, rowKey: 'cg==', mutations: [{ setCell: { familyName: 'cf', value: 'b2xk' } }] });
    throwsStatus(() => db.mutateRow({
      tableName: TABLE,
      rowKey: 'cg==',
      mutations: [{ setCell: { familyName: 'cf', value: 'bmV3' } }, { setCell: { familyName: 'nope', value: 'eA==' } }],
    }), 'NOT_FOUND');
    assert.equal(db.readRows({ tableName: TABLE }).rows[0].families[0].columns[0].cells[0].value, 'b2xk');
  });

  test('checkAndMutateRow and readModifyWriteRow', () => {
    const db = withTable();
    const row = { tableName: TABLE, rowKey: bytes('counter') };
    assert.deepEqual(db.checkAndMutateRow({
      ...row,
      predicateFilter: { familyNameRegexFilter: 'cf' },
      falseMutations: [{ setCell: { familyName: 'cf', columnQualifier: bytes('made'), value: bytes('yes') } }],
    }), {});
    assert.deepEqual(db.checkAndMutateRow({
      ...row,
      predicateFilter: { familyNameRegexFilter: 'cf' },
      trueMutations: [{ setCell: { familyName: 'cf', columnQualifier: bytes('again'), value: bytes('yes') } }],
    }), { predicateMatched: true });
    throwsStatus(() => db.checkAndMutateRow({ ...row, trueMutations: [] }), 'INVALID_ARGUMENT');
    db.readModifyWriteRow({ ...row, rules: [{ familyName: 'cf', columnQualifier: bytes('n'), incrementAmount: '2' }] });
    const answer = db.readModifyWriteRow({ ...row, rules: [{ familyName: 'cf', columnQualifier: bytes('n'), incrementAmount: 40 }] });
    const cell = answer.row.families[0].columns[0].cells[0];
    assert.equal(Buffer.from(cell.value, 'base64').readBigInt64BE(), 42n);
  });
});

describe('reads', () => {
  /** A table with several families, labels, empty qualifiers and values, timestamps 0. */
  function richTable() {
    const db = withTable({ a: {}, b: {} });
    const entries = [];
    for (let i = 0; i < 40; i++) {
      entries.push({
        rowKey: bytes(`row${String(i).padStart(3, '0')}`),
        mutations: [
          { setCell: { familyName: 'a', columnQualifier: bytes('q1'), timestampMicros: 1000 * (i + 1), value: bytes(`v${i}`) } },
          { setCell: { familyName: 'a', columnQualifier: bytes('q1'), timestampMicros: 7000, value: bytes('old') } },
          { setCell: { familyName: 'a', value: bytes(i % 2 ? '' : 'noqual') } },
          { setCell: { familyName: 'b', columnQualifier: bytes('q2'), timestampMicros: 0, value: bytes(`${i % 7}`) } },
        ],
      });
    }
    db.mutateRows({ tableName: TABLE, entries });
    return db;
  }

  const READS = [
    { tableName: TABLE },
    { tableName: TABLE, rowsLimit: '5', reversed: true },
    { tableName: TABLE, rows: { rowKeys: ['cm93MDAz', bytes('row010'), bytes('nope')] } },
    { tableName: TABLE, rows: { rowRanges: [{ startKeyOpen: bytes('row005'), endKeyClosed: bytes('row012') }] } },
    { tableName: TABLE, rows: { rowKeys: [bytes('row039')], rowRanges: [{ endKeyOpen: 'cm93MDAy' }, { startKeyClosed: 'cm93MDIw', endKeyOpen: 'cm93MDIy' }] }, reversed: true, rowsLimit: 3 },
    { tableName: TABLE, rows: {}, reversed: false, rowsLimit: '0' },
    { tableName: TABLE, filter: { valueRegexFilter: b64('v1.*') } },
    { tableName: TABLE, filter: { chain: { filters: [{ cellsPerColumnLimitFilter: 1 }, { applyLabelTransformer: 'lab' }] } } },
    { tableName: TABLE, filter: { stripValueTransformer: true } },
    { tableName: TABLE, filter: { familyNameRegexFilter: 'b' }, requestStatsView: 'REQUEST_STATS_FULL' },
    { tableName: TABLE, filter: { blockAllFilter: true } },
  ];

  test('readRows answers exactly what the JSON protocol answers', () => {
    const db = richTable();
    for (const req of READS) {
      const expected = viaHandle(db, 'readRows', JSON.parse(JSON.stringify(req, (k, v) => (v instanceof Uint8Array ? b64(v) : v))));
      assert.deepEqual(db.readRows(req), expected.response, JSON.stringify(req));
    }
    // The answer's text, field order and left-out defaults included, is
    // the one users have had (REST JSON in the proto's field order).
    assert.equal(
      JSON.stringify(db.readRows({ tableName: TABLE, rows: { rowKeys: [bytes('row003')] } })),
      '{"rows":[{"key":"cm93MDAz","families":[{"name":"a","columns":[{"cells":[{}]},{"qualifier":"cTE=","cells":'
        + '[{"timestampMicros":"7000","value":"b2xk"},{"timestampMicros":"4000","value":"djM="}]}]},'
        + '{"name":"b","columns":[{"qualifier":"cTI=","cells":[{"value":"Mw=="}]}]}]}]}',
    );
    const labelled = { tableName: TABLE, rows: { rowKeys: [bytes('row003')] }, filter: { chain: { filters: [{ familyNameRegexFilter: 'b' }, { applyLabelTransformer: 'lab' }] } } };
    assert.equal(
      JSON.stringify(db.readRows(labelled)),
      '{"rows":[{"key":"cm93MDAz","families":[{"name":"b","columns":[{"qualifier":"cTI=","cells":[{"value":"Mw==","labels":["lab"]}]}]}]}]}',
    );
  });

  /** A nested answer's rows in the flat shape, made the slow, obvious way. */
  function flatten(rows) {
    return rows.map((row) => ({
      key: row.key,
      cells: (row.families ?? []).flatMap((f) => f.columns.flatMap((c) => c.cells.map((cell) => ({
        family: f.name, qualifier: c.qualifier ?? '', ...cell,
      })))),
    }));
  }

  test("{ shape: 'flat' } gives the nested answer's cells, each naming its family and qualifier", () => {
    const db = richTable();
    for (const req of READS) {
      const nested = db.readRows(req);
      const flat = db.readRows(req, { shape: 'flat' });
      assert.deepEqual(flat.rows, flatten(nested.rows), JSON.stringify(req));
      assert.deepEqual(flat.requestStats, nested.requestStats);
      assert.deepEqual(db.readRows(req, { shape: 'nested' }), nested);
      const flatBytes = db.readRows(req, { shape: 'flat', values: 'bytes' });
      assert.deepEqual(flatBytes.rows, flatten(db.readRows(req, { values: 'bytes' }).rows), JSON.stringify(req));
      assert.deepEqual([...db.readRowsIter(req, { shape: 'flat' })], flat.rows);
      assert.deepEqual([...db.readRowsIter(req, { shape: 'flat', values: 'bytes' })], flatBytes.rows);
    }
    // Every cell is there, the empty qualifier as ''.
    const all = db.readRows({ tableName: TABLE }, { shape: 'flat' }).rows;
    // (row006's two q1 versions share a timestamp: one cell.)
    assert.equal(all.reduce((n, r) => n + r.cells.length, 0), 40 * 4 - 1);
    assert.deepEqual(all[1].cells.map((c) => [c.family, c.qualifier]), [['a', ''], ['a', b64('q1')], ['a', b64('q1')], ['b', b64('q2')]]);
  });

  test('reads the packed path declines get the precise errors of the JSON path', () => {
    const db = richTable();
    const bad = [
      { tableName: TABLE, rows: { rowKeys: [''] } },
      { tableName: TABLE, rows: { rowKeys: ['$$'] } },
      { tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: 'YQ==', startKeyOpen: 'Yg==' }] } },
      { tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: 'Yg==', endKeyOpen: 'YQ==' }] } },
      { tableName: TABLE, rowsLimit: -1 },
      { tableName: TABLE, rowsLimit: 1.5 },
      { tableName: TABLE, reversed: 'yes' },
      { tableName: TABLE, rows: { rowKeys: 'YQ==' } },
      { tableName: 'projects/p/instances/i/tables/nope' },
      { tableName: 'tables/t' },
    ];
    for (const req of bad) {
      const expected = viaHandle(db, 'readRows', req).error;
      assert.ok(expected, JSON.stringify(req));
      assert.throws(() => db.readRows(req), (err) => {
        assert.ok(err instanceof TabletopError);
        assert.deepEqual({ code: err.code, status: err.status, message: err.message }, expected, JSON.stringify(req));
        return true;
      });
    }
  });

  test('readRowsIter gives the rows of readRows, a chunk at a time', () => {
    const db = withTable();
    const entries = [];
    // More rows than one chunk holds (4096), so reads resume.
    for (let i = 0; i < 9000; i++) {
      entries.push({ rowKey: bytes(`k${String(i).padStart(5, '0')}`), mutations: [{ setCell: { familyName: 'cf', value: bytes(`${i}`) } }] });
    }
    db.mutateRows({ tableName: TABLE, entries });
    const requests = [
      { tableName: TABLE },
      { tableName: TABLE, reversed: true },
      { tableName: TABLE, rowsLimit: 5000 },
      { tableName: TABLE, reversed: true, rowsLimit: '4097' },
      { tableName: TABLE, rows: { rowKeys: [bytes('k00002'), bytes('k08400')], rowRanges: [{ startKeyClosed: bytes('k00500'), endKeyOpen: bytes('k05800') }] } },
      { tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: bytes('k00500'), endKeyOpen: bytes('k05800') }, { startKeyOpen: bytes('k06000') }] }, reversed: true },
      { tableName: TABLE, filter: { valueRegexFilter: b64('.*7.*') } },
    ];
    for (const req of requests) {
      const all = db.readRows(req).rows;
      const iterated = [...db.readRowsIter(req)];
      assert.equal(iterated.length, all.length, JSON.stringify(req));
      assert.deepEqual(iterated, all);
    }
  });

  /** An answer with its cell values turned from Uint8Array to base64. */
  function valuesAsBase64(answer) {
    return JSON.parse(JSON.stringify(answer, (k, v) => (v instanceof Uint8Array ? b64(v) : v)));
  }

  test("{ values: 'bytes' } gives the same rows with each value as a Uint8Array", () => {
    const db = richTable();
    for (const req of READS) {
      const base = db.readRows(req);
      const raw = db.readRows(req, { values: 'bytes' });
      assert.deepEqual(db.readRows(req, { values: 'base64' }), base);
      let values = 0;
      for (const row of raw.rows) {
        assert.equal(typeof row.key, 'string');
        for (const f of row.families ?? []) {
          for (const c of f.columns) {
            for (const cell of c.cells) {
              if ('value' in cell) {
                assert.ok(cell.value instanceof Uint8Array && cell.value.length > 0);
                values += 1;
              }
            }
          }
        }
      }
      assert.deepEqual(valuesAsBase64(raw), base, JSON.stringify(req));
      if (req.filter?.stripValueTransformer || req.filter?.blockAllFilter) assert.equal(values, 0);
      else if (!req.rowsLimit || req.rowsLimit === 3) assert.ok(values > 0, JSON.stringify(req));
    }
    // Binary values come back byte for byte.
    const all = new Uint8Array(256).map((_, i) => i);
    db.mutateRow({ tableName: TABLE, rowKey: bytes('bin'), mutations: [{ setCell: { familyName: 'a', columnQualifier: bytes('x'), timestampMicros: 1000, value: all } }] });
    const [row] = db.readRows({ tableName: TABLE, rows: { rowKeys: [bytes('bin')] } }, { values: 'bytes' }).rows;
    assert.deepEqual([...row.families[0].columns[0].cells[0].value], [...all]);
  });

  test("readRowsIter with { values: 'bytes' } gives the rows of readRows", () => {
    const db = withTable();
    const entries = [];
    for (let i = 0; i < 5000; i++) {
      entries.push({ rowKey: bytes(`k${String(i).padStart(5, '0')}`), mutations: [{ setCell: { familyName: 'cf', value: bytes(`value ${i}`) } }] });
    }
    db.mutateRows({ tableName: TABLE, entries });
    for (const req of [{ tableName: TABLE }, { tableName: TABLE, filter: { valueRegexFilter: b64('.*7.*') } }]) {
      const iterated = [...db.readRowsIter(req, { values: 'bytes' })];
      assert.deepEqual(iterated, db.readRows(req, { values: 'bytes' }).rows);
      assert.deepEqual(valuesAsBase64(iterated), db.readRows(req).rows);
    }
  });

  test('read options and constructor options are checked', () => {
    const db = richTable();
    for (const bad of [null, 'bytes', [], { values: 'hex' }, { value: 'bytes' }, { shape: 'tree' }, { shape: true }]) {
      assert.throws(() => db.readRows({ tableName: TABLE }, bad), TypeError);
      assert.throws(() => db.readRowsIter({ tableName: TABLE }, bad), TypeError);
    }
    for (const bad of [null, 'bulk', { engine: 'fast' }, { engines: 'bulk' }]) {
      assert.throws(() => new Tabletop(bad), TypeError);
    }
    assert.equal(db.readRows({ tableName: TABLE }).rows.length, 40);
  });

  test('{ emulatorParity: true } answers as the emulator does, and a snapshot keeps it', () => {
    const prod = new Tabletop();
    const emu = new Tabletop({ emulatorParity: true });
    assert.equal(prod.emulatorParity, false);
    assert.equal(emu.emulatorParity, true);
    const write = { tableName: TABLE, rowKey: bytes('r'), mutations: [
      { setCell: { familyName: 'cf', columnQualifier: bytes('a'), timestampMicros: 1000, value: bytes('1') } },
      { setCell: { familyName: 'nope', columnQualifier: bytes('b'), timestampMicros: 1000, value: bytes('2') } },
    ] };
    for (const db of [prod, emu]) {
      db.createTable({ parent: PARENT, tableId: 't', table: { columnFamilies: { cf: {} } } });
    }
    // Production: NOT_FOUND and nothing applied; the emulator: UNKNOWN
    // and the first mutation kept.
    assert.throws(() => prod.mutateRow(write), (e) => e instanceof TabletopError && e.status === 'NOT_FOUND');
    assert.throws(() => emu.mutateRow(write), (e) => e instanceof TabletopError && e.status === 'UNKNOWN' && /unknown family "nope"/.test(e.message));
    assert.equal(prod.readRows({ tableName: TABLE }).rows?.length ?? 0, 0);
    assert.equal(emu.readRows({ tableName: TABLE }).rows.length, 1);
    // GetTable leaves out granularity, as the emulator does.
    assert.equal(prod.getTable({ name: TABLE }).granularity, 'MILLIS');
    assert.equal(emu.getTable({ name: TABLE }).granularity, undefined);
    // Both ways of restoring keep the setting.
    const again = Tabletop.restore(emu.snapshot());
    assert.equal(again.emulatorParity, true);
    prod.restore(emu.snapshot());
    assert.equal(prod.emulatorParity, true);
    assert.throws(() => again.mutateRow(write), (e) => e.status === 'UNKNOWN');
    for (const bad of [{ emulatorParity: 'yes' }, { emulatorParity: 1 }, { emulatorparity: true }]) {
      assert.throws(() => new Tabletop(bad), TypeError);
    }
    assert.equal(new Tabletop({ emulatorParity: false, engine: 'bulk' }).emulatorParity, false);
  });

  test("{ engine: 'bulk' } answers as the default engine does, in fewer tablets", () => {
    const small = new Tabletop({ engine: 'default' });
    const bulk = new Tabletop({ engine: 'bulk' });
    for (const db of [small, bulk]) {
      db.createTable({ parent: PARENT, tableId: 't', table: { columnFamilies: { cf: {} } } });
      const entries = [];
      for (let i = 0; i < 3000; i++) {
        entries.push({ rowKey: bytes(`k${String(i).padStart(5, '0')}`), mutations: [{ setCell: { familyName: 'cf', columnQualifier: bytes('q'), timestampMicros: 1000, value: bytes('x'.repeat(100)) } }] });
      }
      db.mutateRows({ tableName: TABLE, entries });
      // The engine's background work (flushes done, splits) runs as the clock moves.
      db.advanceClock({ seconds: 1 });
    }
    assert.deepEqual(bulk.readRows({ tableName: TABLE }), small.readRows({ tableName: TABLE }));
    const tablets = (db) => db.listTablets({ tableName: TABLE }).tablets.length;
    assert.equal(tablets(bulk), 1);
    assert.ok(tablets(small) > 1, `${tablets(small)} tablets`);
    // A snapshot keeps the thresholds.
    const again = Tabletop.restore(bulk.snapshot());
    assert.deepEqual(again.readRows({ tableName: TABLE }), small.readRows({ tableName: TABLE }));
  });

  test('leaving an iteration early closes it; errors throw at the call', () => {
    const db = richTable();
    let seen = 0;
    for (const row of db.readRowsIter({ tableName: TABLE })) {
      assert.ok(row.key);
      seen += 1;
      if (seen === 3) break;
    }
    assert.equal(seen, 3);
    throwsStatus(() => db.readRowsIter({ tableName: 'projects/p/instances/i/tables/nope' }), 'NOT_FOUND');
    throwsStatus(() => db.readRowsIter({ tableName: TABLE, rowsLimit: -1 }), 'INVALID_ARGUMENT');
    const it = db.readRowsIter({ tableName: TABLE });
    db.deleteTable({ name: TABLE });
    // The first chunk was read when the iterator was made.
    assert.equal([...it].length, 40);
  });

  test('sampleRowKeys and sql', () => {
    const db = richTable();
    const { samples } = db.sampleRowKeys({ tableName: TABLE });
    assert.ok(samples.length >= 1);
    assert.ok(samples.every((s) => s.offsetBytes === undefined || /^[0-9]+$/.test(s.offsetBytes)));
    const result = db.sql({ query: "SELECT _key FROM t WHERE _key >= b'row038'" });
    assert.deepEqual(result.columns, [{ name: '_key', type: 'BYTES' }]);
    assert.deepEqual(result.rows.map(([k]) => text(k)), ['row038', 'row039']);
    throwsStatus(() => db.sql({ query: 'SELEC nonsense' }), 'INVALID_ARGUMENT');
  });

  test('the answer to the general call is a plain object', () => {
    const db = richTable();
    const answer = db.call('readRows', { tableName: TABLE, rowsLimit: 1 });
    assert.equal(Object.getPrototypeOf(answer), Object.prototype);
    assert.equal(answer.rows.length, 1);
    throwsStatus(() => db.call('noSuchMethod', {}), 'INVALID_ARGUMENT');
    throwsStatus(() => db.call('executeQuery', {}), 'UNIMPLEMENTED');
  });
});

describe('the strings dictionary kept across calls', () => {
  // Whole readRows answers send each short string (family, qualifier,
  // timestamp, label, short value) once per object, then only its index
  // (js/src/read.rs); these reads check the answers stay exactly the JSON
  // protocol's through everything that could put the two sides out of step.

  /** The request as the JSON protocol takes it (bytes as base64). */
  const asJson = (req) => JSON.parse(JSON.stringify(req, (k, v) => (v instanceof Uint8Array ? b64(v) : v)));

  function flatten(rows) {
    return rows.map((row) => ({
      key: row.key,
      cells: (row.families ?? []).flatMap((f) => f.columns.flatMap((c) => c.cells.map((cell) => ({
        family: f.name, qualifier: c.qualifier ?? '', ...cell,
      })))),
    }));
  }

  /** readRows in the nested and the flat shape against `handle`'s answer. */
  function sameAsHandle(db, req) {
    const expected = viaHandle(db, 'readRows', asJson(req));
    assert.ok(expected.response, JSON.stringify(expected));
    assert.deepEqual(db.readRows(req), expected.response, JSON.stringify(req));
    assert.deepEqual(db.readRows(req, { shape: 'flat' }).rows, flatten(expected.response.rows), JSON.stringify(req));
  }

  /**
   * A table whose rows `from` to `to` each hold values, qualifiers,
   * timestamps and labels of their own beside shared ones (`tag` makes
   * one table's strings differ from another's).
   */
  function writeRows(db, from, to, tag = '') {
    const entries = [];
    for (let i = from; i < to; i++) {
      entries.push({
        rowKey: bytes(`r${String(i).padStart(5, '0')}`),
        mutations: [
          { setCell: { familyName: 'a', columnQualifier: bytes(`q${i % 5}${tag}`), timestampMicros: 1000 * (i % 9), value: bytes(`${tag}v${i % 13}`) } },
          { setCell: { familyName: 'a', columnQualifier: bytes(`own${i}${tag}`), timestampMicros: 1000 * i, value: bytes(`${tag}u${i}`) } },
          { setCell: { familyName: 'b', columnQualifier: bytes('q'), value: bytes(`${tag}${'x'.repeat(i % 40)}`) } },
        ],
      });
    }
    const answer = db.mutateRows({ tableName: TABLE, entries });
    assert.ok(answer.entries.every((e) => e.status.code === 0));
  }

  const key = (i) => bytes(`r${String(i).padStart(5, '0')}`);
  const range = (a, b) => ({ tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: key(a), endKeyOpen: key(b) }] } });
  const labelled = (a, b, label) => ({ ...range(a, b), filter: { chain: { filters: [{ cellsPerColumnLimitFilter: 1 }, { applyLabelTransformer: label }] } } });

  test('hundreds of reads answer what the JSON protocol answers', () => {
    const db = withTable({ a: {}, b: {} });
    writeRows(db, 0, 400);
    for (let n = 0; n < 300; n++) {
      const a = (n * 37) % 390;
      const req = n % 3 === 0 ? labelled(a, a + 1 + (n % 7), `lab${n % 11}`)
        : n % 3 === 1 ? { ...range(a, a + 10), reversed: n % 2 === 0 }
          : { tableName: TABLE, rows: { rowKeys: [key(a), key(399 - a)] } };
      sameAsHandle(db, req);
    }
    // Values as bytes take no dictionary entries; base64 reads around them
    // still line up.
    const req = range(0, 50);
    const raw = db.readRows(req, { values: 'bytes' });
    sameAsHandle(db, req);
    assert.deepEqual(raw.rows.map((r) => r.key), db.readRows(req).rows.map((r) => r.key));
    // A full answer, then point reads.
    sameAsHandle(db, { tableName: TABLE });
    sameAsHandle(db, { tableName: TABLE, rows: { rowKeys: [key(7)] } });
  });

  test('restore() starts the dictionary again', () => {
    const db = withTable({ a: {}, b: {} });
    writeRows(db, 0, 100);
    sameAsHandle(db, range(0, 60));
    const snap = db.snapshot();
    const other = withTable({ a: {}, b: {} });
    writeRows(other, 0, 100, 'o');
    db.restore(other.snapshot());
    sameAsHandle(db, range(0, 60));
    sameAsHandle(db, labelled(10, 30, 'after'));
    db.restore(snap);
    sameAsHandle(db, range(20, 80));
    const copy = Tabletop.restore(snap);
    sameAsHandle(copy, range(20, 80));
    other.free();
    copy.free();
  });

  test('answers that failed leave no strings the next answers refer to', () => {
    const db = withTable({ a: {}, b: {} });
    writeRows(db, 0, 300);
    sameAsHandle(db, range(0, 5));
    // Past the cap after packing rows with strings never sent before.
    db.maxAnswerBytes = 2048;
    throwsStatus(() => db.readRows(range(100, 300)), 'RESOURCE_EXHAUSTED');
    throwsStatus(() => db.readRows(labelled(200, 300, 'never')), 'RESOURCE_EXHAUSTED');
    db.maxAnswerBytes = 1 << 20;
    sameAsHandle(db, range(100, 140));
    sameAsHandle(db, labelled(200, 240, 'never'));
    // Requests the core refuses.
    throwsStatus(() => db.readRows({ tableName: `${PARENT}/tables/nope` }), 'NOT_FOUND');
    throwsStatus(() => db.readRows({ ...range(0, 9), filter: { valueRegexFilter: b64('(') } }), 'INVALID_ARGUMENT');
    sameAsHandle(db, range(0, 300));
  });

  test('an answer of more distinct strings than the dictionary holds, then small ones', () => {
    const db = withTable({ a: {}, b: {} });
    // 3 new strings a row (qualifier, value, timestamp): about 75,000, past
    // the dictionary's 65,536 entries, in an answer of several megabytes.
    writeRows(db, 0, 25000);
    const all = db.readRows({ tableName: TABLE });
    assert.equal(all.rows.length, 25000);
    const expected = viaHandle(db, 'readRows', { tableName: TABLE }).response;
    assert.deepEqual(all, expected);
    for (let n = 0; n < 20; n++) sameAsHandle(db, range(n * 1200, n * 1200 + 10));
    // The full dictionary was emptied: a second huge answer and more reads.
    assert.deepEqual(db.readRows({ tableName: TABLE }, { shape: 'flat' }).rows, flatten(expected.rows));
    sameAsHandle(db, labelled(24990, 25000, 'end'));
  });

  test('strings of every short length, inline or shared, binary keys and values', () => {
    // Values up to 6 bytes go inline, longer ones through the dictionary
    // (js/src/read.rs); JavaScript makes strings up to 12 characters one
    // way and longer ones another (tabletop.js, ascii()). Every length
    // around both bounds, for keys, qualifiers, timestamps, values and
    // labels, read twice (new entries, then references).
    const db = withTable({ a: {}, b: {} });
    const entries = [];
    for (let n = 0; n < 25; n++) {
      const mix = (i) => (n * 37 + i * 101) % 256;
      entries.push({
        rowKey: Uint8Array.from({ length: n + 1 }, (_, i) => (i === 0 ? n : mix(i))),
        mutations: [
          { setCell: { familyName: 'a', columnQualifier: Uint8Array.from({ length: n }, (_, i) => mix(i + 1)), timestampMicros: 1000 * Number(`0${'987654321098'.slice(0, n % 13)}`), value: Uint8Array.from({ length: n }, (_, i) => mix(i)) } },
          { setCell: { familyName: 'a', columnQualifier: bytes('same'), timestampMicros: 0, value: Uint8Array.from({ length: n % 8 }, () => 0) } },
          { setCell: { familyName: 'b', columnQualifier: bytes(`q${n}`), timestampMicros: 5000, value: bytes('x'.repeat(n)) } },
        ],
      });
    }
    const answer = db.mutateRows({ tableName: TABLE, entries });
    assert.ok(answer.entries.every((e) => e.status.code === 0), JSON.stringify(answer));
    const all = { tableName: TABLE };
    for (let round = 0; round < 2; round++) {
      sameAsHandle(db, all);
      sameAsHandle(db, { ...all, reversed: true });
      for (let n = 1; n <= 15; n++) sameAsHandle(db, { ...all, filter: { applyLabelTransformer: 'abcdefghijklmno'.slice(0, n) } });
    }
  });

  test('row keys of any bytes and length read as the JSON path writes them', () => {
    // A whole answer's keys come as one base64 text that each key is cut
    // from; in Node, a chunk's keys cross from wasm as their bytes and
    // Buffer writes their base64 (js/src/read.rs, Format): every byte
    // value, lengths around the base64 groups of 3, keys up to the 4 KiB
    // limit (past the packer's stack copy), the first row of an answer, a
    // one-cell row and a many-cell one, in whole answers, with values as
    // bytes, and through the iterator's chunks.
    const db = withTable({ a: {}, b: {} });
    const keys = [Uint8Array.of(0), Uint8Array.of(0xff), Uint8Array.of(0xc3, 0x28), Uint8Array.of(0xed, 0xa0, 0x80)];
    for (let n = 1; n <= 9; n++) keys.push(Uint8Array.from({ length: n }, (_, i) => 0x80 + n * 13 + i));
    for (let i = 0; i < 256; i += 17) keys.push(Uint8Array.from({ length: 64 }, (_, j) => (i + j * 5) % 256));
    keys.push(Uint8Array.from({ length: 4096 }, (_, j) => (j * 31) % 256));
    keys.push(Uint8Array.from({ length: 4095 }, (_, j) => 255 - (j % 256)));
    const entries = keys.map((rowKey, i) => ({
      rowKey,
      mutations: i % 2
        ? [{ setCell: { familyName: 'a', columnQualifier: bytes('q'), timestampMicros: 1000, value: bytes(`v${i}`) } }]
        : [
          { setCell: { familyName: 'a', columnQualifier: bytes('q'), timestampMicros: 1000, value: bytes('same') } },
          { setCell: { familyName: 'b', columnQualifier: bytes('r'), timestampMicros: 2000, value: bytes('same') } },
        ],
    }));
    assert.ok(db.mutateRows({ tableName: TABLE, entries }).entries.every((e) => e.status.code === 0));
    for (const req of [
      { tableName: TABLE },
      { tableName: TABLE, reversed: true },
      { tableName: TABLE, rows: { rowKeys: keys.slice(-3) } },
      { tableName: TABLE, rows: { rowKeys: [keys[0]] } },
      { tableName: TABLE, filter: { valueRegexFilter: b64('v.*') } },
    ]) {
      sameAsHandle(db, req);
      const expected = viaHandle(db, 'readRows', asJson(req)).response.rows;
      assert.deepEqual(db.readRows(req, { values: 'bytes' }).rows.map((r) => r.key), expected.map((r) => r.key));
      assert.deepEqual([...db.readRowsIter(req)], expected);
      assert.deepEqual([...db.readRowsIter(req, { shape: 'flat', values: 'bytes' })].map((r) => r.key), expected.map((r) => r.key));
    }
    const all = db.readRows({ tableName: TABLE }).rows.map((r) => Buffer.from(r.key, 'base64'));
    assert.deepEqual(all.map((k) => k.toString('hex')).sort(), keys.map((k) => Buffer.from(k).toString('hex')).sort());
  });

  test('keys whose text runs across many pieces all read as the JSON path writes them', () => {
    // The reader makes a whole answer's keys' text into strings 16 KiB at
    // a time and cuts keys from them (tabletop.js, KEY_PIECE_BYTES): 3,000
    // keys of 2 to 91 bytes (about 190 KB as base64) cross many pieces'
    // ends, most of them inside a key; and one key at the 4 KiB limit.
    const db = withTable({ a: {} });
    const keys = [];
    for (let i = 0; i < 3000; i++) {
      keys.push(Uint8Array.from({ length: 2 + ((i * 7) % 90) }, (_, j) => (j === 0 ? i >> 8 : j === 1 ? i & 255 : (i * 31 + j * 7) % 256)));
    }
    keys.push(Uint8Array.from({ length: 4096 }, (_, j) => (j === 0 ? 0xfe : (j * 13) % 256)));
    for (let i = 0; i < keys.length; i += 500) {
      const entries = keys.slice(i, i + 500).map((rowKey, n) => ({
        rowKey, mutations: [{ setCell: { familyName: 'a', columnQualifier: bytes('q'), timestampMicros: 1000, value: bytes(`v${n}`) } }],
      }));
      assert.ok(db.mutateRows({ tableName: TABLE, entries }).entries.every((e) => e.status.code === 0));
    }
    for (const req of [{ tableName: TABLE }, { tableName: TABLE, reversed: true }, { tableName: TABLE, rowsLimit: 1777 }]) {
      sameAsHandle(db, req);
      const expected = viaHandle(db, 'readRows', asJson(req)).response.rows.map((r) => r.key);
      assert.deepEqual(db.readRows(req, { values: 'bytes' }).rows.map((r) => r.key), expected);
    }
    const all = db.readRows({ tableName: TABLE }).rows.map((r) => Buffer.from(r.key, 'base64').toString('hex'));
    assert.deepEqual(all.sort(), keys.map((k) => Buffer.from(k).toString('hex')).sort());
  });

  test('one-byte values, repeated timestamps, and an answer that failed part way', () => {
    // The packer keeps each one-byte value's dictionary entry and the last
    // timestamp's (js/src/read.rs): an answer that failed after sending new
    // ones must leave no reference to them behind.
    const db = withTable({ a: {}, b: {} });
    const entries = [];
    for (let i = 0; i < 256; i++) {
      entries.push({
        rowKey: Uint8Array.of(i >> 4, i & 15, 0xff),
        mutations: [
          { setCell: { familyName: 'a', columnQualifier: bytes('one'), timestampMicros: 7000, value: Uint8Array.of(i) } },
          { setCell: { familyName: 'a', columnQualifier: bytes('two'), timestampMicros: 7000, value: Uint8Array.of(255 - i) } },
          { setCell: { familyName: 'b', columnQualifier: bytes('pad'), timestampMicros: 1000 * (i + 1), value: bytes('p'.repeat(40)) } },
        ],
      });
    }
    assert.ok(db.mutateRows({ tableName: TABLE, entries }).entries.every((e) => e.status.code === 0));
    const rows = (a, b) => ({ tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: Uint8Array.of(a >> 4, a & 15), endKeyOpen: Uint8Array.of(b >> 4, b & 15) }] } });
    sameAsHandle(db, rows(0, 16));
    db.maxAnswerBytes = 4096;
    throwsStatus(() => db.readRows(rows(16, 255)), 'RESOURCE_EXHAUSTED');
    db.maxAnswerBytes = 1 << 20;
    sameAsHandle(db, rows(100, 120));
    sameAsHandle(db, { tableName: TABLE });
    // An iterator's chunks and whole answers in both shapes, interleaved.
    const iter = db.readRowsIter({ tableName: TABLE, reversed: true }, { shape: 'flat' })[Symbol.iterator]();
    const expected = flatten(viaHandle(db, 'readRows', { tableName: TABLE, reversed: true }).response.rows);
    for (let i = 0; i < expected.length; i++) {
      assert.deepEqual(iter.next().value, expected[i]);
      if (i % 50 === 0) sameAsHandle(db, rows(i % 200, (i % 200) + 30));
    }
    assert.equal(iter.next().done, true);
  });

  test('plain reads packed in wasm memory: other tables, many keys, failures, grown memory', () => {
    // Plain reads are packed straight into a buffer of each object's in
    // wasm memory, the table name left in place from the read before when
    // it is the same (tabletop.js, packRead): reads that switch tables,
    // one that outgrows the buffer, reads that fail in the core, reads
    // after an answer that grew the memory, and two objects in turn.
    const db = withTable({ a: {}, b: {} });
    db.createTable({ parent: PARENT, tableId: 'u', table: { columnFamilies: { a: {} } } });
    writeRows(db, 0, 300);
    const OTHER = `${PARENT}/tables/u`;
    db.mutateRow({ tableName: OTHER, rowKey: key(1), mutations: [{ setCell: { familyName: 'a', value: b64('other') } }] });
    const point = (table, i) => ({ tableName: table, rows: { rowKeys: [key(i)] } });
    for (let i = 0; i < 4; i++) {
      sameAsHandle(db, point(TABLE, 1));
      sameAsHandle(db, point(OTHER, 1));
      // A name of another length, then one that differs in its last byte.
      throwsStatus(() => db.readRows(point(`${PARENT}/tables/nope`, 1)), 'NOT_FOUND');
      throwsStatus(() => db.readRows(point(`${PARENT}/tables/v`, 1)), 'NOT_FOUND');
      sameAsHandle(db, point(TABLE, 2));
    }
    assert.equal(db.readRows(point(OTHER, 1)).rows[0].families[0].columns[0].cells[0].value, b64('other'));
    // 600 keys: more than the buffer holds.
    const many = { tableName: TABLE, rows: { rowKeys: Array.from({ length: 600 }, (_, i) => key(i % 300)) } };
    sameAsHandle(db, many);
    sameAsHandle(db, point(TABLE, 3));
    sameAsHandle(db, many);
    // An answer of several megabytes grows the memory.
    writeRows(db, 300, 20000);
    assert.equal(db.readRows({ tableName: TABLE }).rows.length, 20000);
    sameAsHandle(db, point(TABLE, 19999));
    const other = withTable({ a: {}, b: {} });
    writeRows(other, 0, 10, 'o');
    for (let i = 0; i < 3; i++) {
      sameAsHandle(other, point(TABLE, i));
      sameAsHandle(db, point(TABLE, i));
    }
    db.restore(other.snapshot());
    sameAsHandle(db, point(TABLE, 5));
    other.free();
  });

  test('two objects side by side keep dictionaries of their own', () => {
    const one = withTable({ a: {}, b: {} });
    const two = withTable({ b: {}, a: {} });
    writeRows(one, 0, 200, '1');
    writeRows(two, 50, 250, '2');
    for (let n = 0; n < 60; n++) {
      const a = 50 + ((n * 29) % 140);
      sameAsHandle(n % 2 ? one : two, range(a, a + 10));
      sameAsHandle(n % 2 ? two : one, labelled(a, a + 3, `l${n % 4}`));
    }
    one.free();
    two.free();
  });
});

describe('never poisoned', () => {
  test('a readRows answer past the cap throws RESOURCE_EXHAUSTED; the iterator still reads it', () => {
    const db = withTable();
    db.maxAnswerBytes = 64 * 1024;
    assert.equal(db.maxAnswerBytes, 64 * 1024);
    const value = new Uint8Array(1024).fill(7);
    const entries = Array.from({ length: 200 }, (_, i) => ({
      rowKey: bytes(`r${String(i).padStart(3, '0')}`),
      mutations: [{ setCell: { familyName: 'cf', value } }],
    }));
    db.mutateRows({ tableName: TABLE, entries });
    throwsStatus(() => db.readRows({ tableName: TABLE }), 'RESOURCE_EXHAUSTED');
    throwsStatus(() => db.call('readRows', { tableName: TABLE }), 'RESOURCE_EXHAUSTED');
    const line = viaHandle(db, 'readRows', { tableName: TABLE });
    assert.equal(line.error.status, 'RESOURCE_EXHAUSTED');
    assert.equal(db.readRows({ tableName: TABLE, rowsLimit: 10 }).rows.length, 10);
    let n = 0;
    for (const row of db.readRowsIter({ tableName: TABLE })) {
      assert.equal(Buffer.from(row.families[0].columns[0].cells[0].value, 'base64').length, 1024);
      n += 1;
    }
    assert.equal(n, 200);
    stillAnswers(db);
  });

  test('an answer of about a gigabyte at the default cap throws; the object stays usable', () => {
    const db = withTable();
    assert.equal(db.maxAnswerBytes, 256 * 1024 * 1024);
    // Three rows of 95 MB values: 285 MB stored, 380 MB as base64.
    const value = new Uint8Array(95 * 1024 * 1024).fill(65);
    for (let i = 0; i < 3; i++) {
      db.mutateRow({ tableName: TABLE, rowKey: bytes(`big${i}`), mutations: [{ setCell: { familyName: 'cf', value } }] });
    }
    throwsStatus(() => db.readRows({ tableName: TABLE }), 'RESOURCE_EXHAUSTED');
    assert.equal(viaHandle(db, 'readRows', { tableName: TABLE }).error.status, 'RESOURCE_EXHAUSTED');
    stillAnswers(db);
    let n = 0;
    for (const row of db.readRowsIter({ tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: bytes('big') }] } })) {
      assert.equal(row.families[0].columns[0].cells[0].value.length, (95 * 1024 * 1024 * 4) / 3 + 4 - ((95 * 1024 * 1024 * 4) / 3) % 4);
      n += 1;
    }
    assert.equal(n, 3);
    db.dropRowRange({ name: TABLE, deleteAllDataFromTable: true });
    stillAnswers(db);
    db.free();
  });

  test('a SQL expression that would build a huge string throws; the object stays usable', () => {
    const db = withTable();
    stillAnswers(db);
    let expr = `'${'a'.repeat(100)}'`;
    for (let i = 0; i < 5; i++) expr = `REPLACE(${expr}, 'a', '${'a'.repeat(100)}')`;
    assert.throws(() => db.sql({ query: `SELECT ${expr} AS s FROM t` }), (err) => {
      assert.ok(err instanceof TabletopError);
      assert.ok(['RESOURCE_EXHAUSTED', 'INVALID_ARGUMENT'].includes(err.status), err.status);
      return true;
    });
    stillAnswers(db);
    const line = viaHandle(db, 'sql', { query: `SELECT ${expr} AS s FROM t` });
    assert.ok(line.error);
    stillAnswers(db);
  });

  test('wrong-typed arguments throw TypeError, before reaching the core', () => {
    const db = withTable();
    const cases = [
      () => db.handle(12345),
      () => db.handle(),
      () => db.handle(null),
      () => db.handleTraced({}),
      () => db.cbt(7),
      () => db.cbtOutcome(undefined),
      () => db.cbtTraced(['ls']),
      () => db.readRows(),
      () => db.readRows(null),
      () => db.readRows('{"tableName": "x"}'),
      () => db.readRowsIter(42),
      () => db.mutateRows([]),
      () => db.mutateRow(new Uint8Array(3)),
      () => db.createTable(1),
      () => db.sql(null),
      () => db.call(5, {}),
      () => db.call('readRows'),
      () => db.restore('bytes'),
      () => Tabletop.restore([1, 2, 3]),
      () => { db.maxAnswerBytes = -1; },
      () => { db.maxAnswerBytes = '1000000'; },
    ];
    for (const fn of cases) {
      assert.throws(fn, TypeError, String(fn));
      stillAnswers(db);
    }
  });

  test('errors inside the core leave the object answering', () => {
    const db = withTable();
    throwsStatus(() => db.getTable({ name: 'projects/p/instances/i/tables/nope' }), 'NOT_FOUND');
    throwsStatus(() => db.readRows({ tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: '$$' }] } }), 'INVALID_ARGUMENT');
    throwsStatus(() => db.readRows({ tableName: TABLE, filter: { chain: { filters: [{ nope: 1 }] } } }), 'INVALID_ARGUMENT');
    throwsStatus(() => db.mutateRow({ tableName: TABLE, rowKey: '', mutations: [{ deleteFromRow: {} }] }), 'INVALID_ARGUMENT');
    throwsStatus(() => db.mutateRow({ tableName: TABLE, rowKey: 'eA==', mutations: [{ setCell: { familyName: 'cf', value: b64('x'.repeat(10)), timestampMicros: '9'.repeat(30) } }] }), 'INVALID_ARGUMENT');
    throwsStatus(() => db.createTable({ parent: PARENT, tableId: 'x'.repeat(300) }), 'INVALID_ARGUMENT');
    throwsStatus(() => db.readRows({ tableName: TABLE, filter: { valueRegexFilter: b64('(') } }), 'INVALID_ARGUMENT');
    const circular = { tableName: TABLE };
    circular.self = circular;
    assert.throws(() => db.readRows(circular), TypeError);
    stillAnswers(db);
  });
});

describe('made for tests', () => {
  test('an object starts empty with its clock at 0', () => {
    const db = new Tabletop();
    assert.deepEqual(db.listTables({ parent: PARENT }), {});
    assert.equal(db.advanceClock({}).nowMicros, '0');
    assert.equal(db.advanceClock({ nowMicros: '1600000000000000' }).time, '2020-09-13T12:26:40Z');
  });

  test('snapshot and restore bring an instance back', () => {
    const db = withTable();
    db.mutateRow({ tableName: TABLE, rowKey: 'YQ==', mutations: [{ setCell: { familyName: 'cf', value: 'eA==' } }] });
    db.advanceClock({ seconds: 5 });
    const snap = db.snapshot();
    assert.ok(snap instanceof Uint8Array);
    const before = db.readRows({ tableName: TABLE });
    db.mutateRow({ tableName: TABLE, rowKey: 'Yg==', mutations: [{ setCell: { familyName: 'cf', value: 'eQ==' } }] });
    db.restore(snap);
    assert.deepEqual(db.readRows({ tableName: TABLE }), before);
    const copy = Tabletop.restore(snap);
    assert.deepEqual(copy.readRows({ tableName: TABLE }), before);
    assert.equal(copy.advanceClock({}).nowMicros, db.advanceClock({}).nowMicros);
    copy.mutateRow({ tableName: TABLE, rowKey: 'Yw==', mutations: [{ setCell: { familyName: 'cf', value: 'eQ==' } }] });
    assert.equal(db.readRows({ tableName: TABLE }).rows.length, 1, 'a restored copy is independent');
    throwsStatus(() => Tabletop.restore(new Uint8Array([1, 2, 3])), 'INVALID_ARGUMENT');
    assert.throws(() => db.restore(snap.subarray(0, snap.length - 3)), TabletopError);
    stillAnswers(db);
  });
});

describe('loading large data sets', () => {
  // In a fresh process each (the module's memory only grows): a load of
  // about 10 MB of cells (100,000 of 100 bytes), with and without a
  // reservation first; the sizes of the memory at each step.
  function loadInFreshProcess(reserve) {
    const script = `
      const { Tabletop } = require(${JSON.stringify(installed.cjs)});
      const start = Tabletop.reserveMemory(0);
      const reserved = Tabletop.reserveMemory(${reserve});
      const again = Tabletop.reserveMemory(${reserve});
      const db = new Tabletop({ engine: 'bulk' });
      const TABLE = ${JSON.stringify(TABLE)};
      db.createTable({ parent: ${JSON.stringify(PARENT)}, tableId: 't', table: { columnFamilies: { cf: {} } } });
      const value = new Uint8Array(100).fill(7);
      let failed = 0;
      for (let batch = 0; batch < 10; batch++) {
        const answer = db.mutateRows({
          tableName: TABLE,
          entries: Array.from({ length: 1000 }, (_, i) => ({
            rowKey: new TextEncoder().encode('row-' + String(batch * 1000 + i).padStart(6, '0')),
            mutations: Array.from({ length: 10 }, (__, q) => ({ setCell: { familyName: 'cf', columnQualifier: new TextEncoder().encode('q' + q), value } })),
          })),
        });
        failed += answer.entries.filter((e) => e.status.code !== 0).length;
      }
      const rows = db.readRows({ tableName: TABLE, rowsLimit: '3' }).rows.length;
      console.log(JSON.stringify({ start, reserved, again, after: Tabletop.reserveMemory(0), failed, rows }));`;
    return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  }

  test('reserveMemory grows the memory once; a load that fits then grows nothing', () => {
    const MIB = 1024 * 1024;
    const plain = loadInFreshProcess(0);
    assert.deepEqual([plain.failed, plain.rows], [0, 3]);
    assert.equal(plain.reserved, plain.start);
    assert.ok(plain.after > plain.start + 10 * MIB, `without a reservation the load grows the memory: ${JSON.stringify(plain)}`);
    const reserved = loadInFreshProcess(64 * MIB);
    assert.deepEqual([reserved.failed, reserved.rows], [0, 3]);
    assert.ok(reserved.reserved >= reserved.start + 64 * MIB - MIB, JSON.stringify(reserved));
    assert.equal(reserved.again, reserved.reserved, 'asking again grows nothing');
    assert.equal(reserved.after, reserved.reserved, 'the load grew the memory');
  });

  test('reserveMemory checks its argument and says when the memory cannot grow', () => {
    for (const bad of [-1, 1.5, '1024', undefined, null, 2 ** 32, Number.NaN, 10n]) {
      assert.throws(() => Tabletop.reserveMemory(bad), TypeError, String(bad));
    }
    const db = withTable();
    throwsStatus(() => Tabletop.reserveMemory(0xffffffff), 'RESOURCE_EXHAUSTED');
    stillAnswers(db);
  });
});

describe('the text API stays', () => {
  test('handle answers lines and cbt speaks to the same instance', () => {
    const db = withTable();
    const line = db.handle(JSON.stringify({ method: 'getTable', request: { name: TABLE } }));
    assert.equal(JSON.parse(line).response.name, TABLE);
    assert.equal(JSON.parse(db.handle('not json')).error.code, 3);
    assert.equal(db.cbt('ls'), 't\n');
    db.cbt('set t row1 cf:q=hello@1000');
    assert.match(db.cbt('read t'), /row1\n\s+cf:q\s+@ 1970\/01\/01-00:00:00\.001000\n\s+"hello"/);
    const failed = JSON.parse(db.cbtOutcome('read nosuchtable'));
    assert.equal(failed.exitCode, 1);
    assert.notEqual(failed.stderr, '');
  });

  test('traced calls say what each operation did', () => {
    const db = withTable();
    const set = JSON.parse(db.cbtTraced('set t row1 cf:q=hello@1000'));
    assert.equal(set.traces[0].operation, 'MutateRow');
    const read = JSON.parse(db.cbtTraced('read t prefix=row'));
    assert.equal(read.traces[0].shape, 'single_range');
    const json = JSON.parse(db.handleTraced(JSON.stringify({ method: 'readRows', request: { tableName: TABLE, rowsLimit: '1' } })));
    assert.equal(json.answer.response.rows.length, 1);
    assert.equal(json.traces[0].rowsLimit, 1);
  });

  test('methods and cbt commands are listed', () => {
    const methods = JSON.parse(Tabletop.methods());
    const bigtable = methods.filter((m) => m.service !== 'playground').map((m) => m.name);
    const db = new Tabletop();
    for (const name of ['createTable', 'getTable', 'listTables', 'deleteTable', 'modifyColumnFamilies', 'dropRowRange',
      'mutateRow', 'mutateRows', 'checkAndMutateRow', 'readModifyWriteRow', 'readRows', 'sampleRowKeys']) {
      assert.ok(bigtable.includes(name), name);
      assert.equal(typeof db[name], 'function', name);
    }
    assert.ok(JSON.parse(Tabletop.cbtCommands()).includes('createtable'));
  });
});
