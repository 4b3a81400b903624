//! The engine against a naive reference model.
//!
//! Long random sequences of mutations, reads, ticks (flushes, compactions
//! with GC, splits, merges), "compact now", row-range drops and schema
//! changes run against both the real engine (with tiny thresholds, so the
//! tablet layout changes all the time) and `Reference`, a few nested
//! `BTreeMap`s. Every read must agree exactly, including which cells are
//! marked GC-eligible; GC is applied to the reference only for the key
//! ranges the engine reports as compacted, at the same instance time.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::time::Duration;

use tabletop_store::*;

const FAMILIES: [&str; 3] = ["a", "bb", "c"];

#[derive(Clone, Debug)]
enum Op {
    Set {
        row: u8,
        fam: u8,
        qual: u8,
        ts: Option<u8>,
        val: u8,
    },
    DelColumn {
        row: u8,
        fam: u8,
        qual: u8,
        range: Option<(u8, u8)>,
    },
    DelFamily {
        row: u8,
        fam: u8,
    },
    DelRow {
        row: u8,
    },
    /// A multi-mutation row write whose last mutation is invalid.
    BadBatch {
        row: u8,
        fam: u8,
        qual: u8,
    },
    Tick {
        advance_ms: u16,
    },
    CompactNow,
    DropPrefix {
        prefix: u8,
    },
    DropAll,
    DropFamily {
        fam: u8,
    },
    CreateFamily {
        fam: u8,
        rule: u8,
    },
    Read {
        keys: Vec<u8>,
        ranges: Vec<(u8, u8, u8)>,
        reversed: bool,
        limit: u8,
    },
}

fn row_key(r: u8) -> Vec<u8> {
    // Shared prefixes so that prefix drops and ranges cut through groups.
    format!(
        "{}#{:02}",
        ["dev", "dex", "phone", "tab"][usize::from(r % 4)],
        r / 4
    )
    .into_bytes()
}

fn qual(q: u8) -> Vec<u8> {
    match q % 4 {
        0 => Vec::new(),
        1 => b"q1".to_vec(),
        2 => b"q\x00bin".to_vec(),
        _ => b"zz".to_vec(),
    }
}

fn rule(r: u8) -> Option<GcRule> {
    match r % 5 {
        0 => None,
        1 => Some(GcRule::MaxNumVersions(1)),
        2 => Some(GcRule::MaxNumVersions(2)),
        3 => Some(GcRule::MaxAge(Duration::from_millis(3))),
        _ => Some(GcRule::Union(vec![
            GcRule::MaxNumVersions(2),
            GcRule::MaxAge(Duration::from_millis(5)),
        ])),
    }
}

type Column = BTreeMap<Reverse<i64>, Vec<u8>>;
type Row = BTreeMap<(String, Vec<u8>), Column>;

/// The naive model: rows -> (family, qualifier) -> timestamp (newest
/// first) -> value.
#[derive(Default)]
struct Reference {
    rows: BTreeMap<Vec<u8>, Row>,
    families: BTreeMap<String, Option<GcRule>>,
}

impl Reference {
    fn gc_eligible(&self, fam: &str, rank: usize, ts: i64, now: i64) -> bool {
        self.families
            .get(fam)
            .and_then(Option::as_ref)
            .is_some_and(|r| r.erases(rank, ts, now))
    }

    fn collect_garbage(&mut self, start: &[u8], end: Option<&[u8]>, now: i64) {
        let fams = self.families.clone();
        for (key, row) in self.rows.iter_mut() {
            if key.as_slice() < start || end.is_some_and(|e| key.as_slice() >= e) {
                continue;
            }
            for ((fam, _), col) in row.iter_mut() {
                let Some(Some(rule)) = fams.get(fam) else {
                    continue;
                };
                let keep: Column = col
                    .iter()
                    .enumerate()
                    .filter(|(rank, (ts, _))| !rule.erases(*rank, ts.0, now))
                    .map(|(_, (ts, v))| (*ts, v.clone()))
                    .collect();
                *col = keep;
            }
            row.retain(|_, col| !col.is_empty());
        }
        self.rows.retain(|_, row| !row.is_empty());
    }

    fn read(&self, set: &RowSet, reversed: bool, limit: usize, now: i64) -> Vec<OwnedRow> {
        let selected = |key: &[u8]| {
            set.is_all()
                || set.row_keys.iter().any(|k| k == key)
                || set.row_ranges.iter().any(|r| {
                    let after_start = match &r.start {
                        KeyBound::Unbounded => true,
                        KeyBound::Closed(s) => key >= s.as_slice(),
                        KeyBound::Open(s) => key > s.as_slice(),
                    };
                    let before_end = match &r.end {
                        KeyBound::Unbounded => true,
                        KeyBound::Closed(e) => key <= e.as_slice(),
                        KeyBound::Open(e) => key < e.as_slice(),
                    };
                    after_start && before_end
                })
        };
        let mut out = Vec::new();
        let keys: Box<dyn Iterator<Item = (&Vec<u8>, &Row)>> = if reversed {
            Box::new(self.rows.iter().rev())
        } else {
            Box::new(self.rows.iter())
        };
        for (key, row) in keys {
            if !selected(key) {
                continue;
            }
            let mut cells = Vec::new();
            for ((fam, q), col) in row {
                for (rank, (ts, v)) in col.iter().enumerate() {
                    cells.push(OwnedCell {
                        family: fam.clone(),
                        qualifier: q.clone(),
                        timestamp_micros: ts.0,
                        value: v.clone(),
                        labels: vec![],
                        gc_eligible: self.gc_eligible(fam, rank, ts.0, now),
                    });
                }
            }
            if cells.is_empty() {
                continue;
            }
            out.push(OwnedRow {
                key: key.clone(),
                cells,
            });
            if limit > 0 && out.len() >= limit {
                break;
            }
        }
        out
    }
}

fn tiny_config() -> InstanceConfig {
    InstanceConfig {
        engine: EngineConfig {
            memtable_flush_bytes: 200,
            split_bytes: 500,
            merge_bytes: 300,
            gc_interval_micros: 20_000,
            max_runs: 3,
        },
        ..InstanceConfig::default()
    }
}

fn run_ops(ops: &[Op]) {
    let mut db = Instance::new(tiny_config());
    let mut model = Reference::default();
    let mut now: i64 = 1_000_000;
    db.set_now(now);
    let mut schema = TableSchema::default();
    for (i, f) in FAMILIES.iter().enumerate() {
        let r = rule(i as u8 * 2);
        schema
            .families
            .insert((*f).to_string(), ColumnFamily::with_gc(r.clone()));
        model.families.insert((*f).to_string(), r);
    }
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: vec![b"p".to_vec()],
    })
    .expect("create table");

    for (step, op) in ops.iter().enumerate() {
        let ctx = format!("step {step}: {op:?}");
        match op {
            Op::Set {
                row,
                fam,
                qual: q,
                ts,
                val,
            } => {
                let fam = FAMILIES[usize::from(*fam) % 3];
                let ts = ts.map_or(-1, |t| i64::from(t) * 1000);
                let value = vec![*val; usize::from(*val % 7)];
                let res = db.mutate_row(
                    "t",
                    &row_key(*row),
                    &[Mutation::set_cell(fam, &qual(*q), ts, &value)],
                );
                if model.families.contains_key(fam) {
                    res.unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    let ts = if ts == -1 { now - now % 1000 } else { ts };
                    model
                        .rows
                        .entry(row_key(*row))
                        .or_default()
                        .entry((fam.to_string(), qual(*q)))
                        .or_default()
                        .insert(Reverse(ts), value);
                } else {
                    assert_eq!(res.unwrap_err().code(), Code::NotFound, "{ctx}");
                }
            }
            Op::DelColumn {
                row,
                fam,
                qual: q,
                range,
            } => {
                let fam = FAMILIES[usize::from(*fam) % 3];
                let time_range = range.map(|(a, b)| {
                    let (a, b) = (i64::from(a.min(b)) * 1000, i64::from(a.max(b)) * 1000);
                    TimestampRange {
                        start_micros: a,
                        end_micros: b,
                    }
                });
                let m = Mutation::DeleteFromColumn {
                    family_name: fam.into(),
                    column_qualifier: qual(*q).into(),
                    time_range,
                };
                let res = db.mutate_row("t", &row_key(*row), &[m]);
                if model.families.contains_key(fam) {
                    res.unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    if let Some(r) = model.rows.get_mut(&row_key(*row)) {
                        if let Some(col) = r.get_mut(&(fam.to_string(), qual(*q))) {
                            col.retain(|ts, _| !time_range.is_none_or(|tr| tr.contains(ts.0)));
                        }
                        r.retain(|_, c| !c.is_empty());
                    }
                    model.rows.retain(|_, r| !r.is_empty());
                } else {
                    assert!(res.is_err(), "{ctx}");
                }
            }
            Op::DelFamily { row, fam } => {
                let fam = FAMILIES[usize::from(*fam) % 3];
                let res = db.mutate_row(
                    "t",
                    &row_key(*row),
                    &[Mutation::DeleteFromFamily {
                        family_name: fam.into(),
                    }],
                );
                if model.families.contains_key(fam) {
                    res.unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    if let Some(r) = model.rows.get_mut(&row_key(*row)) {
                        r.retain(|(f, _), _| f != fam);
                    }
                    model.rows.retain(|_, r| !r.is_empty());
                } else {
                    assert!(res.is_err(), "{ctx}");
                }
            }
            Op::DelRow { row } => {
                db.mutate_row("t", &row_key(*row), &[Mutation::DeleteFromRow])
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                model.rows.remove(&row_key(*row));
            }
            Op::BadBatch { row, fam, qual: q } => {
                let fam = FAMILIES[usize::from(*fam) % 3];
                let res = db.mutate_row(
                    "t",
                    &row_key(*row),
                    &[
                        Mutation::DeleteFromRow,
                        Mutation::set_cell(fam, &qual(*q), 5000, b"never"),
                        Mutation::set_cell(fam, &qual(*q), 5001, b"bad timestamp"),
                    ],
                );
                assert!(res.is_err(), "{ctx}");
            }
            Op::Tick { advance_ms } => {
                now += i64::from(*advance_ms) * 1000;
                for e in db.tick(now) {
                    if let EngineEvent::Compaction { start, end, .. } = e {
                        model.collect_garbage(&start, end.as_deref(), now);
                    }
                }
                check_layout(&db, &ctx);
            }
            Op::CompactNow => {
                for e in db.compact(Some("t")).expect("compact") {
                    if let EngineEvent::Compaction { start, end, .. } = e {
                        model.collect_garbage(&start, end.as_deref(), now);
                    }
                }
            }
            Op::DropPrefix { prefix } => {
                let p = &row_key(*prefix)[..3 + usize::from(*prefix % 3)];
                db.drop_row_range("t", &DropTarget::Prefix(p.to_vec()))
                    .expect("drop prefix");
                model.rows.retain(|k, _| !k.starts_with(p));
            }
            Op::DropAll => {
                db.drop_row_range("t", &DropTarget::AllData)
                    .expect("drop all");
                model.rows.clear();
            }
            Op::DropFamily { fam } => {
                let fam = FAMILIES[usize::from(*fam) % 3];
                let res = db.modify_column_families("t", &[FamilyChange::Drop(fam.into())]);
                if model.families.remove(fam).is_some() {
                    res.unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    for r in model.rows.values_mut() {
                        r.retain(|(f, _), _| f != fam);
                    }
                    model.rows.retain(|_, r| !r.is_empty());
                } else {
                    assert_eq!(res.unwrap_err().code(), Code::NotFound, "{ctx}");
                }
            }
            Op::CreateFamily { fam, rule: r } => {
                let fam = FAMILIES[usize::from(*fam) % 3];
                let res = db.modify_column_families(
                    "t",
                    &[FamilyChange::Create(
                        fam.into(),
                        ColumnFamily::with_gc(rule(*r)),
                    )],
                );
                if model.families.contains_key(fam) {
                    assert_eq!(res.unwrap_err().code(), Code::AlreadyExists, "{ctx}");
                } else {
                    res.unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    model.families.insert(fam.to_string(), rule(*r));
                }
            }
            Op::Read {
                keys,
                ranges,
                reversed,
                limit,
            } => {
                let set = RowSet {
                    row_keys: keys.iter().map(|k| row_key(*k)).collect(),
                    row_ranges: ranges
                        .iter()
                        .map(|&(a, b, kind)| {
                            let (a, b) = (row_key(a), row_key(b));
                            let (a, b) = if a <= b { (a, b) } else { (b, a) };
                            let start = match kind % 3 {
                                0 => KeyBound::Closed(a),
                                1 => KeyBound::Open(a),
                                _ => KeyBound::Unbounded,
                            };
                            let end = match (kind / 3) % 3 {
                                0 => KeyBound::Closed(b),
                                1 => KeyBound::Open(b),
                                _ => KeyBound::Unbounded,
                            };
                            RowRange { start, end }
                        })
                        .collect(),
                };
                let valid = set.row_ranges.iter().all(|r| {
                    let start = match &r.start {
                        KeyBound::Unbounded => Vec::new(),
                        KeyBound::Closed(k) => k.clone(),
                        KeyBound::Open(k) => [k.as_slice(), b"\0"].concat(),
                    };
                    match &r.end {
                        KeyBound::Unbounded => true,
                        KeyBound::Closed(k) => start < [k.as_slice(), b"\0"].concat(),
                        KeyBound::Open(k) => start < *k,
                    }
                });
                let want = model.read(&set, *reversed, usize::from(*limit % 4), now);
                let mut got = CollectRows::default();
                let req = ReadRowsRequest {
                    rows: set,
                    filter: None,
                    rows_limit: i64::from(*limit % 4),
                    reversed: *reversed,
                };
                if !valid {
                    let e = db.read_rows("t", &req, &mut got).expect_err(&ctx);
                    assert_eq!(e.code(), Code::InvalidArgument, "{ctx}");
                    continue;
                }
                let stats = db
                    .read_rows("t", &req, &mut got)
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert_eq!(got.rows, want, "{ctx}");
                assert_eq!(stats.rows_returned, want.len() as u64, "{ctx}");
            }
        }
    }
    // A final full read, forwards and backwards.
    for reversed in [false, true] {
        let want = model.read(&RowSet::all(), reversed, 0, now);
        let mut got = CollectRows::default();
        let req = ReadRowsRequest {
            reversed,
            ..ReadRowsRequest::default()
        };
        db.read_rows("t", &req, &mut got).expect("final read");
        assert_eq!(got.rows, want, "final read, reversed={reversed}");
    }
}

/// Tablets must cover the key space exactly once, and SampleRowKeys must
/// end with the empty key and never go backwards.
fn check_layout(db: &Instance, ctx: &str) {
    let tablets = db.tablets("t").expect("tablets");
    assert!(tablets[0].start_key.is_empty(), "{ctx}");
    assert_eq!(
        tablets.last().map(|t| t.end_key.clone()),
        Some(None),
        "{ctx}"
    );
    for w in tablets.windows(2) {
        assert_eq!(
            w[0].end_key.as_deref(),
            Some(w[1].start_key.as_slice()),
            "{ctx}"
        );
    }
    let samples = db.sample_row_keys("t").expect("samples");
    assert_eq!(samples.len(), tablets.len(), "{ctx}");
    assert!(samples.last().is_some_and(|(k, _)| k.is_empty()), "{ctx}");
    assert!(samples.windows(2).all(|w| w[0].1 <= w[1].1), "{ctx}");
}

/// A small deterministic generator, so the same sequences run natively and
/// in wasm.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn byte(&mut self) -> u8 {
        (self.next() >> 24) as u8
    }
}

fn random_op(rng: &mut Rng) -> Op {
    let b = |rng: &mut Rng, m: u8| rng.byte() % m;
    match rng.next() % 100 {
        0..=44 => Op::Set {
            row: b(rng, 24),
            fam: b(rng, 3),
            qual: b(rng, 4),
            ts: if rng.byte().is_multiple_of(4) {
                None
            } else {
                Some(b(rng, 12))
            },
            val: rng.byte(),
        },
        45..=51 => Op::DelColumn {
            row: b(rng, 24),
            fam: b(rng, 3),
            qual: b(rng, 4),
            range: if rng.byte().is_multiple_of(2) {
                None
            } else {
                Some((b(rng, 12), b(rng, 12)))
            },
        },
        52..=54 => Op::DelFamily {
            row: b(rng, 24),
            fam: b(rng, 3),
        },
        55..=57 => Op::DelRow { row: b(rng, 24) },
        58..=60 => Op::BadBatch {
            row: b(rng, 24),
            fam: b(rng, 3),
            qual: b(rng, 4),
        },
        61..=70 => Op::Tick {
            advance_ms: u16::from(b(rng, 8)),
        },
        71 => Op::CompactNow,
        72 => Op::DropPrefix { prefix: b(rng, 24) },
        73 => {
            if rng.byte().is_multiple_of(8) {
                Op::DropAll
            } else {
                Op::DelRow { row: b(rng, 24) }
            }
        }
        74 => Op::DropFamily { fam: b(rng, 3) },
        75..=76 => Op::CreateFamily {
            fam: b(rng, 3),
            rule: rng.byte(),
        },
        _ => Op::Read {
            keys: (0..b(rng, 3)).map(|_| b(rng, 24)).collect(),
            ranges: (0..b(rng, 3))
                .map(|_| (b(rng, 24), b(rng, 24), b(rng, 9)))
                .collect(),
            reversed: rng.byte().is_multiple_of(2),
            limit: rng.byte(),
        },
    }
}

#[test]
fn long_random_sequences_match_the_reference() {
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let ops: Vec<Op> = (0..3000).map(|_| random_op(&mut rng)).collect();
        run_ops(&ops);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod shrinking {
    use super::*;
    use proptest::prelude::*;

    fn op() -> impl Strategy<Value = Op> {
        any::<u64>().prop_map(|s| random_op(&mut Rng(s | 1)))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        #[test]
        fn random_sequences_match_the_reference(ops in proptest::collection::vec(op(), 1..400)) {
            run_ops(&ops);
        }
    }
}
