//! [`Instance`]: the tables of one Bigtable instance and one method per
//! Bigtable RPC, plus the playground's own controls (the clock, `tick`,
//! "compact now", and read-only views of the storage layout).
//!
//! The instance knows tables only. Layers above keep their own state next
//! to it (the SQL layer's row-key schemas and materialized views) and learn
//! what changed from what the instance hands up: a [`Trace`] of each data
//! operation (the keys written, the range dropped) and the
//! [`EngineEvent`]s of `tick` and `compact`. Every data operation has a
//! `*_traced` twin for that.

mod bulk;
pub(crate) mod conditional;
mod emulator;
mod fidelity_switch;
mod import;
mod protection;
mod snapshot;

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::change_stream::{
    ChangeLog, ChangeStreamBatch, ChangeStreamConfig, ChangeStreamTail, ReadChangeStreamRequest,
};
use crate::engine::pace::{Deadline, OutOfTime, Pace, TickPace};
use crate::engine::table::{ReadOptions, Table};
use crate::engine::{EngineConfig, EngineEvent};
use crate::error::{Code, Error, Result};
use crate::fidelity::Fidelity;
use crate::filter::{FilterPlan, RegexCache, RowFilter};
use crate::mutation::Mutation;
use crate::row::{CollectRows, OwnedRow, ReadStats, RowSink, RowView};
use crate::row_set::{KeyRange, RowSet, prefix_successor};
use crate::schema::{
    ColumnFamily, FamilyChange, MAX_ROW_KEY_BYTES, MAX_TABLES, TableSchema, validate_table_id,
};
use crate::trace::{Operation, RequestShape, Trace};
use crate::traffic::{TableTraffic, TrafficCounts};

/// Most mutations one MutateRows request may carry, as in Bigtable.
pub const MAX_MUTATIONS_PER_REQUEST: usize = 100_000;

/// How an instance behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceConfig {
    /// Project id used in resource names (`projects/{project}/...`).
    pub project: String,
    /// Instance id used in resource names.
    pub instance: String,
    /// Storage engine thresholds.
    pub engine: EngineConfig,
    /// Seed for everything random (row sampling), so runs repeat.
    pub seed: u64,
    /// Whether the clock is simulated: hosts then leave it alone and only
    /// explicit clock commands (`cbt clock`, `advanceClock`, a simulation)
    /// move it. Otherwise hosts set it from the wall clock before each
    /// request.
    pub simulated_clock: bool,
}

/// Longest project or instance id accepted (Bigtable's own are at most 30
/// and 33 characters; `domain:project` ids are longer).
pub const MAX_RESOURCE_ID_LEN: usize = 64;

/// Checks a project or instance id (`what` names it in the message): 1 to
/// [`MAX_RESOURCE_ID_LEN`] characters from `[a-zA-Z0-9]` and `-_.:`.
///
/// Bigtable itself is stricter (a project id has at least 6 characters);
/// the emulator accepts any, and short ids like `-project p` are what
/// tests use, so only what no resource name could hold is refused: a
/// slash, a space, a control character (a newline in an id would end up in
/// an exported script's comment and run as a command).
pub fn validate_resource_id(what: &str, id: &str) -> Result<()> {
    if id.is_empty() {
        return Err(Error::invalid(format!("the {what} id must not be empty")));
    }
    if id.len() > MAX_RESOURCE_ID_LEN {
        return Err(Error::invalid(format!(
            "the {what} id is {} bytes long; the limit is {MAX_RESOURCE_ID_LEN}",
            id.len()
        )));
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
    {
        return Err(Error::invalid(format!(
            "the {what} id {:?} may only hold letters, digits and -_.:",
            id
        )));
    }
    Ok(())
}

impl Default for InstanceConfig {
    fn default() -> Self {
        InstanceConfig {
            project: "tabletop".to_string(),
            instance: "playground".to_string(),
            engine: EngineConfig::default(),
            seed: 0x7ab1_e70b,
            simulated_clock: false,
        }
    }
}

/// A CreateTable request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CreateTableRequest {
    /// The table id (not the full resource name).
    pub table_id: String,
    /// Column families.
    pub schema: TableSchema,
    /// Row keys at which to pre-split the table into tablets.
    pub initial_splits: Vec<Vec<u8>>,
}

impl CreateTableRequest {
    /// A request for table `table_id` with these families (name and
    /// definition), unsplit.
    ///
    /// ```
    /// use tabletop_store::{ColumnFamily, CreateTableRequest, GcRule, Instance};
    ///
    /// let mut db = Instance::default();
    /// let req = CreateTableRequest::with_families(
    ///     "t",
    ///     [("cf", ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))))],
    /// )
    /// .split_at(["m"]);
    /// db.create_table(req)?;
    /// assert_eq!(db.get_table("t")?.tablet_count, 2);
    /// # Ok::<(), tabletop_store::Error>(())
    /// ```
    #[must_use]
    pub fn with_families<'a>(
        table_id: &str,
        families: impl IntoIterator<Item = (&'a str, ColumnFamily)>,
    ) -> CreateTableRequest {
        let mut schema = TableSchema::default();
        for (name, def) in families {
            schema.families.insert(name.to_string(), def);
        }
        CreateTableRequest {
            table_id: table_id.to_string(),
            schema,
            initial_splits: Vec::new(),
        }
    }

    /// The same request, pre-split at these row keys.
    #[must_use]
    pub fn split_at<K: AsRef<[u8]>>(
        mut self,
        keys: impl IntoIterator<Item = K>,
    ) -> CreateTableRequest {
        self.initial_splits = keys.into_iter().map(|k| k.as_ref().to_vec()).collect();
        self
    }
}

/// What GetTable and ListTables return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableInfo {
    /// The table id.
    pub id: String,
    /// Live column families.
    pub schema: TableSchema,
    /// The split keys given at creation.
    pub initial_splits: Vec<Vec<u8>>,
    /// Current number of tablets.
    pub tablet_count: usize,
    /// Logical bytes stored.
    pub bytes: u64,
    /// The change stream's settings, when the table keeps one.
    pub change_stream: Option<ChangeStreamConfig>,
    /// Whether the table and its families are protected from deletion.
    pub deletion_protection: bool,
}

/// A ReadRows request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadRowsRequest {
    /// Which rows; empty means all.
    pub rows: RowSet,
    /// Which cells of those rows.
    pub filter: Option<RowFilter>,
    /// Most rows to return; 0 means no limit.
    pub rows_limit: i64,
    /// Return rows in descending key order.
    pub reversed: bool,
}

impl ReadRowsRequest {
    /// Reads the given rows with no filter.
    #[must_use]
    pub fn rows(rows: RowSet) -> ReadRowsRequest {
        ReadRowsRequest {
            rows,
            ..ReadRowsRequest::default()
        }
    }
}

/// One entry of a MutateRows request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutateRowsEntry<'a> {
    /// The row.
    pub row_key: Cow<'a, [u8]>,
    /// Its mutations, applied atomically.
    pub mutations: Vec<Mutation<'a>>,
}

/// What DropRowRange deletes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DropTarget {
    /// Every row whose key starts with these bytes.
    Prefix(Vec<u8>),
    /// Every row of the table.
    AllData,
}

/// A read-only view of one tablet, for the UI and the CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TabletInfo {
    /// Unique within the table.
    pub id: u64,
    /// Inclusive start key (empty for the first tablet).
    pub start_key: Vec<u8>,
    /// Exclusive end key (`None` for the last tablet).
    pub end_key: Option<Vec<u8>>,
    /// Logical bytes stored (until compaction, deleted cells included).
    pub bytes: u64,
    /// Heap bytes the tablet holds.
    pub heap_bytes: u64,
    /// Cells in the memtable.
    pub memtable_cells: u64,
    /// Logical bytes in the memtable.
    pub memtable_bytes: u64,
    /// The runs, newest first.
    pub runs: Vec<RunInfo>,
    /// Instance time of the last compaction that applied GC.
    pub last_gc_micros: i64,
}

/// A read-only view of one sorted run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunInfo {
    /// Rows.
    pub rows: u64,
    /// Cells, deleted ones included.
    pub cells: u64,
    /// Cells marked deleted, waiting for compaction.
    pub dead_cells: u64,
    /// Logical bytes.
    pub bytes: u64,
}

/// A Bigtable instance: tables, a clock and the engine settings.
#[derive(Clone, Debug)]
pub struct Instance {
    config: InstanceConfig,
    tables: BTreeMap<String, Table>,
    now_micros: i64,
    /// Whether data operations add to their table's traffic log.
    record_traffic: bool,
    /// Production's answers, or the emulator's where they differ (an
    /// emulator instance's snapshot is version 6, which records it).
    fidelity: Fidelity,
    /// How far the clock was ahead of the wall at the last
    /// [`Instance::sync_wall_clock`] (0 while it follows the wall); not
    /// part of snapshots.
    wall_lead_micros: i64,
    /// The filters' regexes compiled for earlier requests; not part of
    /// snapshots.
    regexes: RegexCache,
    /// How fast the engine's pieces of work ran in earlier budgeted ticks;
    /// not part of snapshots.
    tick_pace: TickPace,
}

/// Ticks every table at `now` paced by `pace`: the events, and whether
/// every table finished.
fn tick_tables(
    tables: &mut BTreeMap<String, Table>,
    now: i64,
    cfg: &EngineConfig,
    pace: &mut dyn Pace,
) -> (Vec<EngineEvent>, bool) {
    let mut events = Vec::new();
    let mut finished = true;
    for table in tables.values_mut() {
        finished &= table.tick_within(now, cfg, &mut events, pace);
    }
    (events, finished)
}

impl Default for Instance {
    fn default() -> Self {
        Instance::new(InstanceConfig::default())
    }
}

impl Instance {
    /// An empty instance whose clock reads 0.
    #[must_use]
    pub fn new(config: InstanceConfig) -> Instance {
        Instance {
            config,
            tables: BTreeMap::new(),
            now_micros: 0,
            record_traffic: true,
            fidelity: Fidelity::Production,
            wall_lead_micros: 0,
            regexes: RegexCache::new(),
            tick_pace: TickPace::default(),
        }
    }

    /// Whether the instance answers as production Bigtable or as Google's
    /// emulator (see [`Fidelity`]).
    #[must_use]
    pub fn fidelity(&self) -> Fidelity {
        self.fidelity
    }

    /// Chooses production's answers or the emulator's (see [`Fidelity`])
    /// without checking that the instance holds nothing production
    /// refuses: callers outside the crate go through the checked
    /// [`Instance::switch_fidelity`], since an unchecked switch could
    /// leave an instance whose snapshot would not load. Leaving the
    /// emulator's turns each HyperLogLog++ cell that holds the raw last
    /// input (the emulator does not aggregate them) into the sketch of
    /// that input, so the cell aggregates as production's do; returns how
    /// many cells changed.
    pub(crate) fn set_fidelity(&mut self, fidelity: Fidelity) -> usize {
        let sketched = if self.fidelity.is_emulator() && !fidelity.is_emulator() {
            self.sketch_raw_hll_inputs()
        } else {
            0
        };
        self.fidelity = fidelity;
        sketched
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &InstanceConfig {
        &self.config
    }

    /// `projects/{project}/instances/{instance}`.
    #[must_use]
    pub fn name(&self) -> String {
        format!(
            "projects/{}/instances/{}",
            self.config.project, self.config.instance
        )
    }

    /// The instance clock, in microseconds since the Unix epoch. The core
    /// never reads a wall clock: the host sets the time.
    #[must_use]
    pub fn now_micros(&self) -> i64 {
        self.now_micros
    }

    /// Whether the clock is simulated (see [`InstanceConfig::simulated_clock`]).
    #[must_use]
    pub fn clock_is_simulated(&self) -> bool {
        self.config.simulated_clock
    }

    /// Switches between a simulated clock and one the host keeps at wall
    /// time.
    pub fn set_clock_simulated(&mut self, simulated: bool) {
        self.config.simulated_clock = simulated;
    }

    /// For hosts: when the clock follows the wall, sets it to `wall_micros`
    /// and does the engine's due work; a simulated clock is left alone.
    ///
    /// The clock never goes back. One put ahead of the wall (a workload
    /// replay writes minutes of traffic in seconds; `advanceClock`) keeps
    /// that lead and moves on at the wall's pace, instead of standing still
    /// until the wall catches up: writes after it still get later
    /// timestamps, and GC ages still grow.
    pub fn sync_wall_clock(&mut self, wall_micros: i64) -> Vec<EngineEvent> {
        if self.config.simulated_clock {
            return Vec::new();
        }
        let now = self
            .now_micros
            .max(wall_micros.saturating_add(self.wall_lead_micros));
        self.wall_lead_micros = now.saturating_sub(wall_micros).max(0);
        self.tick(now)
    }

    /// Sets the clock (server timestamps, GC ages) without doing any work.
    pub fn set_now(&mut self, now_micros: i64) {
        self.now_micros = now_micros;
    }

    /// Sets the clock and does the engine's due work: flushes, compactions
    /// (where GC rules delete cells), splits and merges. Returns what it did.
    pub fn tick(&mut self, now_micros: i64) -> Vec<EngineEvent> {
        self.tick_within(now_micros, &mut || false).0
    }

    /// [`Instance::tick`] in a time budget: it stops between two pieces of
    /// work (a tablet compacted or merged) once `out_of_time` says so,
    /// after at least one per table with due work; the tablets it compacted
    /// past the split size are split before it stops. Returns what it did
    /// and whether it finished; what is left stays due for the next tick.
    /// Hosts that must keep every task short (a page loading data) use it.
    pub fn tick_within(
        &mut self,
        now_micros: i64,
        out_of_time: &mut dyn FnMut() -> bool,
    ) -> (Vec<EngineEvent>, bool) {
        self.now_micros = now_micros;
        let mut pace = OutOfTime(out_of_time);
        tick_tables(&mut self.tables, now_micros, &self.config.engine, &mut pace)
    }

    /// [`Instance::tick`] that ends by `deadline_ms` on the host's `clock`
    /// (milliseconds, read between pieces of work): a piece of work (a
    /// tablet flushed or compacted, two tablets merged) starts only when
    /// its cost, estimated from its bytes at the speed measured on earlier
    /// pieces, fits in the time left. So unlike [`Instance::tick_within`],
    /// whose first piece runs whole however long it takes, it does not
    /// start a compaction it cannot finish in time; when ticks in a row
    /// could start nothing, the next starts its first piece anyway, so
    /// work bigger than any budget still gets done. The tablets it
    /// compacted past the split size are split before it stops. Returns
    /// what it did and whether it finished; what is left stays due.
    pub fn tick_until(
        &mut self,
        now_micros: i64,
        deadline_ms: f64,
        clock: &mut dyn FnMut() -> f64,
    ) -> (Vec<EngineEvent>, bool) {
        self.now_micros = now_micros;
        let mut pace = Deadline::new(clock, deadline_ms, &mut self.tick_pace);
        let done = tick_tables(&mut self.tables, now_micros, &self.config.engine, &mut pace);
        pace.finish();
        done
    }

    /// "Compact now": flushes and compacts every tablet of one table (or of
    /// every table), so every GC rule that is due has been applied.
    pub fn compact(&mut self, table_id: Option<&str>) -> Result<Vec<EngineEvent>> {
        let now = self.now_micros;
        let mut events = Vec::new();
        match table_id {
            Some(id) => self.table_mut(id)?.compact_all(now, &mut events),
            None => {
                for t in self.tables.values_mut() {
                    t.compact_all(now, &mut events);
                }
            }
        }
        Ok(events)
    }

    fn table(&self, id: &str) -> Result<&Table> {
        self.tables
            .get(id)
            .ok_or_else(|| Error::table_not_found(id))
    }

    fn table_mut(&mut self, id: &str) -> Result<&mut Table> {
        self.tables
            .get_mut(id)
            .ok_or_else(|| Error::table_not_found(id))
    }

    fn info(table: &Table) -> TableInfo {
        TableInfo {
            id: table.id.clone(),
            schema: table.schema(),
            initial_splits: table.initial_splits.clone(),
            tablet_count: table.tablets.len(),
            bytes: table.tablets.iter().map(|t| t.bytes()).sum(),
            change_stream: table.changes.as_ref().map(|c| c.config),
            deletion_protection: table.deletion_protection,
        }
    }

    /// CreateTable.
    pub fn create_table(&mut self, mut req: CreateTableRequest) -> Result<TableInfo> {
        if self.fidelity.is_emulator() {
            // The emulator takes any table id (that a name can hold) and
            // skips empty split keys.
            if req.table_id.is_empty() || req.table_id.contains('/') {
                return Err(Error::invalid(format!(
                    "table id \"{}\" cannot be part of a table name",
                    req.table_id
                )));
            }
            req.initial_splits.retain(|s| !s.is_empty());
        } else {
            validate_table_id(&req.table_id)?;
        }
        // The emulator takes GC rules that keep nothing too.
        req.schema.validate_for(self.fidelity)?;
        if self.tables.contains_key(&req.table_id) {
            return Err(Error::table_exists(&req.table_id));
        }
        if self.tables.len() >= MAX_TABLES {
            return Err(Error::new(
                Code::FailedPrecondition,
                format!("an instance may hold at most {MAX_TABLES} tables"),
            ));
        }
        let mut splits = req.initial_splits;
        for (i, s) in splits.iter().enumerate() {
            if s.is_empty() {
                return Err(Error::invalid(format!(
                    "initial split {i} is an empty row key"
                )));
            }
            if s.len() > MAX_ROW_KEY_BYTES {
                return Err(Error::invalid(format!(
                    "initial split {i} is longer than the {MAX_ROW_KEY_BYTES}-byte row key limit"
                )));
            }
        }
        splits.sort();
        splits.dedup();
        let table = Table::new(&req.table_id, &req.schema, splits, self.now_micros)?;
        let info = Self::info(&table);
        self.tables.insert(req.table_id, table);
        Ok(info)
    }

    /// Whether a table with this id exists (without describing it).
    #[must_use]
    pub fn has_table(&self, table_id: &str) -> bool {
        self.tables.contains_key(table_id)
    }

    /// GetTable.
    pub fn get_table(&self, table_id: &str) -> Result<TableInfo> {
        self.table(table_id).map(Self::info)
    }

    /// ListTables, in id order.
    #[must_use]
    pub fn list_tables(&self) -> Vec<TableInfo> {
        self.tables.values().map(Self::info).collect()
    }

    /// How many tables there are (without describing them).
    #[must_use]
    pub fn table_count(&self) -> usize {
        self.tables.len()
    }

    /// DeleteTable; a table protected from deletion stays.
    pub fn delete_table(&mut self, table_id: &str) -> Result<()> {
        self.check_deletable(table_id)?;
        self.tables
            .remove(table_id)
            .map(|_| ())
            .ok_or_else(|| Error::table_not_found(table_id))
    }

    /// ModifyColumnFamilies: all changes or none.
    pub fn modify_column_families(
        &mut self,
        table_id: &str,
        changes: &[FamilyChange],
    ) -> Result<TableInfo> {
        if changes.is_empty() {
            return Err(Error::invalid(
                "ModifyColumnFamilies needs at least one modification",
            ));
        }
        self.check_drops(table_id, changes)?;
        if self.fidelity.is_emulator() {
            self.modify_column_families_as_emulator(table_id, changes)?;
            return self.get_table(table_id);
        }
        let table = self.table_mut(table_id)?;
        table.modify_families(changes, Fidelity::Production)?;
        Ok(Self::info(table))
    }

    /// UpdateTable's `change_stream_config`: starts recording the table's
    /// changes (or changes how long they are kept, keeping what is
    /// recorded), or with `None` stops recording and forgets the records.
    pub fn set_change_stream(
        &mut self,
        table_id: &str,
        config: Option<ChangeStreamConfig>,
    ) -> Result<TableInfo> {
        let now = self.now_micros;
        let table = self.table_mut(table_id)?;
        match (config, table.changes.as_deref_mut()) {
            (None, _) => table.changes = None,
            (Some(c), Some(log)) => {
                log.config = c;
                log.expire(now);
            }
            (Some(c), None) => table.changes = Some(Box::new(ChangeLog::new(c))),
        }
        Ok(Self::info(table))
    }

    /// ReadChangeStream: the table's recorded changes `req` selects, at
    /// the instance clock. A table without a change stream answers
    /// FAILED_PRECONDITION.
    pub fn read_change_stream(
        &mut self,
        table_id: &str,
        req: &ReadChangeStreamRequest,
    ) -> Result<ChangeStreamBatch> {
        let now = self.now_micros;
        self.change_log(table_id)?.expire(now);
        let table = self.table(table_id)?;
        let log = table
            .changes
            .as_deref()
            .ok_or_else(|| not_enabled(table_id))?;
        log.read(req, now, &table.tablet_ranges())
    }

    /// The newest `limit` records of a table's change stream, for a live
    /// view (records past the retention that no write or tick has dropped
    /// yet may still be there); `None` when the table keeps none.
    pub fn change_stream_tail(
        &self,
        table_id: &str,
        limit: usize,
    ) -> Result<Option<ChangeStreamTail>> {
        Ok(self
            .table(table_id)?
            .changes
            .as_deref()
            .map(|log| log.tail(limit)))
    }

    /// GenerateInitialChangeStreamPartitions: the key ranges to read the
    /// change stream by, one per tablet of the table, in key order. When
    /// the tablets split or merge, a read of an old partition answers with
    /// the new ones ([`ChangeStreamBatch::partition_change`]).
    pub fn change_stream_partitions(&mut self, table_id: &str) -> Result<Vec<KeyRange>> {
        self.change_log(table_id)?;
        Ok(self.table(table_id)?.tablet_ranges())
    }

    fn change_log(&mut self, table_id: &str) -> Result<&mut ChangeLog> {
        let table = self.table_mut(table_id)?;
        table
            .changes
            .as_deref_mut()
            .ok_or_else(|| not_enabled(table_id))
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
        let now = self.now_micros;
        let record = self.record_traffic;
        let emulator = self.fidelity.is_emulator();
        let table = self.table_mut(table_id)?;
        let range = match target {
            // The emulator drops every row for an empty prefix.
            DropTarget::Prefix(p) if p.is_empty() && emulator => {
                table.drop_rows(None, now);
                KeyRange::all()
            }
            DropTarget::Prefix(p) if p.is_empty() => {
                return Err(Error::invalid(
                    "row_key_prefix must not be empty; use delete_all_data_from_table to drop every row",
                ));
            }
            DropTarget::Prefix(p) => {
                table.drop_rows(Some(p), now);
                KeyRange {
                    start: p.clone(),
                    end: prefix_successor(p),
                }
            }
            DropTarget::AllData => {
                table.drop_rows(None, now);
                KeyRange::all()
            }
        };
        if record {
            let scan = TrafficCounts {
                scans: 1.0,
                ..TrafficCounts::default()
            };
            table
                .traffic
                .note_range(now, &range.start, range.end.as_deref(), scan);
        }
        if let Some(t) = trace {
            t.begin(Operation::DropRowRange, table_id);
            t.tablet_count = table.tablets.len();
            t.write.dropped = Some(range);
        }
        Ok(())
    }

    /// MutateRow: every mutation applies, or (on any error) none does.
    pub fn mutate_row(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
    ) -> Result<()> {
        if self.fidelity.is_emulator() {
            return self.mutate_row_as_emulator(table_id, row_key, mutations);
        }
        if mutations.len() > MAX_MUTATIONS_PER_REQUEST {
            return Err(Error::invalid(format!(
                "MutateRow carries {} mutations; the limit is {MAX_MUTATIONS_PER_REQUEST}",
                mutations.len()
            )));
        }
        let now = self.now_micros;
        let record = self.record_traffic;
        let cfg = &self.config.engine;
        let table = self
            .tables
            .get_mut(table_id)
            .ok_or_else(|| Error::table_not_found(table_id))?;
        table.mutate_row(row_key, mutations, now, cfg)?;
        if record {
            let bytes = mutations.iter().map(|m| m.written(row_key.len()).1).sum();
            table.traffic.note_write(now, row_key, bytes);
        }
        Ok(())
    }

    /// [`Instance::mutate_row`], recording what it wrote.
    pub fn mutate_row_traced(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
        trace: Option<&mut Trace>,
    ) -> Result<()> {
        self.mutate_row(table_id, row_key, mutations)?;
        if let Some(t) = trace {
            t.begin(Operation::MutateRow, table_id);
            t.tablet_count = self.tables.get(table_id).map_or(0, |t| t.tablets.len());
            note_row(t, row_key, mutations);
        }
        Ok(())
    }

    /// MutateRows: each entry is atomic on its own; the result holds one
    /// status per entry, in order. The outer error is for the request as a
    /// whole (unknown table, empty or oversized request, an entry with no
    /// row key or no mutations).
    pub fn mutate_rows(
        &mut self,
        table_id: &str,
        entries: &[MutateRowsEntry<'_>],
    ) -> Result<Vec<Result<()>>> {
        self.mutate_rows_traced(table_id, entries, None)
    }

    /// [`Instance::mutate_rows`], recording what the entries that
    /// succeeded wrote (and how many failed).
    pub fn mutate_rows_traced(
        &mut self,
        table_id: &str,
        entries: &[MutateRowsEntry<'_>],
        mut trace: Option<&mut Trace>,
    ) -> Result<Vec<Result<()>>> {
        if entries.is_empty() {
            return Err(Error::invalid("MutateRows needs at least one entry"));
        }
        let total: usize = entries.iter().map(|e| e.mutations.len()).sum();
        if total > MAX_MUTATIONS_PER_REQUEST {
            return Err(Error::invalid(format!(
                "MutateRows carries {total} mutations; the limit is {MAX_MUTATIONS_PER_REQUEST}"
            )));
        }
        let emulator = self.fidelity.is_emulator();
        // Production refuses the whole request, before any entry applies,
        // when an entry has no row key or no mutations (the emulator
        // accepts both, and an entry without mutations does nothing).
        if let Some(i) = entries
            .iter()
            .position(|e| e.mutations.is_empty() && !emulator)
        {
            return Err(Error::invalid(format!(
                "MutateRows entry {i} has no mutations; every entry needs at least one"
            )));
        }
        if let Some(i) = entries
            .iter()
            .position(|e| e.row_key.is_empty() && !emulator)
        {
            return Err(Error::invalid(format!(
                "MutateRows entry {i} has an empty row key"
            )));
        }
        self.table(table_id)?;
        if let Some(t) = trace.as_deref_mut() {
            t.begin(Operation::MutateRows, table_id);
        }
        let results: Vec<Result<()>> = entries
            .iter()
            .map(|e| {
                let r = if emulator && e.mutations.is_empty() {
                    Ok(())
                } else {
                    self.mutate_row(table_id, &e.row_key, &e.mutations)
                };
                // The emulator reports every failed entry as INTERNAL.
                let r = r.map_err(|err| {
                    if emulator {
                        Error::internal(err.message())
                    } else {
                        err
                    }
                });
                if let Some(t) = trace.as_deref_mut() {
                    match r {
                        Ok(()) => note_row(t, &e.row_key, &e.mutations),
                        Err(_) => t.write.failed_entries += 1,
                    }
                }
                r
            })
            .collect();
        if let Some(t) = trace {
            t.tablet_count = self.tables.get(table_id).map_or(0, |t| t.tablets.len());
        }
        Ok(results)
    }

    /// ReadRows: streams the selected rows to `sink` and reports what the
    /// read scanned and returned.
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
        let fidelity = self.fidelity;
        if fidelity.is_emulator() && req.rows_limit < 0 {
            // The emulator answers a negative limit with no rows.
            self.table(table_id)?;
            return Ok(ReadStats::default());
        }
        check_rows_limit(req)?;
        let seed = self.config.seed;
        let now = self.now_micros;
        let record = self.record_traffic;
        let table = self
            .tables
            .get_mut(table_id)
            .ok_or_else(|| Error::table_not_found(table_id))?;
        let cx = ReadContext {
            seed,
            now,
            record,
            fidelity,
        };
        read_engine_table(table, req, cx, Some(&mut self.regexes), sink, trace)
    }

    /// Reads one row (optionally filtered) into owned memory.
    pub fn read_row(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        filter: Option<RowFilter>,
    ) -> Result<Option<OwnedRow>> {
        let mut rows = CollectRows::default();
        let req = ReadRowsRequest {
            rows: RowSet::single(row_key.to_vec()),
            filter,
            ..ReadRowsRequest::default()
        };
        self.read_rows(table_id, &req, &mut rows)?;
        Ok(rows.rows.pop())
    }

    /// SampleRowKeys: `(row key, offset bytes)` at every tablet boundary,
    /// ending with the empty key and the table's size.
    /// Not counted as traffic: this is how tools look at the layout; the
    /// RPC (`sampleRowKeys` through the wire formats) runs
    /// [`Instance::sample_row_keys_traced`], which counts.
    pub fn sample_row_keys(&self, table_id: &str) -> Result<Vec<(Vec<u8>, u64)>> {
        Ok(self.table(table_id)?.sample_row_keys())
    }

    /// [`Instance::sample_row_keys`] as the RPC, recording the tablets it
    /// looked at (every one) and counting as a scan of the whole table in
    /// its traffic.
    pub fn sample_row_keys_traced(
        &mut self,
        table_id: &str,
        trace: Option<&mut Trace>,
    ) -> Result<Vec<(Vec<u8>, u64)>> {
        let now = self.now_micros;
        let record = self.record_traffic;
        let table = self.table_mut(table_id)?;
        if record {
            let scan = TrafficCounts {
                scans: 1.0,
                ..TrafficCounts::default()
            };
            table.traffic.note_range(now, b"", None, scan);
        }
        if let Some(t) = trace {
            t.begin(Operation::SampleRowKeys, table_id);
            t.tablet_count = table.tablets.len();
            t.read.tablets = table.tablets.iter().map(|t| t.id).collect();
        }
        Ok(table.sample_row_keys())
    }

    /// The tablets of a table, in key order.
    pub fn tablets(&self, table_id: &str) -> Result<Vec<TabletInfo>> {
        let table = self.table(table_id)?;
        Ok(table
            .tablets
            .iter()
            .map(|t| TabletInfo {
                id: t.id,
                start_key: t.start.clone(),
                end_key: t.end.clone(),
                bytes: t.bytes(),
                heap_bytes: t.heap_bytes() as u64,
                memtable_cells: t.mem.len() as u64,
                memtable_bytes: t.mem.bytes(),
                runs: t
                    .runs
                    .iter()
                    .map(|r| RunInfo {
                        rows: r.row_count() as u64,
                        cells: r.cell_count() as u64,
                        dead_cells: r.dead_count() as u64,
                        bytes: r.bytes(),
                    })
                    .collect(),
                last_gc_micros: t.last_gc_micros,
            })
            .collect())
    }

    /// Heap bytes held by all tables' data.
    #[must_use]
    pub fn heap_bytes(&self) -> u64 {
        self.tables
            .values()
            .flat_map(|t| t.tablets.iter())
            .map(|t| t.heap_bytes() as u64)
            .sum()
    }

    /// Whether data operations add to their table's traffic log (on by
    /// default).
    #[must_use]
    pub fn records_traffic(&self) -> bool {
        self.record_traffic
    }

    /// Switches traffic recording on or off (what is recorded stays).
    pub fn set_traffic_recording(&mut self, on: bool) {
        self.record_traffic = on;
    }

    /// What a table served, on the instance clock (see [`crate::traffic`]).
    pub fn traffic(&self, table_id: &str) -> Result<&TableTraffic> {
        Ok(&self.table(table_id)?.traffic)
    }

    /// Forgets the traffic of one table, or of every table.
    pub fn clear_traffic(&mut self, table_id: Option<&str>) -> Result<()> {
        match table_id {
            Some(id) => self.table_mut(id)?.traffic.clear(),
            None => self.tables.values_mut().for_each(|t| t.traffic.clear()),
        }
        Ok(())
    }

    /// The half-open key ranges a row set selects (for EXPLAIN and the UI).
    pub fn key_ranges(rows: &RowSet) -> Result<Vec<KeyRange>> {
        rows.normalize()
    }
}

/// Records a row written with `mutations` in a trace.
pub(super) fn note_row(t: &mut Trace, row_key: &[u8], mutations: &[Mutation<'_>]) {
    let (cells, bytes) = mutations.iter().fold((0, 0), |(c, b), m| {
        let (mc, mb) = m.written(row_key.len());
        (c + mc, b + mb)
    });
    t.note_written(row_key, mutations.len(), cells, bytes);
}

/// A sink that notes returned keys in a trace before passing rows on.
struct Noting<'a, S: ?Sized> {
    trace: &'a mut Trace,
    sink: &'a mut S,
}

impl<S: RowSink + ?Sized> RowSink for Noting<'_, S> {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        self.trace.note_returned(row.key);
        self.sink.accept(row)
    }
}

/// A negative rows limit is refused before anything else is looked at.
fn check_rows_limit(req: &ReadRowsRequest) -> Result<()> {
    if req.rows_limit < 0 {
        return Err(Error::invalid(format!(
            "rows_limit must not be negative, got {}",
            req.rows_limit
        )));
    }
    Ok(())
}

/// Adds a read to its table's traffic: each range gets an equal share of
/// the rows and bytes, a single key counts as a point read.
#[inline(never)]
fn note_read(table: &mut Table, now: i64, ranges: &[KeyRange], stats: &ReadStats) {
    let share = 1.0 / ranges.len().max(1) as f32;
    for r in ranges {
        let point = r.is_single_key();
        let counts = TrafficCounts {
            point_ops: if point { 1.0 } else { 0.0 },
            scans: if point { 0.0 } else { 1.0 },
            read_rows: stats.rows_returned as f32 * share,
            read_bytes: stats.bytes_returned as f32 * share,
            rows_scanned: stats.rows_seen as f32 * share,
            ..TrafficCounts::default()
        };
        table
            .traffic
            .note_range(now, &r.start, r.end.as_deref(), counts);
    }
}

/// Whether any row lies in `ranges` (for the emulator's lazy filter
/// checks).
fn has_rows(table: &mut Table, ranges: &[KeyRange], now: i64) -> bool {
    let mut rows = CollectRows::default();
    table.prepare_read();
    let opts = ReadOptions {
        limit: Some(1),
        ..ReadOptions::plain(now)
    };
    table.read(ranges, &opts, &mut rows).rows_returned > 0
}

/// What a read takes from its instance.
#[derive(Clone, Copy)]
struct ReadContext {
    /// Seed for row sampling.
    seed: u64,
    now: i64,
    /// Whether the read adds to the table's traffic.
    record: bool,
    fidelity: Fidelity,
}

/// ReadRows on one engine table (an instance's or a standalone one).
fn read_engine_table<S: RowSink + ?Sized>(
    table: &mut Table,
    req: &ReadRowsRequest,
    cx: ReadContext,
    regexes: Option<&mut RegexCache>,
    sink: &mut S,
    trace: Option<&mut Trace>,
) -> Result<ReadStats> {
    let ReadContext {
        seed,
        now,
        record,
        fidelity,
    } = cx;
    check_rows_limit(req)?;
    let ranges = req.rows.normalize()?;
    let emulator_filter = match &req.filter {
        Some(f) if fidelity.is_emulator() => Some(emulator::as_emulator_filter(f)),
        _ => None,
    };
    let compiled = match (emulator_filter.as_ref().or(req.filter.as_ref()), regexes) {
        (Some(f), Some(cache)) => Some(FilterPlan::compile_cached(
            f,
            emulator_filter.is_some(),
            cache,
        )),
        (Some(f), None) if emulator_filter.is_some() => Some(FilterPlan::compile_as_emulator(f)),
        (Some(f), None) => Some(FilterPlan::compile(f)),
        (None, _) => None,
    };
    let plan = match compiled {
        Some(compiled) => match compiled {
            Ok(plan) => Some(plan.with_seed(seed)),
            // The emulator checks a filter only against the cells it
            // meets, so an invalid one passes when the read finds no row.
            Err(_) if fidelity.is_emulator() && !has_rows(table, &ranges, now) => {
                return Ok(ReadStats::default());
            }
            Err(e) => return Err(e),
        },
        None => None,
    };
    if let Some(plan) = &plan
        && !fidelity.is_emulator()
    {
        // Production answers NOT_FOUND for a filter naming a family the
        // table does not have; the emulator's filter just matches no cell
        // of it.
        plan.check_families(|f| table.fams.id(f).is_some())?;
    }
    table.prepare_read();
    let opts = ReadOptions {
        reversed: req.reversed,
        limit: u64::try_from(req.rows_limit).ok().filter(|&l| l > 0),
        plan: plan.as_ref(),
        now_micros: now,
    };
    let Some(t) = trace else {
        let stats = table.read(&ranges, &opts, sink);
        if record {
            note_read(table, now, &ranges, &stats);
        }
        return Ok(stats);
    };
    t.begin(Operation::ReadRows, &table.id);
    t.tablet_count = table.tablets.len();
    let stats = if t.options.returned_keys > 0 {
        // Through `dyn`: the engine's read loop is not compiled once more
        // for every sink wrapped this way.
        let noting: &mut dyn RowSink = &mut Noting { trace: t, sink };
        table.read(&ranges, &opts, noting)
    } else {
        table.read(&ranges, &opts, sink)
    };
    if record {
        note_read(table, now, &ranges, &stats);
    }
    t.request = RequestShape {
        row_keys: req.rows.row_keys.len(),
        row_ranges: req.rows.row_ranges.len(),
        ranges,
        filtered: req.filter.is_some(),
        reversed: req.reversed,
        rows_limit: req.rows_limit,
    };
    t.read = stats.clone();
    Ok(stats)
}

/// One table's data outside any instance: what a layer above keeps its
/// own rows in (the SQL layer's materialized views), with the same engine
/// (tablets, memtables, runs, compaction, splits) and the same reads.
#[derive(Clone, Debug)]
pub struct StandaloneTable {
    table: Table,
}

impl StandaloneTable {
    /// An empty table with these families and split keys, created at
    /// `now_micros`.
    pub fn new(
        id: &str,
        schema: &TableSchema,
        initial_splits: Vec<Vec<u8>>,
        now_micros: i64,
    ) -> Result<StandaloneTable> {
        Ok(StandaloneTable {
            table: Table::new(id, schema, initial_splits, now_micros)?,
        })
    }

    /// MutateRow: every mutation applies, or none does.
    pub fn mutate_row(
        &mut self,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
        now_micros: i64,
        cfg: &EngineConfig,
    ) -> Result<()> {
        self.table.mutate_row(row_key, mutations, now_micros, cfg)
    }

    /// ReadRows, with a row-sampling `seed`, at `now_micros`; traced like
    /// [`Instance::read_rows_traced`].
    pub fn read_rows<S: RowSink + ?Sized>(
        &mut self,
        req: &ReadRowsRequest,
        seed: u64,
        now_micros: i64,
        sink: &mut S,
        trace: Option<&mut Trace>,
    ) -> Result<ReadStats> {
        let cx = ReadContext {
            seed,
            now: now_micros,
            record: false,
            fidelity: Fidelity::Production,
        };
        read_engine_table(&mut self.table, req, cx, None, sink, trace)
    }

    /// The engine's due work (flushes, compactions, splits, merges).
    pub fn tick(&mut self, now_micros: i64, cfg: &EngineConfig, events: &mut Vec<EngineEvent>) {
        self.table.tick(now_micros, cfg, events);
    }

    /// How many tablets hold the table.
    #[must_use]
    pub fn tablet_count(&self) -> usize {
        self.table.tablets.len()
    }
}

/// Anything that answers ReadRows and lists tablets: the store's
/// [`Instance`] and the instances layers above build on it.
/// [`crate::inspect`] reads through it.
pub trait RowReader {
    /// ReadRows: streams the selected rows to `sink`.
    fn read_rows<S: RowSink + ?Sized>(
        &mut self,
        table_id: &str,
        req: &ReadRowsRequest,
        sink: &mut S,
    ) -> Result<ReadStats>;

    /// The tablets of a table, in key order.
    fn tablets(&self, table_id: &str) -> Result<Vec<TabletInfo>>;
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
        Instance::tablets(self, table_id)
    }
}

/// The answer to a change stream request on a table that keeps none.
fn not_enabled(table_id: &str) -> Error {
    Error::new(
        Code::FailedPrecondition,
        format!("change stream is not enabled for table \"{table_id}\""),
    )
}
