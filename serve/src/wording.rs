//! The messages of a few errors as Google's emulator words them over
//! gRPC, where the JSON protocol words them its own way: a missing table
//! is `table "projects/p/instances/i/tables/t" not found` (the full
//! resource name, as `cbt` users see it from the emulator), not `table
//! "t" not found`; creating a table that exists is `table "<name>" already
//! exists`; creating a family that exists is `family "cf" already
//! exists`. The code stays the core's. The case is told from the code and
//! the instance's state (the table is not there, or is), never from the
//! core's message, and `tabletop json` keeps its own wording.

use serde_json::Value;
use tabletop_core::{Code, Error, Instance};

/// `e`, an error of `method` on `request` (a JSON protocol body) run on
/// `db`, reworded as the emulator words it where it differs.
pub fn reword(db: &Instance, method: &str, request: &Value, e: Error) -> Error {
    let text = |field: &str| request.get(field).and_then(Value::as_str);
    if request.get("authorizedViewName").is_some() {
        return e;
    }
    match (e.code(), method) {
        (Code::AlreadyExists, "createTable") => match (text("parent"), text("tableId")) {
            (Some(parent), Some(id)) if db.store().has_table(id) => Error::new(
                Code::AlreadyExists,
                format!("table \"{parent}/tables/{id}\" already exists"),
            ),
            _ => e,
        },
        (Code::AlreadyExists, "modifyColumnFamilies") => match text("name") {
            Some(name) => existing_family(db, name, request).map_or(e, |family| {
                Error::new(
                    Code::AlreadyExists,
                    format!("family \"{family}\" already exists"),
                )
            }),
            None => e,
        },
        (Code::NotFound, "createTable") => e,
        (Code::NotFound, _) => match text("tableName").or_else(|| text("name")) {
            Some(name) => missing_table(db, name, e),
            None => e,
        },
        _ => e,
    }
}

/// The first family a modifyColumnFamilies `request` creates that the
/// table `name` already has.
fn existing_family<'a>(db: &Instance, name: &str, request: &'a Value) -> Option<&'a str> {
    let (_, id) = name.rsplit_once("/tables/")?;
    let table = db.store().get_table(id).ok()?;
    request
        .get("modifications")?
        .as_array()?
        .iter()
        .filter(|m| m.get("create").is_some())
        .filter_map(|m| m.get("id").and_then(Value::as_str))
        .find(|family| table.schema.families.contains_key(*family))
}

/// `e` as the emulator's `table "<name>" not found` when it is NOT_FOUND
/// and the table `name` names is not there.
pub fn missing_table(db: &Instance, name: &str, e: Error) -> Error {
    let id = name.rsplit_once("/tables/").map(|(_, id)| id);
    match id {
        Some(id)
            if e.code() == Code::NotFound && !id.contains('/') && !db.store().has_table(id) =>
        {
            Error::new(Code::NotFound, format!("table \"{name}\" not found"))
        }
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tabletop_core::api;

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
        reword(db, method, &request, e)
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
