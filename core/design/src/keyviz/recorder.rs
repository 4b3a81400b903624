//! Fine-grained Key Visualizer counters: one matrix per stored metric,
//! time bucket x fine key bucket.

use super::Metric;

/// Number of stored matrices: the eight stored traffic and storage
/// metrics, read and write CPU, and the latency-weighted work behind the
/// derived latency and pressure metrics.
pub const STORED: usize = 11;
/// The matrix of latency x work (ms x node-seconds).
const LATENCY_WORK: usize = 10;
/// Idle latency when nothing says otherwise (the scenario default).
const DEFAULT_BASE_LATENCY_MS: f64 = 5.0;

/// The recorder behind every heatmap.
///
/// Traffic of the open time bucket accumulates in `f64` (interleaved per
/// key bucket, so one operation touches one cache line); closing the bucket
/// writes it into `f32` matrices, row-major by time:
/// `matrix(m)[t * fine_buckets + f]`. Traffic metrics hold totals per time
/// bucket (heatmaps divide by the bucket length); `DataStored` and `Rows`
/// hold the state at the end of the bucket.
#[derive(Clone, Debug)]
pub struct Recorder {
    time_buckets: usize,
    fine: usize,
    bucket_seconds: f64,
    matrices: Vec<Vec<f32>>,
    open: Vec<f64>,
    /// Time buckets written so far (closed, or synced while open).
    filled: usize,
    /// Latency of an idle node, for the pressure indexes.
    base_latency_ms: f64,
}

impl Recorder {
    /// A recorder of `time_buckets` buckets of `bucket_seconds` each over
    /// `fine` key buckets.
    #[must_use]
    pub fn new(time_buckets: usize, fine: usize, bucket_seconds: f64) -> Recorder {
        let time_buckets = time_buckets.max(1);
        let fine = fine.max(1);
        Recorder {
            time_buckets,
            fine,
            bucket_seconds,
            matrices: vec![vec![0.0; time_buckets * fine]; STORED],
            open: vec![0.0; fine * STORED],
            filled: 0,
            base_latency_ms: DEFAULT_BASE_LATENCY_MS,
        }
    }

    /// Sets the latency of an idle node (ms), which the pressure indexes
    /// compare latencies with.
    pub fn set_base_latency_ms(&mut self, ms: f64) {
        if ms.is_finite() && ms > 0.0 {
            self.base_latency_ms = ms;
        }
    }

    /// Latency of an idle node (ms).
    #[must_use]
    pub fn base_latency_ms(&self) -> f64 {
        self.base_latency_ms
    }

    /// Time buckets.
    #[must_use]
    pub fn time_buckets(&self) -> usize {
        self.time_buckets
    }

    /// Fine key buckets.
    #[must_use]
    pub fn fine_buckets(&self) -> usize {
        self.fine
    }

    /// Seconds per time bucket.
    #[must_use]
    pub fn bucket_seconds(&self) -> f64 {
        self.bucket_seconds
    }

    /// Time buckets holding data (the last may still be open).
    #[must_use]
    pub fn filled(&self) -> usize {
        self.filled
    }

    /// Adds `value` to a traffic metric of the open time bucket.
    #[inline]
    pub fn add(&mut self, fine: usize, metric: Metric, value: f64) {
        if let (Some(m), true) = (metric.stored_index(), fine < self.fine)
            && let Some(slot) = self.open.get_mut(fine * STORED + m)
        {
            *slot += value;
        }
    }

    /// Adds a write of `rows` rows and `bytes` bytes as `ops` operations.
    #[inline]
    pub fn add_write(&mut self, fine: usize, ops: f64, rows: f64, bytes: f64) {
        if let Some(cell) = self.open.get_mut(fine * STORED..fine * STORED + STORED) {
            cell[0] += ops;
            cell[2] += rows;
            cell[4] += bytes;
        }
    }

    /// Adds a read that scanned `scanned` rows and returned `rows` rows of
    /// `bytes` bytes, as `ops` operations.
    #[inline]
    pub fn add_read(&mut self, fine: usize, ops: f64, rows: f64, bytes: f64, scanned: f64) {
        if let Some(cell) = self.open.get_mut(fine * STORED..fine * STORED + STORED) {
            cell[0] += ops;
            cell[1] += rows;
            cell[3] += bytes;
            cell[5] += scanned;
        }
    }

    /// Adds work: `read` and `write` node-seconds of CPU, done at a latency
    /// of `latency_ms`.
    #[inline]
    pub fn add_cpu(&mut self, fine: usize, read: f64, write: f64, latency_ms: f64) {
        if let Some(cell) = self.open.get_mut(fine * STORED..fine * STORED + STORED) {
            cell[8] += read;
            cell[9] += write;
            cell[LATENCY_WORK] += (read + write) * latency_ms;
        }
    }

    /// The matrix of latency x work (ms x node-seconds), laid out like
    /// [`Recorder::matrix`]: divided by the read and write CPU it gives the
    /// mean latency.
    #[must_use]
    pub fn latency_work(&self) -> &[f32] {
        self.matrices
            .get(LATENCY_WORK)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Writes the open bucket into time bucket `t` (keeping it open):
    /// traffic so far plus the stored `rows` and `bytes` per fine bucket.
    pub fn sync(&mut self, t: usize, rows: &[f64], bytes: &[f64]) {
        if t >= self.time_buckets {
            return;
        }
        let base = t * self.fine;
        for (m, matrix) in self.matrices.iter_mut().enumerate() {
            let Some(row) = matrix.get_mut(base..base + self.fine) else {
                continue;
            };
            match m {
                6 => {
                    for (dst, src) in row.iter_mut().zip(bytes) {
                        *dst = *src as f32;
                    }
                }
                7 => {
                    for (dst, src) in row.iter_mut().zip(rows) {
                        *dst = *src as f32;
                    }
                }
                _ => {
                    for (f, dst) in row.iter_mut().enumerate() {
                        *dst = self.open.get(f * STORED + m).copied().unwrap_or(0.0) as f32;
                    }
                }
            }
        }
        self.filled = self.filled.max(t + 1);
    }

    /// Closes time bucket `t`: syncs it and starts the next one empty.
    pub fn close(&mut self, t: usize, rows: &[f64], bytes: &[f64]) {
        self.sync(t, rows, bytes);
        self.open.iter_mut().for_each(|v| *v = 0.0);
    }

    /// The matrix of a stored metric (`None` for derived metrics).
    #[must_use]
    pub fn matrix(&self, metric: Metric) -> Option<&[f32]> {
        self.matrices.get(metric.stored_index()?).map(Vec::as_slice)
    }

    /// One value of a stored metric.
    #[must_use]
    pub fn value(&self, metric: Metric, t: usize, fine: usize) -> f32 {
        if fine >= self.fine {
            return 0.0;
        }
        self.matrix(metric)
            .and_then(|m| m.get(t * self.fine + fine))
            .copied()
            .unwrap_or(0.0)
    }

    /// Per fine bucket, the sum of a traffic metric over the filled time
    /// buckets (for a state metric: its last value).
    #[must_use]
    pub fn totals_by_key(&self, metric: Metric) -> Vec<f64> {
        let mut out = vec![0.0; self.fine];
        let Some(m) = self.matrix(metric) else {
            return out;
        };
        if metric.is_state() {
            if self.filled > 0
                && let Some(row) = m.get((self.filled - 1) * self.fine..self.filled * self.fine)
            {
                for (o, v) in out.iter_mut().zip(row) {
                    *o = f64::from(*v);
                }
            }
            return out;
        }
        for row in m.chunks_exact(self.fine).take(self.filled) {
            for (o, v) in out.iter_mut().zip(row) {
                *o += f64::from(*v);
            }
        }
        out
    }

    /// Per time bucket, the sum of a metric over all keys.
    #[must_use]
    pub fn totals_by_time(&self, metric: Metric) -> Vec<f64> {
        let Some(m) = self.matrix(metric) else {
            return vec![0.0; self.filled];
        };
        m.chunks_exact(self.fine)
            .take(self.filled)
            .map(|row| row.iter().map(|&v| f64::from(v)).sum())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn accumulates_and_closes() {
        let mut r = Recorder::new(3, 4, 10.0);
        r.add_write(1, 1.0, 1.0, 100.0);
        r.add_write(1, 1.0, 1.0, 100.0);
        r.add_read(2, 1.0, 5.0, 500.0, 50.0);
        r.add(3, Metric::Ops, 2.0);
        let rows = [1.0, 2.0, 3.0, 4.0];
        let bytes = [10.0, 20.0, 30.0, 40.0];
        r.close(0, &rows, &bytes);
        r.add_write(0, 1.0, 1.0, 7.0);
        r.sync(1, &rows, &bytes);
        assert_eq!(r.filled(), 2);
        assert_eq!(r.value(Metric::WriteRows, 0, 1), 2.0);
        assert_eq!(r.value(Metric::WriteBytes, 0, 1), 200.0);
        assert_eq!(r.value(Metric::RowsScanned, 0, 2), 50.0);
        assert_eq!(r.value(Metric::ReadRows, 0, 2), 5.0);
        assert_eq!(r.value(Metric::Ops, 0, 3), 2.0);
        assert_eq!(r.value(Metric::Rows, 1, 3), 4.0);
        assert_eq!(r.value(Metric::DataStored, 0, 2), 30.0);
        assert_eq!(r.value(Metric::WriteBytes, 1, 0), 7.0);
        assert_eq!(r.totals_by_key(Metric::Ops), vec![1.0, 2.0, 1.0, 2.0]);
        assert_eq!(r.totals_by_key(Metric::Rows), vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(r.totals_by_time(Metric::WriteRows), vec![2.0, 1.0]);
        // Out of range is ignored, not a panic.
        r.add(99, Metric::Ops, 1.0);
        r.add_write(99, 1.0, 1.0, 1.0);
        r.sync(99, &rows, &bytes);
        assert_eq!(r.value(Metric::Ops, 7, 99), 0.0);
    }
}
