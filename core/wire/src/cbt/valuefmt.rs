//! How `read` and `lookup` print cell values: Go's `%q` by default, or as
//! a `format-file=` says.
//!
//! A format file is YAML:
//!
//! ```yaml
//! default_encoding: hex          # for every column not listed below
//! default_type: ...
//! columns:                       # by qualifier, in any family
//!   size: {encoding: BigEndian, type: uint32}
//! families:
//!   stats:
//!     default_encoding: json
//!     columns:
//!       raw: {encoding: hex}
//! ```
//!
//! Encodings (case-insensitive): `hex`/`h` (bytes as `68 65 6c`),
//! `bigendian`/`b`/`binary` and `littleendian` (with a type `int8` ...
//! `uint64`, `float32`, `float64`; several values print as `[1 2 3]`),
//! `json`/`j` (pretty-printed as `cbt` does). `protocolbuffer` needs
//! `.proto` files, which the playground cannot read: naming definitions is
//! an error. The output, including `cbt`'s quirks (`int8` and `uint8`
//! require an even number of bytes; `L` is not accepted as an alias), is
//! `cbt`'s. YAML is read in its common block and flow forms; error messages
//! for malformed YAML are the playground's own.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::gostr::{quote, rune_count};

/// The encoding and type of one column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ColumnFormat {
    encoding: String,
    ctype: String,
}

/// Defaults and columns of one family.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct FamilyFormat {
    default_encoding: String,
    default_type: String,
    columns: BTreeMap<String, ColumnFormat>,
}

/// The value formatting of one `read` or `lookup`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ValueFormatting {
    default_encoding: String,
    default_type: String,
    columns: BTreeMap<String, ColumnFormat>,
    families: BTreeMap<String, FamilyFormat>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    None,
    BigEndian,
    LittleEndian,
    ProtocolBuffer,
    Hex,
    Json,
}

fn encoding(name: &str) -> Result<Encoding, String> {
    // `cbt` looks the lower-cased name up in a table whose little-endian
    // alias is an upper-case "L", so that alias never matches.
    Ok(match name.to_lowercase().as_str() {
        "bigendian" | "b" | "binary" => Encoding::BigEndian,
        "hex" | "h" => Encoding::Hex,
        "j" | "json" => Encoding::Json,
        "littleendian" => Encoding::LittleEndian,
        "protocolbuffer" | "protocol-buffer" | "protocol_buffer" | "proto" | "p" => {
            Encoding::ProtocolBuffer
        }
        "" => Encoding::None,
        _ => return Err(format!("invalid encoding: {name}")),
    })
}

const BINARY_TYPES: &[&str] = &[
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
];

/// `cbt`'s `validateFormat`: the encoding, and the (lower-cased) type.
fn validate(column: &str, enc_name: &str, ctype: &str) -> Result<(Encoding, String), String> {
    let enc = encoding(enc_name)?;
    match enc {
        Encoding::BigEndian | Encoding::LittleEndian => {
            if ctype.is_empty() {
                return Err(format!("no type specified for encoding: {enc_name}"));
            }
            let lower = ctype.to_lowercase();
            if !BINARY_TYPES.contains(&lower.as_str()) {
                return Err(format!("invalid type: {ctype} for encoding: {enc_name}"));
            }
            Ok((enc, lower))
        }
        Encoding::ProtocolBuffer => {
            // No message types are ever loaded here.
            let ctype = if ctype.is_empty() { column } else { ctype };
            Err(format!("invalid type: {ctype} for encoding: {enc_name}"))
        }
        _ => Ok((enc, ctype.to_string())),
    }
}

fn over(old: &str, new: &str) -> String {
    if new.is_empty() { old } else { new }.to_string()
}

impl ValueFormatting {
    /// The formatting a format file describes; errors read as `cbt`'s
    /// (`bad encoding and types:` ...).
    pub(crate) fn setup(text: &[u8]) -> Result<ValueFormatting, String> {
        let text = String::from_utf8_lossy(text);
        let doc = yaml::parse(&text)?;
        let f = from_yaml(&doc)?;
        // cbt's validateColumns: every listed column must make sense.
        let mut errs = Vec::new();
        for (cname, col) in &f.columns {
            if let Err(e) = validate(
                cname,
                &over(&f.default_encoding, &col.encoding),
                &over(&f.default_type, &col.ctype),
            ) {
                errs.push(format!("{cname}: {e}"));
            }
        }
        for (fname, fam) in &f.families {
            let fenc = over(&f.default_encoding, &fam.default_encoding);
            let ftype = over(&f.default_type, &fam.default_type);
            for (cname, col) in &fam.columns {
                if let Err(e) = validate(
                    cname,
                    &over(&fenc, &col.encoding),
                    &over(&ftype, &col.ctype),
                ) {
                    errs.push(format!("{fname}:{cname}: {e}"));
                }
            }
        }
        if !errs.is_empty() {
            return Err(format!("bad encoding and types:\n{}", errs.join("\n")));
        }
        Ok(f)
    }

    /// `cbt`'s `colEncodingType`: family settings win over column settings,
    /// which win over the defaults.
    fn encoding_and_type(&self, family: &str, column: &str) -> (String, String) {
        if let Some(fam) = self.families.get(family) {
            let fenc = over(&self.default_encoding, &fam.default_encoding);
            let ftype = over(&self.default_type, &fam.default_type);
            return match fam.columns.get(column) {
                Some(col) => (over(&fenc, &col.encoding), over(&ftype, &col.ctype)),
                None => (fenc, ftype),
            };
        }
        match self.columns.get(column) {
            Some(col) => (
                over(&self.default_encoding, &col.encoding),
                over(&self.default_type, &col.ctype),
            ),
            None => (self.default_encoding.clone(), self.default_type.clone()),
        }
    }

    /// Formats one value (possibly over several lines, without the final
    /// newline). The error is what `cbt` stops with.
    pub(crate) fn format(
        &self,
        family: &[u8],
        qualifier: &[u8],
        value: &[u8],
    ) -> Result<String, String> {
        let family = String::from_utf8_lossy(family);
        let column = String::from_utf8_lossy(qualifier);
        let (enc_name, ctype) = self.encoding_and_type(&family, &column);
        let (enc, ctype) = validate(&column, &enc_name, &ctype)?;
        match enc {
            Encoding::None => Ok(quote(value)),
            Encoding::Hex => {
                let mut s = String::with_capacity(value.len() * 3);
                for (i, b) in value.iter().enumerate() {
                    if i > 0 {
                        s.push(' ');
                    }
                    let _ = write!(s, "{b:02x}");
                }
                Ok(s)
            }
            Encoding::BigEndian | Encoding::LittleEndian => {
                binary(value, &ctype, enc == Encoding::BigEndian)
            }
            Encoding::Json => json(value),
            Encoding::ProtocolBuffer => {
                Err(format!("invalid type: {ctype} for encoding: {enc_name}"))
            }
        }
    }
}

/// `cbt`'s binary formatter: the value as an array of `ctype`, printed as
/// Go prints a slice (`[1 2 3]`), or a bare number when it holds exactly one
/// element's worth of bytes.
fn binary(value: &[u8], ctype: &str, big: bool) -> Result<String, String> {
    // cbt checks int8 and uint8 values against an element size of 2.
    let (size, check) = match ctype {
        "int8" | "uint8" => (1, 2),
        "int16" | "uint16" => (2, 2),
        "int32" | "uint32" | "float32" => (4, 4),
        _ => (8, 8),
    };
    if !value.len().is_multiple_of(check) {
        return Err(format!(
            "data size, {}, isn't a multiple of element size, {check}",
            value.len()
        ));
    }
    let mut items = Vec::with_capacity(value.len() / size);
    for chunk in value.chunks_exact(size) {
        let mut b = [0u8; 8];
        if big {
            b[8 - size..].copy_from_slice(chunk);
        } else {
            b[..size].copy_from_slice(chunk);
        }
        let raw = if big {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        };
        // Truncating casts reinterpret the element's bits, as Go's
        // binary.Read does.
        #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
        let text = match ctype {
            "int8" => (raw as u8 as i8).to_string(),
            "int16" => (raw as u16 as i16).to_string(),
            "int32" => (raw as u32 as i32).to_string(),
            "int64" => (raw as i64).to_string(),
            "uint8" | "uint16" | "uint32" | "uint64" => raw.to_string(),
            "float32" => go_float(f64::from(f32::from_bits(raw as u32)), true),
            _ => go_float(f64::from_bits(raw), false),
        };
        items.push(text);
    }
    let joined = items.join(" ");
    if value.len() == check {
        Ok(joined)
    } else {
        Ok(format!("[{joined}]"))
    }
}

/// Go's `%v` for a float: the shortest representation, in exponent form
/// when the exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`).
pub(crate) fn go_float(v: f64, is_f32: bool) -> String {
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    #[allow(clippy::cast_possible_truncation)]
    let sci = if is_f32 {
        format!("{:e}", v as f32)
    } else {
        format!("{v:e}")
    };
    let (neg, sci) = match sci.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, sci),
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if digits.bytes().all(|b| b == b'0') {
        out.push('0');
        return out;
    }
    let nd = i64::try_from(digits.len()).unwrap_or(1);
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exp.abs());
        return out;
    }
    let dp = exp + 1;
    if dp <= 0 {
        out.push_str("0.");
        for _ in 0..-dp {
            out.push('0');
        }
        out.push_str(&digits);
    } else if dp >= nd {
        out.push_str(&digits);
        for _ in 0..dp - nd {
            out.push('0');
        }
    } else {
        let dp = usize::try_from(dp).unwrap_or(0);
        out.push_str(&digits[..dp]);
        out.push('.');
        out.push_str(&digits[dp..]);
    }
    out
}

/// Go's `%6q` of a string: quoted, right-aligned in six runes.
fn quoted6(s: &str) -> String {
    let q = quote(s.as_bytes());
    let n = rune_count(q.as_bytes());
    format!("{}{q}", " ".repeat(6usize.saturating_sub(n)))
}

/// `cbt`'s JSON formatter: objects as `key: value` lines (keys sorted),
/// arrays in brackets one element per line, numbers as `%6.2f`, strings
/// as `%6q`, indented two spaces per level.
fn json(value: &[u8]) -> Result<String, String> {
    use serde_json::Value;
    fn fmat(v: &Value, indent: &str) -> String {
        match v {
            Value::String(s) => format!("{indent}{}", quoted6(s)),
            Value::Number(n) => format!("{indent}{:6.2}", n.as_f64().unwrap_or(0.0)),
            Value::Array(items) => {
                let mut s = format!("\n{indent}[\n");
                let inner = format!("  {indent}");
                for item in items {
                    s.push_str(&fmat(item, &inner));
                    s.push('\n');
                }
                s.push_str(indent);
                s.push(']');
                s
            }
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let inner = format!("  {indent}");
                let mut s = String::from("\n");
                for k in keys {
                    let fv = fmat(&map[k], &inner);
                    let _ = writeln!(s, "{indent}{k}: {fv}");
                }
                s
            }
            Value::Bool(b) => b.to_string(),
            Value::Null => "<nil>".to_string(),
        }
    }
    check_json(value)?;
    let v: Value = match serde_json::from_slice(value) {
        Ok(v) => v,
        // Go replaces invalid UTF-8 in strings; so does a lossy copy.
        Err(_) => {
            serde_json::from_str(&String::from_utf8_lossy(value)).map_err(|e| e.to_string())?
        }
    };
    Ok(fmat(&v, "").trim_start_matches('\n').to_string())
}

/// Go's `quoteChar` for JSON syntax errors: `'x'`, `'\n'`, `'\''`.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".to_string(),
        b'"' => "'\"'".to_string(),
        _ => {
            let q = quote(char::from(c).to_string().as_bytes());
            format!("'{}'", &q[1..q.len() - 1])
        }
    }
}

/// Checks JSON syntax the way Go's `encoding/json` scanner does, so a bad
/// value fails with Go's words (`invalid character 'o' in literal null
/// (expecting 'u')`, `unexpected end of JSON input`).
fn check_json(data: &[u8]) -> Result<(), String> {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum St {
        BeginValue,
        BeginValueOrEmpty,
        BeginStringOrEmpty,
        BeginString,
        EndValue,
        EndTop,
        InString,
        InStringEsc,
        InStringEscU(u8),
        Neg,
        One,
        Zero,
        Dot,
        Dot0,
        E,
        ESign,
        E0,
        Lit(&'static [u8], usize, &'static str),
    }
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Ps {
        ObjectKey,
        ObjectValue,
        ArrayValue,
    }
    let err = |c: u8, ctx: &str| Err(format!("invalid character {} {ctx}", quote_char(c)));
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let mut stack: Vec<Ps> = Vec::new();
    let mut st = St::BeginValue;
    // One step of the scanner; `Ok(false)` means "re-examine c in the new
    // state" (Go's states that hand the byte on).
    let step = |st: &mut St, stack: &mut Vec<Ps>, c: u8| -> Result<bool, String> {
        match *st {
            St::BeginValueOrEmpty if space(c) => {}
            St::BeginValueOrEmpty if c == b']' => {
                stack.pop();
                *st = St::EndValue;
            }
            St::BeginValueOrEmpty => {
                *st = St::BeginValue;
                return Ok(false);
            }
            St::BeginValue => match c {
                _ if space(c) => {}
                b'{' => {
                    stack.push(Ps::ObjectKey);
                    *st = St::BeginStringOrEmpty;
                }
                b'[' => {
                    stack.push(Ps::ArrayValue);
                    *st = St::BeginValueOrEmpty;
                }
                b'"' => *st = St::InString,
                b'-' => *st = St::Neg,
                b'0' => *st = St::Zero,
                b'1'..=b'9' => *st = St::One,
                b't' => *st = St::Lit(b"rue", 0, "true"),
                b'f' => *st = St::Lit(b"alse", 0, "false"),
                b'n' => *st = St::Lit(b"ull", 0, "null"),
                _ => return err(c, "looking for beginning of value"),
            },
            St::BeginStringOrEmpty if space(c) => {}
            St::BeginStringOrEmpty if c == b'}' => {
                stack.pop();
                *st = St::EndValue;
            }
            St::BeginStringOrEmpty => {
                *st = St::BeginString;
                return Ok(false);
            }
            St::BeginString => match c {
                _ if space(c) => {}
                b'"' => *st = St::InString,
                _ => return err(c, "looking for beginning of object key string"),
            },
            St::EndValue => {
                let Some(&top) = stack.last() else {
                    *st = St::EndTop;
                    return Ok(false);
                };
                if space(c) {
                    return Ok(true);
                }
                match (top, c) {
                    (Ps::ObjectKey, b':') => {
                        *stack.last_mut().expect("non-empty") = Ps::ObjectValue;
                        *st = St::BeginValue;
                    }
                    (Ps::ObjectKey, _) => return err(c, "after object key"),
                    (Ps::ObjectValue, b',') => {
                        *stack.last_mut().expect("non-empty") = Ps::ObjectKey;
                        *st = St::BeginString;
                    }
                    (Ps::ObjectValue, b'}') => {
                        stack.pop();
                    }
                    (Ps::ObjectValue, _) => return err(c, "after object key:value pair"),
                    (Ps::ArrayValue, b',') => *st = St::BeginValue,
                    (Ps::ArrayValue, b']') => {
                        stack.pop();
                    }
                    (Ps::ArrayValue, _) => return err(c, "after array element"),
                }
            }
            St::EndTop => {
                if !space(c) {
                    return err(c, "after top-level value");
                }
            }
            St::InString => match c {
                b'"' => *st = St::EndValue,
                b'\\' => *st = St::InStringEsc,
                _ if c < 0x20 => return err(c, "in string literal"),
                _ => {}
            },
            St::InStringEsc => match c {
                b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => *st = St::InString,
                b'u' => *st = St::InStringEscU(0),
                _ => return err(c, "in string escape code"),
            },
            St::InStringEscU(n) => {
                if !c.is_ascii_hexdigit() {
                    return err(c, "in \\u hexadecimal character escape");
                }
                *st = if n == 3 {
                    St::InString
                } else {
                    St::InStringEscU(n + 1)
                };
            }
            St::Neg => match c {
                b'0' => *st = St::Zero,
                b'1'..=b'9' => *st = St::One,
                _ => return err(c, "in numeric literal"),
            },
            St::One if c.is_ascii_digit() => {}
            St::One | St::Zero => match c {
                b'.' => *st = St::Dot,
                b'e' | b'E' => *st = St::E,
                _ => {
                    *st = St::EndValue;
                    return Ok(false);
                }
            },
            St::Dot => {
                if !c.is_ascii_digit() {
                    return err(c, "after decimal point in numeric literal");
                }
                *st = St::Dot0;
            }
            St::Dot0 => match c {
                _ if c.is_ascii_digit() => {}
                b'e' | b'E' => *st = St::E,
                _ => {
                    *st = St::EndValue;
                    return Ok(false);
                }
            },
            St::E => {
                if c == b'+' || c == b'-' {
                    *st = St::ESign;
                } else {
                    *st = St::ESign;
                    return Ok(false);
                }
            }
            St::ESign => {
                if !c.is_ascii_digit() {
                    return err(c, "in exponent of numeric literal");
                }
                *st = St::E0;
            }
            St::E0 => {
                if !c.is_ascii_digit() {
                    *st = St::EndValue;
                    return Ok(false);
                }
            }
            St::Lit(rest, i, word) => {
                if c != rest[i] {
                    let want = quote_char(rest[i]);
                    return err(c, &format!("in literal {word} (expecting {want})"));
                }
                *st = if i + 1 == rest.len() {
                    St::EndValue
                } else {
                    St::Lit(rest, i + 1, word)
                };
            }
        }
        Ok(true)
    };
    for &c in data {
        while !step(&mut st, &mut stack, c)? {}
    }
    // End of input: a space finishes a trailing number.
    if st != St::EndTop {
        while !step(&mut st, &mut stack, b' ')? {}
    }
    if st == St::EndTop || (st == St::EndValue && stack.is_empty()) {
        Ok(())
    } else {
        Err("unexpected end of JSON input".to_string())
    }
}

/// Reads the settings out of a parsed YAML document, as `yaml.UnmarshalStrict`
/// into `cbt`'s settings struct would.
fn from_yaml(doc: &yaml::Node) -> Result<ValueFormatting, String> {
    use yaml::Node;
    fn unmarshal_error(line: usize, what: &str) -> String {
        format!("yaml: unmarshal errors:\n  line {line}: {what}")
    }
    fn scalar(n: &Node, into: &str) -> Result<String, String> {
        match n {
            Node::Scalar(s, _) => Ok(s.clone()),
            Node::Null => Ok(String::new()),
            other => Err(unmarshal_error(
                other.line(),
                &format!("cannot unmarshal {} into {into}", other.kind()),
            )),
        }
    }
    fn strings(n: &Node) -> Result<Vec<String>, String> {
        match n {
            Node::Seq(items, _) => items.iter().map(|i| scalar(i, "string")).collect(),
            Node::Null => Ok(Vec::new()),
            other => Err(unmarshal_error(
                other.line(),
                &format!("cannot unmarshal {} into []string", other.kind()),
            )),
        }
    }
    fn entries<'a>(n: &'a Node, into: &str) -> Result<&'a [(String, Node, usize)], String> {
        match n {
            Node::Map(entries, _) => Ok(entries),
            Node::Null => Ok(&[]),
            other => Err(unmarshal_error(
                other.line(),
                &format!("cannot unmarshal {} into {into}", other.kind()),
            )),
        }
    }
    fn column(n: &Node) -> Result<ColumnFormat, String> {
        let mut c = ColumnFormat::default();
        for (k, v, line) in entries(n, "main.valueFormatColumn")? {
            match k.as_str() {
                "encoding" => c.encoding = scalar(v, "string")?,
                "type" => c.ctype = scalar(v, "string")?,
                _ => {
                    return Err(unmarshal_error(
                        *line,
                        &format!("field {k} not found in type main.valueFormatColumn"),
                    ));
                }
            }
        }
        Ok(c)
    }
    fn columns(n: &Node) -> Result<BTreeMap<String, ColumnFormat>, String> {
        let mut out = BTreeMap::new();
        for (k, v, _) in entries(n, "map[string]main.valueFormatColumn")? {
            out.insert(k.clone(), column(v)?);
        }
        Ok(out)
    }
    let mut f = ValueFormatting::default();
    let mut definitions = Vec::new();
    for (k, v, line) in entries(doc, "main.valueFormatSettings")? {
        match k.as_str() {
            "protocol_buffer_definitions" => definitions = strings(v)?,
            "protocol_buffer_paths" => {
                strings(v)?;
            }
            "default_encoding" => f.default_encoding = scalar(v, "string")?,
            "default_type" => f.default_type = scalar(v, "string")?,
            "columns" => f.columns = columns(v)?,
            "families" => {
                for (fname, fv, _) in entries(v, "map[string]main.valueFormatFamily")? {
                    let mut fam = FamilyFormat::default();
                    for (fk, fvv, fline) in entries(fv, "main.valueFormatFamily")? {
                        match fk.as_str() {
                            "default_encoding" => fam.default_encoding = scalar(fvv, "string")?,
                            "default_type" => fam.default_type = scalar(fvv, "string")?,
                            "columns" => fam.columns = columns(fvv)?,
                            _ => {
                                return Err(unmarshal_error(
                                    *fline,
                                    &format!("field {fk} not found in type main.valueFormatFamily"),
                                ));
                            }
                        }
                    }
                    f.families.insert(fname.clone(), fam);
                }
            }
            _ => {
                return Err(unmarshal_error(
                    *line,
                    &format!("field {k} not found in type main.valueFormatSettings"),
                ));
            }
        }
    }
    if !definitions.is_empty() {
        return Err(format!(
            "protocol_buffer_definitions ({}): the Tabletop playground cannot read .proto files, \
             so protocol-buffer formatting is not available",
            definitions.join(", ")
        ));
    }
    Ok(f)
}

/// A small YAML reader: block mappings and sequences by indentation, flow
/// sequences and mappings of scalars, plain and quoted scalars, comments.
mod yaml {
    /// A YAML value with the line it starts on.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub(super) enum Node {
        Null,
        Scalar(String, usize),
        Seq(Vec<Node>, usize),
        Map(Vec<(String, Node, usize)>, usize),
    }

    impl Node {
        pub(super) fn line(&self) -> usize {
            match self {
                Node::Null => 0,
                Node::Scalar(_, l) | Node::Seq(_, l) | Node::Map(_, l) => *l,
            }
        }

        pub(super) fn kind(&self) -> &'static str {
            match self {
                Node::Null => "!!null",
                Node::Scalar(..) => "!!str",
                Node::Seq(..) => "!!seq",
                Node::Map(..) => "!!map",
            }
        }
    }

    struct Line {
        no: usize,
        indent: usize,
        text: String,
    }

    /// Removes a comment (`#` at the start or after a blank, outside quotes).
    fn strip_comment(s: &str) -> &str {
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        for (i, c) in s.char_indices() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '"' || c == '\'' => quote = Some(c),
                None if c == '#' && (prev == ' ' || prev == '\t') => return &s[..i],
                None => {}
            }
            prev = c;
        }
        s
    }

    fn unquote(s: &str, line: usize) -> Result<String, String> {
        let s = s.trim();
        if let Some(body) = s.strip_prefix('"') {
            let body = body
                .strip_suffix('"')
                .ok_or_else(|| format!("yaml: line {line}: found unexpected end of stream"))?;
            let mut out = String::new();
            let mut chars = body.chars();
            while let Some(c) = chars.next() {
                if c != '\\' {
                    out.push(c);
                    continue;
                }
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(e) => out.push(e),
                    None => out.push('\\'),
                }
            }
            return Ok(out);
        }
        if let Some(body) = s.strip_prefix('\'') {
            let body = body
                .strip_suffix('\'')
                .ok_or_else(|| format!("yaml: line {line}: found unexpected end of stream"))?;
            return Ok(body.replace("''", "'"));
        }
        Ok(s.to_string())
    }

    /// Splits `key: value` (the colon must be followed by a blank or end
    /// the text); `None` when the text is not a mapping entry.
    fn split_key(text: &str) -> Option<(&str, &str)> {
        let mut quote: Option<char> = None;
        let b = text.as_bytes();
        for (i, c) in text.char_indices() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if (c == '"' || c == '\'') && i == 0 => quote = Some(c),
                None if c == ':' && (i + 1 == b.len() || b[i + 1] == b' ') => {
                    return Some((&text[..i], text[i + 1..].trim()));
                }
                None => {}
            }
        }
        None
    }

    fn flow_items(inner: &str) -> Vec<&str> {
        inner
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect()
    }

    fn inline(text: &str, line: usize) -> Result<Node, String> {
        let text = text.trim();
        if text.is_empty() || text == "~" || text == "null" {
            return Ok(Node::Null);
        }
        if let Some(inner) = text.strip_prefix('[') {
            let inner = inner
                .strip_suffix(']')
                .ok_or_else(|| format!("yaml: line {line}: did not find expected ',' or ']'"))?;
            let items = flow_items(inner)
                .into_iter()
                .map(|s| unquote(s, line).map(|v| Node::Scalar(v, line)))
                .collect::<Result<_, _>>()?;
            return Ok(Node::Seq(items, line));
        }
        if let Some(inner) = text.strip_prefix('{') {
            let inner = inner
                .strip_suffix('}')
                .ok_or_else(|| format!("yaml: line {line}: did not find expected ',' or '}}'"))?;
            let mut entries = Vec::new();
            for item in flow_items(inner) {
                let (k, v) = split_key(item)
                    .ok_or_else(|| format!("yaml: line {line}: did not find expected ':'"))?;
                entries.push((unquote(k, line)?, inline(v, line)?, line));
            }
            return Ok(Node::Map(entries, line));
        }
        Ok(Node::Scalar(unquote(text, line)?, line))
    }

    fn block(lines: &[Line], i: &mut usize, indent: usize) -> Result<Node, String> {
        let Some(first) = lines.get(*i) else {
            return Ok(Node::Null);
        };
        let start = first.no;
        if first.text == "-" || first.text.starts_with("- ") {
            let mut items = Vec::new();
            while let Some(l) = lines.get(*i) {
                if l.indent != indent || !(l.text == "-" || l.text.starts_with("- ")) {
                    break;
                }
                let rest = l.text[1..].trim();
                *i += 1;
                if rest.is_empty() {
                    match lines.get(*i) {
                        Some(n) if n.indent > indent => {
                            let ind = n.indent;
                            items.push(block(lines, i, ind)?);
                        }
                        _ => items.push(Node::Null),
                    }
                } else {
                    items.push(inline(rest, l.no)?);
                }
            }
            return Ok(Node::Seq(items, start));
        }
        let mut entries = Vec::new();
        while let Some(l) = lines.get(*i) {
            if l.indent < indent {
                break;
            }
            if l.indent > indent {
                return Err(format!(
                    "yaml: line {}: mapping values are not allowed in this context",
                    l.no
                ));
            }
            let (k, v) = split_key(&l.text)
                .ok_or_else(|| format!("yaml: line {}: could not find expected ':'", l.no))?;
            let key = unquote(k, l.no)?;
            *i += 1;
            let value = if v.is_empty() {
                match lines.get(*i) {
                    Some(n) if n.indent > indent => {
                        let ind = n.indent;
                        block(lines, i, ind)?
                    }
                    Some(n)
                        if n.indent == indent && (n.text == "-" || n.text.starts_with("- ")) =>
                    {
                        block(lines, i, indent)?
                    }
                    _ => Node::Null,
                }
            } else {
                inline(v, l.no)?
            };
            entries.push((key, value, l.no));
        }
        Ok(Node::Map(entries, start))
    }

    /// Parses a document.
    pub(super) fn parse(text: &str) -> Result<Node, String> {
        let mut lines = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let no = n + 1;
            if raw.trim() == "---" {
                continue;
            }
            let content = strip_comment(raw).trim_end();
            if content.trim().is_empty() {
                continue;
            }
            let indent = content.len() - content.trim_start_matches(' ').len();
            if content[indent..].starts_with('\t') {
                return Err(format!(
                    "yaml: line {no}: found character that cannot start any token"
                ));
            }
            lines.push(Line {
                no,
                indent,
                text: content[indent..].to_string(),
            });
        }
        let mut i = 0;
        let indent = lines.first().map_or(0, |l| l.indent);
        let node = block(&lines, &mut i, indent)?;
        if let Some(l) = lines.get(i) {
            return Err(format!("yaml: line {}: did not find expected key", l.no));
        }
        Ok(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_go() {
        assert_eq!(go_float(1.5, false), "1.5");
        assert_eq!(go_float(1e6, false), "1e+06");
        assert_eq!(go_float(123_456.0, false), "123456");
        assert_eq!(go_float(1_234_567.0, false), "1.234567e+06");
        assert_eq!(go_float(0.000_123_4, false), "0.0001234");
        assert_eq!(go_float(0.000_012_34, false), "1.234e-05");
        assert_eq!(go_float(3.25, true), "3.25");
        assert_eq!(go_float(0.1, true), "0.1");
        assert_eq!(go_float(-0.0, false), "-0");
        assert_eq!(go_float(1e100, false), "1e+100");
        assert_eq!(go_float(f64::INFINITY, false), "+Inf");
    }

    #[test]
    fn format_files_drive_the_output() {
        let f = ValueFormatting::setup(
            b"columns:\n  hex:\n    encoding: hex\n  be: {encoding: BigEndian, type: int32}\n  i8:\n    encoding: binary\n    type: INT8\n  arr: {encoding: b, type: int16}\nfamilies:\n  js:\n    default_encoding: json\n    columns:\n      bad:\n        encoding: hex\n",
        )
        .unwrap();
        assert_eq!(f.format(b"cf", b"hex", b"hello").unwrap(), "68 65 6c 6c 6f");
        assert_eq!(
            f.format(b"cf", b"be", &256i32.to_be_bytes()).unwrap(),
            "256"
        );
        assert_eq!(f.format(b"cf", b"i8", b"\x01\xff").unwrap(), "1 -1");
        assert_eq!(
            f.format(b"cf", b"arr", b"\x00\x01\x00\x02\xff\xfd")
                .unwrap(),
            "[1 2 -3]"
        );
        assert_eq!(f.format(b"cf", b"other", b"x").unwrap(), "\"x\"");
        assert_eq!(f.format(b"js", b"bad", b"nope").unwrap(), "6e 6f 70 65");
        assert_eq!(
            f.format(
                b"js",
                b"doc",
                br#"{"b":[1,"x",true,null,{"k":2.5}],"a":"hi","c":false}"#
            )
            .unwrap(),
            "a:     \"hi\"\nb: \n  [\n      1.00\n       \"x\"\ntrue\n<nil>\n\n    k:         2.50\n\n  ]\nc: false\n"
        );
        assert_eq!(f.format(b"js", b"n", b"1000000").unwrap(), "1000000.00");
        for (bad, msg) in [
            (
                &b"nope"[..],
                "invalid character 'o' in literal null (expecting 'u')",
            ),
            (b"", "unexpected end of JSON input"),
            (b"[1,", "unexpected end of JSON input"),
            (
                b"{1}",
                "invalid character '1' looking for beginning of object key string",
            ),
            (b"{\"a\" 1}", "invalid character '1' after object key"),
            (b"[1 2]", "invalid character '2' after array element"),
            (
                b"1.",
                "invalid character ' ' after decimal point in numeric literal",
            ),
            (
                b"1.x",
                "invalid character 'x' after decimal point in numeric literal",
            ),
            (b"\"a\nb\"", "invalid character '\\n' in string literal"),
            (b"{} x", "invalid character 'x' after top-level value"),
            (b"-x", "invalid character 'x' in numeric literal"),
            (
                b"1e+",
                "invalid character ' ' in exponent of numeric literal",
            ),
            (
                b"tru",
                "invalid character ' ' in literal true (expecting 'e')",
            ),
        ] {
            assert_eq!(
                f.format(b"js", b"x", bad).unwrap_err(),
                msg,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        for good in [
            &b" 1 "[..],
            b"-0.5e-3",
            b"[]",
            b"{}",
            b"[[1,2],[]]",
            b"\"\\u00e9\"",
            b"true",
        ] {
            assert!(
                f.format(b"js", b"x", good).is_ok(),
                "{}",
                String::from_utf8_lossy(good)
            );
        }
        assert_eq!(
            f.format(b"cf", b"be", b"\x01").unwrap_err(),
            "data size, 1, isn't a multiple of element size, 4"
        );
    }

    #[test]
    fn bad_format_files_are_reported_like_cbt() {
        assert_eq!(
            ValueFormatting::setup(b"columns:\n  x:\n    encoding: bogus\n").unwrap_err(),
            "bad encoding and types:\nx: invalid encoding: bogus"
        );
        assert_eq!(
            ValueFormatting::setup(b"columns:\n  x:\n    encoding: L\n    type: int8\n")
                .unwrap_err(),
            "bad encoding and types:\nx: invalid encoding: L"
        );
        assert_eq!(
            ValueFormatting::setup(b"bogus: 1\n").unwrap_err(),
            "yaml: unmarshal errors:\n  line 1: field bogus not found in type main.valueFormatSettings"
        );
        assert_eq!(
            ValueFormatting::setup(b"columns:\n  x:\n    encoding: b\n").unwrap_err(),
            "bad encoding and types:\nx: no type specified for encoding: b"
        );
    }
}
