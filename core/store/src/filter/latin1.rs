//! Unicode classes and case folding as RE2 applies them in raw-byte
//! (Latin-1) mode, where every byte is the code point of the same value:
//! `\pL`, `\p{Greek}` and the like match the bytes whose code point is in
//! the class (none, for a script with no letter below U+0100), and `(?i)`
//! pairs each Latin-1 letter with its other case when that case is in
//! Latin-1 too (`é`/`É`, but `ÿ` and `µ` stay alone: their partners are
//! above U+00FF). Google's emulator reads patterns the same way (Go's
//! `regexp` over bytes as code points), so both answer alike.

use std::fmt::Write as _;

use regex_syntax::hir::{Class, HirKind};

use super::go_syntax::unicode_name_known;
use super::regex_shape::ByteSet;

/// The bytes the Unicode class `name` (`Any`, a general category such as
/// `L` or `Nd`, or a script such as `Greek`, spelled exactly) matches,
/// after case folding when `fold` and negation when `negated`; `None` for
/// a name RE2 does not know.
pub(crate) fn unicode_class(name: &str, negated: bool, fold: bool) -> Option<ByteSet> {
    if !unicode_name_known(name) {
        return None;
    }
    let mut set = ByteSet::EMPTY;
    if name == "Any" {
        (0..=u8::MAX).for_each(|b| set.add(b));
    } else {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(&format!("\\p{{{name}}}"))
            .ok()?;
        let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
            return None;
        };
        for r in class.ranges() {
            let (lo, hi) = (u32::from(r.start()), u32::from(r.end()).min(0xFF));
            for cp in lo..=hi {
                set.add(u8::try_from(cp).ok()?);
            }
        }
    }
    if fold {
        set = folded(set);
    }
    if negated {
        set = complement(set);
    }
    Some(set)
}

/// The other case of the Latin-1 letter `b`, when it is one byte too.
pub(crate) fn case_partner(b: u8) -> Option<u8> {
    let c = char::from(b);
    let other: Vec<char> = if c.is_lowercase() {
        c.to_uppercase().collect()
    } else if c.is_uppercase() {
        c.to_lowercase().collect()
    } else {
        return None;
    };
    match other.as_slice() {
        [p] => u8::try_from(u32::from(*p)).ok(),
        _ => None,
    }
}

/// `set` with the case partner of each of its letters.
fn folded(set: ByteSet) -> ByteSet {
    let mut out = set;
    for b in 0..=u8::MAX {
        if set.contains(b)
            && let Some(p) = case_partner(b)
        {
            out.add(p);
        }
    }
    out
}

fn complement(set: ByteSet) -> ByteSet {
    let mut out = ByteSet::EMPTY;
    for b in (0..=u8::MAX).filter(|&b| !set.contains(b)) {
        out.add(b);
    }
    out
}

/// Writes `set` as the contents of a `regex` crate class (`\xHH` and
/// `\xHH-\xHH` items, nothing when empty); returns whether it wrote any.
pub(crate) fn write_class_items(out: &mut String, set: &ByteSet) -> bool {
    let mut wrote = false;
    let mut b = 0u16;
    while b <= 0xFF {
        let lo = b as u8;
        if !set.contains(lo) {
            b += 1;
            continue;
        }
        let mut hi = lo;
        while hi < 0xFF && set.contains(hi + 1) {
            hi += 1;
        }
        // Writing to a String cannot fail.
        let _ = if lo == hi {
            write!(out, "\\x{lo:02X}")
        } else {
            write!(out, "\\x{lo:02X}-\\x{hi:02X}")
        };
        wrote = true;
        b = u16::from(hi) + 1;
    }
    wrote
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn bytes(set: &ByteSet) -> Vec<u8> {
        (0..=u8::MAX).filter(|&b| set.contains(b)).collect()
    }

    #[test]
    fn classes_are_cut_to_latin1() {
        let letters = unicode_class("L", false, false).unwrap();
        assert!(letters.contains(b'a') && letters.contains(0xE9) && letters.contains(0xAA));
        assert!(
            !letters.contains(b'1') && !letters.contains(0xD7),
            "× is a symbol"
        );
        let digits = unicode_class("Nd", false, false).unwrap();
        assert_eq!(bytes(&digits), (b'0'..=b'9').collect::<Vec<_>>());
        let numbers = unicode_class("N", false, false).unwrap();
        assert!(numbers.contains(0xB2) && numbers.contains(0xBD), "² and ½");
        assert!(bytes(&unicode_class("Greek", false, false).unwrap()).is_empty());
        assert_eq!(
            bytes(&unicode_class("Greek", true, false).unwrap()).len(),
            256
        );
        assert_eq!(
            bytes(&unicode_class("Any", false, false).unwrap()).len(),
            256
        );
        let upper = unicode_class("Lu", false, true).unwrap();
        assert!(upper.contains(b'a') && upper.contains(0xE9), "folded");
        for unknown in ["Letter", "greek", "Latn", "gc=L", "Foo", ""] {
            assert!(unicode_class(unknown, false, false).is_none(), "{unknown}");
        }
    }

    #[test]
    fn case_partners_stay_within_latin1() {
        assert_eq!(case_partner(0xE9), Some(0xC9));
        assert_eq!(case_partner(0xC9), Some(0xE9));
        assert_eq!(case_partner(b'k'), Some(b'K'));
        assert_eq!(case_partner(0xFF), None, "ÿ's capital is U+0178");
        assert_eq!(case_partner(0xB5), None, "µ's capital is U+039C");
        assert_eq!(case_partner(0xDF), None, "ß has no one-letter capital");
        assert_eq!(case_partner(0xD7), None, "× is no letter");
    }

    #[test]
    fn sets_are_written_as_ranges() {
        let mut out = String::new();
        assert!(!write_class_items(&mut out, &ByteSet::EMPTY));
        let set = unicode_class("Nd", false, false).unwrap();
        assert!(write_class_items(&mut out, &set));
        assert_eq!(out, r"\x30-\x39");
    }
}
