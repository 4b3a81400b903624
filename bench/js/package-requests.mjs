// The peer workload's requests to tabletop-js, in the forms its methods
// take, shared by bench/js/peer.mjs and bench/js/goals.mjs: writes as
// mutateRows requests (byte fields as base64 text, Bigtable's REST JSON
// form), built before a load is timed as sql.js's parameters are; reads
// with keys and range bounds as bytes.
import { DETAIL, QUALIFIERS, SUMMARY, VALUE_REGEX, prefixEnd } from './mobile-data.mjs';

export const PARENT = 'projects/p/instances/i';
export const TABLE = `${PARENT}/tables/mobile`;

const b64 = (text) => Buffer.from(text).toString('base64');

/** Makes the workload's table in `db` (a Tabletop). */
export function createMobileTable(db) {
  db.createTable({
    parent: PARENT, tableId: 'mobile',
    table: { columnFamilies: { [SUMMARY]: {}, [DETAIL]: {} } },
  });
}

/** One mutateRows request per `batch` data rows. */
export function writeBatches(rows, batch) {
  const qualifiers = new Map(QUALIFIERS.map((q) => [q, b64(q)]));
  const batches = [];
  for (let i = 0; i < rows.length; i += batch) {
    batches.push({
      tableName: TABLE,
      entries: rows.slice(i, i + batch).map((r) => ({
        rowKey: b64(r.key),
        mutations: r.cells.map(([family, q, value]) => ({
          setCell: { familyName: family, columnQualifier: qualifiers.get(q), timestampMicros: r.ts, value: b64(value) },
        })),
      })),
    });
  }
  return batches;
}

/** Sends every batch; throws if any row's write failed. */
export function writeAll(db, batches) {
  for (const req of batches) {
    const answer = db.mutateRows(req);
    if (answer.entries.some((e) => e.status.code !== 0)) throw new Error('a write failed');
  }
}

const enc = new TextEncoder();

/** A readRows request of each key's row. */
export const pointRequests = (keys) => keys.map((k) => ({ tableName: TABLE, rows: { rowKeys: [enc.encode(k)] } }));

/** A readRows request of each prefix's rows. */
export const prefixRequests = (prefixes) => prefixes.map((p) => ({
  tableName: TABLE, rows: { rowRanges: [{ startKeyClosed: enc.encode(p), endKeyOpen: enc.encode(prefixEnd(p)) }] },
}));

/** The value-regex full scan. */
export const REGEX_REQUEST = { tableName: TABLE, filter: { valueRegexFilter: b64(VALUE_REGEX) } };
