//! The A/B slice: two row-key designs run on one workload side by side
//! ([`tabletop_core::compare`]), for the Key Visualizer's third view.
//!
//! A person picks design A and design B (a shipped scenario file each, or
//! the current design, as the row-key designer or a fix left it) and runs
//! them. The run is an [`AbJob`] behind `Rc<RefCell<_>>` like the
//! simulation; it advances in [`Action::Work`](super::Action::Work)
//! slices, each within the frame's time budget, so the page never
//! freezes. Both heatmaps are rebuilt as their columns fill, on one colour
//! scale; once both runs end, a frame of its own finishes the job: the
//! core compares the designs pattern by pattern and says who wins and
//! why. A run can be stopped (its maps stay, without a verdict) and
//! started again. The result stays while the panel shows another view.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use tabletop_core::advisor::access_cases;
use tabletop_core::compare::{AbJob, AbRun, Comparison};
use tabletop_core::sim::Scenario;

use super::Cx;
use super::live::MapAction;
use crate::view_model::ab::{AbDesign, AbMaps, RunPhase, ab_maps, design_text};
use crate::view_model::keyviz::KeyVizSettings;

/// The pair offered first: the schema-design guide's two keys for one
/// mobile time series, with the same traffic and declared reads.
pub const DEFAULT_A: &str = "ab_mobile_timestamp_first.toml";
/// See [`DEFAULT_A`].
pub const DEFAULT_B: &str = "ab_mobile_device_first.toml";

/// While running, the maps are rebuilt at most every this many frames
/// (and only when a column filled): the runs advance every frame.
const MAPS_EVERY_FRAMES: u64 = 3;

/// The comparison being run, or run.
enum Engine {
    /// Both simulations, part way.
    Running(Box<AbJob>),
    /// Both runs ended and compared.
    Done(Box<AbRun>),
    /// Between the two (only while finishing).
    Empty,
}

/// What this slice holds.
#[derive(Clone)]
pub struct AbState {
    /// Design A, as picked.
    pub a: AbDesign,
    /// Design B, as picked.
    pub b: AbDesign,
    engine: Option<Rc<RefCell<Engine>>>,
    /// The two designs the shown run compares, for people.
    pub ran: Option<[String; 2]>,
    /// Whether the run advances in frames.
    pub running: bool,
    /// Whether the last run was stopped before its end.
    pub stopped: bool,
    /// How much of both runs is done, from 0 to 1.
    pub progress: f64,
    /// Simulated seconds run so far, and in all.
    pub seconds: [f64; 2],
    /// Why the designs could not be run.
    pub error: Option<String>,
    /// What the two maps show (one metric, one scale for both).
    pub keyviz: KeyVizSettings,
    /// Both heatmaps, on one colour scale.
    pub maps: Option<Rc<AbMaps>>,
    /// The verdict, once both runs ended.
    pub comparison: Option<Rc<Comparison>>,
    /// What rebuilding both maps cost lately (ms), kept out of a frame's
    /// stepping budget.
    pub maps_ms: f64,
    /// What finishing cost (ms): comparing both reports.
    pub finish_ms: f64,
    columns: usize,
    frames: u64,
    /// The first maps of a run are due: the next frame draws them and
    /// does nothing else.
    first_draw_due: bool,
    /// Design B's map waits for a frame of its own: the first drawing of
    /// a run's maps lays out and paints one map per frame (A, then B).
    pub b_waits: bool,
    rev: u64,
}

impl Default for AbState {
    fn default() -> Self {
        AbState {
            a: AbDesign::Shipped(DEFAULT_A.into()),
            b: AbDesign::Shipped(DEFAULT_B.into()),
            engine: None,
            ran: None,
            running: false,
            stopped: false,
            progress: 0.0,
            seconds: [0.0; 2],
            error: None,
            keyviz: KeyVizSettings::default(),
            maps: None,
            comparison: None,
            maps_ms: 0.0,
            finish_ms: 0.0,
            columns: 0,
            frames: 0,
            first_draw_due: false,
            b_waits: false,
            rev: 0,
        }
    }
}

impl PartialEq for AbState {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev
    }
}

impl fmt::Debug for AbState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbState")
            .field("rev", &self.rev)
            .field("a", &self.a)
            .field("b", &self.b)
            .field("running", &self.running)
            .field("progress", &self.progress)
            .finish_non_exhaustive()
    }
}

/// Design A or design B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The left one.
    A,
    /// The right one.
    B,
}

/// What this slice does.
#[derive(Clone, Debug, PartialEq)]
pub enum AbAction {
    /// Choose design A or B.
    Pick(Pick, AbDesign),
    /// Swap A and B.
    Swap,
    /// Run both designs from the start.
    Run,
    /// Stop the run where it is.
    Stop,
    /// A setting of the two maps (zooms are ignored: the two designs'
    /// key spaces differ).
    Map(MapAction),
}

/// What the A/B view keeps in a share link or autosave: the two designs
/// picked and how their maps are drawn. The runs are not kept: opening the
/// link shows the pair ready to run again.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AbShared {
    /// Design A ([`AbDesign::value`]: a shipped file, or `current`).
    pub a: String,
    /// Design B.
    pub b: String,
    /// The maps' metric, scale and key-bucket mode.
    pub keyviz: KeyVizSettings,
}

impl Default for AbShared {
    fn default() -> Self {
        let ab = AbState::default();
        AbShared {
            a: ab.a.value(),
            b: ab.b.value(),
            keyviz: ab.keyviz,
        }
    }
}

impl AbState {
    /// The picks and map settings a share link or autosave keeps.
    pub(crate) fn shared(&self) -> AbShared {
        AbShared {
            a: self.a.value(),
            b: self.b.value(),
            keyviz: KeyVizSettings {
                zoom: None,
                ..self.keyviz
            },
        }
    }

    /// Takes a share link's or autosave's picks and settings (`None`: the
    /// defaults); a run shown before is forgotten.
    pub(crate) fn take_shared(&mut self, shared: Option<&AbShared>) {
        let shared = shared.cloned().unwrap_or_default();
        *self = AbState {
            a: AbDesign::from_value(&shared.a),
            b: AbDesign::from_value(&shared.b),
            keyviz: KeyVizSettings {
                zoom: None,
                ..shared.keyviz
            },
            rev: self.rev + 1,
            ..AbState::default()
        };
    }

    /// Where the shown run is (`None`: none was started, or it could not
    /// be).
    pub fn phase(&self) -> Option<RunPhase> {
        if self.running {
            Some(RunPhase::Running)
        } else if self.stopped {
            Some(RunPhase::Stopped)
        } else if self.comparison.is_some() {
            Some(RunPhase::Done)
        } else {
            None
        }
    }

    /// Whether frames of work are wanted.
    pub fn has_work(&self) -> bool {
        self.running
    }

    /// The revision (for components' memo keys).
    pub fn rev(&self) -> u64 {
        self.rev
    }

    /// Applies an action of this slice, with the current design lent by
    /// `cx` (for [`AbDesign::Current`]).
    pub(crate) fn reduce(&mut self, action: AbAction, cx: &Cx<'_>) {
        self.rev += 1;
        match action {
            AbAction::Pick(Pick::A, d) => self.a = d,
            AbAction::Pick(Pick::B, d) => self.b = d,
            AbAction::Swap => std::mem::swap(&mut self.a, &mut self.b),
            AbAction::Run => self.start(cx.design.scenario.as_deref()),
            AbAction::Stop => {
                if self.running {
                    self.running = false;
                    self.b_waits = false;
                    self.stopped = true;
                    self.rebuild_maps();
                    self.engine = None;
                }
            }
            AbAction::Map(action) => match action {
                MapAction::Metric(m) => {
                    self.keyviz.metric = m;
                    self.rebuild_maps();
                }
                MapAction::Mode(m) => {
                    self.keyviz.mode = m;
                    self.rebuild_maps();
                }
                MapAction::Scale(s) => self.keyviz.scale = s,
                MapAction::ShowTable(on) => self.keyviz.table = on,
                MapAction::Zoom(_) | MapAction::ShowFindings(_) => {}
            },
        }
    }

    /// Starts both designs from the start (the current design as it is
    /// now); a pair that cannot be compared says why.
    fn start(&mut self, current: Option<&Scenario>) {
        self.engine = None;
        self.running = false;
        self.stopped = false;
        self.progress = 0.0;
        self.seconds = [0.0; 2];
        self.maps = None;
        self.comparison = None;
        self.columns = 0;
        self.frames = 0;
        self.first_draw_due = false;
        self.b_waits = false;
        self.ran = None;
        self.error = None;
        let designs = self
            .a
            .scenario(current)
            .and_then(|a| Ok((a, self.b.scenario(current)?)));
        let job = designs.and_then(|(a, b)| {
            AbJob::start(&a, &b, access_cases)
                .map_err(|e| format!("These two designs cannot be compared: {}", e.message()))
        });
        match job {
            Ok(job) => {
                self.seconds = [0.0, job.duration_seconds()];
                self.ran = Some([self.a.label(current), self.b.label(current)]);
                self.engine = Some(Rc::new(RefCell::new(Engine::Running(Box::new(job)))));
                self.running = true;
                self.rebuild_maps();
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Builds both maps again from the runs as they are.
    fn rebuild_maps(&mut self) {
        let Some(engine) = &self.engine else {
            return;
        };
        let maps = match &*engine.borrow() {
            Engine::Running(job) => match job.simulations() {
                Some(sims) => ab_maps(sims, &self.keyviz),
                None => return,
            },
            Engine::Done(run) => ab_maps([&run.a, &run.b], &self.keyviz),
            Engine::Empty => return,
        };
        self.columns = maps.filled();
        self.maps = Some(Rc::new(maps));
    }

    /// One frame's slice of the run, within `budget_ms` (by `now_ms`):
    /// ticks of both designs in step, then the maps when a column filled
    /// and they are due; when both runs have ended, a frame of its own
    /// compares them.
    pub(crate) fn work(&mut self, now_ms: &dyn Fn() -> f64, budget_ms: f64) {
        let Some(engine) = self.engine.clone() else {
            self.running = false;
            return;
        };
        if !self.running {
            return;
        }
        let start = now_ms();
        self.frames = self.frames.wrapping_add(1);
        self.rev += 1;
        let finished = matches!(&*engine.borrow(), Engine::Running(job) if job.is_finished());
        if finished {
            self.finish(&engine);
            self.finish_ms = now_ms() - start;
            return;
        }
        if self.first_draw_due {
            // The first maps of a run get frames of their own: drawing
            // them for the first time also lays out their part of the page
            // (labels, axes, captions) and paints their canvases, a cost
            // their own timing does not see, so those frames run no slice
            // of the simulations. Map A is drawn in this frame, map B
            // (built with it, on the same scale) in the next.
            self.first_draw_due = false;
            self.rebuild_maps_timed(now_ms);
            self.b_waits = true;
            return;
        }
        if self.b_waits {
            self.b_waits = false;
            return;
        }
        let show = self.frames.is_multiple_of(MAPS_EVERY_FRAMES);
        let deadline = if show {
            start + (budget_ms - self.maps_ms).max(budget_ms / 4.0)
        } else {
            start + budget_ms
        };
        let stepped = match &mut *engine.borrow_mut() {
            Engine::Running(job) => match job.advance(&mut || now_ms() >= deadline) {
                Ok(_) => Ok(job.simulations().map(|[a, b]| {
                    (
                        a.recorder().filled().min(b.recorder().filled()),
                        job.progress(),
                        a.now_seconds().min(b.now_seconds()),
                    )
                })),
                Err(e) => Err(e.message().to_string()),
            },
            _ => return,
        };
        let (columns, progress, seconds) = match stepped {
            Ok(Some(figures)) => figures,
            // The simulations are still being built.
            Ok(None) => return,
            Err(e) => return self.fail(e),
        };
        self.progress = progress;
        self.seconds[0] = seconds;
        if show && columns != self.columns {
            if self.maps.is_none() {
                self.first_draw_due = true;
            } else {
                self.rebuild_maps_timed(now_ms);
            }
        }
    }

    /// Builds both maps again, keeping what that cost in `maps_ms`.
    fn rebuild_maps_timed(&mut self, now_ms: &dyn Fn() -> f64) {
        let t0 = now_ms();
        self.rebuild_maps();
        let cost = now_ms() - t0;
        self.maps_ms = if cost.is_finite() {
            cost.max(self.maps_ms * 0.8 + cost * 0.2)
        } else {
            self.maps_ms
        };
    }

    /// Ends the run on an error the core reported: the maps drawn so far
    /// stay, without a verdict, and the message says what went wrong.
    fn fail(&mut self, message: String) {
        self.running = false;
        self.b_waits = false;
        self.stopped = true;
        self.error = Some(format!("The run stopped: {message}"));
        self.rebuild_maps();
        self.engine = None;
    }

    /// Compares the two finished runs and shows the verdict.
    fn finish(&mut self, engine: &Rc<RefCell<Engine>>) {
        let taken = std::mem::replace(&mut *engine.borrow_mut(), Engine::Empty);
        if let Engine::Running(job) = taken {
            match job.finish() {
                Ok(run) => {
                    self.comparison = Some(Rc::new(run.comparison.clone()));
                    *engine.borrow_mut() = Engine::Done(Box::new(run));
                }
                Err(e) => return self.fail(e.message().to_string()),
            }
        }
        self.running = false;
        self.b_waits = false;
        self.progress = 1.0;
        self.seconds[0] = self.seconds[1];
        self.rebuild_maps();
    }
}

impl AbDesign {
    /// The design's scenario: a shipped file's, or the current design
    /// (`current`).
    fn scenario(&self, current: Option<&Scenario>) -> Result<Scenario, String> {
        match self {
            AbDesign::Current => current.cloned().ok_or_else(|| {
                "There is no current design yet: pick a scenario in the Simulation view or \
                 design a row key first."
                    .to_string()
            }),
            AbDesign::Shipped(file) => match design_text(file).map(Scenario::from_toml) {
                Some(Ok(s)) => Ok(s),
                Some(Err(e)) => Err(format!("The scenario {file} could not be read: {e}")),
                None => Err(format!("There is no scenario named {file}")),
            },
        }
    }

    /// The design's name as the run shows it.
    fn label(&self, current: Option<&Scenario>) -> String {
        match (self, current) {
            (AbDesign::Current, Some(s)) => format!("{} (current design)", s.name),
            _ => self.title(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::live::{KvView, LiveAction};
    use crate::state::{Action, AppState, test_app as app};
    use tabletop_core::keyviz::Metric;

    fn act(state: &AppState, action: AbAction) -> AppState {
        state.apply(Action::Ab(action))
    }

    /// Frames of work until the run ends; returns the state and how many
    /// frames it took.
    fn run_out(mut state: AppState) -> (AppState, usize) {
        let mut frames = 0;
        let mut last = 0.0;
        while state.has_work() {
            state = state.apply(Action::Work);
            assert!(state.ab.progress >= last, "progress only grows");
            last = state.ab.progress;
            frames += 1;
            assert!(frames < 20_000, "the run ends");
        }
        (state, frames)
    }

    #[test]
    fn a_share_link_carries_the_picks_and_the_view_not_the_run() {
        use crate::share;
        use crate::state::{Boot, TestClock};
        use tabletop_core::keyviz::BucketMode;

        let plain = app();
        assert!(
            plain.to_shared(true).ab.is_none(),
            "defaults stay out of links"
        );
        let picked = act(
            &act(&plain, AbAction::Swap),
            AbAction::Map(MapAction::Metric(Metric::WriteRows)),
        )
        .apply(Action::Ab(AbAction::Map(MapAction::Mode(
            BucketMode::TrafficWeighted,
        ))))
        .apply(Action::Live(LiveAction::Show(KvView::Ab)));
        let ran = act(&picked, AbAction::Run).apply(Action::Work);
        assert!(ran.ab.running);
        let text = share::encode(&ran.to_shared(true));
        let back = AppState::new(
            std::rc::Rc::new(TestClock::new(1_700_000_000_000_000, 0.5)),
            false,
            crate::state::layout::Panels::default(),
        )
        .apply(Action::Boot(Boot::Shared(Box::new(
            share::decode(&text).unwrap(),
        ))));
        assert_eq!(back.ab.a, AbDesign::Shipped(DEFAULT_B.into()));
        assert_eq!(back.ab.b, AbDesign::Shipped(DEFAULT_A.into()));
        assert_eq!(back.ab.keyviz.metric, Metric::WriteRows);
        assert_eq!(back.ab.keyviz.mode, BucketMode::TrafficWeighted);
        assert_eq!(back.live.choice, Some(KvView::Ab));
        // The run is not carried: the pair waits for Run.
        assert_eq!(back.ab.phase(), None);
        assert!(back.ab.maps.is_none() && !back.has_work());
        // The current design is a pick like the others (the link carries
        // the design itself).
        let current = act(&back, AbAction::Pick(Pick::B, AbDesign::Current));
        let again = back.apply(Action::Boot(Boot::Shared(Box::new(
            current.to_shared(false),
        ))));
        assert_eq!(again.ab.b, AbDesign::Current);
        // A link made before the A/B view existed opens on the defaults.
        let mut old = ran.to_shared(true);
        old.ab = None;
        let back = back.apply(Action::Boot(Boot::Shared(Box::new(old))));
        assert_eq!(back.ab.a, AbDesign::Shipped(DEFAULT_A.into()));
        assert_eq!(back.ab.keyviz.metric, KeyVizSettings::default().metric);
    }

    #[test]
    fn the_shipped_pair_runs_in_frames_and_the_verdict_is_the_cores() {
        let state = app();
        assert_eq!(state.ab.a, AbDesign::Shipped(DEFAULT_A.into()));
        assert_eq!(state.ab.b, AbDesign::Shipped(DEFAULT_B.into()));
        assert!(!state.has_work());
        let started = act(&state, AbAction::Run);
        assert!(started.has_work() && started.ab.running);
        assert_eq!(state.ab.phase(), None);
        assert_eq!(started.ab.phase(), Some(RunPhase::Running));
        assert!(started.ab.error.is_none(), "{:?}", started.ab.error);
        assert_eq!(started.ab.seconds[1], 1800.0);
        let names = started.ab.ran.clone().unwrap();
        assert_eq!(names[1], "A/B mobile readings: device first");
        // A few frames: part way, maps filling, no verdict yet.
        let mut part = started.clone();
        // (The test clock gives a frame about 17 ticks; each design runs
        // 120.)
        for _ in 0..6 {
            part = part.apply(Action::Work);
        }
        assert!(
            part.ab.progress > 0.0 && part.ab.progress < 1.0,
            "{}",
            part.ab.progress
        );
        assert!(part.ab.comparison.is_none());
        assert!(part.ab.maps.as_ref().unwrap().filled() > 0);
        let (done, frames) = run_out(started);
        assert!(frames > 6, "sliced over many frames: {frames}");
        assert!(!done.ab.running && !done.ab.stopped);
        assert_eq!(done.ab.phase(), Some(RunPhase::Done));
        assert_eq!(done.ab.progress, 1.0);
        let c = done.ab.comparison.as_ref().expect("a verdict");
        let one = c
            .patterns
            .iter()
            .find(|p| p.name == "one device, last 10 minutes")
            .unwrap();
        assert_eq!(one.winner, Some(tabletop_core::compare::Side::B));
        assert!(c.verdict.starts_with("Design B wins"), "{}", c.verdict);
        let maps = done.ab.maps.as_ref().unwrap();
        assert_eq!(maps.a.max, maps.b.max, "one colour scale");
        assert_eq!(maps.filled(), 60);

        // Another metric: both maps again, still on one scale.
        let reads = act(
            &done,
            AbAction::Map(MapAction::Metric(Metric::WritePressure)),
        );
        let m = reads.ab.maps.as_ref().unwrap();
        assert_eq!(m.a.metric, Metric::WritePressure);
        assert_eq!(m.a.max, m.b.max);
        assert!(Rc::ptr_eq(
            reads.ab.comparison.as_ref().unwrap(),
            done.ab.comparison.as_ref().unwrap()
        ));

        // Switching views keeps the result.
        let away = reads
            .apply(Action::Live(LiveAction::Show(KvView::Simulation)))
            .apply(Action::Live(LiveAction::Show(KvView::Ab)));
        assert_eq!(away.live.shown(away.sim.loaded()), KvView::Ab);
        assert!(Rc::ptr_eq(
            away.ab.comparison.as_ref().unwrap(),
            done.ab.comparison.as_ref().unwrap()
        ));
        assert_eq!(away.ab.maps, reads.ab.maps);
    }

    #[test]
    fn the_first_maps_of_a_run_get_a_frame_each() {
        let mut state = act(&app(), AbAction::Run);
        let mut before = 0.0;
        while state.has_work() && state.ab.maps.is_none() {
            before = state.ab.seconds[0];
            assert!(!state.ab.b_waits);
            state = state.apply(Action::Work);
        }
        assert!(state.ab.maps.is_some(), "the maps came");
        assert!(before > 0.0, "the runs had filled a column before");
        assert_eq!(
            state.ab.seconds[0], before,
            "the frame that drew them first ran no slice"
        );
        // That frame draws map A; map B waits for the next one, which
        // draws it and runs no slice either.
        assert!(state.ab.b_waits, "map B waits for a frame of its own");
        let maps = state.ab.maps.clone();
        let b_frame = state.apply(Action::Work);
        assert!(!b_frame.ab.b_waits, "map B is drawn");
        assert_eq!(b_frame.ab.seconds[0], before, "and no slice ran");
        assert!(b_frame.ab.rev() > state.ab.rev(), "the view is drawn again");
        assert_eq!(b_frame.ab.maps, maps, "from the maps built with A's");
        // Later frames step the runs and redraw the maps with them.
        let next = b_frame.apply(Action::Work);
        assert!(next.ab.seconds[0] > before);
        assert!(!next.ab.b_waits);
        // Stopping while B waits draws it at once.
        let stopped = act(&state, AbAction::Stop);
        assert!(!stopped.ab.b_waits && stopped.ab.maps.is_some());
    }

    #[test]
    fn a_run_can_be_stopped_and_started_again() {
        let mut state = act(&app(), AbAction::Run);
        for _ in 0..10 {
            state = state.apply(Action::Work);
        }
        let stopped = act(&state, AbAction::Stop);
        assert!(!stopped.has_work());
        assert!(stopped.ab.stopped && !stopped.ab.running);
        assert_eq!(stopped.ab.phase(), Some(RunPhase::Stopped));
        assert!(stopped.ab.maps.is_some(), "the maps so far stay");
        assert!(stopped.ab.comparison.is_none());
        let p = stopped.ab.progress;
        assert!(p > 0.0 && p < 1.0);
        let after = stopped.apply(Action::Work);
        assert_eq!(after.ab.progress, p, "a stopped run stays put");
        let again = act(&after, AbAction::Run);
        assert!(again.ab.running && !again.ab.stopped);
        assert_eq!(again.ab.progress, 0.0, "from the start");
    }

    #[test]
    fn mismatched_workloads_get_the_cores_message() {
        let state = act(
            &app(),
            AbAction::Pick(Pick::A, AbDesign::Shipped("hot_row_counter.toml".into())),
        );
        let run = act(&state, AbAction::Run);
        assert!(!run.has_work());
        let e = run.ab.error.as_deref().unwrap();
        assert!(e.starts_with("These two designs cannot be compared"), "{e}");
        assert!(e.contains("different workloads"), "{e}");
        assert!(run.ab.maps.is_none() && run.ab.ran.is_none());
        // Swapping is not running.
        let swapped = act(&run, AbAction::Swap);
        assert_eq!(
            swapped.ab.b,
            AbDesign::Shipped("hot_row_counter.toml".into())
        );
        assert_eq!(swapped.ab.a, AbDesign::Shipped(DEFAULT_B.into()));
    }

    #[test]
    fn the_current_design_is_a_choice() {
        let state = act(&app(), AbAction::Pick(Pick::A, AbDesign::Current));
        let none = act(&state, AbAction::Run);
        assert!(
            none.ab
                .error
                .as_deref()
                .unwrap()
                .contains("no current design"),
            "{:?}",
            none.ab.error
        );
        // The device-first pair file, with the timestamp-first key: a
        // variant on the same workload.
        let mut variant = Scenario::from_toml(design_text(DEFAULT_B).unwrap()).unwrap();
        let other = Scenario::from_toml(design_text(DEFAULT_A).unwrap()).unwrap();
        variant.key = other.key.clone();
        variant.name = "my variant".into();
        let with = none.apply(Action::SetDesign("edited".into(), Box::new(variant)));
        let run = act(&with, AbAction::Run);
        assert!(run.ab.error.is_none(), "{:?}", run.ab.error);
        assert_eq!(
            run.ab.ran.as_ref().unwrap()[0],
            "my variant (current design)"
        );
        assert!(run.has_work());
    }
}
