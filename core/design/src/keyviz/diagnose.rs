//! Naming the pattern: rules that read the recorded matrices (plus node
//! CPU and the busiest keys) and report findings from a fixed vocabulary,
//! each with where, when, how bad and what to do.
//!
//! The rules work on a coarse grid of 50 equal-row key buckets by time
//! bucket (fine enough to see shapes, coarse enough to be robust):
//!
//! - `sequential_writes`: in most busy time buckets, at most 12% of the key
//!   buckets take 80% of the writes, and the centre of the writes moves
//!   steadily through the keys (rank correlation with time of at least
//!   0.8): the diagonal of monotonically increasing (or decreasing) keys.
//! - `hot_row`: one key takes at least 10% of all point operations (or 2%
//!   while needing a quarter of a node on its own) and at least 1% of a
//!   node's capacity.
//! - `hot_key_range`: adjacent key buckets each with at least three times
//!   their fair share of operations, together at least 15% of all
//!   operations on at most 30% of the keys, hot in at least half of the
//!   busy time buckets, and not explained by a hot row or a sequential band.
//! - `periodic`: at least three bursts at regular intervals (gaps varying by
//!   at most 25%), or a strong repeating cycle (autocorrelation of at least
//!   0.5 over at least two periods).
//! - `time_event`: one or two bursts (at least three times the median
//!   traffic) that light up at least half of the key space at once: a
//!   vertical band.
//! - `full_scans`: reads examine at least five rows for every row they
//!   return, across at least 80% of the key space.
//! - `large_rows`: a row (or the average row of a key range) estimated at
//!   100 MiB or more; critical from 256 MiB, Bigtable's hard limit per row.
//! - `even`: none of the hotspot findings above, traffic on every key
//!   bucket within three times its fair share, and node CPU within 1.5
//!   times the cluster average (plus 5 points).
//!
//! Severity: `critical` when a node involved runs at 90% CPU or more (or
//! a row passes 256 MiB), `warning` for a design problem that costs
//! capacity, `info` otherwise.

use serde::{Deserialize, Serialize};

use super::{KeyAxis, KeyGrouping, Metric, Recorder};
use tabletop_store::escape_bytes;
use tabletop_store::human_bytes;

/// Coarse key buckets the rules look at.
const COARSE: usize = 50;
/// Bigtable's hard limit on the size of one row.
const ROW_LIMIT_BYTES: f64 = 256.0 * 1024.0 * 1024.0;
/// Where a row counts as large (the recommended maximum for a row's values).
const LARGE_ROW_BYTES: f64 = 100.0 * 1024.0 * 1024.0;

/// The fixed vocabulary of findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// New keys always land at the end (or start) of the key space: a
    /// diagonal or creeping band.
    SequentialWrites,
    /// A key range takes far more than its share, for a long time.
    HotKeyRange,
    /// One row takes a large share of all operations.
    HotRow,
    /// Load arrives in regular bursts.
    Periodic,
    /// A one-off burst across the key space: a vertical band.
    TimeEvent,
    /// Load is spread over keys and nodes.
    Even,
    /// Rows grow towards Bigtable's row size limit.
    LargeRows,
    /// Reads scan the whole table to return few rows.
    FullScans,
}

impl Pattern {
    /// Every pattern, in report order.
    pub const ALL: [Pattern; 8] = [
        Pattern::SequentialWrites,
        Pattern::HotRow,
        Pattern::HotKeyRange,
        Pattern::LargeRows,
        Pattern::FullScans,
        Pattern::TimeEvent,
        Pattern::Periodic,
        Pattern::Even,
    ];

    /// The snake_case name used in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Pattern::SequentialWrites => "sequential_writes",
            Pattern::HotKeyRange => "hot_key_range",
            Pattern::HotRow => "hot_row",
            Pattern::Periodic => "periodic",
            Pattern::TimeEvent => "time_event",
            Pattern::Even => "even",
            Pattern::LargeRows => "large_rows",
            Pattern::FullScans => "full_scans",
        }
    }

    /// What to do about it, in one sentence.
    #[must_use]
    pub fn remedy(self) -> &'static str {
        match self {
            Pattern::SequentialWrites => {
                "Start the row key with a field that has many values, such as a device or user id \
                 (or a salt derived from one), and move the timestamp or counter behind it, so new \
                 rows land all over the key space instead of at one end."
            }
            Pattern::HotKeyRange => {
                "Give this range's rows more distinct leading key values: put a high-cardinality \
                 field earlier in the key, or split a dominant prefix (a big tenant, a popular \
                 item) into several sub-prefixes so its load can move to other nodes."
            }
            Pattern::HotRow => {
                "Stop updating a single row over and over: write each new value as its own row \
                 (for example id#metric#timestamp), or keep the running value in the application \
                 and write it to Bigtable now and then."
            }
            Pattern::Periodic => {
                "Plan capacity for the bursts, not the average: add nodes (or let autoscaling add \
                 them) before each run, or spread the batch job's work over a longer window."
            }
            Pattern::TimeEvent => {
                "This burst touched most of the key space at once, so the key design is not the \
                 cause: add nodes ahead of known events, or throttle the client that sent it."
            }
            Pattern::Even => {
                "Nothing to fix: the design spreads work over keys and nodes; keep the leading \
                 key segment varied as the data grows."
            }
            Pattern::LargeRows => {
                "Keep rows small: cap versions with a garbage-collection rule, or move data that \
                 keeps growing into new rows (one per reading or per period), well below the 256 \
                 MiB limit per row."
            }
            Pattern::FullScans => {
                "Make the field these reads filter on part of the row-key prefix, so that each \
                 read becomes a prefix or range scan instead of a pass over the whole table."
            }
        }
    }
}

/// How urgent a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth knowing.
    Info,
    /// A design problem that costs capacity or will as the table grows.
    Warning,
    /// Nodes are saturated (or a row passes the size limit) now.
    Critical,
}

impl Severity {
    /// `info`, `warning` or `critical`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Which pattern.
    pub pattern: Pattern,
    /// How urgent.
    pub severity: Severity,
    /// First key of the affected range (escaped; empty: start of table).
    pub key_start: String,
    /// Key after the range (escaped; `None`: end of table).
    pub key_end: Option<String>,
    /// Start of the affected time, seconds from the start of the run.
    pub time_start_seconds: f64,
    /// End of the affected time, seconds from the start of the run.
    pub time_end_seconds: f64,
    /// What was seen, with numbers.
    pub evidence: String,
    /// What to do ([`Pattern::remedy`]).
    pub remedy: String,
}

/// One of the busiest keys, with what the simulator knows about it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HotKey {
    /// The row key.
    pub key: Vec<u8>,
    /// Point operations on it (reads plus writes).
    pub ops: f64,
    /// Writes among them.
    pub writes: f64,
    /// Estimated size of the row at the end, in bytes.
    pub row_bytes: f64,
    /// The share of one node's capacity this key alone needs (1.0 = a
    /// whole node).
    pub node_share: f64,
}

/// Everything the rules read.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The recorded matrices.
    pub recorder: &'a Recorder,
    /// The fine key axis.
    pub axis: &'a KeyAxis,
    /// CPU % per node per time bucket: `node_cpu[t * nodes + n]`.
    pub node_cpu: &'a [f32],
    /// Number of nodes.
    pub nodes: usize,
    /// The busiest keys, busiest first.
    pub hot_keys: &'a [HotKey],
    /// Point operations (reads plus writes) in total.
    pub point_ops: f64,
}

/// A metric summed into coarse key buckets: `v[t * k + bucket]`.
struct Grid {
    k: usize,
    t: usize,
    v: Vec<f64>,
    /// Fine-bucket bounds of each coarse bucket.
    bounds: Vec<u32>,
}

impl Grid {
    fn new(rec: &Recorder, metric: Metric, grouping: &KeyGrouping) -> Grid {
        let k = grouping.len().max(1);
        let t_n = rec.filled();
        let fine = rec.fine_buckets();
        let group_of = grouping.group_of_fine();
        let mut v = vec![0.0; k * t_n];
        if let Some(m) = rec.matrix(metric) {
            for (t, row) in m.chunks_exact(fine).take(t_n).enumerate() {
                for (&g, &x) in group_of.iter().zip(row) {
                    if let Some(c) = v.get_mut(t * k + g as usize) {
                        *c += f64::from(x);
                    }
                }
            }
        }
        Grid {
            k,
            t: t_n,
            v,
            bounds: grouping.bounds.clone(),
        }
    }

    fn row(&self, t: usize) -> &[f64] {
        self.v.get(t * self.k..(t + 1) * self.k).unwrap_or_default()
    }

    fn time_totals(&self) -> Vec<f64> {
        (0..self.t).map(|t| self.row(t).iter().sum()).collect()
    }

    fn key_totals(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.k];
        for t in 0..self.t {
            for (o, v) in out.iter_mut().zip(self.row(t)) {
                *o += v;
            }
        }
        out
    }

    /// Fine-bucket range `[a, b)` of coarse buckets `first..=last`.
    fn fine_range(&self, first: usize, last: usize) -> (usize, usize) {
        (
            self.bounds.get(first).copied().unwrap_or(0) as usize,
            self.bounds.get(last + 1).copied().unwrap_or(0) as usize,
        )
    }
}

/// Runs every rule.
#[must_use]
pub fn diagnose(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let rec = ctx.recorder;
    let mut out = Vec::new();
    if rec.filled() == 0 {
        return out;
    }
    let rows = rec.totals_by_key(Metric::Rows);
    let grouping = KeyGrouping::by_weight(&rows, COARSE);
    let ops = Grid::new(rec, Metric::Ops, &grouping);
    let writes = Grid::new(rec, Metric::WriteRows, &grouping);

    let sequential = sequential_writes(ctx, &writes);
    let band = sequential.as_ref().map(|(_, range)| *range);
    if let Some((d, _)) = sequential {
        out.push(d);
    }
    let hot_rows = hot_rows(ctx);
    let hot_row_fine: Vec<(usize, f64)> = hot_rows
        .iter()
        .map(|(_, hk)| (ctx.axis.bucket_of(&hk.key), hk.ops))
        .collect();
    out.extend(hot_rows.into_iter().map(|(d, _)| d));
    out.extend(hot_key_ranges(ctx, &ops, band, &hot_row_fine));
    out.extend(large_rows(ctx, &rows));
    out.extend(full_scans(ctx, &grouping));
    out.extend(bursts(ctx, &ops));
    let hotspot = out.iter().any(|d| {
        matches!(
            d.pattern,
            Pattern::SequentialWrites | Pattern::HotKeyRange | Pattern::HotRow
        ) && d.severity >= Severity::Warning
    });
    if !hotspot && let Some(d) = even(ctx, &ops) {
        out.push(d);
    }
    out.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then_with(|| {
            let pos = |p: Pattern| Pattern::ALL.iter().position(|&q| q == p);
            pos(a.pattern).cmp(&pos(b.pattern))
        })
    });
    out
}

fn diag(
    ctx: &Context<'_>,
    pattern: Pattern,
    severity: Severity,
    fine: (usize, usize),
    time: (usize, usize),
    evidence: String,
) -> Diagnostic {
    let secs = ctx.recorder.bucket_seconds();
    let (a, b) = fine;
    Diagnostic {
        pattern,
        severity,
        key_start: escape_bytes(ctx.axis.start(a)),
        key_end: (b < ctx.axis.len()).then(|| escape_bytes(ctx.axis.start(b))),
        time_start_seconds: time.0 as f64 * secs,
        time_end_seconds: (time.1 + 1) as f64 * secs,
        evidence,
        remedy: pattern.remedy().to_string(),
    }
}

/// Highest CPU % of any node in time buckets `t0..=t1`, and that node.
fn peak_cpu(ctx: &Context<'_>, t0: usize, t1: usize) -> (f32, usize) {
    let mut best = (0.0f32, 0usize);
    if ctx.nodes == 0 {
        return best;
    }
    for t in t0..=t1 {
        for n in 0..ctx.nodes {
            let v = ctx.node_cpu.get(t * ctx.nodes + n).copied().unwrap_or(0.0);
            if v > best.0 {
                best = (v, n);
            }
        }
    }
    best
}

/// Mean CPU % of each node over time buckets `t0..=t1`.
fn mean_cpu(ctx: &Context<'_>, t0: usize, t1: usize) -> Vec<f64> {
    let mut out = vec![0.0; ctx.nodes];
    let span = (t1 + 1).saturating_sub(t0).max(1) as f64;
    for t in t0..=t1 {
        for (n, o) in out.iter_mut().enumerate() {
            *o += f64::from(ctx.node_cpu.get(t * ctx.nodes + n).copied().unwrap_or(0.0)) / span;
        }
    }
    out
}

fn severity_for_cpu(peak: f32) -> Severity {
    if peak >= 90.0 {
        Severity::Critical
    } else {
        Severity::Warning
    }
}

/// Time buckets whose total is at least `frac` of the largest.
fn active(totals: &[f64], frac: f64) -> Vec<usize> {
    let max = totals.iter().copied().fold(0.0, f64::max);
    if max <= 0.0 {
        return Vec::new();
    }
    (0..totals.len())
        .filter(|&t| totals.get(t).is_some_and(|&v| v > 0.0 && v >= frac * max))
        .collect()
}

/// Time buckets whose total is at least `frac` of the typical busy
/// bucket: the 90th percentile of the non-zero totals, so that one burst
/// (a bulk load before a steady stream of writes) does not set the bar
/// that every other bucket is measured against.
fn steady(totals: &[f64], frac: f64) -> Vec<usize> {
    let mut busy: Vec<f64> = totals.iter().copied().filter(|&v| v > 0.0).collect();
    if busy.is_empty() {
        return Vec::new();
    }
    busy.sort_by(f64::total_cmp);
    let at = (busy.len() - 1) * 9 / 10;
    let typical = busy.get(at).copied().unwrap_or(0.0);
    (0..totals.len())
        .filter(|&t| {
            totals
                .get(t)
                .is_some_and(|&v| v > 0.0 && v >= frac * typical)
        })
        .collect()
}

/// Fraction of buckets needed to hold 80% of `row`'s total.
fn coverage(row: &[f64]) -> f64 {
    let total: f64 = row.iter().sum();
    if total <= 0.0 || row.is_empty() {
        return 1.0;
    }
    let mut sorted: Vec<f64> = row.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let mut acc = 0.0;
    for (i, v) in sorted.iter().enumerate() {
        acc += v;
        if acc >= 0.8 * total {
            return (i + 1) as f64 / row.len() as f64;
        }
    }
    1.0
}

fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&a, &b| {
        xs.get(a)
            .copied()
            .unwrap_or(0.0)
            .total_cmp(&xs.get(b).copied().unwrap_or(0.0))
    });
    let mut out = vec![0.0; xs.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        let vi = idx.get(i).and_then(|&k| xs.get(k)).copied();
        while j + 1 < idx.len() && idx.get(j + 1).and_then(|&k| xs.get(k)).copied() == vi {
            j += 1;
        }
        let r = (i + j) as f64 / 2.0;
        for k in i..=j {
            if let Some(&pos) = idx.get(k)
                && let Some(o) = out.get_mut(pos)
            {
                *o = r;
            }
        }
        i = j + 1;
    }
    out
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    if n < 2 {
        return 0.0;
    }
    let ma = a.iter().take(n).sum::<f64>() / n as f64;
    let mb = b.iter().take(n).sum::<f64>() / n as f64;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b).take(n) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    if saa <= 0.0 || sbb <= 0.0 {
        return 0.0;
    }
    sab / (saa * sbb).sqrt()
}

/// The diagonal: returns the finding and the fine-bucket range of the band.
fn sequential_writes(ctx: &Context<'_>, writes: &Grid) -> Option<(Diagnostic, (usize, usize))> {
    let totals = writes.time_totals();
    let act = steady(&totals, 0.2);
    if act.len() < 5 {
        return None;
    }
    let mut covs: Vec<f64> = act.iter().map(|&t| coverage(writes.row(t))).collect();
    covs.sort_by(f64::total_cmp);
    let median_cov = covs.get(covs.len() / 2).copied().unwrap_or(1.0);
    if median_cov > 0.12 {
        return None;
    }
    // Centre of the writes per busy time bucket, in fine buckets.
    let rec = ctx.recorder;
    let fine = rec.fine_buckets();
    let m = rec.matrix(Metric::WriteRows)?;
    let centres: Vec<f64> = act
        .iter()
        .map(|&t| {
            let row = m.get(t * fine..(t + 1) * fine).unwrap_or_default();
            let (mut s, mut w) = (0.0, 0.0);
            for (f, &v) in row.iter().enumerate() {
                s += f as f64 * f64::from(v);
                w += f64::from(v);
            }
            if w > 0.0 { s / w } else { 0.0 }
        })
        .collect();
    let times: Vec<f64> = act.iter().map(|&t| t as f64).collect();
    let rho = pearson(&ranks(&times), &ranks(&centres));
    let lo = centres.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = centres.iter().copied().fold(0.0, f64::max);
    let min_span = (fine as f64 / 200.0).max(3.0);
    if rho.abs() < 0.8 || hi - lo < min_span {
        return None;
    }
    let (t0, t1) = (*act.first()?, *act.last()?);
    let (peak, node) = peak_cpu(ctx, t0, t1);
    let means = mean_cpu(ctx, t0, t1);
    let avg = means.iter().sum::<f64>() / means.len().max(1) as f64;
    let a = lo.floor() as usize;
    let b = (hi.ceil() as usize + 1).min(ctx.axis.len());
    // In the words of the map, which draws the start of the key space at
    // the top: keys that grow move the band down.
    let direction = if rho > 0.0 {
        "towards the end of the key space (down the map: each new key sorts after the last)"
    } else {
        "towards the start of the key space (up the map: each new key sorts before the last)"
    };
    let evidence = format!(
        "In a typical busy interval {:.0}% of the key space took 80% of the writes, and that \
         narrow band moved steadily {direction}; rank correlation of its position with time \
         {rho:.2}. All inserts therefore hit one tablet at a time, served by one node: the busiest \
         node (node {node}) peaked at {peak:.0}% CPU while the cluster averaged {avg:.0}%.",
        median_cov * 100.0
    );
    Some((
        diag(
            ctx,
            Pattern::SequentialWrites,
            severity_for_cpu(peak),
            (a, b),
            (t0, t1),
            evidence,
        ),
        (a, b),
    ))
}

fn hot_rows(ctx: &Context<'_>) -> Vec<(Diagnostic, HotKey)> {
    let mut out = Vec::new();
    let total = ctx.point_ops;
    if total <= 0.0 {
        return out;
    }
    let rec = ctx.recorder;
    let ops = rec.matrix(Metric::Ops);
    for hk in ctx.hot_keys.iter().take(3) {
        let share = hk.ops / total;
        let heavy = share >= 0.10 || (share >= 0.02 && hk.node_share >= 0.25);
        if !heavy || hk.node_share < 0.01 {
            continue;
        }
        let f = ctx.axis.bucket_of(&hk.key);
        // When the row was busy: time buckets where its fine bucket had at
        // least half of its peak traffic.
        let series: Vec<f64> = (0..rec.filled())
            .map(|t| {
                ops.and_then(|m| m.get(t * rec.fine_buckets() + f))
                    .map_or(0.0, |&v| f64::from(v))
            })
            .collect();
        let act = active(&series, 0.5);
        let (t0, t1) = match (act.first(), act.last()) {
            (Some(&a), Some(&b)) => (a, b),
            _ => (0, rec.filled().saturating_sub(1)),
        };
        let (peak, node) = peak_cpu(ctx, t0, t1);
        let severity = if hk.node_share >= 0.9 || peak >= 90.0 {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let evidence = format!(
            "The single row `{}` took {:.1}% of all reads and writes ({} operations, {} of \
             them writes); on its own it needs {:.0}% of a node, and a row cannot be split \
             across tablets. The busiest node (node {node}) peaked at {peak:.0}% CPU.",
            escape_bytes(&hk.key),
            share * 100.0,
            count(hk.ops),
            count(hk.writes),
            hk.node_share * 100.0
        );
        let mut d = diag(
            ctx,
            Pattern::HotRow,
            severity,
            (f, f + 1),
            (t0, t1),
            evidence,
        );
        d.key_start = escape_bytes(&hk.key);
        let mut end = hk.key.clone();
        end.push(0);
        d.key_end = Some(escape_bytes(&end));
        out.push((d, hk.clone()));
    }
    out
}

fn hot_key_ranges(
    ctx: &Context<'_>,
    ops: &Grid,
    band: Option<(usize, usize)>,
    hot_rows: &[(usize, f64)],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let by_key = ops.key_totals();
    let total: f64 = by_key.iter().sum();
    if total <= 0.0 || ops.k < 4 {
        return out;
    }
    let fair = 1.0 / ops.k as f64;
    let hot: Vec<bool> = by_key.iter().map(|v| v / total >= 3.0 * fair).collect();
    let times = ops.time_totals();
    let act = active(&times, 0.2);
    let mut k = 0;
    while k < ops.k {
        if !hot.get(k).copied().unwrap_or(false) {
            k += 1;
            continue;
        }
        let first = k;
        while hot.get(k + 1).copied().unwrap_or(false) {
            k += 1;
        }
        let last = k;
        k += 1;
        let width = last - first + 1;
        let range_ops: f64 = by_key.get(first..=last).map_or(0.0, |s| s.iter().sum());
        let share = range_ops / total;
        if share < 0.15 || width as f64 > 0.3 * ops.k as f64 {
            continue;
        }
        let (fa, fb) = ops.fine_range(first, last);
        if let Some((ba, bb)) = band {
            let overlap = fb.min(bb).saturating_sub(fa.max(ba));
            if overlap * 2 >= fb.saturating_sub(fa).max(1) {
                continue;
            }
        }
        let explained: f64 = hot_rows
            .iter()
            .filter(|(f, _)| (fa..fb).contains(f))
            .map(|(_, o)| o)
            .sum();
        if explained >= 0.6 * range_ops {
            continue;
        }
        // Persistent: hot in at least half of the busy time buckets.
        let width_share = width as f64 * fair;
        let hot_times: Vec<usize> = act
            .iter()
            .copied()
            .filter(|&t| {
                let row = ops.row(t);
                let tot: f64 = row.iter().sum();
                let r: f64 = row.get(first..=last).map_or(0.0, |s| s.iter().sum());
                tot > 0.0 && r / tot >= 2.0 * width_share
            })
            .collect();
        if (hot_times.len() as f64) < 0.5 * act.len() as f64 {
            continue;
        }
        let (t0, t1) = match (hot_times.first(), hot_times.last()) {
            (Some(&a), Some(&b)) => (a, b),
            _ => continue,
        };
        let (peak, node) = peak_cpu(ctx, t0, t1);
        let severity = if peak >= 90.0 {
            Severity::Critical
        } else if peak >= 60.0 || share >= 0.3 {
            Severity::Warning
        } else {
            Severity::Info
        };
        let evidence = format!(
            "{:.0}% of the key space took {:.0}% of all operations ({:.1} times its fair share) \
             for most of the run. The busiest node (node {node}) peaked at {peak:.0}% CPU.",
            width_share * 100.0,
            share * 100.0,
            share / width_share
        );
        out.push(diag(
            ctx,
            Pattern::HotKeyRange,
            severity,
            (fa, fb),
            (t0, t1),
            evidence,
        ));
    }
    out
}

fn large_rows(ctx: &Context<'_>, rows: &[f64]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let rec = ctx.recorder;
    let last = rec.filled().saturating_sub(1);
    let span = (0, last);
    let mut flagged_fine = Vec::new();
    for hk in ctx.hot_keys.iter().take(8) {
        if hk.row_bytes < LARGE_ROW_BYTES {
            continue;
        }
        let f = ctx.axis.bucket_of(&hk.key);
        flagged_fine.push(f);
        let severity = if hk.row_bytes >= ROW_LIMIT_BYTES {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let evidence = format!(
            "The row `{}` grew to about {} by the end of the run (every update added a \
             new cell version); Bigtable refuses rows over 256 MiB and reads slow down long \
             before that.",
            escape_bytes(&hk.key),
            human_bytes(hk.row_bytes)
        );
        let mut d = diag(
            ctx,
            Pattern::LargeRows,
            severity,
            (f, f + 1),
            span,
            evidence,
        );
        d.key_start = escape_bytes(&hk.key);
        let mut end = hk.key.clone();
        end.push(0);
        d.key_end = Some(escape_bytes(&end));
        out.push(d);
    }
    // Key ranges whose average row is large.
    let bytes = rec.totals_by_key(Metric::DataStored);
    let mut f = 0;
    while f < rows.len() {
        let big = |i: usize| {
            let r = rows.get(i).copied().unwrap_or(0.0);
            let b = bytes.get(i).copied().unwrap_or(0.0);
            r >= 1.0 && b / r >= LARGE_ROW_BYTES && !flagged_fine.contains(&i)
        };
        if !big(f) {
            f += 1;
            continue;
        }
        let a = f;
        while big(f + 1) {
            f += 1;
        }
        let b = f + 1;
        f += 1;
        let r: f64 = rows.get(a..b).map_or(0.0, |s| s.iter().sum());
        let by: f64 = bytes.get(a..b).map_or(0.0, |s| s.iter().sum());
        let avg = by / r.max(1.0);
        let severity = if avg >= ROW_LIMIT_BYTES {
            Severity::Critical
        } else {
            Severity::Warning
        };
        out.push(diag(
            ctx,
            Pattern::LargeRows,
            severity,
            (a, b),
            span,
            format!(
                "Rows in this range average about {} ({r:.0} rows, {}).",
                human_bytes(avg),
                human_bytes(by)
            ),
        ));
    }
    out
}

fn full_scans(ctx: &Context<'_>, grouping: &KeyGrouping) -> Option<Diagnostic> {
    let rec = ctx.recorder;
    let scanned = Grid::new(rec, Metric::RowsScanned, grouping);
    let returned: f64 = rec.totals_by_time(Metric::ReadRows).iter().sum();
    let s_times = scanned.time_totals();
    let s_total: f64 = s_times.iter().sum();
    if s_total <= 0.0 || s_total < 5.0 * returned.max(1.0) {
        return None;
    }
    // Breadth: share of key buckets scanned, weighted by scan volume.
    let mut breadth = 0.0;
    for (t, &tot) in s_times.iter().enumerate() {
        if tot > 0.0 {
            let touched = scanned.row(t).iter().filter(|&&v| v > 0.0).count();
            breadth += tot / s_total * touched as f64 / scanned.k.max(1) as f64;
        }
    }
    if breadth < 0.8 {
        return None;
    }
    let act = active(&s_times, 0.01);
    let (t0, t1) = (*act.first()?, *act.last()?);
    let (peak, node) = peak_cpu(ctx, t0, t1);
    let severity = severity_for_cpu(peak);
    Some(diag(
        ctx,
        Pattern::FullScans,
        severity,
        (0, ctx.axis.len()),
        (t0, t1),
        format!(
            "Reads examined {:.0} rows for every row they returned ({:.3e} scanned, {:.3e} \
             returned), sweeping {:.0}% of the key space each time. The busiest node (node \
             {node}) peaked at {peak:.0}% CPU.",
            s_total / returned.max(1.0),
            s_total,
            returned,
            breadth * 100.0
        ),
    ))
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// `periodic` and `time_event`.
fn bursts(ctx: &Context<'_>, ops: &Grid) -> Option<Diagnostic> {
    let x = ops.time_totals();
    let n = x.len();
    if n < 12 {
        return None;
    }
    let med = median(&x);
    let peak = x.iter().copied().fold(0.0, f64::max);
    if peak <= 0.0 {
        return None;
    }
    let theta = med + 0.5 * (peak - med);
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut t = 0;
    while t < n {
        if x.get(t).is_some_and(|&v| v > theta) {
            let s = t;
            while x.get(t + 1).is_some_and(|&v| v > theta) {
                t += 1;
            }
            runs.push((s, t));
        }
        t += 1;
    }
    let bursty = peak >= 2.0 * med;
    let regular_bursts = bursty && runs.len() >= 3 && {
        let gaps: Vec<f64> = runs
            .windows(2)
            .map(|w| match w {
                [a, b] => (b.0 - a.0) as f64,
                _ => 0.0,
            })
            .collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / gaps.len() as f64;
        mean > 0.0 && var.sqrt() / mean <= 0.25
    };
    let (cycle, lag) = autocorrelation_cycle(&x);
    let secs = ctx.recorder.bucket_seconds();
    if regular_bursts || cycle {
        let (t0, t1) = if regular_bursts {
            (
                runs.first().map_or(0, |r| r.0),
                runs.last().map_or(n - 1, |r| r.1),
            )
        } else {
            (0, n - 1)
        };
        let (fa, fb) = burst_keys(ops, &runs, med);
        let (peak_cpu_v, node) = peak_cpu(ctx, t0, t1);
        let severity = if peak_cpu_v >= 90.0 {
            Severity::Warning
        } else {
            Severity::Info
        };
        let period = if regular_bursts {
            let first = runs.first().map_or(0, |r| r.0);
            let last = runs.last().map_or(0, |r| r.0);
            (last - first) as f64 / (runs.len() - 1) as f64 * secs
        } else {
            lag * secs
        };
        let evidence = if regular_bursts {
            format!(
                "{} bursts of up to {:.1} times the median traffic arrived about every {}, \
                 with quieter time in between. The busiest node (node {node}) peaked at \
                 {peak_cpu_v:.0}% CPU during the bursts.",
                runs.len(),
                peak / med.max(f64::MIN_POSITIVE),
                human_seconds(period)
            )
        } else {
            format!(
                "Traffic follows a repeating cycle of about {} (it rises and falls between \
                 {:.0}% and 100% of its peak). The busiest node (node {node}) peaked at \
                 {peak_cpu_v:.0}% CPU.",
                human_seconds(period),
                x.iter().copied().fold(f64::INFINITY, f64::min) / peak * 100.0
            )
        };
        return Some(diag(
            ctx,
            Pattern::Periodic,
            severity,
            (fa, fb),
            (t0, t1),
            evidence,
        ));
    }
    if bursty && (1..=2).contains(&runs.len()) && peak >= 3.0 * med {
        // Vertical band: the burst raised most key buckets at once.
        let in_burst = |t: usize| runs.iter().any(|&(a, b)| (a..=b).contains(&t));
        let mut burst_mean = vec![0.0; ops.k];
        let mut base_mean = vec![0.0; ops.k];
        let (mut nb, mut nn) = (0.0, 0.0);
        for t in 0..ops.t {
            let (dst, cnt) = if in_burst(t) {
                (&mut burst_mean, &mut nb)
            } else {
                (&mut base_mean, &mut nn)
            };
            *cnt += 1.0;
            for (d, v) in dst.iter_mut().zip(ops.row(t)) {
                *d += v;
            }
        }
        let raised = burst_mean
            .iter()
            .zip(&base_mean)
            .filter(|(b, o)| {
                let b = *b / f64::max(nb, 1.0);
                let o = *o / f64::max(nn, 1.0);
                b > 0.0 && b >= 2.0 * o
            })
            .count();
        let breadth = raised as f64 / ops.k as f64;
        if breadth < 0.5 {
            return None;
        }
        let (t0, t1) = (runs.first()?.0, runs.last()?.1);
        let (peak_cpu_v, node) = peak_cpu(ctx, t0, t1);
        let severity = if peak_cpu_v >= 90.0 {
            Severity::Warning
        } else {
            Severity::Info
        };
        return Some(diag(
            ctx,
            Pattern::TimeEvent,
            severity,
            (0, ctx.axis.len()),
            (t0, t1),
            format!(
                "For {} traffic rose to {:.1} times its median across {:.0}% of the key space \
                 at once. The busiest node (node {node}) peaked at {peak_cpu_v:.0}% CPU.",
                human_seconds((t1 + 1 - t0) as f64 * secs),
                peak / med.max(f64::MIN_POSITIVE),
                breadth * 100.0
            ),
        ));
    }
    None
}

/// Whether the series repeats (autocorrelation of at least 0.5 at a lag
/// giving at least two periods, with real amplitude), and the lag.
fn autocorrelation_cycle(x: &[f64]) -> (bool, f64) {
    let n = x.len();
    let mean = x.iter().sum::<f64>() / n.max(1) as f64;
    let var: f64 = x.iter().map(|v| (v - mean) * (v - mean)).sum();
    if var <= 0.0 || mean <= 0.0 {
        return (false, 0.0);
    }
    let cv = (var / n as f64).sqrt() / mean;
    if cv < 0.2 {
        return (false, 0.0);
    }
    let r = |lag: usize| -> f64 {
        let mut s = 0.0;
        for t in 0..n.saturating_sub(lag) {
            s += (x.get(t).copied().unwrap_or(0.0) - mean)
                * (x.get(t + lag).copied().unwrap_or(0.0) - mean);
        }
        // Scaled for the shorter overlap, so longer lags are not
        // penalised (which would pull the peak to shorter lags).
        s / var * n as f64 / (n - lag.min(n - 1)) as f64
    };
    let max_lag = n / 2;
    let mut prev = r(1);
    let mut cur = r(2);
    for lag in 2..max_lag {
        let next = r(lag + 1);
        if cur >= prev && cur >= next && cur >= 0.5 {
            // Refine between samples with a parabola through the peak.
            let curve = prev - 2.0 * cur + next;
            let shift = if curve < 0.0 {
                (0.5 * (prev - next) / curve).clamp(-0.5, 0.5)
            } else {
                0.0
            };
            return (true, lag as f64 - shift);
        }
        prev = cur;
        cur = next;
    }
    (false, 0.0)
}

/// Fine-bucket range whose traffic during bursts clearly exceeds the rest.
fn burst_keys(ops: &Grid, runs: &[(usize, usize)], _median: f64) -> (usize, usize) {
    let in_burst = |t: usize| runs.iter().any(|&(a, b)| (a..=b).contains(&t));
    let mut excess = vec![0.0; ops.k];
    for t in 0..ops.t {
        let sign = if in_burst(t) { 1.0 } else { -0.1 };
        for (e, v) in excess.iter_mut().zip(ops.row(t)) {
            *e += sign * v;
        }
    }
    let max = excess.iter().copied().fold(0.0, f64::max);
    let first = excess.iter().position(|&e| max > 0.0 && e >= 0.1 * max);
    let last = excess.iter().rposition(|&e| max > 0.0 && e >= 0.1 * max);
    match (first, last) {
        (Some(a), Some(b)) => ops.fine_range(a, b),
        _ => ops.fine_range(0, ops.k - 1),
    }
}

fn even(ctx: &Context<'_>, ops: &Grid) -> Option<Diagnostic> {
    let by_key = ops.key_totals();
    let total: f64 = by_key.iter().sum();
    if total <= 0.0 {
        return None;
    }
    let fair = total / ops.k as f64;
    let max = by_key.iter().copied().fold(0.0, f64::max);
    if max > 3.0 * fair {
        return None;
    }
    let last = ctx.recorder.filled().saturating_sub(1);
    let means = mean_cpu(ctx, 0, last);
    let avg = means.iter().sum::<f64>() / means.len().max(1) as f64;
    let hi = means.iter().copied().fold(0.0, f64::max);
    let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
    if hi > 1.5 * avg + 5.0 {
        return None;
    }
    Some(diag(
        ctx,
        Pattern::Even,
        Severity::Info,
        (0, ctx.axis.len()),
        (0, last),
        format!(
            "Operations are spread over the key space (the busiest key bucket had {:.1} times \
             the average) and the nodes share the work (mean CPU from {:.0}% to {:.0}%).",
            max / fair,
            if lo.is_finite() { lo } else { 0.0 },
            hi
        ),
    ))
}

/// `1.2 M`, `340 k`, `12`.
fn count(n: f64) -> String {
    for (unit, size) in [("G", 1e9), ("M", 1e6), ("k", 1e3)] {
        if n >= size {
            return format!("{:.1} {unit}", n / size);
        }
    }
    format!("{n:.0}")
}

/// `90s`, `12m`, `2.5h`, `3d`.
#[must_use]
pub fn human_seconds(s: f64) -> String {
    if !s.is_finite() || s < 0.0 {
        return "?".into();
    }
    let trim = |v: f64, unit: &str| {
        if (v - v.round()).abs() < 0.05 {
            format!("{}{unit}", v.round())
        } else {
            format!("{v:.1}{unit}")
        }
    };
    if s < 120.0 {
        trim(s, "s")
    } else if s < 7200.0 {
        trim(s / 60.0, "m")
    } else if s < 172_800.0 {
        trim(s / 3600.0, "h")
    } else {
        trim(s / 86_400.0, "d")
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn axis(n: usize) -> KeyAxis {
        let mut samples: Vec<Vec<u8>> = (0..n).map(|i| format!("k{i:05}").into_bytes()).collect();
        KeyAxis::from_samples(&mut samples, n)
    }

    fn run(
        rec: &Recorder,
        axis: &KeyAxis,
        cpu: &[f32],
        nodes: usize,
        hot: &[HotKey],
        point: f64,
    ) -> Vec<Diagnostic> {
        diagnose(&Context {
            recorder: rec,
            axis,
            node_cpu: cpu,
            nodes,
            hot_keys: hot,
            point_ops: point,
        })
    }

    fn has(ds: &[Diagnostic], p: Pattern) -> bool {
        ds.iter().any(|d| d.pattern == p)
    }

    #[test]
    fn diagonal_is_sequential() {
        let (t_n, f_n) = (60, 200);
        let ax = axis(f_n);
        let mut rec = Recorder::new(t_n, ax.len(), 60.0);
        let rows = vec![100.0; ax.len()];
        for t in 0..t_n {
            let f = t * ax.len() / t_n;
            rec.add_write(f, 1000.0, 1000.0, 1e6);
            rec.close(t, &rows, &rows);
        }
        let cpu: Vec<f32> = (0..t_n).flat_map(|_| [95.0, 1.0, 1.0]).collect();
        let ds = run(&rec, &ax, &cpu, 3, &[], 60_000.0);
        assert!(has(&ds, Pattern::SequentialWrites), "{ds:#?}");
        assert!(!has(&ds, Pattern::Even));
        assert_eq!(ds[0].severity, Severity::Critical);
    }

    #[test]
    fn a_bulk_load_before_the_diagonal_does_not_hide_it() {
        let (t_n, f_n) = (31, 200);
        let ax = axis(f_n);
        let mut rec = Recorder::new(t_n, ax.len(), 10.0);
        let rows = vec![100.0; ax.len()];
        // Bucket 0: a load writing everywhere, twenty times a later bucket.
        for f in 0..ax.len() {
            rec.add_write(f, 100.0, 100.0, 1e4);
        }
        rec.close(0, &rows, &rows);
        for t in 1..t_n {
            let f = t * ax.len() / t_n;
            rec.add_write(f, 1000.0, 1000.0, 1e6);
            rec.close(t, &rows, &rows);
        }
        let cpu = vec![50.0f32; t_n];
        let ds = run(&rec, &ax, &cpu, 1, &[], 50_000.0);
        assert!(has(&ds, Pattern::SequentialWrites), "{ds:#?}");
        assert!(!has(&ds, Pattern::Even));
        assert_eq!(
            steady(&[0.0, 20.0, 1.0, 1.0, 1.0, 0.1], 0.2),
            vec![1, 2, 3, 4]
        );
    }

    #[test]
    fn uniform_is_even_and_bursts_are_periodic() {
        let (t_n, f_n) = (60, 100);
        let ax = axis(f_n);
        let mut rec = Recorder::new(t_n, ax.len(), 60.0);
        let rows = vec![100.0; ax.len()];
        for t in 0..t_n {
            let burst = t % 10 < 2;
            for f in 0..ax.len() {
                rec.add_write(f, 10.0, 10.0, 1e4);
                if burst {
                    rec.add_write(f, 100.0, 100.0, 1e5);
                }
            }
            rec.close(t, &rows, &rows);
        }
        let cpu: Vec<f32> = (0..t_n).flat_map(|_| [40.0, 42.0]).collect();
        let ds = run(&rec, &ax, &cpu, 2, &[], 1e6);
        assert!(has(&ds, Pattern::Even), "{ds:#?}");
        assert!(has(&ds, Pattern::Periodic), "{ds:#?}");
        assert!(!has(&ds, Pattern::SequentialWrites));
    }

    #[test]
    fn a_daily_cycle_is_periodic() {
        let (t_n, f_n) = (96, 50);
        let ax = axis(f_n);
        let mut rec = Recorder::new(t_n, ax.len(), 900.0);
        let rows = vec![100.0; ax.len()];
        for t in 0..t_n {
            // Two 12-hour cycles between 20% and 100%.
            let phase = std::f64::consts::TAU * t as f64 / 48.0;
            let level = 0.2 + 0.8 * 0.5 * (1.0 - crate::rng::det_cos(phase));
            for f in 0..ax.len() {
                rec.add_read(f, 100.0 * level, 100.0 * level, 1e5 * level, 100.0 * level);
            }
            rec.close(t, &rows, &rows);
        }
        let ds = run(&rec, &ax, &[], 0, &[], 1e6);
        let p = ds.iter().find(|d| d.pattern == Pattern::Periodic);
        let p = p.unwrap_or_else(|| panic!("{ds:#?}"));
        let hours: f64 = p
            .evidence
            .split("about ")
            .nth(1)
            .and_then(|r| r.split('h').next())
            .and_then(|h| h.parse().ok())
            .unwrap_or(0.0);
        assert!((11.0..=13.0).contains(&hours), "{}", p.evidence);
        assert!(!has(&ds, Pattern::TimeEvent));
    }

    #[test]
    fn single_spike_is_a_time_event() {
        let (t_n, f_n) = (60, 100);
        let ax = axis(f_n);
        let mut rec = Recorder::new(t_n, ax.len(), 60.0);
        let rows = vec![100.0; ax.len()];
        for t in 0..t_n {
            for f in 0..ax.len() {
                rec.add_read(f, 10.0, 10.0, 1e4, 10.0);
                if (30..33).contains(&t) {
                    rec.add_read(f, 100.0, 100.0, 1e5, 100.0);
                }
            }
            rec.close(t, &rows, &rows);
        }
        let ds = run(&rec, &ax, &[], 0, &[], 1e6);
        assert!(has(&ds, Pattern::TimeEvent), "{ds:#?}");
        assert!(!has(&ds, Pattern::Periodic), "{ds:#?}");
    }

    #[test]
    fn hot_rows_hot_ranges_large_rows_and_scans() {
        let (t_n, f_n) = (30, 100);
        let ax = axis(f_n);
        let mut rec = Recorder::new(t_n, ax.len(), 60.0);
        let rows = vec![100.0; ax.len()];
        for t in 0..t_n {
            for f in 0..ax.len() {
                rec.add_read(f, 1.0, 1.0, 1e3, 1.0);
            }
            for f in 10..15 {
                rec.add_read(f, 50.0, 50.0, 5e4, 50.0);
            }
            rec.add_write(70, 500.0, 500.0, 5e5);
            // A full scan every bucket.
            for f in 0..ax.len() {
                rec.add_read(f, 1.0, 0.0, 0.0, 1000.0);
            }
            rec.close(t, &rows, &rows);
        }
        let hot = [HotKey {
            key: ax.start(70).to_vec(),
            ops: 500.0 * t_n as f64,
            writes: 500.0 * t_n as f64,
            row_bytes: 300e6,
            node_share: 0.5,
        }];
        let point = (100.0 + 250.0 + 500.0) * t_n as f64;
        let ds = run(&rec, &ax, &[], 0, &hot, point);
        assert!(has(&ds, Pattern::HotRow), "{ds:#?}");
        assert!(has(&ds, Pattern::HotKeyRange), "{ds:#?}");
        assert!(has(&ds, Pattern::LargeRows), "{ds:#?}");
        assert!(has(&ds, Pattern::FullScans), "{ds:#?}");
        let range = ds
            .iter()
            .find(|d| d.pattern == Pattern::HotKeyRange)
            .unwrap();
        assert_eq!(range.key_start, "k00010");
        let lr = ds.iter().find(|d| d.pattern == Pattern::LargeRows).unwrap();
        assert_eq!(lr.severity, Severity::Critical);
    }

    #[test]
    fn helpers() {
        assert_eq!(human_seconds(90.0), "90s");
        assert_eq!(human_seconds(600.0), "10m");
        assert_eq!(human_seconds(5400.0), "90m");
        assert_eq!(human_seconds(86_400.0), "24h");
        assert_eq!(ranks(&[3.0, 1.0, 2.0, 2.0]), vec![3.0, 0.0, 1.5, 1.5]);
        assert!((pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]) - 1.0).abs() < 1e-12);
        assert_eq!(coverage(&[0.0, 10.0, 0.0, 0.0]), 0.25);
        let empty = Recorder::new(3, 4, 1.0);
        assert!(run(&empty, &axis(4), &[], 0, &[], 0.0).is_empty());
    }
}
