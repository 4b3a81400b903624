//! The tablets a tick has to look at, kept as tablets change, so that a
//! tick finds its work without walking every tablet and an idle tick costs
//! next to nothing.
//!
//! A tablet is **changed** when it was written, deleted from, flushed,
//! compacted, split, merged or laid out since a tick last looked at it (or
//! the engine's thresholds changed): one flag per tablet, in tablet order,
//! kept in step as splits and merges shift the indexes. Only changed
//! tablets can have work due, but for a GC that comes due with time; for
//! that, the records keep a bound below the last-GC time of every
//! unchanged tablet holding data, so a tick knows without looking that no
//! GC is due, and walks the tablets only when one may be (and the bound
//! moves to the next one). Every place that changes a tablet calls
//! [`Table::note_changed`]; [`Table::check_upkeep`] checks the records
//! against a walk over every tablet (debug builds check it at every tick).

use super::{Table, key_prefix};
use crate::engine::EngineConfig;
use crate::engine::tablet::Tablet;

/// The upkeep records of one table (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Upkeep {
    /// Whether each tablet is changed, in tablet order.
    changed: Vec<bool>,
    /// How many are.
    changed_count: usize,
    /// At most the last-GC time of every unchanged tablet holding data
    /// (`i64::MAX` when there is none).
    earliest_gc: i64,
    /// The thresholds the records were made under; a tick with others
    /// looks at every tablet again.
    cfg: Option<EngineConfig>,
}

impl Table {
    /// Records that tablet `i` changed: the next tick looks at it.
    pub(crate) fn note_changed(&mut self, i: usize) {
        let flag = &mut self.upkeep.changed[i];
        if !*flag {
            *flag = true;
            self.upkeep.changed_count += 1;
        }
    }

    /// Every tablet changed: after a new layout.
    pub(crate) fn reset_upkeep(&mut self) {
        self.upkeep.changed = vec![true; self.tablets.len()];
        self.upkeep.changed_count = self.tablets.len();
        self.upkeep.earliest_gc = i64::MAX;
    }

    /// [`Table::note_changed`] for every tablet: after a compaction of
    /// everything or new thresholds.
    pub(crate) fn note_all_changed(&mut self) {
        self.upkeep.changed.fill(true);
        self.upkeep.changed_count = self.upkeep.changed.len();
    }

    /// Drops tablet `i`'s record, before the tablet leaves the table.
    pub(crate) fn forget(&mut self, i: usize) {
        if self.upkeep.changed.remove(i) {
            self.upkeep.changed_count -= 1;
        }
    }

    /// Records a new tablet, changed, at index `i` (once it is there).
    pub(crate) fn insert_changed(&mut self, i: usize) {
        self.upkeep.changed.insert(i, true);
        self.upkeep.changed_count += 1;
    }

    /// Ends tablet `i`'s change after a tick looked at it and did what was
    /// due; its GC time now bounds the records' earliest.
    pub(crate) fn settle(&mut self, i: usize) {
        if std::mem::take(&mut self.upkeep.changed[i]) {
            self.upkeep.changed_count -= 1;
        }
        let t = &self.tablets[i];
        if !t.mem.is_empty() || !t.runs.is_empty() {
            self.upkeep.earliest_gc = self.upkeep.earliest_gc.min(t.last_gc_micros);
        }
    }

    /// Whether tablet `i` is changed.
    pub(crate) fn is_changed(&self, i: usize) -> bool {
        self.upkeep.changed[i]
    }

    /// At a tick's start: every tablet is changed when the thresholds are
    /// not the ones the records were made under; when a GC may have come
    /// due at `now`, the tablets whose GC has become changed, and the bound
    /// moves to the earliest of the others.
    pub(crate) fn wake_due(&mut self, now: i64, cfg: &EngineConfig) {
        if self.upkeep.cfg.as_ref() != Some(cfg) {
            self.upkeep.cfg = Some(cfg.clone());
            self.note_all_changed();
            return;
        }
        if now.saturating_sub(self.upkeep.earliest_gc) < cfg.gc_interval_micros {
            return;
        }
        let mut earliest = i64::MAX;
        for (t, changed) in self.tablets.iter().zip(&mut self.upkeep.changed) {
            if *changed || t.mem.is_empty() && t.runs.is_empty() {
                continue;
            }
            if now.saturating_sub(t.last_gc_micros) >= cfg.gc_interval_micros {
                *changed = true;
                self.upkeep.changed_count += 1;
            } else {
                earliest = earliest.min(t.last_gc_micros);
            }
        }
        self.upkeep.earliest_gc = earliest;
    }

    /// The first changed tablet at index `from` or after.
    pub(crate) fn next_changed(&self, from: usize) -> Option<usize> {
        if self.upkeep.changed_count == 0 {
            return None;
        }
        let rest = self.upkeep.changed.get(from..)?;
        Some(from + rest.iter().position(|&c| c)?)
    }

    /// Checks the records against a walk over every tablet: one record per
    /// tablet, the start prefixes the tablets' own, the count right, the GC bound below every unchanged
    /// tablet's, and every tablet the tick's rules under `cfg` find work
    /// for (a flush, a compaction, a split, a merge with a neighbour) is
    /// changed, but for a GC come due, which the bound covers. Returns what
    /// is wrong.
    pub(crate) fn check_upkeep(&self, cfg: &EngineConfig) -> Result<(), String> {
        let records = &self.upkeep.changed;
        if records.len() != self.tablets.len() {
            return Err(format!(
                "{} records for {} tablets",
                records.len(),
                self.tablets.len()
            ));
        }
        let starts = self.tablets.iter().map(|t| key_prefix(&t.start));
        if !self.start_prefixes.iter().copied().eq(starts) {
            return Err("the start prefixes are not the tablets'".to_string());
        }
        let count = records.iter().filter(|&&c| c).count();
        if count != self.upkeep.changed_count {
            return Err(format!(
                "{count} tablets changed, {} counted",
                self.upkeep.changed_count
            ));
        }
        if self.upkeep.cfg.as_ref().is_some_and(|c| c != cfg) {
            return Ok(()); // The next tick looks at every tablet.
        }
        for (i, t) in self.tablets.iter().enumerate() {
            if records[i] {
                continue;
            }
            let at = || format!("tablet {i} ({:?})", t.start);
            let has_data = !t.mem.is_empty() || !t.runs.is_empty();
            if has_data && t.last_gc_micros < self.upkeep.earliest_gc {
                return Err(format!("{}'s GC is before the records' earliest", at()));
            }
            if has_own_work(t, cfg) {
                return Err(format!("{} has work due but is not changed", at()));
            }
            if i > 0 && !records[i - 1] && self.mergeable(i - 1, cfg) {
                return Err(format!("{} can merge with its left neighbour unseen", at()));
            }
        }
        Ok(())
    }

    /// Whether tablets `i` and `i + 1` are small enough together to merge
    /// (and not cut apart by an initial split).
    pub(crate) fn mergeable(&self, i: usize, cfg: &EngineConfig) -> bool {
        let right = &self.tablets[i + 1];
        self.tablets[i].bytes() + right.bytes() < cfg.merge_bytes
            && self.initial_splits.binary_search(&right.start).is_err()
    }
}

/// Whether a tick has work of its own for `t` by its rules, its GC
/// aside: a flush, a compaction or a split (found by looking, the walk
/// that [`Upkeep`] spares ticks).
fn has_own_work(t: &Tablet, cfg: &EngineConfig) -> bool {
    t.mem.bytes() >= cfg.memtable_flush_bytes
        || compaction_needed(t, cfg)
        || (cfg.split_bytes > 0 && t.wants_split(cfg.split_bytes))
}

/// Whether a tick at `now` compacts `t` (after flushing it if its
/// memtable is full): it holds data, and its GC is due or
/// [`compaction_needed`] says so.
pub(crate) fn compaction_due(t: &Tablet, now: i64, cfg: &EngineConfig) -> bool {
    let has_data = !t.mem.is_empty() || !t.runs.is_empty();
    has_data
        && (now.saturating_sub(t.last_gc_micros) >= cfg.gc_interval_micros
            || compaction_needed(t, cfg))
}

/// Whether `t` needs a compaction whatever the time: it has too many
/// runs, or is mostly deleted cells, or is past the split size (splits
/// on) and cannot be cut as it is (see [`Tablet::cuts_cleanly`]): the
/// compaction is a piece of the tick's budget, and the split then only
/// slices its run.
fn compaction_needed(t: &Tablet, cfg: &EngineConfig) -> bool {
    if t.mem.is_empty() && t.runs.is_empty() {
        return false;
    }
    let cells: usize = t.runs.iter().map(|r| r.cell_count()).sum();
    let dead: usize = t.runs.iter().map(|r| r.dead_count()).sum();
    let mostly_deleted = dead > 0 && dead * 3 >= cells;
    t.runs.len() > cfg.max_runs || mostly_deleted || split_waits_for_compaction(t, cfg)
}

/// Whether `t` is past the split size, with splits on, but must be
/// compacted before a split can cut it.
fn split_waits_for_compaction(t: &Tablet, cfg: &EngineConfig) -> bool {
    cfg.split_bytes > 0 && t.wants_split(cfg.split_bytes) && !t.cuts_cleanly()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::engine::EngineEvent;
    use crate::engine::pace::{OutOfTime, Pace};
    use crate::mutation::Mutation;
    use crate::schema::{ColumnFamily, GcRule, TableSchema};

    /// A small xorshift generator: the same operations on every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    fn configs() -> [EngineConfig; 2] {
        let small = EngineConfig {
            memtable_flush_bytes: 1_200,
            split_bytes: 4_000,
            merge_bytes: 1_500,
            gc_interval_micros: 2_000,
            max_runs: 2,
        };
        let other = EngineConfig {
            split_bytes: 9_000,
            merge_bytes: 5_000,
            ..small.clone()
        };
        [small, other]
    }

    /// After any mix of writes, deletes, drops, restores of a layout,
    /// compactions of everything, changes of thresholds and ticks stopped
    /// at random, the records match a walk over every tablet, and a whole
    /// tick leaves nothing a walk would find.
    #[test]
    fn the_records_match_a_walk_over_every_tablet_after_random_operations() {
        let schema = TableSchema {
            families: [(
                "f".to_string(),
                ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
            )]
            .into(),
        };
        let cfgs = configs();
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut table = Table::new("t", &schema, vec![b"m".to_vec()], 0).unwrap();
        let mut now = 0i64;
        let mut cfg = &cfgs[0];
        let mut events = Vec::new();
        for step in 0..4_000 {
            let key = format!(
                "{}{:03}",
                (b'a' + rng.below(26) as u8) as char,
                rng.below(300)
            );
            match rng.below(100) {
                0..60 => {
                    let value = vec![b'v'; 1 + rng.below(150) as usize];
                    let set = [Mutation::set_cell("f", b"q", now / 1000 * 1000, &value[..])];
                    table.mutate_row(key.as_bytes(), &set, now, cfg).unwrap();
                }
                60..68 => {
                    let del = [Mutation::DeleteFromRow];
                    table.mutate_row(key.as_bytes(), &del, now, cfg).unwrap();
                }
                68..70 => table.drop_rows(Some(&key.as_bytes()[..1]), now),
                70..72 => {
                    let cells = [(0, &b"q"[..], now / 1000 * 1000, &b"restored"[..])];
                    table.load_row(key.as_bytes(), &cells, cfg);
                }
                72 => table.compact_all(now, &mut events),
                73 => cfg = &cfgs[rng.below(2) as usize],
                74 if rng.below(8) == 0 => {
                    let keys = table.boundaries();
                    table = Table::new("t", &schema, vec![b"m".to_vec()], now).unwrap();
                    table.set_layout(&keys, now);
                }
                75..85 => now += rng.below(1_500) as i64,
                _ => {
                    let mut looks = rng.below(4);
                    let mut pace = OutOfTime(&mut || {
                        looks = looks.saturating_sub(1);
                        looks == 0
                    });
                    table.tick_within(now, cfg, &mut events, &mut pace);
                }
            }
            // Ticks check the records themselves (a debug assertion);
            // here they are checked after every operation too.
            let mut woken = table.clone();
            woken.wake_due(now, cfg);
            assert_eq!(woken.check_upkeep(cfg), Ok(()), "step {step}");
        }
        table.tick(now, cfg, &mut events);
        let count = |f: fn(&EngineEvent) -> bool| events.iter().filter(|e| f(e)).count();
        let splits = count(|e| matches!(e, EngineEvent::Split { .. }));
        let merges = count(|e| matches!(e, EngineEvent::Merge { .. }));
        assert!(
            splits > 10 && merges > 10,
            "{splits} splits, {merges} merges"
        );
        for i in 0..table.tablets.len() {
            assert!(!table.is_changed(i), "tablet {i} still changed");
            let t = &table.tablets[i];
            assert!(!compaction_due(t, now, cfg) && !has_own_work(t, cfg));
            assert!(i == 0 || !table.mergeable(i - 1, cfg));
        }
    }

    /// A pace that refuses every piece: what a tick still does with it,
    /// it does outside its budget.
    struct RefuseAll;

    impl Pace for RefuseAll {
        fn may_start(&mut self, _bytes: u64) -> bool {
            false
        }

        fn done(&mut self, _bytes: u64) {}

        fn out_of_time(&mut self) -> bool {
            true
        }
    }

    fn one_family_table() -> Table {
        let schema = TableSchema {
            families: [(
                "f".to_string(),
                ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
            )]
            .into(),
        };
        Table::new("t", &schema, vec![], 0).unwrap()
    }

    fn count(events: &[EngineEvent], f: fn(&EngineEvent) -> bool) -> usize {
        events.iter().filter(|e| f(e)).count()
    }

    /// With splits off (`split_bytes` 0) no tablet is ever past the split
    /// size: a tick leaves a tablet whose GC is not due and whose memtable
    /// is not full as it is, rather than compacting it for a split that
    /// will not come.
    #[test]
    fn with_splits_off_a_tick_compacts_nothing_that_is_not_due() {
        let cfg = EngineConfig {
            split_bytes: 0,
            merge_bytes: 0,
            ..configs()[0].clone()
        };
        let mut table = one_family_table();
        let set = [Mutation::set_cell("f", b"q", 0, &b"v"[..])];
        table.mutate_row(b"k", &set, 0, &cfg).unwrap();
        let mut events = Vec::new();
        table.tick(0, &cfg, &mut events);
        assert_eq!(
            count(&events, |e| matches!(e, EngineEvent::Compaction { .. })),
            0,
            "{events:?}"
        );
        assert!(
            !table.tablets[0].mem.is_empty(),
            "the write stays in memory"
        );
    }

    /// A compacted tablet past the split size that has since taken a
    /// deletion is compacted first, as a piece of the tick's budget, and
    /// only then cut: a tick with no time left does not split it (that
    /// split copied its rows whatever the budget), and one with time cuts
    /// the compacted run into slices without the deleted row.
    #[test]
    fn a_deletion_in_a_compacted_tablet_waits_for_a_budgeted_compaction_before_the_split() {
        let roomy = EngineConfig {
            memtable_flush_bytes: 1 << 20,
            split_bytes: 1 << 20,
            merge_bytes: 0,
            gc_interval_micros: 1 << 40,
            max_runs: 4,
        };
        let mut table = one_family_table();
        let value = [b'v'; 150];
        for r in 0..40 {
            let set = [Mutation::set_cell("f", b"q", 0, &value[..])];
            table
                .mutate_row(format!("row{r:02}").as_bytes(), &set, 0, &roomy)
                .unwrap();
        }
        let mut events = Vec::new();
        table.compact_all(0, &mut events);
        table.tick(0, &roomy, &mut events);
        let del = [Mutation::DeleteFromRow];
        table.mutate_row(b"row07", &del, 0, &roomy).unwrap();
        assert!(table.tablets[0].is_compacted() && !table.tablets[0].cuts_cleanly());

        let tight = EngineConfig {
            split_bytes: 2_000,
            ..roomy
        };
        events.clear();
        table.tick_within(0, &tight, &mut events, &mut RefuseAll);
        assert_eq!(
            table.tablets.len(),
            1,
            "no split without a budget: {events:?}"
        );

        let mut never_out = OutOfTime(&mut || false);
        table.tick_within(0, &tight, &mut events, &mut never_out);
        assert_eq!(
            count(&events, |e| matches!(e, EngineEvent::Compaction { .. })),
            1,
            "{events:?}"
        );
        assert!(table.tablets.len() > 1, "split once compacted: {events:?}");
        for t in &table.tablets {
            assert!(t.cuts_cleanly(), "every piece is a clean slice");
        }
        let rows: usize = table.tablets.iter().map(|t| t.runs[0].row_count()).sum();
        assert_eq!(rows, 39, "the deleted row is gone");
    }

    /// A tick with nothing due looks at no tablet: the records list none,
    /// and a GC comes due by the bound alone.
    #[test]
    fn an_idle_table_lists_no_tablet() {
        let schema = TableSchema {
            families: [("f".to_string(), ColumnFamily::default())].into(),
        };
        let cfg = &configs()[0];
        let splits = (b'b'..=b'y').map(|c| vec![c]).collect();
        let mut table = Table::new("t", &schema, splits, 0).unwrap();
        let mut events = Vec::new();
        table.tick(0, cfg, &mut events);
        assert_eq!(table.next_changed(0), None);
        let set = [Mutation::set_cell("f", b"q", 0, &b"v"[..])];
        table.mutate_row(b"c1", &set, 0, cfg).unwrap();
        assert_eq!(table.upkeep.changed_count, 1);
        assert_eq!(table.next_changed(0), Some(2));
        table.tick(0, cfg, &mut events);
        assert_eq!(table.next_changed(0), None);
        assert_eq!(
            table.upkeep.earliest_gc, 0,
            "the written tablet waits for its GC"
        );
        table.wake_due(cfg.gc_interval_micros - 1, cfg);
        assert_eq!(table.next_changed(0), None);
        table.wake_due(cfg.gc_interval_micros, cfg);
        assert_eq!(table.next_changed(0), Some(2));
        assert_eq!(table.upkeep.earliest_gc, i64::MAX);
    }
}
