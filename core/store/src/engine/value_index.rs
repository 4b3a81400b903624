//! A run's values grouped for value tests: what lets a value regex over a
//! compacted tablet test far fewer values than the run holds cells.
//!
//! Real tables repeat their values: OS builds, statuses, flags, enums and
//! small counters come back in cell after cell. The index groups a run's
//! cells by family and, within a group, lists the distinct short values
//! with the cells that hold each (a dictionary with posting lists), so a
//! value test runs once per distinct value and the passing cells follow
//! from the lists. A group whose values hardly repeat keeps a plain list
//! of its cells, tested one by one, as do values too long for the
//! dictionary. Every group also knows the lengths and first bytes of its
//! values, so a regex that cannot match any of them (`PQ2A\..*` against a
//! family of numbers) skips the group without reading a value.
//!
//! A run never changes its cells or values (deletes only mark cells), so
//! the index stays true for the run's whole life. It is built by reads,
//! never by a write or a compaction, and kept with the run: the groups'
//! lengths and first bytes on first use (one pass over the cells, no
//! hashing), a family's lists the first time a regex may match its values
//! (about four bytes a cell; see BENCHMARKS.md). Groups are families, not
//! columns: a wide row of unique qualifiers would otherwise make a group,
//! with its fixed cost, per cell.

use std::ops::Range;
use std::sync::OnceLock;

use super::family::FamilyId;
use super::run::{QualDict, Run};
use crate::bytes;
use crate::filter::{ByteSet, ValueGate};

/// Values longer than this are not put in a dictionary (they rarely
/// repeat, and hashing them costs their length): their cells are tested
/// one by one.
const MAX_SHORT: usize = 64;

/// A group keeps its dictionary only when its short values repeat at
/// least this many times on average: otherwise testing them one by one
/// costs about as much, with no lists to keep.
const MIN_REPEAT: usize = 4;

/// A dictionary that grows past this many distinct values is given up
/// while the index is built, bounding the build's memory.
const MAX_DISTINCT: usize = 1 << 16;

/// The cells of one run grouped by value, for value tests (see the module
/// documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct ValueIndex {
    groups: Vec<Group>,
}

/// The cells of one family: what its values look like, always; its
/// lists, once a regex that may match them first asks.
#[derive(Clone, Debug)]
struct Group {
    fid: FamilyId,
    /// How many cells the family has in the run.
    cells: usize,
    /// Lengths of the shortest and longest value.
    min_len: usize,
    max_len: usize,
    /// First bytes of the non-empty values.
    first_bytes: ByteSet,
    lists: OnceLock<Lists>,
}

/// A group's cells by value.
#[derive(Clone, Debug, Default)]
struct Lists {
    /// The distinct short values, as `(offset, length)` in the run's value
    /// arena (their first occurrence).
    values: Vec<(u32, u32)>,
    /// `postings[starts[v]..starts[v + 1]]`: the cells holding value `v`,
    /// increasing.
    starts: Vec<u32>,
    postings: Vec<u32>,
    /// Cells tested one by one, increasing: values too long for the
    /// dictionary, or every cell when the dictionary did not pay.
    loose: Vec<u32>,
}

impl Lists {
    fn heap_bytes(&self) -> usize {
        self.values.capacity() * 8
            + (self.starts.capacity() + self.postings.capacity() + self.loose.capacity()) * 4
    }
}

impl ValueIndex {
    /// What the values of each family of `run` look like (deleted cells
    /// included); the lists come later, family by family.
    pub(crate) fn build(run: &Run) -> ValueIndex {
        let values = run.values();
        let mut groups: Vec<Group> = Vec::new();
        let mut slot_of: Vec<usize> = Vec::new();
        for c in run.cells(0..run.cell_count()) {
            let fid = usize::from(c.fid);
            if slot_of.len() <= fid {
                slot_of.resize(fid + 1, usize::MAX);
            }
            if slot_of[fid] == usize::MAX {
                slot_of[fid] = groups.len();
                groups.push(Group {
                    fid: c.fid,
                    cells: 0,
                    min_len: usize::MAX,
                    max_len: 0,
                    first_bytes: ByteSet::EMPTY,
                    lists: OnceLock::new(),
                });
            }
            let g = &mut groups[slot_of[fid]];
            let (off, len) = c.value_span();
            g.cells += 1;
            g.min_len = g.min_len.min(len);
            g.max_len = g.max_len.max(len);
            if let Some(&b) = values.get(off).filter(|_| len > 0) {
                g.first_bytes.add(b);
            }
        }
        ValueIndex { groups }
    }

    /// Heap bytes the index holds.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Group>()
            + self
                .groups
                .iter()
                .filter_map(|g| g.lists.get())
                .map(Lists::heap_bytes)
                .sum::<usize>()
    }

    /// Sets bit `i - cells.start` of `bits` for every cell `i` in `cells`
    /// whose value passes `gate`. `bits` holds at least `cells.len()` bits,
    /// all clear. A family's lists are built the first time a gate may
    /// pass some of its values.
    pub(crate) fn mark_passing(
        &self,
        run: &Run,
        cells: Range<usize>,
        gate: &ValueGate<'_>,
        bits: &mut [u64],
    ) {
        let values = run.values();
        let whole_run = cells.start == 0 && cells.end == run.cell_count();
        let clip = |list: &[u32]| -> Range<usize> {
            if whole_run {
                0..list.len()
            } else {
                let lo = list.partition_point(|&i| (i as usize) < cells.start);
                let hi = list.partition_point(|&i| (i as usize) < cells.end);
                lo..hi
            }
        };
        let base = cells.start;
        let mut mark = |i: u32| {
            let k = i as usize - base;
            bits[k / 64] |= 1 << (k % 64);
        };
        for g in &self.groups {
            if !gate.may_pass(g.min_len, g.max_len, &g.first_bytes) {
                continue;
            }
            let lists = g.lists.get_or_init(|| Lists::build(run, g));
            for (v, &(off, len)) in lists.values.iter().enumerate() {
                let value = &values[off as usize..(off + len) as usize];
                if gate.passes(value) {
                    let list =
                        &lists.postings[lists.starts[v] as usize..lists.starts[v + 1] as usize];
                    list[clip(list)].iter().copied().for_each(&mut mark);
                }
            }
            for &i in &lists.loose[clip(&lists.loose)] {
                if gate.passes(run.value(run.cell(i as usize))) {
                    mark(i);
                }
            }
        }
    }
}

/// A cell tested one by one rather than through its group's dictionary.
const LOOSE: u32 = u32::MAX;

impl Lists {
    /// The lists of `group`'s cells in `run`.
    fn build(run: &Run, group: &Group) -> Lists {
        let cells = run.cells(0..run.cell_count());
        let arena = run.values();
        let mut lists = Lists::default();
        let mut dict = Some(ValueDict::new());
        // The group's cells and each one's value number (`LOOSE`: tested
        // one by one), in cell order.
        let mut mine: Vec<u32> = Vec::with_capacity(group.cells);
        let mut ids: Vec<u32> = Vec::with_capacity(group.cells);
        let mut short = 0usize;
        for (i, c) in cells.iter().enumerate().filter(|(_, c)| c.fid == group.fid) {
            mine.push(i as u32);
            let (off, len) = c.value_span();
            let id = match dict.as_mut().filter(|_| len <= MAX_SHORT) {
                Some(d) => {
                    short += 1;
                    d.intern(arena, &arena[off..off + len], off, &mut lists.values)
                }
                None => LOOSE,
            };
            if lists.values.len() > MAX_DISTINCT {
                dict = None;
                lists.values = Vec::new();
            }
            ids.push(id);
        }
        let repeats = !lists.values.is_empty() && lists.values.len() * MIN_REPEAT <= short;
        match dict.filter(|_| repeats) {
            Some(d) => {
                lists.starts = Vec::with_capacity(d.counts.len() + 1);
                let mut total = 0u32;
                lists.starts.push(0);
                for &n in &d.counts {
                    total += n;
                    lists.starts.push(total);
                }
                lists.postings = vec![0; total as usize];
            }
            None => lists.values = Vec::new(),
        }
        lists.values.shrink_to_fit();
        // The lists, in cell order, so each comes out increasing.
        let mut next = lists.starts.clone();
        for (&i, &id) in mine.iter().zip(&ids) {
            if id == LOOSE || lists.values.is_empty() {
                lists.loose.push(i);
            } else {
                let at = &mut next[id as usize];
                lists.postings[*at as usize] = i;
                *at += 1;
            }
        }
        lists.loose.shrink_to_fit();
        lists
    }
}

/// A dictionary of values: an interning table over `(offset, length)`
/// entries of the run's value arena.
struct ValueDict {
    /// Value numbers, `u32::MAX` for empty; a power of two long.
    slots: Vec<u32>,
    /// A value's slot is its hash's top `64 - shift` bits.
    shift: u32,
    /// How many cells hold each value.
    counts: Vec<u32>,
    /// Each value as a [`word`] when it is [`WORD`] bytes or shorter
    /// (compared in one step), else 0.
    words: Vec<u64>,
}

/// Values of up to this many bytes are hashed and compared as one word.
const WORD: usize = 8;

/// `value` (at most [`WORD`] bytes) as a word: its bytes little-endian,
/// zero-padded, and its length in the top byte when it is shorter than a
/// word (so `0` and `0\0` differ).
#[inline]
fn word(value: &[u8]) -> u64 {
    let mut b = [0u8; WORD];
    b[..value.len()].copy_from_slice(value);
    let w = u64::from_le_bytes(b);
    if value.len() < WORD {
        w | ((value.len() as u64) << 56)
    } else {
        w
    }
}

/// The dictionary's hash of `value`: for a value of one word (flags,
/// small numbers, short codes: most repeated values), one multiplication,
/// whose top bits depend on every bit of the word; beyond, the qualifier
/// table's hash.
#[inline]
fn value_hash(value: &[u8]) -> u64 {
    if value.len() <= WORD {
        word(value).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    } else {
        QualDict::hash(value)
    }
}

impl ValueDict {
    fn new() -> ValueDict {
        ValueDict {
            slots: vec![u32::MAX; 16],
            shift: 64 - 4,
            counts: Vec::new(),
            words: Vec::new(),
        }
    }

    /// Whether entry `id` (`(o, l)` in `arena`) holds `value`, whose word
    /// is `w` when it is short.
    #[inline]
    fn holds(&self, arena: &[u8], id: u32, (o, l): (u32, u32), value: &[u8], w: u64) -> bool {
        if value.len() <= WORD {
            l as usize == value.len() && self.words[id as usize] == w
        } else {
            bytes::eq(&arena[o as usize..(o + l) as usize], value)
        }
    }

    /// The number of `value` (stored at `off` in `arena`), added to
    /// `entries` if new.
    fn intern(
        &mut self,
        arena: &[u8],
        value: &[u8],
        off: usize,
        entries: &mut Vec<(u32, u32)>,
    ) -> u32 {
        if (entries.len() + 1) * 2 > self.slots.len() {
            self.grow(arena, entries);
        }
        let mask = self.slots.len() - 1;
        let w = if value.len() <= WORD { word(value) } else { 0 };
        let mut i = (value_hash(value) >> self.shift) as usize;
        loop {
            let id = self.slots[i];
            if id == u32::MAX {
                let new_id = entries.len() as u32;
                entries.push((off as u32, value.len() as u32));
                self.counts.push(1);
                self.words.push(w);
                self.slots[i] = new_id;
                return new_id;
            }
            if self.holds(arena, id, entries[id as usize], value, w) {
                self.counts[id as usize] += 1;
                return id;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self, arena: &[u8], entries: &[(u32, u32)]) {
        let cap = self.slots.len() * 2;
        self.slots = vec![u32::MAX; cap];
        self.shift -= 1;
        let mask = cap - 1;
        for (id, &(o, l)) in entries.iter().enumerate() {
            let value = &arena[o as usize..(o + l) as usize];
            let mut i = (value_hash(value) >> self.shift) as usize;
            while self.slots[i] != u32::MAX {
                i = (i + 1) & mask;
            }
            self.slots[i] = id as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::engine::run::RunBuilder;
    use crate::filter::{FilterPlan, RowFilter};

    /// Family 0: a flag of two values; family 1: unique numbers; family 2:
    /// a long value and two short ones, repeated.
    fn sample(rows: usize) -> Run {
        let mut b = RunBuilder::new(vec![1, 1, 1]);
        let long = vec![b'x'; MAX_SHORT + 1];
        for r in 0..rows {
            b.start_row(format!("r{r:04}").as_bytes());
            b.add_cell(0, b"f", 0, if r % 3 == 0 { b"on" } else { b"off" });
            b.add_cell(1, b"n", 0, r.to_string().as_bytes());
            let v: &[u8] = match r % 4 {
                0 => &long,
                1 | 2 => b"PQ2A.190405.003",
                _ => b"PQ2A.190415.003",
            };
            b.add_cell(2, b"b", 0, v);
        }
        b.finish()
    }

    fn passing(run: &Run, index: &ValueIndex, cells: Range<usize>, pattern: &[u8]) -> Vec<usize> {
        let plan = FilterPlan::compile(&RowFilter::ValueRegex(pattern.to_vec())).unwrap();
        let gate = plan.value_gate().unwrap();
        let mut bits = vec![0u64; cells.len().div_ceil(64)];
        index.mark_passing(run, cells.clone(), &gate, &mut bits);
        cells
            .clone()
            .filter(|&i| bits[(i - cells.start) / 64] >> ((i - cells.start) % 64) & 1 != 0)
            .collect()
    }

    fn by_hand(run: &Run, cells: Range<usize>, pattern: &[u8]) -> Vec<usize> {
        let plan = FilterPlan::compile(&RowFilter::ValueRegex(pattern.to_vec())).unwrap();
        let gate = plan.value_gate().unwrap();
        cells
            .filter(|&i| gate.passes(run.value(run.cell(i))))
            .collect()
    }

    #[test]
    fn repeated_values_get_a_dictionary_and_unique_ones_do_not() {
        let run = sample(200);
        let index = ValueIndex::build(&run);
        // A regex every family may match builds every family's lists.
        passing(&run, &index, 0..run.cell_count(), b"\\C*");
        let group = |fid| {
            let g = index.groups.iter().find(|g| g.fid == fid).unwrap();
            g.lists.get().unwrap()
        };
        assert_eq!(group(0).values.len(), 2);
        assert!(group(0).loose.is_empty());
        assert!(group(1).values.is_empty(), "unique values stay loose");
        assert_eq!(group(1).loose.len(), 200);
        assert_eq!(group(2).values.len(), 2, "the long value is not kept");
        assert_eq!(group(2).loose.len(), 50);
        let numbers = &index.groups[1];
        assert_eq!((numbers.min_len, numbers.max_len), (1, 3));
        let lists = || index.groups.iter().map(|g| g.lists.get().unwrap());
        let postings: usize = lists().map(|l| l.postings.len()).sum();
        let loose: usize = lists().map(|l| l.loose.len()).sum();
        assert_eq!(postings + loose, run.cell_count());
    }

    #[test]
    fn short_values_that_share_a_word_stay_apart() {
        // `abcdefg` (seven bytes, its length in the top byte) and
        // `abcdefg\x07` (eight) make the same word; so do values told
        // apart only by trailing zero bytes, were the length left out.
        let tricky: [&[u8]; 9] = [
            b"",
            b"\0",
            b"\0\0",
            b"0",
            b"0\0",
            b"abcdefg",
            b"abcdefg\x07",
            b"abcdefgh",
            b"abcdefgh\0",
        ];
        let mut b = RunBuilder::new(vec![1]);
        for r in 0..tricky.len() * 8 {
            b.start_row(format!("r{r:04}").as_bytes());
            b.add_cell(0, b"v", 0, tricky[r % tricky.len()]);
        }
        let run = b.finish();
        let index = ValueIndex::build(&run);
        let n = run.cell_count();
        for pattern in [
            &b"abcdefg"[..],
            b"abcdefg\\x07",
            b"\\x00",
            b"",
            b"0",
            b"0\\x00",
            b"abcdefgh",
            b"\\C{8}",
        ] {
            assert_eq!(
                passing(&run, &index, 0..n, pattern),
                by_hand(&run, 0..n, pattern),
                "{}",
                String::from_utf8_lossy(pattern)
            );
        }
        let lists = index.groups[0].lists.get().unwrap();
        assert_eq!(
            lists.values.len(),
            tricky.len(),
            "one entry per distinct value"
        );
        assert!(lists.loose.is_empty());
    }

    #[test]
    fn marks_exactly_the_passing_cells_of_a_span() {
        let run = sample(200);
        let index = ValueIndex::build(&run);
        let n = run.cell_count();
        for pattern in [
            &b"PQ2A\\.19040[0-9]\\.003"[..],
            b"o.*",
            b"1\\C*",
            b"x+",
            b"",
            b"on|7",
            b"PQ2A.*",
            // Lengths at the very edge of a family's (2 to 3 bytes).
            b"o.{2}",
            b"of+",
            b"o[nf]",
        ] {
            for cells in [0..n, 0..1, 7..300, 301..n, 5..5] {
                assert_eq!(
                    passing(&run, &index, cells.clone(), pattern),
                    by_hand(&run, cells.clone(), pattern),
                    "{} over {cells:?}",
                    String::from_utf8_lossy(pattern)
                );
            }
        }
    }
}
