//! Benchmarks of the Tabletop core on the "mobile time series" data set of
//! Bigtable's schema-design guide, beside a naive baseline (one `BTreeMap`
//! entry per cell), in one run.
//!
//! The same code runs natively (`src/bin/tabletop-bench.rs`) and as wasm
//! under Node (`run_bench`, exported with wasm-bindgen); the host supplies
//! the clock. A counting global allocator reports live heap bytes and
//! allocation calls, natively and in wasm alike.

// A global allocator needs unsafe; it only forwards to `System`.
#![allow(unsafe_code)]

mod change_stream;
pub mod ingest;
mod naive;
pub mod sim;
mod traffic;
pub mod warm;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use tabletop_core::{
    ColumnFamily, CountRows, CreateTableRequest, DropTarget, EngineConfig, Instance,
    InstanceConfig, KeyBound, Mutation, ReadRowsRequest, RowFilter, RowRange, RowSet, TableSchema,
};

pub use naive::Naive;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CALLS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the
// wrapper only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        CALLS.fetch_add(1, Ordering::Relaxed);
        if new_size >= layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                - layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap bytes currently allocated.
#[must_use]
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Allocation calls so far.
#[must_use]
pub fn allocation_calls() -> u64 {
    CALLS.load(Ordering::Relaxed)
}

fn reset_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

fn peak_bytes() -> usize {
    PEAK.load(Ordering::Relaxed)
}

const SUMMARY: &str = "stats_summary";
const DETAIL: &str = "stats_detail";
const QUALIFIERS: [&[u8]; 9] = [
    b"connected_cell",
    b"connected_wifi",
    b"os_build",
    b"battery_level",
    b"cpu_usage",
    b"memory_usage",
    b"signal_strength",
    b"storage_free",
    b"data_sent",
];
/// Days per month and months per device: a month prefix holds ten rows.
const DAYS: u32 = 10;
const MONTHS: u32 = 5;

/// One cell of the data set, as offsets into [`MobileData::buf`].
#[derive(Clone, Copy, Debug)]
struct CellSpec {
    qual: u8,
    val_off: u32,
    val_len: u8,
}

/// One row of the data set.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowSpec {
    key_off: u32,
    key_len: u8,
    first_cell: u32,
    cells: u8,
    ts: i64,
}

/// The mobile time series data set, generated once into flat buffers so
/// that loading measures the engine, not the generator.
///
/// Row keys are `phone#4c410523#20200501` style (device type, device id,
/// day); `stats_summary` holds three cells per row and `stats_detail` four
/// to six (7.75 cells per row on average). Rows are listed in arrival order:
/// every device's data for one day, then the next day.
pub struct MobileData {
    buf: Vec<u8>,
    rows: Vec<RowSpec>,
    cells: Vec<CellSpec>,
    /// Distinct `type#device#yyyymm` prefixes.
    month_prefixes: Vec<(u32, u8)>,
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

impl MobileData {
    /// About `rows` rows (rounded to whole devices), deterministic.
    #[must_use]
    pub fn generate(rows: usize) -> MobileData {
        let per_device = (DAYS * MONTHS) as usize;
        let devices = rows.div_ceil(per_device).max(1);
        let mut rng = Rng(0x5eed_cafe_f00d_1234);
        let ids: Vec<(bool, u32)> = (0..devices)
            .map(|_| (rng.below(4) != 0, rng.next() as u32))
            .collect();
        let mut data = MobileData {
            buf: Vec::with_capacity(devices * per_device * 120),
            rows: Vec::with_capacity(devices * per_device),
            cells: Vec::with_capacity(devices * per_device * 8),
            month_prefixes: Vec::new(),
        };
        let t_may_2020 = 1_588_291_200_000_000i64;
        for month in 0..MONTHS {
            for day in 0..DAYS {
                let ts = t_may_2020 + i64::from(month * 31 + day) * 86_400_000_000;
                for &(phone, id) in &ids {
                    let key_off = data.buf.len() as u32;
                    let kind = if phone { "phone" } else { "tablet" };
                    let _ = write!(
                        Buf(&mut data.buf),
                        "{kind}#{id:08x}#2020{:02}{:02}",
                        5 + month,
                        1 + day
                    );
                    let key_len = (data.buf.len() as u32 - key_off) as u8;
                    if day == 0 {
                        data.month_prefixes.push((key_off, key_len - 2));
                    }
                    let first_cell = data.cells.len() as u32;
                    let detail = match rng.below(20) {
                        0..=7 => 4,
                        8..=16 => 5,
                        _ => 6,
                    };
                    for q in 0..3 + detail {
                        let val_off = data.buf.len() as u32;
                        let _ = match q {
                            0 | 1 => write!(Buf(&mut data.buf), "{}", rng.below(2)),
                            2 => write!(Buf(&mut data.buf), "PQ2A.1904{:02}.003", rng.below(30)),
                            _ => write!(Buf(&mut data.buf), "{}", rng.below(10_000)),
                        };
                        data.cells.push(CellSpec {
                            qual: q as u8,
                            val_off,
                            val_len: (data.buf.len() as u32 - val_off) as u8,
                        });
                    }
                    data.rows.push(RowSpec {
                        key_off,
                        key_len,
                        first_cell,
                        cells: (3 + detail) as u8,
                        ts,
                    });
                }
            }
        }
        data
    }

    /// Number of rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// Number of cells.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.cells.len()
    }

    /// The newest timestamp of the data set (the last row's).
    fn last_ts(&self) -> i64 {
        self.rows.last().map_or(0, |r| r.ts)
    }

    fn key(&self, r: &RowSpec) -> &[u8] {
        &self.buf[r.key_off as usize..r.key_off as usize + r.key_len as usize]
    }

    fn row_cells(&self, r: &RowSpec) -> &[CellSpec] {
        &self.cells[r.first_cell as usize..r.first_cell as usize + r.cells as usize]
    }

    fn value(&self, c: &CellSpec) -> &[u8] {
        &self.buf[c.val_off as usize..c.val_off as usize + c.val_len as usize]
    }

    fn family(c: &CellSpec) -> &'static str {
        if c.qual < 3 { SUMMARY } else { DETAIL }
    }

    /// Raw bytes stored: row key + family + qualifier + 8-byte timestamp +
    /// value, summed over cells.
    #[must_use]
    pub fn raw_bytes(&self) -> u64 {
        self.rows
            .iter()
            .map(|r| {
                self.row_cells(r)
                    .iter()
                    .map(|c| {
                        (r.key_len as usize
                            + Self::family(c).len()
                            + QUALIFIERS[c.qual as usize].len()
                            + 8
                            + c.val_len as usize) as u64
                    })
                    .sum::<u64>()
            })
            .sum()
    }

    /// `n` existing row keys, chosen deterministically.
    fn sample_keys(&self, n: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut rng = Rng(seed);
        (0..n)
            .map(|_| {
                self.key(&self.rows[rng.below(self.rows.len() as u64) as usize])
                    .to_vec()
            })
            .collect()
    }

    /// `n` month prefixes (`phone#4c410523#202005`), each holding ten rows.
    fn sample_prefixes(&self, n: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut rng = Rng(seed);
        (0..n)
            .map(|_| {
                let (off, len) =
                    self.month_prefixes[rng.below(self.month_prefixes.len() as u64) as usize];
                self.buf[off as usize..off as usize + len as usize].to_vec()
            })
            .collect()
    }
}

struct Buf<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Buf<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// One measured phase.
#[derive(Clone, Debug)]
pub struct Phase {
    /// What was measured.
    pub name: String,
    /// Which store.
    pub store: &'static str,
    /// Wall time in milliseconds.
    pub ms: f64,
    /// Operations (rows or reads) done.
    pub ops: u64,
    /// Free-form detail.
    pub note: String,
}

/// Everything one run measured.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Rows in the data set.
    pub rows: usize,
    /// Cells in the data set.
    pub cells: usize,
    /// Raw bytes of the data set.
    pub raw_bytes: u64,
    /// The phases, in order.
    pub phases: Vec<Phase>,
}

impl Report {
    /// A plain-text table.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "data set: {} rows, {} cells, {:.1} MB raw (key+family+qualifier+8+value per cell)",
            self.rows,
            self.cells,
            self.raw_bytes as f64 / 1e6
        );
        let _ = writeln!(
            s,
            "{:<34} {:<9} {:>11} {:>14}  note",
            "phase", "store", "ms", "per second"
        );
        for p in &self.phases {
            let rate = if p.ms > 0.0 {
                p.ops as f64 / (p.ms / 1000.0)
            } else {
                0.0
            };
            let _ = writeln!(
                s,
                "{:<34} {:<9} {:>11.1} {:>14.0}  {}",
                p.name, p.store, p.ms, rate, p.note
            );
        }
        s
    }
}

/// Runs every benchmark on about `rows` rows. `now_ms` is the host clock.
/// With `baseline`, the naive BTreeMap store is measured too.
pub fn run(rows: usize, baseline: bool, now_ms: &dyn Fn() -> f64) -> Report {
    let data = MobileData::generate(rows);
    let mut report = Report {
        rows: data.rows(),
        cells: data.cells(),
        raw_bytes: data.raw_bytes(),
        phases: Vec::new(),
    };
    let keys = data.sample_keys(1000, 7);
    let prefixes = data.sample_prefixes(1000, 11);
    run_tabletop(&data, &keys, &prefixes, &mut report, now_ms);
    traffic::run(&data, &keys, &prefixes, &mut report, now_ms);
    change_stream::run(&data, &mut report, now_ms);
    if baseline {
        naive::run(&data, &keys, &prefixes, &mut report, now_ms);
    }
    report
}

fn phase(report: &mut Report, store: &'static str, name: &str, ms: f64, ops: u64, note: String) {
    report.phases.push(Phase {
        name: name.to_string(),
        store,
        ms,
        ops,
        note,
    });
}

/// An instance with the engine thresholds `engine`, its clock at the data
/// set's last timestamp, and the empty table `mobile` with the data set's
/// two families.
fn mobile_instance(data: &MobileData, engine: EngineConfig) -> Instance {
    let mut db = Instance::new(InstanceConfig {
        engine,
        ..InstanceConfig::default()
    });
    let mut schema = TableSchema::default();
    schema
        .families
        .insert(SUMMARY.into(), ColumnFamily::default());
    schema
        .families
        .insert(DETAIL.into(), ColumnFamily::default());
    let _ = db.create_table(CreateTableRequest {
        table_id: "mobile".into(),
        schema,
        initial_splits: Vec::new(),
    });
    db.set_now(data.last_ts());
    db
}

/// Writes every row of `data` into `mobile`, one `mutate_row` each, with a
/// tick every 100,000 rows and one at the end; answers the failed writes.
fn load_mobile(db: &mut Instance, data: &MobileData) -> u64 {
    let now = data.last_ts();
    let mut mutations: Vec<Mutation<'_>> = Vec::with_capacity(9);
    let mut errors = 0u64;
    for (i, r) in data.rows.iter().enumerate() {
        mutations.clear();
        for c in data.row_cells(r) {
            mutations.push(Mutation::set_cell(
                MobileData::family(c),
                QUALIFIERS[c.qual as usize],
                r.ts,
                data.value(c),
            ));
        }
        if db.mutate_row("mobile", data.key(r), &mutations).is_err() {
            errors += 1;
        }
        if i % 100_000 == 99_999 {
            db.tick(now);
        }
    }
    db.tick(now);
    errors
}

fn run_tabletop(
    data: &MobileData,
    keys: &[Vec<u8>],
    prefixes: &[Vec<u8>],
    report: &mut Report,
    now_ms: &dyn Fn() -> f64,
) {
    let mut engine = EngineConfig::bulk();
    if let Some(mb) = option_env_u64("TT_FLUSH_MB") {
        engine.memtable_flush_bytes = mb << 20;
    }
    if let Some(mb) = option_env_u64("TT_SPLIT_MB") {
        engine.split_bytes = mb << 20;
    }
    let mut db = mobile_instance(data, engine);

    let heap_before = live_bytes();
    reset_peak();
    let calls_before = allocation_calls();
    let start = now_ms();
    let errors = load_mobile(&mut db, data);
    let load_ms = now_ms() - start;
    let write_calls = allocation_calls() - calls_before;
    let heap = live_bytes() - heap_before;
    let tablets = db.tablets("mobile").map(|t| t.len()).unwrap_or(0);
    phase(
        report,
        "tabletop",
        "bulk load (tick every 100k rows)",
        load_ms,
        data.rows() as u64,
        format!(
            "{:.2} M cells/s, {} tablets, {} errors, {:.4} allocations per cell",
            data.cells() as f64 / load_ms / 1000.0,
            tablets,
            errors,
            write_calls as f64 / data.cells() as f64
        ),
    );
    phase(
        report,
        "tabletop",
        "memory after load",
        0.0,
        0,
        format!(
            "{:.1} MB heap = {:.2}x raw; peak during load {:.1} MB",
            heap as f64 / 1e6,
            heap as f64 / report.raw_bytes as f64,
            (peak_bytes() - heap_before) as f64 / 1e6
        ),
    );

    merging_reads(&mut db, keys, prefixes, report, now_ms);

    let start = now_ms();
    let _ = db.compact(None);
    let ms = now_ms() - start;
    let runs: usize = db
        .tablets("mobile")
        .map(|t| t.iter().map(|t| t.runs.len()).sum())
        .unwrap_or(0);
    phase(
        report,
        "tabletop",
        "major compaction (compact now)",
        ms,
        data.rows() as u64,
        format!(
            "{runs} runs in {tablets} tablets afterwards; heap {:.1} MB = {:.2}x raw",
            (live_bytes() - heap_before) as f64 / 1e6,
            (live_bytes() - heap_before) as f64 / report.raw_bytes as f64
        ),
    );

    // For profiling (`perf record`): the point reads and prefix scans
    // repeated this many times, untimed, before the timed rounds.
    for _ in 0..option_env_u64("TT_READ_ROUNDS").unwrap_or(0) {
        let mut sink = CountRows::default();
        point_reads(&mut db, keys, &mut sink);
        prefix_scans(&mut db, prefixes, &mut sink);
    }

    let mut sink = CountRows::default();
    let start = now_ms();
    point_reads(&mut db, keys, &mut sink);
    let ms = now_ms() - start;
    phase(
        report,
        "tabletop",
        "1000 point reads",
        ms,
        keys.len() as u64,
        format!("{} rows found", sink.rows),
    );

    let mut sink = CountRows::default();
    let start = now_ms();
    prefix_scans(&mut db, prefixes, &mut sink);
    let ms = now_ms() - start;
    phase(
        report,
        "tabletop",
        "1000 prefix scans (10 rows each)",
        ms,
        prefixes.len() as u64,
        format!("{} rows returned", sink.rows),
    );

    let mut sink = CountRows::default();
    let calls_before = allocation_calls();
    let start = now_ms();
    let stats = db.read_rows("mobile", &ReadRowsRequest::default(), &mut sink);
    let ms = now_ms() - start;
    let calls = allocation_calls() - calls_before;
    let seen = stats.map(|s| s.cells_seen).unwrap_or(0);
    phase(
        report,
        "tabletop",
        "full scan",
        ms,
        sink.rows,
        format!(
            "{:.1} M cells/s, {} allocations for {} cells",
            seen as f64 / ms / 1000.0,
            calls,
            seen
        ),
    );

    for (name, filter) in filtered_scans() {
        let mut sink = CountRows::default();
        let req = ReadRowsRequest {
            filter: Some(filter),
            ..ReadRowsRequest::default()
        };
        let calls_before = allocation_calls();
        let start = now_ms();
        let stats = db.read_rows("mobile", &req, &mut sink);
        let ms = now_ms() - start;
        let calls = allocation_calls() - calls_before;
        let seen = stats.map(|s| s.cells_seen).unwrap_or(0);
        phase(
            report,
            "tabletop",
            name,
            ms,
            sink.rows,
            format!(
                "{} of {} cells returned, {} allocations",
                sink.cells, seen, calls
            ),
        );
    }
    phase(
        report,
        "tabletop",
        "memory after the filtered scans",
        0.0,
        0,
        format!(
            "{:.1} MB heap = {:.2}x raw (with the value indexes the first value-regex scan built)",
            (live_bytes() - heap_before) as f64 / 1e6,
            (live_bytes() - heap_before) as f64 / report.raw_bytes as f64
        ),
    );
}

/// Rows written after the load and dropped before the compaction, so that
/// [`merging_reads`] find a memtable beside the load's runs.
const EXTRA_ROWS: &[u8] = b"~merging/";

/// The point reads and prefix scans of the general read path, which merges
/// a tablet's runs and memtable: 1,000 one-cell rows (sorting after every
/// phone's, out of the reads' ranges) are written into the memtable first
/// and dropped after, before the major compaction, so the other phases see
/// the same data. Each figure is the median of five rounds after two
/// untimed ones (a wasm build compiles the read code lazily).
fn merging_reads(
    db: &mut Instance,
    keys: &[Vec<u8>],
    prefixes: &[Vec<u8>],
    report: &mut Report,
    now_ms: &dyn Fn() -> f64,
) {
    for i in 0..1000 {
        let key = [EXTRA_ROWS, format!("{i:04}").as_bytes()].concat();
        let cell = Mutation::set_cell(SUMMARY, b"extra", 1, b"x");
        let _ = db.mutate_row("mobile", &key, &[cell]);
    }
    let sources: usize = db
        .tablets("mobile")
        .map(|t| t.iter().map(|t| t.runs.len() + 1).sum())
        .unwrap_or(0);
    type Reads = fn(&mut Instance, &[Vec<u8>], &mut CountRows);
    let phases: [(&str, Reads, &[Vec<u8>]); 2] = [
        ("1000 point reads, merging", point_reads, keys),
        ("1000 prefix scans, merging", prefix_scans, prefixes),
    ];
    for (name, read, args) in phases {
        let mut times = Vec::with_capacity(5);
        let mut sink = CountRows::default();
        for round in 0..7 {
            sink = CountRows::default();
            let start = now_ms();
            read(db, args, &mut sink);
            if round >= 2 {
                times.push(now_ms() - start);
            }
        }
        times.sort_by(f64::total_cmp);
        phase(
            report,
            "tabletop",
            name,
            times[times.len() / 2],
            sink.rows,
            format!("median of 5 rounds; {sources} sources (runs and memtables) to merge"),
        );
    }
    let _ = db.drop_row_range("mobile", &DropTarget::Prefix(EXTRA_ROWS.to_vec()));
}

/// One read of each key in `mobile`, into `sink`.
fn point_reads(db: &mut Instance, keys: &[Vec<u8>], sink: &mut CountRows) {
    for k in keys {
        let _ = db.read_rows(
            "mobile",
            &ReadRowsRequest::rows(RowSet::single(k.clone())),
            sink,
        );
    }
}

/// One scan of each prefix's rows in `mobile`, into `sink`.
fn prefix_scans(db: &mut Instance, prefixes: &[Vec<u8>], sink: &mut CountRows) {
    for p in prefixes {
        let req = ReadRowsRequest::rows(RowSet::range(RowRange::prefix(p.clone())));
        let _ = db.read_rows("mobile", &req, sink);
    }
}

/// The filtered full scans both stores run: a value regex, a chain of three
/// filters, and the newest version of each column.
fn filtered_scans() -> Vec<(&'static str, RowFilter)> {
    vec![
        (
            "full scan, value regex",
            RowFilter::ValueRegex(VALUE_REGEX.as_bytes().to_vec()),
        ),
        // The same again: the first regex scan of a process also pays for
        // compiling the regex code (V8 compiles wasm functions lazily) and
        // the regex; the second one is the scan alone.
        (
            "full scan, value regex, again",
            RowFilter::ValueRegex(VALUE_REGEX.as_bytes().to_vec()),
        ),
        (
            "full scan, chain of 3 filters",
            RowFilter::Chain(vec![
                RowFilter::FamilyNameRegex(DETAIL.to_string()),
                RowFilter::ColumnQualifierRegex(QUALIFIER_REGEX.as_bytes().to_vec()),
                RowFilter::ValueRange {
                    start: KeyBound::Closed(b"5".to_vec()),
                    end: KeyBound::Open(b"9".to_vec()),
                },
            ]),
        ),
        (
            "full scan, cells per column 1",
            RowFilter::CellsPerColumnLimit(1),
        ),
    ]
}

/// os_build values of one month of builds.
const VALUE_REGEX: &str = "PQ2A\\.19040[0-9]\\.003";
const QUALIFIER_REGEX: &str = "cpu_usage|memory_usage";

/// The wasm entry point: runs the benchmarks under Node and returns the
/// report as text. The clock is JavaScript's `performance.now()`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn run_bench(rows: u32, baseline: bool) -> String {
    run(rows as usize, baseline, &host_clock()).to_text()
}

/// The host's clock in milliseconds: the global `performance.now()`, looked
/// up once and called each time (so a caller may put its own `performance`
/// in place first, such as one answering CPU time), or `Date.now()`
/// without one.
#[cfg(target_arch = "wasm32")]
fn host_clock() -> impl Fn() -> f64 {
    let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
    move || -> f64 {
        perf.as_ref()
            .and_then(|p| {
                let f = js_sys::Reflect::get(p, &"now".into()).ok()?;
                let f: js_sys::Function = f.into();
                f.call0(p).ok()?.as_f64()
            })
            .unwrap_or_else(js_sys::Date::now)
    }
}

fn option_env_u64(name: &str) -> Option<u64> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::env::var(name).ok()?.parse().ok()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = name;
        None
    }
}
