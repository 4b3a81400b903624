//! Building a [`LiveKeyViz`] in steps: the table's keys are read a slice
//! at a time ([`LiveBuild::step`]), each slice starting just after the
//! last key the one before it read, so that a page can spread the reading
//! of a large table over many frames instead of holding up one of them.
//!
//! What the slices gather (a [`Census`]: every k-th key with the rows and
//! bytes up to the next kept key) depends only on the rows in key order,
//! not on where the slices were cut, so the finished map is the one a
//! single [`LiveKeyViz::build`] of the same table gives. The builder does
//! not watch the table: when its rows change between two steps, the
//! caller starts a new build (the playground does so when its data
//! revision moves). Traffic is read at the last step, so traffic recorded
//! during the reading is on the map.

use super::{LiveKeyViz, LiveOptions};
use tabletop_sql::Instance;
use tabletop_store::{KeyBound, ReadRowsRequest, Result, RowRange, RowSet, RowView, cell_bytes};

/// Keys kept while reading the table, at most (every k-th row beyond).
const MAX_SAMPLED_KEYS: usize = 32_768;

/// The table's keys as read so far: every k-th key with the rows and
/// bytes from it to the next kept key.
#[derive(Clone, Debug, Default)]
pub(super) struct Census {
    pub(super) keys: Vec<Vec<u8>>,
    pub(super) rows: Vec<f64>,
    pub(super) bytes: Vec<f64>,
    every: u64,
    /// Rows read.
    pub(super) seen: u64,
}

impl Census {
    fn new() -> Census {
        Census {
            every: 1,
            ..Census::default()
        }
    }

    /// Counts one more row (rows come in key order); returns its size.
    fn add(&mut self, row: &RowView<'_>) -> u64 {
        let size: u64 = row
            .cells
            .iter()
            .map(|c| {
                cell_bytes(
                    row.key.len(),
                    c.family.len(),
                    c.qualifier.len(),
                    c.value.len(),
                )
            })
            .sum();
        if self.seen.is_multiple_of(self.every) {
            self.keys.push(row.key.to_vec());
            self.rows.push(0.0);
            self.bytes.push(0.0);
        }
        self.seen += 1;
        if let (Some(r), Some(b)) = (self.rows.last_mut(), self.bytes.last_mut()) {
            *r += 1.0;
            *b += size as f64;
        }
        if self.keys.len() >= 2 * MAX_SAMPLED_KEYS {
            self.halve();
        }
        size
    }

    /// Keeps every other key, each standing for the rows of both.
    fn halve(&mut self) {
        let n = self.keys.len() / 2;
        for i in 0..n {
            self.keys.swap(i, 2 * i);
            let (r, b) = (
                self.rows[2 * i] + self.rows.get(2 * i + 1).copied().unwrap_or(0.0),
                self.bytes[2 * i] + self.bytes.get(2 * i + 1).copied().unwrap_or(0.0),
            );
            self.rows[i] = r;
            self.bytes[i] = b;
        }
        self.keys.truncate(n);
        self.rows.truncate(n);
        self.bytes.truncate(n);
        self.every *= 2;
    }
}

/// A [`LiveKeyViz`] under construction: see the module's documentation.
#[derive(Debug)]
pub struct LiveBuild {
    table: String,
    opts: LiveOptions,
    census: Census,
    /// The last key read (`None`: nothing read yet).
    after: Option<Vec<u8>>,
    /// Cells read so far.
    cells: u64,
    /// Bytes of the rows read so far (as [`cell_bytes`] counts them).
    bytes: u64,
    /// Every row has been read.
    read_all: bool,
}

impl LiveBuild {
    /// A build of `table`'s live Key Visualizer that has read nothing yet.
    #[must_use]
    pub fn new(table: &str, opts: &LiveOptions) -> LiveBuild {
        LiveBuild {
            table: table.to_string(),
            opts: *opts,
            census: Census::new(),
            after: None,
            cells: 0,
            bytes: 0,
            read_all: false,
        }
    }

    /// The table being read.
    #[must_use]
    pub fn table(&self) -> &str {
        &self.table
    }

    /// Rows read so far.
    #[must_use]
    pub fn rows_read(&self) -> u64 {
        self.census.seen
    }

    /// Cells read so far (what a step's budget counts).
    #[must_use]
    pub fn cells_read(&self) -> u64 {
        self.cells
    }

    /// Bytes of the rows read so far, counted as the store counts a
    /// table's logical size: with the table's size, how far the reading
    /// has come.
    #[must_use]
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// Whether every row has been read (the next step lays the traffic
    /// over the keys and finishes).
    #[must_use]
    pub fn has_read_all(&self) -> bool {
        self.read_all
    }

    /// One step: reads rows (not counted as traffic) until about
    /// `cell_budget` cells were read (always at least one row, and whole
    /// rows), or, once every row was read, lays the traffic recorded now
    /// over the keys and returns the finished map. A budget of
    /// `u64::MAX` reads the rest of the table in one step.
    ///
    /// # Errors
    ///
    /// When the table no longer exists.
    pub fn step(&mut self, db: &mut Instance, cell_budget: u64) -> Result<Option<LiveKeyViz>> {
        if self.read_all {
            return LiveKeyViz::from_census(db, &self.table, &self.census, &self.opts).map(Some);
        }
        self.read(db, cell_budget.max(1))?;
        Ok(None)
    }

    /// Reads the rows after the last one read until the budget is spent.
    fn read(&mut self, db: &mut Instance, cell_budget: u64) -> Result<()> {
        let rows = match self.after.take() {
            None => RowSet::all(),
            Some(last) => RowSet::range(RowRange {
                start: KeyBound::Open(last),
                end: KeyBound::Unbounded,
            }),
        };
        let req = ReadRowsRequest::rows(rows);
        let start_cells = self.cells;
        let mut out_of_budget = false;
        let mut last: Option<Vec<u8>> = None;
        let census = &mut self.census;
        let cells = &mut self.cells;
        let bytes = &mut self.bytes;
        let mut sink = |row: RowView<'_>| {
            *bytes += census.add(&row);
            *cells += row.cells.len() as u64;
            if *cells - start_cells >= cell_budget {
                out_of_budget = true;
                last = Some(row.key.to_vec());
                return false;
            }
            true
        };
        db.read_rows_unrecorded(&self.table, &req, &mut sink)?;
        self.read_all = !out_of_budget;
        self.after = last;
        Ok(())
    }

    /// Runs the build to its end in as few steps as it takes.
    ///
    /// # Errors
    ///
    /// When the table does not exist.
    pub fn finish(mut self, db: &mut Instance) -> Result<LiveKeyViz> {
        loop {
            if let Some(live) = self.step(db, u64::MAX)? {
                return Ok(live);
            }
        }
    }
}
