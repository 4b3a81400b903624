//! Reading a subcommand's input file, where `-` means stdin.
//!
//! Only regular files are read: a FIFO would block the command forever and
//! `/dev/zero` would be read until memory runs out. Text inputs (scenarios,
//! designs, DDL, SQL, `format-file=`) are capped at [`MAX_TEXT_BYTES`],
//! which no real one comes near. `cbt import`'s CSV is not capped: it is
//! streamed (`host::FsHost::open_file`), a batch at a time.

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

/// The cap on text inputs: [`MAX_TEXT_BYTES`], or for tests a smaller
/// one from the hidden `TABLETOP_TEST_MAX_TEXT_BYTES` (so a test can show
/// what is capped and what is streamed without writing 64 MiB).
pub fn max_text_bytes() -> u64 {
    std::env::var("TABLETOP_TEST_MAX_TEXT_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MAX_TEXT_BYTES)
        .min(MAX_TEXT_BYTES)
}

/// Reads UTF-8 text, refusing more than [`max_text_bytes`].
fn read_capped(source: impl Read, what: &str) -> io::Result<String> {
    String::from_utf8(read_capped_bytes(source, what)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// Reads bytes, refusing more than [`max_text_bytes`].
pub fn read_capped_bytes(source: impl Read, what: &str) -> io::Result<Vec<u8>> {
    let cap = max_text_bytes();
    let mut bytes = Vec::new();
    source.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::other(format!(
            "the {what} is larger than {}, more than any real one",
            human_size(cap)
        )));
    }
    Ok(bytes)
}

fn human_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
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
