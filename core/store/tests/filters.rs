#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// Every RowFilter kind through `Instance::read_rows`, with Bigtable's
// semantics and validation, and what filters do to read statistics.

use tabletop_store::*;

const T0: i64 = 1_588_291_200_000_000;

fn filter_table(db: &mut Instance, id: &str, families: &[(&str, Option<GcRule>)]) {
    let mut schema = TableSchema::default();
    for (name, rule) in families {
        schema
            .families
            .insert((*name).to_string(), ColumnFamily::with_gc(rule.clone()));
    }
    db.create_table(CreateTableRequest {
        table_id: id.into(),
        schema,
        initial_splits: vec![],
    })
    .expect("create table");
}

fn set(db: &mut Instance, row: &[u8], fam: &str, q: &[u8], ts: i64, v: &[u8]) {
    db.mutate_row("t", row, &[Mutation::set_cell(fam, q, ts, v)])
        .expect("set cell");
}

/// Rows used by most tests (timestamps in milliseconds, as micros):
///
/// ```text
/// r1      cf1:a @3 "v3", @2 "v2", @1 "v1"; cf1:b @1 "x"; cf2:a @1 "y"
/// r2      cf1:a @1 "apple"; cf2:c @5 "\x00\xff"
/// r3\n    cf1:b @1 "banana"
/// \xff\x00 cf2:z @2 "zz"
/// ```
fn sample() -> Instance {
    let mut db = Instance::default();
    db.set_now(T0);
    filter_table(&mut db, "t", &[("cf1", None), ("cf2", None)]);
    set(&mut db, b"r1", "cf1", b"a", 3000, b"v3");
    set(&mut db, b"r1", "cf1", b"a", 2000, b"v2");
    set(&mut db, b"r1", "cf1", b"a", 1000, b"v1");
    set(&mut db, b"r1", "cf1", b"b", 1000, b"x");
    set(&mut db, b"r1", "cf2", b"a", 1000, b"y");
    set(&mut db, b"r2", "cf1", b"a", 1000, b"apple");
    set(&mut db, b"r2", "cf2", b"c", 5000, b"\x00\xff");
    set(&mut db, b"r3\n", "cf1", b"b", 1000, b"banana");
    set(&mut db, b"\xff\x00", "cf2", b"z", 2000, b"zz");
    db
}

fn read_req(db: &mut Instance, req: &ReadRowsRequest) -> Vec<OwnedRow> {
    let mut rows = CollectRows::default();
    db.read_rows("t", req, &mut rows).expect("read");
    rows.rows
}

fn read(db: &mut Instance, f: RowFilter) -> Vec<OwnedRow> {
    read_req(
        db,
        &ReadRowsRequest {
            filter: Some(f),
            ..ReadRowsRequest::default()
        },
    )
}

fn try_read(db: &mut Instance, f: RowFilter) -> Result<Vec<OwnedRow>> {
    let mut rows = CollectRows::default();
    let req = ReadRowsRequest {
        filter: Some(f),
        ..ReadRowsRequest::default()
    };
    db.read_rows("t", &req, &mut rows).map(|_| rows.rows)
}

/// One line per cell: `key fam:qual@ms=value [label]`.
fn lines(rows: &[OwnedRow]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        for c in &r.cells {
            let mut s = format!(
                "{} {}:{}@{}={}",
                escape_bytes(&r.key),
                c.family,
                escape_bytes(&c.qualifier),
                c.timestamp_micros / 1000,
                escape_bytes(&c.value)
            );
            for l in &c.labels {
                s.push_str(&format!(" [{l}]"));
            }
            out.push(s);
        }
    }
    out
}

fn keys(rows: &[OwnedRow]) -> Vec<String> {
    rows.iter().map(|r| escape_bytes(&r.key)).collect()
}

fn invalid(db: &mut Instance, f: RowFilter) -> String {
    match try_read(db, f) {
        Ok(rows) => panic!("filter accepted, returned {:?}", lines(&rows)),
        Err(e) => {
            assert_eq!(e.code(), Code::InvalidArgument, "{e}");
            e.message().to_string()
        }
    }
}

fn chain(fs: Vec<RowFilter>) -> RowFilter {
    RowFilter::Chain(fs)
}

fn interleave(fs: Vec<RowFilter>) -> RowFilter {
    RowFilter::Interleave(fs)
}

fn label(l: &str) -> RowFilter {
    RowFilter::ApplyLabel(l.into())
}

fn qual(re: &str) -> RowFilter {
    RowFilter::ColumnQualifierRegex(re.as_bytes().to_vec())
}

fn fam(re: &str) -> RowFilter {
    RowFilter::FamilyNameRegex(re.into())
}

fn closed(b: &[u8]) -> KeyBound {
    KeyBound::Closed(b.to_vec())
}

fn open(b: &[u8]) -> KeyBound {
    KeyBound::Open(b.to_vec())
}

#[test]
fn pass_all_returns_everything_and_block_all_nothing() {
    let mut db = sample();
    let all = read_req(&mut db, &ReadRowsRequest::default());
    assert_eq!(read(&mut db, RowFilter::PassAll), all);
    assert_eq!(all.len(), 4);
    assert!(read(&mut db, RowFilter::BlockAll).is_empty());
}

#[test]
fn rows_left_empty_by_a_filter_are_not_returned() {
    let mut db = sample();
    let rows = read(&mut db, fam("cf2"));
    assert_eq!(keys(&rows), ["r1", "r2", "\\xff\\x00"]);
    assert!(rows.iter().all(|r| !r.cells.is_empty()));
}

#[test]
fn row_key_regex_is_a_full_match_over_bytes() {
    let mut db = sample();
    assert_eq!(
        keys(&read(&mut db, RowFilter::RowKeyRegex(b"r".to_vec()))),
        Vec::<String>::new()
    );
    assert_eq!(
        keys(&read(&mut db, RowFilter::RowKeyRegex(b"r.".to_vec()))),
        ["r1", "r2"]
    );
    // `.` does not match "\n"; `\C` matches any byte.
    assert_eq!(
        keys(&read(&mut db, RowFilter::RowKeyRegex(b"r3.".to_vec()))),
        Vec::<String>::new()
    );
    assert_eq!(
        keys(&read(&mut db, RowFilter::RowKeyRegex(b"r3\\C".to_vec()))),
        ["r3\\n"]
    );
    assert_eq!(
        keys(&read(&mut db, RowFilter::RowKeyRegex(b"r3\\n".to_vec()))),
        ["r3\\n"]
    );
    // Binary bytes: as raw pattern bytes and as escapes.
    assert_eq!(
        keys(&read(
            &mut db,
            RowFilter::RowKeyRegex(b"\xff\\x00".to_vec())
        )),
        ["\\xff\\x00"]
    );
    assert_eq!(
        keys(&read(&mut db, RowFilter::RowKeyRegex(b"\\xFF\\C".to_vec()))),
        ["\\xff\\x00"]
    );
    assert_eq!(
        keys(&read(&mut db, RowFilter::RowKeyRegex(b"[^r]\\C*".to_vec()))),
        ["\\xff\\x00"]
    );
    // The whole row passes when the key matches.
    assert_eq!(
        read(&mut db, RowFilter::RowKeyRegex(b"r1".to_vec()))[0]
            .cells
            .len(),
        5
    );
}

#[test]
fn family_and_qualifier_regexes() {
    let mut db = sample();
    assert_eq!(
        lines(&read(&mut db, chain(vec![fam("cf[2]"), qual("[ac]")]))),
        ["r1 cf2:a@1=y", "r2 cf2:c@5=\\x00\\xff"]
    );
    assert!(read(&mut db, fam("cf")).is_empty(), "full match");
    assert_eq!(read(&mut db, fam(".*")).len(), 4);
    assert_eq!(
        lines(&read(&mut db, qual("b"))),
        ["r1 cf1:b@1=x", "r3\\n cf1:b@1=banana"]
    );
    let msg = invalid(&mut db, fam("cf:1"));
    assert!(
        msg.contains("family_name_regex_filter") && msg.contains("':'"),
        "{msg}"
    );
}

#[test]
fn regex_escapes_and_binary_qualifiers() {
    let mut db = Instance::default();
    filter_table(&mut db, "t", &[("f", None)]);
    set(&mut db, b"k", "f", b"a.b", 1000, b"dot");
    set(&mut db, b"k", "f", b"axb", 1000, b"x");
    set(&mut db, b"k", "f", b"\x00\n\xff", 1000, b"bin");
    set(&mut db, b"k", "f", b"(q)", 1000, b"parens");
    assert_eq!(lines(&read(&mut db, qual("a\\.b"))), ["k f:a.b@1=dot"]);
    assert_eq!(
        lines(&read(&mut db, qual("a.b"))),
        ["k f:a.b@1=dot", "k f:axb@1=x"]
    );
    assert_eq!(lines(&read(&mut db, qual("\\(q\\)"))), ["k f:(q)@1=parens"]);
    assert_eq!(
        lines(&read(&mut db, qual("\\Q(q)\\E"))),
        ["k f:(q)@1=parens"]
    );
    assert_eq!(
        lines(&read(&mut db, qual("\\x00\\C\\xff"))),
        ["k f:\\x00\\n\\xff@1=bin"]
    );
    assert!(read(&mut db, qual("\\x00.\\xff")).is_empty(), ". skips \\n");
    assert_eq!(
        lines(&read(
            &mut db,
            RowFilter::ColumnQualifierRegex(b"\x00\n\xff".to_vec())
        )),
        ["k f:\\x00\\n\\xff@1=bin"]
    );
    assert_eq!(
        lines(&read(
            &mut db,
            RowFilter::ValueRegex(b"[\\x61-\\x7a]{1,3}".to_vec())
        )),
        ["k f:\\x00\\n\\xff@1=bin", "k f:a.b@1=dot", "k f:axb@1=x"]
    );
}

#[test]
fn bad_regexes_name_their_field() {
    let mut db = sample();
    for (f, field) in [
        (
            RowFilter::RowKeyRegex(b"(".to_vec()),
            "row_key_regex_filter",
        ),
        (RowFilter::ValueRegex(b"[a".to_vec()), "value_regex_filter"),
        (
            RowFilter::ColumnQualifierRegex(b"a**".to_vec()),
            "column_qualifier_regex_filter",
        ),
        (fam("\\q"), "family_name_regex_filter"),
        (
            RowFilter::ValueRegex(b"a{1001}".to_vec()),
            "value_regex_filter",
        ),
    ] {
        let msg = invalid(&mut db, f);
        assert!(
            msg.starts_with(&format!("Error in field '{field}' : ")),
            "{msg}"
        );
    }
    let msg = invalid(&mut db, RowFilter::RowKeyRegex(Vec::new()));
    assert!(msg.contains("row_key_regex_filter"), "{msg}");
    // Invalid filters are rejected even on an empty table.
    let mut empty = Instance::default();
    filter_table(&mut empty, "t", &[("f", None)]);
    let msg = invalid(&mut empty, RowFilter::ValueRegex(b"(".to_vec()));
    assert!(msg.contains("value_regex_filter"), "{msg}");
}

#[test]
fn column_range_with_every_bound_kind() {
    let mut db = Instance::default();
    filter_table(&mut db, "t", &[("f", None), ("g", None)]);
    for q in [&b""[..], b"a", b"b", b"b\x00", b"c", b"d"] {
        set(&mut db, b"k", "f", q, 1000, b"v");
    }
    set(&mut db, b"k", "g", b"b", 1000, b"other family");
    let cols = |db: &mut Instance, start: KeyBound, end: KeyBound| -> Vec<String> {
        read(
            db,
            RowFilter::ColumnRange {
                family_name: "f".into(),
                start,
                end,
            },
        )
        .iter()
        .flat_map(|r| {
            r.cells
                .iter()
                .map(|c| format!("{}:{}", c.family, escape_bytes(&c.qualifier)))
        })
        .collect()
    };
    use KeyBound::Unbounded as U;
    assert_eq!(
        cols(&mut db, U, U),
        ["f:", "f:a", "f:b", "f:b\\x00", "f:c", "f:d"]
    );
    assert_eq!(
        cols(&mut db, closed(b"b"), U),
        ["f:b", "f:b\\x00", "f:c", "f:d"]
    );
    assert_eq!(cols(&mut db, open(b"b"), U), ["f:b\\x00", "f:c", "f:d"]);
    assert_eq!(cols(&mut db, U, closed(b"b")), ["f:", "f:a", "f:b"]);
    assert_eq!(cols(&mut db, U, open(b"b")), ["f:", "f:a"]);
    assert_eq!(
        cols(&mut db, closed(b"a"), open(b"c")),
        ["f:a", "f:b", "f:b\\x00"]
    );
    assert_eq!(
        cols(&mut db, open(b"a"), closed(b"c")),
        ["f:b", "f:b\\x00", "f:c"]
    );
    assert_eq!(cols(&mut db, closed(b"b"), closed(b"b")), ["f:b"]);
    assert!(cols(&mut db, open(b"b"), open(b"b")).is_empty());
    assert!(
        cols(&mut db, closed(b"d"), closed(b"a")).is_empty(),
        "inverted: nothing"
    );
    let msg = invalid(
        &mut db,
        RowFilter::ColumnRange {
            family_name: String::new(),
            start: U,
            end: U,
        },
    );
    assert!(
        msg.contains("column_range_filter") && msg.contains("found 0"),
        "{msg}"
    );
}

#[test]
fn timestamp_range_is_half_open_with_microsecond_bounds() {
    let mut db = sample();
    let ts = |start_micros, end_micros| {
        RowFilter::TimestampRange(TimestampRange {
            start_micros,
            end_micros,
        })
    };
    assert_eq!(
        lines(&read(
            &mut db,
            chain(vec![RowFilter::RowKeyRegex(b"r1".to_vec()), ts(2000, 3000)])
        )),
        ["r1 cf1:a@2=v2"]
    );
    assert_eq!(
        lines(&read(&mut db, ts(3000, 0))),
        ["r1 cf1:a@3=v3", "r2 cf2:c@5=\\x00\\xff"],
        "end 0: no upper bound"
    );
    assert!(read(&mut db, ts(4000, 4000)).is_empty());
    // Microsecond bounds are accepted, as production does (only the
    // emulator refuses them): `[t, t + 1)` is the cell at exactly `t`.
    assert_eq!(
        lines(&read(&mut db, ts(2000, 2001))),
        ["r1 cf1:a@2=v2", "\\xff\\x00 cf2:z@2=zz"],
        "an exact timestamp"
    );
    assert_eq!(lines(&read(&mut db, ts(1999, 2000))), Vec::<String>::new());
    assert!(invalid(&mut db, ts(-1000, 0)).contains("timestamp_range_filter"));
}

#[test]
fn value_regex_and_value_range_with_every_bound_kind() {
    let mut db = sample();
    assert_eq!(
        lines(&read(&mut db, RowFilter::ValueRegex(b"v.".to_vec()))),
        ["r1 cf1:a@3=v3", "r1 cf1:a@2=v2", "r1 cf1:a@1=v1"]
    );
    let values = |db: &mut Instance, start: KeyBound, end: KeyBound| -> Vec<String> {
        read(db, RowFilter::ValueRange { start, end })
            .iter()
            .flat_map(|r| r.cells.iter().map(|c| escape_bytes(&c.value)))
            .collect()
    };
    use KeyBound::Unbounded as U;
    let mut all = values(&mut db, U, U);
    all.sort();
    assert_eq!(
        all,
        [
            "\\x00\\xff",
            "apple",
            "banana",
            "v1",
            "v2",
            "v3",
            "x",
            "y",
            "zz"
        ]
    );
    assert_eq!(
        values(&mut db, closed(b"v2"), closed(b"x")),
        ["v3", "v2", "x"]
    );
    assert_eq!(values(&mut db, open(b"v2"), open(b"x")), ["v3"]);
    assert_eq!(values(&mut db, U, open(b"b")), ["apple", "\\x00\\xff"]);
    assert_eq!(values(&mut db, open(b"y"), U), ["zz"]);
    assert_eq!(values(&mut db, closed(b"y"), U), ["y", "zz"]);
    assert_eq!(values(&mut db, U, closed(b"\x00\xff")), ["\\x00\\xff"]);
}

#[test]
fn limits_apply_per_row_and_per_column() {
    let mut db = sample();
    assert_eq!(
        lines(&read(&mut db, RowFilter::CellsPerRowLimit(2))),
        [
            "r1 cf1:a@3=v3",
            "r1 cf1:a@2=v2",
            "r2 cf1:a@1=apple",
            "r2 cf2:c@5=\\x00\\xff",
            "r3\\n cf1:b@1=banana",
            "\\xff\\x00 cf2:z@2=zz"
        ]
    );
    assert_eq!(
        lines(&read(&mut db, RowFilter::CellsPerColumnLimit(1))),
        [
            "r1 cf1:a@3=v3",
            "r1 cf1:b@1=x",
            "r1 cf2:a@1=y",
            "r2 cf1:a@1=apple",
            "r2 cf2:c@5=\\x00\\xff",
            "r3\\n cf1:b@1=banana",
            "\\xff\\x00 cf2:z@2=zz"
        ]
    );
    // Same qualifier in two families: two columns.
    assert_eq!(
        lines(&read(
            &mut db,
            chain(vec![qual("a"), RowFilter::CellsPerColumnLimit(1)])
        )),
        ["r1 cf1:a@3=v3", "r1 cf2:a@1=y", "r2 cf1:a@1=apple"]
    );
    assert_eq!(
        lines(&read(&mut db, RowFilter::CellsPerRowOffset(3))),
        ["r1 cf1:b@1=x", "r1 cf2:a@1=y"]
    );
    assert_eq!(read(&mut db, RowFilter::CellsPerRowOffset(0)).len(), 4);
    // Offset then limit: a page of cells within each row.
    assert_eq!(
        lines(&read(
            &mut db,
            chain(vec![
                RowFilter::CellsPerRowOffset(1),
                RowFilter::CellsPerRowLimit(2)
            ])
        )),
        ["r1 cf1:a@2=v2", "r1 cf1:a@1=v1", "r2 cf2:c@5=\\x00\\xff"]
    );
    for (f, field, cmp) in [
        (
            RowFilter::CellsPerRowLimit(0),
            "cells_per_row_limit_filter",
            "> 0",
        ),
        (
            RowFilter::CellsPerColumnLimit(-1),
            "cells_per_column_limit_filter",
            "> 0",
        ),
        (
            RowFilter::CellsPerRowOffset(-1),
            "cells_per_row_offset_filter",
            ">= 0",
        ),
    ] {
        let msg = invalid(&mut db, f);
        assert!(msg.contains(field) && msg.contains(cmp), "{msg}");
    }
}

#[test]
fn strip_value_and_apply_label() {
    let mut db = sample();
    let rows = read(
        &mut db,
        chain(vec![
            RowFilter::RowKeyRegex(b"r2".to_vec()),
            RowFilter::StripValue,
            label("seen"),
        ]),
    );
    assert_eq!(lines(&rows), ["r2 cf1:a@1= [seen]", "r2 cf2:c@5= [seen]"]);
    // A value test after strip_value sees the empty value.
    assert_eq!(
        read(
            &mut db,
            chain(vec![
                RowFilter::StripValue,
                RowFilter::ValueRegex(Vec::new())
            ])
        )
        .len(),
        4
    );
    assert!(
        read(
            &mut db,
            chain(vec![
                RowFilter::StripValue,
                RowFilter::ValueRegex(b"v.".to_vec())
            ])
        )
        .is_empty()
    );
    for bad in ["", "UPPER", "has space", "sixteen-chars-xx", "a_b"] {
        let msg = invalid(&mut db, label(bad));
        assert!(msg.contains("apply_label_transformer"), "{msg}");
    }
    assert_eq!(read(&mut db, label("fifteen-chars-x")).len(), 4);
}

#[test]
fn a_chain_may_apply_only_one_label() {
    let mut db = sample();
    let msg = invalid(&mut db, chain(vec![label("a"), label("b")]));
    assert!(msg.contains("chain") && msg.contains("label"), "{msg}");
    // Nested: the second label hides in an interleave or a condition.
    invalid(
        &mut db,
        chain(vec![
            label("a"),
            interleave(vec![RowFilter::PassAll, label("b")]),
        ]),
    );
    invalid(
        &mut db,
        chain(vec![
            label("a"),
            RowFilter::Condition {
                predicate: Box::new(RowFilter::PassAll),
                true_filter: Some(Box::new(label("b"))),
                false_filter: None,
            },
        ]),
    );
    // A label in a condition's predicate goes nowhere: allowed.
    let ok = chain(vec![
        label("a"),
        RowFilter::Condition {
            predicate: Box::new(label("p")),
            true_filter: Some(Box::new(RowFilter::PassAll)),
            false_filter: None,
        },
    ]);
    assert!(try_read(&mut db, ok).is_ok());
}

#[test]
fn interleave_merges_in_cell_order_and_keeps_duplicates_and_labels() {
    let mut db = sample();
    let f = chain(vec![
        RowFilter::RowKeyRegex(b"r1".to_vec()),
        interleave(vec![
            chain(vec![qual("b"), label("left")]),
            chain(vec![RowFilter::CellsPerColumnLimit(1), label("right")]),
            chain(vec![fam("cf2"), label("left")]),
        ]),
    ]);
    assert_eq!(
        lines(&read(&mut db, f)),
        [
            "r1 cf1:a@3=v3 [right]",
            "r1 cf1:b@1=x [left]",
            "r1 cf1:b@1=x [right]",
            "r1 cf2:a@1=y [right]",
            "r1 cf2:a@1=y [left]",
        ]
    );
    // Limits after an interleave count every copy.
    let f = chain(vec![
        RowFilter::RowKeyRegex(b"r2".to_vec()),
        interleave(vec![RowFilter::PassAll, RowFilter::PassAll]),
        RowFilter::CellsPerRowLimit(3),
    ]);
    assert_eq!(
        lines(&read(&mut db, f)),
        [
            "r2 cf1:a@1=apple",
            "r2 cf1:a@1=apple",
            "r2 cf2:c@5=\\x00\\xff"
        ]
    );
    let f = chain(vec![
        RowFilter::RowKeyRegex(b"r2".to_vec()),
        interleave(vec![RowFilter::PassAll, RowFilter::PassAll]),
        RowFilter::CellsPerColumnLimit(1),
    ]);
    assert_eq!(
        lines(&read(&mut db, f)),
        ["r2 cf1:a@1=apple", "r2 cf2:c@5=\\x00\\xff"]
    );
    // Branches that yield nothing do not matter.
    let f = interleave(vec![
        RowFilter::BlockAll,
        RowFilter::RowKeyRegex(b"r2".to_vec()),
    ]);
    assert_eq!(keys(&read(&mut db, f)), ["r2"]);
}

#[test]
fn chains_and_interleaves_need_two_filters() {
    let mut db = sample();
    assert_eq!(
        invalid(&mut db, chain(vec![RowFilter::PassAll])),
        "Chain must contain at least two RowFilters"
    );
    assert_eq!(
        invalid(&mut db, chain(vec![])),
        "Chain must contain at least two RowFilters"
    );
    assert_eq!(
        invalid(&mut db, interleave(vec![RowFilter::PassAll])),
        "Interleave must contain at least two RowFilters"
    );
}

#[test]
fn condition_branches() {
    let mut db = sample();
    let cond = |t: Option<RowFilter>, f: Option<RowFilter>| RowFilter::Condition {
        predicate: Box::new(RowFilter::ValueRegex(b"apple|banana".to_vec())),
        true_filter: t.map(Box::new),
        false_filter: f.map(Box::new),
    };
    // The true branch runs on the whole row, not on the predicate's output.
    assert_eq!(
        lines(&read(
            &mut db,
            cond(Some(label("fruit")), Some(RowFilter::BlockAll))
        )),
        [
            "r2 cf1:a@1=apple [fruit]",
            "r2 cf2:c@5=\\x00\\xff [fruit]",
            "r3\\n cf1:b@1=banana [fruit]"
        ]
    );
    assert_eq!(
        keys(&read(&mut db, cond(None, Some(RowFilter::PassAll)))),
        ["r1", "\\xff\\x00"]
    );
    assert_eq!(
        keys(&read(&mut db, cond(Some(RowFilter::PassAll), None))),
        ["r2", "r3\\n"]
    );
    assert!(read(&mut db, cond(None, None)).is_empty());
}

#[test]
fn sink_outputs_to_the_read_and_nothing_to_its_parent() {
    let mut db = Instance::default();
    filter_table(&mut db, "t", &[("A", None), ("B", None)]);
    set(&mut db, b"k", "A", b"A", 1000, b"w");
    set(&mut db, b"k", "A", b"B", 2000, b"x");
    set(&mut db, b"k", "B", b"B", 4000, b"z");
    // The example of data.proto.
    let f = chain(vec![
        fam("A"),
        interleave(vec![
            RowFilter::PassAll,
            chain(vec![label("foo"), RowFilter::Sink]),
        ]),
        qual("B"),
    ]);
    assert_eq!(
        lines(&read(&mut db, f)),
        ["k A:A@1=w [foo]", "k A:B@2=x", "k A:B@2=x [foo]"]
    );
    // A sink ends its branch: nothing after it sees a cell.
    assert_eq!(
        lines(&read(
            &mut db,
            chain(vec![RowFilter::Sink, RowFilter::BlockAll])
        ))
        .len(),
        3
    );
    assert_eq!(
        lines(&read(
            &mut db,
            chain(vec![qual("A"), RowFilter::Sink, RowFilter::PassAll])
        )),
        ["k A:A@1=w"]
    );
    assert_eq!(read(&mut db, RowFilter::Sink).len(), 1);
    // Two sinks in an interleave: both copies, in cell order.
    let f = interleave(vec![
        chain(vec![qual("B"), label("b"), RowFilter::Sink]),
        chain(vec![fam("A"), label("a"), RowFilter::Sink]),
    ]);
    assert_eq!(
        lines(&read(&mut db, f)),
        [
            "k A:A@1=w [a]",
            "k A:B@2=x [b]",
            "k A:B@2=x [a]",
            "k B:B@4=z [b]"
        ]
    );
    // Not allowed anywhere inside a condition.
    for f in [
        RowFilter::Condition {
            predicate: Box::new(RowFilter::Sink),
            true_filter: None,
            false_filter: None,
        },
        RowFilter::Condition {
            predicate: Box::new(RowFilter::PassAll),
            true_filter: Some(Box::new(chain(vec![RowFilter::PassAll, RowFilter::Sink]))),
            false_filter: None,
        },
        RowFilter::Condition {
            predicate: Box::new(RowFilter::PassAll),
            true_filter: None,
            false_filter: Some(Box::new(interleave(vec![
                RowFilter::Sink,
                RowFilter::PassAll,
            ]))),
        },
    ] {
        assert!(invalid(&mut db, f).contains("sink"));
    }
}

#[test]
fn row_sample_is_repeatable_under_a_seed() {
    let sampled = |seed: u64| -> Vec<Vec<u8>> {
        let mut db = Instance::new(InstanceConfig {
            seed,
            ..InstanceConfig::default()
        });
        filter_table(&mut db, "t", &[("f", None)]);
        for i in 0..400 {
            set(
                &mut db,
                format!("row{i:04}").as_bytes(),
                "f",
                b"q",
                1000,
                b"v",
            );
        }
        read(&mut db, RowFilter::RowSample(0.25))
            .into_iter()
            .map(|r| r.key)
            .collect()
    };
    let a = sampled(7);
    assert_eq!(a, sampled(7), "same seed, same rows");
    assert_ne!(a, sampled(8), "another seed, other rows");
    assert!(
        (60..=140).contains(&a.len()),
        "about a quarter: {}",
        a.len()
    );
    let mut db = sample();
    for p in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(invalid(&mut db, RowFilter::RowSample(p)).contains("row_sample_filter"));
    }
}

#[test]
fn reversed_reads_filter_each_row_the_same_way() {
    let mut db = sample();
    let f = interleave(vec![
        RowFilter::CellsPerRowLimit(1),
        chain(vec![qual("a"), label("a")]),
    ]);
    let forward = read(&mut db, f.clone());
    let mut backward = read_req(
        &mut db,
        &ReadRowsRequest {
            filter: Some(f),
            reversed: true,
            ..ReadRowsRequest::default()
        },
    );
    assert_eq!(keys(&backward), ["\\xff\\x00", "r3\\n", "r2", "r1"]);
    backward.reverse();
    assert_eq!(backward, forward);
    assert_eq!(
        lines(&forward[..1]),
        [
            "r1 cf1:a@3=v3",
            "r1 cf1:a@3=v3 [a]",
            "r1 cf1:a@2=v2 [a]",
            "r1 cf1:a@1=v1 [a]",
            "r1 cf2:a@1=y [a]"
        ]
    );
    // With a rows limit, the limit counts returned rows.
    let rows = read_req(
        &mut db,
        &ReadRowsRequest {
            filter: Some(fam("cf1")),
            reversed: true,
            rows_limit: 2,
            ..ReadRowsRequest::default()
        },
    );
    assert_eq!(keys(&rows), ["r3\\n", "r2"]);
}

#[test]
fn nesting_and_size_limits() {
    let mut db = sample();
    let mut f = RowFilter::PassAll;
    for _ in 0..19 {
        f = chain(vec![f, RowFilter::PassAll]);
    }
    assert!(try_read(&mut db, f.clone()).is_ok(), "20 levels are fine");
    let f = chain(vec![f, RowFilter::PassAll]);
    assert!(invalid(&mut db, f).contains("nested"));
    let big = RowFilter::ValueRegex(vec![b'a'; 5000]);
    assert!(invalid(&mut db, big).contains("4096"));
}

#[test]
fn filters_keep_the_gc_eligible_flag() {
    let mut db = Instance::default();
    db.set_now(T0);
    filter_table(&mut db, "t", &[("f", Some(GcRule::MaxNumVersions(1)))]);
    set(&mut db, b"k", "f", b"q", 1000, b"old");
    set(&mut db, b"k", "f", b"q", 2000, b"new");
    let rows = read(&mut db, chain(vec![RowFilter::StripValue, label("l")]));
    let flags: Vec<bool> = rows[0].cells.iter().map(|c| c.gc_eligible).collect();
    assert_eq!(
        flags,
        [false, true],
        "GC is lazy: the old version is still there, flagged"
    );
    let rows = read(
        &mut db,
        interleave(vec![RowFilter::PassAll, RowFilter::CellsPerRowOffset(1)]),
    );
    let flags: Vec<bool> = rows[0].cells.iter().map(|c| c.gc_eligible).collect();
    assert_eq!(flags, [false, true, true]);
}

#[test]
fn a_filter_only_read_scans_the_whole_table_a_prefix_read_only_what_it_returns() {
    let mut db = Instance::default();
    db.set_now(T0);
    filter_table(&mut db, "t", &[("f", None)]);
    for user in 0..50 {
        for day in 0..4 {
            let key = format!("user{user:02}#day{day}");
            set(&mut db, key.as_bytes(), "f", b"clicks", 1000, b"1");
            set(&mut db, key.as_bytes(), "f", b"views", 1000, b"9");
        }
    }
    // The filter finds user 07's rows, but only after looking at all 200.
    let mut sink = CountRows::default();
    let req = ReadRowsRequest {
        filter: Some(RowFilter::RowKeyRegex(b"user07#\\C*".to_vec())),
        ..ReadRowsRequest::default()
    };
    let by_filter = db.read_rows("t", &req, &mut sink).expect("read");
    assert_eq!((by_filter.rows_seen, by_filter.cells_seen), (200, 400));
    assert_eq!((by_filter.rows_returned, by_filter.cells_returned), (4, 8));
    // The prefix read asks the engine for those rows only.
    let mut sink = CountRows::default();
    let req = ReadRowsRequest::rows(RowSet::range(RowRange::prefix("user07#")));
    let by_prefix = db.read_rows("t", &req, &mut sink).expect("read");
    assert_eq!((by_prefix.rows_seen, by_prefix.cells_seen), (4, 8));
    assert_eq!((by_prefix.rows_returned, by_prefix.cells_returned), (4, 8));
    assert_eq!(by_prefix.bytes_seen, by_prefix.bytes_returned);
    assert!(by_filter.bytes_seen > 40 * by_filter.bytes_returned);
    // A transformer changes what is returned, not what is seen.
    let mut sink = CountRows::default();
    let req = ReadRowsRequest {
        rows: RowSet::range(RowRange::prefix("user07#")),
        filter: Some(RowFilter::StripValue),
        ..ReadRowsRequest::default()
    };
    let stripped = db.read_rows("t", &req, &mut sink).expect("read");
    assert_eq!(stripped.cells_returned, 8);
    assert_eq!(
        stripped.bytes_seen - stripped.bytes_returned,
        8,
        "eight one-byte values"
    );
    // Duplicates from an interleave count as returned cells.
    let mut sink = CountRows::default();
    let req = ReadRowsRequest {
        rows: RowSet::single(b"user07#day0".to_vec()),
        filter: Some(interleave(vec![RowFilter::PassAll, RowFilter::PassAll])),
        ..ReadRowsRequest::default()
    };
    let dup = db.read_rows("t", &req, &mut sink).expect("read");
    assert_eq!((dup.cells_seen, dup.cells_returned, sink.cells), (2, 4, 4));
}

#[test]
fn plans_check_the_families_column_ranges_name() {
    let plan = FilterPlan::compile(&interleave(vec![
        RowFilter::ColumnRange {
            family_name: "known".into(),
            start: KeyBound::Unbounded,
            end: KeyBound::Unbounded,
        },
        RowFilter::ColumnRange {
            family_name: "missing".into(),
            start: KeyBound::Unbounded,
            end: KeyBound::Unbounded,
        },
    ]))
    .expect("compile");
    let err = plan
        .check_families(|f| f == "known")
        .expect_err("missing family");
    assert_eq!(err.code(), Code::NotFound);
    assert!(err.message().contains("missing"));
    assert!(plan.check_families(|_| true).is_ok());
}

/// An instance keeps the regexes it compiled (`RegexCache`): reads that
/// reuse a pattern, in the same field or another, answer as a fresh
/// instance does, and a bad pattern is refused every time in its field's
/// words.
#[test]
fn reused_regexes_answer_as_new_ones() {
    let filters = [
        RowFilter::ValueRegex(b"v.".to_vec()),
        qual("a|b"),
        RowFilter::RowKeyRegex(b"r.".to_vec()),
        RowFilter::ValueRegex(b"r.".to_vec()),
        chain(vec![fam("cf1"), RowFilter::ValueRegex(b"v.".to_vec())]),
        RowFilter::RowKeyRegex(b"a|b".to_vec()),
        qual("v."),
    ];
    let mut kept = sample();
    for round in 0..2 {
        for f in &filters {
            let fresh = read(&mut sample(), f.clone());
            assert_eq!(
                lines(&read(&mut kept, f.clone())),
                lines(&fresh),
                "round {round}: {f:?}"
            );
        }
    }
    for _ in 0..2 {
        let value = invalid(&mut kept, RowFilter::ValueRegex(b"[a".to_vec()));
        assert!(
            value.starts_with("Error in field 'value_regex_filter'"),
            "{value}"
        );
        let key = invalid(&mut kept, RowFilter::RowKeyRegex(b"[a".to_vec()));
        assert!(
            key.starts_with("Error in field 'row_key_regex_filter'"),
            "{key}"
        );
    }
}
