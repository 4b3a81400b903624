//! The check language of lessons: small declarative predicates over the
//! playground instance, the last read, the design (key, families, access
//! patterns, advisor findings) and the simulation report. A lesson passes
//! when all its checks pass. See `static/lessons/README.md` for the list.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::record::ReadRecord;
use crate::advisor::{Design, FamilyDesign, ReadShape, RuleId, classify};
use tabletop_design::keydesign::SegmentKind;
use tabletop_design::keyviz::{Pattern, Severity as DiagSeverity};
use tabletop_design::sim::{Report, Scenario, Seconds};
use tabletop_sql::Instance;
use tabletop_store::ReadRowsRequest;
use tabletop_store::ValueType;
use tabletop_store::escape_bytes;
use tabletop_store::{Error, Result};
use tabletop_store::{OwnedRow, RowView};
use tabletop_store::{RowRange, RowSet};

/// One check. Written in a lesson as a `[[check]]` table with a `kind`
/// (and an optional `says`, the goal in words, kept outside this type).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// A table exists (or, with `exists = false`, does not).
    Table {
        /// Table id.
        table: String,
        /// Whether it must exist.
        #[serde(default = "yes")]
        exists: bool,
    },
    /// How many tables have ids matching a pattern (`*` matches anything).
    Tables {
        /// The pattern, such as `orders_*`.
        matching: String,
        /// At least this many.
        #[serde(default)]
        min: Option<usize>,
        /// At most this many.
        #[serde(default)]
        max: Option<usize>,
    },
    /// A family of an instance table and its GC rule.
    Family {
        /// Table id.
        table: String,
        /// Family name.
        family: String,
        /// Whether it must exist.
        #[serde(default = "yes")]
        exists: bool,
        /// Its rule keeps at most this many versions.
        #[serde(default)]
        max_versions: Option<u32>,
        /// Its rule deletes cells older than at most this.
        #[serde(default)]
        max_age: Option<Seconds>,
        /// It is an aggregate family of this kind (`sum`, `min`, `max`, `hll`).
        #[serde(default)]
        aggregate: Option<String>,
    },
    /// How many rows a table has (under a key prefix).
    Rows {
        /// Table id.
        table: String,
        /// Only rows whose key starts with this.
        #[serde(default)]
        prefix: Option<String>,
        /// At least this many.
        #[serde(default)]
        min: Option<u64>,
        /// At most this many.
        #[serde(default)]
        max: Option<u64>,
    },
    /// Every row key (under a prefix) matches a regular expression (whole
    /// key, RE2 syntax), and there are at least `min` of them.
    Keys {
        /// Table id.
        table: String,
        /// The pattern.
        pattern: String,
        /// Only rows whose key starts with this.
        #[serde(default)]
        prefix: Option<String>,
        /// At least this many rows (default 1).
        #[serde(default)]
        min: Option<u64>,
    },
    /// One row: whether it exists, and how many columns or cells it holds.
    Row {
        /// Table id.
        table: String,
        /// Row key.
        key: String,
        /// Whether it must exist.
        #[serde(default = "yes")]
        exists: bool,
        /// Count only this family's cells.
        #[serde(default)]
        family: Option<String>,
        /// Count only this column's cells (`family:qualifier`).
        #[serde(default)]
        column: Option<String>,
        /// At least this many columns.
        #[serde(default)]
        min_columns: Option<u64>,
        /// At most this many columns.
        #[serde(default)]
        max_columns: Option<u64>,
        /// At least this many cells (versions included).
        #[serde(default)]
        min_cells: Option<u64>,
        /// At most this many cells (versions included; cells waiting for
        /// garbage collection count until a compaction removes them).
        #[serde(default)]
        max_cells: Option<u64>,
    },
    /// The newest value of one cell.
    Cell {
        /// Table id.
        table: String,
        /// Row key.
        key: String,
        /// `family:qualifier`.
        column: String,
        /// The value, as text.
        #[serde(default)]
        equals: Option<String>,
        /// The value as a 64-bit big-endian integer (counters, aggregates).
        #[serde(default)]
        int: Option<i64>,
    },
    /// The last read the learner ran (cbt `read`/`lookup`/`count`, a JSON
    /// `readRows`, or the Rows panel).
    LastRead {
        /// It read this table.
        #[serde(default)]
        table: Option<String>,
        /// It had this shape (`point`, `single_range`, `multi_range`,
        /// `full_scan`).
        #[serde(default)]
        shape: Option<String>,
        /// It scanned at most this many rows.
        #[serde(default)]
        max_rows_scanned: Option<u64>,
        /// It returned at least this many rows.
        #[serde(default)]
        min_rows_returned: Option<u64>,
        /// It returned at most this many rows.
        #[serde(default)]
        max_rows_returned: Option<u64>,
        /// Every row it returned starts with this.
        #[serde(default)]
        key_prefix: Option<String>,
        /// It used no filter.
        #[serde(default)]
        unfiltered: Option<bool>,
        /// Every row it returned has the same text before the first
        /// occurrence of this delimiter (one device, one user...).
        #[serde(default)]
        same_first_segment: Option<String>,
    },
    /// Advisor findings on the current design (scenario and instance).
    Advisor {
        /// None of these rules fires.
        #[serde(default)]
        absent: Vec<RuleId>,
        /// Each of these rules fires.
        #[serde(default)]
        present: Vec<RuleId>,
    },
    /// The row-key template of the lesson's scenario.
    Key {
        /// These segments appear in this order (others may sit between).
        #[serde(default)]
        order: Vec<String>,
        /// The first segment.
        #[serde(default)]
        first: Option<String>,
        /// The last segment.
        #[serde(default)]
        last: Option<String>,
        /// These segments are reversed (int digits, timestamps, domains).
        #[serde(default)]
        reversed: Vec<String>,
        /// These int segments are zero-padded.
        #[serde(default)]
        padded: Vec<String>,
        /// These segments are not in the key.
        #[serde(default)]
        absent: Vec<String>,
        /// Some segment has each of these kinds (`salt`, `date`, ...).
        #[serde(default)]
        has_kind: Vec<String>,
        /// No segment has any of these kinds.
        #[serde(default)]
        lacks_kind: Vec<String>,
        /// At least this many segments.
        #[serde(default)]
        min_segments: Option<usize>,
        /// The delimiter is not empty.
        #[serde(default)]
        delimited: Option<bool>,
    },
    /// A family of the lesson's scenario table.
    DesignFamily {
        /// Family name.
        family: String,
        /// Whether it must exist.
        #[serde(default = "yes")]
        exists: bool,
        /// Its rule keeps at most this many versions.
        #[serde(default)]
        max_versions: Option<u32>,
        /// Its rule deletes cells older than at most this.
        #[serde(default)]
        max_age: Option<Seconds>,
    },
    /// How a declared access pattern reads under the current key.
    Access {
        /// Its name.
        name: String,
        /// Exactly this shape.
        #[serde(default)]
        shape: Option<String>,
        /// This shape or a better one.
        #[serde(default)]
        at_most: Option<String>,
    },
    /// The simulation report of the current design.
    Sim {
        /// No diagnostic of these patterns at warning or critical severity.
        #[serde(default)]
        absent: Vec<String>,
        /// A diagnostic of each of these patterns.
        #[serde(default)]
        present: Vec<String>,
        /// No node's CPU went above this (%).
        #[serde(default)]
        max_node_cpu: Option<f64>,
    },
    /// At least one of the checks passes.
    Any {
        /// The checks.
        of: Vec<Check>,
    },
    /// Every check passes.
    All {
        /// The checks.
        of: Vec<Check>,
    },
    /// The check fails.
    Not {
        /// The check.
        check: Box<Check>,
    },
}

fn yes() -> bool {
    true
}

/// What a check found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// Whether it passed.
    pub passed: bool,
    /// What the lesson wanted, in words (`says`), if the lesson gave it.
    pub says: Option<String>,
    /// What was found, in words.
    pub detail: String,
}

/// What a check reads.
pub struct State<'a> {
    /// The playground instance.
    pub instance: &'a mut Instance,
    /// The lesson's design, as edited so far.
    pub scenario: Option<&'a Scenario>,
    /// The simulation report of that design, if it is up to date.
    pub report: Option<&'a Report>,
    /// The last read.
    pub last_read: Option<&'a ReadRecord>,
}

impl std::fmt::Debug for State<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("scenario", &self.scenario.map(|s| &s.name))
            .field("report", &self.report.is_some())
            .field("last_read", &self.last_read)
            .finish_non_exhaustive()
    }
}

fn pattern_by_name(name: &str) -> Option<Pattern> {
    Pattern::ALL.into_iter().find(|p| p.name() == name)
}

fn shape(name: &str) -> Result<ReadShape> {
    ReadShape::from_name(name).ok_or_else(|| {
        Error::invalid(format!(
            "unknown read shape {name:?}; expected point, single_range, multi_range or full_scan"
        ))
    })
}

fn full_regex(p: &str) -> Result<regex::bytes::Regex> {
    regex::bytes::Regex::new(&format!("^(?:{p})$"))
        .map_err(|e| Error::invalid(format!("pattern {p:?}: {e}")))
}

impl Check {
    /// Checks names and values that can be wrong in a lesson file.
    pub fn validate(&self) -> Result<()> {
        match self {
            Check::Keys { pattern, .. } => full_regex(pattern).map(|_| ()),
            Check::LastRead { shape: Some(s), .. } => shape(s).map(|_| ()),
            Check::Access {
                shape: s, at_most, ..
            } => {
                for x in s.iter().chain(at_most.iter()) {
                    shape(x)?;
                }
                Ok(())
            }
            Check::Sim {
                absent, present, ..
            } => {
                for p in absent.iter().chain(present) {
                    if pattern_by_name(p).is_none() {
                        return Err(Error::invalid(format!(
                            "unknown simulation pattern {p:?}; expected one of {}",
                            Pattern::ALL.map(Pattern::name).join(", ")
                        )));
                    }
                }
                Ok(())
            }
            Check::Family {
                aggregate: Some(a), ..
            } if ![
                "sum", "min", "max", "hll", "intsum", "intmin", "intmax", "inthll",
            ]
            .contains(&a.as_str()) =>
            {
                Err(Error::invalid(format!(
                    "unknown aggregate {a:?}; expected sum, min, max or hll"
                )))
            }
            Check::Row {
                column: Some(c), ..
            }
            | Check::Cell { column: c, .. }
                if !c.contains(':') =>
            {
                Err(Error::invalid(format!(
                    "column {c:?} must be written family:qualifier"
                )))
            }
            Check::Any { of } | Check::All { of } => of.iter().try_for_each(Check::validate),
            Check::Not { check } => check.validate(),
            _ => Ok(()),
        }
    }

    /// Evaluates the check.
    pub fn evaluate(&self, st: &mut State<'_>) -> (bool, String) {
        match self.eval(st) {
            Ok(r) => r,
            Err(e) => (false, e.message().to_string()),
        }
    }

    fn eval(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        match self {
            Check::Table { .. } => self.eval_table(st),
            Check::Tables { .. } => self.eval_tables(st),
            Check::Family { .. } => self.eval_family(st),
            Check::Rows { .. } => self.eval_rows(st),
            Check::Keys { .. } => self.eval_keys(st),
            Check::Row { .. } => self.eval_row(st),
            Check::Cell { .. } => self.eval_cell(st),
            Check::LastRead { .. } => self.eval_last_read(st),
            Check::Advisor { .. } => self.eval_advisor(st),
            Check::Key { .. } => self.eval_key(st),
            Check::DesignFamily { .. } => self.eval_design_family(st),
            Check::Access { .. } => self.eval_access(st),
            Check::Sim { .. } => self.eval_sim(st),
            Check::Any { .. } => self.eval_any(st),
            Check::All { .. } => self.eval_all(st),
            Check::Not { .. } => self.eval_not(st),
        }
    }

    /// Evaluates a [`Check::Table`].
    fn eval_table(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Table { table, exists } = self else {
            unreachable!("eval_table is only called on Check::Table")
        };
        let there = st.instance.get_table(table).is_ok();
        Ok((
            there == *exists,
            format!(
                "table {table} {}",
                if there { "exists" } else { "does not exist" }
            ),
        ))
    }

    /// Evaluates a [`Check::Tables`].
    fn eval_tables(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Tables { matching, min, max } = self else {
            unreachable!("eval_tables is only called on Check::Tables")
        };
        let ids: Vec<String> = st
            .instance
            .list_tables()
            .into_iter()
            .map(|t| t.id)
            .filter(|id| glob(matching, id))
            .collect();
        let n = ids.len();
        let ok = min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m);
        Ok((
            ok,
            format!("{n} table(s) match {matching}{}", list_tail(&ids)),
        ))
    }

    /// Evaluates a [`Check::Family`].
    fn eval_family(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Family {
            table,
            family,
            exists,
            max_versions,
            max_age,
            aggregate,
        } = self
        else {
            unreachable!("eval_family is only called on Check::Family")
        };
        let info = st.instance.get_table(table)?;
        let Some(cf) = info.schema.families.get(family) else {
            return Ok((!exists, format!("table {table} has no family {family}")));
        };
        if !exists {
            return Ok((false, format!("family {table}:{family} still exists")));
        }
        let f = FamilyDesign::from_family(cf);
        let mut ok = true;
        if let Some(v) = max_versions {
            ok &= f.max_versions.is_some_and(|x| x <= *v);
        }
        if let Some(a) = max_age {
            ok &= f.max_age.is_some_and(|x| x.0 <= a.0 + 1e-9);
        }
        if let Some(a) = aggregate {
            let want = a.trim_start_matches("int");
            ok &= matches!(cf.value_type, ValueType::Aggregate(agg) if agg.cbt_name().trim_start_matches("int") == want);
        }
        let kind = match cf.value_type {
            ValueType::Bytes => String::new(),
            ValueType::Aggregate(a) => format!(" (aggregate {})", a.cbt_name()),
        };
        Ok((
            ok,
            format!("family {table}:{family} {}{kind}", f.describe()),
        ))
    }

    /// Evaluates a [`Check::Rows`].
    fn eval_rows(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Rows {
            table,
            prefix,
            min,
            max,
        } = self
        else {
            unreachable!("eval_rows is only called on Check::Rows")
        };
        let rows = row_keys(st.instance, table, prefix.as_deref(), u64::MAX)?;
        let n = rows.len() as u64;
        let ok = min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m);
        Ok((
            ok,
            format!(
                "table {table} has {n} row(s){}",
                prefix
                    .as_ref()
                    .map(|p| format!(" starting with {p:?}"))
                    .unwrap_or_default()
            ),
        ))
    }

    /// Evaluates a [`Check::Keys`].
    fn eval_keys(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Keys {
            table,
            pattern,
            prefix,
            min,
        } = self
        else {
            unreachable!("eval_keys is only called on Check::Keys")
        };
        let re = full_regex(pattern)?;
        let keys = row_keys(st.instance, table, prefix.as_deref(), u64::MAX)?;
        let bad: Vec<String> = keys
            .iter()
            .filter(|k| !re.is_match(k))
            .take(3)
            .map(|k| escape_bytes(k))
            .collect();
        let n = keys.len() as u64;
        let ok = bad.is_empty() && n >= min.unwrap_or(1);
        let detail = if bad.is_empty() {
            format!("{n} key(s) of {table} match {pattern}")
        } else {
            format!(
                "keys of {table} that do not match {pattern}: {}",
                bad.join(", ")
            )
        };
        Ok((ok, detail))
    }

    /// Evaluates a [`Check::Row`].
    fn eval_row(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Row {
            table,
            key,
            exists,
            family,
            column,
            min_columns,
            max_columns,
            min_cells,
            max_cells,
        } = self
        else {
            unreachable!("eval_row is only called on Check::Row")
        };
        let row = read_row(st.instance, table, key)?;
        let Some(row) = row else {
            return Ok((!exists, format!("row {key:?} of {table} does not exist")));
        };
        if !exists {
            return Ok((false, format!("row {key:?} of {table} still exists")));
        }
        let (fam_q, qual_q) = match column.as_deref().and_then(|c| c.split_once(':')) {
            Some((f, q)) => (Some(f), Some(q)),
            None => (family.as_deref(), None),
        };
        let cells: Vec<_> = row
            .cells
            .iter()
            .filter(|c| fam_q.is_none_or(|f| c.family == f))
            .filter(|c| qual_q.is_none_or(|q| c.qualifier == q.as_bytes()))
            .collect();
        let columns: BTreeSet<(&str, &[u8])> = cells
            .iter()
            .map(|c| (c.family.as_str(), c.qualifier.as_slice()))
            .collect();
        let (nc, ncell) = (columns.len() as u64, cells.len() as u64);
        let ok = min_columns.is_none_or(|m| nc >= m)
            && max_columns.is_none_or(|m| nc <= m)
            && min_cells.is_none_or(|m| ncell >= m)
            && max_cells.is_none_or(|m| ncell <= m);
        let scope = column
            .clone()
            .or_else(|| family.clone())
            .map(|s| format!(" in {s}"))
            .unwrap_or_default();
        Ok((
            ok,
            format!("row {key:?} of {table} has {nc} column(s) and {ncell} cell(s){scope}"),
        ))
    }

    /// Evaluates a [`Check::Cell`].
    fn eval_cell(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Cell {
            table,
            key,
            column,
            equals,
            int,
        } = self
        else {
            unreachable!("eval_cell is only called on Check::Cell")
        };
        let Some((f, q)) = column.split_once(':') else {
            return Err(Error::invalid(format!(
                "column {column:?} must be family:qualifier"
            )));
        };
        let row = read_row(st.instance, table, key)?;
        let cell = row.as_ref().and_then(|r| {
            r.cells
                .iter()
                .find(|c| c.family == f && c.qualifier == q.as_bytes())
        });
        let Some(cell) = cell else {
            return Ok((
                false,
                format!("row {key:?} of {table} has no cell {column}"),
            ));
        };
        let as_int = <[u8; 8]>::try_from(cell.value.as_slice())
            .ok()
            .map(i64::from_be_bytes);
        let mut ok = true;
        if let Some(e) = equals {
            ok &= cell.value == e.as_bytes();
        }
        if let Some(n) = int {
            ok &= as_int == Some(*n);
        }
        let shown = match (int, as_int) {
            (Some(_), Some(v)) => format!("{v}"),
            _ => format!("{:?}", escape_bytes(&cell.value)),
        };
        Ok((ok, format!("{table} {key:?} {column} is {shown}")))
    }

    /// Evaluates a [`Check::LastRead`].
    fn eval_last_read(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::LastRead {
            table,
            shape: want_shape,
            max_rows_scanned,
            min_rows_returned,
            max_rows_returned,
            key_prefix,
            unfiltered,
            same_first_segment,
        } = self
        else {
            unreachable!("eval_last_read is only called on Check::LastRead")
        };
        let Some(r) = st.last_read else {
            return Ok((false, "no read yet".into()));
        };
        let mut ok = table.as_ref().is_none_or(|t| *t == r.table);
        if let Some(s) = want_shape {
            ok &= shape(s)? == r.shape;
        }
        ok &= max_rows_scanned.is_none_or(|m| r.rows_scanned <= m);
        ok &= min_rows_returned.is_none_or(|m| r.rows_returned >= m);
        ok &= max_rows_returned.is_none_or(|m| r.rows_returned <= m);
        if let Some(p) = key_prefix {
            ok &= r.keys_returned.iter().all(|k| k.starts_with(p.as_str())) && r.keys_complete;
        }
        if let Some(u) = unfiltered {
            ok &= r.filtered != *u;
        }
        if let Some(d) = same_first_segment.as_deref().filter(|d| !d.is_empty()) {
            let first = |k: &String| k.split(d).next().map(str::to_string);
            let heads: BTreeSet<Option<String>> = r.keys_returned.iter().map(first).collect();
            ok &= heads.len() <= 1 && r.keys_complete;
        }
        Ok((ok, r.summary()))
    }

    /// Evaluates a [`Check::Advisor`].
    fn eval_advisor(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Advisor { absent, present } = self else {
            unreachable!("eval_advisor is only called on Check::Advisor")
        };
        let design = Design::from_parts(st.scenario, Some(st.instance));
        let found = crate::advisor::lint_bare_with(&design, st.report);
        let fired: BTreeSet<RuleId> = found.iter().map(|f| f.rule).collect();
        let still: Vec<&str> = absent
            .iter()
            .filter(|r| fired.contains(r))
            .map(|r| r.as_str())
            .collect();
        let missing: Vec<&str> = present
            .iter()
            .filter(|r| !fired.contains(r))
            .map(|r| r.as_str())
            .collect();
        let ok = still.is_empty() && missing.is_empty();
        let detail = if fired.is_empty() {
            "the advisor finds nothing".to_string()
        } else {
            format!(
                "the advisor reports {}",
                fired
                    .iter()
                    .map(|r| r.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Ok((ok, detail))
    }

    /// Evaluates a [`Check::Key`].
    fn eval_key(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Key {
            order,
            first,
            last,
            reversed,
            padded,
            absent,
            has_kind,
            lacks_kind,
            min_segments,
            delimited,
        } = self
        else {
            unreachable!("eval_key is only called on Check::Key")
        };
        let s = st
            .scenario
            .ok_or_else(|| Error::failed_precondition("this lesson has no design to check"))?;
        let key = &s.key;
        let idx = |n: &str| key.segment_index(n);
        let mut ok = true;
        let positions: Vec<Option<usize>> = order.iter().map(|n| idx(n)).collect();
        ok &= positions.iter().all(Option::is_some) && positions.windows(2).all(|w| w[0] < w[1]);
        if let Some(f) = first {
            ok &= key.segments.first().is_some_and(|s| &s.name == f);
        }
        if let Some(l) = last {
            ok &= key.segments.last().is_some_and(|s| &s.name == l);
        }
        for n in reversed {
            ok &= key.segments.iter().any(|s| {
                &s.name == n
                    && matches!(
                        s.kind,
                        SegmentKind::Int { reversed: true, .. }
                            | SegmentKind::Timestamp { reversed: true, .. }
                            | SegmentKind::Domain { reversed: true, .. }
                    )
            });
        }
        for n in padded {
            ok &= key
                .segments
                .iter()
                .any(|s| &s.name == n && matches!(s.kind, SegmentKind::Int { width: Some(_), .. }));
        }
        for n in absent {
            ok &= idx(n).is_none();
        }
        for k in has_kind {
            ok &= key.segments.iter().any(|s| s.kind.kind_name() == k);
        }
        for k in lacks_kind {
            ok &= !key.segments.iter().any(|s| s.kind.kind_name() == k);
        }
        ok &= min_segments.is_none_or(|m| key.segments.len() >= m);
        if let Some(d) = delimited {
            ok &= key.delimiter.is_empty() != *d;
        }
        Ok((ok, format!("the key is {}", key.pattern())))
    }

    /// Evaluates a [`Check::DesignFamily`].
    fn eval_design_family(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::DesignFamily {
            family,
            exists,
            max_versions,
            max_age,
        } = self
        else {
            unreachable!("eval_design_family is only called on Check::DesignFamily")
        };
        let s = st
            .scenario
            .ok_or_else(|| Error::failed_precondition("this lesson has no design to check"))?;
        let d = Design::from_scenario(s);
        let f = d.main_table().and_then(|t| t.families.get(family));
        let Some(f) = f else {
            return Ok((!exists, format!("the design has no family {family}")));
        };
        if !exists {
            return Ok((false, format!("the design still has family {family}")));
        }
        let mut ok = true;
        if let Some(v) = max_versions {
            ok &= f.max_versions.is_some_and(|x| x <= *v);
        }
        if let Some(a) = max_age {
            ok &= f.max_age.is_some_and(|x| x.0 <= a.0 + 1e-9);
        }
        Ok((ok, format!("family {family} {}", f.describe())))
    }

    /// Evaluates a [`Check::Access`].
    fn eval_access(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Access {
            name,
            shape: want,
            at_most,
        } = self
        else {
            unreachable!("eval_access is only called on Check::Access")
        };
        let s = st
            .scenario
            .ok_or_else(|| Error::failed_precondition("this lesson has no design to check"))?;
        let a = s.access.iter().find(|a| &a.name == name).ok_or_else(|| {
            Error::not_found(format!("the design declares no access pattern {name:?}"))
        })?;
        let plan = classify(&s.key, a, s.table.entities);
        let mut ok = true;
        if let Some(w) = want {
            ok &= plan.shape == shape(w)?;
        }
        if let Some(w) = at_most {
            ok &= plan.shape <= shape(w)?;
        }
        Ok((
            ok,
            format!(
                "\"{name}\" is {}: {}",
                plan.shape.describe(),
                plan.row_set.join("; ")
            ),
        ))
    }

    /// Evaluates a [`Check::Sim`].
    fn eval_sim(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Sim {
            absent,
            present,
            max_node_cpu,
        } = self
        else {
            unreachable!("eval_sim is only called on Check::Sim")
        };
        let Some(r) = st.report else {
            return Ok((
                false,
                "run the simulation of the current design first".into(),
            ));
        };
        let mut ok = true;
        for p in absent {
            let p = pattern_by_name(p);
            ok &= !r
                .diagnostics
                .iter()
                .any(|d| Some(d.pattern) == p && d.severity >= DiagSeverity::Warning);
        }
        for p in present {
            let p = pattern_by_name(p);
            ok &= r.diagnostics.iter().any(|d| Some(d.pattern) == p);
        }
        let peak = r
            .node_summaries
            .iter()
            .map(|n| n.peak_cpu_pct)
            .fold(0.0, f64::max);
        if let Some(m) = max_node_cpu {
            ok &= peak <= *m;
        }
        let names: Vec<String> = r
            .diagnostics
            .iter()
            .map(|d| format!("{} ({})", d.pattern.name(), d.severity.name()))
            .collect();
        Ok((
            ok,
            format!(
                "the simulation shows {}; busiest node peaks at {peak:.0}% CPU",
                if names.is_empty() {
                    "no pattern".to_string()
                } else {
                    names.join(", ")
                }
            ),
        ))
    }

    /// Evaluates a [`Check::Any`].
    fn eval_any(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Any { of } = self else {
            unreachable!("eval_any is only called on Check::Any")
        };
        let mut details = Vec::new();
        for c in of {
            let (ok, d) = c.evaluate(st);
            if ok {
                return Ok((true, d));
            }
            details.push(d);
        }
        Ok((false, details.join("; ")))
    }

    /// Evaluates a [`Check::All`].
    fn eval_all(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::All { of } = self else {
            unreachable!("eval_all is only called on Check::All")
        };
        let mut details = Vec::new();
        let mut all = true;
        for c in of {
            let (ok, d) = c.evaluate(st);
            all &= ok;
            details.push(d);
        }
        Ok((all, details.join("; ")))
    }

    /// Evaluates a [`Check::Not`].
    fn eval_not(&self, st: &mut State<'_>) -> Result<(bool, String)> {
        let Check::Not { check } = self else {
            unreachable!("eval_not is only called on Check::Not")
        };
        let (ok, d) = check.evaluate(st);
        Ok((!ok, d))
    }
}

fn list_tail(ids: &[String]) -> String {
    if ids.is_empty() {
        String::new()
    } else {
        format!(": {}", ids.join(", "))
    }
}

/// `*` matches any run of characters; everything else matches itself.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] != '*' && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

fn row_keys(
    db: &mut Instance,
    table: &str,
    prefix: Option<&str>,
    cap: u64,
) -> Result<Vec<Vec<u8>>> {
    let rows = match prefix {
        Some(p) if !p.is_empty() => RowSet::range(RowRange::prefix(p.as_bytes().to_vec())),
        _ => RowSet::all(),
    };
    let mut keys = Vec::new();
    let mut sink = |row: RowView<'_>| {
        keys.push(row.key.to_vec());
        (keys.len() as u64) < cap
    };
    db.read_rows(table, &ReadRowsRequest::rows(rows), &mut sink)?;
    Ok(keys)
}

fn read_row(db: &mut Instance, table: &str, key: &str) -> Result<Option<OwnedRow>> {
    if key.is_empty() {
        return Err(Error::invalid("a row key must not be empty"));
    }
    db.read_row(table, key.as_bytes(), None)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("orders_*", "orders_acme"));
        assert!(!glob("orders_*", "orders"));
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b", "ac"));
        assert!(glob("orders", "orders"));
    }
}
