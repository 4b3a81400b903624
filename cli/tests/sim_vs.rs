//! `tabletop sim A.toml --vs B.toml`: two row-key designs on one workload,
//! as text, JSON and a self-contained HTML page, and the errors for bad
//! input.

mod common;

use std::fs;

use common::{expect, run_in, scratch, stderr, stdout};

/// The example A/B pair shipped with the playground.
fn example(name: &str) -> String {
    format!("{}/../static/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

const A: &str = "ab_mobile_timestamp_first.toml";
const B: &str = "ab_mobile_device_first.toml";

#[test]
fn text_names_the_winner_of_each_pattern() {
    let dir = scratch("sim_vs", "text");
    let out = expect(
        0,
        run_in(&dir, &["sim", &example(A), "--vs", &example(B)], b""),
    );
    let text = stdout(&out);
    assert!(
        text.starts_with("A/B: two row-key designs on one workload"),
        "{text}"
    );
    assert!(text.contains("same workload"), "{text}");
    assert!(
        text.contains("Design A: A/B mobile readings: timestamp first"),
        "{text}"
    );
    assert!(text.contains("High write pressure"), "{text}");
    assert!(text.contains("device uploads (workload): B wins"), "{text}");
    assert!(
        text.contains("one device, last 10 minutes (access pattern): B wins"),
        "{text}"
    );
    assert!(
        text.contains("all devices, last minute (access pattern): A wins"),
        "{text}"
    );
    assert!(text.contains("rows scanned per row returned"), "{text}");
    assert!(
        text.contains("Verdict: Design B wins 2 of 3 patterns"),
        "{text}"
    );
}

#[test]
fn json_is_one_document_with_both_designs() {
    let dir = scratch("sim_vs", "json");
    // B from stdin.
    let b = fs::read(example(B)).unwrap();
    let out = expect(
        0,
        run_in(&dir, &["sim", "--json", &example(A), "--vs", "-"], &b),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(v["winner"], "B");
    assert_eq!(v["a"]["nodes"].as_array().map(Vec::len), Some(4));
    assert!(v["a"]["tablets"].as_u64().unwrap() > 1);
    let patterns = v["patterns"].as_array().unwrap();
    let one = patterns
        .iter()
        .find(|p| p["name"] == "one device, last 10 minutes")
        .unwrap();
    assert_eq!(one["winner"], "B");
    assert!(
        one["a"]["rows_scanned_per_row"].as_f64().unwrap() > 1000.0,
        "{one}"
    );
    assert_eq!(one["b"]["rows_scanned_per_row"].as_f64(), Some(1.0));
    let kinds: Vec<&str> = v["a"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"high_write_pressure"), "{kinds:?}");
}

#[test]
fn out_writes_both_heatmaps_on_one_page() {
    let dir = scratch("sim_vs", "out");
    let out = expect(
        0,
        run_in(
            &dir,
            &["sim", &example(A), "--vs", &example(B), "--out", "ab.html"],
            b"",
        ),
    );
    assert!(stderr(&out).contains("wrote ab.html"), "{}", stderr(&out));
    let page = fs::read_to_string(dir.join("ab.html")).unwrap();
    assert!(page.starts_with("<!doctype html>"));
    // Four metrics, two designs each, every image inline.
    assert_eq!(page.matches("<img class=\"hm\"").count(), 8);
    assert_eq!(page.matches("src=\"data:image/png;base64,").count(), 8);
    assert!(!page.contains("http://") && !page.contains("https://"));
    assert!(page.contains("one colour scale for both"));
    assert!(page.contains("write_pressure"));
    // Prefix labels beside the device-first map.
    assert!(
        page.contains("title=\"phone\">phone<"),
        "prefix labels missing"
    );
    assert!(page.contains("Design B wins"));
}

#[test]
fn bad_input_gets_a_clear_error() {
    let dir = scratch("sim_vs", "bad");
    // A missing file.
    let out = expect(
        1,
        run_in(&dir, &["sim", &example(A), "--vs", "missing.toml"], b""),
    );
    assert!(
        stderr(&out).contains("cannot read the scenario missing.toml"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
    // Two designs whose workloads differ.
    let b = fs::read_to_string(example(B))
        .unwrap()
        .replace("rate = 20_000", "rate = 5_000")
        .replace("nodes = 4", "nodes = 3");
    fs::write(dir.join("b.toml"), b).unwrap();
    let out = expect(
        1,
        run_in(
            &dir,
            &["sim", &example(A), "--vs", "b.toml", "--out", "ab.html"],
            b"",
        ),
    );
    let err = stderr(&out);
    assert!(err.contains("different workloads"), "{err}");
    assert!(err.contains("[cluster], [[workload]]"), "{err}");
    assert!(!dir.join("ab.html").exists(), "nothing is written on error");
    // An invalid scenario names its file and line.
    fs::write(dir.join("broken.toml"), "name = 1\n").unwrap();
    let out = expect(
        1,
        run_in(&dir, &["sim", "broken.toml", "--vs", &example(B)], b""),
    );
    assert!(stderr(&out).contains("broken.toml"), "{}", stderr(&out));
    assert!(stderr(&out).contains("line 1"), "{}", stderr(&out));
    // Usage errors.
    let out = expect(
        2,
        run_in(&dir, &["sim", &example(A), "--out", "x.html"], b""),
    );
    assert!(stderr(&out).contains("needs --vs"), "{}", stderr(&out));
    let out = expect(2, run_in(&dir, &["sim", &example(A), "--vs"], b""));
    assert!(stderr(&out).contains("--vs"), "{}", stderr(&out));
}
