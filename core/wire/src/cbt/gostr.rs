//! The handful of Go library behaviours `cbt`'s output and error messages
//! depend on, re-implemented so the text comes out byte for byte the same:
//! `%q` quoting (`strconv.Quote` over bytes), `strconv.ParseInt`,
//! `ParseUint`, `Atoi` and `ParseBool` with their error texts, rune-counted
//! `%-Ns` padding, `time.Format("2006/01/02-15:04:05.000000")` in UTC, and
//! the `text/tabwriter` layout `cbt ls` uses.
//!
//! Nothing here knows about Bigtable; it is Go's standard library seen from
//! the outside (its documented behaviour, checked against the real `cbt`).

use std::fmt::Write;
use std::sync::OnceLock;

use regex::Regex;

use tabletop_store::{civil_from_days, days_from_civil};

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and
/// the ASCII space. Non-ASCII characters are classified with the regex
/// crate's Unicode tables (Go 1.24 uses Unicode 15.0; characters assigned
/// later may differ).
pub(crate) fn is_print(c: char) -> bool {
    if c.is_ascii() {
        return c == ' ' || c.is_ascii_graphic();
    }
    static PRINT: OnceLock<Option<Regex>> = OnceLock::new();
    let re = PRINT.get_or_init(|| Regex::new(r"^[\p{L}\p{M}\p{N}\p{P}\p{S}]$").ok());
    let mut buf = [0u8; 4];
    re.as_ref()
        .is_some_and(|re| re.is_match(c.encode_utf8(&mut buf)))
}

/// Go's `unicode.IsLetter` (category L).
pub(crate) fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    static LETTER: OnceLock<Option<Regex>> = OnceLock::new();
    let re = LETTER.get_or_init(|| Regex::new(r"^\p{L}$").ok());
    let mut buf = [0u8; 4];
    re.as_ref()
        .is_some_and(|re| re.is_match(c.encode_utf8(&mut buf)))
}

/// Go's `unicode.IsDigit` (category Nd).
pub(crate) fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    static DIGIT: OnceLock<Option<Regex>> = OnceLock::new();
    let re = DIGIT.get_or_init(|| Regex::new(r"^\p{Nd}$").ok());
    let mut buf = [0u8; 4];
    re.as_ref()
        .is_some_and(|re| re.is_match(c.encode_utf8(&mut buf)))
}

/// Go's `unicode.IsSpace` (the same set as Rust's `char::is_whitespace`:
/// the Unicode `White_Space` property).
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// Appends one rune the way `strconv.Quote` escapes it inside `quote`
/// (either `"` or `'`).
fn push_escaped_rune(out: &mut String, c: char, quote: char) {
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if is_print(c) {
        out.push(c);
        return;
    }
    match c {
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0b' => out.push_str("\\v"),
        _ => {
            let r = u32::from(c);
            if r < 0x20 || r == 0x7f {
                let _ = write!(out, "\\x{r:02x}");
            } else if r < 0x10000 {
                let _ = write!(out, "\\u{r:04x}");
            } else {
                let _ = write!(out, "\\U{r:08x}");
            }
        }
    }
}

/// `fmt.Sprintf("%q", bytes)`: a double-quoted Go string literal. Printable
/// runes stay as they are, invalid UTF-8 bytes become `\xNN`.
pub(crate) fn quote(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_escaped_rune(&mut out, c, '"');
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('"');
    out
}

/// `fmt.Sprintf("%q", r)` for a rune: a single-quoted Go character literal.
pub(crate) fn quote_rune(c: char) -> String {
    let mut out = String::from("'");
    push_escaped_rune(&mut out, c, '\'');
    out.push('\'');
    out
}

/// The number of runes Go counts in `bytes` (`utf8.RuneCount`): each
/// invalid byte counts as one.
pub(crate) fn rune_count(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|c| c.valid().chars().count() + c.invalid().len())
        .sum()
}

/// `fmt.Fprintf(w, "%-Ns", s)`: `s` padded with spaces on the right to
/// `width` runes.
pub(crate) fn push_padded(out: &mut Vec<u8>, s: &[u8], width: usize) {
    out.extend_from_slice(s);
    let n = rune_count(s);
    if n < width {
        out.resize(out.len() + (width - n), b' ');
    }
}

/// A `strconv.NumError`: which function failed, on what input, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NumError {
    func: &'static str,
    num: Vec<u8>,
    range: bool,
}

impl NumError {
    fn syntax(func: &'static str, num: &[u8]) -> NumError {
        NumError {
            func,
            num: num.to_vec(),
            range: false,
        }
    }

    fn range(func: &'static str, num: &[u8]) -> NumError {
        NumError {
            func,
            num: num.to_vec(),
            range: true,
        }
    }
}

impl std::fmt::Display for NumError {
    /// `strconv.ParseInt: parsing "x": invalid syntax`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = if self.range {
            "value out of range"
        } else {
            "invalid syntax"
        };
        write!(
            f,
            "strconv.{}: parsing {}: {why}",
            self.func,
            quote(&self.num)
        )
    }
}

fn lower(c: u8) -> u8 {
    c | 0x20
}

/// Go's `underscoreOK`: underscores only between digits (a base prefix
/// counts as a digit).
fn underscore_ok(s: &[u8]) -> bool {
    let mut saw = b'^';
    let mut s = s;
    if let Some((&(b'+' | b'-'), rest)) = s.split_first() {
        s = rest;
    }
    let mut i = 0;
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(lower(s[1]), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = lower(s[1]) == b'x';
    }
    while i < s.len() {
        let c = s[i];
        i += 1;
        if c.is_ascii_digit() || (hex && (b'a'..=b'f').contains(&lower(c))) {
            saw = b'0';
            continue;
        }
        if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
            continue;
        }
        if saw == b'_' {
            return false;
        }
        saw = b'!';
    }
    saw != b'_'
}

/// `strconv.ParseUint(s, base, bits)` for base 0 (Go literal syntax:
/// `0x`, `0o`, `0b`, leading-zero octal, `_` separators) or 2..=36.
pub(crate) fn parse_uint(s: &[u8], base: u32, bits: u32) -> Result<u64, NumError> {
    const FUNC: &str = "ParseUint";
    if s.is_empty() {
        return Err(NumError::syntax(FUNC, s));
    }
    let s0 = s;
    let base0 = base == 0;
    let mut digits = s;
    let mut base = base;
    if base0 {
        base = 10;
        if s[0] == b'0' {
            if s.len() >= 3 && lower(s[1]) == b'b' {
                base = 2;
                digits = &s[2..];
            } else if s.len() >= 3 && lower(s[1]) == b'o' {
                base = 8;
                digits = &s[2..];
            } else if s.len() >= 3 && lower(s[1]) == b'x' {
                base = 16;
                digits = &s[2..];
            } else {
                base = 8;
                digits = &s[1..];
            }
        }
    } else if !(2..=36).contains(&base) {
        return Err(NumError::syntax(FUNC, s0));
    }
    let max_val: u64 = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let cutoff = u64::MAX / u64::from(base) + 1;
    let mut n: u64 = 0;
    let mut underscores = false;
    for &c in digits {
        let d = if c == b'_' && base0 {
            underscores = true;
            continue;
        } else if c.is_ascii_digit() {
            c - b'0'
        } else if lower(c).is_ascii_lowercase() {
            lower(c) - b'a' + 10
        } else {
            return Err(NumError::syntax(FUNC, s0));
        };
        if u32::from(d) >= base {
            return Err(NumError::syntax(FUNC, s0));
        }
        if n >= cutoff {
            return Err(NumError::range(FUNC, s0));
        }
        n *= u64::from(base);
        let n1 = n.wrapping_add(u64::from(d));
        if n1 < n || n1 > max_val {
            return Err(NumError::range(FUNC, s0));
        }
        n = n1;
    }
    if underscores && !underscore_ok(s0) {
        return Err(NumError::syntax(FUNC, s0));
    }
    Ok(n)
}

/// `strconv.ParseInt(s, base, 64)`.
pub(crate) fn parse_int(s: &[u8], base: u32) -> Result<i64, NumError> {
    const FUNC: &str = "ParseInt";
    if s.is_empty() {
        return Err(NumError::syntax(FUNC, s));
    }
    let (neg, rest) = match s[0] {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let un = match parse_uint(rest, base, 64) {
        Ok(v) => v,
        Err(e) if e.range => u64::MAX,
        Err(_) => return Err(NumError::syntax(FUNC, s)),
    };
    let cutoff = 1u64 << 63;
    if !neg && un >= cutoff {
        return Err(NumError::range(FUNC, s));
    }
    if neg && un > cutoff {
        return Err(NumError::range(FUNC, s));
    }
    Ok(if neg {
        0i64.wrapping_sub_unsigned(un)
    } else {
        i64::try_from(un).unwrap_or(i64::MAX)
    })
}

/// `strconv.Atoi(s)` on a 64-bit platform.
pub(crate) fn atoi(s: &[u8]) -> Result<i64, NumError> {
    const FUNC: &str = "Atoi";
    if !s.is_empty() && s.len() < 19 {
        let digits = match s[0] {
            b'+' | b'-' => &s[1..],
            _ => s,
        };
        if digits.is_empty() {
            return Err(NumError::syntax(FUNC, s));
        }
        let mut n: i64 = 0;
        for &c in digits {
            if !c.is_ascii_digit() {
                return Err(NumError::syntax(FUNC, s));
            }
            n = n * 10 + i64::from(c - b'0');
        }
        return Ok(if s[0] == b'-' { -n } else { n });
    }
    parse_int(s, 10).map_err(|mut e| {
        e.func = FUNC;
        e
    })
}

/// `strconv.ParseBool(s)`.
pub(crate) fn parse_bool(s: &[u8]) -> Result<bool, NumError> {
    match s {
        b"1" | b"t" | b"T" | b"true" | b"TRUE" | b"True" => Ok(true),
        b"0" | b"f" | b"F" | b"false" | b"FALSE" | b"False" => Ok(false),
        _ => Err(NumError::syntax("ParseBool", s)),
    }
}

/// Splits microseconds since the epoch into civil UTC fields.
fn utc_fields(micros: i64) -> (i64, u32, u32, i64, i64, i64, i64) {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    (y, m, d, sod / 3600, sod % 3600 / 60, sod % 60, frac)
}

/// Go's year formatting: at least four digits, a minus sign before
/// negative years.
fn push_year(out: &mut String, y: i64) {
    if y < 0 {
        let _ = write!(out, "-{:04}", -y);
    } else {
        let _ = write!(out, "{y:04}");
    }
}

/// `time.UnixMicro(us).In(time.UTC).Format("2006/01/02-15:04:05.000000")`,
/// the layout of cell timestamps in `cbt read` and `cbt lookup`.
pub(crate) fn format_cell_time(micros: i64) -> String {
    let (y, mo, d, h, mi, s, frac) = utc_fields(micros);
    let mut out = String::with_capacity(26);
    push_year(&mut out, y);
    let _ = write!(out, "/{mo:02}/{d:02}-{h:02}:{mi:02}:{s:02}.{frac:06}");
    out
}

/// RFC 3339 in UTC with microseconds, e.g. `2020-09-13T12:26:40.000000Z`.
pub(crate) fn format_rfc3339(micros: i64) -> String {
    let (y, mo, d, h, mi, s, frac) = utc_fields(micros);
    let mut out = String::with_capacity(27);
    push_year(&mut out, y);
    let _ = write!(out, "-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{frac:06}Z");
    out
}

/// Parses an RFC 3339 timestamp (`2020-09-13T12:26:40Z`,
/// `2020-09-13T12:26:40.5+02:00`) into microseconds since the epoch.
pub(crate) fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut frac_micros = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let digits = &s[start..i];
        let mut scale = 100_000i64;
        for c in digits.bytes().take(6) {
            frac_micros += i64::from(c - b'0') * scale;
            scale /= 10;
        }
    }
    let offset_secs = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let oh = num(i + 1..i + 3)?;
            let om = num(i + 4..i + 6)?;
            let off = oh * 3600 + om * 60;
            if *sign == b'-' { -off } else { off }
        }
        _ => return None,
    };
    // Lossless: both were checked against 1..=12 and 1..=31 above.
    let days = days_from_civil(y, mo as u32, d as u32);
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_secs;
    secs.checked_mul(1_000_000)?.checked_add(frac_micros)
}

/// Lays out tab-separated cells like Go's
/// `tabwriter.NewWriter(w, 10, 8, 4, '\t', 0)` (minimum width 10, tab width
/// 8, padding 4, padded with tabs). Each line is a list of cells; the last
/// cell of a line is the text after its last tab and belongs to no column.
pub(crate) fn tabwrite(lines: &[Vec<Vec<u8>>]) -> Vec<u8> {
    const MIN_WIDTH: usize = 10;
    const TAB_WIDTH: usize = 8;
    const PADDING: usize = 4;

    fn write_lines(out: &mut Vec<u8>, lines: &[Vec<Vec<u8>>], widths: &[usize]) {
        for line in lines {
            for (j, cell) in line.iter().enumerate() {
                out.extend_from_slice(cell);
                if j < widths.len() && j + 1 < line.len() {
                    // Padding with tabs: round the column width up to a
                    // multiple of the tab width, then fill with tabs.
                    let text = rune_count(cell);
                    let cellw = widths[j].div_ceil(TAB_WIDTH) * TAB_WIDTH;
                    let n = cellw.saturating_sub(text);
                    out.resize(out.len() + n.div_ceil(TAB_WIDTH), b'\t');
                }
            }
            out.push(b'\n');
        }
    }

    fn format(out: &mut Vec<u8>, lines: &[Vec<Vec<u8>>], widths: &mut Vec<usize>) {
        let column = widths.len();
        let mut line0 = 0;
        let mut this = 0;
        while this < lines.len() {
            if column + 1 >= lines[this].len() {
                this += 1;
                continue;
            }
            write_lines(out, &lines[line0..this], widths);
            line0 = this;
            let mut width = MIN_WIDTH;
            while this < lines.len() && column + 1 < lines[this].len() {
                width = width.max(rune_count(&lines[this][column]) + PADDING);
                this += 1;
            }
            widths.push(width);
            format(out, &lines[line0..this], widths);
            widths.pop();
            line0 = this;
        }
        write_lines(out, &lines[line0..], widths);
    }

    let mut out = Vec::new();
    format(&mut out, lines, &mut Vec::new());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_matches_go_percent_q() {
        assert_eq!(quote(b"hello"), "\"hello\"");
        assert_eq!(
            quote(
                b"tab\there\x01\x7f\xc3\xa9\xe2\x80\x8b\xf0\x9f\x98\x80\xed\xa0\x80\xc2\xa0\"\\x"
            ),
            "\"tab\\there\\x01\\x7fé\\u200b😀\\xed\\xa0\\x80\\u00a0\\\"\\\\x\""
        );
        assert_eq!(quote(b"\x07\x08\x0c\x0b\r"), "\"\\a\\b\\f\\v\\r\"");
        assert_eq!(
            quote(b"\0\0\0\0\0\0\0\x0c"),
            "\"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\f\""
        );
        assert_eq!(quote_rune('-'), "'-'");
        assert_eq!(quote_rune('\''), "'\\''");
    }

    #[test]
    fn parse_int_follows_go_literal_syntax() {
        assert_eq!(parse_int(b"1_000", 0), Ok(1000));
        assert_eq!(parse_int(b"0x10", 0), Ok(16));
        assert_eq!(parse_int(b"010", 0), Ok(8));
        assert_eq!(parse_int(b"+5", 0), Ok(5));
        assert_eq!(parse_int(b"-1", 0), Ok(-1));
        assert_eq!(parse_int(b"-9223372036854775808", 0), Ok(i64::MIN));
        assert!(parse_int(b"08", 0).is_err());
        assert!(parse_int(b"1__0", 0).is_err());
        assert_eq!(
            parse_int(b"99999999999999999999", 0)
                .unwrap_err()
                .to_string(),
            "strconv.ParseInt: parsing \"99999999999999999999\": value out of range"
        );
        assert_eq!(
            parse_int(b"x", 0).unwrap_err().to_string(),
            "strconv.ParseInt: parsing \"x\": invalid syntax"
        );
        assert_eq!(atoi(b"+1"), Ok(1));
        assert_eq!(
            atoi(b"x").unwrap_err().to_string(),
            "strconv.Atoi: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            parse_uint(b"70000", 10, 16).unwrap_err().to_string(),
            "strconv.ParseUint: parsing \"70000\": value out of range"
        );
        assert_eq!(parse_bool(b"T"), Ok(true));
        assert!(parse_bool(b"yes").is_err());
    }

    #[test]
    fn cell_times_format_like_go() {
        assert_eq!(format_cell_time(1000), "1970/01/01-00:00:00.001000");
        assert_eq!(
            format_cell_time(1_600_000_000_000_000),
            "2020/09/13-12:26:40.000000"
        );
        assert_eq!(
            format_cell_time(9_223_372_036_854_775_000),
            "294247/01/10-04:00:54.775000"
        );
        assert_eq!(
            format_cell_time(253_402_300_800_000_000),
            "10000/01/01-00:00:00.000000"
        );
        assert_eq!(format_cell_time(-1), "1969/12/31-23:59:59.999999");
    }

    #[test]
    fn rfc3339_round_trips() {
        let t = 1_600_000_000_123_456;
        assert_eq!(parse_rfc3339(&format_rfc3339(t)), Some(t));
        assert_eq!(
            parse_rfc3339("2020-09-13T14:26:40+02:00"),
            Some(1_600_000_000_000_000)
        );
        assert_eq!(parse_rfc3339("2020-09-13"), None);
    }

    #[test]
    fn tabwriter_pads_with_tabs() {
        let lines = vec![
            vec![
                b"Family Name".to_vec(),
                b"GC Policy".to_vec(),
                b"Value Type".to_vec(),
            ],
            vec![b"a".to_vec(), b"".to_vec(), b"{}".to_vec()],
        ];
        assert_eq!(
            String::from_utf8(tabwrite(&lines)).unwrap(),
            "Family Name\tGC Policy\tValue Type\na\t\t\t\t{}\n"
        );
    }
}
