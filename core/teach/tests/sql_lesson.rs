//! The SQL lesson (`static/lessons/25_sql_secondary_index.toml`): it
//! parses, fails on its starting state, and passes after its solution
//! (`tests/lesson_solutions/sql-secondary-index.toml`), both through the
//! JSON and cbt consoles and through the SQL console path a host takes
//! (`sql::execute_traced` + `Session::set_last_read`).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde::Deserialize;
use tabletop_sql::sql;
use tabletop_store::Traces;
use tabletop_teach::advisor::ReadShape;
use tabletop_teach::lesson::{Catalog, RECORD_OPTIONS, ReadRecord, Session};

const LESSON: &str = include_str!("../../../static/lessons/25_sql_secondary_index.toml");
const SOLUTION: &str = include_str!("../../tests/lesson_solutions/sql-secondary-index.toml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Solution {
    step: Vec<Step>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    cbt: Option<String>,
    json: Option<String>,
}

fn start() -> Session {
    let mut cat = Catalog::new();
    cat.add_lesson_toml(LESSON).expect("the lesson parses");
    cat.start("sql-secondary-index").expect("the lesson starts")
}

#[test]
fn the_lesson_fails_first_and_passes_after_its_solution() {
    let mut s = start();
    assert!(!s.check().passed);
    let solution: Solution = toml::from_str(SOLUTION).unwrap();
    for step in &solution.step {
        if let Some(line) = &step.json {
            let out = s.run_json(line);
            assert!(!out.contains("\"error\""), "{line}: {out}");
        }
        if let Some(line) = &step.cbt {
            let out = s.run_cbt(line);
            assert!(out.status.is_ok(), "{line}: {:?}", out.status);
        }
    }
    let verdict = s.check();
    assert!(verdict.passed, "{verdict:#?}");
}

#[test]
fn the_sql_console_path_passes_too_and_the_source_query_is_a_full_scan() {
    let mut s = start();
    let db = s.instance_mut();
    // The question the key design cannot answer: a full scan.
    let e = sql::explain(
        db,
        "SELECT _key, o['total'] FROM orders WHERE o['customer'] = 'ana@example.com'",
    )
    .unwrap();
    assert_eq!(e.access.shape(), ReadShape::FullScan);
    assert_eq!(e.stats.rows_seen, 1000);
    assert_eq!(e.rows_output, 200);
    sql::execute(
        db,
        "CREATE MATERIALIZED VIEW orders_by_customer AS SELECT SAFE_CONVERT_BYTES_TO_STRING(o['customer']) AS customer, _key AS order_id, o['total'] AS total FROM orders ORDER BY customer, order_id",
    )
    .unwrap();
    let q = "SELECT order_id, total FROM orders_by_customer WHERE customer = 'ana@example.com'";
    let mut traces = Traces::new(RECORD_OPTIONS);
    let r = match sql::execute_traced(db, q, &mut traces).unwrap() {
        sql::Outcome::Rows(r) => r,
        other => panic!("not rows: {other:?}"),
    };
    assert_eq!(r.rows.len(), 200);
    assert_eq!(r.explain.access.shape(), ReadShape::SingleRange);
    assert_eq!(r.explain.stats.rows_seen, 200);
    // A host records a console query from its trace as the lesson's last
    // read.
    let read = ReadRecord::from_trace(q, traces.last_read().unwrap());
    assert_eq!((read.rows_scanned, read.rows_returned), (200, 200));
    assert_eq!(read.keys_returned.len(), 200);
    assert!(read.keys_complete);
    s.set_last_read(read);
    let verdict = s.check();
    assert!(verdict.passed, "{verdict:#?}");
}
