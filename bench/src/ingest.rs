//! The bulk-load benchmark: a scenario's generated rows (the
//! timestamp-first mobile design the page's *Create table with rows*
//! uses) written into a fresh table as the page writes them, with the
//! engine's ticks between batches. It reports the total time and the
//! slowest single step (a batch or a tick), since a step is what would
//! become a long task in the page, and how many ticks took longer than a
//! budget. Ticks are whole, or budgeted as the page's are (each given the
//! budget from its start). Natively through `tabletop-ingest-bench`.

use std::fmt::Write as _;

use tabletop_core::Instance;
use tabletop_core::sim::{SampleMoment, SampleSpec, Simulation};

/// The scenario the page's scenario-load benchmark uses.
pub const SCENARIO: &str = include_str!("../../static/scenarios/mobile_timestamp_first.toml");
/// Rows per MutateRows call (as the page).
pub const BATCH_ROWS: usize = 256;
/// Batches between two ticks (as the page).
pub const TICK_EVERY: u32 = 4;

/// How the load ticks.
#[derive(Clone, Copy, Debug)]
pub struct TickMode {
    /// The budget a tick is measured against, in milliseconds.
    pub budget_ms: f64,
    /// Whether ticks are given the budget (else they run whole).
    pub paced: bool,
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
    /// Time spent in the engine's ticks.
    pub tick_ms: f64,
    /// The slowest batch.
    pub slowest_batch_ms: f64,
    /// The slowest tick.
    pub slowest_tick_ms: f64,
    /// How the load ticked.
    pub mode: Option<TickMode>,
    /// Ticks run.
    pub ticks: u64,
    /// Ticks that took longer than the budget.
    pub ticks_over_budget: u64,
    /// Tablets at the end.
    pub tablets: usize,
}

impl IngestReport {
    /// A plain-text summary.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "rows written            {:>10}", self.rows);
        let _ = writeln!(s, "total                   {:>10.1} ms", self.total_ms);
        let _ = writeln!(s, "  drawing and writing   {:>10.1} ms", self.write_ms);
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
        if let Some(mode) = self.mode {
            let how = if mode.paced { "budgeted" } else { "whole" };
            let _ = writeln!(s, "ticks ({how})          {:>10}", self.ticks);
            let _ = writeln!(
                s,
                "  over {:>5.1} ms         {:>10}",
                mode.budget_ms, self.ticks_over_budget
            );
        }
        let _ = writeln!(s, "tablets at the end      {:>10}", self.tablets);
        s
    }
}

/// Loads `rows` generated rows, ticking as `mode` says; `now_ms` is the
/// host clock.
///
/// # Panics
/// If the bundled scenario does not parse or the table cannot be made
/// (a broken build, not a measurement).
pub fn run(rows: u64, mode: TickMode, now_ms: &dyn Fn() -> f64) -> IngestReport {
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
    let mut report = IngestReport {
        mode: Some(mode),
        ..IngestReport::default()
    };
    let start = now_ms();
    let mut batches = 0u32;
    loop {
        let t = now_ms();
        let n = stream
            .write_batch(&mut db, "t", BATCH_ROWS)
            .expect("rows go in");
        let dt = now_ms() - t;
        report.write_ms += dt;
        report.slowest_batch_ms = report.slowest_batch_ms.max(dt);
        batches += 1;
        if n == 0 || batches.is_multiple_of(TICK_EVERY) {
            let t = now_ms();
            let wall_now = wall + ((now_ms() - start) * 1000.0) as i64;
            if mode.paced {
                let deadline = t + mode.budget_ms;
                db.sync_wall_clock_until(wall_now, deadline, &mut || now_ms());
            } else {
                db.sync_wall_clock(wall_now);
            }
            let dt = now_ms() - t;
            report.tick_ms += dt;
            report.slowest_tick_ms = report.slowest_tick_ms.max(dt);
            report.ticks += 1;
            report.ticks_over_budget += u64::from(dt > mode.budget_ms);
        }
        if n == 0 {
            break;
        }
    }
    report.total_ms = now_ms() - start;
    report.rows = stream.rows();
    report.tablets = db.tablets("t").map_or(0, |t| t.len());
    report
}
