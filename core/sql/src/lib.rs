//! The SQL floor of Tabletop: row-key schemas, a GoogleSQL subset with
//! EXPLAIN, and continuous materialized views, over the store.
//!
//! # Where this crate sits
//!
//! Second of the core's six crates (tabletop-store < **tabletop-sql** <
//! tabletop-wire < tabletop-design < tabletop-teach < tabletop-translate);
//! it uses only the store. It owns:
//!
//! - [`Instance`]: the store's tables with this crate's catalog beside
//!   them. The store calls no SQL; this type follows every write through
//!   the store's [`Trace`](tabletop_store::Trace) (written keys, dropped
//!   ranges) and engine events, so views stay in step, and serves a view's
//!   name to ReadRows. Everything above the store uses this `Instance`.
//! - [`Instances`]: every instance a host keeps, each a separate
//!   namespace of tables, with the snapshot that holds them all.
//! - [`authorized_view`]: Bigtable's authorized views (a subset of a
//!   table's rows and columns), kept in the catalog; reads and writes
//!   through one see and touch only its subset.
//! - [`rowkey_schema`]: a row key read as named, typed fields.
//! - [`sql`]: parsing, planning into one ReadRows request, execution and
//!   EXPLAIN.
//! - [`views`]: materialized views (aggregations and secondary indexes)
//!   kept by queued, asynchronous maintenance.

#![deny(missing_docs)]

// Internal rooms, bottom first: the schema of a key, what a view is, the
// query machinery, then the instance with its catalog (row-key schemas,
// materialized views and authorized views, whose definitions live in the
// public `authorized_view` room), then the instances a host keeps.
mod instance;
mod instances;
mod key_schema;
mod query;
mod view_info;
// The public rooms, re-exporting the ones above with the calls hosts make
// on an instance: row-key schemas, views, and SQL statements.
pub mod authorized_view;
pub mod logical_view;
pub mod rowkey_schema;
pub mod sql;
pub mod views;

pub use authorized_view::{AuthorizedView, FamilySubset};
pub use instance::Instance;
pub use instances::Instances;
pub use logical_view::LogicalView;
