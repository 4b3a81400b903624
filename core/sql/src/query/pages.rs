//! A SELECT run a page at a time, for hosts that stream its rows as they
//! are read (`tabletop serve`'s ExecuteQuery): a query that reads one
//! table or view in key order, with no ORDER BY, reads each page on from
//! the row after the last one the page read, so the rows are never all
//! held at once and the host holds no borrow of the instance between
//! pages. Any other query (ORDER BY, UNPACK, a logical view, no FROM) is
//! run whole on the first page and handed out from there.
//!
//! The pages together give the rows the query gives run whole: the same
//! residual predicates, OFFSET and LIMIT (counted across pages), the same
//! read (its row set, filter, rows limit and direction) split by key.

use tabletop_store::{Error, ReadRowsRequest};

use super::Tables;
use super::exec::{self, RowCtx};
use super::plan::{Input, ReadPlan, SelectPlan};
use super::value::Value;

/// A planned SELECT being run in pages.
pub(crate) struct Pages {
    plan: SelectPlan,
    mode: Mode,
}

enum Mode {
    /// Read in key order: what is left of the read (`None` once done), the
    /// OFFSET rows still to drop and the LIMIT rows still to give.
    Streamed {
        read: Option<Box<ReadPlan>>,
        to_skip: u64,
        to_take: Option<u64>,
    },
    /// Run whole on the first page (`None` before it), then handed out.
    Whole(Option<std::vec::IntoIter<Vec<Value>>>),
}

impl Pages {
    pub(crate) fn new(plan: SelectPlan) -> Pages {
        let mode = match &plan.input {
            Input::Read(read) if plan.order.is_empty() => Mode::Streamed {
                read: (!read.no_rows).then(|| read.clone()),
                to_skip: plan.offset,
                to_take: plan.limit,
            },
            _ => Mode::Whole(None),
        };
        Pages { plan, mode }
    }

    /// Whether every row has been handed out.
    pub(crate) fn is_done(&self) -> bool {
        match &self.mode {
            Mode::Streamed { read, to_take, .. } => read.is_none() || *to_take == Some(0),
            Mode::Whole(rows) => rows.as_ref().is_some_and(|r| r.len() == 0),
        }
    }

    /// Hands the next rows to `row`, which answers whether the page may
    /// go on (the row it answers `false` to was still taken: it ends the
    /// page), until the rows run out.
    pub(crate) fn next_page<D: Tables + ?Sized>(
        &mut self,
        db: &mut D,
        row: &mut dyn FnMut(Vec<Value>) -> bool,
    ) -> Result<(), Error> {
        match &mut self.mode {
            Mode::Whole(rows) => {
                if rows.is_none() {
                    *rows = Some(exec::run(db, &self.plan, None)?.rows.into_iter());
                }
                if let Some(rows) = rows {
                    for r in rows.by_ref() {
                        if !row(r) {
                            break;
                        }
                    }
                }
                Ok(())
            }
            Mode::Streamed {
                read,
                to_skip,
                to_take,
            } => {
                let Some(current) = read.take() else {
                    return Ok(());
                };
                let page = streamed_page(db, &self.plan, &current, to_skip, to_take, row)?;
                *read = page.map(|request| {
                    let mut rest = current;
                    rest.request = request;
                    rest
                });
                Ok(())
            }
        }
    }
}

/// Reads one page of a streamed query; answers the read that is left, or
/// `None` when the read is over.
fn streamed_page<D: Tables + ?Sized>(
    db: &mut D,
    plan: &SelectPlan,
    read: &ReadPlan,
    to_skip: &mut u64,
    to_take: &mut Option<u64>,
    row: &mut dyn FnMut(Vec<Value>) -> bool,
) -> Result<Option<ReadRowsRequest>, Error> {
    let mut last_key: Option<Vec<u8>> = None;
    let mut read_rows = 0i64;
    let mut stopped = false;
    let mut visit = |ctx: &RowCtx<'_>| -> Result<bool, Error> {
        last_key = Some(ctx.key.to_vec());
        read_rows += 1;
        let Some(out) = exec::selected(plan, ctx)? else {
            return Ok(true);
        };
        if *to_skip > 0 {
            *to_skip -= 1;
            return Ok(true);
        }
        if let Some(n) = to_take.as_mut() {
            *n -= 1;
        }
        let go_on = row(out) && *to_take != Some(0);
        stopped = !go_on;
        Ok(go_on)
    };
    exec::read_source_rows(db, read, &mut visit, None)?;
    if !stopped || *to_take == Some(0) {
        return Ok(None);
    }
    let Some(key) = last_key else {
        return Ok(None);
    };
    let mut rest = read.request.clone();
    if rest.rows_limit > 0 {
        rest.rows_limit -= read_rows;
        if rest.rows_limit <= 0 {
            return Ok(None);
        }
    }
    match rest.rows.past(&key, rest.reversed) {
        Some(rows) => {
            rest.rows = rows;
            Ok(Some(rest))
        }
        None => Ok(None),
    }
}
