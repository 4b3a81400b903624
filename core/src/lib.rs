//! Tabletop's core: Cloud Bigtable's data model and a tablet storage
//! engine, small enough to run in a browser tab.
//!
//! # Overview
//!
//! An [`Instance`] holds tables. Each table has column families (with
//! [`GcRule`]s and optional aggregate types) and is split into tablets, each
//! a memtable plus immutable sorted runs, as in Bigtable. The RPCs are
//! methods: [`Instance::create_table`], [`Instance::mutate_row`],
//! [`Instance::read_rows`] and so on, with Bigtable's semantics and errors
//! (a [`Code`] and a message).
//!
//! Time is an input: the core never reads a clock. The host sets it with
//! [`Instance::set_now`] and lets the engine do its background work
//! (flushes, compactions with GC, tablet splits and merges) with
//! [`Instance::tick`].
//!
//! ```
//! use tabletop_core::*;
//!
//! let mut db = Instance::default();
//! db.set_now(1_600_000_000_000_000);
//! let mut schema = TableSchema::default();
//! schema.families.insert("stats_summary".into(), ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))));
//! db.create_table(CreateTableRequest { table_id: "mobile".into(), schema, initial_splits: vec![] })?;
//! db.mutate_row("mobile", b"phone#4c410523#20200501", &[
//!     Mutation::set_cell("stats_summary", b"os_build", -1, b"PQ2A.190405.003"),
//! ])?;
//! let mut rows = CollectRows::default();
//! let stats = db.read_rows("mobile", &ReadRowsRequest::default(), &mut rows)?;
//! assert_eq!(rows.rows.len(), 1);
//! assert_eq!(stats.cells_returned, 1);
//! # Ok::<(), Error>(())
//! ```

#![deny(missing_docs)]

pub mod advisor;
mod aggregate;
pub mod api;
mod base64_text;
mod bytes;
pub mod cbt;
mod engine;
mod error;
mod escape;
mod filter;
pub mod inspect;
mod instance;
pub mod keydesign;
pub mod keyviz;
pub mod lesson;
mod mutation;
mod rng;
mod row;
mod row_set;
pub mod rowkey_schema;
mod scenario;
mod schema;
pub mod sim;
pub mod sql;
mod time;
mod trace;
pub mod translate;
mod units;
pub mod views;

pub use aggregate::{hll_sketch, hll_unique_count};
pub use engine::{EngineConfig, EngineEvent};
pub use error::{Code, Error, Result};
pub use escape::escape_bytes;
pub use filter::{FilterPlan, FilterScratch, RowFilter};
pub use instance::conditional::{
    CheckAndMutateRowRequest, CheckAndMutateRowResponse, ReadModifyWriteOp,
    ReadModifyWriteRowRequest, ReadModifyWriteRowResponse, ReadModifyWriteRule,
};
pub use instance::{
    CreateTableRequest, DropTarget, Instance, InstanceConfig, MAX_MUTATIONS_PER_REQUEST,
    MutateRowsEntry, ReadRowsRequest, RunInfo, TableInfo, TabletInfo,
};
pub use mutation::{
    AggregateInput, Mutation, SERVER_TIMESTAMP, TimestampRange, validate_row_key,
    validate_timestamp,
};
pub use row::{
    CellView, CollectRows, CountRows, OwnedCell, OwnedRow, ReadStats, RowSink, RowView, cell_bytes,
};
pub use row_set::{KeyBound, KeyRange, RowRange, RowSet, prefix_successor, successor};
pub use schema::{
    Aggregator, ColumnFamily, FamilyChange, GcRule, MAX_FAMILY_NAME_LEN, MAX_QUALIFIER_BYTES,
    MAX_ROW_BYTES, MAX_ROW_KEY_BYTES, MAX_TABLE_ID_LEN, MAX_TABLES, MAX_VALUE_BYTES,
    RECOMMENDED_MAX_FAMILIES, TableSchema, ValueType, format_duration, validate_family_name,
    validate_table_id,
};
pub use units::human_bytes;
