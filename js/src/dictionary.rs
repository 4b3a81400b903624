//! The dictionary of short strings that packed read answers share
//! (`read.rs`): a string sent once as a new entry is afterwards sent as its
//! entry number, and the JavaScript side makes it once.
//!
//! Every cell of an answer looks up its value here (and its qualifier when
//! the column changes), so finding an entry is the hot part. Keys of up to
//! [`SMALL_LEN`] bytes (the values and qualifiers of most tables: counters,
//! flags, short codes) are packed with their length and kind into one
//! `u128` and found in a map of those: one multiply-and-rotate hash of two
//! words and one integer compare, where a longer key is hashed byte by
//! byte and compared with the arena's copy.

use std::hash::Hasher as _;

use hashbrown::HashTable;
use rustc_hash::{FxHashMap as HashMap, FxHasher};

/// The dictionary of short strings, keyed by what they stand for: plain
/// text (families, timestamps, labels) or bytes sent as base64 (qualifiers,
/// values), so a repeated value is found by its own bytes and never encoded
/// again. Keys live in one arena and the tables hold entry ids, so adding
/// an entry allocates nothing (the arena and the tables grow, and keep
/// their memory across answers).
///
/// Entry `id` is the `id`-th string sent with the "new entry" flag since
/// the dictionary was last emptied; the JavaScript side keeps the decoded
/// strings in an array in the same order. Whole answers keep the
/// dictionary from call to call; the JavaScript side says how many entries
/// it holds with each call, and the dictionary drops any entry past that
/// ([`Dictionary::truncate`]): entries of an answer that failed, or that
/// JavaScript never read, are never referred to. The caller bounds its
/// size (`read.rs`'s `MAX_SHARED`).
#[derive(Debug)]
pub(crate) struct Dictionary {
    /// Entry ids of keys up to [`SMALL_LEN`] bytes, by [`small_key`].
    small: HashMap<u128, u32>,
    /// Short keys found lately and their entries, one per slot
    /// ([`recent_slot`]): an answer looks up the same few values cell
    /// after cell (the value-regex scan's 33,433 rows have 10), and a slot
    /// is one compare where the map is a hash and a probe. Emptied
    /// whenever entries are dropped.
    recent: Box<[(u128, u32)]>,
    /// Entry ids of longer keys, found by the hash of their key.
    table: HashTable<u32>,
    /// Each entry's key: its kind and its `(offset, len)` in `keys`.
    spans: Vec<(Kind, u32, u32)>,
    keys: Vec<u8>,
}

/// What a dictionary key stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The string itself.
    Text,
    /// Bytes, written as their base64 text.
    Base64,
}

/// Keys up to this many bytes go in the map of packed keys.
const SMALL_LEN: usize = 15;

/// A key of up to [`SMALL_LEN`] bytes as one number: its bytes, then (in
/// the last byte) its length and its kind, so two keys are equal exactly
/// when their numbers are. Read with two loads that may overlap (the
/// second one shifted past the bytes the first one took) rather than by
/// copying the key into a zeroed array, a call to `memcpy` in wasm.
fn small_key(kind: Kind, s: &[u8]) -> Option<u128> {
    let n = s.len();
    if n > SMALL_LEN {
        return None;
    }
    let bytes = if n >= 8 {
        // Bytes 8.. are the top n - 8 bytes of the word ending at n.
        let high = le64(&s[n - 8..])
            .checked_shr(8 * (16 - n) as u32)
            .unwrap_or(0);
        u128::from(le64(s)) | (u128::from(high) << 64)
    } else if n >= 4 {
        let high = le32(&s[n - 4..])
            .checked_shr(8 * (8 - n) as u32)
            .unwrap_or(0);
        u128::from(le32(s)) | (u128::from(high) << 32)
    } else {
        s.iter()
            .enumerate()
            .fold(0, |v, (i, &b)| v | (u128::from(b) << (8 * i)))
    };
    // The length is at most 15: four bits.
    let tag = (n as u8) | ((kind as u8) << 4);
    Some(bytes | (u128::from(tag) << 120))
}

/// The first 8 (4) bytes of `b` as a little-endian word.
fn le64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

/// Whether `a` and `b` hold the same bytes, compared a word at a time (the
/// last word overlapping the one before): in wasm, `==` on slices calls
/// `memcmp`, a loop of one byte a turn, and the packer compares a family
/// name and a qualifier with their entries at nearly every row (`memcmp`
/// was 3 % of the flat value-regex answer's profile).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n >= 8 {
        let mut i = 0;
        while i + 8 <= n {
            if le64(&a[i..]) != le64(&b[i..]) {
                return false;
            }
            i += 8;
        }
        return i == n || le64(&a[n - 8..]) == le64(&b[n - 8..]);
    }
    if n >= 4 {
        return le32(a) == le32(b) && le32(&a[n - 4..]) == le32(&b[n - 4..]);
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

fn le32(b: &[u8]) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[..4]);
    u32::from_le_bytes(w)
}

/// How many short keys [`Dictionary`] remembers as recently found, and
/// the slot of a key among them (a multiply of its two halves' mix, top
/// bits).
const RECENT_BITS: u32 = 8;
const RECENT: usize = 1 << RECENT_BITS;
/// A slot that holds no key (no key has kind bits 0xf).
const NO_KEY: u128 = u128::MAX;

fn recent_slot(k: u128) -> usize {
    let mixed = (k as u64) ^ ((k >> 64) as u64).rotate_left(29);
    (mixed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - RECENT_BITS)) as usize
}

fn key_hash(kind: Kind, s: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write_u8(kind as u8);
    h.write(s);
    h.finish()
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Default for Dictionary {
    fn default() -> Dictionary {
        Dictionary {
            small: HashMap::default(),
            recent: vec![(NO_KEY, 0); RECENT].into_boxed_slice(),
            table: HashTable::new(),
            spans: Vec::new(),
            keys: Vec::new(),
        }
    }
}

impl Dictionary {
    pub(crate) fn clear(&mut self) {
        self.recent.fill((NO_KEY, 0));
        self.small.clear();
        self.table.clear();
        self.spans.clear();
        self.keys.clear();
    }

    /// Keeps the first `n` entries, dropping the rest.
    pub(crate) fn truncate(&mut self, n: usize) {
        if n >= self.spans.len() {
            return;
        }
        if n == 0 {
            self.clear();
            return;
        }
        let limit = len32(n);
        self.recent.fill((NO_KEY, 0));
        self.small.retain(|_, id| *id < limit);
        self.table.retain(|id| *id < limit);
        self.keys.truncate(self.spans[n].1 as usize);
        self.spans.truncate(n);
    }

    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    pub(crate) fn key(&self, id: u32) -> (Kind, &[u8]) {
        let (kind, at, n) = self.spans[id as usize];
        (kind, &self.keys[at as usize..(at + n) as usize])
    }

    /// Whether entry `id` is `s` of `kind` (`id` must be an entry).
    pub(crate) fn holds(&self, id: u32, kind: Kind, s: &[u8]) -> bool {
        let (k, key) = self.key(id);
        k == kind && same_bytes(key, s)
    }

    /// The entry for `s` of `kind`, if any.
    pub(crate) fn find(&mut self, kind: Kind, s: &[u8]) -> Option<u32> {
        if let Some(k) = small_key(kind, s) {
            let slot = &mut self.recent[recent_slot(k)];
            if slot.0 == k {
                return Some(slot.1);
            }
            let id = self.small.get(&k).copied();
            if let Some(id) = id {
                *slot = (k, id);
            }
            return id;
        }
        self.table
            .find(key_hash(kind, s), |&id| self.holds(id, kind, s))
            .copied()
    }

    /// Adds `s` of `kind` as the next entry (the caller has checked that it
    /// is not one already).
    pub(crate) fn add(&mut self, kind: Kind, s: &[u8]) -> u32 {
        let id = len32(self.spans.len());
        let at = len32(self.keys.len());
        self.keys.extend_from_slice(s);
        self.spans.push((kind, at, len32(s.len())));
        if let Some(k) = small_key(kind, s) {
            self.small.insert(k, id);
            return id;
        }
        let Dictionary {
            table, spans, keys, ..
        } = self;
        table.insert_unique(key_hash(kind, s), id, |&other| {
            let (kind, at, n) = spans[other as usize];
            key_hash(kind, &keys[at as usize..(at + n) as usize])
        });
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_at_every_length_are_found_by_kind_and_bytes() {
        let mut d = Dictionary::default();
        // Lengths around the small keys' bound, and keys that differ only
        // by a trailing zero byte or by their kind.
        let keys: Vec<Vec<u8>> = (0..=20)
            .flat_map(|n| [vec![0u8; n], vec![0xffu8; n], (0..n as u8).collect()])
            .collect();
        let mut ids = Vec::new();
        for k in &keys {
            if d.find(Kind::Base64, k).is_none() {
                ids.push((k.clone(), d.add(Kind::Base64, k)));
            }
        }
        for (k, id) in &ids {
            assert_eq!(d.find(Kind::Base64, k), Some(*id), "{k:?}");
            assert_eq!(d.key(*id), (Kind::Base64, k.as_slice()));
            assert_eq!(d.find(Kind::Text, k), None, "{k:?}");
        }
        let text = d.add(Kind::Text, b"");
        assert_eq!(d.find(Kind::Text, b""), Some(text));
        assert_ne!(d.find(Kind::Base64, b""), Some(text));
    }

    /// [`small_key`] spelled out: the bytes copied into a zeroed array.
    fn small_key_by_copy(kind: Kind, s: &[u8]) -> u128 {
        let mut b = [0u8; 16];
        b[..s.len()].copy_from_slice(s);
        b[15] = (s.len() as u8) | ((kind as u8) << 4);
        u128::from_le_bytes(b)
    }

    #[test]
    fn bytes_compared_by_words_agree_with_slice_equality() {
        // Every length to past three words, equal and differing in each
        // byte in turn (so the overlapping last word is checked too), and
        // lengths that differ.
        for n in 0..=26usize {
            let a: Vec<u8> = (0..n).map(|i| (i * 37 + 5) as u8).collect();
            assert!(same_bytes(&a, &a.clone()), "{n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x80;
                assert!(!same_bytes(&a, &b), "{n} {at}");
            }
            assert!(!same_bytes(&a, &a[..n.saturating_sub(1)]) || n == 0);
        }
        let mut d = Dictionary::default();
        let id = d.add(Kind::Text, b"stats_summary");
        assert!(d.holds(id, Kind::Text, b"stats_summary"));
        assert!(!d.holds(id, Kind::Base64, b"stats_summary"));
        assert!(!d.holds(id, Kind::Text, b"stats_summarz"));
    }

    #[test]
    fn small_keys_read_by_words_are_the_bytes_then_the_tag() {
        for n in 0..=SMALL_LEN {
            for seed in 0..16u32 {
                let s: Vec<u8> = (0..n as u32)
                    .map(|i| (i.wrapping_mul(0x9d).wrapping_add(seed * 0x3b)) as u8)
                    .collect();
                for kind in [Kind::Text, Kind::Base64] {
                    assert_eq!(
                        small_key(kind, &s),
                        Some(small_key_by_copy(kind, &s)),
                        "{s:?}"
                    );
                }
            }
            let ones = vec![0xffu8; n];
            assert_eq!(
                small_key(Kind::Base64, &ones),
                Some(small_key_by_copy(Kind::Base64, &ones))
            );
        }
        assert_eq!(small_key(Kind::Text, &[0; SMALL_LEN + 1]), None);
    }

    #[test]
    fn keys_found_lately_are_forgotten_with_their_entries() {
        let mut d = Dictionary::default();
        let values: Vec<Vec<u8>> = (0..40u8)
            .map(|i| format!("PQ2A.1904{i:02}.003").into_bytes())
            .collect();
        for v in &values[..20] {
            d.add(Kind::Base64, v);
        }
        // Found twice: the second time from the recent slots.
        for _ in 0..2 {
            for (id, v) in values.iter().enumerate() {
                let want = (id < 20).then_some(id as u32);
                assert_eq!(d.find(Kind::Base64, v), want, "{v:?}");
                assert_eq!(d.find(Kind::Text, v), None);
            }
        }
        d.truncate(10);
        for (id, v) in values.iter().enumerate() {
            assert_eq!(d.find(Kind::Base64, v), (id < 10).then_some(id as u32));
        }
        // Other keys take the dropped ids.
        assert_eq!(d.add(Kind::Base64, &values[30]), 10);
        assert_eq!(d.find(Kind::Base64, &values[30]), Some(10));
        assert_eq!(d.find(Kind::Base64, &values[10]), None);
        d.clear();
        assert_eq!(d.find(Kind::Base64, &values[0]), None);
        assert_eq!(d.add(Kind::Base64, &values[5]), 0);
        assert_eq!(d.find(Kind::Base64, &values[5]), Some(0));
        assert_eq!(d.find(Kind::Base64, &values[30]), None);
    }

    #[test]
    fn truncating_forgets_short_and_long_keys_past_the_mark() {
        let mut d = Dictionary::default();
        let short = d.add(Kind::Text, b"cf");
        let long = d.add(Kind::Base64, &[7u8; 20]);
        let late_short = d.add(Kind::Base64, b"x");
        let late_long = d.add(Kind::Text, &[b'z'; 30]);
        assert_eq!((short, long, late_short, late_long), (0, 1, 2, 3));
        d.truncate(2);
        assert_eq!(d.len(), 2);
        assert_eq!(d.find(Kind::Text, b"cf"), Some(0));
        assert_eq!(d.find(Kind::Base64, &[7u8; 20]), Some(1));
        assert_eq!(d.find(Kind::Base64, b"x"), None);
        assert_eq!(d.find(Kind::Text, &[b'z'; 30]), None);
        // Added again, they take the next ids.
        assert_eq!(d.add(Kind::Base64, b"x"), 2);
        assert_eq!(d.add(Kind::Text, &[b'z'; 30]), 3);
        d.truncate(0);
        assert_eq!((d.len(), d.find(Kind::Text, b"cf")), (0, None));
    }
}
