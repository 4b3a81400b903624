//! A GoogleSQL subset faithful to GoogleSQL for Bigtable, with an EXPLAIN
//! that shows the ReadRows request each query becomes and what it cost.
//!
//! Every query compiles to one [`ReadRowsRequest`] (a row set and a
//! filter chain) that runs through [`Instance::read_rows`], so a query
//! costs exactly what the equivalent ReadRows costs, and EXPLAIN can show
//! the request, the tablets it touched and the rows and cells it scanned
//! versus returned.
//!
//! # Tables as SQL sees them
//!
//! A table has a `_key` column (BYTES) and one `MAP<BYTES, BYTES>` column
//! per column family, from qualifier to the latest value
//! (`stats['os_build']`, `MAP_KEYS(stats)`); aggregate families (sum, min,
//! max) hold INT64 values. With `t(with_history => TRUE)` each map value is
//! the column's history, `ARRAY<STRUCT<timestamp TIMESTAMP, value
//! BYTES>>`, newest first. When the table has a row-key schema
//! ([`crate::rowkey_schema`]), its fields are typed columns and `_key`
//! becomes a pseudo-column (not in `SELECT *`). A materialized view
//! ([`crate::views`]) has its key columns and its value columns.
//!
//! # Grammar
//!
//! ```text
//! statement   := query | EXPLAIN query
//!              | CREATE MATERIALIZED VIEW name AS query        -- playground
//!              | DROP MATERIALIZED VIEW [IF EXISTS] name       -- playground
//!              | ALTER TABLE t SET ROW KEY SCHEMA key_schema   -- playground
//!              | ALTER TABLE t DROP ROW KEY SCHEMA             -- playground
//!              | SHOW MATERIALIZED VIEWS                       -- playground
//! query       := SELECT item [, item]... [FROM from] [WHERE expr]
//!                [ORDER BY expr [ASC|DESC], ...] [LIMIT n [OFFSET m]]
//!                (GROUP BY only in materialized views)
//! item        := * | expr [[AS] alias]
//! from        := table [( name => expr, ... )] [[AS] alias]
//!              | UNPACK((query)) [[AS] alias]
//!   temporal arguments: with_history, latest_n, after, after_or_equal,
//!   before, before_or_equal (these four and latest_n need
//!   with_history => TRUE), as_of (without with_history)
//! expr        := literal | name | alias.name | expr[key] | expr[OFFSET(i)]
//!              | expr[SAFE_OFFSET(i)] | expr.field | f(args) | CAST(e AS t)
//!              | SAFE_CAST(e AS t) | CASE ... END | - e | NOT e
//!              | e AND e | e OR e | e = e (also != <> < <= > >=)
//!              | e + - * / || e | e [NOT] IN (...) | e [NOT] BETWEEN a AND b
//!              | e [NOT] LIKE 'pattern' | e IS [NOT] NULL | e IS [NOT] TRUE
//! literal     := 'string' | b'bytes' | r'raw' | 123 | 0x1f | 1.5 | TRUE
//!              | FALSE | NULL | TIMESTAMP '2020-05-01 00:00:00'
//! key_schema  := field TYPE [encoding], ... [DELIMITED BY 'd' | ORDERED_CODE
//!              | FIXED_WIDTH]   (see crate::rowkey_schema)
//! ```
//!
//! Functions: STARTS_WITH, ENDS_WITH, CONCAT, LENGTH, BYTE_LENGTH,
//! CHAR_LENGTH, LOWER, UPPER, SUBSTR, REPLACE, REVERSE, SPLIT,
//! SAFE_CONVERT_BYTES_TO_STRING, TO_INT64 and TO_FLOAT64/TO_FLOAT32
//! (big-endian bytes), TO_BASE64, FROM_BASE64, TO_HEX, FROM_HEX, MAP_KEYS,
//! MAP_VALUES, MAP_CONTAINS_KEY, MAP_EMPTY, ARRAY_LENGTH, COALESCE, IFNULL,
//! NULLIF, IF, ABS, MOD, GREATEST, LEAST, CURRENT_TIMESTAMP (the instance
//! clock), TIMESTAMP, TIMESTAMP_MICROS/MILLIS/SECONDS,
//! UNIX_MICROS/MILLIS/SECONDS; in view definitions also COUNT, SUM, MIN,
//! MAX, AVG and ANY_VALUE.
//!
//! Refused, with GoogleSQL-style messages naming the position (`[at
//! 1:15]`): joins, set operations, subqueries (other than UNPACK's), WITH,
//! DML, DDL other than the playground statements above, GROUP BY and
//! aggregates outside view definitions, DISTINCT, HAVING, window functions.
//!
//! # What a query becomes
//!
//! `AND`ed predicates on `_key` (=, <, <=, >, >=, BETWEEN, IN, STARTS_WITH,
//! LIKE 'prefix%', and ORs of them) become the row set; equality or IN on
//! the leading fields of a row-key schema become key prefixes. Predicates
//! on the latest value of one column (=, !=, <, <=, >, >=, IN,
//! LIKE 'prefix%', IS NOT NULL, MAP_CONTAINS_KEY, and ORs of them) become
//! `condition` filters. The columns a query uses, with the temporal
//! options, become the filter's projection. `ORDER BY _key DESC` becomes a
//! reversed read and `LIMIT` the rows limit when nothing is evaluated
//! after the read. Everything else is evaluated on the returned rows;
//! EXPLAIN says which is which.

use std::fmt::Write as _;

use serde_json::{Map, Value as Json, json};
use tabletop_store::ReadRowsRequest;
use tabletop_store::{CountRows, Error, Result, Traces};

use crate::instance::Instance;
use crate::key_schema::{Conformance, RowKeySchema};
use crate::query::lex::Pos;
use crate::query::parse::{self, Statement};
use crate::query::{exec, lex, plan};
use crate::view_info::ViewStatus;
use crate::{rowkey_schema, views};

pub use crate::query::{
    Access, Explain, SourceKind, SqlType, Value, filter_json, format_timestamp, is_reserved,
    parse_timestamp, range_text, row_set_json,
};

/// A result column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name (the alias, the column or qualifier name, or `$colN`).
    pub name: String,
    /// Its GoogleSQL type.
    pub sql_type: SqlType,
}

/// The rows a SELECT returned and how it read them.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryResult {
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows, one value per column.
    pub rows: Vec<Vec<Value>>,
    /// The plan and its measured cost.
    pub explain: Explain,
}

/// What a statement did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A SELECT's rows.
    Rows(QueryResult),
    /// An EXPLAIN (the query ran to measure its cost; its rows are not
    /// kept).
    Explain(Explain),
    /// A materialized view was created and computed.
    ViewCreated(ViewStatus),
    /// A materialized view was dropped (`false`: IF EXISTS found none).
    ViewDropped {
        /// The view.
        name: String,
        /// Whether it existed.
        existed: bool,
    },
    /// A table got a row-key schema.
    RowKeySchemaSet {
        /// The table.
        table: String,
        /// The schema.
        schema: RowKeySchema,
        /// How the stored keys fit it.
        conformance: Conformance,
    },
    /// A table's row-key schema was removed.
    RowKeySchemaDropped {
        /// The table.
        table: String,
        /// Whether it had one.
        existed: bool,
    },
    /// `SHOW MATERIALIZED VIEWS`.
    Views(Vec<ViewStatus>),
}

impl Outcome {
    /// Whether the statement changed what a snapshot keeps (views and
    /// row-key schemas), so a host should save its state.
    #[must_use]
    pub fn changes_state(&self) -> bool {
        matches!(
            self,
            Outcome::ViewCreated(_)
                | Outcome::ViewDropped { existed: true, .. }
                | Outcome::RowKeySchemaSet { .. }
                | Outcome::RowKeySchemaDropped { existed: true, .. }
        )
    }

    /// The outcome as a SQL console prints it.
    #[must_use]
    pub fn to_text(&self) -> String {
        match self {
            Outcome::Rows(r) => format_table(r),
            Outcome::Explain(e) => e.to_text(),
            Outcome::ViewCreated(s) => format!(
                "Created materialized view {} ({} over {}, key {}): {} row{}, {}\n",
                s.name,
                match s.kind {
                    views::ViewKind::Aggregation => "an aggregation",
                    views::ViewKind::SecondaryIndex => "a secondary index",
                },
                s.source_table,
                if s.key_columns.is_empty() {
                    "_key".to_string()
                } else {
                    s.key_columns.join(", ")
                },
                s.rows,
                if s.rows == 1 { "" } else { "s" },
                s.lag_text()
            ),
            Outcome::ViewDropped { name, existed } => {
                if *existed {
                    format!("Dropped materialized view {name}\n")
                } else {
                    format!("No materialized view {name}; nothing dropped\n")
                }
            }
            Outcome::RowKeySchemaSet {
                table,
                schema,
                conformance,
            } => format!(
                "Row key schema of {table}: {schema}\n{}\n",
                conformance.summary()
            ),
            Outcome::RowKeySchemaDropped { table, existed } => {
                if *existed {
                    format!("Dropped the row key schema of {table}\n")
                } else {
                    format!("Table {table} has no row key schema; nothing dropped\n")
                }
            }
            Outcome::Views(list) => {
                if list.is_empty() {
                    return "No materialized views\n".into();
                }
                let header = ["name", "source", "kind", "key", "rows", "lag"];
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|s| {
                        vec![
                            s.name.clone(),
                            s.source_table.clone(),
                            match s.kind {
                                views::ViewKind::Aggregation => "aggregation".into(),
                                views::ViewKind::SecondaryIndex => "secondary index".into(),
                            },
                            s.key_columns.join(", "),
                            s.rows.to_string(),
                            s.lag_text(),
                        ]
                    })
                    .collect();
                text_table(&header.map(String::from), None, &rows)
            }
        }
    }

    /// The outcome as JSON.
    #[must_use]
    pub fn to_json(&self) -> Json {
        match self {
            Outcome::Rows(r) => result_json(r),
            Outcome::Explain(e) => json!({ "explain": e.to_json() }),
            Outcome::ViewCreated(s) => json!({ "viewCreated": s.to_json() }),
            Outcome::ViewDropped { name, existed } => {
                json!({ "viewDropped": { "name": name, "existed": existed } })
            }
            Outcome::RowKeySchemaSet {
                table,
                schema,
                conformance,
            } => json!({ "rowKeySchemaSet": {
                "table": table,
                "schema": schema.to_string(),
                "schemaDocument": serde_json::to_value(schema).unwrap_or(Json::Null),
                "rowsChecked": conformance.rows_checked.to_string(),
                "nonConforming": conformance.non_conforming.to_string(),
                "examples": conformance.examples.iter().map(|e| json!({
                    "key": tabletop_store::base64_text::encode(&e.key),
                    "keyText": tabletop_store::escape_bytes(&e.key),
                    "field": e.error.field,
                    "reason": e.error.reason,
                })).collect::<Vec<_>>(),
            }}),
            Outcome::RowKeySchemaDropped { table, existed } => {
                json!({ "rowKeySchemaDropped": { "table": table, "existed": existed } })
            }
            Outcome::Views(list) => {
                json!({ "views": list.iter().map(ViewStatus::to_json).collect::<Vec<_>>() })
            }
        }
    }
}

/// A SELECT's result as JSON: columns with their types, rows as arrays
/// of JSON values ([`Value::to_json`]), and the read's cost.
#[must_use]
pub fn result_json(r: &QueryResult) -> Json {
    let mut m = Map::new();
    m.insert(
        "columns".into(),
        Json::Array(
            r.columns
                .iter()
                .map(|c| json!({"name": c.name, "type": c.sql_type.to_string()}))
                .collect(),
        ),
    );
    m.insert(
        "rows".into(),
        Json::Array(
            r.rows
                .iter()
                .map(|row| Json::Array(row.iter().map(Value::to_json).collect()))
                .collect(),
        ),
    );
    let e = &r.explain;
    let mut touched = e.tablets_touched.clone();
    touched.sort_unstable();
    touched.dedup();
    m.insert(
        "stats".into(),
        json!({
            "access": e.access.describe(),
            "shape": e.access.shape().name(),
            "rowsScanned": e.stats.rows_seen.to_string(),
            "rowsReturnedByRead": e.stats.rows_returned.to_string(),
            "cellsScanned": e.stats.cells_seen.to_string(),
            "cellsReturnedByRead": e.stats.cells_returned.to_string(),
            "tabletsTouched": touched.len(),
            "tabletsTotal": e.tablets_total,
        }),
    );
    Json::Object(m)
}

fn cell_text(v: &Value) -> String {
    let s = v.display();
    if s.contains(['\n', '\r', '\t']) {
        s.replace('\n', "\\n")
            .replace('\r', "\\r")
            .replace('\t', "\\t")
    } else {
        s
    }
}

fn text_table(header: &[String], types: Option<&[String]>, rows: &[Vec<String>]) -> String {
    let n = header.len();
    let width = |s: &str| s.chars().count();
    let mut w: Vec<usize> = header.iter().map(|h| width(h)).collect();
    if let Some(t) = types {
        for (i, x) in t.iter().enumerate() {
            w[i] = w[i].max(width(x));
        }
    }
    for r in rows {
        for (i, c) in r.iter().enumerate().take(n) {
            w[i] = w[i].max(width(c));
        }
    }
    let rule = {
        let mut s = String::from("+");
        for x in &w {
            s.push_str(&"-".repeat(x + 2));
            s.push('+');
        }
        s.push('\n');
        s
    };
    let line = |cells: &[String]| {
        let mut s = String::from("|");
        for (i, x) in w.iter().enumerate() {
            let c = cells.get(i).map_or("", String::as_str);
            let _ = write!(s, " {c}{} |", " ".repeat(x - width(c)));
        }
        s.push('\n');
        s
    };
    let mut out = rule.clone();
    out.push_str(&line(header));
    if let Some(t) = types {
        out.push_str(&line(t));
    }
    out.push_str(&rule);
    for r in rows {
        out.push_str(&line(r));
    }
    if !rows.is_empty() {
        out.push_str(&rule);
    }
    out
}

/// A result as an aligned text table (names, then GoogleSQL types), with
/// a row count and the read's shape below.
#[must_use]
pub fn format_table(r: &QueryResult) -> String {
    let header: Vec<String> = r.columns.iter().map(|c| c.name.clone()).collect();
    let types: Vec<String> = r.columns.iter().map(|c| c.sql_type.to_string()).collect();
    let rows: Vec<Vec<String>> = r
        .rows
        .iter()
        .map(|row| row.iter().map(cell_text).collect())
        .collect();
    let mut out = text_table(&header, Some(&types), &rows);
    let e = &r.explain;
    let mut touched = e.tablets_touched.clone();
    touched.sort_unstable();
    touched.dedup();
    let _ = writeln!(
        out,
        "{} row{} ({}; scanned {} row{} in {} of {} tablet{})",
        r.rows.len(),
        if r.rows.len() == 1 { "" } else { "s" },
        e.access.describe(),
        e.stats.rows_seen,
        if e.stats.rows_seen == 1 { "" } else { "s" },
        touched.len(),
        e.tablets_total,
        if e.tablets_total == 1 { "" } else { "s" }
    );
    out
}

fn plan_select(db: &Instance, q: &parse::Query) -> Result<plan::SelectPlan> {
    plan::plan_query(db, q)
}

/// The innermost read of a plan.
fn read_of(p: &plan::SelectPlan) -> Option<&plan::ReadPlan> {
    match &p.input {
        plan::Input::Read(r) => Some(r),
        plan::Input::Unpack { inner, .. } | plan::Input::LogicalView { inner, .. } => {
            read_of(inner)
        }
        plan::Input::Nothing => None,
    }
}

fn run_select(
    db: &mut Instance,
    q: &parse::Query,
    text: &str,
    traces: &mut Traces,
) -> Result<QueryResult> {
    let p = plan_select(db, q)?;
    let mut trace = traces.start();
    let ex = exec::run(db, &p, trace.as_mut())?;
    if let Some(t) = trace
        && ex.read_ran
    {
        traces.push(t);
    }
    let explain = build_explain(db, &p, &ex, text);
    Ok(QueryResult {
        columns: p
            .outputs
            .iter()
            .map(|o| Column {
                name: o.name.clone(),
                sql_type: o.expr.ty.clone(),
            })
            .collect(),
        rows: ex.rows,
        explain,
    })
}

fn build_explain(db: &Instance, p: &plan::SelectPlan, ex: &exec::Executed, text: &str) -> Explain {
    let mut pushed = Vec::new();
    let mut after = Vec::new();
    let mut notes = Vec::new();
    // The read belongs to the innermost plan; an UNPACK adds its own
    // predicates after the read.
    let mut cur = Some(p);
    let mut layers = Vec::new();
    while let Some(x) = cur {
        layers.push(x);
        cur = match &x.input {
            plan::Input::Unpack { inner, .. } | plan::Input::LogicalView { inner, .. } => {
                Some(inner)
            }
            _ => None,
        };
    }
    for layer in layers.iter().rev() {
        pushed.extend(layer.pushed.iter().cloned());
        after.extend(layer.after_read.iter().cloned());
        notes.extend(layer.notes.iter().cloned());
    }
    for layer in &layers {
        if let plan::Input::LogicalView { name, .. } = &layer.input {
            notes.push(format!(
                "reads logical view {name}: its query runs, and what is around it applies to its rows"
            ));
        }
    }
    if layers
        .iter()
        .any(|l| matches!(l.input, plan::Input::Unpack { .. }))
    {
        notes.push(format!(
            "UNPACK expanded the subquery's rows into {} rows, one per timestamp",
            ex.rows_before_residual
        ));
    }
    match read_of(p) {
        None => Explain {
            statement: Some(text.to_string()),
            source: String::new(),
            source_kind: SourceKind::Table,
            access: Access::NoRead,
            request: ReadRowsRequest::default(),
            ranges: Vec::new(),
            pushed_down: pushed,
            after_read: after,
            notes,
            tablets_touched: Vec::new(),
            tablets_total: 0,
            stats: Default::default(),
            rows_output: ex.rows.len() as u64,
            read_ran: false,
            view_lag: None,
        },
        Some(r) => {
            let ranges = if r.no_rows {
                Vec::new()
            } else {
                r.request.rows.normalize().unwrap_or_default()
            };
            let access = if r.no_rows {
                Access::NoRead
            } else {
                Access::of(&ranges, r.request.filter.is_some(), r.request.rows_limit)
            };
            if let Access::FullScan { limited: false, .. } = access {
                let why = if r.source.key_schema.is_some() {
                    "no predicate on _key or on the leading row key field narrows the read, so every row is scanned"
                } else {
                    "no predicate on _key narrows the read, so every row is scanned"
                };
                notes.push(why.to_string());
            }
            let (tablets_total, view_lag) = match r.source.kind {
                SourceKind::Table => (
                    db.tablets(&r.source.name).map(|t| t.len()).unwrap_or(0),
                    None,
                ),
                SourceKind::View => (
                    views::view_tablet_count(db, &r.source.name),
                    views::status(db, &r.source.name),
                ),
            };
            Explain {
                statement: Some(text.to_string()),
                source: r.source.name.clone(),
                source_kind: r.source.kind,
                access,
                request: r.request.clone(),
                ranges,
                pushed_down: pushed,
                after_read: after,
                notes,
                tablets_touched: ex.stats.tablets.clone(),
                tablets_total,
                stats: ex.stats.clone(),
                rows_output: ex.rows.len() as u64,
                read_ran: ex.read_ran,
                view_lag,
            }
        }
    }
}

/// Runs a plain ReadRows request and explains it: the row set and filter
/// as given, how it reaches its rows, and what it scanned and returned.
/// The rows themselves are counted, not kept. A name that is a
/// materialized view reads the view, as Bigtable's ReadRows does with a
/// materialized view name.
pub fn explain_read_rows(db: &mut Instance, table: &str, req: &ReadRowsRequest) -> Result<Explain> {
    let ranges = req.rows.normalize()?;
    let mut counter = CountRows::default();
    let stats = db.read_rows(table, req, &mut counter)?;
    let is_view = db.catalog().views.contains_key(table) && db.get_table(table).is_err();
    let tablets_total = if is_view {
        views::view_tablet_count(db, table)
    } else {
        db.tablets(table).map(|t| t.len()).unwrap_or(0)
    };
    let access = Access::of(&ranges, req.filter.is_some(), req.rows_limit);
    let mut notes = Vec::new();
    match &access {
        Access::FullScan { filtered: true, .. } => notes.push(
            "the filter decides which rows come back, but every row of the table is read to apply it; a key prefix or range would read only the rows wanted".into(),
        ),
        Access::FullScan {
            filtered: false,
            limited: false,
        } => notes.push("no row set: the whole table is read".into()),
        _ => {}
    }
    let view_lag = if is_view {
        views::status(db, table)
    } else {
        None
    };
    Ok(Explain {
        statement: None,
        source: table.to_string(),
        source_kind: if is_view {
            SourceKind::View
        } else {
            SourceKind::Table
        },
        access,
        request: req.clone(),
        ranges,
        pushed_down: Vec::new(),
        after_read: Vec::new(),
        notes,
        tablets_touched: stats.tablets.clone(),
        tablets_total,
        rows_output: stats.rows_returned,
        stats,
        read_ran: true,
        view_lag,
    })
}

/// Runs one statement. SELECT answers its rows (with the plan and cost in
/// [`QueryResult::explain`]); EXPLAIN runs the query and answers the plan
/// and its measured cost. Errors are Bigtable's: `INVALID_ARGUMENT` for
/// statements it would refuse (with `[at line:col]`), `OUT_OF_RANGE` for a
/// value that cannot be computed (a bad CAST), `FAILED_PRECONDITION` when
/// a row key does not fit the row-key schema, `NOT_FOUND` for a missing
/// view to drop.
pub fn execute(db: &mut Instance, statement: &str) -> Result<Outcome> {
    execute_traced(db, statement, &mut Traces::off())
}

/// [`execute`], recording the read a query or EXPLAIN makes (one ReadRows
/// on its table or view) in `traces`.
pub fn execute_traced(db: &mut Instance, statement: &str, traces: &mut Traces) -> Result<Outcome> {
    let stmt = parse::parse_statement(statement)?;
    let text = statement.trim().trim_end_matches(';').trim();
    match stmt {
        Statement::Query(q) => Ok(Outcome::Rows(run_select(db, &q, text, traces)?)),
        Statement::Explain(q) => {
            let r = run_select(db, &q, text, traces)?;
            Ok(Outcome::Explain(r.explain))
        }
        Statement::CreateView {
            name,
            query_text,
            query_pos,
            ..
        } => views::create_from_sql(db, &name, &query_text)
            .map(Outcome::ViewCreated)
            .map_err(|e| shift_position(e, query_pos)),
        Statement::DropView { name, if_exists } => match views::drop_view(db, &name.name) {
            Ok(()) => Ok(Outcome::ViewDropped {
                name: name.name,
                existed: true,
            }),
            Err(_) if if_exists => Ok(Outcome::ViewDropped {
                name: name.name,
                existed: false,
            }),
            Err(e) => Err(e),
        },
        Statement::SetRowKeySchema { table, schema } => {
            let conformance = rowkey_schema::set_row_key_schema(db, &table.name, schema.clone())?;
            Ok(Outcome::RowKeySchemaSet {
                table: table.name,
                schema,
                conformance,
            })
        }
        Statement::DropRowKeySchema { table } => {
            let existed = rowkey_schema::clear_row_key_schema(db, &table.name)?;
            Ok(Outcome::RowKeySchemaDropped {
                table: table.name,
                existed,
            })
        }
        Statement::ShowViews => Ok(Outcome::Views(views::list_views(db))),
    }
}

/// Moves an error's `[at line:col]` from the defining query's own text to
/// the statement it sits in.
fn shift_position(e: Error, base: Pos) -> Error {
    let msg = e.message();
    let Some(start) = msg.rfind(" [at ") else {
        return e;
    };
    let Some((l, c)) = msg[start + 5..]
        .strip_suffix(']')
        .and_then(|p| p.split_once(':'))
    else {
        return e;
    };
    let (Ok(l), Ok(c)) = (l.parse::<u32>(), c.parse::<u32>()) else {
        return e;
    };
    let (line, col) = if l == 1 {
        (base.line, base.col.saturating_add(c).saturating_sub(1))
    } else {
        (base.line.saturating_add(l).saturating_sub(1), c)
    };
    Error::new(e.code(), format!("{} [at {line}:{col}]", &msg[..start]))
}

/// Runs a query and returns its rows (a convenience for SELECT).
pub fn query(db: &mut Instance, statement: &str) -> Result<QueryResult> {
    match execute(db, statement)? {
        Outcome::Rows(r) => Ok(r),
        _ => Err(Error::invalid("the statement is not a SELECT query")),
    }
}

/// A SELECT run a page at a time, for hosts that stream its rows (as
/// `tabletop serve`'s ExecuteQuery does): a query reading one table or
/// view with no ORDER BY reads each page on from the row after the last
/// one read, so its rows are never all held; any other query runs whole
/// on the first page. Between pages the host holds no borrow of the
/// instance. The pages together give the rows [`query`] gives.
pub struct QueryPages {
    pages: crate::query::pages::Pages,
}

impl QueryPages {
    /// Plans `statement` (a SELECT; anything else is refused, as
    /// [`prepare`] refuses it) without reading.
    pub fn new(db: &Instance, statement: &str) -> Result<QueryPages> {
        let Statement::Query(q) = parse::parse_statement(statement)? else {
            return Err(Error::invalid("only SELECT queries can be run in pages"));
        };
        Ok(QueryPages {
            pages: crate::query::pages::Pages::new(plan_select(db, &q)?),
        })
    }

    /// Whether every row has been handed out.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.pages.is_done()
    }

    /// Hands the next rows, each its output columns, to `row`, which
    /// answers whether the page may go on (the row it answers `false` to
    /// was still taken), until the rows run out.
    pub fn next_page(
        &mut self,
        db: &mut Instance,
        row: &mut dyn FnMut(Vec<crate::query::Value>) -> bool,
    ) -> Result<()> {
        self.pages.next_page(db, row)
    }
}

/// The columns a SELECT would answer, with their types, from planning it
/// without reading anything (as Bigtable's PrepareQuery describes a query
/// before ExecuteQuery runs it). Statements other than a SELECT are
/// refused: only queries can be prepared.
pub fn prepare(db: &Instance, statement: &str) -> Result<Vec<Column>> {
    let Statement::Query(q) = parse::parse_statement(statement)? else {
        return Err(Error::invalid("only SELECT queries can be prepared"));
    };
    Ok(plan_select(db, &q)?
        .outputs
        .iter()
        .map(|o| Column {
            name: o.name.clone(),
            sql_type: o.expr.ty.clone(),
        })
        .collect())
}

/// Plans and runs a query, answering its EXPLAIN (with or without the
/// word EXPLAIN in front).
pub fn explain(db: &mut Instance, statement: &str) -> Result<Explain> {
    explain_traced(db, statement, &mut Traces::off())
}

/// [`explain`], recording the query's read in `traces`.
pub fn explain_traced(db: &mut Instance, statement: &str, traces: &mut Traces) -> Result<Explain> {
    match execute_traced(db, statement, traces)? {
        Outcome::Rows(r) => Ok(r.explain),
        Outcome::Explain(e) => Ok(e),
        _ => Err(Error::invalid("only queries can be explained")),
    }
}

/// The ReadRows request a SELECT becomes, and the table (or view) it
/// reads, without running it (for hosts that record reads, as lessons do).
/// For an UNPACK query, the inner read.
pub fn plan_read(db: &Instance, statement: &str) -> Result<(String, ReadRowsRequest)> {
    let stmt = parse::parse_statement(statement)?;
    let q = match stmt {
        Statement::Query(q) | Statement::Explain(q) => q,
        _ => return Err(Error::invalid("only queries read rows")),
    };
    let p = plan_select(db, &q)?;
    match read_of(&p) {
        Some(r) => Ok((r.source.name.clone(), r.request.clone())),
        None => Err(Error::invalid("the query reads no table")),
    }
}

/// Splits a script into statements at `;` (outside literals and
/// comments): each statement's text and the line it starts on.
#[must_use]
pub fn split_statements(text: &str) -> Vec<(usize, String)> {
    lex::split_statements(text)
}

/// Whether `text` holds a whole statement, or needs more lines (an open
/// literal or comment, a statement cut short). A console reading line by
/// line runs the text once this says it is complete.
#[must_use]
pub fn is_complete(text: &str) -> bool {
    if text.trim().is_empty() {
        return false;
    }
    match parse::parse_statement(text) {
        Ok(_) => true,
        Err(e) => {
            let m = e.message();
            !(m.contains("Unexpected end of statement")
                || m.contains("Unclosed")
                || m.contains("newline inside a one-line literal"))
        }
    }
}

/// One statement of a script and what it did.
#[derive(Clone, Debug)]
pub struct ScriptStep {
    /// The line the statement starts on.
    pub line: usize,
    /// Its text.
    pub statement: String,
    /// What it did.
    pub outcome: Result<Outcome>,
}

/// Runs a script of `;`-separated statements in order, going on after a
/// failed one.
pub fn execute_script(db: &mut Instance, text: &str) -> Vec<ScriptStep> {
    execute_script_traced(db, text, &mut Traces::off())
}

/// [`execute_script`], recording every statement's read in `traces`.
pub fn execute_script_traced(
    db: &mut Instance,
    text: &str,
    traces: &mut Traces,
) -> Vec<ScriptStep> {
    split_statements(text)
        .into_iter()
        .map(|(line, statement)| {
            let outcome = execute_traced(db, &statement, traces);
            ScriptStep {
                line,
                statement,
                outcome,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn completeness_follows_the_parser() {
        assert!(is_complete("SELECT 1"));
        assert!(!is_complete("SELECT 1 +"));
        assert!(!is_complete("SELECT 'abc"));
        assert!(!is_complete("   "));
        assert!(is_complete("SELEKT 1"));
    }

    #[test]
    fn select_without_from_evaluates_once() {
        let mut db = Instance::default();
        let r = query(&mut db, "SELECT 1 + 2 AS x, 'a' || 'b', CAST('7' AS INT64)").unwrap();
        assert_eq!(
            r.rows,
            vec![vec![
                Value::Int64(3),
                Value::String("ab".into()),
                Value::Int64(7)
            ]]
        );
        assert_eq!(r.columns[0].name, "x");
        assert_eq!(r.columns[1].name, "$col2");
    }
}
