//! Reading a subcommand's input file, where `-` means stdin.
//!
//! Only regular files are read: a FIFO would block the command forever and
//! `/dev/zero` would be read until memory runs out. Text inputs (scenarios,
//! designs, DDL, SQL) are capped at [`MAX_TEXT_BYTES`], which no real one
//! comes near.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest text input a subcommand reads (64 MiB).
pub const MAX_TEXT_BYTES: u64 = 64 << 20;

/// Refuses anything at `path` that is not a regular file (following
/// symbolic links): the error is the sentence to print.
pub fn regular_file(path: &Path, what: &str) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(format!(
            "tabletop: the {what} {} is not a regular file (a directory, a device or a pipe); \
             give a file, or - for stdin",
            path.display()
        )),
        Err(e) => Err(format!(
            "tabletop: cannot read the {what} {}: {e}",
            path.display()
        )),
    }
}

/// The text of `path`, or of stdin when `path` is `-`; the error is the
/// sentence to print.
pub fn read_text(path: &Path, what: &str) -> Result<String, String> {
    if path.as_os_str() == "-" {
        return read_capped(io::stdin().lock(), what)
            .map_err(|e| format!("tabletop: cannot read the {what} from stdin: {e}"));
    }
    regular_file(path, what)?;
    File::open(path)
        .and_then(|f| read_capped(f, what))
        .map_err(|e| format!("tabletop: cannot read the {what} {}: {e}", path.display()))
}

/// Reads UTF-8 text, refusing more than [`MAX_TEXT_BYTES`].
fn read_capped(source: impl Read, what: &str) -> io::Result<String> {
    let mut text = String::new();
    source.take(MAX_TEXT_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_TEXT_BYTES {
        return Err(io::Error::other(format!(
            "the {what} is larger than {} MiB, more than any real one",
            MAX_TEXT_BYTES >> 20
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_directories_are_refused() {
        let err = read_text(Path::new("/dev/zero"), "scenario").unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
        let err = read_text(Path::new("/"), "scenario").unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn endless_input_is_cut_with_a_reason() {
        let err = read_capped(io::repeat(b'a'), "scenario").unwrap_err();
        assert!(err.to_string().contains("larger than 64 MiB"), "{err}");
    }
}
