//! Simulation: a row-key design and a workload on a simulated Bigtable
//! cluster, in simulated time, feeding a Key Visualizer.
//!
//! A [`Scenario`] (a TOML file, see `static/scenarios/README.md`) names a
//! table, a cluster, a [`KeyTemplate`](crate::keydesign::KeyTemplate) and
//! workloads. [`Simulation::new`] prepares it; [`Simulation::step`] advances
//! it a slice at a time (the web app calls it once per animation frame);
//! [`Simulation::run_to_end`] runs the rest and returns a [`Report`].
//! Between steps, [`Simulation::heatmap`], [`Simulation::tablets`],
//! [`Simulation::nodes`] and [`Simulation::events`] show the state.
//!
//! # The model
//!
//! The simulator models the cluster statistically rather than storing
//! rows, so millions of operations take well under a second:
//!
//! - **Key space.** Before the run, a sample of the keys the table will
//!   hold (existing rows plus rows the workloads will write, each at a time
//!   drawn from the workload's shape) is rendered and sorted; its quantiles
//!   cut the key space into *fine buckets* (2048 by default) of about equal
//!   row counts ([`KeyAxis`]). Each fine bucket tracks rows, bytes and load.
//! - **Operations.** Time advances in ticks (a few per heatmap column). In
//!   each tick a workload sends `rate x shape(t) x tick` operations. Up to
//!   `sim.sample_ops` of them are drawn one by one over the run: an entity
//!   by the key distribution, a time, a real key rendered from the
//!   template, its fine bucket found by binary search. When a scenario asks
//!   for more operations, each drawn one stands for several (its *weight*).
//!   Filtered full scans are applied in bulk to every bucket.
//! - **Cost.** Work is counted in node-seconds from Bigtable's published
//!   per-node figures (SSD: about 17,000 point reads/s or 14,000 writes/s of
//!   1 KB rows, or 220 MB/s of scanning; HDD: 500 reads/s, 10,000 writes/s,
//!   180 MB/s; bigger rows cost proportionally more). A node's CPU is the
//!   work of its tablets per second of simulated time; above 100% the
//!   excess is throttled, and latency grows with load like a queue
//!   (`base / (1 - load)`, steeply past 95%).
//! - **Tablets** are contiguous ranges of fine buckets ([`cluster`]). Every
//!   `cluster.rebalance_every` the balancer splits tablets larger than
//!   `split_bytes` or busier than `split_load` of a node (at the bucket
//!   boundary halving size or load; one hot row cannot be split), merges
//!   neighbours that are small and cold, and moves tablets (metadata only)
//!   from the busiest node to the idlest while that narrows the gap.
//! - **Rows.** A write creates a new row when the key has a segment that is
//!   new on every operation (a millisecond timestamp, a per-op id), when it
//!   creates the next sequential entity, or, for keys with a coarser time
//!   segment or none, with the probability that its (entity, period) pair
//!   is new. Other writes update existing rows: the data grows by a new
//!   cell version unless the family keeps a single version.
//!
//! Everything is deterministic: a seeded PRNG ([`rng`]), no clock, no
//! threads, no hash-map iteration, and `ln`/`exp` written out so native and
//! wasm runs agree.

mod build;
pub(crate) mod cluster;
#[cfg(test)]
mod fixtures;
mod heavy;
mod materialize;
mod replay;
mod report;
mod sample;
mod served;
mod sorted;
mod views;

use serde::{Deserialize, Serialize};

use crate::keydesign::{KeyInput, KeyRenderer};
use crate::keyviz::{
    self, BucketMode, Diagnostic, GoogleMessage, Heatmap, HotKey, KeyAxis, KeyGrouping,
    MAX_KEY_BUCKETS, Metric, PrefixShare, PrefixTree, Recorder,
};
use crate::rng::{Rng, Scatter, Zipf, det_exp, hash_bytes};
use tabletop_store::Result;
use tabletop_store::escape_bytes;
use tabletop_store::prefix_successor;

pub use crate::scenario::{
    ClusterSpec, FamilySpec, KeyDist, KeyVizSpec, OpKind, Scenario, Seconds, Shape, SimSpec,
    StartTime, Storage, TableSpec, ViewSpec, Workload,
};
pub use build::SimBuild;
pub use cluster::{EventKind, SimEvent, SplitReason};
pub use materialize::{MAX_MATERIALIZED_ROWS, MaterializeSummary};
pub use replay::{Replay, ReplayProgress, ReplayRate, ReplaySpec};
pub use report::{
    EventCounts, HotTablet, NodeSummary, Report, TabletSummary, WorkloadSummary, human_count,
};
pub use sample::{
    MAX_INITIAL_SPLITS, MAX_SAMPLE_ROWS, MAX_SAMPLE_VALUE_BYTES, RowBatch, SAMPLE_QUALIFIER,
    SampleMoment, SampleRows, SampleSpec,
};
pub use served::ServedSpan;
pub use sorted::{BUCKET_ROWS, SortedPhase, SortedRows};
pub use views::ViewLag;

use cluster::{Cluster, Thresholds, prefix_sums};
use heavy::HeavyHitters;
use served::ServedLog;
use views::ViewQueues;

/// What [`run_toml`] prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// [`Report::to_text`].
    Text,
    /// [`Report::to_json`] without heatmaps.
    Json,
    /// [`Report::to_json`] with every metric's heatmap (equal-key buckets, at
    /// most this many key buckets each).
    JsonWithMatrices {
        /// Key buckets per heatmap (1 to 1000).
        key_buckets: usize,
    },
}

/// Everything `tabletop sim SCENARIO.toml [--json]` does: parse the
/// scenario text, run it to the end, and format the report. Errors are
/// `INVALID_ARGUMENT` naming the file's line or field.
pub fn run_toml(text: &str, output: Output) -> Result<String> {
    let mut sim = Simulation::from_toml(text)?;
    let report = sim.run_to_end();
    Ok(match output {
        Output::Text => report.to_text(),
        Output::Json => report.to_json(),
        Output::JsonWithMatrices { key_buckets } => sim
            .report_with_heatmaps(&[], BucketMode::EqualKeys, key_buckets)
            .to_json(),
    })
}

/// How far [`Simulation::step`] advances.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// At least this many simulated seconds (whole ticks).
    Seconds(f64),
    /// Until at least this many operations were drawn (whole ticks).
    Ops(u64),
    /// This many heatmap columns.
    TimeBuckets(u32),
}

/// What one call to [`Simulation::step`] did.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepOutcome {
    /// Ticks run.
    pub ticks: u64,
    /// Operations drawn.
    pub sampled_ops: u64,
    /// Simulated seconds advanced.
    pub seconds: f64,
    /// Whether the run is complete.
    pub finished: bool,
}

/// A tablet now, for the tablet map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TabletView {
    /// Tablet id.
    pub id: u64,
    /// Serving node.
    pub node: u32,
    /// First key (escaped; empty: start of table).
    pub start_key: String,
    /// Key after it (escaped; `None`: end of table).
    pub end_key: Option<String>,
    /// Fine buckets `[first, last)` it covers (to place it on the heatmap's
    /// key axis).
    pub fine: [u32; 2],
    /// Bytes stored.
    pub bytes: f64,
    /// Rows stored.
    pub rows: f64,
    /// Recent CPU need, share of one node (1.0 = a whole node).
    pub load: f64,
}

/// A node now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeView {
    /// Node number.
    pub node: u32,
    /// Tablets served.
    pub tablets: usize,
    /// Bytes served.
    pub bytes: f64,
    /// CPU % in the last tick.
    pub cpu_pct: f64,
    /// Latency in the last tick (ms).
    pub latency_ms: f64,
}

/// Per-node CPU % per heatmap column: `values[t * nodes + n]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeSeries {
    /// Nodes.
    pub nodes: usize,
    /// Columns filled.
    pub time_buckets: usize,
    /// Seconds per column.
    pub bucket_seconds: f64,
    /// CPU %, column-major by time.
    pub values: Vec<f32>,
}

/// Node-seconds each kind of work costs.
#[derive(Clone, Copy, Debug)]
struct Costs {
    read: f64,
    write_per_kb: f64,
    scan_byte: f64,
    request: f64,
}

/// A workload prepared for the run.
#[derive(Clone, Debug)]
struct Driver {
    spec: Workload,
    /// Real operations per drawn one.
    weight: f64,
    /// Real operations expected over the whole run.
    expected: f64,
    zipf: Option<Zipf>,
    scatter: Scatter,
    /// Share of writes that create a row.
    new_rows: f64,
    value_bytes: f64,
    /// Whether updates add a version (no single-version cap).
    grows: bool,
    /// Distinct prefixes a prefix scan chooses from (`None`: unknown).
    prefix_card: Option<f64>,
    rng: Rng,
    // Running figures.
    real: f64,
    sampled: u64,
    tablets_sum: f64,
    tablets_max: u64,
    rows_sum: f64,
    /// Rows examined (at least the rows returned; every row for a full
    /// scan).
    scanned_sum: f64,
    /// Real operations the drawn ones stood for (the real total in ticks
    /// that drew at least one): the denominator of per-operation means.
    weighted: f64,
    /// Node-seconds of work per node: this tick, and over the run.
    node_work: Vec<f64>,
    work_total: Vec<f64>,
    /// Work x the latency / throttled share of the node that did it.
    latency_weighted: f64,
    throttled_work: f64,
}

#[derive(Clone, Debug, Default)]
struct NodeStats {
    cpu_sum: f64,
    ticks: u64,
    peak_bucket_cpu: f64,
    hot_seconds: f64,
    demand: f64,
    excess: f64,
    latency_weighted: f64,
    peak_latency: f64,
    last_cpu: f64,
    last_latency: f64,
}

/// A scenario being simulated.
#[derive(Clone, Debug)]
pub struct Simulation {
    scenario: Scenario,
    renderer: KeyRenderer,
    axis: KeyAxis,
    rec: Recorder,
    cluster: Cluster,
    drivers: Vec<Driver>,
    /// Rows and bytes per fine bucket.
    rows: Vec<f64>,
    bytes: Vec<f64>,
    /// Smoothed load per fine bucket, in shares of a node.
    load: Vec<f64>,
    /// Node-seconds of work per fine bucket in this tick / time bucket.
    tick_cost: Vec<f64>,
    /// The part of `tick_cost` spent on writes.
    tick_write_cost: Vec<f64>,
    /// The node serving each fine bucket (updated when tablets change).
    fine_node: Vec<u32>,
    bucket_cost: Vec<f64>,
    /// Difference arrays of this tick's scans (length fine + 1).
    scan_coef: Vec<f64>,
    scan_even: Vec<f64>,
    /// The same for the rows the scans return (less than scanned when
    /// they filter).
    scan_coef_kept: Vec<f64>,
    scan_even_kept: Vec<f64>,
    scan_ops: Vec<f64>,
    scan_scale: f64,
    /// Prefix sums of `rows` at the start of the tick.
    prefix_rows: Vec<f64>,
    full_scans: f64,
    full_scan_returned: f64,
    heavy: HeavyHitters,
    key: Vec<u8>,
    costs: Costs,
    start_micros: i64,
    history: f64,
    row_bytes: f64,
    version_cap: Option<u32>,
    tick: u64,
    ticks_total: u64,
    ticks_per_bucket: u64,
    tick_seconds: f64,
    rebalance_every: f64,
    last_rebalance: f64,
    ewma_alpha: f64,
    /// The next new entity number (shared by sequential writers).
    next_entity: f64,
    /// Writes so far (for `per = "op"` integers).
    op_seq: f64,
    point_ops: f64,
    node_cpu: Vec<f32>,
    node_bucket_acc: Vec<f64>,
    node_stats: Vec<NodeStats>,
    hot_tablets: Vec<HotTablet>,
    events: Vec<SimEvent>,
    /// Which tablet and node served each key range when.
    served: ServedLog,
    /// The scenario's materialized views and their queues.
    views: ViewQueues,
}

/// The busiest-key tracker sees one point operation in four (chosen by the
/// operation's random bits), each counted four times: unbiased, and a
/// quarter of the cost.
const HEAVY_SCALE: f64 = 4.0;

impl Simulation {
    /// Parses a TOML scenario and prepares it.
    pub fn from_toml(text: &str) -> Result<Simulation> {
        Simulation::new(Scenario::from_toml(text)?)
    }

    /// Prepares a scenario: checks it, samples the key space, lays out the
    /// initial tablets. The same as [`SimBuild`] run to its end at once.
    ///
    /// # Errors
    ///
    /// When the scenario is invalid.
    pub fn new(scenario: Scenario) -> Result<Simulation> {
        Ok(SimBuild::new(scenario)?.finish())
    }

    /// The scenario.
    #[must_use]
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Simulated seconds so far.
    #[must_use]
    pub fn now_seconds(&self) -> f64 {
        self.tick as f64 * self.tick_seconds
    }

    /// The whole run's length in seconds.
    #[must_use]
    pub fn duration_seconds(&self) -> f64 {
        self.scenario.duration.0
    }

    /// Share of the run done, 0 to 1.
    #[must_use]
    pub fn progress(&self) -> f64 {
        self.tick as f64 / self.ticks_total.max(1) as f64
    }

    /// Whether the run is complete.
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.tick >= self.ticks_total
    }

    /// Advances the run (never past its end) and brings every view up to
    /// date.
    pub fn step(&mut self, step: Step) -> StepOutcome {
        let start_tick = self.tick;
        let start_ops = self.sampled_ops();
        let target_tick = match step {
            Step::Seconds(s) => {
                let s = if s.is_finite() { s.max(0.0) } else { 0.0 };
                self.tick
                    .saturating_add((s / self.tick_seconds).ceil() as u64)
            }
            Step::TimeBuckets(b) => self
                .tick
                .saturating_add(u64::from(b).saturating_mul(self.ticks_per_bucket)),
            Step::Ops(_) => self.ticks_total,
        };
        while self.tick < self.ticks_total && self.tick < target_tick {
            self.run_tick();
            if let Step::Ops(n) = step
                && self.sampled_ops() - start_ops >= n
            {
                break;
            }
        }
        self.sync_views();
        StepOutcome {
            ticks: self.tick - start_tick,
            sampled_ops: self.sampled_ops() - start_ops,
            seconds: (self.tick - start_tick) as f64 * self.tick_seconds,
            finished: self.is_finished(),
        }
    }

    /// Runs to the end and reports.
    pub fn run_to_end(&mut self) -> Report {
        self.step(Step::Seconds(f64::MAX));
        self.report()
    }

    fn sampled_ops(&self) -> u64 {
        self.drivers.iter().map(|d| d.sampled).sum()
    }

    fn run_tick(&mut self) {
        let t0 = self.now_seconds();
        let dt = self.tick_seconds;
        let any_scan = self.drivers.iter().any(|d| d.spec.op == OpKind::Scan);
        if any_scan {
            prefix_sums(&self.rows, &mut self.prefix_rows);
        }
        let mut drivers = std::mem::take(&mut self.drivers);
        for d in &mut drivers {
            self.run_driver(d, t0, dt);
        }
        self.drivers = drivers;
        self.settle_scans();
        self.account_tick();
        self.tick += 1;
        let now = self.now_seconds();
        if !self.views.views.is_empty() {
            let written: f64 = self
                .drivers
                .iter()
                .filter(|d| d.spec.op == OpKind::Write)
                .map(|d| d.real)
                .sum();
            self.views.tick(written, dt, now);
        }
        if now - self.last_rebalance >= self.rebalance_every - 1e-9 {
            self.last_rebalance = now;
            let axis = &self.axis;
            let key_at = |f: u32| escape_bytes(axis.start(f as usize));
            self.cluster
                .rebalance(now, &self.bytes, &self.load, &key_at, &mut self.events);
            self.refresh_fine_node();
            self.served.note(now, &self.cluster.tablets);
        }
        if self.tick.is_multiple_of(self.ticks_per_bucket) {
            self.close_bucket((self.tick / self.ticks_per_bucket - 1) as usize);
        }
    }

    fn run_driver(&mut self, d: &mut Driver, t0: f64, dt: f64) {
        let real = d.spec.rate * d.spec.factor(t0 + dt / 2.0) * dt;
        if real.is_nan() || real <= 0.0 {
            return;
        }
        d.real += real;
        if d.spec.op == OpKind::FullScan {
            let sel = d.spec.selectivity.unwrap_or(0.001);
            self.full_scans += real;
            self.full_scan_returned += real * sel;
            let rows_now: f64 = self.rows.iter().sum();
            d.tablets_sum += real * self.cluster.tablets.len() as f64;
            d.tablets_max = d.tablets_max.max(self.cluster.tablets.len() as u64);
            d.rows_sum += real * rows_now * sel;
            d.scanned_sum += real * rows_now;
            d.weighted += real;
            self.full_scan_work(d, real);
            return;
        }
        let expected = real / d.weight;
        let mut n = expected.floor() as u64;
        if d.rng.next_f64() < expected - n as f64 {
            n += 1;
        }
        if n == 0 {
            return;
        }
        let w = real / n as f64;
        let entities = self.scenario.table.entities;
        let population = (self.next_entity as u64).max(entities);
        let fine = self.axis.len();
        for j in 0..n {
            // Spread evenly over the tick, jittered within each stride so
            // that neither times nor sequence numbers fall on a grid (a
            // grid would, say, always hit ids ending in 0).
            let u = (j as f64 + d.rng.next_f64()) / n as f64;
            let t = t0 + u * dt;
            let entity = match d.spec.keys {
                KeyDist::Uniform => d.rng.below(population),
                KeyDist::Zipf(_) => d
                    .zipf
                    .as_ref()
                    .map_or(0, |z| d.scatter.apply(z.sample(&mut d.rng))),
                KeyDist::Sequential => {
                    if d.spec.op == OpKind::Write {
                        (self.next_entity + u * real) as u64
                    } else {
                        ((d.real - real + u * real) as u64) % population.max(1)
                    }
                }
                KeyDist::HotKey => d.spec.hot_entity.unwrap_or(0),
            };
            let at = if d.spec.op == OpKind::Write {
                t
            } else {
                let span = d.spec.age.map_or(self.history + t, |a| a.0);
                t - d.rng.next_f64() * span
            };
            let op_seq = if d.spec.op == OpKind::Write {
                (self.op_seq + u * real) as u64
            } else {
                d.rng.below((self.op_seq as u64).max(1))
            };
            let input = KeyInput {
                entity,
                time_micros: self.start_micros + (at * 1e6) as i64,
                op_seq,
                op_random: d.rng.next_u64(),
            };
            match d.spec.op {
                OpKind::Write => {
                    self.renderer.render(&input, &mut self.key);
                    let f = self.axis.bucket_of(&self.key);
                    let vb = d.value_bytes;
                    let new_rows = w * d.new_rows;
                    self.rec.add_write(f, w, w, w * vb);
                    if let Some(r) = self.rows.get_mut(f) {
                        *r += new_rows;
                    }
                    if let Some(b) = self.bytes.get_mut(f) {
                        *b += if d.grows { w * vb } else { new_rows * vb };
                    }
                    let cost = w * (vb / 1024.0).max(1.0) * self.costs.write_per_kb;
                    if let (Some(c), Some(wc)) =
                        (self.tick_cost.get_mut(f), self.tick_write_cost.get_mut(f))
                    {
                        *c += cost;
                        *wc += cost;
                    }
                    self.charge(d, f, cost);
                    if input.op_random >> 62 == 0 {
                        let h = hash_bytes(0x4ea7, &self.key);
                        self.heavy
                            .add(&self.key, h, HEAVY_SCALE * w, Some(HEAVY_SCALE * w * vb));
                    }
                    self.point_ops += w;
                    d.tablets_sum += w;
                    d.tablets_max = d.tablets_max.max(1);
                    d.rows_sum += w;
                    d.scanned_sum += w;
                }
                OpKind::Read => {
                    self.renderer.render(&input, &mut self.key);
                    let f = self.axis.bucket_of(&self.key);
                    let rb = self.row_bytes;
                    self.rec.add_read(f, w, w, w * rb, w);
                    let cost = w * (rb / 1024.0).max(1.0) * self.costs.read;
                    if let Some(c) = self.tick_cost.get_mut(f) {
                        *c += cost;
                    }
                    self.charge(d, f, cost);
                    if input.op_random >> 62 == 0 {
                        let h = hash_bytes(0x4ea7, &self.key);
                        self.heavy.add(&self.key, h, HEAVY_SCALE * w, None);
                    }
                    self.point_ops += w;
                    d.tablets_sum += w;
                    d.tablets_max = d.tablets_max.max(1);
                    d.rows_sum += w;
                    d.scanned_sum += w;
                }
                OpKind::Scan => {
                    let rows_now = self.prefix_rows.last().copied().unwrap_or(0.0);
                    let keep = d.spec.selectivity.unwrap_or(1.0).clamp(1e-9, 1.0);
                    // Rows read (`n_rows`); `keep` of them are returned.
                    let (b0, b1, n_rows) = if let Some(k) = d.spec.prefix_segments {
                        self.renderer.render_prefix(
                            &input,
                            k as usize,
                            d.spec.prefix_labels.map(|l| l as usize),
                            &mut self.key,
                        );
                        let b0 = self.axis.bucket_of(&self.key);
                        let b1 = match prefix_successor(&self.key) {
                            Some(end) => self.axis.bucket_before(&end).max(b0),
                            None => fine - 1,
                        };
                        let in_range = self.range_rows(b0, b1);
                        let estimate = match d.prefix_card {
                            Some(card) => rows_now / card,
                            None => 100.0,
                        };
                        let mut n_rows = estimate;
                        if let Some(limit) = d.spec.rows {
                            n_rows = n_rows.min(limit as f64 / keep);
                        }
                        if in_range > 0.0 {
                            n_rows = n_rows.min(in_range);
                        }
                        (b0, b1, n_rows.max(0.0))
                    } else {
                        self.renderer.render(&input, &mut self.key);
                        let b0 = self.axis.bucket_of(&self.key);
                        let want = d.spec.rows.unwrap_or(1) as f64 / keep;
                        let b1 = self.bucket_reaching(b0, want);
                        (b0, b1, want.min(rows_now.max(1.0)))
                    };
                    self.add_scan(b0, b1, w, n_rows, keep);
                    if let Some(c) = self.tick_cost.get_mut(b0) {
                        *c += w * self.costs.request;
                    }
                    let tablets = (self.cluster.tablet_index(b1) + 1)
                        .saturating_sub(self.cluster.tablet_index(b0))
                        .max(1) as u64;
                    d.tablets_sum += w * tablets as f64;
                    d.tablets_max = d.tablets_max.max(tablets);
                    d.rows_sum += w * n_rows * keep;
                    d.scanned_sum += w * n_rows;
                    let rb = self.row_bytes;
                    self.charge(
                        d,
                        b0,
                        w * (self.costs.request + n_rows * rb * self.costs.scan_byte),
                    );
                }
                OpKind::FullScan => {}
            }
        }
        d.sampled += n;
        d.weighted += real;
        if d.spec.op == OpKind::Write {
            if d.spec.keys == KeyDist::Sequential {
                self.next_entity += real;
            }
            self.op_seq += real;
        }
    }

    /// Counts `cost` node-seconds of `d`'s work on the node serving fine
    /// bucket `f` (for its latency and throttling).
    fn charge(&self, d: &mut Driver, f: usize, cost: f64) {
        let node = self.fine_node.get(f).copied().unwrap_or(0) as usize;
        if let Some(w) = d.node_work.get_mut(node) {
            *w += cost;
        }
    }

    /// Notes the node serving every fine bucket (after the tablets were
    /// laid out or rebalanced).
    fn refresh_fine_node(&mut self) {
        for t in &self.cluster.tablets {
            if let Some(slots) = self.fine_node.get_mut(t.lo as usize..t.hi as usize) {
                slots.iter_mut().for_each(|n| *n = t.node);
            }
        }
    }

    /// Counts a tick's full scans of `d` on every node, by the rows each
    /// serves.
    fn full_scan_work(&self, d: &mut Driver, real: f64) {
        let total: f64 = self.rows.iter().sum();
        if total <= 0.0 {
            return;
        }
        let cost = real * (total * self.row_bytes * self.costs.scan_byte + self.costs.request);
        for t in &self.cluster.tablets {
            let rows: f64 = self
                .rows
                .get(t.lo as usize..t.hi as usize)
                .map_or(0.0, |r| r.iter().sum());
            if let Some(w) = d.node_work.get_mut(t.node as usize) {
                *w += cost * rows / total;
            }
        }
    }

    /// Rows in fine buckets `b0..=b1` at the start of the tick.
    fn range_rows(&self, b0: usize, b1: usize) -> f64 {
        let p = &self.prefix_rows;
        p.get(b1 + 1).copied().unwrap_or(0.0) - p.get(b0).copied().unwrap_or(0.0)
    }

    /// The first bucket from `b0` on by which `want` rows are covered.
    fn bucket_reaching(&self, b0: usize, want: f64) -> usize {
        let fine = self.axis.len();
        let base = self.prefix_rows.get(b0).copied().unwrap_or(0.0);
        let (mut lo, mut hi) = (b0, fine - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.prefix_rows.get(mid + 1).copied().unwrap_or(0.0) - base >= want {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// Spreads a scan of `n_rows` rows over fine buckets `b0..=b1` (by the
    /// rows stored, evenly where none are), `keep` of them returned.
    fn add_scan(&mut self, b0: usize, b1: usize, w: f64, n_rows: f64, keep: f64) {
        let in_range = self.range_rows(b0, b1);
        let diff = |v: &mut Vec<f64>, x: f64| {
            if let Some(a) = v.get_mut(b0) {
                *a += x;
            }
            if let Some(b) = v.get_mut(b1 + 1) {
                *b -= x;
            }
        };
        diff(&mut self.scan_ops, w);
        if in_range > 0.0 {
            let coef = w * n_rows / in_range;
            self.scan_scale = self.scan_scale.max(coef);
            diff(&mut self.scan_coef, coef);
            diff(&mut self.scan_coef_kept, coef * keep);
        } else {
            let each = w * n_rows / (b1 + 1 - b0) as f64;
            self.scan_scale = self.scan_scale.max(each);
            diff(&mut self.scan_even, each);
            diff(&mut self.scan_even_kept, each * keep);
        }
    }

    /// Applies this tick's scans (and full scans) to every bucket.
    fn settle_scans(&mut self) {
        let rb = self.row_bytes;
        let fine = self.axis.len();
        if self.scan_scale > 0.0 {
            let eps = self.scan_scale * 1e-9;
            let clean = |x: f64, eps: f64| if x.abs() < eps { 0.0 } else { x };
            let (mut c, mut e, mut o, mut ck, mut ek) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for f in 0..fine {
                let at = |v: &Vec<f64>| v.get(f).copied().unwrap_or(0.0);
                c += at(&self.scan_coef);
                e += at(&self.scan_even);
                o += at(&self.scan_ops);
                ck += at(&self.scan_coef_kept);
                ek += at(&self.scan_even_kept);
                let (cc, ee, oo) = (clean(c, eps), clean(e, eps), clean(o, 1e-9));
                if cc == 0.0 && ee == 0.0 && oo == 0.0 {
                    continue;
                }
                let r = self.range_rows(f, f);
                let scanned = cc * r + ee;
                let kept = (clean(ck, eps) * r + clean(ek, eps)).min(scanned);
                self.rec.add_read(f, oo, kept, kept * rb, scanned);
                if let Some(t) = self.tick_cost.get_mut(f) {
                    *t += scanned * rb * self.costs.scan_byte;
                }
            }
            for v in [
                &mut self.scan_coef,
                &mut self.scan_even,
                &mut self.scan_ops,
                &mut self.scan_coef_kept,
                &mut self.scan_even_kept,
            ] {
                v.iter_mut().for_each(|x| *x = 0.0);
            }
            self.scan_scale = 0.0;
        }
        if self.full_scans > 0.0 {
            let n = self.full_scans;
            let kept = self.full_scan_returned;
            for f in 0..fine {
                let r = self.rows.get(f).copied().unwrap_or(0.0);
                let scanned = n * r;
                let returned = kept * r;
                self.rec.add_read(f, n, returned, returned * rb, scanned);
                if let Some(t) = self.tick_cost.get_mut(f) {
                    *t += scanned * rb * self.costs.scan_byte;
                }
            }
            if let Some(t) = self.tick_cost.get_mut(0) {
                *t += n * self.costs.request;
            }
            self.full_scans = 0.0;
            self.full_scan_returned = 0.0;
        }
    }

    /// Node CPU, throttling, latency and smoothed load for the tick just
    /// run.
    fn account_tick(&mut self) {
        let dt = self.tick_seconds;
        let nodes = self.cluster.nodes;
        let mut demand = vec![0.0; nodes];
        for (cost, &node) in self.tick_cost.iter().zip(&self.fine_node) {
            if let Some(d) = demand.get_mut(node as usize) {
                *d += cost;
            }
        }
        let base = self.scenario.cluster.base_latency_ms;
        let mut node_latency = vec![base; nodes];
        for (n, (st, &work)) in self.node_stats.iter_mut().zip(&demand).enumerate() {
            let cpu = work / dt;
            st.cpu_sum += cpu;
            st.ticks += 1;
            if cpu >= 0.9 {
                st.hot_seconds += dt;
            }
            st.demand += work;
            st.excess += (work - dt).max(0.0);
            let lat = latency_ms(base, cpu);
            st.latency_weighted += lat * work;
            st.peak_latency = st.peak_latency.max(lat);
            st.last_cpu = cpu;
            st.last_latency = lat;
            if let Some(a) = self.node_bucket_acc.get_mut(n) {
                *a += cpu;
            }
            if let Some(l) = node_latency.get_mut(n) {
                *l = lat;
            }
        }
        for d in &mut self.drivers {
            for (n, w) in d.node_work.iter_mut().enumerate() {
                if *w <= 0.0 {
                    continue;
                }
                let lat = node_latency.get(n).copied().unwrap_or(base);
                let all = demand.get(n).copied().unwrap_or(0.0);
                let throttled = if all > dt { (all - dt) / all } else { 0.0 };
                d.latency_weighted += *w * lat;
                d.throttled_work += *w * throttled;
                if let Some(t) = d.work_total.get_mut(n) {
                    *t += *w;
                }
                *w = 0.0;
            }
        }
        for (f, ((&cost, wc), &node)) in self
            .tick_cost
            .iter()
            .zip(self.tick_write_cost.iter_mut())
            .zip(&self.fine_node)
            .enumerate()
        {
            if cost > 0.0 {
                let lat = node_latency.get(node as usize).copied().unwrap_or(base);
                self.rec.add_cpu(f, (cost - *wc).max(0.0), *wc, lat);
            }
            *wc = 0.0;
        }
        let alpha = self.ewma_alpha;
        for ((l, c), b) in self
            .load
            .iter_mut()
            .zip(self.tick_cost.iter_mut())
            .zip(self.bucket_cost.iter_mut())
        {
            *l += alpha * (*c / dt - *l);
            *b += *c;
            *c = 0.0;
        }
    }

    fn close_bucket(&mut self, t: usize) {
        self.rec.close(t, &self.rows, &self.bytes);
        let nodes = self.cluster.nodes;
        let per = self.ticks_per_bucket as f64;
        for n in 0..nodes {
            let cpu = self.node_bucket_acc.get(n).copied().unwrap_or(0.0) / per;
            if let Some(slot) = self.node_cpu.get_mut(t * nodes + n) {
                *slot = (cpu * 100.0) as f32;
            }
            if let Some(st) = self.node_stats.get_mut(n) {
                st.peak_bucket_cpu = st.peak_bucket_cpu.max(cpu);
            }
        }
        self.node_bucket_acc.iter_mut().for_each(|a| *a = 0.0);
        // The busiest tablets of this bucket.
        let secs = self.rec.bucket_seconds();
        let mut hot: Vec<(f64, usize)> = self
            .cluster
            .tablets
            .iter()
            .enumerate()
            .map(|(i, tb)| {
                let cost: f64 = self
                    .bucket_cost
                    .get(tb.lo as usize..tb.hi as usize)
                    .map_or(0.0, |s| s.iter().sum());
                (cost / secs, i)
            })
            .filter(|(cpu, _)| *cpu >= 0.05)
            .collect();
        hot.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (cpu, i) in hot.into_iter().take(3) {
            if let Some(tb) = self.cluster.tablets.get(i) {
                self.hot_tablets.push(HotTablet {
                    time_seconds: t as f64 * secs,
                    tablet: tb.id,
                    node: tb.node,
                    start_key: escape_bytes(self.axis.start(tb.lo as usize)),
                    end_key: self.axis.end(tb.hi as usize - 1).map(escape_bytes),
                    cpu_pct: cpu * 100.0,
                });
            }
        }
        self.bucket_cost.iter_mut().for_each(|c| *c = 0.0);
    }

    /// Writes the open time bucket into the views (heatmaps, node series).
    fn sync_views(&mut self) {
        if self.is_finished() || self.tick.is_multiple_of(self.ticks_per_bucket) {
            return;
        }
        let t = (self.tick / self.ticks_per_bucket) as usize;
        self.rec.sync(t, &self.rows, &self.bytes);
        let nodes = self.cluster.nodes;
        let done = (self.tick % self.ticks_per_bucket) as f64;
        for n in 0..nodes {
            let cpu = self.node_bucket_acc.get(n).copied().unwrap_or(0.0) / done;
            if let Some(slot) = self.node_cpu.get_mut(t * nodes + n) {
                *slot = (cpu * 100.0) as f32;
            }
        }
    }

    /// The scenario's materialized views: how many rows wait for each and
    /// how far behind the table it is, now.
    #[must_use]
    pub fn views(&self) -> &[ViewLag] {
        &self.views.views
    }

    /// The fine key axis.
    #[must_use]
    pub fn axis(&self) -> &KeyAxis {
        &self.axis
    }

    /// The raw Key Visualizer recorder (fine buckets).
    #[must_use]
    pub fn recorder(&self) -> &Recorder {
        &self.rec
    }

    /// A heatmap of `metric` with at most `max_key_buckets` key buckets
    /// (capped at 1000).
    #[must_use]
    pub fn heatmap(&self, metric: Metric, mode: BucketMode, max_key_buckets: usize) -> Heatmap {
        let grouping = self.grouping(mode, max_key_buckets);
        Heatmap::build(
            &self.rec,
            &self.axis,
            &grouping,
            metric,
            self.reference(metric),
        )
    }

    /// The key-bucket grouping heatmaps use for `mode`.
    #[must_use]
    pub fn grouping(&self, mode: BucketMode, max_key_buckets: usize) -> KeyGrouping {
        KeyGrouping::for_recorded(mode, &self.rows, &self.rec, max_key_buckets)
    }

    /// The grouping of a zoom: fine buckets `range[0]..range[1]` cut into
    /// at most `max_key_buckets` groups the way `mode` cuts the whole key
    /// space (so a traffic-weighted zoom still gives its busy part the
    /// narrow buckets), with what lies before and after the range as one
    /// group each.
    #[must_use]
    pub fn grouping_within(
        &self,
        mode: BucketMode,
        range: [u32; 2],
        max_key_buckets: usize,
    ) -> KeyGrouping {
        let total = self.rec.fine_buckets().min(self.rows.len());
        let lo = (range[0] as usize).min(total);
        let hi = (range[1] as usize).clamp(lo, total);
        let traffic = match mode {
            BucketMode::EqualKeys => Vec::new(),
            BucketMode::TrafficWeighted => self.rec.totals_by_key(Metric::Ops),
        };
        let traffic = traffic
            .get(lo..hi)
            .map_or_else(|| vec![0.0; hi - lo], <[f64]>::to_vec);
        let max = max_key_buckets.clamp(1, MAX_KEY_BUCKETS);
        let inner = KeyGrouping::for_mode(mode, &self.rows[lo..hi], &traffic, max);
        let mut bounds = Vec::with_capacity(inner.bounds.len() + 2);
        if lo > 0 {
            bounds.push(0);
        }
        bounds.extend(inner.bounds.iter().map(|b| b + lo as u32));
        if hi < total {
            bounds.push(total as u32);
        }
        bounds.dedup();
        KeyGrouping { bounds }
    }

    /// The absolute-scale reference of a metric: one node's capacity (or
    /// one tablet's worth of data for storage metrics).
    fn reference(&self, metric: Metric) -> f32 {
        let c = &self.scenario.cluster;
        let rb = self.row_bytes.max(1.0);
        (match metric {
            Metric::Ops | Metric::ReadRows => c.reads_per_second(),
            Metric::WriteRows => c.writes_per_second(),
            Metric::ReadBytes | Metric::WriteBytes => c.scan_bytes_per_second(),
            Metric::RowsScanned => c.scan_bytes_per_second() / rb,
            Metric::DataStored => c.split_bytes as f64,
            Metric::Rows => c.split_bytes as f64 / rb,
            Metric::ScanRatio => 100.0,
            Metric::ReadCpu | Metric::WriteCpu => 100.0,
            Metric::Latency => c.base_latency_ms * keyviz::SLOWDOWN_AT_POOR,
            Metric::ReadPressure | Metric::WritePressure => keyviz::POOR_PRESSURE,
        }) as f32
    }

    /// Key-prefix labels for a heatmap's key buckets, one level per key
    /// segment, down to `max_depth` levels.
    #[must_use]
    pub fn prefix_tree(&self, heatmap: &Heatmap, max_depth: usize) -> PrefixTree {
        let starts: Vec<&[u8]> = heatmap
            .keys
            .iter()
            .map(|k| self.axis.start(k.fine[0] as usize))
            .collect();
        let template = &self.scenario.key;
        PrefixTree::build(
            &starts,
            |k| template.split_key(k).into_iter().map(|p| p.range).collect(),
            max_depth,
        )
    }

    /// The tablets now, in key order.
    #[must_use]
    pub fn tablets(&self) -> Vec<TabletView> {
        let mut pr = Vec::new();
        let mut pb = Vec::new();
        let mut pl = Vec::new();
        prefix_sums(&self.rows, &mut pr);
        prefix_sums(&self.bytes, &mut pb);
        prefix_sums(&self.load, &mut pl);
        let sum = |p: &[f64], lo: u32, hi: u32| {
            p.get(hi as usize).copied().unwrap_or(0.0) - p.get(lo as usize).copied().unwrap_or(0.0)
        };
        self.cluster
            .tablets
            .iter()
            .map(|t| TabletView {
                id: t.id,
                node: t.node,
                start_key: escape_bytes(self.axis.start(t.lo as usize)),
                end_key: self
                    .axis
                    .end((t.hi as usize).saturating_sub(1))
                    .map(escape_bytes),
                fine: [t.lo, t.hi],
                bytes: sum(&pb, t.lo, t.hi),
                rows: sum(&pr, t.lo, t.hi),
                load: sum(&pl, t.lo, t.hi),
            })
            .collect()
    }

    /// Which tablet, on which node, served which fine key buckets, and
    /// from when to when (seconds into the run): every tablet the run has
    /// had, one span per stretch of time it kept its range and node. A
    /// heatmap cell's keys and time bucket pick out the spans that served
    /// it ([`ServedSpan::columns`]).
    #[must_use]
    pub fn served(&self) -> Vec<ServedSpan> {
        self.served.spans()
    }

    /// The tablet serving `key` now.
    #[must_use]
    pub fn tablet_for_key(&self, key: &[u8]) -> Option<TabletView> {
        let f = self.axis.bucket_of(key);
        let i = self.cluster.tablet_index(f);
        self.tablets().into_iter().nth(i)
    }

    /// Distinct tablets serving `keys` now (ids, in key order).
    #[must_use]
    pub fn tablets_for_keys<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>) -> Vec<u64> {
        let mut idx: Vec<usize> = keys
            .into_iter()
            .map(|k| self.cluster.tablet_index(self.axis.bucket_of(k)))
            .collect();
        idx.sort_unstable();
        idx.dedup();
        idx.into_iter()
            .filter_map(|i| self.cluster.tablets.get(i).map(|t| t.id))
            .collect()
    }

    /// The nodes now.
    #[must_use]
    pub fn nodes(&self) -> Vec<NodeView> {
        let tablets = self.tablets();
        (0..self.cluster.nodes)
            .map(|n| {
                let mine = tablets.iter().filter(|t| t.node as usize == n);
                let st = self.node_stats.get(n);
                NodeView {
                    node: n as u32,
                    tablets: mine.clone().count(),
                    bytes: mine.map(|t| t.bytes).sum(),
                    cpu_pct: st.map_or(0.0, |s| s.last_cpu * 100.0),
                    latency_ms: st.map_or(0.0, |s| s.last_latency),
                }
            })
            .collect()
    }

    /// CPU % per node per heatmap column so far.
    #[must_use]
    pub fn node_cpu(&self) -> NodeSeries {
        let filled = self.rec.filled();
        NodeSeries {
            nodes: self.cluster.nodes,
            time_buckets: filled,
            bucket_seconds: self.rec.bucket_seconds(),
            values: self
                .node_cpu
                .get(..filled * self.cluster.nodes)
                .unwrap_or_default()
                .to_vec(),
        }
    }

    /// The busiest tablets of every closed heatmap column (up to three per
    /// column, each needing at least 5% of a node), oldest first.
    #[must_use]
    pub fn hot_tablets(&self) -> &[HotTablet] {
        &self.hot_tablets
    }

    /// Balancer events so far, oldest first (a UI keeps its own cursor).
    #[must_use]
    pub fn events(&self) -> &[SimEvent] {
        &self.events
    }

    /// Renders one key of the scenario's design.
    pub fn render_key(&mut self, input: &KeyInput) -> Vec<u8> {
        let mut out = Vec::new();
        self.renderer.render(input, &mut out);
        out
    }

    fn hot_keys(&self) -> Vec<HotKey> {
        let elapsed = self.now_seconds().max(1e-9);
        let rb = self.row_bytes;
        self.heavy
            .top()
            .into_iter()
            .map(|s| {
                let ops = s.guaranteed();
                let share = (ops / s.count.max(1e-12)).clamp(0.0, 1.0);
                let writes = s.writes * share;
                let reads = s.reads * share;
                let wb = s.write_bytes * share;
                let avg_vb = if s.writes > 0.0 {
                    s.write_bytes / s.writes
                } else {
                    0.0
                };
                let row_bytes = rb
                    + match self.version_cap {
                        Some(cap) => writes.min(f64::from(cap)) * avg_vb,
                        None => wb,
                    };
                let work = (wb / 1024.0).max(writes) * self.costs.write_per_kb
                    + reads * (rb / 1024.0).max(1.0) * self.costs.read;
                HotKey {
                    key: s.key.clone(),
                    ops,
                    writes,
                    row_bytes,
                    node_share: work / elapsed,
                }
            })
            .collect()
    }

    /// The findings so far.
    #[must_use]
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        keyviz::diagnose(&self.context(&self.hot_keys()))
    }

    /// Google's Key Visualizer messages so far.
    #[must_use]
    pub fn messages(&self) -> Vec<GoogleMessage> {
        keyviz::google_messages(&self.context(&self.hot_keys()))
    }

    /// What the findings and messages are drawn from, with the hot keys
    /// so far.
    fn context<'a>(&'a self, hot_keys: &'a [HotKey]) -> keyviz::Context<'a> {
        keyviz::Context {
            recorder: &self.rec,
            axis: &self.axis,
            node_cpu: &self.node_cpu,
            nodes: self.cluster.nodes,
            hot_keys,
            point_ops: self.point_ops,
        }
    }

    /// The key space as a hierarchy of prefixes (1000 equal-row buckets,
    /// three levels; the busiest ten prefixes, five under each, three
    /// under those), with shares of rows and operations.
    #[must_use]
    pub fn prefix_shares(&self) -> Vec<PrefixShare> {
        let grouping = self.grouping(BucketMode::EqualKeys, MAX_KEY_BUCKETS);
        let template = &self.scenario.key;
        let split = |k: &[u8]| template.split_key(k).into_iter().map(|p| p.range).collect();
        let ops = self.rec.totals_by_key(Metric::Ops);
        keyviz::grouped_prefix_shares(&self.axis, &grouping, split, &self.rows, &ops)
    }

    /// The report so far (without heatmaps).
    #[must_use]
    pub fn report(&self) -> Report {
        let s = &self.scenario;
        let tablets = self.tablets();
        let nodes: Vec<NodeSummary> = (0..self.cluster.nodes)
            .map(|n| {
                let st = self.node_stats.get(n).cloned().unwrap_or_default();
                let mine: Vec<&TabletView> =
                    tablets.iter().filter(|t| t.node as usize == n).collect();
                NodeSummary {
                    node: n as u32,
                    tablets: mine.len(),
                    bytes: mine.iter().map(|t| t.bytes).sum(),
                    mean_cpu_pct: st.cpu_sum / st.ticks.max(1) as f64 * 100.0,
                    peak_cpu_pct: st.peak_bucket_cpu * 100.0,
                    hot_seconds: st.hot_seconds,
                    throttled_pct: if st.demand > 0.0 {
                        st.excess / st.demand * 100.0
                    } else {
                        0.0
                    },
                    mean_latency_ms: if st.demand > 0.0 {
                        st.latency_weighted / st.demand
                    } else {
                        s.cluster.base_latency_ms
                    },
                    peak_latency_ms: st.peak_latency,
                }
            })
            .collect();
        let tablet_summaries = tablets
            .iter()
            .map(|t| TabletSummary {
                id: t.id,
                node: t.node,
                start_key: t.start_key.clone(),
                end_key: t.end_key.clone(),
                split_segment: (t.fine[0] > 0)
                    .then(|| {
                        let start = self.axis.start(t.fine[0] as usize);
                        let prev = self.axis.start(t.fine[0] as usize - 1);
                        s.key.range_segment(prev, Some(start)).map(|r| r.name)
                    })
                    .flatten(),
                bytes: t.bytes,
                rows: t.rows,
                cpu_pct: t.load * 100.0,
            })
            .collect();
        // Each tablet once, at its hottest; hottest first.
        let mut best: Vec<HotTablet> = Vec::new();
        for h in &self.hot_tablets {
            match best.iter_mut().find(|b| b.tablet == h.tablet) {
                Some(b) if b.cpu_pct < h.cpu_pct => *b = h.clone(),
                Some(_) => {}
                None => best.push(h.clone()),
            }
        }
        best.sort_by(|a, b| {
            b.cpu_pct
                .total_cmp(&a.cpu_pct)
                .then(a.time_seconds.total_cmp(&b.time_seconds))
        });
        best.truncate(10);
        Report {
            scenario: s.name.clone(),
            description: s.description.clone(),
            seed: s.seed,
            simulated_seconds: self.now_seconds(),
            duration_seconds: s.duration.0,
            nodes: s.cluster.nodes,
            storage: match s.cluster.storage {
                Storage::Ssd => "ssd".into(),
                Storage::Hdd => "hdd".into(),
            },
            key_pattern: s.key.pattern(),
            example_keys: s.key.examples(3),
            operations: self.drivers.iter().map(|d| d.real).sum(),
            sampled_operations: self.sampled_ops(),
            rows: self.rows.iter().sum(),
            bytes: self.bytes.iter().sum(),
            diagnostics: self.diagnostics(),
            messages: self.messages(),
            prefixes: self.prefix_shares(),
            workloads: self
                .drivers
                .iter()
                .enumerate()
                .map(|(i, d)| WorkloadSummary {
                    name: if d.spec.name.is_empty() {
                        format!("workload {}", i + 1)
                    } else {
                        d.spec.name.clone()
                    },
                    op: d.spec.op.name().into(),
                    operations: d.real,
                    sampled: d.sampled,
                    weight: d.weight,
                    mean_tablets_per_op: if d.weighted > 0.0 {
                        d.tablets_sum / d.weighted
                    } else {
                        0.0
                    },
                    max_tablets_per_op: d.tablets_max,
                    mean_rows_per_op: if d.weighted > 0.0 {
                        d.rows_sum / d.weighted
                    } else {
                        0.0
                    },
                    rows_scanned_per_row: if d.spec.op == OpKind::Write || d.rows_sum <= 0.0 {
                        0.0
                    } else {
                        d.scanned_sum / d.rows_sum
                    },
                    ..WorkloadSummary::served(
                        &d.work_total,
                        d.latency_weighted,
                        d.throttled_work,
                        s.cluster.base_latency_ms,
                    )
                })
                .collect(),
            node_summaries: nodes,
            tablets: tablet_summaries,
            events: EventCounts::of(&self.events),
            hot_tablets: best,
            views: self.views.views.clone(),
            heatmaps: None,
        }
    }

    /// The report with heatmaps of `metrics` (all metrics if empty).
    #[must_use]
    pub fn report_with_heatmaps(
        &self,
        metrics: &[Metric],
        mode: BucketMode,
        max_key_buckets: usize,
    ) -> Report {
        let mut r = self.report();
        let metrics: Vec<Metric> = if metrics.is_empty() {
            Metric::ALL.to_vec()
        } else {
            metrics.to_vec()
        };
        let grouping = self.grouping(mode, max_key_buckets);
        r.heatmaps = Some(
            metrics
                .into_iter()
                .map(|m| Heatmap::build(&self.rec, &self.axis, &grouping, m, self.reference(m)))
                .collect(),
        );
        r
    }
}

/// Queueing-style latency (see [`keyviz::queue_latency_ms`]).
fn latency_ms(base: f64, load: f64) -> f64 {
    keyviz::queue_latency_ms(base, load)
}

/// Share of a write workload's operations that create a new row.
fn new_row_fraction(s: &Scenario, w: &Workload, expected: f64, initial_rows: f64) -> f64 {
    if w.op != OpKind::Write {
        return 0.0;
    }
    if w.keys == KeyDist::Sequential {
        return 1.0;
    }
    let entities = s.table.entities as f64;
    let eff = if w.keys == KeyDist::HotKey {
        1.0
    } else {
        entities
    };
    match s.key.row_period_seconds(s.table.entities) {
        Some(p) if p <= 0.0 => 1.0,
        Some(p) => {
            let per_period = expected / s.duration.0.max(1e-9) * p;
            if per_period <= 0.0 {
                return 0.0;
            }
            (eff * (1.0 - det_exp(-per_period / eff)) / per_period).clamp(0.0, 1.0)
        }
        None => {
            let space = eff * s.key.keys_per_entity(s.table.entities).unwrap_or(1) as f64;
            let missing = (space - initial_rows.min(space)).max(0.0);
            if expected <= 0.0 || missing <= 0.0 {
                return 0.0;
            }
            (missing * (1.0 - det_exp(-expected / space)) / expected).clamp(0.0, 1.0)
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    const TINY: &str = r##"
name = "tiny"
duration = "10m"
[table]
rows = 10000
entities = 1000
[cluster]
nodes = 2
[key]
segments = [
  { name = "device", kind = "hex", width = 8 },
  { name = "ts", kind = "timestamp" },
]
[[workload]]
op = "write"
rate = 200
[[workload]]
op = "scan"
rate = 10
prefix_segments = 1
[keyviz]
time_buckets = 20
fine_buckets = 64
"##;

    #[test]
    fn runs_in_steps_and_reports() {
        let mut sim = Simulation::from_toml(TINY).unwrap();
        assert!(!sim.is_finished());
        let out = sim.step(Step::TimeBuckets(5));
        assert!(out.ticks > 0 && !out.finished);
        assert_eq!(sim.recorder().filled(), 5);
        let h = sim.heatmap(Metric::WriteRows, BucketMode::EqualKeys, 1000);
        assert_eq!(h.time_buckets, 5);
        assert!(h.max > 0.0);
        let out = sim.step(Step::Ops(1000));
        assert!(out.sampled_ops >= 1000 || out.finished);
        let report = sim.run_to_end();
        assert!(sim.is_finished());
        assert!((report.simulated_seconds - 600.0).abs() < 1e-6);
        assert!(
            (report.operations - 600.0 * 210.0).abs() < 1.0,
            "{}",
            report.operations
        );
        assert_eq!(report.workloads.len(), 2);
        assert!(report.workloads[1].mean_rows_per_op > 1.0);
        assert!(report.rows > 10_000.0);
        let text = report.to_text();
        assert!(text.contains("Diagnostics"), "{text}");
        assert!(!sim.tablets().is_empty());
        assert_eq!(sim.nodes().len(), 2);
        assert_eq!(sim.node_cpu().time_buckets, 20);
        // Stepping a finished run does nothing.
        assert_eq!(sim.step(Step::Seconds(10.0)).ticks, 0);
    }

    #[test]
    fn run_toml_formats() {
        let text = run_toml(TINY, Output::Text).unwrap();
        assert!(text.starts_with("Scenario: tiny"), "{text}");
        let json = run_toml(TINY, Output::Json).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(v.get("heatmaps").is_none());
        assert!(v["diagnostics"].is_array());
        let json = run_toml(TINY, Output::JsonWithMatrices { key_buckets: 10 }).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["heatmaps"].as_array().unwrap().len(), Metric::ALL.len());
        assert_eq!(v["heatmaps"][0]["key_buckets"], 10);
        assert_eq!(
            v["heatmaps"][0]["values"].as_array().unwrap().len(),
            10 * 20
        );
        let err = run_toml("name = 1", Output::Text).unwrap_err();
        assert!(err.message().contains("line 1"), "{}", err.message());
    }

    #[test]
    fn a_zoom_is_grouped_like_the_whole_key_space() {
        // One device gets most of the reads.
        let toml = TINY.replace(
            "[keyviz]",
            "[[workload]]\nop = \"read\"\nrate = 2000\nkeys = \"hot_key\"\nhot_entity = 700\n[keyviz]",
        );
        let mut sim = Simulation::from_toml(&toml).unwrap();
        sim.run_to_end();
        let fine = sim.recorder().fine_buckets() as u32;
        let range = [fine / 4, fine];
        let even = sim.grouping_within(BucketMode::EqualKeys, range, 8);
        let hot = sim.grouping_within(BucketMode::TrafficWeighted, range, 8);
        for g in [&even, &hot] {
            // One group before the zoom, then groups inside it to its end.
            assert_eq!(g.bounds[..2], [0, range[0]], "{:?}", g.bounds);
            assert_eq!(*g.bounds.last().unwrap(), fine);
            assert!(g.len() <= 9, "{:?}", g.bounds);
        }
        // The group holding the hot device is narrower when traffic counts.
        let ops = sim.recorder().totals_by_key(Metric::Ops);
        let hottest = (0..ops.len())
            .max_by(|&a, &b| ops[a].total_cmp(&ops[b]))
            .unwrap() as u32;
        assert!(hottest >= range[0], "the hot device is inside the zoom");
        let width_at = |g: &KeyGrouping, f: u32| {
            let w = g.bounds.windows(2).find(|w| w[0] <= f && f < w[1]).unwrap();
            w[1] - w[0]
        };
        assert!(
            width_at(&hot, hottest) < width_at(&even, hottest),
            "fine bucket {hottest}: {:?} vs {:?}",
            hot.bounds,
            even.bounds
        );
        // A zoom that is the whole key space is the plain grouping.
        assert_eq!(
            sim.grouping_within(BucketMode::TrafficWeighted, [0, fine], 8),
            sim.grouping(BucketMode::TrafficWeighted, 8)
        );
    }

    #[test]
    fn views_fall_behind_writes_faster_than_they_apply() {
        // TINY writes 200 rows a second for 10 minutes.
        let toml = TINY.replace(
            "[keyviz]",
            "[[view]]\nname = \"slow index\"\nrows_per_second = 150\n\n[[view]]\nname = \"by device\"\n\n[keyviz]",
        );
        let mut sim = Simulation::from_toml(&toml).unwrap();
        sim.step(Step::Seconds(60.0));
        let [slow, fast] = sim.views() else {
            panic!("two views")
        };
        // 50 rows a second pile up for the slow one: about 20 s behind
        // after a minute; the other (the core's default pace) keeps up.
        assert!((slow.backlog_rows - 3000.0).abs() < 150.0, "{slow:?}");
        assert!((slow.lag_seconds - 20.0).abs() < 1.0, "{slow:?}");
        assert_eq!(fast.rows_per_second, 10_000.0);
        assert_eq!(fast.lag_seconds, 0.0);
        let report = sim.run_to_end();
        let v = &report.views[0];
        assert!((v.lag_seconds - 200.0).abs() < 5.0, "{v:?}");
        assert_eq!(v.peak_lag_seconds, v.lag_seconds, "the lag only grew");
        assert!((v.rows_applied + v.backlog_rows - v.rows_written).abs() < 1e-6);
        let text = report.to_text();
        assert!(text.contains("Materialized views"), "{text}");
        assert!(text.contains("slow index"), "{text}");
        // A scenario without views reports none.
        assert!(
            run_toml(TINY, Output::Json)
                .unwrap()
                .find("\"views\"")
                .is_none()
        );
        // The views survive the TOML the web app writes for a design.
        let again =
            Scenario::from_toml(&crate::scenario::scenario_to_toml(sim.scenario())).unwrap();
        assert_eq!(again.views, sim.scenario().views);
        // Bad views are refused with the line of their section.
        let bad = TINY.replace(
            "[keyviz]",
            "[[view]]\nname = \"x\"\nrows_per_second = 0\n[keyviz]",
        );
        let e = Simulation::from_toml(&bad).unwrap_err();
        assert!(
            e.message().contains("rows_per_second must be from 1"),
            "{}",
            e.message()
        );
        assert!(e.message().contains("line "), "{}", e.message());
        let twice = TINY.replace(
            "[keyviz]",
            "[[view]]\nname = \"x\"\n[[view]]\nname = \"x\"\n[keyviz]",
        );
        let e = Simulation::from_toml(&twice).unwrap_err();
        assert!(e.message().contains("used twice"), "{}", e.message());
    }

    #[test]
    fn latency_rises_with_load() {
        assert_eq!(latency_ms(5.0, 0.0), 5.0);
        assert!(latency_ms(5.0, 0.5) < latency_ms(5.0, 0.9));
        assert!(latency_ms(5.0, 0.94) < latency_ms(5.0, 0.96));
        assert!(latency_ms(5.0, 2.0) > latency_ms(5.0, 1.0));
    }
}
