//! Reading a compacted tablet: one sorted run and an empty memtable.
//!
//! The general read path ([`super::merge`]) merges a tablet's sources a row
//! at a time, turning every stored cell into a source-independent copy
//! before it decides what is visible. A tablet held in one run has nothing
//! to merge: a run holds each cell once and in cell order (flushes and
//! compactions drop shadowed copies), so a row's visible cells are its run
//! cells minus deleted ones and those of dropped families. [`RunReader`]
//! turns them straight into the views the filter and the sink take.
//!
//! A value test can also skip rows without assembling them. When every
//! cell a filter returns must pass a value regex on its stored value (see
//! `FilterPlan::value_gate`), [`RunReader::cells_passing`] runs through the
//! run's cell array once, testing each value in the arena (its first byte
//! first, when every match starts with a literal), and lists the cells that
//! pass; only rows holding one are read. When the regex is the whole
//! filter, those cells are the row's answer and nothing else of the row is
//! looked at ([`RunReader::views_of`]); otherwise the row is assembled and
//! filtered as usual. A read over a good part of the run tests the values
//! through the run's [`ValueIndex`](super::value_index::ValueIndex)
//! instead: once per distinct value, and not at all for families whose
//! values' lengths and first bytes the regex cannot match. Rows left out cannot be returned, and what they add
//! to the read's statistics (rows, cells and bytes seen) comes from the
//! run's per-row totals, which is exact while the run is
//! [`clean`](RunReader::is_clean). (A substring search of the whole value
//! arena with `memchr::memmem` was tried first: in the wasm build, without
//! SIMD, it was slower than this loop on the benchmark's data; see
//! BENCHMARKS.md.)

use std::ops::Range;

use super::family::Families;
use super::run::Run;
use crate::filter::ValueGate;
use crate::row::CellView;

/// Reads over fewer cells than this test their values one by one: the
/// index's fixed cost (a test per distinct value of each family the regex
/// may match, a bitmap of the cells) is not worth it.
const INDEX_MIN_CELLS: usize = 1024;

/// The rows of one run, read as views.
pub(crate) struct RunReader<'t> {
    run: &'t Run,
    fams: &'t Families,
    now_micros: i64,
}

/// What a stretch of rows adds to a read's "seen" statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SeenTotals {
    pub(crate) rows: u64,
    pub(crate) cells: u64,
    pub(crate) bytes: u64,
}

impl<'t> RunReader<'t> {
    /// A reader marking GC eligibility as of `now_micros`.
    pub(crate) fn new(run: &'t Run, fams: &'t Families, now_micros: i64) -> RunReader<'t> {
        RunReader {
            run,
            fams,
            now_micros,
        }
    }

    /// The rows whose keys lie in `[start, end)`.
    pub(crate) fn rows(&self, start: &[u8], end: Option<&[u8]>) -> Range<usize> {
        let lo = if start.is_empty() {
            0
        } else {
            self.run.lower_bound(start)
        };
        let hi = match end {
            None => self.run.row_count(),
            // The rows before `lo` sort before `start`, so before `e`.
            Some(e) if crate::bytes::cmp(e, start).is_gt() => self.run.lower_bound_from(lo, e),
            Some(_) => lo,
        };
        lo..hi
    }

    pub(crate) fn row_key(&self, row: usize) -> &'t [u8] {
        self.run.row_key(row)
    }

    /// Whether every stored cell is visible: nothing deleted and no cell of
    /// a dropped family. Then a row's seen statistics are its stored totals.
    pub(crate) fn is_clean(&self) -> bool {
        self.run.dead_count() == 0 && self.run.families().all(|fid| self.fams.is_alive(fid))
    }

    /// Appends the visible cells of `row` to `out`, in cell order, marking
    /// GC eligibility as the general path does (versions counted among the
    /// visible cells of each column, newest first).
    #[inline]
    pub(crate) fn views(&self, row: usize, out: &mut Vec<CellView<'t>>) {
        let run = self.run;
        let cells = run.row_cells(row);
        let check_dead = run.dead_count() > 0;
        // (family, qualifier id) of the current column, and the version.
        let mut column = (u16::MAX, u32::MAX);
        let mut version = 0usize;
        for i in cells {
            if check_dead && run.is_dead(i) {
                continue;
            }
            let c = run.cell(i);
            if !self.fams.is_alive(c.fid) {
                continue;
            }
            let here = (c.fid, c.qual_id());
            if here == column {
                version += 1;
            } else {
                column = here;
                version = 0;
            }
            let gc_eligible = self
                .fams
                .gc_rule(c.fid)
                .is_some_and(|rule| rule.erases(version, c.ts, self.now_micros));
            out.push(CellView {
                family: self.fams.name(c.fid),
                qualifier: run.qual(c),
                timestamp_micros: c.ts,
                value: run.value(c),
                label: None,
                gc_eligible,
            });
        }
    }

    /// The rows, cells and bytes that rows `rows` add to a read's seen
    /// statistics. Exact only while the run [`is_clean`](Self::is_clean).
    pub(crate) fn seen_totals(&self, rows: Range<usize>) -> SeenTotals {
        if rows.is_empty() {
            return SeenTotals::default();
        }
        let run = self.run;
        let cells = run.row_cells(rows.end - 1).end - run.row_cells(rows.start).start;
        SeenTotals {
            rows: rows.len() as u64,
            cells: cells as u64,
            bytes: run.bytes_before(rows.end) - run.bytes_before(rows.start),
        }
    }

    /// Appends to `out`, in increasing order, `(row, cell)` for every cell
    /// of rows `rows` (deleted or not) whose stored value passes `gate`.
    /// Rows left out hold no such value. The values are tested through the
    /// run's value index when the rows hold enough of the run's cells for
    /// it to pay (its first use builds it), or when `force_index`; `bits`
    /// is scratch space, kept by the caller across tablets.
    pub(crate) fn cells_passing(
        &self,
        rows: Range<usize>,
        gate: &ValueGate<'_>,
        force_index: bool,
        bits: &mut Vec<u64>,
        out: &mut Vec<(usize, usize)>,
    ) {
        if rows.is_empty() {
            return;
        }
        let run = self.run;
        let span = run.row_cells(rows.start).start..run.row_cells(rows.end - 1).end;
        let worth_it = span.len() >= INDEX_MIN_CELLS && span.len() * 4 >= run.cell_count();
        if force_index || worth_it {
            bits.clear();
            bits.resize(span.len().div_ceil(64), 0);
            run.value_index()
                .mark_passing(run, span.clone(), gate, bits);
            self.note_marked(rows.start, span.start, bits, out);
            return;
        }
        let values = run.values();
        let first_cell = span.start;
        let cells = run.cells(span);
        let prefix = gate.prefix();
        let mut row = rows.start;
        let mut row_end = run.row_cells(row).end;
        let mut note = |i: usize, out: &mut Vec<(usize, usize)>| {
            while i >= row_end {
                row += 1;
                row_end = run.row_cells(row).end;
            }
            out.push((row, i));
        };
        let passes =
            |off: usize, len: usize| values.get(off..off + len).is_some_and(|v| gate.passes(v));
        match prefix.first() {
            // The first byte alone rejects most values: the loop reads the
            // cell array and one arena byte per cell.
            Some(&first) => {
                for (k, c) in cells.iter().enumerate() {
                    let (off, len) = c.value_span();
                    if len >= prefix.len() && values.get(off) == Some(&first) && passes(off, len) {
                        note(first_cell + k, out);
                    }
                }
            }
            None => {
                for (k, c) in cells.iter().enumerate() {
                    let (off, len) = c.value_span();
                    if passes(off, len) {
                        note(first_cell + k, out);
                    }
                }
            }
        }
    }

    /// Appends `(row, cell)` to `out` for every cell `first_cell + k` whose
    /// bit `k` is set in `bits`, in increasing order; `first_row` holds
    /// `first_cell`.
    fn note_marked(
        &self,
        first_row: usize,
        first_cell: usize,
        bits: &[u64],
        out: &mut Vec<(usize, usize)>,
    ) {
        let run = self.run;
        let mut row = first_row;
        let mut row_end = run.row_cells(row).end;
        for (w, &word) in bits.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                let i = first_cell + w * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                while i >= row_end {
                    row += 1;
                    row_end = run.row_cells(row).end;
                }
                out.push((row, i));
            }
        }
    }

    /// Reads what answering `cells` (`(row, cell)` pairs) will read, ahead
    /// of it: each cell's record, then its row's key and its value. Answers
    /// a sum of what it read, for the caller to hand to
    /// [`std::hint::black_box`] so that the reads stay.
    ///
    /// The passing cells of a value test lie far apart in the run, so on a
    /// cold cache each record is a miss. Answered row by row, each miss
    /// waited for the one before (the work of answering a row comes
    /// between two of them); read here in a loop with nothing else in it,
    /// several are in flight at once. The benchmark's value-regex scan
    /// after a full collection went from 7.2 to 4.7 ms in wasm, and from
    /// 3.7-4.5 to 2.7-3.7 ms natively with the caches emptied (BENCHMARKS.md,
    /// "Passing cells read ahead").
    pub(crate) fn read_ahead(&self, cells: &[(usize, usize)]) -> u64 {
        let run = self.run;
        let mut sum = 0u64;
        for &(_, i) in cells {
            sum = sum.wrapping_add(run.cell(i).ts as u64);
        }
        // The key and value bytes, whose places the first loop fetched.
        for &(row, i) in cells {
            let key = run.row_key(row).first().copied().unwrap_or(0);
            let value = run.value(run.cell(i)).first().copied().unwrap_or(0);
            sum = sum.wrapping_add(u64::from(key) ^ u64::from(value));
        }
        sum
    }

    /// Appends the views of `cells` (of `row`, increasing) to `out`, each
    /// marked for GC as [`RunReader::views`] would. Only for a
    /// [`clean`](Self::is_clean) run, where every stored cell is visible.
    pub(crate) fn views_of(
        &self,
        row: usize,
        cells: &[(usize, usize)],
        out: &mut Vec<CellView<'t>>,
    ) {
        debug_assert!(self.is_clean(), "views_of on a run with hidden cells");
        let run = self.run;
        let first = run.row_cells(row).start;
        for &(_, i) in cells {
            let c = run.cell(i);
            let gc_eligible = self.fams.gc_rule(c.fid).is_some_and(|rule| {
                // The cell's version: how many newer cells of its column
                // come before it in the row.
                let here = (c.fid, c.qual_id());
                let version = (first..i)
                    .rev()
                    .take_while(|&j| {
                        let d = run.cell(j);
                        (d.fid, d.qual_id()) == here
                    })
                    .count();
                rule.erases(version, c.ts, self.now_micros)
            });
            out.push(CellView {
                family: self.fams.name(c.fid),
                qualifier: run.qual(c),
                timestamp_micros: c.ts,
                value: run.value(c),
                label: None,
                gc_eligible,
            });
        }
    }
}

/// The compacted-tablet path against the general merging path, on random
/// tables (deleted cells, dropped families, GC-eligible versions, writes
/// after compaction, several tablets) and random filters, ranges,
/// directions and limits: the same rows, cells and statistics.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::borrow::Cow;
    use std::time::Duration;

    use proptest::prelude::*;

    use crate::engine::EngineConfig;
    use crate::engine::table::{ReadOptions, ReadPath, Table};
    use crate::filter::{FilterPlan, RowFilter};
    use crate::mutation::Mutation;
    use crate::row::{OwnedRow, ReadStats, RowView};
    use crate::row_set::KeyRange;
    use crate::schema::{ColumnFamily, FamilyChange, GcRule, TableSchema};

    const VALUES: &[&[u8]] = &[
        b"ab",
        b"abc",
        b"xab",
        b"ab\n",
        b"a",
        b"b",
        b"",
        b"PQ2A.190405.003",
        b"PQ2A.19",
        b"\xffab",
        b"ba",
        b"aab",
        // Longer than the value index's dictionary takes.
        b"ababababababababababababababababababababababababababababababababababab",
    ];
    /// Value regexes (with and without a required literal) and other filters.
    const VALUE_PATTERNS: &[&[u8]] = &[
        b"ab",
        b"ab\\C*",
        b"ab.*",
        b"a[bc]",
        b"abc?",
        b"ab|ba",
        b"\\C*ab\\C*",
        b"PQ2A\\.19040[0-9]\\.003",
        b"",
        b"\\xffab",
        b"(?i)AB",
        b"aa\\C*",
    ];

    /// One random write: (row, family, qualifier, timestamp, value).
    type Cell = (u8, u8, u8, i64, usize);

    /// Pieces of random value regexes: literals, classes, the byte-set
    /// sequences and length bounds the matchers test first, repetitions.
    const PIECES: &[&str] = &[
        "a", "b", "\\.", ".", "\\C", "[0-9]", "[a-c]", "(a|b)", "(?i)a", "b?", "\\C*", "c*", "{2}",
        "PQ2A", "\\xff", "|",
    ];

    /// Value regex number `i`: one of [`VALUE_PATTERNS`], or (above their
    /// count) pieces chosen by the digits of `i`.
    fn value_regex(i: usize) -> RowFilter {
        if i < VALUE_PATTERNS.len() * 2 {
            return RowFilter::ValueRegex(VALUE_PATTERNS[i % VALUE_PATTERNS.len()].to_vec());
        }
        let mut pattern = String::new();
        let mut rest = i;
        while rest > 0 {
            pattern.push_str(PIECES[rest % PIECES.len()]);
            rest /= PIECES.len();
        }
        RowFilter::ValueRegex(pattern.into_bytes())
    }

    fn filter(kind: u8, i: usize) -> Option<RowFilter> {
        Some(match kind % 9 {
            0 => return None,
            1 | 2 => value_regex(i),
            3 => RowFilter::Chain(vec![RowFilter::ApplyLabel("l".into()), value_regex(i)]),
            4 => RowFilter::Chain(vec![RowFilter::StripValue, value_regex(i)]),
            5 => RowFilter::Chain(vec![RowFilter::FamilyNameRegex("a".into()), value_regex(i)]),
            6 => RowFilter::Chain(vec![value_regex(i), RowFilter::CellsPerRowLimit(1)]),
            7 => {
                RowFilter::Interleave(vec![value_regex(i), RowFilter::FamilyNameRegex("b".into())])
            }
            _ => RowFilter::CellsPerColumnLimit(1),
        })
    }

    fn key(row: u8) -> Vec<u8> {
        format!("r{:02}", row % 40).into_bytes()
    }

    /// How values repeat: 0, two values over and over; 1, the [`VALUES`];
    /// 2, mostly unique values (one of them with the row and time after
    /// it); 3, a mix.
    type Palette = u8;

    fn value(palette: Palette, row: u8, ts: i64, v: usize) -> Cow<'static, [u8]> {
        let known = VALUES[v % VALUES.len()];
        match palette % 4 {
            0 => Cow::Borrowed(VALUES[v % 2]),
            1 => Cow::Borrowed(known),
            2 => Cow::Owned([known, format!("{row}.{ts}").as_bytes()].concat()),
            _ if v.is_multiple_of(3) => Cow::Owned([known, format!("{row}").as_bytes()].concat()),
            _ => Cow::Borrowed(known),
        }
    }

    fn set(family: &str, qual: u8, ts: i64, value: Cow<'static, [u8]>) -> Mutation<'static> {
        Mutation::SetCell {
            family_name: Cow::Owned(family.to_string()),
            column_qualifier: Cow::Owned(vec![b'q', b'0' + qual % 3]),
            timestamp_micros: ts * 1000,
            value,
        }
    }

    /// Builds the table: writes, compacts at `now`, then, if bit 4 of
    /// `extra` is set, applies the after-compaction changes chosen by its
    /// low bits (else the tablets stay clean runs, the value index's
    /// ground); bit 3: a read through the value index, then splits of the
    /// tablets, cut from their runs.
    fn table(splits: &[u8], cells: &[Cell], later: &[Cell], extra: u8, palette: Palette) -> Table {
        let mut schema = TableSchema::default();
        schema.families.insert("a".into(), ColumnFamily::default());
        schema.families.insert("b".into(), ColumnFamily::default());
        schema.families.insert(
            "c".into(),
            ColumnFamily::with_gc(Some(GcRule::MaxAge(Duration::from_millis(2)))),
        );
        let mut splits: Vec<Vec<u8>> = splits.iter().map(|&s| key(s)).collect();
        splits.sort();
        splits.dedup();
        let cfg = EngineConfig::default();
        let mut t = Table::new("t", &schema, splits, 0).unwrap();
        let fam = |f: u8| ["a", "b", "c"][usize::from(f % 3)];
        for &(row, f, q, ts, v) in cells {
            let m = set(fam(f), q, ts, value(palette, row, ts, v));
            t.mutate_row(&key(row), &[m], 0, &cfg).unwrap();
        }
        t.prepare_read();
        // GC is not applied at time 0 for MaxAge: eligible versions stay
        // visible to the reads at a later `now`.
        t.compact_all(0, &mut Vec::new());
        // A rule set after compaction: older versions of "b" stay in the
        // run, eligible for GC, which the read marks by version number.
        let one_version = ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1)));
        t.modify_families(
            &[FamilyChange::Update("b".into(), one_version)],
            crate::Fidelity::Production,
        )
        .unwrap();
        let later = if extra & 16 != 0 { later } else { &[] };
        for &(row, f, q, ts, v) in later {
            let m = match extra % 4 {
                0 => set(fam(f), q, ts, value(palette, row, ts, v)),
                1 => Mutation::DeleteFromColumn {
                    family_name: Cow::Borrowed(fam(f)),
                    column_qualifier: Cow::Owned(vec![b'q', b'0' + q % 3]),
                    time_range: None,
                },
                2 => Mutation::DeleteFromRow,
                _ => Mutation::DeleteFromFamily {
                    family_name: Cow::Borrowed(fam(f)),
                },
            };
            t.mutate_row(&key(row), &[m], 0, &cfg).unwrap();
        }
        if extra & 20 == 20 {
            t.modify_families(
                &[FamilyChange::Drop("b".into())],
                crate::Fidelity::Production,
            )
            .unwrap();
        }
        t.prepare_read();
        if extra & 8 != 0 {
            // The runs' value indexes are built, then the runs are cut.
            let plan = FilterPlan::compile(&RowFilter::ValueRegex(b"a\\C*".to_vec())).unwrap();
            let opts = ReadOptions {
                plan: Some(&plan),
                ..ReadOptions::plain(0)
            };
            let all = KeyRange {
                start: Vec::new(),
                end: None,
            };
            read(&t, &all, &opts, ReadPath::Indexed);
            let small = EngineConfig {
                split_bytes: 400,
                merge_bytes: 0,
                ..EngineConfig::default()
            };
            t.tick(0, &small, &mut Vec::new());
            t.prepare_read();
        }
        t
    }

    fn read(
        t: &Table,
        range: &KeyRange,
        opts: &ReadOptions<'_>,
        path: ReadPath,
    ) -> (Vec<OwnedRow>, ReadStats) {
        let mut rows = Vec::new();
        let stats = t.read_with(
            std::slice::from_ref(range),
            opts,
            &mut |r: RowView<'_>| {
                rows.push(r.to_owned_row());
                true
            },
            path,
        );
        (rows, stats)
    }

    fn cell() -> impl Strategy<Value = Cell> {
        (0u8..40, 0u8..3, 0u8..3, 0i64..12, 0usize..VALUES.len())
    }

    /// The read through every path: the compacted-tablet path testing
    /// values one by one (the runs here are small) and through the value
    /// index must both agree with the merging path.
    fn check_paths(
        t: &Table,
        range: &KeyRange,
        opts: &ReadOptions<'_>,
    ) -> Result<(), TestCaseError> {
        let merged = read(t, range, opts, ReadPath::Merged);
        let fast = read(t, range, opts, ReadPath::Fastest);
        prop_assert_eq!(&fast, &merged, "one by one");
        let indexed = read(t, range, opts, ReadPath::Indexed);
        prop_assert_eq!(&indexed, &merged, "through the value index");
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn compacted_path_agrees_with_merging(
            splits in prop::collection::vec(0u8..40, 0..3),
            cells in prop::collection::vec(cell(), 0..200),
            later in prop::collection::vec(cell(), 0..4),
            extra in 0u8..32,
            palette in 0u8..4,
            kind in 0u8..9,
            pattern in 0usize..100_000,
            bounds in (0u8..45, 0u8..45),
            reversed in any::<bool>(),
            limit in prop::option::of(1u64..6),
        ) {
            let t = table(&splits, &cells, &later, extra, palette);
            // A random pattern RE2 refuses (`{2}` with nothing to repeat)
            // is no case.
            let Ok(plan) = filter(kind, pattern).map(|f| FilterPlan::compile(&f)).transpose() else {
                return Ok(());
            };
            let (lo, hi) = (bounds.0.min(bounds.1), bounds.0.max(bounds.1));
            let range = KeyRange {
                start: if lo == 0 { Vec::new() } else { key(lo) },
                end: (hi < 40).then(|| key(hi)),
            };
            let opts = ReadOptions {
                reversed,
                limit,
                plan: plan.as_ref(),
                now_micros: 10_000,
            };
            check_paths(&t, &range, &opts)?;
        }
    }

    #[test]
    fn the_gate_finds_the_cells_passing_it() {
        // r01 "ab"; r02 "xab" (holds it, does not start with it); r03 "ba"
        // and, in a second column, "abc"; r04 "a".
        let cells = [
            (1, 0, 0, 1, 0),
            (2, 0, 0, 1, 2),
            (3, 0, 0, 1, 10),
            (3, 0, 1, 1, 1),
            (4, 0, 0, 1, 4),
        ];
        let t = table(&[], &cells, &[], 0, 1);
        let run = t.tablets[0].single_run().unwrap();
        let reader = super::RunReader::new(run, &t.fams, 0);
        let found = |start: &[u8], end: Option<&[u8]>, pattern: &[u8]| {
            let plan = FilterPlan::compile(&RowFilter::ValueRegex(pattern.to_vec())).unwrap();
            let gate = plan.value_gate().unwrap();
            let mut cells = Vec::new();
            let rows = reader.rows(start, end);
            reader.cells_passing(rows.clone(), &gate, false, &mut Vec::new(), &mut cells);
            let mut indexed = Vec::new();
            reader.cells_passing(rows, &gate, true, &mut Vec::new(), &mut indexed);
            assert_eq!(indexed, cells, "through the value index");
            cells
        };
        assert_eq!(found(b"", None, b"ab\\C*"), vec![(0, 0), (2, 3)]);
        assert_eq!(found(b"", None, b"a\\C*"), vec![(0, 0), (2, 3), (3, 4)]);
        assert_eq!(found(b"", None, b"\\C*ab"), vec![(0, 0), (1, 1)]);
        assert_eq!(found(b"r02", Some(b"r04"), b"ba"), vec![(2, 2)]);
        assert_eq!(found(b"r02", Some(b"r03"), b"ab\\C*"), Vec::new());
        assert_eq!(found(b"", None, b"abcd"), Vec::new());
    }
}
