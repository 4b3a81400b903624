//! Continuous materialized views: aggregations and secondary indexes are
//! readable like tables, follow their source asynchronously (with a lag
//! the status reports), and once caught up always equal a recomputation
//! from scratch, whatever writes, deletes, drops and garbage collection
//! happened.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::BTreeMap;

use tabletop_sql::sql::{self, Outcome, SqlType, Value};
use tabletop_sql::views::{self, ViewKind, ViewOptions};
use tabletop_sql::{Instance, rowkey_schema};
use tabletop_store::ReadShape;
use tabletop_store::*;

const T0: i64 = 1_600_000_000_000_000;
const SEC: i64 = 1_000_000;

fn orders() -> Instance {
    let mut db = Instance::default();
    db.set_clock_simulated(true);
    db.set_now(T0);
    db.create_table(
        CreateTableRequest::with_families(
            "orders",
            [("o", ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(3))))],
        )
        .split_at(["order#5"]),
    )
    .unwrap();
    for i in 0..60u32 {
        put(
            &mut db,
            i,
            &format!("c{:03}", i % 7),
            i64::from(i * 10 % 97),
            if i % 5 == 0 { "open" } else { "shipped" },
        );
    }
    db
}

fn put(db: &mut Instance, i: u32, customer: &str, amount: i64, status: &str) {
    let key = format!("order#{i:04}");
    let amount = amount.to_string();
    db.mutate_row(
        "orders",
        key.as_bytes(),
        &[
            Mutation::set_cell("o", b"customer", -1, customer.as_bytes()),
            Mutation::set_cell("o", b"amount", -1, amount.as_bytes()),
            Mutation::set_cell("o", b"status", -1, status.as_bytes()),
        ],
    )
    .unwrap();
}

const SPEND: &str = "SELECT SAFE_CONVERT_BYTES_TO_STRING(o['customer']) AS customer, COUNT(*) AS orders, \
    SUM(CAST(CAST(o['amount'] AS STRING) AS INT64)) AS total, \
    MIN(CAST(CAST(o['amount'] AS STRING) AS INT64)) AS smallest, \
    MAX(CAST(CAST(o['amount'] AS STRING) AS INT64)) AS largest, \
    AVG(CAST(CAST(o['amount'] AS STRING) AS INT64)) AS mean, \
    COUNT(o['status']) AS with_status, ANY_VALUE(o['status']) AS some_status \
    FROM orders GROUP BY customer";

const BY_CUSTOMER: &str = "SELECT SAFE_CONVERT_BYTES_TO_STRING(o['customer']) AS customer, _key AS order_id, \
    o['amount'] AS amount FROM orders WHERE o['status'] IS NOT NULL ORDER BY customer, order_id";

/// (customer → (count, sum, min, max, count(status), min(status)))
type Expect = BTreeMap<String, (i64, i64, i64, i64, i64, Vec<u8>)>;

fn expected_spend(db: &mut Instance) -> Expect {
    let mut rows = CollectRows::default();
    db.read_rows(
        "orders",
        &ReadRowsRequest {
            filter: Some(RowFilter::CellsPerColumnLimit(1)),
            ..ReadRowsRequest::default()
        },
        &mut rows,
    )
    .unwrap();
    let mut m: Expect = BTreeMap::new();
    for r in rows.rows {
        let get = |q: &[u8]| {
            r.cells
                .iter()
                .find(|c| c.qualifier == q)
                .map(|c| c.value.clone())
        };
        let Some(c) = get(b"customer") else { continue };
        let customer = String::from_utf8_lossy(&c).into_owned();
        let amount: i64 = get(b"amount")
            .map(|a| String::from_utf8(a).unwrap().parse().unwrap())
            .unwrap();
        let e = m
            .entry(customer)
            .or_insert((0, 0, i64::MAX, i64::MIN, 0, Vec::new()));
        e.0 += 1;
        e.1 += amount;
        e.2 = e.2.min(amount);
        e.3 = e.3.max(amount);
        if let Some(s) = get(b"status") {
            e.4 += 1;
            if e.5.is_empty() || s < e.5 {
                e.5 = s;
            }
        }
    }
    m
}

fn spend_rows(db: &mut Instance) -> Expect {
    let r = sql::query(db, "SELECT * FROM spend").unwrap();
    let mut m = Expect::new();
    for row in r.rows {
        let Value::String(c) = &row[0] else {
            panic!("{row:?}")
        };
        let int = |v: &Value| match v {
            Value::Int64(i) => *i,
            other => panic!("{other:?}"),
        };
        let Value::Bytes(s) = &row[7] else {
            panic!("{row:?}")
        };
        let count = int(&row[1]);
        let sum = int(&row[2]);
        let Value::Float64(mean) = row[5] else {
            panic!()
        };
        assert!((mean - sum as f64 / count as f64).abs() < 1e-9);
        m.insert(
            c.clone(),
            (
                count,
                sum,
                int(&row[3]),
                int(&row[4]),
                int(&row[6]),
                s.clone(),
            ),
        );
    }
    m
}

#[test]
fn an_aggregation_view_groups_and_reads_like_a_table() {
    let mut db = orders();
    let out = sql::execute(
        &mut db,
        &format!("CREATE MATERIALIZED VIEW spend AS {SPEND}"),
    )
    .unwrap();
    let Outcome::ViewCreated(st) = &out else {
        panic!()
    };
    assert_eq!(st.kind, ViewKind::Aggregation);
    assert_eq!(st.rows, 7);
    assert!(st.is_caught_up());
    assert!(out.changes_state());
    assert_eq!(spend_rows(&mut db), expected_spend(&mut db));
    let r = sql::query(&mut db, "SELECT * FROM spend").unwrap();
    let types: Vec<SqlType> = r.columns.iter().map(|c| c.sql_type.clone()).collect();
    assert_eq!(
        types,
        [
            SqlType::String,
            SqlType::Int64,
            SqlType::Int64,
            SqlType::Int64,
            SqlType::Int64,
            SqlType::Float64,
            SqlType::Int64,
            SqlType::Bytes
        ]
    );
    // Key columns narrow reads of the view; ReadRows reads it too.
    let r = sql::query(
        &mut db,
        "SELECT orders, total FROM spend WHERE customer = 'c003'",
    )
    .unwrap();
    assert_eq!(r.rows.len(), 1);
    assert_eq!(r.explain.access.shape(), ReadShape::Point);
    assert_eq!(r.explain.stats.rows_seen, 1);
    let mut count = CountRows::default();
    db.read_rows("spend", &ReadRowsRequest::default(), &mut count)
        .unwrap();
    assert_eq!(count.rows, 7);
    // The view's row key is its key column in ORDERED_CODE form.
    let keys = sql::query(&mut db, "SELECT _key FROM spend").unwrap();
    assert_eq!(keys.rows[0][0], Value::Bytes(b"c000".to_vec()));
}

#[test]
fn a_secondary_index_serves_a_query_the_key_design_cannot() {
    let mut db = orders();
    views::create_view(&mut db, "by_customer", BY_CUSTOMER).unwrap();
    // On the source, "orders of c004" is a full scan with a filter.
    let src = sql::query(
        &mut db,
        "SELECT _key, o['amount'] FROM orders WHERE o['customer'] = 'c004'",
    )
    .unwrap();
    assert_eq!(src.explain.access.shape(), ReadShape::FullScan);
    assert_eq!(src.explain.stats.rows_seen, 60);
    // On the index it is a prefix scan of just those rows.
    let idx = sql::query(
        &mut db,
        "SELECT order_id, amount FROM by_customer WHERE customer = 'c004'",
    )
    .unwrap();
    assert_eq!(idx.explain.access.shape(), ReadShape::SingleRange);
    assert_eq!(idx.explain.stats.rows_seen, idx.rows.len() as u64);
    let mut a: Vec<Vec<Value>> = src.rows.clone();
    a.sort_by(|x, y| x[0].total_cmp(&y[0]));
    assert_eq!(a, idx.rows);
    assert!(
        idx.explain
            .to_text()
            .contains("materialized view by_customer")
    );
    assert!(idx.explain.to_text().contains("view lag    caught up"));
    // Index views must carry the source key and take no DESC.
    let e = views::create_view(
        &mut db,
        "bad",
        "SELECT o['customer'] AS c FROM orders ORDER BY c",
    )
    .unwrap_err();
    assert!(e.message().contains("source row key"), "{e}");
}

#[test]
fn maintenance_is_asynchronous_and_its_lag_is_reported() {
    let mut db = orders();
    views::create_view(&mut db, "spend", SPEND).unwrap();
    let before = spend_rows(&mut db);
    db.set_now(T0 + SEC);
    put(&mut db, 1000, "c999", 5, "open");
    let st = views::status(&db, "spend").unwrap();
    assert_eq!(st.pending_rows, 1);
    assert!(!st.is_caught_up());
    // Not yet due: the view still shows the old data.
    db.tick(T0 + SEC + 500_000);
    let st = views::status(&db, "spend").unwrap();
    assert_eq!(st.lag_micros, 500_000);
    assert!(
        st.lag_text().contains("1 row pending, 0.5 s behind"),
        "{}",
        st.lag_text()
    );
    assert_eq!(spend_rows(&mut db), before);
    let e = sql::explain(&mut db, "SELECT * FROM spend").unwrap();
    assert!(e.to_text().contains("1 row pending"), "{}", e.to_text());
    // Due after the delay.
    db.tick(T0 + 2 * SEC);
    assert!(views::status(&db, "spend").unwrap().is_caught_up());
    assert_eq!(spend_rows(&mut db), expected_spend(&mut db));
}

/// A data load's bulk paths (the checked batch and the sorted import)
/// reach the views on their table as MutateRow does.
#[test]
fn bulk_writes_and_imports_reach_the_view() {
    let mut db = orders();
    views::create_view(&mut db, "spend", SPEND).unwrap();
    let entries = |from: u32, customer: &'static str| -> Vec<MutateRowsEntry<'static>> {
        (from..from + 3)
            .map(|i| MutateRowsEntry {
                row_key: format!("order#{i:04}").into_bytes().into(),
                mutations: vec![
                    Mutation::set_cell("o", b"customer", -1, customer.as_bytes()),
                    Mutation::set_cell("o", b"amount", -1, b"7"),
                    Mutation::set_cell("o", b"status", -1, b"open"),
                ],
            })
            .collect()
    };
    db.bulk_write("orders", &entries(3, "c100")).unwrap();
    db.bulk_import("orders", &entries(9000, "c200")).unwrap();
    assert_eq!(views::status(&db, "spend").unwrap().pending_rows, 6);
    db.tick(T0 + 2 * SEC);
    let spend = spend_rows(&mut db);
    assert_eq!(spend, expected_spend(&mut db));
    assert_eq!(spend["c100"].0, 3, "the bulk write's orders");
    assert_eq!(spend["c200"].0, 3, "the import's orders");
}

/// A tick paced by a deadline maintains views as a whole tick does; on
/// a simulated clock, the wall-clock variant leaves everything alone.
#[test]
fn a_deadline_paced_tick_maintains_views_too() {
    let mut db = orders();
    views::create_view(&mut db, "spend", SPEND).unwrap();
    put(&mut db, 1000, "c999", 5, "open");
    let (events, finished) = db.sync_wall_clock_until(T0 + 5 * SEC, 10.0, &mut || 0.0);
    assert!(events.is_empty() && finished, "the clock is simulated");
    assert!(!views::status(&db, "spend").unwrap().is_caught_up());
    let (_, finished) = db.tick_until(T0 + 5 * SEC, 10.0, &mut || 0.0);
    assert!(finished);
    assert!(views::status(&db, "spend").unwrap().is_caught_up());
    assert_eq!(spend_rows(&mut db), expected_spend(&mut db));
}

#[test]
fn throughput_limits_how_fast_a_view_catches_up() {
    let mut db = orders();
    views::create_view(&mut db, "by_customer", BY_CUSTOMER).unwrap();
    views::set_options(
        &mut db,
        "by_customer",
        ViewOptions {
            delay_micros: 0,
            rows_per_second: 10,
        },
    )
    .unwrap();
    db.tick(T0);
    for i in 100..150 {
        put(&mut db, i, "c100", 1, "open");
    }
    db.tick(T0 + SEC);
    let st = views::status(&db, "by_customer").unwrap();
    assert_eq!(st.pending_rows, 40);
    db.tick(T0 + 3 * SEC);
    assert_eq!(views::status(&db, "by_customer").unwrap().pending_rows, 20);
    let applied = views::catch_up(&mut db, Some("by_customer")).unwrap();
    assert_eq!(applied, 20);
    assert!(views::status(&db, "by_customer").unwrap().is_caught_up());
    assert_eq!(
        views::view_rows(&mut db, "by_customer").unwrap(),
        views::recompute(&mut db, "by_customer").unwrap()
    );
}

#[test]
fn deletes_overwrites_drops_and_gc_reach_the_view() {
    let mut db = orders();
    views::create_view(&mut db, "spend", SPEND).unwrap();
    views::create_view(&mut db, "by_customer", BY_CUSTOMER).unwrap();
    // Overwrite the largest order of c001 and delete its smallest.
    put(&mut db, 1, "c001", 1, "open");
    db.mutate_row("orders", b"order#0008", &[Mutation::DeleteFromRow])
        .unwrap();
    db.mutate_row(
        "orders",
        b"order#0015",
        &[Mutation::DeleteFromColumn {
            family_name: "o".into(),
            column_qualifier: b"status".as_slice().into(),
            time_range: None,
        }],
    )
    .unwrap();
    db.drop_row_range("orders", &DropTarget::Prefix(b"order#004".to_vec()))
        .unwrap();
    views::catch_up(&mut db, None).unwrap();
    assert_eq!(spend_rows(&mut db), expected_spend(&mut db));
    // An index row whose values are NULL reads back as NULL.
    db.mutate_row(
        "orders",
        b"order#0009",
        &[Mutation::DeleteFromColumn {
            family_name: "o".into(),
            column_qualifier: b"amount".as_slice().into(),
            time_range: None,
        }],
    )
    .unwrap();
    views::catch_up(&mut db, None).unwrap();
    let r = sql::query(
        &mut db,
        "SELECT amount FROM by_customer WHERE order_id = b'order#0009'",
    )
    .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Null]]);
    for v in ["spend", "by_customer"] {
        assert_eq!(
            views::view_rows(&mut db, v).unwrap(),
            views::recompute(&mut db, v).unwrap(),
            "{v}"
        );
    }
    // Garbage collection: a family whose cells expire.
    let mut db = orders();
    db.modify_column_families(
        "orders",
        &[FamilyChange::Create(
            "tmp".into(),
            ColumnFamily::with_gc(Some(GcRule::MaxAge(std::time::Duration::from_secs(60)))),
        )],
    )
    .unwrap();
    for i in 0..10u32 {
        db.mutate_row(
            "orders",
            format!("temp#{i}").as_bytes(),
            &[Mutation::set_cell("tmp", b"x", -1, b"1")],
        )
        .unwrap();
    }
    views::create_view(
        &mut db,
        "temps",
        "SELECT 'all' AS k, COUNT(*) AS n FROM orders WHERE tmp['x'] IS NOT NULL GROUP BY k",
    )
    .unwrap();
    let n = |db: &mut Instance| sql::query(db, "SELECT n FROM temps").unwrap().rows;
    assert_eq!(n(&mut db), vec![vec![Value::Int64(10)]]);
    db.set_now(T0 + 3_600 * SEC);
    db.compact(Some("orders")).unwrap();
    assert!(!views::status(&db, "temps").unwrap().is_caught_up());
    views::catch_up(&mut db, None).unwrap();
    assert_eq!(n(&mut db), Vec::<Vec<Value>>::new());
}

#[test]
fn views_survive_snapshots_and_guard_their_source() {
    let mut db = orders();
    views::create_view(&mut db, "spend", SPEND).unwrap();
    sql::execute(
        &mut db,
        "ALTER TABLE orders SET ROW KEY SCHEMA kind STRING, n INT64 DECIMAL(4) DELIMITED BY '#'",
    )
    .unwrap();
    let before = spend_rows(&mut db);
    let bytes = db.snapshot();
    let mut back = Instance::restore(&bytes).unwrap();
    assert_eq!(spend_rows(&mut back), before);
    assert!(rowkey_schema::row_key_schema(&back, "orders").is_some());
    assert_eq!(views::list_views(&back).len(), 1);
    // A snapshot without views or schemas (or traffic) is unchanged
    // (version 1); with them it is version 2, or 3 when the tables also
    // carry their traffic (loading `orders` wrote rows).
    let mut quiet = orders();
    quiet.clear_traffic(None).unwrap();
    assert_eq!(quiet.snapshot()[8], 1);
    assert_eq!(bytes[8], 3);
    db.clear_traffic(None).unwrap();
    assert_eq!(db.snapshot()[8], 2);
    // The source cannot go while a view reads it; names do not clash.
    let e = db.delete_table("orders").unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    let e = db
        .create_table(CreateTableRequest {
            table_id: "spend".into(),
            ..CreateTableRequest::default()
        })
        .unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists);
    let e = views::create_view(&mut db, "spend", SPEND).unwrap_err();
    assert_eq!(e.code(), Code::AlreadyExists);
    sql::execute(&mut db, "DROP MATERIALIZED VIEW spend").unwrap();
    let out = sql::execute(&mut db, "DROP MATERIALIZED VIEW IF EXISTS spend").unwrap();
    assert!(!out.changes_state());
    db.delete_table("orders").unwrap();
}

#[test]
fn family_and_schema_changes_recompile_views() {
    let mut db = orders();
    views::create_view(&mut db, "spend", SPEND).unwrap();
    // A new family sorts before "o": views compiled against the old list
    // must be compiled again.
    db.modify_column_families(
        "orders",
        &[FamilyChange::Create(
            "a".into(),
            ColumnFamily::with_gc(None),
        )],
    )
    .unwrap();
    assert!(views::status(&db, "spend").unwrap().rebuild_pending);
    views::catch_up(&mut db, None).unwrap();
    assert_eq!(spend_rows(&mut db), expected_spend(&mut db));
    // A view that uses a dropped family reports why it stopped.
    db.modify_column_families("orders", &[FamilyChange::Drop("o".into())])
        .unwrap();
    views::catch_up(&mut db, None).unwrap();
    let st = views::status(&db, "spend").unwrap();
    assert!(
        st.error
            .as_deref()
            .unwrap_or_default()
            .contains("no longer compiles")
    );
    assert!(!st.is_caught_up());
    // Once the family is back, the view compiles and follows again.
    db.modify_column_families(
        "orders",
        &[FamilyChange::Create(
            "o".into(),
            ColumnFamily::with_gc(None),
        )],
    )
    .unwrap();
    put(&mut db, 7, "c123", 9, "open");
    views::catch_up(&mut db, None).unwrap();
    let st = views::status(&db, "spend").unwrap();
    assert!(st.is_caught_up() && st.error.is_none(), "{st:?}");
    assert_eq!(spend_rows(&mut db), expected_spend(&mut db));
    assert_eq!(st.rows, 1);
}

#[test]
fn view_definitions_follow_bigtables_rules() {
    let mut db = orders();
    let bad = [
        ("SELECT o['customer'] AS c FROM orders", "needs GROUP BY"),
        (
            "SELECT _key AS k, COUNT(*) AS n FROM orders GROUP BY k ORDER BY k",
            "not both",
        ),
        (
            "SELECT * FROM orders GROUP BY _key",
            "SELECT * is not supported",
        ),
        (
            "SELECT _key AS k FROM orders ORDER BY k DESC",
            "DESC ordering is not supported",
        ),
        (
            "SELECT o['customer'] AS c, COUNT(*) AS n FROM orders GROUP BY c LIMIT 3",
            "LIMIT is not supported",
        ),
        (
            "SELECT o['customer'] AS c, COUNT(*) FROM orders GROUP BY c",
            "needs a name",
        ),
        (
            "SELECT o['customer'] AS c, o['amount'] AS a FROM orders GROUP BY c",
            "neither grouped nor aggregated",
        ),
        (
            "SELECT o['customer'] AS c, SUM(o['amount']) AS s FROM orders GROUP BY c",
            "No matching signature for aggregate function SUM for argument types: BYTES",
        ),
        (
            "SELECT _key AS k, o AS everything FROM orders ORDER BY k",
            "materialized view columns are scalar",
        ),
        (
            "SELECT _key AS k FROM orders(with_history => TRUE) ORDER BY k",
            "Temporal filters are not supported",
        ),
        (
            "SELECT o['customer'] AS c, COUNT(*) AS n FROM orders GROUP BY c, _key",
            "must appear in the SELECT list",
        ),
    ];
    for (q, want) in bad {
        let e = views::create_view(&mut db, "v", q).unwrap_err();
        assert!(e.message().contains(want), "{q}: {e}");
        assert_eq!(e.code(), Code::InvalidArgument, "{q}");
    }
    views::create_view(&mut db, "spend", SPEND).unwrap();
    let e = views::create_view(
        &mut db,
        "v2",
        "SELECT customer AS c, COUNT(*) AS n FROM spend GROUP BY c",
    )
    .unwrap_err();
    assert!(e.message().contains("not another view"), "{e}");
    // `'*' AS _key` gives a single-row view keyed by the literal, as in
    // Bigtable's COUNT(*) example.
    views::create_view(
        &mut db,
        "total",
        "SELECT '*' AS _key, COUNT(*) AS count FROM orders GROUP BY _key",
    )
    .unwrap();
    let r = sql::query(&mut db, "SELECT _key, count FROM total").unwrap();
    assert_eq!(
        r.rows,
        vec![vec![Value::Bytes(b"*".to_vec()), Value::Int64(60)]]
    );
    let show = sql::execute(&mut db, "SHOW MATERIALIZED VIEWS").unwrap();
    assert!(show.to_text().contains("caught up"), "{}", show.to_text());
}

#[cfg(not(target_arch = "wasm32"))]
mod property {
    use proptest::prelude::*;

    use super::*;

    #[derive(Clone, Debug)]
    enum Op {
        Put {
            id: u8,
            customer: u8,
            amount: i16,
            status: bool,
        },
        DeleteRow {
            id: u8,
        },
        DeleteAmount {
            id: u8,
        },
        Drop {
            digit: u8,
        },
        Tick {
            millis: u16,
        },
        CatchUp,
        Compact,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u8..40, 0u8..6, -50i16..200, any::<bool>()).prop_map(|(id, customer, amount, status)| Op::Put { id, customer, amount, status }),
            2 => (0u8..40).prop_map(|id| Op::DeleteRow { id }),
            1 => (0u8..40).prop_map(|id| Op::DeleteAmount { id }),
            1 => (0u8..4).prop_map(|digit| Op::Drop { digit }),
            2 => (0u16..3000).prop_map(|millis| Op::Tick { millis }),
            1 => Just(Op::CatchUp),
            1 => Just(Op::Compact),
        ]
    }

    fn apply(db: &mut Instance, op: &Op) {
        match op {
            Op::Put {
                id,
                customer,
                amount,
                status,
            } => {
                let key = format!("r{id:02}");
                let c = format!("c{customer}");
                let a = amount.to_string();
                let mut muts = vec![
                    Mutation::set_cell("o", b"customer", -1, c.as_bytes()),
                    Mutation::set_cell("o", b"amount", -1, a.as_bytes()),
                ];
                if *status {
                    muts.push(Mutation::set_cell("o", b"status", -1, b"open"));
                }
                db.mutate_row("src", key.as_bytes(), &muts).unwrap();
            }
            Op::DeleteRow { id } => {
                db.mutate_row(
                    "src",
                    format!("r{id:02}").as_bytes(),
                    &[Mutation::DeleteFromRow],
                )
                .unwrap();
            }
            Op::DeleteAmount { id } => {
                db.mutate_row(
                    "src",
                    format!("r{id:02}").as_bytes(),
                    &[Mutation::DeleteFromColumn {
                        family_name: "o".into(),
                        column_qualifier: b"amount".as_slice().into(),
                        time_range: None,
                    }],
                )
                .unwrap();
            }
            Op::Drop { digit } => {
                db.drop_row_range("src", &DropTarget::Prefix(format!("r{digit}").into_bytes()))
                    .unwrap();
            }
            Op::Tick { millis } => {
                let now = db.now_micros() + i64::from(*millis) * 1000;
                db.tick(now);
            }
            Op::CatchUp => {
                views::catch_up(db, None).unwrap();
            }
            Op::Compact => {
                db.compact(Some("src")).unwrap();
            }
        }
    }

    fn fresh() -> Instance {
        let mut db = Instance::default();
        db.set_clock_simulated(true);
        db.set_now(T0);
        db.create_table(
            CreateTableRequest::with_families(
                "src",
                [("o", ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(2))))],
            )
            .split_at(["r2"]),
        )
        .unwrap();
        db
    }

    const AGG: &str = "SELECT o['customer'] AS customer, COUNT(*) AS n, SUM(CAST(CAST(o['amount'] AS STRING) AS INT64)) AS total, \
        MIN(SAFE_CAST(SAFE_CONVERT_BYTES_TO_STRING(o['amount']) AS INT64)) AS lo, MAX(o['amount']) AS hi, \
        AVG(SAFE_CAST(SAFE_CONVERT_BYTES_TO_STRING(o['amount']) AS FLOAT64)) AS mean, ANY_VALUE(o['status']) AS st, COUNT(o['status']) AS ns \
        FROM src WHERE o['customer'] IS NOT NULL GROUP BY customer";
    const IDX: &str = "SELECT o['customer'] AS customer, _key AS id, o['amount'] AS amount FROM src ORDER BY customer, id";

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        #[test]
        fn a_caught_up_view_equals_its_recomputation(
            before in proptest::collection::vec(op(), 0..20),
            after in proptest::collection::vec(op(), 1..60),
            delay in 0i64..2_000_000,
            rps in 0u64..50,
        ) {
            let mut db = fresh();
            for o in &before {
                apply(&mut db, o);
            }
            for (name, q) in [("agg", AGG), ("idx", IDX)] {
                views::create_view(&mut db, name, q).unwrap();
                views::set_options(&mut db, name, ViewOptions { delay_micros: delay, rows_per_second: rps }).unwrap();
            }
            for o in &after {
                apply(&mut db, o);
            }
            views::catch_up(&mut db, None).unwrap();
            for name in ["agg", "idx"] {
                let st = views::status(&db, name).unwrap();
                prop_assert!(st.is_caught_up());
                prop_assert_eq!(st.row_errors, 0, "{:?}", st.error);
                prop_assert_eq!(
                    views::view_rows(&mut db, name).unwrap(),
                    views::recompute(&mut db, name).unwrap(),
                    "{}", name
                );
            }
            // And the aggregation agrees with counting the source directly.
            let mut rows = CollectRows::default();
            db.read_rows("src", &ReadRowsRequest { filter: Some(RowFilter::CellsPerColumnLimit(1)), ..ReadRowsRequest::default() }, &mut rows).unwrap();
            let mut counts: BTreeMap<Vec<u8>, (i64, i64)> = BTreeMap::new();
            for r in &rows.rows {
                let get = |q: &[u8]| r.cells.iter().find(|c| c.qualifier == q).map(|c| c.value.clone());
                if let Some(c) = get(b"customer") {
                    let e = counts.entry(c).or_default();
                    e.0 += 1;
                    if let Some(a) = get(b"amount") {
                        e.1 += String::from_utf8(a).unwrap().parse::<i64>().unwrap();
                    }
                }
            }
            let got = sql::query(&mut db, "SELECT customer, n, total FROM agg").unwrap();
            let mut seen: BTreeMap<Vec<u8>, (i64, i64)> = BTreeMap::new();
            for row in got.rows {
                let (Value::Bytes(c), Value::Int64(n)) = (&row[0], &row[1]) else { panic!("{row:?}") };
                let total = match &row[2] { Value::Int64(t) => *t, Value::Null => 0, other => panic!("{other:?}") };
                seen.insert(c.clone(), (*n, total));
            }
            prop_assert_eq!(seen, counts);
            // The index holds one row per source row with a customer.
            let n = sql::query(&mut db, "SELECT id FROM idx").unwrap().rows.len();
            prop_assert_eq!(n, rows.rows.iter().filter(|r| r.cells.iter().any(|c| c.qualifier == b"customer")).count());
        }
    }
}
