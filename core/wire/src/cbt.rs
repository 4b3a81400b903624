//! The `cbt` command language: the table and data commands of Google's
//! `cbt` CLI, parsed and run against an [`Instance`], with output that is
//! byte for byte what the real `cbt` prints, so a session here and a
//! session against Cloud Bigtable (or its emulator) diff cleanly.
//!
//! # Overview
//!
//! - [`run_line`] takes one command line, splits it as bash would
//!   ([`tokenize`]: quotes, backslashes, `$'\xff'` bytes, `#` comments) and
//!   returns what `cbt` prints on stdout, or the error it would exit with.
//! - [`run_args`] does the same for arguments that are already split (the
//!   native CLI's argv, a JS array).
//! - [`exec_line`] / [`exec_args`] return the full [`Outcome`]: stdout,
//!   stderr (what `cbt` logs, for example `import`'s progress lines) and the
//!   status, and take a [`Host`] that supplies files (`import`'s CSV,
//!   `format-file`) and a wall clock (`clock now`).
//!
//! A leading `cbt` word and `cbt`'s global flags (`-project p`,
//! `-instance=i`, ...) are accepted and ignored, so commands can be pasted
//! from documentation.
//!
//! ```
//! use tabletop_core::{Instance, cbt};
//!
//! let mut db = Instance::default();
//! cbt::run_line(&mut db, "createtable mobile families=stats_summary")?;
//! cbt::run_line(&mut db, "set mobile phone#4c410523#20200501 stats_summary:os_build=PQ2A@1588291200000000")?;
//! let out = cbt::run_line(&mut db, "read mobile")?;
//! assert!(out.contains("stats_summary:os_build"));
//! # Ok::<(), tabletop_core::Error>(())
//! ```
//!
//! # Fidelity notes
//!
//! The reference is `cbt` 1.23.2 (the version installed with the emulator;
//! transcripts of it are in `tests/cbt`). Later `cbt` releases quote row
//! keys and column names in `read`/`lookup` output (`"r1"`,
//! `"cf:col"`); the transcripts must then be re-recorded and this printer
//! follow.
//!
//! - Timestamps print in UTC (real `cbt` uses the local zone; run it with
//!   `TZ=UTC` to compare).
//! - Cells written without `@<timestamp>` get the instance clock (real
//!   `cbt` uses the client's wall clock), truncated to milliseconds: hosts
//!   should keep [`Instance::set_now`] current (a fresh instance reads
//!   1970).
//! - Table names in messages are `projects/<project>/instances/<instance>/
//!   tables/<id>`, from the instance's configuration.
//! - Arguments are split as bash splits them, including that a NUL byte in
//!   `$'...'` ends the argument; [`run_args`] takes any bytes.
//! - Errors from the server read `<what>: rpc error: code = <Code> desc =
//!   <message>` as in `cbt`; the code and message are Tabletop's, which
//!   follow production Bigtable where the emulator differs (see
//!   `tests/cbt/README.md`).
//! - `import` with `workers=N` behaves as one worker (log lines say `[0]`).
//! - `format-file` supports the `hex`, `bigendian`, `littleendian` and
//!   `json` encodings of a YAML subset; protocol buffers are refused.
//! - Playground extensions `compact` and `clock` are marked as such in
//!   `help`; `help` without a command lists only what the playground runs.

mod csv;
mod defs;
mod exec;
mod format;
mod gcpolicy;
pub(crate) mod gostr;
mod lex;
mod valuefmt;

use std::collections::BTreeMap;

use tabletop_sql::{Instance, Instances};
use tabletop_store::{Error, ReadRowsRequest, Traces};

pub use lex::{tokenize, tokenize_script};

/// Everything one `cbt` command produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// What `cbt` writes to standard output. Bytes, not text: `cbt` prints
    /// row keys and qualifiers raw.
    pub stdout: Vec<u8>,
    /// What `cbt` writes to standard error, without the date and time Go's
    /// `log` package puts in front of each entry.
    pub stderr: Vec<u8>,
    /// `Ok` when `cbt` would exit with status 0; otherwise the error (its
    /// message is the last thing written to `stderr`, without the newline).
    pub status: Result<(), Error>,
    /// Rows a `read` returned but did not print, because `stdout` had
    /// reached the host's [`Host::stdout_limit`]; 0 for a host without one.
    pub rows_not_printed: u64,
    /// Whether the command line had a global flag Go's flag package
    /// refuses (unknown, or missing its value): real `cbt` then exits with
    /// status 2 rather than 1.
    pub flag_error: bool,
}

impl Outcome {
    /// The exit status `cbt` would return: 0 or 1.
    #[must_use]
    pub fn exit_code(&self) -> i32 {
        i32::from(self.status.is_err())
    }

    /// `stdout` as text (invalid UTF-8 replaced), for display.
    #[must_use]
    pub fn stdout_lossy(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// `stderr` as text (invalid UTF-8 replaced), for display.
    #[must_use]
    pub fn stderr_lossy(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// A command that failed before it ran: nothing on stdout, the
    /// error's message on stderr.
    fn failed(e: Error) -> Outcome {
        let mut stderr = e.message().as_bytes().to_vec();
        stderr.push(b'\n');
        Outcome {
            stdout: Vec::new(),
            stderr,
            status: Err(e),
            rows_not_printed: 0,
            flag_error: false,
        }
    }
}

/// What the surroundings provide to commands that reach outside the
/// instance. The core reads no files and no clocks itself.
pub trait Host {
    /// The contents of a file named on the command line (`import`'s CSV,
    /// `format-file`). The error text is what follows `cbt`'s own prefix,
    /// in Go's words, e.g. `open data.csv: no such file or directory`.
    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        Err(format!("open {path}: no such file or directory"))
    }

    /// `import`'s CSV file, read as the import goes, so a file of any size
    /// is imported in a bounded amount of memory. The default reads the
    /// whole file with [`Host::read_file`]; a host with real files
    /// streams them. Errors as for [`Host::read_file`].
    fn open_file(&mut self, path: &str) -> Result<Box<dyn std::io::BufRead>, String> {
        let bytes = self.read_file(path)?;
        Ok(Box::new(std::io::Cursor::new(bytes)))
    }

    /// The wall-clock time in microseconds since the epoch, for
    /// `clock now`; `None` when the host has no clock to offer.
    fn wall_clock_micros(&mut self) -> Option<i64> {
        None
    }

    /// Called by `import` after each batch it wrote, with the number of
    /// rows written so far, so a host can show progress while a long
    /// import runs (`cbt`'s own log lines only come with the outcome).
    /// Does nothing by default.
    fn import_progress(&mut self, _rows_written: usize) {}

    /// How much standard output the host can show. Once `stdout` holds
    /// this many bytes, `read` stops printing rows but still reads to the
    /// end, so its stats and the rows it counts are whole, and reports the
    /// rows it left out in [`Outcome::rows_not_printed`]. A screen sets
    /// it (nobody reads a million rows in a browser); the default, `None`,
    /// prints everything, as `cbt` does.
    fn stdout_limit(&self) -> Option<usize> {
        None
    }
}

/// The text Go's `os.Open` error carries for `path`, for a [`Host`] that
/// reads real files (the native CLI): `open data.csv: no such file or
/// directory`.
#[must_use]
pub fn open_error_text(path: &str, err: &std::io::Error) -> String {
    let why = match err.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    };
    format!("open {path}: {why}")
}

/// A host with no files and no clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHost;

impl Host for NoHost {}

/// A host whose files live in memory: the web app puts uploaded or typed
/// CSV text here; tests put fixtures here.
#[derive(Clone, Debug, Default)]
pub struct MemFiles {
    /// File contents by path, exactly as typed on the command line.
    pub files: BTreeMap<String, Vec<u8>>,
    /// What `clock now` sets the clock to, if anything.
    pub wall_clock_micros: Option<i64>,
    /// The host's [`Host::stdout_limit`].
    pub stdout_limit: Option<usize>,
}

impl MemFiles {
    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: impl Into<String>, contents: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), contents.into());
    }
}

impl Host for MemFiles {
    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| format!("open {path}: no such file or directory"))
    }

    fn wall_clock_micros(&mut self) -> Option<i64> {
        self.wall_clock_micros
    }

    fn stdout_limit(&self) -> Option<usize> {
        self.stdout_limit
    }
}

/// Runs one command line (split as bash would split it) and returns its
/// full outcome. A line that cannot be split (an unterminated quote, a
/// shell operator) fails with `INVALID_ARGUMENT` before anything runs; a
/// blank line or a comment does nothing.
pub fn exec_line(instance: &mut Instance, line: &str, host: &mut dyn Host) -> Outcome {
    exec_line_traced(instance, line, host, &mut Traces::off())
}

/// [`exec_line`], also handing back what the command did: the
/// [`Trace`](tabletop_store::Trace) of each data operation it made (a `read`'s ReadRows, a `set`'s
/// MutateRow, every batch of an `import`, ...) is added to `traces`. Hosts
/// report reads from these instead of asking for `include-stats` and
/// reading the "Summary Stats" text.
///
/// ```
/// use tabletop_core::{Instance, TraceOptions, Traces, cbt};
///
/// let mut db = Instance::default();
/// cbt::run_line(&mut db, "createtable t families=cf splits=m")?;
/// cbt::run_line(&mut db, "set t a cf:q=v@1000")?;
/// let mut traces = Traces::new(TraceOptions::default());
/// let out = cbt::exec_line_traced(&mut db, "read t prefix=a", &mut cbt::NoHost, &mut traces);
/// assert!(out.status.is_ok());
/// let read = traces.last_read().expect("a read");
/// assert_eq!((read.read.rows_returned, read.tablet_count), (1, 2));
/// assert_eq!(read.read.tablets.len(), 1);
/// # Ok::<(), tabletop_core::Error>(())
/// ```
pub fn exec_line_traced(
    instance: &mut Instance,
    line: &str,
    host: &mut dyn Host,
    traces: &mut Traces,
) -> Outcome {
    match tokenize(line) {
        Ok(args) if args.is_empty() => Outcome {
            stdout: Vec::new(),
            stderr: Vec::new(),
            status: Ok(()),
            rows_not_printed: 0,
            flag_error: false,
        },
        Ok(args) => exec_args_traced(instance, &args, host, traces),
        Err(e) => Outcome::failed(e),
    }
}

/// Runs one command given as separate arguments (without the program name;
/// a leading `cbt` is skipped) and returns its full outcome.
pub fn exec_args<A: AsRef<[u8]>>(
    instance: &mut Instance,
    args: &[A],
    host: &mut dyn Host,
) -> Outcome {
    exec_args_traced(instance, args, host, &mut Traces::off())
}

/// [`exec_args`], recording the command's data operations in `traces`
/// (see [`exec_line_traced`]).
pub fn exec_args_traced<A: AsRef<[u8]>>(
    instance: &mut Instance,
    args: &[A],
    host: &mut dyn Host,
    traces: &mut Traces,
) -> Outcome {
    let args: Vec<&[u8]> = args.iter().map(AsRef::as_ref).collect();
    exec::run(instance, host, &args, traces)
}

/// The `-project` and `-instance` global flags of a command's arguments
/// (before the command word; the last of each counts, as with Go's flag
/// package): the instance [`exec_args_in`] runs the command on, where
/// given.
#[must_use]
pub fn instance_flags<A: AsRef<[u8]>>(args: &[A]) -> (Option<String>, Option<String>) {
    let words: Vec<&[u8]> = args.iter().map(AsRef::as_ref).collect();
    exec::global_names(&words)
}

/// [`exec_args_traced`] for a host that keeps several instances: the
/// command runs on the instance its `-project` / `-instance` flags name
/// (each defaulting to `defaults`, then to the primary instance's id),
/// made when first named. Afterwards every clock is brought to the latest
/// and instances left holding nothing are forgotten (see [`Instances`]).
///
/// ```
/// use tabletop_core::{Instances, Traces, cbt};
///
/// let mut all = Instances::default();
/// let mut run = |line: &str| {
///     let args = cbt::tokenize(line).unwrap();
///     cbt::exec_args_in(&mut all, (None, None), &args, &mut cbt::NoHost, &mut Traces::off())
/// };
/// assert!(run("-project p -instance other createtable e").status.is_ok());
/// assert!(run("-project p -instance i ls").stdout.is_empty());
/// assert_eq!(run("-project p -instance other ls").stdout, b"e\n");
/// ```
pub fn exec_args_in<A: AsRef<[u8]>>(
    instances: &mut Instances,
    defaults: (Option<&str>, Option<&str>),
    args: &[A],
    host: &mut dyn Host,
    traces: &mut Traces,
) -> Outcome {
    let words: Vec<&[u8]> = args.iter().map(AsRef::as_ref).collect();
    let (project, instance) = exec::global_names(&words);
    let primary = instances.primary().config();
    let project = project
        .or_else(|| defaults.0.map(str::to_string))
        .unwrap_or_else(|| primary.project.clone());
    let instance = instance
        .or_else(|| defaults.1.map(str::to_string))
        .unwrap_or_else(|| primary.instance.clone());
    let outcome = match instances.select(&project, &instance) {
        Ok(db) => exec::run(db, host, &words, traces),
        Err(e) => Outcome::failed(e),
    };
    instances.prune();
    instances.sync_clocks();
    outcome
}

/// The ReadRows request a `read`, `lookup` or `count` command line sends,
/// and its table, parsed by the interpreter's own parser (`None` for
/// another command, a line that does not parse, or a read `cbt` would not
/// send). For hosts that hold only the line; a host that runs the command
/// gets the same from [`exec_line_traced`].
#[must_use]
pub fn read_request(line: &str) -> Option<(String, ReadRowsRequest)> {
    let args = tokenize(line).ok()?;
    let args: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
    exec::read_request(&args)
}

fn into_result(outcome: Outcome) -> Result<String, Error> {
    match outcome.status {
        Ok(()) => Ok(String::from_utf8_lossy(&outcome.stdout).into_owned()),
        Err(e) => Err(e),
    }
}

/// Runs one command line and returns what it printed on stdout (invalid
/// UTF-8 replaced), or the error `cbt` would exit with. Files and the wall
/// clock are unavailable; use [`exec_line`] with a [`Host`] for those.
pub fn run_line(instance: &mut Instance, line: &str) -> Result<String, Error> {
    into_result(exec_line(instance, line, &mut NoHost))
}

/// Runs one command given as separate arguments and returns what it
/// printed on stdout, or the error `cbt` would exit with.
pub fn run_args<A: AsRef<[u8]>>(instance: &mut Instance, args: &[A]) -> Result<String, Error> {
    into_result(exec_args(instance, args, &mut NoHost))
}

/// The fields of the first record of CSV text, read as `cbt import`
/// reads it (Go's `encoding/csv`: quotes, doubled quotes, blank lines
/// skipped), or the reader's error in Go's words.
pub fn csv_record(text: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    csv::read_one(text).map_err(|e| e.to_string())
}

/// The names of the commands [`run_line`] understands (the `cbt` ones and
/// the playground extensions), for completion in a console.
#[must_use]
pub fn command_names() -> Vec<&'static str> {
    defs::COMMANDS
        .iter()
        .filter(|c| c.kind != defs::Kind::Unavailable)
        .map(|c| c.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_store::Code;

    #[test]
    fn a_host_with_an_output_limit_gets_whole_stats_and_a_count_of_the_rest() {
        let mut db = Instance::default();
        run_line(&mut db, "createtable t families=cf").unwrap();
        for i in 0..500 {
            run_line(&mut db, &format!("set t row{i:04} cf:q=value-{i}")).unwrap();
        }
        let mut full = MemFiles::default();
        let all = exec_line(&mut db, "read t include-stats=full", &mut full);
        assert_eq!(all.rows_not_printed, 0);
        let mut screen = MemFiles {
            stdout_limit: Some(1000),
            ..MemFiles::default()
        };
        let cut = exec_line(&mut db, "read t include-stats=full", &mut screen);
        assert!(cut.status.is_ok());
        let text = String::from_utf8(cut.stdout).unwrap();
        let printed = text.lines().filter(|l| l.starts_with("row0")).count();
        assert!(printed > 0 && printed < 500, "{printed} rows printed");
        assert_eq!(cut.rows_not_printed, 500 - printed as u64);
        // What is printed is the start of the full output, and the stats
        // (after the rows) count every row read.
        let full_text = String::from_utf8(all.stdout).unwrap();
        let stats = full_text
            .find("Summary Stats")
            .map(|i| &full_text[i..])
            .unwrap();
        assert!(stats.contains("rows_seen_count: 500\n"), "{stats}");
        assert!(text.ends_with(stats), "{text}");
        assert!(full_text.starts_with(&text[..text.len() - stats.len()]));
    }

    #[test]
    fn the_overview_example_runs() {
        let mut db = Instance::default();
        run_line(&mut db, "createtable mobile families=stats_summary").unwrap();
        run_line(
            &mut db,
            "set mobile phone#4c410523#20200501 stats_summary:os_build=PQ2A@1588291200000000",
        )
        .unwrap();
        let out = run_line(&mut db, "read mobile").unwrap();
        assert!(out.contains("stats_summary:os_build"));
        assert!(out.contains("2020/05/01-00:00:00.000000"));
    }

    #[test]
    fn set_truncates_timestamps_to_milliseconds_as_cbt_does() {
        let mut db = Instance::default();
        run_line(&mut db, "createtable t families=cf").unwrap();
        run_line(&mut db, "set t r cf:a=1@1999 cf:b=2@1001").unwrap();
        let out = run_line(&mut db, "read t").unwrap();
        assert_eq!(
            out.matches("1970/01/01-00:00:00.001000").count(),
            2,
            "{out}"
        );
        run_line(&mut db, "set t r cf:c=3@-1").unwrap();
        assert!(run_line(&mut db, "read t").unwrap().contains("cf:c"));
    }

    #[test]
    fn arguments_may_be_any_bytes() {
        let mut db = Instance::default();
        run_args(&mut db, &["createtable", "t", "families=cf"]).unwrap();
        // A NUL byte cannot come through bash, but it can come through argv
        // arrays from a host.
        run_args(&mut db, &[&b"set"[..], b"t", b"k\x00\xff", b"cf:q=v@1000"]).unwrap();
        let out = exec_args(&mut db, &[&b"read"[..], b"t"], &mut NoHost);
        assert!(out.stdout.windows(3).any(|w| w == b"k\x00\xff"));
        assert_eq!(out.exit_code(), 0);
    }

    #[test]
    fn failures_carry_code_message_and_stderr() {
        let mut db = Instance::default();
        let out = exec_line(&mut db, "read nope", &mut NoHost);
        let err = out.status.clone().unwrap_err();
        assert_eq!(err.code(), Code::NotFound);
        assert_eq!(out.exit_code(), 1);
        assert_eq!(
            out.stderr_lossy(),
            format!("{}\n", err.message()),
            "stderr ends with the message"
        );
        assert!(
            err.message()
                .starts_with("Reading rows: rpc error: code = NotFound desc = table")
        );
        let usage = run_line(&mut db, "read").unwrap_err();
        assert_eq!(usage.code(), Code::InvalidArgument);
        assert_eq!(run_line(&mut db, "  # nothing to do").unwrap(), "");
        assert_eq!(
            run_line(&mut db, "ls 'open").unwrap_err().code(),
            Code::InvalidArgument
        );
    }

    #[test]
    fn pasted_commands_keep_working() {
        let mut db = Instance::default();
        run_line(
            &mut db,
            "cbt -project my-project -instance=my-instance createtable t",
        )
        .unwrap();
        assert_eq!(run_line(&mut db, "cbt ls").unwrap(), "t\n");
        assert!(run_line(&mut db, "-nosuchflag ls").is_err());
    }

    #[test]
    fn imports_read_files_from_the_host() {
        let mut db = Instance::default();
        db.set_now(1_600_000_000_123_456);
        let mut files = MemFiles::default();
        files.insert("d.csv", ",cf\n,q\nk1,v1\n");
        assert!(
            exec_line(&mut db, "createtable t families=cf", &mut files)
                .status
                .is_ok()
        );
        let out = exec_line(&mut db, "import t d.csv", &mut files);
        assert_eq!(
            out.stderr_lossy(),
            "[0] Writing batch:: size: 1, firstRowKey: k1, lastRowKey: k1\nDone importing 1 rows.\n"
        );
        let read = run_line(&mut db, "read t").unwrap();
        // Server time comes from the instance clock, truncated to ms.
        assert!(read.contains("2020/09/13-12:26:40.123000"), "{read}");
        let missing = exec_line(&mut db, "import t nope.csv", &mut files);
        assert_eq!(
            missing.stderr_lossy(),
            "couldn't open the csv file: open nope.csv: no such file or directory\n"
        );
    }

    #[test]
    fn an_import_whose_later_rows_fail_names_the_first_failed_row() {
        let mut db = Instance::default();
        let mut files = MemFiles::default();
        // k1 sets only cf; k2 and k3 also name the unknown family nofam.
        files.insert("d.csv", ",cf,nofam\n,q,q\nk1,1,\nk2,2,x\nk3,3,y\n");
        exec_line(&mut db, "createtable t families=cf", &mut files)
            .status
            .unwrap();
        let out = exec_line(&mut db, "import t d.csv", &mut files);
        assert_eq!(out.exit_code(), 1);
        let stderr = out.stderr_lossy();
        assert!(!stderr.contains("<nil>"), "{stderr}");
        assert!(
            stderr.contains(
                "error: applying bulk mutations: 2 of the batch's 3 rows failed (the others \
                 were written); the first is row 'k2': rpc error: code = NotFound desc = \
                 mutation 1: column family \"nofam\" does not exist in this table"
            ),
            "{stderr}"
        );
        // The row that was fine is kept; the failed rows are untouched.
        let read = run_line(&mut db, "read t").unwrap();
        assert!(read.contains("k1") && !read.contains("k2"), "{read}");
    }

    /// The server's wording comes from the core's structured causes, so
    /// each message here is the one the differential suite checks.
    #[test]
    fn errors_are_worded_as_the_server_words_them() {
        let mut db = Instance::default();
        let err =
            |db: &mut Instance, line: &str| run_line(db, line).unwrap_err().message().to_string();
        run_line(&mut db, "createtable t families=cf").unwrap();
        let table = "projects/tabletop/instances/playground/tables";
        for (line, want) in [
            (
                "read nope".to_string(),
                format!("Reading rows: rpc error: code = NotFound desc = table \"{table}/nope\" not found"),
            ),
            (
                "createtable t".to_string(),
                format!("Creating table: rpc error: code = AlreadyExists desc = table \"{table}/t\" already exists"),
            ),
            (
                "createfamily t cf".to_string(),
                "Creating column family: rpc error: code = AlreadyExists desc = family \"cf\" already exists".to_string(),
            ),
            (
                "setgcpolicy t nofam maxversions=1".to_string(),
                "Setting GC policy: rpc error: code = NotFound desc = column family \"nofam\" does not exist in this table".to_string(),
            ),
        ] {
            assert_eq!(err(&mut db, &line), want, "{line}");
        }
    }

    #[test]
    fn only_a_refused_global_flag_is_a_flag_error() {
        let mut db = Instance::default();
        for (line, flag) in [
            ("-bogus ls", true),
            ("-project", true),
            ("-o x ls", false),
            ("nope", false),
        ] {
            let out = exec_line(&mut db, line, &mut NoHost);
            assert!(out.status.is_err(), "{line}");
            assert_eq!(out.flag_error, flag, "{line}");
        }
    }

    #[test]
    fn a_line_ending_inside_a_quote_is_unterminated() {
        use tabletop_store::Cause;
        for line in ["set t 'abc", "set t \"abc", "set t $'abc", "set t $'abc\\"] {
            let e = tokenize(line).unwrap_err();
            assert_eq!(e.cause(), Some(&Cause::Unterminated), "{line}");
        }
        assert_eq!(tokenize("ls | wc").unwrap_err().cause(), None);
    }
}
