//! A/B: the schema-design guide's timestamp-first and device-first keys
//! for the mobile time series, run on one workload by
//! `tabletop_core::compare` with the advisor's access patterns.

use tabletop_core::advisor::access_cases;
use tabletop_core::compare::{Comparison, PatternVerdict, Side, compare};
use tabletop_core::keyviz::{MessageKind, Metric};
use tabletop_core::sim::Scenario;

const A: &str = include_str!("../../static/scenarios/ab_mobile_timestamp_first.toml");
const B: &str = include_str!("../../static/scenarios/ab_mobile_device_first.toml");

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml(text).expect("the example scenarios parse")
}

fn pattern<'c>(c: &'c Comparison, name: &str) -> &'c PatternVerdict {
    c.patterns
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no pattern {name:?} in {:?}", c.patterns))
}

#[test]
fn device_first_wins_the_writes_and_the_per_device_read() {
    let ab = compare(&scenario(A), &scenario(B), access_cases).unwrap();
    let c = &ab.comparison;
    assert!(c.workload.contains("same workload"), "{}", c.workload);

    // Timestamp-first: all inserts at the end of the table, so Google's
    // Key Visualizer would say "High write pressure"; device-first spreads
    // them.
    let high_writes = |side: &tabletop_core::compare::DesignRun| {
        side.messages
            .iter()
            .find(|m| m.kind == MessageKind::HighWritePressure)
            .cloned()
    };
    let m = high_writes(&c.a).expect("timestamp-first gets high write pressure");
    assert!(m.peak >= 100.0, "{m:?}");
    assert_eq!(m.title, "High write pressure");
    assert!(high_writes(&c.b).is_none(), "{:?}", c.b.messages);

    let writes = pattern(c, "device uploads");
    assert!(!writes.access);
    assert_eq!(writes.winner, Some(Side::B), "{}", writes.why);
    assert!(
        writes.a.throttled_pct > writes.b.throttled_pct + 5.0,
        "{writes:?}"
    );
    assert!(
        writes.a.mean_latency_ms > 10.0 * writes.b.mean_latency_ms,
        "{writes:?}"
    );
    assert!(writes.why.contains("High write pressure"), "{}", writes.why);

    // One device's recent readings: a prefix range under device-first, a
    // time range filtered on the device under timestamp-first.
    let one = pattern(c, "one device, last 10 minutes");
    assert!(one.access);
    assert_eq!(one.winner, Some(Side::B), "{}", one.why);
    assert_eq!(one.b.op, "scan");
    assert!((one.b.rows_scanned_per_row - 1.0).abs() < 1e-6, "{one:?}");
    assert!(one.a.rows_scanned_per_row > 1000.0, "{one:?}");
    assert!(one.why.contains("filtered"), "{}", one.why);

    // Every device's last minute: one contiguous range when the key starts
    // with the time, a filtered full scan otherwise.
    let all = pattern(c, "all devices, last minute");
    assert_eq!(all.winner, Some(Side::A), "{}", all.why);
    assert_eq!(all.b.op, "full_scan");
    assert!(all.b.rows_scanned_per_row > 100.0, "{all:?}");

    assert_eq!(c.winner, Some(Side::B));
    assert!(
        c.verdict.starts_with("Design B wins 2 of 3"),
        "{}",
        c.verdict
    );

    // Tablets and node load for each.
    assert_eq!(c.a.nodes.len(), 4);
    assert!(c.a.tablets > 1 && c.b.tablets > 1);
    let peak = |d: &tabletop_core::compare::DesignRun| {
        d.nodes.iter().map(|n| n.peak_cpu_pct).fold(0.0, f64::max)
    };
    assert!(
        peak(&c.a) > 100.0 && peak(&c.b) < 100.0,
        "{} {}",
        peak(&c.a),
        peak(&c.b)
    );

    // Both heatmaps on one colour scale.
    let [ha, hb] = ab.heatmaps(Metric::WritePressure, 1000);
    assert_eq!(ha.max, hb.max);
    assert!(ha.values.iter().copied().fold(0.0, f32::max) >= 100.0);
    assert!(hb.values.iter().copied().fold(0.0, f32::max) < 100.0);

    // The text and JSON say the same.
    let text = c.to_text();
    assert!(text.contains("Verdict: Design B wins"), "{text}");
    let json = c.to_json();
    assert!(json.contains("\"winner\": \"B\""), "{json}");
    assert!(json.contains("\"rows_scanned_per_row\""), "{json}");
}

#[test]
fn different_workloads_are_refused_by_name() {
    let a = scenario(A);
    let mut b = scenario(B);
    b.workloads[0].rate = 5000.0;
    b.cluster.nodes = 3;
    let e = compare(&a, &b, access_cases).unwrap_err();
    assert!(
        e.message().contains("different workloads"),
        "{}",
        e.message()
    );
    assert!(
        e.message().contains("[cluster], [[workload]]"),
        "{}",
        e.message()
    );

    let mut b = scenario(B);
    b.access.pop();
    let e = compare(&a, &b, access_cases).unwrap_err();
    assert!(e.message().contains("[[access]]"), "{}", e.message());

    // A design's own parts may differ: its name, description and families.
    let mut b = scenario(A);
    b.name = "the same key again".into();
    b.table.families.clear();
    let ab = compare(&a, &b, access_cases).unwrap();
    assert!(
        ab.comparison
            .patterns
            .iter()
            .filter(|p| p.name != "device uploads")
            .all(|p| p.winner.is_none()),
        "{:?}",
        ab.comparison.patterns
    );
}

#[test]
fn an_invalid_design_is_named() {
    let a = scenario(A);
    let mut b = scenario(B);
    b.key.segments.clear();
    let e = compare(&a, &b, access_cases).unwrap_err();
    assert!(e.message().starts_with("design B: "), "{}", e.message());
}
