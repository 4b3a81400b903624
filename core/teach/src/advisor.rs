//! The schema advisor: checks a design (tables, families and GC rules, a
//! row-key template, what rows hold, the application's reads) and, when
//! there is one, a simulation report, against the best practices of
//! Bigtable's schema-design guide, and says what to change.
//!
//! # Overview
//!
//! - A [`Design`] is built from a scenario ([`Design::from_scenario`]), an
//!   instance's tables ([`Design::from_instance`]) or both
//!   ([`Design::from_parts`]).
//! - [`lint`] (or [`lint_with_report`], which also reads a
//!   [`sim::Report`](tabletop_design::sim::Report)) returns [`Finding`]s, most
//!   severe first. Each has a stable [`RuleId`], a [`Severity`], the
//!   [`Target`] it points at, why it matters (in our words, naming the
//!   seed topic), evidence with numbers, and [`Fix`]es: structured
//!   [`Edit`]s of the design with a [`Preview`] of the new key examples
//!   and of the rules the fix would resolve or introduce.
//! - [`classify`] turns a declared read ([`AccessSpec`], the `[[access]]`
//!   section of a scenario) into an [`AccessPlan`]: a point read, a single
//!   prefix or range scan, a multi-range scan or a full scan, with the row
//!   set it becomes.
//! - [`apply_to_scenario`] and [`apply_to_instance`] carry out a fix (the
//!   web app's one-click fixes); [`scenario_to_toml`] writes the edited
//!   scenario back as TOML.
//! - [`lint_toml`] is everything `tabletop lint SCENARIO.toml [--json]`
//!   does in one call; [`LintReport::exit_code`] gives its exit status.
//!
//! ```
//! use tabletop_core::advisor::{self, RuleId};
//!
//! let report = advisor::lint_toml(r#"
//! name = "readings"
//! duration = "10m"
//! [table]
//! families = { stats = { max_versions = 1 } }
//! [key]
//! segments = [
//!   { name = "ts", kind = "timestamp" },
//!   { name = "device_id", kind = "hex", width = 8 },
//! ]
//! [[workload]]
//! op = "write"
//! rate = 1000
//! "#)?;
//! assert_eq!(report.findings[0].rule, RuleId::TimestampFirst);
//! assert_eq!(report.exit_code(false), 1);
//! # Ok::<(), tabletop_core::Error>(())
//! ```

mod access;
mod design;
mod fix;
mod rule;
mod rules;
mod text;

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

pub use access::{
    AccessPlan, PROBE_RATE, ReadShape, access_cases, access_workloads, classify, plans,
    with_access_workloads,
};
pub use design::{Design, FamilyDesign, TableDesign};
pub use fix::{Edit, Fix, Preview, apply_to_design, apply_to_instance, apply_to_scenario};
pub use rule::{RuleId, RuleInfo, Severity};
pub use tabletop_design::scenario::{AccessSpec, ColumnSpec, OtherTable, scenario_to_toml};

use tabletop_design::sim::{Report, Scenario};
use tabletop_store::Result;

/// What part of the design a finding points at.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// The row key as a whole.
    Key {
        /// Table id.
        table: String,
    },
    /// One segment of the row key.
    Segment {
        /// Table id.
        table: String,
        /// Its position (0 = first).
        index: usize,
        /// Its name.
        name: String,
    },
    /// A column family.
    Family {
        /// Table id.
        table: String,
        /// Family name.
        family: String,
    },
    /// A table.
    Table {
        /// Table id.
        table: String,
    },
    /// Several tables.
    Tables {
        /// Their ids.
        tables: Vec<String>,
    },
    /// A declared access pattern.
    Access {
        /// Its name.
        name: String,
    },
}

impl Target {
    /// A short label: `key`, `segment 1 (ts)`, `family stats`, ...
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            Target::Key { table } => format!("row key of {table}"),
            Target::Segment { index, name, .. } => format!("key segment {} ({name})", index + 1),
            Target::Family { table, family } => format!("family {table}:{family}"),
            Target::Table { table } => format!("table {table}"),
            Target::Tables { tables } => format!("tables {}", tables.join(", ")),
            Target::Access { name } => format!("access \"{name}\""),
        }
    }
}

/// One thing the advisor found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Which rule.
    pub rule: RuleId,
    /// How serious.
    pub severity: Severity,
    /// What it points at.
    pub target: Target,
    /// One line about this design ("The key starts with the timestamp `ts`").
    pub title: String,
    /// Why it matters, in a few sentences.
    pub why: String,
    /// The seed topic the advice comes from.
    pub seed_topic: String,
    /// Numbers and examples from this design (and the simulation, if any).
    pub evidence: Vec<String>,
    /// What to do, best first; each can be applied as is.
    pub fixes: Vec<Fix>,
    /// Id of the lesson that explains the rule.
    pub lesson: String,
}

/// Lints a design: every rule, most severe finding first, with fix
/// previews.
#[must_use]
pub fn lint(design: &Design) -> Vec<Finding> {
    lint_with_report(design, None)
}

/// Lints a design with the report of its simulation: findings the
/// simulation confirms carry its evidence, and problems only the
/// simulation saw (a hot row, rows past the size limit) are added.
#[must_use]
pub fn lint_with_report(design: &Design, report: Option<&Report>) -> Vec<Finding> {
    let mut findings = rules::run(design, report);
    for f in &mut findings {
        fix::preview_all(design, f);
    }
    findings
}

/// Findings without fix previews (what previews themselves use).
pub(crate) fn lint_bare(design: &Design) -> Vec<Finding> {
    rules::run(design, None)
}

/// Findings without fix previews, with a simulation report.
pub(crate) fn lint_bare_with(design: &Design, report: Option<&Report>) -> Vec<Finding> {
    rules::run(design, report)
}

/// The result of linting a scenario file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LintReport {
    /// The scenario's name.
    pub scenario: String,
    /// The row-key pattern.
    pub key_pattern: Option<String>,
    /// A few keys of the design.
    pub example_keys: Vec<String>,
    /// Every declared access pattern, classified.
    pub access: Vec<AccessPlan>,
    /// The findings, most severe first.
    pub findings: Vec<Finding>,
    /// Findings per severity: `[info, warning, error]`.
    pub counts: [usize; 3],
}

impl LintReport {
    /// Lints a parsed scenario (and, if given, its simulation report).
    #[must_use]
    pub fn new(scenario: &Scenario, report: Option<&Report>) -> LintReport {
        let design = Design::from_scenario(scenario);
        let findings = lint_with_report(&design, report);
        let mut counts = [0usize; 3];
        for f in &findings {
            counts[f.severity as usize] += 1;
        }
        LintReport {
            scenario: scenario.name.clone(),
            key_pattern: Some(scenario.key.pattern()),
            example_keys: scenario.key.examples(3),
            access: plans(scenario),
            findings,
            counts,
        }
    }

    /// The exit status for `tabletop lint`: 1 when a finding has severity
    /// `error` (with `strict`, also `warning`), 0 otherwise. A file that
    /// cannot be read or parsed should exit with 2.
    #[must_use]
    pub fn exit_code(&self, strict: bool) -> i32 {
        let worst = self.findings.iter().map(|f| f.severity).max();
        match worst {
            Some(Severity::Error) => 1,
            Some(Severity::Warning) if strict => 1,
            _ => 0,
        }
    }

    /// Pretty JSON (the `--json` output).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Plain text for a terminal.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "Design: {}", self.scenario);
        if let Some(p) = &self.key_pattern {
            let _ = writeln!(s, "Row key: {p}");
        }
        if !self.example_keys.is_empty() {
            let _ = writeln!(s, "  e.g. {}", self.example_keys.join(", "));
        }
        if !self.access.is_empty() {
            let _ = writeln!(s, "\nAccess patterns");
            for a in &self.access {
                let _ = writeln!(s, "  {:<12} {}", a.shape.name(), a.name);
                for r in &a.row_set {
                    let _ = writeln!(s, "               {r}");
                }
            }
        }
        let _ = writeln!(s, "\nFindings");
        if self.findings.is_empty() {
            let _ = writeln!(s, "  none: the design follows every rule the advisor knows");
        }
        for f in &self.findings {
            let _ = writeln!(
                s,
                "  {:<7} {}  {}: {}",
                f.severity.name().to_uppercase(),
                f.rule,
                f.target.label(),
                f.title
            );
            let _ = writeln!(s, "          {}", f.why);
            for e in &f.evidence {
                let _ = writeln!(s, "          - {e}");
            }
            if let Some(fix) = f.fixes.first() {
                let _ = writeln!(s, "          Fix: {}", fix.title);
                if let Some(p) = &fix.preview
                    && !p.example_keys.is_empty()
                    && p.key_pattern != self.key_pattern
                {
                    let _ = writeln!(
                        s,
                        "               keys then look like {}",
                        p.example_keys.join(", ")
                    );
                }
            }
            let _ = writeln!(
                s,
                "          See: {} (lesson \"{}\")",
                f.seed_topic, f.lesson
            );
        }
        let _ = writeln!(
            s,
            "\n{} error{}, {} warning{}, {} info",
            self.counts[2],
            if self.counts[2] == 1 { "" } else { "s" },
            self.counts[1],
            if self.counts[1] == 1 { "" } else { "s" },
            self.counts[0]
        );
        s
    }
}

/// Options of [`lint_toml_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LintOptions {
    /// Also run the simulation (with the access patterns that have a rate
    /// as extra workloads) and use its report.
    pub simulate: bool,
}

/// Everything `tabletop lint SCENARIO.toml` does: parse the scenario and
/// lint it. Errors are `INVALID_ARGUMENT` naming the line or field (exit
/// with 2); otherwise print [`LintReport::to_text`] or
/// [`LintReport::to_json`] and exit with [`LintReport::exit_code`].
pub fn lint_toml(text: &str) -> Result<LintReport> {
    lint_toml_with(text, LintOptions::default())
}

/// [`lint_toml`] with options (`tabletop lint --simulate`).
pub fn lint_toml_with(text: &str, options: LintOptions) -> Result<LintReport> {
    let scenario = Scenario::from_toml(text)?;
    if options.simulate {
        let mut sim = tabletop_design::sim::Simulation::new(with_access_workloads(&scenario))?;
        let report = sim.run_to_end();
        Ok(LintReport::new(&scenario, Some(&report)))
    } else {
        Ok(LintReport::new(&scenario, None))
    }
}
