//! Logical views: saved queries that other queries read in FROM, kept per
//! instance with an etag and deletion protection.
//!
//! Expectations follow Bigtable's guide "Create and manage logical views"
//! (https://cloud.google.com/bigtable/docs/create-manage-logical-views):
//! a logical view is an instance-level resource holding a SELECT; other
//! queries (and other logical views) read it like a table while the data
//! stays in the source table; it is read-only and read only with SQL; it
//! can be protected from deletion; and the `LogicalView` resource
//! reference (name `projects/P/instances/I/logicalViews/V`, a stale etag
//! on update or delete is ABORTED). The emulator has no instance admin
//! API, so nothing here is checked against it.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_sql::sql::{self, Value};
use tabletop_sql::{Instance, LogicalView};
use tabletop_store::*;

fn shop() -> Instance {
    let mut db = Instance::default();
    db.set_clock_simulated(true);
    db.set_now(1_600_000_000_000_000);
    db.create_table(CreateTableRequest::with_families(
        "orders",
        [("o", ColumnFamily::default())],
    ))
    .unwrap();
    for (key, customer, status) in [
        ("order#1", "ann", "open"),
        ("order#2", "bob", "shipped"),
        ("order#3", "ann", "shipped"),
        ("order#4", "cid", "open"),
    ] {
        let muts = [
            Mutation::set_cell("o", b"customer", 1000, customer.as_bytes()),
            Mutation::set_cell("o", b"status", 1000, status.as_bytes()),
        ];
        db.mutate_row("orders", key.as_bytes(), &muts).unwrap();
    }
    db
}

fn rows(db: &mut Instance, q: &str) -> Vec<Vec<Value>> {
    sql::query(db, q)
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .rows
}

fn strings(rows: &[Vec<Value>]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(Value::display).collect())
        .collect()
}

fn err(db: &mut Instance, q: &str) -> Error {
    match sql::query(db, q) {
        Ok(r) => panic!("{q}: expected an error, got {:?}", r.rows),
        Err(e) => e,
    }
}

const OPEN: &str = "SELECT _key AS id, CAST(o['customer'] AS STRING) AS customer \
                    FROM orders WHERE o['status'] = b'open'";

#[test]
fn a_query_reads_a_logical_view_like_a_table() {
    let mut db = shop();
    db.create_logical_view("open_orders", LogicalView::new(OPEN))
        .unwrap();
    let got = rows(
        &mut db,
        "SELECT customer FROM open_orders ORDER BY customer DESC",
    );
    assert_eq!(strings(&got), [["cid"], ["ann"]]);
    // Columns by alias, WHERE and LIMIT over the view's rows; SELECT *.
    let got = rows(
        &mut db,
        "SELECT v.id FROM open_orders AS v WHERE v.customer = 'ann'",
    );
    assert_eq!(got.len(), 1);
    let star = sql::query(&mut db, "SELECT * FROM open_orders LIMIT 1").unwrap();
    let names: Vec<&str> = star.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["id", "customer"]);
    // The data stays in the table: a new write shows through at once.
    let muts = [
        Mutation::set_cell("o", b"customer", 1000, b"dee"),
        Mutation::set_cell("o", b"status", 1000, b"open"),
    ];
    db.mutate_row("orders", b"order#5", &muts).unwrap();
    assert_eq!(rows(&mut db, "SELECT id FROM open_orders").len(), 3);
}

#[test]
fn views_read_views_and_a_cycle_is_refused() {
    let mut db = shop();
    db.create_logical_view("open_orders", LogicalView::new(OPEN))
        .unwrap();
    db.create_logical_view(
        "ann_open",
        LogicalView::new("SELECT id FROM open_orders WHERE customer = 'ann'"),
    )
    .unwrap();
    let got = rows(&mut db, "SELECT id FROM ann_open");
    assert_eq!(strings(&got), [["order#1"]]);
    // Making open_orders read ann_open would make them read each other.
    let e = db
        .update_logical_view(
            "open_orders",
            LogicalView::new("SELECT id FROM ann_open"),
            None,
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("reads itself"), "{e}");
    assert!(
        e.message()
            .contains("open_orders -> ann_open -> open_orders"),
        "{e}"
    );
    // Unchanged by the refused update.
    assert_eq!(rows(&mut db, "SELECT id FROM ann_open").len(), 1);
    // A view naming itself.
    let e = db
        .create_logical_view("me", LogicalView::new("SELECT * FROM me"))
        .unwrap_err();
    assert!(e.message().contains("Table not found: me"), "{e}");
}

#[test]
fn a_view_whose_table_is_gone_fails_clearly_when_read() {
    let mut db = shop();
    // The query is checked on creation: a missing table is refused.
    let e = db
        .create_logical_view("v", LogicalView::new("SELECT _key FROM nope"))
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("Table not found: nope"), "{e}");
    db.create_logical_view("open_orders", LogicalView::new(OPEN))
        .unwrap();
    db.delete_table("orders").unwrap();
    // The view stays; reading it names the view and the missing table.
    assert!(db.logical_view("open_orders").is_ok());
    let e = err(&mut db, "SELECT id FROM open_orders");
    assert_eq!(e.code(), Code::InvalidArgument);
    let msg = e.message();
    assert!(msg.contains("in logical view open_orders"), "{msg}");
    assert!(msg.contains("Table not found: orders"), "{msg}");
    assert!(msg.ends_with("[at 1:16]"), "{msg}");
}

#[test]
fn admin_rules_ids_etags_protection_and_names() {
    let mut db = shop();
    let e = db
        .create_logical_view("bad id", LogicalView::new(OPEN))
        .unwrap_err();
    assert!(e.message().contains("logical view id"), "{e}");
    // Tables, materialized views and logical views share FROM's names.
    let e = db
        .create_logical_view("orders", LogicalView::new(OPEN))
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists);
    let e = db
        .create_logical_view("v", LogicalView::new("DROP MATERIALIZED VIEW x"))
        .unwrap_err();
    assert!(e.message().contains("must be a SELECT"), "{e}");
    let v = db
        .create_logical_view("open_orders", LogicalView::new(OPEN))
        .unwrap();
    assert_eq!(v.generation, 1);
    let e = db
        .create_logical_view("open_orders", LogicalView::new(OPEN))
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists);
    let e = db
        .create_table(CreateTableRequest {
            table_id: "open_orders".into(),
            schema: TableSchema::default(),
            initial_splits: Vec::new(),
        })
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists);
    // A stale etag is ABORTED; the current one works.
    let stale = v.etag();
    let mut protected = v.clone();
    protected.deletion_protection = true;
    let v2 = db
        .update_logical_view("open_orders", protected, Some(&stale))
        .unwrap();
    assert_ne!(v2.etag(), stale);
    let e = db
        .delete_logical_view("open_orders", Some(&stale))
        .unwrap_err();
    assert_eq!(e.code(), Code::Aborted);
    let e = db.delete_logical_view("open_orders", None).unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    let mut open = v2.clone();
    open.deletion_protection = false;
    db.update_logical_view("open_orders", open, None).unwrap();
    db.delete_logical_view("open_orders", None).unwrap();
    assert_eq!(
        db.logical_view("open_orders").unwrap_err().code(),
        Code::NotFound
    );
    assert!(db.logical_views().is_empty());
}

#[test]
fn temporal_options_are_for_tables_only() {
    let mut db = shop();
    db.create_logical_view("open_orders", LogicalView::new(OPEN))
        .unwrap();
    let e = err(&mut db, "SELECT id FROM open_orders(with_history => TRUE)");
    assert!(e.message().contains("is a logical view"), "{e}");
}

#[test]
fn explain_says_the_read_goes_through_the_view() {
    let mut db = shop();
    db.create_logical_view("open_orders", LogicalView::new(OPEN))
        .unwrap();
    let ex = sql::explain(&mut db, "SELECT id FROM open_orders LIMIT 1").unwrap();
    assert_eq!(ex.source, "orders");
    assert!(
        ex.notes
            .iter()
            .any(|n| n.contains("logical view open_orders")),
        "{:?}",
        ex.notes
    );
    assert!(
        ex.after_read
            .iter()
            .any(|a| a == "LIMIT 1 after the logical view")
    );
}

#[test]
fn snapshots_keep_logical_views() {
    let mut db = shop();
    let mut v = LogicalView::new(OPEN);
    v.deletion_protection = true;
    db.create_logical_view("open_orders", v).unwrap();
    let bytes = db.snapshot();
    let mut back = Instance::restore(&bytes).unwrap();
    let kept = back.logical_view("open_orders").unwrap();
    assert!(kept.deletion_protection);
    assert_eq!(kept.query, OPEN);
    assert_eq!(rows(&mut back, "SELECT id FROM open_orders").len(), 2);
}

/// Bigtable computes a continuous materialized view from a table (its
/// query's FROM names one); a logical view is refused with a message
/// naming it, and the same query over the table works.
#[test]
fn a_materialized_view_over_a_logical_view_is_refused() {
    let mut db = shop();
    db.create_logical_view("open_orders", LogicalView::new(OPEN))
        .unwrap();
    let e = tabletop_sql::views::create_view(
        &mut db,
        "by_customer",
        "SELECT customer, COUNT(*) AS n FROM open_orders GROUP BY customer",
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{}", e.message());
    assert!(
        e.message().contains("open_orders is a logical view"),
        "{}",
        e.message()
    );
    tabletop_sql::views::create_view(
        &mut db,
        "by_customer",
        "SELECT CAST(o['customer'] AS STRING) AS customer, COUNT(*) AS n FROM orders GROUP BY customer",
    )
    .unwrap();
}
