//! Readable text for arbitrary bytes: printable ASCII as is, everything
//! else as `\xNN` (with `\n`, `\t`, `\\` spelled the usual way). Used in
//! error messages and by the UI; `cbt` output has its own quoting in the
//! `cbt` module.

use std::fmt::Write;

/// Escapes bytes for display.
#[must_use]
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape_bytes;

    #[test]
    fn escapes_non_printable_bytes() {
        assert_eq!(escape_bytes(b"phone#1"), "phone#1");
        assert_eq!(escape_bytes(b"a\x00\xffb\n\\"), "a\\x00\\xffb\\n\\\\");
    }
}
