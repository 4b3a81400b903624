#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Change streams through the JSON protocol: changeStreamConfig on
// createTable, updateTable and getTable, generateInitialChangeStreamPartitions
// and readChangeStream with start times, continuation tokens and end times.
// Message shapes follow google/bigtable/v2/bigtable.proto
// (ReadChangeStreamResponse) and google/bigtable/admin/v2/table.proto
// (ChangeStreamConfig) in proto3 JSON.

mod common;

use common::{err, ok};
use serde_json::{Value, json};
use tabletop_sql::Instance;
use tabletop_wire::api;

const PARENT: &str = "projects/p/instances/i";
const TABLE: &str = "projects/p/instances/i/tables/t";
/// 2023-11-14T22:13:20Z
const T0: i64 = 1_700_000_000_000_000;

fn instance(change_stream: Option<&str>) -> Instance {
    let mut db = Instance::default();
    db.set_now(T0);
    let mut table = json!({"columnFamilies": {"cf": {"gcRule": {"maxNumVersions": 1}}}});
    if let Some(r) = change_stream {
        table["changeStreamConfig"] = json!({"retentionPeriod": r});
    }
    let created = ok(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "t", "table": table}),
    );
    match change_stream {
        Some(r) => assert_eq!(created["changeStreamConfig"]["retentionPeriod"], r),
        None => assert!(created.get("changeStreamConfig").is_none()),
    }
    db
}

fn set(db: &mut Instance, key: &str, ts: &str, value: &str) {
    ok(
        db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": b64(key), "mutations": [{"setCell": {
            "familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": ts, "value": b64(value)}}]}),
    );
}

fn b64(s: &str) -> String {
    tabletop_store::base64_text::encode(s.as_bytes())
}

fn read(db: &mut Instance, extra: Value) -> Vec<Value> {
    let mut req = json!({"tableName": TABLE, "partition": {"rowRange": {}}});
    for (k, v) in extra.as_object().expect("object") {
        req[k] = v.clone();
    }
    ok(db, "readChangeStream", req)
        .as_array()
        .expect("an array of messages")
        .clone()
}

#[test]
fn a_table_without_a_change_stream_answers_failed_precondition() {
    let mut db = instance(None);
    let (status, message) = err(
        &mut db,
        "readChangeStream",
        json!({"tableName": TABLE, "partition": {"rowRange": {}}}),
    );
    assert_eq!(status, "FAILED_PRECONDITION");
    assert!(
        message.contains("change stream is not enabled"),
        "{message}"
    );
    let (status, _) = err(
        &mut db,
        "generateInitialChangeStreamPartitions",
        json!({"tableName": TABLE}),
    );
    assert_eq!(status, "FAILED_PRECONDITION");
    assert!(
        ok(&mut db, "getTable", json!({"name": TABLE}))
            .get("changeStreamConfig")
            .is_none()
    );
}

#[test]
fn retention_is_checked_and_update_table_turns_it_on_and_off() {
    let mut db = instance(None);
    let (status, message) = err(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "x", "table": {"changeStreamConfig": {"retentionPeriod": "3600s"}}}),
    );
    assert_eq!(status, "INVALID_ARGUMENT");
    assert!(message.contains("between 1 day and 7 days"), "{message}");
    let op = ok(
        &mut db,
        "updateTable",
        json!({"table": {"name": TABLE, "changeStreamConfig": {"retentionPeriod": "604800s"}},
               "updateMask": "changeStreamConfig"}),
    );
    assert_eq!(op["done"], true);
    assert_eq!(
        op["response"]["changeStreamConfig"]["retentionPeriod"],
        "604800s"
    );
    assert_eq!(
        ok(&mut db, "getTable", json!({"name": TABLE}))["changeStreamConfig"],
        json!({"retentionPeriod": "604800s"})
    );
    let (status, _) = err(
        &mut db,
        "updateTable",
        json!({"table": {"name": TABLE, "granularity": "MILLIS"}, "updateMask": "granularity"}),
    );
    assert_eq!(status, "UNIMPLEMENTED");
    let (status, _) = err(
        &mut db,
        "updateTable",
        json!({"table": {"name": TABLE}, "updateMask": ""}),
    );
    assert_eq!(status, "INVALID_ARGUMENT");
    // Named by the mask and left out: turned off.
    ok(
        &mut db,
        "updateTable",
        json!({"table": {"name": TABLE}, "updateMask": "change_stream_config"}),
    );
    assert!(
        ok(&mut db, "getTable", json!({"name": TABLE}))
            .get("changeStreamConfig")
            .is_none()
    );
}

#[test]
fn partitions_and_changes_come_as_the_stream_s_messages() {
    let mut db = instance(Some("86400s"));
    let parts = ok(
        &mut db,
        "generateInitialChangeStreamPartitions",
        json!({"tableName": TABLE}),
    );
    assert_eq!(parts, json!([{"partition": {"rowRange": {}}}]));
    set(&mut db, "r1", "-1", "one");
    db.set_now(T0 + 1_000_000);
    ok(
        &mut db,
        "mutateRow",
        json!({"tableName": TABLE, "rowKey": b64("r1"), "mutations": [{"deleteFromRow": {}}]}),
    );
    let messages = read(&mut db, json!({"startTime": "2023-11-14T22:13:20Z"}));
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(
        messages[0],
        json!({"dataChange": {
            "type": "USER",
            "sourceClusterId": "playground-c1",
            "rowKey": b64("r1"),
            "commitTimestamp": "2023-11-14T22:13:20Z",
            "chunks": [{"mutation": {"setCell": {"familyName": "cf", "columnQualifier": "cQ==",
                "timestampMicros": T0.to_string(), "value": b64("one")}}}],
            "done": true,
            "token": "cs1.1",
            "estimatedLowWatermark": "2023-11-14T22:13:21Z"
        }})
    );
    assert_eq!(
        messages[1]["dataChange"]["chunks"],
        json!([{"mutation": {"deleteFromFamily": {"familyName": "cf"}}}])
    );
    // No end time: the stream stays open; the heartbeat says where to
    // continue.
    let token = messages[2]["heartbeat"]["continuationToken"].clone();
    assert_eq!(
        token,
        json!({"partition": {"rowRange": {}}, "token": "cs1.2"})
    );
    set(&mut db, "r2", "5000", "two");
    let next = read(&mut db, json!({"continuationTokens": {"tokens": [token]}}));
    assert_eq!(next.len(), 2);
    assert_eq!(next[0]["dataChange"]["rowKey"], b64("r2"));
    // GC deletions come as GARBAGE_COLLECTION with the collected version.
    set(&mut db, "r2", "6000", "three");
    ok(&mut db, "compact", json!({"tableName": TABLE}));
    let all = read(&mut db, json!({"startTime": "2023-11-14T22:13:20Z"}));
    let gc = &all[all.len() - 2]["dataChange"];
    assert_eq!(gc["type"], "GARBAGE_COLLECTION");
    assert!(gc.get("sourceClusterId").is_none());
    assert_eq!(
        gc["chunks"],
        json!([{"mutation": {"deleteFromColumn": {"familyName": "cf", "columnQualifier": "cQ==",
            "timeRange": {"startTimestampMicros": "5000", "endTimestampMicros": "6000"}}}}])
    );
}

#[test]
fn an_end_time_closes_the_stream() {
    let mut db = instance(Some("86400s"));
    set(&mut db, "a", "-1", "v");
    db.set_now(T0 + 2_000_000);
    set(&mut db, "b", "-1", "v");
    let messages = read(
        &mut db,
        json!({"startTime": "2023-11-14T22:13:20Z", "endTime": "2023-11-14T22:13:21Z"}),
    );
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["dataChange"]["rowKey"], b64("a"));
    assert_eq!(messages[1], json!({"closeStream": {"status": {}}}));
}

#[test]
fn bad_requests_are_refused_with_reasons() {
    let mut db = instance(Some("86400s"));
    let bad = [
        json!({"tableName": TABLE}),
        json!({"tableName": TABLE, "partition": {"rowRange": {}}, "startTime": "yesterday"}),
        json!({"tableName": TABLE, "partition": {"rowRange": {}},
               "startTime": "2023-11-14T22:13:20Z", "continuationTokens": {"tokens": []}}),
        json!({"tableName": TABLE, "partition": {"rowRange": {}},
               "continuationTokens": {"tokens": [{"partition": {"rowRange": {}}, "token": "abc"}]}}),
        json!({"tableName": TABLE, "partition": {"rowRange": {}},
               "startTime": "2023-11-14T22:13:20Z", "endTime": "2023-11-14T22:13:19Z"}),
        json!({"tableName": TABLE, "partition": {"rowRange": {}}, "startTime": "2023-11-01T00:00:00Z"}),
    ];
    for req in bad {
        let (status, message) = err(&mut db, "readChangeStream", req.clone());
        assert_eq!(status, "INVALID_ARGUMENT", "{req}: {message}");
    }
    let (status, _) = err(
        &mut db,
        "readChangeStream",
        json!({"tableName": "projects/p/instances/i/tables/nope", "partition": {"rowRange": {}}}),
    );
    assert_eq!(status, "NOT_FOUND");
}

#[test]
fn help_lists_the_change_stream_methods() {
    for name in [
        "updateTable",
        "readChangeStream",
        "generateInitialChangeStreamPartitions",
    ] {
        assert!(api::METHODS.iter().any(|m| m.name == name), "{name}");
    }
}

// Partitions follow the tablets (Bigtable's "Change streams overview",
// understanding partitions): a table created with a split key has two. A
// read of a range that is not one of them ends at once with a closeStream
// (bigtable.proto, ReadChangeStreamResponse.CloseStream) that names the
// new partitions and the tokens to start each from.
#[test]
fn partitions_follow_the_tablets_and_a_changed_partition_closes_with_new_ones() {
    let mut db = Instance::default();
    db.set_now(T0);
    ok(
        &mut db,
        "createTable",
        json!({"parent": PARENT, "tableId": "t", "table": {
            "columnFamilies": {"cf": {}}, "changeStreamConfig": {"retentionPeriod": "86400s"}},
            "initialSplits": [{"key": b64("m")}]}),
    );
    let low = json!({"rowRange": {"endKeyOpen": b64("m")}});
    let high = json!({"rowRange": {"startKeyClosed": b64("m")}});
    let parts = ok(
        &mut db,
        "generateInitialChangeStreamPartitions",
        json!({"tableName": TABLE}),
    );
    assert_eq!(
        parts,
        json!([{"partition": low.clone()}, {"partition": high.clone()}])
    );
    set(&mut db, "a", "1000", "one");
    set(&mut db, "z", "1000", "two");
    let start = json!("2023-11-14T22:13:20Z");
    let keys = |messages: &[Value]| -> Vec<String> {
        messages
            .iter()
            .filter_map(|m| m["dataChange"]["rowKey"].as_str().map(str::to_string))
            .collect()
    };
    // Each partition reads only its own keys.
    let messages = read(&mut db, json!({"partition": low, "startTime": start}));
    assert_eq!(keys(&messages), [b64("a")]);
    assert!(messages.last().expect("a heartbeat")["heartbeat"].is_object());
    let messages = read(&mut db, json!({"partition": high, "startTime": start}));
    assert_eq!(keys(&messages), [b64("z")]);

    // The whole key space is not a partition of this table: no changes,
    // and a closeStream pointing at the two partitions.
    let messages = read(&mut db, json!({"startTime": start}));
    assert_eq!(messages.len(), 1, "{messages:?}");
    let close = &messages[0]["closeStream"];
    assert_eq!(close["status"]["code"], 11, "{close}");
    assert_eq!(close["newPartitions"], json!([low.clone(), high.clone()]));
    let tokens = close["continuationTokens"].as_array().expect("tokens");
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens[0]["partition"], low);
    assert_eq!(tokens[1]["partition"], high);
    // Starting the new partition from its token reads what the old read
    // had not: here, everything in it.
    let messages = read(
        &mut db,
        json!({"partition": high, "continuationTokens": {"tokens": [tokens[1].clone()]}}),
    );
    assert_eq!(keys(&messages), [b64("z")]);
    // A token for another range than the partition's is refused.
    let (status, message) = err(
        &mut db,
        "readChangeStream",
        json!({"tableName": TABLE, "partition": high,
               "continuationTokens": {"tokens": [tokens[0].clone()]}}),
    );
    assert_eq!(status, "INVALID_ARGUMENT");
    assert!(
        message.contains("cover the requested partition"),
        "{message}"
    );
}
