//! The live Key Visualizer slice: the selected real table's recorded
//! traffic ([`LiveKeyViz`]) drawn with the simulation's map, metrics and
//! findings, and which of the two the Key Visualizer panel shows.
//!
//! Building a [`LiveKeyViz`] reads the whole table, so it is never done
//! while drawing, and never in one piece for a table of any size: a
//! [`LiveBuild`] reads the table in steps of a few milliseconds, one
//! slice per frame ([`SLICE_MS`]), while the previous map stays on screen
//! and a quiet line says the table is being read. After every
//! action the state compares a cheap [`Signature`] of the table (its
//! name, the data revision and the newest traffic bucket's totals) with
//! the one the map was built from; only when they differ, and only while
//! the live map is on screen, is it rebuilt: at once when the last build
//! was cheap, otherwise after a gap as long as the last build's work (at
//! least [`MIN_GAP_MS`]), and not during a data load when a build costs
//! more than a frame's share. A build under way starts again when the
//! table's data changes under it. When only the traffic changed (same
//! table, same data revision, as after a read), the map is refreshed
//! instead ([`LiveKeyViz::refresh_traffic`]): the new traffic is laid on
//! the last build's key axis without reading the table. Changing the
//! metric, scale, buckets or zoom rebuilds only the map, from the
//! table's traffic as last read.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use tabletop_core::Instance;
use tabletop_core::keyviz::{
    BucketMode, ColorScale, Diagnostic, LiveBuild, LiveKeyViz, LiveOptions, LiveReport, LiveTablet,
    LiveTotals, Metric,
};

use crate::view_model::keyviz::{KeyVizSettings, MapData, build_map, clamp_zoom};

/// Which Key Visualizer the panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KvView {
    /// The real tables' recorded traffic.
    Live,
    /// The simulated cluster running the current design.
    Simulation,
    /// Two row-key designs on one workload, side by side.
    Ab,
}

/// A rebuild this cheap (ms) is done in the action that made it due.
const INLINE_BUILD_MS: f64 = 4.0;
/// Least time between two rebuilds that follow each other (ms).
pub const MIN_GAP_MS: f64 = 250.0;
/// A refresh (one piece) waits this many times its own cost before the
/// next: at most a tenth of the time goes to refreshing.
const GAP_PER_REFRESH_COST: f64 = 9.0;
/// During a data load, builds dearer than this (ms) wait for its end.
const LOAD_BUILD_MS: f64 = 12.0;
/// Time a build may take in one frame (ms): the reading stops at the
/// first step that ends past it, and goes on in the next frame.
pub const SLICE_MS: f64 = 6.0;
/// Cells the first step of a build reads, before a rate was measured.
const FIRST_STEP_CELLS: u64 = 2048;
/// Fewest and most cells one step reads.
const MIN_STEP_CELLS: u64 = 256;
const MAX_STEP_CELLS: u64 = 1 << 16;
/// Steps shorter than this (ms) are not timed: a browser's clock is
/// coarse (0.1 ms or worse), so their rate would be noise. The next step
/// reads twice as many cells instead.
const TIMED_STEP_MS: f64 = 1.0;
/// Builds of tables at least this big (bytes) measure what a byte costs.
const RATE_FROM_BYTES: u64 = 256 * 1024;
/// What a build costs per byte before one was measured (ms): about 4 ms
/// per MiB of table, a little above what a laptop takes (a 100,000-row
/// sample table holds about 18 MiB).
const DEFAULT_MS_PER_BYTE: f64 = 4.0 / (1024.0 * 1024.0);

/// What the live map was built from: the table, the data revision and a
/// fingerprint of its traffic. Equal signatures mean an equal map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    /// The table shown.
    pub table: Option<String>,
    /// The app's data revision.
    pub data_rev: u64,
    /// [`traffic_print`] of the table.
    pub traffic: u64,
    /// Logical bytes the table holds (what a build's cost grows with).
    pub bytes: u64,
}

/// A fingerprint of a table's traffic log: the number of time buckets,
/// the newest one's start and totals. Every recorded operation adds to
/// the newest bucket's counts (or opens a new one), so it changes the
/// print. `0` for a table that does not exist.
pub fn traffic_print(db: &Instance, table: &str) -> u64 {
    let Ok(traffic) = db.traffic(table) else {
        return 0;
    };
    let mut h = Fnv::default();
    let mut buckets = 0u64;
    let mut last = None;
    for b in traffic.buckets() {
        buckets += 1;
        last = Some(b);
    }
    h.add(buckets);
    if let Some(b) = last {
        h.add(b.start_micros as u64);
        for v in b.totals().to_array() {
            h.add(u64::from(v.to_bits()));
        }
    }
    h.0
}

/// The prints of every table in `tables`, combined: it changes whenever
/// any table records an operation.
pub fn instance_print<'a>(db: &Instance, tables: impl Iterator<Item = &'a str>) -> u64 {
    let mut h = Fnv::default();
    for t in tables {
        h.add(traffic_print(db, t));
    }
    h.0
}

/// FNV-1a over 64-bit words.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// What the panel says above the live map.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveSummary {
    /// Rows stored now.
    pub rows: f64,
    /// The table's tablets on the map's key axis.
    pub tablets: Rc<Vec<LiveTablet>>,
    /// What the recorded operations did.
    pub totals: LiveTotals,
    /// Seconds of the instance clock the map covers.
    pub seconds: f64,
}

impl LiveSummary {
    /// Whether any operation was recorded.
    pub fn has_traffic(&self) -> bool {
        self.totals.point_ops + self.totals.scans > 0.0
    }
}

/// What this slice holds.
#[derive(Clone, Default)]
pub struct LiveState {
    /// The view the person picked (`None`: chosen by [`LiveState::shown`]).
    pub choice: Option<KvView>,
    /// Whether operations were recorded on a real table since the page
    /// started (then, without a simulation, the live view is the default).
    pub active: bool,
    /// The live map's settings (apart from the simulation's).
    pub keyviz: KeyVizSettings,
    /// Nodes the table's tablets are given to (`None`: a scenario's
    /// default cluster, [`LiveState::nodes`]).
    pub nodes_set: Option<u32>,
    /// Whether the live findings are unfolded.
    pub findings_open: bool,
    /// The table the map shows.
    pub table: Option<String>,
    /// The map, once built.
    pub map: Option<Rc<MapData>>,
    /// The findings on the table's traffic.
    pub diagnostics: Rc<Vec<Diagnostic>>,
    /// Rows, tablets and totals of the last build.
    pub summary: Option<LiveSummary>,
    /// The selected table's tablets on the nodes picked, for the Tablets
    /// panel, whether or not the map was built ([`super::placement`]).
    pub placement: Option<super::placement::Placement>,
    /// Why the table's traffic could not be read.
    pub error: Option<String>,
    /// What the last build (its slices' work, summed) or refresh cost
    /// (ms), shown to the performance test.
    pub build_ms: f64,
    /// The longest slice of the last build (ms): what it held one frame.
    pub slice_ms: f64,
    /// From the first slice of the last build to its end (ms, the app
    /// clock's).
    pub build_wall_ms: f64,
    /// Builds and refreshes done (for tests and the performance test).
    pub builds: u64,
    /// How many of [`LiveState::builds`] were refreshes of the traffic
    /// alone (the table was not read).
    pub refreshes: u64,
    /// What the last full build cost (ms).
    full_ms: f64,
    /// What the last refresh cost (ms), once one was done.
    refresh_ms: Option<f64>,
    /// What a build cost per byte of table, lately (ms).
    ms_per_byte: Option<f64>,
    /// Cells the next step of a build reads.
    step_cells: u64,
    /// The build under way, if one is.
    job: Option<Job>,
    /// The person asked for the map to be brought up to date (without
    /// waiting for a gap or a load's end).
    update_asked: bool,
    engine: Option<Rc<LiveKeyViz>>,
    built: Option<Signature>,
    /// The latest signature seen, when it differs from `built`.
    stale: Option<Signature>,
    /// [`instance_print`] when the page started.
    baseline: Option<u64>,
    /// No rebuild before this time (ms, the app clock's).
    next_at: f64,
    rev: u64,
}

impl PartialEq for LiveState {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev
    }
}

impl fmt::Debug for LiveState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveState")
            .field("rev", &self.rev)
            .field("table", &self.table)
            .field("choice", &self.choice)
            .field("active", &self.active)
            .finish_non_exhaustive()
    }
}

/// A build under way: the [`LiveBuild`] (shared by the states that
/// follow each other, as the instance is) and what its slices cost.
#[derive(Clone)]
struct Job {
    /// The table and data revision it reads.
    table: Option<String>,
    data_rev: u64,
    /// The table's logical size when it started (for the progress).
    bytes: u64,
    build: Rc<RefCell<LiveBuild>>,
    /// When its first slice started (ms, the app clock's).
    started_at: f64,
    /// Its slices' time, summed, and the longest (ms).
    work_ms: f64,
    slice_ms: f64,
}

impl Job {
    fn new(table: &str, sig: &Signature, opts: &LiveOptions, now_ms: f64) -> Job {
        Job {
            table: Some(table.to_string()),
            data_rev: sig.data_rev,
            bytes: sig.bytes,
            build: Rc::new(RefCell::new(LiveBuild::new(table, opts))),
            started_at: now_ms,
            work_ms: 0.0,
            slice_ms: 0.0,
        }
    }

    /// The empty job of a map with no table to read.
    fn idle(now_ms: f64) -> Job {
        Job {
            table: None,
            data_rev: 0,
            bytes: 0,
            build: Rc::new(RefCell::new(LiveBuild::new("", &LiveOptions::default()))),
            started_at: now_ms,
            work_ms: 0.0,
            slice_ms: 0.0,
        }
    }

    /// Whether it reads the data `sig` stands for (its traffic may have
    /// moved on: the build reads that at its end).
    fn follows(&self, sig: &Signature) -> bool {
        self.table == sig.table && self.data_rev == sig.data_rev
    }

    fn cells_read(&self) -> u64 {
        self.build.borrow().cells_read()
    }

    /// How far the reading has come (0 to 1; the table's size is an
    /// estimate, so it stops short of 1 until the build ends).
    fn progress(&self) -> f64 {
        let read = self.build.borrow().bytes_read() as f64;
        (read / self.bytes.max(1) as f64).clamp(0.0, 0.99)
    }

    fn add_slice(&mut self, ms: f64) {
        let ms = ms.max(0.0);
        self.work_ms += ms;
        self.slice_ms = self.slice_ms.max(ms);
    }
}

/// What the live Key Visualizer keeps in a share link or autosave.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LiveShared {
    /// The view the person picked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<KvView>,
    /// Whether operations had been recorded on a real table.
    pub active: bool,
    /// The live map's settings.
    pub keyviz: KeyVizSettings,
    /// The node count picked for the table's tablets, if not the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
}

/// The settings both Key Visualizers share: what the toolbar, the legend,
/// the map and the findings ask for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MapAction {
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
    /// Unfold (`true`) or fold the findings.
    ShowFindings(bool),
}

/// What this slice does.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveAction {
    /// Show this view (and remember the choice).
    Show(KvView),
    /// A setting of the live map.
    Map(MapAction),
    /// Bring the map up to date now, however long it takes.
    Update,
    /// Give the table's tablets to this many nodes (1 to [`MAX_NODES`]).
    Nodes(u32),
}

/// Most nodes the live view offers (the simulator allows 1,000; a
/// playground table has a handful of tablets).
pub const MAX_NODES: u32 = 30;

impl LiveState {
    /// The view the panel shows: the person's choice, else the live one
    /// once they have worked on a real table and no simulation is loaded,
    /// else the simulation (with its scenario picker).
    pub fn shown(&self, sim_loaded: bool) -> KvView {
        self.choice.unwrap_or(if self.active && !sim_loaded {
            KvView::Live
        } else {
            KvView::Simulation
        })
    }

    /// The revision (for components' memo keys).
    pub fn rev(&self) -> u64 {
        self.rev
    }

    /// Nodes the table's tablets are given to: the person's pick, else a
    /// scenario's default cluster.
    pub fn nodes(&self) -> u32 {
        self.nodes_set
            .unwrap_or_else(|| LiveOptions::default().nodes)
    }

    /// The options a live build uses.
    fn options(&self) -> LiveOptions {
        LiveOptions {
            nodes: self.nodes(),
            ..LiveOptions::default()
        }
    }

    /// Whether the map is behind the table (it is rebuilt in coming
    /// frames, or once a data load ends).
    pub fn is_stale(&self) -> bool {
        self.stale.is_some()
    }

    /// How far the build under way has read the table (0 to 1), if one
    /// is under way.
    pub fn building(&self) -> Option<f64> {
        self.job.as_ref().map(Job::progress)
    }

    /// Applies an action of this slice.
    pub(crate) fn reduce(&mut self, action: LiveAction) {
        self.rev += 1;
        match action {
            LiveAction::Show(view) => self.choice = Some(view),
            LiveAction::Update => self.update_asked = true,
            LiveAction::Nodes(n) => {
                let n = n.clamp(1, MAX_NODES);
                self.nodes_set = (n != LiveOptions::default().nodes).then_some(n);
                self.place_on_nodes();
            }
            LiveAction::Map(action) => {
                match action {
                    MapAction::Metric(m) => self.keyviz.metric = m,
                    MapAction::Scale(s) => self.keyviz.scale = s,
                    MapAction::Mode(m) => self.keyviz.mode = m,
                    MapAction::Zoom(z) => self.keyviz.zoom = z,
                    MapAction::ShowTable(on) => self.keyviz.table = on,
                    MapAction::ShowFindings(open) => self.findings_open = open,
                }
                if matches!(
                    action,
                    MapAction::Metric(_) | MapAction::Mode(_) | MapAction::Zoom(_)
                ) {
                    self.rebuild_map();
                }
            }
        }
    }

    /// A fresh start (the page booted): nothing built, and the traffic
    /// there is when the boot is over is not the person's own work (the
    /// next [`LiveState::observe_activity`] takes it as the baseline).
    pub(crate) fn restart(&mut self) {
        *self = LiveState {
            rev: self.rev + 1,
            ..LiveState::default()
        };
    }

    /// Notes the instance's traffic print: a change from the one at boot
    /// means the person worked on a real table. Returns whether anything
    /// changed.
    pub(crate) fn observe_activity(&mut self, print: u64) -> bool {
        match self.baseline {
            None => {
                self.baseline = Some(print);
                false
            }
            Some(b) if b != print && !self.active => {
                self.active = true;
                self.rev += 1;
                true
            }
            Some(_) => false,
        }
    }

    /// Notes the table's current signature; returns whether the map is
    /// now behind it. A build under way of other data than `sig`'s is
    /// dropped: the next one starts from the table as it is.
    pub(crate) fn observe(&mut self, sig: Signature) -> bool {
        if self.built.as_ref() == Some(&sig) {
            self.stale = None;
        } else if self.stale.as_ref() != Some(&sig) {
            self.stale = Some(sig);
        }
        let follows = |job: &Job| self.stale.as_ref().is_some_and(|s| job.follows(s));
        if self.job.as_ref().is_some_and(|job| !follows(job)) {
            self.job = None;
            self.rev += 1;
        }
        self.stale.is_some()
    }

    /// What a build of a table of `bytes` is expected to cost (ms), from
    /// the last measured cost per byte.
    pub fn estimate_ms(&self, bytes: u64) -> f64 {
        self.ms_per_byte.unwrap_or(DEFAULT_MS_PER_BYTE) * bytes as f64
    }

    /// Whether the map can follow `sig` by a refresh of its traffic: the
    /// same table at the same data revision as the last build, which gave
    /// a map (so its key axis still holds).
    fn traffic_only(&self, sig: &Signature) -> bool {
        self.engine.is_some()
            && self
                .built
                .as_ref()
                .is_some_and(|b| b.table == sig.table && b.data_rev == sig.data_rev)
    }

    /// Whether a rebuild (or its next slice) may run now (`now_ms` on the
    /// app clock), given whether rows are being written in bulk.
    pub(crate) fn due(&self, now_ms: f64, loading: bool) -> bool {
        let Some(stale) = &self.stale else {
            return false;
        };
        if self.update_asked {
            return true;
        }
        if self.job.is_none() && self.traffic_only(stale) {
            // A refresh costs no more than a build: until one was timed,
            // the last build's cost stands for it.
            let cost = self.refresh_ms.unwrap_or(self.full_ms);
            return cost <= INLINE_BUILD_MS || now_ms >= self.next_at;
        }
        if loading && self.full_ms.max(self.estimate_ms(stale.bytes)) > LOAD_BUILD_MS {
            return false;
        }
        self.job.is_some()
            || self.built.is_none()
            || self.full_ms <= INLINE_BUILD_MS
            || now_ms >= self.next_at
    }

    /// Lays the table's new traffic on the map's key axis without reading
    /// the table (the data did not change since the last build).
    fn refresh(&mut self, db: &Instance, sig: Signature, now_ms: &dyn Fn() -> f64) {
        let started = now_ms();
        self.rev += 1;
        self.builds += 1;
        self.refreshes += 1;
        self.error = None;
        if let Some(engine) = self.engine.as_mut() {
            let live = Rc::make_mut(engine);
            match live.refresh_traffic(db) {
                Ok(()) => {
                    let report = live.report(None);
                    self.show_report(report);
                }
                Err(e) => self.show_error(e.to_string()),
            }
        }
        self.built = Some(sig);
        self.update_asked = false;
        let ended = now_ms();
        self.build_ms = (ended - started).max(0.0);
        self.slice_ms = self.build_ms;
        self.build_wall_ms = self.build_ms;
        self.refresh_ms = Some(self.build_ms);
        self.next_at = ended + MIN_GAP_MS.max(self.build_ms * GAP_PER_REFRESH_COST);
    }

    /// Forgets the map, which could not be built: `message` says why.
    fn show_error(&mut self, message: String) {
        self.error = Some(message);
        self.engine = None;
        self.map = None;
        self.summary = None;
        self.diagnostics = Rc::default();
    }

    /// Shows the live engine's fresh `report`: the summary line, the
    /// diagnostics and the map drawn from the engine.
    fn show_report(&mut self, report: LiveReport) {
        self.summary = Some(LiveSummary {
            rows: report.rows,
            tablets: Rc::new(report.tablets),
            totals: report.totals,
            seconds: report.bucket_seconds * report.time_buckets as f64,
        });
        self.diagnostics = Rc::new(report.diagnostics);
        self.rebuild_map();
    }

    /// Brings the map closer to the stale signature's table in `db`, for
    /// about [`SLICE_MS`] (timed with `now_ms`): a refresh of the traffic
    /// when only that changed, else the next steps of a build (started
    /// here if none is under way), and, at the build's last step, the new
    /// map. Until then the previous map stays. During a data load
    /// (`loading`), whose every slice changes the data, a cheap build (the
    /// only kind due there unless asked for, [`LiveState::due`]) is done
    /// whole: in slices it would start over at every one of the load's.
    pub(crate) fn rebuild(&mut self, db: &mut Instance, now_ms: &dyn Fn() -> f64, loading: bool) {
        let Some(sig) = self.stale.clone() else {
            return;
        };
        if self.job.is_none() && self.traffic_only(&sig) {
            self.stale = None;
            self.refresh(db, sig, now_ms);
            return;
        }
        let started = now_ms();
        let Some(table) = sig.table.clone() else {
            self.job = None;
            self.finish(sig, None, Job::idle(started), started, now_ms);
            return;
        };
        let whole = loading && self.full_ms.max(self.estimate_ms(sig.bytes)) <= LOAD_BUILD_MS;
        // The panel is drawn again when a build starts (to say so) and
        // when it ends, not at every slice: with thousands of tablets one
        // drawing of the map costs more than a slice.
        let mut job = match self.job.take() {
            Some(job) if job.follows(&sig) => job,
            _ => {
                self.rev += 1;
                Job::new(&table, &sig, &self.options(), started)
            }
        };
        let done = loop {
            let budget = self.step_cells();
            let before = job.cells_read();
            let t0 = now_ms();
            let step = job.build.borrow_mut().step(db, budget);
            let t1 = now_ms();
            self.note_rate(job.cells_read() - before, t1 - t0);
            match step {
                Ok(None) if whole || self.goes_on(&job, t1 - started) => {}
                Ok(None) => break None,
                Ok(Some(live)) => break Some(Ok(live)),
                Err(e) => break Some(Err(e.to_string())),
            }
        };
        match done {
            None => {
                job.add_slice(now_ms() - started);
                self.job = Some(job);
            }
            Some(result) => {
                self.stale = None;
                self.finish(sig, Some(result), job, started, now_ms);
            }
        }
    }

    /// Whether a build that has run `elapsed` ms in this frame takes
    /// another step in it: reading goes on until [`SLICE_MS`]; the last
    /// step (laying the traffic over the keys read, which costs more the
    /// larger the table) starts in the first half of a frame, or at once
    /// for a small table, whose last step is cheap.
    fn goes_on(&self, job: &Job, elapsed: f64) -> bool {
        if job.build.borrow().has_read_all() {
            job.bytes < RATE_FROM_BYTES || elapsed < SLICE_MS / 2.0
        } else {
            elapsed < SLICE_MS
        }
    }

    /// Cells the next step of a build reads.
    fn step_cells(&self) -> u64 {
        if self.step_cells == 0 {
            FIRST_STEP_CELLS
        } else {
            self.step_cells
        }
    }

    /// Notes that a step read `cells` cells in `ms`: the next reads about
    /// half a slice's worth at that rate, or, when the step was too short
    /// to time, twice as many.
    fn note_rate(&mut self, cells: u64, ms: f64) {
        if cells < MIN_STEP_CELLS {
            return;
        }
        let next = if ms < TIMED_STEP_MS {
            cells.saturating_mul(2)
        } else {
            (cells as f64 / ms * SLICE_MS / 2.0) as u64
        };
        self.step_cells = next.clamp(MIN_STEP_CELLS, MAX_STEP_CELLS);
    }

    /// Shows what a finished build gave (`None`: no table is selected)
    /// and notes what it cost, its last slice having started at
    /// `started`.
    fn finish(
        &mut self,
        sig: Signature,
        result: Option<Result<LiveKeyViz, String>>,
        mut job: Job,
        started: f64,
        now_ms: &dyn Fn() -> f64,
    ) {
        self.rev += 1;
        self.builds += 1;
        if self.table != sig.table {
            self.keyviz.zoom = None;
            self.refresh_ms = None;
        }
        self.table.clone_from(&sig.table);
        self.error = None;
        match result {
            Some(Ok(live)) => {
                let report = live.report(None);
                self.engine = Some(Rc::new(live));
                self.show_report(report);
            }
            Some(Err(e)) => self.show_error(e),
            None => {
                self.engine = None;
                self.map = None;
                self.summary = None;
                self.diagnostics = Rc::default();
            }
        }
        let bytes = sig.bytes;
        self.built = Some(sig);
        self.update_asked = false;
        let ended = now_ms();
        job.add_slice(ended - started);
        self.build_ms = job.work_ms;
        self.slice_ms = job.slice_ms;
        self.build_wall_ms = (ended - job.started_at).max(0.0);
        self.full_ms = job.work_ms;
        // Small tables cost mostly the fixed part of a build: only larger
        // ones tell what a byte costs.
        if bytes >= RATE_FROM_BYTES {
            self.ms_per_byte = Some(job.work_ms / bytes as f64);
        }
        self.next_at = ended + MIN_GAP_MS.max(job.work_ms);
    }

    /// Gives the tablets to the nodes picked again, without reading the
    /// table: the map and its cells name the new nodes.
    fn place_on_nodes(&mut self) {
        let nodes = self.nodes();
        if let Some(engine) = self.engine.as_mut() {
            let live = Rc::make_mut(engine);
            live.set_nodes(nodes);
            let report = live.report(None);
            self.show_report(report);
        }
    }

    /// Rebuilds the map from the traffic last read (the settings changed).
    fn rebuild_map(&mut self) {
        if let Some(engine) = &self.engine {
            self.keyviz.zoom =
                clamp_zoom(self.keyviz.zoom, engine.recorder().fine_buckets() as u32);
            self.map = Some(Rc::new(build_map(&**engine, &self.keyviz)));
        }
    }

    /// What a share link or autosave keeps.
    pub(crate) fn shared(&self) -> LiveShared {
        LiveShared {
            view: self.choice,
            active: self.active,
            keyviz: self.keyviz,
            nodes: self.nodes_set,
        }
    }

    /// Takes a share link's or autosave's choice and settings.
    pub(crate) fn take_shared(&mut self, shared: &LiveShared) {
        self.choice = shared.view;
        self.active = shared.active;
        self.keyviz = shared.keyviz;
        self.nodes_set = shared.nodes.map(|n| n.clamp(1, MAX_NODES));
        self.rev += 1;
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::state::console::Tab;
    use crate::state::layout::Panels;
    use crate::state::sim::SimAction;
    use crate::state::{Action, AppState, Boot, Clock, TestClock, run_console, settle, test_app};
    use crate::view_model::keyviz::cell_info;

    const NOW: i64 = 1_700_000_000_000_000;

    fn run(state: &AppState, text: &str) -> AppState {
        run_console(state, Tab::Cbt, text)
    }

    /// Rows of the map whose keys start with `prefix`, and the others,
    /// with their values in the last column.
    fn lit(map: &MapData, prefix: &str) -> (Vec<f32>, Vec<f32>) {
        let last = map.time_filled - 1;
        let (mut inside, mut outside) = (Vec::new(), Vec::new());
        for row in 0..map.rows() {
            let info = cell_info(map, row, last).unwrap();
            let v = map.value(row, last);
            if info.key_start.starts_with(prefix) {
                inside.push(v);
            } else {
                outside.push(v);
            }
        }
        (inside, outside)
    }

    #[test]
    fn the_simulation_is_shown_until_the_person_works_on_a_table() {
        let state = test_app();
        assert!(
            !state.live.active,
            "the demo's own rows are not the person's work"
        );
        assert_eq!(state.live.shown(false), KvView::Simulation);
        assert_eq!(state.live.builds, 0, "nothing is built off screen");
        let read = run(&state, "read mobile-time-series prefix=phone#4c41");
        assert!(read.live.active);
        assert_eq!(read.live.shown(read.sim.loaded()), KvView::Live);
        assert!(read.live_shown());
        // A scenario picked is shown on the simulated cluster.
        let picked = read.apply(Action::Sim(SimAction::PickScenario(
            "mobile_timestamp_first.toml".into(),
        )));
        assert_eq!(picked.live.shown(picked.sim.loaded()), KvView::Simulation);
        // The person's choice wins, and travels in links and autosave.
        let chosen = picked.apply(Action::Live(LiveAction::Show(KvView::Live)));
        assert_eq!(chosen.live.shown(true), KvView::Live);
        let shared = chosen.to_shared(true);
        assert_eq!(shared.live.as_ref().unwrap().view, Some(KvView::Live));
        let back = AppState::new(Rc::new(TestClock::new(NOW, 0.5)), false, Panels::default())
            .apply(Action::Boot(Boot::Shared(Box::new(shared))));
        assert!(back.live_shown());
    }

    #[test]
    fn the_tablets_panel_follows_the_key_visualizers_choice() {
        use crate::state::sim::TabletsView;
        let picked = test_app().apply(Action::Sim(SimAction::PickScenario(
            "mobile_timestamp_first.toml".into(),
        )));
        assert_eq!(picked.sim.tablets_view, TabletsView::Simulation);
        let live = picked.apply(Action::Live(LiveAction::Show(KvView::Live)));
        assert_eq!(live.sim.tablets_view, TabletsView::Table);
        let ab = live.apply(Action::Live(LiveAction::Show(KvView::Ab)));
        assert_eq!(ab.sim.tablets_view, TabletsView::Table, "A/B leaves it");
        let sim = ab.apply(Action::Live(LiveAction::Show(KvView::Simulation)));
        assert_eq!(sim.sim.tablets_view, TabletsView::Simulation);
    }

    #[test]
    fn a_prefix_read_lights_only_its_keys() {
        let state = settle(run(
            &test_app(),
            "read mobile-time-series prefix=phone#4c41",
        ));
        assert!(state.live.builds >= 1);
        let summary = state.live.summary.as_ref().unwrap();
        assert!(summary.has_traffic());
        assert_eq!(summary.totals.read_rows, 2.0);
        assert_eq!(
            summary.totals.write_rows, 4.0,
            "the demo's rows were written"
        );
        let state = state.apply(Action::Live(LiveAction::Map(MapAction::Metric(
            Metric::ReadRows,
        ))));
        let map = state.live.map.as_ref().unwrap();
        assert_eq!(map.metric, Metric::ReadRows);
        assert!(map.origin_micros.is_some());
        let (inside, outside) = lit(map, "phone#4c41");
        // Both rows under the prefix were read (a bucket there may hold no
        // row: the read's own start key cuts the axis).
        assert_eq!(inside.iter().filter(|v| **v > 0.0).count(), 2, "{inside:?}");
        assert!(outside.iter().all(|v| *v == 0.0), "{outside:?}");
        // The times are on the instance clock.
        let info = cell_info(map, 0, 0).unwrap();
        assert!(info.time.ends_with(" UTC"), "{}", info.time);
        // Each cell names its tablet and the rows stored under it.
        let tablet = state.live.summary.as_ref().unwrap().tablets[0].id;
        let place = info.place.unwrap();
        assert!(
            place.starts_with(&format!("tablet #{tablet} on node 0, ")),
            "{place}"
        );
        assert_eq!(map.stored_rows.iter().sum::<f64>(), 4.0);
        let last = map.rows() - 1;
        let last_place = cell_info(map, last, 0).unwrap().place.unwrap();
        assert!(last_place.ends_with(" 1 row stored"), "{last_place}");
    }

    #[test]
    fn the_map_is_rebuilt_only_when_the_table_changed() {
        let state = settle(run(&test_app(), "read mobile-time-series prefix=phone"));
        let builds = state.live.builds;
        let map = Rc::clone(state.live.map.as_ref().unwrap());
        // Actions that touch no data, and the Rows panel reading its
        // window, leave the map as it is.
        let mut still = state
            .apply(Action::DismissNotice)
            .apply(Action::ScrollRows(2))
            .apply(Action::ToggleRow(b"phone#4c410523#20200501".to_vec()))
            .apply(Action::Work);
        still = settle(still);
        assert_eq!(still.live.builds, builds);
        assert!(Rc::ptr_eq(still.live.map.as_ref().unwrap(), &map));
        // A scale changes only the painting; a metric rebuilds the map from
        // the traffic already read.
        let scaled = still.apply(Action::Live(LiveAction::Map(MapAction::Scale(
            ColorScale::Absolute,
        ))));
        assert!(Rc::ptr_eq(scaled.live.map.as_ref().unwrap(), &map));
        let metric = scaled.apply(Action::Live(LiveAction::Map(MapAction::Metric(
            Metric::WriteRows,
        ))));
        assert_eq!(metric.live.builds, builds, "no new read of the table");
        assert!(!Rc::ptr_eq(metric.live.map.as_ref().unwrap(), &map));
        // Another read is new traffic: the map follows.
        let again = settle(run(&metric, "read mobile-time-series prefix=tablet"));
        assert_eq!(again.live.builds, builds + 1);
        assert_eq!(
            again.live.refreshes,
            state.live.refreshes + 1,
            "a read changes no rows: the traffic is laid on the same keys"
        );
        assert_eq!(again.live.summary.as_ref().unwrap().totals.read_rows, 4.0);
        // A write changes the data: a full build.
        let written = settle(run(&again, "set mobile-time-series zz stats_summary:q=v"));
        assert_eq!(written.live.builds, builds + 2);
        assert_eq!(written.live.refreshes, again.live.refreshes);
        assert_eq!(written.live.summary.as_ref().unwrap().rows, 5.0);
    }

    #[test]
    fn costly_rebuilds_wait_for_a_later_frame_and_are_spaced() {
        // 5 ms per clock reading: every build looks dear.
        let slow = AppState::new(Rc::new(TestClock::new(NOW, 5.0)), false, Panels::default())
            .apply(Action::Boot(Boot::Demo));
        let first = run(&slow, "read mobile-time-series count=1");
        assert_eq!(first.live.builds, 1, "the first build is at once");
        assert!(first.live.build_ms > INLINE_BUILD_MS);
        let second = run(&first, "read mobile-time-series count=2");
        assert_eq!(second.live.builds, 1, "not in the action that ran the read");
        assert!(second.live.is_stale() && second.has_work());
        let mut state = second;
        let mut frames = 0;
        while state.live.builds == 1 {
            state = state.apply(Action::Work);
            frames += 1;
            assert!(frames < 1000);
        }
        assert!(frames > 1, "a later frame, after a gap");
        assert!(!state.has_work());
        assert_eq!(state.live.summary.as_ref().unwrap().totals.read_rows, 3.0);
    }

    #[test]
    fn nothing_is_built_while_the_simulation_is_shown() {
        let state = run(&test_app(), "read mobile-time-series count=1");
        let sim = state
            .apply(Action::Live(LiveAction::Show(KvView::Simulation)))
            .apply(Action::ConsoleRun);
        let builds = sim.live.builds;
        let more = settle(run(&sim, "read mobile-time-series count=2"));
        assert_eq!(more.live.builds, builds);
        let back = settle(more.apply(Action::Live(LiveAction::Show(KvView::Live))));
        assert_eq!(back.live.builds, builds + 1);
        assert_eq!(back.live.summary.as_ref().unwrap().totals.read_rows, 3.0);
    }

    #[test]
    fn a_table_without_traffic_has_an_empty_state_and_picking_follows_the_selection() {
        let state = settle(run(&test_app(), "createtable quiet families=cf"));
        let quiet = settle(state.apply(Action::SelectTable("quiet".into())));
        assert!(quiet.live_shown());
        assert_eq!(quiet.live.table.as_deref(), Some("quiet"));
        let summary = quiet.live.summary.as_ref().unwrap();
        assert!(!summary.has_traffic());
        let back = settle(quiet.apply(Action::SelectTable("mobile-time-series".into())));
        assert_eq!(back.live.table.as_deref(), Some("mobile-time-series"));
        assert!(back.live.summary.as_ref().unwrap().has_traffic());
    }

    #[test]
    fn prints_change_with_every_operation() {
        let state = test_app();
        let before = traffic_print(&state.instance(), "mobile-time-series");
        let read = run(&state, "read mobile-time-series count=1");
        let after = traffic_print(&read.instance(), "mobile-time-series");
        assert_ne!(before, after);
        assert_eq!(traffic_print(&read.instance(), "missing"), 0);
        let scrolled = read.apply(Action::ScrollRows(1));
        assert_eq!(
            traffic_print(&scrolled.instance(), "mobile-time-series"),
            after,
            "the Rows panel's own reads are not traffic"
        );
    }

    #[test]
    fn cells_name_the_real_tablets_they_fall_in() {
        let mut state = run(&test_app(), "createtable split families=cf splits=m");
        for key in ["a1", "a2", "n1", "n2", "n3"] {
            state = run(&state, &format!("set split {key} cf:q=v"));
        }
        let state = settle(run(
            &state.apply(Action::SelectTable("split".into())),
            "read split",
        ));
        let summary = state.live.summary.as_ref().unwrap();
        let ids: Vec<u64> = summary.tablets.iter().map(|t| t.id).collect();
        assert_eq!(ids.len(), 2, "split at m");
        let map = state.live.map.as_ref().unwrap();
        let place = |key: &str| {
            (0..map.rows())
                .filter_map(|r| cell_info(map, r, 0))
                .find(|i| i.key_start.starts_with(key))
                .and_then(|i| i.place)
                .unwrap()
        };
        assert!(
            place("a").starts_with(&format!("tablet #{} on node 0,", ids[0])),
            "{}",
            place("a")
        );
        assert!(
            place("n").starts_with(&format!("tablet #{} on node 1,", ids[1])),
            "{}",
            place("n")
        );
        // Every row is under exactly one bucket.
        assert_eq!(map.stored_rows.iter().sum::<f64>(), 5.0);
        // The data table says the same, for screen readers: each row of it
        // names its tablets and the rows stored there.
        let table = crate::view_model::keyviz::data_table(map, 1, 1);
        let label = &table.rows[0].0;
        assert!(
            label.ends_with(&format!(
                "(2 tablets, #{} to #{}, on nodes 0 and 1, 5 rows stored)",
                ids[0], ids[1]
            )),
            "{label}"
        );
    }

    #[test]
    fn the_node_count_places_the_tablets_again_and_travels_in_links() {
        let mut state = run(&test_app(), "createtable split families=cf splits=m");
        for key in ["a1", "n1"] {
            state = run(&state, &format!("set split {key} cf:q=v"));
        }
        let state = settle(run(
            &state.apply(Action::SelectTable("split".into())),
            "read split",
        ));
        assert_eq!(state.live.nodes(), 3, "a scenario's default cluster");
        let nodes = |s: &AppState| -> Vec<u32> {
            s.live
                .summary
                .as_ref()
                .unwrap()
                .tablets
                .iter()
                .map(|t| t.node)
                .collect()
        };
        assert_eq!(nodes(&state), vec![0, 1]);
        let builds = state.live.builds;
        let one = state.apply(Action::Live(LiveAction::Nodes(1)));
        assert_eq!(nodes(&one), vec![0, 0]);
        assert_eq!(one.live.builds, builds, "the table is not read again");
        let map = one.live.map.as_ref().unwrap();
        let last = cell_info(map, map.rows() - 1, 0).unwrap().place.unwrap();
        assert!(last.contains(" on node 0,"), "{last}");
        // Out of range: kept within 1 to MAX_NODES.
        let many = one.apply(Action::Live(LiveAction::Nodes(10_000)));
        assert_eq!(many.live.nodes(), MAX_NODES);
        // A link keeps a pick that is not the default.
        assert_eq!(one.live.shared().nodes, Some(1));
        assert_eq!(state.live.shared().nodes, None);
        let mut back = LiveState::default();
        back.take_shared(&one.live.shared());
        assert_eq!(back.nodes(), 1);
    }

    /// The demo with the live view shown, on a clock that moves `step_ms`
    /// per reading, after loading `rows` sample rows into table `big`.
    fn loaded(step_ms: f64, rows: u64) -> AppState {
        use crate::state::generator::GeneratorSpec;
        let slow = AppState::new(
            Rc::new(TestClock::new(NOW, step_ms)),
            false,
            Panels::default(),
        )
        .apply(Action::Boot(Boot::Demo))
        .apply(Action::Live(LiveAction::Show(KvView::Live)));
        settle(
            slow.apply(Action::SetGenerator(GeneratorSpec {
                table: "big".into(),
                rows,
                seed: 1,
            }))
            .apply(Action::StartGenerator),
        )
    }

    /// Runs frames until the live map is no longer behind; returns the
    /// state and how many frames had a build under way.
    fn frames_until_built(mut state: AppState) -> (AppState, usize) {
        let mut building = 0;
        for _ in 0..100_000 {
            if !state.has_work() {
                return (state, building);
            }
            state = state.apply(Action::Work);
            if state.live.building().is_some() {
                building += 1;
            }
        }
        panic!("the build never ended");
    }

    /// Runs frames until a build of the live map is under way.
    fn until_building(mut state: AppState) -> AppState {
        for _ in 0..100_000 {
            state = state.apply(Action::Work);
            if state.live.building().is_some() {
                return state;
            }
        }
        panic!("no build started");
    }

    #[test]
    fn a_large_table_follows_a_write_in_slices_keeping_its_map_meanwhile() {
        // 5 ms per clock reading: one step of a build fills a slice.
        let loaded = loaded(5.0, 5000);
        let bytes = loaded
            .tables
            .iter()
            .find(|t| t.name == "big")
            .unwrap()
            .bytes;
        assert!(bytes >= RATE_FROM_BYTES, "{bytes} bytes");
        assert_eq!(loaded.live.table.as_deref(), Some("big"));
        assert_eq!(
            loaded.live.summary.as_ref().unwrap().rows,
            5000.0,
            "drawn once loaded, without a click"
        );
        assert!(loaded.live.slice_ms < loaded.live.build_ms, "in slices");
        let builds = loaded.live.builds;
        let map = Rc::clone(loaded.live.map.as_ref().unwrap());
        // A write changes the data: the table is read again, a slice per
        // frame, while the map drawn before stays.
        let state = until_building(run(&loaded, "set big zzzz stats_summary:q=v"));
        let halfway = state.live.building().expect("a build under way");
        assert!(halfway < 1.0, "{halfway}");
        assert!(Rc::ptr_eq(state.live.map.as_ref().unwrap(), &map));
        assert_eq!(state.live.summary.as_ref().unwrap().rows, 5000.0);
        let (done, frames) = frames_until_built(state);
        assert!(frames > 2, "{frames} frames");
        assert_eq!(done.live.builds, builds + 1, "one build, no refresh");
        assert!(done.live.building().is_none());
        assert!(done.live.slice_ms < done.live.build_ms);
        // The map the slices gave is the one a build in one go gives.
        let once = LiveKeyViz::build(&mut done.instance.borrow_mut(), "big", &done.live.options())
            .unwrap()
            .report(None);
        let summary = done.live.summary.as_ref().unwrap();
        assert_eq!(summary.rows, 5001.0);
        assert_eq!(summary.rows, once.rows);
        assert_eq!(summary.totals, once.totals);
        assert_eq!(*summary.tablets, once.tablets);
        assert_eq!(*done.live.diagnostics, once.diagnostics);
    }

    #[test]
    fn during_a_load_a_cheap_build_is_done_whole_never_in_slices() {
        // Table big, 3,000 rows of 5 cells: more than one step's worth.
        let state = loaded(0.5, 3000);
        let clock = TestClock::new(NOW, 5.0);
        let now = || clock.now_ms();
        let sig = Signature {
            table: Some("big".into()),
            data_rev: state.data_rev,
            traffic: 1,
            // Small enough to look cheap: due during a load.
            bytes: 100_000,
        };
        let mut sliced = LiveState::default();
        assert!(sliced.observe(sig.clone()) && sliced.due(0.0, false));
        sliced.rebuild(&mut state.instance.borrow_mut(), &now, false);
        assert!(sliced.building().is_some(), "one step fills a slice");
        assert_eq!(sliced.builds, 0);
        // During a load every slice of it changes the data: a build in
        // slices would start over each time, so a cheap one is done whole.
        let mut whole = LiveState::default();
        assert!(whole.observe(sig) && whole.due(0.0, true));
        whole.rebuild(&mut state.instance.borrow_mut(), &now, true);
        assert!(whole.building().is_none());
        assert_eq!(whole.builds, 1);
        assert_eq!(whole.summary.as_ref().unwrap().rows, 3000.0);
    }

    #[test]
    fn steps_grow_until_they_can_be_timed_then_fill_half_a_slice() {
        let mut live = LiveState::default();
        assert_eq!(live.step_cells(), FIRST_STEP_CELLS);
        // Too short for a browser's coarse clock: twice as many next.
        live.note_rate(FIRST_STEP_CELLS, 0.0);
        assert_eq!(live.step_cells(), 2 * FIRST_STEP_CELLS);
        live.note_rate(2 * FIRST_STEP_CELLS, 0.5);
        assert_eq!(live.step_cells(), 4 * FIRST_STEP_CELLS);
        // Timed: 8,192 cells in 2 ms is 4,096 per ms, half a slice's worth.
        live.note_rate(4 * FIRST_STEP_CELLS, 2.0);
        assert_eq!(live.step_cells(), (4096.0 * SLICE_MS / 2.0) as u64);
        // Never past the most, however fast; a step too small says nothing.
        live.note_rate(MAX_STEP_CELLS, 1.0);
        assert_eq!(live.step_cells(), MAX_STEP_CELLS);
        live.note_rate(10, 100.0);
        assert_eq!(live.step_cells(), MAX_STEP_CELLS);
    }

    #[test]
    fn a_large_table_refreshes_after_a_read_without_reading_the_table() {
        let loaded = loaded(5.0, 5000);
        let builds = loaded.live.builds;
        let refreshes = loaded.live.refreshes;
        // A read changes no rows: its traffic is laid on the keys of the
        // last build, in one piece, without reading the table.
        let read = settle(run(&loaded, "read big count=1"));
        assert_eq!(read.live.builds, builds + 1);
        assert_eq!(read.live.refreshes, refreshes + 1);
        let summary = read.live.summary.as_ref().unwrap();
        assert_eq!(summary.totals.read_rows, 1.0);
        assert_eq!(summary.rows, 5000.0);
    }

    #[test]
    fn a_build_under_way_starts_again_when_the_data_changes() {
        let loaded = loaded(5.0, 5000);
        let builds = loaded.live.builds;
        let mut state = until_building(run(&loaded, "set big zzzz1 stats_summary:q=v"));
        for _ in 0..2 {
            state = state.apply(Action::Work);
        }
        let before = state.live.building().expect("a build under way");
        assert!(before > 0.0);
        // Another write: what was read is of the old data, so the build
        // starts over and reads the new rows too.
        let again = run(&state, "set big zzzz2 stats_summary:q=v");
        assert!(again.live.building().is_none_or(|f| f < before));
        let (done, _) = frames_until_built(again);
        assert_eq!(done.live.builds, builds + 1, "the first build was dropped");
        assert_eq!(done.live.summary.as_ref().unwrap().rows, 5002.0);
    }

    #[test]
    fn a_large_table_waits_for_the_end_of_a_load_unless_asked() {
        let mut live = LiveState::default();
        let sig = |bytes: u64| Signature {
            table: Some("t".into()),
            data_rev: 1,
            traffic: 7,
            bytes,
        };
        // A sample table of 1,000 rows (180 KiB) is drawn during a load...
        assert!(live.observe(sig(180_000)));
        assert!(live.due(0.0, true));
        // ...one of a million rows (180 MiB) waits for the load to end.
        assert!(live.observe(sig(180 << 20)));
        assert!(!live.due(0.0, true) && live.is_stale());
        assert!(live.due(0.0, false));
        live.reduce(LiveAction::Update);
        assert!(live.due(0.0, true), "asked for, even during a load");
    }

    #[test]
    fn reads_in_every_console_language_show_up() {
        let read_rows = |s: &AppState| s.live.summary.as_ref().unwrap().totals.read_rows;
        let cbt = settle(run(&test_app(), "read mobile-time-series count=1"));
        assert_eq!(read_rows(&cbt), 1.0);
        let name = format!("{}/tables/mobile-time-series", cbt.instance().name());
        let json = crate::view_model::filter::read_rows_line(&name, None, Some(2));
        let json = settle(
            cbt.apply(Action::ConsoleTab(Tab::Json))
                .apply(Action::ConsoleInput(json))
                .apply(Action::ConsoleRun),
        );
        assert!(json.console.entries.last().unwrap().ok);
        assert_eq!(read_rows(&json), 3.0);
        let sql = settle(
            json.apply(Action::ConsoleTab(Tab::Sql))
                .apply(Action::ConsoleInput(
                    "SELECT _key FROM `mobile-time-series` WHERE _key = 'tablet#a0b81f74#20200501'"
                        .into(),
                ))
                .apply(Action::ConsoleRun),
        );
        let entry = sql.console.entries.last().unwrap();
        assert!(entry.ok, "{}", entry.output);
        assert_eq!(read_rows(&sql), 4.0);
    }
}
