// Types of tabletop-js: Bigtable's REST JSON (proto3 JSON) requests and
// answers as plain objects. Byte fields are base64 strings in answers; in
// requests they may also be Uint8Arrays. int64 fields are decimal strings
// in answers; requests may give numbers.

/** A `bytes` field of a request: base64 text or the bytes themselves. */
export type Bytes = string | Uint8Array;
/** An `int64` field of a request: a safe integer or its decimal text. */
export type Int64 = string | number;

/** Bigtable's status codes, by name (numbers as in gRPC). */
export type StatusName =
  | 'OK' | 'CANCELLED' | 'UNKNOWN' | 'INVALID_ARGUMENT' | 'DEADLINE_EXCEEDED' | 'NOT_FOUND'
  | 'ALREADY_EXISTS' | 'PERMISSION_DENIED' | 'RESOURCE_EXHAUSTED' | 'FAILED_PRECONDITION'
  | 'ABORTED' | 'OUT_OF_RANGE' | 'UNIMPLEMENTED' | 'INTERNAL' | 'UNAVAILABLE' | 'DATA_LOSS'
  | 'UNAUTHENTICATED';

/** What the core answered when a request failed. */
export class TabletopError extends Error {
  readonly name: 'TabletopError';
  /** The status code number, e.g. 5. */
  readonly code: number;
  /** The status code name, e.g. 'NOT_FOUND'. */
  readonly status: StatusName;
}

// ---------------------------------------------------------------- admin

export type GcRule =
  | { maxNumVersions: number }
  | { maxAge: string }
  | { intersection: { rules: GcRule[] } }
  | { union: { rules: GcRule[] } }
  | Record<string, never>;

export interface ColumnFamily {
  gcRule?: GcRule;
  valueType?: Record<string, unknown>;
}

export interface Table {
  name?: string;
  columnFamilies?: Record<string, ColumnFamily>;
  granularity?: 'MILLIS' | 'TIMESTAMP_GRANULARITY_UNSPECIFIED';
  [field: string]: unknown;
}

export interface CreateTableRequest {
  parent: string;
  tableId: string;
  table?: Table;
  initialSplits?: { key: Bytes }[];
}
export interface GetTableRequest { name: string; view?: string }
export interface ListTablesRequest { parent: string; view?: string; pageSize?: number; pageToken?: string }
export interface ListTablesResponse { tables?: Table[]; nextPageToken?: string }
export interface DeleteTableRequest { name: string }
export interface Modification {
  id: string;
  create?: ColumnFamily;
  update?: ColumnFamily;
  drop?: boolean;
  updateMask?: string;
}
export interface ModifyColumnFamiliesRequest { name: string; modifications: Modification[]; ignoreWarnings?: boolean }
export interface DropRowRangeRequest { name: string; rowKeyPrefix?: Bytes; deleteAllDataFromTable?: boolean }

// ----------------------------------------------------------------- data

export interface RowRange {
  startKeyClosed?: Bytes;
  startKeyOpen?: Bytes;
  endKeyOpen?: Bytes;
  endKeyClosed?: Bytes;
}
export interface RowSet { rowKeys?: Bytes[]; rowRanges?: RowRange[] }

export interface ColumnRange {
  familyName?: string;
  startQualifierClosed?: Bytes;
  startQualifierOpen?: Bytes;
  endQualifierClosed?: Bytes;
  endQualifierOpen?: Bytes;
}
export interface TimestampRange { startTimestampMicros?: Int64; endTimestampMicros?: Int64 }
export interface ValueRange {
  startValueClosed?: Bytes;
  startValueOpen?: Bytes;
  endValueClosed?: Bytes;
  endValueOpen?: Bytes;
}

/** google.bigtable.v2.RowFilter: exactly one field set. */
export interface RowFilter {
  chain?: { filters: RowFilter[] };
  interleave?: { filters: RowFilter[] };
  condition?: { predicateFilter: RowFilter; trueFilter?: RowFilter; falseFilter?: RowFilter };
  sink?: boolean;
  passAllFilter?: boolean;
  blockAllFilter?: boolean;
  rowKeyRegexFilter?: Bytes;
  rowSampleFilter?: number;
  familyNameRegexFilter?: string;
  columnQualifierRegexFilter?: Bytes;
  columnRangeFilter?: ColumnRange;
  timestampRangeFilter?: TimestampRange;
  valueRegexFilter?: Bytes;
  valueRangeFilter?: ValueRange;
  cellsPerRowOffsetFilter?: number;
  cellsPerRowLimitFilter?: number;
  cellsPerColumnLimitFilter?: number;
  stripValueTransformer?: boolean;
  applyLabelTransformer?: string;
}

/** google.bigtable.v2.Mutation: exactly one field set. */
export type Mutation =
  | { setCell: { familyName: string; columnQualifier?: Bytes; timestampMicros?: Int64; value?: Bytes } }
  | { deleteFromColumn: { familyName: string; columnQualifier?: Bytes; timeRange?: TimestampRange } }
  | { deleteFromFamily: { familyName: string } }
  | { deleteFromRow: Record<string, never> }
  | { addToCell: { familyName: string; columnQualifier?: { rawValue: Bytes }; timestamp?: { rawTimestampMicros: Int64 }; input: { intValue?: Int64; rawValue?: Bytes } } }
  | { mergeToCell: { familyName: string; columnQualifier?: { rawValue: Bytes }; timestamp?: { rawTimestampMicros: Int64 }; input: { rawValue?: Bytes } } };

export interface MutateRowRequest { tableName: string; rowKey: Bytes; mutations: Mutation[] }
export type MutateRowResponse = Record<string, never>;
export interface MutateRowsEntry { rowKey: Bytes; mutations: Mutation[] }
export interface MutateRowsRequest { tableName: string; entries: MutateRowsEntry[] }
/** google.rpc.Status of one entry. */
export interface Status { code: number; message?: string }
export interface MutateRowsResponse { entries?: { index: number; status: Status }[] }

export interface CheckAndMutateRowRequest {
  tableName: string;
  rowKey: Bytes;
  predicateFilter?: RowFilter;
  trueMutations?: Mutation[];
  falseMutations?: Mutation[];
}
export interface CheckAndMutateRowResponse { predicateMatched?: boolean }

export interface ReadModifyWriteRule {
  familyName: string;
  columnQualifier?: Bytes;
  appendValue?: Bytes;
  incrementAmount?: Int64;
}
export interface ReadModifyWriteRowRequest { tableName: string; rowKey: Bytes; rules: ReadModifyWriteRule[] }

/** A cell of an answer: base64 value, timestamp as decimal text; defaults left out. */
export interface Cell { timestampMicros?: string; value?: string; labels?: string[] }
export interface Column { qualifier?: string; cells: Cell[] }
export interface Family { name: string; columns: Column[] }
/** google.bigtable.v2.Row: base64 key, families in order. */
export interface Row { key: string; families?: Family[] }
export interface ReadModifyWriteRowResponse { row: Row }

export interface ReadRowsRequest {
  tableName: string;
  rows?: RowSet;
  filter?: RowFilter;
  rowsLimit?: Int64;
  reversed?: boolean;
  requestStatsView?: 'REQUEST_STATS_VIEW_UNSPECIFIED' | 'REQUEST_STATS_NONE' | 'REQUEST_STATS_FULL';
}
export interface RequestStats {
  fullReadStatsView?: {
    readIterationStats?: {
      rowsSeenCount?: string;
      rowsReturnedCount?: string;
      cellsSeenCount?: string;
      cellsReturnedCount?: string;
    };
  };
}
export interface ReadRowsResponse { rows: Row[]; requestStats?: RequestStats }

/** A cell of an answer read with `{ values: 'bytes' }`: the value as bytes. */
export interface BytesCell { timestampMicros?: string; value?: Uint8Array; labels?: string[] }
export interface BytesColumn { qualifier?: string; cells: BytesCell[] }
export interface BytesFamily { name: string; columns: BytesColumn[] }
/** A Row whose cell values are bytes; everything else as in `Row`. */
export interface BytesRow { key: string; families?: BytesFamily[] }
export interface BytesReadRowsResponse { rows: BytesRow[]; requestStats?: RequestStats }

/**
 * A cell of an answer read with `{ shape: 'flat' }`: its family and its
 * qualifier (base64, `''` for the empty one) in the cell; the rest as in
 * `Cell` (or `BytesCell` with `{ values: 'bytes' }`).
 */
export interface FlatCell { family: string; qualifier: string; timestampMicros?: string; value?: string; labels?: string[] }
export interface FlatBytesCell { family: string; qualifier: string; timestampMicros?: string; value?: Uint8Array; labels?: string[] }
/** A row read with `{ shape: 'flat' }`: its cells in Bigtable's order (family, qualifier, newest first). */
export interface FlatRow { key: string; cells: FlatCell[] }
export interface FlatBytesRow { key: string; cells: FlatBytesCell[] }
export interface FlatReadRowsResponse { rows: FlatRow[]; requestStats?: RequestStats }
export interface FlatBytesReadRowsResponse { rows: FlatBytesRow[]; requestStats?: RequestStats }

/**
 * How readRows and readRowsIter give cell values: `'base64'` (the default,
 * Bigtable's REST JSON) or `'bytes'`, each value a `Uint8Array` viewing one
 * buffer the answer (or the iterator's chunk) shares, with no base64 text
 * made. Empty values are left out either way.
 * `shape`: `'nested'` (the default, Bigtable's families, columns and
 * cells) or `'flat'` (`{ key, cells }`, each cell naming its family and
 * qualifier: fewer objects to make, so faster for answers of many rows).
 */
export interface ReadOptions { values?: 'base64' | 'bytes'; shape?: 'nested' | 'flat' }

/** The options of `new Tabletop(options)`. */
export interface TabletopOptions {
  /**
   * The engine's thresholds: `'default'`, the playground's small memtables
   * and tablets (flushes and splits show in small tables), or `'bulk'`,
   * big memtables and tablets, for loading large data sets fast (as the
   * core's own benchmark does). Answers are the same either way.
   */
  engine?: 'default' | 'bulk';
  /**
   * `true`: answer as Google's Bigtable emulator does where it differs
   * from production (as the CLI's `--emulator-parity`), so tests that pass
   * only because the emulator is looser show up. `false` (the default):
   * as production Bigtable. A snapshot keeps the setting.
   */
  emulatorParity?: boolean;
}

export interface SampleRowKeysRequest { tableName: string }
export interface SampleRowKeysResponse { samples?: { rowKey?: string; offsetBytes?: string }[] }

/** The playground's SQL (GoogleSQL for Bigtable). */
export interface SqlRequest { query: string; instanceName?: string }
export interface SqlResponse {
  columns?: { name: string; type: string }[];
  rows?: unknown[][];
  stats?: Record<string, unknown>;
  [field: string]: unknown;
}

/** An iterator over a read's rows that also closes the read when left early. */
export interface RowIterator extends IterableIterator<Row> {
  return(): IteratorResult<Row, undefined>;
}
export interface BytesRowIterator extends IterableIterator<BytesRow> {
  return(): IteratorResult<BytesRow, undefined>;
}
export interface FlatRowIterator extends IterableIterator<FlatRow> {
  return(): IteratorResult<FlatRow, undefined>;
}
export interface FlatBytesRowIterator extends IterableIterator<FlatBytesRow> {
  return(): IteratorResult<FlatBytesRow, undefined>;
}

/**
 * A Cloud Bigtable instance in memory. It starts empty with its clock at 0
 * (moved only by `advanceClock`), so a test repeats exactly. Every method
 * takes the request object of Bigtable's REST JSON API and returns the
 * answer object; a failure throws `TabletopError`; a wrong-typed argument
 * throws `TypeError`.
 */
export class Tabletop {
  constructor(options?: TabletopOptions);

  createTable(request: CreateTableRequest): Table;
  getTable(request: GetTableRequest): Table;
  listTables(request: ListTablesRequest): ListTablesResponse;
  deleteTable(request: DeleteTableRequest): Record<string, never>;
  modifyColumnFamilies(request: ModifyColumnFamiliesRequest): Table;
  dropRowRange(request: DropRowRangeRequest): Record<string, never>;
  mutateRow(request: MutateRowRequest): MutateRowResponse;
  mutateRows(request: MutateRowsRequest): MutateRowsResponse;
  checkAndMutateRow(request: CheckAndMutateRowRequest): CheckAndMutateRowResponse;
  readModifyWriteRow(request: ReadModifyWriteRowRequest): ReadModifyWriteRowResponse;
  /** The whole answer; past `maxAnswerBytes` it throws RESOURCE_EXHAUSTED. */
  readRows(request: ReadRowsRequest, options?: ReadOptions & { values?: 'base64'; shape?: 'nested' }): ReadRowsResponse;
  readRows(request: ReadRowsRequest, options: ReadOptions & { values: 'bytes'; shape?: 'nested' }): BytesReadRowsResponse;
  readRows(request: ReadRowsRequest, options: ReadOptions & { values?: 'base64'; shape: 'flat' }): FlatReadRowsResponse;
  readRows(request: ReadRowsRequest, options: ReadOptions & { values: 'bytes'; shape: 'flat' }): FlatBytesReadRowsResponse;
  /** The rows one at a time, read a chunk at a time, never the whole answer. */
  readRowsIter(request: ReadRowsRequest, options?: ReadOptions & { values?: 'base64'; shape?: 'nested' }): RowIterator;
  readRowsIter(request: ReadRowsRequest, options: ReadOptions & { values: 'bytes'; shape?: 'nested' }): BytesRowIterator;
  readRowsIter(request: ReadRowsRequest, options: ReadOptions & { values?: 'base64'; shape: 'flat' }): FlatRowIterator;
  readRowsIter(request: ReadRowsRequest, options: ReadOptions & { values: 'bytes'; shape: 'flat' }): FlatBytesRowIterator;
  sampleRowKeys(request: SampleRowKeysRequest): SampleRowKeysResponse;
  sql(request: SqlRequest): SqlResponse;

  /** Playground methods. */
  compact(request: { tableName?: string }): Record<string, unknown>;
  advanceClock(request: { seconds?: number; nowMicros?: Int64 }): { nowMicros?: string; time?: string; [field: string]: unknown };
  listTablets(request: { tableName: string }): Record<string, unknown>;
  explain(request: ReadRowsRequest | { query: string }): Record<string, unknown>;
  /** Any method of the JSON protocol by name. */
  call(method: string, request: object): unknown;

  /** The whole instance as bytes. */
  snapshot(): Uint8Array;
  /** Puts this object back to what `bytes` (from `snapshot()`) hold. */
  restore(bytes: Uint8Array): void;
  /** A new object holding what `bytes` (from `snapshot()`) hold. */
  static restore(bytes: Uint8Array): Tabletop;
  /**
   * Makes sure `bytes` bytes of the module's memory (shared by every
   * object) are free, growing it now, at most once; answers its size in
   * bytes. Call it early, before building large data sets in JavaScript:
   * in Node each growth of the memory during a load can start a full
   * garbage collection of the whole JavaScript heap. Throws a
   * TabletopError (RESOURCE_EXHAUSTED) if the memory cannot grow that much.
   */
  static reserveMemory(bytes: number): number;

  /** The most bytes (packed, base64) one readRows answer may take; 256 MiB unless set. */
  maxAnswerBytes: number;
  /** Whether this object answers as Google's emulator does (the `emulatorParity` option). */
  readonly emulatorParity: boolean;

  /** One line of the JSON protocol, `{"method", "request"}`, in; one answer line out. */
  handle(line: string): string;
  /** As `handle`, as JSON text `{"answer", "traces"}`. */
  handleTraced(line: string): string;
  /** One cbt command line in; what cbt prints out. */
  cbt(line: string): string;
  /** `{"stdout", "stderr", "exitCode"}` as JSON text. */
  cbtOutcome(line: string): string;
  /** `{"stdout", "stderr", "exitCode", "traces"}` as JSON text. */
  cbtTraced(line: string): string;
  /** Frees the wasm memory now; the object cannot be used afterwards. */
  free(): void;

  /** The protocol's methods as JSON text. */
  static methods(): string;
  /** The cbt commands as JSON text. */
  static cbtCommands(): string;
}

/** Loads the wasm in a browser (a no-op in Node); resolves to the module. */
export function init(input?: unknown): Promise<{ Tabletop: typeof Tabletop; TabletopError: typeof TabletopError }>;
export default init;
