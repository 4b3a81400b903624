//! Base64 as proto3 JSON spells `bytes` fields: the standard alphabet with
//! padding on output; on input the standard or the URL-safe alphabet, with
//! or without padding, as protobuf's JSON parsers accept. The REST JSON
//! protocol and SQL's `TO_BASE64`/`FROM_BASE64` both use it.
//!
//! The work is the `base64` crate's; this module only picks its
//! configuration and words its errors so a message names what is wrong and
//! where (`request.rowKey: invalid base64: character '!' at position 4 is
//! not a base64 digit`).

use std::borrow::Cow;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// Standard alphabet; padding written on output, optional on input;
/// unused low bits of the last digit ignored (as protobuf's parsers do).
const ENGINE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Encodes bytes with the standard alphabet and `=` padding.
#[must_use]
pub fn encode(bytes: &[u8]) -> String {
    ENGINE.encode(bytes)
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
    if body_len % 4 == 1 {
        return Err(format!(
            "{body_len} characters cannot be base64 (a group of 4 characters may not end after 1)"
        ));
    }
    // The URL-safe alphabet differs from the standard one in two digits.
    let standard: Cow<'_, [u8]> = if bytes.iter().any(|&b| b == b'-' || b == b'_') {
        Cow::Owned(
            bytes
                .iter()
                .map(|&b| match b {
                    b'-' => b'+',
                    b'_' => b'/',
                    b => b,
                })
                .collect(),
        )
    } else {
        Cow::Borrowed(bytes)
    };
    ENGINE.decode(&standard).map_err(|e| match e {
        base64::DecodeError::InvalidByte(at, _) | base64::DecodeError::InvalidLastSymbol(at, _) => {
            let c = bytes.get(at).copied().unwrap_or(0);
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
        }
        base64::DecodeError::InvalidLength(n) => {
            format!("{n} characters cannot be base64 (a group of 4 characters may not end after 1)")
        }
        base64::DecodeError::InvalidPadding => {
            format!("{padding} padding character(s) '=' do not complete a 4-character group")
        }
    })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

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
