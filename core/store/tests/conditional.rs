#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// CheckAndMutateRow and ReadModifyWriteRow through `Instance`.

use std::borrow::Cow;

use tabletop_store::*;

const T0: i64 = 1_588_291_200_000_000;

fn instance() -> Instance {
    let mut db = Instance::default();
    db.set_now(T0 + 123); // not on a millisecond: server times round down
    db.create_table(CreateTableRequest::with_families(
        "t",
        [
            ("cf", ColumnFamily::with_gc(None)),
            ("other", ColumnFamily::with_gc(None)),
            (
                "counters",
                ColumnFamily {
                    gc_rule: None,
                    value_type: ValueType::Aggregate(Aggregator::Sum),
                },
            ),
        ],
    ))
    .expect("create table");
    db
}

fn set<'a>(q: &'a str, ts: i64, v: &'a [u8]) -> Mutation<'a> {
    Mutation::set_cell("cf", q.as_bytes(), ts, v)
}

fn put(db: &mut Instance, row: &str, q: &str, ts: i64, v: &[u8]) {
    db.mutate_row("t", row.as_bytes(), &[set(q, ts, v)])
        .expect("set");
}

fn row(db: &mut Instance, key: &str) -> Option<OwnedRow> {
    db.read_row("t", key.as_bytes(), None).expect("read")
}

/// `fam:qual@ts=value` per cell.
fn cells(r: &Option<OwnedRow>) -> Vec<String> {
    r.iter()
        .flat_map(|r| r.cells.iter())
        .map(|c| {
            format!(
                "{}:{}@{}={}",
                c.family,
                escape_bytes(&c.qualifier),
                c.timestamp_micros,
                escape_bytes(&c.value)
            )
        })
        .collect()
}

fn cam<'a>(
    key: &str,
    predicate: Option<RowFilter>,
    on_true: Vec<Mutation<'a>>,
    on_false: Vec<Mutation<'a>>,
) -> CheckAndMutateRowRequest<'a> {
    CheckAndMutateRowRequest {
        row_key: key.as_bytes().to_vec(),
        predicate_filter: predicate,
        true_mutations: on_true,
        false_mutations: on_false,
    }
}

#[test]
fn check_and_mutate_applies_the_true_branch_when_the_predicate_yields_cells() {
    let mut db = instance();
    put(&mut db, "r", "status", 1000, b"open");
    let pred = RowFilter::Chain(vec![
        RowFilter::ColumnQualifierRegex(b"status".to_vec()),
        RowFilter::ValueRegex(b"open".to_vec()),
    ]);
    let resp = db
        .check_and_mutate_row(
            "t",
            &cam(
                "r",
                Some(pred.clone()),
                vec![set("status", 2000, b"closed")],
                vec![set("seen", 2000, b"no")],
            ),
        )
        .expect("check and mutate");
    assert!(resp.predicate_matched);
    assert_eq!(
        cells(&row(&mut db, "r")),
        ["cf:status@2000=closed", "cf:status@1000=open"]
    );
    // The newest value is now "closed", but the older "open" version
    // still matches: the predicate sees every version a read would.
    let resp = db
        .check_and_mutate_row(
            "t",
            &cam(
                "r",
                Some(RowFilter::Chain(vec![
                    RowFilter::CellsPerColumnLimit(1),
                    pred,
                ])),
                vec![set("x", 3000, b"true")],
                vec![set("x", 3000, b"false")],
            ),
        )
        .expect("check and mutate");
    assert!(!resp.predicate_matched);
    assert_eq!(
        cells(&row(&mut db, "r")),
        [
            "cf:status@2000=closed",
            "cf:status@1000=open",
            "cf:x@3000=false"
        ]
    );
}

#[test]
fn without_a_predicate_the_test_is_whether_the_row_exists() {
    let mut db = instance();
    let req = cam(
        "new",
        None,
        vec![set("q", 1000, b"existed")],
        vec![set("q", 1000, b"created")],
    );
    assert!(
        !db.check_and_mutate_row("t", &req)
            .expect("cam")
            .predicate_matched
    );
    assert_eq!(cells(&row(&mut db, "new")), ["cf:q@1000=created"]);
    assert!(
        db.check_and_mutate_row("t", &req)
            .expect("cam")
            .predicate_matched
    );
    assert_eq!(cells(&row(&mut db, "new")), ["cf:q@1000=existed"]);
}

#[test]
fn a_missing_branch_does_nothing() {
    let mut db = instance();
    let req = cam(
        "r",
        Some(RowFilter::PassAll),
        vec![set("q", 1000, b"v")],
        vec![],
    );
    let resp = db.check_and_mutate_row("t", &req).expect("cam");
    assert!(!resp.predicate_matched);
    assert!(row(&mut db, "r").is_none());
    let req = cam(
        "r",
        Some(RowFilter::BlockAll),
        vec![],
        vec![set("q", 1000, b"v")],
    );
    assert!(
        !db.check_and_mutate_row("t", &req)
            .expect("cam")
            .predicate_matched
    );
    assert_eq!(cells(&row(&mut db, "r")), ["cf:q@1000=v"]);
}

#[test]
fn check_and_mutate_validates_the_request() {
    let mut db = instance();
    let err = db
        .check_and_mutate_row("t", &cam("r", None, vec![], vec![]))
        .expect_err("empty");
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = db
        .check_and_mutate_row("nope", &cam("r", None, vec![set("q", 0, b"")], vec![]))
        .expect_err("table");
    assert_eq!(err.code(), Code::NotFound);
    let err = db
        .check_and_mutate_row("t", &cam("", None, vec![set("q", 0, b"")], vec![]))
        .expect_err("key");
    assert_eq!(err.code(), Code::InvalidArgument);
    let bad = RowFilter::ValueRegex(b"(".to_vec());
    let err = db
        .check_and_mutate_row("t", &cam("r", Some(bad), vec![set("q", 0, b"")], vec![]))
        .expect_err("filter");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("value_regex_filter"), "{err}");
    let unknown = RowFilter::ColumnRange {
        family_name: "nope".into(),
        start: KeyBound::Unbounded,
        end: KeyBound::Unbounded,
    };
    let err = db
        .check_and_mutate_row(
            "t",
            &cam("r", Some(unknown), vec![set("q", 0, b"")], vec![]),
        )
        .expect_err("family");
    assert_eq!(err.code(), Code::NotFound);
}

#[test]
fn check_and_mutate_is_atomic() {
    let mut db = instance();
    put(&mut db, "r", "q", 1000, b"before");
    let bad = vec![
        set("q", 2000, b"after"),
        Mutation::set_cell("no_such_family", b"q", 2000, b"x"),
    ];
    let err = db
        .check_and_mutate_row("t", &cam("r", None, bad, vec![]))
        .expect_err("bad mutation");
    assert_eq!(err.code(), Code::NotFound);
    assert_eq!(cells(&row(&mut db, "r")), ["cf:q@1000=before"]);
    // Deletes and server timestamps work as in MutateRow.
    let muts = vec![
        Mutation::DeleteFromColumn {
            family_name: Cow::Borrowed("cf"),
            column_qualifier: Cow::Borrowed(b"q"),
            time_range: None,
        },
        set("server", SERVER_TIMESTAMP, b"now"),
    ];
    assert!(
        db.check_and_mutate_row("t", &cam("r", None, muts, vec![]))
            .expect("cam")
            .predicate_matched
    );
    assert_eq!(cells(&row(&mut db, "r")), [format!("cf:server@{T0}=now")]);
}

fn rmw(key: &str, rules: &[(&str, &str, ReadModifyWriteOp)]) -> ReadModifyWriteRowRequest {
    ReadModifyWriteRowRequest {
        row_key: key.as_bytes().to_vec(),
        rules: rules
            .iter()
            .map(|(f, q, op)| ReadModifyWriteRule {
                family_name: (*f).to_string(),
                column_qualifier: q.as_bytes().to_vec(),
                rule: op.clone(),
            })
            .collect(),
    }
}

fn append(v: &str) -> ReadModifyWriteOp {
    ReadModifyWriteOp::AppendValue(v.as_bytes().to_vec())
}

fn incr(n: i64) -> ReadModifyWriteOp {
    ReadModifyWriteOp::IncrementAmount(n)
}

#[test]
fn append_treats_a_missing_cell_as_empty() {
    let mut db = instance();
    let resp = db
        .read_modify_write_row("t", &rmw("r", &[("cf", "log", append("a"))]))
        .expect("rmw");
    assert_eq!(cells(&Some(resp.row.clone())), [format!("cf:log@{T0}=a")]);
    assert_eq!(resp.row.key, b"r");
    db.set_now(T0 + 5_000);
    let resp = db
        .read_modify_write_row("t", &rmw("r", &[("cf", "log", append("bc"))]))
        .expect("rmw");
    let ts = T0 + 5_000;
    assert_eq!(cells(&Some(resp.row)), [format!("cf:log@{ts}=abc")]);
    // A new version on top; the old one stays (until GC).
    assert_eq!(
        cells(&row(&mut db, "r")),
        [format!("cf:log@{ts}=abc"), format!("cf:log@{T0}=a")]
    );
}

#[test]
fn increment_reads_and_writes_64_bit_big_endian() {
    let mut db = instance();
    let value = |resp: &ReadModifyWriteRowResponse| {
        i64::from_be_bytes(
            resp.row.cells[0]
                .value
                .as_slice()
                .try_into()
                .expect("8 bytes"),
        )
    };
    let r = db
        .read_modify_write_row("t", &rmw("r", &[("cf", "n", incr(5))]))
        .expect("rmw");
    assert_eq!(value(&r), 5, "a missing cell counts as zero");
    let r = db
        .read_modify_write_row("t", &rmw("r", &[("cf", "n", incr(-7))]))
        .expect("rmw");
    assert_eq!(value(&r), -2);
    assert_eq!(r.row.cells[0].value, (-2i64).to_be_bytes());
    put(&mut db, "big", "n", 1000, &i64::MAX.to_be_bytes());
    let r = db
        .read_modify_write_row("t", &rmw("big", &[("cf", "n", incr(1))]))
        .expect("rmw");
    assert_eq!(value(&r), i64::MIN, "wraps around");
}

#[test]
fn rules_apply_in_order_and_the_answer_holds_only_modified_cells() {
    let mut db = instance();
    put(&mut db, "r", "untouched", 1000, b"u");
    put(&mut db, "r", "s", 1000, b"x");
    let resp = db
        .read_modify_write_row(
            "t",
            &rmw(
                "r",
                &[
                    ("other", "z", incr(1)),
                    ("cf", "s", append("y")),
                    ("cf", "n", incr(2)),
                    ("cf", "s", append("z")),
                    ("cf", "n", incr(3)),
                ],
            ),
        )
        .expect("rmw");
    let n = 5i64.to_be_bytes();
    let one = 1i64.to_be_bytes();
    assert_eq!(
        cells(&Some(resp.row)),
        [
            format!("cf:n@{T0}={}", escape_bytes(&n)),
            format!("cf:s@{T0}=xyz"),
            format!("other:z@{T0}={}", escape_bytes(&one)),
        ]
    );
    assert_eq!(
        cells(&row(&mut db, "r")),
        [
            format!("cf:n@{T0}={}", escape_bytes(&n)),
            format!("cf:s@{T0}=xyz"),
            "cf:s@1000=x".to_string(),
            "cf:untouched@1000=u".to_string(),
            format!("other:z@{T0}={}", escape_bytes(&one)),
        ]
    );
}

#[test]
fn a_cell_from_the_future_is_updated_in_place() {
    let mut db = instance();
    let future = T0 + 3_600_000_000;
    put(&mut db, "r", "s", future, b"later");
    let resp = db
        .read_modify_write_row("t", &rmw("r", &[("cf", "s", append("!"))]))
        .expect("rmw");
    assert_eq!(cells(&Some(resp.row)), [format!("cf:s@{future}=later!")]);
    assert_eq!(cells(&row(&mut db, "r")), [format!("cf:s@{future}=later!")]);
    // The same when the old cell already sits in a sorted run.
    db.compact(Some("t")).expect("compact");
    db.read_modify_write_row("t", &rmw("r", &[("cf", "s", append("?"))]))
        .expect("rmw");
    assert_eq!(
        cells(&row(&mut db, "r")),
        [format!("cf:s@{future}=later!?")]
    );
}

#[test]
fn incrementing_a_value_that_is_not_8_bytes_fails_and_changes_nothing() {
    let mut db = instance();
    put(&mut db, "r", "n", 1000, b"1");
    let before = row(&mut db, "r");
    let err = db
        .read_modify_write_row(
            "t",
            &rmw("r", &[("cf", "log", append("x")), ("cf", "n", incr(1))]),
        )
        .expect_err("not 8 bytes");
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert!(err.message().contains("64-bit"), "{err}");
    assert_eq!(
        row(&mut db, "r"),
        before,
        "the earlier append was not applied either"
    );
}

#[test]
fn read_modify_write_validates_the_request() {
    let mut db = instance();
    let err = db
        .read_modify_write_row("t", &rmw("r", &[]))
        .expect_err("no rules");
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = db
        .read_modify_write_row("t", &rmw("r", &[("nope", "q", incr(1))]))
        .expect_err("family");
    assert_eq!(err.code(), Code::NotFound);
    let err = db
        .read_modify_write_row("t", &rmw("r", &[("counters", "q", incr(1))]))
        .expect_err("aggregate");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("aggregate"), "{err}");
    let err = db
        .read_modify_write_row("x", &rmw("r", &[("cf", "q", incr(1))]))
        .expect_err("table");
    assert_eq!(err.code(), Code::NotFound);
    let err = db
        .read_modify_write_row("t", &rmw("", &[("cf", "q", incr(1))]))
        .expect_err("key");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(row(&mut db, "r").is_none());
}
