//! Immutable sorted runs: what a memtable becomes when it is flushed, and
//! what compaction produces (the SSTables of Bigtable, kept in memory).
//!
//! A run is a handful of flat vectors: row keys in one arena, a fixed-size
//! entry per row and per cell, qualifiers interned in a per-run dictionary
//! (tables repeat the same few qualifiers millions of times), and values in
//! one arena. Cells of a row are contiguous and in cell order.
//!
//! Runs never change after [`RunBuilder::finish`], except for one thing: a
//! deletion bitmap. Deletes mark the cells they remove instead of writing
//! tombstones; reads skip marked cells and the next compaction drops them.
//! (A run also keeps the [`ValueIndex`] a read may build of its values;
//! that adds to the run without changing it.)

use std::sync::OnceLock;

use super::family::FamilyId;
use super::fence::{Fences, Seek};
use super::value_index::ValueIndex;

/// One row of a run.
#[derive(Clone, Copy, Debug)]
struct RunRow {
    key_off: u32,
    key_len: u32,
    first_cell: u32,
}

/// One cell of a run (24 bytes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunCell {
    /// Index into the qualifier dictionary.
    qual: u32,
    pub(crate) fid: FamilyId,
    val_off: u32,
    val_len: u32,
    pub(crate) ts: i64,
}

impl RunCell {
    /// Where the value lies in its run's [`Run::values`]: `(offset, length)`.
    #[inline]
    pub(crate) fn value_span(&self) -> (usize, usize) {
        (self.val_off as usize, self.val_len as usize)
    }

    /// The qualifier's id in its run's dictionary: two cells of one run
    /// have the same qualifier exactly when their ids are equal.
    #[inline]
    pub(crate) fn qual_id(&self) -> u32 {
        self.qual
    }
}

/// An immutable sorted run.
#[derive(Clone, Debug, Default)]
pub(crate) struct Run {
    keys: Vec<u8>,
    rows: Vec<RunRow>,
    /// A word of each row's key, for seeks.
    fences: Fences,
    /// `row_end_bytes[i]`: logical bytes of rows `0..=i`.
    row_end_bytes: Vec<u64>,
    cells: Vec<RunCell>,
    /// `(offset, len)` of each interned qualifier in `qual_bytes`.
    quals: Vec<(u32, u32)>,
    qual_bytes: Vec<u8>,
    values: Vec<u8>,
    /// Logical bytes of the largest row.
    max_row_bytes: u64,
    /// Deletion bitmap over `cells`; empty while nothing is deleted.
    dead: Vec<u64>,
    dead_cells: usize,
    /// The families the cells belong to, in increasing id order.
    families: Vec<FamilyId>,
    /// The cells grouped by value, built by the first read that wants it.
    value_index: OnceLock<ValueIndex>,
}

impl Run {
    pub(crate) fn row_count(&self) -> usize {
        self.rows.len()
    }

    pub(crate) fn cell_count(&self) -> usize {
        self.cells.len()
    }

    pub(crate) fn dead_count(&self) -> usize {
        self.dead_cells
    }

    /// Logical bytes of every cell, deleted ones included.
    pub(crate) fn bytes(&self) -> u64 {
        self.row_end_bytes.last().copied().unwrap_or(0)
    }

    /// Logical bytes of the largest row.
    pub(crate) fn max_row_bytes(&self) -> u64 {
        self.max_row_bytes
    }

    /// Logical bytes of rows `0..row` (a prefix of the run).
    pub(crate) fn bytes_before(&self, row: usize) -> u64 {
        if row == 0 {
            0
        } else {
            self.row_end_bytes[row - 1]
        }
    }

    /// Heap bytes this run holds.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.keys.capacity()
            + self.rows.capacity() * std::mem::size_of::<RunRow>()
            + self.fences.heap_bytes()
            + self.row_end_bytes.capacity() * 8
            + self.cells.capacity() * std::mem::size_of::<RunCell>()
            + self.quals.capacity() * 8
            + self.qual_bytes.capacity()
            + self.values.capacity()
            + self.dead.capacity() * 8
            + self.value_index.get().map_or(0, ValueIndex::heap_bytes)
    }

    /// The run's cells grouped by value, built on first call (a read's,
    /// never a write's or a compaction's) and kept: the run's values never
    /// change.
    pub(crate) fn value_index(&self) -> &ValueIndex {
        self.value_index.get_or_init(|| ValueIndex::build(self))
    }

    /// Bytes of row keys and of values held.
    pub(crate) fn arena_sizes(&self) -> (usize, usize) {
        (self.keys.len(), self.values.len())
    }

    #[inline]
    pub(crate) fn row_key(&self, row: usize) -> &[u8] {
        let r = &self.rows[row];
        &self.keys[r.key_off as usize..(r.key_off + r.key_len) as usize]
    }

    /// The range of cell indexes of a row.
    #[inline]
    pub(crate) fn row_cells(&self, row: usize) -> std::ops::Range<usize> {
        let start = self.rows[row].first_cell as usize;
        let end = self
            .rows
            .get(row + 1)
            .map_or(self.cells.len(), |r| r.first_cell as usize);
        start..end
    }

    /// First row whose key is not less than `key`.
    pub(crate) fn lower_bound(&self, key: &[u8]) -> usize {
        self.lower_bound_from(0, key)
    }

    /// First row whose key is not less than `key`, when the rows before
    /// `from` are all less. It looks at rows `from`, `from + 1`,
    /// `from + 3`, ... (doubling the stride) before it halves, so the end
    /// of a short range just after its start costs a few neighbouring
    /// words, not a search of the whole run.
    pub(crate) fn lower_bound_from(&self, from: usize, key: &[u8]) -> usize {
        let n = self.rows.len();
        if from >= n {
            return n;
        }
        let w = match self.fences.seek(key, self.row_key(0)) {
            Seek::First => return from,
            Seek::Past => return n,
            Seek::Word(w) => w,
        };
        let before = |row: usize| self.fences.row_before(row, w, self.row_key(row), key);
        debug_assert!(
            from == 0 || before(from - 1),
            "rows before `from` not all less"
        );
        let (mut lo, mut step) = (from, 1);
        let hi = loop {
            let probe = lo + step - 1;
            if probe >= n {
                break n;
            }
            if !before(probe) {
                break probe;
            }
            lo = probe + 1;
            step *= 2;
        };
        Fences::partition(lo..hi, before)
    }

    #[inline]
    pub(crate) fn cell(&self, i: usize) -> &RunCell {
        &self.cells[i]
    }

    #[inline]
    pub(crate) fn qual(&self, c: &RunCell) -> &[u8] {
        let (off, len) = self.quals[c.qual as usize];
        &self.qual_bytes[off as usize..(off + len) as usize]
    }

    #[inline]
    pub(crate) fn value(&self, c: &RunCell) -> &[u8] {
        &self.values[c.val_off as usize..(c.val_off + c.val_len) as usize]
    }

    /// The cells with indexes in `range`.
    #[inline]
    pub(crate) fn cells(&self, range: std::ops::Range<usize>) -> &[RunCell] {
        &self.cells[range]
    }

    /// The value arena: every cell's value, in cell order.
    pub(crate) fn values(&self) -> &[u8] {
        &self.values
    }

    /// The families the run's cells belong to (deleted cells included).
    pub(crate) fn families(&self) -> impl Iterator<Item = FamilyId> + '_ {
        self.families.iter().copied()
    }

    #[inline]
    pub(crate) fn is_dead(&self, i: usize) -> bool {
        !self.dead.is_empty() && self.dead[i / 64] & (1 << (i % 64)) != 0
    }

    /// Marks cell `i` deleted; returns whether it was live.
    pub(crate) fn mark_dead(&mut self, i: usize) -> bool {
        if self.dead.is_empty() {
            self.dead = vec![0; self.cells.len().div_ceil(64)];
        }
        let (word, bit) = (i / 64, 1u64 << (i % 64));
        if self.dead[word] & bit != 0 {
            return false;
        }
        self.dead[word] |= bit;
        self.dead_cells += 1;
        true
    }

    /// Marks every cell of rows `[lo, hi)` deleted; returns how many were live.
    pub(crate) fn mark_rows_dead(&mut self, lo: usize, hi: usize) -> usize {
        if lo >= hi {
            return 0;
        }
        let cells = self.row_cells(lo).start..self.row_cells(hi - 1).end;
        cells.filter(|&i| self.mark_dead(i)).count()
    }
}

impl Run {
    /// Cuts a run with no deleted cell into consecutive runs, the first
    /// ending before row `points[0]`, the next starting there, and so on
    /// (`points` increasing, inside `1..row_count`). Each piece takes its
    /// slice of the keys, rows, cells and values with their offsets moved,
    /// instead of being built again cell by cell; its qualifier dictionary
    /// keeps the qualifiers it uses, in the order it first uses them, as a
    /// build would.
    pub(crate) fn cut(&self, points: &[usize]) -> Vec<Run> {
        debug_assert!(self.dead_cells == 0, "cut of a run with deleted cells");
        let n = self.rows.len();
        debug_assert!(
            points.windows(2).all(|w| w[0] < w[1]) && points.iter().all(|&p| p > 0 && p < n),
            "cut points out of order or range"
        );
        let mut bounds = Vec::with_capacity(points.len() + 2);
        bounds.push(0);
        bounds.extend_from_slice(points);
        bounds.push(n);
        let mut remap = vec![u32::MAX; self.quals.len()];
        bounds
            .windows(2)
            .map(|w| self.piece(w[0], w[1], &mut remap))
            .collect()
    }

    /// Rows `[lo, hi)` as a run of their own (see [`Run::cut`]); `remap`
    /// is scratch space of one entry per qualifier.
    fn piece(&self, lo: usize, hi: usize, remap: &mut [u32]) -> Run {
        let key_at = |row: usize| {
            self.rows
                .get(row)
                .map_or(self.keys.len(), |r| r.key_off as usize)
        };
        let cell_at = |row: usize| {
            self.rows
                .get(row)
                .map_or(self.cells.len(), |r| r.first_cell as usize)
        };
        let (k0, k1) = (key_at(lo), key_at(hi));
        let (c0, c1) = (cell_at(lo), cell_at(hi));
        let value_at = |cell: usize| {
            self.cells
                .get(cell)
                .map_or(self.values.len(), |c| c.val_off as usize)
        };
        let (v0, v1) = (value_at(c0), value_at(c1));
        let b0 = self.bytes_before(lo);
        remap.fill(u32::MAX);
        let mut quals = Vec::new();
        let mut qual_bytes = Vec::new();
        let mut present: Vec<bool> = Vec::new();
        let cells = self.cells[c0..c1]
            .iter()
            .map(|c| {
                let q = c.qual as usize;
                if remap[q] == u32::MAX {
                    let (off, len) = self.quals[q];
                    remap[q] = quals.len() as u32;
                    quals.push((qual_bytes.len() as u32, len));
                    qual_bytes
                        .extend_from_slice(&self.qual_bytes[off as usize..(off + len) as usize]);
                }
                let fid = usize::from(c.fid);
                if present.len() <= fid {
                    present.resize(fid + 1, false);
                }
                present[fid] = true;
                RunCell {
                    qual: remap[q],
                    val_off: c.val_off - v0 as u32,
                    ..*c
                }
            })
            .collect();
        let row_end_bytes: Vec<u64> = self.row_end_bytes[lo..hi].iter().map(|b| b - b0).collect();
        let mut max_row_bytes = 0;
        let mut prev = 0;
        for &end in &row_end_bytes {
            max_row_bytes = max_row_bytes.max(end - prev);
            prev = end;
        }
        let mut run = Run {
            keys: self.keys[k0..k1].to_vec(),
            rows: self.rows[lo..hi]
                .iter()
                .map(|r| RunRow {
                    key_off: r.key_off - k0 as u32,
                    key_len: r.key_len,
                    first_cell: r.first_cell - c0 as u32,
                })
                .collect(),
            fences: Fences::default(),
            row_end_bytes,
            cells,
            quals,
            qual_bytes,
            values: self.values[v0..v1].to_vec(),
            max_row_bytes,
            dead: Vec::new(),
            dead_cells: 0,
            families: (0..present.len())
                .filter(|&fid| present[fid])
                .map(|fid| fid as FamilyId)
                .collect(),
            value_index: OnceLock::new(),
        };
        run.fences = Fences::build((0..run.rows.len()).map(|row| run.row_key(row)));
        run
    }
}

/// Builds a [`Run`] from cells given in cell order.
#[derive(Debug)]
pub(crate) struct RunBuilder {
    run: Run,
    dict: QualDict,
    /// Family name length by id, for byte accounting.
    family_lens: Vec<u16>,
    total_bytes: u64,
    /// Qualifier-id translation per source run, for copying cells without
    /// hashing their qualifiers again.
    remaps: Vec<Vec<u32>>,
    /// The qualifier ids of the previous row's cells by position: rows of
    /// one table tend to repeat the same columns in the same order.
    recent: [u32; 32],
    /// Cells added to the current row.
    row_cells: usize,
}

impl RunBuilder {
    /// A builder; `family_lens[id]` is the length of family `id`'s name.
    pub(crate) fn new(family_lens: Vec<u16>) -> RunBuilder {
        RunBuilder {
            run: Run::default(),
            dict: QualDict::default(),
            family_lens,
            total_bytes: 0,
            remaps: Vec::new(),
            recent: [u32::MAX; 32],
            row_cells: 0,
        }
    }

    /// Reserves room for about this much output, so building does not
    /// reallocate (and copy) its arrays while it grows.
    pub(crate) fn reserve(
        &mut self,
        rows: usize,
        cells: usize,
        key_bytes: usize,
        value_bytes: usize,
    ) {
        self.run.rows.reserve(rows);
        self.run.row_end_bytes.reserve(rows);
        self.run.keys.reserve(key_bytes);
        self.run.cells.reserve(cells);
        self.run.values.reserve(value_bytes);
    }

    /// Starts a new row; rows must come in increasing key order. A row that
    /// receives no cell is dropped.
    pub(crate) fn start_row(&mut self, key: &[u8]) {
        self.drop_empty_last_row();
        let key_off = self.run.keys.len() as u32;
        self.run.keys.extend_from_slice(key);
        self.run.rows.push(RunRow {
            key_off,
            key_len: key.len() as u32,
            first_cell: self.run.cells.len() as u32,
        });
        self.run.row_end_bytes.push(self.total_bytes);
        self.row_cells = 0;
    }

    fn drop_empty_last_row(&mut self) {
        if let Some(last) = self.run.rows.last()
            && last.first_cell as usize == self.run.cells.len()
        {
            self.run.keys.truncate(last.key_off as usize);
            self.run.rows.pop();
            self.run.row_end_bytes.pop();
        }
    }

    fn current_key_len(&self) -> usize {
        self.run.rows.last().map_or(0, |r| r.key_len as usize)
    }

    /// Adds a cell to the current row.
    pub(crate) fn add_cell(&mut self, fid: FamilyId, qualifier: &[u8], ts: i64, value: &[u8]) {
        let pos = self.row_cells.min(self.recent.len() - 1);
        let guess = self.recent[pos];
        let qual = if guess != u32::MAX && crate::bytes::eq(self.qual_bytes(guess), qualifier) {
            guess
        } else {
            let id = self
                .dict
                .intern(qualifier, &mut self.run.quals, &mut self.run.qual_bytes);
            self.recent[pos] = id;
            id
        };
        self.push(fid, qual, qualifier.len(), ts, value);
    }

    fn qual_bytes(&self, id: u32) -> &[u8] {
        let (off, len) = self.run.quals[id as usize];
        &self.run.qual_bytes[off as usize..(off + len) as usize]
    }

    #[inline]
    fn push(&mut self, fid: FamilyId, qual: u32, qual_len: usize, ts: i64, value: &[u8]) {
        let val_off = self.run.values.len() as u32;
        self.run.values.extend_from_slice(value);
        self.run.cells.push(RunCell {
            qual,
            fid,
            val_off,
            val_len: value.len() as u32,
            ts,
        });
        let fam_len = self.family_lens.get(usize::from(fid)).copied().unwrap_or(0);
        self.total_bytes += crate::row::cell_bytes(
            self.current_key_len(),
            usize::from(fam_len),
            qual_len,
            value.len(),
        );
        if let Some(b) = self.run.row_end_bytes.last_mut() {
            *b = self.total_bytes;
        }
        self.row_cells += 1;
    }

    /// Copies rows `[lo, hi)` of `src` verbatim, skipping deleted cells and
    /// cells of families for which `keep_family` is false. `src` must sort
    /// after everything added so far.
    pub(crate) fn copy_rows(
        &mut self,
        src: &Run,
        lo: usize,
        hi: usize,
        keep_family: &dyn Fn(FamilyId) -> bool,
    ) {
        self.remaps.clear();
        for row in lo..hi {
            self.start_row(src.row_key(row));
            self.copy_cells(0, src, src.row_cells(row), keep_family);
        }
    }

    /// Copies cells of `src` (source number `src_no` of this build) into the
    /// current row, skipping deleted cells and unwanted families. Qualifiers
    /// are translated through a per-source table instead of being hashed
    /// again. Returns how many cells were copied.
    pub(crate) fn copy_cells(
        &mut self,
        src_no: usize,
        src: &Run,
        cells: std::ops::Range<usize>,
        keep_family: &dyn Fn(FamilyId) -> bool,
    ) -> u64 {
        if self.remaps.len() <= src_no {
            self.remaps.resize_with(src_no + 1, Vec::new);
        }
        if self.remaps[src_no].len() != src.quals.len() {
            self.remaps[src_no].clear();
            self.remaps[src_no].resize(src.quals.len(), u32::MAX);
        }
        let mut copied = 0;
        for i in cells {
            if src.is_dead(i) {
                continue;
            }
            let c = src.cells[i];
            if !keep_family(c.fid) {
                continue;
            }
            let mut id = self.remaps[src_no][c.qual as usize];
            if id == u32::MAX {
                id = self
                    .dict
                    .intern(src.qual(&c), &mut self.run.quals, &mut self.run.qual_bytes);
                self.remaps[src_no][c.qual as usize] = id;
            }
            let qual_len = src.quals[c.qual as usize].1 as usize;
            self.push(c.fid, id, qual_len, c.ts, src.value(&c));
            copied += 1;
        }
        copied
    }

    pub(crate) fn finish(mut self) -> Run {
        self.drop_empty_last_row();
        let mut run = self.run;
        let mut prev = 0;
        for &end in &run.row_end_bytes {
            run.max_row_bytes = run.max_row_bytes.max(end - prev);
            prev = end;
        }
        let mut present: Vec<bool> = Vec::new();
        for c in &run.cells {
            let fid = usize::from(c.fid);
            if present.len() <= fid {
                present.resize(fid + 1, false);
            }
            present[fid] = true;
        }
        run.families = (0..present.len())
            .filter(|&fid| present[fid])
            .map(|fid| fid as FamilyId)
            .collect();
        run.fences = Fences::build((0..run.rows.len()).map(|row| run.row_key(row)));
        run.keys.shrink_to_fit();
        run.rows.shrink_to_fit();
        run.row_end_bytes.shrink_to_fit();
        run.cells.shrink_to_fit();
        run.quals.shrink_to_fit();
        run.qual_bytes.shrink_to_fit();
        run.values.shrink_to_fit();
        run
    }
}

/// Open-addressing interning table for qualifiers.
#[derive(Debug, Default)]
pub(super) struct QualDict {
    /// Qualifier ids, `u32::MAX` for empty; length is a power of two.
    slots: Vec<u32>,
    len: usize,
}

impl QualDict {
    /// The table's hash of `bytes` (the value index hashes values with it).
    pub(super) fn hash(bytes: &[u8]) -> u64 {
        // Eight bytes at a time, multiply-rotate (in the spirit of FxHash).
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut h = bytes.len() as u64;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        let mut w = [0u8; 8];
        let rest = chunks.remainder();
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        // A multiplication carries a difference only upwards: without a
        // full mix, qualifiers that differ in their last bytes (`q000001`,
        // `q000002`, ...) shared slots and a wide row's run took quadratic
        // time to build. SplitMix64's finalizer spreads every bit.
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^ (h >> 31)
    }

    fn intern(&mut self, q: &[u8], quals: &mut Vec<(u32, u32)>, bytes: &mut Vec<u8>) -> u32 {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow(quals, bytes);
        }
        let mask = self.slots.len() - 1;
        let mut i = (Self::hash(q) >> 32) as usize & mask;
        loop {
            let id = self.slots[i];
            if id == u32::MAX {
                let new_id = quals.len() as u32;
                quals.push((bytes.len() as u32, q.len() as u32));
                bytes.extend_from_slice(q);
                self.slots[i] = new_id;
                self.len += 1;
                return new_id;
            }
            let (off, len) = quals[id as usize];
            if crate::bytes::eq(&bytes[off as usize..(off + len) as usize], q) {
                return id;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self, quals: &[(u32, u32)], bytes: &[u8]) {
        let cap = (self.slots.len() * 2).max(16);
        self.slots = vec![u32::MAX; cap];
        let mask = cap - 1;
        for (id, &(off, len)) in quals.iter().enumerate() {
            let mut i =
                (Self::hash(&bytes[off as usize..(off + len) as usize]) >> 32) as usize & mask;
            while self.slots[i] != u32::MAX {
                i = (i + 1) & mask;
            }
            self.slots[i] = id as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Run {
        let mut b = RunBuilder::new(vec![2, 2]);
        b.start_row(b"a");
        b.add_cell(0, b"x", 2000, b"1");
        b.add_cell(0, b"x", 1000, b"2");
        b.add_cell(1, b"y", 1000, b"3");
        b.start_row(b"empty");
        b.start_row(b"c");
        b.add_cell(0, b"x", 1000, b"4");
        b.finish()
    }

    #[test]
    fn builder_keeps_rows_cells_and_interns_qualifiers() {
        let r = sample();
        assert_eq!(r.row_count(), 2, "a row without cells is dropped");
        assert_eq!(r.row_key(1), b"c");
        assert_eq!(r.row_cells(0), 0..3);
        assert_eq!(r.quals.len(), 2);
        let c = r.cell(3);
        assert_eq!((r.qual(c), r.value(c), c.ts), (&b"x"[..], &b"4"[..], 1000));
        assert_eq!(r.lower_bound(b"b"), 1);
        assert_eq!(r.lower_bound(b"d"), 2);
        // a: 3 cells of 1+2+1+8+1 bytes, c: 1 cell.
        assert_eq!(r.bytes(), 4 * 13);
        assert_eq!(r.bytes_before(1), 3 * 13);
    }

    #[test]
    fn deletion_bitmap_and_copy_rows_skip_dead_cells() {
        let mut r = sample();
        assert!(r.mark_dead(1));
        assert!(!r.mark_dead(1));
        assert_eq!(r.mark_rows_dead(1, 2), 1);
        assert_eq!(r.dead_count(), 2);
        let mut b = RunBuilder::new(vec![2, 2]);
        b.copy_rows(&r, 0, r.row_count(), &|fid| fid == 0);
        let copy = b.finish();
        assert_eq!(copy.row_count(), 1);
        assert_eq!(copy.cell_count(), 1);
        assert_eq!(copy.value(copy.cell(0)), b"1");
    }

    /// A run of one cell per key (`keys` sorted, distinct).
    fn run_of(keys: &[Vec<u8>]) -> Run {
        let mut b = RunBuilder::new(vec![1]);
        for k in keys {
            b.start_row(k);
            b.add_cell(0, b"q", 0, b"v");
        }
        b.finish()
    }

    /// Checks every seek of `probe` into `run` against a plain search of
    /// the keys, from every row the rows before which sort below it.
    fn check_seeks(run: &Run, keys: &[Vec<u8>], probe: &[u8]) {
        let expected = keys.partition_point(|k| k.as_slice() < probe);
        assert_eq!(run.lower_bound(probe), expected, "{probe:?} in {keys:?}");
        for from in 0..=expected {
            assert_eq!(
                run.lower_bound_from(from, probe),
                expected,
                "{probe:?} from {from} in {keys:?}"
            );
        }
    }

    #[test]
    fn seeks_at_the_fences_edges() {
        // Keys shorter than the shared prefix plus a word, keys that tie on
        // their word only through zero padding, an empty key, one key.
        let sets: Vec<Vec<&[u8]>> = vec![
            vec![b"", b"\0", b"\0\0", b"a", b"a\0", b"a\0\0\0\0\0\0\0\0"],
            vec![
                b"abcdefgh",
                b"abcdefgh\0",
                b"abcdefghi",
                b"abcdefgi",
                b"abcdefgia",
            ],
            vec![
                b"user#0001#a",
                b"user#0001#ab",
                b"user#0002",
                b"user#0002\0",
            ],
            vec![b"user#0001"],
            vec![b""],
            vec![],
        ];
        let probes: &[&[u8]] = &[
            b"",
            b"\0",
            b"a",
            b"a\0",
            b"a\0\0",
            b"ab",
            b"abcdefgh",
            b"abcdefgh\0\0",
            b"abcdefgi",
            b"abcdefgj",
            b"user",
            b"user#",
            b"user#0001",
            b"user#0001#a\0",
            b"user#0002",
            b"user#0003",
            b"z",
            b"\xff",
        ];
        for set in sets {
            let keys: Vec<Vec<u8>> = set.iter().map(|k| k.to_vec()).collect();
            let run = run_of(&keys);
            assert_eq!(run.row_count(), keys.len());
            for p in probes {
                check_seeks(&run, &keys, p);
            }
        }
    }

    /// Property tests run natively only (proptest needs a random source).
    #[cfg(not(target_arch = "wasm32"))]
    mod property {
        use super::*;

        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

            /// Seeks agree with a plain search on random keys sharing a random
            /// prefix (bytes from a small alphabet with 0 and 255, so ties on
            /// words and padding come up often), and so do the pieces a cut
            /// makes, whose shared prefixes can be longer.
            #[test]
            fn seeks_agree_with_a_plain_search(
                shared in proptest::collection::vec(proptest::sample::select(vec![0u8, b'a', b'b', 255]), 0..10),
                tails in proptest::collection::btree_set(
                    proptest::collection::vec(proptest::sample::select(vec![0u8, 1, b'a', 255]), 0..12),
                    1..40,
                ),
                probes in proptest::collection::vec(
                    proptest::collection::vec(proptest::sample::select(vec![0u8, 1, b'a', b'b', 255]), 0..22),
                    0..20,
                ),
                cut_at in 0usize..40,
            ) {
                let keys: Vec<Vec<u8>> = tails.iter().map(|t| [shared.as_slice(), t].concat()).collect();
                let run = run_of(&keys);
                let mut all_probes: Vec<Vec<u8>> = probes;
                for k in &keys {
                    all_probes.push(k.clone());
                    all_probes.push([k.as_slice(), b"\0"].concat());
                    all_probes.push(k[..k.len() / 2].to_vec());
                }
                for p in &all_probes {
                    check_seeks(&run, &keys, p);
                }
                if keys.len() > 1 {
                    let at = 1 + cut_at % (keys.len() - 1);
                    let pieces = run.cut(&[at]);
                    for (piece, part) in pieces.iter().zip([&keys[..at], &keys[at..]]) {
                        for p in &all_probes {
                            check_seeks(piece, part, p);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn dictionary_survives_growth() {
        let mut b = RunBuilder::new(vec![1]);
        b.start_row(b"r");
        for i in 0..1000 {
            b.add_cell(0, format!("q{i:04}").as_bytes(), 1000, b"");
        }
        for i in 0..1000 {
            b.add_cell(0, format!("q{i:04}").as_bytes(), 0, b"");
        }
        let r = b.finish();
        assert_eq!(r.quals.len(), 1000);
        assert_eq!(r.qual(r.cell(1500)), b"q0500");
    }
}
