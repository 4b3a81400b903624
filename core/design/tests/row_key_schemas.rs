//! Row-key schemas derived from the row-key designer's templates: every
//! key a template renders conforms, and SQL can read a table of them.
//! (Moved here from tabletop-sql's tests when templates moved above SQL.)

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::keydesign::{KeyInput, KeyRenderer, KeyTemplate};
use tabletop_sql::Instance;
use tabletop_sql::{rowkey_schema, sql};
use tabletop_store::*;

fn mobile(keys: &[&str]) -> Instance {
    let mut db = Instance::default();
    db.set_now(1_600_000_000_000_000);
    let mut schema = TableSchema::default();
    schema
        .families
        .insert("stats".into(), ColumnFamily::with_gc(None));
    db.create_table(CreateTableRequest {
        table_id: "mobile".into(),
        schema,
        initial_splits: vec![b"phone#5".to_vec(), b"tablet".to_vec()],
    })
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

#[test]
fn the_row_key_designer_templates_give_conforming_schemas() {
    for text in [
        r##"delimiter = "#"
            segments = [
              { name = "device_type", kind = "enum", values = ["phone", "tablet"] },
              { name = "device_id", kind = "hex", width = 8 },
              { name = "day", kind = "date" },
            ]"##,
        r##"delimiter = "#"
            segments = [
              { name = "user", kind = "int", width = 6 },
              { name = "ts", kind = "timestamp", unit = "ms", reversed = true },
            ]"##,
        r##"delimiter = ""
            segments = [
              { name = "salt", kind = "salt", buckets = 16 },
              { name = "ts", kind = "timestamp", unit = "s" },
            ]"##,
        r##"delimiter = "/"
            segments = [
              { name = "tenant", kind = "tenant", tenants = 5 },
              { name = "site", kind = "domain", sites = 10, reversed = true },
            ]"##,
    ] {
        let t: KeyTemplate = toml::from_str(text).unwrap();
        let s = t.row_key_schema();
        s.validate().unwrap();
        let mut r = KeyRenderer::new(&t).unwrap();
        let mut keys = Vec::new();
        for i in 0..40u64 {
            let mut out = Vec::new();
            r.render(
                &KeyInput {
                    entity: i * 31,
                    time_micros: 1_588_291_200_000_000 + i as i64 * 7_000_000,
                    op_seq: i,
                    op_random: i * 0x9e37_79b9,
                },
                &mut out,
            );
            keys.push(out);
        }
        let c = s.check_keys(keys.iter().map(Vec::as_slice), 3);
        assert_eq!(c.non_conforming, 0, "{}: {:?}", s, c.examples);
        // And SQL can use it on a table of those keys.
        let mut db = mobile(&[]);
        for k in &keys {
            db.mutate_row("mobile", k, &[Mutation::set_cell("stats", b"os", -1, b"x")])
                .unwrap();
        }
        rowkey_schema::set_row_key_schema(&mut db, "mobile", s.clone()).unwrap();
        let first = &s.fields[0].name;
        let r = sql::query(&mut db, &format!("SELECT {first} FROM mobile")).unwrap();
        assert_eq!(r.rows.len(), keys.len());
    }
}
