//! The bulk-write fast path of `api::handle` must answer exactly as the
//! general decoder does, and leave exactly the same data behind.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_sql::Instance;

use tabletop_wire::api;

const T: &str = "projects/p/instances/i/tables/t";

fn setup() -> Instance {
    let mut db = Instance::default();
    db.set_now(1_600_000_000_000_000);
    let create = r#"{"method":"createTable","request":{"parent":"projects/p/instances/i","tableId":"t","table":{"columnFamilies":{"cf":{},"cf2":{"gcRule":{"maxNumVersions":1}},"agg":{"valueType":{"aggregateType":{"inputType":{"int64Type":{}},"sum":{}}}}}}}}"#;
    let answer = api::handle(&mut db, create);
    assert!(answer.starts_with(r#"{"response""#), "{answer}");
    db
}

fn everything(db: &mut Instance) -> String {
    api::handle(
        db,
        &format!(r#"{{"method":"readRows","request":{{"tableName":"{T}"}}}}"#),
    )
}

/// Requests that exercise the fast path and every way out of it.
fn requests() -> Vec<String> {
    // setCell in family cf; the first argument is unused, kept for symmetry.
    let set = |_row: &str, q: &str, ts: &str, v: &str| {
        format!(
            r#"{{"setCell":{{"familyName":"cf","columnQualifier":"{q}","timestampMicros":{ts},"value":"{v}"}}}}"#
        )
    };
    let rows = |entries: &[String]| {
        format!(
            r#"{{"method":"mutateRows","request":{{"tableName":"{T}","entries":[{}]}}}}"#,
            entries.join(",")
        )
    };
    let entry = |key: &str, muts: &[String]| {
        format!(r#"{{"rowKey":"{key}","mutations":[{}]}}"#, muts.join(","))
    };
    let row = |key: &str, muts: &[String]| {
        format!(
            r#"{{"method":"mutateRow","request":{{"tableName":"{T}","rowKey":"{key}","mutations":[{}]}}}}"#,
            muts.join(",")
        )
    };
    vec![
        // Plain, fast.
        rows(&[
            entry("cjE=", &[set("cjE=", "cQ==", "\"1000\"", "djE="), set("", "cg==", "2000", "djI=")]),
            entry("cjI=", &[set("", "", "\"0\"", "")]),
        ]),
        row("cjM=", &[set("", "cQ==", "\"3000\"", "AP8=")]),
        // Deletes, with and without a time range.
        row(
            "cjE=",
            &[r#"{"deleteFromColumn":{"familyName":"cf","columnQualifier":"cQ==","timeRange":{"startTimestampMicros":"1000","endTimestampMicros":"2000"}}}"#.to_string()],
        ),
        rows(&[entry("cjI=", &[r#"{"deleteFromFamily":{"familyName":"cf"}}"#.to_string()]), entry("cjM=", &[r#"{"deleteFromRow":{}}"#.to_string()])]),
        // Engine-level errors: per entry, and for the whole request.
        rows(&[
            entry("cjQ=", &[r#"{"setCell":{"familyName":"nope","value":"eA=="}}"#.to_string()]),
            entry("cjU=", &[set("", "cQ==", "\"1001\"", "eA==")]),
            entry("cjc=", &[set("", "cQ==", "\"5000\"", "eA==")]),
        ]),
        format!(r#"{{"method":"mutateRows","request":{{"tableName":"projects/p/instances/i/tables/missing","entries":[{}]}}}}"#, entry("cjg=", &[set("", "", "0", "")])),
        rows(&[]),
        row("cjk=", &[]),
        // Decoder-level errors: the general path reports them (an entry
        // without mutations refuses the whole request).
        rows(&[entry("cjY=", &[]), entry("cjc=", &[set("", "cQ==", "\"6000\"", "eA==")])]),
        row("", &[set("", "", "0", "")]),
        row("not base64!", &[set("", "", "0", "")]),
        rows(&[entry("cjE=", &[set("", "%%%", "0", "")])]),
        format!(r#"{{"method":"mutateRows","request":{{"table_name":"{T}","entries":[]}}}}"#),
        format!(r#"{{"method":"mutateRows","request":{{"tableName":"{T}","tableName":"{T}","entries":[]}}}}"#),
        format!(r#"{{"method":"mutateRows","request":{{"tableName":"{T}","extra":1,"entries":[]}}}}"#),
        format!(r#"{{"method":"mutateRows","request":{{"tableName":"bad/name","entries":[]}}}}"#),
        rows(&[entry("cjE=", &[set("", "cQ==", "\"1e3\"", "")])]),
        rows(&[entry("cjE=", &[set("", "cQ==", "1.5", "")])]),
        rows(&[entry("cjE=", &[r#"{"setCell":{"familyName":"cf","value":"eA=="},"deleteFromRow":{}}"#.to_string()])]),
        rows(&[entry("cjE=", &[r#"{"setCell":{"familyName":"c\u0066","value":"eA=="}}"#.to_string()])]),
        rows(&[entry("cjE=", &[r#"{"addToCell":{"familyName":"agg","columnQualifier":{"rawValue":"cQ=="},"timestamp":{"rawTimestampMicros":"0"},"input":{"intValue":"5"}}}"#.to_string()])]),
        format!(r#"{{"method":"mutateRows","request":{{"tableName":"{T}","entries":[{}]}},"extra":true}}"#, entry("cjE=", &[])),
        r#"{"method":"mutateRows"}"#.to_string(),
        r#"{"method":"mutateRows","request":null}"#.to_string(),
        rows(&[entry(&"QUFB".repeat(1366), &[set("", "", "0", "")])]),
        // Not a bulk write at all.
        r#"{"method":"listTables","request":{"parent":"projects/p/instances/i"}}"#.to_string(),
    ]
}

#[test]
fn the_fast_path_answers_as_the_general_decoder_does() {
    let mut fast = setup();
    let mut general = setup();
    for (i, line) in requests().iter().enumerate() {
        let a = api::handle(&mut fast, line);
        let b = api::handle_general(&mut general, line);
        assert_eq!(a, b, "request {i}: {line}");
        assert_eq!(
            everything(&mut fast),
            everything(&mut general),
            "after request {i}"
        );
    }
    // The data really arrived.
    assert!(everything(&mut fast).contains("cjE="));
}

#[test]
fn well_formed_bulk_writes_take_the_fast_path_and_the_rest_do_not() {
    let mut db = setup();
    let taken: Vec<bool> = requests()
        .iter()
        .map(|line| api::handle_fast(&mut db, line).is_some())
        .collect();
    // The first eight requests are well formed (some fail in the engine,
    // which the fast path reports itself); from the ninth on, the decoder
    // has something to say, or the request is not a bulk write.
    assert!(taken[..8].iter().all(|&t| t), "{taken:?}");
    assert!(taken[8..].iter().all(|&t| !t), "{taken:?}");
}

#[test]
fn streamed_read_answers_equal_the_tree_built_ones() {
    let mut db = setup();
    for line in requests().iter().take(3) {
        api::handle(&mut db, line);
    }
    let reads = [
        format!(r#"{{"tableName":"{T}"}}"#),
        format!(r#"{{"tableName":"{T}","requestStatsView":"REQUEST_STATS_FULL"}}"#),
        format!(r#"{{"tableName":"{T}","rows":{{"rowKeys":["bm9uZQ=="]}}}}"#),
        format!(
            r#"{{"tableName":"{T}","rows":{{"rowKeys":["bm9uZQ=="]}},"requestStatsView":"REQUEST_STATS_FULL"}}"#
        ),
        format!(r#"{{"tableName":"{T}","reversed":true,"rowsLimit":"1"}}"#),
        format!(r#"{{"tableName":"{T}","filter":{{"stripValueTransformer":true}}}}"#),
        format!(r#"{{"tableName":"{T}","bogus":1}}"#),
        r#"{"tableName":"projects/p/instances/i/tables/missing"}"#.to_string(),
    ];
    for body in &reads {
        let line = format!(r#"{{"method":"readRows","request":{body}}}"#);
        let streamed = api::handle(&mut db, &line);
        let request: serde_json::Value = serde_json::from_str(body).unwrap();
        let built = api::answer_line(&api::handle_value(&mut db, "readRows", &request));
        assert_eq!(streamed, built, "{body}");
    }
}
