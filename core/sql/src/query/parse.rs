//! The parser: tokens to statements. It reads the GoogleSQL subset the
//! playground runs (see the grammar in `sql.rs`) and refuses, with a
//! sentence, what GoogleSQL for Bigtable does not run: joins, set
//! operations, subqueries, DML, DDL other than the playground's own
//! statements, window functions.

use super::SqlError;
use super::lex::{Pos, Tok, Token, is_reserved, tokenize};
use crate::key_schema::{FieldType, IntEncoding, KeyField, RowKeySchema, StructEncoding};
use tabletop_store::Error;
use tabletop_store::TimeUnit;

/// Deepest expression nesting accepted (keeps recursion bounded).
const MAX_DEPTH: usize = 64;

/// A name as written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ident {
    pub(crate) name: String,
    pub(crate) pos: Pos,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Statement {
    Query(Query),
    Explain(Query),
    CreateView {
        name: Ident,
        query: Query,
        /// The text of the defining query.
        query_text: String,
        /// Where the defining query starts in the statement.
        query_pos: Pos,
    },
    DropView {
        name: Ident,
        if_exists: bool,
    },
    SetRowKeySchema {
        table: Ident,
        schema: RowKeySchema,
    },
    DropRowKeySchema {
        table: Ident,
    },
    ShowViews,
}

/// A SELECT.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Query {
    pub(crate) select: Vec<SelectItem>,
    pub(crate) from: Option<FromItem>,
    pub(crate) where_: Option<Expr>,
    pub(crate) group_by: Vec<Expr>,
    pub(crate) order_by: Vec<OrderItem>,
    pub(crate) limit: Option<(u64, Pos)>,
    pub(crate) offset: Option<(u64, Pos)>,
    pub(crate) pos: Pos,
}

/// One item of the select list.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SelectItem {
    Star { pos: Pos },
    Expr { expr: Expr, alias: Option<Ident> },
}

/// What a query reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FromItem {
    Table {
        name: Ident,
        args: Vec<(Ident, Expr)>,
        alias: Option<Ident>,
    },
    Unpack {
        query: Box<Query>,
        alias: Option<Ident>,
        pos: Pos,
    },
}

/// One ORDER BY item.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OrderItem {
    pub(crate) expr: Expr,
    pub(crate) desc: bool,
}

/// How an array or map is subscripted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IndexMode {
    /// `x[e]`: a map key, or an array offset.
    Plain,
    Offset,
    SafeOffset,
    Ordinal,
    SafeOrdinal,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Add,
    Sub,
    Mul,
    Div,
    Concat,
}

impl BinOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Eq => "=",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "AND",
            BinOp::Or => "OR",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Concat => "||",
        }
    }

    pub(crate) fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

/// A type in CAST.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TypeName {
    pub(crate) ty: super::value::SqlType,
    pub(crate) pos: Pos,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    Null(Pos),
    Bool(bool, Pos),
    Int(i64, Pos),
    Float(f64, Pos),
    Str(String, Pos),
    Bytes(Vec<u8>, Pos),
    Timestamp(String, Pos),
    Ident(Ident),
    Field(Box<Expr>, Ident),
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
        mode: IndexMode,
        pos: Pos,
    },
    Neg(Box<Expr>, Pos),
    Not(Box<Expr>, Pos),
    Binary {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
        pos: Pos,
    },
    IsNull {
        expr: Box<Expr>,
        negated: bool,
        pos: Pos,
    },
    IsBool {
        expr: Box<Expr>,
        value: bool,
        negated: bool,
        pos: Pos,
    },
    In {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
        pos: Pos,
    },
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
        pos: Pos,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
        pos: Pos,
    },
    Call {
        name: Ident,
        args: Vec<Expr>,
        star: bool,
        pos: Pos,
    },
    Cast {
        expr: Box<Expr>,
        to: TypeName,
        safe: bool,
        pos: Pos,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        else_: Option<Box<Expr>>,
        pos: Pos,
    },
}

impl Expr {
    /// `left op right`, at the operator's position.
    fn binary(op: BinOp, left: Expr, right: Expr, pos: Pos) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
            pos,
        }
    }

    pub(crate) fn pos(&self) -> Pos {
        match self {
            Expr::Null(p)
            | Expr::Bool(_, p)
            | Expr::Int(_, p)
            | Expr::Float(_, p)
            | Expr::Str(_, p)
            | Expr::Bytes(_, p)
            | Expr::Timestamp(_, p)
            | Expr::Neg(_, p)
            | Expr::Not(_, p) => *p,
            Expr::Ident(i) => i.pos,
            Expr::Field(base, _) => base.pos(),
            Expr::Index { pos, .. }
            | Expr::Binary { pos, .. }
            | Expr::IsNull { pos, .. }
            | Expr::IsBool { pos, .. }
            | Expr::In { pos, .. }
            | Expr::Between { pos, .. }
            | Expr::Like { pos, .. }
            | Expr::Call { pos, .. }
            | Expr::Cast { pos, .. }
            | Expr::Case { pos, .. } => *pos,
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    toks: Vec<Token>,
    i: usize,
    depth: usize,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(w) if is_reserved(w) => format!("keyword {}", w.to_ascii_uppercase()),
        Tok::Ident(w) => format!("identifier \"{w}\""),
        Tok::Quoted(w) => format!("identifier `{w}`"),
        Tok::Str(s) => format!("string literal \"{}\"", s.escape_default()),
        Tok::Bytes(_) => "bytes literal".to_string(),
        Tok::Int(v) => format!("integer literal \"{v}\""),
        Tok::Float(v) => format!("floating point literal \"{v}\""),
        Tok::Sym(s) => format!("\"{s}\""),
        Tok::Eof => "end of input".to_string(),
    }
}

type PResult<T> = Result<T, Error>;

impl Parser<'_> {
    fn peek(&self) -> &Token {
        // The token list always ends with Eof, and `i` never passes it.
        &self.toks[self.i.min(self.toks.len() - 1)]
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].tok
    }

    fn pos(&self) -> Pos {
        self.peek().pos
    }

    fn advance(&mut self) -> Token {
        let t = self.peek().clone();
        if t.tok != Tok::Eof {
            self.i += 1;
        }
        t
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(&self.peek().tok, Tok::Ident(w) if w.eq_ignore_ascii_case(kw))
    }

    fn is_kw_at(&self, k: usize, kw: &str) -> bool {
        matches!(self.peek_at(k), Tok::Ident(w) if w.eq_ignore_ascii_case(kw))
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(&self.peek().tok, Tok::Sym(x) if *x == s)
    }

    fn eat_sym(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn unexpected(&self, expected: &str) -> Error {
        let t = self.peek();
        if t.tok == Tok::Eof {
            return SqlError::syntax(
                format!("Unexpected end of statement; expected {expected}"),
                t.pos,
            );
        }
        SqlError::syntax(
            format!("Expected {expected} but got {}", describe(&t.tok)),
            t.pos,
        )
    }

    fn expect_kw(&mut self, kw: &str) -> PResult<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("keyword {kw}")))
        }
    }

    fn expect_sym(&mut self, s: &str) -> PResult<()> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("\"{s}\"")))
        }
    }

    /// A name: an unreserved word or a back-quoted identifier.
    fn ident(&mut self, what: &str) -> PResult<Ident> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Ident(w) if !is_reserved(&w) => {
                self.advance();
                Ok(Ident {
                    name: w,
                    pos: t.pos,
                })
            }
            Tok::Quoted(w) => {
                self.advance();
                Ok(Ident {
                    name: w,
                    pos: t.pos,
                })
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn statement(&mut self) -> PResult<Statement> {
        let pos = self.pos();
        let word = match &self.peek().tok {
            Tok::Ident(w) => w.to_ascii_uppercase(),
            Tok::Sym("(") => {
                return Err(SqlError::unsupported(
                    "Parenthesized queries are not supported by GoogleSQL for Bigtable; write a single SELECT",
                    pos,
                ));
            }
            Tok::Eof => {
                return Err(SqlError::syntax("Unexpected end of statement", pos));
            }
            other => {
                return Err(SqlError::syntax(
                    format!("Unexpected {}", describe(other)),
                    pos,
                ));
            }
        };
        let stmt = match word.as_str() {
            "SELECT" => Statement::Query(self.query()?),
            "EXPLAIN" => {
                self.advance();
                if !self.is_kw("SELECT") {
                    return Err(self.unexpected("SELECT after EXPLAIN"));
                }
                Statement::Explain(self.query()?)
            }
            "WITH" => {
                return Err(SqlError::unsupported(
                    "WITH clauses (common table expressions) are not supported by GoogleSQL for Bigtable",
                    pos,
                ));
            }
            "INSERT" | "UPDATE" | "DELETE" | "MERGE" | "REPLACE" | "UPSERT" | "TRUNCATE" => {
                return Err(SqlError::unsupported(
                    format!(
                        "Statement not supported: {word}. GoogleSQL for Bigtable only reads; write with MutateRow(s) (cbt set, deleterow) instead"
                    ),
                    pos,
                ));
            }
            "CREATE" => self.create(pos)?,
            "DROP" => self.drop(pos)?,
            "ALTER" => self.alter(pos)?,
            "SHOW" => {
                self.advance();
                if self.eat_kw("MATERIALIZED") {
                    self.expect_kw("VIEWS")?;
                    Statement::ShowViews
                } else {
                    return Err(self.unexpected("MATERIALIZED VIEWS"));
                }
            }
            "GRANT" | "REVOKE" | "BEGIN" | "COMMIT" | "ROLLBACK" | "START" | "SET" | "CALL"
            | "DECLARE" | "EXECUTE" | "EXPORT" | "LOAD" | "DESCRIBE" | "DESC" => {
                return Err(SqlError::unsupported(
                    format!(
                        "Statement not supported: {word}. GoogleSQL for Bigtable runs SELECT queries"
                    ),
                    pos,
                ));
            }
            _ => return Err(self.unexpected("keyword SELECT")),
        };
        self.eat_sym(";");
        if self.peek().tok != Tok::Eof {
            let t = self.peek();
            if let Tok::Ident(w) = &t.tok {
                let w = w.to_ascii_uppercase();
                if matches!(w.as_str(), "UNION" | "INTERSECT" | "EXCEPT") {
                    return Err(SqlError::unsupported(
                        format!("Set operations ({w}) are not supported by GoogleSQL for Bigtable"),
                        t.pos,
                    ));
                }
            }
            return Err(self.unexpected("end of input"));
        }
        Ok(stmt)
    }

    fn create(&mut self, pos: Pos) -> PResult<Statement> {
        self.advance();
        if self.eat_kw("OR") {
            return Err(SqlError::unsupported(
                "CREATE OR REPLACE is not supported; DROP MATERIALIZED VIEW first",
                pos,
            ));
        }
        if self.eat_kw("MATERIALIZED") {
            self.expect_kw("VIEW")?;
            let name = self.ident("a view name")?;
            self.expect_kw("AS")?;
            if !self.is_kw("SELECT") {
                return Err(self.unexpected("SELECT"));
            }
            let start = self.pos().offset;
            let query = self.query()?;
            let end = if self.peek().tok == Tok::Eof || self.is_sym(";") {
                self.pos().offset
            } else {
                self.text.len()
            };
            let query_text = self
                .text
                .get(start..end)
                .unwrap_or_default()
                .trim()
                .to_string();
            return Ok(Statement::CreateView {
                name,
                query_pos: query.pos,
                query,
                query_text,
            });
        }
        let what = match &self.peek().tok {
            Tok::Ident(w) => w.to_ascii_uppercase(),
            _ => String::new(),
        };
        Err(SqlError::unsupported(
            format!(
                "Statement not supported: CREATE {what}. GoogleSQL for Bigtable has no DDL; create tables with the admin API (cbt createtable). The playground accepts CREATE MATERIALIZED VIEW"
            )
            .trim_end()
            .to_string(),
            pos,
        ))
    }

    fn drop(&mut self, pos: Pos) -> PResult<Statement> {
        self.advance();
        if self.eat_kw("MATERIALIZED") {
            self.expect_kw("VIEW")?;
            let if_exists = if self.is_kw("IF") {
                self.advance();
                self.expect_kw("EXISTS")?;
                true
            } else {
                false
            };
            let name = self.ident("a view name")?;
            return Ok(Statement::DropView { name, if_exists });
        }
        Err(SqlError::unsupported(
            "Statement not supported: DROP. GoogleSQL for Bigtable has no DDL; delete tables with the admin API (cbt deletetable). The playground accepts DROP MATERIALIZED VIEW",
            pos,
        ))
    }

    fn alter(&mut self, pos: Pos) -> PResult<Statement> {
        self.advance();
        let refuse = || {
            SqlError::unsupported(
                "Statement not supported: ALTER. The playground accepts ALTER TABLE t SET ROW KEY SCHEMA ... and ALTER TABLE t DROP ROW KEY SCHEMA",
                pos,
            )
        };
        if !self.eat_kw("TABLE") {
            return Err(refuse());
        }
        let table = self.ident("a table name")?;
        let set = if self.eat_kw("SET") {
            true
        } else if self.eat_kw("DROP") {
            false
        } else {
            return Err(refuse());
        };
        for kw in ["ROW", "KEY", "SCHEMA"] {
            if !self.eat_kw(kw) {
                return Err(refuse());
            }
        }
        if !set {
            return Ok(Statement::DropRowKeySchema { table });
        }
        let schema = self.key_schema()?;
        Ok(Statement::SetRowKeySchema { table, schema })
    }

    fn small_int(&mut self, what: &str) -> PResult<u64> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Int(v) => {
                self.advance();
                Ok(v)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// The count after LIMIT or OFFSET: GoogleSQL takes an INT64 there, so
    /// a literal past `i64::MAX` is an error rather than a huge count.
    fn int64_literal(&mut self, clause: &str) -> PResult<u64> {
        let pos = self.pos();
        let v = self.small_int(&format!("an integer literal after {clause}"))?;
        if i64::try_from(v).is_err() {
            return Err(SqlError::syntax(
                format!("Invalid integer literal for {clause}: {v} is out of the INT64 range"),
                pos,
            ));
        }
        Ok(v)
    }

    fn paren_width(&mut self) -> PResult<Option<usize>> {
        if !self.eat_sym("(") {
            return Ok(None);
        }
        let pos = self.pos();
        let w = self.small_int("a width")?;
        self.expect_sym(")")?;
        if w == 0 || w > 4096 {
            return Err(SqlError::analysis("A width must be 1 to 4096", pos));
        }
        Ok(Some(w as usize))
    }

    fn int_encoding(&mut self) -> PResult<Option<IntEncoding>> {
        if self.eat_kw("BIG_ENDIAN") {
            return Ok(Some(IntEncoding::BigEndian));
        }
        // ORDERED_CODE right after an integer type names its encoding;
        // a second ORDERED_CODE is the struct encoding.
        if self.is_kw("ORDERED_CODE") {
            self.advance();
            return Ok(Some(IntEncoding::OrderedCode));
        }
        if self.eat_kw("DECIMAL") {
            let pos = self.pos();
            let w = self.paren_width()?;
            let width = match w {
                None => None,
                Some(w) if w <= 19 => Some(w as u8),
                Some(_) => return Err(SqlError::analysis("DECIMAL width must be 1 to 19", pos)),
            };
            return Ok(Some(IntEncoding::Decimal { width }));
        }
        Ok(None)
    }

    fn key_schema(&mut self) -> PResult<RowKeySchema> {
        let mut fields = Vec::new();
        loop {
            let name = self.ident("a row key field name")?;
            let tpos = self.pos();
            let ty = match &self.peek().tok {
                Tok::Ident(w) => w.to_ascii_uppercase(),
                _ => return Err(self.unexpected("a type (STRING, BYTES, INT64 or TIMESTAMP)")),
            };
            self.advance();
            let field_type = match ty.as_str() {
                "STRING" => FieldType::String {
                    width: self.paren_width()?,
                },
                "BYTES" => FieldType::Bytes {
                    width: self.paren_width()?,
                },
                "INT64" => FieldType::Int64(self.int_encoding()?.unwrap_or(IntEncoding::BigEndian)),
                "TIMESTAMP" => {
                    let unit = if self.eat_kw("SECONDS") {
                        TimeUnit::Seconds
                    } else if self.eat_kw("MILLIS") {
                        TimeUnit::Millis
                    } else {
                        self.eat_kw("MICROS");
                        TimeUnit::Micros
                    };
                    let encoding = self.int_encoding()?.unwrap_or(IntEncoding::BigEndian);
                    let reversed = self.eat_kw("REVERSED");
                    FieldType::Timestamp {
                        unit,
                        encoding,
                        reversed,
                    }
                }
                other => {
                    return Err(SqlError::analysis(
                        format!(
                            "Row key fields are STRING, BYTES, INT64 or TIMESTAMP, not {other}"
                        ),
                        tpos,
                    ));
                }
            };
            fields.push(KeyField {
                name: name.name,
                field_type,
            });
            if !self.eat_sym(",") {
                break;
            }
        }
        let encoding = if self.eat_kw("DELIMITED") {
            self.expect_kw("BY")?;
            let t = self.peek().clone();
            match t.tok {
                Tok::Str(s) => {
                    self.advance();
                    StructEncoding::Delimited(s.into_bytes())
                }
                Tok::Bytes(b) => {
                    self.advance();
                    StructEncoding::Delimited(b)
                }
                _ => return Err(self.unexpected("a delimiter literal")),
            }
        } else if self.eat_kw("FIXED_WIDTH") {
            StructEncoding::FixedWidth
        } else {
            self.eat_kw("ORDERED_CODE");
            StructEncoding::OrderedCode
        };
        let s = RowKeySchema { fields, encoding };
        s.validate()?;
        Ok(s)
    }

    fn query(&mut self) -> PResult<Query> {
        let pos = self.pos();
        self.expect_kw("SELECT")?;
        if self.is_kw("DISTINCT") {
            return Err(SqlError::unsupported(
                "SELECT DISTINCT is not supported by GoogleSQL for Bigtable",
                self.pos(),
            ));
        }
        self.eat_kw("ALL");
        if self.is_kw("AS") {
            return Err(SqlError::unsupported(
                "SELECT AS STRUCT / AS VALUE is not supported by GoogleSQL for Bigtable",
                self.pos(),
            ));
        }
        let mut select = Vec::new();
        loop {
            if self.is_sym("*") {
                let p = self.pos();
                self.advance();
                if self.is_kw("EXCEPT") || self.is_kw("REPLACE") {
                    return Err(SqlError::unsupported(
                        "SELECT * EXCEPT / REPLACE is not supported by GoogleSQL for Bigtable",
                        self.pos(),
                    ));
                }
                select.push(SelectItem::Star { pos: p });
            } else {
                let expr = self.expr()?;
                let alias = self.alias()?;
                select.push(SelectItem::Expr { expr, alias });
            }
            if !self.eat_sym(",") {
                break;
            }
        }
        let from = if self.eat_kw("FROM") {
            let item = self.table_ref()?;
            if self.is_sym(",")
                || ["JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL"]
                    .iter()
                    .any(|k| self.is_kw(k))
            {
                return Err(SqlError::unsupported(
                    "Joins are not supported by GoogleSQL for Bigtable; a query reads one table. Keep the data one query needs in one row (or in a materialized view)",
                    self.pos(),
                ));
            }
            if self.is_kw("TABLESAMPLE") {
                return Err(SqlError::unsupported(
                    "TABLESAMPLE is not supported by GoogleSQL for Bigtable",
                    self.pos(),
                ));
            }
            Some(item)
        } else {
            None
        };
        let where_ = if self.eat_kw("WHERE") {
            Some(self.expr()?)
        } else {
            None
        };
        let mut group_by = Vec::new();
        if self.eat_kw("GROUP") {
            self.expect_kw("BY")?;
            loop {
                group_by.push(self.expr()?);
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        if self.is_kw("HAVING") {
            return Err(SqlError::unsupported(
                "HAVING is not supported by GoogleSQL for Bigtable",
                self.pos(),
            ));
        }
        if self.is_kw("QUALIFY") || self.is_kw("WINDOW") {
            return Err(SqlError::unsupported(
                "Window functions are not supported by GoogleSQL for Bigtable",
                self.pos(),
            ));
        }
        let mut order_by = Vec::new();
        if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            loop {
                let expr = self.expr()?;
                let desc = if self.eat_kw("DESC") {
                    true
                } else {
                    self.eat_kw("ASC");
                    false
                };
                if self.is_kw("NULLS") {
                    return Err(SqlError::unsupported(
                        "NULLS FIRST / NULLS LAST is not supported here",
                        self.pos(),
                    ));
                }
                order_by.push(OrderItem { expr, desc });
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        let mut limit = None;
        let mut offset = None;
        if self.eat_kw("LIMIT") {
            let p = self.pos();
            limit = Some((self.int64_literal("LIMIT")?, p));
            if self.eat_kw("OFFSET") {
                let p = self.pos();
                offset = Some((self.int64_literal("OFFSET")?, p));
            }
        }
        Ok(Query {
            select,
            from,
            where_,
            group_by,
            order_by,
            limit,
            offset,
            pos,
        })
    }

    fn alias(&mut self) -> PResult<Option<Ident>> {
        if self.eat_kw("AS") {
            return Ok(Some(self.ident("an alias")?));
        }
        if matches!(&self.peek().tok, Tok::Ident(w) if !is_reserved(w))
            || matches!(&self.peek().tok, Tok::Quoted(_))
        {
            return Ok(Some(self.ident("an alias")?));
        }
        Ok(None)
    }

    fn table_ref(&mut self) -> PResult<FromItem> {
        let pos = self.pos();
        if self.is_sym("(") {
            return Err(SqlError::unsupported(
                "Subqueries are not supported by GoogleSQL for Bigtable (except inside UNPACK)",
                pos,
            ));
        }
        if self.is_kw("UNNEST") {
            return Err(SqlError::unsupported(
                "UNNEST is not supported by GoogleSQL for Bigtable",
                pos,
            ));
        }
        if self.is_kw("UNPACK") && matches!(self.peek_at(1), Tok::Sym("(")) {
            self.advance();
            self.expect_sym("(")?;
            self.expect_sym("(")?;
            if !self.is_kw("SELECT") {
                return Err(self.unexpected("a SELECT inside UNPACK((...))"));
            }
            let inner = self.query()?;
            self.expect_sym(")")?;
            self.expect_sym(")")?;
            let alias = self.alias()?;
            return Ok(FromItem::Unpack {
                query: Box::new(inner),
                alias,
                pos,
            });
        }
        let name = self.ident("a table name")?;
        let mut args = Vec::new();
        if self.eat_sym("(") {
            if !self.is_sym(")") {
                loop {
                    let arg = self.ident("a named argument (such as with_history)")?;
                    self.expect_sym("=>")?;
                    let value = self.expr()?;
                    args.push((arg, value));
                    if !self.eat_sym(",") {
                        break;
                    }
                }
            }
            self.expect_sym(")")?;
        }
        let alias = self.alias()?;
        Ok(FromItem::Table { name, args, alias })
    }

    // ---- expressions, lowest precedence first ----

    fn expr(&mut self) -> PResult<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(SqlError::analysis(
                format!("The expression nests more than {MAX_DEPTH} levels deep"),
                self.pos(),
            ));
        }
        let e = self.or_expr();
        self.depth -= 1;
        e
    }

    fn or_expr(&mut self) -> PResult<Expr> {
        let mut left = self.and_expr()?;
        while self.is_kw("OR") {
            let pos = self.advance().pos;
            let right = self.and_expr()?;
            left = Expr::binary(BinOp::Or, left, right, pos);
        }
        Ok(left)
    }

    fn and_expr(&mut self) -> PResult<Expr> {
        let mut left = self.not_expr()?;
        while self.is_kw("AND") {
            let pos = self.advance().pos;
            let right = self.not_expr()?;
            left = Expr::binary(BinOp::And, left, right, pos);
        }
        Ok(left)
    }

    fn not_expr(&mut self) -> PResult<Expr> {
        if self.is_kw("NOT") {
            let pos = self.advance().pos;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(SqlError::analysis(
                    format!("The expression nests more than {MAX_DEPTH} levels deep"),
                    pos,
                ));
            }
            let e = self.not_expr();
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(e?), pos));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> PResult<Expr> {
        let left = self.additive()?;
        let pos = self.pos();
        let op = match &self.peek().tok {
            Tok::Sym("=") => Some(BinOp::Eq),
            Tok::Sym("!=" | "<>") => Some(BinOp::Ne),
            Tok::Sym("<") => Some(BinOp::Lt),
            Tok::Sym("<=") => Some(BinOp::Le),
            Tok::Sym(">") => Some(BinOp::Gt),
            Tok::Sym(">=") => Some(BinOp::Ge),
            _ => None,
        };
        if let Some(op) = op {
            self.advance();
            let right = self.additive()?;
            return Ok(Expr::binary(op, left, right, pos));
        }
        if self.is_kw("IS") {
            self.advance();
            let negated = self.eat_kw("NOT");
            if self.eat_kw("NULL") {
                return Ok(Expr::IsNull {
                    expr: Box::new(left),
                    negated,
                    pos,
                });
            }
            let value = if self.eat_kw("TRUE") {
                true
            } else if self.eat_kw("FALSE") {
                false
            } else {
                return Err(self.unexpected("NULL, TRUE or FALSE after IS"));
            };
            return Ok(Expr::IsBool {
                expr: Box::new(left),
                value,
                negated,
                pos,
            });
        }
        let negated = self.is_kw("NOT")
            && (self.is_kw_at(1, "IN") || self.is_kw_at(1, "LIKE") || self.is_kw_at(1, "BETWEEN"));
        if negated {
            self.advance();
        }
        if self.eat_kw("IN") {
            if self.is_kw("UNNEST") {
                return Err(SqlError::unsupported(
                    "IN UNNEST is not supported by GoogleSQL for Bigtable",
                    self.pos(),
                ));
            }
            self.expect_sym("(")?;
            if self.is_kw("SELECT") {
                return Err(SqlError::unsupported(
                    "Subqueries are not supported by GoogleSQL for Bigtable",
                    self.pos(),
                ));
            }
            let mut list = Vec::new();
            loop {
                list.push(self.expr()?);
                if !self.eat_sym(",") {
                    break;
                }
            }
            self.expect_sym(")")?;
            return Ok(Expr::In {
                expr: Box::new(left),
                list,
                negated,
                pos,
            });
        }
        if self.eat_kw("LIKE") {
            let pattern = self.additive()?;
            return Ok(Expr::Like {
                expr: Box::new(left),
                pattern: Box::new(pattern),
                negated,
                pos,
            });
        }
        if self.eat_kw("BETWEEN") {
            let low = self.additive()?;
            self.expect_kw("AND")?;
            let high = self.additive()?;
            return Ok(Expr::Between {
                expr: Box::new(left),
                low: Box::new(low),
                high: Box::new(high),
                negated,
                pos,
            });
        }
        if negated {
            return Err(self.unexpected("IN, LIKE or BETWEEN after NOT"));
        }
        Ok(left)
    }

    fn additive(&mut self) -> PResult<Expr> {
        let mut left = self.multiplicative()?;
        loop {
            let op = match &self.peek().tok {
                Tok::Sym("+") => BinOp::Add,
                Tok::Sym("-") => BinOp::Sub,
                _ => return Ok(left),
            };
            let pos = self.advance().pos;
            let right = self.multiplicative()?;
            left = Expr::binary(op, left, right, pos);
        }
    }

    fn multiplicative(&mut self) -> PResult<Expr> {
        let mut left = self.unary()?;
        loop {
            let op = match &self.peek().tok {
                Tok::Sym("*") => BinOp::Mul,
                Tok::Sym("/") => BinOp::Div,
                Tok::Sym("||") => BinOp::Concat,
                Tok::Sym(s @ ("%" | "&" | "|" | "^" | "<<" | ">>")) => {
                    return Err(SqlError::unsupported(
                        format!("Operator {s} is not supported here; use MOD() or a function"),
                        self.pos(),
                    ));
                }
                _ => return Ok(left),
            };
            let pos = self.advance().pos;
            let right = self.unary()?;
            left = Expr::binary(op, left, right, pos);
        }
    }

    fn unary(&mut self) -> PResult<Expr> {
        // The most negative INT64 is written as a minus and a literal that
        // is one too big for INT64.
        if let (Tok::Sym("-"), Tok::Int(v)) = (&self.peek().tok, self.peek_at(1))
            && *v == 1u64 << 63
        {
            let pos = self.advance().pos;
            self.advance();
            return Ok(Expr::Int(i64::MIN, pos));
        }
        if self.is_sym("-") {
            let pos = self.advance().pos;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(SqlError::analysis(
                    format!("The expression nests more than {MAX_DEPTH} levels deep"),
                    pos,
                ));
            }
            let inner = self.unary();
            self.depth -= 1;
            let inner = inner?;
            return Ok(match inner {
                Expr::Int(v, p) => match v.checked_neg() {
                    Some(n) => Expr::Int(n, pos),
                    None => Expr::Neg(Box::new(Expr::Int(v, p)), pos),
                },
                Expr::Float(v, _) => Expr::Float(-v, pos),
                other => Expr::Neg(Box::new(other), pos),
            });
        }
        if self.is_sym("+") {
            self.advance();
            return self.unary();
        }
        if self.is_sym("~") {
            return Err(SqlError::unsupported(
                "Bitwise operators are not supported here",
                self.pos(),
            ));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.is_sym(".") {
                self.advance();
                let field = self.ident("a field name after \".\"")?;
                e = Expr::Field(Box::new(e), field);
            } else if self.is_sym("[") {
                self.advance();
                let pos = e.pos();
                let mut mode = IndexMode::Plain;
                for (kw, m) in [
                    ("OFFSET", IndexMode::Offset),
                    ("SAFE_OFFSET", IndexMode::SafeOffset),
                    ("ORDINAL", IndexMode::Ordinal),
                    ("SAFE_ORDINAL", IndexMode::SafeOrdinal),
                ] {
                    if self.is_kw(kw) && matches!(self.peek_at(1), Tok::Sym("(")) {
                        self.advance();
                        mode = m;
                        break;
                    }
                }
                let index = if mode == IndexMode::Plain {
                    self.expr()?
                } else {
                    self.expect_sym("(")?;
                    let i = self.expr()?;
                    self.expect_sym(")")?;
                    i
                };
                self.expect_sym("]")?;
                e = Expr::Index {
                    base: Box::new(e),
                    index: Box::new(index),
                    mode,
                    pos,
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn type_name(&mut self) -> PResult<TypeName> {
        use super::value::SqlType;
        let pos = self.pos();
        let word = match &self.peek().tok {
            Tok::Ident(w) => w.to_ascii_uppercase(),
            _ => return Err(self.unexpected("a type name")),
        };
        self.advance();
        let ty = match word.as_str() {
            "BOOL" | "BOOLEAN" => SqlType::Bool,
            "INT64" | "INT" | "INTEGER" | "BIGINT" => SqlType::Int64,
            "FLOAT64" | "FLOAT32" | "DOUBLE" => SqlType::Float64,
            "STRING" => SqlType::String,
            "BYTES" => SqlType::Bytes,
            "TIMESTAMP" => SqlType::Timestamp,
            "ARRAY" => {
                self.expect_sym("<")?;
                let inner = self.type_name()?;
                self.expect_sym(">")?;
                SqlType::Array(Box::new(inner.ty))
            }
            other => {
                return Err(SqlError::analysis(format!("Type not found: {other}"), pos));
            }
        };
        Ok(TypeName { ty, pos })
    }

    fn primary(&mut self) -> PResult<Expr> {
        let t = self.peek().clone();
        let pos = t.pos;
        match t.tok {
            Tok::Int(v) => {
                self.advance();
                let v = i64::try_from(v).map_err(|_| {
                    SqlError::analysis(format!("Invalid integer literal: {v}"), pos)
                })?;
                Ok(Expr::Int(v, pos))
            }
            Tok::Float(v) => {
                self.advance();
                Ok(Expr::Float(v, pos))
            }
            Tok::Str(s) => {
                self.advance();
                Ok(Expr::Str(s, pos))
            }
            Tok::Bytes(b) => {
                self.advance();
                Ok(Expr::Bytes(b, pos))
            }
            Tok::Quoted(name) => {
                self.advance();
                Ok(Expr::Ident(Ident { name, pos }))
            }
            Tok::Sym("(") => {
                self.advance();
                if self.is_kw("SELECT") {
                    return Err(SqlError::unsupported(
                        "Subqueries are not supported by GoogleSQL for Bigtable",
                        self.pos(),
                    ));
                }
                let e = self.expr()?;
                self.expect_sym(")")?;
                Ok(e)
            }
            Tok::Sym("[") => Err(SqlError::unsupported(
                "Array literals are not supported here",
                pos,
            )),
            Tok::Ident(word) => {
                let up = word.to_ascii_uppercase();
                match up.as_str() {
                    "NULL" => {
                        self.advance();
                        return Ok(Expr::Null(pos));
                    }
                    "TRUE" | "FALSE" => {
                        self.advance();
                        return Ok(Expr::Bool(up == "TRUE", pos));
                    }
                    "TIMESTAMP" if matches!(self.peek_at(1), Tok::Str(_)) => {
                        self.advance();
                        if let Tok::Str(s) = self.advance().tok {
                            return Ok(Expr::Timestamp(s, pos));
                        }
                    }
                    "DATE" | "DATETIME" | "TIME" | "NUMERIC" | "BIGNUMERIC" | "JSON" | "RANGE"
                        if matches!(self.peek_at(1), Tok::Str(_)) =>
                    {
                        return Err(SqlError::unsupported(
                            format!("{up} literals are not supported by GoogleSQL for Bigtable"),
                            pos,
                        ));
                    }
                    "CAST" | "SAFE_CAST" => {
                        self.advance();
                        self.expect_sym("(")?;
                        let e = self.expr()?;
                        self.expect_kw("AS")?;
                        let to = self.type_name()?;
                        self.expect_sym(")")?;
                        return Ok(Expr::Cast {
                            expr: Box::new(e),
                            to,
                            safe: up == "SAFE_CAST",
                            pos,
                        });
                    }
                    "CASE" => return self.case(pos),
                    "EXISTS" | "ARRAY" | "STRUCT" | "INTERVAL" | "EXTRACT" => {
                        return Err(SqlError::unsupported(
                            format!("{up} is not supported by GoogleSQL for Bigtable here"),
                            pos,
                        ));
                    }
                    _ => {}
                }
                if matches!(self.peek_at(1), Tok::Sym("(")) && (!is_reserved(&word) || up == "IF") {
                    return self.call(pos);
                }
                if is_reserved(&word) {
                    return Err(self.unexpected("an expression"));
                }
                self.advance();
                Ok(Expr::Ident(Ident { name: word, pos }))
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    fn call(&mut self, pos: Pos) -> PResult<Expr> {
        let name = match self.advance().tok {
            Tok::Ident(w) => w,
            _ => String::new(),
        };
        let name = Ident { name, pos };
        self.expect_sym("(")?;
        let mut args = Vec::new();
        let mut star = false;
        if self.is_kw("DISTINCT") {
            return Err(SqlError::unsupported(
                "DISTINCT in aggregate functions is not supported by GoogleSQL for Bigtable",
                self.pos(),
            ));
        }
        if self.is_sym("*") {
            self.advance();
            star = true;
        } else if !self.is_sym(")") {
            loop {
                args.push(self.expr()?);
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        self.expect_sym(")")?;
        if self.is_kw("OVER") {
            return Err(SqlError::unsupported(
                "Window functions (OVER) are not supported by GoogleSQL for Bigtable",
                self.pos(),
            ));
        }
        Ok(Expr::Call {
            name,
            args,
            star,
            pos,
        })
    }

    fn case(&mut self, pos: Pos) -> PResult<Expr> {
        self.advance();
        let operand = if self.is_kw("WHEN") {
            None
        } else {
            Some(Box::new(self.expr()?))
        };
        let mut whens = Vec::new();
        while self.eat_kw("WHEN") {
            let w = self.expr()?;
            self.expect_kw("THEN")?;
            let t = self.expr()?;
            whens.push((w, t));
        }
        if whens.is_empty() {
            return Err(self.unexpected("WHEN"));
        }
        let else_ = if self.eat_kw("ELSE") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        self.expect_kw("END")?;
        Ok(Expr::Case {
            operand,
            whens,
            else_,
            pos,
        })
    }
}

/// Parses one statement (a trailing `;` is allowed).
pub(crate) fn parse_statement(text: &str) -> Result<Statement, Error> {
    let toks = tokenize(text)?;
    let mut p = Parser {
        text,
        toks,
        i: 0,
        depth: 0,
    };
    p.statement()
}

/// Parses the text form of a row-key schema.
pub(crate) fn parse_row_key_schema(text: &str) -> Result<RowKeySchema, Error> {
    let toks = tokenize(text)?;
    let mut p = Parser {
        text,
        toks,
        i: 0,
        depth: 0,
    };
    let s = p.key_schema()?;
    if p.peek().tok != Tok::Eof {
        return Err(p.unexpected("end of the row key schema"));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn err(s: &str) -> String {
        parse_statement(s).unwrap_err().message().to_string()
    }

    #[test]
    fn parses_the_documented_shapes() {
        for q in [
            "SELECT * FROM t WHERE _key = 'r1'",
            "SELECT * FROM t(with_history => TRUE, latest_n => 3) WHERE _key = 'r1'",
            "SELECT cf['q'] AS q, MAP_KEYS(cf) FROM t WHERE STARTS_WITH(_key, 'a#') LIMIT 10",
            "SELECT _key FROM t WHERE (_key >= 'a' AND _key < 'b') OR _key IN ('x', 'y')",
            "SELECT * FROM UNPACK((SELECT _key, cf['q'] AS q FROM t(with_history => TRUE)))",
            "SELECT CAST(cf['n'] AS STRING), SAFE_CONVERT_BYTES_TO_STRING(cf['n']), TO_INT64(cf['c']) FROM t",
            "EXPLAIN SELECT _key FROM t",
            "CREATE MATERIALIZED VIEW v AS SELECT cf['c'] AS c, COUNT(*) AS n FROM t GROUP BY c",
            "SELECT x FROM t ORDER BY _key DESC LIMIT 1 OFFSET 2;",
            "SELECT CASE WHEN a IS NULL THEN 1 ELSE 2 END, -9223372036854775808 FROM t",
        ] {
            parse_statement(q).unwrap_or_else(|e| panic!("{q}: {e}"));
        }
        match parse_statement("CREATE MATERIALIZED VIEW v AS SELECT 1 AS x FROM t GROUP BY x;")
            .unwrap()
        {
            Statement::CreateView { query_text, .. } => {
                assert_eq!(query_text, "SELECT 1 AS x FROM t GROUP BY x");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn refuses_what_bigtable_does_not_run() {
        assert!(
            err("SELECT * FROM a JOIN b ON a._key = b._key").contains("Joins are not supported")
        );
        assert!(err("SELECT * FROM a, b").contains("Joins"));
        assert!(err("INSERT INTO t VALUES (1)").contains("Statement not supported: INSERT"));
        assert!(err("CREATE TABLE t (x INT64)").contains("CREATE TABLE"));
        assert!(err("SELECT 1 UNION ALL SELECT 2").contains("Set operations"));
        assert!(err("SELECT (SELECT 1)").contains("Subqueries"));
        assert!(err("SELECT DISTINCT x FROM t").contains("DISTINCT"));
        assert!(err("SELECT").contains("Unexpected end of statement"));
        assert!(err("SELECT x FROM t WHERE").contains("[at 1:22]"));
        assert!(err("SELECT x FROM").contains("Unexpected end"));
        assert!(err("SELECT x y z").contains("Expected end of input but got identifier \"z\""));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let q = format!("SELECT {}1{}", "(".repeat(500), ")".repeat(500));
        assert!(err(&q).contains("nests more than"));
        let q = format!("SELECT {}1", "NOT ".repeat(500));
        assert!(err(&q).contains("nests more than"));
        let q = format!("SELECT {}1", "- ".repeat(500));
        assert!(err(&q).contains("nests more than"));
    }
}
