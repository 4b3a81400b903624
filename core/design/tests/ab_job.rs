//! An A/B comparison run in slices (`AbJob`, what a page drives between
//! frames) ends exactly where `compare` ends when run at once.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::compare::{AbJob, AccessCase, compare};
use tabletop_design::keyviz::Metric;
use tabletop_design::scenario::OpKind;
use tabletop_design::sim::Scenario;

const A: &str = include_str!("../../../static/scenarios/ab_mobile_timestamp_first.toml");
const B: &str = include_str!("../../../static/scenarios/ab_mobile_device_first.toml");

/// The shipped pair, shortened to five simulated minutes.
fn pair() -> (Scenario, Scenario) {
    let short = |text: &str| {
        Scenario::from_toml(&text.replace("duration = \"30m\"", "duration = \"5m\""))
            .expect("the example scenarios parse")
    };
    (short(A), short(B))
}

/// One made-up access pattern: a point read per upload's entity.
fn probe(s: &Scenario) -> Vec<AccessCase> {
    let mut workload = s.workloads[0].clone();
    workload.name = "probe".into();
    workload.op = OpKind::Read;
    workload.rate = 10.0;
    vec![AccessCase {
        name: "probe".into(),
        workload,
        how: format!("a point read under {}", s.name),
    }]
}

#[test]
fn a_sliced_run_ends_where_compare_ends() {
    let (a, b) = pair();
    let whole = compare(&a, &b, probe).unwrap();
    let mut job = AbJob::start(&a, &b, probe).unwrap();
    assert_eq!(job.progress(), 0.0);
    assert!(!job.is_finished());
    assert!(job.simulations().is_none(), "built in the first steps");
    assert_eq!(job.duration_seconds(), 300.0);
    let mut slices = 0;
    let mut last = 0.0;
    loop {
        // Ten ticks per slice.
        let mut left = 10;
        let done = job
            .advance(&mut || {
                left -= 1;
                left < 0
            })
            .unwrap();
        let p = job.progress();
        assert!(p >= last && p <= 1.0, "{p} after {last}");
        // The first slices build the two simulations, a piece per step.
        if let Some([sa, sb]) = job.simulations() {
            assert!(
                (sa.progress() - sb.progress()).abs() <= 2.0 / 100.0,
                "the two designs run in step: {} and {}",
                sa.progress(),
                sb.progress()
            );
        } else {
            assert_eq!(p, 0.0, "nothing runs before both are built");
        }
        last = p;
        slices += 1;
        if done {
            break;
        }
        assert!(slices < 100_000, "the run ends");
    }
    assert!(slices > 10, "it took many slices: {slices}");
    assert_eq!(job.progress(), 1.0);
    let sliced = job.finish().unwrap();
    assert_eq!(sliced.comparison, whole.comparison);
    assert_eq!(
        sliced.heatmaps(Metric::WritePressure, 200),
        whole.heatmaps(Metric::WritePressure, 200)
    );
    let probe = sliced
        .comparison
        .patterns
        .iter()
        .find(|p| p.name == "probe")
        .expect("the access pattern is compared");
    assert!(probe.access);
    assert!(probe.b.how.contains("device first"), "{}", probe.b.how);
}

#[test]
fn finishing_a_job_that_never_ran_runs_it_all() {
    let (a, b) = pair();
    let whole = compare(&a, &b, |_| Vec::new()).unwrap();
    let mut job = AbJob::start(&a, &b, |_| Vec::new()).unwrap();
    // The first steps build A's simulation a piece at a time, the next
    // B's; then A runs first.
    assert!(!job.tick().unwrap(), "one step does not end it");
    assert!(job.simulations().is_none());
    let mut building = 1;
    while job.simulations().is_none() {
        assert!(!job.tick().unwrap());
        building += 1;
        assert!(building < 1000, "the builds end");
    }
    assert!(building > 20, "each build is many short steps: {building}");
    assert_eq!(job.progress(), 0.0);
    assert!(!job.tick().unwrap());
    let [sa, sb] = job.simulations().expect("both built");
    assert!(
        sa.now_seconds() > 0.0 && sb.now_seconds() == 0.0,
        "A went first"
    );
    let run = job.finish().unwrap();
    assert!(run.a.is_finished() && run.b.is_finished());
    assert_eq!(run.comparison, whole.comparison);
}

#[test]
fn a_job_is_refused_as_compare_refuses() {
    let (a, mut b) = pair();
    b.cluster.nodes = 7;
    let job = AbJob::start(&a, &b, |_| Vec::new()).unwrap_err();
    let whole = compare(&a, &b, |_| Vec::new()).unwrap_err();
    assert_eq!(job.message(), whole.message());
    assert!(job.message().contains("[cluster]"), "{}", job.message());
    let (a, mut b) = pair();
    b.key.segments.clear();
    let e = AbJob::start(&a, &b, |_| Vec::new()).unwrap_err();
    assert!(e.message().starts_with("design B: "), "{}", e.message());
}

#[test]
fn the_last_steps_make_one_report_each_before_the_job_is_finished() {
    let (a, b) = pair();
    let mut job = AbJob::start(&a, &b, |_| Vec::new()).unwrap();
    let mut steps = 0;
    while job.progress() < 1.0 {
        job.tick().unwrap();
        steps += 1;
    }
    // Both runs are at their end; each report is a step of its own.
    assert!(!job.is_finished());
    assert!(!job.tick().unwrap());
    assert!(job.tick().unwrap());
    assert!(job.is_finished());
    assert!(job.advance(&mut || false).unwrap(), "nothing left to do");
    assert!(steps > 20, "{steps}");
    let run = job.finish().unwrap();
    assert_eq!(
        run.comparison,
        compare(&a, &b, |_| Vec::new()).unwrap().comparison
    );
}
