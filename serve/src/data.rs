//! `google.bigtable.v2.Bigtable`: each method is the JSON protocol's
//! method of the same name, with its answer turned back into messages
//! (ReadRows into chunk streams).

use serde_json::Value;
use tabletop_core::Fidelity;
use tabletop_core::api::ReadPages;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::change_stream;
use crate::chunks;
use crate::instance::Shared;
use crate::proto::google::bigtable::v2::bigtable_server::Bigtable;
use crate::proto::google::bigtable::v2::{
    CheckAndMutateRowRequest, CheckAndMutateRowResponse, ExecuteQueryRequest, ExecuteQueryResponse,
    GenerateInitialChangeStreamPartitionsRequest, GenerateInitialChangeStreamPartitionsResponse,
    MutateRowRequest, MutateRowResponse, MutateRowsRequest, MutateRowsResponse,
    PrepareQueryRequest, PrepareQueryResponse, ReadChangeStreamRequest, ReadChangeStreamResponse,
    ReadModifyWriteRowRequest, ReadModifyWriteRowResponse, ReadRowsRequest, ReadRowsResponse,
    RequestStats, SampleRowKeysRequest, SampleRowKeysResponse,
};
use crate::query;
use crate::transcode::{from_json, to_json};
use crate::wording;
use crate::writes;

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

/// How many pages (responses of about [`chunks::RESPONSE_BYTES`], or an
/// ExecuteQuery's batches) a ReadRows or ExecuteQuery may have read ahead
/// of the client: a slow client slows the
/// read, a cancelled one stops it, and a huge scan holds little memory.
const PAGES_AHEAD: usize = 2;

/// One page of a ReadRows as one response, read under the instance's lock
/// (released before the page is sent).
fn read_page(
    shared: &Shared,
    body: &Value,
    read: &mut ReadPages,
) -> Result<ReadRowsResponse, Status> {
    let mut sink = chunks::ResponseSink::default();
    shared.for_request(body, |db| {
        read.next_page(db, &mut sink)
            .map_err(|e| wording::reword("readRows", body, e))
    })?;
    Ok(sink.response)
}

/// Sends `first`, then reads and sends page after page until the rows run
/// out, the client goes away or a page fails; the request stats last when
/// they were asked for, as Bigtable sends them.
async fn stream_pages(
    shared: Shared,
    body: Value,
    mut read: ReadPages,
    first: ReadRowsResponse,
    sender: tokio::sync::mpsc::Sender<Result<ReadRowsResponse, Status>>,
) {
    let mut page = first;
    loop {
        if !page.chunks.is_empty() && sender.send(Ok(page)).await.is_err() {
            return;
        }
        if read.is_done() {
            break;
        }
        page = match read_page(&shared, &body, &mut read) {
            Ok(page) => page,
            Err(e) => {
                let _ = sender.send(Err(e)).await;
                return;
            }
        };
    }
    if let Some(last) = stats_response(&read) {
        let _ = sender.send(last).await;
    }
}

/// Sends `first`, then makes and sends response after response (a page
/// of rows each) until the rows run out, the client goes away or a page
/// fails.
async fn stream_query(
    shared: Shared,
    mut execution: query::Execution,
    first: Option<ExecuteQueryResponse>,
    sender: tokio::sync::mpsc::Sender<Result<ExecuteQueryResponse, Status>>,
) {
    let mut next = first;
    loop {
        if let Some(response) = next.take()
            && sender.send(Ok(response)).await.is_err()
        {
            return;
        }
        if execution.is_done() {
            return;
        }
        next = match execution.next_response(&shared) {
            Ok(response) => response,
            Err(e) => {
                let _ = sender.send(Err(e)).await;
                return;
            }
        };
    }
}

/// The request stats, as the stream's last message, when they were asked
/// for.
fn stats_response(read: &ReadPages) -> Option<Result<ReadRowsResponse, Status>> {
    let stats = read.request_stats()?;
    Some(
        from_json::<RequestStats>(&stats).map(|stats| ReadRowsResponse {
            request_stats: Some(stats),
            ..ReadRowsResponse::default()
        }),
    )
}

/// The messages of a ReadRows read whole in its first page: the page
/// (unless it is empty) and the request stats when they were asked for.
fn whole_answer(
    first: ReadRowsResponse,
    read: &ReadPages,
) -> Result<Vec<ReadRowsResponse>, Status> {
    let mut messages = Vec::with_capacity(2);
    if !first.chunks.is_empty() {
        messages.push(first);
    }
    if let Some(last) = stats_response(read) {
        messages.push(last?);
    }
    Ok(messages)
}

fn stream<T: Send + 'static>(items: Vec<T>) -> Response<Stream<T>> {
    Response::new(Box::pin(tokio_stream::iter(items.into_iter().map(Ok))))
}

impl DataService {
    /// Google's emulator has no SQL: under emulator parity the query
    /// methods answer UNIMPLEMENTED in its words.
    fn refuse_sql_as_the_emulator(&self, instance_name: &str, method: &str) -> Result<(), Status> {
        let names = serde_json::json!({ "instanceName": instance_name });
        let fidelity = self.shared.for_request(&names, |db| Ok(db.fidelity()))?;
        if fidelity == Fidelity::Emulator {
            return Err(Status::unimplemented(format!(
                "the emulator does not currently support {method}"
            )));
        }
        Ok(())
    }
}

#[tonic::async_trait]
impl Bigtable for DataService {
    async fn read_rows(
        &self,
        request: Request<ReadRowsRequest>,
    ) -> Result<Response<Stream<ReadRowsResponse>>, Status> {
        let body = to_json(request.get_ref())?;
        // Decoded as the instance it names reads requests (its fidelity).
        let mut read = self
            .shared
            .for_request(&body, |db| ReadPages::new(&body, db.fidelity()))?;
        // The first page is read here, so a request that fails at once
        // (a missing table) answers its status rather than an empty stream.
        let first = read_page(&self.shared, &body, &mut read)?;
        if read.is_done() {
            // All of it (a point read, a short scan): answered as a stream
            // that is already complete, so the message and the end of the
            // stream go out together, with no task or channel between.
            return Ok(stream(whole_answer(first, &read)?));
        }
        let (sender, receiver) = tokio::sync::mpsc::channel(PAGES_AHEAD);
        tokio::spawn(stream_pages(self.shared.clone(), body, read, first, sender));
        Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
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
        match writes::mutate_row(&self.shared, request.get_ref()) {
            Some(answer) => answer,
            None => self.call("mutateRow", request.get_ref()),
        }
        .map(Response::new)
    }

    async fn mutate_rows(
        &self,
        request: Request<MutateRowsRequest>,
    ) -> Result<Response<Stream<MutateRowsResponse>>, Status> {
        let answer = match writes::mutate_rows(&self.shared, request.get_ref()) {
            Some(answer) => answer?,
            None => self.call("mutateRows", request.get_ref())?,
        };
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

    async fn generate_initial_change_stream_partitions(
        &self,
        request: Request<GenerateInitialChangeStreamPartitionsRequest>,
    ) -> Result<Response<Stream<GenerateInitialChangeStreamPartitionsResponse>>, Status> {
        let answer = self.shared.call(
            "generateInitialChangeStreamPartitions",
            &to_json(request.get_ref())?,
        )?;
        let parts = answer
            .as_array()
            .ok_or_else(|| Status::internal("the answer has no partition list"))?
            .iter()
            .map(from_json)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(stream(parts))
    }

    async fn read_change_stream(
        &self,
        request: Request<ReadChangeStreamRequest>,
    ) -> Result<Response<Stream<ReadChangeStreamResponse>>, Status> {
        let live = change_stream::follow(self.shared.clone(), request.get_ref())?;
        Ok(Response::new(Box::pin(live)))
    }

    async fn prepare_query(
        &self,
        request: Request<PrepareQueryRequest>,
    ) -> Result<Response<PrepareQueryResponse>, Status> {
        self.refuse_sql_as_the_emulator(&request.get_ref().instance_name, "PrepareQuery")?;
        query::prepare(&self.shared, request.get_ref()).map(Response::new)
    }

    async fn execute_query(
        &self,
        request: Request<ExecuteQueryRequest>,
    ) -> Result<Response<Stream<ExecuteQueryResponse>>, Status> {
        self.refuse_sql_as_the_emulator(&request.get_ref().instance_name, "ExecuteQuery")?;
        let mut execution = query::execute(&self.shared, request.get_ref())?;
        // The first page is read here, so a query that fails at once
        // answers its status rather than a broken stream.
        let first = execution.next_response(&self.shared)?;
        if execution.is_done() {
            return Ok(stream(first.into_iter().collect()));
        }
        let (sender, receiver) = tokio::sync::mpsc::channel(PAGES_AHEAD);
        tokio::spawn(stream_query(self.shared.clone(), execution, first, sender));
        Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
    }
}
