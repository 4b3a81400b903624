//! CheckAndMutateRow and ReadModifyWriteRow: the two single-row
//! read-then-write RPCs, atomic per row.
//!
//! Both read the row through the engine's normal read path
//! ([`Table::read`](crate::engine::table::Table)) and write through
//! `Table::mutate_row`, so they see exactly what a ReadRows would (GC-eligible
//! cells included, as GC is lazy) and write with MutateRow's validation and
//! atomicity. The instance is borrowed mutably for the whole call, so
//! nothing can happen between the read and the write.
//!
//! Behaviour follows `google/bigtable/v2/bigtable.proto` and the service:
//! - CheckAndMutateRow needs at least one mutation in `true_mutations` or
//!   `false_mutations` (at most 100,000 each); without a predicate it tests
//!   whether the row has any cell; only the chosen list is applied (and
//!   validated: an invalid mutation in the other list is not noticed);
//! - ReadModifyWriteRow needs at least one rule (at most 100,000); each rule
//!   works on the newest cell of its column and later rules see the results
//!   of earlier ones; the new cell's timestamp is the greater of the
//!   server's time (millisecond granularity) and the existing cell's
//!   timestamp, so a cell written in the future is overwritten in place;
//!   an increment of a value that is not 8 bytes fails with
//!   `FAILED_PRECONDITION` and leaves the row unchanged; the answer holds
//!   only the modified cells, one per column, with their new values.

use std::borrow::Cow;

use super::{Instance, MAX_MUTATIONS_PER_REQUEST};
use crate::engine::table::{ReadOptions, Table};
use crate::error::{Code, Error, Place, Result};
use crate::escape::escape_bytes;
use crate::filter::{FilterPlan, RowFilter};
use crate::mutation::{Mutation, validate_qualifier, validate_row_key};
use crate::row::{OwnedCell, OwnedRow, RowView};
use crate::row_set::{KeyRange, successor};
use crate::schema::ValueType;
use crate::trace::{Operation, RequestShape, Trace};

/// A CheckAndMutateRow request (`google.bigtable.v2.CheckAndMutateRowRequest`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckAndMutateRowRequest<'a> {
    /// The row.
    pub row_key: Vec<u8>,
    /// The test; `None` tests whether the row has any cell at all.
    pub predicate_filter: Option<RowFilter>,
    /// Applied, atomically and in order, when the predicate yields a cell.
    pub true_mutations: Vec<Mutation<'a>>,
    /// Applied, atomically and in order, when it yields nothing.
    pub false_mutations: Vec<Mutation<'a>>,
}

/// The answer of CheckAndMutateRow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckAndMutateRowResponse {
    /// Whether the predicate yielded at least one cell (so
    /// `true_mutations` were applied).
    pub predicate_matched: bool,
}

/// What a [`ReadModifyWriteRule`] does to the newest cell of its column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadModifyWriteOp {
    /// Append bytes to the value (a missing cell counts as empty).
    AppendValue(Vec<u8>),
    /// Add to the value read as a 64-bit big-endian signed integer (a
    /// missing cell counts as zero; the sum wraps around on overflow).
    IncrementAmount(i64),
}

/// One rule of a ReadModifyWriteRow request
/// (`google.bigtable.v2.ReadModifyWriteRule`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadModifyWriteRule {
    /// The family; must exist and hold plain bytes.
    pub family_name: String,
    /// The column qualifier.
    pub column_qualifier: Vec<u8>,
    /// The operation.
    pub rule: ReadModifyWriteOp,
}

/// A ReadModifyWriteRow request (`google.bigtable.v2.ReadModifyWriteRowRequest`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadModifyWriteRowRequest {
    /// The row.
    pub row_key: Vec<u8>,
    /// The rules, applied in order.
    pub rules: Vec<ReadModifyWriteRule>,
}

/// The answer of ReadModifyWriteRow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadModifyWriteRowResponse {
    /// The row key and the new contents of every modified cell (one per
    /// column), ordered by family name and qualifier.
    pub row: OwnedRow,
}

/// The half-open key range holding exactly one row.
fn single_row(key: &[u8]) -> [KeyRange; 1] {
    [KeyRange {
        start: key.to_vec(),
        end: Some(successor(key)),
    }]
}

/// Reads one row of a table into owned memory, optionally filtered.
fn read_one(
    table: &mut Table,
    key: &[u8],
    plan: Option<&FilterPlan>,
    now: i64,
    record: bool,
    trace: Option<&mut Trace>,
) -> Option<OwnedRow> {
    table.prepare_read();
    let opts = ReadOptions {
        limit: Some(1),
        plan,
        ..ReadOptions::plain(now)
    };
    let mut found = None;
    let stats = table.read(&single_row(key), &opts, &mut |row: RowView<'_>| {
        found = Some(row.to_owned_row());
        false
    });
    if record {
        table.traffic.note_point_read(
            now,
            key,
            stats.rows_returned,
            stats.bytes_returned,
            stats.rows_seen,
        );
    }
    if let Some(t) = trace {
        t.tablet_count = table.tablets.len();
        t.request = RequestShape {
            row_keys: 1,
            ranges: single_row(key).to_vec(),
            filtered: plan.is_some(),
            ..RequestShape::default()
        };
        t.read = stats;
    }
    found
}

/// Records the row a conditional operation wrote, in the trace and (when
/// `record`) in the table's traffic.
fn note_write(
    table: &mut Table,
    now: i64,
    record: bool,
    trace: Option<&mut Trace>,
    key: &[u8],
    mutations: &[Mutation<'_>],
) {
    let (cells, bytes) = mutations.iter().fold((0, 0), |(c, b), m| {
        let (mc, mb) = m.written(key.len());
        (c + mc, b + mb)
    });
    if record {
        table.traffic.note_write(now, key, bytes);
    }
    if let Some(t) = trace {
        t.note_written(key, mutations.len(), cells, bytes);
    }
}

impl Instance {
    /// CheckAndMutateRow: tests the row with a filter and applies
    /// `true_mutations` if it yields any cell, `false_mutations` otherwise,
    /// atomically.
    pub fn check_and_mutate_row(
        &mut self,
        table_id: &str,
        req: &CheckAndMutateRowRequest<'_>,
    ) -> Result<CheckAndMutateRowResponse> {
        self.check_and_mutate_row_traced(table_id, req, None)
    }

    /// [`Instance::check_and_mutate_row`], recording the predicate's read,
    /// whether it matched and what was written.
    pub fn check_and_mutate_row_traced(
        &mut self,
        table_id: &str,
        req: &CheckAndMutateRowRequest<'_>,
        mut trace: Option<&mut Trace>,
    ) -> Result<CheckAndMutateRowResponse> {
        let now = self.now_micros;
        let seed = self.config.seed;
        let record = self.record_traffic;
        let table = self
            .tables
            .get_mut(table_id)
            .ok_or_else(|| Error::table_not_found(table_id))?;
        let emulator = self.fidelity.is_emulator();
        // The emulator takes row keys over 4 KiB (not an empty one).
        if !emulator || req.row_key.is_empty() {
            validate_row_key(&req.row_key)?;
        }
        // The emulator accepts a request without mutations (and only tests
        // the predicate).
        if req.true_mutations.is_empty() && req.false_mutations.is_empty() && !emulator {
            return Err(Error::invalid(
                "CheckAndMutateRow needs at least one mutation in true_mutations or false_mutations",
            ));
        }
        for (field, list) in [
            ("true_mutations", &req.true_mutations),
            ("false_mutations", &req.false_mutations),
        ] {
            if list.len() > MAX_MUTATIONS_PER_REQUEST {
                return Err(Error::invalid(format!(
                    "Error in field '{field}' : {} mutations; the limit is {MAX_MUTATIONS_PER_REQUEST}",
                    list.len()
                )));
            }
        }
        let emulator_filter = match &req.predicate_filter {
            Some(f) if emulator => Some(super::emulator::as_emulator_filter(f)),
            _ => None,
        };
        let plan = match emulator_filter.as_ref().or(req.predicate_filter.as_ref()) {
            Some(f) => {
                let plan = FilterPlan::compile_cached(f, emulator, &mut self.regexes)
                    .map_err(|e| e.context("predicate_filter"))?
                    .with_seed(seed);
                plan.check_families(|name| table.fams.id(name).is_some())?;
                Some(plan)
            }
            None => None,
        };
        if let Some(t) = trace.as_deref_mut() {
            t.begin(Operation::CheckAndMutateRow, table_id);
        }
        let matched = read_one(
            table,
            &req.row_key,
            plan.as_ref(),
            now,
            record,
            trace.as_deref_mut(),
        )
        .is_some();
        let mutations = if matched {
            &req.true_mutations
        } else {
            &req.false_mutations
        };
        if !mutations.is_empty() && emulator {
            // The emulator writes as MutateRow does there: one mutation at a
            // time.
            self.mutate_row_as_emulator(table_id, &req.row_key, mutations)?;
            if let Some(t) = trace.as_deref_mut() {
                let (cells, bytes) = mutations.iter().fold((0, 0), |(c, b), m| {
                    let (mc, mb) = m.written(req.row_key.len());
                    (c + mc, b + mb)
                });
                t.note_written(&req.row_key, mutations.len(), cells, bytes);
            }
        } else if !mutations.is_empty() {
            table.mutate_row(&req.row_key, mutations, now, &self.config.engine)?;
            note_write(
                table,
                now,
                record,
                trace.as_deref_mut(),
                &req.row_key,
                mutations,
            );
        }
        if let Some(t) = trace {
            t.predicate_matched = Some(matched);
        }
        Ok(CheckAndMutateRowResponse {
            predicate_matched: matched,
        })
    }

    /// ReadModifyWriteRow: appends to or increments the newest cells of some
    /// columns, atomically, and returns the new cells.
    pub fn read_modify_write_row(
        &mut self,
        table_id: &str,
        req: &ReadModifyWriteRowRequest,
    ) -> Result<ReadModifyWriteRowResponse> {
        self.read_modify_write_row_traced(table_id, req, None)
    }

    /// [`Instance::read_modify_write_row`], recording the read of the row
    /// and the cells written.
    pub fn read_modify_write_row_traced(
        &mut self,
        table_id: &str,
        req: &ReadModifyWriteRowRequest,
        mut trace: Option<&mut Trace>,
    ) -> Result<ReadModifyWriteRowResponse> {
        let now = self.now_micros;
        let record = self.record_traffic;
        let table = self
            .tables
            .get_mut(table_id)
            .ok_or_else(|| Error::table_not_found(table_id))?;
        let emulator = self.fidelity.is_emulator();
        // The emulator takes row keys over 4 KiB. (It also takes an empty
        // one here, and keeps a row under it; Tabletop cannot: an empty key
        // is where a table starts, so that stays refused.)
        if !emulator || req.row_key.is_empty() {
            validate_row_key(&req.row_key)?;
        }
        if req.rules.is_empty() && emulator {
            // The emulator accepts a request without rules and answers the
            // bare row key.
            return Ok(ReadModifyWriteRowResponse {
                row: OwnedRow {
                    key: req.row_key.clone(),
                    cells: Vec::new(),
                },
            });
        }
        if req.rules.is_empty() {
            return Err(Error::invalid("ReadModifyWriteRow needs at least one rule"));
        }
        if req.rules.len() > MAX_MUTATIONS_PER_REQUEST {
            return Err(Error::invalid(format!(
                "Error in field 'rules' : {} rules; the limit is {MAX_MUTATIONS_PER_REQUEST}",
                req.rules.len()
            )));
        }
        for (i, rule) in req.rules.iter().enumerate() {
            let at = |e: Error| e.at(Place::Rule(i));
            let id = table.fams.require(&rule.family_name).map_err(at)?;
            if let ValueType::Aggregate(agg) = table.fams.def(id).value_type {
                return Err(at(Error::invalid(format!(
                    "column family \"{}\" is an aggregate family ({}); ReadModifyWriteRow \
                     works on plain cells only, write it with AddToCell or MergeToCell",
                    rule.family_name,
                    agg.cbt_name()
                ))));
            }
            validate_qualifier(&rule.column_qualifier).map_err(at)?;
        }

        if let Some(t) = trace.as_deref_mut() {
            t.begin(Operation::ReadModifyWriteRow, table_id);
        }
        let row = read_one(table, &req.row_key, None, now, record, trace.as_deref_mut());
        let server_ts = now - now.rem_euclid(1000);
        // The new cells, one per modified column, in rule order.
        let mut written: Vec<OwnedCell> = Vec::new();
        for (i, rule) in req.rules.iter().enumerate() {
            let same_column = |family: &str, qualifier: &[u8]| {
                family == rule.family_name && qualifier == rule.column_qualifier
            };
            let slot = written
                .iter()
                .position(|c| same_column(&c.family, &c.qualifier));
            let previous: Option<(i64, &[u8])> = match slot.and_then(|k| written.get(k)) {
                Some(c) => Some((c.timestamp_micros, &c.value)),
                // Cells come newest first, so the first one is the latest.
                None => row.as_ref().and_then(|r| {
                    r.cells
                        .iter()
                        .find(|c| same_column(&c.family, &c.qualifier))
                        .map(|c| (c.timestamp_micros, c.value.as_slice()))
                }),
            };
            let timestamp_micros = previous.map_or(server_ts, |(ts, _)| ts.max(server_ts));
            let value = match &rule.rule {
                ReadModifyWriteOp::AppendValue(suffix) => {
                    let mut v = previous.map(|(_, v)| v.to_vec()).unwrap_or_default();
                    v.extend_from_slice(suffix);
                    v
                }
                ReadModifyWriteOp::IncrementAmount(delta) => {
                    let current = match previous {
                        None => 0,
                        Some((_, v)) => match <[u8; 8]>::try_from(v) {
                            Ok(bytes) => i64::from_be_bytes(bytes),
                            // The emulator answers UNKNOWN here.
                            Err(_) if emulator => {
                                return Err(Error::new(
                                    Code::Unknown,
                                    format!("rule {i}: the value is not a 64-bit integer"),
                                ));
                            }
                            Err(_) => {
                                return Err(Error::new(
                                    Code::FailedPrecondition,
                                    format!(
                                        "Cannot increment value '{}' (family={}, qualifier={}). \
                                         The increment operation can only be performed on \
                                         64-bit values",
                                        escape_bytes(v),
                                        rule.family_name,
                                        escape_bytes(&rule.column_qualifier)
                                    ),
                                )
                                .at(Place::Rule(i)));
                            }
                        },
                    };
                    current.wrapping_add(*delta).to_be_bytes().to_vec()
                }
            };
            let cell = OwnedCell {
                family: rule.family_name.clone(),
                qualifier: rule.column_qualifier.clone(),
                timestamp_micros,
                value,
                labels: Vec::new(),
                gc_eligible: false,
            };
            match slot.and_then(|k| written.get_mut(k)) {
                Some(c) => *c = cell,
                None => written.push(cell),
            }
        }

        let mutations: Vec<Mutation<'_>> = written
            .iter()
            .map(|c| Mutation::SetCell {
                family_name: Cow::Borrowed(c.family.as_str()),
                column_qualifier: Cow::Borrowed(c.qualifier.as_slice()),
                timestamp_micros: c.timestamp_micros,
                value: Cow::Borrowed(c.value.as_slice()),
            })
            .collect();
        table.mutate_row_for(
            &req.row_key,
            &mutations,
            now,
            &self.config.engine,
            self.fidelity,
        )?;
        note_write(table, now, record, trace, &req.row_key, &mutations);
        drop(mutations);

        written.sort_by(|a, b| (&a.family, &a.qualifier).cmp(&(&b.family, &b.qualifier)));
        Ok(ReadModifyWriteRowResponse {
            row: OwnedRow {
                key: req.row_key.clone(),
                cells: written,
            },
        })
    }
}
