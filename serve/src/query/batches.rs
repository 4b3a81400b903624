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

/// The responses for `rows`, the first `skip` of which the client already
/// has (it resumed with their token). `resumed` marks the first response
/// `reset`, as a retried stream's first response is. With no rows left
/// the stream is one response holding only the resume token.
#[derive(Debug)]
pub struct Batches {
    rows: std::vec::IntoIter<Vec<Value>>,
    sent: u64,
    first: bool,
    resumed: bool,
}

impl Batches {
    /// The batches of `rows` after the first `skip`.
    pub fn new(rows: Vec<Vec<Value>>, skip: u64, resumed: bool) -> Batches {
        let mut rows = rows.into_iter();
        let skipped = usize::try_from(skip).unwrap_or(usize::MAX);
        if skipped > 0 {
            // `nth` consumes the `skipped` rows before the one it returns.
            rows.nth(skipped - 1);
        }
        Batches {
            rows,
            sent: skip,
            first: true,
            resumed,
        }
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

impl Iterator for Batches {
    type Item = ExecuteQueryResponse;

    fn next(&mut self) -> Option<ExecuteQueryResponse> {
        let mut batch = ProtoRows::default();
        let mut bytes = 0;
        while bytes < BATCH_BYTES {
            let Some(row) = self.rows.next() else { break };
            for v in &row {
                let value = proto_value(v);
                bytes += value.encoded_len();
                batch.values.push(value);
            }
            self.sent += 1;
        }
        if batch.values.is_empty() {
            // Only a stream with no rows at all sends the token alone.
            return self.first.then(|| self.response(None, None));
        }
        let data = batch.encode_to_vec();
        let checksum = crc32c(&data);
        let rows =
            partial_result_set::PartialRows::ProtoRowsBatch(ProtoRowsBatch { batch_data: data });
        Some(self.response(Some(rows), Some(checksum)))
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
        let out: Vec<_> = Batches::new(rows, 0, false).collect();
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
        let out: Vec<_> = Batches::new(rows.clone(), 3, true).collect();
        assert_eq!(out.len(), 1);
        let p = results(&out[0]);
        assert!(p.reset);
        assert_eq!(batch_rows(p).values.len(), 1);
        assert_eq!(rows_sent(&p.resume_token), Some(4));
        // Resuming from the last token sends the token again, no data.
        let out: Vec<_> = Batches::new(rows, 4, true).collect();
        assert_eq!(out.len(), 1);
        let p = results(&out[0]);
        assert!(p.partial_rows.is_none() && p.batch_checksum.is_none());
        assert_eq!(rows_sent(&p.resume_token), Some(4));
        assert_eq!(rows_sent(b"nonsense"), None);
    }

    #[test]
    fn no_rows_is_one_response_with_the_token_alone() {
        let out: Vec<_> = Batches::new(Vec::new(), 0, false).collect();
        assert_eq!(out.len(), 1);
        assert_eq!(rows_sent(&results(&out[0]).resume_token), Some(0));
    }
}
