//! Oracle NoSQL DDL in: `CREATE TABLE` (every field type, SHARD keys,
//! IDENTITY and UUID columns, `USING TTL`) and `CREATE INDEX`, plus rows as
//! Oracle-style JSON records, translated as [`from_oracle_ddl`] describes.
//!
//! [`from_oracle_ddl`]: super::from_oracle_ddl

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::index::{self, Kind, Place, Spec};
use super::json::{self, Json, Node};
use super::keycodec::{self, Decimal, KeyEncoding, KeyValue};
use super::{
    CellPlan, CellValue, ColumnPlan, FamilyPlan, IndexPlan, Input, KeyPart, Note, Options, Pattern,
    Pos, RowPlan, Source, TableTranslation, TranslateError, Translation,
};
use tabletop_design::keydesign::{KeyTemplate, Per, Segment, SegmentKind};
use tabletop_design::rng::hash_bytes;
use tabletop_store::{GcRule, ValueType, validate_family_name, validate_table_id};
use tabletop_store::{TimeUnit, days_from_civil};

// ---------------------------------------------------------------------------
// Lexing

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// Digits, a decimal point or an exponent, as written.
    Number(String),
    Str(String),
    Sym(char),
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    pos: Pos,
}

fn err(pos: Pos, msg: impl Into<String>) -> TranslateError {
    TranslateError::new(Input::Ddl, pos, msg)
}

struct Cursor {
    chars: Vec<char>,
    i: usize,
    line: usize,
    col: usize,
}

impl Cursor {
    fn at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.col,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.at(0)?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    /// Appends characters while `f` holds.
    fn take_while(&mut self, s: &mut String, f: impl Fn(char) -> bool) {
        while let Some(c) = self.at(0).filter(|&c| f(c)) {
            s.push(c);
            self.bump();
        }
    }
}

fn lex(text: &str) -> Result<Vec<Token>, TranslateError> {
    let mut cur = Cursor {
        chars: text.chars().collect(),
        i: 0,
        line: 1,
        col: 1,
    };
    let mut out = Vec::new();
    while let Some(c) = cur.at(0) {
        let pos = cur.pos();
        if c.is_whitespace() || c == '\u{feff}' {
            cur.bump();
            continue;
        }
        let next = cur.at(1);
        if (c == '/' && next == Some('/')) || (c == '-' && next == Some('-')) || c == '#' {
            while cur.at(0).is_some_and(|c| c != '\n') {
                cur.bump();
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            cur.bump();
            cur.bump();
            loop {
                match (cur.at(0), cur.at(1)) {
                    (None, _) => return Err(err(pos, "unterminated /* comment")),
                    (Some('*'), Some('/')) => {
                        cur.bump();
                        cur.bump();
                        break;
                    }
                    _ => {
                        cur.bump();
                    }
                }
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut s = String::new();
            cur.take_while(&mut s, |c| c.is_ascii_alphanumeric() || c == '_');
            out.push(Token {
                tok: Tok::Ident(s),
                pos,
            });
            continue;
        }
        if c == '`' {
            cur.bump();
            let mut s = String::new();
            loop {
                match cur.bump() {
                    None | Some('\n') => return Err(err(pos, "unterminated `quoted` name")),
                    Some('`') => break,
                    Some(ch) => s.push(ch),
                }
            }
            if s.is_empty() {
                return Err(err(pos, "a `quoted` name must not be empty"));
            }
            out.push(Token {
                tok: Tok::Ident(s),
                pos,
            });
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) {
            let mut s = String::new();
            cur.take_while(&mut s, |c| c.is_ascii_digit() || c == '.');
            if matches!(cur.at(0), Some('e' | 'E'))
                && cur
                    .at(1)
                    .is_some_and(|n| n.is_ascii_digit() || n == '+' || n == '-')
            {
                s.push('e');
                cur.bump();
                if let Some(sign @ ('+' | '-')) = cur.at(0) {
                    s.push(sign);
                    cur.bump();
                }
                cur.take_while(&mut s, |c| c.is_ascii_digit());
            }
            if Decimal::parse(&s).is_none() {
                return Err(err(pos, format!("{s} is not a number")));
            }
            out.push(Token {
                tok: Tok::Number(s),
                pos,
            });
            continue;
        }
        if c == '"' || c == '\'' {
            let quote = c;
            cur.bump();
            let mut s = String::new();
            loop {
                let Some(ch) = cur.bump() else {
                    return Err(err(pos, "unterminated string"));
                };
                if ch == quote {
                    break;
                }
                if ch == '\\' {
                    let Some(e) = cur.bump() else {
                        return Err(err(pos, "unterminated string"));
                    };
                    s.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        other => other,
                    });
                    continue;
                }
                s.push(ch);
            }
            out.push(Token {
                tok: Tok::Str(s),
                pos,
            });
            continue;
        }
        if matches!(c, '(' | ')' | ',' | ';' | '.' | '-' | '+' | '=') {
            out.push(Token {
                tok: Tok::Sym(c),
                pos,
            });
            cur.bump();
            continue;
        }
        return Err(err(pos, format!("unexpected character {c:?}")));
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: cur.pos(),
    });
    Ok(out)
}

// ---------------------------------------------------------------------------
// The parsed DDL

/// An Oracle NoSQL field type.
#[derive(Clone, Debug, PartialEq)]
enum OType {
    Integer,
    Long,
    Float,
    Double,
    Number,
    String,
    Boolean,
    Binary,
    FixedBinary(usize),
    Timestamp(u8),
    Enum(Vec<String>),
    Array(Box<OType>),
    Map(Box<OType>),
    Record(Vec<Field>),
    Json,
}

impl OType {
    fn name(&self) -> String {
        match self {
            OType::Integer => "INTEGER".into(),
            OType::Long => "LONG".into(),
            OType::Float => "FLOAT".into(),
            OType::Double => "DOUBLE".into(),
            OType::Number => "NUMBER".into(),
            OType::String => "STRING".into(),
            OType::Boolean => "BOOLEAN".into(),
            OType::Binary => "BINARY".into(),
            OType::FixedBinary(n) => format!("FIXED_BINARY({n})"),
            OType::Timestamp(p) => format!("TIMESTAMP({p})"),
            OType::Enum(v) => format!("ENUM({})", v.join(", ")),
            OType::Array(t) => format!("ARRAY({})", t.name()),
            OType::Map(t) => format!("MAP({})", t.name()),
            OType::Record(_) => "RECORD(...)".into(),
            OType::Json => "JSON".into(),
        }
    }

    /// Whether Oracle NoSQL allows the type in a primary key.
    fn key_allowed(&self) -> bool {
        matches!(
            self,
            OType::Integer
                | OType::Long
                | OType::Float
                | OType::Double
                | OType::Number
                | OType::String
                | OType::Boolean
                | OType::Timestamp(_)
                | OType::Enum(_)
        )
    }

    /// Whether the value is a document or blob (stored in the `doc` family).
    fn is_document(&self) -> bool {
        matches!(
            self,
            OType::Json | OType::Record(_) | OType::Array(_) | OType::Map(_) | OType::Binary
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Identity {
    always: bool,
    on_null: bool,
    start: i128,
    increment: i128,
    pos: Pos,
}

#[derive(Clone, Debug, PartialEq)]
struct Field {
    name: String,
    pos: Pos,
    ty: OType,
    not_null: bool,
    default: Option<Node>,
    identity: Option<Identity>,
    /// `AS UUID`, and whether it is `GENERATED BY DEFAULT`.
    uuid: Option<bool>,
    comment: Option<String>,
}

#[derive(Clone, Debug)]
struct Table {
    name: String,
    pos: Pos,
    fields: Vec<Field>,
    primary_key: Vec<String>,
    shard_len: usize,
    key_pos: Pos,
    ttl: Option<(u64, bool, Pos)>,
}

#[derive(Clone, Debug)]
struct Index {
    name: String,
    table: String,
    table_pos: Pos,
    paths: Vec<String>,
}

/// A PRIMARY KEY clause: the fields (with where each is named), how many
/// of them are the shard key, and where the clause starts.
type KeySpec = (Vec<(String, Pos)>, usize, Pos);

struct Parser {
    toks: Vec<Token>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        // The token list always ends with Eof, and `i` never passes it.
        &self.toks[self.i.min(self.toks.len() - 1)]
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if t.tok != Tok::Eof {
            self.i += 1;
        }
        t
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(&self.peek().tok, Tok::Ident(s) if s.eq_ignore_ascii_case(kw))
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn describe(t: &Tok) -> String {
        match t {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Number(s) => format!("the number {s}"),
            Tok::Str(s) => format!("the string {s:?}"),
            Tok::Sym(c) => format!("`{c}`"),
            Tok::Eof => "the end of the DDL".into(),
        }
    }

    fn expect_kw(&mut self, kw: &str) -> Result<Pos, TranslateError> {
        let t = self.peek().clone();
        if self.eat_kw(kw) {
            Ok(t.pos)
        } else {
            Err(err(
                t.pos,
                format!("expected {kw}, found {}", Self::describe(&t.tok)),
            ))
        }
    }

    fn is_sym(&self, c: char) -> bool {
        self.peek().tok == Tok::Sym(c)
    }

    fn eat_sym(&mut self, c: char) -> bool {
        if self.is_sym(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect_sym(&mut self, c: char) -> Result<Pos, TranslateError> {
        let t = self.peek().clone();
        if self.eat_sym(c) {
            Ok(t.pos)
        } else {
            Err(err(
                t.pos,
                format!("expected `{c}`, found {}", Self::describe(&t.tok)),
            ))
        }
    }

    fn ident(&mut self, what: &str) -> Result<(String, Pos), TranslateError> {
        let t = self.next();
        match t.tok {
            Tok::Ident(s) => Ok((s, t.pos)),
            other => Err(err(
                t.pos,
                format!("expected {what}, found {}", Self::describe(&other)),
            )),
        }
    }

    fn integer(&mut self, what: &str) -> Result<(i128, Pos), TranslateError> {
        let pos = self.peek().pos;
        let negative = if self.eat_sym('-') {
            true
        } else {
            self.eat_sym('+');
            false
        };
        let t = self.next();
        match &t.tok {
            Tok::Number(s) if s.bytes().all(|b| b.is_ascii_digit()) && s.len() <= 30 => {
                let v: i128 = s
                    .parse()
                    .map_err(|_| err(t.pos, format!("{s} is too large")))?;
                Ok((if negative { -v } else { v }, pos))
            }
            other => Err(err(
                t.pos,
                format!(
                    "expected {what} (a whole number), found {}",
                    Self::describe(other)
                ),
            )),
        }
    }

    fn string(&mut self, what: &str) -> Result<String, TranslateError> {
        let t = self.next();
        match t.tok {
            Tok::Str(s) => Ok(s),
            other => Err(err(
                t.pos,
                format!(
                    "expected {what} in quotes, found {}",
                    Self::describe(&other)
                ),
            )),
        }
    }

    /// Skips to the end of the current statement (for statements that are
    /// reported but not translated).
    fn skip_statement(&mut self) {
        while !matches!(self.peek().tok, Tok::Eof | Tok::Sym(';')) {
            self.i += 1;
        }
    }

    fn type_def(&mut self, depth: usize) -> Result<OType, TranslateError> {
        if depth > 32 {
            return Err(err(self.peek().pos, "types nest too deeply"));
        }
        let (word, pos) = self.ident("a type")?;
        let upper = word.to_ascii_uppercase();
        let size = |p: &mut Parser, what: &str| -> Result<(i128, Pos), TranslateError> {
            p.expect_sym('(')?;
            let v = p.integer(what)?;
            p.expect_sym(')')?;
            Ok(v)
        };
        Ok(match upper.as_str() {
            "INTEGER" => OType::Integer,
            "LONG" => OType::Long,
            "FLOAT" => OType::Float,
            "DOUBLE" => OType::Double,
            "NUMBER" => OType::Number,
            "STRING" => OType::String,
            "BOOLEAN" => OType::Boolean,
            "JSON" => OType::Json,
            "BINARY" | "FIXED_BINARY" => {
                if self.is_sym('(') {
                    let (n, npos) = size(self, "a size in bytes")?;
                    if !(1..=1_000_000).contains(&n) {
                        return Err(err(npos, "a FIXED_BINARY size must be 1 to 1000000 bytes"));
                    }
                    OType::FixedBinary(usize::try_from(n).unwrap_or(1))
                } else if upper == "FIXED_BINARY" {
                    return Err(err(
                        self.peek().pos,
                        "FIXED_BINARY needs a size: FIXED_BINARY(16)",
                    ));
                } else {
                    OType::Binary
                }
            }
            "TIMESTAMP" => {
                let p = if self.is_sym('(') {
                    let (p, ppos) = size(self, "a precision")?;
                    if !(0..=9).contains(&p) {
                        return Err(err(
                            ppos,
                            "TIMESTAMP precision must be 0 to 9 fraction digits",
                        ));
                    }
                    u8::try_from(p).unwrap_or(9)
                } else {
                    9
                };
                OType::Timestamp(p)
            }
            "ENUM" => {
                self.expect_sym('(')?;
                let mut values: Vec<String> = Vec::new();
                loop {
                    let (v, vpos) = self.ident("an enum symbol")?;
                    if values.contains(&v) {
                        return Err(err(vpos, format!("the enum symbol {v} is listed twice")));
                    }
                    values.push(v);
                    if !self.eat_sym(',') {
                        break;
                    }
                }
                self.expect_sym(')')?;
                if values.len() > 65_536 {
                    return Err(err(pos, "an ENUM may have at most 65536 symbols"));
                }
                OType::Enum(values)
            }
            "ARRAY" | "MAP" => {
                self.expect_sym('(')?;
                let inner = self.type_def(depth + 1)?;
                self.expect_sym(')')?;
                if upper == "ARRAY" {
                    OType::Array(Box::new(inner))
                } else {
                    OType::Map(Box::new(inner))
                }
            }
            "RECORD" => {
                self.expect_sym('(')?;
                let mut fields: Vec<Field> = Vec::new();
                loop {
                    let f = self.field_def(depth + 1, true)?;
                    if fields.iter().any(|g| g.name.eq_ignore_ascii_case(&f.name)) {
                        return Err(err(
                            f.pos,
                            format!("the record field {} is declared twice", f.name),
                        ));
                    }
                    fields.push(f);
                    if !self.eat_sym(',') {
                        break;
                    }
                }
                self.expect_sym(')')?;
                OType::Record(fields)
            }
            _ => {
                return Err(err(
                    pos,
                    format!(
                        "unknown type {word}: expected INTEGER, LONG, FLOAT, DOUBLE, NUMBER, STRING, BOOLEAN, BINARY, FIXED_BINARY, TIMESTAMP, ENUM, ARRAY, MAP, RECORD or JSON"
                    ),
                ));
            }
        })
    }

    fn literal(&mut self) -> Result<Node, TranslateError> {
        let pos = self.peek().pos;
        if self.eat_sym('-') {
            let t = self.next();
            return match t.tok {
                Tok::Number(n) => Ok(Node {
                    value: Json::Number(format!("-{n}")),
                    pos,
                }),
                other => Err(err(
                    t.pos,
                    format!(
                        "expected a number after `-`, found {}",
                        Self::describe(&other)
                    ),
                )),
            };
        }
        let t = self.next();
        let value = match t.tok {
            Tok::Number(n) => Json::Number(normalise_number(&n)),
            Tok::Str(s) => Json::String(s),
            Tok::Ident(w) if w.eq_ignore_ascii_case("true") => Json::Bool(true),
            Tok::Ident(w) if w.eq_ignore_ascii_case("false") => Json::Bool(false),
            other => {
                return Err(err(
                    t.pos,
                    format!("expected a default value, found {}", Self::describe(&other)),
                ));
            }
        };
        Ok(Node { value, pos })
    }

    fn identity(&mut self, pos: Pos) -> Result<Identity, TranslateError> {
        // After GENERATED.
        let mut id = Identity {
            always: false,
            on_null: false,
            start: 1,
            increment: 1,
            pos,
        };
        if self.eat_kw("ALWAYS") {
            id.always = true;
        } else {
            self.expect_kw("BY")?;
            self.expect_kw("DEFAULT")?;
            if self.eat_kw("ON") {
                self.expect_kw("NULL")?;
                id.on_null = true;
            }
        }
        self.expect_kw("AS")?;
        self.expect_kw("IDENTITY")?;
        if self.eat_sym('(') {
            loop {
                if self.eat_kw("START") {
                    self.expect_kw("WITH")?;
                    id.start = self.integer("the first value")?.0;
                } else if self.eat_kw("INCREMENT") {
                    self.expect_kw("BY")?;
                    let (v, vpos) = self.integer("the increment")?;
                    if v == 0 {
                        return Err(err(vpos, "INCREMENT BY must not be 0"));
                    }
                    id.increment = v;
                } else if self.eat_kw("MAXVALUE") || self.eat_kw("MINVALUE") || self.eat_kw("CACHE")
                {
                    self.integer("a number")?;
                } else if self.eat_kw("NO") {
                    if !(self.eat_kw("MAXVALUE") || self.eat_kw("MINVALUE") || self.eat_kw("CYCLE"))
                    {
                        let t = self.peek().clone();
                        return Err(err(
                            t.pos,
                            format!(
                                "expected MAXVALUE, MINVALUE or CYCLE after NO, found {}",
                                Self::describe(&t.tok)
                            ),
                        ));
                    }
                } else if self.eat_kw("CYCLE") {
                } else if self.eat_sym(')') {
                    break;
                } else {
                    let t = self.peek().clone();
                    return Err(err(
                        t.pos,
                        format!(
                            "expected a sequence option (START WITH, INCREMENT BY, MAXVALUE, MINVALUE, CACHE, CYCLE) or `)`, found {}",
                            Self::describe(&t.tok)
                        ),
                    ));
                }
                self.eat_sym(',');
            }
        }
        Ok(id)
    }

    fn field_def(&mut self, depth: usize, in_record: bool) -> Result<Field, TranslateError> {
        let (name, pos) = self.ident("a field name")?;
        let ty = self.type_def(depth)?;
        let mut f = Field {
            name,
            pos,
            ty,
            not_null: false,
            default: None,
            identity: None,
            uuid: None,
            comment: None,
        };
        loop {
            let here = self.peek().pos;
            if self.eat_kw("NOT") {
                self.expect_kw("NULL")?;
                f.not_null = true;
            } else if self.eat_kw("DEFAULT") {
                f.default = Some(self.literal()?);
            } else if self.eat_kw("COMMENT") {
                f.comment = Some(self.string("a comment")?);
            } else if !in_record && self.eat_kw("GENERATED") {
                if !matches!(f.ty, OType::Integer | OType::Long | OType::Number) {
                    return Err(err(
                        here,
                        format!(
                            "an IDENTITY column must be INTEGER, LONG or NUMBER, not {}",
                            f.ty.name()
                        ),
                    ));
                }
                f.identity = Some(self.identity(here)?);
            } else if !in_record && self.is_kw("AS") {
                self.i += 1;
                self.expect_kw("UUID")?;
                if f.ty != OType::String {
                    return Err(err(here, "only a STRING field can be AS UUID"));
                }
                let mut generated = false;
                if self.eat_kw("GENERATED") {
                    self.expect_kw("BY")?;
                    self.expect_kw("DEFAULT")?;
                    generated = true;
                }
                f.uuid = Some(generated);
            } else {
                break;
            }
        }
        Ok(f)
    }

    fn create_table(&mut self, table_pos: Pos) -> Result<Table, TranslateError> {
        if self.eat_kw("IF") {
            self.expect_kw("NOT")?;
            self.expect_kw("EXISTS")?;
        }
        let (name, pos) = self.ident("a table name")?;
        if self.is_sym('.') {
            return Err(err(
                self.peek().pos,
                format!(
                    "{name} is the parent of a child table; child tables are not translated yet (create the child as a table of its own whose key starts with the parent's key)"
                ),
            ));
        }
        if self.eat_kw("COMMENT") {
            self.string("a comment")?;
        }
        if self.is_kw("AS") {
            return Err(err(
                self.peek().pos,
                "JSON collection tables (AS JSON COLLECTION) are not translated; declare the fields",
            ));
        }
        self.expect_sym('(')?;
        let mut fields: Vec<Field> = Vec::new();
        let mut primary_key: Option<KeySpec> = None;
        loop {
            if self.is_kw("PRIMARY") {
                let kpos = self.peek().pos;
                self.i += 1;
                self.expect_kw("KEY")?;
                if primary_key.is_some() {
                    return Err(err(kpos, "the table declares PRIMARY KEY twice"));
                }
                self.expect_sym('(')?;
                let mut names: Vec<(String, Pos)> = Vec::new();
                let mut shard_len = 0;
                let id_with_size = |p: &mut Parser,
                                    names: &mut Vec<(String, Pos)>|
                 -> Result<(), TranslateError> {
                    let (n, npos) = p.ident("a key field")?;
                    if p.eat_sym('(') {
                        p.integer("a key size")?;
                        p.expect_sym(')')?;
                    }
                    names.push((n, npos));
                    Ok(())
                };
                if self.eat_kw("SHARD") {
                    self.expect_sym('(')?;
                    loop {
                        id_with_size(self, &mut names)?;
                        if !self.eat_sym(',') {
                            break;
                        }
                    }
                    self.expect_sym(')')?;
                    shard_len = names.len();
                    self.eat_sym(',');
                }
                if !self.is_sym(')') {
                    loop {
                        id_with_size(self, &mut names)?;
                        if !self.eat_sym(',') {
                            break;
                        }
                    }
                }
                self.expect_sym(')')?;
                if names.is_empty() {
                    return Err(err(kpos, "PRIMARY KEY needs at least one field"));
                }
                primary_key = Some((names, shard_len, kpos));
            } else {
                let f = self.field_def(0, false)?;
                if fields.iter().any(|g| g.name.eq_ignore_ascii_case(&f.name)) {
                    return Err(err(
                        f.pos,
                        format!("the field {} is declared twice", f.name),
                    ));
                }
                fields.push(f);
            }
            if self.eat_sym(',') {
                continue;
            }
            self.expect_sym(')')?;
            break;
        }
        let mut ttl = None;
        loop {
            if self.is_kw("USING") {
                self.i += 1;
                self.expect_kw("TTL")?;
                let (n, npos) = self.integer("the time to live")?;
                let days = if self.eat_kw("DAYS") || self.eat_kw("DAY") {
                    true
                } else if self.eat_kw("HOURS") || self.eat_kw("HOUR") {
                    false
                } else {
                    let t = self.peek().clone();
                    return Err(err(
                        t.pos,
                        format!(
                            "expected DAYS or HOURS after the TTL, found {}",
                            Self::describe(&t.tok)
                        ),
                    ));
                };
                if n < 0 || n > i128::from(u32::MAX) {
                    return Err(err(npos, "the TTL must be 0 or more"));
                }
                if n > 0 {
                    ttl = Some((u64::try_from(n).unwrap_or(0), days, npos));
                }
            } else if self.is_kw("WITH") {
                let t = self.peek().clone();
                return Err(err(t.pos, "table options after WITH are not translated"));
            } else {
                break;
            }
        }
        let Some((names, shard_len, key_pos)) = primary_key else {
            return Err(err(
                table_pos,
                format!("the table {name} has no PRIMARY KEY"),
            ));
        };
        let mut seen = BTreeSet::new();
        for (n, npos) in &names {
            let Some(f) = fields.iter().find(|f| f.name.eq_ignore_ascii_case(n)) else {
                return Err(err(
                    *npos,
                    format!("the key field {n} is not declared in the table"),
                ));
            };
            if !seen.insert(f.name.to_ascii_lowercase()) {
                return Err(err(*npos, format!("the key lists {n} twice")));
            }
            if !f.ty.key_allowed() {
                return Err(err(
                    *npos,
                    format!(
                        "{n} is {}, which cannot be part of a primary key (key fields are INTEGER, LONG, FLOAT, DOUBLE, NUMBER, STRING, BOOLEAN, ENUM or TIMESTAMP)",
                        f.ty.name()
                    ),
                ));
            }
        }
        let identities: Vec<&Field> = fields.iter().filter(|f| f.identity.is_some()).collect();
        if identities.len() > 1 {
            return Err(err(
                identities[1].pos,
                "a table may have only one IDENTITY column",
            ));
        }
        let primary_key = names
            .iter()
            .filter_map(|(n, _)| fields.iter().find(|f| f.name.eq_ignore_ascii_case(n)))
            .map(|f| f.name.clone())
            .collect();
        Ok(Table {
            name,
            pos,
            fields,
            primary_key,
            shard_len,
            key_pos,
            ttl,
        })
    }

    fn create_index(&mut self) -> Result<Index, TranslateError> {
        if self.eat_kw("IF") {
            self.expect_kw("NOT")?;
            self.expect_kw("EXISTS")?;
        }
        let (name, _) = self.ident("an index name")?;
        self.expect_kw("ON")?;
        let (table, table_pos) = self.ident("a table name")?;
        self.expect_sym('(')?;
        let mut paths = Vec::new();
        let mut depth = 1usize;
        let mut current = String::new();
        while depth > 0 {
            let t = self.next();
            match t.tok {
                Tok::Eof => return Err(err(t.pos, "unterminated index field list")),
                Tok::Sym('(') => {
                    depth += 1;
                    current.push('(');
                }
                Tok::Sym(')') => {
                    depth -= 1;
                    if depth > 0 {
                        current.push(')');
                    }
                }
                Tok::Sym(',') if depth == 1 => paths.push(std::mem::take(&mut current)),
                Tok::Sym(c) => current.push(c),
                Tok::Ident(s) | Tok::Number(s) => {
                    if !current.is_empty() && !current.ends_with(['.', '(']) {
                        current.push(' ');
                    }
                    current.push_str(&s);
                }
                Tok::Str(s) => current.push_str(&format!("{s:?}")),
            }
        }
        if !current.is_empty() {
            paths.push(current);
        }
        self.skip_statement();
        Ok(Index {
            name,
            table,
            table_pos,
            paths,
        })
    }

    fn statements(&mut self) -> Result<(Vec<Table>, Vec<Index>), TranslateError> {
        let mut tables = Vec::new();
        let mut indexes = Vec::new();
        loop {
            while self.eat_sym(';') {}
            let t = self.peek().clone();
            if t.tok == Tok::Eof {
                break;
            }
            if !self.eat_kw("CREATE") {
                return Err(err(
                    t.pos,
                    format!(
                        "expected CREATE TABLE or CREATE INDEX, found {}",
                        Self::describe(&t.tok)
                    ),
                ));
            }
            if self.eat_kw("TABLE") {
                tables.push(self.create_table(t.pos)?);
            } else if self.eat_kw("INDEX") {
                indexes.push(self.create_index()?);
            } else {
                let u = self.peek().clone();
                return Err(err(
                    u.pos,
                    format!(
                        "expected TABLE or INDEX after CREATE, found {}",
                        Self::describe(&u.tok)
                    ),
                ));
            }
            let after = self.peek().clone();
            if !matches!(after.tok, Tok::Eof | Tok::Sym(';')) {
                return Err(err(
                    after.pos,
                    format!(
                        "expected `;` or the end of the DDL, found {}",
                        Self::describe(&after.tok)
                    ),
                ));
            }
        }
        Ok((tables, indexes))
    }
}

/// A number token as JSON number text (`.5` becomes `0.5`).
fn normalise_number(n: &str) -> String {
    if n.starts_with('.') {
        format!("0{n}")
    } else if n.ends_with('.') {
        format!("{n}0")
    } else {
        n.to_string()
    }
}

// ---------------------------------------------------------------------------
// Values

/// Reads an ISO 8601 date or date-time (`2023-09-10`,
/// `2023-09-10T15:21:48.123456789`, with an optional `Z` or `+02:00`).
/// Returns seconds and nanoseconds since the epoch, UTC.
pub(crate) fn parse_iso_timestamp(s: &str) -> Option<(i64, u32)> {
    let b = s.trim().as_bytes();
    let mut i = 0;
    let mut negative = false;
    if b.first() == Some(&b'-') {
        negative = true;
        i = 1;
    }
    let num = |b: &[u8], i: &mut usize, n: usize| -> Option<i64> {
        let part = b.get(*i..*i + n)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        *i += n;
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let mut year = num(b, &mut i, 4)?;
    if negative {
        year = -year;
    }
    if b.get(i) != Some(&b'-') {
        return None;
    }
    i += 1;
    let month = num(b, &mut i, 2)?;
    if b.get(i) != Some(&b'-') {
        return None;
    }
    i += 1;
    let day = num(b, &mut i, 2)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let (mut h, mut mi, mut sec, mut nanos) = (0i64, 0i64, 0i64, 0u32);
    let mut offset = 0i64;
    if matches!(b.get(i), Some(b'T' | b't' | b' ')) {
        i += 1;
        h = num(b, &mut i, 2)?;
        if b.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        mi = num(b, &mut i, 2)?;
        if b.get(i) == Some(&b':') {
            i += 1;
            sec = num(b, &mut i, 2)?;
            if b.get(i) == Some(&b'.') {
                i += 1;
                let start = i;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                let frac = std::str::from_utf8(&b[start..i]).ok()?;
                if frac.is_empty() || frac.len() > 9 {
                    return None;
                }
                nanos = format!("{frac:0<9}").parse().ok()?;
            }
        }
        if h > 23 || mi > 59 || sec > 59 {
            return None;
        }
        match b.get(i) {
            Some(b'Z' | b'z') => i += 1,
            Some(&c @ (b'+' | b'-')) => {
                i += 1;
                let oh = num(b, &mut i, 2)?;
                if b.get(i) == Some(&b':') {
                    i += 1;
                }
                let om = num(b, &mut i, 2)?;
                if oh > 23 || om > 59 {
                    return None;
                }
                offset = (oh * 60 + om) * 60;
                if c == b'-' {
                    offset = -offset;
                }
            }
            _ => {}
        }
    }
    if i != b.len() {
        return None;
    }
    let m = u32::try_from(month).ok()?;
    let d = u32::try_from(day).ok()?;
    let days = days_from_civil(year, m, d);
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset;
    Some((secs, nanos))
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

fn rows_err(pos: Pos, msg: impl Into<String>) -> TranslateError {
    TranslateError::new(Input::Rows, pos, msg)
}

/// A field value read from a record: the cell bytes and, for key types,
/// the typed key value.
struct Value {
    cell: Vec<u8>,
    key: Option<KeyValue>,
}

/// Checks `node` against `ty` and converts it. `input` says which text the
/// node is from (a DEFAULT in the DDL, or a record).
fn convert(ty: &OType, node: &Node, input: Input, depth: usize) -> Result<Value, TranslateError> {
    let e = |msg: String| TranslateError::new(input, node.pos, msg);
    let want = |what: &str| {
        e(format!(
            "expected {what} for {}, found {}",
            ty.name(),
            node.kind()
        ))
    };
    if depth > json::MAX_DEPTH {
        return Err(e("the value nests too deeply".into()));
    }
    match ty {
        OType::Integer | OType::Long => {
            let Json::Number(n) = &node.value else {
                return Err(want("a whole number"));
            };
            let v = Decimal::parse(n).and_then(|d| d.to_i64()).ok_or_else(|| {
                e(format!(
                    "{n} is not a whole number in the range of {}",
                    ty.name()
                ))
            })?;
            if *ty == OType::Integer {
                let v = i32::try_from(v)
                    .map_err(|_| e(format!("{n} is outside the INTEGER range (32 bits)")))?;
                return Ok(Value {
                    cell: v.to_string().into_bytes(),
                    key: Some(KeyValue::Integer(v)),
                });
            }
            Ok(Value {
                cell: v.to_string().into_bytes(),
                key: Some(KeyValue::Long(v)),
            })
        }
        OType::Float | OType::Double => {
            let Json::Number(n) = &node.value else {
                return Err(want("a number"));
            };
            if *ty == OType::Float {
                let v: f32 = n.parse().map_err(|_| e(format!("{n} is not a FLOAT")))?;
                if !v.is_finite() {
                    return Err(e(format!("{n} is outside the FLOAT range")));
                }
                return Ok(Value {
                    cell: n.clone().into_bytes(),
                    key: Some(KeyValue::Float(v)),
                });
            }
            let v: f64 = n.parse().map_err(|_| e(format!("{n} is not a DOUBLE")))?;
            if !v.is_finite() {
                return Err(e(format!("{n} is outside the DOUBLE range")));
            }
            Ok(Value {
                cell: n.clone().into_bytes(),
                key: Some(KeyValue::Double(v)),
            })
        }
        OType::Number => {
            let text = match &node.value {
                Json::Number(n) => n.clone(),
                Json::String(s) if Decimal::parse(s).is_some() => s.trim().to_string(),
                _ => return Err(want("a number")),
            };
            let d = Decimal::parse(&text).ok_or_else(|| e(format!("{text} is not a number")))?;
            Ok(Value {
                cell: text.into_bytes(),
                key: Some(KeyValue::Number(d)),
            })
        }
        OType::String => {
            let Json::String(s) = &node.value else {
                return Err(want("a string"));
            };
            Ok(Value {
                cell: s.clone().into_bytes(),
                key: Some(KeyValue::String(s.clone())),
            })
        }
        OType::Boolean => {
            let Json::Bool(b) = &node.value else {
                return Err(want("true or false"));
            };
            Ok(Value {
                cell: if *b {
                    b"true".to_vec()
                } else {
                    b"false".to_vec()
                },
                key: Some(KeyValue::Boolean(*b)),
            })
        }
        OType::Binary | OType::FixedBinary(_) => {
            let Json::String(s) = &node.value else {
                return Err(want("a base64 string"));
            };
            let bytes = tabletop_store::base64_text::decode(s).map_err(|_| {
                e("binary values are written in base64; this string is not base64".into())
            })?;
            if let OType::FixedBinary(n) = ty
                && bytes.len() != *n
            {
                return Err(e(format!(
                    "FIXED_BINARY({n}) needs exactly {n} bytes, got {}",
                    bytes.len()
                )));
            }
            Ok(Value {
                cell: bytes,
                key: None,
            })
        }
        OType::Timestamp(p) => {
            let (secs, nanos) = match &node.value {
                Json::String(s) => parse_iso_timestamp(s).ok_or_else(|| {
                    e(format!(
                        "{s:?} is not a timestamp: write it as ISO 8601, such as 2023-09-10T15:21:48.123Z"
                    ))
                })?,
                Json::Number(n) => {
                    let ms = Decimal::parse(n).and_then(|d| d.to_i64()).ok_or_else(|| {
                        e(format!("{n} is not a whole number of milliseconds since 1970"))
                    })?;
                    (ms.div_euclid(1000), u32::try_from(ms.rem_euclid(1000) * 1_000_000).unwrap_or(0))
                }
                _ => return Err(want("an ISO 8601 string")),
            };
            let unit = 10u32.pow(9 - u32::from(*p));
            let nanos = nanos - nanos % unit;
            Ok(Value {
                cell: keycodec::iso_timestamp(secs, nanos, *p).into_bytes(),
                key: Some(KeyValue::Timestamp {
                    seconds: secs,
                    nanos,
                    precision: *p,
                }),
            })
        }
        OType::Enum(symbols) => {
            let Json::String(s) = &node.value else {
                return Err(want("one of the enum's symbols"));
            };
            let Some(index) = symbols.iter().position(|x| x == s) else {
                return Err(e(format!("{s:?} is not a symbol of {}", ty.name())));
            };
            Ok(Value {
                cell: s.clone().into_bytes(),
                key: Some(KeyValue::Enum {
                    index: u32::try_from(index).unwrap_or(u32::MAX),
                    symbol: s.clone(),
                    symbols: u32::try_from(symbols.len()).unwrap_or(u32::MAX),
                }),
            })
        }
        OType::Array(inner) => {
            let Json::Array(items) = &node.value else {
                return Err(want("an array"));
            };
            for item in items {
                if item.value == Json::Null && **inner != OType::Json {
                    return Err(TranslateError::new(
                        input,
                        item.pos,
                        format!("an {} cannot hold null", ty.name()),
                    ));
                }
                convert(inner, item, input, depth + 1)?;
            }
            Ok(Value {
                cell: node.to_compact().into_bytes(),
                key: None,
            })
        }
        OType::Map(inner) => {
            let Json::Object(members) = &node.value else {
                return Err(want("an object"));
            };
            for m in members {
                if m.value.value == Json::Null && **inner != OType::Json {
                    return Err(TranslateError::new(
                        input,
                        m.value.pos,
                        format!("a MAP cannot hold null (the field {:?})", m.key),
                    ));
                }
                convert(inner, &m.value, input, depth + 1)?;
            }
            Ok(Value {
                cell: node.to_compact().into_bytes(),
                key: None,
            })
        }
        OType::Record(fields) => {
            let Json::Object(members) = &node.value else {
                return Err(want("an object"));
            };
            for m in members {
                let Some(f) = fields.iter().find(|f| f.name.eq_ignore_ascii_case(&m.key)) else {
                    return Err(TranslateError::new(
                        input,
                        m.key_pos,
                        format!("the record has no field {:?}", m.key),
                    ));
                };
                if m.value.value == Json::Null {
                    if f.not_null {
                        return Err(TranslateError::new(
                            input,
                            m.value.pos,
                            format!("the record field {} is NOT NULL", f.name),
                        ));
                    }
                    continue;
                }
                convert(&f.ty, &m.value, input, depth + 1)?;
            }
            for f in fields {
                if f.not_null
                    && f.default.is_none()
                    && !members.iter().any(|m| m.key.eq_ignore_ascii_case(&f.name))
                {
                    return Err(e(format!("the record needs its NOT NULL field {}", f.name)));
                }
            }
            Ok(Value {
                cell: node.to_compact().into_bytes(),
                key: None,
            })
        }
        OType::Json => Ok(Value {
            cell: node.to_compact().into_bytes(),
            key: None,
        }),
    }
}

// ---------------------------------------------------------------------------
// Translation

const DATA_FAMILY: &str = "data";
const DOC_FAMILY: &str = "doc";

/// The family a field's COMMENT asks for (`family=stats`).
fn comment_family(f: &Field) -> Option<String> {
    let c = f.comment.as_deref()?;
    let at = c.find("family=")?;
    let name: String = c[at + 7..]
        .chars()
        .take_while(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.'))
        .collect();
    (!name.is_empty()).then_some(name)
}

fn key_encoding_text(
    ty: &OType,
    enc: KeyEncoding,
    identity: bool,
    reversed: bool,
    last: bool,
) -> String {
    if reversed {
        return format!(
            "the {}-digit zero-padded decimal with its digits reversed (scatters the sequence)",
            if *ty == OType::Integer { 10 } else { 19 }
        );
    }
    let s = match (enc, ty) {
        (KeyEncoding::Text, OType::Integer) => {
            "zero-padded 10-digit decimal (negatives: - and the nines' complement)".to_string()
        }
        (KeyEncoding::Text, OType::Long) => {
            "zero-padded 19-digit decimal (negatives: - and the nines' complement)".to_string()
        }
        (KeyEncoding::Text, OType::Float) => {
            "8 hex digits of the sign-flipped IEEE bits".to_string()
        }
        (KeyEncoding::Text, OType::Double) => {
            "16 hex digits of the sign-flipped IEEE bits".to_string()
        }
        (_, OType::Number) => "sortable decimal (sign digit, biased exponent, digits)".to_string(),
        (KeyEncoding::Text, OType::String) if last => "the string as it is".to_string(),
        (KeyEncoding::Text, OType::String) => {
            "the string, bytes up to `$` written as $XX".to_string()
        }
        (KeyEncoding::Text, OType::Boolean) => "false or true".to_string(),
        (KeyEncoding::Text, OType::Timestamp(p)) => {
            format!("ISO 8601 UTC with {p} fraction digits")
        }
        (KeyEncoding::Text, OType::Enum(_)) => {
            "zero-padded symbol position, `_`, the symbol".to_string()
        }
        (KeyEncoding::Binary, OType::Integer) => "4 bytes big-endian, sign bit flipped".to_string(),
        (KeyEncoding::Binary, OType::Long) => "8 bytes big-endian, sign bit flipped".to_string(),
        (KeyEncoding::Binary, OType::Float) => "4 bytes of the sign-flipped IEEE bits".to_string(),
        (KeyEncoding::Binary, OType::Double) => "8 bytes of the sign-flipped IEEE bits".to_string(),
        (KeyEncoding::Binary, OType::String) if last => "the UTF-8 bytes".to_string(),
        (KeyEncoding::Binary, OType::String) => {
            "the UTF-8 bytes, NUL as 00 FF, ended by 00 01".to_string()
        }
        (KeyEncoding::Binary, OType::Boolean) => "one byte, 0 or 1".to_string(),
        (KeyEncoding::Binary, OType::Timestamp(p)) if *p <= 6 => {
            "8 bytes: microseconds big-endian, sign bit flipped".to_string()
        }
        (KeyEncoding::Binary, OType::Timestamp(_)) => {
            "12 bytes: seconds (sign bit flipped) and nanoseconds, big-endian".to_string()
        }
        (KeyEncoding::Binary, OType::Enum(_)) => {
            "the symbol position in one byte (two past 256 symbols)".to_string()
        }
        _ => "bytes".to_string(),
    };
    if identity {
        format!("{s}; IDENTITY: generated in sequence")
    } else {
        s
    }
}

fn value_text(ty: &OType) -> String {
    match ty {
        OType::Integer | OType::Long => "decimal text".into(),
        OType::Float | OType::Double | OType::Number => "the number as written".into(),
        OType::String => "UTF-8 text".into(),
        OType::Boolean => "true or false".into(),
        OType::Binary | OType::FixedBinary(_) => "the raw bytes".into(),
        OType::Timestamp(p) => format!("ISO 8601 UTC with {p} fraction digits"),
        OType::Enum(_) => "the symbol".into(),
        OType::Array(_) | OType::Map(_) | OType::Record(_) | OType::Json => {
            "one compact JSON text (serialized cell)".into()
        }
    }
}

fn key_segment(f: &Field, reversed: bool) -> Segment {
    let name = super::segment_name(&f.name);
    let kind = match &f.ty {
        OType::Integer | OType::Long => SegmentKind::Int {
            width: Some(if f.ty == OType::Integer { 10 } else { 19 }),
            reversed,
            per: if f.identity.is_some() {
                Per::Op
            } else {
                Per::Entity
            },
        },
        OType::String if f.uuid.is_some() => SegmentKind::Uuid { per: Per::Entity },
        OType::Timestamp(_) => SegmentKind::Timestamp {
            unit: TimeUnit::Millis,
            reversed: false,
        },
        OType::Enum(values) => SegmentKind::Enum {
            values: values.clone(),
            weights: Vec::new(),
            per: Per::Entity,
        },
        OType::Boolean => SegmentKind::Enum {
            values: vec!["false".into(), "true".into()],
            weights: Vec::new(),
            per: Per::Entity,
        },
        OType::Float => SegmentKind::Hex {
            width: 8,
            per: Per::Entity,
        },
        OType::Double => SegmentKind::Hex {
            width: 16,
            per: Per::Entity,
        },
        OType::Number if f.identity.is_some() => SegmentKind::Int {
            width: None,
            reversed,
            per: Per::Op,
        },
        // Strings and numbers: an opaque id as far as the advisor is
        // concerned (the field's name still tells it about personal data).
        _ => SegmentKind::Hex {
            width: 8,
            per: Per::Entity,
        },
    };
    Segment { name, kind }
}

/// A deterministic version-4-style UUID for generated UUID columns.
fn generated_uuid(table: &str, n: usize) -> String {
    let a = hash_bytes(0x7575_6964, format!("{table}/{n}").as_bytes());
    let b = hash_bytes(a, table.as_bytes());
    let hex = format!("{a:016x}{b:016x}");
    format!(
        "{}-{}-4{}-{}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        ["8", "9", "a", "b"][usize::from(hex.as_bytes()[16] % 4)],
        &hex[17..20],
        &hex[20..32]
    )
}

fn translate_table(
    t: &Table,
    indexes: &[Index],
    records: &[Node],
    options: &Options,
) -> Result<TableTranslation, TranslateError> {
    validate_table_id(&t.name).map_err(|e| err(t.pos, e.message().to_string()))?;
    let mut notes = Vec::new();
    let key_fields: Vec<&Field> = t
        .primary_key
        .iter()
        .filter_map(|n| t.fields.iter().find(|f| &f.name == n))
        .collect();
    let enc = options.key_encoding;
    let (families, field_family) = families_of(t)?;
    ttl_notes(t, &mut notes);
    identity_note(t, options, &mut notes);
    uuid_and_shard_notes(t, &mut notes);
    // Defaults must be valid values of their fields.
    for f in &t.fields {
        if let Some(d) = &f.default {
            convert(&f.ty, d, Input::Ddl, 0)?;
        }
    }
    let rows = rows_of(t, &key_fields, &field_family, records, options, &mut notes)?;
    let index_plans: Vec<IndexPlan> = indexes
        .iter()
        .filter(|ix| ix.table.eq_ignore_ascii_case(&t.name))
        .map(|ix| index_plan(t, ix, &key_fields, &field_family, enc))
        .collect();
    Ok(TableTranslation {
        id: t.name.clone(),
        source_name: t.name.clone(),
        pattern: Pattern::OracleTable,
        row_key: row_key_parts(t, &key_fields, options),
        key_encoding: enc,
        families: families.into_values().collect(),
        splits: Vec::new(),
        rows,
        indexes: index_plans,
        notes,
        key_template: Some(key_template(&key_fields, options)),
        findings: Vec::new(),
    })
}

/// The families by name, and each value field's family.
type FamilyLayout = (BTreeMap<String, FamilyPlan>, BTreeMap<String, String>);

/// The families: by access (scalars together, documents apart) and by the
/// table's retention; and each value field's family.
fn families_of(t: &Table) -> Result<FamilyLayout, TranslateError> {
    let ttl_rule = t.ttl.map(|(n, days, _)| {
        GcRule::MaxAge(Duration::from_secs(n * if days { 86_400 } else { 3_600 }))
    });
    let gc = match &ttl_rule {
        Some(age) => GcRule::Union(vec![age.clone(), GcRule::MaxNumVersions(1)]),
        None => GcRule::MaxNumVersions(1),
    };
    let mut families: BTreeMap<String, FamilyPlan> = BTreeMap::new();
    let mut field_family: BTreeMap<String, String> = BTreeMap::new();
    let value_fields: Vec<&Field> = t
        .fields
        .iter()
        .filter(|f| !t.primary_key.contains(&f.name))
        .collect();
    for f in &value_fields {
        let fam = match comment_family(f) {
            Some(name) => {
                validate_family_name(&name).map_err(|e| err(f.pos, e.message().to_string()))?;
                name
            }
            None if f.ty.is_document() => DOC_FAMILY.to_string(),
            None => DATA_FAMILY.to_string(),
        };
        let why = match fam.as_str() {
            DATA_FAMILY => "scalar fields that most reads fetch together",
            DOC_FAMILY => {
                "documents and blobs, fetched only when needed (a family filter skips them)"
            }
            _ => "chosen by the field's COMMENT",
        };
        let plan = families.entry(fam.clone()).or_insert_with(|| FamilyPlan {
            name: fam.clone(),
            gc_rule: Some(gc.clone()),
            value_type: ValueType::Bytes,
            why: why.to_string(),
            columns: Vec::new(),
        });
        plan.columns.push(ColumnPlan {
            qualifier: f.name.clone(),
            source: format!("{} {}", f.name, f.ty.name()),
            value: value_text(&f.ty),
        });
        field_family.insert(f.name.clone(), fam);
    }
    if !families.contains_key(DATA_FAMILY) {
        // Rows of a key-only table (or records whose fields are all null)
        // still need a cell to exist.
        families.insert(
            DATA_FAMILY.to_string(),
            FamilyPlan {
                name: DATA_FAMILY.to_string(),
                gc_rule: Some(gc.clone()),
                value_type: ValueType::Bytes,
                why: "holds an empty marker cell so rows with no other cell still exist".into(),
                columns: vec![ColumnPlan {
                    qualifier: String::new(),
                    source: "(marker)".into(),
                    value: "empty".into(),
                }],
            },
        );
    }
    Ok((families, field_family))
}

/// What a `USING TTL` became.
fn ttl_notes(t: &Table, notes: &mut Vec<Note>) {
    if let Some((n, days, _)) = t.ttl {
        notes.push(Note::warning(
            "ttl",
            format!(
                "USING TTL {n} {} became a max-age of {n}{} on every family. Bigtable's garbage collection is lazy: expired cells stay readable until a compaction removes them (hours to days later), so reads that must not see them need a timestamp-range filter",
                if days { "DAYS" } else { "HOURS" },
                if days { "d" } else { "h" }
            ),
        ));
        notes.push(Note::info(
            "ttl",
            "Oracle expires a whole row a TTL after its last write; Bigtable expires each cell by its own timestamp, so write every field when updating a row if its fields must expire together. Per-row TTL overrides have no Bigtable equivalent",
        ));
    }
}

/// What an IDENTITY column becomes, and what it means for the row key.
fn identity_note(t: &Table, options: &Options, notes: &mut Vec<Note>) {
    let identity = t.fields.iter().find(|f| f.identity.is_some());
    if let Some(idf) = identity {
        let Some(id) = &idf.identity else {
            unreachable!("the field was chosen for having an identity")
        };
        let in_key = t.primary_key.contains(&idf.name);
        let leading = t.primary_key.first() == Some(&idf.name);
        let mut text = format!(
            "{} is an IDENTITY column ({}, START WITH {}, INCREMENT BY {}): records without it get the next value of the sequence here",
            idf.name,
            if id.always {
                "GENERATED ALWAYS"
            } else if id.on_null {
                "GENERATED BY DEFAULT ON NULL"
            } else {
                "GENERATED BY DEFAULT"
            },
            id.start,
            id.increment
        );
        if leading && options.reverse_identity {
            text.push_str(
                "; its digits are reversed in the row key, so consecutive ids land far apart",
            );
        } else if leading {
            text.push_str(". Bigtable has no sequences: the application must hand out ids, and ids in order put every new row at the end of the table, on one node (see the advisor's sequential_id_first)");
        } else if in_key {
            text.push_str(
                ". It follows other key fields, so new rows spread over the leading field's values",
            );
        }
        notes.push(if leading && !options.reverse_identity {
            Note::warning("identity", text)
        } else {
            Note::info("identity", text)
        });
    }
}

/// UUID fields and a shard key that leads the primary key.
fn uuid_and_shard_notes(t: &Table, notes: &mut Vec<Note>) {
    for f in &t.fields {
        if f.uuid == Some(true) {
            notes.push(Note::info(
                "uuid",
                format!(
                    "{} is a UUID generated by default; records without it get a UUID derived from the table name and record number, so a translation repeats exactly (the service generates random ones)",
                    f.name
                ),
            ));
        }
    }
    if t.shard_len > 0 && t.shard_len < t.primary_key.len() {
        notes.push(Note::info(
            "shard",
            format!(
                "The shard key ({}) leads the row key, so the rows Oracle keeps in one shard are neighbours in Bigtable: one prefix scan reads them, and Bigtable's single-row atomicity covers each row",
                t.primary_key[..t.shard_len].join(", ")
            ),
        ));
    }
}

/// The rows of the records, by row key (a later record with the key of an
/// earlier one replaces it, as Oracle's put does).
fn rows_of(
    t: &Table,
    key_fields: &[&Field],
    field_family: &BTreeMap<String, String>,
    records: &[Node],
    options: &Options,
    notes: &mut Vec<Note>,
) -> Result<Vec<RowPlan>, TranslateError> {
    let identity = t.fields.iter().find(|f| f.identity.is_some());
    let mut rows: BTreeMap<Vec<u8>, (usize, Vec<CellPlan>)> = BTreeMap::new();
    let mut next_id: i128 = identity
        .and_then(|f| f.identity.as_ref())
        .map_or(1, |i| i.start);
    let mut replaced = 0usize;
    for (n, rec) in records.iter().enumerate() {
        let (key, cells) = record_row(t, key_fields, field_family, rec, n, &mut next_id, options)?;
        if rows.insert(key, (n, cells)).is_some() {
            replaced += 1;
        }
    }
    if replaced > 0 {
        notes.push(Note::info(
            "duplicates",
            format!("{replaced} record(s) repeated an earlier primary key; as with Oracle's put, the later record replaced the earlier row"),
        ));
    }
    Ok(rows
        .into_iter()
        .map(|(key, (_, cells))| RowPlan { key, cells })
        .collect())
}

/// One record (the `n`th) as a row key and its cells, generating identity
/// values (from `next_id`) and UUIDs it leaves out.
fn record_row(
    t: &Table,
    key_fields: &[&Field],
    field_family: &BTreeMap<String, String>,
    rec: &Node,
    n: usize,
    next_id: &mut i128,
    options: &Options,
) -> Result<(Vec<u8>, Vec<CellPlan>), TranslateError> {
    let now = options.now_ms();
    let Json::Object(members) = &rec.value else {
        return Err(rows_err(
            rec.pos,
            format!(
                "a record of {} must be a JSON object, found {}",
                t.name,
                rec.kind()
            ),
        ));
    };
    let mut given: BTreeMap<String, &Node> = BTreeMap::new();
    for m in members {
        let Some(f) = t
            .fields
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(&m.key))
        else {
            return Err(rows_err(
                m.key_pos,
                format!("the table {} has no field {:?}", t.name, m.key),
            ));
        };
        if given.insert(f.name.clone(), &m.value).is_some() {
            return Err(rows_err(
                m.key_pos,
                format!("the field {} is given twice", f.name),
            ));
        }
    }
    let mut key_by_field: BTreeMap<String, KeyValue> = BTreeMap::new();
    let mut cells: Vec<CellPlan> = Vec::new();
    for f in &t.fields {
        let supplied = given.get(&f.name).copied();
        let generated = generated_value(t, f, supplied, rec, n, next_id)?;
        let (node, input): (Option<&Node>, Input) = match (&generated, supplied) {
            (Some(g), _) => (Some(g), Input::Rows),
            (None, Some(v)) if v.value != Json::Null => (Some(v), Input::Rows),
            (None, _) => (f.default.as_ref(), Input::Ddl),
        };
        let in_key = t.primary_key.contains(&f.name);
        let Some(node) = node else {
            if in_key {
                return Err(rows_err(
                    supplied.map_or(rec.pos, |v| v.pos),
                    format!("the record has no value for the key field {}", f.name),
                ));
            }
            if f.not_null {
                return Err(rows_err(
                    supplied.map_or(rec.pos, |v| v.pos),
                    format!("{} is NOT NULL and has no default", f.name),
                ));
            }
            continue;
        };
        let value = convert(&f.ty, node, input, 0)?;
        if f.uuid.is_some() {
            let s = String::from_utf8_lossy(&value.cell);
            if !looks_like_uuid(&s) {
                return Err(rows_err(node.pos, format!("{s:?} is not a UUID")));
            }
        }
        if in_key {
            if let Some(kv) = value.key {
                key_by_field.insert(f.name.clone(), kv);
            }
            continue;
        }
        let Some(fam) = field_family.get(&f.name) else {
            continue;
        };
        cells.push(CellPlan {
            family: fam.clone(),
            qualifier: f.name.clone().into_bytes(),
            timestamp_micros: now,
            value: CellValue::Bytes(value.cell),
        });
    }
    let mut key_values: Vec<KeyValue> = Vec::new();
    for kf in key_fields {
        let kv = key_by_field
            .remove(&kf.name)
            .ok_or_else(|| rows_err(rec.pos, format!("the key field {} has no value", kf.name)))?;
        key_values.push(kv);
    }
    let key = encode_row_key(key_fields, &key_values, options).map_err(|m| rows_err(rec.pos, m))?;
    if key.is_empty() {
        return Err(rows_err(
            rec.pos,
            "the row key is empty (an empty string key)",
        ));
    }
    if key.len() > tabletop_store::MAX_ROW_KEY_BYTES {
        return Err(rows_err(
            rec.pos,
            format!(
                "the row key is {} bytes; Bigtable's limit is 4 KiB",
                key.len()
            ),
        ));
    }
    if cells.is_empty() {
        cells.push(CellPlan {
            family: DATA_FAMILY.to_string(),
            qualifier: Vec::new(),
            timestamp_micros: now,
            value: CellValue::Bytes(Vec::new()),
        });
    }
    Ok((key, cells))
}

/// The value a record gets for a field it leaves out (or sets to null)
/// that generates one: the next identity value (from `next_id`), or a
/// UUID derived from the table and the record number `n`.
fn generated_value(
    t: &Table,
    f: &Field,
    supplied: Option<&Node>,
    rec: &Node,
    n: usize,
    next_id: &mut i128,
) -> Result<Option<Node>, TranslateError> {
    let is_null = supplied.is_some_and(|v| v.value == Json::Null);
    if let Some(id) = &f.identity {
        if id.always && supplied.is_some() && !is_null {
            return Err(rows_err(
                supplied.map_or(rec.pos, |v| v.pos),
                format!(
                    "{} is GENERATED ALWAYS AS IDENTITY: records must leave it out",
                    f.name
                ),
            ));
        }
        if supplied.is_none() || (is_null && (id.on_null || id.always)) {
            let v = *next_id;
            *next_id += id.increment;
            let limit = match f.ty {
                OType::Integer => i128::from(i32::MIN)..=i128::from(i32::MAX),
                OType::Long => i128::from(i64::MIN)..=i128::from(i64::MAX),
                _ => -(10i128.pow(30))..=10i128.pow(30),
            };
            if !limit.contains(&v) {
                return Err(rows_err(
                    rec.pos,
                    format!(
                        "the identity sequence of {} ran out of {} values",
                        f.name,
                        f.ty.name()
                    ),
                ));
            }
            return Ok(Some(Node {
                value: Json::Number(v.to_string()),
                pos: rec.pos,
            }));
        }
    } else if f.uuid == Some(true) && (supplied.is_none() || is_null) {
        return Ok(Some(Node {
            value: Json::String(generated_uuid(&t.name, n)),
            pos: rec.pos,
        }));
    }
    Ok(None)
}

/// How each key field is encoded in the row key.
fn row_key_parts(t: &Table, key_fields: &[&Field], options: &Options) -> Vec<KeyPart> {
    let enc = options.key_encoding;
    let mut row_key = Vec::new();
    for (i, f) in key_fields.iter().enumerate() {
        let reversed = options.reverse_identity
            && i == 0
            && f.identity.is_some()
            && matches!(f.ty, OType::Integer | OType::Long);
        let mut encoding = key_encoding_text(
            &f.ty,
            enc,
            f.identity.is_some(),
            reversed,
            i + 1 == key_fields.len(),
        );
        if i < t.shard_len {
            encoding.push_str("; shard key");
        }
        row_key.push(KeyPart {
            name: f.name.clone(),
            source_type: f.ty.name(),
            encoding,
        });
    }
    row_key
}

/// The key as the row-key designer writes it.
fn key_template(key_fields: &[&Field], options: &Options) -> KeyTemplate {
    let enc = options.key_encoding;
    KeyTemplate {
        delimiter: if enc == KeyEncoding::Text {
            "#".into()
        } else {
            String::new()
        },
        segments: key_fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                key_segment(
                    f,
                    options.reverse_identity && i == 0 && f.identity.is_some(),
                )
            })
            .collect(),
    }
}

/// Where an indexed path lives in the translated table and how it reads.
fn index_field(
    path: &str,
    t: &Table,
    key_fields: &[&Field],
    field_family: &BTreeMap<String, String>,
) -> index::Field {
    let unreadable = |why: String| index::Field {
        name: path.to_string(),
        kind: Kind::Text,
        place: Place::Unreadable(why),
    };
    let Some(f) = t.fields.iter().find(|f| f.name.eq_ignore_ascii_case(path)) else {
        return unreadable(format!(
            "{path} is a path inside a document, which is stored as one JSON text that a view here cannot look into"
        ));
    };
    let kind = match f.ty {
        OType::Integer | OType::Long => Kind::Integer,
        OType::Float | OType::Double | OType::Number => Kind::Decimal,
        OType::Binary | OType::FixedBinary(_) => Kind::Bytes,
        _ => Kind::Text,
    };
    let place = if let Some(i) = key_fields.iter().position(|k| k.name == f.name) {
        Place::KeyField {
            index: i,
            count: key_fields.len(),
        }
    } else if f.ty.is_document() && !matches!(f.ty, OType::Binary) {
        Place::Unreadable(format!(
            "{} is a {} field, stored as one JSON text that a view here cannot look into",
            f.name,
            f.ty.name()
        ))
    } else {
        match field_family.get(&f.name) {
            Some(family) => Place::Column {
                family: family.clone(),
                qualifier: f.name.clone(),
            },
            None => Place::Unreadable(format!("{} has no column", f.name)),
        }
    };
    index::Field {
        name: f.name.clone(),
        kind,
        place,
    }
}

/// A CREATE INDEX as a continuous materialized view, or an index table.
fn index_plan(
    t: &Table,
    ix: &Index,
    key_fields: &[&Field],
    field_family: &BTreeMap<String, String>,
    enc: KeyEncoding,
) -> IndexPlan {
    index::plan(&Spec {
        table: &t.name,
        name: &ix.name,
        key_text: ix.paths.join(", "),
        projection: "the primary key".into(),
        fields: ix
            .paths
            .iter()
            .map(|p| index_field(p, t, key_fields, field_family))
            .collect(),
        values: Vec::new(),
        key_encoding: enc,
        no_view: None,
        freshness: "; unlike an Oracle NoSQL index, which changes with the row, it may miss a write made a moment ago",
        table_key: format!("{}#<primary key>", ix.paths.join("#")),
        holds: "an empty marker cell".into(),
        extra: Some(format!(
            "A lookup that is rarely needed can instead scan {} with a value filter.",
            t.name
        )),
    })
}

fn looks_like_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                *c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

fn encode_row_key(
    key_fields: &[&Field],
    values: &[KeyValue],
    options: &Options,
) -> Result<Vec<u8>, String> {
    let values: Vec<KeyValue> = values
        .iter()
        .zip(key_fields)
        .enumerate()
        .map(|(i, (v, f))| {
            if options.reverse_identity && i == 0 && f.identity.is_some() {
                match v {
                    KeyValue::Integer(x) => KeyValue::ReversedDigits {
                        value: i64::from(*x),
                        width: 10,
                    },
                    KeyValue::Long(x) => KeyValue::ReversedDigits {
                        value: *x,
                        width: 19,
                    },
                    other => other.clone(),
                }
            } else {
                v.clone()
            }
        })
        .collect();
    keycodec::encode_key(&values, options.key_encoding)
}

/// Splits the rows text into records per table.
fn records_by_table(
    rows: &str,
    tables: &[Table],
) -> Result<BTreeMap<String, Vec<Node>>, TranslateError> {
    let mut out: BTreeMap<String, Vec<Node>> = BTreeMap::new();
    let values = json::parse_many(rows, Input::Rows)?;
    if values.is_empty() {
        return Ok(out);
    }
    if tables.len() > 1 {
        let [only] = values.as_slice() else {
            return Err(rows_err(
                values[1].pos,
                "the DDL creates several tables: give the rows as one object mapping each table name to an array of records",
            ));
        };
        let Json::Object(members) = &only.value else {
            return Err(rows_err(
                only.pos,
                "the DDL creates several tables: give the rows as one object mapping each table name to an array of records",
            ));
        };
        for m in members {
            let Some(t) = tables.iter().find(|t| t.name.eq_ignore_ascii_case(&m.key)) else {
                return Err(rows_err(
                    m.key_pos,
                    format!("the DDL creates no table {:?}", m.key),
                ));
            };
            let Json::Array(items) = &m.value.value else {
                return Err(rows_err(
                    m.value.pos,
                    format!("the records of {} must be an array", t.name),
                ));
            };
            out.entry(t.name.clone())
                .or_default()
                .extend(items.iter().cloned());
        }
        return Ok(out);
    }
    let Some(t) = tables.first() else {
        return Err(rows_err(
            values[0].pos,
            "there are rows but the DDL creates no table",
        ));
    };
    let list = out.entry(t.name.clone()).or_default();
    for v in values {
        match v.value {
            Json::Array(items) => list.extend(items),
            _ => list.push(v),
        }
    }
    Ok(out)
}

/// Everything [`super::from_oracle_ddl`] does except the advisor.
pub(crate) fn translate(
    ddl: &str,
    rows: &str,
    options: &Options,
) -> Result<Translation, TranslateError> {
    let toks = lex(ddl)?;
    let mut p = Parser { toks, i: 0 };
    let (tables, indexes) = p.statements()?;
    for (i, t) in tables.iter().enumerate() {
        if tables[..i]
            .iter()
            .any(|u| u.name.eq_ignore_ascii_case(&t.name))
        {
            return Err(err(t.pos, format!("the table {} is created twice", t.name)));
        }
    }
    for ix in &indexes {
        if !tables
            .iter()
            .any(|t| t.name.eq_ignore_ascii_case(&ix.table))
        {
            return Err(err(
                ix.table_pos,
                format!(
                    "the index {} is on {}, which the DDL does not create",
                    ix.name, ix.table
                ),
            ));
        }
    }
    if tables.is_empty() {
        return Err(err(
            p.peek().pos,
            "the DDL creates no table: expected CREATE TABLE name (field TYPE, ..., PRIMARY KEY(...))",
        ));
    }
    let records = records_by_table(rows, &tables)?;
    let mut out = Vec::new();
    for t in &tables {
        let recs = records.get(&t.name).map_or(&[][..], Vec::as_slice);
        let _ = t.key_pos;
        out.push(translate_table(t, &indexes, recs, options)?);
    }
    let mut notes = vec![Note::info(
        "oracle",
        "Values are written as text (numbers, booleans, timestamps, enums), UTF-8 or raw bytes; JSON, RECORD, ARRAY and MAP fields are one serialized JSON cell each. Bigtable stores bytes: readers decode them by the column's type",
    )];
    if out.iter().any(|t| !t.indexes.is_empty()) {
        notes.push(Note::info(
            "index",
            "Each index becomes a continuous materialized view where it can (its CREATE MATERIALIZED VIEW statement runs in the SQL console once the tables exist), with an index table written by the application as the alternative",
        ));
    }
    Ok(Translation {
        source: Source::OracleDdl,
        name: tables[0].name.clone(),
        tables: out,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            now_micros: 1_700_000_000_123_456,
            ..Options::default()
        }
    }

    #[test]
    fn the_seed_examples_parse() {
        let ddl = r#"
            // schema less, data is stored in a JSON field
            CREATE TABLE audience_info (
            cookie_id LONG,
            audience_data JSON,
            PRIMARY KEY(cookie_id));
            CREATE TABLE if not exists myProducts
            (
            productName STRING,
            productType STRING,
            productLine INTEGER,
            PRIMARY KEY (SHARD(productName, productType), productLine)
            )
        "#;
        let t = translate(ddl, "", &opts()).unwrap();
        assert_eq!(t.tables.len(), 2);
        assert_eq!(t.tables[1].row_key.len(), 3);
        assert!(t.tables[1].row_key[0].encoding.contains("shard key"));
    }

    #[test]
    fn iso_timestamps() {
        assert_eq!(parse_iso_timestamp("1970-01-01"), Some((0, 0)));
        assert_eq!(
            parse_iso_timestamp("2023-09-10T15:21:48.5Z"),
            Some((1_694_359_308, 500_000_000))
        );
        assert_eq!(
            parse_iso_timestamp("2023-09-10T17:21:48+02:00"),
            Some((1_694_359_308, 0))
        );
        assert_eq!(parse_iso_timestamp("2023-02-29"), None);
        assert_eq!(parse_iso_timestamp("2023-09-10T25:00"), None);
        assert_eq!(parse_iso_timestamp("x"), None);
    }

    #[test]
    fn uuids_are_deterministic_and_well_formed() {
        let a = generated_uuid("t", 0);
        assert!(looks_like_uuid(&a), "{a}");
        assert_eq!(a, generated_uuid("t", 0));
        assert_ne!(a, generated_uuid("t", 1));
    }
}
