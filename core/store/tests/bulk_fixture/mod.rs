//! The table the bulk write's and the sorted import's tests share: small
//! engine thresholds (a few hundred rows flush, compact, split and merge
//! tablets), families under a version rule, an age rule and an aggregate,
//! a change stream, and the generated cells both write.

#![allow(dead_code)] // each test file uses its own part

use std::time::Duration;

use proptest::prelude::*;
use tabletop_store::*;

pub const T0: i64 = 1_588_291_200_000_000;
pub const DAY: i64 = 86_400_000_000;
pub const SPLIT_BYTES: u64 = 1_500;

/// Small thresholds, so a few hundred rows flush, compact, split and
/// merge tablets.
pub fn tiny_config() -> InstanceConfig {
    InstanceConfig {
        engine: EngineConfig {
            memtable_flush_bytes: 400,
            split_bytes: SPLIT_BYTES,
            merge_bytes: 600,
            gc_interval_micros: 20_000,
            max_runs: 3,
        },
        ..InstanceConfig::default()
    }
}

/// An instance at `T0` holding table `t` (families `a`: one version, `b`:
/// 4 ms, `sum`: an aggregate), split at `split_key`, with a change stream.
pub fn instance(split_key: &[u8]) -> Instance {
    let mut db = Instance::new(tiny_config());
    db.set_now(T0);
    let mut schema = TableSchema::default();
    schema.families.insert(
        "a".into(),
        ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
    );
    schema.families.insert(
        "b".into(),
        ColumnFamily::with_gc(Some(GcRule::MaxAge(Duration::from_millis(4)))),
    );
    schema.families.insert(
        "sum".into(),
        ColumnFamily {
            gc_rule: None,
            value_type: ValueType::Aggregate(Aggregator::Sum),
        },
    );
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: vec![split_key.to_vec()],
    })
    .expect("create table");
    db.set_change_stream("t", Some(ChangeStreamConfig::new(DAY).expect("a day")))
        .expect("change stream");
    db
}

/// One generated cell: family `a` (else `b`), qualifier, timestamp in ms
/// (-1: server time), value length.
pub type Cell = (bool, u8, i64, usize);
/// One generated row: key number and cells.
pub type Row = (u16, Vec<Cell>);

pub fn cell() -> impl Strategy<Value = Cell> {
    (any::<bool>(), 0u8..3, -1i64..6, 0usize..40)
}

/// The SetCell a generated cell stands for.
pub fn set_cell(&(fam_a, q, ts, len): &Cell) -> Mutation<'static> {
    Mutation::set_cell(
        if fam_a { "a" } else { "b" },
        &[b'q', b'0' + q],
        if ts < 0 { -1 } else { ts * 1000 },
        &vec![b'v'; len],
    )
    .into_owned()
}

/// The table's whole change stream, read from a copy.
pub fn changes(db: &Instance) -> ChangeStreamBatch {
    db.clone()
        .read_change_stream(
            "t",
            &ReadChangeStreamRequest {
                partition: KeyRange::all(),
                start: ChangeStart::Time(T0),
                end_micros: None,
            },
        )
        .expect("change stream")
}

/// The change stream's records of one kind, without their sequence
/// numbers (which count the records of both kinds).
pub fn records(db: &Instance, kind: ChangeKind) -> Vec<(i64, Vec<u8>, Vec<Mutation<'static>>)> {
    changes(db)
        .records
        .into_iter()
        .filter(|r| r.kind == kind)
        .map(|r| (r.commit_micros, r.row_key, r.mutations))
        .collect()
}
