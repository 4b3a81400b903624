//! The mutable, in-memory part of a tablet: recent writes, kept in one byte
//! arena plus fixed-size records, so a write costs no allocation of its own.
//!
//! Every MutateRow call that writes cells adds one *group*: the row key
//! (stored once in the arena) and the cells the call wrote, sorted in cell
//! order when the call ends. Cells never move after that; only the small
//! group records are sorted, by row key and then newest first. So a row
//! written once with eight cells costs one sort entry, not eight.
//!
//! New groups go to `tail` in arrival order. The tail is sorted lazily
//! (before a read), and once it grows past a limit it becomes a sorted
//! chunk. Chunks are merged like a binary counter: when the newest chunk is
//! about as large as the one before it, the two are merged. So there are
//! O(log n) chunks, each group is moved O(log n) times, and data arriving in
//! any key order costs no search and no large memmove per write.
//!
//! Cell order is row key, family (by name rank), qualifier, timestamp
//! newest first; among cells with the same coordinates the newest write
//! comes first and wins.

use std::cmp::Ordering;

use super::family::FamilyId;

/// Tail length (in groups) above which the tail becomes a sorted chunk: a
/// sixteenth of the memtable, between these bounds (short tails keep reads
/// of small memtables cheap; long ones keep the number of chunks low).
const TAIL_MIN: usize = 64;
const TAIL_MAX: usize = 2048;

/// One cell in a memtable; byte fields are offsets into the arena.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemCell {
    pub(crate) ts: i64,
    pub(crate) qual_off: u32,
    pub(crate) val_off: u32,
    pub(crate) val_len: u32,
    pub(crate) qual_len: u16,
    pub(crate) fid: FamilyId,
    /// Deleted by a later mutation; dropped at flush.
    pub(crate) dead: bool,
}

/// The cells one MutateRow call wrote to one row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Group {
    /// The first 16 bytes of the row key, big-endian, zero-padded: most
    /// comparisons end here without touching the arena.
    prefix_hi: u64,
    prefix_lo: u64,
    pub(crate) row_off: u32,
    /// Index of the first cell in `Memtable::cells`.
    pub(crate) first: u32,
    pub(crate) len: u32,
    /// Arrival order; larger is newer.
    seq: u32,
    pub(crate) row_len: u16,
}

impl Group {
    #[inline]
    pub(crate) fn cells(&self) -> std::ops::Range<usize> {
        self.first as usize..(self.first + self.len) as usize
    }
}

/// Read access to the arena and the cells.
#[derive(Clone, Copy)]
pub(crate) struct MemView<'a> {
    arena: &'a [u8],
    cells: &'a [MemCell],
}

impl<'a> MemView<'a> {
    /// Bytes in the arena.
    pub(crate) fn arena_len(self) -> usize {
        self.arena.len()
    }

    #[inline]
    pub(crate) fn row(self, g: &Group) -> &'a [u8] {
        let s = g.row_off as usize;
        &self.arena[s..s + usize::from(g.row_len)]
    }
    #[inline]
    pub(crate) fn cell(self, i: usize) -> &'a MemCell {
        &self.cells[i]
    }
    #[inline]
    pub(crate) fn qual(self, c: &MemCell) -> &'a [u8] {
        let s = c.qual_off as usize;
        &self.arena[s..s + usize::from(c.qual_len)]
    }
    #[inline]
    pub(crate) fn value(self, c: &MemCell) -> &'a [u8] {
        let s = c.val_off as usize;
        &self.arena[s..s + c.val_len as usize]
    }

    /// Row order of two groups (ignoring their age).
    #[inline]
    pub(crate) fn cmp_rows(self, a: &Group, b: &Group) -> Ordering {
        if a.row_off == b.row_off && a.row_len == b.row_len {
            return Ordering::Equal;
        }
        match (a.prefix_hi, a.prefix_lo).cmp(&(b.prefix_hi, b.prefix_lo)) {
            Ordering::Equal if a.row_len > 16 || b.row_len > 16 || a.row_len != b.row_len => {
                crate::bytes::cmp(self.row(a), self.row(b))
            }
            other => other,
        }
    }

    /// Group order: row key, then newest first.
    #[inline]
    fn cmp_groups(self, a: &Group, b: &Group) -> Ordering {
        self.cmp_rows(a, b).then_with(|| b.seq.cmp(&a.seq))
    }

    /// Cell order within a row.
    #[inline]
    fn cmp_cells(self, ranks: &[u16], a: &MemCell, b: &MemCell) -> Ordering {
        ranks[usize::from(a.fid)]
            .cmp(&ranks[usize::from(b.fid)])
            .then_with(|| crate::bytes::cmp(self.qual(a), self.qual(b)))
            .then_with(|| b.ts.cmp(&a.ts))
    }
}

/// The two halves of a key prefix.
#[inline]
fn key_prefix(key: &[u8]) -> (u64, u64) {
    let mut b = [0u8; 16];
    let n = key.len().min(16);
    b[..n].copy_from_slice(&key[..n]);
    let hi = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let lo = u64::from_be_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
    (hi, lo)
}

/// The memtable of one tablet.
#[derive(Clone, Debug, Default)]
pub(crate) struct Memtable {
    arena: Vec<u8>,
    cells: Vec<MemCell>,
    /// Sorted chunks, oldest first; each is newer than the ones before it.
    chunks: Vec<Vec<Group>>,
    /// Arrival order, or sorted when `tail_sorted`; newer than every chunk.
    tail: Vec<Group>,
    tail_sorted: bool,
    /// The group being written by the current MutateRow call (the last
    /// element of `tail`).
    open: bool,
    scratch: Vec<Group>,
    groups: usize,
    /// Logical bytes of every cell written (see [`crate::row::cell_bytes`]).
    bytes: u64,
}

impl Memtable {
    pub(crate) fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Cells held, including deleted ones not yet flushed away.
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }

    /// Logical bytes written since the last flush.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes of heap this memtable holds.
    pub(crate) fn heap_bytes(&self) -> usize {
        let groups = self.chunks.iter().map(Vec::capacity).sum::<usize>()
            + self.tail.capacity()
            + self.scratch.capacity();
        self.arena.capacity()
            + self.cells.capacity() * std::mem::size_of::<MemCell>()
            + groups * std::mem::size_of::<Group>()
    }

    /// Whether `additional` more arena bytes still fit 32-bit offsets; when
    /// not, the tablet flushes first.
    pub(crate) fn has_room(&self, additional: usize) -> bool {
        self.arena.len().saturating_add(additional) < u32::MAX as usize
            && self.cells.len() < u32::MAX as usize - 1024
            && self.groups < u32::MAX as usize - 1
    }

    pub(crate) fn view(&self) -> MemView<'_> {
        MemView {
            arena: &self.arena,
            cells: &self.cells,
        }
    }

    /// Makes room for `bytes` more arena bytes and a few cells.
    pub(crate) fn reserve(&mut self, bytes: usize) {
        self.arena.reserve(bytes);
        self.cells.reserve(16);
    }

    /// Empties the memtable but keeps its buffers for the next round (a
    /// tablet that just filled its memtable is likely to fill it again;
    /// compaction releases them).
    pub(crate) fn clear(&mut self) {
        debug_assert!(!self.open, "memtable cleared while a group is open");
        self.arena.clear();
        self.cells.clear();
        self.chunks.clear();
        self.tail.clear();
        self.tail_sorted = false;
        self.groups = 0;
        self.bytes = 0;
    }

    /// Starts the group of one MutateRow call: stores the row key once.
    pub(crate) fn open_group(&mut self, key: &[u8]) {
        debug_assert!(!self.open, "group opened twice");
        let row_off = self.arena.len() as u32;
        self.arena.extend_from_slice(key);
        let (prefix_hi, prefix_lo) = key_prefix(key);
        self.tail.push(Group {
            prefix_hi,
            prefix_lo,
            row_off,
            first: self.cells.len() as u32,
            len: 0,
            seq: self.groups as u32,
            row_len: key.len() as u16,
        });
        self.groups += 1;
        self.tail_sorted = false;
        self.open = true;
    }

    pub(crate) fn is_open(&self) -> bool {
        self.open
    }

    /// Appends a cell to the open group. `family_len` only feeds the byte
    /// accounting.
    pub(crate) fn push_cell(
        &mut self,
        fid: FamilyId,
        family_len: usize,
        qualifier: &[u8],
        ts: i64,
        value: &[u8],
    ) {
        debug_assert!(self.open, "cell written without a group");
        let qual_off = self.arena.len() as u32;
        self.arena.extend_from_slice(qualifier);
        let val_off = self.arena.len() as u32;
        self.arena.extend_from_slice(value);
        let Some(g) = self.tail.last_mut() else {
            return;
        };
        self.bytes += crate::row::cell_bytes(
            usize::from(g.row_len),
            family_len,
            qualifier.len(),
            value.len(),
        );
        g.len += 1;
        self.cells.push(MemCell {
            ts,
            qual_off,
            val_off,
            val_len: value.len() as u32,
            qual_len: qualifier.len() as u16,
            fid,
            dead: false,
        });
    }

    /// Ends the open group: sorts its cells (newest write first among
    /// equal coordinates) and folds the tail into chunks when it is long.
    pub(crate) fn close_group(&mut self, ranks: &[u16]) {
        if !self.open {
            return;
        }
        self.open = false;
        let Some(g) = self.tail.last().copied() else {
            return;
        };
        if g.len == 0 {
            // A call that only deleted: nothing to keep.
            self.tail.pop();
            self.arena.truncate(g.row_off as usize);
            return;
        }
        // Insertion sort: groups are small and usually sorted already. A
        // cell moves before every earlier cell that is not smaller, so the
        // later of two equal cells ends up first.
        let range = g.cells();
        for i in range.start + 1..range.end {
            let cur = self.cells[i];
            let mut j = i;
            while j > range.start {
                let view = MemView {
                    arena: &self.arena,
                    cells: &self.cells,
                };
                if view.cmp_cells(ranks, &self.cells[j - 1], &cur) == Ordering::Less {
                    break;
                }
                self.cells[j] = self.cells[j - 1];
                j -= 1;
            }
            self.cells[j] = cur;
        }
        if self.tail.len() >= (self.groups / 16).clamp(TAIL_MIN, TAIL_MAX) {
            self.merge_tail();
        }
    }

    /// Sorts the tail so every part can be read in order.
    pub(crate) fn prepare(&mut self) {
        debug_assert!(!self.open, "memtable read while a group is open");
        if !self.tail_sorted {
            let view = MemView {
                arena: &self.arena,
                cells: &self.cells,
            };
            self.tail.sort_unstable_by(|a, b| view.cmp_groups(a, b));
            self.tail_sorted = true;
        }
    }

    /// The sorted parts, newest first: the tail, then the chunks. Call
    /// [`Memtable::prepare`] first.
    pub(crate) fn sorted_parts(&self) -> impl Iterator<Item = &[Group]> {
        debug_assert!(
            self.tail_sorted || self.tail.is_empty(),
            "memtable read before prepare"
        );
        std::iter::once(self.tail.as_slice())
            .chain(self.chunks.iter().rev().map(Vec::as_slice))
            .filter(|p| !p.is_empty())
    }

    /// Merges the tail and every chunk into one sorted chunk (before a
    /// flush, so the run is built from a single source).
    pub(crate) fn merge_all(&mut self) {
        self.merge_tail();
        while self.chunks.len() >= 2 {
            self.merge_last_two();
        }
    }

    /// Turns the tail into the newest chunk and merges equal-sized chunks.
    fn merge_tail(&mut self) {
        self.prepare();
        if self.tail.is_empty() {
            return;
        }
        let chunk = std::mem::replace(&mut self.tail, Vec::with_capacity(TAIL_MIN));
        self.chunks.push(chunk);
        while self.chunks.len() >= 2 {
            let n = self.chunks.len();
            if self.chunks[n - 2].len() > 2 * self.chunks[n - 1].len() {
                break;
            }
            self.merge_last_two();
        }
    }

    fn merge_last_two(&mut self) {
        let newer = self.chunks.pop().unwrap_or_default();
        let older = self.chunks.pop().unwrap_or_default();
        let view = MemView {
            arena: &self.arena,
            cells: &self.cells,
        };
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        out.reserve(newer.len() + older.len());
        let disjoint = match (older.last(), newer.first()) {
            (Some(a), Some(b)) => view.cmp_groups(a, b) == Ordering::Less,
            _ => true,
        };
        if disjoint {
            out.extend_from_slice(&older);
            out.extend_from_slice(&newer);
        } else {
            let (mut i, mut j) = (0, 0);
            while i < older.len() && j < newer.len() {
                if view.cmp_groups(&newer[j], &older[i]) == Ordering::Less {
                    out.push(newer[j]);
                    j += 1;
                } else {
                    out.push(older[i]);
                    i += 1;
                }
            }
            out.extend_from_slice(&older[i..]);
            out.extend_from_slice(&newer[j..]);
        }
        self.chunks.push(out);
        // Keep the larger of the two freed buffers for the next merge.
        self.scratch = if older.capacity() >= newer.capacity() {
            older
        } else {
            newer
        };
    }

    /// Visits the groups of row `key` (in no particular order).
    fn groups_of_row<'s>(&'s self, key: &'s [u8]) -> impl Iterator<Item = &'s Group> + 's {
        let view = self.view();
        let (hi, lo) = key_prefix(key);
        let probe = Group {
            prefix_hi: hi,
            prefix_lo: lo,
            row_off: u32::MAX,
            first: 0,
            len: 0,
            seq: 0,
            row_len: key.len() as u16,
        };
        let is_row = move |g: &Group| (g.prefix_hi, g.prefix_lo) == (hi, lo) && view.row(g) == key;
        let before = move |g: &Group| match (g.prefix_hi, g.prefix_lo)
            .cmp(&(probe.prefix_hi, probe.prefix_lo))
        {
            Ordering::Equal => view.row(g) < key,
            o => o == Ordering::Less,
        };
        let chunks = self.chunks.iter().flat_map(move |chunk| {
            let start = chunk.partition_point(|g| before(g));
            chunk[start..].iter().take_while(move |g| is_row(g))
        });
        self.tail.iter().filter(move |g| is_row(g)).chain(chunks)
    }

    /// Marks dead every live cell of row `key` for which `pred` holds.
    /// Returns how many cells it marked.
    pub(crate) fn mark_dead_in_row(
        &mut self,
        key: &[u8],
        mut pred: impl FnMut(&MemCell, &[u8]) -> bool,
    ) -> usize {
        let ranges: Vec<std::ops::Range<usize>> =
            self.groups_of_row(key).map(Group::cells).collect();
        let mut marked = 0;
        for range in ranges {
            for i in range {
                let c = self.cells[i];
                let q = c.qual_off as usize;
                if !c.dead && pred(&c, &self.arena[q..q + usize::from(c.qual_len)]) {
                    self.cells[i].dead = true;
                    marked += 1;
                }
            }
        }
        marked
    }

    /// Marks dead every cell whose row lies in `[start, end)`.
    pub(crate) fn mark_dead_in_range(&mut self, start: &[u8], end: Option<&[u8]>) -> usize {
        let view = MemView {
            arena: &self.arena,
            cells: &self.cells,
        };
        let in_range = |g: &Group| {
            let row = view.row(g);
            row >= start && end.is_none_or(|e| row < e)
        };
        let ranges: Vec<std::ops::Range<usize>> = self
            .tail
            .iter()
            .chain(self.chunks.iter().flatten())
            .filter(|g| in_range(g))
            .map(Group::cells)
            .collect();
        let mut marked = 0;
        for range in ranges {
            for c in &mut self.cells[range] {
                if !c.dead {
                    c.dead = true;
                    marked += 1;
                }
            }
        }
        marked
    }

    /// The newest live cell at exactly these coordinates.
    pub(crate) fn find_cell(
        &self,
        key: &[u8],
        fid: FamilyId,
        qualifier: &[u8],
        ts: i64,
    ) -> Option<&[u8]> {
        let view = self.view();
        let mut best: Option<(u32, &[u8])> = None;
        for g in self.groups_of_row(key) {
            if best.is_some_and(|(seq, _)| seq > g.seq) {
                continue;
            }
            // Within a closed group the newest equal cell comes first; in
            // the open group (arrival order) the last one is the newest.
            let mut hit = g.cells().filter_map(|i| {
                let c = &self.cells[i];
                (!c.dead && c.fid == fid && c.ts == ts && view.qual(c) == qualifier)
                    .then(|| view.value(c))
            });
            let found = if self.open && self.tail.last().is_some_and(|t| t.seq == g.seq) {
                hit.next_back()
            } else {
                hit.next()
            };
            if let Some(v) = found {
                best = Some((g.seq, v));
            }
        }
        best.map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(m: &mut Memtable, row: &[u8], q: &[u8], ts: i64, v: &[u8]) {
        m.open_group(row);
        m.push_cell(0, 2, q, ts, v);
        m.close_group(&[0, 1]);
    }

    type Cell = (Vec<u8>, Vec<u8>, i64, Vec<u8>);

    /// Every live cell, in read order (rows, then groups newest first).
    fn dump(m: &mut Memtable) -> Vec<Cell> {
        m.prepare();
        let view = m.view();
        let mut groups: Vec<&Group> = m.sorted_parts().flat_map(|p| p.iter()).collect();
        groups.sort_by(|a, b| view.cmp_groups(a, b));
        let mut out = Vec::new();
        for g in groups {
            for i in g.cells() {
                let c = view.cell(i);
                if !c.dead {
                    out.push((
                        view.row(g).to_vec(),
                        view.qual(c).to_vec(),
                        c.ts,
                        view.value(c).to_vec(),
                    ));
                }
            }
        }
        out
    }

    #[test]
    fn groups_come_out_by_row_newest_first() {
        let mut m = Memtable::default();
        put(&mut m, b"b", b"q", 1000, b"1");
        put(&mut m, b"a", b"q", 1000, b"2");
        put(&mut m, b"a", b"q", 2000, b"3");
        put(&mut m, b"a", b"q", 1000, b"4");
        let d = dump(&mut m);
        let got: Vec<(&[u8], i64, &[u8])> = d
            .iter()
            .map(|(r, _, t, v)| (r.as_slice(), *t, v.as_slice()))
            .collect();
        assert_eq!(
            got,
            vec![
                (&b"a"[..], 1000, &b"4"[..]),
                (&b"a"[..], 2000, &b"3"[..]),
                (&b"a"[..], 1000, &b"2"[..]),
                (&b"b"[..], 1000, &b"1"[..]),
            ]
        );
        assert_eq!(m.find_cell(b"a", 0, b"q", 1000), Some(&b"4"[..]));
    }

    #[test]
    fn cells_of_one_call_are_sorted_later_write_first() {
        let mut m = Memtable::default();
        m.open_group(b"r");
        m.push_cell(1, 2, b"z", 1000, b"1");
        m.push_cell(0, 2, b"b", 1000, b"2");
        m.push_cell(0, 2, b"a", 1000, b"3");
        m.push_cell(0, 2, b"a", 1000, b"4");
        assert_eq!(
            m.find_cell(b"r", 0, b"a", 1000),
            Some(&b"4"[..]),
            "open group"
        );
        m.close_group(&[0, 1]);
        let vals: Vec<Vec<u8>> = dump(&mut m).into_iter().map(|c| c.3).collect();
        assert_eq!(
            vals,
            vec![b"4".to_vec(), b"3".to_vec(), b"2".to_vec(), b"1".to_vec()]
        );
    }

    #[test]
    fn chunks_merge_in_order() {
        let mut m = Memtable::default();
        for i in (0..5000u32).rev() {
            put(&mut m, format!("k{i:05}").as_bytes(), b"q", 1000, b"v");
        }
        assert!(m.chunks.len() > 1);
        m.merge_all();
        assert_eq!(m.chunks.len(), 1);
        let d = dump(&mut m);
        assert_eq!(d.len(), 5000);
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn long_keys_with_equal_prefixes_compare_fully() {
        let mut m = Memtable::default();
        put(&mut m, b"0123456789abcdefZ", b"q", 1000, b"1");
        put(&mut m, b"0123456789abcdef", b"q", 1000, b"2");
        put(&mut m, b"0123456789abcdefA", b"q", 1000, b"3");
        let rows: Vec<Vec<u8>> = dump(&mut m).into_iter().map(|c| c.0).collect();
        assert_eq!(
            rows,
            vec![
                b"0123456789abcdef".to_vec(),
                b"0123456789abcdefA".to_vec(),
                b"0123456789abcdefZ".to_vec()
            ]
        );
    }

    #[test]
    fn deletes_mark_rows_and_ranges() {
        let mut m = Memtable::default();
        for k in [&b"a"[..], b"b", b"c", b"d"] {
            put(&mut m, k, b"q", 1000, b"v");
        }
        assert_eq!(m.mark_dead_in_row(b"b", |_, _| true), 1);
        assert_eq!(m.mark_dead_in_range(b"c", None), 2);
        let d = dump(&mut m);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].0, b"a");
        assert_eq!(m.find_cell(b"b", 0, b"q", 1000), None);
    }
}
