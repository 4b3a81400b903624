//! The app's one state and its reducer.
//!
//! [`AppState`] shares the core [`Instance`] and the rows panel's
//! [`RowIndexer`] between revisions (behind `Rc<RefCell<_>>`, so a new
//! state does not copy tables) and holds everything else in rooms, each
//! cheap to clone. Every change goes through [`Action`];
//! [`AppState::apply`] hands it to the room it belongs to, then redraws
//! what depends on the data and the design. Components read; only the
//! reducer writes. Time comes in through a [`Clock`] (the browser's, or a
//! test's), so the reducer stays plain Rust, tested natively.
//!
//! The rooms:
//!
//! - slices that reduce their own actions, lent only what they use:
//!   [`layout`], [`rows`] (the instance and its index), [`console`] (runs
//!   cbt, JSON and [`console::sql`], keeps each read's trace), and
//!   [`tools`] (export and import dialogs, views catching up), [`sim`]
//!   (the simulation of the current design) and [`learn`] (lessons'
//!   progress, the designer's draft, the fixes' undo), which are lent a
//!   [`Cx`] (the instance, the clock, the design and tables read-only) and
//!   answer with [`Effects`] (data changed, a notice, a table to select,
//!   a follow-up action such as `SetDesign`) that the dispatcher carries
//!   out;
//! - the data [`generator`], the schema requests and the per-frame work,
//!   in this module;
//! - the current [`design`] (a scenario), which the simulation, the
//!   [`advisor`]'s findings (made here, not while drawing) and the
//!   designer follow by its revision;
//! - where the app starts ([`boot`]) and work set aside for a lesson or
//!   replaced by an import or link ([`aside`]);
//! - the [`flows`] that move work between rooms, and the only code that
//!   changes several slices at once: a lesson started, resumed, left or
//!   checked; the designer's edits, a fix and its undo; a snapshot import,
//!   a link opened over work, and the undo of either.

/// Lends a slice what it may use while it reduces one of its actions
/// (a [`Cx`]), borrowing the state field by field, so the slice itself
/// can be borrowed mutably beside it.
macro_rules! cx {
    ($state:expr) => {
        $crate::state::Cx {
            instance: &$state.instance,
            clock: &*$state.clock,
            design: &$state.design,
            tables: &$state.tables,
            selected: $state.selected.as_deref(),
        }
    };
}

pub mod ab;
pub mod advisor;
pub mod aside;
pub mod boot;
pub mod console;
pub mod design;
pub mod flows;
pub mod generator;
pub mod hand_log;
#[cfg(test)]
mod hand_work_tests;
pub mod layout;
pub mod learn;
pub mod live;
pub mod load_pace;
pub mod parity;
pub mod placement;
pub mod rows;
pub mod scenario_data;
pub mod sim;
pub mod tools;

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use tabletop_core::cbt::MemFiles;
use tabletop_core::{CreateTableRequest, FamilyChange, Instance};
use yew::{Reducible, UseReducerHandle};

use crate::share::{self, SharedState};
use crate::view_model::change_feed::{ChangeFeed, change_feed, change_stream_line};
use crate::view_model::schema::{
    TableSummary, create_table_line, delete_table_line, modify_families_line, tables,
};
use crate::view_model::tablets::{TabletsView, tablets_view};
use console::{ConsoleState, Source, Tab};
use generator::{GeneratorJob, GeneratorSpec};
use layout::{Layout, PanelId, Panels, Splitter};
use rows::{RowIndexer, RowsState};

pub use aside::{PendingImport, SetAside};
pub use boot::Boot;

/// What components get from the context: the state and a way to dispatch.
pub type AppContext = UseReducerHandle<AppState>;

/// Where time comes from.
pub trait Clock {
    /// Wall-clock time in microseconds since the Unix epoch (for the
    /// instance clock: server timestamps, GC ages).
    fn wall_micros(&self) -> i64;
    /// A monotonic time in milliseconds (for time budgets of work slices).
    fn now_ms(&self) -> f64;
    /// Records that the part of a task called `name` ran from `start_ms`
    /// ([`Clock::now_ms`]) until now, where the host's profiling tools
    /// can see it (the browser's User Timing; nothing elsewhere).
    fn measure(&self, _name: &str, _start_ms: f64) {}
}

/// A clock for tests: fixed wall time; the monotonic time advances by
/// `step_ms` every time it is read, so budgets run out predictably.
#[derive(Debug)]
pub struct TestClock {
    /// What [`Clock::wall_micros`] returns.
    pub wall_micros: i64,
    /// How far [`Clock::now_ms`] advances per call.
    pub step_ms: f64,
    ticks: std::cell::Cell<f64>,
}

impl TestClock {
    /// A clock at `wall_micros` whose monotonic time moves `step_ms` per
    /// reading.
    pub fn new(wall_micros: i64, step_ms: f64) -> TestClock {
        TestClock {
            wall_micros,
            step_ms,
            ticks: std::cell::Cell::new(0.0),
        }
    }
}

impl Clock for TestClock {
    fn wall_micros(&self) -> i64 {
        self.wall_micros
    }
    fn now_ms(&self) -> f64 {
        let t = self.ticks.get() + self.step_ms;
        self.ticks.set(t);
        t
    }
}

/// How much time one slice of background work may take, in milliseconds
/// (well under a 16.7 ms frame, leaving time to draw).
pub const WORK_BUDGET_MS: f64 = 9.0;
/// How much time one slice may take while rows are written in bulk, in
/// milliseconds: slices then run back to back (not one per animation
/// frame), each well under 50 ms with the small redraw after it (the
/// panels' bigger redraws take tasks of their own: see [`CatchUp`]).
pub const LOAD_BUDGET_MS: f64 = 24.0;
/// While data loads, the tables, tablets and rows are redrawn every this
/// many slices (about eight times a second on an idle machine). Counting
/// slices rather than milliseconds keeps the redraws' share of the work
/// fixed: on a busy machine, where every slice takes longer in wall
/// time, a redraw every 250 ms doubled the long tasks of *Load sample
/// data* (BENCHMARKS.md, bulk loads).
pub const REFRESH_EVERY_FRAMES: u64 = 8;
/// The User Timing name of a slice of background work (reducing one
/// [`Action::Work`]), of the engine's tick inside it, and of the redraw
/// after it ([`Clock::measure`]): the bulk-load benchmark attributes long
/// tasks with them (and with [`REFRESH_MEASURE`]).
pub const SLICE_MEASURE: &str = "tabletop:slice";
/// See [`SLICE_MEASURE`].
pub const TICK_MEASURE: &str = "tabletop:tick";
/// See [`SLICE_MEASURE`].
pub const REDRAW_MEASURE: &str = "tabletop:redraw";
/// The User Timing name of bringing the tables, tablets and rows up to
/// date after data changed (inside a slice, before its redraw).
pub const REFRESH_MEASURE: &str = "tabletop:refresh";
/// The User Timing names of a load's catching up, one step each (see
/// [`CatchUp`]): the tables and tablets, then the rows window, then the
/// load's end, then the SampleRowKeys list.
pub const CATCH_UP_MEASURES: [&str; 4] = [
    "tabletop:catch-up-tablets",
    "tabletop:catch-up-rows",
    "tabletop:catch-up-end",
    "tabletop:catch-up-samples",
];

/// After slices of the data generator's load changed the data, the
/// tables, tablets and rows are brought up to date in tasks of their own,
/// one step per task, rather than at the end of a slice: a slice's writes
/// plus the redraw of every panel made the page's longest tasks (over
/// 50 ms at a million rows). Each step's redraw touches what it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CatchUp {
    /// The tables list, the selection and the selected table's tablets
    /// (the Schema and Tablets panels).
    Tablets,
    /// The rows window (the Rows panel).
    Rows,
    /// A finished load's end: its progress goes, the Rows panel's form
    /// comes back.
    End,
    /// The SampleRowKeys list the load held (up to 200 keys) is drawn
    /// again.
    Samples,
}

/// The User Timing name of a slice of the live Key Visualizer's build (or
/// of a refresh of its traffic).
pub const LIVE_MEASURE: &str = "tabletop:live";
/// The User Timing name of making the Schema panel's lists of views
/// (done again only when the instance may have changed).
pub const VIEWS_MEASURE: &str = "tabletop:views";
/// How much index building an ordinary action may do before it answers.
pub const INLINE_INDEX_BUDGET_MS: f64 = 4.0;

/// A message for the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// Whether it reports a problem.
    pub error: bool,
    /// The text.
    pub text: String,
}

/// How long a message stays in the status line before it goes by itself,
/// in milliseconds.
pub const NOTICE_MS: u32 = 6_000;
/// How long a message about a problem stays, in milliseconds: long enough
/// to read a longer text (the × hides it sooner).
pub const NOTICE_ERROR_MS: u32 = 15_000;

impl Notice {
    /// How long this message stays before it goes by itself, in
    /// milliseconds.
    pub fn lifetime_ms(&self) -> u32 {
        if self.error {
            NOTICE_ERROR_MS
        } else {
            NOTICE_MS
        }
    }
}

/// What a slice is lent while it reduces one of its actions: the
/// instance and the clock, and the rest of the state read-only. A slice
/// changes nothing outside itself; what it wants done beyond its own part
/// it asks for in its [`Effects`].
pub(crate) struct Cx<'a> {
    /// The core's instance (shared by every revision of the state).
    pub instance: &'a RefCell<Instance>,
    /// Where time comes from.
    pub clock: &'a dyn Clock,
    /// The current design.
    pub design: &'a design::DesignState,
    /// The tables, as last listed.
    pub tables: &'a [TableSummary],
    /// The selected table.
    pub selected: Option<&'a str>,
}

impl Cx<'_> {
    /// Moves the instance's clock to wall time (expiring cells, applying
    /// the view changes that are due).
    pub fn sync_clock(&self) {
        let start = self.clock.now_ms();
        let now = self.clock.wall_micros();
        self.instance.borrow_mut().sync_wall_clock(now);
        self.clock.measure(TICK_MEASURE, start);
    }

    /// [`Cx::sync_clock`] that starts a piece of the engine's work only
    /// when its estimated cost fits before `deadline_ms` (on the page's
    /// clock); the rest stays due for the next tick. Bulk loads tick this
    /// way between batches.
    pub fn sync_clock_until(&self, deadline_ms: f64) {
        let start = self.clock.now_ms();
        let now = self.clock.wall_micros();
        self.instance
            .borrow_mut()
            .sync_wall_clock_until(now, deadline_ms, &mut || self.clock.now_ms());
        self.clock.measure(TICK_MEASURE, start);
    }
}

/// What a slice asks of the dispatcher after reducing an action, beyond
/// its own part of the state.
#[derive(Debug, Default)]
#[must_use]
pub(crate) struct Effects {
    /// Data or schema may have changed: the tables, tablets and rows are
    /// brought up to date.
    pub data_changed: bool,
    /// A message for the status line.
    pub notice: Option<Notice>,
    /// Select this table.
    pub select: Option<String>,
    /// An action to apply next (such as [`Action::SetDesign`]).
    pub then: Option<Action>,
}

impl Effects {
    /// Only a message about a problem.
    pub fn error(text: String) -> Effects {
        Effects {
            notice: Some(Notice { error: true, text }),
            ..Effects::default()
        }
    }

    /// Only an action to apply next.
    pub fn then(action: Action) -> Effects {
        Effects {
            then: Some(action),
            ..Effects::default()
        }
    }
}

/// Something a person (or the page itself) asks the app to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Load the start state.
    Boot(Boot),
    /// Show this table.
    SelectTable(String),
    /// Create a table (through the JSON protocol's createTable).
    CreateTable(CreateTableRequest),
    /// Delete a table.
    DeleteTable(String),
    /// Create, update or drop column families of a table.
    ModifyFamilies {
        /// The table id.
        table: String,
        /// The changes, all or none.
        changes: Vec<FamilyChange>,
    },
    /// The rows panel's visible area changed size.
    RowsViewport(rows::Viewport),
    /// Scroll the rows panel to this row position.
    ScrollRows(u64),
    /// Scroll the rows panel to the first row at or after this key.
    GoToKey(Vec<u8>),
    /// Expand or collapse a row's cells.
    ToggleRow(Vec<u8>),
    /// Compact the selected table now, so GC rules take effect.
    CompactNow,
    /// Turn a table's change stream on, keeping changes this many days,
    /// or (`None`) off (through the JSON protocol's updateTable).
    SetChangeStream {
        /// The table id.
        table: String,
        /// Days to keep changes (1 to 7), or `None` to turn it off.
        retention_days: Option<u32>,
    },
    /// The fade-out after a compaction is over.
    GhostDone(u64),
    /// The generator form changed.
    SetGenerator(GeneratorSpec),
    /// Start generating data with the form's settings.
    StartGenerator,
    /// Stop the data generator (rows written so far stay).
    CancelJob,
    /// Do one slice of background work (one per animation frame).
    Work,
    /// Show a console tab.
    ConsoleTab(Tab),
    /// The console input changed.
    ConsoleInput(String),
    /// Run the console input.
    ConsoleRun,
    /// Browse the console history: `true` back, `false` forward.
    ConsoleHistory(bool),
    /// Forget the console transcript.
    ConsoleClear,
    /// Put a command into a console tab (from the filter builder).
    ConsoleInsert(Tab, String),
    /// Resize a panel (CSS pixels).
    Resize(Splitter, i64),
    /// Back to the default panel sizes (and no panel maximized).
    ResetLayout,
    /// Give a panel the whole workspace, or (`None`) restore the layout.
    Maximize(Option<PanelId>),
    /// A snapshot file was picked (its name and bytes): it replaces the
    /// playground's tables, after a confirmation when there are any.
    ImportSnapshot(String, Rc<Vec<u8>>),
    /// Answer the confirmation of a snapshot import: replace, or not.
    ConfirmImport(bool),
    /// A link pasted into the address bar of the running page.
    OpenLink(Box<share::SharedState>),
    /// Answer as Google's Bigtable emulator does where it differs from
    /// production (`true`), or as production.
    SetEmulatorParity(bool),
    /// Put back the work the last snapshot import or link replaced.
    UndoReplace,
    /// Forget the work the last snapshot import or link replaced.
    ForgetReplaced,
    /// Show a message in the status line.
    Notify(Notice),
    /// Another tab took the autosave (`true`), or this tab takes it back.
    AutosaveElsewhere(bool),
    /// The last autosave left the instance's snapshot out (`true`: a
    /// reload replays definitions and loads), or kept it.
    SnapshotLeftOut(bool),
    /// Hide the status line's message.
    DismissNotice,
    /// This message's time is up: hide it, unless another one has taken
    /// its place.
    ExpireNotice(Notice),
    /// Replace the current design (source, scenario).
    SetDesign(String, Box<tabletop_core::sim::Scenario>),
    /// The simulation's actions.
    Sim(sim::SimAction),
    /// The live Key Visualizer's actions.
    Live(live::LiveAction),
    /// The A/B comparison's actions.
    Ab(ab::AbAction),
    /// Lessons' and the advisor's actions.
    Learn(learn::LearnAction),
    /// Export, import and SQL actions.
    Tools(tools::ToolsAction),
    /// The design's table and rows, and its workload replayed on them.
    ScenarioData(scenario_data::ScenarioDataAction),
}

/// The application state.
#[derive(Clone)]
pub struct AppState {
    /// The core's instance, shared by every revision of the state.
    instance: Rc<RefCell<Instance>>,
    /// The rows panel's index, shared likewise.
    indexer: Rc<RefCell<RowIndexer>>,
    clock: Rc<dyn Clock>,
    /// Bumped on every action, so a new state compares unequal.
    rev: u64,
    /// Bumped whenever data or schema may have changed.
    pub data_rev: u64,
    /// Whether the app has loaded its start state.
    pub booted: bool,
    /// Whether the page is an embed (`?embed=1`).
    pub embed: bool,
    /// The panels shown.
    pub panels: Panels,
    /// Panel sizes.
    pub layout: Layout,
    /// The panel given the whole workspace, if any (not saved: a reload
    /// or a share link opens the full layout).
    pub maximized: Option<PanelId>,
    /// The tables, sorted by id.
    pub tables: Rc<Vec<TableSummary>>,
    /// The selected table.
    pub selected: Option<String>,
    /// The selected table's tablets and samples.
    pub tablets: Option<Rc<Result<TabletsView, String>>>,
    /// The selected table's newest recorded changes.
    pub changes: Rc<ChangeFeed>,
    /// The rows panel.
    pub rows: Rc<RowsState>,
    /// The console.
    pub console: Rc<ConsoleState>,
    /// The generator form.
    pub generator: GeneratorSpec,
    /// The load in progress.
    pub job: Option<GeneratorJob>,
    /// Loads waiting to run (from a share link).
    pub queue: Vec<GeneratorSpec>,
    /// Loads done, in order (what a share link replays).
    pub loads: Vec<GeneratorSpec>,
    /// The status line.
    pub notice: Option<Notice>,
    /// Whether another tab of the playground keeps the autosave (this
    /// tab's work is then kept only for this tab, until it takes the
    /// autosave back).
    pub autosave_elsewhere: bool,
    /// The design being worked on.
    pub design: Rc<design::DesignState>,
    /// The simulation.
    pub sim: Rc<sim::SimState>,
    /// The live Key Visualizer of the selected table.
    pub live: Rc<live::LiveState>,
    /// Two row-key designs on one workload.
    pub ab: Rc<ab::AbState>,
    /// Lessons, the designer's draft and the advisor's fixes.
    pub learn: Rc<learn::LearnState>,
    /// The advisor's findings on the current design.
    pub advisor: advisor::AdvisorState,
    /// Export, import and SQL.
    pub tools: Rc<tools::ToolsState>,
    /// The design's table, its generated rows and the workload's replay.
    pub scenario_data: Rc<scenario_data::ScenarioDataState>,
    /// The user's own work while a lesson holds the playground.
    pub home: Option<SetAside>,
    /// The work the last snapshot import or link replaced (for an undo).
    pub replaced: Option<SetAside>,
    /// A snapshot import waiting for the user's confirmation.
    pub pending_import: Option<PendingImport>,
    /// How many changes the instance holds that its tables' definitions
    /// and data loads cannot rebuild (see [`AppState::unsaved_work`]): rows
    /// written or deleted by hand, tables changed or deleted, CSV and
    /// translated imports, a design's rows and replays, a snapshot
    /// imported. Zero once the instance is rebuilt from definitions and
    /// loads alone.
    pub hand_changes: u64,
    /// Whether the last autosave left the instance's snapshot out (it is
    /// past [`share::SAVE_SNAPSHOT_BYTES`], or the browser's storage was
    /// full): a reload then rebuilds the tables from their definitions and
    /// replays the loads.
    pub snapshot_left_out: bool,
    /// The writes made by hand since the last data load, which a reload
    /// runs again after the loads (see [`hand_log`]).
    pub hand_log: Rc<Vec<hand_log::HandWrite>>,
    /// Logged writes a reload brought back, waiting for the loads before
    /// them.
    replay: Vec<hand_log::HandWrite>,
    next_ghost: u64,
    work_frames: u64,
    /// What the panels still have to catch up with after a load's slices.
    catch_up: Option<CatchUp>,
    /// Whether this action ran a slice of a load: the live map's build
    /// then waits for a task of its own (the tables' sizes it would be
    /// sized from are only brought up to date by the catching up).
    load_sliced: bool,
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev && Rc::ptr_eq(&self.instance, &other.instance)
    }
}

impl fmt::Debug for AppState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppState")
            .field("rev", &self.rev)
            .field("data_rev", &self.data_rev)
            .field("selected", &self.selected)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// An empty playground (no tables yet) with the given clock.
    pub fn new(clock: Rc<dyn Clock>, embed: bool, panels: Panels) -> AppState {
        AppState {
            instance: Rc::new(RefCell::new(Instance::default())),
            indexer: Rc::default(),
            clock,
            rev: 0,
            data_rev: 0,
            booted: false,
            autosave_elsewhere: false,
            embed,
            panels,
            layout: Layout::default(),
            maximized: None,
            tables: Rc::default(),
            selected: None,
            tablets: None,
            changes: Rc::default(),
            rows: Rc::default(),
            console: Rc::default(),
            generator: GeneratorSpec::default(),
            job: None,
            queue: Vec::new(),
            loads: Vec::new(),
            notice: None,
            design: Rc::default(),
            sim: Rc::default(),
            live: Rc::default(),
            ab: Rc::default(),
            learn: Rc::default(),
            advisor: advisor::AdvisorState::default(),
            tools: Rc::default(),
            scenario_data: Rc::default(),
            home: None,
            replaced: None,
            pending_import: None,
            hand_changes: 0,
            snapshot_left_out: false,
            hand_log: Rc::default(),
            replay: Vec::new(),
            next_ghost: 0,
            work_frames: 0,
            catch_up: None,
            load_sliced: false,
        }
    }

    /// The revision: how many actions this state has seen.
    pub fn rev(&self) -> u64 {
        self.rev
    }

    /// Read-only access to the instance, for views.
    pub fn instance(&self) -> std::cell::Ref<'_, Instance> {
        self.instance.borrow()
    }

    /// Whether a materialized view is catching up with its source (see
    /// [`tools::views_have_work`]).
    pub fn tools_has_work(&self) -> bool {
        tools::views_have_work(&self.instance.borrow())
    }

    /// Whether background work is waiting: a data load, or the rows
    /// index.
    pub fn has_work(&self) -> bool {
        self.job.is_some()
            || self.catch_up.is_some()
            || !self.queue.is_empty()
            || !self.replay.is_empty()
            || self.indexer.borrow().pending(self.data_rev)
            || self.tools_has_work()
            || self.sim.has_work()
            || self.ab.has_work()
            || self.live_has_work()
            || self.scenario_data.has_work()
    }

    /// Whether rows are being written in bulk (the data generator or a
    /// design's rows): then slices of work run back to back rather than
    /// one per animation frame (see [`LOAD_BUDGET_MS`]).
    pub fn loading(&self) -> bool {
        self.job.is_some() || !self.queue.is_empty() || self.scenario_data.loading()
    }

    /// Whether rows are being written in bulk or the panels are still
    /// catching up with a load that ended (its progress is still on
    /// screen): autosave waits for both.
    pub fn load_in_progress(&self) -> bool {
        self.loading() || self.catch_up.is_some() || !self.replay.is_empty()
    }

    /// Whether a load or its catching up is under way, or the rows index
    /// is still counting: until then the panels' figures may change.
    pub fn settling(&self) -> bool {
        self.load_in_progress() || self.indexer.borrow().pending(self.data_rev)
    }

    /// Whether the Tablets panel keeps the SampleRowKeys list it shows: while
    /// rows load, and until the last step of catching up with a load.
    pub fn samples_held(&self) -> bool {
        self.loading() || self.catch_up == Some(CatchUp::Samples)
    }

    /// Whether the live Key Visualizer is on screen.
    pub fn live_shown(&self) -> bool {
        self.panels.has(PanelId::KeyVisualizer)
            && self.live.shown(self.sim.loaded()) == live::KvView::Live
    }

    /// Whether the live map on screen is behind the table (it is rebuilt
    /// in a coming frame).
    fn live_has_work(&self) -> bool {
        self.live_shown() && self.live.is_stale()
    }

    /// The whole instance as snapshot bytes (what the CLI's `--state` file
    /// holds).
    pub fn snapshot(&self) -> Vec<u8> {
        self.instance.borrow_mut().snapshot()
    }

    /// Whether the instance holds work that autosave does not keep: changes
    /// made by hand, not all in the log of writes, while the last save left
    /// the snapshot out. A reload would lose them (and replay the loads
    /// over what they deleted).
    pub fn unsaved_work(&self) -> bool {
        self.snapshot_left_out && self.hand_changes > 0 && !self.hand_log_whole()
    }

    /// The autosave's snapshot without the tables' traffic (when the
    /// browser's storage is full, traffic goes before rows do).
    pub fn saved_snapshot_without_traffic(&self) -> Option<String> {
        if self.loading() {
            return None;
        }
        share::snapshot_without_traffic(&mut self.instance.borrow_mut(), share::SAVE_SNAPSHOT_BYTES)
    }

    /// The state as a share link carries it (`for_link`) or as autosave
    /// keeps it (a larger snapshot, and the console history).
    pub fn to_shared(&self, for_link: bool) -> SharedState {
        let mut instance = self.instance.borrow_mut();
        let limit = if for_link {
            share::LINK_SNAPSHOT_BYTES
        } else {
            share::SAVE_SNAPSHOT_BYTES
        };
        let mut loads = self.loads.clone();
        if let Some(job) = &self.job {
            loads.push(job.spec.clone());
        }
        loads.extend(self.queue.iter().cloned());
        SharedState {
            tables: share::table_requests(&mut instance),
            snapshot: if !self.loading() {
                share::small_snapshot(&mut instance, limit)
            } else {
                None
            },
            loads,
            generator: self.generator.clone(),
            layout: self.layout,
            selected: self.selected.clone(),
            tab: self.console.tab.slug().to_string(),
            input: self.console.inputs.to_vec(),
            history: if for_link {
                Vec::new()
            } else {
                self.console
                    .history
                    .iter()
                    .filter(|(_, text)| text.len() <= console::MAX_SAVED_COMMAND_BYTES)
                    .map(|(tab, text)| (tab.slug().to_string(), text.clone()))
                    .collect()
            },
            sim: self.sim.shared(&self.design),
            live: Some(self.live.shared()).filter(|l| *l != live::LiveShared::default()),
            ab: Some(self.ab.shared()).filter(|a| *a != ab::AbShared::default()),
            home: (!for_link)
                .then(|| self.home.as_ref().map(|a| Box::new(a.to_shared())))
                .flatten(),
            replaced: (!for_link)
                .then(|| self.replaced.as_ref().map(|a| Box::new(a.to_shared())))
                .flatten(),
            link: None,
            emulator_parity: instance.fidelity().is_emulator(),
            hand_changes: self.hand_changes,
            hand_log: if !for_link && self.hand_log_whole() {
                self.hand_log.to_vec()
            } else {
                Vec::new()
            },
        }
    }

    /// Applies one action and returns the next state. The instance is
    /// shared, not copied: the new state sees the same tables.
    #[must_use]
    pub fn apply(&self, action: Action) -> AppState {
        let mut next = self.clone();
        next.rev += 1;
        next.reduce_in_place(action);
        // Commands run by hand or by a panel's button, counted once per
        // action however deep they ran (see [`console::changes_by_hand`]).
        next.hand_changes += next
            .console
            .hand_changes
            .saturating_sub(self.console.hand_changes);
        next.take_hand_writes();
        // What follows the design and the data, whichever action moved them.
        next.follow_design();
        next.follow_advisor();
        next.follow_live();
        next.follow_placement();
        next
    }

    fn sync_clock(&mut self) -> bool {
        let start = self.clock.now_ms();
        let now = self.clock.wall_micros();
        let changed = !self.instance.borrow_mut().sync_wall_clock(now).is_empty();
        self.clock.measure(TICK_MEASURE, start);
        changed
    }

    fn host(&self) -> MemFiles {
        MemFiles {
            wall_clock_micros: Some(self.clock.wall_micros()),
            stdout_limit: Some(console::PRINT_LIMIT),
            ..MemFiles::default()
        }
    }

    /// Runs a request made by a panel through the console, so it shows in
    /// the transcript. Returns whether it succeeded.
    fn run_for_panel(&mut self, tab: Tab, text: &str, panel: &'static str) -> bool {
        let mut host = self.host();
        let console = Rc::make_mut(&mut self.console);
        let mut instance = self.instance.borrow_mut();
        console.run(&mut instance, &mut host, tab, text, Source::Panel(panel));
        console.entries.last().is_some_and(|e| e.ok)
    }

    /// Carries out what a slice asked for; returns whether data or schema
    /// may have changed (the follow-up action brings its own data up to
    /// date).
    fn apply_effects(&mut self, effects: Effects) -> bool {
        let Effects {
            data_changed,
            notice,
            select,
            then,
        } = effects;
        if let Some(notice) = notice {
            self.notice = Some(notice);
        }
        if let Some(table) = select {
            self.selected = Some(table);
        }
        if let Some(action) = then {
            self.reduce_in_place(action);
        }
        data_changed
    }

    /// Hands the action to the part of the state it belongs to, then
    /// brings the tables, tablets and rows up to date when it may have
    /// changed data or schema.
    fn reduce_in_place(&mut self, action: Action) {
        let data_changed = match action {
            Action::Boot(boot) => {
                self.booted = true;
                self.boot(boot);
                true
            }
            Action::SelectTable(_)
            | Action::CreateTable(_)
            | Action::DeleteTable(_)
            | Action::ModifyFamilies { .. }
            | Action::SetChangeStream { .. }
            | Action::CompactNow => self.reduce_schema(action),
            Action::RowsViewport(_)
            | Action::ScrollRows(_)
            | Action::GoToKey(_)
            | Action::ToggleRow(_)
            | Action::GhostDone(_) => {
                let rows = Rc::make_mut(&mut self.rows);
                let result = rows.reduce(
                    action,
                    &mut self.instance.borrow_mut(),
                    &self.indexer.borrow(),
                );
                if let Err(text) = result {
                    self.notice = Some(Notice { error: true, text });
                }
                false
            }
            Action::SetGenerator(_) | Action::StartGenerator | Action::CancelJob => {
                self.reduce_generator(action)
            }
            Action::Work => {
                let start = self.clock.now_ms();
                let redraw = self.work_frame();
                self.clock.measure(SLICE_MEASURE, start);
                redraw
            }
            Action::ConsoleRun => {
                let clock_work = self.sync_clock();
                let mut host = self.host();
                let console = Rc::make_mut(&mut self.console);
                let writes = console.run_input(&mut self.instance.borrow_mut(), &mut host);
                writes || clock_work
            }
            Action::ConsoleTab(_)
            | Action::ConsoleInput(_)
            | Action::ConsoleHistory(_)
            | Action::ConsoleClear
            | Action::ConsoleInsert(..) => {
                Rc::make_mut(&mut self.console).reduce(action);
                false
            }
            Action::Resize(..) | Action::ResetLayout | Action::Maximize(_) => {
                layout::reduce(&mut self.layout, &mut self.maximized, self.panels, action);
                false
            }
            Action::ImportSnapshot(name, bytes) => self.import_snapshot(name, &bytes),
            Action::ConfirmImport(yes) => {
                let imported = self.confirm_import(yes);
                // Only the snapshot itself can bring the rows back.
                if imported {
                    self.hand_changes = 1;
                }
                imported
            }
            Action::OpenLink(link) => {
                self.open_link(*link);
                true
            }
            Action::SetEmulatorParity(on) => {
                self.set_emulator_parity(on);
                false
            }
            Action::UndoReplace => self.undo_replace(),
            Action::ForgetReplaced => {
                self.replaced = None;
                self.notice = Some(Notice {
                    error: false,
                    text: "The earlier tables are forgotten.".into(),
                });
                false
            }
            Action::AutosaveElsewhere(elsewhere) => {
                self.autosave_elsewhere = elsewhere;
                false
            }
            Action::SnapshotLeftOut(left_out) => {
                self.snapshot_left_out = left_out;
                false
            }
            Action::Notify(_) | Action::DismissNotice | Action::ExpireNotice(_) => {
                self.reduce_notice(action);
                false
            }
            Action::SetDesign(source, scenario) => {
                Rc::make_mut(&mut self.design).set(source, *scenario);
                // A new design is shown on the simulated cluster.
                Rc::make_mut(&mut self.live).choice = None;
                let effects = self.learn.follow_design(&cx!(self));
                self.apply_effects(effects)
            }
            Action::Sim(action) => {
                let effects = Rc::make_mut(&mut self.sim).reduce(action, &cx!(self));
                self.apply_effects(effects)
            }
            Action::Live(action) => {
                // The Tablets panel follows the Key Visualizer's choice:
                // the real table's tablets beside the live map, the
                // simulated cluster's beside the simulation.
                let tablets = match &action {
                    live::LiveAction::Show(live::KvView::Live) => Some(sim::TabletsView::Table),
                    live::LiveAction::Show(live::KvView::Simulation) => {
                        Some(sim::TabletsView::Simulation)
                    }
                    _ => None,
                };
                if let Some(view) = tablets {
                    let effects = Rc::make_mut(&mut self.sim)
                        .reduce(sim::SimAction::TabletsView(view), &cx!(self));
                    self.apply_effects(effects);
                }
                Rc::make_mut(&mut self.live).reduce(action);
                false
            }
            Action::Ab(action) => {
                Rc::make_mut(&mut self.ab).reduce(action, &cx!(self));
                false
            }
            Action::Learn(action) => self.reduce_learn(action),
            // Imports of CSV or translated tables, and a design's rows or
            // replayed workload, are not data loads that autosave replays.
            Action::Tools(action) => {
                let effects = Rc::make_mut(&mut self.tools).reduce(action, &cx!(self));
                self.hand_changes += u64::from(effects.data_changed);
                self.apply_effects(effects)
            }
            Action::ScenarioData(action) => {
                let effects = Rc::make_mut(&mut self.scenario_data).reduce(action, &cx!(self));
                self.hand_changes += u64::from(effects.data_changed);
                self.apply_effects(effects)
            }
        };
        // A lesson that made its sample table hands the rows over.
        let data_changed = self.follow_lesson_sample() || data_changed;
        if data_changed {
            let start = self.clock.now_ms();
            self.data_changed();
            self.clock.measure(REFRESH_MEASURE, start);
        }
    }

    /// The status line's actions: show a message, hide it, or let it
    /// expire unless another one has taken its place.
    fn reduce_notice(&mut self, action: Action) {
        match action {
            Action::Notify(notice) => self.notice = Some(notice),
            Action::DismissNotice => self.notice = None,
            Action::ExpireNotice(notice) if self.notice.as_ref() == Some(&notice) => {
                self.notice = None;
            }
            _ => {}
        }
    }

    /// The Schema panel's and the Rows panel's requests that go through
    /// the console: selecting, creating, changing and deleting tables, and
    /// compacting one. Returns whether data or schema may have changed.
    fn reduce_schema(&mut self, action: Action) -> bool {
        match action {
            Action::SelectTable(table) => {
                self.selected = Some(table);
                self.refresh_tablets();
                self.select_rows();
                false
            }
            Action::CreateTable(request) => {
                self.sync_clock();
                let line = create_table_line(&self.instance.borrow().name(), &request);
                if self.run_for_panel(Tab::Json, &line, "Schema") {
                    self.selected = Some(request.table_id.clone());
                    self.notice = Some(Notice {
                        error: false,
                        text: format!("Created table {}", request.table_id),
                    });
                }
                true
            }
            Action::DeleteTable(table) => {
                self.sync_clock();
                let name = format!("{}/tables/{table}", self.instance.borrow().name());
                if self.run_for_panel(Tab::Json, &delete_table_line(&name), "Schema") {
                    self.notice = Some(Notice {
                        error: false,
                        text: format!("Deleted table {table}"),
                    });
                }
                true
            }
            Action::ModifyFamilies { table, changes } => {
                self.sync_clock();
                let name = format!("{}/tables/{table}", self.instance.borrow().name());
                self.run_for_panel(Tab::Json, &modify_families_line(&name, &changes), "Schema");
                true
            }
            Action::SetChangeStream {
                table,
                retention_days,
            } => {
                self.sync_clock();
                let name = format!("{}/tables/{table}", self.instance.borrow().name());
                let line = change_stream_line(&name, retention_days);
                self.run_for_panel(Tab::Json, &line, "Change stream");
                true
            }
            Action::CompactNow => self.compact_now(),
            _ => false,
        }
    }

    /// Compacts the selected table through the console; the cells GC
    /// collected fade out of the rows panel.
    fn compact_now(&mut self) -> bool {
        let Some(table) = self.selected.clone() else {
            return false;
        };
        self.sync_clock();
        let before = Rc::clone(&self.rows.window);
        let line = format!("compact {}", crate::view_model::filter::shell_quote(&table));
        self.run_for_panel(Tab::Cbt, &line, "Rows");
        let fading = before
            .lines
            .iter()
            .any(|l| l.cells.iter().any(|c| c.gc_eligible));
        if fading {
            self.next_ghost += 1;
            Rc::make_mut(&mut self.rows).ghost = Some((self.next_ghost, before));
        }
        true
    }

    /// The data generator's form, start and stop. Returns whether data
    /// changed.
    fn reduce_generator(&mut self, action: Action) -> bool {
        match action {
            Action::SetGenerator(spec) => {
                self.generator = spec;
                false
            }
            Action::StartGenerator => {
                if self.job.is_some() {
                    return false;
                }
                // The click only starts the job (the Rows panel turns into
                // its progress): the first slice, which creates the table,
                // runs in the next task, and the panels follow the new
                // selection once it exists (see `work_frame`).
                // Logged writes waiting for the loads before them run
                // first when those loads are done; otherwise the new load
                // would come between them and their loads.
                if self.queue.is_empty() && !self.replay.is_empty() {
                    self.replay_hand_writes();
                }
                self.replay.clear();
                self.load_starts();
                let mut spec = self.generator.clone();
                spec.rows = spec.rows.min(generator::MAX_ROWS);
                self.selected = Some(spec.table.clone());
                self.job = Some(GeneratorJob::new(spec));
                false
            }
            Action::CancelJob => {
                self.queue.clear();
                self.catch_up = None;
                let Some(job) = self.job.take() else {
                    return false;
                };
                self.finish_job(job);
                true
            }
            _ => false,
        }
    }

    /// One animation frame of background work: the simulation's slice
    /// (alone when nothing else waits, else sharing the frame with the
    /// data load or the index), views catching up, then the data load or
    /// the rows index. Returns whether the tables and rows should be
    /// redrawn now.
    fn work_frame(&mut self) -> bool {
        if self.ab.has_work() {
            // An A/B run shares the frame with whatever else works.
            let others = self.sim.has_work() || self.data_work_pending() || self.tools_has_work();
            let clock = Rc::clone(&self.clock);
            let budget = WORK_BUDGET_MS / if others { 2.0 } else { 1.0 };
            Rc::make_mut(&mut self.ab).work(&move || clock.now_ms(), budget);
            if !others {
                return false;
            }
        }
        if self.sim.has_work() {
            let busy = self.data_work_pending();
            let clock = Rc::clone(&self.clock);
            let shared = busy || self.ab.has_work();
            let budget = WORK_BUDGET_MS / if shared { 2.0 } else { 1.0 };
            Rc::make_mut(&mut self.sim).work(&move || clock.now_ms(), budget);
            if !busy && !self.tools_has_work() {
                return false;
            }
        }
        // A load's panels catch up before its next slice, so a design's
        // rows being written cannot hold them back.
        if let Some(step) = self.catch_up.take() {
            self.catch_up_step(step);
            return false;
        }
        if self.scenario_data.has_work() {
            return self.scenario_data_work();
        }
        tools::views_work(&cx!(self));
        let budget = if self.loading() {
            LOAD_BUDGET_MS
        } else {
            WORK_BUDGET_MS
        };
        let first = self.job.as_ref().is_some_and(|j| j.done == 0);
        let wrote = self.work(budget);
        if wrote && let Some(job) = &self.job {
            // Mid-load: the data moved on, but redrawing the tables,
            // tablets and rows every slice would cost more than the load
            // itself. They catch up every few slices, after the first (the
            // table now exists: the panels show it) and once the last row
            // is in, in the tasks that follow (see [`CatchUp`]).
            let done = job.is_done();
            self.data_rev += 1;
            self.load_sliced = true;
            let due = self.refresh_due();
            if due || done || first {
                self.catch_up = Some(CatchUp::Tablets);
            }
            false
        } else if wrote {
            true
        } else {
            // Only the index advanced: show its row count.
            let rows = Rc::make_mut(&mut self.rows);
            rows.index = self.indexer.borrow().status();
            if rows.window.lines.is_empty() || rows.index.exact {
                rows.read(&mut self.instance.borrow_mut(), &self.indexer.borrow());
            }
            false
        }
    }

    /// One slice of the design's rows being written or its workload
    /// replayed; the tables, tablets and rows catch up every few slices
    /// and at the end, in tasks of their own (see [`CatchUp`]), as for
    /// the sample data. Returns whether to redraw them now (never: the
    /// catching up does).
    fn scenario_data_work(&mut self) -> bool {
        let clock = Rc::clone(&self.clock);
        let budget = if self.scenario_data.loading() {
            LOAD_BUDGET_MS
        } else {
            WORK_BUDGET_MS
        };
        let mut effects =
            Rc::make_mut(&mut self.scenario_data).work(&cx!(self), &move || clock.now_ms(), budget);
        let mid_job = self.scenario_data.has_work();
        if effects.data_changed {
            effects.data_changed = false;
            self.data_rev += 1;
            self.load_sliced = true;
            // A new table (the load's start) is shown at once.
            if self.refresh_due() || !mid_job || effects.select.is_some() {
                self.catch_up = Some(CatchUp::Tablets);
            }
        }
        self.apply_effects(effects)
    }

    /// Counts a slice of a load; returns whether the redraw of the
    /// tables, tablets and rows is due (see [`REFRESH_EVERY_FRAMES`]).
    fn refresh_due(&mut self) -> bool {
        self.work_frames = self.work_frames.wrapping_add(1);
        self.work_frames.is_multiple_of(REFRESH_EVERY_FRAMES)
    }

    /// Whether the data generator, a design's rows or workload, or the
    /// rows index wants frames.
    fn data_work_pending(&self) -> bool {
        self.job.is_some()
            || self.catch_up.is_some()
            || !self.queue.is_empty()
            || !self.replay.is_empty()
            || self.scenario_data.has_work()
            || self.indexer.borrow().pending(self.data_rev)
    }

    /// Whether a run of the current design has reached its end (then its
    /// report is evidence for the advisor).
    pub fn sim_finished(&self) -> bool {
        self.sim.finished(self.design.rev)
    }

    /// The report of a finished run of the current design.
    pub fn finished_sim_report(&self) -> Option<tabletop_core::sim::Report> {
        self.sim.finished_report(self.design.rev)
    }

    /// Rebuilds the simulation when the shared design changed since it
    /// was built (run after every action).
    fn follow_design(&mut self) {
        if !self.sim.follows(&self.design) {
            Rc::make_mut(&mut self.sim).follow(&self.design);
        }
    }

    /// Brings the advisor's findings up to date (the Schema panel shows
    /// them; an embed without it does not need them).
    fn follow_advisor(&mut self) {
        if !self.panels.has(PanelId::Schema) {
            return;
        }
        let finished = self.sim_finished();
        let sim = Rc::clone(&self.sim);
        let design_rev = self.design.rev;
        self.advisor.follow(
            &self.design,
            &self.tables,
            &self.instance.borrow(),
            finished,
            || sim.finished_report(design_rev),
        );
    }

    /// Keeps the live Key Visualizer up to date (run after every action):
    /// notes whether the person has worked on a real table since the page
    /// started, and, while the live map is on screen, rebuilds it when the
    /// selected table's data or traffic changed and a rebuild is due (see
    /// [`live`]).
    fn follow_live(&mut self) {
        let sliced = std::mem::take(&mut self.load_sliced);
        if !self.panels.has(PanelId::KeyVisualizer) {
            return;
        }
        let (print, table_print) = {
            let db = self.instance.borrow();
            (
                live::instance_print(&db, self.tables.iter().map(|t| t.name.as_str())),
                self.selected
                    .as_deref()
                    .map_or(0, |t| live::traffic_print(&db, t)),
            )
        };
        Rc::make_mut(&mut self.live).observe_activity(print);
        let shown = self.live_shown();
        // A replay's writes change the data every slice, as a load's do:
        // a large table's build waits for its end (which asks for one).
        let loading = self.loading() || self.scenario_data.replaying() == Some(true);
        // Not after a load's slice: the two together could pass 50 ms.
        if sliced && loading {
            return;
        }
        let sig = live::Signature {
            table: self.selected.clone(),
            data_rev: self.data_rev,
            traffic: table_print,
            bytes: self
                .tables
                .iter()
                .find(|t| Some(&t.name) == self.selected.as_ref())
                .map_or(0, |t| t.bytes),
        };
        let now = self.clock.now_ms();
        let state = Rc::make_mut(&mut self.live);
        if shown && state.observe(sig) && state.due(now, loading) {
            let clock = Rc::clone(&self.clock);
            state.rebuild(
                &mut self.instance.borrow_mut(),
                &move || clock.now_ms(),
                loading,
            );
            self.clock.measure(LIVE_MEASURE, now);
        }
    }

    /// Places the selected table's tablets on the live view's nodes for
    /// the Tablets panel when what that depends on changed (run after
    /// every action; not while data loads or a workload is replayed, whose
    /// every slice changes the table: their end brings it up to date).
    fn follow_placement(&mut self) {
        let busy = self.loading() || self.scenario_data.replaying() == Some(true);
        if busy && self.live.placement.is_some() {
            return;
        }
        let placed = self.selected.clone().and_then(|table| {
            let db = self.instance.borrow();
            let inputs = placement::PlacementInputs {
                traffic: live::traffic_print(&db, &table),
                table,
                data_rev: self.data_rev,
                nodes: self.live.nodes(),
            };
            placement::Placement::follow(self.live.placement.as_ref(), &db, inputs)
        });
        if placed != self.live.placement {
            Rc::make_mut(&mut self.live).placement = placed;
        }
    }

    /// One slice of background work within `budget_ms`: the data load if
    /// one runs (or waits), else the rows index. Returns whether data
    /// changed.
    fn work(&mut self, budget_ms: f64) -> bool {
        let clock = Rc::clone(&self.clock);
        let deadline = clock.now_ms() + budget_ms;
        let mut out_of_time = move || clock.now_ms() >= deadline;
        // The loads a reload queued have all run: the writes made by hand
        // after them follow.
        if self.job.is_none() && self.queue.is_empty() && !self.replay.is_empty() {
            self.replay_hand_writes();
            return true;
        }
        if self.job.is_none()
            && let Some(spec) = self.queue.pop()
        {
            self.job = Some(GeneratorJob::new(spec));
        }
        if let Some(mut job) = self.job.take() {
            if job.is_done() {
                // Written already; only the panels are behind.
                self.job = Some(job);
                return true;
            }
            let result = self.load_slice(&mut job, deadline, budget_ms);
            match result {
                Err(e) => {
                    self.notice = Some(Notice {
                        error: true,
                        text: format!("The data generator stopped: {e}"),
                    });
                    self.queue.clear();
                    self.finish_job(job);
                }
                // A finished load stays until the panels caught up with
                // it (the last step of [`CatchUp`] ends it).
                Ok(()) => self.job = Some(job),
            }
            return true;
        }
        let mut indexer = self.indexer.borrow_mut();
        indexer.work(
            &mut self.instance.borrow_mut(),
            self.data_rev,
            &mut out_of_time,
        );
        false
    }

    /// One slice of the data generator's load, until `deadline`: batches
    /// sized to the time left, the engine's due work between them when
    /// enough rows went in and enough time is left (see [`load_pace`]),
    /// and once the last row is written, a tick in what is left. The
    /// slice's start counts as having the whole budget (`budget_ms`), so
    /// every slice ticks when due and writes rows however late it starts.
    fn load_slice(
        &mut self,
        job: &mut GeneratorJob,
        deadline: f64,
        budget_ms: f64,
    ) -> Result<(), String> {
        let clock = Rc::clone(&self.clock);
        let mut pace = job.pace.clone();
        let mut since = clock.now_ms();
        let result = job.work(&mut self.instance.borrow_mut(), &mut |db, written| {
            let now = clock.now_ms();
            pace.wrote(written, now - since);
            // At the slice's start, the whole budget is its own.
            let left = if written == 0 {
                budget_ms
            } else {
                deadline - now
            };
            if pace.tick_due(left) {
                db.sync_wall_clock_until(clock.wall_micros(), deadline, &mut || clock.now_ms());
                clock.measure(TICK_MEASURE, now);
                pace.ticked();
            }
            since = clock.now_ms();
            let left = deadline - since;
            let planned = if written == 0 {
                left.max(budget_ms / 2.0)
            } else {
                left
            };
            pace.next_batch(planned, generator::BATCH_ROWS)
        });
        job.pace = pace;
        if job.is_done() || result.is_err() {
            cx!(self).sync_clock_until(deadline);
        }
        result
    }

    fn finish_job(&mut self, job: GeneratorJob) {
        if job.done > 0 {
            let mut spec = job.spec;
            spec.rows = job.done;
            self.loads.push(spec);
        }
    }

    fn select_rows(&mut self) {
        let loading = self.loading();
        let rows = Rc::make_mut(&mut self.rows);
        rows.select(&mut self.indexer.borrow_mut(), self.selected.clone());
        if !loading {
            let clock = Rc::clone(&self.clock);
            let deadline = clock.now_ms() + INLINE_INDEX_BUDGET_MS;
            self.indexer.borrow_mut().work(
                &mut self.instance.borrow_mut(),
                self.data_rev,
                &mut || clock.now_ms() >= deadline,
            );
        }
        rows.read(&mut self.instance.borrow_mut(), &self.indexer.borrow());
        // An index older than the data (a load wrote into the table on
        // screen) is no count yet: the panel says it is counting until
        // the rebuild, which starts in a later frame, takes over.
        if self.indexer.borrow().pending(self.data_rev) {
            rows.index.exact = false;
        }
    }

    fn refresh_tablets(&mut self) {
        self.tablets = self
            .selected
            .as_deref()
            .map(|t| Rc::new(tablets_view(&self.instance.borrow(), t)));
        let feed = change_feed(&self.instance.borrow(), self.selected.as_deref());
        if *self.changes != feed {
            self.changes = Rc::new(feed);
        }
    }

    /// After data or schema may have changed: tables, the selection,
    /// tablets, and the rows (index work within a small budget, so small
    /// tables are up to date at once).
    fn data_changed(&mut self) {
        self.data_rev += 1;
        self.refresh_tables();
        self.refresh_tablets();
        self.select_rows();
    }

    /// The tables list, and the selection when its table is gone.
    fn refresh_tables(&mut self) {
        self.tables = Rc::new(tables(&self.instance.borrow()));
        let exists = |name: &str| self.tables.iter().any(|t| t.name == name);
        if self.selected.as_deref().is_none_or(|s| !exists(s)) {
            let waiting = self.job.as_ref().map(|j| j.spec.table.clone());
            self.selected = waiting
                .filter(|t| exists(t))
                .or_else(|| self.tables.first().map(|t| t.name.clone()));
        }
    }

    /// One step of catching up with a load (see [`CatchUp`]); the next
    /// step waits for the next task.
    fn catch_up_step(&mut self, step: CatchUp) {
        let start = self.clock.now_ms();
        let done = self.job.as_ref().is_none_or(GeneratorJob::is_done);
        self.catch_up = match step {
            CatchUp::Tablets => {
                self.refresh_tables();
                self.refresh_tablets();
                Some(CatchUp::Rows)
            }
            CatchUp::Rows => {
                self.select_rows();
                done.then_some(CatchUp::End)
            }
            CatchUp::End => {
                // The rows index goes on in the frames that follow.
                if let Some(job) = self.job.take_if(|j| j.is_done()) {
                    self.finish_job(job);
                }
                Some(CatchUp::Samples)
            }
            CatchUp::Samples => None,
        };
        let name = match step {
            CatchUp::Tablets => CATCH_UP_MEASURES[0],
            CatchUp::Rows => CATCH_UP_MEASURES[1],
            CatchUp::End => CATCH_UP_MEASURES[2],
            CatchUp::Samples => CATCH_UP_MEASURES[3],
        };
        self.clock.measure(name, start);
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

/// The sample playground on a test clock (fixed wall time; monotonic time
/// moving half a millisecond per reading), for the slices' tests.
#[cfg(test)]
pub(crate) fn test_app() -> AppState {
    AppState::new(
        Rc::new(TestClock::new(tests::NOW, 0.5)),
        false,
        Panels::default(),
    )
    .apply(Action::Boot(Boot::Demo))
}

/// Runs `text` in the console's `tab`, for the slices' tests.
#[cfg(test)]
pub(crate) fn run_console(state: &AppState, tab: console::Tab, text: &str) -> AppState {
    state
        .apply(Action::ConsoleTab(tab))
        .apply(Action::ConsoleInput(text.into()))
        .apply(Action::ConsoleRun)
}

/// Frames of work until none is left (a load, a replay, a lesson's
/// sample rows), for the slices' tests.
#[cfg(test)]
pub(crate) fn settle(mut state: AppState) -> AppState {
    for _ in 0..10_000 {
        if !state.has_work() {
            return state;
        }
        state = state.apply(Action::Work);
    }
    panic!("the work never ended");
}

/// Whether `a` and `b` hold the same tables, tablets and rows (the same
/// values, not copies): nothing of them was rebuilt in between. For the
/// slices' tests.
#[cfg(test)]
pub(crate) fn panels_unchanged(a: &AppState, b: &AppState) -> bool {
    Rc::ptr_eq(&a.tables, &b.tables)
        && Rc::ptr_eq(&a.rows, &b.rows)
        && match (&a.tablets, &b.tablets) {
            (Some(x), Some(y)) => Rc::ptr_eq(x, y),
            (x, y) => x.is_none() && y.is_none(),
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo;
    use crate::state::run_console as run;

    pub(super) const NOW: i64 = 1_700_000_000_000_000;

    fn app() -> AppState {
        test_app()
    }

    fn keys(state: &AppState) -> Vec<String> {
        state
            .rows
            .window
            .lines
            .iter()
            .map(|l| l.key.text.clone())
            .collect()
    }

    #[test]
    fn the_change_feed_follows_writes_once_the_table_records_them() {
        let state = app();
        let table = demo::TABLE_ID.to_string();
        assert_eq!(state.changes.table.as_deref(), Some(demo::TABLE_ID));
        assert_eq!(state.changes.retention_days, None);
        // Turned on from the feed: an updateTable request in the transcript.
        let state = state.apply(Action::SetChangeStream {
            table: table.clone(),
            retention_days: Some(1),
        });
        let last = state.console.entries.last().expect("an entry");
        assert!(last.ok, "{}", last.output);
        assert!(last.input.contains("updateTable"), "{}", last.input);
        assert_eq!(state.changes.retention_days, Some(1));
        assert!(state.changes.lines.is_empty());
        // A write typed in the console comes into the feed, newest first.
        let state = run(
            &state,
            Tab::Cbt,
            &format!("set {table} phone#1 stats_summary:os=x"),
        );
        let state = run(&state, Tab::Cbt, &format!("deleterow {table} phone#1"));
        let lines: Vec<(&str, &str)> = state
            .changes
            .lines
            .iter()
            .map(|l| (l.key.text.as_str(), l.summary.as_str()))
            .collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[1], ("phone#1", "set stats_summary:os = \"x\""));
        assert!(lines[0].1.starts_with("delete family "), "{lines:?}");
        // Turned off: the feed offers it again.
        let state = state.apply(Action::SetChangeStream {
            table,
            retention_days: None,
        });
        assert_eq!(state.changes.retention_days, None);
        assert!(state.changes.lines.is_empty());
    }

    #[test]
    fn the_demo_shows_its_rows_in_key_order() {
        let state = app();
        assert!(state.booted);
        assert_eq!(state.selected.as_deref(), Some(demo::TABLE_ID));
        assert_eq!(state.tables.len(), 1);
        assert_eq!(
            keys(&state),
            [
                "phone#4c410523#20200501",
                "phone#4c410523#20200502",
                "phone#5c10102#20200501",
                "tablet#a0b81f74#20200501"
            ]
        );
        assert!(state.rows.index.exact);
        assert_eq!(state.rows.total_rows(), 4);
        let tablets = state.tablets.as_deref().unwrap().as_ref().unwrap();
        assert_eq!(tablets.tablets.len(), 1);
        assert!(!state.has_work());
    }

    #[test]
    fn console_writes_show_up_in_the_rows_panel() {
        let state = run(
            &app(),
            Tab::Cbt,
            "set mobile-time-series phone#0 stats_summary:os_build=X",
        );
        let entry = state.console.entries.last().unwrap();
        assert!(entry.ok, "{}", entry.output);
        assert_eq!(keys(&state)[0], "phone#0");
        assert_eq!(state.rows.total_rows(), 5);
        let read = run(&state, Tab::Cbt, "read mobile-time-series prefix=phone");
        let report = read.console.last_read().unwrap();
        assert_eq!(report.rows_returned, 4);
        assert_eq!(read.data_rev, state.data_rev, "reads change nothing");
    }

    #[test]
    fn tables_are_created_and_deleted_through_the_json_protocol() {
        let request = CreateTableRequest {
            table_id: "t".into(),
            ..CreateTableRequest::default()
        };
        let state = app().apply(Action::CreateTable(request.clone()));
        assert_eq!(state.selected.as_deref(), Some("t"));
        assert_eq!(state.tables.len(), 2);
        let entry = state.console.entries.last().unwrap();
        assert_eq!(entry.source, Source::Panel("Schema"));
        assert_eq!(entry.tab, Tab::Json);
        assert!(entry.input.contains("\"createTable\""), "{}", entry.input);
        let again = state.apply(Action::CreateTable(request));
        assert!(!again.console.entries.last().unwrap().ok);
        let deleted = again.apply(Action::DeleteTable("t".into()));
        assert_eq!(deleted.tables.len(), 1);
        assert_eq!(deleted.selected.as_deref(), Some(demo::TABLE_ID));
    }

    #[test]
    fn families_change_through_modify_column_families() {
        let state = app().apply(Action::ModifyFamilies {
            table: demo::TABLE_ID.into(),
            changes: vec![FamilyChange::Drop(demo::DETAIL_FAMILY.into())],
        });
        let families: Vec<&str> = state.tables[0]
            .families
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(families, [demo::SUMMARY_FAMILY]);
    }

    #[test]
    fn compacting_collects_what_gc_allows_and_fades_it_out() {
        let state = app();
        let eligible = |s: &AppState| {
            s.rows
                .window
                .lines
                .iter()
                .flat_map(|l| &l.cells)
                .filter(|c| c.gc_eligible)
                .count()
        };
        assert_eq!(eligible(&state), 1);
        let compacted = state.apply(Action::CompactNow);
        assert_eq!(eligible(&compacted), 0);
        let (id, ghost) = compacted.rows.ghost.clone().expect("the old window fades");
        assert_eq!(ghost.lines.len(), 4);
        let output = &compacted.console.entries.last().unwrap().output;
        assert!(output.contains("GC collected 1 cell"), "{output}");
        assert!(compacted.apply(Action::GhostDone(id)).rows.ghost.is_none());
    }

    #[test]
    fn the_generator_loads_in_slices_then_indexes() {
        // 1 ms per clock reading: a 9 ms slice writes a batch or two,
        // sized to the time left and the cost per row measured so far.
        let slow = AppState::new(Rc::new(TestClock::new(NOW, 1.0)), false, Panels::default())
            .apply(Action::Boot(Boot::Demo));
        let mut state = slow.apply(Action::SetGenerator(GeneratorSpec {
            table: "gen".into(),
            rows: 40_000,
            seed: 5,
        }));
        state = state.apply(Action::StartGenerator);
        assert_eq!(state.selected.as_deref(), Some("gen"));
        let mut frames = 0;
        while state.has_work() {
            state = state.apply(Action::Work);
            frames += 1;
            assert!(frames < 100, "the load ends");
        }
        assert!(frames > 1, "the load took several frames");
        assert_eq!(state.rows.total_rows(), 40_000);
        assert!(state.rows.index.exact);
        assert_eq!(state.loads.len(), 1);
        assert!(!keys(&state).is_empty());
        let bottom = state.apply(Action::ScrollRows(u64::MAX));
        assert_eq!(bottom.rows.top, bottom.rows.max_top());
    }

    #[test]
    fn the_click_on_generate_writes_nothing_and_the_first_slice_brings_the_new_table() {
        let before = app();
        let started = before
            .apply(Action::SetGenerator(GeneratorSpec {
                table: "gen".into(),
                rows: 50_000,
                seed: 9,
            }))
            .apply(Action::StartGenerator);
        // The click shows the progress only: no row, no table, the panels
        // as they were.
        assert!(started.loading());
        assert_eq!(started.job.as_ref().map(|j| j.done), Some(0));
        assert!(!tables(&started.instance()).iter().any(|t| t.name == "gen"));
        assert!(Rc::ptr_eq(&started.tables, &before.tables));
        assert!(Rc::ptr_eq(&started.rows, &before.rows));
        // The next task writes the first slice; the panels then follow the
        // new table in the tasks after it, before the load's end.
        let first = started.apply(Action::Work);
        assert!(
            first
                .job
                .as_ref()
                .is_some_and(|j| j.done > 0 && !j.is_done())
        );
        assert_eq!(first.catch_up, Some(CatchUp::Tablets));
        let tablets = first.apply(Action::Work);
        assert!(tablets.tables.iter().any(|t| t.name == "gen"));
        assert!(tablets.tablets.as_deref().is_some_and(|v| v.is_ok()));
        let rows = tablets.apply(Action::Work);
        assert_eq!(rows.rows.table.as_deref(), Some("gen"));
        assert!(rows.loading());
    }

    #[test]
    fn a_load_into_the_table_on_screen_counts_its_rows_again() {
        let before = app();
        let table = before.rows.table.clone().expect("the demo shows a table");
        assert!(before.rows.index.exact);
        let shown = before.rows.total_rows();
        let mut state = before
            .apply(Action::SetGenerator(GeneratorSpec {
                table,
                rows: 20_000,
                seed: 2,
            }))
            .apply(Action::StartGenerator);
        while state.loading() || state.catch_up.is_some() {
            state = state.apply(Action::Work);
        }
        // The old index's count is no longer the table's.
        assert!(!state.rows.index.exact);
        let state = settle(state);
        assert!(state.rows.index.exact);
        assert_eq!(state.rows.total_rows(), shown + 20_000);
    }

    #[test]
    fn a_load_s_slices_and_the_panels_catching_up_take_separate_tasks() {
        // 2 ms per clock reading: a load of many slices.
        let slow = AppState::new(Rc::new(TestClock::new(NOW, 2.0)), false, Panels::default())
            .apply(Action::Boot(Boot::Demo));
        let mut state = slow
            .apply(Action::SetGenerator(GeneratorSpec {
                table: "gen".into(),
                rows: 60_000,
                seed: 3,
            }))
            .apply(Action::StartGenerator);
        let (mut slices, mut catch_ups) = (0, 0);
        while state.job.is_some() {
            let next = state.apply(Action::Work);
            let wrote = next.job.as_ref().map(|j| j.done) != state.job.as_ref().map(|j| j.done);
            let redrawn = !panels_unchanged(&state, &next);
            assert!(
                !(wrote && redrawn),
                "a slice wrote rows and redrew the panels"
            );
            slices += usize::from(wrote);
            catch_ups += usize::from(redrawn);
            state = next;
            assert!(slices + catch_ups < 1_000, "the load ends");
        }
        assert!(slices > REFRESH_EVERY_FRAMES as usize, "{slices} slices");
        assert!(
            catch_ups > 2,
            "the panels caught up mid-load too ({catch_ups})"
        );
        // When the progress goes, every panel shows the whole load.
        assert_eq!(*state.tables, tables(&state.instance()));
        let fresh = tablets_view(&state.instance(), "gen");
        assert_eq!(state.tablets.as_deref(), Some(&fresh));
        assert_eq!(state.rows.table.as_deref(), Some("gen"));
        assert_eq!(state.loads.last().map(|l| l.rows), Some(60_000));
        // The SampleRowKeys list is drawn again one task later; autosave
        // waits for that too.
        assert!(state.samples_held() && state.load_in_progress());
        let state = state.apply(Action::Work);
        assert!(!state.samples_held() && !state.load_in_progress());
        let state = settle(state);
        assert_eq!(state.rows.total_rows(), 60_000);
        assert!(state.rows.index.exact);
    }

    #[test]
    fn an_action_shares_a_running_load_s_buffers_rather_than_copying_them() {
        let state = app()
            .apply(Action::SetGenerator(GeneratorSpec {
                table: "gen".into(),
                rows: 100_000,
                seed: 5,
            }))
            .apply(Action::StartGenerator)
            .apply(Action::Work);
        let next = state.apply(Action::DismissNotice);
        let (Some(before), Some(after)) = (&state.job, &next.job) else {
            panic!("the load is still running");
        };
        assert!(after.shares_buffers_with(before));
        // The next batch still writes through the shared buffers (after
        // the panels caught up with the first slice: two tasks).
        let later = next
            .apply(Action::Work)
            .apply(Action::Work)
            .apply(Action::Work);
        assert!(later.job.as_ref().is_none_or(|j| j.done > after.done));
    }

    #[test]
    fn cancelling_keeps_what_was_written() {
        let mut state = app()
            .apply(Action::SetGenerator(GeneratorSpec {
                table: "gen".into(),
                rows: 100_000,
                seed: 5,
            }))
            .apply(Action::StartGenerator);
        state = state.apply(Action::Work).apply(Action::CancelJob);
        assert!(state.job.is_none());
        let written = state.loads[0].rows;
        assert!(written > 0 && written < 100_000, "{written}");
    }

    #[test]
    fn shared_states_rebuild_tables_data_and_screen() {
        let state = run(&app(), Tab::Cbt, "createtable other families=cf");
        let state = state
            .apply(Action::SetGenerator(GeneratorSpec {
                table: "gen".into(),
                rows: 500,
                seed: 9,
            }))
            .apply(Action::StartGenerator)
            .apply(Action::Resize(Splitter::Left, 400))
            .apply(Action::SelectTable("other".into()));
        let mut state = state;
        while state.has_work() {
            state = state.apply(Action::Work);
        }
        let shared = state.to_shared(true);
        assert!(shared.snapshot.is_none(), "too big for a link");
        assert_eq!(shared.tables.len(), 3);
        let text = share::encode(&shared);

        let mut back = AppState::new(Rc::new(TestClock::new(NOW, 0.5)), false, Panels::default())
            .apply(Action::Boot(Boot::Shared(Box::new(
                share::decode(&text).unwrap(),
            ))));
        while back.has_work() {
            back = back.apply(Action::Work);
        }
        assert_eq!(back.layout.left, 400);
        assert_eq!(back.selected.as_deref(), Some("other"));
        let names: Vec<&str> = back.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["gen", "mobile-time-series", "other"]);
        let gen_rows = |s: &AppState| {
            let mut count = tabletop_core::CountRows::default();
            s.instance
                .borrow_mut()
                .read_rows(
                    "gen",
                    &tabletop_core::ReadRowsRequest::default(),
                    &mut count,
                )
                .unwrap();
            count.rows
        };
        assert_eq!(gen_rows(&back), 500);
        // The demo's hand-written rows are not in a link once tables are big.
        assert_eq!(back.tables[1].bytes, 0);
    }

    #[test]
    fn small_states_travel_with_their_rows() {
        let state = run(
            &app(),
            Tab::Cbt,
            "set mobile-time-series 'k<img>' stats_summary:os_build=1",
        );
        let shared = state.to_shared(true);
        assert!(shared.snapshot.is_some());
        let back = AppState::new(Rc::new(TestClock::new(NOW, 0.5)), false, Panels::default())
            .apply(Action::Boot(Boot::Shared(Box::new(shared))));
        assert_eq!(keys(&back), keys(&state));
        assert!(back.to_shared(false).history.len() <= 1);
    }

    #[test]
    fn snapshots_import_and_bad_files_are_refused() {
        let state = run(&app(), Tab::Cbt, "createtable extra");
        let bytes = Rc::new(state.snapshot());
        let fresh = AppState::new(Rc::new(TestClock::new(NOW, 0.5)), false, Panels::default())
            .apply(Action::Boot(Boot::Demo));
        // Over the demo table: nothing changes until the user confirms.
        let asked = fresh.apply(Action::ImportSnapshot(
            "s.tabletop".into(),
            Rc::clone(&bytes),
        ));
        let pending = asked.pending_import.clone().expect("a confirmation");
        assert_eq!((pending.tables, pending.name.as_str()), (2, "s.tabletop"));
        assert_eq!(asked.tables.len(), 1);
        let kept = asked.apply(Action::ConfirmImport(false));
        assert!(kept.pending_import.is_none());
        assert_eq!(kept.tables.len(), 1);
        let imported = asked.apply(Action::ConfirmImport(true));
        assert_eq!(imported.tables.len(), 2);
        assert!(!imported.notice.as_ref().unwrap().error);
        assert!(imported.notice.as_ref().unwrap().text.contains("Undo"));
        // A file that is not a snapshot changes nothing.
        let refused = imported.apply(Action::ImportSnapshot(
            "x".into(),
            Rc::new(b"nope".to_vec()),
        ));
        assert!(refused.notice.as_ref().unwrap().error);
        assert!(refused.pending_import.is_none());
        assert_eq!(refused.tables.len(), 2, "nothing changed");
        // Undo brings the demo table back, rows and all.
        let undone = refused.apply(Action::UndoReplace);
        assert_eq!(undone.tables.len(), 1);
        assert_eq!(undone.rows.total_rows(), 4);
        assert!(undone.replaced.is_none());
        // Into an empty playground a snapshot goes at once, with nothing to undo.
        let empty = run(&fresh, Tab::Cbt, "deletetable mobile-time-series");
        assert!(empty.tables.is_empty());
        let direct = empty.apply(Action::ImportSnapshot("s".into(), bytes));
        assert_eq!(direct.tables.len(), 2);
        assert!(direct.pending_import.is_none() && direct.replaced.is_none());
    }

    #[test]
    fn a_link_opened_over_work_sets_it_aside_for_an_undo() {
        let state = run(&app(), Tab::Cbt, "createtable mine");
        let link = SharedState {
            tables: vec![serde_json::json!({"tableId": "theirs"})],
            ..SharedState::default()
        };
        let opened = state.apply(Action::OpenLink(Box::new(link)));
        let names: Vec<&str> = opened.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["theirs"]);
        let aside = opened.replaced.as_ref().expect("the earlier work is kept");
        assert_eq!(aside.tables, 2);
        // It travels in autosave, not in links.
        assert!(opened.to_shared(false).replaced.is_some());
        assert!(opened.to_shared(true).replaced.is_none());
        let back = opened.apply(Action::UndoReplace);
        let names: Vec<&str> = back.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["mine", "mobile-time-series"]);
        assert_eq!(back.selected, state.selected);
        assert_eq!(back.rows.total_rows(), 4, "the demo's rows came back");
        let forgotten = opened.apply(Action::ForgetReplaced);
        assert!(forgotten.replaced.is_none());
    }

    #[test]
    fn booting_again_replaces_everything() {
        let state =
            run(&app(), Tab::Cbt, "createtable extra").apply(Action::Resize(Splitter::Left, 500));
        assert_eq!(state.tables.len(), 2);
        let shared = SharedState {
            tables: vec![serde_json::json!({"tableId": "only"})],
            ..SharedState::default()
        };
        let again = state.apply(Action::Boot(Boot::Shared(Box::new(shared))));
        let names: Vec<&str> = again.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["only"]);
        assert_eq!(again.selected.as_deref(), Some("only"));
        assert_eq!(again.layout, Layout::default());
        let broken = SharedState {
            snapshot: Some("AAAA".into()),
            ..SharedState::default()
        };
        let refused = again.apply(Action::Boot(Boot::Shared(Box::new(broken))));
        assert!(refused.notice.as_ref().unwrap().error);
        assert!(refused.tables.is_empty());
    }

    #[test]
    fn layout_and_embed_panels() {
        let state = AppState::new(
            Rc::new(TestClock::new(NOW, 0.5)),
            true,
            Panels::parse("rows,console"),
        );
        assert!(state.embed && !state.panels.has(PanelId::Schema));
        let resized = state.apply(Action::Resize(Splitter::Bottom, 10));
        assert_eq!(resized.layout.bottom, 120);
        assert_eq!(resized.apply(Action::ResetLayout).layout, Layout::default());
    }

    #[test]
    fn an_old_links_default_widths_open_at_todays_defaults() {
        let old = share::SharedState {
            layout: Layout {
                left: 300,
                right: 420,
                bottom: 270,
                tablets: 170,
            },
            ..share::SharedState::default()
        };
        let booted = app().apply(Action::Boot(Boot::Shared(Box::new(old))));
        let today = Layout::default();
        assert_eq!(
            booted.layout,
            Layout {
                left: today.left,
                right: today.right,
                bottom: 270,
                tablets: 170
            }
        );
    }

    #[test]
    fn a_panel_can_be_maximized_and_restored() {
        let state = app();
        let big = state.apply(Action::Maximize(Some(PanelId::KeyVisualizer)));
        assert_eq!(big.maximized, Some(PanelId::KeyVisualizer));
        assert_eq!(big.apply(Action::Maximize(None)).maximized, None);
        assert_eq!(big.apply(Action::ResetLayout).maximized, None);
        // An embed cannot maximize a panel it does not show.
        let embed = AppState::new(
            Rc::new(TestClock::new(NOW, 0.5)),
            true,
            Panels::parse("rows,console"),
        );
        let refused = embed.apply(Action::Maximize(Some(PanelId::Schema)));
        assert_eq!(refused.maximized, None);
    }

    #[test]
    fn a_message_expires_unless_another_took_its_place() {
        let created = app().apply(Action::CreateTable(CreateTableRequest {
            table_id: "t".into(),
            ..CreateTableRequest::default()
        }));
        let first = created
            .notice
            .clone()
            .expect("the table's creation is told");
        assert!(!first.error);
        assert_eq!(first.lifetime_ms(), NOTICE_MS);
        assert!(
            created
                .apply(Action::ExpireNotice(first.clone()))
                .notice
                .is_none()
        );
        let problem = Notice {
            error: true,
            text: "nope".into(),
        };
        assert!(problem.lifetime_ms() > NOTICE_MS, "problems stay longer");
        let replaced = created.apply(Action::Notify(problem.clone()));
        let still = replaced.apply(Action::ExpireNotice(first));
        assert_eq!(still.notice, Some(problem), "the newer message stays");
    }

    #[test]
    fn huge_commands_stay_in_history_but_not_in_autosave() {
        let huge = format!(
            "set mobile-time-series k stats_summary:q={}",
            "v".repeat(1 << 20)
        );
        let state = run(&run(&app(), Tab::Cbt, &huge), Tab::Cbt, "ls");
        assert_eq!(state.console.history.len(), 2);
        let saved: Vec<String> = state
            .to_shared(false)
            .history
            .into_iter()
            .map(|(_, text)| text)
            .collect();
        assert_eq!(saved, ["ls"]);
        let back = state
            .apply(Action::ConsoleHistory(true))
            .apply(Action::ConsoleHistory(true));
        assert_eq!(back.console.input(), huge, "Up still brings it back");
    }

    #[test]
    fn states_share_one_instance_and_differ_by_revision() {
        let first = app();
        let second = first.apply(Action::DismissNotice);
        assert!(Rc::ptr_eq(&first.instance, &second.instance));
        assert_ne!(first, second);
        assert_eq!(second.rev(), first.rev() + 1);
    }
}
