//! `tabletop lint SCENARIO.toml [--json] [--strict] [--simulate]`: the
//! advisor's findings on a design (see `tabletop_core::advisor`), with an
//! exit status CI can act on.

use std::io::{self, Write};
use std::path::Path;

use tabletop_core::advisor::{self, LintOptions};

/// Lints the scenario in `path` (`-` is stdin). Returns the exit status:
/// 0 the design passes, 1 a finding fails it, 2 the file cannot be read or
/// the scenario is invalid.
pub fn run(path: &Path, json: bool, strict: bool, simulate: bool) -> u8 {
    let text = match crate::input::read_text(path, "scenario") {
        Ok(text) => text,
        Err(message) => {
            eprintln!("{message}");
            return 2;
        }
    };
    let report = match advisor::lint_toml_with(&text, LintOptions { simulate }) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("tabletop: {}: {}", path.display(), e.message());
            return 2;
        }
    };
    let mut out = if json {
        report.to_json()
    } else {
        report.to_text()
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    let mut stdout = io::stdout().lock();
    // A closed pipe (`tabletop lint s.toml | head`) ends quietly.
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush());
    u8::try_from(report.exit_code(strict)).unwrap_or(1)
}
