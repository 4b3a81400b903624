//! Secondary indexes of DynamoDB and Oracle NoSQL designs become
//! continuous materialized views: the `CREATE MATERIALIZED VIEW` statement
//! each translation offers runs through the core's SQL against the
//! translated tables, and the view answers the index's lookup with a
//! prefix scan. Where no view can serve the index, the translation says
//! why, and the hand-maintained index table is always the alternative.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde_json::{Value as Json, json};
use tabletop_sql::Instance;
use tabletop_sql::sql::{self, Access, Outcome, Value};
use tabletop_sql::views;
use tabletop_translate::translate::{self, IndexPlan, KeyEncoding, Options, Translation};
use tabletop_wire::cbt;

const CATALOG: &str = include_str!("../../tests/translate_fixtures/product_catalog.json");
const INVOICES: &str = include_str!("../../tests/translate_fixtures/invoices_adjacency.json");
const SESSIONS: &str = include_str!("../../tests/translate_fixtures/user_sessions.json");
const SHOP_DDL: &str = include_str!("../../tests/translate_fixtures/oracle_shop.ddl");
const SHOP_ROWS: &str = include_str!("../../tests/translate_fixtures/oracle_shop_rows.json");

/// 2023-09-11T00:00:00Z.
const NOW: i64 = 1_694_390_400_000_000;

fn options() -> Options {
    Options {
        now_micros: NOW,
        ..Options::default()
    }
}

fn dynamo(model: &str) -> Translation {
    translate::from_dynamodb(model, &options()).unwrap_or_else(|e| panic!("{e}"))
}

fn oracle(ddl: &str, rows: &str) -> Translation {
    translate::from_oracle_ddl(ddl, rows, &options()).unwrap_or_else(|e| panic!("{e}"))
}

fn index<'a>(t: &'a Translation, name: &str) -> &'a IndexPlan {
    t.tables
        .iter()
        .flat_map(|t| t.indexes.iter())
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no index {name}"))
}

/// The translated tables, with every offered view created by running its
/// statement through the SQL engine.
fn with_views(t: &Translation) -> Instance {
    let mut db = t.to_instance(Default::default(), NOW).unwrap();
    for ix in t.tables.iter().flat_map(|t| t.indexes.iter()) {
        if let Some(v) = &ix.view {
            match sql::execute(&mut db, &v.sql) {
                Ok(Outcome::ViewCreated(st)) => assert_eq!(st.name, v.name),
                other => panic!("{}: {other:?}\n{}", ix.name, v.sql),
            }
        }
    }
    db
}

/// Runs a query; its rows as text, and how it read.
fn rows(db: &mut Instance, q: &str) -> (Vec<Vec<String>>, Access) {
    let r = sql::query(db, q).unwrap_or_else(|e| panic!("{q}: {e}"));
    let text = r
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                    Value::Int64(n) => n.to_string(),
                    Value::Null => "NULL".into(),
                    other => format!("{other:?}"),
                })
                .collect()
        })
        .collect();
    (text, r.explain.access)
}

fn prefix_scan(a: &Access) -> bool {
    matches!(a, Access::PrefixScan { .. })
}

#[test]
fn a_gsi_becomes_a_view_that_finds_a_users_sessions() {
    let t = dynamo(SESSIONS);
    let ix = index(&t, "ByUser");
    let view = ix.view.as_ref().expect("a view is the first choice");
    assert_eq!(view.name, "UserSessions_ByUser");
    assert!(
        view.sql
            .starts_with("CREATE MATERIALIZED VIEW UserSessions_ByUser AS")
    );
    assert!(
        ix.first_choice.contains("continuous materialized view")
            && ix.first_choice.contains("asynchronous secondary index"),
        "{}",
        ix.first_choice
    );
    assert!(
        ix.alternative
            .contains("UserId#CreatedAt#<UserSessions row key>")
            && ix.alternative.contains("two writes")
            && ix.alternative.contains("atomic"),
        "{}",
        ix.alternative
    );
    // CreatedAt is the cells' timestamp, and stays a column because the
    // index sorts by it.
    assert!(
        t.tables[0]
            .notes
            .iter()
            .any(|n| n.topic == "timestamps" && n.text.contains("CreatedAt")),
        "{:?}",
        t.tables[0].notes
    );
    let mut db = with_views(&t);
    let (found, access) = rows(
        &mut db,
        "SELECT UserSessions_key, CreatedAt, Active FROM UserSessions_ByUser WHERE UserId = 'u-7'",
    );
    assert_eq!(found, [["s-1001", "2023-09-10T12:00:00Z", "true"]]);
    assert!(prefix_scan(&access), "{access:?}");

    // The view follows later writes to the table.
    cbt::run_line(
        &mut db,
        "set UserSessions s-2000 item:UserId=u-7 item:CreatedAt=2023-09-10T18:00:00Z item:Active=false",
    )
    .unwrap();
    views::catch_up(&mut db, None).unwrap();
    let (found, _) = rows(
        &mut db,
        "SELECT UserSessions_key FROM UserSessions_ByUser WHERE UserId = 'u-7'",
    );
    assert_eq!(found, [["s-1001"], ["s-2000"]]);
}

#[test]
fn a_projection_of_all_carries_every_single_value_attribute() {
    // The sessions' index projecting ALL: sets are families of their own
    // and stay out (said once), the counter comes along as a number.
    let mut model: Json = serde_json::from_str(SESSIONS).unwrap();
    model["DataModel"][0]["GlobalSecondaryIndexes"][0]["Projection"] =
        json!({"ProjectionType": "ALL"});
    let t = dynamo(&model.to_string());
    let ix = index(&t, "ByUser");
    assert_eq!(
        ix.first_choice.matches("Left out of the view").count(),
        1,
        "{}",
        ix.first_choice
    );
    assert!(
        ix.first_choice.contains("Tags is a set"),
        "{}",
        ix.first_choice
    );
    let mut db = with_views(&t);
    let (found, _) = rows(
        &mut db,
        "SELECT PageViews, Prefs FROM UserSessions_ByUser WHERE UserId = 'u-7'",
    );
    // (serde_json sorted the map's keys when the test edited the model.)
    assert_eq!(found, [["12", r#"{"beta":false,"theme":"dark"}"#]]);
}

#[test]
fn key_fields_numbers_and_all_attributes_come_through() {
    // The catalog keyed Category#Product, with three more indexes: the
    // key inverted (Product holds a `#`), by price (whole numbers), and a
    // local index by price within a category.
    let mut model: Json = serde_json::from_str(CATALOG).unwrap();
    let table = &mut model["DataModel"][0];
    table["GlobalSecondaryIndexes"] = json!([
        {
            "IndexName": "ByProduct",
            "KeyAttributes": {
                "PartitionKey": {"AttributeName": "Product", "AttributeType": "S"},
                "SortKey": {"AttributeName": "Category", "AttributeType": "S"}
            },
            "Projection": {"ProjectionType": "KEYS_ONLY"}
        },
        {
            "IndexName": "ByPrice",
            "KeyAttributes": {"PartitionKey": {"AttributeName": "Price", "AttributeType": "N"}},
            "Projection": {"ProjectionType": "ALL"}
        }
    ]);
    table["LocalSecondaryIndexes"] = json!([{
        "IndexName": "CheapestFirst",
        "KeyAttributes": {
            "PartitionKey": {"AttributeName": "Category", "AttributeType": "S"},
            "SortKey": {"AttributeName": "Price", "AttributeType": "N"}
        },
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["Description"]}
    }]);
    let t = dynamo(&model.to_string());
    let by_product = index(&t, "ByProduct");
    let sql = &by_product.view.as_ref().unwrap().sql;
    assert!(sql.contains("SUBSTR(_key"), "{sql}");
    assert!(
        by_product.first_choice.contains("taken out of the row key"),
        "{}",
        by_product.first_choice
    );
    assert!(
        index(&t, "CheapestFirst")
            .first_choice
            .contains("no strongly consistent reads")
    );
    let mut db = with_views(&t);

    // The whole sort key, `#` and all, comes out of the row key.
    let (found, access) = rows(
        &mut db,
        "SELECT Category FROM ProductCatalog_ByProduct WHERE Product = 'fedora#brandB'",
    );
    assert_eq!(found, [["Hats"]]);
    assert!(prefix_scan(&access), "{access:?}");

    // Prices are numbers in the view's key: 9 would sort before 10.
    let (found, _) = rows(
        &mut db,
        "SELECT Price, Description FROM ProductCatalog_ByPrice",
    );
    let prices: Vec<&str> = found.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(prices, ["25", "28", "30", "40", "50"]);
    assert_eq!(found[0][1], "An old-fashioned cap for everyday wear.");
    let (found, access) = rows(
        &mut db,
        "SELECT ProductCatalog_key FROM ProductCatalog_ByPrice WHERE Price = 40",
    );
    assert_eq!(found, [["Shoes#sneakers#brandA"]]);
    assert!(prefix_scan(&access), "{access:?}");

    // Within a category, by price.
    let (found, _) = rows(
        &mut db,
        "SELECT Price, Description FROM ProductCatalog_CheapestFirst WHERE Category = 'Hats'",
    );
    let prices: Vec<&str> = found.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(prices, ["25", "28", "30"]);
}

#[test]
fn an_oracle_index_becomes_a_view_keyed_by_the_field() {
    let t = oracle(SHOP_DDL, SHOP_ROWS);
    let ix = index(&t, "idx_email");
    assert!(ix.view.is_some(), "{}", ix.first_choice);
    assert!(
        ix.first_choice.contains("unlike an Oracle NoSQL index"),
        "{}",
        ix.first_choice
    );
    let mut db = with_views(&t);
    let (found, access) = rows(
        &mut db,
        "SELECT users_key FROM users_idx_email WHERE email = 'bo@example.com'",
    );
    assert_eq!(found, [["0000000002"]]);
    assert!(prefix_scan(&access), "{access:?}");
    let (all, _) = rows(&mut db, "SELECT email FROM users_idx_email");
    assert_eq!(all.len(), 3);
}

#[test]
fn oracle_indexes_on_key_fields_numbers_and_documents() {
    let ddl = format!(
        "{SHOP_DDL}\nCREATE INDEX by_order ON orders (order_id);\n\
         CREATE INDEX by_total ON orders (total);\n\
         CREATE INDEX by_city ON orders (shipping.city);\n\
         CREATE INDEX by_status_placed ON orders (status, placed);"
    );
    let t = oracle(&ddl, SHOP_ROWS);
    // A path inside a JSON document: only the index table.
    let city = index(&t, "by_city");
    assert!(city.view.is_none());
    assert!(
        city.first_choice
            .starts_with("No continuous materialized view fits here")
            && city.first_choice.contains("shipping.city"),
        "{}",
        city.first_choice
    );
    assert!(city.alternative.contains("shipping.city#<primary key>"));
    // A NUMBER orders as text in the view: said so.
    assert!(
        index(&t, "by_total").first_choice.contains("as text"),
        "{}",
        index(&t, "by_total").first_choice
    );
    let mut db = with_views(&t);
    // The last key field, out of the row key.
    let (found, _) = rows(
        &mut db,
        "SELECT order_id, orders_key FROM orders_by_order ORDER BY order_id",
    );
    let ids: Vec<&str> = found.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(ids, ["0000001000", "0000001001", "0000001002"]);
    let (found, access) = rows(
        &mut db,
        "SELECT placed FROM orders_by_status_placed WHERE status = 'PAID'",
    );
    assert_eq!(found, [["2023-09-10T15:21:48.123Z"]]);
    assert!(prefix_scan(&access), "{access:?}");
}

#[test]
fn no_view_where_the_layout_or_encoding_cannot_have_one() {
    // Wide rows: a row is a partition, not an item.
    let t = dynamo(INVOICES);
    let ix = index(&t, "PaymentsToInvoices");
    assert!(ix.view.is_none());
    assert!(
        ix.first_choice.contains("whole partition") && ix.first_choice.contains("composite"),
        "{}",
        ix.first_choice
    );
    assert!(ix.alternative.contains("keyed SK#PK"), "{}", ix.alternative);
    // The same model with one row per item gets its view, and it runs.
    let composite = translate::from_dynamodb(
        INVOICES,
        &Options {
            dynamo_layout: translate::DynamoLayout::Composite,
            ..options()
        },
    )
    .unwrap();
    let ix = index(&composite, "PaymentsToInvoices");
    assert!(ix.view.is_some(), "{}", ix.first_choice);
    let mut db = with_views(&composite);
    let (found, _) = rows(
        &mut db,
        "SELECT PK FROM Invoices_PaymentsToInvoices WHERE SK = 'Payment-0680'",
    );
    assert_eq!(
        found,
        [["Invoice-0123"]],
        "{}",
        ix.view.as_ref().unwrap().sql
    );

    // Binary keys have no separator to split fields at.
    let binary = translate::from_oracle_ddl(
        &format!("{SHOP_DDL}\nCREATE INDEX by_order ON orders (order_id);"),
        "",
        &Options {
            key_encoding: KeyEncoding::Binary,
            ..options()
        },
    )
    .unwrap();
    let ix = index(&binary, "by_order");
    assert!(ix.view.is_none());
    assert!(
        ix.first_choice.contains("binary key encoding"),
        "{}",
        ix.first_choice
    );
    // An index on a plain field still gets its view with binary keys.
    assert!(index(&binary, "idx_email").view.is_some());
    with_views(&binary);
}

#[test]
fn the_reports_carry_the_view() {
    let t = dynamo(SESSIONS);
    let text = t.to_text();
    assert!(
        text.contains("First choice: A continuous materialized view"),
        "{text}"
    );
    assert!(
        text.contains("        CREATE MATERIALIZED VIEW UserSessions_ByUser AS"),
        "{text}"
    );
    assert!(text.contains("Alternative: An index table"), "{text}");
    assert!(!text.contains("no secondary indexes"), "{text}");
    let json: Json = serde_json::from_str(&t.to_json()).unwrap();
    let ix = &json["tables"][0]["indexes"][0];
    assert_eq!(ix["materialized_view"]["name"], "UserSessions_ByUser");
    assert!(
        ix["materialized_view"]["sql"]
            .as_str()
            .unwrap()
            .starts_with("CREATE MATERIALIZED VIEW")
    );
    assert!(ix["first_choice"].is_string() && ix["alternative"].is_string());
    // Without a view, the JSON says null.
    let json: Json = serde_json::from_str(&dynamo(INVOICES).to_json()).unwrap();
    assert!(json["tables"][0]["indexes"][0]["materialized_view"].is_null());
}
