//! The change streams' part of a snapshot (version 5): each table's change
//! stream config and the records it keeps, so a restored instance answers
//! ReadChangeStream as the saved one did, and continuation tokens it gave
//! out stay good.
//!
//! ```text
//! table count                    varint (tables with a change stream)
//! per table: id                  bytes
//!   retention_micros             signed
//!   next sequence                varint
//!   record count, per record:    sequence varint, commit_micros signed,
//!                                tiebreaker signed, kind (0 user | 1 GC),
//!                                row key bytes, mutation count, mutations
//! mutation:  0 set cell:         family, qualifier bytes, timestamp signed,
//!                                value bytes
//!            1 add / 2 merge:    family, qualifier bytes, timestamp signed,
//!                                input (0 int signed | 1 raw bytes)
//!            3 delete column:    family, qualifier bytes, 0 | 1 then start
//!                                and end signed
//!            4 delete family:    family bytes
//! ```

use std::collections::VecDeque;

use super::{Reader, Writer};
use crate::change_stream::{ChangeKind, ChangeLog, ChangeRecord, ChangeStreamConfig};
use crate::engine::table::Table;
use crate::error::Result;
use crate::instance::Instance;
use crate::mutation::{AggregateInput, Mutation, TimestampRange};

/// Whether any table keeps a change stream (the snapshot is then
/// version 5).
pub(super) fn any(db: &Instance) -> bool {
    db.tables.values().any(|t| t.changes.is_some())
}

pub(super) fn write<'t>(w: &mut Writer, tables: impl Iterator<Item = &'t Table> + Clone) {
    let with = tables.filter_map(|t| t.changes.as_deref().map(|c| (&t.id, c)));
    w.uint(with.clone().count() as u64);
    for (id, log) in with {
        w.bytes(id.as_bytes());
        w.int(log.config.retention_micros);
        w.uint(log.next_sequence);
        w.uint(log.records.len() as u64);
        for r in &log.records {
            w.uint(r.sequence);
            w.int(r.commit_micros);
            w.int(i64::from(r.tiebreaker));
            w.uint(match r.kind {
                ChangeKind::User => 0,
                ChangeKind::GarbageCollection => 1,
            });
            w.bytes(&r.row_key);
            w.uint(r.mutations.len() as u64);
            for m in &r.mutations {
                write_mutation(w, m);
            }
        }
    }
}

fn write_mutation(w: &mut Writer, m: &Mutation<'_>) {
    match m {
        Mutation::SetCell {
            family_name,
            column_qualifier,
            timestamp_micros,
            value,
        } => {
            w.uint(0);
            w.bytes(family_name.as_bytes());
            w.bytes(column_qualifier);
            w.int(*timestamp_micros);
            w.bytes(value);
        }
        Mutation::AddToCell {
            family_name,
            column_qualifier,
            timestamp_micros,
            input,
        }
        | Mutation::MergeToCell {
            family_name,
            column_qualifier,
            timestamp_micros,
            input,
        } => {
            w.uint(if matches!(m, Mutation::AddToCell { .. }) {
                1
            } else {
                2
            });
            w.bytes(family_name.as_bytes());
            w.bytes(column_qualifier);
            w.int(*timestamp_micros);
            match input {
                AggregateInput::Int(v) => {
                    w.uint(0);
                    w.int(*v);
                }
                AggregateInput::Raw(b) => {
                    w.uint(1);
                    w.bytes(b);
                }
            }
        }
        Mutation::DeleteFromColumn {
            family_name,
            column_qualifier,
            time_range,
        } => {
            w.uint(3);
            w.bytes(family_name.as_bytes());
            w.bytes(column_qualifier);
            match time_range {
                None => w.uint(0),
                Some(r) => {
                    w.uint(1);
                    w.int(r.start_micros);
                    w.int(r.end_micros);
                }
            }
        }
        Mutation::DeleteFromFamily { family_name } => {
            w.uint(4);
            w.bytes(family_name.as_bytes());
        }
        // Records never hold one (it is written as family deletions); kept
        // lossless all the same.
        Mutation::DeleteFromRow => w.uint(5),
    }
}

pub(super) fn read(r: &mut Reader<'_>, db: &mut Instance) -> Result<()> {
    let tables = r.count()?;
    for _ in 0..tables {
        let id = r.string()?;
        let config = ChangeStreamConfig::new(r.int()?)?;
        let next_sequence = r.uint()?;
        let n = r.count()?;
        let mut records = VecDeque::with_capacity(n.min(1 << 16));
        let mut last = 0;
        for _ in 0..n {
            let record = read_record(r)?;
            if record.sequence <= last || record.sequence >= next_sequence {
                return Err(r.bad("change records out of order"));
            }
            last = record.sequence;
            records.push_back(record);
        }
        let Some(table) = db.tables.get_mut(&id) else {
            return Err(r.bad("a change stream of a table the snapshot does not hold"));
        };
        table.changes = Some(Box::new(ChangeLog {
            config,
            records,
            next_sequence,
        }));
    }
    Ok(())
}

fn read_record(r: &mut Reader<'_>) -> Result<ChangeRecord> {
    let sequence = r.uint()?;
    let commit_micros = r.int()?;
    let tiebreaker = i32::try_from(r.int()?).map_err(|_| r.bad("a tiebreaker"))?;
    let kind = match r.uint()? {
        0 => ChangeKind::User,
        1 => ChangeKind::GarbageCollection,
        _ => return Err(r.bad("an unknown change kind")),
    };
    let row_key = r.bytes()?.to_vec();
    let n = r.count()?;
    let mut mutations = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        mutations.push(read_mutation(r)?);
    }
    Ok(ChangeRecord {
        sequence,
        commit_micros,
        tiebreaker,
        kind,
        row_key,
        mutations,
    })
}

fn read_mutation(r: &mut Reader<'_>) -> Result<Mutation<'static>> {
    let kind = r.uint()?;
    if kind == 5 {
        return Ok(Mutation::DeleteFromRow);
    }
    let family_name = r.string()?.into();
    if kind == 4 {
        return Ok(Mutation::DeleteFromFamily { family_name });
    }
    let column_qualifier = r.bytes()?.to_vec().into();
    Ok(match kind {
        0 => Mutation::SetCell {
            family_name,
            column_qualifier,
            timestamp_micros: r.int()?,
            value: r.bytes()?.to_vec().into(),
        },
        1 | 2 => {
            let timestamp_micros = r.int()?;
            let input = match r.uint()? {
                0 => AggregateInput::Int(r.int()?),
                1 => AggregateInput::Raw(r.bytes()?.to_vec().into()),
                _ => return Err(r.bad("an unknown aggregate input")),
            };
            if kind == 1 {
                Mutation::AddToCell {
                    family_name,
                    column_qualifier,
                    timestamp_micros,
                    input,
                }
            } else {
                Mutation::MergeToCell {
                    family_name,
                    column_qualifier,
                    timestamp_micros,
                    input,
                }
            }
        }
        3 => Mutation::DeleteFromColumn {
            family_name,
            column_qualifier,
            time_range: match r.uint()? {
                0 => None,
                1 => Some(TimestampRange {
                    start_micros: r.int()?,
                    end_micros: r.int()?,
                }),
                _ => return Err(r.bad("an unknown time range marker")),
            },
        },
        _ => return Err(r.bad("an unknown mutation kind")),
    })
}
