//! `tabletop sim SCENARIO.toml [--json]`: runs a simulation scenario (see
//! `tabletop_core::sim`) to the end and prints its report.

use std::io::{self, Write};
use std::path::Path;

use tabletop_core::sim::{self, Output};

/// Runs the scenario in `path` (`-` is stdin). Returns the exit status: 0,
/// or 1 when the file cannot be read or the scenario is refused.
pub fn run(path: &Path, json: bool) -> u8 {
    let text = match crate::input::read_text(path, "scenario") {
        Ok(text) => text,
        Err(message) => {
            eprintln!("{message}");
            return 1;
        }
    };
    let output = if json { Output::Json } else { Output::Text };
    match sim::run_toml(&text, output) {
        Ok(mut report) => {
            if !report.ends_with('\n') {
                report.push('\n');
            }
            let mut out = io::stdout().lock();
            // A closed pipe (`tabletop sim s.toml | head`) ends quietly.
            let _ = out.write_all(report.as_bytes()).and_then(|()| out.flush());
            0
        }
        Err(e) => {
            eprintln!("tabletop: {}: {}", path.display(), e.message());
            1
        }
    }
}
