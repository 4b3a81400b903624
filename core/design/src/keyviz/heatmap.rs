//! Display heatmaps: fine key buckets grouped into at most 1000 display
//! buckets, as flat buffers a canvas can draw directly.

use serde::{Deserialize, Serialize};

use super::pressure::{CPU_AT_POOR, POOR_PRESSURE, SLOWDOWN_AT_POOR};
use super::{KeyAxis, Metric, Recorder};
use tabletop_store::escape_bytes;

/// Most key buckets a heatmap shows, as in Bigtable's Key Visualizer.
pub const MAX_KEY_BUCKETS: usize = 1000;

/// How fine buckets are grouped into display buckets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BucketMode {
    /// Every display bucket holds about the same number of rows (what
    /// Bigtable's Key Visualizer does).
    #[default]
    EqualKeys,
    /// Buckets are cut by half rows, half traffic, so ranges that take a lot
    /// of operations keep more (narrower) buckets and quiet ranges are
    /// folded together.
    TrafficWeighted,
}

/// How values map to colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColorScale {
    /// Relative to the largest value in this heatmap: the brightest cell
    /// is always the hottest one shown.
    #[default]
    Relative,
    /// Against a fixed reference ([`Heatmap::reference`]: one node's
    /// published capacity for traffic metrics), so heatmaps of different
    /// designs can be compared and full colour means "this key range alone
    /// needs a whole node".
    Absolute,
}

/// Contiguous groups of fine buckets: group `k` is
/// `bounds[k]..bounds[k + 1]`; `bounds` starts at 0 and ends at the fine
/// bucket count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyGrouping {
    /// Group boundaries in fine-bucket indices.
    pub bounds: Vec<u32>,
}

impl KeyGrouping {
    /// Cuts `weights.len()` fine buckets into at most `max` groups of about
    /// equal weight (equal counts when all weights are zero). A fine bucket
    /// heavier than a group's share becomes a group of its own.
    #[must_use]
    pub fn by_weight(weights: &[f64], max: usize) -> KeyGrouping {
        let n = weights.len();
        let max = max.max(1);
        if n <= max {
            return KeyGrouping {
                bounds: (0..=n as u32).collect(),
            };
        }
        let clean = |w: f64| if w.is_finite() && w > 0.0 { w } else { 0.0 };
        let mut remaining: f64 = weights.iter().map(|&w| clean(w)).sum();
        let uniform = remaining <= 0.0;
        if uniform {
            remaining = n as f64;
        }
        let mut bounds = vec![0u32];
        let mut acc = 0.0;
        let mut groups_left = max;
        for (f, &w) in weights.iter().enumerate() {
            let w = if uniform { 1.0 } else { clean(w) };
            // A heavy bucket starts a group of its own rather than
            // swelling the current one.
            let target = remaining / groups_left as f64;
            if groups_left > 1 && acc > 0.0 && acc + w > 1.25 * target {
                bounds.push(f as u32);
                remaining -= acc;
                acc = 0.0;
                groups_left -= 1;
            }
            acc += w;
            let fine_left = n - f - 1;
            if fine_left == 0 {
                break;
            }
            let target = remaining / groups_left as f64;
            // Cut when the group has its share, or when every remaining
            // group needs one of the remaining fine buckets.
            if groups_left > 1 && (acc >= target * (1.0 - 1e-9) || fine_left < groups_left) {
                bounds.push(f as u32 + 1);
                remaining -= acc;
                acc = 0.0;
                groups_left -= 1;
            }
        }
        bounds.push(n as u32);
        KeyGrouping { bounds }
    }

    /// Groups for `mode`: by stored rows, or by half rows and half traffic.
    #[must_use]
    pub fn for_mode(mode: BucketMode, rows: &[f64], traffic: &[f64], max: usize) -> KeyGrouping {
        match mode {
            BucketMode::EqualKeys => KeyGrouping::by_weight(rows, max),
            BucketMode::TrafficWeighted => {
                let rs: f64 = rows.iter().filter(|v| v.is_finite()).sum();
                let ts: f64 = traffic.iter().filter(|v| v.is_finite()).sum();
                let w: Vec<f64> = rows
                    .iter()
                    .zip(traffic)
                    .map(|(&r, &t)| {
                        let a = if rs > 0.0 { r / rs } else { 0.0 };
                        let b = if ts > 0.0 { t / ts } else { 0.0 };
                        0.5 * a + 0.5 * b
                    })
                    .collect();
                KeyGrouping::by_weight(&w, max)
            }
        }
    }

    /// The groups heatmaps use for `mode` over `rows` stored per fine
    /// bucket and the operations `rec` recorded, at most `max_key_buckets`
    /// (1 to [`MAX_KEY_BUCKETS`]).
    #[must_use]
    pub fn for_recorded(
        mode: BucketMode,
        rows: &[f64],
        rec: &Recorder,
        max_key_buckets: usize,
    ) -> KeyGrouping {
        let max = max_key_buckets.clamp(1, MAX_KEY_BUCKETS);
        let traffic = match mode {
            BucketMode::EqualKeys => Vec::new(),
            BucketMode::TrafficWeighted => rec.totals_by_key(Metric::Ops),
        };
        let traffic = if traffic.is_empty() {
            vec![0.0; rows.len()]
        } else {
            traffic
        };
        KeyGrouping::for_mode(mode, rows, &traffic, max)
    }

    /// Number of groups.
    #[must_use]
    pub fn len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    /// Whether there are no groups.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// For each fine bucket, its group.
    #[must_use]
    pub fn group_of_fine(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.bounds.last().copied().unwrap_or(0) as usize);
        for (k, w) in self.bounds.windows(2).enumerate() {
            if let [a, b] = w {
                out.extend(std::iter::repeat_n(k as u32, b.saturating_sub(*a) as usize));
            }
        }
        out
    }
}

/// One display key bucket.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyBucket {
    /// First key (escaped for display; empty for the start of the table).
    pub start: String,
    /// The key after the bucket (`None`: end of the table).
    pub end: Option<String>,
    /// Fine buckets `[first, last)` it covers.
    pub fine: [u32; 2],
    /// Rows stored in the bucket at the end of the heatmap.
    pub rows: f64,
}

/// A heatmap ready to draw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Heatmap {
    /// What is shown.
    pub metric: Metric,
    /// The unit of `values` (`ops/s`, `B`, ...).
    pub unit: String,
    /// Columns: time buckets shown (filled so far).
    pub time_buckets: usize,
    /// Rows: key buckets.
    pub key_buckets: usize,
    /// Seconds per time bucket.
    pub bucket_seconds: f64,
    /// `values[key_bucket * time_buckets + time_bucket]`; key bucket 0 is
    /// the start of the table (draw it at the top), time runs left to
    /// right. Traffic metrics are per-second rates.
    pub values: Vec<f32>,
    /// The largest value (for the relative scale).
    pub max: f32,
    /// The value that fills the absolute scale.
    pub reference: f32,
    /// The key buckets, in key order.
    pub keys: Vec<KeyBucket>,
}

impl Heatmap {
    /// Builds a heatmap of `metric` over the filled time buckets.
    /// `reference` is the absolute-scale maximum in the metric's unit.
    #[must_use]
    pub fn build(
        recorder: &Recorder,
        axis: &KeyAxis,
        grouping: &KeyGrouping,
        metric: Metric,
        reference: f32,
    ) -> Heatmap {
        let t_n = recorder.filled();
        let fine = recorder.fine_buckets();
        let k_n = grouping.len();
        let group_of = grouping.group_of_fine();
        let mut values = vec![0.0f32; k_n * t_n];
        let mut per_second = if metric.is_rate() && recorder.bucket_seconds() > 0.0 {
            (1.0 / recorder.bucket_seconds()) as f32
        } else {
            1.0
        };
        if matches!(metric, Metric::ReadCpu | Metric::WriteCpu) {
            per_second *= 100.0;
        }
        let accumulate = |m: &[f32], out: &mut Vec<f32>| {
            for (t, row) in m.chunks_exact(fine).take(t_n).enumerate() {
                for (&g, &v) in group_of.iter().zip(row) {
                    if let Some(cell) = out.get_mut(g as usize * t_n + t) {
                        *cell += v;
                    }
                }
            }
        };
        let stored = |m: Metric| recorder.matrix(m).unwrap_or_default();
        match metric {
            Metric::ScanRatio => {
                let mut scanned = vec![0.0f32; k_n * t_n];
                accumulate(stored(Metric::RowsScanned), &mut scanned);
                accumulate(stored(Metric::ReadRows), &mut values);
                for (v, s) in values.iter_mut().zip(&scanned) {
                    *v = if *s > 0.0 { *s / v.max(1.0) } else { 0.0 };
                }
            }
            Metric::Latency => {
                let mut work = vec![0.0f32; k_n * t_n];
                accumulate(stored(Metric::ReadCpu), &mut work);
                accumulate(stored(Metric::WriteCpu), &mut work);
                accumulate(recorder.latency_work(), &mut values);
                for (v, w) in values.iter_mut().zip(&work) {
                    *v = if *w > 0.0 { *v / *w } else { 0.0 };
                }
            }
            Metric::ReadPressure | Metric::WritePressure => {
                pressure_max(recorder, &group_of, metric, &mut values);
            }
            _ => {
                accumulate(stored(metric), &mut values);
                if per_second != 1.0 {
                    values.iter_mut().for_each(|v| *v *= per_second);
                }
            }
        }
        let max = values.iter().copied().fold(0.0f32, f32::max);
        let rows_state = recorder.totals_by_key(Metric::Rows);
        let keys = grouping
            .bounds
            .windows(2)
            .map(|w| {
                let (a, b) = match w {
                    [a, b] => (*a, *b),
                    _ => (0, 0),
                };
                KeyBucket {
                    start: escape_bytes(axis.start(a as usize)),
                    end: ((b as usize) < axis.len().min(fine))
                        .then(|| escape_bytes(axis.start(b as usize))),
                    fine: [a, b],
                    rows: rows_state
                        .get(a as usize..b as usize)
                        .map_or(0.0, |s| s.iter().sum()),
                }
            })
            .collect();
        Heatmap {
            metric,
            unit: metric.unit().to_string(),
            time_buckets: t_n,
            key_buckets: k_n,
            bucket_seconds: recorder.bucket_seconds(),
            values,
            max,
            reference,
            keys,
        }
    }

    /// One value.
    #[must_use]
    pub fn value(&self, key_bucket: usize, time_bucket: usize) -> f32 {
        if time_bucket >= self.time_buckets {
            return 0.0;
        }
        self.values
            .get(key_bucket * self.time_buckets + time_bucket)
            .copied()
            .unwrap_or(0.0)
    }

    /// Values mapped to `[0, 1]` on `scale`.
    #[must_use]
    pub fn normalized(&self, scale: ColorScale) -> Vec<f32> {
        let top = match scale {
            ColorScale::Relative => self.max,
            ColorScale::Absolute => self.reference,
        };
        if top.is_nan() || top <= 0.0 {
            return vec![0.0; self.values.len()];
        }
        self.values
            .iter()
            .map(|v| (v / top).clamp(0.0, 1.0))
            .collect()
    }

    /// RGBA pixels (4 bytes per cell, same layout as `values`) in the
    /// viridis colour map: ready for a canvas `ImageData` of
    /// `time_buckets x key_buckets` pixels. Empty cells are transparent.
    #[must_use]
    pub fn rgba(&self, scale: ColorScale) -> Vec<u8> {
        let norm = self.normalized(scale);
        let mut out = Vec::with_capacity(norm.len() * 4);
        for (&n, &v) in norm.iter().zip(&self.values) {
            if v > 0.0 {
                let [r, g, b] = viridis(n);
                out.extend_from_slice(&[r, g, b, 255]);
            } else {
                out.extend_from_slice(&[0, 0, 0, 0]);
            }
        }
        out
    }
}

/// Per display bucket and time bucket, the highest pressure index of
/// its fine buckets ([`super::pressure`]), into `out`
/// (`out[group * t_n + t]`).
pub(super) fn pressure_max(recorder: &Recorder, group_of: &[u32], metric: Metric, out: &mut [f32]) {
    let t_n = recorder.filled();
    let fine = recorder.fine_buckets();
    let secs = recorder.bucket_seconds().max(1e-9);
    let base = recorder.base_latency_ms();
    let own = if metric == Metric::ReadPressure {
        Metric::ReadCpu
    } else {
        Metric::WriteCpu
    };
    let other = if own == Metric::ReadCpu {
        Metric::WriteCpu
    } else {
        Metric::ReadCpu
    };
    let (Some(own), Some(other)) = (recorder.matrix(own), recorder.matrix(other)) else {
        return;
    };
    let lw = recorder.latency_work();
    // The index is 100 * sqrt(q) with q the product of the two ratios (see
    // `pressure_index`): the worst fine bucket of a group has the largest
    // q, so each cell needs only q, and each group one square root.
    let cpu_scale = 1.0 / (secs * CPU_AT_POOR);
    let slow_scale = 1.0 / (SLOWDOWN_AT_POOR - 1.0);
    let k_n = out.len() / t_n.max(1);
    let mut row_max = vec![0.0f64; k_n];
    for t in 0..t_n {
        let row = t * fine..(t + 1) * fine;
        let (Some(own), Some(other), Some(lw)) =
            (own.get(row.clone()), other.get(row.clone()), lw.get(row))
        else {
            continue;
        };
        row_max.iter_mut().for_each(|q| *q = 0.0);
        for (((&g, &c), &o), &l) in group_of.iter().zip(own).zip(other).zip(lw) {
            if c <= 0.0 {
                continue;
            }
            let slowdown = f64::from(l) / (f64::from(c + o) * base) - 1.0;
            let q = f64::from(c) * cpu_scale * slowdown.max(0.0) * slow_scale;
            if let Some(m) = row_max.get_mut(g as usize)
                && q > *m
            {
                *m = q;
            }
        }
        for (g, &q) in row_max.iter().enumerate() {
            if q > 0.0
                && let Some(cell) = out.get_mut(g * t_n + t)
            {
                *cell = (POOR_PRESSURE * q.sqrt()) as f32;
            }
        }
    }
}

/// The viridis colour map (perceptually uniform, colour-blind safe) at
/// `t` in `[0, 1]`, interpolated between ten of its stops.
#[must_use]
pub fn viridis(t: f32) -> [u8; 3] {
    const STOPS: [[u8; 3]; 10] = [
        [0x44, 0x01, 0x54],
        [0x48, 0x28, 0x78],
        [0x3e, 0x49, 0x89],
        [0x31, 0x68, 0x8e],
        [0x26, 0x82, 0x8e],
        [0x1f, 0x9e, 0x89],
        [0x35, 0xb7, 0x79],
        [0x6e, 0xce, 0x58],
        [0xb5, 0xde, 0x2b],
        [0xfd, 0xe7, 0x25],
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * 9.0;
    let i = (x as usize).min(8);
    let f = x - i as f32;
    let (Some(a), Some(b)) = (STOPS.get(i), STOPS.get(i + 1)) else {
        return STOPS[9];
    };
    let mix = |p: u8, q: u8| (f32::from(p) + (f32::from(q) - f32::from(p)) * f).round() as u8;
    [mix(a[0], b[0]), mix(a[1], b[1]), mix(a[2], b[2])]
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn grouping_by_weight() {
        let g = KeyGrouping::by_weight(&[1.0; 10], 5);
        assert_eq!(g.bounds, vec![0, 2, 4, 6, 8, 10]);
        let g = KeyGrouping::by_weight(&[1.0; 3], 5);
        assert_eq!(g.bounds, vec![0, 1, 2, 3]);
        // A heavy bucket stands alone and the rest share the other groups.
        let mut w = vec![1.0; 20];
        w[5] = 100.0;
        let g = KeyGrouping::by_weight(&w, 4);
        assert_eq!(g.len(), 4);
        assert!(g.bounds.windows(2).any(|p| p == [5, 6]), "{:?}", g.bounds);
        let g = KeyGrouping::by_weight(&[0.0; 8], 4);
        assert_eq!(g.bounds, vec![0, 2, 4, 6, 8]);
        assert_eq!(g.group_of_fine(), vec![0, 0, 1, 1, 2, 2, 3, 3]);
        let g = KeyGrouping::by_weight(&[f64::NAN, 1.0, 1.0, 1.0], 2);
        assert_eq!(g.len(), 2);
    }

    #[test]
    fn traffic_weighted_keeps_hot_ranges_fine() {
        let rows = vec![1.0; 100];
        let mut traffic = vec![0.0; 100];
        for t in traffic.iter_mut().skip(40).take(10) {
            *t = 10.0;
        }
        let even = KeyGrouping::for_mode(BucketMode::EqualKeys, &rows, &traffic, 10);
        let hot = KeyGrouping::for_mode(BucketMode::TrafficWeighted, &rows, &traffic, 10);
        let in_hot = |g: &KeyGrouping| {
            g.bounds
                .windows(2)
                .filter(|w| w[0] >= 40 && w[1] <= 50)
                .count()
        };
        assert!(
            in_hot(&hot) > in_hot(&even),
            "{:?} vs {:?}",
            hot.bounds,
            even.bounds
        );
    }

    #[test]
    fn builds_rates_and_colours() {
        let mut samples: Vec<Vec<u8>> = (0..4u8).map(|i| vec![b'a' + i]).collect();
        let axis = KeyAxis::from_samples(&mut samples, 4);
        let mut rec = Recorder::new(2, axis.len(), 10.0);
        rec.add_write(1, 10.0, 10.0, 1000.0);
        rec.add_read(2, 1.0, 1.0, 100.0, 20.0);
        rec.close(0, &[0.0, 1.0, 1.0, 1.0], &[0.0; 4]);
        let g = KeyGrouping::by_weight(&[1.0; 4], 2);
        let h = Heatmap::build(&rec, &axis, &g, Metric::WriteRows, 14_000.0);
        assert_eq!((h.key_buckets, h.time_buckets), (2, 1));
        assert_eq!(h.value(0, 0), 1.0);
        assert_eq!(h.max, 1.0);
        assert_eq!(h.keys[0].start, "");
        assert_eq!(h.keys[1].start, "c");
        assert_eq!(h.keys[1].end, None);
        let ratio = Heatmap::build(&rec, &axis, &g, Metric::ScanRatio, 1.0);
        assert_eq!(ratio.value(1, 0), 20.0);
        let px = h.rgba(ColorScale::Relative);
        assert_eq!(px.len(), 8);
        assert_eq!(&px[0..4], &[0xfd, 0xe7, 0x25, 255]);
        assert_eq!(px[7], 0, "empty cells are transparent");
        let abs = h.normalized(ColorScale::Absolute);
        assert!(abs[0] < 0.001);
        assert_eq!(viridis(0.0), [0x44, 0x01, 0x54]);
        assert_eq!(viridis(f32::NAN), [0x44, 0x01, 0x54]);
    }
}
