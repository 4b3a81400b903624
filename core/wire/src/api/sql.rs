//! The playground's SQL methods, **not part of Bigtable's REST API**:
//!
//! - `sql`: `{"instanceName": ..., "query": "SELECT ..."}` runs one
//!   statement of the playground's GoogleSQL (a query, EXPLAIN,
//!   CREATE/DROP MATERIALIZED VIEW, ALTER TABLE ... ROW KEY SCHEMA, SHOW
//!   MATERIALIZED VIEWS) and answers [`tabletop_sql::sql::Outcome::to_json`]
//!   (for a query `{"columns", "rows", "stats"}`). Bigtable's own
//!   `executeQuery` streams typed partial result sets and stays
//!   unimplemented here.
//! - `explain`: `{"instanceName": ..., "query": "SELECT ..."}` explains a
//!   query, or a ReadRows body (`{"tableName", "rows", "filter",
//!   "rowsLimit", "reversed"}`) explains that read: the row set, the
//!   filter, the access pattern, tablets touched, rows and cells scanned
//!   versus returned.

use serde_json::Value;

use super::data::read_rows_fields;
use super::names::{instance_name, table_name};
use super::proto_json::At;
use tabletop_sql::Instance;
use tabletop_sql::sql;
use tabletop_store::{Result, Traces};

/// sql: runs one statement.
pub(crate) fn run_sql(db: &mut Instance, req: &At<'_>, traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("SqlRequest")?;
    if let Some(n) = f.get("instanceName")? {
        instance_name(&n)?;
    }
    let q = f.require("query")?;
    let text = q.string()?;
    f.finish()?;
    Ok(sql::execute_traced(db, text, traces)?.to_json())
}

/// explain: a query's or a ReadRows request's plan and cost.
pub(crate) fn explain(db: &mut Instance, req: &At<'_>, traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("ExplainRequest")?;
    if let Some(q) = f.get("query")? {
        if let Some(n) = f.get("instanceName")? {
            instance_name(&n)?;
        }
        let text = q.string()?;
        f.finish()?;
        return Ok(sql::explain_traced(db, text, traces)?.to_json());
    }
    let table = table_name(&f.require("tableName")?)?;
    let r = read_rows_fields(&mut f, db.fidelity())?;
    f.finish()?;
    Ok(sql::explain_read_rows(db, &table.table_id, &r)?.to_json())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::api::handle;
    use tabletop_sql::Instance;

    #[test]
    fn sql_and_explain_answer_json() {
        let mut db = Instance::default();
        let out = handle(
            &mut db,
            r#"{"method": "createTable", "request": {"parent": "projects/p/instances/i", "tableId": "t", "table": {"columnFamilies": {"cf": {}}}}}"#,
        );
        assert!(out.starts_with("{\"response\""), "{out}");
        let out = handle(
            &mut db,
            r#"{"method": "mutateRow", "request": {"tableName": "projects/p/instances/i/tables/t", "rowKey": "cjE=", "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": "1000", "value": "dg=="}}]}}"#,
        );
        assert!(out.starts_with("{\"response\""), "{out}");
        let out: serde_json::Value = serde_json::from_str(&handle(
            &mut db,
            r#"{"method": "sql", "request": {"instanceName": "projects/p/instances/i", "query": "SELECT _key, cf['q'] AS q FROM t"}}"#,
        ))
        .unwrap();
        assert_eq!(out["response"]["rows"], json!([["cjE=", "dg=="]]));
        let out: serde_json::Value = serde_json::from_str(&handle(
            &mut db,
            r#"{"method": "explain", "request": {"tableName": "projects/p/instances/i/tables/t", "rows": {"rowKeys": ["cjE="]}}}"#,
        ))
        .unwrap();
        assert_eq!(out["response"]["shape"], "point");
        let out: serde_json::Value = serde_json::from_str(&handle(
            &mut db,
            r#"{"method": "sql", "request": {"query": "SELECT nope FROM t"}}"#,
        ))
        .unwrap();
        assert_eq!(out["error"]["status"], "INVALID_ARGUMENT");
    }
}
