//! `cbt`'s GC policy language and its printed form.
//!
//! Grammar (as `cbt` parses it):
//!
//! ```text
//! policy ::= "never" | expr
//! expr   ::= term (op term)*          left-associative, no precedence
//! op     ::= "and" | "or" | "&&" | "||"
//! term   ::= "maxage" "=" duration | "maxversions" "=" uint16 | "(" expr ")"
//! duration ::= [0-9]+ ("ms" | "s" | "m" | "h" | "d")
//! ```
//!
//! Tokens are runs of Unicode letters and digits, or one of `= ( ) && ||`;
//! white space separates them. `a || b || c` nests as `(a || b) || c`,
//! exactly as `cbt` sends it, and prints back as `((a || b) || c)`.

use std::time::Duration;

use super::gostr::{is_digit, is_letter, is_space, parse_uint, quote, quote_rune};
use tabletop_store::GcRule;

/// What the user asked for: no rule at all (`never`), or a rule.
pub(crate) type Policy = Option<GcRule>;

struct Tokens<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    unget: Option<String>,
}

impl Tokens<'_> {
    /// The next token; `""` at the end of the input.
    fn next(&mut self) -> Result<String, String> {
        if let Some(t) = self.unget.take() {
            return Ok(t);
        }
        let c = loop {
            match self.chars.next() {
                None => return Ok(String::new()),
                Some(c) if is_space(c) => {}
                Some(c) => break c,
            }
        };
        match c {
            '=' | '(' | ')' => Ok(c.to_string()),
            '&' | '|' => {
                if self.chars.next() == Some(c) {
                    Ok(format!("{c}{c}"))
                } else {
                    Err(format!("expected {c}{c}"))
                }
            }
            c if is_letter(c) || is_digit(c) => {
                let mut tok = String::from(c);
                while let Some(&n) = self.chars.peek() {
                    if !(is_letter(n) || is_digit(n)) {
                        break;
                    }
                    tok.push(n);
                    self.chars.next();
                }
                Ok(tok)
            }
            c => Err(format!("bad rune {}", quote_rune(c))),
        }
    }

    fn expect(&mut self, want: &str) -> Result<(), String> {
        let got = self.next()?;
        if got == want {
            Ok(())
        } else {
            Err(format!(
                "expected {}, saw {}",
                quote(want.as_bytes()),
                quote(got.as_bytes())
            ))
        }
    }
}

/// `cbt`'s duration syntax: digits then one of `ms s m h d`.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let split = s
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    if digits.is_empty() || unit.is_empty() {
        return Err(format!("invalid duration {}", quote(s.as_bytes())));
    }
    let n = parse_uint(digits.as_bytes(), 10, 32)
        .map_err(|e| format!("invalid duration {}: {e}", quote(s.as_bytes())))?;
    let unit_nanos: u64 = match unit {
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => {
            return Err(format!(
                "unknown unit {} in duration {}",
                quote(unit.as_bytes()),
                quote(s.as_bytes())
            ));
        }
    };
    if n > (i64::MAX as u64) / unit_nanos {
        return Err(format!(
            "invalid duration {} overflows",
            quote(s.as_bytes())
        ));
    }
    Ok(Duration::from_nanos(n * unit_nanos))
}

fn term(t: &mut Tokens<'_>) -> Result<GcRule, String> {
    let tok = t.next()?;
    match tok.as_str() {
        "" => Err("empty GC policy term".to_string()),
        "maxage" | "maxversions" => {
            t.expect("=")?;
            let arg = t.next()?;
            if arg.is_empty() {
                return Err("expected a token after '='".to_string());
            }
            if tok == "maxage" {
                return Ok(GcRule::MaxAge(parse_duration(&arg)?));
            }
            let n = parse_uint(arg.as_bytes(), 10, 16).map_err(|e| e.to_string())?;
            Ok(GcRule::MaxNumVersions(i32::try_from(n).unwrap_or(i32::MAX)))
        }
        "(" => {
            let p = expr(t)?;
            t.expect(")")?;
            Ok(p)
        }
        _ => Err(format!("unexpected token: {}", quote(tok.as_bytes()))),
    }
}

fn expr(t: &mut Tokens<'_>) -> Result<GcRule, String> {
    let mut policy = term(t)?;
    loop {
        let tok = t.next()?;
        let union = match tok.as_str() {
            "and" | "&&" => false,
            "or" | "||" => true,
            _ => {
                t.unget = Some(tok);
                return Ok(policy);
            }
        };
        let rhs = term(t)?;
        policy = if union {
            GcRule::Union(vec![policy, rhs])
        } else {
            GcRule::Intersection(vec![policy, rhs])
        };
    }
}

/// Parses a GC policy as `cbt` does; the error text is what `cbt` prints.
pub(crate) fn parse(s: &str) -> Result<Policy, String> {
    if s.trim() == "never" {
        return Ok(None);
    }
    let mut t = Tokens {
        chars: s.chars().peekable(),
        unget: None,
    };
    let p = expr(&mut t).map_err(|e| format!("invalid GC policy: {e}"))?;
    let tok = t.next()?;
    if !tok.is_empty() {
        return Err(format!(
            "invalid GC policy: want end of input, got {}",
            quote(tok.as_bytes())
        ));
    }
    Ok(Some(p))
}

/// The text `cbt ls TABLE` shows in its "GC Policy" column (the Go
/// client's `GCRuleToString`): `versions() > 2`, `age() > 10d`,
/// `(age() > 1d || versions() > 2)`. Ages are shown in whole seconds'
/// worth of days, hours or minutes, else as a count of microseconds; a
/// family with no rule shows nothing.
pub(crate) fn to_string(rule: Option<&GcRule>) -> String {
    fn go(rule: &GcRule, out: &mut String) {
        match rule {
            GcRule::MaxNumVersions(n) => out.push_str(&format!("versions() > {n}")),
            GcRule::MaxAge(d) => {
                // Only the whole seconds of the proto's Duration are shown.
                let secs = d.as_secs();
                let text = if secs % 86_400 == 0 {
                    format!("age() > {}d", secs / 86_400)
                } else if secs % 3600 == 0 {
                    format!("age() > {}h", secs / 3600)
                } else if secs % 60 == 0 {
                    format!("age() > {}m", secs / 60)
                } else {
                    format!("age() > {}", u128::from(secs) * 1_000_000)
                };
                out.push_str(&text);
            }
            GcRule::Intersection(rules) | GcRule::Union(rules) => {
                let sep = if matches!(rule, GcRule::Union(_)) {
                    " || "
                } else {
                    " && "
                };
                out.push('(');
                for (i, r) in rules.iter().enumerate() {
                    if i > 0 {
                        out.push_str(sep);
                    }
                    go(r, out);
                }
                out.push(')');
            }
        }
    }
    let mut out = String::new();
    if let Some(r) = rule {
        go(r, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(s: &str) -> String {
        match parse(s) {
            Ok(p) => to_string(p.as_ref()),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn parses_and_prints_like_cbt() {
        assert_eq!(
            show("maxage=10d||maxversions=1"),
            "(age() > 10d || versions() > 1)"
        );
        assert_eq!(
            show("(maxage=1d&&maxversions=2)||maxversions=5"),
            "((age() > 1d && versions() > 2) || versions() > 5)"
        );
        assert_eq!(
            show("maxage=1d && maxversions=2 || maxversions=5"),
            "((age() > 1d && versions() > 2) || versions() > 5)"
        );
        assert_eq!(show("maxage = 5d"), "age() > 5d");
        assert_eq!(show("maxage=1500ms"), "age() > 1000000");
        assert_eq!(show("maxage=90s"), "age() > 90000000");
        assert_eq!(show("maxage=36h"), "age() > 36h");
        assert_eq!(show(" never "), "");
        assert_eq!(
            show("maxage=1d or maxversions=2"),
            "(age() > 1d || versions() > 2)"
        );
    }

    #[test]
    fn errors_read_like_cbt() {
        assert_eq!(show(""), "ERR invalid GC policy: empty GC policy term");
        assert_eq!(
            show("maxversions=70000"),
            "ERR invalid GC policy: strconv.ParseUint: parsing \"70000\": value out of range"
        );
        assert_eq!(
            show("maxage=4294967296s"),
            "ERR invalid GC policy: invalid duration \"4294967296s\": strconv.ParseUint: parsing \"4294967296\": value out of range"
        );
        assert_eq!(
            show("maxage=1x"),
            "ERR invalid GC policy: unknown unit \"x\" in duration \"1x\""
        );
        assert_eq!(show("maxage=1d |"), "ERR invalid GC policy: expected ||");
        assert_eq!(
            show("(maxage=1d"),
            "ERR invalid GC policy: expected \")\", saw \"\""
        );
        assert_eq!(
            show("maxage=1d)"),
            "ERR invalid GC policy: want end of input, got \")\""
        );
        assert_eq!(
            show("maxage 1d"),
            "ERR invalid GC policy: expected \"=\", saw \"1d\""
        );
        assert_eq!(
            show("maxage="),
            "ERR invalid GC policy: expected a token after '='"
        );
        assert_eq!(show("maxage=-1d"), "ERR invalid GC policy: bad rune '-'");
        assert_eq!(
            show("never or maxage=1d"),
            "ERR invalid GC policy: unexpected token: \"never\""
        );
    }
}
