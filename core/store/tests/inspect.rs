#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// The read-only views of `inspect`: the sparse row index a user interface
// scrolls with, windows of rows at a position, and which tablets a read
// visited (checked against the engine's own `ReadStats::tablets`).

mod split_fixture;
use split_fixture::splitting_table;
use tabletop_store::inspect::{DEFAULT_STRIDE, RowIndex, read_window, tablets_visited};
use tabletop_store::*;

const T0: i64 = 1_588_291_200_000_000;

fn key(i: u64) -> Vec<u8> {
    format!("row#{i:05}").into_bytes()
}

/// A table of `n` rows `row#00000`.. with one or two cells each, split into
/// tablets at the given keys.
fn table(n: u64, splits: &[&str]) -> Instance {
    let mut db = Instance::default();
    db.set_now(T0);
    db.create_table(
        CreateTableRequest::with_families("t", [("cf", ColumnFamily::default())]).split_at(splits),
    )
    .unwrap();
    // Written in a scrambled order; reads return key order.
    for j in 0..n {
        let i = (j * 7919) % n;
        let mut mutations = vec![Mutation::set_cell("cf", b"a", T0, b"v")];
        if i.is_multiple_of(3) {
            mutations.push(Mutation::set_cell("cf", b"b", T0, b"w"));
        }
        db.mutate_row("t", &key(i), &mutations).unwrap();
    }
    db
}

#[test]
fn an_index_maps_every_position_to_its_row() {
    let mut db = table(1000, &["row#00300", "row#00700"]);
    let index = RowIndex::build(&mut db, "t", 7).unwrap();
    assert!(index.is_complete());
    assert_eq!(index.rows(), 1000);
    assert_eq!(index.stride(), 7);
    for row in [0, 1, 6, 7, 8, 299, 300, 500, 998, 999] {
        let (anchor, skip) = index.anchor(row).unwrap();
        assert!(skip < 7);
        let window = read_window(&mut db, "t", anchor, skip, 3).unwrap();
        assert_eq!(window.rows[0].key, key(row), "row {row}");
        let expect = (row..(row + 3).min(1000)).count();
        assert_eq!(window.rows.len(), expect);
        assert_eq!(window.stats.rows_returned, skip + expect as u64);
    }
    // Past the end: clamped to the last row.
    let (anchor, skip) = index.anchor(5000).unwrap();
    let window = read_window(&mut db, "t", anchor, skip, 10).unwrap();
    assert_eq!(window.rows.len(), 1);
    assert_eq!(window.rows[0].key, key(999));
}

#[test]
fn building_in_slices_gives_the_same_index() {
    let mut db = table(500, &["row#00250"]);
    let whole = RowIndex::build(&mut db, "t", DEFAULT_STRIDE).unwrap();
    let mut sliced = RowIndex::new(DEFAULT_STRIDE);
    let mut steps = 0;
    while !sliced.step(&mut db, "t", 37).unwrap() {
        steps += 1;
        assert!(sliced.rows() <= 500);
        // A partial index already answers for the rows it has seen.
        let (anchor, skip) = sliced.anchor(sliced.rows() - 1).unwrap();
        let window = read_window(&mut db, "t", anchor, skip, 1).unwrap();
        assert_eq!(window.rows[0].key, key(sliced.rows() - 1));
    }
    assert_eq!(steps, 500 / 37);
    assert_eq!(sliced, whole);
    // Stepping a complete index does nothing.
    assert!(sliced.step(&mut db, "t", 10).unwrap());
    assert_eq!(sliced, whole);
}

#[test]
fn positions_of_keys_are_exact() {
    let mut db = table(300, &["row#00100"]);
    let index = RowIndex::build(&mut db, "t", 16).unwrap();
    for i in [0, 1, 15, 16, 17, 100, 255, 299] {
        assert_eq!(index.position(&mut db, "t", &key(i)).unwrap(), i, "{i}");
    }
    // Keys that are no row: the number of rows sorting before them.
    assert_eq!(index.position(&mut db, "t", b"").unwrap(), 0);
    assert_eq!(index.position(&mut db, "t", b"a").unwrap(), 0);
    assert_eq!(index.position(&mut db, "t", b"row#00016x").unwrap(), 17);
    assert_eq!(index.position(&mut db, "t", b"zzz").unwrap(), 300);
}

#[test]
fn fractions_pick_keys_along_the_table() {
    let mut db = table(1000, &[]);
    let index = RowIndex::build(&mut db, "t", 100).unwrap();
    assert_eq!(index.key_at_fraction(0.0).unwrap(), key(0));
    assert_eq!(index.key_at_fraction(0.5).unwrap(), key(500));
    assert_eq!(index.key_at_fraction(1.0).unwrap(), key(900));
    assert_eq!(index.key_at_fraction(7.0).unwrap(), key(900));
}

#[test]
fn empty_and_missing_tables() {
    let mut db = table(0, &[]);
    let index = RowIndex::build(&mut db, "t", 8).unwrap();
    assert!(index.is_complete());
    assert_eq!(index.rows(), 0);
    assert_eq!(index.anchor(0), None);
    assert_eq!(index.key_at_fraction(0.5), None);
    assert_eq!(read_window(&mut db, "t", b"", 0, 5).unwrap().rows.len(), 0);
    let err = RowIndex::build(&mut db, "nope", 8).unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    assert_eq!(
        tablets_visited(&mut db, "nope", &RowSet::all(), false, None)
            .unwrap_err()
            .code(),
        Code::NotFound
    );
}

#[test]
fn deleted_rows_leave_the_index_after_a_rebuild() {
    let mut db = table(100, &[]);
    db.mutate_row("t", &key(10), &[Mutation::DeleteFromRow])
        .unwrap();
    let index = RowIndex::build(&mut db, "t", 4).unwrap();
    assert_eq!(index.rows(), 99);
    assert_eq!(index.position(&mut db, "t", &key(11)).unwrap(), 10);
}

/// Reads `rows` (with an optional limit and filter) and checks that
/// `tablets_visited` names the tablets the engine reported.
fn check_visited(
    db: &mut Instance,
    rows: RowSet,
    reversed: bool,
    limit: i64,
    filter: Option<RowFilter>,
) {
    let request = ReadRowsRequest {
        rows: rows.clone(),
        filter,
        rows_limit: limit,
        reversed,
    };
    let mut sink = CountRows::default();
    let stats = db.read_rows("t", &request, &mut sink).unwrap();
    let stopped = (limit > 0 && stats.rows_returned == limit as u64).then_some(stats.rows_seen);
    let visited = tablets_visited(db, "t", &rows, reversed, stopped).unwrap();
    assert_eq!(
        visited, stats.tablets,
        "rows {rows:?} reversed {reversed} limit {limit}"
    );
}

#[test]
fn tablets_visited_agrees_with_the_engine() {
    let mut db = table(600, &["row#00100", "row#00200", "row#00250", "row#00500"]);
    assert_eq!(db.tablets("t").unwrap().len(), 5);

    let ranges = [
        RowSet::all(),
        RowSet::single(key(150)),
        RowSet::single(b"nothing".to_vec()),
        RowSet::range(RowRange::prefix(b"row#001".to_vec())),
        RowSet::range(RowRange::closed_open(key(90), key(260))),
        RowSet::range(RowRange::closed_open(key(600), b"zz".to_vec())),
        RowSet {
            row_keys: vec![key(5), key(550)],
            row_ranges: vec![RowRange::closed_open(key(220), key(230))],
        },
    ];
    let filters = [
        None,
        Some(RowFilter::RowKeyRegex(b".*5".to_vec())),
        Some(RowFilter::BlockAll),
    ];
    for rows in &ranges {
        for reversed in [false, true] {
            for limit in [0, 1, 3, 120] {
                for filter in &filters {
                    check_visited(&mut db, rows.clone(), reversed, limit, filter.clone());
                }
            }
        }
    }
}

#[test]
fn tablets_visited_after_splits_at_tick() {
    let mut db = splitting_table(T0, 0);
    for i in 0..400 {
        db.mutate_row(
            "t",
            &key(i),
            &[Mutation::set_cell("cf", b"a", T0, b"value")],
        )
        .unwrap();
        if i % 50 == 0 {
            let _ = db.tick(T0);
        }
    }
    let _ = db.tick(T0);
    let tablets = db.tablets("t").unwrap();
    assert!(tablets.len() > 3, "{} tablets", tablets.len());
    for rows in [
        RowSet::all(),
        RowSet::range(RowRange::closed_open(key(33), key(377))),
    ] {
        for reversed in [false, true] {
            for limit in [0, 7, 200] {
                check_visited(&mut db, rows.clone(), reversed, limit, None);
                check_visited(
                    &mut db,
                    rows.clone(),
                    reversed,
                    limit,
                    Some(RowFilter::RowKeyRegex(b".*[02468]".to_vec())),
                );
            }
        }
    }
}
