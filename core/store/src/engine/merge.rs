//! Merged reading of a tablet: its memtable and runs seen as one sorted
//! sequence of rows, forwards or backwards.
//!
//! Merging works a row at a time. Each source (the memtable's two sorted
//! parts, then the runs, newest first) has a cursor over its rows inside the
//! requested key range. The next row is the smallest (or, reversed, the
//! largest) key among the cursors; its cells are the union of that row's
//! cells in every source, merged in cell order. Where several sources hold
//! the same cell coordinates the newest source wins, deleted cells and
//! cells of dropped families are skipped. Nothing here allocates: callers
//! own the buffers.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::family::{Families, FamilyId};
use super::memtable::{Group, MemView};
use super::run::Run;

/// One sorted source of cells.
#[derive(Clone, Copy)]
pub(crate) enum Source<'t> {
    /// Memtable groups (sorted); cell indexes point into the view.
    Mem(MemView<'t>, &'t [Group]),
    Run(&'t Run),
}

/// A cell as a source holds it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawCell<'t> {
    pub(crate) fid: FamilyId,
    pub(crate) qual: &'t [u8],
    pub(crate) ts: i64,
    pub(crate) value: &'t [u8],
    pub(crate) dead: bool,
}

impl<'t> Source<'t> {
    /// Positions are groups for a memtable part and rows for a run.
    fn len(&self) -> usize {
        match self {
            Source::Mem(_, e) => e.len(),
            Source::Run(r) => r.row_count(),
        }
    }

    fn lower_bound(&self, key: &[u8]) -> usize {
        match self {
            Source::Mem(v, g) => g.partition_point(|x| v.row(x) < key),
            Source::Run(r) => r.lower_bound(key),
        }
    }

    #[inline]
    fn key_at(&self, pos: usize) -> &'t [u8] {
        match self {
            Source::Mem(v, g) => v.row(&g[pos]),
            Source::Run(r) => r.row_key(pos),
        }
    }

    /// Position after the row starting at `pos`.
    #[inline]
    fn row_end(&self, pos: usize, limit: usize) -> usize {
        match self {
            Source::Mem(v, g) => {
                let mut p = pos + 1;
                while p < limit && v.cmp_rows(&g[p], &g[pos]).is_eq() {
                    p += 1;
                }
                p
            }
            Source::Run(_) => pos + 1,
        }
    }

    /// Start position of the row ending just before `end`.
    #[inline]
    fn row_start_before(&self, end: usize, limit: usize) -> usize {
        match self {
            Source::Mem(v, g) => {
                let mut p = end - 1;
                while p > limit && v.cmp_rows(&g[p - 1], &g[end - 1]).is_eq() {
                    p -= 1;
                }
                p
            }
            Source::Run(_) => end - 1,
        }
    }

    /// Pushes the pieces of the row occupying positions `[pos, next)`: one
    /// per memtable group (newest first), or the run's row.
    #[inline]
    fn push_pieces(&self, src: usize, pos: usize, next: usize, pieces: &mut Vec<Piece>) {
        match self {
            Source::Mem(_, g) => {
                for group in &g[pos..next] {
                    let c = group.cells();
                    pieces.push(Piece {
                        src,
                        pos: c.start,
                        end: c.end,
                    });
                }
            }
            Source::Run(r) => {
                let c = r.row_cells(pos);
                pieces.push(Piece {
                    src,
                    pos: c.start,
                    end: c.end,
                });
            }
        }
    }

    #[inline]
    pub(crate) fn cell(&self, i: usize) -> RawCell<'t> {
        match *self {
            Source::Mem(v, _) => {
                let x = v.cell(i);
                RawCell {
                    fid: x.fid,
                    qual: v.qual(x),
                    ts: x.ts,
                    value: v.value(x),
                    dead: x.dead,
                }
            }
            Source::Run(r) => {
                let c = r.cell(i);
                RawCell {
                    fid: c.fid,
                    qual: r.qual(c),
                    ts: c.ts,
                    value: r.value(c),
                    dead: r.is_dead(i),
                }
            }
        }
    }
}

/// A cursor over the rows of one source inside a key range.
#[derive(Clone, Copy)]
struct Cursor<'t> {
    src: Source<'t>,
    /// Remaining positions `[lo, hi)`.
    lo: usize,
    hi: usize,
    /// Start of the last remaining row, once computed.
    back: Option<usize>,
}

impl<'t> Cursor<'t> {
    fn front_key(&self) -> Option<&'t [u8]> {
        (self.lo < self.hi).then(|| self.src.key_at(self.lo))
    }

    fn back_start(&mut self) -> Option<usize> {
        if self.lo >= self.hi {
            return None;
        }
        if self.back.is_none() {
            self.back = Some(self.src.row_start_before(self.hi, self.lo));
        }
        self.back
    }
}

/// The part of one row a source contributes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Piece {
    /// Index of the source (0 is the newest).
    pub(crate) src: usize,
    pub(crate) pos: usize,
    pub(crate) end: usize,
}

/// Iterates the rows of a set of sources within one key range.
pub(crate) struct RowMerger<'t> {
    cursors: Vec<Cursor<'t>>,
}

impl<'t> RowMerger<'t> {
    /// A merger over `sources` (newest first) restricted to `[start, end)`.
    pub(crate) fn new(sources: &[Source<'t>], start: &[u8], end: Option<&[u8]>) -> RowMerger<'t> {
        let mut cursors = Vec::with_capacity(sources.len());
        Self::reset_into(&mut cursors, sources, start, end);
        RowMerger { cursors }
    }

    /// Re-targets the merger, reusing its buffer.
    pub(crate) fn reset(&mut self, sources: &[Source<'t>], start: &[u8], end: Option<&[u8]>) {
        Self::reset_into(&mut self.cursors, sources, start, end);
    }

    fn reset_into(
        cursors: &mut Vec<Cursor<'t>>,
        sources: &[Source<'t>],
        start: &[u8],
        end: Option<&[u8]>,
    ) {
        cursors.clear();
        for &src in sources {
            let lo = if start.is_empty() {
                0
            } else {
                src.lower_bound(start)
            };
            let hi = end.map_or(src.len(), |e| src.lower_bound(e));
            cursors.push(Cursor {
                src,
                lo,
                hi: hi.max(lo),
                back: None,
            });
        }
    }

    /// The sources, in the order pieces refer to them.
    pub(crate) fn source(&self, i: usize) -> Source<'t> {
        self.cursors[i].src
    }

    /// Advances to the next row, filling `pieces` with its parts in every
    /// source. Returns the row key, or `None` at the end.
    pub(crate) fn next_row(&mut self, reversed: bool, pieces: &mut Vec<Piece>) -> Option<&'t [u8]> {
        pieces.clear();
        if reversed {
            self.next_back(pieces)
        } else {
            self.next_front(pieces)
        }
    }

    fn next_front(&mut self, pieces: &mut Vec<Piece>) -> Option<&'t [u8]> {
        if let [c] = self.cursors.as_mut_slice() {
            // One source: no comparisons needed.
            let key = c.front_key()?;
            let next = c.src.row_end(c.lo, c.hi);
            c.src.push_pieces(0, c.lo, next, pieces);
            c.lo = next;
            c.back = None;
            return Some(key);
        }
        let mut best: Option<&'t [u8]> = None;
        for c in &self.cursors {
            if let Some(k) = c.front_key()
                && best.is_none_or(|b| crate::bytes::cmp(k, b).is_lt())
            {
                best = Some(k);
            }
        }
        let key = best?;
        for (i, c) in self.cursors.iter_mut().enumerate() {
            if c.front_key().is_some_and(|k| crate::bytes::eq(k, key)) {
                let next = c.src.row_end(c.lo, c.hi);
                c.src.push_pieces(i, c.lo, next, pieces);
                c.lo = next;
                if c.back.is_some_and(|b| b < c.lo) {
                    c.back = None;
                }
            }
        }
        Some(key)
    }

    fn next_back(&mut self, pieces: &mut Vec<Piece>) -> Option<&'t [u8]> {
        let mut best: Option<&'t [u8]> = None;
        for c in &mut self.cursors {
            if let Some(s) = c.back_start() {
                let k = c.src.key_at(s);
                if best.is_none_or(|b| k > b) {
                    best = Some(k);
                }
            }
        }
        let key = best?;
        for (i, c) in self.cursors.iter_mut().enumerate() {
            if let Some(s) = c.back_start()
                && c.src.key_at(s) == key
            {
                c.src.push_pieces(i, s, c.hi, pieces);
                c.hi = s;
                c.back = None;
            }
        }
        Some(key)
    }
}

/// A visible cell of a merged row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MergedCell<'t> {
    pub(crate) fid: FamilyId,
    pub(crate) qual: &'t [u8],
    pub(crate) ts: i64,
    pub(crate) value: &'t [u8],
    /// The family's GC rule allows collecting this version at `now`.
    pub(crate) gc_eligible: bool,
}

/// Pieces above which a row's merge keeps the pieces' heads in a heap:
/// below it, scanning every head per cell is cheaper; above it (a row
/// written by thousands of separate calls, each its own memtable group),
/// the scan would make the merge quadratic in the row's width.
const HEAP_PIECES: usize = 8;

/// Merges the pieces of one row into its visible cells, in cell order,
/// appending to `out`. Marks GC eligibility as of `now_micros`.
/// Returns the number of raw cells examined.
pub(crate) fn assemble_row<'t>(
    merger: &RowMerger<'t>,
    pieces: &mut [Piece],
    fams: &Families,
    now_micros: i64,
    out: &mut Vec<MergedCell<'t>>,
) -> usize {
    let mut taker = Taker {
        fams,
        now_micros,
        last: None,
        column: None,
        version: 0,
        examined: 0,
    };
    if pieces.len() > HEAP_PIECES {
        merge_with_heap(merger, pieces, fams.ranks(), |c| taker.take(c, out));
    } else {
        merge_by_scan(merger, pieces, fams.ranks(), |c| taker.take(c, out));
    }
    taker.examined
}

/// The k-way merge for a few pieces: the smallest head is found by looking
/// at every one (ties go to the lower, newer, piece).
fn merge_by_scan<'t>(
    merger: &RowMerger<'t>,
    pieces: &mut [Piece],
    ranks: &[u16],
    mut take: impl FnMut(RawCell<'t>),
) {
    loop {
        let mut best: Option<(usize, RawCell<'t>)> = None;
        if let [p] = &*pieces {
            if p.pos < p.end {
                best = Some((0, merger.source(p.src).cell(p.pos)));
            }
        } else {
            for (pi, p) in pieces.iter().enumerate() {
                if p.pos >= p.end {
                    continue;
                }
                let c = merger.source(p.src).cell(p.pos);
                let better = match &best {
                    None => true,
                    Some((_, b)) => cmp_cells(ranks, &c, b) == Ordering::Less,
                };
                if better {
                    best = Some((pi, c));
                }
            }
        }
        let Some((pi, c)) = best else { break };
        pieces[pi].pos += 1;
        take(c);
    }
}

/// The k-way merge for many pieces, in O(cells · log pieces): the heads
/// wait in a min-heap ordered as [`merge_by_scan`] picks them.
fn merge_with_heap<'t>(
    merger: &RowMerger<'t>,
    pieces: &mut [Piece],
    ranks: &[u16],
    mut take: impl FnMut(RawCell<'t>),
) {
    let head = |pi: usize, p: &Piece| Head {
        rank: ranks[usize::from(merger.source(p.src).cell(p.pos).fid)],
        cell: merger.source(p.src).cell(p.pos),
        piece: pi,
    };
    let mut heap = BinaryHeap::with_capacity(pieces.len());
    for (pi, p) in pieces.iter().enumerate() {
        if p.pos < p.end {
            heap.push(Reverse(head(pi, p)));
        }
    }
    while let Some(Reverse(h)) = heap.pop() {
        let p = &mut pieces[h.piece];
        p.pos += 1;
        if p.pos < p.end {
            heap.push(Reverse(head(h.piece, p)));
        }
        take(h.cell);
    }
}

/// A piece's next cell in the heap of [`merge_with_heap`].
struct Head<'t> {
    rank: u16,
    cell: RawCell<'t>,
    piece: usize,
}

impl Ord for Head<'_> {
    /// Cell order ([`cmp_cells`]), then the newer piece first.
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank
            .cmp(&other.rank)
            .then_with(|| crate::bytes::cmp(self.cell.qual, other.cell.qual))
            .then_with(|| other.cell.ts.cmp(&self.cell.ts))
            .then_with(|| self.piece.cmp(&other.piece))
    }
}

impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Head<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Head<'_> {}

/// Takes merged cells in cell order: drops older copies of a cell and
/// deleted cells, and marks GC eligibility.
struct Taker<'f, 't> {
    fams: &'f Families,
    now_micros: i64,
    /// The last coordinates taken (dedups older copies).
    last: Option<(FamilyId, &'t [u8], i64)>,
    /// The current column, and the version number within it (for GC).
    column: Option<(FamilyId, &'t [u8])>,
    version: usize,
    examined: usize,
}

impl<'t> Taker<'_, 't> {
    fn take(&mut self, c: RawCell<'t>, out: &mut Vec<MergedCell<'t>>) {
        self.examined += 1;
        if let Some((fid, qual, ts)) = self.last
            && fid == c.fid
            && ts == c.ts
            && qual == c.qual
        {
            return; // an older copy of a cell already taken
        }
        self.last = Some((c.fid, c.qual, c.ts));
        if c.dead || !self.fams.is_alive(c.fid) {
            return;
        }
        if self
            .column
            .is_some_and(|(fid, qual)| fid == c.fid && qual == c.qual)
        {
            self.version += 1;
        } else {
            self.column = Some((c.fid, c.qual));
            self.version = 0;
        }
        let gc_eligible = self
            .fams
            .gc_rule(c.fid)
            .is_some_and(|rule| rule.erases(self.version, c.ts, self.now_micros));
        out.push(MergedCell {
            fid: c.fid,
            qual: c.qual,
            ts: c.ts,
            value: c.value,
            gc_eligible,
        });
    }
}

/// Cell order within a row: family rank, qualifier, timestamp newest first.
#[inline]
fn cmp_cells(ranks: &[u16], a: &RawCell<'_>, b: &RawCell<'_>) -> Ordering {
    ranks[usize::from(a.fid)]
        .cmp(&ranks[usize::from(b.fid)])
        .then_with(|| crate::bytes::cmp(a.qual, b.qual))
        .then_with(|| b.ts.cmp(&a.ts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memtable::Memtable;
    use crate::engine::run::RunBuilder;
    use crate::schema::ColumnFamily;

    fn families() -> Families {
        let mut f = Families::default();
        f.create("cf", ColumnFamily::default()).unwrap();
        f
    }

    type Input<'a> = (&'a [u8], &'a [u8], i64, &'a [u8]);
    type Row = (Vec<u8>, Vec<(Vec<u8>, i64, Vec<u8>)>);

    fn run(rows: &[Input<'_>]) -> Run {
        let mut b = RunBuilder::new(vec![2]);
        let mut last: Option<&[u8]> = None;
        for &(row, q, ts, v) in rows {
            if last != Some(row) {
                b.start_row(row);
                last = Some(row);
            }
            b.add_cell(0, q, ts, v);
        }
        b.finish()
    }

    /// Every row of the sources in `[start, end)`, as (key, [(qual, ts, value)]).
    fn rows(
        sources: &[Source<'_>],
        fams: &Families,
        start: &[u8],
        end: Option<&[u8]>,
        reversed: bool,
    ) -> Vec<Row> {
        let mut merger = RowMerger::new(sources, start, end);
        let mut pieces = Vec::new();
        let mut out = Vec::new();
        let mut cells = Vec::new();
        while let Some(key) = merger.next_row(reversed, &mut pieces) {
            cells.clear();
            assemble_row(&merger, &mut pieces, fams, 0, &mut cells);
            let cells = cells
                .iter()
                .map(|c| (c.qual.to_vec(), c.ts, c.value.to_vec()))
                .collect();
            out.push((key.to_vec(), cells));
        }
        out
    }

    #[test]
    fn newer_sources_win_and_rows_merge_both_ways() {
        let fams = families();
        let older = run(&[
            (b"a", b"q", 1, b"old"),
            (b"b", b"q", 1, b"b1"),
            (b"d", b"q", 1, b"d1"),
        ]);
        let newer = run(&[
            (b"a", b"q", 1, b"new"),
            (b"a", b"r", 1, b"r"),
            (b"c", b"q", 1, b"c1"),
        ]);
        let mut mem = Memtable::default();
        mem.open_group(b"b");
        mem.push_cell(0, 2, b"q", 2, b"b2");
        mem.close_group(fams.ranks());
        mem.prepare();
        let view = mem.view();
        let mut sources: Vec<Source<'_>> =
            mem.sorted_parts().map(|p| Source::Mem(view, p)).collect();
        sources.push(Source::Run(&newer));
        sources.push(Source::Run(&older));

        let forward = rows(&sources, &fams, b"", None, false);
        let keys: Vec<&[u8]> = forward.iter().map(|r| r.0.as_slice()).collect();
        assert_eq!(keys, vec![&b"a"[..], b"b", b"c", b"d"]);
        assert_eq!(
            forward[0].1,
            vec![
                (b"q".to_vec(), 1, b"new".to_vec()),
                (b"r".to_vec(), 1, b"r".to_vec())
            ],
            "the newer run's copy of a:q@1 wins"
        );
        assert_eq!(
            forward[1].1,
            vec![
                (b"q".to_vec(), 2, b"b2".to_vec()),
                (b"q".to_vec(), 1, b"b1".to_vec())
            ],
            "versions from the memtable and a run interleave newest first"
        );
        let backward = rows(&sources, &fams, b"", None, true);
        let mut reversed = forward.clone();
        reversed.reverse();
        assert_eq!(backward, reversed);
        let window = rows(&sources, &fams, b"b", Some(b"d"), true);
        let keys: Vec<&[u8]> = window.iter().map(|r| r.0.as_slice()).collect();
        assert_eq!(keys, vec![&b"c"[..], b"b"]);
    }

    #[test]
    fn deleted_cells_and_dropped_families_are_skipped() {
        let mut fams = families();
        fams.create("gone", ColumnFamily::default()).unwrap();
        let mut b = RunBuilder::new(vec![2, 4]);
        b.start_row(b"r");
        b.add_cell(0, b"a", 1, b"keep");
        b.add_cell(0, b"b", 1, b"deleted");
        b.add_cell(1, b"c", 1, b"dropped family");
        let mut r = b.finish();
        r.mark_dead(1);
        fams.drop_family("gone").unwrap();
        let out = rows(&[Source::Run(&r)], &fams, b"", None, false);
        assert_eq!(
            out,
            vec![(b"r".to_vec(), vec![(b"a".to_vec(), 1, b"keep".to_vec())])]
        );
    }
}
