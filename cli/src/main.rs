//! `tabletop`: the Tabletop core on the command line.
//!
//! The subcommands (`cbt`, `json`, ...) arrive with the interfaces issue;
//! until then the binary answers `--help` and `--version` and refuses
//! anything else clearly.

use std::process::ExitCode;

const USAGE: &str = "usage: tabletop [--help | --version]\n";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => {
            print!("tabletop: Bigtable semantics from the Tabletop core, natively.\n\n{USAGE}");
            ExitCode::SUCCESS
        }
        Some("-V" | "--version") => {
            println!("tabletop {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprint!("tabletop: unknown command {other:?}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
