//! `tabletop export`: the tables of the state file as a `cbt` script,
//! `gcloud` commands or a Terraform configuration, for a real Bigtable
//! instance (see `tabletop_core::translate::export`).

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use tabletop_core::translate::{
    self, DataFormat, Export, ExportFormat, ExportOptions, SplitSource,
};

use crate::args::{Options, Taken, flag, take_option};
use crate::state;

/// Exit status for a command line that could not be understood.
const USAGE_ERROR: u8 = 2;
/// Exit status when the export could not be made or written.
const FAILED: u8 = 1;

pub fn help_text() -> String {
    "\
Export tables of the state file for a real Bigtable instance.

Usage: tabletop export [OPTIONS] [--format cbt|gcloud|terraform]
                       [--table TABLE]... [--data set|csv|none]
                       [--splits initial|tablets] [--out DIR]

Writes the design (tables, column families, GC rules, aggregate types,
split points) and, for cbt, the data, as commands for the real tools:

  cbt        A script of cbt commands: createtable with families, GC rules,
             aggregate types and splits, then the data. Every line starts
             with `cbt -project P -instance I`, so it runs with bash against
             Bigtable or its emulator (BIGTABLE_EMULATOR_HOST), and also
             replays into Tabletop: tabletop cbt < FILE.
  gcloud     gcloud bigtable instances tables create commands (schema
             only; cbt lines add what gcloud cannot say).
  terraform  google_bigtable_table and google_bigtable_gc_policy resources
             (schema only).

Options:
      --format FORMAT    cbt (default), gcloud or terraform
      --table TABLE      Export this table (repeatable; default: all tables)
      --data MODE        How a cbt export writes data: set (default; set and
                         addtocell lines, with a CSV file for cells set cannot
                         carry), csv (one CSV file per table for `cbt import
                         ... timestamp=value-encoded`), or none
      --splits SOURCE    initial (default: the split keys the table was
                         created with) or tablets (the current tablet
                         boundaries, which include the playground's own
                         splits)
      --out DIR          Write the script and its CSV files into DIR instead
                         of printing the script; needed when there are CSV
                         files
      --state FILE       The state file [default: $TABLETOP_STATE, else
                         ./tabletop.state]
  -project ID            Project id in the commands [default: the state's]
  -instance ID           Instance id in the commands [default: the state's]
  -h, --help             Print help

Cells a tool cannot carry (a NUL byte in a cbt argument, a HyperLogLog
sketch, a split key that is not UTF-8 for gcloud or Terraform) are left
out, each with a warning on stderr.

Exit status: 0 success; 1 the state file could not be read, a table does
not exist or a file could not be written; 2 the command line was not
understood.

Examples:
  tabletop export --format cbt > design.cbt
  tabletop export --format cbt --data csv --out export/
  tabletop export --format terraform --table mobile-time-series > bigtable.tf
"
    .to_string()
}

/// What `export` was asked for, besides the shared options.
pub struct ExportArgs {
    pub export: ExportOptions,
    pub out: Option<PathBuf>,
}

/// Parsed words: run, or print the help.
pub enum Parsed<T> {
    Run(T),
    Help,
}

/// A value option: `--name VALUE` or `--name=VALUE`.
pub(crate) fn value(
    name: &str,
    inline: Option<OsString>,
    args: &[OsString],
    i: &mut usize,
) -> Result<String, String> {
    let v = match inline {
        Some(v) => v,
        None => {
            *i += 1;
            args.get(*i)
                .cloned()
                .ok_or_else(|| format!("option '--{name}' needs a value"))?
        }
    };
    v.into_string()
        .map_err(|_| format!("the value of '--{name}' is not valid UTF-8"))
}

/// Reads the words after `export`.
pub fn parse(
    mut options: Options,
    args: &[OsString],
) -> Result<(Options, Parsed<ExportArgs>), String> {
    let mut parsed = ExportArgs {
        export: ExportOptions::default(),
        out: None,
    };
    let mut i = 0;
    while i < args.len() {
        let Some(f) = flag(&args[i]) else {
            return Err(format!(
                "unexpected argument '{}': tabletop export takes options only (--table names a table)",
                args[i].to_string_lossy()
            ));
        };
        match take_option(&f, args, &mut i, &mut options)? {
            Taken::Ours => {}
            Taken::Help => return Ok((options, Parsed::Help)),
            Taken::Other => {
                let name = f.name.clone();
                let v = value(&name, f.inline, args, &mut i)?;
                apply_export_option(&name, &v, &mut parsed)?;
            }
        }
        i += 1;
    }
    Ok((options, Parsed::Run(parsed)))
}

/// Applies one of export's own options; shared with `translate`.
pub(crate) fn apply_export_option(
    name: &str,
    v: &str,
    parsed: &mut ExportArgs,
) -> Result<(), String> {
    match name {
        "format" => {
            parsed.export.format = ExportFormat::from_name(v)
                .ok_or_else(|| format!("--format {v}: want cbt, gcloud or terraform"))?;
        }
        "table" => parsed.export.tables.push(v.to_string()),
        "data" => {
            parsed.export.data = DataFormat::from_name(v)
                .ok_or_else(|| format!("--data {v}: want set, csv or none"))?;
        }
        "splits" => {
            parsed.export.splits = match v {
                "initial" => SplitSource::Initial,
                "tablets" => SplitSource::Tablets,
                _ => return Err(format!("--splits {v}: want initial or tablets")),
            };
        }
        "out" => parsed.out = Some(PathBuf::from(v)),
        _ => return Err(format!("unknown option '--{name}' for export")),
    }
    Ok(())
}

/// Prints or writes an export. Returns the exit status.
pub(crate) fn emit(export: &Export, out: Option<&Path>) -> u8 {
    for w in &export.warnings {
        eprintln!("tabletop: warning: {w}");
    }
    let Some(dir) = out else {
        if !export.files.is_empty() {
            let names: Vec<&str> = export.files.iter().map(|f| f.name.as_str()).collect();
            eprintln!(
                "tabletop: the export needs files next to the script ({}); give --out DIR to write them",
                names.join(", ")
            );
            return FAILED;
        }
        let mut stdout = std::io::stdout().lock();
        let _ = stdout
            .write_all(export.main.text.as_bytes())
            .and_then(|()| stdout.flush());
        return 0;
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("tabletop: cannot create {}: {e}", dir.display());
        return FAILED;
    }
    let mut written = vec![(
        export.main.name.clone(),
        export.main.text.as_bytes().to_vec(),
    )];
    written.extend(
        export
            .files
            .iter()
            .map(|f| (f.name.clone(), f.contents.clone())),
    );
    for (name, bytes) in written {
        let path = dir.join(&name);
        if let Err(e) = std::fs::write(&path, bytes) {
            eprintln!("tabletop: cannot write {}: {e}", path.display());
            return FAILED;
        }
        eprintln!("wrote {}", path.display());
    }
    0
}

/// Runs `tabletop export`. Returns the exit status.
pub fn run(options: Options, args: &[OsString]) -> u8 {
    let (options, parsed) = match parse(options, args) {
        Ok(p) => p,
        Err(message) => {
            eprintln!("error: {message}\n\nRun 'tabletop export --help' for usage.");
            return USAGE_ERROR;
        }
    };
    let parsed = match parsed {
        Parsed::Help => {
            let mut out = std::io::stdout().lock();
            return match out
                .write_all(help_text().as_bytes())
                .and_then(|()| out.flush())
            {
                Ok(()) => 0,
                Err(_) => FAILED,
            };
        }
        Parsed::Run(p) => p,
    };
    let path = state::path(options.state.as_deref());
    let names = state::Names {
        project: options.project.as_deref(),
        instance: options.instance.as_deref(),
    };
    let mut db = match state::load(&path, names) {
        Ok(db) => db,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return FAILED;
        }
    };
    match translate::export(&mut db, &parsed.export) {
        Ok(export) => emit(&export, parsed.out.as_deref()),
        Err(e) => {
            eprintln!("tabletop: {}", e.message());
            FAILED
        }
    }
}
