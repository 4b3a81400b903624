//! The GoogleSQL lexer: identifiers (plain or back-quoted), keywords,
//! string, bytes and raw literals with GoogleSQL's escapes, integer and
//! floating-point literals, operators, and the three comment styles
//! (`--`, `#`, `/* */`). Every token knows its line and column, so errors
//! can say `[at 1:15]` as GoogleSQL does.

use super::SqlError;
use tabletop_store::Error;

/// A position in the statement text (1-based line and column, in
/// characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) offset: usize,
    pub(crate) line: u32,
    pub(crate) col: u32,
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// An unquoted identifier or keyword, as written.
    Ident(String),
    /// A back-quoted identifier (never a keyword).
    Quoted(String),
    /// A string literal.
    Str(String),
    /// A bytes literal.
    Bytes(Vec<u8>),
    /// An integer literal (unsigned; a minus sign is an operator).
    Int(u64),
    /// A floating-point literal.
    Float(f64),
    /// An operator or punctuation.
    Sym(&'static str),
    /// The end of the text.
    Eof,
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) pos: Pos,
}

/// GoogleSQL's reserved keywords: they cannot be column names or aliases
/// unless back-quoted.
pub(crate) const RESERVED: &[&str] = &[
    "ALL",
    "AND",
    "ANY",
    "ARRAY",
    "AS",
    "ASC",
    "ASSERT_ROWS_MODIFIED",
    "AT",
    "BETWEEN",
    "BY",
    "CASE",
    "CAST",
    "COLLATE",
    "CONTAINS",
    "CREATE",
    "CROSS",
    "CUBE",
    "CURRENT",
    "DEFAULT",
    "DEFINE",
    "DESC",
    "DISTINCT",
    "ELSE",
    "END",
    "ENUM",
    "ESCAPE",
    "EXCEPT",
    "EXCLUDE",
    "EXISTS",
    "EXTRACT",
    "FALSE",
    "FETCH",
    "FOLLOWING",
    "FOR",
    "FROM",
    "FULL",
    "GROUP",
    "GROUPING",
    "GROUPS",
    "HASH",
    "HAVING",
    "IF",
    "IGNORE",
    "IN",
    "INNER",
    "INTERSECT",
    "INTERVAL",
    "INTO",
    "IS",
    "JOIN",
    "LATERAL",
    "LEFT",
    "LIKE",
    "LIMIT",
    "LOOKUP",
    "MERGE",
    "NATURAL",
    "NEW",
    "NO",
    "NOT",
    "NULL",
    "NULLS",
    "OF",
    "ON",
    "OR",
    "ORDER",
    "OUTER",
    "OVER",
    "PARTITION",
    "PRECEDING",
    "PROTO",
    "QUALIFY",
    "RANGE",
    "RECURSIVE",
    "RESPECT",
    "RIGHT",
    "ROLLUP",
    "ROWS",
    "SELECT",
    "SET",
    "SOME",
    "STRUCT",
    "TABLESAMPLE",
    "THEN",
    "TO",
    "TREAT",
    "TRUE",
    "UNBOUNDED",
    "UNION",
    "UNNEST",
    "USING",
    "WHEN",
    "WHERE",
    "WINDOW",
    "WITH",
    "WITHIN",
];

/// Whether a word is a reserved keyword (case-insensitive).
pub fn is_reserved(word: &str) -> bool {
    RESERVED.iter().any(|k| k.eq_ignore_ascii_case(word))
}

const SYMBOLS: &[&str] = &[
    "<>", "!=", "<=", ">=", "=>", "||", "<<", ">>", "(", ")", "[", "]", ",", ".", ";", "=", "<",
    ">", "+", "-", "*", "/", "%", "&", "|", "^", "~", "@", "?", ":", "{", "}",
];

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    i: usize,
    line: u32,
    col: u32,
}

impl Lexer<'_> {
    fn pos(&self) -> Pos {
        Pos {
            offset: self.i,
            line: self.line,
            col: self.col,
        }
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.bytes.get(self.i + k).copied()
    }

    /// Moves past one character (a whole UTF-8 sequence).
    fn bump(&mut self) -> Option<char> {
        let c = self.text.get(self.i..)?.chars().next()?;
        self.i += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn skip_space_and_comments(&mut self) -> Result<(), Error> {
        loop {
            match self.peek(0) {
                Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) => {
                    self.bump();
                }
                Some(b'#') => self.skip_line(),
                Some(b'-') if self.peek(1) == Some(b'-') => self.skip_line(),
                Some(b'/') if self.peek(1) == Some(b'*') => {
                    let start = self.pos();
                    self.bump();
                    self.bump();
                    loop {
                        match self.peek(0) {
                            None => {
                                return Err(SqlError::syntax("Unclosed comment", start));
                            }
                            Some(b'*') if self.peek(1) == Some(b'/') => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            Some(_) => {
                                self.bump();
                            }
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn skip_line(&mut self) {
        while let Some(b) = self.peek(0) {
            if b == b'\n' {
                break;
            }
            self.bump();
        }
    }

    fn next_token(&mut self) -> Result<Token, Error> {
        self.skip_space_and_comments()?;
        let pos = self.pos();
        let Some(b) = self.peek(0) else {
            return Ok(Token { tok: Tok::Eof, pos });
        };
        // Literal prefixes: r'..', b'..', rb'..', br'..' (any case).
        if matches!(b, b'r' | b'R' | b'b' | b'B') {
            let (raw, bytes, skip) = match (b.to_ascii_lowercase(), self.peek(1)) {
                (b'r', Some(b'\'' | b'"')) => (true, false, 1),
                (b'b', Some(b'\'' | b'"')) => (false, true, 1),
                (b'r', Some(b'b' | b'B')) | (b'b', Some(b'r' | b'R'))
                    if matches!(self.peek(2), Some(b'\'' | b'"')) =>
                {
                    (true, true, 2)
                }
                _ => (false, false, 0),
            };
            if skip > 0 {
                for _ in 0..skip {
                    self.bump();
                }
                let body = self.quoted(raw, bytes, pos)?;
                let tok = if bytes {
                    Tok::Bytes(body)
                } else {
                    match String::from_utf8(body) {
                        Ok(s) => Tok::Str(s),
                        Err(_) => {
                            return Err(SqlError::syntax("Invalid UTF-8 in a string literal", pos));
                        }
                    }
                };
                return Ok(Token { tok, pos });
            }
        }
        if b == b'\'' || b == b'"' {
            let body = self.quoted(false, false, pos)?;
            return match String::from_utf8(body) {
                Ok(s) => Ok(Token {
                    tok: Tok::Str(s),
                    pos,
                }),
                Err(_) => Err(SqlError::syntax(
                    "String literal contains invalid UTF-8; use a bytes literal (b'...')",
                    pos,
                )),
            };
        }
        if b == b'`' {
            self.bump();
            let mut name = String::new();
            loop {
                match self.bump() {
                    None => return Err(SqlError::syntax("Unclosed identifier literal", pos)),
                    Some('`') => break,
                    Some('\\') => match self.bump() {
                        Some('`') => name.push('`'),
                        Some('\\') => name.push('\\'),
                        Some(c) => {
                            name.push('\\');
                            name.push(c);
                        }
                        None => return Err(SqlError::syntax("Unclosed identifier literal", pos)),
                    },
                    Some(c) => name.push(c),
                }
            }
            if name.is_empty() {
                return Err(SqlError::syntax("Invalid empty identifier", pos));
            }
            return Ok(Token {
                tok: Tok::Quoted(name),
                pos,
            });
        }
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = self.i;
            while self
                .peek(0)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
            {
                self.bump();
            }
            return Ok(Token {
                tok: Tok::Ident(self.text[start..self.i].to_string()),
                pos,
            });
        }
        if b.is_ascii_digit() || (b == b'.' && self.peek(1).is_some_and(|c| c.is_ascii_digit())) {
            return self.number(pos);
        }
        for sym in SYMBOLS {
            if self.bytes[self.i..].starts_with(sym.as_bytes()) {
                for _ in 0..sym.len() {
                    self.bump();
                }
                return Ok(Token {
                    tok: Tok::Sym(sym),
                    pos,
                });
            }
        }
        let c = self.text[self.i..].chars().next().unwrap_or('?');
        Err(SqlError::syntax(
            format!("Illegal input character \"{}\"", c.escape_default()),
            pos,
        ))
    }

    fn number(&mut self, pos: Pos) -> Result<Token, Error> {
        let start = self.i;
        if self.peek(0) == Some(b'0') && matches!(self.peek(1), Some(b'x' | b'X')) {
            self.bump();
            self.bump();
            let hs = self.i;
            while self.peek(0).is_some_and(|c| c.is_ascii_hexdigit()) {
                self.bump();
            }
            let digits = &self.text[hs..self.i];
            if digits.is_empty() {
                return Err(SqlError::syntax("Invalid hex integer literal", pos));
            }
            self.no_trailing_word(pos)?;
            return u64::from_str_radix(digits, 16)
                .map(|v| Token {
                    tok: Tok::Int(v),
                    pos,
                })
                .map_err(|_| SqlError::syntax("Invalid hex integer literal", pos));
        }
        let mut float = false;
        while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
        if self.peek(0) == Some(b'.') {
            float = true;
            self.bump();
            while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
            }
        }
        if matches!(self.peek(0), Some(b'e' | b'E')) {
            let save = (self.i, self.line, self.col);
            self.bump();
            if matches!(self.peek(0), Some(b'+' | b'-')) {
                self.bump();
            }
            if self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                float = true;
                while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                    self.bump();
                }
            } else {
                (self.i, self.line, self.col) = save;
            }
        }
        self.no_trailing_word(pos)?;
        let text = &self.text[start..self.i];
        if float {
            text.parse::<f64>()
                .map(|v| Token {
                    tok: Tok::Float(v),
                    pos,
                })
                .map_err(|_| SqlError::syntax("Invalid floating point literal", pos))
        } else {
            text.parse::<u64>()
                .map(|v| Token {
                    tok: Tok::Int(v),
                    pos,
                })
                .map_err(|_| SqlError::syntax(format!("Invalid integer literal: {text}"), pos))
        }
    }

    fn no_trailing_word(&self, pos: Pos) -> Result<(), Error> {
        if self
            .peek(0)
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        {
            return Err(SqlError::syntax(
                "Missing whitespace between literal and alias",
                pos,
            ));
        }
        Ok(())
    }

    /// Reads a quoted literal body (the opening quote is next).
    fn quoted(&mut self, raw: bool, bytes: bool, pos: Pos) -> Result<Vec<u8>, Error> {
        let q = self.peek(0).unwrap_or(b'\'');
        let triple = self.peek(1) == Some(q) && self.peek(2) == Some(q);
        let n = if triple { 3 } else { 1 };
        for _ in 0..n {
            self.bump();
        }
        let mut out = Vec::new();
        loop {
            let Some(b) = self.peek(0) else {
                return Err(SqlError::syntax(
                    if bytes {
                        "Unclosed bytes literal"
                    } else {
                        "Unclosed string literal"
                    },
                    pos,
                ));
            };
            if b == q && (!triple || (self.peek(1) == Some(q) && self.peek(2) == Some(q))) {
                for _ in 0..n {
                    self.bump();
                }
                return Ok(out);
            }
            if b == b'\n' && !triple {
                return Err(SqlError::syntax(
                    "Unclosed string literal (a newline inside a one-line literal)",
                    pos,
                ));
            }
            if b == b'\\' {
                if raw {
                    // A raw literal keeps the backslash; it still escapes
                    // the quote so the literal does not end.
                    out.push(b'\\');
                    self.bump();
                    if let Some(c) = self.peek(0) {
                        let ch = self.bump().unwrap_or('\\');
                        if c < 0x80 {
                            out.push(c);
                        } else {
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                    }
                    continue;
                }
                let epos = self.pos();
                self.bump();
                self.escape(&mut out, bytes, epos)?;
                continue;
            }
            let ch = self.bump().unwrap_or('?');
            let mut buf = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        }
    }

    fn escape(&mut self, out: &mut Vec<u8>, bytes: bool, epos: Pos) -> Result<(), Error> {
        let Some(c) = self.bump() else {
            return Err(SqlError::syntax("Illegal escape sequence: \\", epos));
        };
        let simple = match c {
            'a' => Some(0x07),
            'b' => Some(0x08),
            'f' => Some(0x0c),
            'n' => Some(b'\n'),
            'r' => Some(b'\r'),
            't' => Some(b'\t'),
            'v' => Some(0x0b),
            '\\' => Some(b'\\'),
            '?' => Some(b'?'),
            '"' => Some(b'"'),
            '\'' => Some(b'\''),
            '`' => Some(b'`'),
            _ => None,
        };
        if let Some(v) = simple {
            out.push(v);
            return Ok(());
        }
        match c {
            'x' | 'X' => {
                let mut v: u32 = 0;
                for _ in 0..2 {
                    let d = self
                        .bump()
                        .and_then(|d| d.to_digit(16))
                        .ok_or_else(|| SqlError::syntax("Illegal escape sequence: \\x", epos))?;
                    v = v * 16 + d;
                }
                self.push_code(out, v, bytes, epos)
            }
            '0'..='7' => {
                let mut v = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    let d = self
                        .bump()
                        .and_then(|d| d.to_digit(8))
                        .ok_or_else(|| SqlError::syntax("Illegal escape sequence: octal", epos))?;
                    v = v * 8 + d;
                }
                self.push_code(out, v, bytes, epos)
            }
            'u' | 'U' => {
                if bytes {
                    return Err(SqlError::syntax(
                        "Unicode escapes are not allowed in bytes literals",
                        epos,
                    ));
                }
                let n = if c == 'u' { 4 } else { 8 };
                let mut v: u32 = 0;
                for _ in 0..n {
                    let d = self
                        .bump()
                        .and_then(|d| d.to_digit(16))
                        .ok_or_else(|| SqlError::syntax("Illegal escape sequence: \\u", epos))?;
                    v = v.saturating_mul(16).saturating_add(d);
                }
                let ch = char::from_u32(v)
                    .ok_or_else(|| SqlError::syntax("Invalid Unicode code point", epos))?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                Ok(())
            }
            other => Err(SqlError::syntax(
                format!("Illegal escape sequence: \\{}", other.escape_default()),
                epos,
            )),
        }
    }

    fn push_code(&self, out: &mut Vec<u8>, v: u32, bytes: bool, epos: Pos) -> Result<(), Error> {
        if bytes {
            out.push(u8::try_from(v).unwrap_or(0xff));
            return Ok(());
        }
        // In a string literal a \x or octal escape is a code point.
        let ch = char::from_u32(v)
            .ok_or_else(|| SqlError::syntax("Invalid Unicode code point", epos))?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }
}

/// Splits statement text into tokens, ending with [`Tok::Eof`].
pub(crate) fn tokenize(text: &str) -> Result<Vec<Token>, Error> {
    let mut lx = Lexer {
        text,
        bytes: text.as_bytes(),
        i: 0,
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    loop {
        let t = lx.next_token()?;
        let end = t.tok == Tok::Eof;
        out.push(t);
        if end {
            return Ok(out);
        }
        if out.len() > 100_000 {
            return Err(SqlError::syntax(
                "The statement is too long (more than 100000 tokens)",
                lx.pos(),
            ));
        }
    }
}

/// Splits a script into statements at `;` outside literals and comments.
/// Returns each statement's text (trimmed, without the `;`) with its
/// starting line; empty statements are dropped.
pub(crate) fn split_statements(text: &str) -> Vec<(usize, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut i = 0usize;
    let push = |from: usize, to: usize, out: &mut Vec<(usize, String)>| {
        let s = &text[from..to];
        if !s.trim().is_empty() {
            // The line of the first non-space character.
            let lead = s.len() - s.trim_start().len();
            let line = text[..from + lead].matches('\n').count() + 1;
            out.push((line, s.trim().to_string()));
        }
    };
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' | b'`' => {
                let q = bytes[i];
                let triple =
                    q != b'`' && bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q);
                i += if triple { 3 } else { 1 };
                while i < bytes.len() {
                    if bytes[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if bytes[i] == q
                        && (!triple
                            || (bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q)))
                    {
                        i += if triple { 3 } else { 1 };
                        break;
                    }
                    if bytes[i] == b'\n' && !triple {
                        break;
                    }
                    i += 1;
                }
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
            }
            b';' => {
                push(start, i, &mut out);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < text.len() {
        push(start, text.len(), &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        tokenize(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn literals_and_escapes() {
        assert_eq!(
            toks(r"'a\'b' b'\x00\xff' r'\d+' 0x1F 12 1.5e3 `my col`"),
            vec![
                Tok::Str("a'b".into()),
                Tok::Bytes(vec![0, 0xff]),
                Tok::Str("\\d+".into()),
                Tok::Int(31),
                Tok::Int(12),
                Tok::Float(1500.0),
                Tok::Quoted("my col".into()),
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("a<>b -- c\n/* d */ # e\n=>"),
            vec![
                Tok::Ident("a".into()),
                Tok::Sym("<>"),
                Tok::Ident("b".into()),
                Tok::Sym("=>"),
                Tok::Eof
            ]
        );
        assert!(tokenize("'abc").is_err());
        assert!(tokenize("'\\q'").is_err());
        assert!(tokenize("/* x").is_err());
        assert!(tokenize("1abc").is_err());
        assert!(tokenize("$").is_err());
    }

    #[test]
    fn positions_count_lines_and_columns() {
        let t = tokenize("SELECT\n  x").unwrap();
        assert_eq!((t[1].pos.line, t[1].pos.col), (2, 3));
    }

    #[test]
    fn scripts_split_on_semicolons_outside_literals() {
        let parts = split_statements("SELECT 'a;b';\n-- c;\nSELECT 2 ; ;");
        assert_eq!(
            parts,
            vec![
                (1, "SELECT 'a;b'".to_string()),
                (2, "-- c;\nSELECT 2".to_string())
            ]
        );
    }
}
