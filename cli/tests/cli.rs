//! Runs the real `tabletop` binary the way a person would from a shell:
//! state files in a scratch directory, stdin scripts, exit codes.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{expect, run_in, stderr, stdout};

fn scratch(name: &str) -> PathBuf {
    common::scratch("cli-tests", name)
}

fn tabletop(args: &[&str]) -> Output {
    run_in(Path::new(env!("CARGO_TARGET_TMPDIR")), args, b"")
}

fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                s.push(A[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

#[test]
fn version_prints_the_package_version() {
    let out = expect(0, tabletop(&["--version"]));
    assert_eq!(
        stdout(&out),
        format!("tabletop {}\n", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(stdout(&tabletop(&["-V"])), stdout(&out));
}

#[test]
fn help_describes_usage_and_succeeds() {
    let out = expect(0, tabletop(&["--help"]));
    let text = stdout(&out);
    assert!(text.starts_with("tabletop "), "{text}");
    assert!(
        text.contains("Usage: tabletop [OPTIONS] <COMMAND>"),
        "{text}"
    );
    for word in [
        "cbt",
        "json",
        "sim",
        "--state",
        "--version",
        "tabletop.state",
    ] {
        assert!(text.contains(word), "{word}: {text}");
    }
    assert!(stderr(&out).is_empty());
    assert_eq!(stdout(&expect(0, tabletop(&["help"]))), text);
    assert_eq!(stdout(&expect(0, tabletop(&[]))), text);
}

#[test]
fn every_subcommand_has_help() {
    for (args, usage) in [
        (&["cbt", "--help"][..], "Usage: tabletop cbt"),
        (&["cbt", "-h"][..], "Usage: tabletop cbt"),
        (&["help", "cbt"][..], "Usage: tabletop cbt"),
        (&["json", "--help"][..], "Usage: tabletop json"),
        (&["help", "json"][..], "Usage: tabletop json"),
        (&["help", "help"][..], "Usage: tabletop help"),
        (&["sim", "--help"][..], "Usage: tabletop sim"),
        (&["help", "sim"][..], "Usage: tabletop sim"),
        (&["lint", "--help"][..], "Usage: tabletop lint"),
        (&["help", "lint"][..], "Usage: tabletop lint"),
        (&["help", "--help"][..], "Usage: tabletop help"),
    ] {
        let out = expect(0, tabletop(args));
        assert!(stdout(&out).contains(usage), "{args:?}: {}", stdout(&out));
    }
    // `cbt help` is cbt's own help, run by the interpreter.
    let out = expect(0, tabletop(&["cbt", "help", "read"]));
    assert!(
        stdout(&out).starts_with("cbt read <table-id>"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn unknown_subcommands_and_options_exit_2() {
    for (args, message) in [
        (
            &["frobnicate"][..],
            "error: unknown subcommand 'frobnicate'",
        ),
        (&["--frob"][..], "error: unknown option '--frob'"),
        (
            &["json", "--frob"][..],
            "error: unknown option '--frob' for json",
        ),
        (&["json", "extra"][..], "error: unexpected argument 'extra'"),
        (&["help", "nope"][..], "error: no help for 'nope'"),
        (&["--state"][..], "error: option '-state' needs a value"),
        (&["lint"][..], "error: tabletop lint needs a scenario file"),
        (
            &["lint", "--frob", "s.toml"][..],
            "error: unknown option '--frob' for lint",
        ),
    ] {
        let out = expect(2, tabletop(args));
        assert!(stdout(&out).is_empty());
        let err = stderr(&out);
        assert!(err.starts_with(message), "{args:?}: {err}");
        assert!(err.contains("tabletop --help"), "{err}");
    }
}

#[test]
fn the_state_file_is_created_by_the_first_change() {
    let dir = scratch("create");
    // Reading a missing state sees an empty instance and creates nothing.
    let out = expect(0, run_in(&dir, &["cbt", "ls"], b""));
    assert_eq!(stdout(&out), "");
    assert!(!dir.join("tabletop.state").exists());
    expect(
        0,
        run_in(&dir, &["cbt", "createtable", "t", "families=cf"], b""),
    );
    let bytes = fs::read(dir.join("tabletop.state")).expect("the default state file exists");
    assert!(bytes.starts_with(b"TBLTOPSN"));
    let out = expect(0, run_in(&dir, &["cbt", "ls"], b""));
    assert_eq!(stdout(&out), "t\n");
    // --state, before or after the subcommand, and TABLETOP_STATE.
    expect(
        0,
        run_in(
            &dir,
            &["--state", "other.state", "cbt", "createtable", "u"],
            b"",
        ),
    );
    let out = expect(0, run_in(&dir, &["cbt", "--state=other.state", "ls"], b""));
    assert_eq!(stdout(&out), "u\n");
    let out = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(["cbt", "ls"])
        .current_dir(&dir)
        .env("TABLETOP_STATE", "other.state")
        .output()
        .expect("tabletop runs");
    assert_eq!(stdout(&out), "u\n");
}

#[test]
fn saving_replaces_the_file_atomically() {
    let dir = scratch("atomic");
    let state = dir.join("s.state");
    expect(
        0,
        run_in(
            &dir,
            &[
                "--state",
                "s.state",
                "cbt",
                "createtable",
                "t",
                "families=cf",
            ],
            b"",
        ),
    );
    let before = fs::read(&state).unwrap();
    // A hard link keeps the old file: a save must write a new file and
    // rename it over, never write into the old one.
    fs::hard_link(&state, dir.join("old.link")).unwrap();
    // A set goes to the log beside the snapshot; the snapshot stays.
    expect(
        0,
        run_in(
            &dir,
            &["--state", "s.state", "cbt", "set", "t", "r", "cf:a=1"],
            b"",
        ),
    );
    assert_eq!(fs::read(&state).unwrap(), before);
    let wal = fs::metadata(dir.join("s.state.wal")).unwrap().len();
    // A compaction (engine work the log does not hold) is saved by
    // writing a new snapshot (with the set in it), and the log starts
    // again, empty.
    expect(
        0,
        run_in(&dir, &["--state", "s.state", "cbt", "compact", "t"], b""),
    );
    assert_eq!(fs::read(dir.join("old.link")).unwrap(), before);
    assert_ne!(fs::read(&state).unwrap(), before);
    assert!(fs::metadata(dir.join("s.state.wal")).unwrap().len() < wal);
    // No temporary file is left behind (the lock file stays, empty: it
    // only carries the lock).
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [".s.state.lock", "old.link", "s.state", "s.state.wal"]
    );
    let out = expect(
        0,
        run_in(&dir, &["--state", "s.state", "cbt", "count", "t"], b""),
    );
    assert_eq!(stdout(&out), "1\n");
}

#[test]
fn a_failed_command_leaves_the_state_untouched() {
    let dir = scratch("untouched");
    expect(
        0,
        run_in(&dir, &["cbt", "createtable", "t", "families=cf"], b""),
    );
    let path = dir.join("tabletop.state");
    let before = fs::read(&path).unwrap();
    let modified = fs::metadata(&path).unwrap().modified().unwrap();
    // The second mutation names an unknown family: all or nothing.
    let out = expect(
        1,
        run_in(&dir, &["cbt", "set", "t", "r", "cf:a=1", "nope:b=2"], b""),
    );
    assert!(
        stderr(&out).contains("rpc error: code = NotFound"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), modified);
    let out = expect(0, run_in(&dir, &["cbt", "count", "t"], b""));
    assert_eq!(stdout(&out), "0\n");
}

#[test]
fn a_corrupt_or_foreign_state_is_refused_and_kept() {
    let dir = scratch("corrupt");
    fs::write(dir.join("foreign.state"), b"not a snapshot at all\n").unwrap();
    let out = expect(
        1,
        run_in(
            &dir,
            &["--state", "foreign.state", "cbt", "createtable", "t"],
            b"",
        ),
    );
    let err = stderr(&out);
    assert!(
        err.contains("foreign.state cannot be used: not a Tabletop snapshot"),
        "{err}"
    );
    assert!(err.contains("left as it is"), "{err}");
    assert_eq!(
        fs::read(dir.join("foreign.state")).unwrap(),
        b"not a snapshot at all\n"
    );

    expect(
        0,
        run_in(&dir, &["cbt", "createtable", "t", "families=cf"], b""),
    );
    let path = dir.join("tabletop.state");
    let mut bytes = fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    fs::write(&path, &bytes).unwrap();
    for args in [
        &["cbt", "set", "t", "r", "cf:a=1"][..],
        &["-project", "p", "cbt", "ls"][..],
        &["json"][..],
    ] {
        let out = expect(
            1,
            run_in(&dir, args, br#"{"method": "compact", "request": {}}"#),
        );
        assert!(
            stderr(&out).contains("checksum mismatch"),
            "{}",
            stderr(&out)
        );
        assert!(stdout(&out).is_empty());
        assert_eq!(fs::read(&path).unwrap(), bytes, "{args:?}");
    }
}

#[test]
fn stdin_scripts_run_every_line_and_report_errors_by_line() {
    let dir = scratch("script");
    let script = b"# a comment\n\
        createtable t families=cf\n\
        \n\
        set t r1 cf:a=1@1000\n\
        read nope\n\
        set t 'r\n2' cf:a=2@2000\n\
        count t\n\
        set t r3 cf:a=\"unterminated\n\
        count t\n";
    let out = expect(1, run_in(&dir, &["cbt"], script));
    assert_eq!(stdout(&out), "2\n");
    let err = stderr(&out);
    assert_eq!(
        err,
        "line 5: Reading rows: rpc error: code = NotFound desc = table \
         \"projects/tabletop/instances/playground/tables/nope\" not found\n\
         line 9: unterminated double quote\n",
    );
    // The successful writes were saved at the end.
    let out = expect(0, run_in(&dir, &["cbt", "read", "t"], b""));
    assert_eq!(
        stdout(&out),
        "----------------------------------------\nr\n2\n  cf:a                                     @ 1970/01/01-00:00:00.002000\n    \"2\"\n\n\
         ----------------------------------------\nr1\n  cf:a                                     @ 1970/01/01-00:00:00.001000\n    \"1\"\n\n"
    );
    // A backslash at the end of a line continues the command, except
    // inside single quotes and in comments.
    let out = expect(
        0,
        run_in(
            &dir,
            &["cbt"],
            b"set t r4 \\\n  'cf:a=x\\'@1000 # comment \\\nlookup t r4 \\\n columns=cf:a\n",
        ),
    );
    assert_eq!(
        stdout(&out),
        "----------------------------------------\nr4\n  cf:a                                     @ 1970/01/01-00:00:00.001000\n    \"x\\\\\"\n\n"
    );
    // A script where everything works exits 0; one that only reads
    // saves nothing.
    let before = fs::read(dir.join("tabletop.state")).unwrap();
    let out = expect(0, run_in(&dir, &["cbt"], b"ls\ncount t\n"));
    assert_eq!(stdout(&out), "t\n3\n");
    assert_eq!(fs::read(dir.join("tabletop.state")).unwrap(), before);
}

#[test]
fn json_mode_answers_each_line_and_saves_at_the_end() {
    let dir = scratch("json");
    let requests = format!(
        "{}\n\n{}\n{}\n{}\nnot json\n",
        r#"{"method": "createTable", "request": {"parent": "projects/p/instances/i", "tableId": "t", "table": {"columnFamilies": {"cf": {}}}}}"#,
        format_args!(
            r#"{{"method": "mutateRow", "request": {{"tableName": "projects/p/instances/i/tables/t", "rowKey": "{}", "mutations": [{{"setCell": {{"familyName": "cf", "columnQualifier": "{}", "timestampMicros": "1000", "value": "{}"}}}}]}}}}"#,
            b64(b"r1"),
            b64(b"q"),
            b64(b"v")
        ),
        r#"{"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/t"}}"#,
        r#"{"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/nope"}}"#,
    );
    let out = expect(0, run_in(&dir, &["json"], requests.as_bytes()));
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(lines[0].starts_with(r#"{"response":{"#), "{}", lines[0]);
    assert_eq!(lines[1], r#"{"response":{}}"#);
    assert_eq!(
        lines[2],
        r#"{"response":{"rows":[{"families":[{"columns":[{"cells":[{"timestampMicros":"1000","value":"dg=="}],"qualifier":"cQ=="}],"name":"cf"}],"key":"cjE="}]}}"#
    );
    assert!(
        lines[3].starts_with(r#"{"error":{"code":5,"#),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].starts_with(r#"{"error":{"code":3,"#),
        "{}",
        lines[4]
    );
    // The cbt side sees the same instance.
    let out = expect(0, run_in(&dir, &["cbt", "count", "t"], b""));
    assert_eq!(stdout(&out), "1\n");
    // Only reads: nothing is saved.
    let before = fs::read(dir.join("tabletop.state")).unwrap();
    let read = br#"{"method": "listTables", "request": {"parent": "projects/p/instances/i"}}"#;
    let out = expect(0, run_in(&dir, &["json"], read));
    assert_eq!(
        stdout(&out),
        "{\"response\":{\"tables\":[{\"name\":\"projects/p/instances/i/tables/t\"}]}}\n"
    );
    assert_eq!(fs::read(dir.join("tabletop.state")).unwrap(), before);
}

#[test]
fn binary_keys_and_values_round_trip_through_the_state_file() {
    let dir = scratch("binary");
    let all: Vec<u8> = (0..=255u8).collect();
    let key: Vec<u8> = [&b"k"[..], &all].concat();
    let requests = format!(
        "{}\n{}\n",
        r#"{"method": "createTable", "request": {"parent": "projects/p/instances/i", "tableId": "t", "table": {"columnFamilies": {"cf": {}}}}}"#,
        format_args!(
            r#"{{"method": "mutateRow", "request": {{"tableName": "projects/p/instances/i/tables/t", "rowKey": "{k}", "mutations": [{{"setCell": {{"familyName": "cf", "columnQualifier": "{q}", "timestampMicros": "5000", "value": "{v}"}}}}]}}}}"#,
            k = b64(&key),
            q = b64(&all),
            v = b64(&all.iter().rev().copied().collect::<Vec<u8>>())
        ),
    );
    expect(0, run_in(&dir, &["json"], requests.as_bytes()));
    let read =
        br#"{"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/t"}}"#;
    let out = expect(0, run_in(&dir, &["json"], read));
    let expected = format!(
        "{{\"response\":{{\"rows\":[{{\"families\":[{{\"columns\":[{{\"cells\":[{{\"timestampMicros\":\"5000\",\"value\":\"{}\"}}],\"qualifier\":\"{}\"}}],\"name\":\"cf\"}}],\"key\":\"{}\"}}]}}}}\n",
        b64(&all.iter().rev().copied().collect::<Vec<u8>>()),
        b64(&all),
        b64(&key)
    );
    assert_eq!(stdout(&out), expected);
    // cbt prints keys raw: the bytes come back exactly.
    let out = expect(0, run_in(&dir, &["cbt", "read", "t"], b""));
    assert!(out.stdout.windows(key.len()).any(|w| w == key.as_slice()));
    // Arguments are bytes too (as bash passes $'\xff').
    #[cfg(unix)]
    {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let out = Command::new(env!("CARGO_BIN_EXE_tabletop"))
            .current_dir(&dir)
            .env_remove("TABLETOP_STATE")
            .args(["cbt", "set", "t"])
            .arg(OsStr::from_bytes(b"\xfe\xff"))
            .arg("cf:x=1@1000")
            .output()
            .unwrap();
        let out = expect(0, out);
        assert!(out.stderr.is_empty());
        let out = Command::new(env!("CARGO_BIN_EXE_tabletop"))
            .current_dir(&dir)
            .args(["cbt", "lookup", "t"])
            .arg(OsStr::from_bytes(b"\xfe\xff"))
            .output()
            .unwrap();
        let out = expect(0, out);
        assert!(
            out.stdout
                .starts_with(b"----------------------------------------\n\xfe\xff\n")
        );
    }
}

#[test]
fn import_reads_files_and_reports_progress_when_asked() {
    let dir = scratch("import");
    let mut csv = String::from(",cf,cf\n,a,b\n");
    for i in 0..25 {
        csv.push_str(&format!("row{i:03},{i},x{i}\n"));
    }
    fs::write(dir.join("data.csv"), csv).unwrap();
    expect(
        0,
        run_in(&dir, &["cbt", "createtable", "t", "families=cf"], b""),
    );
    let out = expect(
        0,
        run_in(
            &dir,
            &[
                "--progress=10",
                "cbt",
                "import",
                "t",
                "data.csv",
                "batch-size=5",
            ],
            b"",
        ),
    );
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(
        err.contains("[0] Writing batch:: size: 5, firstRowKey: row000, lastRowKey: row004\n"),
        "{err}"
    );
    assert!(err.contains("Done importing 25 rows.\n"), "{err}");
    assert!(err.contains("tabletop: import: 10 rows written ("), "{err}");
    assert!(err.contains("tabletop: import: 20 rows written ("), "{err}");
    assert!(
        err.contains("tabletop: import: 25 rows written in "),
        "{err}"
    );
    let out = expect(0, run_in(&dir, &["cbt", "count", "t"], b""));
    assert_eq!(stdout(&out), "25\n");
    // Without --progress (stderr is a pipe here), only cbt's own lines.
    let out = expect(0, run_in(&dir, &["cbt", "import", "t", "data.csv"], b""));
    assert!(!stderr(&out).contains("tabletop:"), "{}", stderr(&out));
    // A missing file: cbt's message and status, nothing saved.
    let before = fs::read(dir.join("tabletop.state")).unwrap();
    let out = expect(1, run_in(&dir, &["cbt", "import", "t", "nope.csv"], b""));
    assert_eq!(
        stderr(&out),
        "couldn't open the csv file: open nope.csv: no such file or directory\n"
    );
    assert_eq!(fs::read(dir.join("tabletop.state")).unwrap(), before);
}

#[test]
fn exit_codes_follow_cbt() {
    let dir = scratch("exit");
    expect(0, run_in(&dir, &["cbt", "ls"], b""));
    let out = expect(1, run_in(&dir, &["cbt", "read", "nope"], b""));
    assert!(stderr(&out).starts_with("Reading rows: rpc error: code = NotFound"));
    let out = expect(1, run_in(&dir, &["cbt", "nope"], b""));
    assert_eq!(stderr(&out), "Unknown command \"nope\"\n");
    // Go's flag package exits with 2 for a flag cbt does not define.
    let out = expect(2, run_in(&dir, &["cbt", "-nosuch", "ls"], b""));
    assert_eq!(stderr(&out), "flag provided but not defined: -nosuch\n");
    // cbt's other global flags are accepted and ignored.
    expect(
        0,
        run_in(&dir, &["cbt", "-timeout", "10s", "-creds=x", "ls"], b""),
    );
}

#[test]
fn project_and_instance_name_the_instance() {
    let dir = scratch("names");
    let out = expect(
        1,
        run_in(
            &dir,
            &["cbt", "-project", "p", "-instance=i", "read", "t"],
            b"",
        ),
    );
    assert!(
        stderr(&out).contains("\"projects/p/instances/i/tables/t\" not found"),
        "{}",
        stderr(&out)
    );
    // A new file's first instance takes the names given...
    expect(
        0,
        run_in(
            &dir,
            &[
                "-project",
                "p1",
                "-instance",
                "i1",
                "cbt",
                "createtable",
                "t",
            ],
            b"",
        ),
    );
    // ...and is the one used without names.
    let out = expect(1, run_in(&dir, &["cbt", "read", "u"], b""));
    assert!(
        stderr(&out).contains("\"projects/p1/instances/i1/tables/u\" not found"),
        "{}",
        stderr(&out)
    );
    let out = expect(0, run_in(&dir, &["cbt", "ls"], b""));
    assert_eq!(stdout(&out), "t\n");
}

#[test]
fn authorized_views_are_kept_in_the_state_file() {
    let dir = scratch("views");
    let requests = concat!(
        r#"{"method": "createTable", "request": {"parent": "projects/p/instances/i", "tableId": "t", "table": {"columnFamilies": {"cf": {}, "x": {}}}}}"#,
        "\n",
        r#"{"method": "createAuthorizedView", "request": {"parent": "projects/p/instances/i/tables/t", "authorizedViewId": "v", "authorizedView": {"subsetView": {"rowPrefixes": ["YQ=="], "familySubsets": {"cf": {"qualifierPrefixes": [""]}}}}}}"#,
        "\n",
    );
    expect(0, run_in(&dir, &["json"], requests.as_bytes()));
    let cbt = |args: &[&str]| {
        let mut all = vec!["cbt", "-project", "p", "-instance", "i"];
        all.extend_from_slice(args);
        run_in(&dir, &all, b"")
    };
    expect(
        0,
        cbt(&["set", "t", "a1", "authorized-view=v", "cf:q=in@1000"]),
    );
    let out = expect(
        1,
        cbt(&["set", "t", "b1", "authorized-view=v", "cf:q=out@1000"]),
    );
    assert!(
        stderr(&out)
            .contains("code = PermissionDenied desc = row \"b1\" is outside the Authorized View"),
        "{}",
        stderr(&out)
    );
    expect(0, cbt(&["set", "t", "b2", "cf:q=direct@1000"]));
    let out = expect(0, cbt(&["read", "t", "authorized-view=v"]));
    assert!(
        stdout(&out).contains("a1") && !stdout(&out).contains("b2"),
        "{}",
        stdout(&out)
    );
    let out = expect(0, cbt(&["count", "t"]));
    assert_eq!(stdout(&out), "2\n");
}

#[test]
fn writes_through_a_view_are_not_decided_on_the_log_shell() {
    // The state log's shell (tables without rows or views) decides one-shot
    // writes; a write through a view needs the view and, for a delete, the
    // row, so it runs on the whole instance.
    let dir = scratch("views-shell");
    let setup = concat!(
        r#"{"method": "createTable", "request": {"parent": "projects/p/instances/i", "tableId": "t", "table": {"columnFamilies": {"cf": {}, "x": {}}}}}"#,
        "\n",
        r#"{"method": "createAuthorizedView", "request": {"parent": "projects/p/instances/i/tables/t", "authorizedViewId": "v", "authorizedView": {"subsetView": {"rowPrefixes": ["YQ=="], "familySubsets": {"cf": {"qualifierPrefixes": [""]}}}}}}"#,
        "\n",
    );
    expect(0, run_in(&dir, &["json"], setup.as_bytes()));
    let cbt = |args: &[&str]| {
        let mut all = vec!["cbt", "-project", "p", "-instance", "i"];
        all.extend_from_slice(args);
        run_in(&dir, &all, b"")
    };
    expect(0, cbt(&["set", "t", "a5", "x:q=hidden@1000"]));
    let delete = br#"{"method": "mutateRow", "request": {"authorizedViewName": "projects/p/instances/i/tables/t/authorizedViews/v", "rowKey": "YTU=", "mutations": [{"deleteFromRow": {}}]}}"#;
    let out = expect(0, run_in(&dir, &["json"], delete));
    assert!(
        stdout(&out).contains("PERMISSION_DENIED"),
        "{}",
        stdout(&out)
    );
    expect(
        0,
        cbt(&["set", "t", "a6", "authorized-view=v", "cf:q=in@1000"]),
    );
    let out = expect(0, cbt(&["count", "t"]));
    assert_eq!(stdout(&out), "2\n");
}

#[test]
fn instances_are_kept_apart_in_the_state_file() {
    let dir = scratch("instances");
    let cbt = |args: &[&str]| {
        let mut all = vec!["cbt", "-project", "p", "-instance", "i"];
        all.extend_from_slice(args);
        run_in(&dir, &all, b"")
    };
    expect(0, cbt(&["createtable", "t"]));
    // A command's own -instance wins, as with cbt.
    expect(
        0,
        cbt(&["-instance", "other", "createtable", "e", "families=cf"]),
    );
    expect(0, cbt(&["-instance=other", "set", "e", "r", "cf:q=v@1000"]));
    assert_eq!(stdout(&expect(0, cbt(&["ls"]))), "t\n");
    assert_eq!(
        stdout(&expect(0, cbt(&["-instance", "other", "ls"]))),
        "e\n"
    );
    let out = expect(1, cbt(&["read", "e"]));
    assert!(
        stderr(&out).contains("\"projects/p/instances/i/tables/e\" not found"),
        "{}",
        stderr(&out)
    );
    // The JSON protocol reaches both through the names of its requests.
    let out = expect(
        0,
        run_in(
            &dir,
            &["json"],
            b"{\"method\": \"listTables\", \"request\": {\"parent\": \"projects/p/instances/other\"}}\n\
              {\"method\": \"listTables\", \"request\": {\"parent\": \"projects/p/instances/i\"}}\n",
        ),
    );
    assert_eq!(
        stdout(&out),
        "{\"response\":{\"tables\":[{\"name\":\"projects/p/instances/other/tables/e\"}]}}\n\
         {\"response\":{\"tables\":[{\"name\":\"projects/p/instances/i/tables/t\"}]}}\n"
    );
    // A script selects per line.
    let out = expect(
        0,
        run_in(
            &dir,
            &["cbt"],
            b"-instance other read e\nls\n-project p -instance other count e\n",
        ),
    );
    assert!(stdout(&out).contains("cf:q"), "{}", stdout(&out));
    assert!(stdout(&out).ends_with("t\n1\n"), "{}", stdout(&out));
}

#[test]
fn sim_runs_a_scenario_file_or_says_what_is_wrong() {
    let dir = scratch("sim");
    fs::write(dir.join("bad.toml"), "name = 1\n").unwrap();
    let out = expect(1, run_in(&dir, &["sim", "bad.toml"], b""));
    assert!(
        stderr(&out).starts_with("tabletop: bad.toml: "),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
    let out = expect(1, run_in(&dir, &["sim", "missing.toml"], b""));
    assert!(
        stderr(&out).contains("cannot read the scenario missing.toml"),
        "{}",
        stderr(&out)
    );
    let out = expect(2, run_in(&dir, &["sim"], b""));
    assert!(
        stderr(&out).contains("needs a scenario file"),
        "{}",
        stderr(&out)
    );
    // The example scenarios shipped with the web app run, as text and JSON.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../static/scenarios");
    let Some(example) = fs::read_dir(&examples).ok().and_then(|entries| {
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        files.into_iter().next()
    }) else {
        return;
    };
    let text = fs::read(&example).unwrap();
    let path = example.to_string_lossy().into_owned();
    let out = expect(0, run_in(&dir, &["sim", &path], b""));
    assert!(stdout(&out).starts_with("Scenario: "), "{}", stdout(&out));
    let out = expect(0, run_in(&dir, &["sim", "--json", "-"], &text));
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("sim --json prints one JSON document");
    assert!(report.get("scenario").is_some(), "{report}");
}

/// The scenarios shipped with the playground, for `lint`.
fn scenario(name: &str) -> String {
    format!("{}/../static/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn lint_fails_a_timestamp_first_design_and_passes_a_good_one() {
    let bad = expect(
        1,
        tabletop(&["lint", &scenario("mobile_timestamp_first.toml")]),
    );
    let text = stdout(&bad);
    assert!(text.contains("timestamp_first"), "{text}");
    assert!(text.contains("1 error"), "{text}");
    let good = expect(
        0,
        tabletop(&["lint", &scenario("mobile_device_first.toml")]),
    );
    assert!(!stdout(&good).contains("timestamp_first"));
    let json = expect(
        1,
        tabletop(&["lint", "--json", &scenario("mobile_timestamp_first.toml")]),
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("JSON report");
    assert_eq!(v["findings"][0]["rule"], "timestamp_first", "{v}");
}

#[test]
fn lint_refuses_an_invalid_scenario_with_the_line() {
    let dir = scratch("lint-invalid");
    let path = dir.join("bad.toml");
    std::fs::write(&path, "name = \"x\"\n[key]\nsegments = 3\n").expect("write");
    let out = expect(2, tabletop(&["lint", path.to_str().expect("utf-8 path")]));
    assert!(stderr(&out).contains("line"), "{}", stderr(&out));
}

#[test]
fn completions_are_generated_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let out = expect(0, tabletop(&["completions", shell]));
        let script = stdout(&out);
        for word in [
            "cbt",
            "translate",
            "export",
            "state",
            "key-encoding",
            "format",
        ] {
            assert!(script.contains(word), "{shell}: {word} missing");
        }
    }
    let out = expect(2, tabletop(&["completions", "tcsh"]));
    assert!(stderr(&out).contains("possible values"), "{}", stderr(&out));
}

#[test]
fn ids_that_no_resource_name_holds_are_refused() {
    let dir = scratch("bad-ids");
    for args in [
        &["cbt", "-project", "x\ntouch pwned #", "createtable", "t"][..],
        &["-instance", "a/b", "cbt", "createtable", "t"][..],
        &["cbt", "-instance=a b", "createtable", "t"][..],
    ] {
        let out = expect(2, run_in(&dir, args, b""));
        assert!(stderr(&out).contains("may only hold"), "{}", stderr(&out));
    }
    assert!(!dir.join("tabletop.state").exists(), "nothing was saved");
}

#[test]
fn two_shells_writing_one_state_file_keep_every_write() {
    let dir = scratch("concurrent");
    expect(
        0,
        run_in(&dir, &["cbt", "createtable", "t", "families=cf"], b""),
    );
    let writers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|who| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let row = format!("{who}{i:02}");
                    expect(0, run_in(&dir, &["cbt", "set", "t", &row, "cf:q=v"], b""));
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let out = expect(0, run_in(&dir, &["cbt", "count", "t"], b""));
    assert_eq!(
        stdout(&out).trim(),
        "50",
        "every row of both writers is kept"
    );
}

#[test]
fn pipes_and_devices_are_refused_as_state_or_input() {
    let dir = scratch("devices");
    let out = expect(1, run_in(&dir, &["--state", "/dev/zero", "cbt", "ls"], b""));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
    let out = expect(1, run_in(&dir, &["sim", "/dev/zero"], b""));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
    // lint's input errors exit 2 (1 is for findings).
    let out = expect(2, run_in(&dir, &["lint", "/"], b""));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_script_keeps_the_batches_a_failed_import_wrote() {
    let dir = scratch("import-fails");
    let mut csv = String::from(",cf\n,q\n");
    for i in 0..1200 {
        csv.push_str(&format!("r{i:04},v\n"));
    }
    csv.push_str(&format!("{},v\n", "x".repeat(5000)));
    fs::write(dir.join("d.csv"), csv).unwrap();
    let out = expect(
        1,
        run_in(
            &dir,
            &["cbt"],
            b"createtable t families=cf\nimport t d.csv batch-size=500\n",
        ),
    );
    assert!(stderr(&out).contains("line 2:"), "{}", stderr(&out));
    // The batches written before the failing row are in the state file, as
    // the help promises, though no later command succeeded.
    let out = expect(0, run_in(&dir, &["cbt", "count", "t"], b""));
    assert_eq!(stdout(&out).trim(), "1200");
}

#[test]
fn a_read_only_state_file_is_not_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("read-only");
    expect(
        0,
        run_in(&dir, &["cbt", "createtable", "t", "families=cf"], b""),
    );
    let state = dir.join("tabletop.state");
    let before = fs::read(&state).unwrap();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o444)).unwrap();
    let out = expect(1, run_in(&dir, &["cbt", "set", "t", "r", "cf:q=v"], b""));
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    assert_eq!(fs::read(&state).unwrap(), before, "the file is as it was");
    fs::set_permissions(&state, fs::Permissions::from_mode(0o644)).unwrap();
}

#[test]
fn a_simulation_past_year_9999_is_refused_with_the_reason() {
    let dir = scratch("sim-9999");
    let text = fs::read_to_string(scenario("mobile_timestamp_first.toml"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("start =") && !l.starts_with("duration ="))
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.replacen(
        "\n[",
        "\nstart = \"9999-12-31T00:00:00Z\"\nduration = \"30d\"\n[",
        1,
    );
    fs::write(dir.join("late.toml"), text).unwrap();
    let out = expect(1, run_in(&dir, &["sim", "late.toml"], b""));
    assert!(
        stderr(&out).contains("past the end of year 9999"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("panicked"));
}

#[test]
fn import_streams_a_csv_larger_than_the_text_cap() {
    let dir = scratch("import-stream");
    let mut csv = String::from(",cf\n,q\n");
    let mut i = 0;
    while csv.len() < 300_000 {
        csv.push_str(&format!("row{i:06},{}\n", "v".repeat(40)));
        i += 1;
    }
    fs::write(dir.join("big.csv"), &csv).unwrap();
    fs::write(dir.join("fmt.yaml"), "x".repeat(200_000)).unwrap();
    let capped = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tabletop"))
            .args(args)
            .current_dir(&dir)
            .env_remove("TABLETOP_STATE")
            .env("TABLETOP_TEST_MAX_TEXT_BYTES", "100000")
            .output()
            .unwrap()
    };
    expect(0, capped(&["cbt", "createtable", "t", "families=cf"]));
    // The CSV is three times the cap: imported whole, as it is streamed.
    let out = expect(0, capped(&["cbt", "import", "t", "big.csv"]));
    assert!(
        stderr(&out).contains(&format!("Done importing {i} rows.")),
        "{}",
        stderr(&out)
    );
    let out = expect(0, capped(&["cbt", "count", "t"]));
    assert_eq!(stdout(&out).trim(), i.to_string());
    // A text input that is read whole is capped.
    let out = expect(1, capped(&["cbt", "read", "t", "format-file=fmt.yaml"]));
    assert!(
        stderr(&out).contains("larger than 100000 bytes"),
        "{}",
        stderr(&out)
    );
    fs::write(dir.join("big.toml"), "#".repeat(200_000)).unwrap();
    let out = expect(1, capped(&["sim", "big.toml"]));
    assert!(
        stderr(&out).contains("larger than 100000 bytes"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn json_refuses_a_read_answer_past_the_cap() {
    let dir = scratch("answer-cap");
    let mut script = String::from("createtable t families=cf\n");
    for i in 0..50 {
        script.push_str(&format!("set t r{i:02} cf:q={}\n", "v".repeat(100)));
    }
    expect(0, run_in(&dir, &["cbt"], script.as_bytes()));
    let requests = concat!(
        r#"{"method": "readRows", "request": {"tableName": "projects/tabletop/instances/playground/tables/t"}}"#,
        "\n",
        r#"{"method": "readRows", "request": {"tableName": "projects/tabletop/instances/playground/tables/t", "rowsLimit": "2"}}"#,
        "\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .arg("json")
        .current_dir(&dir)
        .env_remove("TABLETOP_STATE")
        .env("TABLETOP_TEST_MAX_ANSWER_BYTES", "2000")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), requests.as_bytes()).unwrap();
    let out = expect(0, child.wait_with_output().unwrap());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with(
            r#"{"error":{"code":8,"message":"the readRows answer would be larger than 2000 bytes"#
        ),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("RESOURCE_EXHAUSTED"));
    // A read that fits is answered, in the same session.
    assert!(
        lines[1].starts_with(r#"{"response":{"rows":["#),
        "{}",
        lines[1]
    );
    // Without the test cap (256 MiB), the whole table is answered.
    let out = expect(0, run_in(&dir, &["json"], requests.as_bytes()));
    assert!(stdout(&out).starts_with(r#"{"response":{"rows":["#));
}
