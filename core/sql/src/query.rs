//! The SQL language and its machinery: lexing and parsing GoogleSQL,
//! values and functions, planning a query into one ReadRows request,
//! running it and explaining it.
//!
//! Nothing here names an instance: planning and running go through
//! [`Tables`], which the SQL [`Instance`](crate::Instance) implements, so
//! the materialized views (in `crate::instance`) can compile and run their
//! queries with this machinery below them. The statements hosts run
//! (`execute`, `query`, `explain`) are in `crate::sql`.

pub(crate) mod exec;
mod explain;
mod func;
pub(crate) mod lex;
pub(crate) mod pages;
pub(crate) mod parse;
pub(crate) mod plan;
pub(crate) mod value;

use std::fmt::Display;

use tabletop_store::{Code, Error, ReadRowsRequest, ReadStats, Result, RowSink, Trace};

use crate::key_schema::RowKeySchema;

pub use explain::{Access, Explain, filter_json, row_set_json};
pub use lex::is_reserved;
pub use plan::SourceKind;
pub use tabletop_store::range_text;
pub use value::{SqlType, Value, format_timestamp, parse_timestamp};

use lex::Pos;
use parse::Ident;
use plan::Source;

/// Error constructors in GoogleSQL's style.
pub(crate) struct SqlError;

impl SqlError {
    /// A syntax error: `Syntax error: <msg> [at line:col]`.
    pub(crate) fn syntax(msg: impl Display, pos: Pos) -> Error {
        Error::invalid(format!("Syntax error: {msg} [at {pos}]"))
    }

    /// A name, type or rule error found while planning.
    pub(crate) fn analysis(msg: impl Display, pos: Pos) -> Error {
        Error::invalid(format!("{msg} [at {pos}]"))
    }

    /// Valid SQL that GoogleSQL for Bigtable does not run.
    pub(crate) fn unsupported(msg: impl Display, pos: Pos) -> Error {
        Error::invalid(format!("{msg} [at {pos}]"))
    }

    /// An error while evaluating a row (a bad cast, an overflow).
    pub(crate) fn runtime(msg: impl Into<String>) -> Error {
        Error::new(Code::OutOfRange, msg)
    }
}

impl RowKeySchema {
    /// Reads a schema from its SQL text, as in `ALTER TABLE t SET ROW KEY
    /// SCHEMA <text>`: `name TYPE [encoding], ... [DELIMITED BY 'd' |
    /// ORDERED_CODE | FIXED_WIDTH]`.
    pub fn from_sql(text: &str) -> Result<RowKeySchema> {
        parse::parse_row_key_schema(text)
    }
}

/// What planning and running a query need of the database: the sources a
/// query names and their rows.
pub(crate) trait Tables {
    /// The instance clock (CURRENT_TIMESTAMP, temporal options).
    fn now_micros(&self) -> i64;

    /// A source by name: a materialized view or a table.
    fn source(&self, name: &Ident, alias: Option<&Ident>) -> Result<Source>;

    /// The query of the logical view `name`, if there is one.
    fn logical_view_query(&self, name: &str) -> Option<String>;

    /// ReadRows on a source (a table or a materialized view), recorded in
    /// `trace` when one is given.
    fn read_source(
        &mut self,
        source: &Source,
        req: &ReadRowsRequest,
        sink: &mut dyn RowSink,
        trace: Option<&mut Trace>,
    ) -> Result<ReadStats>;
}
