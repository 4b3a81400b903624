//! Tabletop's core: Cloud Bigtable's data model and a tablet storage
//! engine, small enough to run in a browser tab, with SQL, the wire
//! formats, key design and simulation, teaching and translation on top.
//!
//! # Where this crate sits
//!
//! This crate is a facade: it holds no code, only re-exports, so the web
//! app, the CLI, the JS API and the benchmarks use one crate at the paths
//! they always used. The rooms are the crates under `core/`, in one-way
//! dependency order (each uses only those before it):
//!
//! 1. `tabletop-store`: bytes, errors, schemas and GC rules, mutations,
//!    aggregates, rows, row sets, filters, the engine, an instance of
//!    tables that knows nothing above it, [`inspect`], and the [`Trace`]
//!    each data operation hands up;
//! 2. `tabletop-sql`: row-key schemas, [`sql`], materialized [`views`], and
//!    the [`Instance`] everything above uses (the store's tables with the
//!    SQL catalog, following writes through their traces);
//! 3. `tabletop-wire`: the REST JSON protocol ([`api`]) and [`cbt`];
//! 4. `tabletop-design`: [`keydesign`], the scenario document, [`sim`],
//!    [`keyviz`] and A/B [`compare`]isons;
//! 5. `tabletop-teach`: the [`advisor`] and the [`lesson`]s;
//! 6. `tabletop-translate`: [`translate`] (DynamoDB and Oracle in; cbt,
//!    gcloud and Terraform out).
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

pub use tabletop_design::{compare, keydesign, keyviz, sim};
pub use tabletop_sql::{
    AuthorizedView, FamilySubset, Instance, Instances, LogicalView, authorized_view, logical_view,
    rowkey_schema, sql, views,
};
pub use tabletop_store::{
    ChangeKind, ChangeRecord, ChangeStart, ChangeStreamBatch, ChangeStreamConfig, ChangeStreamTail,
    ChangeToken, MAX_CHANGE_RETENTION_MICROS, MIN_CHANGE_RETENTION_MICROS, PartitionChange,
    ReadChangeStreamRequest,
};
pub use tabletop_store::{base64_text, inspect, traffic};
pub use tabletop_teach::{advisor, lesson};
pub use tabletop_translate::translate;
pub use tabletop_wire::{api, cbt};

pub use tabletop_store::{
    AggregateInput, Aggregator, Cause, CellView, CheckAndMutateRowRequest,
    CheckAndMutateRowResponse, Code, CollectRows, ColumnFamily, CountRows, CreateTableRequest,
    DropTarget, EngineConfig, EngineEvent, Error, FamilyChange, Fidelity, FilterPlan,
    FilterScratch, GcRule, InstanceConfig, KeyBound, KeyRange, MAX_FAMILY_NAME_LEN,
    MAX_MUTATIONS_PER_REQUEST, MAX_QUALIFIER_BYTES, MAX_ROW_BYTES, MAX_ROW_KEY_BYTES,
    MAX_TABLE_ID_LEN, MAX_TABLES, MAX_VALUE_BYTES, MutateRowsEntry, Mutation, Operation, OwnedCell,
    OwnedRow, Place, RECOMMENDED_MAX_FAMILIES, ReadModifyWriteOp, ReadModifyWriteRowRequest,
    ReadModifyWriteRowResponse, ReadModifyWriteRule, ReadRowsRequest, ReadShape, ReadStats,
    RequestShape, Result, RowFilter, RowRange, RowSet, RowSink, RowView, RunInfo, SERVER_TIMESTAMP,
    TableInfo, TableSchema, TabletInfo, TimeUnit, TimestampRange, Trace, TraceOptions, Traces,
    ValueType, WriteStats, cell_bytes, civil_from_days, days_from_civil, escape_bytes,
    format_duration, hll_sketch, hll_unique_count, human_bytes, prefix_successor, range_text,
    successor, validate_family_name, validate_resource_id, validate_row_key, validate_table_id,
    validate_timestamp,
};
