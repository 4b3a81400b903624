#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// The JSON protocol end to end: request lines in, answer lines out,
// through `api::handle`, for every method and every kind of bad input.

mod common;

use common::{call, err, ok};
use serde_json::{Value, json};
use tabletop_sql::Instance;
use tabletop_store::InstanceConfig;
use tabletop_wire::api::{self, Access, METHODS, Service};

const PARENT: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/t";

/// Asserts an INVALID_ARGUMENT whose message starts with `prefix`.
fn invalid(db: &mut Instance, method: &str, request: Value, prefix: &str) {
    let (status, message) = err(db, method, request);
    assert_eq!(status, "INVALID_ARGUMENT", "{message}");
    assert!(
        message.starts_with(prefix),
        "expected {prefix:?}..., got {message:?}"
    );
}

fn b64(bytes: &[u8]) -> String {
    api::encode_base64(bytes)
}

/// An instance with table `t`: family `cf` (no GC rule), `one` (one
/// version) and aggregate `sum`.
fn setup() -> Instance {
    let mut db = Instance::new(InstanceConfig::default());
    ok(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "t", "table": {"columnFamilies": {
            "cf": {},
            "one": {"gcRule": {"maxNumVersions": 1}},
            "sum": {"valueType": {"aggregateType": {"inputType": {"int64Type": {}}, "sum": {}}}}
        }}}),
    );
    db
}

fn set_cell(family: &str, qualifier: &[u8], ts: i64, value: &[u8]) -> Value {
    json!({"setCell": {"familyName": family, "columnQualifier": b64(qualifier),
        "timestampMicros": ts.to_string(), "value": b64(value)}})
}

fn put(db: &mut Instance, key: &[u8], mutations: Vec<Value>) {
    ok(
        db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": b64(key), "mutations": mutations}),
    );
}

fn read(db: &mut Instance, extra: Value) -> Vec<Value> {
    let mut req = json!({"tableName": TABLE});
    if let (Some(r), Some(e)) = (req.as_object_mut(), extra.as_object()) {
        r.extend(e.clone());
    }
    let resp = ok(db, "readRows", req);
    resp.get("rows")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn keys(rows: &[Value]) -> Vec<Vec<u8>> {
    rows.iter()
        .map(|r| api::decode_base64(r["key"].as_str().unwrap()).unwrap())
        .collect()
}

// ------------------------------------------------------------- admin

#[test]
fn create_get_list_delete_table() {
    let mut db = setup();
    let got = ok(&mut db, "getTable", json!({"name": TABLE}));
    assert_eq!(
        got,
        json!({"name": TABLE, "granularity": "MILLIS", "columnFamilies": {
            "cf": {},
            "one": {"gcRule": {"maxNumVersions": 1}},
            "sum": {"valueType": {"aggregateType": {"inputType": {"int64Type": {}}, "sum": {}}}}
        }})
    );
    ok(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "a"}),
    );
    let list = ok(&mut db, "listTables", json!({"parent": PARENT}));
    assert_eq!(
        list,
        json!({"tables": [{"name": "projects/p/instances/i/tables/a"}, {"name": TABLE}]})
    );
    let schema = ok(
        &mut db,
        "listTables",
        json!({"parent": PARENT, "view": "SCHEMA_VIEW"}),
    );
    assert_eq!(
        schema["tables"][0],
        json!({"name": "projects/p/instances/i/tables/a", "granularity": "MILLIS"})
    );
    let name_only = ok(
        &mut db,
        "getTable",
        json!({"name": TABLE, "view": "NAME_ONLY"}),
    );
    assert_eq!(name_only, json!({"name": TABLE}));
    assert_eq!(
        ok(&mut db, "deleteTable", json!({"name": TABLE})),
        json!({})
    );
    let (status, _) = err(&mut db, "getTable", json!({"name": TABLE}));
    assert_eq!(status, "NOT_FOUND");
    let (status, _) = err(&mut db, "deleteTable", json!({"name": TABLE}));
    assert_eq!(status, "NOT_FOUND");
}

#[test]
fn names_echo_the_project_and_instance_of_the_request() {
    let mut db = setup();
    let got = ok(
        &mut db,
        "getTable",
        json!({"name": "projects/other/instances/x/tables/t", "view": 1}),
    );
    assert_eq!(got, json!({"name": "projects/other/instances/x/tables/t"}));
    let list = ok(
        &mut db,
        "listTables",
        json!({"parent": "projects/q/instances/j"}),
    );
    assert_eq!(
        list,
        json!({"tables": [{"name": "projects/q/instances/j/tables/t"}]})
    );
}

#[test]
fn list_tables_pages() {
    let mut db = Instance::default();
    for id in ["a", "b", "c"] {
        ok(
            &mut db,
            "createTable",
            json!({"parent": PARENT, "tableId": id}),
        );
    }
    let p1 = ok(
        &mut db,
        "listTables",
        json!({"parent": PARENT, "pageSize": 2}),
    );
    assert_eq!(p1["tables"].as_array().unwrap().len(), 2);
    let token = p1["nextPageToken"].as_str().unwrap().to_string();
    let p2 = ok(
        &mut db,
        "listTables",
        json!({"parent": PARENT, "pageSize": 2, "pageToken": token}),
    );
    assert_eq!(
        p2,
        json!({"tables": [{"name": "projects/p/instances/i/tables/c"}]})
    );
    invalid(
        &mut db,
        "listTables",
        json!({"parent": PARENT, "pageSize": -1}),
        "request.pageSize: ",
    );
}

#[test]
fn create_table_with_splits_and_rules() {
    let mut db = Instance::default();
    let created = ok(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "t", "initialSplits": [{"key": b64(b"m")}, {"key": b64(b"\xff")}],
            "table": {"granularity": "MILLIS", "columnFamilies": {"cf": {"gcRule": {"union": {"rules": [
                {"maxAge": "86400s"}, {"maxNumVersions": 3}]}}}}}}),
    );
    assert_eq!(
        created["columnFamilies"]["cf"],
        json!({"gcRule": {"union": {"rules": [{"maxAge": "86400s"}, {"maxNumVersions": 3}]}}})
    );
    let samples = ok(&mut db, "sampleRowKeys", json!({"tableName": TABLE}));
    let samples = samples["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 3, "{samples:?}");
    assert_eq!(samples[0]["rowKey"], b64(b"m"));
    assert_eq!(samples[1]["rowKey"], b64(b"\xff"));
    assert_eq!(
        samples[2],
        json!({}),
        "the last sample has the empty key and no bytes yet"
    );
    let tablets = ok(&mut db, "listTablets", json!({"tableName": TABLE}));
    assert_eq!(tablets["tablets"].as_array().unwrap().len(), 3);
    assert_eq!(tablets["tablets"][1]["startKey"], b64(b"m"));
}

#[test]
fn create_table_errors() {
    let mut db = setup();
    let (status, _) = err(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "t"}),
    );
    assert_eq!(status, "ALREADY_EXISTS");
    invalid(
        &mut db,
        "createTable",
        json!({"tableId": "x"}),
        "request.parent: required field is missing",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": "projects/p", "tableId": "x"}),
        "request.parent: \"projects/p\" is not an instance name",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT}),
        "request.tableId: required",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "-x"}),
        "request.tableId: ",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": 7}),
        "request.tableId: expected a string, got a number",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "table": {"columnFamilies": {"cf": {"gcRule": {"maxAge": "1d"}}}}}),
        "request.table.columnFamilies[\"cf\"].gcRule.maxAge: ",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "table": {"columnFamilies": {"cf": {"gcRule": {"maxNumVersions": 0}}}}}),
        "request.table.columnFamilies[\"cf\"].gcRule: ",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "table": {"columnFamilies": {"a b": {}}}}),
        "request.table.columnFamilies[\"a b\"]: ",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "table": {"colunmFamilies": {}}}),
        "request.table.colunmFamilies: unknown field \"colunmFamilies\" in Table",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "initialSplits": [{"key": "***"}]}),
        "request.initialSplits[0].key: invalid base64",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "initialSplits": [{}]}),
        "request.initialSplits[0]: ",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "table": {"granularity": "SECONDS"}}),
        "request.table.granularity: ",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "table": {"deletionProtection": "yes"}}),
        "request.table.deletionProtection: ",
    );
    invalid(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "table": {"changeStreamConfig": {}}}),
        "request.table.changeStreamConfig.retentionPeriod: required field is missing",
    );
    let (status, _) = err(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "table": {"columnFamilies": {"s": {"valueType": {"stringType": {}}}}}}),
    );
    assert_eq!(status, "UNIMPLEMENTED");
    // Nothing was created by the failed requests.
    assert_eq!(
        ok(&mut db, "listTables", json!({"parent": PARENT}))["tables"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn modify_column_families() {
    let mut db = setup();
    let t = ok(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [
            {"id": "new", "create": {"gcRule": {"maxAge": "3600s"}}},
            {"id": "cf", "update": {"gcRule": {"maxNumVersions": 2}}},
            {"id": "one", "drop": true},
            {"id": "sum", "update": {"gcRule": {"maxNumVersions": 1}}, "updateMask": "gcRule"}
        ]}),
    );
    let fams = t["columnFamilies"].as_object().unwrap();
    assert_eq!(fams.keys().collect::<Vec<_>>(), ["cf", "new", "sum"]);
    assert_eq!(fams["new"], json!({"gcRule": {"maxAge": "3600s"}}));
    assert_eq!(fams["cf"], json!({"gcRule": {"maxNumVersions": 2}}));
    assert_eq!(
        fams["sum"],
        json!({"gcRule": {"maxNumVersions": 1}, "valueType": {"aggregateType": {"inputType": {"int64Type": {}}, "sum": {}}}}),
        "an update keeps the value type"
    );
    invalid(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": []}),
        "request.modifications: ",
    );
    invalid(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE}),
        "request.modifications: required",
    );
    invalid(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "cf"}]}),
        "request.modifications[0]: ",
    );
    invalid(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "cf", "drop": false}]}),
        "request.modifications[0].drop: must be true",
    );
    invalid(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "cf", "drop": true, "create": {}}]}),
        "request.modifications[0]: ",
    );
    invalid(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "cf", "update": {}, "updateMask": "valueType"}]}),
        "request.modifications[0].updateMask: ",
    );
    let (status, _) = err(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "nope", "drop": true}]}),
    );
    assert_eq!(status, "NOT_FOUND");
    let (status, _) = err(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "cf", "create": {}}]}),
    );
    assert_eq!(status, "ALREADY_EXISTS");
    // All or nothing: the valid first change was not applied.
    let (_, _) = err(
        &mut db,
        "modifyColumnFamilies",
        json!({"name": TABLE, "modifications": [{"id": "x1", "create": {}}, {"id": "nope", "drop": true}]}),
    );
    let t = ok(&mut db, "getTable", json!({"name": TABLE}));
    assert!(t["columnFamilies"].get("x1").is_none());
}

#[test]
fn drop_row_range() {
    let mut db = setup();
    for key in [&b"a1"[..], b"a2", b"b1"] {
        put(&mut db, key, vec![set_cell("cf", b"q", 1000, b"v")]);
    }
    assert_eq!(
        ok(
            &mut db,
            "dropRowRange",
            json!({"name": TABLE, "rowKeyPrefix": b64(b"a")})
        ),
        json!({})
    );
    assert_eq!(keys(&read(&mut db, json!({}))), vec![b"b1".to_vec()]);
    ok(
        &mut db,
        "dropRowRange",
        json!({"name": TABLE, "deleteAllDataFromTable": true}),
    );
    assert!(read(&mut db, json!({})).is_empty());
    invalid(
        &mut db,
        "dropRowRange",
        json!({"name": TABLE}),
        "request: set rowKeyPrefix or deleteAllDataFromTable",
    );
    invalid(
        &mut db,
        "dropRowRange",
        json!({"name": TABLE, "rowKeyPrefix": ""}),
        "request.rowKeyPrefix: ",
    );
    invalid(
        &mut db,
        "dropRowRange",
        json!({"name": TABLE, "deleteAllDataFromTable": false}),
        "request.deleteAllDataFromTable: must be true",
    );
    invalid(
        &mut db,
        "dropRowRange",
        json!({"name": TABLE, "rowKeyPrefix": "YQ==", "deleteAllDataFromTable": true}),
        "request: ",
    );
    let (status, _) = err(
        &mut db,
        "dropRowRange",
        json!({"name": "projects/p/instances/i/tables/zz", "deleteAllDataFromTable": true}),
    );
    assert_eq!(status, "NOT_FOUND");
}

// -------------------------------------------------------------- data

#[test]
fn binary_keys_and_values_round_trip() {
    let mut db = setup();
    let all: Vec<u8> = (0..=255).collect();
    for (i, chunk) in all.chunks(37).enumerate() {
        let key = [&[0xff, 0x00], chunk].concat();
        put(
            &mut db,
            &key,
            vec![set_cell("cf", chunk, 1000 * (i as i64 + 1), &all)],
        );
    }
    let rows = read(&mut db, json!({}));
    assert_eq!(rows.len(), all.chunks(37).count());
    for (row, chunk) in rows.iter().zip(all.chunks(37)) {
        assert_eq!(
            api::decode_base64(row["key"].as_str().unwrap()).unwrap(),
            [&[0xff, 0x00], chunk].concat()
        );
        let col = &row["families"][0]["columns"][0];
        assert_eq!(
            api::decode_base64(col["qualifier"].as_str().unwrap()).unwrap(),
            chunk
        );
        assert_eq!(
            api::decode_base64(col["cells"][0]["value"].as_str().unwrap()).unwrap(),
            all
        );
    }
    // URL-safe and unpadded base64 are accepted on input.
    put(
        &mut db,
        b"\xfb\xff",
        vec![json!({"setCell": {"familyName": "cf", "value": "-_8"}})],
    );
    let got = read(&mut db, json!({"rows": {"rowKeys": ["-_8"]}}));
    assert_eq!(
        got,
        vec![
            json!({"key": "+/8=", "families": [{"name": "cf", "columns": [{"cells": [{"value": "+/8="}]}]}]})
        ]
    );
}

#[test]
fn rows_come_back_in_byte_order_with_cells_newest_first() {
    let mut db = setup();
    put(
        &mut db,
        b"b",
        vec![
            set_cell("cf", b"q", 1000, b"old"),
            set_cell("cf", b"q", 3000, b"new"),
        ],
    );
    put(
        &mut db,
        b"a",
        vec![
            set_cell("one", b"x", 2000, b"1"),
            set_cell("cf", b"z", 2000, b"2"),
            set_cell("cf", b"a", 2000, b"3"),
        ],
    );
    put(&mut db, b"\x80", vec![set_cell("cf", b"", 0, b"")]);
    let rows = read(&mut db, json!({}));
    assert_eq!(
        keys(&rows),
        vec![b"a".to_vec(), b"b".to_vec(), b"\x80".to_vec()]
    );
    assert_eq!(
        rows[0],
        json!({"key": "YQ==", "families": [
            {"name": "cf", "columns": [
                {"qualifier": "YQ==", "cells": [{"timestampMicros": "2000", "value": "Mw=="}]},
                {"qualifier": "eg==", "cells": [{"timestampMicros": "2000", "value": "Mg=="}]}
            ]},
            {"name": "one", "columns": [{"qualifier": "eA==", "cells": [{"timestampMicros": "2000", "value": "MQ=="}]}]}
        ]})
    );
    assert_eq!(
        rows[1]["families"][0]["columns"][0]["cells"],
        json!([{"timestampMicros": "3000", "value": "bmV3"}, {"timestampMicros": "1000", "value": "b2xk"}])
    );
    // A cell with an empty qualifier, timestamp 0 and empty value: every
    // default is left out, the cell itself stays.
    assert_eq!(
        rows[2],
        json!({"key": "gA==", "families": [{"name": "cf", "columns": [{"cells": [{}]}]}]})
    );
}

#[test]
fn read_rows_by_keys_ranges_limit_and_direction() {
    let mut db = setup();
    for key in ["a", "b", "c", "d", "e"] {
        put(
            &mut db,
            key.as_bytes(),
            vec![set_cell("cf", b"q", 1000, b"v")],
        );
    }
    let k = |s: &str| b64(s.as_bytes());
    let got = |db: &mut Instance, extra: Value| {
        keys(&read(db, extra))
            .into_iter()
            .map(|k| String::from_utf8(k).unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        got(
            &mut db,
            json!({"rows": {"rowKeys": [k("d"), k("b"), k("zz")]}})
        ),
        ["b", "d"]
    );
    assert_eq!(
        got(
            &mut db,
            json!({"rows": {"rowRanges": [{"startKeyClosed": k("b"), "endKeyOpen": k("d")}]}})
        ),
        ["b", "c"]
    );
    assert_eq!(
        got(
            &mut db,
            json!({"rows": {"rowRanges": [{"startKeyOpen": k("b"), "endKeyClosed": k("d")}]}})
        ),
        ["c", "d"]
    );
    assert_eq!(
        got(
            &mut db,
            json!({"rows": {"row_ranges": [{"start_key_open": k("c")}]}})
        ),
        ["d", "e"]
    );
    assert_eq!(got(&mut db, json!({"rowsLimit": "2"})), ["a", "b"]);
    assert_eq!(
        got(&mut db, json!({"rowsLimit": 2, "reversed": true})),
        ["e", "d"]
    );
    assert_eq!(
        got(&mut db, json!({"rowsLimit": "0"})),
        ["a", "b", "c", "d", "e"]
    );
    let resp = ok(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "rowsLimit": "1", "requestStatsView": "REQUEST_STATS_FULL"}),
    );
    let stats = &resp["requestStats"]["fullReadStatsView"]["readIterationStats"];
    assert_eq!(stats["rowsReturnedCount"], "1");
    assert_eq!(stats["cellsReturnedCount"], "1");
    let resp = ok(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "rows": {"rowKeys": [k("zz")]}, "appProfileId": "default"}),
    );
    assert_eq!(
        resp,
        json!({"rows": []}),
        "no rows: the documented form, with an empty list"
    );
}

#[test]
fn read_rows_errors() {
    let mut db = setup();
    invalid(
        &mut db,
        "readRows",
        json!({}),
        "request.tableName: required field is missing",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": "t"}),
        "request.tableName: \"t\" is not a table name",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "rowsLimit": "-1"}),
        "request.rowsLimit: ",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "rowsLimit": "ten"}),
        "request.rowsLimit: ",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "reversed": "yes"}),
        "request.reversed: expected true or false",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "rows": {"rowRanges": [{"startKeyClosed": "a$"}]}}),
        "request.rows.rowRanges[0].startKeyClosed: invalid base64",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "rows": {"rowKeys": "YQ=="}}),
        "request.rows.rowKeys: expected an array",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "rows": {"rowKeys": [null]}}),
        "request.rows.rowKeys[0]: ",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "rows": {"rowRanges": [{"startKeyClosed": "Yg==", "endKeyOpen": "YQ=="}]}}),
        "",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "filter": {"chain": {"filters": [{"sink": false}]}}}),
        "request.filter.chain.filters[0].sink: ",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "filter": {"nope": true}}),
        "request.filter.nope: unknown field",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "requestStatsView": "ALL"}),
        "request.requestStatsView: ",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "tableName2": 1}),
        "request.tableName2: unknown field",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "table_name": TABLE}),
        "request: field tableName is given twice",
    );
    invalid(
        &mut db,
        "readRows",
        json!({"tableName": TABLE, "authorizedViewName": "v"}),
        "request.authorizedViewName: set either tableName or authorizedViewName",
    );
    let (status, _) = err(
        &mut db,
        "readRows",
        json!({"tableName": "projects/p/instances/i/tables/none"}),
    );
    assert_eq!(status, "NOT_FOUND");
}

#[test]
fn read_rows_with_filters() {
    let mut db = setup();
    put(
        &mut db,
        b"r",
        vec![
            set_cell("cf", b"a", 1000, b"1"),
            set_cell("cf", b"a", 2000, b"2"),
            set_cell("cf", b"b", 1000, b"3"),
        ],
    );
    let rows = read(&mut db, json!({"filter": {"cellsPerColumnLimitFilter": 1}}));
    let cols = &rows[0]["families"][0]["columns"];
    assert_eq!(
        cols[0]["cells"],
        json!([{"timestampMicros": "2000", "value": "Mg=="}])
    );
    assert_eq!(
        cols[1]["cells"],
        json!([{"timestampMicros": "1000", "value": "Mw=="}])
    );
    let rows = read(
        &mut db,
        json!({"filter": {"chain": {"filters": [
            {"columnQualifierRegexFilter": b64(b"b")}, {"stripValueTransformer": true}, {"applyLabelTransformer": "l"}
        ]}}}),
    );
    assert_eq!(
        rows,
        vec![
            json!({"key": "cg==", "families": [{"name": "cf", "columns": [{"qualifier": "Yg==", "cells": [{"timestampMicros": "1000", "labels": ["l"]}]}]}]})
        ]
    );
    assert!(read(&mut db, json!({"filter": {"blockAllFilter": true}})).is_empty());
    assert_eq!(read(&mut db, json!({"filter": {}})).len(), 1);
}

#[test]
fn mutate_row_errors_leave_the_row_alone() {
    let mut db = setup();
    put(&mut db, b"r", vec![set_cell("cf", b"q", 1000, b"v")]);
    let before = read(&mut db, json!({}));
    let (status, _) = err(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": b64(b"r"), "mutations": [set_cell("cf", b"q", 2000, b"w"), set_cell("nope", b"q", 0, b"")]}),
    );
    assert_eq!(status, "NOT_FOUND");
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": b64(b"r"), "mutations": [set_cell("cf", b"q", 2000, b"w"), set_cell("cf", b"q", 1500, b"x")]}),
        "",
    );
    assert_eq!(read(&mut db, json!({})), before);
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "mutations": [set_cell("cf", b"q", 0, b"")]}),
        "request.rowKey: required",
    );
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": "", "mutations": [set_cell("cf", b"q", 0, b"")]}),
        "request.rowKey: ",
    );
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": b64(&[7; 4097]), "mutations": [set_cell("cf", b"q", 0, b"")]}),
        "request.rowKey: ",
    );
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": "cg=="}),
        "",
    );
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "mutations": [{}]}),
        "request.mutations[0]: a mutation must set one of",
    );
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "mutations": [{"setCell": {"familyName": "cf", "timestampMicros": "x"}}]}),
        "request.mutations[0].setCell.timestampMicros: ",
    );
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "mutations": [{"setCell": {"familyName": "cf", "value": 5}}]}),
        "request.mutations[0].setCell.value: expected a base64 string, got a number",
    );
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "mutations": [{"deleteFromRow": {}, "deleteFromFamily": {"familyName": "cf"}}]}),
        "request.mutations[0]: ",
    );
}

#[test]
fn deletes_and_aggregates() {
    let mut db = setup();
    put(
        &mut db,
        b"r",
        vec![
            set_cell("cf", b"a", 1000, b"1"),
            set_cell("cf", b"a", 2000, b"2"),
            set_cell("cf", b"b", 1000, b"3"),
            set_cell("one", b"c", 1000, b"4"),
        ],
    );
    put(
        &mut db,
        b"r",
        vec![
            json!({"deleteFromColumn": {"familyName": "cf", "columnQualifier": b64(b"a"),
        "timeRange": {"startTimestampMicros": "2000", "endTimestampMicros": "3000"}}}),
        ],
    );
    let rows = read(&mut db, json!({}));
    assert_eq!(
        rows[0]["families"][0]["columns"][0]["cells"],
        json!([{"timestampMicros": "1000", "value": "MQ=="}])
    );
    put(
        &mut db,
        b"r",
        vec![json!({"deleteFromFamily": {"familyName": "cf"}})],
    );
    let rows = read(&mut db, json!({}));
    assert_eq!(rows[0]["families"].as_array().unwrap().len(), 1);
    assert_eq!(rows[0]["families"][0]["name"], "one");
    put(&mut db, b"r", vec![json!({"deleteFromRow": {}})]);
    assert!(read(&mut db, json!({})).is_empty());

    let add = |n: i64| {
        json!({"addToCell": {"familyName": "sum", "columnQualifier": {"rawValue": b64(b"n")},
            "timestamp": {"rawTimestampMicros": "0"}, "input": {"intValue": n.to_string()}}})
    };
    put(&mut db, b"agg", vec![add(5), add(-2)]);
    put(&mut db, b"agg", vec![add(10)]);
    let rows = read(&mut db, json!({}));
    assert_eq!(
        rows[0]["families"][0]["columns"][0]["cells"][0]["value"],
        b64(&13i64.to_be_bytes())
    );
    let (status, _) = err(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "mutations": [set_cell("sum", b"n", 0, b"x")]}),
    );
    assert_eq!(status, "INVALID_ARGUMENT");
    invalid(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "mutations": [{"addToCell": {"familyName": "sum",
            "columnQualifier": {"rawValue": "bg=="}, "timestamp": {"rawTimestampMicros": "0"}, "input": {"stringValue": "1"}}}]}),
        "request.mutations[0].addToCell.input: ",
    );
}

#[test]
fn mutate_rows_reports_each_entry() {
    let mut db = setup();
    let resp = ok(
        &mut db,
        "mutateRows",
        json!({"tableName": TABLE, "entries": [
            {"rowKey": b64(b"a"), "mutations": [set_cell("cf", b"q", 1000, b"1")]},
            {"rowKey": b64(b"b"), "mutations": [set_cell("nope", b"q", 1000, b"2")]},
            {"rowKey": b64(b"c"), "mutations": [set_cell("cf", b"q", 1001, b"3")]},
            {"rowKey": b64(b"d"), "mutations": [set_cell("cf", b"q", 1000, b"4")]}
        ]}),
    );
    let entries = resp["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 4);
    assert_eq!(
        entries[0],
        json!({"index": 0, "status": {"code": 0}}),
        "the documented form: a numeric index and a code, also for OK"
    );
    assert_eq!(entries[1]["index"], 1);
    assert_eq!(entries[1]["status"]["code"], 5);
    assert!(
        entries[1]["status"]["message"]
            .as_str()
            .unwrap()
            .contains("nope")
    );
    assert_eq!(entries[2]["status"]["code"], 3);
    assert_eq!(entries[3], json!({"index": 3, "status": {"code": 0}}));
    assert_eq!(
        keys(&read(&mut db, json!({}))),
        vec![b"a".to_vec(), b"d".to_vec()]
    );
    invalid(
        &mut db,
        "mutateRows",
        json!({"tableName": TABLE, "entries": []}),
        "",
    );
    invalid(&mut db, "mutateRows", json!({"tableName": TABLE}), "");
    invalid(
        &mut db,
        "mutateRows",
        json!({"tableName": TABLE, "entries": [{"mutations": []}]}),
        "request.entries[0].rowKey: required",
    );
    invalid(
        &mut db,
        "mutateRows",
        json!({"tableName": TABLE, "entries": [{"rowKey": "YQ==", "mutations": [{"setCell": {"familyName": "cf", "value": "@"}}]}]}),
        "request.entries[0].mutations[0].setCell.value: invalid base64",
    );
    let (status, _) = err(
        &mut db,
        "mutateRows",
        json!({"tableName": "projects/p/instances/i/tables/x", "entries": [{"rowKey": "YQ==", "mutations": [{"deleteFromRow": {}}]}]}),
    );
    assert_eq!(status, "NOT_FOUND");
}

#[test]
fn sample_row_keys() {
    let mut db = setup();
    let resp = ok(&mut db, "sampleRowKeys", json!({"tableName": TABLE}));
    assert_eq!(resp, json!({"samples": [{}]}));
    put(&mut db, b"k", vec![set_cell("cf", b"q", 0, b"value")]);
    let resp = ok(
        &mut db,
        "sampleRowKeys",
        json!({"tableName": TABLE, "appProfileId": ""}),
    );
    let last = resp["samples"].as_array().unwrap().last().unwrap().clone();
    assert!(last.get("rowKey").is_none());
    assert!(
        last["offsetBytes"]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > 0
    );
    invalid(
        &mut db,
        "sampleRowKeys",
        json!({"tableName": TABLE, "rowsLimit": 1}),
        "request.rowsLimit: unknown field",
    );
    let (status, _) = err(
        &mut db,
        "sampleRowKeys",
        json!({"tableName": "projects/p/instances/i/tables/x"}),
    );
    assert_eq!(status, "NOT_FOUND");
}

#[test]
fn check_and_mutate_row() {
    let mut db = setup();
    put(&mut db, b"r", vec![set_cell("cf", b"a", 1000, b"1")]);
    let resp = ok(
        &mut db,
        "checkAndMutateRow",
        json!({"tableName": TABLE, "rowKey": b64(b"r"),
            "predicateFilter": {"familyNameRegexFilter": "cf"},
            "trueMutations": [set_cell("cf", b"t", 1000, b"yes")],
            "falseMutations": [set_cell("cf", b"f", 1000, b"no")]}),
    );
    assert_eq!(resp, json!({"predicateMatched": true}));
    let resp = ok(
        &mut db,
        "checkAndMutateRow",
        json!({"tableName": TABLE, "rowKey": b64(b"empty"),
            "trueMutations": [set_cell("cf", b"t", 1000, b"yes")],
            "falseMutations": [set_cell("cf", b"f", 1000, b"no")]}),
    );
    assert_eq!(
        resp,
        json!({}),
        "predicateMatched false is the default, left out"
    );
    let rows = read(&mut db, json!({}));
    assert_eq!(keys(&rows), vec![b"empty".to_vec(), b"r".to_vec()]);
    assert_eq!(rows[0]["families"][0]["columns"][0]["qualifier"], b64(b"f"));
    assert_eq!(rows[1]["families"][0]["columns"][1]["qualifier"], b64(b"t"));
    let (status, _) = err(
        &mut db,
        "checkAndMutateRow",
        json!({"tableName": "projects/p/instances/i/tables/x", "rowKey": "cg==", "trueMutations": [{"deleteFromRow": {}}]}),
    );
    assert_eq!(status, "NOT_FOUND");
    invalid(
        &mut db,
        "checkAndMutateRow",
        json!({"tableName": TABLE, "rowKey": "cg=="}),
        "",
    );
}

#[test]
fn read_modify_write_row() {
    let mut db = setup();
    ok(&mut db, "advanceClock", json!({"nowMicros": "5000000"}));
    let rule = |q: &[u8], op: Value| {
        let mut r = json!({"familyName": "cf", "columnQualifier": b64(q)});
        if let (Some(r), Some(op)) = (r.as_object_mut(), op.as_object()) {
            r.extend(op.clone());
        }
        r
    };
    let resp = ok(
        &mut db,
        "readModifyWriteRow",
        json!({"tableName": TABLE, "rowKey": b64(b"r"), "rules": [
            rule(b"n", json!({"incrementAmount": "41"})),
            rule(b"n", json!({"incrementAmount": 1})),
            rule(b"s", json!({"appendValue": b64(b"ab")}))
        ]}),
    );
    assert_eq!(
        resp,
        json!({"row": {"key": "cg==", "families": [{"name": "cf", "columns": [
            {"qualifier": "bg==", "cells": [{"timestampMicros": "5000000", "value": b64(&42i64.to_be_bytes())}]},
            {"qualifier": "cw==", "cells": [{"timestampMicros": "5000000", "value": b64(b"ab")}]}
        ]}]}})
    );
    let (status, _) = err(
        &mut db,
        "readModifyWriteRow",
        json!({"tableName": TABLE, "rowKey": b64(b"r"), "rules": [rule(b"s", json!({"incrementAmount": "1"}))]}),
    );
    assert_eq!(status, "FAILED_PRECONDITION");
    invalid(
        &mut db,
        "readModifyWriteRow",
        json!({"tableName": TABLE, "rowKey": "cg=="}),
        "",
    );
}

#[test]
fn check_and_mutate_row_requests_are_checked() {
    let mut db = setup();
    invalid(
        &mut db,
        "checkAndMutateRow",
        json!({"tableName": TABLE}),
        "request.rowKey: required",
    );
    invalid(
        &mut db,
        "checkAndMutateRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "predicateFilter": {"sink": false}}),
        "request.predicateFilter.sink: ",
    );
    invalid(
        &mut db,
        "checkAndMutateRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "trueMutations": [{"setCell": {}}]}),
        "request.trueMutations[0].setCell.familyName: required",
    );
    invalid(
        &mut db,
        "checkAndMutateRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "falseMutations": [{"deleteFromRow": {}}], "extra": 1}),
        "request.extra: unknown field",
    );
}

#[test]
fn read_modify_write_row_requests_are_checked() {
    let mut db = setup();
    invalid(
        &mut db,
        "readModifyWriteRow",
        json!({"tableName": TABLE, "rules": []}),
        "request.rowKey: required",
    );
    invalid(
        &mut db,
        "readModifyWriteRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "rules": [{"familyName": "cf"}]}),
        "request.rules[0]: a rule must set appendValue or incrementAmount",
    );
    invalid(
        &mut db,
        "readModifyWriteRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "rules": [{"familyName": "cf", "incrementAmount": "1.5"}]}),
        "request.rules[0].incrementAmount: ",
    );
    invalid(
        &mut db,
        "readModifyWriteRow",
        json!({"tableName": TABLE, "rowKey": "cg==", "rules": [{"familyName": "cf", "appendValue": "YQ==", "incrementAmount": "1"}]}),
        "request.rules[0]: ",
    );
}

// -------------------------------------------------------- playground

#[test]
fn compact_applies_due_gc_rules() {
    let mut db = setup();
    put(
        &mut db,
        b"r",
        vec![
            set_cell("one", b"q", 1000, b"old"),
            set_cell("one", b"q", 2000, b"new"),
        ],
    );
    assert_eq!(
        ok(&mut db, "compact", json!({"tableName": TABLE})),
        json!({})
    );
    let rows = read(&mut db, json!({}));
    assert_eq!(
        rows[0]["families"][0]["columns"][0]["cells"],
        json!([{"timestampMicros": "2000", "value": "bmV3"}])
    );
    assert_eq!(ok(&mut db, "compact", json!({})), json!({}));
    let (status, _) = err(
        &mut db,
        "compact",
        json!({"tableName": "projects/p/instances/i/tables/x"}),
    );
    assert_eq!(status, "NOT_FOUND");
    invalid(
        &mut db,
        "compact",
        json!({"table": "t"}),
        "request.table: unknown field",
    );
}

#[test]
fn advance_clock_drives_server_timestamps() {
    let mut db = setup();
    assert_eq!(
        ok(&mut db, "advanceClock", json!({})),
        json!({"nowMicros": "0", "time": "1970-01-01T00:00:00Z"})
    );
    let r = ok(
        &mut db,
        "advanceClock",
        json!({"nowMicros": "1600000000000000"}),
    );
    assert_eq!(r["time"], "2020-09-13T12:26:40Z");
    ok(&mut db, "advanceClock", json!({"seconds": 5}));
    let r = ok(&mut db, "advanceClock", json!({"micros": "1500"}));
    assert_eq!(r["nowMicros"], "1600000005001500");
    put(&mut db, b"r", vec![set_cell("cf", b"q", -1, b"v")]);
    let rows = read(&mut db, json!({}));
    assert_eq!(
        rows[0]["families"][0]["columns"][0]["cells"][0]["timestampMicros"],
        "1600000005001000"
    );
    invalid(
        &mut db,
        "advanceClock",
        json!({"nowMicros": "5"}),
        "request.nowMicros: the clock only moves forward",
    );
    invalid(
        &mut db,
        "advanceClock",
        json!({"micros": "-5"}),
        "request.micros: ",
    );
    invalid(
        &mut db,
        "advanceClock",
        json!({"seconds": 1, "micros": 1}),
        "request: ",
    );
    invalid(
        &mut db,
        "advanceClock",
        json!({"minutes": 1}),
        "request.minutes: unknown field",
    );
}

#[test]
fn list_tablets_describes_the_layout() {
    let mut db = setup();
    put(&mut db, b"r", vec![set_cell("cf", b"q", 1000, b"v")]);
    let t = ok(&mut db, "listTablets", json!({"tableName": TABLE}));
    let tablets = t["tablets"].as_array().unwrap();
    assert_eq!(tablets.len(), 1);
    assert_eq!(tablets[0]["id"], "0");
    assert!(tablets[0].get("startKey").is_none() && tablets[0].get("endKey").is_none());
    assert_eq!(tablets[0]["memtableCells"], "1");
    invalid(
        &mut db,
        "listTablets",
        json!({}),
        "request.tableName: required",
    );
}

// ------------------------------------------------ protocol and errors

#[test]
fn request_lines_and_methods_are_checked() {
    let mut db = setup();
    let raw = |db: &mut Instance, line: &str| -> Value {
        serde_json::from_str(&api::handle(db, line)).unwrap()
    };
    assert_eq!(
        raw(&mut db, "not json")["error"]["status"],
        "INVALID_ARGUMENT"
    );
    assert_eq!(raw(&mut db, "   ")["error"]["status"], "INVALID_ARGUMENT");
    assert_eq!(raw(&mut db, "[1]")["error"]["status"], "INVALID_ARGUMENT");
    assert_eq!(
        raw(&mut db, r#"{"method": "listTables", "request": 5}"#)["error"]["message"],
        "request: expected an object (ListTablesRequest), got a number"
    );
    assert_eq!(
        raw(&mut db, r#"{"method": "advanceClock"}"#)["response"]["nowMicros"],
        "0"
    );
    assert_eq!(
        raw(&mut db, r#"{"method": "advanceClock", "request": null}"#)["response"]["nowMicros"],
        "0"
    );
    let e = raw(&mut db, r#"{"method": "readrows", "request": {}}"#);
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean \"readRows\"")
    );
    let e = raw(&mut db, r#"{"method": "pingAndWarm", "request": {}}"#);
    assert_eq!(e["error"]["status"], "UNIMPLEMENTED");
    let e = raw(
        &mut db,
        r#"{"method": "listTables", "request": {}, "id": 1}"#,
    );
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("id: unknown field")
    );
}

#[test]
fn answers_are_deterministic_with_sorted_keys() {
    let mut db = setup();
    put(&mut db, b"r", vec![set_cell("cf", b"q", 1000, b"v")]);
    let line = json!({"method": "readRows", "request": {"tableName": TABLE}}).to_string();
    let a = api::handle(&mut db, &line);
    let b = api::handle(&mut db, &line);
    assert_eq!(a, b);
    assert_eq!(
        a,
        r#"{"response":{"rows":[{"families":[{"columns":[{"cells":[{"timestampMicros":"1000","value":"dg=="}],"qualifier":"cQ=="}],"name":"cf"}],"key":"cg=="}]}}"#
    );
    let e = api::handle(
        &mut db,
        r#"{"method": "getTable", "request": {"name": "projects/p/instances/i/tables/x"}}"#,
    );
    assert!(e.starts_with(r#"{"error":{"code":5,"message":"#), "{e}");
}

#[test]
fn every_method_is_documented_and_reachable() {
    let mut db = setup();
    let mut bigtable = 0;
    for m in METHODS {
        if m.service != Service::Playground {
            bigtable += 1;
        }
        // Each documented example parses and reaches its handler: the
        // answer is a response or an error about content, never about the
        // method name or the request line.
        let v: Value = serde_json::from_str(m.example).unwrap();
        let out = call(&mut db, m.name, v);
        if let Some(e) = out.get("error") {
            let msg = e["message"].as_str().unwrap();
            assert!(!msg.starts_with("method:"), "{}: {msg}", m.name);
            assert!(!msg.contains("unknown field"), "{}: {msg}", m.name);
        }
    }
    // Data and table admin (with the change stream methods), and the five
    // logical view methods of the instance admin API.
    assert_eq!(bigtable, 25);
}

#[test]
fn methods_marked_read_leave_the_instance_as_it_was() {
    // An instance where every read example finds what it names: the
    // table with a row, an authorized view, a logical view, a change stream.
    // The clock just before the readChangeStream example's startTime.
    let mut db = setup();
    ok(
        &mut db,
        "advanceClock",
        json!({"nowMicros": "1704067190000000"}),
    );
    for m in [
        "createAuthorizedView",
        "createLogicalView",
        "updateTable",
        "mutateRow",
    ] {
        let example = api::method(m).unwrap().example;
        ok(&mut db, m, serde_json::from_str(example).unwrap());
    }
    ok(&mut db, "advanceClock", json!({"seconds": 60}));
    let mut reads = 0;
    for m in METHODS.iter().filter(|m| m.access == Access::Read) {
        let before = db.snapshot_without_traffic();
        let out = call(&mut db, m.name, serde_json::from_str(m.example).unwrap());
        assert!(out.get("response").is_some(), "{}: {out}", m.name);
        assert!(
            db.snapshot_without_traffic() == before,
            "{} changed the instance",
            m.name
        );
        assert!(!api::may_write(m.name));
        reads += 1;
    }
    assert!(reads >= 10, "{reads}");
    // And a method marked write does change it (its example, once more).
    let before = db.snapshot_without_traffic();
    let example = api::method("mutateRows").unwrap().example;
    ok(
        &mut db,
        "mutateRows",
        serde_json::from_str(example).unwrap(),
    );
    assert!(db.snapshot_without_traffic() != before);
    assert!(api::may_write("mutateRows") && !api::may_write("nope"));
}

// ---------------------------------------------------------- properties

#[cfg(not(target_arch = "wasm32"))]
mod never_panics {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};
    use tabletop_wire::api::{self, METHODS};

    use super::{PARENT, TABLE, setup};

    /// Field names and strings that reach deep into the decoders.
    const WORDS: &[&str] = &[
        "tableName",
        "rowKey",
        "rows",
        "rowKeys",
        "rowRanges",
        "startKeyClosed",
        "endKeyOpen",
        "filter",
        "chain",
        "filters",
        "condition",
        "predicateFilter",
        "trueFilter",
        "sink",
        "familyNameRegexFilter",
        "cellsPerColumnLimitFilter",
        "columnRangeFilter",
        "familyName",
        "mutations",
        "setCell",
        "addToCell",
        "mergeToCell",
        "deleteFromColumn",
        "deleteFromRow",
        "timeRange",
        "columnQualifier",
        "timestampMicros",
        "value",
        "rawValue",
        "intValue",
        "timestamp",
        "input",
        "entries",
        "rules",
        "incrementAmount",
        "appendValue",
        "parent",
        "tableId",
        "table",
        "columnFamilies",
        "gcRule",
        "maxNumVersions",
        "maxAge",
        "union",
        "intersection",
        "valueType",
        "aggregateType",
        "inputType",
        "int64Type",
        "sum",
        "modifications",
        "id",
        "create",
        "update",
        "drop",
        "name",
        "rowKeyPrefix",
        "rowsLimit",
        "reversed",
        "micros",
        "seconds",
        "nowMicros",
        "initialSplits",
        "key",
        "view",
        "cf",
        "one",
        "t",
        TABLE,
        PARENT,
        "YQ==",
        "AP8=",
        "-1",
        "1000",
        "9223372036854775807",
        "-9223372036854775808",
        "1e30",
        "3600s",
        "-1s",
        "",
        "NaN",
        "\u{0}",
    ];

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => proptest::sample::select(WORDS).prop_map(str::to_string),
            1 => ".{0,12}",
        ]
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            (-3i64..3000).prop_map(Value::from),
            word().prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec((word(), inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>())),
            ]
        })
    }

    /// Valid requests, one per method, to mutate.
    fn valid_requests() -> Vec<(&'static str, Value)> {
        vec![
            (
                "createTable",
                json!({"parent": PARENT, "tableId": "u", "initialSplits": [{"key": "bQ=="}],
                "table": {"columnFamilies": {"cf": {"gcRule": {"union": {"rules": [{"maxNumVersions": 2}, {"maxAge": "60s"}]}}},
                "s": {"valueType": {"aggregateType": {"inputType": {"int64Type": {}}, "sum": {}}}}}}}),
            ),
            ("getTable", json!({"name": TABLE, "view": "FULL"})),
            ("listTables", json!({"parent": PARENT, "pageSize": 1})),
            ("deleteTable", json!({"name": TABLE})),
            (
                "modifyColumnFamilies",
                json!({"name": TABLE, "modifications": [{"id": "n", "create": {}}, {"id": "cf", "update": {"gcRule": {"maxAge": "1s"}}}]}),
            ),
            (
                "dropRowRange",
                json!({"name": TABLE, "rowKeyPrefix": "YQ=="}),
            ),
            (
                "mutateRow",
                json!({"tableName": TABLE, "rowKey": "YQ==", "mutations": [
                {"setCell": {"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": "-1", "value": "dg=="}},
                {"addToCell": {"familyName": "sum", "columnQualifier": {"rawValue": "cQ=="}, "timestamp": {"rawTimestampMicros": "0"}, "input": {"intValue": "1"}}},
                {"deleteFromColumn": {"familyName": "cf", "columnQualifier": "cQ==", "timeRange": {"startTimestampMicros": "0"}}}]}),
            ),
            (
                "mutateRows",
                json!({"tableName": TABLE, "entries": [{"rowKey": "YQ==", "mutations": [{"deleteFromRow": {}}]},
                {"rowKey": "Yg==", "mutations": [{"setCell": {"familyName": "one", "value": "dg=="}}]}]}),
            ),
            (
                "checkAndMutateRow",
                json!({"tableName": TABLE, "rowKey": "YQ==", "predicateFilter": {"chain": {"filters": [{"familyNameRegexFilter": "cf"}, {"cellsPerColumnLimitFilter": 1}]}},
                "trueMutations": [{"deleteFromFamily": {"familyName": "cf"}}], "falseMutations": [{"setCell": {"familyName": "cf", "value": "dg=="}}]}),
            ),
            (
                "readModifyWriteRow",
                json!({"tableName": TABLE, "rowKey": "YQ==", "rules": [{"familyName": "cf", "columnQualifier": "bg==", "incrementAmount": "1"}, {"familyName": "cf", "appendValue": "eA=="}]}),
            ),
            (
                "readRows",
                json!({"tableName": TABLE, "rows": {"rowKeys": ["YQ=="], "rowRanges": [{"startKeyOpen": "YQ==", "endKeyClosed": "eg=="}]},
                "filter": {"condition": {"predicateFilter": {"valueRangeFilter": {"startValueClosed": "YQ=="}}, "trueFilter": {"stripValueTransformer": true},
                "falseFilter": {"interleave": {"filters": [{"timestampRangeFilter": {"startTimestampMicros": "0", "endTimestampMicros": "5000"}}, {"rowSampleFilter": 0.5}]}}}},
                "rowsLimit": "3", "reversed": true}),
            ),
            ("sampleRowKeys", json!({"tableName": TABLE})),
            ("compact", json!({"tableName": TABLE})),
            ("advanceClock", json!({"seconds": 1.5})),
            ("listTablets", json!({"tableName": TABLE})),
        ]
    }

    /// Replaces, removes or adds something at a random place in `v`.
    fn mutate(v: &mut Value, path: &[usize], op: u8, replacement: Value, key: String) {
        let (first, rest) = match path.split_first() {
            Some(p) => p,
            None => {
                *v = replacement;
                return;
            }
        };
        match v {
            Value::Object(map) if !map.is_empty() => {
                let k = map
                    .keys()
                    .nth(first % map.len())
                    .cloned()
                    .unwrap_or_default();
                if rest.is_empty() || op.is_multiple_of(4) {
                    match op % 3 {
                        0 => {
                            map.remove(&k);
                        }
                        1 => {
                            map.insert(key, replacement);
                        }
                        _ => {
                            map.insert(k, replacement);
                        }
                    }
                } else if let Some(child) = map.get_mut(&k) {
                    mutate(child, rest, op, replacement, key);
                }
            }
            Value::Array(items) if !items.is_empty() => {
                let i = first % items.len();
                if rest.is_empty() || op.is_multiple_of(4) {
                    if op.is_multiple_of(2) {
                        items.remove(i);
                    } else {
                        items[i] = replacement;
                    }
                } else {
                    mutate(&mut items[i], rest, op, replacement, key);
                }
            }
            _ => *v = replacement,
        }
    }

    /// 512 cases per property unless `PROPTEST_CASES` asks for more.
    fn cases() -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(512)
    }

    fn assert_one_answer(out: &str) {
        let v: Value =
            serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
        let obj = v.as_object().expect("an object");
        assert_eq!(obj.len(), 1, "{out}");
        assert!(
            obj.contains_key("response") || obj.contains_key("error"),
            "{out}"
        );
        assert!(!out.contains('\n'));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases()))]

        #[test]
        fn arbitrary_lines(line in ".{0,200}") {
            let mut db = setup();
            assert_one_answer(&api::handle(&mut db, &line));
        }

        #[test]
        fn arbitrary_json_for_every_method(m in 0..METHODS.len(), request in json_value()) {
            let mut db = setup();
            let line = json!({"method": METHODS[m].name, "request": request}).to_string();
            assert_one_answer(&api::handle(&mut db, &line));
        }

        #[test]
        fn arbitrary_json_lines(v in json_value()) {
            let mut db = setup();
            assert_one_answer(&api::handle(&mut db, &v.to_string()));
        }

        #[test]
        fn well_formed_sessions(ops in proptest::collection::vec(operation(), 1..24)) {
            let mut db = setup();
            for (method, request) in ops {
                let line = json!({"method": method, "request": request}).to_string();
                assert_one_answer(&api::handle(&mut db, &line));
            }
        }

        #[test]
        fn mutated_valid_requests(
            which in 0..15usize,
            edits in proptest::collection::vec(
                (proptest::collection::vec(0..8usize, 0..6), any::<u8>(), json_value(), word()), 1..4),
        ) {
            let mut db = setup();
            let requests = valid_requests();
            let (method, mut request) = requests[which % requests.len()].clone();
            for (path, op, replacement, key) in edits {
                mutate(&mut request, &path, op, replacement, key);
            }
            let line = json!({"method": method, "request": request}).to_string();
            assert_one_answer(&api::handle(&mut db, &line));
            // The instance stays usable afterwards.
            assert_one_answer(&api::handle(&mut db, &json!({"method": "readRows", "request": {"tableName": TABLE}}).to_string()));
        }
    }

    fn bytes() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::sample::select(vec![
                &b""[..],
                b"a",
                b"b",
                b"r",
                b"\x00",
                b"\xff",
                b"a\x00",
                b".*",
                b"\\C",
                b"["
            ])
            .prop_map(api::encode_base64),
            proptest::collection::vec(any::<u8>(), 0..4).prop_map(|b| api::encode_base64(&b)),
        ]
    }

    fn small_int() -> impl Strategy<Value = Value> {
        prop_oneof![
            (-2i64..6).prop_map(Value::from),
            Just(json!(i64::MAX)),
            Just(json!("2147483648"))
        ]
    }

    fn timestamp() -> impl Strategy<Value = String> {
        proptest::sample::select(vec![
            -2i64,
            -1,
            0,
            999,
            1000,
            2000,
            5000,
            1_600_000_000_000_000,
            i64::MAX,
        ])
        .prop_map(|t| t.to_string())
    }

    /// Well-formed (not always valid) row filters.
    fn filter() -> impl Strategy<Value = Value> {
        let family = proptest::sample::select(vec!["cf", "one", "sum", "c.*", "nope", "", "["]);
        let leaf = prop_oneof![
            family.clone().prop_map(|f| json!({"familyNameRegexFilter": f})),
            bytes().prop_map(|b| json!({"columnQualifierRegexFilter": b})),
            bytes().prop_map(|b| json!({"rowKeyRegexFilter": b})),
            bytes().prop_map(|b| json!({"valueRegexFilter": b})),
            small_int().prop_map(|n| json!({"cellsPerColumnLimitFilter": n})),
            small_int().prop_map(|n| json!({"cellsPerRowLimitFilter": n})),
            small_int().prop_map(|n| json!({"cellsPerRowOffsetFilter": n})),
            (-0.5f64..1.5).prop_map(|p| json!({"rowSampleFilter": p})),
            (timestamp(), timestamp())
                .prop_map(|(a, b)| json!({"timestampRangeFilter": {"startTimestampMicros": a, "endTimestampMicros": b}})),
            (family, bytes(), bytes(), any::<u8>()).prop_map(|(f, a, b, k)| {
                let s = if k & 1 == 0 { "startQualifierClosed" } else { "startQualifierOpen" };
                let e = if k & 2 == 0 { "endQualifierClosed" } else { "endQualifierOpen" };
                json!({"columnRangeFilter": {"familyName": f, s: a, e: b}})
            }),
            (bytes(), bytes(), any::<u8>()).prop_map(|(a, b, k)| {
                let s = if k & 1 == 0 { "startValueClosed" } else { "startValueOpen" };
                let e = if k & 2 == 0 { "endValueClosed" } else { "endValueOpen" };
                json!({"valueRangeFilter": {s: a, e: b}})
            }),
            Just(json!({"sink": true})),
            Just(json!({"passAllFilter": true})),
            Just(json!({"blockAllFilter": true})),
            Just(json!({"stripValueTransformer": true})),
            proptest::sample::select(vec!["a", "x-1", "L", ""]).prop_map(|l| json!({"applyLabelTransformer": l})),
            Just(json!({})),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(|f| json!({"chain": {"filters": f}})),
                proptest::collection::vec(inner.clone(), 0..4).prop_map(|f| json!({"interleave": {"filters": f}})),
                (inner.clone(), proptest::option::of(inner.clone()), proptest::option::of(inner)).prop_map(|(p, t, f)| {
                    json!({"condition": {"predicateFilter": p, "trueFilter": t, "falseFilter": f}})
                }),
            ]
        })
    }

    fn mutation() -> impl Strategy<Value = Value> {
        let family = proptest::sample::select(vec!["cf", "one", "sum", "nope"]);
        prop_oneof![
            4 => (family.clone(), bytes(), timestamp(), bytes()).prop_map(|(f, q, t, v)| {
                json!({"setCell": {"familyName": f, "columnQualifier": q, "timestampMicros": t, "value": v}})
            }),
            2 => (family.clone(), bytes(), timestamp(), any::<i64>()).prop_map(|(f, q, t, n)| {
                json!({"addToCell": {"familyName": f, "columnQualifier": {"rawValue": q},
                    "timestamp": {"rawTimestampMicros": t}, "input": {"intValue": n.to_string()}}})
            }),
            1 => (family.clone(), bytes(), timestamp(), bytes()).prop_map(|(f, q, t, v)| {
                json!({"mergeToCell": {"familyName": f, "columnQualifier": {"rawValue": q},
                    "timestamp": {"rawTimestampMicros": t}, "input": {"bytesValue": v}}})
            }),
            1 => (family.clone(), bytes(), timestamp(), timestamp()).prop_map(|(f, q, a, b)| {
                json!({"deleteFromColumn": {"familyName": f, "columnQualifier": q,
                    "timeRange": {"startTimestampMicros": a, "endTimestampMicros": b}}})
            }),
            1 => family.prop_map(|f| json!({"deleteFromFamily": {"familyName": f}})),
            1 => Just(json!({"deleteFromRow": {}})),
        ]
    }

    fn row_key() -> impl Strategy<Value = String> {
        proptest::sample::select(vec![
            &b"a"[..],
            b"b",
            b"r",
            b"\x00",
            b"\xff\xff",
            b"a\x00",
            b"ab",
        ])
        .prop_map(api::encode_base64)
    }

    fn row_set() -> impl Strategy<Value = Value> {
        (
            proptest::collection::vec(row_key(), 0..3),
            proptest::collection::vec(
                (
                    proptest::option::of((any::<u8>(), bytes())),
                    proptest::option::of((any::<u8>(), bytes())),
                ),
                0..3,
            ),
        )
            .prop_map(|(keys, ranges)| {
                let ranges: Vec<Value> = ranges
                    .into_iter()
                    .map(|(s, e)| {
                        let mut r = Map::new();
                        if let Some((k, b)) = s {
                            r.insert(
                                if k & 1 == 0 {
                                    "startKeyClosed"
                                } else {
                                    "startKeyOpen"
                                }
                                .into(),
                                json!(b),
                            );
                        }
                        if let Some((k, b)) = e {
                            r.insert(
                                if k & 1 == 0 {
                                    "endKeyClosed"
                                } else {
                                    "endKeyOpen"
                                }
                                .into(),
                                json!(b),
                            );
                        }
                        Value::Object(r)
                    })
                    .collect();
                json!({"rowKeys": keys, "rowRanges": ranges})
            })
    }

    /// Well-formed requests of every method against table `t`.
    fn operation() -> impl Strategy<Value = (&'static str, Value)> {
        prop_oneof![
            4 => (row_key(), proptest::collection::vec(mutation(), 1..4))
                .prop_map(|(k, m)| ("mutateRow", json!({"tableName": TABLE, "rowKey": k, "mutations": m}))),
            2 => proptest::collection::vec((row_key(), proptest::collection::vec(mutation(), 1..3)), 1..4).prop_map(|e| {
                let entries: Vec<Value> = e.into_iter().map(|(k, m)| json!({"rowKey": k, "mutations": m})).collect();
                ("mutateRows", json!({"tableName": TABLE, "entries": entries}))
            }),
            4 => (proptest::option::of(row_set()), proptest::option::of(filter()), 0i64..4, any::<bool>()).prop_map(
                |(rows, f, limit, reversed)| {
                    ("readRows", json!({"tableName": TABLE, "rows": rows, "filter": f,
                        "rowsLimit": limit.to_string(), "reversed": reversed, "requestStatsView": "REQUEST_STATS_FULL"}))
                }
            ),
            2 => (row_key(), proptest::option::of(filter()), proptest::collection::vec(mutation(), 0..3),
                proptest::collection::vec(mutation(), 0..3))
                .prop_map(|(k, p, t, f)| {
                    ("checkAndMutateRow", json!({"tableName": TABLE, "rowKey": k, "predicateFilter": p,
                        "trueMutations": t, "falseMutations": f}))
                }),
            2 => (row_key(), proptest::collection::vec(
                    (proptest::sample::select(vec!["cf", "one", "sum", "nope"]), bytes(), any::<bool>(), any::<i64>(), bytes()), 0..4))
                .prop_map(|(k, rules)| {
                    let rules: Vec<Value> = rules
                        .into_iter()
                        .map(|(f, q, inc, n, v)| {
                            if inc {
                                json!({"familyName": f, "columnQualifier": q, "incrementAmount": n.to_string()})
                            } else {
                                json!({"familyName": f, "columnQualifier": q, "appendValue": v})
                            }
                        })
                        .collect();
                    ("readModifyWriteRow", json!({"tableName": TABLE, "rowKey": k, "rules": rules}))
                }),
            1 => Just(("sampleRowKeys", json!({"tableName": TABLE}))),
            1 => Just(("compact", json!({}))),
            1 => Just(("listTablets", json!({"tableName": TABLE}))),
            1 => (0i64..5_000_000_000).prop_map(|m| ("advanceClock", json!({"micros": m.to_string()}))),
            1 => bytes().prop_map(|p| ("dropRowRange", json!({"name": TABLE, "rowKeyPrefix": p}))),
            1 => proptest::sample::select(vec!["cf", "one", "sum", "new"]).prop_map(|f| {
                ("modifyColumnFamilies", json!({"name": TABLE, "modifications": [
                    {"id": f, "update": {"gcRule": {"union": {"rules": [{"maxNumVersions": 1}, {"maxAge": "1s"}]}}}}]}))
            }),
        ]
    }

    #[test]
    fn valid_requests_are_valid() {
        for (method, request) in valid_requests() {
            let mut db = setup();
            let out: Value = serde_json::from_str(&api::handle(
                &mut db,
                &json!({"method": method, "request": request}).to_string(),
            ))
            .unwrap();
            // Every method is wired: a valid request answers, never an
            // error of any kind.
            assert!(out.get("error").is_none(), "{method}: {out}");
            assert!(out.get("response").is_some(), "{method}: {out}");
        }
    }
}

#[test]
fn huge_names_are_malformed_and_never_echoed_whole() {
    let mut db = setup();
    let long_id = format!("projects/p/instances/i/tables/{}", "x".repeat(1 << 20));
    let (status, message) = err(&mut db, "readRows", json!({"tableName": long_id}));
    assert_eq!(status, "INVALID_ARGUMENT", "{message}");
    assert!(message.contains("the limit is 50"), "{message}");
    let garbage = format!("projects/{}", "y".repeat(1 << 20));
    let (status, message) = err(&mut db, "readRows", json!({"tableName": garbage}));
    assert_eq!(status, "INVALID_ARGUMENT");
    assert!(
        message.len() < 1000,
        "the echo is cut: {} bytes",
        message.len()
    );
}
