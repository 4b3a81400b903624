//! Traffic: what each table served, on the instance clock, kept small
//! enough to travel in a snapshot.
//!
//! Cloud Bigtable's Key Visualizer draws what the servers counted: per
//! minute, per key range, the operations, rows and bytes read and written.
//! This module is that counting for an [`Instance`](crate::Instance): every
//! data operation that reaches a table (ReadRows, MutateRow, MutateRows,
//! CheckAndMutateRow, ReadModifyWriteRow, DropRowRange, SampleRowKeys),
//! from whichever layer above, adds to its table's [`TableTraffic`]. Layers
//! above read the record (the design crate turns it into heatmaps and
//! findings); the store knows nothing of how it is drawn.
//!
//! # What is kept
//!
//! Time is cut into buckets of [`TRAFFIC_BUCKET_MICROS`] of the instance
//! clock; a table keeps its last [`MAX_TRAFFIC_BUCKETS`] buckets that saw
//! traffic (older ones are forgotten). A bucket holds at most
//! [`MAX_SPANS`] [`TrafficSpan`]s, sorted by key: a closed range of keys,
//! each key cut to its first 16 bytes, with the [`TrafficCounts`] of the
//! operations in it. A write or a point read is a span of one key; a range
//! read is a span of its range. When a bucket holds too many spans,
//! neighbours are merged into their union (hot ranges keep the narrowest
//! spans), so memory stays bounded however much traffic arrives.
//!
//! # Cost
//!
//! A write or a point read appends its key's first 16 bytes (one `u128`)
//! to a short unsorted buffer, a range read one span: no allocation, no
//! search.
//! When a buffer fills (2048 keys, 512 spans) it is folded into the
//! bucket: written keys are counted between boundaries sampled from
//! themselves (a binary search each, no sort), their rows and bytes
//! shared evenly among the keys of one fold. Past 8,192 rows written in
//! one time bucket (a bulk load) only one written key in four is kept;
//! the counts stay exact and the kept keys share them. Recording can be switched off per instance
//! ([`Instance::set_traffic_recording`](crate::Instance::set_traffic_recording)).

use std::collections::VecDeque;

/// Length of a time bucket: 10 seconds of the instance clock.
pub const TRAFFIC_BUCKET_MICROS: i64 = 10_000_000;
/// Time buckets with traffic a table keeps (the oldest go first).
pub const MAX_TRAFFIC_BUCKETS: usize = 360;
/// Spans a time bucket keeps after folding.
pub const MAX_SPANS: usize = 128;
/// Read spans buffered before a fold.
const PENDING_SPANS: usize = 512;
/// Written keys (or point reads) buffered before a fold.
const PENDING_KEYS: usize = 2048;
/// Rows written in one time bucket before their keys are sampled.
const SAMPLE_WRITES_AFTER: u64 = 8192;
/// Beyond that, one written key in this many is kept (the counts are
/// all kept: each kept key stands for its share of them).
const SAMPLE_EVERY: u64 = 4;

/// What the operations in one span did. Counts are `f32` (a read of
/// several ranges shares its rows among them).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TrafficCounts {
    /// Operations on single rows: point reads, writes, conditional writes.
    pub point_ops: f32,
    /// Range operations (scans, dropped ranges, SampleRowKeys): each
    /// counts once in every part of the key space it covers.
    pub scans: f32,
    /// Rows returned by reads.
    pub read_rows: f32,
    /// Bytes returned by reads.
    pub read_bytes: f32,
    /// Rows the reads examined (at least those returned).
    pub rows_scanned: f32,
    /// Rows written.
    pub write_rows: f32,
    /// Bytes written.
    pub write_bytes: f32,
}

impl TrafficCounts {
    /// Adds another span's counts.
    pub fn add(&mut self, o: &TrafficCounts) {
        self.point_ops += o.point_ops;
        self.scans += o.scans;
        self.read_rows += o.read_rows;
        self.read_bytes += o.read_bytes;
        self.rows_scanned += o.rows_scanned;
        self.write_rows += o.write_rows;
        self.write_bytes += o.write_bytes;
    }

    /// How much the span weighs when spans are merged: operations plus
    /// rows moved.
    #[must_use]
    pub fn weight(&self) -> f32 {
        self.point_ops + self.scans + self.read_rows + self.write_rows
    }

    /// The counts in a fixed order (for encoding).
    #[must_use]
    pub fn to_array(&self) -> [f32; 7] {
        [
            self.point_ops,
            self.scans,
            self.read_rows,
            self.read_bytes,
            self.rows_scanned,
            self.write_rows,
            self.write_bytes,
        ]
    }

    /// The counts from [`TrafficCounts::to_array`]'s order.
    #[must_use]
    pub fn from_array(a: [f32; 7]) -> TrafficCounts {
        let [
            point_ops,
            scans,
            read_rows,
            read_bytes,
            rows_scanned,
            write_rows,
            write_bytes,
        ] = a;
        TrafficCounts {
            point_ops,
            scans,
            read_rows,
            read_bytes,
            rows_scanned,
            write_rows,
            write_bytes,
        }
    }
}

/// The first 16 bytes of a key, zero-padded, big-endian: comparing these
/// orders keys as the keys order (up to their 16th byte).
#[must_use]
#[inline]
pub fn key_prefix16(key: &[u8]) -> u128 {
    let mut w = [0u8; 16];
    let n = key.len().min(16);
    if let (Some(dst), Some(src)) = (w.get_mut(..n), key.get(..n)) {
        dst.copy_from_slice(src);
    }
    u128::from_be_bytes(w)
}

/// A prefix as key bytes, without the padding zeros.
#[must_use]
pub fn prefix16_bytes(p: u128) -> Vec<u8> {
    let bytes = p.to_be_bytes();
    let len = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    bytes.get(..len).unwrap_or_default().to_vec()
}

/// Whether `end` is `start` followed by a zero byte (a single-key range).
fn is_successor(start: &[u8], end: &[u8]) -> bool {
    end.len() == start.len() + 1 && end.last() == Some(&0) && end.starts_with(start)
}

/// The last 16-byte prefix of keys below `end` (exclusive end key).
fn last_prefix_before(end: &[u8]) -> u128 {
    let p = key_prefix16(end);
    if end.len() <= 16 && end.iter().any(|&b| b != 0) {
        p.saturating_sub(1)
    } else {
        p
    }
}

/// A closed range of keys (cut to 16 bytes) and what happened in it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrafficSpan {
    /// First key's prefix ([`key_prefix16`]).
    pub lo: u128,
    /// Last key's prefix (`u128::MAX`: the end of the table).
    pub hi: u128,
    /// What the operations did.
    pub counts: TrafficCounts,
}

impl TrafficSpan {
    /// The first key (up to 16 bytes).
    #[must_use]
    pub fn first_key(&self) -> Vec<u8> {
        prefix16_bytes(self.lo)
    }

    /// The last key (up to 16 bytes; `None`: the end of the table).
    #[must_use]
    pub fn last_key(&self) -> Option<Vec<u8>> {
        (self.hi != u128::MAX).then(|| self.hi.to_be_bytes().to_vec())
    }

    /// Whether the span is one key.
    #[must_use]
    pub fn is_point(&self) -> bool {
        self.lo == self.hi
    }
}

/// One time bucket of a table's traffic.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrafficBucket {
    /// Start of the bucket on the instance clock (a multiple of
    /// [`TRAFFIC_BUCKET_MICROS`]).
    pub start_micros: i64,
    /// Folded spans, sorted by `lo`.
    spans: Vec<TrafficSpan>,
    /// Spans of reads not folded yet, in arrival order.
    pending: Vec<TrafficSpan>,
    /// Keys of rows written and not folded yet, in arrival order: the
    /// common case kept small (16 bytes a row).
    pending_writes: Vec<u128>,
    /// What those writes did, in total (shared evenly among them when
    /// folded).
    pending_write_counts: TrafficCounts,
    /// Rows written in this bucket so far.
    writes_seen: u64,
    /// Keys of point reads not folded yet, likewise.
    pending_points: Vec<u128>,
    /// What those point reads did, in total.
    pending_point_counts: TrafficCounts,
}

impl TrafficBucket {
    fn new(start_micros: i64) -> TrafficBucket {
        TrafficBucket {
            start_micros,
            ..TrafficBucket::default()
        }
    }

    /// A bucket from folded spans (as a snapshot holds them).
    #[must_use]
    pub fn from_spans(start_micros: i64, mut spans: Vec<TrafficSpan>) -> TrafficBucket {
        spans.sort_by(|a, b| a.lo.cmp(&b.lo).then(a.hi.cmp(&b.hi)));
        let mut b = TrafficBucket::new(start_micros);
        b.spans = coarsen(spans, MAX_SPANS);
        b
    }

    /// The spans, sorted by first key, with the buffered ones folded in.
    #[must_use]
    pub fn spans(&self) -> Vec<TrafficSpan> {
        if self.is_folded() {
            return self.spans.clone();
        }
        let mut copy = self.clone();
        copy.fold();
        copy.spans
    }

    /// Totals over every span.
    #[must_use]
    pub fn totals(&self) -> TrafficCounts {
        let mut t = TrafficCounts::default();
        for s in self.spans.iter().chain(&self.pending) {
            t.add(&s.counts);
        }
        t.add(&self.pending_write_counts);
        t.add(&self.pending_point_counts);
        t
    }

    /// Whether nothing waits in the buffers.
    fn is_folded(&self) -> bool {
        self.pending.is_empty() && self.pending_writes.is_empty() && self.pending_points.is_empty()
    }

    #[inline]
    fn push(&mut self, span: TrafficSpan) {
        self.pending.push(span);
        if self.pending.len() >= PENDING_SPANS {
            self.fold();
        }
    }

    #[inline]
    fn push_write(&mut self, key: u128, bytes: u64) {
        let c = &mut self.pending_write_counts;
        c.point_ops += 1.0;
        c.write_rows += 1.0;
        c.write_bytes += bytes as f32;
        self.writes_seen += 1;
        // A bulk load: the counts stay exact, the keys are sampled.
        if self.writes_seen > SAMPLE_WRITES_AFTER && !self.writes_seen.is_multiple_of(SAMPLE_EVERY)
        {
            return;
        }
        self.pending_writes.push(key);
        if self.pending_writes.len() >= PENDING_KEYS {
            self.fold();
        }
    }

    #[inline]
    fn push_point_read(&mut self, key: u128, counts: &TrafficCounts) {
        self.pending_points.push(key);
        self.pending_point_counts.add(counts);
        if self.pending_points.len() >= PENDING_KEYS {
            self.fold();
        }
    }

    /// Sorts the buffers into the spans, merging equal ones, then merges
    /// neighbours until at most [`MAX_SPANS`] remain.
    #[inline(never)]
    fn fold(&mut self) {
        if self.is_folded() {
            return;
        }
        let mut new = std::mem::take(&mut self.pending);
        new.sort_unstable_by(|a, b| a.lo.cmp(&b.lo).then(a.hi.cmp(&b.hi)));
        let writes = group_keys(&mut self.pending_writes, &mut self.pending_write_counts);
        let points = group_keys(&mut self.pending_points, &mut self.pending_point_counts);
        let merged = merge_sorted(
            &merge_sorted(&merge_sorted(&self.spans, &new), &writes),
            &points,
        );
        self.spans = coarsen(merged, MAX_SPANS);
        new.clear();
        self.pending = new;
    }
}

/// Buffered keys (emptied) as sorted spans of about equal key counts, at
/// most [`MAX_SPANS`], sharing `total` (reset) in proportion: every so
/// many keys is taken as a boundary (the boundaries sorted), each key
/// counted between its two, so a fold costs a short binary search a key
/// instead of a sort.
fn group_keys(keys: &mut Vec<u128>, total: &mut TrafficCounts) -> Vec<TrafficSpan> {
    let n = keys.len();
    if n == 0 {
        return Vec::new();
    }
    let step = n.div_ceil(MAX_SPANS).max(1);
    let mut bounds: Vec<u128> = keys.iter().step_by(step).copied().collect();
    bounds.sort_unstable();
    bounds.dedup();
    // Per boundary: the lowest and highest key counted, and how many.
    let mut groups: Vec<(u128, u128, u32)> = vec![(u128::MAX, 0, 0); bounds.len()];
    for &k in keys.iter() {
        let g = bounds.partition_point(|&b| b <= k).saturating_sub(1);
        if let Some(group) = groups.get_mut(g) {
            group.0 = group.0.min(k);
            group.1 = group.1.max(k);
            group.2 += 1;
        }
    }
    let t = std::mem::take(total).to_array();
    keys.clear();
    let inv = 1.0 / n as f32;
    groups
        .into_iter()
        .filter(|g| g.2 > 0)
        .map(|(lo, hi, count)| {
            let share = count as f32 * inv;
            TrafficSpan {
                lo,
                hi,
                counts: TrafficCounts::from_array(t.map(|v| v * share)),
            }
        })
        .collect()
}

/// Two lists of spans sorted by `(lo, hi)` as one, equal spans added up.
fn merge_sorted(a: &[TrafficSpan], b: &[TrafficSpan]) -> Vec<TrafficSpan> {
    let mut merged: Vec<TrafficSpan> = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if (x.lo, x.hi) <= (y.lo, y.hi) => a.next(),
            (Some(_), Some(_)) | (None, Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, None) => None,
        };
        let Some(s) = next else { break };
        match merged.last_mut() {
            Some(last) if last.lo == s.lo && last.hi == s.hi => last.counts.add(&s.counts),
            _ => merged.push(*s),
        }
    }
    merged
}

/// Merges neighbouring spans (sorted by `lo`) into their unions until at
/// most `max` remain: each merged span takes about an equal share of the
/// total weight, so busy ranges stay narrow and quiet ones fold together.
fn coarsen(spans: Vec<TrafficSpan>, max: usize) -> Vec<TrafficSpan> {
    if spans.len() <= max {
        return spans;
    }
    let total: f64 = spans.iter().map(|s| f64::from(s.counts.weight())).sum();
    let share = (total / max as f64).max(f64::MIN_POSITIVE);
    let mut out: Vec<TrafficSpan> = Vec::with_capacity(max);
    let mut acc = 0.0f64;
    let mut open: Option<TrafficSpan> = None;
    let left = spans.len();
    for (i, s) in spans.into_iter().enumerate() {
        let w = f64::from(s.counts.weight());
        let cur = match open.take() {
            None => s,
            Some(mut o) => {
                o.hi = o.hi.max(s.hi);
                o.counts.add(&s.counts);
                o
            }
        };
        acc += w;
        // Close the span once it holds its share, or when the spans left
        // are just enough to fill the places left; the last place takes
        // whatever remains.
        let last_place = out.len() + 1 >= max;
        let places_left = max.saturating_sub(out.len() + 1);
        let spans_left = left - i - 1;
        if !last_place && (acc >= share || spans_left <= places_left) {
            out.push(cur);
            acc = 0.0;
        } else {
            open = Some(cur);
        }
    }
    out.extend(open);
    out
}

/// One table's traffic: its last time buckets that saw any.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableTraffic {
    buckets: VecDeque<TrafficBucket>,
}

impl TableTraffic {
    /// The time buckets, oldest first.
    pub fn buckets(&self) -> impl Iterator<Item = &TrafficBucket> {
        self.buckets.iter()
    }

    /// Whether nothing was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.buckets.clear();
    }

    /// Adds a bucket read from a snapshot (after the ones there).
    pub fn push_bucket(&mut self, bucket: TrafficBucket) {
        if self
            .buckets
            .back()
            .is_some_and(|b| b.start_micros >= bucket.start_micros)
        {
            return;
        }
        self.buckets.push_back(bucket);
        self.trim();
    }

    fn trim(&mut self) {
        while self.buckets.len() > MAX_TRAFFIC_BUCKETS {
            self.buckets.pop_front();
        }
    }

    /// The bucket for time `now` (a clock that went back adds to the
    /// newest bucket).
    #[inline]
    fn bucket(&mut self, now: i64) -> &mut TrafficBucket {
        let start = now - now.rem_euclid(TRAFFIC_BUCKET_MICROS);
        if self.buckets.back().is_none_or(|b| b.start_micros < start) {
            self.open(start);
        }
        // Never empty here: `open` pushed one if there was none.
        let last = self.buckets.len() - 1;
        &mut self.buckets[last]
    }

    #[inline(never)]
    fn open(&mut self, start: i64) {
        if let Some(b) = self.buckets.back_mut() {
            b.fold();
        }
        self.buckets.push_back(TrafficBucket::new(start));
        self.trim();
    }

    /// A row written: `bytes` of cells at `key`.
    #[inline]
    pub fn note_write(&mut self, now: i64, key: &[u8], bytes: u64) {
        self.bucket(now).push_write(key_prefix16(key), bytes);
    }

    /// A read of one row (alone, or as part of a conditional write).
    pub fn note_point_read(&mut self, now: i64, key: &[u8], rows: u64, bytes: u64, seen: u64) {
        let counts = TrafficCounts {
            point_ops: 1.0,
            read_rows: rows as f32,
            read_bytes: bytes as f32,
            rows_scanned: seen as f32,
            ..TrafficCounts::default()
        };
        self.bucket(now).push_point_read(key_prefix16(key), &counts);
    }

    /// A read of `[start, end)` (`None`: to the end of the table) that
    /// returned `counts`' rows; a single key is a point read.
    pub fn note_range(
        &mut self,
        now: i64,
        start: &[u8],
        end: Option<&[u8]>,
        counts: TrafficCounts,
    ) {
        if counts.scans == 0.0 && end.is_some_and(|e| is_successor(start, e)) {
            self.bucket(now)
                .push_point_read(key_prefix16(start), &counts);
            return;
        }
        let lo = key_prefix16(start);
        let hi = end.map_or(u128::MAX, last_prefix_before).max(lo);
        self.bucket(now).push(TrafficSpan { lo, hi, counts });
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn total_writes(t: &TableTraffic) -> f32 {
        t.buckets().map(|b| b.totals().write_rows).sum()
    }

    #[test]
    fn writes_land_in_their_time_bucket_and_key() {
        let mut t = TableTraffic::default();
        t.note_write(5, b"a", 10);
        t.note_write(9_999_999, b"a", 10);
        t.note_write(10_000_000, b"b", 7);
        let buckets: Vec<&TrafficBucket> = t.buckets().collect();
        assert_eq!(buckets.len(), 2);
        assert_eq!(buckets[0].start_micros, 0);
        let spans = buckets[0].spans();
        assert_eq!(spans.len(), 1);
        assert_eq!(spans[0].first_key(), b"a");
        assert_eq!(spans[0].counts.write_rows, 2.0);
        assert_eq!(spans[0].counts.write_bytes, 20.0);
        assert_eq!(buckets[1].spans()[0].first_key(), b"b");
    }

    #[test]
    fn many_keys_stay_bounded_and_keep_their_totals() {
        let mut t = TableTraffic::default();
        for i in 0..10_000u32 {
            t.note_write(0, format!("k{:05}", (i * 7919) % 10_000).as_bytes(), 1);
        }
        let b = t.buckets().next().unwrap();
        let spans = b.spans();
        assert!(spans.len() <= MAX_SPANS, "{} spans", spans.len());
        assert!(spans.windows(2).all(|w| w[0].lo <= w[1].lo));
        assert_eq!(total_writes(&t), 10_000.0);
        assert_eq!(spans[0].first_key(), b"k00000");
    }

    #[test]
    fn a_prefix_read_is_one_span_over_the_prefix() {
        let mut t = TableTraffic::default();
        let counts = TrafficCounts {
            scans: 1.0,
            read_rows: 3.0,
            ..TrafficCounts::default()
        };
        t.note_range(0, b"phone#4c41", Some(b"phone#4c42"), counts);
        let s = t.buckets().next().unwrap().spans()[0];
        assert_eq!(s.first_key(), b"phone#4c41");
        let last = s.last_key().unwrap();
        assert!(last.as_slice() > b"phone#4c41\xff".as_slice());
        assert!(last.as_slice() < b"phone#4c42".as_slice());
        t.note_range(0, b"", None, counts);
        assert!(t.buckets().next().unwrap().spans()[0].last_key().is_none());
    }

    #[test]
    fn old_buckets_are_forgotten_and_a_clock_going_back_adds_to_the_last() {
        let mut t = TableTraffic::default();
        for i in 0..(MAX_TRAFFIC_BUCKETS as i64 + 5) {
            t.note_write(i * TRAFFIC_BUCKET_MICROS, b"k", 1);
        }
        assert_eq!(t.buckets().count(), MAX_TRAFFIC_BUCKETS);
        assert_eq!(
            t.buckets().next().unwrap().start_micros,
            5 * TRAFFIC_BUCKET_MICROS
        );
        t.note_write(0, b"k", 1);
        assert_eq!(t.buckets().count(), MAX_TRAFFIC_BUCKETS);
        assert_eq!(t.buckets().last().unwrap().totals().write_rows, 2.0);
    }
}
