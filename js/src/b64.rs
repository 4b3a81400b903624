//! Base64 (the standard alphabet, with `=` padding, as proto3 JSON writes
//! bytes) for the short byte strings of read answers: most values,
//! qualifiers and row keys are a few bytes to a few dozen, and for those a
//! plain loop over a 64-entry table is cheaper than the `base64` crate's
//! general encoder, whose setup dominated at 1 to 4 bytes (about 10 % of a
//! prefix scan's profile). Longer inputs go to the crate. The loop makes
//! each group of three bytes from two lookups in a table of every pair of
//! symbols (8 KiB) and one four-byte store: in wasm, 33,433 row keys of 23
//! bytes took 0.39 ms where a lookup and a store per symbol took 0.55.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Inputs up to this many bytes take the loop.
const SHORT: usize = 48;

/// The two symbols of every 12-bit number, the first in the low byte.
static PAIRS: [u16; 4096] = pairs();

const fn pairs() -> [u16; 4096] {
    let mut t = [0u16; 4096];
    let mut v = 0;
    while v < 4096 {
        t[v] = ALPHABET[v >> 6] as u16 | ((ALPHABET[v & 63] as u16) << 8);
        v += 1;
    }
    t
}

/// The length of `n` bytes as base64 text.
pub(crate) fn encoded_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// Appends `bytes` as base64 to `out`. Text up to 64 bytes is made on the
/// stack and copied once, rather than into zeroes `out` was first grown
/// with.
pub(crate) fn extend(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = encoded_len(bytes.len());
    let mut text = [0u8; 64];
    if let Some(text) = text.get_mut(..n) {
        encode_into(bytes, text);
        out.extend_from_slice(text);
    } else {
        let at = out.len();
        out.resize(at + n, 0);
        encode_into(bytes, &mut out[at..]);
    }
}

/// Writes `bytes` as base64 into `out`, which is exactly
/// [`encoded_len`]`(bytes.len())` long.
fn encode_into(bytes: &[u8], out: &mut [u8]) {
    if bytes.len() > SHORT {
        // `out` is exactly the encoded length, so this cannot fail.
        let _ = STANDARD.encode_slice(bytes, out);
        return;
    }
    let sym = |v: u32| ALPHABET[(v & 63) as usize];
    let mut groups = bytes.chunks_exact(3);
    let mut at = 0;
    for (g, o) in groups.by_ref().zip(out.chunks_exact_mut(4)) {
        let v = (u32::from(g[0]) << 16) | (u32::from(g[1]) << 8) | u32::from(g[2]);
        let four =
            u32::from(PAIRS[(v >> 12) as usize]) | (u32::from(PAIRS[(v & 4095) as usize]) << 16);
        o.copy_from_slice(&four.to_le_bytes());
        at += 4;
    }
    match *groups.remainder() {
        [a] => {
            let v = u32::from(a) << 16;
            out[at] = sym(v >> 18);
            out[at + 1] = sym(v >> 12);
            out[at + 2] = b'=';
            out[at + 3] = b'=';
        }
        [a, b] => {
            let v = (u32::from(a) << 16) | (u32::from(b) << 8);
            out[at] = sym(v >> 18);
            out[at + 1] = sym(v >> 12);
            out[at + 2] = sym(v >> 6);
            out[at + 3] = b'=';
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(bytes: &[u8]) -> String {
        let mut out = vec![0u8; encoded_len(bytes.len())];
        encode_into(bytes, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn agrees_with_the_crate_at_every_short_length_and_past_it() {
        // Every length up to past the loop's bound, each with bytes that
        // reach every symbol of the alphabet (and both padding forms).
        for n in 0..=SHORT + 4 {
            for seed in 0..8u32 {
                let bytes: Vec<u8> = (0..n as u32)
                    .map(|i| (i.wrapping_mul(97).wrapping_add(seed * 61)) as u8)
                    .collect();
                assert_eq!(encode(&bytes), STANDARD.encode(&bytes), "{bytes:?}");
            }
        }
        let all: Vec<u8> = (0..=255).collect();
        for w in all.windows(3) {
            assert_eq!(encode(w), STANDARD.encode(w));
        }
        assert_eq!(encode(&[0xff; 3]), "////");
        assert_eq!(encode(&[0xfb, 0xff]), "+/8=");
        assert_eq!(encode(b""), "");
    }

    #[test]
    fn extending_appends_the_same_text_on_and_off_the_stack() {
        // Around the stack copy's bound of 64 characters (48 bytes).
        for n in [0, 1, 47, 48, 49, 100] {
            let bytes: Vec<u8> = (0..n as u32).map(|i| (i * 89 + 3) as u8).collect();
            let mut out = b"x".to_vec();
            extend(&mut out, &bytes);
            assert_eq!(
                out,
                [b"x".as_slice(), STANDARD.encode(&bytes).as_bytes()].concat(),
                "{n}"
            );
        }
    }
}
