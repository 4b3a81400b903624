//! `tabletop translate` and `tabletop export` as a person runs them: files
//! in a scratch directory, exit codes, errors that name the file, line and
//! column, and exported scripts that replay into a fresh state.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{expect, run_in};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/translate_fixtures")
}

fn scratch(name: &str) -> PathBuf {
    common::scratch("cli-translate-tests", name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn fixture(name: &str) -> String {
    fixtures().join(name).to_string_lossy().into_owned()
}

/// Runs `tabletop translate --from FROM DESIGN ARGS` in `dir`, the design
/// one of the fixtures, and expects exit status `code`.
fn translate(dir: &Path, from: &str, design: &str, args: &[&str], code: i32) -> Output {
    let design = fixture(design);
    let mut words = vec!["translate", "--from", from, design.as_str()];
    words.extend_from_slice(args);
    expect(code, run_in(dir, &words, b""))
}

/// `translate` of the Oracle shop's DDL.
fn translate_shop(dir: &Path, args: &[&str], code: i32) -> Output {
    translate(dir, "oracle", "oracle_shop.ddl", args, code)
}

#[test]
fn help_is_there() {
    let dir = scratch("help");
    for (args, usage) in [
        (&["translate", "--help"][..], "Usage: tabletop translate"),
        (&["help", "translate"][..], "Usage: tabletop translate"),
        (&["export", "-h"][..], "Usage: tabletop export"),
        (&["help", "export"][..], "Usage: tabletop export"),
    ] {
        let out = expect(0, run_in(&dir, args, b""));
        assert!(text(&out.stdout).contains(usage), "{args:?}");
    }
    let out = expect(0, run_in(&dir, &["--help"], b""));
    let help = text(&out.stdout);
    assert!(
        help.contains("translate") && help.contains("export"),
        "{help}"
    );
    assert!(!help.contains("Planned, not written yet"), "{help}");
}

#[test]
fn a_dynamodb_model_is_reported() {
    let dir = scratch("report");
    let out = translate(
        &dir,
        "dynamodb",
        "video_single_table.json",
        &["--time", "2023-09-11T00:00:00Z"],
        0,
    );
    let report = text(&out.stdout);
    assert!(
        report.contains("Table Videos  (DynamoDB single-table design"),
        "{report}"
    );
    assert!(
        report.contains("videocomment:Content @ 2023-09-10T19:01:15.000Z"),
        "{report}"
    );
    let json = expect(
        0,
        run_in(
            &dir,
            &["translate", "--from", "dynamodb", "-", "--format", "json"],
            fs::read(fixtures().join("invoices_adjacency.json"))
                .unwrap()
                .as_slice(),
        ),
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["tables"][0]["pattern"], "DynamoDB adjacency list");
}

#[test]
fn describe_table_output_is_read_from_stdin() {
    let dir = scratch("describe");
    let described = br#"{"Table": {"TableName": "Orders",
        "AttributeDefinitions": [{"AttributeName": "CustomerId", "AttributeType": "S"},
                                 {"AttributeName": "OrderDate", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "CustomerId", "KeyType": "HASH"},
                      {"AttributeName": "OrderDate", "KeyType": "RANGE"}]},
        "Items": [{"CustomerId": {"S": "c-1"}, "OrderDate": {"N": "20230911"}, "Total": {"N": "12"}}]}"#;
    let out = expect(
        0,
        run_in(
            &dir,
            &["translate", "--from", "dynamodb", "-", "--format", "json"],
            described,
        ),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tables"][0]["id"], "Orders");
    // A KeySchema naming an undefined attribute points at its line.
    let bad = br#"{"Table": {"TableName": "Orders",
        "KeySchema": [{"AttributeName": "CustomerId", "KeyType": "HASH"}]}}"#;
    let out = expect(
        1,
        run_in(&dir, &["translate", "--from", "dynamodb", "-"], bad),
    );
    let err = text(&out.stderr);
    assert!(err.contains("2:"), "{err}");
    assert!(err.contains("not in AttributeDefinitions"), "{err}");
}

#[test]
fn translate_apply_then_export_and_replay() {
    let dir = scratch("apply");
    let rows = fixture("oracle_shop_rows.json");
    let out = translate_shop(
        &dir,
        &["--rows", &rows, "--apply", "--state", "shop.state"],
        0,
    );
    assert!(text(&out.stderr).contains("created orders, users in shop.state"));
    // Applying again is refused and leaves the state alone.
    let again = translate_shop(&dir, &["--apply", "--state", "shop.state"], 1);
    assert!(text(&again.stderr).contains("already has a table named orders, users"));

    // The cbt export on stdout, naming the instance it was asked for.
    let script = expect(
        0,
        run_in(
            &dir,
            &[
                "export",
                "--state",
                "shop.state",
                "-project",
                "p",
                "-instance",
                "prod",
            ],
            b"",
        ),
    );
    let script_text = text(&script.stdout);
    assert!(
        script_text.contains("cbt -project p -instance prod createtable orders"),
        "{script_text}"
    );
    // CSV data needs a directory.
    let no_dir = expect(
        1,
        run_in(
            &dir,
            &["export", "--state", "shop.state", "--data", "csv"],
            b"",
        ),
    );
    assert!(
        text(&no_dir.stderr).contains("give --out DIR"),
        "{}",
        text(&no_dir.stderr)
    );
    let with_dir = expect(
        0,
        run_in(
            &dir,
            &[
                "export",
                "--state",
                "shop.state",
                "--data",
                "csv",
                "--out",
                "exp",
            ],
            b"",
        ),
    );
    assert!(text(&with_dir.stderr).contains("wrote exp/playground.cbt"));
    assert!(dir.join("exp/orders.csv").exists() && dir.join("exp/users.csv").exists());

    // Both scripts replay into fresh states that read the same.
    let read = |state: &str, table: &str| {
        text(
            &expect(
                0,
                run_in(&dir, &["cbt", "--state", state, "read", table], b""),
            )
            .stdout,
        )
    };
    expect(
        0,
        run_in(&dir, &["cbt", "--state", "set.state"], &script.stdout),
    );
    let csv_script = fs::read(dir.join("exp/playground.cbt")).unwrap();
    expect(
        0,
        run_in(
            &dir.join("exp"),
            &["cbt", "--state", "../csv.state"],
            &csv_script,
        ),
    );
    for table in ["orders", "users"] {
        let original = read("shop.state", table);
        assert!(original.contains("----"), "{original}");
        assert_eq!(read("set.state", table), original, "{table}");
        assert_eq!(read("csv.state", table), original, "{table}");
    }

    // gcloud and Terraform.
    let g = expect(
        0,
        run_in(
            &dir,
            &[
                "export",
                "--state",
                "shop.state",
                "--format",
                "gcloud",
                "--table",
                "users",
            ],
            b"",
        ),
    );
    assert!(text(&g.stdout).contains("gcloud bigtable instances tables create users"));
    assert!(!text(&g.stdout).contains("tables create orders"));
    let tf = expect(
        0,
        run_in(
            &dir,
            &["export", "--state", "shop.state", "--format=terraform"],
            b"",
        ),
    );
    assert!(text(&tf.stdout).contains("resource \"google_bigtable_gc_policy\" \"orders_data\""));
}

#[test]
fn translate_can_export_directly() {
    let dir = scratch("direct");
    let out = translate(
        &dir,
        "dynamodb",
        "product_catalog.json",
        &[
            "--format",
            "cbt",
            "--time",
            "1694390400000000",
            "-instance",
            "shop",
        ],
        0,
    );
    let script = text(&out.stdout);
    assert!(script.contains("cbt -project tabletop -instance shop createtable ProductCatalog families=sku:maxversions=1"), "{script}");
    assert!(
        script.contains("set ProductCatalog Hats#fedora#brandA 'sku:Description=Felted from fine wool, keeps its shape in the rain.@1694390400000000'"),
        "{script}"
    );
    assert!(
        !dir.join("tabletop.state").exists(),
        "no state is written without --apply"
    );
}

#[test]
fn bad_input_names_file_line_and_column() {
    let dir = scratch("errors");
    fs::write(
        dir.join("bad.ddl"),
        "CREATE TABLE t (\n  id INTEGR,\n  PRIMARY KEY(id))",
    )
    .unwrap();
    let out = expect(
        1,
        run_in(&dir, &["translate", "--from", "oracle", "bad.ddl"], b""),
    );
    assert_eq!(
        text(&out.stderr),
        "tabletop: bad.ddl:2:6: unknown type INTEGR: expected INTEGER, LONG, FLOAT, DOUBLE, NUMBER, STRING, BOOLEAN, BINARY, FIXED_BINARY, TIMESTAMP, ENUM, ARRAY, MAP, RECORD or JSON\n"
    );
    fs::write(
        dir.join("ok.ddl"),
        "CREATE TABLE t (id INTEGER, PRIMARY KEY(id))",
    )
    .unwrap();
    fs::write(dir.join("rows.json"), "{\"id\": 1}\n{\"id\": \"two\"}\n").unwrap();
    let out = expect(
        1,
        run_in(
            &dir,
            &[
                "translate",
                "--from",
                "oracle",
                "ok.ddl",
                "--rows",
                "rows.json",
            ],
            b"",
        ),
    );
    assert!(
        text(&out.stderr).starts_with("tabletop: rows.json:2:8: expected a whole number"),
        "{}",
        text(&out.stderr)
    );
    fs::write(
        dir.join("model.json"),
        "{\"DataModel\": [\n  {\"TableName\": 5}]}",
    )
    .unwrap();
    let out = expect(
        1,
        run_in(
            &dir,
            &["translate", "--from", "dynamodb", "model.json"],
            b"",
        ),
    );
    assert!(
        text(&out.stderr).starts_with("tabletop: model.json:2:17: TableName must be a string"),
        "{}",
        text(&out.stderr)
    );
    let out = expect(
        1,
        run_in(&dir, &["translate", "--from", "oracle", "missing.ddl"], b""),
    );
    assert!(text(&out.stderr).contains("cannot read the design missing.ddl"));
    let out = expect(1, run_in(&dir, &["export", "--table", "nope"], b""));
    assert!(text(&out.stderr).contains("table \"nope\" not found"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = scratch("usage");
    for (args, message) in [
        (&["translate", "x.ddl"][..], "needs --from"),
        (
            &["translate", "--from", "oracle"][..],
            "needs a design file",
        ),
        (
            &["translate", "--from", "sql", "x"][..],
            "want oracle or dynamodb",
        ),
        (
            &[
                "translate",
                "--from",
                "dynamodb",
                "m.json",
                "--rows",
                "r.json",
            ][..],
            "--rows is for --from oracle",
        ),
        (
            &["translate", "--from", "oracle", "a", "b"][..],
            "one design file",
        ),
        (
            &["translate", "--from", "oracle", "a", "--time", "soon"][..],
            "--time soon",
        ),
        (
            &["translate", "--from", "oracle", "a", "--apply=yes"][..],
            "--apply takes no value",
        ),
        (
            &["translate", "--from", "oracle", "a", "--frob", "1"][..],
            "unknown option '--frob' for translate",
        ),
        (
            &["export", "--format", "yaml"][..],
            "want cbt, gcloud or terraform",
        ),
        (&["export", "--data", "json"][..], "want set, csv or none"),
        (
            &["export", "--splits", "some"][..],
            "want initial or tablets",
        ),
        (&["export", "extra"][..], "takes options only"),
        (&["export", "--out"][..], "needs a value"),
    ] {
        let out = expect(2, run_in(&dir, args, b""));
        let err = text(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(err.contains("--help' for usage"), "{args:?}: {err}");
    }
}

#[test]
fn the_offered_view_runs_in_tabletop_sql() {
    // An Oracle index becomes a continuous materialized view: the
    // statement in the JSON report creates it in the applied state, and
    // a lookup by email reads it with a prefix scan.
    let dir = scratch("index-view");
    let rows = fixture("oracle_shop_rows.json");
    let out = translate_shop(
        &dir,
        &[
            "--rows",
            &rows,
            "--format",
            "json",
            "--apply",
            "--state",
            "shop.state",
        ],
        0,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ix = &v["tables"][1]["indexes"][0];
    assert_eq!(ix["name"], "idx_email");
    let sql = ix["materialized_view"]["sql"].as_str().unwrap().to_string();
    let created = expect(
        0,
        run_in(&dir, &["sql", "--state", "shop.state", &sql], b""),
    );
    assert!(
        text(&created.stdout).contains("users_idx_email"),
        "{}",
        text(&created.stdout)
    );
    let found = expect(
        0,
        run_in(
            &dir,
            &[
                "sql",
                "--state",
                "shop.state",
                "EXPLAIN SELECT users_key FROM users_idx_email WHERE email = 'cy@example.com'",
            ],
            b"",
        ),
    );
    let plan = text(&found.stdout);
    assert!(plan.to_lowercase().contains("prefix"), "{plan}");
    let rows = expect(
        0,
        run_in(
            &dir,
            &[
                "sql",
                "--state",
                "shop.state",
                "SELECT users_key FROM users_idx_email WHERE email = 'cy@example.com'",
            ],
            b"",
        ),
    );
    assert!(
        text(&rows.stdout).contains("0000000077"),
        "{}",
        text(&rows.stdout)
    );
}
