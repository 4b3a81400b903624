//! The rows panel's slice of the state: which table, where in it the panel
//! is scrolled (a row position), and the window of rows on screen.
//!
//! Only the visible rows are read from the core. A sparse [`RowIndex`]
//! (the key of every 64th row) maps a position to a key to start reading
//! at, so a scrollbar over a million rows needs neither a million DOM
//! nodes nor a million reads. The index lives in a [`RowIndexer`] that
//! every revision of the state shares (like the instance), and is rebuilt
//! in slices after data changes; until then the old one still leads to real
//! rows.

use std::collections::BTreeSet;
use std::rc::Rc;

use tabletop_core::inspect::{DEFAULT_STRIDE, RowIndex, read_window};
use tabletop_core::{CollectRows, Instance, ReadRowsRequest};

use super::Action;

use crate::view_model::rows::{
    CELL_LINE_PX, FamilyTypes, KEY_LINE_PX, ROW_PAD_PX, RowLine, fit_rows, max_rows_visible,
    row_line, stacked_at,
};

/// The rows panel's visible area, in CSS pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Viewport {
    /// Height of the area rows are drawn in.
    pub height_px: u32,
    /// Width of the panel's scrolling area (with its scrollbar, so it does
    /// not change with the rows drawn).
    pub width_px: u32,
}

/// Runs `f` with the instance's traffic recording off: the playground
/// looking at a table (the rows on screen, the index behind the
/// scrollbar) is not the person's traffic, and would otherwise light up
/// the live Key Visualizer with reads nobody asked for.
pub(crate) fn quietly<T>(instance: &mut Instance, f: impl FnOnce(&mut Instance) -> T) -> T {
    let was = instance.records_traffic();
    instance.set_traffic_recording(false);
    let out = f(instance);
    instance.set_traffic_recording(was);
    out
}

/// Rows one slice of index building reads at most before checking the
/// time budget.
pub const INDEX_SLICE_ROWS: u64 = 20_000;

/// The row index of the selected table, kept across state revisions.
#[derive(Debug, Default)]
pub struct RowIndexer {
    /// The table indexed.
    table: Option<String>,
    /// The index positions come from: complete, or still being built for
    /// the first time.
    index: Option<RowIndex>,
    /// The data revision `index` describes.
    index_rev: u64,
    /// A fresh index being built after the data changed, and its revision.
    rebuild: Option<(RowIndex, u64)>,
    /// The index could not be built (the table is gone).
    error: Option<String>,
}

/// What the panel needs to know about the index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexStatus {
    /// Rows in the table, as far as the index knows.
    pub rows: u64,
    /// Whether `rows` is final (complete and fresh).
    pub exact: bool,
    /// Why the index could not be built.
    pub error: Option<String>,
}

impl RowIndexer {
    /// Starts over for `table`.
    pub fn select(&mut self, table: Option<&str>) {
        if self.table.as_deref() != table {
            *self = RowIndexer {
                table: table.map(str::to_string),
                ..RowIndexer::default()
            };
        }
    }

    /// The index's state for the panel.
    pub fn status(&self) -> IndexStatus {
        IndexStatus {
            rows: self.index.as_ref().map_or(0, RowIndex::rows),
            exact: self.index.as_ref().is_some_and(RowIndex::is_complete) && self.rebuild.is_none(),
            error: self.error.clone(),
        }
    }

    /// Whether the index needs work for data revision `data_rev`.
    pub fn pending(&self, data_rev: u64) -> bool {
        self.table.is_some()
            && self.error.is_none()
            && !(self.index_rev == data_rev
                && self.index.as_ref().is_some_and(RowIndex::is_complete))
    }

    /// Builds the index for `data_rev` a slice at a time until it is done
    /// or `out_of_time` says stop. Returns whether it is done.
    pub fn work(
        &mut self,
        instance: &mut Instance,
        data_rev: u64,
        out_of_time: &mut dyn FnMut() -> bool,
    ) -> bool {
        quietly(instance, |db| self.work_recorded(db, data_rev, out_of_time))
    }

    fn work_recorded(
        &mut self,
        instance: &mut Instance,
        data_rev: u64,
        out_of_time: &mut dyn FnMut() -> bool,
    ) -> bool {
        let Some(table) = self.table.clone() else {
            return true;
        };
        while self.pending(data_rev) {
            let result = match &mut self.index {
                // Nothing usable yet: build in place, so rows show at once.
                None => {
                    self.index = Some(RowIndex::new(DEFAULT_STRIDE));
                    self.index_rev = data_rev;
                    self.rebuild = None;
                    continue;
                }
                // Finishing the index in use (its first build).
                Some(index) if self.index_rev == data_rev => {
                    index.step(instance, &table, INDEX_SLICE_ROWS)
                }
                Some(_) => {
                    if self
                        .rebuild
                        .as_ref()
                        .is_none_or(|(_, rev)| *rev != data_rev)
                    {
                        self.rebuild = Some((RowIndex::new(DEFAULT_STRIDE), data_rev));
                    }
                    let (next, _) = self.rebuild.as_mut().expect("set just above");
                    let result = next.step(instance, &table, INDEX_SLICE_ROWS);
                    if matches!(result, Ok(true)) {
                        let (next, rev) = self.rebuild.take().expect("set just above");
                        self.index = Some(next);
                        self.index_rev = rev;
                    }
                    result
                }
            };
            if let Err(e) = result {
                self.error = Some(e.to_string());
                self.rebuild = None;
                return true;
            }
            if out_of_time() {
                break;
            }
        }
        !self.pending(data_rev)
    }

    /// Where to start reading for row position `top`: a key and how many
    /// rows after it to skip.
    fn anchor(&self, top: u64) -> (Vec<u8>, u64) {
        match self.index.as_ref().and_then(|i| i.anchor(top)) {
            Some((key, skip)) => (key.to_vec(), skip),
            None => (Vec::new(), 0),
        }
    }

    /// The position of the first row at or after `key`.
    fn position(&self, instance: &mut Instance, key: &[u8]) -> Result<u64, String> {
        let (Some(table), Some(index)) = (&self.table, &self.index) else {
            return Ok(0);
        };
        index
            .position(instance, table, key)
            .map_err(|e| e.to_string())
    }
}

/// The rows on screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowsWindow {
    /// The table read.
    pub table: String,
    /// Position of the first line's row.
    pub first_row: u64,
    /// The rows that fit, in key order.
    pub lines: Vec<RowLine>,
    /// Why the read failed, if it did.
    pub error: Option<String>,
    /// Rows the read looked at (skipped ones included).
    pub rows_seen: u64,
    /// Cells the read looked at.
    pub cells_seen: u64,
    /// Tablets the read visited.
    pub tablets: Vec<u64>,
}

/// The rows panel's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowsState {
    /// The table shown.
    pub table: Option<String>,
    /// The row index's state.
    pub index: IndexStatus,
    /// Position of the first visible row.
    pub top: u64,
    /// Height of the visible area, in CSS pixels.
    pub viewport_px: u32,
    /// Whether the panel is narrow, so each cell takes two lines.
    pub stacked: bool,
    /// Rows whose cells are all drawn.
    pub expanded: BTreeSet<Vec<u8>>,
    /// What is on screen.
    pub window: Rc<RowsWindow>,
    /// The window as it was before a compaction, drawn fading out for a
    /// moment, with an id so the timer that ends it ends only this one.
    pub ghost: Option<(u64, Rc<RowsWindow>)>,
}

impl Default for RowsState {
    fn default() -> Self {
        RowsState {
            table: None,
            index: IndexStatus::default(),
            top: 0,
            viewport_px: 600,
            stacked: false,
            expanded: BTreeSet::new(),
            window: Rc::default(),
            ghost: None,
        }
    }
}

impl RowsState {
    /// Shows `table` from its first row.
    pub fn select(&mut self, indexer: &mut RowIndexer, table: Option<String>) {
        indexer.select(table.as_deref());
        if self.table != table {
            *self = RowsState {
                table,
                viewport_px: self.viewport_px,
                stacked: self.stacked,
                ..RowsState::default()
            };
        }
        self.index = indexer.status();
    }

    /// Takes the panel's new size; returns whether anything changed (then
    /// the rows need reading again).
    pub fn set_viewport(&mut self, viewport: Viewport) -> bool {
        let height = viewport.height_px.max(1);
        let stacked = stacked_at(viewport.width_px);
        if (self.viewport_px, self.stacked) == (height, stacked) {
            return false;
        }
        self.viewport_px = height;
        self.stacked = stacked;
        true
    }

    /// Whether [`RowsState::set_viewport`] would change anything.
    pub fn viewport_differs(&self, viewport: Viewport) -> bool {
        (self.viewport_px, self.stacked)
            != (viewport.height_px.max(1), stacked_at(viewport.width_px))
    }

    /// A row as this panel draws it.
    fn line(&self, row: &tabletop_core::OwnedRow, types: &FamilyTypes) -> RowLine {
        row_line(row, types, self.expanded.contains(&row.key)).with_stacked(self.stacked)
    }

    /// Rows in the table, as far as the index knows.
    pub fn total_rows(&self) -> u64 {
        self.index.rows
    }

    /// The largest top position: from there on the panel shows the last
    /// rows of the table, fitted from the bottom. It leaves room for as
    /// many rows as could fit if every row were as short as possible, so it
    /// does not move while rows of other heights scroll by.
    pub fn max_top(&self) -> u64 {
        let shortest = u64::from(ROW_PAD_PX + KEY_LINE_PX + CELL_LINE_PX);
        let fit = (u64::from(self.viewport_px) / shortest).max(1);
        self.total_rows().saturating_sub(fit)
    }

    /// Reads the rows visible from `top` from the core.
    pub fn read(&mut self, instance: &mut Instance, indexer: &RowIndexer) {
        quietly(instance, |db| self.read_recorded(db, indexer));
    }

    fn read_recorded(&mut self, instance: &mut Instance, indexer: &RowIndexer) {
        self.index = indexer.status();
        let Some(table) = self.table.clone() else {
            self.window = Rc::default();
            return;
        };
        let types: FamilyTypes = match instance.get_table(&table) {
            Ok(info) => info
                .schema
                .families
                .iter()
                .map(|(name, f)| (name.clone(), f.value_type))
                .collect(),
            Err(e) => {
                self.window = Rc::new(RowsWindow {
                    table,
                    error: Some(e.to_string()),
                    ..RowsWindow::default()
                });
                return;
            }
        };
        let count = max_rows_visible(self.viewport_px);
        let total = self.total_rows();
        let mut window = if self.top > 0 && self.top >= self.max_top() {
            self.read_tail(instance, &table, count, total, &types)
        } else {
            self.read_at(instance, indexer, &table, self.top, count, &types)
        };
        if window.lines.is_empty() && self.top > 0 && window.error.is_none() {
            // The index is behind the data (rows were deleted): start over.
            self.top = 0;
            window = self.read_at(instance, indexer, &table, 0, count, &types);
        }
        self.window = Rc::new(window);
    }

    /// The last rows of the table that fit, read backwards from the end.
    fn read_tail(
        &self,
        instance: &mut Instance,
        table: &str,
        count: u64,
        total: u64,
        types: &FamilyTypes,
    ) -> RowsWindow {
        let request = ReadRowsRequest {
            reversed: true,
            rows_limit: i64::try_from(count).unwrap_or(i64::MAX),
            ..ReadRowsRequest::default()
        };
        let mut rows = CollectRows::default();
        match instance.read_rows(table, &request, &mut rows) {
            Ok(stats) => {
                let mut lines = Vec::new();
                let mut used = 0u32;
                for row in &rows.rows {
                    let line = self.line(row, types);
                    if used >= self.viewport_px && !lines.is_empty() {
                        break;
                    }
                    used = used.saturating_add(line.height_px());
                    lines.push(line);
                }
                // Only whole rows at the bottom: drop the one cut off at the top.
                if used > self.viewport_px && lines.len() > 1 {
                    lines.pop();
                }
                lines.reverse();
                RowsWindow {
                    table: table.to_string(),
                    first_row: total.saturating_sub(lines.len() as u64),
                    lines,
                    error: None,
                    rows_seen: stats.rows_seen,
                    cells_seen: stats.cells_seen,
                    tablets: stats.tablets,
                }
            }
            Err(e) => RowsWindow {
                table: table.to_string(),
                error: Some(e.to_string()),
                ..RowsWindow::default()
            },
        }
    }

    fn read_at(
        &self,
        instance: &mut Instance,
        indexer: &RowIndexer,
        table: &str,
        top: u64,
        count: u64,
        types: &FamilyTypes,
    ) -> RowsWindow {
        // Row 0 is the start of the table, whatever a stale index says.
        let (start, skip) = if top == 0 {
            (Vec::new(), 0)
        } else {
            indexer.anchor(top)
        };
        match read_window(instance, table, &start, skip, count) {
            Ok(read) => {
                let lines: Vec<RowLine> =
                    read.rows.iter().map(|row| self.line(row, types)).collect();
                let (lines, _) = fit_rows(lines, self.viewport_px);
                RowsWindow {
                    table: table.to_string(),
                    first_row: top,
                    lines,
                    error: None,
                    rows_seen: read.stats.rows_seen,
                    cells_seen: read.stats.cells_seen,
                    tablets: read.stats.tablets,
                }
            }
            Err(e) => RowsWindow {
                table: table.to_string(),
                error: Some(e.to_string()),
                ..RowsWindow::default()
            },
        }
    }

    /// Applies one of the rows panel's actions (the viewport, scrolling,
    /// going to a key, expanding a row, the end of a fade-out) and reads
    /// the window again when it moved. An error is for the status line.
    pub(crate) fn reduce(
        &mut self,
        action: Action,
        instance: &mut Instance,
        indexer: &RowIndexer,
    ) -> Result<(), String> {
        let mut result = Ok(());
        match action {
            Action::RowsViewport(viewport) => {
                if !self.viewport_differs(viewport) {
                    return Ok(());
                }
                self.set_viewport(viewport);
            }
            Action::ScrollRows(top) => self.scroll_to(top),
            Action::GoToKey(key) => result = self.go_to_key(instance, indexer, &key).map(|_| ()),
            Action::ToggleRow(key) => self.toggle_expanded(key),
            Action::GhostDone(id) => {
                if self.ghost.as_ref().is_some_and(|(g, _)| *g == id) {
                    self.ghost = None;
                }
                return Ok(());
            }
            _ => return Ok(()),
        }
        self.read(instance, indexer);
        result
    }

    /// Moves to the row at position `top` (clamped).
    pub fn scroll_to(&mut self, top: u64) {
        self.top = top.min(self.max_top());
        self.ghost = None;
    }

    /// Moves to the first row at or after `key`; returns its position.
    pub fn go_to_key(
        &mut self,
        instance: &mut Instance,
        indexer: &RowIndexer,
        key: &[u8],
    ) -> Result<u64, String> {
        if self.table.is_none() {
            return Err("no table is selected".into());
        }
        let position = quietly(instance, |db| indexer.position(db, key))?;
        self.top = position.min(self.total_rows().saturating_sub(1));
        self.ghost = None;
        Ok(position)
    }

    /// Draws all cells of the row `key`, or collapses it again.
    pub fn toggle_expanded(&mut self, key: Vec<u8>) {
        if !self.expanded.remove(&key) {
            self.expanded.insert(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use tabletop_core::cbt;

    use super::*;

    fn instance(rows: u32) -> Instance {
        let mut db = Instance::default();
        cbt::run_line(&mut db, "createtable t families=cf").unwrap();
        for i in 0..rows {
            cbt::run_line(&mut db, &format!("set t row{i:05} cf:q=v@1000")).unwrap();
        }
        db
    }

    fn keys(state: &RowsState) -> Vec<String> {
        state
            .window
            .lines
            .iter()
            .map(|l| l.key.text.clone())
            .collect()
    }

    fn shown(db: &mut Instance, table: &str) -> (RowsState, RowIndexer) {
        let mut rows = RowsState::default();
        let mut indexer = RowIndexer::default();
        rows.select(&mut indexer, Some(table.into()));
        assert!(indexer.work(db, 1, &mut || false));
        rows.read(db, &indexer);
        (rows, indexer)
    }

    #[test]
    fn the_window_holds_only_the_rows_that_fit() {
        let mut db = instance(500);
        let mut rows = RowsState::default();
        let mut indexer = RowIndexer::default();
        rows.select(&mut indexer, Some("t".into()));
        rows.viewport_px = 200;
        assert!(indexer.work(&mut db, 1, &mut || false));
        rows.read(&mut db, &indexer);
        assert_eq!(rows.total_rows(), 500);
        assert!(rows.index.exact);
        // Each row is 7 + 24 + 20 = 51 px: three whole rows and one cut off.
        assert_eq!(
            keys(&rows),
            ["row00000", "row00001", "row00002", "row00003"]
        );
        rows.scroll_to(250);
        rows.read(&mut db, &indexer);
        assert_eq!(keys(&rows)[0], "row00250");
        assert_eq!(rows.window.first_row, 250);
        assert!(rows.window.rows_seen <= 64 + 6, "{}", rows.window.rows_seen);
        rows.scroll_to(10_000);
        assert_eq!(rows.top, rows.max_top());
        rows.read(&mut db, &indexer);
        assert_eq!(keys(&rows).last().map(String::as_str), Some("row00499"));
    }

    #[test]
    fn a_narrow_panel_stacks_cells_and_fits_fewer_rows() {
        let mut db = instance(500);
        let (mut rows, indexer) = shown(&mut db, "t");
        let wide = Viewport {
            height_px: 200,
            width_px: 900,
        };
        assert!(rows.set_viewport(wide));
        assert!(!rows.set_viewport(wide), "the same size changes nothing");
        assert!(!rows.viewport_differs(wide));
        rows.read(&mut db, &indexer);
        assert_eq!(keys(&rows).len(), 4, "51 px rows: three and a cut one");
        let narrow = Viewport {
            height_px: 200,
            width_px: 390,
        };
        assert!(rows.viewport_differs(narrow));
        assert!(rows.set_viewport(narrow));
        rows.read(&mut db, &indexer);
        assert!(rows.stacked);
        assert!(rows.window.lines.iter().all(|l| l.stacked));
        // 7 + 24 + 2 x 20 = 71 px: two whole rows and a cut one.
        assert_eq!(keys(&rows), ["row00000", "row00001", "row00002"]);
        // Choosing another table keeps the panel's size.
        rows.select(&mut RowIndexer::default(), Some("other".into()));
        assert!(rows.stacked);
        assert_eq!(rows.viewport_px, 200);
    }

    #[test]
    fn jumping_to_a_key_and_expanding_rows() {
        let mut db = instance(300);
        let (mut rows, indexer) = shown(&mut db, "t");
        assert_eq!(rows.go_to_key(&mut db, &indexer, b"row00123").unwrap(), 123);
        rows.read(&mut db, &indexer);
        assert_eq!(keys(&rows)[0], "row00123");
        assert_eq!(
            rows.go_to_key(&mut db, &indexer, b"row001225").unwrap(),
            123
        );
        rows.toggle_expanded(b"row00123".to_vec());
        rows.read(&mut db, &indexer);
        assert!(rows.window.lines[0].expanded);
        rows.toggle_expanded(b"row00123".to_vec());
        rows.read(&mut db, &indexer);
        assert!(!rows.window.lines[0].expanded);
    }

    #[test]
    fn the_index_is_rebuilt_in_slices_after_changes() {
        let mut db = instance(100);
        let (mut rows, mut indexer) = shown(&mut db, "t");
        assert_eq!(rows.total_rows(), 100);
        for i in 100..50_000 {
            let key = format!("row{i:05}");
            db.mutate_row(
                "t",
                key.as_bytes(),
                &[tabletop_core::Mutation::set_cell("cf", b"q", 1000, b"v")],
            )
            .unwrap();
        }
        assert!(indexer.pending(2));
        // One slice per call: the old index stays in use meanwhile.
        assert!(!indexer.work(&mut db, 2, &mut || true));
        rows.read(&mut db, &indexer);
        assert_eq!(rows.total_rows(), 100);
        assert!(!rows.index.exact);
        while !indexer.work(&mut db, 2, &mut || true) {}
        rows.read(&mut db, &indexer);
        assert_eq!(rows.total_rows(), 50_000);
        assert!(rows.index.exact);
        assert!(!indexer.pending(2));
    }

    #[test]
    fn deleted_tables_and_emptied_tables_show_sensibly() {
        let mut db = instance(200);
        let (mut rows, mut indexer) = shown(&mut db, "t");
        rows.scroll_to(150);
        cbt::run_line(&mut db, "deleteallrows t").unwrap();
        cbt::run_line(&mut db, "set t a cf:q=v@1000").unwrap();
        rows.read(&mut db, &indexer);
        assert_eq!(rows.top, 0);
        assert_eq!(keys(&rows), ["a"]);
        cbt::run_line(&mut db, "deletetable t").unwrap();
        rows.read(&mut db, &indexer);
        assert!(rows.window.error.as_deref().unwrap().contains("not found"));
        indexer.work(&mut db, 3, &mut || false);
        assert!(indexer.status().error.is_some());
        assert!(!indexer.pending(3));
    }
}
