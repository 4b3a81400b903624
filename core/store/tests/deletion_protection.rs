//! Deletion protection: a protected table, and its families, cannot be
//! deleted; everything else still works; the flag survives a snapshot.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_store::*;

const DAY: i64 = 86_400_000_000;

fn table() -> Instance {
    let mut db = Instance::new(InstanceConfig {
        project: "p".into(),
        instance: "i".into(),
        simulated_clock: true,
        ..InstanceConfig::default()
    });
    db.set_now(1_700_000_000_000_000);
    let mut schema = TableSchema::default();
    for family in ["cf", "old"] {
        schema
            .families
            .insert(family.into(), ColumnFamily::with_gc(None));
    }
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: vec![],
    })
    .expect("create");
    db.mutate_row("t", b"r", &[Mutation::set_cell("cf", b"q", 1000, b"v")])
        .expect("write");
    db
}

fn row_count(db: &mut Instance) -> usize {
    let mut rows = CollectRows::default();
    db.read_rows("t", &ReadRowsRequest::default(), &mut rows)
        .expect("read");
    rows.rows.len()
}

#[test]
fn protected_tables_and_families_are_refused_and_left_whole() {
    let mut db = table();
    assert!(!db.get_table("t").unwrap().deletion_protection);
    let info = db.set_deletion_protection("t", true).expect("protect");
    assert!(info.deletion_protection);

    let e = db.delete_table("t").unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e}");
    let e = db
        .modify_column_families(
            "t",
            &[
                FamilyChange::Create("new".into(), ColumnFamily::with_gc(None)),
                FamilyChange::Drop("old".into()),
            ],
        )
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e}");
    let families = db.get_table("t").unwrap().schema.families;
    assert!(families.contains_key("old") && !families.contains_key("new"));
    assert_eq!(row_count(&mut db), 1);

    // Writes and new families are not what the flag guards.
    db.mutate_row("t", b"s", &[Mutation::set_cell("cf", b"q", 1000, b"v")])
        .expect("write");
    db.modify_column_families(
        "t",
        &[FamilyChange::Create(
            "new".into(),
            ColumnFamily::with_gc(None),
        )],
    )
    .expect("a new family");
    assert_eq!(row_count(&mut db), 2);

    db.set_deletion_protection("t", false).expect("unprotect");
    db.modify_column_families("t", &[FamilyChange::Drop("old".into())])
        .expect("drop");
    db.delete_table("t").expect("delete");
    assert_eq!(
        db.set_deletion_protection("t", true).unwrap_err().code(),
        Code::NotFound
    );
}

#[test]
fn a_snapshot_keeps_the_flag_beside_a_change_stream() {
    let mut db = table();
    db.set_change_stream("t", Some(ChangeStreamConfig::new(DAY).expect("a day")))
        .expect("stream");
    db.set_deletion_protection("t", true).expect("protect");
    let bytes = db.snapshot();
    assert_eq!(
        bytes[8], 7,
        "a protected table makes the snapshot version 7"
    );
    let mut back = Instance::restore(&bytes).expect("restore");
    let info = back.get_table("t").unwrap();
    assert!(info.deletion_protection && info.change_stream.is_some());
    assert_eq!(
        back.delete_table("t").unwrap_err().code(),
        Code::FailedPrecondition
    );
    assert_eq!(back.snapshot(), bytes, "restored as it was saved");

    // Unprotected again, the snapshot is the version it was before.
    back.set_deletion_protection("t", false).expect("unprotect");
    assert_eq!(back.snapshot()[8], 5);
    let mut plain = table();
    assert!(plain.snapshot()[8] < 5);
}

/// Version 7 carries the fidelity of version 6 too: an instance answering
/// as the emulator keeps both its fidelity and its protected tables.
#[test]
fn an_emulator_instance_keeps_its_fidelity_and_its_protected_tables() {
    let mut db = table();
    db.switch_fidelity(Fidelity::Emulator).expect("switch");
    db.set_deletion_protection("t", true).expect("protect");
    let bytes = db.snapshot();
    assert_eq!(bytes[8], 7);
    let mut back = Instance::restore(&bytes).expect("restore");
    assert_eq!(back.fidelity(), Fidelity::Emulator);
    assert!(back.get_table("t").unwrap().deletion_protection);
    assert_eq!(back.snapshot(), bytes, "restored as it was saved");
    // Unprotected again, the emulator's instance writes version 6.
    back.set_deletion_protection("t", false).expect("unprotect");
    assert_eq!(back.snapshot()[8], 6);
}
