//! A/B: two row-key designs on one workload, side by side.
//!
//! [`compare`] runs design A and design B through the simulator on the
//! same workload (the same table size, cluster, traffic and declared
//! access patterns) and says, pattern by pattern, which design serves it
//! better and why: rows scanned per row returned first (a read that has
//! to filter thousands of rows per row it wants loses to one that reads
//! only what it wants), then the latency its operations saw and how much
//! of its work was throttled, then the tablets one operation touched.
//!
//! # One workload
//!
//! The two scenario files must declare the same workload: everything but
//! the design may not differ. The design is the scenario's `name`,
//! `description`, `[key]`, the table's `id` and `families`, `[[column]]`,
//! `[[other_table]]` and `[[view]]`; the workload is everything else (the
//! seed, duration and start, the table's rows, entities, row size and
//! history, `[cluster]`, `[[workload]]`, `[[access]]`, `[keyviz]` and
//! `[sim]`). Files whose workloads differ are refused with an error that
//! names the sections that differ, rather than silently running one
//! design on the other's traffic.
//!
//! # Access patterns
//!
//! A declared `[[access]]` read runs differently under each key (a point
//! read, a prefix or range scan, a filtered full scan). How it runs is the
//! advisor's knowledge, in a higher crate, so the caller hands it in: a
//! function from a scenario to [`AccessCase`]s, each a workload the
//! simulator can run plus one sentence on how the read reaches its rows.
//! Both designs' cases are added to their workloads and simulated with
//! the rest.

use serde::{Deserialize, Serialize};

use crate::keydesign::KeyRenderer;
use crate::keyviz::{
    BucketMode, Diagnostic, GoogleMessage, Heatmap, MessageKind, Metric, messages_text,
};
use crate::scenario::{OpKind, Scenario, Workload};
use crate::sim::{NodeSummary, Report, SimBuild, Simulation, Step, WorkloadSummary, human_count};
use tabletop_store::{Error, Result};

/// Most workloads one simulation takes (the scenario's own plus access
/// patterns).
const MAX_WORKLOADS: usize = 32;
/// Rows scanned per row returned: one design wins when the other reads at
/// least this many times as many.
const SCAN_RATIO_MARGIN: f64 = 2.0;
/// Latency: one design wins when the other's is at least this many times
/// as slow (and at least 1 ms slower).
const LATENCY_MARGIN: f64 = 1.5;
/// Throttling: one design wins when the other throttles at least this
/// many points more of the pattern's work.
const THROTTLE_MARGIN: f64 = 5.0;

/// A declared access pattern as the simulator runs it under one design.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccessCase {
    /// The access pattern's name.
    pub name: String,
    /// The workload that performs it under this design.
    pub workload: Workload,
    /// How the read reaches its rows under this design, in one sentence.
    pub how: String,
}

/// Design A or design B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    /// The first file.
    A,
    /// The file after `--vs`.
    B,
}

impl Side {
    /// `A` or `B`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Side::A => "A",
            Side::B => "B",
        }
    }
}

/// One design's run: its key, its tablets and node load, and what the Key
/// Visualizer said.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DesignRun {
    /// `A` or `B`.
    pub side: Side,
    /// The scenario's name.
    pub scenario: String,
    /// The row key as a pattern.
    pub key_pattern: String,
    /// A few keys of the design.
    pub example_keys: Vec<String>,
    /// Tablets at the end.
    pub tablets: usize,
    /// Splits, merges and moves the balancer made.
    pub balancer_actions: usize,
    /// Per node: tablets, CPU, throttling, latency.
    pub nodes: Vec<NodeSummary>,
    /// The named patterns found.
    pub diagnostics: Vec<Diagnostic>,
    /// Google's Key Visualizer messages.
    pub messages: Vec<GoogleMessage>,
}

/// What one pattern did under one design.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PatternFigures {
    /// `write`, `read`, `scan` or `full_scan`: how the design runs it.
    pub op: String,
    /// Operations.
    pub operations: f64,
    /// Rows one operation returned (or wrote).
    pub rows_per_op: f64,
    /// Rows examined per row returned (0 for writes).
    pub rows_scanned_per_row: f64,
    /// Tablets one operation touched.
    pub tablets_per_op: f64,
    /// Mean latency (ms).
    pub mean_latency_ms: f64,
    /// Share of its work throttled (%).
    pub throttled_pct: f64,
    /// Share of its work on its busiest node (%).
    pub busiest_node_pct: f64,
    /// How an access pattern reaches its rows under this design (empty for
    /// the scenario's own workloads).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub how: String,
}

impl PatternFigures {
    fn of(w: &WorkloadSummary, how: &str) -> PatternFigures {
        PatternFigures {
            op: w.op.clone(),
            operations: w.operations,
            rows_per_op: w.mean_rows_per_op,
            rows_scanned_per_row: w.rows_scanned_per_row,
            tablets_per_op: w.mean_tablets_per_op,
            mean_latency_ms: w.mean_latency_ms,
            throttled_pct: w.throttled_pct,
            busiest_node_pct: w.busiest_node_pct,
            how: how.to_string(),
        }
    }

    fn is_write(&self) -> bool {
        self.op == OpKind::Write.name()
    }
}

/// One pattern compared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PatternVerdict {
    /// The workload's or access pattern's name.
    pub name: String,
    /// Whether it is a declared `[[access]]` pattern (else a
    /// `[[workload]]`).
    pub access: bool,
    /// Under design A.
    pub a: PatternFigures,
    /// Under design B.
    pub b: PatternFigures,
    /// The design that serves it better (`None`: a tie).
    pub winner: Option<Side>,
    /// Why, in a sentence or two with the numbers.
    pub why: String,
}

/// The whole A/B comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The workload both designs ran, in words.
    pub workload: String,
    /// Design A.
    pub a: DesignRun,
    /// Design B.
    pub b: DesignRun,
    /// Every workload and access pattern, compared.
    pub patterns: Vec<PatternVerdict>,
    /// The design that won more patterns (`None`: as many each).
    pub winner: Option<Side>,
    /// The verdict in words: who wins which pattern.
    pub verdict: String,
}

/// Both runs, kept for heatmaps, and their comparison.
#[derive(Clone, Debug)]
pub struct AbRun {
    /// Design A's simulation, run to the end.
    pub a: Simulation,
    /// Design B's simulation.
    pub b: Simulation,
    /// The comparison.
    pub comparison: Comparison,
}

/// Runs both designs on their common workload and compares them.
/// `access` turns a scenario's `[[access]]` patterns into workloads (see
/// the module documentation). Fails when either scenario is invalid or
/// when their workloads differ. The same as [`AbJob::start`] run to the
/// end at once.
pub fn compare(
    a: &Scenario,
    b: &Scenario,
    access: impl Fn(&Scenario) -> Vec<AccessCase>,
) -> Result<AbRun> {
    AbJob::start(a, b, access)?.finish()
}

/// A comparison under way: both designs checked, their simulations built
/// and advanced only as far as the caller asked, so a page can run it in
/// slices between frames, show how far it got, draw both maps as they
/// fill and stop it. Every step is one short piece of work: a piece of
/// building one design's simulation ([`SimBuild`]), one tick of one
/// design, or one design's report at the end. [`AbJob::finish`] runs what is left and compares.
#[derive(Clone, Debug)]
pub struct AbJob {
    a: Stage,
    b: Stage,
    cases_a: Vec<AccessCase>,
    cases_b: Vec<AccessCase>,
    /// The scenario's own workloads (the access patterns' follow them).
    own: usize,
    /// The common workload, in words.
    workload: String,
    /// Simulated seconds of the run (the same for both).
    duration_seconds: f64,
}

/// One design's part of a job.
#[derive(Clone, Debug)]
enum Stage {
    /// Checked, its simulation not built yet.
    Planned(Box<Scenario>),
    /// Its simulation being built, a chunk of the key-space sample per
    /// step (`None` only for a moment, while it is handed over).
    Building(Option<Box<SimBuild>>),
    /// Its simulation as far as it ran, and its report once the run ended.
    Built(Box<Simulation>, Option<Box<Report>>),
}

impl Stage {
    fn simulation(&self) -> Option<&Simulation> {
        match self {
            Stage::Planned(_) | Stage::Building(_) => None,
            Stage::Built(sim, _) => Some(sim),
        }
    }

    fn progress(&self) -> f64 {
        self.simulation().map_or(0.0, Simulation::progress)
    }

    fn is_reported(&self) -> bool {
        matches!(self, Stage::Built(_, Some(_)))
    }

    /// Does one short step: plans the simulation, builds a piece of it,
    /// runs one tick, or makes the report once the run ended (nothing
    /// once reported).
    fn step(&mut self) -> Result<()> {
        match self {
            Stage::Planned(scenario) => {
                let build = SimBuild::new((**scenario).clone())?;
                *self = Stage::Building(Some(Box::new(build)));
            }
            Stage::Building(slot) => match slot.take() {
                Some(build) if build.is_ready() => {
                    *self = Stage::Built(Box::new(build.finish()), None);
                }
                Some(mut build) => {
                    build.step();
                    *slot = Some(build);
                }
                None => {}
            },
            Stage::Built(sim, None) if !sim.is_finished() => {
                sim.step(Step::Seconds(f64::MIN_POSITIVE));
            }
            Stage::Built(sim, report @ None) => *report = Some(Box::new(sim.report())),
            Stage::Built(_, Some(_)) => {}
        }
        Ok(())
    }

    /// Runs what is left; the simulation and its report.
    fn finish(self) -> Result<(Simulation, Report)> {
        let mut sim = match self {
            Stage::Planned(scenario) => Simulation::new(*scenario)?,
            Stage::Building(Some(build)) => build.finish(),
            Stage::Building(None) => {
                return Err(Error::internal("the simulation was lost while being built"));
            }
            Stage::Built(sim, Some(report)) => return Ok((*sim, *report)),
            Stage::Built(sim, None) => *sim,
        };
        sim.step(Step::Seconds(f64::MAX));
        let report = sim.report();
        Ok((sim, report))
    }
}

impl AbJob {
    /// Checks that `a` and `b` declare one workload and builds both
    /// simulations, at their start. Fails as [`compare`] does.
    pub fn start(
        a: &Scenario,
        b: &Scenario,
        access: impl Fn(&Scenario) -> Vec<AccessCase>,
    ) -> Result<AbJob> {
        let differ = workload_differences(a, b);
        if !differ.is_empty() {
            return Err(Error::invalid(format!(
                "the two designs declare different workloads (they differ in {}); an A/B \
                 comparison runs both row-key designs on one workload, so the files may differ \
                 only in name, description, [key], the table's id and families, [[column]], \
                 [[other_table]] and [[view]]",
                differ.join(", ")
            )));
        }
        let (with_a, cases_a) = prepare(a, &access).map_err(|e| side_error(Side::A, &e))?;
        let (with_b, cases_b) = prepare(b, &access).map_err(|e| side_error(Side::B, &e))?;
        Ok(AbJob {
            workload: describe_workload(a, cases_a.len()),
            own: a.workloads.len(),
            duration_seconds: a.duration.0,
            a: Stage::Planned(Box::new(with_a)),
            b: Stage::Planned(Box::new(with_b)),
            cases_a,
            cases_b,
        })
    }

    /// Design A's and design B's simulations as far as they have run, once
    /// both are built (the first two steps build them).
    #[must_use]
    pub fn simulations(&self) -> Option<[&Simulation; 2]> {
        Some([self.a.simulation()?, self.b.simulation()?])
    }

    /// Simulated seconds each design runs.
    #[must_use]
    pub fn duration_seconds(&self) -> f64 {
        self.duration_seconds
    }

    /// How much of both runs is done, from 0 to 1.
    #[must_use]
    pub fn progress(&self) -> f64 {
        f64::midpoint(self.a.progress(), self.b.progress())
    }

    /// Whether both runs reached their end and both reports are made.
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.a.is_reported() && self.b.is_reported()
    }

    /// Does one short step of the design that is further behind (A on a
    /// tie): builds its simulation, runs one tick, or makes its report at
    /// the end. Returns whether the job is finished.
    ///
    /// # Errors
    ///
    /// When a design's simulation cannot be built (its scenario was
    /// checked at the start, so this is not expected).
    pub fn tick(&mut self) -> Result<bool> {
        let behind_b = match (&self.a, &self.b) {
            (Stage::Planned(_) | Stage::Building(_), _) => false,
            (_, Stage::Planned(_) | Stage::Building(_)) => true,
            _ if self.a.is_reported() => true,
            _ if self.b.is_reported() => false,
            _ => self.b.progress() < self.a.progress(),
        };
        let (stage, side) = if behind_b {
            (&mut self.b, Side::B)
        } else {
            (&mut self.a, Side::A)
        };
        stage.step().map_err(|e| side_error(side, &e))?;
        Ok(self.is_finished())
    }

    /// Runs steps, the two designs in step, until the job is finished or
    /// `out_of_time` says to stop (asked before every step); returns
    /// whether it is finished.
    ///
    /// # Errors
    ///
    /// As [`AbJob::tick`].
    pub fn advance(&mut self, out_of_time: &mut dyn FnMut() -> bool) -> Result<bool> {
        while !self.is_finished() && !out_of_time() {
            self.tick()?;
        }
        Ok(self.is_finished())
    }

    /// Runs both designs to their end and compares them.
    ///
    /// # Errors
    ///
    /// As [`AbJob::tick`].
    pub fn finish(self) -> Result<AbRun> {
        let (sim_a, ra) = self.a.finish().map_err(|e| side_error(Side::A, &e))?;
        let (sim_b, rb) = self.b.finish().map_err(|e| side_error(Side::B, &e))?;
        let mut patterns = Vec::new();
        for (i, (wa, wb)) in ra.workloads.iter().zip(&rb.workloads).enumerate() {
            // The scenario's own workloads come first, then one per access
            // pattern (the same patterns, in the same order, for both).
            let case = i
                .checked_sub(self.own)
                .and_then(|j| Some((self.cases_a.get(j)?, self.cases_b.get(j)?)));
            let (name, how_a, how_b) = match case {
                Some((ca, cb)) => (ca.name.clone(), ca.how.as_str(), cb.how.as_str()),
                None => (wa.name.clone(), "", ""),
            };
            let fa = PatternFigures::of(wa, how_a);
            let fb = PatternFigures::of(wb, how_b);
            let (winner, why) = judge(&fa, &fb, &ra, &rb);
            patterns.push(PatternVerdict {
                name,
                access: case.is_some(),
                a: fa,
                b: fb,
                winner,
                why,
            });
        }
        let (winner, verdict) = overall(&patterns);
        let comparison = Comparison {
            workload: self.workload,
            a: design_run(Side::A, &ra),
            b: design_run(Side::B, &rb),
            patterns,
            winner,
            verdict,
        };
        Ok(AbRun {
            a: sim_a,
            b: sim_b,
            comparison,
        })
    }
}

fn side_error(side: Side, e: &Error) -> Error {
    Error::new(e.code(), format!("design {}: {}", side.name(), e.message()))
}

/// The scenario with its access patterns added, checked, ready to be
/// simulated.
fn prepare(
    s: &Scenario,
    access: &impl Fn(&Scenario) -> Vec<AccessCase>,
) -> Result<(Scenario, Vec<AccessCase>)> {
    s.validate()?;
    let cases = access(s);
    if s.workloads.len() + cases.len() > MAX_WORKLOADS {
        return Err(Error::invalid(format!(
            "{} workloads and {} access patterns: an A/B comparison runs at most \
             {MAX_WORKLOADS} in all",
            s.workloads.len(),
            cases.len()
        )));
    }
    let mut with = s.clone();
    with.workloads
        .extend(cases.iter().map(|c| c.workload.clone()));
    with.validate()?;
    KeyRenderer::new(&with.key)?;
    Ok((with, cases))
}

/// The names of the workload's parts that differ between `a` and `b`.
#[must_use]
pub fn workload_differences(a: &Scenario, b: &Scenario) -> Vec<&'static str> {
    let (ta, tb) = (&a.table, &b.table);
    let checks: [(&'static str, bool); 14] = [
        ("seed", a.seed == b.seed),
        ("duration", a.duration == b.duration),
        ("start", a.start == b.start),
        ("[table] rows", ta.rows == tb.rows),
        ("[table] entities", ta.entities == tb.entities),
        ("[table] row_bytes", ta.row_bytes == tb.row_bytes),
        ("[table] history", ta.history == tb.history),
        ("[cluster]", a.cluster == b.cluster),
        ("[[workload]]", a.workloads == b.workloads),
        ("[[access]]", a.access == b.access),
        ("[keyviz]", a.keyviz == b.keyviz),
        ("[sim]", a.sim == b.sim),
        (
            "(no workload)",
            !a.workloads.is_empty() || !a.access.is_empty(),
        ),
        (
            "(no workload)",
            !b.workloads.is_empty() || !b.access.is_empty(),
        ),
    ];
    let mut out: Vec<&'static str> = checks
        .into_iter()
        .filter(|(_, same)| !same)
        .map(|(name, _)| name)
        .collect();
    out.dedup();
    out
}

fn describe_workload(s: &Scenario, access: usize) -> String {
    let names: Vec<String> = s
        .workloads
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let name = if w.name.is_empty() {
                format!("workload {}", i + 1)
            } else {
                w.name.clone()
            };
            format!("{name} ({} {}/s)", w.op.name(), human_count(w.rate))
        })
        .collect();
    format!(
        "both files declare the same workload, used for both designs: {}{} over {} of \
         simulated time on {} node{}, starting from {} rows",
        names.join(", "),
        if access > 0 {
            format!(", and {access} declared access pattern{}", plural(access))
        } else {
            String::new()
        },
        crate::keyviz::human_seconds(s.duration.0),
        s.cluster.nodes,
        plural(s.cluster.nodes as usize),
        human_count(s.table.rows as f64),
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn design_run(side: Side, r: &Report) -> DesignRun {
    DesignRun {
        side,
        scenario: r.scenario.clone(),
        key_pattern: r.key_pattern.clone(),
        example_keys: r.example_keys.clone(),
        tablets: r.tablets.len(),
        balancer_actions: (r.events.size_splits
            + r.events.load_splits
            + r.events.merges
            + r.events.moves) as usize,
        nodes: r.node_summaries.clone(),
        diagnostics: r.diagnostics.clone(),
        messages: r.messages.clone(),
    }
}

/// Which design serves one pattern better, and why.
fn judge(
    a: &PatternFigures,
    b: &PatternFigures,
    ra: &Report,
    rb: &Report,
) -> (Option<Side>, String) {
    let better = |x: f64, y: f64, margin: f64| -> Option<Side> {
        let (lo, hi) = (x.min(y), x.max(y));
        if hi >= lo.max(1e-12) * margin && hi > 0.0 {
            Some(if x < y { Side::A } else { Side::B })
        } else {
            None
        }
    };
    let pick = |s: Side| match s {
        Side::A => (a, b, Side::B),
        Side::B => (b, a, Side::A),
    };
    if !a.is_write()
        && !b.is_write()
        && let Some(w) = better(
            a.rows_scanned_per_row.max(1.0),
            b.rows_scanned_per_row.max(1.0),
            SCAN_RATIO_MARGIN,
        )
    {
        let (win, lose, loser) = pick(w);
        let mut why = format!(
            "{} reads {} rows for every row it returns, {} only {}.",
            loser.name(),
            human_count(lose.rows_scanned_per_row),
            w.name(),
            human_count(win.rows_scanned_per_row.max(1.0)),
        );
        for (side, f) in [(loser, lose), (w, win)] {
            if !f.how.is_empty() {
                why.push_str(&format!(" Under {}: {}", side.name(), f.how));
            }
        }
        return (Some(w), why);
    }
    let throttle = (a.throttled_pct - b.throttled_pct).abs() >= THROTTLE_MARGIN;
    let latency = better(a.mean_latency_ms, b.mean_latency_ms, LATENCY_MARGIN)
        .filter(|_| (a.mean_latency_ms - b.mean_latency_ms).abs() >= 1.0);
    let by_load = if throttle {
        Some(if a.throttled_pct < b.throttled_pct {
            Side::A
        } else {
            Side::B
        })
    } else {
        latency
    };
    if let Some(w) = by_load {
        let (win, lose, loser) = pick(w);
        let mut why = format!(
            "Under {} its operations took {:.1} ms on average and {:.0}% of its work was \
             throttled, against {:.1} ms and {:.0}% under {}; its busiest node did {:.0}% of \
             the work under {} and {:.0}% under {}.",
            loser.name(),
            lose.mean_latency_ms,
            lose.throttled_pct,
            win.mean_latency_ms,
            win.throttled_pct,
            w.name(),
            lose.busiest_node_pct,
            loser.name(),
            win.busiest_node_pct,
            w.name(),
        );
        let loser_report = if loser == Side::A { ra } else { rb };
        why.push_str(&pressure_note(loser, loser_report, lose.is_write()));
        return (Some(w), why);
    }
    if let Some(w) = better(
        a.tablets_per_op.max(1.0),
        b.tablets_per_op.max(1.0),
        SCAN_RATIO_MARGIN,
    ) {
        let (win, lose, loser) = pick(w);
        return (
            Some(w),
            format!(
                "One operation touches {:.1} tablets under {} and {:.1} under {}.",
                lose.tablets_per_op,
                loser.name(),
                win.tablets_per_op,
                w.name()
            ),
        );
    }
    (
        None,
        format!(
            "Both designs serve it alike: {:.1} and {:.1} ms, {} and {} rows scanned per row \
             returned.",
            a.mean_latency_ms,
            b.mean_latency_ms,
            human_count(a.rows_scanned_per_row),
            human_count(b.rows_scanned_per_row),
        ),
    )
}

/// The loser's high-pressure message and sequential-writes finding, if
/// any, as a sentence.
fn pressure_note(side: Side, r: &Report, write: bool) -> String {
    let kind = if write {
        MessageKind::HighWritePressure
    } else {
        MessageKind::HighReadPressure
    };
    let mut out = String::new();
    if let Some(m) = r.messages.iter().find(|m| m.kind == kind) {
        out.push_str(&format!(
            " Google's Key Visualizer would show \"{}\" for {} (index up to {:.0}).",
            m.title,
            side.name(),
            m.peak
        ));
    }
    if let Some(d) = r
        .diagnostics
        .iter()
        .find(|d| d.severity >= crate::keyviz::Severity::Warning)
    {
        out.push_str(&format!(" Finding: {}. {}", d.pattern.name(), d.remedy));
    }
    out
}

fn overall(patterns: &[PatternVerdict]) -> (Option<Side>, String) {
    let wins = |s: Side| -> Vec<&str> {
        patterns
            .iter()
            .filter(|p| p.winner == Some(s))
            .map(|p| p.name.as_str())
            .collect()
    };
    let (wa, wb) = (wins(Side::A), wins(Side::B));
    let ties: Vec<&str> = patterns
        .iter()
        .filter(|p| p.winner.is_none())
        .map(|p| p.name.as_str())
        .collect();
    let winner = match wa.len().cmp(&wb.len()) {
        std::cmp::Ordering::Greater => Some(Side::A),
        std::cmp::Ordering::Less => Some(Side::B),
        std::cmp::Ordering::Equal => None,
    };
    let list = |v: &[&str]| {
        v.iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    for (s, w) in [(Side::A, &wa), (Side::B, &wb)] {
        if !w.is_empty() {
            parts.push(format!("{} wins {}", s.name(), list(w)));
        }
    }
    if !ties.is_empty() {
        parts.push(format!("tie on {}", list(&ties)));
    }
    let head = match winner {
        Some(s) => format!(
            "Design {} wins {} of {} patterns",
            s.name(),
            wa.len().max(wb.len()),
            patterns.len()
        ),
        None => "Neither design wins more patterns".to_string(),
    };
    (winner, format!("{head}: {}.", parts.join("; ")))
}

impl AbRun {
    /// Heatmaps of `metric` for both designs on one colour scale: each
    /// heatmap's `max` is the larger of the two, so the same colour means
    /// the same value on both.
    #[must_use]
    pub fn heatmaps(&self, metric: Metric, key_buckets: usize) -> [Heatmap; 2] {
        let mut a = self.a.heatmap(metric, BucketMode::EqualKeys, key_buckets);
        let mut b = self.b.heatmap(metric, BucketMode::EqualKeys, key_buckets);
        let top = a.max.max(b.max);
        a.max = top;
        b.max = top;
        [a, b]
    }
}

impl Comparison {
    /// As pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// For people.
    #[must_use]
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = writeln!(s, "A/B: two row-key designs on one workload");
        let _ = writeln!(s, "Workload: {}.", self.workload);
        for d in [&self.a, &self.b] {
            let _ = writeln!(s, "\nDesign {}: {}", d.side.name(), d.scenario);
            let _ = writeln!(s, "  Row key: {}", d.key_pattern);
            if let Some(k) = d.example_keys.first() {
                let _ = writeln!(s, "  e.g. {k}");
            }
            let _ = writeln!(
                s,
                "  {} tablets at the end ({} balancer actions)",
                d.tablets, d.balancer_actions
            );
            let _ = writeln!(
                s,
                "  {:<5} {:>8} {:>9} {:>9} {:>10} {:>13}",
                "node", "tablets", "mean CPU", "peak CPU", "throttled", "mean latency"
            );
            for n in &d.nodes {
                let _ = writeln!(
                    s,
                    "  {:<5} {:>8} {:>8.1}% {:>8.1}% {:>9.1}% {:>10.1} ms",
                    n.node,
                    n.tablets,
                    n.mean_cpu_pct,
                    n.peak_cpu_pct,
                    n.throttled_pct,
                    n.mean_latency_ms
                );
            }
            let named: Vec<String> = d
                .diagnostics
                .iter()
                .map(|x| format!("{} ({})", x.pattern.name(), x.severity.name()))
                .collect();
            let _ = writeln!(
                s,
                "  Findings: {}",
                if named.is_empty() {
                    "none".to_string()
                } else {
                    named.join(", ")
                }
            );
            let _ = writeln!(s, "  Google's messages:");
            s.push_str(&messages_text(&d.messages, "    "));
        }
        let _ = writeln!(s, "\nPatterns");
        for p in &self.patterns {
            let _ = writeln!(
                s,
                "\n  {} ({}): {}",
                p.name,
                if p.access {
                    "access pattern"
                } else {
                    "workload"
                },
                match p.winner {
                    Some(w) => format!("{} wins", w.name()),
                    None => "tie".to_string(),
                }
            );
            for (side, f) in [(Side::A, &p.a), (Side::B, &p.b)] {
                let _ = writeln!(
                    s,
                    "    {}: {:<9} {:>10} ops, {:>8} rows scanned per row returned, {:.1} \
                     tablets/op, {:.1} ms, {:.0}% throttled",
                    side.name(),
                    f.op,
                    human_count(f.operations),
                    if f.is_write() {
                        "-".to_string()
                    } else {
                        human_count(f.rows_scanned_per_row)
                    },
                    f.tablets_per_op,
                    f.mean_latency_ms,
                    f.throttled_pct
                );
            }
            let _ = writeln!(s, "    Why: {}", p.why);
        }
        let _ = writeln!(s, "\nVerdict: {}", self.verdict);
        s
    }
}
