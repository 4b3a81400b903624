//! What a read did, from the trace the interpreters hand back: the same
//! read through JSON, cbt and SQL gives the same report, tablets visited
//! included, with nothing parsed from printed output.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_sql::Instance;
use tabletop_store::inspect::tablets_visited;
use tabletop_store::{
    Operation, ReadShape, RowRange, RowSet, Trace, TraceOptions, Traces, base64_text,
};
use tabletop_wire::{api, cbt};

/// Table `t` split at `g` and `p` (three tablets), ten rows.
fn db() -> Instance {
    let mut db = Instance::default();
    cbt::run_line(&mut db, "createtable t families=cf splits=g,p").unwrap();
    for key in ["a1", "a2", "a3", "h1", "h2", "q1", "q2", "q3", "q4", "z9"] {
        cbt::run_line(&mut db, &format!("set t {key} cf:q=v-{key}@1000")).unwrap();
    }
    db
}

fn traced_cbt(db: &mut Instance, line: &str) -> Vec<Trace> {
    let mut traces = Traces::new(TraceOptions::default());
    let out = cbt::exec_line_traced(db, line, &mut cbt::NoHost, &mut traces);
    assert!(out.status.is_ok(), "{line}: {:?}", out.status);
    traces.into_vec()
}

fn traced_json(db: &mut Instance, line: &str) -> Vec<Trace> {
    let mut traces = Traces::new(TraceOptions::default());
    let answer = api::handle_traced(db, line, &mut traces);
    assert!(answer.starts_with("{\"response\""), "{answer}");
    traces.into_vec()
}

fn one_read(traces: &[Trace]) -> &Trace {
    let reads: Vec<&Trace> = traces.iter().filter(|t| t.is_read()).collect();
    assert_eq!(reads.len(), 1, "{traces:?}");
    reads[0]
}

#[test]
fn json_and_cbt_report_the_same_prefix_read() {
    let mut db = db();
    let cbt_traces = traced_cbt(&mut db, "read t prefix=q");
    let from_cbt = one_read(&cbt_traces);
    let line = format!(
        r#"{{"method": "readRows", "request": {{"tableName": "projects/p/instances/i/tables/t", "rows": {{"rowRanges": [{{"startKeyClosed": "{}", "endKeyOpen": "{}"}}]}}}}}}"#,
        base64_text::encode(b"q"),
        base64_text::encode(b"r")
    );
    let json_traces = traced_json(&mut db, &line);
    let from_json = one_read(&json_traces);
    for t in [from_cbt, from_json] {
        assert_eq!(t.table, "t");
        assert_eq!(t.request.shape(), ReadShape::SingleRange);
        assert_eq!((t.read.rows_seen, t.read.rows_returned), (4, 4));
        assert_eq!((t.read.cells_seen, t.read.cells_returned), (4, 4));
        assert_eq!(t.tablet_count, 3);
        let expected = tablets_visited(
            &mut db,
            "t",
            &RowSet::range(RowRange::prefix(b"q".to_vec())),
            false,
            None,
        )
        .unwrap();
        assert_eq!(t.read.tablets, expected);
        assert_eq!(t.read.tablets.len(), 1);
    }
    assert_eq!(from_cbt.read, from_json.read);
}

#[test]
fn lookups_counts_and_limited_reads_are_traced_as_they_ran() {
    let mut db = db();
    let traces = traced_cbt(&mut db, "lookup t h2");
    let t = one_read(&traces);
    assert_eq!(t.request.shape(), ReadShape::Point);
    assert_eq!(t.read.rows_returned, 1);

    let traces = traced_cbt(&mut db, "count t");
    let t = one_read(&traces);
    assert_eq!(t.request.shape(), ReadShape::FullScan);
    assert_eq!((t.read.rows_seen, t.read.rows_returned), (10, 10));
    assert_eq!(t.distinct_tablets().len(), 3);

    // A read that stops at its limit visits only the tablets it reached.
    let traces = traced_cbt(&mut db, "read t count=2");
    let t = one_read(&traces);
    assert_eq!(t.request.rows_limit, 2);
    assert_eq!(t.read.rows_returned, 2);
    assert_eq!(t.read.tablets.len(), 1);

    // A filtered read sees every row and returns some.
    let traces = traced_cbt(&mut db, "read t regex=.*1");
    let t = one_read(&traces);
    assert!(t.request.filtered);
    assert_eq!((t.read.rows_seen, t.read.rows_returned), (10, 3));
}

#[test]
fn writes_and_failures_are_traced_or_not() {
    let mut db = db();
    let traces = traced_cbt(&mut db, "set t b1 cf:q=1 cf:r=2");
    assert_eq!(traces.len(), 1);
    assert_eq!(traces[0].operation, Operation::MutateRow);
    assert_eq!(traces[0].write.cells, 2);
    let traces = traced_cbt(&mut db, "deleteallrows t");
    assert_eq!(traces[0].operation, Operation::DropRowRange);

    // A request that fails leaves no trace.
    let mut traces = Traces::new(TraceOptions::default());
    let out = cbt::exec_line_traced(&mut db, "read nope", &mut cbt::NoHost, &mut traces);
    assert!(out.status.is_err());
    assert!(traces.is_empty());

    // The JSON bulk-write fast path is traced too.
    let line = format!(
        r#"{{"method": "mutateRows", "request": {{"tableName": "projects/p/instances/i/tables/t", "entries": [{{"rowKey": "{}", "mutations": [{{"setCell": {{"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": "1000", "value": "dg=="}}}}]}}]}}}}"#,
        base64_text::encode(b"k1")
    );
    assert!(
        api::handle_fast(&mut db, &line).is_some(),
        "the fast path takes it"
    );
    let traces = traced_json(&mut db, &line);
    assert_eq!(traces[0].operation, Operation::MutateRows);
    assert_eq!(traces[0].write.rows, 1);
}

#[test]
fn sql_reads_are_traced_through_the_protocol() {
    let mut db = db();
    let line = r#"{"method": "sql", "request": {"query": "SELECT _key FROM t WHERE _key >= 'h' AND _key < 'i'"}}"#;
    let traces = traced_json(&mut db, line);
    let t = one_read(&traces);
    assert_eq!(t.request.shape(), ReadShape::SingleRange);
    assert_eq!(t.read.rows_returned, 2);
    let middle = db.tablets("t").unwrap()[1].id;
    assert_eq!(t.read.tablets, vec![middle]);
}

#[test]
fn reads_parse_with_the_interpreters_own_parsers() {
    let (table, req) = cbt::read_request("cbt -project p read t prefix=q count=2").unwrap();
    assert_eq!(table, "t");
    assert_eq!(req.rows, RowSet::range(RowRange::prefix(b"q".to_vec())));
    assert_eq!(req.rows_limit, 2);
    assert!(cbt::read_request("set t r cf:q=v").is_none());
    assert!(
        cbt::read_request("read t count=0").is_none(),
        "cbt sends nothing"
    );
    let (table, req) = api::read_rows_request_of_line(
        r#"{"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/t", "rows_limit": 7}}"#,
    )
    .unwrap();
    assert_eq!((table.as_str(), req.rows_limit), ("t", 7));
    assert!(api::read_rows_request_of_line(r#"{"method": "readRows", "request": {}}"#).is_none());
}
