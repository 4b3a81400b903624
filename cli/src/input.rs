//! Reading a subcommand's input file, where `-` means stdin.

use std::io::{self, Read};
use std::path::Path;

/// The text of `path`, or of stdin when `path` is `-`; the error is the
/// sentence to print.
pub fn read_text(path: &Path, what: &str) -> Result<String, String> {
    if path.as_os_str() == "-" {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map(|_| text)
            .map_err(|e| format!("tabletop: cannot read the {what} from stdin: {e}"))
    } else {
        std::fs::read_to_string(path)
            .map_err(|e| format!("tabletop: cannot read the {what} {}: {e}", path.display()))
    }
}
