//! The bulk-load benchmark: a scenario's generated rows (the
//! timestamp-first mobile design the page's *Create table with rows*
//! uses) written into a fresh table as the page writes them, with the
//! engine's ticks between batches; or ([`Load::Series`]) a device time
//! series shaped like the page's *Load sample data*. Each goes through the
//! bulk write or ([`Path::Import`]) the sorted import. It reports the
//! total time and the slowest single step (a batch or a tick), since a
//! step is what would become a long task in the page, and how many ticks
//! took longer than a budget. Ticks are whole, or budgeted as the page's
//! are (each given the budget from its start). Natively through
//! `tabletop-ingest-bench`.

use std::fmt::Write as _;

use tabletop_core::sim::{SampleMoment, SampleSpec, Simulation};
use tabletop_core::{
    ColumnFamily, CreateTableRequest, GcRule, Instance, MutateRowsEntry, Mutation, TableSchema,
};

/// The scenario the page's scenario-load benchmark uses.
pub const SCENARIO: &str = include_str!("../../static/scenarios/mobile_timestamp_first.toml");
/// Rows per MutateRows call (as the page).
pub const BATCH_ROWS: usize = 256;
/// Batches between two ticks (as the page).
pub const TICK_EVERY: u32 = 4;

/// Which rows a load writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// The timestamp-first scenario's rows (random keys), 256 a batch.
    Scenario,
    /// A device time series like the page's sample data (`phone#id#day`,
    /// three cells, 500 rows a batch, a tick after every batch): day by
    /// day with the bulk write, in key order with the import.
    Series,
}

/// How a load's batches go in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// [`Instance::bulk_write`]: memtables, flushes, compactions, splits.
    Write,
    /// [`Instance::bulk_import`]: runs built from the sorted rows.
    Import,
}

/// How the load ticks.
#[derive(Clone, Copy, Debug)]
pub struct TickMode {
    /// The budget a tick is measured against, in milliseconds.
    pub budget_ms: f64,
    /// Whether ticks are given the budget (else they run whole).
    pub paced: bool,
}

impl Default for TickMode {
    fn default() -> Self {
        Self {
            budget_ms: 24.0,
            paced: false,
        }
    }
}

/// What one load measured.
#[derive(Clone, Debug, Default)]
pub struct IngestReport {
    /// Rows written.
    pub rows: u64,
    /// Wall time of the whole load, in milliseconds.
    pub total_ms: f64,
    /// Time spent drawing and writing batches.
    pub write_ms: f64,
    /// Of `write_ms`, the time spent drawing rows (the series load only;
    /// the scenario's stream draws and writes in one call).
    pub draw_ms: f64,
    /// Time spent in the engine's ticks.
    pub tick_ms: f64,
    /// The slowest batch.
    pub slowest_batch_ms: f64,
    /// The slowest tick.
    pub slowest_tick_ms: f64,
    /// Tablets at the end.
    pub tablets: usize,
    /// How the load ticked.
    pub mode: TickMode,
    /// Ticks run.
    pub ticks: u64,
    /// Ticks that took longer than the budget.
    pub ticks_over_budget: u64,
}

impl IngestReport {
    /// A plain-text summary.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "rows written            {:>10}", self.rows);
        let _ = writeln!(s, "total                   {:>10.1} ms", self.total_ms);
        let _ = writeln!(s, "  drawing and writing   {:>10.1} ms", self.write_ms);
        if self.draw_ms > 0.0 {
            let _ = writeln!(s, "    of which drawing    {:>10.1} ms", self.draw_ms);
        }
        let _ = writeln!(s, "  engine ticks          {:>10.1} ms", self.tick_ms);
        let _ = writeln!(
            s,
            "slowest batch           {:>10.1} ms",
            self.slowest_batch_ms
        );
        let _ = writeln!(
            s,
            "slowest tick            {:>10.1} ms",
            self.slowest_tick_ms
        );
        let how = if self.mode.paced { "budgeted" } else { "whole" };
        let _ = writeln!(s, "ticks ({how})          {:>10}", self.ticks);
        let _ = writeln!(
            s,
            "  over {:>5.1} ms         {:>10}",
            self.mode.budget_ms, self.ticks_over_budget
        );
        let _ = writeln!(s, "tablets at the end      {:>10}", self.tablets);
        s
    }
}

/// Loads `rows` rows of `load` by `path`, ticking as `mode` says;
/// `now_ms` is the host clock.
///
/// # Panics
/// If the bundled scenario does not parse or the table cannot be made
/// (a broken build, not a measurement).
pub fn run_load(
    rows: u64,
    load: Load,
    path: Path,
    mode: TickMode,
    now_ms: &dyn Fn() -> f64,
) -> IngestReport {
    let mut report = IngestReport {
        mode,
        ..IngestReport::default()
    };
    match load {
        Load::Scenario => run_scenario(rows, path, now_ms, &mut report),
        Load::Series => run_series(rows, path, now_ms, &mut report),
    }
    report
}

/// One tick of the load at `wall_now`, whole or paced as the report's mode
/// says, counted into `report`.
fn tick(db: &mut Instance, wall_now: i64, now_ms: &dyn Fn() -> f64, report: &mut IngestReport) {
    let t = now_ms();
    if report.mode.paced {
        let deadline = t + report.mode.budget_ms;
        db.sync_wall_clock_until(wall_now, deadline, &mut || now_ms());
    } else {
        db.sync_wall_clock(wall_now);
    }
    let dt = now_ms() - t;
    report.tick_ms += dt;
    report.slowest_tick_ms = report.slowest_tick_ms.max(dt);
    report.ticks += 1;
    report.ticks_over_budget += u64::from(dt > report.mode.budget_ms);
}

fn run_scenario(rows: u64, path: Path, now_ms: &dyn Fn() -> f64, report: &mut IngestReport) {
    let sim = Simulation::from_toml(SCENARIO).expect("the bundled scenario parses");
    let mut db = Instance::default();
    let wall = 1_800_000_000_000_000i64;
    db.sync_wall_clock(wall);
    db.create_table(sim.table_request("t"))
        .expect("a fresh table");
    let mut stream = sim
        .sample_rows(SampleSpec {
            rows,
            seed: 0,
            moment: SampleMoment::EndOfRun,
        })
        .cells_end_at(wall);
    let start = now_ms();
    let mut batches = 0u32;
    loop {
        let t = now_ms();
        let n = match path {
            Path::Write => stream.write_batch(&mut db, "t", BATCH_ROWS),
            Path::Import => stream.import_batch(&mut db, "t", BATCH_ROWS),
        }
        .expect("rows go in");
        let dt = now_ms() - t;
        report.write_ms += dt;
        report.slowest_batch_ms = report.slowest_batch_ms.max(dt);
        batches += 1;
        if n == 0 || batches.is_multiple_of(TICK_EVERY) {
            let elapsed = (now_ms() - start) * 1000.0;
            tick(&mut db, wall + elapsed as i64, now_ms, report);
        }
        if n == 0 {
            break;
        }
    }
    report.total_ms = now_ms() - start;
    report.rows = stream.rows();
    report.tablets = db.tablets("t").map_or(0, |t| t.len());
}

/// Rows per batch of the series load (as the page's sample data).
pub const SERIES_BATCH_ROWS: u64 = 500;
/// Days per device in the series load.
const SERIES_DAYS: u64 = 30;

/// Row `i` of the series (devices `devices`), numbered day by day, into
/// `key` and `value`: key `phone#<id>#<day>`, the id a scramble of the
/// device number (so keys of one day land all over the table).
fn series_row(i: u64, devices: u64, key: &mut Vec<u8>, value: &mut Vec<u8>) {
    let (day, device) = (i / devices, i % devices);
    let id = (device as u32).wrapping_mul(0x9e37_79b1);
    key.clear();
    let _ = write!(KeyText(key), "phone#{id:08x}#{day:03}");
    value.clear();
    let _ = write!(KeyText(value), "PQ2A.1904{:02}.{:03}", i % 28, day % 8);
}

/// `fmt::Write` into a byte buffer.
struct KeyText<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for KeyText<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// The series' row numbers in the order `path` writes them: by number
/// (day by day) for the bulk write, by key for the import.
fn series_order(rows: u64, devices: u64, path: Path) -> Vec<u64> {
    match path {
        Path::Write => (0..rows).collect(),
        Path::Import => {
            let mut by_id: Vec<(u32, u64)> = (0..devices)
                .map(|d| ((d as u32).wrapping_mul(0x9e37_79b1), d))
                .collect();
            by_id.sort_unstable();
            by_id
                .into_iter()
                .flat_map(|(_, d)| (0..SERIES_DAYS).map(move |day| day * devices + d))
                .filter(|&i| i < rows)
                .collect()
        }
    }
}

fn run_series(rows: u64, path: Path, now_ms: &dyn Fn() -> f64, report: &mut IngestReport) {
    let mut db = Instance::default();
    let wall = 1_800_000_000_000_000i64;
    db.sync_wall_clock(wall);
    let schema = TableSchema {
        families: [
            (
                "stats_summary".to_string(),
                ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(1))),
            ),
            (
                "stats_detail".to_string(),
                ColumnFamily::with_gc(Some(GcRule::MaxNumVersions(3))),
            ),
        ]
        .into(),
    };
    db.create_table(CreateTableRequest {
        table_id: "t".into(),
        schema,
        initial_splits: Vec::new(),
    })
    .expect("a fresh table");
    let devices = rows.div_ceil(SERIES_DAYS).max(1);
    let start = now_ms();
    let order = series_order(rows, devices, path);
    let (mut keys, mut values) = (Vec::new(), Vec::new());
    let (mut key, mut value) = (Vec::new(), Vec::new());
    for chunk in order.chunks(SERIES_BATCH_ROWS as usize) {
        let t = now_ms();
        keys.clear();
        values.clear();
        for &i in chunk {
            series_row(i, devices, &mut key, &mut value);
            keys.push(key.clone());
            values.push(value.clone());
        }
        report.draw_ms += now_ms() - t;
        let ts = 1_588_291_200_000_000i64;
        let entries: Vec<MutateRowsEntry<'_>> = keys
            .iter()
            .zip(&values)
            .map(|(k, v)| MutateRowsEntry {
                row_key: k.as_slice().into(),
                mutations: vec![
                    Mutation::set_cell("stats_summary", b"os_build".as_slice(), ts, v.as_slice()),
                    Mutation::set_cell(
                        "stats_detail",
                        b"connected_cell".as_slice(),
                        ts,
                        b"1".as_slice(),
                    ),
                    Mutation::set_cell(
                        "stats_detail",
                        b"connected_wifi".as_slice(),
                        ts,
                        b"0".as_slice(),
                    ),
                ],
            })
            .collect();
        match path {
            Path::Write => db.bulk_write("t", &entries),
            Path::Import => db.bulk_import("t", &entries),
        }
        .expect("rows go in");
        let dt = now_ms() - t;
        report.write_ms += dt;
        report.slowest_batch_ms = report.slowest_batch_ms.max(dt);
        let elapsed = (now_ms() - start) * 1000.0;
        tick(&mut db, wall + elapsed as i64, now_ms, report);
    }
    report.total_ms = now_ms() - start;
    report.rows = order.len() as u64;
    report.tablets = db.tablets("t").map_or(0, |t| t.len());
}
