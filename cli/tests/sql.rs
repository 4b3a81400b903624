//! `tabletop sql` as a person runs it: statements from the arguments or a
//! script on stdin, text tables or JSON lines, views and row-key schemas
//! kept in the state file, exit codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::run_in;

fn scratch(name: &str) -> PathBuf {
    common::scratch("cli-sql-tests", name)
}

#[track_caller]
fn expect(code: i32, out: Output) -> (String, String) {
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(out.status.code(), Some(code), "stdout: {o}\nstderr: {e}");
    (o, e)
}

fn setup(dir: &Path) {
    let script = b"createtable mobile families=stats\n\
        set mobile phone#4c410523#20200501 stats:os=PQ2A stats:cpu=0.5\n\
        set mobile phone#4c410523#20200502 stats:os=PQ2B\n\
        set mobile tablet#a0b81f74#20200501 stats:os=PQ2A\n";
    expect(0, run_in(dir, &["cbt"], script));
}

#[test]
fn a_query_from_the_arguments_prints_a_table() {
    let dir = scratch("query");
    setup(&dir);
    let (out, _) = expect(
        0,
        run_in(
            &dir,
            &[
                "sql",
                "SELECT _key, stats['os'] AS os FROM mobile WHERE STARTS_WITH(_key, 'phone#')",
            ],
            b"",
        ),
    );
    assert!(out.contains("| phone#4c410523#20200501 | PQ2A  |"), "{out}");
    assert!(out.contains("| BYTES                   | BYTES |"), "{out}");
    assert!(out.contains("2 rows (prefix scan of \"phone#\""), "{out}");
    let (out, _) = expect(
        0,
        run_in(
            &dir,
            &[
                "sql",
                "EXPLAIN",
                "SELECT _key FROM mobile WHERE stats['os'] = 'PQ2A'",
            ],
            b"",
        ),
    );
    assert!(
        out.contains("full table scan with a filter [full_scan]"),
        "{out}"
    );
    assert!(out.contains("rows scanned 3, returned 2"), "{out}");
}

#[test]
fn scripts_views_schemas_and_the_state_file() {
    let dir = scratch("script");
    setup(&dir);
    let script = b"ALTER TABLE mobile SET ROW KEY SCHEMA device STRING, id STRING, day INT64 DECIMAL(8) DELIMITED BY '#';\n\
        CREATE MATERIALIZED VIEW by_os AS SELECT SAFE_CONVERT_BYTES_TO_STRING(stats['os']) AS os, _key AS k FROM mobile ORDER BY os, k;\n\
        SELECT nope FROM mobile;\n\
        SELECT k FROM by_os WHERE os = 'PQ2A';\n";
    let (out, err) = expect(1, run_in(&dir, &["sql"], script));
    assert!(out.contains("all 3 row key(s) conform"), "{out}");
    assert!(out.contains("Created materialized view by_os"), "{out}");
    assert!(
        err.contains("line 3: INVALID_ARGUMENT: Unrecognized name: nope [at 1:8]"),
        "{err}"
    );
    assert!(out.contains("2 rows (prefix scan of \"PQ2A\""), "{out}");
    // The view and the schema are in the state file: a new run sees them
    // (in the instance they were made in; another instance has neither).
    let (out, _) = expect(
        1,
        run_in(
            &dir,
            &["-project", "other", "sql", "SELECT device FROM mobile"],
            b"",
        ),
    );
    assert!(out.is_empty(), "{out}");
    let (out, _) = expect(
        0,
        run_in(
            &dir,
            &[
                "sql",
                "--json",
                "SELECT device, day FROM mobile WHERE device = 'tablet'",
            ],
            b"",
        ),
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["response"]["rows"][0][0], "tablet");
    assert_eq!(v["response"]["rows"][0][1], "20200501");
    let (out, _) = expect(0, run_in(&dir, &["sql", "SHOW MATERIALIZED VIEWS"], b""));
    assert!(out.contains("by_os"), "{out}");
    // One statement per line when the script has no semicolon.
    let (out, _) = expect(
        0,
        run_in(
            &dir,
            &["sql", "--json"],
            b"SELECT 1 AS a\n\nSELECT 'x' AS b\n",
        ),
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    // ReadRows reads the view too.
    let (out, _) = expect(0, run_in(&dir, &["cbt", "count", "by_os"], b""));
    assert_eq!(out.trim(), "3");
}

#[test]
fn usage_errors_and_help() {
    let dir = scratch("usage");
    let (_, err) = expect(2, run_in(&dir, &["sql", "--bogus"], b""));
    assert!(err.contains("unknown option '--bogus' for sql"), "{err}");
    let (out, _) = expect(0, run_in(&dir, &["help", "sql"], b""));
    assert!(out.contains("Usage: tabletop sql"), "{out}");
    let (out, _) = expect(0, run_in(&dir, &["sql", "--help"], b""));
    assert!(out.contains("EXPLAIN SELECT"), "{out}");
    let (_, err) = expect(1, run_in(&dir, &["sql", "SELECT * FROM nope"], b""));
    assert!(err.contains("Table not found: nope"), "{err}");
    assert!(
        !dir.join("tabletop.state").exists(),
        "a failed query saves nothing"
    );
}

/// Logical views made with `tabletop json` are kept in the state file:
/// `tabletop sql` reads them in FROM, and writes appended to the state's
/// log afterwards show through them.
#[test]
fn logical_views_from_json_are_kept_and_queried() {
    let dir = scratch("logical-views");
    setup(&dir);
    let parent = "projects/tabletop/instances/playground";
    let create = format!(
        "{{\"method\": \"createLogicalView\", \"request\": {{\"parent\": \"{parent}\", \"logicalViewId\": \"phones\", \"logicalView\": {{\"query\": \"SELECT _key AS id, stats['os'] AS os FROM mobile WHERE STARTS_WITH(_key, 'phone#')\"}}}}}}\n"
    );
    let (out, _) = expect(0, run_in(&dir, &["json"], create.as_bytes()));
    assert!(out.starts_with("{\"response\""), "{out}");
    // A logged write after the view (state file log, not a new snapshot).
    expect(
        0,
        run_in(
            &dir,
            &["cbt", "set", "mobile", "phone#ffff#1", "stats:os=X1"],
            b"",
        ),
    );
    let (out, _) = expect(
        0,
        run_in(
            &dir,
            &["sql", "SELECT id FROM phones ORDER BY id DESC"],
            b"",
        ),
    );
    assert!(out.contains("| phone#ffff#1 "), "{out}");
    assert!(out.contains("3 rows"), "{out}");
    let (_, err) = expect(1, run_in(&dir, &["sql", "SELECT id FROM phonez"], b""));
    assert!(err.contains("Table not found: phonez"), "{err}");
    let get = format!(
        "{{\"method\": \"getLogicalView\", \"request\": {{\"name\": \"{parent}/logicalViews/phones\"}}}}\n"
    );
    let (out, _) = expect(0, run_in(&dir, &["json"], get.as_bytes()));
    assert!(out.contains("\"etag\""), "{out}");
}
