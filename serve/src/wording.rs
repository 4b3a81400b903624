//! The messages of a few errors as Google's emulator words them over
//! gRPC, where the JSON protocol words them its own way: a missing table
//! is `table "projects/p/instances/i/tables/t" not found` (the full
//! resource name, as `cbt` users see it from the emulator), not `table
//! "t" not found`; creating a table that exists is `table "<name>" already
//! exists`; creating a family that exists is `family "cf" already
//! exists`. The code stays the core's. The case is told from the core's
//! structured cause ([`Cause`]), never from its message, and `tabletop
//! json` keeps its own wording.

use serde_json::Value;
use tabletop_core::{Cause, Code, Error};

/// `e`, an error of `method` on `request` (a JSON protocol body),
/// reworded as the emulator words it where it differs.
pub fn reword(method: &str, request: &Value, e: Error) -> Error {
    let text = |field: &str| request.get(field).and_then(Value::as_str);
    if request.get("authorizedViewName").is_some() {
        return e;
    }
    match (e.cause(), method) {
        (Some(Cause::TableExists { table }), "createTable") => match text("parent") {
            Some(parent) => Error::new(
                Code::AlreadyExists,
                format!("table \"{parent}/tables/{table}\" already exists"),
            ),
            None => e,
        },
        (Some(Cause::FamilyExists { family }), "modifyColumnFamilies") => Error::new(
            Code::AlreadyExists,
            format!("family \"{family}\" already exists"),
        ),
        (_, "createTable") => e,
        _ => match text("tableName").or_else(|| text("name")) {
            Some(name) => missing_table(name, e),
            None => e,
        },
    }
}

/// `e` as the emulator's `table "<name>" not found` when the core found
/// no table by the id the resource `name` ends in.
pub fn missing_table(name: &str, e: Error) -> Error {
    let id = name.rsplit_once("/tables/").map(|(_, id)| id);
    match (id, e.cause()) {
        (Some(id), Some(Cause::TableNotFound { table })) if table == id => {
            Error::new(Code::NotFound, format!("table \"{name}\" not found"))
        }
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tabletop_core::{Instance, api};

    fn instance() -> Instance {
        let mut db = Instance::default();
        api::handle_value(
            &mut db,
            "createTable",
            &json!({"parent": "projects/p/instances/i", "tableId": "t",
                    "table": {"columnFamilies": {"cf": {}}}}),
        )
        .unwrap();
        db
    }

    fn run(db: &mut Instance, method: &str, request: Value) -> Error {
        let e = api::handle_value(db, method, &request).unwrap_err();
        reword(method, &request, e)
    }

    #[test]
    fn missing_and_existing_tables_are_named_in_full() {
        let mut db = instance();
        let e = run(
            &mut db,
            "readRows",
            json!({"tableName": "projects/p/instances/i/tables/nope"}),
        );
        assert_eq!(e.code(), Code::NotFound);
        assert_eq!(
            e.message(),
            "table \"projects/p/instances/i/tables/nope\" not found"
        );
        let e = run(
            &mut db,
            "createTable",
            json!({"parent": "projects/p/instances/i", "tableId": "t"}),
        );
        assert_eq!(
            (e.code(), e.message()),
            (
                Code::AlreadyExists,
                "table \"projects/p/instances/i/tables/t\" already exists"
            )
        );
    }

    #[test]
    fn an_existing_family_is_named_as_the_emulator_names_it() {
        let mut db = instance();
        let e = run(
            &mut db,
            "modifyColumnFamilies",
            json!({"name": "projects/p/instances/i/tables/t",
                   "modifications": [{"id": "new", "create": {}}, {"id": "cf", "create": {}}]}),
        );
        assert_eq!(
            (e.code(), e.message()),
            (Code::AlreadyExists, "family \"cf\" already exists")
        );
    }

    #[test]
    fn other_errors_keep_the_json_protocol_s_words() {
        let mut db = instance();
        let request = json!({"tableName": "projects/p/instances/i/tables/t", "rowKey": "cg==",
            "mutations": [{"setCell": {"familyName": "nope", "columnQualifier": "Yw==",
            "value": "dg=="}}]});
        let plain = api::handle_value(&mut db, "mutateRow", &request).unwrap_err();
        let e = run(&mut db, "mutateRow", request);
        assert_eq!((e.code(), e.message()), (plain.code(), plain.message()));
    }
}
