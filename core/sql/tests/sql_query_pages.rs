//! `sql::QueryPages`: a SELECT run a page at a time gives, pages together,
//! the rows `sql::query` gives run whole, whatever the page size; a query
//! in key order reads each page on from where the last one stopped (it
//! sees rows written between pages past that point), and any other query
//! runs whole on its first page.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_sql::Instance;
use tabletop_sql::sql::{self, QueryPages, Value};
use tabletop_store::*;

fn fixture() -> Instance {
    let mut db = Instance::default();
    db.create_table(
        CreateTableRequest::with_families("t", [("cf", ColumnFamily::with_gc(None))])
            .split_at(["k20"]),
    )
    .unwrap();
    for i in 0..40u32 {
        let key = format!("k{i:02}");
        let value = i.to_string();
        let mut muts = vec![Mutation::set_cell("cf", b"n", 1000, value.as_bytes())];
        if i % 3 == 0 {
            muts.push(Mutation::set_cell("cf", b"n", 2000, b"newer"));
            muts.push(Mutation::set_cell("cf", b"third", 1000, b"yes"));
        }
        db.mutate_row("t", key.as_bytes(), &muts).unwrap();
    }
    db
}

/// Every row of `query`, read in pages of at most `per_page` rows.
fn paged(db: &mut Instance, query: &str, per_page: usize) -> (Vec<Vec<Value>>, usize) {
    let mut pages = QueryPages::new(db, query).unwrap();
    let mut rows = Vec::new();
    let mut count = 0;
    while !pages.is_done() {
        let mut in_page = 0;
        pages
            .next_page(db, &mut |row| {
                rows.push(row);
                in_page += 1;
                in_page < per_page
            })
            .unwrap();
        count += 1;
        assert!(count < 1000, "{query}: the pages never end");
    }
    (rows, count)
}

const QUERIES: &[&str] = &[
    "SELECT _key, cf['n'] AS n FROM t",
    "SELECT _key FROM t WHERE _key >= b'k05' AND _key < b'k33'",
    "SELECT _key, cf['third'] AS third FROM t WHERE cf['third'] = b'yes'",
    "SELECT _key FROM t WHERE cf['third'] = b'yes' LIMIT 4 OFFSET 3",
    "SELECT _key FROM t LIMIT 7",
    "SELECT _key FROM t LIMIT 5 OFFSET 36",
    "SELECT _key FROM t WHERE _key = b'k07' OR _key = b'k31' OR _key = b'k19'",
    "SELECT _key, cf['n'] AS n FROM t(with_history => TRUE) WHERE _key < b'k10'",
    "SELECT _key FROM t ORDER BY _key DESC LIMIT 9",
    "SELECT _key FROM t WHERE _key = b'none'",
    "SELECT 1 AS one",
];

#[test]
fn pages_together_are_the_whole_result_at_every_page_size() {
    for query in QUERIES {
        let mut db = fixture();
        let whole = sql::query(&mut db, query).unwrap().rows;
        for per_page in [1, 2, 3, 7, 100] {
            let (rows, _) = paged(&mut db, query, per_page);
            assert_eq!(rows, whole, "{query} in pages of {per_page}");
        }
    }
}

#[test]
fn a_query_in_key_order_reads_page_by_page() {
    let mut db = fixture();
    let query = "SELECT _key FROM t WHERE _key >= b'k10'";
    let mut pages = QueryPages::new(&db, query).unwrap();
    let mut first = Vec::new();
    pages
        .next_page(&mut db, &mut |row| {
            first.push(row);
            false
        })
        .unwrap();
    assert_eq!(first, vec![vec![Value::Bytes(b"k10".to_vec())]]);
    assert!(!pages.is_done());
    // Rows written between pages, past the last one read, are read too;
    // one written before it is not.
    for key in [b"k05x".as_slice(), b"k10a", b"k99"] {
        db.mutate_row("t", key, &[Mutation::set_cell("cf", b"n", 1000, b"late")])
            .unwrap();
    }
    let mut rest = Vec::new();
    while !pages.is_done() {
        pages
            .next_page(&mut db, &mut |row| {
                rest.push(row);
                true
            })
            .unwrap();
    }
    let keys: Vec<_> = rest
        .iter()
        .map(|r| match &r[0] {
            Value::Bytes(b) => String::from_utf8(b.clone()).unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(keys.first().map(String::as_str), Some("k10a"));
    assert_eq!(keys.last().map(String::as_str), Some("k99"));
    assert_eq!(keys.len(), 1 + 29 + 1, "{keys:?}");
}

#[test]
fn a_sorted_query_runs_whole_on_its_first_page() {
    let mut db = fixture();
    let mut pages = QueryPages::new(&db, "SELECT _key FROM t ORDER BY _key DESC").unwrap();
    let mut first = Vec::new();
    pages
        .next_page(&mut db, &mut |row| {
            first.push(row);
            false
        })
        .unwrap();
    assert_eq!(first, vec![vec![Value::Bytes(b"k39".to_vec())]]);
    db.mutate_row(
        "t",
        b"k99",
        &[Mutation::set_cell("cf", b"n", 1000, b"late")],
    )
    .unwrap();
    let mut rest = 0;
    while !pages.is_done() {
        pages
            .next_page(&mut db, &mut |_| {
                rest += 1;
                true
            })
            .unwrap();
    }
    assert_eq!(rest, 39, "the rows were read before the late write");
}

#[test]
fn only_queries_run_in_pages_and_errors_come_with_a_page() {
    let mut db = fixture();
    assert!(QueryPages::new(&db, "CREATE VIEW v AS SELECT _key FROM t").is_err());
    assert!(QueryPages::new(&db, "SELECT nope FROM t").is_err());
    let mut pages = QueryPages::new(
        &db,
        "SELECT CAST(CAST(cf['n'] AS STRING) AS INT64) AS n FROM t",
    )
    .unwrap();
    let e = pages.next_page(&mut db, &mut |_| true).unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e}");
}
