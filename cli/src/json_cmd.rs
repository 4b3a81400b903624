//! `tabletop json`: request lines of the JSON protocol on stdin, one
//! answer line each on stdout (see `tabletop_core::api`).

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use tabletop_core::{Error, Fidelity, Traces, api};

use crate::args::Options;
use crate::host::WallClock;
use crate::state::record::{self, At, Command, Record};
use crate::state::{self, StateFile};
use std::path::Path;
use tabletop_core::Instances;

/// The largest answer line `tabletop json` builds (256 MiB): a readRows
/// whose rows would take more answers `RESOURCE_EXHAUSTED` instead, so
/// one request cannot take the process's memory (and the writes of the
/// session with it).
pub const MAX_ANSWER_BYTES: usize = 256 << 20;

/// [`MAX_ANSWER_BYTES`], or for tests a smaller cap from the hidden
/// `TABLETOP_TEST_MAX_ANSWER_BYTES`.
fn max_answer_bytes() -> usize {
    std::env::var("TABLETOP_TEST_MAX_ANSWER_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MAX_ANSWER_BYTES)
        .min(MAX_ANSWER_BYTES)
}

/// Notes a request that was answered with a response in the state file:
/// logged, or (any other, reads included: they recorded traffic) kept by
/// a snapshot if the run saves. Returns whether there is something to
/// save.
///
/// With `--emulator-parity` nothing is logged: a write the emulator
/// accepts may be one production refuses (or applies otherwise), so a
/// replay could not repeat it; the snapshot keeps it instead.
fn note(file: &mut StateFile, line: &str, at: At, parity: bool) -> bool {
    let method = record::method_of(line).unwrap_or_default();
    if record::json_logged(&method) && !parity {
        file.log(&Record {
            at,
            command: Command::Json(line.to_string()),
            table_notes: None,
        });
        return true;
    }
    file.changed();
    // A run that answered a write with a response saves the state file.
    api::may_write(&method)
}

/// Whether a request line calls a method that may change the instance.
fn is_write(line: &str) -> bool {
    record::method_of(line).is_some_and(|m| api::may_write(&m))
}

/// The instance a run answers from: while every request is one the shell
/// decides (`mutateRow`, `mutateRows`, `dropRowRange`), the state file's
/// shell, so a run of writes does not load the snapshot (see
/// `state::shell`); from the first other request on, the whole instance,
/// with the run's earlier writes applied.
struct Session<'a> {
    names: state::Names<'a>,
    /// Always there; taken for a moment to load the whole instance.
    file: Option<StateFile>,
    /// Every instance; while `shell` is set, only the shell (of the first
    /// instance).
    db: Instances,
    /// `Some(row bound)` while `db` is the shell.
    shell: Option<u64>,
    clock: WallClock,
    /// Whether moving the clock did engine work since the last record.
    work: bool,
    dirty: bool,
    answer_cap: usize,
    /// `--emulator-parity`: every instance answers as the emulator does.
    parity: bool,
}

impl<'a> Session<'a> {
    fn open(path: &Path, names: state::Names<'a>, parity: bool) -> Result<Session<'a>, String> {
        // With --emulator-parity writes are not logged, so the shell (which
        // only appends to the log) is not used.
        let shell = if parity {
            None
        } else {
            state::open_shell(path, names)?
        };
        let (file, mut db, shell) = match shell {
            // A file written with --emulator-parity, in a run without it.
            Some((_, db, _)) if db.fidelity().is_emulator() => {
                return Err(state::fidelity_mismatch(path, false));
            }
            Some((file, db, bound)) => (file, Instances::new(db), Some(bound)),
            None => {
                let (file, db) = state::open(path, names)?;
                file.check_fidelity(db.primary().fidelity(), parity)?;
                (file, db, None)
            }
        };
        if parity {
            db.switch_fidelity(Fidelity::Emulator)
                .map_err(|e| e.message().to_string())?;
        }
        Ok(Session {
            names,
            file: Some(file),
            db,
            shell,
            clock: WallClock::default(),
            work: false,
            dirty: false,
            answer_cap: max_answer_bytes(),
            parity,
        })
    }

    fn file(&mut self) -> &mut StateFile {
        self.file.as_mut().expect("the state file is always there")
    }

    /// Answers one request line.
    fn answer(&mut self, line: &str) -> Result<String, String> {
        // The instance the request names (the first one when it names
        // none).
        let first = self.db.primary().config();
        let (project, instance) = api::instance_of_line(line)
            .unwrap_or_else(|| (first.project.clone(), first.instance.clone()));
        let on_shell_instance = first.project == project && first.instance == instance;
        if self.shell.is_some()
            && !(on_shell_instance
                && !api::addresses_authorized_view(line)
                && record::method_of(line).is_some_and(|m| record::json_on_shell(&m)))
        {
            self.load_whole(usize::MAX)?;
        }
        if let Some(row_bound) = self.shell {
            let shell = self.db.primary_mut();
            self.clock.sync(shell);
            let at = At::of(shell, false);
            let answer = api::answer_capped(shell, line, &mut Traces::off(), self.answer_cap);
            if !answer.ok {
                return Ok(answer.line);
            }
            let kept = self.file().pending_records();
            note(self.file(), line, at, false);
            if self.file().can_append() && state::shell::fits_rows(self.db.primary(), row_bound) {
                self.dirty = true;
                return Ok(answer.line);
            }
            // The shell cannot decide this one: the whole instance does.
            self.load_whole(kept)?;
        }
        let db = match self.db.select(&project, &instance) {
            Ok(db) => db,
            Err(e) => return Ok(api::answer_line(&Err(e))),
        };
        self.work |= self.clock.sync(db);
        let at = At::of(db, self.work);
        let answer = api::answer_capped(db, line, &mut Traces::off(), self.answer_cap);
        self.db.prune();
        let parity = self.parity;
        if answer.ok && note(self.file(), line, at, parity) {
            self.dirty = true;
            // The record carries the engine work done so far.
            self.work = false;
        } else if parity && is_write(line) {
            // The emulator keeps what a failed write applied before it
            // failed (its writes are not atomic): keep it too.
            self.file().changed();
            self.dirty = true;
        }
        Ok(answer.line)
    }

    /// Loads the whole instance, with the first `keep` writes of this run.
    fn load_whole(&mut self, keep: usize) -> Result<(), String> {
        let shell_file = self.file.take().expect("the state file is always there");
        let (file, db) = state::upgrade(shell_file, self.names, keep)?;
        self.file = Some(file);
        self.db = db;
        self.shell = None;
        Ok(())
    }

    /// Saves the run's changes, if any.
    fn save(&mut self) -> std::io::Result<()> {
        if !self.dirty {
            return Ok(());
        }
        let file = self.file.as_mut().expect("the state file is always there");
        file.save(&mut self.db)
    }
}

/// Answers every request line on stdin. Returns the exit status: 0 unless
/// the state file could not be read or saved, or stdin or stdout failed
/// (error answers are data, not failures).
pub fn run(options: &Options) -> u8 {
    let path = options.state_path();
    let names = options.names();
    let mut session = match Session::open(&path, names, options.emulator_parity) {
        Ok(x) => x,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return 1;
        }
    };
    let mut input = BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut status = 0;
    let mut raw = Vec::new();
    let mut line_no = 0usize;
    loop {
        raw.clear();
        match input.read_until(b'\n', &mut raw) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("tabletop: cannot read stdin: {e}");
                status = 1;
                break;
            }
        }
        line_no += 1;
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let answer = match std::str::from_utf8(&raw) {
            Ok(line) => match session.answer(line) {
                Ok(answer) => answer,
                Err(message) => {
                    // The whole instance could not be loaded: nothing of
                    // this run is saved.
                    eprintln!("tabletop: {message}");
                    return 1;
                }
            },
            Err(_) => api::answer_line(&Err(Error::invalid(format!(
                "line {line_no} is not valid UTF-8; JSON text must be"
            )))),
        };
        let written = out
            .write_all(answer.as_bytes())
            .and_then(|()| out.write_all(b"\n"));
        // Answer at once when no more input is waiting, so a program that
        // sends one request and waits for its answer is not kept waiting;
        // a stream of requests is answered in big writes.
        let written = written.and_then(|()| {
            if input.buffer().is_empty() {
                out.flush()
            } else {
                Ok(())
            }
        });
        if let Err(e) = written {
            if e.kind() != io::ErrorKind::BrokenPipe {
                eprintln!("tabletop: cannot write to stdout: {e}");
            }
            status = 1;
            break;
        }
    }
    if let Err(e) = out.flush()
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        eprintln!("tabletop: cannot write to stdout: {e}");
        status = 1;
    }
    if let Err(e) = session.save() {
        eprintln!(
            "tabletop: could not save the state file {}: {e}; it was left as it was before",
            path.display()
        );
        return 1;
    }
    status
}
