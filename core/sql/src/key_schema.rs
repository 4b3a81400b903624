//! Row-key schemas themselves: fields, types, encodings, decoding and
//! encoding keys, checking keys (no instance here: setting a table's
//! schema is `crate::instance`'s, and `crate::rowkey_schema` gathers both
//! for the public API).

mod ordered_code;

use std::fmt;

use serde::{Deserialize, Serialize};

use tabletop_store::TimeUnit;
use tabletop_store::escape_bytes;
use tabletop_store::{Error, Result};

pub(crate) use ordered_code::{decode_int, encode_int};

/// Most fields a schema may have.
pub const MAX_FIELDS: usize = 64;
/// Longest delimiter, in bytes (Bigtable's limit).
pub const MAX_DELIMITER_BYTES: usize = 50;

/// How a key's fields are put together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StructEncoding {
    /// Fields joined by this delimiter (1 to 50 bytes).
    Delimited(Vec<u8>),
    /// Bigtable's `OrderedCodeBytes`: `0x00 0x01` between fields, `0x00`
    /// escaped as `0x00 0xff`.
    OrderedCode,
    /// Fields one after another, each but the last of a fixed width
    /// (playground extension).
    FixedWidth,
}

/// How an INT64 (or a timestamp's integer) is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntEncoding {
    /// 8 bytes, big-endian two's complement (sorts right only for values
    /// ≥ 0).
    BigEndian,
    /// Bigtable's `OrderedCodeBytes`: 1 to 10 bytes, sorts right always.
    OrderedCode,
    /// ASCII digits, zero-padded to `width` when given; values ≥ 0
    /// (playground extension, the form human-readable keys use).
    Decimal {
        /// Digits (1 to 19); `None`: any number of digits.
        width: Option<u8>,
    },
}

impl IntEncoding {
    fn fixed_width(self) -> Option<usize> {
        match self {
            IntEncoding::BigEndian => Some(8),
            IntEncoding::OrderedCode => None,
            IntEncoding::Decimal { width } => width.map(usize::from),
        }
    }

    fn encode(self, v: i64, out: &mut Vec<u8>) -> std::result::Result<(), String> {
        match self {
            IntEncoding::BigEndian => out.extend_from_slice(&v.to_be_bytes()),
            IntEncoding::OrderedCode => encode_int(v, out),
            IntEncoding::Decimal { width } => {
                if v < 0 {
                    return Err(format!("{v} is negative; DECIMAL holds values ≥ 0"));
                }
                let digits = v.to_string();
                let w = width.map_or(0, usize::from);
                if w > 0 && digits.len() > w {
                    return Err(format!("{v} has more than {w} digits"));
                }
                for _ in digits.len()..w {
                    out.push(b'0');
                }
                out.extend_from_slice(digits.as_bytes());
            }
        }
        Ok(())
    }

    fn decode(self, bytes: &[u8]) -> std::result::Result<i64, String> {
        match self {
            IntEncoding::BigEndian => {
                let arr: [u8; 8] = bytes.try_into().map_err(|_| {
                    format!(
                        "INT64 BIG_ENDIAN needs exactly 8 bytes, got {} (\"{}\"); for digits use DECIMAL",
                        bytes.len(),
                        escape_bytes(bytes)
                    )
                })?;
                Ok(i64::from_be_bytes(arr))
            }
            IntEncoding::OrderedCode => match decode_int(bytes) {
                Some((v, n)) if n == bytes.len() => Ok(v),
                _ => Err(format!(
                    "\"{}\" is not an ORDERED_CODE INT64",
                    escape_bytes(bytes)
                )),
            },
            IntEncoding::Decimal { width } => {
                if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
                    return Err(format!("\"{}\" is not decimal digits", escape_bytes(bytes)));
                }
                if let Some(w) = width
                    && bytes.len() != usize::from(w)
                {
                    return Err(format!(
                        "\"{}\" has {} digits; DECIMAL({w}) needs {w}",
                        escape_bytes(bytes),
                        bytes.len()
                    ));
                }
                std::str::from_utf8(bytes)
                    .ok()
                    .and_then(|s| s.parse::<i64>().ok())
                    .ok_or_else(|| format!("\"{}\" is too large for INT64", escape_bytes(bytes)))
            }
        }
    }
}

impl fmt::Display for IntEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntEncoding::BigEndian => f.write_str("BIG_ENDIAN"),
            IntEncoding::OrderedCode => f.write_str("ORDERED_CODE"),
            IntEncoding::Decimal { width: None } => f.write_str("DECIMAL"),
            IntEncoding::Decimal { width: Some(w) } => write!(f, "DECIMAL({w})"),
        }
    }
}

/// The type of one key field and how it is encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// UTF-8 text.
    String {
        /// A fixed width in bytes.
        width: Option<usize>,
    },
    /// Raw bytes.
    Bytes {
        /// A fixed width in bytes.
        width: Option<usize>,
    },
    /// A 64-bit integer.
    Int64(IntEncoding),
    /// A point in time, kept as an integer count of `unit`s.
    Timestamp {
        /// Seconds, milliseconds or microseconds (Bigtable: microseconds).
        unit: TimeUnit,
        /// How the integer is written.
        encoding: IntEncoding,
        /// Stored as `i64::MAX - t`, so newer times sort first.
        reversed: bool,
    },
}

impl FieldType {
    /// The field's width when every value has the same one.
    #[must_use]
    pub fn fixed_width(&self) -> Option<usize> {
        match self {
            FieldType::String { width } | FieldType::Bytes { width } => *width,
            FieldType::Int64(e) => e.fixed_width(),
            FieldType::Timestamp { encoding, .. } => encoding.fixed_width(),
        }
    }

    /// The GoogleSQL type name of the column (`STRING`, `BYTES`, `INT64`,
    /// `TIMESTAMP`).
    #[must_use]
    pub fn sql_type_name(&self) -> &'static str {
        match self {
            FieldType::String { .. } => "STRING",
            FieldType::Bytes { .. } => "BYTES",
            FieldType::Int64(_) => "INT64",
            FieldType::Timestamp { .. } => "TIMESTAMP",
        }
    }

    /// Encodes one value of this field.
    pub fn encode(&self, v: &KeyValue, out: &mut Vec<u8>) -> std::result::Result<(), String> {
        let check_width = |len: usize, width: &Option<usize>| match width {
            Some(w) if *w != len => Err(format!("needs exactly {w} bytes, the value has {len}")),
            _ => Ok(()),
        };
        match (self, v) {
            (FieldType::String { width }, KeyValue::String(s)) => {
                check_width(s.len(), width)?;
                out.extend_from_slice(s.as_bytes());
            }
            (FieldType::Bytes { width }, KeyValue::Bytes(b)) => {
                check_width(b.len(), width)?;
                out.extend_from_slice(b);
            }
            (FieldType::Int64(e), KeyValue::Int64(i)) => e.encode(*i, out)?,
            (
                FieldType::Timestamp {
                    unit,
                    encoding,
                    reversed,
                },
                KeyValue::Timestamp(micros),
            ) => {
                let per = per_micro(*unit);
                if micros % per != 0 {
                    return Err(format!(
                        "{micros} µs is not a whole number of {}",
                        unit_name(*unit)
                    ));
                }
                let mut n = micros / per;
                if *reversed {
                    if n < 0 {
                        return Err("a REVERSED timestamp must not be before 1970".into());
                    }
                    n = i64::MAX - n;
                }
                encoding.encode(n, out)?;
            }
            (t, v) => {
                return Err(format!(
                    "a {} value does not fit a {} field",
                    v.type_name(),
                    t.sql_type_name()
                ));
            }
        }
        Ok(())
    }

    /// Decodes one field's bytes.
    pub fn decode(&self, bytes: &[u8]) -> std::result::Result<KeyValue, String> {
        if let Some(w) = self.fixed_width()
            && bytes.len() != w
            && !matches!(self, FieldType::Int64(_) | FieldType::Timestamp { .. })
        {
            return Err(format!(
                "\"{}\" is {} bytes; the field is {w} bytes wide",
                escape_bytes(bytes),
                bytes.len()
            ));
        }
        match self {
            FieldType::String { .. } => match std::str::from_utf8(bytes) {
                Ok(s) => Ok(KeyValue::String(s.to_string())),
                Err(_) => Err(format!("\"{}\" is not valid UTF-8", escape_bytes(bytes))),
            },
            FieldType::Bytes { .. } => Ok(KeyValue::Bytes(bytes.to_vec())),
            FieldType::Int64(e) => e.decode(bytes).map(KeyValue::Int64),
            FieldType::Timestamp {
                unit,
                encoding,
                reversed,
            } => {
                let mut n = encoding.decode(bytes)?;
                if *reversed {
                    if n < 0 {
                        return Err(format!(
                            "\"{}\" is not a REVERSED timestamp",
                            escape_bytes(bytes)
                        ));
                    }
                    n = i64::MAX - n;
                }
                n.checked_mul(per_micro(*unit))
                    .map(KeyValue::Timestamp)
                    .ok_or_else(|| format!("{n} {} is out of range", unit_name(*unit)))
            }
        }
    }
}

fn per_micro(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Seconds => 1_000_000,
        TimeUnit::Millis => 1_000,
        TimeUnit::Micros => 1,
    }
}

fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Seconds => "seconds",
        TimeUnit::Millis => "milliseconds",
        TimeUnit::Micros => "microseconds",
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldType::String { width: None } => f.write_str("STRING"),
            FieldType::String { width: Some(w) } => write!(f, "STRING({w})"),
            FieldType::Bytes { width: None } => f.write_str("BYTES"),
            FieldType::Bytes { width: Some(w) } => write!(f, "BYTES({w})"),
            FieldType::Int64(e) => write!(f, "INT64 {e}"),
            FieldType::Timestamp {
                unit,
                encoding,
                reversed,
            } => {
                f.write_str("TIMESTAMP")?;
                match unit {
                    TimeUnit::Seconds => f.write_str(" SECONDS")?,
                    TimeUnit::Millis => f.write_str(" MILLIS")?,
                    TimeUnit::Micros => {}
                }
                write!(f, " {encoding}")?;
                if *reversed {
                    f.write_str(" REVERSED")?;
                }
                Ok(())
            }
        }
    }
}

/// A decoded key field.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyValue {
    /// `STRING`.
    String(String),
    /// `BYTES`.
    Bytes(Vec<u8>),
    /// `INT64`.
    Int64(i64),
    /// `TIMESTAMP`, microseconds since the epoch.
    Timestamp(i64),
}

impl KeyValue {
    fn type_name(&self) -> &'static str {
        match self {
            KeyValue::String(_) => "STRING",
            KeyValue::Bytes(_) => "BYTES",
            KeyValue::Int64(_) => "INT64",
            KeyValue::Timestamp(_) => "TIMESTAMP",
        }
    }
}

/// One named field of a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyField {
    /// The column name in SQL.
    pub name: String,
    /// Type and encoding.
    pub field_type: FieldType,
}

/// Why a key does not conform to a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyError {
    /// The field that could not be read (`None`: the key as a whole).
    pub field: Option<String>,
    /// What is wrong, in words.
    pub reason: String,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(name) => write!(f, "field {name}: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

/// A row key read as typed fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowKeySchema {
    /// The fields, in key order.
    pub fields: Vec<KeyField>,
    /// How they are joined.
    pub encoding: StructEncoding,
}

impl RowKeySchema {
    /// Checks names, widths and the encoding.
    pub fn validate(&self) -> Result<()> {
        if self.fields.is_empty() {
            return Err(Error::invalid("a row key schema needs at least one field"));
        }
        if self.fields.len() > MAX_FIELDS {
            return Err(Error::invalid(format!(
                "a row key schema has {} fields; the limit is {MAX_FIELDS}",
                self.fields.len()
            )));
        }
        for (i, f) in self.fields.iter().enumerate() {
            let ok = f
                .name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && f.name.len() <= 128
                && f.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ok {
                return Err(Error::invalid(format!(
                    "row key field name {:?} must be a SQL identifier ([A-Za-z_][A-Za-z0-9_]*)",
                    f.name
                )));
            }
            if f.name.eq_ignore_ascii_case("_key") || f.name.eq_ignore_ascii_case("_timestamp") {
                return Err(Error::invalid(format!(
                    "row key field name {} is reserved",
                    f.name
                )));
            }
            if self.fields[..i]
                .iter()
                .any(|g| g.name.eq_ignore_ascii_case(&f.name))
            {
                return Err(Error::invalid(format!(
                    "row key field name {} is used twice",
                    f.name
                )));
            }
            match &f.field_type {
                FieldType::String { width: Some(0) } | FieldType::Bytes { width: Some(0) } => {
                    return Err(Error::invalid(format!(
                        "row key field {}: a width must be at least 1",
                        f.name
                    )));
                }
                FieldType::Int64(IntEncoding::Decimal { width: Some(w) })
                | FieldType::Timestamp {
                    encoding: IntEncoding::Decimal { width: Some(w) },
                    ..
                } if *w == 0 || *w > 19 => {
                    return Err(Error::invalid(format!(
                        "row key field {}: DECIMAL width must be 1 to 19",
                        f.name
                    )));
                }
                _ => {}
            }
        }
        match &self.encoding {
            StructEncoding::Delimited(d) if d.is_empty() || d.len() > MAX_DELIMITER_BYTES => {
                Err(Error::invalid(format!(
                    "a row key delimiter must be 1 to {MAX_DELIMITER_BYTES} bytes"
                )))
            }
            StructEncoding::FixedWidth => {
                let n = self.fields.len();
                match self.fields[..n - 1]
                    .iter()
                    .find(|f| f.field_type.fixed_width().is_none())
                {
                    Some(f) => Err(Error::invalid(format!(
                        "FIXED_WIDTH keys need a fixed width for every field but the last; {} ({}) has none",
                        f.name, f.field_type
                    ))),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// Index of the field with this name (case-insensitive, as SQL names).
    #[must_use]
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields
            .iter()
            .position(|f| f.name.eq_ignore_ascii_case(name))
    }

    /// Splits a key into its fields' raw bytes.
    fn split<'k>(&self, key: &'k [u8]) -> std::result::Result<Vec<Vec<u8>>, KeyError> {
        let n = self.fields.len();
        let whole = |reason: String| KeyError {
            field: None,
            reason,
        };
        match &self.encoding {
            StructEncoding::Delimited(d) => {
                let mut parts: Vec<Vec<u8>> = Vec::with_capacity(n);
                let mut rest: &'k [u8] = key;
                loop {
                    match find(rest, d) {
                        Some(i) => {
                            parts.push(rest[..i].to_vec());
                            rest = &rest[i + d.len()..];
                        }
                        None => {
                            parts.push(rest.to_vec());
                            break;
                        }
                    }
                }
                if parts.len() != n {
                    return Err(whole(format!(
                        "the key has {} part(s) separated by \"{}\"; the schema has {n} field(s)",
                        parts.len(),
                        escape_bytes(d)
                    )));
                }
                Ok(parts)
            }
            StructEncoding::OrderedCode => {
                let mut parts = ordered_code::decode_struct(key).map_err(whole)?;
                if parts.len() > n {
                    return Err(whole(format!(
                        "the key has {} ORDERED_CODE fields; the schema has {n}",
                        parts.len()
                    )));
                }
                parts.resize(n, Vec::new());
                Ok(parts)
            }
            StructEncoding::FixedWidth => {
                let mut parts = Vec::with_capacity(n);
                let mut pos = 0usize;
                for (i, f) in self.fields.iter().enumerate() {
                    let len = match f.field_type.fixed_width() {
                        Some(w) => w,
                        None if i + 1 == n => key.len().saturating_sub(pos),
                        None => 0,
                    };
                    let Some(part) = key.get(pos..pos + len) else {
                        return Err(whole(format!(
                            "the key is {} bytes, too short for field {} at byte {pos}",
                            key.len(),
                            f.name
                        )));
                    };
                    parts.push(part.to_vec());
                    pos += len;
                }
                if pos != key.len() {
                    return Err(whole(format!(
                        "the key is {} bytes; its fields take {pos}",
                        key.len()
                    )));
                }
                Ok(parts)
            }
        }
    }

    /// Reads a key's fields, or says why the key does not conform.
    pub fn decode(&self, key: &[u8]) -> std::result::Result<Vec<KeyValue>, KeyError> {
        let parts = self.split(key)?;
        let mut out = Vec::with_capacity(parts.len());
        for (f, p) in self.fields.iter().zip(&parts) {
            if matches!(self.encoding, StructEncoding::OrderedCode)
                && p.is_empty()
                && matches!(
                    f.field_type,
                    FieldType::String { width: None } | FieldType::Bytes { width: None }
                )
            {
                out.push(match f.field_type {
                    FieldType::String { .. } => KeyValue::String(String::new()),
                    _ => KeyValue::Bytes(Vec::new()),
                });
                continue;
            }
            out.push(f.field_type.decode(p).map_err(|reason| KeyError {
                field: Some(f.name.clone()),
                reason,
            })?);
        }
        Ok(out)
    }

    fn encode_fields(&self, values: &[KeyValue]) -> std::result::Result<Vec<Vec<u8>>, KeyError> {
        let mut parts = Vec::with_capacity(values.len());
        for (f, v) in self.fields.iter().zip(values) {
            let mut b = Vec::new();
            f.field_type.encode(v, &mut b).map_err(|reason| KeyError {
                field: Some(f.name.clone()),
                reason,
            })?;
            if let StructEncoding::Delimited(d) = &self.encoding
                && find(&b, d).is_some()
            {
                return Err(KeyError {
                    field: Some(f.name.clone()),
                    reason: format!(
                        "the value holds the delimiter \"{}\", so the key could not be split again",
                        escape_bytes(d)
                    ),
                });
            }
            parts.push(b);
        }
        Ok(parts)
    }

    /// Builds a whole key from one value per field.
    pub fn encode(&self, values: &[KeyValue]) -> std::result::Result<Vec<u8>, KeyError> {
        if values.len() != self.fields.len() {
            return Err(KeyError {
                field: None,
                reason: format!(
                    "{} value(s) for {} field(s)",
                    values.len(),
                    self.fields.len()
                ),
            });
        }
        let parts = self.encode_fields(values)?;
        Ok(match &self.encoding {
            StructEncoding::Delimited(d) => parts.join(d.as_slice()),
            StructEncoding::OrderedCode => ordered_code::encode_struct(&parts),
            StructEncoding::FixedWidth => parts.concat(),
        })
    }

    /// The bytes every conforming key whose first fields are `values`
    /// starts with (for `k < n` fields this includes the delimiter after
    /// the last given field). Keys with that prefix may still differ in a
    /// given field for ORDER_CODE keys with empty fields, so callers check
    /// the fields again after the read.
    pub fn encode_prefix(&self, values: &[KeyValue]) -> std::result::Result<Vec<u8>, KeyError> {
        if values.len() > self.fields.len() {
            return Err(KeyError {
                field: None,
                reason: "more values than fields".into(),
            });
        }
        if values.len() == self.fields.len() {
            return self.encode(values);
        }
        let parts = self.encode_fields(values)?;
        Ok(match &self.encoding {
            StructEncoding::Delimited(d) => {
                let mut p = parts.join(d.as_slice());
                if !values.is_empty() {
                    p.extend_from_slice(d);
                }
                p
            }
            StructEncoding::OrderedCode => ordered_code::struct_prefix(&parts),
            StructEncoding::FixedWidth => parts.concat(),
        })
    }

    /// Checks keys against the schema; at most `max_examples` offenders
    /// are kept.
    pub fn check_keys<'k>(
        &self,
        keys: impl IntoIterator<Item = &'k [u8]>,
        max_examples: usize,
    ) -> Conformance {
        let mut c = Conformance::default();
        for key in keys {
            c.rows_checked += 1;
            match self.decode(key) {
                Ok(_) => c.conforming += 1,
                Err(e) => {
                    c.non_conforming += 1;
                    if c.examples.len() < max_examples {
                        c.examples.push(NonConforming {
                            key: key.to_vec(),
                            error: e,
                        });
                    }
                }
            }
        }
        c
    }
}

impl fmt::Display for RowKeySchema {
    /// The SQL text form, which [`RowKeySchema::from_sql`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, field) in self.fields.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{} {}", field.name, field.field_type)?;
        }
        match &self.encoding {
            StructEncoding::Delimited(d) => write!(f, " DELIMITED BY {}", sql_bytes_literal(d)),
            StructEncoding::OrderedCode => f.write_str(" ORDERED_CODE"),
            StructEncoding::FixedWidth => f.write_str(" FIXED_WIDTH"),
        }
    }
}

/// A GoogleSQL literal for bytes: a string literal when they are
/// printable ASCII, else a bytes literal with escapes.
fn sql_bytes_literal(d: &[u8]) -> String {
    let mut s = String::new();
    let printable = d.iter().all(|b| (0x20..0x7f).contains(b));
    if !printable {
        s.push('b');
    }
    s.push('\'');
    for &b in d {
        match b {
            b'\'' => s.push_str("\\'"),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('\'');
    s
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > haystack.len() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A key that does not conform, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonConforming {
    /// The row key.
    pub key: Vec<u8>,
    /// What is wrong with it.
    pub error: KeyError,
}

/// How a table's keys fit a schema.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conformance {
    /// Keys looked at.
    pub rows_checked: u64,
    /// Keys that decode.
    pub conforming: u64,
    /// Keys that do not.
    pub non_conforming: u64,
    /// The first offenders, in key order.
    pub examples: Vec<NonConforming>,
}

impl Conformance {
    /// One paragraph for people.
    #[must_use]
    pub fn summary(&self) -> String {
        if self.non_conforming == 0 {
            return format!("all {} row key(s) conform to the schema", self.rows_checked);
        }
        let mut s = format!(
            "{} of {} row key(s) do not conform to the schema; queries that select row key fields fail on them",
            self.non_conforming, self.rows_checked
        );
        for e in &self.examples {
            s.push_str(&format!("\n  \"{}\": {}", escape_bytes(&e.key), e.error));
        }
        s
    }
}

// ---- serde: the file form ----

/// A schema as written in TOML or JSON files.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchema {
    encoding: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delimiter: Option<String>,
    fields: Vec<RawField>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: String,
    #[serde(rename = "type")]
    type_: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    width: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    encoding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unit: Option<TimeUnit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reversed: Option<bool>,
}

fn int_encoding(
    name: &str,
    enc: Option<&str>,
    width: Option<usize>,
) -> std::result::Result<IntEncoding, String> {
    match enc.unwrap_or("big_endian") {
        "big_endian" => Ok(IntEncoding::BigEndian),
        "ordered_code" => Ok(IntEncoding::OrderedCode),
        "decimal" => Ok(IntEncoding::Decimal {
            width: match width {
                None => None,
                Some(w) => Some(
                    u8::try_from(w)
                        .map_err(|_| format!("field {name}: DECIMAL width must be 1 to 19"))?,
                ),
            },
        }),
        other => Err(format!(
            "field {name}: unknown integer encoding {other:?}; expected big_endian, ordered_code or decimal"
        )),
    }
}

impl TryFrom<RawSchema> for RowKeySchema {
    type Error = String;
    fn try_from(raw: RawSchema) -> std::result::Result<RowKeySchema, String> {
        let encoding = match (raw.encoding.as_str(), raw.delimiter) {
            ("delimited", Some(d)) => StructEncoding::Delimited(d.into_bytes()),
            ("delimited", None) => return Err("a delimited schema needs `delimiter`".into()),
            ("ordered_code", None) => StructEncoding::OrderedCode,
            ("fixed_width", None) => StructEncoding::FixedWidth,
            ("ordered_code" | "fixed_width", Some(_)) => {
                return Err(format!("a {} schema takes no `delimiter`", raw.encoding));
            }
            (other, _) => {
                return Err(format!(
                    "unknown encoding {other:?}; expected delimited, ordered_code or fixed_width"
                ));
            }
        };
        let mut fields = Vec::with_capacity(raw.fields.len());
        for f in raw.fields {
            let name = f.name;
            let field_type = match f.type_.as_str() {
                "string" | "bytes"
                    if f.encoding.is_some() || f.unit.is_some() || f.reversed.is_some() =>
                {
                    return Err(format!(
                        "field {name}: a {} field takes only `width`",
                        f.type_
                    ));
                }
                "string" => FieldType::String { width: f.width },
                "bytes" => FieldType::Bytes { width: f.width },
                "int64" if f.unit.is_some() || f.reversed.is_some() => {
                    return Err(format!(
                        "field {name}: an int64 field takes only `encoding` and `width`"
                    ));
                }
                "int64" => FieldType::Int64(int_encoding(&name, f.encoding.as_deref(), f.width)?),
                "timestamp" => FieldType::Timestamp {
                    unit: f.unit.unwrap_or(TimeUnit::Micros),
                    encoding: int_encoding(&name, f.encoding.as_deref(), f.width)?,
                    reversed: f.reversed.unwrap_or(false),
                },
                other => {
                    return Err(format!(
                        "field {name}: unknown type {other:?}; expected string, bytes, int64 or timestamp"
                    ));
                }
            };
            fields.push(KeyField { name, field_type });
        }
        let s = RowKeySchema { fields, encoding };
        s.validate().map_err(|e| e.message().to_string())?;
        Ok(s)
    }
}

impl From<&RowKeySchema> for RawSchema {
    fn from(s: &RowKeySchema) -> RawSchema {
        let (encoding, delimiter) = match &s.encoding {
            StructEncoding::Delimited(d) => {
                ("delimited", Some(String::from_utf8_lossy(d).into_owned()))
            }
            StructEncoding::OrderedCode => ("ordered_code", None),
            StructEncoding::FixedWidth => ("fixed_width", None),
        };
        let int = |e: &IntEncoding| -> (Option<String>, Option<usize>) {
            match e {
                IntEncoding::BigEndian => (Some("big_endian".into()), None),
                IntEncoding::OrderedCode => (Some("ordered_code".into()), None),
                IntEncoding::Decimal { width } => (Some("decimal".into()), width.map(usize::from)),
            }
        };
        RawSchema {
            encoding: encoding.to_string(),
            delimiter,
            fields: s
                .fields
                .iter()
                .map(|f| {
                    let mut r = RawField {
                        name: f.name.clone(),
                        type_: String::new(),
                        width: None,
                        encoding: None,
                        unit: None,
                        reversed: None,
                    };
                    match &f.field_type {
                        FieldType::String { width } => {
                            r.type_ = "string".into();
                            r.width = *width;
                        }
                        FieldType::Bytes { width } => {
                            r.type_ = "bytes".into();
                            r.width = *width;
                        }
                        FieldType::Int64(e) => {
                            r.type_ = "int64".into();
                            (r.encoding, r.width) = int(e);
                        }
                        FieldType::Timestamp {
                            unit,
                            encoding,
                            reversed,
                        } => {
                            r.type_ = "timestamp".into();
                            (r.encoding, r.width) = int(encoding);
                            r.unit = Some(*unit);
                            r.reversed = reversed.then_some(true);
                        }
                    }
                    r
                })
                .collect(),
        }
    }
}

impl Serialize for RowKeySchema {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        RawSchema::from(self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for RowKeySchema {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let raw = RawSchema::deserialize(d)?;
        RowKeySchema::try_from(raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn delimited() -> RowKeySchema {
        RowKeySchema {
            fields: vec![
                KeyField {
                    name: "device_type".into(),
                    field_type: FieldType::String { width: None },
                },
                KeyField {
                    name: "device_id".into(),
                    field_type: FieldType::String { width: None },
                },
                KeyField {
                    name: "day".into(),
                    field_type: FieldType::Int64(IntEncoding::Decimal { width: Some(8) }),
                },
            ],
            encoding: StructEncoding::Delimited(b"#".to_vec()),
        }
    }

    #[test]
    fn delimited_keys_decode_and_encode() {
        let s = delimited();
        s.validate().unwrap();
        let v = s.decode(b"phone#4c410523#20200501").unwrap();
        assert_eq!(
            v,
            vec![
                KeyValue::String("phone".into()),
                KeyValue::String("4c410523".into()),
                KeyValue::Int64(20_200_501)
            ]
        );
        assert_eq!(s.encode(&v).unwrap(), b"phone#4c410523#20200501");
        assert_eq!(s.encode_prefix(&v[..1]).unwrap(), b"phone#".to_vec());
        let e = s.decode(b"phone#4c410523").unwrap_err();
        assert!(e.reason.contains("2 part(s)"), "{e}");
        let e = s.decode(b"phone#4c410523#2020").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("day"));
        let e = s
            .encode(&[
                KeyValue::String("a#b".into()),
                KeyValue::String("x".into()),
                KeyValue::Int64(1),
            ])
            .unwrap_err();
        assert!(e.reason.contains("delimiter"), "{e}");
    }

    #[test]
    fn text_form_round_trips() {
        let s = delimited();
        let text = s.to_string();
        assert_eq!(
            text,
            "device_type STRING, device_id STRING, day INT64 DECIMAL(8) DELIMITED BY '#'"
        );
        assert_eq!(RowKeySchema::from_sql(&text).unwrap(), s);
        let t = RowKeySchema {
            fields: vec![
                KeyField {
                    name: "a".into(),
                    field_type: FieldType::Bytes { width: Some(2) },
                },
                KeyField {
                    name: "ts".into(),
                    field_type: FieldType::Timestamp {
                        unit: TimeUnit::Millis,
                        encoding: IntEncoding::BigEndian,
                        reversed: true,
                    },
                },
            ],
            encoding: StructEncoding::FixedWidth,
        };
        assert_eq!(RowKeySchema::from_sql(&t.to_string()).unwrap(), t);
    }

    #[test]
    fn serde_form_round_trips() {
        let s = delimited();
        let json = serde_json::to_string(&s).unwrap();
        let back: RowKeySchema = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        let err = serde_json::from_str::<RowKeySchema>(
            r#"{"encoding": "fixed_width", "fields": [{"name": "a", "type": "string"}, {"name": "b", "type": "string"}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("fixed width"), "{err}");
    }

    #[test]
    fn ordered_code_and_fixed_width_keys() {
        let s = RowKeySchema {
            fields: vec![
                KeyField {
                    name: "user".into(),
                    field_type: FieldType::String { width: None },
                },
                KeyField {
                    name: "n".into(),
                    field_type: FieldType::Int64(IntEncoding::OrderedCode),
                },
            ],
            encoding: StructEncoding::OrderedCode,
        };
        let v = vec![KeyValue::String("a\0b".into()), KeyValue::Int64(-5)];
        let k = s.encode(&v).unwrap();
        assert_eq!(s.decode(&k).unwrap(), v);
        let lo = s
            .encode(&[KeyValue::String("a".into()), KeyValue::Int64(-100)])
            .unwrap();
        let hi = s
            .encode(&[KeyValue::String("a".into()), KeyValue::Int64(100)])
            .unwrap();
        assert!(lo < hi);
        let f = RowKeySchema {
            fields: vec![
                KeyField {
                    name: "salt".into(),
                    field_type: FieldType::Int64(IntEncoding::Decimal { width: Some(2) }),
                },
                KeyField {
                    name: "ts".into(),
                    field_type: FieldType::Timestamp {
                        unit: TimeUnit::Millis,
                        encoding: IntEncoding::Decimal { width: None },
                        reversed: false,
                    },
                },
            ],
            encoding: StructEncoding::FixedWidth,
        };
        assert_eq!(
            f.decode(b"071588291200000").unwrap(),
            vec![
                KeyValue::Int64(7),
                KeyValue::Timestamp(1_588_291_200_000_000)
            ]
        );
        assert!(f.decode(b"0").is_err());
    }
}
