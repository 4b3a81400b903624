//! Running a compiled plan on one row.
//!
//! Cell-by-cell plans ([`Body::Flat`]) run in a single pass: row tests
//! once, then every step on each cell in turn, with column-level decisions
//! (family, qualifier, column range) cached while the column stays the same.
//!
//! Other plans ([`Body::Tree`]) work on *items*: an index into the row's
//! input cells plus the transformations applied so far (label, stripped
//! value). Every node's output is ordered by input index, which is the
//! row's cell order (family, qualifier, newest first), so an interleave is a
//! merge of index lists and duplicates from different branches stay side by
//! side (earlier branches first). `sink` outputs are merged the same way
//! into a per-row list that joins the result at the end. Item lists come
//! from a pool in the [`FilterScratch`], so a row costs no allocation once
//! the pool has warmed up.

use super::compile::{Body, Node, Step};
use super::{FilterPlan, FilterScratch};
use crate::bytes;
use crate::row::CellView;

/// One cell of a working set: which input cell, and what the filters did
/// to it so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    /// Index into the row's input cells.
    idx: u32,
    /// Label id (`FilterPlan::labels[label - 1]`), 0 to keep the input's.
    label: u16,
    /// Whether the value was stripped.
    strip: bool,
}

/// Runs `plan` on one row; see [`FilterPlan::apply`].
pub(crate) fn apply<'a>(
    plan: &'a FilterPlan,
    key: &[u8],
    input: &[CellView<'a>],
    scratch: &mut FilterScratch<'a>,
    out: &mut Vec<CellView<'a>>,
) {
    if input.is_empty() {
        return;
    }
    match &plan.body {
        Body::Flat(steps) => run_flat(plan, steps, key, input, scratch, out),
        Body::Tree(root) => run_tree(plan, root, key, input, scratch, out),
    }
}

fn label_of(plan: &FilterPlan, id: u16) -> Option<&str> {
    usize::from(id)
        .checked_sub(1)
        .and_then(|i| plan.labels.get(i))
        .map(String::as_str)
}

/// Whether two cells are in the same column.
#[inline]
fn same_column(a: &CellView<'_>, b: &CellView<'_>) -> bool {
    bytes::eq(a.qualifier, b.qualifier)
        && (std::ptr::eq(a.family, b.family) || bytes::eq(a.family.as_bytes(), b.family.as_bytes()))
}

/// A row-level step's decision.
fn row_passes(plan: &FilterPlan, step: &Step, key: &[u8]) -> bool {
    match step {
        Step::RowKey(re) => re.is_match(key),
        Step::RowSample { threshold, salt } => sample_hash(plan.seed, *salt, key) < *threshold,
        Step::Block => false,
        _ => true,
    }
}

/// A cell-level test's decision; `value` is the cell's value as earlier
/// steps left it (empty once stripped). Transformers and row-level steps
/// pass everything.
#[inline]
fn cell_passes(step: &Step, c: &CellView<'_>, value: &[u8]) -> bool {
    match step {
        Step::Family(re) => re.is_match(c.family.as_bytes()),
        Step::Qualifier(re) => re.is_match(c.qualifier),
        Step::ColumnRange { family, range } => {
            bytes::eq(c.family.as_bytes(), family.as_bytes()) && range.contains(c.qualifier)
        }
        Step::Timestamp { start, end } => {
            c.timestamp_micros >= *start && end.is_none_or(|e| c.timestamp_micros < e)
        }
        Step::Value(re) => re.is_match(value),
        Step::ValueRange(range) => range.contains(value),
        _ => true,
    }
}

/// Largest generation of the column cache before it is cleared.
const MAX_GENERATION: u32 = 1 << 30;

fn run_flat<'a>(
    plan: &'a FilterPlan,
    steps: &[Step],
    key: &[u8],
    input: &[CellView<'a>],
    scratch: &mut FilterScratch<'a>,
    out: &mut Vec<CellView<'a>>,
) {
    if steps
        .iter()
        .any(|s| s.is_row_level() && !row_passes(plan, s, key))
    {
        return;
    }
    // The most common filter, alone: a tight loop.
    if let [Step::Value(re)] = steps {
        out.extend(input.iter().filter(|c| re.is_match(c.value)).copied());
        return;
    }
    // Column-level decisions are cached per step, tagged with a generation
    // that moves on when the column changes (no clearing per column):
    // `slot = generation << 1 | passed`.
    let column_level = steps.iter().any(Step::is_column_level);
    let FilterScratch {
        cache, generation, ..
    } = scratch;
    if cache.len() != steps.len() {
        cache.clear();
        cache.resize(steps.len(), 0);
    }
    let mut prev: Option<&CellView<'a>> = None;
    'cells: for c in input {
        if column_level {
            if !prev.is_some_and(|p| same_column(p, c)) {
                *generation += 1;
                if *generation >= MAX_GENERATION {
                    cache.fill(0);
                    *generation = 1;
                }
            }
            prev = Some(c);
        }
        let mut value = c.value;
        let mut label = c.label;
        for (step, slot) in steps.iter().zip(cache.iter_mut()) {
            match step {
                Step::Strip => value = &[],
                Step::Label(id) => label = label_of(plan, *id).or(label),
                s if s.is_column_level() => {
                    if *slot >> 1 != *generation {
                        *slot = *generation << 1 | u32::from(cell_passes(s, c, value));
                    }
                    if *slot & 1 == 0 {
                        continue 'cells;
                    }
                }
                s => {
                    if !cell_passes(s, c, value) {
                        continue 'cells;
                    }
                }
            }
        }
        out.push(CellView { value, label, ..*c });
    }
}

fn run_tree<'a>(
    plan: &'a FilterPlan,
    root: &'a Node,
    key: &[u8],
    input: &[CellView<'a>],
    scratch: &mut FilterScratch<'a>,
    out: &mut Vec<CellView<'a>>,
) {
    let FilterScratch { pool, sink, .. } = scratch;
    sink.clear();
    let mut cx = Cx {
        plan,
        key,
        cells: input,
        pool,
        sink,
    };
    let mut items = cx.take();
    // A row holds far fewer than 2^32 cells (rows are at most 256 MiB).
    items.extend((0..input.len()).map(|i| Item {
        idx: i as u32,
        label: 0,
        strip: false,
    }));
    let mut result = cx.take();
    cx.eval(root, &items, &mut result);
    let done: &[Item] = if cx.sink.is_empty() {
        &result
    } else {
        items.clear();
        merge(&result, cx.sink, &mut items);
        &items
    };
    out.reserve(done.len());
    out.extend(done.iter().map(|&it| cx.view(it)));
    cx.give(items);
    cx.give(result);
}

/// Stable merge of two lists ordered by input index: on equal indexes the
/// items of `a` come first.
fn merge(a: &[Item], b: &[Item], out: &mut Vec<Item>) {
    out.reserve(a.len() + b.len());
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => {
                if x.idx <= y.idx {
                    a.next()
                } else {
                    b.next()
                }
            }
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => return,
        };
        if let Some(&it) = next {
            out.push(it);
        }
    }
}

/// Evaluation state for one row.
struct Cx<'p, 'a, 's> {
    plan: &'a FilterPlan,
    key: &'p [u8],
    cells: &'p [CellView<'a>],
    pool: &'s mut Vec<Vec<Item>>,
    sink: &'s mut Vec<Item>,
}

impl<'a> Cx<'_, 'a, '_> {
    fn take(&mut self) -> Vec<Item> {
        let mut v = self.pool.pop().unwrap_or_default();
        v.clear();
        v
    }

    fn give(&mut self, v: Vec<Item>) {
        self.pool.push(v);
    }

    #[inline]
    fn cell(&self, it: Item) -> &CellView<'a> {
        &self.cells[it.idx as usize]
    }

    #[inline]
    fn value(&self, it: Item) -> &'a [u8] {
        if it.strip { &[] } else { self.cell(it).value }
    }

    fn view(&self, it: Item) -> CellView<'a> {
        let c = *self.cell(it);
        CellView {
            value: self.value(it),
            label: if it.label == 0 {
                c.label
            } else {
                label_of(self.plan, it.label).or(c.label)
            },
            ..c
        }
    }

    /// Adds cells to the read's output, keeping it in cell order.
    fn sink_add(&mut self, input: &[Item]) {
        let Some(first) = input.first() else {
            return;
        };
        if self.sink.last().is_none_or(|l| l.idx <= first.idx) {
            self.sink.extend_from_slice(input);
            return;
        }
        let mut merged = self.take();
        merge(self.sink, input, &mut merged);
        std::mem::swap(self.sink, &mut merged);
        self.give(merged);
    }

    fn eval(&mut self, node: &'a Node, input: &[Item], out: &mut Vec<Item>) {
        match node {
            Node::Step(s) => self.step(s, input, out),
            Node::Sink => self.sink_add(input),
            Node::Chain(subs) => {
                let mut cur = self.take();
                let mut next = self.take();
                let last = subs.len().saturating_sub(1);
                for (i, sub) in subs.iter().enumerate() {
                    let src: &[Item] = if i == 0 { input } else { &cur };
                    if i == last {
                        self.eval(sub, src, out);
                        break;
                    }
                    next.clear();
                    self.eval(sub, src, &mut next);
                    std::mem::swap(&mut cur, &mut next);
                    if cur.is_empty() {
                        break;
                    }
                }
                self.give(cur);
                self.give(next);
            }
            Node::Interleave(subs) => {
                let mut acc = self.take();
                let mut branch = self.take();
                let mut merged = self.take();
                for sub in subs {
                    branch.clear();
                    self.eval(sub, input, &mut branch);
                    if branch.is_empty() {
                        continue;
                    }
                    if acc.is_empty() {
                        std::mem::swap(&mut acc, &mut branch);
                        continue;
                    }
                    merged.clear();
                    merge(&acc, &branch, &mut merged);
                    std::mem::swap(&mut acc, &mut merged);
                }
                out.extend_from_slice(&acc);
                self.give(acc);
                self.give(branch);
                self.give(merged);
            }
            Node::Condition {
                predicate,
                on_true,
                on_false,
            } => {
                let mut p = self.take();
                self.eval(predicate, input, &mut p);
                let matched = !p.is_empty();
                self.give(p);
                let branch = if matched { on_true } else { on_false };
                if let Some(b) = branch {
                    self.eval(b, input, out);
                }
            }
            Node::Offset(n) => out.extend_from_slice(input.get(*n..).unwrap_or(&[])),
            Node::Limit(n) => out.extend_from_slice(input.get(..*n).unwrap_or(input)),
            Node::ColumnLimit(n) => {
                let mut prev: Option<Item> = None;
                let mut count = 0;
                for &it in input {
                    let same = prev.is_some_and(|p| {
                        p.idx == it.idx || same_column(self.cell(p), self.cell(it))
                    });
                    count = if same { count + 1 } else { 1 };
                    prev = Some(it);
                    if count <= *n {
                        out.push(it);
                    }
                }
            }
        }
    }

    fn step(&mut self, s: &Step, input: &[Item], out: &mut Vec<Item>) {
        match s {
            Step::Pass => out.extend_from_slice(input),
            Step::Block => {}
            Step::RowKey(_) | Step::RowSample { .. } => {
                if row_passes(self.plan, s, self.key) {
                    out.extend_from_slice(input);
                }
            }
            Step::Strip => out.extend(input.iter().map(|&it| Item { strip: true, ..it })),
            Step::Label(id) => out.extend(input.iter().map(|&it| Item { label: *id, ..it })),
            s if s.is_column_level() => {
                // The decision depends on the column only: reuse it while
                // the column stays the same.
                let mut last: Option<(Item, bool)> = None;
                for &it in input {
                    let pass = match last {
                        Some((p, r))
                            if p.idx == it.idx || same_column(self.cell(p), self.cell(it)) =>
                        {
                            r
                        }
                        _ => {
                            let r = cell_passes(s, self.cell(it), self.value(it));
                            last = Some((it, r));
                            r
                        }
                    };
                    if pass {
                        out.push(it);
                    }
                }
            }
            s => {
                for &it in input {
                    if cell_passes(s, self.cell(it), self.value(it)) {
                        out.push(it);
                    }
                }
            }
        }
    }
}

/// SplitMix64's finaliser: a strong 64-bit mix.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The row sample's coin: a hash of the plan's seed, the filter's position
/// among the plan's row samples and the row key. Stable across runs,
/// platforms and versions, so a lesson sampling rows shows the same rows
/// every time.
pub(crate) fn sample_hash(seed: u64, salt: u64, key: &[u8]) -> u64 {
    let mut h = mix(seed ^ mix(salt.wrapping_add(0x9e37_79b9_7f4a_7c15)));
    for chunk in key.chunks(8) {
        let mut word = [0u8; 8];
        for (w, b) in word.iter_mut().zip(chunk) {
            *w = *b;
        }
        h = mix(h ^ u64::from_le_bytes(word));
    }
    mix(h ^ key.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_is_stable_and_ordered() {
        let it = |idx, label| Item {
            idx,
            label,
            strip: false,
        };
        let a = [it(0, 1), it(2, 1), it(2, 1), it(5, 1)];
        let b = [it(1, 2), it(2, 2), it(6, 2)];
        let mut out = Vec::new();
        merge(&a, &b, &mut out);
        let got: Vec<(u32, u16)> = out.iter().map(|i| (i.idx, i.label)).collect();
        assert_eq!(
            got,
            [(0, 1), (1, 2), (2, 1), (2, 1), (2, 2), (5, 1), (6, 2)]
        );
    }

    #[test]
    fn sample_hash_depends_on_everything() {
        let h = sample_hash(1, 1, b"row");
        assert_eq!(h, sample_hash(1, 1, b"row"));
        assert_ne!(h, sample_hash(2, 1, b"row"));
        assert_ne!(h, sample_hash(1, 2, b"row"));
        assert_ne!(h, sample_hash(1, 1, b"row\x00"));
    }
}
