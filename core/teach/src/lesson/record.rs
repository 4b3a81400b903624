//! Reads a lesson remembers: what was asked (the row set and filter, from
//! a cbt `read`/`lookup`/`count`, a JSON `readRows` or a direct request),
//! its shape and what it cost.
//!
//! A record is made from the store's [`Trace`] of the read itself: the
//! lesson asks the interpreters for traces (with the first returned keys)
//! and keeps the last read's, so nothing is parsed twice or read again.

use serde::{Deserialize, Serialize};

use tabletop_sql::Instance;
use tabletop_store::{
    CountRows, ReadRowsRequest, ReadShape, Result, Trace, TraceOptions, range_text,
};
use tabletop_wire::{api, cbt};

/// Returned keys a record keeps (enough for any lesson's check).
const MAX_KEYS: usize = 10_000;

/// What a lesson asks the store to trace of a read: its counts and
/// tablets, and the first [`MAX_KEYS`] keys it returned.
pub const RECORD_OPTIONS: TraceOptions = TraceOptions {
    written_keys: false,
    returned_keys: MAX_KEYS,
};

/// One read and what it cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadRecord {
    /// Where it came from (`cbt read mobile prefix=...`, `readRows`, ...).
    pub source: String,
    /// Table id.
    pub table: String,
    /// How it reached its rows.
    pub shape: ReadShape,
    /// The row ranges it asked for, `[start, end)` escaped.
    pub ranges: Vec<String>,
    /// Whether a filter decided which rows or cells came back.
    pub filtered: bool,
    /// Whether it ran in reverse key order.
    pub reversed: bool,
    /// Its rows limit (0: none).
    pub rows_limit: i64,
    /// Rows the read had to look at.
    pub rows_scanned: u64,
    /// Rows it returned.
    pub rows_returned: u64,
    /// Cells it returned.
    pub cells_returned: u64,
    /// Distinct tablets it visited.
    pub tablets_visited: usize,
    /// The returned row keys (lossy UTF-8), at most 10,000.
    pub keys_returned: Vec<String>,
    /// Whether `keys_returned` holds every returned key.
    pub keys_complete: bool,
}

impl ReadRecord {
    /// One line for people.
    #[must_use]
    pub fn summary(&self) -> String {
        format!(
            "the last read of {} was {} ({}) that scanned {} row(s) and returned {}",
            self.table,
            self.shape.describe(),
            if self.ranges.len() > 3 {
                format!("{} ranges", self.ranges.len())
            } else {
                self.ranges.join(", ")
            },
            self.rows_scanned,
            self.rows_returned
        )
    }

    /// The record of a read from its trace (traced with
    /// [`RECORD_OPTIONS`], so the returned keys are there).
    #[must_use]
    pub fn from_trace(source: &str, t: &Trace) -> ReadRecord {
        ReadRecord {
            source: source.to_string(),
            table: t.table.clone(),
            shape: t.request.shape(),
            ranges: t.request.ranges.iter().map(range_text).collect(),
            filtered: t.request.filtered,
            reversed: t.request.reversed,
            rows_limit: t.request.rows_limit,
            rows_scanned: t.read.rows_seen,
            rows_returned: t.read.rows_returned,
            cells_returned: t.read.cells_returned,
            tablets_visited: t.distinct_tablets().len(),
            keys_returned: t
                .returned_keys
                .iter()
                .map(|k| String::from_utf8_lossy(k).into_owned())
                .collect(),
            keys_complete: t.returned_keys_complete,
        }
    }
}

/// Runs `req` against `db` (once, traced) and records it.
pub fn record(
    db: &mut Instance,
    table: &str,
    req: &ReadRowsRequest,
    source: &str,
) -> Result<ReadRecord> {
    let mut trace = Trace::new(RECORD_OPTIONS);
    db.read_rows_traced(table, req, &mut CountRows::default(), Some(&mut trace))?;
    Ok(ReadRecord::from_trace(source, &trace))
}

/// The read a cbt command line makes (`read`, `lookup`, `count`), if it
/// is one, as the cbt interpreter parses it ([`cbt::read_request`]).
#[must_use]
pub fn request_from_cbt(line: &str) -> Option<(String, ReadRowsRequest)> {
    cbt::read_request(line)
}

/// The read a JSON protocol line makes (`readRows`), if it is one, as the
/// protocol decodes it ([`api::read_rows_request_of_line`]).
#[must_use]
pub fn request_from_json(line: &str) -> Option<(String, ReadRowsRequest)> {
    api::read_rows_request_of_line(line)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use tabletop_store::{RowRange, RowSet};

    use super::*;

    #[test]
    fn cbt_reads_become_requests() {
        let (t, r) =
            request_from_cbt("cbt -project p read mobile prefix=phone#4c count=5").unwrap();
        assert_eq!(t, "mobile");
        assert_eq!(
            r.rows,
            RowSet::range(RowRange::prefix(b"phone#4c".to_vec()))
        );
        assert_eq!(r.rows_limit, 5);
        let (_, r) = request_from_cbt("read mobile regex=.*#2020.*").unwrap();
        assert!(r.rows.is_all() && r.filter.is_some());
        let (_, r) = request_from_cbt("lookup mobile phone#1").unwrap();
        assert_eq!(r.rows, RowSet::single(b"phone#1".to_vec()));
        assert!(request_from_cbt("set mobile r cf:q=v").is_none());
        assert!(request_from_cbt("read").is_none());
    }

    #[test]
    fn json_reads_become_requests() {
        let line = r#"{"method":"readRows","request":{"tableName":"projects/p/instances/i/tables/t","rows":{"rowRanges":[{"startKeyClosed":"YQ==","endKeyOpen":"Yg=="}]},"rowsLimit":"3"}}"#;
        let (t, r) = request_from_json(line).unwrap();
        assert_eq!(t, "t");
        assert_eq!(
            r.rows,
            RowSet::range(RowRange::closed_open(b"a".to_vec(), b"b".to_vec()))
        );
        assert_eq!(r.rows_limit, 3);
        assert!(request_from_json(r#"{"method":"mutateRow","request":{}}"#).is_none());
        assert!(request_from_json("not json").is_none());
    }
}
