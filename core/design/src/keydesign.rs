//! Row-key designs as templates: an ordered list of typed segments joined
//! by a delimiter, such as `{device_type}#{device_id}#{day}` for keys like
//! `phone#4c410523#20200501`.
//!
//! A [`KeyTemplate`] is plain data (serde, so scenario files, the web app's
//! row-key designer and the advisor share it). It can
//! - render keys: [`KeyRenderer`] turns an abstract [`KeyInput`] (which
//!   entity, at what time, which operation) into key bytes without
//!   allocating per key;
//! - show examples ([`KeyTemplate::examples`]) and a one-line pattern
//!   ([`KeyTemplate::pattern`]);
//! - take a key apart again ([`KeyTemplate::split_key`]) and say in which
//!   segment a key range's boundary falls ([`KeyTemplate::range_segment`]),
//!   which is how tablet boundaries and heatmap buckets get segment labels.
//!
//! # The entity model
//!
//! Most segments are derived from an *entity*: the user, device, site or
//! tenant a row belongs to, numbered `0..entities`. The same entity always
//! gets the same device id, user name or tenant, so a workload that picks
//! entities (uniformly, by Zipf's law, in sequence, or always the same one)
//! decides where in the key space its operations land. Segments marked
//! `per = "op"` instead vary with every operation, and time segments take
//! the operation's time. The segment kinds:
//!
//! | kind | renders | from |
//! |---|---|---|
//! | `const` | a fixed string (`memusage`) | nothing |
//! | `enum` | one of `values` (`phone`, `tablet`), optionally weighted | entity or op |
//! | `hex` | `width` lowercase hex digits (`4c410523`) | entity or op |
//! | `uuid` | a version-4 style UUID | entity or op |
//! | `name` | a made-up user name (`kamiro417`) | entity or op |
//! | `int` | the entity number (or the op sequence), zero-padded to `width` if given, optionally with its digits `reversed` | entity or op |
//! | `timestamp` | the op time in `s`, `ms` or `us`; `reversed` gives `i64::MAX - ts` (Java's `Long.MAX_VALUE - ts`), 19 digits | time |
//! | `date` | the op day or hour (`yyyymmdd`, `yyyy-mm-dd`, `yyyymmddhh`, `yyyymm`) | time |
//! | `hash` | `width` hex digits of a hash of segment `of` | another segment |
//! | `salt` | a bucket number `0..buckets`, from a hash of segment `of`, or random per op without `of` | another segment or op |
//! | `domain` | a host name of one of `sites` sites (`maps.kamiro.com`), `reversed` to `com.kamiro.maps` | entity |
//! | `tenant` | a tenant (customer) name; `skew > 0` makes a few tenants much larger than the rest | entity |
//!
//! Hashes here are fast 64-bit mixes, not cryptographic hashes: they only
//! have to scatter keys the way a real hash would.

mod render;

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::rng::mix64;
use tabletop_sql::rowkey_schema::{FieldType, IntEncoding, KeyField, RowKeySchema, StructEncoding};
use tabletop_store::escape_bytes;
use tabletop_store::{Error, Result};

pub use render::{KeyInput, KeyRenderer};
pub use tabletop_store::TimeUnit;

/// Most segments a template may have.
pub const MAX_SEGMENTS: usize = 16;
/// Longest `const` value, `enum` value or host name, in bytes (keeps every
/// rendered key far below Bigtable's 4 KiB row-key limit).
pub const MAX_LITERAL_BYTES: usize = 200;
/// Longest delimiter, in bytes.
pub const MAX_DELIMITER_BYTES: usize = 8;

/// A row-key design: segments joined by a delimiter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawTemplate", into = "RawTemplate")]
pub struct KeyTemplate {
    /// Placed between segments (`#` by default; may be empty, then
    /// segments are told apart by their fixed widths).
    pub delimiter: String,
    /// The segments, most significant first.
    pub segments: Vec<Segment>,
}

/// One named part of a row key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawSegment", into = "RawSegment")]
pub struct Segment {
    /// A short identifier (`device_id`), unique within the template.
    pub name: String,
    /// What the segment holds and how it is rendered.
    pub kind: SegmentKind,
}

/// Whether a segment follows the entity or changes with every operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Per {
    /// The same value for every operation on one entity.
    #[default]
    Entity,
    /// A new value for every operation.
    Op,
}

/// The layout of a `date` segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DateFormat {
    /// `20200501`
    #[default]
    #[serde(rename = "yyyymmdd")]
    Day,
    /// `2020-05-01`
    #[serde(rename = "yyyy-mm-dd")]
    DayDashed,
    /// `2020050113`
    #[serde(rename = "yyyymmddhh")]
    Hour,
    /// `202005`
    #[serde(rename = "yyyymm")]
    Month,
}

impl DateFormat {
    /// Rendered length in bytes.
    #[must_use]
    pub fn width(self) -> usize {
        match self {
            DateFormat::Day => 8,
            DateFormat::DayDashed => 10,
            DateFormat::Hour => 10,
            DateFormat::Month => 6,
        }
    }

    /// How long one value lasts, in seconds (a month counts 30 days).
    #[must_use]
    pub fn period_seconds(self) -> f64 {
        match self {
            DateFormat::Day | DateFormat::DayDashed => 86_400.0,
            DateFormat::Hour => 3_600.0,
            DateFormat::Month => 30.0 * 86_400.0,
        }
    }
}

/// What a segment holds. See the module documentation for a table.
#[derive(Clone, Debug, PartialEq)]
pub enum SegmentKind {
    /// A fixed string.
    Const {
        /// The text.
        value: String,
    },
    /// One of a few values, such as a device type.
    Enum {
        /// The values (at least one).
        values: Vec<String>,
        /// Relative weights, one per value; empty means equal weights.
        weights: Vec<u32>,
        /// Chosen per entity or per operation.
        per: Per,
    },
    /// Lowercase hex digits, like a device id.
    Hex {
        /// Digits, 1 to 32.
        width: u8,
        /// Per entity or per operation.
        per: Per,
    },
    /// A UUID (`8-4-4-4-12` hex digits).
    Uuid {
        /// Per entity or per operation.
        per: Per,
    },
    /// A made-up user name.
    Name {
        /// Per entity or per operation.
        per: Per,
    },
    /// A decimal integer: the entity number, or the operation's sequence
    /// number with `per = "op"`.
    Int {
        /// Zero-pad to this many digits (`None`: no padding, so `3` sorts
        /// after `20`).
        width: Option<u8>,
        /// Reverse the digits (after padding), which scatters sequential
        /// numbers over the key space.
        reversed: bool,
        /// Entity number or operation sequence.
        per: Per,
    },
    /// The operation's time as an integer.
    Timestamp {
        /// Resolution.
        unit: TimeUnit,
        /// `i64::MAX - ts`, zero-padded to 19 digits: newest first.
        reversed: bool,
    },
    /// The operation's calendar day, hour or month (UTC).
    Date {
        /// Layout.
        format: DateFormat,
    },
    /// Hex digits of a hash of another segment.
    Hash {
        /// The segment hashed (must not itself be a `hash` or `salt`).
        of: String,
        /// Hex digits, 1 to 16.
        width: u8,
    },
    /// A salt bucket number, zero-padded to the width of `buckets - 1`.
    Salt {
        /// Number of buckets, 1 to 10000.
        buckets: u32,
        /// The segment whose hash picks the bucket; `None` picks at random
        /// for every operation (then a reader must try every bucket).
        of: Option<String>,
    },
    /// A host name, optionally reversed (`com.kamiro.maps`).
    Domain {
        /// Number of distinct sites (registered domains).
        sites: u32,
        /// Reverse the labels.
        reversed: bool,
        /// Host labels under each site (`www`, `maps`, ...).
        hosts: Vec<String>,
    },
    /// A tenant (customer) name.
    Tenant {
        /// Number of tenants.
        tenants: u32,
        /// 0: every tenant owns the same share of entities; larger values
        /// make the first tenants own more (their share falls off as
        /// `1 / rank^skew`).
        skew: f64,
    },
}

/// How many distinct values a segment takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cardinality {
    /// At most this many values.
    Finite(u64),
    /// A new value on (nearly) every operation.
    Unique,
    /// One value per time period of this many seconds.
    PerPeriod(f64),
}

const DEFAULT_HOSTS: [&str; 5] = ["www", "maps", "mail", "news", "shop"];

impl SegmentKind {
    /// The kind's name as written in scenario files.
    #[must_use]
    pub fn kind_name(&self) -> &'static str {
        match self {
            SegmentKind::Const { .. } => "const",
            SegmentKind::Enum { .. } => "enum",
            SegmentKind::Hex { .. } => "hex",
            SegmentKind::Uuid { .. } => "uuid",
            SegmentKind::Name { .. } => "name",
            SegmentKind::Int { .. } => "int",
            SegmentKind::Timestamp { .. } => "timestamp",
            SegmentKind::Date { .. } => "date",
            SegmentKind::Hash { .. } => "hash",
            SegmentKind::Salt { .. } => "salt",
            SegmentKind::Domain { .. } => "domain",
            SegmentKind::Tenant { .. } => "tenant",
        }
    }

    /// The segment another one is derived from (`hash` and `salt`).
    #[must_use]
    pub fn source(&self) -> Option<&str> {
        match self {
            SegmentKind::Hash { of, .. } => Some(of),
            SegmentKind::Salt { of, .. } => of.as_deref(),
            _ => None,
        }
    }

    /// Whether the value depends on the operation's time.
    #[must_use]
    pub fn is_time(&self) -> bool {
        matches!(
            self,
            SegmentKind::Timestamp { .. } | SegmentKind::Date { .. }
        )
    }

    /// The rendered width when it is the same for every value.
    #[must_use]
    pub fn fixed_width(&self) -> Option<usize> {
        match self {
            SegmentKind::Const { value } => Some(value.len()),
            SegmentKind::Enum { values, .. } => {
                let first = values.first()?.len();
                values.iter().all(|v| v.len() == first).then_some(first)
            }
            SegmentKind::Hex { width, .. } => Some(usize::from(*width)),
            SegmentKind::Uuid { .. } => Some(36),
            SegmentKind::Int { width, .. } => width.map(usize::from),
            SegmentKind::Timestamp { unit, reversed } => Some(if *reversed {
                19
            } else {
                match unit {
                    TimeUnit::Seconds => 10,
                    TimeUnit::Millis => 13,
                    TimeUnit::Micros => 16,
                }
            }),
            SegmentKind::Date { format } => Some(format.width()),
            SegmentKind::Hash { width, .. } => Some(usize::from(*width)),
            SegmentKind::Salt { buckets, .. } => Some(salt_width(*buckets)),
            SegmentKind::Name { .. } | SegmentKind::Domain { .. } | SegmentKind::Tenant { .. } => {
                None
            }
        }
    }
}

/// Digits needed to print `buckets - 1`.
pub(crate) fn salt_width(buckets: u32) -> usize {
    let mut n = buckets.saturating_sub(1);
    let mut w = 1;
    while n >= 10 {
        n /= 10;
        w += 1;
    }
    w
}

/// The segment a key range's boundary falls in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeSegment {
    /// Index of the segment.
    pub segment: usize,
    /// Its name.
    pub name: String,
    /// The bytes both ends of the range share, escaped for display.
    pub shared_prefix: String,
}

/// One segment found in a key by [`KeyTemplate::split_key`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyPart {
    /// Index of the segment in the template.
    pub segment: usize,
    /// Byte range of the segment's value in the key.
    pub range: std::ops::Range<usize>,
}

/// How SQL reads keys of this design.
impl KeyTemplate {
    /// The row-key schema (SQL's view of a key) this design implies: its segments as fields, its
    /// delimiter (or fixed widths when it has none). Text segments become
    /// STRING, numbers INT64 DECIMAL, timestamps TIMESTAMP DECIMAL in the
    /// template's unit. Names keep `[A-Za-z0-9_]`.
    #[must_use]
    pub fn row_key_schema(&self) -> RowKeySchema {
        let t = self;
        let fixed = t.delimiter.is_empty();
        let fields = t
            .segments
            .iter()
            .map(|s| {
                let mut name: String = s
                    .name
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                if !name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                {
                    name.insert(0, '_');
                }
                let width = if fixed { s.kind.fixed_width() } else { None };
                let field_type = match &s.kind {
                    SegmentKind::Int {
                        width: w,
                        reversed: false,
                        ..
                    } => FieldType::Int64(IntEncoding::Decimal {
                        width: if fixed { *w } else { None },
                    }),
                    SegmentKind::Salt { .. } => FieldType::Int64(IntEncoding::Decimal {
                        width: width.and_then(|w| u8::try_from(w).ok()),
                    }),
                    SegmentKind::Timestamp { unit, reversed } => FieldType::Timestamp {
                        unit: *unit,
                        encoding: IntEncoding::Decimal {
                            width: width.and_then(|w| u8::try_from(w).ok()),
                        },
                        reversed: *reversed,
                    },
                    _ => FieldType::String { width },
                };
                KeyField { name, field_type }
            })
            .collect();
        RowKeySchema {
            fields,
            encoding: if fixed {
                StructEncoding::FixedWidth
            } else {
                StructEncoding::Delimited(t.delimiter.as_bytes().to_vec())
            },
        }
    }
}

impl KeyTemplate {
    /// Checks names, sizes and references; every constructor path (serde
    /// included) runs this.
    pub fn validate(&self) -> Result<()> {
        if self.delimiter.len() > MAX_DELIMITER_BYTES {
            return Err(Error::invalid(format!(
                "key delimiter {:?} is {} bytes long; the limit is {MAX_DELIMITER_BYTES}",
                self.delimiter,
                self.delimiter.len()
            )));
        }
        if self.segments.is_empty() {
            return Err(Error::invalid("a key template needs at least one segment"));
        }
        if self.segments.len() > MAX_SEGMENTS {
            return Err(Error::invalid(format!(
                "a key template has {} segments; the limit is {MAX_SEGMENTS}",
                self.segments.len()
            )));
        }
        for (i, seg) in self.segments.iter().enumerate() {
            seg.validate()?;
            if self.segments[..i].iter().any(|s| s.name == seg.name) {
                return Err(Error::invalid(format!(
                    "segment name \"{}\" is used twice",
                    seg.name
                )));
            }
            if let Some(of) = seg.kind.source() {
                let Some(src) = self.segments.iter().find(|s| s.name == of) else {
                    return Err(Error::invalid(format!(
                        "segment \"{}\": `of` names \"{of}\", which is not a segment of this key",
                        seg.name
                    )));
                };
                if src.kind.source().is_some() || src.name == seg.name {
                    return Err(Error::invalid(format!(
                        "segment \"{}\": `of` must name a segment that is not itself a hash or salt",
                        seg.name
                    )));
                }
                if matches!(
                    src.kind,
                    SegmentKind::Salt { .. } | SegmentKind::Hash { .. }
                ) {
                    return Err(Error::invalid(format!(
                        "segment \"{}\": `of` must name a segment that is not itself a hash or salt",
                        seg.name
                    )));
                }
            }
            if !self.delimiter.is_empty() {
                let literal_clash = match &seg.kind {
                    SegmentKind::Const { value } => value.contains(&self.delimiter),
                    SegmentKind::Enum { values, .. } => {
                        values.iter().any(|v| v.contains(&self.delimiter))
                    }
                    _ => false,
                };
                if literal_clash {
                    return Err(Error::invalid(format!(
                        "segment \"{}\" contains the delimiter {:?}; keys could not be split again",
                        seg.name, self.delimiter
                    )));
                }
            }
        }
        Ok(())
    }

    /// Index of the segment with this name.
    #[must_use]
    pub fn segment_index(&self, name: &str) -> Option<usize> {
        self.segments.iter().position(|s| s.name == name)
    }

    /// A one-line pattern such as `{device_type}#{device_id:hex8}#{day:yyyymmdd}`.
    #[must_use]
    pub fn pattern(&self) -> String {
        let mut s = String::new();
        for (i, seg) in self.segments.iter().enumerate() {
            if i > 0 {
                s.push_str(&self.delimiter);
            }
            let _ = match &seg.kind {
                SegmentKind::Const { value } => write!(s, "{value}"),
                SegmentKind::Hex { width, .. } => write!(s, "{{{}:hex{width}}}", seg.name),
                SegmentKind::Int {
                    width, reversed, ..
                } => write!(
                    s,
                    "{{{}:{}int{}}}",
                    seg.name,
                    if *reversed { "reversed " } else { "" },
                    width.map(|w| format!("{w}")).unwrap_or_default()
                ),
                SegmentKind::Timestamp { unit, reversed } => write!(
                    s,
                    "{{{}:{}{}}}",
                    seg.name,
                    if *reversed { "reversed " } else { "" },
                    match unit {
                        TimeUnit::Seconds => "unix s",
                        TimeUnit::Millis => "unix ms",
                        TimeUnit::Micros => "unix us",
                    }
                ),
                SegmentKind::Date { format } => write!(
                    s,
                    "{{{}:{}}}",
                    seg.name,
                    match format {
                        DateFormat::Day => "yyyymmdd",
                        DateFormat::DayDashed => "yyyy-mm-dd",
                        DateFormat::Hour => "yyyymmddhh",
                        DateFormat::Month => "yyyymm",
                    }
                ),
                SegmentKind::Hash { of, width } => write!(s, "{{{}:hash{width}({of})}}", seg.name),
                SegmentKind::Salt { buckets, of } => match of {
                    Some(of) => write!(s, "{{{}:salt{buckets}({of})}}", seg.name),
                    None => write!(s, "{{{}:salt{buckets}}}", seg.name),
                },
                SegmentKind::Domain { reversed, .. } => write!(
                    s,
                    "{{{}:{}}}",
                    seg.name,
                    if *reversed {
                        "reversed domain"
                    } else {
                        "domain"
                    }
                ),
                other => write!(s, "{{{}:{}}}", seg.name, other.kind_name()),
            };
        }
        s
    }

    /// `n` example keys (escaped for display) for entities `0..n`, one op
    /// each, at times a few minutes apart starting 2020-05-01.
    #[must_use]
    pub fn examples(&self, n: usize) -> Vec<String> {
        let Ok(mut r) = KeyRenderer::new(self) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        (0..n)
            .map(|i| {
                let i = i as u64;
                r.render(
                    &KeyInput {
                        entity: i.wrapping_mul(7919) % 100_003,
                        time_micros: 1_588_291_200_000_000 + (i as i64) * 271_828_000,
                        op_seq: i,
                        op_random: mix64(i ^ 0xe4a3_91c7),
                    },
                    &mut out,
                );
                escape_bytes(&out)
            })
            .collect()
    }

    /// Splits a key into its segments: on the delimiter when there is one
    /// (the last segment takes the rest), otherwise by the segments' fixed
    /// widths (a segment without one takes the rest). A key with fewer
    /// parts than the template yields fewer parts.
    #[must_use]
    pub fn split_key(&self, key: &[u8]) -> Vec<KeyPart> {
        let mut parts = Vec::with_capacity(self.segments.len());
        let n = self.segments.len();
        let delim = self.delimiter.as_bytes();
        let mut pos = 0usize;
        for i in 0..n {
            if pos > key.len() || (pos == key.len() && i > 0) {
                break;
            }
            let rest = key.get(pos..).unwrap_or_default();
            let len = if i + 1 == n {
                rest.len()
            } else if delim.is_empty() {
                match self.segments.get(i).and_then(|s| s.kind.fixed_width()) {
                    Some(w) => w.min(rest.len()),
                    None => rest.len(),
                }
            } else {
                find(rest, delim).unwrap_or(rest.len())
            };
            parts.push(KeyPart {
                segment: i,
                range: pos..pos + len,
            });
            pos += len;
            if pos >= key.len() {
                break;
            }
            pos += delim.len();
        }
        parts
    }

    /// The segment that byte `offset` of `key` belongs to. A delimiter
    /// byte belongs to the segment after it.
    #[must_use]
    pub fn segment_at(&self, key: &[u8], offset: usize) -> Option<usize> {
        let parts = self.split_key(key);
        let mut last = None;
        for p in &parts {
            if offset < p.range.end || (offset == p.range.end && p.range.is_empty()) {
                // Inside the part, or in the delimiter just before it.
                return Some(p.segment);
            }
            last = Some(p.segment);
        }
        // Past the last part: in the delimiter after it, or beyond the key.
        match last {
            Some(s) if s + 1 < self.segments.len() => Some(s + 1),
            Some(s) => Some(s),
            None => Some(0),
        }
    }

    /// In which segment the range `[start, end)` is cut, that is where
    /// its two boundary keys first differ. `end = None` means the end of
    /// the table. `None` if the template has no segments.
    #[must_use]
    pub fn range_segment(&self, start: &[u8], end: Option<&[u8]>) -> Option<RangeSegment> {
        let end = end.unwrap_or(&[]);
        let shared = start
            .iter()
            .zip(end.iter())
            .take_while(|(a, b)| a == b)
            .count();
        let probe = if shared < start.len() { start } else { end };
        let seg = self.segment_at(probe, shared)?;
        Some(RangeSegment {
            segment: seg,
            name: self.segments.get(seg)?.name.clone(),
            shared_prefix: escape_bytes(start.get(..shared).unwrap_or_default()),
        })
    }

    /// Distinct keys one entity can have when no segment depends on time or
    /// varies without bound per operation; `None` otherwise.
    #[must_use]
    pub fn keys_per_entity(&self, entities: u64) -> Option<u64> {
        let mut n: u64 = 1;
        for seg in &self.segments {
            match seg.cardinality(entities) {
                Cardinality::Finite(c) => {
                    if seg.varies_per_op() {
                        n = n.saturating_mul(c.max(1));
                    }
                }
                Cardinality::Unique | Cardinality::PerPeriod(_) => return None,
            }
        }
        Some(n)
    }

    /// The shortest period of a time segment (seconds), or 0 for a
    /// segment that makes every write a new row. `None`: no time segment.
    #[must_use]
    pub fn row_period_seconds(&self, entities: u64) -> Option<f64> {
        let mut best: Option<f64> = None;
        for seg in &self.segments {
            let p = match seg.cardinality(entities) {
                Cardinality::Unique => 0.0,
                Cardinality::PerPeriod(p) => p,
                Cardinality::Finite(_) => continue,
            };
            best = Some(best.map_or(p, |b: f64| b.min(p)));
        }
        best
    }

    /// Distinct values of the first `k` segments together (capped by what
    /// `entities` entities can produce), or `None` if a time or per-op
    /// segment makes it unbounded.
    #[must_use]
    pub fn prefix_cardinality(&self, k: usize, entities: u64) -> Option<u64> {
        let mut per_entity: u64 = 1;
        let mut shared: u64 = 1;
        for seg in self.segments.iter().take(k) {
            match seg.cardinality(entities) {
                Cardinality::Finite(c) => {
                    if seg.varies_per_op() {
                        per_entity = per_entity.saturating_mul(c.max(1));
                    } else {
                        shared = shared.saturating_mul(c.max(1));
                    }
                }
                _ => return None,
            }
        }
        Some(shared.min(entities.max(1)).saturating_mul(per_entity))
    }
}

impl Segment {
    /// Checks the name and the kind's parameters.
    pub fn validate(&self) -> Result<()> {
        let name = &self.name;
        if name.is_empty()
            || name.len() > 64
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(Error::invalid(format!(
                "segment name {name:?} must be 1 to 64 characters from [A-Za-z0-9_-]"
            )));
        }
        let bad = |msg: String| Err(Error::invalid(format!("segment \"{name}\": {msg}")));
        let literal_ok = |v: &str| !v.is_empty() && v.len() <= MAX_LITERAL_BYTES;
        match &self.kind {
            SegmentKind::Const { value } if !literal_ok(value) => {
                bad(format!("`value` must be 1 to {MAX_LITERAL_BYTES} bytes"))
            }
            SegmentKind::Enum {
                values, weights, ..
            } => {
                if values.is_empty() || values.len() > 10_000 {
                    return bad("`values` must list 1 to 10000 values".into());
                }
                if !values.iter().all(|v| literal_ok(v)) {
                    return bad(format!(
                        "every value must be 1 to {MAX_LITERAL_BYTES} bytes"
                    ));
                }
                if !weights.is_empty()
                    && (weights.len() != values.len() || weights.iter().all(|&w| w == 0))
                {
                    return bad("`weights` needs one weight per value, not all of them zero".into());
                }
                Ok(())
            }
            SegmentKind::Hex { width, .. } if !(1..=32).contains(width) => {
                bad("`width` must be 1 to 32 hex digits".into())
            }
            SegmentKind::Int { width: Some(w), .. } if !(1..=20).contains(w) => {
                bad("`width` must be 1 to 20 digits".into())
            }
            SegmentKind::Hash { width, .. } if !(1..=16).contains(width) => {
                bad("`width` must be 1 to 16 hex digits".into())
            }
            SegmentKind::Salt { buckets, .. } if !(1..=10_000).contains(buckets) => {
                bad("`buckets` must be 1 to 10000".into())
            }
            SegmentKind::Domain { sites, hosts, .. } => {
                if !(1..=10_000_000).contains(sites) {
                    return bad("`sites` must be 1 to 10000000".into());
                }
                if hosts.is_empty() || hosts.len() > 1000 {
                    return bad("`hosts` must list 1 to 1000 host labels".into());
                }
                if !hosts
                    .iter()
                    .all(|h| literal_ok(h) && !h.contains('.') && h.is_ascii())
                {
                    return bad("host labels must be ASCII without dots".into());
                }
                Ok(())
            }
            SegmentKind::Tenant { tenants, skew } => {
                if !(1..=100_000).contains(tenants) {
                    return bad("`tenants` must be 1 to 100000".into());
                }
                if !skew.is_finite() || !(0.0..=5.0).contains(skew) {
                    return bad("`skew` must be a number from 0 to 5".into());
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Whether the value changes with every operation on the same entity
    /// (per-op segments and salts without a source).
    #[must_use]
    pub fn varies_per_op(&self) -> bool {
        match &self.kind {
            SegmentKind::Enum { per, .. }
            | SegmentKind::Hex { per, .. }
            | SegmentKind::Uuid { per }
            | SegmentKind::Name { per }
            | SegmentKind::Int { per, .. } => *per == Per::Op,
            SegmentKind::Salt { of: None, .. } => true,
            SegmentKind::Timestamp { .. } | SegmentKind::Date { .. } => true,
            _ => false,
        }
    }

    /// How many values the segment takes with `entities` entities.
    #[must_use]
    pub fn cardinality(&self, entities: u64) -> Cardinality {
        let entities = entities.max(1);
        match &self.kind {
            SegmentKind::Const { .. } => Cardinality::Finite(1),
            SegmentKind::Enum { values, per, .. } => match per {
                Per::Entity => Cardinality::Finite((values.len() as u64).min(entities)),
                Per::Op => Cardinality::Finite(values.len() as u64),
            },
            SegmentKind::Hex { width, per } => {
                let space = 16u64.checked_pow(u32::from(*width)).unwrap_or(u64::MAX);
                match per {
                    Per::Entity => Cardinality::Finite(space.min(entities)),
                    Per::Op if space >= 1 << 40 => Cardinality::Unique,
                    Per::Op => Cardinality::Finite(space),
                }
            }
            SegmentKind::Uuid { per } | SegmentKind::Name { per } => match per {
                Per::Entity => Cardinality::Finite(entities),
                Per::Op => Cardinality::Unique,
            },
            SegmentKind::Int { per, .. } => match per {
                Per::Entity => Cardinality::Finite(entities),
                Per::Op => Cardinality::Unique,
            },
            SegmentKind::Timestamp { unit, .. } => match unit {
                TimeUnit::Seconds => Cardinality::PerPeriod(1.0),
                _ => Cardinality::Unique,
            },
            SegmentKind::Date { format } => Cardinality::PerPeriod(format.period_seconds()),
            SegmentKind::Hash { width, .. } => {
                Cardinality::Finite(16u64.checked_pow(u32::from(*width)).unwrap_or(u64::MAX))
            }
            SegmentKind::Salt { buckets, .. } => Cardinality::Finite(u64::from(*buckets)),
            SegmentKind::Domain { sites, hosts, .. } => {
                Cardinality::Finite((u64::from(*sites) * hosts.len() as u64).min(entities))
            }
            SegmentKind::Tenant { tenants, .. } => {
                Cardinality::Finite(u64::from(*tenants).min(entities))
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > haystack.len() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

// ---- serde: flat tables in files, typed values in code ----

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTemplate {
    #[serde(default = "default_delimiter")]
    delimiter: String,
    segments: Vec<Segment>,
}

fn default_delimiter() -> String {
    "#".to_string()
}

// Conversion errors are plain messages: serde puts them next to the
// file's line and column.
impl TryFrom<RawTemplate> for KeyTemplate {
    type Error = String;
    fn try_from(raw: RawTemplate) -> std::result::Result<KeyTemplate, String> {
        let t = KeyTemplate {
            delimiter: raw.delimiter,
            segments: raw.segments,
        };
        t.validate().map_err(|e| e.message().to_string())?;
        Ok(t)
    }
}

impl From<KeyTemplate> for RawTemplate {
    fn from(t: KeyTemplate) -> RawTemplate {
        RawTemplate {
            delimiter: t.delimiter,
            segments: t.segments,
        }
    }
}

/// A segment as written in a file: every parameter optional, checked
/// against the kind on conversion.
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSegment {
    name: String,
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    values: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weights: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    per: Option<Per>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    width: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reversed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unit: Option<TimeUnit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    format: Option<DateFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    of: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    buckets: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sites: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hosts: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tenants: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skew: Option<f64>,
}

impl RawSegment {
    fn present(&self) -> Vec<&'static str> {
        let mut p = Vec::new();
        let mut note = |set: bool, name: &'static str| {
            if set {
                p.push(name);
            }
        };
        note(self.value.is_some(), "value");
        note(self.values.is_some(), "values");
        note(self.weights.is_some(), "weights");
        note(self.per.is_some(), "per");
        note(self.width.is_some(), "width");
        note(self.reversed.is_some(), "reversed");
        note(self.unit.is_some(), "unit");
        note(self.format.is_some(), "format");
        note(self.of.is_some(), "of");
        note(self.buckets.is_some(), "buckets");
        note(self.sites.is_some(), "sites");
        note(self.hosts.is_some(), "hosts");
        note(self.tenants.is_some(), "tenants");
        note(self.skew.is_some(), "skew");
        p
    }
}

const KINDS: &str =
    "const, enum, hex, uuid, name, int, timestamp, date, hash, salt, domain, tenant";

impl TryFrom<RawSegment> for Segment {
    type Error = String;
    fn try_from(raw: RawSegment) -> std::result::Result<Segment, String> {
        Segment::from_raw(raw).map_err(|e| e.message().to_string())
    }
}

impl Segment {
    fn from_raw(raw: RawSegment) -> Result<Segment> {
        let allowed: &[&str] = match raw.kind.as_str() {
            "const" => &["value"],
            "enum" => &["values", "weights", "per"],
            "hex" => &["width", "per"],
            "uuid" | "name" => &["per"],
            "int" => &["width", "reversed", "per"],
            "timestamp" => &["unit", "reversed"],
            "date" => &["format"],
            "hash" => &["of", "width"],
            "salt" => &["buckets", "of"],
            "domain" => &["sites", "reversed", "hosts"],
            "tenant" => &["tenants", "skew"],
            other => {
                return Err(Error::invalid(format!(
                    "segment \"{}\": unknown kind {other:?}; expected one of {KINDS}",
                    raw.name
                )));
            }
        };
        if let Some(extra) = raw.present().into_iter().find(|f| !allowed.contains(f)) {
            return Err(Error::invalid(format!(
                "segment \"{}\": a {} segment takes no `{extra}` (it takes: {})",
                raw.name,
                raw.kind,
                if allowed.is_empty() {
                    "nothing".to_string()
                } else {
                    allowed.join(", ")
                }
            )));
        }
        let need = |what: &str| {
            Error::invalid(format!(
                "segment \"{}\": a {} segment needs `{what}`",
                raw.name, raw.kind
            ))
        };
        let per = raw.per.unwrap_or_default();
        let kind = match raw.kind.as_str() {
            "const" => SegmentKind::Const {
                value: raw.value.clone().ok_or_else(|| need("value"))?,
            },
            "enum" => SegmentKind::Enum {
                values: raw.values.clone().ok_or_else(|| need("values"))?,
                weights: raw.weights.clone().unwrap_or_default(),
                per,
            },
            "hex" => SegmentKind::Hex {
                width: raw.width.unwrap_or(8),
                per,
            },
            "uuid" => SegmentKind::Uuid { per },
            "name" => SegmentKind::Name { per },
            "int" => SegmentKind::Int {
                width: raw.width,
                reversed: raw.reversed.unwrap_or(false),
                per,
            },
            "timestamp" => SegmentKind::Timestamp {
                unit: raw.unit.unwrap_or_default(),
                reversed: raw.reversed.unwrap_or(false),
            },
            "date" => SegmentKind::Date {
                format: raw.format.unwrap_or_default(),
            },
            "hash" => SegmentKind::Hash {
                of: raw.of.clone().ok_or_else(|| need("of"))?,
                width: raw.width.unwrap_or(4),
            },
            "salt" => SegmentKind::Salt {
                buckets: raw.buckets.ok_or_else(|| need("buckets"))?,
                of: raw.of.clone(),
            },
            "domain" => SegmentKind::Domain {
                sites: raw.sites.unwrap_or(100),
                reversed: raw.reversed.unwrap_or(false),
                hosts: raw
                    .hosts
                    .clone()
                    .unwrap_or_else(|| DEFAULT_HOSTS.iter().map(|h| (*h).to_string()).collect()),
            },
            _ => SegmentKind::Tenant {
                tenants: raw.tenants.unwrap_or(10),
                skew: raw.skew.unwrap_or(0.0),
            },
        };
        let seg = Segment {
            name: raw.name,
            kind,
        };
        seg.validate()?;
        Ok(seg)
    }
}

impl From<Segment> for RawSegment {
    fn from(s: Segment) -> RawSegment {
        let mut raw = RawSegment {
            name: s.name,
            kind: s.kind.kind_name().to_string(),
            ..RawSegment::default()
        };
        let per = |p: Per| (p == Per::Op).then_some(p);
        match s.kind {
            SegmentKind::Const { value } => raw.value = Some(value),
            SegmentKind::Enum {
                values,
                weights,
                per: p,
            } => {
                raw.values = Some(values);
                raw.weights = (!weights.is_empty()).then_some(weights);
                raw.per = per(p);
            }
            SegmentKind::Hex { width, per: p } => {
                raw.width = Some(width);
                raw.per = per(p);
            }
            SegmentKind::Uuid { per: p } | SegmentKind::Name { per: p } => raw.per = per(p),
            SegmentKind::Int {
                width,
                reversed,
                per: p,
            } => {
                raw.width = width;
                raw.reversed = reversed.then_some(true);
                raw.per = per(p);
            }
            SegmentKind::Timestamp { unit, reversed } => {
                raw.unit = Some(unit);
                raw.reversed = reversed.then_some(true);
            }
            SegmentKind::Date { format } => raw.format = Some(format),
            SegmentKind::Hash { of, width } => {
                raw.of = Some(of);
                raw.width = Some(width);
            }
            SegmentKind::Salt { buckets, of } => {
                raw.buckets = Some(buckets);
                raw.of = of;
            }
            SegmentKind::Domain {
                sites,
                reversed,
                hosts,
            } => {
                raw.sites = Some(sites);
                raw.reversed = reversed.then_some(true);
                raw.hosts = Some(hosts);
            }
            SegmentKind::Tenant { tenants, skew } => {
                raw.tenants = Some(tenants);
                raw.skew = (skew != 0.0).then_some(skew);
            }
        }
        raw
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn mobile() -> KeyTemplate {
        toml::from_str(
            r##"
            delimiter = "#"
            segments = [
              { name = "device_type", kind = "enum", values = ["phone", "tablet"] },
              { name = "device_id", kind = "hex", width = 8 },
              { name = "day", kind = "date" },
            ]
            "##,
        )
        .unwrap()
    }

    #[test]
    fn renders_the_seed_shape() {
        let t = mobile();
        let ex = t.examples(4);
        assert_eq!(ex.len(), 4);
        for k in &ex {
            let parts: Vec<&str> = k.split('#').collect();
            assert_eq!(parts.len(), 3, "{k}");
            assert!(parts[0] == "phone" || parts[0] == "tablet");
            assert_eq!(parts[1].len(), 8);
            assert!(parts[1].chars().all(|c| c.is_ascii_hexdigit()));
            assert!(parts[2].starts_with("2020050"), "{k}");
        }
        assert_eq!(
            t.pattern(),
            "{device_type:enum}#{device_id:hex8}#{day:yyyymmdd}"
        );
    }

    #[test]
    fn splits_keys_and_names_range_segments() {
        let t = mobile();
        let parts = t.split_key(b"phone#4c410523#20200501");
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[1].range, 6..14);
        assert_eq!(t.segment_at(b"phone#4c410523#20200501", 5), Some(1));
        assert_eq!(t.segment_at(b"phone#4c410523#20200501", 15), Some(2));
        let r = t
            .range_segment(b"phone#4c410523#20200501", Some(b"phone#7a000000"))
            .unwrap();
        assert_eq!(r.name, "device_id");
        assert_eq!(r.shared_prefix, "phone#");
        let r = t.range_segment(b"phone", Some(b"tablet")).unwrap();
        assert_eq!(r.segment, 0);
        let r = t
            .range_segment(b"phone#4c410523#20200501", Some(b"phone#4c410523#20200601"))
            .unwrap();
        assert_eq!(r.name, "day");
        let r = t.range_segment(b"", None).unwrap();
        assert_eq!(r.segment, 0);
    }

    #[test]
    fn fixed_width_split_without_delimiter() {
        let t = KeyTemplate {
            delimiter: String::new(),
            segments: vec![
                Segment {
                    name: "salt".into(),
                    kind: SegmentKind::Salt {
                        buckets: 16,
                        of: None,
                    },
                },
                Segment {
                    name: "ts".into(),
                    kind: SegmentKind::Timestamp {
                        unit: TimeUnit::Millis,
                        reversed: false,
                    },
                },
            ],
        };
        t.validate().unwrap();
        let parts = t.split_key(b"071588291200000");
        assert_eq!(parts[0].range, 0..2);
        assert_eq!(parts[1].range, 2..15);
    }

    #[test]
    fn serde_round_trip_and_errors() {
        let t = mobile();
        let json = serde_json::to_string(&t).unwrap();
        let back: KeyTemplate = serde_json::from_str(&json).unwrap();
        assert_eq!(back, t);

        let err = toml::from_str::<KeyTemplate>(
            "segments = [{ name = \"ts\", kind = \"timestamp\", values = [\"a\"] }]",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("takes no `values`"), "{err}");
        let err = toml::from_str::<KeyTemplate>("segments = [{ name = \"x\", kind = \"nope\" }]")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown kind"), "{err}");
        let err = toml::from_str::<KeyTemplate>(
            "segments = [{ name = \"s\", kind = \"salt\", buckets = 4, of = \"missing\" }]",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("not a segment"), "{err}");
        let err = toml::from_str::<KeyTemplate>(
            "segments = [{ name = \"a\", kind = \"const\", value = \"x#y\" }]",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("delimiter"), "{err}");
    }

    #[test]
    fn cardinalities() {
        let t = mobile();
        assert_eq!(t.prefix_cardinality(1, 1000), Some(2));
        assert_eq!(t.prefix_cardinality(2, 1000), Some(1000));
        assert_eq!(t.prefix_cardinality(3, 1000), None);
        assert_eq!(t.keys_per_entity(1000), None);
        assert_eq!(t.row_period_seconds(1000), Some(86_400.0));
        assert_eq!(salt_width(1), 1);
        assert_eq!(salt_width(10), 1);
        assert_eq!(salt_width(11), 2);
        assert_eq!(salt_width(10_000), 4);
    }

    #[test]
    fn templates_become_schemas() {
        let t: KeyTemplate = toml::from_str(
            r##"
            delimiter = "#"
            segments = [
              { name = "device_type", kind = "enum", values = ["phone", "tablet"] },
              { name = "device-id", kind = "hex", width = 8 },
              { name = "ts", kind = "timestamp", unit = "ms", reversed = true },
            ]
            "##,
        )
        .unwrap();
        let s = t.row_key_schema();
        s.validate().unwrap();
        assert_eq!(s.fields[1].name, "device_id");
        for ex in t.examples(5) {
            s.decode(ex.as_bytes())
                .unwrap_or_else(|e| panic!("{ex}: {e}"));
        }
    }
}
