//! Mutations of one row (`google.bigtable.v2.Mutation`) and their
//! validation against a table's schema.
//!
//! Mutations borrow their bytes (`Cow`), so a bulk loader can hand the
//! engine slices of one big buffer while a JSON decoder hands it owned data.
//! Validation happens before anything is applied: a row sees either every
//! mutation of a request or none.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::schema::{MAX_QUALIFIER_BYTES, MAX_ROW_KEY_BYTES, MAX_VALUE_BYTES};

/// The SetCell timestamp that asks the server to use its own clock.
pub const SERVER_TIMESTAMP: i64 = -1;

/// A half-open range of timestamps in microseconds, `[start, end)`; an end of
/// 0 means "no upper bound", as in Bigtable's `TimestampRange`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimestampRange {
    /// Inclusive lower bound.
    pub start_micros: i64,
    /// Exclusive upper bound; 0 means infinity.
    pub end_micros: i64,
}

impl TimestampRange {
    /// Whether `ts` lies inside the range.
    #[must_use]
    pub fn contains(&self, ts: i64) -> bool {
        ts >= self.start_micros && (self.end_micros == 0 || ts < self.end_micros)
    }
}

/// An input to an aggregate cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AggregateInput<'a> {
    /// A 64-bit integer (`int_value`).
    Int(i64),
    /// Raw bytes (`raw_value`): an 8-byte big-endian integer for sum, min and
    /// max, or a serialized sketch for MergeToCell on HLL families.
    Raw(Cow<'a, [u8]>),
}

/// Which of the two aggregate writes an [`AggregateWrite`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggregateOp {
    /// `AddToCell`: an input to aggregate.
    Add,
    /// `MergeToCell`: a state (as read back from a cell) to merge.
    Merge,
}

/// The parts of an `AddToCell` or a `MergeToCell`, which carry the same
/// fields: one view of both, so code that treats them alike reads them
/// once ([`Mutation::aggregate_write`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AggregateWrite<'m, 'a> {
    /// Add or merge.
    pub op: AggregateOp,
    /// The aggregate family.
    pub family_name: &'m str,
    /// The column qualifier.
    pub column_qualifier: &'m [u8],
    /// Microseconds, or [`SERVER_TIMESTAMP`].
    pub timestamp_micros: i64,
    /// The input or state.
    pub input: &'m AggregateInput<'a>,
}

/// One mutation of a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mutation<'a> {
    /// Write a cell, replacing any cell with the same column and timestamp.
    SetCell {
        /// Column family; must exist and hold plain bytes.
        family_name: Cow<'a, str>,
        /// Column qualifier (may be empty).
        column_qualifier: Cow<'a, [u8]>,
        /// Microseconds, a multiple of 1000, or [`SERVER_TIMESTAMP`].
        timestamp_micros: i64,
        /// The value.
        value: Cow<'a, [u8]>,
    },
    /// Add an input to an aggregate cell.
    AddToCell {
        /// An aggregate column family.
        family_name: Cow<'a, str>,
        /// Column qualifier.
        column_qualifier: Cow<'a, [u8]>,
        /// Microseconds (a multiple of 1000), or [`SERVER_TIMESTAMP`].
        timestamp_micros: i64,
        /// The input.
        input: AggregateInput<'a>,
    },
    /// Merge an aggregate state (as read back from a cell) into a cell.
    MergeToCell {
        /// An aggregate column family.
        family_name: Cow<'a, str>,
        /// Column qualifier.
        column_qualifier: Cow<'a, [u8]>,
        /// Microseconds (a multiple of 1000), or [`SERVER_TIMESTAMP`].
        timestamp_micros: i64,
        /// The state to merge.
        input: AggregateInput<'a>,
    },
    /// Delete the cells of one column, optionally only those in a time range.
    DeleteFromColumn {
        /// Column family.
        family_name: Cow<'a, str>,
        /// Column qualifier.
        column_qualifier: Cow<'a, [u8]>,
        /// Restrict the deletion to these timestamps.
        time_range: Option<TimestampRange>,
    },
    /// Delete every cell of one family in the row.
    DeleteFromFamily {
        /// Column family.
        family_name: Cow<'a, str>,
    },
    /// Delete the whole row.
    DeleteFromRow,
}

impl<'a> Mutation<'a> {
    /// The parts of an `AddToCell` or a `MergeToCell`; `None` for any other
    /// mutation.
    #[must_use]
    pub fn aggregate_write(&self) -> Option<AggregateWrite<'_, 'a>> {
        let (Mutation::AddToCell {
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
        }) = self
        else {
            return None;
        };
        let op = if matches!(self, Mutation::AddToCell { .. }) {
            AggregateOp::Add
        } else {
            AggregateOp::Merge
        };
        Some(AggregateWrite {
            op,
            family_name,
            column_qualifier,
            timestamp_micros: *timestamp_micros,
            input,
        })
    }
}

impl Mutation<'_> {
    /// The cell this mutation writes, as `(cells, bytes)`: one cell of row
    /// key, family, qualifier, an 8-byte timestamp and the value (an
    /// aggregate input counts its bytes, 8 for an integer) for a set, an
    /// add or a merge; nothing for a delete.
    #[must_use]
    pub fn written(&self, row_key_len: usize) -> (u64, u64) {
        match self {
            Mutation::SetCell {
                family_name,
                column_qualifier,
                value,
                ..
            } => (
                1,
                crate::row::cell_bytes(
                    row_key_len,
                    family_name.len(),
                    column_qualifier.len(),
                    value.len(),
                ),
            ),
            Mutation::AddToCell {
                family_name,
                column_qualifier,
                input,
                ..
            }
            | Mutation::MergeToCell {
                family_name,
                column_qualifier,
                input,
                ..
            } => {
                let value_len = match input {
                    AggregateInput::Int(_) => 8,
                    AggregateInput::Raw(b) => b.len(),
                };
                (
                    1,
                    crate::row::cell_bytes(
                        row_key_len,
                        family_name.len(),
                        column_qualifier.len(),
                        value_len,
                    ),
                )
            }
            Mutation::DeleteFromColumn { .. }
            | Mutation::DeleteFromFamily { .. }
            | Mutation::DeleteFromRow => (0, 0),
        }
    }

    /// The family the mutation touches, if any.
    #[must_use]
    pub fn family_name(&self) -> Option<&str> {
        match self {
            Mutation::SetCell { family_name, .. }
            | Mutation::AddToCell { family_name, .. }
            | Mutation::MergeToCell { family_name, .. }
            | Mutation::DeleteFromColumn { family_name, .. }
            | Mutation::DeleteFromFamily { family_name } => Some(family_name),
            Mutation::DeleteFromRow => None,
        }
    }

    /// A copy that owns its bytes.
    #[must_use]
    pub fn into_owned(self) -> Mutation<'static> {
        fn own<T: ToOwned + ?Sized>(c: Cow<'_, T>) -> Cow<'static, T> {
            Cow::Owned(c.into_owned())
        }
        fn own_input(i: AggregateInput<'_>) -> AggregateInput<'static> {
            match i {
                AggregateInput::Int(v) => AggregateInput::Int(v),
                AggregateInput::Raw(b) => AggregateInput::Raw(own(b)),
            }
        }
        match self {
            Mutation::SetCell {
                family_name,
                column_qualifier,
                timestamp_micros,
                value,
            } => Mutation::SetCell {
                family_name: own(family_name),
                column_qualifier: own(column_qualifier),
                timestamp_micros,
                value: own(value),
            },
            Mutation::AddToCell {
                family_name,
                column_qualifier,
                timestamp_micros,
                input,
            } => Mutation::AddToCell {
                family_name: own(family_name),
                column_qualifier: own(column_qualifier),
                timestamp_micros,
                input: own_input(input),
            },
            Mutation::MergeToCell {
                family_name,
                column_qualifier,
                timestamp_micros,
                input,
            } => Mutation::MergeToCell {
                family_name: own(family_name),
                column_qualifier: own(column_qualifier),
                timestamp_micros,
                input: own_input(input),
            },
            Mutation::DeleteFromColumn {
                family_name,
                column_qualifier,
                time_range,
            } => Mutation::DeleteFromColumn {
                family_name: own(family_name),
                column_qualifier: own(column_qualifier),
                time_range,
            },
            Mutation::DeleteFromFamily { family_name } => Mutation::DeleteFromFamily {
                family_name: own(family_name),
            },
            Mutation::DeleteFromRow => Mutation::DeleteFromRow,
        }
    }

    /// A `SetCell` built from borrowed parts.
    #[must_use]
    pub fn set_cell<'b>(
        family: &'b str,
        qualifier: &'b [u8],
        timestamp_micros: i64,
        value: &'b [u8],
    ) -> Mutation<'b> {
        Mutation::SetCell {
            family_name: Cow::Borrowed(family),
            column_qualifier: Cow::Borrowed(qualifier),
            timestamp_micros,
            value: Cow::Borrowed(value),
        }
    }
}

/// Checks a row key: 1 byte to 4 KiB.
pub fn validate_row_key(row_key: &[u8]) -> Result<()> {
    if row_key.is_empty() {
        return Err(Error::empty_row_key());
    }
    if row_key.len() > MAX_ROW_KEY_BYTES {
        return Err(Error::invalid(format!(
            "row key is {} bytes long; the limit is {MAX_ROW_KEY_BYTES} bytes (4 KiB)",
            row_key.len()
        )));
    }
    Ok(())
}

/// Checks a write timestamp: [`SERVER_TIMESTAMP`], or a non-negative multiple
/// of 1000 microseconds (Bigtable's default millisecond granularity).
pub fn validate_timestamp(ts: i64) -> Result<()> {
    if ts == SERVER_TIMESTAMP {
        return Ok(());
    }
    if ts < 0 {
        return Err(Error::invalid(format!(
            "timestamp {ts} is negative; use -1 for the server's time or a value in microseconds"
        )));
    }
    if ts % 1000 != 0 {
        return Err(Error::invalid(format!(
            "timestamp {ts} is not a multiple of 1000: this table keeps millisecond granularity, \
             so timestamps in microseconds must end in 000"
        )));
    }
    Ok(())
}

/// Checks a column qualifier's size.
pub fn validate_qualifier(q: &[u8]) -> Result<()> {
    if q.len() > MAX_QUALIFIER_BYTES {
        return Err(Error::invalid(format!(
            "column qualifier is {} bytes long; the limit is {MAX_QUALIFIER_BYTES} bytes (16 KiB)",
            q.len()
        )));
    }
    Ok(())
}

/// Checks a cell value's size.
pub fn validate_value(v: &[u8]) -> Result<()> {
    if v.len() > MAX_VALUE_BYTES {
        return Err(Error::invalid(format!(
            "cell value is {} bytes long; the limit is {MAX_VALUE_BYTES} bytes (100 MiB)",
            v.len()
        )));
    }
    Ok(())
}

/// Checks a time range: non-negative bounds, millisecond granularity, and
/// start not after end.
pub fn validate_time_range(r: &TimestampRange) -> Result<()> {
    if r.start_micros < 0 || r.end_micros < 0 {
        return Err(Error::invalid("time range bounds must not be negative"));
    }
    if r.start_micros % 1000 != 0 || r.end_micros % 1000 != 0 {
        return Err(Error::invalid(
            "time range bounds must be multiples of 1000 microseconds (millisecond granularity)",
        ));
    }
    if r.end_micros != 0 && r.end_micros < r.start_micros {
        return Err(Error::invalid(format!(
            "time range end {} is before its start {}",
            r.end_micros, r.start_micros
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_need_millisecond_granularity() {
        assert!(validate_timestamp(-1).is_ok());
        assert!(validate_timestamp(0).is_ok());
        assert!(validate_timestamp(1_000).is_ok());
        assert!(validate_timestamp(1_001).is_err());
        assert!(validate_timestamp(-2).is_err());
    }

    #[test]
    fn row_keys_are_one_byte_to_four_kib() {
        assert!(validate_row_key(b"").is_err());
        assert!(validate_row_key(b"a").is_ok());
        assert!(validate_row_key(&[0; 4096]).is_ok());
        assert!(validate_row_key(&[0; 4097]).is_err());
    }

    #[test]
    fn time_ranges_are_checked() {
        let r = TimestampRange {
            start_micros: 2000,
            end_micros: 1000,
        };
        assert!(validate_time_range(&r).is_err());
        let open = TimestampRange {
            start_micros: 1000,
            end_micros: 0,
        };
        assert!(validate_time_range(&open).is_ok());
        assert!(open.contains(i64::MAX));
        assert!(!open.contains(999));
    }

    #[test]
    fn into_owned_keeps_content() {
        let m = Mutation::set_cell("cf", b"q", 1000, b"v");
        assert_eq!(m.clone().into_owned(), m);
        assert_eq!(m.family_name(), Some("cf"));
    }
}
