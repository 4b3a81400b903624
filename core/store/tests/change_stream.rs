#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Change streams through `Instance`: what is recorded, when, and what a
// read returns. The rules come from Bigtable's "Change streams overview":
// every committed change of MutateRow, MutateRows, CheckAndMutateRow and
// ReadModifyWriteRow is recorded, and so are deletions by garbage
// collection and by DropRowRange; a change holds the row key, the commit
// timestamp and the mutations as written; the retention period is 1 to 7
// days. The Java client's ChangeStreamRecordAdapter notes that a row
// deletion appears as one family deletion per family.

mod split_fixture;
use split_fixture::splitting_table;
use tabletop_store::*;

const T0: i64 = 1_700_000_000_000_000;
const DAY: i64 = 86_400_000_000;

fn instance() -> Instance {
    let mut db = Instance::default();
    db.set_now(T0 + 123); // not on a millisecond: server times round down
    db.create_table(CreateTableRequest::with_families(
        "t",
        [
            ("cf", ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1)))),
            ("other", ColumnFamily::with_gc(None)),
            (
                "counters",
                ColumnFamily {
                    gc_rule: None,
                    value_type: ValueType::Aggregate(Aggregator::Sum),
                },
            ),
        ],
    ))
    .expect("create table");
    db
}

fn enabled() -> Instance {
    let mut db = instance();
    let info = db
        .set_change_stream("t", Some(ChangeStreamConfig::new(DAY).expect("one day")))
        .expect("enable");
    assert_eq!(
        info.change_stream,
        Some(ChangeStreamConfig {
            retention_micros: DAY
        })
    );
    db
}

fn everything(db: &mut Instance) -> ChangeStreamBatch {
    db.read_change_stream(
        "t",
        &ReadChangeStreamRequest {
            partition: KeyRange::all(),
            start: ChangeStart::Time(db.now_micros() - DAY),
            end_micros: None,
        },
    )
    .expect("read change stream")
}

fn set<'a>(q: &'a str, ts: i64, v: &'a [u8]) -> Mutation<'a> {
    Mutation::set_cell("cf", q.as_bytes(), ts, v)
}

#[test]
fn retention_must_be_one_to_seven_days() {
    assert!(ChangeStreamConfig::new(DAY).is_ok());
    assert!(ChangeStreamConfig::new(7 * DAY).is_ok());
    for bad in [0, DAY - 1, 7 * DAY + 1, -DAY] {
        let e = ChangeStreamConfig::new(bad).expect_err("out of range");
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(
            e.message().contains("between 1 day and 7 days"),
            "{}",
            e.message()
        );
    }
}

#[test]
fn a_table_without_a_change_stream_is_refused_and_records_nothing() {
    let mut db = instance();
    db.mutate_row("t", b"r", &[set("q", -1, b"v")])
        .expect("write");
    let req = ReadChangeStreamRequest {
        partition: KeyRange::all(),
        start: ChangeStart::Time(T0),
        end_micros: None,
    };
    let e = db.read_change_stream("t", &req).expect_err("not enabled");
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(
        e.message().contains("change stream is not enabled"),
        "{}",
        e.message()
    );
    assert_eq!(
        db.change_stream_partitions("t")
            .expect_err("not enabled")
            .code(),
        Code::FailedPrecondition
    );
    assert_eq!(db.get_table("t").expect("table").change_stream, None);
    // Enabling it later does not invent the earlier write.
    db.set_change_stream("t", Some(ChangeStreamConfig::new(DAY).expect("day")))
        .expect("enable");
    assert!(everything(&mut db).records.is_empty());
}

#[test]
fn every_committed_write_is_recorded_once_in_commit_order() {
    let mut db = enabled();
    db.mutate_row("t", b"a", &[set("q", -1, b"one"), set("q2", 5_000, b"two")])
        .expect("write a");
    db.set_now(T0 + 2_000_000);
    db.mutate_rows(
        "t",
        &[
            MutateRowsEntry {
                row_key: b"b".as_slice().into(),
                mutations: vec![Mutation::AddToCell {
                    family_name: "counters".into(),
                    column_qualifier: b"n".as_slice().into(),
                    timestamp_micros: 0,
                    input: AggregateInput::Int(5),
                }],
            },
            MutateRowsEntry {
                row_key: b"c".as_slice().into(),
                mutations: vec![Mutation::DeleteFromColumn {
                    family_name: "cf".into(),
                    column_qualifier: b"q".as_slice().into(),
                    time_range: Some(TimestampRange {
                        start_micros: 1000,
                        end_micros: 2000,
                    }),
                }],
            },
        ],
    )
    .expect("mutate rows");
    db.set_now(T0 + 3_000_000);
    db.mutate_row("t", b"a", &[Mutation::DeleteFromRow])
        .expect("delete row");
    let batch = everything(&mut db);
    let got: Vec<(u64, i64, &[u8], ChangeKind)> = batch
        .records
        .iter()
        .map(|r| (r.sequence, r.commit_micros, r.row_key.as_slice(), r.kind))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, T0 + 123, b"a".as_slice(), ChangeKind::User),
            (2, T0 + 2_000_000, b"b".as_slice(), ChangeKind::User),
            (3, T0 + 2_000_000, b"c".as_slice(), ChangeKind::User),
            (4, T0 + 3_000_000, b"a".as_slice(), ChangeKind::User),
        ]
    );
    // Server time resolved (to the millisecond), explicit time kept.
    assert_eq!(
        batch.records[0].mutations,
        vec![
            Mutation::set_cell("cf", b"q", T0, b"one").into_owned(),
            Mutation::set_cell("cf", b"q2", 5_000, b"two").into_owned(),
        ]
    );
    assert!(matches!(
        &batch.records[1].mutations[..],
        [Mutation::AddToCell {
            input: AggregateInput::Int(5),
            ..
        }]
    ));
    // A row deletion is one family deletion per family, by name.
    let families: Vec<String> = batch.records[3]
        .mutations
        .iter()
        .map(|m| match m {
            Mutation::DeleteFromFamily { family_name } => family_name.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(families, ["cf", "counters", "other"]);
    assert_eq!(batch.position, 4);
    // The newest records, for a live view.
    let tail = db
        .change_stream_tail("t", 2)
        .expect("table")
        .expect("enabled");
    assert_eq!(tail.kept, 4);
    assert_eq!(tail.records, batch.records[2..]);
    assert_eq!(instance().change_stream_tail("t", 2).expect("table"), None);
    assert_eq!(batch.low_watermark_micros, T0 + 3_000_000);
    assert!(!batch.complete);
}

#[test]
fn a_failed_write_records_nothing() {
    let mut db = enabled();
    // The second mutation is invalid: the row stays untouched, and the
    // change stream stays empty.
    let e = db
        .mutate_row(
            "t",
            b"r",
            &[
                set("q", -1, b"v"),
                Mutation::set_cell("nope", b"q", -1, b"v"),
            ],
        )
        .expect_err("unknown family");
    assert_eq!(e.code(), Code::NotFound);
    let results = db
        .mutate_rows(
            "t",
            &[MutateRowsEntry {
                row_key: b"r".as_slice().into(),
                mutations: vec![set("q", 1, b"not a millisecond")],
            }],
        )
        .expect("request");
    assert!(results[0].is_err());
    assert!(everything(&mut db).records.is_empty());
}

#[test]
fn conditional_and_read_modify_write_are_recorded_as_what_they_wrote() {
    let mut db = enabled();
    let cm = db
        .check_and_mutate_row(
            "t",
            &CheckAndMutateRowRequest {
                row_key: b"r".to_vec(),
                predicate_filter: None,
                true_mutations: vec![],
                false_mutations: vec![set("q", 1000, b"v")],
            },
        )
        .expect("check and mutate");
    assert!(!cm.predicate_matched);
    db.read_modify_write_row(
        "t",
        &ReadModifyWriteRowRequest {
            row_key: b"r".to_vec(),
            rules: vec![ReadModifyWriteRule {
                family_name: "other".into(),
                column_qualifier: b"n".to_vec(),
                rule: ReadModifyWriteOp::IncrementAmount(2),
            }],
        },
    )
    .expect("increment");
    let records = everything(&mut db).records;
    assert_eq!(records.len(), 2);
    assert_eq!(
        records[0].mutations,
        vec![set("q", 1000, b"v").into_owned()]
    );
    assert!(matches!(
        &records[1].mutations[..],
        [Mutation::SetCell { family_name, value, .. }]
            if family_name == "other" && value.as_ref() == 2i64.to_be_bytes()
    ));
}

#[test]
fn gc_deletions_are_recorded_as_garbage_collection() {
    let mut db = enabled();
    db.mutate_row("t", b"r", &[set("q", 1000, b"old")])
        .expect("old");
    db.mutate_row("t", b"r", &[set("q", 2000, b"new")])
        .expect("new");
    db.set_now(T0 + 10_000_000);
    db.compact(Some("t")).expect("compact");
    let records = everything(&mut db).records;
    assert_eq!(records.len(), 3);
    let gc = &records[2];
    assert_eq!(gc.kind, ChangeKind::GarbageCollection);
    assert_eq!(gc.commit_micros, T0 + 10_000_000);
    assert_eq!(gc.row_key, b"r");
    assert_eq!(
        gc.mutations,
        vec![Mutation::DeleteFromColumn {
            family_name: "cf".into(),
            column_qualifier: b"q".to_vec().into(),
            time_range: Some(TimestampRange {
                start_micros: 1000,
                end_micros: 2000
            }),
        }]
    );
    // A second compaction has nothing left to collect.
    db.compact(Some("t")).expect("compact again");
    assert_eq!(everything(&mut db).records.len(), 3);
}

#[test]
fn drop_row_range_records_each_row_it_deletes() {
    let mut db = enabled();
    for k in ["p#1", "p#2", "q#1"] {
        db.mutate_row("t", k.as_bytes(), &[set("q", 1000, b"v")])
            .expect("write");
    }
    db.drop_row_range("t", &DropTarget::Prefix(b"p#".to_vec()))
        .expect("drop");
    let records = everything(&mut db).records;
    let dropped: Vec<&[u8]> = records[3..].iter().map(|r| r.row_key.as_slice()).collect();
    assert_eq!(dropped, [b"p#1".as_slice(), b"p#2".as_slice()]);
    assert!(
        records[3..]
            .iter()
            .all(|r| r.kind == ChangeKind::User && r.mutations.len() == 3)
    );
}

#[test]
fn reads_follow_start_time_tokens_partitions_and_end_time() {
    let mut db = enabled();
    for (i, k) in ["a", "m", "z"].iter().enumerate() {
        db.set_now(T0 + i as i64 * 1_000_000);
        db.mutate_row("t", k.as_bytes(), &[set("q", -1, b"v")])
            .expect("write");
    }
    db.set_now(T0 + 5_000_000);
    let read = |db: &mut Instance, partition: KeyRange, start, end| {
        db.read_change_stream(
            "t",
            &ReadChangeStreamRequest {
                partition,
                start,
                end_micros: end,
            },
        )
        .expect("read")
    };
    let keys = |b: &ChangeStreamBatch| -> Vec<String> {
        b.records
            .iter()
            .map(|r| String::from_utf8_lossy(&r.row_key).into_owned())
            .collect()
    };
    // From a time: that change and later ones.
    let b = read(
        &mut db,
        KeyRange::all(),
        ChangeStart::Time(T0 + 1_000_000),
        None,
    );
    assert_eq!(keys(&b), ["m", "z"]);
    // With an end time (inclusive): changes up to it, and the stream is
    // complete once the clock has passed it.
    let b = read(
        &mut db,
        KeyRange::all(),
        ChangeStart::Time(T0),
        Some(T0 + 1_000_000),
    );
    assert_eq!(keys(&b), ["a", "m"]);
    assert!(b.complete);
    assert_eq!(b.low_watermark_micros, T0 + 1_000_000);
    let open = read(
        &mut db,
        KeyRange::all(),
        ChangeStart::Time(T0),
        Some(T0 + 5_000_000),
    );
    assert_eq!(keys(&open), ["a", "m", "z"]);
    assert!(!open.complete);
    // From a token: what came after it.
    let b = read(
        &mut db,
        KeyRange::all(),
        ChangeStart::after(&KeyRange::all(), b.position),
        None,
    );
    assert_eq!(keys(&b), ["z"]);
    let b = read(
        &mut db,
        KeyRange::all(),
        ChangeStart::after(&KeyRange::all(), b.position),
        None,
    );
    assert!(b.records.is_empty());
    assert_eq!(b.position, 3);
    // One tablet, one partition: a range that is not a partition of the
    // table reads nothing and is pointed at the partition holding it.
    assert_eq!(
        db.change_stream_partitions("t").expect("partitions"),
        vec![KeyRange::all()]
    );
    let part = KeyRange {
        start: b"b".to_vec(),
        end: Some(b"n".to_vec()),
    };
    let b = read(&mut db, part.clone(), ChangeStart::Time(T0), None);
    assert!(b.records.is_empty());
    assert_eq!(
        b.partition_change,
        Some(PartitionChange {
            new_partitions: vec![KeyRange::all()],
            tokens: vec![ChangeToken {
                range: part,
                position: 0
            }],
        })
    );
    // A token never given out, or a start before the retention period.
    let e = db
        .read_change_stream(
            "t",
            &ReadChangeStreamRequest {
                partition: KeyRange::all(),
                start: ChangeStart::after(&KeyRange::all(), 99),
                end_micros: None,
            },
        )
        .expect_err("unknown token");
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = db
        .read_change_stream(
            "t",
            &ReadChangeStreamRequest {
                partition: KeyRange::all(),
                start: ChangeStart::Time(T0 - 2 * DAY),
                end_micros: None,
            },
        )
        .expect_err("too old");
    assert_eq!(e.code(), Code::InvalidArgument);
    // A start in the future.
    let e = db
        .read_change_stream(
            "t",
            &ReadChangeStreamRequest {
                partition: KeyRange::all(),
                start: ChangeStart::Time(T0 + 6_000_000),
                end_micros: None,
            },
        )
        .expect_err("future");
    assert_eq!(e.code(), Code::InvalidArgument);
}

#[test]
fn records_older_than_the_retention_go_and_disabling_stops_recording() {
    let mut db = enabled();
    db.mutate_row("t", b"old", &[set("q", 1000, b"v")])
        .expect("write");
    db.tick(T0 + DAY + 1_000_000);
    db.mutate_row("t", b"new", &[set("q", 2000, b"v")])
        .expect("write");
    let records = everything(&mut db).records;
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].row_key, b"new");
    // A token from before the expired record no longer works.
    let e = db
        .read_change_stream(
            "t",
            &ReadChangeStreamRequest {
                partition: KeyRange::all(),
                start: ChangeStart::after(&KeyRange::all(), 0),
                end_micros: None,
            },
        )
        .expect_err("expired");
    assert_eq!(e.code(), Code::OutOfRange);
    // Changing the retention keeps the records.
    db.set_change_stream("t", Some(ChangeStreamConfig::new(7 * DAY).expect("week")))
        .expect("update");
    assert_eq!(everything(&mut db).records.len(), 1);
    db.set_change_stream("t", None).expect("disable");
    db.mutate_row("t", b"after", &[set("q", 3000, b"v")])
        .expect("write");
    assert_eq!(db.get_table("t").expect("table").change_stream, None);
    assert!(
        db.read_change_stream(
            "t",
            &ReadChangeStreamRequest {
                partition: KeyRange::all(),
                start: ChangeStart::Time(db.now_micros()),
                end_micros: None,
            }
        )
        .is_err()
    );
}

#[test]
fn the_change_stream_survives_a_snapshot() {
    let mut db = enabled();
    db.mutate_row("t", b"r", &[set("q", 1000, b"old"), set("q", 2000, b"new")])
        .expect("write");
    db.mutate_row(
        "t",
        b"r",
        &[
            Mutation::AddToCell {
                family_name: "counters".into(),
                column_qualifier: b"n".as_slice().into(),
                timestamp_micros: 0,
                input: AggregateInput::Raw(7i64.to_be_bytes().to_vec().into()),
            },
            Mutation::DeleteFromColumn {
                family_name: "other".into(),
                column_qualifier: b"x".as_slice().into(),
                time_range: None,
            },
        ],
    )
    .expect("write");
    db.compact(Some("t")).expect("gc");
    let before = everything(&mut db);
    assert_eq!(before.records.len(), 3);
    let bytes = db.snapshot();
    assert_eq!(bytes[8], 5, "a snapshot with a change stream is version 5");
    let mut back = Instance::restore(&bytes).expect("restore");
    assert_eq!(everything(&mut back), before);
    assert_eq!(
        back.get_table("t").expect("t").change_stream,
        db.get_table("t").expect("t").change_stream
    );
    // Sequence numbers carry on where they were.
    back.mutate_row("t", b"s", &[set("q", 1000, b"v")])
        .expect("write");
    assert_eq!(
        everything(&mut back).records.last().map(|r| r.sequence),
        Some(4)
    );
    // Without a change stream the snapshot stays at the older version.
    let mut plain = instance();
    assert_ne!(plain.snapshot()[8], 5);
}

// Partitions follow the tablets. Bigtable's "Change streams overview"
// (understanding partitions) describes a change stream divided by row key
// range along the table's tablets, its partitions changing as tablets
// split and merge. `bigtable.proto` (ReadChangeStreamResponse.CloseStream)
// describes the stream of a changed partition ending with the new
// partitions and continuation tokens over the pieces of the old one, and
// a new partition being read with the tokens that together cover it.

/// A table whose tablets split past 2 KiB and merge below 1 KiB, with a
/// change stream of one day.
fn splitting() -> Instance {
    let mut db = splitting_table(T0, 1024);
    db.set_change_stream("t", Some(ChangeStreamConfig::new(DAY).expect("day")))
        .expect("enable");
    db
}

fn read_from(db: &mut Instance, partition: &KeyRange, start: ChangeStart) -> ChangeStreamBatch {
    db.read_change_stream(
        "t",
        &ReadChangeStreamRequest {
            partition: partition.clone(),
            start,
            end_micros: None,
        },
    )
    .expect("read")
}

fn keys_of(b: &ChangeStreamBatch) -> Vec<String> {
    b.records
        .iter()
        .map(|r| String::from_utf8_lossy(&r.row_key).into_owned())
        .collect()
}

/// Reads every partition from its own tokens (the pieces of the closed
/// partitions inside it), returning the keys read and each partition's
/// heartbeat position.
fn read_new_partitions(
    db: &mut Instance,
    tokens: &[ChangeToken],
) -> (Vec<String>, Vec<(KeyRange, u64)>) {
    let mut keys = Vec::new();
    let mut positions = Vec::new();
    for p in db.change_stream_partitions("t").expect("partitions") {
        let mine: Vec<ChangeToken> = tokens
            .iter()
            .filter(|t| p.contains(&t.range.start))
            .cloned()
            .collect();
        let b = read_from(db, &p, ChangeStart::Tokens(mine));
        assert_eq!(b.partition_change, None);
        assert!(b.records.iter().all(|r| p.contains(&r.row_key)));
        keys.extend(keys_of(&b));
        positions.push((p, b.position));
    }
    keys.sort();
    (keys, positions)
}

#[test]
fn partitions_follow_the_tablets_through_a_split_and_a_merge() {
    let mut db = splitting();
    let key = |i: usize| format!("k{i:03}");
    for i in 0..120 {
        db.mutate_row("t", key(i).as_bytes(), &[set("q", 1000, &[b'v'; 24])])
            .expect("write");
    }
    let whole = db.change_stream_partitions("t").expect("partitions");
    assert_eq!(whole, vec![KeyRange::all()]);
    let first = read_from(&mut db, &whole[0], ChangeStart::Time(T0));
    assert_eq!(first.records.len(), 120);

    // The tablet splits: the old partition's stream ends, pointing at the
    // new partitions with a token for each piece, and reads nothing.
    db.tick(T0 + 1000);
    let parts = db.change_stream_partitions("t").expect("partitions");
    assert!(parts.len() > 1, "{parts:?}");
    assert_eq!(parts[0].start, b"");
    assert_eq!(parts.last().and_then(|p| p.end.clone()), None);
    assert!(
        parts
            .windows(2)
            .all(|w| w[0].end.as_ref() == Some(&w[1].start))
    );
    db.mutate_row("t", key(7).as_bytes(), &[set("q", 2000, b"x")])
        .expect("write");
    db.mutate_row("t", key(110).as_bytes(), &[set("q", 2000, b"x")])
        .expect("write");
    let closed = read_from(
        &mut db,
        &whole[0],
        ChangeStart::after(&whole[0], first.position),
    );
    assert!(closed.records.is_empty());
    let change = closed.partition_change.expect("a partition change");
    assert_eq!(change.new_partitions, parts);
    assert_eq!(change.tokens.len(), parts.len());
    assert!(change.tokens.iter().all(|t| t.position == first.position));

    // Each new partition, read from its token, returns only its own keys:
    // together, the two changes since the token, once each.
    let (keys, positions) = read_new_partitions(&mut db, &change.tokens);
    assert_eq!(keys, [key(7), key(110)]);

    // The rows go, the tablets merge back into one: each old partition's
    // stream ends pointing at the merged one with a token for its own
    // range, and the merged one is read with all of them.
    db.drop_row_range("t", &DropTarget::AllData).expect("drop");
    db.tick(T0 + 2000);
    let merged = db.change_stream_partitions("t").expect("partitions");
    assert_eq!(merged, vec![KeyRange::all()]);
    db.mutate_row("t", key(50).as_bytes(), &[set("q", 3000, b"y")])
        .expect("write");
    let mut tokens = Vec::new();
    for (p, position) in &positions {
        let b = read_from(&mut db, p, ChangeStart::after(p, *position));
        let change = b.partition_change.expect("a partition change");
        assert_eq!(change.new_partitions, merged);
        assert_eq!(
            change.tokens,
            vec![ChangeToken {
                range: p.clone(),
                position: *position
            }]
        );
        tokens.extend(change.tokens);
    }
    // One token alone does not cover the merged partition.
    let e = db
        .read_change_stream(
            "t",
            &ReadChangeStreamRequest {
                partition: merged[0].clone(),
                start: ChangeStart::Tokens(tokens[..1].to_vec()),
                end_micros: None,
            },
        )
        .expect_err("partial cover");
    assert_eq!(e.code(), Code::InvalidArgument);
    let (keys, _) = read_new_partitions(&mut db, &tokens);
    // Since the tokens: the row range drop (one change per row it deleted)
    // and the write after the merge, each once.
    let mut want: Vec<String> = (0..120).map(key).collect();
    want.push(key(50));
    want.sort();
    assert_eq!(keys, want);
}
