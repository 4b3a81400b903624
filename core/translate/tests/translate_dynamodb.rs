#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// DynamoDB designs (NoSQL Workbench model exports) in: the three examples
// of the migration guide (the product catalog, the video with its comments
// and counters, the invoice with its payments), spelled out as the Bigtable
// layout they must become; every attribute type, TTL and GSIs; and errors
// that point at the line and column of the model.

use tabletop_sql::Instance;
use tabletop_store::CollectRows;
use tabletop_store::ReadRowsRequest;
use tabletop_store::ValueType;
use tabletop_store::escape_bytes;
use tabletop_teach::advisor::RuleId;
use tabletop_translate::translate::keycodec::iso_timestamp;
use tabletop_translate::translate::{self, DynamoLayout, NoteLevel, Options, Pattern, Translation};
use tabletop_wire::cbt;

const CATALOG: &str = include_str!("../../tests/translate_fixtures/product_catalog.json");
const VIDEOS: &str = include_str!("../../tests/translate_fixtures/video_single_table.json");
const INVOICES: &str = include_str!("../../tests/translate_fixtures/invoices_adjacency.json");
const SESSIONS: &str = include_str!("../../tests/translate_fixtures/user_sessions.json");

/// 2023-09-11T00:00:00Z, the translation time of every test.
const NOW: i64 = 1_694_390_400_000_000;

fn options() -> Options {
    Options {
        now_micros: NOW,
        ..Options::default()
    }
}

fn translate(model: &str) -> Translation {
    translate::from_dynamodb(model, &options()).unwrap_or_else(|e| panic!("{e}"))
}

fn time(micros: i64) -> String {
    iso_timestamp(
        micros.div_euclid(1_000_000),
        u32::try_from(micros.rem_euclid(1_000_000) * 1000).unwrap(),
        3,
    )
}

/// The Bigtable layout of every table of an instance: families with their
/// GC rule and type, then every row and cell (aggregates as numbers).
fn layout(db: &mut Instance) -> String {
    let mut out = String::new();
    for info in db.list_tables() {
        out.push_str(&format!("table {}\n", info.id));
        for (name, f) in &info.schema.families {
            let ty = match f.value_type {
                ValueType::Bytes => String::new(),
                ValueType::Aggregate(a) => format!("; {}", a.cbt_name()),
            };
            out.push_str(&format!(
                "  family {name} [{}{ty}]\n",
                translate::gc_policy_text(f.gc_rule.as_ref())
            ));
        }
        let mut rows = CollectRows::default();
        db.read_rows(&info.id, &ReadRowsRequest::default(), &mut rows)
            .unwrap();
        for r in rows.rows {
            out.push_str(&format!("  {}\n", escape_bytes(&r.key)));
            for c in r.cells {
                let aggregate = info
                    .schema
                    .families
                    .get(&c.family)
                    .is_some_and(|f| f.value_type != ValueType::Bytes);
                let value = if aggregate {
                    i64::from_be_bytes(c.value.as_slice().try_into().unwrap()).to_string()
                } else {
                    escape_bytes(&c.value)
                };
                out.push_str(&format!(
                    "    {}:{} @{} = {value}\n",
                    c.family,
                    escape_bytes(&c.qualifier),
                    time(c.timestamp_micros)
                ));
            }
        }
    }
    out
}

fn applied(t: &Translation) -> Instance {
    let mut db = Instance::default();
    db.set_now(NOW);
    t.apply(&mut db).unwrap();
    db
}

#[test]
fn the_product_catalog_becomes_one_row_per_product() {
    let t = translate(CATALOG);
    assert_eq!(t.tables.len(), 1);
    let table = &t.tables[0];
    assert_eq!(table.pattern, Pattern::DynamoComposite);
    assert_eq!(
        table
            .row_key
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>(),
        ["Category", "Product"]
    );
    let mut db = applied(&t);
    // The composite primary key becomes a composite row key; one family
    // (named after the model's only facet, SKU) holds the attributes.
    assert_eq!(
        layout(&mut db),
        "\
table ProductCatalog
  family sku [maxversions=1]
  Hats#fedora#brandA
    sku:Description @2023-09-11T00:00:00.000Z = Felted from fine wool, keeps its shape in the rain.
    sku:Price @2023-09-11T00:00:00.000Z = 30
    sku:Thumbnail @2023-09-11T00:00:00.000Z = https://storage.example.com/img/fedora-a.png
  Hats#fedora#brandB
    sku:Description @2023-09-11T00:00:00.000Z = Waxed canvas that sheds water and packs flat.
    sku:Price @2023-09-11T00:00:00.000Z = 28
    sku:Thumbnail @2023-09-11T00:00:00.000Z = https://storage.example.com/img/fedora-b.png
  Hats#newsboy#brandB
    sku:Description @2023-09-11T00:00:00.000Z = An old-fashioned cap for everyday wear.
    sku:Price @2023-09-11T00:00:00.000Z = 25
    sku:Thumbnail @2023-09-11T00:00:00.000Z = https://storage.example.com/img/newsboy-b.png
  Shoes#sneakers#brandA
    sku:Description @2023-09-11T00:00:00.000Z = Light and cushioned from morning to night.
    sku:Price @2023-09-11T00:00:00.000Z = 40
    sku:Thumbnail @2023-09-11T00:00:00.000Z = https://storage.example.com/img/sneakers-a.png
  Shoes#sneakers#brandB
    sku:Description @2023-09-11T00:00:00.000Z = A timeless cut made with current materials.
    sku:Price @2023-09-11T00:00:00.000Z = 50
    sku:Thumbnail @2023-09-11T00:00:00.000Z = https://storage.example.com/img/sneakers-b.png
"
    );
    // A DynamoDB query of one partition is a prefix scan.
    let hats = cbt::run_line(&mut db, "count ProductCatalog prefix=Hats#").unwrap();
    assert_eq!(hats, "3\n");
}

#[test]
fn the_video_partition_becomes_one_wide_row() {
    let t = translate(VIDEOS);
    let table = &t.tables[0];
    assert_eq!(table.pattern, Pattern::DynamoSingleTable);
    let mut db = applied(&t);
    // One row per video: the video's attributes (its upload date is the
    // cell time), the comments as timestamped versions of one column
    // (newest first, no reverse timestamp needed), the counters as
    // aggregate cells.
    assert_eq!(
        layout(&mut db),
        r#"table Videos
  family counters [never; intsum]
  family video [maxversions=1]
  family videocomment [never]
  0123
    counters:VideoStatsLikes @1970-01-01T00:00:00.000Z = 3
    counters:VideoStatsViews @1970-01-01T00:00:00.000Z = 156
    video:Formats @2023-09-10T15:21:48.000Z = {"480":"https://storage.example.com/v/0123-480.mp4","720":"https://storage.example.com/v/0123-720.mp4","1080p":"https://storage.example.com/v/0123-1080.mp4"}
    videocomment:Content @2023-09-10T19:01:15.000Z = Love it, the effects are great.
    videocomment:Content @2023-09-10T16:30:42.000Z = The sound drops out at 1:05.
  0124
    counters:ViewCount @1970-01-01T00:00:00.000Z = 45
    video:Formats @2023-09-10T17:03:21.000Z = {"480":"https://storage.example.com/v/0124-480.mp4","720":"https://storage.example.com/v/0124-720.mp4"}
    videocomment:Content @2023-10-12T07:08:51.000Z = The style reminds me of some director, I just can't say which.
    videocomment:Content @2023-09-11T08:15:00.000Z = Sent this to all my friends.
"#
    );
    // The guide's read: the video and its newest comment in one request.
    let newest = cbt::run_line(&mut db, "lookup Videos 0123 cells-per-column=1").unwrap();
    assert!(newest.contains("Love it"), "{newest}");
    assert!(!newest.contains("sound drops"), "{newest}");
    // Counting a view is one AddToCell on the same cell.
    cbt::run_line(
        &mut db,
        "addtocell Videos 0123 counters:VideoStatsViews=1@0",
    )
    .unwrap();
    assert!(layout(&mut db).contains("counters:VideoStatsViews @1970-01-01T00:00:00.000Z = 157"));
    // Deleting the video deletes its comments and counters with it.
    cbt::run_line(&mut db, "deleterow Videos 0124").unwrap();
    assert_eq!(cbt::run_line(&mut db, "count Videos").unwrap(), "1\n");
    let topics: Vec<&str> = table.notes.iter().map(|n| n.topic).collect();
    for topic in ["layout", "counters", "timestamps", "documents", "gc"] {
        assert!(topics.contains(&topic), "{topic}: {topics:?}");
    }
}

#[test]
fn the_invoice_and_its_payments_become_an_adjacency_row() {
    let t = translate(INVOICES);
    let table = &t.tables[0];
    assert_eq!(table.pattern, Pattern::DynamoAdjacencyList);
    let mut db = applied(&t);
    // Row key: the invoice number (the shared `Invoice-` prefix dropped);
    // the invoice's details at its creation time; one column per payment,
    // named by the payment id.
    assert_eq!(
        layout(&mut db),
        r#"table Invoices
  family invoice [maxversions=1]
  family payment [maxversions=1]
  0123
    invoice:Details @2023-09-10T15:21:48.000Z = {"discount":0.1,"sales_tax_usd":"8","due_date":"2023-10-03"}
    payment:0680 @2023-09-10T15:21:40.000Z = {"amount_usd":120,"bill_to":"John Roe","address":"123 Abc St"}
    payment:0789 @2023-09-10T15:21:31.000Z = {"amount_usd":120,"bill_to":"Jane Poe","address":"Xyz St 13"}
  0124
    invoice:Details @2023-09-09T10:11:28.000Z = {"discount":0.2,"sales_tax_usd":"11","due_date":"2023-10-03"}
    payment:0275 @2023-09-09T10:11:03.000Z = {"amount_usd":70,"bill_to":"Kate Kim","address":"21 Zyx St"}
    payment:0327 @2023-09-09T10:11:10.000Z = {"amount_usd":180,"bill_to":"Bernd Bauer","address":"321 Cba St"}
"#
    );
    // The GSI that inverts the key is reported with how Bigtable serves
    // it.
    let [ix] = table.indexes.as_slice() else {
        panic!("{:?}", table.indexes)
    };
    assert_eq!(ix.name, "PaymentsToInvoices");
    assert_eq!(ix.key, "SK, PK");
    assert_eq!(ix.projection, "KEYS_ONLY");
    // A row here is a whole invoice, so no view can index its payments
    // one by one: the index table keyed SK#PK is the way.
    assert!(ix.view.is_none());
    assert!(
        ix.alternative.contains("index table") && ix.alternative.contains("keyed SK#PK"),
        "{}",
        ix.alternative
    );
    assert!(t.to_text().contains("PaymentsToInvoices on (SK, PK)"));
}

#[test]
fn every_attribute_type_ttl_and_a_gsi() {
    let t = translate(SESSIONS);
    let table = &t.tables[0];
    assert_eq!(table.pattern, Pattern::DynamoSimple);
    let mut db = applied(&t);
    assert_eq!(
        layout(&mut db),
        r#"table UserSessions
  family counters [never; intsum]
  family item [maxage=3d || maxversions=1]
  family scores [maxage=3d || maxversions=1]
  family tags [maxage=3d || maxversions=1]
  family tokens [maxage=3d || maxversions=1]
  s-1001
    counters:PageViews @1970-01-01T00:00:00.000Z = 12
    item:Active @2023-09-10T12:00:00.000Z = true
    item:Avatar @2023-09-10T12:00:00.000Z = \x89PNG\r
    item:Cart @2023-09-10T12:00:00.000Z = ["sku-1",2]
    item:CreatedAt @2023-09-10T12:00:00.000Z = 2023-09-10T12:00:00Z
    item:Nickname @2023-09-10T12:00:00.000Z = 
    item:Prefs @2023-09-10T12:00:00.000Z = {"theme":"dark","beta":false}
    item:UserId @2023-09-10T12:00:00.000Z = u-7
    scores:1.5 @2023-09-10T12:00:00.000Z = \x00
    scores:20 @2023-09-10T12:00:00.000Z = \x00
    tags:beta @2023-09-10T12:00:00.000Z = \x00
    tags:mobile @2023-09-10T12:00:00.000Z = \x00
    tokens:\x00\x01\x02 @2023-09-10T12:00:00.000Z = \x00
    tokens:\xff @2023-09-10T12:00:00.000Z = \x00
  s-1002
    counters:PageViews @1970-01-01T00:00:00.000Z = 3
    item:Active @2023-09-10T00:00:00.000Z = false
    item:CreatedAt @2023-09-10T00:00:00.000Z = 2023-09-10T00:00:00Z
    item:UserId @2023-09-10T00:00:00.000Z = u-9
"#
    );
    // The TTL became a max-age as long as the longest sample lifetime
    // (72 hours), with the warning that GC is lazy; s-0999 had expired.
    let ttl: Vec<_> = table.notes.iter().filter(|n| n.topic == "ttl").collect();
    assert_eq!(ttl[0].level, NoteLevel::Warning);
    assert!(ttl[0].text.contains("max-age of 3d"), "{}", ttl[0].text);
    assert!(ttl[0].text.contains("lazily"), "{}", ttl[0].text);
    assert!(ttl[1].text.contains("1 sample item(s) had already expired"));
    let [ix] = table.indexes.as_slice() else {
        panic!()
    };
    assert_eq!(ix.projection, "INCLUDE Active");
    // CreatedAt, the items' write time, stays a column too: the GSI sorts
    // by it (translate_indexes.rs runs the view it becomes).
    assert!(ix.view.is_some(), "{}", ix.first_choice);
    assert!(
        ix.alternative
            .contains("UserId#CreatedAt#<UserSessions row key>"),
        "{}",
        ix.alternative
    );
}

#[test]
fn the_layout_can_be_forced() {
    let wide = translate::from_dynamodb(
        CATALOG,
        &Options {
            dynamo_layout: DynamoLayout::WideRows,
            ..options()
        },
    )
    .unwrap();
    assert_eq!(wide.tables[0].pattern, Pattern::DynamoSingleTable);
    let keys: Vec<&[u8]> = wide.tables[0]
        .rows
        .iter()
        .map(|r| r.key.as_slice())
        .collect();
    assert_eq!(keys, [&b"Hats"[..], b"Shoes"]);
    let composite = translate::from_dynamodb(
        VIDEOS,
        &Options {
            dynamo_layout: DynamoLayout::Composite,
            ..options()
        },
    )
    .unwrap();
    assert_eq!(composite.tables[0].pattern, Pattern::DynamoComposite);
    assert_eq!(composite.tables[0].rows.len(), 9);
    assert_eq!(composite.tables[0].rows[0].key, b"0123#Video");
}

#[test]
fn numeric_keys_sort_as_numbers_and_binary_keys_are_bytes() {
    let model = r#"{"DataModel": [{
        "TableName": "events",
        "KeyAttributes": {"PartitionKey": {"AttributeName": "device", "AttributeType": "B"},
                          "SortKey": {"AttributeName": "seq", "AttributeType": "N"}},
        "TableData": [
            {"device": {"B": "AQI="}, "seq": {"N": "10"}, "v": {"S": "b"}},
            {"device": {"B": "AQI="}, "seq": {"N": "9"}, "v": {"S": "a"}},
            {"device": {"B": "AQI="}, "seq": {"N": "-3"}, "v": {"S": "c"}}
        ]}]}"#;
    let t = translate(model);
    // A binary partition key that is not last has its bytes up to `$`
    // written as $XX, so the `#` after it always ends it.
    let keys: Vec<String> = t.tables[0]
        .rows
        .iter()
        .map(|r| escape_bytes(&r.key))
        .collect();
    assert_eq!(
        keys,
        [
            "$01$02#-9999999999999999996",
            "$01$02#0000000000000000009",
            "$01$02#0000000000000000010"
        ]
    );
    // The advisor sees a numeric id after an opaque device id: no finding
    // about sequential ids.
    assert!(
        t.tables[0]
            .findings
            .iter()
            .all(|f| f.rule != RuleId::SequentialIdFirst)
    );
}

/// Line and column (1-based, in characters) of the first `marker` in
/// `text`.
fn position_of(text: &str, marker: &str) -> (usize, usize) {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("{marker} not in {text}"));
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[test]
fn bad_models_point_at_the_line_and_column() {
    const KEY: &str =
        r#""KeyAttributes": {"PartitionKey": {"AttributeName": "k", "AttributeType": "S"}}"#;
    // Each model, the text the error must point at, and what it must say.
    let cases: Vec<(String, &str, &str)> = vec![
        ("{\"DataModel\": [\n  {\"TableName\": \"t\",, }\n]}".into(), ", }", "expected a member name"),
        ("[1, 2]".into(), "[1", "a NoSQL Workbench model with \"DataModel\""),
        ("{\"ModelName\": \"x\"}".into(), "{", "neither \"DataModel\""),
        // describe-table output.
        (
            "{\"Table\": {\"TableName\": \"t\",\n \"KeySchema\": [{\"AttributeName\": \"k\", \"KeyType\": \"HASH\"}]}}".into(),
            "[{",
            "\"k\" is not in AttributeDefinitions",
        ),
        (
            "{\"Table\": {\"TableName\": \"t\", \"AttributeDefinitions\": [],\n \"KeySchema\": [{\"AttributeName\": \"k\", \"KeyType\": \"PRIMARY\"}]}}".into(),
            "\"PRIMARY\"",
            "KeyType must be HASH or RANGE",
        ),
        (
            "{\"Table\": {\"TableName\": \"t\", \"AttributeDefinitions\": [],\n \"KeySchema\": [{\"AttributeName\": \"s\", \"KeyType\": \"RANGE\"}]}}".into(),
            "[{\"AttributeName\": \"s\"",
            "no HASH (partition) key",
        ),
        (
            "{\"Table\": {\"TableName\": \"t\",\n \"AttributeDefinitions\": [{\"AttributeName\": \"k\", \"AttributeType\": \"S\"}],\n \"KeySchema\": [{\"AttributeName\": \"k\", \"KeyType\": \"HASH\"}]},\n \"Items\": [{\"k\": {\"S\": \"a\"}, \"n\": {\"N\": \"many\"}}]}".into(),
            "\"many\"",
            "not a number",
        ),
        ("{\"DataModel\": []}".into(), "[]", "no tables"),
        (
            "{\"DataModel\": [{\"TableName\": \"t\",\n \"KeyAttributes\": {\"PartitionKey\": {\"AttributeName\": \"k\", \"AttributeType\": \"X\"}}}]}".into(),
            "\"X\"",
            "must be S, N or B",
        ),
        (format!("{{\"DataModel\": [{{\"TableName\": \"-t\", {KEY}}}]}}"), "\"-t\"", "rename the table"),
        (
            format!("{{\"DataModel\": [{{\"TableName\": \"t\", {KEY},\n\"TableData\": [\n  {{\"v\": {{\"S\": \"no key\"}}}}]}}]}}"),
            "{\"v\"",
            "no partition key k",
        ),
        (
            format!("{{\"DataModel\": [{{\"TableName\": \"t\", {KEY},\n\"TableData\": [{{\"k\": {{\"S\": \"a\"}},\n  \"n\": {{\"N\": \"twelve\"}}}}]}}]}}"),
            "\"twelve\"",
            "not a number",
        ),
        (
            format!("{{\"DataModel\": [{{\"TableName\": \"t\", {KEY},\n\"TableData\": [{{\"k\": {{\"S\": \"a\"}}, \"x\": {{\"SX\": \"?\"}}}}]}}]}}"),
            "\"SX\"",
            "unknown attribute type \"SX\"",
        ),
        (
            format!("{{\"DataModel\": [{{\"TableName\": \"t\", {KEY},\n\"NonKeyAttributes\": [{{\"AttributeName\": \"n\", \"AttributeType\": \"N\"}}],\n\"TableData\": [{{\"k\": {{\"S\": \"a\"}}, \"n\": {{\"S\": \"1\"}}}}]}}]}}"),
            "{\"S\": \"1\"}",
            "declared as N but this item gives S",
        ),
        (
            format!("{{\"DataModel\": [{{\"TableName\": \"t\", {KEY},\n\"TableData\": [{{\"k\": {{\"S\": \"a\"}}, \"s\": {{\"SS\": [\"x\", \"x\"]}}}}]}}]}}"),
            "\"x\"]",
            "must not repeat a member",
        ),
        (
            format!("{{\"DataModel\": [{{\"TableName\": \"t\", {KEY},\n\"TableData\": [{{\"k\": {{\"S\": \"a\"}}, \"b\": {{\"B\": \"not base64!\"}}}}]}}]}}"),
            "\"not base64!\"",
            "base64",
        ),
    ];
    for (model, marker, message) in &cases {
        let e = translate::from_dynamodb(model, &options()).unwrap_err();
        assert_eq!(
            (e.line(), e.column()),
            position_of(model, marker),
            "{model}\n=> {e}"
        );
        assert!(e.message().contains(message), "{model}\n=> {e}");
        assert_eq!(e.input(), translate::Input::Model);
    }
}

#[test]
fn reports_name_every_table_and_json_parses() {
    for model in [CATALOG, VIDEOS, INVOICES, SESSIONS] {
        let t = translate(model);
        let text = t.to_text();
        for table in &t.tables {
            assert!(text.contains(&format!("Table {}", table.id)), "{text}");
        }
        let v: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        assert_eq!(v["source"], "dynamodb");
        assert_eq!(v["tables"].as_array().unwrap().len(), t.tables.len());
    }
}

/// The AWS CLI's view of a NoSQL Workbench model: what
/// `aws dynamodb describe-table` prints for its first table, with
/// `describe-time-to-live`'s answer and a `scan`'s items merged in (as
/// `jq -s add` would merge the three outputs).
fn as_describe_table(model: &str) -> String {
    use serde_json::value::RawValue;
    use serde_json::{Value, json};
    // The items are copied as written: a map's members keep their order.
    #[derive(serde::Deserialize)]
    struct Model<'a> {
        #[serde(rename = "DataModel", borrow)]
        tables: Vec<Table<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Table<'a> {
        #[serde(rename = "TableData", borrow, default)]
        items: Vec<&'a RawValue>,
        #[serde(rename = "TableFacets", borrow, default)]
        facets: Vec<Facet<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Facet<'a> {
        #[serde(rename = "TableData", borrow, default)]
        items: Vec<&'a RawValue>,
    }
    let raw: Model<'_> = serde_json::from_str(model).unwrap();
    let first = &raw.tables[0];
    let items: Vec<&str> = first
        .items
        .iter()
        .chain(first.facets.iter().flat_map(|f| f.items.iter()))
        .map(|i| i.get())
        .collect();
    let m: Value = serde_json::from_str(model).unwrap();
    let t = &m["DataModel"][0];
    let mut definitions: Vec<Value> = Vec::new();
    let key_schema = |ka: &Value, definitions: &mut Vec<Value>| {
        let mut schema = Vec::new();
        for (role, key_type) in [("PartitionKey", "HASH"), ("SortKey", "RANGE")] {
            if let Some(k) = ka.get(role) {
                if !definitions.contains(k) {
                    definitions.push(k.clone());
                }
                schema.push(json!({"AttributeName": k["AttributeName"], "KeyType": key_type}));
            }
        }
        schema
    };
    let schema = key_schema(&t["KeyAttributes"], &mut definitions);
    let indexes: Vec<Value> = t
        .get("GlobalSecondaryIndexes")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|ix| {
                    json!({
                        "IndexName": ix["IndexName"],
                        "KeySchema": key_schema(&ix["KeyAttributes"], &mut definitions),
                        "Projection": ix["Projection"],
                        "IndexStatus": "ACTIVE",
                        "ItemCount": 0
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let mut table = json!({
        "AttributeDefinitions": definitions,
        "TableName": t["TableName"],
        "KeySchema": schema,
        "TableStatus": "ACTIVE",
        "CreationDateTime": "2023-09-10T15:21:48.123000+00:00",
        "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0},
        "TableSizeBytes": 0,
        "ItemCount": items.len(),
        "TableArn": format!("arn:aws:dynamodb:us-east-1:123456789012:table/{}", t["TableName"].as_str().unwrap()),
        "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
        "DeletionProtectionEnabled": false
    });
    if !indexes.is_empty() {
        table["GlobalSecondaryIndexes"] = Value::Array(indexes);
    }
    let ttl = match t.get("TimeToLiveSpecification") {
        Some(spec) => {
            json!({"TimeToLiveStatus": "ENABLED", "AttributeName": spec["AttributeName"]})
        }
        None => json!({"TimeToLiveStatus": "DISABLED"}),
    };
    let rest = serde_json::to_string_pretty(&json!({
        "Table": table,
        "TimeToLiveDescription": ttl,
        "Count": items.len(),
        "ScannedCount": items.len(),
        "ConsumedCapacity": null
    }))
    .unwrap();
    format!(
        "{},\n  \"Items\": [{}]\n}}",
        rest.trim_end().trim_end_matches('}').trim_end(),
        items.join(", ")
    )
}

#[test]
fn describe_table_output_lays_out_like_the_workbench_model() {
    // The video, the invoices and the sessions (TTL, a GSI, every type)
    // become exactly the same tables and rows from either source.
    for model in [VIDEOS, INVOICES, SESSIONS] {
        let described = as_describe_table(model);
        let (a, b) = (translate(model), translate(&described));
        assert_eq!(a.tables[0].pattern, b.tables[0].pattern, "{described}");
        assert_eq!(
            layout(&mut applied(&a)),
            layout(&mut applied(&b)),
            "{described}"
        );
        let alternatives = |t: &Translation| -> Vec<String> {
            t.tables[0]
                .indexes
                .iter()
                .map(|i| format!("{} {} {}", i.name, i.projection, i.alternative))
                .collect()
        };
        assert_eq!(alternatives(&a), alternatives(&b));
        let ttl = |t: &Translation| {
            t.tables[0]
                .notes
                .iter()
                .filter(|n| n.topic == "ttl")
                .count()
        };
        assert_eq!(ttl(&a), ttl(&b));
    }
    // Without facets the catalog's family is the generic `item`.
    let catalog = translate(&as_describe_table(CATALOG));
    assert_eq!(catalog.tables[0].pattern, Pattern::DynamoComposite);
    assert!(
        layout(&mut applied(&catalog)).contains("  Hats#fedora#brandA\n    item:Description @")
    );
}

#[test]
fn describe_table_alone_gives_the_key_layout_and_says_items_would_help() {
    // `aws dynamodb describe-table --table-name Orders`, as printed.
    let described = r#"{
    "Table": {
        "AttributeDefinitions": [
            {"AttributeName": "CustomerId", "AttributeType": "S"},
            {"AttributeName": "OrderDate", "AttributeType": "N"},
            {"AttributeName": "Status", "AttributeType": "S"}
        ],
        "TableName": "Orders",
        "KeySchema": [
            {"AttributeName": "CustomerId", "KeyType": "HASH"},
            {"AttributeName": "OrderDate", "KeyType": "RANGE"}
        ],
        "TableStatus": "ACTIVE",
        "ItemCount": 0,
        "LocalSecondaryIndexes": [{
            "IndexName": "ByStatus",
            "KeySchema": [
                {"AttributeName": "CustomerId", "KeyType": "HASH"},
                {"AttributeName": "Status", "KeyType": "RANGE"}
            ],
            "Projection": {"ProjectionType": "KEYS_ONLY"}
        }]
    }
}"#;
    let t = translate(described);
    assert_eq!(t.name, "Orders");
    let table = &t.tables[0];
    let key: Vec<&str> = table.row_key.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(key, ["CustomerId", "OrderDate"]);
    assert_eq!(table.indexes[0].projection, "KEYS_ONLY");
    assert!(t.notes.iter().any(|n| n.topic == "sample"), "{:?}", t.notes);
    // The table is created, empty, with its families.
    let mut db = applied(&t);
    assert!(layout(&mut db).starts_with("table Orders\n  family "));
    // A disabled TTL is not a GC rule.
    let disabled = described.replacen(
        "\"Table\": {",
        "\"TimeToLiveDescription\": {\"TimeToLiveStatus\": \"DISABLED\", \"AttributeName\": \"Expires\"},\n    \"Table\": {",
        1,
    );
    assert!(
        !translate(&disabled).tables[0]
            .notes
            .iter()
            .any(|n| n.topic == "ttl")
    );
}
