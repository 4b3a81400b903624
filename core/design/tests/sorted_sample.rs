//! A scenario's rows imported in key order ([`SortedRows`]) are exactly
//! the rows its random stream ([`SampleRows`]) draws, written in strictly
//! ascending key order, whatever the scenario, seed, size and step sizes;
//! they read back as the randomly ordered bulk write leaves them; a stop
//! part way keeps the smallest keys.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::collections::HashMap;

use tabletop_design::sim::{
    BUCKET_ROWS, SampleMoment, SampleRows, SampleSpec, Simulation, SortedPhase, SortedRows,
};
use tabletop_sql::Instance;
use tabletop_store::{CollectRows, KeyBound, ReadRowsRequest, RowRange, RowSet};

/// Key templates of different shapes: a timestamp first (keys share long
/// prefixes), an entity first, sequential ids, a salt, a tiny key space.
const SCENARIOS: [&str; 5] = [
    include_str!("../../../static/scenarios/mobile_timestamp_first.toml"),
    include_str!("../../../static/scenarios/mobile_device_first.toml"),
    include_str!("../../../static/scenarios/user_ids_sequential.toml"),
    include_str!("../../../static/scenarios/salted_timestamps.toml"),
    include_str!("../../../static/scenarios/hot_row_counter.toml"),
];

fn sim(text: &str) -> Simulation {
    Simulation::from_toml(text).unwrap()
}

fn spec(rows: u64, seed: u64) -> SampleSpec {
    SampleSpec {
        rows,
        seed,
        moment: SampleMoment::EndOfRun,
    }
}

/// Every row of the random stream: key -> (value, timestamp).
fn drawn(mut stream: SampleRows) -> HashMap<Vec<u8>, (Vec<u8>, i64)> {
    let mut rows = HashMap::new();
    loop {
        let b = stream.next_batch(1000);
        if b.is_empty() {
            return rows;
        }
        for i in 0..b.len() {
            rows.insert(b.key(i).to_vec(), (b.value(i).to_vec(), b.timestamp(i)));
        }
    }
}

/// What a table holds: (key, family, value, timestamp) per cell.
fn table(db: &mut Instance, id: &str) -> Vec<(Vec<u8>, String, Vec<u8>, i64)> {
    let mut rows = CollectRows::default();
    db.read_rows(id, &ReadRowsRequest::default(), &mut rows)
        .unwrap();
    rows.rows
        .into_iter()
        .flat_map(|row| {
            let key = row.key;
            row.cells
                .into_iter()
                .map(move |c| (key.clone(), c.family, c.value, c.timestamp_micros))
        })
        .collect()
}

/// The keys past `after` (all when `None`), ascending.
fn keys_after(db: &mut Instance, id: &str, after: Option<&Vec<u8>>) -> Vec<Vec<u8>> {
    let start = after.map_or(KeyBound::Unbounded, |k| KeyBound::Open(k.clone()));
    let range = RowRange {
        start,
        end: KeyBound::Unbounded,
    };
    let mut rows = CollectRows::default();
    db.read_rows(id, &ReadRowsRequest::rows(RowSet::range(range)), &mut rows)
        .unwrap();
    rows.rows.into_iter().map(|r| r.key).collect()
}

fn table_keys(db: &mut Instance, id: &str) -> Vec<Vec<u8>> {
    keys_after(db, id, None)
}

/// One import batch; checks that all its rows sort after every key
/// written before (`keys`, to which they are added). Returns its rows.
fn import_checked(
    sorted: &mut SortedRows,
    db: &mut Instance,
    id: &str,
    step: usize,
    keys: &mut Vec<Vec<u8>>,
) -> usize {
    let n = sorted.import_batch(db, id, step).unwrap();
    assert!(n <= step);
    // The table's keys are distinct, so a row of the batch sorting
    // before the last key would leave fewer than `n` past it.
    let new = keys_after(db, id, keys.last());
    assert_eq!(new.len(), n, "the batch sorts after the rows before it");
    keys.extend(new);
    n
}

/// Draws and imports everything with these step sizes; returns the keys
/// in the order they were written.
fn import_all(
    sorted: &mut SortedRows,
    db: &mut Instance,
    id: &str,
    draw_step: usize,
    write_step: usize,
) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    while sorted.phase() == SortedPhase::Drawing {
        sorted.draw(draw_step);
        if sorted.phase() == SortedPhase::Drawing {
            assert_eq!(sorted.import_batch(db, id, write_step).unwrap(), 0);
        }
    }
    while import_checked(sorted, db, id, write_step, &mut keys) > 0 {}
    assert!(sorted.is_done());
    keys
}

#[test]
fn the_sorted_rows_are_the_streams_rows_in_key_order() {
    for (n, text) in SCENARIOS.iter().enumerate() {
        let sim = sim(text);
        let rows = 3_000 + 500 * n as u64;
        let expected = drawn(sim.sample_rows(spec(rows, n as u64)));
        let mut sorted = SortedRows::new(sim.sample_rows(spec(rows, n as u64)));
        let mut db = Instance::default();
        db.create_table(sim.table_request("t")).unwrap();
        let keys = import_all(&mut sorted, &mut db, "t", 333, 250);
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "strictly ascending");
        assert_eq!(keys.len(), expected.len(), "scenario {n}");
        assert_eq!(sorted.rows_written(), expected.len() as u64);
        assert_eq!(sorted.rows_drawn(), expected.len() as u64);
        let families = sorted.families().len();
        let cells = table(&mut db, "t");
        assert_eq!(cells.len(), keys.len() * families);
        for (key, _, value, timestamp) in &cells {
            let (v, ts) = expected.get(key).expect("a drawn key");
            assert_eq!((value, timestamp), (v, ts));
        }
    }
}

#[test]
fn sorted_imports_read_back_as_the_random_bulk_write() {
    let sim = sim(SCENARIOS[0]);
    let mut written = Instance::default();
    let mut imported = Instance::default();
    for db in [&mut written, &mut imported] {
        db.create_table(sim.table_request("t")).unwrap();
    }
    let mut stream = sim.sample_rows(spec(20_000, 5));
    while stream.write_batch(&mut written, "t", 256).unwrap() > 0 {}
    let mut sorted = SortedRows::new(sim.sample_rows(spec(20_000, 5)));
    while sorted.phase() == SortedPhase::Drawing {
        sorted.draw(4096);
    }
    while sorted.import_batch(&mut imported, "t", 256).unwrap() > 0 {}
    assert_eq!(table(&mut imported, "t"), table(&mut written, "t"));
}

#[test]
fn the_buckets_cut_the_rows_about_evenly() {
    // Watch the buckets through what one import batch may hold: a batch
    // never spans two buckets, so with huge batches each import is one
    // bucket.
    let sim = sim(SCENARIOS[0]);
    let mut sorted = SortedRows::new(sim.sample_rows(spec(200_000, 1)));
    while sorted.phase() == SortedPhase::Drawing {
        sorted.draw(10_000);
    }
    let mut db = Instance::default();
    db.create_table(sim.table_request("t")).unwrap();
    let mut sizes = Vec::new();
    loop {
        let n = sorted.import_batch(&mut db, "t", usize::MAX).unwrap();
        if n == 0 {
            break;
        }
        sizes.push(n as u64);
    }
    let buckets = 200_000u64.div_ceil(BUCKET_ROWS);
    assert_eq!(sizes.len() as u64, buckets, "{sizes:?}");
    assert_eq!(sizes.iter().sum::<u64>(), 200_000);
    let largest = sizes.iter().max().copied().unwrap_or(0);
    assert!(
        largest < 2 * BUCKET_ROWS,
        "largest bucket {largest}: {sizes:?}"
    );
}

#[test]
fn a_stop_part_way_keeps_the_smallest_keys() {
    let sim = sim(SCENARIOS[1]);
    let mut all: Vec<Vec<u8>> = drawn(sim.sample_rows(spec(10_000, 2)))
        .into_keys()
        .collect();
    all.sort();
    let mut sorted = SortedRows::new(sim.sample_rows(spec(10_000, 2)));
    let mut db = Instance::default();
    db.create_table(sim.table_request("t")).unwrap();
    // Stopped while drawing: nothing written.
    sorted.draw(5_000);
    assert_eq!(sorted.phase(), SortedPhase::Drawing);
    assert!(table_keys(&mut db, "t").is_empty());
    sorted.draw(usize::MAX);
    for _ in 0..7 {
        sorted.import_batch(&mut db, "t", 500).unwrap();
    }
    assert_eq!(sorted.phase(), SortedPhase::Writing);
    let kept = table_keys(&mut db, "t");
    assert_eq!(kept.len() as u64, sorted.rows_written());
    assert_eq!(kept.len(), 3_500);
    assert_eq!(kept[..], all[..kept.len()], "a key prefix of the set");
}

#[test]
fn a_refused_batch_ends_the_work_with_a_clear_error() {
    let sim = sim(SCENARIOS[0]);
    let mut sorted = SortedRows::new(sim.sample_rows(spec(100, 1)));
    sorted.draw(usize::MAX);
    assert_eq!(sorted.phase(), SortedPhase::Writing);
    let mut db = Instance::default();
    let err = sorted.import_batch(&mut db, "nope", 50).unwrap_err();
    assert!(err.message().contains("scenario's rows"), "{err}");
    assert!(sorted.is_done());
    assert_eq!(sorted.rows_written(), 0);
    assert_eq!(sorted.import_batch(&mut db, "nope", 50).unwrap(), 0);
}

#[test]
fn an_empty_or_tiny_key_space_still_ends() {
    let sim = sim(SCENARIOS[4]);
    let mut sorted = SortedRows::new(sim.sample_rows(spec(0, 1)));
    sorted.draw(10);
    assert!(sorted.is_done(), "nothing to write");
    assert!((sorted.phase_fraction() - 1.0).abs() < f64::EPSILON);
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        /// Any scenario, seed, size and step sizes: the same set of rows
        /// as the random draw, strictly ascending.
        #[test]
        fn same_set_in_ascending_order(
            scenario in 0usize..SCENARIOS.len(),
            seed in 0u64..1_000,
            rows in 0u64..30_000,
            draw_step in 1usize..20_000,
            write_step in 1usize..3_000,
        ) {
            let sim = sim(SCENARIOS[scenario]);
            let mut expected: Vec<Vec<u8>> =
                drawn(sim.sample_rows(spec(rows, seed))).into_keys().collect();
            expected.sort();
            let mut sorted = SortedRows::new(sim.sample_rows(spec(rows, seed)));
            let mut db = Instance::default();
            db.create_table(sim.table_request("t")).unwrap();
            let mut keys = Vec::new();
            while !sorted.is_done() {
                sorted.draw(draw_step);
                import_checked(&mut sorted, &mut db, "t", write_step, &mut keys);
            }
            prop_assert_eq!(&table_keys(&mut db, "t"), &keys);
            prop_assert!(keys.windows(2).all(|w| w[0] < w[1]));
            prop_assert_eq!(keys, expected);
        }
    }
}
