// Compiled (never run) by tests/js/types.test.mjs with `tsc --noEmit
// --strict` inside a project that installed tabletop-js: every method of
// the package's index.d.ts used as a TypeScript user would, the answers
// given their documented types, and `@ts-expect-error` lines that must stay
// errors (tsc fails if one of them compiles), so loosened declarations
// (an `any`, a missing overload, an optional field turned required) fail
// the check.
import init, {
  Tabletop,
  TabletopError,
  type BytesReadRowsResponse,
  type FlatBytesReadRowsResponse,
  type FlatReadRowsResponse,
  type BytesRow,
  type CheckAndMutateRowResponse,
  type ListTablesResponse,
  type Mutation,
  type MutateRowsResponse,
  type ReadModifyWriteRowResponse,
  type ReadRowsRequest,
  type ReadRowsResponse,
  type Row,
  type RowFilter,
  type SampleRowKeysResponse,
  type SqlResponse,
  type StatusName,
  type Table,
} from 'tabletop-js';
import initWeb, { Tabletop as WebTabletop } from 'tabletop-js/web';

const PARENT = 'projects/p/instances/i';
const TABLE = `${PARENT}/tables/t`;
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

/**
 * Passes a value through, refusing one typed `any`: every answer goes
 * through it, so a declaration that loses an answer's type fails the check
 * (an `any` would be assignable to every annotation below).
 */
type NoAny<T> = 0 extends 1 & T ? never : T;
function known<T>(value: T & NoAny<T>): T {
  return value;
}

export async function everyMethod(): Promise<void> {
  const loaded = known(await init());
  const Loaded: typeof Tabletop = loaded.Tabletop;
  const webLoaded = known(await initWeb());
  const fromWeb: WebTabletop = new webLoaded.Tabletop();
  fromWeb.free();

  const db = new Tabletop();
  const bulk = new Loaded({ engine: 'bulk' });
  // @ts-expect-error the engine is 'default' or 'bulk'
  new Tabletop({ engine: 'fast' });
  const parity = new Tabletop({ emulatorParity: true, engine: 'bulk' });
  const answersAsEmulator: boolean = known(parity.emulatorParity);
  // @ts-expect-error emulatorParity is a boolean
  new Tabletop({ emulatorParity: 'yes' });
  // @ts-expect-error the setting is chosen when the object is made
  parity.emulatorParity = false;

  // Admin.
  const created: Table = known(db.createTable({
    parent: PARENT,
    tableId: 't',
    table: { columnFamilies: { cf: { gcRule: { maxNumVersions: 1 } }, old: { gcRule: { maxAge: '86400s' } } } },
    initialSplits: [{ key: 'bQ==' }, { key: bytes('t') }],
  }));
  const families: string[] = Object.keys(created.columnFamilies ?? {});
  const table: Table = known(db.getTable({ name: TABLE, view: 'FULL' }));
  const listed: ListTablesResponse = known(db.listTables({ parent: PARENT }));
  const names: (string | undefined)[] = (listed.tables ?? []).map((t) => t.name);
  const modified: Table = known(db.modifyColumnFamilies({
    name: TABLE,
    modifications: [{ id: 'cf2', create: { gcRule: { union: { rules: [{ maxNumVersions: 2 }, { maxAge: '60s' }] } } } }],
  }));
  known(db.dropRowRange({ name: TABLE, rowKeyPrefix: bytes('old#') }));
  db.dropRowRange({ name: TABLE, deleteAllDataFromTable: true });
  // @ts-expect-error createTable needs a tableId
  db.createTable({ parent: PARENT });

  // Writes: both byte forms, both int64 forms, every mutation.
  const mutations: Mutation[] = [
    { setCell: { familyName: 'cf', columnQualifier: 'cQ==', timestampMicros: 1000, value: bytes('v') } },
    { setCell: { familyName: 'cf', columnQualifier: bytes('q'), timestampMicros: '2000', value: 'dg==' } },
    { deleteFromColumn: { familyName: 'cf', columnQualifier: 'cQ==', timeRange: { startTimestampMicros: 0, endTimestampMicros: '1500' } } },
    { deleteFromFamily: { familyName: 'cf2' } },
    { deleteFromRow: {} },
  ];
  known(db.mutateRow({ tableName: TABLE, rowKey: bytes('r1'), mutations }));
  const many: MutateRowsResponse = known(db.mutateRows({
    tableName: TABLE,
    entries: [{ rowKey: 'cjI=', mutations: [{ setCell: { familyName: 'cf', value: 'eA==' } }] }],
  }));
  const failed: number[] = (many.entries ?? []).filter((e) => e.status.code !== 0).map((e) => e.index);
  // @ts-expect-error a mutation sets exactly one of its fields
  const wrongMutation: Mutation = { setCell: { value: 'eA==' } };

  const predicate: RowFilter = {
    chain: { filters: [{ familyNameRegexFilter: 'cf' }, { valueRegexFilter: bytes('x.*') }, { cellsPerColumnLimitFilter: 1 }] },
  };
  const checked: CheckAndMutateRowResponse = known(db.checkAndMutateRow({
    tableName: TABLE,
    rowKey: 'cjI=',
    predicateFilter: predicate,
    trueMutations: [{ setCell: { familyName: 'cf', columnQualifier: 'bQ==', value: 'eQ==' } }],
    falseMutations: [{ deleteFromRow: {} }],
  }));
  const matched: boolean | undefined = checked.predicateMatched;
  const rmw: ReadModifyWriteRowResponse = known(db.readModifyWriteRow({
    tableName: TABLE,
    rowKey: 'cjI=',
    rules: [
      { familyName: 'cf', columnQualifier: 'bg==', incrementAmount: 1 },
      { familyName: 'cf', columnQualifier: bytes('s'), appendValue: bytes('!') },
    ],
  }));
  const rmwKey: string = rmw.row.key;

  // Reads: answers in base64 (the default) and as bytes.
  const request: ReadRowsRequest = {
    tableName: TABLE,
    rows: { rowKeys: [bytes('r1'), 'cjI='], rowRanges: [{ startKeyClosed: 'YQ==', endKeyOpen: bytes('z') }] },
    filter: { interleave: { filters: [{ passAllFilter: true }, { applyLabelTransformer: 'seen' }] } },
    rowsLimit: '10',
    reversed: false,
    requestStatsView: 'REQUEST_STATS_FULL',
  };
  const answer: ReadRowsResponse = known(db.readRows(request));
  const rows: Row[] = answer.rows;
  const value: string | undefined = rows[0]?.families?.[0]?.columns[0]?.cells[0]?.value;
  const seen: string | undefined = answer.requestStats?.fullReadStatsView?.readIterationStats?.rowsSeenCount;
  const asBytes: BytesReadRowsResponse = known(db.readRows(request, { values: 'bytes' }));
  const raw: Uint8Array | undefined = asBytes.rows[0]?.families?.[0]?.columns[0]?.cells[0]?.value;
  const explicitBase64: ReadRowsResponse = known(db.readRows(request, { values: 'base64' }));
  // @ts-expect-error values read as bytes are Uint8Arrays, not strings
  const notText: string | undefined = asBytes.rows[0]?.families?.[0]?.columns[0]?.cells[0]?.value;
  // @ts-expect-error values are 'base64' or 'bytes'
  db.readRows(request, { values: 'hex' });
  // @ts-expect-error a read names its table
  db.readRows({ rows: { rowKeys: ['YQ=='] } });
  for (const row of known(db.readRowsIter({ tableName: TABLE }))) {
    const key: string = known(row.key);
    if (key === '') break;
  }
  const flat: FlatReadRowsResponse = known(db.readRows(request, { shape: 'flat' }));
  const flatQualifier: string | undefined = flat.rows[0]?.cells[0]?.qualifier;
  const flatBytes: FlatBytesReadRowsResponse = known(db.readRows(request, { shape: 'flat', values: 'bytes' }));
  const flatRaw: Uint8Array | undefined = flatBytes.rows[0]?.cells[0]?.value;
  // @ts-expect-error a flat row has cells, not families
  const noFamilies = flat.rows[0]?.families;
  // @ts-expect-error shapes are 'nested' or 'flat'
  db.readRows(request, { shape: 'tree' });
  for (const row of known(db.readRowsIter({ tableName: TABLE }, { shape: 'flat' }))) {
    const family: string | undefined = row.cells[0]?.family;
    if (family === '') break;
  }
  const iter = known(db.readRowsIter({ tableName: TABLE }, { values: 'bytes' }));
  const first: IteratorResult<BytesRow> = known(iter.next());
  iter.return();

  const samples: SampleRowKeysResponse = known(db.sampleRowKeys({ tableName: TABLE }));
  const offsets: (string | undefined)[] = (samples.samples ?? []).map((s) => s.offsetBytes);
  const sql: SqlResponse = known(db.sql({ query: 'SELECT _key FROM t LIMIT 1', instanceName: PARENT }));
  const sqlRows: unknown[][] | undefined = sql.rows;

  // Playground methods.
  known(db.compact({ tableName: TABLE }));
  const clock: string | undefined = known(db.advanceClock({ seconds: 60 })).nowMicros;
  db.advanceClock({ nowMicros: '120000000' });
  known(db.listTablets({ tableName: TABLE }));
  known(db.explain(request));
  db.explain({ query: 'SELECT * FROM t' });
  const anything: unknown = db.call('getTable', { name: TABLE });

  // Snapshots, limits, text protocols, statics.
  const snap: Uint8Array = known(db.snapshot());
  db.restore(snap);
  const copy: Tabletop = known(Tabletop.restore(snap));
  copy.maxAnswerBytes = 1 << 20;
  const cap: number = known(copy.maxAnswerBytes);
  const line: string = known(db.handle(JSON.stringify({ method: 'listTables', request: { parent: PARENT } })));
  const traced: string = known(db.handleTraced(line));
  const printed: string = known(db.cbt('ls'));
  const outcome: string = known(db.cbtOutcome('ls'));
  const cbtTraced: string = known(db.cbtTraced('count t'));
  const methods: string = known(Tabletop.methods());
  const commands: string = known(Tabletop.cbtCommands());
  const memoryBytes: number = known(Tabletop.reserveMemory(1 << 20));
  // @ts-expect-error reserveMemory takes a number of bytes
  Tabletop.reserveMemory('1 MiB');
  // @ts-expect-error handle takes a line of text, not an object
  db.handle({ method: 'listTables' });

  try {
    db.getTable({ name: `${PARENT}/tables/missing` });
  } catch (e) {
    if (e instanceof TabletopError) {
      const status: StatusName = known(e.status);
      const code: number = known(e.code);
      const message: string = e.message;
      // @ts-expect-error status is one of Bigtable's code names
      const bogus: StatusName = 'MISSING';
      void [status, code, message, bogus];
    }
  }
  db.deleteTable({ name: TABLE });
  bulk.free();
  db.free();
  copy.free();

  void [families, table, names, modified, failed, wrongMutation, matched, rmwKey, value, seen, raw,
    explicitBase64, notText, first, offsets, sqlRows, clock, anything, cap, traced, printed, outcome,
    cbtTraced, methods, commands, answersAsEmulator];
}
