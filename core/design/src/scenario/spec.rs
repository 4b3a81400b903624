//! The parts of a design the advisor reads that a scenario file may
//! declare next to its table and key: the application's reads
//! (`[[access]]`), the columns a row holds (`[[column]]`) and other tables
//! of the same instance (`[[other_table]]`). All three are optional; the
//! simulator ignores them (except that a lesson session turns access
//! patterns with a `rate` into workloads).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{FamilySpec, Seconds};
use crate::keydesign::{KeyTemplate, SegmentKind};

/// A read the application makes, by what it knows of the row key.
///
/// ```toml
/// [[access]]
/// name = "one device, a day range"
/// fixed = ["device_type", "device_id"]
/// range = "day"
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSpec {
    /// A short name ("all data of one device for a day range").
    pub name: String,
    /// Fields the read knows exactly, by segment name. A field that is not
    /// a segment of the key is a value the read must filter on. A domain
    /// segment can be named `host:site` when the read knows only the
    /// registered site (`kamiro.com`), not the host.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<String>,
    /// A field the read asks for as a range (a time window, a span of ids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<String>,
    /// Whether the read wants the newest rows first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub newest_first: bool,
    /// Reads per second (0: declared for the advisor only; a lesson
    /// session simulates access patterns with a rate).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rate: f64,
    /// Rows one read returns (for the simulation; default: an estimate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// How far back the wanted rows were written (for the simulation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age: Option<Seconds>,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// What one row stores in a family: one column, or a set of columns whose
/// qualifiers are data (`{friend_id}`: one column per friend).
///
/// ```toml
/// [[column]]
/// family = "stats"
/// qualifier = "cpu"
/// bytes = 8
/// keep_versions = 1
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    /// The family (of the scenario's table).
    pub family: String,
    /// The qualifier, or a `{placeholder}` when qualifiers are data.
    pub qualifier: String,
    /// Typical size of one value, in bytes.
    #[serde(default = "default_bytes")]
    pub bytes: u64,
    /// How many such columns one row holds at once (more than 1 only makes
    /// sense for a `{placeholder}` qualifier).
    #[serde(default = "default_per_row")]
    pub per_row: u64,
    /// How many versions of a value the application needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_versions: Option<u32>,
    /// How long the application needs a value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_for: Option<Seconds>,
    /// New cells one row gets here per day: new versions of a fixed
    /// qualifier, new columns for a placeholder.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub writes_per_day: f64,
}

fn default_bytes() -> u64 {
    8
}
fn default_per_row() -> u64 {
    1
}

impl ColumnSpec {
    /// Whether the qualifier is data (`{friend_id}`).
    #[must_use]
    pub fn is_placeholder(&self) -> bool {
        self.qualifier.starts_with('{') && self.qualifier.ends_with('}')
    }

    /// The retention the column needs, as a comparable pair (versions,
    /// seconds); `None` parts are "no need stated".
    #[must_use]
    pub fn retention(&self) -> (Option<u32>, Option<f64>) {
        (self.keep_versions, self.keep_for.map(|s| s.0))
    }
}

/// Another table of the same instance, for rules that look across tables.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtherTable {
    /// Table id.
    pub id: String,
    /// Its families (same form as `[table] families`).
    #[serde(default)]
    pub families: BTreeMap<String, FamilySpec>,
}

/// The segment named by an access field: `device_id`, or `host:site`.
pub fn field_segment(field: &str) -> (&str, bool) {
    match field.split_once(':') {
        Some((seg, "site")) => (seg, true),
        _ => (field, false),
    }
}

/// Checks one access pattern against the key; the message names the field.
pub(crate) fn check_access(a: &AccessSpec, key: &KeyTemplate) -> Result<(), String> {
    if a.name.trim().is_empty() {
        return Err("`name` must not be empty".into());
    }
    if a.name.len() > 200 {
        return Err("`name` must be at most 200 bytes".into());
    }
    if a.fixed.len() > 32 {
        return Err("`fixed` may list at most 32 fields".into());
    }
    for f in a.fixed.iter().chain(a.range.iter()) {
        if f.trim().is_empty() || f.len() > 64 {
            return Err(format!("field {f:?} must be 1 to 64 bytes"));
        }
        let (seg, site) = field_segment(f);
        if site {
            let is_domain = key
                .segments
                .iter()
                .any(|s| s.name == seg && matches!(s.kind, SegmentKind::Domain { .. }));
            if !is_domain {
                return Err(format!(
                    "field {f:?}: `:site` only applies to a domain segment of the key"
                ));
            }
        }
    }
    if let Some(r) = &a.range
        && a.fixed.contains(r)
    {
        return Err(format!("field {r:?} is both fixed and a range"));
    }
    if !(a.rate.is_finite() && (0.0..=1e9).contains(&a.rate)) {
        return Err("`rate` must be from 0 to 10^9 reads per second".into());
    }
    if a.rows.is_some_and(|r| !(1..=1_000_000_000).contains(&r)) {
        return Err("`rows` must be from 1 to 10^9".into());
    }
    if a.age.is_some_and(|s| !(s.0.is_finite() && s.0 >= 0.0)) {
        return Err("`age` must not be negative".into());
    }
    Ok(())
}

/// Checks one column declaration against the table's families.
pub(crate) fn check_column(
    c: &ColumnSpec,
    families: &BTreeMap<String, FamilySpec>,
) -> Result<(), String> {
    let known = if families.is_empty() {
        c.family == "cf"
    } else {
        families.contains_key(&c.family)
    };
    if !known {
        return Err(format!(
            "family {:?} is not a family of the table",
            c.family
        ));
    }
    if c.qualifier.is_empty() || c.qualifier.len() > tabletop_store::MAX_QUALIFIER_BYTES {
        return Err("`qualifier` must be 1 byte to 16 KiB".into());
    }
    if !(1..=tabletop_store::MAX_VALUE_BYTES as u64).contains(&c.bytes) {
        return Err("`bytes` must be from 1 to 104857600 (100 MiB)".into());
    }
    if !(1..=1_000_000_000).contains(&c.per_row) {
        return Err("`per_row` must be from 1 to 10^9".into());
    }
    if c.keep_versions == Some(0) {
        return Err("`keep_versions` must be at least 1".into());
    }
    if c.keep_for.is_some_and(|s| !(s.0.is_finite() && s.0 > 0.0)) {
        return Err("`keep_for` must be more than 0".into());
    }
    if !(c.writes_per_day.is_finite() && (0.0..=1e9).contains(&c.writes_per_day)) {
        return Err("`writes_per_day` must be from 0 to 10^9".into());
    }
    Ok(())
}

/// Checks another table's id and families.
pub(crate) fn check_other_table(t: &OtherTable) -> Result<(), String> {
    tabletop_store::validate_table_id(&t.id).map_err(|e| format!("id: {}", e.message()))?;
    for (name, f) in &t.families {
        tabletop_store::validate_family_name(name)
            .map_err(|e| format!("families: {}", e.message()))?;
        if f.max_versions == Some(0) {
            return Err(format!("families.{name}.max_versions must be at least 1"));
        }
    }
    Ok(())
}
