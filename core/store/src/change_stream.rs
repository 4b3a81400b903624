//! Change streams: the record of a table's committed data changes, in commit
//! order, as Bigtable's `ReadChangeStream` returns them.
//!
//! A table whose [`ChangeStreamConfig`] is set keeps a [`ChangeLog`]: every
//! mutation request that commits adds one [`ChangeRecord`] (type
//! [`ChangeKind::User`]) holding the row key, the instance clock at the
//! commit and the mutations as they were applied (server timestamps
//! resolved, a `DeleteFromRow` spelled as one `DeleteFromFamily` per family,
//! as Bigtable's change stream does). Compaction that lets GC rules delete
//! cells adds a [`ChangeKind::GarbageCollection`] record per row, one
//! `DeleteFromColumn` per collected cell. A request that fails records
//! nothing. Records older than the retention period are dropped; turning
//! the config off drops the log.
//!
//! What this module does not own: when a write commits (the engine's
//! table) and how records travel (the wire formats and the gRPC server
//! read them through [`crate::Instance::read_change_stream`]).
//!
//! Documentation followed: Bigtable's "Change streams overview" (what is
//! recorded, retention of 1 to 7 days, records ordered by commit time per
//! row) and `google/bigtable/v2/bigtable.proto` (`ReadChangeStreamResponse`).

mod partitions;
mod stored;

use std::collections::VecDeque;

use crate::engine::family::Families;
use crate::error::{Error, Result};
use crate::mutation::{Mutation, TimestampRange};
use crate::row_set::KeyRange;
pub use partitions::{ChangeToken, PartitionChange};
pub(crate) use stored::StoredChange;

/// Checks a stored record's bytes (from a snapshot): `Err` names what is
/// wrong.
pub(crate) fn check_stored(bytes: &[u8]) -> std::result::Result<(), &'static str> {
    stored::decode(bytes).map(|_| ())
}

/// One day in microseconds.
pub const DAY_MICROS: i64 = 86_400_000_000;
/// The shortest retention Bigtable accepts: one day.
pub const MIN_CHANGE_RETENTION_MICROS: i64 = DAY_MICROS;
/// The longest retention Bigtable accepts: seven days.
pub const MAX_CHANGE_RETENTION_MICROS: i64 = 7 * DAY_MICROS;

/// A table's change stream settings (`ChangeStreamConfig` of the table
/// admin API).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeStreamConfig {
    /// How long records are kept, in microseconds (1 to 7 days).
    pub retention_micros: i64,
}

impl ChangeStreamConfig {
    /// A config keeping records for `retention_micros`, checked against
    /// Bigtable's limits (1 to 7 days).
    pub fn new(retention_micros: i64) -> Result<ChangeStreamConfig> {
        if !(MIN_CHANGE_RETENTION_MICROS..=MAX_CHANGE_RETENTION_MICROS).contains(&retention_micros)
        {
            return Err(Error::invalid(format!(
                "change stream retention period must be between 1 day and 7 days, got {}",
                retention_text(retention_micros)
            )));
        }
        Ok(ChangeStreamConfig { retention_micros })
    }
}

/// Who made a change (`DataChange.Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// A client's write (`USER`).
    User,
    /// A deletion made by a garbage-collection rule (`GARBAGE_COLLECTION`).
    GarbageCollection,
}

impl ChangeKind {
    /// The proto enum name.
    #[must_use]
    pub fn proto_name(self) -> &'static str {
        match self {
            ChangeKind::User => "USER",
            ChangeKind::GarbageCollection => "GARBAGE_COLLECTION",
        }
    }
}

/// One committed change to one row (a `DataChange` of the change stream).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeRecord {
    /// Position in the table's log, from 1, increasing by one per record;
    /// continuation tokens name it.
    pub sequence: u64,
    /// The instance clock when the change committed, in microseconds.
    pub commit_micros: i64,
    /// Orders changes committed at the same time in different clusters; a
    /// playground instance has one cluster, so it is always 0.
    pub tiebreaker: i32,
    /// A client's write or a GC deletion.
    pub kind: ChangeKind,
    /// The row changed.
    pub row_key: Vec<u8>,
    /// The mutations as applied (timestamps resolved; no `DeleteFromRow`).
    pub mutations: Vec<Mutation<'static>>,
}

/// A table's change stream: its config and the records kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChangeLog {
    pub(crate) config: ChangeStreamConfig,
    /// In sequence (and commit) order, encoded.
    pub(crate) records: VecDeque<StoredChange>,
    /// The sequence number the next record gets.
    pub(crate) next_sequence: u64,
}

/// A cell GC collected, as compaction hands it over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CollectedCell {
    pub(crate) row_key: Vec<u8>,
    pub(crate) family: String,
    pub(crate) qualifier: Vec<u8>,
    pub(crate) timestamp_micros: i64,
}

impl ChangeLog {
    pub(crate) fn new(config: ChangeStreamConfig) -> ChangeLog {
        ChangeLog {
            config,
            records: VecDeque::new(),
            next_sequence: 1,
        }
    }

    /// Records a committed request at `now`: its mutations as applied,
    /// server timestamps resolved with `resolve`, and a `DeleteFromRow`
    /// spelled as one `DeleteFromFamily` per family of the table (the
    /// change stream has no row deletion of its own).
    pub(crate) fn push_user(
        &mut self,
        now: i64,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
        fams: &Families,
        resolve: impl Fn(i64) -> i64 + Copy,
    ) {
        let mut names: Vec<&str> = Vec::new();
        if mutations
            .iter()
            .any(|m| matches!(m, Mutation::DeleteFromRow))
        {
            names = fams.live().map(|(n, ..)| n).collect();
            names.sort_unstable();
        }
        let count = mutations
            .iter()
            .map(|m| match m {
                Mutation::DeleteFromRow => names.len(),
                _ => 1,
            })
            .sum();
        let mut buf = Vec::with_capacity(64);
        stored::begin(&mut buf, row_key, count);
        for m in mutations {
            if let Mutation::DeleteFromRow = m {
                for n in &names {
                    let family = Mutation::DeleteFromFamily {
                        family_name: (*n).into(),
                    };
                    stored::put_mutation(&mut buf, &family, resolve);
                }
            } else {
                stored::put_mutation(&mut buf, m, resolve);
            }
        }
        self.push(now, ChangeKind::User, buf);
    }

    /// Adds a record committed at `now` from its encoded bytes.
    fn push(&mut self, now: i64, kind: ChangeKind, bytes: Vec<u8>) {
        self.expire(now);
        self.records.push_back(StoredChange {
            sequence: self.next_sequence,
            commit_micros: now,
            tiebreaker: 0,
            kind,
            bytes: bytes.into_boxed_slice(),
        });
        self.next_sequence += 1;
    }

    /// Records what a GC compaction collected at `now`: one record per
    /// row, one `DeleteFromColumn` of exactly that version per cell.
    pub(crate) fn push_collected(&mut self, now: i64, cells: Vec<CollectedCell>) {
        let mut i = 0;
        while i < cells.len() {
            let row = &cells[i].row_key;
            let end = cells[i..]
                .iter()
                .position(|c| &c.row_key != row)
                .map_or(cells.len(), |n| i + n);
            let mut buf = Vec::new();
            stored::begin(&mut buf, row, end - i);
            for c in &cells[i..end] {
                let delete = Mutation::DeleteFromColumn {
                    family_name: c.family.as_str().into(),
                    column_qualifier: c.qualifier.as_slice().into(),
                    time_range: Some(TimestampRange {
                        start_micros: c.timestamp_micros,
                        end_micros: c.timestamp_micros + 1000,
                    }),
                };
                stored::put_mutation(&mut buf, &delete, |ts| ts);
            }
            self.push(now, ChangeKind::GarbageCollection, buf);
            i = end;
        }
    }

    /// Drops the records older than the retention period at `now`.
    pub(crate) fn expire(&mut self, now: i64) {
        let oldest = now.saturating_sub(self.config.retention_micros);
        while self
            .records
            .front()
            .is_some_and(|r| r.commit_micros < oldest)
        {
            self.records.pop_front();
        }
    }
}

/// Where a change stream read starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeStart {
    /// Changes committed at or after this time (microseconds); the
    /// request's `start_time`, or the time of the request when it has none.
    /// It must lie within the retention period and not after the clock.
    Time(i64),
    /// Continuation tokens: the changes after each token's position, for
    /// the keys of its range. Together the ranges must cover the partition
    /// read exactly: one token over the whole partition, or, after the
    /// partitions changed, the tokens whose ranges make it up.
    Tokens(Vec<ChangeToken>),
}

impl ChangeStart {
    /// The changes of `partition` after the one numbered `position`: one
    /// token over the whole partition.
    #[must_use]
    pub fn after(partition: &KeyRange, position: u64) -> ChangeStart {
        ChangeStart::Tokens(vec![ChangeToken {
            range: partition.clone(),
            position,
        }])
    }
}

/// A ReadChangeStream request, as the store takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadChangeStreamRequest {
    /// The partition: which row keys. One of the table's partitions
    /// ([`crate::Instance::change_stream_partitions`]); any other range
    /// answers with a [`PartitionChange`].
    pub partition: KeyRange,
    /// Where to start.
    pub start: ChangeStart,
    /// Stop after changes committed at this time (inclusive, as in
    /// Bigtable); `None` reads what there is now and leaves the stream
    /// open.
    pub end_micros: Option<i64>,
}

/// What a change stream read found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeStreamBatch {
    /// The records, in commit order.
    pub records: Vec<ChangeRecord>,
    /// The position to continue from: the last record's sequence number,
    /// or where the read started when it found none.
    pub position: u64,
    /// No change earlier than this will come later (the instance clock, or
    /// the end time if that came first).
    pub low_watermark_micros: i64,
    /// Whether the end time has passed, so the stream is complete.
    pub complete: bool,
    /// Set when the partition read is not one of the table's partitions
    /// (its tablets split or merged): the read returns no records and the
    /// stream ends, to go on from the new partitions.
    pub partition_change: Option<PartitionChange>,
}

/// The newest records of a table's change stream, for a live view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeStreamTail {
    /// The table's change stream settings.
    pub config: ChangeStreamConfig,
    /// How many records the table keeps now.
    pub kept: usize,
    /// The newest records, oldest first.
    pub records: Vec<ChangeRecord>,
}

impl ChangeLog {
    /// The newest `limit` records (without expiring any: a view reads).
    pub(crate) fn tail(&self, limit: usize) -> ChangeStreamTail {
        let skip = self.records.len().saturating_sub(limit);
        ChangeStreamTail {
            config: self.config,
            kept: self.records.len(),
            records: self
                .records
                .range(skip..)
                .map(StoredChange::to_record)
                .collect(),
        }
    }

    /// The records `req` selects at instance time `now`, when the table's
    /// partitions are `partitions`.
    pub(crate) fn read(
        &self,
        req: &ReadChangeStreamRequest,
        now: i64,
        partitions: &[KeyRange],
    ) -> Result<ChangeStreamBatch> {
        let tokens = self.start_tokens(req, now)?;
        let low_watermark_micros = req.end_micros.map_or(now, |end| end.min(now));
        let reached = tokens.iter().map(|t| t.position).max().unwrap_or(0);
        if !partitions.contains(&req.partition) {
            return Ok(ChangeStreamBatch {
                records: Vec::new(),
                position: reached,
                low_watermark_micros,
                complete: false,
                partition_change: Some(partitions::change_for(partitions, &tokens)),
            });
        }
        let from = tokens.iter().map(|t| t.position).min().unwrap_or(0);
        let first = self.records.partition_point(|r| r.sequence <= from);
        let mut position = reached;
        let mut records = Vec::new();
        for r in self.records.range(first..) {
            if req.end_micros.is_some_and(|end| r.commit_micros > end) {
                break;
            }
            position = position.max(r.sequence);
            let key = r.row_key();
            // The tokens' ranges do not overlap: at most one holds the key.
            if tokens
                .iter()
                .any(|t| t.range.contains(key) && r.sequence > t.position)
            {
                records.push(r.to_record());
            }
        }
        // The end time is inclusive: the stream is over once the clock has
        // passed it.
        let complete = req.end_micros.is_some_and(|end| now > end);
        Ok(ChangeStreamBatch {
            records,
            position,
            low_watermark_micros,
            complete,
            partition_change: None,
        })
    }

    /// Where `req` starts, as tokens covering its partition exactly: a
    /// start time becomes one token at the record before the first change
    /// committed at or after it.
    fn start_tokens(&self, req: &ReadChangeStreamRequest, now: i64) -> Result<Vec<ChangeToken>> {
        match &req.start {
            ChangeStart::Time(t) => {
                let t = *t;
                let oldest = now.saturating_sub(self.config.retention_micros);
                if t > now {
                    return Err(Error::invalid(format!(
                        "start_time {t} is after the current time {now}; a change stream starts in the past or now"
                    )));
                }
                if t < oldest {
                    return Err(Error::invalid(format!(
                        "start_time {} is older than the change stream's retention period ({}) allows",
                        t,
                        retention_text(self.config.retention_micros)
                    )));
                }
                let first = self.records.partition_point(|r| r.commit_micros < t);
                // Sequence numbers are contiguous, so the position before
                // the first record selected is one less than its number.
                let position = self
                    .records
                    .get(first)
                    .map_or(self.next_sequence - 1, |r| r.sequence - 1);
                Ok(vec![ChangeToken {
                    range: req.partition.clone(),
                    position,
                }])
            }
            ChangeStart::Tokens(tokens) => {
                let mut tokens = tokens.clone();
                for t in &tokens {
                    self.check_position(t.position)?;
                }
                partitions::check_cover(&req.partition, &mut tokens)?;
                Ok(tokens)
            }
        }
    }

    /// Checks that a continuation token's position is one this log gave
    /// out and has not expired.
    fn check_position(&self, seq: u64) -> Result<()> {
        if seq >= self.next_sequence {
            return Err(Error::invalid(
                "the continuation token is not one this table's change stream gave out",
            ));
        }
        let expired = self
            .records
            .front()
            .map_or(self.next_sequence, |r| r.sequence);
        if seq + 1 < expired {
            return Err(Error::new(
                crate::error::Code::OutOfRange,
                "the continuation token points before the change stream's retention period",
            ));
        }
        Ok(())
    }
}

/// A retention period for messages (`7d`, `36h`, `90s`).
fn retention_text(micros: i64) -> String {
    crate::schema::format_duration(std::time::Duration::from_micros(
        micros.max(0).unsigned_abs(),
    ))
}
