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
//!                                the record's row key and mutations as
//!                                bytes (the change stream's own encoding,
//!                                `change_stream/stored.rs`; checked on
//!                                reading)
//! ```

use std::collections::VecDeque;

use super::{Reader, Writer};
use crate::change_stream::{ChangeKind, ChangeLog, ChangeStreamConfig, StoredChange};
use crate::engine::table::Table;
use crate::error::Result;
use crate::instance::Instance;

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
            w.bytes(&r.bytes);
        }
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

fn read_record(r: &mut Reader<'_>) -> Result<StoredChange> {
    let sequence = r.uint()?;
    let commit_micros = r.int()?;
    let tiebreaker = i32::try_from(r.int()?).map_err(|_| r.bad("a tiebreaker"))?;
    let kind = match r.uint()? {
        0 => ChangeKind::User,
        1 => ChangeKind::GarbageCollection,
        _ => return Err(r.bad("an unknown change kind")),
    };
    let bytes = r.bytes()?;
    crate::change_stream::check_stored(bytes).map_err(|what| r.bad(what))?;
    Ok(StoredChange {
        sequence,
        commit_micros,
        tiebreaker,
        kind,
        bytes: bytes.into(),
    })
}
