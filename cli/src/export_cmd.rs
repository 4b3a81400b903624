//! `tabletop export`: the tables of the state file as a `cbt` script,
//! `gcloud` commands or a Terraform configuration, for a real Bigtable
//! instance (see `tabletop_core::translate::export`).

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use tabletop_core::translate::{
    self, DataFormat, Export, ExportFormat, ExportOptions, SplitSource,
};

use clap::{Args, Parser};

use crate::args::{Options, Shared, no_extra_words, parse_words};
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
  -project ID            Project id of the instance to export, and in the
                         commands [default: the state's first instance's]
  -instance ID           Instance id, likewise; when the state file has no
                         such instance, its first instance is exported under
                         these names
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

fn export_format(v: &str) -> Result<ExportFormat, String> {
    ExportFormat::from_name(v).ok_or_else(|| format!("--format {v}: want cbt, gcloud or terraform"))
}

fn data_format(v: &str) -> Result<DataFormat, String> {
    DataFormat::from_name(v).ok_or_else(|| format!("--data {v}: want set, csv or none"))
}

fn split_source(v: &str) -> Result<SplitSource, String> {
    match v {
        "initial" => Ok(SplitSource::Initial),
        "tablets" => Ok(SplitSource::Tablets),
        _ => Err(format!("--splits {v}: want initial or tablets")),
    }
}

/// The options of an export (also `translate`'s, for its export).
#[derive(Args, Debug, Default)]
pub(crate) struct ExportFlags {
    /// Export this table (repeatable; default: all tables)
    #[arg(long, value_name = "TABLE")]
    table: Vec<String>,
    /// How a cbt export writes data: set (default), csv or none
    #[arg(long, value_name = "MODE", value_parser = data_format)]
    data: Option<DataFormat>,
    /// initial (default: the split keys the table was created with) or
    /// tablets (the current tablet boundaries)
    #[arg(long, value_name = "SOURCE", value_parser = split_source)]
    splits: Option<SplitSource>,
    /// Write the script and its CSV files into DIR
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

impl ExportFlags {
    /// The export they ask for, in `format`.
    pub(crate) fn into_args(self, format: Option<ExportFormat>) -> ExportArgs {
        let mut export = ExportOptions::default();
        if let Some(f) = format {
            export.format = f;
        }
        export.tables = self.table;
        if let Some(d) = self.data {
            export.data = d;
        }
        if let Some(s) = self.splits {
            export.splits = s;
        }
        ExportArgs {
            export,
            out: self.out,
        }
    }
}

/// `tabletop export [OPTIONS]`.
#[derive(Parser, Debug)]
#[command(name = "export", disable_help_flag = true)]
pub struct ExportCli {
    #[command(flatten)]
    shared: Shared,
    /// cbt (default), gcloud or terraform
    #[arg(long, value_name = "FORMAT", value_parser = export_format)]
    format: Option<ExportFormat>,
    #[command(flatten)]
    flags: ExportFlags,
    /// Print help
    #[arg(short = 'h', long = "help")]
    help: bool,
    /// Export takes options only.
    #[arg(hide = true)]
    unexpected: Vec<OsString>,
}

/// Reads the words after `export`.
pub fn parse(
    mut options: Options,
    args: &[OsString],
) -> Result<(Options, Parsed<ExportArgs>), String> {
    let takes_options = ": tabletop export takes options only (--table names a table)";
    let a: ExportCli = parse_words("export", args, takes_options)?;
    if a.help {
        return Ok((options, Parsed::Help));
    }
    no_extra_words(&a.unexpected, takes_options)?;
    a.shared.apply(&mut options);
    Ok((options, Parsed::Run(a.flags.into_args(a.format))))
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
    let path = options.state_path();
    let names = options.names();
    let mut all = match state::load(&path, names) {
        Ok(db) => db,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return FAILED;
        }
    };
    // The instance named, when the file holds it; else the file's first
    // (the names then only go into the commands, for another instance).
    let named = {
        let first = all.primary().config();
        let project = names.project.unwrap_or(&first.project).to_string();
        let instance = names.instance.unwrap_or(&first.instance).to_string();
        all.get(&project, &instance)
            .is_some()
            .then_some((project, instance))
    };
    let db = match &named {
        Some((p, i)) => match all.select(p, i) {
            Ok(db) => db,
            Err(e) => {
                eprintln!("tabletop: {}", e.message());
                return FAILED;
            }
        },
        None => all.primary_mut(),
    };
    let mut export = parsed.export.clone();
    if export.project.is_none() {
        export.project = options.project.clone();
    }
    if export.instance.is_none() {
        export.instance = options.instance.clone();
    }
    match translate::export(db, &export) {
        Ok(export) => emit(&export, parsed.out.as_deref()),
        Err(e) => {
            eprintln!("tabletop: {}", e.message());
            FAILED
        }
    }
}
