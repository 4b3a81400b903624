//! The advisor's rules: stable ids, what each one is about, the seed topic
//! it comes from and the lesson that teaches it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A rule's stable id (`timestamp_first`, ...). Ids never change meaning;
/// new rules get new ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleId {
    /// The key starts with a timestamp or date.
    TimestampFirst,
    /// The key starts with a sequential number.
    SequentialIdFirst,
    /// A hash decides the key order.
    HashedKey,
    /// A number in the key is not zero-padded.
    UnpaddedNumber,
    /// Keys are long.
    KeyTooLong,
    /// One row is rewritten again and again.
    FrequentlyUpdatedRow,
    /// Domain names in the key are not reversed.
    DomainNotReversed,
    /// Personal data in a row key or family name.
    PiiInKey,
    /// A family keeps every version forever.
    NoGcRule,
    /// Columns with different retention needs share a family.
    MixedRetentionInFamily,
    /// Too many families (or one family per column).
    TooManyFamilies,
    /// A long family name.
    LongFamilyName,
    /// One table per customer, year or similar.
    TablePerTenant,
    /// An access pattern filters a middle or last segment.
    UnqueryableSuffix,
    /// Rows grow towards the size limits.
    WideRow,
    /// Many tiny cells that would be better as one serialized cell.
    ManySmallCells,
}

/// What the advisor knows about a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleInfo {
    /// The id.
    pub id: RuleId,
    /// A short title.
    pub title: &'static str,
    /// The seed topic the rule comes from, by name.
    pub seed_topic: &'static str,
    /// Id of the lesson that explains it.
    pub lesson: &'static str,
}

impl RuleId {
    /// Every rule, in the order reports list them.
    pub const ALL: [RuleId; 16] = [
        RuleId::TimestampFirst,
        RuleId::SequentialIdFirst,
        RuleId::HashedKey,
        RuleId::UnpaddedNumber,
        RuleId::KeyTooLong,
        RuleId::FrequentlyUpdatedRow,
        RuleId::DomainNotReversed,
        RuleId::PiiInKey,
        RuleId::UnqueryableSuffix,
        RuleId::WideRow,
        RuleId::ManySmallCells,
        RuleId::NoGcRule,
        RuleId::MixedRetentionInFamily,
        RuleId::TooManyFamilies,
        RuleId::LongFamilyName,
        RuleId::TablePerTenant,
    ];

    /// The snake_case id.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RuleId::TimestampFirst => "timestamp_first",
            RuleId::SequentialIdFirst => "sequential_id_first",
            RuleId::HashedKey => "hashed_key",
            RuleId::UnpaddedNumber => "unpadded_number",
            RuleId::KeyTooLong => "key_too_long",
            RuleId::FrequentlyUpdatedRow => "frequently_updated_row",
            RuleId::DomainNotReversed => "domain_not_reversed",
            RuleId::PiiInKey => "pii_in_key",
            RuleId::NoGcRule => "no_gc_rule",
            RuleId::MixedRetentionInFamily => "mixed_retention_in_family",
            RuleId::TooManyFamilies => "too_many_families",
            RuleId::LongFamilyName => "long_family_name",
            RuleId::TablePerTenant => "table_per_tenant",
            RuleId::UnqueryableSuffix => "unqueryable_suffix",
            RuleId::WideRow => "wide_row",
            RuleId::ManySmallCells => "many_small_cells",
        }
    }

    /// Parses a snake_case id.
    #[must_use]
    pub fn from_name(name: &str) -> Option<RuleId> {
        RuleId::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// Title, seed topic and lesson.
    #[must_use]
    pub fn info(self) -> RuleInfo {
        let (title, seed_topic, lesson) = match self {
            RuleId::TimestampFirst => (
                "Row key starts with a timestamp",
                "Schema design best practices › Row keys to avoid › Keys that start with a timestamp; Time-based data",
                "timestamp-first",
            ),
            RuleId::SequentialIdFirst => (
                "Row key starts with a sequential id",
                "Schema design best practices › Row keys to avoid › Sequential numeric IDs",
                "sequential-ids",
            ),
            RuleId::HashedKey => (
                "A hash decides the row order",
                "Schema design best practices › Row keys to avoid › Hashed values",
                "hashed-keys",
            ),
            RuleId::UnpaddedNumber => (
                "Number in the key is not zero-padded",
                "Schema design best practices › Row keys › Pad integers with leading zeros",
                "zero-padding",
            ),
            RuleId::KeyTooLong => (
                "Row keys are long",
                "Schema design best practices › Row keys › Keep row keys short (4 KiB at most)",
                "key-hygiene",
            ),
            RuleId::FrequentlyUpdatedRow => (
                "One row is updated again and again",
                "Schema design best practices › Row keys to avoid › Frequently updated identifiers",
                "new-rows-not-updates",
            ),
            RuleId::DomainNotReversed => (
                "Domain names are not reversed",
                "Schema design best practices › Special use cases › Domain names",
                "reverse-domains",
            ),
            RuleId::PiiInKey => (
                "Personal data in a row key or family name",
                "Schema design best practices › Special use cases › Data privacy",
                "key-hygiene",
            ),
            RuleId::NoGcRule => (
                "Family keeps every version forever",
                "Schema design best practices › Column families (garbage collection); Bigtable for DynamoDB users › TTL and garbage collection",
                "gc-versions-age",
            ),
            RuleId::MixedRetentionInFamily => (
                "Columns with different retention share a family",
                "Schema design best practices › Column families › Separate families for different retention needs",
                "family-grouping",
            ),
            RuleId::TooManyFamilies => (
                "Too many column families",
                "Schema design best practices › Column families › Group related columns (100 families at most)",
                "family-grouping",
            ),
            RuleId::LongFamilyName => (
                "Long column family name",
                "Schema design best practices › Column families › Short family names",
                "key-hygiene",
            ),
            RuleId::TablePerTenant => (
                "A table per customer, year or similar",
                "Schema design best practices › Tables; Special use cases › Multi-tenancy",
                "multi-tenant",
            ),
            RuleId::UnqueryableSuffix => (
                "A read filters a middle or last key segment",
                "Schema design best practices › Row keys › Design keys for your queries (the day-at-the-end example)",
                "delimited-keys",
            ),
            RuleId::WideRow => (
                "Rows grow towards the size limits",
                "Schema design best practices › Rows (size limits, keep entities in one row unless rows get large)",
                "wide-rows",
            ),
            RuleId::ManySmallCells => (
                "Many tiny cells per row",
                "Schema design best practices › Columns (too many cells per row); Special use cases › Changing or uncertain queries",
                "serialized-cell",
            ),
        };
        RuleInfo {
            id: self,
            title,
            seed_topic,
            lesson,
        }
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing; may be fine for this use case.
    Info,
    /// Costs capacity, money or flexibility, or will as the data grows.
    Warning,
    /// Breaks the design: a hotspot on every write, a row past its limit.
    Error,
}

impl Severity {
    /// `info`, `warning` or `error`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// Parses a name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Severity> {
        [Severity::Info, Severity::Warning, Severity::Error]
            .into_iter()
            .find(|s| s.name() == name)
    }
}
