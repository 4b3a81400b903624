#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Deletion protection through the JSON protocol: `deletionProtection` on
// createTable, updateTable (under its mask) and getTable/listTables, and
// what it refuses (deleteTable, dropping a family) and what it does not
// (writes, dropRowRange, new families).

mod common;

use common::{err, ok};
use serde_json::{Value, json};
use tabletop_sql::Instance;
use tabletop_store::{Fidelity, InstanceConfig};

const PARENT: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/t";

fn protect(db: &mut Instance, on: bool) -> Value {
    let op = ok(
        db,
        "updateTable",
        json!({"table": {"name": TABLE, "deletionProtection": on},
               "updateMask": "deletion_protection"}),
    );
    assert_eq!(op["done"], json!(true), "{op}");
    op["response"].clone()
}

/// An instance named as the requests name it (`projects/p/instances/i`).
fn table_with_a_row() -> Instance {
    let mut db = Instance::new(InstanceConfig {
        project: "p".into(),
        instance: "i".into(),
        ..InstanceConfig::default()
    });
    ok(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "t",
               "table": {"columnFamilies": {"cf": {}, "old": {}}}}),
    );
    ok(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": "cjE=", "mutations": [{"setCell": {
            "familyName": "cf", "columnQualifier": "cQ==", "value": "dg=="}}]}),
    );
    db
}

fn rows(db: &mut Instance) -> usize {
    let out = ok(db, "readRows", json!({"tableName": TABLE}));
    out["rows"].as_array().map_or(0, Vec::len)
}

#[test]
fn a_protected_table_and_its_families_stay() {
    let mut db = table_with_a_row();
    let table = protect(&mut db, true);
    assert_eq!(table["deletionProtection"], json!(true), "{table}");
    assert_eq!(
        ok(&mut db, "getTable", json!({"name": TABLE}))["deletionProtection"],
        json!(true)
    );

    let (status, message) = err(&mut db, "deleteTable", json!({"name": TABLE}));
    assert_eq!(status, "FAILED_PRECONDITION");
    assert!(
        message.contains("deletion protection field is set to true"),
        "{message}"
    );
    // Dropping a family is refused whole, with the creation beside it.
    let (status, message) = err(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [
            {"id": "new", "create": {}}, {"id": "old", "drop": true}]}),
    );
    assert_eq!(status, "FAILED_PRECONDITION");
    assert!(message.contains("\"old\""), "{message}");
    let families = ok(&mut db, "getTable", json!({"name": TABLE}))["columnFamilies"].clone();
    assert!(
        families.get("old").is_some() && families.get("new").is_none(),
        "{families}"
    );
    assert_eq!(rows(&mut db), 1);

    // The data is not protected, nor is the schema against additions.
    ok(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "new", "create": {}}]}),
    );
    ok(
        &mut db,
        "dropRowRange",
        json!({"name": TABLE, "deleteAllDataFromTable": true}),
    );
    assert_eq!(rows(&mut db), 0);

    let table = protect(&mut db, false);
    assert!(table.get("deletionProtection").is_none(), "{table}");
    ok(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "old", "drop": true}]}),
    );
    ok(&mut db, "deleteTable", json!({"name": TABLE}));
}

#[test]
fn create_table_can_protect_and_list_tables_shows_it() {
    let mut db = Instance::default();
    let table = ok(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "t",
               "table": {"columnFamilies": {"cf": {}}, "deletionProtection": true}}),
    );
    assert_eq!(table["deletionProtection"], json!(true), "{table}");
    let list = ok(
        &mut db,
        "listTables",
        json!({"parent": PARENT, "view": "SCHEMA_VIEW"}),
    );
    assert_eq!(
        list["tables"][0]["deletionProtection"],
        json!(true),
        "{list}"
    );
    // The name-only view (listTables' default) leaves it out.
    let list = ok(&mut db, "listTables", json!({"parent": PARENT}));
    assert!(
        list["tables"][0].get("deletionProtection").is_none(),
        "{list}"
    );
}

#[test]
fn the_mask_decides_what_update_table_changes() {
    let mut db = table_with_a_row();
    // Named in the table but not in the mask: ignored.
    let op = ok(
        &mut db,
        "updateTable",
        json!({"table": {"name": TABLE, "deletionProtection": true,
                         "changeStreamConfig": {"retentionPeriod": "86400s"}},
               "updateMask": "changeStreamConfig"}),
    );
    assert!(op["response"].get("deletionProtection").is_none(), "{op}");
    assert!(op["response"].get("changeStreamConfig").is_some(), "{op}");
    // Both under one mask.
    let op = ok(
        &mut db,
        "updateTable",
        json!({"table": {"name": TABLE, "deletionProtection": true},
               "updateMask": "deletionProtection,changeStreamConfig"}),
    );
    assert_eq!(op["response"]["deletionProtection"], json!(true), "{op}");
    assert!(op["response"].get("changeStreamConfig").is_none(), "{op}");
    // A missing table is not found, and changes nothing elsewhere.
    let (status, _) = err(
        &mut db,
        "updateTable",
        json!({"table": {"name": "projects/p/instances/i/tables/nope", "deletionProtection": true},
               "updateMask": "deletion_protection"}),
    );
    assert_eq!(status, "NOT_FOUND");
    let (status, message) = err(
        &mut db,
        "updateTable",
        json!({"table": {"name": TABLE, "deletionProtection": "on"},
               "updateMask": "deletion_protection"}),
    );
    assert_eq!(status, "INVALID_ARGUMENT", "{message}");
}

#[test]
fn the_protection_survives_a_snapshot_and_old_snapshots_load() {
    let mut db = table_with_a_row();
    let unprotected = db.snapshot();
    protect(&mut db, true);
    let bytes = db.snapshot();
    assert_eq!(
        bytes[8], 7,
        "a snapshot with a protected table is version 7"
    );
    let mut restored = Instance::restore(&bytes).expect("restores");
    assert_eq!(
        ok(&mut restored, "getTable", json!({"name": TABLE}))["deletionProtection"],
        json!(true)
    );
    assert_eq!(
        err(&mut restored, "deleteTable", json!({"name": TABLE})).0,
        "FAILED_PRECONDITION"
    );
    assert_eq!(rows(&mut restored), 1);
    // A snapshot written before (no table protected) loads unprotected.
    assert!(unprotected[8] < 6, "version {}", unprotected[8]);
    let mut old = Instance::restore(&unprotected).expect("restores");
    ok(&mut old, "deleteTable", json!({"name": TABLE}));
}

#[test]
fn the_emulator_names_the_table_in_full() {
    let mut db = table_with_a_row();
    db.switch_fidelity(Fidelity::Emulator).unwrap();
    protect(&mut db, true);
    let (status, message) = err(&mut db, "deleteTable", json!({"name": TABLE}));
    assert_eq!(status, "FAILED_PRECONDITION");
    assert_eq!(
        message,
        format!("table \"{TABLE}\" is protected from deletion")
    );
    // Its ModifyColumnFamilies answer leaves the flag out; GetTable shows it.
    let table = ok(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "new", "create": {}}]}),
    );
    assert!(table.get("deletionProtection").is_none(), "{table}");
    assert_eq!(
        ok(&mut db, "getTable", json!({"name": TABLE}))["deletionProtection"],
        json!(true)
    );
}
