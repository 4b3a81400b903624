//! A table: its column families and its tablets in key order. Routes
//! writes to tablets, streams reads across them, and runs the tick policy
//! (flush, compaction with GC, split, merge).

use super::family::{Families, FamilyId};
use std::ops::Range;

use super::merge::{MergedCell, Piece, RowMerger, Source, assemble_row};
use super::pace::{OutOfTime, Pace};
use super::run_scan::{RunReader, SeenTotals};
use super::tablet::{CompactionOutcome, Tablet};
use super::{EngineConfig, EngineEvent};
use crate::aggregate::{check_input, merge_input};
use crate::change_stream::{ChangeLog, CollectedCell};
use crate::error::{Error, Place, Result};
use crate::fidelity::Fidelity;
use crate::filter::{FilterPlan, FilterScratch};
use crate::mutation::{
    AggregateInput, Mutation, SERVER_TIMESTAMP, validate_qualifier, validate_row_key,
    validate_time_range, validate_timestamp, validate_value,
};
use crate::row::{CellView, ReadStats, RowSink, RowView, cell_bytes};
use crate::row_set::KeyRange;
use crate::schema::{
    Aggregator, FamilyChange, MAX_ROW_BYTES, TableSchema, ValueType, validate_family_name,
};
use crate::traffic::TableTraffic;
use upkeep::{Upkeep, compaction_due};

pub(crate) mod bulk;
pub(crate) mod import;
pub(crate) mod upkeep;

/// A table.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    pub(crate) id: String,
    pub(crate) fams: Families,
    /// In key order; together they cover every key exactly once.
    pub(crate) tablets: Vec<Tablet>,
    /// The first eight bytes of each tablet's start key ([`key_prefix`]),
    /// in tablet order: finding a key's tablet searches this flat array
    /// and compares whole keys only among tablets that share the prefix
    /// (the search over the tablets themselves, one heap key per step,
    /// was a tenth of a bulk load's time). Rebuilt by [`Table::note_layout`]
    /// when tablets are laid out; a split or a merge changes only its own
    /// entries ([`Table::note_replaced`]).
    start_prefixes: Vec<u64>,
    /// The split keys given at creation; tablets never merge across them.
    pub(crate) initial_splits: Vec<Vec<u8>>,
    next_tablet_id: u64,
    /// Layout changes made by the write path, reported at the next tick.
    pending: Vec<EngineEvent>,
    /// What the table served, when the instance records traffic.
    pub(crate) traffic: TableTraffic,
    /// The change stream, when one is configured. Boxed so a table
    /// without one pays a pointer, and the write path a branch.
    pub(crate) changes: Option<Box<ChangeLog>>,
    /// UpdateTable's `deletion_protection`: while set, the table and its
    /// families cannot be deleted (its data still can).
    pub(crate) deletion_protection: bool,
    /// The tablets a tick has to look at.
    upkeep: Upkeep,
}

/// How to run a read over a table.
pub(crate) struct ReadOptions<'p> {
    pub(crate) reversed: bool,
    /// Stop after this many returned rows.
    pub(crate) limit: Option<u64>,
    pub(crate) plan: Option<&'p FilterPlan>,
    pub(crate) now_micros: i64,
}

impl ReadOptions<'_> {
    /// A forward read with no limit and no filter, as of `now_micros`:
    /// what the engine's own walks over a table use (others change a
    /// field of it).
    pub(crate) fn plain(now_micros: i64) -> Self {
        ReadOptions {
            reversed: false,
            limit: None,
            plan: None,
            now_micros,
        }
    }
}

impl Table {
    /// A new, empty table. `initial_splits` must be sorted and unique.
    pub(crate) fn new(
        id: &str,
        schema: &TableSchema,
        initial_splits: Vec<Vec<u8>>,
        now_micros: i64,
    ) -> Result<Table> {
        let mut fams = Families::default();
        for (name, def) in &schema.families {
            fams.create(name, def.clone())?;
        }
        let mut tablets = Vec::with_capacity(initial_splits.len() + 1);
        let mut start = Vec::new();
        for (i, split) in initial_splits.iter().enumerate() {
            tablets.push(Tablet::new(i as u64, start, Some(split.clone())));
            start = split.clone();
        }
        tablets.push(Tablet::new(initial_splits.len() as u64, start, None));
        for t in &mut tablets {
            t.last_gc_micros = now_micros;
        }
        let mut table = Table {
            id: id.to_string(),
            fams,
            next_tablet_id: tablets.len() as u64,
            tablets,
            start_prefixes: Vec::new(),
            initial_splits,
            pending: Vec::new(),
            traffic: TableTraffic::default(),
            changes: None,
            deletion_protection: false,
            upkeep: Upkeep::default(),
        };
        table.note_layout();
        table.reset_upkeep();
        Ok(table)
    }

    /// Brings [`Table::start_prefixes`] in line with the tablets; called
    /// after a new layout.
    fn note_layout(&mut self) {
        self.start_prefixes.clear();
        self.start_prefixes
            .extend(self.tablets.iter().map(|t| key_prefix(&t.start)));
    }

    /// Brings [`Table::start_prefixes`] in line after the tablets at
    /// indexes `old` were replaced by the `new` tablets from `old.start`
    /// on (a split or a merge): only their entries change, so the cost
    /// follows the tablets changed, not the table's.
    fn note_replaced(&mut self, old: Range<usize>, new: usize) {
        let from = old.start;
        let prefixes = self.tablets[from..from + new]
            .iter()
            .map(|t| key_prefix(&t.start));
        self.start_prefixes.splice(old, prefixes);
    }

    /// Each tablet's key range, in key order.
    pub(crate) fn tablet_ranges(&self) -> Vec<KeyRange> {
        self.tablets
            .iter()
            .map(|t| KeyRange {
                start: t.start.clone(),
                end: t.end.clone(),
            })
            .collect()
    }

    /// The start keys of every tablet but the first.
    pub(crate) fn boundaries(&self) -> Vec<Vec<u8>> {
        self.tablets
            .iter()
            .skip(1)
            .map(|t| t.start.clone())
            .collect()
    }

    /// Cuts the (empty) table into tablets at `keys`, in addition to the
    /// initial splits; used when restoring a snapshot's layout.
    pub(crate) fn set_layout(&mut self, keys: &[Vec<u8>], now_micros: i64) {
        let mut all: Vec<Vec<u8>> = self
            .initial_splits
            .iter()
            .chain(keys.iter())
            .filter(|k| !k.is_empty())
            .cloned()
            .collect();
        all.sort();
        all.dedup();
        let mut tablets = Vec::with_capacity(all.len() + 1);
        let mut start = Vec::new();
        for split in all {
            tablets.push(Tablet::new(self.next_tablet_id, start, Some(split.clone())));
            self.next_tablet_id += 1;
            start = split;
        }
        tablets.push(Tablet::new(self.next_tablet_id, start, None));
        self.next_tablet_id += 1;
        for t in &mut tablets {
            t.last_gc_micros = now_micros;
        }
        self.tablets = tablets;
        self.note_layout();
        self.reset_upkeep();
    }

    /// Writes cells exactly as given (no validation, no aggregation): for
    /// restoring snapshots. `cells` are `(family id, qualifier, timestamp,
    /// value)`.
    pub(crate) fn load_row(
        &mut self,
        key: &[u8],
        cells: &[(FamilyId, &[u8], i64, &[u8])],
        cfg: &EngineConfig,
    ) {
        if cells.is_empty() {
            return;
        }
        let ti = self.tablet_index(key);
        let need = key.len() + cells.iter().map(|c| c.1.len() + c.3.len()).sum::<usize>();
        if !self.tablets[ti].mem.has_room(need) {
            self.tablets[ti].flush(&self.fams, cfg.max_runs * 2);
        }
        let mem = &mut self.tablets[ti].mem;
        mem.open_group(key);
        for &(fid, qual, ts, value) in cells {
            mem.push_cell(fid, self.fams.name(fid).len(), qual, ts, value);
        }
        mem.close_group(self.fams.ranks());
        if self.tablets[ti].mem.bytes() >= cfg.memtable_flush_bytes {
            self.tablets[ti].flush(&self.fams, cfg.max_runs * 2);
        }
        self.note_changed(ti);
    }

    /// The live schema.
    pub(crate) fn schema(&self) -> TableSchema {
        TableSchema {
            families: self
                .fams
                .live()
                .map(|(name, _, def)| (name.to_string(), def.clone()))
                .collect(),
        }
    }

    /// Applies a ModifyColumnFamilies request atomically: every change is
    /// checked against the schema as it will be after the earlier changes
    /// before any is applied; GC rules as `fidelity` takes them.
    pub(crate) fn modify_families(
        &mut self,
        changes: &[FamilyChange],
        fidelity: Fidelity,
    ) -> Result<()> {
        let mut next = self.fams.clone();
        for (i, change) in changes.iter().enumerate() {
            let at = |e: Error| e.at(Place::Modification(i));
            validate_family_name(change.family()).map_err(at)?;
            if changes[..i].iter().any(|c| c.family() == change.family()) {
                return Err(at(Error::invalid(format!(
                    "column family \"{}\" is modified more than once in one request",
                    change.family()
                ))));
            }
            match change {
                FamilyChange::Create(name, def) => {
                    def.validate_for(fidelity).map_err(at)?;
                    next.create(name, def.clone()).map_err(at)?;
                }
                FamilyChange::Update(name, def) => {
                    def.validate_for(fidelity).map_err(at)?;
                    let id = next.require(name).map_err(at)?;
                    if next.def(id).value_type != def.value_type {
                        return Err(at(Error::invalid(format!(
                            "the value type of column family \"{name}\" cannot change"
                        ))));
                    }
                    next.update(name, def.clone()).map_err(at)?;
                }
                FamilyChange::Drop(name) => {
                    next.drop_family(name).map_err(at)?;
                }
            }
        }
        self.fams = next;
        Ok(())
    }

    fn tablet_index(&self, key: &[u8]) -> usize {
        // Tablets whose start's prefix is below the key's start below the
        // key; those above start after it; only equal prefixes need the
        // whole keys (zero-padded big-endian prefixes order as the keys
        // do, except that they can tie).
        let p = key_prefix(key);
        let lo = self.start_prefixes.partition_point(|&s| s < p);
        let hi = lo + self.start_prefixes[lo..].partition_point(|&s| s <= p);
        let within = self.tablets[lo..hi].partition_point(|t| t.start.as_slice() <= key);
        (lo + within).saturating_sub(1)
    }

    /// Sorts memtable tails so the table can be read.
    pub(crate) fn prepare_read(&mut self) {
        for t in &mut self.tablets {
            t.mem.prepare();
        }
    }

    /// Checks a MutateRow request against the schema without changing
    /// anything, recording the family id of the first [`RESOLVED`]
    /// mutations so applying them needs no second lookup.
    fn validate_resolving(
        &self,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
        fids: &mut [FamilyId; RESOLVED],
    ) -> Result<u64> {
        if mutations.is_empty() {
            return Err(Error::no_mutations());
        }
        let mut added = 0u64;
        for (i, m) in mutations.iter().enumerate() {
            let at = |e: Error| e.at(Place::Mutation(i));
            let family = match m.family_name() {
                Some(name) => {
                    let id = self.fams.require(name).map_err(at)?;
                    if let Some(slot) = fids.get_mut(i) {
                        *slot = id;
                    }
                    Some((id, self.fams.def(id)))
                }
                None => None,
            };
            match m {
                Mutation::SetCell {
                    column_qualifier,
                    timestamp_micros,
                    value,
                    family_name,
                } => {
                    validate_timestamp(*timestamp_micros).map_err(at)?;
                    validate_qualifier(column_qualifier).map_err(at)?;
                    validate_value(value).map_err(at)?;
                    if let Some((_, def)) = family
                        && let ValueType::Aggregate(agg) = def.value_type
                    {
                        return Err(at(Error::invalid(format!(
                            "column family \"{family_name}\" is an aggregate family ({}); \
                             write it with AddToCell or MergeToCell, not SetCell",
                            agg.cbt_name()
                        ))));
                    }
                    added += cell_bytes(
                        row_key.len(),
                        family_name.len(),
                        column_qualifier.len(),
                        value.len(),
                    );
                }
                Mutation::AddToCell { .. } | Mutation::MergeToCell { .. } => {
                    let Some(w) = m.aggregate_write() else {
                        return Err(at(Error::internal("aggregate mutation without parts")));
                    };
                    validate_timestamp(w.timestamp_micros).map_err(at)?;
                    validate_qualifier(w.column_qualifier).map_err(at)?;
                    let Some((_, def)) = family else {
                        return Err(at(Error::internal("aggregate mutation without family")));
                    };
                    let ValueType::Aggregate(agg) = def.value_type else {
                        return Err(at(Error::invalid(format!(
                            "column family \"{}\" is not an aggregate family; \
                             AddToCell and MergeToCell need one",
                            w.family_name
                        ))));
                    };
                    check_input(agg, w.input).map_err(at)?;
                    added += cell_bytes(
                        row_key.len(),
                        w.family_name.len(),
                        w.column_qualifier.len(),
                        8,
                    );
                }
                Mutation::DeleteFromColumn {
                    column_qualifier,
                    time_range,
                    ..
                } => {
                    validate_qualifier(column_qualifier).map_err(at)?;
                    if let Some(r) = time_range {
                        validate_time_range(r).map_err(at)?;
                    }
                }
                Mutation::DeleteFromFamily { .. } | Mutation::DeleteFromRow => {}
            }
        }
        Ok(added)
    }

    /// Applies a MutateRow request atomically: if any mutation is invalid,
    /// nothing changes. `now_micros` resolves server timestamps.
    pub(crate) fn mutate_row(
        &mut self,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
        now_micros: i64,
        cfg: &EngineConfig,
    ) -> Result<()> {
        self.mutate_row_for(row_key, mutations, now_micros, cfg, Fidelity::Production)
    }

    /// [`Table::mutate_row`] as `fidelity` writes: the emulator takes row
    /// keys over production's 4 KiB (an empty key is still refused) and
    /// keeps the raw input of an AddToCell to a HyperLogLog family as the
    /// cell's value instead of adding it to a sketch.
    pub(crate) fn mutate_row_for(
        &mut self,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
        now_micros: i64,
        cfg: &EngineConfig,
        fidelity: Fidelity,
    ) -> Result<()> {
        if !fidelity.is_emulator() || row_key.is_empty() {
            validate_row_key(row_key)?;
        }
        let mut fids = [0; RESOLVED];
        let added = self.validate_resolving(row_key, mutations, &mut fids)?;
        let ti = self.tablet_index(row_key);
        self.check_row_size(ti, row_key, added)?;
        self.write_checked(ti, row_key, mutations, &fids, now_micros, cfg, fidelity)?;
        Ok(())
    }

    /// Refuses `added` more bytes in row `key` of tablet `ti` when the row
    /// would pass [`MAX_ROW_BYTES`].
    fn check_row_size(&mut self, ti: usize, key: &[u8], added: u64) -> Result<()> {
        if self.tablets[ti].row_bytes_bound().saturating_add(added) > MAX_ROW_BYTES as u64 {
            let current = self.row_bytes(ti, key);
            if current + added > MAX_ROW_BYTES as u64 {
                return Err(Error::invalid(format!(
                    "row would grow to {} bytes; a row may hold at most {MAX_ROW_BYTES} bytes (256 MiB)",
                    current + added
                )));
            }
        }
        Ok(())
    }

    /// Writes one validated, size-checked row to tablet `ti` (the row's
    /// tablet) as `fidelity` writes; returns whether the tablets changed as
    /// [`Table::after_write`] says.
    #[allow(clippy::too_many_arguments)]
    fn write_checked(
        &mut self,
        ti: usize,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
        fids: &[FamilyId; RESOLVED],
        now_micros: i64,
        cfg: &EngineConfig,
        fidelity: Fidelity,
    ) -> Result<bool> {
        let arena_need = row_key.len()
            + mutations
                .iter()
                .map(|m| match m {
                    Mutation::SetCell {
                        column_qualifier,
                        value,
                        ..
                    } => column_qualifier.len() + value.len(),
                    Mutation::AddToCell {
                        column_qualifier, ..
                    }
                    | Mutation::MergeToCell {
                        column_qualifier, ..
                    } => column_qualifier.len() + 8,
                    _ => 0,
                })
                .sum::<usize>();
        if !self.tablets[ti].mem.has_room(arena_need) {
            self.tablets[ti].flush(&self.fams, cfg.max_runs * 2);
        }
        let resolve = server_timestamps(now_micros);
        self.tablets[ti].mem.reserve(arena_need);
        let applied = self.apply_mutations(ti, row_key, mutations, fids, resolve, fidelity);
        self.tablets[ti].mem.close_group(self.fams.ranks());
        self.note_changed(ti);
        // Validation above makes a failure here a bug, not bad input.
        applied.map_err(|e| Error::internal(format!("mutation failed after validation: {e}")))?;
        if let Some(log) = self.changes.as_deref_mut() {
            log.push_user(now_micros, row_key, mutations, &self.fams, resolve);
        }
        Ok(self.after_write(ti, cfg))
    }

    /// What follows every row written to tablet `ti`: a full memtable is
    /// flushed, and a tablet far past the split threshold split. Returns
    /// whether the tablets changed (indexes past `ti` moved).
    fn after_write(&mut self, ti: usize, cfg: &EngineConfig) -> bool {
        if self.tablets[ti].mem.bytes() >= cfg.memtable_flush_bytes {
            self.tablets[ti].flush(&self.fams, cfg.max_runs * 2);
            self.pending.push(EngineEvent::Flush {
                table: self.id.clone(),
                tablet: self.tablets[ti].id,
            });
        }
        // A tablet far past the split threshold (the host has not ticked
        // for a long time) is split right away, without GC, to keep runs
        // within their 32-bit offsets and reads fast.
        if cfg.split_bytes > 0 && self.tablets[ti].wants_split(cfg.split_bytes.saturating_mul(4)) {
            self.tablets[ti].compact(&self.fams, None, None);
            let mut events = std::mem::take(&mut self.pending);
            let pieces = self.split_one(ti, cfg, &mut events);
            self.pending = events;
            return pieces > 1;
        }
        false
    }

    /// Applies validated mutations to the tablet's memtable and runs.
    fn apply_mutations(
        &mut self,
        ti: usize,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
        fids: &[FamilyId; RESOLVED],
        resolve: impl Fn(i64) -> i64,
        fidelity: Fidelity,
    ) -> Result<()> {
        for (i, m) in mutations.iter().enumerate() {
            match m {
                Mutation::SetCell {
                    family_name,
                    column_qualifier,
                    timestamp_micros,
                    value,
                } => {
                    let fid = resolved(fids, i, &self.fams, family_name)?;
                    let mem = &mut self.tablets[ti].mem;
                    if !mem.is_open() {
                        mem.open_group(row_key);
                    }
                    mem.push_cell(
                        fid,
                        family_name.len(),
                        column_qualifier,
                        resolve(*timestamp_micros),
                        value,
                    );
                }
                Mutation::AddToCell { .. } | Mutation::MergeToCell { .. } => {
                    let Some(w) = m.aggregate_write() else {
                        return Err(Error::internal("aggregate mutation without parts"));
                    };
                    let fid = resolved(fids, i, &self.fams, w.family_name)?;
                    let ValueType::Aggregate(agg) = self.fams.def(fid).value_type else {
                        return Err(Error::internal("aggregate family changed type"));
                    };
                    let ts = resolve(w.timestamp_micros);
                    let current = self.find_cell(ti, row_key, fid, w.column_qualifier, ts);
                    let merged = if fidelity.is_emulator() && agg == Aggregator::HllppUniqueCount {
                        unaggregated(w.input)
                    } else {
                        merge_input(agg, current.as_deref(), w.input)?
                    };
                    let mem = &mut self.tablets[ti].mem;
                    if !mem.is_open() {
                        mem.open_group(row_key);
                    }
                    mem.push_cell(fid, w.family_name.len(), w.column_qualifier, ts, &merged);
                }
                Mutation::DeleteFromColumn {
                    family_name,
                    column_qualifier,
                    time_range,
                } => {
                    let fid = resolved(fids, i, &self.fams, family_name)?;
                    let range = *time_range;
                    self.mark_dead(ti, row_key, |cfid, qual, ts| {
                        cfid == fid
                            && qual == column_qualifier.as_ref()
                            && range.is_none_or(|r| r.contains(ts))
                    });
                }
                Mutation::DeleteFromFamily { family_name } => {
                    let fid = resolved(fids, i, &self.fams, family_name)?;
                    self.mark_dead(ti, row_key, |cfid, _, _| cfid == fid);
                }
                Mutation::DeleteFromRow => {
                    self.mark_dead(ti, row_key, |_, _, _| true);
                }
            }
        }
        Ok(())
    }

    /// Marks dead the cells of a row matching `pred(family, qualifier, ts)`
    /// in the tablet's memtable and runs.
    fn mark_dead(
        &mut self,
        ti: usize,
        key: &[u8],
        pred: impl Fn(FamilyId, &[u8], i64) -> bool,
    ) -> usize {
        let tablet = &mut self.tablets[ti];
        let mut n = tablet
            .mem
            .mark_dead_in_row(key, |e, q| pred(e.fid, q, e.ts));
        for run in &mut tablet.runs {
            let r = run.lower_bound(key);
            if r < run.row_count() && run.row_key(r) == key {
                for i in run.row_cells(r) {
                    let c = *run.cell(i);
                    if pred(c.fid, run.qual(&c), c.ts) && run.mark_dead(i) {
                        n += 1;
                    }
                }
            }
        }
        n
    }

    /// The newest live value at exact coordinates, if any.
    fn find_cell(
        &self,
        ti: usize,
        key: &[u8],
        fid: FamilyId,
        qual: &[u8],
        ts: i64,
    ) -> Option<Vec<u8>> {
        let tablet = &self.tablets[ti];
        if let Some(v) = tablet.mem.find_cell(key, fid, qual, ts) {
            return Some(v.to_vec());
        }
        for run in &tablet.runs {
            let r = run.lower_bound(key);
            if r < run.row_count() && run.row_key(r) == key {
                for i in run.row_cells(r) {
                    let c = run.cell(i);
                    if c.fid == fid && c.ts == ts && !run.is_dead(i) && run.qual(c) == qual {
                        return Some(run.value(c).to_vec());
                    }
                }
            }
        }
        None
    }

    /// Logical bytes of the live cells of one row.
    fn row_bytes(&mut self, ti: usize, key: &[u8]) -> u64 {
        self.prepare_read();
        let mut total = 0;
        let range = KeyRange {
            start: key.to_vec(),
            end: Some(crate::row_set::successor(key)),
        };
        self.scan_tablet(ti, &range, false, 0, &mut |key, cells| {
            total += cells
                .iter()
                .map(|c| cell_bytes(key.len(), 0, c.qual.len(), c.value.len()))
                .sum::<u64>();
            true
        });
        total
    }

    /// Visits the merged rows of one tablet inside `range`.
    fn scan_tablet(
        &self,
        ti: usize,
        range: &KeyRange,
        reversed: bool,
        now: i64,
        visit: &mut dyn FnMut(&[u8], &[MergedCell<'_>]) -> bool,
    ) {
        let tablet = &self.tablets[ti];
        let mut sources = Vec::new();
        tablet.sources(&mut sources);
        let (start, end) = clip(range, tablet);
        let mut merger = RowMerger::new(&sources, start, end);
        let mut pieces = Vec::new();
        let mut cells = Vec::new();
        while let Some(key) = merger.next_row(reversed, &mut pieces) {
            cells.clear();
            assemble_row(&merger, &mut pieces, &self.fams, now, &mut cells);
            if !cells.is_empty() && !visit(key, &cells) {
                return;
            }
        }
    }

    /// Streams the rows of `ranges` (sorted, disjoint) to `sink`. Call
    /// [`Table::prepare_read`] first.
    pub(crate) fn read<S: RowSink + ?Sized>(
        &self,
        ranges: &[KeyRange],
        opts: &ReadOptions<'_>,
        sink: &mut S,
    ) -> ReadStats {
        self.read_with(ranges, opts, sink, ReadPath::Fastest)
    }

    /// [`Table::read`] through a chosen path: the model tests compare the
    /// compacted-tablet path with the general one.
    pub(crate) fn read_with<S: RowSink + ?Sized>(
        &self,
        ranges: &[KeyRange],
        opts: &ReadOptions<'_>,
        sink: &mut S,
        path: ReadPath,
    ) -> ReadStats {
        let mut out = Delivery {
            stats: ReadStats::default(),
            plan: opts.plan,
            limit: opts.limit,
            views: Vec::new(),
            filtered: Vec::new(),
            scratch: FilterScratch::new(),
            sink,
        };
        let gate = opts.plan.and_then(FilterPlan::value_gate);
        let mut merging = MergeBuffers::default();
        let mut passing: Vec<(usize, usize)> = Vec::new();
        let mut marks: Vec<u64> = Vec::new();
        for n in 0..ranges.len() {
            let range = &ranges[if opts.reversed {
                ranges.len() - 1 - n
            } else {
                n
            }];
            let first = self.tablet_index(&range.start);
            // The last tablet starting before the range's end.
            let last = match range.end.as_deref() {
                None => self.tablets.len() - 1,
                Some(e) => self
                    .tablets
                    .partition_point(|t| t.start.as_slice() < e)
                    .saturating_sub(1)
                    .max(first),
            };
            for k in 0..=(last - first) {
                let ti = if opts.reversed { last - k } else { first + k };
                let tablet = &self.tablets[ti];
                if out.stats.tablets.last() != Some(&tablet.id) {
                    out.stats.tablets.push(tablet.id);
                }
                let (start, end) = clip(range, tablet);
                let go_on = match tablet.single_run() {
                    Some(run) if path != ReadPath::Merged => {
                        let reader = RunReader::new(run, &self.fams, opts.now_micros);
                        let rows = reader.rows(start, end);
                        match gate.filter(|_| reader.is_clean()) {
                            Some(gate) => {
                                passing.clear();
                                let force_index = path == ReadPath::Indexed;
                                reader.cells_passing(
                                    rows.clone(),
                                    &gate,
                                    force_index,
                                    &mut marks,
                                    &mut passing,
                                );
                                let whole = gate.is_whole_plan();
                                let rows = Candidates {
                                    rows,
                                    passing: &passing,
                                };
                                read_candidates(&reader, &rows, whole, opts.reversed, &mut out)
                            }
                            None => read_run(&reader, rows, opts.reversed, &mut out),
                        }
                    }
                    _ => self.read_merged(tablet, start, end, opts, &mut merging, &mut out),
                };
                if !go_on {
                    return out.stats;
                }
            }
        }
        out.stats
    }

    /// Reads one tablet's rows in `[start, end)` by merging its sources.
    /// Returns whether the read goes on.
    fn read_merged<'t, S: RowSink + ?Sized>(
        &'t self,
        tablet: &'t Tablet,
        start: &[u8],
        end: Option<&[u8]>,
        opts: &ReadOptions<'_>,
        buf: &mut MergeBuffers<'t>,
        out: &mut Delivery<'t, '_, S>,
    ) -> bool {
        let MergeBuffers {
            sources,
            merger,
            pieces,
            merged,
        } = buf;
        tablet.sources(sources);
        merger.reset(sources, start, end);
        while let Some(key) = merger.next_row(opts.reversed, pieces) {
            merged.clear();
            assemble_row(merger, pieces, &self.fams, opts.now_micros, merged);
            out.views.clear();
            out.views.extend(merged.iter().map(|c| CellView {
                family: self.fams.name(c.fid),
                qualifier: c.qual,
                timestamp_micros: c.ts,
                value: c.value,
                label: None,
                gc_eligible: c.gc_eligible,
            }));
            if !out.deliver(key) {
                return false;
            }
        }
        true
    }

    /// Deletes every row starting with `prefix`, or every row, at `now`.
    pub(crate) fn drop_rows(&mut self, prefix: Option<&[u8]>, now: i64) {
        let (start, end) = match prefix {
            Some(p) => (p.to_vec(), crate::row_set::prefix_successor(p)),
            None => (Vec::new(), None),
        };
        if self.changes.is_some() {
            self.note_dropped(&start, end.as_deref(), now);
        }
        for i in 0..self.tablets.len() {
            let t = &mut self.tablets[i];
            if end.as_deref().is_some_and(|e| t.start.as_slice() >= e)
                || t.end.as_deref().is_some_and(|e| e <= start.as_slice())
            {
                continue;
            }
            t.mem.mark_dead_in_range(&start, end.as_deref());
            for run in &mut t.runs {
                let lo = run.lower_bound(&start);
                let hi = end
                    .as_deref()
                    .map_or(run.row_count(), |e| run.lower_bound(e));
                run.mark_rows_dead(lo, hi);
            }
            self.note_changed(i);
        }
    }

    /// Records a dropped range in the change stream as Bigtable does: each
    /// row it deletes, as a deletion of every family.
    fn note_dropped(&mut self, start: &[u8], end: Option<&[u8]>, now: i64) {
        self.prepare_read();
        let range = KeyRange {
            start: start.to_vec(),
            end: end.map(<[u8]>::to_vec),
        };
        let opts = ReadOptions::plain(now);
        let mut keys = RowKeys(Vec::new());
        self.read(&[range], &opts, &mut keys);
        let drop_row = [Mutation::DeleteFromRow];
        let Some(log) = self.changes.as_deref_mut() else {
            return;
        };
        for key in keys.0 {
            log.push_user(now, &key, &drop_row, &self.fams, |ts| ts);
        }
    }

    /// The engine's periodic work at instance time `now`: flush full
    /// memtables, compact (with GC) tablets that are due, split big tablets
    /// and merge small neighbours.
    pub(crate) fn tick(&mut self, now: i64, cfg: &EngineConfig, events: &mut Vec<EngineEvent>) {
        self.tick_within(now, cfg, events, &mut OutOfTime(&mut || false));
    }

    /// [`Table::tick`] paced by `pace`: it stops before a piece of work (a
    /// tablet flushed or compacted, or two merged) that `pace` does not let
    /// start, or after one once `pace` is out of time; every compacted
    /// tablet past the split size is split first, whatever the time.
    /// Returns whether it finished; what it left is still due, and the next
    /// tick does it. Only the tablets the upkeep records list as changed
    /// (or whose GC fell due) are looked at.
    pub(crate) fn tick_within(
        &mut self,
        now: i64,
        cfg: &EngineConfig,
        events: &mut Vec<EngineEvent>,
        pace: &mut dyn Pace,
    ) -> bool {
        events.append(&mut self.pending);
        self.wake_due(now, cfg);
        // The walk the records spare, in debug builds of tables small
        // enough that it does not make every tick linear.
        debug_assert!(
            self.tablets.len() > CHECKED_TABLETS || self.check_upkeep(cfg).is_ok(),
            "{:?}",
            self.check_upkeep(cfg)
        );
        let stopped_at = self.flush_and_compact(now, cfg, events, pace);
        // Tablets compacted above split now even when time ran out, so
        // their compaction is not done again at the next tick; those not
        // reached wait, as they may have a compaction due first.
        self.split_big(cfg, events, stopped_at.unwrap_or(self.tablets.len()));
        let finished = stopped_at.is_none() && self.merge_small(now, cfg, events, pace);
        if let Some(log) = self.changes.as_deref_mut() {
            log.expire(now);
        }
        finished
    }

    /// The first pass of a tick: flushes and compacts the changed tablets
    /// that are due, in key order. Returns `None` if it got through them,
    /// else the index of the first tablet it did not get through.
    fn flush_and_compact(
        &mut self,
        now: i64,
        cfg: &EngineConfig,
        events: &mut Vec<EngineEvent>,
        pace: &mut dyn Pace,
    ) -> Option<usize> {
        let mut collected = Vec::new();
        let mut stopped_at = None;
        let mut next = self.next_changed(0);
        while let Some(i) = next {
            next = self.next_changed(i + 1);
            let t = &mut self.tablets[i];
            let flush = t.mem.bytes() >= cfg.memtable_flush_bytes;
            // What the piece may cost: the whole tablet when it will be
            // compacted (a flush can add the run that makes too many).
            let compacts = compaction_due(t, now, cfg)
                || (flush && !t.runs.is_empty() && t.runs.len() >= cfg.max_runs);
            let bytes = if compacts { t.bytes() } else { t.mem.bytes() };
            if !(flush || compacts) {
                continue;
            }
            if !pace.may_start(bytes) {
                stopped_at = Some(i);
                break;
            }
            if flush {
                t.flush(&self.fams, cfg.max_runs * 2);
                events.push(EngineEvent::Flush {
                    table: self.id.clone(),
                    tablet: t.id,
                });
            }
            if compaction_due(t, now, cfg) {
                let log = self.changes.is_some().then_some(&mut collected);
                let o = t.compact(&self.fams, Some(now), log);
                events.push(compaction_event(&self.id, t, o));
            }
            pace.done(bytes);
            if pace.out_of_time() {
                stopped_at = Some(i + 1);
                break;
            }
        }
        self.note_collected(now, collected);
        stopped_at
    }

    /// Hands what GC collected to the change stream, if there is one.
    fn note_collected(&mut self, now: i64, collected: Vec<CollectedCell>) {
        if let Some(log) = self.changes.as_deref_mut()
            && !collected.is_empty()
        {
            log.push_collected(now, collected);
        }
    }

    /// Splits every compacted tablet past the threshold, whatever the
    /// time: a split only cuts the tablet's run into slices, and one left
    /// for the next tick would take writes meanwhile and need compacting
    /// again (a page's load, whose ticks keep running out of time, then
    /// compacted the same tablets over and over and never caught up).
    /// Only changed tablets can be past it; only those before index `end`
    /// are looked at (the first pass looked at them first).
    fn split_big(&mut self, cfg: &EngineConfig, events: &mut Vec<EngineEvent>, mut end: usize) {
        let mut next = self.next_changed(0);
        while let Some(i) = next.filter(|&i| i < end) {
            let n = self.split_one(i, cfg, events);
            end += n - 1;
            next = self.next_changed(i + n);
        }
    }

    /// Splits tablet `i` if it is past the threshold and can be cut as it
    /// is ([`Tablet::cuts_cleanly`]); returns how many tablets now stand
    /// in its place.
    fn split_one(&mut self, i: usize, cfg: &EngineConfig, events: &mut Vec<EngineEvent>) -> usize {
        let bytes = self.tablets[i].bytes();
        if cfg.split_bytes == 0 || !self.tablets[i].wants_split(cfg.split_bytes) {
            return 1;
        }
        if !self.tablets[i].cuts_cleanly() {
            // Not compacted, or cells deleted since: a tick compacts it
            // first, within its budget (one that ran out of time before
            // doing so leaves it to the next).
            return 1;
        }
        // Pieces of about three quarters of the threshold, at least two.
        let target = (cfg.split_bytes / 4 * 3).max(1);
        let parts = usize::try_from(bytes.div_ceil(target)).unwrap_or(2).max(2);
        let points = self.tablets[i].split_points(parts);
        if points.is_empty() {
            // A single huge row cannot be split: try again when it has
            // doubled, not on every tick.
            self.tablets[i].split_blocked_at = bytes;
            return 1;
        }
        self.forget(i);
        let old = self.tablets.remove(i);
        let old_id = old.id;
        let pieces = old.split_at(&points, &self.fams, &mut self.next_tablet_id);
        events.push(EngineEvent::Split {
            table: self.id.clone(),
            tablet: old_id,
            into: pieces.iter().map(|t| t.id).collect(),
            keys: pieces.iter().skip(1).map(|t| t.start.clone()).collect(),
        });
        let n = pieces.len();
        self.tablets.splice(i..i, pieces);
        self.note_replaced(i..i + 1, n);
        for k in 0..n {
            self.insert_changed(i + k);
        }
        n
    }

    /// Merges small neighbours, left to right, a merged tablet again with
    /// its right neighbour; returns whether it got through the table.
    /// Only pairs with a changed tablet can merge (the others were found
    /// too big when last looked at), so it goes from one to the next, and
    /// ends each tablet's change once both its pairs are seen.
    fn merge_small(
        &mut self,
        now: i64,
        cfg: &EngineConfig,
        events: &mut Vec<EngineEvent>,
        pace: &mut dyn Pace,
    ) -> bool {
        let Some(first) = self.next_changed(0) else {
            return true;
        };
        let mut i = first.saturating_sub(1);
        while i + 1 < self.tablets.len() {
            if self.mergeable(i, cfg) {
                let bytes = self.tablets[i].bytes() + self.tablets[i + 1].bytes();
                if !pace.may_start(bytes) {
                    return false;
                }
                self.merge_pair(i, now, events);
                pace.done(bytes);
                if i + 1 < self.tablets.len() && pace.out_of_time() {
                    return false;
                }
                continue;
            }
            if self.is_changed(i) {
                self.settle(i);
            }
            match self.next_changed(i + 1) {
                Some(j) => i = (i + 1).max(j - 1),
                None => return true,
            }
        }
        if self.is_changed(i) {
            self.settle(i);
        }
        true
    }

    /// Compacts tablets `i` and `i + 1` (with GC) and puts one tablet made
    /// of both in their place.
    fn merge_pair(&mut self, i: usize, now: i64, events: &mut Vec<EngineEvent>) {
        self.forget(i + 1);
        self.forget(i);
        let mut right = self.tablets.remove(i + 1);
        let mut left = self.tablets.remove(i);
        let mut collected = Vec::new();
        for t in [&mut left, &mut right] {
            let log = self.changes.is_some().then_some(&mut collected);
            let o = t.compact(&self.fams, Some(now), log);
            events.push(compaction_event(&self.id, t, o));
        }
        self.note_collected(now, collected);
        let from = [left.id, right.id];
        let id = self.next_tablet_id;
        self.next_tablet_id += 1;
        let merged = left.merge_with(right, &self.fams, id);
        events.push(EngineEvent::Merge {
            table: self.id.clone(),
            from,
            into: id,
        });
        self.tablets.insert(i, merged);
        self.note_replaced(i..i + 2, 1);
        self.insert_changed(i);
    }

    /// Flushes and compacts every tablet now, applying GC rules as of `now`.
    pub(crate) fn compact_all(&mut self, now: i64, events: &mut Vec<EngineEvent>) {
        let mut collected = Vec::new();
        for t in &mut self.tablets {
            let log = self.changes.is_some().then_some(&mut collected);
            let o = t.compact(&self.fams, Some(now), log);
            events.push(compaction_event(&self.id, t, o));
        }
        self.note_collected(now, collected);
        self.note_all_changed();
    }

    /// Tablet boundaries with the bytes stored before each; the last entry
    /// has an empty key and the table's total.
    pub(crate) fn sample_row_keys(&self) -> Vec<(Vec<u8>, u64)> {
        let mut out = Vec::with_capacity(self.tablets.len());
        let mut offset = 0;
        for t in &self.tablets {
            offset += t.bytes();
            out.push((t.end.clone().unwrap_or_default(), offset));
        }
        out
    }
}

/// A sink keeping only row keys.
struct RowKeys(Vec<Vec<u8>>);

impl RowSink for RowKeys {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        self.0.push(row.key.to_vec());
        true
    }
}

/// Tables up to this many tablets check their upkeep records against a
/// walk at every tick in debug builds.
const CHECKED_TABLETS: usize = 512;

/// Family ids recorded during validation, per mutation index.
const RESOLVED: usize = 16;

/// The bytes the emulator keeps for an aggregate input it does not
/// aggregate: an integer as 8 big-endian bytes, raw bytes as they are.
fn unaggregated(input: &AggregateInput<'_>) -> Vec<u8> {
    match input {
        AggregateInput::Int(v) => v.to_be_bytes().to_vec(),
        AggregateInput::Raw(b) => b.to_vec(),
    }
}

/// The family id of mutation `i`: recorded, or looked up.
fn resolved(
    fids: &[FamilyId; RESOLVED],
    i: usize,
    fams: &Families,
    name: &str,
) -> Result<FamilyId> {
    match fids.get(i) {
        Some(&id) => Ok(id),
        None => fams.require(name),
    }
}

/// Resolves a mutation's timestamp: [`SERVER_TIMESTAMP`] becomes `now`
/// in whole milliseconds, any other stays.
fn server_timestamps(now_micros: i64) -> impl Fn(i64) -> i64 + Copy {
    let server_ts = now_micros - now_micros.rem_euclid(1000);
    move |ts: i64| {
        if ts == SERVER_TIMESTAMP {
            server_ts
        } else {
            ts
        }
    }
}

/// The first eight bytes of a key, big-endian, zero-padded.
fn key_prefix(key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(b)
}

fn compaction_event(table: &str, t: &Tablet, o: CompactionOutcome) -> EngineEvent {
    EngineEvent::Compaction {
        table: table.to_string(),
        tablet: t.id,
        start: t.start.clone(),
        end: t.end.clone(),
        collected: o.collected,
        kept: o.cells_after,
    }
}

/// Which read path [`Table::read_with`] takes for a compacted tablet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadPath {
    /// Tablets held in one run are read straight from it (and rows a value
    /// test cannot accept are skipped); others are merged.
    Fastest,
    /// [`ReadPath::Fastest`], with value tests always made through the
    /// run's value index, however few rows are read.
    #[cfg_attr(
        not(all(test, not(target_arch = "wasm32"))),
        allow(dead_code, reason = "the model tests' way to reach the index")
    )]
    Indexed,
    /// Every tablet is merged, as if it had several sources.
    #[cfg_attr(
        not(all(test, not(target_arch = "wasm32"))),
        allow(dead_code, reason = "the model tests' reference path")
    )]
    Merged,
}

/// The general path's buffers, reused across the tablets of one read.
struct MergeBuffers<'t> {
    sources: Vec<Source<'t>>,
    merger: RowMerger<'t>,
    pieces: Vec<Piece>,
    merged: Vec<MergedCell<'t>>,
}

impl Default for MergeBuffers<'_> {
    fn default() -> Self {
        MergeBuffers {
            sources: Vec::new(),
            merger: RowMerger::new(&[], &[], None),
            pieces: Vec::new(),
            merged: Vec::new(),
        }
    }
}

/// The end of the read path shared by every tablet: counts what was seen,
/// filters, counts what is returned and hands rows to the sink.
struct Delivery<'a, 's, S: RowSink + ?Sized> {
    stats: ReadStats,
    plan: Option<&'a FilterPlan>,
    limit: Option<u64>,
    /// The visible cells of the current row, filled by the caller.
    views: Vec<CellView<'a>>,
    filtered: Vec<CellView<'a>>,
    scratch: FilterScratch<'a>,
    sink: &'s mut S,
}

impl<'a, S: RowSink + ?Sized> Delivery<'a, '_, S> {
    /// Delivers the row whose visible cells are in `self.views` (none: the
    /// row does not exist for this read). Returns whether the read goes on.
    fn deliver(&mut self, key: &[u8]) -> bool {
        if self.views.is_empty() {
            return true;
        }
        let stats = &mut self.stats;
        stats.rows_seen += 1;
        stats.cells_seen += self.views.len() as u64;
        stats.bytes_seen += self
            .views
            .iter()
            .map(|c| cell_bytes(key.len(), c.family.len(), c.qualifier.len(), c.value.len()))
            .sum::<u64>();
        let out: &[CellView<'a>] = match self.plan {
            Some(plan) => {
                self.filtered.clear();
                plan.apply(key, &self.views, &mut self.scratch, &mut self.filtered);
                &self.filtered
            }
            None => &self.views,
        };
        hand_over(stats, self.sink, self.limit, key, out)
    }

    /// Delivers the row whose answer, already filtered, is in `self.views`
    /// (what the read saw is counted apart). Returns whether the read goes
    /// on.
    fn hand_over(&mut self, key: &[u8]) -> bool {
        hand_over(&mut self.stats, self.sink, self.limit, key, &self.views)
    }

    /// Counts rows that were seen but cannot be returned.
    fn seen(&mut self, totals: SeenTotals) {
        self.stats.rows_seen += totals.rows;
        self.stats.cells_seen += totals.cells;
        self.stats.bytes_seen += totals.bytes;
    }
}

/// Counts a row's answer `out` as returned and hands it to `sink` (an empty
/// answer: the row is not returned). Returns whether the read goes on.
fn hand_over<S: RowSink + ?Sized>(
    stats: &mut ReadStats,
    sink: &mut S,
    limit: Option<u64>,
    key: &[u8],
    out: &[CellView<'_>],
) -> bool {
    if out.is_empty() {
        return true;
    }
    stats.rows_returned += 1;
    stats.cells_returned += out.len() as u64;
    stats.bytes_returned += out
        .iter()
        .map(|c| cell_bytes(key.len(), c.family.len(), c.qualifier.len(), c.value.len()))
        .sum::<u64>();
    let go_on = sink.accept(RowView { key, cells: out });
    go_on && limit.is_none_or(|l| stats.rows_returned < l)
}

/// Reads rows `rows` of a compacted tablet. Returns whether the read goes on.
fn read_run<'t, S: RowSink + ?Sized>(
    reader: &RunReader<'t>,
    mut rows: Range<usize>,
    reversed: bool,
    out: &mut Delivery<'t, '_, S>,
) -> bool {
    let mut visit = |row: usize| {
        out.views.clear();
        reader.views(row, &mut out.views);
        out.deliver(reader.row_key(row))
    };
    if reversed {
        rows.rev().all(&mut visit)
    } else {
        rows.all(&mut visit)
    }
}

/// The rows of a read in a clean compacted tablet, and the cells among
/// them whose values pass the plan's value gate, as `(row, cell)`
/// increasing: only rows holding one can be returned.
struct Candidates<'p> {
    rows: Range<usize>,
    passing: &'p [(usize, usize)],
}

/// How many passing cells [`Candidates::windows`] puts in a window (more
/// when a row's cells straddle its end): enough for the reads ahead to
/// overlap, few enough that what they fetch is still cached when the
/// window is answered (256 measured best of 64, 256 and 1024). Tests use
/// windows of 3, so that their small tables' reads cross windows' ends.
const WINDOW_CELLS: usize = if cfg!(test) { 3 } else { 256 };

impl Candidates<'_> {
    /// The passing cells in windows of whole rows, about
    /// [`WINDOW_CELLS`] each, in the order of the read (from the end when
    /// `reversed`): what [`RunReader::read_ahead`] reads at once.
    fn windows(&self, reversed: bool) -> impl Iterator<Item = &[(usize, usize)]> {
        let mut rest = self.passing;
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let window;
            if reversed {
                let mut start = rest.len().saturating_sub(WINDOW_CELLS);
                while start > 0 && rest[start - 1].0 == rest[start].0 {
                    start -= 1;
                }
                (rest, window) = rest.split_at(start);
            } else {
                let mut end = WINDOW_CELLS.min(rest.len());
                while end < rest.len() && rest[end - 1].0 == rest[end].0 {
                    end += 1;
                }
                (window, rest) = rest.split_at(end);
            }
            Some(window)
        })
    }
}

/// The windows of `candidates` in the read's order, each handed out once
/// the window after it has been read ahead (the first, before it): while
/// a window's rows are answered, the next one's records are on their way
/// into the cache. A read stopped early by its limit has read at most two
/// windows ahead for nothing.
fn windows_read_ahead<'a>(
    reader: &'a RunReader<'_>,
    candidates: &'a Candidates<'_>,
    reversed: bool,
) -> impl Iterator<Item = &'a [(usize, usize)]> {
    let mut windows = candidates.windows(reversed).peekable();
    if let Some(first) = windows.peek() {
        std::hint::black_box(reader.read_ahead(first));
    }
    std::iter::from_fn(move || {
        let window = windows.next()?;
        if let Some(next) = windows.peek() {
            std::hint::black_box(reader.read_ahead(next));
        }
        Some(window)
    })
}

/// The candidate rows' passing cells, a row at a time in the read's order
/// (from the end when `reversed`), read ahead a window at a time
/// ([`windows_read_ahead`]).
fn rows_read_ahead<'a>(
    reader: &'a RunReader<'_>,
    candidates: &'a Candidates<'_>,
    reversed: bool,
) -> impl Iterator<Item = &'a [(usize, usize)]> {
    windows_read_ahead(reader, candidates, reversed).flat_map(move |window| {
        let mut rest = window;
        std::iter::from_fn(move || {
            let row = if reversed { rest.last() } else { rest.first() }?.0;
            let n = if reversed {
                rest.iter().rev().take_while(|c| c.0 == row).count()
            } else {
                rest.iter().take_while(|c| c.0 == row).count()
            };
            let cells;
            if reversed {
                (rest, cells) = rest.split_at(rest.len() - n);
            } else {
                (cells, rest) = rest.split_at(n);
            }
            Some(cells)
        })
    })
}

/// Reads only the candidate rows of a clean compacted tablet; the others
/// are counted as seen. When the gate is the `whole` plan, a row's answer
/// is its passing cells, taken without assembling the row. Returns whether
/// the read goes on.
fn read_candidates<'t, S: RowSink + ?Sized>(
    reader: &RunReader<'t>,
    candidates: &Candidates<'_>,
    whole: bool,
    reversed: bool,
    out: &mut Delivery<'t, '_, S>,
) -> bool {
    if whole {
        return read_passing(reader, candidates, reversed, out);
    }
    let visit = |cells: &[(usize, usize)], out: &mut Delivery<'t, '_, S>| {
        let row = cells[0].0;
        out.views.clear();
        reader.views(row, &mut out.views);
        out.deliver(reader.row_key(row))
    };
    let rows = &candidates.rows;
    // The first row not yet counted as seen, in the read's direction.
    let mut next = if reversed { rows.end } else { rows.start };
    for cells in rows_read_ahead(reader, candidates, reversed) {
        let row = cells[0].0;
        if reversed {
            out.seen(reader.seen_totals(row + 1..next));
            next = row;
        } else {
            out.seen(reader.seen_totals(next..row));
            next = row + 1;
        }
        if !visit(cells, out) {
            return false;
        }
    }
    out.seen(reader.seen_totals(if reversed {
        rows.start..next
    } else {
        next..rows.end
    }));
    true
}

/// [`read_candidates`] when the value regex is the whole plan: each
/// candidate row's answer is its passing cells, and what the read saw is
/// every row it went through, counted once from the run's totals when it
/// stops. Returns whether the read goes on.
fn read_passing<'t, S: RowSink + ?Sized>(
    reader: &RunReader<'t>,
    candidates: &Candidates<'_>,
    reversed: bool,
    out: &mut Delivery<'t, '_, S>,
) -> bool {
    let mut answer = |cells: &[(usize, usize)]| {
        let row = cells[0].0;
        out.views.clear();
        reader.views_of(row, cells, &mut out.views);
        out.hand_over(reader.row_key(row))
    };
    let stopped = rows_read_ahead(reader, candidates, reversed)
        .find(|c| !answer(c))
        .map(|c| c[0].0);
    let rows = candidates.rows.clone();
    let seen = match stopped {
        None => rows,
        Some(row) if reversed => row..rows.end,
        Some(row) => rows.start..row + 1,
    };
    out.seen(reader.seen_totals(seen));
    stopped.is_none()
}

/// The part of `range` inside the tablet, as `(start, end)`.
fn clip<'a>(range: &'a KeyRange, tablet: &'a Tablet) -> (&'a [u8], Option<&'a [u8]>) {
    let start = if range.start.as_slice() > tablet.start.as_slice() {
        range.start.as_slice()
    } else {
        tablet.start.as_slice()
    };
    let end = match (range.end.as_deref(), tablet.end.as_deref()) {
        (None, e) | (e, None) => e,
        (Some(a), Some(b)) => Some(a.min(b)),
    };
    (start, end)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::schema::ColumnFamily;

    /// The plain search [`Table::tablet_index`] must agree with.
    fn naive_index(table: &Table, key: &[u8]) -> usize {
        table
            .tablets
            .partition_point(|t| t.start.as_slice() <= key)
            .saturating_sub(1)
    }

    #[test]
    fn the_prefix_search_finds_the_same_tablet_as_a_plain_search() {
        let schema = TableSchema {
            families: [("f".to_string(), ColumnFamily::default())].into(),
        };
        // Starts that share eight bytes, are shorter than eight, or hold
        // zero bytes, around which the prefixes tie.
        let splits: Vec<Vec<u8>> = vec![
            b"a".to_vec(),
            b"a\0".to_vec(),
            b"a\0\0\0\0\0\0\0\x01".to_vec(),
            b"abcdefgh".to_vec(),
            b"abcdefgh\0".to_vec(),
            b"abcdefghij".to_vec(),
            b"abcdefgz".to_vec(),
            b"b".to_vec(),
        ];
        let cfg = EngineConfig {
            split_bytes: 2048,
            merge_bytes: 0,
            ..EngineConfig::default()
        };
        let mut table = Table::new("t", &schema, splits.clone(), 0).unwrap();
        let mut probes: Vec<Vec<u8>> = splits.clone();
        probes.extend([
            Vec::new(),
            b"\0".to_vec(),
            b"a\0\0".to_vec(),
            b"abcdefgh\0\0".to_vec(),
            b"abcdefghi".to_vec(),
            b"zz".to_vec(),
        ]);
        // Random keys with a common prefix, written until tablets split.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = format!("abcdefg{:x}", x % 100_000).into_bytes();
            let set = [Mutation::set_cell("f", b"q", 1000, &[7u8; 64][..])];
            table.mutate_row(&key, &set, 0, &cfg).unwrap();
            probes.push(key);
        }
        let mut events = Vec::new();
        table.tick(1000, &cfg, &mut events);
        assert!(table.tablets.len() > 20, "{} tablets", table.tablets.len());
        for key in &probes {
            assert_eq!(table.tablet_index(key), naive_index(&table, key), "{key:?}");
            let mut after = key.clone();
            after.push(0);
            assert_eq!(table.tablet_index(&after), naive_index(&table, &after));
        }
        // Laying the table out again keeps the prefixes in step.
        let mut fresh = Table::new("u", &schema, Vec::new(), 0).unwrap();
        fresh.set_layout(&table.boundaries(), 0);
        for key in &probes {
            assert_eq!(fresh.tablet_index(key), naive_index(&fresh, key));
        }
    }
}
