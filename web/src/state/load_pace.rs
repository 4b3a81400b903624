//! How a slice of *Load sample data* spends its time budget: how many
//! rows its next batch may hold, and when the engine's due work (a tick)
//! runs between two batches.
//!
//! A slice used to write batches of a fixed size and look at the clock
//! only between them, with a tick after every batch and another after the
//! slice (whose first piece of work always runs, out of time or not): a
//! 24 ms slice often ended at 40 to 70 ms. Here a batch is sized from
//! what rows have cost so far, so it plans to use only part of the time
//! left, and a tick starts only while enough of the budget is left and
//! a batch has been written since the last one.

/// Fewest rows in a batch (a smaller one costs more in overhead than it
/// saves in time).
pub const MIN_BATCH_ROWS: u64 = 32;
/// The share of the time left that one batch may plan to use: the cost
/// per row is an average, and a batch that lands in many tablets at once
/// is slower than it.
const PLAN_SHARE: f64 = 0.5;
/// Rows written between two ticks of the engine: one full batch. The
/// sample data goes in through the sorted import, which leaves a fresh
/// table's tablets compacted and split, so a tick finds little to do; in
/// a table that already held rows, the import writes through memtables
/// and the ticks do the usual work. (With the bulk write, ticking every
/// 2,000 rows made each tick find more work than its time allowed;
/// BENCHMARKS.md, bulk loads, fourth pass.)
pub const TICK_EVERY_ROWS: u64 = 2_000;
/// Least time left in the slice, in milliseconds, for a tick to start:
/// its first piece of work (a tablet flushed and compacted, then split)
/// always runs, so it must not start at the deadline. The next slice
/// starts with a whole budget and ticks first.
pub const TICK_MIN_LEFT_MS: f64 = 8.0;
/// The cost per row assumed before any was measured, in milliseconds
/// (cautious: a release build in the page is about four times faster).
const FIRST_MS_PER_ROW: f64 = 0.02;

/// What the pacing has learned, kept from slice to slice of one load.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadPace {
    /// The cost of one row (drawn and written), a moving average.
    ms_per_row: f64,
    /// Rows written since the last tick.
    rows_since_tick: u64,
}

impl Default for LoadPace {
    fn default() -> Self {
        LoadPace {
            ms_per_row: FIRST_MS_PER_ROW,
            rows_since_tick: 0,
        }
    }
}

impl LoadPace {
    /// How many rows (at most `max_rows`) the next batch may hold with
    /// `left_ms` of the budget left: none once it is spent, else enough
    /// to use about half of what is left, at least [`MIN_BATCH_ROWS`].
    pub fn next_batch(&self, left_ms: f64, max_rows: u64) -> u64 {
        if left_ms <= 0.0 || max_rows == 0 {
            return 0;
        }
        // A row count from a time budget: finite and small.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let planned = (left_ms * PLAN_SHARE / self.ms_per_row).floor() as u64;
        planned
            .clamp(MIN_BATCH_ROWS, max_rows.max(MIN_BATCH_ROWS))
            .min(max_rows)
    }

    /// Notes that `rows` rows took `ms` milliseconds.
    pub fn wrote(&mut self, rows: u64, ms: f64) {
        self.rows_since_tick += rows;
        if rows == 0 || !ms.is_finite() || ms < 0.0 {
            return;
        }
        // Display-free arithmetic on counts far below 2^52.
        #[allow(clippy::cast_precision_loss)]
        let sample = (ms / rows as f64).max(1e-6);
        // Slow samples count at once (a batch that ran long must shrink
        // the next), fast ones a quarter at a time.
        self.ms_per_row = if sample > self.ms_per_row {
            sample
        } else {
            self.ms_per_row * 0.75 + sample * 0.25
        };
    }

    /// Whether a tick should run now, with `left_ms` of the budget left.
    pub fn tick_due(&self, left_ms: f64) -> bool {
        self.rows_since_tick >= TICK_EVERY_ROWS && left_ms >= TICK_MIN_LEFT_MS
    }

    /// Notes that a tick ran.
    pub fn ticked(&mut self) {
        self.rows_since_tick = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_shrink_as_the_budget_runs_out() {
        let mut pace = LoadPace::default();
        pace.wrote(100, 10.0); // 0.1 ms per row (slower than the guess)
        assert_eq!(pace.next_batch(200.0, 500), 500, "capped at the most");
        assert_eq!(pace.next_batch(40.0, 500), 200, "half of 40 ms");
        assert_eq!(pace.next_batch(0.2, 500), MIN_BATCH_ROWS);
        assert_eq!(pace.next_batch(0.0, 500), 0, "spent: stop");
        assert_eq!(pace.next_batch(-3.0, 500), 0);
        assert_eq!(pace.next_batch(24.0, 7), 7, "never past what is left");
    }

    #[test]
    fn a_slow_batch_counts_at_once_a_fast_one_gradually() {
        let mut pace = LoadPace::default();
        pace.wrote(100, 1.0); // 0.01: faster than the first guess
        assert!(pace.ms_per_row > 0.01 && pace.ms_per_row < FIRST_MS_PER_ROW);
        pace.wrote(100, 10.0); // 0.1: slower, taken as it is
        assert!((pace.ms_per_row - 0.1).abs() < 1e-12);
        assert_eq!(pace.next_batch(10.0, 500), 50);
        pace.wrote(0, 5.0);
        assert!((pace.ms_per_row - 0.1).abs() < 1e-12, "no rows, no sample");
    }

    #[test]
    fn ticks_wait_for_rows_and_for_time() {
        let mut pace = LoadPace::default();
        pace.wrote(TICK_EVERY_ROWS - 1, 1.0);
        assert!(!pace.tick_due(24.0), "too few rows yet");
        pace.wrote(1, 0.0);
        assert!(pace.tick_due(24.0));
        assert!(
            !pace.tick_due(TICK_MIN_LEFT_MS - 0.5),
            "too close to the deadline"
        );
        pace.ticked();
        assert!(!pace.tick_due(24.0));
    }
}
