//! Every example scenario under `static/scenarios/` parses, runs and names
//! its pattern; bad scenario files get errors that say where, never a
//! panic.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::keyviz::{Pattern, Severity};
use tabletop_design::sim::{Report, Scenario, Simulation};
use tabletop_sql::Instance;
use tabletop_store::Code;

/// (file name, contents, the finding it must show first or at all).
const EXAMPLES: [(&str, &str, Option<Pattern>); 12] = [
    (
        "mobile_timestamp_first",
        include_str!("../../../static/scenarios/mobile_timestamp_first.toml"),
        Some(Pattern::SequentialWrites),
    ),
    (
        "mobile_device_first",
        include_str!("../../../static/scenarios/mobile_device_first.toml"),
        Some(Pattern::Even),
    ),
    (
        "user_ids_sequential",
        include_str!("../../../static/scenarios/user_ids_sequential.toml"),
        Some(Pattern::SequentialWrites),
    ),
    (
        "user_ids_reversed",
        include_str!("../../../static/scenarios/user_ids_reversed.toml"),
        Some(Pattern::Even),
    ),
    (
        "salted_timestamps",
        include_str!("../../../static/scenarios/salted_timestamps.toml"),
        Some(Pattern::Even),
    ),
    (
        "hot_row_counter",
        include_str!("../../../static/scenarios/hot_row_counter.toml"),
        Some(Pattern::HotRow),
    ),
    (
        "reverse_domains",
        include_str!("../../../static/scenarios/reverse_domains.toml"),
        Some(Pattern::Even),
    ),
    (
        "forward_domains",
        include_str!("../../../static/scenarios/forward_domains.toml"),
        Some(Pattern::FullScans),
    ),
    (
        "periodic_batch",
        include_str!("../../../static/scenarios/periodic_batch.toml"),
        Some(Pattern::Periodic),
    ),
    (
        "multi_tenant",
        include_str!("../../../static/scenarios/multi_tenant.toml"),
        None,
    ),
    (
        "spike_event",
        include_str!("../../../static/scenarios/spike_event.toml"),
        Some(Pattern::TimeEvent),
    ),
    (
        "filtered_full_scan",
        include_str!("../../../static/scenarios/filtered_full_scan.toml"),
        Some(Pattern::FullScans),
    ),
];

fn has(r: &Report, p: Pattern) -> bool {
    r.diagnostics.iter().any(|d| d.pattern == p)
}

#[test]
fn every_example_parses_and_round_trips() {
    for (name, text, _) in EXAMPLES {
        let s = Scenario::from_toml(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!s.description.is_empty(), "{name} explains itself");
        let json = serde_json::to_string(&s).unwrap();
        let back: Scenario = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s, "{name}");
    }
}

#[test]
fn the_other_examples_name_their_pattern() {
    // The teaching claims (sim_claims.rs) cover the rest in depth.
    for (name, text, want) in EXAMPLES {
        if !matches!(
            name,
            "multi_tenant" | "spike_event" | "filtered_full_scan" | "forward_domains"
        ) {
            continue;
        }
        let report = Simulation::from_toml(text).unwrap().run_to_end();
        if let Some(p) = want {
            assert!(has(&report, p), "{name}: {:#?}", report.diagnostics);
        }
        let text = report.to_text();
        assert!(
            text.contains("Diagnostics") && text.contains("Nodes"),
            "{name}"
        );
        assert!(report.to_json().contains("\"diagnostics\""));
    }
}

#[test]
fn multi_tenant_prefixes_group_each_tenant() {
    let (_, text, _) = EXAMPLES[9];
    let mut sim = Simulation::from_toml(text).unwrap();
    let report = sim.run_to_end();
    let scans = &report.workloads[1];
    assert!(scans.mean_tablets_per_op < 1.1, "{scans:?}");
    assert!(
        !report
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Critical)
    );
    // The bounded sample of real rows lands in an instance, prefixes intact.
    let mut db = Instance::default();
    let m = sim.materialize(&mut db, 2_000).unwrap();
    assert!(m.rows > 1_500, "{m:?}");
    assert!(m.initial_splits > 0);
    let tablets = db.tablets("purchases").unwrap();
    assert!(tablets.len() > 1);
}

#[test]
fn bad_files_get_errors_with_a_place() {
    let base = EXAMPLES[0].1;
    let cases: [(&str, &str, &str); 8] = [
        ("rate = 20_000", "rate = \"lots\"", "line "),
        ("rate = 20_000", "rate = -5", "workload #1"),
        ("nodes = 4", "nodes = 0", "cluster.nodes"),
        ("kind = \"timestamp\"", "kind = \"clock\"", "unknown kind"),
        (
            "duration = \"1h\"",
            "duration = \"forever\"",
            "not a duration",
        ),
        ("keys = \"uniform\"", "keys = \"random\"", "unknown variant"),
        ("[cluster]", "[cluster]\nsplit_load = 0", "split_load"),
        (
            "entities = 20_000",
            "entities = 20_000\nentity = 3",
            "unknown field",
        ),
    ];
    for (from, to, want) in cases {
        assert!(base.contains(from), "{from}");
        let text = base.replacen(from, to, 1);
        let err = Simulation::from_toml(&text).unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
        assert!(
            err.message().contains(want),
            "{to}: {} (wanted {want})",
            err.message()
        );
        assert!(err.message().starts_with("scenario: "), "{}", err.message());
    }
}

#[test]
fn odd_but_valid_scenarios_run() {
    // Every segment kind, tiny sizes, one node, zero rates, an empty table.
    let text = r##"
name = "odd"
duration = 30
[table]
rows = 0
entities = 1
row_bytes = 1
history = 0
[cluster]
nodes = 1
storage = "hdd"
[key]
delimiter = ""
segments = [
  { name = "c", kind = "const", value = "x" },
  { name = "e", kind = "enum", values = ["a", "bb"], weights = [0, 1], per = "op" },
  { name = "h", kind = "hex", width = 32 },
  { name = "u", kind = "uuid" },
  { name = "n", kind = "name", per = "op" },
  { name = "i", kind = "int", per = "op" },
  { name = "t", kind = "timestamp", unit = "us", reversed = true },
  { name = "d", kind = "date", format = "yyyymmddhh" },
  { name = "hh", kind = "hash", of = "n", width = 16 },
  { name = "s", kind = "salt", buckets = 10000 },
  { name = "dom", kind = "domain", sites = 1, hosts = ["a"] },
  { name = "ten", kind = "tenant", tenants = 100000, skew = 5 },
]
[[workload]]
op = "write"
rate = 0
[[workload]]
op = "read"
rate = 3
keys = "sequential"
[[workload]]
op = "scan"
rate = 1
rows = 1000000
[[workload]]
op = "full_scan"
rate = 0.5
[keyviz]
time_buckets = 1
key_buckets = 1
fine_buckets = 16
[sim]
sample_ops = 1
"##;
    let mut sim = Simulation::from_toml(text).unwrap();
    let report = sim.run_to_end();
    assert_eq!(report.nodes, 1);
    let _ = report.to_text();
    let h = sim.heatmap(tabletop_design::keyviz::Metric::Ops, Default::default(), 5);
    assert_eq!(h.time_buckets, 1);
    assert!(h.key_buckets >= 1);
    let tree = sim.prefix_tree(&h, 4);
    assert!(tree.nodes.len() <= 4 * h.key_buckets);
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use proptest::prelude::*;
    use tabletop_design::sim::Scenario;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Any edit of a valid file parses or fails cleanly.
        #[test]
        fn edited_files_never_panic(
            pos in 0usize..2000,
            len in 0usize..20,
            insert in "[ -~\\n]{0,12}",
        ) {
            let base = super::EXAMPLES[1].1;
            let mut text: Vec<u8> = base.as_bytes().to_vec();
            let p = pos.min(text.len());
            let end = (p + len).min(text.len());
            text.splice(p..end, insert.bytes());
            if let Ok(t) = String::from_utf8(text) {
                let _ = Scenario::from_toml(&t);
            }
        }

        /// Random numbers in the knobs never panic the parser or the
        /// validation, and valid ones simulate.
        #[test]
        fn random_knobs(
            nodes in 0u32..5,
            rate in -10.0f64..1e4,
            zipf in -1.0f64..4.0,
            fine in 0u32..300,
            time in 0u32..40,
            width in 0u8..40,
            buckets in 0u32..20,
        ) {
            let text = format!(r##"
name = "p"
duration = "2m"
[table]
rows = 1000
entities = 50
[cluster]
nodes = {nodes}
[key]
segments = [
  {{ name = "s", kind = "salt", buckets = {buckets}, of = "id" }},
  {{ name = "id", kind = "hex", width = {width} }},
  {{ name = "ts", kind = "timestamp" }},
]
[[workload]]
op = "write"
rate = {rate}
keys = {{ zipf = {zipf} }}
[keyviz]
time_buckets = {time}
fine_buckets = {fine}
[sim]
sample_ops = 2000
"##);
            match Scenario::from_toml(&text) {
                Ok(s) => {
                    let mut sim = tabletop_design::sim::Simulation::new(s).unwrap();
                    let report = sim.run_to_end();
                    // Valid knobs simulate the whole two minutes, with
                    // finite numbers, the writes asked for and the nodes
                    // asked for.
                    prop_assert_eq!(report.duration_seconds, 120.0);
                    prop_assert!(
                        report.simulated_seconds >= report.duration_seconds - 1e-6,
                        "ran to the end: {} of {} s",
                        report.simulated_seconds,
                        report.duration_seconds
                    );
                    prop_assert!(report.operations.is_finite() && report.rows.is_finite());
                    prop_assert!(report.bytes.is_finite() && report.bytes >= 0.0);
                    prop_assert_eq!(report.nodes, nodes);
                    if rate >= 1.0 {
                        prop_assert!(
                            report.operations > 0.0,
                            "a write rate of {} a second writes: {:?}",
                            rate,
                            report.operations
                        );
                    }
                }
                Err(e) => {
                    // Invalid knobs are refused with a reason.
                    prop_assert!(!e.message().is_empty());
                }
            }
        }
    }
}
