//! Continuous materialized views: a SQL query over one table, kept
//! materialized as writes arrive, readable like a table (SQL and ReadRows).
//!
//! Two kinds, as in Bigtable:
//! - **aggregations**: `SELECT k, COUNT(*) AS n, SUM(x) AS s ... GROUP BY k`
//!   (COUNT, SUM, MIN, MAX, AVG, ANY_VALUE), one view row per group;
//! - **asynchronous secondary indexes**: `SELECT a AS x, _key AS id, ...
//!   ORDER BY x, id`, one view row per source row, keyed by the ORDER BY
//!   columns (which must include the source `_key`), so a lookup the source
//!   key design cannot serve becomes a prefix scan.
//!
//! The view's row key is its key columns (GROUP BY or ORDER BY) as a
//! structured key in Bigtable's `ORDERED_CODE` encoding (a column named
//! `_key` instead gives the key bytes directly); every other column is a
//! column family of the same name holding one typed cell (INT64 and
//! FLOAT64 big-endian, STRING UTF-8, BOOL one byte, TIMESTAMP as INT64
//! microseconds) with an empty qualifier and timestamp 0; a NULL is no
//! cell. A row whose values are all NULL keeps an empty cell in family
//! `_exists`, so it still reads back.
//!
//! # Maintenance
//!
//! The instance tells the catalog about every successful write to a source
//! table (MutateRow(s), CheckAndMutateRow, ReadModifyWriteRow), every
//! DropRowRange, every compaction that garbage-collected cells and every
//! change of column families or row-key schema. Each view queues the source
//! row keys (or key ranges) to look at again, oldest first. Maintenance is
//! asynchronous: [`Instance::tick`] applies queued rows that are at least
//! [`ViewOptions::delay_micros`] old, at most
//! [`ViewOptions::rows_per_second`] of them per second of instance time;
//! [`catch_up`] applies everything now. Applying a row re-reads it, computes
//! its new contribution (its group and aggregate inputs, or its index row)
//! and replaces the old one: per-row deltas keep COUNT/SUM/AVG exact and
//! MIN/MAX/ANY_VALUE right under overwrites and deletes (a view keeps, per
//! group, the multiset of inputs those need). [`status`] reports the lag:
//! rows and ranges still queued and the age of the oldest.
//!
//! Rows whose key columns evaluate to NULL are left out (a row key cannot
//! hold a NULL); rows on which evaluating the view's expressions fails are
//! left out and counted in [`ViewStatus::row_errors`]. ANY_VALUE answers
//! the smallest input, so a view equals its recomputation exactly.
//!
//! # Persistence
//!
//! Snapshots keep view definitions (and row-key schemas), not view data:
//! a restored instance rebuilds each view from its source, caught up.

pub(crate) use crate::instance::views::create_from_sql;
pub use crate::instance::views::{
    catch_up, create_view, drop_view, list_views, read_view, read_view_traced, recompute,
    set_options, status, view_rows, view_tablet_count,
};
pub use crate::view_info::{ViewKind, ViewOptions, ViewStatus};
