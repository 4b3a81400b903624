//! Which rows a read asks for (`google.bigtable.v2.RowSet`), and their
//! normalisation into sorted, disjoint, half-open key ranges.
//!
//! Every bound becomes an inclusive start and an exclusive end by the trick
//! Bigtable's own emulator uses: the smallest key greater than `k` is
//! `k + "\x00"`, so an open start `k` becomes the closed start `k\x00` and a
//! closed end `k` becomes the open end `k\x00`.

use crate::error::{Error, Result};

/// One end of a [`RowRange`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum KeyBound {
    /// No bound: from the first row, or to the last.
    #[default]
    Unbounded,
    /// The bound includes this key.
    Closed(Vec<u8>),
    /// The bound excludes this key.
    Open(Vec<u8>),
}

/// A contiguous range of row keys.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowRange {
    /// Where the range starts.
    pub start: KeyBound,
    /// Where the range ends.
    pub end: KeyBound,
}

impl RowRange {
    /// `[start, end)`, the shape most reads use.
    #[must_use]
    pub fn closed_open(start: impl Into<Vec<u8>>, end: impl Into<Vec<u8>>) -> RowRange {
        RowRange {
            start: KeyBound::Closed(start.into()),
            end: KeyBound::Open(end.into()),
        }
    }

    /// Every row whose key starts with `prefix`.
    #[must_use]
    pub fn prefix(prefix: impl Into<Vec<u8>>) -> RowRange {
        let prefix = prefix.into();
        match prefix_successor(&prefix) {
            Some(end) => RowRange {
                start: KeyBound::Closed(prefix),
                end: KeyBound::Open(end),
            },
            None => RowRange {
                start: KeyBound::Closed(prefix),
                end: KeyBound::Unbounded,
            },
        }
    }
}

/// The rows of a read: single keys and ranges. Empty means every row.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RowSet {
    /// Single row keys.
    pub row_keys: Vec<Vec<u8>>,
    /// Key ranges.
    pub row_ranges: Vec<RowRange>,
}

impl RowSet {
    /// Every row of the table.
    #[must_use]
    pub fn all() -> RowSet {
        RowSet::default()
    }

    /// Exactly one row.
    #[must_use]
    pub fn single(key: impl Into<Vec<u8>>) -> RowSet {
        RowSet {
            row_keys: vec![key.into()],
            row_ranges: Vec::new(),
        }
    }

    /// One range.
    #[must_use]
    pub fn range(range: RowRange) -> RowSet {
        RowSet {
            row_keys: Vec::new(),
            row_ranges: vec![range],
        }
    }

    /// Whether the set selects every row.
    #[must_use]
    pub fn is_all(&self) -> bool {
        self.row_keys.is_empty() && self.row_ranges.is_empty()
    }

    /// Sorted, disjoint, non-empty half-open ranges covering exactly the
    /// selected keys. Overlapping and touching ranges are merged, repeated
    /// keys appear once. A range whose start lies after its end is an error.
    pub fn normalize(&self) -> Result<Vec<KeyRange>> {
        if self.is_all() {
            return Ok(vec![KeyRange::all()]);
        }
        let mut ranges = Vec::with_capacity(self.row_keys.len() + self.row_ranges.len());
        for key in &self.row_keys {
            let mut end = key.clone();
            end.push(0);
            ranges.push(KeyRange {
                start: key.clone(),
                end: Some(end),
            });
        }
        for (i, r) in self.row_ranges.iter().enumerate() {
            let start = match &r.start {
                KeyBound::Unbounded => Vec::new(),
                KeyBound::Closed(k) => k.clone(),
                KeyBound::Open(k) => successor(k),
            };
            // An empty open end key means "to the end of the table", as an
            // absent one does (production and the emulator agree).
            let end = match &r.end {
                KeyBound::Unbounded => None,
                KeyBound::Open(k) if k.is_empty() => None,
                KeyBound::Closed(k) => Some(successor(k)),
                KeyBound::Open(k) => Some(k.clone()),
            };
            // Production Bigtable rejects empty and inverted ranges alike
            // (the emulator silently returns nothing for them).
            if end.as_ref().is_some_and(|end| *end <= start) {
                return Err(Error::invalid(format!(
                    "Error in field 'row_ranges' : Error in element #{i} : start_key must be less than end_key"
                )));
            }
            ranges.push(KeyRange { start, end });
        }
        ranges.sort_by(|a, b| a.start.cmp(&b.start));
        let mut merged: Vec<KeyRange> = Vec::with_capacity(ranges.len());
        for r in ranges {
            if let Some(last) = merged.last_mut() {
                let touches = match &last.end {
                    None => true,
                    Some(e) => r.start <= *e,
                };
                if touches {
                    last.end = match (&last.end, r.end) {
                        (None, _) | (_, None) => None,
                        (Some(a), Some(b)) => Some(if *a >= b { a.clone() } else { b }),
                    };
                    continue;
                }
            }
            merged.push(r);
        }
        Ok(merged)
    }
}

/// A normalised half-open range `[start, end)`; `end == None` is unbounded.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyRange {
    /// Inclusive start; empty means the first row.
    pub start: Vec<u8>,
    /// Exclusive end; `None` means past the last row.
    pub end: Option<Vec<u8>>,
}

impl KeyRange {
    /// The range of every key.
    #[must_use]
    pub fn all() -> KeyRange {
        KeyRange {
            start: Vec::new(),
            end: None,
        }
    }

    /// Whether `key` lies in the range.
    #[must_use]
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_slice() && self.end.as_deref().is_none_or(|e| key < e)
    }

    /// Whether the range holds exactly one possible key (`[k, k\x00)`).
    #[must_use]
    pub fn is_single_key(&self) -> bool {
        match &self.end {
            Some(e) => {
                e.len() == self.start.len() + 1 && e.ends_with(&[0]) && e.starts_with(&self.start)
            }
            None => false,
        }
    }
}

impl RowSet {
    /// The part of the set a read has not reached yet once it returned the
    /// row `key`: the keys after it, or before it for a reversed read.
    /// Keys stay keys and ranges stay ranges (clipped), so a read resumed
    /// in pages keeps its shape. `None` when nothing is left (an empty
    /// set would mean every row).
    #[must_use]
    pub fn past(&self, key: &[u8], reversed: bool) -> Option<RowSet> {
        let whole = [RowRange::default()];
        let ranges: &[RowRange] = if self.is_all() {
            &whole
        } else {
            &self.row_ranges
        };
        let left = |k: &[u8]| if reversed { k < key } else { k > key };
        let row_keys: Vec<Vec<u8>> = self.row_keys.iter().filter(|k| left(k)).cloned().collect();
        let row_ranges: Vec<RowRange> = ranges
            .iter()
            .filter_map(|r| clip(r, key, reversed))
            .collect();
        (!row_keys.is_empty() || !row_ranges.is_empty()).then_some(RowSet {
            row_keys,
            row_ranges,
        })
    }
}

/// `r` without the keys up to `key` (from `key` down when `reversed`),
/// or `None` when that leaves nothing.
fn clip(r: &RowRange, key: &[u8], reversed: bool) -> Option<RowRange> {
    let start = match &r.start {
        KeyBound::Unbounded => Vec::new(),
        KeyBound::Closed(k) => k.clone(),
        KeyBound::Open(k) => successor(k),
    };
    let end = match &r.end {
        KeyBound::Unbounded => None,
        KeyBound::Open(k) if k.is_empty() => None,
        KeyBound::Closed(k) => Some(successor(k)),
        KeyBound::Open(k) => Some(k.clone()),
    };
    let (start, end) = if reversed {
        let end = match end {
            Some(e) if e.as_slice() <= key => e,
            _ => key.to_vec(),
        };
        (start, Some(end))
    } else {
        let past = successor(key);
        (if start > past { start } else { past }, end)
    };
    if end.as_ref().is_some_and(|e| e.is_empty() || *e <= start) {
        return None;
    }
    Some(RowRange {
        start: KeyBound::Closed(start),
        end: end.map_or(KeyBound::Unbounded, KeyBound::Open),
    })
}

/// The smallest key greater than `key`: `key + "\x00"`.
#[must_use]
pub fn successor(key: &[u8]) -> Vec<u8> {
    let mut s = Vec::with_capacity(key.len() + 1);
    s.extend_from_slice(key);
    s.push(0);
    s
}

/// The smallest key greater than every key starting with `prefix`, or
/// `None` when no such key exists (the prefix is empty or all `0xff`).
#[must_use]
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// A key range for people: `["start", "end")` with the keys escaped,
/// `start`/`end` for open ends, `key "k"` for a range of one key. The one
/// way ranges print (EXPLAIN, traces, lessons).
#[must_use]
pub fn range_text(r: &KeyRange) -> String {
    if r.is_single_key() {
        return format!("key \"{}\"", crate::escape::escape_bytes(&r.start));
    }
    format!(
        "[{}, {})",
        if r.start.is_empty() {
            "start".to_string()
        } else {
            format!("\"{}\"", crate::escape::escape_bytes(&r.start))
        },
        r.end.as_ref().map_or("end".to_string(), |e| format!(
            "\"{}\"",
            crate::escape::escape_bytes(e)
        ))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kr(start: &[u8], end: Option<&[u8]>) -> KeyRange {
        KeyRange {
            start: start.to_vec(),
            end: end.map(<[u8]>::to_vec),
        }
    }

    #[test]
    fn empty_set_is_everything() {
        assert_eq!(RowSet::all().normalize().unwrap(), vec![KeyRange::all()]);
    }

    #[test]
    fn bounds_become_half_open() {
        let set = RowSet::range(RowRange {
            start: KeyBound::Open(b"a".to_vec()),
            end: KeyBound::Closed(b"c".to_vec()),
        });
        assert_eq!(set.normalize().unwrap(), vec![kr(b"a\0", Some(b"c\0"))]);
    }

    #[test]
    fn overlapping_ranges_and_duplicate_keys_merge() {
        let set = RowSet {
            row_keys: vec![b"b".to_vec(), b"b".to_vec(), b"z".to_vec()],
            row_ranges: vec![
                RowRange::closed_open("a", "c"),
                RowRange::closed_open("c", "d"),
                RowRange::closed_open("x", "y"),
            ],
        };
        assert_eq!(
            set.normalize().unwrap(),
            vec![
                kr(b"a", Some(b"d")),
                kr(b"x", Some(b"y")),
                kr(b"z", Some(b"z\0"))
            ]
        );
    }

    #[test]
    fn unbounded_end_swallows_the_rest() {
        let set = RowSet {
            row_keys: vec![b"q".to_vec()],
            row_ranges: vec![RowRange {
                start: KeyBound::Closed(b"m".to_vec()),
                end: KeyBound::Unbounded,
            }],
        };
        assert_eq!(set.normalize().unwrap(), vec![kr(b"m", None)]);
    }

    #[test]
    fn an_empty_end_key_means_the_end_of_the_table() {
        let set = RowSet::range(RowRange {
            start: KeyBound::Closed(b"m".to_vec()),
            end: KeyBound::Open(Vec::new()),
        });
        assert_eq!(set.normalize().unwrap(), vec![kr(b"m", None)]);
    }

    #[test]
    fn an_open_start_and_its_successor_closed_hold_one_key() {
        let set = RowSet::range(RowRange {
            start: KeyBound::Open(b"b".to_vec()),
            end: KeyBound::Closed(b"b\0".to_vec()),
        });
        assert_eq!(set.normalize().unwrap(), vec![kr(b"b\0", Some(b"b\0\0"))]);
    }

    #[test]
    fn inverted_and_empty_ranges_are_rejected_like_production() {
        let bad = RowSet::range(RowRange::closed_open("b", "a"));
        assert_eq!(
            bad.normalize().unwrap_err().code(),
            crate::Code::InvalidArgument
        );
        let empty = RowSet::range(RowRange::closed_open("a", "a"));
        let e = empty.normalize().unwrap_err();
        assert!(
            e.message().contains("start_key must be less than end_key"),
            "{e}"
        );
        let single = RowSet::range(RowRange {
            start: KeyBound::Closed(b"a".to_vec()),
            end: KeyBound::Closed(b"a".to_vec()),
        });
        assert_eq!(single.normalize().unwrap(), vec![kr(b"a", Some(b"a\0"))]);
    }

    #[test]
    fn prefix_successor_carries() {
        assert_eq!(prefix_successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_successor(b"a\xff"), Some(b"b".to_vec()));
        assert_eq!(prefix_successor(b"\xff\xff"), None);
        assert_eq!(prefix_successor(b""), None);
        let r = RowRange::prefix("phone#");
        assert_eq!(r.end, KeyBound::Open(b"phone$".to_vec()));
    }

    #[test]
    fn single_key_ranges_are_recognised() {
        assert!(kr(b"k", Some(b"k\0")).is_single_key());
        assert!(!kr(b"k", Some(b"l")).is_single_key());
        assert!(kr(b"a", Some(b"b")).contains(b"az"));
        assert!(!kr(b"a", Some(b"b")).contains(b"b"));
    }

    #[test]
    fn past_a_key_keeps_what_a_read_has_not_reached() {
        let set = RowSet {
            row_keys: vec![b"a".to_vec(), b"m".to_vec(), b"z".to_vec()],
            row_ranges: vec![RowRange::closed_open("c", "f"), RowRange::prefix("x")],
        };
        let forward = set.past(b"d", false).unwrap();
        assert_eq!(forward.row_keys, vec![b"m".to_vec(), b"z".to_vec()]);
        assert_eq!(
            forward
                .normalize()
                .unwrap()
                .iter()
                .map(range_text)
                .collect::<Vec<_>>(),
            vec![
                "[\"d\\x00\", \"f\")",
                "key \"m\"",
                "[\"x\", \"y\")",
                "key \"z\""
            ]
        );
        let back = set.past(b"d", true).unwrap();
        assert_eq!(back.row_keys, vec![b"a".to_vec()]);
        assert_eq!(
            back.normalize()
                .unwrap()
                .iter()
                .map(range_text)
                .collect::<Vec<_>>(),
            vec!["key \"a\"", "[\"c\", \"d\")"]
        );
        assert_eq!(set.past(b"z", false), None);
        assert_eq!(set.past(b"a", true), None);
        let all = RowSet::all();
        assert_eq!(
            all.past(b"k", false).unwrap().normalize().unwrap(),
            vec![KeyRange {
                start: b"k\0".to_vec(),
                end: None
            }]
        );
        assert_eq!(
            all.past(b"k", true).unwrap().normalize().unwrap(),
            vec![KeyRange {
                start: vec![],
                end: Some(b"k".to_vec())
            }]
        );
    }
}
