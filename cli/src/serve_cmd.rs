//! `tabletop serve`: Bigtable's gRPC data and table admin APIs on a port,
//! for `cbt` and the official client libraries (see `tabletop_serve`).

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use clap::Parser;
use serde_json::json;
use tabletop_core::{Fidelity, Instance, Instances, api};

use crate::args::parse_words;
use crate::state::record::{self, At, Command, Record, TableNotes};
use crate::state::{self, StateFile};

/// Exit status for a command line that could not be understood.
const USAGE_ERROR: u8 = 2;
/// Exit status when the server could not start or failed.
const FAILED: u8 = 1;

pub fn help_text() -> String {
    "\
Serve Bigtable's gRPC APIs, as Google's Bigtable emulator does.

Usage: tabletop serve [-host HOST] [-port PORT] [--state FILE]
                      [--keyviz-out FILE.html [--nodes N]] [--emulator-parity]

Listens on HOST:PORT and prints one line naming the address, e.g.
`Tabletop Bigtable emulator running on 127.0.0.1:9000`, then serves until
SIGTERM or Ctrl-C, which let requests in flight finish (for at most 5 s).
Point cbt or a client library at it with BIGTABLE_EMULATOR_HOST=HOST:PORT.
Each request runs in the instance its resource name spells
(projects/P/instances/I/...), made when first named, as in the emulator.

Without --state the instance lives in memory and is gone when the server
stops. With --state FILE it is loaded from the state file the other
commands use, and the file stays locked while the server runs (other
tabletop commands on it wait, then give up). Each write is appended to the
file's log (FILE.wal) and flushed to disk before it is answered, so a
server killed even with SIGKILL keeps every write it answered; so is each
schema change (tables, families, deletion protection, authorized and
logical views), so its cost does not grow with the data. SIGTERM or Ctrl-C saves the whole instance,
with the traffic of the reads.

Every read and write is counted on the instance clock as the other
commands count theirs, so `tabletop keyviz --state FILE` shows the served
traffic afterwards; --keyviz-out FILE.html writes that Key Visualizer page
(one section per table with traffic) when the server stops, and each time
it gets SIGUSR1 while it runs (`kill -USR1 PID`). Its tablets are given to
3 nodes, as in `tabletop keyviz`; --nodes N gives them to N.

Served: the data API's ReadRows (cell chunks streamed as the rows are
read, a page at a time), SampleRowKeys, MutateRow, MutateRows,
CheckAndMutateRow, ReadModifyWriteRow, PrepareQuery, ExecuteQuery,
GenerateInitialChangeStreamPartitions and ReadChangeStream (kept open,
sending each change as it commits, until its end time); the table admin
API's CreateTable, GetTable, ListTables, DeleteTable, ModifyColumnFamilies,
DropRowRange, UpdateTable and the authorized view methods; the instance
admin API's CreateLogicalView, GetLogicalView, ListLogicalViews,
UpdateLogicalView and DeleteLogicalView, and Create, Get, List and
DeleteMaterializedView (the views of `tabletop sql`'s CREATE MATERIALIZED
VIEW; they have no deletion protection to update). Each but the SQL and
materialized view methods runs as the JSON protocol's method of the same
name (`tabletop help json`), with its status codes and messages. PrepareQuery and ExecuteQuery run the SQL of `tabletop sql`
(SELECT only, no @parameters), streaming typed rows as Bigtable does.
Other methods answer UNIMPLEMENTED.

Options:
  -host HOST     The address to bind to [default: localhost]
  -port PORT     The port; 0 picks a free one [default: 9000]
  --state FILE   Keep the instance in this state file between runs
  --keyviz-out FILE.html
                 On stopping, write the Key Visualizer of the traffic served
  --nodes N      The nodes that page gives the tablets to: 1 to 1000
                 [default: 3]; needs --keyviz-out
  --emulator-parity
                 Answer as Google's emulator does where it differs from
                 production Bigtable (see `tabletop --help`)
  -h, --help     Print help

Exit status: 0 after a clean shutdown; 1 the server could not start (the
port in use, the host unknown); 2 the command line was not understood.

Example:
  tabletop serve -port 8086 &
  BIGTABLE_EMULATOR_HOST=localhost:8086 cbt -project p -instance i ls
"
    .to_string()
}

/// `tabletop serve [-host HOST] [-port PORT]`.
#[derive(Parser, Debug)]
#[command(name = "serve", disable_help_flag = true)]
pub struct ServeCli {
    /// The address to bind to
    #[arg(long, default_value = "localhost")]
    host: String,
    /// The port; 0 picks a free one
    #[arg(long, default_value_t = 9000)]
    port: u16,
    /// Keep the instance in this state file between runs
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
    /// On stopping, write the Key Visualizer of the traffic served
    #[arg(long, value_name = "FILE.html")]
    keyviz_out: Option<PathBuf>,
    /// The nodes the Key Visualizer page gives the tablets to
    #[arg(long, value_name = "N", value_parser = crate::keyviz_cmd::nodes)]
    nodes: Option<u32>,
    /// Answer as Google's emulator does where it differs from production
    #[arg(long = "emulator-parity")]
    emulator_parity: bool,
    /// Print help
    #[arg(short = 'h', long = "help")]
    help: bool,
}

pub fn run(args: &[OsString]) -> u8 {
    let cli: ServeCli = match parse_words("serve", args, "") {
        Ok(cli) => cli,
        Err(message) => {
            eprintln!("error: {message}\n\nRun 'tabletop serve --help' for usage.");
            return USAGE_ERROR;
        }
    };
    if cli.help {
        print!("{}", help_text());
        return 0;
    }
    if cli.nodes.is_some() && cli.keyviz_out.is_none() {
        eprintln!(
            "error: --nodes shapes the page of --keyviz-out; give --keyviz-out FILE.html too\n\n\
             Run 'tabletop serve --help' for usage."
        );
        return USAGE_ERROR;
    }
    let nodes = cli.nodes;
    let on_report = cli.keyviz_out.clone().map(|out| -> tabletop_serve::Report {
        Arc::new(move |db: &mut Instance| {
            write_keyviz(&out, db, nodes);
        })
    });
    let (mut all, journal) = match &cli.state {
        Some(path) => match state::open(path, state::Names::default()).and_then(|(file, db)| {
            file.check_fidelity(db.primary().fidelity(), cli.emulator_parity)?;
            Ok((file, db))
        }) {
            Ok((file, db)) => (db, Some(journal(file))),
            Err(message) => {
                eprintln!("tabletop: {message}");
                return FAILED;
            }
        },
        None => (Instances::default(), None),
    };
    let options = tabletop_serve::Options {
        host: cli.host,
        port: cli.port,
        on_report,
        journal,
    };
    if cli.emulator_parity
        && let Err(e) = all.switch_fidelity(Fidelity::Emulator)
    {
        eprintln!("tabletop: {}", e.message());
        return FAILED;
    }
    match tabletop_serve::run(&options, all, &mut io::stdout()) {
        Ok(mut all) => {
            let wrote = cli
                .keyviz_out
                .map_or(0, |out| write_keyviz(&out, all.primary_mut(), nodes));
            let saved = cli.state.map_or(0, |path| save(&path, all));
            wrote.max(saved)
        }
        Err(message) => {
            eprintln!("error: {message}");
            FAILED
        }
    }
}

/// Keeps each change in the state file as it commits: a data write or a
/// schema change is appended to its log (flushed to disk before the
/// answer goes out, so a server killed with SIGKILL loses nothing it
/// answered); a log grown big enough is folded into a new snapshot. Reads are not kept
/// until the server stops (their traffic is in the snapshot it saves).
fn journal(file: StateFile) -> tabletop_serve::Journal {
    let file = Mutex::new(file);
    Arc::new(
        move |all: &mut Instances, commit: &tabletop_serve::Commit<'_>| {
            let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
            if record::json_logged(commit.method) {
                let events = usize::from(commit.engine_work);
                let db = all.get(commit.project, commit.instance);
                let engine_work = db.is_some_and(|db| record::did_engine_work(db, events));
                let line =
                    api::to_line(&json!({"method": commit.method, "request": commit.request}));
                // The spellings the server noted on the table in the same
                // turn go with the change.
                let table_notes = db
                    .zip(annotated_table(commit))
                    .map(|(db, table)| TableNotes::of(db, &table));
                file.log(&Record {
                    at: At {
                        project: commit.project.to_string(),
                        instance: commit.instance.to_string(),
                        now_micros: commit.now_micros,
                        engine_work,
                    },
                    command: Command::Json(line),
                    table_notes,
                });
            } else {
                file.changed();
            }
            file.save(all).map_err(|e| e.to_string())
        },
    )
}

/// The table whose notes a change may have set: the one CreateTable
/// made (`tableId`) or ModifyColumnFamilies changed (`name`).
fn annotated_table(commit: &tabletop_serve::Commit<'_>) -> Option<String> {
    if !record::json_annotates_table(commit.method) {
        return None;
    }
    let request = commit.request;
    let id = match request.get("tableId").and_then(serde_json::Value::as_str) {
        Some(id) => id,
        None => {
            request
                .get("name")
                .and_then(serde_json::Value::as_str)?
                .rsplit_once("/tables/")?
                .1
        }
    };
    Some(id.to_string())
}

fn write_keyviz(out: &Path, db: &mut Instance, nodes: Option<u32>) -> u8 {
    let written = crate::keyviz_cmd::served_page(db, nodes)
        .and_then(|page| std::fs::write(out, page).map_err(|e| e.to_string()));
    match written {
        Ok(()) => {
            eprintln!("tabletop: wrote {}", out.display());
            0
        }
        Err(e) => {
            eprintln!("tabletop: cannot write {}: {e}", out.display());
            FAILED
        }
    }
}

fn save(path: &Path, mut db: Instances) -> u8 {
    match state::save(path, &mut db) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!(
                "tabletop: could not save the state file {}: {e}; it was left as it was before",
                path.display()
            );
            FAILED
        }
    }
}
