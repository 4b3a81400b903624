//! What an operation did, handed up to whoever asked: the shape of a read
//! request ([`ReadShape`]).

use serde::{Deserialize, Serialize};

use crate::row_set::KeyRange;

/// How a read reaches its rows, from best to worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadShape {
    /// One row key.
    Point,
    /// One contiguous range of rows: a prefix or a start and end key.
    SingleRange,
    /// Several keys or ranges (one per value of a few-valued segment).
    MultiRange,
    /// Every row of the table, filtered.
    FullScan,
}

impl ReadShape {
    /// All shapes, best first.
    pub const ALL: [ReadShape; 4] = [
        ReadShape::Point,
        ReadShape::SingleRange,
        ReadShape::MultiRange,
        ReadShape::FullScan,
    ];

    /// `point`, `single_range`, `multi_range` or `full_scan`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ReadShape::Point => "point",
            ReadShape::SingleRange => "single_range",
            ReadShape::MultiRange => "multi_range",
            ReadShape::FullScan => "full_scan",
        }
    }

    /// Parses a name (also `prefix` and `range` for `single_range`).
    #[must_use]
    pub fn from_name(name: &str) -> Option<ReadShape> {
        match name {
            "prefix" | "range" => Some(ReadShape::SingleRange),
            other => ReadShape::ALL.into_iter().find(|s| s.name() == other),
        }
    }

    /// A few words for people ("a single prefix or range scan").
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            ReadShape::Point => "a point read of one row key",
            ReadShape::SingleRange => "a single prefix or range scan",
            ReadShape::MultiRange => "a scan of several ranges",
            ReadShape::FullScan => "a full table scan with a filter",
        }
    }
}

/// The shape of a read of these normalised ranges (see
/// [`RowSet::normalize`](crate::RowSet::normalize)): no range or one key
/// is a point read; the whole table is a full scan, unless a rows limit
/// without a filter stops it early (then it reads like a range); one
/// range is a single range scan; more are a multi-range scan.
#[must_use]
pub fn shape_of(ranges: &[KeyRange], filtered: bool, rows_limit: i64) -> ReadShape {
    match ranges {
        [] => ReadShape::Point,
        [r] if r.start.is_empty() && r.end.is_none() => {
            if rows_limit > 0 && !filtered {
                ReadShape::SingleRange
            } else {
                ReadShape::FullScan
            }
        }
        [r] if r.is_single_key() => ReadShape::Point,
        [_] => ReadShape::SingleRange,
        _ => ReadShape::MultiRange,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::instance::Instance;
    use crate::row_set::RowSet;

    #[test]
    fn shapes() {
        let all = [KeyRange::all()];
        assert_eq!(shape_of(&all, true, 0), ReadShape::FullScan);
        assert_eq!(shape_of(&all, false, 10), ReadShape::SingleRange);
        let one = Instance::key_ranges(&RowSet::single(b"k".to_vec())).unwrap();
        assert_eq!(shape_of(&one, false, 0), ReadShape::Point);
        let two = Instance::key_ranges(&RowSet {
            row_keys: vec![b"a".to_vec(), b"c".to_vec()],
            row_ranges: vec![],
        })
        .unwrap();
        assert_eq!(shape_of(&two, false, 0), ReadShape::MultiRange);
    }
}
