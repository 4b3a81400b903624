//! Compiled regexes kept between requests, as a prepared statement is.
//!
//! Building a `regex::bytes::Regex` costs far more than running a selective
//! one over a compacted table (a third of the core's value-regex scan of
//! 775,064 cells went to it). Clients repeat the same filters, so an
//! instance keeps the last few patterns it compiled, keyed by the pattern's
//! bytes. A pattern compiles to the same matcher whichever filter field it
//! came from (only error messages name the field, and errors are never
//! kept), so one cache serves row key, family, qualifier and value regexes.
//!
//! The cache is bounded: at most [`RegexCache::CAPACITY`] patterns of at
//! most [`RegexCache::MAX_PATTERN_BYTES`] bytes each; the least recently
//! used one makes room for a new one.

use std::fmt;

use super::re2::{ByteRegex, RegexError};

/// The last patterns compiled, most recently used last.
#[derive(Clone, Default)]
pub struct RegexCache {
    entries: Vec<(Box<[u8]>, ByteRegex)>,
}

impl RegexCache {
    /// Most patterns kept.
    pub const CAPACITY: usize = 32;
    /// Longest pattern kept (longer ones are compiled every time).
    pub const MAX_PATTERN_BYTES: usize = 1024;

    /// An empty cache.
    #[must_use]
    pub fn new() -> RegexCache {
        RegexCache::default()
    }

    /// How many patterns are kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no pattern is kept.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `pattern` is kept.
    #[must_use]
    pub fn contains(&self, pattern: &[u8]) -> bool {
        self.entries.iter().any(|(p, _)| **p == *pattern)
    }

    /// The compiled `pattern`: the kept one, or a new one (kept if it
    /// compiled and is short enough).
    pub(crate) fn get_or_compile(&mut self, pattern: &[u8]) -> Result<ByteRegex, RegexError> {
        if let Some(i) = self.entries.iter().position(|(p, _)| **p == *pattern) {
            let entry = self.entries.remove(i);
            let re = entry.1.clone();
            self.entries.push(entry);
            return Ok(re);
        }
        let re = ByteRegex::new(pattern)?;
        if pattern.len() <= Self::MAX_PATTERN_BYTES {
            if self.entries.len() == Self::CAPACITY {
                self.entries.remove(0);
            }
            self.entries.push((pattern.into(), re.clone()));
        }
        Ok(re)
    }
}

impl fmt::Debug for RegexCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegexCache")
            .field("patterns", &self.entries.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_pattern_matches_as_a_new_one() {
        let mut cache = RegexCache::new();
        let pattern = br"PQ2A\.19040[0-9]\.003";
        let first = cache.get_or_compile(pattern).expect("valid");
        let again = cache.get_or_compile(pattern).expect("valid");
        assert_eq!(cache.len(), 1);
        for hay in [
            &b"PQ2A.190405.003"[..],
            b"PQ2A.190405.0031",
            b"xPQ2A.190405.003",
            b"PQ2A.19040x.003",
            b"",
        ] {
            let fresh = ByteRegex::new(pattern).expect("valid").is_match(hay);
            assert_eq!(first.is_match(hay), fresh);
            assert_eq!(again.is_match(hay), fresh);
        }
    }

    #[test]
    fn errors_are_not_kept() {
        let mut cache = RegexCache::new();
        assert!(cache.get_or_compile(b"[a").is_err());
        assert!(cache.get_or_compile(b"[a").is_err());
        assert!(cache.is_empty());
    }

    #[test]
    fn the_cache_is_bounded_and_drops_the_least_recently_used() {
        let mut cache = RegexCache::new();
        for i in 0..RegexCache::CAPACITY {
            cache
                .get_or_compile(format!("a{i}b+").as_bytes())
                .expect("valid");
        }
        assert_eq!(cache.len(), RegexCache::CAPACITY);
        // Using the oldest makes the second oldest the one to go.
        cache.get_or_compile(b"a0b+").expect("valid");
        cache.get_or_compile(b"new.*x").expect("valid");
        assert_eq!(cache.len(), RegexCache::CAPACITY);
        assert!(cache.contains(b"a0b+"));
        assert!(!cache.contains(b"a1b+"));
        assert!(cache.contains(b"new.*x"));
        let long = vec![b'a'; RegexCache::MAX_PATTERN_BYTES + 1];
        assert!(cache.get_or_compile(&long).expect("valid").is_match(&long));
        assert!(!cache.contains(&long));
        assert_eq!(cache.len(), RegexCache::CAPACITY);
    }
}
