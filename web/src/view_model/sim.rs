//! The simulation's display data: the scenario picker's choices, play
//! speeds, progress in simulated time, and the live tablet map (the key
//! space as tablets coloured by node, split points, node CPU with
//! throttling, and the balancer's splits, merges and moves).
//!
//! [`SimSnapshot`] is what the reducer copies out of the running
//! simulation after each slice of work; the functions here turn it into
//! what the components draw.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use tabletop_core::keyviz::human_seconds;
use tabletop_core::sim::{
    EventKind, NodeView, Scenario, SimEvent, Simulation, SplitReason, TabletView, ViewLag,
    human_count,
};

use super::format::count_noun;
use super::tablets::BarSegment;

/// A shipped scenario file, for the picker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioChoice {
    /// The file name (`mobile_timestamp_first.toml`).
    pub file: &'static str,
    /// The scenario's title.
    pub title: String,
    /// What it shows.
    pub description: String,
    /// Whether it is one of the lessons' designs.
    pub lesson: bool,
}

/// The shipped scenarios, examples first then lessons' designs, each in
/// file order. Parsed once (the titles live inside the files).
pub fn scenario_choices() -> &'static [ScenarioChoice] {
    static CHOICES: OnceLock<Vec<ScenarioChoice>> = OnceLock::new();
    CHOICES.get_or_init(|| {
        let mut all: Vec<ScenarioChoice> = tabletop_core::lesson::scenario_files()
            .iter()
            .filter_map(|(file, text)| {
                let s = Scenario::from_toml(text).ok()?;
                Some(ScenarioChoice {
                    file,
                    title: s.name,
                    description: s.description,
                    lesson: file.starts_with("lesson_"),
                })
            })
            .collect();
        all.sort_by_key(|c| c.lesson);
        all
    })
}

/// The text of a shipped scenario file.
pub fn scenario_text(file: &str) -> Option<&'static str> {
    tabletop_core::lesson::scenario_files()
        .iter()
        .find(|(name, _)| *name == file)
        .map(|(_, text)| *text)
}

/// How fast the simulation plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    /// The whole run in two minutes.
    Quarter,
    /// In a minute.
    Half,
    /// In 30 seconds.
    #[default]
    Normal,
    /// In 15 seconds.
    Double,
    /// In under 8 seconds.
    Quadruple,
    /// As fast as the frame budget allows.
    Max,
}

/// Wall seconds a run takes at [`Speed::Normal`], whatever its length.
pub const NORMAL_RUN_SECONDS: f64 = 30.0;

impl Speed {
    /// Every speed, slowest first.
    pub const ALL: [Speed; 6] = [
        Speed::Quarter,
        Speed::Half,
        Speed::Normal,
        Speed::Double,
        Speed::Quadruple,
        Speed::Max,
    ];

    /// The multiplier (`None`: as fast as possible).
    pub fn factor(self) -> Option<f64> {
        match self {
            Speed::Quarter => Some(0.25),
            Speed::Half => Some(0.5),
            Speed::Normal => Some(1.0),
            Speed::Double => Some(2.0),
            Speed::Quadruple => Some(4.0),
            Speed::Max => None,
        }
    }

    /// Simulated seconds per wall-clock second for a run of
    /// `duration_seconds` (`None`: as fast as possible).
    pub fn seconds_per_second(self, duration_seconds: f64) -> Option<f64> {
        self.factor()
            .map(|f| f * duration_seconds.max(0.0) / NORMAL_RUN_SECONDS)
    }

    /// A name for the speed menu, with the simulated time per second.
    pub fn label(self, duration_seconds: f64) -> String {
        match self.seconds_per_second(duration_seconds) {
            Some(rate) => format!(
                "{} ({} per second)",
                self.short_label(),
                human_seconds(rate)
            ),
            None => self.short_label(),
        }
    }

    /// A name without the run's length (`1×`, `Max`).
    pub fn short_label(self) -> String {
        match self.factor() {
            Some(f) if f < 1.0 => format!("{f}×"),
            Some(f) => format!("{f:.0}×"),
            None => "Max".to_string(),
        }
    }

    /// The name used in links.
    pub fn slug(self) -> &'static str {
        match self {
            Speed::Quarter => "quarter",
            Speed::Half => "half",
            Speed::Normal => "normal",
            Speed::Double => "double",
            Speed::Quadruple => "quadruple",
            Speed::Max => "max",
        }
    }

    /// The speed named `slug` (unknown: normal).
    pub fn from_slug(slug: &str) -> Speed {
        Speed::ALL
            .into_iter()
            .find(|s| s.slug() == slug)
            .unwrap_or_default()
    }
}

/// Balancer events of a kind, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventCounts {
    /// Splits.
    pub splits: usize,
    /// Merges.
    pub merges: usize,
    /// Moves.
    pub moves: usize,
}

/// What the reducer copies out of the simulation after a slice of work.
#[derive(Clone, Debug, PartialEq)]
pub struct SimSnapshot {
    /// The scenario's title.
    pub title: String,
    /// Simulated seconds so far.
    pub now_seconds: f64,
    /// The whole run's length.
    pub duration_seconds: f64,
    /// Share done, 0 to 1.
    pub progress: f64,
    /// Whether the run is over.
    pub finished: bool,
    /// Heatmap columns of the run, and filled so far.
    pub columns: [usize; 2],
    /// Nodes of the cluster.
    pub nodes: Vec<NodeView>,
    /// The tablets, in key order.
    pub tablets: Vec<TabletView>,
    /// Events so far, by kind.
    pub counts: EventCounts,
    /// The latest events, newest first (at most [`RECENT_EVENTS`]).
    pub recent: Vec<SimEvent>,
    /// The scenario's materialized views and how far behind they are.
    pub views: Vec<ViewLine>,
    /// The balancer splits a tablet past this many bytes...
    pub split_bytes: u64,
    /// ... or past this share of a node.
    pub split_load: f64,
}

/// One materialized view's freshness, as the Tablets panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewLine {
    /// The view's name.
    pub name: String,
    /// `caught up`, or `6m behind · 3.6 M rows waiting`.
    pub state: String,
    /// The pace and the worst lag so far, for the tooltip.
    pub detail: String,
    /// Whether rows are waiting.
    pub behind: bool,
}

impl ViewLine {
    /// The line for one view's queue.
    pub fn of(v: &ViewLag) -> ViewLine {
        let behind = v.backlog_rows > 0.0;
        let state = if behind {
            format!(
                "{} behind · {} rows waiting",
                human_seconds(v.lag_seconds),
                human_count(v.backlog_rows)
            )
        } else {
            "caught up".to_string()
        };
        let mut detail = format!(
            "applies {} rows/s; {} of {} rows written applied",
            human_count(v.rows_per_second),
            human_count(v.rows_applied),
            human_count(v.rows_written)
        );
        if v.peak_lag_seconds > 0.0 {
            detail.push_str(&format!(
                "; at worst {} behind (at {})",
                human_seconds(v.peak_lag_seconds),
                human_seconds(v.peak_at_seconds)
            ));
        }
        ViewLine {
            name: v.name.clone(),
            state,
            detail,
            behind,
        }
    }
}

/// Events kept for the event list.
pub const RECENT_EVENTS: usize = 40;

impl SimSnapshot {
    /// Copies what the panels show out of `sim`.
    pub fn take(sim: &Simulation) -> SimSnapshot {
        let events = sim.events();
        let mut counts = EventCounts::default();
        for e in events {
            match e.kind {
                EventKind::Split { .. } => counts.splits += 1,
                EventKind::Merge { .. } => counts.merges += 1,
                EventKind::Move { .. } => counts.moves += 1,
            }
        }
        SimSnapshot {
            title: sim.scenario().name.clone(),
            now_seconds: sim.now_seconds(),
            duration_seconds: sim.duration_seconds(),
            progress: sim.progress(),
            finished: sim.is_finished(),
            columns: [sim.recorder().time_buckets(), sim.recorder().filled()],
            nodes: sim.nodes(),
            tablets: sim.tablets(),
            counts,
            recent: events.iter().rev().take(RECENT_EVENTS).cloned().collect(),
            views: sim.views().iter().map(ViewLine::of).collect(),
            split_bytes: sim.scenario().cluster.split_bytes,
            split_load: sim.scenario().cluster.split_load,
        }
    }

    /// When the simulated balancer splits a tablet.
    pub fn split_note(&self) -> super::tablets::SplitNote {
        let size = tabletop_core::human_bytes(self.split_bytes as f64);
        let load = self.split_load * 100.0;
        super::tablets::SplitNote {
            text: format!("Splits past {size} or {load:.0}% of a node."),
            detail: format!(
                "The simulated balancer splits a tablet that grows past {size} or needs more than {load:.0}% of a node: this scenario's settings (cluster.split_bytes and split_load). Bigtable decides its own splits, by size and load."
            ),
        }
    }

    /// `12m of 60m simulated (20%)`.
    pub fn progress_label(&self) -> String {
        format!(
            "{} of {} simulated ({:.0}%)",
            human_seconds(self.now_seconds),
            human_seconds(self.duration_seconds),
            self.progress * 100.0
        )
    }
}

/// How recently a tablet changed, for a short highlight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Created by a split.
    Split,
    /// Created by a merge.
    Merge,
    /// Moved to another node.
    Move,
}

impl Change {
    /// The CSS class of the highlight.
    pub fn class(self) -> &'static str {
        match self {
            Change::Split => "flash-split",
            Change::Merge => "flash-merge",
            Change::Move => "flash-move",
        }
    }
}

/// Tablets changed by events in the last `window` simulated seconds
/// before `now` (the latest change of each wins).
pub fn recent_changes(events: &[SimEvent], now: f64, window: f64) -> BTreeMap<u64, Change> {
    let mut out = BTreeMap::new();
    // `events` is newest first: keep the first change seen per tablet.
    for e in events.iter().take_while(|e| e.time_seconds >= now - window) {
        let mut mark = |id: u64, c: Change| {
            out.entry(id).or_insert(c);
        };
        match &e.kind {
            EventKind::Split { into, .. } => {
                mark(into[0], Change::Split);
                mark(into[1], Change::Split);
            }
            EventKind::Merge { into, .. } => mark(*into, Change::Merge),
            EventKind::Move { tablet, .. } => mark(*tablet, Change::Move),
        }
    }
    out
}

/// Colours for nodes: the Okabe-Ito palette, told apart with the common
/// forms of colour blindness. Nodes past eight reuse it with a stripe.
pub const NODE_COLOURS: usize = 8;

/// The CSS classes of a node's colour.
pub fn node_class(node: u32) -> String {
    let n = node as usize;
    if n < NODE_COLOURS {
        format!("node-c{}", n)
    } else {
        format!("node-c{} node-striped", n % NODE_COLOURS)
    }
}

/// One tablet of the live bar.
#[derive(Clone, Debug, PartialEq)]
pub struct SimTablet {
    /// Tablet id.
    pub id: u64,
    /// Serving node.
    pub node: u32,
    /// Where and how wide, in percent.
    pub segment: BarSegment,
    /// First key (escaped).
    pub start: String,
    /// A highlight when it changed lately.
    pub change: Option<Change>,
    /// Hover text.
    pub title: String,
}

/// Lays the simulated tablets along a bar, each as wide as its share of
/// the bytes (plus a floor so small ones stay visible), coloured by node,
/// with lately changed ones marked.
pub fn sim_bar(snapshot: &SimSnapshot) -> Vec<SimTablet> {
    let tablets = &snapshot.tablets;
    if tablets.is_empty() {
        return Vec::new();
    }
    let total: f64 = tablets.iter().map(|t| t.bytes.max(0.0)).sum();
    let floor = (total / (tablets.len() as f64 * 10.0)).max(1.0);
    let sum: f64 = tablets.iter().map(|t| t.bytes.max(0.0) + floor).sum();
    // A highlight lasts about one heatmap column of simulated time.
    let window = snapshot.duration_seconds / snapshot.columns[0].max(1) as f64 * 2.0;
    let changes = recent_changes(&snapshot.recent, snapshot.now_seconds, window);
    let mut left = 0.0;
    tablets
        .iter()
        .map(|t| {
            let width = (t.bytes.max(0.0) + floor) / sum * 100.0;
            let segment = BarSegment { left, width };
            left += width;
            SimTablet {
                id: t.id,
                node: t.node,
                segment,
                start: t.start_key.clone(),
                change: changes.get(&t.id).copied(),
                title: format!(
                    "Tablet #{} on node {} · {} · {} rows · {:.0}% of a node",
                    t.id,
                    t.node,
                    tabletop_core::human_bytes(t.bytes.max(0.0)),
                    super::keyviz::short_number(t.rows),
                    t.load * 100.0
                ),
            }
        })
        .collect()
}

/// One node's CPU bar.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeBar {
    /// Node number.
    pub node: u32,
    /// The part up to 100%, in percent of the track.
    pub fill: f64,
    /// The part past 100% (throttled), in percent of the track.
    pub over: f64,
    /// Where 100% is on the track, in percent.
    pub full_mark: f64,
    /// `148% CPU, 32% throttled`.
    pub short: String,
    /// The same with the tablets and latency.
    pub label: String,
    /// Whether the node is past 100%.
    pub throttled: bool,
}

/// CPU bars on one shared track, long enough for the busiest node (at
/// least 100%, at most 300%), so throttling shows as the part past the
/// 100% mark.
pub fn node_bars(nodes: &[NodeView]) -> Vec<NodeBar> {
    let top = nodes
        .iter()
        .map(|n| n.cpu_pct)
        .filter(|c| c.is_finite())
        .fold(100.0f64, f64::max)
        .min(300.0);
    nodes
        .iter()
        .map(|n| {
            let cpu = if n.cpu_pct.is_finite() {
                n.cpu_pct.max(0.0)
            } else {
                0.0
            };
            let throttled = cpu > 100.0;
            let shown = cpu.min(top);
            let throttle = if throttled {
                format!(", {:.0}% throttled", (cpu - 100.0) / cpu * 100.0)
            } else {
                String::new()
            };
            NodeBar {
                node: n.node,
                fill: shown.min(100.0) / top * 100.0,
                over: (shown - 100.0).max(0.0) / top * 100.0,
                full_mark: 100.0 / top * 100.0,
                short: format!("{cpu:.0}% CPU{throttle}"),
                label: format!(
                    "{cpu:.0}% CPU{throttle} · {} · {} latency",
                    count_noun(n.tablets as u64, "tablet"),
                    latency(n.latency_ms)
                ),
                throttled,
            }
        })
        .collect()
}

fn latency(ms: f64) -> String {
    if !ms.is_finite() {
        "?".into()
    } else if ms >= 1000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        format!("{ms:.1} ms")
    }
}

/// One line of the event list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventLine {
    /// When, into the run.
    pub at: String,
    /// `split`, `merge` or `move`.
    pub kind: &'static str,
    /// What happened.
    pub text: String,
}

/// The event list, newest first.
pub fn event_lines(events: &[SimEvent]) -> Vec<EventLine> {
    events
        .iter()
        .map(|e| {
            let (kind, text) = match &e.kind {
                EventKind::Split {
                    tablet,
                    into,
                    at_key,
                    reason,
                } => (
                    "split",
                    format!(
                        "#{tablet} split {} at {} into #{} and #{}",
                        match reason {
                            SplitReason::Size => "by size",
                            SplitReason::Load => "by load",
                        },
                        if at_key.is_empty() { "\"\"" } else { at_key },
                        into[0],
                        into[1]
                    ),
                ),
                EventKind::Merge { from, into } => (
                    "merge",
                    format!("#{} and #{} merged into #{into}", from[0], from[1]),
                ),
                EventKind::Move {
                    tablet,
                    from_node,
                    to_node,
                } => (
                    "move",
                    format!("#{tablet} moved from node {from_node} to node {to_node}"),
                ),
            };
            EventLine {
                at: human_seconds(e.time_seconds),
                kind,
                text,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::sim::Step;

    fn sim(file: &str) -> Simulation {
        Simulation::from_toml(scenario_text(file).unwrap()).unwrap()
    }

    #[test]
    fn the_split_note_gives_the_scenarios_thresholds() {
        let snap = SimSnapshot::take(&sim("mobile_timestamp_first.toml"));
        assert_eq!(
            snap.split_note().text,
            "Splits past 512 MiB or 25% of a node."
        );
        let snap = SimSnapshot::take(&sim("reverse_domains.toml"));
        let note = snap.split_note();
        assert!(note.text.contains("past 256 MiB"), "{}", note.text);
        assert!(note.detail.contains("by size and load"), "{}", note.detail);
    }

    #[test]
    fn every_shipped_scenario_is_a_choice() {
        let choices = scenario_choices();
        assert_eq!(choices.len(), tabletop_core::lesson::scenario_files().len());
        let first_lesson = choices.iter().position(|c| c.lesson).unwrap();
        assert!(choices[first_lesson..].iter().all(|c| c.lesson));
        let ts = choices
            .iter()
            .find(|c| c.file == "mobile_timestamp_first.toml")
            .unwrap();
        assert_eq!(ts.title, "Mobile time series: timestamp first");
        assert!(scenario_text("nope.toml").is_none());
    }

    #[test]
    fn speeds_scale_with_the_run() {
        assert_eq!(Speed::Normal.seconds_per_second(3600.0), Some(120.0));
        assert_eq!(Speed::Max.seconds_per_second(3600.0), None);
        assert_eq!(Speed::Normal.label(3600.0), "1× (2m per second)");
        assert_eq!(Speed::Quarter.label(3600.0), "0.25× (30s per second)");
        assert_eq!(Speed::Max.label(3600.0), "Max");
        assert_eq!(Speed::Double.short_label(), "2×");
        for s in Speed::ALL {
            assert_eq!(Speed::from_slug(s.slug()), s);
        }
        assert_eq!(Speed::from_slug("warp"), Speed::Normal);
    }

    #[test]
    fn a_view_falls_behind_each_batch_and_catches_up() {
        let mut s = sim("periodic_batch.toml");
        let line = |s: &Simulation| SimSnapshot::take(s).views[0].clone();
        assert_eq!(line(&s).state, "caught up");
        // The first batch runs from 1m to 3m at 40,000 writes a second,
        // four times the view's pace.
        s.step(Step::Seconds(180.0));
        let behind = line(&s);
        assert_eq!(behind.name, "readings by day");
        assert!(behind.behind, "{behind:?}");
        assert!(
            behind.state.starts_with("6m behind · 3.6 M rows waiting"),
            "{behind:?}"
        );
        assert!(
            behind.detail.contains("applies 10.0 k rows/s"),
            "{behind:?}"
        );
        // Six quiet minutes later it has caught up.
        s.step(Step::Seconds(400.0));
        let caught = line(&s);
        assert!(!caught.behind && caught.state == "caught up", "{caught:?}");
        assert!(
            caught.detail.contains("at worst 6m behind (at 3m)"),
            "{caught:?}"
        );
        // Scenarios without views have no lines.
        assert!(
            SimSnapshot::take(&sim("mobile_timestamp_first.toml"))
                .views
                .is_empty()
        );
    }

    #[test]
    fn the_tablet_map_changes_as_the_run_goes() {
        let mut s = sim("mobile_timestamp_first.toml");
        let before = SimSnapshot::take(&s);
        assert_eq!(before.progress, 0.0);
        assert!(before.progress_label().starts_with("0s of 60m"));
        s.step(Step::TimeBuckets(100));
        let after = SimSnapshot::take(&s);
        assert!(after.counts.splits > 0 && after.counts.moves > 0);
        assert!(after.tablets.len() > before.tablets.len());
        assert_eq!(after.columns, [300, 100]);
        let bar = sim_bar(&after);
        assert_eq!(bar.len(), after.tablets.len());
        let end = bar.last().unwrap();
        assert!((end.segment.left + end.segment.width - 100.0).abs() < 1e-6);
        assert!(
            bar.iter().any(|t| t.change.is_some()),
            "recent splits are marked"
        );
        let nodes: std::collections::BTreeSet<u32> = bar.iter().map(|t| t.node).collect();
        assert_eq!(nodes.len(), 4, "tablets spread over the four nodes");
        let lines = event_lines(&after.recent);
        assert_eq!(lines.len(), after.recent.len().min(RECENT_EVENTS));
        assert!(
            lines
                .iter()
                .any(|l| l.kind == "split" && l.text.contains("by size"))
        );
    }

    #[test]
    fn throttled_nodes_show_past_the_full_mark() {
        let node = |n: u32, cpu: f64| NodeView {
            node: n,
            tablets: 3,
            bytes: 0.0,
            cpu_pct: cpu,
            latency_ms: 12.0,
        };
        let bars = node_bars(&[node(0, 150.0), node(1, 50.0), node(2, f64::NAN)]);
        assert!((bars[0].full_mark - 100.0 / 1.5).abs() < 1e-9);
        assert!(bars[0].throttled && bars[0].over > 0.0);
        assert_eq!(bars[0].short, "150% CPU, 33% throttled");
        assert_eq!(
            bars[0].label,
            "150% CPU, 33% throttled · 3 tablets · 12.0 ms latency"
        );
        assert!(!bars[1].throttled && bars[1].over == 0.0);
        assert_eq!(bars[2].fill, 0.0);
        let calm = node_bars(&[node(0, 40.0)]);
        assert_eq!(calm[0].full_mark, 100.0);
        assert_eq!(calm[0].fill, 40.0);
    }

    #[test]
    fn recent_changes_keep_the_latest_per_tablet() {
        let ev = |t: f64, kind: EventKind| SimEvent {
            time_seconds: t,
            kind,
        };
        let events = [
            ev(
                100.0,
                EventKind::Move {
                    tablet: 7,
                    from_node: 0,
                    to_node: 1,
                },
            ),
            ev(
                95.0,
                EventKind::Split {
                    tablet: 1,
                    into: [7, 8],
                    at_key: "k".into(),
                    reason: SplitReason::Load,
                },
            ),
            ev(
                10.0,
                EventKind::Merge {
                    from: [2, 3],
                    into: 9,
                },
            ),
        ];
        let c = recent_changes(&events, 100.0, 10.0);
        assert_eq!(c.get(&7), Some(&Change::Move));
        assert_eq!(c.get(&8), Some(&Change::Split));
        assert_eq!(c.get(&9), None, "too old");
        assert_eq!(node_class(3), "node-c3");
        assert_eq!(node_class(9), "node-c1 node-striped");
    }
}
