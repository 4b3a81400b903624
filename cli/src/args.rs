//! The command line: which subcommand runs, with which options. Parsing
//! only checks what the user typed; nothing is opened or run here.
//!
//! Options follow the style of `cbt` (Go's flag package), because people
//! paste `cbt` command lines: one or two dashes, `-name value` or
//! `-name=value`. Tabletop's options may stand before the subcommand or
//! right after it; after `cbt` they mix with `cbt`'s own global flags.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

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
    /// `tabletop lint SCENARIO.toml [--json] [--strict] [--simulate]`: the
    /// advisor's findings on a design.
    Lint {
        scenario: PathBuf,
        json: bool,
        strict: bool,
        simulate: bool,
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

/// An option as typed: its name without dashes and its `=value`, if any.
pub(crate) struct Flag {
    pub(crate) name: String,
    pub(crate) inline: Option<OsString>,
}

/// Reads `-name`, `--name`, `-name=value`; `None` for words that are not
/// options (`-` alone and `--` included).
pub(crate) fn flag(arg: &OsStr) -> Option<Flag> {
    let bytes = os_bytes(arg);
    if bytes.len() < 2 || bytes[0] != b'-' || bytes == b"--" {
        return None;
    }
    let body = bytes.strip_prefix(b"--").unwrap_or(&bytes[1..]);
    let (name, inline) = match body.iter().position(|&b| b == b'=') {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    Some(Flag {
        name: String::from_utf8_lossy(name).into_owned(),
        inline: inline.map(|v| bytes_to_os(v.to_vec())),
    })
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

/// How an option of Tabletop's own was consumed.
pub(crate) enum Taken {
    /// It was one of ours and has been applied.
    Ours,
    /// `-h` / `--help`.
    Help,
    /// Not one of ours.
    Other,
}

/// Applies one of Tabletop's shared options, taking its value from
/// `inline` or from `rest` (advancing `i`).
pub(crate) fn take_option(
    f: &Flag,
    args: &[OsString],
    i: &mut usize,
    options: &mut Options,
) -> Result<Taken, String> {
    let mut value = |what: &str| -> Result<OsString, String> {
        if let Some(v) = &f.inline {
            return Ok(v.clone());
        }
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| format!("option '-{}' needs a value ({what})", f.name))
    };
    let text = |v: OsString, name: &str| -> Result<String, String> {
        let s = v
            .into_string()
            .map_err(|_| format!("the value of '-{name}' is not valid UTF-8"))?;
        if s.is_empty() {
            return Err(format!("the value of '-{name}' must not be empty"));
        }
        Ok(s)
    };
    match f.name.as_str() {
        "h" | "help" => Ok(Taken::Help),
        "state" => {
            let v = value("a file name")?;
            if v.is_empty() {
                return Err("the value of '--state' must not be empty".into());
            }
            options.state = Some(PathBuf::from(v));
            Ok(Taken::Ours)
        }
        "progress" => {
            options.progress = match &f.inline {
                None => Progress::Every(DEFAULT_PROGRESS_ROWS),
                Some(v) => match v.to_str().and_then(|s| s.parse::<usize>().ok()) {
                    Some(n) if n > 0 => Progress::Every(n),
                    _ => {
                        return Err(format!(
                            "--progress={}: want a number of rows greater than 0",
                            v.to_string_lossy()
                        ));
                    }
                },
            };
            Ok(Taken::Ours)
        }
        "no-progress" if f.inline.is_none() => {
            options.progress = Progress::Off;
            Ok(Taken::Ours)
        }
        "project" => {
            options.project = Some(text(value("a project id")?, "project")?);
            Ok(Taken::Ours)
        }
        "instance" => {
            options.instance = Some(text(value("an instance id")?, "instance")?);
            Ok(Taken::Ours)
        }
        _ => Ok(Taken::Other),
    }
}

/// Parses the arguments after the program name.
pub fn parse(args: Vec<OsString>) -> Invocation {
    match parse_inner(&args) {
        Ok(inv) => inv,
        Err(message) => Invocation::Error(message),
    }
}

fn parse_inner(args: &[OsString]) -> Result<Invocation, String> {
    let mut options = Options::default();
    let mut i = 0;
    // Options before the subcommand.
    while i < args.len() {
        let Some(f) = flag(&args[i]) else { break };
        match f.name.as_str() {
            "V" | "version" if f.inline.is_none() => return Ok(Invocation::Version),
            _ => {}
        }
        match take_option(&f, args, &mut i, &mut options)? {
            Taken::Ours => {}
            Taken::Help => return Ok(Invocation::Help(None)),
            Taken::Other => {
                return Err(format!("unknown option '{}'", args[i].to_string_lossy()));
            }
        }
        i += 1;
    }
    if args.get(i).is_some_and(|a| a == "--") {
        i += 1;
    }
    let Some(word) = args.get(i) else {
        return Ok(Invocation::Help(None));
    };
    let word = word.to_string_lossy().into_owned();
    let rest = &args[i + 1..];
    match word.as_str() {
        "help" => parse_help(rest),
        "cbt" => parse_cbt(rest, options),
        "json" => parse_json(rest, options),
        "sim" => parse_sim(rest),
        "lint" => parse_lint(rest),
        "export" => Ok(Invocation::Export {
            options,
            args: rest.to_vec(),
        }),
        "translate" => Ok(Invocation::Translate {
            options,
            args: rest.to_vec(),
        }),
        "sql" => Ok(Invocation::Sql {
            options,
            args: rest.to_vec(),
        }),
        _ => match PLANNED.iter().find(|(name, _)| *name == word) {
            Some((name, _)) => Err(format!(
                "the '{name}' subcommand is not available yet: it is planned but not written"
            )),
            None => Err(format!("unknown subcommand '{word}'")),
        },
    }
}

fn parse_help(rest: &[OsString]) -> Result<Invocation, String> {
    match rest {
        [] => Ok(Invocation::Help(None)),
        [topic] if topic == "-h" || topic == "--help" => Ok(Invocation::Help(Some(Topic::Help))),
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
    let mut i = 0;
    while i < rest.len() {
        let Some(f) = flag(&rest[i]) else {
            return Err(format!(
                "unexpected argument '{}': tabletop json reads its requests from stdin",
                rest[i].to_string_lossy()
            ));
        };
        match take_option(&f, rest, &mut i, &mut options)? {
            Taken::Ours => {}
            Taken::Help => return Ok(Invocation::Help(Some(Topic::Json))),
            Taken::Other => {
                return Err(format!(
                    "unknown option '{}' for json",
                    rest[i].to_string_lossy()
                ));
            }
        }
        i += 1;
    }
    Ok(Invocation::Json { options })
}

/// After `sim`: the scenario file and `--json`. The shared options have
/// no effect on a simulation (it keeps no state), so they are refused
/// here rather than ignored.
fn parse_sim(rest: &[OsString]) -> Result<Invocation, String> {
    let (scenario, flags) = parse_scenario_args("sim", &["json"], rest)?;
    Ok(match scenario {
        None => Invocation::Help(Some(Topic::Sim)),
        Some(scenario) => Invocation::Sim {
            scenario,
            json: flags[0],
        },
    })
}

/// After `lint`: the scenario file and the flags `--json`, `--strict`
/// (warnings fail too) and `--simulate` (run the scenario and let the
/// advisor use what it shows).
fn parse_lint(rest: &[OsString]) -> Result<Invocation, String> {
    let (scenario, flags) = parse_scenario_args("lint", &["json", "strict", "simulate"], rest)?;
    Ok(match scenario {
        None => Invocation::Help(Some(Topic::Lint)),
        Some(scenario) => Invocation::Lint {
            scenario,
            json: flags[0],
            strict: flags[1],
            simulate: flags[2],
        },
    })
}

/// The arguments of a command that reads one scenario file and takes some
/// boolean flags: returns the file (`None` when help was asked for) and
/// which of `flags` were given, in their order.
fn parse_scenario_args(
    command: &str,
    flags: &[&str],
    rest: &[OsString],
) -> Result<(Option<PathBuf>, Vec<bool>), String> {
    let mut scenario: Option<PathBuf> = None;
    let mut given = vec![false; flags.len()];
    let mut only_files = false;
    for arg in rest {
        if !only_files && arg == "--" {
            only_files = true;
            continue;
        }
        if !only_files && let Some(f) = flag(arg) {
            if matches!(f.name.as_str(), "h" | "help") {
                return Ok((None, given));
            }
            match flags.iter().position(|&name| name == f.name) {
                Some(i) if f.inline.is_none() => given[i] = true,
                _ => {
                    return Err(format!(
                        "unknown option '{}' for {command}",
                        arg.to_string_lossy()
                    ));
                }
            }
            continue;
        }
        if scenario.is_some() {
            return Err(format!(
                "unexpected argument '{}': tabletop {command} takes one scenario file",
                arg.to_string_lossy()
            ));
        }
        scenario = Some(PathBuf::from(arg));
    }
    match scenario {
        Some(scenario) => Ok((Some(scenario), given)),
        None => Err(format!(
            "tabletop {command} needs a scenario file (SCENARIO.toml, or - for stdin)"
        )),
    }
}

/// After `cbt`: Tabletop's options and `cbt`'s global flags, in any order,
/// up to the command word, as Go's flag package reads them.
fn parse_cbt(rest: &[OsString], mut options: Options) -> Result<Invocation, String> {
    let mut pass: Vec<Vec<u8>> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == "--" {
            i += 1;
            break;
        }
        let Some(f) = flag(&rest[i]) else { break };
        match take_option(&f, rest, &mut i, &mut options)? {
            Taken::Ours => i += 1,
            Taken::Help => return Ok(Invocation::Help(Some(Topic::Cbt))),
            Taken::Other if CBT_VALUE_FLAGS.contains(&f.name.as_str()) => {
                pass.push(os_bytes(&rest[i]));
                if f.inline.is_none()
                    && let Some(v) = rest.get(i + 1)
                {
                    pass.push(os_bytes(v));
                    i += 1;
                }
                i += 1;
            }
            // A flag cbt does not define: the interpreter reports it in
            // cbt's words (and the exit status is 2, as Go's flag package
            // gives).
            Taken::Other => break,
        }
    }
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
fn cbt_command_index(args: &[Vec<u8>]) -> Option<usize> {
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
