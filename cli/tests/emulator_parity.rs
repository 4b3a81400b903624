//! `--emulator-parity` as a person uses it: the same commands answered as
//! Google's emulator answers them, and what the emulator keeps (a write
//! applied up to its failing mutation) kept in the state file between
//! runs. The answers themselves are checked against the emulator by
//! `tests/differential/run.sh --parity`.

mod common;

use std::path::{Path, PathBuf};
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

/// Runs `tabletop` with `--emulator-parity` in front of `args`.
fn parity(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let args: Vec<&str> = std::iter::once("--emulator-parity")
        .chain(args.iter().copied())
        .collect();
    run_in(dir, &args, stdin)
}

/// Makes table `t` (family `cf`) and sets row `r`'s `cf:a` together with
/// a cell of a family the table lacks, with or without
/// `--emulator-parity`. Returns the failed write's stderr.
fn write_with_unknown_family(dir: &Path, emulator: bool) -> String {
    let run = |args: &[&str]| {
        if emulator {
            parity(dir, args, b"")
        } else {
            run_in(dir, args, b"")
        }
    };
    let out = run(&["cbt", "createtable", "t", "families=cf"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    let out = run(&["cbt", "set", "t", "r", "cf:a=1@1000", "nope:b=2@1000"]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    text(&out).1
}

#[test]
fn cbt_answers_and_keeps_as_the_emulator_does() {
    // Production: NOT_FOUND, nothing applied.
    let prod = scratch("cbt-production");
    let err = write_with_unknown_family(&prod, false);
    assert!(err.contains("code = NotFound"), "{err}");
    let (read, _) = text(&run_in(&prod, &["cbt", "read", "t"], b""));
    assert_eq!(read, "");
    // The emulator: UNKNOWN, and cf:a stays written, also for the next run.
    let dir = scratch("cbt");
    let err = write_with_unknown_family(&dir, true);
    assert!(
        err.contains("code = Unknown desc = unknown family \"nope\""),
        "{err}"
    );
    let (read, _) = text(&parity(&dir, &["cbt", "read", "t"], b""));
    assert!(read.contains("cf:a"), "{read}");
    // A script on stdin, the option after the subcommand.
    let out = run_in(
        &dir,
        &["cbt", "--emulator-parity"],
        b"set t r2 cf:x=1@1000 cf:y=2@-5000\n",
    );
    let (_, err) = text(&out);
    assert!(err.contains("invalid timestamp -5000"), "{err}");
    let (read, _) = text(&run_in(
        &dir,
        &["cbt", "--emulator-parity", "read", "t", "prefix=r2"],
        b"",
    ));
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
    // Without the switch (and so in a state file of its own), production's
    // answers.
    let out = run_in(&scratch("json-production"), &["json"], lines);
    let (answers, _) = text(&out);
    let answers: Vec<&str> = answers.lines().collect();
    assert!(
        answers[1].contains("\"granularity\":\"MILLIS\""),
        "{}",
        answers[1]
    );
    assert!(answers[2].contains("INVALID_ARGUMENT"), "{}", answers[2]);
    assert_eq!(answers[3], "{\"response\":{}}");
}

/// The state file keeps the fidelity it was written with (in its
/// snapshot), and a run with the other one is refused before it changes
/// anything: a file the emulator wrote may hold what production refuses.
#[test]
fn a_state_file_keeps_its_fidelity_and_refuses_the_other() {
    let dir = scratch("keeps");
    // A write the emulator keeps in part (production would refuse it all).
    write_with_unknown_family(&dir, true);
    let before = std::fs::read(dir.join("tabletop.state")).unwrap();
    // Without the switch: refused, for cbt (a write on the log's shell and
    // a read on the whole file) and for json, and the file is untouched.
    for args in [
        &["cbt", "set", "t", "r2", "cf:a=1"][..],
        &["cbt", "read", "t"][..],
        &["json"][..],
    ] {
        let line: &[u8] = b"{\"method\": \"listTables\", \"request\": {\"parent\": \"projects/tabletop/instances/playground\"}}\n";
        let out = run_in(&dir, args, line);
        let (stdout, err) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stdout} {err}");
        assert!(
            err.contains("was written with --emulator-parity")
                && err.contains("pass --emulator-parity"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read(dir.join("tabletop.state")).unwrap(), before);
    }
    // With it, the file answers as the emulator and holds the partial write.
    let (read, _) = text(&parity(&dir, &["cbt", "read", "t"], b""));
    assert!(read.contains("cf:a"), "{read}");
    // A file written as production refuses a run with the switch.
    let prod = scratch("keeps-production");
    let out = run_in(&prod, &["cbt", "createtable", "t", "families=cf"], b"");
    assert_eq!(out.status.code(), Some(0));
    let out = parity(&prod, &["cbt", "set", "t", "r", "cf:a=1"], b"");
    let (_, err) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("was written without --emulator-parity"),
        "{err}"
    );
    let (read, _) = text(&run_in(&prod, &["cbt", "read", "t"], b""));
    assert_eq!(read, "");
}

/// What only the emulator takes (a GC rule that keeps nothing, a row key
/// over 4 KiB) is kept in the state file and read back by the next run:
/// the state file of an emulator instance is snapshot version 6.
#[test]
fn the_state_file_keeps_what_only_the_emulator_takes() {
    let dir = scratch("emulator-only");
    let parity = |args: &[&str]| {
        let mut all = vec!["--emulator-parity", "cbt"];
        all.extend_from_slice(args);
        let out = run_in(&dir, &all, b"");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {:?}", text(&out));
        text(&out).0
    };
    parity(&["createtable", "zero", "families=cf:maxversions=0"]);
    parity(&["createtable", "t", "families=cf"]);
    let long_key = "k".repeat(5000);
    parity(&["set", "t", &long_key, "cf:q=v@1000"]);
    assert_eq!(parity(&["ls"]), "t\nzero\n");
    assert_eq!(parity(&["count", "t"]), "1\n");
    // Production refuses both.
    let prod = scratch("emulator-only-production");
    let out = run_in(
        &prod,
        &["cbt", "createtable", "zero", "families=cf:maxversions=0"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
}

#[test]
fn the_switch_is_in_the_help() {
    let (help, _) = text(&run_in(&scratch("help"), &["--help"], b""));
    assert!(help.contains("--emulator-parity"), "{help}");
    let (help, _) = text(&run_in(&scratch("help"), &["serve", "--help"], b""));
    assert!(help.contains("--emulator-parity"), "{help}");
}
