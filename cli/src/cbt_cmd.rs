//! `tabletop cbt`: one `cbt` command from the arguments, or a script of
//! them from stdin, against the state file.

use std::io::{self, BufRead, IsTerminal, Write};

use tabletop_core::cbt::{self, Outcome};
use tabletop_core::{Cause, Error, Fidelity, Instances, TraceOptions, Traces};

use crate::args::{Options, Progress, cbt_changes_state, cbt_command_index};
use crate::host::{FsHost, WallClock};
use crate::state::record::{self, At, Command, Record};
use crate::state::{self, StateFile};

/// Exit status when a command failed, as `cbt` exits after `log.Fatal`.
const FAILED: u8 = 1;
/// Exit status of Go's flag package for a flag `cbt` does not define.
const FLAG_ERROR: u8 = 2;

fn progress_every(options: &Options) -> Option<usize> {
    match options.progress {
        Progress::Every(n) => Some(n),
        Progress::Off => None,
        Progress::Auto => io::stderr()
            .is_terminal()
            .then_some(crate::args::DEFAULT_PROGRESS_ROWS),
    }
}

fn load(options: &Options) -> Result<(StateFile, Instances), u8> {
    let path = options.state_path();
    let names = options.names();
    let (file, mut all) = state::open(&path, names)
        .and_then(|(file, all)| {
            file.check_fidelity(all.primary().fidelity(), options.emulator_parity)?;
            Ok((file, all))
        })
        .map_err(|message| {
            eprintln!("tabletop: {message}");
            FAILED
        })?;
    if options.emulator_parity {
        all.switch_fidelity(Fidelity::Emulator).map_err(|e| {
            eprintln!("tabletop: {}", e.message());
            FAILED
        })?;
    }
    Ok((file, all))
}

/// The instance a command works on: its own `-project` / `-instance`
/// (the last given counts, as with cbt), else the run's options.
fn instance_ids(options: &Options, args: &[Vec<u8>]) -> (Option<String>, Option<String>) {
    let (project, instance) = cbt::instance_flags(args);
    (
        project.or_else(|| options.project.clone()),
        instance.or_else(|| options.instance.clone()),
    )
}

fn names_of(ids: &(Option<String>, Option<String>)) -> state::Names<'_> {
    state::Names {
        project: ids.0.as_deref(),
        instance: ids.1.as_deref(),
    }
}

fn save(file: &mut StateFile, db: &mut Instances) -> Result<(), u8> {
    file.save(db).map_err(|e| {
        eprintln!(
            "tabletop: could not save the state file {}: {e}; it was left as it was before",
            file.path().display()
        );
        FAILED
    })
}

/// What a command that succeeded means for the state file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    /// Nothing changed (`ls`, `help`, `clock` alone).
    None,
    /// A read: it recorded traffic, which a run that saves keeps, in a
    /// snapshot.
    Read,
    /// A change the log holds.
    Log,
    /// A change only a snapshot holds (clock, import, compact).
    Snapshot,
}

fn effect(args: &[Vec<u8>]) -> Effect {
    let Some(i) = cbt_command_index(args) else {
        return Effect::None;
    };
    let word = args[i].as_slice();
    if record::cbt_logged(word) {
        Effect::Log
    } else if cbt_changes_state(args) {
        Effect::Snapshot
    } else if matches!(word, b"read" | b"lookup" | b"count") {
        Effect::Read
    } else {
        Effect::None
    }
}

/// Whether the shell decides this command: a data write the log holds
/// (a schema change the log holds runs on the whole instance, which has
/// its deletion protection and views).
fn decided_on_shell(args: &[Vec<u8>]) -> bool {
    effect(args) == Effect::Log
        && cbt_command_index(args).is_some_and(|i| record::cbt_on_shell(&args[i]))
}

/// Notes a successful command's change in the state file; returns whether
/// there is something to save. With `--emulator-parity` nothing is logged
/// (a write the emulator accepts may be one production refuses, so a
/// replay could not repeat it): the snapshot keeps it.
fn note(file: &mut StateFile, args: &[Vec<u8>], at: At, parity: bool) -> bool {
    match effect(args) {
        Effect::Log if parity => {
            file.changed();
            true
        }
        Effect::None => false,
        Effect::Read => {
            file.changed();
            false
        }
        Effect::Log => {
            file.log(&Record {
                at,
                command: Command::Cbt(args.to_vec()),
                table_notes: None,
            });
            true
        }
        Effect::Snapshot => {
            file.changed();
            true
        }
    }
}

/// With `--emulator-parity`, a failed command that writes keeps what it
/// applied (see [`note`]): marks the state changed and says so.
fn failed_write_kept(file: &mut StateFile, args: &[Vec<u8>]) -> bool {
    if matches!(effect(args), Effect::Log | Effect::Snapshot) {
        file.changed();
        return true;
    }
    false
}

/// The exit status `cbt` gives for an outcome.
fn exit_status(outcome: &Outcome) -> u8 {
    match &outcome.status {
        Ok(()) => 0,
        Err(_) if outcome.flag_error => FLAG_ERROR,
        Err(_) => FAILED,
    }
}

/// Whether the traced operations wrote any row (a failed command's
/// earlier batches).
fn wrote_rows(traces: &Traces) -> bool {
    traces
        .as_slice()
        .iter()
        .any(|t| t.operation.writes() && t.write.rows > 0)
}

/// Writes bytes, ignoring a closed pipe (`tabletop cbt read t | head`).
fn emit(w: &mut dyn Write, bytes: &[u8]) {
    let _ = w.write_all(bytes).and_then(|()| w.flush());
}

/// Runs a write the log holds on the shell of the state file (see
/// `state::shell`), without loading the snapshot, and appends its record.
/// `None`: the write must run on the whole instance instead.
fn run_on_shell(options: &Options, args: &[Vec<u8>]) -> Option<u8> {
    let path = options.state_path();
    let ids = instance_ids(options, args);
    let (mut file, mut shell, row_bound) = match state::open_shell(&path, names_of(&ids)) {
        // A file written with --emulator-parity, in a run without it.
        Ok(Some((_, shell, _))) if shell.fidelity().is_emulator() => {
            eprintln!("tabletop: {}", state::fidelity_mismatch(&path, false));
            return Some(FAILED);
        }
        Ok(Some(x)) => x,
        Ok(None) => return None,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return Some(FAILED);
        }
    };
    // The shell is the first instance's, the one the names select.
    // Engine work is left to the next run that loads the whole instance.
    WallClock::default().sync(&mut shell);
    let at = At::of(&shell, false);
    let outcome = cbt::exec_args(&mut shell, args, &mut FsHost::new(None));
    if outcome.status.is_ok() {
        note(&mut file, args, at, false);
        if !file.can_append() || !state::shell::fits_rows(&shell, row_bound) {
            return None;
        }
        // Only appends (a shell run never writes a snapshot).
        let mut one = Instances::new(shell);
        if let Err(code) = save(&mut file, &mut one) {
            return Some(code);
        }
    }
    emit(&mut io::stdout().lock(), &outcome.stdout);
    emit(&mut io::stderr().lock(), &outcome.stderr);
    Some(exit_status(&outcome))
}

/// Runs one command given as arguments. Returns the exit status.
pub fn run_once(options: &Options, args: &[Vec<u8>]) -> u8 {
    // The shell holds no authorized views: a write through one runs on the
    // whole instance.
    let through_view = args.iter().any(|a| a.starts_with(b"authorized-view="));
    if decided_on_shell(args)
        && !through_view
        && !options.emulator_parity
        && let Some(code) = run_on_shell(options, args)
    {
        return code;
    }
    let (mut file, mut all) = match load(options) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let ids = instance_ids(options, args);
    let db = match state::select(&mut all, names_of(&ids)) {
        Ok(db) => db,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return FAILED;
        }
    };
    let work = WallClock::default().sync(db);
    let at = At::of(db, work);
    let mut host = FsHost::new(progress_every(options));
    host.start_command();
    let outcome = cbt::exec_args(db, args, &mut host);
    let parity = options.emulator_parity;
    // Save before printing: what the command reports has then happened.
    // The emulator keeps what a failed write applied before it failed
    // (its writes are not atomic), so with --emulator-parity a failed
    // write is saved too.
    let keep = if outcome.status.is_ok() {
        note(&mut file, args, at, parity)
    } else {
        parity && failed_write_kept(&mut file, args)
    };
    if keep && let Err(code) = save(&mut file, &mut all) {
        return code;
    }
    emit(&mut io::stdout().lock(), &outcome.stdout);
    emit(&mut io::stderr().lock(), &outcome.stderr);
    host.finish_command();
    exit_status(&outcome)
}

/// Whether a chunk of script text needs the next line to be complete: an
/// unterminated quote, or a backslash that escapes the newline (as bash
/// reads it: not inside single quotes, not in a comment).
fn needs_more(text: &str, tokens: &Result<Vec<Vec<u8>>, Error>) -> bool {
    match tokens {
        Err(e) => e.cause() == Some(&Cause::Unterminated),
        Ok(words) if words.is_empty() => false,
        // If the newline were not escaped, a word after it would start a
        // second command, which `tokenize` refuses.
        Ok(_) => cbt::tokenize(&format!("{text}\nx")).is_ok(),
    }
}

/// Runs the commands on stdin, one per line, continuing after errors (as
/// a shell script without `set -e`). Returns the exit status: 0 if every
/// command succeeded, 1 otherwise.
pub fn run_script(options: &Options) -> u8 {
    let (mut file, mut db) = match load(options) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let stdin = io::stdin();
    // Typed commands are saved as they succeed (the session may end with
    // Ctrl-C); a piped script is saved once, at the end.
    let interactive = stdin.is_terminal();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let mut host = FsHost::new(progress_every(options));
    let mut failures = 0usize;
    let mut dirty = false;
    let mut line_no = 0usize;
    let mut clock = WallClock::default();
    // Whether moving the clock did engine work since the last record.
    let mut work = false;
    let mut raw = Vec::new();
    let mut pending = String::new();
    let mut pending_start = 0usize;
    loop {
        raw.clear();
        let eof = match input.read_until(b'\n', &mut raw) {
            Ok(0) => true,
            Ok(_) => false,
            Err(e) => {
                eprintln!("tabletop: cannot read stdin: {e}");
                failures += 1;
                true
            }
        };
        if eof && pending.is_empty() {
            break;
        }
        if !eof {
            line_no += 1;
            if raw.ends_with(b"\n") {
                raw.pop();
                if raw.ends_with(b"\r") {
                    raw.pop();
                }
            }
            let Ok(text) = std::str::from_utf8(&raw) else {
                eprintln!("line {line_no}: the line is not valid UTF-8; write bytes as $'\\xNN'");
                failures += 1;
                continue;
            };
            if pending.is_empty() {
                pending_start = line_no;
            } else {
                pending.push('\n');
            }
            pending.push_str(text);
        }
        let tokens = cbt::tokenize(&pending);
        if !eof && needs_more(&pending, &tokens) {
            continue;
        }
        pending.clear();
        let args = match tokens {
            Ok(args) if args.is_empty() => {
                if eof {
                    break;
                }
                continue;
            }
            Ok(args) => args,
            Err(e) => {
                eprintln!("line {pending_start}: {}", e.message());
                failures += 1;
                if eof {
                    break;
                }
                continue;
            }
        };
        let ids = instance_ids(options, &args);
        let one = match state::select(&mut db, names_of(&ids)) {
            Ok(one) => one,
            Err(message) => {
                eprintln!("line {pending_start}: {message}");
                failures += 1;
                if eof {
                    break;
                }
                continue;
            }
        };
        work |= clock.sync(one);
        let at = At::of(one, work);
        host.start_command();
        let mut traces = Traces::new(TraceOptions::default());
        let outcome = cbt::exec_args_traced(one, &args, &mut host, &mut traces);
        emit(&mut out, &outcome.stdout);
        let mut err = io::stderr().lock();
        match &outcome.status {
            Ok(()) => {
                emit(&mut err, &outcome.stderr);
                if note(&mut file, &args, at, options.emulator_parity) {
                    dirty = true;
                    // The record carries the engine work done so far.
                    work = false;
                }
            }
            Err(e) => {
                // cbt's last stderr line is the error; say where it was.
                let last = format!("{}\n", e.message());
                let logs = outcome
                    .stderr
                    .strip_suffix(last.as_bytes())
                    .unwrap_or(&outcome.stderr);
                emit(&mut err, logs);
                emit(
                    &mut err,
                    format!("line {pending_start}: {}\n", e.message()).as_bytes(),
                );
                failures += 1;
                // A failed import keeps the batches it wrote before the
                // failing one (as the help says): they are saved too.
                if wrote_rows(&traces)
                    || (options.emulator_parity && failed_write_kept(&mut file, &args))
                {
                    file.changed();
                    dirty = true;
                }
            }
        }
        drop(err);
        host.finish_command();
        if dirty && interactive {
            if let Err(code) = save(&mut file, &mut db) {
                return code;
            }
            dirty = false;
        }
        if eof {
            break;
        }
    }
    if dirty && let Err(code) = save(&mut file, &mut db) {
        return code;
    }
    if failures == 0 { 0 } else { FAILED }
}
