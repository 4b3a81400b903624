//! Traces above the store: SQL reads hand back the trace of their ReadRows
//! (on a table or a view), and materialized views follow writes through
//! the store's traces whatever the caller asked the trace to keep.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_sql::sql::{self, Value};
use tabletop_sql::{Instance, views};
use tabletop_store::*;

const T0: i64 = 1_600_000_000_000_000;

fn counters() -> Instance {
    let mut db = Instance::default();
    db.set_clock_simulated(true);
    db.set_now(T0);
    db.create_table(
        CreateTableRequest::with_families("events", [("c", ColumnFamily::default())])
            .split_at(["m"]),
    )
    .unwrap();
    for (key, kind) in [("a1", "click"), ("b1", "view"), ("n1", "click")] {
        db.mutate_row(
            "events",
            key.as_bytes(),
            &[Mutation::set_cell("c", b"kind", -1, kind.as_bytes())],
        )
        .unwrap();
    }
    db
}

#[test]
fn a_select_hands_back_its_read() {
    let mut db = counters();
    let mut traces = Traces::new(TraceOptions::default());
    let out = sql::execute_traced(
        &mut db,
        "SELECT _key FROM events WHERE _key < 'm'",
        &mut traces,
    )
    .unwrap();
    let sql::Outcome::Rows(r) = out else {
        panic!("{out:?}")
    };
    assert_eq!(r.rows.len(), 2);
    let t = traces.last_read().unwrap();
    assert_eq!(t.table, "events");
    assert_eq!(t.request.shape(), ReadShape::SingleRange);
    assert_eq!(t.read.rows_returned, 2);
    assert_eq!((t.read.tablets.len(), t.tablet_count), (1, 2));
    assert_eq!(t.read.tablets, r.explain.tablets_touched);
    // A query that reads nothing leaves no trace.
    let mut none = Traces::new(TraceOptions::default());
    sql::execute_traced(&mut db, "SELECT 1", &mut none).unwrap();
    assert!(none.is_empty());
}

#[test]
fn views_follow_traced_writes_and_read_like_tables() {
    let mut db = counters();
    views::create_view(
        &mut db,
        "by_kind",
        "SELECT c['kind'] AS kind, COUNT(*) AS n FROM events GROUP BY kind",
    )
    .unwrap();
    // The caller's trace does not ask for written keys; the view gets
    // them anyway (and so does the caller).
    let mut t = Trace::new(TraceOptions::default());
    db.mutate_row_traced(
        "events",
        b"z1",
        &[Mutation::set_cell("c", b"kind", -1, b"click")],
        Some(&mut t),
    )
    .unwrap();
    assert_eq!(t.write.keys, vec![b"z1".to_vec()]);
    let mut drop = Trace::new(TraceOptions::default());
    db.drop_row_range_traced(
        "events",
        &DropTarget::Prefix(b"b".to_vec()),
        Some(&mut drop),
    )
    .unwrap();
    views::catch_up(&mut db, None).unwrap();
    let r = sql::query(&mut db, "SELECT kind, n FROM by_kind").unwrap();
    assert_eq!(
        r.rows,
        vec![vec![Value::Bytes(b"click".to_vec()), Value::Int64(3)]]
    );
    let mut traces = Traces::new(TraceOptions::default());
    sql::execute_traced(&mut db, "SELECT kind FROM by_kind", &mut traces).unwrap();
    let t = traces.last_read().unwrap();
    assert_eq!((t.table.as_str(), t.read.rows_returned), ("by_kind", 1));
}
