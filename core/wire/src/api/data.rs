//! The data methods of `google.bigtable.v2.Bigtable` (readRows,
//! sampleRowKeys, mutateRow, mutateRows, checkAndMutateRow,
//! readModifyWriteRow) and the messages of `data.proto` they carry:
//! `RowSet`, `RowRange`, `RowFilter`, `Mutation`, `Value`,
//! `ReadModifyWriteRule` and, on the way out, `Row`.

use std::borrow::Cow;

use serde_json::Value;

use super::names::{TableName, table_name, view_name};
use super::proto_json::{At, Fields, MAX_DEPTH, Out, error_object};
use tabletop_sql::Instance;
use tabletop_store::RowFilter;
use tabletop_store::{AggregateInput, Mutation, TimestampRange};
use tabletop_store::{CellView, OwnedRow, ReadStats, RowSink, RowView};
use tabletop_store::{
    CheckAndMutateRowRequest, ReadModifyWriteOp, ReadModifyWriteRowRequest, ReadModifyWriteRule,
};
use tabletop_store::{Code, Error, Fidelity, Result, Traces};
use tabletop_store::{KeyBound, RowRange, RowSet};
use tabletop_store::{MutateRowsEntry, ReadRowsRequest};

// ------------------------------------------------------------ row sets

/// Reads one end of a range: a oneof of a closed and an open key.
fn bound(
    f: &mut Fields<'_>,
    group: &str,
    closed: &'static str,
    open: &'static str,
) -> Result<KeyBound> {
    Ok(match f.oneof(group, &[closed, open])? {
        None => KeyBound::Unbounded,
        Some((name, v)) if name == closed => KeyBound::Closed(v.bytes()?),
        Some((_, v)) => KeyBound::Open(v.bytes()?),
    })
}

/// Reads a `RowRange`.
pub(crate) fn row_range_from_json(at: &At<'_>) -> Result<RowRange> {
    let mut f = at.object("RowRange")?;
    let start = bound(&mut f, "start_key", "startKeyClosed", "startKeyOpen")?;
    let end = bound(&mut f, "end_key", "endKeyClosed", "endKeyOpen")?;
    f.finish()?;
    Ok(RowRange { start, end })
}

/// Reads a `RowSet`.
pub(crate) fn row_set_from_json(at: &At<'_>) -> Result<RowSet> {
    let mut f = at.object("RowSet")?;
    let mut set = RowSet::default();
    if let Some(keys) = f.get("rowKeys")? {
        for k in keys.array()? {
            let key = k.bytes()?;
            if key.is_empty() {
                return Err(k.invalid("a row key must not be empty"));
            }
            set.row_keys.push(key);
        }
    }
    if let Some(ranges) = f.get("rowRanges")? {
        for r in ranges.array()? {
            set.row_ranges.push(row_range_from_json(&r)?);
        }
    }
    f.finish()?;
    Ok(set)
}

// ------------------------------------------------------------- filters

/// The members of the `RowFilter.filter` oneof.
const FILTER_KINDS: &[&str] = &[
    "chain",
    "interleave",
    "condition",
    "sink",
    "passAllFilter",
    "blockAllFilter",
    "rowKeyRegexFilter",
    "rowSampleFilter",
    "familyNameRegexFilter",
    "columnQualifierRegexFilter",
    "columnRangeFilter",
    "timestampRangeFilter",
    "valueRegexFilter",
    "valueRangeFilter",
    "cellsPerRowOffsetFilter",
    "cellsPerRowLimitFilter",
    "cellsPerColumnLimitFilter",
    "stripValueTransformer",
    "applyLabelTransformer",
];

/// Reads a `TimestampRange`.
fn timestamp_range(at: &At<'_>) -> Result<TimestampRange> {
    let mut f = at.object("TimestampRange")?;
    let mut r = TimestampRange::default();
    if let Some(s) = f.get("startTimestampMicros")? {
        r.start_micros = s.int64()?;
    }
    if let Some(e) = f.get("endTimestampMicros")? {
        r.end_micros = e.int64()?;
    }
    f.finish()?;
    Ok(r)
}

fn filter_list(at: &At<'_>, type_name: &'static str, depth: usize) -> Result<Vec<RowFilter>> {
    let mut f = at.object(type_name)?;
    let mut out = Vec::new();
    if let Some(list) = f.get("filters")? {
        for item in list.array()? {
            out.push(row_filter_from_json(&item, depth + 1)?);
        }
    }
    f.finish()?;
    Ok(out)
}

/// Reads a `RowFilter`. A filter with no member set passes every cell, as
/// data.proto says.
pub(crate) fn row_filter_from_json(at: &At<'_>, depth: usize) -> Result<RowFilter> {
    if depth > MAX_DEPTH {
        return Err(at.invalid(format!("filters nest more than {MAX_DEPTH} levels deep")));
    }
    let mut f = at.object("RowFilter")?;
    let filter = match f.oneof("filter", FILTER_KINDS)? {
        None => RowFilter::PassAll,
        Some((kind, v)) => match kind {
            "chain" => RowFilter::Chain(filter_list(&v, "RowFilter.Chain", depth)?),
            "interleave" => RowFilter::Interleave(filter_list(&v, "RowFilter.Interleave", depth)?),
            "condition" => {
                let mut c = v.object("RowFilter.Condition")?;
                let sub = |x: Option<At<'_>>| -> Result<Option<Box<RowFilter>>> {
                    x.map(|x| row_filter_from_json(&x, depth + 1).map(Box::new))
                        .transpose()
                };
                // An unset predicate is the empty RowFilter, which passes all.
                let predicate =
                    sub(c.get("predicateFilter")?)?.unwrap_or(Box::new(RowFilter::PassAll));
                let true_filter = sub(c.get("trueFilter")?)?;
                let false_filter = sub(c.get("falseFilter")?)?;
                c.finish()?;
                RowFilter::Condition {
                    predicate,
                    true_filter,
                    false_filter,
                }
            }
            "sink" => {
                v.true_flag()?;
                RowFilter::Sink
            }
            "passAllFilter" => {
                v.true_flag()?;
                RowFilter::PassAll
            }
            "blockAllFilter" => {
                v.true_flag()?;
                RowFilter::BlockAll
            }
            "stripValueTransformer" => {
                v.true_flag()?;
                RowFilter::StripValue
            }
            "rowKeyRegexFilter" => RowFilter::RowKeyRegex(v.bytes()?),
            "rowSampleFilter" => RowFilter::RowSample(v.double()?),
            "familyNameRegexFilter" => RowFilter::FamilyNameRegex(v.string()?.to_string()),
            "columnQualifierRegexFilter" => RowFilter::ColumnQualifierRegex(v.bytes()?),
            "valueRegexFilter" => RowFilter::ValueRegex(v.bytes()?),
            "columnRangeFilter" => {
                let mut c = v.object("ColumnRange")?;
                let family_name = match c.get("familyName")? {
                    Some(n) => n.string()?.to_string(),
                    None => String::new(),
                };
                let start = bound(
                    &mut c,
                    "start_qualifier",
                    "startQualifierClosed",
                    "startQualifierOpen",
                )?;
                let end = bound(
                    &mut c,
                    "end_qualifier",
                    "endQualifierClosed",
                    "endQualifierOpen",
                )?;
                c.finish()?;
                RowFilter::ColumnRange {
                    family_name,
                    start,
                    end,
                }
            }
            "valueRangeFilter" => {
                let mut c = v.object("ValueRange")?;
                let start = bound(&mut c, "start_value", "startValueClosed", "startValueOpen")?;
                let end = bound(&mut c, "end_value", "endValueClosed", "endValueOpen")?;
                c.finish()?;
                RowFilter::ValueRange { start, end }
            }
            "timestampRangeFilter" => RowFilter::TimestampRange(timestamp_range(&v)?),
            "cellsPerRowOffsetFilter" => RowFilter::CellsPerRowOffset(v.int32()?),
            "cellsPerRowLimitFilter" => RowFilter::CellsPerRowLimit(v.int32()?),
            "cellsPerColumnLimitFilter" => RowFilter::CellsPerColumnLimit(v.int32()?),
            _ => RowFilter::ApplyLabel(v.string()?.to_string()),
        },
    };
    f.finish()?;
    Ok(filter)
}

// ----------------------------------------------------------- mutations

/// The members of the `google.bigtable.v2.Value.kind` oneof.
const VALUE_KINDS: &[&str] = &[
    "rawValue",
    "rawTimestampMicros",
    "bytesValue",
    "stringValue",
    "intValue",
    "boolValue",
    "floatValue",
    "timestampValue",
    "dateValue",
    "arrayValue",
    "structValue",
    "mapValue",
];

/// What an AddToCell or MergeToCell `Value` field holds.
enum ValueKind {
    Bytes(Vec<u8>),
    Int(i64),
    String(String),
    None,
}

/// Reads a `google.bigtable.v2.Value`; `role` says which field it fills,
/// for messages.
fn value(at: &At<'_>, role: &str) -> Result<(&'static str, ValueKind)> {
    let mut f = at.object("Value")?;
    f.unsupported("type", "typed values are not supported; leave type out")?;
    let out = match f.oneof("kind", VALUE_KINDS)? {
        None => ("", ValueKind::None),
        Some((kind @ ("rawValue" | "bytesValue"), v)) => (kind, ValueKind::Bytes(v.bytes()?)),
        Some((kind @ ("rawTimestampMicros" | "intValue"), v)) => (kind, ValueKind::Int(v.int64()?)),
        Some(("stringValue", v)) => ("stringValue", ValueKind::String(v.string()?.to_string())),
        Some((kind, v)) => {
            return Err(v.unimplemented(format!("{kind} is not supported as the {role}")));
        }
    };
    f.finish()?;
    Ok(out)
}

/// Reads the pieces shared by AddToCell and MergeToCell.
fn aggregate_mutation(
    at: &At<'_>,
    type_name: &'static str,
    merge: bool,
) -> Result<Mutation<'static>> {
    let mut f = at.object(type_name)?;
    let family_name = required_family(&mut f)?;
    let q = f.require("columnQualifier")?;
    let column_qualifier = match value(&q, "column qualifier")? {
        (_, ValueKind::Bytes(b)) => b,
        (_, ValueKind::String(s)) => s.into_bytes(),
        _ => return Err(q.invalid("the column qualifier must be a rawValue (base64 bytes)")),
    };
    let ts = f.require("timestamp")?;
    let timestamp_micros = match value(&ts, "timestamp")? {
        (_, ValueKind::Int(t)) => t,
        _ => {
            return Err(ts.invalid(
                "the timestamp must be a rawTimestampMicros (\"-1\" for the server's time)",
            ));
        }
    };
    let inp = f.require("input")?;
    let input = match (value(&inp, "input")?, merge) {
        ((_, ValueKind::Int(i)), false) => AggregateInput::Int(i),
        (("rawValue", ValueKind::Bytes(b)), false) | ((_, ValueKind::Bytes(b)), true) => {
            AggregateInput::Raw(Cow::Owned(b))
        }
        (_, false) => return Err(inp.invalid("an AddToCell input must use intValue")),
        (_, true) => return Err(inp.invalid("a MergeToCell input must use bytesValue")),
    };
    f.finish()?;
    let family_name = Cow::Owned(family_name);
    let column_qualifier = Cow::Owned(column_qualifier);
    Ok(if merge {
        Mutation::MergeToCell {
            family_name,
            column_qualifier,
            timestamp_micros,
            input,
        }
    } else {
        Mutation::AddToCell {
            family_name,
            column_qualifier,
            timestamp_micros,
            input,
        }
    })
}

fn required_family(f: &mut Fields<'_>) -> Result<String> {
    Ok(f.require("familyName")?.string()?.to_string())
}

fn optional_bytes(f: &mut Fields<'_>, name: &'static str) -> Result<Vec<u8>> {
    match f.get(name)? {
        Some(v) => v.bytes(),
        None => Ok(Vec::new()),
    }
}

/// Reads a `Mutation`.
pub(crate) fn mutation_from_json(at: &At<'_>) -> Result<Mutation<'static>> {
    let mut f = at.object("Mutation")?;
    let kinds = [
        "setCell",
        "addToCell",
        "mergeToCell",
        "deleteFromColumn",
        "deleteFromFamily",
        "deleteFromRow",
    ];
    let m = match f.oneof("mutation", &kinds)? {
        None => {
            return Err(at.invalid(format!("a mutation must set one of {}", kinds.join(", "))));
        }
        Some(("setCell", v)) => {
            let mut s = v.object("Mutation.SetCell")?;
            let family_name = required_family(&mut s)?;
            let column_qualifier = optional_bytes(&mut s, "columnQualifier")?;
            let timestamp_micros = match s.get("timestampMicros")? {
                Some(t) => t.int64()?,
                None => 0,
            };
            let value = optional_bytes(&mut s, "value")?;
            s.finish()?;
            Mutation::SetCell {
                family_name: Cow::Owned(family_name),
                column_qualifier: Cow::Owned(column_qualifier),
                timestamp_micros,
                value: Cow::Owned(value),
            }
        }
        Some(("addToCell", v)) => aggregate_mutation(&v, "Mutation.AddToCell", false)?,
        Some(("mergeToCell", v)) => aggregate_mutation(&v, "Mutation.MergeToCell", true)?,
        Some(("deleteFromColumn", v)) => {
            let mut d = v.object("Mutation.DeleteFromColumn")?;
            let family_name = required_family(&mut d)?;
            let column_qualifier = optional_bytes(&mut d, "columnQualifier")?;
            let time_range = match d.get("timeRange")? {
                Some(r) => Some(timestamp_range(&r)?),
                None => None,
            };
            d.finish()?;
            Mutation::DeleteFromColumn {
                family_name: Cow::Owned(family_name),
                column_qualifier: Cow::Owned(column_qualifier),
                time_range,
            }
        }
        Some(("deleteFromFamily", v)) => {
            let mut d = v.object("Mutation.DeleteFromFamily")?;
            let family_name = required_family(&mut d)?;
            d.finish()?;
            Mutation::DeleteFromFamily {
                family_name: Cow::Owned(family_name),
            }
        }
        Some((_, v)) => {
            v.object("Mutation.DeleteFromRow")?.finish()?;
            Mutation::DeleteFromRow
        }
    };
    f.finish()?;
    Ok(m)
}

/// Reads a repeated `Mutation` field.
fn mutations(at: Option<At<'_>>) -> Result<Vec<Mutation<'static>>> {
    match at {
        Some(list) => list.array()?.iter().map(mutation_from_json).collect(),
        None => Ok(Vec::new()),
    }
}

/// Reads a `ReadModifyWriteRule`.
pub(crate) fn rule_from_json(at: &At<'_>, fidelity: Fidelity) -> Result<ReadModifyWriteRule> {
    let mut f = at.object("ReadModifyWriteRule")?;
    let family_name = required_family(&mut f)?;
    let column_qualifier = optional_bytes(&mut f, "columnQualifier")?;
    let op = match f.oneof("rule", &["appendValue", "incrementAmount"])? {
        Some(("appendValue", v)) => ReadModifyWriteOp::AppendValue(v.bytes()?),
        Some((_, v)) => ReadModifyWriteOp::IncrementAmount(v.int64()?),
        // The emulator's words, from its type switch over the rule.
        None if fidelity.is_emulator() => {
            return Err(Error::new(
                Code::Unknown,
                "unknown RMW rule oneof <nil>".to_string(),
            ));
        }
        None => return Err(at.invalid("a rule must set appendValue or incrementAmount")),
    };
    f.finish()?;
    Ok(ReadModifyWriteRule {
        family_name,
        column_qualifier,
        rule: op,
    })
}

// ---------------------------------------------------------------- rows

type OpenFamily<'c> = Option<(&'c str, Vec<Value>)>;
type OpenColumn<'c> = Option<(&'c [u8], Vec<Value>)>;

/// Ends the column being built, adding it to its family.
fn close_column<'c>(fam: &mut OpenFamily<'c>, col: &mut OpenColumn<'c>) {
    if let (Some((_, cols)), Some((q, cells))) = (fam.as_mut(), col.take()) {
        cols.push(
            Out::new()
                .bytes("qualifier", q)
                .list("cells", cells)
                .build(),
        );
    }
}

/// Ends the family being built (and its last column).
fn close_family<'c>(families: &mut Vec<Value>, fam: &mut OpenFamily<'c>, col: &mut OpenColumn<'c>) {
    close_column(fam, col);
    if let Some((name, cols)) = fam.take() {
        families.push(
            Out::new()
                .string("name", name)
                .list("columns", cols)
                .build(),
        );
    }
}

/// Groups a row's cells into families and columns, in the order the cells
/// come (runs of the same family, then of the same qualifier).
fn row_json<'c>(key: &[u8], cells: impl Iterator<Item = CellParts<'c>>) -> Value {
    let mut families: Vec<Value> = Vec::new();
    let mut fam: OpenFamily<'c> = None;
    let mut col: OpenColumn<'c> = None;
    for c in cells {
        let same_family = fam.as_ref().is_some_and(|(n, _)| *n == c.family);
        if !same_family {
            close_family(&mut families, &mut fam, &mut col);
            fam = Some((c.family, Vec::new()));
        }
        let same_column = same_family && col.as_ref().is_some_and(|(q, _)| *q == c.qualifier);
        if !same_column {
            close_column(&mut fam, &mut col);
            col = Some((c.qualifier, Vec::new()));
        }
        let labels: Vec<Value> = c
            .labels
            .iter()
            .map(|l| Value::String((*l).to_string()))
            .collect();
        let cell = Out::new()
            .int64("timestampMicros", c.timestamp_micros)
            .bytes("value", c.value)
            .list("labels", labels)
            .build();
        if let Some((_, cells)) = col.as_mut() {
            cells.push(cell);
        }
    }
    close_family(&mut families, &mut fam, &mut col);
    Out::new()
        .bytes("key", key)
        .list("families", families)
        .build()
}

/// The parts of a cell that `Row` shows.
struct CellParts<'c> {
    family: &'c str,
    qualifier: &'c [u8],
    timestamp_micros: i64,
    value: &'c [u8],
    labels: Vec<&'c str>,
}

/// Writes a borrowed row as a `google.bigtable.v2.Row`.
pub(crate) fn row_view_to_json(row: &RowView<'_>) -> Value {
    row_json(
        row.key,
        row.cells.iter().map(|c: &CellView<'_>| CellParts {
            family: c.family,
            qualifier: c.qualifier,
            timestamp_micros: c.timestamp_micros,
            value: c.value,
            labels: c.label.into_iter().collect(),
        }),
    )
}

/// Writes an owned row as a `google.bigtable.v2.Row`.
pub(crate) fn row_to_json(row: &OwnedRow) -> Value {
    row_json(
        &row.key,
        row.cells.iter().map(|c| CellParts {
            family: &c.family,
            qualifier: &c.qualifier,
            timestamp_micros: c.timestamp_micros,
            value: &c.value,
            labels: c.labels.iter().map(String::as_str).collect(),
        }),
    )
}

/// A sink that writes each row straight to JSON.
#[derive(Default)]
struct JsonRows {
    rows: Vec<Value>,
}

impl RowSink for JsonRows {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        self.rows.push(row_view_to_json(&row));
        true
    }
}

// -------------------------------------------------------------- methods

/// What a data request addresses: a table, or an authorized view of one.
#[derive(Clone)]
pub(crate) struct Target {
    /// The table (of the view, when there is one).
    pub(crate) table: TableName,
    /// The authorized view id, for requests sent to a view.
    pub(crate) view: Option<String>,
}

impl Target {
    fn table_id(&self) -> &str {
        &self.table.table_id
    }

    /// The target as `db` serves it: with
    /// [`Fidelity::Emulator`](tabletop_store::Fidelity::Emulator), which
    /// knows no authorized views, a view's request reads the request's
    /// table name, which is empty (`NOT_FOUND`).
    fn served_by(self, db: &Instance) -> Target {
        if self.view.is_none() || !db.fidelity().is_emulator() {
            return self;
        }
        Target {
            table: TableName {
                parent: self.table.parent,
                table_id: String::new(),
            },
            view: None,
        }
    }
}

/// Reads the fields naming the table or authorized view of a data request.
fn data_table(f: &mut Fields<'_>) -> Result<Target> {
    // The playground has a single app profile; any id routes to it.
    if let Some(p) = f.get("appProfileId")? {
        p.string()?;
    }
    let table = f.get("tableName")?;
    let view = f.get("authorizedViewName")?;
    match (table, view) {
        (Some(_), Some(v)) => {
            Err(v.invalid("set either tableName or authorizedViewName, not both"))
        }
        (None, Some(v)) => {
            let name = view_name(&v)?;
            Ok(Target {
                table: name.table,
                view: Some(name.view_id),
            })
        }
        (Some(t), None) => Ok(Target {
            table: table_name(&t)?,
            view: None,
        }),
        (None, None) => Ok(Target {
            table: table_name(&f.require("tableName")?)?,
            view: None,
        }),
    }
}

/// Reads through the target: the table, or only the view's subset.
pub(crate) fn read_target<S: RowSink + ?Sized>(
    db: &mut Instance,
    target: &Target,
    r: &ReadRowsRequest,
    sink: &mut S,
    traces: &mut Traces,
) -> Result<ReadStats> {
    let target = &target.clone().served_by(db);
    match &target.view {
        None => traces.record(|t| db.read_rows_traced(target.table_id(), r, sink, t)),
        Some(v) => traces.record(|t| db.read_rows_in_view_traced(target.table_id(), v, r, sink, t)),
    }
}

/// `ReadRowsRequest.RequestStatsView`.
const STATS_VIEWS: &[(&str, i32)] = &[
    ("REQUEST_STATS_VIEW_UNSPECIFIED", 0),
    ("REQUEST_STATS_NONE", 1),
    ("REQUEST_STATS_FULL", 2),
];

pub(crate) fn request_stats(stats: &ReadStats) -> Value {
    let iteration = Out::new()
        .uint64("rowsSeenCount", stats.rows_seen)
        .uint64("rowsReturnedCount", stats.rows_returned)
        .uint64("cellsSeenCount", stats.cells_seen)
        .uint64("cellsReturnedCount", stats.cells_returned)
        .build();
    let full = Out::new().set("readIterationStats", iteration).build();
    Out::new().set("fullReadStatsView", full).build()
}

/// Reads the fields of a ReadRowsRequest that say what to read: `rows`,
/// `filter`, `rowsLimit`, `reversed` (also for the playground's
/// `explain`, which takes the same body).
pub(crate) fn read_rows_fields(f: &mut Fields<'_>, fidelity: Fidelity) -> Result<ReadRowsRequest> {
    let mut r = ReadRowsRequest::default();
    if let Some(rows) = f.get("rows")? {
        r.rows = row_set_from_json(&rows)?;
    }
    if let Some(filter) = f.get("filter")? {
        r.filter = Some(row_filter_from_json(&filter, 0)?);
    }
    if let Some(limit) = f.get("rowsLimit")? {
        r.rows_limit = limit.int64()?;
        // The emulator reads a negative limit as no rows (its instance
        // decides, see `Fidelity`); production refuses it.
        if r.rows_limit < 0 && !fidelity.is_emulator() {
            return Err(limit.invalid(format!(
                "rows limit must not be negative, got {}",
                r.rows_limit
            )));
        }
    }
    if let Some(rev) = f.get("reversed")? {
        r.reversed = rev.bool()?;
    }
    Ok(r)
}

/// Decodes a ReadRowsRequest: the table, the request, and whether full
/// request statistics were asked for.
pub(crate) fn read_rows_request(
    req: &At<'_>,
    fidelity: Fidelity,
) -> Result<(Target, ReadRowsRequest, bool)> {
    let mut f = req.object("ReadRowsRequest")?;
    f.unsupported(
        "materializedViewName",
        "materialized views are not supported; use tableName",
    )?;
    let table = data_table(&mut f)?;
    let r = read_rows_fields(&mut f, fidelity)?;
    let full_stats = match f.get("requestStatsView")? {
        Some(v) => v.enumeration("RequestStatsView", STATS_VIEWS)? == "REQUEST_STATS_FULL",
        None => false,
    };
    f.finish()?;
    Ok((table, r, full_stats))
}

/// readRows: answers `{"rows": [Row...]}`, the merged rows of the stream.
pub(crate) fn read_rows(db: &mut Instance, req: &At<'_>, traces: &mut Traces) -> Result<Value> {
    let (table, r, full_stats) = read_rows_request(req, db.fidelity())?;
    let mut sink = JsonRows::default();
    let stats = read_target(db, &table, &r, &mut sink, traces)?;
    let mut out = Out::new().set("rows", Value::Array(sink.rows));
    if full_stats {
        out = out.set("requestStats", request_stats(&stats));
    }
    Ok(out.build())
}

/// readRows answered as the finished answer line, exactly the text
/// `answer_line` would make of [`read_rows`]'s value, but with every row
/// written out as it streams from the engine: a big answer never exists
/// as a JSON tree.
/// Rows whose JSON text passes `cap` bytes stop the read with
/// `RESOURCE_EXHAUSTED`.
pub(crate) fn read_rows_line(
    db: &mut Instance,
    req: &At<'_>,
    traces: &mut Traces,
    cap: usize,
) -> Result<String> {
    let (table, r, full_stats) = read_rows_request(req, db.fidelity())?;
    let mut sink = JsonText {
        cap,
        ..JsonText::default()
    };
    let stats = read_target(db, &table, &r, &mut sink, traces)?;
    if sink.text.len() > cap {
        return Err(Error::new(
            Code::ResourceExhausted,
            format!(
                "the readRows answer would be larger than {cap} bytes, the most one answer \
                 holds here; read fewer rows at a time (rowsLimit, a row range or a filter)"
            ),
        ));
    }
    let mut line = String::with_capacity(sink.text.len() + 64);
    line.push_str("{\"response\":{");
    if full_stats {
        line.push_str("\"requestStats\":");
        line.push_str(&request_stats(&stats).to_string());
        line.push(',');
    }
    line.push_str("\"rows\":[");
    line.push_str(&sink.text);
    line.push_str("]}}");
    Ok(line)
}

/// A sink that writes each row as JSON text, comma-separated.
#[derive(Default)]
struct JsonText {
    text: String,
    rows: u64,
    /// The read stops once `text` is longer.
    cap: usize,
}

impl RowSink for JsonText {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        if self.rows > 0 {
            self.text.push(',');
        }
        self.rows += 1;
        self.text.push_str(&row_view_to_json(&row).to_string());
        self.text.len() <= self.cap
    }
}

/// sampleRowKeys: answers `{"samples": [...]}`, the messages of the
/// stream in one list.
pub(crate) fn sample_row_keys(
    db: &mut Instance,
    req: &At<'_>,
    traces: &mut Traces,
) -> Result<Value> {
    let mut f = req.object("SampleRowKeysRequest")?;
    f.unsupported(
        "materializedViewName",
        "materialized views are not supported; use tableName",
    )?;
    let table = data_table(&mut f)?.served_by(db);
    f.finish()?;
    let samples = match &table.view {
        None => traces.record(|t| db.sample_row_keys_traced(table.table_id(), t))?,
        Some(v) => traces.record(|t| db.sample_row_keys_in_view_traced(table.table_id(), v, t))?,
    };
    let samples = samples
        .into_iter()
        .map(|(key, offset)| {
            Out::new()
                .bytes("rowKey", &key)
                .uint64("offsetBytes", offset)
                .build()
        })
        .collect();
    Ok(Out::new().set("samples", Value::Array(samples)).build())
}

/// Reads `rowKey`: not empty, and at most 4 KiB unless the instance
/// answers as the emulator (which takes longer keys).
fn row_key(f: &mut Fields<'_>, fidelity: Fidelity) -> Result<Vec<u8>> {
    let at = f.require("rowKey")?;
    let key = at.bytes()?;
    if !fidelity.is_emulator() || key.is_empty() {
        tabletop_store::validate_row_key(&key).map_err(|e| at.context(e))?;
    }
    Ok(key)
}

/// mutateRow.
pub(crate) fn mutate_row(db: &mut Instance, req: &At<'_>, traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("MutateRowRequest")?;
    let table = data_table(&mut f)?.served_by(db);
    let key = row_key(&mut f, db.fidelity())?;
    let muts = mutations(f.get("mutations")?)?;
    f.unsupported("idempotency", "idempotency tokens are not supported")?;
    f.finish()?;
    match &table.view {
        None => traces.record(|t| db.mutate_row_traced(table.table_id(), &key, &muts, t))?,
        Some(v) => {
            traces.record(|t| db.mutate_row_in_view_traced(table.table_id(), v, &key, &muts, t))?
        }
    }
    Ok(Out::new().build())
}

/// mutateRows: answers `{"entries": [{"index", "status"}...]}`, one entry
/// per request entry, in order (the stream's messages in one list).
pub(crate) fn mutate_rows(db: &mut Instance, req: &At<'_>, traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("MutateRowsRequest")?;
    let table = data_table(&mut f)?.served_by(db);
    let mut entries = Vec::new();
    if let Some(list) = f.get("entries")? {
        for item in list.array()? {
            let mut e = item.object("MutateRowsRequest.Entry")?;
            let key = row_key(&mut e, db.fidelity())?;
            let muts = mutations(e.get("mutations")?)?;
            if muts.is_empty() && !db.fidelity().is_emulator() {
                // The whole request is refused, as production does (the
                // emulator accepts the entry; the instance decides).
                return Err(item.invalid("an entry needs at least one mutation"));
            }
            e.unsupported("idempotency", "idempotency tokens are not supported")?;
            e.finish()?;
            entries.push(MutateRowsEntry {
                row_key: Cow::Owned(key),
                mutations: muts,
            });
        }
    }
    f.finish()?;
    let results = match &table.view {
        None => traces.record(|t| db.mutate_rows_traced(table.table_id(), &entries, t))?,
        Some(v) => {
            traces.record(|t| db.mutate_rows_in_view_traced(table.table_id(), v, &entries, t))?
        }
    };
    Ok(mutate_rows_answer(&results))
}

/// The answer to mutateRows: one status per entry, in order.
pub(crate) fn mutate_rows_answer(results: &[Result<()>]) -> Value {
    let list = results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let status = match r {
                Ok(()) => Out::new().set("code", Value::from(0)).build(),
                Err(e) => {
                    // google.rpc.Status: the code number and message; the
                    // name is not part of it.
                    let obj = error_object(e);
                    Out::new()
                        .set("code", obj.get("code").cloned().unwrap_or(Value::Null))
                        .set(
                            "message",
                            obj.get("message").cloned().unwrap_or(Value::Null),
                        )
                        .build()
                }
            };
            Out::new()
                .set("index", Value::from(i))
                .set("status", status)
                .build()
        })
        .collect();
    Out::new().list("entries", list).build()
}

/// checkAndMutateRow: answers `{"predicateMatched": true}` or `{}`.
pub(crate) fn check_and_mutate_row(
    db: &mut Instance,
    req: &At<'_>,
    traces: &mut Traces,
) -> Result<Value> {
    let mut f = req.object("CheckAndMutateRowRequest")?;
    let table = data_table(&mut f)?.served_by(db);
    let row_key = row_key(&mut f, db.fidelity())?;
    let predicate_filter = match f.get("predicateFilter")? {
        Some(p) => Some(row_filter_from_json(&p, 0)?),
        None => None,
    };
    let true_mutations = mutations(f.get("trueMutations")?)?;
    let false_mutations = mutations(f.get("falseMutations")?)?;
    f.finish()?;
    let request = CheckAndMutateRowRequest {
        row_key,
        predicate_filter,
        true_mutations,
        false_mutations,
    };
    let answer = match &table.view {
        None => traces.record(|t| db.check_and_mutate_row_traced(table.table_id(), &request, t))?,
        Some(v) => traces
            .record(|t| db.check_and_mutate_row_in_view_traced(table.table_id(), v, &request, t))?,
    };
    Ok(Out::new()
        .bool("predicateMatched", answer.predicate_matched)
        .build())
}

/// readModifyWriteRow: answers `{"row": Row}` with the new cells.
pub(crate) fn read_modify_write_row(
    db: &mut Instance,
    req: &At<'_>,
    traces: &mut Traces,
) -> Result<Value> {
    let mut f = req.object("ReadModifyWriteRowRequest")?;
    let table = data_table(&mut f)?.served_by(db);
    let fidelity = db.fidelity();
    let row_key = row_key(&mut f, fidelity)?;
    let rules = match f.get("rules")? {
        Some(list) => list
            .array()?
            .iter()
            .map(|rule| rule_from_json(rule, fidelity))
            .collect::<Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    f.finish()?;
    let request = ReadModifyWriteRowRequest { row_key, rules };
    let answer = match &table.view {
        None => {
            traces.record(|t| db.read_modify_write_row_traced(table.table_id(), &request, t))?
        }
        Some(v) => traces.record(|t| {
            db.read_modify_write_row_in_view_traced(table.table_id(), v, &request, t)
        })?,
    };
    Ok(Out::new().set("row", row_to_json(&answer.row)).build())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use tabletop_store::Code;
    use tabletop_store::OwnedCell;

    fn filter(v: Value) -> Result<RowFilter> {
        row_filter_from_json(&At::new("request.filter", &v), 0)
    }

    #[test]
    fn row_sets_read_keys_and_ranges() {
        let v = json!({"rowKeys": ["YQ==", "Yg"], "rowRanges": [
            {"startKeyClosed": "YQ==", "endKeyOpen": "Yw=="},
            {"start_key_open": "eA==", "end_key_closed": "eg=="},
            {}
        ]});
        let set = row_set_from_json(&At::new("request.rows", &v)).unwrap();
        assert_eq!(set.row_keys, vec![b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(set.row_ranges[0], RowRange::closed_open("a", "c"));
        assert_eq!(set.row_ranges[1].start, KeyBound::Open(b"x".to_vec()));
        assert_eq!(set.row_ranges[1].end, KeyBound::Closed(b"z".to_vec()));
        assert_eq!(set.row_ranges[2], RowRange::default());
    }

    #[test]
    fn row_set_errors_name_the_field() {
        let v = json!({"rowRanges": [{"startKeyClosed": "!"}]});
        let e = row_set_from_json(&At::new("request.rows", &v)).unwrap_err();
        assert!(
            e.message()
                .starts_with("request.rows.rowRanges[0].startKeyClosed: invalid base64"),
            "{e}"
        );
        let v = json!({"rowRanges": [{"startKeyClosed": "YQ==", "startKeyOpen": "YQ=="}]});
        let e = row_set_from_json(&At::new("request.rows", &v)).unwrap_err();
        assert!(e.message().contains("set only one"), "{e}");
        let v = json!({"rowKeys": [""]});
        assert!(row_set_from_json(&At::new("request.rows", &v)).is_err());
    }

    #[test]
    fn every_filter_kind_decodes() {
        let v = json!({"chain": {"filters": [
            {"familyNameRegexFilter": "cf.*"},
            {"columnQualifierRegexFilter": "cQ=="},
            {"rowKeyRegexFilter": "cm93"},
            {"valueRegexFilter": "dg=="},
            {"cellsPerColumnLimitFilter": 1},
            {"cellsPerRowLimitFilter": "2"},
            {"cellsPerRowOffsetFilter": 3},
            {"rowSampleFilter": 0.5},
            {"timestampRangeFilter": {"startTimestampMicros": "1000", "endTimestampMicros": "2000"}},
            {"columnRangeFilter": {"familyName": "cf", "startQualifierClosed": "YQ==", "endQualifierOpen": "Yg=="}},
            {"valueRangeFilter": {"startValueOpen": "YQ==", "endValueClosed": "Yg=="}},
            {"interleave": {"filters": [{"passAllFilter": true}, {"blockAllFilter": true}, {"sink": true}]}},
            {"condition": {"predicateFilter": {"stripValueTransformer": true}, "trueFilter": {"applyLabelTransformer": "x"}}},
            {}
        ]}});
        let RowFilter::Chain(fs) = filter(v).unwrap() else {
            panic!("not a chain")
        };
        assert_eq!(fs[0], RowFilter::FamilyNameRegex("cf.*".into()));
        assert_eq!(fs[1], RowFilter::ColumnQualifierRegex(b"q".to_vec()));
        assert_eq!(fs[2], RowFilter::RowKeyRegex(b"row".to_vec()));
        assert_eq!(fs[3], RowFilter::ValueRegex(b"v".to_vec()));
        assert_eq!(fs[4], RowFilter::CellsPerColumnLimit(1));
        assert_eq!(fs[5], RowFilter::CellsPerRowLimit(2));
        assert_eq!(fs[6], RowFilter::CellsPerRowOffset(3));
        assert_eq!(fs[7], RowFilter::RowSample(0.5));
        assert_eq!(
            fs[8],
            RowFilter::TimestampRange(TimestampRange {
                start_micros: 1000,
                end_micros: 2000
            })
        );
        assert_eq!(
            fs[9],
            RowFilter::ColumnRange {
                family_name: "cf".into(),
                start: KeyBound::Closed(b"a".to_vec()),
                end: KeyBound::Open(b"b".to_vec())
            }
        );
        assert_eq!(
            fs[10],
            RowFilter::ValueRange {
                start: KeyBound::Open(b"a".to_vec()),
                end: KeyBound::Closed(b"b".to_vec())
            }
        );
        assert_eq!(
            fs[11],
            RowFilter::Interleave(vec![
                RowFilter::PassAll,
                RowFilter::BlockAll,
                RowFilter::Sink
            ])
        );
        assert_eq!(
            fs[12],
            RowFilter::Condition {
                predicate: Box::new(RowFilter::StripValue),
                true_filter: Some(Box::new(RowFilter::ApplyLabel("x".into()))),
                false_filter: None
            }
        );
        assert_eq!(fs[13], RowFilter::PassAll);
    }

    #[test]
    fn bad_filters_are_refused_with_their_path() {
        let e = filter(json!({"chain": {"filters": [{"sink": false}]}})).unwrap_err();
        assert_eq!(
            e.message(),
            "request.filter.chain.filters[0].sink: must be true when set (leave the field out instead)"
        );
        let e = filter(json!({"cellsPerColumnLimitFilter": "x"})).unwrap_err();
        assert!(
            e.message()
                .starts_with("request.filter.cellsPerColumnLimitFilter: "),
            "{e}"
        );
        let e = filter(json!({"familyNameRegexFilter": "a", "sink": true})).unwrap_err();
        assert!(e.message().contains("set only one"), "{e}");
        let e = filter(json!({"bogusFilter": 1})).unwrap_err();
        assert!(
            e.message()
                .starts_with("request.filter.bogusFilter: unknown field"),
            "{e}"
        );
        let e = filter(json!([])).unwrap_err();
        assert!(e.message().contains("expected an object"), "{e}");
        let mut deep = json!({"passAllFilter": true});
        for _ in 0..100 {
            deep = json!({"chain": {"filters": [deep]}});
        }
        assert!(filter(deep).unwrap_err().message().contains("nest"));
    }

    fn mutation(v: Value) -> Result<Mutation<'static>> {
        mutation_from_json(&At::new("request.mutations[0]", &v))
    }

    #[test]
    fn every_mutation_kind_decodes() {
        assert_eq!(
            mutation(json!({"setCell": {"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": "-1", "value": "AP8="}})).unwrap(),
            Mutation::set_cell("cf", b"q", -1, b"\x00\xff")
        );
        assert_eq!(
            mutation(json!({"setCell": {"familyName": "cf"}})).unwrap(),
            Mutation::set_cell("cf", b"", 0, b"")
        );
        assert_eq!(
            mutation(
                json!({"addToCell": {"familyName": "n", "columnQualifier": {"rawValue": "cQ=="},
                "timestamp": {"rawTimestampMicros": "1000"}, "input": {"intValue": "5"}}})
            )
            .unwrap(),
            Mutation::AddToCell {
                family_name: "n".into(),
                column_qualifier: Cow::Owned(b"q".to_vec()),
                timestamp_micros: 1000,
                input: AggregateInput::Int(5)
            }
        );
        assert_eq!(
            mutation(
                json!({"mergeToCell": {"familyName": "n", "columnQualifier": {"rawValue": ""},
                "timestamp": {"rawTimestampMicros": 0}, "input": {"bytesValue": "AAAAAAAAAAU="}}})
            )
            .unwrap(),
            Mutation::MergeToCell {
                family_name: "n".into(),
                column_qualifier: Cow::Owned(Vec::new()),
                timestamp_micros: 0,
                input: AggregateInput::Raw(Cow::Owned(vec![0, 0, 0, 0, 0, 0, 0, 5]))
            }
        );
        assert_eq!(
            mutation(
                json!({"deleteFromColumn": {"familyName": "cf", "columnQualifier": "cQ==",
                "timeRange": {"startTimestampMicros": "1000"}}})
            )
            .unwrap(),
            Mutation::DeleteFromColumn {
                family_name: "cf".into(),
                column_qualifier: Cow::Owned(b"q".to_vec()),
                time_range: Some(TimestampRange {
                    start_micros: 1000,
                    end_micros: 0
                })
            }
        );
        assert_eq!(
            mutation(json!({"deleteFromFamily": {"familyName": "cf"}})).unwrap(),
            Mutation::DeleteFromFamily {
                family_name: "cf".into()
            }
        );
        assert_eq!(
            mutation(json!({"deleteFromRow": {}})).unwrap(),
            Mutation::DeleteFromRow
        );
    }

    #[test]
    fn bad_mutations_are_refused_with_their_path() {
        let e = mutation(json!({})).unwrap_err();
        assert!(
            e.message()
                .starts_with("request.mutations[0]: a mutation must set one of"),
            "{e}"
        );
        let e = mutation(json!({"setCell": {"columnQualifier": "cQ=="}})).unwrap_err();
        assert_eq!(
            e.message(),
            "request.mutations[0].setCell.familyName: required field is missing"
        );
        let e = mutation(json!({"setCell": {"familyName": "cf", "value": "%%"}})).unwrap_err();
        assert!(
            e.message()
                .starts_with("request.mutations[0].setCell.value: invalid base64"),
            "{e}"
        );
        let e = mutation(json!({"deleteFromRow": {"x": 1}})).unwrap_err();
        assert!(
            e.message()
                .starts_with("request.mutations[0].deleteFromRow.x: unknown field"),
            "{e}"
        );
        let add = |input: Value| {
            mutation(
                json!({"addToCell": {"familyName": "n", "columnQualifier": {"rawValue": "cQ=="},
                "timestamp": {"rawTimestampMicros": "0"}, "input": input}}),
            )
        };
        assert!(add(json!({"intValue": 1})).is_ok());
        assert_eq!(
            add(json!({"stringValue": "x"})).unwrap_err().code(),
            Code::InvalidArgument
        );
        assert_eq!(
            add(json!({"floatValue": 1.0})).unwrap_err().code(),
            Code::Unimplemented
        );
        assert_eq!(add(json!({})).unwrap_err().code(), Code::InvalidArgument);
        let e = mutation(json!({"addToCell": {"familyName": "n", "columnQualifier": {"rawValue": "cQ=="}, "input": {"intValue": 1}}})).unwrap_err();
        assert_eq!(
            e.message(),
            "request.mutations[0].addToCell.timestamp: required field is missing"
        );
    }

    fn rule_from_json_in_production(at: &At<'_>) -> Result<ReadModifyWriteRule> {
        rule_from_json(at, Fidelity::Production)
    }

    #[test]
    fn rules_decode() {
        let r = rule_from_json_in_production(&At::new(
            "r",
            &json!({"familyName": "cf", "columnQualifier": "cQ==", "incrementAmount": "-2"}),
        ))
        .unwrap();
        assert_eq!(r.rule, ReadModifyWriteOp::IncrementAmount(-2));
        let r = rule_from_json_in_production(&At::new(
            "r",
            &json!({"familyName": "cf", "appendValue": "eA=="}),
        ))
        .unwrap();
        assert_eq!(r.rule, ReadModifyWriteOp::AppendValue(b"x".to_vec()));
        let none = json!({"familyName": "cf"});
        let e = rule_from_json_in_production(&At::new("r", &none)).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
        // The emulator answers UNKNOWN in its words.
        let e = rule_from_json(&At::new("r", &none), Fidelity::Emulator).unwrap_err();
        assert_eq!(
            (e.code(), e.message()),
            (Code::Unknown, "unknown RMW rule oneof <nil>")
        );
    }

    #[test]
    fn rows_group_cells_into_families_and_columns() {
        let cell = |family: &str, q: &[u8], ts: i64, v: &[u8], labels: &[&str]| OwnedCell {
            family: family.into(),
            qualifier: q.to_vec(),
            timestamp_micros: ts,
            value: v.to_vec(),
            labels: labels.iter().map(|l| (*l).to_string()).collect(),
            gc_eligible: false,
        };
        let row = OwnedRow {
            key: b"\x00r\xff".to_vec(),
            cells: vec![
                cell("a", b"q1", 2000, b"v2", &[]),
                cell("a", b"q1", 1000, b"", &["l"]),
                cell("a", b"q2", 0, b"x", &[]),
                cell("b", b"q1", 3000, b"y", &[]),
            ],
        };
        assert_eq!(
            row_to_json(&row),
            json!({"key": "AHL/", "families": [
                {"name": "a", "columns": [
                    {"qualifier": "cTE=", "cells": [{"timestampMicros": "2000", "value": "djI="}, {"timestampMicros": "1000", "labels": ["l"]}]},
                    {"qualifier": "cTI=", "cells": [{"value": "eA=="}]}
                ]},
                {"name": "b", "columns": [{"qualifier": "cTE=", "cells": [{"timestampMicros": "3000", "value": "eQ=="}]}]}
            ]})
        );
        assert_eq!(
            row_to_json(&OwnedRow {
                key: b"k".to_vec(),
                cells: vec![]
            }),
            json!({"key": "aw=="})
        );
    }
}
