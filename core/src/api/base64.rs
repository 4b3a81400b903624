//! Base64 as proto3 JSON spells `bytes` fields: the standard alphabet with
//! padding on output; on input the standard or the URL-safe alphabet, with
//! or without padding, as protobuf's JSON parsers accept.

/// The standard alphabet (RFC 4648 section 4).
const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Encodes bytes with the standard alphabet and `=` padding.
#[must_use]
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b0 = chunk.first().copied().unwrap_or(0);
        let b1 = chunk.get(1).copied().unwrap_or(0);
        let b2 = chunk.get(2).copied().unwrap_or(0);
        let n = (u32::from(b0) << 16) | (u32::from(b1) << 8) | u32::from(b2);
        let sextet = |shift: u32| char::from(STANDARD[((n >> shift) & 0x3f) as usize]);
        out.push(sextet(18));
        out.push(sextet(12));
        out.push(if chunk.len() > 1 { sextet(6) } else { '=' });
        out.push(if chunk.len() > 2 { sextet(0) } else { '=' });
    }
    out
}

/// The value of one base64 digit in either alphabet.
fn digit(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// Decodes base64 in the standard or the URL-safe alphabet; padding is
/// optional but, when present, must be complete and only at the end. The
/// error says what is wrong and where, for a message like
/// `request.rowKey: invalid base64: ...`.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let body_len = bytes.iter().rposition(|&b| b != b'=').map_or(0, |p| p + 1);
    let padding = bytes.len() - body_len;
    if padding > 0 && (padding > 2 || !bytes.len().is_multiple_of(4)) {
        return Err(format!(
            "{padding} padding character(s) '=' do not complete a 4-character group"
        ));
    }
    let body = &bytes[..body_len];
    if body.len() % 4 == 1 {
        return Err(format!(
            "{} characters cannot be base64 (a group of 4 characters may not end after 1)",
            body.len()
        ));
    }
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 2);
    for (g, group) in body.chunks(4).enumerate() {
        let mut n = 0u32;
        for (i, &c) in group.iter().enumerate() {
            let d = digit(c).ok_or_else(|| {
                let at = g * 4 + i;
                if c == b'=' {
                    format!("padding '=' at position {at} is not at the end")
                } else if c.is_ascii_graphic() {
                    format!(
                        "character '{}' at position {at} is not a base64 digit",
                        char::from(c)
                    )
                } else {
                    format!("byte 0x{c:02x} at position {at} is not a base64 digit")
                }
            })?;
            n |= d << (18 - 6 * i);
        }
        let [_, b0, b1, b2] = n.to_be_bytes();
        out.push(b0);
        if group.len() > 2 {
            out.push(b1);
        }
        if group.len() > 3 {
            out.push(b2);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_rfc4648_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).unwrap(), plain.as_bytes());
        }
    }

    #[test]
    fn decodes_url_safe_and_unpadded() {
        assert_eq!(decode("-_8").unwrap(), vec![0xfb, 0xff]);
        assert_eq!(decode("+/8=").unwrap(), vec![0xfb, 0xff]);
        assert_eq!(decode("Zg").unwrap(), b"f");
        assert_eq!(decode("Zm8").unwrap(), b"fo");
    }

    #[test]
    fn round_trips_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        for len in 0..all.len() {
            assert_eq!(decode(&encode(&all[..len])).unwrap(), &all[..len]);
        }
    }

    #[test]
    fn rejects_bad_input() {
        assert!(decode("Z").unwrap_err().contains("cannot be base64"));
        assert!(decode("Zg=").unwrap_err().contains("padding"));
        assert!(decode("Zg===").unwrap_err().contains("padding"));
        assert!(decode("Z=g=").unwrap_err().contains("not at the end"));
        assert!(
            decode("Zm9v!A==")
                .unwrap_err()
                .contains("'!' at position 4")
        );
        assert!(decode("Zm 9").unwrap_err().contains("0x20"));
        assert!(decode("é").is_err());
    }
}
