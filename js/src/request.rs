//! Plain reads packed by the package's JavaScript: a readRows request with
//! a table name, row keys and ranges, a row limit and a direction, and no
//! filter (point reads and prefix scans), decoded without JSON.
//!
//! Like the bulk-write path this one only accepts: anything unusual (a
//! filter, an empty key, a range with two starts, a negative limit, a
//! table name of another shape) declines, and the request goes as JSON
//! text to the general decoder, which words the error.
//!
//! ```text
//! request := table:str keys:u32 bytes*keys ranges:u32 range*ranges
//!            limit:int reversed:u8
//! range   := start:bound end:bound
//! bound   := 0 (unbounded) | 1 bytes (closed) | 2 bytes (open)
//! ```
//! (`str`, `bytes` and `int` as in `write.rs`.)

use tabletop_core::{KeyBound, ReadRowsRequest, RowRange, RowSet};

use crate::write::{Reader, table_id};

fn bound(r: &mut Reader<'_>) -> Option<KeyBound> {
    let kind = r.u8()?;
    if kind == 0 {
        return Some(KeyBound::Unbounded);
    }
    let key = r.bytes()?.into_owned();
    match kind {
        1 => Some(KeyBound::Closed(key)),
        2 => Some(KeyBound::Open(key)),
        _ => None,
    }
}

/// The table id and the request, or `None` to use the general decoder.
pub(crate) fn decode(packed: &[u8]) -> Option<(String, ReadRowsRequest)> {
    let mut r = Reader::new(packed);
    let table = table_id(r.str()?)?.to_string();
    let mut rows = RowSet::default();
    for _ in 0..r.u32()? {
        let key = r.bytes()?.into_owned();
        if key.is_empty() {
            return None;
        }
        rows.row_keys.push(key);
    }
    for _ in 0..r.u32()? {
        let start = bound(&mut r)?;
        let end = bound(&mut r)?;
        rows.row_ranges.push(RowRange { start, end });
    }
    let rows_limit = r.int()?;
    let reversed = match r.u8()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    if rows_limit < 0 || !r.is_done() {
        return None;
    }
    Some((
        table,
        ReadRowsRequest {
            rows,
            filter: None,
            rows_limit,
            reversed,
        },
    ))
}
