//! Row keys for display: escaped readably and cut into segments, so each
//! segment can be tinted by its position, the same way in every view (rows,
//! tablet split labels, samples).

use tabletop_core::escape_bytes;

/// Bytes that separate the segments of a row key. `#` is what Bigtable's
/// schema guide uses; the others are common too.
pub const SEPARATORS: &[char] = &['#', ':', '/', '|', ';', ','];

/// How many distinct tints segments cycle through (`seg-0` .. `seg-5` in
/// the style sheet).
pub const TINTS: usize = 6;

/// A piece of a displayed key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyPart {
    /// The `index`-th segment (from 0) and its text.
    Segment {
        /// Position of the segment in the key.
        index: usize,
        /// Its text, escaped.
        text: String,
    },
    /// A separator between segments.
    Separator(char),
}

impl KeyPart {
    /// The style class of a segment's tint (`seg-0` ..), the same for the
    /// same position everywhere.
    pub fn tint_class(index: usize) -> &'static str {
        const CLASSES: [&str; TINTS] = ["seg-0", "seg-1", "seg-2", "seg-3", "seg-4", "seg-5"];
        CLASSES[index % TINTS]
    }
}

/// A key escaped for display (`\xNN` for bytes that are not printable
/// ASCII) and cut into segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisplayKey {
    /// The whole key, escaped.
    pub text: String,
    /// The same text, cut at separators.
    pub parts: Vec<KeyPart>,
}

impl DisplayKey {
    /// Escapes and cuts `key`.
    pub fn new(key: &[u8]) -> DisplayKey {
        let text = escape_bytes(key);
        DisplayKey {
            parts: key_parts(&text),
            text,
        }
    }
}

/// Cuts escaped key text at each separator. Empty segments produce no
/// part, but still count, so `a##b` tints `b` as the third segment.
pub fn key_parts(text: &str) -> Vec<KeyPart> {
    let mut out = Vec::new();
    let mut index = 0;
    let mut current = String::new();
    for c in text.chars() {
        if SEPARATORS.contains(&c) {
            if !current.is_empty() {
                out.push(KeyPart::Segment {
                    index,
                    text: std::mem::take(&mut current),
                });
            }
            out.push(KeyPart::Separator(c));
            index += 1;
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        out.push(KeyPart::Segment {
            index,
            text: current,
        });
    }
    out
}

/// Parses key text typed by a person: `\xNN` is one byte, `\\` a
/// backslash, `\n`, `\t`, `\r` as usual, and everything else is UTF-8. The
/// inverse of the display escaping, so a key copied from the rows panel
/// reads back as the same bytes.
pub fn parse_key_text(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(b'\\') => out.push(b'\\'),
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(b'r') => out.push(b'\r'),
            Some(b'x') => {
                let hex = text
                    .get(i + 2..i + 4)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| {
                        format!(
                            "\\x at position {} needs two hex digits, as in \\x00",
                            i + 1
                        )
                    })?;
                out.push(hex);
                i += 4;
                continue;
            }
            _ => {
                return Err(format!(
                    "unknown escape at position {}: use \\xNN, \\\\, \\n, \\t or \\r",
                    i + 1
                ));
            }
        }
        i += 2;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(index: usize, text: &str) -> KeyPart {
        KeyPart::Segment {
            index,
            text: text.into(),
        }
    }

    #[test]
    fn keys_split_into_tinted_segments() {
        assert_eq!(
            key_parts("phone#4c410523#20200501"),
            vec![
                seg(0, "phone"),
                KeyPart::Separator('#'),
                seg(1, "4c410523"),
                KeyPart::Separator('#'),
                seg(2, "20200501"),
            ]
        );
        assert_eq!(key_parts("plain"), vec![seg(0, "plain")]);
        assert_eq!(
            key_parts("a##b"),
            vec![
                seg(0, "a"),
                KeyPart::Separator('#'),
                KeyPart::Separator('#'),
                seg(2, "b")
            ]
        );
        assert_eq!(
            key_parts("com.example/path:1|x"),
            vec![
                seg(0, "com.example"),
                KeyPart::Separator('/'),
                seg(1, "path"),
                KeyPart::Separator(':'),
                seg(2, "1"),
                KeyPart::Separator('|'),
                seg(3, "x"),
            ]
        );
        assert_eq!(KeyPart::tint_class(1), "seg-1");
        assert_eq!(KeyPart::tint_class(7), "seg-1");
    }

    #[test]
    fn binary_keys_are_escaped_then_cut() {
        let key = DisplayKey::new(b"t\x00#\xff\n");
        assert_eq!(key.text, "t\\x00#\\xff\\n");
        assert_eq!(
            key.parts,
            vec![
                seg(0, "t\\x00"),
                KeyPart::Separator('#'),
                seg(1, "\\xff\\n")
            ]
        );
    }

    #[test]
    fn typed_keys_read_back_as_bytes() {
        assert_eq!(parse_key_text("phone#1").unwrap(), b"phone#1");
        assert_eq!(
            parse_key_text("a\\x00\\xffb\\n\\\\").unwrap(),
            b"a\x00\xffb\n\\"
        );
        let shown = DisplayKey::new(b"\x01z\\").text;
        assert_eq!(parse_key_text(&shown).unwrap(), b"\x01z\\");
        assert!(
            parse_key_text("\\x4")
                .unwrap_err()
                .contains("two hex digits")
        );
        assert!(
            parse_key_text("\\q")
                .unwrap_err()
                .contains("unknown escape")
        );
        assert_eq!(parse_key_text("ü").unwrap(), "ü".as_bytes());
    }
}
