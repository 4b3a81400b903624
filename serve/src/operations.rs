//! Long-running operations: the admin methods Bigtable answers with a
//! `google.longrunning.Operation` (UpdateTable, CreateAuthorizedView,
//! UpdateAuthorizedView) finish here before they answer, so each answer
//! is an operation already done, its response and metadata packed as
//! `Any`. The finished operations are kept (the latest few hundred) for
//! `google.longrunning.Operations/GetOperation`, for clients that poll.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use prost::Name;
use prost_types::{Any, Timestamp};
use tonic::{Request, Response, Status};

use crate::proto::google::longrunning::operations_server::Operations;
use crate::proto::google::longrunning::{GetOperationRequest, Operation, operation};

/// How many finished operations GetOperation can still find.
const KEPT: usize = 512;

/// The operations answered so far, shared by the admin service (which
/// records them) and the operations service (which finds them).
#[derive(Clone, Default)]
pub struct Finished {
    kept: Arc<Mutex<VecDeque<Operation>>>,
    next_id: Arc<AtomicU64>,
}

impl Finished {
    /// A done operation on `resource` answering `response`, with
    /// `metadata`; kept for GetOperation.
    pub fn record<R: Name, M: Name>(
        &self,
        resource: &str,
        response: &R,
        metadata: &M,
    ) -> Operation {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let operation = Operation {
            name: format!("{resource}/operations/{id}"),
            metadata: Some(pack(metadata)),
            done: true,
            result: Some(operation::Result::Response(pack(response))),
        };
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back(operation.clone());
        operation
    }

    fn find(&self, name: &str) -> Option<Operation> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.iter().rev().find(|op| op.name == name).cloned()
    }
}

/// `message` as an `Any` with its full type URL
/// (`type.googleapis.com/google.bigtable.admin.v2.AuthorizedView`), which
/// the client libraries read to unpack it.
fn pack<M: Name>(message: &M) -> Any {
    Any {
        type_url: format!("type.googleapis.com/{}", M::full_name()),
        value: message.encode_to_vec(),
    }
}

/// The time now, as the operations' metadata carries it.
pub fn now() -> Timestamp {
    Timestamp::from(SystemTime::now())
}

/// `google.longrunning.Operations`: GetOperation finds a finished
/// operation; the others are UNIMPLEMENTED (nothing is ever still
/// running, so there is nothing to wait for or cancel).
pub struct OperationsService {
    pub finished: Finished,
}

#[tonic::async_trait]
impl Operations for OperationsService {
    async fn get_operation(
        &self,
        request: Request<GetOperationRequest>,
    ) -> Result<Response<Operation>, Status> {
        let name = &request.get_ref().name;
        self.finished.find(name).map(Response::new).ok_or_else(|| {
            let shown: String = name.chars().take(200).collect();
            Status::not_found(format!("operation \"{shown}\" not found"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::google::bigtable::admin::v2::{AuthorizedView, CreateAuthorizedViewMetadata};
    use prost::Message;

    #[test]
    fn a_recorded_operation_is_done_packed_and_found_again() {
        let finished = Finished::default();
        let view = AuthorizedView {
            name: "projects/p/instances/i/tables/t/authorizedViews/v".into(),
            ..AuthorizedView::default()
        };
        let op = finished.record(&view.name, &view, &CreateAuthorizedViewMetadata::default());
        assert!(op.done);
        let Some(operation::Result::Response(any)) = &op.result else {
            panic!("no response in {op:?}");
        };
        assert_eq!(
            any.type_url,
            "type.googleapis.com/google.bigtable.admin.v2.AuthorizedView"
        );
        assert_eq!(AuthorizedView::decode(any.value.as_slice()).unwrap(), view);
        assert_eq!(
            op.metadata.as_ref().map(|m| m.type_url.as_str()),
            Some("type.googleapis.com/google.bigtable.admin.v2.CreateAuthorizedViewMetadata")
        );
        assert_eq!(finished.find(&op.name), Some(op.clone()));
        let again = finished.record(&view.name, &view, &CreateAuthorizedViewMetadata::default());
        assert_ne!(again.name, op.name, "each operation has a name of its own");
        assert_eq!(finished.find("nope"), None);
    }

    #[test]
    fn only_the_latest_operations_are_kept() {
        let finished = Finished::default();
        let view = AuthorizedView::default();
        let first = finished.record("r", &view, &view);
        for _ in 0..KEPT {
            finished.record("r", &view, &view);
        }
        assert_eq!(finished.find(&first.name), None);
        assert_eq!(finished.kept.lock().unwrap().len(), KEPT);
    }
}
