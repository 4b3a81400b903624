//! Read-only views of an instance for user interfaces: finding a row by its
//! position in a table of millions ([`RowIndex`]), reading a window of
//! rows there ([`read_window`]), and telling which tablets a read would
//! visit ([`tablets_visited`]).
//!
//! Nothing here changes data or the clock. The functions take any
//! [`RowReader`] (the store's [`Instance`](crate::Instance) or an instance
//! built on it) by `&mut` only because ReadRows does (a read first sorts
//! memtable tails); they use nothing but its public API.
//!
//! ```
//! use tabletop_store::{inspect::{RowIndex, read_window}, *};
//!
//! let mut db = Instance::default();
//! let mut schema = TableSchema::default();
//! schema.families.insert("cf".into(), ColumnFamily::default());
//! db.create_table(CreateTableRequest { table_id: "t".into(), schema, initial_splits: vec![] })?;
//! for i in 0..1000 {
//!     db.mutate_row("t", format!("row{i:04}").as_bytes(), &[Mutation::set_cell("cf", b"q", 1000, b"v")])?;
//! }
//! let index = RowIndex::build(&mut db, "t", 64)?;
//! assert_eq!(index.rows(), 1000);
//! // The rows at positions 500..505, reading only from the nearest indexed key.
//! let (anchor, skip) = index.anchor(500).expect("the table has rows");
//! let window = read_window(&mut db, "t", anchor, skip, 5)?;
//! assert_eq!(window.rows[0].key, b"row0500");
//! assert_eq!(index.position(&mut db, "t", b"row0500")?, 500);
//! # Ok::<(), Error>(())
//! ```

use crate::error::Result;
use crate::instance::{Instance, ReadRowsRequest, RowReader};
use crate::row::{OwnedRow, ReadStats, RowView};
use crate::row_set::{KeyBound, RowRange, RowSet, successor};

/// How many rows apart [`RowIndex`] remembers keys by default: small enough
/// that reaching any position reads at most 63 extra rows, large enough that
/// a million rows need only 15,625 keys.
pub const DEFAULT_STRIDE: u64 = 64;

/// A sparse index of one table's rows by position: the key of every
/// `stride`-th row, in key order. Built by scanning the table, all at once
/// ([`RowIndex::build`]) or a slice at a time ([`RowIndex::step`]), so a
/// user interface can map a scrollbar to row positions without reading the
/// rows in between.
///
/// The index describes the table as it was when scanned: after writes it is
/// stale (anchors still lead to real rows, but positions drift) until it is
/// rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowIndex {
    /// Rows between two remembered keys (at least 1).
    stride: u64,
    /// `keys[i]` is the key of row `i * stride`; ascending.
    keys: Vec<Vec<u8>>,
    /// Rows scanned so far.
    rows: u64,
    /// Where the next [`RowIndex::step`] starts reading (`None`: at the
    /// first row, or nowhere once complete).
    resume: Option<Vec<u8>>,
    /// Whether the scan reached the end of the table.
    complete: bool,
}

impl RowIndex {
    /// An empty index that has scanned nothing yet. `stride` 0 counts as 1.
    #[must_use]
    pub fn new(stride: u64) -> RowIndex {
        RowIndex {
            stride: stride.max(1),
            keys: Vec::new(),
            rows: 0,
            resume: None,
            complete: false,
        }
    }

    /// Scans the whole table and returns its index.
    pub fn build<R: RowReader + ?Sized>(
        instance: &mut R,
        table_id: &str,
        stride: u64,
    ) -> Result<RowIndex> {
        let mut index = RowIndex::new(stride);
        while !index.step(instance, table_id, u64::MAX)? {}
        Ok(index)
    }

    /// Scans up to `max_rows` more rows (at least one) and returns whether
    /// the scan is complete. A complete index does nothing more.
    pub fn step<R: RowReader + ?Sized>(
        &mut self,
        instance: &mut R,
        table_id: &str,
        max_rows: u64,
    ) -> Result<bool> {
        if self.complete {
            return Ok(true);
        }
        let max_rows = max_rows.clamp(1, i64::MAX as u64);
        let request = ReadRowsRequest {
            rows: match &self.resume {
                None => RowSet::all(),
                Some(start) => RowSet::range(RowRange {
                    start: KeyBound::Closed(start.clone()),
                    end: KeyBound::Unbounded,
                }),
            },
            // Lossless: clamped to i64::MAX above.
            rows_limit: i64::try_from(max_rows).unwrap_or(i64::MAX),
            ..ReadRowsRequest::default()
        };
        let stride = self.stride;
        let mut rows = self.rows;
        let mut last: Option<Vec<u8>> = None;
        let keys = &mut self.keys;
        let mut seen = 0u64;
        instance.read_rows(table_id, &request, &mut |row: RowView<'_>| {
            if rows.is_multiple_of(stride) {
                keys.push(row.key.to_vec());
            }
            rows += 1;
            seen += 1;
            if seen == max_rows {
                last = Some(row.key.to_vec());
            }
            true
        })?;
        self.rows = rows;
        match last {
            // The limit was reached: there may be more rows after this one.
            Some(key) => self.resume = Some(successor(&key)),
            None => {
                self.resume = None;
                self.complete = true;
            }
        }
        Ok(self.complete)
    }

    /// Whether the whole table has been scanned.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Rows scanned so far: every row of the table once complete.
    #[must_use]
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Rows between two remembered keys.
    #[must_use]
    pub fn stride(&self) -> u64 {
        self.stride
    }

    /// How to reach the row at position `row` (0-based, in key order): the
    /// nearest remembered key at or before it, and how many rows after that
    /// key to skip. Positions past the last scanned row are clamped to it;
    /// `None` when nothing has been scanned (an empty table).
    #[must_use]
    pub fn anchor(&self, row: u64) -> Option<(&[u8], u64)> {
        let row = row.min(self.rows.checked_sub(1)?);
        let slot = usize::try_from(row / self.stride).ok()?;
        let key = self.keys.get(slot)?;
        Some((key.as_slice(), row % self.stride))
    }

    /// The remembered key nearest to `fraction` (0.0 to 1.0) of the way
    /// through the scanned rows, for a scrollbar that only needs to be
    /// close.
    #[must_use]
    pub fn key_at_fraction(&self, fraction: f64) -> Option<&[u8]> {
        if self.keys.is_empty() {
            return None;
        }
        let last = self.keys.len() - 1;
        // Display arithmetic: an index into at most usize::MAX keys.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let slot = (fraction.clamp(0.0, 1.0) * last as f64).round() as usize;
        self.keys.get(slot.min(last)).map(Vec::as_slice)
    }

    /// The position of `key` in the table: how many rows sort before it
    /// (whether or not a row with this key exists). Reads at most about one
    /// stride of rows. Exact while the index is fresh.
    pub fn position<R: RowReader + ?Sized>(
        &self,
        instance: &mut R,
        table_id: &str,
        key: &[u8],
    ) -> Result<u64> {
        let slot = self.keys.partition_point(|k| k.as_slice() <= key);
        let (base, start) = match slot.checked_sub(1) {
            None => (0, Vec::new()),
            Some(s) => (s as u64 * self.stride, self.keys[s].clone()),
        };
        if start.as_slice() == key {
            return Ok(base);
        }
        let request = ReadRowsRequest {
            rows: RowSet::range(RowRange {
                start: KeyBound::Closed(start),
                end: KeyBound::Open(key.to_vec()),
            }),
            ..ReadRowsRequest::default()
        };
        let mut before = 0u64;
        if !key.is_empty() {
            instance.read_rows(table_id, &request, &mut |_: RowView<'_>| {
                before += 1;
                true
            })?;
        }
        Ok(base + before)
    }
}

/// Rows read by [`read_window`] and what the read cost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowWindow {
    /// The rows, in key order.
    pub rows: Vec<OwnedRow>,
    /// The read's statistics, skipped rows included.
    pub stats: ReadStats,
}

/// Reads `count` rows starting `skip` rows after the first row at or after
/// `start` (the anchor a [`RowIndex`] gives), copying only the rows it
/// returns.
pub fn read_window<R: RowReader + ?Sized>(
    instance: &mut R,
    table_id: &str,
    start: &[u8],
    skip: u64,
    count: u64,
) -> Result<RowWindow> {
    let mut rows = Vec::new();
    if count == 0 {
        return Ok(RowWindow::default());
    }
    let limit = skip.saturating_add(count).min(i64::MAX as u64);
    let request = ReadRowsRequest {
        rows: RowSet::range(RowRange {
            start: KeyBound::Closed(start.to_vec()),
            end: KeyBound::Unbounded,
        }),
        rows_limit: i64::try_from(limit).unwrap_or(i64::MAX),
        ..ReadRowsRequest::default()
    };
    let mut n = 0u64;
    let stats = instance.read_rows(table_id, &request, &mut |row: RowView<'_>| {
        if n >= skip {
            rows.push(row.to_owned_row());
        }
        n += 1;
        true
    })?;
    Ok(RowWindow { rows, stats })
}

/// The ids of the tablets a read of `rows` would visit, in visit order, as
/// [`ReadStats::tablets`] lists them, without keeping its rows. A host that
/// runs the read itself has them already, in the read's
/// [`Trace`](crate::Trace) (the console and the lessons take them from
/// there); this is for a read described but not run.
///
/// A read that returned all it could visited every tablet its ranges touch;
/// pass `stopped_after_rows_seen: None` and no row is read. A read that
/// stopped at its rows limit stopped right after the `rows_seen`-th row it
/// looked at (filters decide what is returned, not what is seen): pass
/// `Some(rows_seen)`, and that many rows are read again, unfiltered, to find
/// where it stopped.
pub fn tablets_visited<R: RowReader + ?Sized>(
    instance: &mut R,
    table_id: &str,
    rows: &RowSet,
    reversed: bool,
    stopped_after_rows_seen: Option<u64>,
) -> Result<Vec<u64>> {
    if let Some(seen) = stopped_after_rows_seen {
        let request = ReadRowsRequest {
            rows: rows.clone(),
            rows_limit: i64::try_from(seen.max(1)).unwrap_or(i64::MAX),
            reversed,
            ..ReadRowsRequest::default()
        };
        let stats = instance.read_rows(table_id, &request, &mut |_: RowView<'_>| true)?;
        return Ok(stats.tablets);
    }
    let tablets = instance.tablets(table_id)?;
    let ranges = Instance::key_ranges(rows)?;
    if tablets.is_empty() {
        return Ok(Vec::new());
    }
    let mut visited: Vec<u64> = Vec::new();
    for n in 0..ranges.len() {
        let range = &ranges[if reversed { ranges.len() - 1 - n } else { n }];
        // The engine's routing: the tablet holding the range's start, then
        // every following tablet that starts before the range's end.
        let first = tablets
            .partition_point(|t| t.start_key.as_slice() <= range.start.as_slice())
            .saturating_sub(1);
        let mut last = first;
        while last + 1 < tablets.len()
            && range
                .end
                .as_deref()
                .is_none_or(|end| tablets[last + 1].start_key.as_slice() < end)
        {
            last += 1;
        }
        for k in 0..=(last - first) {
            let id = tablets[if reversed { last - k } else { first + k }].id;
            if visited.last() != Some(&id) {
                visited.push(id);
            }
        }
    }
    Ok(visited)
}
