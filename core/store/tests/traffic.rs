//! Traffic: every data operation adds to its table's traffic on the
//! instance clock, whatever path it took, and the record survives a
//! snapshot.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_store::traffic::{TRAFFIC_BUCKET_MICROS, TrafficCounts};
use tabletop_store::*;

const T0: i64 = 1_588_291_200_000_000;

fn db() -> Instance {
    let mut db = Instance::default();
    db.set_now(T0);
    db.create_table(CreateTableRequest::with_families(
        "t",
        [("cf", ColumnFamily::default())],
    ))
    .unwrap();
    db
}

fn put(db: &mut Instance, key: &str) {
    db.mutate_row(
        "t",
        key.as_bytes(),
        &[Mutation::set_cell("cf", b"q", 1000, b"value")],
    )
    .unwrap();
}

fn totals(db: &Instance) -> TrafficCounts {
    let mut t = TrafficCounts::default();
    for b in db.traffic("t").unwrap().buckets() {
        t.add(&b.totals());
    }
    t
}

#[test]
fn every_data_operation_counts() {
    let mut db = db();
    put(&mut db, "a");
    let entries = [MutateRowsEntry {
        row_key: b"b".as_slice().into(),
        mutations: vec![Mutation::set_cell("cf", b"q", 1000, b"v")],
    }];
    db.mutate_rows("t", &entries).unwrap();
    assert_eq!(totals(&db).write_rows, 2.0);
    let mut rows = CountRows::default();
    db.read_rows(
        "t",
        &ReadRowsRequest::rows(RowSet::single(b"a".to_vec())),
        &mut rows,
    )
    .unwrap();
    db.read_rows("t", &ReadRowsRequest::default(), &mut rows)
        .unwrap();
    let t = totals(&db);
    assert_eq!(t.read_rows, 3.0, "1 point row + 2 scanned rows");
    assert_eq!((t.point_ops, t.scans), (3.0, 1.0));
    db.check_and_mutate_row(
        "t",
        &CheckAndMutateRowRequest {
            row_key: b"a".to_vec(),
            predicate_filter: None,
            true_mutations: vec![Mutation::set_cell("cf", b"q", 2000, b"w")],
            false_mutations: vec![],
        },
    )
    .unwrap();
    db.read_modify_write_row(
        "t",
        &ReadModifyWriteRowRequest {
            row_key: b"c".to_vec(),
            rules: vec![ReadModifyWriteRule {
                family_name: "cf".into(),
                column_qualifier: b"n".to_vec(),
                rule: ReadModifyWriteOp::IncrementAmount(1),
            }],
        },
    )
    .unwrap();
    assert_eq!(totals(&db).write_rows, 4.0);
    db.sample_row_keys_traced("t", None).unwrap();
    db.drop_row_range("t", &DropTarget::Prefix(b"c".to_vec()))
        .unwrap();
    assert_eq!(totals(&db).scans, 3.0);
    // Looking at the layout is not traffic.
    db.sample_row_keys("t").unwrap();
    assert_eq!(totals(&db).scans, 3.0);
}

#[test]
fn recording_can_be_switched_off_and_failures_do_not_count() {
    let mut db = db();
    db.set_traffic_recording(false);
    put(&mut db, "a");
    assert!(db.traffic("t").unwrap().is_empty());
    db.set_traffic_recording(true);
    let bad = db.mutate_row("t", b"a", &[Mutation::set_cell("nope", b"q", 1, b"v")]);
    assert!(bad.is_err());
    assert!(db.traffic("t").unwrap().is_empty());
    assert!(db.traffic("missing").is_err());
}

#[test]
fn buckets_follow_the_instance_clock() {
    let mut db = db();
    for i in 0..5 {
        db.set_now(T0 + i * TRAFFIC_BUCKET_MICROS);
        put(&mut db, &format!("k{i}"));
    }
    let buckets: Vec<_> = db.traffic("t").unwrap().buckets().collect();
    assert_eq!(buckets.len(), 5);
    for (i, b) in buckets.iter().enumerate() {
        assert_eq!(b.spans()[0].first_key(), format!("k{i}").as_bytes());
    }
}

#[test]
fn traffic_survives_a_snapshot_and_old_snapshots_load_without() {
    let mut db = db();
    let v1 = db.snapshot();
    assert_eq!(v1[8], 1, "no traffic yet: version 1, as before");
    for i in 0..3 {
        db.set_now(T0 + i * TRAFFIC_BUCKET_MICROS);
        put(&mut db, &format!("k{i}"));
        let mut rows = CountRows::default();
        let req = ReadRowsRequest::rows(RowSet::range(RowRange::prefix(b"k".to_vec())));
        db.read_rows("t", &req, &mut rows).unwrap();
    }
    let bytes = db.snapshot();
    assert_eq!(bytes[8], 3);
    let back = Instance::restore(&bytes).unwrap();
    let a: Vec<_> = db
        .traffic("t")
        .unwrap()
        .buckets()
        .map(|b| (b.start_micros, b.spans()))
        .collect();
    let b: Vec<_> = back
        .traffic("t")
        .unwrap()
        .buckets()
        .map(|b| (b.start_micros, b.spans()))
        .collect();
    assert_eq!(a, b);
    let old = Instance::restore(&v1).unwrap();
    assert!(old.traffic("t").unwrap().is_empty());
    // A corrupted traffic block is refused, not half-loaded.
    let mut cut = bytes.clone();
    let n = cut.len();
    cut.truncate(n - 12);
    assert!(Instance::restore(&cut).is_err());
}
