//! Bigtable's order-preserving `OrderedCodeBytes` encodings, written from
//! their published descriptions:
//!
//! - **INT64**: a variable-length signed number of 1 to 10 bytes. The first
//!   bits say the sign (a leading 1 bit for non-negative numbers) and the
//!   length (one more repeated sign bit per extra byte); the payload is the
//!   two's complement value. Numbers near zero take fewer bytes, one byte
//!   holds `-64..64`, and byte order equals numeric order for every value.
//! - **STRUCT**: fields encoded on their own, a `0x00` byte inside a field
//!   written as `0x00 0xff`, fields separated by `0x00 0x01`, an empty field
//!   written as `0x00 0x00`, empty fields at the end left out, and a struct
//!   whose fields are all empty written as `0x00 0x00`. A shorter field
//!   sorts before every longer one that starts with it, so the encoding
//!   keeps the field-by-field order.

/// The header bits of an encoding of `len` bytes (first and second byte).
const HEADER: [[u8; 2]; 11] = [
    [0, 0],
    [0x80, 0],
    [0xc0, 0],
    [0xe0, 0],
    [0xf0, 0],
    [0xf8, 0],
    [0xfc, 0],
    [0xfe, 0],
    [0xff, 0],
    [0xff, 0x80],
    [0xff, 0xc0],
];

/// The header bits that overlap the payload once the bytes are read back
/// as a big-endian number, per encoding length.
const OVERLAP: [u64; 11] = [
    0,
    0x80,
    0xc000,
    0x00e0_0000,
    0xf000_0000,
    0x00f8_0000_0000,
    0xfc00_0000_0000,
    0x00fe_0000_0000_0000,
    0xff00_0000_0000_0000,
    0x8000_0000_0000_0000,
    0,
];

/// Bytes an encoding of `v` takes: the smallest `n` with `|v| < 2^(7n-1)`
/// (counting `!v` for negative numbers).
fn length_of(v: i64) -> usize {
    let x = if v < 0 { !v } else { v } as u64;
    let bits = 64 - x.leading_zeros() as usize;
    (bits + 1).div_ceil(7).max(1)
}

/// Appends the `OrderedCodeBytes` encoding of `v`.
pub(crate) fn encode_int(v: i64, out: &mut Vec<u8>) {
    let len = length_of(v);
    let sign: u8 = if v < 0 { 0xff } else { 0 };
    let mut buf = [sign; 10];
    buf[2..].copy_from_slice(&v.to_be_bytes());
    let start = 10 - len;
    buf[start] ^= HEADER[len][0];
    if len >= 2 {
        buf[start + 1] ^= HEADER[len][1];
    }
    out.extend_from_slice(&buf[start..]);
}

/// Reads an `OrderedCodeBytes` INT64 from the front of `bytes`: the value
/// and the bytes it took. `None` when the bytes are not a valid, canonical
/// encoding.
pub(crate) fn decode_int(bytes: &[u8]) -> Option<(i64, usize)> {
    let first_raw = *bytes.first()?;
    let mask: u8 = if first_raw & 0x80 == 0 { 0xff } else { 0 };
    let first = first_raw ^ mask;
    let len = if first != 0xff {
        first.leading_ones() as usize
    } else {
        let second = bytes.get(1)? ^ mask;
        if second < 0x80 {
            8
        } else if second < 0xc0 {
            9
        } else {
            let third = bytes.get(2)? ^ mask;
            if second == 0xc0 && third < 0x80 {
                10
            } else {
                return None;
            }
        }
    };
    if len == 0 || bytes.len() < len {
        return None;
    }
    let raw = &bytes[..len];
    let mut x: u64 = if len < 8 {
        let mut x: u64 = if mask == 0xff { u64::MAX } else { 0 };
        for &b in raw {
            x = (x << 8) | u64::from(b);
        }
        x
    } else {
        let mut be = [0u8; 8];
        be.copy_from_slice(&raw[len - 8..]);
        u64::from_be_bytes(be)
    };
    x ^= OVERLAP[len];
    let v = x as i64;
    // Only the canonical (shortest) form is a valid encoding.
    let mut check = Vec::with_capacity(len);
    encode_int(v, &mut check);
    (check == raw).then_some((v, len))
}

/// Appends one struct field's bytes with `0x00` escaped as `0x00 0xff`.
fn push_escaped(field: &[u8], out: &mut Vec<u8>) {
    for &b in field {
        out.push(b);
        if b == 0 {
            out.push(0xff);
        }
    }
}

/// Encodes already-encoded field values as an `OrderedCodeBytes` struct.
pub(crate) fn encode_struct(fields: &[Vec<u8>]) -> Vec<u8> {
    let keep = fields
        .iter()
        .rposition(|f| !f.is_empty())
        .map_or(0, |i| i + 1);
    if keep == 0 {
        return vec![0, 0];
    }
    let mut out = Vec::new();
    for (i, f) in fields[..keep].iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(&[0, 1]);
        }
        if f.is_empty() {
            out.extend_from_slice(&[0, 0]);
        } else {
            push_escaped(f, &mut out);
        }
    }
    out
}

/// The bytes every struct whose leading fields are `fields` starts with
/// (a superset: a key whose next field is empty and last may end here).
pub(crate) fn struct_prefix(fields: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(&[0, 1]);
        }
        if f.is_empty() {
            out.extend_from_slice(&[0, 0]);
        } else {
            push_escaped(f, &mut out);
        }
    }
    out
}

/// Splits an `OrderedCodeBytes` struct into its (unescaped) fields. Fewer
/// fields than the key had are padded with empty ones by the caller.
/// `Err` carries a reason.
pub(crate) fn decode_struct(bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    if bytes == [0, 0] {
        return Ok(Vec::new());
    }
    let mut fields = Vec::new();
    let mut cur = Vec::new();
    let mut empty_marker = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != 0 {
            if empty_marker {
                return Err(format!(
                    "byte {i}: an empty-field marker (0x00 0x00) followed by data"
                ));
            }
            cur.push(b);
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(0xff) => {
                if empty_marker {
                    return Err(format!(
                        "byte {i}: an empty-field marker (0x00 0x00) followed by data"
                    ));
                }
                cur.push(0);
            }
            Some(0x01) => {
                fields.push(std::mem::take(&mut cur));
                empty_marker = false;
            }
            Some(0x00) => {
                if !cur.is_empty() || empty_marker {
                    return Err(format!(
                        "byte {i}: an empty-field marker (0x00 0x00) inside a field"
                    ));
                }
                empty_marker = true;
            }
            Some(other) => {
                return Err(format!(
                    "byte {i}: 0x00 followed by 0x{other:02x} (only 0x00, 0x01 and 0xff may follow 0x00)"
                ));
            }
            None => return Err(format!("byte {i}: a lone 0x00 at the end of the key")),
        }
        i += 2;
    }
    fields.push(cur);
    Ok(fields)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn hex(v: i64) -> String {
        let mut out = Vec::new();
        encode_int(v, &mut out);
        out.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn int_vectors_match_the_reference_encoder() {
        let cases: &[(i64, &str)] = &[
            (i64::MIN, "003f8000000000000000"),
            (i64::MIN + 1, "003f8000000000000001"),
            (i64::from(i32::MIN) - 1, "077fffffff"),
            (i64::from(i32::MIN), "0780000000"),
            (-65, "3fbf"),
            (-64, "40"),
            (-63, "41"),
            (-1, "7f"),
            (0, "80"),
            (1, "81"),
            (63, "bf"),
            (64, "c040"),
            (65, "c041"),
            (i64::from(i32::MAX), "f87fffffff"),
            (i64::from(i32::MAX) + 1, "f880000000"),
            (i64::MAX - 1, "ffc07ffffffffffffffe"),
            (i64::MAX, "ffc07fffffffffffffff"),
        ];
        for &(v, want) in cases {
            assert_eq!(hex(v), want, "{v}");
            let mut enc = Vec::new();
            encode_int(v, &mut enc);
            assert_eq!(decode_int(&enc), Some((v, enc.len())), "{v}");
        }
    }

    #[test]
    fn int_order_is_numeric_order() {
        let mut vals: Vec<i64> = vec![i64::MIN, -1 << 40, -8193, -65, -64, -1, 0, 1, 63, 64, 8191];
        vals.extend([8192, 1 << 40, (1 << 62) - 1, 1 << 62, i64::MAX]);
        let enc: Vec<Vec<u8>> = vals
            .iter()
            .map(|&v| {
                let mut o = Vec::new();
                encode_int(v, &mut o);
                o
            })
            .collect();
        for w in enc.windows(2) {
            assert!(w[0] < w[1], "{:x?} !< {:x?}", w[0], w[1]);
        }
        assert_eq!(decode_int(&[]), None);
        assert_eq!(decode_int(&[0xc0]), None);
        // Not canonical: 1 written in two bytes.
        assert_eq!(decode_int(&[0xc0, 0x01]), None);
    }

    #[test]
    fn struct_examples() {
        let s = |f: &[&[u8]]| encode_struct(&f.iter().map(|x| x.to_vec()).collect::<Vec<_>>());
        assert_eq!(s(&[]), b"\x00\x00");
        assert_eq!(s(&[b""]), b"\x00\x00");
        assert_eq!(s(&[b"", b""]), b"\x00\x00");
        assert_eq!(s(&[b"", b"B"]), b"\x00\x00\x00\x01B");
        assert_eq!(s(&[b"A", b""]), b"A");
        assert_eq!(s(&[b"A", b"", b"C"]), b"A\x00\x01\x00\x00\x00\x01C");
        assert_eq!(s(&[b"a\x00b", b"c"]), b"a\x00\xffb\x00\x01c");
        assert_eq!(
            decode_struct(b"A\x00\x01\x00\x00\x00\x01C").unwrap(),
            vec![b"A".to_vec(), Vec::new(), b"C".to_vec()]
        );
        assert_eq!(
            decode_struct(b"a\x00\xffb\x00\x01c").unwrap(),
            vec![b"a\x00b".to_vec(), b"c".to_vec()]
        );
        assert!(decode_struct(b"a\x00").is_err());
        assert!(decode_struct(b"a\x00\x05").is_err());
        assert!(s(&[b"A"]) < s(&[b"A", b"B"]));
        assert!(s(&[b"A", b"\xff"]) < s(&[b"A\x00"]));
    }
}
