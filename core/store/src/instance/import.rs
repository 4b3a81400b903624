//! [`Instance::bulk_import`]: a data load's sorted import. The batch is
//! checked as [`Instance::bulk_write`] checks it; rows that come after
//! everything their tablet holds (a fresh table, or a loader going in key
//! order) become compacted runs directly, cut into tablets at the split
//! threshold, instead of passing through memtables, flushes, compactions
//! and splits.

use super::Instance;
use super::MutateRowsEntry;
use super::bulk::BulkPath;
use crate::error::Result;
use crate::trace::Trace;

impl Instance {
    /// Imports `entries` (each one row of `SetCell` mutations) as one
    /// batch, checked as a whole: one entry MutateRows would refuse (or one
    /// holding another kind of mutation) refuses the batch, naming the
    /// entry, with nothing written. Rows in key order cost least (the
    /// batch is sorted otherwise). Rows, reads, read statistics, the
    /// traffic, the change stream and the trace are what
    /// [`Instance::bulk_write`] leaves; the tablets come out compacted and
    /// cut where the rows append to their tablet, so the ticks that follow
    /// a load find little to do. GC rules apply at the next compaction
    /// that collects, as for any write.
    pub fn bulk_import(&mut self, table_id: &str, entries: &[MutateRowsEntry<'_>]) -> Result<()> {
        self.bulk_import_traced(table_id, entries, None)
    }

    /// [`Instance::bulk_import`], recording what it wrote, as
    /// [`Instance::mutate_rows_traced`] does.
    pub fn bulk_import_traced(
        &mut self,
        table_id: &str,
        entries: &[MutateRowsEntry<'_>],
        trace: Option<&mut Trace>,
    ) -> Result<()> {
        self.bulk_apply(table_id, entries, trace, BulkPath::Import)
    }
}
