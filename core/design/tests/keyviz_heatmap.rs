//! Key Visualizer output of simulated runs: heatmap shapes and units, the
//! two bucketing modes, the prefix labels and the colour scales.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::keyviz::{BucketMode, ColorScale, Metric};
use tabletop_design::sim::Simulation;

const DEVICE_FIRST: &str = include_str!("../../../static/scenarios/mobile_device_first.toml");
const FULL_SCAN: &str = include_str!("../../../static/scenarios/filtered_full_scan.toml");

const HOT_READS: &str = r##"
name = "one hot key among uniform writes"
duration = "10m"
[table]
rows = 100_000
entities = 100_000
[key]
segments = [{ name = "id", kind = "int", width = 8 }]
[[workload]]
op = "write"
rate = 2_000
[[workload]]
op = "read"
rate = 2_000
keys = "hot_key"
hot_entity = 31_337
[keyviz]
time_buckets = 30
fine_buckets = 1024
"##;

fn finished(text: &str) -> Simulation {
    let mut sim = Simulation::from_toml(text).unwrap();
    sim.run_to_end();
    sim
}

#[test]
fn a_thousand_by_three_hundred_heatmap_in_rates() {
    let sim = finished(DEVICE_FIRST);
    let h = sim.heatmap(Metric::Ops, BucketMode::EqualKeys, 1000);
    assert_eq!((h.key_buckets, h.time_buckets), (1000, 300));
    assert_eq!(h.values.len(), 300_000);
    assert_eq!(h.keys.len(), 1000);
    assert_eq!(h.unit, "ops/s");
    assert_eq!(h.keys[0].start, "");
    assert_eq!(h.keys[999].end, None);
    for w in h.keys.windows(2) {
        assert_eq!(w[0].end.as_deref(), Some(w[1].start.as_str()));
        assert!(w[0].start < w[1].start);
    }
    // A column adds up to the scenario's rate (20,000 writes + 2,000
    // reads per second), give or take sampling noise.
    let t = 150;
    let column: f32 = (0..h.key_buckets).map(|k| h.value(k, t)).sum();
    assert!((column - 22_000.0).abs() < 2_200.0, "{column}");
    // Buckets hold about the same number of rows.
    let rows: Vec<f64> = h.keys.iter().map(|k| k.rows).collect();
    let mean = rows.iter().sum::<f64>() / rows.len() as f64;
    let within = rows
        .iter()
        .filter(|r| (**r - mean).abs() < 0.75 * mean)
        .count();
    assert!(
        within >= 950,
        "{within} of 1000 buckets near the mean of {mean}"
    );
    // Pixels for a canvas.
    let px = h.rgba(ColorScale::Relative);
    assert_eq!(px.len(), 4 * 300_000);
    // Stored data only grows in this scenario.
    let stored = sim.heatmap(Metric::DataStored, BucketMode::EqualKeys, 10);
    assert_eq!(stored.unit, "B");
    let total = |t: usize| (0..10).map(|k| stored.value(k, t)).sum::<f32>();
    assert!(total(299) > total(0));
}

#[test]
fn traffic_weighted_buckets_keep_the_hot_key_fine() {
    let sim = finished(HOT_READS);
    let hot_key = b"00031337";
    let width_around = |mode| {
        let h = sim.heatmap(Metric::Ops, mode, 50);
        let f = sim.axis().bucket_of(hot_key) as u32;
        let b = h
            .keys
            .iter()
            .find(|k| k.fine[0] <= f && f < k.fine[1])
            .expect("a bucket holds every key");
        b.fine[1] - b.fine[0]
    };
    let even = width_around(BucketMode::EqualKeys);
    let weighted = width_around(BucketMode::TrafficWeighted);
    assert!(even >= 10, "{even}");
    assert!(weighted <= 2, "{weighted}");
    // The hot key's bucket dominates the ops heatmap.
    let h = sim.heatmap(Metric::Ops, BucketMode::TrafficWeighted, 50);
    let norm = h.normalized(ColorScale::Relative);
    assert_eq!(norm.iter().copied().fold(0.0, f32::max), 1.0);
    let abs = h.normalized(ColorScale::Absolute);
    assert!(abs.iter().all(|v| (0.0..=1.0).contains(v)));
    assert!(
        abs.iter().copied().fold(0.0, f32::max) < 0.2,
        "2,000 reads/s is an eighth of a node"
    );
}

#[test]
fn prefix_labels_follow_the_key_segments() {
    let sim = finished(DEVICE_FIRST);
    let h = sim.heatmap(Metric::WriteRows, BucketMode::EqualKeys, 200);
    let tree = sim.prefix_tree(&h, 3);
    let top: Vec<&str> = tree.at_depth(0).map(|n| n.label.as_str()).collect();
    // Bucket 0 starts at the empty key; the rest are phones, then tablets.
    assert!(top.ends_with(&["phone", "tablet"]), "{top:?}");
    let phones = tree.at_depth(0).find(|n| n.label == "phone").unwrap();
    let tablets = tree.at_depth(0).find(|n| n.label == "tablet").unwrap();
    // Three phones for every tablet (the enum's weights).
    let share = f64::from(phones.last - phones.first + 1) / 199.0;
    assert!((0.65..0.85).contains(&share), "{share}");
    assert_eq!(tablets.last, 199);
    let ids: Vec<_> = tree.at_depth(1).collect();
    assert!(ids.len() > 150, "device ids label the second level");
    assert!(ids.iter().all(|n| n.label.len() == 8 && n.parent.is_some()));
}

#[test]
fn filtered_scans_show_in_rows_scanned_and_the_ratio() {
    let sim = finished(FULL_SCAN);
    let scanned = sim.heatmap(Metric::RowsScanned, BucketMode::EqualKeys, 100);
    let returned = sim.heatmap(Metric::ReadRows, BucketMode::EqualKeys, 100);
    let sum =
        |h: &tabletop_design::keyviz::Heatmap| h.values.iter().map(|&v| f64::from(v)).sum::<f64>();
    let ratio = sum(&scanned) / sum(&returned);
    assert!((25.0..35.0).contains(&ratio), "{ratio}");
    let r = sim.heatmap(Metric::ScanRatio, BucketMode::EqualKeys, 100);
    assert_eq!(r.unit, "rows scanned per row returned");
    assert!((25.0..35.0).contains(&r.max), "{}", r.max);
    // Every tablet is read by the scans.
    assert_eq!(
        scanned.values.iter().filter(|&&v| v > 0.0).count(),
        100 * scanned.time_buckets
    );
}

#[test]
fn tablets_and_nodes_line_up_with_the_heatmap() {
    let sim = finished(DEVICE_FIRST);
    let tablets = sim.tablets();
    assert!(tablets.len() > 20);
    assert_eq!(tablets[0].fine[0], 0);
    assert_eq!(tablets.last().unwrap().fine[1] as usize, sim.axis().len());
    for w in tablets.windows(2) {
        assert_eq!(w[0].fine[1], w[1].fine[0]);
        assert_eq!(w[0].end_key.as_deref(), Some(w[1].start_key.as_str()));
    }
    let nodes = sim.nodes();
    assert_eq!(nodes.len(), 4);
    assert_eq!(
        nodes.iter().map(|n| n.tablets).sum::<usize>(),
        tablets.len()
    );
    let series = sim.node_cpu();
    assert_eq!(series.values.len(), 4 * 300);
    assert!(!sim.events().is_empty());
    let t = sim.tablet_for_key(b"phone#80000000").unwrap();
    assert!(t.start_key.as_str() <= "phone#80000000");
}
