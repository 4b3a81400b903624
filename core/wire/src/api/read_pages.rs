//! readRows a page at a time, for hosts that stream the rows as they are
//! read (`tabletop serve`): the request is decoded and checked once, as
//! `readRows` does, then each page reads on from the row after the last
//! one returned, until the sink has had enough for this page. Between
//! pages the host holds no borrow of the instance, so it can hand a page
//! to a slow client without holding the instance from other requests,
//! and stop reading when the client goes away.
//!
//! Each page is a read of its own (its traffic, its tablets); the pages
//! together return the rows `readRows` would, with the same limit, filter
//! and direction, and the request statistics summed over the pages.

use serde_json::Value;
use tabletop_sql::Instance;
use tabletop_store::{Fidelity, ReadRowsRequest, ReadStats, Result, RowSink, RowView, Traces};

use super::data::{Target, read_rows_request, read_target, request_stats};
use super::proto_json::At;

/// A readRows request being read in pages.
pub struct ReadPages {
    target: Target,
    /// What is left to read: the row set past the last row returned, and
    /// the rows the limit still allows.
    request: ReadRowsRequest,
    limited: bool,
    full_stats: bool,
    stats: ReadStats,
    done: bool,
}

impl ReadPages {
    /// Decodes and checks a readRows body (`{"tableName", "rows",
    /// "filter", "rowsLimit", "reversed", "requestStatsView", ...}`), with
    /// the errors `readRows` answers on an instance of this `fidelity`
    /// ([`Instance::fidelity`]).
    pub fn new(body: &Value, fidelity: Fidelity) -> Result<ReadPages> {
        let (target, request, full_stats) = read_rows_request(&At::new("request", body), fidelity)?;
        // A row set that does not normalize is refused before any page.
        request.rows.normalize()?;
        Ok(ReadPages {
            target,
            limited: request.rows_limit > 0,
            request,
            full_stats,
            stats: ReadStats::default(),
            done: false,
        })
    }

    /// Whether every row has been read.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Reads the next page: rows go to `sink` until it answers `false`
    /// (the row it refused with `false` was still taken: it ends the
    /// page) or the rows run out.
    pub fn next_page(&mut self, db: &mut Instance, sink: &mut dyn RowSink) -> Result<()> {
        if self.done {
            return Ok(());
        }
        let mut page = PageSink {
            inner: sink,
            last: None,
            stopped: false,
        };
        let stats = read_target(
            db,
            &self.target,
            &self.request,
            &mut page,
            &mut Traces::off(),
        )?;
        self.stats.add(&stats);
        let (last, stopped) = (page.last, page.stopped);
        if self.limited {
            let returned = i64::try_from(stats.rows_returned).unwrap_or(i64::MAX);
            self.request.rows_limit = self.request.rows_limit.saturating_sub(returned);
        }
        let next = match last {
            Some(key) if stopped && !(self.limited && self.request.rows_limit <= 0) => {
                self.request.rows.past(&key, self.request.reversed)
            }
            _ => None,
        };
        match next {
            Some(rows) => self.request.rows = rows,
            None => self.done = true,
        }
        Ok(())
    }

    /// The `requestStats` readRows answers when the request asked for
    /// `REQUEST_STATS_FULL` (over all pages read so far), else `None`.
    #[must_use]
    pub fn request_stats(&self) -> Option<Value> {
        self.full_stats.then(|| request_stats(&self.stats))
    }
}

/// Passes rows on and notes the last one and whether the sink stopped.
struct PageSink<'a> {
    inner: &'a mut dyn RowSink,
    last: Option<Vec<u8>>,
    stopped: bool,
}

impl RowSink for PageSink<'_> {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        self.last = Some(row.key.to_vec());
        let more = self.inner.accept(row);
        self.stopped = !more;
        more
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::handle_value;

    fn table(rows: u8) -> Instance {
        let mut db = Instance::default();
        handle_value(
            &mut db,
            "createTable",
            &json!({"parent": "projects/p/instances/i", "tableId": "t",
                    "table": {"columnFamilies": {"cf": {}}}}),
        )
        .unwrap();
        for i in 0..rows {
            let key = tabletop_store::base64_text::encode(format!("r{i:02}").as_bytes());
            handle_value(
                &mut db,
                "mutateRow",
                &json!({"tableName": "projects/p/instances/i/tables/t", "rowKey": key,
                        "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": "Yw==",
                        "timestampMicros": "1000", "value": "dg=="}}]}),
            )
            .unwrap();
        }
        db
    }

    /// Reads `body` in pages of `per_page` rows: the keys of each page.
    fn pages(db: &mut Instance, body: Value, per_page: usize) -> (Vec<Vec<String>>, ReadPages) {
        let mut read = ReadPages::new(&body, Fidelity::Production).unwrap();
        let mut out = Vec::new();
        while !read.is_done() {
            let mut keys = Vec::new();
            read.next_page(db, &mut |row: RowView<'_>| {
                keys.push(String::from_utf8_lossy(row.key).into_owned());
                keys.len() < per_page
            })
            .unwrap();
            out.push(keys);
        }
        (out, read)
    }

    #[test]
    fn pages_together_are_the_whole_read() {
        let mut db = table(7);
        let body = json!({"tableName": "projects/p/instances/i/tables/t",
                          "requestStatsView": "REQUEST_STATS_FULL"});
        let (got, read) = pages(&mut db, body, 3);
        assert_eq!(
            got,
            vec![
                vec!["r00", "r01", "r02"],
                vec!["r03", "r04", "r05"],
                vec!["r06"]
            ]
        );
        let stats = read.request_stats().unwrap();
        assert_eq!(
            stats["fullReadStatsView"]["readIterationStats"]["rowsReturnedCount"],
            "7"
        );
    }

    #[test]
    fn limits_and_reversed_reads_carry_across_pages() {
        let mut db = table(7);
        let body = json!({"tableName": "projects/p/instances/i/tables/t", "reversed": true,
                          "rowsLimit": "5", "rows": {"rowKeys": ["cjAx", "cjA2"],
                          "rowRanges": [{"startKeyClosed": "cjAy", "endKeyOpen": "cjA2"}]}});
        let (got, read) = pages(&mut db, body, 2);
        assert_eq!(
            got,
            vec![vec!["r06", "r05"], vec!["r04", "r03"], vec!["r02"]]
        );
        assert!(read.request_stats().is_none());
    }

    #[test]
    fn bad_requests_fail_before_any_page() {
        let e = ReadPages::new(
            &json!({"tableName": "projects/p/instances/i/tables/t",
            "rows": {"rowRanges": [{"startKeyClosed": "Yg==", "endKeyOpen": "YQ=="}]}}),
            Fidelity::Production,
        )
        .err()
        .unwrap();
        assert!(
            e.message().contains("start_key must be less than end_key"),
            "{e:?}"
        );
        let mut db = table(1);
        let mut read = ReadPages::new(
            &json!({"tableName": "projects/p/instances/i/tables/nope"}),
            Fidelity::Production,
        )
        .unwrap();
        let e = read
            .next_page(&mut db, &mut |_: RowView<'_>| true)
            .unwrap_err();
        assert_eq!(e.code(), tabletop_store::Code::NotFound);
    }
}
