//! A fast path for the requests that carry bulk data: `mutateRows` and
//! `mutateRow` with the common mutation kinds.
//!
//! The general decoder builds a `serde_json::Value` tree and walks it with
//! field paths ready for error messages, which costs several allocations
//! per cell. Here a well-formed request is deserialised straight into
//! borrowed structs, its base64 decoded into one buffer, and the engine is
//! handed mutations that borrow that buffer.
//!
//! The fast path only ever *accepts*: whenever anything is unusual (an
//! unknown or repeated field, a snake_case spelling, an escape in a string,
//! bad base64, a row key the engine would refuse at decode time, another
//! mutation kind), it declines and the general decoder handles the request,
//! with its precise errors. Both paths give byte-identical answers; the
//! tests in `core/tests/api_json.rs` compare them.

use std::borrow::Cow;
use std::ops::Range;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_json::value::RawValue;

use super::data::mutate_rows_answer;
use tabletop_sql::Instance;
use tabletop_store::MAX_ROW_KEY_BYTES;
use tabletop_store::base64_text as base64;
use tabletop_store::{MutateRowsEntry, Traces};
use tabletop_store::{Mutation, TimestampRange};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<'a> {
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow)]
    request: &'a RawValue,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MutateRows<'a> {
    #[serde(borrow)]
    table_name: &'a str,
    #[serde(borrow, default)]
    entries: Vec<Entry<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Entry<'a> {
    #[serde(borrow)]
    row_key: &'a str,
    #[serde(borrow, default)]
    mutations: Vec<FastMutation<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MutateRow<'a> {
    #[serde(borrow)]
    table_name: &'a str,
    #[serde(borrow)]
    row_key: &'a str,
    #[serde(borrow, default)]
    mutations: Vec<FastMutation<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
enum FastMutation<'a> {
    #[serde(borrow)]
    SetCell(SetCell<'a>),
    #[serde(borrow)]
    DeleteFromColumn(DeleteFromColumn<'a>),
    #[serde(borrow)]
    DeleteFromFamily(DeleteFromFamily<'a>),
    DeleteFromRow(Empty),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SetCell<'a> {
    #[serde(borrow)]
    family_name: &'a str,
    #[serde(borrow, default)]
    column_qualifier: Option<&'a str>,
    #[serde(default)]
    timestamp_micros: Option<Int64>,
    #[serde(borrow, default)]
    value: Option<&'a str>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DeleteFromColumn<'a> {
    #[serde(borrow)]
    family_name: &'a str,
    #[serde(borrow, default)]
    column_qualifier: Option<&'a str>,
    #[serde(default)]
    time_range: Option<TimeRange>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TimeRange {
    #[serde(default)]
    start_timestamp_micros: Option<Int64>,
    #[serde(default)]
    end_timestamp_micros: Option<Int64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DeleteFromFamily<'a> {
    #[serde(borrow)]
    family_name: &'a str,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

/// An int64 written as a JSON integer or as a string of digits (the two
/// common proto3 spellings; anything fancier goes to the general decoder).
struct Int64(i64);

impl<'de> Deserialize<'de> for Int64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Int64;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an int64")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int64, E> {
                Ok(Int64(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int64, E> {
                i64::try_from(v).map(Int64).map_err(E::custom)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Int64, E> {
                let digits = s.strip_prefix('-').unwrap_or(s);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(E::custom("not a plain integer"));
                }
                s.parse().map(Int64).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// Bytes decoded from base64, as ranges of one buffer.
#[derive(Default)]
struct Decoded {
    buf: Vec<u8>,
}

impl Decoded {
    fn add(&mut self, text: Option<&str>) -> Option<Range<usize>> {
        let start = self.buf.len();
        if let Some(text) = text {
            self.buf.extend_from_slice(&base64::decode(text).ok()?);
        }
        Some(start..self.buf.len())
    }
}

/// A mutation with its bytes as ranges of the decoded buffer.
enum Planned<'a> {
    Set {
        family: &'a str,
        qualifier: Range<usize>,
        ts: i64,
        value: Range<usize>,
    },
    DeleteColumn {
        family: &'a str,
        qualifier: Range<usize>,
        range: Option<TimestampRange>,
    },
    DeleteFamily(&'a str),
    DeleteRow,
}

fn plan<'a>(m: &FastMutation<'a>, d: &mut Decoded) -> Option<Planned<'a>> {
    Some(match m {
        FastMutation::SetCell(s) => Planned::Set {
            family: s.family_name,
            qualifier: d.add(s.column_qualifier)?,
            ts: s.timestamp_micros.as_ref().map_or(0, |t| t.0),
            value: d.add(s.value)?,
        },
        FastMutation::DeleteFromColumn(c) => Planned::DeleteColumn {
            family: c.family_name,
            qualifier: d.add(c.column_qualifier)?,
            range: c.time_range.as_ref().map(|r| TimestampRange {
                start_micros: r.start_timestamp_micros.as_ref().map_or(0, |t| t.0),
                end_micros: r.end_timestamp_micros.as_ref().map_or(0, |t| t.0),
            }),
        },
        FastMutation::DeleteFromFamily(f) => Planned::DeleteFamily(f.family_name),
        FastMutation::DeleteFromRow(_) => Planned::DeleteRow,
    })
}

fn build<'b>(p: &Planned<'b>, buf: &'b [u8]) -> Mutation<'b> {
    match p {
        Planned::Set {
            family,
            qualifier,
            ts,
            value,
        } => Mutation::SetCell {
            family_name: Cow::Borrowed(family),
            column_qualifier: Cow::Borrowed(&buf[qualifier.clone()]),
            timestamp_micros: *ts,
            value: Cow::Borrowed(&buf[value.clone()]),
        },
        Planned::DeleteColumn {
            family,
            qualifier,
            range,
        } => Mutation::DeleteFromColumn {
            family_name: Cow::Borrowed(family),
            column_qualifier: Cow::Borrowed(&buf[qualifier.clone()]),
            time_range: *range,
        },
        Planned::DeleteFamily(family) => Mutation::DeleteFromFamily {
            family_name: Cow::Borrowed(family),
        },
        Planned::DeleteRow => Mutation::DeleteFromRow,
    }
}

/// The table id of a well-formed table name.
fn table_id(name: &str) -> Option<&str> {
    let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic() && b != b'/');
    let mut parts = name.split('/');
    let (Some("projects"), Some(p), Some("instances"), Some(i), Some("tables"), Some(t), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return None;
    };
    (ok(p) && ok(i) && ok(t)).then_some(t)
}

fn row_key_ok(key: &[u8]) -> bool {
    !key.is_empty() && key.len() <= MAX_ROW_KEY_BYTES
}

/// Answers `line` if it is a bulk write the fast path understands, or
/// returns `None` to let the general decoder handle it.
pub(crate) fn try_handle(
    instance: &mut Instance,
    line: &str,
    traces: &mut Traces,
) -> Option<super::Answer> {
    let env: Envelope<'_> = serde_json::from_str(line).ok()?;
    match env.method {
        "mutateRows" => mutate_rows(instance, env.request.get(), traces),
        "mutateRow" => mutate_row(instance, env.request.get(), traces),
        _ => None,
    }
}

fn mutate_rows(
    instance: &mut Instance,
    request: &str,
    traces: &mut Traces,
) -> Option<super::Answer> {
    let req: MutateRows<'_> = serde_json::from_str(request).ok()?;
    let table = table_id(req.table_name)?;
    let mut decoded = Decoded::default();
    let mut planned = Vec::with_capacity(req.entries.len());
    for e in &req.entries {
        let key = decoded.add(Some(e.row_key))?;
        // An entry without mutations is refused by the general decoder,
        // which names its field.
        if !row_key_ok(&decoded.buf[key.clone()]) || e.mutations.is_empty() {
            return None;
        }
        let muts = e
            .mutations
            .iter()
            .map(|m| plan(m, &mut decoded))
            .collect::<Option<Vec<_>>>()?;
        planned.push((key, muts));
    }
    let buf = decoded.buf.as_slice();
    let entries: Vec<MutateRowsEntry<'_>> = planned
        .iter()
        .map(|(key, muts)| MutateRowsEntry {
            row_key: Cow::Borrowed(&buf[key.clone()]),
            mutations: muts.iter().map(|m| build(m, buf)).collect(),
        })
        .collect();
    let answer = traces
        .record(|t| instance.mutate_rows_traced(table, &entries, t))
        .map(|results| mutate_rows_answer(&results));
    Some(super::Answer::of(&answer))
}

fn mutate_row(
    instance: &mut Instance,
    request: &str,
    traces: &mut Traces,
) -> Option<super::Answer> {
    let req: MutateRow<'_> = serde_json::from_str(request).ok()?;
    let table = table_id(req.table_name)?;
    let mut decoded = Decoded::default();
    let key = decoded.add(Some(req.row_key))?;
    if !row_key_ok(&decoded.buf[key.clone()]) {
        return None;
    }
    let muts = req
        .mutations
        .iter()
        .map(|m| plan(m, &mut decoded))
        .collect::<Option<Vec<_>>>()?;
    let buf = decoded.buf.as_slice();
    let mutations: Vec<Mutation<'_>> = muts.iter().map(|m| build(m, buf)).collect();
    let answer = traces
        .record(|t| instance.mutate_row_traced(table, &buf[key.clone()], &mutations, t))
        .map(|()| serde_json::Value::Object(serde_json::Map::new()));
    Some(super::Answer::of(&answer))
}
