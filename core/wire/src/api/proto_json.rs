//! Reading and writing proto3 JSON by hand: field names in lowerCamelCase
//! (the original snake_case accepted too), `int64` as strings (numbers
//! accepted), `bytes` as base64, enums by name (numbers accepted),
//! `google.protobuf.Duration` as `"1.5s"`, `null` as "not set".
//!
//! Every value is read through an [`At`], which knows its path in the
//! request (`request.rows.rowRanges[0].startKeyClosed`), so every error
//! names the field it is about. Objects are read through [`Fields`], which
//! remembers which fields were read and rejects the rest: an unknown field
//! is an error, never silently ignored.
//!
//! On output, default values are omitted as proto3 JSON does, and
//! [`to_line`] writes object keys in sorted order whatever the map type,
//! so the same answer is always the same bytes.

use std::fmt::Write as _;
use std::time::Duration;

use serde_json::{Map, Value};

use tabletop_store::base64_text as base64;
use tabletop_store::{Code, Error, Result};

/// How deep recursive messages (filters, GC rules, types) may nest before a
/// request is refused; far above anything Bigtable accepts (filters nest at
/// most 20 deep) and far below what could exhaust the stack.
pub(crate) const MAX_DEPTH: usize = 64;

/// A JSON value and where it sits in the request.
#[derive(Clone, Debug)]
pub(crate) struct At<'a> {
    path: String,
    value: &'a Value,
}

/// The JSON type of a value, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<'a> At<'a> {
    /// The value at `path`.
    pub(crate) fn new(path: impl Into<String>, value: &'a Value) -> At<'a> {
        At {
            path: path.into(),
            value,
        }
    }

    /// Where the value sits.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// The raw JSON value.
    pub(crate) fn value(&self) -> &'a Value {
        self.value
    }

    /// `INVALID_ARGUMENT` about this value.
    pub(crate) fn invalid(&self, message: impl std::fmt::Display) -> Error {
        Error::invalid(format!("{}: {message}", self.path))
    }

    /// `UNIMPLEMENTED` about this value.
    pub(crate) fn unimplemented(&self, message: impl std::fmt::Display) -> Error {
        Error::unimplemented(format!("{}: {message}", self.path))
    }

    /// An error of the core put in the context of this value.
    pub(crate) fn context(&self, e: Error) -> Error {
        e.context(&self.path)
    }

    fn wrong_type(&self, want: &str) -> Error {
        self.invalid(format!("expected {want}, got {}", kind(self.value)))
    }

    /// Reads an object (a message) named `type_name` in messages.
    pub(crate) fn object(&self, type_name: &'static str) -> Result<Fields<'a>> {
        match self.value {
            Value::Object(map) => Ok(Fields {
                path: self.path.clone(),
                type_name,
                map,
                known: Vec::new(),
                used: Vec::new(),
            }),
            _ => Err(self.wrong_type(&format!("an object ({type_name})"))),
        }
    }

    /// Reads a repeated field; `null` is the empty list. Elements may not
    /// be `null`.
    pub(crate) fn array(&self) -> Result<Vec<At<'a>>> {
        match self.value {
            Value::Null => Ok(Vec::new()),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let at = At::new(format!("{}[{i}]", self.path), v);
                    if v.is_null() {
                        Err(at.invalid("a list element may not be null"))
                    } else {
                        Ok(at)
                    }
                })
                .collect(),
            _ => Err(self.wrong_type("an array")),
        }
    }

    /// Reads a string.
    pub(crate) fn string(&self) -> Result<&'a str> {
        match self.value {
            Value::String(s) => Ok(s),
            _ => Err(self.wrong_type("a string")),
        }
    }

    /// Reads a `bytes` field (base64).
    pub(crate) fn bytes(&self) -> Result<Vec<u8>> {
        match self.value {
            Value::String(s) => {
                base64::decode(s).map_err(|e| self.invalid(format!("invalid base64: {e}")))
            }
            _ => Err(self.wrong_type("a base64 string")),
        }
    }

    /// Reads a `bool`.
    pub(crate) fn bool(&self) -> Result<bool> {
        match self.value {
            Value::Bool(b) => Ok(*b),
            _ => Err(self.wrong_type("true or false")),
        }
    }

    /// Reads a bool field that, being a oneof member marking a choice
    /// (`{"sink": true}`), is only meaningful when `true`.
    pub(crate) fn true_flag(&self) -> Result<()> {
        if self.bool()? {
            Ok(())
        } else {
            Err(self.invalid("must be true when set (leave the field out instead)"))
        }
    }

    /// Reads an `int64`: a string of decimal digits or a JSON number with an
    /// integral value.
    pub(crate) fn int64(&self) -> Result<i64> {
        self.integer(i128::from(i64::MIN), i128::from(i64::MAX), "int64")
            .and_then(|n| i64::try_from(n).map_err(|_| self.invalid("out of range for int64")))
    }

    /// Reads an `int32` (number or string).
    pub(crate) fn int32(&self) -> Result<i32> {
        self.integer(i128::from(i32::MIN), i128::from(i32::MAX), "int32")
            .and_then(|n| i32::try_from(n).map_err(|_| self.invalid("out of range for int32")))
    }

    fn integer(&self, min: i128, max: i128, name: &str) -> Result<i128> {
        let n: Option<i128> = match self.value {
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Some(i128::from(i))
                } else if let Some(u) = n.as_u64() {
                    Some(i128::from(u))
                } else {
                    n.as_f64().and_then(integral)
                }
            }
            Value::String(s) => {
                let t = s.strip_prefix('+').unwrap_or(s);
                match t.parse::<i128>() {
                    Ok(i) if !t.is_empty() => Some(i),
                    _ => {
                        // Exponent notation ("1e3") is valid proto3 JSON.
                        let looks_numeric = t.bytes().all(|b| {
                            b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'e' | b'E' | b'+')
                        });
                        if looks_numeric {
                            t.parse::<f64>().ok().and_then(integral)
                        } else {
                            None
                        }
                    }
                }
            }
            _ => {
                return Err(self.wrong_type(&format!("an {name} (a string of digits or a number)")));
            }
        };
        match n {
            Some(n) if (min..=max).contains(&n) => Ok(n),
            Some(n) => Err(self.invalid(format!("{n} is out of range for {name}"))),
            None => Err(self.invalid(format!("{} is not an integer", self.value))),
        }
    }

    /// Reads a `double`: a number, a numeric string, or `"NaN"`,
    /// `"Infinity"`, `"-Infinity"`.
    pub(crate) fn double(&self) -> Result<f64> {
        match self.value {
            Value::Number(n) => n.as_f64().ok_or_else(|| self.invalid("not a number")),
            Value::String(s) => match s.as_str() {
                "NaN" => Ok(f64::NAN),
                "Infinity" => Ok(f64::INFINITY),
                "-Infinity" => Ok(f64::NEG_INFINITY),
                other => other
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .ok_or_else(|| self.invalid(format!("\"{other}\" is not a number"))),
            },
            _ => Err(self.wrong_type("a number")),
        }
    }

    /// Reads an enum given by name or by number; returns the name.
    pub(crate) fn enumeration(
        &self,
        type_name: &str,
        values: &[(&'static str, i32)],
    ) -> Result<&'static str> {
        let found = match self.value {
            Value::String(s) => values.iter().find(|(name, _)| name == s),
            Value::Number(_) => {
                let n = self.int32()?;
                values.iter().find(|(_, num)| *num == n)
            }
            _ => return Err(self.wrong_type(&format!("a {type_name} name"))),
        };
        found.map(|(name, _)| *name).ok_or_else(|| {
            let names: Vec<&str> = values.iter().map(|(n, _)| *n).collect();
            self.invalid(format!(
                "{} is not a {type_name}; use one of {}",
                self.value,
                names.join(", ")
            ))
        })
    }

    /// Reads a `google.protobuf.Duration` (`"3600s"`, `"0.5s"`,
    /// `"-1.000000001s"`): returns whether it is negative, and its size.
    pub(crate) fn duration(&self) -> Result<(bool, Duration)> {
        let s = match self.value {
            Value::String(s) => s.as_str(),
            _ => return Err(self.wrong_type("a duration string such as \"3600s\"")),
        };
        parse_duration(s).ok_or_else(|| {
            self.invalid(format!(
                "\"{s}\" is not a duration; write seconds with up to 9 decimals and an \"s\", as in \"3600s\" or \"0.5s\""
            ))
        })
    }
}

/// The integer value of a float, if it has one.
fn integral(f: f64) -> Option<i128> {
    // 2^100 bounds anything int64 could need; the cast is then exact.
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 1.267_650_600_228_229_4e30).then_some(f as i128)
}

/// Parses a proto3 JSON duration; `None` when malformed or out of range
/// (±315,576,000,000 s).
pub(crate) fn parse_duration(s: &str) -> Option<(bool, Duration)> {
    let body = s.strip_suffix('s')?;
    let (negative, body) = match body.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, body),
    };
    let (secs, frac) = match body.split_once('.') {
        Some((s, f)) => (s, f),
        None => (body, ""),
    };
    if secs.is_empty() || !secs.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if body.contains('.') && (frac.is_empty() || frac.len() > 9) {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = secs.parse().ok().filter(|&s| s <= 315_576_000_000)?;
    let nanos: u32 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().ok()?
    };
    Some((negative, Duration::new(secs, nanos)))
}

/// Formats a duration as proto3 JSON does: seconds with 0, 3, 6 or 9
/// decimals (`"3600s"`, `"1.500s"`).
pub(crate) fn format_duration(d: Duration) -> String {
    let nanos = d.subsec_nanos();
    let secs = d.as_secs();
    if nanos == 0 {
        format!("{secs}s")
    } else if nanos.is_multiple_of(1_000_000) {
        format!("{secs}.{:03}s", nanos / 1_000_000)
    } else if nanos.is_multiple_of(1_000) {
        format!("{secs}.{:06}s", nanos / 1_000)
    } else {
        format!("{secs}.{nanos:09}s")
    }
}

/// Converts a lowerCamelCase field name to the proto's snake_case name.
pub(crate) fn snake_case(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The fields of one JSON object (a message), read one by one.
#[derive(Debug)]
pub(crate) struct Fields<'a> {
    path: String,
    type_name: &'static str,
    map: &'a Map<String, Value>,
    /// The camelCase names asked for so far (for "unknown field" messages).
    known: Vec<&'static str>,
    /// The keys of `map` that were read.
    used: Vec<&'a str>,
}

impl<'a> Fields<'a> {
    /// An `INVALID_ARGUMENT` about the object as a whole.
    pub(crate) fn invalid(&self, message: impl std::fmt::Display) -> Error {
        Error::invalid(format!("{}: {message}", self.path))
    }

    /// Reads the field `name` (lowerCamelCase; its snake_case spelling is
    /// accepted too). `None` when absent or `null`.
    pub(crate) fn get(&mut self, name: &'static str) -> Result<Option<At<'a>>> {
        self.known.push(name);
        let snake = snake_case(name);
        let camel_hit = self.map.get_key_value(name);
        let snake_hit = if snake == name {
            None
        } else {
            self.map.get_key_value(snake.as_str())
        };
        let hit = match (camel_hit, snake_hit) {
            (Some(_), Some(_)) => {
                return Err(self.invalid(format!(
                    "field {name} is given twice, as \"{name}\" and as \"{snake}\""
                )));
            }
            (Some(h), None) | (None, Some(h)) => h,
            (None, None) => return Ok(None),
        };
        self.used.push(hit.0.as_str());
        if hit.1.is_null() {
            return Ok(None);
        }
        Ok(Some(At::new(format!("{}.{}", self.path, hit.0), hit.1)))
    }

    /// Reads a field that must be present.
    pub(crate) fn require(&mut self, name: &'static str) -> Result<At<'a>> {
        self.get(name)?.ok_or_else(|| {
            Error::invalid(format!("{}.{name}: required field is missing", self.path))
        })
    }

    /// Reads a oneof: at most one of `names` may be set. Returns the
    /// member's name and value.
    pub(crate) fn oneof(
        &mut self,
        group: &str,
        names: &[&'static str],
    ) -> Result<Option<(&'static str, At<'a>)>> {
        let mut found: Option<(&'static str, At<'a>)> = None;
        for &name in names {
            if let Some(at) = self.get(name)? {
                if let Some((first, _)) = &found {
                    return Err(self.invalid(format!(
                        "{first} and {name} are both set, but they are alternatives (oneof {group}); set only one"
                    )));
                }
                found = Some((name, at));
            }
        }
        Ok(found)
    }

    /// Accepts a field that exists in the proto but that the playground
    /// cannot honour: an error if it is set.
    pub(crate) fn unsupported(&mut self, name: &'static str, why: &str) -> Result<()> {
        match self.get(name)? {
            Some(at) => Err(at.unimplemented(why)),
            None => Ok(()),
        }
    }

    /// Checks that every field of the object was read.
    pub(crate) fn finish(self) -> Result<()> {
        for key in self.map.keys() {
            if !self.used.contains(&key.as_str()) {
                let known = if self.known.is_empty() {
                    "it has no fields".to_string()
                } else {
                    format!("its fields are {}", self.known.join(", "))
                };
                return Err(Error::invalid(format!(
                    "{}.{key}: unknown field \"{key}\" in {}; {known}",
                    self.path, self.type_name
                )));
            }
        }
        Ok(())
    }
}

/// Builds a proto3 JSON object, leaving default values out.
#[derive(Debug, Default)]
pub(crate) struct Out {
    map: Map<String, Value>,
}

impl Out {
    /// An empty object.
    pub(crate) fn new() -> Out {
        Out::default()
    }

    /// Sets a field unconditionally (message fields, which have presence).
    pub(crate) fn set(mut self, key: &str, v: Value) -> Out {
        self.map.insert(key.to_string(), v);
        self
    }

    /// A string field, left out when empty.
    pub(crate) fn string(self, key: &str, s: &str) -> Out {
        if s.is_empty() {
            self
        } else {
            self.set(key, Value::String(s.to_string()))
        }
    }

    /// A bytes field (base64), left out when empty.
    pub(crate) fn bytes(self, key: &str, b: &[u8]) -> Out {
        if b.is_empty() {
            self
        } else {
            self.set(key, Value::String(base64::encode(b)))
        }
    }

    /// An int64 field (a decimal string), left out when zero.
    pub(crate) fn int64(self, key: &str, n: i64) -> Out {
        if n == 0 {
            self
        } else {
            self.set(key, Value::String(n.to_string()))
        }
    }

    /// A uint64 counter written as an int64 field (a decimal string), left
    /// out when zero.
    pub(crate) fn uint64(self, key: &str, n: u64) -> Out {
        if n == 0 {
            self
        } else {
            self.set(key, Value::String(n.to_string()))
        }
    }

    /// A bool field, left out when false.
    pub(crate) fn bool(self, key: &str, b: bool) -> Out {
        if b {
            self.set(key, Value::Bool(true))
        } else {
            self
        }
    }

    /// A repeated field, left out when empty.
    pub(crate) fn list(self, key: &str, items: Vec<Value>) -> Out {
        if items.is_empty() {
            self
        } else {
            self.set(key, Value::Array(items))
        }
    }

    /// The object.
    pub(crate) fn build(self) -> Value {
        Value::Object(self.map)
    }
}

/// Serializes a value on one line with object keys in sorted order,
/// whatever order the map keeps them in.
#[must_use]
pub fn to_line(v: &Value) -> String {
    let mut out = String::new();
    write_value(v, &mut out);
    out
}

fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                if let Some(v) = map.get(k) {
                    write_value(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::String(s) => write_string(s, out),
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The `{"code", "status", "message"}` object of an error.
pub(crate) fn error_object(e: &Error) -> Value {
    let code: Code = e.code();
    let mut map = Map::new();
    map.insert("code".into(), Value::from(code.number()));
    map.insert("status".into(), Value::String(code.as_str().to_string()));
    map.insert("message".into(), Value::String(e.message().to_string()));
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn at(v: &Value) -> At<'_> {
        At::new("request.x", v)
    }

    #[test]
    fn int64_accepts_strings_and_numbers() {
        assert_eq!(at(&json!("123")).int64().unwrap(), 123);
        assert_eq!(at(&json!("-1")).int64().unwrap(), -1);
        assert_eq!(at(&json!(42)).int64().unwrap(), 42);
        assert_eq!(at(&json!(1e3)).int64().unwrap(), 1000);
        assert_eq!(at(&json!("1e3")).int64().unwrap(), 1000);
        assert_eq!(at(&json!("9223372036854775807")).int64().unwrap(), i64::MAX);
        let e = at(&json!("9223372036854775808")).int64().unwrap_err();
        assert!(e.message().starts_with("request.x: "), "{e}");
        assert!(e.message().contains("out of range"), "{e}");
        assert!(at(&json!("12a")).int64().is_err());
        assert!(at(&json!("")).int64().is_err());
        assert!(at(&json!(1.5)).int64().is_err());
        assert!(
            at(&json!(true))
                .int64()
                .unwrap_err()
                .message()
                .contains("got a boolean")
        );
        assert!(at(&json!(3_000_000_000u64)).int32().is_err());
        assert_eq!(at(&json!("-7")).int32().unwrap(), -7);
    }

    #[test]
    fn doubles_bools_strings_enums() {
        assert_eq!(at(&json!(0.25)).double().unwrap(), 0.25);
        assert_eq!(at(&json!("0.5")).double().unwrap(), 0.5);
        assert!(at(&json!("NaN")).double().unwrap().is_nan());
        assert!(at(&json!("x")).double().is_err());
        assert!(at(&json!(true)).bool().unwrap());
        assert!(at(&json!("true")).bool().is_err());
        assert!(at(&json!(false)).true_flag().is_err());
        assert!(at(&json!(1)).string().is_err());
        let values = [("A", 0), ("B", 1)];
        assert_eq!(at(&json!("B")).enumeration("E", &values).unwrap(), "B");
        assert_eq!(at(&json!(0)).enumeration("E", &values).unwrap(), "A");
        let e = at(&json!("C")).enumeration("E", &values).unwrap_err();
        assert!(e.message().contains("use one of A, B"), "{e}");
    }

    #[test]
    fn bytes_report_the_path() {
        assert_eq!(at(&json!("AAE=")).bytes().unwrap(), vec![0, 1]);
        let e = at(&json!("!!")).bytes().unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        assert!(e.message().starts_with("request.x: invalid base64"), "{e}");
    }

    #[test]
    fn durations_parse_and_format() {
        assert_eq!(
            parse_duration("3600s"),
            Some((false, Duration::from_secs(3600)))
        );
        assert_eq!(
            parse_duration("0.5s"),
            Some((false, Duration::from_millis(500)))
        );
        assert_eq!(
            parse_duration("-1.000000001s"),
            Some((true, Duration::new(1, 1)))
        );
        for bad in [
            "",
            "s",
            "1",
            "1.s",
            ".5s",
            "1.0000000001s",
            "1m",
            "a s",
            "-s",
            "1e3s",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
        assert_eq!(format_duration(Duration::from_secs(3600)), "3600s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.500s");
        assert_eq!(format_duration(Duration::from_micros(1)), "0.000001s");
        assert_eq!(format_duration(Duration::from_nanos(1)), "0.000000001s");
    }

    #[test]
    fn fields_accept_both_spellings_and_reject_unknown_ones() {
        let v = json!({"rowKeys": [], "row_ranges": null});
        let mut f = at(&v).object("RowSet").unwrap();
        assert!(f.get("rowKeys").unwrap().is_some());
        assert!(f.get("rowRanges").unwrap().is_none());
        f.finish().unwrap();

        let v = json!({"rowKeys": [], "row_keys": []});
        let mut f = at(&v).object("RowSet").unwrap();
        assert!(f.get("rowKeys").unwrap_err().message().contains("twice"));

        let v = json!({"rowKeys": [], "bogus": 1});
        let mut f = at(&v).object("RowSet").unwrap();
        f.get("rowKeys").unwrap();
        f.get("rowRanges").unwrap();
        let e = f.finish().unwrap_err();
        assert_eq!(
            e.message(),
            "request.x.bogus: unknown field \"bogus\" in RowSet; its fields are rowKeys, rowRanges"
        );
    }

    #[test]
    fn oneofs_allow_one_member() {
        let v = json!({"a": 1, "b": 2});
        let mut f = at(&v).object("M").unwrap();
        assert_eq!(
            f.oneof("choice", &["a", "b"]).unwrap_err().message(),
            "request.x: a and b are both set, but they are alternatives (oneof choice); set only one"
        );
        let v = json!({"b": 2, "a": null});
        let mut f = at(&v).object("M").unwrap();
        assert_eq!(f.oneof("choice", &["a", "b"]).unwrap().unwrap().0, "b");
    }

    #[test]
    fn arrays_reject_null_elements_and_name_indexes() {
        let v = json!([1, null]);
        let e = at(&v).array().unwrap_err();
        assert_eq!(e.message(), "request.x[1]: a list element may not be null");
        assert!(at(&Value::Null).array().unwrap().is_empty());
    }

    #[test]
    fn output_omits_defaults_and_sorts_keys() {
        let v = Out::new()
            .string("z", "")
            .int64("n", 0)
            .int64("m", -5)
            .bytes("b", b"\x00\xff")
            .bool("f", false)
            .list("l", vec![])
            .string("a", "x\"\n\u{1}")
            .build();
        assert_eq!(to_line(&v), r#"{"a":"x\"\n\u0001","b":"AP8=","m":"-5"}"#);
        assert_eq!(snake_case("rawTimestampMicros"), "raw_timestamp_micros");
        assert_eq!(snake_case("int64Type"), "int64_type");
    }
}
