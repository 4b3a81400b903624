//! A run's row keys as fixed-size words, for seeking without touching the
//! keys themselves.
//!
//! A binary search over a run's rows reads a row entry and then its key's
//! bytes at every step; on a large run both sit far apart in memory, so a
//! seek pays two cache misses a step. The fences keep, per row, one word:
//! eight bytes of the key taken just after the prefix every key of the run
//! shares (big-endian, zero-padded, so words order as the keys do, except
//! that two different keys may give equal words). A seek compares words in
//! one dense array and reads a key only where the words tie.

use std::cmp::Ordering;
use std::ops::Range;

use crate::bytes;

/// Bytes of a key held in its word.
const WORD: usize = 8;

/// One word per row of a run (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct Fences {
    /// How many leading bytes every key of the run shares.
    shared: usize,
    /// `words[i]`: bytes `shared..shared + 8` of row `i`'s key.
    words: Vec<u64>,
}

/// Where a sought key stands against a run's shared prefix.
pub(crate) enum Seek {
    /// Before every row (or equal to none and below all).
    First,
    /// After every row.
    Past,
    /// Among the rows: search with this word.
    Word(u64),
}

impl Fences {
    /// The fences of `keys` (sorted, the run's rows in order).
    pub(crate) fn build<'k>(keys: impl ExactSizeIterator<Item = &'k [u8]> + Clone) -> Fences {
        let mut all = keys.clone();
        let shared = match (all.next(), all.last()) {
            (Some(first), Some(last)) => common_prefix(first, last),
            // One key: nothing needs telling apart past the whole key.
            (Some(only), None) => only.len(),
            _ => 0,
        };
        let words = keys.map(|k| word(k, shared)).collect();
        Fences { shared, words }
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    /// Where `key` stands, given `some_key`, any key of the run.
    #[inline]
    pub(crate) fn seek(&self, key: &[u8], some_key: &[u8]) -> Seek {
        let n = self.shared.min(key.len());
        match bytes::cmp(&key[..n], &some_key[..n]) {
            Ordering::Less => Seek::First,
            Ordering::Greater => Seek::Past,
            // Shorter than the shared prefix and a prefix of it: below
            // every key, which is longer.
            Ordering::Equal if key.len() < self.shared => Seek::First,
            Ordering::Equal => Seek::Word(word(key, self.shared)),
        }
    }

    /// Whether row `row`'s key (`row_key`) sorts before `key`, whose word
    /// is `w` (see [`Fences::seek`]).
    #[inline]
    pub(crate) fn row_before(&self, row: usize, w: u64, row_key: &[u8], key: &[u8]) -> bool {
        match self.words[row].cmp(&w) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => {
                // Equal words mean equal bytes as far as both keys reach
                // into the word: zero padding ties `a` with `a\0`, which
                // the lengths then tell apart.
                let from = (self.shared + WORD).min(row_key.len()).min(key.len());
                bytes::cmp(&row_key[from..], &key[from..]).is_lt()
            }
        }
    }

    /// The first row of `rows` not before the key, given `before(row)`,
    /// monotone over `rows` (a binary search).
    #[inline]
    pub(crate) fn partition(rows: Range<usize>, before: impl Fn(usize) -> bool) -> usize {
        let (mut base, mut size) = (rows.start, rows.len());
        while size > 1 {
            let half = size / 2;
            if before(base + half) {
                base += half;
            }
            size -= half;
        }
        base + usize::from(size == 1 && before(base))
    }
}

/// The length of the longest common prefix of `a` and `b`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Bytes `from..from + 8` of `key`, big-endian, zero-padded.
#[inline]
fn word(key: &[u8], from: usize) -> u64 {
    let rest = key.get(from..).unwrap_or_default();
    let n = rest.len().min(WORD);
    let mut b = [0u8; WORD];
    b[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(b)
}
