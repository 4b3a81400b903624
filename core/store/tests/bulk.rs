//! The bulk write path against MutateRows: the same batches written both
//! ways leave the same rows, statistics, change stream and live traffic,
//! and the same tablets as the rows written one call at a time in key
//! order (the order the bulk path writes them in); a bad entry anywhere
//! refuses the whole batch and leaves the table as it was.

#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use tabletop_store::*;

mod bulk_fixture;
use bulk_fixture::{Row, T0, cell, changes, instance, records, set_cell};

fn entries(rows: &[Row]) -> Vec<MutateRowsEntry<'static>> {
    rows.iter()
        .map(|(k, cells)| MutateRowsEntry {
            row_key: format!("k{k}").into_bytes().into(),
            mutations: cells.iter().map(set_cell).collect(),
        })
        .collect()
}

/// Every row and the read's statistics, read from a copy so the read
/// adds nothing to the instance's own traffic.
fn all_rows(db: &Instance) -> (Vec<OwnedRow>, ReadStats) {
    let mut copy = db.clone();
    let mut rows = CollectRows::default();
    let stats = copy
        .read_rows("t", &ReadRowsRequest::default(), &mut rows)
        .expect("read");
    (rows.rows, stats)
}

/// A readable account of the first difference between two row lists.
fn first_difference(a: &[OwnedRow], b: &[OwnedRow]) -> String {
    let show = |r: &OwnedRow| {
        format!(
            "{} {:?}",
            String::from_utf8_lossy(&r.key),
            r.cells
                .iter()
                .map(|c| (
                    c.family.clone(),
                    c.timestamp_micros,
                    c.value.len(),
                    c.gc_eligible
                ))
                .collect::<Vec<_>>()
        )
    };
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("row {i}: {} against {}", show(&a[i]), show(&b[i])),
        None => format!("{} rows against {}", a.len(), b.len()),
    }
}

/// The tablets without their heap sizes (buffer capacities depend on the
/// order writes grew them in, not on what they hold).
fn layout(db: &Instance) -> Vec<TabletInfo> {
    db.tablets("t")
        .expect("tablets")
        .into_iter()
        .map(|t| TabletInfo { heap_bytes: 0, ..t })
        .collect()
}

fn sorted(batch: &[MutateRowsEntry<'static>]) -> Vec<MutateRowsEntry<'static>> {
    let mut s = batch.to_vec();
    s.sort_by(|a, b| a.row_key.cmp(&b.row_key));
    s
}

fn batches() -> impl Strategy<Value = Vec<Vec<Row>>> {
    let row = (0u16..60, prop::collection::vec(cell(), 1..4));
    prop::collection::vec(prop::collection::vec(row, 1..40), 1..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `plain` takes each batch as it comes, `in_order` sorted by key (the
    /// order the bulk path writes in, so its memtables flush and its
    /// tablets split at the same rows), `bulk` through the bulk path.
    /// GC is lazy, so which cells a read still sees depends on where
    /// compactions fell: rows, tablets and what GC collected are compared
    /// with `in_order`; the traffic and the change stream's user records
    /// keep arrival order, and are compared with `plain`.
    #[test]
    fn bulk_writes_leave_what_mutate_rows_leaves(batches in batches()) {
        let mut plain = instance(b"k5");
        let mut in_order = instance(b"k5");
        let mut bulk = instance(b"k5");
        for (n, rows) in batches.iter().enumerate() {
            let batch = entries(rows);
            for r in plain.mutate_rows("t", &batch).expect("mutate rows") {
                r.expect("entry");
            }
            for r in in_order.mutate_rows("t", &sorted(&batch)).expect("mutate rows") {
                r.expect("entry");
            }
            bulk.bulk_write("t", &batch).expect("bulk write");
            // Time moves and the engine works between some batches.
            let now = T0 + (n as i64 + 1) * 3_000;
            if n % 2 == 1 {
                plain.tick(now);
                prop_assert_eq!(bulk.tick(now), in_order.tick(now));
            } else {
                for db in [&mut plain, &mut in_order, &mut bulk] {
                    db.set_now(now);
                }
            }
            let (got, want) = (all_rows(&bulk), all_rows(&in_order));
            prop_assert!(got == want, "{} ({:?} against {:?})", first_difference(&got.0, &want.0), got.1, want.1);
            prop_assert_eq!(layout(&bulk), layout(&in_order));
            prop_assert_eq!(bulk.traffic("t").unwrap(), plain.traffic("t").unwrap());
            prop_assert_eq!(records(&bulk, ChangeKind::User), records(&plain, ChangeKind::User));
            prop_assert_eq!(
                records(&bulk, ChangeKind::GarbageCollection),
                records(&in_order, ChangeKind::GarbageCollection)
            );
        }
        let end = T0 + 1_000_000;
        plain.tick(end);
        prop_assert_eq!(bulk.tick(end), in_order.tick(end));
        let (got, want) = (all_rows(&bulk), all_rows(&in_order));
        prop_assert!(got == want, "{}", first_difference(&got.0, &want.0));
        prop_assert_eq!(layout(&bulk), layout(&in_order));
    }
}

#[test]
fn one_bad_entry_refuses_the_whole_batch_and_writes_nothing() {
    let good = entries(&[(1, vec![(true, 0, 1, 5)]), (7, vec![(false, 1, 2, 5)])]);
    let mut db = instance(b"k5");
    db.bulk_write("t", &good).expect("good batch");
    let before = (all_rows(&db).0, layout(&db), changes(&db));
    let traffic = db.traffic("t").unwrap().clone();
    let bad_entries: Vec<(MutateRowsEntry<'static>, &str)> = vec![
        (
            MutateRowsEntry {
                row_key: b"k3".to_vec().into(),
                mutations: vec![Mutation::set_cell(
                    "nope",
                    b"q".as_slice(),
                    1000,
                    b"v".as_slice(),
                )],
            },
            "does not exist in this table",
        ),
        (
            MutateRowsEntry {
                row_key: b"k3".to_vec().into(),
                mutations: vec![Mutation::DeleteFromRow],
            },
            "only SetCell",
        ),
        (
            MutateRowsEntry {
                row_key: Vec::new().into(),
                mutations: vec![Mutation::set_cell(
                    "a",
                    b"q".as_slice(),
                    1000,
                    b"v".as_slice(),
                )],
            },
            "row key",
        ),
        (
            MutateRowsEntry {
                row_key: b"k3".to_vec().into(),
                mutations: vec![Mutation::set_cell(
                    "sum",
                    b"q".as_slice(),
                    1000,
                    b"v".as_slice(),
                )],
            },
            "aggregate",
        ),
        (
            MutateRowsEntry {
                row_key: b"k3".to_vec().into(),
                mutations: vec![Mutation::set_cell(
                    "a",
                    b"q".as_slice(),
                    1234,
                    b"v".as_slice(),
                )],
            },
            "1234",
        ),
    ];
    for (bad, why) in bad_entries {
        let mut batch = entries(&[(2, vec![(true, 0, 3, 5)]), (60, vec![(false, 0, 3, 5)])]);
        batch.insert(1, bad);
        let e = db.bulk_write("t", &batch).expect_err("refused");
        // The code MutateRows would give the entry (NOT_FOUND for a
        // missing family, INVALID_ARGUMENT for the rest).
        assert!(
            matches!(e.code(), Code::InvalidArgument | Code::NotFound),
            "{e}"
        );
        assert!(e.message().contains("entry 1"), "{e}");
        assert!(e.message().contains(why), "{e}");
        assert_eq!(
            (all_rows(&db).0, layout(&db), changes(&db)),
            before,
            "nothing written"
        );
        assert_eq!(db.traffic("t").unwrap(), &traffic);
    }
    let e = db.bulk_write("t", &[]).expect_err("empty");
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = db.bulk_write("missing", &good).expect_err("no table");
    assert_eq!(e.code(), Code::NotFound);
}

#[test]
fn a_traced_bulk_write_records_what_mutate_rows_records() {
    let batch = entries(&[
        (9, vec![(true, 0, 1, 5), (false, 1, 1, 3)]),
        (2, vec![(true, 0, 1, 5)]),
        (9, vec![(true, 0, 2, 7)]),
    ]);
    let mut plain = instance(b"k5");
    let mut bulk = instance(b"k5");
    let mut a = Trace::new(TraceOptions {
        written_keys: true,
        returned_keys: 0,
    });
    let mut b = a.clone();
    plain
        .mutate_rows_traced("t", &batch, Some(&mut a))
        .expect("mutate rows");
    bulk.bulk_write_traced("t", &batch, Some(&mut b))
        .expect("bulk write");
    assert_eq!(a, b);
}

#[test]
fn under_the_emulators_fidelity_its_checks_come_first_and_refuse_the_batch() {
    let mut plain = instance(b"k5");
    let mut bulk = instance(b"k5");
    for db in [&mut plain, &mut bulk] {
        db.switch_fidelity(Fidelity::Emulator).expect("switch");
    }
    let good = entries(&[
        (4, vec![(true, 0, 1, 5), (false, 2, -1, 3)]),
        (1, vec![(true, 1, 2, 8)]),
    ]);
    for r in plain.mutate_rows("t", &good).expect("mutate rows") {
        r.expect("entry");
    }
    bulk.bulk_write("t", &good).expect("bulk write");
    assert_eq!(all_rows(&bulk), all_rows(&plain));
    let before = all_rows(&bulk).0;
    let mut bad = entries(&[(8, vec![(true, 0, 1, 5)])]);
    bad.push(MutateRowsEntry {
        row_key: b"k9".to_vec().into(),
        mutations: vec![Mutation::set_cell(
            "a",
            b"q".as_slice(),
            1234,
            b"v".as_slice(),
        )],
    });
    let e = bulk.bulk_write("t", &bad).expect_err("refused");
    assert_eq!(e.code(), Code::Unknown, "{e}");
    assert!(
        e.message().contains("entry 1") && e.message().contains("invalid timestamp 1234"),
        "{e}"
    );
    assert_eq!(all_rows(&bulk).0, before, "nothing written");
}
