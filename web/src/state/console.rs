//! The console's slice of the state and the runner behind it.
//!
//! Commands go through the same interpreters as the command line:
//! [`cbt::exec_args`] for the `cbt` tab and [`api::handle`] for the JSON
//! tab, so what the console prints is what `tabletop cbt` and `tabletop
//! json` print. Every read also reports what it cost: rows and cells seen
//! against returned, and the tablets it visited, from the trace the core
//! hands back with the output ([`cbt::exec_line_traced`],
//! [`api::handle_traced`], [`sql::execute_traced`](tabletop_core::sql::execute_traced)):
//! nothing is added to the request, parsed from the output or read again.
//! Each entry keeps that trace, so a lesson's check judges the read the
//! learner made, as it ran (see [`ConsoleState::trace_options`]).
//!
//! The SQL tab's runner is in [`sql`].

pub mod sql;

use std::rc::Rc;

use serde_json::Value;
use tabletop_core::{
    Instance, Trace, TraceOptions, Traces, api,
    cbt::{self, Host},
};

/// Which language the console speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tab {
    /// `cbt` commands.
    #[default]
    Cbt,
    /// Bigtable's REST requests in proto3 JSON.
    Json,
    /// GoogleSQL for Bigtable (see [`sql::run_sql`]).
    Sql,
}

impl Tab {
    /// The tab's label.
    pub fn label(self) -> &'static str {
        match self {
            Tab::Cbt => "cbt",
            Tab::Json => "JSON",
            Tab::Sql => "SQL",
        }
    }

    /// The tab's name in share links.
    pub fn slug(self) -> &'static str {
        match self {
            Tab::Cbt => "cbt",
            Tab::Json => "json",
            Tab::Sql => "sql",
        }
    }

    /// The tab named `slug` (anything else is `cbt`).
    pub fn from_slug(slug: &str) -> Tab {
        if slug.eq_ignore_ascii_case("json") {
            Tab::Json
        } else if slug.eq_ignore_ascii_case("sql") {
            Tab::Sql
        } else {
            Tab::Cbt
        }
    }
}

/// Where a transcript entry came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Typed into the console.
    Typed,
    /// Made by a button of another panel, which shows its request here.
    Panel(&'static str),
}

/// What a read cost, from the core's statistics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadReport {
    /// The table read.
    pub table: String,
    /// Rows the engine looked at.
    pub rows_seen: u64,
    /// Rows returned.
    pub rows_returned: u64,
    /// Cells looked at (`None` when the command does not report cells).
    pub cells_seen: Option<u64>,
    /// Cells returned.
    pub cells_returned: Option<u64>,
    /// Ids of the tablets the read visited, in visit order.
    pub tablets: Vec<u64>,
    /// How many tablets the table has.
    pub tablet_count: usize,
}

impl ReadReport {
    /// The report of a traced read; `cells` says whether the command
    /// reports cells (`cbt count` does not).
    pub fn from_trace(trace: &Trace, cells: bool) -> ReadReport {
        let read = &trace.read;
        ReadReport {
            table: trace.table.clone(),
            rows_seen: read.rows_seen,
            rows_returned: read.rows_returned,
            cells_seen: cells.then_some(read.cells_seen),
            cells_returned: cells.then_some(read.cells_returned),
            tablets: read.tablets.clone(),
            tablet_count: trace.tablet_count,
        }
    }

    /// The report in one line: rows and cells returned against seen, and
    /// the tablets visited.
    pub fn text(&self) -> String {
        use crate::view_model::format::format_count as n;
        let mut text = format!(
            "rows: {} returned / {} seen",
            n(self.rows_returned),
            n(self.rows_seen)
        );
        if let (Some(returned), Some(seen)) = (self.cells_returned, self.cells_seen) {
            text.push_str(&format!(
                " · cells: {} returned / {} seen",
                n(returned),
                n(seen)
            ));
        }
        const SHOWN: usize = 6;
        let ids: Vec<String> = self
            .tablets
            .iter()
            .take(SHOWN)
            .map(|id| format!("#{id}"))
            .collect();
        let more = if self.tablets.len() > SHOWN {
            ", …"
        } else {
            ""
        };
        text.push_str(&format!(
            " · tablets visited: {} of {} ({}{more})",
            n(self.tablets.len() as u64),
            n(self.tablet_count as u64),
            ids.join(", ")
        ));
        text
    }
}

/// One command and what it printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Unique within the transcript.
    pub id: u64,
    /// The language.
    pub tab: Tab,
    /// Who ran it.
    pub source: Source,
    /// The command as given, cut at [`MAX_ECHO_CHARS`] characters (the
    /// command itself ran in full).
    pub input: String,
    /// How many characters the whole command had, when its echo was cut.
    pub input_cut_from: Option<usize>,
    /// What it printed (stdout then stderr for cbt; the answer line for
    /// JSON), cut at [`MAX_OUTPUT_CHARS`].
    pub output: String,
    /// The length of the whole output, when it was cut.
    pub cut_from: Option<usize>,
    /// Rows a cbt read returned but did not print: the console stops
    /// printing near [`MAX_OUTPUT_CHARS`] (the read still runs to its end,
    /// so its report counts every row).
    pub rows_not_printed: u64,
    /// Whether it succeeded (exit status 0; a `response`, not an `error`).
    pub ok: bool,
    /// For reads: what they cost.
    pub read: Option<ReadReport>,
    /// For reads: the core's trace of the read (the report's source; with
    /// the returned keys when [`ConsoleState::trace_options`] asked).
    pub trace: Option<Rc<Trace>>,
    /// Whether it may have changed data or schema.
    pub writes: bool,
}

/// Longest output kept per entry.
pub const MAX_OUTPUT_CHARS: usize = 60_000;
/// Where a cbt read stops printing rows: below [`MAX_OUTPUT_CHARS`], so
/// the stats block after the rows still fits.
pub const PRINT_LIMIT: usize = MAX_OUTPUT_CHARS - 4_096;
/// Longest echo of a command in the transcript, in characters: a pasted
/// script of megabytes runs in full, but its echo stops here.
pub const MAX_ECHO_CHARS: usize = 2_000;
/// Commands longer than this many bytes stay in the session's history
/// (Up brings them back) but are left out of autosave, which a browser
/// refuses whole once it passes a few megabytes.
pub const MAX_SAVED_COMMAND_BYTES: usize = 16 * 1024;
/// Entries kept in the transcript.
pub const MAX_ENTRIES: usize = 200;
/// Commands kept in the history.
pub const MAX_HISTORY: usize = 100;

/// The console's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConsoleState {
    /// The tab shown.
    pub tab: Tab,
    /// What is typed in each tab (cbt, JSON, SQL).
    pub inputs: [String; 3],
    /// Commands run, oldest first.
    pub entries: Vec<Rc<Entry>>,
    /// Commands typed, oldest first, with their tab.
    pub history: Vec<(Tab, String)>,
    /// While browsing history: the position in `history`, and what was
    /// typed before browsing started.
    pub browsing: Option<(usize, String)>,
    /// What the traces of reads record beyond their counts: nothing extra
    /// normally; a lesson asks for the returned keys while it runs, so its
    /// check can judge the reads from their entries.
    pub trace_options: TraceOptions,
    /// How many commands have changed rows or tables in a way that the
    /// tables' definitions alone do not record (see [`changes_by_hand`]),
    /// since the console began: autosave's replay cannot rebuild them.
    pub hand_changes: u64,
    /// The hand-made changes of the current action that change rows only
    /// (see [`replays_rows_only`]), for the app state's log to take.
    pub hand_writes: Vec<super::hand_log::HandWrite>,
    next_id: u64,
}

impl ConsoleState {
    /// What is typed in the current tab.
    pub fn input(&self) -> &str {
        &self.inputs[self.tab as usize]
    }

    /// Replaces what is typed in the current tab (and stops browsing).
    pub fn set_input(&mut self, text: String) {
        self.inputs[self.tab as usize] = text;
        self.browsing = None;
    }

    /// Switches tabs.
    pub fn set_tab(&mut self, tab: Tab) {
        self.tab = tab;
        self.browsing = None;
    }

    /// Shows the previous command of this tab's history (arrow up).
    pub fn history_back(&mut self) {
        let tab = self.tab;
        let start = self.browsing.as_ref().map_or(self.history.len(), |b| b.0);
        if let Some(i) = (0..start).rev().find(|&i| self.history[i].0 == tab) {
            let draft = match self.browsing.take() {
                Some((_, draft)) => draft,
                None => self.input().to_string(),
            };
            self.inputs[tab as usize] = self.history[i].1.clone();
            self.browsing = Some((i, draft));
        }
    }

    /// Shows the next command of this tab's history, or what was typed
    /// before browsing (arrow down).
    pub fn history_forward(&mut self) {
        let tab = self.tab;
        let Some((at, draft)) = self.browsing.take() else {
            return;
        };
        match (at + 1..self.history.len()).find(|&i| self.history[i].0 == tab) {
            Some(i) => {
                self.inputs[tab as usize] = self.history[i].1.clone();
                self.browsing = Some((i, draft));
            }
            None => self.inputs[tab as usize] = draft,
        }
    }

    /// Applies one of the console's own actions: the tab, the input, the
    /// history, clearing, a command put in by another panel. (Running the
    /// input needs the instance: see [`ConsoleState::run_input`].)
    pub(crate) fn reduce(&mut self, action: super::Action) {
        use super::Action;
        match action {
            Action::ConsoleTab(tab) => self.set_tab(tab),
            Action::ConsoleInput(text) => self.set_input(text),
            Action::ConsoleHistory(true) => self.history_back(),
            Action::ConsoleHistory(false) => self.history_forward(),
            Action::ConsoleClear => self.clear(),
            Action::ConsoleInsert(tab, text) => {
                self.set_tab(tab);
                self.set_input(text);
            }
            _ => {}
        }
    }

    /// Forgets the transcript (history stays).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Runs what is typed in the current tab, records it in the history
    /// and clears the input. Returns whether anything may have changed
    /// data or schema.
    pub fn run_input(&mut self, instance: &mut Instance, host: &mut dyn Host) -> bool {
        let text = self.input().trim_end().to_string();
        if text.trim().is_empty() {
            return false;
        }
        let tab = self.tab;
        if self.history.last() != Some(&(tab, text.clone())) {
            self.history.push((tab, text.clone()));
            if self.history.len() > MAX_HISTORY {
                self.history.remove(0);
            }
        }
        self.inputs[tab as usize].clear();
        self.browsing = None;
        self.run(instance, host, tab, &text, Source::Typed)
    }

    /// Runs `text` (one command per line; for JSON, a whole multi-line
    /// object counts as one) and adds the entries. Returns whether anything
    /// may have changed data or schema.
    pub fn run(
        &mut self,
        instance: &mut Instance,
        host: &mut dyn Host,
        tab: Tab,
        text: &str,
        source: Source,
    ) -> bool {
        let mut writes = false;
        let options = self.trace_options;
        for command in split_commands(tab, text) {
            let at_micros = instance.now_micros();
            let mut entry = match tab {
                Tab::Cbt => run_cbt(instance, host, &command, options),
                Tab::Json => run_json(instance, &command, options),
                Tab::Sql => sql::run_sql(instance, &command, options),
            };
            entry.source = source;
            entry.input_cut_from = cap_echo(&mut entry.input);
            entry.id = self.next_id;
            self.next_id += 1;
            writes |= entry.writes;
            if entry.ok && entry.writes && changes_by_hand(tab, &command) {
                self.hand_changes += 1;
                if replays_rows_only(tab, &command) {
                    self.hand_writes.push(super::hand_log::HandWrite {
                        tab: tab.slug().to_string(),
                        command: command.clone(),
                        at_micros,
                    });
                }
            }
            self.entries.push(Rc::new(entry));
        }
        if self.entries.len() > MAX_ENTRIES {
            let extra = self.entries.len() - MAX_ENTRIES;
            self.entries.drain(..extra);
        }
        writes
    }

    /// The last read report, if the last entry was a read.
    pub fn last_read(&self) -> Option<&ReadReport> {
        self.entries.last().and_then(|e| e.read.as_ref())
    }

    /// The newest entry that read successfully, among those numbered
    /// `from` or later, with the trace of its read.
    pub fn last_traced_read(&self, from: u64) -> Option<(&Entry, &Trace)> {
        self.entries
            .iter()
            .rev()
            .take_while(|e| e.id >= from)
            .filter(|e| e.ok)
            .find_map(|e| e.trace.as_deref().map(|t| (e.as_ref(), t)))
    }
}

/// Splits console text into commands: lines for `cbt`; for JSON, the whole
/// text when it is one JSON value, lines otherwise; for SQL, statements
/// at `;`.
pub fn split_commands(tab: Tab, text: &str) -> Vec<String> {
    if tab == Tab::Sql {
        return sql::split_sql(text);
    }
    if tab == Tab::Json
        && text.contains('\n')
        && let Ok(value) = serde_json::from_str::<Value>(text)
    {
        return vec![api::to_line(&value)];
    }
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Cuts output at [`MAX_OUTPUT_CHARS`] (on a character boundary); the
/// whole length comes back when it was cut.
pub(crate) fn cut(text: String) -> (String, Option<usize>) {
    if text.len() <= MAX_OUTPUT_CHARS {
        return (text, None);
    }
    let mut end = MAX_OUTPUT_CHARS;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let len = text.len();
    (text[..end].to_string(), Some(len))
}

/// Cuts a command's echo at [`MAX_ECHO_CHARS`] characters; returns how
/// many characters the whole command had when it was cut.
pub(crate) fn cap_echo(input: &mut String) -> Option<usize> {
    let (end, _) = input.char_indices().nth(MAX_ECHO_CHARS)?;
    let total = MAX_ECHO_CHARS + input[end..].chars().count();
    *input = input[..end].to_string();
    Some(total)
}

/// Finds the command word past a leading `cbt` and `cbt`'s global flags,
/// as the interpreter does.
fn command_start(args: &[Vec<u8>]) -> Option<usize> {
    let mut i = usize::from(args.first().is_some_and(|a| a == b"cbt"));
    while let Some(a) = args.get(i) {
        if a == b"--" {
            return Some(i + 1);
        }
        if a.len() < 2 || a[0] != b'-' {
            break;
        }
        i += if a.contains(&b'=') { 1 } else { 2 };
    }
    (i < args.len()).then_some(i)
}

/// Which cbt commands only read (everything else may write).
fn cbt_writes(args: &[Vec<u8>]) -> bool {
    let Some(at) = command_start(args) else {
        return false;
    };
    match args[at].as_slice() {
        b"ls" | b"read" | b"lookup" | b"count" | b"help" | b"version" => false,
        b"clock" => at + 1 < args.len(),
        _ => true,
    }
}

/// Whether a command that succeeded and wrote changed what the saved
/// tables' definitions and data loads cannot rebuild: any write of rows,
/// delete or drop, and table change, but not the creation of a table or a
/// family, a GC rule (the definitions record those), a compaction or the
/// instance's clock. Every SQL statement that wrote counts.
pub fn changes_by_hand(tab: Tab, command: &str) -> bool {
    match tab {
        Tab::Cbt => cbt::tokenize(command).is_ok_and(|args| {
            command_start(&args).is_some_and(|at| {
                !matches!(
                    args[at].as_slice(),
                    b"createtable" | b"createfamily" | b"setgcpolicy" | b"compact" | b"clock"
                )
            })
        }),
        Tab::Json => {
            let value = serde_json::from_str::<Value>(command).unwrap_or_default();
            let method = value
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            api::is_bigtable_write(method)
                && method != "createTable"
                && (method != "modifyColumnFamilies" || drops_a_family(&value))
        }
        Tab::Sql => true,
    }
}

/// Whether a ModifyColumnFamilies request drops a family (and its cells);
/// families created or given a new GC rule are in the tables' definitions.
fn drops_a_family(request: &Value) -> bool {
    request
        .pointer("/request/modifications")
        .and_then(Value::as_array)
        .is_some_and(|m| {
            m.iter()
                .any(|m| m.get("drop").is_some_and(|d| d != &Value::Bool(false)))
        })
}

/// Whether a command changes rows only (writes, deletes of cells or rows,
/// dropped row ranges), so running it again after the data loads, with
/// the tables' definitions as they are now, does what it did. SQL is not
/// run again.
pub fn replays_rows_only(tab: Tab, command: &str) -> bool {
    match tab {
        Tab::Cbt => cbt::tokenize(command).is_ok_and(|args| {
            command_start(&args).is_some_and(|at| {
                matches!(
                    args[at].as_slice(),
                    b"set" | b"addtocell" | b"deleterow" | b"deletecolumn" | b"deleteallrows"
                )
            })
        }),
        Tab::Json => serde_json::from_str::<Value>(command)
            .ok()
            .and_then(|v| {
                v.get("method")
                    .and_then(Value::as_str)
                    .map(api::writes_rows_only)
            })
            .unwrap_or(false),
        Tab::Sql => false,
    }
}

/// Whether a `cbt` line only reads (or only prints), so running it again
/// changes nothing.
pub fn cbt_reads_only(line: &str) -> bool {
    cbt::tokenize(line).is_ok_and(|args| !cbt_writes(&args))
}

/// Runs one `cbt` line, tracing its read with `options`.
pub fn run_cbt(
    instance: &mut Instance,
    host: &mut dyn Host,
    line: &str,
    options: TraceOptions,
) -> Entry {
    let args = cbt::tokenize(line).unwrap_or_default();
    let mut traces = Traces::new(options);
    let outcome = cbt::exec_line_traced(instance, line, host, &mut traces);
    let ok = outcome.status.is_ok();
    // `count` prints a number of rows only; its report leaves cells out.
    let counts_only = command_start(&args).is_some_and(|at| args[at] == b"count");
    let trace = traces.last_read().filter(|_| ok).cloned();
    let report = trace
        .as_ref()
        .map(|t| ReadReport::from_trace(t, !counts_only));
    let mut text = String::from_utf8_lossy(&outcome.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&outcome.stderr));
    let (output, cut_from) = cut(text);
    Entry {
        id: 0,
        tab: Tab::Cbt,
        source: Source::Typed,
        input: line.to_string(),
        input_cut_from: None,
        output,
        cut_from,
        rows_not_printed: outcome.rows_not_printed,
        ok,
        read: report,
        trace: trace.map(Rc::new),
        writes: cbt_writes(&args),
    }
}

/// Runs one JSON request line, tracing its read with `options`.
pub fn run_json(instance: &mut Instance, line: &str, options: TraceOptions) -> Entry {
    let method = serde_json::from_str::<Value>(line)
        .ok()
        .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_default();
    let mut traces = Traces::new(options);
    let api::Answer { line: output, ok } = api::answer_traced(instance, line, &mut traces);
    // A request that failed leaves no trace.
    let trace = traces.last_read().filter(|_| method == "readRows").cloned();
    let report = trace.as_ref().map(|t| ReadReport::from_trace(t, true));
    let (output, cut_from) = cut(output);
    Entry {
        id: 0,
        tab: Tab::Json,
        source: Source::Typed,
        input: line.to_string(),
        input_cut_from: None,
        output,
        cut_from,
        rows_not_printed: 0,
        ok,
        read: report,
        trace: trace.map(Rc::new),
        writes: api::may_write(&method),
    }
}

#[cfg(test)]
mod tests {
    use tabletop_core::cbt::{MemFiles, NoHost};

    use super::*;

    fn instance() -> Instance {
        let mut db = Instance::default();
        db.set_now(1_588_291_200_000_000);
        cbt::run_line(&mut db, "createtable t families=cf splits=m").unwrap();
        for key in ["a", "b", "c", "n", "o"] {
            cbt::run_line(&mut db, &format!("set t {key} cf:q=v{key}@1000")).unwrap();
        }
        db
    }

    #[test]
    fn a_huge_read_prints_a_screenful_and_reports_every_row() {
        let mut db = Instance::default();
        cbt::run_line(&mut db, "createtable big families=cf").unwrap();
        for i in 0..3000 {
            cbt::run_line(&mut db, &format!("set big k{i:05} cf:q=value-{i}@1000")).unwrap();
        }
        let whole = cbt::run_line(&mut db.clone(), "read big").unwrap();
        assert!(whole.len() > MAX_OUTPUT_CHARS);
        let mut screen = MemFiles {
            stdout_limit: Some(PRINT_LIMIT),
            ..MemFiles::default()
        };
        let entry = run_cbt(&mut db, &mut screen, "read big", TraceOptions::default());
        assert!(entry.ok);
        assert!(entry.output.len() <= MAX_OUTPUT_CHARS && entry.cut_from.is_none());
        assert!(
            whole.starts_with(&entry.output),
            "the CLI's output, cut after a row"
        );
        let printed = entry.output.lines().filter(|l| l.starts_with('k')).count() as u64;
        assert_eq!(entry.rows_not_printed, 3000 - printed);
        let report = entry.read.unwrap();
        assert_eq!((report.rows_seen, report.rows_returned), (3000, 3000));
    }

    #[test]
    fn cbt_output_is_what_the_cli_prints_and_reads_report_stats() {
        let mut db = instance();
        let mut twin = instance();
        let entry = run_cbt(
            &mut db,
            &mut NoHost,
            "read t count=2",
            TraceOptions::default(),
        );
        assert_eq!(
            entry.output,
            cbt::run_line(&mut twin, "read t count=2").unwrap()
        );
        assert!(entry.ok && !entry.writes);
        let report = entry.read.unwrap();
        assert_eq!(report.table, "t");
        assert_eq!((report.rows_seen, report.rows_returned), (2, 2));
        assert_eq!(
            (report.cells_seen, report.cells_returned),
            (Some(2), Some(2))
        );
        assert_eq!(report.tablets.len(), 1, "two rows from the first tablet");
        assert_eq!(report.tablet_count, 2);

        let entry = run_cbt(
            &mut db,
            &mut NoHost,
            "read t regex=[ao]",
            TraceOptions::default(),
        );
        let report = entry.read.unwrap();
        assert_eq!((report.rows_seen, report.rows_returned), (5, 2));
        assert_eq!(report.tablets.len(), 2);
        assert!(!entry.output.contains("Summary Stats"));
    }

    #[test]
    fn reports_read_as_one_line() {
        let report = ReadReport {
            table: "t".into(),
            rows_seen: 1500,
            rows_returned: 2,
            cells_seen: Some(4500),
            cells_returned: Some(6),
            tablets: (0..8).collect(),
            tablet_count: 12,
        };
        assert_eq!(
            report.text(),
            "rows: 2 returned / 1,500 seen · cells: 6 returned / 4,500 seen · tablets visited: 8 of 12 (#0, #1, #2, #3, #4, #5, …)"
        );
        let count = ReadReport {
            cells_seen: None,
            cells_returned: None,
            tablets: vec![3],
            tablet_count: 1,
            ..report
        };
        assert_eq!(
            count.text(),
            "rows: 2 returned / 1,500 seen · tablets visited: 1 of 1 (#3)"
        );
    }

    #[test]
    fn stats_asked_for_stay_in_the_output() {
        let mut db = instance();
        let entry = run_cbt(
            &mut db,
            &mut NoHost,
            "read t prefix=n include-stats=full",
            TraceOptions::default(),
        );
        assert!(entry.output.contains("Summary Stats"), "{}", entry.output);
        let report = entry.read.unwrap();
        assert_eq!(report.rows_returned, 1);
        assert_eq!(report.tablets.len(), 1);
    }

    #[test]
    fn count_zero_and_lookups_keep_their_cbt_behaviour() {
        let mut db = instance();
        let mut twin = instance();
        let zero = run_cbt(
            &mut db,
            &mut NoHost,
            "read t count=0",
            TraceOptions::default(),
        );
        assert!(zero.ok, "{}", zero.output);
        assert_eq!(
            zero.output,
            cbt::run_line(&mut twin, "read t count=0").unwrap()
        );
        let lookup = run_cbt(&mut db, &mut NoHost, "lookup t n", TraceOptions::default());
        assert_eq!(
            lookup.output,
            cbt::run_line(&mut twin, "lookup t n").unwrap()
        );
        assert_eq!(lookup.read.unwrap().rows_returned, 1);
        let count = run_cbt(&mut db, &mut NoHost, "count t", TraceOptions::default());
        assert_eq!(count.output, "5\n");
        let report = count.read.unwrap();
        assert_eq!(report.rows_seen, 5);
        assert_eq!(report.tablets.len(), 2);
    }

    #[test]
    fn failures_and_writes_are_flagged() {
        let mut db = instance();
        let entry = run_cbt(&mut db, &mut NoHost, "read nope", TraceOptions::default());
        assert!(!entry.ok && entry.read.is_none() && !entry.writes);
        assert!(entry.output.contains("NotFound"), "{}", entry.output);
        let entry = run_cbt(
            &mut db,
            &mut NoHost,
            "set t z cf:q=1",
            TraceOptions::default(),
        );
        assert!(entry.ok && entry.writes);
        let entry = run_cbt(
            &mut db,
            &mut NoHost,
            "read t 'open",
            TraceOptions::default(),
        );
        assert!(!entry.ok);
    }

    #[test]
    fn json_reads_report_stats_without_changing_the_answer() {
        let mut db = instance();
        let mut twin = instance();
        let line = r#"{"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/t", "rows": {"rowRanges": [{"startKeyClosed": "Yg==", "endKeyOpen": "bw=="}]}, "rowsLimit": "2"}}"#;
        let entry = run_json(&mut db, line, TraceOptions::default());
        assert_eq!(entry.output, api::handle(&mut twin, line));
        assert!(!entry.output.contains("requestStats"));
        let report = entry.read.unwrap();
        assert_eq!((report.rows_seen, report.rows_returned), (2, 2));
        assert_eq!(report.tablets.len(), 1);
        assert!(!entry.writes);

        let asked = r#"{"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/t", "requestStatsView": "REQUEST_STATS_FULL"}}"#;
        let entry = run_json(&mut db, asked, TraceOptions::default());
        assert_eq!(entry.output, api::handle(&mut twin, asked));
        assert!(entry.output.contains("requestStats"));
        assert_eq!(entry.read.unwrap().tablets.len(), 2);

        let write = r#"{"method": "mutateRow", "request": {"tableName": "projects/p/instances/i/tables/t", "rowKey": "eg==", "mutations": [{"deleteFromRow": {}}]}}"#;
        assert!(run_json(&mut db, write, TraceOptions::default()).writes);
        let bad = run_json(&mut db, "{", TraceOptions::default());
        assert!(!bad.ok && bad.output.contains("not valid JSON"));
    }

    #[test]
    fn history_browses_per_tab_and_restores_the_draft() {
        let mut db = instance();
        let mut console = ConsoleState::default();
        for command in ["ls", "count t"] {
            console.set_input(command.into());
            console.run_input(&mut db, &mut NoHost);
        }
        console.set_tab(Tab::Json);
        console.set_input(r#"{"method": "listTables"}"#.into());
        console.run_input(&mut db, &mut NoHost);
        console.set_tab(Tab::Cbt);
        console.set_input("draft".into());
        console.history_back();
        assert_eq!(console.input(), "count t");
        console.history_back();
        assert_eq!(console.input(), "ls");
        console.history_back();
        assert_eq!(console.input(), "ls", "stays at the oldest");
        console.history_forward();
        assert_eq!(console.input(), "count t");
        console.history_forward();
        assert_eq!(console.input(), "draft");
        assert_eq!(console.entries.len(), 3);
        assert_eq!(console.entries[2].tab, Tab::Json);
    }

    #[test]
    fn multi_line_input_runs_each_command() {
        let mut db = instance();
        let mut console = ConsoleState::default();
        console.set_input("ls\n\n  count t  \n".into());
        console.run_input(&mut db, &mut NoHost);
        let inputs: Vec<&str> = console.entries.iter().map(|e| e.input.as_str()).collect();
        assert_eq!(inputs, ["ls", "count t"]);
        assert_eq!(
            split_commands(Tab::Json, "{\n \"method\": \"listTables\"\n}"),
            [r#"{"method":"listTables"}"#]
        );
        assert_eq!(split_commands(Tab::Json, "{}\n{}").len(), 2);
    }

    #[test]
    fn a_huge_command_runs_in_full_but_its_echo_is_cut() {
        let mut db = instance();
        let mut console = ConsoleState::default();
        // Three megabytes of value, with a two-byte character in it so the
        // cut must fall on a character boundary.
        let value = format!("é{}", "v".repeat(3 << 20));
        let command = format!("set t big cf:q={value}");
        console.set_input(command.clone());
        console.run_input(&mut db, &mut NoHost);
        let entry = console.entries.last().unwrap();
        assert!(entry.ok, "{}", entry.output);
        assert_eq!(entry.input.chars().count(), MAX_ECHO_CHARS);
        assert!(command.starts_with(&entry.input));
        assert_eq!(entry.input_cut_from, Some(command.chars().count()));
        let row = db.read_row("t", b"big", None).unwrap().unwrap();
        assert_eq!(
            row.cells[0].value,
            value.as_bytes(),
            "the value went in whole"
        );
        // A short command is echoed as typed.
        console.set_input("ls".into());
        console.run_input(&mut db, &mut NoHost);
        let short = console.entries.last().unwrap();
        assert_eq!((short.input.as_str(), short.input_cut_from), ("ls", None));
    }

    #[test]
    fn the_echo_cut_counts_characters() {
        let mut exact = "x".repeat(MAX_ECHO_CHARS);
        assert_eq!(cap_echo(&mut exact), None);
        let mut over = "é".repeat(MAX_ECHO_CHARS + 5);
        assert_eq!(cap_echo(&mut over), Some(MAX_ECHO_CHARS + 5));
        assert_eq!(over, "é".repeat(MAX_ECHO_CHARS));
    }

    #[test]
    fn long_output_is_cut() {
        let (text, from) = cut("é".repeat(MAX_OUTPUT_CHARS));
        assert!(text.len() <= MAX_OUTPUT_CHARS);
        assert_eq!(from, Some(MAX_OUTPUT_CHARS * 2));
        assert_eq!(cut("short".into()), ("short".into(), None));
    }
}
