//! What a full-match pattern's structure says before any engine runs: the
//! lengths a matching haystack can have, and whether the pattern is a
//! fixed-length run of byte sets (a `GLOB`-like pattern such as
//! `PQ2A\.19040[0-9]\.003`), which a table of 256 bits per position decides
//! without the regex engine.
//!
//! Both facts are read from `regex-syntax`'s HIR of the very pattern the
//! `regex` crate compiles (same syntax options), so they are exact by
//! construction: a haystack outside the length bounds cannot match, and a
//! sequence accepts exactly what the regex accepts.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// Longest pattern turned into a byte-set sequence (longer ones keep the
/// regex engine; the table takes 32 bytes per position).
const MAX_SEQUENCE: usize = 256;

/// A set of bytes, as 256 bits: one position of a [`ByteSequence`], or
/// the first bytes a group of values starts with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ByteSet([u64; 4]);

impl ByteSet {
    pub(crate) const EMPTY: ByteSet = ByteSet([0; 4]);

    fn add_range(&mut self, lo: u8, hi: u8) {
        for b in lo..=hi {
            self.add(b);
        }
    }

    #[inline]
    pub(crate) fn add(&mut self, b: u8) {
        self.0[usize::from(b >> 6)] |= 1 << (b & 63);
    }

    #[inline]
    pub(crate) fn contains(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] >> (b & 63) & 1 != 0
    }

    /// Whether a byte is in both sets.
    pub(crate) fn intersects(&self, other: &ByteSet) -> bool {
        self.0.iter().zip(other.0).any(|(a, b)| a & b != 0)
    }
}

/// A pattern that matches exactly the haystacks of its length whose every
/// byte lies in the set of its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ByteSequence {
    sets: Box<[ByteSet]>,
}

impl ByteSequence {
    /// The bytes a match may start with (`None` for the empty sequence).
    pub(crate) fn first(&self) -> Option<&ByteSet> {
        self.sets.first()
    }

    /// The length of every match.
    pub(crate) fn len(&self) -> usize {
        self.sets.len()
    }

    /// Whether `hay` matches the whole sequence.
    #[inline]
    pub(crate) fn is_match(&self, hay: &[u8]) -> bool {
        hay.len() == self.sets.len()
            && hay
                .iter()
                .zip(self.sets.iter())
                .all(|(&b, s)| s.contains(b))
    }
}

/// What the structure of a full-match pattern tells.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Shortest matching haystack.
    pub(crate) min_len: usize,
    /// Longest matching haystack, `None` if unbounded.
    pub(crate) max_len: Option<usize>,
    /// The pattern as a byte-set sequence, when it is one.
    pub(crate) sequence: Option<ByteSequence>,
}

/// The shape of `anchored`, a pattern in the `regex` crate's syntax wrapped
/// in `\A(?:…)\z` and compiled with Unicode off (as `ByteRegex` builds it).
/// `None` when it cannot be parsed (then nothing is assumed).
pub(crate) fn shape(anchored: &str) -> Option<Shape> {
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(anchored)
        .ok()?;
    let props = hir.properties();
    let mut sets = Vec::new();
    let sequence = byte_sets(&hir, &mut sets).then(|| ByteSequence {
        sets: sets.into_boxed_slice(),
    });
    Some(Shape {
        min_len: props.minimum_len().unwrap_or(0),
        max_len: props.maximum_len(),
        sequence,
    })
}

/// Appends to `out` one set per byte `hir` consumes, if `hir` is a
/// concatenation of literals, byte classes and the text's own start and
/// end (which a full match implies). Returns false otherwise.
fn byte_sets(hir: &Hir, out: &mut Vec<ByteSet>) -> bool {
    match hir.kind() {
        HirKind::Empty => true,
        HirKind::Look(Look::Start | Look::End) => true,
        HirKind::Literal(lit) => {
            for &b in lit.0.iter() {
                let mut set = ByteSet::EMPTY;
                set.add_range(b, b);
                out.push(set);
            }
            out.len() <= MAX_SEQUENCE
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut set = ByteSet::EMPTY;
            for r in class.iter() {
                set.add_range(r.start(), r.end());
            }
            out.push(set);
            out.len() <= MAX_SEQUENCE
        }
        HirKind::Repetition(rep) if rep.max == Some(rep.min) => {
            let start = out.len();
            if !byte_sets(&rep.sub, out) {
                return false;
            }
            let one = out.len() - start;
            let times = usize::try_from(rep.min).unwrap_or(usize::MAX);
            if times == 0 {
                out.truncate(start);
                return true;
            }
            if one.saturating_mul(times) > MAX_SEQUENCE {
                return false;
            }
            for _ in 1..times {
                out.extend_from_within(start..start + one);
            }
            true
        }
        // The HIR's own simplifications (`a|b` becomes a class) may give a
        // class of characters; only ASCII ones are single bytes.
        HirKind::Class(Class::Unicode(class)) => {
            let mut set = ByteSet::EMPTY;
            for r in class.iter() {
                match (u8::try_from(r.start()), u8::try_from(r.end())) {
                    (Ok(lo), Ok(hi)) if hi.is_ascii() => set.add_range(lo, hi),
                    _ => return false,
                }
            }
            out.push(set);
            out.len() <= MAX_SEQUENCE
        }
        HirKind::Alternation(subs) => {
            // Alternatives of one byte each (`b|c`) are one set.
            let mut union = ByteSet::EMPTY;
            let mut one = Vec::with_capacity(1);
            for sub in subs {
                one.clear();
                if !byte_sets(sub, &mut one) || one.len() != 1 {
                    return false;
                }
                for (u, w) in union.0.iter_mut().zip(one[0].0) {
                    *u |= w;
                }
            }
            out.push(union);
            out.len() <= MAX_SEQUENCE
        }
        HirKind::Capture(cap) => byte_sets(&cap.sub, out),
        HirKind::Concat(subs) => subs.iter().all(|s| byte_sets(s, out)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn of(p: &str) -> Shape {
        shape(&format!(r"\A(?:{p})\z")).unwrap_or_default()
    }

    #[test]
    fn lengths_bound_the_haystack() {
        let s = of(r"ab[0-9]{2,4}");
        assert_eq!((s.min_len, s.max_len), (4, Some(6)));
        assert_eq!(of(r"a+").max_len, None);
        assert_eq!(of(r"").max_len, Some(0));
    }

    #[test]
    fn globs_become_sequences() {
        let seq = of(r"PQ2A\x2E19040[\x30-\x39]\x2E003").sequence;
        let Some(seq) = seq else {
            panic!("not a sequence");
        };
        assert!(seq.is_match(b"PQ2A.190405.003"));
        assert!(!seq.is_match(b"PQ2A.190415.003"));
        assert!(!seq.is_match(b"PQ2A.190405.0033"));
        assert!(!seq.is_match(b"PQ2A.190405.00"));
        let ci = of(r"(?i)ab(?-i:c)").sequence;
        assert!(
            ci.as_ref()
                .is_some_and(|s| s.is_match(b"aBc") && !s.is_match(b"aBC"))
        );
        assert!(
            of(r"(?:a|b)c").sequence.is_some(),
            "a|b of single bytes is a class"
        );
        assert!(of(r"ab|cd").sequence.is_none());
        let digits = of(r"x[0-9]{3}(?:ab){0}").sequence;
        assert!(digits.is_some_and(|s| s.is_match(b"x123") && !s.is_match(b"x12")));
        assert!(of(r"a*").sequence.is_none());
        assert!(
            of(r"(?m)^a").sequence.is_none(),
            "a line anchor is not the text's"
        );
    }
}
