//! The live Key Visualizer: operations typed into the console (cbt) are
//! recorded on the instance clock and come back as the simulator's
//! heatmaps and findings, and the record travels in snapshots.

use tabletop_core::cbt::run_line;
use tabletop_core::keyviz::{BucketMode, LiveKeyViz, LiveOptions, MessageKind, Metric, Pattern};
use tabletop_core::{Instance, InstanceConfig, prefix_successor};

fn cbt(db: &mut Instance, line: &str) -> String {
    run_line(db, line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn instance() -> Instance {
    let mut db = Instance::new(InstanceConfig {
        simulated_clock: true,
        ..InstanceConfig::default()
    });
    cbt(&mut db, "clock 2020-05-01T00:00:00Z");
    cbt(&mut db, "createtable t families=cf");
    db
}

fn live(db: &mut Instance) -> LiveKeyViz {
    LiveKeyViz::build(db, "t", &LiveOptions::default()).unwrap()
}

#[test]
fn sequential_writes_through_cbt_are_named() {
    let mut db = instance();
    for minute in 0..20 {
        for i in 0..20 {
            cbt(
                &mut db,
                &format!("set t 2020-05-01T{minute:02}:{i:02}#dev{i} cf:v=1"),
            );
        }
        cbt(&mut db, "clock 30s");
    }
    let report = live(&mut db).report(None);
    assert_eq!(report.totals.write_rows, 400.0);
    assert!(
        report.time_buckets >= 20,
        "{} time buckets",
        report.time_buckets
    );
    let names: Vec<Pattern> = report.diagnostics.iter().map(|d| d.pattern).collect();
    assert!(
        names.contains(&Pattern::SequentialWrites),
        "{names:?}\n{}",
        report.to_text()
    );
    assert!(report.to_text().contains("sequential_writes"));

    // The same rows written device first spread over the key space.
    let mut db = instance();
    for minute in 0..20 {
        for i in 0..20 {
            cbt(
                &mut db,
                &format!("set t dev{i:02}#2020-05-01T{minute:02} cf:v=1"),
            );
        }
        cbt(&mut db, "clock 30s");
    }
    let report = live(&mut db).report(None);
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.pattern != Pattern::SequentialWrites),
        "{}",
        report.to_text()
    );
}

#[test]
fn a_prefix_read_lights_only_its_buckets() {
    let mut db = instance();
    for dev in ["1a2b", "4c40", "4c41", "4c42", "77aa", "9f00"] {
        for day in 1..=30 {
            cbt(&mut db, &format!("set t phone#{dev}#202005{day:02} cf:v=1"));
        }
    }
    db.clear_traffic(None).unwrap();
    cbt(&mut db, "clock 1m");
    let out = cbt(&mut db, "read t prefix=phone#4c41");
    assert_eq!(out.matches("phone#4c41#").count(), 30);
    let viz = live(&mut db);
    let rec = viz.recorder();
    let axis = viz.axis();
    let (lo, hi) = (
        b"phone#4c41".to_vec(),
        prefix_successor(b"phone#4c41").unwrap(),
    );
    let mut lit = 0.0;
    for f in 0..axis.len() {
        let v: f64 = (0..rec.filled())
            .map(|t| f64::from(rec.value(Metric::ReadRows, t, f)))
            .sum();
        if v > 0.0 {
            lit += v;
            let start = axis.start(f);
            let end = axis.end(f);
            assert!(
                start < hi.as_slice() && end.is_none_or(|e| e > lo.as_slice()),
                "bucket {f} [{start:?}, {end:?}) is outside the prefix but read {v} rows"
            );
        }
    }
    assert!((lit - 30.0).abs() < 1e-3, "{lit} rows read");
    // Nothing was written in the window: writes before the clear are gone.
    assert_eq!(viz.report(None).totals.write_rows, 0.0);
}

#[test]
fn the_live_report_survives_a_snapshot() {
    let mut db = instance();
    for minute in 0..8 {
        for i in 0..10 {
            cbt(&mut db, &format!("set t {minute:02}{i:02} cf:v=1"));
        }
        cbt(&mut db, "read t prefix=0");
        cbt(&mut db, "clock 20s");
    }
    let mut before = live(&mut db).report(Some((&[], BucketMode::EqualKeys, 100)));
    let bytes = db.snapshot();
    let mut back = Instance::restore(&bytes).unwrap();
    let mut after = live(&mut back).report(Some((&[], BucketMode::EqualKeys, 100)));
    // A restored instance numbers its tablets afresh; their keys stay.
    for t in before.tablets.iter_mut().chain(after.tablets.iter_mut()) {
        t.id = 0;
    }
    assert!(before.totals.write_rows > 0.0);
    // Without traffic (a short share link) the data stays, the traffic goes.
    let mut bare = Instance::restore(&db.snapshot_without_traffic()).unwrap();
    assert!(bare.snapshot_without_traffic().len() < bytes.len());
    let quiet = live(&mut bare).report(None);
    assert_eq!((quiet.rows, quiet.totals.write_rows), (before.rows, 0.0));
    let (a, b) = (before.to_json(), after.to_json());
    if a != b {
        let diff: Vec<(&str, &str)> = a
            .lines()
            .zip(b.lines())
            .filter(|(x, y)| x != y)
            .take(5)
            .collect();
        panic!("the report changed across the snapshot: {diff:?}");
    }
}

#[test]
fn the_live_view_has_googles_metrics_messages_and_prefixes() {
    let mut db = instance();
    for dev in ["1a2b", "4c40", "4c41", "77aa"] {
        for day in 1..=30 {
            cbt(&mut db, &format!("set t phone#{dev}#202005{day:02} cf:v=1"));
            cbt(
                &mut db,
                &format!("set t tablet#{dev}#202005{day:02} cf:v=1"),
            );
        }
    }
    // No traffic yet: Google's "No data scanned".
    db.clear_traffic(None).unwrap();
    let quiet = live(&mut db).report(None);
    let kinds = |r: &tabletop_core::keyviz::LiveReport| {
        r.messages.iter().map(|m| m.kind).collect::<Vec<_>>()
    };
    assert!(
        kinds(&quiet).contains(&MessageKind::NoDataScanned),
        "{}",
        quiet.to_text()
    );

    cbt(&mut db, "clock 1m");
    cbt(&mut db, "read t prefix=phone#4c41");
    cbt(&mut db, "set t tablet#77aa#20200601 cf:v=2");
    let viz = live(&mut db);
    let report = viz.report(None);
    // 240 rows are fewer than the key buckets: not to scale.
    assert_eq!(
        kinds(&report),
        [MessageKind::KeySpaceNotToScale],
        "{}",
        report.to_text()
    );
    // CPU per bucket: reads only where the prefix is, writes where the
    // write went, at an idle node's latency or more.
    let read_cpu = viz.heatmap(Metric::ReadCpu, BucketMode::EqualKeys, 1000);
    let write_cpu = viz.heatmap(Metric::WriteCpu, BucketMode::EqualKeys, 1000);
    let latency = viz.heatmap(Metric::Latency, BucketMode::EqualKeys, 1000);
    let lit = |h: &tabletop_core::keyviz::Heatmap| -> Vec<String> {
        (0..h.key_buckets)
            .filter(|&k| (0..h.time_buckets).any(|t| h.value(k, t) > 0.0))
            .map(|k| h.keys[k].start.clone())
            .collect()
    };
    let reads = lit(&read_cpu);
    assert!(
        !reads.is_empty() && reads.iter().all(|k| k.starts_with("phone#4c4")),
        "{reads:?}"
    );
    // (The traffic log keeps 16 bytes of a key: the write covers every row
    // under `tablet#77aa#2020`.)
    let writes = lit(&write_cpu);
    assert!(
        writes.iter().all(|k| k.starts_with("tablet#")),
        "{writes:?}"
    );
    assert!(
        writes.iter().any(|k| k.starts_with("tablet#77aa#")),
        "{writes:?}"
    );
    for k in 0..latency.key_buckets {
        for t in 0..latency.time_buckets {
            let v = latency.value(k, t);
            assert!(v == 0.0 || v >= 5.0, "latency {v} at {k},{t}");
        }
    }
    let pressure = viz.heatmap(Metric::ReadPressure, BucketMode::EqualKeys, 1000);
    assert!(pressure.values.iter().all(|&v| v < 100.0));
    // The key space as a hierarchy: phone# and tablet#, devices under them.
    let top: Vec<&str> = report
        .prefixes
        .iter()
        .filter(|p| p.depth == 0)
        .map(|p| p.prefix.as_str())
        .collect();
    assert_eq!(top, ["phone#", "tablet#"]);
    assert!(
        report
            .prefixes
            .iter()
            .any(|p| p.depth == 1 && p.prefix == "phone#4c41#")
    );
    assert!(report.to_text().contains("Key space by prefix"));
}

/// The full report, every heatmap included.
fn full_report(live: &LiveKeyViz) -> tabletop_core::keyviz::LiveReport {
    live.report(Some((&[], BucketMode::EqualKeys, 200)))
}

#[test]
fn a_refresh_after_a_read_matches_a_full_build_without_reading_the_table() {
    // Large enough (more rows than fine buckets) that the key axis comes
    // from the rows alone.
    let mut db = instance();
    for i in 0..1500 {
        cbt(&mut db, &format!("set t dev{:02}#{i:05} cf:v=1", i % 37));
    }
    cbt(&mut db, "clock 30s");
    let mut kept = live(&mut db);
    cbt(&mut db, "read t prefix=dev07#");
    cbt(&mut db, "clock 20s");
    cbt(&mut db, "lookup t dev11#00011");
    kept.refresh_traffic(&db).unwrap();
    let fresh = live(&mut db);
    let refreshed = full_report(&kept);
    assert_eq!(
        refreshed.totals.read_rows,
        fresh.report(None).totals.read_rows
    );
    assert!(refreshed.totals.read_rows > 1.0);
    assert_eq!(refreshed, full_report(&fresh));

    // It did not read the table: rows written since (traffic too) are
    // laid on the old axis, whose stored rows are the ones of the build.
    for i in 0..10 {
        cbt(&mut db, &format!("set t zzz{i} cf:v=1"));
    }
    kept.refresh_traffic(&db).unwrap();
    let report = kept.report(None);
    assert_eq!(report.rows, 1500.0, "stored rows as of the build");
    assert_eq!(
        report.totals.write_rows.round(),
        1510.0,
        "the new writes' traffic"
    );
    assert_eq!(live(&mut db).report(None).rows, 1510.0);
}

#[test]
fn a_refresh_of_a_small_table_cuts_the_axis_at_new_traffic_too() {
    let mut db = instance();
    for key in ["a1", "b1", "c1", "d1"] {
        cbt(&mut db, &format!("set t {key} cf:v=1"));
    }
    let mut kept = live(&mut db);
    // A read of missing rows: on a small table its keys cut the axis.
    cbt(&mut db, "read t start=bb end=bz");
    cbt(&mut db, "lookup t c0");
    kept.refresh_traffic(&db).unwrap();
    let fresh = live(&mut db);
    assert_eq!(full_report(&kept), full_report(&fresh));
    assert_eq!(kept.axis().len(), fresh.axis().len());
    assert_eq!(kept.report(None).totals.scans, 1.0);
}
