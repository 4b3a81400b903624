//! The pieces a host uses to run a readRows itself (the JS API streams rows
//! into its own format): they must agree with the answer line `handle`
//! writes.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::{Value, json};
use tabletop_sql::Instance;
use tabletop_store::CollectRows;
use tabletop_wire::api;

fn call(db: &mut Instance, method: &str, request: &Value) -> Value {
    let line = json!({"method": method, "request": request}).to_string();
    serde_json::from_str(&api::handle(db, &line)).unwrap()
}

fn with_rows() -> Instance {
    let mut db = Instance::default();
    call(
        &mut db,
        "createTable",
        &json!({"parent": "projects/p/instances/i", "tableId": "t",
                "table": {"columnFamilies": {"cf": {}}}}),
    );
    for key in ["a", "b", "c"] {
        let answer = call(
            &mut db,
            "mutateRow",
            &json!({"tableName": "projects/p/instances/i/tables/t",
                    "rowKey": api::encode_base64(key.as_bytes()),
                    "mutations": [{"setCell": {"familyName": "cf", "value": "dg=="}}]}),
        );
        assert_eq!(answer, json!({"response": {}}));
    }
    db
}

#[test]
fn stats_flag_and_stats_match_the_answer_line() {
    let mut db = with_rows();
    let request = json!({"tableName": "projects/p/instances/i/tables/t",
                         "rowsLimit": "2", "requestStatsView": "REQUEST_STATS_FULL"});
    let (table, req, full) = api::read_rows_request_full(&request).unwrap();
    assert_eq!((table.as_str(), req.rows_limit, full), ("t", 2, true));
    let mut rows = CollectRows::default();
    let stats = db.read_rows(&table, &req, &mut rows).unwrap();
    let answer = call(&mut db, "readRows", &request);
    assert_eq!(
        api::read_stats_to_json(&stats),
        answer["response"]["requestStats"]
    );
    assert_eq!(rows.rows.len(), 2);

    let plain = json!({"tableName": "projects/p/instances/i/tables/t"});
    assert!(!api::read_rows_request_full(&plain).unwrap().2);
}

#[test]
fn errors_read_as_the_answer_line_writes_them() {
    let bad = json!({"tableName": "projects/p/instances/i/tables/t", "rowsLimit": "-1"});
    let err = api::read_rows_request_full(&bad).unwrap_err();
    let mut db = with_rows();
    let answer = call(&mut db, "readRows", &bad);
    assert_eq!(api::error_to_json(&err), answer["error"]);
    assert_eq!(answer["error"]["status"], "INVALID_ARGUMENT");
}
