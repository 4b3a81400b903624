//! The write paths of [`Fidelity::Emulator`](crate::Fidelity): what Google's
//! Bigtable emulator does where production Bigtable differs (see
//! [`crate::fidelity`] for the whole list). The emulator applies a row's
//! mutations one at a time, checking each as it comes, so a failing
//! mutation leaves the ones before it applied, and it answers most
//! refusals with `UNKNOWN` and its own words. The same goes for
//! ModifyColumnFamilies. These paths model that with the engine's own
//! writes: each mutation (or modification) is one atomic engine write,
//! checked first the emulator's way.

use std::borrow::Cow;

use super::Instance;
use crate::engine::table::Table;
use crate::error::{Code, Error, Result};
use crate::filter::RowFilter;
use crate::mutation::{Mutation, SERVER_TIMESTAMP, TimestampRange};
use crate::schema::{Aggregator, FamilyChange, ValueType};

/// `UNKNOWN` with the emulator's words.
fn unknown(message: String) -> Error {
    Error::new(Code::Unknown, message)
}

/// The checks the emulator makes of one mutation before applying it, in
/// its words: the family must exist, a timestamp must be -1 or a
/// non-negative multiple of 1000, AddToCell needs an aggregate family.
pub(super) fn check_as_emulator(table: &Table, m: &Mutation<'_>) -> Result<()> {
    if let Some(name) = m.family_name()
        && table.fams.id(name).is_none()
    {
        return Err(unknown(format!("unknown family \"{name}\"")));
    }
    match m {
        Mutation::SetCell {
            timestamp_micros: ts,
            ..
        } if *ts != SERVER_TIMESTAMP && (*ts < 0 || ts % 1000 != 0) => {
            Err(unknown(format!("invalid timestamp {ts}")))
        }
        Mutation::AddToCell { family_name, .. } => {
            let aggregate = table
                .fams
                .id(family_name)
                .is_some_and(|id| matches!(table.fams.def(id).value_type, ValueType::Aggregate(_)));
            if aggregate {
                Ok(())
            } else {
                Err(unknown(
                    "illegal attempt to use AddToCell on non-aggregate cell".to_string(),
                ))
            }
        }
        _ => Ok(()),
    }
}

/// What the engine writes for one mutation the emulator applies: the
/// mutation itself, except that an AddToCell on a `min` or `max` family
/// replaces the cell at its timestamp (the emulator keeps the last input
/// there; it aggregates only sums).
fn as_emulator_writes<'m>(table: &Table, m: &'m Mutation<'m>, now: i64) -> Vec<Mutation<'m>> {
    let Mutation::AddToCell {
        family_name,
        column_qualifier,
        timestamp_micros,
        ..
    } = m
    else {
        return vec![m.clone()];
    };
    let last_input_wins = table.fams.id(family_name).is_some_and(|id| {
        matches!(
            table.fams.def(id).value_type,
            ValueType::Aggregate(Aggregator::Min | Aggregator::Max)
        )
    });
    if !last_input_wins {
        return vec![m.clone()];
    }
    let ts = if *timestamp_micros == SERVER_TIMESTAMP {
        now - now.rem_euclid(1000)
    } else {
        *timestamp_micros
    };
    let clear = Mutation::DeleteFromColumn {
        family_name: Cow::Borrowed(family_name.as_ref()),
        column_qualifier: Cow::Borrowed(column_qualifier.as_ref()),
        time_range: Some(TimestampRange {
            start_micros: ts,
            end_micros: ts + 1000,
        }),
    };
    vec![clear, m.clone()]
}

/// The filter the emulator effectively runs for `filter`: `sink` acts as
/// `passAllFilter`; in a chain, a `stripValueTransformer` also drops the
/// labels the filters before it applied (at any depth), and only the last
/// `applyLabelTransformer` applies (production refuses a second one).
pub(crate) fn as_emulator_filter(filter: &RowFilter) -> RowFilter {
    match filter {
        RowFilter::Sink => RowFilter::PassAll,
        RowFilter::Chain(list) => {
            let last_strip = list
                .iter()
                .rposition(|f| matches!(f, RowFilter::StripValue));
            let unlabelled: Vec<RowFilter> = list
                .iter()
                .enumerate()
                .map(|(i, f)| match last_strip {
                    Some(s) if i < s => without_labels(f),
                    _ => as_emulator_filter(f),
                })
                .collect();
            let last_label = unlabelled
                .iter()
                .rposition(|f| matches!(f, RowFilter::ApplyLabel(_)));
            let mut kept: Vec<RowFilter> = unlabelled
                .into_iter()
                .enumerate()
                .filter(|(i, f)| !matches!(f, RowFilter::ApplyLabel(_)) || Some(*i) == last_label)
                .map(|(_, f)| f)
                .collect();
            // A chain the emulator took (two filters or more) that lost
            // labels down to one filter is that filter; a chain of one it
            // refuses, as production does, so that one stays a chain.
            if kept.len() == 1 && list.len() >= 2 {
                kept.remove(0)
            } else {
                RowFilter::Chain(kept)
            }
        }
        RowFilter::Interleave(list) => {
            RowFilter::Interleave(list.iter().map(as_emulator_filter).collect())
        }
        RowFilter::Condition { .. } => emulator_condition(filter, as_emulator_filter),
        other => other.clone(),
    }
}

/// `filter` as the emulator reads it ([`as_emulator_filter`]), with every
/// label it would apply left out: what a later `stripValueTransformer` in
/// the same chain leaves of it. A predicate keeps its labels (they never
/// reach the output).
fn without_labels(filter: &RowFilter) -> RowFilter {
    match filter {
        RowFilter::ApplyLabel(_) => RowFilter::PassAll,
        RowFilter::Chain(list) => RowFilter::Chain(list.iter().map(without_labels).collect()),
        RowFilter::Interleave(list) => {
            RowFilter::Interleave(list.iter().map(without_labels).collect())
        }
        RowFilter::Condition { .. } => emulator_condition(filter, without_labels),
        other => as_emulator_filter(other),
    }
}

/// A condition as the emulator reads it: its predicate through
/// [`as_emulator_filter`] (a predicate's labels never reach the output) and
/// its branches through `branch`. Any other filter comes back unchanged.
fn emulator_condition(filter: &RowFilter, branch: fn(&RowFilter) -> RowFilter) -> RowFilter {
    let RowFilter::Condition {
        predicate,
        true_filter,
        false_filter,
    } = filter
    else {
        return filter.clone();
    };
    RowFilter::Condition {
        predicate: Box::new(as_emulator_filter(predicate)),
        true_filter: true_filter.as_deref().map(|f| Box::new(branch(f))),
        false_filter: false_filter.as_deref().map(|f| Box::new(branch(f))),
    }
}

impl Instance {
    /// MutateRow as the emulator does it: each mutation checked and
    /// applied in turn, so a failing one leaves the earlier ones applied.
    pub(super) fn mutate_row_as_emulator(
        &mut self,
        table_id: &str,
        row_key: &[u8],
        mutations: &[Mutation<'_>],
    ) -> Result<()> {
        let now = self.now_micros;
        let record = self.record_traffic;
        let cfg = &self.config.engine;
        let table = self
            .tables
            .get_mut(table_id)
            .ok_or_else(|| Error::table_not_found(table_id))?;
        if mutations.is_empty() {
            return Err(Error::no_mutations());
        }
        // Bytes of the mutations applied, counted as one write of the row.
        let mut written: Option<u64> = None;
        let mut outcome = Ok(());
        for m in mutations {
            let applied = check_as_emulator(table, m).and_then(|()| {
                let writes = as_emulator_writes(table, m, now);
                table.mutate_row_for(row_key, &writes, now, cfg, crate::Fidelity::Emulator)
            });
            if let Err(e) = applied {
                outcome = Err(e);
                break;
            }
            *written.get_or_insert(0) += m.written(row_key.len()).1;
        }
        if record && let Some(bytes) = written {
            table.traffic.note_write(now, row_key, bytes);
        }
        outcome
    }

    /// ModifyColumnFamilies as the emulator does it: one modification at a
    /// time, up to the failing one; a family to update or drop that the
    /// table does not have is `UNKNOWN` `no such family`.
    pub(super) fn modify_column_families_as_emulator(
        &mut self,
        table_id: &str,
        changes: &[FamilyChange],
    ) -> Result<()> {
        let table = self
            .tables
            .get_mut(table_id)
            .ok_or_else(|| Error::table_not_found(table_id))?;
        for change in changes {
            if !matches!(change, FamilyChange::Create(..))
                && table.fams.id(change.family()).is_none()
            {
                return Err(unknown(format!("no such family \"{}\"", change.family())));
            }
            table.modify_families(std::slice::from_ref(change), crate::Fidelity::Emulator)?;
        }
        Ok(())
    }
}
