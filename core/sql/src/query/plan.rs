//! Analysis and planning: a parsed SELECT becomes a typed plan whose read
//! is an ordinary ReadRows request.
//!
//! - Names resolve against the source: `_key`, one `MAP` column per column
//!   family, the fields of a row-key schema, a view's columns, or the
//!   columns of an `UNPACK`ed subquery (plus `_timestamp`).
//! - Expressions are typed with GoogleSQL's rules; literals coerce (a
//!   STRING literal compared with BYTES is BYTES).
//! - Top-level `AND`ed predicates on `_key` (`=`, `<`, `<=`, `>`, `>=`,
//!   `BETWEEN`, `IN`, `STARTS_WITH`, `LIKE 'prefix%'`, and `OR`s of them)
//!   become the request's row set; equality (or `IN`) on the leading
//!   fields of a row-key schema becomes key prefixes.
//! - Predicates on the latest value of one column (`cf['q'] = 'x'`, `<`,
//!   `IN`, `LIKE`, `IS NOT NULL`, `MAP_CONTAINS_KEY`, and `OR`s of them)
//!   become `condition` filters, as Bigtable pushes them down; the rest is
//!   evaluated on the rows the read returns.
//! - The columns a query uses become a filter too (only the families and
//!   qualifiers it reads), plus the temporal options (`with_history`,
//!   `latest_n`, `after`, `before`, `as_of`) as timestamp-range and
//!   per-column limits.

use std::collections::{BTreeMap, BTreeSet};

use super::func::{self, AGGREGATES, Func};
use super::lex::Pos;
use super::parse::{BinOp, Expr, FromItem, Ident, IndexMode, Query, SelectItem};
use super::value::{SqlType, Value, parse_timestamp};
use super::{SqlError, Tables};
use crate::key_schema::{KeyValue, RowKeySchema};
use tabletop_store::Error;
use tabletop_store::ReadRowsRequest;
use tabletop_store::RowFilter;
use tabletop_store::TimestampRange;
use tabletop_store::{Aggregator, ValueType};
use tabletop_store::{KeyBound, KeyRange, RowRange, RowSet, prefix_successor, successor};

/// The label of the cell that marks a row as present when a query reads
/// only some of its columns.
pub(crate) const ROW_MARKER_LABEL: &str = "row-exists";

/// Most key prefixes one query's key-field predicates may expand to.
const MAX_PREFIXES: usize = 100;

/// Aggregate functions (materialized views only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AggKind {
    CountStar,
    Count,
    Sum,
    Min,
    Max,
    Avg,
    AnyValue,
}

impl AggKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            AggKind::CountStar | AggKind::Count => "COUNT",
            AggKind::Sum => "SUM",
            AggKind::Min => "MIN",
            AggKind::Max => "MAX",
            AggKind::Avg => "AVG",
            AggKind::AnyValue => "ANY_VALUE",
        }
    }
}

/// A typed expression.
#[derive(Clone, Debug)]
pub(crate) struct TExpr {
    pub(crate) kind: TKind,
    pub(crate) ty: SqlType,
    pub(crate) pos: Pos,
    /// A literal whose type may still be coerced.
    pub(crate) lit: bool,
}

/// What a typed expression does.
#[derive(Clone, Debug)]
pub(crate) enum TKind {
    Lit(Value),
    /// The row key (`_key`).
    Key,
    /// A field of the row-key schema.
    KeyField(usize),
    /// A column family (a MAP).
    Family(usize),
    /// A column of a materialized view.
    ViewCol(usize),
    /// A column of the subquery UNPACK expands.
    Column(usize),
    /// `_timestamp` of an UNPACK row.
    UnpackTimestamp,
    Index {
        base: Box<TExpr>,
        index: Box<TExpr>,
        mode: IndexMode,
    },
    Field {
        base: Box<TExpr>,
        index: usize,
    },
    Neg(Box<TExpr>),
    Not(Box<TExpr>),
    And(Box<TExpr>, Box<TExpr>),
    Or(Box<TExpr>, Box<TExpr>),
    Cmp(BinOp, Box<TExpr>, Box<TExpr>),
    Arith(BinOp, Box<TExpr>, Box<TExpr>),
    IsNull(Box<TExpr>, bool),
    IsBool(Box<TExpr>, bool, bool),
    In(Box<TExpr>, Vec<TExpr>, bool),
    Between(Box<TExpr>, Box<TExpr>, Box<TExpr>, bool),
    Like(Box<TExpr>, Box<regex::bytes::Regex>, bool),
    Call(Func, Vec<TExpr>),
    Cast(Box<TExpr>, SqlType, bool),
    Case(Option<Box<TExpr>>, Vec<(TExpr, TExpr)>, Option<Box<TExpr>>),
    Agg(AggKind, Option<Box<TExpr>>),
}

impl TExpr {
    fn lit(v: Value, ty: SqlType, pos: Pos) -> TExpr {
        TExpr {
            kind: TKind::Lit(v),
            ty,
            pos,
            lit: true,
        }
    }

    fn new(kind: TKind, ty: SqlType, pos: Pos) -> TExpr {
        TExpr {
            kind,
            ty,
            pos,
            lit: false,
        }
    }

    pub(crate) fn is_null_lit(&self) -> bool {
        matches!(self.kind, TKind::Lit(Value::Null))
    }

    /// The literal value, if the expression is one.
    pub(crate) fn literal(&self) -> Option<&Value> {
        match &self.kind {
            TKind::Lit(v) => Some(v),
            _ => None,
        }
    }

    /// A position-free rendering, to tell whether two expressions are the
    /// same (GROUP BY and ORDER BY items naming select items).
    pub(crate) fn fingerprint(&self) -> String {
        let f = |e: &TExpr| e.fingerprint();
        match &self.kind {
            TKind::Lit(v) => format!("lit({v:?})"),
            TKind::Key => "_key".into(),
            TKind::KeyField(i) => format!("kf{i}"),
            TKind::Family(i) => format!("fam{i}"),
            TKind::ViewCol(i) => format!("vc{i}"),
            TKind::Column(i) => format!("col{i}"),
            TKind::UnpackTimestamp => "_timestamp".into(),
            TKind::Index { base, index, mode } => format!("{}[{mode:?}:{}]", f(base), f(index)),
            TKind::Field { base, index } => format!("{}.{index}", f(base)),
            TKind::Neg(e) => format!("-({})", f(e)),
            TKind::Not(e) => format!("not({})", f(e)),
            TKind::And(a, b) => format!("and({},{})", f(a), f(b)),
            TKind::Or(a, b) => format!("or({},{})", f(a), f(b)),
            TKind::Cmp(op, a, b) | TKind::Arith(op, a, b) => {
                format!("{}({},{})", op.symbol(), f(a), f(b))
            }
            TKind::IsNull(e, n) => format!("isnull{n}({})", f(e)),
            TKind::IsBool(e, v, n) => format!("is{v}{n}({})", f(e)),
            TKind::In(e, l, n) => format!(
                "in{n}({};{})",
                f(e),
                l.iter().map(f).collect::<Vec<_>>().join(",")
            ),
            TKind::Between(a, b, c, n) => format!("between{n}({},{},{})", f(a), f(b), f(c)),
            TKind::Like(e, re, n) => format!("like{n}({},{})", f(e), re.as_str()),
            TKind::Call(func, args) => format!(
                "{}({})",
                func.name(),
                args.iter().map(f).collect::<Vec<_>>().join(",")
            ),
            TKind::Cast(e, t, s) => format!("cast{s}({} as {t})", f(e)),
            TKind::Case(op, whens, el) => format!(
                "case({};{};{})",
                op.as_ref().map(|e| f(e)).unwrap_or_default(),
                whens
                    .iter()
                    .map(|(a, b)| format!("{}=>{}", f(a), f(b)))
                    .collect::<Vec<_>>()
                    .join(","),
                el.as_ref().map(|e| f(e)).unwrap_or_default()
            ),
            TKind::Agg(k, arg) => {
                format!("{k:?}({})", arg.as_ref().map(|e| f(e)).unwrap_or_default())
            }
        }
    }

    /// Whether the expression contains an aggregate.
    pub(crate) fn has_agg(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if matches!(e.kind, TKind::Agg(..)) {
                found = true;
            }
        });
        found
    }

    /// Visits every node, each before its children.
    pub(crate) fn walk(&self, visit: &mut dyn FnMut(&TExpr)) {
        visit(self);
        for child in direct_children(self) {
            child.walk(visit);
        }
    }
}

/// Tables or materialized views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// A table.
    Table,
    /// A continuous materialized view.
    View,
}

/// What a query reads and the columns it offers.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    pub(crate) name: String,
    /// The alias (or the name) qualified column names use.
    pub(crate) alias: String,
    pub(crate) kind: SourceKind,
    pub(crate) key_schema: Option<RowKeySchema>,
    /// Column families (tables), sorted by name, with the type of their
    /// values.
    pub(crate) families: Vec<(String, SqlType)>,
    /// A view's value columns: name, type.
    pub(crate) view_cols: Vec<(String, SqlType)>,
    /// A view's columns in definition order, for `SELECT *`: key field
    /// or value column.
    pub(crate) view_order: Vec<ColRef>,
    /// Whether the values are read with their history.
    pub(crate) history: bool,
}

/// A column of a view, for `SELECT *`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ColRef {
    KeyField(usize),
    Value(usize),
    RawKey,
}

impl Source {
    fn family_type(&self, i: usize) -> SqlType {
        let v = self
            .families
            .get(i)
            .map_or(SqlType::Bytes, |(_, t)| t.clone());
        if self.history {
            SqlType::Map(Box::new(SqlType::Bytes), Box::new(SqlType::history(v)))
        } else {
            SqlType::Map(Box::new(SqlType::Bytes), Box::new(v))
        }
    }
}

/// Where names resolve.
#[derive(Clone, Copy)]
pub(crate) enum Scope<'s> {
    None,
    Source(&'s Source),
    /// The columns of a subquery: an UNPACK (with `_timestamp`) or a
    /// logical view.
    Unpack {
        columns: &'s [(String, SqlType)],
        alias: Option<&'s str>,
        /// Whether the rows are UNPACKed ones, with `_timestamp`.
        unpacked: bool,
    },
}

/// The expression analyzer.
pub(crate) struct Analyzer<'s> {
    pub(crate) scope: Scope<'s>,
    pub(crate) allow_agg: bool,
    in_agg: bool,
}

fn find_name<'a>(names: impl Iterator<Item = &'a str>, want: &str) -> Option<usize> {
    let names: Vec<&str> = names.collect();
    if let Some(i) = names.iter().position(|n| *n == want) {
        return Some(i);
    }
    let matches: Vec<usize> = names
        .iter()
        .enumerate()
        .filter(|(_, n)| n.eq_ignore_ascii_case(want))
        .map(|(i, _)| i)
        .collect();
    (matches.len() == 1).then(|| matches[0])
}

impl<'s> Analyzer<'s> {
    pub(crate) fn new(scope: Scope<'s>) -> Analyzer<'s> {
        Analyzer {
            scope,
            allow_agg: false,
            in_agg: false,
        }
    }

    fn resolve_name(&self, id: &Ident) -> Option<TExpr> {
        let pos = id.pos;
        let name = id.name.as_str();
        match self.scope {
            Scope::None => None,
            Scope::Source(src) => {
                if name.eq_ignore_ascii_case("_key") {
                    return Some(TExpr::new(TKind::Key, SqlType::Bytes, pos));
                }
                if let Some(s) = &src.key_schema
                    && let Some(i) = s.field_index(name)
                {
                    let ty = match s.fields[i].field_type.sql_type_name() {
                        "STRING" => SqlType::String,
                        "BYTES" => SqlType::Bytes,
                        "INT64" => SqlType::Int64,
                        _ => SqlType::Timestamp,
                    };
                    return Some(TExpr::new(TKind::KeyField(i), ty, pos));
                }
                if let Some(i) = find_name(src.view_cols.iter().map(|(n, _)| n.as_str()), name) {
                    return Some(TExpr::new(
                        TKind::ViewCol(i),
                        src.view_cols[i].1.clone(),
                        pos,
                    ));
                }
                if let Some(i) = find_name(src.families.iter().map(|(n, _)| n.as_str()), name) {
                    return Some(TExpr::new(TKind::Family(i), src.family_type(i), pos));
                }
                None
            }
            Scope::Unpack {
                columns, unpacked, ..
            } => {
                if unpacked && name.eq_ignore_ascii_case("_timestamp") {
                    return Some(TExpr::new(TKind::UnpackTimestamp, SqlType::Timestamp, pos));
                }
                find_name(columns.iter().map(|(n, _)| n.as_str()), name)
                    .map(|i| TExpr::new(TKind::Column(i), columns[i].1.clone(), pos))
            }
        }
    }

    fn is_alias(&self, name: &str) -> bool {
        match self.scope {
            Scope::Source(src) => {
                src.alias.eq_ignore_ascii_case(name) || src.name.eq_ignore_ascii_case(name)
            }
            Scope::Unpack { alias, .. } => alias.is_some_and(|a| a.eq_ignore_ascii_case(name)),
            Scope::None => false,
        }
    }

    /// Coerces a literal to `to` (STRING to BYTES, INT64 to FLOAT64, NULL
    /// to anything); other expressions must already have that type.
    pub(crate) fn coerce(&self, mut e: TExpr, to: &SqlType) -> Result<TExpr, Error> {
        if e.ty == *to {
            return Ok(e);
        }
        if e.lit {
            let v = match (&e.kind, to) {
                (TKind::Lit(Value::Null), _) => Some(Value::Null),
                (TKind::Lit(Value::String(s)), SqlType::Bytes) => {
                    Some(Value::Bytes(s.as_bytes().to_vec()))
                }
                (TKind::Lit(Value::Int64(i)), SqlType::Float64) => Some(Value::Float64(*i as f64)),
                (TKind::Lit(Value::String(s)), SqlType::Timestamp) => {
                    parse_timestamp(s).map(Value::Timestamp)
                }
                _ => None,
            };
            if let Some(v) = v {
                e.kind = TKind::Lit(v);
                e.ty = to.clone();
                return Ok(e);
            }
        }
        if e.ty == SqlType::Int64 && *to == SqlType::Float64 {
            let pos = e.pos;
            return Ok(TExpr::new(
                TKind::Cast(Box::new(e), SqlType::Float64, false),
                SqlType::Float64,
                pos,
            ));
        }
        Err(SqlError::analysis(
            format!("Expected a value of type {to}, got {}", e.ty),
            e.pos,
        ))
    }

    /// Types two operands of a comparison alike.
    fn unify(&self, a: TExpr, b: TExpr, what: &str, pos: Pos) -> Result<(TExpr, TExpr), Error> {
        let types = [a.ty.clone(), b.ty.clone()];
        let lits = [a.lit, b.lit];
        match func::common_type(&types, &lits) {
            Some(t) => {
                let a = self.coerce(a, &t)?;
                let b = self.coerce(b, &t)?;
                Ok((a, b))
            }
            None => Err(SqlError::analysis(
                format!(
                    "No matching signature for operator {what} for argument types: {}, {}",
                    types[0], types[1]
                ),
                pos,
            )),
        }
    }

    pub(crate) fn expr(&mut self, e: &Expr) -> Result<TExpr, Error> {
        use SqlType as T;
        Ok(match e {
            Expr::Null(p) => TExpr::lit(Value::Null, T::Int64, *p),
            Expr::Bool(b, p) => TExpr::lit(Value::Bool(*b), T::Bool, *p),
            Expr::Int(i, p) => TExpr::lit(Value::Int64(*i), T::Int64, *p),
            Expr::Float(f, p) => TExpr::lit(Value::Float64(*f), T::Float64, *p),
            Expr::Str(s, p) => TExpr::lit(Value::String(s.clone()), T::String, *p),
            Expr::Bytes(b, p) => {
                let mut t = TExpr::lit(Value::Bytes(b.clone()), T::Bytes, *p);
                t.lit = false;
                t
            }
            Expr::Timestamp(s, p) => match parse_timestamp(s) {
                Some(t) => {
                    let mut x = TExpr::lit(Value::Timestamp(t), T::Timestamp, *p);
                    x.lit = false;
                    x
                }
                None => {
                    return Err(SqlError::analysis(
                        format!("Invalid TIMESTAMP literal: '{s}'"),
                        *p,
                    ));
                }
            },
            Expr::Ident(id) => match self.resolve_name(id) {
                Some(t) => t,
                None => {
                    return Err(SqlError::analysis(
                        format!("Unrecognized name: {}", id.name),
                        id.pos,
                    ));
                }
            },
            Expr::Field(base, field) => {
                if let Expr::Ident(b) = base.as_ref()
                    && self.resolve_name(b).is_none()
                    && self.is_alias(&b.name)
                {
                    return match self.resolve_name(field) {
                        Some(t) => Ok(t),
                        None => Err(SqlError::analysis(
                            format!("Name {} not found inside {}", field.name, b.name),
                            field.pos,
                        )),
                    };
                }
                let b = self.expr(base)?;
                match &b.ty {
                    T::Struct(fields) => {
                        let Some(i) = fields
                            .iter()
                            .position(|(n, _)| n.eq_ignore_ascii_case(&field.name))
                        else {
                            return Err(SqlError::analysis(
                                format!("Field name {} does not exist in {}", field.name, b.ty),
                                field.pos,
                            ));
                        };
                        let ty = fields[i].1.clone();
                        TExpr::new(
                            TKind::Field {
                                base: Box::new(b),
                                index: i,
                            },
                            ty,
                            field.pos,
                        )
                    }
                    other => {
                        return Err(SqlError::analysis(
                            format!(
                                "Cannot access field {} on a value with type {other}",
                                field.name
                            ),
                            field.pos,
                        ));
                    }
                }
            }
            Expr::Index {
                base,
                index,
                mode,
                pos,
            } => {
                let b = self.expr(base)?;
                let i = self.expr(index)?;
                match (&b.ty, mode) {
                    (T::Map(k, v), IndexMode::Plain) => {
                        let (k, v) = ((**k).clone(), (**v).clone());
                        let i = self.coerce(i, &k).map_err(|_| {
                            SqlError::analysis(
                                format!("A map of type {} has keys of type {k}", b.ty),
                                *pos,
                            )
                        })?;
                        TExpr::new(
                            TKind::Index {
                                base: Box::new(b),
                                index: Box::new(i),
                                mode: *mode,
                            },
                            v,
                            *pos,
                        )
                    }
                    (T::Map(..), _) => {
                        return Err(SqlError::analysis(
                            "OFFSET and ORDINAL index arrays; a map takes a key: cf['qualifier']",
                            *pos,
                        ));
                    }
                    (T::Array(elem), _) => {
                        let elem = (**elem).clone();
                        let i = self
                            .coerce(i, &T::Int64)
                            .map_err(|_| SqlError::analysis("Array index must be INT64", *pos))?;
                        TExpr::new(
                            TKind::Index {
                                base: Box::new(b),
                                index: Box::new(i),
                                mode: *mode,
                            },
                            elem,
                            *pos,
                        )
                    }
                    (other, _) => {
                        return Err(SqlError::analysis(
                            format!(
                                "Element access using [] is not supported on values of type {other}"
                            ),
                            *pos,
                        ));
                    }
                }
            }
            Expr::Neg(inner, p) => {
                let i = self.expr(inner)?;
                if !i.ty.is_numeric() {
                    return Err(SqlError::analysis(
                        format!(
                            "No matching signature for operator - for argument types: {}",
                            i.ty
                        ),
                        *p,
                    ));
                }
                let ty = i.ty.clone();
                TExpr::new(TKind::Neg(Box::new(i)), ty, *p)
            }
            Expr::Not(inner, p) => {
                let i = self.boolean(inner, "NOT")?;
                TExpr::new(TKind::Not(Box::new(i)), T::Bool, *p)
            }
            Expr::Binary {
                op,
                left,
                right,
                pos,
            } => self.binary(*op, left, right, *pos)?,
            Expr::IsNull { expr, negated, pos } => {
                let i = self.expr(expr)?;
                TExpr::new(TKind::IsNull(Box::new(i), *negated), T::Bool, *pos)
            }
            Expr::IsBool {
                expr,
                value,
                negated,
                pos,
            } => {
                let i = self.boolean(expr, "IS")?;
                TExpr::new(TKind::IsBool(Box::new(i), *value, *negated), T::Bool, *pos)
            }
            Expr::In {
                expr,
                list,
                negated,
                pos,
            } => {
                let x = self.expr(expr)?;
                let items: Vec<TExpr> = list
                    .iter()
                    .map(|l| self.expr(l))
                    .collect::<Result<_, _>>()?;
                let mut types = vec![x.ty.clone()];
                let mut lits = vec![x.lit];
                for it in &items {
                    types.push(it.ty.clone());
                    lits.push(it.lit || it.is_null_lit());
                }
                let Some(t) = func::common_type(&types, &lits) else {
                    return Err(SqlError::analysis(
                        format!(
                            "No matching signature for operator IN for argument types: {}",
                            types
                                .iter()
                                .map(ToString::to_string)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        *pos,
                    ));
                };
                let x = self.coerce(x, &t)?;
                let items = items
                    .into_iter()
                    .map(|i| self.coerce(i, &t))
                    .collect::<Result<Vec<_>, _>>()?;
                TExpr::new(TKind::In(Box::new(x), items, *negated), T::Bool, *pos)
            }
            Expr::Between {
                expr,
                low,
                high,
                negated,
                pos,
            } => {
                let x = self.expr(expr)?;
                let lo = self.expr(low)?;
                let hi = self.expr(high)?;
                let types = [x.ty.clone(), lo.ty.clone(), hi.ty.clone()];
                let lits = [x.lit, lo.lit, hi.lit];
                let t = func::common_type(&types, &lits)
                    .filter(SqlType::is_orderable)
                    .ok_or_else(|| {
                        SqlError::analysis(
                            format!(
                                "No matching signature for operator BETWEEN for argument types: {}, {}, {}",
                                types[0], types[1], types[2]
                            ),
                            *pos,
                        )
                    })?;
                let x = self.coerce(x, &t)?;
                let lo = self.coerce(lo, &t)?;
                let hi = self.coerce(hi, &t)?;
                TExpr::new(
                    TKind::Between(Box::new(x), Box::new(lo), Box::new(hi), *negated),
                    T::Bool,
                    *pos,
                )
            }
            Expr::Like {
                expr,
                pattern,
                negated,
                pos,
            } => {
                let x = self.expr(expr)?;
                let p = self.expr(pattern)?;
                let (x, p) = self.unify(x, p, "LIKE", *pos)?;
                if !matches!(x.ty, T::String | T::Bytes) {
                    return Err(SqlError::analysis(
                        format!(
                            "No matching signature for operator LIKE for argument types: {}, {}",
                            x.ty, p.ty
                        ),
                        *pos,
                    ));
                }
                let Some(pat) = p.literal() else {
                    return Err(SqlError::analysis(
                        "LIKE needs a literal pattern here",
                        p.pos,
                    ));
                };
                let re = match pat {
                    Value::String(s) => like_regex(s.as_bytes(), true),
                    Value::Bytes(b) => like_regex(b, false),
                    _ => {
                        // LIKE NULL is never true.
                        return Ok(TExpr::lit(Value::Null, T::Bool, *pos));
                    }
                }
                .map_err(|m| SqlError::analysis(m, p.pos))?;
                TExpr::new(
                    TKind::Like(Box::new(x), Box::new(re), *negated),
                    T::Bool,
                    *pos,
                )
            }
            Expr::Call {
                name,
                args,
                star,
                pos,
            } => self.call(name, args, *star, *pos)?,
            Expr::Cast {
                expr,
                to,
                safe,
                pos,
            } => {
                let x = self.expr(expr)?;
                if x.is_null_lit() {
                    return Ok(TExpr::lit(Value::Null, to.ty.clone(), *pos));
                }
                let x = if x.lit && x.ty == T::String && to.ty == T::Bytes {
                    self.coerce(x, &T::Bytes)?
                } else {
                    x
                };
                if !func::castable(&x.ty, &to.ty) {
                    let hint = if x.ty == T::Bytes && to.ty == T::Int64 {
                        "; TO_INT64 reads an 8-byte big-endian INT64, or CAST to STRING first for digits"
                    } else {
                        ""
                    };
                    return Err(SqlError::analysis(
                        format!("Invalid cast from {} to {}{hint}", x.ty, to.ty),
                        *pos,
                    ));
                }
                TExpr::new(
                    TKind::Cast(Box::new(x), to.ty.clone(), *safe),
                    to.ty.clone(),
                    *pos,
                )
            }
            Expr::Case {
                operand,
                whens,
                else_,
                pos,
            } => {
                let op = match operand {
                    Some(o) => Some(self.expr(o)?),
                    None => None,
                };
                let mut tw = Vec::new();
                let mut results = Vec::new();
                for (w, t) in whens {
                    let w = match &op {
                        Some(o) => {
                            let w = self.expr(w)?;
                            let (_, w) = self.unify(o.clone(), w, "CASE", *pos)?;
                            w
                        }
                        None => self.boolean(w, "WHEN")?,
                    };
                    tw.push(w);
                    results.push(self.expr(t)?);
                }
                let el = match else_ {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                let mut types: Vec<SqlType> = results.iter().map(|r| r.ty.clone()).collect();
                let mut lits: Vec<bool> =
                    results.iter().map(|r| r.lit || r.is_null_lit()).collect();
                if let Some(e) = &el {
                    types.push(e.ty.clone());
                    lits.push(e.lit || e.is_null_lit());
                }
                let t = func::common_type(&types, &lits)
                    .ok_or_else(|| SqlError::analysis("CASE results have no common type", *pos))?;
                let op = match op {
                    Some(o) => {
                        let t0 = tw.first().map_or(o.ty.clone(), |w| w.ty.clone());
                        Some(Box::new(self.coerce(o, &t0)?))
                    }
                    None => None,
                };
                let mut pairs = Vec::new();
                for (w, r) in tw.into_iter().zip(results) {
                    pairs.push((w, self.coerce(r, &t)?));
                }
                let el = match el {
                    Some(e) => Some(Box::new(self.coerce(e, &t)?)),
                    None => None,
                };
                TExpr::new(TKind::Case(op, pairs, el), t, *pos)
            }
        })
    }

    fn boolean(&mut self, e: &Expr, what: &str) -> Result<TExpr, Error> {
        let t = self.expr(e)?;
        if t.is_null_lit() {
            return Ok(TExpr::lit(Value::Null, SqlType::Bool, t.pos));
        }
        if t.ty != SqlType::Bool {
            return Err(SqlError::analysis(
                format!("{what} expects BOOL, got {}", t.ty),
                t.pos,
            ));
        }
        Ok(t)
    }

    fn binary(&mut self, op: BinOp, l: &Expr, r: &Expr, pos: Pos) -> Result<TExpr, Error> {
        use SqlType as T;
        match op {
            BinOp::And | BinOp::Or => {
                let a = self.boolean(l, op.symbol())?;
                let b = self.boolean(r, op.symbol())?;
                let kind = if op == BinOp::And {
                    TKind::And(Box::new(a), Box::new(b))
                } else {
                    TKind::Or(Box::new(a), Box::new(b))
                };
                Ok(TExpr::new(kind, T::Bool, pos))
            }
            op if op.is_comparison() => {
                let a = self.expr(l)?;
                let b = self.expr(r)?;
                let (a, b) = self.unify(a, b, op.symbol(), pos)?;
                let ok = match op {
                    BinOp::Eq | BinOp::Ne => !matches!(a.ty, T::Map(..)),
                    _ => a.ty.is_orderable(),
                };
                if !ok {
                    return Err(SqlError::analysis(
                        format!(
                            "No matching signature for operator {} for argument types: {}, {}",
                            op.symbol(),
                            a.ty,
                            b.ty
                        ),
                        pos,
                    ));
                }
                Ok(TExpr::new(
                    TKind::Cmp(op, Box::new(a), Box::new(b)),
                    T::Bool,
                    pos,
                ))
            }
            BinOp::Concat => {
                let a = self.expr(l)?;
                let b = self.expr(r)?;
                let (a, b) = self.unify(a, b, "||", pos)?;
                if !matches!(a.ty, T::String | T::Bytes) {
                    return Err(SqlError::analysis(
                        format!(
                            "No matching signature for operator || for argument types: {}, {}",
                            a.ty, b.ty
                        ),
                        pos,
                    ));
                }
                let ty = a.ty.clone();
                Ok(TExpr::new(
                    TKind::Arith(op, Box::new(a), Box::new(b)),
                    ty,
                    pos,
                ))
            }
            _ => {
                let a = self.expr(l)?;
                let b = self.expr(r)?;
                let (a, b) = self.unify(a, b, op.symbol(), pos)?;
                if !a.ty.is_numeric() {
                    return Err(SqlError::analysis(
                        format!(
                            "No matching signature for operator {} for argument types: {}, {}",
                            op.symbol(),
                            a.ty,
                            b.ty
                        ),
                        pos,
                    ));
                }
                let ty = if op == BinOp::Div {
                    T::Float64
                } else {
                    a.ty.clone()
                };
                let (a, b) = if op == BinOp::Div {
                    (self.coerce(a, &T::Float64)?, self.coerce(b, &T::Float64)?)
                } else {
                    (a, b)
                };
                Ok(TExpr::new(
                    TKind::Arith(op, Box::new(a), Box::new(b)),
                    ty,
                    pos,
                ))
            }
        }
    }

    fn call(&mut self, name: &Ident, args: &[Expr], star: bool, pos: Pos) -> Result<TExpr, Error> {
        let up = name.name.to_ascii_uppercase();
        if AGGREGATES.contains(&up.as_str()) {
            if !self.allow_agg {
                return Err(SqlError::unsupported(
                    format!(
                        "Aggregate function {up} is not supported in queries by GoogleSQL for Bigtable; aggregate with a continuous materialized view (CREATE MATERIALIZED VIEW ... GROUP BY ...)"
                    ),
                    pos,
                ));
            }
            if self.in_agg {
                return Err(SqlError::analysis(
                    "Aggregate function calls cannot be nested",
                    pos,
                ));
            }
            if star {
                if up != "COUNT" {
                    return Err(SqlError::analysis(format!("{up}(*) is not allowed"), pos));
                }
                return Ok(TExpr::new(
                    TKind::Agg(AggKind::CountStar, None),
                    SqlType::Int64,
                    pos,
                ));
            }
            if args.len() != 1 {
                return Err(SqlError::analysis(
                    format!("Aggregate function {up} takes one argument"),
                    pos,
                ));
            }
            self.in_agg = true;
            let arg = self.expr(&args[0]);
            self.in_agg = false;
            let arg = arg?;
            let (kind, ty) = match up.as_str() {
                "COUNT" => (AggKind::Count, SqlType::Int64),
                "SUM" if arg.ty.is_numeric() => (AggKind::Sum, arg.ty.clone()),
                "AVG" if arg.ty.is_numeric() => (AggKind::Avg, SqlType::Float64),
                "MIN" if arg.ty.is_orderable() => (AggKind::Min, arg.ty.clone()),
                "MAX" if arg.ty.is_orderable() => (AggKind::Max, arg.ty.clone()),
                "ANY_VALUE" if !matches!(arg.ty, SqlType::Map(..)) => {
                    (AggKind::AnyValue, arg.ty.clone())
                }
                _ => {
                    let hint = if arg.ty == SqlType::Bytes {
                        "; convert the cell first, as TO_INT64(cf['q']) or CAST(CAST(cf['q'] AS STRING) AS INT64)"
                    } else {
                        ""
                    };
                    return Err(SqlError::analysis(
                        format!(
                            "No matching signature for aggregate function {up} for argument types: {}{hint}",
                            arg.ty
                        ),
                        pos,
                    ));
                }
            };
            return Ok(TExpr::new(TKind::Agg(kind, Some(Box::new(arg))), ty, pos));
        }
        if star {
            return Err(SqlError::analysis(format!("{up}(*) is not allowed"), pos));
        }
        let Some(f) = Func::by_name(&up) else {
            let hint = match up.as_str() {
                "SUBSTRING_INDEX" | "NOW" | "LEN" => "",
                "REGEXP_CONTAINS" | "REGEXP_EXTRACT" => {
                    "; match values with LIKE, or push a value regex filter with ReadRows"
                }
                _ => "",
            };
            return Err(SqlError::analysis(
                format!("Function not found: {}{hint}", name.name),
                pos,
            ));
        };
        let mut targs: Vec<TExpr> = args
            .iter()
            .map(|a| self.expr(a))
            .collect::<Result<_, _>>()?;
        // A NULL literal takes the type of the first typed argument.
        let first_typed = targs
            .iter()
            .find(|a| !a.is_null_lit())
            .map(|a| a.ty.clone());
        if let Some(t) = &first_typed {
            for a in &mut targs {
                if a.is_null_lit() {
                    a.ty = t.clone();
                }
            }
        }
        let types: Vec<SqlType> = targs.iter().map(|a| a.ty.clone()).collect();
        let lits: Vec<bool> = targs.iter().map(|a| a.lit || a.is_null_lit()).collect();
        let (ret, want) = func::signature(f, &types, &lits, pos)?;
        let targs = targs
            .into_iter()
            .zip(want)
            .map(|(a, t)| self.coerce(a, &t))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TExpr::new(TKind::Call(f, targs), ret, pos))
    }
}

/// Translates a LIKE pattern into an anchored regex over bytes.
pub(crate) fn like_regex(pat: &[u8], text: bool) -> Result<regex::bytes::Regex, String> {
    let mut re = String::from("(?s-u)\\A");
    if text {
        re = String::from("(?s)\\A");
    }
    let mut i = 0;
    while i < pat.len() {
        let b = pat[i];
        match b {
            b'%' => re.push_str(".*"),
            b'_' => re.push('.'),
            b'\\' => {
                i += 1;
                let Some(&n) = pat.get(i) else {
                    return Err("LIKE pattern ends with a backslash".into());
                };
                push_lit_byte(&mut re, n, text);
            }
            _ => {
                if text && b >= 0x80 {
                    // Copy the whole UTF-8 sequence as one character.
                    let len = match b {
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let end = (i + len).min(pat.len());
                    let s = String::from_utf8_lossy(&pat[i..end]).into_owned();
                    re.push_str(&regex::escape(&s));
                    i = end;
                    continue;
                }
                push_lit_byte(&mut re, b, text);
            }
        }
        i += 1;
    }
    re.push_str("\\z");
    regex::bytes::Regex::new(&re).map_err(|e| format!("Invalid LIKE pattern: {e}"))
}

fn push_lit_byte(re: &mut String, b: u8, text: bool) {
    if b.is_ascii_alphanumeric() || (text && b >= 0x80) {
        re.push(char::from(b));
    } else {
        re.push_str(&format!("\\x{b:02x}"));
    }
}

// ------------------------------------------------------------ planning

/// The temporal options of a table read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Temporal {
    pub(crate) with_history: bool,
    /// Inclusive start, µs (already rounded to milliseconds).
    pub(crate) start: Option<i64>,
    /// Exclusive end, µs (already rounded to milliseconds).
    pub(crate) end: Option<i64>,
    pub(crate) latest_n: Option<i64>,
    pub(crate) as_of: Option<i64>,
    /// The options as written, for EXPLAIN.
    pub(crate) text: Vec<String>,
}

impl Temporal {
    fn range(&self) -> Option<TimestampRange> {
        if self.start.is_none() && self.end.is_none() {
            return None;
        }
        Some(TimestampRange {
            start_micros: self.start.unwrap_or(0).max(0),
            end_micros: self.end.unwrap_or(0),
        })
    }

    /// Whether the range is empty (nothing can be read).
    fn is_empty(&self) -> bool {
        match (self.start, self.end) {
            (_, Some(e)) if e <= 0 => true,
            (Some(s), Some(e)) => e <= s,
            _ => false,
        }
    }

    fn per_column(&self) -> Option<i32> {
        if self.with_history {
            self.latest_n.map(|n| i32::try_from(n).unwrap_or(i32::MAX))
        } else {
            Some(1)
        }
    }
}

/// The output columns of a plan.
#[derive(Clone, Debug)]
pub(crate) struct Output {
    pub(crate) name: String,
    pub(crate) expr: TExpr,
}

/// How a source is read.
#[derive(Clone, Debug)]
pub(crate) struct ReadPlan {
    pub(crate) source: Source,
    pub(crate) temporal: Temporal,
    pub(crate) request: ReadRowsRequest,
    /// The predicates select no row at all: nothing is read.
    pub(crate) no_rows: bool,
    /// Whether row-key fields must be decoded.
    pub(crate) need_key_fields: bool,
    /// Families whose values rows must carry (by index).
    pub(crate) families: Vec<usize>,
    /// View value columns rows must carry.
    pub(crate) view_cols: bool,
    /// Whether cells may include the row-marker cell.
    pub(crate) has_marker: bool,
}

/// A planned SELECT.
#[derive(Clone, Debug)]
pub(crate) struct SelectPlan {
    /// The read, or the UNPACKed subquery.
    pub(crate) input: Input,
    pub(crate) residual: Option<TExpr>,
    pub(crate) outputs: Vec<Output>,
    pub(crate) order: Vec<(TExpr, bool)>,
    pub(crate) limit: Option<u64>,
    pub(crate) offset: u64,
    /// What became part of the read (row set or filter), in words.
    pub(crate) pushed: Vec<String>,
    /// What is evaluated on the rows the read returns, in words.
    pub(crate) after_read: Vec<String>,
    pub(crate) notes: Vec<String>,
}

/// Where a SELECT's rows come from.
#[derive(Clone, Debug)]
pub(crate) enum Input {
    /// No FROM: one empty row.
    Nothing,
    Read(Box<ReadPlan>),
    Unpack {
        inner: Box<SelectPlan>,
        /// Which inner columns hold a history to expand.
        history: Vec<bool>,
    },
    /// A logical view: its query's rows, as they come.
    LogicalView {
        /// The view's name.
        name: String,
        inner: Box<SelectPlan>,
    },
}

/// The source a table is to a query: its families as columns (and its
/// key fields, when it has a row-key schema).
pub(crate) fn table_source(
    store: &tabletop_store::Instance,
    key_schema: Option<&RowKeySchema>,
    name: &Ident,
    alias: Option<&Ident>,
) -> Result<Source, Error> {
    let alias_name = alias.map_or_else(|| name.name.clone(), |a| a.name.clone());
    let info = store
        .get_table(&name.name)
        .map_err(|_| SqlError::analysis(format!("Table not found: {}", name.name), name.pos))?;
    let families = info
        .schema
        .families
        .iter()
        .map(|(n, f)| {
            let t = match f.value_type {
                ValueType::Aggregate(Aggregator::Sum | Aggregator::Min | Aggregator::Max) => {
                    SqlType::Int64
                }
                _ => SqlType::Bytes,
            };
            (n.clone(), t)
        })
        .collect();
    Ok(Source {
        name: name.name.clone(),
        alias: alias_name,
        kind: SourceKind::Table,
        key_schema: key_schema.cloned(),
        families,
        view_cols: Vec::new(),
        view_order: Vec::new(),
        history: false,
    })
}

/// Evaluates a constant expression (a temporal option's value).
fn constant(e: &Expr, now: i64) -> Result<(Value, SqlType, Pos), Error> {
    let mut a = Analyzer::new(Scope::None);
    let t = a.expr(e)?;
    let empty = super::exec::RowCtx::empty(now);
    let v = super::exec::eval(&t, &empty)?;
    Ok((v, t.ty, t.pos))
}

fn temporal(args: &[(Ident, Expr)], kind: SourceKind, now: i64) -> Result<Temporal, Error> {
    let mut t = Temporal::default();
    if args.is_empty() {
        return Ok(t);
    }
    if kind == SourceKind::View {
        return Err(SqlError::analysis(
            "Temporal filters apply to tables; a materialized view keeps one version of each value",
            args[0].0.pos,
        ));
    }
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut after: Option<(i64, bool)> = None;
    let mut before: Option<(i64, bool)> = None;
    let mut history_pos = None;
    for (name, e) in args {
        let n = name.name.to_ascii_lowercase();
        if !seen.insert(n.clone()) {
            return Err(SqlError::analysis(
                format!("Duplicate argument name: {}", name.name),
                name.pos,
            ));
        }
        let (v, ty, pos) = constant(e, now)?;
        let ts = |v: &Value| -> Result<i64, Error> {
            match v {
                Value::Timestamp(t) => Ok(*t),
                _ => Err(SqlError::analysis(
                    format!("Argument {} must be a TIMESTAMP, got {ty}", name.name),
                    pos,
                )),
            }
        };
        t.text.push(format!("{n} => {}", v.display()));
        match n.as_str() {
            "with_history" => match v {
                Value::Bool(b) => {
                    t.with_history = b;
                    history_pos = Some(name.pos);
                }
                _ => {
                    return Err(SqlError::analysis(
                        format!("Argument with_history must be a BOOL, got {ty}"),
                        pos,
                    ));
                }
            },
            "latest_n" => match v {
                Value::Int64(k) if k >= 1 => t.latest_n = Some(k),
                Value::Int64(_) => {
                    return Err(SqlError::analysis(
                        "Argument latest_n must be greater than or equal to 1",
                        pos,
                    ));
                }
                _ => {
                    return Err(SqlError::analysis(
                        format!("Argument latest_n must be an INT64, got {ty}"),
                        pos,
                    ));
                }
            },
            "after" => after = Some((ts(&v)?, false)),
            "after_or_equal" => after = Some((ts(&v)?, true)),
            "before" => before = Some((ts(&v)?, false)),
            "before_or_equal" => before = Some((ts(&v)?, true)),
            "as_of" => t.as_of = Some(ts(&v)?),
            _ => {
                return Err(SqlError::analysis(
                    format!(
                        "Unknown argument name: {}; temporal filters take with_history, after, after_or_equal, before, before_or_equal, latest_n and as_of",
                        name.name
                    ),
                    name.pos,
                ));
            }
        }
    }
    if seen.contains("after") && seen.contains("after_or_equal")
        || seen.contains("before") && seen.contains("before_or_equal")
    {
        return Err(SqlError::analysis(
            "Give at most one lower and one upper time bound",
            args[0].0.pos,
        ));
    }
    let needs_history = [
        "after",
        "after_or_equal",
        "before",
        "before_or_equal",
        "latest_n",
    ];
    if !t.with_history
        && let Some((name, _)) = args
            .iter()
            .find(|(n, _)| needs_history.contains(&n.name.to_ascii_lowercase().as_str()))
    {
        return Err(SqlError::analysis(
            format!(
                "Argument {} must also include with_history => TRUE",
                name.name
            ),
            name.pos,
        ));
    }
    if t.with_history && t.as_of.is_some() {
        return Err(SqlError::analysis(
            "Argument as_of must not include with_history => TRUE; it returns the latest values as of a time",
            history_pos.unwrap_or(args[0].0.pos),
        ));
    }
    // Cells have millisecond timestamps, so every bound becomes a
    // millisecond boundary, the granularity timestamp-range filters take.
    let floor_ms = |t: i64| t.div_euclid(1_000) * 1_000;
    let ceil_ms = |t: i64| floor_ms(t) + if t.rem_euclid(1_000) == 0 { 0 } else { 1_000 };
    if let Some((a, inclusive)) = after {
        t.start = Some(if inclusive {
            ceil_ms(a)
        } else {
            floor_ms(a).saturating_add(1_000)
        });
    }
    if let Some((b, inclusive)) = before {
        t.end = Some(if inclusive {
            floor_ms(b).saturating_add(1_000)
        } else {
            ceil_ms(b)
        });
    }
    if let Some(a) = t.as_of {
        t.end = Some(floor_ms(a).saturating_add(1_000));
    }
    Ok(t)
}

/// Splits `a AND b AND c` into its conjuncts.
fn conjuncts(e: TExpr, out: &mut Vec<TExpr>) {
    match e.kind {
        TKind::And(a, b) => {
            conjuncts(*a, out);
            conjuncts(*b, out);
        }
        kind => out.push(TExpr { kind, ..e }),
    }
}

fn bytes_lit(e: &TExpr) -> Option<&[u8]> {
    match e.literal() {
        Some(Value::Bytes(b)) => Some(b),
        _ => None,
    }
}

fn single(k: &[u8]) -> KeyRange {
    KeyRange {
        start: k.to_vec(),
        end: Some(successor(k)),
    }
}

fn prefix_range(p: &[u8]) -> KeyRange {
    KeyRange {
        start: p.to_vec(),
        end: prefix_successor(p),
    }
}

/// Sorted, disjoint union of ranges.
fn union(mut v: Vec<KeyRange>) -> Vec<KeyRange> {
    v.retain(|r| r.end.as_ref().is_none_or(|e| *e > r.start));
    v.sort_by(|a, b| a.start.cmp(&b.start));
    let mut out: Vec<KeyRange> = Vec::with_capacity(v.len());
    for r in v {
        if let Some(last) = out.last_mut() {
            let touches = last.end.as_ref().is_none_or(|e| r.start <= *e);
            if touches {
                last.end = match (&last.end, r.end) {
                    (None, _) | (_, None) => None,
                    (Some(a), Some(b)) => Some(if *a >= b { a.clone() } else { b }),
                };
                continue;
            }
        }
        out.push(r);
    }
    out
}

/// Intersection of two sorted, disjoint range lists.
fn intersect(a: &[KeyRange], b: &[KeyRange]) -> Vec<KeyRange> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            let start = if x.start >= y.start {
                x.start.clone()
            } else {
                y.start.clone()
            };
            let end = match (&x.end, &y.end) {
                (None, None) => None,
                (Some(e), None) | (None, Some(e)) => Some(e.clone()),
                (Some(e1), Some(e2)) => Some(if e1 <= e2 { e1.clone() } else { e2.clone() }),
            };
            if end.as_ref().is_none_or(|e| *e > start) {
                out.push(KeyRange { start, end });
            }
        }
    }
    union(out)
}

/// The exact key ranges a predicate on `_key` selects; `None` if it is
/// not a pure key predicate with literal bounds.
fn key_ranges(e: &TExpr) -> Option<Vec<KeyRange>> {
    match &e.kind {
        TKind::Cmp(op, a, b) => {
            let (op, lit) = match (&a.kind, &b.kind) {
                (TKind::Key, _) => (*op, bytes_lit(b)?),
                (_, TKind::Key) => (flip(*op), bytes_lit(a)?),
                _ => return None,
            };
            Some(match op {
                BinOp::Eq => vec![single(lit)],
                BinOp::Lt => vec![KeyRange {
                    start: Vec::new(),
                    end: Some(lit.to_vec()),
                }],
                BinOp::Le => vec![KeyRange {
                    start: Vec::new(),
                    end: Some(successor(lit)),
                }],
                BinOp::Gt => vec![KeyRange {
                    start: successor(lit),
                    end: None,
                }],
                BinOp::Ge => vec![KeyRange {
                    start: lit.to_vec(),
                    end: None,
                }],
                BinOp::Ne => union(vec![
                    KeyRange {
                        start: Vec::new(),
                        end: Some(lit.to_vec()),
                    },
                    KeyRange {
                        start: successor(lit),
                        end: None,
                    },
                ]),
                _ => return None,
            })
        }
        TKind::Between(x, lo, hi, false) if matches!(x.kind, TKind::Key) => {
            let (lo, hi) = (bytes_lit(lo)?, bytes_lit(hi)?);
            Some(union(vec![KeyRange {
                start: lo.to_vec(),
                end: Some(successor(hi)),
            }]))
        }
        TKind::In(x, list, false) if matches!(x.kind, TKind::Key) => {
            let mut v = Vec::new();
            for l in list {
                if l.is_null_lit() {
                    continue;
                }
                v.push(single(bytes_lit(l)?));
            }
            Some(union(v))
        }
        TKind::Call(Func::StartsWith, args)
            if args.len() == 2 && matches!(args[0].kind, TKind::Key) =>
        {
            Some(vec![prefix_range(bytes_lit(&args[1])?)])
        }
        TKind::Like(x, re, false) if matches!(x.kind, TKind::Key) => {
            like_prefix(re.as_str()).map(|(p, exact)| {
                if exact {
                    vec![single(&p)]
                } else {
                    vec![prefix_range(&p)]
                }
            })
        }
        TKind::Or(a, b) => {
            let mut v = key_ranges(a)?;
            v.extend(key_ranges(b)?);
            Some(union(v))
        }
        TKind::And(a, b) => Some(intersect(&key_ranges(a)?, &key_ranges(b)?)),
        _ => None,
    }
}

/// The literal prefix of a LIKE regex built by [`like_regex`] when the
/// pattern is `literal%` (or a plain literal: `exact`).
fn like_prefix(re: &str) -> Option<(Vec<u8>, bool)> {
    let body = re
        .strip_prefix("(?s-u)\\A")
        .or_else(|| re.strip_prefix("(?s)\\A"))?
        .strip_suffix("\\z")?;
    let (lit, exact) = match body.strip_suffix(".*") {
        Some(l) => (l, false),
        None => (body, true),
    };
    let mut out = Vec::new();
    let b = lit.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            let h = std::str::from_utf8(b.get(i + 2..i + 4)?).ok()?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 4;
        } else if b[i].is_ascii_alphanumeric() {
            out.push(b[i]);
            i += 1;
        } else {
            return None;
        }
    }
    Some((out, exact))
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

fn to_key_value(v: &Value) -> Option<KeyValue> {
    match v {
        Value::String(s) => Some(KeyValue::String(s.clone())),
        Value::Bytes(b) => Some(KeyValue::Bytes(b.clone())),
        Value::Int64(i) => Some(KeyValue::Int64(*i)),
        Value::Timestamp(t) => Some(KeyValue::Timestamp(*t)),
        _ => None,
    }
}

/// Candidate values of a key field from one conjunct (`f = lit` or
/// `f IN (lits)`).
fn field_candidates(e: &TExpr) -> Option<(usize, Vec<KeyValue>)> {
    match &e.kind {
        TKind::Cmp(BinOp::Eq, a, b) => match (&a.kind, &b.kind) {
            (TKind::KeyField(i), TKind::Lit(v)) | (TKind::Lit(v), TKind::KeyField(i)) => {
                Some((*i, vec![to_key_value(v)?]))
            }
            _ => None,
        },
        TKind::In(x, list, false) => match x.kind {
            TKind::KeyField(i) => {
                let vals: Option<Vec<KeyValue>> = list
                    .iter()
                    .filter(|l| !l.is_null_lit())
                    .map(|l| l.literal().and_then(to_key_value))
                    .collect();
                Some((i, vals?))
            }
            _ => None,
        },
        _ => None,
    }
}

fn family_regex(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            s.push(c);
        } else {
            s.push('\\');
            s.push(c);
        }
    }
    s
}

fn bytes_regex(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &x in b {
        // Letters, digits and a few punctuation marks are literals in RE2
        // and stay readable; everything else is written as a byte escape.
        if x.is_ascii_alphanumeric() || matches!(x, b'_' | b'#' | b':' | b'-' | b'@' | b'/') {
            out.push(x);
        } else {
            out.extend_from_slice(format!("\\x{x:02x}").as_bytes());
        }
    }
    out
}

fn chain(v: Vec<RowFilter>) -> Option<RowFilter> {
    // Nested chains read as one.
    let mut v: Vec<RowFilter> = v
        .into_iter()
        .flat_map(|f| match f {
            RowFilter::Chain(inner) => inner,
            other => vec![other],
        })
        .collect();
    match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(RowFilter::Chain(v)),
    }
}

fn interleave(mut v: Vec<RowFilter>) -> Option<RowFilter> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(RowFilter::Interleave(v)),
    }
}

/// `cf['q']` with a literal qualifier, in latest-value mode: the family
/// index and the qualifier.
fn column_of(e: &TExpr, src: &Source) -> Option<(usize, Vec<u8>)> {
    if src.history {
        return None;
    }
    match &e.kind {
        TKind::Index {
            base,
            index,
            mode: IndexMode::Plain,
        } => match base.kind {
            TKind::Family(f) if src.families.get(f)?.1 == SqlType::Bytes => {
                Some((f, bytes_lit(index)?.to_vec()))
            }
            _ => None,
        },
        _ => None,
    }
}

/// A filter yielding cells exactly for the rows where the predicate holds
/// (on the latest value of one column), as Bigtable would push it down.
fn pushdown(e: &TExpr, src: &Source, tr: Option<&TimestampRange>) -> Option<RowFilter> {
    let column_chain = |f: usize, q: &[u8], tail: Vec<RowFilter>| -> RowFilter {
        let mut v = vec![
            RowFilter::FamilyNameRegex(family_regex(&src.families[f].0)),
            RowFilter::ColumnQualifierRegex(bytes_regex(q)),
        ];
        if let Some(r) = tr {
            v.push(RowFilter::TimestampRange(*r));
        }
        v.push(RowFilter::CellsPerColumnLimit(1));
        v.extend(tail);
        RowFilter::Chain(v)
    };
    let range = |start: KeyBound, end: KeyBound| RowFilter::ValueRange { start, end };
    match &e.kind {
        TKind::Cmp(op, a, b) => {
            let (op, (f, q), v) = match (column_of(a, src), column_of(b, src)) {
                (Some(c), None) => (*op, c, bytes_lit(b)?),
                (None, Some(c)) => (flip(*op), c, bytes_lit(a)?),
                _ => return None,
            };
            let v = v.to_vec();
            let cond = match op {
                BinOp::Eq => range(KeyBound::Closed(v.clone()), KeyBound::Closed(v)),
                BinOp::Lt => range(KeyBound::Unbounded, KeyBound::Open(v)),
                BinOp::Le => range(KeyBound::Unbounded, KeyBound::Closed(v)),
                BinOp::Gt => range(KeyBound::Open(v), KeyBound::Unbounded),
                BinOp::Ge => range(KeyBound::Closed(v), KeyBound::Unbounded),
                BinOp::Ne => RowFilter::Interleave(vec![
                    range(KeyBound::Unbounded, KeyBound::Open(v.clone())),
                    range(KeyBound::Open(v), KeyBound::Unbounded),
                ]),
                _ => return None,
            };
            Some(column_chain(f, &q, vec![cond]))
        }
        TKind::IsNull(x, true) => {
            let (f, q) = column_of(x, src)?;
            Some(column_chain(f, &q, vec![]))
        }
        TKind::Call(Func::MapContainsKey, args) if !src.history => {
            let TKind::Family(f) = args.first()?.kind else {
                return None;
            };
            let q = bytes_lit(args.get(1)?)?;
            Some(column_chain(f, q, vec![]))
        }
        TKind::In(x, list, false) => {
            let (f, q) = column_of(x, src)?;
            let mut alts = Vec::new();
            for l in list {
                if l.is_null_lit() {
                    continue;
                }
                let v = bytes_lit(l)?.to_vec();
                alts.push(range(KeyBound::Closed(v.clone()), KeyBound::Closed(v)));
            }
            if alts.is_empty() {
                return Some(RowFilter::BlockAll);
            }
            Some(column_chain(f, &q, vec![interleave(alts)?]))
        }
        TKind::Like(x, re, false) => {
            let (f, q) = column_of(x, src)?;
            let (p, exact) = like_prefix(re.as_str())?;
            let mut pat = bytes_regex(&p);
            if !exact {
                pat.extend_from_slice(b"\\C*");
            }
            Some(column_chain(f, &q, vec![RowFilter::ValueRegex(pat)]))
        }
        TKind::Or(a, b) => Some(RowFilter::Interleave(vec![
            pushdown(a, src, tr)?,
            pushdown(b, src, tr)?,
        ])),
        _ => None,
    }
}

/// A short rendering of a predicate for EXPLAIN.
pub(crate) fn describe(e: &TExpr, src: Option<&Source>) -> String {
    super::explain::expr_text(e, src)
}

/// Most logical views one query may read through, one inside the other.
pub(crate) const MAX_VIEW_DEPTH: usize = 16;

/// Plans a SELECT (not a view definition).
pub(crate) fn plan_query<D: Tables + ?Sized>(db: &D, q: &Query) -> Result<SelectPlan, Error> {
    plan_query_in(db, q, &mut Vec::new())
}

/// Plans the query of logical view `name` (`text`), as a query reading
/// the view would: a view reading itself, directly or through others, is
/// refused.
pub(crate) fn plan_logical_view<D: Tables + ?Sized>(
    db: &D,
    name: &str,
    text: &str,
) -> Result<SelectPlan, Error> {
    let mut expanding = vec![name.to_string()];
    view_query_plan(db, name, text, &mut expanding)
}

/// The plan of a view's query text, with `expanding` the views being
/// planned around it (the view itself last).
fn view_query_plan<D: Tables + ?Sized>(
    db: &D,
    name: &str,
    text: &str,
    expanding: &mut Vec<String>,
) -> Result<SelectPlan, Error> {
    match super::parse::parse_statement(text)? {
        super::parse::Statement::Query(q) => plan_query_in(db, &q, expanding),
        _ => Err(Error::invalid(format!(
            "the query of logical view {name} must be a SELECT"
        ))),
    }
}

/// Plans a FROM that names logical view `name` (whose query is `text`).
fn plan_view_read<D: Tables + ?Sized>(
    db: &D,
    name: &Ident,
    text: &str,
    expanding: &mut Vec<String>,
) -> Result<SelectPlan, Error> {
    if expanding.iter().any(|v| v == &name.name) {
        let mut path = expanding.clone();
        path.push(name.name.clone());
        return Err(SqlError::analysis(
            format!(
                "logical view {} reads itself: {}",
                name.name,
                path.join(" -> ")
            ),
            name.pos,
        ));
    }
    if expanding.len() >= MAX_VIEW_DEPTH {
        return Err(SqlError::analysis(
            format!(
                "logical view {} is nested more than {MAX_VIEW_DEPTH} views deep",
                name.name
            ),
            name.pos,
        ));
    }
    expanding.push(name.name.clone());
    let planned = view_query_plan(db, &name.name, text, expanding);
    expanding.pop();
    planned.map_err(|e| in_view(&e, name))
}

/// An error inside a logical view's query, said as the reader's: it names
/// the view, keeps the position inside the view's query in words, and
/// points at the view's name in the statement.
fn in_view(e: &Error, name: &Ident) -> Error {
    let msg = e.message();
    let (what, inner_at) = match msg.rfind(" [at ") {
        Some(i) if msg.ends_with(']') => (&msg[..i], Some(&msg[i + 5..msg.len() - 1])),
        _ => (msg, None),
    };
    let where_ = inner_at.map_or_else(String::new, |p| format!(" (at {p} of its query)"));
    Error::new(
        e.code(),
        format!(
            "in logical view {}: {what}{where_} [at {}]",
            name.name, name.pos
        ),
    )
}

fn plan_query_in<D: Tables + ?Sized>(
    db: &D,
    q: &Query,
    expanding: &mut Vec<String>,
) -> Result<SelectPlan, Error> {
    if !q.group_by.is_empty() {
        return Err(SqlError::unsupported(
            "GROUP BY is not supported in queries by GoogleSQL for Bigtable; aggregate with a continuous materialized view (CREATE MATERIALIZED VIEW ... GROUP BY ...)",
            q.group_by[0].pos(),
        ));
    }
    let now = db.now_micros();
    match &q.from {
        None => plan_over(q, Input::Nothing, Scope::None, None),
        Some(FromItem::Table { name, args, alias })
            if db.logical_view_query(&name.name).is_some() =>
        {
            if let Some((arg, _)) = args.first() {
                return Err(SqlError::analysis(
                    format!(
                        "Temporal filters apply to tables; {} is a logical view",
                        name.name
                    ),
                    arg.pos,
                ));
            }
            let text = db.logical_view_query(&name.name).unwrap_or_default();
            let inner = plan_view_read(db, name, &text, expanding)?;
            let columns: Vec<(String, SqlType)> = inner
                .outputs
                .iter()
                .map(|o| (o.name.clone(), o.expr.ty.clone()))
                .collect();
            let alias_name = alias.as_ref().map_or(&name.name, |a| &a.name).clone();
            let input = Input::LogicalView {
                name: name.name.clone(),
                inner: Box::new(inner),
            };
            plan_over(
                q,
                input,
                Scope::Unpack {
                    columns: &columns,
                    alias: Some(&alias_name),
                    unpacked: false,
                },
                None,
            )
        }
        Some(FromItem::Table { name, args, alias }) => {
            let mut src = db.source(name, alias.as_ref())?;
            let temporal = temporal(args, src.kind, now)?;
            src.history = temporal.with_history;
            let read = ReadPlan {
                source: src,
                temporal,
                request: ReadRowsRequest::default(),
                no_rows: false,
                need_key_fields: false,
                families: Vec::new(),
                view_cols: false,
                has_marker: false,
            };
            plan_read(q, read)
        }
        Some(FromItem::Unpack { query, alias, pos }) => {
            let inner = plan_query_in(db, query, expanding)?;
            let history: Vec<bool> = inner
                .outputs
                .iter()
                .map(|o| is_history_type(&o.expr.ty))
                .collect();
            if !history.iter().any(|h| *h) {
                return Err(SqlError::analysis(
                    "UNPACK expands columns read with_history => TRUE; the subquery selects none",
                    *pos,
                ));
            }
            let columns: Vec<(String, SqlType)> = inner
                .outputs
                .iter()
                .zip(&history)
                .map(|(o, h)| {
                    (
                        o.name.clone(),
                        if *h {
                            unpacked_type(&o.expr.ty)
                        } else {
                            o.expr.ty.clone()
                        },
                    )
                })
                .collect();
            let input = Input::Unpack {
                inner: Box::new(inner),
                history,
            };
            let alias_name = alias.as_ref().map(|a| a.name.clone());
            plan_over(
                q,
                input,
                Scope::Unpack {
                    columns: &columns,
                    alias: alias_name.as_deref(),
                    unpacked: true,
                },
                None,
            )
        }
    }
}

fn is_history_type(t: &SqlType) -> bool {
    match t {
        SqlType::Array(inner) => {
            matches!(&**inner, SqlType::Struct(f) if f.len() == 2 && f[0].0 == "timestamp" && f[0].1 == SqlType::Timestamp)
        }
        SqlType::Map(_, v) => is_history_type(v),
        _ => false,
    }
}

/// The type of a history column once UNPACK expands it: the value (or a
/// map of values).
fn unpacked_type(t: &SqlType) -> SqlType {
    match t {
        SqlType::Array(inner) => match &**inner {
            SqlType::Struct(f) if f.len() == 2 => f[1].1.clone(),
            other => other.clone(),
        },
        SqlType::Map(k, v) => SqlType::Map(k.clone(), Box::new(unpacked_type(v))),
        other => other.clone(),
    }
}

/// Expands the select list and resolves WHERE, ORDER BY and LIMIT over a
/// scope.
fn plan_over(
    q: &Query,
    input: Input,
    scope: Scope<'_>,
    src: Option<&Source>,
) -> Result<SelectPlan, Error> {
    let mut a = Analyzer::new(scope);
    let mut outputs = Vec::new();
    for item in &q.select {
        match item {
            SelectItem::Star { pos } => match scope {
                Scope::None => {
                    return Err(SqlError::analysis("SELECT * must have a FROM clause", *pos));
                }
                Scope::Source(s) => {
                    for (name, kind, ty) in star_columns(s) {
                        outputs.push(Output {
                            name,
                            expr: TExpr::new(kind, ty, *pos),
                        });
                    }
                }
                Scope::Unpack {
                    columns, unpacked, ..
                } => {
                    for (i, (n, t)) in columns.iter().enumerate() {
                        outputs.push(Output {
                            name: n.clone(),
                            expr: TExpr::new(TKind::Column(i), t.clone(), *pos),
                        });
                    }
                    if unpacked {
                        outputs.push(Output {
                            name: "_timestamp".into(),
                            expr: TExpr::new(TKind::UnpackTimestamp, SqlType::Timestamp, *pos),
                        });
                    }
                }
            },
            SelectItem::Expr { expr, alias } => {
                let t = a.expr(expr)?;
                let name = match alias {
                    Some(al) => al.name.clone(),
                    None => implicit_name(expr),
                };
                outputs.push(Output { name, expr: t });
            }
        }
    }
    // Unnamed columns are numbered by position, as GoogleSQL does.
    for (i, o) in outputs.iter_mut().enumerate() {
        if o.name.is_empty() {
            o.name = format!("$col{}", i + 1);
        }
    }
    let residual = match &q.where_ {
        Some(w) => Some(a.boolean(w, "WHERE")?),
        None => None,
    };
    let mut order = Vec::new();
    for item in &q.order_by {
        let t = match &item.expr {
            Expr::Int(i, p) => {
                let idx = usize::try_from(*i)
                    .ok()
                    .filter(|&i| i >= 1 && i <= outputs.len());
                match idx {
                    Some(i) => outputs[i - 1].expr.clone(),
                    None => {
                        return Err(SqlError::analysis(
                            format!("ORDER BY column number {i} is out of range"),
                            *p,
                        ));
                    }
                }
            }
            Expr::Ident(id)
                if a.resolve_name(id).is_none()
                    && outputs
                        .iter()
                        .any(|o| o.name.eq_ignore_ascii_case(&id.name)) =>
            {
                outputs
                    .iter()
                    .find(|o| o.name.eq_ignore_ascii_case(&id.name))
                    .map(|o| o.expr.clone())
                    .unwrap_or_else(|| TExpr::lit(Value::Null, SqlType::Int64, id.pos))
            }
            e => a.expr(e)?,
        };
        if !t.ty.is_orderable() {
            return Err(SqlError::analysis(
                format!("ORDER BY does not support expressions of type {}", t.ty),
                t.pos,
            ));
        }
        order.push((t, item.desc));
    }
    let mut after_read = Vec::new();
    if let Scope::Unpack {
        columns, unpacked, ..
    } = scope
    {
        let layer = if unpacked {
            "UNPACK"
        } else {
            "the logical view"
        };
        if let Some(r) = &residual {
            after_read.push(format!(
                "WHERE {}",
                super::explain::expr_text_with(r, None, columns)
            ));
        }
        if !order.is_empty() {
            after_read.push(format!("ORDER BY: rows sorted after {layer}"));
        }
        if let Some((l, _)) = q.limit {
            after_read.push(format!("LIMIT {l} after {layer}"));
        }
    }
    let mut notes = Vec::new();
    if let Some(s) = src
        && s.key_schema.is_some()
        && s.kind == SourceKind::Table
    {
        notes.push(
            "the table has a row key schema: its fields are columns, _key is a pseudo-column"
                .into(),
        );
    }
    Ok(SelectPlan {
        input,
        residual,
        outputs,
        order,
        limit: q.limit.map(|(n, _)| n),
        offset: q.offset.map_or(0, |(n, _)| n),
        pushed: Vec::new(),
        after_read,
        notes,
    })
}

/// What `SELECT *` returns for a source.
fn star_columns(s: &Source) -> Vec<(String, TKind, SqlType)> {
    let mut out = Vec::new();
    if s.kind == SourceKind::View {
        for c in &s.view_order {
            match c {
                ColRef::RawKey => out.push(("_key".to_string(), TKind::Key, SqlType::Bytes)),
                ColRef::KeyField(i) => {
                    if let Some(ks) = &s.key_schema {
                        let f = &ks.fields[*i];
                        let ty = field_sql_type(f.field_type.sql_type_name());
                        out.push((f.name.clone(), TKind::KeyField(*i), ty));
                    }
                }
                ColRef::Value(i) => {
                    let (n, t) = &s.view_cols[*i];
                    out.push((n.clone(), TKind::ViewCol(*i), t.clone()));
                }
            }
        }
        return out;
    }
    match &s.key_schema {
        None => out.push(("_key".to_string(), TKind::Key, SqlType::Bytes)),
        Some(ks) => {
            for (i, f) in ks.fields.iter().enumerate() {
                out.push((
                    f.name.clone(),
                    TKind::KeyField(i),
                    field_sql_type(f.field_type.sql_type_name()),
                ));
            }
        }
    }
    for (i, (n, _)) in s.families.iter().enumerate() {
        out.push((n.clone(), TKind::Family(i), s.family_type(i)));
    }
    out
}

pub(crate) fn field_sql_type(name: &str) -> SqlType {
    match name {
        "STRING" => SqlType::String,
        "BYTES" => SqlType::Bytes,
        "INT64" => SqlType::Int64,
        _ => SqlType::Timestamp,
    }
}

/// The column name GoogleSQL gives an unaliased expression: the column or
/// field name, else `$colN` (numbered by the caller).
fn implicit_name(e: &Expr) -> String {
    match e {
        Expr::Ident(i) => i.name.clone(),
        Expr::Field(_, f) => f.name.clone(),
        Expr::Index { base, index, .. } => match (base.as_ref(), index.as_ref()) {
            (_, Expr::Str(s, _)) => s.clone(),
            (_, Expr::Bytes(b, _)) => String::from_utf8_lossy(b).into_owned(),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

/// Plans a query over a table or view: the read request and the rest.
fn plan_read(q: &Query, mut read: ReadPlan) -> Result<SelectPlan, Error> {
    let src = read.source.clone();
    let mut plan = plan_over(q, Input::Nothing, Scope::Source(&src), Some(&src))?;
    let tr = read.temporal.range();
    if read.temporal.is_empty() {
        read.no_rows = true;
        plan.notes
            .push("the time bounds select no cell; nothing is read".into());
    }
    for t in &read.temporal.text {
        plan.pushed.push(format!("temporal option {t}"));
    }
    // What the query uses.
    let mut whole: BTreeSet<usize> = BTreeSet::new();
    let mut quals: BTreeMap<usize, BTreeSet<Vec<u8>>> = BTreeMap::new();
    let mut uses_key_fields = false;
    let mut uses_view_cols = false;
    {
        let mut note = |e: &TExpr| {
            e.walk(&mut |x| match &x.kind {
                TKind::KeyField(_) => uses_key_fields = true,
                TKind::ViewCol(_) => uses_view_cols = true,
                _ => {}
            });
            collect_families(e, &mut whole, &mut quals);
        };
        for o in &plan.outputs {
            note(&o.expr);
        }
        if let Some(r) = &plan.residual {
            note(r);
        }
        for (o, _) in &plan.order {
            note(o);
        }
    }
    read.need_key_fields = uses_key_fields;
    read.view_cols = uses_view_cols || src.kind == SourceKind::View;
    let mut families: BTreeSet<usize> = whole.clone();
    families.extend(quals.keys().copied());
    read.families = families.into_iter().collect();

    // Row set from the key predicates; filter from value predicates.
    let mut ranges: Option<Vec<KeyRange>> = None;
    let mut residual_parts = Vec::new();
    let mut conditions: Vec<RowFilter> = Vec::new();
    let mut field_vals: BTreeMap<usize, Vec<KeyValue>> = BTreeMap::new();
    if let Some(w) = plan.residual.take() {
        let mut parts = Vec::new();
        conjuncts(w, &mut parts);
        for p in parts {
            if let Some(r) = key_ranges(&p) {
                plan.pushed
                    .push(format!("row set: {}", describe(&p, Some(&src))));
                ranges = Some(match ranges {
                    None => r,
                    Some(prev) => intersect(&prev, &r),
                });
                continue;
            }
            if src.kind == SourceKind::Table
                && let Some(f) = pushdown(&p, &src, tr.as_ref())
            {
                plan.pushed
                    .push(format!("filter condition: {}", describe(&p, Some(&src))));
                conditions.push(f);
                continue;
            }
            if let Some((i, vals)) = field_candidates(&p) {
                let entry = field_vals.entry(i).or_insert_with(|| vals.clone());
                entry.retain(|v| vals.contains(v));
            }
            residual_parts.push(p);
        }
    }
    // Key prefixes from the leading fields of the row-key schema.
    if let Some(ks) = &src.key_schema {
        let mut lead: Vec<Vec<KeyValue>> = Vec::new();
        for i in 0..ks.fields.len() {
            match field_vals.get(&i) {
                Some(v) => lead.push(v.clone()),
                None => break,
            }
        }
        if !lead.is_empty() {
            let mut combos: Vec<Vec<KeyValue>> = vec![Vec::new()];
            let mut ok = true;
            for vals in &lead {
                let mut next = Vec::new();
                for c in &combos {
                    for v in vals {
                        let mut c2 = c.clone();
                        c2.push(v.clone());
                        next.push(c2);
                    }
                }
                combos = next;
                if combos.len() > MAX_PREFIXES {
                    ok = false;
                    break;
                }
            }
            if ok {
                let mut prefixes = Vec::new();
                for c in &combos {
                    match ks.encode_prefix(c) {
                        Ok(p) if c.len() == ks.fields.len() => prefixes.push(single(&p)),
                        Ok(p) => prefixes.push(prefix_range(&p)),
                        // A value no conforming key can hold: it matches
                        // nothing, but is left to the check after the read.
                        Err(_) => {}
                    }
                }
                let r = union(prefixes);
                let names: Vec<&str> = ks.fields[..lead.len()]
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect();
                plan.pushed.push(format!(
                    "row set: key prefix from the row key fields {} (checked again after the read)",
                    names.join(", ")
                ));
                ranges = Some(match ranges {
                    None => r,
                    Some(prev) => intersect(&prev, &r),
                });
            }
        } else if !field_vals.is_empty() {
            let first = &ks.fields[0].name;
            plan.notes.push(format!(
                "predicates on row key fields help only from the first field ({first}) on; without it the whole table is scanned"
            ));
        }
    }
    if let Some(r) = &ranges
        && r.is_empty()
    {
        read.no_rows = true;
        plan.notes
            .push("the key predicates select no row; nothing is read".into());
    }
    let rows = match &ranges {
        None => RowSet::all(),
        Some(r) => range_set(r),
    };
    for p in &residual_parts {
        plan.after_read.push(describe(p, Some(&src)));
    }
    plan.residual = residual_parts.into_iter().reduce(|a, b| {
        let pos = a.pos;
        TExpr::new(TKind::And(Box::new(a), Box::new(b)), SqlType::Bool, pos)
    });

    // The projection: only the families and columns used, the temporal
    // options, and a marker so rows without those columns still appear.
    let mut filter = None;
    if src.kind == SourceKind::Table {
        let mut time = Vec::new();
        if let Some(r) = tr {
            time.push(RowFilter::TimestampRange(r));
        }
        let per_col = read.temporal.per_column();
        let everything = whole.len() == src.families.len() && !src.families.is_empty();
        let mut data = Vec::new();
        if everything {
            data.extend(time.clone());
            if let Some(n) = per_col {
                data.push(RowFilter::CellsPerColumnLimit(n));
            }
        } else {
            let mut sel = Vec::new();
            for &f in &whole {
                sel.push(RowFilter::FamilyNameRegex(family_regex(&src.families[f].0)));
            }
            for (f, qs) in &quals {
                if whole.contains(f) {
                    continue;
                }
                let alts: Vec<Vec<u8>> = qs.iter().map(|q| bytes_regex(q)).collect();
                sel.push(RowFilter::Chain(vec![
                    RowFilter::FamilyNameRegex(family_regex(&src.families[*f].0)),
                    RowFilter::ColumnQualifierRegex(alts.join(&b"|"[..])),
                ]));
            }
            let mut marker = time.clone();
            marker.push(RowFilter::CellsPerRowLimit(1));
            marker.push(RowFilter::StripValue);
            if sel.is_empty() {
                data = marker;
            } else {
                let mut d = vec![interleave(sel).unwrap_or(RowFilter::PassAll)];
                d.extend(time.clone());
                if let Some(n) = per_col {
                    d.push(RowFilter::CellsPerColumnLimit(n));
                }
                marker.push(RowFilter::ApplyLabel(ROW_MARKER_LABEL.into()));
                read.has_marker = true;
                data = vec![RowFilter::Interleave(vec![
                    chain(d).unwrap_or(RowFilter::PassAll),
                    RowFilter::Chain(marker),
                ])];
            }
        }
        let mut f = chain(data);
        for c in conditions.into_iter().rev() {
            f = Some(RowFilter::Condition {
                predicate: Box::new(c),
                true_filter: Some(Box::new(f.unwrap_or(RowFilter::PassAll))),
                false_filter: None,
            });
        }
        filter = f;
    }
    // ORDER BY _key [DESC] is the read order; LIMIT goes to the read when
    // nothing else decides which rows come back.
    let mut reversed = false;
    let key_order = matches!(plan.order.as_slice(), [(e, _)] if matches!(e.kind, TKind::Key));
    if key_order {
        reversed = plan.order[0].1;
        plan.pushed.push(format!(
            "ORDER BY _key{} as a {} read",
            if reversed { " DESC" } else { "" },
            if reversed { "reversed" } else { "forward" }
        ));
        plan.order.clear();
    } else if !plan.order.is_empty() {
        plan.after_read
            .push("ORDER BY: rows sorted after the read".into());
    }
    let mut rows_limit = 0;
    if let Some(l) = plan.limit
        && plan.residual.is_none()
        && plan.order.is_empty()
    {
        rows_limit = i64::try_from(l.saturating_add(plan.offset)).unwrap_or(i64::MAX);
        if rows_limit > 0 {
            plan.pushed
                .push(format!("LIMIT {l} as rows_limit {rows_limit}"));
        } else {
            read.no_rows = true;
        }
    } else if let Some(l) = plan.limit {
        plan.after_read.push(format!("LIMIT {l} after the read"));
    }
    read.request = ReadRowsRequest {
        rows,
        filter,
        rows_limit,
        reversed,
    };
    plan.input = Input::Read(Box::new(read));
    Ok(plan)
}

/// A range list as a RowSet (single keys as keys).
pub(crate) fn range_set(ranges: &[KeyRange]) -> RowSet {
    if ranges.len() == 1 && ranges[0].start.is_empty() && ranges[0].end.is_none() {
        return RowSet::all();
    }
    let mut set = RowSet::default();
    for r in ranges {
        if r.is_single_key() {
            set.row_keys.push(r.start.clone());
        } else {
            set.row_ranges.push(RowRange {
                start: if r.start.is_empty() {
                    KeyBound::Unbounded
                } else {
                    KeyBound::Closed(r.start.clone())
                },
                end: match &r.end {
                    Some(e) => KeyBound::Open(e.clone()),
                    None => KeyBound::Unbounded,
                },
            });
        }
    }
    set
}

/// Families an expression uses: wholly, or only at literal qualifiers.
fn collect_families(
    e: &TExpr,
    whole: &mut BTreeSet<usize>,
    quals: &mut BTreeMap<usize, BTreeSet<Vec<u8>>>,
) {
    match &e.kind {
        TKind::Family(f) => {
            whole.insert(*f);
        }
        TKind::Index {
            base,
            index,
            mode: IndexMode::Plain,
        } if matches!(base.kind, TKind::Family(_)) => {
            let TKind::Family(f) = base.kind else { return };
            match bytes_lit(index) {
                Some(q) => {
                    quals.entry(f).or_default().insert(q.to_vec());
                }
                None => {
                    whole.insert(f);
                    collect_families(index, whole, quals);
                }
            }
        }
        TKind::Call(Func::MapContainsKey, args)
            if args.len() == 2
                && matches!(args[0].kind, TKind::Family(_))
                && bytes_lit(&args[1]).is_some() =>
        {
            if let (TKind::Family(f), Some(q)) = (&args[0].kind, bytes_lit(&args[1])) {
                quals.entry(*f).or_default().insert(q.to_vec());
            }
        }
        _ => {
            for k in direct_children(e) {
                collect_families(k, whole, quals);
            }
        }
    }
}

/// The operands of `e`, in the order they are written.
fn direct_children(e: &TExpr) -> Vec<&TExpr> {
    match &e.kind {
        TKind::Index { base, index, .. } => vec![base, index],
        TKind::Field { base, .. } => vec![base],
        TKind::Neg(x) | TKind::Not(x) | TKind::IsNull(x, _) | TKind::IsBool(x, ..) => vec![x],
        TKind::Like(x, ..) | TKind::Cast(x, ..) => vec![x],
        TKind::And(a, b) | TKind::Or(a, b) | TKind::Cmp(_, a, b) | TKind::Arith(_, a, b) => {
            vec![a, b]
        }
        TKind::In(x, l, _) => {
            let mut v: Vec<&TExpr> = vec![x];
            v.extend(l.iter());
            v
        }
        TKind::Between(a, b, c, _) => vec![a, b, c],
        TKind::Call(_, args) => args.iter().collect(),
        TKind::Case(op, whens, el) => {
            let mut v: Vec<&TExpr> = Vec::new();
            if let Some(o) = op {
                v.push(o);
            }
            for (a, b) in whens {
                v.push(a);
                v.push(b);
            }
            if let Some(x) = el {
                v.push(x);
            }
            v
        }
        TKind::Agg(_, Some(a)) => vec![a],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn like_prefixes_are_recognised() {
        let re = like_regex(b"phone#%", false).unwrap();
        assert_eq!(like_prefix(re.as_str()), Some((b"phone#".to_vec(), false)));
        let re = like_regex(b"a_b%", false).unwrap();
        assert_eq!(like_prefix(re.as_str()), None);
        let re = like_regex(b"abc", true).unwrap();
        assert_eq!(like_prefix(re.as_str()), Some((b"abc".to_vec(), true)));
    }

    #[test]
    fn ranges_union_and_intersect() {
        let r = |a: &[u8], b: Option<&[u8]>| KeyRange {
            start: a.to_vec(),
            end: b.map(<[u8]>::to_vec),
        };
        let u = union(vec![
            r(b"a", Some(b"c")),
            r(b"b", Some(b"d")),
            r(b"x", None),
        ]);
        assert_eq!(u, vec![r(b"a", Some(b"d")), r(b"x", None)]);
        let i = intersect(&u, &[r(b"c", Some(b"y"))]);
        assert_eq!(i, vec![r(b"c", Some(b"d")), r(b"x", Some(b"y"))]);
    }
}
