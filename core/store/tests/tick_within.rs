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
