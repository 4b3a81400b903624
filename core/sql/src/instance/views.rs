//! The materialized views of an instance: their definitions compiled
//! with the query machinery, their data in standalone tables, the queues
//! of source changes and the maintenance that applies them. The public
//! calls are re-exported by `crate::views`, whose documentation says how
//! views behave.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::Instance;
use crate::authorized_view::AuthorizedView;
use crate::key_schema::{FieldType, IntEncoding, KeyField, KeyValue, RowKeySchema, StructEncoding};
use crate::logical_view::LogicalView;
use crate::query::exec::{RowCtx, eval};
use crate::query::lex::Pos;
use crate::query::parse::{Expr, FromItem, Ident, SelectItem, Statement, parse_statement};
use crate::query::plan::{
    AggKind, Analyzer, ColRef, ReadPlan, Scope, Source, SourceKind, TExpr, TKind, Temporal,
};
use crate::query::value::{Ordered, SqlType, Value};
use crate::query::{self, SqlError, Tables};
use crate::view_info::{ViewKind, ViewOptions, ViewStatus};
use tabletop_store::Mutation;
use tabletop_store::ReadRowsRequest;
use tabletop_store::TimeUnit;
use tabletop_store::{ColumnFamily, GcRule, TableSchema, validate_family_name};
use tabletop_store::{EngineEvent, StandaloneTable as Table, Trace};
use tabletop_store::{Error, Result};
use tabletop_store::{KeyRange, RowSet};
use tabletop_store::{OwnedRow, ReadStats, RowSink};

/// Most source rows one maintenance read fetches at once.
const BATCH: usize = 500;

/// One output column.
#[derive(Clone, Debug)]
struct Col {
    name: String,
    ty: SqlType,
    expr: TExpr,
}

/// A compiled view definition.
#[derive(Clone, Debug)]
struct Def {
    kind: ViewKind,
    source: Source,
    filter: Option<TExpr>,
    keys: Vec<Col>,
    /// Value columns; in aggregations each is one aggregate call.
    values: Vec<Col>,
    /// The single key column is the raw row key (named `_key`).
    raw_key: bool,
    key_schema: Option<RowKeySchema>,
    order: Vec<ColRef>,
    need_key_fields: bool,
}

/// What one source row puts into the view.
#[derive(Clone, Debug, PartialEq)]
enum Contribution {
    Agg {
        group: Vec<Value>,
        inputs: Vec<Value>,
    },
    Index {
        key: Vec<u8>,
        values: Vec<Value>,
    },
}

/// Per-group aggregate state.
#[derive(Clone, Debug, Default)]
struct AggState {
    /// Non-NULL inputs.
    n: u64,
    int_sum: i128,
    /// Inputs kept for MIN, MAX, ANY_VALUE and FLOAT64 sums, with counts.
    values: BTreeMap<Ordered, u64>,
}

#[derive(Clone, Debug, Default)]
struct Group {
    rows: u64,
    aggs: Vec<AggState>,
}

/// A materialized view: its definition, data and queue.
#[derive(Clone, Debug)]
pub(crate) struct MaterializedView {
    name: String,
    source_table: String,
    query: String,
    options: ViewOptions,
    def: Def,
    storage: Table,
    contributions: BTreeMap<Vec<u8>, Contribution>,
    groups: BTreeMap<Vec<Ordered>, Group>,
    /// Queued source keys and when they were first queued.
    pending: BTreeMap<Vec<u8>, i64>,
    pending_by_time: BTreeSet<(i64, Vec<u8>)>,
    pending_ranges: Vec<(KeyRange, i64)>,
    rebuild: Option<i64>,
    recompile: bool,
    last_maintained: i64,
    rows_applied: u64,
    row_errors: u64,
    error: Option<String>,
}

/// Row-key schemas and materialized views of an instance.
#[derive(Clone, Debug, Default)]
pub(crate) struct Catalog {
    pub(crate) row_key_schemas: BTreeMap<String, RowKeySchema>,
    pub(crate) views: BTreeMap<String, MaterializedView>,
    /// Authorized views by table, then by view id.
    pub(crate) authorized_views: BTreeMap<String, BTreeMap<String, AuthorizedView>>,
    /// Logical views by id.
    pub(crate) logical_views: BTreeMap<String, LogicalView>,
    /// Hosts' notes by table, then by key (see `host_notes`).
    pub(crate) table_notes: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
}

impl Catalog {
    /// Whether there is nothing to keep in a snapshot.
    pub(crate) fn is_empty(&self) -> bool {
        self.row_key_schemas.is_empty()
            && self.views.is_empty()
            && self.authorized_views.is_empty()
            && self.logical_views.is_empty()
            && self.table_notes.is_empty()
    }

    /// Whether any view reads `table` (so writes to it must be followed).
    pub(crate) fn follows(&self, table: &str) -> bool {
        self.views.values().any(|v| v.source_table == table)
    }

    /// Queues what a traced write to `table` wrote: its row keys, or the
    /// key range it dropped.
    pub(crate) fn note_trace(&mut self, table: &str, trace: &Trace, now: i64) {
        if let Some(range) = &trace.write.dropped {
            self.note_range(table, range, now);
        }
        for key in &trace.write.keys {
            self.note_row(table, key, now);
        }
    }

    /// Queues the key ranges where garbage collection removed cells (the
    /// engine's compaction events), for the views that read them.
    pub(crate) fn note_collected(&mut self, events: &[EngineEvent], now: i64) {
        if self.views.is_empty() {
            return;
        }
        for e in events {
            if let EngineEvent::Compaction {
                table,
                start,
                end,
                collected,
                ..
            } = e
                && *collected > 0
            {
                let range = KeyRange {
                    start: start.clone(),
                    end: end.clone(),
                };
                self.note_range(table, &range, now);
            }
        }
    }

    /// Views that read `table`.
    pub(crate) fn views_on(&self, table: &str) -> Vec<String> {
        self.views
            .values()
            .filter(|v| v.source_table == table)
            .map(|v| v.name.clone())
            .collect()
    }

    /// A row of `table` was written.
    pub(crate) fn note_row(&mut self, table: &str, key: &[u8], now: i64) {
        for v in self.views.values_mut() {
            if v.source_table == table {
                v.enqueue(key, now);
            }
        }
    }

    /// Rows of `table` in a key range may have changed (DropRowRange,
    /// garbage collection).
    pub(crate) fn note_range(&mut self, table: &str, range: &KeyRange, now: i64) {
        for v in self.views.values_mut() {
            if v.source_table == table {
                v.pending_ranges.push((range.clone(), now));
            }
        }
    }

    /// The families or row-key schema of `table` changed: views on it are
    /// compiled again and rebuilt.
    pub(crate) fn note_source_changed(&mut self, table: &str, now: i64) {
        for v in self.views.values_mut() {
            if v.source_table == table {
                v.recompile = true;
                v.rebuild.get_or_insert(now);
            }
        }
    }

    /// A table was deleted.
    pub(crate) fn note_table_deleted(&mut self, table: &str) {
        self.row_key_schemas.remove(table);
        self.authorized_views.remove(table);
        self.table_notes.remove(table);
    }

    /// The definitions, for a snapshot.
    pub(crate) fn export(&self, emulator_parity: bool) -> Vec<u8> {
        let doc = SavedCatalog {
            emulator_parity,
            row_key_schemas: self.row_key_schemas.clone(),
            views: self
                .views
                .values()
                .map(|v| SavedView {
                    name: v.name.clone(),
                    query: v.query.clone(),
                    options: v.options,
                })
                .collect(),
            authorized_views: self.authorized_views.clone(),
            logical_views: self.logical_views.clone(),
            table_notes: self.table_notes.clone(),
        };
        serde_json::to_vec(&doc).unwrap_or_default()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedCatalog {
    row_key_schemas: BTreeMap<String, RowKeySchema>,
    views: Vec<SavedView>,
    /// Absent in snapshots written before authorized views existed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    authorized_views: BTreeMap<String, BTreeMap<String, AuthorizedView>>,
    /// Absent in snapshots written before logical views existed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    logical_views: BTreeMap<String, LogicalView>,
    /// Whether the instance answers as Google's emulator does (absent,
    /// and false, in snapshots of instances answering as production).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    emulator_parity: bool,
    /// Absent in snapshots written before hosts kept notes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    table_notes: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedView {
    name: String,
    query: String,
    options: ViewOptions,
}

/// Rebuilds the catalog a snapshot saved: schemas as they were, views
/// recomputed from their sources.
pub(crate) fn restore_catalog(db: &mut Instance, bytes: &[u8]) -> Result<()> {
    let doc: SavedCatalog = serde_json::from_slice(bytes)
        .map_err(|e| Error::invalid(format!("the snapshot's SQL catalog is unreadable: {e}")))?;
    if doc.emulator_parity {
        db.switch_fidelity(tabletop_store::Fidelity::Emulator)?;
    }
    for (table, schema) in doc.row_key_schemas {
        db.get_table(&table).map_err(|_| {
            Error::invalid(format!(
                "the snapshot's SQL catalog names table {table}, which it does not hold"
            ))
        })?;
        db.catalog_mut().row_key_schemas.insert(table, schema);
    }
    for (table, views) in doc.authorized_views {
        let info = db.get_table(&table).map_err(|_| {
            Error::invalid(format!(
                "the snapshot's authorized views name table {table}, which it does not hold"
            ))
        })?;
        for (id, view) in &views {
            view.validate(|f| info.schema.families.contains_key(f))
                .map_err(|e| {
                    Error::invalid(format!(
                        "the snapshot's authorized view {id} of table {table}: {}",
                        e.message()
                    ))
                })?;
        }
        db.catalog_mut().authorized_views.insert(table, views);
    }
    for v in doc.views {
        create_view_with(db, &v.name, &v.query, v.options).map_err(|e| {
            Error::invalid(format!("the snapshot's view {}: {}", v.name, e.message()))
        })?;
    }
    // Kept as saved: a logical view is planned when a query reads it, and
    // one whose table has gone is still a view (its readers get the error).
    db.catalog_mut().logical_views = doc.logical_views;
    for (table, notes) in doc.table_notes {
        db.get_table(&table).map_err(|_| {
            Error::invalid(format!(
                "the snapshot's notes name table {table}, which it does not hold"
            ))
        })?;
        db.catalog_mut().table_notes.insert(table, notes);
    }
    Ok(())
}

// ------------------------------------------------------------ compiling

fn refuse(msg: impl std::fmt::Display, pos: Pos) -> Error {
    SqlError::unsupported(msg, pos)
}

fn col_name(item: &SelectItem, i: usize) -> Result<(String, Pos)> {
    match item {
        SelectItem::Star { pos } => Err(refuse(
            "SELECT * is not supported in materialized views; list the columns",
            *pos,
        )),
        SelectItem::Expr { expr, alias } => match (alias, expr) {
            (Some(a), _) => Ok((a.name.clone(), a.pos)),
            (None, Expr::Ident(id)) => Ok((id.name.clone(), id.pos)),
            (None, e) => Err(SqlError::analysis(
                format!(
                    "Column {} of a materialized view needs a name: add AS name",
                    i + 1
                ),
                e.pos(),
            )),
        },
    }
}

/// Which select item a GROUP BY or ORDER BY item names.
fn select_index(
    e: &Expr,
    names: &[(String, Pos)],
    analyzed: &[TExpr],
    a: &mut Analyzer<'_>,
    what: &str,
) -> Result<usize> {
    match e {
        Expr::Int(i, p) => usize::try_from(*i)
            .ok()
            .filter(|&i| i >= 1 && i <= names.len())
            .map(|i| i - 1)
            .ok_or_else(|| {
                SqlError::analysis(format!("{what} column number {i} is out of range"), *p)
            }),
        Expr::Ident(id) if names.iter().any(|(n, _)| n.eq_ignore_ascii_case(&id.name)) => Ok(names
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case(&id.name))
            .unwrap_or(0)),
        other => {
            let t = a.expr(other)?;
            let fp = t.fingerprint();
            analyzed
                .iter()
                .position(|x| x.fingerprint() == fp)
                .ok_or_else(|| {
                    SqlError::analysis(
                        format!(
                            "{what} expression must appear in the SELECT list: in a materialized view it becomes part of the row key"
                        ),
                        other.pos(),
                    )
                })
        }
    }
}

fn key_field_type(t: &SqlType) -> Option<FieldType> {
    Some(match t {
        SqlType::String => FieldType::String { width: None },
        SqlType::Bytes => FieldType::Bytes { width: None },
        SqlType::Int64 => FieldType::Int64(IntEncoding::OrderedCode),
        SqlType::Timestamp => FieldType::Timestamp {
            unit: TimeUnit::Micros,
            encoding: IntEncoding::OrderedCode,
            reversed: false,
        },
        _ => return None,
    })
}

fn compile(db: &Instance, name: &str, query: &str) -> Result<Def> {
    let stmt = parse_statement(query)?;
    let Statement::Query(q) = stmt else {
        return Err(Error::invalid(
            "a materialized view is defined by a SELECT query",
        ));
    };
    let (table, alias) = match &q.from {
        Some(FromItem::Table { name, args, alias }) => {
            if let Some((a, _)) = args.first() {
                return Err(refuse(
                    "Temporal filters are not supported in materialized views; a view follows the latest values",
                    a.pos,
                ));
            }
            (name.clone(), alias.clone())
        }
        Some(FromItem::Unpack { pos, .. }) => {
            return Err(refuse(
                "UNPACK is not supported in materialized views",
                *pos,
            ));
        }
        None => {
            return Err(refuse("A materialized view reads a table: add FROM", q.pos));
        }
    };
    if table.name == name {
        return Err(SqlError::analysis("A view cannot read itself", table.pos));
    }
    // Bigtable computes a continuous materialized view from the table its
    // FROM names (its query grammar's from_item is a table name); a
    // logical view holds no data of its own to follow.
    if db.catalog().logical_views.contains_key(&table.name) {
        return Err(refuse(
            format!(
                "A materialized view reads a table; {} is a logical view. Name the table it reads in FROM",
                table.name
            ),
            table.pos,
        ));
    }
    let src = db.source(&table, alias.as_ref())?;
    if src.kind == SourceKind::View {
        return Err(refuse(
            "A materialized view reads a table, not another view",
            table.pos,
        ));
    }
    if let Some((_, p)) = q.limit {
        return Err(refuse("LIMIT is not supported in materialized views", p));
    }
    let aggregation = !q.group_by.is_empty();
    if aggregation && !q.order_by.is_empty() {
        return Err(refuse(
            "A materialized view has GROUP BY (an aggregation) or ORDER BY (a secondary index), not both",
            q.pos,
        ));
    }
    if !aggregation && q.order_by.is_empty() {
        return Err(refuse(
            "A materialized view needs GROUP BY (an aggregation) or ORDER BY (an asynchronous secondary index)",
            q.pos,
        ));
    }
    let mut a = Analyzer::new(Scope::Source(&src));
    a.allow_agg = aggregation;
    let mut names = Vec::new();
    let mut exprs = Vec::new();
    for (i, item) in q.select.iter().enumerate() {
        let (n, p) = col_name(item, i)?;
        if names
            .iter()
            .any(|(m, _): &(String, Pos)| m.eq_ignore_ascii_case(&n))
        {
            return Err(SqlError::analysis(
                format!("Duplicate column name {n} in a materialized view"),
                p,
            ));
        }
        if let SelectItem::Expr { expr, .. } = item {
            exprs.push(a.expr(expr)?);
        }
        names.push((n, p));
    }
    let filter = match &q.where_ {
        Some(w) => {
            a.allow_agg = false;
            let t = a.expr(w)?;
            if t.ty != SqlType::Bool {
                return Err(SqlError::analysis(
                    format!("WHERE expects BOOL, got {}", t.ty),
                    t.pos,
                ));
            }
            Some(t)
        }
        None => None,
    };
    a.allow_agg = false;
    let mut key_idx: Vec<usize> = Vec::new();
    if aggregation {
        for g in &q.group_by {
            let i = select_index(g, &names, &exprs, &mut a, "GROUP BY")?;
            if exprs[i].has_agg() {
                return Err(SqlError::analysis("Cannot GROUP BY an aggregate", g.pos()));
            }
            if !key_idx.contains(&i) {
                key_idx.push(i);
            }
        }
    } else {
        for o in &q.order_by {
            if o.desc {
                return Err(refuse(
                    "DESC ordering is not supported in materialized views",
                    o.expr.pos(),
                ));
            }
            let i = select_index(&o.expr, &names, &exprs, &mut a, "ORDER BY")?;
            if !key_idx.contains(&i) {
                key_idx.push(i);
            }
        }
        if !key_idx.iter().any(|&i| matches!(exprs[i].kind, TKind::Key)) {
            return Err(SqlError::analysis(
                "An asynchronous secondary index must include the source row key, unchanged, in ORDER BY (for example _key AS order_key), so each source row has one index row",
                q.pos,
            ));
        }
    }
    let mut keys = Vec::new();
    let mut values = Vec::new();
    let mut order = Vec::new();
    let raw_key = key_idx
        .iter()
        .any(|&i| names[i].0.eq_ignore_ascii_case("_key"));
    for (i, e) in exprs.iter().enumerate() {
        let (n, p) = &names[i];
        if key_idx.contains(&i) {
            continue;
        }
        if n.eq_ignore_ascii_case("_key") {
            return Err(SqlError::analysis(
                "_key names the view's row key; name this column otherwise",
                *p,
            ));
        }
        if aggregation && !matches!(e.kind, TKind::Agg(..)) {
            let msg = if e.has_agg() {
                "A column of an aggregating view is a GROUP BY key or one aggregate call (COUNT, SUM, MIN, MAX, AVG, ANY_VALUE)".to_string()
            } else {
                format!("SELECT list expression {n} is neither grouped nor aggregated")
            };
            return Err(SqlError::analysis(msg, *p));
        }
        if matches!(
            e.ty,
            SqlType::Map(..) | SqlType::Array(_) | SqlType::Struct(_)
        ) {
            return Err(refuse(
                format!(
                    "Column {n} has type {}; materialized view columns are scalar (convert or index the map)",
                    e.ty
                ),
                *p,
            ));
        }
        validate_family_name(n).map_err(|_| {
            SqlError::analysis(format!("Column name {n} cannot name a column family"), *p)
        })?;
        if n == MARKER_FAMILY {
            return Err(SqlError::analysis(
                format!("Column name {MARKER_FAMILY} is reserved for the view's own use"),
                *p,
            ));
        }
    }
    if raw_key && key_idx.len() > 1 {
        let p = names[key_idx[0]].1;
        return Err(SqlError::analysis(
            "A column named _key is the view's whole row key; the key has no other column",
            p,
        ));
    }
    for &i in &key_idx {
        let (n, p) = &names[i];
        let e = &exprs[i];
        if raw_key {
            if !matches!(e.ty, SqlType::Bytes | SqlType::String) {
                return Err(SqlError::analysis(
                    format!("_key must be BYTES or STRING, not {}", e.ty),
                    *p,
                ));
            }
        } else if key_field_type(&e.ty).is_none() {
            return Err(SqlError::analysis(
                format!(
                    "Key column {n} has type {}; view keys are STRING, BYTES, INT64 or TIMESTAMP",
                    e.ty
                ),
                *p,
            ));
        }
        if !raw_key && matches!(e.kind, TKind::Key) && n.eq_ignore_ascii_case("_key") {
            return Err(SqlError::analysis(
                "name the source row key column, for example _key AS order_key: _key is the view's own row key",
                *p,
            ));
        }
        keys.push(Col {
            name: n.clone(),
            ty: e.ty.clone(),
            expr: e.clone(),
        });
    }
    for (i, e) in exprs.iter().enumerate() {
        if key_idx.contains(&i) {
            if raw_key {
                order.push(ColRef::RawKey);
            } else {
                let k = key_idx.iter().position(|&x| x == i).unwrap_or(0);
                order.push(ColRef::KeyField(k));
            }
            continue;
        }
        order.push(ColRef::Value(values.len()));
        values.push(Col {
            name: names[i].0.clone(),
            ty: e.ty.clone(),
            expr: e.clone(),
        });
    }
    let key_schema = if raw_key {
        None
    } else {
        let s = RowKeySchema {
            fields: keys
                .iter()
                .map(|k| KeyField {
                    name: k.name.clone(),
                    field_type: key_field_type(&k.ty).unwrap_or(FieldType::Bytes { width: None }),
                })
                .collect(),
            encoding: StructEncoding::OrderedCode,
        };
        s.validate()?;
        Some(s)
    };
    let mut need_key_fields = false;
    for e in exprs.iter().chain(filter.iter()) {
        e.walk(&mut |x| {
            if matches!(x.kind, TKind::KeyField(_)) {
                need_key_fields = true;
            }
        });
    }
    Ok(Def {
        kind: if aggregation {
            ViewKind::Aggregation
        } else {
            ViewKind::SecondaryIndex
        },
        source: src,
        filter,
        keys,
        values,
        raw_key,
        key_schema,
        order,
        need_key_fields,
    })
}

// ------------------------------------------------------------ the view

fn storage_schema(def: &Def) -> TableSchema {
    let mut s = TableSchema::default();
    for v in &def.values {
        s.families.insert(
            v.name.clone(),
            ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
        );
    }
    s.families.insert(
        MARKER_FAMILY.to_string(),
        ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
    );
    s
}

impl MaterializedView {
    fn enqueue(&mut self, key: &[u8], now: i64) {
        if self.pending.contains_key(key) {
            return;
        }
        self.pending.insert(key.to_vec(), now);
        self.pending_by_time.insert((now, key.to_vec()));
    }

    pub(crate) fn source(&self, alias: String) -> Source {
        Source {
            name: self.name.clone(),
            alias,
            kind: SourceKind::View,
            key_schema: self.def.key_schema.clone(),
            families: Vec::new(),
            view_cols: self
                .def
                .values
                .iter()
                .map(|c| (c.name.clone(), c.ty.clone()))
                .collect(),
            view_order: self.def.order.clone(),
            history: false,
        }
    }

    fn status(&self, now: i64) -> ViewStatus {
        let oldest = [
            self.pending_by_time.first().map(|(t, _)| *t),
            self.pending_ranges.iter().map(|(_, t)| *t).min(),
            self.rebuild,
        ]
        .into_iter()
        .flatten()
        .min();
        ViewStatus {
            name: self.name.clone(),
            source_table: self.source_table.clone(),
            kind: self.def.kind,
            query: self.query.clone(),
            key_columns: self.def.keys.iter().map(|k| k.name.clone()).collect(),
            rows: match self.def.kind {
                ViewKind::Aggregation => self.groups.len() as u64,
                ViewKind::SecondaryIndex => self.contributions.len() as u64,
            },
            pending_rows: self.pending.len() as u64,
            pending_ranges: self.pending_ranges.len() as u64,
            rebuild_pending: self.rebuild.is_some(),
            oldest_pending_micros: oldest,
            lag_micros: oldest.map_or(0, |o| now.saturating_sub(o).max(0)),
            rows_applied: self.rows_applied,
            row_errors: self.row_errors,
            error: self.error.clone(),
            options: self.options,
        }
    }

    /// What a decoded source row contributes.
    fn contribution(&mut self, ctx: &RowCtx<'_>) -> Option<Contribution> {
        let def = &self.def;
        let run = || -> Result<Option<Contribution>> {
            if let Some(f) = &def.filter
                && eval(f, ctx)? != Value::Bool(true)
            {
                return Ok(None);
            }
            let mut keyvals = Vec::with_capacity(def.keys.len());
            for k in &def.keys {
                let v = eval(&k.expr, ctx)?;
                if v.is_null() {
                    return Ok(None);
                }
                keyvals.push(v);
            }
            match def.kind {
                ViewKind::Aggregation => {
                    let mut inputs = Vec::with_capacity(def.values.len());
                    for c in &def.values {
                        let v = match &c.expr.kind {
                            TKind::Agg(_, Some(arg)) => eval(arg, ctx)?,
                            _ => Value::Null,
                        };
                        inputs.push(v);
                    }
                    Ok(Some(Contribution::Agg {
                        group: keyvals,
                        inputs,
                    }))
                }
                ViewKind::SecondaryIndex => {
                    let key = match view_key(def, &keyvals) {
                        Some(k) => k,
                        None => return Ok(None),
                    };
                    let mut values = Vec::with_capacity(def.values.len());
                    for c in &def.values {
                        values.push(eval(&c.expr, ctx)?);
                    }
                    Ok(Some(Contribution::Index { key, values }))
                }
            }
        };
        match run() {
            Ok(c) => c,
            Err(e) => {
                self.row_errors += 1;
                self.error = Some(format!(
                    "row \"{}\": {}",
                    tabletop_store::escape_bytes(ctx.key),
                    e.message()
                ));
                None
            }
        }
    }

    /// Replaces a source row's contribution, noting what to rewrite.
    fn replace(
        &mut self,
        key: &[u8],
        new: Option<Contribution>,
        touched_groups: &mut BTreeSet<Vec<Ordered>>,
        touched_keys: &mut BTreeMap<Vec<u8>, Option<Vec<Value>>>,
    ) {
        let old = self.contributions.remove(key);
        if old == new {
            if let Some(c) = old {
                self.contributions.insert(key.to_vec(), c);
            }
            return;
        }
        if let Some(c) = &old {
            match c {
                Contribution::Agg { group, inputs } => {
                    let g: Vec<Ordered> = group.iter().cloned().map(Ordered).collect();
                    if let Some(state) = self.groups.get_mut(&g) {
                        state.rows = state.rows.saturating_sub(1);
                        for (st, v) in state.aggs.iter_mut().zip(inputs) {
                            remove_input(st, v);
                        }
                        if state.rows == 0 {
                            self.groups.remove(&g);
                        }
                    }
                    touched_groups.insert(g);
                }
                Contribution::Index { key: vk, .. } => {
                    touched_keys.entry(vk.clone()).or_insert(None);
                }
            }
        }
        if let Some(c) = &new {
            match c {
                Contribution::Agg { group, inputs } => {
                    let g: Vec<Ordered> = group.iter().cloned().map(Ordered).collect();
                    let n = self.def.values.len();
                    let state = self.groups.entry(g.clone()).or_insert_with(|| Group {
                        rows: 0,
                        aggs: vec![AggState::default(); n],
                    });
                    state.rows += 1;
                    for (st, v) in state.aggs.iter_mut().zip(inputs) {
                        add_input(st, v);
                    }
                    touched_groups.insert(g);
                }
                Contribution::Index { key: vk, values } => {
                    touched_keys.insert(vk.clone(), Some(values.clone()));
                }
            }
            self.contributions.insert(key.to_vec(), c.clone());
        }
    }

    /// Writes the rows of touched groups or index keys to storage.
    fn flush(
        &mut self,
        now: i64,
        cfg: &tabletop_store::EngineConfig,
        touched_groups: BTreeSet<Vec<Ordered>>,
        touched_keys: BTreeMap<Vec<u8>, Option<Vec<Value>>>,
    ) {
        // View cells carry timestamp 0: a view keeps one version of each
        // value, and its contents do not depend on when it caught up.
        let _ = now;
        let ts = 0;
        for g in touched_groups {
            let vals: Vec<Value> = g.iter().map(|o| o.0.clone()).collect();
            let Some(key) = view_key(&self.def, &vals) else {
                continue;
            };
            let row = self.groups.get(&g).map(|state| {
                self.def
                    .values
                    .iter()
                    .zip(&state.aggs)
                    .map(|(c, st)| agg_output(c, st, state.rows))
                    .collect::<Vec<_>>()
            });
            write_row(&mut self.storage, &self.def, &key, row.as_deref(), ts, cfg);
        }
        for (key, values) in touched_keys {
            write_row(
                &mut self.storage,
                &self.def,
                &key,
                values.as_deref(),
                ts,
                cfg,
            );
        }
    }
}

/// The view row key for key values; `None` when they cannot form one.
fn view_key(def: &Def, vals: &[Value]) -> Option<Vec<u8>> {
    if def.raw_key {
        let k = match vals.first()? {
            Value::Bytes(b) => b.clone(),
            Value::String(s) => s.as_bytes().to_vec(),
            _ => return None,
        };
        return (!k.is_empty() && k.len() <= tabletop_store::MAX_ROW_KEY_BYTES).then_some(k);
    }
    let kv: Option<Vec<KeyValue>> = vals.iter().map(crate::query::value::key_value_of).collect();
    let k = def.key_schema.as_ref()?.encode(&kv?).ok()?;
    (!k.is_empty() && k.len() <= tabletop_store::MAX_ROW_KEY_BYTES).then_some(k)
}

fn write_row(
    storage: &mut Table,
    def: &Def,
    key: &[u8],
    values: Option<&[Value]>,
    ts: i64,
    cfg: &tabletop_store::EngineConfig,
) {
    let mut muts: Vec<Mutation<'_>> = vec![Mutation::DeleteFromRow];
    let encoded: Vec<Option<Vec<u8>>> = values
        .map(|vs| {
            vs.iter()
                .map(crate::query::value::encode_view_value)
                .collect()
        })
        .unwrap_or_default();
    for (c, e) in def.values.iter().zip(&encoded) {
        if let Some(b) = e {
            muts.push(Mutation::set_cell(&c.name, b"", ts, b));
        }
    }
    // A row whose values are all NULL (or a view with key columns only)
    // still exists: it keeps an empty cell in the marker family.
    if values.is_some() && muts.len() == 1 {
        muts.push(Mutation::set_cell(MARKER_FAMILY, b"", ts, b""));
    }
    // The storage table was made for exactly these families and keys are
    // checked for length, so this cannot fail; a failure would leave the
    // row as it was.
    let _ = storage.mutate_row(key, &muts, ts, cfg);
}

/// The family that keeps a view row whose values are all NULL.
const MARKER_FAMILY: &str = "_exists";

fn add_input(st: &mut AggState, v: &Value) {
    if v.is_null() {
        return;
    }
    st.n += 1;
    if let Value::Int64(i) = v {
        st.int_sum += i128::from(*i);
    }
    *st.values.entry(Ordered(v.clone())).or_insert(0) += 1;
}

fn remove_input(st: &mut AggState, v: &Value) {
    if v.is_null() {
        return;
    }
    st.n = st.n.saturating_sub(1);
    if let Value::Int64(i) = v {
        st.int_sum -= i128::from(*i);
    }
    let k = Ordered(v.clone());
    if let Some(c) = st.values.get_mut(&k) {
        *c -= 1;
        if *c == 0 {
            st.values.remove(&k);
        }
    }
}

fn float_sum(st: &AggState) -> f64 {
    let mut s = 0.0;
    for (v, c) in &st.values {
        let x = match &v.0 {
            Value::Float64(f) => *f,
            Value::Int64(i) => *i as f64,
            _ => 0.0,
        };
        for _ in 0..*c {
            s += x;
        }
    }
    s
}

fn agg_output(c: &Col, st: &AggState, rows: u64) -> Value {
    let TKind::Agg(kind, arg) = &c.expr.kind else {
        return Value::Null;
    };
    let int_input = arg.as_ref().is_some_and(|a| a.ty == SqlType::Int64);
    match kind {
        AggKind::CountStar => Value::Int64(i64::try_from(rows).unwrap_or(i64::MAX)),
        AggKind::Count => Value::Int64(i64::try_from(st.n).unwrap_or(i64::MAX)),
        _ if st.n == 0 => Value::Null,
        AggKind::Sum if int_input => {
            Value::Int64(i64::try_from(st.int_sum).unwrap_or(if st.int_sum < 0 {
                i64::MIN
            } else {
                i64::MAX
            }))
        }
        AggKind::Sum => Value::Float64(float_sum(st)),
        AggKind::Avg if int_input => Value::Float64(st.int_sum as f64 / st.n as f64),
        AggKind::Avg => Value::Float64(float_sum(st) / st.n as f64),
        AggKind::Min | AggKind::AnyValue => {
            st.values.keys().next().map_or(Value::Null, |o| o.0.clone())
        }
        AggKind::Max => st
            .values
            .keys()
            .next_back()
            .map_or(Value::Null, |o| o.0.clone()),
    }
}

// ------------------------------------------------------------ maintenance

/// A read of the source for maintenance: whole rows, latest values.
fn source_read(def: &Def, rows: RowSet) -> ReadPlan {
    ReadPlan {
        source: def.source.clone(),
        temporal: Temporal::default(),
        request: ReadRowsRequest::rows(rows),
        no_rows: false,
        need_key_fields: false,
        families: (0..def.source.families.len()).collect(),
        view_cols: false,
        has_marker: false,
    }
}

/// Re-reads source rows (these keys, or a range) and replaces their
/// contributions. Keys the read does not return lost their rows.
fn refresh(
    v: &mut MaterializedView,
    db: &mut Instance,
    rows: RowSet,
    expected: Vec<Vec<u8>>,
    range: Option<&KeyRange>,
) -> Result<()> {
    let plan = source_read(&v.def, rows);
    let mut found: Vec<(Vec<u8>, Option<Contribution>)> = Vec::new();
    let schema = if v.def.need_key_fields {
        v.def.source.key_schema.clone()
    } else {
        None
    };
    let mut visit = |ctx: &RowCtx<'_>| -> Result<bool> {
        let c = match &schema {
            None => v.contribution(ctx),
            Some(s) => match s.decode(ctx.key) {
                Ok(vals) => {
                    let fields: Vec<Value> = vals.into_iter().map(query::exec::key_value).collect();
                    let with_fields = RowCtx {
                        key: ctx.key,
                        key_fields: &fields,
                        families: ctx.families,
                        view_cols: ctx.view_cols,
                        columns: ctx.columns,
                        timestamp: ctx.timestamp,
                        now: ctx.now,
                    };
                    v.contribution(&with_fields)
                }
                Err(e) => {
                    v.row_errors += 1;
                    v.error = Some(format!(
                        "row key \"{}\" does not conform to the row key schema of {}: {e}",
                        tabletop_store::escape_bytes(ctx.key),
                        v.source_table
                    ));
                    None
                }
            },
        };
        found.push((ctx.key.to_vec(), c));
        Ok(true)
    };
    // The view's own read of its source is not users' traffic.
    db.without_traffic(|db| query::exec::read_source_rows(db, &plan, &mut visit, None))?;
    let mut touched_groups = BTreeSet::new();
    let mut touched_keys = BTreeMap::new();
    let seen: BTreeSet<Vec<u8>> = found.iter().map(|(k, _)| k.clone()).collect();
    let mut gone: Vec<Vec<u8>> = expected.into_iter().filter(|k| !seen.contains(k)).collect();
    if let Some(r) = range {
        gone.extend(
            v.contributions
                .keys()
                .filter(|k| r.contains(k) && !seen.contains(*k))
                .cloned(),
        );
    }
    v.rows_applied += (found.len() + gone.len()) as u64;
    for (k, c) in found {
        v.replace(&k, c, &mut touched_groups, &mut touched_keys);
    }
    for k in gone {
        v.replace(&k, None, &mut touched_groups, &mut touched_keys);
    }
    let now = db.now_micros();
    let cfg = db.config().engine.clone();
    v.flush(now, &cfg, touched_groups, touched_keys);
    Ok(())
}

/// Recomputes a view from nothing.
fn rebuild(v: &mut MaterializedView, db: &mut Instance) -> Result<()> {
    if v.recompile {
        match compile(db, &v.name, &v.query) {
            Ok(def) => {
                v.def = def;
                v.error = None;
                v.recompile = false;
            }
            Err(e) => {
                v.error = Some(format!(
                    "the view no longer compiles against its source: {}",
                    e.message()
                ));
                return Ok(());
            }
        }
    }
    v.storage = Table::new(
        &v.name,
        &storage_schema(&v.def),
        Vec::new(),
        db.now_micros(),
    )?;
    v.contributions.clear();
    v.groups.clear();
    v.pending.clear();
    v.pending_by_time.clear();
    v.pending_ranges.clear();
    v.rebuild = None;
    refresh(v, db, RowSet::all(), Vec::new(), None)
}

/// Applies what is due (or everything when `force`).
fn maintain_one(v: &mut MaterializedView, db: &mut Instance, now: i64, force: bool) -> Result<()> {
    let delay = v.options.delay_micros;
    let due = move |t: i64| force || t.saturating_add(delay) <= now;
    if let Some(t) = v.rebuild
        && due(t)
    {
        rebuild(v, db)?;
    }
    if v.error
        .as_deref()
        .is_some_and(|e| e.starts_with("the view no longer compiles"))
    {
        v.last_maintained = now;
        return Ok(());
    }
    let elapsed = now.saturating_sub(v.last_maintained).max(0);
    let mut budget: u64 = if force || v.options.rows_per_second == 0 {
        u64::MAX
    } else {
        let b = (u128::from(v.options.rows_per_second) * elapsed as u128 / 1_000_000) as u64;
        b.max(1)
    };
    // Ranges first: they are rare (drops, garbage collection).
    let ranges = std::mem::take(&mut v.pending_ranges);
    let (ready, waiting): (Vec<_>, Vec<_>) = ranges.into_iter().partition(|(_, t)| due(*t));
    v.pending_ranges = waiting;
    for (r, _) in ready {
        // Keys queued inside the range are covered by it.
        let inside: Vec<Vec<u8>> = v
            .pending
            .keys()
            .filter(|k| r.contains(k))
            .cloned()
            .collect();
        for k in inside {
            if let Some(t) = v.pending.remove(&k) {
                v.pending_by_time.remove(&(t, k));
            }
        }
        let rows = crate::query::plan::range_set(std::slice::from_ref(&r));
        refresh(v, db, rows, Vec::new(), Some(&r))?;
    }
    while budget > 0 {
        let mut batch = Vec::new();
        while batch.len() < BATCH && (batch.len() as u64) < budget {
            let Some((t, _)) = v.pending_by_time.first() else {
                break;
            };
            if !due(*t) {
                break;
            }
            let Some((t, k)) = v.pending_by_time.pop_first() else {
                break;
            };
            v.pending.remove(&k);
            let _ = t;
            batch.push(k);
        }
        if batch.is_empty() {
            break;
        }
        budget = budget.saturating_sub(batch.len() as u64);
        let rows = RowSet {
            row_keys: batch.clone(),
            row_ranges: Vec::new(),
        };
        refresh(v, db, rows, batch, None)?;
    }
    v.last_maintained = now;
    Ok(())
}

/// Runs due maintenance for every view (from [`Instance::tick`]).
pub(crate) fn maintain(db: &mut Instance, now: i64) {
    let names: Vec<String> = db.catalog().views.keys().cloned().collect();
    for name in names {
        let Some(mut v) = db.catalog_mut().views.remove(&name) else {
            continue;
        };
        if let Err(e) = maintain_one(&mut v, db, now, false) {
            v.error = Some(e.message().to_string());
        }
        let cfg = db.config().engine.clone();
        let mut events = Vec::new();
        v.storage.tick(now, &cfg, &mut events);
        db.catalog_mut().views.insert(name, v);
    }
}

// ------------------------------------------------------------ public API

fn create_view_with(
    db: &mut Instance,
    name: &str,
    query: &str,
    options: ViewOptions,
) -> Result<ViewStatus> {
    tabletop_store::validate_table_id(name)
        .map_err(|e| Error::invalid(format!("view name: {}", e.message())))?;
    if db.catalog().views.contains_key(name) {
        return Err(Error::already_exists(format!(
            "materialized view \"{name}\" already exists"
        )));
    }
    if db.get_table(name).is_ok() {
        return Err(Error::already_exists(format!(
            "a table named \"{name}\" exists; a view needs a name of its own"
        )));
    }
    if db.catalog().logical_views.contains_key(name) {
        return Err(Error::already_exists(format!(
            "a logical view named \"{name}\" exists; a view needs a name of its own"
        )));
    }
    let def = compile(db, name, query)?;
    let now = db.now_micros();
    let storage = Table::new(name, &storage_schema(&def), Vec::new(), now)?;
    let mut v = MaterializedView {
        name: name.to_string(),
        source_table: def.source.name.clone(),
        query: query.trim().to_string(),
        options,
        def,
        storage,
        contributions: BTreeMap::new(),
        groups: BTreeMap::new(),
        pending: BTreeMap::new(),
        pending_by_time: BTreeSet::new(),
        pending_ranges: Vec::new(),
        rebuild: None,
        recompile: false,
        last_maintained: now,
        rows_applied: 0,
        row_errors: 0,
        error: None,
    };
    rebuild(&mut v, db)?;
    let st = v.status(now);
    db.catalog_mut().views.insert(name.to_string(), v);
    Ok(st)
}

/// Creates a continuous materialized view from a SELECT (the query text
/// alone, without `CREATE MATERIALIZED VIEW`), computes it from the
/// source's current rows and starts maintaining it.
pub fn create_view(db: &mut Instance, name: &str, query: &str) -> Result<ViewStatus> {
    create_view_with(db, name, query, ViewOptions::default())
}

/// Deletes a view and its data.
pub fn drop_view(db: &mut Instance, name: &str) -> Result<()> {
    db.catalog_mut()
        .views
        .remove(name)
        .map(|_| ())
        .ok_or_else(|| Error::not_found(format!("materialized view \"{name}\" not found")))
}

/// Every view's status, by name.
#[must_use]
pub fn list_views(db: &Instance) -> Vec<ViewStatus> {
    let now = db.now_micros();
    db.catalog().views.values().map(|v| v.status(now)).collect()
}

/// One view's status.
#[must_use]
pub fn status(db: &Instance, name: &str) -> Option<ViewStatus> {
    let now = db.now_micros();
    db.catalog().views.get(name).map(|v| v.status(now))
}

/// Changes how fast a view follows its source.
pub fn set_options(db: &mut Instance, name: &str, options: ViewOptions) -> Result<()> {
    if options.delay_micros < 0 {
        return Err(Error::invalid("a view's delay must not be negative"));
    }
    match db.catalog_mut().views.get_mut(name) {
        Some(v) => {
            v.options = options;
            Ok(())
        }
        None => Err(Error::not_found(format!(
            "materialized view \"{name}\" not found"
        ))),
    }
}

/// Applies every queued change now (one view, or all); returns how many
/// source rows were looked at.
pub fn catch_up(db: &mut Instance, name: Option<&str>) -> Result<u64> {
    let names: Vec<String> = match name {
        Some(n) => {
            if !db.catalog().views.contains_key(n) {
                return Err(Error::not_found(format!(
                    "materialized view \"{n}\" not found"
                )));
            }
            vec![n.to_string()]
        }
        None => db.catalog().views.keys().cloned().collect(),
    };
    let now = db.now_micros();
    let mut applied = 0;
    for n in names {
        let Some(mut v) = db.catalog_mut().views.remove(&n) else {
            continue;
        };
        let before = v.rows_applied;
        let r = maintain_one(&mut v, db, now, true);
        applied += v.rows_applied - before;
        db.catalog_mut().views.insert(n, v);
        r?;
    }
    Ok(applied)
}

/// Reads a view's rows like a table (ReadRows semantics).
pub fn read_view<S: RowSink + ?Sized>(
    db: &mut Instance,
    name: &str,
    req: &ReadRowsRequest,
    sink: &mut S,
) -> Result<ReadStats> {
    read_view_traced(db, name, req, sink, None)
}

/// [`read_view`], recording the read as the store records ReadRows.
pub fn read_view_traced<S: RowSink + ?Sized>(
    db: &mut Instance,
    name: &str,
    req: &ReadRowsRequest,
    sink: &mut S,
    trace: Option<&mut Trace>,
) -> Result<ReadStats> {
    let seed = db.config().seed;
    let now = db.now_micros();
    let Some(v) = db.catalog_mut().views.get_mut(name) else {
        return Err(Error::not_found(format!(
            "materialized view \"{name}\" not found"
        )));
    };
    v.storage.read_rows(req, seed, now, sink, trace)
}

/// The tablets a view's data occupies.
#[must_use]
pub fn view_tablet_count(db: &Instance, name: &str) -> usize {
    db.catalog()
        .views
        .get(name)
        .map_or(0, |v| v.storage.tablet_count())
}

/// The view's rows as stored now.
pub fn view_rows(db: &mut Instance, name: &str) -> Result<Vec<OwnedRow>> {
    let mut rows = tabletop_store::CollectRows::default();
    read_view(db, name, &ReadRowsRequest::default(), &mut rows)?;
    Ok(rows.rows)
}

/// The rows the view would hold if computed from scratch now (its data
/// is left alone). A caught-up view holds exactly these.
pub fn recompute(db: &mut Instance, name: &str) -> Result<Vec<OwnedRow>> {
    let Some(v) = db.catalog().views.get(name).cloned() else {
        return Err(Error::not_found(format!(
            "materialized view \"{name}\" not found"
        )));
    };
    let mut fresh = v;
    fresh.recompile = true;
    rebuild(&mut fresh, db)?;
    let mut rows = tabletop_store::CollectRows::default();
    let seed = db.config().seed;
    let now = db.now_micros();
    fresh
        .storage
        .read_rows(&ReadRowsRequest::default(), seed, now, &mut rows, None)?;
    Ok(rows.rows)
}

/// Runs `CREATE MATERIALIZED VIEW` from SQL (used by `crate::sql::execute`).
pub(crate) fn create_from_sql(db: &mut Instance, name: &Ident, query: &str) -> Result<ViewStatus> {
    create_view(db, &name.name, query)
}
