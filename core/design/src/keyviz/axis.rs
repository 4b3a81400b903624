//! The fine key axis: sorted anchor keys cutting the key space into
//! buckets that each hold about the same number of rows.

/// Sorted, distinct anchor keys; bucket `i` covers `[anchor i, anchor i+1)`
/// and the first anchor is always the empty key, so every key falls in a
/// bucket. Keys live in one arena; a 16-byte big-endian prefix per anchor
/// settles most comparisons without touching the arena.
#[derive(Clone, Debug, Default)]
pub struct KeyAxis {
    arena: Vec<u8>,
    /// `offsets[i]..offsets[i + 1]` is anchor `i` in `arena`.
    offsets: Vec<u32>,
    /// First 16 bytes of each anchor, zero-padded, big-endian.
    prefix: Vec<u128>,
}

/// The first 16 bytes, zero-padded: comparing these orders keys exactly
/// unless they are equal (then the full keys decide).
fn prefix16(key: &[u8]) -> u128 {
    let mut w = [0u8; 16];
    let n = key.len().min(16);
    if let (Some(dst), Some(src)) = (w.get_mut(..n), key.get(..n)) {
        dst.copy_from_slice(src);
    }
    u128::from_be_bytes(w)
}

impl KeyAxis {
    /// An axis of at most `max_buckets` buckets cut at quantiles of
    /// `samples` (which it sorts): each bucket receives about the same
    /// number of samples, as Key Visualizer's buckets each hold about the
    /// same number of rows.
    #[must_use]
    pub fn from_samples(samples: &mut [Vec<u8>], max_buckets: usize) -> KeyAxis {
        samples.sort_unstable();
        KeyAxis::from_sorted_samples(samples, max_buckets)
    }

    /// [`KeyAxis::from_samples`] of samples already sorted (as keys read
    /// from a table in order are), without copying or sorting them.
    #[must_use]
    pub fn from_sorted_samples(samples: &[Vec<u8>], max_buckets: usize) -> KeyAxis {
        let max_buckets = max_buckets.max(1);
        let mut anchors: Vec<&[u8]> = Vec::with_capacity(max_buckets);
        anchors.push(&[]);
        let n = samples.len();
        if n > 0 {
            for i in 1..max_buckets {
                let idx = (i as u128 * n as u128 / max_buckets as u128) as usize;
                if let Some(k) = samples.get(idx) {
                    let k = k.as_slice();
                    if anchors.last().is_some_and(|last| *last < k) {
                        anchors.push(k);
                    }
                }
            }
        }
        KeyAxis::from_sorted(&anchors)
    }

    /// An axis from sorted, distinct anchors (an empty first anchor is
    /// added when missing).
    #[must_use]
    pub fn from_sorted(anchors: &[&[u8]]) -> KeyAxis {
        let mut axis = KeyAxis::default();
        axis.offsets.push(0);
        let mut push = |k: &[u8]| {
            axis.arena.extend_from_slice(k);
            axis.offsets.push(axis.arena.len() as u32);
            axis.prefix.push(prefix16(k));
        };
        if anchors.first().is_none_or(|k| !k.is_empty()) {
            push(&[]);
        }
        let mut last: Option<&[u8]> = None;
        for &k in anchors {
            if last.is_none_or(|l| l < k) {
                push(k);
                last = Some(k);
            }
        }
        axis
    }

    /// Number of buckets (at least 1).
    #[must_use]
    pub fn len(&self) -> usize {
        self.prefix.len()
    }

    /// Never true: an axis always has its first bucket.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.prefix.is_empty()
    }

    /// The first key of bucket `i` (empty for bucket 0 or out of range).
    #[must_use]
    pub fn start(&self, i: usize) -> &[u8] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => self.arena.get(a as usize..b as usize).unwrap_or_default(),
            _ => &[],
        }
    }

    /// The key after bucket `i` (`None` for the last bucket: the end of
    /// the table).
    #[must_use]
    pub fn end(&self, i: usize) -> Option<&[u8]> {
        (i + 1 < self.len()).then(|| self.start(i + 1))
    }

    /// The bucket holding `key`.
    #[must_use]
    pub fn bucket_of(&self, key: &[u8]) -> usize {
        let p = prefix16(key);
        // Count anchors <= key; anchor 0 (empty) always is.
        let mut lo = 0usize;
        let mut hi = self.prefix.len();
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let ap = self.prefix.get(mid).copied().unwrap_or(u128::MAX);
            let le = if ap != p {
                ap < p
            } else {
                self.start(mid) <= key
            };
            if le {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo.saturating_sub(1)
    }

    /// The last bucket holding keys below `end` (exclusive end key).
    #[must_use]
    pub fn bucket_before(&self, end: &[u8]) -> usize {
        let b = self.bucket_of(end);
        if b > 0 && self.start(b) == end {
            b - 1
        } else {
            b
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn buckets_by_quantile_and_lookup() {
        let mut samples: Vec<Vec<u8>> = (0..1000u32)
            .map(|i| format!("user{:04}", i).into_bytes())
            .collect();
        let axis = KeyAxis::from_samples(&mut samples, 10);
        assert_eq!(axis.len(), 10);
        assert_eq!(axis.start(0), b"");
        assert_eq!(axis.start(1), b"user0100");
        assert_eq!(axis.end(9), None);
        assert_eq!(axis.bucket_of(b""), 0);
        assert_eq!(axis.bucket_of(b"a"), 0);
        assert_eq!(axis.bucket_of(b"user0100"), 1);
        assert_eq!(axis.bucket_of(b"user0099"), 0);
        assert_eq!(axis.bucket_of(b"user0150"), 1);
        assert_eq!(axis.bucket_of(b"zzz"), 9);
        assert_eq!(axis.bucket_before(b"user0200"), 1);
        assert_eq!(axis.bucket_before(b"user0201"), 2);
        // Keys sharing a 16-byte prefix fall back to the full comparison.
        assert_eq!(axis.bucket_of(b"user0100\x00"), 1);
        let mut long: Vec<Vec<u8>> = (0..100u32)
            .map(|i| format!("same-16-byte-pre{i:03}").into_bytes())
            .collect();
        let axis = KeyAxis::from_samples(&mut long, 10);
        assert_eq!(axis.bucket_of(b"same-16-byte-pre055"), 5);
        assert_eq!(axis.bucket_of(b"same-16-byte-pre"), 0);
    }

    #[test]
    fn duplicates_collapse() {
        let mut samples = vec![b"hot".to_vec(); 500];
        samples.push(b"a".to_vec());
        let axis = KeyAxis::from_samples(&mut samples, 100);
        assert!(axis.len() <= 3);
        assert_eq!(axis.start(axis.bucket_of(b"hot")), b"hot");
        let empty = KeyAxis::from_samples(&mut [], 100);
        assert_eq!(empty.len(), 1);
        assert_eq!(empty.bucket_of(b"x"), 0);
    }

    #[test]
    fn agrees_with_a_naive_search() {
        let mut samples: Vec<Vec<u8>> = (0..300u64)
            .map(|i| {
                let v = crate::rng::mix64(i);
                v.to_be_bytes()[..(v % 9) as usize].to_vec()
            })
            .collect();
        let axis = KeyAxis::from_samples(&mut samples, 64);
        for i in 0..2000u64 {
            let v = crate::rng::mix64(i ^ 77);
            let bytes = v.to_be_bytes();
            let key = &bytes[..(v % 9) as usize];
            let naive = (0..axis.len()).rfind(|&b| axis.start(b) <= key).unwrap();
            assert_eq!(axis.bucket_of(key), naive);
        }
    }
}
