//! [`Instance::bulk_write`]: MutateRows for data loads. A batch of rows
//! made only of `SetCell` mutations is checked as a whole, then written
//! by the engine's bulk path (in key order, one walk over the tablets),
//! and recorded in the traffic, the change stream and the trace as the
//! same rows written by [`Instance::mutate_rows`] would be.

use super::emulator::check_as_emulator;
use super::{Instance, MAX_MUTATIONS_PER_REQUEST, MutateRowsEntry, note_row};
use crate::engine::table::bulk::BulkRow;
use crate::error::{Error, Result};
use crate::trace::{Operation, Trace};

/// How the engine takes a checked bulk batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BulkPath {
    /// Through the tablets' memtables (see the engine's bulk path).
    Write,
    /// As runs built from the sorted rows where they append (see the
    /// engine's import).
    Import,
}

impl Instance {
    /// Writes `entries` (each one row of `SetCell` mutations) as one
    /// batch: every entry is checked before any is written, and one that
    /// MutateRows would refuse (or that holds another kind of mutation)
    /// refuses the whole batch, naming the entry, with nothing written.
    /// What is written, read back, counted and recorded is what
    /// [`Instance::mutate_rows`] with the same entries leaves; the
    /// engine's cost per row is lower (see the engine's bulk path).
    pub fn bulk_write(&mut self, table_id: &str, entries: &[MutateRowsEntry<'_>]) -> Result<()> {
        self.bulk_write_traced(table_id, entries, None)
    }

    /// [`Instance::bulk_write`], recording what it wrote, as
    /// [`Instance::mutate_rows_traced`] does.
    pub fn bulk_write_traced(
        &mut self,
        table_id: &str,
        entries: &[MutateRowsEntry<'_>],
        trace: Option<&mut Trace>,
    ) -> Result<()> {
        self.bulk_apply(table_id, entries, trace, BulkPath::Write)
    }

    /// Checks and writes a bulk batch by `path`, then records it in the
    /// traffic and the trace as MutateRows would.
    pub(super) fn bulk_apply(
        &mut self,
        table_id: &str,
        entries: &[MutateRowsEntry<'_>],
        trace: Option<&mut Trace>,
        path: BulkPath,
    ) -> Result<()> {
        if entries.is_empty() {
            return Err(Error::invalid("a bulk write needs at least one entry"));
        }
        let total: usize = entries.iter().map(|e| e.mutations.len()).sum();
        if total > MAX_MUTATIONS_PER_REQUEST {
            return Err(Error::invalid(format!(
                "a bulk write carries {total} mutations; the limit is {MAX_MUTATIONS_PER_REQUEST}"
            )));
        }
        let now = self.now_micros;
        let cfg = &self.config.engine;
        let emulator = self.fidelity.is_emulator();
        let table = self
            .tables
            .get_mut(table_id)
            .ok_or_else(|| Error::table_not_found(table_id))?;
        if emulator {
            // The emulator's own checks come first, in its words.
            for (i, e) in entries.iter().enumerate() {
                for m in &e.mutations {
                    check_as_emulator(table, m).map_err(|err| err.context(format!("entry {i}")))?;
                }
            }
        }
        let rows: Vec<BulkRow<'_, '_>> = entries
            .iter()
            .map(|e| BulkRow {
                key: &e.row_key,
                mutations: &e.mutations,
            })
            .collect();
        match path {
            BulkPath::Write => table.bulk_set(&rows, now, cfg, self.fidelity)?,
            BulkPath::Import => table.bulk_import(&rows, now, cfg, self.fidelity)?,
        }
        if self.record_traffic {
            for e in entries {
                let bytes = e
                    .mutations
                    .iter()
                    .map(|m| m.written(e.row_key.len()).1)
                    .sum();
                table.traffic.note_write(now, &e.row_key, bytes);
            }
        }
        if let Some(t) = trace {
            t.begin(Operation::MutateRows, table_id);
            for e in entries {
                note_row(t, &e.row_key, &e.mutations);
            }
            t.tablet_count = table.tablets.len();
        }
        Ok(())
    }
}
