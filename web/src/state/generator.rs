//! The data generator: sample data written into the core a slice at a time
//! (slices back to back, each in a time budget paced by
//! [`load_pace`](super::load_pace)), so the page stays responsive while a
//! million rows go in.
//!
//! The data is the phone and tablet time series of Bigtable's schema
//! guide: keys `phone#4c410523#20200501` (device type, device id, day),
//! a `stats_summary` family keeping one version and a `stats_detail`
//! family keeping three. Every row is a pure function of the seed and its
//! number, so a share link only needs the settings to bring the same data
//! back.
//!
//! The rows go in key order (device by device, each device's days in
//! turn) rather than in their numbers' order (day by day), and through
//! the store's sorted import: each batch then lands past everything the
//! table holds and becomes compacted, split tablets directly, with no
//! memtable, flush or compaction on the way. The rows are the same; only
//! the order they arrive in (and so what a cancelled load keeps) differs.

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use tabletop_core::{
    ColumnFamily, CreateTableRequest, FamilyChange, GcRule, Instance, MutateRowsEntry, Mutation,
    TableSchema,
};

use super::load_pace::LoadPace;
use crate::view_model::format::civil_from_days;

/// The sizes offered in the panel.
pub const SIZES: [u64; 4] = [1_000, 10_000, 100_000, 1_000_000];
/// Most rows one load may write.
pub const MAX_ROWS: u64 = 2_000_000;
/// Most rows written per import call (the pacing sizes each batch to
/// the time left). Large, because each batch that appends to the table's
/// last tablet copies that tablet's rows (at most a split's worth) once
/// more: the bigger the batch, the smaller that share.
pub const BATCH_ROWS: u64 = 2_000;

/// The family of daily summaries (one version kept).
pub const SUMMARY: &str = "stats_summary";
/// The family of connection details (three versions kept).
pub const DETAIL: &str = "stats_detail";
/// Days of data per device.
pub const DAYS: u64 = 30;
/// 2020-05-01T00:00:00Z in microseconds.
const FIRST_DAY_MICROS: i64 = 1_588_291_200_000_000;
const DAY_MICROS: i64 = 86_400_000_000;
const HOUR_MICROS: i64 = 3_600_000_000;

/// What to generate: a table, how many rows and a seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratorSpec {
    /// The table written to (created, or given the families, if needed).
    pub table: String,
    /// Rows to write.
    pub rows: u64,
    /// Different seeds give different device ids.
    pub seed: u64,
}

impl Default for GeneratorSpec {
    fn default() -> Self {
        GeneratorSpec {
            table: "mobile-time-series".into(),
            rows: 10_000,
            seed: 1,
        }
    }
}

impl GeneratorSpec {
    /// Devices, so that every device has [`DAYS`] rows (the last ones
    /// fewer).
    pub fn devices(&self) -> u64 {
        self.rows.div_ceil(DAYS).max(1)
    }
}

/// A load in progress.
#[derive(Clone, Debug)]
pub struct GeneratorJob {
    /// What is being generated.
    pub spec: GeneratorSpec,
    /// Rows written so far.
    pub done: u64,
    /// How its slices size their batches and when they tick (what it
    /// has learned of the cost per row).
    pub pace: LoadPace,
    /// Where the load is in key order.
    cursor: KeyCursor,
    /// The reused batch and value buffers (over 100 KB once a batch is
    /// written). Shared, not copied, by the state's revisions: every
    /// action clones the state, and a buffer only holds the batch being
    /// written, never what a revision shows.
    buffers: Rc<RefCell<Buffers>>,
}

/// A position in the rows' key order: the device's place among the
/// devices sorted by key, and the day.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct KeyCursor {
    place: usize,
    day: u64,
}

/// A job's reused buffers.
#[derive(Debug, Default)]
struct Buffers {
    /// The device numbers in the order of their keys (made at the
    /// load's first batch).
    devices: Vec<u32>,
    /// The batch being written.
    batch: RowBatch,
    /// Cell values being made.
    scratch: Vec<u8>,
}

impl PartialEq for GeneratorJob {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec && self.done == other.done
    }
}

impl Eq for GeneratorJob {}

fn mix(mut x: u64) -> u64 {
    // SplitMix64's finaliser: a good, cheap, deterministic scrambler.
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// One generated row: its key and cells (family, qualifier, timestamp,
/// value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedRow {
    /// `phone#4c410523#20200501`.
    pub key: String,
    /// The cells.
    pub cells: Vec<(&'static str, &'static str, i64, String)>,
}

/// One cell of a [`RowBatch`]: its column, timestamp and where its value
/// lies in the batch's value arena.
#[derive(Clone, Debug)]
struct BatchCell {
    family: &'static str,
    qualifier: &'static str,
    ts: i64,
    value: std::ops::Range<usize>,
}

/// Generated rows in two arenas (keys, values) and one cell list, reused
/// from batch to batch, so writing a million rows allocates nothing per
/// row once the arenas have grown.
#[derive(Clone, Debug, Default)]
pub struct RowBatch {
    keys: Vec<u8>,
    /// Per row: its key's range and its cells' range.
    rows: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
    values: Vec<u8>,
    cells: Vec<BatchCell>,
}

impl RowBatch {
    fn clear(&mut self) {
        self.keys.clear();
        self.rows.clear();
        self.values.clear();
        self.cells.clear();
    }

    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the batch holds no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The batch as MutateRows entries (one SetCell per cell), borrowing it.
    pub fn entries(&self) -> Vec<MutateRowsEntry<'_>> {
        self.rows
            .iter()
            .map(|(key, cells)| MutateRowsEntry {
                row_key: self.keys.get(key.clone()).unwrap_or_default().into(),
                mutations: self
                    .cells
                    .get(cells.clone())
                    .unwrap_or_default()
                    .iter()
                    .map(|c| {
                        Mutation::set_cell(
                            c.family,
                            c.qualifier.as_bytes(),
                            c.ts,
                            self.values.get(c.value.clone()).unwrap_or_default(),
                        )
                    })
                    .collect(),
            })
            .collect()
    }

    /// Row `i` as owned strings (for tests and the single-row helper).
    fn row(&self, i: usize) -> Option<GeneratedRow> {
        let (key, cells) = self.rows.get(i)?.clone();
        let text = |r: std::ops::Range<usize>, arena: &[u8]| {
            String::from_utf8_lossy(arena.get(r).unwrap_or_default()).into_owned()
        };
        Some(GeneratedRow {
            key: text(key, &self.keys),
            cells: self
                .cells
                .get(cells)
                .unwrap_or_default()
                .iter()
                .map(|c| {
                    (
                        c.family,
                        c.qualifier,
                        c.ts,
                        text(c.value.clone(), &self.values),
                    )
                })
                .collect(),
        })
    }

    fn push_cell(&mut self, family: &'static str, qualifier: &'static str, ts: i64, value: &[u8]) {
        let start = self.values.len();
        self.values.extend_from_slice(value);
        self.cells.push(BatchCell {
            family,
            qualifier,
            ts,
            value: start..self.values.len(),
        });
    }
}

/// Appends `n` as `width` decimal digits, zero-padded (wider numbers keep
/// their low digits).
fn push_digits(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let start = out.len();
    out.resize(start + width, b'0');
    for slot in out[start..].iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// Appends `n` as eight lower-case hex digits.
fn push_hex8(out: &mut Vec<u8>, n: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for shift in (0..8).rev() {
        out.push(HEX[((n >> (shift * 4)) & 0xf) as usize]);
    }
}

/// An Android build name such as `PQ2A.190405.003`.
fn push_build(out: &mut Vec<u8>, day_of_month: u64, patch: u64) {
    out.extend_from_slice(b"PQ2A.1904");
    push_digits(out, day_of_month, 2);
    out.push(b'.');
    push_digits(out, patch, 3);
}

/// The kind and id of device `device`, as its key shows them.
fn device_key(spec: &GeneratorSpec, device: u64) -> (bool, u32) {
    let h = mix(spec.seed ^ mix(device));
    let id = (device as u32).wrapping_mul(0x9e37_79b1) ^ (mix(spec.seed) as u32);
    (h.is_multiple_of(4), id)
}

/// The device numbers of `spec` in the order of their keys (`phone#`
/// before `tablet#`, then by id; a device's rows differ only in their
/// date, which sorts as the day).
fn devices_in_key_order(spec: &GeneratorSpec) -> Vec<u32> {
    let mut devices: Vec<(u64, u32)> = (0..spec.devices())
        .map(|d| {
            let (tablet, id) = device_key(spec, d);
            ((u64::from(tablet) << 32) | u64::from(id), d as u32)
        })
        .collect();
    devices.sort_unstable();
    devices.into_iter().map(|(_, d)| d).collect()
}

/// Appends up to `n` more rows of `spec` to `batch` in key order from
/// `cursor` (moved past them); returns how many it appended.
fn push_in_key_order(
    spec: &GeneratorSpec,
    devices: &[u32],
    cursor: &mut KeyCursor,
    n: u64,
    batch: &mut RowBatch,
    scratch: &mut Vec<u8>,
) -> u64 {
    let per_day = spec.devices();
    let mut pushed = 0;
    while pushed < n {
        let Some(&device) = devices.get(cursor.place) else {
            break;
        };
        let i = cursor.day * per_day + u64::from(device);
        if cursor.day >= DAYS || i >= spec.rows {
            *cursor = KeyCursor {
                place: cursor.place + 1,
                day: 0,
            };
            continue;
        }
        push_row(spec, i, batch, scratch);
        cursor.day += 1;
        pushed += 1;
    }
    pushed
}

/// Row number `i` of `spec`: rows arrive day by day, every device once a
/// day, as a real fleet would send them.
pub fn row(spec: &GeneratorSpec, i: u64) -> GeneratedRow {
    let mut batch = RowBatch::default();
    push_row(spec, i, &mut batch, &mut Vec::new());
    batch.row(0).unwrap_or(GeneratedRow {
        key: String::new(),
        cells: Vec::new(),
    })
}

/// Appends row number `i` of `spec` to `batch` (`scratch` is a reused
/// buffer for the cell values).
fn push_row(spec: &GeneratorSpec, i: u64, batch: &mut RowBatch, scratch: &mut Vec<u8>) {
    let devices = spec.devices();
    let day = i / devices;
    let device = i % devices;
    let h = mix(spec.seed ^ mix(device));
    let kind: &[u8] = if h.is_multiple_of(4) {
        b"tablet"
    } else {
        b"phone"
    };
    // Lossless: both fit easily (day < MAX_ROWS, h % 24 < 24).
    let day_i = i64::try_from(day).unwrap_or(0);
    let hour = i64::try_from(h % 24).unwrap_or(0);
    let (y, m, d) = civil_from_days(FIRST_DAY_MICROS / DAY_MICROS + day_i);
    // A bijection of the device number (odd multiplier, then xor), so no
    // two devices share an id.
    let id = (device as u32).wrapping_mul(0x9e37_79b1) ^ (mix(spec.seed) as u32);
    let key_start = batch.keys.len();
    batch.keys.extend_from_slice(kind);
    batch.keys.push(b'#');
    push_hex8(&mut batch.keys, id);
    batch.keys.push(b'#');
    // The civil date of a day after 2020: all three are positive.
    push_digits(&mut batch.keys, y.unsigned_abs(), 4);
    push_digits(&mut batch.keys, m.unsigned_abs(), 2);
    push_digits(&mut batch.keys, d.unsigned_abs(), 2);
    let ts = FIRST_DAY_MICROS + day_i * DAY_MICROS + hour * HOUR_MICROS;
    let r = mix(h ^ day);
    let cells_start = batch.cells.len();
    if device % 8 == 3 {
        // An update that replaced an earlier build the same day: the family
        // keeps one version, so the old one waits for garbage collection.
        scratch.clear();
        push_build(scratch, r % 28, (r >> 8) % 8);
        batch.push_cell(SUMMARY, "os_build", ts - HOUR_MICROS, scratch);
    }
    scratch.clear();
    push_build(scratch, 1 + r % 28, (r >> 8) % 8);
    batch.push_cell(SUMMARY, "os_build", ts, scratch);
    let bit = |shift: u32| if (r >> shift) & 1 == 1 { b"1" } else { b"0" };
    batch.push_cell(DETAIL, "connected_cell", ts, bit(16));
    batch.push_cell(DETAIL, "connected_wifi", ts, bit(17));
    batch
        .rows
        .push((key_start..batch.keys.len(), cells_start..batch.cells.len()));
}

/// The families the generated rows need.
pub fn families() -> Vec<(String, ColumnFamily)> {
    vec![
        (
            SUMMARY.to_string(),
            ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
        ),
        (
            DETAIL.to_string(),
            ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(3))),
        ),
    ]
}

/// Makes sure the table exists with the families the rows need.
pub fn prepare(instance: &mut Instance, table: &str) -> Result<(), String> {
    match instance.get_table(table) {
        Err(_) => {
            let schema = TableSchema {
                families: families().into_iter().collect(),
            };
            instance
                .create_table(CreateTableRequest {
                    table_id: table.to_string(),
                    schema,
                    initial_splits: Vec::new(),
                })
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        Ok(info) => {
            let missing: Vec<FamilyChange> = families()
                .into_iter()
                .filter(|(name, _)| !info.schema.families.contains_key(name))
                .map(|(name, family)| FamilyChange::Create(name, family))
                .collect();
            if missing.is_empty() {
                return Ok(());
            }
            instance
                .modify_column_families(table, &missing)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
}

impl GeneratorJob {
    /// A job that has written nothing yet.
    pub fn new(spec: GeneratorSpec) -> GeneratorJob {
        GeneratorJob {
            spec,
            done: 0,
            pace: LoadPace::default(),
            cursor: KeyCursor::default(),
            buffers: Rc::default(),
        }
    }

    /// Whether every row is written.
    pub fn is_done(&self) -> bool {
        self.done >= self.spec.rows
    }

    /// Whether `other` is a revision of this job sharing its buffers.
    #[cfg(test)]
    pub(crate) fn shares_buffers_with(&self, other: &GeneratorJob) -> bool {
        Rc::ptr_eq(&self.buffers, &other.buffers)
    }

    /// Progress from 0.0 to 1.0.
    pub fn fraction(&self) -> f64 {
        if self.spec.rows == 0 {
            return 1.0;
        }
        // Display arithmetic.
        #[allow(clippy::cast_precision_loss)]
        let f = self.done as f64 / self.spec.rows as f64;
        f.min(1.0)
    }

    /// Writes batches until done or `pace` says stop. `pace` is called
    /// before every batch with the instance and the rows the previous
    /// batch wrote (none before the first), and answers how many rows the
    /// next batch may hold (none: the slice ends here; at most
    /// [`BATCH_ROWS`] are written at once). Between two batches the caller
    /// can run the engine's due work as the data grows (a tick after a
    /// whole slice of writes would be one long task) and size the next
    /// batch to the time left.
    pub fn work(
        &mut self,
        instance: &mut Instance,
        pace: &mut dyn FnMut(&mut Instance, u64) -> u64,
    ) -> Result<(), String> {
        if self.done == 0 {
            prepare(instance, &self.spec.table)?;
        }
        let mut buffers = self.buffers.borrow_mut();
        let Buffers {
            devices,
            batch,
            scratch,
        } = &mut *buffers;
        if devices.is_empty() {
            *devices = devices_in_key_order(&self.spec);
        }
        let mut rows = pace(instance, 0);
        while !self.is_done() && rows > 0 {
            let want = rows.min(BATCH_ROWS).min(self.spec.rows - self.done);
            batch.clear();
            let mut cursor = self.cursor;
            let written = push_in_key_order(&self.spec, devices, &mut cursor, want, batch, scratch);
            if written == 0 {
                return Err("the generator ran out of rows before the count".into());
            }
            let entries = batch.entries();
            instance
                .bulk_import(&self.spec.table, &entries)
                .map_err(|e| e.to_string())?;
            self.cursor = cursor;
            self.done += written;
            if self.is_done() {
                break;
            }
            rows = pace(instance, written);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use tabletop_core::{CountRows, ReadRowsRequest};

    use super::*;

    #[test]
    fn rows_are_deterministic_and_look_like_the_guide() {
        let spec = GeneratorSpec::default();
        let first = row(&spec, 0);
        assert_eq!(first, row(&spec, 0));
        assert!(
            first.key.starts_with("phone#") || first.key.starts_with("tablet#"),
            "{}",
            first.key
        );
        assert!(first.key.ends_with("#20200501"), "{}", first.key);
        let next_day = row(&spec, spec.devices());
        assert!(next_day.key.ends_with("#20200502"), "{}", next_day.key);
        assert_eq!(
            next_day.key[..next_day.key.len() - 8],
            first.key[..first.key.len() - 8],
            "the same device the next day"
        );
        let other_seed = GeneratorSpec {
            seed: 2,
            ..spec.clone()
        };
        assert_ne!(row(&other_seed, 0).key, first.key);
        let with_update = row(&spec, 3);
        assert_eq!(with_update.cells.len(), 4);
        assert_eq!(row(&spec, 1).cells.len(), 3);
    }

    /// The rows as they were first written with `format!`: share links
    /// and autosaves rebuild sample data from the seed, so the arena
    /// writer must give the very same bytes.
    fn formatted_row(spec: &GeneratorSpec, i: u64) -> GeneratedRow {
        let devices = spec.devices();
        let (day, device) = (i / devices, i % devices);
        let h = mix(spec.seed ^ mix(device));
        let kind = if h.is_multiple_of(4) {
            "tablet"
        } else {
            "phone"
        };
        let day_i = day as i64;
        let hour = (h % 24) as i64;
        let (y, m, d) = civil_from_days(FIRST_DAY_MICROS / DAY_MICROS + day_i);
        let id = (device as u32).wrapping_mul(0x9e37_79b1) ^ (mix(spec.seed) as u32);
        let ts = FIRST_DAY_MICROS + day_i * DAY_MICROS + hour * HOUR_MICROS;
        let r = mix(h ^ day);
        let mut cells = Vec::new();
        if device % 8 == 3 {
            let old = format!("PQ2A.1904{:02}.{:03}", r % 28, (r >> 8) % 8);
            cells.push((SUMMARY, "os_build", ts - HOUR_MICROS, old));
        }
        let build = format!("PQ2A.1904{:02}.{:03}", 1 + r % 28, (r >> 8) % 8);
        cells.push((SUMMARY, "os_build", ts, build));
        cells.push((DETAIL, "connected_cell", ts, ((r >> 16) & 1).to_string()));
        cells.push((DETAIL, "connected_wifi", ts, ((r >> 17) & 1).to_string()));
        GeneratedRow {
            key: format!("{kind}#{id:08x}#{y:04}{m:02}{d:02}"),
            cells,
        }
    }

    #[test]
    fn the_arena_writer_gives_the_formatted_rows() {
        for seed in [1, 7, u64::MAX] {
            let spec = GeneratorSpec {
                table: "t".into(),
                rows: 1_000_000,
                seed,
            };
            let mut batch = RowBatch::default();
            let mut scratch = Vec::new();
            let picks: Vec<u64> = (0..200).chain([33_333, 499_999, 999_999]).collect();
            for &i in &picks {
                push_row(&spec, i, &mut batch, &mut scratch);
            }
            for (n, &i) in picks.iter().enumerate() {
                assert_eq!(batch.row(n), Some(formatted_row(&spec, i)), "row {i}");
            }
        }
    }

    #[test]
    fn rows_in_key_order_are_the_numbered_rows_sorted() {
        for (rows, seed) in [(1_234, 7), (1_000, 1), (31, 3), (29, 9), (5_000, u64::MAX)] {
            let spec = GeneratorSpec {
                table: "t".into(),
                rows,
                seed,
            };
            let devices = devices_in_key_order(&spec);
            let mut cursor = KeyCursor::default();
            let (mut batch, mut scratch) = (RowBatch::default(), Vec::new());
            // In uneven pieces, as slices ask for them.
            let mut got = Vec::new();
            for n in [1, 7, 500, 64].into_iter().cycle() {
                batch.clear();
                let pushed =
                    push_in_key_order(&spec, &devices, &mut cursor, n, &mut batch, &mut scratch);
                got.extend((0..batch.len()).filter_map(|i| batch.row(i)));
                assert_eq!(pushed as usize, batch.len());
                if pushed < n {
                    break;
                }
            }
            assert!(
                got.windows(2).all(|w| w[0].key < w[1].key),
                "{rows} rows, seed {seed}: keys in order"
            );
            let mut want: Vec<GeneratedRow> = (0..rows).map(|i| row(&spec, i)).collect();
            want.sort_by(|a, b| a.key.cmp(&b.key));
            assert_eq!(got, want, "{rows} rows, seed {seed}");
        }
    }

    #[test]
    fn a_job_writes_every_row_in_slices() {
        let mut db = Instance::default();
        let spec = GeneratorSpec {
            table: "gen".into(),
            rows: 4_567,
            seed: 7,
        };
        let mut job = GeneratorJob::new(spec);
        let mut slices = 0;
        let mut asked = Vec::new();
        while !job.is_done() {
            // Two batches per slice: 300 rows, then 9,000 (capped at
            // BATCH_ROWS).
            let mut calls = 0;
            job.work(&mut db, &mut |_, written| {
                asked.push(written);
                calls += 1;
                match calls {
                    1 => 300,
                    2 => 9_000,
                    _ => 0,
                }
            })
            .unwrap();
            slices += 1;
        }
        assert_eq!(slices, 2, "300 + 2,000, then 300 + 1,967");
        assert_eq!(asked, [0, 300, 2_000, 0, 300], "told what each batch wrote");
        assert!((job.fraction() - 1.0).abs() < f64::EPSILON);
        let mut count = CountRows::default();
        db.read_rows("gen", &ReadRowsRequest::default(), &mut count)
            .unwrap();
        assert_eq!(count.rows, 4_567, "device ids do not collide");
        let families: Vec<String> = db
            .get_table("gen")
            .unwrap()
            .schema
            .families
            .into_keys()
            .collect();
        assert_eq!(families, [DETAIL, SUMMARY]);
    }

    #[test]
    fn existing_tables_get_the_missing_families() {
        let mut db = Instance::default();
        tabletop_core::cbt::run_line(&mut db, "createtable t families=stats_summary,other")
            .unwrap();
        prepare(&mut db, "t").unwrap();
        let families: Vec<String> = db
            .get_table("t")
            .unwrap()
            .schema
            .families
            .into_keys()
            .collect();
        assert_eq!(families, ["other", DETAIL, SUMMARY]);
        let mut job = GeneratorJob::new(GeneratorSpec {
            table: "bad name!".into(),
            rows: 10,
            seed: 1,
        });
        assert!(job.work(&mut db, &mut |_, _| BATCH_ROWS).is_err());
    }
}
