//! Reads a lesson remembers: what was asked (the row set and filter, from
//! a cbt `read`/`lookup`/`count`, a JSON `readRows`, a SQL query or a
//! direct request), its shape and what it cost.
//!
//! A record is made from the store's [`Trace`] of the read itself: the
//! lesson (or the host's console, for the reads it runs) asks the
//! interpreters for traces with [`RECORD_OPTIONS`] (the first returned
//! keys) and keeps the last read's, so nothing is parsed, and nothing is
//! read again.

use serde::{Deserialize, Serialize};

use tabletop_store::{ReadShape, Trace, TraceOptions, range_text};

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
