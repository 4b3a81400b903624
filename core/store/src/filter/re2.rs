//! Bigtable's regex dialect: RE2 syntax in Latin-1 ("raw byte") mode,
//! evaluated as a full match. Owns the translation of an RE2 pattern into
//! the `regex` crate's byte-oriented syntax and the matcher the evaluator
//! calls; knows nothing about filters.
//!
//! Bigtable's rules (see `RowFilter` in `google/bigtable/v2/data.proto`):
//! every byte of the pattern is one Latin-1 character, `.` matches any byte
//! except `\n`, `\C` matches any byte, and a pattern must match the whole
//! row key, qualifier or value. The `regex` crate differs from RE2 in a few
//! places, so the pattern is not handed over as it is: it is parsed here
//! (rejecting what RE2 rejects, with RE2's error wording) and re-emitted in
//! a canonical form where
//! - every literal byte is written as `\xHH` (so `\<`, `&&`, `~~` or `--`
//!   never take the crate's extended meanings),
//! - Perl classes (`\d \s \w`) are spelled out with RE2's ASCII definitions
//!   (RE2's `\s` has no `\v`, the crate's ASCII `\s` has),
//! - `\C` becomes "any byte", octal escapes become bytes, `\Q…\E` is
//!   quoted, `{` that does not start a valid repetition is a literal,
//! - groups become non-capturing (captures do not matter for matching),
//! - flag groups are canonicalised (RE2 accepts `(?ii)` and `(?)`).
//!
//! RE2's limits are checked too: counted repetitions at most 1000, also when
//! nested (`(a{100}){100}` is rejected as RE2 rejects it).
//!
//! - Unicode classes (`\pN`, `\p{Greek}`, `\PL`, `\p{^Lu}`, also inside
//!   brackets) become the set of bytes whose Latin-1 code point is in the
//!   class, and under `(?i)` a Latin-1 letter also matches its other case
//!   (`é`/`É`), as RE2 does in raw byte mode (see `filter/latin1.rs`).
//!
//! Known differences from production, both rare: the size limit is the
//! `regex` crate's, not RE2's `max_mem`; script names are Unicode 15.0's
//! (the emulator's), so a script added since (which matches no Latin-1
//! byte) is refused where a newer RE2 would take it.
//!
//! Common patterns skip the regex engine altogether: a pattern that is a
//! plain literal (what client libraries' `exactMatch` helpers produce) is a
//! byte comparison, and a literal followed by `\C*` or `.*` is a prefix test.
//! A fixed-length run of literals and classes (`PQ2A\.19040[0-9]\.003`) is
//! a table lookup per byte, and other patterns test the lengths a match can
//! have before the engine runs (see `filter/regex_shape.rs`).

use std::fmt::Write as _;

use super::latin1;
use super::regex_shape::{self, ByteSequence, ByteSet};
use crate::bytes;

/// RE2's `kMaxRepeat`: the largest count in `{n,m}`, also as a product of
/// nested counts.
const MAX_REPEAT: u32 = 1000;

/// Why a pattern was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RegexError {
    /// The pattern is not valid RE2 (what production rejects).
    Invalid(String),
}

/// A compiled full-match pattern over bytes.
#[derive(Clone, Debug)]
pub(crate) struct ByteRegex {
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    /// The pattern is a literal: the haystack must equal it.
    Exact(Box<[u8]>),
    /// A literal followed by `\C*` (`newline_ok`) or `.*` (no `\n` after
    /// the prefix).
    Prefix { prefix: Box<[u8]>, newline_ok: bool },
    /// A fixed-length run of byte sets (see [`ByteSequence`]), decided by
    /// a table; `prefix` is its leading literal, for
    /// [`ByteRegex::required_prefix`].
    Sequence {
        prefix: Box<[u8]>,
        seq: ByteSequence,
    },
    /// Anything else. Every match starts with `prefix` and is `min_len` to
    /// `max_len` bytes long, which are tested first: most cells a selective
    /// pattern rejects never reach the regex engine.
    Regex {
        prefix: Box<[u8]>,
        min_len: usize,
        max_len: usize,
        re: regex::bytes::Regex,
    },
}

impl ByteRegex {
    /// Parses and compiles an RE2 pattern.
    pub(crate) fn new(pattern: &[u8]) -> Result<ByteRegex, RegexError> {
        let translated = translate(pattern)?;
        if let Some(kind) = simple_form(pattern) {
            return Ok(ByteRegex { kind });
        }
        let anchored = format!(r"\A(?:{})\z", translated.regex);
        let re = regex::bytes::RegexBuilder::new(&anchored)
            .unicode(false)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => {
                    RegexError::Invalid("pattern too large - compile failed".to_string())
                }
                other => {
                    let text = other.to_string();
                    let last = text.lines().last().unwrap_or("invalid pattern").trim();
                    let last = last.strip_prefix("error: ").unwrap_or(last);
                    RegexError::Invalid(last.to_string())
                }
            })?;
        let prefix = if translated.top_level_alternation {
            Box::default()
        } else {
            required_prefix(pattern).into_boxed_slice()
        };
        let shape = regex_shape::shape(&anchored).unwrap_or_default();
        let kind = match shape.sequence {
            Some(seq) => Kind::Sequence { prefix, seq },
            None => Kind::Regex {
                prefix,
                min_len: shape.min_len,
                max_len: shape.max_len.unwrap_or(usize::MAX),
                re,
            },
        };
        Ok(ByteRegex { kind })
    }

    /// Bytes every matching haystack starts with (possibly none): the
    /// literal itself, the literal prefix, or the leading literal of a
    /// pattern without top-level alternation.
    pub(crate) fn required_prefix(&self) -> &[u8] {
        match &self.kind {
            Kind::Exact(lit) => lit,
            Kind::Prefix { prefix, .. }
            | Kind::Sequence { prefix, .. }
            | Kind::Regex { prefix, .. } => prefix,
        }
    }

    /// The shortest and longest haystack that can match (`usize::MAX`:
    /// unbounded).
    pub(crate) fn length_bounds(&self) -> (usize, usize) {
        match &self.kind {
            Kind::Exact(lit) => (lit.len(), lit.len()),
            Kind::Prefix { prefix, .. } => (prefix.len(), usize::MAX),
            Kind::Sequence { seq, .. } => (seq.len(), seq.len()),
            Kind::Regex {
                min_len, max_len, ..
            } => (*min_len, *max_len),
        }
    }

    /// The bytes every match starts with, when that is known (and every
    /// match is non-empty): the first of the required prefix, or the first
    /// set of a byte-set sequence.
    pub(crate) fn first_bytes(&self) -> Option<ByteSet> {
        if let Kind::Sequence { seq, .. } = &self.kind {
            return seq.first().copied();
        }
        let &first = self.required_prefix().first()?;
        let mut set = ByteSet::EMPTY;
        set.add(first);
        Some(set)
    }

    /// Whether the whole haystack matches.
    #[inline]
    pub(crate) fn is_match(&self, hay: &[u8]) -> bool {
        match &self.kind {
            Kind::Exact(lit) => bytes::eq(hay, lit),
            Kind::Prefix { prefix, newline_ok } => match hay.split_at_checked(prefix.len()) {
                Some((head, tail)) => {
                    bytes::eq(head, prefix) && (*newline_ok || !tail.contains(&b'\n'))
                }
                None => false,
            },
            Kind::Sequence { seq, .. } => seq.is_match(hay),
            Kind::Regex {
                prefix,
                min_len,
                max_len,
                re,
            } => {
                (*min_len..=*max_len).contains(&hay.len())
                    && hay
                        .get(..prefix.len())
                        .is_some_and(|head| bytes::eq(head, prefix))
                    && re.is_match(hay)
            }
        }
    }
}

/// One literal byte at the start of `rest` (an ordinary character or an
/// escape standing for one byte) and its length in the pattern, or `None`
/// if `rest` does not start with one.
fn literal_unit(rest: &[u8]) -> Option<(u8, usize)> {
    match rest {
        [b'\\', c, ..] if c.is_ascii() && !is_word(*c) => Some((*c, 2)),
        [b'\\', b'_', ..] => Some((b'_', 2)),
        [b'\\', c @ (b'a' | b'f' | b't' | b'n' | b'r' | b'v'), ..] => Some((control_escape(*c), 2)),
        [b'\\', b'x', h, l, ..] if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
            Some((hex_value(*h) * 16 + hex_value(*l), 4))
        }
        [b'\\', ..] | [] => None,
        [c, ..] if is_meta(*c) => None,
        [c, ..] => Some((*c, 1)),
    }
}

/// The literal bytes every match of a valid pattern without top-level
/// alternation starts with: the leading literal characters, up to the
/// first one a repetition may skip or repeat.
fn required_prefix(pat: &[u8]) -> Vec<u8> {
    let mut lit = Vec::new();
    let mut i = 0;
    while let Some((byte, len)) = pat.get(i..).and_then(literal_unit) {
        i += len;
        match pat.get(i) {
            Some(b'?' | b'*' | b'{') => break,
            Some(b'+') => {
                lit.push(byte);
                break;
            }
            _ => lit.push(byte),
        }
    }
    lit
}

/// Recognises patterns that need no regex engine: a literal, optionally
/// followed by `\C*` or `.*`. The pattern must already have passed
/// [`translate`], so anything unusual simply means "not simple".
fn simple_form(pat: &[u8]) -> Option<Kind> {
    let mut lit = Vec::with_capacity(pat.len());
    let mut i = 0;
    loop {
        let rest = pat.get(i..)?;
        match rest {
            [] => return Some(Kind::Exact(lit.into_boxed_slice())),
            b"\\C*" => {
                return Some(Kind::Prefix {
                    prefix: lit.into_boxed_slice(),
                    newline_ok: true,
                });
            }
            b".*" => {
                return Some(Kind::Prefix {
                    prefix: lit.into_boxed_slice(),
                    newline_ok: false,
                });
            }
            _ => {}
        }
        let (byte, len) = literal_unit(rest)?;
        i += len;
        if matches!(pat.get(i), Some(b'*' | b'+' | b'?' | b'{')) {
            return None;
        }
        lit.push(byte);
    }
}

fn is_meta(c: u8) -> bool {
    matches!(
        c,
        b'\\'
            | b'.'
            | b'+'
            | b'*'
            | b'?'
            | b'('
            | b')'
            | b'|'
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'^'
            | b'$'
    )
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn hex_value(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

fn control_escape(c: u8) -> u8 {
    match c {
        b'a' => 0x07,
        b'f' => 0x0C,
        b't' => b'\t',
        b'n' => b'\n',
        b'r' => b'\r',
        b'v' => 0x0B,
        _ => c,
    }
}

/// Text of a pattern fragment for an error message: printable ASCII as
/// written (backslashes included, as RE2 shows them), other bytes as `\xNN`.
fn shown(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) {
            s.push(char::from(b));
        } else {
            let _ = write!(s, "\\x{b:02x}");
        }
    }
    s
}

/// What precedes the next token, for the repetition rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    /// Start of the pattern or group, after `|` or a flag group: a
    /// repetition operator here has no argument.
    Nothing,
    /// An atom whose nested repetition count product is the weight.
    Atom(u32),
    /// A repetition operator, which may still take one `?` (non-greedy).
    Repeat { lazy_allowed: bool },
}

/// One open group.
#[derive(Clone, Copy, Debug)]
struct Frame {
    /// Largest repetition product inside the group.
    weight: u32,
    /// Where the group starts in the pattern, for "missing )".
    start: usize,
    /// Whether `(?i)` was on where the group opened (it is again once the
    /// group closes).
    fold: bool,
}

/// A class item, before it is written out.
#[derive(Clone, Copy, Debug)]
enum ClassItem {
    Range(u8, u8),
    /// A Perl class (`d`, `s`, `w`), possibly negated.
    Perl(u8, bool),
    /// A POSIX class name, possibly negated.
    Posix(&'static str, bool),
    /// A character outside Latin-1 (from `\x{100}` or `\777`): matches
    /// nothing in raw byte mode.
    Nothing,
    /// A Unicode class cut to Latin-1 (folded and negated already).
    Set(ByteSet),
}

/// What one escape sequence stands for.
enum Escape {
    Byte(u8),
    /// A code point above 0xFF: never matches a single byte.
    Wide,
    Perl(u8, bool),
    /// A Unicode class cut to Latin-1 (folded and negated already).
    Set(ByteSet),
}

struct Translator<'p> {
    pat: &'p [u8],
    pos: usize,
    out: String,
    frames: Vec<Frame>,
    /// Largest repetition product in the current group so far.
    weight: u32,
    last: Last,
    names: Vec<&'p [u8]>,
    top_level_alternation: bool,
    /// Whether `(?i)` is on here.
    fold: bool,
}

/// Parses an RE2 pattern and returns the equivalent `regex` crate syntax
/// (without the full-match anchors).
/// A pattern in the `regex` crate's syntax.
pub(crate) struct Translated {
    /// The pattern, without the full-match anchors.
    pub(crate) regex: String,
    /// Whether `|` occurs outside any group.
    pub(crate) top_level_alternation: bool,
}

pub(crate) fn translate(pat: &[u8]) -> Result<Translated, RegexError> {
    let mut t = Translator {
        pat,
        pos: 0,
        out: String::with_capacity(pat.len() * 2 + 8),
        frames: Vec::new(),
        weight: 1,
        last: Last::Nothing,
        names: Vec::new(),
        top_level_alternation: false,
        fold: false,
    };
    t.run()?;
    Ok(Translated {
        regex: t.out,
        top_level_alternation: t.top_level_alternation,
    })
}

fn invalid(msg: impl Into<String>) -> RegexError {
    RegexError::Invalid(msg.into())
}

impl<'p> Translator<'p> {
    fn peek(&self) -> Option<u8> {
        self.pat.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.pat.get(self.pos + k).copied()
    }

    fn rest(&self) -> &'p [u8] {
        self.pat.get(self.pos..).unwrap_or(&[])
    }

    fn atom(&mut self) {
        self.last = Last::Atom(1);
        self.weight = self.weight.max(1);
    }

    /// A literal byte; under `(?i)` a Latin-1 letter beyond ASCII is
    /// written with its other case (the `regex` crate, in byte mode, folds
    /// ASCII only).
    fn push_literal(&mut self, b: u8) {
        match latin1::case_partner(b).filter(|_| self.fold && !b.is_ascii()) {
            Some(p) => {
                let _ = write!(self.out, "[\\x{b:02X}\\x{p:02X}]");
            }
            None => self.push_byte(b),
        }
    }

    /// A Unicode class cut to Latin-1, as a class of its own.
    fn push_set(&mut self, set: &ByteSet) {
        self.out.push('[');
        if !latin1::write_class_items(&mut self.out, set) {
            self.out.push_str(r"^\x00-\xFF");
        }
        self.out.push(']');
    }

    fn push_byte(&mut self, b: u8) {
        if b.is_ascii_alphanumeric() {
            self.out.push(char::from(b));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(self.out, "\\x{b:02X}");
        }
    }

    fn run(&mut self) -> Result<(), RegexError> {
        while let Some(c) = self.peek() {
            match c {
                b'\\' => self.escape_top()?,
                b'[' => {
                    self.class()?;
                    self.atom();
                }
                b'(' => self.open_group()?,
                b')' => self.close_group()?,
                b'|' => {
                    self.pos += 1;
                    self.out.push('|');
                    if self.frames.is_empty() {
                        self.top_level_alternation = true;
                    }
                    self.last = Last::Nothing;
                }
                b'*' | b'+' | b'?' => self.repeat_op(c)?,
                b'{' => match self.counted_repeat() {
                    Some((lo, hi, len)) => self.counted(lo, hi, len)?,
                    None => {
                        self.pos += 1;
                        self.push_literal(b'{');
                        self.atom();
                    }
                },
                b'^' | b'$' | b'.' => {
                    self.pos += 1;
                    self.out.push(char::from(c));
                    self.atom();
                }
                _ => {
                    self.pos += 1;
                    self.push_literal(c);
                    self.atom();
                }
            }
        }
        if let Some(f) = self.frames.last() {
            return Err(invalid(format!(
                "missing ): {}",
                shown(self.pat.get(f.start..).unwrap_or(&[]))
            )));
        }
        Ok(())
    }

    fn repeat_op(&mut self, c: u8) -> Result<(), RegexError> {
        let op_start = self.pos;
        self.pos += 1;
        match self.last {
            Last::Nothing => {
                return Err(invalid(format!(
                    "missing argument to repetition operator: {}",
                    char::from(c)
                )));
            }
            Last::Repeat { lazy_allowed: true } if c == b'?' => {
                self.out.push('?');
                self.last = Last::Repeat {
                    lazy_allowed: false,
                };
                return Ok(());
            }
            Last::Repeat { .. } => {
                return Err(invalid(format!(
                    "bad repetition operator: {}",
                    shown(
                        self.pat
                            .get(op_start.saturating_sub(1)..self.pos)
                            .unwrap_or(&[])
                    )
                )));
            }
            Last::Atom(_) => {}
        }
        self.out.push(char::from(c));
        self.last = Last::Repeat { lazy_allowed: true };
        Ok(())
    }

    /// Parses `{n}`, `{n,}` or `{n,m}` at the current position without
    /// consuming it: `(lo, hi, length)`, `hi` `None` for unbounded. RE2
    /// treats a `{` that does not start one as a literal.
    fn counted_repeat(&self) -> Option<(u32, Option<u32>, usize)> {
        let rest = self.rest();
        let mut i = 1;
        let number = |i: &mut usize| -> Option<u32> {
            let start = *i;
            while rest.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            let digits = rest.get(start..*i)?;
            // RE2 gives up on numbers of nine digits or more.
            if digits.is_empty() || digits.len() > 8 {
                return None;
            }
            std::str::from_utf8(digits).ok()?.parse().ok()
        };
        let lo = number(&mut i)?;
        let hi = match rest.get(i)? {
            b'}' => Some(lo),
            b',' => {
                i += 1;
                if rest.get(i) == Some(&b'}') {
                    None
                } else {
                    Some(number(&mut i)?)
                }
            }
            _ => return None,
        };
        if rest.get(i) != Some(&b'}') {
            return None;
        }
        Some((lo, hi, i + 1))
    }

    fn counted(&mut self, lo: u32, hi: Option<u32>, len: usize) -> Result<(), RegexError> {
        let text = shown(self.rest().get(..len).unwrap_or(&[]));
        let w = match self.last {
            Last::Nothing => {
                return Err(invalid(format!(
                    "missing argument to repetition operator: {text}"
                )));
            }
            Last::Repeat { .. } => return Err(invalid(format!("bad repetition operator: {text}"))),
            Last::Atom(w) => w,
        };
        if lo > MAX_REPEAT || hi.is_some_and(|h| h > MAX_REPEAT || h < lo) {
            return Err(invalid(format!("bad repetition operator: {text}")));
        }
        let count = hi.unwrap_or(lo);
        let product = if count > 0 {
            w.saturating_mul(count)
        } else {
            w
        };
        if product > MAX_REPEAT {
            return Err(invalid(format!("bad repetition operator: {text}")));
        }
        self.pos += len;
        match hi {
            Some(h) if h == lo => {
                let _ = write!(self.out, "{{{lo}}}");
            }
            Some(h) => {
                let _ = write!(self.out, "{{{lo},{h}}}");
            }
            None => {
                let _ = write!(self.out, "{{{lo},}}");
            }
        }
        self.weight = self.weight.max(product);
        self.last = Last::Repeat { lazy_allowed: true };
        Ok(())
    }

    fn open_group(&mut self) -> Result<(), RegexError> {
        let start = self.pos;
        if self.peek_at(1) != Some(b'?') {
            self.pos += 1;
            self.push_frame(start);
            return Ok(());
        }
        let rest = self.rest();
        // Named captures: (?P<name>re) and (?<name>re).
        let name_start = if rest.starts_with(b"(?P<") {
            Some(4)
        } else if rest.starts_with(b"(?<")
            && !rest.starts_with(b"(?<=")
            && !rest.starts_with(b"(?<!")
        {
            Some(3)
        } else {
            None
        };
        if let Some(ns) = name_start {
            let Some(len) = rest
                .get(ns..)
                .and_then(|r| r.iter().position(|&b| b == b'>'))
            else {
                return Err(invalid(format!(
                    "invalid named capture group: {}",
                    shown(rest)
                )));
            };
            let name = rest.get(ns..ns + len).unwrap_or(&[]);
            let whole = rest.get(..ns + len + 1).unwrap_or(rest);
            if name.is_empty() || !name.iter().all(|&b| is_word(b)) {
                return Err(invalid(format!(
                    "invalid named capture group: {}",
                    shown(whole)
                )));
            }
            if self.names.contains(&name) {
                return Err(invalid(format!(
                    "duplicate capture group name: {}",
                    shown(whole)
                )));
            }
            self.names.push(name);
            self.pos += ns + len + 1;
            self.push_frame(start);
            return Ok(());
        }
        // Flags: (?flags) or (?flags:re).
        let mut i = 2;
        let mut on = Vec::new();
        let mut off = Vec::new();
        let mut negated = false;
        let mut saw_flag = false;
        loop {
            let Some(&c) = rest.get(i) else {
                return Err(invalid(format!("missing ): {}", shown(rest))));
            };
            i += 1;
            match c {
                b'i' | b'm' | b's' | b'U' => {
                    saw_flag = true;
                    if negated {
                        on.retain(|&f| f != c);
                        if !off.contains(&c) {
                            off.push(c);
                        }
                    } else {
                        off.retain(|&f| f != c);
                        if !on.contains(&c) {
                            on.push(c);
                        }
                    }
                }
                b'-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                b':' | b')' => {
                    if negated && !saw_flag {
                        return Err(invalid(format!(
                            "invalid or unsupported Perl syntax: {}",
                            shown(rest.get(..i).unwrap_or(rest))
                        )));
                    }
                    let mut flags = String::new();
                    flags.extend(on.iter().map(|&b| char::from(b)));
                    if !off.is_empty() {
                        flags.push('-');
                        flags.extend(off.iter().map(|&b| char::from(b)));
                    }
                    self.pos += i;
                    let fold = if on.contains(&b'i') {
                        true
                    } else {
                        self.fold && !off.contains(&b'i')
                    };
                    if c == b':' {
                        self.out.push_str("(?");
                        self.out.push_str(&flags);
                        self.out.push(':');
                        self.frames.push(Frame {
                            weight: self.weight,
                            start,
                            fold: self.fold,
                        });
                        self.fold = fold;
                        self.weight = 1;
                        self.last = Last::Nothing;
                    } else {
                        self.fold = fold;
                        if !flags.is_empty() {
                            self.out.push_str("(?");
                            self.out.push_str(&flags);
                            self.out.push(')');
                        }
                        self.last = Last::Nothing;
                    }
                    return Ok(());
                }
                _ => {
                    return Err(invalid(format!(
                        "invalid or unsupported Perl syntax: {}",
                        shown(rest.get(..i).unwrap_or(rest))
                    )));
                }
            }
        }
    }

    fn push_frame(&mut self, start: usize) {
        self.out.push_str("(?:");
        self.frames.push(Frame {
            weight: self.weight,
            start,
            fold: self.fold,
        });
        self.weight = 1;
        self.last = Last::Nothing;
    }

    fn close_group(&mut self) -> Result<(), RegexError> {
        let Some(frame) = self.frames.pop() else {
            return Err(invalid(format!("unexpected ): {}", shown(self.pat))));
        };
        self.pos += 1;
        self.out.push(')');
        self.fold = frame.fold;
        let inner = self.weight;
        self.weight = frame.weight.max(inner);
        self.last = Last::Atom(inner);
        Ok(())
    }

    /// An escape outside a class.
    fn escape_top(&mut self) -> Result<(), RegexError> {
        let Some(c) = self.peek_at(1) else {
            return Err(invalid("trailing \\"));
        };
        match c {
            b'C' => {
                self.pos += 2;
                self.out.push_str("(?s-u:.)");
                self.atom();
            }
            b'A' | b'z' | b'b' | b'B' => {
                self.pos += 2;
                self.out.push('\\');
                self.out.push(char::from(c));
                self.atom();
            }
            b'Q' => {
                self.pos += 2;
                while self.pos < self.pat.len() {
                    if self.rest().starts_with(b"\\E") {
                        self.pos += 2;
                        break;
                    }
                    let b = self.peek().unwrap_or(0);
                    self.pos += 1;
                    self.push_literal(b);
                    self.atom();
                }
            }
            _ => match self.escape_value()? {
                Escape::Byte(b) => {
                    self.push_literal(b);
                    self.atom();
                }
                Escape::Set(set) => {
                    self.push_set(&set);
                    self.atom();
                }
                Escape::Wide => {
                    self.out.push_str(r"[^\x00-\xFF]");
                    self.atom();
                }
                Escape::Perl(class, negated) => {
                    self.out.push('[');
                    if negated {
                        self.out.push('^');
                    }
                    self.out.push_str(perl_ranges(class));
                    self.out.push(']');
                    self.atom();
                }
            },
        }
        Ok(())
    }

    /// An escape that stands for a character or a Perl class (valid both
    /// inside and outside classes). Consumes it.
    fn escape_value(&mut self) -> Result<Escape, RegexError> {
        let start = self.pos;
        let Some(c) = self.peek_at(1) else {
            return Err(invalid("trailing \\"));
        };
        self.pos += 2;
        let bad = |t: &Translator<'_>| {
            invalid(format!(
                "invalid escape sequence: {}",
                shown(t.pat.get(start..t.pos).unwrap_or(&[]))
            ))
        };
        match c {
            b'1'..=b'7' if !matches!(self.peek(), Some(b'0'..=b'7')) => Err(bad(self)),
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                Ok(u8::try_from(v).map_or(Escape::Wide, Escape::Byte))
            }
            b'x' => {
                if self.peek() == Some(b'{') {
                    let digits_start = self.pos + 1;
                    let mut end = digits_start;
                    while self.pat.get(end).is_some_and(u8::is_ascii_hexdigit) {
                        end += 1;
                    }
                    if end == digits_start || self.pat.get(end) != Some(&b'}') {
                        self.pos = (end + 1).min(self.pat.len());
                        return Err(bad(self));
                    }
                    let digits = self.pat.get(digits_start..end).unwrap_or(&[]);
                    self.pos = end + 1;
                    let mut v: u32 = 0;
                    for &d in digits {
                        v = v.saturating_mul(16).saturating_add(u32::from(hex_value(d)));
                    }
                    if v > 0x10_FFFF {
                        return Err(bad(self));
                    }
                    Ok(u8::try_from(v).map_or(Escape::Wide, Escape::Byte))
                } else {
                    match (self.peek(), self.peek_at(1)) {
                        (Some(h), Some(l)) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
                            self.pos += 2;
                            Ok(Escape::Byte(hex_value(h) * 16 + hex_value(l)))
                        }
                        _ => {
                            self.pos = (self.pos + 2).min(self.pat.len());
                            Err(bad(self))
                        }
                    }
                }
            }
            b'a' | b'f' | b't' | b'n' | b'r' | b'v' => Ok(Escape::Byte(control_escape(c))),
            b'd' | b's' | b'w' => Ok(Escape::Perl(c, false)),
            b'D' | b'S' | b'W' => Ok(Escape::Perl(c.to_ascii_lowercase(), true)),
            b'p' | b'P' => self.unicode_class(start, c == b'P'),
            b'_' => Ok(Escape::Byte(b'_')),
            c if c.is_ascii() && !is_word(c) => Ok(Escape::Byte(c)),
            _ => Err(bad(self)),
        }
    }

    /// The rest of `\p…` or `\P…` (`negated`) begun at `start`, after
    /// the `p`: a one-letter name or `{name}` (`{^name}` negates), as a
    /// set of bytes. A name RE2 does not know is its "invalid character
    /// class range" error, quoting the sequence.
    fn unicode_class(&mut self, start: usize, negated: bool) -> Result<Escape, RegexError> {
        let name_start = self.pos;
        let name_end = match self.peek() {
            Some(b'{') => match self.rest().iter().position(|&b| b == b'}') {
                Some(end) => {
                    self.pos += end + 1;
                    self.pos - 1
                }
                None => self.pat.len(),
            },
            Some(_) => {
                self.pos += 1;
                self.pos
            }
            None => self.pos,
        };
        let seq = self.pat.get(start..self.pos.max(name_end)).unwrap_or(&[]);
        let bad = || invalid(format!("invalid character class range: {}", shown(seq)));
        if name_end == self.pat.len() && self.pat.get(name_start) == Some(&b'{') {
            return Err(bad());
        }
        let mut name = self.pat.get(name_start..name_end).unwrap_or(&[]);
        if let Some(inner) = name.strip_prefix(b"{") {
            name = inner;
        }
        let (negated, name) = match name.strip_prefix(b"^") {
            Some(inner) => (!negated, inner),
            None => (negated, name),
        };
        let name = std::str::from_utf8(name).map_err(|_| bad())?;
        latin1::unicode_class(name, negated, self.fold)
            .map(Escape::Set)
            .ok_or_else(bad)
    }

    /// A bracketed class, `[...]`.
    fn class(&mut self) -> Result<(), RegexError> {
        let start = self.pos;
        self.pos += 1;
        let missing = |t: &Translator<'_>| {
            invalid(format!(
                "missing ]: {}",
                shown(t.pat.get(start..).unwrap_or(&[]))
            ))
        };
        let negated = self.peek() == Some(b'^');
        if negated {
            self.pos += 1;
        }
        let mut items: Vec<ClassItem> = Vec::new();
        let mut first = true;
        loop {
            let Some(c) = self.peek() else {
                return Err(missing(self));
            };
            if c == b']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            if c == b'['
                && self.peek_at(1) == Some(b':')
                && let Some(item) = self.posix_class()?
            {
                items.push(item);
                continue;
            }
            let lo_start = self.pos;
            let lo = match self.class_char()? {
                ClassChar::Byte(b) => Some(b),
                ClassChar::Wide => None,
                ClassChar::Perl(class, neg) => {
                    items.push(ClassItem::Perl(class, neg));
                    continue;
                }
                ClassChar::Set(set) => {
                    items.push(ClassItem::Set(set));
                    continue;
                }
            };
            // A range: `-` not followed by the closing `]`.
            if self.peek() == Some(b'-') && self.peek_at(1).is_some_and(|n| n != b']') {
                self.pos += 1;
                if self.peek().is_none() {
                    return Err(missing(self));
                }
                let hi = match self.class_char()? {
                    ClassChar::Byte(b) => Some(b),
                    ClassChar::Wide => None,
                    ClassChar::Perl(..) | ClassChar::Set(_) => {
                        return Err(invalid(format!(
                            "invalid character class range: {}",
                            shown(self.pat.get(lo_start..self.pos).unwrap_or(&[]))
                        )));
                    }
                };
                match (lo, hi) {
                    (Some(l), Some(h)) if l <= h => items.push(ClassItem::Range(l, h)),
                    // From a byte up to a wide character: up to 0xFF.
                    (Some(l), None) => items.push(ClassItem::Range(l, 0xFF)),
                    (None, None) => items.push(ClassItem::Nothing),
                    _ => {
                        return Err(invalid(format!(
                            "invalid character class range: {}",
                            shown(self.pat.get(lo_start..self.pos).unwrap_or(&[]))
                        )));
                    }
                }
            } else {
                match lo {
                    Some(l) => items.push(ClassItem::Range(l, l)),
                    None => items.push(ClassItem::Nothing),
                }
            }
        }
        if self.fold {
            items.push(ClassItem::Set(latin1_partners(&items)));
        }
        self.out.push('[');
        if negated {
            self.out.push('^');
        }
        let mut wrote = false;
        for item in &items {
            match *item {
                ClassItem::Range(l, h) if l == h => {
                    let _ = write!(self.out, "\\x{l:02X}");
                    wrote = true;
                }
                ClassItem::Range(l, h) => {
                    let _ = write!(self.out, "\\x{l:02X}-\\x{h:02X}");
                    wrote = true;
                }
                ClassItem::Perl(class, false) => {
                    self.out.push_str(perl_ranges(class));
                    wrote = true;
                }
                ClassItem::Perl(class, true) => {
                    self.out.push_str("[^");
                    self.out.push_str(perl_ranges(class));
                    self.out.push(']');
                    wrote = true;
                }
                ClassItem::Posix(name, neg) => {
                    self.out.push_str(if neg { "[:^" } else { "[:" });
                    self.out.push_str(name);
                    self.out.push_str(":]");
                    wrote = true;
                }
                ClassItem::Set(set) => {
                    wrote |= latin1::write_class_items(&mut self.out, &set);
                }
                ClassItem::Nothing => {}
            }
        }
        if !wrote {
            // Only characters outside Latin-1: an empty class.
            self.out.push_str(r"[^\x00-\xFF]");
        }
        self.out.push(']');
        Ok(())
    }

    /// `[:name:]` or `[:^name:]` inside a class. Returns `None` (consuming
    /// nothing) when the text is not a POSIX class at all, in which case
    /// the `[` is an ordinary character.
    fn posix_class(&mut self) -> Result<Option<ClassItem>, RegexError> {
        let rest = self.rest();
        let Some(end) = rest.windows(2).position(|w| w == b":]") else {
            return Ok(None);
        };
        let inner = rest.get(2..end).unwrap_or(&[]);
        let (neg, name) = match inner.split_first() {
            Some((b'^', n)) => (true, n),
            _ => (false, inner),
        };
        const NAMES: [&str; 14] = [
            "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print",
            "punct", "space", "upper", "word", "xdigit",
        ];
        match NAMES.iter().find(|n| n.as_bytes() == name) {
            Some(n) => {
                self.pos += end + 2;
                Ok(Some(ClassItem::Posix(n, neg)))
            }
            None => Err(invalid(format!(
                "invalid character class range: {}",
                shown(rest.get(..end + 2).unwrap_or(rest))
            ))),
        }
    }

    fn class_char(&mut self) -> Result<ClassChar, RegexError> {
        match self.peek() {
            Some(b'\\') => match self.peek_at(1) {
                Some(b'C' | b'b' | b'B' | b'A' | b'z' | b'Q' | b'E') => {
                    let text = shown(self.pat.get(self.pos..self.pos + 2).unwrap_or(&[]));
                    Err(invalid(format!("invalid escape sequence: {text}")))
                }
                _ => Ok(match self.escape_value()? {
                    Escape::Byte(b) => ClassChar::Byte(b),
                    Escape::Wide => ClassChar::Wide,
                    Escape::Perl(c, n) => ClassChar::Perl(c, n),
                    Escape::Set(set) => ClassChar::Set(set),
                }),
            },
            Some(b) => {
                self.pos += 1;
                Ok(ClassChar::Byte(b))
            }
            None => Err(invalid("missing ]")),
        }
    }
}

enum ClassChar {
    Byte(u8),
    Wide,
    Perl(u8, bool),
    Set(ByteSet),
}

/// The other case of each Latin-1 letter beyond ASCII in a class's
/// ranges, for `(?i)` (the `regex` crate folds the ASCII ones).
fn latin1_partners(items: &[ClassItem]) -> ByteSet {
    let mut partners = ByteSet::EMPTY;
    for item in items {
        if let ClassItem::Range(lo, hi) = *item {
            (lo.max(0x80)..=hi)
                .filter_map(latin1::case_partner)
                .for_each(|p| partners.add(p));
        }
    }
    partners
}

/// RE2's ASCII definitions of the Perl classes, as class contents.
fn perl_ranges(class: u8) -> &'static str {
    match class {
        b'd' => r"0-9",
        b's' => r"\t\n\x0C\r\x20",
        _ => r"0-9A-Za-z_",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn re(p: &[u8]) -> ByteRegex {
        match ByteRegex::new(p) {
            Ok(r) => r,
            Err(e) => panic!("pattern {:?} rejected: {e:?}", String::from_utf8_lossy(p)),
        }
    }

    fn rejected(p: &[u8]) -> String {
        match ByteRegex::new(p) {
            Ok(_) => panic!("pattern {:?} accepted", String::from_utf8_lossy(p)),
            Err(RegexError::Invalid(m)) => m,
        }
    }

    #[test]
    fn full_match_semantics() {
        let r = re(b"ab");
        assert!(r.is_match(b"ab"));
        assert!(!r.is_match(b"abc"));
        assert!(!r.is_match(b"xab"));
        let r = re(b"a|b");
        assert!(r.is_match(b"a") && r.is_match(b"b") && !r.is_match(b"ab"));
        let r = re(b"(a|b)c");
        assert!(r.is_match(b"bc") && !r.is_match(b"b"));
        assert!(re(b"").is_match(b""));
        assert!(!re(b"").is_match(b"x"));
    }

    #[test]
    fn dot_skips_newline_and_c_matches_any_byte() {
        assert!(!re(b"a.b").is_match(b"a\nb"));
        assert!(re(b"a.b").is_match(b"a\xffb"));
        assert!(re(b"a\\Cb").is_match(b"a\nb"));
        assert!(re(b"a\\C+").is_match(b"a\x00\n\xff"));
        assert!(re(b"(?s)a.b").is_match(b"a\nb"));
        assert!(!re(b".*").is_match(b"x\ny"));
        assert!(re(b"\\C*").is_match(b"x\ny"));
        assert!(re(b"x.*").is_match(b"xyz"));
        assert!(!re(b"x.*").is_match(b"xy\n"));
        assert!(re(b"x\\C*").is_match(b"xy\n"));
        assert!(!re(b"x\\C*").is_match(b"y"));
    }

    #[test]
    fn bytes_in_patterns_are_latin1_characters() {
        assert!(re(b"\xff+").is_match(b"\xff\xff"));
        assert!(re(b"[\x80-\xff]").is_match(b"\xc3"));
        assert!(!re(b"[\x80-\xff]").is_match(b"a"));
        assert!(re(b"\\xff").is_match(b"\xff"));
        assert!(re(b"\\x{41}").is_match(b"A"));
        assert!(!re(b"\\x{100}").is_match(b"\x01\x00"));
        assert!(re(b"\\101").is_match(b"A"));
        assert!(re(b"\\0").is_match(b"\x00"));
        assert!(re(b"\\n\\t").is_match(b"\n\t"));
        assert!(re(b"[^a]").is_match(b"\xe9"));
        assert!(re(b"\\D").is_match(b"\xe9"));
    }

    #[test]
    fn escapes_of_punctuation_are_literals() {
        assert!(re(b"\\.").is_match(b"."));
        assert!(!re(b"\\.").is_match(b"x"));
        assert!(re(b"\\<\\>").is_match(b"<>"));
        assert!(re(b"\\#\\ ").is_match(b"# "));
        assert!(re(b"\\_").is_match(b"_"));
        assert!(re(b"a\\*").is_match(b"a*"));
        assert!(re(b"\\Qa.b*\\E+").is_match(b"a.b**"));
        assert!(!re(b"\\Qa.b\\E").is_match(b"axb"));
    }

    #[test]
    fn classes_follow_re2() {
        assert!(re(b"[]a]+").is_match(b"]a]"));
        assert!(re(b"[a&&b]+").is_match(b"a&b"));
        assert!(re(b"[a-c-]+").is_match(b"b-"));
        assert!(re(b"[[:digit:]x]+").is_match(b"1x2"));
        assert!(re(b"[[:^digit:]]").is_match(b"x"));
        assert!(re(b"[\\d\\s]+").is_match(b"1 \t2"));
        assert!(!re(b"\\s").is_match(b"\x0b"), "RE2's \\s has no \\v");
        assert!(re(b"[^\\W]").is_match(b"a"));
        assert!(re(b"[~]").is_match(b"~"));
        assert!(re(b"[[]").is_match(b"["));
        assert!(re(b"\\w+").is_match(b"a_1"));
    }

    #[test]
    fn braces_and_repetitions() {
        assert!(re(b"a{2}").is_match(b"aa"));
        assert!(re(b"a{2,}").is_match(b"aaaa"));
        assert!(re(b"a{1,3}").is_match(b"aaa"));
        assert!(re(b"a{,3}").is_match(b"a{,3}"), "not a repetition: literal");
        assert!(re(b"{").is_match(b"{"));
        assert!(re(b"x}").is_match(b"x}"));
        assert!(re(b"a*?b").is_match(b"aab"));
        assert!(re(b"a{1000}").is_match(&[b'a'; 1000]));
    }

    #[test]
    fn re2_rejections() {
        assert!(rejected(b"a**").contains("bad repetition operator"));
        assert!(rejected(b"a*??").contains("bad repetition operator"));
        assert!(rejected(b"a{2}{3}").contains("bad repetition operator"));
        assert!(rejected(b"*a").contains("missing argument"));
        assert!(rejected(b"(*)").contains("missing argument"));
        assert!(rejected(b"a|*").contains("missing argument"));
        assert!(rejected(b"a{1001}").contains("bad repetition operator"));
        assert!(rejected(b"(a{100}){100}").contains("bad repetition operator"));
        assert!(rejected(b"a{3,2}").contains("bad repetition operator"));
        assert!(rejected(b"(a").contains("missing )"));
        assert!(rejected(b"a)").contains("unexpected )"));
        assert!(rejected(b"a)|(b").contains("unexpected )"));
        assert!(rejected(b"[a").contains("missing ]"));
        assert!(rejected(b"[z-a]").contains("invalid character class range"));
        assert!(rejected(b"[[:foo:]]").contains("invalid character class range"));
        assert!(rejected(b"\\q").contains("invalid escape sequence"));
        assert!(rejected(b"\\1").contains("invalid escape sequence"));
        assert!(rejected(b"\\8").contains("invalid escape sequence"));
        assert!(rejected(b"\\Z").contains("invalid escape sequence"));
        assert!(rejected(b"\\xZ1").contains("invalid escape sequence"));
        assert!(rejected(b"\\\xff").contains("invalid escape sequence"));
        assert!(rejected(b"[\\C]").contains("invalid escape sequence"));
        assert!(rejected(b"a\\").contains("trailing"));
        assert!(rejected(b"(?=a)").contains("Perl syntax"));
        assert!(rejected(b"(?x)a").contains("Perl syntax"));
        assert!(rejected(b"(?i-)a").contains("Perl syntax"));
        assert!(rejected(b"(?P<n>a)(?P<n>b)").contains("duplicate"));
        assert!(rejected(b"(?P<>a)").contains("named capture"));
        assert!(rejected(b"\\p{Letter}").contains("invalid character class range: \\p{Letter}"));
        assert!(rejected(b"\\pX").contains("invalid character class range: \\pX"));
        assert!(rejected(b"\\p{Greek").contains("invalid character class range"));
    }

    /// Unicode classes match the bytes whose Latin-1 code point is in
    /// the class, outside and inside brackets, negated either way.
    #[test]
    fn unicode_classes_are_cut_to_latin1() {
        assert!(re(b"\\pL+").is_match(b"caf\xe9"));
        assert!(!re(b"\\pL+").is_match(b"cafe1"));
        assert!(re(b"\\p{Lu}\\p{Ll}").is_match(b"\xc9t"));
        assert!(re(b"\\pN\\pN").is_match(b"1\xbd"), "½ is a number");
        assert!(!re(b"\\p{Greek}").is_match(b"a"));
        assert!(!re(b"\\p{Greek}").is_match(b"\xb5"), "µ is Common");
        assert!(re(b"\\P{Greek}").is_match(b"a"));
        assert!(re(b"\\p{^L}").is_match(b"1") && !re(b"\\p{^L}").is_match(b"a"));
        assert!(re(b"\\PL").is_match(b"-") && !re(b"\\PL").is_match(b"\xe9"));
        assert!(re(b"[\\pN_]+").is_match(b"1_2"));
        assert!(
            re(b"[\\pN-]+").is_match(b"1-2"),
            "a - after a class is itself"
        );
        assert!(re(b"[^\\pL]").is_match(b"7") && !re(b"[^\\pL]").is_match(b"q"));
        assert!(re(b"\\p{Any}").is_match(b"\n"));
        assert!(re(b"\\p{Latin}+").is_match(b"\xc0b"));
    }

    /// `(?i)` pairs a Latin-1 letter with its other case when both are
    /// bytes, in literals, classes and Unicode classes, for as long as
    /// the flag is on.
    #[test]
    fn case_folding_covers_latin1_letters() {
        assert!(re(b"(?i)caf\xe9").is_match(b"CAF\xc9"));
        assert!(!re(b"caf\xe9").is_match(b"caf\xc9"), "only under (?i)");
        assert!(re(b"(?i)[\xe0-\xe9]").is_match(b"\xc9"));
        assert!(!re(b"(?i)[^\xe9]").is_match(b"\xc9"));
        assert!(re(b"(?i)\\p{Lu}").is_match(b"\xe9"));
        assert!(!re(b"(?i)\xff").is_match(b"x"), "ÿ has no Latin-1 capital");
        assert!(re(b"(?i:\xe9)\xe9").is_match(b"\xc9\xe9"));
        assert!(
            !re(b"(?i:\xe9)\xe9").is_match(b"\xc9\xc9"),
            "the group ends the flag"
        );
        assert!(!re(b"(?i)\xe9(?-i)\xe9").is_match(b"\xe9\xc9"));
        assert!(re(b"(?i)\\Q\xe9\\E").is_match(b"\xc9"));
    }

    #[test]
    fn groups_and_flags() {
        assert!(re(b"(?i)abc").is_match(b"AbC"));
        assert!(re(b"(?i:a)b").is_match(b"Ab"));
        assert!(!re(b"(?i:a)b").is_match(b"AB"));
        assert!(re(b"(?ii)a").is_match(b"A"));
        assert!(re(b"(?)a").is_match(b"a"));
        assert!(re(b"(?P<x>a)(?<y>b)").is_match(b"ab"));
        assert!(re(b"(?m)^a$\\n^b$").is_match(b"a\nb"));
        assert!(!re(b"a$").is_match(b"a\n"), "$ is end of text only");
    }

    #[test]
    fn simple_forms_skip_the_engine() {
        assert!(matches!(re(b"abc").kind, Kind::Exact(_)));
        assert!(matches!(re(b"a\\.b\\x00").kind, Kind::Exact(ref l) if &l[..] == b"a.b\x00"));
        assert!(matches!(
            re(b"abc\\C*").kind,
            Kind::Prefix {
                newline_ok: true,
                ..
            }
        ));
        assert!(matches!(
            re(b"abc.*").kind,
            Kind::Prefix {
                newline_ok: false,
                ..
            }
        ));
        assert!(matches!(re(b"ab*").kind, Kind::Regex { ref prefix, .. } if &prefix[..] == b"a"));
        assert!(
            matches!(re(b"a\\Cb").kind, Kind::Sequence { ref prefix, .. } if &prefix[..] == b"a")
        );
        assert!(
            matches!(re(b"v3\\-9+.").kind, Kind::Regex { ref prefix, .. } if &prefix[..] == b"v3-9")
        );
        assert!(matches!(re(b"ab|ac").kind, Kind::Regex { ref prefix, .. } if prefix.is_empty()));
        assert!(
            matches!(re(b"a(b|c)").kind, Kind::Sequence { ref prefix, .. } if &prefix[..] == b"a")
        );
        assert!(
            matches!(re(b"a{2}b").kind, Kind::Sequence { ref prefix, .. } if prefix.is_empty())
        );
        assert!(matches!(
            re(b"a{2}b+").kind,
            Kind::Regex {
                min_len: 3,
                max_len: usize::MAX,
                ..
            }
        ));
        assert!(matches!(
            re(b"ab?").kind,
            Kind::Regex {
                min_len: 1,
                max_len: 2,
                ..
            }
        ));
        assert!(re(b"ab|ac").is_match(b"ac"));
        let glob = re(b"PQ2A\\.19040[0-9]\\.003");
        assert!(
            matches!(glob.kind, Kind::Sequence { ref prefix, .. } if &prefix[..] == b"PQ2A.19040")
        );
        assert!(glob.is_match(b"PQ2A.190409.003"));
        assert!(!glob.is_match(b"PQ2A.190409.0031") && !glob.is_match(b"PQ2A.190419.003"));
        assert!(re(b"a\\Cb").is_match(b"a\nb") && !re(b"a.b").is_match(b"a\nb"));
        assert!(re(b"(?i)a[b-c]").is_match(b"AC") && !re(b"(?i)a[b-c]").is_match(b"AD"));
        assert!(re(b"v3\\-9+.").is_match(b"v3-999x"));
    }

    /// The matchers that skip the engine (exact, prefix, byte-set sequence,
    /// length bounds) against the `regex` crate alone on the same
    /// translation, for random patterns and haystacks.
    #[cfg(not(target_arch = "wasm32"))]
    mod fast_paths {
        use proptest::prelude::*;

        use super::*;

        const PIECES: &[&str] = &[
            "a", "b", "\\.", ".", "\\C", "[0-9]", "[a-b]", "[^a]", "x", "\\xff", "\\n", "(a|b)",
            "(?i)a", "(?i:b)", "a?", "b*", "[ab]{2}", "c{0,2}", "|", "(ab|c)", "\\d", "\\C*", ".*",
        ];
        const BYTES: &[u8] = b"ab.x0912\xff\nAB";

        fn engine_alone(pattern: &[u8]) -> regex::bytes::Regex {
            let translated = translate(pattern).unwrap_or_else(|e| panic!("{e:?}"));
            regex::bytes::RegexBuilder::new(&format!(r"\A(?:{})\z", translated.regex))
                .unicode(false)
                .build()
                .unwrap_or_else(|e| panic!("{e}"))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(500))]
            #[test]
            fn fast_paths_agree_with_the_engine(
                pieces in prop::collection::vec(0..PIECES.len(), 0..7),
                hays in prop::collection::vec(prop::collection::vec(0..BYTES.len(), 0..9), 1..12),
            ) {
                let pattern: String = pieces.iter().map(|&i| PIECES[i]).collect();
                let Ok(fast) = ByteRegex::new(pattern.as_bytes()) else {
                    return Ok(());
                };
                let slow = engine_alone(pattern.as_bytes());
                for hay in hays {
                    let hay: Vec<u8> = hay.iter().map(|&i| BYTES[i]).collect();
                    prop_assert_eq!(fast.is_match(&hay), slow.is_match(&hay), "{} on {:?}", pattern, hay);
                    if fast.is_match(&hay) {
                        prop_assert!(hay.starts_with(fast.required_prefix()));
                    }
                }
            }
        }
    }
}
