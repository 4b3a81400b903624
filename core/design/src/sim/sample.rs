//! A scenario's rows as a stream: [`SampleRows`] draws rows whose keys
//! follow the scenario's row-key template (entities, times and sequence
//! numbers drawn like the simulated data), a batch at a time, so a host
//! can write a million of them in slices ([`SampleRows::write_batch`])
//! without holding them all. It does not create tables or decide sizes:
//! [`Simulation::table_request`] gives the table, the caller the scale.
//!
//! Deterministic: the same scenario, spec and seed give the same rows in
//! the same order whatever batch sizes the caller asks for.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::Simulation;
use crate::keydesign::{KeyInput, KeyRenderer};
use crate::rng::{Rng, hash_bytes};
use crate::scenario::{KeyDist, OpKind};
use tabletop_sql::Instance;
use tabletop_store::{CreateTableRequest, Error, MutateRowsEntry, Mutation, Result};

/// Most rows one [`SampleRows`] stream writes.
pub const MAX_SAMPLE_ROWS: u64 = 2_000_000;
/// Most initial split keys [`Simulation::table_request`] gives a table.
pub const MAX_INITIAL_SPLITS: usize = 100;
/// The qualifier of every generated cell.
pub const SAMPLE_QUALIFIER: &[u8] = b"v";
/// Largest generated cell value, in bytes (the rows are a sample of the
/// key space; their size is not the point).
pub const MAX_SAMPLE_VALUE_BYTES: usize = 64;

/// Which moment of the run the sample stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleMoment {
    /// The simulation as it is now: the rows existing before the run
    /// plus what it wrote so far (what lessons show).
    Now,
    /// The end of the run: the table's history plus everything the
    /// workloads will have written (what "apply a scenario" shows).
    EndOfRun,
}

/// What to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleSpec {
    /// Distinct rows wanted (capped at [`MAX_SAMPLE_ROWS`]). Fewer come
    /// out when the key template cannot make that many distinct keys.
    pub rows: u64,
    /// Different seeds give different rows.
    pub seed: u64,
    /// Which moment of the run the rows stand for.
    pub moment: SampleMoment,
}

/// A batch of generated rows: keys and values in two arenas, one
/// timestamp per row. Reused between batches, so a stream allocates
/// nothing per row once the arenas have grown.
#[derive(Clone, Debug, Default)]
pub struct RowBatch {
    keys: Vec<u8>,
    /// End offset of each key in `keys`.
    key_ends: Vec<usize>,
    values: Vec<u8>,
    value_ends: Vec<usize>,
    /// Cell timestamp of each row (microseconds, whole milliseconds).
    timestamps: Vec<i64>,
}

impl RowBatch {
    /// Rows in the batch.
    #[must_use]
    pub fn len(&self) -> usize {
        self.key_ends.len()
    }

    /// Whether the batch is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.key_ends.is_empty()
    }

    /// Appends a row: its key, the value made from `entity` (see
    /// [`push_value`]) and its cell timestamp.
    pub(super) fn push(&mut self, key: &[u8], entity: u64, timestamp: i64, value_bytes: usize) {
        self.keys.extend_from_slice(key);
        self.key_ends.push(self.keys.len());
        push_value(&mut self.values, entity, value_bytes);
        self.value_ends.push(self.values.len());
        self.timestamps.push(timestamp);
    }

    pub(super) fn clear(&mut self) {
        self.keys.clear();
        self.key_ends.clear();
        self.values.clear();
        self.value_ends.clear();
        self.timestamps.clear();
    }

    fn span(ends: &[usize], i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 {
            0
        } else {
            ends.get(i - 1).copied().unwrap_or(0)
        };
        start..ends.get(i).copied().unwrap_or(start)
    }

    /// Row `i`'s key (empty past the end).
    #[must_use]
    pub fn key(&self, i: usize) -> &[u8] {
        self.keys
            .get(Self::span(&self.key_ends, i))
            .unwrap_or_default()
    }

    /// Row `i`'s value (the same in every family).
    #[must_use]
    pub fn value(&self, i: usize) -> &[u8] {
        self.values
            .get(Self::span(&self.value_ends, i))
            .unwrap_or_default()
    }

    /// Row `i`'s cell timestamp in microseconds.
    #[must_use]
    pub fn timestamp(&self, i: usize) -> i64 {
        self.timestamps.get(i).copied().unwrap_or(0)
    }

    /// The rows as MutateRows entries: one `SetCell` per family (column
    /// `family:v`), borrowing the batch.
    #[must_use]
    pub fn entries<'a>(&'a self, families: &'a [String]) -> Vec<MutateRowsEntry<'a>> {
        (0..self.len())
            .map(|i| MutateRowsEntry {
                row_key: self.key(i).into(),
                mutations: families
                    .iter()
                    .map(|f| {
                        Mutation::set_cell(f, SAMPLE_QUALIFIER, self.timestamp(i), self.value(i))
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The hasher of [`SampleRows`]' set of key hashes: the values are
/// already well-mixed 64-bit hashes ([`hash_bytes`]), so hashing them
/// again (the standard set's SipHash was a tenth of a load's time) adds
/// nothing.
#[derive(Clone, Copy, Debug, Default)]
struct KeyHashHasher(u64);

impl Hasher for KeyHashHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Appends `n` in decimal (what `write!` does, without the formatting
/// machinery, which showed in a load's profile).
fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// Appends the value of the row of `entity`: `entity N`, padded with
/// dots (or cut) to `value_bytes`.
fn push_value(out: &mut Vec<u8>, entity: u64, value_bytes: usize) {
    let start = out.len();
    out.extend_from_slice(b"entity ");
    push_decimal(out, entity);
    out.resize(start + value_bytes, b'.');
}

/// A row as drawn: the key is in the stream's key buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Drawn {
    /// The entity the row is about (its value is made from it).
    pub entity: u64,
    /// The cell timestamp in microseconds.
    pub timestamp: i64,
}

/// One of the instance's bulk paths ([`Instance::bulk_write`],
/// [`Instance::bulk_import`]).
type BulkWrite = fn(&mut Instance, &str, &[MutateRowsEntry<'_>]) -> Result<()>;

/// A resumable stream of a scenario's rows (see the module docs).
#[derive(Clone, Debug)]
pub struct SampleRows {
    renderer: KeyRenderer,
    rng: Rng,
    families: Vec<String>,
    target: u64,
    /// Draws left before giving up on distinct keys.
    attempts_left: u64,
    /// Hashes of the keys drawn so far (duplicates are skipped).
    seen: HashSet<u64, BuildHasherDefault<KeyHashHasher>>,
    population: u64,
    /// Simulated seconds since the scenario's start of the latest row.
    now: f64,
    /// Seconds of history before the start.
    span_back: f64,
    start_micros: i64,
    /// Added to every cell timestamp (see [`SampleRows::cells_end_at`]).
    cell_shift_micros: i64,
    op_seq: u64,
    value_bytes: usize,
    key: Vec<u8>,
    batch: RowBatch,
}

impl Simulation {
    /// The CreateTable request of the scenario's table under `table_id`:
    /// its families and GC rules, split at the simulated tablets'
    /// boundaries (at most [`MAX_INITIAL_SPLITS`]).
    #[must_use]
    pub fn table_request(&self, table_id: &str) -> CreateTableRequest {
        let mut splits: Vec<Vec<u8>> = self
            .cluster
            .tablets
            .iter()
            .skip(1)
            .map(|t| self.axis.start(t.lo as usize).to_vec())
            .filter(|k| !k.is_empty())
            .collect();
        if splits.len() > MAX_INITIAL_SPLITS {
            let step = splits.len() as f64 / MAX_INITIAL_SPLITS as f64;
            splits = (0..MAX_INITIAL_SPLITS)
                .filter_map(|i| splits.get((i as f64 * step) as usize).cloned())
                .collect();
        }
        splits.dedup();
        CreateTableRequest {
            table_id: table_id.to_string(),
            schema: self.table_schema(),
            initial_splits: splits,
        }
    }

    /// A stream of the scenario's rows (see [`SampleRows`]).
    #[must_use]
    pub fn sample_rows(&self, spec: SampleSpec) -> SampleRows {
        let s = &self.scenario;
        let target = spec.rows.min(MAX_SAMPLE_ROWS);
        let (population, now, op_seq) = match spec.moment {
            SampleMoment::Now => (
                (self.next_entity as u64).max(s.table.entities),
                self.now_seconds(),
                self.op_seq as u64,
            ),
            SampleMoment::EndOfRun => {
                let sequential: f64 = self
                    .drivers
                    .iter()
                    .filter(|d| d.spec.op == OpKind::Write && d.spec.keys == KeyDist::Sequential)
                    .map(|d| d.expected)
                    .sum();
                let writes: f64 = self
                    .drivers
                    .iter()
                    .filter(|d| d.spec.op == OpKind::Write)
                    .map(|d| d.expected)
                    .sum();
                (
                    s.table.entities + sequential as u64,
                    self.duration_seconds(),
                    (self.op_seq + writes) as u64,
                )
            }
        };
        let families: Vec<String> = self.table_schema().families.into_keys().collect();
        let value_bytes =
            (s.table.row_bytes as usize / families.len().max(1)).clamp(1, MAX_SAMPLE_VALUE_BYTES);
        SampleRows {
            renderer: self.renderer.clone(),
            // Stream 7 with the scenario's seed is what lessons have
            // always drawn; other seeds move the whole stream.
            rng: Rng::new(s.seed ^ spec.seed, 7),
            families,
            target,
            attempts_left: target.saturating_mul(2),
            // Grown as rows come (a million-row stream would otherwise
            // reserve its whole set at once).
            seen: HashSet::default(),
            population,
            now,
            span_back: self.history,
            start_micros: s.start.0,
            cell_shift_micros: 0,
            op_seq,
            value_bytes,
            key: Vec::with_capacity(64),
            batch: RowBatch::default(),
        }
    }
}

impl SampleRows {
    /// Distinct rows drawn so far.
    #[must_use]
    pub fn rows(&self) -> u64 {
        self.seen.len() as u64
    }

    /// Rows asked for (after the cap).
    #[must_use]
    pub fn target(&self) -> u64 {
        self.target
    }

    /// Whether the stream is over: every row drawn, or the key template
    /// ran out of new keys.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.rows() >= self.target || self.attempts_left == 0
    }

    /// Progress from 0.0 to 1.0.
    #[must_use]
    pub fn fraction(&self) -> f64 {
        if self.is_done() || self.target == 0 {
            1.0
        } else {
            self.rows() as f64 / self.target as f64
        }
    }

    /// Moves the cells' timestamps (not the keys) so that the sample's
    /// latest moment is `now_micros`: a host whose clock is not the
    /// scenario's keeps cells young enough for age-based GC rules, as
    /// they would be in the scenario. The key's time segments stay the
    /// scenario's.
    #[must_use]
    pub fn cells_end_at(mut self, now_micros: i64) -> SampleRows {
        let latest = self.start_micros + (self.now * 1e6) as i64;
        self.cell_shift_micros = now_micros - latest;
        self
    }

    /// The families every row has a cell in.
    #[must_use]
    pub fn families(&self) -> &[String] {
        &self.families
    }

    /// Draws up to `max_rows` more distinct rows into the stream's batch
    /// and returns it (empty when the stream is over).
    pub fn next_batch(&mut self, max_rows: usize) -> &RowBatch {
        self.batch.clear();
        while self.batch.len() < max_rows && !self.is_done() {
            self.draw();
        }
        &self.batch
    }

    /// Draws one row; adds it to the batch unless its key came before.
    fn draw(&mut self) {
        if let Some(row) = self.draw_row() {
            let b = &mut self.batch;
            b.push(&self.key, row.entity, row.timestamp, self.value_bytes);
        }
    }

    /// The bytes of each row's value.
    pub(super) fn value_bytes(&self) -> usize {
        self.value_bytes
    }

    /// The key of the row [`SampleRows::draw_row`] drew last.
    pub(super) fn last_key(&self) -> &[u8] {
        &self.key
    }

    /// Draws one row (one attempt): `None` when its key came before or
    /// the stream is over, else the row, whose key is
    /// [`SampleRows::last_key`].
    pub(super) fn draw_row(&mut self) -> Option<Drawn> {
        if self.is_done() {
            return None;
        }
        self.attempts_left = self.attempts_left.saturating_sub(1);
        let rng = &mut self.rng;
        let entity = rng.below(self.population);
        let at = self.now - rng.next_f64() * (self.span_back + self.now);
        let time_micros = self.start_micros + (at * 1e6) as i64;
        let input = KeyInput {
            entity,
            time_micros,
            op_seq: rng.below(self.op_seq.max(1)),
            op_random: rng.next_u64(),
        };
        self.renderer.render(&input, &mut self.key);
        if !self.seen.insert(hash_bytes(0x5a3e, &self.key)) {
            return None;
        }
        let ts = time_micros.saturating_add(self.cell_shift_micros);
        Some(Drawn {
            entity,
            timestamp: (ts / 1000).max(0) * 1000,
        })
    }

    /// Draws up to `max_rows` rows and writes them into `table_id` with
    /// one bulk write (MutateRows' result, checked as a batch, written in
    /// key order). Returns the rows written (0 when the stream is over).
    /// A refused batch stops the stream with its error; nothing of that
    /// batch is written.
    pub fn write_batch(
        &mut self,
        db: &mut Instance,
        table_id: &str,
        max_rows: usize,
    ) -> Result<usize> {
        self.write_by(db, table_id, max_rows, Instance::bulk_write)
    }

    /// [`SampleRows::write_batch`] through the store's sorted import
    /// ([`Instance::bulk_import`]): the same rows, read back the same;
    /// where a batch's rows come after everything their tablet holds,
    /// they become its compacted run directly.
    pub fn import_batch(
        &mut self,
        db: &mut Instance,
        table_id: &str,
        max_rows: usize,
    ) -> Result<usize> {
        self.write_by(db, table_id, max_rows, Instance::bulk_import)
    }

    fn write_by(
        &mut self,
        db: &mut Instance,
        table_id: &str,
        max_rows: usize,
        write: BulkWrite,
    ) -> Result<usize> {
        let families = std::mem::take(&mut self.families);
        let result = self.write_with(db, table_id, max_rows, &families, write);
        self.families = families;
        result
    }

    fn write_with(
        &mut self,
        db: &mut Instance,
        table_id: &str,
        max_rows: usize,
        families: &[String],
        write: BulkWrite,
    ) -> Result<usize> {
        let batch = self.next_batch(max_rows);
        if batch.is_empty() {
            return Ok(0);
        }
        let entries = batch.entries(families);
        if let Err(e) = write(db, table_id, &entries) {
            self.attempts_left = 0;
            return Err(Error::new(
                e.code(),
                format!("writing the scenario's rows: {}", e.message()),
            ));
        }
        Ok(entries.len())
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::keydesign::SegmentKind;
    use tabletop_store::{CountRows, ReadRowsRequest};

    use crate::sim::fixtures::MOBILE_WRITES as SCENARIO;

    fn sim() -> Simulation {
        Simulation::from_toml(SCENARIO).unwrap()
    }

    fn spec(rows: u64, seed: u64) -> SampleSpec {
        SampleSpec {
            rows,
            seed,
            moment: SampleMoment::EndOfRun,
        }
    }

    fn all_keys(stream: &mut SampleRows, batch: usize) -> Vec<Vec<u8>> {
        let mut keys = Vec::new();
        loop {
            let b = stream.next_batch(batch);
            if b.is_empty() {
                return keys;
            }
            keys.extend((0..b.len()).map(|i| b.key(i).to_vec()));
        }
    }

    #[test]
    fn decimals_are_written_as_format_would() {
        for n in [0u64, 7, 10, 99_999, 1 << 40, u64::MAX] {
            let mut out = b"entity ".to_vec();
            push_decimal(&mut out, n);
            assert_eq!(out, format!("entity {n}").into_bytes());
        }
        let mut hasher = KeyHashHasher::default();
        hasher.write_u64(0xdead_beef);
        assert_eq!(hasher.finish(), 0xdead_beef, "a key hash is its own hash");
    }

    #[test]
    fn keys_follow_the_template() {
        let sim = sim();
        let template = &sim.scenario().key;
        let mut stream = sim.sample_rows(spec(500, 1));
        let keys = all_keys(&mut stream, 64);
        assert_eq!(keys.len(), 500);
        for key in &keys {
            let parts = template.split_key(key);
            assert_eq!(parts.len(), 3, "{}", String::from_utf8_lossy(key));
            let text = |i: usize| &key[parts[i].range.clone()];
            assert!(
                [&b"phone"[..], b"tablet"].contains(&text(0)),
                "{}",
                String::from_utf8_lossy(key)
            );
            assert_eq!(text(1).len(), 8);
            assert!(text(1).iter().all(u8::is_ascii_hexdigit));
            assert_eq!(text(2).len(), 8, "a yyyymmdd day");
            assert!(text(2).iter().all(u8::is_ascii_digit));
        }
        assert!(matches!(
            template.segments[1].kind,
            SegmentKind::Hex { width: 8, .. }
        ));
    }

    #[test]
    fn the_stream_is_deterministic_whatever_the_batch_size() {
        let sim = sim();
        let a = all_keys(&mut sim.sample_rows(spec(1000, 3)), 7);
        let b = all_keys(&mut sim.sample_rows(spec(1000, 3)), 500);
        assert_eq!(a, b);
        let other = all_keys(&mut sim.sample_rows(spec(1000, 4)), 500);
        assert_ne!(a, other, "another seed, other rows");
        let distinct: HashSet<&Vec<u8>> = a.iter().collect();
        assert_eq!(distinct.len(), a.len(), "no key twice");
    }

    #[test]
    fn the_scale_is_respected_and_capped() {
        let sim = sim();
        let mut stream = sim.sample_rows(spec(2_345, 1));
        assert!(stream.fraction() < 0.01);
        let mut batches = 0;
        while !stream.next_batch(1000).is_empty() {
            batches += 1;
        }
        assert_eq!(batches, 3);
        assert_eq!(stream.rows(), 2_345);
        assert!(stream.is_done());
        assert!((stream.fraction() - 1.0).abs() < f64::EPSILON);
        assert_eq!(sim.sample_rows(spec(u64::MAX, 1)).target(), MAX_SAMPLE_ROWS);
    }

    #[test]
    fn a_small_key_space_ends_the_stream_early() {
        let text = SCENARIO.replace(
            r#"{ name = "id", kind = "hex", width = 8 },
  { name = "day", kind = "date" },"#,
            "",
        );
        let sim = Simulation::from_toml(&text).unwrap();
        let mut stream = sim.sample_rows(spec(100, 1));
        let keys = all_keys(&mut stream, 10);
        assert_eq!(keys.len(), 2, "only phone and tablet exist");
        assert!(stream.is_done());
    }

    #[test]
    fn imported_batches_read_back_as_written_ones() {
        let sim = sim();
        let mut written = Instance::default();
        let mut imported = Instance::default();
        for db in [&mut written, &mut imported] {
            db.create_table(sim.table_request("copy")).unwrap();
        }
        let mut a = sim.sample_rows(spec(3_000, 4));
        let mut b = sim.sample_rows(spec(3_000, 4));
        while a.write_batch(&mut written, "copy", 700).unwrap() > 0 {}
        while b.import_batch(&mut imported, "copy", 700).unwrap() > 0 {}
        let read = |db: &mut Instance| {
            let mut rows = tabletop_store::CollectRows::default();
            db.read_rows("copy", &ReadRowsRequest::default(), &mut rows)
                .unwrap();
            rows.rows
        };
        let rows = read(&mut written);
        assert_eq!(rows.len(), 3_000);
        assert_eq!(read(&mut imported), rows);
        let err = b.import_batch(&mut imported, "nope", 5);
        assert!(err.is_ok_and(|n| n == 0), "the stream is over");
        let mut c = sim.sample_rows(spec(5, 4));
        let err = c.import_batch(&mut imported, "nope", 5).unwrap_err();
        assert!(err.message().contains("scenario's rows"), "{err}");
    }

    #[test]
    fn batches_are_valid_mutate_rows_requests() {
        let sim = sim();
        let mut db = Instance::default();
        let request = sim.table_request("copy");
        assert!(request.initial_splits.len() <= MAX_INITIAL_SPLITS);
        db.create_table(request).unwrap();
        let mut stream = sim.sample_rows(spec(3_000, 9));
        let mut written = 0;
        loop {
            let n = stream.write_batch(&mut db, "copy", 1024).unwrap();
            if n == 0 {
                break;
            }
            written += n;
        }
        assert_eq!(written, 3_000);
        let mut count = CountRows::default();
        db.read_rows("copy", &ReadRowsRequest::default(), &mut count)
            .unwrap();
        assert_eq!(count.rows, 3_000);
        assert_eq!(count.cells, 6_000, "one cell per family");
        // The batch's entries carry one SetCell per family, whole
        // milliseconds, a bounded value.
        let mut stream = sim.sample_rows(spec(5, 9));
        let families = stream.families().to_vec();
        let batch = stream.next_batch(5);
        let entries = batch.entries(&families);
        assert_eq!(entries.len(), 5);
        for (i, e) in entries.iter().enumerate() {
            assert_eq!(e.mutations.len(), 2);
            assert_eq!(batch.timestamp(i) % 1000, 0);
            assert!(batch.value(i).starts_with(b"entity "));
            assert!(batch.value(i).len() <= MAX_SAMPLE_VALUE_BYTES);
        }
        // Cells can be moved to another clock; keys stay the scenario's.
        let now = 1_800_000_000_000_000;
        let mut moved = sim.sample_rows(spec(5, 9)).cells_end_at(now);
        let shifted = moved.next_batch(5);
        assert_eq!(shifted.key(0), batch.key(0));
        let ts = shifted.timestamp(0);
        // Within the sample's span: the table's history and the run.
        let span = ((sim.history + sim.duration_seconds()) * 1e6) as i64;
        assert!(ts <= now && ts >= now - span - 1000, "{ts} against {now}");
        // A table that is not there: a clear error, nothing written.
        let mut stream = sim.sample_rows(spec(5, 9));
        let err = stream.write_batch(&mut db, "nope", 5).unwrap_err();
        assert!(err.message().contains("scenario's rows"), "{err}");
    }
}
