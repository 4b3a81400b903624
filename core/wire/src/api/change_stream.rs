//! Change streams in proto3 JSON: the table admin API's
//! `changeStreamConfig` (createTable, updateTable, getTable) and the data
//! API's `generateInitialChangeStreamPartitions` and `readChangeStream`.
//!
//! Both data methods stream in Bigtable; here, as over REST, the answer is
//! the JSON array of the messages the stream would carry. A
//! `readChangeStream` answer holds one `dataChange` per recorded change
//! (never chunked: `done` is always true), then a `closeStream` with an OK
//! status when the request's `endTime` has passed, or else a `heartbeat`
//! carrying the token to continue from (the stream would stay open).
//!
//! The partitions follow the table's tablets, one each; a read of a
//! partition the table no longer has (its tablets split or merged) ends
//! with a `closeStream` whose status is `OUT_OF_RANGE`, listing the new
//! partitions and the continuation tokens to start them from (see the
//! store's `change_stream/partitions.rs`). A continuation token is opaque
//! to clients; ours spells the position in the table's change log
//! (`cs1.<sequence>`).

use serde_json::Value;

use super::admin::{View, table_to_json};
use super::data::row_range_from_json;
use super::names::table_name;
use super::playground::rfc3339;
use super::proto_json::{At, Fields, Out, format_duration};
use crate::cbt::gostr::parse_rfc3339;
use tabletop_sql::Instance;
use tabletop_store::{
    AggregateInput, AggregateOp, ChangeRecord, ChangeStart, ChangeStreamBatch, ChangeStreamConfig,
    ChangeToken, Code, KeyBound, KeyRange, Mutation, PartitionChange, ReadChangeStreamRequest,
    Result, Traces,
};

/// How continuation tokens start; the rest is the sequence number.
const TOKEN_PREFIX: &str = "cs1.";

// ------------------------------------------------------------ config

/// Reads a `ChangeStreamConfig` (`{"retentionPeriod": "86400s"}`).
pub(crate) fn config_from_json(at: &At<'_>) -> Result<ChangeStreamConfig> {
    let mut f = at.object("ChangeStreamConfig")?;
    let retention = f.require("retentionPeriod")?;
    let (negative, d) = retention.duration()?;
    f.finish()?;
    let micros = i64::try_from(d.as_micros()).unwrap_or(i64::MAX);
    ChangeStreamConfig::new(if negative { -micros } else { micros })
        .map_err(|e| retention.context(e))
}

/// Writes a `ChangeStreamConfig`.
pub(crate) fn config_to_json(c: &ChangeStreamConfig) -> Value {
    let d = std::time::Duration::from_micros(c.retention_micros.max(0).unsigned_abs());
    Out::new()
        .set("retentionPeriod", Value::String(format_duration(d)))
        .build()
}

/// updateTable: the playground can change `changeStreamConfig` and
/// `deletionProtection`, each only when the mask names it. The answer is
/// the finished long-running operation with the table in it.
pub(crate) fn update_table(db: &mut Instance, req: &At<'_>, _traces: &mut Traces) -> Result<Value> {
    let mut f = req.object("UpdateTableRequest")?;
    let table_at = f.require("table")?;
    let mask_at = f.require("updateMask")?;
    let _ = f.get("ignoreWarnings")?;
    f.finish()?;
    let paths = mask_paths(&mask_at)?;
    let mut t = table_at.object("Table")?;
    let name = table_name(&t.require("name")?)?;
    let config = match t.get("changeStreamConfig")? {
        Some(c) => Some(config_from_json(&c)?),
        None => None,
    };
    let protection = match t.get("deletionProtection")? {
        Some(d) => d.bool()?,
        None => false,
    };
    // Fields the mask does not name are ignored, as in Bigtable; the ones
    // it can name but the playground cannot change are refused.
    for other in [
        "columnFamilies",
        "granularity",
        "automatedBackupPolicy",
        "rowKeySchema",
        "clusterStates",
        "restoreInfo",
        "stats",
        "tieredStorageConfig",
    ] {
        let _ = t.get(other)?;
    }
    t.finish()?;
    let mut change_stream = false;
    let mut deletion_protection = false;
    for path in &paths {
        match path.as_str() {
            "changeStreamConfig"
            | "change_stream_config"
            | "changeStreamConfig.retentionPeriod"
            | "change_stream_config.retention_period" => change_stream = true,
            "deletionProtection" | "deletion_protection" => deletion_protection = true,
            _ => {
                return Err(mask_at.unimplemented(format!(
                    "\"{path}\" cannot be updated by the playground; only changeStreamConfig and deletionProtection can"
                )));
            }
        }
    }
    // Both are checked before either changes: the table must exist.
    let mut info = db.get_table(&name.table_id)?;
    if change_stream {
        info = db.set_change_stream(&name.table_id, config)?;
    }
    if deletion_protection {
        info = db.set_deletion_protection(&name.table_id, protection)?;
    }
    let table = table_to_json(&name.full(), &info, View::Schema);
    let mut response = serde_json::Map::new();
    response.insert(
        "@type".into(),
        Value::String("type.googleapis.com/google.bigtable.admin.v2.Table".into()),
    );
    if let Value::Object(fields) = table {
        response.extend(fields);
    }
    Ok(Out::new()
        .string("name", &format!("{}/operations/update", name.full()))
        .bool("done", true)
        .set("response", Value::Object(response))
        .build())
}

/// The paths of a `FieldMask` (`"a,b"` in proto3 JSON); at least one.
fn mask_paths(at: &At<'_>) -> Result<Vec<String>> {
    let paths: Vec<String> = at
        .string()?
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    if paths.is_empty() {
        return Err(at.invalid("the update mask must name at least one field"));
    }
    Ok(paths)
}

// ------------------------------------------------------------ partitions

/// Reads `tableName` and the ignored `appProfileId` of a change stream
/// request.
fn table_of(f: &mut Fields<'_>) -> Result<String> {
    if let Some(p) = f.get("appProfileId")? {
        p.string()?;
    }
    Ok(table_name(&f.require("tableName")?)?.table_id)
}

/// A `StreamPartition` as JSON.
fn partition_to_json(range: &KeyRange) -> Value {
    let mut r = Out::new();
    r = r.bytes("startKeyClosed", &range.start);
    if let Some(end) = &range.end {
        r = r.bytes("endKeyOpen", end);
    }
    Out::new().set("rowRange", r.build()).build()
}

/// Reads a `StreamPartition` into the key range it covers.
fn partition_from_json(at: &At<'_>) -> Result<KeyRange> {
    let mut f = at.object("StreamPartition")?;
    let range = match f.get("rowRange")? {
        Some(r) => row_range_from_json(&r)?,
        None => tabletop_store::RowRange {
            start: KeyBound::Unbounded,
            end: KeyBound::Unbounded,
        },
    };
    f.finish()?;
    let set = tabletop_store::RowSet::range(range);
    let mut ranges = set.normalize().map_err(|e| at.context(e))?;
    match ranges.len() {
        0 => Err(at.invalid("the partition's row range is empty")),
        _ => Ok(ranges.remove(0)),
    }
}

/// generateInitialChangeStreamPartitions.
pub(crate) fn generate_initial_partitions(
    db: &mut Instance,
    req: &At<'_>,
    _traces: &mut Traces,
) -> Result<Value> {
    let mut f = req.object("GenerateInitialChangeStreamPartitionsRequest")?;
    let table = table_of(&mut f)?;
    f.finish()?;
    let parts = db.change_stream_partitions(&table)?;
    Ok(Value::Array(
        parts
            .iter()
            .map(|p| Out::new().set("partition", partition_to_json(p)).build())
            .collect(),
    ))
}

// ------------------------------------------------------------ reading

/// A `google.protobuf.Timestamp` in RFC 3339 form, in microseconds.
fn timestamp(at: &At<'_>) -> Result<i64> {
    parse_rfc3339(at.string()?)
        .ok_or_else(|| at.invalid("expected an RFC 3339 time such as \"2024-01-01T00:00:00Z\""))
}

/// The sequence number a continuation token names.
fn token_position(at: &At<'_>) -> Result<u64> {
    let t = at.string()?;
    t.strip_prefix(TOKEN_PREFIX)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            at.invalid(format!(
                "\"{t}\" is not a continuation token this server gave out"
            ))
        })
}

/// Reads a ReadChangeStreamRequest into the table id and the store's
/// request; `now` starts a stream that names no start.
pub(crate) fn read_request(req: &At<'_>, now: i64) -> Result<(String, ReadChangeStreamRequest)> {
    let mut f = req.object("ReadChangeStreamRequest")?;
    let table = table_of(&mut f)?;
    let partition = partition_from_json(&f.require("partition")?)?;
    let start = match f.oneof("start_from", &["startTime", "continuationTokens"])? {
        None => ChangeStart::Time(now),
        Some(("startTime", t)) => ChangeStart::Time(timestamp(&t)?),
        Some((_, tokens)) => ChangeStart::Tokens(tokens_from_json(&tokens)?),
    };
    let end_micros = match f.get("endTime")? {
        Some(t) => Some(timestamp(&t)?),
        None => None,
    };
    if let Some(h) = f.get("heartbeatDuration")? {
        h.duration()?;
    }
    f.finish()?;
    if let (ChangeStart::Time(s), Some(e)) = (&start, end_micros)
        && e < *s
    {
        return Err(req.invalid("endTime must not be before startTime"));
    }
    Ok((
        table,
        ReadChangeStreamRequest {
            partition,
            start,
            end_micros,
        },
    ))
}

/// Reads `continuationTokens`: the tokens whose ranges make up the
/// requested partition (the store checks that they do).
fn tokens_from_json(at: &At<'_>) -> Result<Vec<ChangeToken>> {
    let mut f = at.object("StreamContinuationTokens")?;
    let tokens = f.require("tokens")?;
    f.finish()?;
    tokens
        .array()?
        .iter()
        .map(|one| {
            let mut t = one.object("StreamContinuationToken")?;
            let range = partition_from_json(&t.require("partition")?)?;
            let position = token_position(&t.require("token")?)?;
            t.finish()?;
            Ok(ChangeToken { range, position })
        })
        .collect()
}

/// readChangeStream: the messages the stream carries up to now.
pub(crate) fn read_change_stream(
    db: &mut Instance,
    req: &At<'_>,
    _traces: &mut Traces,
) -> Result<Value> {
    let (table, request) = read_request(req, db.now_micros())?;
    let batch = db.read_change_stream(&table, &request)?;
    Ok(Value::Array(stream_messages(&request.partition, &batch)))
}

/// The ReadChangeStreamResponse messages of a batch, in order.
pub fn stream_messages(partition: &KeyRange, batch: &ChangeStreamBatch) -> Vec<Value> {
    let mut out: Vec<Value> = batch
        .records
        .iter()
        .map(|r| data_change_to_json(r, batch.low_watermark_micros))
        .collect();
    out.push(if let Some(change) = &batch.partition_change {
        partition_change_to_json(change)
    } else if batch.complete {
        close_stream_to_json()
    } else {
        heartbeat_to_json(partition, batch.position, batch.low_watermark_micros)
    });
    out
}

fn token(position: u64) -> String {
    format!("{TOKEN_PREFIX}{position}")
}

/// A `StreamContinuationToken`.
fn token_to_json(range: &KeyRange, position: u64) -> Value {
    Out::new()
        .set("partition", partition_to_json(range))
        .string("token", &token(position))
        .build()
}

/// A `heartbeat` message: where to continue, and the watermark.
pub fn heartbeat_to_json(partition: &KeyRange, position: u64, watermark: i64) -> Value {
    let hb = Out::new()
        .set("continuationToken", token_to_json(partition, position))
        .string("estimatedLowWatermark", &rfc3339(watermark))
        .build();
    Out::new().set("heartbeat", hb).build()
}

/// A `closeStream` message with an OK status: the end time was reached.
pub fn close_stream_to_json() -> Value {
    Out::new()
        .set(
            "closeStream",
            Out::new().set("status", Out::new().build()).build(),
        )
        .build()
}

/// The `closeStream` message of a partition the table no longer has: the
/// status `OUT_OF_RANGE`, the new partitions overlapping it and the tokens
/// to start them from.
pub fn partition_change_to_json(change: &PartitionChange) -> Value {
    let status = Out::new()
        .set("code", Value::from(Code::OutOfRange.number()))
        .string(
            "message",
            "the table's change stream partitions changed; continue from the new partitions",
        )
        .build();
    let close = Out::new()
        .set("status", status)
        .list(
            "continuationTokens",
            change
                .tokens
                .iter()
                .map(|t| token_to_json(&t.range, t.position))
                .collect(),
        )
        .list(
            "newPartitions",
            change
                .new_partitions
                .iter()
                .map(partition_to_json)
                .collect(),
        )
        .build();
    Out::new().set("closeStream", close).build()
}

/// A `dataChange` message holding one whole change.
pub fn data_change_to_json(r: &ChangeRecord, watermark: i64) -> Value {
    let chunks = r
        .mutations
        .iter()
        .map(|m| Out::new().set("mutation", mutation_to_json(m)).build())
        .collect();
    let dc = Out::new()
        .string("type", r.kind.proto_name())
        .bytes("rowKey", &r.row_key)
        .string("commitTimestamp", &rfc3339(r.commit_micros))
        .list("chunks", chunks)
        .bool("done", true)
        .string("token", &token(r.sequence))
        .string("estimatedLowWatermark", &rfc3339(watermark));
    // An int32 left out when zero, as proto3 JSON does.
    let dc = if r.tiebreaker == 0 {
        dc
    } else {
        dc.set("tiebreaker", Value::from(r.tiebreaker))
    };
    let dc = match r.kind {
        tabletop_store::ChangeKind::User => dc.string("sourceClusterId", SOURCE_CLUSTER),
        tabletop_store::ChangeKind::GarbageCollection => dc,
    };
    Out::new().set("dataChange", dc.build()).build()
}

/// The cluster a playground instance's writes land in.
const SOURCE_CLUSTER: &str = "playground-c1";

/// A `Mutation` in proto3 JSON.
pub fn mutation_to_json(m: &Mutation<'_>) -> Value {
    let (kind, body) = match m {
        Mutation::SetCell {
            family_name,
            column_qualifier,
            timestamp_micros,
            value,
        } => (
            "setCell",
            Out::new()
                .string("familyName", family_name)
                .bytes("columnQualifier", column_qualifier)
                .int64("timestampMicros", *timestamp_micros)
                .bytes("value", value),
        ),
        Mutation::AddToCell { .. } | Mutation::MergeToCell { .. } => {
            let Some(w) = m.aggregate_write() else {
                return Value::Null;
            };
            (
                match w.op {
                    AggregateOp::Add => "addToCell",
                    AggregateOp::Merge => "mergeToCell",
                },
                Out::new()
                    .string("familyName", w.family_name)
                    .set(
                        "columnQualifier",
                        Out::new().bytes("rawValue", w.column_qualifier).build(),
                    )
                    .set(
                        "timestamp",
                        Out::new()
                            .int64("rawTimestampMicros", w.timestamp_micros)
                            .build(),
                    )
                    .set(
                        "input",
                        match w.input {
                            AggregateInput::Int(v) => Out::new().int64("intValue", *v).build(),
                            AggregateInput::Raw(b) => Out::new().bytes("rawValue", b).build(),
                        },
                    ),
            )
        }
        Mutation::DeleteFromColumn {
            family_name,
            column_qualifier,
            time_range,
        } => {
            let mut o = Out::new()
                .string("familyName", family_name)
                .bytes("columnQualifier", column_qualifier);
            if let Some(r) = time_range {
                o = o.set(
                    "timeRange",
                    Out::new()
                        .int64("startTimestampMicros", r.start_micros)
                        .int64("endTimestampMicros", r.end_micros)
                        .build(),
                );
            }
            ("deleteFromColumn", o)
        }
        Mutation::DeleteFromFamily { family_name } => (
            "deleteFromFamily",
            Out::new().string("familyName", family_name),
        ),
        Mutation::DeleteFromRow => ("deleteFromRow", Out::new()),
    };
    Out::new().set(kind, body.build()).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_strangers_are_refused() {
        let v = Value::String(token(42));
        assert_eq!(token_position(&At::new("t", &v)).ok(), Some(42));
        let bad = Value::String("42".into());
        assert!(token_position(&At::new("t", &bad)).is_err());
    }
}
