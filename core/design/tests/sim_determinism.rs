//! Same scenario and seed, same report: run to the end or in slices, twice,
//! natively or in wasm.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::keyviz::{BucketMode, Metric};
use tabletop_design::sim::{Scenario, Simulation, Step};

const SMALL: &str = r##"
name = "determinism"
seed = 42
duration = "20m"

[table]
rows = 200_000
entities = 5_000
families = { cf = { max_versions = 3 } }

[cluster]
nodes = 3
split_bytes = 16_777_216

[key]
segments = [
  { name = "salt", kind = "salt", buckets = 4, of = "user" },
  { name = "user", kind = "name" },
  { name = "day", kind = "date" },
  { name = "event", kind = "uuid", per = "op" },
]

[[workload]]
op = "write"
rate = 3_000
keys = { zipf = 1.3 }
shape = { diurnal = { period = "10m", low = 0.3 } }

[[workload]]
op = "scan"
rate = 50
prefix_segments = 2
rows = 500

[[workload]]
op = "read"
rate = 800
keys = "hot_key"
hot_entity = 17
shape = { spike = { at = "8m", length = "2m", factor = 5 } }

[[workload]]
op = "full_scan"
rate = 0.01
selectivity = 0.01

[keyviz]
time_buckets = 60
fine_buckets = 512

[sim]
sample_ops = 30_000
"##;

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[test]
fn same_seed_same_report() {
    let a = Simulation::from_toml(SMALL).unwrap().run_to_end();
    let b = Simulation::from_toml(SMALL).unwrap().run_to_end();
    assert_eq!(a, b);
    assert_eq!(a.to_text(), b.to_text());
    assert_eq!(a.to_json(), b.to_json());
}

#[test]
fn slices_give_the_same_result_as_one_run() {
    let whole = Simulation::from_toml(SMALL).unwrap().run_to_end();
    let mut sim = Simulation::from_toml(SMALL).unwrap();
    let mut steps = 0;
    while !sim.is_finished() {
        sim.step(Step::Ops(777));
        // Views in between must not disturb the run.
        let _ = sim.heatmap(Metric::Ops, BucketMode::TrafficWeighted, 300);
        let _ = sim.report();
        steps += 1;
    }
    assert!(steps > 10);
    assert_eq!(sim.report(), whole);
    let mut by_time = Simulation::from_toml(SMALL).unwrap();
    by_time.step(Step::Seconds(95.5));
    by_time.step(Step::TimeBuckets(7));
    assert_eq!(by_time.run_to_end(), whole);
}

#[test]
fn another_seed_gives_another_report() {
    let a = Simulation::from_toml(SMALL).unwrap().run_to_end();
    let mut s = Scenario::from_toml(SMALL).unwrap();
    s.seed = 43;
    let b = Simulation::new(s).unwrap().run_to_end();
    assert_ne!(a.to_json(), b.to_json());
    // ...but not another story.
    let names = |r: &tabletop_design::sim::Report| {
        let mut v: Vec<&str> = r.diagnostics.iter().map(|d| d.pattern.name()).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(names(&a), names(&b));
}

/// The digest of the JSON report is the same on every platform: the
/// simulator uses its own `ln`/`exp`/`cos` and no platform-dependent
/// iteration order. If a deliberate model change moves it, update the
/// constant (the failure message prints the new value).
#[test]
fn report_digest_is_platform_independent() {
    let sim_report = Simulation::from_toml(SMALL).unwrap().run_to_end();
    let mut sim = Simulation::from_toml(SMALL).unwrap();
    sim.run_to_end();
    let heat = sim.heatmap(Metric::WriteRows, BucketMode::EqualKeys, 100);
    let digest = fnv(sim_report.to_json().as_bytes()) ^ fnv(&heat.rgba(Default::default()));
    assert_eq!(
        digest,
        GOLDEN,
        "new digest: {digest:#018x}\n{}",
        sim_report.to_text()
    );
}

const GOLDEN: u64 = 0x4b57_e15d_582c_19c4;

/// A simulation built a piece at a time (`SimBuild`, what a page does
/// between frames) is the one `Simulation::new` builds at once.
#[test]
fn a_build_in_steps_makes_the_same_simulation() {
    use tabletop_design::sim::SimBuild;
    let scenario = Scenario::from_toml(SMALL).unwrap();
    let mut whole = Simulation::new(scenario.clone()).unwrap();
    let mut build = SimBuild::new(scenario).unwrap();
    let mut steps = 0;
    while !build.is_ready() {
        build.step();
        steps += 1;
        assert!(steps < 10_000, "the build ends");
    }
    assert!(
        steps > 10,
        "sampling the key space takes many steps: {steps}"
    );
    let mut stepped = build.finish();
    assert_eq!(stepped.tablets(), whole.tablets());
    assert_eq!(stepped.run_to_end(), whole.run_to_end());
    assert_eq!(
        stepped.heatmap(Metric::Ops, BucketMode::EqualKeys, 200),
        whole.heatmap(Metric::Ops, BucketMode::EqualKeys, 200)
    );
}

#[test]
fn finishing_a_build_that_never_stepped_builds_it_all() {
    use tabletop_design::sim::SimBuild;
    let scenario = Scenario::from_toml(SMALL).unwrap();
    let build = SimBuild::new(scenario.clone()).unwrap();
    assert!(!build.is_ready());
    let mut sim = build.finish();
    assert_eq!(sim.now_seconds(), 0.0);
    assert_eq!(
        sim.run_to_end(),
        Simulation::new(scenario).unwrap().run_to_end()
    );
}

#[test]
fn a_build_refuses_an_invalid_scenario_as_new_does() {
    use tabletop_design::sim::SimBuild;
    let mut scenario = Scenario::from_toml(SMALL).unwrap();
    scenario.key.segments.clear();
    let built = SimBuild::new(scenario.clone()).unwrap_err();
    let whole = Simulation::new(scenario).unwrap_err();
    assert_eq!(built.message(), whole.message());
}
