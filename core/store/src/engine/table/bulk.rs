//! The bulk write path: a batch of rows made only of `SetCell` mutations
//! (what data generators and imports produce), checked as a whole before
//! anything is written, then written in key order with one walk over the
//! tablets instead of a tablet search per row.
//!
//! What it leaves behind is what the same rows written one MutateRow call
//! at a time, in batch order, leave: the same cells (a later entry for a
//! row wins over an earlier one with the same coordinates), the same
//! flushes and splits of the write path, the same change-stream records
//! in batch order. Only the failure differs: one bad entry refuses the
//! whole batch, with the entry's index in the reason.

use std::borrow::Cow;

use super::{RESOLVED, Table, server_timestamps};
use crate::engine::EngineConfig;
use crate::engine::family::FamilyId;
use crate::error::{Error, Result};
use crate::fidelity::Fidelity;
use crate::mutation::{Mutation, validate_row_key};
use crate::schema::MAX_ROW_BYTES;

/// One row of a bulk batch: its key and its `SetCell` mutations.
pub(crate) struct BulkRow<'e, 'a> {
    pub(crate) key: &'e Cow<'a, [u8]>,
    pub(crate) mutations: &'e [Mutation<'a>],
}

/// A bulk batch that passed its checks: the order to write its rows in
/// (by key, equal keys in batch order), the family ids its mutations
/// resolved to, and the logical bytes each row adds.
pub(crate) struct CheckedBulk {
    pub(crate) order: Vec<usize>,
    pub(crate) fids: Vec<[FamilyId; RESOLVED]>,
    pub(crate) added: Vec<u64>,
}

impl Table {
    /// Writes `rows` (see the module docs) at `now_micros`, checking row
    /// keys as `fidelity` does. On error nothing is written.
    pub(crate) fn bulk_set(
        &mut self,
        rows: &[BulkRow<'_, '_>],
        now_micros: i64,
        cfg: &EngineConfig,
        fidelity: Fidelity,
    ) -> Result<()> {
        self.apply_checked_bulk(rows, now_micros, fidelity, |table, checked| {
            table.write_in_order(rows, &checked.order, &checked.fids, now_micros, cfg)
        })
    }

    /// Checks `rows` whole (on error nothing is written), then writes them
    /// by `write` with the change stream set aside, and logs them to it in
    /// batch order afterwards, as the one-call-per-row path would. The
    /// bulk write and the sorted import differ only in `write`.
    pub(super) fn apply_checked_bulk(
        &mut self,
        rows: &[BulkRow<'_, '_>],
        now_micros: i64,
        fidelity: Fidelity,
        write: impl FnOnce(&mut Self, &CheckedBulk) -> Result<()>,
    ) -> Result<()> {
        let checked = self.check_bulk(rows, fidelity)?;
        let changes = self.changes.take();
        let written = write(self, &checked);
        self.changes = changes;
        written?;
        self.log_bulk(rows, now_micros);
        Ok(())
    }

    /// Checks a whole bulk batch as MutateRow would check each entry (row
    /// keys as `fidelity` takes them), without changing anything; the
    /// first refusal names its entry.
    pub(crate) fn check_bulk(
        &mut self,
        rows: &[BulkRow<'_, '_>],
        fidelity: Fidelity,
    ) -> Result<CheckedBulk> {
        let mut fids = Vec::with_capacity(rows.len());
        let mut added = Vec::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            let at = |e: Error| e.context(format!("entry {i}"));
            if let Some(j) = row
                .mutations
                .iter()
                .position(|m| !matches!(m, Mutation::SetCell { .. }))
            {
                return Err(at(Error::invalid(format!(
                    "mutation {j} is not a SetCell; a bulk write takes only SetCell mutations"
                ))));
            }
            // The emulator takes keys over production's 4 KiB, never an
            // empty one, as `Table::mutate_row_for` checks.
            if !fidelity.is_emulator() || row.key.is_empty() {
                validate_row_key(row.key).map_err(at)?;
            }
            let mut ids = [0; RESOLVED];
            added.push(
                self.validate_resolving(row.key, row.mutations, &mut ids)
                    .map_err(at)?,
            );
            fids.push(ids);
        }
        let order = key_order(rows);
        self.check_bulk_row_sizes(rows, &order, &added)?;
        Ok(CheckedBulk { order, fids, added })
    }

    /// Records a written bulk batch in the change stream, if there is
    /// one: each row in batch order, as MutateRow calls would.
    pub(crate) fn log_bulk(&mut self, rows: &[BulkRow<'_, '_>], now_micros: i64) {
        if let Some(log) = self.changes.as_deref_mut() {
            for row in rows {
                log.push_user(
                    now_micros,
                    row.key,
                    row.mutations,
                    &self.fams,
                    server_timestamps(now_micros),
                );
            }
        }
    }

    /// Refuses the batch when a row would pass [`MAX_ROW_BYTES`] with
    /// everything the batch adds to it.
    fn check_bulk_row_sizes(
        &mut self,
        rows: &[BulkRow<'_, '_>],
        order: &[usize],
        added: &[u64],
    ) -> Result<()> {
        let total: u64 = added.iter().sum();
        let mut k = 0;
        while k < order.len() {
            let key: &[u8] = rows[order[k]].key;
            let same = order[k..]
                .iter()
                .take_while(|&&i| rows[i].key.as_ref() == key)
                .count();
            let ti = self.tablet_index(key);
            // Cheap bound first, as the one-row path does.
            if self.tablets[ti].row_bytes_bound().saturating_add(total) > MAX_ROW_BYTES as u64 {
                let row_added: u64 = order[k..k + same].iter().map(|&i| added[i]).sum();
                self.check_row_size(ti, key, row_added)
                    .map_err(|e| e.context(format!("entry {}", order[k])))?;
            }
            k += same;
        }
        Ok(())
    }

    /// Writes validated rows in `order` (by key), moving through the
    /// tablets as the keys pass their starts.
    pub(crate) fn write_in_order(
        &mut self,
        rows: &[BulkRow<'_, '_>],
        order: &[usize],
        fids: &[[FamilyId; RESOLVED]],
        now_micros: i64,
        cfg: &EngineConfig,
    ) -> Result<()> {
        let Some(&first) = order.first() else {
            return Ok(());
        };
        let mut ti = self.tablet_index(rows[first].key);
        for &i in order {
            let key: &[u8] = rows[i].key;
            while ti + 1 < self.tablets.len() && self.tablets[ti + 1].start.as_slice() <= key {
                ti += 1;
            }
            let reshaped = self.write_checked(
                ti,
                key,
                rows[i].mutations,
                &fids[i],
                now_micros,
                cfg,
                Fidelity::Production,
            )?;
            if reshaped {
                ti = self.tablet_index(key);
            }
        }
        Ok(())
    }
}

/// The rows' indexes in key order; rows with the same key keep their
/// batch order, so the later one is written later and wins.
fn key_order(rows: &[BulkRow<'_, '_>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    if !rows.windows(2).all(|w| w[0].key <= w[1].key) {
        order.sort_by(|&a, &b| rows[a].key.cmp(rows[b].key));
    }
    order
}
