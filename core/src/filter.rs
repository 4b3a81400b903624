//! The RowFilter language (`google.bigtable.v2.RowFilter`): the AST, its
//! validation and compilation into a [`FilterPlan`], and the evaluator the
//! read path runs on every row.
//!
//! A plan is compiled once per request; evaluation then works row by row on
//! borrowed cells and appends borrowed cells to a caller-owned buffer, so it
//! allocates nothing per cell.

use crate::error::{Error, Result};
use crate::mutation::TimestampRange;
use crate::row::CellView;
use crate::row_set::KeyBound;

/// A Bigtable row filter.
#[derive(Clone, Debug, PartialEq)]
pub enum RowFilter {
    /// Apply each filter to the output of the previous one.
    Chain(Vec<RowFilter>),
    /// Apply each filter to the row and merge all outputs.
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
    /// Send the input straight to the read's output.
    Sink,
    /// Keep every cell.
    PassAll,
    /// Drop every cell.
    BlockAll,
    /// Keep rows whose key fully matches an RE2 regex over bytes.
    RowKeyRegex(Vec<u8>),
    /// Keep each row with this probability.
    RowSample(f64),
    /// Keep cells whose family name fully matches an RE2 regex.
    FamilyNameRegex(String),
    /// Keep cells whose qualifier fully matches an RE2 regex over bytes.
    ColumnQualifierRegex(Vec<u8>),
    /// Keep cells of one family whose qualifier lies in a range.
    ColumnRange {
        /// The family.
        family_name: String,
        /// Lower qualifier bound.
        start: KeyBound,
        /// Upper qualifier bound.
        end: KeyBound,
    },
    /// Keep cells whose timestamp lies in a range.
    TimestampRange(TimestampRange),
    /// Keep cells whose value fully matches an RE2 regex over bytes.
    ValueRegex(Vec<u8>),
    /// Keep cells whose value lies in a range.
    ValueRange {
        /// Lower value bound.
        start: KeyBound,
        /// Upper value bound.
        end: KeyBound,
    },
    /// Skip the first N cells of each row.
    CellsPerRowOffset(i32),
    /// Keep only the first N cells of each row.
    CellsPerRowLimit(i32),
    /// Keep only the newest N cells of each column.
    CellsPerColumnLimit(i32),
    /// Replace every value by the empty string.
    StripValue,
    /// Attach a label to every cell.
    ApplyLabel(String),
}

/// A validated, compiled filter, ready to run on rows.
#[derive(Debug)]
pub struct FilterPlan {
    node: Node,
}

#[derive(Debug)]
enum Node {
    PassAll,
    BlockAll,
}

impl FilterPlan {
    /// Validates and compiles a filter.
    pub fn compile(filter: &RowFilter) -> Result<FilterPlan> {
        let node = match filter {
            RowFilter::PassAll => Node::PassAll,
            RowFilter::BlockAll => Node::BlockAll,
            other => {
                return Err(Error::unimplemented(format!(
                    "filter {other:?} is not supported yet"
                )));
            }
        };
        Ok(FilterPlan { node })
    }

    /// Sets the seed that makes `row_sample_filter` repeatable.
    #[must_use]
    pub fn with_seed(self, _seed: u64) -> FilterPlan {
        self
    }

    /// Runs the filter on one row: `input` holds the row's cells in read
    /// order; the surviving cells are appended to `out` in read order.
    pub fn apply<'a>(
        &'a self,
        _row_key: &[u8],
        input: &[CellView<'a>],
        _scratch: &mut FilterScratch<'a>,
        out: &mut Vec<CellView<'a>>,
    ) {
        match self.node {
            Node::PassAll => out.extend_from_slice(input),
            Node::BlockAll => {}
        }
    }
}

/// Reusable buffers for [`FilterPlan::apply`], kept by the caller across
/// rows so evaluation does not allocate per row.
#[derive(Debug, Default)]
pub struct FilterScratch<'a> {
    bufs: Vec<Vec<CellView<'a>>>,
}

impl FilterScratch<'_> {
    /// Empty scratch space.
    #[must_use]
    pub fn new() -> Self {
        FilterScratch { bufs: Vec::new() }
    }
}
