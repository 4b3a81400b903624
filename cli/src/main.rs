//! `tabletop`: the native command line of the Tabletop playground.
//!
//! - `tabletop cbt ARGS...` runs one command of Google's `cbt` tool against
//!   the instance kept in a state file; `tabletop cbt` alone runs a script
//!   of them from stdin.
//! - `tabletop json` answers Bigtable REST JSON requests, one per line.
//! - `tabletop sim SCENARIO.toml` runs a workload simulation and prints its
//!   report.
//!
//! `args` reads the command line, `state` keeps the instance between runs,
//! `host` gives the `cbt` interpreter files and the clock, and `cbt_cmd` /
//! `json_cmd` / `sim_cmd` run the subcommands. Help texts are below.

mod args;
mod cbt_cmd;
mod export_cmd;
mod heatmap_html;
mod host;
mod input;
mod json_cmd;
mod keyviz_cmd;
mod lint_cmd;
mod png;
mod serve_cmd;
mod sim_cmd;
mod sql_cmd;
mod state;
mod translate_cmd;

use std::io::Write;
use std::process::ExitCode;

use args::{Invocation, PLANNED, Topic};
use tabletop_core::api;

/// Exit status for a command line that could not be understood, as
/// sysexits' `EX_USAGE`, Go's flag package and most Unix tools use.
const USAGE_ERROR: u8 = 2;

fn version_line() -> String {
    format!("tabletop {}", env!("CARGO_PKG_VERSION"))
}

const OPTIONS_HELP: &str = "\
Options (before or right after the subcommand; one or two dashes; a value
as the next word or after '='):
      --state FILE       The state file holding the instances
                         [default: $TABLETOP_STATE, else ./tabletop.state]
  -project ID            Project id of the instance to use
  -instance ID           Instance id of the instance to use
      --progress[=ROWS]  Report import progress on stderr every ROWS rows
                         (default 100000); on by default when stderr is a
                         terminal
      --no-progress      No progress lines, even on a terminal
      --emulator-parity  Answer as Google's Bigtable emulator does where it
                         differs from production Bigtable (error codes,
                         non-atomic writes, looser checks; see the README),
                         to find tests that pass only on the emulator. The
                         state file then keeps every change as a snapshot
  -h, --help             Print help
";

const STATE_HELP: &str = "\
The state file:
  Every instance (its tables, data, clock and settings) kept between runs as
  a Tabletop snapshot (versioned, checksummed and lossless: binary keys and
  values survive) and, beside it in FILE.wal, a log of the changes made
  since. A missing file is an empty instance; the first command that
  changes something creates it. Data writes (cbt set, addtocell,
  deletecolumn, deleterow, deleteallrows; JSON mutateRow(s),
  checkAndMutateRow, readModifyWriteRow, dropRowRange) and schema changes
  (cbt createtable, createfamily, deletefamily, setgcpolicy, deletetable;
  JSON createTable, deleteTable, modifyColumnFamilies, updateTable and the
  authorized and logical view methods) are appended to the log, flushed
  to disk before the command answers; every command replays the log when
  it opens the file. Other changes (import, compact, clock, SQL), and a
  log that has grown
  (1,000 records, or a quarter of the snapshot's size), write a new
  snapshot: a temporary file in the same directory, flushed, then renamed
  over the old one; the log is then removed. A crash at any moment leaves
  the state before or after the command: a write cut short is dropped when
  the file is next opened. Copy both files to copy the state (or run a
  command that writes a new snapshot first, such as `cbt compact`). A file
  that is not an intact snapshot is refused with the reason and never
  written over. Instances are separate namespaces of tables, as in
  Bigtable: -project and -instance select the one a command uses (made
  when first named, kept once it holds a table); JSON requests reach the
  instance their names spell. Without them a command uses the file's
  first instance, which a new file names after the -project and -instance
  given (else projects/tabletop/instances/playground). Commands on one state file take
  turns (a lock on .FILE.lock beside it): a second one waits up to 30
  seconds, then stops without changing anything.
";

fn help_text() -> String {
    let mut text = format!(
        "{version}\n\
         Tabletop's command line: Cloud Bigtable's data model, run locally.\n\
         \n\
         Usage: tabletop [OPTIONS] <COMMAND> [ARGS...]\n\
         \n\
         Commands:\n\
         \x20 cbt   Run cbt commands: one from the arguments, or a script on stdin\n\
         \x20 json  Answer Bigtable REST JSON requests, one per line on stdin\n\
         \x20 sim   Simulate a workload on a row-key design; print the report\n\
         \x20 lint  Check a design against Bigtable's schema best practices\n\
         \x20 translate  Turn a DynamoDB or Oracle NoSQL design into a Bigtable one\n\
         \x20 export  Write tables out as cbt, gcloud or Terraform for real Bigtable\n\
         \x20 sql   Run GoogleSQL queries, EXPLAIN, materialized views, row key schemas\n\
         \x20 keyviz  Print the live Key Visualizer of the traffic the state recorded\n\
         \x20 serve  Serve Bigtable's gRPC APIs for cbt and the client libraries\n\
         \x20 help  Print this help, or a command's (tabletop help cbt)\n\
         \x20 completions  Print a shell completion script (bash, zsh, fish)\n\
         \n\
         {OPTIONS_HELP}\
         \x20 -V, --version          Print the version\n\
         \n\
         {STATE_HELP}\
         \n\
         Exit status: 0 success; 1 a command failed, or the state file could not\n\
         be read or saved; 2 the command line was not understood.\n",
        version = version_line()
    );
    if !PLANNED.is_empty() {
        text.push_str("\nPlanned, not written yet:\n");
    }
    for (name, what) in PLANNED {
        text.push_str(&format!("  {name:<8}{what}\n"));
    }
    text.push_str("\nRun 'tabletop help <command>' for the details of a command.\n");
    text
}

fn cbt_help_text() -> String {
    format!(
        "\
Run commands of Google's cbt tool against the instance in the state file.

Usage: tabletop cbt [OPTIONS] [CBT FLAGS] <cbt command> [ARGS...]
       tabletop cbt [OPTIONS] < script.cbt

With a command, runs it exactly as `cbt -project P -instance I <command>`
would against Cloud Bigtable: the same arguments, the same output on stdout
byte for byte, the same messages on stderr (without the date and time Go's
log package puts in front), and cbt's exit status: 0 on success, 1 when the
command failed, 2 for a flag cbt does not define. Commands: createtable,
createfamily, deletefamily, setgcpolicy, deletetable, ls, set, addtocell,
lookup, read, count, deletecolumn, deleterow, deleteallrows, import, help
(`tabletop cbt help` lists them, `tabletop cbt help read` explains one),
plus the playground's own `compact` and `clock`. The state file is saved
after a command that changed something; a failed command leaves it
untouched (a failed import's earlier batches are not kept either). A
single set, addtocell, deletecolumn, deleterow or deleteallrows does not
load the snapshot: it is checked against the instance's tables and
families, which the state file's log keeps (with the schema changes
logged since), and appended to the log.

cbt's global flags (-project, -instance, -timeout, -creds, ...) go before
the command, as with cbt; -project and -instance select the instance (the
last one given counts, also on a script's lines), the others are accepted
and ignored. Tabletop's options go there too, never
after the command word (there they are arguments of the command).

Without a command, reads commands from stdin, one per line, split as bash
splits them (quotes, backslashes, $'\\xff' bytes; a quoted newline continues
the command on the next line; # starts a comment), and runs them in order,
printing each one's output. Like a shell script without `set -e`, it goes
on after a failed command and reports it on stderr as `line N: <error>`;
the exit status is 0 if every command succeeded, 1 otherwise. The state
is saved once at the end if any command changed it (after each successful
change when stdin is a terminal), so an interrupted script saves nothing.
In a script a failed command changes nothing, except that an import keeps
the batches it wrote before the failing one, as cbt against Bigtable does
(and they are saved with the rest, even if no later command succeeds).

Files named by `import` and `format-file=` are read from the working
directory. Cells written without a timestamp get the wall-clock time,
unless the instance clock was made simulated with `clock` (`clock now`
gives it back to the wall). Cell times print in UTC (cbt uses the local
zone; compare with TZ=UTC).

{OPTIONS_HELP}
{STATE_HELP}
Examples:
  tabletop cbt createtable mobile-time-series families=stats_summary
  tabletop cbt set mobile-time-series phone#4c410523#20200501 stats_summary:os_build=PQ2A.190405.003
  tabletop cbt read mobile-time-series prefix=phone#4c410523
  tabletop --state demo.state cbt < setup.cbt
"
    )
}

/// The methods of the JSON protocol, one line each under a heading per
/// API, read from `api::METHODS`.
fn json_methods_help() -> String {
    let groups = [
        (api::Service::Data, "Data API (google.bigtable.v2.Bigtable)"),
        (
            api::Service::TableAdmin,
            "Table admin API (google.bigtable.admin.v2.BigtableTableAdmin)",
        ),
        (
            api::Service::InstanceAdmin,
            "Instance admin API, its logical views (BigtableInstanceAdmin)",
        ),
        (
            api::Service::Playground,
            "The playground's own, not Bigtable's",
        ),
    ];
    let mut text = String::new();
    for (service, heading) in groups {
        text.push_str(heading);
        text.push_str(":\n");
        let methods = api::METHODS.iter().filter(|m| m.service == service);
        let width = methods.clone().map(|m| m.name.len()).max().unwrap_or(0);
        for m in methods {
            let tag = match m.access {
                api::Access::Read => "     ",
                api::Access::Write => "write",
            };
            text.push_str(&format!("  {:width$}  {tag}  {}\n", m.name, m.summary));
        }
        text.push('\n');
    }
    text
}

fn json_help_text() -> String {
    let methods = json_methods_help();
    format!(
        "\
Answer Bigtable REST JSON requests against the instance in the state file.

Usage: tabletop json [OPTIONS] < requests.jsonl

Reads one request per line from stdin and writes one answer line to stdout
for each: {{\"method\": M, \"request\": R}}, where M is one of the methods
listed below (Bigtable's data and table admin APIs, the logical views of
its instance admin API, and the playground's own; those marked \"write\"
may change the instance) and R is the request body in proto3 JSON exactly
as the REST API takes it (bytes in base64, int64 as strings, full resource
names). The answer is {{\"response\": X}} or
{{\"error\": {{\"code\": N, \"status\": \"NOT_FOUND\", \"message\": ...}}}}.
readRows answers the merged rows: {{\"response\": {{\"rows\": [...]}}}} ([]
when nothing matched); sampleRowKeys {{\"samples\": [...]}}; mutateRows
{{\"entries\": [{{\"index\": 0, \"status\": {{\"code\": 0}}}}, ...]}}, one entry per
request entry in order, with a \"message\" when the code is not 0.
readChangeStream and generateInitialChangeStreamPartitions answer the JSON
array of the messages their gRPC stream carries: a readChangeStream gives
every recorded change from startTime (or after a continuation token) up to
now, then a heartbeat with the token to continue from, or, once endTime
has passed, a closeStream. updateTable changes changeStreamConfig and
deletionProtection (a protected table, or its families, cannot be deleted).
An answer is at most 256 MiB: a readRows whose rows would take more is
answered RESOURCE_EXHAUSTED (read fewer rows at a time with rowsLimit, a
row range or a filter). Blank lines are skipped. Answers are written as soon as no more input is
waiting, so a program can send one request and wait for its answer.

The state file is saved once, at the end, if any request changed the
instance (data writes and schema changes are appended to its log; see below). A run whose
requests are all mutateRow, mutateRows or dropRowRange does not load the
snapshot: they are checked against the instance's tables and families,
which the log keeps, and appended. Error answers are data: the exit status is 0 unless the state
file could not be read or saved or stdin/stdout failed (then 1), or the
command line was not understood (2).

{methods}
{OPTIONS_HELP}
{STATE_HELP}
Example:
  echo '{{\"method\": \"listTables\", \"request\": {{\"parent\": \"projects/p/instances/i\"}}}}' | tabletop json
"
    )
}

fn sim_help_text() -> String {
    "\
Simulate a workload on a row-key design and print the report.

Usage: tabletop sim [--json] SCENARIO.toml
       tabletop sim [--json] - < SCENARIO.toml
       tabletop sim [--json] A.toml --vs B.toml [--out AB.html]

Runs the scenario (a table, a cluster, a row-key template and workloads;
examples in static/scenarios/, the format in static/scenarios/README.md)
in simulated time to the end, and prints what happened: tablets and how
they split and moved, load per node, latency, hot key ranges, the Key
Visualizer's findings and Google's messages (high read or write pressure,
large rows, ...), and the key space by prefix. The same scenario always
gives the same report.

With --vs, runs two designs on one workload and compares them: tablets and
node load for each, rows scanned per row returned for each workload and
declared [[access]] pattern, and a verdict saying which design wins which
pattern and why. The two files must declare the same workload (they may
differ only in name, description, [key], the table's id and families,
[[column]], [[other_table]] and [[view]]); otherwise nothing runs and the
error names the sections that differ. Example:
  tabletop sim static/scenarios/ab_mobile_timestamp_first.toml \\
      --vs static/scenarios/ab_mobile_device_first.toml --out ab.html

Options:
      --json         Print the report (or the comparison) as JSON
      --vs B.toml    Compare with a second design on the same workload
      --out AB.html  With --vs: also write a self-contained page with both
                     designs' heatmaps on one colour scale
  -h, --help         Print help

Exit status: 0 success; 1 a file could not be read or written, a scenario
is invalid (the message names the line or field) or the two workloads
differ; 2 the command line was not understood. Simulations keep no state:
--state and the other shared options do not apply.
"
    .to_string()
}

fn lint_help_text() -> String {
    "\
Check a schema and row-key design against Bigtable's schema best practices.

Usage: tabletop lint [--json] [--strict] [--simulate] SCENARIO.toml
       tabletop lint [OPTIONS] - < SCENARIO.toml

Reads a scenario (its table, row-key template and declared access
patterns; the format is in static/scenarios/README.md) and prints the
advisor's findings: each with a stable rule id, a severity, what it points
at, why it matters, the lesson that explains it and the fixes (with the row
keys they would give). Declared reads are classified as point read, single
range, multi-range or full scan. Meant for CI: the exit status says whether
the design passes.

Options:
      --json       Print the findings as JSON
      --strict     Fail on warnings too, not only on errors
      --simulate   Run the scenario's workload first and use what it shows
                   (hot rows, sequential writes) as evidence
  -h, --help       Print help

Exit status: 0 no finding fails the design; 1 a finding of severity error
(or, with --strict, warning); 2 the command line was not understood, the
file could not be read or the scenario is invalid (the message names the
line or field).
"
    .to_string()
}

fn help_help_text() -> String {
    "\
Print help.

Usage: tabletop help [COMMAND]

Without a command, prints the overview of tabletop; with one (cbt, json,
sim, lint, translate, export, sql, keyviz, serve, help), prints that command's help. `tabletop COMMAND --help` does the same.
"
    .to_string()
}

fn main() -> ExitCode {
    let invocation = args::parse(std::env::args_os().skip(1).collect());
    let code = match invocation {
        Invocation::Help(None) => print_stdout(&help_text()),
        Invocation::Help(Some(Topic::Cbt)) => print_stdout(&cbt_help_text()),
        Invocation::Help(Some(Topic::Json)) => print_stdout(&json_help_text()),
        Invocation::Help(Some(Topic::Sim)) => print_stdout(&sim_help_text()),
        Invocation::Help(Some(Topic::Lint)) => print_stdout(&lint_help_text()),
        Invocation::Help(Some(Topic::Export)) => print_stdout(&export_cmd::help_text()),
        Invocation::Help(Some(Topic::Translate)) => print_stdout(&translate_cmd::help_text()),
        Invocation::Help(Some(Topic::Sql)) => print_stdout(&sql_cmd::help_text()),
        Invocation::Help(Some(Topic::Keyviz)) => print_stdout(&keyviz_cmd::help_text()),
        Invocation::Help(Some(Topic::Serve)) => print_stdout(&serve_cmd::help_text()),
        Invocation::Help(Some(Topic::Help)) => print_stdout(&help_help_text()),
        Invocation::Version => print_stdout(&format!("{}\n", version_line())),
        Invocation::Completions(shell) => {
            let mut command = args::completion_command();
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut command, "tabletop", &mut out);
            print_stdout(&String::from_utf8_lossy(&out))
        }
        Invocation::Cbt { options, args } if args.is_empty() => cbt_cmd::run_script(&options),
        Invocation::Cbt { options, args } => cbt_cmd::run_once(&options, &args),
        Invocation::Json { options } => json_cmd::run(&options),
        Invocation::Sim { scenario, json } => sim_cmd::run(&scenario, json),
        Invocation::SimVs { a, b, json, out } => sim_cmd::run_vs(&a, &b, json, out.as_deref()),
        Invocation::Lint {
            scenario,
            json,
            strict,
            simulate,
        } => lint_cmd::run(&scenario, json, strict, simulate),
        Invocation::Export { options, args } => export_cmd::run(options, &args),
        Invocation::Keyviz { options, args } => keyviz_cmd::run(options, &args),
        Invocation::Translate { options, args } => translate_cmd::run(options, &args),
        Invocation::Sql { options, args } => sql_cmd::run(options, &args),
        Invocation::Serve { args } => serve_cmd::run(&args),
        Invocation::Error(message) => {
            eprintln!("error: {message}\n\nRun 'tabletop --help' for usage.");
            USAGE_ERROR
        }
    };
    ExitCode::from(code)
}

/// Writes to stdout. A closed pipe (`tabletop --help | head -1`) is not an
/// error worth a panic, so write failures end quietly with status 1.
fn print_stdout(text: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_lists_every_command_and_planned_subcommand() {
        let help = help_text();
        for word in [
            "cbt",
            "json",
            "sim",
            "help",
            "--state",
            "-project",
            "--version",
        ] {
            assert!(help.contains(word), "{word} missing from help");
        }
        for (name, what) in PLANNED {
            assert!(
                help.contains(name) && help.contains(what),
                "{name} missing from help"
            );
        }
        assert!(cbt_help_text().contains("Usage: tabletop cbt"));
        assert!(json_help_text().contains("Usage: tabletop json"));
        // The help lists every method of the protocol, writes marked.
        let help = json_help_text();
        for m in api::METHODS {
            let line = help
                .lines()
                .find(|l| l.split_whitespace().next() == Some(m.name))
                .unwrap_or_else(|| panic!("{} is not in tabletop json --help", m.name));
            assert_eq!(
                line.contains(" write "),
                m.access == api::Access::Write,
                "{line}"
            );
        }
        assert!(sim_help_text().contains("Usage: tabletop sim"));
        assert!(help_help_text().contains("Usage: tabletop help"));
    }
}
