//! Validation and compilation of a [`RowFilter`] into a [`FilterPlan`].
//!
//! Validation follows production Bigtable (the `RowFilter` comments in
//! `google/bigtable/v2/data.proto` are the spec; error texts follow the
//! service's `Error in field '<field>' : <reason>` style):
//! - a serialized filter is at most 4096 bytes and nests at most 20 deep;
//! - chains and interleaves have at least two sub-filters;
//! - a chain has at most one sub-filter that applies a label, so a cell
//!   never carries two labels;
//! - `sink` is not allowed anywhere inside a condition;
//! - regexes must be valid RE2; `row_key_regex_filter` must not be empty,
//!   `family_name_regex_filter` must not contain `:`;
//! - a column range names a valid family; timestamp bounds are not
//!   negative (any microsecond is a bound, as in production);
//! - `cells_per_row_offset_filter` is ≥ 0, the two limit filters are > 0;
//! - `row_sample_filter` lies strictly between 0 and 1;
//! - labels are 1 to 15 characters of `[a-z0-9-]`.
//!
//! Compilation builds each regex once, normalises range bounds, interns
//! labels and simplifies the tree (nested chains are flattened, `pass_all`
//! steps dropped). A filter that works cell by cell — a chain of per-cell
//! tests and transformers, optionally gated by row tests — becomes a flat
//! list of steps the evaluator runs in one pass over the row.

use std::cmp::Ordering;

use super::go_syntax;
use super::re2::{ByteRegex, RegexError};
use super::{FilterPlan, RegexCache, RowFilter};
use crate::bytes;
use crate::error::{Error, Result};
use crate::row_set::KeyBound;
use crate::schema::{MAX_FAMILY_NAME_LEN, validate_family_name};

/// Deepest nesting Bigtable accepts.
pub(crate) const MAX_DEPTH: usize = 20;
/// Largest serialized filter Bigtable accepts, in bytes.
pub(crate) const MAX_SERIALIZED_BYTES: usize = 4096;
/// Longest label.
const MAX_LABEL_LEN: usize = 15;

/// A compiled filter tree.
#[derive(Debug)]
pub(crate) enum Node {
    /// A filter that looks at one cell (or the row key) at a time.
    Step(Step),
    /// Sends its input to the read's output, nothing to its parent.
    Sink,
    /// At least two nodes, none of them a chain.
    Chain(Vec<Node>),
    /// At least two nodes.
    Interleave(Vec<Node>),
    /// A condition; a missing branch yields nothing.
    Condition {
        predicate: Box<Node>,
        on_true: Option<Box<Node>>,
        on_false: Option<Box<Node>>,
    },
    /// Skip the first N cells.
    Offset(usize),
    /// Keep the first N cells.
    Limit(usize),
    /// Keep the first N cells of each column.
    ColumnLimit(usize),
}

/// A filter that decides per cell (or once per row) and may transform
/// cells, but never looks at other cells.
#[derive(Debug)]
pub(crate) enum Step {
    /// Keeps everything.
    Pass,
    /// Drops everything.
    Block,
    /// Keeps the row if its key matches.
    RowKey(ByteRegex),
    /// Keeps the row if `hash(seed, salt, key) < threshold`.
    RowSample {
        threshold: u64,
        salt: u64,
    },
    Family(ByteRegex),
    Qualifier(ByteRegex),
    ColumnRange {
        family: Box<str>,
        range: ByteRange,
    },
    /// `[start, end)`; `end` `None` for no bound.
    Timestamp {
        start: i64,
        end: Option<i64>,
    },
    Value(ByteRegex),
    ValueRange(ByteRange),
    Strip,
    /// Sets the label with this id (`labels[id - 1]`).
    Label(u16),
}

impl Step {
    /// Whether the step decides once per row rather than per cell.
    pub(crate) fn is_row_level(&self) -> bool {
        matches!(self, Step::RowKey(_) | Step::RowSample { .. } | Step::Block)
    }

    /// Whether the step's decision depends only on the cell's column, so
    /// it can be cached while the column does not change.
    pub(crate) fn is_column_level(&self) -> bool {
        matches!(
            self,
            Step::Family(_) | Step::Qualifier(_) | Step::ColumnRange { .. }
        )
    }
}

/// A range of byte strings with normalised bounds.
#[derive(Debug)]
pub(crate) struct ByteRange {
    /// Inclusive (`true`) or exclusive lower bound; an unbounded start is
    /// the empty string, inclusive, as the proto says.
    start: Box<[u8]>,
    start_inclusive: bool,
    /// `None`: no upper bound.
    end: Option<(Box<[u8]>, bool)>,
}

impl ByteRange {
    fn new(start: &KeyBound, end: &KeyBound) -> ByteRange {
        let (start, start_inclusive) = match start {
            KeyBound::Unbounded => (Box::default(), true),
            KeyBound::Closed(k) => (k.clone().into_boxed_slice(), true),
            KeyBound::Open(k) => (k.clone().into_boxed_slice(), false),
        };
        let end = match end {
            KeyBound::Unbounded => None,
            KeyBound::Closed(k) => Some((k.clone().into_boxed_slice(), true)),
            KeyBound::Open(k) => Some((k.clone().into_boxed_slice(), false)),
        };
        ByteRange {
            start,
            start_inclusive,
            end,
        }
    }

    /// Whether `v` lies in the range.
    #[inline]
    pub(crate) fn contains(&self, v: &[u8]) -> bool {
        let above = match bytes::cmp(v, &self.start) {
            Ordering::Greater => true,
            Ordering::Equal => self.start_inclusive,
            Ordering::Less => false,
        };
        above
            && match &self.end {
                None => true,
                Some((e, inclusive)) => match bytes::cmp(v, e) {
                    Ordering::Less => true,
                    Ordering::Equal => *inclusive,
                    Ordering::Greater => false,
                },
            }
    }
}

/// The compiled body of a plan.
#[derive(Debug)]
pub(crate) enum Body {
    /// Cell-by-cell: steps applied in order to each cell.
    Flat(Vec<Step>),
    /// Anything else.
    Tree(Node),
}

/// See [`FilterPlan::value_gate`]: every step of a flat body must pass for
/// a cell to be returned, and only `strip` changes the value the later
/// steps see. Returns the first value regex seen before any strip, and
/// whether it is the body's only step.
pub(crate) fn value_gate(body: &Body) -> Option<(&ByteRegex, bool)> {
    let Body::Flat(steps) = body else {
        return None;
    };
    for step in steps {
        match step {
            Step::Strip => return None,
            Step::Value(re) => return Some((re, steps.len() == 1)),
            _ => {}
        }
    }
    None
}

/// Validates and compiles.
pub(crate) fn compile(filter: &RowFilter) -> Result<FilterPlan> {
    compile_with(filter, false, None)
}

/// Validates and compiles, checking labels and regexes as Google's emulator does
/// (`as_emulator`) or as production does, taking regexes from `regexes` when
/// given (and keeping the new ones there).
pub(crate) fn compile_with(
    filter: &RowFilter,
    as_emulator: bool,
    regexes: Option<&mut RegexCache>,
) -> Result<FilterPlan> {
    let size = serialized_len(filter, 1)?;
    if size > MAX_SERIALIZED_BYTES {
        return Err(Error::invalid(format!(
            "Error in field 'filter' : the filter is {size} bytes when serialized; \
             a RowFilter may be at most {MAX_SERIALIZED_BYTES} bytes"
        )));
    }
    let mut b = Builder {
        as_emulator,
        regexes,
        ..Builder::default()
    };
    let root = b.build(filter, false)?;
    let body = match flatten(root) {
        Ok(steps) => Body::Flat(steps),
        Err(node) => Body::Tree(node),
    };
    Ok(FilterPlan {
        body,
        labels: b.labels,
        families: b.families,
        seed: 0,
    })
}

/// Turns a cell-by-cell node into its list of steps, or gives it back.
fn flatten(node: Node) -> std::result::Result<Vec<Step>, Node> {
    fn is_flat(n: &Node) -> bool {
        match n {
            Node::Step(_) => true,
            Node::Chain(subs) => subs.iter().all(is_flat),
            _ => false,
        }
    }
    fn push(n: Node, out: &mut Vec<Step>) {
        match n {
            Node::Step(s) => out.push(s),
            Node::Chain(subs) => subs.into_iter().for_each(|s| push(s, out)),
            // Unreachable: `is_flat` was checked first.
            _ => {}
        }
    }
    if !is_flat(&node) {
        return Err(node);
    }
    let mut steps = Vec::new();
    push(node, &mut steps);
    steps.retain(|s| !matches!(s, Step::Pass));
    Ok(steps)
}

#[derive(Default)]
struct Builder<'c> {
    /// Labels checked as Google's emulator checks them (see
    /// [`label_is_valid`]).
    as_emulator: bool,
    /// Where compiled regexes are kept between filters, if anywhere.
    regexes: Option<&'c mut RegexCache>,
    labels: Vec<String>,
    families: Vec<String>,
    /// Counts row sample filters, so two of them decide independently.
    samples: u64,
}

/// Whether `label` may be applied: production requires 1 to
/// [`MAX_LABEL_LEN`] characters of `[a-z0-9-]`; Google's emulator matches
/// that pattern unanchored and without a length limit, so any label
/// holding one such character passes (as the differential suite records).
fn label_is_valid(label: &str, as_emulator: bool) -> bool {
    let allowed = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    if as_emulator {
        label.bytes().any(allowed)
    } else {
        !label.is_empty() && label.len() <= MAX_LABEL_LEN && label.bytes().all(allowed)
    }
}

fn field_error(field: &str, reason: impl std::fmt::Display) -> Error {
    Error::invalid(format!("Error in field '{field}' : {reason}"))
}

/// `pattern` compiled (or taken from `regexes`), its error worded for
/// `field`; `as_emulator` refuses it first where Go's regexp would, with
/// Go's text, as Google's emulator does.
fn regex(
    regexes: Option<&mut RegexCache>,
    field: &str,
    pattern: &[u8],
    as_emulator: bool,
) -> Result<ByteRegex> {
    if as_emulator && let Some(text) = go_syntax::emulator_error(pattern) {
        return Err(field_error(field, text));
    }
    let compiled = match regexes {
        Some(cache) => cache.get_or_compile(pattern),
        None => ByteRegex::new(pattern),
    };
    compiled.map_err(|RegexError::Invalid(m)| field_error(field, m))
}

/// Whether applying the filter can attach a label to a cell it outputs
/// (a condition's predicate only decides, its labels go nowhere).
fn applies_label(f: &RowFilter) -> bool {
    match f {
        RowFilter::ApplyLabel(_) => true,
        RowFilter::Chain(subs) | RowFilter::Interleave(subs) => subs.iter().any(applies_label),
        RowFilter::Condition {
            true_filter,
            false_filter,
            ..
        } => {
            true_filter.as_deref().is_some_and(applies_label)
                || false_filter.as_deref().is_some_and(applies_label)
        }
        _ => false,
    }
}

impl Builder<'_> {
    fn build(&mut self, f: &RowFilter, in_condition: bool) -> Result<Node> {
        Ok(match f {
            RowFilter::Chain(subs) => {
                if subs.len() < 2 {
                    return Err(Error::invalid("Chain must contain at least two RowFilters"));
                }
                if subs.iter().filter(|s| applies_label(s)).count() > 1 {
                    return Err(field_error(
                        "chain",
                        "a Chain may contain at most one sub-filter that applies a label \
                         (apply_label_transformer): a cell can carry only one label",
                    ));
                }
                let mut nodes = Vec::with_capacity(subs.len());
                for s in subs {
                    match self.build(s, in_condition)? {
                        Node::Chain(inner) => nodes.extend(inner),
                        Node::Step(Step::Pass) => {}
                        n => nodes.push(n),
                    }
                }
                match nodes.len() {
                    0 => Node::Step(Step::Pass),
                    1 => nodes.pop().unwrap_or(Node::Step(Step::Pass)),
                    _ => Node::Chain(nodes),
                }
            }
            RowFilter::Interleave(subs) => {
                if subs.len() < 2 {
                    return Err(Error::invalid(
                        "Interleave must contain at least two RowFilters",
                    ));
                }
                let mut nodes = Vec::with_capacity(subs.len());
                for s in subs {
                    match self.build(s, in_condition)? {
                        Node::Step(Step::Block) => {}
                        n => nodes.push(n),
                    }
                }
                match nodes.len() {
                    0 => Node::Step(Step::Block),
                    1 => nodes.pop().unwrap_or(Node::Step(Step::Block)),
                    _ => Node::Interleave(nodes),
                }
            }
            RowFilter::Condition {
                predicate,
                true_filter,
                false_filter,
            } => {
                let predicate = Box::new(self.build(predicate, true)?);
                let mut branch = |b: &Option<Box<RowFilter>>| -> Result<Option<Box<Node>>> {
                    match b {
                        Some(f) => Ok(Some(Box::new(self.build(f, true)?))),
                        None => Ok(None),
                    }
                };
                let on_true = branch(true_filter)?;
                let on_false = branch(false_filter)?;
                Node::Condition {
                    predicate,
                    on_true,
                    on_false,
                }
            }
            RowFilter::Sink => {
                if in_condition {
                    return Err(field_error(
                        "sink",
                        "sink cannot be used within the predicate_filter, true_filter or \
                         false_filter of a Condition",
                    ));
                }
                Node::Sink
            }
            RowFilter::PassAll => Node::Step(Step::Pass),
            RowFilter::BlockAll => Node::Step(Step::Block),
            RowFilter::RowKeyRegex(p) => {
                if p.is_empty() {
                    return Err(field_error(
                        "row_key_regex_filter",
                        "argument must not be empty",
                    ));
                }
                Node::Step(Step::RowKey(regex(
                    self.regexes.as_deref_mut(),
                    "row_key_regex_filter",
                    p,
                    self.as_emulator,
                )?))
            }
            RowFilter::RowSample(p) => {
                let p = *p;
                if !(p > 0.0 && p < 1.0) {
                    return Err(field_error(
                        "row_sample_filter",
                        format!("argument must be between 0.0 and 1.0 (both excluded), got {p}"),
                    ));
                }
                self.samples += 1;
                // `as` saturates; p < 1 keeps the product below 2^64.
                let threshold = (p * 18_446_744_073_709_551_616.0) as u64;
                Node::Step(Step::RowSample {
                    threshold,
                    salt: self.samples,
                })
            }
            RowFilter::FamilyNameRegex(p) => {
                if p.contains(':') {
                    return Err(field_error(
                        "family_name_regex_filter",
                        "the regex must not contain the ':' character",
                    ));
                }
                Node::Step(Step::Family(regex(
                    self.regexes.as_deref_mut(),
                    "family_name_regex_filter",
                    p.as_bytes(),
                    self.as_emulator,
                )?))
            }
            RowFilter::ColumnQualifierRegex(p) => Node::Step(Step::Qualifier(regex(
                self.regexes.as_deref_mut(),
                "column_qualifier_regex_filter",
                p,
                self.as_emulator,
            )?)),
            RowFilter::ColumnRange {
                family_name,
                start,
                end,
            } => {
                if family_name.is_empty() || family_name.len() > MAX_FAMILY_NAME_LEN {
                    return Err(field_error(
                        "column_range_filter",
                        format!(
                            "Invalid id for collection columnFamilies : Length should be between \
                             [1,{MAX_FAMILY_NAME_LEN}], but found {}",
                            family_name.len()
                        ),
                    ));
                }
                validate_family_name(family_name)
                    .map_err(|e| field_error("column_range_filter", e.message()))?;
                if !self.families.contains(family_name) {
                    self.families.push(family_name.clone());
                }
                Node::Step(Step::ColumnRange {
                    family: family_name.as_str().into(),
                    range: ByteRange::new(start, end),
                })
            }
            RowFilter::TimestampRange(r) => {
                // Bounds may have microsecond precision: production accepts
                // them (client libraries send `[t, t + 1)` to match the cell
                // at exactly `t`); only the emulator refuses them.
                if r.start_micros < 0 || r.end_micros < 0 {
                    return Err(field_error(
                        "timestamp_range_filter",
                        format!(
                            "timestamps must not be negative, got [{}, {})",
                            r.start_micros, r.end_micros
                        ),
                    ));
                }
                Node::Step(Step::Timestamp {
                    start: r.start_micros,
                    end: (r.end_micros != 0).then_some(r.end_micros),
                })
            }
            RowFilter::ValueRegex(p) => Node::Step(Step::Value(regex(
                self.regexes.as_deref_mut(),
                "value_regex_filter",
                p,
                self.as_emulator,
            )?)),
            RowFilter::ValueRange { start, end } => {
                Node::Step(Step::ValueRange(ByteRange::new(start, end)))
            }
            RowFilter::CellsPerRowOffset(n) => match usize::try_from(*n) {
                Ok(0) => Node::Step(Step::Pass),
                Ok(n) => Node::Offset(n),
                Err(_) => {
                    return Err(field_error(
                        "cells_per_row_offset_filter",
                        "argument must be >= 0",
                    ));
                }
            },
            RowFilter::CellsPerRowLimit(n) => match usize::try_from(*n) {
                Ok(n) if n > 0 => Node::Limit(n),
                _ => {
                    return Err(field_error(
                        "cells_per_row_limit_filter",
                        "argument must be > 0",
                    ));
                }
            },
            RowFilter::CellsPerColumnLimit(n) => match usize::try_from(*n) {
                Ok(n) if n > 0 => Node::ColumnLimit(n),
                _ => {
                    return Err(field_error(
                        "cells_per_column_limit_filter",
                        "argument must be > 0",
                    ));
                }
            },
            RowFilter::StripValue => Node::Step(Step::Strip),
            RowFilter::ApplyLabel(label) => {
                if !label_is_valid(label, self.as_emulator) {
                    return Err(field_error(
                        "apply_label_transformer",
                        format!(
                            "a label must be 1 to {MAX_LABEL_LEN} characters matching \
                             RE2([a-z0-9\\-]+), but found \"{label}\""
                        ),
                    ));
                }
                let id = match self.labels.iter().position(|l| l == label) {
                    Some(i) => i + 1,
                    None => {
                        self.labels.push(label.clone());
                        self.labels.len()
                    }
                };
                let id = u16::try_from(id)
                    .map_err(|_| field_error("apply_label_transformer", "too many labels"))?;
                Node::Step(Step::Label(id))
            }
        })
    }
}

/// Bytes a varint takes.
fn varint_len(v: u64) -> usize {
    let bits = 64 - v.leading_zeros() as usize;
    bits.max(1).div_ceil(7)
}

/// Bytes of a length-delimited field with a one-byte tag.
fn delimited_len(payload: usize) -> usize {
    1 + varint_len(payload as u64) + payload
}

fn bound_len(b: &KeyBound) -> usize {
    match b {
        KeyBound::Unbounded => 0,
        KeyBound::Closed(k) | KeyBound::Open(k) => delimited_len(k.len()),
    }
}

/// The size of the filter serialized as a `google.bigtable.v2.RowFilter`
/// protocol buffer, checking the nesting depth on the way (`depth` of the
/// top-level filter is 1), so recursion never goes deeper than the limit.
pub(crate) fn serialized_len(f: &RowFilter, depth: usize) -> Result<usize> {
    if depth > MAX_DEPTH {
        return Err(Error::invalid(format!(
            "Error in field 'filter' : RowFilters may not be nested more than {MAX_DEPTH} deep"
        )));
    }
    let list = |subs: &[RowFilter]| -> Result<usize> {
        let mut n = 0;
        for s in subs {
            n += delimited_len(serialized_len(s, depth + 1)?);
        }
        Ok(delimited_len(n))
    };
    Ok(match f {
        RowFilter::Chain(subs) | RowFilter::Interleave(subs) => list(subs)?,
        RowFilter::Condition {
            predicate,
            true_filter,
            false_filter,
        } => {
            let mut n = delimited_len(serialized_len(predicate, depth + 1)?);
            for b in [true_filter, false_filter].into_iter().flatten() {
                n += delimited_len(serialized_len(b, depth + 1)?);
            }
            delimited_len(n)
        }
        // Tags 16 to 19 take two bytes.
        RowFilter::Sink | RowFilter::PassAll | RowFilter::BlockAll => 3,
        RowFilter::ApplyLabel(l) => 1 + delimited_len(l.len()),
        RowFilter::RowKeyRegex(p)
        | RowFilter::ColumnQualifierRegex(p)
        | RowFilter::ValueRegex(p) => delimited_len(p.len()),
        RowFilter::FamilyNameRegex(p) => delimited_len(p.len()),
        RowFilter::RowSample(_) => 9,
        RowFilter::ColumnRange {
            family_name,
            start,
            end,
        } => {
            let name = if family_name.is_empty() {
                0
            } else {
                delimited_len(family_name.len())
            };
            delimited_len(name + bound_len(start) + bound_len(end))
        }
        RowFilter::TimestampRange(r) => {
            let field = |v: i64| if v == 0 { 0 } else { 1 + varint_len(v as u64) };
            delimited_len(field(r.start_micros) + field(r.end_micros))
        }
        RowFilter::ValueRange { start, end } => delimited_len(bound_len(start) + bound_len(end)),
        RowFilter::CellsPerRowOffset(n)
        | RowFilter::CellsPerRowLimit(n)
        | RowFilter::CellsPerColumnLimit(n) => 1 + varint_len(i64::from(*n) as u64),
        RowFilter::StripValue => 2,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialized_sizes_match_protobuf() {
        // pass_all_filter: tag 17 (2 bytes) + bool.
        assert_eq!(serialized_len(&RowFilter::PassAll, 1).ok(), Some(3));
        // value_regex_filter "abc": tag, length, 3 bytes.
        assert_eq!(
            serialized_len(&RowFilter::ValueRegex(b"abc".to_vec()), 1).ok(),
            Some(5)
        );
        // chain { filters { strip } filters { strip } }: 1+1+(1+1+2)*2.
        let chain = RowFilter::Chain(vec![RowFilter::StripValue, RowFilter::StripValue]);
        assert_eq!(serialized_len(&chain, 1).ok(), Some(10));
        // A negative int32 takes ten bytes.
        assert_eq!(
            serialized_len(&RowFilter::CellsPerRowLimit(-1), 1).ok(),
            Some(11)
        );
    }

    #[test]
    fn ranges_normalise_bounds() {
        let r = ByteRange::new(&KeyBound::Unbounded, &KeyBound::Unbounded);
        assert!(r.contains(b"") && r.contains(b"\xff\xff"));
        let r = ByteRange::new(
            &KeyBound::Open(b"b".to_vec()),
            &KeyBound::Closed(b"d".to_vec()),
        );
        assert!(
            !r.contains(b"b") && r.contains(b"b\x00") && r.contains(b"d") && !r.contains(b"d\x00")
        );
        let r = ByteRange::new(
            &KeyBound::Closed(b"b".to_vec()),
            &KeyBound::Open(b"d".to_vec()),
        );
        assert!(r.contains(b"b") && !r.contains(b"d") && !r.contains(b"a"));
    }

    #[test]
    fn cellwise_filters_become_flat() {
        let f = RowFilter::Chain(vec![
            RowFilter::FamilyNameRegex("f".into()),
            RowFilter::Chain(vec![
                RowFilter::PassAll,
                RowFilter::ValueRegex(b"x".to_vec()),
            ]),
            RowFilter::StripValue,
        ]);
        let plan = compile(&f).ok();
        assert!(matches!(plan.map(|p| p.body), Some(Body::Flat(s)) if s.len() == 3));
        let f = RowFilter::Chain(vec![RowFilter::StripValue, RowFilter::CellsPerRowLimit(1)]);
        assert!(matches!(
            compile(&f).ok().map(|p| p.body),
            Some(Body::Tree(_))
        ));
    }
}
