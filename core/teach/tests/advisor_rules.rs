//! The schema advisor: for every rule, a design that must trigger it and a
//! close design that must not; that every first fix resolves its finding;
//! access-pattern classification; `lint_toml` and its exit codes; fixes
//! applied to scenarios and instances.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::sim::Scenario;
use tabletop_sql::Instance;
use tabletop_teach::advisor::{
    self, AccessSpec, Design, Edit, Finding, LintOptions, ReadShape, RuleId, Severity, Target,
    apply_to_instance, apply_to_scenario, classify, scenario_to_toml,
};
use tabletop_wire::cbt;

/// A scenario with the given families, key segments and extra sections.
fn scenario(families: &str, segments: &str, extra: &str) -> Scenario {
    let text = format!(
        r#"
name = "design"
duration = "10m"

[table]
id = "t"
families = {families}
entities = 10000

[key]
segments = [{segments}]

[[workload]]
name = "writes"
op = "write"
rate = 100
{extra}
"#
    );
    Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn findings(s: &Scenario) -> Vec<Finding> {
    advisor::lint(&Design::from_scenario(s))
}

fn fired(s: &Scenario, rule: RuleId) -> Option<Finding> {
    findings(s).into_iter().find(|f| f.rule == rule)
}

/// The rule fires, and its first fix is previewed as resolving it and
/// really does when applied to the scenario.
fn triggers(s: &Scenario, rule: RuleId) -> Finding {
    let all = findings(s);
    let f = all
        .iter()
        .find(|f| f.rule == rule)
        .unwrap_or_else(|| panic!("{rule} should fire on {}: {all:#?}", s.key.pattern()))
        .clone();
    assert_eq!(f.lesson, rule.info().lesson);
    assert_eq!(f.seed_topic, rule.info().seed_topic);
    assert!(!f.why.is_empty() && !f.title.is_empty());
    let fix = f
        .fixes
        .first()
        .unwrap_or_else(|| panic!("{rule} has no fix"));
    let p = fix.preview.as_ref().expect("previews are filled in");
    assert!(p.error.is_none(), "{rule}: {p:?}");
    assert!(
        p.resolves,
        "{rule}: first fix {:?} does not resolve it: {p:?}",
        fix.title
    );
    let mut fixed = s.clone();
    apply_to_scenario(&mut fixed, &fix.edits).unwrap_or_else(|e| panic!("{rule}: {e}"));
    let again = findings(&fixed);
    assert!(
        !again.iter().any(|g| g.rule == rule && g.target == f.target),
        "{rule} still fires after {:?}: {again:#?}",
        fix.title
    );
    f
}

fn quiet(s: &Scenario, rule: RuleId) {
    if let Some(f) = fired(s, rule) {
        panic!("{rule} should not fire on {}: {f:#?}", s.key.pattern());
    }
}

const DEV: &str = r#"{ name = "device_id", kind = "hex", width = 8 }"#;
const TS: &str = r#"{ name = "ts", kind = "timestamp" }"#;
const ONE_VERSION: &str = "{ stats = { max_versions = 1 } }";

// ---- timestamp_first ----

#[test]
fn timestamp_first_fires_on_a_leading_time_and_not_behind_an_id() {
    let f = triggers(
        &scenario(ONE_VERSION, &format!("{TS}, {DEV}"), ""),
        RuleId::TimestampFirst,
    );
    assert_eq!(f.severity, Severity::Error);
    assert!(matches!(&f.target, Target::Segment { index: 0, name, .. } if name == "ts"));
    quiet(
        &scenario(ONE_VERSION, &format!("{DEV}, {TS}"), ""),
        RuleId::TimestampFirst,
    );
}

#[test]
fn timestamp_first_sees_through_few_valued_prefixes_but_not_salts() {
    let phone = r#"{ name = "device_type", kind = "enum", values = ["phone", "tablet"] }"#;
    triggers(
        &scenario(ONE_VERSION, &format!("{phone}, {TS}, {DEV}"), ""),
        RuleId::TimestampFirst,
    );
    let day = r#"{ name = "day", kind = "date" }"#;
    triggers(
        &scenario(ONE_VERSION, &format!("{day}, {DEV}"), ""),
        RuleId::TimestampFirst,
    );
    let rev = r#"{ name = "ts", kind = "timestamp", reversed = true }"#;
    triggers(
        &scenario(ONE_VERSION, &format!("{rev}, {DEV}"), ""),
        RuleId::TimestampFirst,
    );
    let salt = r#"{ name = "salt", kind = "salt", buckets = 16, of = "device_id" }"#;
    quiet(
        &scenario(ONE_VERSION, &format!("{salt}, {TS}, {DEV}"), ""),
        RuleId::TimestampFirst,
    );
}

#[test]
fn timestamp_first_offers_a_salt_when_nothing_can_lead() {
    let ev = r#"{ name = "event", kind = "hex", width = 12, per = "op" }"#;
    let f = triggers(
        &scenario(ONE_VERSION, &format!("{TS}, {ev}"), ""),
        RuleId::TimestampFirst,
    );
    assert!(f.fixes[0].title.contains("salt"), "{:?}", f.fixes[0].title);
    assert!(matches!(
        &f.fixes[0].edits[0],
        Edit::InsertSegment { at: 0, .. }
    ));
}

// ---- sequential_id_first ----

#[test]
fn sequential_id_first_fires_on_ids_in_order_and_not_on_reversed_ids() {
    let id = r#"{ name = "user_id", kind = "int", width = 10 }"#;
    let seq = "keys = \"sequential\"";
    let text = |seg: &str| scenario(ONE_VERSION, seg, "").clone();
    let mut s = text(id);
    s.workloads[0].keys = tabletop_design::sim::KeyDist::Sequential;
    let f = triggers(&s, RuleId::SequentialIdFirst);
    assert_eq!(f.severity, Severity::Error, "{seq}");
    let rev = r#"{ name = "user_id", kind = "int", width = 10, reversed = true }"#;
    let mut s = text(rev);
    s.workloads[0].keys = tabletop_design::sim::KeyDist::Sequential;
    quiet(&s, RuleId::SequentialIdFirst);
}

#[test]
fn sequential_id_first_ignores_a_plain_number_behind_a_name() {
    let region = r#"{ name = "region", kind = "enum", values = ["eu", "us"] }"#;
    let line = r#"{ name = "line", kind = "int", width = 6 }"#;
    quiet(
        &scenario(ONE_VERSION, &format!("{region}, {line}"), ""),
        RuleId::SequentialIdFirst,
    );
    let order = r#"{ name = "order", kind = "int", width = 12, per = "op" }"#;
    let f = triggers(
        &scenario(ONE_VERSION, &format!("{region}, {order}"), ""),
        RuleId::SequentialIdFirst,
    );
    assert_eq!(f.severity, Severity::Error);
}

// ---- hashed_key ----

#[test]
fn hashed_key_fires_on_a_hash_in_front_and_not_behind_its_source() {
    let h = r#"{ name = "h", kind = "hash", of = "device_id", width = 4 }"#;
    let f = triggers(
        &scenario(ONE_VERSION, &format!("{h}, {DEV}, {TS}"), ""),
        RuleId::HashedKey,
    );
    assert_eq!(f.severity, Severity::Warning);
    quiet(
        &scenario(ONE_VERSION, &format!("{DEV}, {h}, {TS}"), ""),
        RuleId::HashedKey,
    );
    let salt = r#"{ name = "s", kind = "salt", buckets = 8, of = "device_id" }"#;
    quiet(
        &scenario(ONE_VERSION, &format!("{salt}, {DEV}, {TS}"), ""),
        RuleId::HashedKey,
    );
}

// ---- unpadded_number ----

#[test]
fn unpadded_number_fires_without_a_width_and_not_with_one() {
    let f = triggers(
        &scenario(
            ONE_VERSION,
            &format!("{DEV}, {{ name = \"n\", kind = \"int\", per = \"op\" }}"),
            "",
        ),
        RuleId::UnpaddedNumber,
    );
    assert!(matches!(
        &f.fixes[0].edits[0],
        Edit::PadSegment { width: 12, .. }
    ));
    quiet(
        &scenario(
            ONE_VERSION,
            &format!("{DEV}, {{ name = \"n\", kind = \"int\", width = 12, per = \"op\" }}"),
            "",
        ),
        RuleId::UnpaddedNumber,
    );
}

// ---- key_too_long ----

#[test]
fn key_too_long_fires_over_a_hundred_bytes() {
    let long = r#"{ name = "kind", kind = "const", value = "customer_order_line_item_record" },
        { name = "a", kind = "uuid" }, { name = "b", kind = "uuid", per = "op" }"#;
    let f = triggers(&scenario(ONE_VERSION, long, ""), RuleId::KeyTooLong);
    assert!(f.title.contains("bytes"));
    let short = r#"{ name = "kind", kind = "const", value = "customer_order_line_item_record" },
        { name = "a", kind = "uuid" }"#;
    quiet(&scenario(ONE_VERSION, short, ""), RuleId::KeyTooLong);
}

// ---- frequently_updated_row ----

#[test]
fn frequently_updated_row_fires_on_a_rewritten_row_and_not_on_new_rows() {
    let metric = r#"{ name = "metric", kind = "const", value = "memusage" }"#;
    let hot = "keys = \"hot_key\"";
    let mut s = scenario(ONE_VERSION, &format!("{DEV}, {metric}"), "");
    s.workloads[0].keys = tabletop_design::sim::KeyDist::HotKey;
    let f = triggers(&s, RuleId::FrequentlyUpdatedRow);
    assert_eq!(
        f.severity,
        Severity::Error,
        "{hot}: 100 writes/s on one row"
    );
    let mut s = scenario(ONE_VERSION, &format!("{DEV}, {metric}, {TS}"), "");
    s.workloads[0].keys = tabletop_design::sim::KeyDist::HotKey;
    quiet(&s, RuleId::FrequentlyUpdatedRow);
}

#[test]
fn frequently_updated_row_reads_declared_columns_and_spread_writes() {
    // Once a second per row, from a column declaration.
    let col = "[[column]]\nfamily = \"stats\"\nqualifier = \"mem\"\nwrites_per_day = 86400\n";
    let s = scenario(ONE_VERSION, DEV, col);
    let f = triggers(&s, RuleId::FrequentlyUpdatedRow);
    assert_eq!(f.severity, Severity::Warning);
    let col = col.replace("86400", "1440");
    quiet(
        &scenario(ONE_VERSION, DEV, &col),
        RuleId::FrequentlyUpdatedRow,
    );
    // 100 writes/s over 10,000 devices: one every 100 s per row.
    quiet(
        &scenario(ONE_VERSION, DEV, ""),
        RuleId::FrequentlyUpdatedRow,
    );
    // One write a second into rows that last a second: new rows, not updates.
    let sec = r#"{ name = "ts", kind = "timestamp", unit = "s" }"#;
    let mut s = scenario(ONE_VERSION, &format!("{DEV}, {sec}"), "");
    s.workloads[0].rate = 10_000.0;
    quiet(&s, RuleId::FrequentlyUpdatedRow);
    // ... but rows that last a day take 86,400 of them.
    let day = r#"{ name = "day", kind = "date" }"#;
    let mut s = scenario(ONE_VERSION, &format!("{DEV}, {day}"), "");
    s.workloads[0].rate = 10_000.0;
    triggers(&s, RuleId::FrequentlyUpdatedRow);
}

/// The example of the advisor's module documentation.
#[test]
fn module_doc_example() {
    let report = advisor::lint_toml(
        r#"
name = "readings"
duration = "10m"
[table]
families = { stats = { max_versions = 1 } }
[key]
segments = [
  { name = "ts", kind = "timestamp" },
  { name = "device_id", kind = "hex", width = 8 },
]
[[workload]]
op = "write"
rate = 1000
"#,
    )
    .unwrap();
    assert_eq!(report.findings[0].rule, RuleId::TimestampFirst);
    assert_eq!(report.exit_code(false), 1);
}

// ---- domain_not_reversed ----

#[test]
fn domain_not_reversed_fires_on_host_order() {
    let page = r#"{ name = "page", kind = "hex", width = 12, per = "op" }"#;
    triggers(
        &scenario(
            ONE_VERSION,
            &format!("{{ name = \"host\", kind = \"domain\" }}, {page}"),
            "",
        ),
        RuleId::DomainNotReversed,
    );
    quiet(
        &scenario(
            ONE_VERSION,
            &format!("{{ name = \"host\", kind = \"domain\", reversed = true }}, {page}"),
            "",
        ),
        RuleId::DomainNotReversed,
    );
}

// ---- pii_in_key ----

#[test]
fn pii_in_key_fires_on_personal_segments_and_family_names() {
    let f = triggers(
        &scenario(
            ONE_VERSION,
            &format!("{{ name = \"email\", kind = \"hex\", width = 12 }}, {TS}"),
            "",
        ),
        RuleId::PiiInKey,
    );
    assert!(
        matches!(&f.fixes[0].edits[0], Edit::ReplaceSegment { with, .. } if with.name == "user_id")
    );
    triggers(
        &scenario(
            ONE_VERSION,
            &format!("{{ name = \"who\", kind = \"name\" }}, {TS}"),
            "",
        ),
        RuleId::PiiInKey,
    );
    quiet(
        &scenario(
            ONE_VERSION,
            &format!("{{ name = \"user_id\", kind = \"hex\", width = 12 }}, {TS}"),
            "",
        ),
        RuleId::PiiInKey,
    );
    let f = triggers(
        &scenario("{ customer_email = { max_versions = 1 } }", DEV, ""),
        RuleId::PiiInKey,
    );
    assert!(matches!(f.target, Target::Family { .. }));
    quiet(
        &scenario("{ contact = { max_versions = 1 } }", DEV, ""),
        RuleId::PiiInKey,
    );
}

// ---- no_gc_rule ----

#[test]
fn no_gc_rule_fires_on_a_family_without_a_rule() {
    // Rows are rewritten (no time in the key): versions pile up.
    let f = triggers(&scenario("{ stats = {} }", DEV, ""), RuleId::NoGcRule);
    assert_eq!(f.severity, Severity::Warning);
    // A new row per write: still reported, as information.
    let f = fired(
        &scenario("{ stats = {} }", &format!("{DEV}, {TS}"), ""),
        RuleId::NoGcRule,
    )
    .unwrap();
    assert_eq!(f.severity, Severity::Info);
    quiet(
        &scenario("{ stats = { max_age = \"30d\" } }", DEV, ""),
        RuleId::NoGcRule,
    );
}

#[test]
fn no_gc_rule_fixes_follow_what_columns_need() {
    let col = "[[column]]\nfamily = \"stats\"\nqualifier = \"alerts\"\nkeep_versions = 5\nkeep_for = \"7d\"\n";
    let f = triggers(&scenario("{ stats = {} }", DEV, col), RuleId::NoGcRule);
    match &f.fixes[0].edits[0] {
        Edit::SetGc {
            max_versions,
            max_age,
            ..
        } => {
            assert_eq!(*max_versions, Some(5));
            assert_eq!(max_age.map(|a| a.0), Some(7.0 * 86_400.0));
        }
        other => panic!("{other:?}"),
    }
}

// ---- mixed_retention_in_family ----

#[test]
fn mixed_retention_fires_when_one_family_serves_two_lifetimes() {
    let cols = |fam2: &str| {
        format!(
            "[[column]]\nfamily = \"stats\"\nqualifier = \"summary\"\nkeep_versions = 1\n\n[[column]]\nfamily = \"{fam2}\"\nqualifier = \"history\"\nkeep_versions = 1000\n"
        )
    };
    let f = triggers(
        &scenario("{ stats = { max_versions = 1000 } }", DEV, &cols("stats")),
        RuleId::MixedRetentionInFamily,
    );
    assert!(f.fixes[0].edits.iter().any(|e| matches!(
        e,
        Edit::AddFamily {
            max_versions: Some(1000),
            ..
        }
    )));
    quiet(
        &scenario(
            "{ stats = { max_versions = 1 }, hist = { max_versions = 1000 } }",
            DEV,
            &cols("hist"),
        ),
        RuleId::MixedRetentionInFamily,
    );
}

// ---- too_many_families ----

fn families(n: usize) -> String {
    let list: Vec<String> = (0..n)
        .map(|i| format!("f{i:03} = {{ max_versions = 1 }}"))
        .collect();
    format!("{{ {} }}", list.join(", "))
}

#[test]
fn too_many_families_fires_above_one_hundred() {
    let f = triggers(&scenario(&families(101), DEV, ""), RuleId::TooManyFamilies);
    assert_eq!(f.severity, Severity::Warning);
    quiet(&scenario(&families(100), DEV, ""), RuleId::TooManyFamilies);
}

#[test]
fn too_many_families_fires_on_one_column_per_family() {
    let cols = |n: usize| -> String {
        (0..n)
            .map(|i| format!("[[column]]\nfamily = \"f{i:03}\"\nqualifier = \"c\"\n\n"))
            .collect()
    };
    let f = triggers(
        &scenario(&families(5), DEV, &cols(5)),
        RuleId::TooManyFamilies,
    );
    assert_eq!(f.severity, Severity::Info);
    quiet(
        &scenario(&families(4), DEV, &cols(4)),
        RuleId::TooManyFamilies,
    );
}

// ---- long_family_name ----

#[test]
fn long_family_name_fires_above_sixteen_bytes() {
    let f = triggers(
        &scenario("{ device_statistics = { max_versions = 1 } }", DEV, ""),
        RuleId::LongFamilyName,
    );
    assert!(matches!(&f.fixes[0].edits[0], Edit::RenameFamily { to, .. } if to.len() <= 12));
    quiet(
        &scenario("{ device_statistic = { max_versions = 1 } }", DEV, ""),
        RuleId::LongFamilyName,
    );
}

#[test]
fn a_family_rename_carries_workloads_and_columns_along() {
    let extra =
        "[[column]]\nfamily = \"device_statistics\"\nqualifier = \"cpu\"\nkeep_versions = 1\n";
    let mut s = scenario("{ device_statistics = { max_versions = 1 } }", DEV, extra);
    s.workloads[0].family = Some("device_statistics".into());
    let f = triggers(&s, RuleId::LongFamilyName);
    apply_to_scenario(&mut s, &f.fixes[0].edits).unwrap();
    let name = s.table.families.keys().next().unwrap().clone();
    assert_eq!(s.workloads[0].family.as_deref(), Some(name.as_str()));
    assert_eq!(s.columns[0].family, name);
}

// ---- table_per_tenant ----

#[test]
fn table_per_tenant_fires_on_tables_told_apart_by_customer() {
    let other = |id: &str, fam: &str| {
        format!(
            "[[other_table]]\nid = \"{id}\"\nfamilies = {{ {fam} = {{ max_versions = 1 }} }}\n\n"
        )
    };
    let mut s = scenario(
        ONE_VERSION,
        DEV,
        &format!(
            "{}{}",
            other("orders_acme", "stats"),
            other("orders_globex", "stats")
        ),
    );
    s.table.id = "orders_initech".into();
    let f = triggers(&s, RuleId::TablePerTenant);
    assert!(matches!(&f.target, Target::Tables { tables } if tables.len() == 3));
    let mut fixed = s.clone();
    apply_to_scenario(&mut fixed, &f.fixes[0].edits).unwrap();
    assert_eq!(fixed.table.id, "orders");
    assert!(fixed.other_tables.is_empty());
    assert_eq!(fixed.key.segments[0].name, "tenant");
    // Different families: different data, not tenants.
    let mut s = scenario(ONE_VERSION, DEV, &other("orders_acme", "lines"));
    s.table.id = "orders_globex".into();
    quiet(&s, RuleId::TablePerTenant);
}

#[test]
fn table_per_tenant_fires_on_a_table_per_year() {
    let mut s = scenario(ONE_VERSION, &format!("{DEV}, {TS}"), "");
    s.table.id = "events_2024".into();
    let f = triggers(&s, RuleId::TablePerTenant);
    assert!(f.title.contains("year"));
    s.table.id = "events_v2".into();
    quiet(&s, RuleId::TablePerTenant);
}

#[test]
fn table_per_tenant_in_an_instance_migrates_the_data() {
    let mut db = Instance::default();
    db.set_now(1_600_000_000_000_000);
    for t in ["orders_acme", "orders_globex"] {
        cbt::run_line(
            &mut db,
            &format!("createtable {t} families=stats:maxversions=1"),
        )
        .unwrap();
        cbt::run_line(&mut db, &format!("set {t} phone#1 stats:os=android@1000")).unwrap();
        cbt::run_line(&mut db, &format!("set {t} tablet#2 stats:os=ios@2000")).unwrap();
    }
    cbt::run_line(&mut db, "createtable users families=profile:maxversions=1").unwrap();
    let found = advisor::lint(&Design::from_instance(&db));
    let f = found
        .iter()
        .find(|f| f.rule == RuleId::TablePerTenant)
        .expect("per-customer tables");
    apply_to_instance(&mut db, &f.fixes[0].edits).unwrap();
    let out = cbt::run_line(&mut db, "read orders").unwrap();
    assert!(
        out.contains("acme#phone#1") && out.contains("globex#tablet#2"),
        "{out}"
    );
    assert!(db.get_table("orders_acme").is_err() && db.get_table("orders_globex").is_err());
    assert!(db.get_table("users").is_ok());
    let again = advisor::lint(&Design::from_instance(&db));
    assert!(
        !again.iter().any(|f| f.rule == RuleId::TablePerTenant),
        "{again:#?}"
    );
}

// ---- unqueryable_suffix ----

const MOBILE: &str = r#"{ name = "device_type", kind = "enum", values = ["phone", "tablet"] },
    { name = "device_id", kind = "hex", width = 8 }, { name = "day", kind = "date" }"#;

#[test]
fn unqueryable_suffix_fires_on_a_read_of_the_last_segment() {
    let day = "[[access]]\nname = \"one day\"\nfixed = [\"day\"]\n";
    let f = triggers(
        &scenario(ONE_VERSION, MOBILE, day),
        RuleId::UnqueryableSuffix,
    );
    assert!(matches!(&f.target, Target::Access { name } if name == "one day"));
    let dev = "[[access]]\nname = \"a device's days\"\nfixed = [\"device_type\", \"device_id\"]\nrange = \"day\"\n";
    quiet(
        &scenario(ONE_VERSION, MOBILE, dev),
        RuleId::UnqueryableSuffix,
    );
}

#[test]
fn unqueryable_suffix_fires_on_a_field_the_key_lacks_and_on_a_wide_partial_scan() {
    let missing = "[[access]]\nname = \"by region\"\nfixed = [\"region\"]\n";
    let f = triggers(
        &scenario(ONE_VERSION, DEV, missing),
        RuleId::UnqueryableSuffix,
    );
    assert!(
        f.fixes[0]
            .edits
            .iter()
            .any(|e| matches!(e, Edit::InsertSegment { .. }))
    );
    // Knows the type but not the device: scans half the table for a day.
    let half = "[[access]]\nname = \"phones on a day\"\nfixed = [\"device_type\", \"day\"]\n";
    triggers(
        &scenario(ONE_VERSION, MOBILE, half),
        RuleId::UnqueryableSuffix,
    );
}

// ---- wide_row ----

#[test]
fn wide_row_fires_when_a_row_collects_columns_forever() {
    let col = "[[column]]\nfamily = \"stats\"\nqualifier = \"{minute}\"\nbytes = 1024\nwrites_per_day = 1440\n";
    let f = triggers(&scenario(ONE_VERSION, DEV, col), RuleId::WideRow);
    assert_eq!(f.severity, Severity::Error);
    let day = r#"{ name = "day", kind = "date" }"#;
    quiet(
        &scenario(ONE_VERSION, &format!("{DEV}, {day}"), col),
        RuleId::WideRow,
    );
}

#[test]
fn wide_row_fires_on_versions_without_a_cap() {
    let mut s = scenario("{ stats = {} }", DEV, "");
    s.workloads[0].keys = tabletop_design::sim::KeyDist::Zipf(1.2);
    let f = triggers(&s, RuleId::WideRow);
    assert!(
        f.fixes[0]
            .edits
            .iter()
            .any(|e| matches!(e, Edit::SetGc { .. })),
        "{:#?}",
        f.fixes
    );
    let mut s = scenario("{ stats = { max_versions = 3 } }", DEV, "");
    s.workloads[0].keys = tabletop_design::sim::KeyDist::Zipf(1.2);
    quiet(&s, RuleId::WideRow);
}

// ---- many_small_cells ----

#[test]
fn many_small_cells_fires_on_hundreds_of_tiny_values() {
    let col = |per_row: u32, bytes: u32| {
        format!(
            "[[column]]\nfamily = \"stats\"\nqualifier = \"{{flag}}\"\nbytes = {bytes}\nper_row = {per_row}\n"
        )
    };
    let f = triggers(
        &scenario(ONE_VERSION, DEV, &col(1024, 1)),
        RuleId::ManySmallCells,
    );
    assert!(matches!(
        &f.fixes[0].edits[0],
        Edit::SerializeColumns { .. }
    ));
    quiet(
        &scenario(ONE_VERSION, DEV, &col(1024, 64)),
        RuleId::ManySmallCells,
    );
    quiet(
        &scenario(ONE_VERSION, DEV, &col(40, 1)),
        RuleId::ManySmallCells,
    );
}

// ---- every rule is covered above ----

#[test]
fn every_rule_has_an_id_title_topic_and_lesson() {
    for r in RuleId::ALL {
        assert_eq!(RuleId::from_name(r.as_str()), Some(r));
        let i = r.info();
        assert!(!i.title.is_empty() && !i.seed_topic.is_empty() && !i.lesson.is_empty());
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, format!("\"{}\"", r.as_str()));
    }
    assert_eq!(RuleId::ALL.len(), 16);
}

// ---- access classification ----

fn access(fixed: &[&str], range: Option<&str>) -> AccessSpec {
    AccessSpec {
        name: "a".into(),
        fixed: fixed.iter().map(|s| s.to_string()).collect(),
        range: range.map(str::to_string),
        ..AccessSpec::default()
    }
}

#[test]
fn access_patterns_are_classified_with_their_row_sets() {
    let s = scenario(ONE_VERSION, MOBILE, "");
    let k = &s.key;
    let p = classify(
        k,
        &access(&["device_type", "device_id", "day"], None),
        10_000,
    );
    assert_eq!(p.shape, ReadShape::Point);
    assert!(p.row_set[0].starts_with("key \""), "{:?}", p.row_set);
    let p = classify(
        k,
        &access(&["device_type", "device_id"], Some("day")),
        10_000,
    );
    assert_eq!(p.shape, ReadShape::SingleRange);
    assert!(p.row_set[0].starts_with("range [\""), "{:?}", p.row_set);
    let p = classify(k, &access(&["device_type"], None), 10_000);
    assert_eq!((p.shape, p.ranges), (ReadShape::SingleRange, 1));
    assert!(p.row_set[0].starts_with("prefix \""), "{:?}", p.row_set);
    let p = classify(k, &access(&["device_id"], Some("day")), 10_000);
    assert_eq!((p.shape, p.ranges), (ReadShape::MultiRange, 2));
    assert_eq!(p.enumerated, ["device_type"]);
    let p = classify(k, &access(&["day"], None), 10_000);
    assert_eq!(p.shape, ReadShape::FullScan);
    assert_eq!(p.filtered, ["day"]);
    assert_eq!(p.stop, 1);
    let p = classify(k, &access(&[], None), 10_000);
    assert_eq!(p.shape, ReadShape::FullScan);
    assert!(p.explanation.contains("every row"), "{}", p.explanation);
}

#[test]
fn salts_hashes_and_sites_in_classification() {
    let salted = scenario(
        ONE_VERSION,
        r#"{ name = "salt", kind = "salt", buckets = 16, of = "device_id" }, { name = "ts", kind = "timestamp" }, { name = "device_id", kind = "hex", width = 8 }"#,
        "",
    );
    // Knowing the device gives the salt; a time range alone needs 16 ranges.
    let p = classify(&salted.key, &access(&["device_id"], Some("ts")), 10_000);
    assert_eq!(p.shape, ReadShape::SingleRange);
    let p = classify(&salted.key, &access(&[], Some("ts")), 10_000);
    assert_eq!((p.shape, p.ranges), (ReadShape::MultiRange, 16));
    let rev = scenario(
        ONE_VERSION,
        r#"{ name = "host", kind = "domain", reversed = true }, { name = "page", kind = "hex", per = "op" }"#,
        "",
    );
    let p = classify(&rev.key, &access(&["host:site"], None), 1000);
    assert_eq!(p.shape, ReadShape::SingleRange);
    assert!(p.row_set[0].ends_with(".\""), "{:?}", p.row_set);
    let fwd = scenario(
        ONE_VERSION,
        r#"{ name = "host", kind = "domain" }, { name = "page", kind = "hex", per = "op" }"#,
        "",
    );
    assert_eq!(
        classify(&fwd.key, &access(&["host:site"], None), 1000).shape,
        ReadShape::FullScan
    );
}

#[test]
fn access_workloads_follow_the_key() {
    let text = include_str!("../../../static/scenarios/lesson_forward_domains.toml");
    let s = Scenario::from_toml(text).unwrap();
    let w = advisor::access_workloads(&s);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].op.name(), "full_scan");
    let mut r = s.clone();
    r.key.segments[0].kind = match r.key.segments[0].kind.clone() {
        tabletop_design::keydesign::SegmentKind::Domain { sites, hosts, .. } => {
            tabletop_design::keydesign::SegmentKind::Domain {
                sites,
                hosts,
                reversed: true,
            }
        }
        k => k,
    };
    let w = advisor::access_workloads(&r);
    assert_eq!(
        (w[0].op.name(), w[0].prefix_segments, w[0].prefix_labels),
        ("scan", Some(1), Some(2))
    );
    let full = advisor::with_access_workloads(&r);
    assert_eq!(full.workloads.len(), s.workloads.len() + 1);
    full.validate().unwrap();
}

// ---- lint_toml, exit codes, output ----

#[test]
fn lint_toml_prints_text_and_json_and_sets_the_exit_code() {
    let bad = include_str!("../../../static/scenarios/mobile_timestamp_first.toml");
    let r = advisor::lint_toml(bad).unwrap();
    assert_eq!(r.findings[0].rule, RuleId::TimestampFirst);
    assert_eq!(r.exit_code(false), 1);
    assert_eq!(r.counts[2], 1);
    let text = r.to_text();
    assert!(text.contains("ERROR   timestamp_first"), "{text}");
    assert!(text.contains("Fix: Move `ts`"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(json["findings"][0]["rule"], "timestamp_first");
    assert_eq!(json["findings"][0]["severity"], "error");
    assert_eq!(json["findings"][0]["target"]["kind"], "segment");
    assert_eq!(
        json["findings"][0]["fixes"][0]["edits"][0]["op"],
        "move_segment"
    );
    let good = include_str!("../../../static/scenarios/mobile_device_first.toml");
    let r = advisor::lint_toml(good).unwrap();
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!(r.exit_code(true), 0);
    assert!(r.to_text().contains("none"));
    // Warnings fail only in strict mode.
    let warn = include_str!("../../../static/scenarios/forward_domains.toml");
    let r = advisor::lint_toml(warn).unwrap();
    assert_eq!((r.exit_code(false), r.exit_code(true)), (0, 1));
}

#[test]
fn lint_toml_errors_name_the_line() {
    let text = include_str!("../../../static/scenarios/lesson_device_only.toml");
    let e = advisor::lint_toml(&text.replace("name = \"all tablets\"", "nam = \"all tablets\""))
        .unwrap_err();
    assert!(e.message().contains("line 27"), "{}", e.message());
    let e = advisor::lint_toml(
        &text.replace("name = \"all tablets\"", "name = \"one device on one day\""),
    )
    .unwrap_err();
    assert!(
        e.message().contains("used twice") && e.message().contains("line "),
        "{}",
        e.message()
    );
    let e = advisor::lint_toml(&text.replace(
        "fixed = [\"device_type\"]",
        "fixed = [\"device_type:site\"]",
    ))
    .unwrap_err();
    assert!(e.message().contains("access #1"), "{}", e.message());
    assert!(advisor::lint_toml("").is_err());
}

#[test]
fn lint_with_the_simulation_adds_its_evidence() {
    let text = include_str!("../../../static/scenarios/lesson_hot_counter.toml");
    let r = advisor::lint_toml_with(text, LintOptions { simulate: true }).unwrap();
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == RuleId::FrequentlyUpdatedRow)
        .unwrap();
    assert!(
        f.evidence.iter().any(|e| e.starts_with("simulation:")),
        "{:#?}",
        f.evidence
    );
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == RuleId::WideRow)
        .unwrap();
    assert!(
        f.evidence.iter().any(|e| e.starts_with("simulation:")),
        "{:#?}",
        f.evidence
    );
}

// ---- fixes on scenarios and instances ----

#[test]
fn edits_that_break_a_design_are_refused_whole() {
    let mut s = scenario(ONE_VERSION, &format!("{DEV}, {TS}"), "");
    let before = s.clone();
    let e = apply_to_scenario(
        &mut s,
        &[
            Edit::ReverseSegment {
                segment: "ts".into(),
            },
            Edit::PadSegment {
                segment: "device_id".into(),
                width: 4,
            },
        ],
    )
    .unwrap_err();
    assert!(e.message().contains("not an int"), "{}", e.message());
    assert_eq!(s, before);
    assert!(
        apply_to_scenario(
            &mut s,
            &[Edit::RemoveSegment {
                segment: "nope".into()
            }]
        )
        .is_err()
    );
    assert!(
        apply_to_scenario(
            &mut s,
            &[
                Edit::RemoveSegment {
                    segment: "ts".into()
                },
                Edit::RemoveSegment {
                    segment: "device_id".into()
                }
            ]
        )
        .is_err()
    );
    assert_eq!(s, before);
}

#[test]
fn edits_travel_as_json_and_bad_values_are_refused() {
    let e: Edit = serde_json::from_str(
        r#"{"op": "set_gc", "table": "t", "family": "stats", "max_versions": 2, "max_age": "7d"}"#,
    )
    .unwrap();
    let mut s = scenario("{ stats = {} }", DEV, "");
    apply_to_scenario(&mut s, std::slice::from_ref(&e)).unwrap();
    assert_eq!(s.table.families["stats"].max_versions, Some(2));
    let back: Edit = serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
    assert_eq!(back, e);
    for bad in [
        r#"{"op": "set_gc", "table": "t", "family": "stats", "max_age": -5}"#,
        r#"{"op": "set_gc", "table": "t", "family": "stats", "max_versions": 0}"#,
        r#"{"op": "set_gc", "table": "nope", "family": "stats", "max_versions": 1}"#,
        r#"{"op": "pad_segment", "segment": "device_id", "width": 0}"#,
        r#"{"op": "insert_segment", "at": 9, "segment": {"name": "device_id", "kind": "hex"}}"#,
        r#"{"op": "rename_family", "table": "t", "family": "stats", "to": "bad name"}"#,
    ] {
        let e: Edit = serde_json::from_str(bad).unwrap();
        let mut t = s.clone();
        assert!(apply_to_scenario(&mut t, &[e]).is_err(), "{bad}");
        assert_eq!(t, s);
    }
    let mut db = Instance::default();
    cbt::run_line(&mut db, "createtable t2 families=cf").unwrap();
    let e: Edit =
        serde_json::from_str(r#"{"op": "set_gc", "table": "t2", "family": "cf", "max_age": -5}"#)
            .unwrap();
    assert!(apply_to_instance(&mut db, &[e]).is_err());
}

#[test]
fn instance_fixes_set_rules_and_move_cells() {
    let mut db = Instance::default();
    db.set_now(1_600_000_000_000_000);
    cbt::run_line(&mut db, "createtable m families=device_measurements").unwrap();
    cbt::run_line(
        &mut db,
        "set m r1 device_measurements:cpu=1@1000 device_measurements:cpu=2@2000",
    )
    .unwrap();
    let found = advisor::lint(&Design::from_instance(&db));
    assert!(
        found
            .iter()
            .any(|f| f.rule == RuleId::NoGcRule && f.severity == Severity::Info)
    );
    let long = found
        .iter()
        .find(|f| f.rule == RuleId::LongFamilyName)
        .unwrap();
    apply_to_instance(&mut db, &long.fixes[0].edits).unwrap();
    let out = cbt::run_line(&mut db, "read m").unwrap();
    assert!(out.contains("dev_mea:cpu"), "{out}");
    assert_eq!(
        out.matches("dev_mea:cpu").count(),
        2,
        "both versions copied: {out}"
    );
    let gc = advisor::lint(&Design::from_instance(&db))
        .into_iter()
        .find(|f| f.rule == RuleId::NoGcRule)
        .unwrap();
    apply_to_instance(&mut db, &gc.fixes[0].edits).unwrap();
    assert!(
        !advisor::lint(&Design::from_instance(&db))
            .iter()
            .any(|f| f.rule == RuleId::NoGcRule)
    );
    assert!(
        cbt::run_line(&mut db, "ls m")
            .unwrap()
            .contains("versions() > 1")
    );
}

// ---- TOML output ----

const STATIC: &[&str] = &[
    include_str!("../../../static/scenarios/filtered_full_scan.toml"),
    include_str!("../../../static/scenarios/forward_domains.toml"),
    include_str!("../../../static/scenarios/hot_row_counter.toml"),
    include_str!("../../../static/scenarios/mobile_device_first.toml"),
    include_str!("../../../static/scenarios/mobile_timestamp_first.toml"),
    include_str!("../../../static/scenarios/multi_tenant.toml"),
    include_str!("../../../static/scenarios/periodic_batch.toml"),
    include_str!("../../../static/scenarios/reverse_domains.toml"),
    include_str!("../../../static/scenarios/salted_timestamps.toml"),
    include_str!("../../../static/scenarios/spike_event.toml"),
    include_str!("../../../static/scenarios/user_ids_reversed.toml"),
    include_str!("../../../static/scenarios/user_ids_sequential.toml"),
    include_str!("../../../static/scenarios/lesson_metric_families.toml"),
    include_str!("../../../static/scenarios/lesson_user_sessions.toml"),
    include_str!("../../../static/scenarios/lesson_forward_domains.toml"),
];

#[test]
fn scenarios_round_trip_through_toml() {
    for text in STATIC {
        let s = Scenario::from_toml(text).unwrap();
        let out = scenario_to_toml(&s);
        let back = Scenario::from_toml(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
        assert_eq!(back, s, "{out}");
    }
    let mut s = scenario(ONE_VERSION, DEV, "[[other_table]]\nid = \"x\"\n");
    s.description = "quotes \" and \\ and\nnewlines".into();
    s.workloads[0].shape = tabletop_design::sim::Shape::Diurnal {
        period: tabletop_design::sim::Seconds(3600.0),
        low: 0.25,
    };
    let back = Scenario::from_toml(&scenario_to_toml(&s)).unwrap();
    assert_eq!(back, s);
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use proptest::prelude::*;

    use super::*;

    fn segment(i: usize) -> impl Strategy<Value = String> {
        prop_oneof![
            Just(format!("{{ name = \"s{i}\", kind = \"hex\", width = 8 }}")),
            Just(format!("{{ name = \"s{i}\", kind = \"timestamp\" }}")),
            Just(format!("{{ name = \"s{i}\", kind = \"int\" }}")),
            Just(format!(
                "{{ name = \"s{i}\", kind = \"int\", width = 6, per = \"op\" }}"
            )),
            Just(format!(
                "{{ name = \"s{i}\", kind = \"enum\", values = [\"a\", \"b\"] }}"
            )),
            Just(format!("{{ name = \"s{i}\", kind = \"domain\" }}")),
            Just(format!("{{ name = \"s{i}\", kind = \"date\" }}")),
            Just(format!("{{ name = \"s{i}\", kind = \"name\" }}")),
            Just(format!(
                "{{ name = \"s{i}\", kind = \"uuid\", per = \"op\" }}"
            )),
            Just(format!(
                "{{ name = \"s{i}\", kind = \"const\", value = \"constant_value_{i}\" }}"
            )),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any key: linting never panics, every fix either applies or says
        /// why not, and applied fixes leave a valid scenario.
        #[test]
        fn lint_and_fixes_never_panic(
            segs in (1usize..5).prop_flat_map(|n| (0..n).map(segment).collect::<Vec<_>>()),
            fixed in proptest::collection::vec(0usize..5, 0..3),
        ) {
            let fixed: Vec<String> = fixed.iter().map(|i| format!("\"s{i}\"")).collect();
            let extra = format!("[[access]]\nname = \"a\"\nfixed = [{}]\n", fixed.join(", "));
            let s = scenario("{ stats = {} }", &segs.join(", "), &extra);
            for f in findings(&s) {
                for fix in &f.fixes {
                    let p = fix.preview.as_ref().unwrap();
                    let mut t = s.clone();
                    let applied = apply_to_scenario(&mut t, &fix.edits);
                    prop_assert_eq!(applied.is_ok(), p.error.is_none(), "{:?} {:?}", fix, p);
                    if applied.is_ok() {
                        t.validate().unwrap();
                        let back = Scenario::from_toml(&scenario_to_toml(&t)).unwrap();
                        prop_assert_eq!(back, t);
                    }
                }
            }
        }
    }
}

#[test]
fn access_cases_cost_what_the_key_makes_them_read() {
    use tabletop_design::sim::OpKind;
    let ts_first = Scenario::from_toml(include_str!(
        "../../../static/scenarios/ab_mobile_timestamp_first.toml"
    ))
    .unwrap();
    let dev_first = Scenario::from_toml(include_str!(
        "../../../static/scenarios/ab_mobile_device_first.toml"
    ))
    .unwrap();
    let a = advisor::access_cases(&ts_first);
    let b = advisor::access_cases(&dev_first);
    assert_eq!(a.len(), 2);
    let (one_a, one_b) = (&a[0].workload, &b[0].workload);
    // One device's last ten minutes: a time range filtered on the device
    // under timestamp-first (one row kept per device), a prefix range under
    // device-first (every row read is returned).
    assert_eq!((one_a.op, one_b.op), (OpKind::Scan, OpKind::Scan));
    let keep = one_a.selectivity.unwrap();
    assert!((keep - 1.0 / 20_000.0).abs() < 1e-12, "{keep}");
    assert_eq!(one_b.selectivity, None);
    assert!(a[0].how.contains("filtered"), "{}", a[0].how);
    // Every device's last minute: a range under timestamp-first, a full
    // scan keeping 20,000 rows of the table half way through the run
    // under device-first.
    assert_eq!(a[1].workload.op, OpKind::Scan);
    assert_eq!(b[1].workload.op, OpKind::FullScan);
    let mid = 1_000_000.0 + 20_000.0 * 1800.0 / 2.0;
    let sel = b[1].workload.selectivity.unwrap();
    assert!((sel - 20_000.0 / mid).abs() < 1e-12, "{sel}");
    // A pattern without a rate is probed, not left out.
    let mut quiet = dev_first.clone();
    quiet.access[0].rate = 0.0;
    let cases = advisor::access_cases(&quiet);
    assert_eq!(cases[0].workload.rate, advisor::PROBE_RATE);
    assert!(
        advisor::access_workloads(&quiet).len() == 1,
        "rate 0 stays advisor-only there"
    );
}
