//! The state file as a store: writes append to the log beside the
//! snapshot (`NAME.wal`), every command sees them, a torn record is
//! dropped, compaction folds the log into a new snapshot, and a killed
//! writer leaves the old state or the new one.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{expect, run_in, stdout};

fn scratch(name: &str) -> PathBuf {
    common::scratch("state-log-tests", name)
}

#[track_caller]
fn cbt(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["cbt"];
    all.extend_from_slice(args);
    stdout(&expect(0, run_in(dir, &all, b"")))
}

fn count(dir: &Path) -> usize {
    cbt(dir, &["count", "t"]).trim().parse().unwrap()
}

fn len(path: &Path) -> u64 {
    fs::metadata(path).map_or(0, |m| m.len())
}

/// The bytes of records in the log at `path` (after its header: 45 fixed
/// bytes, the shell, 8 bytes of checksum); 0 for no log.
fn log_bytes(path: &Path) -> u64 {
    let Ok(bytes) = fs::read(path) else {
        return 0;
    };
    let shell = u32::from_le_bytes(bytes[41..45].try_into().unwrap()) as usize;
    (bytes.len() - (45 + shell + 8)) as u64
}

/// A table `t` (family `cf`) with `rows` imported rows: a snapshot of some
/// size, with no log.
fn state_with_rows(dir: &Path, rows: usize) {
    let mut csv = String::from(",cf,cf\n,a,b\n");
    for i in 0..rows {
        csv.push_str(&format!("row{i:06},value-{i},{}\n", i * 7));
    }
    fs::write(dir.join("rows.csv"), csv).unwrap();
    cbt(dir, &["createtable", "t", "families=cf"]);
    cbt(dir, &["import", "t", "rows.csv"]);
    assert_eq!(log_bytes(&dir.join("tabletop.state.wal")), 0);
}

#[test]
fn a_set_appends_its_record_and_leaves_the_snapshot() {
    let dir = scratch("append");
    state_with_rows(&dir, 5000);
    let state = dir.join("tabletop.state");
    let wal = dir.join("tabletop.state.wal");
    let snapshot = fs::read(&state).unwrap();
    assert!(snapshot.len() > 100_000, "{}", snapshot.len());

    cbt(&dir, &["set", "t", "new1", "cf:a=hello"]);
    assert_eq!(fs::read(&state).unwrap(), snapshot, "the snapshot is kept");
    let first = len(&wal);
    assert!(
        (40..120).contains(&log_bytes(&wal)),
        "one record: {}",
        log_bytes(&wal)
    );
    cbt(&dir, &["set", "t", "new2", "cf:a=world"]);
    let record = len(&wal) - first;
    assert!((40..120).contains(&record), "one record: {record} bytes");
    assert_eq!(fs::read(&state).unwrap(), snapshot);

    // Every later run sees both, at the timestamps they were written with.
    let read = cbt(&dir, &["read", "t", "prefix=new"]);
    assert!(
        read.contains("\"hello\"") && read.contains("\"world\""),
        "{read}"
    );
    assert_eq!(cbt(&dir, &["read", "t", "prefix=new"]), read);
    assert_eq!(count(&dir), 5002);
    // A failed set writes nothing.
    expect(1, run_in(&dir, &["cbt", "set", "t", "r", "nope:a=1"], b""));
    assert_eq!(len(&wal), first + record);
}

#[test]
fn a_torn_record_is_dropped_and_the_file_still_opens() {
    let dir = scratch("torn");
    cbt(&dir, &["createtable", "t", "families=cf"]);
    cbt(&dir, &["set", "t", "a", "cf:q=1"]);
    let wal = dir.join("tabletop.state.wal");
    let one = fs::read(&wal).unwrap();
    cbt(&dir, &["set", "t", "b", "cf:q=2"]);
    let two = fs::read(&wal).unwrap();
    // Cut anywhere inside the second record, as kill -9 during the append
    // would: the first write is there, the second is not.
    for cut in [one.len() + 1, one.len() + 12, two.len() - 1] {
        fs::write(&wal, &two[..cut]).unwrap();
        assert_eq!(count(&dir), 1, "cut at {cut}");
        assert_eq!(fs::read(&wal).unwrap(), &two[..cut], "readers leave it");
    }
    // Garbage after intact records is dropped too.
    let mut garbage = two.clone();
    garbage.extend_from_slice(&[0xa5; 33]);
    fs::write(&wal, &garbage).unwrap();
    assert_eq!(count(&dir), 2);
    // The next write cuts the torn tail off and appends after the intact
    // records.
    fs::write(&wal, &two[..two.len() - 3]).unwrap();
    cbt(&dir, &["set", "t", "c", "cf:q=3"]);
    assert_eq!(count(&dir), 2, "a and c: b's record was torn");
    assert!(!cbt(&dir, &["lookup", "t", "b"]).contains("\"2\""));
    assert!(cbt(&dir, &["lookup", "t", "c"]).contains("\"3\""));
}

#[test]
fn compaction_keeps_everything_and_removes_the_log() {
    let dir = scratch("compaction");
    cbt(&dir, &["createtable", "t", "families=cf"]);
    let state = dir.join("tabletop.state");
    let wal = dir.join("tabletop.state.wal");
    for i in 0..5 {
        cbt(&dir, &["set", "t", &format!("r{i}"), "cf:q=v"]);
    }
    let snapshot = fs::read(&state).unwrap();
    assert!(log_bytes(&wal) > 0);
    // A change the log does not hold (a compaction) writes a snapshot.
    cbt(&dir, &["compact", "t"]);
    assert_eq!(log_bytes(&wal), 0, "the log was folded into the snapshot");
    assert_ne!(fs::read(&state).unwrap(), snapshot);
    assert_eq!(count(&dir), 5);

    // A log that has grown past its limit is compacted: here a script of
    // more sets than the log holds.
    let mut script = String::new();
    for i in 0..1001 {
        script.push_str(&format!("set t s{i:04} cf:q=v\n"));
    }
    let before = fs::read(&state).unwrap();
    expect(0, run_in(&dir, &["cbt"], script.as_bytes()));
    assert_eq!(log_bytes(&wal), 0);
    assert_ne!(fs::read(&state).unwrap(), before);
    assert_eq!(count(&dir), 1006);
    // A short script appends.
    expect(
        0,
        run_in(&dir, &["cbt"], b"set t x1 cf:q=1\nset t x2 cf:q=2\n"),
    );
    assert!(log_bytes(&wal) > 0);
    assert_eq!(count(&dir), 1008);
}

#[test]
fn a_stale_log_and_leftover_temporary_files_are_ignored_and_cleaned() {
    let dir = scratch("stale");
    cbt(&dir, &["createtable", "t", "families=cf"]);
    cbt(&dir, &["set", "t", "a", "cf:q=1"]);
    let wal = dir.join("tabletop.state.wal");
    let old_log = fs::read(&wal).unwrap();
    // A compaction that was killed after its rename, before it removed the
    // log: the log follows the old snapshot and must not be applied to the
    // new one (where the table was made again, empty).
    cbt(&dir, &["deletetable", "t"]);
    cbt(&dir, &["createtable", "t", "families=cf"]);
    cbt(&dir, &["compact"]);
    fs::write(&wal, &old_log).unwrap();
    assert_eq!(count(&dir), 0);
    cbt(&dir, &["set", "t", "b", "cf:q=2"]);
    assert_eq!(count(&dir), 1);
    // A compaction killed before its rename leaves a temporary file: the
    // next command removes it.
    let tmp = dir.join(".tabletop.state.tmp-4242");
    fs::write(&tmp, b"half a snapshot").unwrap();
    cbt(&dir, &["ls"]);
    assert!(!tmp.exists());
    // A log without its snapshot (the state file was deleted to start
    // over) is not applied to the new one.
    fs::remove_file(dir.join("tabletop.state")).unwrap();
    assert!(wal.exists());
    cbt(&dir, &["createtable", "t", "families=cf"]);
    assert_eq!(count(&dir), 0);
    assert_eq!(log_bytes(&wal), 0);
}

#[test]
fn every_command_that_reads_the_state_sees_the_log() {
    let dir = scratch("readers");
    cbt(&dir, &["createtable", "t", "families=cf"]);
    let snapshot = fs::read(dir.join("tabletop.state")).unwrap();
    cbt(&dir, &["set", "t", "row1", "cf:q=logged"]);
    let json = br#"{"method": "mutateRow", "request": {"tableName": "projects/tabletop/instances/playground/tables/t", "rowKey": "cm93Mg==", "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": "-1", "value": "anNvbg=="}}]}}
"#;
    expect(0, run_in(&dir, &["json"], json));
    assert_eq!(fs::read(dir.join("tabletop.state")).unwrap(), snapshot);

    assert_eq!(count(&dir), 2);
    let read = cbt(&dir, &["read", "t"]);
    assert!(
        read.contains("\"logged\"") && read.contains("\"json\""),
        "{read}"
    );
    assert!(cbt(&dir, &["lookup", "t", "row2"]).contains("\"json\""));
    let sql = stdout(&expect(
        0,
        run_in(&dir, &["sql", "SELECT _key FROM t"], b""),
    ));
    assert!(sql.contains("row1") && sql.contains("row2"), "{sql}");
    let answer = stdout(&expect(
        0,
        run_in(
            &dir,
            &["json"],
            br#"{"method": "readRows", "request": {"tableName": "projects/tabletop/instances/playground/tables/t"}}"#,
        ),
    ));
    assert!(
        answer.contains("cm93MQ==") && answer.contains("cm93Mg=="),
        "{answer}"
    );
    let keyviz = stdout(&expect(
        0,
        run_in(&dir, &["keyviz", "--table", "t", "--json"], b""),
    ));
    let v: serde_json::Value = serde_json::from_str(&keyviz).unwrap();
    assert_eq!(v["totals"]["write_rows"], 2.0, "{keyviz}");
    let export = stdout(&expect(0, run_in(&dir, &["export"], b"")));
    assert!(
        export.contains("row1") && export.contains("row2"),
        "{export}"
    );
}

#[test]
fn a_writer_killed_at_any_moment_leaves_the_old_or_the_new_state() {
    let dir = scratch("kill");
    state_with_rows(&dir, 2000);
    let mut expected = 2000;
    for i in 0..24u64 {
        // Alternate appends (a set, a new family) and compactions.
        let row = format!("k{i:03}");
        let args: Vec<String> = match i % 3 {
            0 => vec!["set".into(), "t".into(), row, "cf:a=1".into()],
            1 => vec!["createfamily".into(), "t".into(), format!("f{i}")],
            _ => vec!["compact".into(), "t".into()],
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
            .arg("cbt")
            .args(&args)
            .current_dir(&dir)
            .env_remove("TABLETOP_STATE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(i * 7 % 60));
        let _ = child.kill();
        let status = child.wait().unwrap();
        let n = count(&dir);
        let is_set = i % 3 == 0;
        if is_set && status.success() {
            expected += 1;
        }
        if is_set && !status.success() {
            // Killed: the write is there or not, never half.
            assert!(n == expected || n == expected + 1, "{n} vs {expected}");
            expected = n;
        }
        assert_eq!(n, expected, "round {i}");
        let families = cbt(&dir, &["ls", "t"]);
        assert!(families.contains("cf"), "{families}");
    }
}

#[test]
fn a_one_shot_write_runs_on_the_shell_without_reading_the_snapshot() {
    let dir = scratch("shell");
    state_with_rows(&dir, 500);
    let state = dir.join("tabletop.state");
    let snapshot = fs::read(&state).unwrap();
    // Damage the middle of the snapshot but keep its length, last bytes
    // and modification time: only reading it whole would notice.
    let modified = fs::metadata(&state).unwrap().modified().unwrap();
    let damaged = damaged(&snapshot);
    write_keeping_time(&state, &damaged, modified);
    // The write is checked against the shell (tables, families, clock)...
    let out = expect(1, run_in(&dir, &["cbt", "set", "t", "r", "nope:q=v"], b""));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("NotFound"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    cbt(&dir, &["set", "t", "fast", "cf:a=1"]);
    // ...and appended without the snapshot being read, while anything
    // that reads the instance still finds the damage and changes nothing.
    let out = expect(1, run_in(&dir, &["cbt", "count", "t"], b""));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("checksum mismatch"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fs::read(&state).unwrap(), damaged);
    // With the snapshot repaired, the write is there.
    write_keeping_time(&state, &snapshot, modified);
    assert_eq!(count(&dir), 501);
    // A snapshot changed since it was written (a new modification time)
    // is read whole by the next write, which then refuses it.
    fs::write(&state, &damaged).unwrap();
    let out = expect(1, run_in(&dir, &["cbt", "set", "t", "slow", "cf:a=1"], b""));
    assert!(String::from_utf8_lossy(&out.stderr).contains("checksum mismatch"));
}

#[test]
fn a_copied_state_is_written_again_by_its_first_write() {
    let dir = scratch("copied");
    cbt(&dir, &["createtable", "t", "families=cf"]);
    cbt(&dir, &["set", "t", "a", "cf:q=1"]);
    let copy = common::scratch("state-log-tests", "copied-to");
    for name in ["tabletop.state", "tabletop.state.wal"] {
        fs::copy(dir.join(name), copy.join(name)).unwrap();
    }
    let wal = copy.join("tabletop.state.wal");
    assert!(log_bytes(&wal) > 0);
    // The copy's time differs from the one its log names: the first write
    // loads it whole, checks it, and writes it again with a new log...
    cbt(&copy, &["set", "t", "b", "cf:q=2"]);
    assert_eq!(log_bytes(&wal), 0);
    // ...which the next writes append to.
    cbt(&copy, &["set", "t", "c", "cf:q=3"]);
    assert!(log_bytes(&wal) > 0);
    assert_eq!(count(&copy), 3);
    assert_eq!(count(&dir), 1);
}

#[test]
fn each_record_replays_in_the_instance_it_names() {
    let dir = scratch("instances");
    cbt(&dir, &["createtable", "t", "families=cf"]);
    cbt(&dir, &["set", "t", "a", "cf:q=1"]);
    // Another instance: a separate namespace in the same state file, its
    // writes logged under its own names.
    let other = |args: &[&str]| {
        let mut all = vec!["-project", "other", "cbt"];
        all.extend_from_slice(args);
        run_in(&dir, &all, b"")
    };
    expect(0, other(&["createtable", "t", "families=cf"]));
    expect(0, other(&["set", "t", "b", "cf:q=2"]));
    expect(0, other(&["set", "t", "c", "cf:q=3"]));
    cbt(&dir, &["set", "t", "d", "cf:q=4"]);
    assert_eq!(count(&dir), 2);
    assert_eq!(stdout(&expect(0, other(&["count", "t"]))), "2\n");
    let answer = stdout(&expect(
        0,
        run_in(
            &dir,
            &["json"],
            br#"{"method": "listTables", "request": {"parent": "projects/other/instances/playground"}}"#,
        ),
    ));
    assert!(
        answer.contains("projects/other/instances/playground/tables/t"),
        "{answer}"
    );
    let out = stdout(&expect(
        0,
        run_in(
            &dir,
            &[
                "-project", "other", "export", "--format", "cbt", "--data", "none",
            ],
            b"",
        ),
    ));
    assert!(out.contains("-project other"), "{out}");
}

#[test]
fn json_writes_that_read_first_replay_to_the_same_cells() {
    let dir = scratch("json-replay");
    cbt(&dir, &["createtable", "t", "families=cf"]);
    let table = "projects/tabletop/instances/playground/tables/t";
    // rowKey "r", qualifier "q"; append "a" then "b"; set "x" only if the
    // row has a cell (it has), else "y"; a server timestamp each time.
    let requests = [
        format!(
            r#"{{"method": "readModifyWriteRow", "request": {{"tableName": "{table}", "rowKey": "cg==", "rules": [{{"familyName": "cf", "columnQualifier": "cQ==", "appendValue": "YQ=="}}]}}}}"#
        ),
        format!(
            r#"{{"method": "readModifyWriteRow", "request": {{"tableName": "{table}", "rowKey": "cg==", "rules": [{{"familyName": "cf", "columnQualifier": "cQ==", "appendValue": "Yg=="}}]}}}}"#
        ),
        format!(
            r#"{{"method": "checkAndMutateRow", "request": {{"tableName": "{table}", "rowKey": "cg==", "trueMutations": [{{"setCell": {{"familyName": "cf", "columnQualifier": "dA==", "timestampMicros": "-1", "value": "eA=="}}}}], "falseMutations": [{{"setCell": {{"familyName": "cf", "columnQualifier": "dA==", "timestampMicros": "-1", "value": "eQ=="}}}}]}}}}"#
        ),
    ];
    let snapshot = fs::read(dir.join("tabletop.state")).unwrap();
    let answers = stdout(&expect(
        0,
        run_in(&dir, &["json"], (requests.join("\n") + "\n").as_bytes()),
    ));
    assert!(answers.contains("\"predicateMatched\":true"), "{answers}");
    assert_eq!(fs::read(dir.join("tabletop.state")).unwrap(), snapshot);
    assert!(log_bytes(&dir.join("tabletop.state.wal")) > 0);
    // Replayed by every run: the same values at the same timestamps.
    let read = cbt(&dir, &["read", "t"]);
    assert!(read.contains("\"ab\"") && read.contains("\"x\""), "{read}");
    assert!(!read.contains("\"y\""), "{read}");
    assert_eq!(cbt(&dir, &["read", "t"]), read);
    // And the same after compaction.
    cbt(&dir, &["compact"]);
    assert_eq!(log_bytes(&dir.join("tabletop.state.wal")), 0);
    assert_eq!(cbt(&dir, &["read", "t"]), read);
}

#[test]
fn a_json_run_of_writes_uses_the_shell_and_loads_the_instance_when_it_must() {
    let dir = scratch("json-shell");
    state_with_rows(&dir, 300);
    let state = dir.join("tabletop.state");
    let snapshot = fs::read(&state).unwrap();
    let modified = fs::metadata(&state).unwrap().modified().unwrap();
    let table = "projects/tabletop/instances/playground/tables/t";
    let write = |key: &str, family: &str| {
        format!(
            r#"{{"method": "mutateRow", "request": {{"tableName": "{table}", "rowKey": "{key}", "mutations": [{{"setCell": {{"familyName": "{family}", "columnQualifier": "cQ==", "timestampMicros": "-1", "value": "dg=="}}}}]}}}}"#
        )
    };
    // With the snapshot damaged (time kept), a run of writes still
    // succeeds: it never reads the snapshot. A bad family is refused.
    let damaged = damaged(&snapshot);
    write_keeping_time(&state, &damaged, modified);
    let run = format!("{}\n{}\n", write("azE=", "cf"), write("azI=", "nope"));
    let answers = stdout(&expect(0, run_in(&dir, &["json"], run.as_bytes())));
    let lines: Vec<&str> = answers.lines().collect();
    assert_eq!(lines[0], r#"{"response":{}}"#);
    assert!(lines[1].contains("NOT_FOUND"), "{}", lines[1]);
    write_keeping_time(&state, &snapshot, modified);
    assert_eq!(count(&dir), 301);
    // A run that writes and then reads loads the whole instance at the
    // read, with its own earlier write applied.
    let read = format!(
        r#"{{"method": "readRows", "request": {{"tableName": "{table}", "rows": {{"rowKeys": ["azE=", "azM="]}}}}}}"#
    );
    let run = format!("{}\n{read}\n", write("azM=", "cf"));
    let answers = stdout(&expect(0, run_in(&dir, &["json"], run.as_bytes())));
    let lines: Vec<&str> = answers.lines().collect();
    assert_eq!(lines[0], r#"{"response":{}}"#);
    assert!(
        lines[1].contains("azE=") && lines[1].contains("azM="),
        "{}",
        lines[1]
    );
    assert_eq!(count(&dir), 302);
}

#[test]
fn the_change_stream_is_kept_by_the_snapshot_and_replayed_from_the_log() {
    let dir = scratch("change-stream");
    let parent = "projects/tabletop/instances/playground";
    let table = format!("{parent}/tables/t");
    let create = format!(
        r#"{{"method": "createTable", "request": {{"parent": "{parent}", "tableId": "t", "table": {{"columnFamilies": {{"cf": {{}}}}, "changeStreamConfig": {{"retentionPeriod": "86400s"}}}}}}}}"#
    );
    expect(0, run_in(&dir, &["json"], (create + "\n").as_bytes()));
    // Two writes in separate runs: each one appended to the log.
    cbt(&dir, &["set", "t", "r1", "cf:q=one"]);
    let write = format!(
        r#"{{"method": "mutateRow", "request": {{"tableName": "{table}", "rowKey": "cjI=", "mutations": [{{"deleteFromRow": {{}}}}]}}}}"#
    );
    expect(0, run_in(&dir, &["json"], (write + "\n").as_bytes()));
    assert!(log_bytes(&dir.join("tabletop.state.wal")) > 0);
    let read = format!(
        r#"{{"method": "readChangeStream", "request": {{"tableName": "{table}", "partition": {{"rowRange": {{}}}}, "continuationTokens": {{"tokens": [{{"partition": {{"rowRange": {{}}}}, "token": "cs1.0"}}]}}}}}}"#
    );
    let changes = |dir: &Path| -> Vec<String> {
        let out = stdout(&expect(
            0,
            run_in(dir, &["json"], (read.clone() + "\n").as_bytes()),
        ));
        let answer: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        answer["response"]
            .as_array()
            .unwrap_or_else(|| panic!("{out}"))
            .iter()
            .filter_map(|m| m.get("dataChange"))
            .map(|d| format!("{} {}", d["rowKey"], d["chunks"]))
            .collect()
    };
    // The write replayed from the log is recorded as it was the first time.
    let before = changes(&dir);
    assert_eq!(before.len(), 2, "{before:?}");
    assert!(before[0].starts_with("\"cjE=\""), "{before:?}");
    assert!(before[1].contains("deleteFromFamily"), "{before:?}");
    // Folded into a new snapshot: the same records.
    cbt(&dir, &["compact"]);
    assert_eq!(log_bytes(&dir.join("tabletop.state.wal")), 0);
    assert_eq!(changes(&dir), before);
}

/// Sets the modification time of `path` to `time` (so the one-shot writes
/// still take the snapshot for the one the log was written after).
fn set_modified(path: &Path, time: std::time::SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

/// `snapshot` with one byte in its middle flipped: its length, last bytes
/// and (written with [`write_keeping_time`]) modification time are kept,
/// so only reading it whole notices.
fn damaged(snapshot: &[u8]) -> Vec<u8> {
    let mut damaged = snapshot.to_vec();
    let mid = damaged.len() / 2;
    damaged[mid] ^= 0x55;
    damaged
}

/// Writes `bytes` to `path` and gives it the modification time `time`.
fn write_keeping_time(path: &Path, bytes: &[u8], time: std::time::SystemTime) {
    fs::write(path, bytes).unwrap();
    set_modified(path, time);
}

#[test]
fn a_schema_change_appends_its_record_and_the_shell_replays_it() {
    let dir = scratch("schema-append");
    state_with_rows(&dir, 5000);
    let state = dir.join("tabletop.state");
    let wal = dir.join("tabletop.state.wal");
    let snapshot = fs::read(&state).unwrap();
    assert!(snapshot.len() > 100_000, "{}", snapshot.len());

    // cbt's schema changes: each one record, the snapshot untouched.
    cbt(&dir, &["createfamily", "t", "cf2"]);
    assert!(
        (40..200).contains(&log_bytes(&wal)),
        "one record: {}",
        log_bytes(&wal)
    );
    cbt(&dir, &["setgcpolicy", "t", "cf2", "maxversions=1"]);
    cbt(&dir, &["createtable", "u", "families=f"]);
    cbt(&dir, &["deletetable", "u"]);
    // The JSON protocol's: deletion protection, an authorized view, a
    // logical view.
    let parent = "projects/tabletop/instances/playground";
    let lines = [
        format!(
            r#"{{"method": "updateTable", "request": {{"table": {{"name": "{parent}/tables/t", "deletionProtection": true}}, "updateMask": "deletionProtection"}}}}"#
        ),
        format!(
            r#"{{"method": "createAuthorizedView", "request": {{"parent": "{parent}/tables/t", "authorizedViewId": "v", "authorizedView": {{"subsetView": {{"rowPrefixes": ["cm93MDAwMDA="], "familySubsets": {{"cf": {{"qualifierPrefixes": [""]}}}}}}}}}}}}"#
        ),
        format!(
            r#"{{"method": "createLogicalView", "request": {{"parent": "{parent}", "logicalViewId": "lv", "logicalView": {{"query": "SELECT _key, cf['a'] AS a FROM t WHERE _key < b'row000003'"}}}}}}"#
        ),
    ];
    for line in &lines {
        let out = stdout(&expect(0, run_in(&dir, &["json"], line.as_bytes())));
        assert!(out.starts_with(r#"{"response""#), "{line}: {out}");
    }
    assert_eq!(fs::read(&state).unwrap(), snapshot, "the snapshot is kept");
    assert!(log_bytes(&wal) < 4000, "{}", log_bytes(&wal));

    // A one-shot write runs on the shell with the schema records replayed
    // on it: the snapshot's middle damaged (length, tail and modification
    // time kept) is never read, and the new family is there.
    let modified = fs::metadata(&state).unwrap().modified().unwrap();
    write_keeping_time(&state, &damaged(&snapshot), modified);
    cbt(&dir, &["set", "t", "row000001", "cf2:q=on-the-shell"]);
    write_keeping_time(&state, &snapshot, modified);

    // Every later command sees every change.
    let families = cbt(&dir, &["ls", "t"]);
    assert!(
        families.contains("cf2") && families.contains("versions() > 1"),
        "{families}"
    );
    assert_eq!(cbt(&dir, &["ls"]), "t\n");
    assert!(cbt(&dir, &["lookup", "t", "row000001"]).contains("on-the-shell"));
    let out = expect(1, run_in(&dir, &["cbt", "deletetable", "t"], b""));
    assert!(stdout(&out).is_empty() && !common::stderr(&out).is_empty());
    let view = stdout(&expect(0, run_in(&dir, &["sql", "SELECT a FROM lv"], b"")));
    assert!(view.contains("3 rows"), "{view}");
    assert_eq!(count(&dir), 5000);
}

#[test]
fn a_schema_record_cut_short_is_dropped_and_nothing_else_is_lost() {
    let dir = scratch("schema-torn");
    state_with_rows(&dir, 1000);
    let wal = dir.join("tabletop.state.wal");
    cbt(&dir, &["set", "t", "new1", "cf:a=kept"]);
    cbt(&dir, &["createfamily", "t", "cf2"]);
    let intact = fs::read(&wal).unwrap();
    cbt(&dir, &["createfamily", "t", "cf3"]);
    let two = fs::read(&wal).unwrap();
    assert!(two.len() > intact.len());
    // Killed in the middle of the last append: that record is cut short.
    for cut in [intact.len() + 1, intact.len() + 13, two.len() - 1] {
        fs::write(&wal, &two[..cut]).unwrap();
        let families = cbt(&dir, &["ls", "t"]);
        assert!(families.contains("cf2"), "cut at {cut}: {families}");
        assert!(!families.contains("cf3"), "cut at {cut}: {families}");
        assert_eq!(count(&dir), 1001, "cut at {cut}");
        assert!(cbt(&dir, &["lookup", "t", "new1"]).contains("kept"));
    }
    // The next change cuts the torn tail off and appends after it.
    cbt(&dir, &["createfamily", "t", "cf4"]);
    let families = cbt(&dir, &["ls", "t"]);
    assert!(
        families.contains("cf2") && families.contains("cf4"),
        "{families}"
    );
    assert!(!families.contains("cf3"), "{families}");
    assert_eq!(count(&dir), 1001);
}

#[test]
fn a_state_file_written_by_an_earlier_build_still_loads() {
    // Written by the build before schema changes were logged (`tabletop
    // cbt` and `tabletop json` of main): a snapshot with a table, an
    // aggregate family, a row and a logical view, and a log with a `cbt
    // set`, a `cbt addtocell` and a JSON mutateRow.
    let dir = scratch("earlier-build");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/state-from-main");
    for name in ["tabletop.state", "tabletop.state.wal"] {
        fs::copy(fixture.join(name), dir.join(name)).unwrap();
    }
    let read = cbt(&dir, &["read", "t"]);
    for value in ["\"one\"", "\"two\"", "\"three\"", "\\x05"] {
        assert!(read.contains(value), "{value} missing from {read}");
    }
    let view = stdout(&expect(0, run_in(&dir, &["sql", "SELECT q FROM lv"], b"")));
    assert!(view.contains("3 rows"), "{view}");
    // It takes schema changes and writes, and keeps them.
    cbt(&dir, &["createfamily", "t", "later"]);
    cbt(&dir, &["set", "t", "r4", "later:q=four"]);
    cbt(&dir, &["createfamily", "t", "again"]);
    assert!(cbt(&dir, &["ls", "t"]).contains("again"));
    assert!(cbt(&dir, &["lookup", "t", "r4"]).contains("four"));
    assert_eq!(count(&dir), 4);
}

#[test]
fn a_log_started_by_a_schema_change_has_the_snapshot_s_shell() {
    // A snapshot without its log (copied alone): the first change starts
    // the log, whose header must hold the snapshot's shell, not the
    // instance after the change, or the shell could not replay it.
    let dir = scratch("schema-new-log");
    state_with_rows(&dir, 500);
    let state = dir.join("tabletop.state");
    let wal = dir.join("tabletop.state.wal");
    fs::remove_file(&wal).unwrap();
    let snapshot = fs::read(&state).unwrap();
    let modified = fs::metadata(&state).unwrap().modified().unwrap();
    cbt(&dir, &["createfamily", "t", "cf2"]);
    assert_eq!(fs::read(&state).unwrap(), snapshot, "appended, not written");
    write_keeping_time(&state, &damaged(&snapshot), modified);
    cbt(&dir, &["set", "t", "r", "cf2:q=on-the-shell"]);
    write_keeping_time(&state, &snapshot, modified);
    assert!(cbt(&dir, &["lookup", "t", "r"]).contains("on-the-shell"));
    assert_eq!(count(&dir), 501);
}
