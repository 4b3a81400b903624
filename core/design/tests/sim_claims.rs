//! The teaching claims of Bigtable's schema-design guide, each pinned as a
//! scenario from `static/scenarios/` run through the simulator.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::keydesign::KeyInput;
use tabletop_design::keyviz::{BucketMode, Diagnostic, Metric, Pattern, Severity};
use tabletop_design::sim::{Report, Simulation};

const TIMESTAMP_FIRST: &str = include_str!("../../../static/scenarios/mobile_timestamp_first.toml");
const DEVICE_FIRST: &str = include_str!("../../../static/scenarios/mobile_device_first.toml");
const SEQUENTIAL_IDS: &str = include_str!("../../../static/scenarios/user_ids_sequential.toml");
const REVERSED_IDS: &str = include_str!("../../../static/scenarios/user_ids_reversed.toml");
const SALTED: &str = include_str!("../../../static/scenarios/salted_timestamps.toml");
const HOT_ROW: &str = include_str!("../../../static/scenarios/hot_row_counter.toml");
const REVERSE_DOMAINS: &str = include_str!("../../../static/scenarios/reverse_domains.toml");
const FORWARD_DOMAINS: &str = include_str!("../../../static/scenarios/forward_domains.toml");
const PERIODIC: &str = include_str!("../../../static/scenarios/periodic_batch.toml");

fn run(text: &str) -> (Simulation, Report) {
    let mut sim = Simulation::from_toml(text).expect("example scenarios parse");
    let report = sim.run_to_end();
    (sim, report)
}

fn find(report: &Report, p: Pattern) -> Option<&Diagnostic> {
    report.diagnostics.iter().find(|d| d.pattern == p)
}

fn hotspot_free(report: &Report) -> bool {
    !report.diagnostics.iter().any(|d| {
        matches!(
            d.pattern,
            Pattern::SequentialWrites | Pattern::HotKeyRange | Pattern::HotRow
        ) && d.severity >= Severity::Warning
    })
}

/// Per time bucket, the busiest and second-busiest node's CPU %.
fn top_two_cpu(sim: &Simulation) -> Vec<(f32, f32)> {
    let s = sim.node_cpu();
    s.values
        .chunks_exact(s.nodes)
        .map(|row| {
            let mut v = row.to_vec();
            v.sort_by(|a, b| b.total_cmp(a));
            (v[0], v.get(1).copied().unwrap_or(0.0))
        })
        .collect()
}

/// "Row keys that start with a timestamp cause sequential writes to be
/// pushed onto a single node, creating a hotspot."
#[test]
fn timestamp_first_keys_give_sequential_writes_and_one_overloaded_node() {
    let (sim, report) = run(TIMESTAMP_FIRST);
    let d = find(&report, Pattern::SequentialWrites).expect("sequential_writes");
    assert_eq!(d.severity, Severity::Critical, "{d:#?}");
    assert!(
        d.key_start.starts_with("158829"),
        "the band is in the new keys: {d:#?}"
    );
    assert!(find(&report, Pattern::Even).is_none());
    // In most time buckets one node is saturated while the next busiest
    // one is far from it.
    let cols = top_two_cpu(&sim);
    let lopsided = cols
        .iter()
        .filter(|(first, second)| *first >= 90.0 && *second < 60.0)
        .count();
    assert!(
        lopsided * 10 >= cols.len() * 8,
        "{lopsided} of {} buckets have one overloaded node: {cols:?}",
        cols.len()
    );
    assert!(report.node_summaries.iter().any(|n| n.throttled_pct > 5.0));
}

/// The busiest key bucket's row in each busy column of the write map,
/// where row 0 is drawn at the top (the start of the key space).
fn band_rows(sim: &Simulation) -> Vec<usize> {
    let h = sim.heatmap(Metric::WriteRows, BucketMode::EqualKeys, 100);
    let total: f32 = h.values.iter().sum();
    let mean = total / h.time_buckets.max(1) as f32;
    (0..h.time_buckets)
        .filter_map(|t| {
            let col: Vec<f32> = (0..h.key_buckets).map(|k| h.value(k, t)).collect();
            (col.iter().sum::<f32>() > mean * 0.5).then(|| {
                (0..h.key_buckets)
                    .max_by(|&a, &b| col[a].total_cmp(&col[b]))
                    .unwrap_or(0)
            })
        })
        .collect()
}

/// The diagnosis's words for where the band goes are the way the map
/// draws it: keys that grow (a timestamp first) move the band down the
/// map, towards the end of the key space; reversed timestamps move it up.
#[test]
fn the_sequential_band_moves_the_way_the_evidence_says() {
    for (text, down) in [
        (TIMESTAMP_FIRST, true),
        (
            include_str!("../../../static/scenarios/lesson_machine_readings.toml"),
            false,
        ),
    ] {
        let (sim, report) = run(text);
        let d = find(&report, Pattern::SequentialWrites).expect("sequential_writes");
        let rows = band_rows(&sim);
        assert!(rows.len() >= 4, "{rows:?}");
        let quarter = rows.len() / 4;
        let early: usize = rows[..quarter].iter().sum::<usize>() / quarter;
        let late: usize = rows[rows.len() - quarter..].iter().sum::<usize>() / quarter;
        if down {
            assert!(late > early, "the band goes down the map: {rows:?}");
            assert!(
                d.evidence
                    .contains("towards the end of the key space (down the map"),
                "{}",
                d.evidence
            );
        } else {
            assert!(late < early, "the band goes up the map: {rows:?}");
            assert!(
                d.evidence
                    .contains("towards the start of the key space (up the map"),
                "{}",
                d.evidence
            );
        }
        assert!(!d.evidence.contains("upwards") && !d.evidence.contains("downwards"));
    }
}

/// The same data keyed `device_type#device_id#timestamp` spreads writes
/// over the whole key space and all nodes.
#[test]
fn device_then_timestamp_gives_even() {
    let (sim, report) = run(DEVICE_FIRST);
    assert!(
        find(&report, Pattern::Even).is_some(),
        "{:#?}",
        report.diagnostics
    );
    assert!(hotspot_free(&report), "{:#?}", report.diagnostics);
    for n in &report.node_summaries {
        assert!(n.peak_cpu_pct < 90.0, "{n:?}");
        assert_eq!(n.throttled_pct, 0.0);
    }
    // Writes touch most of the key space in every time bucket.
    let h = sim.heatmap(Metric::WriteRows, BucketMode::EqualKeys, 100);
    let t = h.time_buckets / 2;
    let touched = (0..h.key_buckets).filter(|&k| h.value(k, t) > 0.0).count();
    assert!(touched >= 90, "{touched} of 100 key buckets written");
}

/// "Sequential numeric ids push most traffic onto a few nodes; the reversed
/// id spreads it evenly."
#[test]
fn sequential_user_ids_hotspot_and_reversed_ids_do_not() {
    let (_, seq) = run(SEQUENTIAL_IDS);
    let d = find(&seq, Pattern::SequentialWrites).expect("sequential ids hotspot");
    assert!(d.severity >= Severity::Warning);
    assert!(seq.node_summaries.iter().any(|n| n.peak_cpu_pct >= 100.0));

    let (_, rev) = run(REVERSED_IDS);
    assert!(hotspot_free(&rev), "{:#?}", rev.diagnostics);
    assert!(
        find(&rev, Pattern::Even).is_some(),
        "{:#?}",
        rev.diagnostics
    );
    for n in &rev.node_summaries {
        assert!(n.peak_cpu_pct < 100.0, "{n:?}");
        assert_eq!(n.throttled_pct, 0.0, "{n:?}");
    }
}

/// Key salting ("write sharding") spreads the writes of a timestamp-first
/// key over as many ranges as there are salt buckets.
#[test]
fn a_salted_key_spreads_writes() {
    let (plain_sim, plain) = run(TIMESTAMP_FIRST);
    let (salted_sim, salted) = run(SALTED);
    assert!(hotspot_free(&salted), "{:#?}", salted.diagnostics);
    let ranges_written = |sim: &Simulation| {
        let h = sim.heatmap(Metric::WriteRows, BucketMode::EqualKeys, 1000);
        let t = h.time_buckets / 2;
        (0..h.key_buckets).filter(|&k| h.value(k, t) > 0.0).count()
    };
    let p = ranges_written(&plain_sim);
    let s = ranges_written(&salted_sim);
    assert!(p <= 4, "timestamp-first writes one place at a time: {p}");
    assert!(s >= 16, "16 salt buckets write at 16 places at least: {s}");
    let peak = |r: &Report| {
        r.node_summaries
            .iter()
            .map(|n| n.peak_cpu_pct)
            .fold(0.0, f64::max)
    };
    assert!(peak(&salted) < 70.0 && peak(&plain) > 100.0);
}

/// "Avoid a single row key for a value that is updated very often": the
/// row takes one node's worth of traffic and grows towards the row limit.
#[test]
fn a_frequently_updated_row_gives_hot_row() {
    let (mut sim, report) = run(HOT_ROW);
    let d = find(&report, Pattern::HotRow).expect("hot_row");
    // The chatty device is entity 42.
    let key = sim.render_key(&KeyInput {
        entity: 42,
        ..KeyInput::default()
    });
    assert_eq!(d.key_start, String::from_utf8(key).unwrap());
    // About half of all operations (6,000 of 12,000 per second).
    let share: f64 = d
        .evidence
        .split("took ")
        .nth(1)
        .unwrap()
        .split('%')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((45.0..55.0).contains(&share), "{}", d.evidence);
    let large = find(&report, Pattern::LargeRows).expect("its versions pile up");
    assert_eq!(large.severity, Severity::Critical);
    assert!(find(&report, Pattern::HotKeyRange).is_none());
}

/// Keys of every host of one site, for the domain scenarios (entity
/// `site + 200 * host`, pages varying per operation).
fn site_keys(sim: &mut Simulation, site: u64) -> Vec<Vec<u8>> {
    (0..100u64)
        .map(|i| {
            sim.render_key(&KeyInput {
                entity: site + 200 * (i % 5),
                op_random: i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                ..KeyInput::default()
            })
        })
        .collect()
}

/// "Reversed domain names keep related rows together": one site's rows are
/// one contiguous range, so a whole-site read is one prefix scan that
/// touches one tablet, where forward names scatter a site over the table.
#[test]
fn reverse_domain_names_keep_a_site_in_one_range() {
    let (mut rev_sim, rev) = run(REVERSE_DOMAINS);
    let scans = rev
        .workloads
        .iter()
        .find(|w| w.op == "scan")
        .expect("site reads");
    assert!(
        scans.mean_tablets_per_op <= 1.25,
        "a whole-site prefix scan touches one tablet (sometimes two at a boundary): {scans:?}"
    );
    assert!(scans.mean_rows_per_op > 1000.0);
    let (mut fwd_sim, fwd) = run(FORWARD_DOMAINS);
    assert!(
        find(&fwd, Pattern::FullScans).is_some(),
        "{:#?}",
        fwd.diagnostics
    );

    let mut one_tablet_rev = 0;
    let mut one_tablet_fwd = 0;
    for site in 0..40 {
        let keys = site_keys(&mut rev_sim, site);
        if rev_sim
            .tablets_for_keys(keys.iter().map(Vec::as_slice))
            .len()
            == 1
        {
            one_tablet_rev += 1;
        }
        // Reversed: the site's keys share the `tld.site.` prefix.
        let prefix_len = keys[0].iter().take_while(|&&b| b != b'#').count();
        let site_prefix: Vec<u8> = {
            let host = &keys[0][..prefix_len];
            let second_dot = host
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'.')
                .nth(1)
                .map(|(i, _)| i + 1)
                .unwrap();
            host[..second_dot].to_vec()
        };
        assert!(keys.iter().all(|k| k.starts_with(&site_prefix)));

        let keys = site_keys(&mut fwd_sim, site);
        if fwd_sim
            .tablets_for_keys(keys.iter().map(Vec::as_slice))
            .len()
            == 1
        {
            one_tablet_fwd += 1;
        }
    }
    // A tablet boundary can fall inside a site (about one site in seven
    // here), but never scatter it.
    assert!(
        one_tablet_rev >= 30,
        "{one_tablet_rev} of 40 sites in one tablet (reversed)"
    );
    assert!(
        one_tablet_fwd <= 2,
        "{one_tablet_fwd} of 40 sites in one tablet (forward)"
    );
}

/// A batch job that runs every ten minutes shows as regular stripes.
#[test]
fn a_periodic_batch_job_shows_periodic() {
    let (_, report) = run(PERIODIC);
    let d = find(&report, Pattern::Periodic).expect("periodic");
    assert!(d.evidence.contains("6 bursts"), "{}", d.evidence);
    assert!(d.evidence.contains("every 10m"), "{}", d.evidence);
    assert!(
        d.time_start_seconds >= 55.0 && d.time_start_seconds <= 70.0,
        "{d:#?}"
    );
    // Periodic load on a good key design is not a hotspot.
    assert!(hotspot_free(&report), "{:#?}", report.diagnostics);
}
