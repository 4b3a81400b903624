#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Production out: the exact scripts for cbt, gcloud and Terraform; cbt
// scripts (data as set lines or CSV files) replayed into a fresh instance
// give back the same tables and cells; what a tool cannot carry is left out
// with a warning; CSV in cbt import's format comes back in. (The same
// scripts replayed by the real cbt against the emulator are compared in
// tests/differential, export scenarios.)

use std::borrow::Cow;

use tabletop_sql::Instance;
use tabletop_store::AggregateInput;
use tabletop_store::Aggregator;
use tabletop_store::Code;
use tabletop_store::ColumnFamily;
use tabletop_store::CreateTableRequest;
use tabletop_store::GcRule;
use tabletop_store::InstanceConfig;
use tabletop_store::Mutation;
use tabletop_store::TableSchema;
use tabletop_store::ValueType;
use tabletop_translate::translate::{
    self, CsvImportOptions, DataFormat, Export, ExportFormat, ExportOptions, SplitSource,
};
use tabletop_wire::cbt::{self, MemFiles};

fn instance() -> Instance {
    let mut db = Instance::new(InstanceConfig {
        project: "my-project".into(),
        instance: "my-instance".into(),
        ..InstanceConfig::default()
    });
    db.set_now(1_600_000_000_000_000);
    db
}

fn run(db: &mut Instance, line: &str) {
    let out = cbt::exec_line(db, line, &mut MemFiles::default());
    assert!(out.status.is_ok(), "{line}: {}", out.stderr_lossy());
}

fn export(db: &mut Instance, format: ExportFormat, data: DataFormat) -> Export {
    translate::export(
        db,
        &ExportOptions {
            format,
            data,
            ..ExportOptions::default()
        },
    )
    .unwrap()
}

/// Runs an exported cbt script line by line (as bash splits them) with its
/// files at hand, into a fresh instance.
fn replay(e: &Export) -> Instance {
    let mut db = instance();
    let mut files = MemFiles::default();
    for f in &e.files {
        files.insert(f.name.clone(), f.contents.clone());
    }
    for line in e.main.text.lines() {
        let out = cbt::exec_line(&mut db, line, &mut files);
        assert!(out.status.is_ok(), "{line}: {}", out.stderr_lossy());
    }
    db
}

/// What `cbt ls`, `ls TABLE` and `read TABLE` print for every table.
fn views(db: &mut Instance) -> String {
    let mut out = cbt::run_line(db, "ls").unwrap();
    for t in db.list_tables() {
        for cmd in ["ls", "read"] {
            let args = [cmd.as_bytes(), t.id.as_bytes()];
            let o = cbt::exec_args(db, &args, &mut MemFiles::default());
            out.push_str(&String::from_utf8_lossy(&o.stdout));
        }
    }
    out
}

/// A design with a bit of everything: GC rules, an aggregate, split
/// points, versions, and bytes that `cbt set` cannot carry.
fn design() -> Instance {
    let mut db = instance();
    run(
        &mut db,
        "createtable t families=cf:maxversions=2,agg:never:intsum,old:maxage=30d 'splits=\"a,b\",m'",
    );
    run(
        &mut db,
        "set t row1 cf:q=v1@1000 cf:q=v2@2000 'cf:two words=x y@3000'",
    );
    run(&mut db, "set t $'\\xff\\x01' $'cf:\\xfe=\\x80@4000'");
    run(&mut db, "addtocell t row1 agg:n=5@0 agg:n=2@0");
    db.mutate_row(
        "t",
        b"r\x00nul",
        &[
            Mutation::set_cell("cf", b"k=v", 5000, b"a\x00b"),
            Mutation::set_cell("cf", b"nl", 6000, b"line 1\nline 2"),
            Mutation::set_cell("cf", b"", 7000, b"empty qualifier"),
        ],
    )
    .unwrap();
    db.mutate_row(
        "t",
        b"row2",
        &[Mutation::set_cell("cf", b"empty", 8000, b"")],
    )
    .unwrap();
    run(&mut db, "createtable bare");
    db
}

#[test]
fn a_cbt_script_says_exactly_this() {
    let mut db = design();
    let e = export(&mut db, ExportFormat::Cbt, DataFormat::Set);
    assert_eq!(e.main.name, "my-instance.cbt");
    assert_eq!(
        e.main.text,
        "\
# Tabletop export of projects/my-project/instances/my-instance: tables bare, t (cbt 1.23 syntax).
# Run it with bash from this directory (cbt on the PATH; set BIGTABLE_EMULATOR_HOST
# for the emulator), or replay it into Tabletop with: tabletop cbt < this-file

cbt -project my-project -instance my-instance createtable bare

cbt -project my-project -instance my-instance createtable t families=agg:never:intsum,cf:maxversions=2,old:maxage=30d 'splits=\"a,b\",m'
cbt -project my-project -instance my-instance addtocell t row1 agg:n=7@0
cbt -project my-project -instance my-instance set t row1 cf:q=v2@2000 cf:q=v1@1000 'cf:two words=x y@3000'
cbt -project my-project -instance my-instance set t row2 cf:empty=@8000
cbt -project my-project -instance my-instance set t $'\\xff\\x01' $'cf:\\xfe=\\x80@4000'
cbt -project my-project -instance my-instance import t t.csv timestamp=value-encoded
"
    );
    // The row whose key holds a NUL byte cannot pass through any argument:
    // its cells, like the values with NUL or a line break and the
    // qualifier with `=`, go to the CSV file.
    let [csv] = e.files.as_slice() else {
        panic!("{:?}", e.files)
    };
    assert_eq!(csv.name, "t.csv");
    assert_eq!(
        csv.contents,
        b",cf,cf,cf\n,k=v,,nl\nr\x00nul,a\x00b@5000,empty qualifier@7000,\"line 1\nline 2@6000\"\n"
    );
    assert!(e.warnings.is_empty(), "{:?}", e.warnings);
}

#[test]
fn cbt_scripts_replay_to_the_same_tables() {
    for data in [DataFormat::Set, DataFormat::Csv] {
        let mut db = design();
        let e = export(&mut db, ExportFormat::Cbt, data);
        let mut back = replay(&e);
        assert_eq!(
            views(&mut back),
            views(&mut db),
            "{data:?}\n{}",
            e.main.text
        );
    }
    // With --data none, only the schema comes back.
    let mut db = design();
    let e = export(&mut db, ExportFormat::Cbt, DataFormat::None);
    let mut back = replay(&e);
    assert_eq!(cbt::run_line(&mut back, "count t").unwrap(), "0\n");
    assert_eq!(
        cbt::run_line(&mut back, "ls t").unwrap(),
        cbt::run_line(&mut db, "ls t").unwrap()
    );
}

#[test]
fn translated_designs_replay_too() {
    let options = translate::Options {
        now_micros: 1_694_390_400_000_000,
        ..translate::Options::default()
    };
    let designs = [
        translate::from_oracle_ddl(
            include_str!("../../tests/translate_fixtures/oracle_shop.ddl"),
            include_str!("../../tests/translate_fixtures/oracle_shop_rows.json"),
            &options,
        )
        .unwrap(),
        translate::from_oracle_ddl(
            include_str!("../../tests/translate_fixtures/oracle_shop.ddl"),
            include_str!("../../tests/translate_fixtures/oracle_shop_rows.json"),
            &translate::Options {
                key_encoding: translate::KeyEncoding::Binary,
                ..options.clone()
            },
        )
        .unwrap(),
        translate::from_dynamodb(
            include_str!("../../tests/translate_fixtures/video_single_table.json"),
            &options,
        )
        .unwrap(),
        translate::from_dynamodb(
            include_str!("../../tests/translate_fixtures/invoices_adjacency.json"),
            &options,
        )
        .unwrap(),
        translate::from_dynamodb(
            include_str!("../../tests/translate_fixtures/product_catalog.json"),
            &options,
        )
        .unwrap(),
        translate::from_dynamodb(
            include_str!("../../tests/translate_fixtures/user_sessions.json"),
            &options,
        )
        .unwrap(),
    ];
    for t in designs {
        let mut db = t
            .to_instance(InstanceConfig::default(), options.now_micros)
            .unwrap();
        for data in [DataFormat::Set, DataFormat::Csv] {
            let e = export(&mut db, ExportFormat::Cbt, data);
            assert!(e.warnings.is_empty(), "{:?}", e.warnings);
            let mut back = replay(&e);
            assert_eq!(views(&mut back), views(&mut db), "{}: {data:?}", t.name);
        }
    }
}

#[test]
fn what_a_tool_cannot_carry_is_left_out_with_a_warning() {
    let mut db = instance();
    let mut schema = TableSchema::default();
    schema.families.insert("cf".into(), ColumnFamily::default());
    schema.families.insert(
        "u".into(),
        ColumnFamily {
            gc_rule: Some(GcRule::Union(vec![
                GcRule::MaxNumVersions(1),
                GcRule::MaxNumVersions(2),
                GcRule::MaxNumVersions(3),
            ])),
            value_type: ValueType::Bytes,
        },
    );
    schema.families.insert(
        "hll".into(),
        ColumnFamily {
            gc_rule: None,
            value_type: ValueType::Aggregate(Aggregator::HllppUniqueCount),
        },
    );
    schema.families.insert(
        "sum".into(),
        ColumnFamily {
            gc_rule: None,
            value_type: ValueType::Aggregate(Aggregator::Sum),
        },
    );
    db.create_table(CreateTableRequest {
        table_id: "w".into(),
        schema,
        initial_splits: vec![b"\xff\xfe".to_vec(), b"k\x00".to_vec()],
    })
    .unwrap();
    db.mutate_row(
        "w",
        b"r",
        &[
            Mutation::set_cell("cf", b"both", 1000, b"nul\x00 and crlf\r\n"),
            Mutation::AddToCell {
                family_name: Cow::Borrowed("hll"),
                column_qualifier: Cow::Borrowed(b"users"),
                timestamp_micros: 0,
                input: AggregateInput::Int(7),
            },
        ],
    )
    .unwrap();
    db.mutate_row(
        "w",
        b"nul\x00key",
        &[Mutation::AddToCell {
            family_name: Cow::Borrowed("sum"),
            column_qualifier: Cow::Borrowed(b"n"),
            timestamp_micros: 0,
            input: AggregateInput::Int(1),
        }],
    )
    .unwrap();
    let e = export(&mut db, ExportFormat::Cbt, DataFormat::Set);
    let warnings = e.warnings.join("\n");
    for want in [
        "family u: cbt writes the GC rule",
        "the split key k\\x00 holds a NUL byte",
        "hll:users @0: a HyperLogLog sketch cannot be written",
        "row nul\\x00key, sum:n @0: the row key or qualifier cannot pass through cbt addtocell",
        "cf:both @1000: neither cbt set",
    ] {
        assert!(warnings.contains(want), "{want}\n{warnings}");
    }
    assert!(
        e.main
            .text
            .contains("u:maxversions=1 || maxversions=2 || maxversions=3"),
        "{}",
        e.main.text
    );
    let g = export(&mut db, ExportFormat::Gcloud, DataFormat::Set);
    assert!(
        g.warnings
            .iter()
            .any(|w| w.contains("split key \\xff\\xfe")),
        "{:?}",
        g.warnings
    );
    let tf = export(&mut db, ExportFormat::Terraform, DataFormat::Set);
    assert!(
        tf.warnings.iter().any(|w| w.contains("not UTF-8")),
        "{:?}",
        tf.warnings
    );
    assert!(
        tf.main.text.contains("split_keys    = [\"k\\u0000\"]"),
        "{}",
        tf.main.text
    );
}

#[test]
fn gcloud_commands_say_exactly_this() {
    let mut db = instance();
    run(
        &mut db,
        "createtable events 'families=hot:maxage=1d,cold:maxversions=3||maxage=90d,both:(maxage=1h&&maxversions=2)||maxversions=5,counts:never:intsum' 'splits=\"a,b\",z'",
    );
    run(
        &mut db,
        "createtable totals families=n:never:intmax splits=m",
    );
    let e = export(&mut db, ExportFormat::Gcloud, DataFormat::Set);
    assert_eq!(e.main.name, "my-instance.gcloud.sh");
    assert_eq!(
        e.main.text,
        "\
#!/usr/bin/env bash
# Tabletop export of projects/my-project/instances/my-instance for gcloud: tables, column
# families, GC rules and split points. gcloud has no command that writes
# rows: load the data with `tabletop export --format cbt` (cbt set/import).
# What --column-families cannot say (nested GC rules, aggregate types) is
# added with cbt.
set -euo pipefail

gcloud bigtable instances tables create events \\
  --project=my-project \\
  --instance=my-instance \\
  --column-families='both,cold:maxversions=3||maxage=90d,hot:maxage=1d' \\
  --splits='^;^a,b;z'
cbt -project my-project -instance my-instance setgcpolicy events both '(maxage=1h && maxversions=2) || maxversions=5'
cbt -project my-project -instance my-instance createfamily events counts:never:intsum

# gcloud needs a family without an aggregate type; cbt creates this table.
cbt -project my-project -instance my-instance createtable totals splits=m
cbt -project my-project -instance my-instance createfamily totals n:never:intmax
"
    );
    assert!(e.files.is_empty() && e.warnings.is_empty());
}

#[test]
fn terraform_says_exactly_this() {
    let mut db = instance();
    run(
        &mut db,
        "createtable 9lives.v2 'families=cf:maxage=36h,n:never:intsum,x:(maxage=1h&&maxversions=2)||maxversions=5' splits=b,a",
    );
    let e = export(&mut db, ExportFormat::Terraform, DataFormat::Set);
    assert_eq!(e.main.name, "my-instance.tf");
    assert_eq!(
        e.main.text,
        r#"# Tabletop export of projects/my-project/instances/my-instance for Terraform (hashicorp/google):
# tables, column families, split keys and GC policies. Terraform creates no
# rows: load the data with `tabletop export --format cbt`.

variable "project" {
  type    = string
  default = "my-project"
}

variable "instance_name" {
  type    = string
  default = "my-instance"
}

resource "google_bigtable_table" "t_9lives_v2" {
  project       = var.project
  name          = "9lives.v2"
  instance_name = var.instance_name
  split_keys    = ["a", "b"]

  column_family {
    family = "cf"
  }

  column_family {
    family = "n"
    type   = "intsum"
  }

  column_family {
    family = "x"
  }
}

resource "google_bigtable_gc_policy" "t_9lives_v2_cf" {
  project         = var.project
  instance_name   = google_bigtable_table.t_9lives_v2.instance_name
  table           = google_bigtable_table.t_9lives_v2.name
  column_family   = "cf"
  deletion_policy = "ABANDON"
  gc_rules        = jsonencode({ rules = [{ max_age = "36h" }] })
}

resource "google_bigtable_gc_policy" "t_9lives_v2_x" {
  project         = var.project
  instance_name   = google_bigtable_table.t_9lives_v2.instance_name
  table           = google_bigtable_table.t_9lives_v2.name
  column_family   = "x"
  deletion_policy = "ABANDON"
  gc_rules        = jsonencode({ mode = "union", rules = [{ mode = "intersection", rules = [{ max_age = "1h" }, { max_version = 2 }] }, { max_version = 5 }] })
}
"#
    );
}

#[test]
fn tables_splits_and_names_can_be_chosen() {
    let mut db = design();
    let e = translate::export(
        &mut db,
        &ExportOptions {
            tables: vec!["bare".into()],
            project: Some("p".into()),
            instance: Some("i".into()),
            ..ExportOptions::default()
        },
    )
    .unwrap();
    assert!(
        e.main
            .text
            .contains("cbt -project p -instance i createtable bare\n")
    );
    assert!(!e.main.text.contains("createtable t "));
    let err = translate::export(
        &mut db,
        &ExportOptions {
            tables: vec!["nope".into()],
            ..ExportOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    // The current tablet boundaries instead of the initial splits.
    let tablets = translate::export(
        &mut db,
        &ExportOptions {
            tables: vec!["t".into()],
            splits: SplitSource::Tablets,
            data: DataFormat::None,
            ..ExportOptions::default()
        },
    )
    .unwrap();
    assert!(
        tablets.main.text.contains("'splits=\"a,b\",m'"),
        "{}",
        tablets.main.text
    );
}

#[test]
fn cbt_csv_comes_back_in() {
    let mut db = design();
    let e = export(&mut db, ExportFormat::Cbt, DataFormat::Csv);
    let csv = e.files.iter().find(|f| f.name == "t.csv").unwrap();
    // Into a fresh instance: the table is created from the header.
    let mut fresh = instance();
    let report =
        translate::import_cbt_csv(&mut fresh, "t", &csv.contents, &CsvImportOptions::default())
            .unwrap();
    assert!(report.created_table);
    assert_eq!(report.families, ["cf"]);
    let mut original = CollectCells::default();
    let mut imported = CollectCells::default();
    for (db, out) in [(&mut db, &mut original), (&mut fresh, &mut imported)] {
        db.read_rows(
            "t",
            &tabletop_store::ReadRowsRequest::default(),
            &mut |r: tabletop_store::RowView<'_>| {
                for c in r.cells.iter().filter(|c| c.family == "cf") {
                    out.0.push((
                        r.key.to_vec(),
                        c.qualifier.to_vec(),
                        c.timestamp_micros,
                        c.value.to_vec(),
                    ));
                }
                true
            },
        )
        .unwrap();
    }
    // Every plain cell but the empty value (which CSV cannot carry).
    original.0.retain(|c| !c.3.is_empty());
    assert_eq!(imported.0, original.0);
    // Malformed CSV is refused with cbt's message and position.
    let err = translate::import_cbt_csv(
        &mut fresh,
        "u",
        b",cf\n,q\nk,\"x\n",
        &CsvImportOptions::default(),
    )
    .unwrap_err();
    assert!(err.message().contains("line"), "{err}");
    assert!(
        fresh.get_table("u").is_err(),
        "a failed import leaves no new table behind"
    );
}

#[derive(Default)]
struct CollectCells(Vec<Cell>);

/// Row key, qualifier, timestamp, value.
type Cell = (Vec<u8>, Vec<u8>, i64, Vec<u8>);
