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
        table.bulk_set(&rows, now, cfg, self.fidelity)?;
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
