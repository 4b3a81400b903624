//! The live Key Visualizer built in steps ([`LiveBuild`]): however small
//! the slices the table is read in, the finished map is the one a single
//! [`LiveKeyViz::build`] gives; each step reads about its budget; traffic
//! recorded while the build is under way is on the finished map; a table
//! dropped half way is an error, not a panic.

mod common;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::keyviz::{BucketMode, LiveBuild, LiveKeyViz, LiveOptions, LiveReport};
use tabletop_sql::Instance;
use tabletop_store::{CountRows, MutateRowsEntry, Mutation, ReadRowsRequest, RowRange, RowSet};

/// An instance with table `t` split at `splits`, its clock fixed.
fn table(splits: &[&str]) -> Instance {
    common::split_table(splits)
}

/// Writes row `key` with `cells` cells of `len`-byte values.
fn put(db: &mut Instance, key: &[u8], cells: usize, len: usize) {
    let value = vec![b'v'; len];
    let muts: Vec<Mutation<'_>> = (0..cells)
        .map(|i| Mutation::set_cell("cf", format!("q{i}").as_bytes(), 1000, &value).into_owned())
        .collect();
    db.mutate_row("t", key, &muts).unwrap();
}

/// Reads the rows under `prefix` (recorded as traffic).
fn scan(db: &mut Instance, prefix: &str) {
    let req = ReadRowsRequest::rows(RowSet::range(RowRange::prefix(prefix)));
    db.read_rows("t", &req, &mut CountRows::default()).unwrap();
}

/// The whole report, with every metric's heatmap.
fn report(live: &LiveKeyViz) -> LiveReport {
    live.report(Some((&[], BucketMode::EqualKeys, 64)))
}

/// Runs a build of `t` in steps of `budget` cells; returns the map and
/// the number of steps that read rows.
fn stepped(db: &mut Instance, budget: u64) -> (LiveKeyViz, usize) {
    let mut build = LiveBuild::new("t", &LiveOptions::default());
    let mut reads = 0;
    loop {
        let before = build.cells_read();
        if let Some(live) = build.step(db, budget).unwrap() {
            return (live, reads);
        }
        reads += 1;
        assert!(reads < 1_000_000, "the build ends");
        let read = build.cells_read() - before;
        assert!(
            build.has_read_all() || read >= budget,
            "a step that stops early has read its budget ({read} < {budget})"
        );
    }
}

/// Asserts that building `t` in steps of `budget` cells gives the map a
/// single build gives.
fn assert_same_map(db: &mut Instance, budget: u64) {
    let (live, _) = stepped(db, budget);
    let once = LiveKeyViz::build(db, "t", &LiveOptions::default()).unwrap();
    assert_eq!(live.axis().len(), once.axis().len());
    for i in 0..once.axis().len() {
        assert_eq!(live.axis().start(i), once.axis().start(i), "anchor {i}");
    }
    assert_eq!(report(&live), report(&once), "budget {budget}");
}

#[test]
fn steps_read_about_their_budget_and_end_with_the_same_map() {
    let mut db = table(&["m"]);
    for i in 0..300u32 {
        put(&mut db, format!("k{i:04}").as_bytes(), 3, 10);
    }
    scan(&mut db, "k01");
    // 900 cells in steps of 30 (ten rows): 30 steps read rows, and maybe
    // one more that finds none left.
    let (_, reads) = stepped(&mut db, 30);
    assert!((30..=31).contains(&reads), "{reads} steps");
    // A step always reads a whole row, even past its budget.
    let (_, reads) = stepped(&mut db, 1);
    assert!((300..=301).contains(&reads), "{reads} steps");
    for budget in [1, 2, 7, 899, 900, 901, u64::MAX] {
        assert_same_map(&mut db, budget);
    }
}

#[test]
fn a_table_read_in_many_slices_keeps_its_sampled_keys() {
    // Past 65,536 rows the census keeps every other key: slices cut
    // anywhere give the same keys and counts.
    let mut db = table(&["k030000", "k060000"]);
    let entries: Vec<MutateRowsEntry<'_>> = (0..70_000u32)
        .map(|i| MutateRowsEntry {
            row_key: format!("k{i:06}").into_bytes().into(),
            mutations: vec![Mutation::set_cell("cf", b"q", 1000, b"v")],
        })
        .collect();
    for chunk in entries.chunks(5_000) {
        db.mutate_rows("t", chunk).unwrap();
    }
    scan(&mut db, "k01");
    for budget in [9_999, 70_000] {
        assert_same_map(&mut db, budget);
    }
    let (live, _) = stepped(&mut db, 4_096);
    assert_eq!(live.report(None).rows, 70_000.0);
}

#[test]
fn traffic_recorded_during_a_build_is_on_the_finished_map() {
    let mut db = table(&[]);
    for i in 0..100u32 {
        put(&mut db, format!("r{i:03}").as_bytes(), 1, 4);
    }
    let mut build = LiveBuild::new("t", &LiveOptions::default());
    assert!(build.step(&mut db, 10).unwrap().is_none());
    assert_eq!(build.rows_read(), 10);
    // The build's own reads are not traffic; this read is.
    scan(&mut db, "r05");
    let live = build.finish(&mut db).unwrap();
    let totals = live.report(None).totals;
    assert_eq!(totals.read_rows, 10.0);
    assert_eq!(totals.scans, 1.0);
    assert_eq!(totals.write_rows, 100.0);
}

#[test]
fn a_table_dropped_during_a_build_is_an_error() {
    let mut db = table(&[]);
    for i in 0..20u32 {
        put(&mut db, format!("r{i:03}").as_bytes(), 1, 4);
    }
    let mut build = LiveBuild::new("t", &LiveOptions::default());
    assert!(build.step(&mut db, 5).unwrap().is_none());
    db.delete_table("t").unwrap();
    assert!(build.step(&mut db, 5).is_err());
    assert!(
        LiveBuild::new("gone", &LiveOptions::default())
            .finish(&mut db)
            .is_err()
    );
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Keys from a small alphabet, so that they share prefixes and
    /// tablet boundaries fall between them.
    fn key() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![Just(b'a'), Just(b'b'), Just(b'#'), Just(0xffu8)],
            1..20,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_table_read_in_any_slices_gives_the_one_shot_map(
            rows in proptest::collection::vec((key(), 1usize..4, 0usize..40), 0..1500),
            splits in proptest::collection::vec(key(), 0..4),
            reads in proptest::collection::vec(key(), 0..6),
            budget in 1u64..400,
        ) {
            let mut splits: Vec<String> = splits
                .into_iter()
                .map(|k| String::from_utf8_lossy(&k).into_owned())
                .collect();
            splits.sort();
            splits.dedup();
            let split_refs: Vec<&str> = splits.iter().map(String::as_str).collect();
            let mut db = table(&split_refs);
            for (k, cells, len) in &rows {
                put(&mut db, k, *cells, *len);
            }
            for r in &reads {
                let req = ReadRowsRequest::rows(RowSet::single(r.clone()));
                db.read_rows("t", &req, &mut CountRows::default()).unwrap();
            }
            assert_same_map(&mut db, budget);
        }
    }
}
