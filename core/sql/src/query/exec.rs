//! Execution: runs a plan's ReadRows request through the instance (or a
//! view's storage), turns each returned row into SQL values, evaluates
//! what was not pushed down, and projects, sorts and limits.

use std::cmp::Ordering;

use super::func;
use super::parse::{BinOp, IndexMode};
use super::plan::{Input, ROW_MARKER_LABEL, ReadPlan, SelectPlan, SourceKind, TExpr, TKind};
use super::value::{SqlType, Value};
use super::{SqlError, Tables};
use crate::key_schema::KeyValue;
use tabletop_store::escape_bytes;
use tabletop_store::{Code, Error};
use tabletop_store::{ReadStats, RowView, Trace};

/// One row as expressions see it.
pub(crate) struct RowCtx<'a> {
    pub(crate) key: &'a [u8],
    pub(crate) key_fields: &'a [Value],
    pub(crate) families: &'a [Value],
    pub(crate) view_cols: &'a [Value],
    pub(crate) columns: &'a [Value],
    pub(crate) timestamp: Option<i64>,
    pub(crate) now: i64,
}

impl RowCtx<'static> {
    /// A context with no row (constants, SELECT without FROM).
    pub(crate) fn empty(now: i64) -> RowCtx<'static> {
        RowCtx {
            key: &[],
            key_fields: &[],
            families: &[],
            view_cols: &[],
            columns: &[],
            timestamp: None,
            now,
        }
    }
}

fn runtime(msg: impl Into<String>) -> Error {
    SqlError::runtime(msg)
}

fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

/// Evaluates an expression on a row.
pub(crate) fn eval(e: &TExpr, row: &RowCtx<'_>) -> Result<Value, Error> {
    Ok(match &e.kind {
        TKind::Lit(v) => v.clone(),
        TKind::Key => Value::Bytes(row.key.to_vec()),
        TKind::KeyField(i) => row.key_fields.get(*i).cloned().unwrap_or(Value::Null),
        TKind::Family(i) => row
            .families
            .get(*i)
            .cloned()
            .unwrap_or(Value::Map(Vec::new())),
        TKind::ViewCol(i) => row.view_cols.get(*i).cloned().unwrap_or(Value::Null),
        TKind::Column(i) => row.columns.get(*i).cloned().unwrap_or(Value::Null),
        TKind::UnpackTimestamp => row.timestamp.map_or(Value::Null, Value::Timestamp),
        TKind::Index { base, index, mode } => {
            let b = eval(base, row)?;
            let i = eval(index, row)?;
            if b.is_null() || i.is_null() {
                return Ok(Value::Null);
            }
            match b {
                Value::Map(entries) => entries
                    .into_iter()
                    .find(|(k, _)| k.sql_eq(&i) == Some(true))
                    .map_or(Value::Null, |(_, v)| v),
                Value::Array(items) => {
                    let Value::Int64(n) = i else {
                        return Ok(Value::Null);
                    };
                    let (idx, safe) = match mode {
                        IndexMode::Plain | IndexMode::Offset => (Some(n), false),
                        IndexMode::SafeOffset => (Some(n), true),
                        IndexMode::Ordinal => (n.checked_sub(1), false),
                        IndexMode::SafeOrdinal => (n.checked_sub(1), true),
                    };
                    match idx
                        .and_then(|i| usize::try_from(i).ok())
                        .and_then(|k| items.get(k))
                    {
                        Some(v) => v.clone(),
                        None if safe => Value::Null,
                        None => {
                            return Err(runtime(format!(
                                "Array index {n} is out of bounds (the array has {} elements)",
                                items.len()
                            )));
                        }
                    }
                }
                _ => Value::Null,
            }
        }
        TKind::Field { base, index } => match eval(base, row)? {
            Value::Struct(fields) => fields
                .into_iter()
                .nth(*index)
                .map_or(Value::Null, |(_, v)| v),
            _ => Value::Null,
        },
        TKind::Neg(x) => match eval(x, row)? {
            Value::Int64(i) => Value::Int64(
                i.checked_neg()
                    .ok_or_else(|| runtime(format!("int64 overflow: -{i}")))?,
            ),
            Value::Float64(f) => Value::Float64(-f),
            _ => Value::Null,
        },
        TKind::Not(x) => match truth(&eval(x, row)?) {
            Some(b) => Value::Bool(!b),
            None => Value::Null,
        },
        TKind::And(a, b) => {
            let l = truth(&eval(a, row)?);
            if l == Some(false) {
                return Ok(Value::Bool(false));
            }
            let r = truth(&eval(b, row)?);
            match (l, r) {
                (_, Some(false)) => Value::Bool(false),
                (Some(true), Some(true)) => Value::Bool(true),
                _ => Value::Null,
            }
        }
        TKind::Or(a, b) => {
            let l = truth(&eval(a, row)?);
            if l == Some(true) {
                return Ok(Value::Bool(true));
            }
            let r = truth(&eval(b, row)?);
            match (l, r) {
                (_, Some(true)) => Value::Bool(true),
                (Some(false), Some(false)) => Value::Bool(false),
                _ => Value::Null,
            }
        }
        TKind::Cmp(op, a, b) => {
            let (x, y) = (eval(a, row)?, eval(b, row)?);
            let r = match op {
                BinOp::Eq => x.sql_eq(&y),
                BinOp::Ne => x.sql_eq(&y).map(|b| !b),
                BinOp::Lt => x.sql_cmp(&y).map(Ordering::is_lt),
                BinOp::Le => x.sql_cmp(&y).map(Ordering::is_le),
                BinOp::Gt => x.sql_cmp(&y).map(Ordering::is_gt),
                BinOp::Ge => x.sql_cmp(&y).map(Ordering::is_ge),
                _ => None,
            };
            r.map_or(Value::Null, Value::Bool)
        }
        TKind::Arith(op, a, b) => arith(*op, eval(a, row)?, eval(b, row)?)?,
        TKind::IsNull(x, negated) => Value::Bool(eval(x, row)?.is_null() != *negated),
        TKind::IsBool(x, value, negated) => {
            let is = truth(&eval(x, row)?) == Some(*value);
            Value::Bool(is != *negated)
        }
        TKind::In(x, list, negated) => {
            let v = eval(x, row)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            let mut unknown = false;
            let mut found = false;
            for l in list {
                match v.sql_eq(&eval(l, row)?) {
                    Some(true) => {
                        found = true;
                        break;
                    }
                    None => unknown = true,
                    Some(false) => {}
                }
            }
            if found {
                Value::Bool(!negated)
            } else if unknown {
                Value::Null
            } else {
                Value::Bool(*negated)
            }
        }
        TKind::Between(x, lo, hi, negated) => {
            let v = eval(x, row)?;
            let ge = v.sql_cmp(&eval(lo, row)?).map(Ordering::is_ge);
            let le = v.sql_cmp(&eval(hi, row)?).map(Ordering::is_le);
            let r = match (ge, le) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
            r.map_or(Value::Null, |b| Value::Bool(b != *negated))
        }
        TKind::Like(x, re, negated) => match eval(x, row)? {
            Value::String(s) => Value::Bool(re.is_match(s.as_bytes()) != *negated),
            Value::Bytes(b) => Value::Bool(re.is_match(&b) != *negated),
            _ => Value::Null,
        },
        TKind::Call(f, args) => {
            let vals = args
                .iter()
                .map(|a| eval(a, row))
                .collect::<Result<Vec<_>, _>>()?;
            func::call(*f, vals, row.now)?
        }
        TKind::Cast(x, to, safe) => {
            let v = eval(x, row)?;
            match func::cast(v, to) {
                Ok(v) => v,
                Err(_) if *safe => Value::Null,
                Err(err) => return Err(err),
            }
        }
        TKind::Case(op, whens, el) => {
            let opv = match op {
                Some(o) => Some(eval(o, row)?),
                None => None,
            };
            for (w, t) in whens {
                let hit = match &opv {
                    Some(o) => o.sql_eq(&eval(w, row)?) == Some(true),
                    None => truth(&eval(w, row)?) == Some(true),
                };
                if hit {
                    return eval(t, row);
                }
            }
            match el {
                Some(e) => eval(e, row)?,
                None => Value::Null,
            }
        }
        TKind::Agg(..) => {
            return Err(Error::internal(
                "an aggregate was evaluated outside a materialized view",
            ));
        }
    })
}

fn arith(op: BinOp, a: Value, b: Value) -> Result<Value, Error> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    Ok(match (op, a, b) {
        (BinOp::Concat, Value::String(x), Value::String(y)) => Value::String(x + &y),
        (BinOp::Concat, Value::Bytes(mut x), Value::Bytes(y)) => {
            x.extend_from_slice(&y);
            Value::Bytes(x)
        }
        (op, Value::Int64(x), Value::Int64(y)) => {
            let r = match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                BinOp::Mul => x.checked_mul(y),
                _ => None,
            };
            Value::Int64(
                r.ok_or_else(|| runtime(format!("int64 overflow: {x} {} {y}", op.symbol())))?,
            )
        }
        (op, x, y) => {
            let f = |v: &Value| match v {
                Value::Int64(i) => *i as f64,
                Value::Float64(f) => *f,
                _ => f64::NAN,
            };
            let (x, y) = (f(&x), f(&y));
            match op {
                BinOp::Add => Value::Float64(x + y),
                BinOp::Sub => Value::Float64(x - y),
                BinOp::Mul => Value::Float64(x * y),
                BinOp::Div => {
                    if y == 0.0 {
                        return Err(runtime(format!(
                            "division by zero: {} / {}",
                            super::value::format_float(x),
                            super::value::format_float(y)
                        )));
                    }
                    Value::Float64(x / y)
                }
                _ => Value::Null,
            }
        }
    })
}

/// A SQL value from a decoded key field.
pub(crate) fn key_value(v: KeyValue) -> Value {
    match v {
        KeyValue::String(s) => Value::String(s),
        KeyValue::Bytes(b) => Value::Bytes(b),
        KeyValue::Int64(i) => Value::Int64(i),
        KeyValue::Timestamp(t) => Value::Timestamp(t),
    }
}

/// The result of running a SELECT.
pub(crate) struct Executed {
    pub(crate) rows: Vec<Vec<Value>>,
    /// What the read scanned and returned (zero when nothing was read).
    pub(crate) stats: ReadStats,
    /// Whether a read ran.
    pub(crate) read_ran: bool,
    /// Rows the read returned before predicates evaluated afterwards.
    pub(crate) rows_before_residual: u64,
}

/// One column's cells: qualifier, then (timestamp, value) newest first.
type Column = (Vec<u8>, Vec<(i64, Value)>);

/// Turns one returned row into the values a query needs.
fn decode_row(
    read: &ReadPlan,
    view: &RowView<'_>,
    key_fields: &mut Vec<Value>,
    families: &mut Vec<Value>,
    view_cols: &mut Vec<Value>,
) -> Result<(), Error> {
    let src = &read.source;
    key_fields.clear();
    if read.need_key_fields
        && let Some(ks) = &src.key_schema
    {
        match ks.decode(view.key) {
            Ok(vals) => key_fields.extend(vals.into_iter().map(key_value)),
            Err(e) => {
                return Err(Error::new(
                    Code::FailedPrecondition,
                    format!(
                        "row key \"{}\" of {} does not conform to its row key schema ({e}); queries that select row key fields fail on such rows",
                        escape_bytes(view.key),
                        src.name
                    ),
                ));
            }
        }
    }
    if src.kind == SourceKind::View {
        view_cols.clear();
        view_cols.resize(src.view_cols.len(), Value::Null);
        for c in view.cells {
            if let Some(i) = src.view_cols.iter().position(|(n, _)| n == c.family)
                && view_cols[i].is_null()
            {
                view_cols[i] = super::value::decode_view_value(c.value, &src.view_cols[i].1);
            }
        }
        return Ok(());
    }
    families.clear();
    families.resize(src.families.len(), Value::Null);
    if read.families.is_empty() {
        return Ok(());
    }
    // Cells come by family, then qualifier, then newest first.
    let mut per: Vec<Vec<Column>> = vec![Vec::new(); src.families.len()];
    for c in view.cells {
        if read.has_marker && c.label == Some(ROW_MARKER_LABEL) {
            continue;
        }
        let Ok(fi) = src
            .families
            .binary_search_by(|(n, _)| n.as_str().cmp(c.family))
        else {
            continue;
        };
        let v = match src.families[fi].1 {
            SqlType::Int64 => match <[u8; 8]>::try_from(c.value) {
                Ok(a) => Value::Int64(i64::from_be_bytes(a)),
                Err(_) => Value::Null,
            },
            _ => Value::Bytes(c.value.to_vec()),
        };
        let cols = &mut per[fi];
        match cols.last_mut() {
            Some((q, cells)) if q.as_slice() == c.qualifier => cells.push((c.timestamp_micros, v)),
            _ => cols.push((c.qualifier.to_vec(), vec![(c.timestamp_micros, v)])),
        }
    }
    for &fi in &read.families {
        let cols = std::mem::take(&mut per[fi]);
        let entries: Vec<(Value, Value)> = cols
            .into_iter()
            .filter_map(|(q, cells)| {
                let v = if src.history {
                    Value::Array(
                        cells
                            .into_iter()
                            .map(|(ts, v)| {
                                Value::Struct(vec![
                                    ("timestamp".to_string(), Value::Timestamp(ts)),
                                    ("value".to_string(), v),
                                ])
                            })
                            .collect(),
                    )
                } else {
                    cells.into_iter().next()?.1
                };
                Some((Value::Bytes(q), v))
            })
            .collect();
        families[fi] = Value::Map(entries);
    }
    Ok(())
}

/// Streams the rows of a read plan to `visit` (which returns whether to
/// go on).
pub(crate) fn read_source_rows<D: Tables + ?Sized>(
    db: &mut D,
    read: &ReadPlan,
    visit: &mut dyn FnMut(&RowCtx<'_>) -> Result<bool, Error>,
    trace: Option<&mut Trace>,
) -> Result<(ReadStats, bool), Error> {
    if read.no_rows {
        return Ok((ReadStats::default(), false));
    }
    let now = db.now_micros();
    let mut failure: Option<Error> = None;
    let mut key_fields = Vec::new();
    let mut families = Vec::new();
    let mut view_cols = Vec::new();
    let mut sink = |view: RowView<'_>| -> bool {
        let step = decode_row(read, &view, &mut key_fields, &mut families, &mut view_cols)
            .and_then(|()| {
                let ctx = RowCtx {
                    key: view.key,
                    key_fields: &key_fields,
                    families: &families,
                    view_cols: &view_cols,
                    columns: &[],
                    timestamp: None,
                    now,
                };
                visit(&ctx)
            });
        match step {
            Ok(go_on) => go_on,
            Err(e) => {
                failure = Some(e);
                false
            }
        }
    };
    let stats = db.read_source(&read.source, &read.request, &mut sink, trace)?;
    if let Some(e) = failure {
        return Err(e);
    }
    Ok((stats, true))
}

/// Rows that passed the predicates, with their sort keys.
struct Collected {
    rows: Vec<(Vec<Value>, Vec<Value>)>,
}

fn finish(plan: &SelectPlan, mut c: Collected) -> Vec<Vec<Value>> {
    if !plan.order.is_empty() {
        c.rows.sort_by(|(ka, _), (kb, _)| {
            for (i, (_, desc)) in plan.order.iter().enumerate() {
                let o = ka[i].total_cmp(&kb[i]);
                let o = if *desc { o.reverse() } else { o };
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
    }
    let offset = usize::try_from(plan.offset).unwrap_or(usize::MAX);
    let limit = plan
        .limit
        .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    c.rows
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|(_, out)| out)
        .collect()
}

/// A row's output columns, when it passes the residual predicates.
pub(crate) fn selected(plan: &SelectPlan, ctx: &RowCtx<'_>) -> Result<Option<Vec<Value>>, Error> {
    if let Some(r) = &plan.residual
        && truth(&eval(r, ctx)?) != Some(true)
    {
        return Ok(None);
    }
    plan.outputs
        .iter()
        .map(|o| eval(&o.expr, ctx))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Evaluates residual, outputs and sort keys on one row; returns whether
/// more rows are wanted.
fn take_row(
    plan: &SelectPlan,
    ctx: &RowCtx<'_>,
    c: &mut Collected,
    passed: &mut u64,
) -> Result<bool, Error> {
    let Some(out) = selected(plan, ctx)? else {
        return Ok(true);
    };
    *passed += 1;
    let keys = plan
        .order
        .iter()
        .map(|(e, _)| eval(e, ctx))
        .collect::<Result<Vec<_>, _>>()?;
    c.rows.push((keys, out));
    // Without sorting, stop once LIMIT + OFFSET rows are in.
    if plan.order.is_empty()
        && let Some(l) = plan.limit
    {
        return Ok((c.rows.len() as u64) < l.saturating_add(plan.offset));
    }
    Ok(true)
}

/// Runs a planned SELECT; its read is recorded in `trace` when one is
/// given.
pub(crate) fn run<D: Tables + ?Sized>(
    db: &mut D,
    plan: &SelectPlan,
    trace: Option<&mut Trace>,
) -> Result<Executed, Error> {
    let mut c = Collected { rows: Vec::new() };
    let mut passed = 0u64;
    let mut seen_rows = 0u64;
    let (stats, read_ran) = match &plan.input {
        Input::Nothing => {
            let ctx = RowCtx::empty(db.now_micros());
            take_row(plan, &ctx, &mut c, &mut passed)?;
            (ReadStats::default(), false)
        }
        Input::Read(read) => read_source_rows(
            db,
            read,
            &mut |ctx| {
                seen_rows += 1;
                take_row(plan, ctx, &mut c, &mut passed)
            },
            trace,
        )?,
        Input::LogicalView { inner, .. } => {
            let ex = run(db, inner, trace)?;
            let now = db.now_micros();
            for cols in &ex.rows {
                let ctx = RowCtx {
                    key: &[],
                    key_fields: &[],
                    families: &[],
                    view_cols: &[],
                    columns: cols,
                    timestamp: None,
                    now,
                };
                seen_rows += 1;
                if !take_row(plan, &ctx, &mut c, &mut passed)? {
                    break;
                }
            }
            (ex.stats, ex.read_ran)
        }
        Input::Unpack { inner, history, .. } => {
            let ex = run(db, inner, trace)?;
            let now = db.now_micros();
            'rows: for row in &ex.rows {
                let mut stamps: Vec<i64> = Vec::new();
                for (v, h) in row.iter().zip(history) {
                    if *h {
                        collect_stamps(v, &mut stamps);
                    }
                }
                stamps.sort_unstable_by(|a, b| b.cmp(a));
                stamps.dedup();
                for ts in stamps {
                    let cols: Vec<Value> = row
                        .iter()
                        .zip(history)
                        .map(|(v, h)| if *h { at_stamp(v, ts) } else { v.clone() })
                        .collect();
                    let ctx = RowCtx {
                        key: &[],
                        key_fields: &[],
                        families: &[],
                        view_cols: &[],
                        columns: &cols,
                        timestamp: Some(ts),
                        now,
                    };
                    seen_rows += 1;
                    if !take_row(plan, &ctx, &mut c, &mut passed)? {
                        break 'rows;
                    }
                }
            }
            (ex.stats, ex.read_ran)
        }
    };
    Ok(Executed {
        rows: finish(plan, c),
        stats,
        read_ran,
        rows_before_residual: seen_rows,
    })
}

fn collect_stamps(v: &Value, out: &mut Vec<i64>) {
    match v {
        Value::Array(items) => {
            for it in items {
                if let Value::Struct(f) = it
                    && let Some((_, Value::Timestamp(t))) = f.first()
                {
                    out.push(*t);
                }
            }
        }
        Value::Map(entries) => {
            for (_, x) in entries {
                collect_stamps(x, out);
            }
        }
        _ => {}
    }
}

/// A history column's value at one timestamp.
fn at_stamp(v: &Value, ts: i64) -> Value {
    match v {
        Value::Array(items) => items
            .iter()
            .find_map(|it| match it {
                Value::Struct(f) if matches!(f.first(), Some((_, Value::Timestamp(t))) if *t == ts) => {
                    f.get(1).map(|x| x.1.clone())
                }
                _ => None,
            })
            .unwrap_or(Value::Null),
        Value::Map(entries) => Value::Map(
            entries
                .iter()
                .filter_map(|(k, x)| {
                    let v = at_stamp(x, ts);
                    (!v.is_null()).then(|| (k.clone(), v))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}
