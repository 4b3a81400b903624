//! `tabletop sql`: GoogleSQL statements (queries, EXPLAIN, materialized
//! views, row-key schemas) against the instance in the state file
//! (see `tabletop_core::sql`).

use std::ffi::OsString;
use std::io::{self, IsTerminal, Read, Write};

use tabletop_core::{Error, Instances, api, sql};

use clap::Parser;

use crate::args::{Options, Shared, parse_words};
use crate::host::WallClock;
use crate::state;

/// Exit status for a command line that could not be understood.
const USAGE_ERROR: u8 = 2;
/// Exit status when a statement failed, or the state file could not be
/// read or saved.
const FAILED: u8 = 1;

pub fn help_text() -> String {
    "\
Run GoogleSQL for Bigtable against the instance in the state file.

Usage: tabletop sql [OPTIONS] [--json] STATEMENT
       tabletop sql [OPTIONS] [--json] < script.sql

Runs the statement given as arguments (the words are joined with spaces;
quote the statement for the shell), or the statements on stdin: separated
by `;` when the script has any, else one per line. It goes on after a
failed statement, reporting it on stderr as `line N: <error>`.

Statements (a SELECT-only subset of GoogleSQL for Bigtable, plus the
playground's own statements):
  SELECT ...                  _key, one MAP column per column family
                              (cf['qualifier'], MAP_KEYS(cf)), typed row key
                              fields when the table has a row key schema;
                              WHERE, ORDER BY, LIMIT; temporal options
                              t(with_history => TRUE, latest_n => 2, after =>
                              ..., before => ..., as_of => ...); UNPACK((...))
  EXPLAIN SELECT ...          The ReadRows request the query becomes (row set,
                              filter chain), the access pattern (point read,
                              prefix or range scan, multi-range, full scan),
                              the tablets it touched and the rows and cells it
                              scanned versus returned
  CREATE MATERIALIZED VIEW v AS SELECT ... GROUP BY ... | ORDER BY ...
                              A continuous materialized view (an aggregation
                              or an asynchronous secondary index), readable
                              like a table
  DROP MATERIALIZED VIEW [IF EXISTS] v
  SHOW MATERIALIZED VIEWS     Views with their rows and lag
  ALTER TABLE t SET ROW KEY SCHEMA f1 STRING, f2 INT64 DECIMAL(8), ...
                              [DELIMITED BY '#' | ORDERED_CODE | FIXED_WIDTH]
                              Typed key fields; reports the keys that do not
                              conform
  ALTER TABLE t DROP ROW KEY SCHEMA

Output is an aligned table (with the columns' GoogleSQL types) per query,
or with --json one line per statement: {\"response\": ...} or
{\"error\": {\"code\", \"status\", \"message\"}}, as `tabletop json` answers.
Views and row key schemas are kept in the state file (view data is
recomputed when the file is loaded); the file is saved once at the end if
a statement changed them.

Options:
      --json             One JSON line per statement
      --state FILE       The state file [default: $TABLETOP_STATE, else
                         ./tabletop.state]
  -project ID            Project id in resource names and messages
  -instance ID           Instance id in resource names and messages
  -h, --help             Print help

Exit status: 0 every statement succeeded; 1 a statement failed, or the
state file could not be read or saved; 2 the command line was not
understood.

Examples:
  tabletop sql \"SELECT _key, stats_summary['os_build'] FROM mobile WHERE STARTS_WITH(_key, 'phone#')\"
  tabletop sql \"EXPLAIN SELECT _key FROM mobile WHERE stats_summary['os_build'] = 'PQ2A'\"
  tabletop sql --json < queries.sql
"
    .to_string()
}

/// What the command line asked for.
struct Args {
    json: bool,
    statement: Option<String>,
}

/// `tabletop sql [OPTIONS] [STATEMENT...]`.
#[derive(Parser, Debug)]
#[command(name = "sql", disable_help_flag = true)]
pub struct SqlCli {
    #[command(flatten)]
    shared: Shared,
    /// One JSON line per statement
    #[arg(long)]
    json: bool,
    /// Print help
    #[arg(short = 'h', long = "help")]
    help: bool,
    /// The statement (its words are joined with spaces); none reads a
    /// script from stdin
    #[arg(value_name = "STATEMENT", trailing_var_arg = true)]
    words: Vec<OsString>,
}

fn parse(options: &mut Options, args: &[OsString]) -> Result<Option<Args>, String> {
    let a: SqlCli = parse_words("sql", args, "")?;
    if a.help {
        return Ok(None);
    }
    a.shared.apply(options);
    let words = a
        .words
        .into_iter()
        .map(|w| {
            w.into_string()
                .map_err(|_| "a statement must be valid UTF-8".to_string())
        })
        .collect::<Result<Vec<String>, String>>()?;
    let statement = (!words.is_empty()).then(|| words.join(" "));
    Ok(Some(Args {
        json: a.json,
        statement,
    }))
}

/// The statements of a script: `;`-separated when it has a `;`, else one
/// per non-empty line.
fn statements(text: &str) -> Vec<(usize, String)> {
    let parts = sql::split_statements(text);
    let has_semicolon = parts.len() > 1 || text.trim_end().ends_with(';');
    if has_semicolon {
        return parts;
    }
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with("--") && !t.starts_with('#')
        })
        .map(|(i, l)| (i + 1, l.trim().to_string()))
        .collect()
}

/// Writes bytes, ignoring a closed pipe (`tabletop sql ... | head`).
fn emit(w: &mut dyn Write, text: &str) {
    let _ = w.write_all(text.as_bytes()).and_then(|()| w.flush());
}

struct Run {
    json: bool,
    failed: bool,
    changed: bool,
    clock: WallClock,
}

impl Run {
    fn statement(
        &mut self,
        all: &mut Instances,
        names: state::Names<'_>,
        line: Option<usize>,
        text: &str,
    ) {
        let db = match state::select(all, names) {
            Ok(db) => db,
            Err(message) => {
                self.failed = true;
                emit(
                    &mut io::stderr().lock(),
                    &format!("tabletop sql: {message}\n"),
                );
                return;
            }
        };
        self.clock.sync(db);
        let result = sql::execute(db, text);
        match &result {
            Ok(outcome) => {
                self.changed |= outcome.changes_state();
                if self.json {
                    emit(
                        &mut io::stdout().lock(),
                        &format!("{}\n", api::answer_line(&Ok(outcome.to_json()))),
                    );
                } else {
                    emit(&mut io::stdout().lock(), &outcome.to_text());
                }
            }
            Err(e) => {
                self.failed = true;
                if self.json {
                    emit(
                        &mut io::stdout().lock(),
                        &format!("{}\n", api::answer_line(&Err(e.clone()))),
                    );
                }
                let at = line.map(|l| format!("line {l}: ")).unwrap_or_default();
                emit(
                    &mut io::stderr().lock(),
                    &format!("tabletop sql: {at}{e}\n"),
                );
            }
        }
    }
}

fn save(path: &std::path::Path, db: &mut Instances) -> Result<(), u8> {
    state::save(path, db).map_err(|e| {
        eprintln!(
            "tabletop: could not save the state file {}: {e}; it was left as it was before",
            path.display()
        );
        FAILED
    })
}

/// Runs `tabletop sql`. Returns the exit status.
pub fn run(mut options: Options, args: &[OsString]) -> u8 {
    let parsed = match parse(&mut options, args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            emit(&mut io::stdout().lock(), &help_text());
            return 0;
        }
        Err(message) => {
            eprintln!("error: {message}\n\nRun 'tabletop sql --help' for usage.");
            return USAGE_ERROR;
        }
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
    // The instance is looked up again for each statement: a save may
    // happen between two, and saving needs every instance.
    let (project, instance) = match state::select(&mut all, names) {
        Ok(db) => (db.config().project.clone(), db.config().instance.clone()),
        Err(message) => {
            eprintln!("tabletop: {message}");
            return FAILED;
        }
    };
    let names = state::Names {
        project: Some(&project),
        instance: Some(&instance),
    };
    let mut run = Run {
        json: parsed.json,
        failed: false,
        changed: false,
        clock: WallClock::default(),
    };
    match &parsed.statement {
        Some(text) => {
            let parts = sql::split_statements(text);
            if parts.len() <= 1 {
                run.statement(&mut all, names, None, text);
            } else {
                for (line, s) in parts {
                    run.statement(&mut all, names, Some(line), &s);
                }
            }
        }
        None if io::stdin().is_terminal() => {
            // Typed statements run as soon as they are complete (or end
            // with `;`), and are saved as they succeed.
            let stdin = io::stdin();
            let mut buf = String::new();
            let mut start = 1usize;
            for (n, line) in stdin.lines().enumerate() {
                let Ok(line) = line else { break };
                if buf.trim().is_empty() {
                    start = n + 1;
                }
                buf.push_str(&line);
                buf.push('\n');
                let done = buf.trim_end().ends_with(';') || sql::is_complete(&buf);
                if !done {
                    continue;
                }
                for (l, s) in sql::split_statements(&buf) {
                    run.statement(&mut all, names, Some(start + l - 1), &s);
                }
                buf.clear();
                if run.changed {
                    if let Err(code) = save(&path, &mut all) {
                        return code;
                    }
                    run.changed = false;
                }
            }
            if !buf.trim().is_empty() {
                run.statement(&mut all, names, Some(start), buf.trim());
            }
        }
        None => {
            let mut text = String::new();
            if let Err(e) = io::stdin().read_to_string(&mut text) {
                let e = Error::invalid(format!("cannot read stdin: {e}"));
                eprintln!("tabletop sql: {e}");
                return FAILED;
            }
            for (line, s) in statements(&text) {
                run.statement(&mut all, names, Some(line), &s);
            }
        }
    }
    if run.changed
        && let Err(code) = save(&path, &mut all)
    {
        return code;
    }
    if run.failed { FAILED } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn arguments_and_scripts() {
        let mut o = Options::default();
        let a = parse(&mut o, &os(&["--json", "--state=x", "SELECT", "1"]))
            .unwrap()
            .unwrap();
        assert!(a.json);
        assert_eq!(a.statement.as_deref(), Some("SELECT 1"));
        assert_eq!(o.state.as_deref(), Some(std::path::Path::new("x")));
        assert!(parse(&mut o, &os(&["--nope"])).is_err());
        assert!(parse(&mut o, &os(&["-h"])).unwrap().is_none());
        let a = parse(&mut o, &os(&["--", "--json"])).unwrap().unwrap();
        assert_eq!(a.statement.as_deref(), Some("--json"));
        assert_eq!(
            statements("SELECT 1\n\n-- note\nSELECT 2\n"),
            vec![(1, "SELECT 1".to_string()), (4, "SELECT 2".to_string())]
        );
        assert_eq!(
            statements("SELECT 1\nFROM t;\nSELECT 2;"),
            vec![
                (1, "SELECT 1\nFROM t".to_string()),
                (3, "SELECT 2".to_string())
            ]
        );
    }
}
