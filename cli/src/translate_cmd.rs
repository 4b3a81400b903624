//! `tabletop translate`: a DynamoDB or Oracle NoSQL design as a Bigtable
//! design (see `tabletop_core::translate`): a report, the tables loaded
//! into the state file, or an export for the real tools.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use tabletop_core::translate::{
    self, DynamoLayout, ExportFormat, Input, KeyEncoding, Options as TranslateOptions, Translation,
};
use tabletop_core::{InstanceConfig, Instances};

use clap::Parser;

use crate::args::{Options, Shared, parse_words};
use crate::export_cmd::{self, ExportArgs, ExportFlags, Parsed};
use crate::{host, input, state};

const USAGE_ERROR: u8 = 2;
const FAILED: u8 = 1;

pub fn help_text() -> String {
    "\
Translate a DynamoDB or Oracle NoSQL table design into a Bigtable design.

Usage: tabletop translate --from oracle FILE.ddl [--rows FILE.json] [OPTIONS]
       tabletop translate --from dynamodb MODEL.json [OPTIONS]

Sources:
  oracle     Oracle NoSQL DDL: CREATE TABLE [IF NOT EXISTS] name (field TYPE,
             ..., PRIMARY KEY(SHARD(a, b), c)) [USING TTL n DAYS|HOURS], with
             every field type, IDENTITY and UUID columns, and CREATE INDEX.
             --rows gives records as Oracle-style JSON (JSON Lines or an
             array; with several tables, {\"table\": [records...]}).
  dynamodb   A NoSQL Workbench data-model export (DataModel, KeyAttributes,
             NonKeyAttributes, GlobalSecondaryIndexes, TableFacets and the
             TableData sample items; TimeToLiveSpecification for a TTL), or
             `aws dynamodb describe-table` output ({\"Table\": ...}); merge
             in describe-time-to-live's and a scan's output (jq -s add) for
             the TTL and sample items.

The report shows, per table, the row key and how each field is encoded
(order-preserving), the column families with their GC rules and why the
columns share them, example rows, each index as a continuous
materialized view (its CREATE MATERIALIZED VIEW statement, which
tabletop sql runs once the tables exist) with a hand-maintained index
table as the alternative, notes on what behaves differently, and the
advisor's findings. FILE may be - for stdin.

Options:
      --format FORMAT     report (default), json, cbt, gcloud or terraform
                          (the export of the translated tables, as
                          tabletop export writes it)
      --apply             Also create the tables, with their rows, in the
                          state file (refused if a table exists)
      --time TIME         Time of cells that carry none of their own:
                          ISO 8601 or microseconds since 1970 [default: now,
                          or the state's clock when it is simulated]
      --key-encoding ENC  text (default: readable, `#`-separated) or binary
      --reverse-identity  Reverse the digits of a leading IDENTITY key (the
                          advisor's fix for sequential ids)
      --layout LAYOUT     DynamoDB: auto (default), composite (one row per
                          item) or wide (one row per partition)
      --data, --splits, --out, --table
                          As for tabletop export
      --state FILE        The state file, for --apply
  -project ID             Project id in exports
  -instance ID            Instance id in exports
  -h, --help              Print help

Errors in the input are reported as FILE:LINE:COLUMN: message.

Exit status: 0 success; 1 the input could not be read or translated, or
the state file could not be read or saved; 2 the command line was not
understood.

Examples:
  tabletop translate --from dynamodb model.json
  tabletop translate --from oracle shop.ddl --rows rows.json --apply
  tabletop translate --from oracle shop.ddl --format terraform > shop.tf
"
    .to_string()
}

/// The source kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum From {
    Oracle,
    DynamoDb,
}

/// What `translate` was asked for.
pub struct TranslateArgs {
    pub from: From,
    pub file: PathBuf,
    pub rows: Option<PathBuf>,
    pub format: Option<ExportFormat>,
    pub json: bool,
    pub apply: bool,
    pub time: Option<i64>,
    pub options: TranslateOptions,
    pub export: ExportArgs,
}

fn from(v: &str) -> Result<From, String> {
    match v {
        "oracle" | "oracle-ddl" => Ok(From::Oracle),
        "dynamodb" | "dynamo" => Ok(From::DynamoDb),
        _ => Err(format!("--from {v}: want oracle or dynamodb")),
    }
}

/// What `--format` asks of translate: the report as text or JSON, or an
/// export.
#[derive(Clone, Copy, Debug)]
enum Format {
    Report,
    Json,
    Export(ExportFormat),
}

fn format(v: &str) -> Result<Format, String> {
    match v {
        "report" | "text" => Ok(Format::Report),
        "json" => Ok(Format::Json),
        other => ExportFormat::from_name(other)
            .map(Format::Export)
            .ok_or_else(|| {
                format!("--format {other}: want report, json, cbt, gcloud or terraform")
            }),
    }
}

fn time(v: &str) -> Result<i64, String> {
    translate::parse_time_micros(v).ok_or_else(|| {
        format!("--time {v}: want ISO 8601 (2023-09-10T15:21:48Z) or microseconds since 1970")
    })
}

fn key_encoding(v: &str) -> Result<KeyEncoding, String> {
    KeyEncoding::from_name(v).ok_or_else(|| format!("--key-encoding {v}: want text or binary"))
}

fn layout(v: &str) -> Result<DynamoLayout, String> {
    match v {
        "auto" => Ok(DynamoLayout::Auto),
        "composite" => Ok(DynamoLayout::Composite),
        "wide" => Ok(DynamoLayout::WideRows),
        _ => Err(format!("--layout {v}: want auto, composite or wide")),
    }
}

/// `tabletop translate --from oracle|dynamodb FILE [OPTIONS]`.
#[derive(Parser, Debug)]
#[command(name = "translate", disable_help_flag = true)]
pub struct TranslateCli {
    #[command(flatten)]
    shared: Shared,
    /// oracle (an Oracle NoSQL DDL) or dynamodb (a model or describe-table)
    #[arg(long, value_name = "SOURCE", value_parser = from)]
    from: Option<From>,
    /// Records as Oracle-style JSON (--from oracle)
    #[arg(long, value_name = "FILE")]
    rows: Option<PathBuf>,
    /// report (default), json, cbt, gcloud or terraform
    #[arg(long, value_name = "FORMAT", value_parser = format)]
    format: Option<Format>,
    /// Also create the tables, with their rows, in the state file
    #[arg(long)]
    apply: bool,
    /// Time of cells that carry none of their own
    #[arg(long, value_name = "TIME", value_parser = time)]
    time: Option<i64>,
    /// text (default) or binary
    #[arg(long = "key-encoding", value_name = "ENC", value_parser = key_encoding)]
    key_encoding: Option<KeyEncoding>,
    /// Reverse the digits of a leading IDENTITY key
    #[arg(long = "reverse-identity")]
    reverse_identity: bool,
    /// DynamoDB: auto (default), composite or wide
    #[arg(long, value_name = "LAYOUT", value_parser = layout)]
    layout: Option<DynamoLayout>,
    #[command(flatten)]
    export: ExportFlags,
    /// Print help
    #[arg(short = 'h', long = "help")]
    help: bool,
    /// The design file (- reads stdin)
    #[arg(value_name = "FILE")]
    file: Vec<PathBuf>,
}

pub fn parse(
    mut options: Options,
    args: &[OsString],
) -> Result<(Options, Parsed<TranslateArgs>), String> {
    let a: TranslateCli = parse_words(
        "translate",
        args,
        ": tabletop translate reads one design file",
    )?;
    if a.help {
        return Ok((options, Parsed::Help));
    }
    a.shared.apply(&mut options);
    let mut files = a.file.into_iter();
    let file = files.next();
    if let Some(extra) = files.next() {
        return Err(format!(
            "unexpected argument '{}': tabletop translate reads one design file",
            extra.display()
        ));
    }
    let from = a
        .from
        .ok_or("tabletop translate needs --from oracle or --from dynamodb")?;
    let file = file.ok_or("tabletop translate needs a design file (or - for stdin)")?;
    if a.rows.is_some() && from != From::Oracle {
        return Err("--rows is for --from oracle; a DynamoDB model carries its sample data".into());
    }
    let mut topts = TranslateOptions::default();
    if let Some(k) = a.key_encoding {
        topts.key_encoding = k;
    }
    if let Some(l) = a.layout {
        topts.dynamo_layout = l;
    }
    topts.reverse_identity = a.reverse_identity;
    let (format, json) = match a.format {
        None | Some(Format::Report) => (None, false),
        Some(Format::Json) => (None, true),
        Some(Format::Export(f)) => (Some(f), false),
    };
    Ok((
        options,
        Parsed::Run(TranslateArgs {
            from,
            file,
            rows: a.rows,
            format,
            json,
            apply: a.apply,
            time: a.time,
            options: topts,
            export: a.export.into_args(None),
        }),
    ))
}

fn print(text: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(_) => FAILED,
    }
}

/// Runs `tabletop translate`. Returns the exit status.
pub fn run(options: Options, args: &[OsString]) -> u8 {
    let (options, parsed) = match parse(options, args) {
        Ok(p) => p,
        Err(message) => {
            eprintln!("error: {message}\n\nRun 'tabletop translate --help' for usage.");
            return USAGE_ERROR;
        }
    };
    let mut a = match parsed {
        Parsed::Help => return print(&help_text()),
        Parsed::Run(a) => a,
    };
    let source = match input::read_text(&a.file, "design") {
        Ok(t) => t,
        Err(message) => {
            eprintln!("{message}");
            return FAILED;
        }
    };
    let rows_text = match &a.rows {
        Some(p) => match input::read_text(p, "rows") {
            Ok(t) => t,
            Err(message) => {
                eprintln!("{message}");
                return FAILED;
            }
        },
        None => String::new(),
    };
    let names = options.names();
    let state_path = options.state_path();
    let mut state_db: Option<Instances> = None;
    if a.apply {
        match state::load(&state_path, names) {
            Ok(db) => state_db = Some(db),
            Err(message) => {
                eprintln!("tabletop: {message}");
                return FAILED;
            }
        }
    }
    a.options.now_micros = match (a.time, &state_db) {
        (Some(t), _) => t,
        (None, Some(db)) if db.primary().clock_is_simulated() => db.primary().now_micros(),
        _ => host::wall_micros(),
    };
    let result = match a.from {
        From::Oracle => translate::from_oracle_ddl(&source, &rows_text, &a.options),
        From::DynamoDb => translate::from_dynamodb(&source, &a.options),
    };
    let t: Translation = match result {
        Ok(t) => t,
        Err(e) => {
            let file = match e.input() {
                Input::Rows => a.rows.as_ref().unwrap_or(&a.file),
                _ => &a.file,
            };
            eprintln!(
                "tabletop: {}:{}:{}: {}",
                file.display(),
                e.line(),
                e.column(),
                e.message()
            );
            return FAILED;
        }
    };
    if let Some(all) = &mut state_db {
        all.sync_wall_clock(host::wall_micros());
        let db = match state::select(all, names) {
            Ok(db) => db,
            Err(message) => {
                eprintln!("tabletop: {message}");
                return FAILED;
            }
        };
        if let Err(e) = t.apply(db) {
            eprintln!("tabletop: {}", e.message());
            return FAILED;
        }
        if let Err(e) = state::save(&state_path, all) {
            eprintln!(
                "tabletop: could not save the state file {}: {e}; it was left as it was before",
                state_path.display()
            );
            return FAILED;
        }
        let ids: Vec<&str> = t.tables.iter().map(|t| t.id.as_str()).collect();
        eprintln!(
            "tabletop: created {} in {}",
            ids.join(", "),
            state_path.display()
        );
    }
    let Some(format) = a.format else {
        return print(&if a.json { t.to_json() } else { t.to_text() });
    };
    let mut db = match state_db {
        Some(mut all) => match state::select(&mut all, names) {
            Ok(db) => db.clone(),
            Err(message) => {
                eprintln!("tabletop: {message}");
                return FAILED;
            }
        },
        None => {
            let mut config = InstanceConfig::default();
            if let Some(p) = &options.project {
                config.project = p.clone();
            }
            if let Some(i) = &options.instance {
                config.instance = i.clone();
            }
            match t.to_instance(config, a.options.now_micros) {
                Ok(db) => db,
                Err(e) => {
                    eprintln!("tabletop: {}", e.message());
                    return FAILED;
                }
            }
        }
    };
    let mut export = a.export.export.clone();
    export.format = format;
    if export.tables.is_empty() {
        export.tables = t.tables.iter().map(|t| t.id.clone()).collect();
    }
    match translate::export(&mut db, &export) {
        Ok(e) => export_cmd::emit(&e, a.export.out.as_deref()),
        Err(e) => {
            eprintln!("tabletop: {}", e.message());
            FAILED
        }
    }
}
