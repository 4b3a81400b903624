//! The mutable, in-memory part of a tablet: recent writes, kept in one byte
//! arena plus fixed-size entries, so a write costs no allocation of its own.
//!
//! Entries live in two vectors. `main` is sorted in cell order. `tail` takes
//! new writes in arrival order; it is sorted lazily (before a read) and
//! merged into `main` once it grows past a limit. Loading data that arrives
//! in key order therefore costs an append, not a search.
//!
//! Cell order is row key, family (by name rank), qualifier, timestamp
//! newest first, and write sequence newest first: among cells with the same
//! coordinates the newest write comes first and wins.

use std::cmp::Ordering;

use super::family::FamilyId;

/// Tail length above which the tail is merged into the sorted part.
const TAIL_LIMIT: usize = 2048;

/// One cell in a memtable. Byte fields are offsets into the arena.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemEntry {
    pub(crate) row_off: u32,
    pub(crate) qual_off: u32,
    pub(crate) val_off: u32,
    pub(crate) val_len: u32,
    pub(crate) ts: i64,
    /// Write order within this memtable; larger is newer.
    pub(crate) seq: u32,
    pub(crate) row_len: u16,
    pub(crate) qual_len: u16,
    pub(crate) fid: FamilyId,
    /// Deleted by a later mutation; dropped at flush.
    pub(crate) dead: bool,
}

/// Reads the byte fields of entries.
#[derive(Clone, Copy)]
pub(crate) struct Arena<'a>(pub(crate) &'a [u8]);

impl<'a> Arena<'a> {
    #[inline]
    pub(crate) fn row(self, e: &MemEntry) -> &'a [u8] {
        let s = e.row_off as usize;
        &self.0[s..s + usize::from(e.row_len)]
    }
    #[inline]
    pub(crate) fn qual(self, e: &MemEntry) -> &'a [u8] {
        let s = e.qual_off as usize;
        &self.0[s..s + usize::from(e.qual_len)]
    }
    #[inline]
    pub(crate) fn value(self, e: &MemEntry) -> &'a [u8] {
        let s = e.val_off as usize;
        &self.0[s..s + e.val_len as usize]
    }

    /// Full cell order, including the write sequence.
    #[inline]
    pub(crate) fn cmp(self, ranks: &[u16], a: &MemEntry, b: &MemEntry) -> Ordering {
        let rows = if a.row_off == b.row_off && a.row_len == b.row_len {
            Ordering::Equal
        } else {
            self.row(a).cmp(self.row(b))
        };
        rows.then_with(|| ranks[usize::from(a.fid)].cmp(&ranks[usize::from(b.fid)]))
            .then_with(|| self.qual(a).cmp(self.qual(b)))
            .then_with(|| b.ts.cmp(&a.ts))
            .then_with(|| b.seq.cmp(&a.seq))
    }
}

/// The memtable of one tablet.
#[derive(Clone, Debug, Default)]
pub(crate) struct Memtable {
    arena: Vec<u8>,
    /// Sorted in cell order.
    main: Vec<MemEntry>,
    /// Arrival order, or sorted when `tail_sorted`.
    tail: Vec<MemEntry>,
    tail_sorted: bool,
    scratch: Vec<MemEntry>,
    next_seq: u32,
    /// Logical bytes of every cell written (see [`crate::row::cell_bytes`]).
    bytes: u64,
}

impl Memtable {
    pub(crate) fn is_empty(&self) -> bool {
        self.main.is_empty() && self.tail.is_empty()
    }

    /// Cells held, including deleted ones not yet flushed away.
    pub(crate) fn len(&self) -> usize {
        self.main.len() + self.tail.len()
    }

    /// Logical bytes written since the last flush.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes of heap this memtable holds.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.arena.capacity()
            + (self.main.capacity() + self.tail.capacity() + self.scratch.capacity())
                * std::mem::size_of::<MemEntry>()
    }

    /// Whether `additional` more arena bytes still fit 32-bit offsets; when
    /// not, the tablet flushes first.
    pub(crate) fn has_room(&self, additional: usize) -> bool {
        self.arena.len().saturating_add(additional) < u32::MAX as usize
            && self.next_seq < u32::MAX - 1
    }

    pub(crate) fn arena(&self) -> Arena<'_> {
        Arena(&self.arena)
    }

    /// Stores a row key once for all cells a mutation writes to that row.
    pub(crate) fn push_row_key(&mut self, key: &[u8]) -> (u32, u16) {
        let off = self.arena.len() as u32;
        self.arena.extend_from_slice(key);
        (off, key.len() as u16)
    }

    /// Appends a cell. `family_len` only feeds the byte accounting.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push_cell(
        &mut self,
        ranks: &[u16],
        row: (u32, u16),
        fid: FamilyId,
        family_len: usize,
        qualifier: &[u8],
        ts: i64,
        value: &[u8],
    ) {
        let qual_off = self.arena.len() as u32;
        self.arena.extend_from_slice(qualifier);
        let val_off = self.arena.len() as u32;
        self.arena.extend_from_slice(value);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.bytes +=
            crate::row::cell_bytes(usize::from(row.1), family_len, qualifier.len(), value.len());
        self.tail.push(MemEntry {
            row_off: row.0,
            qual_off,
            val_off,
            val_len: value.len() as u32,
            ts,
            seq,
            row_len: row.1,
            qual_len: qualifier.len() as u16,
            fid,
            dead: false,
        });
        self.tail_sorted = false;
        if self.tail.len() >= TAIL_LIMIT {
            self.merge_tail(ranks);
        }
    }

    /// Sorts the tail so both parts can be read in order.
    pub(crate) fn prepare(&mut self, ranks: &[u16]) {
        if !self.tail_sorted {
            let arena = Arena(&self.arena);
            self.tail.sort_unstable_by(|a, b| arena.cmp(ranks, a, b));
            self.tail_sorted = true;
        }
    }

    /// The sorted parts, newest first: `[tail, main]`. Call
    /// [`Memtable::prepare`] first.
    pub(crate) fn sorted_parts(&self) -> [&[MemEntry]; 2] {
        debug_assert!(
            self.tail_sorted || self.tail.is_empty(),
            "memtable read before prepare"
        );
        [&self.tail, &self.main]
    }

    fn merge_tail(&mut self, ranks: &[u16]) {
        self.prepare(ranks);
        if self.tail.is_empty() {
            return;
        }
        let arena = Arena(&self.arena);
        let appendable = match self.main.last() {
            None => true,
            Some(last) => arena.cmp(ranks, last, &self.tail[0]) == Ordering::Less,
        };
        if appendable {
            self.main.append(&mut self.tail);
            return;
        }
        self.scratch.clear();
        self.scratch.reserve(self.main.len() + self.tail.len());
        let (mut i, mut j) = (0, 0);
        while i < self.main.len() && j < self.tail.len() {
            if arena.cmp(ranks, &self.tail[j], &self.main[i]) == Ordering::Less {
                self.scratch.push(self.tail[j]);
                j += 1;
            } else {
                self.scratch.push(self.main[i]);
                i += 1;
            }
        }
        self.scratch.extend_from_slice(&self.main[i..]);
        self.scratch.extend_from_slice(&self.tail[j..]);
        self.tail.clear();
        std::mem::swap(&mut self.main, &mut self.scratch);
    }

    /// Marks dead every live cell of row `key` for which `pred` holds.
    /// Returns how many cells it marked.
    pub(crate) fn mark_dead_in_row(
        &mut self,
        key: &[u8],
        mut pred: impl FnMut(&MemEntry, &[u8]) -> bool,
    ) -> usize {
        let arena = Arena(&self.arena);
        let mut marked = 0;
        let start = self.main.partition_point(|e| arena.row(e) < key);
        for e in &mut self.main[start..] {
            if arena.row(e) != key {
                break;
            }
            if !e.dead && pred(e, arena.qual(e)) {
                e.dead = true;
                marked += 1;
            }
        }
        for e in &mut self.tail {
            if !e.dead && arena.row(e) == key && pred(e, arena.qual(e)) {
                e.dead = true;
                marked += 1;
            }
        }
        marked
    }

    /// Marks dead every cell whose row lies in `[start, end)`.
    pub(crate) fn mark_dead_in_range(&mut self, start: &[u8], end: Option<&[u8]>) -> usize {
        let arena = Arena(&self.arena);
        let in_range = |row: &[u8]| row >= start && end.is_none_or(|e| row < e);
        let lo = self.main.partition_point(|e| arena.row(e) < start);
        let hi = match end {
            Some(end) => self.main.partition_point(|e| arena.row(e) < end),
            None => self.main.len(),
        };
        let mut marked = 0;
        for e in &mut self.main[lo..hi.max(lo)] {
            if !e.dead {
                e.dead = true;
                marked += 1;
            }
        }
        for e in &mut self.tail {
            if !e.dead && in_range(arena.row(e)) {
                e.dead = true;
                marked += 1;
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
        let arena = Arena(&self.arena);
        let hit = |e: &MemEntry| {
            !e.dead
                && e.fid == fid
                && e.ts == ts
                && arena.row(e) == key
                && arena.qual(e) == qualifier
        };
        // The tail is newer than main; within the tail, later is newer.
        if let Some(e) = self.tail.iter().filter(|e| hit(e)).max_by_key(|e| e.seq) {
            return Some(arena.value(e));
        }
        let start = self.main.partition_point(|e| arena.row(e) < key);
        self.main[start..]
            .iter()
            .take_while(|e| arena.row(e) == key)
            .find(|e| hit(e))
            .map(|e| arena.value(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(m: &mut Memtable, row: &[u8], q: &[u8], ts: i64, v: &[u8]) {
        let r = m.push_row_key(row);
        m.push_cell(&[0, 1], r, 0, 2, q, ts, v);
    }

    type Cell = (Vec<u8>, Vec<u8>, i64, Vec<u8>);

    fn dump(m: &mut Memtable) -> Vec<Cell> {
        m.prepare(&[0, 1]);
        let arena = m.arena();
        let mut all: Vec<&MemEntry> = m.sorted_parts().iter().flat_map(|p| p.iter()).collect();
        all.sort_by(|a, b| arena.cmp(&[0, 1], a, b));
        all.iter()
            .filter(|e| !e.dead)
            .map(|e| {
                (
                    arena.row(e).to_vec(),
                    arena.qual(e).to_vec(),
                    e.ts,
                    arena.value(e).to_vec(),
                )
            })
            .collect()
    }

    #[test]
    fn cells_come_out_in_cell_order_newest_write_first() {
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
                (&b"a"[..], 2000, &b"3"[..]),
                (&b"a"[..], 1000, &b"4"[..]),
                (&b"a"[..], 1000, &b"2"[..]),
                (&b"b"[..], 1000, &b"1"[..]),
            ]
        );
        assert_eq!(m.find_cell(b"a", 0, b"q", 1000), Some(&b"4"[..]));
    }

    #[test]
    fn tail_merges_into_main_in_order() {
        let mut m = Memtable::default();
        for i in (0..5000u32).rev() {
            put(&mut m, format!("k{i:05}").as_bytes(), b"q", 1000, b"v");
        }
        let d = dump(&mut m);
        assert_eq!(d.len(), 5000);
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn deletes_mark_rows_and_ranges() {
        let mut m = Memtable::default();
        for k in [&b"a"[..], b"b", b"c", b"d"] {
            put(&mut m, k, b"q", 1000, b"v");
        }
        m.prepare(&[0, 1]);
        assert_eq!(m.mark_dead_in_row(b"b", |_, _| true), 1);
        assert_eq!(m.mark_dead_in_range(b"c", None), 2);
        let d = dump(&mut m);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].0, b"a");
        assert_eq!(m.find_cell(b"b", 0, b"q", 1000), None);
    }
}
