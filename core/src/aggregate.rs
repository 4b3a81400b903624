//! Aggregate column families: how an AddToCell or MergeToCell input is
//! checked and folded into the current state of a cell.
//!
//! Sum, min and max keep their state as an 8-byte big-endian signed
//! integer, which is also what reads return.

use crate::error::{Error, Result};
use crate::mutation::AggregateInput;
use crate::schema::Aggregator;

/// Checks an input for `agg` and decodes it.
pub(crate) fn check_input(agg: Aggregator, input: &AggregateInput<'_>) -> Result<i64> {
    if agg == Aggregator::HllppUniqueCount {
        return Err(Error::unimplemented(
            "HyperLogLog++ unique-count families are not supported yet",
        ));
    }
    match input {
        AggregateInput::Int(v) => Ok(*v),
        AggregateInput::Raw(bytes) => decode_i64(bytes).ok_or_else(|| {
            Error::invalid(format!(
                "an input to an int64 aggregate must be 8 big-endian bytes, got {} bytes",
                bytes.len()
            ))
        }),
    }
}

fn decode_i64(bytes: &[u8]) -> Option<i64> {
    <[u8; 8]>::try_from(bytes).ok().map(i64::from_be_bytes)
}

/// The new state of an aggregate cell after one input.
pub(crate) fn merge_input(
    agg: Aggregator,
    current: Option<&[u8]>,
    input: &AggregateInput<'_>,
) -> Result<Vec<u8>> {
    let x = check_input(agg, input)?;
    let cur = current.and_then(decode_i64);
    let next = match (agg, cur) {
        (_, None) => x,
        (Aggregator::Sum, Some(c)) => c.wrapping_add(x),
        (Aggregator::Min, Some(c)) => c.min(x),
        (Aggregator::Max, Some(c)) => c.max(x),
        (Aggregator::HllppUniqueCount, Some(_)) => {
            return Err(Error::unimplemented("HyperLogLog++ is not supported yet"));
        }
    };
    Ok(next.to_be_bytes().to_vec())
}
