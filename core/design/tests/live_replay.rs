//! A scenario becomes data, then traffic: its sample rows written into a
//! real table in one burst, then its workload replayed on that table. The
//! live Key Visualizer of that table must name what the simulation names
//! for the same design, even though the bulk load is one bucket far
//! busier than any bucket of the replay.

mod common;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::keyviz::{LiveKeyViz, LiveOptions, LiveReport, MessageKind, Pattern};
use tabletop_design::sim::{ReplaySpec, SampleMoment, SampleSpec, Simulation};

const TIMESTAMP_FIRST: &str = include_str!("../../../static/scenarios/mobile_timestamp_first.toml");
const DEVICE_FIRST: &str = include_str!("../../../static/scenarios/mobile_device_first.toml");

/// Loads `rows` sample rows of the design, replays `ops` requests of its
/// workload, and returns the live report of its table.
fn load_then_replay(scenario: &str, rows: u64, ops: u64) -> LiveReport {
    let sim = Simulation::from_toml(scenario).expect("the example scenarios parse");
    let mut db = common::fixed_clock();
    let table = sim.scenario().table.id.clone();
    db.create_table(sim.table_request(&table)).unwrap();
    let mut sample = sim
        .sample_rows(SampleSpec {
            rows,
            seed: 0,
            moment: SampleMoment::EndOfRun,
        })
        .cells_end_at(db.now_micros());
    while sample.write_batch(&mut db, &table, 256).unwrap() > 0 {}
    let mut replay = sim.replay(
        &table,
        ReplaySpec {
            ops,
            columns: 30,
            seed: 0,
        },
    );
    replay.run(&mut db, &mut || false).unwrap();
    LiveKeyViz::build(&mut db, &table, &LiveOptions::default())
        .unwrap()
        .report(None)
}

fn patterns(r: &LiveReport) -> Vec<Pattern> {
    r.diagnostics.iter().map(|d| d.pattern).collect()
}

#[test]
fn a_replayed_timestamp_first_design_names_sequential_writes_after_a_bulk_load() {
    let sim_report = Simulation::from_toml(TIMESTAMP_FIRST).unwrap().run_to_end();
    assert!(
        sim_report
            .diagnostics
            .iter()
            .any(|d| d.pattern == Pattern::SequentialWrites),
        "the simulation names it"
    );
    // The load (10,000 rows in one bucket) is far busier than any bucket
    // of the replay (about 600 writes each).
    let live = load_then_replay(TIMESTAMP_FIRST, 10_000, 20_000);
    assert!(live.time_buckets >= 30, "{}", live.time_buckets);
    let found = patterns(&live);
    assert!(
        found.contains(&Pattern::SequentialWrites),
        "{found:?}\n{}",
        live.to_text()
    );
    assert!(!found.contains(&Pattern::Even), "{found:?}");
    let d = &live.diagnostics[0];
    assert_eq!(d.pattern, Pattern::SequentialWrites);
    assert!(
        d.evidence.contains("towards the end of the key space"),
        "{}",
        d.evidence
    );
}

#[test]
fn a_replayed_device_first_design_has_no_sequential_writes() {
    let live = load_then_replay(DEVICE_FIRST, 10_000, 20_000);
    let found = patterns(&live);
    assert!(live.totals.write_rows > 20_000.0, "{:?}", live.totals);
    assert!(!found.contains(&Pattern::SequentialWrites), "{found:?}");
}

/// The simulation runs the timestamp-first scenario at its full rate
/// (22,000 writes a second, all on the newest keys) and names high write
/// pressure; the replay sends a scaled-down stream (20,000 requests over
/// five minutes of instance time, about 67 a second), and the live map
/// measures what the instance really served: no node comes near its
/// capacity, so it names no pressure, as production would not. The
/// replay says by how much it is scaled down, for the page to explain.
#[test]
fn a_scaled_down_replay_loads_the_live_map_only_at_its_own_rate() {
    let mut sim = Simulation::from_toml(TIMESTAMP_FIRST).unwrap();
    let rate = sim.replay("t", ReplaySpec::default()).rate();
    assert!(
        (rate.scenario_per_second - 22_000.0).abs() < 1.0,
        "{rate:?}"
    );
    assert!(
        (rate.replay_per_second - 20_000.0 / 300.0).abs() < 1e-6,
        "{rate:?}"
    );
    assert!(rate.fraction() < 0.01, "{}", rate.fraction());
    let full = sim.run_to_end();
    let high = |messages: &[tabletop_design::keyviz::GoogleMessage]| {
        messages
            .iter()
            .any(|m| m.kind == MessageKind::HighWritePressure)
    };
    assert!(high(&full.messages), "the simulation names it");
    let live = load_then_replay(TIMESTAMP_FIRST, 10_000, 20_000);
    assert!(!high(&live.messages), "{:?}", live.messages);
    // Asked for as many requests as the scenario sends, the replay is at
    // full rate.
    let dense = sim.replay(
        "t",
        ReplaySpec {
            ops: 22_000 * 300,
            ..ReplaySpec::default()
        },
    );
    assert!((dense.rate().fraction() - 1.0).abs() < 1e-9);
}
