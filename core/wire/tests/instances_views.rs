#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Instances as separate namespaces (`api::handle_in`, `cbt::exec_args_in`,
// `Instances` snapshots) and authorized views (admin methods, and data
// methods through `authorizedViewName`). The emulator answers
// UNIMPLEMENTED for authorized views, so their expectations follow
// Bigtable's documentation: the AuthorizedView resource reference
// (subsetView: rowPrefixes, familySubsets with qualifiers and
// qualifierPrefixes, "" for everything; etag mismatch is ABORTED;
// deletionProtection keeps the table too), the overview of authorized
// views (at most 10 distinct qualifier prefixes), the guide to managing
// them (a request to delete a row with columns outside the view fails),
// and the Python client's system test (a SetCell outside the view's
// families is PERMISSION_DENIED, "outside the Authorized View").

mod common;

use common::{call, ok};
use serde_json::{Value, json};
use tabletop_sql::{Instance, Instances};
use tabletop_store::Traces;
use tabletop_wire::{api, cbt};

const I: &str = "projects/p/instances/i";
const OTHER: &str = "projects/p/instances/other";
const T: &str = "projects/p/instances/i/tables/t";
const V: &str = "projects/p/instances/i/tables/t/authorizedViews/v";

fn b64(s: &str) -> String {
    api::encode_base64(s.as_bytes())
}

fn call_in(all: &mut Instances, method: &str, request: Value) -> Value {
    let line = json!({"method": method, "request": request}).to_string();
    serde_json::from_str(&api::handle_in(all, &line)).unwrap()
}

fn status(out: &Value) -> &str {
    out["error"]["status"].as_str().unwrap_or("OK")
}

// ------------------------------------------------------------ instances

#[test]
fn instances_are_separate_namespaces() {
    let mut all = Instances::default();
    let made = call_in(
        &mut all,
        "createTable",
        json!({"parent": OTHER, "tableId": "e", "table": {"columnFamilies": {"cf": {}}}}),
    );
    assert_eq!(made["response"]["name"], format!("{OTHER}/tables/e"));
    assert_eq!(
        call_in(&mut all, "listTables", json!({"parent": I})),
        json!({"response": {}})
    );
    let read = call_in(
        &mut all,
        "readRows",
        json!({"tableName": format!("{I}/tables/e")}),
    );
    assert_eq!(status(&read), "NOT_FOUND", "{read}");
    assert_eq!(read["error"]["message"], "table \"e\" not found");
    let get = call_in(
        &mut all,
        "getTable",
        json!({"name": format!("{I}/tables/e")}),
    );
    assert_eq!(status(&get), "NOT_FOUND");
    assert_eq!(
        call_in(&mut all, "listTables", json!({"parent": OTHER})),
        json!({"response": {"tables": [{"name": format!("{OTHER}/tables/e")}]}})
    );
    // The same table id in two instances: two tables.
    call_in(
        &mut all,
        "createTable",
        json!({"parent": I, "tableId": "e"}),
    );
    let write = call_in(
        &mut all,
        "mutateRow",
        json!({"tableName": format!("{OTHER}/tables/e"), "rowKey": b64("r"),
               "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": b64("q"), "timestampMicros": "1000", "value": b64("v")}}]}),
    );
    assert_eq!(write, json!({"response": {}}));
    let here = call_in(
        &mut all,
        "readRows",
        json!({"tableName": format!("{I}/tables/e")}),
    );
    assert_eq!(here, json!({"response": {"rows": []}}));
    let there = call_in(
        &mut all,
        "readRows",
        json!({"tableName": format!("{OTHER}/tables/e")}),
    );
    assert_eq!(there["response"]["rows"][0]["key"], b64("r"));
}

#[test]
fn naming_an_instance_leaves_nothing_behind() {
    let mut all = Instances::default();
    call_in(&mut all, "listTables", json!({"parent": OTHER}));
    call_in(
        &mut all,
        "readRows",
        json!({"tableName": format!("{OTHER}/tables/x")}),
    );
    assert_eq!(all.len(), 1);
    // A bad id is refused, not made into an instance.
    let bad = call_in(
        &mut all,
        "listTables",
        json!({"parent": "projects/p/instances/a b"}),
    );
    assert_eq!(status(&bad), "INVALID_ARGUMENT");
    assert_eq!(all.len(), 1);
}

#[test]
fn instances_share_one_clock() {
    let mut all = Instances::default();
    call_in(
        &mut all,
        "createTable",
        json!({"parent": OTHER, "tableId": "e"}),
    );
    call_in(&mut all, "advanceClock", json!({"seconds": 60}));
    let other = all.get("p", "other").unwrap().now_micros();
    assert_eq!(other, all.primary().now_micros());
    assert_eq!(other, 60_000_000);
}

#[test]
fn snapshots_keep_every_instance() {
    let mut all = Instances::default();
    cbt::run_line(all.primary_mut(), "createtable t families=cf").unwrap();
    cbt::run_line(all.primary_mut(), "set t r cf:q=v@1000").unwrap();
    // One instance: the very bytes an instance writes (older builds read them).
    let single = all.snapshot();
    assert_eq!(single, all.primary_mut().snapshot());
    assert_eq!(Instances::restore(&single).unwrap().len(), 1);
    call_in(
        &mut all,
        "createTable",
        json!({"parent": OTHER, "tableId": "e"}),
    );
    let bundle = all.snapshot();
    let mut back = Instances::restore(&bundle).unwrap();
    assert_eq!(back.len(), 2);
    assert_eq!(
        cbt::run_line(back.primary_mut(), "read t").unwrap(),
        cbt::run_line(all.primary_mut(), "read t").unwrap()
    );
    assert_eq!(back.get("p", "other").unwrap().list_tables()[0].id, "e");
    // A single instance cannot be restored from a bundle, and a damaged
    // bundle is refused.
    assert!(Instance::restore(&bundle).is_err());
    let mut broken = bundle.clone();
    let n = broken.len();
    broken[n / 2] ^= 1;
    assert!(Instances::restore(&broken).is_err());
}

#[test]
fn cbt_flags_select_the_instance() {
    let mut all = Instances::default();
    let mut run = |line: &str| {
        let args = cbt::tokenize(line).unwrap();
        cbt::exec_args_in(
            &mut all,
            (None, None),
            &args,
            &mut cbt::NoHost,
            &mut Traces::off(),
        )
    };
    assert!(
        run("-project p -instance other createtable e")
            .status
            .is_ok()
    );
    assert!(run("-project p -instance i createtable t").status.is_ok());
    assert_eq!(run("-project p -instance i ls").stdout, b"t\n");
    assert_eq!(run("-project p -instance other ls").stdout, b"e\n");
    let out = run("-project p -instance i read e");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Reading rows: rpc error: code = NotFound desc = table \"projects/p/instances/i/tables/e\" not found\n"
    );
    assert!(run("-instance=a/b ls").status.is_err());
    let args = cbt::tokenize("cbt -project p -instance i --instance=j -timeout 5s read t").unwrap();
    assert_eq!(
        cbt::instance_flags(&args),
        (Some("p".to_string()), Some("j".to_string()))
    );
    assert_eq!(cbt::instance_flags(&["ls"]), (None, None));
    let line = json!({"method": "readRows", "request": {"authorizedViewName": V}}).to_string();
    assert_eq!(
        api::instance_of_line(&line),
        Some(("p".to_string(), "i".to_string()))
    );
    assert_eq!(api::instance_of_line(r#"{"method": "advanceClock"}"#), None);
    assert!(api::addresses_authorized_view(&line));
    let plain = json!({"method": "readRows", "request": {"tableName": T}}).to_string();
    assert!(!api::addresses_authorized_view(&plain));
}

// ---------------------------------------------------------- authorized views

/// A table `t` with families `cf` and `secret`, rows under `a#`, `b#`, `c#`.
fn setup() -> Instance {
    let mut db = Instance::default();
    ok(
        &mut db,
        "createTable",
        json!({"parent": I, "tableId": "t", "table": {"columnFamilies": {"cf": {}, "secret": {}}}}),
    );
    for key in ["a#1", "b#1", "c#1"] {
        ok(
            &mut db,
            "mutateRow",
            json!({"tableName": T, "rowKey": b64(key), "mutations": [
                {"setCell": {"familyName": "cf", "columnQualifier": b64("name"), "timestampMicros": "1000", "value": b64("n")}},
                {"setCell": {"familyName": "cf", "columnQualifier": b64("pub_x"), "timestampMicros": "1000", "value": b64("p")}},
                {"setCell": {"familyName": "cf", "columnQualifier": b64("age"), "timestampMicros": "1000", "value": b64("9")}},
                {"setCell": {"familyName": "secret", "columnQualifier": b64("pin"), "timestampMicros": "1000", "value": b64("1234")}}
            ]}),
        );
    }
    ok(
        &mut db,
        "createAuthorizedView",
        json!({"parent": T, "authorizedViewId": "v", "authorizedView": {"subsetView": {
            "rowPrefixes": [b64("a#"), b64("b#")],
            "familySubsets": {"cf": {"qualifiers": [b64("name")], "qualifierPrefixes": [b64("pub_")]}}
        }}}),
    );
    db
}

/// `(key, [qualifier...])` of every row a read returned.
fn shape(read: &Value) -> Vec<(String, Vec<String>)> {
    let decode =
        |v: &Value| String::from_utf8(api::decode_base64(v.as_str().unwrap()).unwrap()).unwrap();
    read["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut quals = Vec::new();
            for f in r["families"].as_array().unwrap() {
                for c in f["columns"].as_array().unwrap() {
                    quals.push(format!(
                        "{}:{}",
                        f["name"].as_str().unwrap(),
                        decode(&c["qualifier"])
                    ));
                }
            }
            (decode(&r["key"]), quals)
        })
        .collect()
}

#[test]
fn views_are_created_described_listed_updated_and_deleted() {
    let mut db = setup();
    let got = ok(&mut db, "getAuthorizedView", json!({"name": V}));
    assert_eq!(got["name"], V);
    assert_eq!(
        got["subsetView"]["rowPrefixes"],
        json!([b64("a#"), b64("b#")])
    );
    assert_eq!(
        got["subsetView"]["familySubsets"]["cf"],
        json!({"qualifiers": [b64("name")], "qualifierPrefixes": [b64("pub_")]})
    );
    let etag = got["etag"].as_str().unwrap().to_string();
    assert_eq!(
        ok(
            &mut db,
            "getAuthorizedView",
            json!({"name": V, "view": "NAME_ONLY"})
        ),
        json!({"name": V})
    );
    assert_eq!(
        ok(&mut db, "listAuthorizedViews", json!({"parent": T})),
        json!({"authorizedViews": [{"name": V}]})
    );
    let again = call(
        &mut db,
        "createAuthorizedView",
        json!({"parent": T, "authorizedViewId": "v", "authorizedView": {"subsetView": {}}}),
    );
    assert_eq!(status(&again), "ALREADY_EXISTS");
    // A stale etag is ABORTED; the right one updates.
    let stale = call(
        &mut db,
        "updateAuthorizedView",
        json!({"authorizedView": {"name": V, "etag": "W/\"0\"", "deletionProtection": true}}),
    );
    assert_eq!(status(&stale), "ABORTED", "{stale}");
    let updated = ok(
        &mut db,
        "updateAuthorizedView",
        json!({"authorizedView": {"name": V, "etag": etag, "deletionProtection": true},
               "updateMask": "deletionProtection"}),
    );
    assert_eq!(updated["deletionProtection"], true);
    assert_eq!(updated["subsetView"]["rowPrefixes"][0], b64("a#"));
    assert_ne!(updated["etag"], got["etag"]);
    // Protected: neither the view nor its table can be deleted.
    let del = call(&mut db, "deleteAuthorizedView", json!({"name": V}));
    assert_eq!(status(&del), "FAILED_PRECONDITION");
    let drop = call(&mut db, "deleteTable", json!({"name": T}));
    assert_eq!(status(&drop), "FAILED_PRECONDITION");
    ok(
        &mut db,
        "updateAuthorizedView",
        json!({"authorizedView": {"name": V}, "updateMask": "deletion_protection"}),
    );
    assert_eq!(
        ok(&mut db, "deleteAuthorizedView", json!({"name": V})),
        json!({})
    );
    let gone = call(&mut db, "getAuthorizedView", json!({"name": V}));
    assert_eq!(status(&gone), "NOT_FOUND");
    assert_eq!(
        ok(&mut db, "listAuthorizedViews", json!({"parent": T})),
        json!({})
    );
}

#[test]
fn bad_views_are_refused() {
    let mut db = setup();
    let mut create = |id: &str, view: Value| {
        let out = call(
            &mut db,
            "createAuthorizedView",
            json!({"parent": T, "authorizedViewId": id, "authorizedView": view}),
        );
        status(&out).to_string()
    };
    let unknown_family =
        json!({"subsetView": {"familySubsets": {"nope": {"qualifierPrefixes": [""]}}}});
    assert_eq!(create("w", unknown_family), "INVALID_ARGUMENT");
    let prefixes: Vec<String> = (0..11).map(|i| b64(&format!("p{i}"))).collect();
    let many = json!({"subsetView": {"familySubsets": {"cf": {"qualifierPrefixes": prefixes}}}});
    assert_eq!(create("w", many), "INVALID_ARGUMENT");
    assert_eq!(create("w", json!({})), "INVALID_ARGUMENT");
    assert_eq!(
        create("bad id!", json!({"subsetView": {}})),
        "INVALID_ARGUMENT"
    );
    let no_table = call(
        &mut db,
        "createAuthorizedView",
        json!({"parent": format!("{I}/tables/none"), "authorizedViewId": "w", "authorizedView": {"subsetView": {}}}),
    );
    assert_eq!(status(&no_table), "NOT_FOUND");
    let no_view = call(
        &mut db,
        "readRows",
        json!({"authorizedViewName": format!("{T}/authorizedViews/none")}),
    );
    assert_eq!(status(&no_view), "NOT_FOUND");
}

#[test]
fn reads_through_a_view_see_only_its_rows_and_cells() {
    let mut db = setup();
    let all = ok(&mut db, "readRows", json!({"authorizedViewName": V}));
    let expected = vec![
        (
            "a#1".to_string(),
            vec!["cf:name".to_string(), "cf:pub_x".to_string()],
        ),
        (
            "b#1".to_string(),
            vec!["cf:name".to_string(), "cf:pub_x".to_string()],
        ),
    ];
    assert_eq!(shape(&all), expected);
    // The request's own rows, filter and limit apply within the view.
    let some = ok(
        &mut db,
        "readRows",
        json!({"authorizedViewName": V, "rows": {"rowKeys": [b64("b#1"), b64("c#1")]},
               "filter": {"columnQualifierRegexFilter": b64("name")}}),
    );
    assert_eq!(
        shape(&some),
        vec![("b#1".to_string(), vec!["cf:name".to_string()])]
    );
    let outside = ok(
        &mut db,
        "readRows",
        json!({"authorizedViewName": V, "rows": {"rowKeys": [b64("c#1")]}}),
    );
    assert_eq!(outside, json!({"rows": []}));
    let limited = ok(
        &mut db,
        "readRows",
        json!({"authorizedViewName": V, "rowsLimit": "1"}),
    );
    assert_eq!(shape(&limited).len(), 1);
    // A bad filter is still refused when no row is in the view.
    let bad = call(
        &mut db,
        "readRows",
        json!({"authorizedViewName": V, "rows": {"rowKeys": [b64("c#1")]},
               "filter": {"cellsPerRowLimitFilter": -1}}),
    );
    assert_eq!(status(&bad), "INVALID_ARGUMENT");
    // Hosts that run reads themselves cannot apply a view: refused.
    let e = api::read_rows_request(&json!({"authorizedViewName": V})).unwrap_err();
    assert_eq!(e.code(), tabletop_store::Code::FailedPrecondition);
    let samples = ok(&mut db, "sampleRowKeys", json!({"authorizedViewName": V}));
    assert!(samples["samples"].is_array());
}

#[test]
fn writes_outside_a_view_are_refused_and_change_nothing() {
    let mut db = setup();
    let set = |key: &str, family: &str, q: &str| {
        json!({"authorizedViewName": V, "rowKey": b64(key), "mutations": [
            {"setCell": {"familyName": family, "columnQualifier": b64(q), "timestampMicros": "2000", "value": b64("new")}}]})
    };
    assert_eq!(
        ok(&mut db, "mutateRow", set("a#2", "cf", "pub_y")),
        json!({})
    );
    for (key, family, q) in [
        ("c#2", "cf", "name"),
        ("a#2", "cf", "age"),
        ("a#2", "secret", "pin"),
    ] {
        let out = call(&mut db, "mutateRow", set(key, family, q));
        assert_eq!(status(&out), "PERMISSION_DENIED", "{out}");
        assert!(
            out["error"]["message"]
                .as_str()
                .unwrap()
                .contains("outside the Authorized View"),
            "{out}"
        );
        assert_eq!(out["error"]["code"], 7);
    }
    // Nothing of the refused writes reached the table.
    let c2 = ok(
        &mut db,
        "readRows",
        json!({"tableName": T, "rows": {"rowKeys": [b64("c#2")]}}),
    );
    assert_eq!(c2, json!({"rows": []}));
    // A row holding cells outside the view cannot be deleted through it;
    // one holding only the view's cells can.
    let del = |key: &str| json!({"authorizedViewName": V, "rowKey": b64(key), "mutations": [{"deleteFromRow": {}}]});
    assert_eq!(
        status(&call(&mut db, "mutateRow", del("a#1"))),
        "PERMISSION_DENIED"
    );
    assert_eq!(ok(&mut db, "mutateRow", del("a#2")), json!({}));
    // MutateRows: a status per entry.
    let rows = ok(
        &mut db,
        "mutateRows",
        json!({"authorizedViewName": V, "entries": [
            {"rowKey": b64("b#2"), "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": b64("name"), "timestampMicros": "1000", "value": b64("x")}}]},
            {"rowKey": b64("z#2"), "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": b64("name"), "timestampMicros": "1000", "value": b64("x")}}]}
        ]}),
    );
    assert_eq!(rows["entries"][0]["status"]["code"], 0);
    assert_eq!(rows["entries"][1]["status"]["code"], 7);
    // CheckAndMutateRow: the predicate sees only the view's cells.
    let cam = ok(
        &mut db,
        "checkAndMutateRow",
        json!({"authorizedViewName": V, "rowKey": b64("b#1"),
               "predicateFilter": {"familyNameRegexFilter": "secret"},
               "falseMutations": [{"setCell": {"familyName": "cf", "columnQualifier": b64("pub_seen"), "timestampMicros": "1000", "value": b64("no")}}]}),
    );
    assert_eq!(cam, json!({}));
    let cam_out = call(
        &mut db,
        "checkAndMutateRow",
        json!({"authorizedViewName": V, "rowKey": b64("b#1"),
               "trueMutations": [{"deleteFromFamily": {"familyName": "secret"}}]}),
    );
    assert_eq!(status(&cam_out), "PERMISSION_DENIED");
    // ReadModifyWriteRow: only the view's columns.
    let rmw = |q: &str| {
        json!({"authorizedViewName": V, "rowKey": b64("b#1"),
               "rules": [{"familyName": "cf", "columnQualifier": b64(q), "appendValue": b64("+")}]})
    };
    assert_eq!(
        status(&call(&mut db, "readModifyWriteRow", rmw("age"))),
        "PERMISSION_DENIED"
    );
    let done = ok(&mut db, "readModifyWriteRow", rmw("name"));
    assert_eq!(done["row"]["key"], b64("b#1"));
    // The secret cell is still there, read through the table.
    let b1 = ok(
        &mut db,
        "readRows",
        json!({"tableName": T, "rows": {"rowKeys": [b64("b#1")]}}),
    );
    assert!(shape(&b1)[0].1.contains(&"secret:pin".to_string()));
}

#[test]
fn views_travel_in_snapshots_and_go_with_their_table() {
    let mut db = setup();
    let bytes = db.snapshot();
    let mut back = Instance::restore(&bytes).unwrap();
    let before = ok(&mut db, "readRows", json!({"authorizedViewName": V}));
    assert_eq!(
        ok(&mut back, "readRows", json!({"authorizedViewName": V})),
        before
    );
    assert_eq!(
        ok(&mut back, "getAuthorizedView", json!({"name": V})),
        ok(&mut db, "getAuthorizedView", json!({"name": V}))
    );
    ok(&mut back, "deleteTable", json!({"name": T}));
    ok(
        &mut back,
        "createTable",
        json!({"parent": I, "tableId": "t"}),
    );
    assert_eq!(
        ok(&mut back, "listAuthorizedViews", json!({"parent": T})),
        json!({})
    );
}

#[test]
fn cbt_reads_and_writes_through_a_view() {
    let mut db = setup();
    let out = cbt::run_line(&mut db, "read t authorized-view=v columns=cf:name").unwrap();
    assert!(
        out.contains("a#1") && out.contains("b#1") && !out.contains("c#1"),
        "{out}"
    );
    assert!(cbt::run_line(&mut db, "set t a#9 authorized-view=v cf:pub_z=1").is_ok());
    let e = cbt::run_line(&mut db, "set t c#9 authorized-view=v cf:pub_z=1").unwrap_err();
    assert_eq!(e.code(), tabletop_store::Code::PermissionDenied);
    let e = cbt::run_line(&mut db, "read t authorized-view=nope").unwrap_err();
    assert_eq!(e.code(), tabletop_store::Code::NotFound);
}
