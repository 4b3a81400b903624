//! What reads hand back: borrowed row views for streaming consumers, owned
//! rows for everyone else, and statistics about what a read touched.
//!
//! A read calls [`RowSink::accept`] once per returned row with a
//! [`RowView`] that borrows the engine's storage: nothing is copied unless
//! the sink copies it.

/// One cell of a returned row, borrowed from the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellView<'a> {
    /// Column family name.
    pub family: &'a str,
    /// Column qualifier.
    pub qualifier: &'a [u8],
    /// Timestamp in microseconds.
    pub timestamp_micros: i64,
    /// The value (empty when a `strip_value_transformer` applied).
    pub value: &'a [u8],
    /// The label an `apply_label_transformer` attached, if any.
    pub label: Option<&'a str>,
    /// Whether the family's GC rule already allows collecting this version:
    /// it is still visible only because GC is lazy and has not run yet.
    pub gc_eligible: bool,
}

impl<'a> CellView<'a> {
    /// A cell as written: no label, not yet collectable by GC (what
    /// tests and printers that make rows of their own start from).
    #[must_use]
    pub fn plain(
        family: &'a str,
        qualifier: &'a [u8],
        timestamp_micros: i64,
        value: &'a [u8],
    ) -> Self {
        CellView {
            family,
            qualifier,
            timestamp_micros,
            value,
            label: None,
            gc_eligible: false,
        }
    }
}

/// One returned row: its key and its cells, ordered by family name, then
/// qualifier, then timestamp (newest first).
#[derive(Clone, Copy, Debug)]
pub struct RowView<'a> {
    /// The row key.
    pub key: &'a [u8],
    /// The cells.
    pub cells: &'a [CellView<'a>],
}

impl RowView<'_> {
    /// Copies the row into owned memory.
    #[must_use]
    pub fn to_owned_row(&self) -> OwnedRow {
        OwnedRow {
            key: self.key.to_vec(),
            cells: self.cells.iter().map(OwnedCell::from_view).collect(),
        }
    }
}

/// Receives the rows of a read, in order.
pub trait RowSink {
    /// Takes one row; return `false` to stop the read early.
    fn accept(&mut self, row: RowView<'_>) -> bool;
}

impl<F: FnMut(RowView<'_>) -> bool> RowSink for F {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        self(row)
    }
}

/// An owned cell.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OwnedCell {
    /// Column family name.
    pub family: String,
    /// Column qualifier.
    pub qualifier: Vec<u8>,
    /// Timestamp in microseconds.
    pub timestamp_micros: i64,
    /// The value.
    pub value: Vec<u8>,
    /// Labels attached by filters (Bigtable allows at most one per cell).
    pub labels: Vec<String>,
    /// See [`CellView::gc_eligible`].
    pub gc_eligible: bool,
}

impl OwnedCell {
    /// Copies a borrowed cell.
    #[must_use]
    pub fn from_view(c: &CellView<'_>) -> OwnedCell {
        OwnedCell {
            family: c.family.to_string(),
            qualifier: c.qualifier.to_vec(),
            timestamp_micros: c.timestamp_micros,
            value: c.value.to_vec(),
            labels: c.label.map(|l| vec![l.to_string()]).unwrap_or_default(),
            gc_eligible: c.gc_eligible,
        }
    }
}

/// An owned row.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OwnedRow {
    /// The row key.
    pub key: Vec<u8>,
    /// The cells, in read order.
    pub cells: Vec<OwnedCell>,
}

/// A sink that copies every row into a `Vec`.
#[derive(Clone, Debug, Default)]
pub struct CollectRows {
    /// The rows received so far.
    pub rows: Vec<OwnedRow>,
}

impl RowSink for CollectRows {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        self.rows.push(row.to_owned_row());
        true
    }
}

/// A sink that only counts rows and cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountRows {
    /// Rows received.
    pub rows: u64,
    /// Cells received.
    pub cells: u64,
}

impl RowSink for CountRows {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        self.rows += 1;
        self.cells += row.cells.len() as u64;
        true
    }
}

/// What a read cost: how much it scanned compared with how much it returned,
/// and which tablets it visited. A prefix read scans about what it returns;
/// a filter-only read scans the whole table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// Rows the engine visited (after merging runs, before filtering).
    pub rows_seen: u64,
    /// Cells the engine visited.
    pub cells_seen: u64,
    /// Rows handed to the sink.
    pub rows_returned: u64,
    /// Cells handed to the sink.
    pub cells_returned: u64,
    /// Bytes (key + family + qualifier + timestamp + value) of the cells seen.
    pub bytes_seen: u64,
    /// Bytes of the cells returned.
    pub bytes_returned: u64,
    /// Ids of the tablets whose key range the read visited, in visit order.
    pub tablets: Vec<u64>,
}

impl ReadStats {
    /// Adds another read's statistics to this one.
    pub fn add(&mut self, other: &ReadStats) {
        self.rows_seen += other.rows_seen;
        self.cells_seen += other.cells_seen;
        self.rows_returned += other.rows_returned;
        self.cells_returned += other.cells_returned;
        self.bytes_seen += other.bytes_seen;
        self.bytes_returned += other.bytes_returned;
        self.tablets.extend_from_slice(&other.tablets);
    }
}

/// The bytes one cell accounts for: row key, family, qualifier, an 8-byte
/// timestamp and the value (what Bigtable bills as stored data, roughly).
#[must_use]
pub fn cell_bytes(
    row_key_len: usize,
    family_len: usize,
    qualifier_len: usize,
    value_len: usize,
) -> u64 {
    (row_key_len + family_len + qualifier_len + 8 + value_len) as u64
}
