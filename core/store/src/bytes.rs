//! Byte-string comparison for short keys and qualifiers.
//!
//! Row keys, qualifiers and family names are short (tens of bytes), and
//! they are compared constantly. In WebAssembly `memcmp` is a byte-at-a-time
//! loop, so these compare eight bytes per step instead (as big-endian
//! words, which preserves lexicographic order); natively they are as fast as
//! the C library for such short inputs.

use std::cmp::Ordering;

/// Lexicographic comparison of two byte strings.
#[inline]
#[must_use]
pub(crate) fn cmp(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    let (mut ca, mut cb) = (a[..n].chunks_exact(8), b[..n].chunks_exact(8));
    for (x, y) in (&mut ca).zip(&mut cb) {
        let x = u64::from_be_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]);
        let y = u64::from_be_bytes([y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]]);
        if x != y {
            return x.cmp(&y);
        }
    }
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// Equality of two byte strings.
#[inline]
#[must_use]
pub(crate) fn eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && cmp(a, b) == Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_slice_order() {
        let samples: Vec<&[u8]> = vec![
            b"",
            b"a",
            b"ab",
            b"abcdefgh",
            b"abcdefgh\x00",
            b"abcdefgi",
            b"abcdefghij",
            b"abcdefghik",
            b"\xff",
            b"\x00",
            b"phone#4c410523#20200501",
            b"phone#4c410523#20200502",
        ];
        for a in &samples {
            for b in &samples {
                assert_eq!(cmp(a, b), a.cmp(b), "{a:?} {b:?}");
                assert_eq!(eq(a, b), a == b);
            }
        }
    }
}
