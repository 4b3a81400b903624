//! Traces: every data operation can hand back what it did, and asking for
//! it changes nothing about what the operation does.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_store::*;

const T0: i64 = 1_588_291_200_000_000;

/// Table `t` (family `cf`) split at `g` and `p`: three tablets.
fn db() -> Instance {
    let mut db = Instance::default();
    db.set_now(T0);
    db.create_table(
        CreateTableRequest::with_families("t", [("cf", ColumnFamily::default())])
            .split_at(["g", "p"]),
    )
    .unwrap();
    for key in ["a1", "a2", "h1", "q1", "q2"] {
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", b"q", 1000, b"value")],
        )
        .unwrap();
    }
    db
}

fn traced_read(db: &mut Instance, req: &ReadRowsRequest, options: TraceOptions) -> Trace {
    let mut trace = Trace::new(options);
    let mut rows = CollectRows::default();
    let stats = db
        .read_rows_traced("t", req, &mut rows, Some(&mut trace))
        .unwrap();
    assert_eq!(
        trace.read, stats,
        "the trace holds the read's own statistics"
    );
    trace
}

#[test]
fn a_prefix_read_visits_one_tablet_of_three() {
    let mut db = db();
    let req = ReadRowsRequest::rows(RowSet::range(RowRange::prefix(b"a".to_vec())));
    let t = traced_read(&mut db, &req, TraceOptions::default());
    assert_eq!(t.operation, Operation::ReadRows);
    assert_eq!(t.table, "t");
    assert_eq!(t.request.shape(), ReadShape::SingleRange);
    assert_eq!((t.request.row_keys, t.request.row_ranges), (0, 1));
    assert_eq!((t.read.rows_seen, t.read.rows_returned), (2, 2));
    assert_eq!((t.read.cells_seen, t.read.cells_returned), (2, 2));
    assert_eq!(t.tablet_count, 3);
    assert_eq!(t.read.tablets.len(), 1);
    let first = db.tablets("t").unwrap()[0].id;
    assert_eq!(t.read.tablets, vec![first]);
    assert!(t.returned_keys.is_empty(), "returned keys are opt-in");
}

#[test]
fn a_filtered_full_scan_visits_every_tablet_and_keeps_what_was_asked() {
    let mut db = db();
    let req = ReadRowsRequest {
        filter: Some(RowFilter::RowKeyRegex(b".*1".to_vec())),
        ..ReadRowsRequest::default()
    };
    let options = TraceOptions {
        returned_keys: 2,
        ..TraceOptions::default()
    };
    let t = traced_read(&mut db, &req, options);
    assert_eq!(t.request.shape(), ReadShape::FullScan);
    assert!(t.request.filtered && t.request.is_full_table());
    assert_eq!((t.read.rows_seen, t.read.rows_returned), (5, 3));
    assert_eq!(t.distinct_tablets().len(), 3);
    assert_eq!(t.returned_keys, vec![b"a1".to_vec(), b"h1".to_vec()]);
    assert!(!t.returned_keys_complete, "a third key came back");
}

#[test]
fn point_reads_and_reversed_limited_reads_say_so() {
    let mut db = db();
    let req = ReadRowsRequest {
        rows: RowSet {
            row_keys: vec![b"a1".to_vec(), b"q2".to_vec()],
            row_ranges: vec![],
        },
        ..ReadRowsRequest::default()
    };
    let t = traced_read(&mut db, &req, TraceOptions::default());
    assert_eq!(t.request.shape(), ReadShape::MultiRange);
    assert_eq!(t.request.row_keys, 2);
    assert_eq!(t.read.tablets.len(), 2);
    let req = ReadRowsRequest {
        rows_limit: 1,
        reversed: true,
        ..ReadRowsRequest::default()
    };
    let t = traced_read(&mut db, &req, TraceOptions::default());
    assert!(t.request.reversed);
    assert_eq!(t.request.rows_limit, 1);
    assert_eq!(t.read.rows_returned, 1);
    let last = db.tablets("t").unwrap()[2].id;
    assert_eq!(
        t.read.tablets,
        vec![last],
        "a reversed read starts at the end"
    );
}

#[test]
fn writes_record_rows_cells_bytes_and_keys_when_asked() {
    let mut db = db();
    let mut t = Trace::new(TraceOptions {
        written_keys: true,
        returned_keys: 0,
    });
    db.mutate_row_traced(
        "t",
        b"b1",
        &[
            Mutation::set_cell("cf", b"q", 2000, b"12345"),
            Mutation::DeleteFromRow,
        ],
        Some(&mut t),
    )
    .unwrap();
    assert_eq!(t.operation, Operation::MutateRow);
    assert_eq!((t.write.rows, t.write.mutations, t.write.cells), (1, 2, 1));
    assert_eq!(t.write.bytes, cell_bytes(2, 2, 1, 5));
    assert_eq!(t.write.keys, vec![b"b1".to_vec()]);

    let entries = vec![
        MutateRowsEntry {
            row_key: b"c1".as_slice().into(),
            mutations: vec![Mutation::set_cell("cf", b"q", 2000, b"v")],
        },
        MutateRowsEntry {
            row_key: b"c2".as_slice().into(),
            mutations: vec![Mutation::set_cell("nope", b"q", 2000, b"v")],
        },
    ];
    let mut t = Trace::new(TraceOptions::default());
    let results = db.mutate_rows_traced("t", &entries, Some(&mut t)).unwrap();
    assert!(results[0].is_ok() && results[1].is_err());
    assert_eq!(t.operation, Operation::MutateRows);
    assert_eq!((t.write.rows, t.write.failed_entries), (1, 1));
    assert!(t.write.keys.is_empty(), "written keys are opt-in");

    let mut t = Trace::new(TraceOptions::default());
    db.drop_row_range_traced("t", &DropTarget::Prefix(b"q".to_vec()), Some(&mut t))
        .unwrap();
    assert_eq!(t.operation, Operation::DropRowRange);
    assert_eq!(
        t.write.dropped,
        Some(KeyRange {
            start: b"q".to_vec(),
            end: Some(b"r".to_vec()),
        })
    );
}

#[test]
fn conditional_writes_record_their_read_and_their_branch() {
    let mut db = db();
    let mut t = Trace::new(TraceOptions::default());
    let answer = db
        .check_and_mutate_row_traced(
            "t",
            &CheckAndMutateRowRequest {
                row_key: b"a1".to_vec(),
                predicate_filter: None,
                true_mutations: vec![Mutation::set_cell("cf", b"r", 2000, b"x")],
                false_mutations: vec![],
            },
            Some(&mut t),
        )
        .unwrap();
    assert!(answer.predicate_matched);
    assert_eq!(t.operation, Operation::CheckAndMutateRow);
    assert_eq!(t.predicate_matched, Some(true));
    assert_eq!(t.request.shape(), ReadShape::Point);
    assert_eq!((t.read.rows_seen, t.write.cells), (1, 1));

    let mut t = Trace::new(TraceOptions::default());
    db.read_modify_write_row_traced(
        "t",
        &ReadModifyWriteRowRequest {
            row_key: b"n1".to_vec(),
            rules: vec![ReadModifyWriteRule {
                family_name: "cf".into(),
                column_qualifier: b"n".to_vec(),
                rule: ReadModifyWriteOp::IncrementAmount(1),
            }],
        },
        Some(&mut t),
    )
    .unwrap();
    assert_eq!(t.operation, Operation::ReadModifyWriteRow);
    assert_eq!((t.read.rows_seen, t.write.rows, t.write.cells), (0, 1, 1));
    assert_eq!(t.write.bytes, cell_bytes(2, 2, 1, 8));
}

#[test]
fn sample_row_keys_looks_at_every_tablet() {
    let mut db = db();
    let mut t = Trace::new(TraceOptions::default());
    let samples = db.sample_row_keys_traced("t", Some(&mut t)).unwrap();
    assert_eq!(samples.len(), 3);
    assert_eq!(t.operation, Operation::SampleRowKeys);
    assert_eq!((t.tablet_count, t.read.tablets.len()), (3, 3));
}

#[test]
fn traces_collect_only_operations_that_succeeded() {
    let mut db = db();
    let mut traces = Traces::new(TraceOptions::default());
    let mut rows = CountRows::default();
    let req = ReadRowsRequest::default();
    traces
        .record(|t| db.read_rows_traced("t", &req, &mut rows, t))
        .unwrap();
    assert!(
        traces
            .record(|t| db.read_rows_traced("nope", &req, &mut rows, t))
            .is_err()
    );
    assert_eq!(traces.as_slice().len(), 1);
    assert_eq!(traces.last_read().map(|t| t.read.rows_returned), Some(5));
    let mut off = Traces::off();
    off.record(|t| {
        assert!(t.is_none(), "nothing is traced when nobody asks");
        db.read_rows_traced("t", &req, &mut rows, t)
    })
    .unwrap();
    assert!(off.is_empty());
}
