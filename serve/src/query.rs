//! `PrepareQuery` and `ExecuteQuery`: GoogleSQL through the core's SQL
//! engine (`tabletop_core::sql`), the subset `tabletop sql` runs.
//!
//! PrepareQuery plans the query without reading and answers its columns
//! and their Bigtable types, with a `prepared_query` token that carries the
//! query text and a checksum of those columns. ExecuteQuery plans the
//! query again (a table's families may have changed since: then the token
//! is refused with FAILED_PRECONDITION, as Bigtable refuses an expired
//! plan), runs it a page at a time, and streams the rows in checksummed
//! batches ([`batches`]), one per page, so memory stays flat however many
//! rows a query answers. Query parameters (`@name`) are not in the SQL subset and
//! are refused.

mod batches;
mod values;

use prost::Message;
use std::time::{Duration, SystemTime};
use tabletop_core::sql;
use tonic::Status;

use crate::instance::Shared;
use crate::proto::google::bigtable::v2::{
    ExecuteQueryRequest, ExecuteQueryResponse, PrepareQueryRequest, PrepareQueryResponse,
    ResultSetMetadata,
};
pub use batches::Batches;

/// What a `prepared_query` token starts with.
const TOKEN_TAG: &str = "tabletop-prepared-query/1\n";

/// How long a prepared query is said to stay valid (tokens never expire
/// here; a changed schema is what makes one stale).
const VALID_FOR: Duration = Duration::from_secs(24 * 3600);

/// PrepareQuery: the query's columns and a token to run it with.
pub fn prepare(
    shared: &Shared,
    request: &PrepareQueryRequest,
) -> Result<PrepareQueryResponse, Status> {
    refuse_parameters(request.param_types.len())?;
    let columns = shared.on_instance(&request.instance_name, |db| {
        sql::prepare(db, &request.query)
    })?;
    let metadata = values::metadata(&columns);
    Ok(PrepareQueryResponse {
        prepared_query: token(&request.query, &metadata),
        metadata: Some(metadata),
        valid_until: Some(prost_types::Timestamp::from(SystemTime::now() + VALID_FOR)),
    })
}

/// An ExecuteQuery being answered: the query run a page at a time
/// ([`sql::QueryPages`]), each page one response of at most about
/// [`batches::BATCH_BYTES`], so a large result is never held whole.
pub struct Execution {
    instance: String,
    pages: sql::QueryPages,
    batches: Batches,
}

impl Execution {
    /// Whether every response has been made.
    pub fn is_done(&self) -> bool {
        self.pages.is_done()
    }

    /// The next response, read under the instance's lock; `None` when
    /// the last page held no rows.
    pub fn next_response(
        &mut self,
        shared: &Shared,
    ) -> Result<Option<ExecuteQueryResponse>, Status> {
        let (pages, batches) = (&mut self.pages, &mut self.batches);
        shared.on_instance(&self.instance, |db| {
            pages.next_page(db, &mut |row| batches.push(&row))
        })?;
        Ok(batches.take())
    }
}

/// ExecuteQuery: plans the prepared query (checking its columns have not
/// changed) and starts it, after the rows the request's resume token says
/// the client has.
pub fn execute(shared: &Shared, request: &ExecuteQueryRequest) -> Result<Execution, Status> {
    refuse_parameters(request.params.len())?;
    if request.prepared_query.is_empty() {
        return Err(Status::invalid_argument(
            "ExecuteQuery needs the prepared_query that PrepareQuery answered",
        ));
    }
    let (query, checksum) = read_token(&request.prepared_query)?;
    let skip = if request.resume_token.is_empty() {
        0
    } else {
        batches::rows_sent(&request.resume_token).ok_or_else(|| {
            Status::invalid_argument("the resume_token is not one this server sent")
        })?
    };
    let pages = shared.on_instance(&request.instance_name, |db| {
        let columns = sql::prepare(db, &query)?;
        if metadata_checksum(&values::metadata(&columns)) != checksum {
            return Ok(None);
        }
        sql::QueryPages::new(db, &query).map(Some)
    })?;
    let pages = pages.ok_or_else(|| {
        Status::failed_precondition(
            "the prepared query's result columns have changed since PrepareQuery; prepare it again",
        )
    })?;
    Ok(Execution {
        instance: request.instance_name.clone(),
        pages,
        batches: Batches::new(skip, !request.resume_token.is_empty()),
    })
}

fn refuse_parameters(count: usize) -> Result<(), Status> {
    if count == 0 {
        Ok(())
    } else {
        Err(Status::invalid_argument(
            "query parameters (@name) are not supported by Tabletop's SQL: write the values into the query",
        ))
    }
}

fn metadata_checksum(metadata: &ResultSetMetadata) -> u32 {
    batches::crc32c(&metadata.encode_to_vec())
}

/// The token: the tag, the columns' checksum in hex, a newline, the query.
fn token(query: &str, metadata: &ResultSetMetadata) -> Vec<u8> {
    format!("{TOKEN_TAG}{:08x}\n{query}", metadata_checksum(metadata)).into_bytes()
}

fn read_token(token: &[u8]) -> Result<(String, u32), Status> {
    let bad =
        || Status::invalid_argument("the prepared_query is not one PrepareQuery answered here");
    let text = std::str::from_utf8(token).map_err(|_| bad())?;
    let rest = text.strip_prefix(TOKEN_TAG).ok_or_else(bad)?;
    let (checksum, query) = rest.split_once('\n').ok_or_else(bad)?;
    let checksum = u32::from_str_radix(checksum, 16).map_err(|_| bad())?;
    Ok((query.to_string(), checksum))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_core::sql::{Column, SqlType};

    #[test]
    fn tokens_carry_the_query_and_refuse_others() {
        let metadata = values::metadata(&[Column {
            name: "_key".into(),
            sql_type: SqlType::Bytes,
        }]);
        let t = token("SELECT _key\nFROM t", &metadata);
        assert_eq!(
            read_token(&t).unwrap(),
            (
                "SELECT _key\nFROM t".to_string(),
                metadata_checksum(&metadata)
            )
        );
        for bad in [
            &b"SELECT 1"[..],
            b"tabletop-prepared-query/1\nzz\nq",
            b"\xff",
        ] {
            assert_eq!(
                read_token(bad).unwrap_err().code(),
                tonic::Code::InvalidArgument
            );
        }
    }

    fn served() -> Shared {
        let shared = Shared::new(tabletop_core::Instances::default());
        shared
            .call(
                "createTable",
                &serde_json::json!({"parent": "projects/p/instances/i", "tableId": "t",
                    "table": {"columnFamilies": {"cf": {}}}}),
            )
            .unwrap();
        shared
            .call(
                "mutateRow",
                &serde_json::json!({"tableName": "projects/p/instances/i/tables/t",
                    "rowKey": "cjE=", "mutations": [{"setCell": {"familyName": "cf",
                    "columnQualifier": "Yw==", "timestampMicros": "1000", "value": "dg=="}}]}),
            )
            .unwrap();
        shared
    }

    fn prepare_request(query: &str) -> PrepareQueryRequest {
        PrepareQueryRequest {
            instance_name: "projects/p/instances/i".into(),
            query: query.into(),
            ..PrepareQueryRequest::default()
        }
    }

    #[test]
    fn a_prepared_query_runs_until_the_table_s_columns_change() {
        let shared = served();
        let prepared = prepare(&shared, &prepare_request("SELECT * FROM t")).unwrap();
        let execute_request = ExecuteQueryRequest {
            instance_name: "projects/p/instances/i".into(),
            prepared_query: prepared.prepared_query.clone(),
            ..ExecuteQueryRequest::default()
        };
        let mut execution = execute(&shared, &execute_request).unwrap();
        let first = execution.next_response(&shared).unwrap();
        assert!(first.is_some() && execution.is_done());
        shared
            .call(
                "modifyColumnFamilies",
                &serde_json::json!({"name": "projects/p/instances/i/tables/t",
                    "modifications": [{"id": "more", "create": {}}]}),
            )
            .unwrap();
        let Err(e) = execute(&shared, &execute_request) else {
            panic!("a stale prepared query ran");
        };
        assert_eq!(e.code(), tonic::Code::FailedPrecondition);
    }

    #[test]
    fn bad_requests_are_refused_with_reasons() {
        let shared = served();
        let mut request = prepare_request("SELECT * FROM t");
        request.instance_name = "projects/p".into();
        assert_eq!(
            prepare(&shared, &request).unwrap_err().code(),
            tonic::Code::InvalidArgument
        );
        let e = prepare(&shared, &prepare_request("SELECT * FROM nope")).unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
        assert!(e.message().starts_with("Table not found: nope"), "{e:?}");
        let mut request = prepare_request("SELECT @x");
        request
            .param_types
            .insert("x".into(), values::bigtable_type(&SqlType::Int64));
        assert!(
            prepare(&shared, &request)
                .unwrap_err()
                .message()
                .contains("parameters")
        );
        // The deprecated `query` field alone (no prepared_query).
        #[allow(deprecated)]
        let unprepared = ExecuteQueryRequest {
            instance_name: "projects/p/instances/i".into(),
            query: "SELECT * FROM t".into(),
            ..ExecuteQueryRequest::default()
        };
        let Err(e) = execute(&shared, &unprepared) else {
            panic!("a query without prepared_query ran");
        };
        assert!(e.message().contains("prepared_query"), "{e:?}");
    }
}
