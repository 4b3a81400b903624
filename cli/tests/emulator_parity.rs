//! `--emulator-parity` as a person uses it: the same commands answered as
//! Google's emulator answers them, and what the emulator keeps (a write
//! applied up to its failing mutation) kept in the state file between
//! runs. The answers themselves are checked against the emulator by
//! `tests/differential/run.sh --parity`.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::run_in;

fn scratch(name: &str) -> PathBuf {
    common::scratch("cli-emulator-parity-tests", name)
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cbt_answers_and_keeps_as_the_emulator_does() {
    let dir = scratch("cbt");
    let out = run_in(&dir, &["cbt", "createtable", "t", "families=cf"], b"");
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    // Production: NOT_FOUND, nothing applied.
    let out = run_in(
        &dir,
        &["cbt", "set", "t", "r", "cf:a=1@1000", "nope:b=2@1000"],
        b"",
    );
    let (_, err) = text(&out);
    assert!(err.contains("code = NotFound"), "{err}");
    let (read, _) = text(&run_in(&dir, &["cbt", "read", "t"], b""));
    assert_eq!(read, "");
    // The emulator: UNKNOWN, and cf:a stays written, also for the next run.
    let out = run_in(
        &dir,
        &[
            "--emulator-parity",
            "cbt",
            "set",
            "t",
            "r",
            "cf:a=1@1000",
            "nope:b=2@1000",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let (_, err) = text(&out);
    assert!(
        err.contains("code = Unknown desc = unknown family \"nope\""),
        "{err}"
    );
    let (read, _) = text(&run_in(&dir, &["cbt", "read", "t"], b""));
    assert!(read.contains("cf:a"), "{read}");
    // A script on stdin, the option after the subcommand.
    let out = run_in(
        &dir,
        &["cbt", "--emulator-parity"],
        b"set t r2 cf:x=1@1000 cf:y=2@-5000\n",
    );
    let (_, err) = text(&out);
    assert!(err.contains("invalid timestamp -5000"), "{err}");
    let (read, _) = text(&run_in(&dir, &["cbt", "read", "t", "prefix=r2"], b""));
    assert!(read.contains("cf:x") && !read.contains("cf:y"), "{read}");
}

#[test]
fn json_answers_as_the_emulator_does() {
    let dir = scratch("json");
    let lines = b"{\"method\": \"createTable\", \"request\": {\"parent\": \"projects/p/instances/i\", \"tableId\": \"t\", \"table\": {\"columnFamilies\": {\"cf\": {}}}}}\n\
{\"method\": \"getTable\", \"request\": {\"name\": \"projects/p/instances/i/tables/t\"}}\n\
{\"method\": \"readRows\", \"request\": {\"tableName\": \"projects/p/instances/i/tables/t\", \"rowsLimit\": \"-1\"}}\n\
{\"method\": \"listLogicalViews\", \"request\": {\"parent\": \"projects/p/instances/i\"}}\n";
    let out = run_in(&dir, &["json", "--emulator-parity"], lines);
    assert_eq!(out.status.code(), Some(0));
    let (answers, _) = text(&out);
    let answers: Vec<&str> = answers.lines().collect();
    assert_eq!(answers.len(), 4, "{answers:?}");
    assert!(!answers[1].contains("granularity"), "{}", answers[1]);
    assert_eq!(answers[2], "{\"response\":{\"rows\":[]}}");
    assert!(answers[3].contains("UNIMPLEMENTED"), "{}", answers[3]);
    // Without the switch, production's answers.
    let out = run_in(
        &dir,
        &["json"],
        &lines[lines.iter().position(|&b| b == b'\n').unwrap() + 1..],
    );
    let (answers, _) = text(&out);
    let answers: Vec<&str> = answers.lines().collect();
    assert!(
        answers[0].contains("\"granularity\":\"MILLIS\""),
        "{}",
        answers[0]
    );
    assert!(answers[1].contains("INVALID_ARGUMENT"), "{}", answers[1]);
    assert_eq!(answers[2], "{\"response\":{}}");
}

#[test]
fn the_switch_is_in_the_help() {
    let (help, _) = text(&run_in(&scratch("help"), &["--help"], b""));
    assert!(help.contains("--emulator-parity"), "{help}");
    let (help, _) = text(&run_in(&scratch("help"), &["serve", "--help"], b""));
    assert!(help.contains("--emulator-parity"), "{help}");
}
