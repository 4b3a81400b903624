//! Change streams through the SQL floor's [`Instance`]: enabling one on a
//! table and reading it. Reading changes no view, so these only pass the
//! store's answers up; a materialized view has no change stream of its
//! own (its rows live in the catalog, not in a table).

use tabletop_store::{
    ChangeStreamBatch, ChangeStreamConfig, KeyRange, ReadChangeStreamRequest, Result, TableInfo,
};

use super::Instance;

impl Instance {
    /// UpdateTable's `change_stream_config`: see
    /// [`tabletop_store::Instance::set_change_stream`].
    pub fn set_change_stream(
        &mut self,
        table_id: &str,
        config: Option<ChangeStreamConfig>,
    ) -> Result<TableInfo> {
        self.store.set_change_stream(table_id, config)
    }

    /// ReadChangeStream: see [`tabletop_store::Instance::read_change_stream`].
    pub fn read_change_stream(
        &mut self,
        table_id: &str,
        req: &ReadChangeStreamRequest,
    ) -> Result<ChangeStreamBatch> {
        self.store.read_change_stream(table_id, req)
    }

    /// GenerateInitialChangeStreamPartitions: see
    /// [`tabletop_store::Instance::change_stream_partitions`].
    pub fn change_stream_partitions(&mut self, table_id: &str) -> Result<Vec<KeyRange>> {
        self.store.change_stream_partitions(table_id)
    }
}
