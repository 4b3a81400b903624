//! GoogleSQL types and values as the playground's SQL uses them: the
//! scalar types, `ARRAY`, `STRUCT` and `MAP` (a column family), with
//! GoogleSQL's comparison rules (three-valued, NULL-aware), a total order
//! for sorting and grouping, and the text and JSON forms results take.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};

use serde_json::Value as Json;

use tabletop_store::base64_text::encode as encode_base64;
use tabletop_store::escape_bytes;
use tabletop_store::{civil_from_days, days_from_civil};

/// Earliest TIMESTAMP GoogleSQL allows (0001-01-01 00:00:00 UTC), in µs.
pub const MIN_TIMESTAMP_MICROS: i64 = -62_135_596_800_000_000;
/// Latest TIMESTAMP GoogleSQL allows (9999-12-31 23:59:59.999999 UTC).
pub const MAX_TIMESTAMP_MICROS: i64 = 253_402_300_799_999_999;

/// A GoogleSQL type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SqlType {
    /// `BOOL`.
    Bool,
    /// `INT64`.
    Int64,
    /// `FLOAT64`.
    Float64,
    /// `STRING` (UTF-8).
    String,
    /// `BYTES`.
    Bytes,
    /// `TIMESTAMP` (microsecond precision, UTC).
    Timestamp,
    /// `ARRAY<T>`.
    Array(Box<SqlType>),
    /// `STRUCT<name T, ...>`.
    Struct(Vec<(String, SqlType)>),
    /// `MAP<K, V>`: how a column family appears (qualifier to value).
    Map(Box<SqlType>, Box<SqlType>),
}

impl SqlType {
    /// `MAP<BYTES, BYTES>`, a column family's latest values.
    #[must_use]
    pub fn family() -> SqlType {
        SqlType::Map(Box::new(SqlType::Bytes), Box::new(SqlType::Bytes))
    }

    /// `ARRAY<STRUCT<timestamp TIMESTAMP, value V>>`, one column's history.
    #[must_use]
    pub fn history(value: SqlType) -> SqlType {
        SqlType::Array(Box::new(SqlType::Struct(vec![
            ("timestamp".to_string(), SqlType::Timestamp),
            ("value".to_string(), value),
        ])))
    }

    /// Whether values of the type can be compared with `<`.
    #[must_use]
    pub fn is_orderable(&self) -> bool {
        matches!(
            self,
            SqlType::Bool
                | SqlType::Int64
                | SqlType::Float64
                | SqlType::String
                | SqlType::Bytes
                | SqlType::Timestamp
        )
    }

    /// Whether the type is INT64 or FLOAT64.
    #[must_use]
    pub fn is_numeric(&self) -> bool {
        matches!(self, SqlType::Int64 | SqlType::Float64)
    }
}

impl fmt::Display for SqlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SqlType::Bool => f.write_str("BOOL"),
            SqlType::Int64 => f.write_str("INT64"),
            SqlType::Float64 => f.write_str("FLOAT64"),
            SqlType::String => f.write_str("STRING"),
            SqlType::Bytes => f.write_str("BYTES"),
            SqlType::Timestamp => f.write_str("TIMESTAMP"),
            SqlType::Array(t) => write!(f, "ARRAY<{t}>"),
            SqlType::Map(k, v) => write!(f, "MAP<{k}, {v}>"),
            SqlType::Struct(fields) => {
                f.write_str("STRUCT<")?;
                for (i, (n, t)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{n} {t}")?;
                }
                f.write_str(">")
            }
        }
    }
}

/// A GoogleSQL value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `NULL` (of whatever type the column has).
    Null,
    /// A `BOOL`.
    Bool(bool),
    /// An `INT64`.
    Int64(i64),
    /// A `FLOAT64`.
    Float64(f64),
    /// A `STRING`.
    String(String),
    /// A `BYTES` value.
    Bytes(Vec<u8>),
    /// A `TIMESTAMP`, in microseconds since the Unix epoch.
    Timestamp(i64),
    /// An `ARRAY`.
    Array(Vec<Value>),
    /// A `STRUCT`: field names and values.
    Struct(Vec<(String, Value)>),
    /// A `MAP`: entries sorted by key, keys unique.
    Map(Vec<(Value, Value)>),
}

impl Value {
    /// Whether the value is `NULL`.
    #[must_use]
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// GoogleSQL comparison: `None` when either side is NULL (or a NaN is
    /// compared), or the values cannot be ordered.
    #[must_use]
    pub fn sql_cmp(&self, other: &Value) -> Option<Ordering> {
        match (self, other) {
            (Value::Null, _) | (_, Value::Null) => None,
            (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
            (Value::Int64(a), Value::Int64(b)) => Some(a.cmp(b)),
            (Value::Float64(a), Value::Float64(b)) => a.partial_cmp(b),
            (Value::Int64(a), Value::Float64(b)) => (*a as f64).partial_cmp(b),
            (Value::Float64(a), Value::Int64(b)) => a.partial_cmp(&(*b as f64)),
            (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
            (Value::Bytes(a), Value::Bytes(b)) => Some(a.cmp(b)),
            (Value::Timestamp(a), Value::Timestamp(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }

    /// GoogleSQL equality: `None` when either side is NULL. Arrays and
    /// structs compare element by element.
    #[must_use]
    pub fn sql_eq(&self, other: &Value) -> Option<bool> {
        match (self, other) {
            (Value::Null, _) | (_, Value::Null) => None,
            (Value::Array(a), Value::Array(b)) => {
                if a.len() != b.len() {
                    return Some(false);
                }
                let mut unknown = false;
                for (x, y) in a.iter().zip(b) {
                    match x.sql_eq(y) {
                        Some(false) => return Some(false),
                        None => unknown = true,
                        Some(true) => {}
                    }
                }
                if unknown { None } else { Some(true) }
            }
            (Value::Struct(a), Value::Struct(b)) => {
                Value::Array(a.iter().map(|x| x.1.clone()).collect())
                    .sql_eq(&Value::Array(b.iter().map(|x| x.1.clone()).collect()))
            }
            _ => self.sql_cmp(other).map(|o| o == Ordering::Equal),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int64(_) | Value::Float64(_) => 2,
            Value::String(_) => 3,
            Value::Bytes(_) => 4,
            Value::Timestamp(_) => 5,
            Value::Array(_) => 6,
            Value::Struct(_) => 7,
            Value::Map(_) => 8,
        }
    }

    /// A total order for sorting and grouping, as GoogleSQL's ORDER BY:
    /// NULL first, NaN before other numbers, then by value.
    #[must_use]
    pub fn total_cmp(&self, other: &Value) -> Ordering {
        let r = self.rank().cmp(&other.rank());
        if r != Ordering::Equal {
            return r;
        }
        match (self, other) {
            (Value::Float64(a), Value::Float64(b)) => float_total(*a, *b),
            (Value::Int64(a), Value::Float64(b)) => float_total(*a as f64, *b).then(Ordering::Less),
            (Value::Float64(a), Value::Int64(b)) => {
                float_total(*a, *b as f64).then(Ordering::Greater)
            }
            (Value::Array(a), Value::Array(b)) => cmp_seq(a.iter(), b.iter()),
            (Value::Struct(a), Value::Struct(b)) => {
                cmp_seq(a.iter().map(|x| &x.1), b.iter().map(|x| &x.1))
            }
            (Value::Map(a), Value::Map(b)) => {
                for ((ka, va), (kb, vb)) in a.iter().zip(b) {
                    let o = ka.total_cmp(kb).then_with(|| va.total_cmp(vb));
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => self.sql_cmp(other).unwrap_or(Ordering::Equal),
        }
    }

    /// The value as a console shows it: strings and bytes as text (bytes
    /// escaped), timestamps in GoogleSQL's canonical form, NULL as `NULL`.
    #[must_use]
    pub fn display(&self) -> String {
        let mut s = String::new();
        self.write_display(&mut s, false);
        s
    }

    fn write_display(&self, out: &mut String, nested: bool) {
        match self {
            Value::Null => out.push_str("NULL"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int64(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Float64(f) => out.push_str(&format_float(*f)),
            Value::String(s) if nested => {
                let _ = write!(out, "{s:?}");
            }
            Value::String(s) => out.push_str(s),
            Value::Bytes(b) if nested => {
                let _ = write!(out, "b\"{}\"", escape_bytes(b));
            }
            Value::Bytes(b) => out.push_str(&escape_bytes(b)),
            Value::Timestamp(t) => out.push_str(&format_timestamp(*t)),
            Value::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_display(out, true);
                }
                out.push(']');
            }
            Value::Struct(fields) => {
                out.push('{');
                for (i, (n, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(n);
                    out.push_str(": ");
                    v.write_display(out, true);
                }
                out.push('}');
            }
            Value::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_display(out, true);
                    out.push_str(": ");
                    v.write_display(out, true);
                }
                out.push('}');
            }
        }
    }

    /// The value in JSON, the way Google's REST APIs write query results:
    /// INT64 as a string, BYTES in base64, TIMESTAMP in RFC 3339, a MAP as
    /// a list of `{"key", "value"}` objects, a STRUCT as an object.
    #[must_use]
    pub fn to_json(&self) -> Json {
        match self {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int64(i) => Json::String(i.to_string()),
            Value::Float64(f) => match serde_json::Number::from_f64(*f) {
                Some(n) => Json::Number(n),
                None => Json::String(format_float(*f)),
            },
            Value::String(s) => Json::String(s.clone()),
            Value::Bytes(b) => Json::String(encode_base64(b)),
            Value::Timestamp(t) => Json::String(rfc3339(*t)),
            Value::Array(items) => Json::Array(items.iter().map(Value::to_json).collect()),
            Value::Struct(fields) => Json::Object(
                fields
                    .iter()
                    .map(|(n, v)| (n.clone(), v.to_json()))
                    .collect(),
            ),
            Value::Map(entries) => Json::Array(
                entries
                    .iter()
                    .map(|(k, v)| {
                        let mut m = serde_json::Map::new();
                        m.insert("key".into(), k.to_json());
                        m.insert("value".into(), v.to_json());
                        Json::Object(m)
                    })
                    .collect(),
            ),
        }
    }
}

fn float_total(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// RFC 3339 in UTC with microseconds when they are not zero.
pub(crate) fn rfc3339(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let sub = micros.rem_euclid(1_000_000);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let tod = secs.rem_euclid(86_400);
    let (h, mi, s) = (tod / 3600, tod % 3600 / 60, tod % 60);
    if sub == 0 {
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
    } else {
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{sub:06}Z")
    }
}

fn cmp_seq<'a>(
    mut a: impl Iterator<Item = &'a Value>,
    mut b: impl Iterator<Item = &'a Value>,
) -> Ordering {
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let o = x.total_cmp(y);
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

/// A wrapper that orders values by [`Value::total_cmp`], for maps and
/// sorting.
#[derive(Clone, Debug)]
pub(crate) struct Ordered(pub(crate) Value);

impl PartialEq for Ordered {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0) == Ordering::Equal
    }
}
impl Eq for Ordered {}
impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// GoogleSQL's text for a FLOAT64 (`inf`, `-inf`, `nan`, else the shortest
/// round-tripping decimal).
#[must_use]
pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        let s = format!("{f}");
        s
    }
}

/// GoogleSQL's canonical text of a TIMESTAMP: `2020-05-01 13:45:00+00`,
/// with fractional seconds when they are not zero.
#[must_use]
pub fn format_timestamp(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let sub = micros.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s) = (tod / 3600, tod % 3600 / 60, tod % 60);
    let mut out = format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02}");
    if sub != 0 {
        let frac = format!("{sub:06}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push_str("+00");
    out
}

/// Reads a TIMESTAMP from GoogleSQL's text forms: `2020-05-01`,
/// `2020-05-01 13:45:00`, with `T` instead of the space, fractional
/// seconds up to microseconds, and a zone `Z`, `UTC`, `+hh[:mm]` or
/// `-hh[:mm]` (UTC when absent).
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let t = text.trim();
    let b = t.as_bytes();
    let num = |s: &str| -> Option<i64> {
        (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    // Date part.
    let date_end = b
        .iter()
        .position(|&c| c == b' ' || c == b'T' || c == b't')
        .unwrap_or(b.len());
    let date = t.get(..date_end)?;
    let mut parts = date.splitn(3, '-');
    let y = num(parts.next()?)?;
    let mo = num(parts.next()?)?;
    let d = num(parts.next()?)?;
    if !(1..=9999).contains(&y) || !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let (mo, d) = (u32::try_from(mo).ok()?, u32::try_from(d).ok()?);
    let days = days_from_civil(y, mo, d);
    // The day must exist (no February 30th).
    if civil_from_days(days) != (y, mo, d) {
        return None;
    }
    let mut rest = t.get(date_end..)?.trim_start_matches([' ', 'T', 't']);
    let mut micros_of_day: i64 = 0;
    if !rest.is_empty() && rest.as_bytes()[0].is_ascii_digit() {
        let time_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
            .unwrap_or(rest.len());
        let time = &rest[..time_end];
        rest = &rest[time_end..];
        let (hms, frac) = match time.split_once('.') {
            Some((a, f)) => (a, Some(f)),
            None => (time, None),
        };
        let mut hp = hms.split(':');
        let h = num(hp.next()?)?;
        let mi = num(hp.next()?)?;
        let s = match hp.next() {
            Some(s) => num(s)?,
            None => 0,
        };
        if hp.next().is_some() || h > 23 || mi > 59 || s > 59 {
            return None;
        }
        let mut us = 0;
        if let Some(f) = frac {
            if f.is_empty() || f.len() > 6 || !f.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            us = num(&format!("{f:0<6}"))?;
        }
        micros_of_day = ((h * 60 + mi) * 60 + s) * 1_000_000 + us;
    }
    let rest = rest.trim();
    let offset_secs: i64 =
        if rest.is_empty() || rest.eq_ignore_ascii_case("z") || rest.eq_ignore_ascii_case("utc") {
            0
        } else {
            let (sign, body) = match rest.as_bytes()[0] {
                b'+' => (1, &rest[1..]),
                b'-' => (-1, &rest[1..]),
                _ => return None,
            };
            let (hh, mm) = match body.split_once(':') {
                Some((h, m)) => (num(h)?, num(m)?),
                None if body.len() <= 2 => (num(body)?, 0),
                None if body.len() == 4 => (num(body.get(..2)?)?, num(body.get(2..)?)?),
                None => return None,
            };
            if hh > 14 || mm > 59 {
                return None;
            }
            sign * (hh * 3600 + mm * 60)
        };
    let micros = days
        .checked_mul(86_400_000_000)?
        .checked_add(micros_of_day)?
        .checked_sub(offset_secs * 1_000_000)?;
    (MIN_TIMESTAMP_MICROS..=MAX_TIMESTAMP_MICROS)
        .contains(&micros)
        .then_some(micros)
}

// ------------------------------------------------------------ view cells

/// The bytes a view stores for a value.
pub(crate) fn encode_view_value(v: &Value) -> Option<Vec<u8>> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => vec![u8::from(*b)],
        Value::Int64(i) => i.to_be_bytes().to_vec(),
        Value::Float64(f) => f.to_bits().to_be_bytes().to_vec(),
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Bytes(b) => b.clone(),
        Value::Timestamp(t) => t.to_be_bytes().to_vec(),
        Value::Array(_) | Value::Struct(_) | Value::Map(_) => return None,
    })
}

/// Reads a value a view stored (NULL when the bytes do not fit the type).
pub(crate) fn decode_view_value(b: &[u8], ty: &SqlType) -> Value {
    let eight = <[u8; 8]>::try_from(b).ok();
    match ty {
        SqlType::Bool => match b {
            [x] => Value::Bool(*x != 0),
            _ => Value::Null,
        },
        SqlType::Int64 => eight.map_or(Value::Null, |a| Value::Int64(i64::from_be_bytes(a))),
        SqlType::Float64 => eight.map_or(Value::Null, |a| {
            Value::Float64(f64::from_bits(u64::from_be_bytes(a)))
        }),
        SqlType::Timestamp => {
            eight.map_or(Value::Null, |a| Value::Timestamp(i64::from_be_bytes(a)))
        }
        SqlType::String => String::from_utf8(b.to_vec()).map_or(Value::Null, Value::String),
        _ => Value::Bytes(b.to_vec()),
    }
}

pub(crate) fn key_value_of(v: &Value) -> Option<crate::key_schema::KeyValue> {
    match v {
        Value::String(s) => Some(crate::key_schema::KeyValue::String(s.clone())),
        Value::Bytes(b) => Some(crate::key_schema::KeyValue::Bytes(b.clone())),
        Value::Int64(i) => Some(crate::key_schema::KeyValue::Int64(*i)),
        Value::Timestamp(t) => Some(crate::key_schema::KeyValue::Timestamp(*t)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn timestamps_round_trip() {
        let t = parse_timestamp("2020-05-01 13:45:00.5+02:00").unwrap();
        assert_eq!(format_timestamp(t), "2020-05-01 11:45:00.5+00");
        assert_eq!(parse_timestamp("1970-01-01"), Some(0));
        assert_eq!(parse_timestamp("1970-01-01T00:00:01Z"), Some(1_000_000));
        assert_eq!(parse_timestamp("2020-02-30"), None);
        assert_eq!(parse_timestamp("nope"), None);
        assert_eq!(parse_timestamp("2020-01-01 25:00:00"), None);
    }

    #[test]
    fn comparisons_are_three_valued_and_sorting_total() {
        assert_eq!(Value::Null.sql_eq(&Value::Int64(1)), None);
        assert_eq!(
            Value::Bytes(b"a".to_vec()).sql_cmp(&Value::Bytes(b"b".to_vec())),
            Some(Ordering::Less)
        );
        assert_eq!(Value::Null.total_cmp(&Value::Int64(1)), Ordering::Less);
        assert_eq!(
            Value::Float64(f64::NAN).total_cmp(&Value::Float64(1.0)),
            Ordering::Less
        );
        assert_eq!(
            SqlType::history(SqlType::Bytes).to_string(),
            "ARRAY<STRUCT<timestamp TIMESTAMP, value BYTES>>"
        );
    }
}
