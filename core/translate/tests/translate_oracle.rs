#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Oracle NoSQL DDL in: every field type as a key and as a cell, shard
// keys, TTL as a max-age GC rule (with the lazy-GC warning), IDENTITY and
// UUID columns (with the advisor's finding on sequential keys), rows as
// JSON records, and errors that point at the line and column of the DDL or
// of the records.

use std::time::Duration;

use tabletop_sql::Instance;
use tabletop_store::GcRule;
use tabletop_store::escape_bytes;
use tabletop_teach::advisor::{RuleId, Severity};
use tabletop_translate::translate::{
    self, CellValue, Input, KeyEncoding, NoteLevel, Options, Translation,
};
use tabletop_wire::cbt;

const SHOP_DDL: &str = include_str!("../../tests/translate_fixtures/oracle_shop.ddl");
const SHOP_ROWS: &str = include_str!("../../tests/translate_fixtures/oracle_shop_rows.json");

/// 2023-09-11T00:00:00.123456Z: cells get it truncated to milliseconds.
const NOW: i64 = 1_694_390_400_123_456;

fn options() -> Options {
    Options {
        now_micros: NOW,
        ..Options::default()
    }
}

fn oracle(ddl: &str, rows: &str) -> Translation {
    translate::from_oracle_ddl(ddl, rows, &options()).unwrap_or_else(|e| panic!("{e}"))
}

/// `family:qualifier=value` of every cell of a row (values escaped).
fn cells(t: &Translation, table: usize, row: usize) -> Vec<String> {
    let mut out: Vec<String> = t.tables[table].rows[row]
        .cells
        .iter()
        .map(|c| {
            let v = match &c.value {
                CellValue::Bytes(b) => escape_bytes(b),
                CellValue::Add(n) => format!("+{n}"),
            };
            format!("{}:{}={v}", c.family, escape_bytes(&c.qualifier))
        })
        .collect();
    out.sort();
    out
}

fn keys(t: &Translation, table: usize) -> Vec<String> {
    t.tables[table]
        .rows
        .iter()
        .map(|r| escape_bytes(&r.key))
        .collect()
}

#[test]
fn every_field_type_becomes_a_cell() {
    let t = oracle(SHOP_DDL, SHOP_ROWS);
    assert_eq!(t.tables.len(), 2);
    let orders = &t.tables[0];
    assert_eq!(orders.id, "orders");
    // Scalars in `data`, documents and blobs in `doc`, both with the TTL.
    let fams: Vec<(&str, String)> = orders
        .families
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                translate::gc_policy_text(f.gc_rule.as_ref()),
            )
        })
        .collect();
    assert_eq!(
        fams,
        [
            ("data", "maxage=90d || maxversions=1".to_string()),
            ("doc", "maxage=90d || maxversions=1".to_string())
        ]
    );
    // Shard key first, then the identity; negative LONGs sort first.
    assert_eq!(
        keys(&t, 0),
        [
            "-9999999999999999992#0000001002",
            "0000000000000000042#0000001000",
            "0000000000000000042#0000001001"
        ]
    );
    assert_eq!(
        cells(&t, 0, 1),
        [
            "data:checksum=\\xde\\xad\\xbe\\xef",
            "data:gift=false",
            "data:note=leave at the door",
            "data:placed=2023-09-10T15:21:48.123Z",
            "data:rating=4.5",
            "data:status=PAID",
            "data:total=59.90",
            "data:weight_kg=1.25",
            "doc:extra={\"coupon\":null,\"tags\":[\"summer\"]}",
            "doc:items=[{\"sku\":\"hat-1\",\"qty\":2}]",
            "doc:labels={\"channel\":\"web\"}",
            "doc:receipt=PDF-1.7",
            "doc:shipping={\"street\":\"1 Main St\",\"city\":\"Springfield\",\"zip\":\"12345\"}",
        ]
    );
    // Defaults fill missing fields; missing nullable fields have no cell.
    assert_eq!(
        cells(&t, 0, 2),
        [
            "data:gift=true",
            "data:placed=2023-09-11T08:00:00.000Z",
            "data:status=NEW",
            "data:total=12"
        ]
    );
    // Every cell carries the translation time, in whole milliseconds.
    assert!(
        orders
            .rows
            .iter()
            .flat_map(|r| &r.cells)
            .all(|c| c.timestamp_micros == 1_694_390_400_123_000)
    );
    // The COMMENT "family=profile" puts `name` in its own family.
    let users = &t.tables[1];
    let names: Vec<&str> = users.families.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["data", "profile"]);
    assert_eq!(
        cells(&t, 1, 0),
        ["data:email=ada@example.com", "profile:name=Ada"]
    );
}

#[test]
fn every_key_type_is_encoded_in_order() {
    let ddl = "CREATE TABLE k (i INTEGER, l LONG, f FLOAT, d DOUBLE, n NUMBER, s STRING, b BOOLEAN,
        t TIMESTAMP(3), e ENUM(low, mid, high), v STRING,
        PRIMARY KEY(SHARD(i, l), f, d, n, s, b, t, e))";
    let rows = r#"
        {"i": -1, "l": 5, "f": 1.5, "d": -2.25, "n": 12.50, "s": "New York", "b": true, "t": "2023-09-10T15:21:48.5Z", "e": "mid"}
        {"i": 7, "l": -5, "f": -0.0, "d": 1e300, "n": -0.001, "s": "a#b", "b": false, "t": 0, "e": "high"}
    "#;
    let t = oracle(ddl, rows);
    assert_eq!(
        keys(&t, 0),
        [
            "-9999999998#0000000000000000005#bfc00000#3ffdffffffffffff#350002125#New$20York#true#2023-09-10T15:21:48.500Z#1_mid",
            "0000000007#-9999999999999999994#80000000#fe37e43c8800759c#1500018~#a$23b#false#1970-01-01T00:00:00.000Z#2_high",
        ]
    );
    let binary = translate::from_oracle_ddl(
        ddl,
        rows,
        &Options {
            key_encoding: KeyEncoding::Binary,
            ..options()
        },
    )
    .unwrap();
    let k = &binary.tables[0].rows[0].key;
    assert_eq!(&k[..4], &[0x7f, 0xff, 0xff, 0xff], "INTEGER -1");
    assert_eq!(&k[4..12], &[0x80, 0, 0, 0, 0, 0, 0, 5], "LONG 5");
    assert!(
        binary.tables[0].row_key[0]
            .encoding
            .contains("4 bytes big-endian")
    );
    // Readable keys cannot hold timestamps before year 0; binary ones can.
    let early = r#"{"i": 1, "l": 1, "f": 1, "d": 1, "n": 1, "s": "x", "b": true, "t": "-0100-01-01", "e": "low"}"#;
    let e = translate::from_oracle_ddl(ddl, early, &options()).unwrap_err();
    assert!(e.message().contains("years 0 to 9999"), "{e}");
    assert!(
        translate::from_oracle_ddl(
            ddl,
            early,
            &Options {
                key_encoding: KeyEncoding::Binary,
                ..options()
            }
        )
        .is_ok()
    );
}

#[test]
fn ttl_becomes_a_max_age_rule_with_a_warning_that_gc_is_lazy() {
    let days = oracle(
        "CREATE TABLE t (id LONG, v STRING, PRIMARY KEY(id)) USING TTL 5 DAYS",
        "",
    );
    let f = &days.tables[0].families[0];
    assert_eq!(
        f.gc_rule,
        Some(GcRule::Union(vec![
            GcRule::MaxAge(Duration::from_secs(5 * 86_400)),
            GcRule::MaxNumVersions(1)
        ]))
    );
    let warning = days.tables[0]
        .notes
        .iter()
        .find(|n| n.topic == "ttl" && n.level == NoteLevel::Warning)
        .expect("a TTL warning");
    assert!(warning.text.contains("lazy"), "{}", warning.text);
    assert!(
        warning.text.contains("timestamp-range filter"),
        "{}",
        warning.text
    );
    let hours = oracle(
        "CREATE TABLE t (id LONG, v STRING, PRIMARY KEY(id)) USING TTL 36 hours",
        "",
    );
    assert_eq!(
        translate::gc_policy_text(hours.tables[0].families[0].gc_rule.as_ref()),
        "maxage=36h || maxversions=1"
    );
    // No TTL (or TTL 0): only the latest version is kept, as in Oracle.
    for ddl in [
        "CREATE TABLE t (id LONG, v STRING, PRIMARY KEY(id))",
        "CREATE TABLE t (id LONG, v STRING, PRIMARY KEY(id)) USING TTL 0 DAYS",
    ] {
        let t = oracle(ddl, "");
        assert_eq!(
            t.tables[0].families[0].gc_rule,
            Some(GcRule::MaxNumVersions(1))
        );
        assert!(t.tables[0].notes.iter().all(|n| n.topic != "ttl"));
    }
    // The rule works in the playground: once the clock passes the age and a
    // compaction runs, the cell is gone.
    let t = oracle(
        "CREATE TABLE t (id LONG, v STRING, PRIMARY KEY(id)) USING TTL 1 HOURS",
        r#"{"id": 1, "v": "x"}"#,
    );
    let mut db = Instance::default();
    db.set_now(NOW);
    t.apply(&mut db).unwrap();
    let written = NOW - NOW % 1000;
    db.set_now(written + 3_600_000_000);
    db.compact(None).unwrap();
    assert_eq!(
        cbt::run_line(&mut db, "count t").unwrap(),
        "1\n",
        "exactly the age is kept"
    );
    db.set_now(written + 3_601_000_000);
    db.compact(None).unwrap();
    assert_eq!(cbt::run_line(&mut db, "count t").unwrap(), "0\n");
}

#[test]
fn identity_columns_are_generated_and_the_advisor_flags_them() {
    let ddl = "CREATE TABLE users (
        id INTEGER GENERATED BY DEFAULT AS IDENTITY (START WITH 10 INCREMENT BY 5 CACHE 100 NO CYCLE),
        name STRING,
        PRIMARY KEY(id))";
    let t = oracle(
        ddl,
        r#"{"name": "a"} {"name": "b"} {"id": 3, "name": "c"} {"name": "d"}"#,
    );
    assert_eq!(
        keys(&t, 0),
        ["0000000003", "0000000010", "0000000015", "0000000020"]
    );
    let users = &t.tables[0];
    let finding = users
        .findings
        .iter()
        .find(|f| f.rule == RuleId::SequentialIdFirst)
        .expect("the advisor flags a leading identity key");
    assert_eq!(finding.severity, Severity::Error);
    assert!(finding.fixes[0].title.contains("Reverse the digits"));
    let note = users.notes.iter().find(|n| n.topic == "identity").unwrap();
    assert_eq!(note.level, NoteLevel::Warning);
    assert!(
        note.text.contains("Bigtable has no sequences"),
        "{}",
        note.text
    );

    // The advisor's fix, applied by the translation.
    let reversed = translate::from_oracle_ddl(
        ddl,
        r#"{"name": "a"} {"name": "b"}"#,
        &Options {
            reverse_identity: true,
            ..options()
        },
    )
    .unwrap();
    assert_eq!(keys(&reversed, 0), ["0100000000", "5100000000"]);
    assert!(
        reversed.tables[0]
            .findings
            .iter()
            .all(|f| f.rule != RuleId::SequentialIdFirst)
    );

    // GENERATED ALWAYS refuses values; ON NULL fills nulls; a negative
    // increment counts down.
    let always = "CREATE TABLE t (id LONG GENERATED ALWAYS AS IDENTITY (START WITH -1 INCREMENT BY -2), v STRING, PRIMARY KEY(id))";
    let t = oracle(always, r#"{"v": "x"} {"v": "y"}"#);
    assert_eq!(
        keys(&t, 0),
        ["-9999999999999999996", "-9999999999999999998"]
    );
    let e = translate::from_oracle_ddl(
        always,
        "{\"v\": \"x\"}\n{\"v\": \"y\", \"id\": 5}",
        &options(),
    )
    .unwrap_err();
    assert_eq!(
        (e.input(), e.line(), e.column()),
        (Input::Rows, 2, 18),
        "{e}"
    );
    assert!(e.message().contains("GENERATED ALWAYS"), "{e}");
    let on_null =
        "CREATE TABLE t (id INTEGER GENERATED BY DEFAULT ON NULL AS IDENTITY, PRIMARY KEY(id))";
    let t = oracle(on_null, r#"{"id": null} {}"#);
    assert_eq!(keys(&t, 0), ["0000000001", "0000000002"]);
    // A key-only table still has a cell per row (an empty marker).
    assert_eq!(cells(&t, 0, 0), ["data:="]);
    let by_default =
        "CREATE TABLE t (id INTEGER GENERATED BY DEFAULT AS IDENTITY, PRIMARY KEY(id))";
    let e = translate::from_oracle_ddl(by_default, r#"{"id": null}"#, &options()).unwrap_err();
    assert!(e.message().contains("no value for the key field id"), "{e}");
    // An identity behind a shard key spreads writes: only a note.
    let behind = oracle(
        "CREATE TABLE t (shop STRING, id LONG GENERATED ALWAYS AS IDENTITY, PRIMARY KEY(SHARD(shop), id))",
        r#"{"shop": "north"}"#,
    );
    assert!(
        behind.tables[0]
            .findings
            .iter()
            .all(|f| f.rule != RuleId::SequentialIdFirst)
    );
    assert_eq!(keys(&behind, 0), ["north#0000000000000000001"]);
}

#[test]
fn uuid_columns_generated_by_default() {
    let ddl = "CREATE TABLE t (id STRING AS UUID GENERATED BY DEFAULT, v INTEGER, PRIMARY KEY(id))";
    let a = oracle(ddl, r#"{"v": 1} {"v": 2}"#);
    let b = oracle(ddl, r#"{"v": 1} {"v": 2}"#);
    assert_eq!(
        keys(&a, 0),
        keys(&b, 0),
        "the same input gives the same UUIDs"
    );
    for k in keys(&a, 0) {
        assert_eq!(k.len(), 36, "{k}");
        assert_eq!(&k[14..15], "4", "{k}");
    }
    let e =
        translate::from_oracle_ddl(ddl, r#"{"id": "not-a-uuid", "v": 1}"#, &options()).unwrap_err();
    assert!(e.message().contains("not a UUID"), "{e}");
}

#[test]
fn rows_for_several_tables_go_by_name_and_repeat_keys_replace_rows() {
    let ddl = "CREATE TABLE a (id INTEGER, v STRING, w STRING, PRIMARY KEY(id));
               CREATE TABLE b (id INTEGER, PRIMARY KEY(id))";
    let t = oracle(
        ddl,
        r#"{"a": [{"id": 1, "v": "x", "w": "old"}, {"id": 1, "v": "y"}], "B": [{"id": 2}]}"#,
    );
    assert_eq!(
        cells(&t, 0, 0),
        ["data:v=y"],
        "the later record replaced the whole row"
    );
    assert!(t.tables[0].notes.iter().any(|n| n.topic == "duplicates"));
    assert_eq!(keys(&t, 1), ["0000000002"]);
    let mut db = t.to_instance(Default::default(), NOW).unwrap();
    assert!(cbt::run_line(&mut db, "read a").unwrap().contains("data:v"));
    // Applying twice is refused, and nothing is written the second time.
    let e = t.apply(&mut db).unwrap_err();
    assert!(e.message().contains("already has a table"), "{e}");
}

#[test]
fn indexes_become_views_with_an_index_table_as_the_alternative() {
    let t = oracle(SHOP_DDL, "");
    let users = &t.tables[1];
    let [ix] = users.indexes.as_slice() else {
        panic!("{:?}", users.indexes)
    };
    assert_eq!(ix.name, "idx_email");
    assert_eq!(ix.key, "email");
    // translate_indexes.rs runs the view's statement.
    assert_eq!(
        ix.view.as_ref().map(|v| v.name.as_str()),
        Some("users_idx_email")
    );
    assert!(
        ix.alternative.contains("index table") && ix.alternative.contains("email#<primary key>"),
        "{}",
        ix.alternative
    );
}

/// Line and column of the first `marker` in `text`.
fn position_of(text: &str, marker: &str) -> (usize, usize) {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} not in {text}"));
    let before = &text[..at];
    (
        before.matches('\n').count() + 1,
        before.rsplit('\n').next().unwrap_or("").chars().count() + 1,
    )
}

#[test]
fn bad_ddl_points_at_the_line_and_column() {
    // The DDL, the text the error must point at, and what it must say.
    let cases: &[(&str, &str, &str)] = &[
        (
            "CREATE TABLE t (\n  id INTEGR,\n  PRIMARY KEY(id))",
            "INTEGR",
            "unknown type INTEGR",
        ),
        (
            "CREATE TABLE t (id INTEGER, v STRING)",
            "CREATE",
            "has no PRIMARY KEY",
        ),
        (
            "CREATE TABLE t (id INTEGER,\n PRIMARY KEY(idd))",
            "idd",
            "not declared",
        ),
        (
            "CREATE TABLE t (id INTEGER, doc JSON,\n PRIMARY KEY(id, doc))",
            "doc))",
            "cannot be part of a primary key",
        ),
        (
            "CREATE TABLE t (id INTEGER, ID LONG, PRIMARY KEY(id))",
            "ID LONG",
            "declared twice",
        ),
        (
            "CREATE TABLE t (id INTEGER, PRIMARY KEY(id)) USING TTL 5 WEEKS",
            "WEEKS",
            "DAYS or HOURS",
        ),
        (
            "CREATE TABLE t (id INTEGER, s STRING DEFAULT \"open, PRIMARY KEY(id))",
            "\"open",
            "unterminated string",
        ),
        (
            "CREATE TABLE shop.orders (id INTEGER, PRIMARY KEY(id))",
            ".orders",
            "child tables",
        ),
        (
            "CREATE TABLE t (id INTEGER, PRIMARY KEY(id))\nDROP TABLE t",
            "DROP",
            "expected `;`",
        ),
        (
            "CREATE TABLE t (id INTEGER, PRIMARY KEY(id)) extra",
            "extra",
            "expected `;`",
        ),
        (
            "CREATE TABLE t (id INTEGER, e ENUM(a, b, a), PRIMARY KEY(id))",
            "a)",
            "listed twice",
        ),
        (
            "CREATE TABLE t (id INTEGER, b BINARY(0), PRIMARY KEY(id))",
            "0)",
            "1 to 1000000",
        ),
        (
            "CREATE TABLE t (id INTEGER, ts TIMESTAMP(12), PRIMARY KEY(id))",
            "12",
            "0 to 9",
        ),
        (
            "CREATE TABLE t (id STRING GENERATED ALWAYS AS IDENTITY, PRIMARY KEY(id))",
            "GENERATED",
            "INTEGER, LONG or NUMBER",
        ),
        (
            "CREATE TABLE t (id INTEGER, n INTEGER DEFAULT \"x\", PRIMARY KEY(id))",
            "\"x\"",
            "expected a whole number",
        ),
        (
            "CREATE TABLE t (id INTEGER, PRIMARY KEY(id)); CREATE TABLE T (id INTEGER, PRIMARY KEY(id))",
            "T (",
            "created twice",
        ),
        (
            "CREATE INDEX i ON nowhere (x)",
            "nowhere",
            "does not create",
        ),
        (
            "CREATE TABLE t (id INTEGER, PRIMARY KEY(id)) /* never closed",
            "/*",
            "unterminated /* comment",
        ),
        ("   ", "   ", "creates no table"),
        (
            "CREATE TABLE t (id INTEGER, PRIMARY KEY(id)) AS JSON COLLECTION",
            "AS",
            "expected `;`",
        ),
        (
            "CREATE TABLE t (id INTEGER, v INTEGER AS UUID, PRIMARY KEY(id))",
            "AS UUID",
            "only a STRING",
        ),
        (
            "CREATE TABLE `` (id INTEGER, PRIMARY KEY(id))",
            "``",
            "must not be empty",
        ),
        (
            "CREATE TABLE t (id INTEGER, PRIMARY KEY(id)) ?",
            "?",
            "unexpected character",
        ),
    ];
    for (ddl, marker, message) in cases {
        let e = translate::from_oracle_ddl(ddl, "", &options()).unwrap_err();
        let want = if *marker == "   " {
            (1, 4)
        } else {
            position_of(ddl, marker)
        };
        assert_eq!((e.line(), e.column()), want, "{ddl}\n=> {e}");
        assert!(e.message().contains(message), "{ddl}\n=> {e}");
        assert_eq!(e.input(), Input::Ddl);
    }
}

#[test]
fn bad_records_point_at_the_line_and_column() {
    let ddl = "CREATE TABLE t (id INTEGER, s STRING NOT NULL, b FIXED_BINARY(2), e ENUM(x, y),
        m MAP(INTEGER), r RECORD(a INTEGER, z STRING NOT NULL), PRIMARY KEY(id))";
    let cases: &[(&str, &str, &str)] = &[
        (
            "{\"id\": 1, \"s\": \"ok\"}\n{\"id\": 2,, }",
            ", }",
            "expected a member name",
        ),
        (
            "{\"id\": 1, \"s\": \"ok\"}\n{\"id\": 3000000000, \"s\": \"ok\"}",
            "3000000000",
            "INTEGER range",
        ),
        ("{\"id\": 1.5, \"s\": \"ok\"}", "1.5", "not a whole number"),
        ("{\"id\": 1, \"s\": 7}", "7}", "expected a string"),
        ("{\"id\": 1}", "{", "NOT NULL"),
        (
            "{\"id\": 1, \"s\": \"ok\", \"nope\": 1}",
            "\"nope\"",
            "has no field \"nope\"",
        ),
        (
            "{\"id\": 1, \"s\": \"ok\", \"b\": \"AAAA\"}",
            "\"AAAA\"",
            "exactly 2 bytes",
        ),
        (
            "{\"id\": 1, \"s\": \"ok\", \"b\": \"***\"}",
            "\"***\"",
            "base64",
        ),
        (
            "{\"id\": 1, \"s\": \"ok\", \"e\": \"w\"}",
            "\"w\"",
            "not a symbol",
        ),
        (
            "{\"id\": 1, \"s\": \"ok\", \"m\": {\"k\": null}}",
            "null",
            "cannot hold null",
        ),
        (
            "{\"id\": 1, \"s\": \"ok\", \"m\": {\"k\": \"v\"}}",
            "\"v\"",
            "expected a whole number",
        ),
        (
            "{\"id\": 1, \"s\": \"ok\", \"r\": {\"a\": 1}}",
            "{\"a\"",
            "NOT NULL field z",
        ),
        (
            "{\"id\": 1, \"s\": \"ok\", \"r\": {\"q\": 1, \"z\": \"\"}}",
            "\"q\"",
            "no field \"q\"",
        ),
        (
            "[{\"id\": 1, \"s\": \"ok\"}, 5]",
            "5]",
            "must be a JSON object",
        ),
        ("{\"s\": \"ok\"}", "{", "no value for the key field id"),
        (
            "{\"id\": 1, \"s\": \"ok\", \"ID\": 2}",
            "\"ID\"",
            "given twice",
        ),
    ];
    for (rows, marker, message) in cases {
        let e = translate::from_oracle_ddl(ddl, rows, &options()).unwrap_err();
        assert_eq!(
            (e.line(), e.column()),
            position_of(rows, marker),
            "{rows}\n=> {e}"
        );
        assert!(e.message().contains(message), "{rows}\n=> {e}");
        assert_eq!(e.input(), Input::Rows, "{rows}");
    }
    let two = "CREATE TABLE a (id INTEGER, PRIMARY KEY(id)); CREATE TABLE b (id INTEGER, PRIMARY KEY(id))";
    let e = translate::from_oracle_ddl(two, r#"{"id": 1}"#, &options()).unwrap_err();
    assert!(e.message().contains("no table \"id\""), "{e}");
    let e = translate::from_oracle_ddl(two, "{\"a\": []}\n{\"b\": []}", &options()).unwrap_err();
    assert_eq!((e.line(), e.column()), (2, 1), "{e}");
}

#[test]
fn the_report_spells_out_the_layout() {
    let t = oracle(SHOP_DDL, SHOP_ROWS);
    let text = t.to_text();
    for want in [
        "Table orders",
        "1. customer_id LONG: zero-padded 19-digit decimal",
        "; shard key",
        "data  [GC maxage=90d || maxversions=1; bytes]",
        "doc  [GC maxage=90d || maxversions=1; bytes]",
        "Rows: 3 (21 cells)",
        "sequential_id_first",
        "idx_email on (email)",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    let json: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
    assert_eq!(json["tables"][0]["row_count"], 3);
    assert_eq!(
        json["tables"][1]["findings"][0]["rule"],
        "sequential_id_first"
    );
}
