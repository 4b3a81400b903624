//! Traces: what one data operation did, handed up to whoever asked.
//!
//! Every data operation of an [`Instance`](crate::Instance) (ReadRows,
//! MutateRow, MutateRows, CheckAndMutateRow, ReadModifyWriteRow,
//! DropRowRange, SampleRowKeys) has a `*_traced` twin that fills a
//! [`Trace`]: the request's shape (point reads, ranges, a full scan, a
//! filter), the rows and cells it saw and returned with their bytes, the
//! tablets it visited out of how many, and what it wrote (rows, cells,
//! bytes and, when asked, the keys). Layers above read the record instead
//! of parsing printed output or reading the rows again: the SQL layer's
//! materialized views follow writes through the written keys, the wire
//! formats hand traces to the console and the lessons.
//!
//! A trace costs nothing unless it is asked for: the plain methods pass
//! none, and the engine fills the read statistics it keeps anyway. Lists
//! that allocate per row (written keys, returned keys) are opt-in through
//! [`TraceOptions`]. [`Traces`] collects the traces of a request that makes
//! several operations (a cbt `import`, a SQL statement), keeping only the
//! operations that succeeded.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::row::ReadStats;
use crate::row_set::KeyRange;

/// How a read reaches its rows, from best to worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadShape {
    /// One row key.
    Point,
    /// One contiguous range of rows: a prefix or a start and end key.
    SingleRange,
    /// Several keys or ranges (one per value of a few-valued segment).
    MultiRange,
    /// Every row of the table, filtered.
    FullScan,
}

impl ReadShape {
    /// All shapes, best first.
    pub const ALL: [ReadShape; 4] = [
        ReadShape::Point,
        ReadShape::SingleRange,
        ReadShape::MultiRange,
        ReadShape::FullScan,
    ];

    /// `point`, `single_range`, `multi_range` or `full_scan`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ReadShape::Point => "point",
            ReadShape::SingleRange => "single_range",
            ReadShape::MultiRange => "multi_range",
            ReadShape::FullScan => "full_scan",
        }
    }

    /// Parses a name (also `prefix` and `range` for `single_range`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<ReadShape> {
        match name {
            "prefix" | "range" => Some(ReadShape::SingleRange),
            other => ReadShape::ALL.into_iter().find(|s| s.name() == other),
        }
    }

    /// A few words for people ("a single prefix or range scan").
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            ReadShape::Point => "a point read of one row key",
            ReadShape::SingleRange => "a single prefix or range scan",
            ReadShape::MultiRange => "a scan of several ranges",
            ReadShape::FullScan => "a full table scan with a filter",
        }
    }
}

/// The shape of a read of these normalised ranges (see
/// [`RowSet::normalize`](crate::RowSet::normalize)): no range or one key
/// is a point read; the whole table is a full scan, unless a rows limit
/// without a filter stops it early (then it reads like a range); one
/// range is a single range scan; more are a multi-range scan.
#[must_use]
pub fn shape_of(ranges: &[KeyRange], filtered: bool, rows_limit: i64) -> ReadShape {
    match ranges {
        [] => ReadShape::Point,
        [r] if r.start.is_empty() && r.end.is_none() => {
            if rows_limit > 0 && !filtered {
                ReadShape::SingleRange
            } else {
                ReadShape::FullScan
            }
        }
        [r] if r.is_single_key() => ReadShape::Point,
        [_] => ReadShape::SingleRange,
        _ => ReadShape::MultiRange,
    }
}

/// Which data operation a trace describes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Operation {
    /// ReadRows.
    #[default]
    ReadRows,
    /// MutateRow.
    MutateRow,
    /// MutateRows.
    MutateRows,
    /// CheckAndMutateRow.
    CheckAndMutateRow,
    /// ReadModifyWriteRow.
    ReadModifyWriteRow,
    /// DropRowRange.
    DropRowRange,
    /// SampleRowKeys.
    SampleRowKeys,
}

impl Operation {
    /// The RPC's name, as Bigtable spells it (`ReadRows`, ...).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Operation::ReadRows => "ReadRows",
            Operation::MutateRow => "MutateRow",
            Operation::MutateRows => "MutateRows",
            Operation::CheckAndMutateRow => "CheckAndMutateRow",
            Operation::ReadModifyWriteRow => "ReadModifyWriteRow",
            Operation::DropRowRange => "DropRowRange",
            Operation::SampleRowKeys => "SampleRowKeys",
        }
    }

    /// Whether the operation may change data.
    #[must_use]
    pub fn writes(self) -> bool {
        !matches!(self, Operation::ReadRows | Operation::SampleRowKeys)
    }
}

/// What a read request asked for, as the engine read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestShape {
    /// Row keys the request named (point reads).
    pub row_keys: usize,
    /// Row ranges the request named.
    pub row_ranges: usize,
    /// The row set as sorted, disjoint half-open ranges: what the engine
    /// read (one range per key for point reads; `[start, end)` of the
    /// whole table for a full scan).
    pub ranges: Vec<KeyRange>,
    /// Whether a filter decided which rows or cells came back.
    pub filtered: bool,
    /// Whether the read ran in descending key order.
    pub reversed: bool,
    /// The rows limit (0: none).
    pub rows_limit: i64,
}

impl RequestShape {
    /// How the read reached its rows ([`shape_of`] its ranges).
    #[must_use]
    pub fn shape(&self) -> ReadShape {
        shape_of(&self.ranges, self.filtered, self.rows_limit)
    }

    /// Whether the read covered the whole table.
    #[must_use]
    pub fn is_full_table(&self) -> bool {
        matches!(self.ranges.as_slice(), [r] if r.start.is_empty() && r.end.is_none())
    }
}

/// What an operation wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Rows written (a MutateRows entry that failed writes none).
    pub rows: u64,
    /// Mutations applied (sets, increments, deletes).
    pub mutations: u64,
    /// Cells written, with their bytes counted as stored data is (row
    /// key, family, qualifier, an 8-byte timestamp and the value).
    pub cells: u64,
    /// Bytes of the cells written.
    pub bytes: u64,
    /// The keys of the rows written, in order, when
    /// [`TraceOptions::written_keys`] asked for them.
    pub keys: Vec<Vec<u8>>,
    /// The key range a DropRowRange deleted.
    pub dropped: Option<KeyRange>,
    /// MutateRows entries that failed (and wrote nothing).
    pub failed_entries: u64,
}

/// The opt-in parts of a trace: the lists that grow with the rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceOptions {
    /// Keep the key of every row written ([`WriteStats::keys`]).
    pub written_keys: bool,
    /// Keep the keys of the first this many rows returned
    /// ([`Trace::returned_keys`]); 0 keeps none.
    pub returned_keys: usize,
}

/// What one data operation did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// What to record beyond the counts (kept across operations).
    pub options: TraceOptions,
    /// The operation.
    pub operation: Operation,
    /// The table (or materialized view) id.
    pub table: String,
    /// For reads: what the request asked for. CheckAndMutateRow and
    /// ReadModifyWriteRow read their one row as a point read.
    pub request: RequestShape,
    /// Rows and cells seen and returned, their bytes, and the ids of the
    /// tablets visited in visit order. SampleRowKeys visits every tablet.
    pub read: ReadStats,
    /// How many tablets the table had when the operation ran.
    pub tablet_count: usize,
    /// Keys of the rows returned, in order, up to
    /// [`TraceOptions::returned_keys`].
    pub returned_keys: Vec<Vec<u8>>,
    /// Whether `returned_keys` holds every returned key.
    pub returned_keys_complete: bool,
    /// What the operation wrote.
    pub write: WriteStats,
    /// For CheckAndMutateRow: whether the predicate matched.
    pub predicate_matched: Option<bool>,
}

impl Trace {
    /// An empty trace that records what `options` ask for.
    #[must_use]
    pub fn new(options: TraceOptions) -> Trace {
        Trace {
            options,
            ..Trace::default()
        }
    }

    /// Starts recording `operation` on `table`, forgetting what an earlier
    /// operation left (the options stay).
    #[inline(never)]
    pub fn begin(&mut self, operation: Operation, table: &str) {
        let options = self.options;
        *self = Trace {
            options,
            operation,
            table: table.to_string(),
            returned_keys_complete: true,
            ..Trace::default()
        };
    }

    /// Whether this is a read (ReadRows).
    #[must_use]
    pub fn is_read(&self) -> bool {
        self.operation == Operation::ReadRows
    }

    /// The distinct tablets visited, in ascending id order.
    #[must_use]
    pub fn distinct_tablets(&self) -> Vec<u64> {
        let mut ids = self.read.tablets.clone();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Records a row returned to the caller (its key, when asked for).
    pub(crate) fn note_returned(&mut self, key: &[u8]) {
        if self.returned_keys.len() < self.options.returned_keys {
            self.returned_keys.push(key.to_vec());
        } else {
            self.returned_keys_complete = false;
        }
    }

    /// Records a row written with `mutations` (`cells` of them writing
    /// `bytes`).
    pub(crate) fn note_written(&mut self, key: &[u8], mutations: usize, cells: u64, bytes: u64) {
        self.write.rows += 1;
        self.write.mutations += mutations as u64;
        self.write.cells += cells;
        self.write.bytes += bytes;
        if self.options.written_keys {
            self.write.keys.push(key.to_vec());
        }
    }
}

/// The traces of the operations one request made, oldest first.
///
/// ```
/// use tabletop_store::*;
///
/// let mut db = Instance::default();
/// let mut schema = TableSchema::default();
/// schema.families.insert("cf".into(), ColumnFamily::default());
/// db.create_table(CreateTableRequest { table_id: "t".into(), schema, initial_splits: vec![] })?;
/// let mut traces = Traces::new(TraceOptions::default());
/// traces.record(|t| db.mutate_row_traced("t", b"r1", &[Mutation::set_cell("cf", b"q", 1000, b"v")], t))?;
/// let mut rows = CountRows::default();
/// traces.record(|t| db.read_rows_traced("t", &ReadRowsRequest::default(), &mut rows, t))?;
/// assert_eq!(traces.as_slice()[0].write.cells, 1);
/// assert_eq!(traces.last_read().map(|t| t.read.rows_returned), Some(1));
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traces {
    on: bool,
    options: TraceOptions,
    list: Vec<Trace>,
}

impl Traces {
    /// Records every operation, with these options.
    #[must_use]
    pub fn new(options: TraceOptions) -> Traces {
        Traces {
            on: true,
            options,
            list: Vec::new(),
        }
    }

    /// Records nothing: operations run untraced, at no cost.
    #[must_use]
    pub fn off() -> Traces {
        Traces::default()
    }

    /// Whether operations are recorded.
    #[must_use]
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Runs one operation, giving it a trace to fill when recording, and
    /// keeps the trace if the operation succeeded.
    pub fn record<T>(&mut self, op: impl FnOnce(Option<&mut Trace>) -> Result<T>) -> Result<T> {
        let Some(mut trace) = self.start() else {
            return op(None);
        };
        let result = op(Some(&mut trace));
        self.keep(trace, result.is_ok());
        result
    }

    /// Keeps `trace` if its operation succeeded. Out of line: the callers
    /// of [`Traces::record`] are many and generic, and this is the same
    /// for all of them.
    #[inline(never)]
    fn keep(&mut self, trace: Trace, succeeded: bool) {
        if succeeded {
            self.list.push(trace);
        }
    }

    /// A fresh trace with these traces' options, when recording: for an
    /// operation that may turn out to do nothing worth recording (hand it
    /// to [`Traces::push`] if it did).
    #[must_use]
    #[inline(never)]
    pub fn start(&self) -> Option<Trace> {
        self.on.then(|| Trace::new(self.options))
    }

    /// Adds a trace made elsewhere (nothing when not recording).
    pub fn push(&mut self, trace: Trace) {
        if self.on {
            self.list.push(trace);
        }
    }

    /// The traces, oldest first.
    #[must_use]
    pub fn as_slice(&self) -> &[Trace] {
        &self.list
    }

    /// The traces, oldest first, taken out.
    #[must_use]
    pub fn into_vec(self) -> Vec<Trace> {
        self.list
    }

    /// The last read (ReadRows) among them.
    #[must_use]
    pub fn last_read(&self) -> Option<&Trace> {
        self.list.iter().rev().find(|t| t.is_read())
    }

    /// Whether nothing was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::row_set::RowSet;

    #[test]
    fn shapes() {
        let all = [KeyRange::all()];
        assert_eq!(shape_of(&all, true, 0), ReadShape::FullScan);
        assert_eq!(shape_of(&all, false, 10), ReadShape::SingleRange);
        let one = RowSet::single(b"k".to_vec()).normalize().unwrap();
        assert_eq!(shape_of(&one, false, 0), ReadShape::Point);
        let two = RowSet {
            row_keys: vec![b"a".to_vec(), b"c".to_vec()],
            row_ranges: vec![],
        }
        .normalize()
        .unwrap();
        assert_eq!(shape_of(&two, false, 0), ReadShape::MultiRange);
    }
}
