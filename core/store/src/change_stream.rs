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

mod stored;

use std::collections::VecDeque;

use crate::engine::family::Families;
use crate::error::{Error, Result};
use crate::mutation::{Mutation, TimestampRange};
use crate::row_set::KeyRange;
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeStart {
    /// Changes committed at or after this time (microseconds); the
    /// request's `start_time`, or the time of the request when it has none.
    /// It must lie within the retention period and not after the clock.
    Time(i64),
    /// Changes after the one with this sequence number (a continuation
    /// token's position).
    After(u64),
}

/// A ReadChangeStream request, as the store takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadChangeStreamRequest {
    /// The partition: which row keys.
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

    /// The records `req` selects at instance time `now`.
    pub(crate) fn read(
        &self,
        req: &ReadChangeStreamRequest,
        now: i64,
    ) -> Result<ChangeStreamBatch> {
        let oldest = now.saturating_sub(self.config.retention_micros);
        let first = match req.start {
            ChangeStart::Time(t) => {
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
                self.records.partition_point(|r| r.commit_micros < t)
            }
            ChangeStart::After(seq) => {
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
                self.records.partition_point(|r| r.sequence <= seq)
            }
        };
        // Sequence numbers are contiguous, so the position before the
        // first record selected is one less than its number.
        let mut position = match req.start {
            ChangeStart::After(seq) => seq,
            ChangeStart::Time(_) => self
                .records
                .get(first)
                .map_or(self.next_sequence - 1, |r| r.sequence - 1),
        };
        let mut records = Vec::new();
        for r in self.records.range(first..) {
            if req.end_micros.is_some_and(|end| r.commit_micros > end) {
                break;
            }
            position = r.sequence;
            if req.partition.contains(r.row_key()) {
                records.push(r.to_record());
            }
        }
        // The end time is inclusive: the stream is over once the clock has
        // passed it.
        let complete = req.end_micros.is_some_and(|end| now > end);
        let low_watermark_micros = req.end_micros.map_or(now, |end| end.min(now));
        Ok(ChangeStreamBatch {
            records,
            position,
            low_watermark_micros,
            complete,
        })
    }
}

/// A retention period for messages (`7d`, `36h`, `90s`).
fn retention_text(micros: i64) -> String {
    crate::schema::format_duration(std::time::Duration::from_micros(
        micros.max(0).unsigned_abs(),
    ))
}
