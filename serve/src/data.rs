//! `google.bigtable.v2.Bigtable`: each method is the JSON protocol's
//! method of the same name, with its answer turned back into messages
//! (ReadRows into chunk streams).

use serde_json::Value;
use tonic::{Request, Response, Status};

use crate::chunks;
use crate::instance::Shared;
use crate::proto::google::bigtable::v2::bigtable_server::Bigtable;
use crate::proto::google::bigtable::v2::{
    CheckAndMutateRowRequest, CheckAndMutateRowResponse, ExecuteQueryRequest, ExecuteQueryResponse,
    MutateRowRequest, MutateRowResponse, MutateRowsRequest, MutateRowsResponse,
    PrepareQueryRequest, PrepareQueryResponse, ReadModifyWriteRowRequest,
    ReadModifyWriteRowResponse, ReadRowsRequest, ReadRowsResponse, RequestStats, Row,
    SampleRowKeysRequest, SampleRowKeysResponse,
};
use crate::query;
use crate::transcode::{from_json, to_json};

type Stream<T> = std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<T, Status>> + Send>>;

/// The data API over a shared instance.
pub struct DataService {
    pub shared: Shared,
}

impl DataService {
    fn call<Q, A>(&self, method: &str, request: &Q) -> Result<A, Status>
    where
        Q: prost::Message + prost::Name,
        A: prost::Message + prost::Name + Default,
    {
        from_json(&self.shared.call(method, &to_json(request)?)?)
    }

    /// The messages of a streamed answer, held in the answer's `field`.
    fn call_list<Q, A>(&self, method: &str, request: &Q, field: &str) -> Result<Vec<A>, Status>
    where
        Q: prost::Message + prost::Name,
        A: prost::Message + prost::Name + Default,
    {
        let answer = self.shared.call(method, &to_json(request)?)?;
        list(&answer, field)?.iter().map(from_json).collect()
    }
}

fn list<'a>(answer: &'a Value, field: &str) -> Result<&'a Vec<Value>, Status> {
    answer[field]
        .as_array()
        .ok_or_else(|| Status::internal(format!("the answer has no {field} list")))
}

fn stream<T: Send + 'static>(items: Vec<T>) -> Response<Stream<T>> {
    Response::new(Box::pin(tokio_stream::iter(items.into_iter().map(Ok))))
}

#[tonic::async_trait]
impl Bigtable for DataService {
    async fn read_rows(
        &self,
        request: Request<ReadRowsRequest>,
    ) -> Result<Response<Stream<ReadRowsResponse>>, Status> {
        let answer = self.shared.call("readRows", &to_json(request.get_ref())?)?;
        let rows: Vec<Row> = list(&answer, "rows")?
            .iter()
            .map(from_json)
            .collect::<Result<_, _>>()?;
        let mut responses = chunks::responses(rows);
        // With REQUEST_STATS_FULL the stats of the whole read come last,
        // as Bigtable sends them.
        if let Some(stats) = answer.get("requestStats") {
            responses.push(ReadRowsResponse {
                request_stats: Some(from_json::<RequestStats>(stats)?),
                ..ReadRowsResponse::default()
            });
        }
        Ok(stream(responses))
    }

    async fn sample_row_keys(
        &self,
        request: Request<SampleRowKeysRequest>,
    ) -> Result<Response<Stream<SampleRowKeysResponse>>, Status> {
        let samples = self.call_list("sampleRowKeys", request.get_ref(), "samples")?;
        Ok(stream(samples))
    }

    async fn mutate_row(
        &self,
        request: Request<MutateRowRequest>,
    ) -> Result<Response<MutateRowResponse>, Status> {
        self.call("mutateRow", request.get_ref()).map(Response::new)
    }

    async fn mutate_rows(
        &self,
        request: Request<MutateRowsRequest>,
    ) -> Result<Response<Stream<MutateRowsResponse>>, Status> {
        let answer: MutateRowsResponse = self.call("mutateRows", request.get_ref())?;
        Ok(stream(vec![answer]))
    }

    async fn check_and_mutate_row(
        &self,
        request: Request<CheckAndMutateRowRequest>,
    ) -> Result<Response<CheckAndMutateRowResponse>, Status> {
        self.call("checkAndMutateRow", request.get_ref())
            .map(Response::new)
    }

    async fn read_modify_write_row(
        &self,
        request: Request<ReadModifyWriteRowRequest>,
    ) -> Result<Response<ReadModifyWriteRowResponse>, Status> {
        self.call("readModifyWriteRow", request.get_ref())
            .map(Response::new)
    }

    async fn prepare_query(
        &self,
        request: Request<PrepareQueryRequest>,
    ) -> Result<Response<PrepareQueryResponse>, Status> {
        query::prepare(&self.shared, request.get_ref()).map(Response::new)
    }

    async fn execute_query(
        &self,
        request: Request<ExecuteQueryRequest>,
    ) -> Result<Response<Stream<ExecuteQueryResponse>>, Status> {
        let batches = query::execute(&self.shared, request.get_ref())?;
        Ok(Response::new(Box::pin(tokio_stream::iter(batches.map(Ok)))))
    }
}
