//! What the CLI test files share: a scratch directory per test, the real
//! `tabletop` binary run in it with a script on stdin, and its output read
//! and its exit status checked.

// Each test file uses the part it needs.
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A fresh scratch directory `group/name` under cargo's per-target tmp
/// (each test file has its own group, so parallel test binaries never
/// share one).
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("the scratch directory can be created");
    dir
}

/// Runs `tabletop ARGS` in `dir` with `stdin`, with no `TABLETOP_STATE`
/// from the environment and the time zone fixed to UTC.
pub fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(args)
        .current_dir(dir)
        .env_remove("TABLETOP_STATE")
        .env("TZ", "UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tabletop binary was built by cargo for this test");
    let mut input = child.stdin.take().expect("stdin is piped");
    // A run that fails early (a refused state file) may exit before it
    // reads its stdin: a broken pipe here is part of that, not a failure.
    if let Err(e) = input.write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    drop(input);
    child.wait_with_output().expect("tabletop runs to the end")
}

/// What a run wrote to stdout, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What a run wrote to stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts a run's exit status, showing its stdout and stderr if it
/// differs; returns the run.
#[track_caller]
pub fn expect(code: i32, out: Output) -> Output {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    out
}
