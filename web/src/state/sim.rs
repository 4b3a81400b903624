//! The simulation slice: the current design running on a simulated
//! cluster ([`tabletop_core::sim::Simulation`]), its Key Visualizer map,
//! tablets and findings, and how it plays.
//!
//! The simulation itself sits behind `Rc<RefCell<_>>` like the instance
//! (revisions of the state share it); what the panels draw is copied out
//! after every slice of work into plain values ([`SimSnapshot`],
//! [`MapData`], the diagnostics), so components never touch the engine.
//!
//! Playing advances the run in [`Action::Work`](super::Action::Work)
//! slices, one per animation frame, each within a time budget: at a
//! chosen speed the slice runs the simulated time that the wall-clock time
//! since the last frame is worth; at *Max* it runs until the budget is
//! spent. The map is rebuilt only when a heatmap column fills, the
//! diagnostics every few columns, so a frame stays short.
//!
//! The simulation follows the shared design: whenever
//! [`DesignState::rev`](super::design::DesignState::rev) changes (a
//! scenario picked here, the row-key designer, an advisor fix, a lesson),
//! it is rebuilt on the new design, paused at the start.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use tabletop_core::keyviz::{BucketMode, ColorScale, Diagnostic, Metric};
use tabletop_core::sim::{Scenario, Simulation, Step};

use super::design::DesignState;
use super::{Action, Cx, Effects};
use crate::view_model::keyviz::{KeyVizSettings, MapData, build_map, clamp_zoom};
use crate::view_model::sim::{SimSnapshot, Speed, scenario_text};

/// What the Tablets panel shows while a simulation is loaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TabletsView {
    /// The simulated cluster's tablets, nodes and events.
    #[default]
    Simulation,
    /// The real instance's selected table (the first half's panel).
    Table,
}

/// Diagnostics are recomputed at most every this many heatmap columns
/// and this much wall-clock time while playing (and whenever the run
/// pauses or ends): they scan the whole recorder, several times the cost
/// of the map.
const DIAGNOSE_EVERY_COLUMNS: usize = 20;
const DIAGNOSE_EVERY_MS: f64 = 1000.0;
/// While playing, the panels are brought up to date every this many
/// frames (20 times a second): the run still advances every frame, but
/// redrawing the tablets, nodes and events 60 times a second costs the
/// page more style, layout and paint work than the simulation itself.
const VIEW_EVERY_FRAMES: u64 = 3;
/// Longest wall-clock gap between two frames counted as playing time, so
/// a background tab coming back does not jump ahead.
const MAX_FRAME_GAP_MS: f64 = 100.0;

/// What this slice holds.
#[derive(Clone, Default)]
pub struct SimState {
    engine: Option<Rc<RefCell<Simulation>>>,
    /// The design revision the simulation was built from.
    pub design_rev: u64,
    /// Where the design came from (a scenario file name, a lesson, …).
    pub source: String,
    /// Why the design could not be simulated.
    pub error: Option<String>,
    /// Whether the run advances by itself.
    pub playing: bool,
    /// How fast it plays.
    pub speed: Speed,
    /// Simulated seconds to run to before pausing (restoring a link).
    pub seek_to: Option<f64>,
    /// The Key Visualizer's settings.
    pub keyviz: KeyVizSettings,
    /// What the Tablets panel shows.
    pub tablets_view: TabletsView,
    /// Whether the Key Visualizer's findings are unfolded (folded, they
    /// are one line above the map).
    pub findings_open: bool,
    /// Progress, tablets, nodes and events, as of the last slice.
    pub snapshot: Option<Rc<SimSnapshot>>,
    /// The Key Visualizer's map for [`SimState::keyviz`].
    pub map: Option<Rc<MapData>>,
    /// The findings so far.
    pub diagnostics: Rc<Vec<Diagnostic>>,
    /// Bumped on every change, so a new state compares unequal.
    rev: u64,
    /// Where playing should be by now, in simulated seconds.
    play_seconds: f64,
    last_frame_ms: Option<f64>,
    map_columns: usize,
    diagnosed_columns: usize,
    /// What rebuilding the map and diagnosing cost lately (ms), kept out
    /// of a frame's stepping budget (and shown to the performance test).
    pub map_ms: f64,
    /// See [`SimState::map_ms`].
    pub diagnose_ms: f64,
    /// Frames of work done (for [`VIEW_EVERY_FRAMES`]).
    frames: u64,
    /// When the diagnostics were last recomputed while playing.
    diagnosed_ms: Option<f64>,
}

/// A cost estimate that follows a higher cost at once and a lower one
/// slowly, so a frame rarely overruns twice.
fn follow_cost(estimate: f64, measured: f64) -> f64 {
    if measured.is_finite() {
        measured.max(estimate * 0.8 + measured * 0.2)
    } else {
        estimate
    }
}

impl PartialEq for SimState {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev
            && match (&self.engine, &other.engine) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

impl fmt::Debug for SimState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimState")
            .field("rev", &self.rev)
            .field("source", &self.source)
            .field("playing", &self.playing)
            .field("loaded", &self.engine.is_some())
            .finish_non_exhaustive()
    }
}

impl SimState {
    /// No simulation, following the design at `design_rev`; compares
    /// unequal to `self`.
    pub(crate) fn unloaded(&self, design_rev: u64) -> SimState {
        SimState {
            design_rev,
            rev: self.rev + 1,
            ..SimState::default()
        }
    }

    /// Makes this simulation (set aside earlier) the current one again:
    /// it follows the design at `design_rev` and compares unequal to
    /// `current`.
    pub(crate) fn revive(&mut self, design_rev: u64, current: &SimState) {
        self.design_rev = design_rev;
        self.rev = self.rev.max(current.rev) + 1;
    }

    /// Whether a run of the design at `design_rev` has reached its end.
    pub fn finished(&self, design_rev: u64) -> bool {
        self.design_rev == design_rev
            && self
                .engine
                .as_ref()
                .is_some_and(|e| e.borrow().is_finished())
    }

    /// The report of a finished run of the design at `design_rev`.
    pub fn finished_report(&self, design_rev: u64) -> Option<tabletop_core::sim::Report> {
        if !self.finished(design_rev) {
            return None;
        }
        self.engine.as_ref().map(|e| e.borrow().report())
    }

    /// Whether a simulation is loaded.
    pub fn loaded(&self) -> bool {
        self.engine.is_some()
    }

    /// Whether frames of work are wanted (playing, or running to a
    /// link's position).
    pub fn has_work(&self) -> bool {
        self.engine.is_some() && (self.playing || self.seek_to.is_some())
    }

    /// The revision (for components' memo keys).
    pub fn rev(&self) -> u64 {
        self.rev
    }

    /// Builds the simulation of `scenario` (or unloads it), paused at the
    /// start.
    fn load(&mut self, scenario: Option<&Scenario>) {
        self.playing = false;
        self.seek_to = None;
        self.keyviz.zoom = None;
        self.engine = None;
        self.error = None;
        self.snapshot = None;
        self.map = None;
        self.diagnostics = Rc::default();
        if let Some(scenario) = scenario {
            match Simulation::new(scenario.clone()) {
                Ok(sim) => self.engine = Some(Rc::new(RefCell::new(sim))),
                Err(e) => self.error = Some(format!("This design cannot be simulated: {e}")),
            }
        }
        self.refresh(true, false, None);
    }

    /// Whether the diagnostics are older than a few columns.
    fn diagnosis_due(&self, now_ms: f64) -> bool {
        let filled = self.map_columns;
        let columns = filled < self.diagnosed_columns
            || filled >= self.diagnosed_columns + DIAGNOSE_EVERY_COLUMNS;
        columns
            && self
                .diagnosed_ms
                .is_none_or(|t| now_ms - t >= DIAGNOSE_EVERY_MS)
    }

    /// Copies the views out of the simulation: progress, tablets and
    /// nodes always; the map when a column filled (or `all`); the
    /// diagnostics with `diagnose`, at the end, or with `all`. With a
    /// clock, the costs are measured for the next frame's budget.
    fn refresh(&mut self, all: bool, diagnose: bool, now_ms: Option<&dyn Fn() -> f64>) {
        self.rev += 1;
        let Some(engine) = self.engine.clone() else {
            return;
        };
        let sim = engine.borrow();
        let snapshot = SimSnapshot::take(&sim);
        let filled = snapshot.columns[1];
        let finished = snapshot.finished;
        self.snapshot = Some(Rc::new(snapshot));
        let clock = |f: &dyn Fn() -> f64| f();
        if all || filled != self.map_columns {
            let t0 = now_ms.map(clock);
            self.map = Some(Rc::new(build_map(&*sim, &self.keyviz)));
            self.map_columns = filled;
            if let (Some(t0), Some(now)) = (t0, now_ms) {
                self.map_ms = follow_cost(self.map_ms, now() - t0);
            }
        }
        if all || finished || diagnose {
            let t0 = now_ms.map(clock);
            self.diagnostics = Rc::new(sim.diagnostics());
            self.diagnosed_columns = filled;
            if let (Some(t0), Some(now)) = (t0, now_ms) {
                self.diagnose_ms = follow_cost(self.diagnose_ms, now() - t0);
            }
        }
    }

    /// Rebuilds only the map (the settings changed).
    fn rebuild_map(&mut self) {
        self.rev += 1;
        if let Some(engine) = &self.engine {
            let sim = engine.borrow();
            self.keyviz.zoom = clamp_zoom(self.keyviz.zoom, sim.recorder().fine_buckets() as u32);
            self.map = Some(Rc::new(build_map(&*sim, &self.keyviz)));
        }
    }

    fn now_seconds(&self) -> f64 {
        self.engine
            .as_ref()
            .map_or(0.0, |e| e.borrow().now_seconds())
    }

    /// Runs the simulation for at most `budget_ms` of this frame (by
    /// `now_ms`): to the seek target, or as far as the speed asks for the
    /// time since the last frame.
    pub(crate) fn work(&mut self, now_ms: &dyn Fn() -> f64, budget_ms: f64) {
        let Some(engine) = self.engine.clone() else {
            self.playing = false;
            self.seek_to = None;
            return;
        };
        let start = now_ms();
        // Leave room in the budget for what follows the stepping: the map
        // (a column fills nearly every frame) and, when due, the
        // diagnostics.
        self.frames = self.frames.wrapping_add(1);
        // A diagnosis gets a frame of its own (no stepping, so the map
        // stays as it is); other frames that update the panels leave room
        // for the map.
        let diagnose = self.diagnosis_due(start);
        let show = diagnose || self.frames.is_multiple_of(VIEW_EVERY_FRAMES);
        let deadline = if diagnose {
            self.diagnosed_ms = Some(start);
            start
        } else if show {
            start + (budget_ms - self.map_ms).max(budget_ms / 4.0)
        } else {
            start + budget_ms
        };
        let (now, duration) = {
            let sim = engine.borrow();
            (sim.now_seconds(), sim.duration_seconds())
        };
        let target = if let Some(t) = self.seek_to {
            t
        } else {
            let gap = self.last_frame_ms.map_or(1000.0 / 60.0, |last| {
                (start - last).clamp(0.0, MAX_FRAME_GAP_MS)
            });
            self.last_frame_ms = Some(start);
            match self.speed.seconds_per_second(duration) {
                Some(rate) => {
                    // Never fall more than a frame's worth behind: a slow
                    // frame slows the run instead of piling up work.
                    self.play_seconds = self
                        .play_seconds
                        .max(now - rate * MAX_FRAME_GAP_MS / 1000.0)
                        + rate * gap / 1000.0;
                    self.play_seconds
                }
                None => f64::INFINITY,
            }
        };
        {
            let mut sim = engine.borrow_mut();
            // One tick at a time, so the budget is checked often (a tick
            // is a small fraction of a heatmap column).
            while sim.now_seconds() < target && !sim.is_finished() && now_ms() < deadline {
                sim.step(Step::Seconds(f64::MIN_POSITIVE));
            }
        }
        let (now, finished) = {
            let sim = engine.borrow();
            (sim.now_seconds(), sim.is_finished())
        };
        let arrived = self.seek_to.is_some_and(|t| now >= t);
        if arrived || finished {
            self.seek_to = None;
            self.playing = false;
            self.last_frame_ms = None;
        }
        if show || arrived || finished {
            self.refresh(arrived || finished, diagnose, Some(now_ms));
        }
    }

    /// What a share link or autosave keeps of this slice, given the
    /// design (`None` when nothing is loaded).
    fn to_shared(&self, source: &str, scenario: Option<&Scenario>) -> Option<SimShared> {
        let scenario = scenario?;
        if self.engine.is_none() && self.error.is_none() {
            return None;
        }
        // A shipped file unchanged travels as its name, anything else as
        // TOML.
        let shipped = scenario_text(source)
            .and_then(|text| Scenario::from_toml(text).ok())
            .is_some_and(|s| &s == scenario);
        Some(SimShared {
            scenario: shipped.then(|| source.to_string()),
            design: (!shipped).then(|| tabletop_core::advisor::scenario_to_toml(scenario)),
            source: source.to_string(),
            seconds: self.seek_to.unwrap_or_else(|| self.now_seconds()),
            speed: self.speed,
            keyviz: self.keyviz,
            tablets: self.tablets_view,
        })
    }
}

/// The simulation as a share link or autosave keeps it (field `sim` of
/// [`SharedState`](crate::share::SharedState)).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SimShared {
    /// A shipped scenario file's name, when the design is that file as
    /// shipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Otherwise the design as scenario TOML.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub design: Option<String>,
    /// Where the design came from.
    pub source: String,
    /// Simulated seconds run.
    pub seconds: f64,
    /// The play speed.
    pub speed: Speed,
    /// The Key Visualizer's settings.
    pub keyviz: KeyVizSettings,
    /// What the Tablets panel shows.
    pub tablets: TabletsView,
}

/// What this slice does.
#[derive(Clone, Debug, PartialEq)]
pub enum SimAction {
    /// Make a shipped scenario file the design (and simulate it).
    PickScenario(String),
    /// Play from here (from the start again when the run is over).
    Play,
    /// Stop advancing.
    Pause,
    /// Advance one heatmap column, paused.
    Step,
    /// Back to the start of the run.
    Reset,
    /// Play at this speed.
    Speed(Speed),
    /// Show this metric.
    Metric(Metric),
    /// Colour on this scale.
    Scale(ColorScale),
    /// Cut the key axis this way.
    Mode(BucketMode),
    /// Show these fine key buckets (`None`: all).
    Zoom(Option<[u32; 2]>),
    /// Show the numbers as a table instead of the canvas.
    ShowTable(bool),
    /// What the Tablets panel shows.
    TabletsView(TabletsView),
    /// Unfold (`true`) or fold the Key Visualizer's findings.
    ShowFindings(bool),
}

impl From<super::live::MapAction> for SimAction {
    fn from(action: super::live::MapAction) -> SimAction {
        use super::live::MapAction;
        match action {
            MapAction::Metric(m) => SimAction::Metric(m),
            MapAction::Scale(s) => SimAction::Scale(s),
            MapAction::Mode(m) => SimAction::Mode(m),
            MapAction::Zoom(z) => SimAction::Zoom(z),
            MapAction::ShowTable(on) => SimAction::ShowTable(on),
            MapAction::ShowFindings(open) => SimAction::ShowFindings(open),
        }
    }
}

impl SimState {
    /// Applies an action of this slice, with only what `cx` lends (the
    /// design, read-only: picking a scenario asks for a new one).
    pub(crate) fn reduce(&mut self, action: SimAction, cx: &Cx<'_>) -> Effects {
        match action {
            SimAction::PickScenario(file) => return self.pick_scenario(file),
            SimAction::Play => {
                if self.engine.is_none() {
                    return Effects::default();
                }
                if self.snapshot.as_ref().is_some_and(|s| s.finished) {
                    self.load(cx.design.scenario.as_deref());
                }
                self.playing = true;
                self.seek_to = None;
                self.play_seconds = self.now_seconds();
                self.last_frame_ms = None;
                self.rev += 1;
            }
            SimAction::Pause => {
                self.playing = false;
                self.seek_to = None;
                self.last_frame_ms = None;
                self.refresh(true, true, None);
            }
            SimAction::Step => {
                self.playing = false;
                self.seek_to = None;
                if let Some(engine) = &self.engine {
                    engine.borrow_mut().step(Step::TimeBuckets(1));
                }
                self.refresh(true, true, None);
            }
            SimAction::Reset => {
                let keep = self.keyviz.zoom;
                self.load(cx.design.scenario.as_deref());
                // The key space is the same design's: keep the zoom.
                self.keyviz.zoom = keep;
                self.rebuild_map();
            }
            SimAction::Speed(speed) => {
                self.speed = speed;
                self.play_seconds = self.now_seconds();
                self.rev += 1;
            }
            SimAction::Metric(metric) => {
                self.keyviz.metric = metric;
                self.rebuild_map();
            }
            SimAction::Scale(scale) => {
                self.keyviz.scale = scale;
                self.rev += 1;
            }
            SimAction::Mode(mode) => {
                self.keyviz.mode = mode;
                self.rebuild_map();
            }
            SimAction::Zoom(zoom) => {
                self.keyviz.zoom = zoom;
                self.rebuild_map();
            }
            SimAction::ShowTable(on) => {
                self.keyviz.table = on;
                self.rev += 1;
            }
            SimAction::TabletsView(view) => {
                self.tablets_view = view;
                self.rev += 1;
            }
            SimAction::ShowFindings(open) => {
                self.findings_open = open;
                self.rev += 1;
            }
        }
        Effects::default()
    }

    /// A shipped scenario file becomes the design (through
    /// [`Action::SetDesign`], so every slice that follows the design
    /// hears of it), shown on the simulated cluster.
    fn pick_scenario(&mut self, file: String) -> Effects {
        match scenario_text(&file).map(Scenario::from_toml) {
            Some(Ok(scenario)) => {
                self.tablets_view = TabletsView::Simulation;
                Effects::then(Action::SetDesign(file, Box::new(scenario)))
            }
            Some(Err(e)) => Effects::error(format!("The scenario {file} could not be read: {e}")),
            None => Effects::error(format!("There is no scenario named {file}")),
        }
    }

    /// Whether the simulation was built from `design` as it is now.
    pub(crate) fn follows(&self, design: &DesignState) -> bool {
        self.design_rev == design.rev
    }

    /// Rebuilds the simulation on `design`, paused at the start (run after
    /// every action that changed the design; see [`SimState::follows`]).
    pub(crate) fn follow(&mut self, design: &DesignState) {
        self.design_rev = design.rev;
        self.source.clone_from(&design.source);
        self.load(design.scenario.as_deref());
    }

    /// The simulation part of a share link or autosave, for `design`.
    pub(crate) fn shared(&self, design: &DesignState) -> Option<SimShared> {
        self.to_shared(&design.source, design.scenario.as_deref())
    }

    /// Takes a share link's or autosave's settings and position, once the
    /// simulation follows the link's design: the run then goes to that
    /// position in frames of work, and pauses there.
    pub(crate) fn take_shared(&mut self, shared: &SimShared) {
        self.speed = shared.speed;
        self.tablets_view = shared.tablets;
        self.keyviz = shared.keyviz;
        self.rebuild_map();
        if shared.seconds.is_finite() && shared.seconds > 0.0 {
            self.seek_to = Some(shared.seconds);
        }
    }
}

impl SimShared {
    /// The design a share link or autosave carries, with where it came
    /// from (`None` when it carries none).
    pub(crate) fn design(&self) -> Option<Result<(String, Scenario), String>> {
        let scenario = match (&self.scenario, &self.design) {
            (Some(file), _) => match scenario_text(file) {
                Some(text) => Scenario::from_toml(text).map_err(|e| e.to_string()),
                None => Err(format!("there is no scenario named {file}")),
            },
            (None, Some(toml)) => Scenario::from_toml(toml).map_err(|e| e.to_string()),
            (None, None) => return None,
        };
        let source = if self.source.is_empty() {
            self.scenario.clone().unwrap_or_else(|| "link".into())
        } else {
            self.source.clone()
        };
        Some(scenario.map(|s| (source, s)))
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::share;
    use crate::state::layout::Panels;
    use crate::state::{AppState, Boot, TestClock};

    const NOW: i64 = 1_700_000_000_000_000;

    use crate::state::test_app as app;

    fn pick(state: &AppState, file: &str) -> AppState {
        state.apply(Action::Sim(SimAction::PickScenario(file.into())))
    }

    fn snapshot(state: &AppState) -> Rc<SimSnapshot> {
        Rc::clone(state.sim.snapshot.as_ref().expect("a simulation is loaded"))
    }

    #[test]
    fn picking_a_scenario_sets_the_design_and_loads_it_paused() {
        let state = app();
        assert!(!state.sim.loaded());
        let picked = pick(&state, "mobile_timestamp_first.toml");
        assert_eq!(picked.design.source, "mobile_timestamp_first.toml");
        assert_eq!(picked.design.rev, state.design.rev + 1);
        assert_eq!(
            picked.design.scenario.as_ref().unwrap().name,
            "Mobile time series: timestamp first"
        );
        assert!(picked.sim.loaded() && !picked.sim.playing && !picked.has_work());
        assert_eq!(picked.sim.design_rev, picked.design.rev);
        assert_eq!(snapshot(&picked).now_seconds, 0.0);
        assert_eq!(picked.sim.map.as_ref().unwrap().time_filled, 0);
        assert_ne!(picked.sim, state.sim);
        let bad = pick(&picked, "nope.toml");
        assert!(bad.notice.as_ref().unwrap().error);
        assert_eq!(bad.design.rev, picked.design.rev, "nothing changed");
    }

    #[test]
    fn playing_advances_in_frames_within_the_budget() {
        let mut state = pick(&app(), "mobile_device_first.toml")
            .apply(Action::Sim(SimAction::Speed(Speed::Max)))
            .apply(Action::Sim(SimAction::Play));
        assert!(state.has_work());
        let mut frames = 0;
        let mut still = 0;
        let mut last = 0.0;
        while state.has_work() {
            state = state.apply(Action::Work);
            let now = state.sim.now_seconds();
            assert!(now >= last);
            if now == last {
                // Only a frame that recomputes the diagnostics stands still.
                still += 1;
            }
            last = now;
            frames += 1;
            assert!(frames < 1000, "the run ends");
        }
        assert!(still * 4 < frames, "{still} of {frames} frames stood still");
        assert!(frames > 1, "it took several frames: {frames}");
        let s = snapshot(&state);
        assert!(s.finished && !state.sim.playing);
        assert_eq!(state.sim.map.as_ref().unwrap().time_filled, 300);
        assert!(!state.sim.diagnostics.is_empty());
        // Playing again starts over.
        let again = state.apply(Action::Sim(SimAction::Play));
        assert_eq!(snapshot(&again).now_seconds, 0.0);
        assert!(again.sim.playing);
    }

    #[test]
    fn a_finished_run_of_the_design_is_evidence_for_the_advisor() {
        use crate::view_model::learn::advisor_view;
        let mut state = pick(&app(), "hot_row_counter.toml")
            .apply(Action::Sim(SimAction::Speed(Speed::Max)))
            .apply(Action::Sim(SimAction::Play));
        assert!(!state.sim_finished());
        assert!(state.finished_sim_report().is_none());
        let before = advisor_view(state.design.scenario.as_deref(), &state.instance(), None);
        assert_eq!(*state.advisor.view, before, "the state keeps the findings");
        let mut frames = 0;
        while state.has_work() && frames < 1000 {
            state = state.apply(Action::Work);
            frames += 1;
        }
        assert!(state.sim_finished());
        let report = state
            .finished_sim_report()
            .expect("a finished run has a report");
        let after = advisor_view(
            state.design.scenario.as_deref(),
            &state.instance(),
            Some(&report),
        );
        assert!(after.with_report && !before.with_report);
        assert_eq!(*state.advisor.view, after, "with the report, once finished");
        let evidence = |v: &crate::view_model::learn::AdvisorView| -> Vec<String> {
            v.findings.iter().flat_map(|f| f.evidence.clone()).collect()
        };
        assert!(
            evidence(&after)
                .iter()
                .any(|e| e.starts_with("simulation:") && e.contains("#memusage")),
            "{:?}",
            evidence(&after)
        );
        assert!(
            !evidence(&before)
                .iter()
                .any(|e| e.starts_with("simulation:"))
        );
        // Another design: the old run is no evidence for it.
        let other = pick(&state, "mobile_device_first.toml");
        assert!(!other.sim_finished());
        assert!(other.finished_sim_report().is_none());
        assert_eq!(
            *other.advisor.view,
            advisor_view(other.design.scenario.as_deref(), &other.instance(), None)
        );
    }

    #[test]
    fn a_speed_runs_simulated_time_for_the_wall_time() {
        // The test clock moves 5 ms per reading; at 1x an hour-long run
        // plays 2 simulated minutes per wall second.
        let state = AppState::new(Rc::new(TestClock::new(NOW, 5.0)), false, Panels::default())
            .apply(Action::Boot(Boot::Demo));
        let mut state =
            pick(&state, "mobile_timestamp_first.toml").apply(Action::Sim(SimAction::Play));
        for _ in 0..10 {
            state = state.apply(Action::Work);
        }
        let now = snapshot(&state).now_seconds;
        assert!(now > 0.0 && now < 60.0, "{now}");
        assert!(state.sim.playing);
        let paused = state.apply(Action::Sim(SimAction::Pause));
        assert!(!paused.has_work());
        let after = paused.apply(Action::Work);
        assert_eq!(snapshot(&after).now_seconds, now, "paused runs stay put");
    }

    #[test]
    fn step_advances_one_column_and_reset_goes_back() {
        let state = pick(&app(), "mobile_timestamp_first.toml");
        let stepped = state
            .apply(Action::Sim(SimAction::Step))
            .apply(Action::Sim(SimAction::Step));
        let s = snapshot(&stepped);
        assert_eq!(s.columns[1], 2);
        assert!((s.now_seconds - 24.0).abs() < 1e-6, "{}", s.now_seconds);
        assert_eq!(stepped.sim.map.as_ref().unwrap().time_filled, 2);
        let reset = stepped.apply(Action::Sim(SimAction::Reset));
        assert_eq!(snapshot(&reset).now_seconds, 0.0);
        assert!(!reset.sim.playing);
    }

    #[test]
    fn a_design_change_resets_the_simulation() {
        let state = pick(&app(), "mobile_timestamp_first.toml");
        let mut state = state
            .apply(Action::Sim(SimAction::Step))
            .apply(Action::Sim(SimAction::Play));
        assert!(snapshot(&state).now_seconds > 0.0);
        let text = scenario_text("mobile_device_first.toml").unwrap();
        state = state.apply(Action::SetDesign(
            "edited".into(),
            Box::new(Scenario::from_toml(text).unwrap()),
        ));
        assert_eq!(state.sim.source, "edited");
        assert_eq!(snapshot(&state).now_seconds, 0.0);
        assert_eq!(snapshot(&state).title, "Mobile time series: device first");
        assert!(!state.sim.playing, "a new design starts paused");
        // A design that cannot be simulated says why instead of failing.
        let mut broken = Scenario::from_toml(text).unwrap();
        broken.keyviz.time_buckets = 0;
        let state = state.apply(Action::SetDesign("edited".into(), Box::new(broken)));
        assert!(!state.sim.loaded());
        assert!(
            state
                .sim
                .error
                .as_deref()
                .unwrap()
                .contains("cannot be simulated")
        );
        assert!(!state.has_work());
    }

    #[test]
    fn findings_start_folded_and_unfold_on_demand() {
        let state = pick(&app(), "mobile_timestamp_first.toml");
        assert!(!state.sim.findings_open, "folded at first");
        let open = state.apply(Action::Sim(SimAction::ShowFindings(true)));
        assert!(open.sim.findings_open);
        assert_ne!(*open.sim, *state.sim, "a new state, so the panel redraws");
        // Stepping the run keeps them as they are.
        let stepped = open.apply(Action::Sim(SimAction::Step));
        assert!(stepped.sim.findings_open);
        let folded = stepped.apply(Action::Sim(SimAction::ShowFindings(false)));
        assert!(!folded.sim.findings_open);
    }

    #[test]
    fn key_visualizer_settings_rebuild_the_map() {
        let state = pick(&app(), "mobile_device_first.toml")
            .apply(Action::Sim(SimAction::Step))
            .apply(Action::Sim(SimAction::Metric(Metric::WriteBytes)));
        let map = Rc::clone(state.sim.map.as_ref().unwrap());
        assert_eq!(map.metric, Metric::WriteBytes);
        let zoomed = state.apply(Action::Sim(SimAction::Zoom(Some([100, 300]))));
        assert_eq!(zoomed.sim.map.as_ref().unwrap().range, [100, 300]);
        let whole = zoomed.apply(Action::Sim(SimAction::Zoom(Some([0, 99_999]))));
        assert_eq!(whole.sim.keyviz.zoom, None);
        let scaled = whole.apply(Action::Sim(SimAction::Scale(ColorScale::Absolute)));
        assert_eq!(scaled.sim.keyviz.scale, ColorScale::Absolute);
        assert!(
            Rc::ptr_eq(
                scaled.sim.map.as_ref().unwrap(),
                whole.sim.map.as_ref().unwrap()
            ),
            "the scale only changes the painting"
        );
    }

    #[test]
    fn the_step_budget_leaves_room_for_the_map_and_diagnostics() {
        assert_eq!(follow_cost(0.0, 4.0), 4.0, "a first cost counts at once");
        assert_eq!(follow_cost(4.0, 10.0), 10.0, "a higher cost at once");
        assert!(
            (follow_cost(10.0, 0.0) - 8.0).abs() < 1e-9,
            "a lower one slowly"
        );
        assert_eq!(follow_cost(3.0, f64::NAN), 3.0);
        // With a 0.5 ms clock the map and the diagnostics are measured, and
        // the next frames step less.
        let mut state = pick(&app(), "mobile_timestamp_first.toml")
            .apply(Action::Sim(SimAction::Speed(Speed::Max)))
            .apply(Action::Sim(SimAction::Play))
            .apply(Action::Work)
            .apply(Action::Work)
            .apply(Action::Work);
        assert!(
            state.sim.map_ms > 0.0,
            "the map was rebuilt in the third frame"
        );
        let first = snapshot(&state).now_seconds;
        let before = Rc::clone(&state.sim.diagnostics);
        // The test clock moves 0.5 ms per reading: the next diagnosis is
        // a (simulated) second later, in a frame that does not step.
        let mut frames = 0;
        while state.sim.diagnose_ms == 0.0 {
            let was = state.sim.now_seconds();
            state = state.apply(Action::Work);
            frames += 1;
            assert!(
                frames < 1000 && state.has_work(),
                "a diagnosis while playing"
            );
            if state.sim.diagnose_ms > 0.0 {
                assert_eq!(state.sim.now_seconds(), was, "that frame did not step");
            }
        }
        assert!(!Rc::ptr_eq(&before, &state.sim.diagnostics));
        for _ in 0..3 {
            state = state.apply(Action::Work);
        }
        assert!(snapshot(&state).now_seconds > first, "and it goes on");
    }

    #[test]
    fn share_links_carry_the_scenario_progress_and_settings() {
        let state = pick(&app(), "mobile_timestamp_first.toml")
            .apply(Action::Sim(SimAction::Speed(Speed::Double)))
            .apply(Action::Sim(SimAction::Metric(Metric::WriteRows)))
            .apply(Action::Sim(SimAction::Scale(ColorScale::Absolute)))
            .apply(Action::Sim(SimAction::Zoom(Some([1024, 2048]))))
            .apply(Action::Sim(SimAction::TabletsView(TabletsView::Table)));
        let mut state = state;
        for _ in 0..5 {
            state = state.apply(Action::Sim(SimAction::Step));
        }
        let shared = state.to_shared(true);
        let sim = shared.sim.clone().unwrap();
        assert_eq!(sim.scenario.as_deref(), Some("mobile_timestamp_first.toml"));
        assert_eq!(sim.design, None);
        let text = share::encode(&shared);
        let decoded = share::decode(&text).unwrap();
        assert_eq!(decoded, shared);

        let mut back = AppState::new(Rc::new(TestClock::new(NOW, 0.5)), false, Panels::default())
            .apply(Action::Boot(Boot::Shared(Box::new(decoded))));
        assert!(back.has_work(), "runs to the link's position");
        while back.has_work() {
            back = back.apply(Action::Work);
        }
        assert_eq!(back.design.source, "mobile_timestamp_first.toml");
        assert_eq!(snapshot(&back).now_seconds, snapshot(&state).now_seconds);
        assert_eq!(back.sim.speed, Speed::Double);
        assert_eq!(back.sim.keyviz, state.sim.keyviz);
        assert_eq!(back.sim.tablets_view, TabletsView::Table);
        assert!(!back.sim.playing);
        assert_eq!(back.sim.map.as_deref(), state.sim.map.as_deref());
    }

    #[test]
    fn edited_designs_travel_as_toml() {
        let text = scenario_text("mobile_device_first.toml").unwrap();
        let mut scenario = Scenario::from_toml(text).unwrap();
        scenario.cluster.nodes = 6;
        let state = app().apply(Action::SetDesign(
            "edited".into(),
            Box::new(scenario.clone()),
        ));
        let sim = state.to_shared(true).sim.unwrap();
        assert_eq!(sim.scenario, None);
        let toml = sim.design.clone().unwrap();
        assert_eq!(Scenario::from_toml(&toml).unwrap(), scenario);
        let back = app().apply(Action::Boot(Boot::Shared(Box::new(share::SharedState {
            sim: Some(sim),
            ..share::SharedState::default()
        }))));
        assert_eq!(back.design.scenario.as_deref(), Some(&scenario));
        assert_eq!(snapshot(&back).nodes.len(), 6);
        // A broken design in a link is reported, not a crash.
        let broken = app().apply(Action::Boot(Boot::Shared(Box::new(share::SharedState {
            sim: Some(SimShared {
                design: Some("name = 3".into()),
                ..SimShared::default()
            }),
            ..share::SharedState::default()
        }))));
        assert!(
            broken
                .notice
                .as_ref()
                .unwrap()
                .text
                .contains("simulation could not be loaded")
        );
        assert!(!broken.sim.loaded());
        // Booting without a simulation unloads it.
        let plain = back.apply(Action::Boot(Boot::Demo));
        assert!(!plain.sim.loaded());
        assert!(plain.to_shared(true).sim.is_none());
    }
}
