//! What the learning features show: the advisor's findings on the current
//! design with their one-click fixes, the declared access patterns and how
//! they read under the current key, the list of lessons with the learner's
//! progress, and one open lesson.
//!
//! Everything here is computed from the core's public API
//! (`tabletop_core::advisor`, `tabletop_core::lesson`) into plain structs;
//! components only draw them.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tabletop_core::Instance;
use tabletop_core::advisor::{self, AccessPlan, Design, Finding, Fix, ReadShape};
use tabletop_core::lesson::{self, Catalog, Lesson, Progress, Verdict};
use tabletop_core::sim::{Report, Scenario};

use super::format::format_count;
use super::keydesign::example_keys;
use super::keys::DisplayKey;

/// Where the browser keeps the learner's progress.
pub const PROGRESS_KEY: &str = "tabletop.lessons";

/// The lessons and scenario files shipped with the app (compiled into the
/// core), parsed once. A broken shipped file would leave the catalog empty
/// and the error to show.
pub fn catalog() -> &'static Result<Catalog, String> {
    static CATALOG: OnceLock<Result<Catalog, String>> = OnceLock::new();
    CATALOG.get_or_init(|| lesson::builtin().map_err(|e| e.to_string()))
}

/// The lesson with this id, if the catalog has it.
pub fn lesson_by_id(id: &str) -> Option<&'static Lesson> {
    catalog().as_ref().ok()?.lesson(id)
}

/// A shipped scenario file the designer can start from.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioChoice {
    /// File name (`mobile_device_first.toml`).
    pub file: &'static str,
    /// The scenario's name.
    pub name: String,
    /// Whether a lesson uses it (listed after the others).
    pub for_lesson: bool,
}

/// The shipped scenarios that parse, general ones first.
pub fn scenario_choices() -> &'static [ScenarioChoice] {
    static CHOICES: OnceLock<Vec<ScenarioChoice>> = OnceLock::new();
    CHOICES.get_or_init(|| {
        let mut out: Vec<ScenarioChoice> = lesson::scenario_files()
            .iter()
            .filter_map(|(file, text)| {
                let s = Scenario::from_toml(text).ok()?;
                Some(ScenarioChoice {
                    file,
                    name: s.name,
                    for_lesson: file.starts_with("lesson_"),
                })
            })
            .collect();
        out.sort_by(|a, b| (a.for_lesson, a.file).cmp(&(b.for_lesson, b.file)));
        out
    })
}

/// A shipped scenario by file name, parsed.
pub fn load_scenario(file: &str) -> Result<Scenario, String> {
    let text = lesson::scenario_files()
        .iter()
        .find(|(f, _)| *f == file)
        .map(|(_, t)| *t)
        .ok_or_else(|| format!("there is no shipped scenario {file:?}"))?;
    Scenario::from_toml(text).map_err(|e| e.to_string())
}

// ---- progress ----

/// What the browser stores: completed lessons, hints seen, and the lesson
/// that was open.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedProgress {
    /// Completed lessons and hints seen (the core's format).
    #[serde(flatten)]
    pub progress: Progress,
    /// The lesson open in the panel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
    /// Whether the visitor has seen the way into the first lesson (started
    /// a lesson, or said "Not now").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub welcomed: bool,
    /// Sample rows the learner asked lessons to keep of their design
    /// (`None`: each lesson's own, small number; absent in progress saved
    /// before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_rows: Option<u64>,
}

impl SavedProgress {
    /// Reads stored progress. Anything unreadable counts as none, and ids
    /// of lessons that no longer exist are dropped.
    pub fn from_json(text: &str) -> SavedProgress {
        let mut saved: SavedProgress = serde_json::from_str(text).unwrap_or_default();
        if let Ok(c) = catalog() {
            saved.progress.completed.retain(|id| c.lesson(id).is_some());
            saved
                .progress
                .hints_seen
                .retain(|id| c.lesson(id).is_some());
            saved.current = saved.current.filter(|id| c.lesson(id).is_some());
        }
        saved
    }

    /// For storage.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

// ---- findings ----

/// One fix as the findings list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct FixView {
    /// What it does.
    pub title: String,
    /// The fix itself, applied when clicked.
    pub fix: Fix,
    /// The key pattern afterwards, if the key changes.
    pub key_pattern: Option<String>,
    /// Example keys afterwards (empty if the key does not change).
    pub example_keys: Vec<String>,
    /// Whether the finding goes away.
    pub resolves: bool,
    /// Rules the fix would newly break.
    pub introduces: Vec<String>,
    /// Families afterwards, when it changes families.
    pub families: Vec<String>,
    /// Why it cannot be applied, if it cannot.
    pub error: Option<String>,
}

/// One finding as the list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct FindingView {
    /// Rule id (`timestamp_first`).
    pub rule: String,
    /// `info`, `warning` or `error`.
    pub severity: &'static str,
    /// What it points at (`key segment 1 (ts)`).
    pub target: String,
    /// One line.
    pub title: String,
    /// Why it matters.
    pub why: String,
    /// Numbers from this design.
    pub evidence: Vec<String>,
    /// One-click fixes.
    pub fixes: Vec<FixView>,
    /// The lesson that explains the rule: id and title.
    pub lesson: Option<(String, String)>,
}

/// One declared read and how it reads under the current key.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessView {
    /// Its name.
    pub name: String,
    /// `point`, `single_range`, `multi_range` or `full_scan`.
    pub shape: &'static str,
    /// In words: "point read", "single range", ...
    pub shape_label: &'static str,
    /// Whether the shape is good (a point read or a single range).
    pub good: bool,
    /// Why.
    pub explanation: String,
    /// The row set it sends, shortened.
    pub row_set: Vec<String>,
}

/// The advisor beside the schema.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AdvisorView {
    /// Findings, most severe first.
    pub findings: Vec<FindingView>,
    /// Findings per severity: `[info, warning, error]`.
    pub counts: [usize; 3],
    /// Declared reads, classified.
    pub access: Vec<AccessView>,
    /// Whether a simulation report was used.
    pub with_report: bool,
}

/// The words for a read shape.
pub fn shape_label(shape: ReadShape) -> &'static str {
    match shape {
        ReadShape::Point => "point read",
        ReadShape::SingleRange => "single range",
        ReadShape::MultiRange => "multi-range",
        ReadShape::FullScan => "full scan",
    }
}

fn fix_view(current_pattern: Option<&str>, fix: &Fix) -> FixView {
    let preview = fix.preview.clone().unwrap_or_default();
    let key_changes = preview.key_pattern.as_deref().is_some()
        && preview.key_pattern.as_deref() != current_pattern;
    FixView {
        title: fix.title.clone(),
        fix: fix.clone(),
        key_pattern: preview.key_pattern.filter(|_| key_changes),
        example_keys: if key_changes {
            preview.example_keys
        } else {
            Vec::new()
        },
        resolves: preview.resolves,
        introduces: preview.introduces.iter().map(|r| r.to_string()).collect(),
        families: preview.families,
        error: preview.error,
    }
}

fn finding_view(current_pattern: Option<&str>, f: &Finding) -> FindingView {
    let lesson = catalog()
        .as_ref()
        .ok()
        .and_then(|c| c.lesson_for_rule(f.rule))
        .map(|l| (l.id.clone(), l.title.clone()));
    FindingView {
        rule: f.rule.to_string(),
        severity: f.severity.name(),
        target: f.target.label(),
        title: f.title.clone(),
        why: f.why.clone(),
        evidence: f.evidence.clone(),
        fixes: f
            .fixes
            .iter()
            .map(|x| fix_view(current_pattern, x))
            .collect(),
        lesson,
    }
}

fn access_view(plan: &AccessPlan) -> AccessView {
    const SHOWN: usize = 4;
    let mut row_set: Vec<String> = plan.row_set.iter().take(SHOWN).cloned().collect();
    if plan.row_set.len() > SHOWN {
        row_set.push(format!("… {} more", plan.row_set.len() - SHOWN));
    }
    AccessView {
        name: plan.name.clone(),
        shape: plan.shape.name(),
        shape_label: shape_label(plan.shape),
        good: matches!(plan.shape, ReadShape::Point | ReadShape::SingleRange),
        explanation: plan.explanation.clone(),
        row_set,
    }
}

/// Runs the advisor on the design and the instance's tables (with the
/// simulation's report when there is one for this design).
pub fn advisor_view(
    scenario: Option<&Scenario>,
    instance: &Instance,
    report: Option<&Report>,
) -> AdvisorView {
    let design = Design::from_parts(scenario, Some(instance));
    let findings = advisor::lint_with_report(&design, report);
    let pattern = scenario.map(|s| s.key.pattern());
    let mut counts = [0usize; 3];
    for f in &findings {
        counts[f.severity as usize] += 1;
    }
    AdvisorView {
        findings: findings
            .iter()
            .map(|f| finding_view(pattern.as_deref(), f))
            .collect(),
        counts,
        access: scenario
            .map(advisor::plans)
            .unwrap_or_default()
            .iter()
            .map(access_view)
            .collect(),
        with_report: report.is_some(),
    }
}

/// The example keys a preview shows, cut into segments when the new
/// pattern can be parsed back into the design (it is the design's key
/// with the fix applied).
pub fn preview_keys(scenario: Option<&Scenario>, fix: &FixView) -> Vec<DisplayKey> {
    if fix.example_keys.is_empty() {
        return Vec::new();
    }
    let mut after = scenario.cloned();
    if let Some(s) = after.as_mut()
        && advisor::apply_to_scenario(s, &fix.fix.edits).is_ok()
    {
        return example_keys(&s.key, fix.example_keys.len());
    }
    fix.example_keys
        .iter()
        .map(|k| DisplayKey::new(k.as_bytes()))
        .collect()
}

// ---- lessons ----

/// One line of the lessons list.
#[derive(Clone, Debug, PartialEq)]
pub struct LessonItem {
    /// Id.
    pub id: String,
    /// Position shown (1, 2, ...).
    pub number: u32,
    /// Title.
    pub title: String,
    /// Topics, joined.
    pub topics: String,
    /// Completed.
    pub done: bool,
    /// The lesson running now.
    pub active: bool,
}

/// The lessons list.
pub fn lesson_items(completed: &BTreeSet<String>, active: Option<&str>) -> Vec<LessonItem> {
    let Ok(c) = catalog() else {
        return Vec::new();
    };
    c.lessons()
        .iter()
        .map(|l| LessonItem {
            id: l.id.clone(),
            number: l.order,
            title: l.title.clone(),
            topics: l.topics.join("; "),
            done: completed.contains(&l.id),
            active: active == Some(l.id.as_str()),
        })
        .collect()
}

/// Lesson text: paragraphs with `code` between backticks, cut the same way
/// as every other text that writes code so.
pub use super::text::{TextPiece, paragraphs};

/// One check of a verdict, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckLine {
    /// Whether it passed.
    pub passed: bool,
    /// What the lesson wanted.
    pub goal: String,
    /// What was found.
    pub found: String,
}

/// A verdict for the panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerdictView {
    /// Every check passed.
    pub passed: bool,
    /// The one-line summary.
    pub message: String,
    /// Each check.
    pub checks: Vec<CheckLine>,
}

/// A verdict in words.
pub fn verdict_view(v: &Verdict) -> VerdictView {
    VerdictView {
        passed: v.passed,
        message: v.message.clone(),
        checks: v
            .checks
            .iter()
            .map(|c| CheckLine {
                passed: c.passed,
                goal: c.says.clone().unwrap_or_else(|| c.detail.clone()),
                found: c.detail.clone(),
            })
            .collect(),
    }
}

/// An open lesson.
#[derive(Clone, Debug, PartialEq)]
pub struct LessonDetail {
    /// Id.
    pub id: String,
    /// Number in the list.
    pub number: u32,
    /// Title.
    pub title: String,
    /// Topics.
    pub topics: Vec<String>,
    /// What the learner will understand.
    pub goal: Vec<Vec<TextPiece>>,
    /// What to do.
    pub task: Vec<Vec<TextPiece>>,
    /// The hint.
    pub hint: Vec<Vec<TextPiece>>,
    /// Shown once passed.
    pub takeaway: Vec<Vec<TextPiece>>,
    /// What the checks want, in words.
    pub goals: Vec<String>,
    /// Completed before.
    pub done: bool,
    /// Running now (its state is the playground's).
    pub active: bool,
    /// The last verdict of this run.
    pub verdict: Option<VerdictView>,
    /// The previous lesson's id.
    pub previous: Option<String>,
    /// The next lesson's id.
    pub next: Option<String>,
    /// Advisor rules it explains.
    pub rules: Vec<String>,
    /// Whether the lesson comes with a design to edit in the designer.
    pub has_design: bool,
}

/// The sample-size picker of a lesson that keeps sample rows of its
/// design.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleChoice {
    /// The lesson's own number.
    pub lesson_rows: u64,
    /// The number written (the learner's choice, or the lesson's).
    pub rows: u64,
    /// The sizes offered, with their labels: the lesson's own and the
    /// design data bar's.
    pub options: Vec<(u64, String)>,
}

/// The sample sizes lesson `id` offers, with `chosen` the learner's
/// number (`None`: the lesson keeps no sample rows, or does not exist).
pub fn sample_choice(id: &str, chosen: Option<u64>) -> Option<SampleChoice> {
    let c = catalog().as_ref().ok()?;
    let own = c.lesson(id)?.setup.materialize? as u64;
    let rows = chosen.unwrap_or(own);
    let mut sizes: Vec<u64> = [own, rows]
        .into_iter()
        .chain(crate::state::scenario_data::SIZES)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let options = sizes
        .into_iter()
        .map(|n| {
            let label = if n == own {
                format!("{} rows (the lesson's)", format_count(n))
            } else {
                format!("{} rows", format_count(n))
            };
            (n, label)
        })
        .collect();
    Some(SampleChoice {
        lesson_rows: own,
        rows,
        options,
    })
}

/// The lesson `id` as the panel shows it, if it exists.
pub fn lesson_detail(
    id: &str,
    completed: &BTreeSet<String>,
    active: Option<&str>,
    verdict: Option<&Verdict>,
) -> Option<LessonDetail> {
    let c = catalog().as_ref().ok()?;
    let lessons = c.lessons();
    let at = lessons.iter().position(|l| l.id == id)?;
    let l = &lessons[at];
    let is_active = active == Some(id);
    Some(LessonDetail {
        id: l.id.clone(),
        number: l.order,
        title: l.title.clone(),
        topics: l.topics.clone(),
        goal: paragraphs(&l.goal),
        task: paragraphs(&l.task),
        hint: paragraphs(&l.hint),
        takeaway: paragraphs(&l.takeaway),
        goals: l.checks.iter().filter_map(|c| c.says.clone()).collect(),
        done: completed.contains(&l.id),
        active: is_active,
        verdict: verdict.filter(|_| is_active).map(verdict_view),
        previous: at
            .checked_sub(1)
            .and_then(|i| lessons.get(i))
            .map(|l| l.id.clone()),
        next: lessons.get(at + 1).map(|l| l.id.clone()),
        rules: l.rules.iter().map(|r| r.to_string()).collect(),
        has_design: l.setup.scenario.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_and_scenarios_load() {
        let c = catalog().as_ref().expect("the shipped lessons parse");
        assert!(c.lessons().len() >= 20);
        let choices = scenario_choices();
        assert_eq!(choices.len(), lesson::scenario_files().len());
        assert!(!choices[0].for_lesson, "general scenarios come first");
        assert!(load_scenario(choices[0].file).is_ok());
        assert!(load_scenario("nope.toml").is_err());
    }

    #[test]
    fn progress_round_trips_and_forgets_unknown_lessons() {
        let mut saved = SavedProgress::default();
        saved.progress.complete("row-ranges");
        saved.progress.complete("no-such-lesson");
        saved.current = Some("zero-padding".into());
        let text = saved.to_json();
        let back = SavedProgress::from_json(&text);
        assert_eq!(back.current.as_deref(), Some("zero-padding"));
        assert_eq!(
            back.progress.completed.iter().collect::<Vec<_>>(),
            ["row-ranges"]
        );
        assert_eq!(
            SavedProgress::from_json("{not json"),
            SavedProgress::default()
        );
        // The core's own progress format reads as saved progress.
        let core_only = Progress::from_json(&text).to_json();
        assert!(
            SavedProgress::from_json(&core_only)
                .progress
                .completed
                .contains("row-ranges")
        );
    }

    #[test]
    fn lesson_text_keeps_code_as_text() {
        let p = paragraphs("Read `phone#<b>` with\na prefix.\n\nThen `x`");
        assert_eq!(
            p,
            vec![
                vec![
                    TextPiece::Plain("Read ".into()),
                    TextPiece::Code("phone#<b>".into()),
                    TextPiece::Plain(" with a prefix.".into()),
                ],
                vec![
                    TextPiece::Plain("Then ".into()),
                    TextPiece::Code("x".into())
                ],
            ]
        );
    }

    #[test]
    fn lessons_list_in_order_with_neighbours() {
        let done: BTreeSet<String> = ["row-ranges".to_string()].into();
        let items = lesson_items(&done, Some("zero-padding"));
        assert_eq!(items[0].id, "row-ranges");
        assert!(items[0].done && !items[1].done);
        assert!(items.iter().any(|i| i.active && i.id == "zero-padding"));
        let first = lesson_detail("row-ranges", &done, None, None).unwrap();
        assert_eq!(first.previous, None);
        assert_eq!(first.next.as_deref(), Some("delimited-keys"));
        assert!(first.done && !first.active);
        assert!(!first.goals.is_empty());
        let second = lesson_detail("delimited-keys", &done, None, None).unwrap();
        assert_eq!(second.previous.as_deref(), Some("row-ranges"));
        assert!(second.has_design && !first.has_design);
        assert!(lesson_detail("nope", &done, None, None).is_none());
    }

    #[test]
    fn findings_point_at_their_lessons_and_preview_fixes() {
        let s = load_scenario("lesson_scores_unpadded.toml").unwrap();
        let view = advisor_view(Some(&s), &Instance::default(), None);
        let f = view
            .findings
            .iter()
            .find(|f| f.rule == "unpadded_number")
            .expect("the unpadded player number is found");
        assert_eq!(
            f.lesson.as_ref().map(|l| l.0.as_str()),
            Some("zero-padding")
        );
        let fix = &f.fixes[0];
        assert!(fix.resolves);
        assert!(!fix.example_keys.is_empty());
        let keys = preview_keys(Some(&s), fix);
        assert_eq!(keys.len(), fix.example_keys.len());
        assert_eq!(keys[0].text, fix.example_keys[0]);
        assert_eq!(view.access.len(), 1);
        assert_eq!(view.counts.iter().sum::<usize>(), view.findings.len());
    }
}
