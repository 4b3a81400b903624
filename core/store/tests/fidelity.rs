#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// `Fidelity::Emulator`: the instance answers as Google's Bigtable emulator
// does where it differs from production, each difference as the
// differential suite records it (tests/differential, `diverges` entries,
// checked against the emulator itself by `run.sh --parity`). Every test
// runs the same request both ways: production's answer is the default.

use std::borrow::Cow;

use tabletop_store::*;

const T0: i64 = 1_588_291_200_000_000;

fn instance(fidelity: Fidelity) -> Instance {
    let mut db = Instance::default();
    db.set_now(T0);
    db.switch_fidelity(fidelity)
        .expect("an empty instance switches");
    let mut schema = TableSchema::default();
    schema
        .families
        .insert("cf".into(), ColumnFamily::with_gc(None));
    for (name, agg) in [("low", Aggregator::Min), ("high", Aggregator::Max)] {
        schema.families.insert(
            name.into(),
            ColumnFamily {
                gc_rule: None,
                value_type: ValueType::Aggregate(agg),
            },
        );
    }
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: vec![],
    })
    .expect("create table");
    db
}

fn set(family: &str, qualifier: &str, ts: i64, value: &str) -> Mutation<'static> {
    Mutation::SetCell {
        family_name: Cow::Owned(family.into()),
        column_qualifier: Cow::Owned(qualifier.as_bytes().to_vec()),
        timestamp_micros: ts,
        value: Cow::Owned(value.as_bytes().to_vec()),
    }
}

fn add(family: &str, n: i64) -> Mutation<'static> {
    Mutation::AddToCell {
        family_name: Cow::Owned(family.into()),
        column_qualifier: Cow::Borrowed(b"v"),
        timestamp_micros: 1000,
        input: AggregateInput::Int(n),
    }
}

fn cells(db: &mut Instance) -> Vec<(Vec<u8>, String, Vec<u8>)> {
    let mut rows = CollectRows::default();
    db.read_rows("t", &ReadRowsRequest::default(), &mut rows)
        .expect("read");
    rows.rows
        .into_iter()
        .flat_map(|r| {
            let key = r.key.clone();
            r.cells
                .into_iter()
                .map(move |c| (key.clone(), c.family, c.value))
        })
        .collect()
}

#[test]
fn the_default_is_production() {
    assert_eq!(Instance::default().fidelity(), Fidelity::Production);
}

#[test]
fn a_failing_mutation_keeps_the_ones_before_it_on_the_emulator() {
    let muts = [set("cf", "a", 1000, "1"), set("nope", "b", 1000, "2")];
    let mut prod = instance(Fidelity::Production);
    let e = prod.mutate_row("t", b"r", &muts).unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert!(cells(&mut prod).is_empty());

    let mut emu = instance(Fidelity::Emulator);
    let e = emu.mutate_row("t", b"r", &muts).unwrap_err();
    assert_eq!(e.code(), Code::Unknown);
    assert_eq!(e.message(), "unknown family \"nope\"");
    assert_eq!(
        cells(&mut emu),
        [(b"r".to_vec(), "cf".into(), b"1".to_vec())]
    );

    let e = emu
        .mutate_row("t", b"r", &[set("cf", "a", -5000, "x")])
        .unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (Code::Unknown, "invalid timestamp -5000")
    );
    let e = emu.mutate_row("t", b"r", &[add("cf", 1)]).unwrap_err();
    assert_eq!(e.code(), Code::Unknown);
}

#[test]
fn mutate_rows_entries_fail_as_internal_and_empty_entries_pass() {
    let entries = [
        MutateRowsEntry {
            row_key: Cow::Borrowed(b"a"),
            mutations: vec![set("cf", "q", 1000, "1")],
        },
        MutateRowsEntry {
            row_key: Cow::Borrowed(b"b"),
            mutations: vec![set("nope", "q", 1000, "2")],
        },
        MutateRowsEntry {
            row_key: Cow::Borrowed(b"c"),
            mutations: vec![],
        },
    ];
    let mut prod = instance(Fidelity::Production);
    assert_eq!(
        prod.mutate_rows("t", &entries).unwrap_err().code(),
        Code::InvalidArgument
    );
    let mut emu = instance(Fidelity::Emulator);
    let results = emu.mutate_rows("t", &entries).unwrap();
    let codes: Vec<Option<Code>> = results
        .iter()
        .map(|r| r.as_ref().err().map(Error::code))
        .collect();
    assert_eq!(codes, [None, Some(Code::Internal), None]);
}

#[test]
fn min_and_max_keep_the_last_input_on_the_emulator() {
    let muts = [
        add("low", 30),
        add("low", 12),
        add("low", 50),
        add("high", 90),
        add("high", 50),
    ];
    let mut prod = instance(Fidelity::Production);
    prod.mutate_row("t", b"r", &muts).unwrap();
    let mut emu = instance(Fidelity::Emulator);
    emu.mutate_row("t", b"r", &muts).unwrap();
    let value = |db: &mut Instance, fam: &str| {
        cells(db)
            .into_iter()
            .find(|c| c.1 == fam)
            .map(|c| i64::from_be_bytes(c.2.try_into().unwrap()))
    };
    assert_eq!(
        (value(&mut prod, "low"), value(&mut prod, "high")),
        (Some(12), Some(90))
    );
    assert_eq!(
        (value(&mut emu, "low"), value(&mut emu, "high")),
        (Some(50), Some(50))
    );
}

#[test]
fn admin_checks_are_looser_on_the_emulator() {
    let mut emu = instance(Fidelity::Emulator);
    emu.create_table(CreateTableRequest {
        table_id: "bad id!".into(),
        schema: TableSchema::default(),
        initial_splits: vec![b"b".to_vec(), Vec::new()],
    })
    .unwrap();
    let mut prod = instance(Fidelity::Production);
    assert!(
        prod.create_table(CreateTableRequest {
            table_id: "bad id!".into(),
            schema: TableSchema::default(),
            initial_splits: vec![],
        })
        .is_err()
    );
    // ModifyColumnFamilies: applied up to the failing change.
    let changes = [
        FamilyChange::Create("added".into(), ColumnFamily::with_gc(None)),
        FamilyChange::Drop("nope".into()),
    ];
    let e = emu.modify_column_families("t", &changes).unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (Code::Unknown, "no such family \"nope\"")
    );
    assert!(
        emu.get_table("t")
            .unwrap()
            .schema
            .families
            .contains_key("added")
    );
    let e = prod.modify_column_families("t", &changes).unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert!(
        !prod
            .get_table("t")
            .unwrap()
            .schema
            .families
            .contains_key("added")
    );
}

#[test]
fn reads_and_drops_as_the_emulator_does() {
    for fidelity in [Fidelity::Production, Fidelity::Emulator] {
        let mut db = instance(fidelity);
        db.mutate_row("t", b"r", &[set("cf", "q", 1000, "v")])
            .unwrap();
        let negative = ReadRowsRequest {
            rows_limit: -1,
            ..ReadRowsRequest::default()
        };
        let read = db.read_rows("t", &negative, &mut CollectRows::default());
        let unknown_family = ReadRowsRequest {
            filter: Some(RowFilter::FamilyNameRegex("nope".into())),
            ..ReadRowsRequest::default()
        };
        let dropped = db.drop_row_range("t", &DropTarget::Prefix(Vec::new()));
        if fidelity.is_emulator() {
            assert_eq!(read.unwrap().rows_returned, 0);
            dropped.unwrap();
            assert!(cells(&mut db).is_empty());
        } else {
            assert_eq!(read.unwrap_err().code(), Code::InvalidArgument);
            assert_eq!(dropped.unwrap_err().code(), Code::InvalidArgument);
            assert_eq!(cells(&mut db).len(), 1);
        }
        // A regex over families is fine either way: it matches none.
        db.read_rows("t", &unknown_family, &mut CollectRows::default())
            .unwrap();
    }
}

#[test]
fn conditional_writes_as_the_emulator_does() {
    let empty = CheckAndMutateRowRequest {
        row_key: b"r".to_vec(),
        ..CheckAndMutateRowRequest::default()
    };
    let no_rules = ReadModifyWriteRowRequest {
        row_key: b"r".to_vec(),
        rules: vec![],
    };
    let mut prod = instance(Fidelity::Production);
    assert_eq!(
        prod.check_and_mutate_row("t", &empty).unwrap_err().code(),
        Code::InvalidArgument
    );
    assert_eq!(
        prod.read_modify_write_row("t", &no_rules)
            .unwrap_err()
            .code(),
        Code::InvalidArgument
    );
    let mut emu = instance(Fidelity::Emulator);
    assert!(
        !emu.check_and_mutate_row("t", &empty)
            .unwrap()
            .predicate_matched
    );
    assert_eq!(
        emu.read_modify_write_row("t", &no_rules).unwrap().row.key,
        b"r"
    );
}

#[test]
fn filters_read_as_the_emulator_reads_them() {
    let two_labels = RowFilter::Chain(vec![
        RowFilter::ApplyLabel("one".into()),
        RowFilter::ApplyLabel("two".into()),
    ]);
    // sink in production sends the cells reaching it to the output, past
    // the blockAll; the emulator takes it for passAll.
    let sink = RowFilter::Chain(vec![
        RowFilter::Interleave(vec![
            RowFilter::Chain(vec![
                RowFilter::FamilyNameRegex("cf".into()),
                RowFilter::Sink,
            ]),
            RowFilter::BlockAll,
        ]),
        RowFilter::BlockAll,
    ]);
    for fidelity in [Fidelity::Production, Fidelity::Emulator] {
        let mut db = instance(fidelity);
        db.mutate_row("t", b"r", &[set("cf", "q", 1000, "v")])
            .unwrap();
        let read = |db: &mut Instance, filter: &RowFilter| {
            let req = ReadRowsRequest {
                filter: Some(filter.clone()),
                ..ReadRowsRequest::default()
            };
            let mut rows = CollectRows::default();
            db.read_rows("t", &req, &mut rows).map(|_| rows.rows)
        };
        let labelled = read(&mut db, &two_labels);
        let sunk = read(&mut db, &sink).unwrap();
        if fidelity.is_emulator() {
            assert_eq!(labelled.unwrap()[0].cells[0].labels, ["two"]);
            assert!(sunk.is_empty());
        } else {
            assert_eq!(labelled.unwrap_err().code(), Code::InvalidArgument);
            assert_eq!(sunk.len(), 1);
        }
    }
}

#[test]
fn labels_are_checked_and_stripped_as_the_emulator_does() {
    let label = |l: &str| RowFilter::ApplyLabel(l.into());
    // A label of 21 characters, and one holding a space and capitals: the
    // emulator matches [a-z0-9-]+ unanchored and without a length limit.
    let long = label("abcdefghijklmnopqrstu");
    let loose = label("Bad Label");
    let capitals = label("ABC");
    // A strip drops the labels applied before it in the chain (also inside
    // an interleave), but not one applied after it.
    let stripped = RowFilter::Chain(vec![
        RowFilter::Interleave(vec![label("tag"), RowFilter::CellsPerColumnLimit(1)]),
        RowFilter::StripValue,
    ]);
    let relabelled = RowFilter::Chain(vec![RowFilter::StripValue, label("tag")]);
    for fidelity in [Fidelity::Production, Fidelity::Emulator] {
        let mut db = instance(fidelity);
        db.mutate_row("t", b"r", &[set("cf", "q", 1000, "v")])
            .unwrap();
        let mut read = |filter: &RowFilter| {
            let req = ReadRowsRequest {
                filter: Some(filter.clone()),
                ..ReadRowsRequest::default()
            };
            let mut rows = CollectRows::default();
            db.read_rows("t", &req, &mut rows).map(|_| {
                rows.rows[0]
                    .cells
                    .iter()
                    .map(|c| c.labels.clone())
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(read(&capitals).unwrap_err().code(), Code::InvalidArgument);
        assert_eq!(read(&relabelled).unwrap(), [["tag"]]);
        if fidelity.is_emulator() {
            assert_eq!(read(&long).unwrap(), [["abcdefghijklmnopqrstu"]]);
            assert_eq!(read(&loose).unwrap(), [["Bad Label"]]);
            assert_eq!(read(&stripped).unwrap(), [Vec::<String>::new(), vec![]]);
        } else {
            assert_eq!(read(&long).unwrap_err().code(), Code::InvalidArgument);
            assert_eq!(read(&loose).unwrap_err().code(), Code::InvalidArgument);
            assert_eq!(read(&stripped).unwrap(), [vec!["tag".to_string()], vec![]]);
        }
    }
}

/// GC rules that keep nothing and row keys over 4 KiB: the emulator takes
/// them (the differential suite's "createtable: GC rules that keep
/// nothing" and "row keys over 4 KiB"), production refuses them, and an
/// emulator instance's snapshot (version 6) holds them and restores
/// answering as the emulator.
#[test]
fn what_only_the_emulator_takes_survives_its_snapshot() {
    let keep_nothing = |n: i32, age_ms: u64| {
        let mut schema = TableSchema::default();
        schema.families.insert(
            "cf".into(),
            ColumnFamily::with_gc(Some(GcRule::Union(vec![
                GcRule::MaxNumVersions(n),
                GcRule::MaxAge(std::time::Duration::from_millis(age_ms)),
            ]))),
        );
        CreateTableRequest {
            table_id: "zero".into(),
            schema,
            initial_splits: vec![],
        }
    };
    let long_key = vec![b'k'; 5000];
    let mut prod = instance(Fidelity::Production);
    let e = prod
        .create_table(keep_nothing(0, 1))
        .expect_err("versions 0");
    assert!(e.message().contains("at least 1, got 0"), "{}", e.message());
    let e = prod.create_table(keep_nothing(1, 0)).expect_err("age 0");
    assert!(e.message().contains("one millisecond"), "{}", e.message());
    let e = prod
        .mutate_row("t", &long_key, &[set("cf", "q", 1000, "v")])
        .expect_err("a long key");
    assert_eq!(e.code(), Code::InvalidArgument);
    // Production's snapshots keep their versions: no change stream, no
    // traffic, no section is version 1.
    let plain = prod.snapshot_choosing(None, false);
    assert_eq!(plain[8], 1);

    let mut emu = instance(Fidelity::Emulator);
    emu.create_table(keep_nothing(0, 0))
        .expect("the emulator takes it");
    emu.mutate_row("t", &long_key, &[set("cf", "q", 1000, "v")])
        .expect("the emulator takes a long key");
    // Still refused on the emulator: an empty key, a negative count.
    assert!(
        emu.mutate_row("t", b"", &[set("cf", "q", 1000, "v")])
            .is_err()
    );
    let mut bad = keep_nothing(-1, 0);
    bad.table_id = "negative".into();
    assert!(emu.create_table(bad).is_err());
    let bytes = emu.snapshot();
    assert_eq!(bytes[8], 6, "an emulator instance writes version 6");
    let mut back = Instance::restore(&bytes).expect("restores");
    assert_eq!(back.fidelity(), Fidelity::Emulator);
    assert_eq!(
        back.get_table("zero").expect("table").schema,
        emu.get_table("zero").expect("table").schema
    );
    let keys: Vec<Vec<u8>> = cells(&mut back).into_iter().map(|c| c.0).collect();
    assert!(keys.contains(&long_key), "the long key is back");
    // The checked switch keeps it answering as the emulator, so its
    // snapshot stays one that loads.
    let e = back
        .switch_fidelity(Fidelity::Production)
        .expect_err("the long key is in the way");
    assert!(
        e.message().contains("row key of 5000 bytes"),
        "{}",
        e.message()
    );
    assert_eq!(back.fidelity(), Fidelity::Emulator);
    Instance::restore(&back.snapshot()).expect("still loads");
}

/// Adds the HyperLogLog family `visitors` to table `t`.
fn add_hll_family(db: &mut Instance) {
    db.modify_column_families(
        "t",
        &[FamilyChange::Create(
            "visitors".into(),
            ColumnFamily {
                gc_rule: None,
                value_type: ValueType::Aggregate(Aggregator::HllppUniqueCount),
            },
        )],
    )
    .expect("add the family");
}

/// An AddToCell of `n` to `visitors:unique` at `ts`.
fn hll_add(n: i64, ts: i64) -> Mutation<'static> {
    Mutation::AddToCell {
        family_name: Cow::Borrowed("visitors"),
        column_qualifier: Cow::Borrowed(b"unique"),
        timestamp_micros: ts,
        input: AggregateInput::Int(n),
    }
}

/// A HyperLogLog family: production keeps a sketch of the inputs; the
/// emulator does not aggregate and keeps the last input's raw bytes (the
/// differential suite's "addtocell: inthll").
#[test]
fn hll_families_keep_the_raw_last_input_on_the_emulator() {
    let value = |fidelity: Fidelity| {
        let mut db = instance(fidelity);
        add_hll_family(&mut db);
        let add = |n: i64| hll_add(n, 1000);
        db.mutate_row("t", b"page#home", &[add(5), add(7), add(5)])
            .expect("write");
        let mut cells = cells(&mut db);
        assert_eq!(cells.len(), 1, "{cells:?}");
        cells.remove(0).2
    };
    assert_eq!(value(Fidelity::Emulator), 5i64.to_be_bytes());
    let sketch = value(Fidelity::Production);
    assert_eq!(hll_unique_count(&sketch).expect("a sketch"), 2);
}

/// Switching a parity instance back to production: each HyperLogLog cell
/// holding the emulator's raw last input becomes the sketch of that input,
/// so production's writes aggregate into it and its reads count it
/// (before this, an AddToCell there failed with an internal "corrupt
/// state" error). Other cells are left as they are.
#[test]
fn leaving_the_emulator_turns_raw_hll_inputs_into_sketches() {
    let mut db = instance(Fidelity::Emulator);
    add_hll_family(&mut db);
    let add = hll_add;
    db.mutate_row(
        "t",
        b"page#home",
        &[add(5, 1000), add(7, 1000), add(9, 2000)],
    )
    .expect("write");
    db.mutate_row("t", b"page#home", &[set("cf", "q", 1000, "plain")])
        .expect("write");
    // A MergeToCell input the emulator kept as it came is already a sketch.
    let merged = hll_sketch([1, 2, 3]);
    db.mutate_row(
        "t",
        b"page#other",
        &[Mutation::MergeToCell {
            family_name: Cow::Borrowed("visitors"),
            column_qualifier: Cow::Borrowed(b"unique"),
            timestamp_micros: 1000,
            input: AggregateInput::Raw(Cow::Owned(merged.clone())),
        }],
    )
    .expect("merge");
    assert_eq!(
        db.switch_fidelity(Fidelity::Production).ok(),
        Some(2),
        "two raw inputs"
    );
    assert_eq!(db.fidelity(), Fidelity::Production);
    let hll = |db: &mut Instance| -> Vec<(Vec<u8>, i64)> {
        let mut rows = CollectRows::default();
        db.read_rows("t", &ReadRowsRequest::default(), &mut rows)
            .expect("read");
        rows.rows
            .into_iter()
            .flat_map(|r| {
                let key = r.key.clone();
                r.cells
                    .into_iter()
                    .filter(|c| c.family == "visitors")
                    .map(move |c| (key.clone(), hll_unique_count(&c.value).expect("a sketch")))
            })
            .collect()
    };
    assert_eq!(
        hll(&mut db),
        [
            (b"page#home".to_vec(), 1),
            (b"page#home".to_vec(), 1),
            (b"page#other".to_vec(), 3)
        ]
    );
    // Production's AddToCell aggregates into the converted cell.
    db.mutate_row("t", b"page#home", &[add(8, 1000)])
        .expect("an AddToCell after the switch");
    assert_eq!(hll(&mut db)[1], (b"page#home".to_vec(), 2));
    assert!(
        cells(&mut db).contains(&(b"page#home".to_vec(), "cf".into(), b"plain".to_vec())),
        "plain cells are untouched"
    );
    // Switching back and forth again changes nothing more.
    assert!(db.switch_fidelity(Fidelity::Emulator).is_ok());
    assert_eq!(db.switch_fidelity(Fidelity::Production).ok(), Some(0));
}

/// A chain of one filter is refused both ways (the emulator refuses it
/// too, "Chain must contain at least two RowFilters"); parity used to read
/// it as its one filter. Row keys over 4 KiB pass CheckAndMutateRow and
/// ReadModifyWriteRow on the emulator, as they pass MutateRow (the
/// differential suite's "limits: a row key over 4 KiB in
/// checkAndMutateRow and readModifyWriteRow").
#[test]
fn one_filter_chains_and_long_keys_in_conditional_writes() {
    let long = vec![b'k'; 4097];
    for fidelity in [Fidelity::Production, Fidelity::Emulator] {
        let mut db = instance(fidelity);
        db.mutate_row("t", b"r", &[set("cf", "q", 1000, "v")])
            .unwrap();
        let req = ReadRowsRequest {
            filter: Some(RowFilter::Chain(vec![RowFilter::BlockAll])),
            ..ReadRowsRequest::default()
        };
        let e = db
            .read_rows("t", &req, &mut CollectRows::default())
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{fidelity:?}");
        let cam = CheckAndMutateRowRequest {
            row_key: long.clone(),
            false_mutations: vec![set("cf", "q", 1000, "f")],
            ..CheckAndMutateRowRequest::default()
        };
        let rmw = ReadModifyWriteRowRequest {
            row_key: [long.as_slice(), b"2"].concat(),
            rules: vec![ReadModifyWriteRule {
                family_name: "cf".into(),
                column_qualifier: b"c".to_vec(),
                rule: ReadModifyWriteOp::AppendValue(b"x".to_vec()),
            }],
        };
        let written = (
            db.check_and_mutate_row("t", &cam).map(|_| ()),
            db.read_modify_write_row("t", &rmw).map(|_| ()),
        );
        if fidelity.is_emulator() {
            assert!(written.0.is_ok() && written.1.is_ok(), "{written:?}");
            let keys: Vec<usize> = cells(&mut db).iter().map(|c| c.0.len()).collect();
            assert_eq!(keys, [4097, 4098, 1]);
        } else {
            assert_eq!(written.0.unwrap_err().code(), Code::InvalidArgument);
            assert_eq!(written.1.unwrap_err().code(), Code::InvalidArgument);
        }
    }
}

/// Parity cannot be switched off while the instance holds what production
/// refuses (a row key over 4 KiB, a GC rule that keeps nothing): a
/// snapshot of it would not load as production's, so an autosave or a
/// state file would be lost. The switch says what is in the way; once it
/// is gone, the switch goes through and the snapshot loads.
#[test]
fn parity_stays_on_while_the_instance_holds_what_production_refuses() {
    let mut db = instance(Fidelity::Emulator);
    let long = [b'k'; 4097];
    db.mutate_row("t", &long, &[set("cf", "q", 1000, "v")])
        .unwrap();
    let e = db.switch_fidelity(Fidelity::Production).unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(
        e.message().contains("row key of 4097 bytes"),
        "{}",
        e.message()
    );
    assert_eq!(db.fidelity(), Fidelity::Emulator);
    db.mutate_row("t", &long, &[Mutation::DeleteFromRow])
        .unwrap();
    db.modify_column_families(
        "t",
        &[FamilyChange::Update(
            "cf".into(),
            ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(0))),
        )],
    )
    .unwrap();
    let e = db.switch_fidelity(Fidelity::Production).unwrap_err();
    assert!(e.message().contains("table \"t\""), "{}", e.message());
    db.modify_column_families(
        "t",
        &[FamilyChange::Update(
            "cf".into(),
            ColumnFamily::with_gc(None),
        )],
    )
    .unwrap();
    assert_eq!(db.switch_fidelity(Fidelity::Production).ok(), Some(0));
    assert_eq!(db.fidelity(), Fidelity::Production);
    let back = Instance::restore(&db.snapshot()).expect("loads as production's");
    assert_eq!(back.fidelity(), Fidelity::Production);
    // Switching on is never refused.
    assert!(db.switch_fidelity(Fidelity::Emulator).is_ok());
}
