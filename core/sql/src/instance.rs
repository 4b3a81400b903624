//! [`Instance`] with SQL: the store's tables plus this crate's catalog
//! (row-key schemas and materialized views), kept in step.
//!
//! The store's [`tabletop_store::Instance`] knows tables only and calls
//! nothing above it. This type owns one and the [`Catalog`], and is the
//! one place writes reach the store from above the SQL floor: every data
//! operation runs traced when a view reads the table it writes, and the
//! views learn the written keys (or the dropped range) from the store's
//! [`Trace`]; `tick` and `compact` hand up the engine's events, from which
//! views learn what garbage collection removed. Reads of a view's name
//! read the view's rows, as Bigtable serves a materialized view.
//!
//! Read-only calls (`get_table`, `tablets`, `now_micros`, `config`, ...)
//! go straight to the store through `Deref`; there is deliberately no
//! `DerefMut`, so nothing above can change the tables behind the views'
//! back.

use std::ops::Deref;

use tabletop_store::{
    CheckAndMutateRowRequest, CheckAndMutateRowResponse, CreateTableRequest, DropTarget,
    EngineEvent, FamilyChange, InstanceConfig, KeyRange, MutateRowsEntry, Mutation, OwnedRow,
    ReadModifyWriteRowRequest, ReadModifyWriteRowResponse, ReadRowsRequest, ReadStats, Result,
    RowFilter, RowReader, RowSet, RowSink, TableInfo, TabletInfo, Trace, TraceOptions,
};

mod authorized_views;
mod change_stream;
mod host_notes;
mod key_schemas;
mod logical_views;
pub(crate) mod views;

pub use key_schemas::{check_table, clear_row_key_schema, row_key_schema, set_row_key_schema};

use crate::key_schema::RowKeySchema;
use crate::query::Tables;
use crate::query::parse::Ident;
use crate::query::plan::{self, Source, SourceKind};
use views::Catalog;

/// A Bigtable instance with SQL: tables (the store), row-key schemas and
/// materialized views.
#[derive(Clone, Debug, Default)]
pub struct Instance {
    store: tabletop_store::Instance,
    pub(crate) catalog: Catalog,
    /// Reused for the traces that feed views, so following writes does
    /// not allocate a trace per write.
    scratch: Trace,
}

impl Deref for Instance {
    type Target = tabletop_store::Instance;

    fn deref(&self) -> &tabletop_store::Instance {
        &self.store
    }
}

impl From<tabletop_store::Instance> for Instance {
    fn from(store: tabletop_store::Instance) -> Instance {
        Instance {
            store,
            catalog: Catalog::default(),
            scratch: Trace::default(),
        }
    }
}

impl Instance {
    /// An empty instance whose clock reads 0.
    #[must_use]
    pub fn new(config: InstanceConfig) -> Instance {
        Instance::from(tabletop_store::Instance::new(config))
    }

    /// The store underneath (tables only), to read.
    #[must_use]
    pub fn store(&self) -> &tabletop_store::Instance {
        &self.store
    }

    /// The half-open key ranges a row set selects (for EXPLAIN and the UI).
    pub fn key_ranges(rows: &RowSet) -> Result<Vec<KeyRange>> {
        tabletop_store::Instance::key_ranges(rows)
    }

    /// Row-key schemas and materialized views.
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Row-key schemas and materialized views, to change them.
    pub(crate) fn catalog_mut(&mut self) -> &mut Catalog {
        &mut self.catalog
    }

    /// Chooses production Bigtable's answers or Google's emulator's where
    /// they differ (see [`tabletop_store::Fidelity`]); returns how many
    /// HyperLogLog cells holding the emulator's raw input became sketches.
    /// Leaving the emulator's answers is refused (`FAILED_PRECONDITION`,
    /// nothing changes) while the instance holds what production refuses
    /// (see [`tabletop_store::Instance::switch_fidelity`]); entering them
    /// never is. The only way to change an instance's fidelity.
    pub fn switch_fidelity(
        &mut self,
        fidelity: tabletop_store::Fidelity,
    ) -> tabletop_store::Result<usize> {
        self.store.switch_fidelity(fidelity)
    }

    /// What [`Instance::switch_fidelity`] would refuse, without switching.
    pub(crate) fn check_fidelity_switch(
        &mut self,
        fidelity: tabletop_store::Fidelity,
    ) -> tabletop_store::Result<()> {
        self.store.check_fidelity_switch(fidelity)
    }

    // ------------------------------------------------------------ clock

    /// Switches between a simulated clock and one the host keeps at wall
    /// time.
    pub fn set_clock_simulated(&mut self, simulated: bool) {
        self.store.set_clock_simulated(simulated);
    }

    /// For hosts: when the clock follows the wall, sets it to `wall_micros`
    /// and does the due work (the engine's and the views'); a simulated
    /// clock is left alone.
    pub fn sync_wall_clock(&mut self, wall_micros: i64) -> Vec<EngineEvent> {
        if self.store.clock_is_simulated() {
            return Vec::new();
        }
        self.tick(wall_micros.max(self.store.now_micros()))
    }

    /// Sets the clock (server timestamps, GC ages) without doing any work.
    pub fn set_now(&mut self, now_micros: i64) {
        self.store.set_now(now_micros);
    }

    /// Sets the clock and does the due work: the engine's flushes,
    /// compactions (where GC rules delete cells), splits and merges, then
    /// the views' maintenance. Returns what the engine did.
    pub fn tick(&mut self, now_micros: i64) -> Vec<EngineEvent> {
        self.tick_within(now_micros, &mut || false).0
    }

    /// [`Instance::tick`] in a time budget (see
    /// [`tabletop_store::Instance::tick_within`]); the views' maintenance
    /// runs as after any tick. Returns what the engine did and whether it
    /// finished.
    pub fn tick_within(
        &mut self,
        now_micros: i64,
        out_of_time: &mut dyn FnMut() -> bool,
    ) -> (Vec<EngineEvent>, bool) {
        let (events, finished) = self.store.tick_within(now_micros, out_of_time);
        if !self.catalog.views.is_empty() {
            self.catalog.note_collected(&events, now_micros);
            views::maintain(self, now_micros);
        }
        (events, finished)
    }

    /// [`Instance::tick`] that ends by `deadline_ms` on the host's `clock`
    /// (see [`tabletop_store::Instance::tick_until`]: unlike
    /// [`Instance::tick_within`], it does not start a compaction it
    /// estimates cannot finish in time); the views' maintenance runs as
    /// after any tick. Returns what the engine did and whether it finished.
    pub fn tick_until(
        &mut self,
        now_micros: i64,
        deadline_ms: f64,
        clock: &mut dyn FnMut() -> f64,
    ) -> (Vec<EngineEvent>, bool) {
        let (events, finished) = self.store.tick_until(now_micros, deadline_ms, clock);
        if !self.catalog.views.is_empty() {
            self.catalog.note_collected(&events, now_micros);
            views::maintain(self, now_micros);
        }
        (events, finished)
    }

    /// [`Instance::sync_wall_clock`] that ends by `deadline_ms` on the
    /// host's `clock` (see [`Instance::tick_until`]).
    pub fn sync_wall_clock_until(
        &mut self,
        wall_micros: i64,
        deadline_ms: f64,
        clock: &mut dyn FnMut() -> f64,
    ) -> (Vec<EngineEvent>, bool) {
        if self.store.clock_is_simulated() {
            return (Vec::new(), true);
        }
        self.tick_until(wall_micros.max(self.store.now_micros()), deadline_ms, clock)
    }

    /// [`Instance::sync_wall_clock`] in a time budget (see
    /// [`Instance::tick_within`]).
    pub fn sync_wall_clock_within(
        &mut self,
        wall_micros: i64,
        out_of_time: &mut dyn FnMut() -> bool,
    ) -> (Vec<EngineEvent>, bool) {
        if self.store.clock_is_simulated() {
            return (Vec::new(), true);
        }
        self.tick_within(wall_micros.max(self.store.now_micros()), out_of_time)
    }

    /// "Compact now": flushes and compacts every tablet of one table (or of
    /// every table), so every GC rule that is due has been applied.
    pub fn compact(&mut self, table_id: Option<&str>) -> Result<Vec<EngineEvent>> {
        let events = self.store.compact(table_id)?;
        self.catalog
            .note_collected(&events, self.store.now_micros());
        Ok(events)
    }

    // ------------------------------------------------------------ admin

    /// CreateTable; a table may not take a view's name.
    pub fn create_table(&mut self, req: CreateTableRequest) -> Result<TableInfo> {
        let taken = if self.catalog.views.contains_key(&req.table_id) {
            Some("materialized")
        } else if self.catalog.logical_views.contains_key(&req.table_id) {
            Some("logical")
        } else {
            None
        };
        if let Some(kind) = taken {
            // The store checks the id first, so a bad id reads the same
            // whether or not a view has it.
            tabletop_store::validate_table_id(&req.table_id)?;
            req.schema.validate_for(self.store.fidelity())?;
            if !self.store.has_table(&req.table_id) {
                return Err(tabletop_store::Error::already_exists(format!(
                    "a {kind} view named \"{}\" exists",
                    req.table_id
                )));
            }
        }
        self.store.create_table(req)
    }

    /// DeleteTable; the source of a view cannot be deleted before the view,
    /// nor a table with an authorized view protected from deletion.
    pub fn delete_table(&mut self, table_id: &str) -> Result<()> {
        let protected = self.protected_views(table_id);
        if !protected.is_empty() {
            return Err(tabletop_store::Error::failed_precondition(format!(
                "table \"{table_id}\" has authorized view(s) protected from deletion: {}",
                protected.join(", ")
            )));
        }
        let views = self.catalog.views_on(table_id);
        if !views.is_empty() {
            return Err(tabletop_store::Error::failed_precondition(format!(
                "table \"{table_id}\" is the source of materialized view(s) {}; drop them first",
                views.join(", ")
            )));
        }
        // The store may refuse (a table protected from deletion): the
        // catalog forgets the table only once it is gone.
        self.store.delete_table(table_id)?;
        self.catalog.note_table_deleted(table_id);
        Ok(())
    }

    /// UpdateTable's `deletion_protection`: see
    /// [`tabletop_store::Instance::set_deletion_protection`].
    pub fn set_deletion_protection(&mut self, table_id: &str, on: bool) -> Result<TableInfo> {
        self.store.set_deletion_protection(table_id, on)
    }

    /// ModifyColumnFamilies: all changes or none. Views on the table are
    /// compiled again and rebuilt.
    pub fn modify_column_families(
        &mut self,
        table_id: &str,
        changes: &[FamilyChange],
    ) -> Result<TableInfo> {
        let info = self.store.modify_column_families(table_id, changes)?;
        self.catalog
            .note_source_changed(table_id, self.store.now_micros());
        Ok(info)
    }

    // ------------------------------------------------------------ data

    /// The trace a write needs: the caller's when it asked for one (with
    /// written keys when a view follows the table), the scratch trace when
    /// only a view needs the keys, none otherwise.
    fn write_trace<'t>(
        scratch: &'t mut Trace,
        follow: bool,
        trace: Option<&'t mut Trace>,
    ) -> Option<&'t mut Trace> {
        match trace {
            Some(t) => {
                t.options.written_keys |= follow;
                Some(t)
            }
            None if follow => {
                scratch.options = TraceOptions {
                    written_keys: true,
                    returned_keys: 0,
                };
                Some(scratch)
            }
            None => None,
        }
    }

    /// Runs `write` on the store with the trace it should record into
    /// (see [`Instance::write_trace`]), then lets the views on the table
    /// follow what it wrote.
    fn followed_write<T>(
        &mut self,
        table_id: &str,
        trace: Option<&mut Trace>,
        write: impl FnOnce(&mut tabletop_store::Instance, Option<&mut Trace>) -> Result<T>,
    ) -> Result<T> {
        let follow = self.catalog.follows(table_id);
        let scratch = follow && trace.is_none();
        let mut trace = trace;
        let t = Self::write_trace(&mut self.scratch, follow, trace.as_deref_mut());
        let out = write(&mut self.store, t)?;
        if follow {
            self.follow_writes(table_id, scratch, trace.as_deref());
        }
        Ok(out)
    }

    /// Queues the rows a traced write wrote (or the range it dropped) for
    /// the views on its table.
    fn follow_writes(&mut self, table_id: &str, from_scratch: bool, trace: Option<&Trace>) {
        let now = self.store.now_micros();
        let t = if from_scratch {
            Some(&self.scratch)
        } else {
            trace
        };
        if let Some(t) = t {
            self.catalog.note_trace(table_id, t, now);
        }
    }

    /// DropRowRange: delete rows by key prefix, or all data.
    pub fn drop_row_range(&mut self, table_id: &str, target: &DropTarget) -> Result<()> {
        self.drop_row_range_traced(table_id, target, None)
    }

    /// [`Instance::drop_row_range`], recording the range it deleted.
    pub fn drop_row_range_traced(
        &mut self,
        table_id: &str,
        target: &DropTarget,
        trace: Option<&mut Trace>,
    ) -> Result<()> {
        self.followed_write(table_id, trace, |store, t| {
            store.drop_row_range_traced(table_id, target, t)
        })
    }

    /// MutateRow: every mutation applies, or (on any error) none does.
    pub fn mutate_row(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
    ) -> Result<()> {
        self.mutate_row_traced(table_id, row_key, mutations, None)
    }

    /// [`Instance::mutate_row`], recording what it wrote.
    pub fn mutate_row_traced(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
        trace: Option<&mut Trace>,
    ) -> Result<()> {
        self.followed_write(table_id, trace, |store, t| {
            store.mutate_row_traced(table_id, row_key, mutations, t)
        })
    }

    /// MutateRows: each entry is atomic on its own; the result holds one
    /// status per entry, in order. The outer error is for the request as a
    /// whole (unknown table, empty or oversized request).
    pub fn mutate_rows(
        &mut self,
        table_id: &str,
        entries: &[MutateRowsEntry<'_>],
    ) -> Result<Vec<Result<()>>> {
        self.mutate_rows_traced(table_id, entries, None)
    }

    /// [`Instance::mutate_rows`], recording what the entries that
    /// succeeded wrote.
    pub fn mutate_rows_traced(
        &mut self,
        table_id: &str,
        entries: &[MutateRowsEntry<'_>],
        trace: Option<&mut Trace>,
    ) -> Result<Vec<Result<()>>> {
        self.followed_write(table_id, trace, |store, t| {
            store.mutate_rows_traced(table_id, entries, t)
        })
    }

    /// A data load's batch of `SetCell` rows, checked as a whole and
    /// written by the store's bulk path (see
    /// [`tabletop_store::Instance::bulk_write`]); the views on the table
    /// follow it as they follow MutateRows.
    pub fn bulk_write(&mut self, table_id: &str, entries: &[MutateRowsEntry<'_>]) -> Result<()> {
        self.followed_write(table_id, None, |store, t| {
            store.bulk_write_traced(table_id, entries, t)
        })
    }

    /// A data load's batch of `SetCell` rows imported by the store's
    /// sorted path (see [`tabletop_store::Instance::bulk_import`]): rows
    /// that append to their tablet become compacted runs directly. The
    /// views on the table follow it as they follow MutateRows.
    pub fn bulk_import(&mut self, table_id: &str, entries: &[MutateRowsEntry<'_>]) -> Result<()> {
        self.followed_write(table_id, None, |store, t| {
            store.bulk_import_traced(table_id, entries, t)
        })
    }

    /// CheckAndMutateRow: tests the row with a filter and applies
    /// `true_mutations` if it yields any cell, `false_mutations` otherwise,
    /// atomically.
    pub fn check_and_mutate_row(
        &mut self,
        table_id: &str,
        req: &CheckAndMutateRowRequest<'_>,
    ) -> Result<CheckAndMutateRowResponse> {
        self.check_and_mutate_row_traced(table_id, req, None)
    }

    /// [`Instance::check_and_mutate_row`], recording the predicate's read,
    /// whether it matched and what was written.
    pub fn check_and_mutate_row_traced(
        &mut self,
        table_id: &str,
        req: &CheckAndMutateRowRequest<'_>,
        trace: Option<&mut Trace>,
    ) -> Result<CheckAndMutateRowResponse> {
        self.followed_write(table_id, trace, |store, t| {
            store.check_and_mutate_row_traced(table_id, req, t)
        })
    }

    /// ReadModifyWriteRow: appends to or increments the newest cells of some
    /// columns, atomically, and returns the new cells.
    pub fn read_modify_write_row(
        &mut self,
        table_id: &str,
        req: &ReadModifyWriteRowRequest,
    ) -> Result<ReadModifyWriteRowResponse> {
        self.read_modify_write_row_traced(table_id, req, None)
    }

    /// [`Instance::read_modify_write_row`], recording the read of the row
    /// and the cells written.
    pub fn read_modify_write_row_traced(
        &mut self,
        table_id: &str,
        req: &ReadModifyWriteRowRequest,
        trace: Option<&mut Trace>,
    ) -> Result<ReadModifyWriteRowResponse> {
        self.followed_write(table_id, trace, |store, t| {
            store.read_modify_write_row_traced(table_id, req, t)
        })
    }

    /// ReadRows: streams the selected rows of a table, or of a materialized
    /// view, to `sink` and reports what the read scanned and returned.
    pub fn read_rows<S: RowSink + ?Sized>(
        &mut self,
        table_id: &str,
        req: &ReadRowsRequest,
        sink: &mut S,
    ) -> Result<ReadStats> {
        self.read_rows_traced(table_id, req, sink, None)
    }

    /// [`Instance::read_rows`], recording the request's shape, what the
    /// read saw and returned, and the tablets it visited.
    pub fn read_rows_traced<S: RowSink + ?Sized>(
        &mut self,
        table_id: &str,
        req: &ReadRowsRequest,
        sink: &mut S,
        trace: Option<&mut Trace>,
    ) -> Result<ReadStats> {
        // Views are rare and the map usually empty: look there first.
        if self.catalog.views.contains_key(table_id) && !self.store.has_table(table_id) {
            // A materialized view reads like a table.
            return views::read_view_traced(self, table_id, req, sink, trace);
        }
        self.store.read_rows_traced(table_id, req, sink, trace)
    }

    /// SampleRowKeys as the RPC: recorded in the table's traffic, and in
    /// `trace` when given (the store's `sample_row_keys` looks without
    /// counting).
    pub fn sample_row_keys_traced(
        &mut self,
        table_id: &str,
        trace: Option<&mut Trace>,
    ) -> Result<Vec<(Vec<u8>, u64)>> {
        self.store.sample_row_keys_traced(table_id, trace)
    }

    // ------------------------------------------------------------ traffic

    /// Switches the recording of every table's traffic on or off (see
    /// [`tabletop_store::traffic`]); what is recorded stays.
    pub fn set_traffic_recording(&mut self, on: bool) {
        self.store.set_traffic_recording(on);
    }

    /// Forgets the traffic of one table, or of every table.
    pub fn clear_traffic(&mut self, table_id: Option<&str>) -> Result<()> {
        self.store.clear_traffic(table_id)
    }

    /// Reads a table's rows without adding to its traffic: for tools that
    /// look at the table (the live Key Visualizer's key axis), not users.
    pub fn read_rows_unrecorded<S: RowSink + ?Sized>(
        &mut self,
        table_id: &str,
        req: &ReadRowsRequest,
        sink: &mut S,
    ) -> Result<ReadStats> {
        self.without_traffic(|db| db.store.read_rows(table_id, req, sink))
    }

    /// Runs `f` with traffic recording off: for the instance's own reads
    /// (a view's refresh, a schema check), which are not users' traffic.
    pub(crate) fn without_traffic<T>(&mut self, f: impl FnOnce(&mut Instance) -> T) -> T {
        let was = self.store.records_traffic();
        self.store.set_traffic_recording(false);
        let result = f(self);
        self.store.set_traffic_recording(was);
        result
    }

    /// Reads one row (optionally filtered) into owned memory.
    pub fn read_row(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        filter: Option<RowFilter>,
    ) -> Result<Option<OwnedRow>> {
        let mut rows = tabletop_store::CollectRows::default();
        let req = ReadRowsRequest {
            rows: RowSet::single(row_key.to_vec()),
            filter,
            ..ReadRowsRequest::default()
        };
        self.read_rows(table_id, &req, &mut rows)?;
        Ok(rows.rows.pop())
    }

    // ------------------------------------------------------------ snapshots

    /// The whole instance as snapshot bytes: the store's tables (with
    /// their traffic, as version 3, when there is some), and (as the
    /// snapshot's section) the row-key schemas, view definitions and the
    /// emulator-parity setting when there are any. View data is not
    /// written; restoring recomputes each view from its source.
    pub fn snapshot(&mut self) -> Vec<u8> {
        let section = self.section();
        self.store.snapshot_with(section.as_deref())
    }

    /// [`Instance::snapshot`] without the tables' traffic (for a share
    /// link that must stay short); it restores with empty traffic.
    pub fn snapshot_without_traffic(&mut self) -> Vec<u8> {
        let section = self.section();
        self.store.snapshot_choosing(section.as_deref(), false)
    }

    /// The snapshot's section for this layer, when it has anything to
    /// keep. The fidelity travels here too: an instance answering as the
    /// emulator may hold what production would refuse, and restoring it
    /// must keep answering so. The store records it itself since snapshot
    /// version 6; snapshots written before that hold it only here.
    fn section(&self) -> Option<Vec<u8>> {
        let parity = self.store.fidelity().is_emulator();
        (parity || !self.catalog.is_empty()).then(|| self.catalog.export(parity))
    }

    /// Rebuilds an instance from snapshot bytes: the tables, then the
    /// catalog, each view recomputed from its source. Anything that is not
    /// a complete, intact snapshot is refused with a message saying what
    /// is wrong.
    pub fn restore(bytes: &[u8]) -> Result<Instance> {
        let (store, section) = tabletop_store::Instance::restore_with(bytes)?;
        let mut db = Instance::from(store);
        if let Some(section) = section {
            views::restore_catalog(&mut db, &section)?;
        }
        Ok(db)
    }
}

impl RowReader for Instance {
    fn read_rows<S: RowSink + ?Sized>(
        &mut self,
        table_id: &str,
        req: &ReadRowsRequest,
        sink: &mut S,
    ) -> Result<ReadStats> {
        Instance::read_rows(self, table_id, req, sink)
    }

    fn tablets(&self, table_id: &str) -> Result<Vec<TabletInfo>> {
        self.store.tablets(table_id)
    }
}

impl Tables for Instance {
    fn now_micros(&self) -> i64 {
        self.store.now_micros()
    }

    fn source(&self, name: &Ident, alias: Option<&Ident>) -> Result<Source> {
        if let Some(view) = self.catalog.views.get(&name.name) {
            let alias_name = alias.map_or_else(|| name.name.clone(), |a| a.name.clone());
            return Ok(view.source(alias_name));
        }
        let key_schema: Option<&RowKeySchema> = self.catalog.row_key_schemas.get(&name.name);
        plan::table_source(&self.store, key_schema, name, alias)
    }

    fn logical_view_query(&self, name: &str) -> Option<String> {
        self.catalog
            .logical_views
            .get(name)
            .map(|v| v.query.clone())
    }

    fn read_source(
        &mut self,
        source: &Source,
        req: &ReadRowsRequest,
        sink: &mut dyn RowSink,
        trace: Option<&mut Trace>,
    ) -> Result<ReadStats> {
        match source.kind {
            SourceKind::Table => self.store.read_rows_traced(&source.name, req, sink, trace),
            SourceKind::View => views::read_view_traced(self, &source.name, req, sink, trace),
        }
    }
}
