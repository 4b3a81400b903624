#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// The filter evaluator against a naive model: straightforward code on
// owned cells that follows data.proto's description of each filter
// literally (interleave = concatenate and stable-sort, sink = copy to the
// output, ...). A property test compares them on random rows and random
// filter trees (native only: proptest needs an OS random source); a fixed
// set of trees runs everywhere, wasm included.

use std::cmp::Reverse;

use tabletop_store::*;

/// A cell of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Cell {
    family: String,
    qualifier: Vec<u8>,
    ts: i64,
    value: Vec<u8>,
    label: Option<String>,
    gc_eligible: bool,
}

impl Cell {
    fn order_key(&self) -> (&str, &[u8], Reverse<i64>) {
        (&self.family, &self.qualifier, Reverse(self.ts))
    }
}

type Pattern = (&'static str, fn(&[u8]) -> bool);

/// RE2 patterns and what they mean, written out by hand.
const PATTERNS: &[Pattern] = &[
    ("a", |v| v == b"a"),
    ("\\C*", |_| true),
    (".*", |v| !v.contains(&b'\n')),
    ("x|y", |v| v == b"x" || v == b"y"),
    ("[^a]\\C*", |v| v.first().is_some_and(|&b| b != b'a')),
    ("\\xff", |v| v == b"\xff"),
    ("", |v| v.is_empty()),
    ("a.*", |v| {
        v.first() == Some(&b'a') && !v[1..].contains(&b'\n')
    }),
    ("(?i)A", |v| v == b"a" || v == b"A"),
    ("\\C?\\n", |v| v.last() == Some(&b'\n') && v.len() <= 2),
    ("[ab]+", |v| {
        !v.is_empty() && v.iter().all(|&b| b == b'a' || b == b'b')
    }),
    ("f[12]", |v| v == b"f1" || v == b"f2"),
    ("\\d*", |v| v.iter().all(u8::is_ascii_digit)),
    ("ab?", |v| v == b"a" || v == b"ab"),
    ("1|a\\C", |v| v == b"1" || (v.len() == 2 && v[0] == b'a')),
];

/// A filter of the model; converts to a [`RowFilter`].
#[derive(Clone, Debug)]
enum Tf {
    Chain(Vec<Tf>),
    Interleave(Vec<Tf>),
    Cond(Box<Tf>, Option<Box<Tf>>, Option<Box<Tf>>),
    Sink,
    Pass,
    Block,
    RowKey(usize),
    Family(usize),
    Qualifier(usize),
    ColumnRange(String, KeyBound, KeyBound),
    Timestamp(i64, i64),
    Value(usize),
    ValueRange(KeyBound, KeyBound),
    Offset(i32),
    Limit(i32),
    ColumnLimit(i32),
    Strip,
    Label(&'static str),
}

impl Tf {
    fn to_filter(&self) -> RowFilter {
        let pat = |i: &usize| PATTERNS[*i].0.as_bytes().to_vec();
        match self {
            Tf::Chain(v) => RowFilter::Chain(v.iter().map(Tf::to_filter).collect()),
            Tf::Interleave(v) => RowFilter::Interleave(v.iter().map(Tf::to_filter).collect()),
            Tf::Cond(p, t, f) => RowFilter::Condition {
                predicate: Box::new(p.to_filter()),
                true_filter: t.as_ref().map(|t| Box::new(t.to_filter())),
                false_filter: f.as_ref().map(|f| Box::new(f.to_filter())),
            },
            Tf::Sink => RowFilter::Sink,
            Tf::Pass => RowFilter::PassAll,
            Tf::Block => RowFilter::BlockAll,
            Tf::RowKey(i) => RowFilter::RowKeyRegex(pat(i)),
            Tf::Family(i) => RowFilter::FamilyNameRegex(PATTERNS[*i].0.into()),
            Tf::Qualifier(i) => RowFilter::ColumnQualifierRegex(pat(i)),
            Tf::ColumnRange(f, s, e) => RowFilter::ColumnRange {
                family_name: f.clone(),
                start: s.clone(),
                end: e.clone(),
            },
            Tf::Timestamp(s, e) => RowFilter::TimestampRange(TimestampRange {
                start_micros: *s,
                end_micros: *e,
            }),
            Tf::Value(i) => RowFilter::ValueRegex(pat(i)),
            Tf::ValueRange(s, e) => RowFilter::ValueRange {
                start: s.clone(),
                end: e.clone(),
            },
            Tf::Offset(n) => RowFilter::CellsPerRowOffset(*n),
            Tf::Limit(n) => RowFilter::CellsPerRowLimit(*n),
            Tf::ColumnLimit(n) => RowFilter::CellsPerColumnLimit(*n),
            Tf::Strip => RowFilter::StripValue,
            Tf::Label(l) => RowFilter::ApplyLabel((*l).to_string()),
        }
    }
}

fn above(v: &[u8], b: &KeyBound) -> bool {
    match b {
        KeyBound::Unbounded => true,
        KeyBound::Closed(k) => v >= k.as_slice(),
        KeyBound::Open(k) => v > k.as_slice(),
    }
}

fn below(v: &[u8], b: &KeyBound) -> bool {
    match b {
        KeyBound::Unbounded => true,
        KeyBound::Closed(k) => v <= k.as_slice(),
        KeyBound::Open(k) => v < k.as_slice(),
    }
}

fn sorted(mut cells: Vec<Cell>) -> Vec<Cell> {
    cells.sort_by(|a, b| a.order_key().cmp(&b.order_key())); // stable
    cells
}

/// The model: what `f` makes of a row, plus what reached a sink.
fn naive(f: &Tf, key: &[u8], cells: Vec<Cell>, sink: &mut Vec<Cell>) -> Vec<Cell> {
    let keep =
        |cells: Vec<Cell>, p: &dyn Fn(&Cell) -> bool| cells.into_iter().filter(|c| p(c)).collect();
    match f {
        Tf::Chain(subs) => subs.iter().fold(cells, |acc, s| naive(s, key, acc, sink)),
        Tf::Interleave(subs) => {
            let mut all = Vec::new();
            for s in subs {
                all.extend(naive(s, key, cells.clone(), sink));
            }
            sorted(all)
        }
        Tf::Cond(p, t, e) => {
            let matched = !naive(p, key, cells.clone(), &mut Vec::new()).is_empty();
            match (matched, t, e) {
                (true, Some(t), _) => naive(t, key, cells, sink),
                (false, _, Some(e)) => naive(e, key, cells, sink),
                _ => Vec::new(),
            }
        }
        Tf::Sink => {
            sink.extend(cells);
            Vec::new()
        }
        Tf::Pass => cells,
        Tf::Block => Vec::new(),
        Tf::RowKey(i) => {
            if (PATTERNS[*i].1)(key) {
                cells
            } else {
                Vec::new()
            }
        }
        Tf::Family(i) => keep(cells, &|c| (PATTERNS[*i].1)(c.family.as_bytes())),
        Tf::Qualifier(i) => keep(cells, &|c| (PATTERNS[*i].1)(&c.qualifier)),
        Tf::ColumnRange(fam, s, e) => keep(cells, &|c| {
            c.family == *fam && above(&c.qualifier, s) && below(&c.qualifier, e)
        }),
        Tf::Timestamp(s, e) => keep(cells, &|c| c.ts >= *s && (*e == 0 || c.ts < *e)),
        Tf::Value(i) => keep(cells, &|c| (PATTERNS[*i].1)(&c.value)),
        Tf::ValueRange(s, e) => keep(cells, &|c| above(&c.value, s) && below(&c.value, e)),
        Tf::Offset(n) => cells.into_iter().skip(*n as usize).collect(),
        Tf::Limit(n) => cells.into_iter().take(*n as usize).collect(),
        Tf::ColumnLimit(n) => {
            let mut out: Vec<Cell> = Vec::new();
            let mut prev: Option<(String, Vec<u8>)> = None;
            let mut count = 0;
            for c in cells {
                let column = (c.family.clone(), c.qualifier.clone());
                let same = prev.as_ref() == Some(&column);
                prev = Some(column);
                count = if same { count + 1 } else { 1 };
                if count <= *n {
                    out.push(c);
                }
            }
            out
        }
        Tf::Strip => cells
            .into_iter()
            .map(|c| Cell {
                value: Vec::new(),
                ..c
            })
            .collect(),
        Tf::Label(l) => cells
            .into_iter()
            .map(|c| Cell {
                label: Some((*l).to_string()),
                ..c
            })
            .collect(),
    }
}

/// The model's answer for a whole row.
fn model(f: &Tf, key: &[u8], cells: &[Cell]) -> Vec<Cell> {
    let mut sink = Vec::new();
    let mut out = naive(f, key, cells.to_vec(), &mut sink);
    out.extend(sink);
    sorted(out)
}

/// The evaluator's answer, through `FilterPlan::apply`.
fn evaluate(plan: &FilterPlan, key: &[u8], cells: &[Cell]) -> Vec<Cell> {
    let views: Vec<CellView<'_>> = cells
        .iter()
        .map(|c| CellView {
            family: &c.family,
            qualifier: &c.qualifier,
            timestamp_micros: c.ts,
            value: &c.value,
            label: None,
            gc_eligible: c.gc_eligible,
        })
        .collect();
    let mut scratch = FilterScratch::new();
    let mut out = Vec::new();
    plan.apply(key, &views, &mut scratch, &mut out);
    // The scratch space keeps buffers between rows, never results.
    let mut again = Vec::new();
    plan.apply(key, &views, &mut scratch, &mut again);
    assert_eq!(out, again, "reusing the scratch space changes nothing");
    out.iter()
        .map(|v| Cell {
            family: v.family.to_string(),
            qualifier: v.qualifier.to_vec(),
            ts: v.timestamp_micros,
            value: v.value.to_vec(),
            label: v.label.map(str::to_string),
            gc_eligible: v.gc_eligible,
        })
        .collect()
}

/// A row's cells in read order, with unique coordinates.
fn row(raw: &[(usize, usize, i64, Vec<u8>, bool)]) -> Vec<Cell> {
    const FAMILIES: [&str; 3] = ["f1", "f2", "g"];
    const QUALIFIERS: [&[u8]; 5] = [b"", b"a", b"x", b"\n", b"\xff"];
    let mut cells: Vec<Cell> = raw
        .iter()
        .map(|(f, q, ts, v, gc)| Cell {
            family: FAMILIES[f % 3].to_string(),
            qualifier: QUALIFIERS[q % 5].to_vec(),
            ts: ts * 1000,
            value: v.clone(),
            label: None,
            gc_eligible: *gc,
        })
        .collect();
    cells.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    cells.dedup_by(|a, b| a.order_key() == b.order_key());
    cells
}

/// Compares the evaluator with the model on one filter and row; filters
/// Bigtable rejects are skipped (they never reach the evaluator).
fn check(f: &Tf, key: &[u8], cells: &[Cell]) -> bool {
    let plan = match FilterPlan::compile(&f.to_filter()) {
        Ok(p) => p.with_seed(1),
        Err(e) => {
            assert_eq!(e.code(), Code::InvalidArgument, "{e}");
            return false;
        }
    };
    let got = evaluate(&plan, key, cells);
    let want = model(f, key, cells);
    assert_eq!(got, want, "filter {f:?} on row {key:?} {cells:?}");
    true
}

fn b(x: &[u8]) -> KeyBound {
    KeyBound::Closed(x.to_vec())
}

#[test]
fn fixed_trees_agree_with_the_model() {
    let cells = row(&[
        (0, 1, 3, b"a".to_vec(), false),
        (0, 1, 2, b"ab".to_vec(), true),
        (0, 1, 1, b"a\n".to_vec(), true),
        (0, 2, 1, b"x".to_vec(), false),
        (1, 0, 5, b"\xff".to_vec(), false),
        (1, 3, 2, b"".to_vec(), false),
        (2, 4, 4, b"12".to_vec(), false),
    ]);
    use Tf::*;
    let trees = [
        Pass,
        Chain(vec![Interleave(vec![Pass, Label("l1")]), ColumnLimit(1)]),
        Interleave(vec![
            Chain(vec![Family(11), Label("l1"), Sink]),
            Chain(vec![Qualifier(1), Limit(3)]),
        ]),
        Chain(vec![
            Strip,
            Value(6),
            Offset(2),
            Interleave(vec![Sink, Label("l2")]),
        ]),
        Cond(
            Box::new(Value(5)),
            Some(Box::new(Chain(vec![Label("l1"), Limit(2)]))),
            None,
        ),
        Cond(Box::new(Value(0)), None, Some(Box::new(Block))),
        Interleave(vec![
            ColumnRange("f1".into(), KeyBound::Open(b"".to_vec()), b(b"x")),
            ValueRange(b(b"1"), KeyBound::Unbounded),
            Timestamp(2000, 4000),
        ]),
        Chain(vec![
            Interleave(vec![Pass, Pass, Qualifier(9)]),
            Interleave(vec![Offset(1), Chain(vec![ColumnLimit(2), Label("l2")])]),
        ]),
        Chain(vec![RowKey(4), Value(7), Strip]),
        Interleave(vec![
            Chain(vec![Sink, Block]),
            Chain(vec![Value(10), Sink]),
            Value(12),
        ]),
    ];
    let mut checked = 0;
    for t in &trees {
        for key in [&b"k"[..], b"a"] {
            if check(t, key, &cells) {
                checked += 1;
            }
        }
    }
    assert_eq!(checked, trees.len() * 2, "every fixed tree is valid");
}

#[test]
fn one_scratch_space_serves_many_rows() {
    use Tf::*;
    let rows: Vec<Vec<Cell>> = (0..6)
        .map(|i| {
            row(&[
                (i % 3, 1, 1, b"a".to_vec(), false),
                (i % 3, 2, 2, b"x".to_vec(), false),
                ((i + 1) % 3, 4, 3, b"ab".to_vec(), true),
                (2, i % 5, 1, b"1".to_vec(), false),
            ])
        })
        .collect();
    let trees = [
        Chain(vec![Family(11), Qualifier(3), Label("l1")]),
        Chain(vec![
            ColumnRange("f1".into(), KeyBound::Unbounded, b(b"x")),
            Value(10),
        ]),
        Interleave(vec![Chain(vec![Family(11), Sink]), ColumnLimit(1)]),
    ];
    for t in &trees {
        let plan = FilterPlan::compile(&t.to_filter()).expect("valid");
        let views: Vec<Vec<CellView<'_>>> = rows
            .iter()
            .map(|cells| {
                cells
                    .iter()
                    .map(|c| CellView {
                        family: &c.family,
                        qualifier: &c.qualifier,
                        timestamp_micros: c.ts,
                        value: &c.value,
                        label: None,
                        gc_eligible: c.gc_eligible,
                    })
                    .collect()
            })
            .collect();
        let mut scratch = FilterScratch::new();
        for (cells, v) in rows.iter().zip(&views) {
            let mut out = Vec::new();
            plan.apply(b"k", v, &mut scratch, &mut out);
            let got: Vec<Cell> = out
                .iter()
                .map(|v| Cell {
                    family: v.family.to_string(),
                    qualifier: v.qualifier.to_vec(),
                    ts: v.timestamp_micros,
                    value: v.value.to_vec(),
                    label: v.label.map(str::to_string),
                    gc_eligible: v.gc_eligible,
                })
                .collect();
            assert_eq!(got, model(t, b"k", cells), "{t:?}");
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod random {
    use proptest::prelude::*;

    use super::*;

    fn bound() -> impl Strategy<Value = KeyBound> {
        let bytes = prop::sample::select(vec![&b""[..], b"a", b"ab", b"x", b"\n", b"\xff", b"1"]);
        prop_oneof![
            Just(KeyBound::Unbounded),
            bytes.clone().prop_map(|b| KeyBound::Closed(b.to_vec())),
            bytes.prop_map(|b| KeyBound::Open(b.to_vec())),
        ]
    }

    fn leaf() -> impl Strategy<Value = Tf> {
        let pattern = 0..PATTERNS.len();
        prop_oneof![
            Just(Tf::Pass),
            Just(Tf::Block),
            Just(Tf::Sink),
            Just(Tf::Strip),
            prop::sample::select(vec!["l1", "l2"]).prop_map(Tf::Label),
            pattern.clone().prop_map(Tf::RowKey),
            pattern.clone().prop_map(Tf::Family),
            pattern.clone().prop_map(Tf::Qualifier),
            pattern.prop_map(Tf::Value),
            (
                prop::sample::select(vec!["f1", "f2", "g"]),
                bound(),
                bound()
            )
                .prop_map(|(f, s, e)| Tf::ColumnRange(f.to_string(), s, e)),
            (0..6i64, 0..7i64).prop_map(|(s, e)| Tf::Timestamp(s * 1000, e * 1000)),
            (bound(), bound()).prop_map(|(s, e)| Tf::ValueRange(s, e)),
            (0..5i32).prop_map(Tf::Offset),
            (1..5i32).prop_map(Tf::Limit),
            (1..4i32).prop_map(Tf::ColumnLimit),
        ]
    }

    fn tree() -> impl Strategy<Value = Tf> {
        leaf().prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 2..4).prop_map(Tf::Chain),
                prop::collection::vec(inner.clone(), 2..4).prop_map(Tf::Interleave),
                (
                    inner.clone(),
                    prop::option::of(inner.clone()),
                    prop::option::of(inner)
                )
                    .prop_map(|(p, t, f)| Tf::Cond(
                        Box::new(p),
                        t.map(Box::new),
                        f.map(Box::new)
                    )),
            ]
        })
    }

    fn raw_cells() -> impl Strategy<Value = Vec<(usize, usize, i64, Vec<u8>, bool)>> {
        let value = prop::collection::vec(
            prop::sample::select(vec![b'a', b'b', b'x', b'1', b'\n', 0, 0xff]),
            0..3,
        );
        prop::collection::vec((0..3usize, 0..5usize, 1..6i64, value, any::<bool>()), 0..14)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn evaluator_agrees_with_the_model(
            f in tree(),
            key in prop::sample::select(vec![&b"k"[..], b"a", b"\xff\n", b"x"]),
            raw in raw_cells(),
        ) {
            let cells = row(&raw);
            check(&f, key, &cells);
        }
    }
}
