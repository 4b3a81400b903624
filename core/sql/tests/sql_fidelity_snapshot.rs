//! An instance answering as Google's emulator (`Fidelity::Emulator`) keeps
//! answering so after a snapshot and a restore: what it holds may be what
//! only the emulator accepts (a row written up to its failing mutation),
//! so the state file, the playground's autosave and the JS package's
//! snapshots carry the setting with the data.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::borrow::Cow;

use tabletop_sql::{Instance, Instances};
use tabletop_store::*;

fn instance(fidelity: Fidelity) -> Instance {
    let mut db = Instance::default();
    db.switch_fidelity(fidelity).unwrap();
    db.create_table(CreateTableRequest::with_families(
        "t",
        [("cf", ColumnFamily::with_gc(None))],
    ))
    .expect("create table");
    db
}

/// A write naming a family the table lacks: production's NOT_FOUND, the
/// emulator's UNKNOWN.
fn unknown_family_code(db: &mut Instance) -> Code {
    let m = Mutation::SetCell {
        family_name: Cow::Borrowed("nope"),
        column_qualifier: Cow::Borrowed(b"q"),
        timestamp_micros: 1000,
        value: Cow::Borrowed(b"v"),
    };
    db.mutate_row("t", b"r", &[m]).unwrap_err().code()
}

#[test]
fn an_emulator_instance_restores_answering_as_the_emulator() {
    let mut db = instance(Fidelity::Emulator);
    let bytes = db.snapshot();
    let mut back = Instance::restore(&bytes).unwrap();
    assert_eq!(back.fidelity(), Fidelity::Emulator);
    assert_eq!(unknown_family_code(&mut back), Code::Unknown);
    // Without the traffic too (the share link's snapshot).
    let back = Instance::restore(&db.snapshot_without_traffic()).unwrap();
    assert_eq!(back.fidelity(), Fidelity::Emulator);
}

#[test]
fn a_production_instance_restores_as_production_with_its_snapshot_unchanged() {
    let mut db = instance(Fidelity::Production);
    let plain = db.snapshot();
    let mut back = Instance::restore(&plain).unwrap();
    assert_eq!(back.fidelity(), Fidelity::Production);
    assert_eq!(unknown_family_code(&mut back), Code::NotFound);
    // The setting costs nothing when off: the bytes are those of an
    // instance without it, and switching it on changes them.
    db.switch_fidelity(Fidelity::Emulator).unwrap();
    let parity = db.snapshot();
    assert_ne!(plain, parity);
    db.switch_fidelity(Fidelity::Production).unwrap();
    assert_eq!(db.snapshot(), plain);
}

#[test]
fn every_instance_of_a_bundle_keeps_its_setting() {
    let mut all = Instances::new(instance(Fidelity::Production));
    all.select("other", "second").unwrap();
    all.switch_fidelity(Fidelity::Emulator).unwrap();
    let bytes = all.snapshot();
    let back = Instances::restore(&bytes).unwrap();
    assert_eq!(back.len(), 2);
    assert!(back.iter().all(|db| db.fidelity() == Fidelity::Emulator));
}

/// A bundle whose second instance holds what production refuses (a row
/// key over 4 KiB) stays in emulator parity, every instance of it, when
/// asked to leave: a snapshot of it as production's would not load. The
/// primary, which holds nothing refused, does not switch alone either.
#[test]
fn a_bundle_holding_what_production_refuses_stays_in_parity() {
    let mut all = Instances::new(instance(Fidelity::Emulator));
    let second = all.select("other", "second").unwrap();
    second
        .create_table(CreateTableRequest::with_families(
            "t",
            [("cf", ColumnFamily::with_gc(None))],
        ))
        .unwrap();
    let set = Mutation::SetCell {
        family_name: Cow::Borrowed("cf"),
        column_qualifier: Cow::Borrowed(b"q"),
        timestamp_micros: 1000,
        value: Cow::Borrowed(b"v"),
    };
    second.mutate_row("t", &[b'k'; 4097], &[set]).unwrap();

    let e = all.switch_fidelity(Fidelity::Production).unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(
        e.message().contains("row key of 4097 bytes"),
        "{}",
        e.message()
    );
    assert!(all.iter().all(|db| db.fidelity() == Fidelity::Emulator));
    let second = all.select("other", "second").unwrap();
    let e = second.switch_fidelity(Fidelity::Production).unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert_eq!(second.fidelity(), Fidelity::Emulator);
    let back = Instances::restore(&all.snapshot()).expect("the bundle still loads");
    assert!(back.iter().all(|db| db.fidelity() == Fidelity::Emulator));
}
