//! Which tablet and node served a heatmap cell: the simulation's log of
//! tablets and nodes over the run ([`Simulation::served`]) agrees with the
//! tablets it shows, with its balancer's events, and covers every key of
//! every time bucket.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::sim::{EventKind, ServedSpan, Simulation, Step};

const TIMESTAMP_FIRST: &str = include_str!("../../../static/scenarios/mobile_timestamp_first.toml");

/// The spans serving fine bucket `f` during column `c`.
fn serving(spans: &[ServedSpan], bucket_seconds: f64, c: u32, f: u32) -> Vec<ServedSpan> {
    spans
        .iter()
        .filter(|s| {
            let [c0, c1] = s.columns(bucket_seconds);
            (c0..c1).contains(&c) && (s.fine[0]..s.fine[1]).contains(&f)
        })
        .copied()
        .collect()
}

#[test]
fn every_key_of_every_time_bucket_has_a_tablet_and_a_node() {
    let mut sim = Simulation::from_toml(TIMESTAMP_FIRST).unwrap();
    sim.run_to_end();
    let spans = sim.served();
    let bs = sim.recorder().bucket_seconds();
    let columns = sim.recorder().filled() as u32;
    let fine = sim.axis().len() as u32;
    let nodes = sim.nodes().len() as u32;
    assert!(sim.events().len() > 2, "the balancer acted during the run");
    for c in 0..columns {
        for f in (0..fine).step_by(7) {
            let s = serving(&spans, bs, c, f);
            assert!(!s.is_empty(), "column {c}, fine bucket {f}: no tablet");
            assert!(s.iter().all(|s| s.node < nodes));
        }
    }
    // At the end, the open spans are the tablets shown now.
    let open: Vec<(u64, u32, [u32; 2])> = spans
        .iter()
        .filter(|s| s.seconds[1].is_infinite())
        .map(|s| (s.tablet, s.node, s.fine))
        .collect();
    let now: Vec<(u64, u32, [u32; 2])> = sim
        .tablets()
        .iter()
        .map(|t| (t.id, t.node, t.fine))
        .collect();
    assert_eq!(open, now);
}

#[test]
fn a_split_or_a_move_ends_a_span_when_the_balancer_acts() {
    let mut sim = Simulation::from_toml(TIMESTAMP_FIRST).unwrap();
    sim.run_to_end();
    let spans = sim.served();
    let bs = sim.recorder().bucket_seconds();
    let mut checked = 0;
    for e in sim.events() {
        let t = e.time_seconds;
        match &e.kind {
            EventKind::Split { tablet, into, .. } => {
                // The old tablet's span ends at the split, the two new
                // ones start there (unless a half was split again in
                // the same round: a size split repeats until each fits).
                let split_again = |id: u64| {
                    sim.events().iter().any(|o| {
                        o.time_seconds == t
                            && matches!(o.kind, EventKind::Split { tablet, .. } if tablet == id)
                    })
                };
                if !split_again(*tablet) || spans.iter().any(|s| s.tablet == *tablet) {
                    assert!(
                        spans
                            .iter()
                            .any(|s| s.tablet == *tablet && s.seconds[1] == t),
                        "{e:?}"
                    );
                }
                for id in into {
                    assert!(
                        split_again(*id)
                            || spans.iter().any(|s| s.tablet == *id && s.seconds[0] == t),
                        "{e:?}"
                    );
                }
            }
            EventKind::Move {
                tablet,
                from_node,
                to_node,
            } => {
                // A tablet may move twice in a round (for load, then to
                // even out counts): its span opens on the last node.
                let last = sim
                    .events()
                    .iter()
                    .rev()
                    .find_map(|o| match o.kind {
                        EventKind::Move {
                            tablet: id,
                            to_node,
                            ..
                        } if id == *tablet && o.time_seconds == t => Some(to_node),
                        _ => None,
                    })
                    .unwrap();
                let after = spans
                    .iter()
                    .find(|s| s.tablet == *tablet && s.seconds[0] == t && s.node == last);
                // After the round, its span is on that node (new, or
                // running on when it came back where it was).
                let on_last = spans.iter().any(|s| {
                    s.tablet == *tablet && s.node == last && s.seconds[0] <= t && s.seconds[1] > t
                });
                assert!(on_last, "{e:?}");
                let before = spans
                    .iter()
                    .find(|s| s.tablet == *tablet && s.seconds[1] == t && s.node == *from_node);
                // A tablet made in the same round has no span before it.
                if let (Some(b), Some(a), true) = (before, after, last == *to_node) {
                    assert_eq!(b.fine, a.fine);
                    // The column of the move names both nodes: one
                    // served the start of it, the other the rest.
                    let c = a.columns(bs)[0];
                    let both = serving(&spans, bs, c, a.fine[0]);
                    if b.columns(bs)[1] > c {
                        assert!(both.iter().any(|s| s.node == *from_node), "{e:?}");
                    }
                    assert!(both.iter().any(|s| s.node == *to_node), "{e:?}");
                }
            }
            EventKind::Merge { into, .. } => {
                assert!(spans.iter().any(|s| s.tablet == *into && s.seconds[0] == t));
            }
        }
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn spans_map_onto_the_columns_they_served_in() {
    let span = |from: f64, to: f64| ServedSpan {
        tablet: 1,
        node: 0,
        fine: [0, 4],
        seconds: [from, to],
    };
    // 30-second columns: from 0 to 60 s is columns 0 and 1; a change at
    // 60 s belongs to column 2 only.
    assert_eq!(span(0.0, 60.0).columns(30.0), [0, 2]);
    assert_eq!(span(60.0, 75.0).columns(30.0), [2, 3]);
    assert_eq!(span(45.0, 50.0).columns(30.0), [1, 2]);
    assert_eq!(span(90.0, f64::INFINITY).columns(30.0), [3, u32::MAX]);
}

#[test]
fn the_log_grows_with_the_balancers_changes_not_the_run() {
    let mut sim = Simulation::from_toml(TIMESTAMP_FIRST).unwrap();
    let first = sim.served().len();
    assert_eq!(
        first,
        sim.tablets().len(),
        "one span per tablet at the start"
    );
    // Ticks in which the balancer changed nothing add nothing.
    sim.step(Step::Seconds(1.0));
    if sim.events().is_empty() {
        assert_eq!(sim.served().len(), first);
    }
    sim.run_to_end();
    let events = sim.events().len();
    let spans = sim.served().len();
    // Each event ends at most one span and opens at most two.
    assert!(
        spans <= first + 2 * events,
        "{spans} spans, {events} events"
    );
}
