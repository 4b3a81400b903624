//! Snapshots round-trip an instance losslessly and refuse anything else.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::time::Duration;

use tabletop_store::*;

fn everything(db: &mut Instance) -> Vec<(String, Vec<OwnedRow>)> {
    let ids: Vec<String> = db.list_tables().into_iter().map(|t| t.id).collect();
    ids.into_iter()
        .map(|id| {
            let mut rows = CollectRows::default();
            db.read_rows(&id, &ReadRowsRequest::default(), &mut rows)
                .expect("read");
            (id, rows.rows)
        })
        .collect()
}

fn sample() -> Instance {
    let mut db = Instance::new(InstanceConfig {
        project: "p".into(),
        instance: "i".into(),
        engine: EngineConfig {
            split_bytes: 4096,
            ..EngineConfig::default()
        },
        seed: 42,
        simulated_clock: true,
    });
    db.set_now(1_600_000_000_000_000);
    let mut schema = TableSchema::default();
    schema.families.insert(
        "cf".into(),
        ColumnFamily::with_gc(Some(GcRule::Union(vec![
            GcRule::MaxNumVersions(2),
            GcRule::MaxAge(Duration::from_secs(86_400)),
        ]))),
    );
    schema.families.insert(
        "counts".into(),
        ColumnFamily {
            gc_rule: None,
            value_type: ValueType::Aggregate(Aggregator::Sum),
        },
    );
    db.create_table(CreateTableRequest {
        table_id: "t1".into(),
        schema: schema.clone(),
        initial_splits: vec![b"m".to_vec()],
    })
    .expect("create");
    db.create_table(CreateTableRequest {
        table_id: "t2".into(),
        schema,
        initial_splits: vec![],
    })
    .expect("create");
    for i in 0..300u32 {
        let key = [b"k\x00\xff".as_slice(), &i.to_be_bytes()].concat();
        for v in 0..3i64 {
            db.mutate_row(
                "t1",
                &key,
                &[
                    Mutation::set_cell(
                        "cf",
                        b"q\x01",
                        1_600_000_000_000_000 + 1_000 * v,
                        &[v as u8; 40],
                    ),
                    Mutation::AddToCell {
                        family_name: "counts".into(),
                        column_qualifier: b"n".as_slice().into(),
                        timestamp_micros: 0,
                        input: AggregateInput::Int(i64::from(i)),
                    },
                ],
            )
            .expect("write");
        }
    }
    db.mutate_row("t2", b"only", &[Mutation::set_cell("cf", b"", 0, b"")])
        .expect("write");
    db.tick(1_600_000_001_000_000);
    // A newer version after the tick: the oldest kept one becomes
    // GC-eligible but stays visible until the next compaction.
    let key = [b"k\x00\xff".as_slice(), &0u32.to_be_bytes()].concat();
    db.mutate_row(
        "t1",
        &key,
        &[Mutation::set_cell(
            "cf",
            b"q\x01",
            1_600_000_000_500_000,
            b"new",
        )],
    )
    .expect("write");
    db
}

#[test]
fn snapshots_round_trip_every_cell_and_the_layout() {
    let mut db = sample();
    let before = everything(&mut db);
    assert!(
        before[0].1[0].cells.iter().any(|c| c.gc_eligible),
        "eligible cells are kept"
    );
    let bytes = db.snapshot();
    let mut back = Instance::restore(&bytes).expect("restore");
    assert_eq!(everything(&mut back), before);
    assert_eq!(back.config(), db.config());
    assert_eq!(back.now_micros(), db.now_micros());
    let boundaries = |d: &Instance| {
        d.tablets("t1")
            .unwrap()
            .into_iter()
            .map(|t| t.start_key)
            .collect::<Vec<_>>()
    };
    assert!(boundaries(&db).len() > 2);
    assert_eq!(boundaries(&back), boundaries(&db));
    assert_eq!(
        back.get_table("t1").unwrap().initial_splits,
        vec![b"m".to_vec()]
    );
    // The restored instance keeps working: aggregates keep adding.
    back.mutate_row(
        "t1",
        &[b"k\x00\xff".as_slice(), &0u32.to_be_bytes()].concat(),
        &[Mutation::AddToCell {
            family_name: "counts".into(),
            column_qualifier: b"n".as_slice().into(),
            timestamp_micros: 0,
            input: AggregateInput::Int(5),
        }],
    )
    .unwrap();
    // And a second snapshot of an unchanged instance is identical.
    let mut again = Instance::restore(&bytes).unwrap();
    assert_eq!(again.snapshot(), bytes);
}

#[test]
fn damaged_or_foreign_bytes_are_refused_clearly() {
    let mut db = sample();
    let bytes = db.snapshot();
    let e = Instance::restore(b"{\"not\": \"a snapshot\"}").unwrap_err();
    assert!(e.message().contains("not a Tabletop snapshot"), "{e}");
    let e = Instance::restore(&bytes[..bytes.len() / 2]).unwrap_err();
    assert!(e.message().contains("corrupt"), "{e}");
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 3] ^= 0x40;
    let e = Instance::restore(&flipped).unwrap_err();
    assert!(e.message().contains("corrupt"), "{e}");
    assert!(Instance::restore(b"TBLTOPSN").is_err());
    assert!(Instance::restore(b"").is_err());
}

#[cfg(not(target_arch = "wasm32"))]
mod fuzz {
    use proptest::prelude::*;
    use tabletop_store::Instance;

    proptest! {
        #[test]
        fn restore_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut input = b"TBLTOPSN".to_vec();
            input.extend_from_slice(&bytes);
            let _ = Instance::restore(&input);
            let _ = Instance::restore(&bytes);
        }
    }
}

#[test]
fn a_snapshot_with_an_id_no_command_line_accepts_is_refused() {
    let mut db = Instance::new(InstanceConfig {
        project: "x\ntouch pwned #".into(),
        ..InstanceConfig::default()
    });
    let err = Instance::restore(&db.snapshot()).unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("project id"), "{err}");
    assert!(validate_resource_id("instance", "my-instance.1:x").is_ok());
    assert!(validate_resource_id("instance", "a/b").is_err());
    assert!(validate_resource_id("instance", &"i".repeat(65)).is_err());
}

/// FNV-1a 64, the snapshot's checksum (see the module docs).
fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[test]
fn a_snapshot_edited_by_hand_gets_no_more_than_a_write_would() {
    let mut db = Instance::default();
    db.create_table(CreateTableRequest::with_families(
        "t",
        [("cf", ColumnFamily::with_gc(None))],
    ))
    .unwrap();
    let key = vec![b'k'; MAX_ROW_KEY_BYTES];
    db.mutate_row("t", &key, &[Mutation::set_cell("cf", b"q", 1000, b"v")])
        .unwrap();
    let bytes = db.snapshot();
    Instance::restore(&bytes).expect("the largest key a write takes loads");
    // Grow the key by one byte: its length (a varint) and the key itself
    // change, and the checksum is made again, as a hand edit would.
    let mut len = Vec::new();
    let mut v = MAX_ROW_KEY_BYTES as u64;
    while v >= 0x80 {
        len.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    len.push(v as u8);
    let mut needle = len.clone();
    needle.extend_from_slice(&key);
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle.as_slice())
        .expect("the key is in the snapshot");
    let mut edited = bytes[..at].to_vec();
    edited.extend_from_slice(&[len[0] + 1, len[1]]);
    edited.extend_from_slice(&key);
    edited.push(b'k');
    edited.extend_from_slice(&bytes[at + needle.len()..bytes.len() - 8]);
    let sum = fnv64(&edited);
    edited.extend_from_slice(&sum.to_le_bytes());
    let e = Instance::restore(&edited).unwrap_err();
    assert!(e.message().contains("row key over 4 KiB"), "{e}");
}

#[test]
fn bundles_hold_several_instances_and_older_snapshots_unbundle_to_themselves() {
    let mut a = sample();
    let mut b = Instance::new(InstanceConfig {
        instance: "other".into(),
        ..InstanceConfig::default()
    });
    let parts = vec![a.snapshot(), b.snapshot()];
    let bundle = Instance::bundle_snapshots(&parts);
    assert_eq!(Instance::unbundle_snapshot(&bundle).unwrap(), parts);
    // A snapshot of one instance (versions 1 to 3) is its own only part.
    assert_eq!(
        Instance::unbundle_snapshot(&parts[0]).unwrap(),
        vec![parts[0].clone()]
    );
    let mut back = Instance::restore(&parts[0]).unwrap();
    assert_eq!(everything(&mut back), everything(&mut a));
    // A bundle is not one instance: restoring it as one says so.
    let e = Instance::restore(&bundle).unwrap_err();
    assert!(e.message().contains("several instances"), "{e}");
    // Damage anywhere is caught by the bundle's own checksum.
    let mut bad = bundle.clone();
    let n = bad.len();
    bad[n / 3] ^= 0x10;
    assert!(Instance::unbundle_snapshot(&bad).is_err());
    assert!(Instance::unbundle_snapshot(&bundle[..n - 1]).is_err());
    assert!(Instance::unbundle_snapshot(&Instance::bundle_snapshots(&[])).is_err());
}

/// A version 1 file from before version 6 existed (frozen bytes: table
/// `t`, family `cf` keeping one version, row `r` holding `cf:q = v` at
/// 1 ms) still loads, answering as production, and a production instance
/// writes it again byte for byte. A version 6 header naming a fidelity
/// this build does not know is refused.
#[test]
fn an_old_file_still_loads_and_version_6_checks_its_fidelity() {
    const V1: &str = "54424c544f50534e01087461626c65746f700a706c617967726f756e648bcec7d5\
                      07008080f2818389850680800280800880800280909de91a0401017401026366000101\
                      000001017201000171d00f017695476750046718ad";
    let bytes: Vec<u8> = (0..V1.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&V1[i..i + 2], 16).expect("hex"))
        .collect();
    let mut db = Instance::restore(&bytes).expect("a version 1 file loads");
    assert_eq!(db.fidelity(), Fidelity::Production);
    assert_eq!(
        db.get_table("t").expect("table").schema.families["cf"].gc_rule,
        Some(GcRule::MaxNumVersions(1))
    );
    let rows = everything(&mut db);
    assert_eq!(rows[0].1[0].cells[0].value, b"v");
    assert_eq!(db.snapshot_choosing(None, false), bytes);

    let mut v6 = bytes[..8].to_vec();
    v6.extend_from_slice(&[6, 2]);
    v6.extend_from_slice(&bytes[9..bytes.len() - 8]);
    let sum = fnv64(&v6);
    v6.extend_from_slice(&sum.to_le_bytes());
    let e = Instance::restore(&v6).expect_err("an unknown fidelity");
    assert!(e.message().contains("an unknown fidelity"), "{e}");
}
