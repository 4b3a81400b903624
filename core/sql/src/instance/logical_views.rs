//! The instance's logical views: their admin calls (create, get, list,
//! update, delete) and the checks each makes. How a query reads one is in
//! the planner (see [`crate::logical_view`]).

use super::Instance;
use crate::logical_view::LogicalView;
use crate::query::plan;
use tabletop_store::{Error, Result, validate_table_id};

fn view_not_found(id: &str) -> Error {
    Error::not_found(format!("logical view \"{id}\" not found"))
}

/// Checks the etag a request sent (when it sent one) against the view's.
fn check_etag(id: &str, view: &LogicalView, etag: Option<&str>) -> Result<()> {
    match etag {
        Some(tag) if tag != view.etag() => Err(Error::aborted(format!(
            "the etag {tag} does not match logical view \"{id}\" (now {})",
            view.etag()
        ))),
        _ => Ok(()),
    }
}

impl Instance {
    /// Whether a query may use `query` as logical view `id`: it must be
    /// one SELECT that plans now (its tables and columns exist), and must
    /// not read the view itself, directly or through other views.
    fn check_logical_view_query(&self, id: &str, query: &str) -> Result<()> {
        if query.trim().is_empty() {
            return Err(Error::invalid(
                "a logical view needs a query (a SELECT statement)",
            ));
        }
        plan::plan_logical_view(self, id, query)
            .map(|_| ())
            .map_err(|e| Error::new(e.code(), format!("query: {}", e.message())))
    }

    /// CreateLogicalView: a new view of the instance. Its id follows the
    /// rules of table ids and may not be a table's or a materialized
    /// view's name, since queries name all three alike in FROM.
    pub fn create_logical_view(&mut self, id: &str, mut view: LogicalView) -> Result<LogicalView> {
        validate_table_id(id).map_err(|e| {
            Error::invalid(
                e.message()
                    .replace("table id", "logical view id")
                    .replace("a table", "a logical view"),
            )
        })?;
        if self.catalog.logical_views.contains_key(id) {
            return Err(Error::already_exists(format!(
                "logical view \"{id}\" already exists"
            )));
        }
        if self.store.has_table(id) || self.catalog.views.contains_key(id) {
            return Err(Error::already_exists(format!(
                "a table or materialized view named \"{id}\" exists; a logical view needs a name of its own"
            )));
        }
        self.check_logical_view_query(id, &view.query)?;
        view.generation = 1;
        self.catalog
            .logical_views
            .insert(id.to_string(), view.clone());
        Ok(view)
    }

    /// GetLogicalView.
    pub fn logical_view(&self, id: &str) -> Result<&LogicalView> {
        self.catalog
            .logical_views
            .get(id)
            .ok_or_else(|| view_not_found(id))
    }

    /// ListLogicalViews: every logical view by id.
    #[must_use]
    pub fn logical_views(&self) -> Vec<(&str, &LogicalView)> {
        self.catalog
            .logical_views
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .collect()
    }

    /// UpdateLogicalView: replaces the definition (the caller merges what
    /// its update mask keeps); `etag`, when given, must be the view's
    /// current one (`ABORTED` otherwise). A new query is checked as on
    /// creation, so an update cannot make views read each other in a
    /// circle.
    pub fn update_logical_view(
        &mut self,
        id: &str,
        mut view: LogicalView,
        etag: Option<&str>,
    ) -> Result<LogicalView> {
        let current = self.logical_view(id)?;
        check_etag(id, current, etag)?;
        let generation = current.generation + 1;
        if view.query != current.query {
            self.check_logical_view_query(id, &view.query)?;
        }
        view.generation = generation;
        self.catalog
            .logical_views
            .insert(id.to_string(), view.clone());
        Ok(view)
    }

    /// DeleteLogicalView; a view with deletion protection stays
    /// (`FAILED_PRECONDITION`). Views that read it then fail when read,
    /// naming it, as after a table they read is deleted.
    pub fn delete_logical_view(&mut self, id: &str, etag: Option<&str>) -> Result<()> {
        let current = self.logical_view(id)?;
        check_etag(id, current, etag)?;
        if current.deletion_protection {
            return Err(Error::failed_precondition(format!(
                "logical view \"{id}\" is protected from deletion; turn deletion protection off first"
            )));
        }
        self.catalog.logical_views.remove(id);
        Ok(())
    }
}
