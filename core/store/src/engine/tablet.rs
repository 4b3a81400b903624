//! One tablet: a contiguous key range with its memtable and runs, and the
//! mechanisms that reshape it (flush, merge of runs, compaction with GC,
//! split, merge with a neighbour). When to use them is decided in
//! [`super::policy`]; this file only knows how.

use super::family::{Families, FamilyId};
use super::memtable::Memtable;
use super::merge::{MergedCell, Piece, RowMerger, Source, assemble_row};
use super::run::{Run, RunBuilder};
use crate::change_stream::CollectedCell;

/// A tablet.
#[derive(Clone, Debug)]
pub(crate) struct Tablet {
    /// Unique within the table; a split or merge creates new ids.
    pub(crate) id: u64,
    /// Inclusive start key (empty for the first tablet).
    pub(crate) start: Vec<u8>,
    /// Exclusive end key (`None` for the last tablet).
    pub(crate) end: Option<Vec<u8>>,
    pub(crate) mem: Memtable,
    /// Newest first.
    pub(crate) runs: Vec<Run>,
    /// Instance time of the last compaction that applied GC.
    pub(crate) last_gc_micros: i64,
    /// The size at which a split found no point to cut at (one huge row),
    /// 0 if none: the tablet is not compacted for a split again until it
    /// has doubled, so writes to a wide row cost amortized linear time.
    pub(crate) split_blocked_at: u64,
}

/// What a compaction did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CompactionOutcome {
    /// Visible cells before (dead and shadowed copies excluded).
    pub(crate) cells_before: u64,
    /// Cells written to the new run.
    pub(crate) cells_after: u64,
    /// Cells removed because the family's GC rule allowed it.
    pub(crate) collected: u64,
}

impl Tablet {
    pub(crate) fn new(id: u64, start: Vec<u8>, end: Option<Vec<u8>>) -> Tablet {
        Tablet {
            id,
            start,
            end,
            mem: Memtable::default(),
            runs: Vec::new(),
            last_gc_micros: 0,
            split_blocked_at: 0,
        }
    }

    /// Whether the tablet is past `split_bytes` and worth compacting to
    /// split: not while it is less than twice the size at which the last
    /// attempt found no split point.
    pub(crate) fn wants_split(&self, split_bytes: u64) -> bool {
        let bytes = self.bytes();
        bytes > split_bytes && bytes >= self.split_blocked_at.saturating_mul(2)
    }

    /// Logical bytes held (deleted and shadowed cells included until a
    /// compaction removes them, as Bigtable's storage figures do).
    pub(crate) fn bytes(&self) -> u64 {
        self.mem.bytes() + self.runs.iter().map(Run::bytes).sum::<u64>()
    }

    /// An upper bound of any one row's logical bytes, without a lookup.
    pub(crate) fn row_bytes_bound(&self) -> u64 {
        self.mem.bytes() + self.runs.iter().map(Run::max_row_bytes).sum::<u64>()
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.mem.heap_bytes() + self.runs.iter().map(Run::heap_bytes).sum::<usize>()
    }

    /// Whether the tablet is in one run (or empty) with nothing in its
    /// memtable, as a compaction leaves it.
    pub(crate) fn is_compacted(&self) -> bool {
        self.mem.is_empty() && self.runs.len() <= 1
    }

    /// Whether a split can cut the tablet into slices as it is: it is
    /// compacted and no cell of its run has been deleted since (a deletion
    /// marks cells in place; a run holding such cells would have to be
    /// copied without them, as a compaction does).
    pub(crate) fn cuts_cleanly(&self) -> bool {
        self.is_compacted() && self.runs.iter().all(|r| r.dead_count() == 0)
    }

    /// The tablet's one run, when it holds nothing else (a compacted
    /// tablet with no write since).
    pub(crate) fn single_run(&self) -> Option<&Run> {
        match self.runs.as_slice() {
            [run] if self.mem.is_empty() => Some(run),
            _ => None,
        }
    }

    /// The tablet's sources, newest first. The memtable must be prepared.
    pub(crate) fn sources<'t>(&'t self, out: &mut Vec<Source<'t>>) {
        out.clear();
        let view = self.mem.view();
        out.extend(self.mem.sorted_parts().map(|part| Source::Mem(view, part)));
        out.extend(self.runs.iter().map(Source::Run));
    }

    /// Turns the memtable into the newest run. When more than `max_runs`
    /// runs pile up (the host has not ticked for a while), they are merged
    /// into one, without GC, to keep reads fast.
    pub(crate) fn flush(&mut self, fams: &Families, max_runs: usize) {
        if self.mem.is_empty() {
            return;
        }
        self.mem.merge_all();
        let run = {
            let view = self.mem.view();
            let sources: Vec<Source<'_>> = self
                .mem
                .sorted_parts()
                .map(|part| Source::Mem(view, part))
                .collect();
            build_run(&sources, fams, None, None).0
        };
        self.mem.clear();
        if run.row_count() > 0 {
            self.runs.insert(0, run);
        }
        if self.runs.len() > max_runs.max(2) {
            let sources: Vec<Source<'_>> = self.runs.iter().map(Source::Run).collect();
            let merged = build_run(&sources, fams, None, None).0;
            self.runs.clear();
            self.runs.push(merged);
        }
    }

    /// Flushes, then merges everything into one run. With `gc_now` set,
    /// drops the versions the GC rules allow collecting at that time (and
    /// lists them in `collected`, when given, for a change stream).
    pub(crate) fn compact(
        &mut self,
        fams: &Families,
        gc_now: Option<i64>,
        collected: Option<&mut Vec<CollectedCell>>,
    ) -> CompactionOutcome {
        self.mem.merge_all();
        let (run, outcome) = {
            let mut sources = Vec::new();
            self.sources(&mut sources);
            build_run(&sources, fams, gc_now, collected)
        };
        self.mem = Memtable::default();
        self.runs.clear();
        if run.row_count() > 0 {
            self.runs.push(run);
        }
        if let Some(now) = gc_now {
            self.last_gc_micros = now;
        }
        outcome
    }

    /// Row indexes at which to cut a compacted tablet into `parts` pieces of
    /// about equal bytes; fewer when the tablet holds too few rows (a row is
    /// never cut). The tablet must hold at most one run and an empty
    /// memtable (call [`Tablet::compact`] first).
    pub(crate) fn split_points(&self, parts: usize) -> Vec<usize> {
        debug_assert!(
            self.mem.is_empty() && self.runs.len() <= 1,
            "split before compaction"
        );
        let Some(run) = self.runs.first() else {
            return Vec::new();
        };
        let total = run.bytes();
        let mut points = Vec::new();
        for i in 1..parts {
            let target = total * i as u64 / parts as u64;
            // First row whose start lies at or after the target.
            let (mut lo, mut hi) = (1usize, run.row_count());
            while lo < hi {
                let mid = (lo + hi) / 2;
                if run.bytes_before(mid) < target {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if lo < run.row_count() && points.last().is_none_or(|&p| lo > p) {
                points.push(lo);
            }
        }
        points
    }

    /// Cuts a compacted tablet at the given row indexes (from
    /// [`Tablet::split_points`]) into consecutive tablets with fresh ids.
    pub(crate) fn split_at(
        self,
        rows: &[usize],
        fams: &Families,
        next_id: &mut u64,
    ) -> Vec<Tablet> {
        let run = self.runs.into_iter().next().unwrap_or_default();
        let mut bounds = Vec::with_capacity(rows.len() + 2);
        bounds.push(0);
        bounds.extend_from_slice(rows);
        bounds.push(run.row_count());
        // A compacted run holds no deleted cell: its pieces are slices of
        // it. Otherwise each piece is built again without them.
        let mut cuts = if run.dead_count() == 0 {
            run.cut(rows).into_iter()
        } else {
            Vec::new().into_iter()
        };
        let mut out = Vec::with_capacity(bounds.len() - 1);
        for w in bounds.windows(2) {
            let (lo, hi) = (w[0], w[1]);
            let start = if lo == 0 {
                self.start.clone()
            } else {
                run.row_key(lo).to_vec()
            };
            let end = if hi == run.row_count() {
                self.end.clone()
            } else {
                Some(run.row_key(hi).to_vec())
            };
            let piece = cuts.next().unwrap_or_else(|| {
                let mut b = RunBuilder::new(family_lens(fams));
                b.copy_rows(&run, lo, hi, &|_| true);
                b.finish()
            });
            let mut t = Tablet::new(*next_id, start, end);
            *next_id += 1;
            t.last_gc_micros = self.last_gc_micros;
            if piece.row_count() > 0 {
                t.runs.push(piece);
            }
            out.push(t);
        }
        out
    }

    /// Joins this tablet with its right neighbour into one tablet with a
    /// fresh id. Both must be compacted.
    pub(crate) fn merge_with(self, right: Tablet, fams: &Families, id: u64) -> Tablet {
        let mut b = RunBuilder::new(family_lens(fams));
        for run in self.runs.iter().chain(right.runs.iter()) {
            b.copy_rows(run, 0, run.row_count(), &|_| true);
        }
        let mut t = Tablet::new(id, self.start, right.end);
        t.last_gc_micros = self.last_gc_micros.min(right.last_gc_micros);
        let run = b.finish();
        if run.row_count() > 0 {
            t.runs.push(run);
        }
        t
    }
}

/// Family name lengths by id, for a [`RunBuilder`].
pub(crate) fn family_lens(fams: &Families) -> Vec<u16> {
    (0..fams.id_count())
        .map(|id| u16::try_from(fams.name(id as u16).len()).unwrap_or(u16::MAX))
        .collect()
}

/// Merges sources into one run: shadowed copies, deleted cells and dropped
/// families go; with `gc_now`, so do GC-eligible versions, which are
/// listed in `collected` when it is given.
fn build_run(
    sources: &[Source<'_>],
    fams: &Families,
    gc_now: Option<i64>,
    mut collected: Option<&mut Vec<CollectedCell>>,
) -> (Run, CompactionOutcome) {
    let mut outcome = CompactionOutcome::default();
    let mut builder = RunBuilder::new(family_lens(fams));
    let (mut rows, mut cells_in, mut keys, mut values) = (0, 0, 0, 0);
    for src in sources {
        match src {
            Source::Run(r) => {
                let (k, v) = r.arena_sizes();
                rows += r.row_count();
                cells_in += r.cell_count() - r.dead_count();
                keys += k;
                values += v;
            }
            Source::Mem(view, groups) => {
                rows += groups.len();
                cells_in += groups.iter().map(|g| g.len as usize).sum::<usize>();
                keys += groups.iter().map(|g| usize::from(g.row_len)).sum::<usize>();
                values += view.arena_len();
            }
        }
    }
    builder.reserve(rows, cells_in, keys, values);
    let mut merger = RowMerger::new(sources, &[], None);
    let mut pieces: Vec<Piece> = Vec::with_capacity(sources.len());
    let mut cells: Vec<MergedCell<'_>> = Vec::new();
    let now = gc_now.unwrap_or(i64::MIN);
    let collects = gc_now.is_some() && fams.live().any(|(_, _, def)| def.gc_rule.is_some());
    let keep = |fid| fams.is_alive(fid);
    while let Some(key) = merger.next_row(false, &mut pieces) {
        // A row held by one run and nothing to collect: copy it as it is.
        if let [p] = pieces.as_slice()
            && !collects
            && let Source::Run(run) = merger.source(p.src)
        {
            builder.start_row(key);
            let n = builder.copy_cells(p.src, run, p.pos..p.end, &keep);
            outcome.cells_before += n;
            outcome.cells_after += n;
            continue;
        }
        // A row written by one memtable group: its cells are sorted, the
        // later of two equal cells first.
        if let [p] = pieces.as_slice()
            && !collects
            && let src @ Source::Mem(..) = merger.source(p.src)
        {
            builder.start_row(key);
            let mut last: Option<(FamilyId, &[u8], i64)> = None;
            for i in p.pos..p.end {
                let c = src.cell(i);
                if last.is_some_and(|(f, q, t)| f == c.fid && t == c.ts && q == c.qual) {
                    continue;
                }
                last = Some((c.fid, c.qual, c.ts));
                if c.dead || !fams.is_alive(c.fid) {
                    continue;
                }
                builder.add_cell(c.fid, c.qual, c.ts, c.value);
                outcome.cells_before += 1;
                outcome.cells_after += 1;
            }
            continue;
        }
        cells.clear();
        assemble_row(&merger, &mut pieces, fams, now, &mut cells);
        builder.start_row(key);
        for c in &cells {
            outcome.cells_before += 1;
            if gc_now.is_some() && c.gc_eligible {
                outcome.collected += 1;
                if let Some(out) = collected.as_deref_mut() {
                    out.push(CollectedCell {
                        row_key: key.to_vec(),
                        family: fams.name(c.fid).to_string(),
                        qualifier: c.qual.to_vec(),
                        timestamp_micros: c.ts,
                    });
                }
                continue;
            }
            outcome.cells_after += 1;
            builder.add_cell(c.fid, c.qual, c.ts, c.value);
        }
    }
    (builder.finish(), outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{ColumnFamily, GcRule};

    fn tablet_with_rows(fams: &Families, n: usize) -> Tablet {
        let mut t = Tablet::new(0, Vec::new(), None);
        for i in 0..n {
            t.mem.open_group(format!("row{i:04}").as_bytes());
            for v in 0..3 {
                t.mem.push_cell(0, 2, b"q", v * 1000, b"value");
            }
            t.mem.close_group(fams.ranks());
        }
        t
    }

    fn families(rule: Option<GcRule>) -> Families {
        let mut f = Families::default();
        f.create("cf", ColumnFamily::with_gc(rule)).unwrap();
        f
    }

    #[test]
    fn flush_keeps_data_and_compaction_applies_gc() {
        let fams = families(Some(GcRule::MaxNumVersions(1)));
        let mut t = tablet_with_rows(&fams, 10);
        t.flush(&fams, 4);
        assert!(t.mem.is_empty());
        assert_eq!(t.runs.len(), 1);
        assert_eq!(t.runs[0].cell_count(), 30, "a flush collects nothing");
        let outcome = t.compact(&fams, Some(5_000), None);
        assert_eq!(outcome.collected, 20);
        assert_eq!(outcome.cells_after, 10);
        assert_eq!(t.last_gc_micros, 5_000);
    }

    #[test]
    fn splits_fall_on_row_boundaries_in_even_parts() {
        let fams = families(None);
        let mut t = tablet_with_rows(&fams, 100);
        t.compact(&fams, None, None);
        let points = t.split_points(4);
        assert_eq!(points, vec![25, 50, 75]);
        let mut next_id = 7;
        let parts = t.split_at(&points, &fams, &mut next_id);
        assert_eq!(parts.len(), 4);
        assert_eq!(next_id, 11);
        assert!(parts[0].start.is_empty());
        assert_eq!(parts[1].start, b"row0025");
        assert_eq!(parts[0].end.as_deref(), Some(b"row0025".as_slice()));
        assert!(parts[3].end.is_none());
        assert!(parts.iter().all(|p| p.runs[0].row_count() == 25));
        let merged = parts.into_iter().reduce(|a, b| a.merge_with(b, &fams, 99));
        let merged = merged.unwrap();
        assert_eq!(merged.runs[0].row_count(), 100);
        assert!(merged.start.is_empty() && merged.end.is_none());
    }

    #[test]
    fn cut_pieces_equal_pieces_built_again() {
        let fams = {
            let mut f = Families::default();
            f.create("cf", ColumnFamily::default()).unwrap();
            f.create("other", ColumnFamily::default()).unwrap();
            f
        };
        let mut t = Tablet::new(0, Vec::new(), None);
        for i in 0..97u32 {
            t.mem
                .open_group(format!("row{:04}", (i * 37) % 97).as_bytes());
            // Qualifiers that come and go, values of every length, a
            // second family in some rows.
            for v in 0..(i % 4) + 1 {
                let q = format!("q{}", (i + v) % 7);
                let value = vec![b'x'; ((i * v) % 23) as usize];
                t.mem
                    .push_cell(0, 2, q.as_bytes(), i64::from(v) * 1000, &value);
            }
            if i % 3 == 0 {
                t.mem.push_cell(1, 5, b"o", 0, b"other");
            }
            t.mem.close_group(fams.ranks());
        }
        t.compact(&fams, None, None);
        let run = &t.runs[0];
        for points in [vec![1], vec![40], vec![10, 11, 50, 96], vec![3, 30, 60]] {
            let cut = run.cut(&points);
            let mut bounds = vec![0];
            bounds.extend_from_slice(&points);
            bounds.push(run.row_count());
            assert_eq!(cut.len(), bounds.len() - 1);
            for (piece, w) in cut.iter().zip(bounds.windows(2)) {
                let mut b = RunBuilder::new(family_lens(&fams));
                b.copy_rows(run, w[0], w[1], &|_| true);
                let built = b.finish();
                assert_eq!(
                    format!("{piece:?}"),
                    format!("{built:?}"),
                    "{points:?} {w:?}"
                );
            }
        }
    }

    #[test]
    fn a_single_row_is_never_split() {
        let fams = families(None);
        let mut t = tablet_with_rows(&fams, 1);
        t.compact(&fams, None, None);
        assert!(t.split_points(3).is_empty());
    }
}
