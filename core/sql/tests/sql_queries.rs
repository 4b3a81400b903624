//! Every SQL feature against the same data read through ReadRows: the
//! rows a query answers must be the rows (and values) the equivalent
//! ReadRows reads, and EXPLAIN must describe the request it became.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_sql::Instance;
use tabletop_sql::sql::{self, Access, Outcome, SqlType, Value};
use tabletop_store::ReadShape;
use tabletop_store::*;

/// 2019-05-01T00:00:00Z.
const T0: i64 = 1_556_668_800_000_000;
const HOUR: i64 = 3_600_000_000;

const DEVICES: [&str; 4] = [
    "phone#4c410523",
    "phone#5c10102",
    "tablet#a0b81f74",
    "tablet#a0b81f75",
];

fn fixture() -> Instance {
    let mut db = Instance::default();
    db.set_now(T0 + 100 * HOUR);
    db.create_table(
        CreateTableRequest::with_families(
            "mobile",
            [
                ("stats_summary", ColumnFamily::with_gc(None)),
                ("cell_plan", ColumnFamily::with_gc(None)),
                (
                    "counts",
                    ColumnFamily {
                        gc_rule: None,
                        value_type: ValueType::Aggregate(Aggregator::Sum),
                    },
                ),
            ],
        )
        .split_at(["phone#5", "tablet#"]),
    )
    .unwrap();
    for (d, dev) in DEVICES.iter().enumerate() {
        for day in 1..=5i64 {
            let key = format!("{dev}#2019050{day}");
            for version in 0..3i64 {
                let ts = T0 + (day * 24 - version) * HOUR;
                let os = format!("PQ2A.19040{}.00{}", day % 3, version);
                let mut muts = vec![Mutation::set_cell(
                    "stats_summary",
                    b"os_build",
                    ts,
                    os.as_bytes(),
                )];
                let connected = if (day + version + d as i64) % 2 == 0 {
                    b"1".as_slice()
                } else {
                    b"0".as_slice()
                };
                muts.push(Mutation::set_cell(
                    "stats_summary",
                    b"connected_cell",
                    ts,
                    connected,
                ));
                db.mutate_row("mobile", key.as_bytes(), &muts).unwrap();
            }
            if day % 2 == 1 {
                db.mutate_row(
                    "mobile",
                    key.as_bytes(),
                    &[Mutation::set_cell(
                        "cell_plan",
                        b"data_plan_05gb",
                        T0 + day * 24 * HOUR,
                        b"true",
                    )],
                )
                .unwrap();
            }
            let be = (d as i64 * 100 + day).to_be_bytes();
            db.mutate_row(
                "mobile",
                key.as_bytes(),
                &[
                    Mutation::set_cell("stats_summary", b"count_be", T0, &be),
                    Mutation::AddToCell {
                        family_name: "counts".into(),
                        column_qualifier: b"visits".as_slice().into(),
                        timestamp_micros: 0,
                        input: AggregateInput::Int(day * 10),
                    },
                ],
            )
            .unwrap();
        }
    }
    db
}

fn read(db: &mut Instance, req: &ReadRowsRequest) -> Vec<OwnedRow> {
    let mut rows = CollectRows::default();
    db.read_rows("mobile", req, &mut rows).unwrap();
    rows.rows
}

fn all(db: &mut Instance) -> Vec<OwnedRow> {
    read(db, &ReadRowsRequest::default())
}

fn latest(row: &OwnedRow, fam: &str, qual: &[u8]) -> Option<Vec<u8>> {
    row.cells
        .iter()
        .find(|c| c.family == fam && c.qualifier == qual)
        .map(|c| c.value.clone())
}

fn q(db: &mut Instance, text: &str) -> sql::QueryResult {
    sql::query(db, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn keys_of(r: &sql::QueryResult, col: usize) -> Vec<Vec<u8>> {
    r.rows
        .iter()
        .map(|row| match &row[col] {
            Value::Bytes(b) => b.clone(),
            other => panic!("not bytes: {other:?}"),
        })
        .collect()
}

/// Which keys a predicate should select.
type KeyTest = Box<dyn Fn(&[u8]) -> bool>;
/// Which rows a predicate should select.
type RowTest = Box<dyn Fn(&OwnedRow) -> bool>;

fn bytes(s: &str) -> Value {
    Value::Bytes(s.as_bytes().to_vec())
}

#[test]
fn point_read_by_key_equals_read_rows_lookup() {
    let mut db = fixture();
    let key = "phone#4c410523#20190502";
    let r = q(
        &mut db,
        &format!("SELECT _key, stats_summary['os_build'] AS os FROM mobile WHERE _key = '{key}'"),
    );
    let row = db
        .read_row("mobile", key.as_bytes(), None)
        .unwrap()
        .unwrap();
    assert_eq!(
        r.rows,
        vec![vec![
            bytes(key),
            Value::Bytes(latest(&row, "stats_summary", b"os_build").unwrap())
        ]]
    );
    assert_eq!(r.columns[1].name, "os");
    assert_eq!(r.columns[1].sql_type, SqlType::Bytes);
    assert_eq!(r.columns[0].sql_type, SqlType::Bytes);
    assert_eq!(
        r.explain.access,
        Access::PointRead {
            key: key.as_bytes().to_vec()
        }
    );
    assert_eq!(r.explain.access.shape(), ReadShape::Point);
    assert_eq!(r.explain.stats.rows_seen, 1);
    assert_eq!(r.explain.tablets_touched.len(), 1);
}

#[test]
fn key_ranges_prefixes_and_or_of_ranges_match_read_rows() {
    let mut db = fixture();
    let everything = all(&mut db);
    let cases: Vec<(&str, KeyTest, ReadShape)> = vec![
        (
            "_key >= 'phone#4c410523#20190502' AND _key < 'phone#4c410523#20190505'",
            Box::new(|k| {
                k >= b"phone#4c410523#20190502".as_slice()
                    && k < b"phone#4c410523#20190505".as_slice()
            }),
            ReadShape::SingleRange,
        ),
        (
            "STARTS_WITH(_key, 'tablet#')",
            Box::new(|k| k.starts_with(b"tablet#")),
            ReadShape::SingleRange,
        ),
        (
            "_key LIKE 'phone#5c10102#%'",
            Box::new(|k| k.starts_with(b"phone#5c10102#")),
            ReadShape::SingleRange,
        ),
        (
            "(_key >= 'phone#4c410523#20190501' AND _key <= 'phone#4c410523#20190502') OR (_key > 'tablet#a0b81f75#20190503')",
            Box::new(|k| {
                (k >= b"phone#4c410523#20190501".as_slice()
                    && k <= b"phone#4c410523#20190502".as_slice())
                    || k > b"tablet#a0b81f75#20190503".as_slice()
            }),
            ReadShape::MultiRange,
        ),
        (
            "_key IN ('phone#5c10102#20190503', 'tablet#a0b81f74#20190501', 'nope')",
            Box::new(|k| k == b"phone#5c10102#20190503" || k == b"tablet#a0b81f74#20190501"),
            ReadShape::MultiRange,
        ),
        (
            "_key BETWEEN 'phone#5' AND 'tablet#a0b81f74#20190502'",
            Box::new(|k| k >= b"phone#5".as_slice() && k <= b"tablet#a0b81f74#20190502".as_slice()),
            ReadShape::SingleRange,
        ),
        (
            "STARTS_WITH(_key, 'phone#') AND _key > 'phone#4c410523#20190504'",
            Box::new(|k| k.starts_with(b"phone#") && k > b"phone#4c410523#20190504".as_slice()),
            ReadShape::SingleRange,
        ),
    ];
    for (pred, want, shape) in cases {
        let r = q(&mut db, &format!("SELECT _key FROM mobile WHERE {pred}"));
        let expect: Vec<Vec<u8>> = everything
            .iter()
            .filter(|row| want(&row.key))
            .map(|row| row.key.clone())
            .collect();
        assert_eq!(keys_of(&r, 0), expect, "{pred}");
        assert_eq!(
            r.explain.access.shape(),
            shape,
            "{pred}: {:?}",
            r.explain.access
        );
        // Only the selected rows are read: key predicates are the row set.
        assert_eq!(r.explain.stats.rows_seen, expect.len() as u64, "{pred}");
        assert!(r.explain.after_read.is_empty(), "{pred}");
        // The same request through ReadRows gives the same keys.
        let rr = read(&mut db, &r.explain.request);
        assert_eq!(
            rr.iter().map(|x| x.key.clone()).collect::<Vec<_>>(),
            expect,
            "{pred}"
        );
    }
}

#[test]
fn map_columns_and_map_keys_match_the_cells() {
    let mut db = fixture();
    let everything = all(&mut db);
    let r = q(
        &mut db,
        "SELECT _key, MAP_KEYS(stats_summary) AS quals, cell_plan['data_plan_05gb'] AS plan, stats_summary FROM mobile",
    );
    assert_eq!(r.rows.len(), everything.len());
    assert_eq!(
        r.columns[1].sql_type,
        SqlType::Array(Box::new(SqlType::Bytes))
    );
    assert_eq!(r.columns[3].sql_type, SqlType::family());
    for (row, out) in everything.iter().zip(&r.rows) {
        assert_eq!(out[0], Value::Bytes(row.key.clone()));
        let mut quals: Vec<Vec<u8>> = row
            .cells
            .iter()
            .filter(|c| c.family == "stats_summary")
            .map(|c| c.qualifier.clone())
            .collect();
        quals.dedup();
        assert_eq!(
            out[1],
            Value::Array(quals.iter().cloned().map(Value::Bytes).collect())
        );
        assert_eq!(
            out[2],
            latest(row, "cell_plan", b"data_plan_05gb").map_or(Value::Null, Value::Bytes)
        );
        let Value::Map(m) = &out[3] else {
            panic!("{:?}", out[3])
        };
        for (k, v) in m {
            let Value::Bytes(q) = k else { panic!() };
            assert_eq!(*v, Value::Bytes(latest(row, "stats_summary", q).unwrap()));
        }
    }
    // Only the families and columns used are read.
    let text = r.explain.filter_text();
    assert!(
        text.contains("family_name_regex_filter \"stats_summary\""),
        "{text}"
    );
    assert!(
        text.contains("column_qualifier_regex_filter \"data_plan_05gb\""),
        "{text}"
    );
    assert!(text.contains("cells_per_column_limit_filter 1"), "{text}");
}

#[test]
fn select_star_and_aggregate_families_are_typed() {
    let mut db = fixture();
    let r = q(
        &mut db,
        "SELECT * FROM mobile WHERE _key = 'phone#5c10102#20190503'",
    );
    let names: Vec<&str> = r.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["_key", "cell_plan", "counts", "stats_summary"]);
    assert_eq!(
        r.columns[2].sql_type,
        SqlType::Map(Box::new(SqlType::Bytes), Box::new(SqlType::Int64))
    );
    assert_eq!(
        r.rows[0][2],
        Value::Map(vec![(bytes("visits"), Value::Int64(30))])
    );
    // A query that reads everything sends no projection.
    assert_eq!(
        r.explain.request.filter,
        Some(RowFilter::CellsPerColumnLimit(1))
    );
}

#[test]
fn value_predicates_are_pushed_down_as_conditions_and_agree_with_read_rows() {
    let mut db = fixture();
    let everything = all(&mut db);
    let cases: Vec<(&str, RowTest)> = vec![
        (
            "stats_summary['os_build'] = 'PQ2A.190402.000'",
            Box::new(|r| {
                latest(r, "stats_summary", b"os_build").as_deref()
                    == Some(b"PQ2A.190402.000".as_slice())
            }),
        ),
        (
            "stats_summary['connected_cell'] != '1'",
            Box::new(|r| latest(r, "stats_summary", b"connected_cell").is_some_and(|v| v != b"1")),
        ),
        (
            "stats_summary['os_build'] >= 'PQ2A.190401' AND cell_plan['data_plan_05gb'] IS NOT NULL",
            Box::new(|r| {
                latest(r, "stats_summary", b"os_build")
                    .is_some_and(|v| v.as_slice() >= b"PQ2A.190401".as_slice())
                    && latest(r, "cell_plan", b"data_plan_05gb").is_some()
            }),
        ),
        (
            "stats_summary['os_build'] IN ('PQ2A.190400.000', 'PQ2A.190401.000') OR MAP_CONTAINS_KEY(cell_plan, 'nothing')",
            Box::new(|r| {
                matches!(
                    latest(r, "stats_summary", b"os_build").as_deref(),
                    Some(b"PQ2A.190400.000") | Some(b"PQ2A.190401.000")
                )
            }),
        ),
        (
            "stats_summary['os_build'] LIKE 'PQ2A.19040%'",
            Box::new(|r| {
                latest(r, "stats_summary", b"os_build")
                    .is_some_and(|v| v.starts_with(b"PQ2A.19040"))
            }),
        ),
    ];
    for (pred, want) in cases {
        let r = q(&mut db, &format!("SELECT _key FROM mobile WHERE {pred}"));
        let expect: Vec<Vec<u8>> = everything
            .iter()
            .filter(|row| want(row))
            .map(|row| row.key.clone())
            .collect();
        assert_eq!(keys_of(&r, 0), expect, "{pred}");
        assert!(
            r.explain.after_read.is_empty(),
            "{pred}: {:?}",
            r.explain.after_read
        );
        assert!(
            r.explain.filter_text().contains("condition"),
            "{pred}: {}",
            r.explain.filter_text()
        );
        assert_eq!(r.explain.access.shape(), ReadShape::FullScan, "{pred}");
        assert_eq!(r.explain.stats.rows_seen, everything.len() as u64);
        assert_eq!(r.explain.stats.rows_returned, expect.len() as u64);
    }
}

#[test]
fn predicates_that_cannot_be_pushed_run_after_the_read() {
    let mut db = fixture();
    let everything = all(&mut db);
    let r = q(
        &mut db,
        "SELECT _key, SAFE_CONVERT_BYTES_TO_STRING(stats_summary['os_build']) AS os FROM mobile WHERE ENDS_WITH(SAFE_CONVERT_BYTES_TO_STRING(stats_summary['os_build']), '2.000') LIMIT 3",
    );
    let expect: Vec<Vec<u8>> = everything
        .iter()
        .filter(|row| {
            latest(row, "stats_summary", b"os_build").is_some_and(|v| v.ends_with(b"2.000"))
        })
        .map(|row| row.key.clone())
        .take(3)
        .collect();
    assert_eq!(keys_of(&r, 0), expect);
    assert_eq!(r.columns[1].sql_type, SqlType::String);
    assert!(matches!(r.rows[0][1], Value::String(_)));
    assert_eq!(r.explain.after_read.len(), 2, "{:?}", r.explain.after_read);
    assert_eq!(r.explain.request.rows_limit, 0);
    // Without a predicate after the read, LIMIT becomes the rows limit.
    let r = q(&mut db, "SELECT _key FROM mobile LIMIT 4 OFFSET 2");
    assert_eq!(r.explain.request.rows_limit, 6);
    assert_eq!(
        keys_of(&r, 0),
        everything
            .iter()
            .skip(2)
            .take(4)
            .map(|x| x.key.clone())
            .collect::<Vec<_>>()
    );
    assert_eq!(r.explain.stats.rows_seen, 6);
}

#[test]
fn order_by_key_desc_is_a_reversed_read() {
    let mut db = fixture();
    let everything = all(&mut db);
    let r = q(
        &mut db,
        "SELECT _key FROM mobile WHERE STARTS_WITH(_key, 'phone#') ORDER BY _key DESC LIMIT 3",
    );
    let expect: Vec<Vec<u8>> = everything
        .iter()
        .rev()
        .filter(|x| x.key.starts_with(b"phone#"))
        .take(3)
        .map(|x| x.key.clone())
        .collect();
    assert_eq!(keys_of(&r, 0), expect);
    assert!(r.explain.request.reversed);
    assert_eq!(r.explain.request.rows_limit, 3);
    // Any other ORDER BY sorts after the read.
    let r = q(
        &mut db,
        "SELECT _key, stats_summary['os_build'] AS os FROM mobile ORDER BY os DESC, _key LIMIT 2",
    );
    let mut sorted: Vec<(Vec<u8>, Vec<u8>)> = everything
        .iter()
        .map(|x| {
            (
                latest(x, "stats_summary", b"os_build").unwrap(),
                x.key.clone(),
            )
        })
        .collect();
    sorted.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    assert_eq!(
        keys_of(&r, 0),
        sorted
            .iter()
            .take(2)
            .map(|x| x.1.clone())
            .collect::<Vec<_>>()
    );
}

#[test]
fn temporal_options_match_timestamp_filters() {
    let mut db = fixture();
    let key = "phone#4c410523#20190503";
    let row = |db: &mut Instance, f: Option<RowFilter>| {
        db.read_row("mobile", key.as_bytes(), f).unwrap().unwrap()
    };
    let history = |r: &OwnedRow, qual: &[u8]| -> Value {
        Value::Array(
            r.cells
                .iter()
                .filter(|c| c.family == "stats_summary" && c.qualifier == qual)
                .map(|c| {
                    Value::Struct(vec![
                        ("timestamp".into(), Value::Timestamp(c.timestamp_micros)),
                        ("value".into(), Value::Bytes(c.value.clone())),
                    ])
                })
                .collect(),
        )
    };
    // with_history: every version, newest first.
    let r = q(
        &mut db,
        &format!(
            "SELECT stats_summary['os_build'] AS h FROM mobile(with_history => TRUE) WHERE _key = '{key}'"
        ),
    );
    let full = row(&mut db, None);
    assert_eq!(r.rows[0][0], history(&full, b"os_build"));
    assert_eq!(r.columns[0].sql_type, SqlType::history(SqlType::Bytes));
    // latest_n.
    let r = q(
        &mut db,
        &format!(
            "SELECT stats_summary['os_build'] AS h FROM mobile(with_history => TRUE, latest_n => 2) WHERE _key = '{key}'"
        ),
    );
    let two = row(&mut db, Some(RowFilter::CellsPerColumnLimit(2)));
    assert_eq!(r.rows[0][0], history(&two, b"os_build"));
    // after / before (exclusive) and after_or_equal.
    let t_hi = T0 + 72 * HOUR; // the newest version of day 3
    let t_mid = t_hi - HOUR;
    let r = q(
        &mut db,
        &format!(
            "SELECT stats_summary['os_build'] AS h FROM mobile(with_history => TRUE, after_or_equal => TIMESTAMP_MICROS({t_mid}), before => TIMESTAMP_MICROS({t_hi})) WHERE _key = '{key}'"
        ),
    );
    let ranged = row(
        &mut db,
        Some(RowFilter::TimestampRange(TimestampRange {
            start_micros: t_mid,
            end_micros: t_hi,
        })),
    );
    assert_eq!(r.rows[0][0], history(&ranged, b"os_build"));
    let Value::Array(items) = &r.rows[0][0] else {
        panic!()
    };
    assert_eq!(items.len(), 1);
    // as_of: the latest value at or before the time.
    let r = q(
        &mut db,
        &format!(
            "SELECT stats_summary['os_build'] AS os FROM mobile(as_of => TIMESTAMP_MICROS({t_mid})) WHERE _key = '{key}'"
        ),
    );
    let as_of = row(
        &mut db,
        Some(RowFilter::Chain(vec![
            RowFilter::TimestampRange(TimestampRange {
                start_micros: 0,
                end_micros: t_mid + 1000,
            }),
            RowFilter::CellsPerColumnLimit(1),
        ])),
    );
    assert_eq!(
        r.rows[0][0],
        Value::Bytes(latest(&as_of, "stats_summary", b"os_build").unwrap())
    );
    assert_eq!(
        r.rows[0][0],
        Value::Bytes(b"PQ2A.190400.001".to_vec()),
        "the second-newest version of day 3"
    );
    // A row with no cell in the time range is not returned.
    let r = q(
        &mut db,
        "SELECT _key FROM mobile(with_history => TRUE, before => TIMESTAMP '2019-05-01 12:00:00') WHERE STARTS_WITH(_key, 'phone#4c410523#')",
    );
    let expect = read(
        &mut db,
        &ReadRowsRequest {
            rows: RowSet::range(RowRange::prefix("phone#4c410523#")),
            filter: Some(RowFilter::TimestampRange(TimestampRange {
                start_micros: 0,
                end_micros: T0 + 12 * HOUR,
            })),
            ..ReadRowsRequest::default()
        },
    );
    assert_eq!(
        keys_of(&r, 0),
        expect.iter().map(|x| x.key.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn unpack_gives_one_row_per_timestamp() {
    let mut db = fixture();
    let key = "tablet#a0b81f74#20190502";
    let r = q(
        &mut db,
        &format!(
            "SELECT _key, _timestamp, os, cc FROM UNPACK((SELECT _key, stats_summary['os_build'] AS os, stats_summary['connected_cell'] AS cc FROM mobile(with_history => TRUE) WHERE _key = '{key}'))"
        ),
    );
    let full = db
        .read_row("mobile", key.as_bytes(), None)
        .unwrap()
        .unwrap();
    let mut stamps: Vec<i64> = full
        .cells
        .iter()
        .filter(|c| {
            c.family == "stats_summary"
                && (c.qualifier == b"os_build" || c.qualifier == b"connected_cell")
        })
        .map(|c| c.timestamp_micros)
        .collect();
    stamps.sort_unstable_by(|a, b| b.cmp(a));
    stamps.dedup();
    assert_eq!(r.rows.len(), stamps.len());
    for (out, ts) in r.rows.iter().zip(&stamps) {
        assert_eq!(out[0], bytes(key));
        assert_eq!(out[1], Value::Timestamp(*ts));
        let at = |q: &[u8]| {
            full.cells
                .iter()
                .find(|c| c.qualifier == q && c.timestamp_micros == *ts)
                .map_or(Value::Null, |c| Value::Bytes(c.value.clone()))
        };
        assert_eq!(out[2], at(b"os_build"));
        assert_eq!(out[3], at(b"connected_cell"));
    }
    assert_eq!(r.columns[1].sql_type, SqlType::Timestamp);
    assert_eq!(r.columns[2].sql_type, SqlType::Bytes);
    assert_eq!(r.explain.access.shape(), ReadShape::Point);
    // WHERE on the unpacked rows.
    let r2 = q(
        &mut db,
        &format!(
            "SELECT _timestamp FROM UNPACK((SELECT _key, stats_summary['os_build'] AS os FROM mobile(with_history => TRUE) WHERE _key = '{key}')) WHERE _timestamp < TIMESTAMP_MICROS({})",
            stamps[0]
        ),
    );
    assert_eq!(r2.rows.len(), stamps.len() - 1);
}

#[test]
fn casts_and_conversions() {
    let mut db = fixture();
    let key = "phone#5c10102#20190504";
    let r = q(
        &mut db,
        &format!(
            "SELECT CAST(stats_summary['os_build'] AS STRING) AS s, SAFE_CONVERT_BYTES_TO_STRING(stats_summary['os_build']) AS t, TO_INT64(stats_summary['count_be']) AS n, CAST(CAST(stats_summary['connected_cell'] AS STRING) AS INT64) AS c, counts['visits'] AS v FROM mobile WHERE _key = '{key}'"
        ),
    );
    let row = db
        .read_row("mobile", key.as_bytes(), None)
        .unwrap()
        .unwrap();
    let os = String::from_utf8(latest(&row, "stats_summary", b"os_build").unwrap()).unwrap();
    let be = latest(&row, "stats_summary", b"count_be").unwrap();
    let cc: i64 = String::from_utf8(latest(&row, "stats_summary", b"connected_cell").unwrap())
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        r.rows[0],
        vec![
            Value::String(os.clone()),
            Value::String(os),
            Value::Int64(i64::from_be_bytes(be.try_into().unwrap())),
            Value::Int64(cc),
            Value::Int64(40),
        ]
    );
    let types: Vec<SqlType> = r.columns.iter().map(|c| c.sql_type.clone()).collect();
    assert_eq!(
        types,
        [
            SqlType::String,
            SqlType::String,
            SqlType::Int64,
            SqlType::Int64,
            SqlType::Int64
        ]
    );
    // A cast that fails is an error; SAFE_CAST gives NULL.
    db.mutate_row(
        "mobile",
        key.as_bytes(),
        &[Mutation::set_cell("stats_summary", b"bad", T0, b"\xff\xfe")],
    )
    .unwrap();
    let e = sql::query(
        &mut db,
        &format!("SELECT CAST(stats_summary['bad'] AS STRING) FROM mobile WHERE _key = '{key}'"),
    )
    .unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange);
    let r = q(
        &mut db,
        &format!(
            "SELECT SAFE_CAST(stats_summary['bad'] AS STRING), SAFE_CONVERT_BYTES_TO_STRING(stats_summary['bad']) FROM mobile WHERE _key = '{key}'"
        ),
    );
    assert_eq!(r.rows[0][0], Value::Null);
    assert_eq!(r.rows[0][1], Value::String("\u{fffd}\u{fffd}".into()));
}

#[test]
fn explain_shows_row_set_filter_tablets_and_cost() {
    let mut db = fixture();
    let out = sql::execute(
        &mut db,
        "EXPLAIN SELECT _key, stats_summary['os_build'] FROM mobile WHERE STARTS_WITH(_key, 'phone#4c410523#') AND stats_summary['connected_cell'] = '1'",
    )
    .unwrap();
    let Outcome::Explain(e) = &out else { panic!() };
    let text = e.to_text();
    for want in [
        "source      table mobile (3 tablets)",
        "access      prefix scan of \"phone#4c410523#\" [single_range]",
        "row set     [\"phone#4c410523#\", \"phone#4c410523$\")",
        "condition",
        "value_range_filter [\"1\", \"1\"]",
        "apply_label_transformer \"row-exists\"",
        "tablets touched 1 of 3",
        "rows scanned 5, returned",
        "pushed down row set: STARTS_WITH(_key, b'phone#4c410523#')",
        "after read  (nothing)",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    let j = out.to_json();
    assert_eq!(j["explain"]["shape"], "single_range");
    assert!(j["explain"]["readRowsRequest"]["filter"]["condition"].is_object());
    // A full scan says why.
    let e = sql::explain(
        &mut db,
        "SELECT _key FROM mobile WHERE stats_summary['os_build'] = 'x'",
    )
    .unwrap();
    assert_eq!(e.access.shape(), ReadShape::FullScan);
    assert_eq!(e.tablets_touched.len(), 3);
    assert!(
        e.notes.iter().any(|n| n.contains("no predicate on _key")),
        "{:?}",
        e.notes
    );
    // Contradictory key predicates read nothing.
    let e = sql::explain(
        &mut db,
        "SELECT _key FROM mobile WHERE _key = 'a' AND _key = 'b'",
    )
    .unwrap();
    assert_eq!(e.access, Access::NoRead);
    assert!(!e.read_ran);
}

#[test]
fn explain_read_rows_classifies_plain_requests() {
    let mut db = fixture();
    let cases = [
        (
            ReadRowsRequest::rows(RowSet::single(b"phone#5c10102#20190501".to_vec())),
            ReadShape::Point,
            1,
        ),
        (
            ReadRowsRequest::rows(RowSet::range(RowRange::prefix("tablet#a0b81f75#"))),
            ReadShape::SingleRange,
            5,
        ),
        (
            ReadRowsRequest {
                rows: RowSet {
                    row_keys: vec![b"phone#4c410523#20190501".to_vec()],
                    row_ranges: vec![RowRange::prefix("tablet#a0b81f74#")],
                },
                ..ReadRowsRequest::default()
            },
            ReadShape::MultiRange,
            6,
        ),
        (
            ReadRowsRequest {
                filter: Some(RowFilter::RowKeyRegex(b".*#20190503".to_vec())),
                ..ReadRowsRequest::default()
            },
            ReadShape::FullScan,
            20,
        ),
    ];
    for (req, shape, seen) in cases {
        let e = sql::explain_read_rows(&mut db, "mobile", &req).unwrap();
        assert_eq!(e.access.shape(), shape, "{req:?}");
        assert_eq!(e.stats.rows_seen, seen, "{req:?}");
        let mut counted = CountRows::default();
        let stats = db.read_rows("mobile", &req, &mut counted).unwrap();
        assert_eq!(e.stats, stats);
        assert!(e.to_text().contains("cost"));
    }
    let e = sql::explain_read_rows(
        &mut db,
        "mobile",
        &ReadRowsRequest {
            filter: Some(RowFilter::RowKeyRegex(b".*#20190503".to_vec())),
            ..ReadRowsRequest::default()
        },
    )
    .unwrap();
    assert!(
        e.notes[0].contains("every row of the table is read"),
        "{:?}",
        e.notes
    );
}

#[test]
fn results_print_as_a_console_table_and_json() {
    let mut db = fixture();
    let out = sql::execute(
        &mut db,
        "SELECT _key, counts['visits'] AS visits FROM mobile WHERE _key = 'phone#4c410523#20190501'",
    )
    .unwrap();
    let text = out.to_text();
    assert_eq!(
        text,
        "+-------------------------+--------+\n\
         | _key                    | visits |\n\
         | BYTES                   | INT64  |\n\
         +-------------------------+--------+\n\
         | phone#4c410523#20190501 | 10     |\n\
         +-------------------------+--------+\n\
         1 row (point read of \"phone#4c410523#20190501\"; scanned 1 row in 1 of 3 tablets)\n"
    );
    let j = out.to_json();
    assert_eq!(j["columns"][1]["type"], "INT64");
    assert_eq!(j["rows"][0][1], "10");
    assert_eq!(
        j["rows"][0][0],
        encode_base64_for_test(b"phone#4c410523#20190501")
    );
}

fn encode_base64_for_test(b: &[u8]) -> String {
    tabletop_store::base64_text::encode(b)
}

#[test]
fn plan_read_gives_the_request_without_running_it() {
    let db = fixture();
    let (table, req) = sql::plan_read(
        &db,
        "SELECT _key FROM mobile WHERE STARTS_WITH(_key, 'phone#')",
    )
    .unwrap();
    assert_eq!(table, "mobile");
    assert_eq!(req.rows, RowSet::range(RowRange::prefix("phone#")));
}

#[cfg(not(target_arch = "wasm32"))]
mod property {
    use proptest::prelude::*;

    use super::*;

    /// A WHERE clause and its meaning, to check against ReadRows.
    #[derive(Clone, Debug)]
    enum Pred {
        Key(&'static str, &'static str),
        StartsWith(&'static str),
        Connected(&'static str, &'static str),
        HasPlan,
        OsLike(&'static str),
        And(Box<Pred>, Box<Pred>),
        Or(Box<Pred>, Box<Pred>),
        Not(Box<Pred>),
    }

    const KEYS: &[&str] = &[
        "phone#4c410523#20190502",
        "phone#5c10102",
        "phone#5c10102#20190505",
        "tablet#",
        "tablet#a0b81f75#20190501",
        "a",
        "z",
    ];
    const PREFIXES: &[&str] = &["phone#", "phone#4c410523#", "tablet#a0b81f7", "x", ""];
    const OPS: &[&str] = &["=", "!=", "<", "<=", ">", ">="];

    fn leaf() -> impl Strategy<Value = Pred> {
        prop_oneof![
            (
                proptest::sample::select(OPS),
                proptest::sample::select(KEYS)
            )
                .prop_map(|(o, k)| Pred::Key(o, k)),
            proptest::sample::select(PREFIXES).prop_map(Pred::StartsWith),
            (
                proptest::sample::select(OPS),
                proptest::sample::select(&["0", "1", ""][..])
            )
                .prop_map(|(o, v)| Pred::Connected(o, v)),
            Just(Pred::HasPlan),
            proptest::sample::select(&["PQ2A.19040%", "PQ2A.190401.00%", "%", "Z%"][..])
                .prop_map(Pred::OsLike),
        ]
    }

    fn pred() -> impl Strategy<Value = Pred> {
        leaf().prop_recursive(3, 12, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| Pred::And(Box::new(a), Box::new(b))),
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| Pred::Or(Box::new(a), Box::new(b))),
                inner.prop_map(|a| Pred::Not(Box::new(a))),
            ]
        })
    }

    fn sql_of(p: &Pred) -> String {
        match p {
            Pred::Key(o, k) => format!("_key {o} '{k}'"),
            Pred::StartsWith(pfx) => format!("STARTS_WITH(_key, '{pfx}')"),
            Pred::Connected(o, v) => format!("stats_summary['connected_cell'] {o} '{v}'"),
            Pred::HasPlan => "cell_plan['data_plan_05gb'] IS NOT NULL".into(),
            Pred::OsLike(p) => format!("stats_summary['os_build'] LIKE '{p}'"),
            Pred::And(a, b) => format!("({} AND {})", sql_of(a), sql_of(b)),
            Pred::Or(a, b) => format!("({} OR {})", sql_of(a), sql_of(b)),
            Pred::Not(a) => format!("NOT {}", sql_of(a)),
        }
    }

    fn cmp(o: &str, a: &[u8], b: &[u8]) -> bool {
        match o {
            "=" => a == b,
            "!=" => a != b,
            "<" => a < b,
            "<=" => a <= b,
            ">" => a > b,
            _ => a >= b,
        }
    }

    /// GoogleSQL's three-valued meaning, on the cells ReadRows returns.
    fn eval(p: &Pred, row: &OwnedRow) -> Option<bool> {
        match p {
            Pred::Key(o, k) => Some(cmp(o, &row.key, k.as_bytes())),
            Pred::StartsWith(pfx) => Some(row.key.starts_with(pfx.as_bytes())),
            Pred::Connected(o, v) => {
                latest(row, "stats_summary", b"connected_cell").map(|c| cmp(o, &c, v.as_bytes()))
            }
            Pred::HasPlan => Some(latest(row, "cell_plan", b"data_plan_05gb").is_some()),
            Pred::OsLike(p) => latest(row, "stats_summary", b"os_build").map(|v| {
                let lit = p.trim_end_matches('%').as_bytes();
                if p.ends_with('%') {
                    v.starts_with(lit)
                } else {
                    v == lit
                }
            }),
            Pred::And(a, b) => match (eval(a, row), eval(b, row)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Pred::Or(a, b) => match (eval(a, row), eval(b, row)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            Pred::Not(a) => eval(a, row).map(|x| !x),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn where_clauses_select_what_read_rows_says(p in pred(), limit in proptest::option::of(1u64..8)) {
            let mut db = fixture();
            let everything = all(&mut db);
            let text = format!(
                "SELECT _key FROM mobile WHERE {}{}",
                sql_of(&p),
                limit.map(|l| format!(" LIMIT {l}")).unwrap_or_default()
            );
            let r = sql::query(&mut db, &text).unwrap();
            let expect: Vec<Vec<u8>> = everything
                .iter()
                .filter(|row| eval(&p, row) == Some(true))
                .take(limit.map_or(usize::MAX, |l| l as usize))
                .map(|row| row.key.clone())
                .collect();
            prop_assert_eq!(keys_of(&r, 0), expect, "{}", text);
            // The request EXPLAIN shows is what ran.
            let mut counted = CountRows::default();
            let stats = db.read_rows("mobile", &r.explain.request, &mut counted).unwrap();
            // (With a LIMIT evaluated after the read, the read stops early.)
            if r.explain.read_ran && (limit.is_none() || r.explain.request.rows_limit > 0) {
                prop_assert_eq!(stats.rows_seen, r.explain.stats.rows_seen);
            }
        }
    }
}

#[test]
fn prepare_types_the_columns_without_reading() {
    let mut db = fixture();
    let text =
        "SELECT _key, stats_summary['os_build'] AS os, counts, LENGTH(_key) AS n FROM mobile";
    // `prepare` borrows the instance immutably: it cannot read rows.
    let columns = sql::prepare(&db, text).unwrap();
    let shape: Vec<_> = columns
        .iter()
        .map(|c| (c.name.as_str(), c.sql_type.to_string()))
        .collect();
    assert_eq!(
        shape,
        vec![
            ("_key", "BYTES".to_string()),
            ("os", "BYTES".to_string()),
            ("counts", "MAP<BYTES, INT64>".to_string()),
            ("n", "INT64".to_string()),
        ]
    );
    assert_eq!(sql::query(&mut db, text).unwrap().columns, columns);
    let e = sql::prepare(&db, "SHOW MATERIALIZED VIEWS").unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(sql::prepare(&db, "SELECT nope FROM mobile").is_err());
}
