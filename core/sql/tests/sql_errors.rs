//! SQL that GoogleSQL for Bigtable would refuse is refused here too, with
//! GoogleSQL-style messages naming the position; and no text, however
//! malformed, makes the SQL layer panic.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_sql::Instance;
use tabletop_sql::sql;
use tabletop_store::*;

fn db() -> Instance {
    let mut db = Instance::default();
    db.set_now(1_600_000_000_000_000);
    db.create_table(CreateTableRequest::with_families(
        "t",
        [("cf", ColumnFamily::with_gc(None))],
    ))
    .unwrap();
    for i in 0..5 {
        db.mutate_row(
            "t",
            format!("r{i}").as_bytes(),
            &[Mutation::set_cell(
                "cf",
                b"q",
                -1,
                format!("v{i}").as_bytes(),
            )],
        )
        .unwrap();
    }
    db
}

#[test]
fn unsupported_sql_is_refused_with_bigtable_like_errors() {
    let mut db = db();
    let cases = [
        (
            "SELECT * FROM t JOIN t AS u ON t._key = u._key",
            "Joins are not supported by GoogleSQL for Bigtable",
            "1:17",
        ),
        ("SELECT * FROM t, t AS u", "Joins are not supported", "1:16"),
        (
            "INSERT INTO t (_key) VALUES ('x')",
            "Statement not supported: INSERT",
            "1:1",
        ),
        (
            "UPDATE t SET x = 1",
            "Statement not supported: UPDATE",
            "1:1",
        ),
        (
            "DELETE FROM t WHERE TRUE",
            "Statement not supported: DELETE",
            "1:1",
        ),
        (
            "CREATE TABLE u (x INT64)",
            "Statement not supported: CREATE TABLE",
            "1:1",
        ),
        ("DROP TABLE t", "Statement not supported: DROP", "1:1"),
        (
            "ALTER TABLE t ADD COLUMN x INT64",
            "Statement not supported: ALTER",
            "1:1",
        ),
        (
            "SELECT _key, COUNT(*) FROM t GROUP BY _key",
            "GROUP BY is not supported in queries",
            "1:39",
        ),
        (
            "SELECT COUNT(*) FROM t",
            "Aggregate function COUNT is not supported in queries",
            "1:8",
        ),
        (
            "SELECT _key FROM t UNION ALL SELECT _key FROM t",
            "Set operations (UNION)",
            "1:20",
        ),
        (
            "WITH x AS (SELECT 1) SELECT * FROM x",
            "WITH clauses",
            "1:1",
        ),
        ("SELECT (SELECT 1)", "Subqueries are not supported", "1:9"),
        (
            "SELECT * FROM (SELECT _key FROM t)",
            "Subqueries are not supported",
            "1:15",
        ),
        (
            "SELECT _key FROM t WHERE _key IN (SELECT _key FROM t)",
            "Subqueries",
            "1:35",
        ),
        (
            "SELECT DISTINCT _key FROM t",
            "SELECT DISTINCT is not supported",
            "1:8",
        ),
        (
            "SELECT _key FROM t HAVING TRUE",
            "HAVING is not supported",
            "1:20",
        ),
        (
            "SELECT ROW_NUMBER() OVER () FROM t",
            "Window functions",
            "1:21",
        ),
        ("SELECT nope FROM t", "Unrecognized name: nope", "1:8"),
        ("SELECT _key FROM nope", "Table not found: nope", "1:18"),
        ("SELECT FOO(_key) FROM t", "Function not found: FOO", "1:8"),
        (
            "SELECT _key FROM t WHERE _key = 1",
            "No matching signature for operator = for argument types: BYTES, INT64",
            "1:31",
        ),
        (
            "SELECT cf['q'] + 1 FROM t",
            "No matching signature for operator + for argument types: BYTES, INT64",
            "1:16",
        ),
        (
            "SELECT CAST(cf['q'] AS INT64) FROM t",
            "Invalid cast from BYTES to INT64",
            "1:8",
        ),
        (
            "SELECT * FROM t(latest_n => 2)",
            "Argument latest_n must also include with_history => TRUE",
            "1:17",
        ),
        (
            "SELECT * FROM t(with_history => TRUE, as_of => TIMESTAMP '2020-01-01')",
            "as_of must not include with_history",
            "1:17",
        ),
        (
            "SELECT * FROM t(with_history => TRUE, latest_n => 0)",
            "greater than or equal to 1",
            "1:51",
        ),
        (
            "SELECT * FROM t(nope => 1)",
            "Unknown argument name: nope",
            "1:17",
        ),
        (
            "SELECT * FROM UNPACK((SELECT _key FROM t))",
            "UNPACK expands columns read with_history",
            "1:15",
        ),
        (
            "SELECT _key FROM t WHERE",
            "Syntax error: Unexpected end of statement",
            "1:25",
        ),
        (
            "SELECT _key FROM t LIMIT x",
            "Syntax error: Expected an integer literal after LIMIT",
            "1:26",
        ),
        (
            "SELECT 'abc FROM t",
            "Syntax error: Unclosed string literal",
            "1:8",
        ),
        (
            "SELEKT 1",
            "Syntax error: Expected keyword SELECT but got identifier \"SELEKT\"",
            "1:1",
        ),
        ("SELECT 1 FROM", "Unexpected end of statement", "1:14"),
        (
            "SELECT TIMESTAMP 'not a time'",
            "Invalid TIMESTAMP literal",
            "1:8",
        ),
        (
            "SELECT _key FROM t WHERE cf['q']",
            "WHERE expects BOOL, got BYTES",
            "1:26",
        ),
        ("SELECT cf[OFFSET(0)] FROM t", "a map takes a key", "1:8"),
        // LIMIT and OFFSET take an INT64: past u64 the literal itself is
        // invalid, and between i64::MAX and u64::MAX it is out of range.
        (
            "SELECT _key FROM t LIMIT 99999999999999999999",
            "Syntax error: Invalid integer literal: 99999999999999999999",
            "1:26",
        ),
        (
            "SELECT _key FROM t LIMIT 9223372036854775808",
            "Invalid integer literal for LIMIT: 9223372036854775808 is out of the INT64 range",
            "1:26",
        ),
        (
            "SELECT _key FROM t LIMIT 1 OFFSET 18446744073709551615",
            "Invalid integer literal for OFFSET",
            "1:35",
        ),
    ];
    for (q, want, at) in cases {
        let e = sql::execute(&mut db, q).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{q}: {e}");
        assert!(e.message().contains(want), "{q}: {e}");
        assert!(e.message().ends_with(&format!("[at {at}]")), "{q}: {e}");
    }
    // Runtime failures are OUT_OF_RANGE.
    let e = sql::execute(&mut db, "SELECT CAST('x' AS INT64)").unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange);
    assert!(e.message().contains("Bad int64 value: x"), "{e}");
    let e = sql::execute(&mut db, "SELECT 9223372036854775807 + 1").unwrap_err();
    assert!(e.message().contains("int64 overflow"), "{e}");
    let e = sql::execute(&mut db, "SELECT 1 / 0").unwrap_err();
    assert!(e.message().contains("division by zero"), "{e}");
    let e = sql::execute(&mut db, "SELECT SPLIT('a,b')[OFFSET(5)]").unwrap_err();
    assert!(e.message().contains("out of bounds"), "{e}");
    assert_eq!(
        sql::query(&mut db, "SELECT SPLIT('a,b')[SAFE_OFFSET(5)]")
            .unwrap()
            .rows[0][0],
        sql::Value::Null
    );
}

#[test]
fn scripts_go_on_after_a_failed_statement() {
    let mut db = db();
    let steps = sql::execute_script(
        &mut db,
        "SELECT _key FROM t LIMIT 1;\nSELECT nope FROM t;\n-- a comment; with a semicolon\nSELECT 'a;b' AS s",
    );
    assert_eq!(steps.len(), 3);
    assert!(steps[0].outcome.is_ok());
    assert!(steps[1].outcome.is_err());
    assert_eq!(steps[1].line, 2);
    assert_eq!(steps[2].line, 3);
    assert!(steps[2].outcome.is_ok());
}

#[cfg(not(target_arch = "wasm32"))]
mod property {
    use proptest::prelude::*;
    use tabletop_sql::{rowkey_schema, views};

    use super::*;

    const WORDS: &[&str] = &[
        "SELECT",
        "FROM",
        "WHERE",
        "AND",
        "OR",
        "NOT",
        "t",
        "_key",
        "cf",
        "['q']",
        "[",
        "]",
        "(",
        ")",
        ",",
        "=",
        "<",
        ">=",
        "!=",
        "'r1'",
        "b'\\x00'",
        "1",
        "-",
        "+",
        "*",
        "/",
        "||",
        "LIMIT",
        "ORDER",
        "BY",
        "DESC",
        "IS",
        "NULL",
        "IN",
        "LIKE",
        "'r%'",
        "BETWEEN",
        "STARTS_WITH",
        "MAP_KEYS",
        "CAST",
        "AS",
        "STRING",
        "INT64",
        "BYTES",
        "TIMESTAMP",
        "SAFE_CONVERT_BYTES_TO_STRING",
        "TO_INT64",
        "with_history",
        "=>",
        "TRUE",
        "latest_n",
        "UNPACK",
        "_timestamp",
        "EXPLAIN",
        "GROUP",
        "COUNT",
        "OFFSET",
        "SAFE_OFFSET",
        ".",
        "CASE",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
        "SPLIT",
        "CREATE",
        "MATERIALIZED",
        "VIEW",
        "v",
        "ALTER",
        "TABLE",
        "SET",
        "ROW",
        "KEY",
        "SCHEMA",
        "DELIMITED",
        "'#'",
        "DROP",
        ";",
        "9223372036854775807",
        "0x7fffffffffffffff",
        "1e308",
        "as_of",
        "before",
        "TIMESTAMP_MICROS",
        "SUBSTR",
        "-9223372036854775808",
        "ABS",
        "MOD",
        "0",
    ];

    fn statement() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::collection::vec(proptest::sample::select(WORDS), 0..30)
                .prop_map(|w| w.join(" ")),
            proptest::collection::vec(proptest::sample::select(WORDS), 0..30)
                .prop_map(|w| format!("SELECT {} FROM t", w.join(" "))),
            proptest::collection::vec(proptest::sample::select(WORDS), 0..20)
                .prop_map(|w| format!("SELECT _key FROM t WHERE {}", w.join(" "))),
            ".{0,80}",
            proptest::collection::vec(any::<u8>(), 0..60)
                .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_text_never_panics(text in statement()) {
            let mut db = db();
            let _ = sql::execute(&mut db, &text);
            let _ = sql::is_complete(&text);
            let _ = sql::split_statements(&text);
            let _ = sql::plan_read(&db, &text);
            let _ = rowkey_schema::RowKeySchema::from_sql(&text);
            let _ = views::create_view(&mut db, "v", &text);
            // The instance is still usable afterwards.
            let r = sql::query(&mut db, "SELECT _key FROM t WHERE _key = 'r1'").unwrap();
            prop_assert_eq!(r.rows.len(), 1);
        }
    }
}

/// Five nested REPLACEs of one letter by a hundred: 10^10 bytes if built.
fn bomb(of: &str) -> String {
    let mut e = of.to_string();
    for _ in 0..5 {
        e = format!("REPLACE({e}, 'a', '{}')", "a".repeat(100));
    }
    e
}

#[test]
fn values_that_would_need_gigabytes_are_refused_not_built() {
    let mut db = db();
    let e = sql::execute(&mut db, &format!("SELECT {}", bomb("'a'"))).unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e}");
    assert!(e.message().contains("16 MiB"), "{e}");
    // CONCAT of seventeen one-megabyte values: checked before it is built.
    let mega = {
        let mut e = "'a'".to_string();
        for _ in 0..3 {
            e = format!("REPLACE({e}, 'a', '{}')", "a".repeat(100));
        }
        e
    };
    let copies = vec![mega; 17].join(", ");
    let e = sql::execute(&mut db, &format!("SELECT CONCAT({copies})")).unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e}");
    assert!(e.message().contains("Concat"), "{e}");
    // The instance is still usable.
    assert!(sql::execute(&mut db, "SELECT _key FROM t LIMIT 1").is_ok());
}

#[test]
fn a_view_whose_rows_cannot_be_evaluated_never_breaks_the_state() {
    let mut db = db();
    let made = sql::execute(
        &mut db,
        &format!(
            "CREATE MATERIALIZED VIEW big AS SELECT {} AS v, COUNT(*) AS n FROM t GROUP BY v",
            bomb("'a'")
        ),
    );
    // Either the view is refused with the reason, or it is kept and its
    // failing rows are counted; the state round-trips either way.
    if let Err(e) = &made {
        assert_eq!(e.code(), Code::ResourceExhausted, "{e}");
    }
    db.mutate_row("t", b"r9", &[Mutation::set_cell("cf", b"q", -1, b"x")])
        .unwrap();
    let bytes = db.snapshot();
    let mut back = Instance::restore(&bytes).expect("a state file always opens");
    assert!(sql::execute(&mut back, "SELECT _key FROM t LIMIT 1").is_ok());
    if made.is_ok() {
        sql::execute(&mut back, "DROP MATERIALIZED VIEW big").unwrap();
    }
}
