//! A scenario's rows in key order: [`SortedRows`] takes a [`SampleRows`]
//! stream, whose keys come at random, and hands its rows to the store's
//! sorted import ([`Instance::bulk_import`]) in strictly ascending key
//! order, so a fresh table's tablets take them as compacted runs instead
//! of going through memtables, flushes and compactions.
//!
//! The order comes from a sample sort done in small steps, none of which
//! holds more than a few thousand rows at once, so a host can interleave
//! them with frames:
//!
//! 1. *Drawing*: the rows are drawn into one arena (the keys back to back,
//!    plus the entity and the timestamp each value is rebuilt from; no
//!    allocation per row). Once a first sample is drawn, bucket bounds
//!    are taken at its quantiles, and every row goes to the bucket its
//!    key falls in. The draws are independent and alike, so the sample's
//!    quantiles cut the later rows about evenly too.
//! 2. *Writing*: the buckets, in key order, are each sorted when their
//!    turn comes (a few thousand rows) and imported in batches.
//!
//! The set of rows is exactly the stream's (same scenario, spec and seed,
//! same rows), only their order differs. Stopping part way keeps a key
//! prefix of that set: the rows written are the smallest ones.

use super::sample::{RowBatch, SampleRows};
use tabletop_sql::Instance;
use tabletop_store::{Error, Result};

/// Rows a bucket is meant to hold: sorting that many takes a few
/// milliseconds in the page.
pub const BUCKET_ROWS: u64 = 8_192;
/// Most buckets (a 2M-row stream gets buckets of about 8K rows).
const MAX_BUCKETS: u64 = 256;
/// Sample rows drawn per bucket before the bounds are chosen. A bucket's
/// share then varies by about one part in six; the largest of a
/// hundred buckets comes out at about one and a half times the mean.
const SAMPLE_PER_BUCKET: u64 = 32;

/// Where a [`SortedRows`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortedPhase {
    /// Drawing the rows and sorting them into buckets.
    Drawing,
    /// Importing them in key order.
    Writing,
    /// Every row written, or a write failed.
    Done,
}

/// The first 16 bytes of `key` as a number (zeros past its end): keys
/// compare as their prefixes do, and on a tie as the whole keys do. Most
/// comparisons are then settled without reaching into the arena.
fn prefix(key: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    let n = key.len().min(bytes.len());
    if let (Some(to), Some(from)) = (bytes.get_mut(..n), key.get(..n)) {
        to.copy_from_slice(from);
    }
    u128::from_be_bytes(bytes)
}

/// The drawn rows, back to back (see the module docs).
#[derive(Clone, Debug, Default)]
struct Arena {
    keys: Vec<u8>,
    /// End offset of each key in `keys`.
    key_ends: Vec<usize>,
    entities: Vec<u64>,
    timestamps: Vec<i64>,
}

impl Arena {
    fn len(&self) -> usize {
        self.key_ends.len()
    }

    fn push(&mut self, key: &[u8], entity: u64, timestamp: i64) {
        self.keys.extend_from_slice(key);
        self.key_ends.push(self.keys.len());
        self.entities.push(entity);
        self.timestamps.push(timestamp);
    }

    /// Row `i`'s key (empty past the end).
    fn key(&self, i: u32) -> &[u8] {
        let i = i as usize;
        let start = match i.checked_sub(1) {
            Some(before) => self.key_ends.get(before).copied().unwrap_or(0),
            None => 0,
        };
        let end = self.key_ends.get(i).copied().unwrap_or(start);
        self.keys.get(start..end).unwrap_or_default()
    }
}

/// A scenario's rows imported in key order (see the module docs).
#[derive(Clone, Debug)]
pub struct SortedRows {
    /// The stream, while rows are being drawn.
    stream: Option<SampleRows>,
    families: Vec<String>,
    value_bytes: usize,
    target: u64,
    arena: Arena,
    /// Rows to draw before the bounds are chosen.
    sample_rows: usize,
    /// Arena rows whose keys cut the buckets, ascending: bucket `i` holds
    /// the keys from bound `i - 1` (included) to bound `i` (excluded).
    /// Empty until the sample is drawn.
    bounds: Vec<u32>,
    /// The bounds' key prefixes (see [`prefix`]).
    bound_prefixes: Vec<u128>,
    /// Arena rows of each bucket (sorted when its turn comes).
    buckets: Vec<Vec<u32>>,
    /// The bucket being sorted, with each row's key prefix.
    scratch: Vec<(u128, u32)>,
    /// Whether the bounds are chosen (every drawn row is then in a
    /// bucket).
    bucketed: bool,
    /// The bucket being written, and how many of its rows are written.
    bucket: usize,
    in_bucket: usize,
    /// Whether the bucket being written is sorted.
    bucket_sorted: bool,
    written: u64,
    failed: bool,
    batch: RowBatch,
}

impl SortedRows {
    /// The rows of `stream`, to be drawn and then imported in key order.
    #[must_use]
    pub fn new(stream: SampleRows) -> SortedRows {
        let target = stream.target();
        let buckets = target.div_ceil(BUCKET_ROWS).clamp(1, MAX_BUCKETS);
        let sample_rows = usize::try_from(buckets * SAMPLE_PER_BUCKET).unwrap_or(usize::MAX);
        let rows = usize::try_from(target).unwrap_or(0);
        let arena = Arena {
            key_ends: Vec::with_capacity(rows),
            entities: Vec::with_capacity(rows),
            timestamps: Vec::with_capacity(rows),
            ..Arena::default()
        };
        SortedRows {
            families: stream.families().to_vec(),
            value_bytes: stream.value_bytes(),
            target,
            arena,
            sample_rows,
            bounds: Vec::new(),
            bound_prefixes: Vec::new(),
            buckets: Vec::new(),
            scratch: Vec::new(),
            bucketed: false,
            bucket: 0,
            in_bucket: 0,
            bucket_sorted: false,
            written: 0,
            failed: false,
            batch: RowBatch::default(),
            stream: Some(stream),
        }
    }

    /// Where the work is.
    #[must_use]
    pub fn phase(&self) -> SortedPhase {
        if self.stream.is_some() {
            SortedPhase::Drawing
        } else if self.failed || self.written >= self.arena.len() as u64 {
            SortedPhase::Done
        } else {
            SortedPhase::Writing
        }
    }

    /// Whether every row is written (or a write failed).
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.phase() == SortedPhase::Done
    }

    /// Rows asked for (after the stream's cap).
    #[must_use]
    pub fn target(&self) -> u64 {
        self.target
    }

    /// Distinct rows drawn so far.
    #[must_use]
    pub fn rows_drawn(&self) -> u64 {
        self.arena.len() as u64
    }

    /// Rows imported so far: the smallest keys of the set.
    #[must_use]
    pub fn rows_written(&self) -> u64 {
        self.written
    }

    /// The rows' families.
    #[must_use]
    pub fn families(&self) -> &[String] {
        &self.families
    }

    /// Progress of the phase under way, 0.0 to 1.0: rows drawn of the
    /// target while drawing, rows written of those drawn while writing.
    #[must_use]
    pub fn phase_fraction(&self) -> f64 {
        let (done, of) = match self.phase() {
            SortedPhase::Drawing => (self.rows_drawn(), self.target),
            SortedPhase::Writing => (self.written, self.rows_drawn()),
            SortedPhase::Done => return 1.0,
        };
        if of == 0 {
            1.0
        } else {
            (done as f64 / of as f64).min(1.0)
        }
    }

    /// Draws up to `max_rows` more rows (attempts: a key drawn before
    /// is skipped) into the arena and their buckets. Returns the rows
    /// added; once the stream is over, the phase becomes
    /// [`SortedPhase::Writing`] and this draws nothing.
    pub fn draw(&mut self, max_rows: usize) -> usize {
        let Some(mut stream) = self.stream.take() else {
            return 0;
        };
        let before = self.arena.len();
        for _ in 0..max_rows {
            let Some(row) = stream.draw_row() else {
                if stream.is_done() {
                    break;
                }
                continue;
            };
            self.arena
                .push(stream.last_key(), row.entity, row.timestamp);
            let index = self.arena.len() - 1;
            if self.bucketed {
                self.place(index);
            } else if self.arena.len() >= self.sample_rows {
                self.choose_bounds();
            }
        }
        if stream.is_done() {
            // The stream (whose set of key hashes is the largest thing
            // it holds) is dropped: nothing needs it now.
            if !self.bucketed {
                self.choose_bounds();
            }
        } else {
            self.stream = Some(stream);
        }
        self.arena.len() - before
    }

    /// Puts arena row `index` in the bucket its key falls in.
    fn place(&mut self, index: usize) {
        let Ok(row) = u32::try_from(index) else {
            return;
        };
        let key = self.arena.key(row);
        let p = prefix(key);
        let arena = &self.arena;
        let (bounds, prefixes) = (&self.bounds, &self.bound_prefixes);
        let bucket = prefixes.partition_point(|&bp| bp <= p);
        // Bounds sharing the row's prefix are settled by the whole key.
        let tied = prefixes.partition_point(|&bp| bp < p);
        let bucket = tied
            + bounds
                .get(tied..bucket)
                .unwrap_or_default()
                .partition_point(|&b| arena.key(b) <= key);
        if let Some(rows) = self.buckets.get_mut(bucket) {
            rows.push(row);
        }
    }

    /// Takes the bounds at the quantiles of the rows drawn so far, puts
    /// those rows in their buckets, and makes room for the rest.
    fn choose_bounds(&mut self) {
        let drawn = self.arena.len();
        let wanted = self.target.div_ceil(BUCKET_ROWS).clamp(1, MAX_BUCKETS) as usize;
        let mut sample: Vec<u32> = (0..drawn).filter_map(|i| u32::try_from(i).ok()).collect();
        let arena = &self.arena;
        sample.sort_unstable_by(|&a, &b| arena.key(a).cmp(arena.key(b)));
        // Keys are distinct (the stream skips repeats), so distinct
        // positions give strictly ascending bounds.
        let mut positions: Vec<usize> = (1..wanted).map(|i| i * drawn / wanted).collect();
        positions.dedup();
        self.bounds = positions
            .into_iter()
            .filter(|&p| p > 0)
            .filter_map(|p| sample.get(p).copied())
            .collect();
        self.bound_prefixes = self
            .bounds
            .iter()
            .map(|&b| prefix(self.arena.key(b)))
            .collect();
        let expected = (self.target as usize / (self.bounds.len() + 1)).saturating_add(1);
        self.buckets = (0..=self.bounds.len())
            .map(|_| Vec::with_capacity(expected + expected / 4))
            .collect();
        // The rest of the keys will be about as long as the sample's.
        if let Some(average) = self.arena.keys.len().checked_div(drawn) {
            let left = (self.target as usize).saturating_sub(drawn);
            self.arena
                .keys
                .reserve(average.saturating_mul(left) / 100 * 103);
        }
        self.bucketed = true;
        for index in 0..drawn {
            self.place(index);
        }
    }

    /// Imports up to `max_rows` of the next rows in key order into
    /// `table_id` with one [`Instance::bulk_import`] (never more than one
    /// bucket's). Returns the rows written: 0 while rows are still being
    /// drawn and once all are written. A refused batch ends the work with
    /// its error; nothing of that batch is written.
    pub fn import_batch(
        &mut self,
        db: &mut Instance,
        table_id: &str,
        max_rows: usize,
    ) -> Result<usize> {
        if self.phase() != SortedPhase::Writing || max_rows == 0 {
            return Ok(0);
        }
        self.sort_next();
        let Some(rows) = self.buckets.get(self.bucket) else {
            return Ok(0);
        };
        let end = (self.in_bucket + max_rows).min(rows.len());
        self.batch.clear();
        for &row in rows.get(self.in_bucket..end).unwrap_or_default() {
            let i = row as usize;
            let entity = self.arena.entities.get(i).copied().unwrap_or(0);
            let timestamp = self.arena.timestamps.get(i).copied().unwrap_or(0);
            self.batch
                .push(self.arena.key(row), entity, timestamp, self.value_bytes);
        }
        let entries = self.batch.entries(&self.families);
        if let Err(e) = db.bulk_import(table_id, &entries) {
            self.failed = true;
            return Err(Error::new(
                e.code(),
                format!("writing the scenario's rows: {}", e.message()),
            ));
        }
        let n = entries.len();
        self.in_bucket = end;
        self.written += n as u64;
        if self
            .buckets
            .get(self.bucket)
            .is_some_and(|r| end >= r.len())
        {
            self.next_bucket();
        }
        Ok(n)
    }

    /// Sorts the bucket the next import takes its rows from, unless it
    /// is sorted already (the import does it when the caller did not):
    /// a host can do this step on its own, outside a batch it times.
    /// Returns whether there was one to sort.
    pub fn sort_next(&mut self) -> bool {
        if self.phase() != SortedPhase::Writing || self.bucket_sorted {
            return false;
        }
        while self
            .buckets
            .get(self.bucket)
            .is_some_and(|rows| self.in_bucket >= rows.len())
        {
            self.next_bucket();
        }
        let Some(rows) = self.buckets.get_mut(self.bucket) else {
            return false;
        };
        let arena = &self.arena;
        let keyed = &mut self.scratch;
        keyed.clear();
        keyed.extend(rows.iter().map(|&r| (prefix(arena.key(r)), r)));
        keyed.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| arena.key(a.1).cmp(arena.key(b.1)))
        });
        rows.clear();
        rows.extend(keyed.iter().map(|&(_, r)| r));
        self.bucket_sorted = true;
        true
    }

    /// Moves to the next bucket, freeing the one written.
    fn next_bucket(&mut self) {
        if let Some(done) = self.buckets.get_mut(self.bucket) {
            *done = Vec::new();
        }
        self.bucket += 1;
        self.in_bucket = 0;
        self.bucket_sorted = false;
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::prefix;

    #[test]
    fn prefixes_never_contradict_the_key_order() {
        // Short keys, zero bytes, ties past 16 bytes.
        let mut keys: Vec<&[u8]> = vec![
            b"",
            b"\0",
            b"ab",
            b"ab\0",
            b"ab\0\x01",
            b"abcdefghijklmnop",
            b"abcdefghijklmnopq",
            b"abcdefghijklmnop\0",
            b"b",
            b"\xff\xff",
        ];
        keys.sort();
        for pair in keys.windows(2) {
            assert!(prefix(pair[0]) <= prefix(pair[1]), "{pair:?}");
        }
        assert_eq!(prefix(b"ab"), prefix(b"ab\0"), "a tie the keys settle");
        assert!(prefix(b"ab") < prefix(b"ab\0\x01"));
    }
}
