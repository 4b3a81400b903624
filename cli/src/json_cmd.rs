//! `tabletop json`: request lines of the JSON protocol on stdin, one
//! answer line each on stdout (see `tabletop_core::api`).

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use tabletop_core::{Error, Traces, api};

use crate::args::Options;
use crate::host::WallClock;
use crate::state::record::{self, At, Command, Record};
use crate::state::{self, StateFile};

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

/// Methods that may change the instance: a run that answered one of them
/// with a response (not an error) saves the state file at the end.
const WRITE_METHODS: &[&str] = &[
    "createTable",
    "deleteTable",
    "modifyColumnFamilies",
    "dropRowRange",
    "mutateRow",
    "mutateRows",
    "checkAndMutateRow",
    "readModifyWriteRow",
    "compact",
    "advanceClock",
    // Playground SQL: CREATE MATERIALIZED VIEW, row-key schemas.
    "sql",
];

/// The method a request line names, if it is a JSON object with one.
fn method_of(line: &str) -> Option<String> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(line) else {
        return None;
    };
    map.get("method")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
}

/// Notes a request that was answered with a response in the state file:
/// logged, or (any other, reads included: they recorded traffic) kept by
/// a snapshot if the run saves. Returns whether there is something to
/// save.
fn note(file: &mut StateFile, line: &str, at: At) -> bool {
    let method = method_of(line).unwrap_or_default();
    if record::json_logged(&method) {
        file.log(&Record {
            at,
            command: Command::Json(line.to_string()),
        });
        return true;
    }
    file.changed();
    WRITE_METHODS.contains(&method.as_str())
}

/// Answers every request line on stdin. Returns the exit status: 0 unless
/// the state file could not be read or saved, or stdin or stdout failed
/// (error answers are data, not failures).
pub fn run(options: &Options) -> u8 {
    let path = state::path(options.state.as_deref());
    let names = state::Names {
        project: options.project.as_deref(),
        instance: options.instance.as_deref(),
    };
    let (mut file, mut db) = match state::open(&path, names) {
        Ok(x) => x,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return 1;
        }
    };
    let answer_cap = max_answer_bytes();
    let mut input = BufReader::with_capacity(64 * 1024, io::stdin().lock());
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut dirty = false;
    let mut status = 0;
    let mut raw = Vec::new();
    let mut line_no = 0usize;
    let mut clock = WallClock::default();
    // Whether moving the clock did engine work since the last record.
    let mut work = false;
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
            Ok(line) => {
                work |= clock.sync(&mut db);
                let at = At::of(&db, work);
                let answer = api::handle_capped(&mut db, line, &mut Traces::off(), answer_cap);
                if answer.starts_with("{\"response\"") && note(&mut file, line, at) {
                    dirty = true;
                    // The record carries the engine work done so far.
                    work = false;
                }
                answer
            }
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
    if dirty && let Err(e) = file.save(&mut db) {
        eprintln!(
            "tabletop: could not save the state file {}: {e}; it was left as it was before",
            path.display()
        );
        return 1;
    }
    status
}
