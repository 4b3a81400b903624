//! The RowFilter language (`google.bigtable.v2.RowFilter`): the AST, its
//! validation and compilation into a [`FilterPlan`], and the evaluator the
//! read path runs on every row.
//!
//! - `filter/compile.rs` checks a [`RowFilter`] the way Bigtable does
//!   (`INVALID_ARGUMENT` naming the field) and builds the plan: regexes
//!   compiled once, bounds normalised, labels interned;
//! - `filter/eval.rs` runs a plan on one row;
//! - `filter/re2.rs` translates Bigtable's regex dialect (RE2, raw bytes,
//!   full match) for the `regex` crate.
//!
//! A plan is compiled once per request. Evaluation then works row by row on
//! borrowed cells and appends borrowed cells to a caller-owned buffer; its
//! working sets are small index lists kept in a [`FilterScratch`] the caller
//! reuses across rows, so it allocates nothing per cell and, once the
//! scratch buffers have grown, nothing per row.
//!
//! Semantics follow the comments of `RowFilter` in
//! `google/bigtable/v2/data.proto`, including the parts the Go emulator
//! skips: `sink` sends its input to the read's output and nothing to its
//! parent, `interleave` keeps duplicate cells, limits count every copy, and
//! a `condition` with a missing branch yields nothing for that branch.

mod compile;
mod eval;
mod go_syntax;
mod latin1;
mod re2;
mod regex_cache;
mod regex_shape;

pub(crate) use regex_shape::ByteSet;

use std::marker::PhantomData;

pub use regex_cache::RegexCache;

use crate::error::Result;
use crate::mutation::TimestampRange;
use crate::row::CellView;
use crate::row_set::KeyBound;

/// A Bigtable row filter.
#[derive(Clone, Debug, PartialEq)]
pub enum RowFilter {
    /// Apply each filter to the output of the previous one (at least two).
    Chain(Vec<RowFilter>),
    /// Apply each filter to the row and merge all outputs in cell order,
    /// keeping duplicates (at least two).
    Interleave(Vec<RowFilter>),
    /// If the predicate yields any cell, apply `true_filter`, else
    /// `false_filter` (a missing branch yields nothing).
    Condition {
        /// The test.
        predicate: Box<RowFilter>,
        /// Applied to the row when the predicate matched.
        true_filter: Option<Box<RowFilter>>,
        /// Applied to the row when it did not.
        false_filter: Option<Box<RowFilter>>,
    },
    /// Send the input straight to the read's output (and nothing to the
    /// parent filter). Not allowed inside a condition.
    Sink,
    /// Keep every cell.
    PassAll,
    /// Drop every cell.
    BlockAll,
    /// Keep rows whose key fully matches an RE2 regex over bytes.
    RowKeyRegex(Vec<u8>),
    /// Keep each row with this probability, `0 < p < 1`. Which rows are kept
    /// depends only on the row key and the plan's seed.
    RowSample(f64),
    /// Keep cells whose family name fully matches an RE2 regex (which must
    /// not contain `:`).
    FamilyNameRegex(String),
    /// Keep cells whose qualifier fully matches an RE2 regex over bytes.
    ColumnQualifierRegex(Vec<u8>),
    /// Keep cells of one family whose qualifier lies in a range.
    ColumnRange {
        /// The family.
        family_name: String,
        /// Lower qualifier bound (`Unbounded` means the empty qualifier,
        /// inclusive).
        start: KeyBound,
        /// Upper qualifier bound (`Unbounded` means no upper bound).
        end: KeyBound,
    },
    /// Keep cells whose timestamp lies in `[start, end)` (end 0: no bound);
    /// the bounds are any non-negative microseconds.
    TimestampRange(TimestampRange),
    /// Keep cells whose value fully matches an RE2 regex over bytes.
    ValueRegex(Vec<u8>),
    /// Keep cells whose value lies in a range.
    ValueRange {
        /// Lower value bound (`Unbounded` means the empty value, inclusive).
        start: KeyBound,
        /// Upper value bound (`Unbounded` means no upper bound).
        end: KeyBound,
    },
    /// Skip the first N cells of each row (N ≥ 0).
    CellsPerRowOffset(i32),
    /// Keep only the first N cells of each row (N > 0).
    CellsPerRowLimit(i32),
    /// Keep only the newest N cells of each column (N > 0).
    CellsPerColumnLimit(i32),
    /// Replace every value by the empty string.
    StripValue,
    /// Attach a label (1 to 15 characters of `[a-z0-9-]`) to every cell.
    ApplyLabel(String),
}

/// A validated, compiled filter, ready to run on rows.
#[derive(Debug)]
pub struct FilterPlan {
    /// A flat list of steps when the whole filter works cell by cell (no
    /// limits, interleaves, conditions or sinks), a tree otherwise.
    body: compile::Body,
    /// Interned labels; label id `k > 0` stands for `labels[k - 1]`.
    labels: Vec<String>,
    /// Families named by `column_range_filter`s, for
    /// [`FilterPlan::check_families`].
    families: Vec<String>,
    seed: u64,
}

impl FilterPlan {
    /// Validates and compiles a filter. A filter Bigtable would reject is an
    /// `INVALID_ARGUMENT` naming the offending field, as in
    /// `Error in field 'value_regex_filter' : missing ]: [a`.
    pub fn compile(filter: &RowFilter) -> Result<FilterPlan> {
        compile::compile(filter)
    }

    /// [`FilterPlan::compile`] as Google's emulator checks a filter where
    /// it differs from production (labels, regex error texts; see
    /// [`crate::Fidelity`]).
    pub(crate) fn compile_as_emulator(filter: &RowFilter) -> Result<FilterPlan> {
        compile::compile_with(filter, true, None)
    }

    /// [`FilterPlan::compile`] taking the filter's regexes from `regexes`
    /// (and keeping new ones there), checking labels as Google's emulator
    /// does when `as_emulator`. The plan is the same as without the cache.
    pub(crate) fn compile_cached(
        filter: &RowFilter,
        as_emulator: bool,
        regexes: &mut RegexCache,
    ) -> Result<FilterPlan> {
        compile::compile_with(filter, as_emulator, Some(regexes))
    }

    /// Sets the seed that makes `row_sample_filter` repeatable: the same
    /// seed and row key always give the same decision.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> FilterPlan {
        self.seed = seed;
        self
    }

    /// Checks that every family a `column_range_filter` names exists, as
    /// Bigtable does (`NOT_FOUND` otherwise; the emulator instead returns
    /// nothing). `exists` answers for one family name.
    pub fn check_families(&self, exists: impl Fn(&str) -> bool) -> Result<()> {
        match self.families.iter().find(|f| !exists(f)) {
            Some(f) => Err(crate::error::Error::not_found(format!(
                "Error in field 'column_range_filter' : column family \"{f}\" not found in table"
            ))),
            None => Ok(()),
        }
    }

    /// A value test that every cell this plan returns passes on its
    /// stored value, when the plan is a flat chain with a value regex that
    /// sees unstripped values, and that is worth running on every stored
    /// cell before rows are assembled: the plan is that regex alone, or
    /// every match starts with a literal (most values fail on their first
    /// byte). A read may then skip rows where no value passes it.
    pub(crate) fn value_gate(&self) -> Option<ValueGate<'_>> {
        let (regex, whole) = compile::value_gate(&self.body)?;
        (whole || !regex.required_prefix().is_empty()).then_some(ValueGate { regex, whole })
    }

    /// Runs the filter on one row: `input` holds the row's cells in read
    /// order (family name, qualifier, timestamp newest first); the surviving
    /// cells are appended to `out` in read order. An empty result means the
    /// row is not returned.
    pub fn apply<'a>(
        &'a self,
        row_key: &[u8],
        input: &[CellView<'a>],
        scratch: &mut FilterScratch<'a>,
        out: &mut Vec<CellView<'a>>,
    ) {
        eval::apply(self, row_key, input, scratch, out);
    }
}

/// A plan's value regex, run by a read on stored values before it
/// assembles rows (see [`FilterPlan::value_gate`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ValueGate<'p> {
    regex: &'p re2::ByteRegex,
    whole: bool,
}

impl ValueGate<'_> {
    /// Whether `value`, as stored, passes the regex.
    #[inline]
    pub(crate) fn passes(&self, value: &[u8]) -> bool {
        self.regex.is_match(value)
    }

    /// Bytes every passing value starts with (possibly none).
    #[inline]
    pub(crate) fn prefix(&self) -> &[u8] {
        self.regex.required_prefix()
    }

    /// Whether some value between `min_len` and `max_len` bytes long
    /// (inclusive) whose first byte, if it has one, lies in `first` may
    /// pass. When not, a group of such values needs no test at all.
    pub(crate) fn may_pass(&self, min_len: usize, max_len: usize, first: &ByteSet) -> bool {
        let (lo, hi) = self.regex.length_bounds();
        if max_len < lo || min_len > hi {
            return false;
        }
        match self.regex.first_bytes() {
            // Every match is non-empty (`lo` counts its first byte).
            Some(starts) if lo > 0 => starts.intersects(first),
            _ => true,
        }
    }

    /// Whether the regex is the whole plan: then a row's result is exactly
    /// its visible cells that pass, unchanged (no label, nothing stripped).
    pub(crate) fn is_whole_plan(&self) -> bool {
        self.whole
    }
}

/// Reusable buffers for [`FilterPlan::apply`], kept by the caller across
/// rows so evaluation does not allocate per row.
#[derive(Debug, Default)]
pub struct FilterScratch<'a> {
    /// Free working sets.
    pool: Vec<Vec<eval::Item>>,
    /// What `sink` filters sent to the output of the current row, in cell
    /// order.
    sink: Vec<eval::Item>,
    /// Per-step results of column-level tests in the flat evaluator,
    /// tagged with `generation` (see `filter/eval.rs`).
    cache: Vec<u32>,
    /// Moves on whenever the column changes; never 0 once a cell was seen.
    generation: u32,
    _cells: PhantomData<CellView<'a>>,
}

impl FilterScratch<'_> {
    /// Empty scratch space.
    #[must_use]
    pub fn new() -> Self {
        FilterScratch {
            pool: Vec::new(),
            sink: Vec::new(),
            cache: Vec::new(),
            generation: 0,
            _cells: PhantomData,
        }
    }
}
