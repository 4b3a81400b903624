//! Logical views: a saved SQL query that other queries read as if it were
//! a table (`SELECT ... FROM view_name`), while the data stays in the
//! tables the query reads.
//!
//! This follows Bigtable's `google.bigtable.admin.v2.LogicalView`
//! (<https://cloud.google.com/bigtable/docs/create-manage-logical-views>):
//!
//! - a logical view belongs to an instance
//!   (`projects/P/instances/I/logicalViews/V`), not to a table;
//! - it holds a `query` (required: a SELECT in GoogleSQL for Bigtable),
//!   an `etag` that update and delete may send to make sure they change
//!   what they last read (a stale one is `ABORTED`), and
//!   `deletion_protection`, which keeps it from being deleted;
//! - it is read-only and read only with SQL (ReadRows does not take it);
//!   another logical view may read it, so views stack. A view is planned
//!   afresh each time a query reads it, so it follows its tables' changes
//!   and may stop working when a table it reads goes away: the query that
//!   reads it then fails, naming the view.
//!
//! What the instance does with them (create, get, list, update, delete,
//! and the checks each makes) is in `crate::instance::logical_views`; how
//! a query reads one is in the planner (`query::plan`).

use serde::{Deserialize, Serialize};

/// A logical view's definition.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogicalView {
    /// The view's SELECT, as given.
    pub query: String,
    /// Whether the view is protected from deletion.
    #[serde(default)]
    pub deletion_protection: bool,
    /// Bumped on every change; the view's etag is made from it.
    #[serde(default)]
    pub generation: u64,
}

impl LogicalView {
    /// A view of `query`, not protected from deletion.
    #[must_use]
    pub fn new(query: impl Into<String>) -> LogicalView {
        LogicalView {
            query: query.into(),
            deletion_protection: false,
            generation: 0,
        }
    }

    /// The etag update and delete requests may send (a weak validator
    /// made from the generation, as authorized views have).
    #[must_use]
    pub fn etag(&self) -> String {
        format!("W/\"lv{}\"", self.generation)
    }
}
