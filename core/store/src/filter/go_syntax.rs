//! The texts Google's Bigtable emulator answers for a filter regex it
//! refuses: the errors of Go's `regexp/syntax` package. The emulator
//! compiles every filter regex anchored, as `^(?:PATTERN)$`, with
//! `rsc.io/binaryregexp` (Go's `regexp` made to read bytes: each byte of
//! the pattern is one character, as in Latin-1), so its messages
//! (`error parsing regexp: missing closing ]: `[)$``) quote pieces of that
//! anchored text, with a byte over 0x7F written `\xHH`, and it refuses a
//! few patterns RE2 takes (`a**`, `x{2}{3}`: Go forbids stacked
//! repetitions).
//!
//! [`emulator_error`] walks the anchored text the way Go's parser does, as
//! far as finding the first error, for the kinds a user meets: unclosed or
//! unopened groups and classes, a repetition without an operand or
//! stacked on another, bad repeat counts (one over 1000, or nested counts
//! whose product passes 1000), escapes, class ranges, POSIX and Unicode
//! class names, named captures and flag groups. The texts and the pieces
//! quoted were probed against the emulator (the differential suite's
//! `regex` scenarios record some). The fork predates Go's limits on
//! nesting depth and expression size, so the emulator has no such errors
//! (and no error for bytes that are not UTF-8). Only the errors are
//! modelled: a pattern this walk accepts is compiled by Tabletop's RE2
//! dialect (`re2.rs`) as usual.

/// Go's `regexp/syntax` error codes that the walk reports, in Go's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Code {
    MissingBracket,
    MissingParen,
    UnexpectedParen,
    MissingRepeatArgument,
    InvalidRepeatOp,
    InvalidRepeatSize,
    InvalidEscape,
    TrailingBackslash,
    InvalidCharRange,
    InvalidNamedCapture,
    InvalidPerlOp,
}

impl Code {
    fn text(self) -> &'static str {
        match self {
            Code::MissingBracket => "missing closing ]",
            Code::MissingParen => "missing closing )",
            Code::UnexpectedParen => "unexpected )",
            Code::MissingRepeatArgument => "missing argument to repetition operator",
            Code::InvalidRepeatOp => "invalid nested repetition operator",
            Code::InvalidRepeatSize => "invalid repeat count",
            Code::InvalidEscape => "invalid escape sequence",
            Code::TrailingBackslash => "trailing backslash at end of expression",
            Code::InvalidCharRange => "invalid character class range",
            Code::InvalidNamedCapture => "invalid named capture",
            Code::InvalidPerlOp => "invalid or unsupported Perl syntax",
        }
    }
}

/// Go's error: a code and the piece of the anchored text it quotes.
type GoError<'s> = (Code, &'s str);

/// The emulator's text for `pattern` when Go's regexp refuses it
/// (`error parsing regexp: CODE: `PIECE``), or `None` when the walk finds
/// nothing wrong. Each byte is one character, as the emulator reads it.
pub(crate) fn emulator_error(pattern: &[u8]) -> Option<String> {
    let mut anchored = String::from("^(?:");
    anchored.extend(pattern.iter().copied().map(char::from));
    anchored.push_str(")$");
    Walk {
        s: &anchored,
        depth: 0,
        operand: false,
        weights: vec![0],
        operand_weight: 0,
    }
    .run()
    .err()
    .map(|(code, piece)| format!("error parsing regexp: {}: `{}`", code.text(), quote(piece)))
}

/// A piece of the anchored text as the emulator prints it: a byte over
/// 0x7F as `\xHH`, everything else as it is.
fn quote(piece: &str) -> String {
    let mut out = String::with_capacity(piece.len());
    for c in piece.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\x{:02X}", u32::from(c)));
        }
    }
    out
}

/// Go's bound on nested repetition counts: along any path of nested
/// `{n,m}` repetitions, the product of their counts is at most 1000
/// (`repeatIsValid(re, 1000)` in `regexp/syntax`).
const MAX_NESTED_REPEAT: u64 = 1000;

/// How a `(?` group opens.
enum Open {
    /// A group (`(?:`, `(?i:`, `(?P<name>`): the position after it.
    Group(usize),
    /// Flags for the rest of the enclosing group (`(?i)`).
    FlagsOnly(usize),
}

struct Walk<'s> {
    s: &'s str,
    /// Groups open.
    depth: usize,
    /// Whether an expression precedes, so a repetition has an operand
    /// (not right after `(` or `|`).
    operand: bool,
    /// For the top level and each open group: the largest product of
    /// nested repetition counts inside it so far (0 for none).
    weights: Vec<u64>,
    /// That product for the operand just read, not yet added to its
    /// group's (a repetition may still apply to it).
    operand_weight: u64,
}

impl<'s> Walk<'s> {
    fn run(mut self) -> Result<(), GoError<'s>> {
        let s = self.s;
        let mut pos = 0;
        // Where the repetition just read started, to find stacked ones.
        let mut last_repeat: Option<usize> = None;
        while let Some(c) = s[pos..].chars().next() {
            let mut repeat = None;
            match c {
                '(' if s[pos..].starts_with("(?") => match self.perl_flags(pos)? {
                    Open::Group(next) => {
                        self.open_group();
                        pos = next;
                    }
                    Open::FlagsOnly(next) => pos = next,
                },
                '(' => {
                    self.open_group();
                    pos += 1;
                }
                '|' => {
                    self.commit_operand();
                    self.operand = false;
                    pos += 1;
                }
                ')' => {
                    if self.depth == 0 {
                        return Err((Code::UnexpectedParen, s));
                    }
                    self.commit_operand();
                    self.depth -= 1;
                    self.operand_weight = self.weights.pop().unwrap_or(0);
                    self.operand = true;
                    pos += 1;
                }
                '[' => {
                    self.commit_operand();
                    pos = self.class(pos)?;
                    self.operand = true;
                }
                '*' | '+' | '?' | '{' => match repeat_end(s, pos)? {
                    // A `{` that does not start a count is a literal.
                    None => {
                        self.commit_operand();
                        self.operand = true;
                        pos += 1;
                    }
                    Some(end) => {
                        let after = if s[end..].starts_with('?') {
                            end + 1
                        } else {
                            end
                        };
                        if let Some(last) = last_repeat {
                            return Err((Code::InvalidRepeatOp, &s[last..after]));
                        }
                        if !self.operand {
                            return Err((Code::MissingRepeatArgument, &s[pos..after]));
                        }
                        self.repeat_operand(&s[pos..end])
                            .map_err(|()| (Code::InvalidRepeatSize, &s[pos..after]))?;
                        repeat = Some(pos);
                        pos = after;
                    }
                },
                '\\' => {
                    self.commit_operand();
                    pos = self.escape_outside_class(pos)?;
                }
                other => {
                    self.commit_operand();
                    self.operand = true;
                    pos += other.len_utf8();
                }
            }
            last_repeat = repeat;
        }
        if self.depth > 0 {
            return Err((Code::MissingParen, s));
        }
        Ok(())
    }

    /// A group opens: what came before it is complete.
    fn open_group(&mut self) {
        self.commit_operand();
        self.depth += 1;
        self.weights.push(0);
        self.operand = false;
    }

    /// The operand just read is complete: its nested repetitions count
    /// towards its group's.
    fn commit_operand(&mut self) {
        if let Some(w) = self.weights.last_mut() {
            *w = (*w).max(self.operand_weight);
        }
        self.operand_weight = 0;
    }

    /// Applies the repetition `op` (`*`, `+`, `?` or a count) to the
    /// operand just read; `Err` when Go finds its nested counts too large.
    /// `*`, `+` and `?` pass the operand's counts through; a count `{n,m}`
    /// multiplies them by `m` (by `n` for `{n,}`), and one of `{0}` or
    /// `{0,}` hides them (Go stops looking there). Go checks only counts
    /// that may repeat twice or more.
    fn repeat_operand(&mut self, op: &str) -> Result<(), ()> {
        let Some((min, max, _)) = parse_count(op) else {
            return Ok(());
        };
        let m = u64::try_from(if max < 0 { min } else { max }).unwrap_or(0);
        let weight = if m == 0 {
            0
        } else {
            m.saturating_mul(self.operand_weight.max(1))
        };
        if (min >= 2 || max >= 2) && weight > MAX_NESTED_REPEAT {
            return Err(());
        }
        self.operand_weight = weight;
        Ok(())
    }

    /// A `(?` group at `pos`: a named capture or flags.
    fn perl_flags(&self, pos: usize) -> Result<Open, GoError<'s>> {
        let t = &self.s[pos..];
        if t.len() > 4 && t[2..].starts_with("P<") {
            let Some(end) = t.find('>') else {
                return Err((Code::InvalidNamedCapture, t));
            };
            let name = &t[4..end];
            if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
                return Err((Code::InvalidNamedCapture, &t[..=end]));
            }
            return Ok(Open::Group(pos + end + 1));
        }
        let mut i = pos + 2;
        let mut negated = false;
        let mut saw_flag = false;
        while let Some(c) = self.s[i..].chars().next() {
            i += c.len_utf8();
            match c {
                'i' | 'm' | 's' | 'U' => saw_flag = true,
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' if !negated || saw_flag => {
                    return Ok(if c == ':' {
                        Open::Group(i)
                    } else {
                        Open::FlagsOnly(i)
                    });
                }
                _ => break,
            }
        }
        Err((Code::InvalidPerlOp, &self.s[pos..i]))
    }

    /// A backslash outside a class: `\Q…\E`, an assertion, a Unicode or
    /// Perl class, or a single-character escape.
    fn escape_outside_class(&mut self, pos: usize) -> Result<usize, GoError<'s>> {
        let t = &self.s[pos..];
        match t.as_bytes().get(1) {
            Some(b'A' | b'b' | b'B' | b'z') => {
                self.operand = true;
                return Ok(pos + 2);
            }
            // Any byte: the emulator reads bytes, so Go's fork takes it.
            Some(b'C') => {
                self.operand = true;
                return Ok(pos + 2);
            }
            Some(b'Q') => {
                let quoted = &t[2..];
                let (literal, end) = match quoted.find("\\E") {
                    Some(i) => (&quoted[..i], pos + 2 + i + 2),
                    None => (quoted, self.s.len()),
                };
                self.operand |= !literal.is_empty();
                return Ok(end);
            }
            _ => {}
        }
        self.operand = true;
        if let Some(end) = self.unicode_class(pos)? {
            return Ok(end);
        }
        if is_perl_class(t) {
            return Ok(pos + 2);
        }
        escape(self.s, pos).map(|(_, end)| end)
    }

    /// `\p…` or `\P…` at `pos`, checked against Go's names; `None` when
    /// `pos` holds another escape.
    fn unicode_class(&self, pos: usize) -> Result<Option<usize>, GoError<'s>> {
        let t = &self.s[pos..];
        if !(t.starts_with("\\p") || t.starts_with("\\P")) {
            return Ok(None);
        }
        let (seq, name) = match t[2..].chars().next() {
            Some('{') => {
                let Some(end) = t.find('}') else {
                    return Err((Code::InvalidCharRange, t));
                };
                (&t[..=end], &t[3..end])
            }
            Some(c) => (&t[..2 + c.len_utf8()], &t[2..2 + c.len_utf8()]),
            None => (t, ""),
        };
        let name = name.strip_prefix('^').unwrap_or(name);
        if !unicode_name_known(name) {
            return Err((Code::InvalidCharRange, seq));
        }
        Ok(Some(pos + seq.len()))
    }

    /// A class `[…]` at `pos`; the position after its `]`.
    fn class(&self, pos: usize) -> Result<usize, GoError<'s>> {
        let s = self.s;
        let whole = &s[pos..];
        let mut p = pos + 1;
        if s[p..].starts_with('^') {
            p += 1;
        }
        // `]` first in the class is a literal.
        let mut first = true;
        while first || !s[p..].starts_with(']') {
            first = false;
            let t = &s[p..];
            if t.len() > 2
                && t.starts_with("[:")
                && let Some(i) = t[2..].find(":]")
            {
                let name = &t[..i + 4];
                if !POSIX_CLASSES.contains(&name.trim_start_matches("[:^").trim_start_matches("[:"))
                {
                    return Err((Code::InvalidCharRange, name));
                }
                p += name.len();
                continue;
            }
            if let Some(end) = self.unicode_class(p)? {
                p = end;
                continue;
            }
            if is_perl_class(t) {
                p += 2;
                continue;
            }
            let start = p;
            let (lo, next) = class_char(s, p, whole)?;
            p = next;
            let t = &s[p..];
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (hi, next) = class_char(s, p + 1, whole)?;
                p = next;
                if hi < lo {
                    return Err((Code::InvalidCharRange, &s[start..p]));
                }
            }
        }
        Ok(p + 1)
    }
}

/// The POSIX class names Go knows, without `[:` (a `^` after it negates).
const POSIX_CLASSES: &[&str] = &[
    "alnum:]", "alpha:]", "ascii:]", "blank:]", "cntrl:]", "digit:]", "graph:]", "lower:]",
    "print:]", "punct:]", "space:]", "upper:]", "word:]", "xdigit:]",
];

/// Go's one- and two-letter Unicode categories.
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N",
    "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So",
    "Z", "Zl", "Zp", "Zs",
];

/// Go's script names: the emulator is built with Go 1.24, whose tables
/// are Unicode 15.0.0 (each one probed against the emulator; the scripts
/// Unicode 16 added, such as `Garay`, are refused there).
const SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// Whether Go knows a Unicode class name: `Any`, a category or a script,
/// spelled exactly (`\p{greek}`, `\p{Letter}` and `\p{Latn}` are refused).
/// RE2 knows the same kinds of names (see `latin1.rs`).
pub(super) fn unicode_name_known(name: &str) -> bool {
    name == "Any" || CATEGORIES.contains(&name) || SCRIPTS.contains(&name)
}

/// Whether `t` starts with a Perl class escape (`\d \D \s \S \w \W`).
fn is_perl_class(t: &str) -> bool {
    matches!(
        t.as_bytes(),
        [b'\\', b'd' | b'D' | b's' | b'S' | b'w' | b'W', ..]
    )
}

/// Where the repetition operator at `pos` ends (`*`, `+`, `?` or a count
/// `{n}`, `{n,}`, `{n,m}`), before any lazy `?`; `None` for a `{` that is
/// not a count. A count over 1000 or reversed is Go's error.
fn repeat_end(s: &str, pos: usize) -> Result<Option<usize>, GoError<'_>> {
    if !s[pos..].starts_with('{') {
        return Ok(Some(pos + 1));
    }
    let Some((min, max, end)) = parse_count(&s[pos..]) else {
        return Ok(None);
    };
    if !(0..=1000).contains(&min) || max > 1000 || (max >= 0 && min > max) {
        return Err((Code::InvalidRepeatSize, &s[pos..pos + end]));
    }
    Ok(Some(pos + end))
}

/// A count `{n}`, `{n,}` or `{n,m}` at the start of `t`: the bounds (`-1`
/// for none, or for a number too large) and its length.
fn parse_count(t: &str) -> Option<(i64, i64, usize)> {
    let rest = t.strip_prefix('{')?;
    let (min, rest) = parse_int(rest)?;
    let (max, rest) = match rest.strip_prefix(',') {
        None => (min, rest),
        Some(r) if r.starts_with('}') => (-1, r),
        Some(r) => parse_int(r)?,
    };
    let rest = rest.strip_prefix('}')?;
    Some((min, max, t.len() - rest.len()))
}

/// Go's `parseInt`: digits without a leading zero; `-1` past 10^8.
fn parse_int(t: &str) -> Option<(i64, &str)> {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (digits >= 2 && t.starts_with('0')) {
        return None;
    }
    let mut n: i64 = 0;
    for b in t[..digits].bytes() {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(b - b'0');
    }
    Some((n, &t[digits..]))
}

/// One character of a class at `p`: a literal or an escape. Reaching the
/// end is the class's missing `]` (quoting the whole class, `whole`).
fn class_char<'s>(s: &'s str, p: usize, whole: &'s str) -> Result<(u32, usize), GoError<'s>> {
    match s[p..].chars().next() {
        None => Err((Code::MissingBracket, whole)),
        Some('\\') => escape(s, p),
        Some(c) => Ok((u32::from(c), p + c.len_utf8())),
    }
}

/// A single-character escape at `pos` (Go's `parseEscape`): its value and
/// the position after it.
fn escape(s: &str, pos: usize) -> Result<(u32, usize), GoError<'_>> {
    let mut chars = s[pos + 1..].chars();
    let Some(c) = chars.next() else {
        return Err((Code::TrailingBackslash, ""));
    };
    let mut end = pos + 1 + c.len_utf8();
    let octal = |b: Option<&u8>| b.is_some_and(|b| (b'0'..=b'7').contains(b));
    match c {
        '1'..='7' | '0' if c == '0' || octal(s.as_bytes().get(end)) => {
            let mut value = c as u32 - '0' as u32;
            for _ in 0..2 {
                match s.as_bytes().get(end) {
                    Some(&b) if octal(Some(&b)) => {
                        value = value * 8 + u32::from(b - b'0');
                        end += 1;
                    }
                    _ => break,
                }
            }
            return Ok((value, end));
        }
        'x' => {
            if let Some(value) = hex_escape(s, &mut end) {
                return Ok((value, end));
            }
        }
        'a' => return Ok((7, end)),
        'f' => return Ok((12, end)),
        'n' => return Ok((10, end)),
        'r' => return Ok((13, end)),
        't' => return Ok((9, end)),
        'v' => return Ok((11, end)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => return Ok((u32::from(c), end)),
        _ => {}
    }
    Err((Code::InvalidEscape, &s[pos..end]))
}

/// The value of `\xHH` or `\x{H…}` whose digits start at `*end`, moving
/// `*end` past what was read (as far as the error, when there is one).
fn hex_escape(s: &str, end: &mut usize) -> Option<u32> {
    let mut next = || {
        let c = s[*end..].chars().next()?;
        *end += c.len_utf8();
        Some(c)
    };
    let first = next()?;
    if first != '{' {
        let hi = first.to_digit(16);
        let lo = next().and_then(|c| c.to_digit(16));
        return Some(hi? * 16 + lo?);
    }
    let mut value: u32 = 0;
    let mut digits = 0;
    loop {
        let c = next()?;
        if c == '}' {
            break;
        }
        value = value * 16 + c.to_digit(16)?;
        if value > 0x10_FFFF {
            return None;
        }
        digits += 1;
    }
    (digits > 0).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the emulator answered for each pattern (probed with `cbt read
    /// t regex=PATTERN` against Google's emulator), after `error parsing
    /// regexp: `.
    #[test]
    fn the_emulator_s_texts() {
        for (pattern, want) in [
            ("[", "missing closing ]: `[)$`"),
            ("[a", "missing closing ]: `[a)$`"),
            ("(", "missing closing ): `^(?:()$`"),
            ("(|", "missing closing ): `^(?:(|)$`"),
            ("a\\", "missing closing ): `^(?:a\\)$`"),
            ("(?i", "missing closing ): `^(?:(?i)$`"),
            ("\\Q", "missing closing ): `^(?:\\Q)$`"),
            (")", "unexpected ): `^(?:))$`"),
            ("a)", "unexpected ): `^(?:a))$`"),
            ("*", "missing argument to repetition operator: `*`"),
            ("+a", "missing argument to repetition operator: `+`"),
            ("a|*", "missing argument to repetition operator: `*`"),
            ("a**", "invalid nested repetition operator: `**`"),
            ("a??*", "invalid nested repetition operator: `??*`"),
            ("x{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
            ("a{3,1}", "invalid repeat count: `{3,1}`"),
            ("a{1001}", "invalid repeat count: `{1001}`"),
            ("\\q", "invalid escape sequence: `\\q`"),
            ("\\8", "invalid escape sequence: `\\8`"),
            ("\\x{110000}", "invalid escape sequence: `\\x{110000`"),
            ("[z-a]", "invalid character class range: `z-a`"),
            ("ab[c-", "invalid character class range: `c-)`"),
            ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
            ("\\pX", "invalid character class range: `\\pX`"),
            ("(?P<n", "invalid named capture: `(?P<n)$`"),
            ("(?P<>a)", "invalid named capture: `(?P<>`"),
            ("(?<n>a)", "invalid or unsupported Perl syntax: `(?<`"),
            ("(?z)", "invalid or unsupported Perl syntax: `(?z`"),
        ] {
            assert_eq!(
                emulator_error(pattern.as_bytes()),
                Some(format!("error parsing regexp: {want}")),
                "{pattern}"
            );
        }
    }

    #[test]
    fn patterns_go_takes_pass() {
        for pattern in [
            "abc",
            "a.*",
            "z-a",
            "[]a]",
            "[a-]",
            "\\z",
            "^*",
            "(?i)abc",
            "(?i:a|b)+?",
            "(?P<name>x)",
            "a{,3}",
            "a{2,}",
            "[[:alpha:][:^digit:]]",
            "\\pL\\p{Greek}\\p{^Lu}",
            "\\x41\\x{263a}\\101\\0",
            "\\Qa*b\\E+",
            "[\\d\\-x]",
            "é+",
        ] {
            assert_eq!(emulator_error(pattern.as_bytes()), None, "{pattern}");
        }
    }

    /// The rarer kinds, probed against the emulator the same way (through
    /// the official client's ReadRows): bytes as characters, nested repeat
    /// counts, `\C`, and the exact Unicode class names.
    #[test]
    fn the_emulator_s_rarer_texts() {
        for (pattern, want) in [
            (&b"\xc3\xa9("[..], "missing closing ): `^(?:\\xC3\\xA9()$`"),
            (b"[\xc3\xa9-a]", "invalid character class range: `\\xA9-a`"),
            (b"[\xff-a]", "invalid character class range: `\\xFF-a`"),
            (b"a\xff)", "unexpected ): `^(?:a\\xFF))$`"),
            (b"(\xff", "missing closing ): `^(?:(\\xFF)$`"),
            (b"[\xc3\xa9", "missing closing ]: `[\\xC3\\xA9)$`"),
            (b"(?P<\xff>a)", "invalid named capture: `(?P<\\xFF>`"),
            (b"\\p{\xff}", "invalid character class range: `\\p{\\xFF}`"),
            (b"\x01(", "missing closing ): `^(?:\x01()$`"),
            (b"(a{2}){501}", "invalid repeat count: `{501}`"),
            (b"(a{100}){100}", "invalid repeat count: `{100}`"),
            (b"((a{10}){10}){11}", "invalid repeat count: `{11}`"),
            (b"(a{3}){334}", "invalid repeat count: `{334}`"),
            (b"(a{2}|b){501}", "invalid repeat count: `{501}`"),
            (b"(a{2,}){501}", "invalid repeat count: `{501}`"),
            (b"(a{1,2}){501}", "invalid repeat count: `{501}`"),
            (b"(.{1000}){5}", "invalid repeat count: `{5}`"),
            (b"(x{1000}){1000}", "invalid repeat count: `{1000}`"),
            (b"a{1001,}", "invalid repeat count: `{1001,}`"),
            (b"a{0,1001}", "invalid repeat count: `{0,1001}`"),
            (b"[\\C]", "invalid escape sequence: `\\C`"),
            (b"\\p{Foo}", "invalid character class range: `\\p{Foo}`"),
            (b"\\p{greek}", "invalid character class range: `\\p{greek}`"),
            (
                b"\\p{Letter}",
                "invalid character class range: `\\p{Letter}`",
            ),
            (b"\\p{Cn}", "invalid character class range: `\\p{Cn}`"),
            (b"\\p{LC}", "invalid character class range: `\\p{LC}`"),
            (b"\\p{Zzzz}", "invalid character class range: `\\p{Zzzz}`"),
            (
                b"\\p{Old_Foo}",
                "invalid character class range: `\\p{Old_Foo}`",
            ),
            (b"\\p{Garay}", "invalid character class range: `\\p{Garay}`"),
            (b"\\Pn", "invalid character class range: `\\Pn`"),
            (b"\\p", "invalid character class range: `\\p)`"),
            (b"\\p{", "invalid character class range: `\\p{)$`"),
            (b"[\\p{Foo}]", "invalid character class range: `\\p{Foo}`"),
            (b"\\Q\\E*", "missing argument to repetition operator: `*`"),
            (b"(?i)*", "missing argument to repetition operator: `*`"),
            (b"(?P=n)", "invalid or unsupported Perl syntax: `(?P`"),
            (b"(?#comment)", "invalid or unsupported Perl syntax: `(?#`"),
            (b"(?-)", "invalid or unsupported Perl syntax: `(?-)`"),
            (b"(?i-)", "invalid or unsupported Perl syntax: `(?i-)`"),
            (b"(?P<a-b>x)", "invalid named capture: `(?P<a-b>`"),
        ] {
            assert_eq!(
                emulator_error(pattern),
                Some(format!("error parsing regexp: {want}")),
                "{}",
                String::from_utf8_lossy(pattern)
            );
        }
    }

    /// What the emulator took in the same probes: it has no limit on
    /// nesting depth or expression size, and reads bytes, not UTF-8.
    #[test]
    fn patterns_the_emulator_takes_in_the_rarer_kinds() {
        let deep = format!("{}{}", "(".repeat(1001), ")".repeat(1001));
        let deep_flags = format!("{}{}", "(?:".repeat(1001), ")".repeat(1001));
        for pattern in [
            &b"a{1000}"[..],
            b"(a{10}){100}",
            b"(a{1000}){1}",
            b"((((a{1000}))))",
            b"x{1000}x{1000}y{1000}",
            b"(a*){1000}",
            b"(a{0}){1000}",
            b"(a{0,}){1000}",
            b"a{1000,}",
            b".{1000}.{1000}.{1000}.{1000}",
            b"\\C",
            b"a\\C+",
            b"\\pN",
            b"\\p{Greek}",
            b"\\p{Old_Italic}",
            b"\\p{Common}",
            b"\\p{Kawi}",
            b"\xff",
            b"[z-\xff]",
            b"(?P<n>a)(?P<n>b)",
            b"(?U)a+",
            b"(?-i)a",
            deep.as_bytes(),
            deep_flags.as_bytes(),
        ] {
            assert_eq!(
                emulator_error(pattern),
                None,
                "{}",
                String::from_utf8_lossy(pattern)
            );
        }
    }
}
