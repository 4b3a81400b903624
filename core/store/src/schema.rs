//! Table and column-family definitions: GC rules, aggregate types, names
//! and the size limits Bigtable enforces.
//!
//! This module only describes and validates; it stores no data. The engine
//! decides *when* a GC rule deletes cells (at compaction); [`GcRule`] only
//! answers *whether* a given cell version may be collected.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::fidelity::Fidelity;

/// Longest row key Bigtable accepts, in bytes.
pub const MAX_ROW_KEY_BYTES: usize = 4 * 1024;
/// Longest column qualifier Bigtable accepts, in bytes.
pub const MAX_QUALIFIER_BYTES: usize = 16 * 1024;
/// Largest cell value Bigtable accepts, in bytes.
pub const MAX_VALUE_BYTES: usize = 100 * 1024 * 1024;
/// Largest row Bigtable accepts, in bytes.
pub const MAX_ROW_BYTES: usize = 256 * 1024 * 1024;
/// Column families per table above which Bigtable's performance degrades;
/// more are accepted, but the advisor warns.
pub const RECOMMENDED_MAX_FAMILIES: usize = 100;
/// Tables per instance.
pub const MAX_TABLES: usize = 1000;
/// Longest table id.
pub const MAX_TABLE_ID_LEN: usize = 50;
/// Longest column family name.
pub const MAX_FAMILY_NAME_LEN: usize = 64;

/// A garbage-collection rule of a column family
/// (`google.bigtable.admin.v2.GcRule`). A family without a rule keeps every
/// version forever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GcRule {
    /// Keep only the newest N versions of each column.
    MaxNumVersions(i32),
    /// Delete versions whose timestamp is older than now minus this age.
    MaxAge(Duration),
    /// Delete a version only if every nested rule would delete it.
    Intersection(Vec<GcRule>),
    /// Delete a version if any nested rule would delete it.
    Union(Vec<GcRule>),
}

impl GcRule {
    /// Checks the rule as the admin API does: positive version counts, an
    /// age of at least one millisecond, and non-empty combinations.
    pub fn validate(&self) -> Result<()> {
        self.validate_for(Fidelity::Production)
    }

    /// [`GcRule::validate`] as `fidelity` answers: the emulator also takes
    /// rules that keep nothing, a version count of 0 and an age of 0.
    pub fn validate_for(&self, fidelity: Fidelity) -> Result<()> {
        let least_versions = if fidelity.is_emulator() { 0 } else { 1 };
        let least_age = if fidelity.is_emulator() {
            Duration::ZERO
        } else {
            Duration::from_millis(1)
        };
        match self {
            GcRule::MaxNumVersions(n) if *n < least_versions => Err(Error::invalid(format!(
                "GC rule max_num_versions must be at least {least_versions}, got {n}"
            ))),
            GcRule::MaxAge(age) if *age < least_age => Err(Error::invalid(
                "GC rule max_age must be at least one millisecond",
            )),
            GcRule::Intersection(rules) | GcRule::Union(rules) => {
                if rules.is_empty() {
                    return Err(Error::invalid(
                        "GC rule union or intersection must contain at least one rule",
                    ));
                }
                rules.iter().try_for_each(|r| r.validate_for(fidelity))
            }
            _ => Ok(()),
        }
    }

    /// Whether a cell version may be collected: `rank` is its position among
    /// the column's versions, newest first (0 is the newest);
    /// `timestamp_micros` its timestamp; `now_micros` the instance clock.
    #[must_use]
    pub fn erases(&self, rank: usize, timestamp_micros: i64, now_micros: i64) -> bool {
        match self {
            GcRule::MaxNumVersions(n) => rank >= usize::try_from(*n).unwrap_or(0),
            GcRule::MaxAge(age) => {
                let age = i64::try_from(age.as_micros()).unwrap_or(i64::MAX);
                timestamp_micros < now_micros.saturating_sub(age)
            }
            GcRule::Intersection(rules) => rules
                .iter()
                .all(|r| r.erases(rank, timestamp_micros, now_micros)),
            GcRule::Union(rules) => rules
                .iter()
                .any(|r| r.erases(rank, timestamp_micros, now_micros)),
        }
    }

    /// The highest version count the rule ever keeps, if it bounds versions
    /// at all (used by the advisor and the UI).
    #[must_use]
    pub fn max_versions(&self) -> Option<i32> {
        match self {
            GcRule::MaxNumVersions(n) => Some(*n),
            GcRule::MaxAge(_) => None,
            GcRule::Intersection(rules) => rules.iter().filter_map(GcRule::max_versions).max(),
            GcRule::Union(rules) => rules.iter().filter_map(GcRule::max_versions).min(),
        }
    }
}

impl fmt::Display for GcRule {
    /// Formats the rule the way `cbt ls TABLE` prints GC policies, for
    /// example `(versions() > 2) || (age() > 1h)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn join(f: &mut fmt::Formatter<'_>, rules: &[GcRule], op: &str) -> fmt::Result {
            for (i, r) in rules.iter().enumerate() {
                if i > 0 {
                    write!(f, " {op} ")?;
                }
                write!(f, "({r})")?;
            }
            Ok(())
        }
        match self {
            GcRule::MaxNumVersions(n) => write!(f, "versions() > {n}"),
            GcRule::MaxAge(age) => write!(f, "age() > {}", format_duration(*age)),
            GcRule::Intersection(rules) => join(f, rules, "&&"),
            GcRule::Union(rules) => join(f, rules, "||"),
        }
    }
}

/// Formats a duration with the largest unit that divides it, as `cbt` does
/// (`1h`, `30m`, `5s`, `250ms`, `7d` is printed `168h`).
#[must_use]
pub fn format_duration(d: Duration) -> String {
    let micros = d.as_micros();
    if micros == 0 {
        return "0s".to_string();
    }
    for (unit, name) in [
        (3_600_000_000u128, "h"),
        (60_000_000, "m"),
        (1_000_000, "s"),
        (1_000, "ms"),
    ] {
        if micros.is_multiple_of(unit) {
            return format!("{}{name}", micros / unit);
        }
    }
    format!("{micros}us")
}

/// The aggregation of an aggregate column family
/// (`google.bigtable.admin.v2.Type.Aggregate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Aggregator {
    /// Sum of 64-bit signed integers.
    Sum,
    /// Smallest 64-bit signed integer seen.
    Min,
    /// Largest 64-bit signed integer seen.
    Max,
    /// Approximate count of distinct inputs (HyperLogLog++).
    HllppUniqueCount,
}

impl Aggregator {
    /// The name `cbt` uses in `families=fam:policy:TYPE` (`intsum`, ...).
    #[must_use]
    pub fn cbt_name(self) -> &'static str {
        match self {
            Aggregator::Sum => "intsum",
            Aggregator::Min => "intmin",
            Aggregator::Max => "intmax",
            Aggregator::HllppUniqueCount => "inthll",
        }
    }
}

/// What the cells of a column family hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// Plain bytes written with SetCell (the default).
    #[default]
    Bytes,
    /// An aggregate over 64-bit integer inputs, written with AddToCell or
    /// MergeToCell.
    Aggregate(Aggregator),
}

/// A column family definition.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnFamily {
    /// When versions become collectable; `None` keeps everything.
    pub gc_rule: Option<GcRule>,
    /// Plain bytes or an aggregate type.
    pub value_type: ValueType,
}

impl ColumnFamily {
    /// A plain-bytes family with the given rule.
    #[must_use]
    pub fn with_gc(gc_rule: Option<GcRule>) -> ColumnFamily {
        ColumnFamily {
            gc_rule,
            value_type: ValueType::Bytes,
        }
    }

    /// Validates the GC rule.
    pub fn validate(&self) -> Result<()> {
        self.validate_for(Fidelity::Production)
    }

    /// Validates the GC rule as `fidelity` answers ([`GcRule::validate_for`]).
    pub fn validate_for(&self, fidelity: Fidelity) -> Result<()> {
        match &self.gc_rule {
            Some(rule) => rule.validate_for(fidelity),
            None => Ok(()),
        }
    }
}

/// Checks a table id the way the admin API does: 1 to 50 characters from
/// `[-_.a-zA-Z0-9]`, not starting with `-` or `.`.
pub fn validate_table_id(id: &str) -> Result<()> {
    if id.is_empty() {
        return Err(Error::invalid("table id must not be empty"));
    }
    if id.len() > MAX_TABLE_ID_LEN {
        return Err(Error::invalid(format!(
            "table id \"{id}\" is {} characters long; the limit is {MAX_TABLE_ID_LEN}",
            id.len()
        )));
    }
    let first_ok = id
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let rest_ok = id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !first_ok || !rest_ok {
        return Err(Error::invalid(format!(
            "table id \"{id}\" must match [_a-zA-Z0-9][-_.a-zA-Z0-9]*"
        )));
    }
    Ok(())
}

/// Checks a column family name: 1 to 64 characters from `[-_.a-zA-Z0-9]`.
pub fn validate_family_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid("column family name must not be empty"));
    }
    if name.len() > MAX_FAMILY_NAME_LEN {
        return Err(Error::invalid(format!(
            "column family name \"{name}\" is {} characters long; the limit is {MAX_FAMILY_NAME_LEN}",
            name.len()
        )));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(Error::invalid(format!(
            "column family name \"{name}\" must match [-_.a-zA-Z0-9]+"
        )));
    }
    Ok(())
}

/// The definition of a table, as given to CreateTable and returned by
/// GetTable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableSchema {
    /// Column families by name.
    pub families: BTreeMap<String, ColumnFamily>,
}

impl TableSchema {
    /// Validates every family name and rule.
    pub fn validate(&self) -> Result<()> {
        self.validate_for(Fidelity::Production)
    }

    /// Validates every family name and rule as `fidelity` answers.
    pub fn validate_for(&self, fidelity: Fidelity) -> Result<()> {
        for (name, family) in &self.families {
            validate_family_name(name)?;
            family
                .validate_for(fidelity)
                .map_err(|e| e.context(format!("column family \"{name}\"")))?;
        }
        Ok(())
    }
}

/// One change of a ModifyColumnFamilies request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FamilyChange {
    /// Add a new family.
    Create(String, ColumnFamily),
    /// Replace the GC rule of an existing family (its value type cannot
    /// change).
    Update(String, ColumnFamily),
    /// Drop a family and all its data.
    Drop(String),
}

impl FamilyChange {
    /// The family the change is about.
    #[must_use]
    pub fn family(&self) -> &str {
        match self {
            FamilyChange::Create(n, _) | FamilyChange::Update(n, _) | FamilyChange::Drop(n) => n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_ids_follow_the_admin_api() {
        for ok in ["t", "mobile-time-series", "a.b_c", "_x", "9lives"] {
            assert!(validate_table_id(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-t", ".t", "a b", "t/x", &"x".repeat(51), "é"] {
            let e = validate_table_id(bad).unwrap_err();
            assert_eq!(e.code(), crate::Code::InvalidArgument, "{bad}");
        }
    }

    #[test]
    fn family_names_follow_the_admin_api() {
        for ok in ["cf", "stats_summary", "a-b.c", "0"] {
            assert!(validate_family_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a b", "a:b", &"f".repeat(65)] {
            assert!(validate_family_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn max_versions_erases_older_ranks() {
        let r = GcRule::MaxNumVersions(2);
        assert!(!r.erases(0, 0, 0));
        assert!(!r.erases(1, 0, 0));
        assert!(r.erases(2, 0, 0));
    }

    #[test]
    fn max_age_erases_cells_older_than_now_minus_age() {
        let r = GcRule::MaxAge(Duration::from_secs(1));
        let now = 10_000_000;
        assert!(
            !r.erases(5, now - 1_000_000, now),
            "exactly the age is kept"
        );
        assert!(r.erases(0, now - 1_000_001, now));
    }

    #[test]
    fn union_and_intersection_combine() {
        let age = GcRule::MaxAge(Duration::from_secs(1));
        let versions = GcRule::MaxNumVersions(1);
        let union = GcRule::Union(vec![age.clone(), versions.clone()]);
        let inter = GcRule::Intersection(vec![age, versions]);
        let now = 5_000_000;
        // Second-newest but fresh: union erases (by versions), intersection keeps.
        assert!(union.erases(1, now, now));
        assert!(!inter.erases(1, now, now));
        // Second-newest and old: both erase.
        assert!(union.erases(1, 0, now));
        assert!(inter.erases(1, 0, now));
        // Newest and old: union erases (by age), intersection keeps.
        assert!(union.erases(0, 0, now));
        assert!(!inter.erases(0, 0, now));
    }

    #[test]
    fn invalid_rules_are_rejected() {
        assert!(GcRule::MaxNumVersions(0).validate().is_err());
        assert!(
            GcRule::MaxAge(Duration::from_micros(10))
                .validate()
                .is_err()
        );
        assert!(GcRule::Union(vec![]).validate().is_err());
        assert!(
            GcRule::Union(vec![GcRule::MaxNumVersions(-1)])
                .validate()
                .is_err()
        );
        assert!(GcRule::MaxNumVersions(3).validate().is_ok());
    }

    #[test]
    fn rules_print_like_cbt() {
        let r = GcRule::Union(vec![
            GcRule::MaxNumVersions(2),
            GcRule::MaxAge(Duration::from_secs(3600)),
        ]);
        assert_eq!(r.to_string(), "(versions() > 2) || (age() > 1h)");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
        assert_eq!(format_duration(Duration::from_secs(90)), "90s");
    }
}
