//! The sorted bulk import (Bigtable's import, HBase's bulk load): a
//! checked bulk batch whose rows land past every row a tablet holds (a
//! fresh table, or a loader appending in key order) becomes that
//! tablet's run directly, built from the sorted rows, and the tablet is
//! cut at the split threshold at once. The write path's memtable, its
//! flushes, the compactions that merge the flushed runs and the split
//! that follows them are all skipped: the rows are copied once.
//!
//! Rows that land among existing rows of a tablet go the bulk write's
//! way (its memtable), so what a read sees never depends on the path.
//! Either way no GC applies here: as with any write, versions the rules
//! allow collecting stay until a compaction collects them.

use super::bulk::{BulkRow, CheckedBulk};
use super::{RESOLVED, Table, resolved, server_timestamps};
use crate::engine::EngineConfig;
use crate::engine::family::FamilyId;
use crate::engine::run::{Run, RunBuilder};
use crate::engine::tablet::family_lens;
use crate::error::{Error, Result};
use crate::fidelity::Fidelity;
use crate::mutation::Mutation;

/// Below this many logical bytes a tablet's run is always copied into the
/// run an import builds after it; above, only when the import brings at
/// least a quarter as much. Rows drawn at random often land past a
/// tablet's last row one or two at a time: copying a whole tablet for
/// them cost a scenario's load more than the memtable (a tenth more CPU
/// natively with 256 KiB here).
const COPY_FREELY_BYTES: u64 = 16 * 1024;

/// Most logical bytes one tablet's group may bring to be built into a
/// run (whose offsets are 32-bit); a bigger group goes through the
/// memtable, which flushes and splits as it fills.
const MAX_GROUP_BYTES: u64 = 1 << 30;

/// One cell of a row being imported, in the order the batch gave it.
struct ImportCell<'e> {
    fid: FamilyId,
    qual: &'e [u8],
    ts: i64,
    value: &'e [u8],
}

impl Table {
    /// Imports `rows` (checked as [`Table::bulk_set`] checks them; on error
    /// nothing is written) at `now_micros`. What reads, statistics, the
    /// traffic and the change stream see is what the bulk write leaves;
    /// only the tablets' shape differs (cut as they fill, not when a tick
    /// finds them big).
    pub(crate) fn bulk_import(
        &mut self,
        rows: &[BulkRow<'_, '_>],
        now_micros: i64,
        cfg: &EngineConfig,
        fidelity: Fidelity,
    ) -> Result<()> {
        self.apply_checked_bulk(rows, now_micros, fidelity, |table, checked| {
            table.import_in_order(rows, checked, now_micros, cfg)
        })
    }

    /// Hands each tablet its rows (one sorted group per tablet): built
    /// into its run when they all come after what it holds, written
    /// through the memtable otherwise.
    fn import_in_order(
        &mut self,
        rows: &[BulkRow<'_, '_>],
        checked: &CheckedBulk,
        now_micros: i64,
        cfg: &EngineConfig,
    ) -> Result<()> {
        let order = &checked.order;
        let mut k = 0;
        while k < order.len() {
            let first: &[u8] = rows[order[k]].key;
            let ti = self.tablet_index(first);
            let n = match self.tablets[ti].end.as_deref() {
                None => order.len() - k,
                Some(end) => order[k..].partition_point(|&i| rows[i].key.as_ref() < end),
            };
            let group = &order[k..k + n];
            let bytes: u64 = group.iter().map(|&i| checked.added[i]).sum();
            if self.appends_to(ti, first, bytes) {
                self.append_sorted(ti, rows, group, &checked.fids, now_micros)?;
                self.cut_imported(ti, cfg);
            } else {
                self.write_in_order(rows, group, &checked.fids, now_micros, cfg)?;
            }
            k += n;
        }
        Ok(())
    }

    /// Whether tablet `ti` can take `bytes` of rows starting at `first` as
    /// a new run: it is compacted (nothing in its memtable, at most one
    /// run), every row it holds sorts before `first`, and its run is small
    /// enough to copy into the new one.
    fn appends_to(&self, ti: usize, first: &[u8], bytes: u64) -> bool {
        let t = &self.tablets[ti];
        if !t.mem.is_empty() || bytes > MAX_GROUP_BYTES {
            return false;
        }
        match t.runs.as_slice() {
            [] => true,
            [run] => {
                let before = run
                    .row_count()
                    .checked_sub(1)
                    .is_none_or(|last| run.row_key(last) < first);
                let copied = run.bytes();
                before && (copied <= COPY_FREELY_BYTES || copied <= bytes.saturating_mul(4))
            }
            _ => false,
        }
    }

    /// Replaces tablet `ti`'s run with one holding its old rows followed by
    /// the rows `group` of `rows` (in key order; entries for one key merged,
    /// a later cell winning over an earlier one at the same coordinates).
    fn append_sorted(
        &mut self,
        ti: usize,
        rows: &[BulkRow<'_, '_>],
        group: &[usize],
        fids: &[[FamilyId; RESOLVED]],
        now_micros: i64,
    ) -> Result<()> {
        let resolve = server_timestamps(now_micros);
        let old = self.tablets[ti].runs.pop();
        let mut b = RunBuilder::new(family_lens(&self.fams));
        reserve_for(&mut b, old.as_ref(), rows, group);
        if let Some(old) = &old {
            b.copy_rows(old, 0, old.row_count(), &|fid| self.fams.is_alive(fid));
        }
        let ranks = self.fams.ranks();
        let mut cells: Vec<ImportCell<'_>> = Vec::new();
        let mut g = 0;
        while g < group.len() {
            let key: &[u8] = rows[group[g]].key;
            let same = group[g..]
                .iter()
                .take_while(|&&i| rows[i].key.as_ref() == key)
                .count();
            cells.clear();
            for &i in &group[g..g + same] {
                for (m, mutation) in rows[i].mutations.iter().enumerate() {
                    let Mutation::SetCell {
                        family_name,
                        column_qualifier,
                        timestamp_micros,
                        value,
                    } = mutation
                    else {
                        return Err(Error::internal("a checked bulk row holds a non-SetCell"));
                    };
                    cells.push(ImportCell {
                        fid: resolved(&fids[i], m, &self.fams, family_name)?,
                        qual: column_qualifier,
                        ts: resolve(*timestamp_micros),
                        value,
                    });
                }
            }
            put_row(&mut b, key, &mut cells, ranks);
            g += same;
        }
        let run = b.finish();
        if run.row_count() > 0 {
            self.tablets[ti].runs.push(run);
        }
        // The next tick looks at it (its GC, a merge with a neighbour).
        self.note_changed(ti);
        Ok(())
    }

    /// Cuts tablet `ti`, freshly built by an import, into tablets of the
    /// size a split makes when it is past the split threshold; the split
    /// is reported at the next tick, as the write path's are.
    fn cut_imported(&mut self, ti: usize, cfg: &EngineConfig) {
        let mut events = std::mem::take(&mut self.pending);
        self.split_one(ti, cfg, &mut events);
        self.pending = events;
    }
}

/// Reserves the builder's arrays for the old run and the group's rows.
fn reserve_for(b: &mut RunBuilder, old: Option<&Run>, rows: &[BulkRow<'_, '_>], group: &[usize]) {
    let (mut n_rows, mut n_cells, mut keys, mut values) = (group.len(), 0, 0, 0);
    if let Some(old) = old {
        let (k, v) = old.arena_sizes();
        n_rows += old.row_count();
        n_cells += old.cell_count();
        keys += k;
        values += v;
    }
    for &i in group {
        keys += rows[i].key.len();
        n_cells += rows[i].mutations.len();
        values += rows[i]
            .mutations
            .iter()
            .map(|m| match m {
                Mutation::SetCell { value, .. } => value.len(),
                _ => 0,
            })
            .sum::<usize>();
    }
    b.reserve(n_rows, n_cells, keys, values);
}

/// Adds one row's cells to the builder in cell order (family rank,
/// qualifier, newest timestamp first); of cells at the same coordinates
/// only the last given is kept, as a later write shadows an earlier one.
fn put_row(b: &mut RunBuilder, key: &[u8], cells: &mut [ImportCell<'_>], ranks: &[u16]) {
    let order = |x: &ImportCell<'_>, y: &ImportCell<'_>| {
        ranks[usize::from(x.fid)]
            .cmp(&ranks[usize::from(y.fid)])
            .then_with(|| crate::bytes::cmp(x.qual, y.qual))
            .then_with(|| y.ts.cmp(&x.ts))
    };
    // Rows usually come with their cells in order and no repeats.
    if !cells.windows(2).all(|w| order(&w[0], &w[1]).is_lt()) {
        // Stable: cells at equal coordinates keep the order they came in.
        cells.sort_by(order);
    }
    b.start_row(key);
    for (i, c) in cells.iter().enumerate() {
        if cells.get(i + 1).is_some_and(|n| order(c, n).is_eq()) {
            continue;
        }
        b.add_cell(c.fid, c.qual, c.ts, c.value);
    }
}
