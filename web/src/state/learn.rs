//! The learning slice: lessons and the learner's progress, the advisor's
//! one-click fixes (with an undo), and the row-key designer's draft.
//!
//! # Lessons and the playground's instance
//!
//! A started lesson is a core [`Session`]: it sets up the lesson's tables
//! and rows, knows the lesson's design and evaluates the checks. The
//! playground must work on that state (the Rows, Tablets and Console panels
//! show it), so starting a lesson moves the session's instance into the
//! app, as importing a snapshot does. While the lesson runs the session
//! keeps an empty placeholder; whenever the session has to look at or
//! change the instance (a check, a fix, a new design whose sample rows are
//! rewritten) the real instance is swapped in for the call and swapped back
//! out, so nothing is copied.
//!
//! Reads the learner makes in the console are found in the transcript
//! when the check runs: the newest successful read (a cbt `read`,
//! `lookup` or `count`, a JSON `readRows`, a SQL query) since the lesson
//! started is handed to the session as recorded by its own trace (while a
//! lesson runs, the console traces reads with the lesson's
//! [`RECORD_OPTIONS`](tabletop_core::lesson::RECORD_OPTIONS), keys and
//! all), and the check judges it. Nothing is
//! parsed from the transcript's text, and nothing is read again.
//!
//! # Designer drafts
//!
//! The designer edits a [`KeyDraft`] (text as typed). An edit that makes a
//! valid key and a valid scenario replaces the design
//! (`Action::SetDesign("edited", …)`); otherwise the draft keeps the text
//! and the core's message. A draft belongs to the design revision it was
//! made from: when the design changes elsewhere (a fix, a lesson, the
//! scenario picker), the designer shows the new design's key instead.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::rc::Rc;

use tabletop_core::Instance;
use tabletop_core::advisor::{self, Edit, Fix};
use tabletop_core::lesson::{Check, PendingSample, ReadRecord, SampleWriting, Session, Verdict};
use tabletop_core::sim::Scenario;

use super::console::cbt_reads_only;
use super::design::DesignState;
use super::{Action, Cx, Effects, Notice};
use crate::view_model::keydesign::{DraftEdit, KeyDraft};
use crate::view_model::learn::{SavedProgress, catalog, load_scenario};

/// Which view the left column shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LeftTab {
    /// Tables, the key designer and the advisor.
    #[default]
    Schema,
    /// The lessons.
    Lessons,
}

/// A started lesson. Compared by identity: a new start is a new session.
#[derive(Clone)]
pub struct ActiveLesson {
    /// The lesson's id.
    pub id: String,
    /// The core's session (its instance is a placeholder; see the module
    /// documentation).
    session: Rc<RefCell<Session>>,
    /// Transcript entries with an id below this were there before the
    /// lesson started and are not the learner's reads.
    console_mark: u64,
}

impl PartialEq for Undo {
    fn eq(&self, other: &Self) -> bool {
        let same = |a: &Option<Rc<Instance>>, b: &Option<Rc<Instance>>| match (a, b) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        self.title == other.title
            && self.scenario == other.scenario
            && same(&self.instance, &other.instance)
    }
}

impl fmt::Debug for Undo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Undo")
            .field("title", &self.title)
            .field("instance", &self.instance.is_some())
            .finish_non_exhaustive()
    }
}

impl PartialEq for ActiveLesson {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.session, &other.session)
    }
}

impl fmt::Debug for ActiveLesson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ActiveLesson")
            .field("id", &self.id)
            .field("console_mark", &self.console_mark)
            .finish_non_exhaustive()
    }
}

/// What an undo puts back.
#[derive(Clone)]
pub struct Undo {
    /// The fix undone, for the button.
    pub title: String,
    /// The design before.
    pub(crate) scenario: Option<Rc<Scenario>>,
    /// The instance before, when the fix changed tables of the instance.
    pub(crate) instance: Option<Rc<Instance>>,
}

/// What this slice holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LearnState {
    /// Completed lessons, hints seen, and the lesson open in the panel.
    pub saved: SavedProgress,
    /// Whether stored progress was read (nothing is saved before, so a
    /// fresh page cannot overwrite what the browser holds).
    pub loaded: bool,
    /// The started lesson.
    pub active: Option<ActiveLesson>,
    /// The last verdict of the started lesson.
    pub verdict: Option<Rc<Verdict>>,
    /// The left column's tab.
    pub tab: LeftTab,
    /// The designer's draft (see [`LearnState::draft_for`]).
    pub draft: KeyDraft,
    /// The fixes applied, newest last, to undo one by one.
    pub undo: Vec<Undo>,
}

/// How many fixes can be undone.
const UNDO_DEPTH: usize = 20;
/// How many of those may hold a copy of the instance (a fix that changed
/// tables keeps the instance it replaced, which can be large).
const UNDO_INSTANCES: usize = 3;

impl LearnState {
    /// Whether to show a first-time visitor the way into the first lesson.
    pub fn show_start_here(&self) -> bool {
        self.loaded
            && !self.saved.welcomed
            && self.active.is_none()
            && self.saved.progress.completed.is_empty()
    }

    /// The title of the fix an Undo would take back, and how many fixes
    /// can be undone in all.
    pub fn undo_top(&self) -> Option<(String, usize)> {
        self.undo.last().map(|u| (u.title.clone(), self.undo.len()))
    }

    pub(crate) fn push_undo(&mut self, undo: Undo) {
        self.undo.push(undo);
        // The oldest go first: an undo is only right on top of the ones
        // after it, so the stack is cut from the bottom.
        while self.undo.len() > UNDO_DEPTH
            || self.undo.iter().filter(|u| u.instance.is_some()).count() > UNDO_INSTANCES
        {
            self.undo.remove(0);
        }
    }
}

impl LearnState {
    /// The draft the designer shows for the design at `rev` with key
    /// `template`: the one being typed if it belongs to this revision,
    /// else a fresh one.
    pub fn draft_for(
        &self,
        template: &tabletop_core::keydesign::KeyTemplate,
        rev: u64,
    ) -> KeyDraft {
        if self.draft.rev == rev {
            self.draft.clone()
        } else {
            KeyDraft::from_template(template, rev)
        }
    }

    /// The id of the started lesson.
    pub fn active_id(&self) -> Option<&str> {
        self.active.as_ref().map(|a| a.id.as_str())
    }

    /// Completed lesson ids.
    pub fn completed(&self) -> &BTreeSet<String> {
        &self.saved.progress.completed
    }
}

/// What this slice does.
#[derive(Clone, Debug, PartialEq)]
pub enum LearnAction {
    /// Show the Schema or the Lessons tab.
    Tab(LeftTab),
    /// Progress read from the browser (`None`: nothing stored).
    LoadProgress(Option<String>),
    /// Show a lesson in the panel (without starting it).
    Open(String),
    /// Back to the list.
    CloseLesson,
    /// Start (or restart) a lesson: its tables and design replace the
    /// playground's.
    Start(String),
    /// Continue a lesson on the playground as it is (after a reload: the
    /// autosave brought the tables back).
    Resume(String),
    /// Leave the lesson (the playground stays as it is).
    Stop,
    /// Run the started lesson's checks.
    Check,
    /// The learner opened the hint.
    HintSeen(String),
    /// Forget every completed lesson.
    ResetProgress,
    /// Hide the way into the first lesson.
    DismissStart,
    /// Start the design from a shipped scenario file.
    PickScenario(String),
    /// Edit the designer's draft.
    Draft(DraftEdit),
    /// Apply an advisor fix.
    ApplyFix(Box<Fix>),
    /// Undo the last fix.
    Undo,
    /// Keep this many sample rows of a lesson's design (`None`: each
    /// lesson's own number); a started lesson rewrites them.
    SampleRows(Option<u64>),
}

/// Whether a check (or one inside it) reads the simulation report.
fn needs_simulation(check: &Check) -> bool {
    match check {
        Check::Sim { .. } => true,
        Check::Any { of } | Check::All { of } => of.iter().any(needs_simulation),
        Check::Not { check } => needs_simulation(check),
        _ => false,
    }
}

/// Whether an edit changes a table that exists only in the instance (not
/// in the design): the same split the core's session makes.
fn edits_instance(scenario: Option<&Scenario>, e: &Edit) -> bool {
    let in_design = |t: &str| {
        scenario.is_some_and(|s| s.table.id == t || s.other_tables.iter().any(|o| o.id == t))
    };
    match e {
        Edit::SetGc { table, .. }
        | Edit::AddFamily { table, .. }
        | Edit::RenameFamily { table, .. }
        | Edit::MergeFamilies { table, .. } => !in_design(table),
        Edit::MergeTables { tables, .. } => tables.iter().all(|t| !in_design(t)),
        _ => false,
    }
}

impl LearnState {
    /// Applies an action of this slice. The actions that move work
    /// between rooms (starting, resuming, leaving and checking a lesson,
    /// editing the design, fixes and their undo) are coordinated in
    /// [`flows`](super::flows) instead, and change nothing here.
    pub(crate) fn reduce(&mut self, action: LearnAction) -> Effects {
        match action {
            LearnAction::Tab(tab) => self.tab = tab,
            LearnAction::LoadProgress(text) => {
                if let Some(text) = text {
                    self.saved = SavedProgress::from_json(&text);
                }
                self.loaded = true;
            }
            LearnAction::Open(id) => {
                self.tab = LeftTab::Lessons;
                self.saved.current = Some(id);
            }
            LearnAction::CloseLesson => self.saved.current = None,
            LearnAction::HintSeen(id) => {
                self.saved.progress.hints_seen.insert(id);
            }
            LearnAction::DismissStart => self.saved.welcomed = true,
            LearnAction::ResetProgress => {
                self.saved.progress = Default::default();
                self.verdict = None;
            }
            LearnAction::PickScenario(file) => {
                return match load_scenario(&file) {
                    Ok(s) => {
                        let source = file.trim_end_matches(".toml").to_string();
                        Effects::then(Action::SetDesign(source, Box::new(s)))
                    }
                    Err(e) => Effects::error(e),
                };
            }
            LearnAction::Start(_)
            | LearnAction::Resume(_)
            | LearnAction::Stop
            | LearnAction::Check
            | LearnAction::Draft(_)
            | LearnAction::ApplyFix(_)
            | LearnAction::Undo
            | LearnAction::SampleRows(_) => {}
        }
        Effects::default()
    }

    /// After the design changed (any source): a started lesson gets the
    /// new design, and rewrites its sample rows if it keeps them (then
    /// data changed). Called from the `SetDesign` arm.
    pub(crate) fn follow_design(&self, cx: &Cx<'_>) -> Effects {
        let Some(active) = &self.active else {
            return Effects::default();
        };
        let Some(design) = cx.design.scenario.clone() else {
            return Effects::default();
        };
        let mut session = active.session.borrow_mut();
        if session.scenario().is_none() || session.scenario() == Some(&*design) {
            return Effects::default();
        }
        let rewrites = session.lesson().setup.materialize.is_some();
        let result = with_instance(&mut session, cx.instance, |s| {
            s.set_scenario((*design).clone())
        });
        match result {
            Ok(()) => Effects {
                data_changed: rewrites,
                ..Effects::default()
            },
            Err(e) => Effects::error(format!("The lesson could not take the new design: {e}")),
        }
    }

    /// Keeps `rows` sample rows of lessons' designs from now on (`None`:
    /// each lesson's own number). A started lesson that keeps sample rows
    /// makes its table again at the new size and hands the rows to the
    /// loader (then data changed).
    pub(crate) fn resize_sample(&mut self, rows: Option<u64>, cx: &Cx<'_>) -> Effects {
        self.saved.sample_rows = rows;
        let Some(active) = &self.active else {
            return Effects::default();
        };
        let mut session = active.session.borrow_mut();
        match with_instance(&mut session, cx.instance, |s| s.set_sample_rows(rows)) {
            Ok(rewrote) => Effects {
                data_changed: rewrote,
                ..Effects::default()
            },
            Err(e) => Effects::error(format!("The lesson could not rewrite its sample rows: {e}")),
        }
    }

    /// Makes `session` the started lesson; the console's entries from
    /// `console_mark` on are the learner's.
    pub(crate) fn begin(&mut self, id: &str, session: Session, console_mark: u64) {
        self.active = Some(ActiveLesson {
            id: id.to_string(),
            session: Rc::new(RefCell::new(session)),
            console_mark,
        });
        self.verdict = None;
        self.undo.clear();
        self.saved.current = Some(id.to_string());
        self.saved.welcomed = true;
        // The task is pinned above both tabs; below it, the Schema tab
        // holds the tables and the row-key designer.
        self.tab = LeftTab::Schema;
    }

    /// Whether a lesson runs or its verdict shows.
    pub(crate) fn in_lesson(&self) -> bool {
        self.active.is_some() || self.verdict.is_some()
    }

    /// Forgets the lesson session and its verdict.
    pub(crate) fn end(&mut self) {
        self.active = None;
        self.verdict = None;
    }

    /// Runs the started lesson's checks on the design and instance `cx`
    /// lends, with `read` the newest read the learner ran since the
    /// lesson started. Data changed when the session rewrote its sample
    /// rows for a new design.
    pub(crate) fn check(&mut self, read: Option<ReadRecord>, cx: &Cx<'_>) -> Effects {
        let Some(active) = self.active.clone() else {
            return Effects::error("Start the lesson before checking it.".into());
        };
        let design = cx.design.scenario.as_deref();
        let mut session = active.session.borrow_mut();
        let mut rewrote = false;
        let verdict = with_instance(&mut session, cx.instance, |s| {
            if let Some(d) = design
                && s.scenario().is_some()
                && s.scenario() != Some(d)
            {
                rewrote = s.lesson().setup.materialize.is_some();
                if let Err(e) = s.set_scenario(d.clone()) {
                    return Err(format!("The design is not valid for this lesson: {e}"));
                }
            }
            // Checks on the simulation need a report of the current design:
            // the lesson designs simulate in milliseconds, so the check runs
            // one when the session has none.
            if s.fresh_report().is_none()
                && s.scenario().is_some()
                && s.lesson().checks.iter().any(|c| needs_simulation(&c.check))
                && let Err(e) = s.simulate()
            {
                return Err(format!("The design could not be simulated: {e}"));
            }
            if let Some(read) = read {
                s.set_last_read(read);
            }
            Ok(s.check())
        });
        let mut effects = Effects {
            data_changed: rewrote,
            ..Effects::default()
        };
        match verdict {
            Ok(v) => {
                if v.passed {
                    self.saved.progress.complete(&active.id);
                }
                self.verdict = Some(Rc::new(v));
            }
            Err(e) => {
                effects.notice = Some(Notice {
                    error: true,
                    text: e,
                })
            }
        }
        effects
    }

    /// The designer's draft after `edit`, for the design as it is now, and
    /// the design it makes when that differs (`None` when there is no
    /// design to edit).
    pub(crate) fn edit_draft(
        &self,
        edit: DraftEdit,
        design: &DesignState,
    ) -> Option<(KeyDraft, Option<Scenario>)> {
        let scenario = design.scenario.as_deref()?;
        let mut draft = self.draft_for(&scenario.key, design.rev);
        draft.edit(edit);
        let next = draft.to_template().and_then(|key| {
            let mut s = scenario.clone();
            s.key = key;
            s.validate().map_err(|e| e.message().to_string())?;
            Ok(s)
        });
        let changed = match next {
            Ok(s) => {
                draft.error = None;
                (s != *scenario).then_some(s)
            }
            Err(e) => {
                draft.error = Some(e);
                None
            }
        };
        Some((draft, changed))
    }

    /// Applies an advisor fix to the design before (`before`) and the
    /// instance: through the lesson's session when one runs and the fix
    /// concerns it, else directly. Returns the design after.
    pub(crate) fn fix(
        &self,
        fix: &Fix,
        before: Option<&Scenario>,
        instance: &RefCell<Instance>,
        touches_instance: bool,
    ) -> Result<Option<Scenario>, String> {
        match &self.active {
            Some(active) if active.session.borrow().scenario().is_some() || touches_instance => {
                let mut session = active.session.borrow_mut();
                with_instance(&mut session, instance, |s| {
                    s.apply_fix(fix).map_err(|e| e.to_string())?;
                    Ok(s.scenario().cloned())
                })
            }
            _ => {
                let (inst, design): (Vec<Edit>, Vec<Edit>) = fix
                    .edits
                    .iter()
                    .cloned()
                    .partition(|e| edits_instance(before, e));
                let mut next = before.cloned();
                let mut out = Ok(());
                if !design.is_empty() {
                    out = match next.as_mut() {
                        Some(s) => {
                            advisor::apply_to_scenario(s, &design).map_err(|e| e.to_string())
                        }
                        None => Err("there is no design to change".into()),
                    };
                }
                if out.is_ok() && !inst.is_empty() {
                    out = advisor::apply_to_instance(&mut instance.borrow_mut(), &inst)
                        .map_err(|e| e.to_string());
                }
                out.map(|()| next)
            }
        }
    }
}

impl LearnState {
    /// The sample rows the started lesson made a table for and wants
    /// written (after its start, or a design change that rewrote them).
    pub(crate) fn take_sample(&self) -> Option<PendingSample> {
        self.active
            .as_ref()
            .and_then(|a| a.session.borrow_mut().take_sample())
    }
}

impl ActiveLesson {
    /// Transcript entries with an id below this were there before the
    /// lesson started.
    pub(crate) fn console_mark(&self) -> u64 {
        self.console_mark
    }
}

impl Undo {
    /// What undoing `fix` will put back: the design `before`, and a copy
    /// of the instance when the fix changes its tables.
    pub(crate) fn before(fix: &Fix, before: Option<Rc<Scenario>>, instance: &Instance) -> Undo {
        let touches_instance = fix
            .edits
            .iter()
            .any(|e| edits_instance(before.as_deref(), e));
        Undo {
            title: fix.title.clone(),
            scenario: before,
            instance: touches_instance.then(|| Rc::new(instance.clone())),
        }
    }

    /// Whether the fix changes tables of the instance (then the undo holds
    /// a copy of it).
    pub(crate) fn touches_instance(&self) -> bool {
        self.instance.is_some()
    }
}

/// Starts the lesson `id` of the shipped catalog, with `sample_rows`
/// sample rows if it keeps some (`None`: the lesson's number), or says
/// why not.
pub(crate) fn start_session(id: &str, sample_rows: Option<u64>) -> Result<Session, String> {
    let catalog = catalog()
        .as_ref()
        .map_err(|e| format!("The lessons could not be loaded: {e}"))?;
    catalog
        .start_sized(id, SampleWriting::Host, sample_rows)
        .map_err(|e| format!("The lesson could not start: {e}"))
}

/// The reads of a lesson's setup (the slow read the lesson starts from).
pub(crate) fn setup_reads(session: &Session) -> Vec<String> {
    session
        .lesson()
        .setup
        .then
        .iter()
        .filter(|l| cbt_reads_only(l))
        .cloned()
        .collect()
}

/// Runs `f` on the session with the playground's instance swapped in.
fn with_instance<T>(
    session: &mut Session,
    instance: &RefCell<Instance>,
    f: impl FnOnce(&mut Session) -> T,
) -> T {
    let mut instance = instance.borrow_mut();
    std::mem::swap(session.instance_mut(), &mut *instance);
    let out = f(session);
    std::mem::swap(session.instance_mut(), &mut *instance);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::console::Tab;
    use crate::state::{AppState, run_console, settle};
    use crate::view_model::learn::{advisor_view, sample_choice};
    use serde::Deserialize;

    use crate::state::test_app as app;

    fn learn(state: &AppState, action: LearnAction) -> AppState {
        settle(state.apply(Action::Learn(action)))
    }

    fn cbt(state: &AppState, line: &str) -> AppState {
        run_console(state, Tab::Cbt, line)
    }

    fn rules(state: &AppState) -> Vec<String> {
        advisor_view(state.design.scenario.as_deref(), &state.instance(), None)
            .findings
            .into_iter()
            .map(|f| f.rule)
            .collect()
    }

    fn first_fix(state: &AppState, rule: &str) -> Fix {
        advisor_view(state.design.scenario.as_deref(), &state.instance(), None)
            .findings
            .into_iter()
            .find(|f| f.rule == rule)
            .unwrap_or_else(|| panic!("no {rule} finding"))
            .fixes[0]
            .fix
            .clone()
    }

    /// A step of the core's lesson solutions (test data in
    /// `core/tests/lesson_solutions/`), run through the app's actions as
    /// the learner would: the console, a fix, or the design.
    #[derive(Deserialize)]
    struct Step {
        cbt: Option<String>,
        fix: Option<String>,
        scenario: Option<String>,
    }

    #[derive(Deserialize)]
    struct Solution {
        step: Vec<Step>,
    }

    fn solve(state: &AppState, text: &str) -> AppState {
        let solution: Solution = toml::from_str(text).expect("the solution parses");
        let mut state = state.clone();
        for step in solution.step {
            if let Some(line) = step.cbt {
                state = cbt(&state, &line);
                assert!(state.console.entries.last().unwrap().ok, "{line}");
            }
            if let Some(rule) = step.fix {
                let fix = first_fix(&state, &rule);
                state = learn(&state, LearnAction::ApplyFix(Box::new(fix)));
            }
            if let Some(text) = step.scenario {
                let s = Scenario::from_toml(&text).expect("the solution's scenario parses");
                state = settle(state.apply(Action::SetDesign("edited".into(), Box::new(s))));
            }
        }
        state
    }

    fn table_ids(state: &AppState) -> Vec<String> {
        state.tables.iter().map(|t| t.name.clone()).collect()
    }

    #[test]
    fn a_lessons_sample_rows_are_written_in_slices_and_can_be_stopped() {
        // Lesson 5 keeps 2,000 rows of its design in `readings`.
        let started = app().apply(Action::Learn(LearnAction::Start(
            "reverse-timestamps".into(),
        )));
        assert!(started.scenario_data.loading(), "the loader writes them");
        assert_eq!(started.selected.as_deref(), Some("readings"));
        assert_eq!(started.rows.total_rows(), 0, "none written yet");
        let all = settle(started);
        assert_eq!(all.rows.total_rows(), 2_000);
        assert_eq!(
            all.scenario_data.table.as_ref().map(|t| t.0.as_str()),
            Some("readings"),
            "the design's workload can be replayed on it"
        );
        // Stopped before any rows: the table stays, empty (a fresh app:
        // states made from one share the instance).
        let stopped = app()
            .apply(Action::Learn(LearnAction::Start(
                "reverse-timestamps".into(),
            )))
            .apply(Action::ScenarioData(
                crate::state::scenario_data::ScenarioDataAction::Cancel,
            ));
        assert!(stopped.scenario_data.job.is_none() && !stopped.scenario_data.loading());
        assert_eq!(table_ids(&stopped), ["readings"], "the table stays");
        assert_eq!(settle(stopped).rows.total_rows(), 0);
        // Leaving mid-load: the rest is not written into the person's own
        // tables, even one of the same name.
        let mine = settle(cbt(&app(), "createtable readings families=metrics"));
        let mid = mine.apply(Action::Learn(LearnAction::Start(
            "reverse-timestamps".into(),
        )));
        assert!(mid.scenario_data.loading());
        let left = settle(mid.apply(Action::Learn(LearnAction::Stop)));
        assert!(left.scenario_data.job.is_none() && left.scenario_data.table.is_none());
        let mut count = tabletop_core::CountRows::default();
        left.instance
            .borrow_mut()
            .read_rows(
                "readings",
                &tabletop_core::ReadRowsRequest::default(),
                &mut count,
            )
            .unwrap();
        assert_eq!(count.rows, 0, "the person's table is untouched");
    }

    #[test]
    fn the_learner_chooses_how_many_sample_rows_lessons_keep() {
        // Lesson 5 keeps 2,000 rows by default; a bigger size rewrites
        // them through the same loader, mid-load or after.
        let started = app().apply(Action::Learn(LearnAction::Start(
            "reverse-timestamps".into(),
        )));
        assert_eq!(
            sample_choice("reverse-timestamps", started.learn.saved.sample_rows).map(|c| c.rows),
            Some(2_000)
        );
        let bigger = started.apply(Action::Learn(LearnAction::SampleRows(Some(10_000))));
        assert!(
            bigger.scenario_data.loading(),
            "the loader writes the new rows"
        );
        assert_eq!(bigger.learn.saved.sample_rows, Some(10_000));
        let all = settle(bigger);
        assert_eq!(all.rows.total_rows(), 10_000);
        assert_eq!(table_ids(&all), ["readings"]);
        // The choice is kept with the progress, and the next start uses it.
        let saved = SavedProgress::from_json(&all.learn.saved.to_json());
        assert_eq!(saved.sample_rows, Some(10_000));
        let again = settle(all.apply(Action::Learn(LearnAction::Start(
            "reverse-timestamps".into(),
        ))));
        assert_eq!(again.rows.total_rows(), 10_000);
        // The lesson's own number again: back to the quick default.
        let own = settle(again.apply(Action::Learn(LearnAction::SampleRows(None))));
        assert_eq!(own.rows.total_rows(), 2_000);
        assert_eq!(own.learn.saved.sample_rows, None);
        // Progress saved before the choice existed still loads.
        let old = SavedProgress::from_json(r#"{"completed":["row-ranges"]}"#);
        assert_eq!(old.sample_rows, None);
        // A lesson that keeps no sample rows offers no size.
        assert!(sample_choice("zero-padding-not-a-lesson", None).is_none());
        let plain = learn(&app(), LearnAction::Start("row-ranges".into()));
        assert!(sample_choice("row-ranges", plain.learn.saved.sample_rows).is_none());
        let same = plain.apply(Action::Learn(LearnAction::SampleRows(Some(10_000))));
        assert!(!same.scenario_data.loading(), "nothing to rewrite");
    }

    #[test]
    fn starting_a_lesson_swaps_the_instance_and_the_design() {
        let state = app();
        assert_eq!(table_ids(&state), ["mobile-time-series"]);
        let started = learn(&state, LearnAction::Start("zero-padding".into()));
        assert_eq!(
            table_ids(&started),
            ["scores"],
            "the lesson's tables replace the demo"
        );
        assert_eq!(started.learn.active_id(), Some("zero-padding"));
        assert_eq!(started.learn.tab, LeftTab::Schema);
        let design = started
            .design
            .scenario
            .as_ref()
            .expect("the lesson's scenario is the design");
        assert_eq!(design.table.id, "scores");
        assert!(started.design.rev > state.design.rev);
        assert!(
            started.rows.total_rows() > 0,
            "the sample rows are in the rows panel"
        );
        // A lesson without a scenario clears the design.
        let other = learn(&started, LearnAction::Start("row-ranges".into()));
        assert!(other.design.scenario.is_none());
        assert_eq!(table_ids(&other), ["mobile"]);
        // Its setup read shows in the console.
        let entry = other.console.entries.last().unwrap();
        assert!(
            entry.input.starts_with("read mobile regex="),
            "{}",
            entry.input
        );
        // Unknown lessons are refused with a message.
        let bad = learn(&other, LearnAction::Start("nope".into()));
        assert!(bad.notice.as_ref().unwrap().error);
        assert_eq!(bad.learn.active_id(), Some("row-ranges"));
    }

    #[test]
    fn row_ranges_fails_at_the_start_and_passes_after_its_solution() {
        let started = learn(&app(), LearnAction::Start("row-ranges".into()));
        let checked = learn(&started, LearnAction::Check);
        let verdict = checked.learn.verdict.clone().unwrap();
        assert!(!verdict.passed, "{verdict:?}");
        assert!(verdict.checks[0].detail.contains("scanned"), "{verdict:?}");
        assert!(checked.learn.completed().is_empty());
        // A read that is not the answer does not pass either.
        let wrong = learn(
            &cbt(&checked, "read mobile prefix=phone"),
            LearnAction::Check,
        );
        assert!(!wrong.learn.verdict.as_ref().unwrap().passed);
        let solved = solve(
            &wrong,
            include_str!("../../../core/tests/lesson_solutions/row-ranges.toml"),
        );
        let done = learn(&solved, LearnAction::Check);
        assert!(done.learn.verdict.as_ref().unwrap().passed);
        assert!(done.learn.completed().contains("row-ranges"));
    }

    /// The read the started lesson's session would judge.
    fn judged(state: &AppState) -> ReadRecord {
        let active = state.learn.active.clone().expect("a lesson runs");
        let session = active.session.borrow();
        session.last_read().cloned().expect("a read was recorded")
    }

    /// Runs `text` in `tab` of the console.
    fn console(state: &AppState, tab: Tab, text: &str) -> AppState {
        let next = state
            .apply(Action::ConsoleTab(tab))
            .apply(Action::ConsoleInput(text.into()))
            .apply(Action::ConsoleRun);
        let entry = next.console.entries.last().unwrap();
        assert!(entry.ok, "{text}: {}", entry.output);
        next
    }

    #[test]
    fn checks_judge_cbt_json_and_sql_reads_from_their_traces() {
        use crate::state::console::ReadReport;
        use tabletop_core::{Traces, api, cbt::NoHost, sql};
        let started = learn(&app(), LearnAction::Start("row-ranges".into()));
        // The learner's table, split so reads visit several tablets.
        let mut state = console(
            &started,
            Tab::Cbt,
            "createtable split families=stats splits=phone#5,phone#9",
        );
        for key in ["phone#1", "phone#4", "phone#6", "phone#8", "tablet#2"] {
            state = console(&state, Tab::Cbt, &format!("set split {key} stats:cpu=1"));
        }
        // "phone#" to "phone#~" in base64: every phone row, across tablets.
        let json = r#"{"method":"readRows","request":{"tableName":"projects/p/instances/i/tables/split","rows":{"rowRanges":[{"startKeyClosed":"cGhvbmUj","endKeyOpen":"cGhvbmUjfg=="}]}}}"#;
        let query = "SELECT _key FROM split WHERE STARTS_WITH(_key, 'phone#')";
        for (tab, text) in [
            (Tab::Cbt, "read split prefix=phone#"),
            (Tab::Json, json),
            (Tab::Sql, query),
        ] {
            // The core's own trace of the same read, on a copy of the tables.
            let mut twin = state.instance().clone();
            let mut traces = Traces::new(tabletop_core::lesson::RECORD_OPTIONS);
            match tab {
                Tab::Cbt => {
                    let out = tabletop_core::cbt::exec_line_traced(
                        &mut twin,
                        text,
                        &mut NoHost,
                        &mut traces,
                    );
                    assert!(out.status.is_ok());
                }
                Tab::Json => {
                    api::handle_traced(&mut twin, text, &mut traces);
                }
                Tab::Sql => {
                    sql::execute_traced(&mut twin, text, &mut traces).unwrap();
                }
            }
            let core = traces.last_read().expect("the core traced a read").clone();
            assert_eq!(
                core.distinct_tablets().len(),
                3,
                "{tab:?}: three phone tablets"
            );

            let ran = console(&state, tab, text);
            // The console's report is the trace's.
            let report = ran.console.last_read().unwrap();
            assert_eq!(*report, ReadReport::from_trace(&core, true), "{tab:?}");
            assert_eq!(report.tablets, core.read.tablets, "{tab:?}");
            // The check judges the same read, keys and tablets visited.
            let checked = learn(&ran, LearnAction::Check);
            let record = judged(&checked);
            assert_eq!(record, ReadRecord::from_trace(text, &core), "{tab:?}");
            assert_eq!(record.tablets_visited, 3, "{tab:?}");
            assert_eq!(record.rows_returned, 4, "{tab:?}");
            assert_eq!(record.keys_returned.len(), 4, "{tab:?}");
            assert!(record.keys_complete, "{tab:?}");
        }
    }

    #[test]
    fn a_read_longer_than_its_echo_is_judged_as_it_ran() {
        use crate::state::console::MAX_ECHO_CHARS;
        let started = learn(&app(), LearnAction::Start("row-ranges".into()));
        // The May rows of the device, through a regular expression padded
        // with days that do not exist: a command far longer than its echo.
        let never: Vec<String> = (0..400).map(|i| format!("x{i:04}")).collect();
        let line = format!(
            "read mobile prefix=phone#4c410523#202005 'regex=phone#4c410523#202005(..|{})'",
            never.join("|")
        );
        assert!(line.chars().count() > MAX_ECHO_CHARS);
        let ran = cbt(&started, &line);
        let entry = ran.console.entries.last().unwrap();
        assert!(entry.ok, "{}", entry.output);
        assert!(entry.input_cut_from.is_some(), "the echo is cut");
        let checked = learn(&ran, LearnAction::Check);
        let verdict = checked.learn.verdict.clone().unwrap();
        assert!(verdict.passed, "{verdict:#?}");
        let record = judged(&checked);
        assert_eq!((record.rows_scanned, record.rows_returned), (30, 30));
    }

    #[test]
    fn only_a_running_lesson_traces_the_keys_a_read_returned() {
        let before = cbt(&app(), "read mobile-time-series");
        let trace = before
            .console
            .entries
            .last()
            .unwrap()
            .trace
            .clone()
            .unwrap();
        assert!(
            trace.returned_keys.is_empty(),
            "ordinary reads keep no keys"
        );
        let started = learn(&before, LearnAction::Start("row-ranges".into()));
        let read = cbt(&started, "read mobile prefix=phone#4c410523#202005");
        let trace = read.console.entries.last().unwrap().trace.clone().unwrap();
        assert_eq!(trace.returned_keys.len(), 30);
        let left = cbt(&learn(&read, LearnAction::Stop), "read mobile-time-series");
        let trace = left.console.entries.last().unwrap().trace.clone().unwrap();
        assert!(trace.returned_keys.is_empty(), "and none after it");
    }

    #[test]
    fn design_lessons_pass_after_their_solutions() {
        for (id, solution) in [
            (
                "zero-padding",
                include_str!("../../../core/tests/lesson_solutions/zero-padding.toml"),
            ),
            (
                "delimited-keys",
                include_str!("../../../core/tests/lesson_solutions/delimited-keys.toml"),
            ),
            (
                "gc-versions-age",
                include_str!("../../../core/tests/lesson_solutions/gc-versions-age.toml"),
            ),
        ] {
            let started = learn(&app(), LearnAction::Start(id.into()));
            let before = learn(&started, LearnAction::Check);
            assert!(
                !before.learn.verdict.as_ref().unwrap().passed,
                "{id} passes at its start"
            );
            let after = learn(&solve(&before, solution), LearnAction::Check);
            let v = after.learn.verdict.as_ref().unwrap();
            assert!(v.passed, "{id}: {v:#?}");
            assert!(after.learn.completed().contains(id));
        }
    }

    #[test]
    fn simulated_lessons_are_checked_with_a_simulation_of_the_design() {
        let started = learn(&app(), LearnAction::Start("timestamp-first".into()));
        let before = learn(&started, LearnAction::Check);
        let v = before.learn.verdict.as_ref().unwrap();
        assert!(!v.passed, "{v:#?}");
        let after = learn(
            &solve(
                &before,
                include_str!("../../../core/tests/lesson_solutions/timestamp-first.toml"),
            ),
            LearnAction::Check,
        );
        let v = after.learn.verdict.as_ref().unwrap();
        assert!(v.passed, "{v:#?}");
    }

    #[test]
    fn a_fix_changes_the_design_and_the_findings_and_can_be_undone() {
        let state = learn(
            &app(),
            LearnAction::PickScenario("lesson_scores_unpadded.toml".into()),
        );
        assert_eq!(state.design.source, "lesson_scores_unpadded");
        let before = state.design.scenario.clone().unwrap();
        assert!(rules(&state).contains(&"unpadded_number".to_string()));
        let fix = first_fix(&state, "unpadded_number");
        let fixed = learn(&state, LearnAction::ApplyFix(Box::new(fix)));
        let after = fixed.design.scenario.clone().unwrap();
        assert_ne!(before.key, after.key, "the key changed");
        assert!(!rules(&fixed).contains(&"unpadded_number".to_string()));
        assert_eq!(
            fixed
                .learn
                .undo_top()
                .map(|(title, n)| (title.is_empty(), n)),
            Some((false, 1))
        );
        let undone = learn(&fixed, LearnAction::Undo);
        assert_eq!(undone.design.scenario.as_deref(), Some(&*before));
        assert!(rules(&undone).contains(&"unpadded_number".to_string()));
        assert!(undone.learn.undo.is_empty());
    }

    #[test]
    fn fixes_are_undone_one_by_one_newest_first() {
        // A design with several findings; apply three fixes in a row.
        let mut states = vec![learn(
            &app(),
            LearnAction::PickScenario("lesson_scores_unpadded.toml".into()),
        )];
        let mut titles = Vec::new();
        while titles.len() < 3 {
            let state = states.last().unwrap();
            let Some(fix) = advisor_view(state.design.scenario.as_deref(), &state.instance(), None)
                .findings
                .iter()
                .flat_map(|f| f.fixes.iter())
                .map(|f| f.fix.clone())
                .find(|f| !titles.contains(&f.title))
            else {
                break;
            };
            titles.push(fix.title.clone());
            let next = learn(state, LearnAction::ApplyFix(Box::new(fix)));
            assert!(!next.notice.as_ref().unwrap().error, "{:?}", next.notice);
            states.push(next);
        }
        assert!(
            titles.len() >= 2,
            "the scenario offers several fixes: {titles:?}"
        );
        let mut state = states.pop().unwrap();
        assert_eq!(state.learn.undo.len(), titles.len());
        // Each Undo goes back exactly one step.
        while let Some(expected) = states.pop() {
            let (title, n) = state.learn.undo_top().unwrap();
            assert_eq!(title, titles[n - 1]);
            state = learn(&state, LearnAction::Undo);
            assert_eq!(state.design.scenario, expected.design.scenario);
            assert_eq!(state.learn.undo.len(), n - 1);
        }
        assert!(state.learn.undo_top().is_none());
    }

    #[test]
    fn the_undo_stack_keeps_few_instance_copies() {
        let mut learn = LearnState::default();
        let undo = |title: &str, instance: bool| Undo {
            title: title.into(),
            scenario: None,
            instance: instance.then(|| Rc::new(Instance::default())),
        };
        for i in 0..UNDO_DEPTH + 5 {
            learn.push_undo(undo(&format!("design {i}"), false));
        }
        assert_eq!(learn.undo.len(), UNDO_DEPTH);
        assert_eq!(learn.undo[0].title, "design 5");
        for i in 0..UNDO_INSTANCES + 1 {
            learn.push_undo(undo(&format!("table {i}"), true));
        }
        let copies = learn.undo.iter().filter(|u| u.instance.is_some()).count();
        assert_eq!(copies, UNDO_INSTANCES);
        // Everything older than the oldest copy kept went with it.
        assert_eq!(learn.undo[0].title, "table 1");
        assert_eq!(
            learn.undo_top().unwrap().0,
            format!("table {UNDO_INSTANCES}")
        );
    }

    #[test]
    fn fixes_of_instance_tables_change_the_instance() {
        // A table whose family has no GC rule.
        let state = cbt(&app(), "createtable events families=cf");
        assert_eq!(state.tables[0].name, "events");
        let fix = first_fix(&state, "no_gc_rule");
        let fixed = learn(&state, LearnAction::ApplyFix(Box::new(fix)));
        assert!(!fixed.notice.as_ref().unwrap().error, "{:?}", fixed.notice);
        assert_ne!(
            fixed.tables[0].families, state.tables[0].families,
            "a GC rule was set on the instance's table"
        );
        let undone = learn(&fixed, LearnAction::Undo);
        assert_eq!(undone.tables[0].families, state.tables[0].families);
    }

    #[test]
    fn the_designer_applies_valid_drafts_and_keeps_invalid_ones() {
        use crate::view_model::keydesign::SegField;
        let state = learn(
            &app(),
            LearnAction::PickScenario("lesson_scores_unpadded.toml".into()),
        );
        let rev = state.design.rev;
        let typed = learn(
            &state,
            LearnAction::Draft(DraftEdit::Field(0, SegField::Width, "abc".into())),
        );
        assert_eq!(typed.design.rev, rev, "an invalid draft is not the design");
        let error = typed.learn.draft.error.clone().unwrap();
        assert!(error.contains("whole number"), "{error}");
        let fixed = learn(
            &typed,
            LearnAction::Draft(DraftEdit::Field(0, SegField::Width, "6".into())),
        );
        assert!(fixed.learn.draft.error.is_none());
        assert_eq!(fixed.design.source, "edited");
        assert_eq!(
            fixed.design.scenario.as_ref().unwrap().key.pattern(),
            "{player_id:int6}#{game:enum}"
        );
        // The draft is still the one typed, for the new revision.
        assert_eq!(fixed.learn.draft.rev, fixed.design.rev);
        // A delimiter past the core's limit is refused with its message,
        // and the text stays as typed.
        let long = learn(
            &fixed,
            LearnAction::Draft(DraftEdit::Delimiter("#########".into())),
        );
        assert!(
            long.learn
                .draft
                .error
                .as_deref()
                .unwrap()
                .contains("limit is 8")
        );
        assert_eq!(long.learn.draft.delimiter, "#########");
        assert_eq!(long.design.rev, fixed.design.rev);
        // Removing a segment is a new design with its own access plans.
        let removed = learn(&fixed, LearnAction::Draft(DraftEdit::Remove(0)));
        assert_eq!(
            removed.design.scenario.as_ref().unwrap().key.pattern(),
            "{game:enum}"
        );
        let plan = &advisor_view(
            removed.design.scenario.as_deref(),
            &removed.instance(),
            None,
        )
        .access[0];
        assert_eq!(plan.shape, "full_scan");
    }

    #[test]
    fn designer_edits_rewrite_a_lessons_sample_rows() {
        use crate::view_model::keydesign::SegField;
        let started = learn(&app(), LearnAction::Start("zero-padding".into()));
        let first_key = |s: &AppState| s.rows.window.lines[0].key.text.clone();
        assert!(
            !first_key(&started).starts_with("00"),
            "{}",
            first_key(&started)
        );
        let padded = learn(
            &started,
            LearnAction::Draft(DraftEdit::Field(0, SegField::Width, "6".into())),
        );
        assert!(
            first_key(&padded).starts_with("0000"),
            "{}",
            first_key(&padded)
        );
        let done = learn(&padded, LearnAction::Check);
        assert!(
            done.learn.verdict.as_ref().unwrap().passed,
            "{:?}",
            done.learn.verdict
        );
    }

    #[test]
    fn progress_loads_resumes_and_resets() {
        let mut saved = SavedProgress::default();
        saved.progress.complete("row-ranges");
        saved.current = Some("zero-padding".into());
        let state = learn(&app(), LearnAction::LoadProgress(Some(saved.to_json())));
        assert!(state.learn.loaded);
        assert_eq!(state.learn.saved, saved);
        // Resuming keeps the playground's tables.
        let resumed = learn(&state, LearnAction::Resume("row-ranges".into()));
        assert_eq!(table_ids(&resumed), ["mobile-time-series"]);
        assert_eq!(resumed.learn.active_id(), Some("row-ranges"));
        let stopped = learn(&resumed, LearnAction::Stop);
        assert!(stopped.learn.active.is_none());
        let reset = learn(&stopped, LearnAction::ResetProgress);
        assert!(reset.learn.completed().is_empty());
        let nothing = learn(&app(), LearnAction::LoadProgress(None));
        assert!(nothing.learn.loaded && nothing.learn.completed().is_empty());
        let check_idle = learn(&app(), LearnAction::Check);
        assert!(check_idle.notice.as_ref().unwrap().error);
    }
}

#[cfg(test)]
mod share_tests {
    use super::*;
    use crate::share;
    use crate::state::AppState;
    use crate::state::layout::Panels;
    use crate::state::{Boot, TestClock};

    #[test]
    fn a_started_lesson_travels_in_autosave() {
        let clock = || Rc::new(TestClock::new(1_700_000_000_000_000, 0.5));
        let state = AppState::new(clock(), false, Panels::default())
            .apply(Action::Boot(Boot::Demo))
            .apply(Action::Learn(LearnAction::Start("row-ranges".into())));
        for for_link in [false, true] {
            let text = share::encode(&state.to_shared(for_link));
            let back = AppState::new(clock(), false, Panels::default()).apply(Action::Boot(
                Boot::Shared(Box::new(share::decode(&text).expect("decodes"))),
            ));
            assert_eq!(back.notice, None, "link {for_link}");
            assert_eq!(back.rows.total_rows(), 360, "link {for_link}");
        }
    }
}

#[cfg(test)]
mod home_tests {
    use super::*;
    use crate::share;
    use crate::state::AppState;
    use crate::state::console::Tab;
    use crate::state::layout::Panels;
    use crate::state::{Boot, TestClock};

    fn fresh() -> AppState {
        AppState::new(
            Rc::new(TestClock::new(1_700_000_000_000_000, 0.5)),
            false,
            Panels::default(),
        )
    }

    fn cbt(state: &AppState, line: &str) -> AppState {
        let next = state
            .apply(Action::ConsoleTab(Tab::Cbt))
            .apply(Action::ConsoleInput(line.into()))
            .apply(Action::ConsoleRun);
        assert!(next.console.entries.last().unwrap().ok, "{line}");
        next
    }

    fn names(state: &AppState) -> Vec<String> {
        state.tables.iter().map(|t| t.name.clone()).collect()
    }

    fn reload(state: &AppState) -> AppState {
        let text = share::encode(&state.to_shared(false));
        fresh().apply(Action::Boot(Boot::Shared(Box::new(
            share::decode(&text).unwrap(),
        ))))
    }

    fn mine() -> AppState {
        let state = cbt(
            &fresh().apply(Action::Boot(Boot::Demo)),
            "createtable mine families=cf",
        );
        let state = cbt(&state, "set mine r1 cf:q=typed-by-hand");
        state.apply(Action::Learn(LearnAction::PickScenario(
            "mobile_device_first.toml".into(),
        )))
    }

    #[test]
    fn leaving_a_lesson_brings_the_users_work_back() {
        let state = mine();
        let design = state.design.scenario.clone();
        let started = state.apply(Action::Learn(LearnAction::Start("row-ranges".into())));
        assert_eq!(names(&started), ["mobile"]);
        assert_eq!(started.home.as_ref().unwrap().tables, 2);
        // A second lesson replaces the first one's tables, not the user's.
        let second = started.apply(Action::Learn(LearnAction::Start("zero-padding".into())));
        assert_eq!(names(&second), ["scores"]);
        let left = second.apply(Action::Learn(LearnAction::Stop));
        assert!(left.learn.active.is_none() && left.home.is_none());
        assert_eq!(names(&left), ["mine", "mobile-time-series"]);
        assert_eq!(left.design.scenario, design, "the design came back");
        assert!(left.design.rev > second.design.rev);
        let read = cbt(&left, "read mine");
        assert!(
            read.console
                .entries
                .last()
                .unwrap()
                .output
                .contains("typed-by-hand"),
            "the rows typed by hand came back"
        );
    }

    #[test]
    fn a_reload_mid_lesson_resumes_it_and_leaving_still_brings_the_work_back() {
        let started = mine().apply(Action::Learn(LearnAction::Start("row-ranges".into())));
        let reloaded = reload(&started);
        assert_eq!(
            reloaded.learn.active_id(),
            Some("row-ranges"),
            "the lesson goes on"
        );
        assert_eq!(names(&reloaded), ["mobile"]);
        let checked = reloaded.apply(Action::Learn(LearnAction::Check));
        assert!(checked.learn.verdict.is_some());
        let left = checked.apply(Action::Learn(LearnAction::Stop));
        assert_eq!(names(&left), ["mine", "mobile-time-series"]);
        let read = cbt(&left, "read mine");
        assert!(
            read.console
                .entries
                .last()
                .unwrap()
                .output
                .contains("typed-by-hand")
        );
        assert_eq!(
            left.design.scenario.as_ref().map(|s| s.table.id.clone()),
            mine().design.scenario.as_ref().map(|s| s.table.id.clone())
        );
        // And a reload after leaving keeps the user's work.
        assert_eq!(names(&reload(&left)), ["mine", "mobile-time-series"]);
    }

    #[test]
    fn a_snapshot_import_during_a_lesson_ends_it_and_replaces_the_users_work() {
        let state = mine();
        let snapshot = {
            let other = cbt(&fresh(), "createtable other");
            Rc::new(other.snapshot())
        };
        let started = state.apply(Action::Learn(LearnAction::Start("row-ranges".into())));
        let asked = started.apply(Action::ImportSnapshot("o.tabletop".into(), snapshot));
        assert!(asked.pending_import.is_some(), "the user is asked first");
        let imported = asked.apply(Action::ConfirmImport(true));
        assert!(imported.learn.active.is_none() && imported.home.is_none());
        assert_eq!(names(&imported), ["other"]);
        let undone = imported.apply(Action::UndoReplace);
        assert_eq!(names(&undone), ["mine", "mobile-time-series"]);
    }
}
