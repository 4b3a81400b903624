//! Snapshots: a whole instance as one versioned, lossless byte string. The
//! CLI keeps its `--state` file in this format and the web app exports and
//! imports the same bytes.
//!
//! # Format (version 1)
//!
//! All integers are LEB128 varints (signed ones zigzag-encoded first);
//! byte strings are a varint length followed by the bytes.
//!
//! ```text
//! magic       8 bytes  "TBLTOPSN"
//! version     varint   1
//! body        ...      see below
//! checksum    8 bytes  FNV-1a 64 of everything before, little-endian
//!
//! body:
//!   project, instance            bytes
//!   seed                         varint
//!   simulated clock              varint (0 wall, 1 simulated)
//!   now_micros                   signed
//!   engine: memtable_flush_bytes, split_bytes, merge_bytes   varint
//!           gc_interval_micros signed, max_runs varint
//!   table count                  varint
//!   per table:
//!     id                         bytes
//!     family count, per family:  name bytes, value type, gc rule
//!     initial split count, keys  bytes...
//!     tablet boundary count, keys bytes...
//!     row count, per row:        key bytes, cell count,
//!                                per cell: family index (varint, in the
//!                                family list above), qualifier bytes,
//!                                timestamp signed, value bytes
//! value type: 0 bytes | 1 sum | 2 min | 3 max | 4 hll
//! gc rule:    0 none | 1 max versions (varint) | 2 max age (micros varint)
//!             | 3 intersection (count, rules) | 4 union (count, rules)
//! ```
//!
//! Every live cell is kept, GC-eligible ones included (GC has not run for
//! them yet, so it must still be able to). Deleted cells are not. Tablet
//! boundaries are kept so the restored instance shows the same layout.
//!
//! # Version 2: a section for the layers above
//!
//! A layer above the store may keep its own state in the snapshot (the SQL
//! layer writes its row-key schemas and view definitions there, as JSON):
//! [`Instance::snapshot_with`] then writes version 2, version 1's body
//! followed by one byte string the store does not read, and
//! [`Instance::restore_with`] hands it back. Without a section the
//! snapshot is version 1, byte for byte as before.
//!
//! # Version 3: traffic
//!
//! When any table has recorded traffic ([`crate::traffic`]), the snapshot
//! is version 3: version 1's body, the section as `0` (none) or `1` and a
//! byte string, then the traffic:
//!
//! ```text
//! table count                    varint (tables with traffic)
//! per table: id                  bytes
//!   bucket count, per bucket:    start_micros signed, span count,
//!     per span:                  lo bytes (a key prefix, trailing zeros
//!                                cut), hi: 0 same as lo | 1 end of table |
//!                                2 then bytes, seven counts (point ops,
//!                                scans, read rows, read bytes, rows
//!                                scanned, write rows, write bytes), each
//!                                varint 2n for a whole n below 2^24, else
//!                                2 x (f32 bits) + 1
//! ```
//!
//! Versions 1 and 2 restore with empty traffic.
//!
//! # Version 4: several instances
//!
//! A host that keeps several instances (separate namespaces of tables, as
//! Bigtable's instances are) writes them as one version 4 snapshot: the
//! magic, version 4, the instance count (at least one) and each instance as
//! a byte string holding its own complete version 1, 2 or 3 snapshot, then
//! the checksum of the whole. [`Instance::bundle_snapshots`] writes it and
//! [`Instance::unbundle_snapshot`] reads it back into the instances'
//! snapshots; a version 1 to 3 snapshot unbundles into itself, one
//! instance.
//!
//! # Version 5: change streams
//!
//! When any table keeps a change stream, the snapshot is version 5:
//! version 3's layout (section marker, section, traffic, the traffic
//! possibly of no table) followed by the change streams (see
//! [`change_log`]). Versions 1 to 3 restore with no change streams.
//!
//! # Version 6: an instance answering as the emulator
//!
//! An instance set to [`Fidelity::Emulator`] may hold what production
//! refuses and only the emulator takes: GC rules that keep nothing (a
//! version count or an age of 0) and row keys over 4 KiB. Its snapshot is
//! version 6: the magic, version 6, the fidelity (varint, 1 the emulator),
//! then version 5's layout (every section present, possibly empty). The
//! tables are read with the emulator's limits and the instance restores
//! answering as the emulator. A production instance never writes version
//! 6 unless it needs version 7, so its snapshots stay as they were;
//! versions 1 to 5 restore with production's limits.
//!
//! # Version 7: deletion protection
//!
//! When any table is protected from deletion, the snapshot is version 7:
//! version 6's layout (the fidelity, 0 for production, then every section,
//! the change streams possibly of no table) followed by the ids of the
//! protected tables:
//!
//! ```text
//! table count                    varint (protected tables)
//! per table: id                  bytes
//! ```
//!
//! Versions 1 to 6 restore with no table protected.

mod change_log;

use std::time::Duration;

use super::Instance;
use crate::engine::EngineConfig;
use crate::engine::family::FamilyId;
use crate::engine::table::{ReadOptions, Table};
use crate::error::{Error, Result};
use crate::fidelity::Fidelity;
use crate::row::{RowSink, RowView};
use crate::row_set::KeyRange;
use crate::schema::{Aggregator, ColumnFamily, GcRule, TableSchema, ValueType};
use crate::traffic::{
    TableTraffic, TrafficBucket, TrafficCounts, TrafficSpan, key_prefix16, prefix16_bytes,
};

const MAGIC: &[u8; 8] = b"TBLTOPSN";
const VERSION: u64 = 1;
/// The version that adds a section for the layers above after the tables.
const VERSION_WITH_SECTION: u64 = 2;
/// The version that adds the tables' traffic after the section.
const VERSION_WITH_TRAFFIC: u64 = 3;
/// The version that holds several instances' snapshots.
const VERSION_BUNDLE: u64 = 4;
/// The version that adds the change streams after the traffic.
const VERSION_WITH_CHANGES: u64 = 5;
/// The version of an instance answering as the emulator (its fidelity,
/// then version 5's layout).
const VERSION_WITH_FIDELITY: u64 = 6;
/// The version that adds the tables protected from deletion after the
/// change streams (version 6's layout otherwise).
const VERSION_WITH_PROTECTION: u64 = 7;
/// Rules nest at most this deep in a snapshot (guards against hostile input).
const MAX_RULE_DEPTH: usize = 32;

impl Instance {
    /// Several instances' snapshots as one (version 4, see the module
    /// docs). Each part must be a snapshot of one instance.
    #[must_use]
    pub fn bundle_snapshots(parts: &[Vec<u8>]) -> Vec<u8> {
        let mut w = Writer::default();
        w.raw(MAGIC);
        w.uint(VERSION_BUNDLE);
        w.uint(parts.len() as u64);
        for p in parts {
            w.bytes(p);
        }
        let sum = fnv64(&w.buf);
        w.raw(&sum.to_le_bytes());
        w.buf
    }

    /// The snapshots of the instances a snapshot holds: the parts of a
    /// version 4 bundle, or the snapshot itself (versions 1 to 3). The
    /// parts are checked when each is restored; here only the bundle's own
    /// frame and checksum.
    pub fn unbundle_snapshot(bytes: &[u8]) -> Result<Vec<Vec<u8>>> {
        let body = checked_body(bytes)?;
        let mut r = Reader {
            buf: body,
            pos: MAGIC.len(),
        };
        if r.uint()? != VERSION_BUNDLE {
            return Ok(vec![bytes.to_vec()]);
        }
        let n = r.count()?;
        if n == 0 {
            return Err(r.bad("a bundle of no instances"));
        }
        let mut parts = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            parts.push(r.bytes()?.to_vec());
        }
        if r.pos != r.buf.len() {
            return Err(r.bad("trailing bytes after the last instance"));
        }
        Ok(parts)
    }

    /// The whole instance as snapshot bytes (see the module docs).
    pub fn snapshot(&mut self) -> Vec<u8> {
        self.snapshot_with(None)
    }

    /// The whole instance as snapshot bytes, with a section a layer above
    /// keeps (version 2; `None` writes version 1), and the tables' traffic
    /// when there is some (version 3).
    pub fn snapshot_with(&mut self, section: Option<&[u8]>) -> Vec<u8> {
        self.snapshot_choosing(section, true)
    }

    /// [`Instance::snapshot_with`], leaving the traffic out when
    /// `with_traffic` is false (a share link that must stay short).
    pub fn snapshot_choosing(&mut self, section: Option<&[u8]>, with_traffic: bool) -> Vec<u8> {
        let mut w = Writer::default();
        w.raw(MAGIC);
        let emulator = self.fidelity.is_emulator();
        let protection = self.tables.values().any(|t| t.deletion_protection);
        // Versions 6 and 7 have version 5's layout: every section, possibly
        // empty.
        let changes = emulator || protection || change_log::any(self);
        let traffic =
            changes || with_traffic && self.tables.values().any(|t| !t.traffic.is_empty());
        let version = if protection {
            VERSION_WITH_PROTECTION
        } else if emulator {
            VERSION_WITH_FIDELITY
        } else if changes {
            VERSION_WITH_CHANGES
        } else if traffic {
            VERSION_WITH_TRAFFIC
        } else if section.is_some() {
            VERSION_WITH_SECTION
        } else {
            VERSION
        };
        w.uint(version);
        if version >= VERSION_WITH_FIDELITY {
            w.uint(u64::from(emulator));
        }
        w.bytes(self.config.project.as_bytes());
        w.bytes(self.config.instance.as_bytes());
        w.uint(self.config.seed);
        w.uint(u64::from(self.config.simulated_clock));
        w.int(self.now_micros);
        let e = &self.config.engine;
        w.uint(e.memtable_flush_bytes);
        w.uint(e.split_bytes);
        w.uint(e.merge_bytes);
        w.int(e.gc_interval_micros);
        w.uint(e.max_runs as u64);
        w.uint(self.tables.len() as u64);
        let now = self.now_micros;
        for table in self.tables.values_mut() {
            table.prepare_read();
            write_table(&mut w, table, now);
        }
        if traffic {
            match section {
                Some(section) => {
                    w.uint(1);
                    w.bytes(section);
                }
                None => w.uint(0),
            }
            if with_traffic {
                write_traffic(&mut w, self.tables.values());
            } else {
                w.uint(0);
            }
            if changes {
                change_log::write(&mut w, self.tables.values());
            }
            if protection {
                write_protected(&mut w, self.tables.values());
            }
        } else if let Some(section) = section {
            w.bytes(section);
        }
        let sum = fnv64(&w.buf);
        w.raw(&sum.to_le_bytes());
        w.buf
    }

    /// Rebuilds an instance from snapshot bytes. Anything that is not a
    /// complete, intact snapshot of a version this build understands is
    /// refused with a message saying what is wrong, and so is a snapshot
    /// holding a section of a layer above (restore it through that layer,
    /// which reads [`Instance::restore_with`]).
    pub fn restore(bytes: &[u8]) -> Result<Instance> {
        match Instance::restore_with(bytes)? {
            (db, None) => Ok(db),
            (_, Some(_)) => Err(Error::invalid(
                "the snapshot holds state of a layer above the store (row-key schemas or views); restore it through that layer",
            )),
        }
    }

    /// Rebuilds an instance from snapshot bytes, and hands back the section
    /// a layer above wrote, if any.
    pub fn restore_with(bytes: &[u8]) -> Result<(Instance, Option<Vec<u8>>)> {
        let body = checked_body(bytes)?;
        let mut r = Reader {
            buf: body,
            pos: MAGIC.len(),
        };
        let version = r.uint()?;
        if version == VERSION_BUNDLE {
            return Err(Error::invalid(
                "the snapshot holds several instances; restore it through a host that keeps them all",
            ));
        }
        if !(VERSION..=VERSION_WITH_PROTECTION).contains(&version) {
            return Err(Error::invalid(format!(
                "snapshot format version {version} is not supported by this build (it reads versions {VERSION} to {VERSION_WITH_PROTECTION})"
            )));
        }
        let fidelity = if version >= VERSION_WITH_FIDELITY {
            match r.uint()? {
                0 => Fidelity::Production,
                1 => Fidelity::Emulator,
                _ => return Err(r.bad("an unknown fidelity")),
            }
        } else {
            Fidelity::Production
        };
        let project = r.string()?;
        let instance = r.string()?;
        // A snapshot edited by hand must not smuggle in a name no command
        // line would accept.
        super::validate_resource_id("project", &project)?;
        super::validate_resource_id("instance", &instance)?;
        let seed = r.uint()?;
        let simulated_clock = match r.uint()? {
            0 => false,
            1 => true,
            _ => return Err(r.bad("an unknown clock mode")),
        };
        let now_micros = r.int()?;
        let engine = EngineConfig {
            memtable_flush_bytes: r.uint()?,
            split_bytes: r.uint()?,
            merge_bytes: r.uint()?,
            gc_interval_micros: r.int()?,
            max_runs: usize::try_from(r.uint()?).map_err(|_| r.bad("max_runs"))?,
        };
        let mut db = Instance::new(super::InstanceConfig {
            project,
            instance,
            engine,
            seed,
            simulated_clock,
        });
        db.now_micros = now_micros;
        db.fidelity = fidelity;
        let tables = r.uint()?;
        for _ in 0..tables {
            let table = read_table(&mut r, &db.config.engine, now_micros, fidelity)?;
            if db.tables.contains_key(&table.id) {
                return Err(r.bad("a table listed twice"));
            }
            db.tables.insert(table.id.clone(), table);
        }
        let section = match version {
            VERSION_WITH_SECTION => Some(r.bytes()?.to_vec()),
            VERSION_WITH_TRAFFIC
            | VERSION_WITH_CHANGES
            | VERSION_WITH_FIDELITY
            | VERSION_WITH_PROTECTION => match r.uint()? {
                0 => None,
                1 => Some(r.bytes()?.to_vec()),
                _ => return Err(r.bad("an unknown section marker")),
            },
            _ => None,
        };
        if version >= VERSION_WITH_TRAFFIC {
            read_traffic(&mut r, &mut db)?;
        }
        if version >= VERSION_WITH_CHANGES {
            change_log::read(&mut r, &mut db)?;
        }
        if version >= VERSION_WITH_PROTECTION {
            read_protected(&mut r, &mut db)?;
        }
        if r.pos != r.buf.len() {
            return Err(r.bad("trailing bytes after the last table"));
        }
        Ok((db, section))
    }
}

/// The bytes before the checksum of an intact snapshot (magic checked).
fn checked_body(bytes: &[u8]) -> Result<&[u8]> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(Error::invalid(
            "not a Tabletop snapshot (the file does not start with TBLTOPSN)",
        ));
    }
    if bytes.len() < MAGIC.len() + 9 {
        return Err(Error::invalid("the snapshot is truncated"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let mut expect = [0u8; 8];
    expect.copy_from_slice(sum);
    if fnv64(body) != u64::from_le_bytes(expect) {
        return Err(Error::invalid(
            "the snapshot is corrupt (checksum mismatch); it was not loaded",
        ));
    }
    Ok(body)
}

/// The traffic of every table that has some (version 3).
fn write_traffic<'t>(w: &mut Writer, tables: impl Iterator<Item = &'t Table> + Clone) {
    let with = tables.filter(|t| !t.traffic.is_empty());
    w.uint(with.clone().count() as u64);
    for table in with {
        w.bytes(table.id.as_bytes());
        let buckets: Vec<&TrafficBucket> = table.traffic.buckets().collect();
        w.uint(buckets.len() as u64);
        for b in buckets {
            w.int(b.start_micros);
            let spans = b.spans();
            w.uint(spans.len() as u64);
            for s in &spans {
                w.bytes(&prefix16_bytes(s.lo));
                if s.hi == s.lo {
                    w.uint(0);
                } else if s.hi == u128::MAX {
                    w.uint(1);
                } else {
                    w.uint(2);
                    w.bytes(&prefix16_bytes(s.hi));
                }
                for v in s.counts.to_array() {
                    w.uint(compact_f32(v));
                }
            }
        }
    }
}

/// The ids of the tables protected from deletion (version 6).
fn write_protected<'t>(w: &mut Writer, tables: impl Iterator<Item = &'t Table> + Clone) {
    let protected = tables.filter(|t| t.deletion_protection);
    w.uint(protected.clone().count() as u64);
    for table in protected {
        w.bytes(table.id.as_bytes());
    }
}

fn read_protected(r: &mut Reader<'_>, db: &mut Instance) -> Result<()> {
    let tables = r.count()?;
    for _ in 0..tables {
        let id = r.string()?;
        let Some(table) = db.tables.get_mut(&id) else {
            return Err(r.bad("deletion protection of a table the snapshot does not hold"));
        };
        table.deletion_protection = true;
    }
    Ok(())
}

/// A count as a varint: `2n` for a whole `n` below 2^24, else the bits.
fn compact_f32(v: f32) -> u64 {
    if (0.0..16_777_216.0).contains(&v) && v.fract() == 0.0 {
        (v as u64) << 1
    } else {
        (u64::from(v.to_bits()) << 1) | 1
    }
}

fn read_traffic(r: &mut Reader<'_>, db: &mut Instance) -> Result<()> {
    let tables = r.count()?;
    for _ in 0..tables {
        let id = r.string()?;
        let mut traffic = TableTraffic::default();
        let buckets = r.count()?;
        for _ in 0..buckets {
            let start = r.int()?;
            let n = r.count()?;
            let mut spans = Vec::with_capacity(n);
            for _ in 0..n {
                spans.push(read_span(r)?);
            }
            traffic.push_bucket(TrafficBucket::from_spans(start, spans));
        }
        let Some(table) = db.tables.get_mut(&id) else {
            return Err(r.bad("traffic of a table the snapshot does not hold"));
        };
        table.traffic = traffic;
    }
    Ok(())
}

fn read_span(r: &mut Reader<'_>) -> Result<TrafficSpan> {
    let lo = read_prefix(r)?;
    let hi = match r.uint()? {
        0 => lo,
        1 => u128::MAX,
        2 => read_prefix(r)?,
        _ => return Err(r.bad("an unknown span end")),
    };
    let mut counts = [0f32; 7];
    for c in &mut counts {
        let v = r.uint()?;
        *c = if v & 1 == 0 {
            (v >> 1) as f32
        } else {
            f32::from_bits(u32::try_from(v >> 1).map_err(|_| r.bad("a count"))?)
        };
        if !c.is_finite() || *c < 0.0 {
            return Err(r.bad("a count that is not a finite, non-negative number"));
        }
    }
    Ok(TrafficSpan {
        lo,
        hi: hi.max(lo),
        counts: TrafficCounts::from_array(counts),
    })
}

fn read_prefix(r: &mut Reader<'_>) -> Result<u128> {
    let b = r.bytes()?;
    if b.len() > 16 {
        return Err(r.bad("a key prefix longer than 16 bytes"));
    }
    Ok(key_prefix16(b))
}

fn write_table(w: &mut Writer, table: &Table, now: i64) {
    w.bytes(table.id.as_bytes());
    let families: Vec<(&str, FamilyId, &ColumnFamily)> = table.fams.live().collect();
    w.uint(families.len() as u64);
    for (name, _, def) in &families {
        w.bytes(name.as_bytes());
        w.uint(match def.value_type {
            ValueType::Bytes => 0,
            ValueType::Aggregate(Aggregator::Sum) => 1,
            ValueType::Aggregate(Aggregator::Min) => 2,
            ValueType::Aggregate(Aggregator::Max) => 3,
            ValueType::Aggregate(Aggregator::HllppUniqueCount) => 4,
        });
        write_rule(w, def.gc_rule.as_ref());
    }
    w.uint(table.initial_splits.len() as u64);
    for k in &table.initial_splits {
        w.bytes(k);
    }
    let boundaries = table.boundaries();
    w.uint(boundaries.len() as u64);
    for k in &boundaries {
        w.bytes(k);
    }
    // Rows: count them first into a separate buffer.
    let mut rows = RowWriter {
        families: &families,
        out: Writer::default(),
        count: 0,
    };
    let opts = ReadOptions::plain(now);
    table.read(&[KeyRange::all()], &opts, &mut rows);
    w.uint(rows.count);
    w.raw(&rows.out.buf);
}

struct RowWriter<'f> {
    families: &'f [(&'f str, FamilyId, &'f ColumnFamily)],
    out: Writer,
    count: u64,
}

impl RowSink for RowWriter<'_> {
    fn accept(&mut self, row: RowView<'_>) -> bool {
        self.count += 1;
        self.out.bytes(row.key);
        self.out.uint(row.cells.len() as u64);
        for c in row.cells {
            let index = self
                .families
                .iter()
                .position(|(n, ..)| *n == c.family)
                .unwrap_or(0);
            self.out.uint(index as u64);
            self.out.bytes(c.qualifier);
            self.out.int(c.timestamp_micros);
            self.out.bytes(c.value);
        }
        true
    }
}

fn write_rule(w: &mut Writer, rule: Option<&GcRule>) {
    match rule {
        None => w.uint(0),
        Some(GcRule::MaxNumVersions(n)) => {
            w.uint(1);
            w.uint(u64::try_from(*n).unwrap_or(0));
        }
        Some(GcRule::MaxAge(d)) => {
            w.uint(2);
            w.uint(u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
        }
        Some(GcRule::Intersection(rules)) => {
            w.uint(3);
            w.uint(rules.len() as u64);
            for r in rules {
                write_rule(w, Some(r));
            }
        }
        Some(GcRule::Union(rules)) => {
            w.uint(4);
            w.uint(rules.len() as u64);
            for r in rules {
                write_rule(w, Some(r));
            }
        }
    }
}

fn read_rule(r: &mut Reader<'_>, depth: usize) -> Result<Option<GcRule>> {
    if depth > MAX_RULE_DEPTH {
        return Err(r.bad("GC rules nested too deeply"));
    }
    Ok(Some(match r.uint()? {
        0 => return Ok(None),
        1 => GcRule::MaxNumVersions(i32::try_from(r.uint()?).map_err(|_| r.bad("max versions"))?),
        2 => GcRule::MaxAge(Duration::from_micros(r.uint()?)),
        kind @ (3 | 4) => {
            let n = r.count()?;
            let mut rules = Vec::with_capacity(n.min(64));
            for _ in 0..n {
                rules.push(
                    read_rule(r, depth + 1)?.ok_or_else(|| r.bad("an empty nested GC rule"))?,
                );
            }
            if kind == 3 {
                GcRule::Intersection(rules)
            } else {
                GcRule::Union(rules)
            }
        }
        _ => return Err(r.bad("an unknown GC rule kind")),
    }))
}

/// Reads one table, holding it to the limits of `fidelity` (the
/// emulator's GC rules and row keys, see version 6).
fn read_table(
    r: &mut Reader<'_>,
    cfg: &EngineConfig,
    now: i64,
    fidelity: Fidelity,
) -> Result<Table> {
    let id = r.string()?;
    let mut schema = TableSchema::default();
    let families = r.count()?;
    let mut names = Vec::with_capacity(families.min(1024));
    for _ in 0..families {
        let name = r.string()?;
        let value_type = match r.uint()? {
            0 => ValueType::Bytes,
            1 => ValueType::Aggregate(Aggregator::Sum),
            2 => ValueType::Aggregate(Aggregator::Min),
            3 => ValueType::Aggregate(Aggregator::Max),
            4 => ValueType::Aggregate(Aggregator::HllppUniqueCount),
            _ => return Err(r.bad("an unknown value type")),
        };
        let gc_rule = read_rule(r, 0)?;
        schema.families.insert(
            name.clone(),
            ColumnFamily {
                gc_rule,
                value_type,
            },
        );
        names.push(name);
    }
    schema
        .validate_for(fidelity)
        .map_err(|e| e.context(format!("snapshot table \"{id}\"")))?;
    let n = r.count()?;
    let mut splits = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        splits.push(r.bytes()?.to_vec());
    }
    if splits.windows(2).any(|w| w[0] >= w[1]) || splits.iter().any(Vec::is_empty) {
        return Err(r.bad("initial splits out of order"));
    }
    let mut table = Table::new(&id, &schema, splits, now)?;
    let n = r.count()?;
    let mut boundaries = Vec::with_capacity(n.min(1024));
    for _ in 0..n {
        boundaries.push(r.bytes()?.to_vec());
    }
    table.set_layout(&boundaries, now);
    let fids: Vec<FamilyId> = names
        .iter()
        .map(|n| {
            table
                .fams
                .id(n)
                .ok_or_else(|| Error::internal("family vanished"))
        })
        .collect::<Result<_>>()?;
    let rows = r.uint()?;
    let mut cells: Vec<(FamilyId, &[u8], i64, &[u8])> = Vec::new();
    let mut last_key: Option<&[u8]> = None;
    for _ in 0..rows {
        let key = r.bytes()?;
        if key.is_empty() || last_key.is_some_and(|l| l >= key) {
            return Err(r.bad("rows out of order"));
        }
        // A snapshot edited by hand gets no more than a write would.
        if key.len() > crate::MAX_ROW_KEY_BYTES && !fidelity.is_emulator() {
            return Err(r.bad("a row key over 4 KiB"));
        }
        last_key = Some(key);
        cells.clear();
        let n = r.count()?;
        for _ in 0..n {
            let f = usize::try_from(r.uint()?).map_err(|_| r.bad("family index"))?;
            let fid = *fids
                .get(f)
                .ok_or_else(|| r.bad("a cell of an unknown family"))?;
            let qual = r.bytes()?;
            let ts = r.int()?;
            let value = r.bytes()?;
            if qual.len() > crate::MAX_QUALIFIER_BYTES {
                return Err(r.bad("a column qualifier over 16 KiB"));
            }
            if ts < 0 {
                return Err(r.bad("a negative cell timestamp"));
            }
            if value.len() > crate::MAX_VALUE_BYTES {
                return Err(r.bad("a cell value over 100 MiB"));
            }
            cells.push((fid, qual, ts, value));
        }
        table.load_row(key, &cells, cfg);
    }
    Ok(table)
}

#[derive(Default)]
struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    fn raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    fn uint(&mut self, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(byte);
                return;
            }
            self.buf.push(byte | 0x80);
        }
    }
    fn int(&mut self, v: i64) {
        self.uint(((v << 1) ^ (v >> 63)) as u64);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.uint(b.len() as u64);
        self.raw(b);
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn bad(&self, what: &str) -> Error {
        Error::invalid(format!(
            "the snapshot is malformed at byte {}: {what}",
            self.pos
        ))
    }
    fn uint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(self.bad("unexpected end"));
            };
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.bad("an integer longer than 64 bits"))
    }
    fn int(&mut self) -> Result<i64> {
        let u = self.uint()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }
    /// A length that must fit in what is left of the input.
    fn count(&mut self) -> Result<usize> {
        let n = self.uint()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.buf.len() - self.pos)
            .ok_or_else(|| self.bad("a length larger than the snapshot"))
    }
    fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.count()?;
        let b = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }
    fn string(&mut self) -> Result<String> {
        let b = self.bytes()?;
        String::from_utf8(b.to_vec()).map_err(|_| self.bad("text that is not UTF-8"))
    }
}

/// FNV-1a, 64 bits.
fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use crate::{
        ColumnFamily, CreateTableRequest, Fidelity, GcRule, Instance, Mutation, TableSchema,
    };

    fn table(id: &str, gc_rule: Option<GcRule>) -> CreateTableRequest {
        let mut schema = TableSchema::default();
        schema
            .families
            .insert("cf".into(), ColumnFamily::with_gc(gc_rule));
        CreateTableRequest {
            table_id: id.into(),
            schema,
            initial_splits: vec![],
        }
    }

    /// A production instance's reader refuses what only the emulator
    /// takes, as a write would: a snapshot edited by hand, or one written
    /// by an instance switched without the check (only the crate can do
    /// that), does not load as production's.
    #[test]
    fn a_production_snapshot_holding_what_production_refuses_does_not_load() {
        let mut db = Instance::default();
        db.switch_fidelity(Fidelity::Emulator).expect("switch");
        db.create_table(table("t", None)).expect("create");
        let long_key = vec![b'k'; 5000];
        let write = Mutation::SetCell {
            family_name: Cow::Borrowed("cf"),
            column_qualifier: Cow::Borrowed(b"q"),
            timestamp_micros: 1000,
            value: Cow::Borrowed(b"v"),
        };
        db.mutate_row("t", &long_key, &[write])
            .expect("the emulator takes a long key");
        db.set_fidelity(Fidelity::Production);
        let e = Instance::restore(&db.snapshot()).expect_err("a long key");
        assert!(
            e.message().contains("a row key over 4 KiB"),
            "{}",
            e.message()
        );

        db.set_fidelity(Fidelity::Emulator);
        db.mutate_row("t", &long_key, &[Mutation::DeleteFromRow])
            .expect("delete");
        db.create_table(table("zero", Some(GcRule::MaxNumVersions(0))))
            .expect("the emulator takes a rule that keeps nothing");
        db.set_fidelity(Fidelity::Production);
        let e = Instance::restore(&db.snapshot()).expect_err("a rule that keeps nothing");
        assert!(
            e.message().contains("snapshot table \"zero\""),
            "{}",
            e.message()
        );
    }
}
