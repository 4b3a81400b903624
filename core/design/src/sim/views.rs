//! Continuous materialized views in the simulation. Bigtable keeps such a
//! view (an asynchronous secondary index, a running aggregate) up to date
//! in the background: every row written to the table is queued for each
//! view, and the queue drains at the view's own pace. The simulator holds
//! no rows, so it models only that queue: how many rows are waiting and
//! how far behind the table the view therefore is.

use serde::{Deserialize, Serialize};

use crate::scenario::ViewSpec;

/// One view's queue: where it stands as the simulation runs, and in the
/// report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViewLag {
    /// The view's name.
    pub name: String,
    /// Source rows it applies per second.
    pub rows_per_second: f64,
    /// Rows written to the table since the start (each queued for the view).
    pub rows_written: f64,
    /// Rows the view has applied.
    pub rows_applied: f64,
    /// Rows waiting.
    pub backlog_rows: f64,
    /// How far behind the table the view is now, in seconds: the time the
    /// waiting rows take to apply at `rows_per_second` (with writes queued
    /// in order, the age of the oldest waiting one).
    pub lag_seconds: f64,
    /// The largest lag so far.
    pub peak_lag_seconds: f64,
    /// When the peak was reached (simulated seconds).
    pub peak_at_seconds: f64,
}

impl ViewLag {
    fn new(spec: &ViewSpec) -> ViewLag {
        ViewLag {
            name: spec.name.clone(),
            rows_per_second: spec.rows_per_second,
            rows_written: 0.0,
            rows_applied: 0.0,
            backlog_rows: 0.0,
            lag_seconds: 0.0,
            peak_lag_seconds: 0.0,
            peak_at_seconds: 0.0,
        }
    }
}

/// Every view's queue.
#[derive(Clone, Debug, Default)]
pub(crate) struct ViewQueues {
    pub(crate) views: Vec<ViewLag>,
    /// Writes counted so far (to take each tick's difference).
    written_before: f64,
}

impl ViewQueues {
    pub(crate) fn new(specs: &[ViewSpec]) -> ViewQueues {
        ViewQueues {
            views: specs.iter().map(ViewLag::new).collect(),
            written_before: 0.0,
        }
    }

    /// One tick of `dt` seconds ending at `now`, in which the table's
    /// writes reached `written_total` rows since the start.
    pub(crate) fn tick(&mut self, written_total: f64, dt: f64, now: f64) {
        let written = (written_total - self.written_before).max(0.0);
        self.written_before = written_total;
        for v in &mut self.views {
            v.rows_written += written;
            let queued = v.backlog_rows + written;
            let applied = queued.min(v.rows_per_second * dt);
            v.rows_applied += applied;
            v.backlog_rows = queued - applied;
            // Less than one row waiting is a view that is caught up.
            if v.backlog_rows < 1.0 {
                v.backlog_rows = 0.0;
            }
            v.lag_seconds = v.backlog_rows / v.rows_per_second;
            if v.lag_seconds > v.peak_lag_seconds {
                v.peak_lag_seconds = v.lag_seconds;
                v.peak_at_seconds = now;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn spec(rate: f64) -> ViewSpec {
        ViewSpec {
            name: "v".into(),
            description: String::new(),
            rows_per_second: rate,
        }
    }

    #[test]
    fn a_view_keeps_up_with_writes_slower_than_its_rate() {
        let mut q = ViewQueues::new(&[spec(1000.0)]);
        for t in 1..=100 {
            q.tick(f64::from(t) * 500.0, 1.0, f64::from(t));
        }
        let v = &q.views[0];
        assert_eq!((v.backlog_rows, v.lag_seconds), (0.0, 0.0));
        assert_eq!(v.rows_applied, 50_000.0);
    }

    #[test]
    fn faster_writes_build_a_backlog_that_drains_afterwards() {
        let mut q = ViewQueues::new(&[spec(1000.0)]);
        // 60 s at 1,500 rows/s: 500 rows/s pile up.
        for t in 1..=60 {
            q.tick(f64::from(t) * 1500.0, 1.0, f64::from(t));
        }
        let v = q.views[0].clone();
        assert_eq!(v.backlog_rows, 30_000.0);
        assert_eq!(v.lag_seconds, 30.0);
        // Then no writes: 30 s to catch up.
        for t in 61..=89 {
            q.tick(90_000.0, 1.0, f64::from(t));
        }
        assert_eq!(q.views[0].lag_seconds, 1.0);
        q.tick(90_000.0, 1.0, 90.0);
        let v = &q.views[0];
        assert_eq!(v.lag_seconds, 0.0);
        assert_eq!((v.peak_lag_seconds, v.peak_at_seconds), (30.0, 60.0));
        assert_eq!(v.rows_applied, v.rows_written);
    }
}
