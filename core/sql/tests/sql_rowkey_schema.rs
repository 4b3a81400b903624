//! Row-key schemas: typed key fields as SQL columns, validation of stored
//! keys (offenders reported, queries on key fields refused on them), key
//! prefixes from equality on leading fields. (Schemas derived from the
//! row-key designer's templates are tested with the designer, in
//! tabletop-design.)

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_sql::Instance;
use tabletop_sql::rowkey_schema::{
    self, FieldType, IntEncoding, KeyValue, RowKeySchema, StructEncoding,
};
use tabletop_sql::sql::{self, Outcome, SqlType, Value};
use tabletop_store::ReadShape;
use tabletop_store::*;

fn mobile(keys: &[&str]) -> Instance {
    let mut db = Instance::default();
    db.set_now(1_600_000_000_000_000);
    db.create_table(
        CreateTableRequest::with_families("mobile", [("stats", ColumnFamily::with_gc(None))])
            .split_at(["phone#5", "tablet"]),
    )
    .unwrap();
    for k in keys {
        db.mutate_row(
            "mobile",
            k.as_bytes(),
            &[Mutation::set_cell("stats", b"os", -1, b"PQ2A")],
        )
        .unwrap();
    }
    db
}

const KEYS: [&str; 8] = [
    "phone#4c410523#20200501",
    "phone#4c410523#20200502",
    "phone#5c10102#20200501",
    "phone#5c10102#20200503",
    "tablet#a0b81f74#20200501",
    "tablet#a0b81f74#20200502",
    "tablet#a0b81f74#20200601",
    "tablet#ff000000#20200501",
];

const SCHEMA: &str = "ALTER TABLE mobile SET ROW KEY SCHEMA device_type STRING, device_id STRING, day INT64 DECIMAL(8) DELIMITED BY '#'";

#[test]
fn key_fields_become_typed_columns_and_prefixes() {
    let mut db = mobile(&KEYS);
    let out = sql::execute(&mut db, SCHEMA).unwrap();
    let Outcome::RowKeySchemaSet { conformance, .. } = &out else {
        panic!()
    };
    assert_eq!(conformance.rows_checked, 8);
    assert_eq!(conformance.non_conforming, 0);
    assert!(out.changes_state());
    // SELECT * has the fields, not _key.
    let r = sql::query(
        &mut db,
        "SELECT * FROM mobile WHERE device_type = 'phone' AND device_id = '5c10102'",
    )
    .unwrap();
    let names: Vec<&str> = r.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["device_type", "device_id", "day", "stats"]);
    assert_eq!(r.columns[2].sql_type, SqlType::Int64);
    assert_eq!(
        r.rows.iter().map(|row| row[2].clone()).collect::<Vec<_>>(),
        vec![Value::Int64(20_200_501), Value::Int64(20_200_503)]
    );
    // Equality on the leading fields is a key prefix.
    assert_eq!(
        r.explain.request.rows,
        RowSet::range(RowRange::prefix("phone#5c10102#"))
    );
    assert_eq!(r.explain.stats.rows_seen, 2);
    // IN on the first field gives one prefix per value.
    let r = sql::query(
        &mut db,
        "SELECT _key FROM mobile WHERE device_type IN ('tablet', 'watch') AND day >= 20200502",
    )
    .unwrap();
    assert_eq!(r.explain.access.shape(), ReadShape::MultiRange);
    assert_eq!(
        r.rows,
        vec![
            vec![Value::Bytes(b"tablet#a0b81f74#20200502".to_vec())],
            vec![Value::Bytes(b"tablet#a0b81f74#20200601".to_vec())]
        ]
    );
    // All fields: a point read.
    let r = sql::query(
        &mut db,
        "SELECT day FROM mobile WHERE device_type = 'phone' AND device_id = '4c410523' AND day = 20200502",
    )
    .unwrap();
    assert_eq!(r.explain.access.shape(), ReadShape::Point);
    assert_eq!(r.rows, vec![vec![Value::Int64(20_200_502)]]);
    // A predicate on a later field alone scans everything, and says so.
    let e = sql::explain(&mut db, "SELECT _key FROM mobile WHERE day = 20200501").unwrap();
    assert_eq!(e.access.shape(), ReadShape::FullScan);
    assert!(
        e.notes
            .iter()
            .any(|n| n.contains("only from the first field")),
        "{:?}",
        e.notes
    );
    // ReadRows ignores the schema, as in Bigtable.
    let mut rows = CollectRows::default();
    db.read_rows("mobile", &ReadRowsRequest::default(), &mut rows)
        .unwrap();
    assert_eq!(rows.rows.len(), 8);
}

#[test]
fn non_conforming_keys_are_reported_and_fail_key_field_queries() {
    let mut keys = KEYS.to_vec();
    keys.extend(["phone#4c410523", "watch#12#2020050", "phone#x#2020-05-01"]);
    let mut db = mobile(&keys);
    let out = sql::execute(&mut db, SCHEMA).unwrap();
    let Outcome::RowKeySchemaSet { conformance: c, .. } = &out else {
        panic!()
    };
    assert_eq!((c.rows_checked, c.conforming, c.non_conforming), (11, 8, 3));
    let reasons: Vec<String> = c.examples.iter().map(|e| e.error.to_string()).collect();
    assert!(reasons[0].contains("2 part(s)"), "{reasons:?}");
    assert!(
        reasons[1].contains("field day") && reasons[1].contains("decimal digits"),
        "{reasons:?}"
    );
    assert!(
        reasons[2].contains("field day") && reasons[2].contains("DECIMAL(8) needs 8"),
        "{reasons:?}"
    );
    assert!(out.to_text().contains("3 of 11 row key(s) do not conform"));
    // Selecting key fields over a bad row fails; _key and families work.
    let e = sql::query(&mut db, "SELECT device_type FROM mobile").unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(e.message().contains("does not conform"), "{e}");
    let r = sql::query(&mut db, "SELECT _key, stats['os'] FROM mobile").unwrap();
    assert_eq!(r.rows.len(), 11);
    // A read that never meets the bad rows is fine.
    let r = sql::query(
        &mut db,
        "SELECT day FROM mobile WHERE device_type = 'tablet'",
    )
    .unwrap();
    assert_eq!(r.rows.len(), 4);
    // Checking without setting.
    let s = RowKeySchema::from_sql("device_type STRING, rest STRING DELIMITED BY '#'").unwrap();
    let c = rowkey_schema::check_table(&mut db, "mobile", &s, 10).unwrap();
    assert_eq!(c.non_conforming, 10);
    sql::execute(&mut db, "ALTER TABLE mobile DROP ROW KEY SCHEMA").unwrap();
    assert!(rowkey_schema::row_key_schema(&db, "mobile").is_none());
}

#[test]
fn schemas_are_validated() {
    let mut db = mobile(&KEYS);
    for (stmt, want) in [
        (
            "ALTER TABLE mobile SET ROW KEY SCHEMA a STRING, a STRING DELIMITED BY '#'",
            "used twice",
        ),
        (
            "ALTER TABLE mobile SET ROW KEY SCHEMA stats STRING DELIMITED BY '#'",
            "column family",
        ),
        (
            "ALTER TABLE mobile SET ROW KEY SCHEMA a STRING, b STRING FIXED_WIDTH",
            "fixed width",
        ),
        (
            "ALTER TABLE mobile SET ROW KEY SCHEMA a FLOAT64",
            "STRING, BYTES, INT64 or TIMESTAMP",
        ),
        (
            "ALTER TABLE mobile SET ROW KEY SCHEMA _key STRING",
            "reserved",
        ),
        ("ALTER TABLE nope SET ROW KEY SCHEMA a STRING", "not found"),
        (
            "ALTER TABLE mobile SET ROW KEY SCHEMA a INT64 DECIMAL(25)",
            "1 to 19",
        ),
    ] {
        let e = sql::execute(&mut db, stmt).unwrap_err();
        assert!(e.message().contains(want), "{stmt}: {e}");
    }
}

#[test]
fn every_encoding_round_trips_and_keeps_order() {
    let schemas = [
        "n INT64 BIG_ENDIAN, s STRING ORDERED_CODE",
        "n INT64 ORDERED_CODE, b BYTES ORDERED_CODE",
        "n INT64 DECIMAL(6), t TIMESTAMP MILLIS DECIMAL(13) DELIMITED BY '/'",
        "salt INT64 DECIMAL(2), t TIMESTAMP SECONDS BIG_ENDIAN REVERSED FIXED_WIDTH",
        "s STRING(3), n INT64 BIG_ENDIAN, rest BYTES FIXED_WIDTH",
    ];
    for text in schemas {
        let s = RowKeySchema::from_sql(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(RowKeySchema::from_sql(&s.to_string()).unwrap(), s, "{text}");
        let mut keys = Vec::new();
        for i in 0..50i64 {
            let vals: Vec<KeyValue> = s
                .fields
                .iter()
                .map(|f| match &f.field_type {
                    FieldType::String { width } => {
                        KeyValue::String(format!("{:0w$}", i / 7, w = width.unwrap_or(2)))
                    }
                    FieldType::Bytes { .. } => KeyValue::Bytes(vec![b'a' + (i % 5) as u8]),
                    FieldType::Int64(IntEncoding::Decimal { .. }) => KeyValue::Int64(i % 13),
                    FieldType::Int64(IntEncoding::BigEndian) => KeyValue::Int64(i * 1000 + 7),
                    FieldType::Int64(_) => KeyValue::Int64(i * 1000 - 7),
                    FieldType::Timestamp { .. } => {
                        KeyValue::Timestamp(1_600_000_000_000_000 + i * 1_000_000)
                    }
                })
                .collect();
            let Ok(k) = s.encode(&vals) else { continue };
            assert_eq!(s.decode(&k).unwrap(), vals, "{text}");
            keys.push((k, vals));
        }
        assert!(keys.len() > 20, "{text}");
        // Where every field's encoding preserves order, keys sort like
        // their values (big-endian INT64 only for values >= 0).
        if !text.contains("REVERSED") {
            let mut by_key = keys.clone();
            by_key.sort_by(|a, b| a.0.cmp(&b.0));
            let mut by_val = keys.clone();
            by_val.sort_by(|a, b| a.1.cmp(&b.1));
            assert_eq!(
                by_key.iter().map(|x| &x.1).collect::<Vec<_>>(),
                by_val.iter().map(|x| &x.1).collect::<Vec<_>>(),
                "{text}"
            );
        }
    }
    // A delimited field cannot hold the delimiter.
    let s = RowKeySchema::from_sql("a STRING, b STRING DELIMITED BY '#'").unwrap();
    assert!(
        s.encode(&[KeyValue::String("x#y".into()), KeyValue::String("z".into())])
            .is_err()
    );
    assert_eq!(s.encoding, StructEncoding::Delimited(b"#".to_vec()));
}

#[cfg(not(target_arch = "wasm32"))]
mod property {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn decoding_never_panics_and_accepts_only_what_encodes(key in proptest::collection::vec(any::<u8>(), 0..24)) {
            for text in [
                "a STRING, b INT64 ORDERED_CODE ORDERED_CODE",
                "a BYTES, b INT64 DECIMAL(3) DELIMITED BY '#'",
                "a INT64 BIG_ENDIAN, b TIMESTAMP MILLIS DECIMAL REVERSED FIXED_WIDTH",
            ] {
                let s = RowKeySchema::from_sql(text).unwrap();
                if let Ok(vals) = s.decode(&key) {
                    let back = s.encode(&vals);
                    // Decoding is canonical: what decodes encodes back to
                    // the same key (reversed decimals may drop padding).
                    if !text.contains("REVERSED") {
                        prop_assert_eq!(back.unwrap(), key.clone(), "{}", text);
                    }
                }
            }
        }
    }
}
