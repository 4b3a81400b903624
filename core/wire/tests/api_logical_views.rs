#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// The logical view methods of the instance admin API in the JSON
// protocol, and SQL reading the views. Shapes follow the LogicalView
// resource reference (name `projects/P/instances/I/logicalViews/V`,
// `query`, `etag`, `deletionProtection`; a stale etag is ABORTED) and the
// guide "Create and manage logical views" (views are read with SQL, not
// ReadRows). Google's emulator has no instance admin API, so nothing
// here is compared with it.

use serde_json::{Value, json};
use tabletop_sql::Instances;
use tabletop_wire::api;

const I: &str = "projects/p/instances/i";
const LV: &str = "projects/p/instances/i/logicalViews/open_orders";

fn call(all: &mut Instances, method: &str, request: Value) -> Value {
    let line = json!({"method": method, "request": request}).to_string();
    serde_json::from_str(&api::handle_in(all, &line)).unwrap()
}

fn ok(all: &mut Instances, method: &str, request: Value) -> Value {
    let out = call(all, method, request.clone());
    out.get("response")
        .unwrap_or_else(|| panic!("{method} {request}: {out}"))
        .clone()
}

fn status(out: &Value) -> &str {
    out["error"]["status"].as_str().unwrap_or("OK")
}

fn setup() -> Instances {
    let mut all = Instances::default();
    ok(
        &mut all,
        "createTable",
        json!({"parent": I, "tableId": "orders", "table": {"columnFamilies": {"o": {}}}}),
    );
    for (key, status) in [
        ("b3JkZXIjMQ==", "b3Blbg=="),
        ("b3JkZXIjMg==", "c2hpcHBlZA=="),
    ] {
        ok(
            &mut all,
            "mutateRow",
            json!({"tableName": format!("{I}/tables/orders"), "rowKey": key, "mutations": [
                {"setCell": {"familyName": "o", "columnQualifier": "c3RhdHVz", "timestampMicros": "1000", "value": status}}
            ]}),
        );
    }
    all
}

const QUERY: &str = "SELECT _key AS id FROM orders WHERE o['status'] = b'open'";

#[test]
fn create_get_list_update_delete() {
    let mut all = setup();
    let made = ok(
        &mut all,
        "createLogicalView",
        json!({"parent": I, "logicalViewId": "open_orders", "logicalView": {"query": QUERY}}),
    );
    assert_eq!(made["name"], LV);
    assert_eq!(made["query"], QUERY);
    let etag = made["etag"].as_str().unwrap().to_string();
    assert_eq!(ok(&mut all, "getLogicalView", json!({"name": LV})), made);
    let list = ok(&mut all, "listLogicalViews", json!({"parent": I}));
    assert_eq!(list["logicalViews"], json!([made]));
    // The SQL method reads it in FROM.
    let rows = ok(
        &mut all,
        "sql",
        json!({"instanceName": I, "query": "SELECT id FROM open_orders"}),
    );
    assert_eq!(rows["rows"].as_array().map(Vec::len), Some(1), "{rows}");
    // ReadRows does not take a logical view (they are read with SQL).
    let read = call(
        &mut all,
        "readRows",
        json!({"tableName": format!("{I}/tables/open_orders")}),
    );
    assert_eq!(status(&read), "NOT_FOUND");
    // Update with a mask; then a stale etag is ABORTED.
    let updated = ok(
        &mut all,
        "updateLogicalView",
        json!({"logicalView": {"name": LV, "deletionProtection": true, "etag": etag}, "updateMask": "deletionProtection"}),
    );
    assert_eq!(updated["deletionProtection"], true);
    assert_eq!(updated["query"], QUERY);
    let stale = call(
        &mut all,
        "updateLogicalView",
        json!({"logicalView": {"name": LV, "query": "SELECT _key FROM orders", "etag": etag}}),
    );
    assert_eq!(status(&stale), "ABORTED");
    let protected = call(&mut all, "deleteLogicalView", json!({"name": LV}));
    assert_eq!(status(&protected), "FAILED_PRECONDITION");
    let bad_mask = call(
        &mut all,
        "updateLogicalView",
        json!({"logicalView": {"name": LV}, "updateMask": "etag"}),
    );
    assert_eq!(status(&bad_mask), "INVALID_ARGUMENT");
    ok(
        &mut all,
        "updateLogicalView",
        json!({"logicalView": {"name": LV, "deletionProtection": false}, "updateMask": "deletion_protection"}),
    );
    ok(&mut all, "deleteLogicalView", json!({"name": LV}));
    assert_eq!(
        status(&call(&mut all, "getLogicalView", json!({"name": LV}))),
        "NOT_FOUND"
    );
}

#[test]
fn bad_requests_are_refused_clearly() {
    let mut all = setup();
    let no_query = call(
        &mut all,
        "createLogicalView",
        json!({"parent": I, "logicalViewId": "v", "logicalView": {}}),
    );
    assert_eq!(status(&no_query), "INVALID_ARGUMENT");
    let missing_table = call(
        &mut all,
        "createLogicalView",
        json!({"parent": I, "logicalViewId": "v", "logicalView": {"query": "SELECT _key FROM gone"}}),
    );
    assert_eq!(status(&missing_table), "INVALID_ARGUMENT");
    let msg = missing_table["error"]["message"].as_str().unwrap();
    assert!(msg.contains("Table not found: gone"), "{msg}");
    let bad_name = call(
        &mut all,
        "getLogicalView",
        json!({"name": "projects/p/instances/i/tables/orders"}),
    );
    assert_eq!(status(&bad_name), "INVALID_ARGUMENT");
    let unknown_field = call(
        &mut all,
        "createLogicalView",
        json!({"parent": I, "logicalViewId": "v", "logicalView": {"query": QUERY, "nope": 1}}),
    );
    assert_eq!(status(&unknown_field), "INVALID_ARGUMENT");
}

#[test]
fn views_belong_to_their_instance() {
    let mut all = setup();
    ok(
        &mut all,
        "createLogicalView",
        json!({"parent": I, "logicalViewId": "open_orders", "logicalView": {"query": QUERY}}),
    );
    let other = ok(
        &mut all,
        "listLogicalViews",
        json!({"parent": "projects/p/instances/other"}),
    );
    assert_eq!(other, json!({}));
    // An instance's snapshot keeps its views.
    let bytes = all.snapshot();
    let mut back = Instances::restore(&bytes).unwrap();
    let kept = ok(&mut back, "getLogicalView", json!({"name": LV}));
    assert_eq!(kept["query"], QUERY);
}
