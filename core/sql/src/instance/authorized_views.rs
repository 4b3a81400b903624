//! The instance's authorized views: their admin calls (create, get, list,
//! update, delete) and the data calls made through one, which see and
//! touch only the view's subset (see [`crate::authorized_view`]).

use std::collections::BTreeMap;

use super::Instance;
use crate::authorized_view::AuthorizedView;
use tabletop_store::{
    CheckAndMutateRowRequest, CheckAndMutateRowResponse, CollectRows, Error, MutateRowsEntry,
    Mutation, OwnedRow, ReadModifyWriteRowRequest, ReadModifyWriteRowResponse, ReadRowsRequest,
    ReadStats, Result, RowFilter, RowSet, RowSink, Trace, validate_table_id,
};

fn view_not_found(table: &str, id: &str) -> Error {
    Error::not_found(format!(
        "authorized view \"{id}\" of table \"{table}\" not found"
    ))
}

impl Instance {
    /// Whether `table` has the family `family` now.
    fn family_check(&self, table: &str) -> Result<impl Fn(&str) -> bool + use<>> {
        let families: Vec<String> = self
            .store
            .get_table(table)?
            .schema
            .families
            .into_keys()
            .collect();
        Ok(move |f: &str| families.iter().any(|n| n == f))
    }

    /// CreateAuthorizedView: a new view of an existing table.
    pub fn create_authorized_view(
        &mut self,
        table: &str,
        id: &str,
        mut view: AuthorizedView,
    ) -> Result<AuthorizedView> {
        let has = self.family_check(table)?;
        validate_table_id(id).map_err(|e| {
            Error::invalid(
                e.message()
                    .replace("table id", "authorized view id")
                    .replace("a table", "an authorized view"),
            )
        })?;
        view.validate(has)?;
        let views = self
            .catalog
            .authorized_views
            .entry(table.to_string())
            .or_default();
        if views.contains_key(id) {
            return Err(Error::already_exists(format!(
                "authorized view \"{id}\" of table \"{table}\" already exists"
            )));
        }
        view.generation = 1;
        views.insert(id.to_string(), view.clone());
        Ok(view)
    }

    /// GetAuthorizedView.
    pub fn authorized_view(&self, table: &str, id: &str) -> Result<&AuthorizedView> {
        self.store.get_table(table)?;
        self.catalog
            .authorized_views
            .get(table)
            .and_then(|v| v.get(id))
            .ok_or_else(|| view_not_found(table, id))
    }

    /// The view, when `etag` (if given) is its current one; else ABORTED,
    /// as Bigtable answers a change made against an older read.
    fn authorized_view_at(
        &self,
        table: &str,
        id: &str,
        etag: Option<&str>,
    ) -> Result<&AuthorizedView> {
        let current = self.authorized_view(table, id)?;
        if let Some(tag) = etag
            && tag != current.etag()
        {
            return Err(Error::aborted(format!(
                "the etag {tag} does not match authorized view \"{id}\" (now {})",
                current.etag()
            )));
        }
        Ok(current)
    }

    /// ListAuthorizedViews: the table's views by id.
    pub fn authorized_views(&self, table: &str) -> Result<Vec<(&str, &AuthorizedView)>> {
        self.store.get_table(table)?;
        Ok(self
            .catalog
            .authorized_views
            .get(table)
            .map(|m| m.iter().map(|(k, v)| (k.as_str(), v)).collect())
            .unwrap_or_default())
    }

    /// UpdateAuthorizedView: replaces the definition (the caller merges
    /// what its update mask keeps); `etag`, when given, must be the view's
    /// current one (`ABORTED` otherwise).
    pub fn update_authorized_view(
        &mut self,
        table: &str,
        id: &str,
        mut view: AuthorizedView,
        etag: Option<&str>,
    ) -> Result<AuthorizedView> {
        let current = self.authorized_view_at(table, id, etag)?;
        view.generation = current.generation + 1;
        view.validate(self.family_check(table)?)?;
        if let Some(views) = self.catalog.authorized_views.get_mut(table) {
            views.insert(id.to_string(), view.clone());
        }
        Ok(view)
    }

    /// DeleteAuthorizedView; a view with deletion protection stays.
    pub fn delete_authorized_view(
        &mut self,
        table: &str,
        id: &str,
        etag: Option<&str>,
    ) -> Result<()> {
        let current = self.authorized_view_at(table, id, etag)?;
        if current.deletion_protection {
            return Err(Error::failed_precondition(format!(
                "authorized view \"{id}\" is protected from deletion; turn deletion protection off first"
            )));
        }
        if let Some(views) = self.catalog.authorized_views.get_mut(table) {
            views.remove(id);
            if views.is_empty() {
                self.catalog.authorized_views.remove(table);
            }
        }
        Ok(())
    }

    /// The ids of the table's views protected from deletion.
    pub(crate) fn protected_views(&self, table: &str) -> Vec<String> {
        self.catalog
            .authorized_views
            .get(table)
            .map(|m| {
                m.iter()
                    .filter(|(_, v)| v.deletion_protection)
                    .map(|(k, _)| k.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    // ------------------------------------------------------------ data

    /// ReadRows through a view: only its rows, only its cells.
    pub fn read_rows_in_view_traced<S: RowSink + ?Sized>(
        &mut self,
        table: &str,
        id: &str,
        req: &ReadRowsRequest,
        sink: &mut S,
        trace: Option<&mut Trace>,
    ) -> Result<ReadStats> {
        let view = self.authorized_view(table, id)?.clone();
        let has = self.family_check(table)?;
        let Some(rows) = view.restrict_rows(&req.rows)? else {
            // Still check the filter, as a read of no rows would.
            let probe = ReadRowsRequest {
                rows: RowSet::single(b"\0".to_vec()),
                filter: req.filter.clone(),
                rows_limit: 0,
                reversed: false,
            };
            self.read_rows_unrecorded(table, &probe, &mut CollectRows::default())?;
            return Ok(ReadStats::default());
        };
        let inner = ReadRowsRequest {
            rows,
            filter: Some(view.filter_with(req.filter.clone(), has)),
            rows_limit: req.rows_limit,
            reversed: req.reversed,
        };
        self.read_rows_traced(table, &inner, sink, trace)
    }

    /// The row as it is now, when a mutation's check needs it.
    fn row_for_check(
        &mut self,
        table: &str,
        key: &[u8],
        mutations: &[Mutation<'_>],
    ) -> Result<Option<OwnedRow>> {
        let needs = mutations.iter().any(|m| {
            matches!(
                m,
                Mutation::DeleteFromRow | Mutation::DeleteFromFamily { .. }
            )
        });
        if !needs {
            return Ok(None);
        }
        let mut rows = CollectRows::default();
        let req = ReadRowsRequest::rows(RowSet::single(key.to_vec()));
        self.read_rows_unrecorded(table, &req, &mut rows)?;
        Ok(rows.rows.pop())
    }

    /// Refuses `mutations` of row `key` unless all stay inside the view.
    fn check_in_view(
        &mut self,
        view: &AuthorizedView,
        table: &str,
        key: &[u8],
        mutations: &[Mutation<'_>],
    ) -> Result<()> {
        view.check_row(key)?;
        let row = self.row_for_check(table, key, mutations)?;
        for m in mutations {
            view.check_mutation(m, row.as_ref())?;
        }
        Ok(())
    }

    /// MutateRow through a view.
    pub fn mutate_row_in_view_traced(
        &mut self,
        table: &str,
        id: &str,
        key: &[u8],
        mutations: &[Mutation<'_>],
        trace: Option<&mut Trace>,
    ) -> Result<()> {
        let view = self.authorized_view(table, id)?.clone();
        self.check_in_view(&view, table, key, mutations)?;
        self.mutate_row_traced(table, key, mutations, trace)
    }

    /// MutateRows through a view: an entry that leaves the view gets
    /// `PERMISSION_DENIED` as its status; the others apply.
    pub fn mutate_rows_in_view_traced(
        &mut self,
        table: &str,
        id: &str,
        entries: &[MutateRowsEntry<'_>],
        trace: Option<&mut Trace>,
    ) -> Result<Vec<Result<()>>> {
        let view = self.authorized_view(table, id)?.clone();
        let mut refused: BTreeMap<usize, Error> = BTreeMap::new();
        let mut allowed = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            match self.check_in_view(&view, table, &e.row_key, &e.mutations) {
                Ok(()) => allowed.push(e.clone()),
                Err(err) => {
                    refused.insert(i, err);
                }
            }
        }
        let mut done = if allowed.is_empty() && !entries.is_empty() {
            Vec::new()
        } else {
            self.mutate_rows_traced(table, &allowed, trace)?
        }
        .into_iter();
        Ok((0..entries.len())
            .map(|i| match refused.remove(&i) {
                Some(err) => Err(err),
                None => done.next().unwrap_or(Ok(())),
            })
            .collect())
    }

    /// CheckAndMutateRow through a view: the predicate sees only the
    /// view's cells, and every mutation must stay inside it.
    pub fn check_and_mutate_row_in_view_traced(
        &mut self,
        table: &str,
        id: &str,
        req: &CheckAndMutateRowRequest<'_>,
        trace: Option<&mut Trace>,
    ) -> Result<CheckAndMutateRowResponse> {
        let view = self.authorized_view(table, id)?.clone();
        self.check_in_view(&view, table, &req.row_key, &req.true_mutations)?;
        self.check_in_view(&view, table, &req.row_key, &req.false_mutations)?;
        let has = self.family_check(table)?;
        let own = req.predicate_filter.clone().unwrap_or(RowFilter::PassAll);
        let inner = CheckAndMutateRowRequest {
            row_key: req.row_key.clone(),
            predicate_filter: Some(view.filter_with(Some(own), has)),
            true_mutations: req.true_mutations.clone(),
            false_mutations: req.false_mutations.clone(),
        };
        self.check_and_mutate_row_traced(table, &inner, trace)
    }

    /// ReadModifyWriteRow through a view: every rule's column must be in
    /// it.
    pub fn read_modify_write_row_in_view_traced(
        &mut self,
        table: &str,
        id: &str,
        req: &ReadModifyWriteRowRequest,
        trace: Option<&mut Trace>,
    ) -> Result<ReadModifyWriteRowResponse> {
        let view = self.authorized_view(table, id)?.clone();
        view.check_row(&req.row_key)?;
        for rule in &req.rules {
            view.check_rule(rule)?;
        }
        self.read_modify_write_row_traced(table, req, trace)
    }

    /// SampleRowKeys through a view: the table's samples that fall in the
    /// view's rows, and the last one (the end of the table).
    pub fn sample_row_keys_in_view_traced(
        &mut self,
        table: &str,
        id: &str,
        trace: Option<&mut Trace>,
    ) -> Result<Vec<(Vec<u8>, u64)>> {
        let view = self.authorized_view(table, id)?.clone();
        let samples = self.sample_row_keys_traced(table, trace)?;
        let last = samples.len().saturating_sub(1);
        Ok(samples
            .into_iter()
            .enumerate()
            .filter(|(i, (key, _))| *i == last || view.covers_row(key))
            .map(|(_, s)| s)
            .collect())
    }
}
