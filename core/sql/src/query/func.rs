//! The scalar functions the playground's SQL knows: their signatures
//! (checked when a query is planned, with GoogleSQL's "No matching
//! signature" wording) and their evaluation (GoogleSQL semantics: NULL in,
//! NULL out, unless the function says otherwise).

use super::SqlError;
use super::lex::Pos;
use super::value::{SqlType, Value, format_float, format_timestamp, parse_timestamp};
use tabletop_store::Error;

/// A scalar function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    StartsWith,
    EndsWith,
    Concat,
    Length,
    ByteLength,
    CharLength,
    Lower,
    Upper,
    Substr,
    Replace,
    Reverse,
    Split,
    SafeConvertBytesToString,
    ToInt64,
    ToFloat64,
    ToFloat32,
    ToBase64,
    FromBase64,
    ToHex,
    FromHex,
    MapKeys,
    MapValues,
    MapContainsKey,
    MapEmpty,
    ArrayLength,
    Coalesce,
    IfNull,
    NullIf,
    If,
    Abs,
    Mod,
    Greatest,
    Least,
    CurrentTimestamp,
    Timestamp,
    TimestampMicros,
    TimestampMillis,
    TimestampSeconds,
    UnixMicros,
    UnixMillis,
    UnixSeconds,
}

const NAMES: &[(&str, Func)] = &[
    ("STARTS_WITH", Func::StartsWith),
    ("ENDS_WITH", Func::EndsWith),
    ("CONCAT", Func::Concat),
    ("LENGTH", Func::Length),
    ("BYTE_LENGTH", Func::ByteLength),
    ("CHAR_LENGTH", Func::CharLength),
    ("CHARACTER_LENGTH", Func::CharLength),
    ("LOWER", Func::Lower),
    ("UPPER", Func::Upper),
    ("SUBSTR", Func::Substr),
    ("SUBSTRING", Func::Substr),
    ("REPLACE", Func::Replace),
    ("REVERSE", Func::Reverse),
    ("SPLIT", Func::Split),
    (
        "SAFE_CONVERT_BYTES_TO_STRING",
        Func::SafeConvertBytesToString,
    ),
    ("TO_INT64", Func::ToInt64),
    ("TO_FLOAT64", Func::ToFloat64),
    ("TO_FLOAT32", Func::ToFloat32),
    ("TO_BASE64", Func::ToBase64),
    ("FROM_BASE64", Func::FromBase64),
    ("TO_HEX", Func::ToHex),
    ("FROM_HEX", Func::FromHex),
    ("MAP_KEYS", Func::MapKeys),
    ("MAP_VALUES", Func::MapValues),
    ("MAP_CONTAINS_KEY", Func::MapContainsKey),
    ("MAP_EMPTY", Func::MapEmpty),
    ("ARRAY_LENGTH", Func::ArrayLength),
    ("COALESCE", Func::Coalesce),
    ("IFNULL", Func::IfNull),
    ("NULLIF", Func::NullIf),
    ("IF", Func::If),
    ("ABS", Func::Abs),
    ("MOD", Func::Mod),
    ("GREATEST", Func::Greatest),
    ("LEAST", Func::Least),
    ("CURRENT_TIMESTAMP", Func::CurrentTimestamp),
    ("TIMESTAMP", Func::Timestamp),
    ("TIMESTAMP_MICROS", Func::TimestampMicros),
    ("TIMESTAMP_MILLIS", Func::TimestampMillis),
    ("TIMESTAMP_SECONDS", Func::TimestampSeconds),
    ("UNIX_MICROS", Func::UnixMicros),
    ("UNIX_MILLIS", Func::UnixMillis),
    ("UNIX_SECONDS", Func::UnixSeconds),
];

/// Aggregate functions (allowed only in materialized view definitions).
pub(crate) const AGGREGATES: &[&str] = &["COUNT", "SUM", "MIN", "MAX", "AVG", "ANY_VALUE"];

impl Func {
    pub(crate) fn by_name(name: &str) -> Option<Func> {
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)
    }

    pub(crate) fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("?", |(n, _)| n)
    }

    /// Functions whose result is not NULL just because an argument is.
    pub(crate) fn handles_null(self) -> bool {
        matches!(
            self,
            Func::Coalesce | Func::IfNull | Func::NullIf | Func::If | Func::Concat
        )
    }
}

fn no_signature(f: Func, args: &[SqlType], pos: Pos) -> Error {
    let list: Vec<String> = args.iter().map(ToString::to_string).collect();
    SqlError::analysis(
        format!(
            "No matching signature for function {} for argument types: {}",
            f.name(),
            if list.is_empty() {
                "(none)".to_string()
            } else {
                list.join(", ")
            }
        ),
        pos,
    )
}

/// The result type of `f` applied to arguments of `args` types, where
/// `lits[i]` says the argument is a literal that may still be coerced
/// (STRING to BYTES, INT64 to FLOAT64, NULL to anything). Returns the
/// result type and the type each argument must be coerced to.
pub(crate) fn signature(
    f: Func,
    args: &[SqlType],
    lits: &[bool],
    pos: Pos,
) -> Result<(SqlType, Vec<SqlType>), Error> {
    use SqlType as T;
    let bad = || no_signature(f, args, pos);
    let n = args.len();
    let arity = |lo: usize, hi: usize| if n < lo || n > hi { Err(bad()) } else { Ok(()) };
    // The common text type of arguments: STRING or BYTES, a literal
    // STRING following a BYTES argument.
    let text_type = |idx: &[usize]| -> Result<T, Error> {
        let has = |t: &T, lit: bool| idx.iter().any(|&i| args[i] == *t && lits[i] == lit);
        let target = if has(&T::Bytes, false) {
            T::Bytes
        } else if has(&T::String, false) {
            T::String
        } else if has(&T::Bytes, true) {
            T::Bytes
        } else {
            T::String
        };
        for &i in idx {
            let ok = args[i] == target || (lits[i] && args[i] == T::String && target == T::Bytes);
            if !ok {
                return Err(bad());
            }
        }
        Ok(target)
    };
    match f {
        Func::StartsWith | Func::EndsWith => {
            arity(2, 2)?;
            let t = text_type(&[0, 1])?;
            Ok((T::Bool, vec![t.clone(), t]))
        }
        Func::Concat => {
            if n == 0 {
                return Err(bad());
            }
            let idx: Vec<usize> = (0..n).collect();
            let t = text_type(&idx)?;
            Ok((t.clone(), vec![t; n]))
        }
        Func::Length | Func::ByteLength => {
            arity(1, 1)?;
            let t = text_type(&[0])?;
            Ok((T::Int64, vec![t]))
        }
        Func::CharLength => {
            arity(1, 1)?;
            if args[0] != T::String {
                return Err(bad());
            }
            Ok((T::Int64, vec![T::String]))
        }
        Func::Lower | Func::Upper | Func::Reverse => {
            arity(1, 1)?;
            let t = text_type(&[0])?;
            Ok((t.clone(), vec![t]))
        }
        Func::Substr => {
            arity(2, 3)?;
            let t = text_type(&[0])?;
            if args[1..].iter().any(|a| *a != T::Int64) {
                return Err(bad());
            }
            let mut want = vec![t.clone()];
            want.extend(args[1..].iter().cloned());
            Ok((t, want))
        }
        Func::Replace => {
            arity(3, 3)?;
            let t = text_type(&[0, 1, 2])?;
            Ok((t.clone(), vec![t; 3]))
        }
        Func::Split => {
            arity(1, 2)?;
            let idx: Vec<usize> = (0..n).collect();
            let t = text_type(&idx)?;
            Ok((T::Array(Box::new(t.clone())), vec![t; n]))
        }
        Func::SafeConvertBytesToString => {
            arity(1, 1)?;
            if args[0] != T::Bytes {
                return Err(bad());
            }
            Ok((T::String, vec![T::Bytes]))
        }
        Func::ToInt64 => {
            arity(1, 1)?;
            match args[0] {
                T::Bytes | T::Int64 => Ok((T::Int64, vec![args[0].clone()])),
                _ => Err(bad()),
            }
        }
        Func::ToFloat64 | Func::ToFloat32 => {
            arity(1, 1)?;
            match args[0] {
                T::Bytes | T::Float64 => Ok((T::Float64, vec![args[0].clone()])),
                _ => Err(bad()),
            }
        }
        Func::ToBase64 | Func::ToHex => {
            arity(1, 1)?;
            if args[0] != T::Bytes {
                return Err(bad());
            }
            Ok((T::String, vec![T::Bytes]))
        }
        Func::FromBase64 | Func::FromHex => {
            arity(1, 1)?;
            if args[0] != T::String {
                return Err(bad());
            }
            Ok((T::Bytes, vec![T::String]))
        }
        Func::MapKeys | Func::MapValues | Func::MapEmpty => {
            arity(1, 1)?;
            let T::Map(k, v) = &args[0] else {
                return Err(bad());
            };
            let out = match f {
                Func::MapKeys => T::Array(k.clone()),
                Func::MapValues => T::Array(v.clone()),
                _ => T::Bool,
            };
            Ok((out, vec![args[0].clone()]))
        }
        Func::MapContainsKey => {
            arity(2, 2)?;
            let T::Map(k, _) = &args[0] else {
                return Err(bad());
            };
            let key_ok = args[1] == **k || (lits[1] && args[1] == T::String && **k == T::Bytes);
            if !key_ok {
                return Err(bad());
            }
            Ok((T::Bool, vec![args[0].clone(), (**k).clone()]))
        }
        Func::ArrayLength => {
            arity(1, 1)?;
            if !matches!(args[0], T::Array(_)) {
                return Err(bad());
            }
            Ok((T::Int64, vec![args[0].clone()]))
        }
        Func::Coalesce | Func::Greatest | Func::Least => {
            if n == 0 {
                return Err(bad());
            }
            let t = common_type(args, lits).ok_or_else(bad)?;
            if matches!(f, Func::Greatest | Func::Least) && !t.is_orderable() {
                return Err(bad());
            }
            Ok((t.clone(), vec![t; n]))
        }
        Func::IfNull | Func::NullIf => {
            arity(2, 2)?;
            let t = common_type(args, lits).ok_or_else(bad)?;
            Ok((t.clone(), vec![t.clone(), t]))
        }
        Func::If => {
            arity(3, 3)?;
            if args[0] != T::Bool {
                return Err(bad());
            }
            let t = common_type(&args[1..], &lits[1..]).ok_or_else(bad)?;
            Ok((t.clone(), vec![T::Bool, t.clone(), t]))
        }
        Func::Abs => {
            arity(1, 1)?;
            if !args[0].is_numeric() {
                return Err(bad());
            }
            Ok((args[0].clone(), vec![args[0].clone()]))
        }
        Func::Mod => {
            arity(2, 2)?;
            if args.iter().any(|a| *a != T::Int64) {
                return Err(bad());
            }
            Ok((T::Int64, vec![T::Int64, T::Int64]))
        }
        Func::CurrentTimestamp => {
            arity(0, 0)?;
            Ok((T::Timestamp, vec![]))
        }
        Func::Timestamp => {
            arity(1, 1)?;
            match args[0] {
                T::String | T::Timestamp => Ok((T::Timestamp, vec![args[0].clone()])),
                _ => Err(bad()),
            }
        }
        Func::TimestampMicros | Func::TimestampMillis | Func::TimestampSeconds => {
            arity(1, 1)?;
            if args[0] != T::Int64 {
                return Err(bad());
            }
            Ok((T::Timestamp, vec![T::Int64]))
        }
        Func::UnixMicros | Func::UnixMillis | Func::UnixSeconds => {
            arity(1, 1)?;
            if args[0] != T::Timestamp {
                return Err(bad());
            }
            Ok((T::Int64, vec![T::Timestamp]))
        }
    }
}

/// The type values of these types share (literals coerce; INT64 widens to
/// FLOAT64), if any.
pub(crate) fn common_type(args: &[SqlType], lits: &[bool]) -> Option<SqlType> {
    let mut t: Option<SqlType> = None;
    // Non-literals decide first.
    for (a, &lit) in args.iter().zip(lits) {
        if lit {
            continue;
        }
        t = match t {
            None => Some(a.clone()),
            Some(x) if x == *a => Some(x),
            Some(x) if x.is_numeric() && a.is_numeric() => Some(SqlType::Float64),
            Some(_) => return None,
        };
    }
    for (a, &lit) in args.iter().zip(lits) {
        if !lit {
            continue;
        }
        t = match t {
            None => Some(a.clone()),
            Some(x) if x == *a => Some(x),
            Some(x) if x.is_numeric() && a.is_numeric() => Some(SqlType::Float64),
            Some(SqlType::Bytes) if *a == SqlType::String => Some(SqlType::Bytes),
            Some(_) => return None,
        };
    }
    t
}

fn runtime(msg: impl Into<String>) -> Error {
    SqlError::runtime(msg)
}

fn micros_ok(v: i64) -> Result<Value, Error> {
    if (super::value::MIN_TIMESTAMP_MICROS..=super::value::MAX_TIMESTAMP_MICROS).contains(&v) {
        Ok(Value::Timestamp(v))
    } else {
        Err(runtime(format!("Timestamp value is out of range: {v}")))
    }
}

fn text_bytes(v: &Value) -> &[u8] {
    match v {
        Value::String(s) => s.as_bytes(),
        Value::Bytes(b) => b,
        _ => &[],
    }
}

fn same_kind(like: &Value, bytes: Vec<u8>) -> Value {
    match like {
        Value::String(_) => Value::String(String::from_utf8_lossy(&bytes).into_owned()),
        _ => Value::Bytes(bytes),
    }
}

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// The longest STRING or BYTES value an expression may make (16 MiB): a
/// few nested REPLACE or CONCAT calls in a short query could otherwise ask
/// for gigabytes and abort the process.
pub(crate) const MAX_VALUE_BYTES: usize = 16 << 20;

/// The error for a value over [`MAX_VALUE_BYTES`].
fn too_long(f: Func, bytes: usize) -> Error {
    Error::new(
        tabletop_store::Code::ResourceExhausted,
        format!(
            "{f:?}() would make a value of {bytes} bytes; a value may have at most {MAX_VALUE_BYTES} bytes (16 MiB)"
        ),
    )
}

/// Refuses, before it is built, a result longer than [`MAX_VALUE_BYTES`].
fn fits(f: Func, bytes: usize) -> Result<(), Error> {
    if bytes > MAX_VALUE_BYTES {
        Err(too_long(f, bytes))
    } else {
        Ok(())
    }
}

/// How many times `from` (not empty) occurs in `s`, without overlaps.
fn occurrences(s: &[u8], from: &[u8]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i + from.len() <= s.len() {
        if s[i..].starts_with(from) {
            n += 1;
            i += from.len();
        } else {
            i += 1;
        }
    }
    n
}

/// Evaluates `f` on already evaluated arguments; no STRING or BYTES result
/// is longer than [`MAX_VALUE_BYTES`].
pub(crate) fn call(f: Func, args: Vec<Value>, now_micros: i64) -> Result<Value, Error> {
    let value = call_unchecked(f, args, now_micros)?;
    // Functions that grow their input by a bounded factor (TO_HEX doubles
    // it) are caught here, one step past the limit at most.
    match &value {
        Value::String(s) => fits(f, s.len())?,
        Value::Bytes(b) => fits(f, b.len())?,
        _ => {}
    }
    Ok(value)
}

fn call_unchecked(f: Func, args: Vec<Value>, now_micros: i64) -> Result<Value, Error> {
    if !f.handles_null() && args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let a = |i: usize| args.get(i).unwrap_or(&Value::Null);
    let int = |i: usize| match a(i) {
        Value::Int64(v) => *v,
        _ => 0,
    };
    Ok(match f {
        Func::StartsWith => Value::Bool(text_bytes(a(0)).starts_with(text_bytes(a(1)))),
        Func::EndsWith => Value::Bool(text_bytes(a(0)).ends_with(text_bytes(a(1)))),
        Func::Concat => {
            if args.iter().any(Value::is_null) {
                return Ok(Value::Null);
            }
            let total = args.iter().map(|v| text_bytes(v).len()).sum();
            fits(f, total)?;
            let mut out = Vec::with_capacity(total);
            for v in &args {
                out.extend_from_slice(text_bytes(v));
            }
            same_kind(a(0), out)
        }
        Func::Length => match a(0) {
            Value::String(s) => Value::Int64(s.chars().count() as i64),
            other => Value::Int64(text_bytes(other).len() as i64),
        },
        Func::ByteLength => Value::Int64(text_bytes(a(0)).len() as i64),
        Func::CharLength => match a(0) {
            Value::String(s) => Value::Int64(s.chars().count() as i64),
            _ => Value::Null,
        },
        Func::Lower => match a(0) {
            Value::String(s) => Value::String(s.to_lowercase()),
            other => Value::Bytes(text_bytes(other).to_ascii_lowercase()),
        },
        Func::Upper => match a(0) {
            Value::String(s) => Value::String(s.to_uppercase()),
            other => Value::Bytes(text_bytes(other).to_ascii_uppercase()),
        },
        Func::Reverse => match a(0) {
            Value::String(s) => Value::String(s.chars().rev().collect()),
            other => Value::Bytes(text_bytes(other).iter().rev().copied().collect()),
        },
        Func::Substr => {
            let len_arg = if args.len() > 2 { Some(int(2)) } else { None };
            if len_arg.is_some_and(|l| l < 0) {
                return Err(runtime("Third argument in SUBSTR() cannot be negative"));
            }
            match a(0) {
                Value::String(s) => {
                    let chars: Vec<char> = s.chars().collect();
                    let (from, to) = substr_range(chars.len(), int(1), len_arg);
                    Value::String(chars[from..to].iter().collect())
                }
                other => {
                    let b = text_bytes(other);
                    let (from, to) = substr_range(b.len(), int(1), len_arg);
                    Value::Bytes(b[from..to].to_vec())
                }
            }
        }
        Func::Replace => {
            let (s, from, to) = (text_bytes(a(0)), text_bytes(a(1)), text_bytes(a(2)));
            if from.is_empty() {
                return Ok(a(0).clone());
            }
            let n = occurrences(s, from);
            let len = (s.len() - n * from.len()).saturating_add(n.saturating_mul(to.len()));
            fits(f, len)?;
            let mut out = Vec::with_capacity(len);
            let mut i = 0;
            while i < s.len() {
                if s[i..].starts_with(from) {
                    out.extend_from_slice(to);
                    i += from.len();
                } else {
                    out.push(s[i]);
                    i += 1;
                }
            }
            same_kind(a(0), out)
        }
        Func::Split => {
            let s = text_bytes(a(0));
            let delim: Vec<u8> = if args.len() > 1 {
                text_bytes(a(1)).to_vec()
            } else {
                b",".to_vec()
            };
            let parts: Vec<Vec<u8>> = if s.is_empty() {
                vec![Vec::new()]
            } else if delim.is_empty() {
                match a(0) {
                    Value::String(st) => st.chars().map(|c| c.to_string().into_bytes()).collect(),
                    _ => s.iter().map(|&b| vec![b]).collect(),
                }
            } else {
                let mut parts = Vec::new();
                let mut start = 0;
                let mut i = 0;
                while i + delim.len() <= s.len() {
                    if s[i..].starts_with(&delim) {
                        parts.push(s[start..i].to_vec());
                        i += delim.len();
                        start = i;
                    } else {
                        i += 1;
                    }
                }
                parts.push(s[start..].to_vec());
                parts
            };
            Value::Array(parts.into_iter().map(|p| same_kind(a(0), p)).collect())
        }
        Func::SafeConvertBytesToString => {
            Value::String(String::from_utf8_lossy(text_bytes(a(0))).into_owned())
        }
        Func::ToInt64 => match a(0) {
            Value::Int64(v) => Value::Int64(*v),
            other => {
                let b = text_bytes(other);
                let arr: [u8; 8] = b.try_into().map_err(|_| {
                    runtime(format!(
                        "TO_INT64 needs 8 bytes (a big-endian INT64, as increments and sum aggregates store), got {}",
                        b.len()
                    ))
                })?;
                Value::Int64(i64::from_be_bytes(arr))
            }
        },
        Func::ToFloat64 | Func::ToFloat32 => match a(0) {
            Value::Float64(v) => Value::Float64(*v),
            other => {
                let b = text_bytes(other);
                if f == Func::ToFloat32 {
                    let arr: [u8; 4] = b.try_into().map_err(|_| {
                        runtime(format!("TO_FLOAT32 needs 4 bytes, got {}", b.len()))
                    })?;
                    Value::Float64(f64::from(f32::from_be_bytes(arr)))
                } else {
                    let arr: [u8; 8] = b.try_into().map_err(|_| {
                        runtime(format!("TO_FLOAT64 needs 8 bytes, got {}", b.len()))
                    })?;
                    Value::Float64(f64::from_be_bytes(arr))
                }
            }
        },
        Func::ToBase64 => Value::String(tabletop_store::base64_text::encode(text_bytes(a(0)))),
        Func::FromBase64 => match a(0) {
            Value::String(s) => {
                Value::Bytes(tabletop_store::base64_text::decode(s).map_err(|_| {
                    runtime(format!("Failed to decode invalid base64 string \"{s}\""))
                })?)
            }
            _ => Value::Null,
        },
        Func::ToHex => Value::String(
            text_bytes(a(0))
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        ),
        Func::FromHex => {
            let s = text_bytes(a(0));
            let padded: Vec<u8> = if s.len() % 2 == 1 {
                std::iter::once(b'0').chain(s.iter().copied()).collect()
            } else {
                s.to_vec()
            };
            let mut out = Vec::with_capacity(padded.len() / 2);
            for pair in padded.chunks(2) {
                match (hex_digit(pair[0]), hex_digit(pair[1])) {
                    (Some(h), Some(l)) => out.push(h * 16 + l),
                    _ => {
                        return Err(runtime(format!(
                            "Failed to decode invalid hexadecimal string \"{}\"",
                            String::from_utf8_lossy(s)
                        )));
                    }
                }
            }
            Value::Bytes(out)
        }
        Func::MapKeys => match a(0) {
            Value::Map(m) => Value::Array(m.iter().map(|(k, _)| k.clone()).collect()),
            _ => Value::Null,
        },
        Func::MapValues => match a(0) {
            Value::Map(m) => Value::Array(m.iter().map(|(_, v)| v.clone()).collect()),
            _ => Value::Null,
        },
        Func::MapEmpty => match a(0) {
            Value::Map(m) => Value::Bool(m.is_empty()),
            _ => Value::Null,
        },
        Func::MapContainsKey => match a(0) {
            Value::Map(m) => Value::Bool(m.iter().any(|(k, _)| k.sql_eq(a(1)) == Some(true))),
            _ => Value::Null,
        },
        Func::ArrayLength => match a(0) {
            Value::Array(v) => Value::Int64(v.len() as i64),
            _ => Value::Null,
        },
        Func::Coalesce => args
            .iter()
            .find(|v| !v.is_null())
            .cloned()
            .unwrap_or(Value::Null),
        Func::IfNull => {
            if a(0).is_null() {
                a(1).clone()
            } else {
                a(0).clone()
            }
        }
        Func::NullIf => {
            if a(0).sql_eq(a(1)) == Some(true) {
                Value::Null
            } else {
                a(0).clone()
            }
        }
        Func::If => {
            if matches!(a(0), Value::Bool(true)) {
                a(1).clone()
            } else {
                a(2).clone()
            }
        }
        Func::Abs => match a(0) {
            Value::Int64(v) => Value::Int64(
                v.checked_abs()
                    .ok_or_else(|| runtime(format!("int64 overflow: ABS({v})")))?,
            ),
            Value::Float64(v) => Value::Float64(v.abs()),
            _ => Value::Null,
        },
        Func::Mod => {
            let (x, y) = (int(0), int(1));
            if y == 0 {
                return Err(runtime(format!("division by zero: MOD({x}, {y})")));
            }
            Value::Int64(x.checked_rem(y).unwrap_or(0))
        }
        Func::Greatest | Func::Least => {
            let mut best = a(0).clone();
            for v in &args[1..] {
                let better = match v.sql_cmp(&best) {
                    Some(o) => {
                        if f == Func::Greatest {
                            o.is_gt()
                        } else {
                            o.is_lt()
                        }
                    }
                    None => false,
                };
                if better {
                    best = v.clone();
                }
            }
            best
        }
        Func::CurrentTimestamp => Value::Timestamp(now_micros),
        Func::Timestamp => match a(0) {
            Value::String(s) => Value::Timestamp(
                parse_timestamp(s).ok_or_else(|| runtime(format!("Invalid timestamp: '{s}'")))?,
            ),
            other => other.clone(),
        },
        Func::TimestampMicros => micros_ok(int(0))?,
        Func::TimestampMillis => micros_ok(
            int(0)
                .checked_mul(1_000)
                .ok_or_else(|| runtime("Timestamp value is out of range"))?,
        )?,
        Func::TimestampSeconds => micros_ok(
            int(0)
                .checked_mul(1_000_000)
                .ok_or_else(|| runtime("Timestamp value is out of range"))?,
        )?,
        Func::UnixMicros | Func::UnixMillis | Func::UnixSeconds => match a(0) {
            Value::Timestamp(t) => Value::Int64(match f {
                Func::UnixMicros => *t,
                Func::UnixMillis => t.div_euclid(1_000),
                _ => t.div_euclid(1_000_000),
            }),
            _ => Value::Null,
        },
    })
}

/// GoogleSQL's SUBSTR positions: 1-based, negative from the end.
fn substr_range(len: usize, pos: i64, count: Option<i64>) -> (usize, usize) {
    let len_i = len as i64;
    let start = if pos > 0 {
        (pos - 1).min(len_i)
    } else if pos < 0 {
        (len_i + pos).max(0)
    } else {
        0
    };
    let end = match count {
        Some(c) => start.saturating_add(c).min(len_i),
        None => len_i,
    };
    (start as usize, end.max(start) as usize)
}

/// Whether a cast from `from` to `to` exists.
pub(crate) fn castable(from: &SqlType, to: &SqlType) -> bool {
    use SqlType as T;
    if from == to {
        return true;
    }
    match (from, to) {
        (T::Array(a), T::Array(b)) => castable(a, b),
        (T::Int64, T::String | T::Float64 | T::Bool)
        | (T::Float64, T::String | T::Int64)
        | (T::Bool, T::String | T::Int64)
        | (T::String, T::Int64 | T::Float64 | T::Bool | T::Bytes | T::Timestamp)
        | (T::Bytes, T::String)
        | (T::Timestamp, T::String) => true,
        _ => false,
    }
}

/// Casts a value (NULL stays NULL).
pub(crate) fn cast(v: Value, to: &SqlType) -> Result<Value, Error> {
    use SqlType as T;
    Ok(match (v, to) {
        (Value::Null, _) => Value::Null,
        (Value::Array(items), T::Array(inner)) => Value::Array(
            items
                .into_iter()
                .map(|x| cast(x, inner))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        (Value::Int64(i), T::Int64) => Value::Int64(i),
        (Value::Int64(i), T::String) => Value::String(i.to_string()),
        (Value::Int64(i), T::Float64) => Value::Float64(i as f64),
        (Value::Int64(i), T::Bool) => Value::Bool(i != 0),
        (Value::Float64(f), T::Float64) => Value::Float64(f),
        (Value::Float64(f), T::String) => Value::String(format_float(f)),
        (Value::Float64(f), T::Int64) => {
            let r = f.round();
            if !r.is_finite() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
                return Err(runtime(format!("int64 out of range: {}", format_float(f))));
            }
            Value::Int64(r as i64)
        }
        (Value::Bool(b), T::Bool) => Value::Bool(b),
        (Value::Bool(b), T::String) => Value::String(b.to_string()),
        (Value::Bool(b), T::Int64) => Value::Int64(i64::from(b)),
        (Value::String(s), T::String) => Value::String(s),
        (Value::String(s), T::Bytes) => Value::Bytes(s.into_bytes()),
        (Value::String(s), T::Int64) => Value::Int64(
            parse_int(s.trim()).ok_or_else(|| runtime(format!("Bad int64 value: {s}")))?,
        ),
        (Value::String(s), T::Float64) => {
            let t = s.trim().to_ascii_lowercase();
            let v = match t.as_str() {
                "inf" | "+inf" | "infinity" => f64::INFINITY,
                "-inf" | "-infinity" => f64::NEG_INFINITY,
                "nan" => f64::NAN,
                _ => t
                    .parse::<f64>()
                    .map_err(|_| runtime(format!("Bad double value: {s}")))?,
            };
            Value::Float64(v)
        }
        (Value::String(s), T::Bool) => match s.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(runtime(format!("Bad bool value: {s}"))),
        },
        (Value::String(s), T::Timestamp) => Value::Timestamp(
            parse_timestamp(&s).ok_or_else(|| runtime(format!("Invalid timestamp: '{s}'")))?,
        ),
        (Value::Bytes(b), T::Bytes) => Value::Bytes(b),
        (Value::Bytes(b), T::String) => Value::String(String::from_utf8(b).map_err(|_| {
            runtime("Invalid UTF-8 in CAST(BYTES AS STRING); SAFE_CONVERT_BYTES_TO_STRING replaces bad sequences instead")
        })?),
        (Value::Timestamp(t), T::Timestamp) => Value::Timestamp(t),
        (Value::Timestamp(t), T::String) => Value::String(format_timestamp(t)),
        (v, t) => {
            return Err(runtime(format!(
                "Invalid cast of {} to {t}",
                v.display()
            )));
        }
    })
}

/// Reads an INT64 the way GoogleSQL's CAST does: decimal or `0x` hex,
/// with an optional sign.
pub(crate) fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mag: u64 = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else {
        if body.is_empty() || !body.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        body.parse::<u64>().ok()?
    };
    if neg {
        if mag == 1u64 << 63 {
            Some(i64::MIN)
        } else {
            i64::try_from(mag).ok().map(|v| -v)
        }
    } else {
        i64::try_from(mag).ok()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn casts_follow_googlesql() {
        assert_eq!(
            cast(Value::String("0x10".into()), &SqlType::Int64).unwrap(),
            Value::Int64(16)
        );
        assert!(cast(Value::String("x".into()), &SqlType::Int64).is_err());
        assert!(cast(Value::Bytes(vec![0xff]), &SqlType::String).is_err());
        assert!(!castable(&SqlType::Bytes, &SqlType::Int64));
        assert_eq!(parse_int("-9223372036854775808"), Some(i64::MIN));
    }

    #[test]
    fn functions_evaluate() {
        let s = |x: &str| Value::String(x.into());
        assert_eq!(
            call(Func::Split, vec![s("a#b#c"), s("#")], 0).unwrap(),
            Value::Array(vec![s("a"), s("b"), s("c")])
        );
        assert_eq!(
            call(Func::Substr, vec![s("hello"), Value::Int64(-3)], 0).unwrap(),
            s("llo")
        );
        assert_eq!(
            call(
                Func::ToInt64,
                vec![Value::Bytes(42i64.to_be_bytes().to_vec())],
                0
            )
            .unwrap(),
            Value::Int64(42)
        );
        assert!(call(Func::ToInt64, vec![Value::Bytes(b"42".to_vec())], 0).is_err());
        assert_eq!(
            call(
                Func::SafeConvertBytesToString,
                vec![Value::Bytes(b"a\xffb".to_vec())],
                0
            )
            .unwrap(),
            s("a\u{fffd}b")
        );
        assert_eq!(
            call(Func::Length, vec![Value::Null], 0).unwrap(),
            Value::Null
        );
    }
}
