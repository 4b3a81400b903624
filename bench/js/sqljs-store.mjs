// sql.js (SQLite compiled to wasm) as the peer workload's rival store,
// shared by bench/js/peer.mjs and bench/js/goals.mjs: one SQL row per cell
// in Bigtable's sort order, written in transactions of BATCH data rows
// through one prepared statement, and the workload's reads through
// prepared statements whose cells are all fetched and grouped into rows.
// The callers time these calls themselves.
import { createRequire } from 'node:module';
import { VALUE_REGEX, prefixEnd } from './mobile-data.mjs';

const initSqlJs = createRequire(import.meta.url)('sql.js');

/**
 * SQLite's GLOB pattern that accepts exactly the values the full-match
 * regex VALUE_REGEX accepts (the dots are literal in a GLOB).
 */
export const VALUE_GLOB = 'PQ2A.19040[0-9].003';

const COLUMNS = 'row_key, family, qualifier, ts, value';
const ORDER = 'ORDER BY row_key, family, qualifier, ts DESC';

/** A new in-memory database with the empty `cells` table. */
export async function openCells() {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run(`CREATE TABLE cells (row_key TEXT, family TEXT, qualifier TEXT, ts INTEGER, value TEXT,
          PRIMARY KEY (row_key, family, qualifier, ts DESC)) WITHOUT ROWID`);
  return db;
}

/** The rows' cells as INSERT parameters, one list per `batch` data rows (made before a load is timed). */
export function insertBatches(rows, batch) {
  const batches = [];
  for (let i = 0; i < rows.length; i += batch) {
    const params = [];
    for (const r of rows.slice(i, i + batch)) {
      for (const [family, q, value] of r.cells) params.push([r.key, family, q, r.ts, value]);
    }
    batches.push(params);
  }
  return batches;
}

/** Writes every batch, each in a transaction of its own. */
export function insertAll(db, batches) {
  const insert = db.prepare(`INSERT INTO cells VALUES (?, ?, ?, ?, ?)`);
  for (const params of batches) {
    db.run('BEGIN');
    for (const p of params) insert.run(p);
    db.run('COMMIT');
  }
  insert.free();
}

/** Steps through every cell `stmt` selects; answers how many rows (distinct keys in a row) they make. */
function rowsOf(stmt) {
  let rows = 0;
  let last = null;
  while (stmt.step()) {
    const cell = stmt.get();
    if (cell[0] !== last) {
      rows += 1;
      last = cell[0];
    }
  }
  return rows;
}

/** The workload's reads on a loaded `cells` table. Call `free` when done. */
export class CellReads {
  constructor(db) {
    this.db = db;
    this.pointStmt = db.prepare(`SELECT ${COLUMNS} FROM cells WHERE row_key = ? ${ORDER}`);
    this.rangeStmt = db.prepare(`SELECT ${COLUMNS} FROM cells WHERE row_key >= ? AND row_key < ? ${ORDER}`);
    const re = new RegExp(`^(?:${VALUE_REGEX})$`);
    // REGEXP is SQLite's hook for a user function; sql.js users bind one in JavaScript.
    db.create_function('regexp', (pattern, value) => (re.test(value) ? 1 : 0));
  }

  /** Reads each key's row; answers the rows found. */
  points(keys) {
    let n = 0;
    for (const k of keys) {
      this.pointStmt.bind([k]);
      n += rowsOf(this.pointStmt);
      this.pointStmt.reset();
    }
    return n;
  }

  /** Reads each prefix's rows; answers the rows found. */
  prefixes(prefixes) {
    let n = 0;
    for (const p of prefixes) {
      this.rangeStmt.bind([p, prefixEnd(p)]);
      n += rowsOf(this.rangeStmt);
      this.rangeStmt.reset();
    }
    return n;
  }

  /** A full scan with `where` (empty for all cells); answers the rows. */
  scan(where = '') {
    const stmt = this.db.prepare(`SELECT ${COLUMNS} FROM cells ${where} ${ORDER}`);
    const rows = rowsOf(stmt);
    stmt.free();
    return rows;
  }

  /** The value-regex full scan through SQLite's GLOB. */
  globScan() {
    return this.scan(`WHERE value GLOB '${VALUE_GLOB}'`);
  }

  /** The value-regex full scan through REGEXP, a JavaScript function. */
  regexpScan() {
    return this.scan(`WHERE value REGEXP '${VALUE_REGEX}'`);
  }

  free() {
    this.pointStmt.free();
    this.rangeStmt.free();
  }
}
