//! Google's Key Visualizer, faithfully: CPU, latency and the read and
//! write pressure indexes per key bucket, Google's messages, 1,000 key
//! buckets, and the key space as a hierarchy of prefixes.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::keyviz::{
    BucketMode, Context, KeyAxis, MAX_KEY_BUCKETS, MessageIcon, MessageKind, Metric, POOR_PRESSURE,
    Recorder, google_messages,
};
use tabletop_design::sim::{Report, Simulation};

const TIMESTAMP_FIRST: &str =
    include_str!("../../../static/scenarios/ab_mobile_timestamp_first.toml");
const DEVICE_FIRST: &str = include_str!("../../../static/scenarios/ab_mobile_device_first.toml");

fn run(text: &str) -> (Simulation, Report) {
    let mut sim = Simulation::from_toml(text).expect("example scenarios parse");
    let report = sim.run_to_end();
    (sim, report)
}

fn peak(sim: &Simulation, metric: Metric) -> f32 {
    let h = sim.heatmap(metric, BucketMode::EqualKeys, MAX_KEY_BUCKETS);
    h.values.iter().copied().fold(0.0, f32::max)
}

#[test]
fn sequential_writes_raise_write_pressure_and_spread_ones_do_not() {
    let (ts, ts_report) = run(TIMESTAMP_FIRST);
    let (dev, dev_report) = run(DEVICE_FIRST);
    assert!(peak(&ts, Metric::WritePressure) >= POOR_PRESSURE as f32);
    assert!(
        peak(&dev, Metric::WritePressure) < 20.0,
        "{}",
        peak(&dev, Metric::WritePressure)
    );
    // Nothing reads in these scenarios.
    assert_eq!(peak(&ts, Metric::ReadPressure), 0.0);
    assert_eq!(peak(&ts, Metric::ReadCpu), 0.0);
    // The latency the hot end saw is far above an idle node's.
    assert!(peak(&ts, Metric::Latency) > 10.0 * peak(&dev, Metric::Latency));
    assert!(peak(&dev, Metric::Latency) >= 5.0);

    let kinds = |r: &Report| r.messages.iter().map(|m| m.kind).collect::<Vec<_>>();
    assert!(
        kinds(&ts_report).contains(&MessageKind::HighWritePressure),
        "{:?}",
        ts_report.messages
    );
    assert!(
        !kinds(&dev_report).contains(&MessageKind::HighWritePressure),
        "{:?}",
        dev_report.messages
    );
    let m = &ts_report.messages[0];
    assert_eq!(
        (m.title.as_str(), m.icon),
        ("High write pressure", MessageIcon::Warning)
    );
    assert!(
        m.text.contains("100 or more means poor performance"),
        "{}",
        m.text
    );
    // The named pattern stays alongside.
    assert!(
        ts_report
            .diagnostics
            .iter()
            .any(|d| d.pattern.name() == "sequential_writes")
    );
    assert!(
        ts_report
            .to_text()
            .contains("Key Visualizer messages (Google's)")
    );
}

#[test]
fn write_cpu_adds_up_to_the_load_of_the_writes() {
    let (dev, report) = run(DEVICE_FIRST);
    let h = dev.heatmap(Metric::WriteCpu, BucketMode::EqualKeys, MAX_KEY_BUCKETS);
    // Summed over the key space, a column is the CPU the writes need, in %
    // of one node: the writes per second over one node's capacity.
    let rate: f64 = dev.scenario().workloads.iter().map(|w| w.rate).sum();
    let expected = rate / dev.scenario().cluster.writes_per_second() * 100.0;
    let t = h.time_buckets / 2;
    let column: f64 = (0..h.key_buckets).map(|k| f64::from(h.value(k, t))).sum();
    assert!(
        (column - expected).abs() < 0.05 * expected,
        "{column} vs {expected}"
    );
    // It is the nodes' CPU, spread.
    let node_mean: f64 = report.node_summaries.iter().map(|n| n.mean_cpu_pct).sum();
    assert!(
        (node_mean - expected).abs() < 0.1 * expected,
        "{node_mean} vs {expected}"
    );
}

#[test]
fn a_thousand_key_buckets_and_a_prefix_hierarchy() {
    let (dev, report) = run(DEVICE_FIRST);
    let fine = dev.recorder().fine_buckets();
    let h = dev.heatmap(Metric::Ops, BucketMode::EqualKeys, MAX_KEY_BUCKETS);
    assert_eq!(h.key_buckets, fine.min(MAX_KEY_BUCKETS));
    // device_type#device_id#ts: phone and tablet first, devices under them.
    let top: Vec<_> = report.prefixes.iter().filter(|p| p.depth == 0).collect();
    let names: Vec<&str> = top.iter().map(|p| p.prefix.as_str()).collect();
    assert_eq!(names, ["phone", "tablet"]);
    assert!((top[0].rows_pct - 75.0).abs() < 5.0, "{:?}", top[0]);
    for p in report.prefixes.iter().filter(|p| p.depth > 0) {
        let parent = &report.prefixes[p.parent.expect("a parent") as usize];
        assert_eq!(parent.depth + 1, p.depth);
        assert!(
            p.prefix.starts_with(&parent.prefix),
            "{p:?} under {parent:?}"
        );
    }
    // A device id labels a bucket or two of the thousand: too fine for a
    // share of its own.
    assert!(
        report.prefixes.iter().all(|p| p.depth == 0),
        "{:?}",
        report.prefixes
    );
    let text = report.to_text();
    assert!(text.contains("Key space by prefix"), "{text}");
    assert!(text.contains("\n  phone "), "{text}");
}

fn axis(n: u8) -> KeyAxis {
    let mut samples: Vec<Vec<u8>> = (0..n).map(|i| vec![b'a' + i]).collect();
    KeyAxis::from_samples(&mut samples, n as usize)
}

fn messages(rec: &Recorder, axis: &KeyAxis) -> Vec<MessageKind> {
    google_messages(&Context {
        recorder: rec,
        axis,
        node_cpu: &[],
        nodes: 1,
        hot_keys: &[],
        point_ops: 0.0,
    })
    .into_iter()
    .map(|m| m.kind)
    .collect()
}

#[test]
fn google_messages_for_empty_small_and_large_tables() {
    let axis = axis(4);
    // Nothing recorded: no data scanned; few rows: not to scale.
    let mut rec = Recorder::new(2, 4, 10.0);
    rec.close(0, &[10.0; 4], &[1e4; 4]);
    assert_eq!(
        messages(&rec, &axis),
        [MessageKind::NoDataScanned, MessageKind::KeySpaceNotToScale]
    );
    // Rows averaging 300 MiB in one key range: large rows.
    let mut rec = Recorder::new(1, 4, 10.0);
    rec.add_write(1, 1.0, 1.0, 100.0);
    let big = 300.0 * 1024.0 * 1024.0;
    rec.close(
        0,
        &[1000.0, 2.0, 1000.0, 1000.0],
        &[1e6, 2.0 * big, 1e6, 1e6],
    );
    assert_eq!(messages(&rec, &axis), [MessageKind::LargeRows]);
    // 150 MiB rows are under Google's thresholds.
    let mut rec = Recorder::new(1, 4, 10.0);
    rec.add_write(1, 1.0, 1.0, 100.0);
    rec.close(0, &[1000.0, 2.0, 1000.0, 1000.0], &[1e6, big, 1e6, 1e6]);
    assert!(messages(&rec, &axis).is_empty());
    // One bucket needing a whole node on a saturated node: high read
    // pressure there, nowhere else.
    let mut rec = Recorder::new(1, 4, 10.0);
    rec.add_read(2, 170_000.0, 170_000.0, 1.7e8, 170_000.0);
    rec.add_cpu(2, 10.0, 0.0, 105.0);
    rec.add_cpu(0, 0.01, 0.0, 105.0);
    rec.close(0, &[1000.0; 4], &[1e6; 4]);
    let m = google_messages(&Context {
        recorder: &rec,
        axis: &axis,
        node_cpu: &[],
        nodes: 1,
        hot_keys: &[],
        point_ops: 0.0,
    });
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0].kind, MessageKind::HighReadPressure);
    assert_eq!(
        (m[0].key_start.as_str(), m[0].key_end.as_deref()),
        ("c", Some("d"))
    );
}
