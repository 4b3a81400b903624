//! Generated messages to and from proto3 JSON, through their descriptors,
//! so every gRPC request runs through the core's JSON protocol: one
//! implementation of Bigtable's semantics, checks and error messages.

use std::sync::OnceLock;

use prost::{Message, Name};
use prost_reflect::{DescriptorPool, DeserializeOptions, DynamicMessage, MessageDescriptor};
use serde_json::Value;
use tonic::Status;

use crate::proto::DESCRIPTORS;

fn pool() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| {
        // The descriptor set was written by build.rs from the same files
        // the types were generated from, so it always decodes.
        DescriptorPool::decode(DESCRIPTORS).expect("build.rs wrote a valid descriptor set")
    })
}

/// Decodes the protocol's descriptors now rather than on the first
/// request (tens of milliseconds), so no client pays for them.
pub fn prepare() {
    pool();
}

fn descriptor<M: Name>() -> Result<MessageDescriptor, Status> {
    pool()
        .get_message_by_name(&M::full_name())
        .ok_or_else(|| Status::internal(format!("no descriptor for {}", M::full_name())))
}

/// The proto3 JSON of a message: lowerCamelCase names, bytes in base64,
/// int64 as strings, enums by name, default values left out.
pub fn to_json<M: Message + Name>(message: &M) -> Result<Value, Status> {
    let dynamic = DynamicMessage::decode(descriptor::<M>()?, message.encode_to_vec().as_slice())
        .map_err(|e| Status::internal(format!("transcoding {}: {e}", M::full_name())))?;
    serde_json::to_value(&dynamic)
        .map_err(|e| Status::internal(format!("transcoding {}: {e}", M::full_name())))
}

/// A message from the proto3 JSON the core answered. Fields the message
/// does not have (the playground's wrappers) are ignored.
pub fn from_json<M: Message + Name + Default>(json: &Value) -> Result<M, Status> {
    let options = DeserializeOptions::new().deny_unknown_fields(false);
    let dynamic = DynamicMessage::deserialize_with_options(descriptor::<M>()?, json, &options)
        .map_err(|e| Status::internal(format!("answer as {}: {e}", M::full_name())))?;
    M::decode(dynamic.encode_to_vec().as_slice())
        .map_err(|e| Status::internal(format!("answer as {}: {e}", M::full_name())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::google::bigtable::v2::{MutateRowRequest, Mutation, mutation};
    use serde_json::json;

    #[test]
    fn requests_become_the_json_protocol_s_bodies() {
        let request = MutateRowRequest {
            table_name: "projects/p/instances/i/tables/t".into(),
            row_key: b"r1".to_vec(),
            mutations: vec![Mutation {
                mutation: Some(mutation::Mutation::SetCell(mutation::SetCell {
                    family_name: "cf".into(),
                    column_qualifier: b"c".to_vec(),
                    timestamp_micros: -1,
                    value: b"v".to_vec(),
                })),
            }],
            ..MutateRowRequest::default()
        };
        assert_eq!(
            to_json(&request).unwrap(),
            json!({"tableName": "projects/p/instances/i/tables/t", "rowKey": "cjE=",
                   "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": "Yw==",
                                  "timestampMicros": "-1", "value": "dg=="}}]})
        );
    }

    #[test]
    fn answers_ignore_wrapper_fields_and_read_numbers() {
        use crate::proto::google::bigtable::v2::mutate_rows_response::Entry;
        let entry: Entry =
            from_json(&json!({"index": 2, "status": {"code": 5, "message": "gone"}, "extra": 1}))
                .unwrap();
        assert_eq!(entry.index, 2);
        assert_eq!(
            entry.status.map(|s| (s.code, s.message)),
            Some((5, "gone".into()))
        );
    }

    #[test]
    fn a_malformed_answer_is_an_internal_status_not_a_panic() {
        use crate::proto::google::bigtable::v2::Row;
        let e = from_json::<Row>(&json!({"key": 7})).unwrap_err();
        assert_eq!(e.code(), tonic::Code::Internal);
    }
}
