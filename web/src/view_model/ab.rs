//! What the A/B view shows: the designs to pick from, the two heatmaps on
//! one colour scale, each design's tablets and node load, and the
//! pattern-by-pattern comparison with the verdict, as text ready to draw
//! (the numbers are the core's [`Comparison`]; nothing here judges).

use std::rc::Rc;

use tabletop_core::compare::{Comparison, DesignRun, PatternFigures, PatternVerdict, Side};
use tabletop_core::keyviz::{ColorScale, human_seconds};
use tabletop_core::sim::Simulation;

use super::keyviz::{KeyVizSettings, MapData, build_map, pattern_title};
use super::sim::{scenario_choices, scenario_text};

/// The shipped A/B pair (`static/scenarios/ab_*.toml`): one workload, two
/// keys. Only this view offers them (the Simulation view's picker lists
/// the core's catalogue).
const PAIR: [(&str, &str); 2] = [
    (
        "ab_mobile_timestamp_first.toml",
        include_str!("../../../static/scenarios/ab_mobile_timestamp_first.toml"),
    ),
    (
        "ab_mobile_device_first.toml",
        include_str!("../../../static/scenarios/ab_mobile_device_first.toml"),
    ),
];

/// A shipped scenario file's text: the A/B pair's or the catalogue's.
pub fn design_text(file: &str) -> Option<&'static str> {
    PAIR.iter()
        .find(|(name, _)| *name == file)
        .map(|(_, text)| *text)
        .or_else(|| scenario_text(file))
}

/// Every shipped design a picker offers, `(file, title)`: the A/B pair
/// first, then the catalogue. Parsed once.
fn shipped() -> &'static [(&'static str, String)] {
    static ALL: std::sync::OnceLock<Vec<(&'static str, String)>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let pair = PAIR.iter().filter_map(|(file, text)| {
            let s = tabletop_core::sim::Scenario::from_toml(text).ok()?;
            Some((*file, s.name))
        });
        pair.chain(scenario_choices().iter().map(|c| (c.file, c.title.clone())))
            .collect()
    })
}

/// One side of an A/B pair, as picked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbDesign {
    /// The design being worked on (the Simulation view's, as the row-key
    /// designer or a fix left it).
    Current,
    /// A shipped scenario file.
    Shipped(String),
}

/// The `<select>` value of [`AbDesign::Current`].
const CURRENT: &str = "current";

impl AbDesign {
    /// Its value in a `<select>`.
    pub fn value(&self) -> String {
        match self {
            AbDesign::Current => CURRENT.to_string(),
            AbDesign::Shipped(file) => file.clone(),
        }
    }

    /// The design a `<select>` value names.
    pub fn from_value(value: &str) -> AbDesign {
        if value == CURRENT {
            AbDesign::Current
        } else {
            AbDesign::Shipped(value.to_string())
        }
    }

    /// Its name for people: the scenario's title, or "Current design".
    pub fn title(&self) -> String {
        match self {
            AbDesign::Current => "Current design".to_string(),
            AbDesign::Shipped(file) => shipped()
                .iter()
                .find(|(f, _)| f == file)
                .map_or_else(|| file.clone(), |(_, title)| title.clone()),
        }
    }
}

/// An entry of a design picker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbOption {
    /// The `<select>` value.
    pub value: String,
    /// What it says.
    pub label: String,
}

/// The designs a picker offers: the current design first (named, when
/// there is one), then every shipped scenario, the A/B pair first.
pub fn ab_options(current: Option<&str>) -> Vec<AbOption> {
    let mut out = vec![AbOption {
        value: CURRENT.into(),
        label: match current {
            Some(name) => format!("Current design: {name}"),
            None => "Current design (none yet)".into(),
        },
    }];
    out.extend(shipped().iter().map(|(file, title)| AbOption {
        value: (*file).to_string(),
        label: title.clone(),
    }));
    out
}

/// Both designs' heatmaps of one metric on one colour scale: each map's
/// `max` is the larger of the two, so one colour means one value on both.
#[derive(Clone, Debug, PartialEq)]
pub struct AbMaps {
    /// Design A's.
    pub a: Rc<MapData>,
    /// Design B's.
    pub b: Rc<MapData>,
}

impl AbMaps {
    /// Columns both maps have filled.
    pub fn filled(&self) -> usize {
        self.a.time_filled.min(self.b.time_filled)
    }

    /// The value at the bright end of the shared scale.
    pub fn top(&self, scale: ColorScale) -> f32 {
        self.a.top(scale).max(self.b.top(scale))
    }
}

/// Builds both maps of `settings` (the whole key space: the two designs'
/// keys differ, so a zoom means nothing on the other map) on one scale.
pub fn ab_maps([a, b]: [&Simulation; 2], settings: &KeyVizSettings) -> AbMaps {
    let settings = KeyVizSettings {
        zoom: None,
        ..*settings
    };
    let mut ma = build_map(a, &settings);
    let mut mb = build_map(b, &settings);
    let max = ma.max.max(mb.max);
    let reference = ma.reference.max(mb.reference);
    for m in [&mut ma, &mut mb] {
        m.max = max;
        m.reference = reference;
    }
    AbMaps {
        a: Rc::new(ma),
        b: Rc::new(mb),
    }
}

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunPhase {
    /// Advancing in frames.
    Running,
    /// Stopped before its end.
    Stopped,
    /// Both designs ran to the end.
    Done,
}

/// How far a run got, in words.
pub fn progress_text(progress: f64, [now, total]: [f64; 2], phase: RunPhase) -> String {
    let pct = (progress * 100.0).clamp(0.0, 100.0);
    match phase {
        RunPhase::Running => format!(
            "Running both designs: {} of {} simulated ({pct:.0}%)",
            human_seconds(now),
            human_seconds(total)
        ),
        RunPhase::Stopped => format!(
            "Stopped after {} of {} simulated ({pct:.0}%): run again for the verdict",
            human_seconds(now),
            human_seconds(total)
        ),
        RunPhase::Done => format!(
            "Both designs ran {} of simulated time (100%)",
            human_seconds(total)
        ),
    }
}

/// One design's figures for one pattern, as the table shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternCells {
    /// How the design runs it (`write`, `scan`, `full scan`, …).
    pub op: String,
    /// Rows examined per row returned (`–` for writes).
    pub scanned: String,
    /// Mean latency.
    pub latency: String,
    /// Tablets one operation touched.
    pub tablets: String,
    /// Share of its work throttled.
    pub throttled: String,
    /// How an access pattern reaches its rows under this design.
    pub how: String,
}

impl PatternCells {
    fn of(f: &PatternFigures) -> PatternCells {
        let write = f.op == "write";
        PatternCells {
            op: f.op.replace('_', " "),
            scanned: if write {
                "–".into()
            } else {
                format!("{} rows", short(f.rows_scanned_per_row))
            },
            latency: format!("{:.1} ms", f.mean_latency_ms),
            tablets: format!("{:.1}", f.tablets_per_op),
            throttled: format!("{:.0}%", f.throttled_pct),
            how: f.how.clone(),
        }
    }
}

/// A number with thousands separators (whole from 100 up).
fn short(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    if v >= 100.0 {
        super::format::format_count(v.round() as u64)
    } else if v >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// One row of the patterns table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternRow {
    /// The workload's or access pattern's name.
    pub name: String,
    /// `workload` or `access pattern`.
    pub kind: &'static str,
    /// Under design A, then B.
    pub sides: [PatternCells; 2],
    /// `A`, `B` or `None` for a tie.
    pub winner: Option<&'static str>,
    /// Why, in the core's words.
    pub why: String,
}

impl PatternRow {
    fn of(p: &PatternVerdict) -> PatternRow {
        PatternRow {
            name: p.name.clone(),
            kind: if p.access {
                "access pattern"
            } else {
                "workload"
            },
            sides: [PatternCells::of(&p.a), PatternCells::of(&p.b)],
            winner: p.winner.map(Side::name),
            why: p.why.clone(),
        }
    }

    /// The winner column's text.
    pub fn winner_text(&self) -> String {
        self.winner
            .map_or_else(|| "Tie".to_string(), |w| format!("{w} wins"))
    }
}

/// One node's load over a run.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeRow {
    /// `node 0`.
    pub node: String,
    /// Tablets it serves at the end.
    pub tablets: String,
    /// Mean CPU.
    pub mean_cpu: String,
    /// Highest CPU of any time bucket.
    pub peak_cpu: String,
    /// Share of its work throttled.
    pub throttled: String,
    /// Mean latency.
    pub latency: String,
    /// Peak CPU as a bar's width, 0 to 100 (a node past 100% fills it).
    pub bar: f64,
    /// Whether it ran hot (peak CPU at 90% or more).
    pub hot: bool,
}

/// One design's card: its key, tablets, node load and what Google's Key
/// Visualizer would say.
#[derive(Clone, Debug, PartialEq)]
pub struct DesignCard {
    /// `A` or `B`.
    pub side: &'static str,
    /// The scenario's name.
    pub scenario: String,
    /// The row key as a pattern.
    pub key_pattern: String,
    /// One key of the design.
    pub example_key: Option<String>,
    /// Tablets at the end, in words.
    pub tablets: String,
    /// Each node's load.
    pub nodes: Vec<NodeRow>,
    /// The findings' titles, most severe first (empty: none).
    pub findings: Vec<String>,
    /// Google's Key Visualizer messages' titles.
    pub messages: Vec<String>,
}

impl DesignCard {
    fn of(d: &DesignRun) -> DesignCard {
        DesignCard {
            side: d.side.name(),
            scenario: d.scenario.clone(),
            key_pattern: d.key_pattern.clone(),
            example_key: d.example_keys.first().cloned(),
            tablets: format!(
                "{} tablet{} at the end, after {} balancer action{}",
                d.tablets,
                plural(d.tablets),
                d.balancer_actions,
                plural(d.balancer_actions)
            ),
            nodes: d
                .nodes
                .iter()
                .map(|n| NodeRow {
                    node: format!("node {}", n.node),
                    tablets: n.tablets.to_string(),
                    mean_cpu: format!("{:.0}%", n.mean_cpu_pct),
                    peak_cpu: format!("{:.0}%", n.peak_cpu_pct),
                    throttled: format!("{:.1}%", n.throttled_pct),
                    latency: format!("{:.1} ms", n.mean_latency_ms),
                    bar: n.peak_cpu_pct.clamp(0.0, 100.0),
                    hot: n.peak_cpu_pct >= 90.0,
                })
                .collect(),
            findings: d
                .diagnostics
                .iter()
                .map(|x| pattern_title(x.pattern).to_string())
                .collect(),
            messages: d.messages.iter().map(|m| m.title.clone()).collect(),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The whole comparison, ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct AbView {
    /// The verdict in the core's words.
    pub verdict: String,
    /// `A`, `B`, or `None` when neither wins more patterns.
    pub winner: Option<&'static str>,
    /// The common workload, in words.
    pub workload: String,
    /// Design A's card, then B's.
    pub designs: [DesignCard; 2],
    /// Every workload and access pattern.
    pub patterns: Vec<PatternRow>,
}

/// The view of a finished comparison.
pub fn ab_view(c: &Comparison) -> AbView {
    AbView {
        verdict: c.verdict.clone(),
        winner: c.winner.map(Side::name),
        workload: capitalised(&c.workload),
        designs: [DesignCard::of(&c.a), DesignCard::of(&c.b)],
        patterns: c.patterns.iter().map(PatternRow::of).collect(),
    }
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::advisor::access_cases;
    use tabletop_core::compare::compare;
    use tabletop_core::keyviz::Metric;
    use tabletop_core::sim::Scenario;

    fn shipped(file: &str) -> Scenario {
        Scenario::from_toml(design_text(file).unwrap()).unwrap()
    }

    #[test]
    fn designs_round_trip_through_the_picker() {
        for d in [
            AbDesign::Current,
            AbDesign::Shipped("hot_row_counter.toml".into()),
        ] {
            assert_eq!(AbDesign::from_value(&d.value()), d);
        }
        let options = ab_options(Some("Mine"));
        assert_eq!(options[0].label, "Current design: Mine");
        assert!(options[1].value.starts_with("ab_"), "{options:?}");
        assert_eq!(
            options.len(),
            scenario_choices().len() + 3,
            "every shipped scenario"
        );
        assert_eq!(
            AbDesign::Shipped("ab_mobile_device_first.toml".into()).title(),
            "A/B mobile readings: device first"
        );
        assert_eq!(ab_options(None)[0].label, "Current design (none yet)");
    }

    #[test]
    fn the_view_reads_the_cores_verdict_and_both_maps_share_a_scale() {
        let ab = compare(
            &shipped("ab_mobile_timestamp_first.toml"),
            &shipped("ab_mobile_device_first.toml"),
            access_cases,
        )
        .unwrap();
        let view = ab_view(&ab.comparison);
        assert_eq!(view.verdict, ab.comparison.verdict);
        assert_eq!(view.winner, Some("B"));
        assert!(view.workload.starts_with("Both files"), "{}", view.workload);
        let one = view
            .patterns
            .iter()
            .find(|p| p.name == "one device, last 10 minutes")
            .unwrap();
        assert_eq!(one.winner_text(), "B wins");
        assert_eq!(one.kind, "access pattern");
        assert_eq!(one.sides[1].scanned, "1.0 rows");
        assert!(one.sides[1].latency.ends_with(" ms"));
        let writes = view
            .patterns
            .iter()
            .find(|p| p.name == "device uploads")
            .unwrap();
        assert_eq!(writes.sides[0].scanned, "–", "writes scan nothing");
        let [a, b] = &view.designs;
        assert_eq!((a.side, b.side), ("A", "B"));
        assert_eq!(a.nodes.len(), 4);
        assert!(a.nodes.iter().any(|n| n.hot), "timestamp-first runs hot");
        assert!(b.nodes.iter().all(|n| !n.hot), "device-first spreads");
        assert!(a.messages.iter().any(|m| m == "High write pressure"));
        assert!(a.tablets.contains("tablets at the end"), "{}", a.tablets);

        let settings = KeyVizSettings {
            metric: Metric::WritePressure,
            zoom: Some([0, 10]),
            ..KeyVizSettings::default()
        };
        let maps = ab_maps([&ab.a, &ab.b], &settings);
        assert_eq!(maps.a.max, maps.b.max, "one colour scale");
        assert_eq!(maps.a.reference, maps.b.reference);
        let own_max = |m: &MapData| m.values.iter().copied().fold(0.0f32, f32::max);
        assert_eq!(maps.a.max, own_max(&maps.a).max(own_max(&maps.b)));
        assert!(own_max(&maps.a) > 2.0 * own_max(&maps.b));
        assert!(!maps.a.zoomed() && !maps.b.zoomed(), "no zoom");
        assert_eq!(maps.filled(), 60);
        assert_eq!(maps.top(ColorScale::Relative), maps.a.max);
    }

    #[test]
    fn progress_says_how_far_and_what_stopping_means() {
        assert_eq!(
            progress_text(0.4, [720.0, 1800.0], RunPhase::Running),
            format!(
                "Running both designs: {} of {} simulated (40%)",
                human_seconds(720.0),
                human_seconds(1800.0)
            )
        );
        assert!(progress_text(0.5, [900.0, 1800.0], RunPhase::Stopped).contains("run again"));
        assert!(progress_text(1.0, [1800.0, 1800.0], RunPhase::Done).ends_with("(100%)"));
    }
}
