//! A small JSON reader that remembers where every value starts, so that a
//! translation can say "line 12, column 30: AttributeType must be one of
//! ..." about a value that is well-formed JSON but wrong for its place.
//! Numbers keep their text (Oracle NUMBER values and DynamoDB `N` strings
//! must not pass through a float), objects keep their member order.
//!
//! It reads RFC 8259 JSON, one value or (with [`parse_many`]) a sequence
//! of values separated by white space, as in JSON Lines files. Nesting is
//! limited to [`MAX_DEPTH`] levels so hostile input cannot exhaust the
//! stack.

use super::{Input, Pos, TranslateError};

/// Deepest nesting of arrays and objects accepted.
pub(crate) const MAX_DEPTH: usize = 128;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// The number exactly as written.
    Number(String),
    String(String),
    Array(Vec<Node>),
    /// Members in document order (duplicates kept).
    Object(Vec<Member>),
}

/// A value and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub value: Json,
    pub pos: Pos,
}

/// An object member: its key (and where the key starts) and its value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Member {
    pub key: String,
    pub key_pos: Pos,
    pub value: Node,
}

impl Node {
    /// The member `key` of an object (the first, if repeated).
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Json::Object(members) => members.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.value {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Node]> {
        match &self.value {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub(crate) fn as_object(&self) -> Option<&[Member]> {
        match &self.value {
            Json::Object(members) => Some(members),
            _ => None,
        }
    }

    /// What kind of value this is, for messages ("a string", "an object").
    pub(crate) fn kind(&self) -> &'static str {
        match &self.value {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// The value as compact JSON text (numbers as written, members in
    /// order).
    pub(crate) fn to_compact(&self) -> String {
        let mut out = String::new();
        write_compact(&self.value, &mut out);
        out
    }
}

/// Appends `s` as a JSON string literal.
pub(crate) fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

pub(crate) fn write_compact(v: &Json, out: &mut String) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::String(s) => write_string(s, out),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(&item.value, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, m) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(&m.key, out);
                out.push(':');
                write_compact(&m.value.value, out);
            }
            out.push('}');
        }
    }
}

/// Parses exactly one JSON value (white space around it is allowed).
pub(crate) fn parse(text: &str, input: Input) -> Result<Node, TranslateError> {
    let mut p = Parser::new(text, input);
    p.skip_ws();
    if p.at_end() {
        return Err(p.error("expected a JSON value, found the end of the input"));
    }
    let node = p.value(0)?;
    p.skip_ws();
    if !p.at_end() {
        return Err(p.error("unexpected text after the JSON value"));
    }
    Ok(node)
}

/// Parses a sequence of JSON values separated by white space (JSON Lines,
/// or values one after another). An empty text gives no values.
pub(crate) fn parse_many(text: &str, input: Input) -> Result<Vec<Node>, TranslateError> {
    let mut p = Parser::new(text, input);
    let mut out = Vec::new();
    loop {
        p.skip_ws();
        if p.at_end() {
            return Ok(out);
        }
        out.push(p.value(0)?);
    }
}

struct Parser<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
    input: Input,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, input: Input) -> Parser<'a> {
        // A byte-order mark is not part of the JSON.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Parser {
            chars: text.chars().peekable(),
            line: 1,
            column: 1,
            input,
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn error(&self, msg: impl Into<String>) -> TranslateError {
        TranslateError::new(self.input, self.pos(), msg)
    }

    fn at_end(&mut self) -> bool {
        self.chars.peek().is_none()
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.bump();
        }
    }

    fn expect_word(&mut self, word: &str, value: Json, pos: Pos) -> Result<Node, TranslateError> {
        for want in word.chars() {
            match self.peek() {
                Some(c) if c == want => {
                    self.bump();
                }
                _ => {
                    return Err(TranslateError::new(
                        self.input,
                        pos,
                        format!("invalid literal: expected `{word}`"),
                    ));
                }
            }
        }
        Ok(Node { value, pos })
    }

    fn value(&mut self, depth: usize) -> Result<Node, TranslateError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("the JSON nests deeper than {MAX_DEPTH} levels")));
        }
        let pos = self.pos();
        match self.peek() {
            None => Err(self.error("unexpected end of the input: a value is missing")),
            Some('{') => self.object(depth, pos),
            Some('[') => self.array(depth, pos),
            Some('"') => {
                let s = self.string()?;
                Ok(Node {
                    value: Json::String(s),
                    pos,
                })
            }
            Some('t') => self.expect_word("true", Json::Bool(true), pos),
            Some('f') => self.expect_word("false", Json::Bool(false), pos),
            Some('n') => self.expect_word("null", Json::Null, pos),
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let n = self.number()?;
                Ok(Node {
                    value: Json::Number(n),
                    pos,
                })
            }
            Some(c) => {
                Err(self.error(format!("unexpected character {c:?}: expected a JSON value")))
            }
        }
    }

    fn object(&mut self, depth: usize, pos: Pos) -> Result<Node, TranslateError> {
        self.bump();
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some('}') {
            self.bump();
            return Ok(Node {
                value: Json::Object(members),
                pos,
            });
        }
        loop {
            self.skip_ws();
            let key_pos = self.pos();
            if self.peek() != Some('"') {
                return Err(self.error("expected a member name in double quotes"));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(':') {
                return Err(self.error(format!("expected ':' after the member name \"{key}\"")));
            }
            self.bump();
            self.skip_ws();
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_pos,
                value,
            });
            self.skip_ws();
            match self.peek() {
                Some(',') => {
                    self.bump();
                }
                Some('}') => {
                    self.bump();
                    return Ok(Node {
                        value: Json::Object(members),
                        pos,
                    });
                }
                Some(c) => {
                    return Err(self.error(format!(
                        "unexpected character {c:?}: expected ',' or '}}' in the object"
                    )));
                }
                None => return Err(self.error("unexpected end of the input inside an object")),
            }
        }
    }

    fn array(&mut self, depth: usize, pos: Pos) -> Result<Node, TranslateError> {
        self.bump();
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(']') {
            self.bump();
            return Ok(Node {
                value: Json::Array(items),
                pos,
            });
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(',') => {
                    self.bump();
                }
                Some(']') => {
                    self.bump();
                    return Ok(Node {
                        value: Json::Array(items),
                        pos,
                    });
                }
                Some(c) => {
                    return Err(self.error(format!(
                        "unexpected character {c:?}: expected ',' or ']' in the array"
                    )));
                }
                None => return Err(self.error("unexpected end of the input inside an array")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, TranslateError> {
        let mut v = 0u32;
        for _ in 0..4 {
            match self.peek().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    v = v * 16 + d;
                    self.bump();
                }
                None => return Err(self.error("a \\u escape needs four hex digits")),
            }
        }
        Ok(v)
    }

    fn string(&mut self) -> Result<String, TranslateError> {
        self.bump(); // the opening quote
        let mut s = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error("unterminated string"));
            };
            match c {
                '"' => {
                    self.bump();
                    return Ok(s);
                }
                '\\' => {
                    self.bump();
                    let Some(e) = self.peek() else {
                        return Err(self.error("unterminated string"));
                    };
                    let simple = match e {
                        '"' => Some('"'),
                        '\\' => Some('\\'),
                        '/' => Some('/'),
                        'b' => Some('\u{8}'),
                        'f' => Some('\u{c}'),
                        'n' => Some('\n'),
                        'r' => Some('\r'),
                        't' => Some('\t'),
                        _ => None,
                    };
                    if let Some(ch) = simple {
                        self.bump();
                        s.push(ch);
                        continue;
                    }
                    if e != 'u' {
                        return Err(self.error(format!("invalid escape \\{e} in a string")));
                    }
                    self.bump();
                    let hi = self.hex4()?;
                    let code = if (0xd800..0xdc00).contains(&hi) {
                        // A surrogate pair: the low half must follow.
                        if self.peek() != Some('\\') {
                            return Err(self.error(
                                "a high surrogate must be followed by \\u and a low surrogate",
                            ));
                        }
                        self.bump();
                        if self.peek() != Some('u') {
                            return Err(self.error(
                                "a high surrogate must be followed by \\u and a low surrogate",
                            ));
                        }
                        self.bump();
                        let lo = self.hex4()?;
                        if !(0xdc00..0xe000).contains(&lo) {
                            return Err(self.error("invalid low surrogate in a \\u escape"));
                        }
                        0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                    } else {
                        hi
                    };
                    match char::from_u32(code) {
                        Some(ch) => s.push(ch),
                        None => return Err(self.error("a lone surrogate in a \\u escape")),
                    }
                }
                c if u32::from(c) < 0x20 => {
                    return Err(self.error(
                        "a control character (such as a line break) inside a string must be escaped",
                    ));
                }
                c => {
                    self.bump();
                    s.push(c);
                }
            }
        }
    }

    fn digits(&mut self, out: &mut String) -> usize {
        let mut n = 0;
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            out.push(c);
            self.bump();
            n += 1;
        }
        n
    }

    fn number(&mut self) -> Result<String, TranslateError> {
        let mut s = String::new();
        if self.peek() == Some('-') {
            s.push('-');
            self.bump();
        }
        let int_start = s.len();
        if self.digits(&mut s) == 0 {
            return Err(self.error("a number needs digits"));
        }
        if s[int_start..].len() > 1 && s[int_start..].starts_with('0') {
            return Err(self.error("a number must not have leading zeros"));
        }
        if self.peek() == Some('.') {
            s.push('.');
            self.bump();
            if self.digits(&mut s) == 0 {
                return Err(self.error("a number needs digits after the decimal point"));
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            s.push('e');
            self.bump();
            if let Some(c @ ('+' | '-')) = self.peek() {
                s.push(c);
                self.bump();
            }
            if self.digits(&mut s) == 0 {
                return Err(self.error("a number needs digits in its exponent"));
            }
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Node, TranslateError> {
        parse(text, Input::Model)
    }

    #[test]
    fn values_keep_positions_and_number_text() {
        let n = p("{\n  \"a\": [1.50, -2e3, true, null],\n  \"b\": \"x\\u00e9\"\n}").unwrap();
        let a = n.get("a").unwrap();
        assert_eq!(a.pos, Pos { line: 2, column: 8 });
        let items = a.as_array().unwrap();
        assert_eq!(items[0].value, Json::Number("1.50".into()));
        assert_eq!(items[1].value, Json::Number("-2e3".into()));
        assert_eq!(n.get("b").unwrap().as_str(), Some("xé"));
        assert_eq!(n.to_compact(), "{\"a\":[1.50,-2e3,true,null],\"b\":\"xé\"}");
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = p("{\n  \"a\": [1,\n  2 3]\n}").unwrap_err();
        assert_eq!((e.line(), e.column()), (3, 5), "{e}");
        let e = p("[01]").unwrap_err();
        assert!(e.message().contains("leading zeros"), "{e}");
        let e = p("\"abc").unwrap_err();
        assert!(e.message().contains("unterminated"), "{e}");
        assert!(p("").is_err());
        assert!(p("{} x").is_err());
        assert!(p(&"[".repeat(1000)).is_err());
        assert!(p("\"\\ud800\"").is_err());
        assert_eq!(p("\"\\ud83d\\ude00\"").unwrap().as_str(), Some("😀"));
    }

    #[test]
    fn json_lines_are_many_values() {
        let v = parse_many("{\"a\":1}\n{\"a\":2}\n\n", Input::Rows).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].pos, Pos { line: 2, column: 1 });
        assert!(parse_many("  ", Input::Rows).unwrap().is_empty());
    }
}
