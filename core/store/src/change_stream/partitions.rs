//! Change stream partitions: the key ranges a change stream is read by,
//! and what a read of a partition the table no longer has answers.
//!
//! Bigtable partitions a table's change stream by key range, following
//! the table's tablets: GenerateInitialChangeStreamPartitions returns the
//! current partitions, a ReadChangeStream names one of them, and when the
//! tablets split or merge the stream of an old partition ends with a
//! `CloseStream` that lists the new partitions overlapping it and, for
//! each, a continuation token over the part of the old partition inside it
//! (`google/bigtable/v2/bigtable.proto`, the comment of
//! `ReadChangeStreamResponse.CloseStream`). A reader then starts each new
//! partition with the tokens whose ranges, together, make it up.
//!
//! Here the partitions are the table's tablets, one each. The change log
//! is one sequence for the whole table, so a token is a key range and the
//! sequence number reached in it: a partition read from several tokens
//! takes, for each key, the records after its own token's position, and
//! nothing is lost or repeated across a split or a merge.

use crate::error::{Error, Result};
use crate::row_set::KeyRange;

/// Where reading one range of keys of a change stream has reached: the
/// key range and the sequence number of the last record read in it (a
/// `StreamContinuationToken`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeToken {
    /// The keys the position holds for.
    pub range: KeyRange,
    /// The last record's sequence number seen for those keys.
    pub position: u64,
}

/// Why a read stopped before its end: the table's partitioning changed, so
/// the partition read is no longer one of the table's (a `CloseStream`
/// with new partitions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionChange {
    /// The table's partitions now that overlap the partition read, in key
    /// order.
    pub new_partitions: Vec<KeyRange>,
    /// Where to continue: the partition read, cut at the new partitions'
    /// bounds, each piece with the position reached in it.
    pub tokens: Vec<ChangeToken>,
}

/// The range of keys in both `a` and `b`, if any.
pub(crate) fn intersection(a: &KeyRange, b: &KeyRange) -> Option<KeyRange> {
    let start = a.start.clone().max(b.start.clone());
    let end = match (&a.end, &b.end) {
        (None, e) | (e, None) => e.clone(),
        (Some(x), Some(y)) => Some(x.clone().min(y.clone())),
    };
    end.as_ref()
        .is_none_or(|e| start < *e)
        .then_some(KeyRange { start, end })
}

/// Checks that `tokens` cover `partition` exactly, without gaps or
/// overlaps, and puts them in key order.
pub(crate) fn check_cover(partition: &KeyRange, tokens: &mut [ChangeToken]) -> Result<()> {
    let uncovered = || {
        Error::invalid(
            "the continuation tokens do not cover the requested partition exactly \
             (give the tokens whose ranges make up the partition)",
        )
    };
    tokens.sort_by(|a, b| a.range.start.cmp(&b.range.start));
    // `None` once a token reaches past the last key.
    let mut reached = Some(partition.start.clone());
    for t in tokens.iter() {
        if reached.as_ref() != Some(&t.range.start) {
            return Err(uncovered());
        }
        reached = t.range.end.clone();
    }
    if tokens.is_empty() || reached != partition.end {
        return Err(uncovered());
    }
    Ok(())
}

/// The partition change for a read of `tokens`' partition when the table's
/// partitions are `current`: each current partition overlapping it, with
/// the tokens' pieces inside it.
pub(crate) fn change_for(current: &[KeyRange], tokens: &[ChangeToken]) -> PartitionChange {
    let mut new_partitions = Vec::new();
    let mut pieces = Vec::new();
    for p in current {
        let inside: Vec<ChangeToken> = tokens
            .iter()
            .filter_map(|t| {
                intersection(p, &t.range).map(|range| ChangeToken {
                    range,
                    position: t.position,
                })
            })
            .collect();
        if !inside.is_empty() {
            new_partitions.push(p.clone());
            pieces.extend(inside);
        }
    }
    PartitionChange {
        new_partitions,
        tokens: pieces,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: &str, end: Option<&str>) -> KeyRange {
        KeyRange {
            start: start.as_bytes().to_vec(),
            end: end.map(|e| e.as_bytes().to_vec()),
        }
    }

    fn token(start: &str, end: Option<&str>, position: u64) -> ChangeToken {
        ChangeToken {
            range: range(start, end),
            position,
        }
    }

    #[test]
    fn intersections_are_half_open() {
        assert_eq!(
            intersection(&range("b", Some("d")), &range("a", Some("c"))),
            Some(range("b", Some("c")))
        );
        assert_eq!(
            intersection(&range("", None), &range("m", None)),
            Some(range("m", None))
        );
        assert_eq!(
            intersection(&range("a", Some("c")), &range("c", None)),
            None
        );
    }

    #[test]
    fn tokens_must_cover_the_partition_without_gaps() {
        let whole = range("a", Some("e"));
        let mut good = vec![token("c", Some("e"), 4), token("a", Some("c"), 7)];
        assert!(check_cover(&whole, &mut good).is_ok());
        assert_eq!(good[0].range.start, b"a");
        let mut gap = vec![token("a", Some("b"), 1), token("c", Some("e"), 1)];
        assert!(check_cover(&whole, &mut gap).is_err());
        let mut short = vec![token("a", Some("d"), 1)];
        assert!(check_cover(&whole, &mut short).is_err());
        assert!(check_cover(&whole, &mut []).is_err());
    }

    // The example of the proto's CloseStream comment: [B, D) ends, the new
    // partitions are [A, C) and [C, E), the tokens [B, C) and [C, D).
    #[test]
    fn a_change_cuts_the_old_partition_at_the_new_bounds() {
        let current = [
            range("", Some("A")),
            range("A", Some("C")),
            range("C", Some("E")),
            range("E", None),
        ];
        let change = change_for(&current, &[token("B", Some("D"), 9)]);
        assert_eq!(
            change.new_partitions,
            vec![range("A", Some("C")), range("C", Some("E"))]
        );
        assert_eq!(
            change.tokens,
            vec![token("B", Some("C"), 9), token("C", Some("D"), 9)]
        );
    }
}
