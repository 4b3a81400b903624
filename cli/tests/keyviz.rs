//! `tabletop keyviz`: the live Key Visualizer of what `tabletop cbt` did
//! to the state file, as text, JSON, an HTML page and a PNG.

mod common;

use std::fs;

use common::{expect, run_in, stdout};

/// Timestamp-first rows written a minute apart, then one prefix read.
fn script() -> Vec<u8> {
    let mut s = String::from("createtable t families=cf\nclock 2020-05-01T00:00:00Z\n");
    for minute in 0..12 {
        for i in 0..10 {
            s.push_str(&format!(
                "set t 2020-05-01T00:{minute:02}:{i:02}#dev{i} cf:v=1\n"
            ));
        }
        s.push_str("clock 1m\n");
    }
    s.push_str("read t prefix=2020-05-01T00:03\n");
    s.into_bytes()
}

#[test]
fn keyviz_reports_what_cbt_did() {
    let dir = common::scratch("keyviz-tests", "report");
    expect(0, run_in(&dir, &["cbt"], &script()));

    let text = stdout(&expect(0, run_in(&dir, &["keyviz"], b"")));
    assert!(
        text.contains("Live Key Visualizer: table t (120 rows"),
        "{text}"
    );
    assert!(text.contains("[warning] sequential_writes"), "{text}");

    let json = stdout(&expect(
        0,
        run_in(&dir, &["keyviz", "--table", "t", "--json"], b""),
    ));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["table"], "t");
    assert_eq!(v["totals"]["write_rows"], 120.0);
    assert_eq!(v["totals"]["read_rows"], 10.0);
    assert_eq!(v["diagnostics"][0]["pattern"], "sequential_writes");
    // Without --table: every table with traffic, in one object.
    let all = stdout(&expect(0, run_in(&dir, &["keyviz", "--json"], b"")));
    let all: serde_json::Value = serde_json::from_str(&all).unwrap();
    assert_eq!(all["tables"][0]["table"], "t");

    // keyviz only reads the state: a second run reports the same.
    let again = stdout(&expect(
        0,
        run_in(&dir, &["keyviz", "--table", "t", "--json"], b""),
    ));
    assert_eq!(json, again);

    expect(
        0,
        run_in(&dir, &["keyviz", "--table", "t", "--out", "k.html"], b""),
    );
    let html = fs::read_to_string(dir.join("k.html")).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(
        html.contains("src=\"data:image/png;base64,iVBORw0KGgo"),
        "an inline PNG"
    );
    assert!(html.contains("sequential_writes"));
    assert!(!html.contains("http"), "nothing from the network");
    expect(
        0,
        run_in(
            &dir,
            &["keyviz", "--metric", "read_rows", "--out", "k.png"],
            b"",
        ),
    );
    let png = fs::read(dir.join("k.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));

    // Google's metrics and messages, and the key axis by prefix.
    assert!(v["messages"].is_array(), "{v}");
    assert!(v["prefixes"].is_array(), "{v}");
    assert!(
        text.contains("Key Visualizer messages (Google's)"),
        "{text}"
    );
    expect(
        0,
        run_in(
            &dir,
            &["keyviz", "--metric", "write_pressure", "--out", "p.html"],
            b"",
        ),
    );
    let html = fs::read_to_string(dir.join("p.html")).unwrap();
    assert!(
        html.contains("write_pressure (index (100+ is poor))"),
        "{html}"
    );
    assert!(html.contains("class=\"axis\""), "{html}");
    assert!(html.contains("Key space not to scale"), "120 rows: {html}");
}

#[test]
fn keyviz_says_what_is_wrong() {
    let dir = common::scratch("keyviz-tests", "errors");
    expect(0, run_in(&dir, &["cbt", "createtable", "t"], b""));
    let out = expect(0, run_in(&dir, &["keyviz"], b""));
    assert!(
        stdout(&out).contains("No traffic recorded yet."),
        "{}",
        stdout(&out)
    );
    let out = expect(1, run_in(&dir, &["keyviz", "--table", "nope"], b""));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
    expect(2, run_in(&dir, &["keyviz", "--out", "k.svg"], b""));
    expect(2, run_in(&dir, &["keyviz", "extra"], b""));
    let out = expect(0, run_in(&dir, &["help", "keyviz"], b""));
    assert!(stdout(&out).contains("Usage: tabletop keyviz"));
}

/// The same traffic on a table pre-split into three tablets.
fn split_script() -> Vec<u8> {
    let mut s = script();
    let split = b"createtable t families=cf splits=2020-05-01T00:04,2020-05-01T00:08\n";
    s.splice(
        0..s.iter().position(|&b| b == b'\n').unwrap_or(0) + 1,
        split.iter().copied(),
    );
    s
}

#[test]
fn keyviz_gives_the_tablets_to_the_nodes_asked_for() {
    let dir = common::scratch("keyviz-tests", "nodes");
    expect(0, run_in(&dir, &["cbt"], &split_script()));

    let nodes_of = |args: &[&str]| -> Vec<u64> {
        let json = stdout(&expect(0, run_in(&dir, args, b"")));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        v["tablets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["node"].as_u64().unwrap())
            .collect()
    };
    let one = nodes_of(&["keyviz", "--table", "t", "--json", "--nodes", "1"]);
    assert_eq!(one, vec![0, 0, 0], "three tablets, all on the one node");
    let three = nodes_of(&["keyviz", "--table", "t", "--json", "--nodes", "3"]);
    assert_eq!(three.len(), 3);
    assert!(three.iter().all(|&n| n < 3), "{three:?}");
    let mut used = three.clone();
    used.sort_unstable();
    used.dedup();
    assert!(
        used.len() > 1,
        "three busy tablets share three nodes: {three:?}"
    );
    let json = stdout(&expect(
        0,
        run_in(
            &dir,
            &["keyviz", "--table", "t", "--json", "--nodes", "3"],
            b"",
        ),
    ));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["nodes"], 3, "{v}");

    let text = stdout(&expect(
        0,
        run_in(&dir, &["keyviz", "--table", "t", "--nodes", "3"], b""),
    ));
    assert!(text.contains("3 tablets on 3 nodes"), "{text}");
    assert!(text.contains("Tablets by node: node 0:"), "{text}");

    expect(
        0,
        run_in(
            &dir,
            &["keyviz", "--table", "t", "--nodes", "2", "--out", "n.html"],
            b"",
        ),
    );
    let html = fs::read_to_string(dir.join("n.html")).unwrap();
    assert!(html.contains("3 tablets on 2 nodes"), "{html}");

    for bad in ["0", "1001", "two"] {
        let out = expect(2, run_in(&dir, &["keyviz", "--nodes", bad], b""));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--nodes"), "{bad}: {err}");
    }
}
