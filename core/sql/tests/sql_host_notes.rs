//! Hosts' notes on tables: kept with the instance, in its snapshot, and
//! forgotten with the table.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::json;
use tabletop_sql::Instance;
use tabletop_store::*;

fn with_table() -> Instance {
    let mut db = Instance::default();
    let mut schema = TableSchema::default();
    schema.families.insert("cf".into(), ColumnFamily::default());
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: Vec::new(),
    })
    .unwrap();
    db
}

#[test]
fn notes_survive_a_snapshot_and_go_with_their_table() {
    let mut db = with_table();
    let plain = db.snapshot();
    db.set_table_note("t", "host.key", Some(json!({"a": 1})))
        .unwrap();
    assert_eq!(db.table_note("t", "host.key"), Some(&json!({"a": 1})));
    assert_eq!(db.table_note("t", "other"), None);

    let mut back = Instance::restore(&db.snapshot()).unwrap();
    assert_eq!(back.table_note("t", "host.key"), Some(&json!({"a": 1})));
    // A snapshot written without notes loads without them.
    assert_eq!(
        Instance::restore(&plain)
            .unwrap()
            .table_note("t", "host.key"),
        None
    );

    // Removed, the instance snapshots as it did before the note.
    back.set_table_note("t", "host.key", None).unwrap();
    assert_eq!(back.snapshot(), plain);

    back.set_table_note("t", "host.key", Some(json!(true)))
        .unwrap();
    back.delete_table("t").unwrap();
    assert_eq!(
        back.set_table_note("t", "host.key", Some(json!(true)))
            .unwrap_err()
            .code(),
        Code::NotFound
    );
    back.create_table(CreateTableRequest {
        table_id: "t".into(),
        ..CreateTableRequest::default()
    })
    .unwrap();
    assert_eq!(back.table_note("t", "host.key"), None);
}
