//! A tick in a time budget: stopped after every piece of work, repeated
//! ticks at the same time end where one whole tick ends (the same
//! tablets, ids included, and the same rows), each doing little.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_store::*;

const T0: i64 = 1_588_291_200_000_000;

fn loaded() -> Instance {
    let mut db = Instance::new(InstanceConfig {
        engine: EngineConfig {
            memtable_flush_bytes: 2_000,
            split_bytes: 6_000,
            merge_bytes: 1_000,
            gc_interval_micros: 1_000_000,
            max_runs: 3,
        },
        ..InstanceConfig::default()
    });
    db.set_now(T0);
    let mut schema = TableSchema::default();
    schema.families.insert(
        "cf".into(),
        ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
    );
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: vec![b"m".to_vec()],
    })
    .expect("table");
    // Keys spread over the table, two versions each, never ticked: every
    // tablet has flushes, compactions and splits due.
    for version in 0..2i64 {
        for i in 0..600u32 {
            let key = format!("{}{:05}", (b'a' + (i % 26) as u8) as char, i * 7919 % 600);
            db.mutate_row(
                "t",
                key.as_bytes(),
                &[Mutation::set_cell("cf", b"q", version * 1000, &[b'v'; 40])],
            )
            .expect("write");
        }
    }
    db
}

fn rows(db: &Instance) -> Vec<OwnedRow> {
    let mut copy = db.clone();
    let mut out = CollectRows::default();
    copy.read_rows("t", &ReadRowsRequest::default(), &mut out)
        .expect("read");
    out.rows
}

fn layout(db: &Instance) -> Vec<(u64, Vec<u8>, u64)> {
    db.tablets("t")
        .expect("tablets")
        .into_iter()
        .map(|t| (t.id, t.start_key, t.bytes))
        .collect()
}

#[test]
fn ticks_out_of_time_end_where_one_whole_tick_ends() {
    let later = T0 + 2_000_000;
    let mut whole = loaded();
    let all = whole.tick(later);
    let mut bit_by_bit = loaded();
    let mut ticks = 0;
    let mut seen = 0;
    loop {
        let (events, finished) = bit_by_bit.tick_within(later, &mut || true);
        ticks += 1;
        // At most one tablet's flush and compaction, and the split or
        // merge that follows, per tick.
        let compactions = events
            .iter()
            .filter(|e| matches!(e, EngineEvent::Compaction { .. }))
            .count();
        assert!(compactions <= 3, "{compactions} compactions in one tick");
        seen += events.len();
        if finished {
            break;
        }
        assert!(ticks < 1_000, "the budgeted ticks never finish");
    }
    assert!(ticks > 3, "the work came in pieces ({ticks} ticks)");
    assert!(layout(&whole).len() > 4, "the load split tablets");
    assert_eq!(layout(&bit_by_bit), layout(&whole));
    assert_eq!(rows(&bit_by_bit), rows(&whole));
    assert!(seen >= all.len());
    // Nothing is left: another whole tick at the same time does nothing.
    assert!(bit_by_bit.tick(later).is_empty());
}

/// Tablets past the split size, none past four times it (which writes
/// split at once): only ticks split them.
fn many_to_split() -> Instance {
    let mut db = Instance::new(InstanceConfig {
        engine: EngineConfig {
            memtable_flush_bytes: 1_000,
            split_bytes: 4_000,
            merge_bytes: 100,
            gc_interval_micros: 1_000_000_000,
            max_runs: 100,
        },
        ..InstanceConfig::default()
    });
    db.set_now(T0);
    let mut schema = TableSchema::default();
    schema.families.insert("cf".into(), ColumnFamily::default());
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: (b'b'..=b'z').map(|c| vec![c]).collect(),
    })
    .expect("table");
    for i in 0..2_600u32 {
        let key = format!("{}{:05}", (b'a' + (i % 26) as u8) as char, i);
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", b"q", 1000, &[b'v'; 40])],
        )
        .expect("write");
    }
    db
}

fn compactions(events: &[EngineEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, EngineEvent::Compaction { .. }))
        .count()
}

/// A tick that runs out of time after compacting several tablets still
/// splits them all, and a compacted tablet past the split size is split
/// as it is, never compacted again (a page loading data whose ticks kept
/// running out of time copied the same tablets over and over).
#[test]
fn a_tablet_compacted_before_time_ran_out_is_not_compacted_again() {
    let later = T0 + 2_000_000;
    let mut whole = many_to_split();
    let once = compactions(&whole.tick(later));
    assert_eq!(layout(&whole).len(), 26 * 2, "every tablet split in two");
    let mut bit_by_bit = many_to_split();
    let mut total = 0;
    for _ in 0..1_000 {
        // Time runs out at the third look at the clock.
        let mut looks = 0;
        let (events, finished) = bit_by_bit.tick_within(later, &mut || {
            looks += 1;
            looks >= 3
        });
        total += compactions(&events);
        let splits = events
            .iter()
            .filter(|e| matches!(e, EngineEvent::Split { .. }))
            .count();
        assert_eq!(
            splits,
            compactions(&events),
            "each tablet compacted is split at once"
        );
        if finished {
            break;
        }
    }
    assert_eq!(layout(&bit_by_bit), layout(&whole));
    assert_eq!(rows(&bit_by_bit), rows(&whole));
    assert_eq!(
        total, once,
        "every tablet compacted once, as in one whole tick"
    );
}

/// Everything [`Instance::tablets`] says of a table but its heap bytes
/// (allocators' capacities differ with the path taken).
#[cfg(not(target_arch = "wasm32"))]
fn full_layout(db: &Instance) -> Vec<TabletInfo> {
    db.tablets("t")
        .expect("tablets")
        .into_iter()
        .map(|t| TabletInfo { heap_bytes: 0, ..t })
        .collect()
}

/// A small engine whose thresholds every test round crosses.
fn small_engine() -> Instance {
    let mut db = Instance::new(InstanceConfig {
        engine: EngineConfig {
            memtable_flush_bytes: 1_500,
            split_bytes: 5_000,
            merge_bytes: 2_000,
            gc_interval_micros: 3_000_000,
            max_runs: 2,
        },
        ..InstanceConfig::default()
    });
    db.set_now(T0);
    let mut schema = TableSchema::default();
    schema.families.insert("cf".into(), ColumnFamily::default());
    schema.families.insert(
        "gc".into(),
        ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
    );
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: vec![b"k".to_vec()],
    })
    .expect("table");
    db
}

/// One thing done to both instances between ticks.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Debug)]
enum Op {
    /// Writes `versions` cells of `len` bytes to row `key` in both families.
    Write {
        key: u16,
        len: usize,
        versions: u8,
    },
    DeleteRow {
        key: u16,
    },
    DropPrefix {
        prefix: u8,
    },
    /// Moves the clock on by this many milliseconds.
    Wait {
        ms: u32,
    },
}

#[cfg(not(target_arch = "wasm32"))]
fn row_key(key: u16) -> Vec<u8> {
    format!("{}{:04}", (b'a' + (key % 20) as u8) as char, key).into_bytes()
}

#[cfg(not(target_arch = "wasm32"))]
fn apply(db: &mut Instance, op: &Op, now: &mut i64) {
    match *op {
        Op::Write { key, len, versions } => {
            for v in 0..i64::from(versions) {
                let value = vec![b'v'; len];
                db.mutate_row(
                    "t",
                    &row_key(key),
                    &[
                        Mutation::set_cell("cf", b"q", *now + v * 1000, &value[..]),
                        Mutation::set_cell("gc", b"q", *now + v * 1000, &value[..]),
                    ],
                )
                .expect("write");
            }
        }
        Op::DeleteRow { key } => {
            db.mutate_row("t", &row_key(key), &[Mutation::DeleteFromRow])
                .expect("delete");
        }
        Op::DropPrefix { prefix } => {
            let target = DropTarget::Prefix(vec![b'a' + prefix % 20]);
            db.drop_row_range("t", &target).expect("drop");
        }
        Op::Wait { ms } => *now += i64::from(ms) * 1000,
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        8 => (0..400u16, 1..200usize, 1..4u8)
            .prop_map(|(key, len, versions)| Op::Write { key, len, versions }),
        2 => (0..400u16).prop_map(|key| Op::DeleteRow { key }),
        1 => (0..20u8).prop_map(|prefix| Op::DropPrefix { prefix }),
        2 => (0..5_000u32).prop_map(|ms| Op::Wait { ms }),
    ]
}

/// Budgeted ticks on a fake clock: each look at the clock moves it on by
/// a step, and the tick has `budget` of it. Every pass reads the table in
/// between (reads prepare memtables, and must not disturb the upkeep).
#[cfg(not(target_arch = "wasm32"))]
fn tick_paced(db: &mut Instance, now: i64, budget: f64, step: f64) -> usize {
    let mut ticks = 0;
    let mut clock_ms = 0.0;
    loop {
        let deadline = clock_ms + budget;
        let mut clock = || {
            clock_ms += step;
            clock_ms
        };
        let (_, finished) = db.tick_until(now, deadline, &mut clock);
        ticks += 1;
        let _ = rows(db);
        if finished {
            return ticks;
        }
        assert!(ticks < 10_000, "budgeted ticks never finish");
    }
}

#[cfg(not(target_arch = "wasm32"))]
proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(48))]

    /// Whatever the budgets, and whatever is written, deleted and dropped
    /// between rounds, the budgeted ticks of a round leave the tablets
    /// (ids, bounds, runs, GC times) and the rows one whole tick leaves.
    #[test]
    fn budgeted_ticks_leave_what_one_whole_tick_leaves(
        rounds in proptest::collection::vec(
            (proptest::collection::vec(op(), 1..40), 0.0..3.0f64, 0.1..2.0f64),
            1..12,
        ),
    ) {
        let mut whole = small_engine();
        let mut paced = small_engine();
        let mut now = T0;
        for (ops, budget, step) in &rounds {
            let mut paced_now = now;
            for op in ops {
                apply(&mut whole, op, &mut now);
                apply(&mut paced, op, &mut paced_now);
            }
            whole.tick(now);
            tick_paced(&mut paced, now, *budget, *step);
            proptest::prop_assert_eq!(full_layout(&paced), full_layout(&whole));
            proptest::prop_assert_eq!(rows(&paced), rows(&whole));
            // Nothing is left due: another tick at the same time is idle.
            proptest::prop_assert!(paced.tick(now).is_empty());
        }
    }
}

/// A budget too small for any piece still gets the work done: ticks that
/// could start nothing are followed by one that starts its first piece.
#[test]
fn a_budget_too_small_for_any_piece_still_gets_the_work_done() {
    let later = T0 + 2_000_000;
    let mut whole = loaded();
    whole.tick(later);
    let mut starved = loaded();
    let mut idle = 0;
    let mut ticks = 0;
    loop {
        // The clock stands past the deadline: no piece fits.
        let (events, finished) = starved.tick_until(later, 0.0, &mut || 1.0);
        ticks += 1;
        idle += usize::from(events.is_empty());
        if finished {
            break;
        }
        assert!(ticks < 10_000, "starved ticks never finish");
    }
    assert!(idle > 0, "ticks out of time started nothing");
    assert_eq!(layout(&starved), layout(&whole));
    assert_eq!(rows(&starved), rows(&whole));
}

/// A compaction estimated to take longer than the time left is not
/// started, and one that fits is: a tick given room for small tablets only
/// leaves the big one for a tick with more time.
#[test]
fn a_compaction_that_cannot_finish_in_time_waits_for_a_tick_with_room() {
    let later = T0 + 2_000_000;
    let mut db = small_engine();
    for i in 0..40u32 {
        let key = format!("a{i:04}");
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", b"q", 1000, &[b'v'; 100][..])],
        )
        .expect("write");
    }
    // Time stands still and the deadline is 1 ms away: at the default pace
    // (40 ns a byte) a piece over 25 KB does not fit; the tablets here are
    // a few KB, so the tick does its work.
    let (events, finished) = db.tick_until(later, 1.0, &mut || 0.0);
    assert!(finished, "small pieces fit: {events:?}");
    assert!(!events.is_empty());
    for i in 0..40u32 {
        let key = format!("b{i:04}");
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", b"q", 1000, &[b'v'; 100][..])],
        )
        .expect("write");
    }
    // Half a microsecond, and GC due everywhere: no compaction fits, and
    // the tick stops before any.
    let (events, finished) = db.tick_until(later + 10_000_000, 0.0005, &mut || 0.0);
    assert!(!finished);
    assert_eq!(compactions(&events), 0, "{events:?}");
    let (events, finished) = db.tick_until(later + 10_000_000, 100.0, &mut || 0.0);
    assert!(finished);
    assert!(compactions(&events) > 0, "{events:?}");
}
