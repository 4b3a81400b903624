//! The command line: which subcommand runs, with which options. Parsing
//! only checks what the user typed; nothing is opened or run here.
//!
//! The grammar is clap's (derive): [`Cli`] for what comes before the
//! subcommand, [`Shared`] for the options every stateful subcommand takes,
//! and one parser per subcommand next to the code that runs it
//! (`export_cmd`, `translate_cmd`, `sql_cmd`, and [`JsonArgs`],
//! [`SimArgs`], [`LintArgs`] here). [`completion_command`] assembles them
//! into one tree for `tabletop completions bash|zsh|fish`.
//!
//! Two habits of `cbt` are kept on top of clap, because people paste `cbt`
//! command lines: options may be written Go-style with one dash
//! (`-project p`, `-state=f`), which [`normalize`] turns into clap's
//! `--project p` before parsing; and after `cbt`, Tabletop's options mix
//! with `cbt`'s own global flags up to the command word, whose words then
//! go to the interpreter untouched ([`parse_cbt`]): clap cannot interleave
//! another program's flags with its own, so that one loop stays by hand,
//! reading which of our options take a value from [`Shared`]'s clap
//! definition.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, CommandFactory, Parser, Subcommand};

/// Rows between two progress lines of `import` when `--progress` gives no
/// number.
pub const DEFAULT_PROGRESS_ROWS: usize = 100_000;

/// Whether `import` reports its progress on stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Progress {
    /// Only when stderr is a terminal.
    #[default]
    Auto,
    /// Always, every so many rows.
    Every(usize),
    /// Never.
    Off,
}

/// The options every subcommand shares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `--state FILE`.
    pub state: Option<PathBuf>,
    /// `--progress[=ROWS]` / `--no-progress`.
    pub progress: Progress,
    /// `-project ID`.
    pub project: Option<String>,
    /// `-instance ID`.
    pub instance: Option<String>,
    /// `--emulator-parity`: answer as Google's emulator does where it
    /// differs from production Bigtable.
    pub emulator_parity: bool,
}

impl Options {
    /// The state file this run uses (see [`crate::state::path`]).
    pub fn state_path(&self) -> PathBuf {
        crate::state::path(self.state.as_deref())
    }

    /// The instance names `-project` / `-instance` give.
    pub fn names(&self) -> crate::state::Names<'_> {
        crate::state::Names {
            project: self.project.as_deref(),
            instance: self.instance.as_deref(),
        }
    }
}

/// Subjects of `tabletop help <topic>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    Cbt,
    Json,
    Sim,
    Lint,
    Export,
    Translate,
    Sql,
    Keyviz,
    Serve,
    Help,
}

impl Topic {
    fn from_word(word: &str) -> Option<Topic> {
        match word {
            "cbt" => Some(Topic::Cbt),
            "json" => Some(Topic::Json),
            "sim" => Some(Topic::Sim),
            "lint" => Some(Topic::Lint),
            "export" => Some(Topic::Export),
            "translate" => Some(Topic::Translate),
            "sql" => Some(Topic::Sql),
            "keyviz" => Some(Topic::Keyviz),
            "serve" => Some(Topic::Serve),
            "help" => Some(Topic::Help),
            _ => None,
        }
    }
}

/// What the command line asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum Invocation {
    /// Print the general help, or a subcommand's.
    Help(Option<Topic>),
    /// Print the version.
    Version,
    /// Print a shell's completion script.
    Completions(clap_complete::Shell),
    /// `tabletop cbt`: run `args` as one `cbt` command, or (when `args` is
    /// empty) the commands on stdin.
    Cbt {
        options: Options,
        args: Vec<Vec<u8>>,
    },
    /// `tabletop json`: answer request lines from stdin.
    Json { options: Options },
    /// `tabletop sim SCENARIO.toml [--json]`: run a simulation scenario
    /// (`-` reads it from stdin).
    Sim { scenario: PathBuf, json: bool },
    /// `tabletop sim A.toml --vs B.toml [--json] [--out AB.html]`: two
    /// designs on one workload, compared.
    SimVs {
        a: PathBuf,
        b: PathBuf,
        json: bool,
        out: Option<PathBuf>,
    },
    /// `tabletop lint SCENARIO.toml [--json] [--strict] [--simulate]`: the
    /// advisor's findings on a design.
    Lint {
        scenario: PathBuf,
        json: bool,
        strict: bool,
        simulate: bool,
    },
    /// `tabletop keyviz ...`: the words after `keyviz` (see `keyviz_cmd`).
    Keyviz {
        options: Options,
        args: Vec<OsString>,
    },
    /// `tabletop export ...`: the words after `export` (see `export_cmd`).
    Export {
        options: Options,
        args: Vec<OsString>,
    },
    /// `tabletop translate ...`: the words after `translate` (see
    /// `translate_cmd`).
    Translate {
        options: Options,
        args: Vec<OsString>,
    },
    /// `tabletop sql ...`: the words after `sql` (see `sql_cmd`).
    Sql {
        options: Options,
        args: Vec<OsString>,
    },
    /// `tabletop serve ...`: the words after `serve` (see `serve_cmd`).
    Serve { args: Vec<OsString> },
    /// A usage error, with the message to print on stderr (exit status 2).
    Error(String),
}

/// Subcommands that are designed but not written yet. Naming them lets the
/// error say "not available yet" instead of "unknown", which is the truth.
pub const PLANNED: &[(&str, &str)] = &[];

/// `cbt`'s global flags that take a value and that Tabletop passes on to
/// the `cbt` interpreter (which accepts and ignores them; `-o` is refused
/// there with a sentence). `-project` and `-instance` are read here.
const CBT_VALUE_FLAGS: &[&str] = &[
    "creds",
    "admin-endpoint",
    "data-endpoint",
    "auth-token",
    "timeout",
    "user-agent",
    "access-token",
    "cert-file",
    "o",
];

/// The bytes of a command-line argument. On Unix an argument is any bytes
/// (`cbt` takes binary row keys this way); elsewhere it is text.
pub fn os_bytes(arg: &OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        arg.as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        arg.to_string_lossy().into_owned().into_bytes()
    }
}

fn bytes_to_os(bytes: Vec<u8>) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(bytes)
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}

// ------------------------------------------------------------------ grammar

/// A project or instance id: not empty (`-project=` is a mistake, not a
/// name), and nothing a resource name cannot hold
/// ([`tabletop_core::validate_resource_id`]).
fn non_empty(name: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone {
    move |s: &str| {
        if s.is_empty() {
            return Err(format!("the value of '-{name}' must not be empty"));
        }
        tabletop_core::validate_resource_id(name, s)
            .map(|()| s.to_string())
            .map_err(|e| e.message().to_string())
    }
}

fn state_path(s: &str) -> Result<PathBuf, String> {
    if s.is_empty() {
        return Err("the value of '--state' must not be empty".into());
    }
    Ok(PathBuf::from(s))
}

fn progress_rows(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "--progress={s}: want a number of rows greater than 0"
        )),
    }
}

/// The options every stateful subcommand takes, before the subcommand or
/// right after it.
#[derive(Args, Clone, Debug, Default)]
pub struct Shared {
    /// The state file holding the instance [default: $TABLETOP_STATE, else
    /// ./tabletop.state]
    #[arg(long, value_name = "FILE", value_parser = state_path)]
    state: Option<PathBuf>,
    /// Report import progress on stderr every ROWS rows (default 100000)
    #[arg(long, value_name = "ROWS", num_args = 0..=1, require_equals = true,
          default_missing_value = "100000", value_parser = progress_rows)]
    progress: Option<usize>,
    /// No progress lines, even on a terminal
    #[arg(long = "no-progress")]
    no_progress: bool,
    /// Project id of the instance to use (the last one given counts, as
    /// with cbt)
    #[arg(long, value_name = "ID", value_parser = non_empty("project"), overrides_with = "project")]
    project: Option<String>,
    /// Instance id of the instance to use (the last one given counts)
    #[arg(long, value_name = "ID", value_parser = non_empty("instance"), overrides_with = "instance")]
    instance: Option<String>,
    /// Answer as Google's Bigtable emulator does where it differs from
    /// production Bigtable
    #[arg(long = "emulator-parity")]
    emulator_parity: bool,
}

impl Shared {
    /// Applies what was given over `options`.
    pub fn apply(self, options: &mut Options) {
        if self.state.is_some() {
            options.state = self.state;
        }
        if let Some(n) = self.progress {
            options.progress = Progress::Every(n);
        }
        if self.no_progress {
            options.progress = Progress::Off;
        }
        if self.project.is_some() {
            options.project = self.project;
        }
        if self.instance.is_some() {
            options.instance = self.instance;
        }
        options.emulator_parity |= self.emulator_parity;
    }
}

/// What comes before the subcommand.
#[derive(Parser, Debug)]
#[command(
    name = "tabletop",
    disable_help_flag = true,
    disable_version_flag = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(flatten)]
    shared: Shared,
    /// Print help
    #[arg(short = 'h', long = "help")]
    help: bool,
    /// Print the version
    #[arg(short = 'V', long = "version")]
    version: bool,
    #[command(subcommand)]
    command: Option<Sub>,
}

/// The subcommands; each takes its words raw, for its own parser.
#[derive(Subcommand, Debug)]
enum Sub {
    /// Run cbt commands: one from the arguments, or a script on stdin
    Cbt(Words),
    /// Answer Bigtable REST JSON requests, one per line on stdin
    Json(Words),
    /// Simulate a workload on a row-key design; print the report
    Sim(Words),
    /// Check a design against Bigtable's schema best practices
    Lint(Words),
    /// Turn a DynamoDB or Oracle NoSQL design into a Bigtable one
    Translate(Words),
    /// Write tables out as cbt, gcloud or Terraform for real Bigtable
    Export(Words),
    /// Run GoogleSQL queries, EXPLAIN, materialized views, row key schemas
    Sql(Words),
    /// Print the live Key Visualizer of the traffic the state recorded
    Keyviz(Words),
    /// Serve Bigtable's gRPC APIs for cbt and the client libraries
    Serve(Words),
    /// Print this help, or a command's (tabletop help cbt)
    Help(Words),
    /// Print a completion script for a shell (bash, zsh, fish, ...)
    Completions(CompletionsArgs),
}

/// A subcommand's words, as typed.
#[derive(Args, Debug)]
struct Words {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    words: Vec<OsString>,
}

/// `tabletop completions SHELL`.
#[derive(Args, Debug)]
struct CompletionsArgs {
    /// The shell
    shell: clap_complete::Shell,
}

/// `tabletop json [OPTIONS]`.
#[derive(Parser, Debug)]
#[command(name = "json", disable_help_flag = true)]
pub struct JsonArgs {
    #[command(flatten)]
    shared: Shared,
    /// Print help
    #[arg(short = 'h', long = "help")]
    help: bool,
    /// Requests come from stdin, never from the command line.
    #[arg(hide = true)]
    unexpected: Vec<OsString>,
}

/// `tabletop sim [--json] SCENARIO.toml [--vs B.toml] [--out AB.html]`.
#[derive(Parser, Debug)]
#[command(name = "sim", disable_help_flag = true)]
pub struct SimArgs {
    /// Print the report as JSON instead of text
    #[arg(long)]
    json: bool,
    /// Compare with a second design on the same workload (A/B)
    #[arg(long, value_name = "B.toml")]
    vs: Option<PathBuf>,
    /// With --vs: also write both heatmaps to a self-contained HTML page
    #[arg(long, value_name = "AB.html")]
    out: Option<PathBuf>,
    /// Print help
    #[arg(short = 'h', long = "help")]
    help: bool,
    /// The scenario file (- reads stdin)
    #[arg(value_name = "SCENARIO.toml")]
    scenario: Vec<PathBuf>,
}

/// `tabletop lint [--json] [--strict] [--simulate] SCENARIO.toml`.
#[derive(Parser, Debug)]
#[command(name = "lint", disable_help_flag = true)]
pub struct LintArgs {
    /// Print the findings as JSON
    #[arg(long)]
    json: bool,
    /// Fail on warnings too, not only on errors
    #[arg(long)]
    strict: bool,
    /// Run the scenario's workload first and use what it shows as evidence
    #[arg(long)]
    simulate: bool,
    /// Print help
    #[arg(short = 'h', long = "help")]
    help: bool,
    /// The scenario file (- reads stdin)
    #[arg(value_name = "SCENARIO.toml")]
    scenario: Vec<PathBuf>,
}

/// The whole command tree, for completion scripts: the top level with
/// every subcommand's own parser.
#[must_use]
pub fn completion_command() -> clap::Command {
    let words = |name: &'static str, sub: clap::Command| sub.name(name);
    let mut top = Cli::command();
    let subs: Vec<clap::Command> = top.get_subcommands().cloned().collect();
    for s in subs {
        let name = s.get_name().to_string();
        let full = match name.as_str() {
            "json" => words("json", JsonArgs::command()),
            "sim" => words("sim", SimArgs::command()),
            "lint" => words("lint", LintArgs::command()),
            "export" => words("export", crate::export_cmd::ExportCli::command()),
            "translate" => words("translate", crate::translate_cmd::TranslateCli::command()),
            "sql" => words("sql", crate::sql_cmd::SqlCli::command()),
            "keyviz" => words("keyviz", crate::keyviz_cmd::KeyvizCli::command()),
            "serve" => words("serve", crate::serve_cmd::ServeCli::command()),
            "cbt" => clap::Command::new("cbt")
                .about(s.get_about().cloned().unwrap_or_default())
                .args(
                    Shared::augment_args(clap::Command::new("x"))
                        .get_arguments()
                        .cloned(),
                )
                .subcommands(
                    tabletop_core::cbt::command_names()
                        .into_iter()
                        .map(clap::Command::new),
                ),
            "help" => s.clone().subcommands(
                [
                    "cbt",
                    "json",
                    "sim",
                    "lint",
                    "translate",
                    "export",
                    "sql",
                    "keyviz",
                    "serve",
                    "help",
                ]
                .into_iter()
                .map(clap::Command::new),
            ),
            _ => s.clone(),
        };
        let about = s.get_about().cloned().unwrap_or_default();
        top = top.mut_subcommand(&name, |_| full.about(about));
    }
    top
}

/// Option names that may be written Go-style, with one dash: every long
/// option of the command line.
const LONG_OPTIONS: &[&str] = &[
    "state",
    "progress",
    "no-progress",
    "project",
    "instance",
    "emulator-parity",
    "help",
    "version",
    "json",
    "strict",
    "simulate",
    "format",
    "table",
    "data",
    "splits",
    "out",
    "metric",
    "from",
    "rows",
    "time",
    "apply",
    "key-encoding",
    "layout",
    "reverse-identity",
    "host",
    "port",
    "keyviz-out",
];

/// `-name` and `-name=value` as clap reads them, `--name`, for the long
/// options above (up to a `--`); anything else is left alone.
#[must_use]
pub fn normalize(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut rest = false;
    for a in args {
        let b = os_bytes(a);
        if !rest && b == b"--" {
            rest = true;
        }
        let single = !rest && b.len() > 2 && b[0] == b'-' && b[1] != b'-';
        let name_end = b.iter().position(|&c| c == b'=').unwrap_or(b.len());
        if single && LONG_OPTIONS.iter().any(|n| n.as_bytes() == &b[1..name_end]) {
            let mut long = b"-".to_vec();
            long.extend_from_slice(&b);
            out.push(bytes_to_os(long));
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// Whether a shared option takes a value as the next word (`--state F`),
/// from [`Shared`]'s definition.
fn shared_takes_next(name: &str) -> bool {
    Shared::augment_args(clap::Command::new("shared"))
        .get_arguments()
        .find(|a| a.get_long() == Some(name))
        .is_some_and(|a| {
            a.get_action().takes_values()
                && !a.is_require_equals_set()
                && a.get_num_args().is_none_or(|n| n.min_values() > 0)
        })
}

/// Whether `name` is one of [`Shared`]'s options (or help).
fn is_shared(name: &str) -> bool {
    name == "help"
        || name == "h"
        || Shared::augment_args(clap::Command::new("shared"))
            .get_arguments()
            .any(|a| a.get_long() == Some(name))
}

/// The name of an option word (`-x`, `--name`, `-name=v`), without dashes
/// and value; `None` for words that are not options (`-` and `--`
/// included).
fn option_name(arg: &[u8]) -> Option<(String, bool)> {
    if arg.len() < 2 || arg[0] != b'-' || arg == b"--" {
        return None;
    }
    let body = arg.strip_prefix(b"--").unwrap_or(&arg[1..]);
    let (name, inline) = match body.iter().position(|&b| b == b'=') {
        Some(i) => (&body[..i], true),
        None => (body, false),
    };
    Some((String::from_utf8_lossy(name).into_owned(), inline))
}

/// The words of a clap error's offending argument, and the original word
/// it came from (`--state` of `--state=x`).
fn offending(e: &clap::Error, raw: &[OsString]) -> Option<String> {
    let arg = match e
        .get(ContextKind::InvalidArg)
        .or_else(|| e.get(ContextKind::InvalidSubcommand))
    {
        Some(ContextValue::String(s)) => s.clone(),
        _ => return None,
    };
    // clap names an option with its value placeholder (`--state <FILE>`).
    let arg = arg.split(' ').next().unwrap_or_default().to_string();
    Some(
        raw.iter()
            .map(|r| r.to_string_lossy().into_owned())
            .find(|r| r == &arg || r.starts_with(&format!("{arg}=")))
            .or_else(|| {
                // A Go-style word clap read as short flags (`-frob`).
                raw.iter()
                    .map(|r| r.to_string_lossy().into_owned())
                    .find(|r| arg.len() == 2 && r.starts_with(&arg) && !r.starts_with("--"))
            })
            .unwrap_or(arg),
    )
}

/// A clap error in the words Tabletop has always used: `unknown option
/// '--frob' for json`, `option '-state' needs a value (a file name)`, the
/// value parsers' own messages, and for a word where none fits, `extra`
/// (how the subcommand explains what it takes).
pub(crate) fn usage_message(
    e: &clap::Error,
    raw: &[OsString],
    command: Option<&str>,
    extra: &str,
) -> String {
    let for_command = command.map(|c| format!(" for {c}")).unwrap_or_default();
    let word = offending(e, raw);
    match e.kind() {
        ErrorKind::ValueValidation => {
            // Our value parsers word their errors; clap wraps them.
            use std::error::Error as _;
            e.source()
                .map_or_else(|| e.to_string(), std::string::ToString::to_string)
        }
        ErrorKind::InvalidValue if matches!(e.get(ContextKind::InvalidValue), Some(ContextValue::String(v)) if !v.is_empty()) => {
            clap_words(e)
        }
        ErrorKind::InvalidValue | ErrorKind::NoEquals => {
            let arg = word.unwrap_or_default();
            let name = arg.trim_start_matches('-').to_string();
            match name.as_str() {
                "state" => "option '-state' needs a value (a file name)".into(),
                "project" => "option '-project' needs a value (a project id)".into(),
                "instance" => "option '-instance' needs a value (an instance id)".into(),
                _ => format!("option '--{name}' needs a value"),
            }
        }
        ErrorKind::TooManyValues | ErrorKind::UnknownArgument
            if word.as_deref().is_some_and(|w| {
                w.starts_with('-') && w.contains('=') && e.kind() == ErrorKind::TooManyValues
            }) =>
        {
            let w = word.unwrap_or_default();
            let name = w
                .trim_start_matches('-')
                .split('=')
                .next()
                .unwrap_or_default();
            format!("--{name} takes no value")
        }
        ErrorKind::UnknownArgument | ErrorKind::TooManyValues => match word {
            Some(w) if w.starts_with('-') && w.len() > 1 => {
                format!("unknown option '{w}'{for_command}")
            }
            Some(w) => format!("unexpected argument '{w}'{extra}"),
            None => e.to_string(),
        },
        ErrorKind::InvalidSubcommand => {
            let w = word.unwrap_or_default();
            format!("unknown subcommand '{w}'")
        }
        _ => clap_words(e),
    }
}

/// clap's own message on one line, without its usage and hints.
fn clap_words(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let head: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    head.join(" ").trim_start_matches("error: ").to_string()
}

// ------------------------------------------------------------------ parse

/// Where the subcommand word is: past the options before it (and their
/// values) and a `--`.
fn subcommand_at(args: &[OsString]) -> usize {
    let mut i = 0;
    while i < args.len() {
        let b = os_bytes(&args[i]);
        if b == b"--" {
            return i + 1;
        }
        match option_name(&b) {
            None => return i,
            Some((name, inline)) => {
                i += 1;
                if !inline && shared_takes_next(&name) {
                    i += 1;
                }
            }
        }
    }
    i
}

/// Parses the arguments after the program name.
pub fn parse(args: Vec<OsString>) -> Invocation {
    match parse_inner(&args) {
        Ok(inv) => inv,
        Err(message) => Invocation::Error(message),
    }
}

fn parse_inner(args: &[OsString]) -> Result<Invocation, String> {
    let at = subcommand_at(args).min(args.len());
    let mut words: Vec<OsString> = vec!["tabletop".into()];
    words.extend(normalize(&args[..at]));
    // `--` before the subcommand only ends the options.
    if words.last().is_some_and(|w| w == "--") {
        words.pop();
    }
    if let Some(word) = args.get(at) {
        let w = word.to_string_lossy();
        if let Some((name, _)) = PLANNED.iter().find(|(name, _)| *name == w) {
            return Err(format!(
                "the '{name}' subcommand is not available yet: it is planned but not written"
            ));
        }
        words.push(word.clone());
        // The subcommand's words go to its own parser untouched.
        words.push("--".into());
        words.extend(args[at + 1..].iter().cloned());
    }
    let cli = Cli::try_parse_from(&words).map_err(|e| usage_message(&e, args, None, ""))?;
    if cli.version && cli.command.is_none() {
        return Ok(Invocation::Version);
    }
    if cli.help {
        return Ok(Invocation::Help(None));
    }
    let mut options = Options::default();
    cli.shared.apply(&mut options);
    let Some(command) = cli.command else {
        return Ok(Invocation::Help(None));
    };
    Ok(match command {
        Sub::Help(w) => parse_help(&w.words)?,
        Sub::Cbt(w) => parse_cbt(&w.words, options)?,
        Sub::Json(w) => parse_json(&w.words, options)?,
        Sub::Sim(w) => parse_sim(&w.words)?,
        Sub::Lint(w) => parse_lint(&w.words)?,
        Sub::Export(w) => Invocation::Export {
            options,
            args: w.words,
        },
        Sub::Translate(w) => Invocation::Translate {
            options,
            args: w.words,
        },
        Sub::Sql(w) => Invocation::Sql {
            options,
            args: w.words,
        },
        Sub::Keyviz(w) => Invocation::Keyviz {
            options,
            args: w.words,
        },
        Sub::Serve(w) => Invocation::Serve { args: w.words },
        Sub::Completions(c) => Invocation::Completions(c.shell),
    })
}

/// Refuses the first word a subcommand that takes options only was given
/// besides them: `unexpected argument 'WORD'` and `why`.
pub(crate) fn no_extra_words(unexpected: &[OsString], why: &str) -> Result<(), String> {
    match unexpected.first() {
        Some(w) => Err(format!(
            "unexpected argument '{}'{why}",
            w.to_string_lossy()
        )),
        None => Ok(()),
    }
}

/// Parses a subcommand's words with its clap parser (Go-style options
/// allowed), or says what is wrong in Tabletop's words.
pub(crate) fn parse_words<T: Parser>(
    name: &str,
    words: &[OsString],
    extra: &str,
) -> Result<T, String> {
    let mut argv: Vec<OsString> = vec![name.into()];
    argv.extend(normalize(words));
    let matches = T::command()
        .try_get_matches_from(&argv)
        .map_err(|e| usage_message(&e, words, Some(name), extra))?;
    T::from_arg_matches(&matches).map_err(|e| usage_message(&e, words, Some(name), extra))
}

fn parse_help(rest: &[OsString]) -> Result<Invocation, String> {
    match rest {
        [] => Ok(Invocation::Help(None)),
        [topic] if topic == "-h" || topic == "--help" || topic == "-help" => {
            Ok(Invocation::Help(Some(Topic::Help)))
        }
        [topic] => {
            let word = topic.to_string_lossy();
            match Topic::from_word(&word) {
                Some(t) => Ok(Invocation::Help(Some(t))),
                None if PLANNED.iter().any(|(n, _)| *n == word) => Err(format!(
                    "the '{word}' subcommand is not available yet: it is planned but not written"
                )),
                None => Err(format!("no help for '{word}': there is no such subcommand")),
            }
        }
        [_, extra, ..] => Err(format!(
            "unexpected argument '{}' after 'help <command>'",
            extra.to_string_lossy()
        )),
    }
}

fn parse_json(rest: &[OsString], mut options: Options) -> Result<Invocation, String> {
    let reads_stdin = ": tabletop json reads its requests from stdin";
    let a: JsonArgs = parse_words("json", rest, reads_stdin)?;
    if a.help {
        return Ok(Invocation::Help(Some(Topic::Json)));
    }
    no_extra_words(&a.unexpected, reads_stdin)?;
    a.shared.apply(&mut options);
    Ok(Invocation::Json { options })
}

/// One scenario file out of the words given, or why not.
fn one_scenario(command: &str, files: Vec<PathBuf>) -> Result<PathBuf, String> {
    let mut files = files.into_iter();
    let Some(first) = files.next() else {
        return Err(format!(
            "tabletop {command} needs a scenario file (SCENARIO.toml, or - for stdin)"
        ));
    };
    if let Some(second) = files.next() {
        return Err(format!(
            "unexpected argument '{}': tabletop {command} takes one scenario file",
            second.display()
        ));
    }
    Ok(first)
}

/// After `sim`: the scenario file and `--json`. The shared options have
/// no effect on a simulation (it keeps no state), so they are refused
/// here rather than ignored.
fn parse_sim(rest: &[OsString]) -> Result<Invocation, String> {
    let a: SimArgs = parse_words("sim", rest, ": tabletop sim takes one scenario file")?;
    if a.help {
        return Ok(Invocation::Help(Some(Topic::Sim)));
    }
    let scenario = one_scenario("sim", a.scenario)?;
    if let Some(b) = a.vs {
        if scenario.as_os_str() == "-" && b.as_os_str() == "-" {
            return Err(
                "tabletop sim --vs: only one of the two designs can come from stdin".into(),
            );
        }
        if let Some(out) = &a.out
            && !out
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("html") || x.eq_ignore_ascii_case("htm"))
        {
            return Err(format!(
                "--out {}: the file name must end in .html",
                out.display()
            ));
        }
        return Ok(Invocation::SimVs {
            a: scenario,
            b,
            json: a.json,
            out: a.out,
        });
    }
    if a.out.is_some() {
        return Err("tabletop sim: --out writes an A/B page and needs --vs B.toml".into());
    }
    Ok(Invocation::Sim {
        scenario,
        json: a.json,
    })
}

/// After `lint`: the scenario file and the flags `--json`, `--strict`
/// (warnings fail too) and `--simulate` (run the scenario and let the
/// advisor use what it shows).
fn parse_lint(rest: &[OsString]) -> Result<Invocation, String> {
    let a: LintArgs = parse_words("lint", rest, ": tabletop lint takes one scenario file")?;
    if a.help {
        return Ok(Invocation::Help(Some(Topic::Lint)));
    }
    Ok(Invocation::Lint {
        scenario: one_scenario("lint", a.scenario)?,
        json: a.json,
        strict: a.strict,
        simulate: a.simulate,
    })
}

/// After `cbt`: Tabletop's options and `cbt`'s global flags, in any order,
/// up to the command word, as Go's flag package reads them. Ours are
/// parsed by [`Shared`]; cbt's pass through to the interpreter.
fn parse_cbt(rest: &[OsString], mut options: Options) -> Result<Invocation, String> {
    let mut ours: Vec<OsString> = Vec::new();
    let mut pass: Vec<Vec<u8>> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == "--" {
            i += 1;
            break;
        }
        let b = os_bytes(&rest[i]);
        let Some((name, inline)) = option_name(&b) else {
            break;
        };
        if name == "h" || name == "help" {
            return Ok(Invocation::Help(Some(Topic::Cbt)));
        }
        if is_shared(&name) {
            ours.push(rest[i].clone());
            if !inline && shared_takes_next(&name) {
                match rest.get(i + 1) {
                    Some(v) => ours.push(v.clone()),
                    None => {
                        return Err(format!(
                            "option '-{name}' needs a value ({})",
                            match name.as_str() {
                                "state" => "a file name",
                                "project" => "a project id",
                                _ => "an instance id",
                            }
                        ));
                    }
                }
                i += 1;
            }
            i += 1;
        } else if CBT_VALUE_FLAGS.contains(&name.as_str()) {
            pass.push(b);
            if !inline && let Some(v) = rest.get(i + 1) {
                pass.push(os_bytes(v));
                i += 1;
            }
            i += 1;
        } else {
            // A flag cbt does not define: the interpreter reports it in
            // cbt's words (and the exit status is 2, as Go's flag package
            // gives).
            break;
        }
    }
    #[derive(Parser)]
    #[command(name = "cbt")]
    struct Ours {
        #[command(flatten)]
        shared: Shared,
    }
    let parsed: Ours = parse_words("cbt", &ours, "")?;
    parsed.shared.apply(&mut options);
    if i >= rest.len() {
        // No command: a script on stdin. Passed-on flags have no effect
        // there (the interpreter ignores them anyway).
        return Ok(Invocation::Cbt {
            options,
            args: Vec::new(),
        });
    }
    pass.extend(rest[i..].iter().map(|a| os_bytes(a)));
    Ok(Invocation::Cbt {
        options,
        args: pass,
    })
}

/// Where the command word of `cbt` arguments is (after a leading `cbt`
/// and global flags), as the interpreter finds it.
pub fn cbt_command_index(args: &[Vec<u8>]) -> Option<usize> {
    let mut i = 0;
    if args.first().is_some_and(|a| a == b"cbt") {
        i = 1;
    }
    while i < args.len() {
        let a = &args[i];
        if a == b"--" {
            i += 1;
            break;
        }
        if a.len() < 2 || a[0] != b'-' {
            break;
        }
        if a.contains(&b'=') {
            i += 1;
        } else {
            i += 2;
        }
    }
    (i < args.len()).then_some(i)
}

/// Whether a `cbt` command that succeeded may have changed the instance,
/// so the state file must be saved. Only commands known to read are
/// excluded.
pub fn cbt_changes_state(args: &[Vec<u8>]) -> bool {
    let Some(i) = cbt_command_index(args) else {
        return false;
    };
    match args[i].as_slice() {
        b"ls" | b"read" | b"lookup" | b"count" | b"help" | b"version" => false,
        // `clock` alone prints the time; with an argument it moves it.
        b"clock" => i + 1 < args.len(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Invocation {
        parse(args.iter().map(OsString::from).collect())
    }

    fn cbt_args(inv: &Invocation) -> Vec<String> {
        match inv {
            Invocation::Cbt { args, .. } => args
                .iter()
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect(),
            other => panic!("not cbt: {other:?}"),
        }
    }

    #[test]
    fn no_arguments_means_help() {
        assert_eq!(parse_strs(&[]), Invocation::Help(None));
    }

    #[test]
    fn help_and_version_spellings() {
        for help in ["-h", "--help", "help", "-help"] {
            assert_eq!(parse_strs(&[help]), Invocation::Help(None), "{help}");
        }
        for version in ["-V", "--version"] {
            assert_eq!(parse_strs(&[version]), Invocation::Version, "{version}");
        }
        assert_eq!(
            parse_strs(&["help", "cbt"]),
            Invocation::Help(Some(Topic::Cbt))
        );
        assert_eq!(
            parse_strs(&["json", "--help"]),
            Invocation::Help(Some(Topic::Json))
        );
        assert_eq!(
            parse_strs(&["cbt", "-h"]),
            Invocation::Help(Some(Topic::Cbt))
        );
        assert_eq!(
            parse_strs(&["help", "help"]),
            Invocation::Help(Some(Topic::Help))
        );
        assert_eq!(
            parse_strs(&["sim", "--help"]),
            Invocation::Help(Some(Topic::Sim))
        );
    }

    #[test]
    fn options_go_before_or_after_the_subcommand() {
        let inv = parse_strs(&[
            "--state",
            "a.state",
            "-project=p",
            "cbt",
            "-instance",
            "i",
            "ls",
        ]);
        let Invocation::Cbt { options, args } = &inv else {
            panic!("{inv:?}")
        };
        assert_eq!(options.state, Some(PathBuf::from("a.state")));
        assert_eq!(options.project.as_deref(), Some("p"));
        assert_eq!(options.instance.as_deref(), Some("i"));
        assert_eq!(args, &vec![b"ls".to_vec()]);
        let inv = parse_strs(&["json", "--state=b.state", "--progress=5"]);
        let Invocation::Json { options } = inv else {
            panic!()
        };
        assert_eq!(options.state, Some(PathBuf::from("b.state")));
        assert_eq!(options.progress, Progress::Every(5));
    }

    #[test]
    fn cbt_flags_pass_through_and_the_command_keeps_its_words() {
        let inv = parse_strs(&[
            "cbt",
            "-timeout",
            "10s",
            "--progress",
            "read",
            "t",
            "--state",
        ]);
        assert_eq!(cbt_args(&inv), ["-timeout", "10s", "read", "t", "--state"]);
        let inv = parse_strs(&["cbt", "-nosuch", "ls"]);
        assert_eq!(cbt_args(&inv), ["-nosuch", "ls"]);
        let inv = parse_strs(&["cbt", "--", "ls"]);
        assert_eq!(cbt_args(&inv), ["ls"]);
        assert_eq!(
            cbt_args(&parse_strs(&["cbt", "-project", "p"])),
            Vec::<String>::new()
        );
    }

    #[test]
    fn usage_errors() {
        let err = |args: &[&str]| match parse_strs(args) {
            Invocation::Error(m) => m,
            other => panic!("{args:?} gave {other:?}"),
        };
        assert_eq!(err(&["frobnicate"]), "unknown subcommand 'frobnicate'");
        assert_eq!(err(&["--frob"]), "unknown option '--frob'");
        assert!(err(&["--state"]).contains("needs a value"));
        assert!(err(&["json", "x"]).contains("reads its requests from stdin"));
        assert!(err(&["json", "--nope"]).contains("unknown option '--nope' for json"));
        assert!(err(&["help", "nope"]).contains("no such subcommand"));
        assert!(err(&["--progress=0", "cbt"]).contains("greater than 0"));
        assert!(err(&["-project=", "cbt"]).contains("must not be empty"));
        assert!(err(&["sim"]).contains("needs a scenario file"));
        assert!(err(&["sim", "a.toml", "b.toml"]).contains("one scenario file"));
        assert!(
            err(&["sim", "--state=x", "a.toml"]).contains("unknown option '--state=x' for sim")
        );
        for (name, _) in PLANNED {
            assert!(err(&[name]).contains("not available yet"), "{name}");
        }
    }

    #[test]
    fn sim_vs_takes_a_second_design() {
        assert_eq!(
            parse_strs(&[
                "sim", "a.toml", "--vs", "b.toml", "--json", "--out", "ab.html"
            ]),
            Invocation::SimVs {
                a: PathBuf::from("a.toml"),
                b: PathBuf::from("b.toml"),
                json: true,
                out: Some(PathBuf::from("ab.html")),
            }
        );
        let err = |args: &[&str]| match parse_strs(args) {
            Invocation::Error(m) => m,
            other => panic!("{args:?} gave {other:?}"),
        };
        assert!(err(&["sim", "a.toml", "--out", "ab.html"]).contains("needs --vs"));
        assert!(err(&["sim", "a.toml", "--vs", "b.toml", "--out", "ab.png"]).contains(".html"));
        assert!(err(&["sim", "-", "--vs", "-"]).contains("only one"));
    }

    #[test]
    fn sim_takes_a_file_and_json() {
        assert_eq!(
            parse_strs(&["sim", "s.toml", "--json"]),
            Invocation::Sim {
                scenario: PathBuf::from("s.toml"),
                json: true
            }
        );
        assert_eq!(
            parse_strs(&["sim", "--", "-"]),
            Invocation::Sim {
                scenario: PathBuf::from("-"),
                json: false
            }
        );
    }

    #[test]
    fn write_commands_are_recognised() {
        let v = |words: &[&str]| -> Vec<Vec<u8>> {
            words.iter().map(|w| w.as_bytes().to_vec()).collect()
        };
        assert!(cbt_changes_state(&v(&["set", "t", "r", "cf:a=1"])));
        assert!(cbt_changes_state(&v(&[
            "cbt",
            "-timeout",
            "1s",
            "createtable",
            "t"
        ])));
        assert!(cbt_changes_state(&v(&["clock", "1h"])));
        assert!(!cbt_changes_state(&v(&["clock"])));
        assert!(!cbt_changes_state(&v(&["-project=p", "read", "t"])));
        assert!(!cbt_changes_state(&v(&["ls"])));
        assert!(!cbt_changes_state(&v(&[])));
    }
}
