#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Aggregate column families through `Instance`: sum, min, max and
// HyperLogLog++ unique count, what reads return, and what is rejected.

use std::borrow::Cow;

use tabletop_store::*;

const T0: i64 = 1_588_291_200_000_000;

fn instance() -> Instance {
    let mut db = Instance::default();
    db.set_now(T0);
    let mut schema = TableSchema::default();
    for (name, agg) in [
        ("sum", Aggregator::Sum),
        ("min", Aggregator::Min),
        ("max", Aggregator::Max),
        ("hll", Aggregator::HllppUniqueCount),
    ] {
        schema.families.insert(
            name.into(),
            ColumnFamily {
                gc_rule: None,
                value_type: ValueType::Aggregate(agg),
            },
        );
    }
    schema
        .families
        .insert("plain".into(), ColumnFamily::with_gc(None));
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: vec![],
    })
    .expect("create table");
    db
}

fn add(family: &str, ts: i64, v: i64) -> Mutation<'_> {
    Mutation::AddToCell {
        family_name: Cow::Borrowed(family),
        column_qualifier: Cow::Borrowed(b"q"),
        timestamp_micros: ts,
        input: AggregateInput::Int(v),
    }
}

fn merge(family: &str, ts: i64, state: Vec<u8>) -> Mutation<'_> {
    Mutation::MergeToCell {
        family_name: Cow::Borrowed(family),
        column_qualifier: Cow::Borrowed(b"q"),
        timestamp_micros: ts,
        input: AggregateInput::Raw(Cow::Owned(state)),
    }
}

/// The cells of one family of row "r": (timestamp, value).
fn cells(db: &mut Instance, family: &str) -> Vec<(i64, Vec<u8>)> {
    let f = RowFilter::FamilyNameRegex(family.into());
    db.read_row("t", b"r", Some(f))
        .expect("read")
        .map(|r| {
            r.cells
                .into_iter()
                .map(|c| (c.timestamp_micros, c.value))
                .collect()
        })
        .unwrap_or_default()
}

fn ints(db: &mut Instance, family: &str) -> Vec<(i64, i64)> {
    cells(db, family)
        .into_iter()
        .map(|(ts, v)| (ts, i64::from_be_bytes(v.try_into().expect("8 bytes"))))
        .collect()
}

#[test]
fn sum_min_and_max_read_back_as_8_byte_big_endian() {
    let mut db = instance();
    for v in [5, -2, 10] {
        db.mutate_row(
            "t",
            b"r",
            &[
                add("sum", 1000, v),
                add("min", 1000, v),
                add("max", 1000, v),
            ],
        )
        .expect("add");
    }
    assert_eq!(ints(&mut db, "sum"), [(1000, 13)]);
    assert_eq!(ints(&mut db, "min"), [(1000, -2)]);
    assert_eq!(ints(&mut db, "max"), [(1000, 10)]);
    assert_eq!(cells(&mut db, "sum")[0].1, 13i64.to_be_bytes());
}

#[test]
fn each_timestamp_is_its_own_aggregate() {
    let mut db = instance();
    db.mutate_row("t", b"r", &[add("sum", 1000, 1), add("sum", 2000, 10)])
        .expect("add");
    db.mutate_row("t", b"r", &[add("sum", 1000, 2)])
        .expect("add");
    assert_eq!(ints(&mut db, "sum"), [(2000, 10), (1000, 3)]);
    // Server time: -1 lands on the instance clock, millisecond granularity.
    db.set_now(T0 + 5_000_123);
    db.mutate_row("t", b"r", &[add("sum", SERVER_TIMESTAMP, 7)])
        .expect("add");
    db.mutate_row("t", b"r", &[add("sum", SERVER_TIMESTAMP, 7)])
        .expect("add");
    assert_eq!(ints(&mut db, "sum")[0], (T0 + 5_000_000, 14));
}

#[test]
fn several_inputs_in_one_mutation_all_count() {
    let mut db = instance();
    db.mutate_row(
        "t",
        b"r",
        &[
            add("sum", 1000, 1),
            add("sum", 1000, 2),
            add("sum", 1000, 3),
        ],
    )
    .expect("add");
    assert_eq!(ints(&mut db, "sum"), [(1000, 6)]);
}

#[test]
fn merge_to_cell_folds_another_cells_state() {
    let mut db = instance();
    db.mutate_row("t", b"r", &[add("sum", 1000, 40)])
        .expect("add");
    db.mutate_row(
        "t",
        b"r",
        &[merge("sum", 1000, 2i64.to_be_bytes().to_vec())],
    )
    .expect("merge");
    db.mutate_row(
        "t",
        b"r",
        &[
            add("max", 1000, 3),
            merge("max", 1000, 9i64.to_be_bytes().to_vec()),
        ],
    )
    .expect("merge");
    assert_eq!(ints(&mut db, "sum"), [(1000, 42)]);
    assert_eq!(ints(&mut db, "max"), [(1000, 9)]);
    let err = db
        .mutate_row("t", b"r", &[merge("sum", 1000, vec![1, 2, 3])])
        .expect_err("not 8 bytes");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(ints(&mut db, "sum"), [(1000, 42)]);
}

#[test]
fn hll_counts_distinct_values_and_reads_back_a_zetasketch_state() {
    let mut db = instance();
    for v in (0..300).chain(0..300) {
        db.mutate_row("t", b"r", &[add("hll", 1000, v)])
            .expect("add");
    }
    let state = cells(&mut db, "hll");
    assert_eq!(state.len(), 1);
    let bytes = &state[0].1;
    // A zetasketch AggregatorStateProto: type HYPERLOGLOG_PLUS_UNIQUE (112),
    // 600 values, encoding version 2.
    assert_eq!(&bytes[..2], &[0x08, 0x70]);
    assert_eq!(&bytes[2..5], &[0x10, 0xd8, 0x04]);
    assert_eq!(&bytes[5..7], &[0x18, 0x02]);
    assert_eq!(hll_unique_count(bytes).expect("count"), 300);
    // The same state as a sketch built directly from the values.
    let direct = hll_sketch((0..300).chain(0..300));
    assert_eq!(bytes, &direct);
}

#[test]
fn hll_merge_to_cell_takes_a_sketch() {
    let mut db = instance();
    db.mutate_row("t", b"r", &[add("hll", 1000, 1), add("hll", 1000, 2)])
        .expect("add");
    db.mutate_row("t", b"r", &[merge("hll", 1000, hll_sketch(2..50))])
        .expect("merge");
    let state = cells(&mut db, "hll");
    assert_eq!(hll_unique_count(&state[0].1).expect("count"), 49);
    // An empty input merges nothing; a broken one is refused and changes
    // nothing.
    db.mutate_row("t", b"r", &[merge("hll", 1000, Vec::new())])
        .expect("empty merge");
    let err = db
        .mutate_row(
            "t",
            b"r",
            &[
                add("hll", 1000, 99),
                merge("hll", 1000, b"not a sketch".to_vec()),
            ],
        )
        .expect_err("bad sketch");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("HLL"), "{err}");
    assert_eq!(cells(&mut db, "hll"), state);
    // Large counts switch the sketch to its dense form and stay accurate.
    db.mutate_row("t", b"big", &[merge("hll", 1000, hll_sketch(0..50_000))])
        .expect("merge");
    let big = db.read_row("t", b"big", None).expect("read").expect("row");
    let n = hll_unique_count(&big.cells[0].value).expect("count");
    assert!((49_500..=50_500).contains(&n), "{n}");
}

#[test]
fn set_cell_into_an_aggregate_family_is_rejected() {
    let mut db = instance();
    db.mutate_row("t", b"r", &[add("sum", 1000, 1)])
        .expect("add");
    let err = db
        .mutate_row(
            "t",
            b"r",
            &[
                add("sum", 1000, 1),
                Mutation::set_cell("sum", b"q", 1000, b"x"),
            ],
        )
        .expect_err("set cell");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("aggregate family"), "{err}");
    assert_eq!(
        ints(&mut db, "sum"),
        [(1000, 1)],
        "the whole mutation was refused"
    );
    // And the other way round.
    let err = db
        .mutate_row("t", b"r", &[add("plain", 1000, 1)])
        .expect_err("add to plain");
    assert_eq!(err.code(), Code::InvalidArgument);
}

#[test]
fn filters_see_aggregate_states_like_any_value() {
    let mut db = instance();
    db.mutate_row("t", b"r", &[add("sum", 1000, 7), add("max", 1000, 300)])
        .expect("add");
    let f = RowFilter::ValueRange {
        start: KeyBound::Closed(0i64.to_be_bytes().to_vec()),
        end: KeyBound::Open(256i64.to_be_bytes().to_vec()),
    };
    let row = db.read_row("t", b"r", Some(f)).expect("read").expect("row");
    assert_eq!(row.cells.len(), 1);
    assert_eq!(row.cells[0].family, "sum");
}

#[test]
fn adding_to_a_deleted_aggregate_cell_starts_a_new_one() {
    let delete = Mutation::DeleteFromColumn {
        family_name: Cow::Borrowed("sum"),
        column_qualifier: Cow::Borrowed(b"q"),
        time_range: None,
    };
    // In the memtable.
    let mut db = instance();
    db.mutate_row("t", b"r", &[add("sum", 1000, 5)])
        .expect("add");
    db.mutate_row("t", b"r", std::slice::from_ref(&delete))
        .expect("delete");
    db.mutate_row("t", b"r", &[add("sum", 1000, 1)])
        .expect("add");
    assert_eq!(ints(&mut db, "sum"), [(1000, 1)]);
    // In a sorted run.
    let mut db = instance();
    db.mutate_row("t", b"r", &[add("sum", 1000, 5)])
        .expect("add");
    db.compact(Some("t")).expect("compact");
    db.mutate_row("t", b"r", &[delete.clone(), add("sum", 1000, 1)])
        .expect("delete and add");
    assert_eq!(ints(&mut db, "sum"), [(1000, 1)]);
}
