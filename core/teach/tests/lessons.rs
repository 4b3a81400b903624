//! Every lesson in `static/lessons/`: it parses, its check fails on the
//! starting state, and it passes after the intended solution (kept in
//! `tests/lesson_solutions/`, never shown to learners).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use serde::Deserialize;
use tabletop_teach::advisor::RuleId;
use tabletop_teach::lesson::{self, Catalog, Lesson, Progress, Session};

/// Solutions by lesson id.
const SOLUTIONS: &[(&str, &str)] = &[
    (
        "row-ranges",
        include_str!("../../tests/lesson_solutions/row-ranges.toml"),
    ),
    (
        "delimited-keys",
        include_str!("../../tests/lesson_solutions/delimited-keys.toml"),
    ),
    (
        "zero-padding",
        include_str!("../../tests/lesson_solutions/zero-padding.toml"),
    ),
    (
        "general-to-specific",
        include_str!("../../tests/lesson_solutions/general-to-specific.toml"),
    ),
    (
        "reverse-timestamps",
        include_str!("../../tests/lesson_solutions/reverse-timestamps.toml"),
    ),
    (
        "timestamp-first",
        include_str!("../../tests/lesson_solutions/timestamp-first.toml"),
    ),
    (
        "sequential-ids",
        include_str!("../../tests/lesson_solutions/sequential-ids.toml"),
    ),
    (
        "new-rows-not-updates",
        include_str!("../../tests/lesson_solutions/new-rows-not-updates.toml"),
    ),
    (
        "hashed-keys",
        include_str!("../../tests/lesson_solutions/hashed-keys.toml"),
    ),
    (
        "salting",
        include_str!("../../tests/lesson_solutions/salting.toml"),
    ),
    (
        "multi-tenant",
        include_str!("../../tests/lesson_solutions/multi-tenant.toml"),
    ),
    (
        "reverse-domains",
        include_str!("../../tests/lesson_solutions/reverse-domains.toml"),
    ),
    (
        "gc-versions-age",
        include_str!("../../tests/lesson_solutions/gc-versions-age.toml"),
    ),
    (
        "family-grouping",
        include_str!("../../tests/lesson_solutions/family-grouping.toml"),
    ),
    (
        "qualifiers-as-data",
        include_str!("../../tests/lesson_solutions/qualifiers-as-data.toml"),
    ),
    (
        "wide-rows",
        include_str!("../../tests/lesson_solutions/wide-rows.toml"),
    ),
    (
        "one-row-atomic",
        include_str!("../../tests/lesson_solutions/one-row-atomic.toml"),
    ),
    (
        "aggregate-counters",
        include_str!("../../tests/lesson_solutions/aggregate-counters.toml"),
    ),
    (
        "serialized-cell",
        include_str!("../../tests/lesson_solutions/serialized-cell.toml"),
    ),
    (
        "dynamo-catalog",
        include_str!("../../tests/lesson_solutions/dynamo-catalog.toml"),
    ),
    (
        "dynamo-video",
        include_str!("../../tests/lesson_solutions/dynamo-video.toml"),
    ),
    (
        "dynamo-invoices",
        include_str!("../../tests/lesson_solutions/dynamo-invoices.toml"),
    ),
    (
        "oracle-ttl",
        include_str!("../../tests/lesson_solutions/oracle-ttl.toml"),
    ),
    (
        "key-hygiene",
        include_str!("../../tests/lesson_solutions/key-hygiene.toml"),
    ),
    (
        "sql-secondary-index",
        include_str!("../../tests/lesson_solutions/sql-secondary-index.toml"),
    ),
];

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
    fix: Option<String>,
    choose: Option<String>,
    scenario: Option<String>,
    simulate: Option<bool>,
    /// Reads one entity's rows of this table: the first segment of its
    /// first row, as a prefix, five rows.
    read_first_segment: Option<String>,
}

fn catalog() -> Catalog {
    lesson::builtin().expect("the shipped lessons parse")
}

fn run_step(s: &mut Session, step: &Step, id: &str) {
    if let Some(line) = &step.cbt {
        let out = s.run_cbt(line);
        assert!(
            out.status.is_ok(),
            "{id}: `{line}` failed: {:?}",
            out.status
        );
    }
    if let Some(line) = &step.json {
        let out = s.run_json(line);
        assert!(!out.contains("\"error\""), "{id}: {line} answered {out}");
    }
    if let Some(rule) = &step.fix {
        let rule = RuleId::from_name(rule).unwrap_or_else(|| panic!("{id}: unknown rule {rule}"));
        let findings = s.findings();
        let f = findings
            .iter()
            .find(|f| f.rule == rule)
            .unwrap_or_else(|| panic!("{id}: no {rule} finding in {findings:#?}"));
        let fix = match &step.choose {
            Some(c) => f
                .fixes
                .iter()
                .find(|x| x.title.contains(c.as_str()))
                .unwrap_or_else(|| panic!("{id}: no fix of {rule} says {c:?}: {:#?}", f.fixes)),
            None => f
                .fixes
                .first()
                .unwrap_or_else(|| panic!("{id}: {rule} has no fix")),
        };
        s.apply_fix(fix)
            .unwrap_or_else(|e| panic!("{id}: fix {:?}: {e}", fix.title));
    }
    if let Some(text) = &step.scenario {
        s.set_scenario_toml(text)
            .unwrap_or_else(|e| panic!("{id}: scenario: {e}"));
    }
    if step.simulate == Some(true) {
        s.simulate()
            .unwrap_or_else(|e| panic!("{id}: simulate: {e}"));
    }
    if let Some(table) = &step.read_first_segment {
        let out = s.run_cbt(&format!("read {table} count=1 keys-only=true"));
        let text = out.stdout_lossy();
        let first = text
            .lines()
            .find(|l| !l.trim().is_empty() && !l.starts_with('-'))
            .unwrap_or_else(|| panic!("{id}: {table} has no rows: {text}"))
            .trim()
            .to_string();
        let seg = first.split('#').next().unwrap_or_default();
        let out = s.run_cbt(&format!("read {table} prefix={seg}# count=5"));
        assert!(out.status.is_ok(), "{id}: {:?}", out.status);
    }
}

/// Starts the lesson, checks that it fails, solves it, checks that it
/// passes.
fn solve(id: &str) {
    let cat = catalog();
    let mut s = cat.start(id).unwrap_or_else(|e| panic!("{id}: setup: {e}"));
    let before = s.check();
    assert!(
        !before.passed,
        "{id} passes before it is solved: {before:#?}"
    );
    let text = SOLUTIONS
        .iter()
        .find(|(l, _)| *l == id)
        .map(|(_, t)| *t)
        .unwrap_or_else(|| panic!("no solution for {id}"));
    let solution: Solution = toml::from_str(text).unwrap_or_else(|e| panic!("{id}: solution: {e}"));
    for step in &solution.step {
        run_step(&mut s, step, id);
    }
    let after = s.check();
    assert!(after.passed, "{id} fails after its solution: {after:#?}");
}

macro_rules! lessons {
    ($($name:ident => $id:literal,)*) => {
        $(
            #[test]
            fn $name() {
                solve($id);
            }
        )*

        const TESTED: &[&str] = &[$($id),*];
    };
}

lessons! {
    solves_row_ranges => "row-ranges",
    solves_delimited_keys => "delimited-keys",
    solves_zero_padding => "zero-padding",
    solves_general_to_specific => "general-to-specific",
    solves_reverse_timestamps => "reverse-timestamps",
    solves_timestamp_first => "timestamp-first",
    solves_sequential_ids => "sequential-ids",
    solves_new_rows_not_updates => "new-rows-not-updates",
    solves_hashed_keys => "hashed-keys",
    solves_salting => "salting",
    solves_multi_tenant => "multi-tenant",
    solves_reverse_domains => "reverse-domains",
    solves_gc_versions_age => "gc-versions-age",
    solves_family_grouping => "family-grouping",
    solves_qualifiers_as_data => "qualifiers-as-data",
    solves_wide_rows => "wide-rows",
    solves_one_row_atomic => "one-row-atomic",
    solves_aggregate_counters => "aggregate-counters",
    solves_serialized_cell => "serialized-cell",
    solves_dynamo_catalog => "dynamo-catalog",
    solves_dynamo_video => "dynamo-video",
    solves_dynamo_invoices => "dynamo-invoices",
    solves_oracle_ttl => "oracle-ttl",
    solves_key_hygiene => "key-hygiene",
    solves_sql_secondary_index => "sql-secondary-index",
}

/// Other ways to solve a lesson that must pass too.
#[test]
fn lessons_accept_other_good_solutions() {
    let cat = catalog();
    // Salting instead of moving the timestamp also evens out the heatmap.
    let mut s = cat.start("timestamp-first").unwrap();
    run_step(
        &mut s,
        &Step {
            cbt: None,
            json: None,
            fix: Some("timestamp_first".into()),
            choose: Some("salt".into()),
            scenario: None,
            simulate: Some(true),
            read_first_segment: None,
        },
        "timestamp-first",
    );
    let v = s.check();
    assert!(v.passed, "{v:#?}");
    // A range instead of a prefix.
    let mut s = cat.start("row-ranges").unwrap();
    s.run_cbt("read mobile start=phone#4c410523#20200501 end=phone#4c410523#20200601");
    assert!(s.check().passed);
    // But not a read that is still a scan, nor one of the wrong rows.
    s.run_cbt("read mobile regex=phone#4c410523#202005.. count=30");
    assert!(!s.check().passed);
    s.run_cbt("read mobile prefix=phone#4c410523#202004");
    assert!(!s.check().passed);
}

#[test]
fn every_lesson_parses_has_a_solution_and_a_test() {
    let cat = catalog();
    let ids: Vec<&str> = cat.lessons().iter().map(|l| l.id.as_str()).collect();
    assert!(ids.len() >= 16, "{ids:?}");
    assert_eq!(ids.len(), lesson::lesson_files().len());
    for id in &ids {
        assert!(
            SOLUTIONS.iter().any(|(s, _)| s == id),
            "no solution for {id}"
        );
        assert!(TESTED.contains(id), "no test for {id}");
    }
    for (s, _) in SOLUTIONS {
        assert!(ids.contains(s), "solution for unknown lesson {s}");
    }
    // In order, numbered 1..n.
    let orders: Vec<u32> = cat.lessons().iter().map(|l| l.order).collect();
    assert_eq!(orders, (1..=ids.len() as u32).collect::<Vec<_>>());
    for l in cat.lessons() {
        assert!(
            !l.goal.is_empty() && !l.task.is_empty() && !l.hint.is_empty(),
            "{}",
            l.id
        );
        assert!(!l.takeaway.is_empty(), "{} has no takeaway", l.id);
        assert!(!l.checks.is_empty(), "{}", l.id);
        assert!(
            l.checks.iter().all(|c| c.says.is_some()),
            "{}: every check says what it wants",
            l.id
        );
        assert!(!l.seed.is_empty() && !l.topics.is_empty(), "{}", l.id);
    }
}

#[test]
fn every_rule_links_to_a_lesson_that_lists_it() {
    let cat = catalog();
    for rule in RuleId::ALL {
        let l = cat
            .lesson(rule.info().lesson)
            .unwrap_or_else(|| panic!("{rule}: lesson {} does not exist", rule.info().lesson));
        assert!(
            l.rules.contains(&rule),
            "{rule}: lesson {} does not list it",
            l.id
        );
        assert_eq!(
            cat.lesson_for_rule(rule).map(|l| l.id.as_str()),
            Some(rule.info().lesson)
        );
    }
}

#[test]
fn lessons_cover_every_topic_of_the_issue() {
    let cat = catalog();
    let all: String = cat
        .lessons()
        .iter()
        .flat_map(|l| l.topics.iter())
        .map(|t| t.to_lowercase())
        .collect::<Vec<_>>()
        .join(" | ");
    for topic in [
        "full table scans",
        "delimiters",
        "zero-padding",
        "general-to-specific",
        "reversed timestamps",
        "timestamp-first hotspots",
        "sequential numeric ids",
        "reversed ids",
        "frequently updated values stored as new rows",
        "hashed row keys",
        "salting",
        "multi-tenancy by row-key prefix",
        "deleting a tenant by prefix",
        "reversed domain names",
        "column families",
        "garbage collection by number of versions",
        "garbage collection by age",
        "column qualifiers as data",
        "wide rows",
        "single-row atomicity",
        "aggregate (sum) cells for counters",
        "one serialized cell",
        "dynamodb to bigtable",
        "dynamodb single-table design",
        "dynamodb adjacency-list",
        "oracle nosql typed table",
        "shard key",
        "ttl",
    ] {
        assert!(all.contains(topic), "no lesson covers {topic:?}: {all}");
    }
}

#[test]
fn lesson_errors_name_the_line() {
    let good = lesson::lesson_files()[0];
    let bad = good.replace("kind = \"last_read\"", "kind = \"last_reed\"");
    let e = Lesson::from_toml(&bad).unwrap_err();
    assert!(e.message().contains("check #1"), "{}", e.message());
    assert!(e.message().contains("line "), "{}", e.message());
    let bad = good.replace("max_rows_scanned = 30", "max_rows_scaned = 30");
    let e = Lesson::from_toml(&bad).unwrap_err();
    assert!(e.message().contains("max_rows_scaned"), "{}", e.message());
    let bad = good.replace("title = ", "titel = ");
    let e = Lesson::from_toml(&bad).unwrap_err();
    assert!(e.message().contains("line 2"), "{}", e.message());
    let bad = good.replace(
        "rules = [\"unqueryable_suffix\"]",
        "rules = [\"no_such_rule\"]",
    );
    assert!(Lesson::from_toml(&bad).is_err());
    let bad = good.replace("shape = \"single_range\"", "shape = \"diagonal\"");
    assert!(
        Lesson::from_toml(&bad)
            .unwrap_err()
            .message()
            .contains("read shape")
    );
    assert!(Lesson::from_toml("").is_err());
    assert!(Lesson::from_toml("id = [").is_err());
    // A scenario that does not exist.
    let mut cat = Catalog::new();
    let e = cat.add_lesson_toml(lesson::lesson_files()[1]).unwrap_err();
    assert!(
        e.message().contains("lesson_device_only.toml"),
        "{}",
        e.message()
    );
}

#[test]
fn progress_is_plain_json_and_tolerant() {
    let cat = catalog();
    let mut p = Progress::from_json("not json");
    assert_eq!(p, Progress::default());
    assert_eq!(p.next(&cat).map(|l| l.id.as_str()), Some("row-ranges"));
    p.complete("row-ranges");
    let back = Progress::from_json(&p.to_json());
    assert_eq!(back, p);
    assert_eq!(
        back.next(&cat).map(|l| l.id.as_str()),
        Some("delimited-keys")
    );
}

#[test]
fn a_session_shows_findings_with_lessons_and_applies_fixes() {
    let cat = catalog();
    let mut s = cat.start("timestamp-first").unwrap();
    let findings = s.findings();
    let f = findings
        .iter()
        .find(|f| f.rule == RuleId::TimestampFirst)
        .unwrap();
    assert_eq!(f.lesson, "timestamp-first");
    let preview = f.fixes[0].preview.as_ref().unwrap();
    assert!(preview.resolves, "{preview:?}");
    assert!(
        preview.example_keys.iter().all(|k| !k.starts_with("15")),
        "{preview:?}"
    );
    let toml_before = s.scenario_toml().unwrap();
    s.apply_fix(&f.fixes[0].clone()).unwrap();
    let toml_after = s.scenario_toml().unwrap();
    assert_ne!(toml_before, toml_after);
    assert!(
        s.findings()
            .iter()
            .all(|f| f.rule != RuleId::TimestampFirst)
    );
    // The edited design round-trips through its TOML.
    s.set_scenario_toml(&toml_after).unwrap();
    assert_eq!(s.scenario_toml().unwrap(), toml_after);
    // A report belongs to the design it was made for.
    s.simulate().unwrap();
    assert!(s.fresh_report().is_some());
    s.set_scenario_toml(&toml_before).unwrap();
    assert!(s.fresh_report().is_none());
    let v = s.check();
    assert!(!v.passed);
    assert!(v.message.contains("of 2 checks pass"), "{}", v.message);
}

#[test]
fn sessions_record_reads_from_cbt_json_and_requests() {
    let cat = catalog();
    let mut s = cat.start("row-ranges").unwrap();
    let r = s.last_read().unwrap();
    assert_eq!(r.shape.name(), "full_scan");
    assert_eq!(r.rows_scanned, 360);
    assert_eq!(r.rows_returned, 30);
    s.run_cbt("lookup mobile phone#4c410523#20200501");
    assert_eq!(s.last_read().unwrap().shape.name(), "point");
    // "phone#4c410523#2020050" and "...#2020051" in base64.
    let line = r#"{"method":"readRows","request":{"tableName":"projects/p/instances/i/tables/mobile","rows":{"rowRanges":[{"startKeyClosed":"cGhvbmUjNGM0MTA1MjMjMjAyMDA1MA==","endKeyOpen":"cGhvbmUjNGM0MTA1MjMjMjAyMDA1MQ=="}]}}}"#;
    let out = s.run_json(line);
    assert!(out.contains("\"rows\""), "{out}");
    let r = s.last_read().unwrap();
    assert_eq!(
        (r.shape.name(), r.rows_returned, r.rows_scanned),
        ("single_range", 9, 9)
    );
    // A failed command records nothing.
    s.run_cbt("read no_such_table");
    assert_eq!(s.last_read().unwrap().rows_returned, 9);
    let req = tabletop_store::ReadRowsRequest::rows(tabletop_store::RowSet::range(
        tabletop_store::RowRange::prefix(b"tablet#".to_vec()),
    ));
    let (rows, stats) = s.read("mobile", &req).unwrap();
    assert_eq!(rows.len(), 180);
    assert_eq!(stats.rows_seen, 180);
    assert_eq!(s.last_read().unwrap().rows_returned, 180);
}

#[test]
fn lessons_without_a_design_refuse_design_edits() {
    let cat = catalog();
    let mut s = cat.start("gc-versions-age").unwrap();
    assert!(s.scenario().is_none());
    assert!(
        s.set_scenario_toml(cat.scenario_text("multi_tenant.toml").unwrap())
            .is_err()
    );
    assert!(s.prepare_simulation().is_err());
    assert!(s.access_plans().is_empty());
    assert!(cat.start("no-such-lesson").is_err());
}

/// Rows of `table` in `s`'s instance.
fn rows_in(s: &Session, table: &str) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    let mut sink = |row: tabletop_store::RowView<'_>| {
        keys.push(row.key.to_vec());
        true
    };
    s.instance()
        .clone()
        .read_rows(
            table,
            &tabletop_store::ReadRowsRequest::default(),
            &mut sink,
        )
        .unwrap();
    keys
}

#[test]
fn a_host_writes_the_sample_rows_in_slices_and_gets_the_same_rows() {
    let catalog = lesson::builtin().unwrap();
    let now = catalog.start("reverse-timestamps").unwrap();
    let expected = rows_in(&now, "readings");
    assert!(expected.len() > 1_000, "{}", expected.len());

    let mut s = catalog
        .start_with("reverse-timestamps", lesson::SampleWriting::Host)
        .unwrap();
    assert!(rows_in(&s, "readings").is_empty(), "the table waits, empty");
    let mut pending = s.take_sample().expect("the rows are handed over");
    assert!(s.take_sample().is_none(), "once");
    assert_eq!(pending.table, "readings");
    let mut slices = 0;
    while pending
        .rows
        .write_batch(s.instance_mut(), &pending.table, 100)
        .unwrap()
        > 0
    {
        slices += 1;
    }
    assert!(slices >= 10, "{slices}");
    assert_eq!(rows_in(&s, "readings"), expected);

    // A new design: the old sample table goes, a new one waits for rows.
    let mut design = s.scenario().unwrap().clone();
    design.table.id = "readings_by_machine".into();
    s.set_scenario(design).unwrap();
    assert!(!s.instance().has_table("readings"));
    let next = s.take_sample().expect("rows of the new design");
    assert_eq!(next.table, "readings_by_machine");
}

#[test]
fn a_table_the_lesson_did_not_make_is_never_replaced() {
    let catalog = lesson::builtin().unwrap();
    let mut s = catalog
        .start_with("reverse-timestamps", lesson::SampleWriting::Host)
        .unwrap();
    let _ = s.take_sample();
    s.run_cbt("createtable mine families=cf").status.unwrap();
    s.run_cbt("set mine r1 cf:c=kept").status.unwrap();
    let mut design = s.scenario().unwrap().clone();
    let before = design.clone();
    design.table.id = "mine".into();
    let err = s.set_scenario(design).unwrap_err();
    assert!(err.message().contains("\"mine\" exists"), "{err}");
    assert_eq!(rows_in(&s, "mine"), vec![b"r1".to_vec()]);
    // The design stays as it was, with its sample table.
    assert_eq!(s.scenario(), Some(&before));
    assert!(s.instance().has_table("readings"));
}

#[test]
fn a_learner_can_choose_how_many_sample_rows_a_lesson_keeps() {
    let catalog = lesson::builtin().unwrap();
    let own = catalog.start("reverse-timestamps").unwrap();
    let lesson_size = own.sample_size().expect("the lesson keeps sample rows");
    assert_eq!(lesson_size, 2000, "the lesson's own, small size");

    // Started at another size: that many rows are handed over.
    let mut s = catalog
        .start_sized(
            "reverse-timestamps",
            lesson::SampleWriting::Host,
            Some(10_000),
        )
        .unwrap();
    assert_eq!(s.sample_size(), Some(10_000));
    let pending = s.take_sample().expect("the rows are handed over");
    assert_eq!(pending.rows.target(), 10_000);

    // A new size rewrites them: the table is made again, empty, and the
    // new number of rows waits for the host.
    assert!(s.set_sample_rows(Some(1_000)).unwrap());
    assert_eq!(s.sample_size(), Some(1_000));
    assert!(rows_in(&s, "readings").is_empty());
    let mut pending = s.take_sample().expect("rows at the new size");
    while pending
        .rows
        .write_batch(s.instance_mut(), &pending.table, 500)
        .unwrap()
        > 0
    {}
    assert_eq!(rows_in(&s, "readings").len(), 1_000);
    // The same size again changes nothing; back to the lesson's own.
    assert!(!s.set_sample_rows(Some(1_000)).unwrap());
    assert!(s.take_sample().is_none());
    assert!(s.set_sample_rows(None).unwrap());
    assert_eq!(s.sample_size(), Some(lesson_size));
    // Out of range is clamped to what the simulator makes.
    s.set_sample_rows(Some(0)).unwrap();
    assert_eq!(s.sample_size(), Some(1));

    // Written at once, by the session: the chosen size lands.
    let now = catalog
        .start_sized("reverse-timestamps", lesson::SampleWriting::Now, Some(500))
        .unwrap();
    assert_eq!(rows_in(&now, "readings").len(), 500);

    // A lesson that keeps no sample rows has no size to change.
    let id = catalog
        .lessons()
        .iter()
        .find(|l| l.setup.materialize.is_none())
        .map(|l| l.id.clone())
        .expect("most lessons keep no sample rows");
    let mut plain = catalog
        .start_sized(&id, lesson::SampleWriting::Host, Some(5_000))
        .unwrap();
    assert_eq!(plain.sample_size(), None);
    assert!(!plain.set_sample_rows(Some(7_000)).unwrap());
    assert!(plain.take_sample().is_none());
}
