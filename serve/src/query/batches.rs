//! A query's rows as ExecuteQuery streams them: `PartialResultSet`s, each
//! holding one whole batch (a serialized `ProtoRows` of the rows' values,
//! one value per column, row after row) with its CRC32C checksum and a
//! resume token naming how many rows have been sent, so a client that
//! retries with that token gets the rows after them.

use prost::Message;
use tabletop_core::sql::Value;

use super::values::proto_value;
use crate::proto::google::bigtable::v2::{
    ExecuteQueryResponse, PartialResultSet, ProtoRows, ProtoRowsBatch, execute_query_response,
    partial_result_set,
};

/// About how many bytes of encoded values one batch holds before the
/// next starts (rows are never split across batches).
pub const BATCH_BYTES: usize = 1 << 20;

/// The CRC32C (Castagnoli) checksum Bigtable puts on each batch.
pub fn crc32c(bytes: &[u8]) -> u32 {
    const CASTAGNOLI: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
    CASTAGNOLI.checksum(bytes)
}

/// The resume token after `rows` rows.
pub fn resume_token(rows: u64) -> Vec<u8> {
    format!("rows:{rows}").into_bytes()
}

/// How many rows a resume token says were sent, if it is one of ours.
pub fn rows_sent(token: &[u8]) -> Option<u64> {
    std::str::from_utf8(token)
        .ok()?
        .strip_prefix("rows:")?
        .parse()
        .ok()
}

/// A query's responses, made as its rows come (a page at a time): rows
/// are pushed until the batch is full, then taken as one response. The
/// first `skip` rows are the ones the client already has (it resumed with
/// their token); `resumed` marks the first response `reset`, as a retried
/// stream's first response is. A stream with no rows left is one response
/// holding only the resume token.
#[derive(Debug, Default)]
pub struct Batches {
    to_skip: u64,
    sent: u64,
    first: bool,
    resumed: bool,
    batch: ProtoRows,
    bytes: usize,
}

impl Batches {
    /// The batches of a query's rows after the first `skip`.
    pub fn new(skip: u64, resumed: bool) -> Batches {
        Batches {
            to_skip: skip,
            sent: skip,
            first: true,
            resumed,
            ..Batches::default()
        }
    }

    /// Adds a row (its values, one per column); answers whether the batch
    /// has room for more.
    pub fn push(&mut self, row: &[Value]) -> bool {
        if self.to_skip > 0 {
            self.to_skip -= 1;
            return true;
        }
        for v in row {
            let value = proto_value(v);
            self.bytes += value.encoded_len();
            self.batch.values.push(value);
        }
        self.sent += 1;
        self.bytes < BATCH_BYTES
    }

    /// The response carrying the rows pushed since the last one; `None`
    /// when there are none, except for the stream's first response.
    pub fn take(&mut self) -> Option<ExecuteQueryResponse> {
        if self.batch.values.is_empty() {
            return self.first.then(|| self.response(None, None));
        }
        let data = std::mem::take(&mut self.batch).encode_to_vec();
        self.bytes = 0;
        let checksum = crc32c(&data);
        let rows =
            partial_result_set::PartialRows::ProtoRowsBatch(ProtoRowsBatch { batch_data: data });
        Some(self.response(Some(rows), Some(checksum)))
    }

    fn response(
        &mut self,
        rows: Option<partial_result_set::PartialRows>,
        checksum: Option<u32>,
    ) -> ExecuteQueryResponse {
        let estimated = match &rows {
            Some(partial_result_set::PartialRows::ProtoRowsBatch(b)) => {
                i32::try_from(b.batch_data.len()).unwrap_or(i32::MAX)
            }
            None => 0,
        };
        let reset = self.first && self.resumed;
        self.first = false;
        ExecuteQueryResponse {
            response: Some(execute_query_response::Response::Results(
                PartialResultSet {
                    partial_rows: rows,
                    batch_checksum: checksum,
                    resume_token: resume_token(self.sent),
                    reset,
                    estimated_batch_size: estimated,
                },
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(r: &ExecuteQueryResponse) -> &PartialResultSet {
        match &r.response {
            Some(execute_query_response::Response::Results(p)) => p,
            other => panic!("not results: {other:?}"),
        }
    }

    fn batch_rows(p: &PartialResultSet) -> ProtoRows {
        let Some(partial_result_set::PartialRows::ProtoRowsBatch(b)) = &p.partial_rows else {
            panic!("no batch")
        };
        assert_eq!(p.batch_checksum, Some(crc32c(&b.batch_data)));
        ProtoRows::decode(b.batch_data.as_slice()).unwrap()
    }

    /// Every response for `rows` pushed as ExecuteQuery pushes them.
    fn all(rows: &[Vec<Value>], skip: u64, resumed: bool) -> Vec<ExecuteQueryResponse> {
        let mut batches = Batches::new(skip, resumed);
        let mut out = Vec::new();
        for row in rows {
            if !batches.push(row) {
                out.extend(batches.take());
            }
        }
        out.extend(batches.take());
        out
    }

    #[test]
    fn crc32c_is_castagnoli() {
        // The check value of CRC-32C, from its catalogue entry.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn rows_become_checksummed_batches_with_resume_tokens() {
        let big = "x".repeat(BATCH_BYTES / 2);
        let rows: Vec<Vec<Value>> = (0..5)
            .map(|i| vec![Value::Int64(i), Value::String(big.clone())])
            .collect();
        let out = all(&rows, 0, false);
        assert_eq!(out.len(), 3);
        let mut ints = Vec::new();
        for r in &out {
            let p = results(r);
            assert!(!p.reset);
            for pair in batch_rows(p).values.chunks(2) {
                ints.push(pair[0].kind.clone());
            }
            assert_eq!(rows_sent(&p.resume_token), Some(ints.len() as u64));
        }
        let want: Vec<_> = (0..5)
            .map(|i| Some(crate::proto::google::bigtable::v2::value::Kind::IntValue(i)))
            .collect();
        assert_eq!(ints, want);
    }

    #[test]
    fn resuming_skips_the_rows_sent_and_resets_first() {
        let rows: Vec<Vec<Value>> = (0..4).map(|i| vec![Value::Int64(i)]).collect();
        let out = all(&rows, 3, true);
        assert_eq!(out.len(), 1);
        let p = results(&out[0]);
        assert!(p.reset);
        assert_eq!(batch_rows(p).values.len(), 1);
        assert_eq!(rows_sent(&p.resume_token), Some(4));
        // Resuming from the last token sends the token again, no data.
        let out = all(&rows, 4, true);
        assert_eq!(out.len(), 1);
        let p = results(&out[0]);
        assert!(p.partial_rows.is_none() && p.batch_checksum.is_none());
        assert_eq!(rows_sent(&p.resume_token), Some(4));
        assert_eq!(rows_sent(b"nonsense"), None);
    }

    #[test]
    fn no_rows_is_one_response_with_the_token_alone() {
        let out = all(&[], 0, false);
        assert_eq!(out.len(), 1);
        assert_eq!(rows_sent(&results(&out[0]).resume_token), Some(0));
    }
}
