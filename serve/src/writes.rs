//! MutateRow and MutateRows handed to the core as they arrive: the
//! request's bytes become the core's mutations without a detour through
//! proto3 JSON, for the writes that carry bulk data.
//!
//! Like the JSON protocol's own fast path for these two methods, this one
//! only ever *accepts*: a request with anything unusual (an authorized
//! view, an idempotency token, a mutation kind other than SetCell and the
//! three deletes, an empty or oversized row key, an entry without
//! mutations, a table name that is not plainly well formed) is declined
//! (`None`) and goes through the JSON protocol, which gives its precise
//! error. What is accepted runs as the JSON protocol would run it: the
//! same core call on the same instance, with the same statuses.

use std::borrow::Cow;

use tabletop_core::{
    MAX_ROW_KEY_BYTES, MAX_TABLE_ID_LEN, MutateRowsEntry, Mutation, TimestampRange,
};
use tonic::Status;

use crate::instance::Shared;
use crate::proto::google::bigtable::v2::{
    MutateRowRequest, MutateRowResponse, MutateRowsRequest, MutateRowsResponse,
    mutate_rows_response, mutation,
};
use crate::proto::google::rpc;
use crate::transcode::to_json;
use crate::wording;

/// MutateRows, or `None` to go through the JSON protocol.
pub fn mutate_rows(
    shared: &Shared,
    request: &MutateRowsRequest,
) -> Option<Result<MutateRowsResponse, Status>> {
    if !request.authorized_view_name.is_empty() || request.entries.is_empty() {
        return None;
    }
    let table = table_id(&request.table_name)?;
    let entries = request
        .entries
        .iter()
        .map(|e| {
            if e.idempotency.is_some() || !row_key_ok(&e.row_key) || e.mutations.is_empty() {
                return None;
            }
            Some(MutateRowsEntry {
                row_key: Cow::Borrowed(e.row_key.as_slice()),
                mutations: mutations(&e.mutations)?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let body = || to_json(request);
    let results = shared.change(&request.table_name, "mutateRows", &body, |db| {
        db.mutate_rows(table, &entries)
            .map_err(|e| wording::missing_table(&request.table_name, e))
    });
    Some(results.map(|results| {
        MutateRowsResponse {
            entries: results
                .iter()
                .enumerate()
                .map(|(i, r)| mutate_rows_response::Entry {
                    index: i64::try_from(i).unwrap_or(i64::MAX),
                    status: Some(match r {
                        Ok(()) => rpc::Status::default(),
                        Err(e) => rpc::Status {
                            code: e.code().number(),
                            message: e.message().to_string(),
                            details: Vec::new(),
                        },
                    }),
                })
                .collect(),
            rate_limit_info: None,
        }
    }))
}

/// MutateRow, or `None` to go through the JSON protocol.
pub fn mutate_row(
    shared: &Shared,
    request: &MutateRowRequest,
) -> Option<Result<MutateRowResponse, Status>> {
    if !request.authorized_view_name.is_empty()
        || request.idempotency.is_some()
        || !row_key_ok(&request.row_key)
    {
        return None;
    }
    let table = table_id(&request.table_name)?;
    let mutations = mutations(&request.mutations)?;
    let body = || to_json(request);
    let done = shared.change(&request.table_name, "mutateRow", &body, |db| {
        db.mutate_row(table, &request.row_key, &mutations)
            .map_err(|e| wording::missing_table(&request.table_name, e))
    });
    Some(done.map(|()| MutateRowResponse {}))
}

fn mutations(list: &[crate::proto::google::bigtable::v2::Mutation]) -> Option<Vec<Mutation<'_>>> {
    list.iter()
        .map(|m| core_mutation(m.mutation.as_ref()?))
        .collect()
}

fn core_mutation(m: &mutation::Mutation) -> Option<Mutation<'_>> {
    Some(match m {
        mutation::Mutation::SetCell(s) => Mutation::SetCell {
            family_name: Cow::Borrowed(&s.family_name),
            column_qualifier: Cow::Borrowed(&s.column_qualifier),
            timestamp_micros: s.timestamp_micros,
            value: Cow::Borrowed(&s.value),
        },
        mutation::Mutation::DeleteFromColumn(c) => Mutation::DeleteFromColumn {
            family_name: Cow::Borrowed(&c.family_name),
            column_qualifier: Cow::Borrowed(&c.column_qualifier),
            time_range: c.time_range.as_ref().map(|r| TimestampRange {
                start_micros: r.start_timestamp_micros,
                end_micros: r.end_timestamp_micros,
            }),
        },
        mutation::Mutation::DeleteFromFamily(f) => Mutation::DeleteFromFamily {
            family_name: Cow::Borrowed(&f.family_name),
        },
        mutation::Mutation::DeleteFromRow(_) => Mutation::DeleteFromRow,
        _ => return None,
    })
}

fn row_key_ok(key: &[u8]) -> bool {
    !key.is_empty() && key.len() <= MAX_ROW_KEY_BYTES
}

/// The table id of a plainly well-formed table name
/// (`projects/P/instances/I/tables/T`, printable ASCII, no empty part,
/// an id no longer than a table's can be).
fn table_id(name: &str) -> Option<&str> {
    let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic() && b != b'/');
    let mut parts = name.split('/');
    match (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) {
        (Some("projects"), Some(p), Some("instances"), Some(i), Some("tables"), Some(t), None)
            if ok(p) && ok(i) && ok(t) && t.len() <= MAX_TABLE_ID_LEN =>
        {
            Some(t)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::google::bigtable::v2::{Mutation as ProtoMutation, mutate_rows_request};
    use crate::transcode::from_json;
    use serde_json::json;

    const TABLE: &str = "projects/p/instances/i/tables/t";

    fn served() -> Shared {
        let shared = Shared::new(tabletop_core::Instances::default());
        shared
            .call(
                "createTable",
                &json!({"parent": "projects/p/instances/i", "tableId": "t",
                    "table": {"columnFamilies": {"cf": {}}}}),
            )
            .unwrap();
        shared
    }

    fn set(family: &str, ts: i64) -> ProtoMutation {
        ProtoMutation {
            mutation: Some(mutation::Mutation::SetCell(mutation::SetCell {
                family_name: family.into(),
                column_qualifier: b"c".to_vec(),
                timestamp_micros: ts,
                value: b"v".to_vec(),
            })),
        }
    }

    fn entry(key: &[u8], mutations: Vec<ProtoMutation>) -> mutate_rows_request::Entry {
        mutate_rows_request::Entry {
            row_key: key.to_vec(),
            mutations,
            idempotency: None,
        }
    }

    /// The answer of the JSON protocol for the same request, on a fresh
    /// instance of its own.
    fn through_json(request: &MutateRowsRequest) -> Result<MutateRowsResponse, Status> {
        let answer = served().call("mutateRows", &to_json(request).unwrap())?;
        from_json(&answer)
    }

    #[test]
    fn accepted_writes_answer_as_the_json_protocol_does() {
        let request = MutateRowsRequest {
            table_name: TABLE.into(),
            entries: vec![
                entry(b"a", vec![set("cf", 1000)]),
                entry(b"b", vec![set("nope", 1000)]),
                entry(b"c", vec![set("cf", 1001)]),
            ],
            ..MutateRowsRequest::default()
        };
        let shared = served();
        let fast = mutate_rows(&shared, &request).expect("accepted").unwrap();
        assert_eq!(fast, through_json(&request).unwrap());
        let codes: Vec<i32> = fast
            .entries
            .iter()
            .map(|e| e.status.as_ref().map_or(0, |s| s.code))
            .collect();
        assert_eq!(codes, vec![0, 5, 3]);
        let rows = shared
            .call("readRows", &json!({"tableName": TABLE}))
            .unwrap();
        assert_eq!(rows["rows"].as_array().map(Vec::len), Some(1));

        let missing = MutateRowsRequest {
            table_name: "projects/p/instances/i/tables/nope".into(),
            ..request.clone()
        };
        let e = mutate_rows(&shared, &missing)
            .expect("accepted")
            .unwrap_err();
        let want = through_json(&missing).unwrap_err();
        assert_eq!((e.code(), e.message()), (want.code(), want.message()));
    }

    #[test]
    fn unusual_requests_are_left_to_the_json_protocol() {
        let shared = served();
        let ok = MutateRowsRequest {
            table_name: TABLE.into(),
            entries: vec![entry(b"a", vec![set("cf", 1000)])],
            ..MutateRowsRequest::default()
        };
        let declined = [
            MutateRowsRequest {
                authorized_view_name: format!("{TABLE}/authorizedViews/v"),
                ..ok.clone()
            },
            MutateRowsRequest {
                table_name: "projects/p/instances/i/tables/".into(),
                ..ok.clone()
            },
            MutateRowsRequest {
                entries: vec![entry(b"", vec![set("cf", 1000)])],
                ..ok.clone()
            },
            MutateRowsRequest {
                entries: vec![entry(b"a", vec![])],
                ..ok.clone()
            },
            MutateRowsRequest {
                entries: vec![],
                ..ok.clone()
            },
        ];
        for request in &declined {
            assert!(mutate_rows(&shared, request).is_none(), "{request:?}");
        }
        let row = MutateRowRequest {
            table_name: TABLE.into(),
            row_key: b"r".to_vec(),
            mutations: vec![ProtoMutation { mutation: None }],
            ..MutateRowRequest::default()
        };
        assert!(mutate_row(&shared, &row).is_none());
    }
}
