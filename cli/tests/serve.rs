//! `tabletop serve` driven by Google's real `cbt` over gRPC, as a user
//! would with `BIGTABLE_EMULATOR_HOST`; and its command line, first line
//! and shutdown.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdout, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

const CBT: &str = "/usr/bin/cbt";

/// A running `tabletop serve -host 127.0.0.1 -port 0`, killed on drop.
struct Server {
    child: Child,
    addr: String,
    _stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start() -> Server {
        Server::start_with(&[])
    }

    /// `tabletop serve -host 127.0.0.1 -port 0 EXTRA`.
    fn start_with(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
            .args(["serve", "-host", "127.0.0.1", "-port", "0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the tabletop binary was built by cargo for this test");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the first line is read");
        let prefix = "Tabletop Bigtable emulator running on 127.0.0.1:";
        assert!(line.starts_with(prefix), "first line: {line:?}");
        let port: u16 = line[prefix.len()..].trim().parse().expect("a port");
        assert_ne!(port, 0);
        Server {
            addr: format!("127.0.0.1:{port}"),
            child,
            _stdout: stdout,
        }
    }

    /// `cbt -project p -instance i ARGS` against this server. `-creds`
    /// names a credentials file so cbt skips asking gcloud for one (about
    /// two seconds a command); against an emulator it is never read.
    fn cbt(&self, args: &[&str]) -> Output {
        Command::new(CBT)
            .args(["-project", "p", "-instance", "i", "-creds", "/dev/null"])
            .args(args)
            .env("BIGTABLE_EMULATOR_HOST", &self.addr)
            .env("TZ", "UTC")
            .stdin(Stdio::null())
            .output()
            .expect("Google's cbt is installed at /usr/bin/cbt")
    }

    fn cbt_ok(&self, args: &[&str]) -> String {
        let out = self.cbt(args);
        assert!(
            out.status.success(),
            "cbt {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("cbt prints UTF-8")
    }

    /// Sends this server the signal `kill` names with `flag` (`-TERM`).
    fn signal(&self, flag: &str) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args([flag, &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill {flag} {pid}");
    }

    /// Sends SIGTERM and waits (at most 10 s) for the exit.
    fn terminate(mut self) -> ExitStatus {
        self.signal("-TERM");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "no exit 10 s after SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn cbt_creates_a_table_writes_and_reads_it_back() {
    let server = Server::start();
    server.cbt_ok(&["createtable", "t"]);
    server.cbt_ok(&["createfamily", "t", "cf"]);
    server.cbt_ok(&["set", "t", "r1", "cf:c=v", "cf:d=w"]);
    server.cbt_ok(&["set", "t", "r2", "cf:c=x"]);
    assert_eq!(server.cbt_ok(&["ls"]), "t\n");
    let read = server.cbt_ok(&["read", "t"]);
    let lines: Vec<&str> = read.lines().filter(|l| !l.starts_with("  cf:")).collect();
    assert_eq!(
        lines,
        [
            "----------------------------------------",
            "r1",
            "    \"v\"",
            "    \"w\"",
            "",
            "----------------------------------------",
            "r2",
            "    \"x\"",
            "",
        ],
        "{read}"
    );
    let one = server.cbt_ok(&["lookup", "t", "r2"]);
    assert!(
        one.contains("r2\n  cf:c ") && one.contains("\"x\""),
        "{one}"
    );
    assert!(!one.contains("r1"), "{one}");
    assert_eq!(server.cbt_ok(&["count", "t"]), "2\n");
    server.cbt_ok(&["deleterow", "t", "r1"]);
    assert_eq!(server.cbt_ok(&["count", "t"]), "1\n");
    server.cbt_ok(&["deletetable", "t"]);
    assert_eq!(server.cbt_ok(&["ls"]), "");
}

#[test]
fn errors_reach_cbt_with_the_json_protocol_s_code_and_the_emulator_s_words() {
    let server = Server::start();
    let out = server.cbt(&["read", "nope"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "code = NotFound desc = table \"projects/p/instances/i/tables/nope\" not found"
        ),
        "{err}"
    );
    server.cbt_ok(&["createtable", "t"]);
    let out = server.cbt(&["createtable", "t"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "code = AlreadyExists desc = table \"projects/p/instances/i/tables/t\" already exists"
        ),
        "{err}"
    );
    let out = server.cbt(&["set", "t", "r", "nofamily:c=v"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("code = NotFound"), "{err}");
    // The server is still healthy after the errors.
    server.cbt_ok(&["createfamily", "t", "cf"]);
    server.cbt_ok(&["set", "t", "r", "cf:c=v"]);
    assert_eq!(server.cbt_ok(&["count", "t"]), "1\n");
}

#[test]
fn sigterm_shuts_the_server_down_cleanly() {
    let server = Server::start();
    server.cbt_ok(&["createtable", "t"]);
    let status = server.terminate();
    assert_eq!(status.code(), Some(0), "{status:?}");
}

/// A scratch directory of this file's own, made fresh.
fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("serve", name)
}

#[test]
fn state_keeps_the_instance_between_runs_and_other_commands_read_it() {
    let dir = scratch("state");
    let file = dir.join("kept.state");
    let file = file.to_str().expect("a UTF-8 path");
    let server = Server::start_with(&["--state", file]);
    server.cbt_ok(&["createtable", "t", "families=cf"]);
    server.cbt_ok(&["set", "t", "r1", "cf:c=kept"]);
    assert_eq!(server.terminate().code(), Some(0));

    // The other commands read what the server saved.
    let out = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(["--state", file, "cbt", "read", "t"])
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .output()
        .expect("the tabletop binary runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("\"kept\""), "{text}");

    // And a second server starts from it.
    let server = Server::start_with(&["-state", file]);
    let read = server.cbt_ok(&["lookup", "t", "r1"]);
    assert!(read.contains("\"kept\""), "{read}");
    server.cbt_ok(&["set", "t", "r2", "cf:c=more"]);
    assert_eq!(server.terminate().code(), Some(0));
    let server = Server::start_with(&["--state", file]);
    assert_eq!(server.cbt_ok(&["count", "t"]), "2\n");
}

#[test]
fn how_cbt_spelled_its_families_survives_a_restart() {
    let dir = scratch("spelling");
    let file = dir.join("spelled.state");
    let file = file.to_str().expect("a UTF-8 path");
    let server = Server::start_with(&["--state", file]);
    // cbt sends an empty GC rule for `cf` and spells out the counter's
    // encoding; the core keeps neither form, the server notes both.
    server.cbt_ok(&["createtable", "t", "families=cf,counts:never:intsum"]);
    server.cbt_ok(&["createfamily", "t", "more"]);
    let listed = server.cbt_ok(&["ls", "t"]);
    // Killed, so only what was kept as each change committed is there.
    server.signal("-KILL");
    drop(server);
    let server = Server::start_with(&["--state", file]);
    assert_eq!(server.cbt_ok(&["ls", "t"]), listed);
    // A family made since is echoed too, after a clean stop as well.
    server.cbt_ok(&["createfamily", "t", "late"]);
    let listed = server.cbt_ok(&["ls", "t"]);
    assert_eq!(server.terminate().code(), Some(0));
    let server = Server::start_with(&["--state", file]);
    assert_eq!(server.cbt_ok(&["ls", "t"]), listed);
}

/// `tabletop --state FILE cbt ARGS`, its standard output.
fn cbt_on_state(file: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(["--state", file, "cbt"])
        .args(args)
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .output()
        .expect("the tabletop binary runs");
    assert!(
        out.status.success(),
        "cbt {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn every_answered_write_survives_a_sigkill() {
    let dir = scratch("killed");
    let file = dir.join("killed.state");
    let file = file.to_str().expect("a UTF-8 path");
    let server = Server::start_with(&["--state", file]);
    server.cbt_ok(&["createtable", "t", "families=cf"]);
    let snapshot = std::fs::read(file).expect("the first change wrote the snapshot");
    server.cbt_ok(&["set", "t", "r1", "cf:c=one"]);
    server.cbt_ok(&["set", "t", "r2", "cf:c=two", "cf:d=three"]);
    server.cbt_ok(&["deleterow", "t", "r1"]);
    server.cbt_ok(&["createfamily", "t", "more"]);
    server.cbt_ok(&["set", "t", "r3", "more:x=after"]);
    server.cbt_ok(&["setgcpolicy", "t", "more", "maxversions=1"]);
    // Writes and schema changes are appended to the log, not to the
    // snapshot.
    assert!(std::fs::metadata(format!("{file}.wal")).is_ok_and(|m| m.len() > 0));
    assert!(std::fs::read(file).is_ok_and(|now| now == snapshot));
    server.signal("-KILL");
    drop(server);

    let read = cbt_on_state(file, &["read", "t"]);
    assert!(!read.contains("r1"), "{read}");
    let families = cbt_on_state(file, &["ls", "t"]);
    assert!(families.contains("versions() > 1"), "{families}");
    for kept in ["\"two\"", "\"three\"", "\"after\""] {
        assert!(read.contains(kept), "{kept} missing from {read}");
    }
    // A server started after the kill serves the same, and keeps writing.
    let server = Server::start_with(&["--state", file]);
    assert_eq!(server.cbt_ok(&["count", "t"]), "2\n");
    server.cbt_ok(&["set", "t", "r4", "cf:c=four"]);
    server.signal("-KILL");
    drop(server);
    assert_eq!(cbt_on_state(file, &["count", "t"]), "3\n");
}

#[test]
fn keyviz_out_writes_the_served_traffic_on_request_and_on_stopping() {
    let dir = scratch("keyviz");
    let page = dir.join("served.html");
    let server = Server::start_with(&["--keyviz-out", page.to_str().expect("UTF-8")]);
    server.cbt_ok(&["createtable", "quiet", "families=cf"]);
    server.cbt_ok(&["createtable", "busy", "families=cf"]);
    for i in 0..5 {
        server.cbt_ok(&["set", "busy", &format!("row{i}"), "cf:c=v"]);
    }
    server.cbt_ok(&["read", "busy"]);
    assert!(!page.exists(), "written only on request or when stopping");
    // On request (SIGUSR1) while it runs, and it goes on serving.
    server.signal("-USR1");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !page.exists() {
        assert!(Instant::now() < deadline, "no page 10 s after SIGUSR1");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.cbt_ok(&["set", "busy", "row9", "cf:c=v"]);
    std::fs::remove_file(&page).expect("remove the first page");
    assert_eq!(server.terminate().code(), Some(0));
    let html = std::fs::read_to_string(&page).expect("the page was written");
    assert!(html.contains("<h1>Key Visualizer: busy</h1>"), "{html}");
    assert!(
        !html.contains("Key Visualizer: quiet"),
        "only tables with traffic"
    );
    assert!(html.contains("6 rows written"), "{html}");
    assert!(html.contains("<img"), "a heatmap");
}

/// `--nodes N` gives the page's tablets to N nodes, as `tabletop keyviz
/// --nodes N` does; a count out of range, or one without a page to
/// shape, is a usage error before the server listens.
#[test]
fn keyviz_out_gives_the_tablets_to_the_nodes_asked_for() {
    let dir = scratch("keyviz-nodes");
    let page = dir.join("served.html");
    let page_arg = page.to_str().expect("UTF-8");
    let server = Server::start_with(&["--keyviz-out", page_arg, "--nodes", "7"]);
    server.cbt_ok(&["createtable", "busy", "families=cf"]);
    server.cbt_ok(&["set", "busy", "row1", "cf:c=v"]);
    assert_eq!(server.terminate().code(), Some(0));
    let html = std::fs::read_to_string(&page).expect("the page was written");
    assert!(html.contains("1 tablet on 7 nodes"), "{html}");

    for bad in ["0", "1001", "two"] {
        let out = serve_with(&["-port", "0", "--keyviz-out", page_arg, "--nodes", bad]);
        assert_eq!(out.status.code(), Some(2), "--nodes {bad}");
        assert!(out.stdout.is_empty(), "no first line");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "--nodes {bad}: want a whole number from 1 to 1000"
            )),
            "{bad}: {err}"
        );
    }
    let out = serve_with(&["-port", "0", "--nodes", "2"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("give --keyviz-out"), "{err}");
}

#[test]
fn a_state_file_that_is_not_one_is_refused_before_listening() {
    let dir = scratch("bad-state");
    let file = dir.join("bad.state");
    std::fs::write(&file, b"not a snapshot").expect("write");
    let out = serve_with(&["-port", "0", "--state", file.to_str().expect("UTF-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no first line");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.state"), "{err}");
    assert_eq!(std::fs::read(&file).expect("read"), b"not a snapshot");
}

fn serve_with(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .arg("serve")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the tabletop binary runs")
}

#[test]
fn a_bad_command_line_is_a_usage_error() {
    let out = serve_with(&["-port", "99999"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("99999"), "{err}");
    let out = serve_with(&["extra"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_port_in_use_is_a_clear_error() {
    let server = Server::start();
    let port = server
        .addr
        .rsplit(':')
        .next()
        .unwrap_or_default()
        .to_string();
    let out = serve_with(&["-host", "127.0.0.1", "-port", &port]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{err}"
    );
    let mut rest = String::new();
    let _ = out.stdout.as_slice().read_to_string(&mut rest);
    assert_eq!(rest, "", "no first line when it could not listen");
}

#[test]
fn help_describes_serve() {
    let out = serve_with(&["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Usage: tabletop serve [-host HOST] [-port PORT]"),
        "{text}"
    );
}
