//! The visual filter builder's model: a chain of simple filter steps that
//! becomes a `google.bigtable.v2.RowFilter` in proto3 JSON (checked by the
//! core, so regex and range errors are its messages), and, where `cbt read`
//! has options for every step, the equivalent `cbt` command.

use serde_json::{Value, json};
use tabletop_core::{FilterPlan, api};

/// One step of the chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterStep {
    /// Rows whose whole key matches this RE2 regex.
    RowKeyRegex(String),
    /// Cells of families whose name matches.
    FamilyRegex(String),
    /// Cells whose qualifier matches.
    QualifierRegex(String),
    /// Cells whose value matches.
    ValueRegex(String),
    /// Cells with a timestamp in `[start, end)` (microseconds; empty means
    /// unbounded).
    TimestampRange {
        /// Inclusive start, as typed.
        start: String,
        /// Exclusive end, as typed.
        end: String,
    },
    /// The newest N versions of each column.
    LatestVersions(String),
    /// The first N cells of each row.
    CellsPerRowLimit(String),
    /// Skip the first N cells of each row.
    CellsPerRowOffset(String),
    /// Replace every value with an empty one (keys only).
    StripValue,
    /// Each row with this probability (0 to 1).
    RowSample(String),
}

/// The kinds of steps, for the "add step" selector.
pub const STEP_KINDS: [(&str, &str); 10] = [
    ("row-key", "Row key matches regex"),
    ("family", "Family matches regex"),
    ("qualifier", "Qualifier matches regex"),
    ("value", "Value matches regex"),
    ("time", "Timestamp in range"),
    ("latest", "Latest N versions per column"),
    ("row-limit", "First N cells per row"),
    ("row-offset", "Skip N cells per row"),
    ("strip", "Strip values (keys only)"),
    ("sample", "Sample rows"),
];

impl FilterStep {
    /// A new step of kind `kind` (a value of [`STEP_KINDS`]) with sensible
    /// starting values.
    pub fn new(kind: &str) -> FilterStep {
        match kind {
            "family" => FilterStep::FamilyRegex("stats_summary".into()),
            "qualifier" => FilterStep::QualifierRegex("os_.*".into()),
            "value" => FilterStep::ValueRegex("PQ2A.*".into()),
            "time" => FilterStep::TimestampRange {
                start: String::new(),
                end: String::new(),
            },
            "latest" => FilterStep::LatestVersions("1".into()),
            "row-limit" => FilterStep::CellsPerRowLimit("2".into()),
            "row-offset" => FilterStep::CellsPerRowOffset("1".into()),
            "strip" => FilterStep::StripValue,
            "sample" => FilterStep::RowSample("0.1".into()),
            _ => FilterStep::RowKeyRegex("phone#.*".into()),
        }
    }

    /// What the step does, in words.
    pub fn label(&self) -> &'static str {
        let kind = match self {
            FilterStep::RowKeyRegex(_) => "row-key",
            FilterStep::FamilyRegex(_) => "family",
            FilterStep::QualifierRegex(_) => "qualifier",
            FilterStep::ValueRegex(_) => "value",
            FilterStep::TimestampRange { .. } => "time",
            FilterStep::LatestVersions(_) => "latest",
            FilterStep::CellsPerRowLimit(_) => "row-limit",
            FilterStep::CellsPerRowOffset(_) => "row-offset",
            FilterStep::StripValue => "strip",
            FilterStep::RowSample(_) => "sample",
        };
        STEP_KINDS
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or("", |(_, label)| label)
    }

    /// The step as proto3 JSON, or why its input cannot be read.
    fn to_json(&self) -> Result<Value, String> {
        let int = |text: &str, what: &str| -> Result<i64, String> {
            text.trim()
                .parse::<i64>()
                .map_err(|_| format!("{what} must be a whole number, not \"{}\"", text.trim()))
        };
        Ok(match self {
            FilterStep::RowKeyRegex(re) => {
                json!({ "rowKeyRegexFilter": api::encode_base64(re.as_bytes()) })
            }
            FilterStep::FamilyRegex(re) => json!({ "familyNameRegexFilter": re }),
            FilterStep::QualifierRegex(re) => {
                json!({ "columnQualifierRegexFilter": api::encode_base64(re.as_bytes()) })
            }
            FilterStep::ValueRegex(re) => {
                json!({ "valueRegexFilter": api::encode_base64(re.as_bytes()) })
            }
            FilterStep::TimestampRange { start, end } => {
                let mut range = serde_json::Map::new();
                if !start.trim().is_empty() {
                    range.insert(
                        "startTimestampMicros".into(),
                        json!(int(start, "the start timestamp")?.to_string()),
                    );
                }
                if !end.trim().is_empty() {
                    range.insert(
                        "endTimestampMicros".into(),
                        json!(int(end, "the end timestamp")?.to_string()),
                    );
                }
                json!({ "timestampRangeFilter": range })
            }
            FilterStep::LatestVersions(n) => {
                json!({ "cellsPerColumnLimitFilter": int(n, "the number of versions")? })
            }
            FilterStep::CellsPerRowLimit(n) => {
                json!({ "cellsPerRowLimitFilter": int(n, "the number of cells")? })
            }
            FilterStep::CellsPerRowOffset(n) => {
                json!({ "cellsPerRowOffsetFilter": int(n, "the number of cells")? })
            }
            FilterStep::StripValue => json!({ "stripValueTransformer": true }),
            FilterStep::RowSample(p) => {
                let p: f64 = p.trim().parse().map_err(|_| {
                    format!("the probability must be a number, not \"{}\"", p.trim())
                })?;
                json!({ "rowSampleFilter": p })
            }
        })
    }
}

/// The filter as proto3 JSON (one step alone, several in a `chain`),
/// checked by the core; `Ok(None)` when there are no steps.
pub fn filter_json(steps: &[FilterStep]) -> Result<Option<Value>, String> {
    let mut parts = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        parts.push(step.to_json().map_err(|e| format!("step {}: {e}", i + 1))?);
    }
    let value = match parts.len() {
        0 => return Ok(None),
        1 => parts.remove(0),
        _ => json!({ "chain": { "filters": parts } }),
    };
    let filter = api::row_filter_from_json(&value).map_err(|e| e.message().to_string())?;
    FilterPlan::compile(&filter).map_err(|e| e.message().to_string())?;
    Ok(Some(value))
}

/// `cbt read` options for the steps, or the steps `cbt read` has no
/// option for.
pub fn cbt_options(steps: &[FilterStep]) -> Result<Vec<String>, Vec<&'static str>> {
    let mut options = Vec::new();
    let mut missing = Vec::new();
    let (mut family, mut qualifier) = (None, None);
    let mut once = |name: &'static str, seen: &mut bool| {
        if std::mem::replace(seen, true) {
            missing.push(name);
        }
    };
    let (mut seen_regex, mut seen_latest, mut seen_strip) = (false, false, false);
    let (mut seen_family, mut seen_qualifier) = (false, false);
    let mut unsupported = Vec::new();
    for step in steps {
        match step {
            FilterStep::RowKeyRegex(re) => {
                once("a second row key regex", &mut seen_regex);
                options.push(format!("regex={re}"));
            }
            FilterStep::FamilyRegex(re) => {
                once("a second family", &mut seen_family);
                family = Some(re.clone());
            }
            FilterStep::QualifierRegex(re) => {
                once("a second qualifier", &mut seen_qualifier);
                qualifier = Some(re.clone());
            }
            FilterStep::LatestVersions(n) => {
                once("a second version limit", &mut seen_latest);
                options.push(format!("cells-per-column={}", n.trim()));
            }
            FilterStep::StripValue => {
                once("a second strip", &mut seen_strip);
                options.push("keys-only=true".into());
            }
            other => unsupported.push(other.label()),
        }
    }
    missing.extend(unsupported);
    let columns = match (family, qualifier) {
        (None, None) => None,
        (Some(f), None) => Some(format!("{f}:")),
        (None, Some(q)) => Some(format!(":{q}")),
        (Some(f), Some(q)) => Some(format!("{f}:{q}")),
    };
    if let Some(c) = columns {
        // cbt splits `columns` at ',' and ':'; such regexes cannot go there.
        let inner = c.trim_matches(':');
        if inner.contains(',') || inner.matches(':').count() > 1 {
            missing.push("a family or qualifier regex containing ',' or ':'");
        }
        options.push(format!("columns={c}"));
    }
    if missing.is_empty() {
        Ok(options)
    } else {
        Err(missing)
    }
}

/// Quotes one argument for `cbt`'s bash-like splitting, only when needed.
pub fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | ',' | '@' | '+' | '%')
        });
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// A `cbt read` command line for `table` with `options`.
pub fn cbt_read_line(table: &str, options: &[String], count: Option<u64>) -> String {
    let mut line = format!("read {}", shell_quote(table));
    for option in options {
        line.push(' ');
        line.push_str(&shell_quote(option));
    }
    if let Some(n) = count {
        line.push_str(&format!(" count={n}"));
    }
    line
}

/// A `readRows` request line of the JSON protocol.
pub fn read_rows_line(table_name: &str, filter: Option<&Value>, rows_limit: Option<u64>) -> String {
    let mut request = json!({ "tableName": table_name });
    if let Some(filter) = filter {
        request["filter"] = filter.clone();
    }
    if let Some(limit) = rows_limit {
        request["rowsLimit"] = json!(limit.to_string());
    }
    api::to_line(&json!({ "method": "readRows", "request": request }))
}

#[cfg(test)]
mod tests {
    use tabletop_core::{Instance, cbt};

    use super::*;

    #[test]
    fn steps_become_a_chain_the_core_accepts() {
        assert_eq!(filter_json(&[]), Ok(None));
        let one = filter_json(&[FilterStep::LatestVersions("1".into())]).unwrap();
        assert_eq!(one, Some(json!({"cellsPerColumnLimitFilter": 1})));
        let chain = filter_json(&[
            FilterStep::RowKeyRegex("phone#.*".into()),
            FilterStep::FamilyRegex("stats_summary".into()),
            FilterStep::StripValue,
        ])
        .unwrap()
        .unwrap();
        assert_eq!(
            chain,
            json!({"chain": {"filters": [
                {"rowKeyRegexFilter": "cGhvbmUjLio="},
                {"familyNameRegexFilter": "stats_summary"},
                {"stripValueTransformer": true},
            ]}})
        );
    }

    #[test]
    fn bad_steps_report_the_cores_messages() {
        let err = filter_json(&[FilterStep::RowKeyRegex("(".into())]).unwrap_err();
        assert!(
            err.contains("rowKeyRegexFilter") || err.contains("regex"),
            "{err}"
        );
        let err = filter_json(&[FilterStep::LatestVersions("x".into())]).unwrap_err();
        assert_eq!(
            err,
            "step 1: the number of versions must be a whole number, not \"x\""
        );
        // Any microsecond is a bound (as in production); a negative one is not.
        assert!(
            filter_json(&[FilterStep::TimestampRange {
                start: "1500".into(),
                end: String::new(),
            }])
            .is_ok()
        );
        let err = filter_json(&[FilterStep::TimestampRange {
            start: "-1000".into(),
            end: String::new(),
        }])
        .unwrap_err();
        assert!(err.contains("negative") || err.contains("-1000"), "{err}");
    }

    #[test]
    fn cbt_options_exist_for_some_steps_only() {
        let steps = [
            FilterStep::RowKeyRegex("phone#.*".into()),
            FilterStep::FamilyRegex("stats_summary".into()),
            FilterStep::QualifierRegex("os_build".into()),
            FilterStep::LatestVersions("1".into()),
            FilterStep::StripValue,
        ];
        assert_eq!(
            cbt_options(&steps).unwrap(),
            [
                "regex=phone#.*",
                "cells-per-column=1",
                "keys-only=true",
                "columns=stats_summary:os_build"
            ]
        );
        assert_eq!(
            cbt_options(&[FilterStep::ValueRegex("x".into())]).unwrap_err(),
            ["Value matches regex"]
        );
        assert_eq!(
            cbt_options(&[FilterStep::QualifierRegex("a,b".into())]).unwrap_err(),
            ["a family or qualifier regex containing ',' or ':'"]
        );
    }

    #[test]
    fn both_lines_run_in_the_core_with_the_same_rows() {
        let mut db = Instance::default();
        cbt::run_line(&mut db, "createtable t families=cf,other").unwrap();
        for (key, col) in [
            ("phone#1", "cf:a"),
            ("phone#2", "other:a"),
            ("tablet#1", "cf:a"),
        ] {
            cbt::run_line(&mut db, &format!("set t {key} {col}=v@1000")).unwrap();
        }
        let steps = [
            FilterStep::RowKeyRegex("phone#.*".into()),
            FilterStep::FamilyRegex("cf".into()),
        ];
        let line = cbt_read_line("t", &cbt_options(&steps).unwrap(), None);
        assert_eq!(line, "read t 'regex=phone#.*' columns=cf:");
        let out = cbt::run_line(&mut db, &line).unwrap();
        assert!(out.contains("phone#1") && !out.contains("phone#2") && !out.contains("tablet"));
        let filter = filter_json(&steps).unwrap();
        let json_line = read_rows_line("projects/p/instances/i/tables/t", filter.as_ref(), Some(5));
        let answer = api::handle(&mut db, &json_line);
        assert!(answer.contains(&api::encode_base64(b"phone#1")), "{answer}");
        assert!(
            !answer.contains(&api::encode_base64(b"phone#2")),
            "{answer}"
        );
    }

    #[test]
    fn arguments_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("plain-name_1.x"), "plain-name_1.x");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("regex=phone#.*"), "'regex=phone#.*'");
    }
}
