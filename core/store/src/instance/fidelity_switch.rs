//! Switching an instance from the emulator's answers back to production's
//! ([`Instance::switch_fidelity`]): what the emulator kept that production
//! would not have is brought to production's form where it can be, so
//! later writes and reads work. HyperLogLog++
//! cells hold the raw last input under the emulator (it does not aggregate
//! them); production keeps a sketch, so each such cell becomes the sketch
//! of that input. What production refuses outright (a row key over 4 KiB,
//! a GC rule that keeps nothing) cannot be converted, and a snapshot of a
//! production instance holding it would not load, so
//! [`Instance::switch_fidelity`] refuses to switch until it is gone.

use std::borrow::Cow;

use super::Instance;
use crate::aggregate::hll_state_of_raw;
use crate::engine::table::{ReadOptions, Table};
use crate::error::{Code, Error, Result};
use crate::fidelity::Fidelity;
use crate::mutation::{AggregateInput, Mutation, TimestampRange};
use crate::row::{OwnedRow, RowView};
use crate::row_set::KeyRange;
use crate::schema::{Aggregator, ValueType};

impl Instance {
    /// Chooses production's answers or the emulator's (see [`Fidelity`]);
    /// the one way to do so from outside the crate. Leaving the emulator's
    /// answers is `FAILED_PRECONDITION`, naming what is in the way, while
    /// the instance holds what production refuses (a row key over 4 KiB,
    /// a GC rule that keeps nothing), and nothing changes; otherwise each
    /// HyperLogLog cell holding the emulator's raw input becomes the
    /// sketch of it. Returns how many cells became sketches. Entering the
    /// emulator's answers is never refused.
    pub fn switch_fidelity(&mut self, fidelity: Fidelity) -> Result<usize> {
        self.check_fidelity_switch(fidelity)?;
        Ok(self.set_fidelity(fidelity))
    }

    /// What [`Instance::switch_fidelity`] would refuse, without switching:
    /// `FAILED_PRECONDITION` naming what is in the way when leaving the
    /// emulator's answers while the instance holds what production
    /// refuses. Lets a caller switching several instances check them all
    /// before it changes any.
    pub fn check_fidelity_switch(&mut self, fidelity: Fidelity) -> Result<()> {
        if self.fidelity.is_emulator()
            && !fidelity.is_emulator()
            && let Some(what) = self.held_against_production()
        {
            return Err(Error::new(
                Code::FailedPrecondition,
                format!(
                    "emulator parity stays on: {what}, which production refuses (a snapshot \
                     of it would not load as production's); change or delete it first"
                ),
            ));
        }
        Ok(())
    }

    /// The first thing the instance holds that production refuses, if any.
    fn held_against_production(&mut self) -> Option<String> {
        let now = self.now_micros;
        for (id, table) in &mut self.tables {
            if let Err(e) = table.schema().validate_for(Fidelity::Production) {
                return Some(format!("table \"{id}\" has {}", e.message()));
            }
            table.prepare_read();
            let opts = ReadOptions::plain(now);
            let mut long: Option<usize> = None;
            table.read(&[KeyRange::all()], &opts, &mut |row: RowView<'_>| {
                if row.key.len() > crate::MAX_ROW_KEY_BYTES {
                    long = Some(row.key.len());
                }
                long.is_none()
            });
            if let Some(len) = long {
                return Some(format!("table \"{id}\" has a row key of {len} bytes"));
            }
        }
        None
    }

    /// Turns every raw HyperLogLog++ input the emulator's write path kept
    /// into the sketch production keeps; returns how many cells changed.
    pub(super) fn sketch_raw_hll_inputs(&mut self) -> usize {
        let now = self.now_micros;
        let cfg = &self.config.engine;
        let mut changed = 0;
        for table in self.tables.values_mut() {
            for (key, writes) in hll_rewrites(table, now) {
                let muts: Vec<Mutation<'_>> = writes
                    .iter()
                    .flat_map(|(family, qualifier, ts, state)| {
                        [
                            Mutation::DeleteFromColumn {
                                family_name: Cow::Borrowed(family.as_str()),
                                column_qualifier: Cow::Borrowed(qualifier.as_slice()),
                                // Timestamps are milliseconds: the one cell.
                                time_range: Some(TimestampRange {
                                    start_micros: *ts,
                                    end_micros: ts.saturating_add(1000),
                                }),
                            },
                            Mutation::MergeToCell {
                                family_name: Cow::Borrowed(family.as_str()),
                                column_qualifier: Cow::Borrowed(qualifier.as_slice()),
                                timestamp_micros: *ts,
                                input: AggregateInput::Raw(Cow::Borrowed(state.as_slice())),
                            },
                        ]
                    })
                    .collect();
                // Written the emulator's way (the instance still answers as
                // it): a key over 4 KiB it took is taken here too, and the
                // merge into the cleared cell keeps the sketch as given.
                // Should the write be refused, the row keeps its raw cells,
                // and production's AddToCell into one answers
                // FAILED_PRECONDITION saying it is not a sketch.
                if table
                    .mutate_row_for(&key, &muts, now, cfg, Fidelity::Emulator)
                    .is_ok()
                {
                    changed += writes.len();
                }
            }
        }
        changed
    }
}

/// One cell to rewrite: family, qualifier, timestamp, the sketch.
type Rewrite = (String, Vec<u8>, i64, Vec<u8>);

/// The rows of `table` holding raw HyperLogLog++ inputs, with the sketch
/// each such cell becomes.
fn hll_rewrites(table: &mut Table, now: i64) -> Vec<(Vec<u8>, Vec<Rewrite>)> {
    let hll: Vec<String> = table
        .fams
        .live()
        .filter(|(_, _, def)| {
            matches!(
                def.value_type,
                ValueType::Aggregate(Aggregator::HllppUniqueCount)
            )
        })
        .map(|(name, _, _)| name.to_string())
        .collect();
    if hll.is_empty() {
        return Vec::new();
    }
    table.prepare_read();
    let opts = ReadOptions::plain(now);
    let mut rows: Vec<OwnedRow> = Vec::new();
    table.read(&[KeyRange::all()], &opts, &mut |row: RowView<'_>| {
        rows.push(row.to_owned_row());
        true
    });
    rows.into_iter()
        .filter_map(|row| {
            let writes: Vec<Rewrite> = row
                .cells
                .into_iter()
                .filter(|c| hll.contains(&c.family))
                .filter_map(|c| {
                    let state = hll_state_of_raw(&c.value)?;
                    Some((c.family, c.qualifier, c.timestamp_micros, state))
                })
                .collect();
            (!writes.is_empty()).then_some((row.key, writes))
        })
        .collect()
}
