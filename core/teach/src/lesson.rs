//! Interactive lessons: each teaches one best practice from the seed
//! documents by letting the learner see its consequence and fix it.
//!
//! # Overview
//!
//! - A [`Lesson`] is a TOML file under `static/lessons/` (format in
//!   `static/lessons/README.md`): id, title, goal, task, hint, related
//!   advisor rules, a [`Setup`] (clock, scenario, cbt commands, generated
//!   rows) and [`Check`]s in a small declarative language.
//! - A [`Catalog`] holds lessons and the scenario files they name;
//!   [`builtin`] is the catalog of the files shipped in `static/`.
//! - A [`Session`] is one learner working on one lesson: it owns the
//!   playground [`Instance`] and the design (a [`Scenario`]) and records
//!   reads, advisor fixes and simulation reports, so that
//!   [`Session::check`] can say whether the goal is reached.
//! - [`Progress`] is what the web app keeps in the browser: completed
//!   lesson ids.
//!
//! ```
//! use tabletop_core::lesson;
//!
//! let catalog = lesson::builtin()?;
//! let mut s = catalog.start("row-ranges")?;
//! assert!(!s.check().passed);
//! s.run_cbt("read mobile prefix=phone#4c410523#202005");
//! assert!(s.check().passed);
//! # Ok::<(), tabletop_core::Error>(())
//! ```

mod builtin;
mod check;
mod record;
mod setup;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

pub use builtin::{builtin, lesson_files, scenario_files};
pub use check::{Check, CheckResult, State};
pub use record::{RECORD_OPTIONS, ReadRecord};
pub use setup::{RowsSpec, Setup, expand};
pub use tabletop_store::shape_of;

use crate::advisor::{
    self, AccessPlan, Design, Edit, Finding, Fix, RuleId, apply_to_instance, apply_to_scenario,
};
use tabletop_design::sim::{
    MAX_SAMPLE_ROWS, Report, SampleMoment, SampleRows, SampleSpec, Scenario, Simulation, StartTime,
};
use tabletop_sql::Instance;
use tabletop_store::{Error, Result};
use tabletop_store::{InstanceConfig, ReadRowsRequest};
use tabletop_store::{OwnedRow, ReadStats, Trace, Traces};

/// Rows per MutateRows call when the session writes its sample rows.
const SAMPLE_BATCH_ROWS: usize = 1000;

/// Who writes the sample rows a lesson keeps of its design
/// (`setup.materialize`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SampleWriting {
    /// The session, at once, whenever the design changes (native hosts,
    /// tests).
    #[default]
    Now,
    /// The host, in slices: the session creates the (empty) table and
    /// hands the rows over as a stream ([`Session::take_sample`]), so a
    /// page can write them with progress and a Stop.
    Host,
}

/// Sample rows of the lesson's design that the host writes
/// ([`SampleWriting::Host`]): their table exists, empty, with the
/// design's families and splits.
#[derive(Clone, Debug)]
pub struct PendingSample {
    /// The table, named as the design names it.
    pub table: String,
    /// The rows, to be written in batches.
    pub rows: SampleRows,
}

/// A sample size the simulator can make.
fn clamp_sample_rows(rows: u64) -> u64 {
    rows.clamp(1, MAX_SAMPLE_ROWS)
}

/// Default instance clock of a lesson without one or a scenario.
const DEFAULT_CLOCK: i64 = 1_590_969_600_000_000; // 2020-06-01T00:00:00Z

/// One check as written in a lesson: the predicate and what it means for
/// the learner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LessonCheck {
    /// The goal in words ("Read one device's May data with one prefix").
    pub says: Option<String>,
    /// The predicate.
    pub check: Check,
}

/// A lesson.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    /// Stable id (`row-ranges`): progress is stored under it.
    pub id: String,
    /// Title.
    pub title: String,
    /// Position in the list.
    pub order: u32,
    /// Topics it covers, in words.
    pub topics: Vec<String>,
    /// Seed topics it draws on, by name.
    pub seed: Vec<String>,
    /// Advisor rules it explains.
    pub rules: Vec<RuleId>,
    /// What the learner will understand.
    pub goal: String,
    /// What to do.
    pub task: String,
    /// A nudge.
    pub hint: String,
    /// What to remember, shown once the lesson passes.
    pub takeaway: String,
    /// The starting state.
    pub setup: Setup,
    /// All must pass.
    pub checks: Vec<LessonCheck>,
}

/// The file form of a lesson.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLesson {
    id: String,
    title: String,
    #[serde(default)]
    order: u32,
    #[serde(default)]
    topics: Vec<String>,
    #[serde(default)]
    seed: Vec<String>,
    #[serde(default)]
    rules: Vec<RuleId>,
    goal: String,
    task: String,
    hint: String,
    #[serde(default)]
    takeaway: String,
    #[serde(default)]
    setup: Setup,
    #[serde(rename = "check")]
    checks: Vec<toml::Table>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .unwrap_or(text)
        .matches('\n')
        .count()
        + 1
}

fn nth_line(text: &str, header: &str, n: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(header))
        .nth(n)
        .map(|(i, _)| i + 1)
}

impl Lesson {
    /// Parses and checks a lesson file. Errors are `INVALID_ARGUMENT` and
    /// name the line (syntax, unknown fields, bad checks).
    pub fn from_toml(text: &str) -> Result<Lesson> {
        let raw: RawLesson = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!("line {}: ", line_of(text, s.start)))
                .unwrap_or_default();
            Error::invalid(format!("lesson: {at}{}", e.message().trim()))
        })?;
        let bad = |m: String| Error::invalid(format!("lesson {:?}: {m}", raw.id));
        if raw.id.is_empty()
            || raw.id.len() > 64
            || !raw
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(Error::invalid(format!(
                "lesson: id {:?} must be 1 to 64 characters from [a-z0-9-]",
                raw.id
            )));
        }
        for (field, v) in [
            ("title", &raw.title),
            ("goal", &raw.goal),
            ("task", &raw.task),
            ("hint", &raw.hint),
        ] {
            if v.trim().is_empty() {
                return Err(bad(format!("`{field}` must not be empty")));
            }
        }
        if raw.checks.is_empty() {
            return Err(bad("a lesson needs at least one [[check]]".into()));
        }
        if raw.setup.materialize.is_some() && raw.setup.scenario.is_none() {
            return Err(bad("setup.materialize needs setup.scenario".into()));
        }
        if raw.setup.materialize.is_some_and(|n| n == 0 || n > 50_000) {
            return Err(bad("setup.materialize must be from 1 to 50000".into()));
        }
        for r in &raw.setup.rows {
            setup::expand(&r.keys).map_err(|e| bad(e.message().to_string()))?;
        }
        let mut checks = Vec::with_capacity(raw.checks.len());
        for (i, mut t) in raw.checks.into_iter().enumerate() {
            let at = |m: String| {
                let line = nth_line(text, "[[check]]", i)
                    .map(|l| format!("line {l}: "))
                    .unwrap_or_default();
                Error::invalid(format!("lesson {:?}: {line}check #{}: {m}", raw.id, i + 1))
            };
            let says = match t.remove("says") {
                None => None,
                Some(toml::Value::String(s)) => Some(s),
                Some(_) => return Err(at("`says` must be a string".into())),
            };
            let check: Check = toml::Value::Table(t)
                .try_into()
                .map_err(|e: toml::de::Error| at(e.message().trim().to_string()))?;
            check.validate().map_err(|e| at(e.message().to_string()))?;
            checks.push(LessonCheck { says, check });
        }
        Ok(Lesson {
            id: raw.id,
            title: raw.title,
            order: raw.order,
            topics: raw.topics,
            seed: raw.seed,
            rules: raw.rules,
            goal: raw.goal.trim().to_string(),
            task: raw.task.trim().to_string(),
            hint: raw.hint.trim().to_string(),
            takeaway: raw.takeaway.trim().to_string(),
            setup: raw.setup,
            checks,
        })
    }
}

/// What the Lessons panel lists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonSummary {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Position.
    pub order: u32,
    /// Topics.
    pub topics: Vec<String>,
    /// Related advisor rules.
    pub rules: Vec<RuleId>,
}

/// Lessons and the scenario files they use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    lessons: Vec<Lesson>,
    scenarios: BTreeMap<String, String>,
}

impl Catalog {
    /// An empty catalog.
    #[must_use]
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Adds a scenario file under its name (`mobile_device_first.toml`).
    pub fn add_scenario(&mut self, name: &str, text: &str) {
        self.scenarios.insert(name.to_string(), text.to_string());
    }

    /// Parses a lesson and adds it. Its scenario must have been added;
    /// ids must be unique.
    pub fn add_lesson_toml(&mut self, text: &str) -> Result<&Lesson> {
        let lesson = Lesson::from_toml(text)?;
        if let Some(s) = &lesson.setup.scenario {
            let Some(t) = self.scenarios.get(s) else {
                return Err(Error::invalid(format!(
                    "lesson {:?}: setup.scenario {s:?} is not a known scenario file",
                    lesson.id
                )));
            };
            Scenario::from_toml(t).map_err(|e| {
                Error::invalid(format!(
                    "lesson {:?}: scenario {s}: {}",
                    lesson.id,
                    e.message()
                ))
            })?;
        }
        if self.lessons.iter().any(|l| l.id == lesson.id) {
            return Err(Error::already_exists(format!(
                "lesson id {:?} is used twice",
                lesson.id
            )));
        }
        let pos = self
            .lessons
            .partition_point(|l| (l.order, &l.id) < (lesson.order, &lesson.id));
        self.lessons.insert(pos, lesson);
        Ok(&self.lessons[pos])
    }

    /// The lessons in order.
    #[must_use]
    pub fn lessons(&self) -> &[Lesson] {
        &self.lessons
    }

    /// Ids, titles and topics for a list.
    #[must_use]
    pub fn summaries(&self) -> Vec<LessonSummary> {
        self.lessons
            .iter()
            .map(|l| LessonSummary {
                id: l.id.clone(),
                title: l.title.clone(),
                order: l.order,
                topics: l.topics.clone(),
                rules: l.rules.clone(),
            })
            .collect()
    }

    /// A lesson by id.
    #[must_use]
    pub fn lesson(&self, id: &str) -> Option<&Lesson> {
        self.lessons.iter().find(|l| l.id == id)
    }

    /// The lesson that explains an advisor rule (the first that lists it).
    #[must_use]
    pub fn lesson_for_rule(&self, rule: RuleId) -> Option<&Lesson> {
        self.lesson(rule.info().lesson)
            .or_else(|| self.lessons.iter().find(|l| l.rules.contains(&rule)))
    }

    /// A scenario file's text.
    #[must_use]
    pub fn scenario_text(&self, name: &str) -> Option<&str> {
        self.scenarios.get(name).map(String::as_str)
    }

    /// Starts (or restarts) a lesson; the session writes its sample rows
    /// itself.
    pub fn start(&self, id: &str) -> Result<Session> {
        self.start_with(id, SampleWriting::Now)
    }

    /// Starts (or restarts) a lesson, its sample rows written as `writing`
    /// says.
    pub fn start_with(&self, id: &str, writing: SampleWriting) -> Result<Session> {
        self.start_sized(id, writing, None)
    }

    /// Starts (or restarts) a lesson as [`Catalog::start_with`] does, its
    /// sample rows `rows` many instead of the lesson's own number (`None`:
    /// the lesson's; see [`Session::set_sample_rows`]).
    pub fn start_sized(
        &self,
        id: &str,
        writing: SampleWriting,
        rows: Option<u64>,
    ) -> Result<Session> {
        let lesson = self
            .lesson(id)
            .ok_or_else(|| Error::not_found(format!("no lesson with id {id:?}")))?;
        let scenario = lesson
            .setup
            .scenario
            .as_ref()
            .and_then(|s| self.scenario_text(s));
        Session::new_sized(lesson.clone(), scenario, writing, rows)
    }
}

/// The verdict on a session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// Every check passed.
    pub passed: bool,
    /// One result per check, in order.
    pub checks: Vec<CheckResult>,
    /// One line for the learner.
    pub message: String,
}

/// A learner working on a lesson: the instance, the design being edited,
/// the last read and the last simulation report.
#[derive(Clone, Debug)]
pub struct Session {
    lesson: Lesson,
    instance: Instance,
    scenario: Option<Scenario>,
    /// The report and the design it was made for.
    report: Option<(Report, Scenario)>,
    last_read: Option<ReadRecord>,
    /// The table the scenario's sample rows were written to.
    materialized: Option<String>,
    /// Who writes the sample rows.
    writing: SampleWriting,
    /// Sample rows the host has not taken yet ([`SampleWriting::Host`]).
    pending: Option<PendingSample>,
    /// Sample rows the learner asked for instead of the lesson's number.
    sample_rows: Option<u64>,
}

impl Session {
    /// Sets up a lesson: `scenario_text` is the text of the file its setup
    /// names (if any).
    pub fn new(lesson: Lesson, scenario_text: Option<&str>) -> Result<Session> {
        Session::new_with(lesson, scenario_text, SampleWriting::Now)
    }

    /// Sets up a lesson whose sample rows are written as `writing` says.
    pub fn new_with(
        lesson: Lesson,
        scenario_text: Option<&str>,
        writing: SampleWriting,
    ) -> Result<Session> {
        Session::new_sized(lesson, scenario_text, writing, None)
    }

    /// Sets up a lesson as [`Session::new_with`] does, with `rows` sample
    /// rows instead of the lesson's number (`None`: the lesson's).
    pub fn new_sized(
        lesson: Lesson,
        scenario_text: Option<&str>,
        writing: SampleWriting,
        rows: Option<u64>,
    ) -> Result<Session> {
        let scenario = match (&lesson.setup.scenario, scenario_text) {
            (Some(_), Some(t)) => Some(Scenario::from_toml(t)?),
            (Some(name), None) => {
                return Err(Error::invalid(format!(
                    "lesson {:?} needs the scenario file {name:?}",
                    lesson.id
                )));
            }
            (None, _) => None,
        };
        let clock = lesson
            .setup
            .clock
            .map(|c| c.0)
            .or_else(|| scenario.as_ref().map(|s| s.start.0))
            .unwrap_or(DEFAULT_CLOCK);
        let mut instance = Instance::new(InstanceConfig {
            simulated_clock: true,
            ..InstanceConfig::default()
        });
        instance.set_now(clock);
        let mut s = Session {
            lesson,
            instance,
            scenario,
            report: None,
            last_read: None,
            materialized: None,
            writing,
            pending: None,
            sample_rows: rows.map(clamp_sample_rows),
        };
        s.materialize()?;
        let setup = s.lesson.setup.clone();
        for line in &setup.cbt {
            s.setup_cbt(line)?;
        }
        for rows in &setup.rows {
            let now = s.instance.now_micros();
            rows.write(&mut s.instance, now)?;
        }
        for line in &setup.then {
            s.setup_cbt(line)?;
        }
        Ok(s)
    }

    fn setup_cbt(&mut self, line: &str) -> Result<()> {
        let out = self.run_cbt(line);
        out.status
            .map_err(|e| Error::new(e.code(), format!("lesson setup `{line}`: {}", e.message())))
    }

    /// (Re)writes the scenario's sample rows when the lesson asks for it:
    /// the session's earlier sample table goes, the design's table is
    /// created (split as the simulation's tablets) and its rows are
    /// written now or handed to the host. A table of that name that the
    /// session did not make is never replaced: that is an error.
    fn materialize(&mut self) -> Result<()> {
        let (Some(n), Some(s)) = (self.lesson.setup.materialize, &self.scenario) else {
            return Ok(());
        };
        self.pending = None;
        if let Some(old) = self.materialized.take() {
            let _ = self.instance.delete_table(&old);
        }
        let table = s.table.id.clone();
        if self.instance.has_table(&table) {
            return Err(Error::already_exists(format!(
                "table {table:?} exists and is not the lesson's sample table; delete or rename \
                 it, or give the design another table id"
            )));
        }
        let sim = Simulation::new(s.clone())?;
        self.instance.create_table(sim.table_request(&table))?;
        self.materialized = Some(table.clone());
        let mut rows = sim.sample_rows(SampleSpec {
            rows: self.sample_rows.unwrap_or(n as u64),
            seed: 0,
            moment: SampleMoment::Now,
        });
        match self.writing {
            SampleWriting::Now => {
                while rows.write_batch(&mut self.instance, &table, SAMPLE_BATCH_ROWS)? > 0 {}
            }
            SampleWriting::Host => self.pending = Some(PendingSample { table, rows }),
        }
        Ok(())
    }

    /// How many sample rows the lesson keeps of its design: the
    /// learner's number if they chose one, else the lesson's (`None`: the
    /// lesson keeps none).
    #[must_use]
    pub fn sample_size(&self) -> Option<u64> {
        let n = self.lesson.setup.materialize?;
        Some(self.sample_rows.unwrap_or(n as u64))
    }

    /// Asks for `rows` sample rows instead of the lesson's number (`None`:
    /// back to the lesson's), from 1 to [`MAX_SAMPLE_ROWS`]. When that
    /// changes the size of a lesson that keeps sample rows, they are
    /// rewritten (now or by the host, as the session writes them);
    /// returns whether they were.
    ///
    /// # Errors
    ///
    /// As rewriting them for a new design: the table name is taken by a
    /// table the session did not make.
    pub fn set_sample_rows(&mut self, rows: Option<u64>) -> Result<bool> {
        let before = self.sample_size();
        self.sample_rows = rows.map(clamp_sample_rows);
        if before == self.sample_size() || self.scenario.is_none() {
            return Ok(false);
        }
        self.materialize()?;
        Ok(true)
    }

    /// The sample rows the host is to write now ([`SampleWriting::Host`]):
    /// after the start and after every change of the design that rewrote
    /// them; `None` when nothing new waits.
    pub fn take_sample(&mut self) -> Option<PendingSample> {
        self.pending.take()
    }

    /// The lesson.
    #[must_use]
    pub fn lesson(&self) -> &Lesson {
        &self.lesson
    }

    /// The playground instance.
    #[must_use]
    pub fn instance(&self) -> &Instance {
        &self.instance
    }

    /// The instance, for changes the session need not know about (reads
    /// made through it are not recorded: use [`Session::read`]).
    pub fn instance_mut(&mut self) -> &mut Instance {
        &mut self.instance
    }

    /// The design being edited.
    #[must_use]
    pub fn scenario(&self) -> Option<&Scenario> {
        self.scenario.as_ref()
    }

    /// The design as TOML.
    #[must_use]
    pub fn scenario_toml(&self) -> Option<String> {
        self.scenario.as_ref().map(advisor::scenario_to_toml)
    }

    /// Replaces the design (the editor's "apply"). Errors name the line.
    pub fn set_scenario_toml(&mut self, text: &str) -> Result<()> {
        self.set_scenario(Scenario::from_toml(text)?)
    }

    /// Replaces the design; sample rows are rewritten if the lesson keeps
    /// them.
    pub fn set_scenario(&mut self, scenario: Scenario) -> Result<()> {
        scenario.validate()?;
        if self.scenario.is_none() {
            return Err(Error::failed_precondition(format!(
                "lesson {:?} has no design to edit",
                self.lesson.id
            )));
        }
        let before = self.scenario.replace(scenario);
        if let Err(e) = self.materialize() {
            self.scenario = before;
            let _ = self.materialize();
            return Err(e);
        }
        Ok(())
    }

    /// The advisor's findings on the design and the instance's tables
    /// (with the simulation's evidence when the report is up to date).
    #[must_use]
    pub fn findings(&self) -> Vec<Finding> {
        let design = Design::from_parts(self.scenario.as_ref(), Some(&self.instance));
        advisor::lint_with_report(&design, self.fresh_report())
    }

    /// The design's access patterns, classified.
    #[must_use]
    pub fn access_plans(&self) -> Vec<AccessPlan> {
        self.scenario
            .as_ref()
            .map(advisor::plans)
            .unwrap_or_default()
    }

    /// Applies an advisor fix (see [`Session::apply_edits`]).
    pub fn apply_fix(&mut self, fix: &Fix) -> Result<()> {
        self.apply_edits(&fix.edits)
    }

    /// Applies edits: key, column and scenario-table edits change the
    /// design; edits of tables that exist only in the instance change the
    /// instance (data is copied where needed). All design edits or none.
    pub fn apply_edits(&mut self, edits: &[Edit]) -> Result<()> {
        let scenario_tables: BTreeSet<String> = self
            .scenario
            .iter()
            .flat_map(|s| {
                std::iter::once(s.table.id.clone())
                    .chain(s.other_tables.iter().map(|t| t.id.clone()))
            })
            .collect();
        let on_instance = |e: &Edit| match e {
            Edit::SetGc { table, .. }
            | Edit::AddFamily { table, .. }
            | Edit::RenameFamily { table, .. }
            | Edit::MergeFamilies { table, .. } => !scenario_tables.contains(table),
            Edit::MergeTables { tables, .. } => tables.iter().all(|t| !scenario_tables.contains(t)),
            _ => false,
        };
        let (inst, design): (Vec<Edit>, Vec<Edit>) =
            edits.iter().cloned().partition(|e| on_instance(e));
        if !design.is_empty() {
            let mut s = self.scenario.clone().ok_or_else(|| {
                Error::failed_precondition(format!(
                    "lesson {:?} has no design to edit",
                    self.lesson.id
                ))
            })?;
            apply_to_scenario(&mut s, &design)?;
            self.set_scenario(s)?;
        }
        if !inst.is_empty() {
            apply_to_instance(&mut self.instance, &inst)?;
        }
        Ok(())
    }

    /// Runs a cbt command; its reads (`read`, `lookup`, `count`) are
    /// recorded from the command's own trace.
    pub fn run_cbt(&mut self, line: &str) -> tabletop_wire::cbt::Outcome {
        let mut traces = Traces::new(RECORD_OPTIONS);
        let out = tabletop_wire::cbt::exec_line_traced(
            &mut self.instance,
            line,
            &mut tabletop_wire::cbt::NoHost,
            &mut traces,
        );
        if out.status.is_ok()
            && let Some(t) = traces.last_read()
        {
            self.last_read = Some(ReadRecord::from_trace(line.trim(), t));
        }
        out
    }

    /// Runs a JSON protocol line; `readRows` is recorded from the
    /// request's own trace.
    pub fn run_json(&mut self, line: &str) -> String {
        let mut traces = Traces::new(RECORD_OPTIONS);
        let out = tabletop_wire::api::handle_traced(&mut self.instance, line, &mut traces);
        if let Some(t) = traces.last_read() {
            self.last_read = Some(ReadRecord::from_trace("readRows", t));
        }
        out
    }

    /// Reads rows and records the read (for the Rows panel or a query
    /// builder): one read, traced.
    pub fn read(
        &mut self,
        table: &str,
        req: &ReadRowsRequest,
    ) -> Result<(Vec<OwnedRow>, ReadStats)> {
        let mut rows = tabletop_store::CollectRows::default();
        let mut trace = Trace::new(RECORD_OPTIONS);
        let stats = self
            .instance
            .read_rows_traced(table, req, &mut rows, Some(&mut trace))?;
        self.last_read = Some(ReadRecord::from_trace("read", &trace));
        Ok((rows.rows, stats))
    }

    /// Makes `read` the last read: a read the host ran itself, recorded
    /// from its own trace ([`ReadRecord::from_trace`], traced with
    /// [`RECORD_OPTIONS`]), as a console does for the learner's commands.
    pub fn set_last_read(&mut self, read: ReadRecord) {
        self.last_read = Some(read);
    }

    /// The last read.
    #[must_use]
    pub fn last_read(&self) -> Option<&ReadRecord> {
        self.last_read.as_ref()
    }

    /// A simulation of the design (access patterns with a rate included)
    /// for the host to step; hand its report to [`Session::set_report`].
    pub fn prepare_simulation(&self) -> Result<Simulation> {
        let s = self.scenario.as_ref().ok_or_else(|| {
            Error::failed_precondition(format!(
                "lesson {:?} has no design to simulate",
                self.lesson.id
            ))
        })?;
        Simulation::new(advisor::with_access_workloads(s))
    }

    /// Stores the report of a simulation of the current design.
    pub fn set_report(&mut self, report: Report) {
        if let Some(s) = &self.scenario {
            self.report = Some((report, s.clone()));
        }
    }

    /// Simulates the design to the end and keeps the report.
    pub fn simulate(&mut self) -> Result<&Report> {
        let mut sim = self.prepare_simulation()?;
        let report = sim.run_to_end();
        self.set_report(report);
        self.report
            .as_ref()
            .map(|(r, _)| r)
            .ok_or_else(|| Error::internal("the report was just stored"))
    }

    /// The last report, if it was made for the current design.
    #[must_use]
    pub fn fresh_report(&self) -> Option<&Report> {
        match (&self.report, &self.scenario) {
            (Some((r, s)), Some(cur)) if s == cur => Some(r),
            _ => None,
        }
    }

    /// Evaluates the lesson's checks.
    pub fn check(&mut self) -> Verdict {
        let report = self.fresh_report().cloned();
        let mut state = State {
            instance: &mut self.instance,
            scenario: self.scenario.as_ref(),
            report: report.as_ref(),
            last_read: self.last_read.as_ref(),
        };
        let mut results = Vec::with_capacity(self.lesson.checks.len());
        for c in &self.lesson.checks {
            let (passed, detail) = c.check.evaluate(&mut state);
            results.push(CheckResult {
                passed,
                says: c.says.clone(),
                detail,
            });
        }
        let passed = results.iter().all(|r| r.passed);
        let done = results.iter().filter(|r| r.passed).count();
        let message = if passed {
            format!("Lesson complete: {}", self.lesson.title)
        } else {
            let next = results
                .iter()
                .find(|r| !r.passed)
                .map(|r| r.says.clone().unwrap_or_else(|| r.detail.clone()))
                .unwrap_or_default();
            format!("{done} of {} checks pass. Next: {next}", results.len())
        };
        Verdict {
            passed,
            checks: results,
            message,
        }
    }

    /// The instance clock.
    #[must_use]
    pub fn now(&self) -> StartTime {
        StartTime(self.instance.now_micros())
    }
}

/// Completed lessons, as the web app stores them in the browser.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Ids of completed lessons.
    #[serde(default)]
    pub completed: BTreeSet<String>,
    /// Ids of lessons whose hint was shown.
    #[serde(default)]
    pub hints_seen: BTreeSet<String>,
}

impl Progress {
    /// Reads stored progress; anything unreadable counts as no progress.
    #[must_use]
    pub fn from_json(text: &str) -> Progress {
        serde_json::from_str(text).unwrap_or_default()
    }

    /// For storage.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }

    /// Marks a lesson completed.
    pub fn complete(&mut self, id: &str) {
        self.completed.insert(id.to_string());
    }

    /// The first lesson not completed yet.
    #[must_use]
    pub fn next<'c>(&self, catalog: &'c Catalog) -> Option<&'c Lesson> {
        catalog
            .lessons()
            .iter()
            .find(|l| !self.completed.contains(&l.id))
    }
}
