//! The sorted bulk import against the bulk write (itself checked against
//! MutateRows in tests/bulk.rs): the same batches, imported or written,
//! leave the same rows, read statistics, traffic, change stream and what
//! GC collects; the import's tablets cover the table in order and, where
//! a load appends into a fresh table, come out compacted and cut at the
//! split threshold. A bad entry refuses the whole batch, nothing written.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

use proptest::prelude::*;
use tabletop_store::*;

mod bulk_fixture;
use bulk_fixture::{Row, SPLIT_BYTES, T0, cell, changes, instance, records, set_cell};

/// One batch: whether its keys lie past every earlier batch's (a load
/// appending in key order), and its rows.
type Batch = (bool, Vec<Row>);

/// The batches' entries: an appending batch's keys start past the keys
/// of every batch before it; the others fall among the first thousand.
fn entries(batches: &[Batch]) -> Vec<Vec<MutateRowsEntry<'static>>> {
    batches
        .iter()
        .enumerate()
        .map(|(n, (appends, rows))| {
            let base = if *appends { 1_000 + 100 * n } else { 0 };
            rows.iter()
                .map(|(k, cells)| MutateRowsEntry {
                    row_key: format!("k{:04}", base + usize::from(*k))
                        .into_bytes()
                        .into(),
                    mutations: cells.iter().map(set_cell).collect(),
                })
                .collect()
        })
        .collect()
}

/// Every row and the read's statistics (without the tablets it visited,
/// whose ids differ with the layout), read from a copy so the read adds
/// nothing to the instance's own traffic.
fn all_rows(db: &Instance) -> (Vec<OwnedRow>, ReadStats) {
    let mut copy = db.clone();
    let mut rows = CollectRows::default();
    let mut stats = copy
        .read_rows("t", &ReadRowsRequest::default(), &mut rows)
        .expect("read");
    stats.tablets.clear();
    (rows.rows, stats)
}

/// The rows without the cells GC may already have collected (which cells
/// a read still sees depends on when compactions ran).
fn uncollectable(rows: Vec<OwnedRow>) -> Vec<OwnedRow> {
    rows.into_iter()
        .filter_map(|mut r| {
            r.cells.retain(|c| !c.gc_eligible);
            (!r.cells.is_empty()).then_some(r)
        })
        .collect()
}

/// Every cell GC has collected so far, as `(row, deletion)`, whenever it
/// was collected.
fn collected(db: &Instance) -> BTreeSet<(Vec<u8>, String)> {
    changes(db)
        .records
        .into_iter()
        .filter(|r| r.kind == ChangeKind::GarbageCollection)
        .flat_map(|r| {
            let key = r.row_key;
            r.mutations
                .into_iter()
                .map(move |m| (key.clone(), format!("{m:?}")))
        })
        .collect()
}

/// Checks that the tablets cover the key space once, in order.
fn check_cover(db: &Instance) -> Result<(), TestCaseError> {
    let tablets = db.tablets("t").expect("tablets");
    prop_assert!(tablets[0].start_key.is_empty());
    prop_assert!(tablets.last().expect("a tablet").end_key.is_none());
    for w in tablets.windows(2) {
        prop_assert_eq!(w[0].end_key.as_deref(), Some(w[1].start_key.as_slice()));
        prop_assert!(w[0].start_key < w[1].start_key);
    }
    Ok(())
}

fn describe(a: &[OwnedRow], b: &[OwnedRow]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("row {i}: {:?} against {:?}", a[i], b[i]),
        None => format!("{} rows against {}", a.len(), b.len()),
    }
}

fn batches() -> impl Strategy<Value = Vec<Batch>> {
    let row = (0u16..60, prop::collection::vec(cell(), 1..4));
    let batch = (prop::bool::weighted(0.6), prop::collection::vec(row, 1..40));
    prop::collection::vec(batch, 1..12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// With no tick (time moves, but nothing compacts with GC), the two
    /// paths leave the very same reads and statistics after every batch.
    #[test]
    fn imports_leave_what_bulk_writes_leave(batches in batches()) {
        let mut written = instance(b"k0500");
        let mut imported = instance(b"k0500");
        for (n, batch) in entries(&batches).iter().enumerate() {
            written.bulk_write("t", batch).expect("bulk write");
            imported.bulk_import("t", batch).expect("import");
            for db in [&mut written, &mut imported] {
                db.set_now(T0 + (n as i64 + 1) * 3_000);
            }
            let (got, want) = (all_rows(&imported), all_rows(&written));
            prop_assert!(got == want, "{} ({:?} against {:?})", describe(&got.0, &want.0), got.1, want.1);
            prop_assert_eq!(imported.traffic("t").unwrap(), written.traffic("t").unwrap());
            prop_assert_eq!(records(&imported, ChangeKind::User), records(&written, ChangeKind::User));
            check_cover(&imported)?;
        }
    }

    /// With ticks between batches, GC runs at different moments on the two
    /// paths: what neither may have collected reads the same after every
    /// batch, and once both compact everything, all of it does, and GC
    /// has collected the same cells.
    #[test]
    fn with_ticks_imports_collect_what_bulk_writes_collect(batches in batches()) {
        let mut written = instance(b"k0500");
        let mut imported = instance(b"k0500");
        for (n, batch) in entries(&batches).iter().enumerate() {
            written.bulk_write("t", batch).expect("bulk write");
            imported.bulk_import("t", batch).expect("import");
            let now = T0 + (n as i64 + 1) * 3_000;
            for db in [&mut written, &mut imported] {
                if n % 2 == 1 {
                    db.tick(now);
                } else {
                    db.set_now(now);
                }
            }
            let got = uncollectable(all_rows(&imported).0);
            let want = uncollectable(all_rows(&written).0);
            prop_assert!(got == want, "{}", describe(&got, &want));
            prop_assert_eq!(imported.traffic("t").unwrap(), written.traffic("t").unwrap());
            prop_assert_eq!(records(&imported, ChangeKind::User), records(&written, ChangeKind::User));
            check_cover(&imported)?;
        }
        let end = T0 + 1_000_000;
        for db in [&mut written, &mut imported] {
            db.tick(end);
            db.compact(Some("t")).expect("compact");
        }
        let (got, want) = (all_rows(&imported), all_rows(&written));
        prop_assert!(got == want, "{}", describe(&got.0, &want.0));
        prop_assert_eq!(collected(&imported), collected(&written));
        check_cover(&imported)?;
        // Compacted, each tablet holds its rows in one run; together they
        // are every row, once.
        for db in [&imported, &written] {
            let held: u64 = db.tablets("t").unwrap().iter().flat_map(|t| &t.runs).map(|r| r.rows).sum();
            prop_assert_eq!(held, got.0.len() as u64);
        }
    }
}

/// `n` rows of about 60 bytes from key number `from`, in key order.
fn rows_from(from: usize, n: usize) -> Vec<MutateRowsEntry<'static>> {
    (from..from + n)
        .map(|k| MutateRowsEntry {
            row_key: format!("k{k:06}").into_bytes().into(),
            mutations: vec![
                Mutation::set_cell("a", b"q".as_slice(), 1000, b"0123456789".as_slice())
                    .into_owned(),
                Mutation::set_cell("b", b"r".as_slice(), 1000, b"x".as_slice()).into_owned(),
            ],
        })
        .collect()
}

#[test]
fn a_load_in_key_order_comes_out_compacted_and_cut() {
    let mut db = instance(b"k0500");
    let rows = 3_000;
    for chunk in 0..rows / 200 {
        db.bulk_import("t", &rows_from(chunk * 200, 200))
            .expect("import");
    }
    let tablets = db.tablets("t").expect("tablets");
    assert!(tablets.len() > 20, "{} tablets", tablets.len());
    for t in &tablets {
        assert_eq!(t.memtable_cells, 0, "nothing went through a memtable");
        assert!(t.runs.len() <= 1, "one run at most: {:?}", t.runs);
        assert!(t.bytes <= SPLIT_BYTES, "{} bytes", t.bytes);
    }
    let held: u64 = tablets.iter().flat_map(|t| &t.runs).map(|r| r.rows).sum();
    assert_eq!(held, rows as u64);
    // The splits are reported at the next tick, which has nothing else to do.
    let events = db.tick(T0 + 1);
    assert!(
        events
            .iter()
            .all(|e| matches!(e, EngineEvent::Split { .. })),
        "{events:?}"
    );
    assert!(!events.is_empty());
    assert_eq!(db.tablets("t").expect("tablets"), tablets);
}

#[test]
fn one_bad_entry_refuses_the_whole_import_and_writes_nothing() {
    let mut db = instance(b"k0500");
    db.bulk_import("t", &rows_from(0, 50)).expect("good batch");
    let before = (all_rows(&db).0, db.tablets("t").unwrap(), changes(&db));
    let traffic = db.traffic("t").unwrap().clone();
    let bad_entries: Vec<(Mutation<'static>, &str)> = vec![
        (
            Mutation::set_cell("nope", b"q".as_slice(), 1000, b"v".as_slice()).into_owned(),
            "does not exist in this table",
        ),
        (Mutation::DeleteFromRow, "only SetCell"),
        (
            Mutation::set_cell("sum", b"q".as_slice(), 1000, b"v".as_slice()).into_owned(),
            "aggregate",
        ),
        (
            Mutation::set_cell("a", b"q".as_slice(), 1234, b"v".as_slice()).into_owned(),
            "1234",
        ),
    ];
    for (bad, why) in bad_entries {
        let mut batch = rows_from(60, 3);
        batch[1].mutations.push(bad);
        let e = db.bulk_import("t", &batch).expect_err("refused");
        assert!(
            matches!(e.code(), Code::InvalidArgument | Code::NotFound),
            "{e}"
        );
        assert!(e.message().contains("entry 1"), "{e}");
        assert!(e.message().contains(why), "{e}");
        assert_eq!(
            (all_rows(&db).0, db.tablets("t").unwrap(), changes(&db)),
            before,
            "nothing written"
        );
        assert_eq!(db.traffic("t").unwrap(), &traffic);
    }
    let mut empty_key = rows_from(70, 2);
    empty_key[1].row_key = Vec::new().into();
    let e = db.bulk_import("t", &empty_key).expect_err("empty key");
    assert!(e.message().contains("entry 1"), "{e}");
    let e = db.bulk_import("t", &[]).expect_err("empty");
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = db
        .bulk_import("missing", &rows_from(0, 1))
        .expect_err("no table");
    assert_eq!(e.code(), Code::NotFound);
}

#[test]
fn a_traced_import_records_what_mutate_rows_records() {
    let mut batch = rows_from(10, 3);
    batch.extend(rows_from(5, 2));
    batch.extend(rows_from(11, 1));
    let mut plain = instance(b"k0500");
    let mut imported = instance(b"k0500");
    let mut a = Trace::new(TraceOptions {
        written_keys: true,
        returned_keys: 0,
    });
    let mut b = a.clone();
    plain
        .mutate_rows_traced("t", &batch, Some(&mut a))
        .expect("mutate rows");
    imported
        .bulk_import_traced("t", &batch, Some(&mut b))
        .expect("import");
    assert_eq!(a, b);
    assert_eq!(all_rows(&imported), all_rows(&plain));
}
