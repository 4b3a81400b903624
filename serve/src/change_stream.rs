//! ReadChangeStream as a live stream. The JSON protocol's
//! `readChangeStream` answers what is recorded up to now, ending with a
//! heartbeat that holds the token to continue from (or a close message
//! once the end time has passed); this file keeps asking it, from the last
//! token, and sends each new change as it is committed, a heartbeat when
//! nothing was sent for the request's heartbeat duration, and ends with
//! the close message, as Bigtable's stream does. The stream stops when the
//! client goes away.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Status;

use crate::instance::Shared;
use crate::proto::google::bigtable::v2::{ReadChangeStreamRequest, ReadChangeStreamResponse};
use crate::transcode::{from_json, to_json};

/// How often the stream looks for new changes.
const POLL: Duration = Duration::from_millis(100);
/// The heartbeat interval when the request sets none.
const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(5);
/// Messages buffered for a slow client before the stream waits for it.
const BUFFER: usize = 256;

/// The stream of one ReadChangeStream request. Errors of the request
/// itself (a table without a change stream, a bad token) come back as the
/// call's status, before any message.
pub fn follow(
    shared: Shared,
    request: &ReadChangeStreamRequest,
) -> Result<ReceiverStream<Result<ReadChangeStreamResponse, Status>>, Status> {
    let mut body = to_json(request)?;
    let heartbeat = request
        .heartbeat_duration
        .as_ref()
        .and_then(|d| {
            let secs = u64::try_from(d.seconds).ok()?;
            let nanos = u32::try_from(d.nanos).ok()?;
            Some(Duration::new(secs, nanos))
        })
        .filter(|d| !d.is_zero())
        .unwrap_or(DEFAULT_HEARTBEAT);
    let first = shared.call("readChangeStream", &body)?;
    let (tx, rx) = mpsc::channel(BUFFER);
    tokio::spawn(async move {
        let mut messages = first;
        // The first heartbeat goes out at once, so a client learns where
        // it stands even when nothing has changed yet.
        let mut last_sent: Option<Instant> = None;
        loop {
            let Some(token) = send_batch(&tx, &messages, heartbeat, &mut last_sent).await else {
                return;
            };
            tokio::time::sleep(POLL).await;
            if tx.is_closed() {
                return;
            }
            if let Value::Object(map) = &mut body {
                map.remove("startTime");
                map.insert("continuationTokens".into(), json!({"tokens": [token]}));
            }
            messages = match shared.call("readChangeStream", &body) {
                Ok(m) => m,
                Err(status) => {
                    let _ = tx.send(Err(status)).await;
                    return;
                }
            };
        }
    });
    Ok(ReceiverStream::new(rx))
}

/// Sends one answer's messages; returns the token to continue from, or
/// `None` when the stream is over (closed, failed, or the client left).
async fn send_batch(
    tx: &mpsc::Sender<Result<ReadChangeStreamResponse, Status>>,
    messages: &Value,
    heartbeat: Duration,
    last_sent: &mut Option<Instant>,
) -> Option<Value> {
    let Some(list) = messages.as_array() else {
        let _ = tx
            .send(Err(Status::internal(
                "readChangeStream answered no message list",
            )))
            .await;
        return None;
    };
    let mut token = None;
    for m in list {
        if let Some(hb) = m.get("heartbeat") {
            token = Some(hb["continuationToken"].clone());
            if last_sent.is_some_and(|t| t.elapsed() < heartbeat) {
                continue;
            }
        }
        let message = from_json::<ReadChangeStreamResponse>(m);
        let failed = message.is_err();
        if tx.send(message).await.is_err() || failed {
            return None;
        }
        *last_sent = Some(Instant::now());
        if m.get("closeStream").is_some() {
            return None;
        }
    }
    token
}
