//! A scenario becomes data: the current design's table created in the
//! real instance and filled with generated rows whose keys follow the
//! design's row-key template ([`SampleRows`]), then, on request, the
//! design's workload replayed against that table ([`Replay`]), so the
//! Rows panel, the console, SQL, the real tablets and the live Key
//! Visualizer all show the design's keys and pattern.
//!
//! Both run in slices of background work within a time budget, with
//! progress, and stop on request. The rows are drawn first, then written
//! in key order through the store's sorted import ([`SortedRows`]): a stop
//! while drawing leaves the new table empty, a stop while writing keeps
//! the rows written so far, which are the smallest keys of the set. Nothing of
//! the person's own work is touched: the table gets the design's table
//! id, or that id with a number after it when a table of that name
//! exists.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use tabletop_core::lesson::PendingSample;
use tabletop_core::sim::{
    Replay, ReplaySpec, SampleMoment, SampleRows, SampleSpec, Simulation, SortedPhase, SortedRows,
};

use super::live::{KvView, LiveAction};
use super::load_pace::LoadPace;
use super::{Action, Cx, Effects, Notice};

/// The sizes offered, in rows.
pub const SIZES: [u64; 5] = [1_000, 10_000, 100_000, 500_000, 1_000_000];
/// The size chosen at first.
pub const DEFAULT_ROWS: u64 = 10_000;
/// Requests a replay sends.
pub const REPLAY_OPS: u64 = 20_000;
/// Traffic buckets (ten seconds of instance time each) a replay spans.
pub const REPLAY_COLUMNS: u32 = 30;
/// Most rows per sorted import; the pace sizes each batch to the time
/// left (see [`LoadPace`]).
const MAX_BATCH_ROWS: u64 = 2_000;
/// Rows drawn between two looks at the clock (about a millisecond's
/// worth in the page).
const DRAW_STEP: usize = 2_048;
/// The share of the progress bar that drawing the rows fills (it takes
/// about that share of a load's time); writing fills the rest.
const DRAW_SHARE: f64 = 0.3;
/// Requests between two looks at the clock during a replay.
const REPLAY_CHECK_EVERY: u32 = 32;

/// What runs now.
#[derive(Clone)]
pub enum Job {
    /// Getting a load ready, one part per task (each costs tens of
    /// milliseconds for a big design): the design's simulation is built
    /// (`None` until then), then the table and the rows' stream are made.
    Start(Option<Rc<Simulation>>),
    /// Drawing, then writing the rows.
    Load(Rc<RefCell<LoadJob>>),
    /// Replaying the workload; paused when `false`.
    Replay(Rc<RefCell<Replay>>, bool),
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Job::Start(sim) => write!(f, "Start(simulation built: {})", sim.is_some()),
            Job::Load(_) => f.write_str("Load"),
            Job::Replay(_, running) => write!(f, "Replay(running: {running})"),
        }
    }
}

/// Rows being loaded, and how the slices' time is being spent.
pub struct LoadJob {
    rows: SortedRows,
    pace: LoadPace,
}

impl LoadJob {
    fn new(stream: SampleRows) -> LoadJob {
        LoadJob {
            rows: SortedRows::new(stream),
            pace: LoadPace::default(),
        }
    }

    /// Progress over both phases, 0.0 to 1.0.
    fn fraction(&self) -> f64 {
        let f = self.rows.phase_fraction();
        match self.rows.phase() {
            SortedPhase::Drawing => f * DRAW_SHARE,
            SortedPhase::Writing => DRAW_SHARE + f * (1.0 - DRAW_SHARE),
            SortedPhase::Done => 1.0,
        }
    }
}

/// What this slice holds.
#[derive(Clone, Debug)]
pub struct ScenarioDataState {
    /// Rows to generate.
    pub rows: u64,
    /// The table the design's data went to last, and the design revision
    /// it was made from (the replay needs that design).
    pub table: Option<(String, u64)>,
    /// The work under way.
    pub job: Option<Job>,
    /// Progress of the job, 0.0 to 1.0.
    pub fraction: f64,
    /// A line saying what the job did so far.
    pub status: String,
    /// Bumped on every change.
    rev: u64,
}

impl Default for ScenarioDataState {
    fn default() -> Self {
        ScenarioDataState {
            rows: DEFAULT_ROWS,
            table: None,
            job: None,
            fraction: 0.0,
            status: String::new(),
            rev: 0,
        }
    }
}

impl PartialEq for ScenarioDataState {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev
    }
}

/// What this slice does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioDataAction {
    /// Generate this many rows next time.
    SetRows(u64),
    /// Create the design's table and fill it.
    Load,
    /// Replay the design's workload on its table.
    Replay,
    /// Pause or resume the replay.
    PauseReplay(bool),
    /// Stop the job (what it did stays).
    Cancel,
}

/// A table id that is free: `id`, else `id-2`, `id-3`, ….
pub fn free_table_id(id: &str, exists: impl Fn(&str) -> bool) -> String {
    if !exists(id) {
        return id.to_string();
    }
    (2u32..)
        .map(|n| format!("{id}-{n}"))
        .find(|candidate| !exists(candidate))
        .unwrap_or_else(|| id.to_string())
}

/// What a scaled-down replay's rate means for the live map: it shows the
/// load the instance really served, a fraction of the scenario's.
fn rate_note(rate: tabletop_core::sim::ReplayRate) -> String {
    let fraction = rate.fraction();
    if fraction >= 0.5 {
        return String::new();
    }
    format!(
        " It sent about {} requests a second, {} of the scenario's {}: the live map shows the \
         load of that rate, as a real cluster would, so pressure the simulation finds at the \
         full rate may not appear there.",
        human(rate.replay_per_second.round() as u64),
        if fraction >= 0.01 {
            format!("{:.0}%", fraction * 100.0)
        } else {
            format!("{:.1}%", fraction * 100.0)
        },
        human(rate.scenario_per_second.round() as u64)
    )
}

fn human(n: u64) -> String {
    crate::view_model::format::format_count(n)
}

impl ScenarioDataState {
    /// Whether a slice of work is wanted.
    pub fn has_work(&self) -> bool {
        match &self.job {
            Some(Job::Start(_) | Job::Load(_)) => true,
            Some(Job::Replay(_, running)) => *running,
            None => false,
        }
    }

    /// Whether rows are being written (saving a snapshot waits).
    pub fn loading(&self) -> bool {
        matches!(self.job, Some(Job::Start(_) | Job::Load(_)))
    }

    /// Whether a replay is under way (running or paused).
    pub fn replaying(&self) -> Option<bool> {
        match &self.job {
            Some(Job::Replay(_, running)) => Some(*running),
            _ => None,
        }
    }

    /// The table the replay would use, if the design has not changed
    /// since it was made and it still exists.
    pub fn replay_table<'a>(&'a self, cx_design_rev: u64, tables: &[String]) -> Option<&'a str> {
        self.table
            .as_ref()
            .filter(|(t, rev)| *rev == cx_design_rev && tables.iter().any(|x| x == t))
            .map(|(t, _)| t.as_str())
    }

    /// The revision (for components' memo keys).
    pub fn rev(&self) -> u64 {
        self.rev
    }

    pub(crate) fn reduce(&mut self, action: ScenarioDataAction, cx: &Cx<'_>) -> Effects {
        self.rev += 1;
        match action {
            ScenarioDataAction::SetRows(n) => {
                self.rows = n.clamp(1, tabletop_core::sim::MAX_SAMPLE_ROWS);
                Effects::default()
            }
            ScenarioDataAction::Load => self.load(cx),
            ScenarioDataAction::Replay => self.replay(cx),
            ScenarioDataAction::PauseReplay(pause) => {
                if let Some(Job::Replay(_, running)) = &mut self.job {
                    *running = !pause;
                }
                Effects::default()
            }
            ScenarioDataAction::Cancel => {
                let what = match self.job.take() {
                    Some(Job::Start(_)) => "Stopped before the table was created.".to_string(),
                    Some(Job::Load(job)) => Self::stopped_load(&job.borrow().rows),
                    Some(Job::Replay(..)) => {
                        "Stopped the replay; the requests sent so far stay.".to_string()
                    }
                    None => return Effects::default(),
                };
                self.status = what.clone();
                Effects {
                    data_changed: true,
                    notice: Some(Notice {
                        error: false,
                        text: what,
                    }),
                    ..Effects::default()
                }
            }
        }
    }

    /// What a load stopped part way keeps.
    fn stopped_load(rows: &SortedRows) -> String {
        match rows.phase() {
            SortedPhase::Drawing => {
                "Stopped before any row was written; the new table stays, empty.".to_string()
            }
            _ => format!(
                "Stopped writing rows; the {} written so far stay (the first in key order).",
                human(rows.rows_written())
            ),
        }
    }

    fn simulation(cx: &Cx<'_>) -> Result<Simulation, String> {
        let scenario = cx
            .design
            .scenario
            .as_deref()
            .ok_or("Pick a scenario first.")?;
        Simulation::new(scenario.clone()).map_err(|e| format!("This design has no table: {e}"))
    }

    /// Starts a load of the design's rows: the click only shows the
    /// progress; the work begins in the next task ([`Job::Start`]).
    fn load(&mut self, cx: &Cx<'_>) -> Effects {
        if self.job.is_some() {
            return Effects::default();
        }
        if cx.design.scenario.is_none() {
            return Effects::error("Pick a scenario first.".to_string());
        }
        self.status = "Preparing the design's table…".to_string();
        self.fraction = 0.0;
        self.job = Some(Job::Start(None));
        Effects::default()
    }

    /// One part of getting a load ready: the design's simulation, or
    /// (once it is built) the table and the stream of rows.
    fn work_start(&mut self, cx: &Cx<'_>, sim: Option<Rc<Simulation>>) -> Effects {
        self.rev += 1;
        self.job = None;
        let Some(sim) = sim else {
            return match Self::simulation(cx) {
                Ok(sim) => {
                    self.job = Some(Job::Start(Some(Rc::new(sim))));
                    Effects::default()
                }
                Err(e) => {
                    self.status = e.clone();
                    Effects::error(e)
                }
            };
        };
        self.begin_load(cx, &sim)
    }

    /// Creates the design's table under a free id and starts writing.
    fn begin_load(&mut self, cx: &Cx<'_>, sim: &Simulation) -> Effects {
        cx.sync_clock();
        let mut db = cx.instance.borrow_mut();
        let table = free_table_id(&sim.scenario().table.id, |t| db.has_table(t));
        if let Err(e) = db.create_table(sim.table_request(&table)) {
            return Effects::error(format!("The table could not be created: {e}"));
        }
        let stream = sim
            .sample_rows(SampleSpec {
                rows: self.rows,
                seed: 0,
                moment: SampleMoment::EndOfRun,
            })
            .cells_end_at(db.now_micros());
        self.status = format!("Drawing {} rows for {table}…", human(stream.target()));
        self.fraction = 0.0;
        self.table = Some((table.clone(), cx.design.rev));
        self.job = Some(Job::Load(Rc::new(RefCell::new(LoadJob::new(stream)))));
        Effects {
            data_changed: true,
            select: Some(table.clone()),
            notice: Some(Notice {
                error: false,
                text: format!(
                    "Created table {table} with the design's families; writing its rows."
                ),
            }),
            then: None,
        }
    }

    /// Writes rows whose table someone else made (a lesson's sample of
    /// its design, `design_rev` the design they follow), in the same
    /// slices, with progress and Stop; a job under way gives way to it.
    pub(crate) fn adopt(&mut self, sample: PendingSample, design_rev: u64) -> Effects {
        self.rev += 1;
        let PendingSample { table, rows } = sample;
        self.status = format!("Drawing {} rows for {table}…", human(rows.target()));
        self.fraction = 0.0;
        self.table = Some((table.clone(), design_rev));
        self.job = Some(Job::Load(Rc::new(RefCell::new(LoadJob::new(rows)))));
        Effects {
            data_changed: true,
            select: Some(table),
            ..Effects::default()
        }
    }

    /// The playground's instance was replaced (a lesson took it, or gave
    /// it back): the job and its table belong to the one that went, so
    /// neither goes on here (rows meant for a lesson's table never land in
    /// a table of the same name in the person's own work).
    pub(crate) fn forget_instance(&mut self) {
        if self.job.is_some() || self.table.is_some() {
            self.rev += 1;
            self.job = None;
            self.table = None;
            self.fraction = 0.0;
            self.status.clear();
        }
    }

    /// Starts replaying the design's workload on its table.
    fn replay(&mut self, cx: &Cx<'_>) -> Effects {
        if self.job.is_some() {
            return Effects::default();
        }
        let tables: Vec<String> = cx.tables.iter().map(|t| t.name.clone()).collect();
        let Some(table) = self
            .replay_table(cx.design.rev, &tables)
            .map(str::to_string)
        else {
            return Effects::error("Create the design's table with its rows first.".into());
        };
        let sim = match Self::simulation(cx) {
            Ok(sim) => sim,
            Err(e) => return Effects::error(e),
        };
        cx.sync_clock();
        let replay = sim.replay(
            &table,
            ReplaySpec {
                ops: REPLAY_OPS,
                columns: REPLAY_COLUMNS,
                seed: 0,
            },
        );
        self.status = format!(
            "Replaying {} requests on {table}…",
            human(replay.progress().total)
        );
        self.fraction = 0.0;
        self.job = Some(Job::Replay(Rc::new(RefCell::new(replay)), true));
        Effects {
            select: Some(table),
            then: Some(Action::Live(LiveAction::Show(KvView::Live))),
            ..Effects::default()
        }
    }

    /// One slice of work within `budget_ms` (by `now_ms`). Returns what
    /// the dispatcher should do (data changed; a message at the end).
    pub(crate) fn work(
        &mut self,
        cx: &Cx<'_>,
        now_ms: &dyn Fn() -> f64,
        budget_ms: f64,
    ) -> Effects {
        let deadline = now_ms() + budget_ms;
        match self.job.clone() {
            Some(Job::Start(sim)) => self.work_start(cx, sim),
            Some(Job::Load(job)) => self.work_load(cx, &job, deadline, budget_ms, now_ms),
            Some(Job::Replay(replay, true)) => {
                self.work_replay(cx, &replay, &|| now_ms() >= deadline)
            }
            _ => Effects::default(),
        }
    }

    fn work_load(
        &mut self,
        cx: &Cx<'_>,
        job: &RefCell<LoadJob>,
        deadline: f64,
        budget_ms: f64,
        now_ms: &dyn Fn() -> f64,
    ) -> Effects {
        self.rev += 1;
        let Some((table, _)) = self.table.clone() else {
            self.job = None;
            return Effects::default();
        };
        let mut job = job.borrow_mut();
        let job = &mut *job;
        while job.rows.phase() == SortedPhase::Drawing && now_ms() < deadline {
            job.rows.draw(DRAW_STEP);
        }
        let result = if job.rows.phase() == SortedPhase::Writing {
            Self::write_sorted(cx, job, &table, deadline, budget_ms, now_ms)
        } else {
            Ok(())
        };
        if job.rows.is_done() {
            cx.sync_clock_until(deadline);
        }
        let stream = &job.rows;
        self.fraction = job.fraction();
        let rows = human(stream.rows_written());
        match result {
            Err(e) => {
                self.job = None;
                self.status = format!("Stopped after {rows} rows: {e}");
                Effects {
                    data_changed: true,
                    ..Effects::error(format!("Writing the design's rows stopped: {e}"))
                }
            }
            Ok(()) if stream.is_done() => {
                self.job = None;
                self.status = format!("{rows} rows in {table}.");
                Effects {
                    data_changed: true,
                    notice: Some(Notice {
                        error: false,
                        text: format!(
                            "{rows} rows with the design's keys are in {table}. \
                             Run the workload on it to see its traffic."
                        ),
                    }),
                    ..Effects::default()
                }
            }
            Ok(()) if stream.phase() == SortedPhase::Drawing => {
                self.status = format!(
                    "Drawing rows for {table}: {} of {}…",
                    human(stream.rows_drawn()),
                    human(stream.target())
                );
                Effects::default()
            }
            Ok(()) => {
                self.status = format!(
                    "Writing rows into {table} in key order: {rows} of {}…",
                    human(stream.rows_drawn())
                );
                Effects {
                    data_changed: true,
                    ..Effects::default()
                }
            }
        }
    }

    /// Imports batches in key order until `deadline`: each sized to the
    /// time left, the engine's due work between them when enough rows went
    /// in and enough time is left (as *Load sample data* paces it, see
    /// [`LoadPace`]). A bucket's sort runs before the batch is timed.
    fn write_sorted(
        cx: &Cx<'_>,
        job: &mut LoadJob,
        table: &str,
        deadline: f64,
        budget_ms: f64,
        now_ms: &dyn Fn() -> f64,
    ) -> Result<(), tabletop_core::Error> {
        let LoadJob { rows, pace } = job;
        let mut written: Option<(u64, f64)> = None;
        loop {
            let now = now_ms();
            // At the slice's start the whole budget is its own, so a tick
            // that is due runs however late the drawing left it.
            let left = match written {
                Some((n, since)) => {
                    pace.wrote(n, now - since);
                    deadline - now
                }
                None => (deadline - now).max(budget_ms / 2.0),
            };
            if pace.tick_due(left) {
                cx.sync_clock_until(deadline);
                pace.ticked();
            }
            rows.sort_next();
            let since = now_ms();
            let want = pace.next_batch(deadline - since, MAX_BATCH_ROWS);
            if want == 0 {
                return Ok(());
            }
            let max = usize::try_from(want).unwrap_or(usize::MAX);
            let n = rows.import_batch(&mut cx.instance.borrow_mut(), table, max)?;
            if n == 0 {
                return Ok(());
            }
            written = Some((n as u64, since));
        }
    }

    fn work_replay(
        &mut self,
        cx: &Cx<'_>,
        replay: &RefCell<Replay>,
        out_of_time: &dyn Fn() -> bool,
    ) -> Effects {
        self.rev += 1;
        let mut replay = replay.borrow_mut();
        let mut n = 0u32;
        let result = replay.run(&mut cx.instance.borrow_mut(), &mut || {
            n += 1;
            n.is_multiple_of(REPLAY_CHECK_EVERY) && out_of_time()
        });
        let p = replay.progress();
        self.fraction = p.fraction();
        let table = replay.table_id().to_string();
        if let Err(e) = result {
            self.job = None;
            self.status = format!("The replay stopped: {e}");
            return Effects::error(format!("The replay stopped: {e}"));
        }
        let counts = format!(
            "{} writes, {} reads, {} scans, {} full scans",
            human(p.writes),
            human(p.reads),
            human(p.scans),
            human(p.full_scans)
        );
        if replay.is_done() {
            self.job = None;
            self.status = format!(
                "Replayed {} requests on {table}: {counts}.{}",
                human(p.ops),
                rate_note(replay.rate())
            );
            // The person asked to see this traffic: draw the map now, with
            // no wait between builds (it is still built in slices).
            Effects {
                data_changed: true,
                then: Some(Action::Live(LiveAction::Update)),
                notice: Some(Notice {
                    error: false,
                    text: format!(
                        "The workload ran on {table}: the live Key Visualizer shows its traffic."
                    ),
                }),
                ..Effects::default()
            }
        } else {
            self.status = format!(
                "Replaying on {table}: {} of {} requests ({counts})…",
                human(p.ops),
                human(p.total)
            );
            Effects {
                data_changed: true,
                ..Effects::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::sim::SimAction;
    use crate::state::{Action, AppState, settle, test_app};

    fn with_scenario() -> AppState {
        test_app().apply(Action::Sim(SimAction::PickScenario(
            "mobile_timestamp_first.toml".into(),
        )))
    }

    /// Clicks *Create table with rows* and runs the two tasks that get
    /// the load ready: neither the click nor the first (the design's
    /// simulation) creates anything; the second creates the table.
    fn click_load(state: AppState) -> AppState {
        let count = |s: &AppState| crate::state::tables(&s.instance()).len();
        let before = count(&state);
        let clicked = state.apply(Action::ScenarioData(ScenarioDataAction::Load));
        assert!(clicked.scenario_data.loading());
        assert_eq!(count(&clicked), before, "the click creates nothing");
        let built = clicked.apply(Action::Work);
        assert!(matches!(built.scenario_data.job, Some(Job::Start(Some(_)))));
        assert_eq!(
            count(&built),
            before,
            "the simulation's task creates nothing"
        );
        let started = built.apply(Action::Work);
        assert!(matches!(started.scenario_data.job, Some(Job::Load(_))));
        assert_eq!(count(&started), before + 1);
        started
    }

    fn run_work(mut state: AppState) -> AppState {
        for _ in 0..10_000 {
            // The panels catch up in the tasks after the last slice.
            if !state.scenario_data.has_work() && state.catch_up.is_none() {
                return state;
            }
            state = state.apply(Action::Work);
        }
        panic!("the job never ended");
    }

    #[test]
    fn a_slice_of_the_designs_rows_never_also_redraws_the_panels() {
        // 2 ms per clock reading: a load of many slices.
        let slow = AppState::new(
            Rc::new(crate::state::TestClock::new(crate::state::tests::NOW, 2.0)),
            false,
            crate::state::layout::Panels::default(),
        )
        .apply(Action::Boot(crate::state::boot::Boot::Demo))
        .apply(Action::Sim(SimAction::PickScenario(
            "mobile_timestamp_first.toml".into(),
        )));
        let mut state = slow
            .apply(Action::ScenarioData(ScenarioDataAction::SetRows(100_000)))
            .apply(Action::ScenarioData(ScenarioDataAction::Load));
        let (mut slices, mut catch_ups) = (0, 0);
        while state.scenario_data.has_work() || state.catch_up.is_some() {
            let next = state.apply(Action::Work);
            let sliced = next.scenario_data.rev() != state.scenario_data.rev();
            let redrawn = !crate::state::panels_unchanged(&state, &next);
            assert!(
                !(sliced && redrawn),
                "a slice wrote rows and redrew the panels"
            );
            slices += usize::from(sliced);
            catch_ups += usize::from(redrawn);
            state = next;
            assert!(slices + catch_ups < 20_000, "the load ends");
        }
        assert!(slices > 16, "{slices} slices");
        assert!(catch_ups > 2, "the panels caught up ({catch_ups})");
        // Once the panels caught up, they show the whole table.
        let table = state.scenario_data.table.clone().map(|(t, _)| t);
        assert_eq!(state.rows.table, table);
        assert_eq!(*state.tables, crate::state::tables(&state.instance()));
        let state = settle(state);
        assert_eq!(state.rows.total_rows(), 100_000);
    }

    #[test]
    fn free_ids_get_a_number() {
        let taken = ["t", "t-2"];
        assert_eq!(free_table_id("u", |x| taken.contains(&x)), "u");
        assert_eq!(free_table_id("t", |x| taken.contains(&x)), "t-3");
    }

    #[test]
    fn loading_writes_the_designs_keys_into_a_new_table() {
        let state = click_load(
            with_scenario().apply(Action::ScenarioData(ScenarioDataAction::SetRows(1_000))),
        );
        let table = state.selected.clone().unwrap();
        assert_eq!(table, "mobile_time_series");
        assert!(state.scenario_data.loading());
        let done = run_work(state);
        assert_eq!(done.rows.total_rows(), 1_000);
        let first = &done.rows.window.lines[0].key.text;
        assert!(first.starts_with("158"), "a timestamp first: {first}");
        assert!((done.scenario_data.fraction - 1.0).abs() < f64::EPSILON);
        // The demo table is untouched; a second load takes a new id.
        assert_eq!(done.tables.len(), 2);
        let again = run_work(done.apply(Action::ScenarioData(ScenarioDataAction::Load)));
        assert_eq!(again.selected.as_deref(), Some("mobile_time_series-2"));
        assert_eq!(again.tables.len(), 3);
        assert_eq!(
            again
                .tables
                .iter()
                .find(|t| t.name == crate::demo::TABLE_ID)
                .map(|t| t.bytes),
            test_app().tables.first().map(|t| t.bytes)
        );
    }

    /// The keys of `table`, in order.
    fn keys(state: &AppState, table: &str) -> Vec<Vec<u8>> {
        let mut rows = tabletop_core::CollectRows::default();
        state
            .instance
            .borrow_mut()
            .read_rows(table, &tabletop_core::ReadRowsRequest::default(), &mut rows)
            .unwrap();
        rows.rows.into_iter().map(|r| r.key).collect()
    }

    fn phase(state: &AppState) -> Option<SortedPhase> {
        match &state.scenario_data.job {
            Some(Job::Load(job)) => Some(job.borrow().rows.phase()),
            _ => None,
        }
    }

    #[test]
    fn a_load_draws_then_writes_every_row_with_progress() {
        // Large enough that each phase takes more than one slice.
        let mut state = click_load(
            with_scenario().apply(Action::ScenarioData(ScenarioDataAction::SetRows(100_000))),
        );
        assert!(
            state
                .scenario_data
                .status
                .starts_with("Drawing 100,000 rows")
        );
        let mut seen = Vec::new();
        let mut last = 0.0;
        while state.scenario_data.has_work() {
            let rev = state.scenario_data.rev();
            state = state.apply(Action::Work);
            if state.scenario_data.rev() == rev {
                // The panels catching up: no slice ran.
                continue;
            }
            let fraction = state.scenario_data.fraction;
            assert!(fraction >= last, "progress never goes back");
            last = fraction;
            if let Some(p) = phase(&state) {
                if seen.last() != Some(&p) {
                    seen.push(p);
                }
                let status = &state.scenario_data.status;
                let word = if p == SortedPhase::Drawing {
                    "Drawing rows"
                } else {
                    "Writing rows"
                };
                assert!(status.starts_with(word), "{status}");
            }
        }
        assert_eq!(seen, [SortedPhase::Drawing, SortedPhase::Writing]);
        let table = state.selected.clone().unwrap();
        let written = keys(&state, &table);
        assert_eq!(written.len(), 100_000);
        assert_eq!(
            state.scenario_data.status,
            format!("100,000 rows in {table}.")
        );
        assert_eq!(written, drawn_keys(&state, 100_000));
    }

    /// The keys the design's random stream draws for `rows` rows, sorted.
    fn drawn_keys(state: &AppState, rows: u64) -> Vec<Vec<u8>> {
        let sim = ScenarioDataState::simulation(&cx!(state)).unwrap();
        let mut stream = sim.sample_rows(SampleSpec {
            rows,
            seed: 0,
            moment: SampleMoment::EndOfRun,
        });
        let mut drawn = Vec::new();
        loop {
            let b = stream.next_batch(1_000);
            if b.is_empty() {
                break;
            }
            drawn.extend((0..b.len()).map(|i| b.key(i).to_vec()));
        }
        drawn.sort();
        drawn
    }

    #[test]
    fn cancel_keeps_nothing_while_drawing_and_the_smallest_keys_while_writing() {
        // Large enough that drawing takes more than one slice and
        // writing several.
        let start = || {
            click_load(
                with_scenario().apply(Action::ScenarioData(ScenarioDataAction::SetRows(100_000))),
            )
        };
        // While drawing: the new table stays, empty.
        let drawing = start();
        assert_eq!(phase(&drawing), Some(SortedPhase::Drawing));
        let table = drawing.selected.clone().unwrap();
        let stopped = drawing.apply(Action::ScenarioData(ScenarioDataAction::Cancel));
        assert!(stopped.scenario_data.job.is_none());
        assert!(stopped.scenario_data.status.contains("stays, empty"));
        assert!(keys(&stopped, &table).is_empty());
        // While writing: what was written stays, and it is the start of
        // the whole set in key order.
        let mut state = start();
        let table = state.selected.clone().unwrap();
        while phase(&state) == Some(SortedPhase::Drawing) {
            state = state.apply(Action::Work);
        }
        state = state.apply(Action::Work);
        assert_eq!(phase(&state), Some(SortedPhase::Writing));
        let all = drawn_keys(&state, 100_000);
        let stopped = state.apply(Action::ScenarioData(ScenarioDataAction::Cancel));
        assert!(stopped.scenario_data.job.is_none());
        let kept = keys(&stopped, &table);
        assert!(!kept.is_empty() && kept.len() < all.len(), "{}", kept.len());
        assert_eq!(kept[..], all[..kept.len()]);
        let status = &stopped.scenario_data.status;
        assert!(
            status.contains(&format!(
                "the {} written so far stay",
                human(kept.len() as u64)
            )),
            "{status}"
        );
        assert_eq!(settle(stopped).rows.total_rows(), kept.len() as u64);
    }

    #[test]
    fn a_replay_needs_the_table_then_records_traffic() {
        let refused = with_scenario().apply(Action::ScenarioData(ScenarioDataAction::Replay));
        assert!(refused.notice.as_ref().is_some_and(|n| n.error));
        let loaded = run_work(
            with_scenario()
                .apply(Action::ScenarioData(ScenarioDataAction::SetRows(1_000)))
                .apply(Action::ScenarioData(ScenarioDataAction::Load)),
        );
        let replaying = loaded
            .apply(Action::ScenarioData(ScenarioDataAction::Replay))
            .apply(Action::Work);
        assert_eq!(replaying.scenario_data.replaying(), Some(true));
        let paused = replaying.apply(Action::ScenarioData(ScenarioDataAction::PauseReplay(true)));
        assert_eq!(paused.scenario_data.replaying(), Some(false));
        assert!(!paused.scenario_data.has_work());
        let done =
            run_work(paused.apply(Action::ScenarioData(ScenarioDataAction::PauseReplay(false))));
        assert!(done.scenario_data.job.is_none());
        assert!(
            done.scenario_data.status.starts_with("Replayed"),
            "{}",
            done.scenario_data.status
        );
        // Scaled down, it says the live map shows its own, smaller load.
        assert!(
            done.scenario_data
                .status
                .contains("requests a second, 0.3% of the scenario's 22,000"),
            "{}",
            done.scenario_data.status
        );
        let traffic = done
            .instance()
            .traffic("mobile_time_series")
            .unwrap()
            .buckets()
            .count();
        assert!(traffic >= 20, "{traffic} buckets of traffic");
        assert_eq!(done.live.choice, Some(KvView::Live));
    }
}
