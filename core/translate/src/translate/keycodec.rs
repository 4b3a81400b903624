//! Order-preserving row-key encodings for the typed fields of a primary
//! key: whatever order Oracle NoSQL (or DynamoDB) gives two keys, the
//! encoded bytes compare the same way under Bigtable's byte order.
//!
//! Two encodings:
//!
//! - [`KeyEncoding::Text`] (the default) keeps keys readable in `cbt read`
//!   and the Key Visualizer. Fields are joined with `#`. Integers are
//!   zero-padded decimals (10 digits for INTEGER, 19 for LONG); a negative
//!   number is `-` followed by the nines' complement of its digits, so
//!   `-1` is `-9999999998` and sorts after `-2`. FLOAT and DOUBLE are the
//!   hex digits of their sign-flipped IEEE bits. NUMBER is a sortable
//!   decimal: `3`, a biased exponent and the digits for a positive value,
//!   `2` for zero, `1`, a reversed exponent and complemented digits ended by
//!   `~` for a negative one. TIMESTAMP is ISO 8601 in UTC with exactly the
//!   declared number of fraction digits (years 0 to 9999). ENUM is the
//!   zero-padded position of the symbol, `_` and the symbol. BOOLEAN is
//!   `false` or `true`. A STRING that is not the last field has the bytes
//!   up to `$` (space, `!`, `"`, `#`, `$` and control characters) written as
//!   `$` and two hex digits, so the `#` after it always ends it.
//! - [`KeyEncoding::Binary`] is compact: integers and timestamps as
//!   big-endian two's complement with the sign bit flipped, floats as
//!   sign-flipped IEEE bits, enums as one byte (two past 256 symbols),
//!   booleans as 0 or 1, and strings that are not last with NUL written as
//!   `00 FF` and ended by `00 01`. No separators.
//!
//! In both, the last field is written without an end marker, so a key
//! whose last field is a string keeps that string as it is.

use std::cmp::Ordering;

use tabletop_store::civil_from_days;

/// How key fields become bytes.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum KeyEncoding {
    /// Readable, `#`-separated (see the module documentation).
    #[default]
    Text,
    /// Compact bytes with no separators.
    Binary,
}

impl KeyEncoding {
    /// `text` or `binary`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            KeyEncoding::Text => "text",
            KeyEncoding::Binary => "binary",
        }
    }

    /// Parses `text` or `binary`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<KeyEncoding> {
        match name {
            "text" => Some(KeyEncoding::Text),
            "binary" => Some(KeyEncoding::Binary),
            _ => None,
        }
    }
}

/// The separator of text-encoded key fields.
pub const FIELD_SEPARATOR: u8 = b'#';

/// A typed value of one key field.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyValue {
    /// Oracle INTEGER (32 bits).
    Integer(i32),
    /// Oracle LONG (64 bits), DynamoDB integral `N`.
    Long(i64),
    /// Oracle FLOAT.
    Float(f32),
    /// Oracle DOUBLE.
    Double(f64),
    /// Oracle NUMBER, DynamoDB `N` that is not a 64-bit integer.
    Number(Decimal),
    /// Oracle STRING, DynamoDB `S`.
    String(String),
    /// DynamoDB `B`.
    Bytes(Vec<u8>),
    /// Oracle BOOLEAN (false sorts first).
    Boolean(bool),
    /// Oracle TIMESTAMP(precision): seconds and nanoseconds since the
    /// epoch, UTC; `precision` fraction digits are kept.
    Timestamp {
        /// Whole seconds (negative before 1970).
        seconds: i64,
        /// Nanoseconds, 0 to 999,999,999.
        nanos: u32,
        /// Fraction digits kept, 0 to 9.
        precision: u8,
    },
    /// Oracle ENUM: ordered by the symbol's position in the declaration.
    Enum {
        /// Position of the symbol (0 first).
        index: u32,
        /// The symbol.
        symbol: String,
        /// How many symbols the type declares.
        symbols: u32,
    },
    /// An integer written as zero-padded decimal digits in reverse order:
    /// what the advisor suggests for sequential ids. Scatters consecutive
    /// values on purpose, so it does not keep their order.
    ReversedDigits {
        /// The value.
        value: i64,
        /// Digits before reversing (10 for INTEGER, 19 for LONG).
        width: u8,
    },
}

/// An arbitrary-precision decimal in normal form: `0.d1 d2 ... x 10^exponent`
/// with no leading or trailing zero digits (zero has no digits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exponent: i64,
}

/// Largest decimal exponent a NUMBER key may have (and the negative of the
/// smallest, plus one).
pub const MAX_NUMBER_EXPONENT: i64 = 49_999;

impl Decimal {
    /// Reads a decimal written as JSON or SQL writes numbers (`-12.5e3`,
    /// `0.001`, `+7`). `None` if the text is not a number or its exponent is
    /// absurd (beyond +-10^9).
    #[must_use]
    pub fn parse(text: &str) -> Option<Decimal> {
        let t = text.trim();
        let (negative, rest) = match t.as_bytes().first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        let (mantissa, exp_text) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (int_part, frac_part) = match mantissa.find('.') {
            Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
            None => (mantissa, ""),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        if !int_part
            .bytes()
            .chain(frac_part.bytes())
            .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let exp10: i64 = match exp_text {
            None => 0,
            Some(e) => {
                let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
                if digits.is_empty()
                    || digits.len() > 9
                    || !digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                e.parse().ok()?
            }
        };
        let mut digits: Vec<u8> = int_part
            .bytes()
            .chain(frac_part.bytes())
            .map(|b| b - b'0')
            .collect();
        let mut exponent = i64::try_from(int_part.len()).ok()? + exp10;
        let leading = digits.iter().take_while(|&&d| d == 0).count();
        digits.drain(..leading);
        exponent -= i64::try_from(leading).ok()?;
        while digits.last() == Some(&0) {
            digits.pop();
        }
        if digits.is_empty() {
            return Some(Decimal {
                negative: false,
                digits,
                exponent: 0,
            });
        }
        Some(Decimal {
            negative,
            digits,
            exponent,
        })
    }

    /// Whether the value is zero.
    #[must_use]
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// The exponent of the normal form (`0.d... x 10^exponent`).
    #[must_use]
    pub fn exponent(&self) -> i64 {
        self.exponent
    }

    /// The value as an `i64`, when it is an integer in range.
    #[must_use]
    pub fn to_i64(&self) -> Option<i64> {
        if self.is_zero() {
            return Some(0);
        }
        let len = i64::try_from(self.digits.len()).ok()?;
        if self.exponent < len || self.exponent > 19 {
            return None;
        }
        let mut v: i128 = 0;
        for i in 0..self.exponent {
            let d = usize::try_from(i)
                .ok()
                .and_then(|i| self.digits.get(i))
                .copied()
                .unwrap_or(0);
            v = v * 10 + i128::from(d);
        }
        if self.negative {
            v = -v;
        }
        i64::try_from(v).ok()
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        let sign = |d: &Decimal| -> i8 {
            if d.is_zero() {
                0
            } else if d.negative {
                -1
            } else {
                1
            }
        };
        let (a, b) = (sign(self), sign(other));
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        let magnitude = self
            .exponent
            .cmp(&other.exponent)
            .then_with(|| self.digits.cmp(&other.digits));
        if a > 0 {
            magnitude
        } else {
            magnitude.reverse()
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Decimal {
    /// Plain decimal notation (`-12.5`, `0.001`, `1200`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        if self.negative {
            f.write_str("-")?;
        }
        let digits: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        let len = self.digits.len() as i64;
        if self.exponent <= 0 {
            write!(
                f,
                "0.{}{digits}",
                "0".repeat(usize::try_from(-self.exponent).unwrap_or(0))
            )
        } else if self.exponent >= len {
            write!(
                f,
                "{digits}{}",
                "0".repeat(usize::try_from(self.exponent - len).unwrap_or(0))
            )
        } else {
            let (a, b) = digits.split_at(usize::try_from(self.exponent).unwrap_or(0));
            write!(f, "{a}.{b}")
        }
    }
}

/// The ordering Oracle NoSQL gives two values of the same key type; values
/// of different types compare by variant. Floats order NaN last and treat
/// `-0.0` as `0.0`.
#[must_use]
pub fn compare_values(a: &KeyValue, b: &KeyValue) -> Ordering {
    match (a, b) {
        (KeyValue::Integer(x), KeyValue::Integer(y)) => x.cmp(y),
        (KeyValue::Long(x), KeyValue::Long(y)) => x.cmp(y),
        (KeyValue::Float(x), KeyValue::Float(y)) => float_bits(*x).cmp(&float_bits(*y)),
        (KeyValue::Double(x), KeyValue::Double(y)) => double_bits(*x).cmp(&double_bits(*y)),
        (KeyValue::Number(x), KeyValue::Number(y)) => x.cmp(y),
        (KeyValue::String(x), KeyValue::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (KeyValue::Bytes(x), KeyValue::Bytes(y)) => x.cmp(y),
        (KeyValue::Boolean(x), KeyValue::Boolean(y)) => x.cmp(y),
        (
            KeyValue::Timestamp {
                seconds: s1,
                nanos: n1,
                precision: p1,
            },
            KeyValue::Timestamp {
                seconds: s2,
                nanos: n2,
                precision: p2,
            },
        ) => s1
            .cmp(s2)
            .then_with(|| truncate_nanos(*n1, *p1).cmp(&truncate_nanos(*n2, *p2))),
        (KeyValue::Enum { index: x, .. }, KeyValue::Enum { index: y, .. }) => x.cmp(y),
        _ => variant(a).cmp(&variant(b)),
    }
}

fn variant(v: &KeyValue) -> u8 {
    match v {
        KeyValue::Integer(_) => 0,
        KeyValue::Long(_) => 1,
        KeyValue::Float(_) => 2,
        KeyValue::Double(_) => 3,
        KeyValue::Number(_) => 4,
        KeyValue::String(_) => 5,
        KeyValue::Bytes(_) => 6,
        KeyValue::Boolean(_) => 7,
        KeyValue::Timestamp { .. } => 8,
        KeyValue::Enum { .. } => 9,
        KeyValue::ReversedDigits { .. } => 10,
    }
}

/// The sign-flipped bits of a double: they compare as unsigned integers
/// the way the doubles compare (NaN last, `-0.0` equal to `0.0`).
#[must_use]
pub fn double_bits(x: f64) -> u64 {
    let x = if x.is_nan() {
        f64::NAN
    } else if x == 0.0 {
        0.0
    } else {
        x
    };
    let bits = if x.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        x.to_bits()
    };
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// [`double_bits`] for single precision.
#[must_use]
pub fn float_bits(x: f32) -> u32 {
    let bits = if x.is_nan() {
        0x7fc0_0000
    } else if x == 0.0 {
        0
    } else {
        x.to_bits()
    };
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | (1 << 31)
    }
}

fn truncate_nanos(nanos: u32, precision: u8) -> u32 {
    let p = u32::from(precision.min(9));
    let unit = 10u32.pow(9 - p);
    nanos - nanos % unit
}

/// Zero-padded decimal of `width` digits; negatives as `-` and the nines'
/// complement.
fn signed_decimal(v: i128, width: usize, out: &mut Vec<u8>) {
    if v >= 0 {
        out.extend_from_slice(format!("{v:0width$}").as_bytes());
    } else {
        let max = 10i128.pow(u32::try_from(width).unwrap_or(19)) - 1;
        let c = max + v; // max - |v|
        out.push(b'-');
        out.extend_from_slice(format!("{c:0width$}").as_bytes());
    }
}

/// Digits needed to write `n - 1` (at least one).
fn enum_width(symbols: u32) -> usize {
    symbols.saturating_sub(1).max(1).to_string().len()
}

/// ISO 8601 text in UTC with `precision` fraction digits:
/// `2023-09-10T15:21:48.123Z`. Years outside 0..=9999 are written with a
/// sign and more digits (`-0123-...`, `+10000-...`).
#[must_use]
pub fn iso_timestamp(seconds: i64, nanos: u32, precision: u8) -> String {
    let days = seconds.div_euclid(86_400);
    let rem = seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("+{y}")
    };
    let mut s = format!(
        "{year}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    let p = usize::from(precision.min(9));
    if p > 0 {
        let frac = format!("{:09}", nanos.min(999_999_999));
        s.push('.');
        s.push_str(&frac[..p]);
    }
    s.push('Z');
    s
}

fn escape_text_field(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        if b <= b'$' {
            out.push(b'$');
            out.extend_from_slice(format!("{b:02X}").as_bytes());
        } else {
            out.push(b);
        }
    }
}

fn escape_binary_field(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        if b == 0 {
            out.extend_from_slice(&[0x00, 0xff]);
        } else {
            out.push(b);
        }
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

fn number_text(d: &Decimal, out: &mut Vec<u8>) -> Result<(), String> {
    if d.is_zero() {
        out.push(b'2');
        return Ok(());
    }
    if !(-MAX_NUMBER_EXPONENT - 1..=MAX_NUMBER_EXPONENT).contains(&d.exponent) {
        return Err(format!(
            "the NUMBER {d} is too large or too small for a row key (decimal exponent beyond +-{MAX_NUMBER_EXPONENT})"
        ));
    }
    if d.negative {
        out.push(b'1');
        out.extend_from_slice(format!("{:05}", MAX_NUMBER_EXPONENT - d.exponent).as_bytes());
        out.extend(d.digits.iter().map(|&x| b'0' + (9 - x)));
        out.push(b'~');
    } else {
        out.push(b'3');
        out.extend_from_slice(format!("{:05}", d.exponent + MAX_NUMBER_EXPONENT + 1).as_bytes());
        out.extend(d.digits.iter().map(|&x| b'0' + x));
    }
    Ok(())
}

fn timestamp_text(
    seconds: i64,
    nanos: u32,
    precision: u8,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let days = seconds.div_euclid(86_400);
    let (y, _, _) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return Err(format!(
            "the text key encoding writes timestamps of the years 0 to 9999 only (got the year {y}); use the binary key encoding"
        ));
    }
    out.extend_from_slice(
        iso_timestamp(seconds, truncate_nanos(nanos, precision), precision).as_bytes(),
    );
    Ok(())
}

fn flip64(v: i64) -> [u8; 8] {
    ((v as u64) ^ (1 << 63)).to_be_bytes()
}

/// Appends one field's encoding. `last` says whether another field
/// follows (then variable-length fields are ended so the next one cannot
/// change the order). In text mode the caller writes the `#`.
pub fn encode_field(
    value: &KeyValue,
    encoding: KeyEncoding,
    last: bool,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    match (encoding, value) {
        (KeyEncoding::Text, KeyValue::Integer(v)) => signed_decimal(i128::from(*v), 10, out),
        (KeyEncoding::Text, KeyValue::Long(v)) => signed_decimal(i128::from(*v), 19, out),
        (KeyEncoding::Binary, KeyValue::Integer(v)) => {
            out.extend_from_slice(&((*v as u32) ^ (1 << 31)).to_be_bytes());
        }
        (KeyEncoding::Binary, KeyValue::Long(v)) => out.extend_from_slice(&flip64(*v)),
        (KeyEncoding::Text, KeyValue::Float(x)) => {
            out.extend_from_slice(format!("{:08x}", float_bits(*x)).as_bytes());
        }
        (KeyEncoding::Text, KeyValue::Double(x)) => {
            out.extend_from_slice(format!("{:016x}", double_bits(*x)).as_bytes());
        }
        (KeyEncoding::Binary, KeyValue::Float(x)) => {
            out.extend_from_slice(&float_bits(*x).to_be_bytes())
        }
        (KeyEncoding::Binary, KeyValue::Double(x)) => {
            out.extend_from_slice(&double_bits(*x).to_be_bytes())
        }
        (KeyEncoding::Text, KeyValue::Number(d)) => number_text(d, out)?,
        (KeyEncoding::Binary, KeyValue::Number(d)) => {
            number_text(d, out)?;
            if !last {
                out.push(0x00);
            }
        }
        (KeyEncoding::Text, KeyValue::String(s)) => {
            if last {
                out.extend_from_slice(s.as_bytes());
            } else {
                escape_text_field(s.as_bytes(), out);
            }
        }
        (KeyEncoding::Text, KeyValue::Bytes(b)) => {
            if last {
                out.extend_from_slice(b);
            } else {
                escape_text_field(b, out);
            }
        }
        (KeyEncoding::Binary, KeyValue::String(s)) => {
            if last {
                out.extend_from_slice(s.as_bytes());
            } else {
                escape_binary_field(s.as_bytes(), out);
            }
        }
        (KeyEncoding::Binary, KeyValue::Bytes(b)) => {
            if last {
                out.extend_from_slice(b);
            } else {
                escape_binary_field(b, out);
            }
        }
        (KeyEncoding::Text, KeyValue::Boolean(b)) => {
            out.extend_from_slice(if *b { b"true" } else { b"false" });
        }
        (KeyEncoding::Binary, KeyValue::Boolean(b)) => out.push(u8::from(*b)),
        (
            KeyEncoding::Text,
            KeyValue::Timestamp {
                seconds,
                nanos,
                precision,
            },
        ) => timestamp_text(*seconds, *nanos, *precision, out)?,
        (
            KeyEncoding::Binary,
            KeyValue::Timestamp {
                seconds,
                nanos,
                precision,
            },
        ) => {
            let nanos = truncate_nanos(*nanos, *precision);
            if *precision <= 6 {
                let micros = seconds
                    .checked_mul(1_000_000)
                    .and_then(|m| m.checked_add(i64::from(nanos / 1000)))
                    .ok_or_else(|| "the timestamp is out of range".to_string())?;
                out.extend_from_slice(&flip64(micros));
            } else {
                out.extend_from_slice(&flip64(*seconds));
                out.extend_from_slice(&nanos.to_be_bytes());
            }
        }
        (
            KeyEncoding::Text,
            KeyValue::Enum {
                index,
                symbol,
                symbols,
            },
        ) => {
            let w = enum_width(*symbols);
            out.extend_from_slice(format!("{index:0w$}_{symbol}").as_bytes());
        }
        (KeyEncoding::Binary, KeyValue::Enum { index, symbols, .. }) => {
            if *symbols <= 256 {
                out.push(u8::try_from(*index).unwrap_or(u8::MAX));
            } else {
                out.extend_from_slice(&u16::try_from(*index).unwrap_or(u16::MAX).to_be_bytes());
            }
        }
        (_, KeyValue::ReversedDigits { value, width }) => {
            let mut digits = Vec::new();
            signed_decimal(i128::from(*value), usize::from(*width), &mut digits);
            let (sign, rest) = match digits.first() {
                Some(b'-') => (&digits[..1], &digits[1..]),
                _ => (&digits[..0], &digits[..]),
            };
            out.extend_from_slice(sign);
            out.extend(rest.iter().rev());
        }
    }
    Ok(())
}

/// Encodes a whole key: the fields in order (text: joined with `#`).
pub fn encode_key(values: &[KeyValue], encoding: KeyEncoding) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let last = i + 1 == values.len();
        encode_field(v, encoding, last, &mut out)?;
        if !last && encoding == KeyEncoding::Text {
            out.push(FIELD_SEPARATOR);
        }
    }
    Ok(out)
}

/// Compares two keys of the same types field by field, as Oracle would.
#[must_use]
pub fn compare_keys(a: &[KeyValue], b: &[KeyValue]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = compare_values(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: KeyValue) -> String {
        String::from_utf8(encode_key(&[v], KeyEncoding::Text).unwrap()).unwrap()
    }

    #[test]
    fn integers_are_padded_and_negatives_complemented() {
        assert_eq!(text(KeyValue::Integer(42)), "0000000042");
        assert_eq!(text(KeyValue::Integer(-1)), "-9999999998");
        assert_eq!(text(KeyValue::Integer(i32::MIN)), "-7852516351");
        assert_eq!(text(KeyValue::Long(7)), "0000000000000000007");
        assert_eq!(text(KeyValue::Long(i64::MIN)), "-0776627963145224191");
        assert!(text(KeyValue::Integer(-2)) < text(KeyValue::Integer(-1)));
    }

    #[test]
    fn decimals_normalise_and_order() {
        let d = |s: &str| Decimal::parse(s).unwrap();
        assert_eq!(d("0012.500").to_string(), "12.5");
        assert_eq!(d("-0.00120").to_string(), "-0.0012");
        assert_eq!(d("1.2e3").to_string(), "1200");
        assert_eq!(d("-0").to_string(), "0");
        assert!(d("-0.123") < d("-0.12"));
        assert!(d("9") < d("10"));
        assert_eq!(d("12.0").to_i64(), Some(12));
        assert_eq!(d("12.5").to_i64(), None);
        assert_eq!(text(KeyValue::Number(d("42"))), "35000242");
        assert_eq!(text(KeyValue::Number(d("0"))), "2");
        assert!(Decimal::parse("1.2.3").is_none());
        assert!(Decimal::parse("e5").is_none());
        assert!(Decimal::parse("1e99999999999").is_none());
        assert!(encode_key(&[KeyValue::Number(d("1e60000"))], KeyEncoding::Text).is_err());
    }

    #[test]
    fn strings_are_escaped_only_before_a_separator() {
        let k = encode_key(
            &[
                KeyValue::String("New York".into()),
                KeyValue::String("a b".into()),
            ],
            KeyEncoding::Text,
        )
        .unwrap();
        assert_eq!(k, b"New$20York#a b");
        let k = encode_key(
            &[KeyValue::String("a\0".into()), KeyValue::Integer(1)],
            KeyEncoding::Binary,
        )
        .unwrap();
        assert_eq!(k, b"a\x00\xff\x00\x01\x80\x00\x00\x01");
    }

    #[test]
    fn timestamps_enums_and_reversed_digits() {
        let ts = KeyValue::Timestamp {
            seconds: 1_694_359_308,
            nanos: 123_456_789,
            precision: 3,
        };
        assert_eq!(text(ts), "2023-09-10T15:21:48.123Z");
        let e = KeyValue::Enum {
            index: 2,
            symbol: "large".into(),
            symbols: 12,
        };
        assert_eq!(text(e), "02_large");
        assert_eq!(
            text(KeyValue::ReversedDigits {
                value: 123,
                width: 10
            }),
            "3210000000"
        );
        let old = KeyValue::Timestamp {
            seconds: -70_000_000_000,
            nanos: 0,
            precision: 0,
        };
        assert!(encode_key(std::slice::from_ref(&old), KeyEncoding::Text).is_err());
        assert!(encode_key(&[old], KeyEncoding::Binary).is_ok());
    }
}
