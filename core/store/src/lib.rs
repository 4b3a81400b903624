//! The ground floor of Tabletop: Cloud Bigtable's data model and a tablet
//! storage engine, small enough to run in a browser tab.
//!
//! # Where this crate sits
//!
//! The Tabletop core is six crates in one-way order, each using only those
//! before it: **tabletop-store** (this one) < tabletop-sql (row-key
//! schemas, SQL, materialized views) < tabletop-wire (REST JSON, cbt) <
//! tabletop-design (key templates, scenarios, simulation, Key Visualizer)
//! < tabletop-teach (advisor, lessons) < tabletop-translate (DynamoDB and
//! Oracle in, cbt/gcloud/Terraform out); `tabletop-core` re-exports them
//! for the apps. This crate names none of the others: it owns bytes,
//! errors, schemas and GC rules, mutations and aggregates, rows and row
//! sets, filters, the engine, an [`Instance`] of tables, read-only
//! [`inspect`]ion, and the [`Trace`] each data operation hands up, plus the
//! small vocabulary every floor shares (escaped bytes, base64, byte sizes,
//! civil time).
//!
//! # Overview
//!
//! An [`Instance`] holds tables. Each table has column families (with
//! [`GcRule`]s and optional aggregate types) and is split into tablets, each
//! a memtable plus immutable sorted runs, as in Bigtable. The RPCs are
//! methods: [`Instance::create_table`], [`Instance::mutate_row`],
//! [`Instance::read_rows`] and so on, with Bigtable's semantics and errors
//! (a [`Code`] and a message). Each data RPC has a `*_traced` twin that
//! fills a [`Trace`] of what it did.
//!
//! Time is an input: the store never reads a clock. The host sets it with
//! [`Instance::set_now`] and lets the engine do its background work
//! (flushes, compactions with GC, tablet splits and merges) with
//! [`Instance::tick`].
//!
//! ```
//! use tabletop_store::*;
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

mod aggregate;
pub mod base64_text;
mod bytes;
mod change_stream;
mod engine;
mod error;
mod escape;
mod fidelity;
mod filter;
pub mod inspect;
mod instance;
mod mutation;
mod row;
mod row_set;
mod schema;
mod time;
mod trace;
pub mod traffic;
mod units;

pub use aggregate::{hll_sketch, hll_unique_count};
pub use change_stream::{
    ChangeKind, ChangeRecord, ChangeStart, ChangeStreamBatch, ChangeStreamConfig, ChangeStreamTail,
    ChangeToken, MAX_CHANGE_RETENTION_MICROS, MIN_CHANGE_RETENTION_MICROS, PartitionChange,
    ReadChangeStreamRequest,
};
pub use engine::{EngineConfig, EngineEvent};
pub use error::{Cause, Code, Error, Place, Result};
pub use escape::escape_bytes;
pub use fidelity::Fidelity;
pub use filter::{FilterPlan, FilterScratch, RegexCache, RowFilter};
pub use instance::conditional::{
    CheckAndMutateRowRequest, CheckAndMutateRowResponse, ReadModifyWriteOp,
    ReadModifyWriteRowRequest, ReadModifyWriteRowResponse, ReadModifyWriteRule,
};
pub use instance::{
    CreateTableRequest, DropTarget, Instance, InstanceConfig, MAX_MUTATIONS_PER_REQUEST,
    MAX_RESOURCE_ID_LEN, MutateRowsEntry, ReadRowsRequest, RowReader, RunInfo, StandaloneTable,
    TableInfo, TabletInfo, validate_resource_id,
};
pub use mutation::{
    AggregateInput, AggregateOp, AggregateWrite, Mutation, SERVER_TIMESTAMP, TimestampRange,
    validate_row_key, validate_timestamp,
};
pub use row::{
    CellView, CollectRows, CountRows, OwnedCell, OwnedRow, ReadStats, RowSink, RowView, cell_bytes,
};
pub use row_set::{KeyBound, KeyRange, RowRange, RowSet, prefix_successor, range_text, successor};
pub use schema::{
    Aggregator, ColumnFamily, FamilyChange, GcRule, MAX_FAMILY_NAME_LEN, MAX_QUALIFIER_BYTES,
    MAX_ROW_BYTES, MAX_ROW_KEY_BYTES, MAX_TABLE_ID_LEN, MAX_TABLES, MAX_VALUE_BYTES,
    RECOMMENDED_MAX_FAMILIES, TableSchema, ValueType, format_duration, validate_family_name,
    validate_table_id,
};
pub use time::{TimeUnit, civil_from_days, days_from_civil};
pub use trace::{
    Operation, ReadShape, RequestShape, Trace, TraceOptions, Traces, WriteStats, shape_of,
};
pub use units::human_bytes;
