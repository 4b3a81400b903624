//! EXPLAIN: what a query or a ReadRows request becomes and what it cost.
//!
//! For every SQL query and every ReadRows request the playground can say
//! - the row set (as sorted, disjoint key ranges) and the filter chain the
//!   read sends, in the proto's own names;
//! - which predicates became part of the read (row set, filter) and which
//!   were evaluated on the returned rows;
//! - the access pattern: point read, several point reads, a prefix or
//!   range scan, a multi-range scan, or a full scan;
//! - what the read cost, measured: tablets touched (of how many), rows,
//!   cells and bytes scanned versus returned.

use std::fmt::Write as _;

use serde_json::{Map, Value as Json, json};

use super::parse::{BinOp, IndexMode};
use super::plan::{Source, SourceKind, TExpr, TKind};
use super::value::Value;
use tabletop_store::ReadRowsRequest;
use tabletop_store::ReadShape;
use tabletop_store::RowFilter;
use tabletop_store::base64_text::encode as encode_base64;
use tabletop_store::escape_bytes;
use tabletop_store::human_bytes;
use tabletop_store::{KeyBound, KeyRange, prefix_successor};
use tabletop_store::{ReadStats, range_text};

/// How a read reaches its rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// Nothing is read: the predicates select no row.
    NoRead,
    /// One row key.
    PointRead {
        /// The key.
        key: Vec<u8>,
    },
    /// Several row keys, each a point read.
    MultiPoint {
        /// How many keys.
        keys: usize,
    },
    /// Every row with one key prefix.
    PrefixScan {
        /// The prefix.
        prefix: Vec<u8>,
    },
    /// One contiguous key range.
    RangeScan,
    /// Several key ranges (or keys and ranges).
    MultiRange {
        /// How many ranges.
        ranges: usize,
    },
    /// The whole table; `filtered` when a filter decides which rows or
    /// cells come back.
    FullScan {
        /// Whether a filter is applied.
        filtered: bool,
        /// Whether a rows limit stops the scan early.
        limited: bool,
    },
}

impl Access {
    /// A few words for people.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Access::NoRead => "no read (the predicates select no row)".into(),
            Access::PointRead { key } => format!("point read of \"{}\"", escape_bytes(key)),
            Access::MultiPoint { keys } => format!("{keys} point reads"),
            Access::PrefixScan { prefix } => {
                format!("prefix scan of \"{}\"", escape_bytes(prefix))
            }
            Access::RangeScan => "range scan (one key range)".into(),
            Access::MultiRange { ranges } => format!("multi-range scan ({ranges} ranges)"),
            Access::FullScan {
                filtered: true,
                limited: false,
            } => "full table scan with a filter".into(),
            Access::FullScan { limited: true, .. } => {
                "table scan from the first row, stopped by the rows limit".into()
            }
            Access::FullScan { .. } => "full table scan".into(),
        }
    }

    /// The lesson/advisor shape of the read.
    #[must_use]
    pub fn shape(&self) -> ReadShape {
        match self {
            Access::NoRead | Access::PointRead { .. } => ReadShape::Point,
            Access::PrefixScan { .. } | Access::RangeScan => ReadShape::SingleRange,
            Access::FullScan {
                limited: true,
                filtered: false,
            } => ReadShape::SingleRange,
            Access::MultiPoint { .. } | Access::MultiRange { .. } => ReadShape::MultiRange,
            Access::FullScan { .. } => ReadShape::FullScan,
        }
    }

    /// Classifies a read of these (normalised) ranges.
    #[must_use]
    pub fn of(ranges: &[KeyRange], filtered: bool, rows_limit: i64) -> Access {
        match ranges {
            [] => Access::NoRead,
            [r] if r.start.is_empty() && r.end.is_none() => Access::FullScan {
                filtered,
                limited: rows_limit > 0,
            },
            [r] if r.is_single_key() => Access::PointRead {
                key: r.start.clone(),
            },
            [r] if !r.start.is_empty() && r.end == prefix_successor(&r.start) => {
                Access::PrefixScan {
                    prefix: r.start.clone(),
                }
            }
            [_] => Access::RangeScan,
            many if many.iter().all(KeyRange::is_single_key) => {
                Access::MultiPoint { keys: many.len() }
            }
            many => Access::MultiRange { ranges: many.len() },
        }
    }
}

/// Everything EXPLAIN says about one read.
#[derive(Clone, Debug, PartialEq)]
pub struct Explain {
    /// The SQL statement, when there was one.
    pub statement: Option<String>,
    /// The table (or view) read.
    pub source: String,
    /// Table or materialized view.
    pub source_kind: super::SourceKind,
    /// How the read reaches its rows.
    pub access: Access,
    /// The ReadRows request the query became (or was).
    pub request: ReadRowsRequest,
    /// The request's row set as sorted, disjoint `[start, end)` ranges.
    pub ranges: Vec<KeyRange>,
    /// What became part of the read, in words.
    pub pushed_down: Vec<String>,
    /// What was evaluated on the returned rows, in words.
    pub after_read: Vec<String>,
    /// Remarks (why a scan is full, non-obvious consequences).
    pub notes: Vec<String>,
    /// Ids of the tablets the read visited, in visit order.
    pub tablets_touched: Vec<u64>,
    /// Tablets the source has.
    pub tablets_total: usize,
    /// What the read scanned and returned.
    pub stats: ReadStats,
    /// Rows the statement returned (after predicates evaluated after the
    /// read, ORDER BY and LIMIT).
    pub rows_output: u64,
    /// Whether a read ran (not when the predicates select no row).
    pub read_ran: bool,
    /// For a view: how far behind its source it is.
    pub view_lag: Option<crate::view_info::ViewStatus>,
}

impl Explain {
    /// The filter as indented text, in the proto's field names.
    #[must_use]
    pub fn filter_text(&self) -> String {
        match &self.request.filter {
            None => "(none: every cell of the selected rows)".into(),
            Some(f) => {
                let mut s = String::new();
                write_filter(f, 0, &mut s);
                s.trim_end().to_string()
            }
        }
    }

    /// A plain-text report, one labelled section per line.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let pad = |label: &str| format!("{label:<12}");
        let section = |out: &mut String, label: &str, lines: &[String]| {
            for (i, l) in lines.iter().enumerate() {
                let head = if i == 0 { pad(label) } else { pad("") };
                let _ = writeln!(out, "{head}{l}");
            }
        };
        if let Some(s) = &self.statement {
            section(&mut out, "statement", &[s.replace('\n', " ")]);
        }
        let kind = match self.source_kind {
            SourceKind::Table => "table",
            SourceKind::View => "materialized view",
        };
        section(
            &mut out,
            "source",
            &[format!(
                "{kind} {} ({} tablet{})",
                self.source,
                self.tablets_total,
                if self.tablets_total == 1 { "" } else { "s" }
            )],
        );
        section(
            &mut out,
            "access",
            &[format!(
                "{} [{}]",
                self.access.describe(),
                self.access.shape().name()
            )],
        );
        let ranges: Vec<String> = if self.ranges.is_empty() {
            vec!["(no range)".into()]
        } else {
            self.ranges.iter().map(range_text).collect()
        };
        section(&mut out, "row set", &ranges);
        let filter: Vec<String> = self.filter_text().lines().map(str::to_string).collect();
        section(&mut out, "filter", &filter);
        let mut limit = Vec::new();
        if self.request.rows_limit > 0 {
            limit.push(format!("rows_limit {}", self.request.rows_limit));
        }
        if self.request.reversed {
            limit.push("reversed".into());
        }
        if !limit.is_empty() {
            section(&mut out, "read", &[limit.join(", ")]);
        }
        if !self.pushed_down.is_empty() {
            section(&mut out, "pushed down", &self.pushed_down);
        }
        if self.statement.is_some() {
            let after = if self.after_read.is_empty() {
                vec!["(nothing)".to_string()]
            } else {
                self.after_read.clone()
            };
            section(&mut out, "after read", &after);
        }
        let s = &self.stats;
        let pct = |part: u64, whole: u64| {
            if whole == 0 {
                String::new()
            } else {
                format!(" ({:.0}%)", part as f64 * 100.0 / whole as f64)
            }
        };
        let mut touched = self.tablets_touched.clone();
        touched.sort_unstable();
        touched.dedup();
        let cost = if self.read_ran {
            vec![
                format!(
                    "tablets touched {} of {}{}",
                    touched.len(),
                    self.tablets_total,
                    if touched.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (ids {})",
                            touched
                                .iter()
                                .map(u64::to_string)
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                ),
                format!(
                    "rows scanned {}, returned {}{}",
                    s.rows_seen,
                    s.rows_returned,
                    pct(s.rows_returned, s.rows_seen)
                ),
                format!(
                    "cells scanned {}, returned {}{}",
                    s.cells_seen,
                    s.cells_returned,
                    pct(s.cells_returned, s.cells_seen)
                ),
                format!(
                    "bytes scanned {}, returned {}",
                    human_bytes(s.bytes_seen as f64),
                    human_bytes(s.bytes_returned as f64)
                ),
            ]
        } else {
            vec!["nothing read".to_string()]
        };
        section(&mut out, "cost", &cost);
        if self.statement.is_some() {
            section(
                &mut out,
                "result",
                &[format!(
                    "{} row{}",
                    self.rows_output,
                    if self.rows_output == 1 { "" } else { "s" }
                )],
            );
        }
        if let Some(lag) = &self.view_lag {
            section(&mut out, "view lag", &[lag.lag_text()]);
        }
        if !self.notes.is_empty() {
            section(&mut out, "notes", &self.notes);
        }
        out
    }

    /// The report as JSON: the request in proto3 JSON (`rows`, `filter`,
    /// `rowsLimit`, `reversed`), the access, and the measured cost.
    #[must_use]
    pub fn to_json(&self) -> Json {
        let mut m = Map::new();
        if let Some(s) = &self.statement {
            m.insert("statement".into(), json!(s));
        }
        m.insert("source".into(), json!(self.source));
        m.insert(
            "sourceKind".into(),
            json!(match self.source_kind {
                SourceKind::Table => "TABLE",
                SourceKind::View => "MATERIALIZED_VIEW",
            }),
        );
        m.insert("access".into(), json!(self.access.describe()));
        m.insert("shape".into(), json!(self.access.shape().name()));
        m.insert(
            "ranges".into(),
            Json::Array(
                self.ranges
                    .iter()
                    .map(|r| {
                        json!({
                            "startKeyClosed": encode_base64(&r.start),
                            "endKeyOpen": r.end.as_ref().map(|e| encode_base64(e)),
                            "text": range_text(r),
                        })
                    })
                    .collect(),
            ),
        );
        let mut req = Map::new();
        req.insert("rows".into(), row_set_json(&self.request.rows));
        if let Some(f) = &self.request.filter {
            req.insert("filter".into(), filter_json(f));
        }
        if self.request.rows_limit > 0 {
            req.insert(
                "rowsLimit".into(),
                json!(self.request.rows_limit.to_string()),
            );
        }
        if self.request.reversed {
            req.insert("reversed".into(), json!(true));
        }
        m.insert("readRowsRequest".into(), Json::Object(req));
        m.insert("filterText".into(), json!(self.filter_text()));
        m.insert("pushedDown".into(), json!(self.pushed_down));
        m.insert("afterRead".into(), json!(self.after_read));
        m.insert("notes".into(), json!(self.notes));
        let mut touched = self.tablets_touched.clone();
        touched.sort_unstable();
        touched.dedup();
        m.insert(
            "tablets".into(),
            json!({
                "touched": touched.iter().map(u64::to_string).collect::<Vec<_>>(),
                "total": self.tablets_total,
            }),
        );
        let s = &self.stats;
        m.insert(
            "stats".into(),
            json!({
                "rowsSeen": s.rows_seen.to_string(),
                "rowsReturned": s.rows_returned.to_string(),
                "cellsSeen": s.cells_seen.to_string(),
                "cellsReturned": s.cells_returned.to_string(),
                "bytesSeen": s.bytes_seen.to_string(),
                "bytesReturned": s.bytes_returned.to_string(),
            }),
        );
        m.insert("readRan".into(), json!(self.read_ran));
        if self.statement.is_some() {
            m.insert("rowsOutput".into(), json!(self.rows_output.to_string()));
        }
        if let Some(l) = &self.view_lag {
            m.insert("viewLag".into(), l.to_json());
        }
        Json::Object(m)
    }
}

fn bound_text(b: &KeyBound, open_word: &str) -> String {
    match b {
        KeyBound::Unbounded => open_word.to_string(),
        KeyBound::Closed(k) => format!("[\"{}\"", escape_bytes(k)),
        KeyBound::Open(k) => format!("(\"{}\"", escape_bytes(k)),
    }
}

fn end_text(b: &KeyBound) -> String {
    match b {
        KeyBound::Unbounded => "unbounded".into(),
        KeyBound::Closed(k) => format!("\"{}\"]", escape_bytes(k)),
        KeyBound::Open(k) => format!("\"{}\")", escape_bytes(k)),
    }
}

fn write_filter(f: &RowFilter, depth: usize, out: &mut String) {
    let ind = "  ".repeat(depth);
    let line = |out: &mut String, s: String| {
        let _ = writeln!(out, "{ind}{s}");
    };
    match f {
        RowFilter::Chain(v) => {
            line(out, "chain".into());
            for x in v {
                write_filter(x, depth + 1, out);
            }
        }
        RowFilter::Interleave(v) => {
            line(out, "interleave".into());
            for x in v {
                write_filter(x, depth + 1, out);
            }
        }
        RowFilter::Condition {
            predicate,
            true_filter,
            false_filter,
        } => {
            line(out, "condition".into());
            line(out, "  predicate_filter".into());
            write_filter(predicate, depth + 2, out);
            line(out, "  true_filter".into());
            match true_filter {
                Some(t) => write_filter(t, depth + 2, out),
                None => line(out, "    (none: the row is dropped)".into()),
            }
            if let Some(fl) = false_filter {
                line(out, "  false_filter".into());
                write_filter(fl, depth + 2, out);
            }
        }
        RowFilter::Sink => line(out, "sink".into()),
        RowFilter::PassAll => line(out, "pass_all_filter".into()),
        RowFilter::BlockAll => line(out, "block_all_filter".into()),
        RowFilter::RowKeyRegex(r) => {
            line(out, format!("row_key_regex_filter \"{}\"", escape_bytes(r)))
        }
        RowFilter::RowSample(p) => line(out, format!("row_sample_filter {p}")),
        RowFilter::FamilyNameRegex(r) => line(out, format!("family_name_regex_filter \"{r}\"")),
        RowFilter::ColumnQualifierRegex(r) => line(
            out,
            format!("column_qualifier_regex_filter \"{}\"", escape_bytes(r)),
        ),
        RowFilter::ColumnRange {
            family_name,
            start,
            end,
        } => line(
            out,
            format!(
                "column_range_filter {family_name} {}, {}",
                bound_text(start, "[\"\""),
                end_text(end)
            ),
        ),
        RowFilter::TimestampRange(r) => line(
            out,
            format!(
                "timestamp_range_filter [{}, {})",
                r.start_micros,
                if r.end_micros == 0 {
                    "unbounded".to_string()
                } else {
                    r.end_micros.to_string()
                }
            ),
        ),
        RowFilter::ValueRegex(r) => {
            line(out, format!("value_regex_filter \"{}\"", escape_bytes(r)));
        }
        RowFilter::ValueRange { start, end } => line(
            out,
            format!(
                "value_range_filter {}, {}",
                bound_text(start, "[\"\""),
                end_text(end)
            ),
        ),
        RowFilter::CellsPerRowOffset(n) => line(out, format!("cells_per_row_offset_filter {n}")),
        RowFilter::CellsPerRowLimit(n) => line(out, format!("cells_per_row_limit_filter {n}")),
        RowFilter::CellsPerColumnLimit(n) => {
            line(out, format!("cells_per_column_limit_filter {n}"));
        }
        RowFilter::StripValue => line(out, "strip_value_transformer".into()),
        RowFilter::ApplyLabel(l) => line(out, format!("apply_label_transformer \"{l}\"")),
    }
}

fn bound_json(b: &KeyBound, closed: &str, open: &str) -> Option<(String, Json)> {
    match b {
        KeyBound::Unbounded => None,
        KeyBound::Closed(k) => Some((closed.to_string(), json!(encode_base64(k)))),
        KeyBound::Open(k) => Some((open.to_string(), json!(encode_base64(k)))),
    }
}

/// A row set in proto3 JSON.
#[must_use]
pub fn row_set_json(rows: &tabletop_store::RowSet) -> Json {
    let mut m = Map::new();
    if !rows.row_keys.is_empty() {
        m.insert(
            "rowKeys".into(),
            json!(
                rows.row_keys
                    .iter()
                    .map(|k| encode_base64(k))
                    .collect::<Vec<_>>()
            ),
        );
    }
    if !rows.row_ranges.is_empty() {
        m.insert(
            "rowRanges".into(),
            Json::Array(
                rows.row_ranges
                    .iter()
                    .map(|r| {
                        let mut o = Map::new();
                        if let Some((k, v)) = bound_json(&r.start, "startKeyClosed", "startKeyOpen")
                        {
                            o.insert(k, v);
                        }
                        if let Some((k, v)) = bound_json(&r.end, "endKeyClosed", "endKeyOpen") {
                            o.insert(k, v);
                        }
                        Json::Object(o)
                    })
                    .collect(),
            ),
        );
    }
    Json::Object(m)
}

/// A RowFilter in proto3 JSON (`google.bigtable.v2.RowFilter`).
#[must_use]
pub fn filter_json(f: &RowFilter) -> Json {
    match f {
        RowFilter::Chain(v) => {
            json!({"chain": {"filters": v.iter().map(filter_json).collect::<Vec<_>>()}})
        }
        RowFilter::Interleave(v) => {
            json!({"interleave": {"filters": v.iter().map(filter_json).collect::<Vec<_>>()}})
        }
        RowFilter::Condition {
            predicate,
            true_filter,
            false_filter,
        } => {
            let mut c = Map::new();
            c.insert("predicateFilter".into(), filter_json(predicate));
            if let Some(t) = true_filter {
                c.insert("trueFilter".into(), filter_json(t));
            }
            if let Some(x) = false_filter {
                c.insert("falseFilter".into(), filter_json(x));
            }
            json!({ "condition": c })
        }
        RowFilter::Sink => json!({"sink": true}),
        RowFilter::PassAll => json!({"passAllFilter": true}),
        RowFilter::BlockAll => json!({"blockAllFilter": true}),
        RowFilter::RowKeyRegex(r) => json!({"rowKeyRegexFilter": encode_base64(r)}),
        RowFilter::RowSample(p) => json!({"rowSampleFilter": p}),
        RowFilter::FamilyNameRegex(r) => json!({"familyNameRegexFilter": r}),
        RowFilter::ColumnQualifierRegex(r) => {
            json!({"columnQualifierRegexFilter": encode_base64(r)})
        }
        RowFilter::ColumnRange {
            family_name,
            start,
            end,
        } => {
            let mut o = Map::new();
            o.insert("familyName".into(), json!(family_name));
            if let Some((k, v)) = bound_json(start, "startQualifierClosed", "startQualifierOpen") {
                o.insert(k, v);
            }
            if let Some((k, v)) = bound_json(end, "endQualifierClosed", "endQualifierOpen") {
                o.insert(k, v);
            }
            json!({ "columnRangeFilter": o })
        }
        RowFilter::TimestampRange(r) => {
            let mut o = Map::new();
            if r.start_micros != 0 {
                o.insert(
                    "startTimestampMicros".into(),
                    json!(r.start_micros.to_string()),
                );
            }
            if r.end_micros != 0 {
                o.insert("endTimestampMicros".into(), json!(r.end_micros.to_string()));
            }
            json!({ "timestampRangeFilter": o })
        }
        RowFilter::ValueRegex(r) => json!({"valueRegexFilter": encode_base64(r)}),
        RowFilter::ValueRange { start, end } => {
            let mut o = Map::new();
            if let Some((k, v)) = bound_json(start, "startValueClosed", "startValueOpen") {
                o.insert(k, v);
            }
            if let Some((k, v)) = bound_json(end, "endValueClosed", "endValueOpen") {
                o.insert(k, v);
            }
            json!({ "valueRangeFilter": o })
        }
        RowFilter::CellsPerRowOffset(n) => json!({"cellsPerRowOffsetFilter": n}),
        RowFilter::CellsPerRowLimit(n) => json!({"cellsPerRowLimitFilter": n}),
        RowFilter::CellsPerColumnLimit(n) => json!({"cellsPerColumnLimitFilter": n}),
        RowFilter::StripValue => json!({"stripValueTransformer": true}),
        RowFilter::ApplyLabel(l) => json!({"applyLabelTransformer": l}),
    }
}

fn lit_text(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        Value::Bytes(b) => format!("b'{}'", escape_bytes(b).replace('\'', "\\'")),
        Value::Timestamp(_) => format!("TIMESTAMP '{}'", v.display()),
        other => other.display(),
    }
}

/// An expression as SQL-like text, for EXPLAIN.
pub(crate) fn expr_text(e: &TExpr, src: Option<&Source>) -> String {
    expr_text_with(e, src, &[])
}

/// [`expr_text`] with the names of an UNPACKed subquery's columns.
pub(crate) fn expr_text_with(
    e: &TExpr,
    src: Option<&Source>,
    cols: &[(String, super::value::SqlType)],
) -> String {
    let t = |x: &TExpr| expr_text_with(x, src, cols);
    match &e.kind {
        TKind::Lit(v) => lit_text(v),
        TKind::Key => "_key".into(),
        TKind::KeyField(i) => src
            .and_then(|s| s.key_schema.as_ref())
            .and_then(|k| k.fields.get(*i))
            .map_or(format!("key_field_{i}"), |f| f.name.clone()),
        TKind::Family(i) => src
            .and_then(|s| s.families.get(*i))
            .map_or(format!("family_{i}"), |f| f.0.clone()),
        TKind::ViewCol(i) => src
            .and_then(|s| s.view_cols.get(*i))
            .map_or(format!("column_{i}"), |c| c.0.clone()),
        TKind::Column(i) => cols.get(*i).map_or(format!("column_{i}"), |c| c.0.clone()),
        TKind::UnpackTimestamp => "_timestamp".into(),
        TKind::Index { base, index, mode } => match mode {
            IndexMode::Plain => format!("{}[{}]", t(base), t(index)),
            IndexMode::Offset => format!("{}[OFFSET({})]", t(base), t(index)),
            IndexMode::SafeOffset => format!("{}[SAFE_OFFSET({})]", t(base), t(index)),
            IndexMode::Ordinal => format!("{}[ORDINAL({})]", t(base), t(index)),
            IndexMode::SafeOrdinal => format!("{}[SAFE_ORDINAL({})]", t(base), t(index)),
        },
        TKind::Field { base, index } => {
            let name = match &base.ty {
                super::value::SqlType::Struct(f) => {
                    f.get(*index).map_or("?".into(), |x| x.0.clone())
                }
                _ => "?".into(),
            };
            format!("{}.{name}", t(base))
        }
        TKind::Neg(x) => format!("-{}", t(x)),
        TKind::Not(x) => format!("NOT {}", t(x)),
        TKind::And(a, b) => format!("({} AND {})", t(a), t(b)),
        TKind::Or(a, b) => format!("({} OR {})", t(a), t(b)),
        TKind::Cmp(op, a, b) | TKind::Arith(op, a, b) => {
            let sym = if *op == BinOp::Ne { "!=" } else { op.symbol() };
            format!("{} {sym} {}", t(a), t(b))
        }
        TKind::IsNull(x, n) => format!("{} IS {}NULL", t(x), if *n { "NOT " } else { "" }),
        TKind::IsBool(x, v, n) => format!(
            "{} IS {}{}",
            t(x),
            if *n { "NOT " } else { "" },
            if *v { "TRUE" } else { "FALSE" }
        ),
        TKind::In(x, l, n) => format!(
            "{} {}IN ({})",
            t(x),
            if *n { "NOT " } else { "" },
            l.iter().map(t).collect::<Vec<_>>().join(", ")
        ),
        TKind::Between(x, lo, hi, n) => format!(
            "{} {}BETWEEN {} AND {}",
            t(x),
            if *n { "NOT " } else { "" },
            t(lo),
            t(hi)
        ),
        TKind::Like(x, re, n) => format!(
            "{} {}LIKE /{}/",
            t(x),
            if *n { "NOT " } else { "" },
            re.as_str()
        ),
        TKind::Call(f, args) => format!(
            "{}({})",
            f.name(),
            args.iter().map(t).collect::<Vec<_>>().join(", ")
        ),
        TKind::Cast(x, ty, safe) => {
            format!("{}CAST({} AS {ty})", if *safe { "SAFE_" } else { "" }, t(x))
        }
        TKind::Case(..) => "CASE ... END".into(),
        TKind::Agg(k, arg) => format!(
            "{}({})",
            k.name(),
            arg.as_ref().map_or("*".to_string(), |a| t(a))
        ),
    }
}
