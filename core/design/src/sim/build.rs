//! Building a simulation in short steps.
//!
//! Preparing a scenario is mostly rendering a sample of the keys the table
//! will hold (tens of thousands of them) and sorting it to cut the key
//! axis. Done in one call it is tens of milliseconds in a browser, longer
//! than one frame may take; [`SimBuild`] does the same work a chunk at a
//! time, so a page can build a simulation between frames. Run to its end,
//! it makes exactly the simulation [`Simulation::new`] makes.

use super::{
    Cluster, Costs, Driver, HeavyHitters, KeyDist, OpKind, Result, Scenario, ServedLog, Simulation,
    Thresholds, ViewQueues, new_row_fraction,
};
use crate::keydesign::{KeyInput, KeyRenderer, SegmentKind};
use crate::keyviz::{KeyAxis, Recorder};
use crate::rng::{Rng, Scatter, Zipf, det_exp};

/// Most keys sampled to cut the key axis.
const MAX_ANCHOR_SAMPLES: usize = 65_536;
/// Keys rendered (and sorted) in one step.
const SAMPLE_CHUNK: usize = 1024;
/// Existing rows' sample keys placed on the axis in one step.
const PLACE_CHUNK: usize = 4096;

/// A simulation being built: its plan made, its key-space sample drawn a
/// chunk per [`SimBuild::step`], then sorted into the key axis and the
/// existing rows placed on it. [`SimBuild::finish`] does what is left and
/// hands over the simulation.
#[derive(Clone, Debug)]
pub struct SimBuild {
    scenario: Scenario,
    renderer: KeyRenderer,
    drivers: Vec<Driver>,
    plan: Plan,
    rng: Rng,
    /// Every sampled key (existing rows and rows to be written), sorted a
    /// chunk at a time.
    samples: Vec<Vec<u8>>,
    /// The existing rows' sampled keys.
    initial: Vec<Vec<u8>>,
    phase: Phase,
}

/// The figures of a run, fixed before sampling.
#[derive(Clone, Debug)]
struct Plan {
    t_n: usize,
    bucket_seconds: f64,
    ticks_per_bucket: u64,
    ticks_total: u64,
    tick_seconds: f64,
    duration: f64,
    costs: Costs,
    entities: u64,
    row_bytes: f64,
    version_cap: Option<u32>,
    initial_rows: f64,
    /// Cumulative sequential writes at every tick boundary.
    seq_cum: Vec<f64>,
    start_micros: i64,
    history: f64,
    /// Rows the writers create over the run.
    new_total: f64,
    fine_max: usize,
    n_initial: usize,
    /// Keys each workload samples of the rows to be written.
    quotas: Vec<usize>,
}

/// How far the build got.
#[derive(Clone, Debug)]
enum Phase {
    /// Rendering existing rows' keys.
    Initial,
    /// Rendering the keys workload `driver` writes; `done` of its quota.
    New { driver: usize, done: usize },
    /// Every key rendered: sort them and cut the axis.
    Axis,
    /// Placing existing rows on the axis, from `next` on.
    Rows {
        axis: KeyAxis,
        rows: Vec<f64>,
        next: usize,
    },
}

impl SimBuild {
    /// Checks the scenario and plans its run (short: no key is rendered
    /// yet).
    ///
    /// # Errors
    ///
    /// When the scenario is invalid.
    pub fn new(scenario: Scenario) -> Result<SimBuild> {
        scenario.validate()?;
        let renderer = KeyRenderer::new(&scenario.key)?;
        let (mut plan, drivers) = plan(&scenario);
        let n_samples = (plan.fine_max * 16).min(MAX_ANCHOR_SAMPLES);
        let total_rows = plan.initial_rows + plan.new_total;
        plan.n_initial = if total_rows > 0.0 {
            (n_samples as f64 * plan.initial_rows / total_rows).round() as usize
        } else {
            0
        };
        let n_new = n_samples - plan.n_initial.min(n_samples);
        plan.quotas = quotas(&drivers, n_new, total_rows);
        Ok(SimBuild {
            rng: Rng::new(scenario.seed, 1),
            samples: Vec::with_capacity(n_samples),
            initial: Vec::new(),
            phase: Phase::Initial,
            scenario,
            renderer,
            drivers,
            plan,
        })
    }

    /// Whether every step is done ([`SimBuild::finish`] is then short).
    #[must_use]
    pub fn is_ready(&self) -> bool {
        matches!(&self.phase, Phase::Rows { next, .. } if *next >= self.initial.len())
    }

    /// Does one short piece of the build: renders a chunk of sample keys,
    /// sorts them into the key axis, or places a chunk of existing rows
    /// on it. Nothing once ready.
    pub fn step(&mut self) {
        match &mut self.phase {
            Phase::Initial => self.sample_initial(),
            Phase::New { .. } => self.sample_new(),
            Phase::Axis => {
                // The chunks are sorted runs; a stable sort merges them.
                self.samples.sort();
                let axis = KeyAxis::from_samples(&mut self.samples, self.plan.fine_max);
                self.samples = Vec::new();
                let rows = vec![0.0; axis.len()];
                self.phase = Phase::Rows {
                    axis,
                    rows,
                    next: 0,
                };
            }
            Phase::Rows { axis, rows, next } => {
                let end = (*next + PLACE_CHUNK).min(self.initial.len());
                let per = self.plan.initial_rows / self.initial.len().max(1) as f64;
                for k in self.initial.get(*next..end).unwrap_or_default() {
                    if let Some(r) = rows.get_mut(axis.bucket_of(k)) {
                        *r += per;
                    }
                }
                *next = end;
            }
        }
    }

    /// Runs what is left and hands over the simulation, at its start.
    #[must_use]
    pub fn finish(mut self) -> Simulation {
        loop {
            if self.is_ready()
                && let Phase::Rows { axis, rows, .. } = self.phase
            {
                return assemble(
                    self.scenario,
                    self.renderer,
                    self.drivers,
                    &self.plan,
                    axis,
                    rows,
                );
            }
            self.step();
        }
    }

    fn sample_initial(&mut self) {
        let p = &self.plan;
        let end = (self.initial.len() + SAMPLE_CHUNK).min(p.n_initial);
        let from = self.samples.len();
        while self.initial.len() < end {
            let input = KeyInput {
                entity: self.rng.below(p.entities),
                time_micros: p.start_micros - (self.rng.next_f64() * p.history * 1e6) as i64 - 1000,
                op_seq: self.rng.below(p.initial_rows.max(1.0) as u64),
                op_random: self.rng.next_u64(),
            };
            let mut k = Vec::new();
            self.renderer.render(&input, &mut k);
            self.samples.push(k.clone());
            self.initial.push(k);
        }
        sort_tail(&mut self.samples, from);
        if self.initial.len() >= p.n_initial {
            self.phase = Phase::New { driver: 0, done: 0 };
        }
    }

    fn sample_new(&mut self) {
        let Phase::New { driver, done } = &mut self.phase else {
            return;
        };
        let from = self.samples.len();
        let mut budget = SAMPLE_CHUNK;
        while budget > 0 {
            let (Some(d), Some(&quota)) =
                (self.drivers.get(*driver), self.plan.quotas.get(*driver))
            else {
                break;
            };
            if *done >= quota {
                *driver += 1;
                *done = 0;
                continue;
            }
            let n = (quota - *done).min(budget);
            for _ in 0..n {
                let k = sample_write(d, &self.plan, &mut self.rng, &mut self.renderer);
                self.samples.push(k);
            }
            *done += n;
            budget -= n;
        }
        let finished = *driver >= self.drivers.len();
        sort_tail(&mut self.samples, from);
        if finished {
            self.phase = Phase::Axis;
        }
    }
}

/// Sorts the keys added since `from`, so the sample is a series of sorted
/// runs.
fn sort_tail(samples: &mut [Vec<u8>], from: usize) {
    if let Some(tail) = samples.get_mut(from..) {
        tail.sort_unstable();
    }
}

/// The run's figures and its workloads' drivers.
fn plan(scenario: &Scenario) -> (Plan, Vec<Driver>) {
    let kv = &scenario.keyviz;
    let duration = scenario.duration.0;
    let t_n = kv.time_buckets as usize;
    let bucket_seconds = duration / t_n as f64;
    let ticks_per_bucket = (bucket_seconds / 15.0).ceil().clamp(1.0, 8.0) as u64;
    let ticks_total = t_n as u64 * ticks_per_bucket;
    let tick_seconds = duration / ticks_total as f64;
    let c = &scenario.cluster;
    let costs = Costs {
        read: 1.0 / c.reads_per_second(),
        write_per_kb: 1.0 / c.writes_per_second(),
        scan_byte: 1.0 / c.scan_bytes_per_second(),
        request: 1.0 / c.reads_per_second(),
    };
    let t = &scenario.table;
    let entities = t.entities;
    let version_cap = t.families.values().next().and_then(|f| f.max_versions);
    let initial_rows = match scenario.key.keys_per_entity(entities) {
        Some(k) => (t.rows as f64).min(entities as f64 * k as f64),
        None => t.rows as f64,
    };

    // Real operations per tick for every workload, and the cumulative
    // sequential writes (for sampling sequential keys at a time).
    let mut expected = vec![0.0; scenario.workloads.len()];
    let mut seq_cum = Vec::with_capacity(ticks_total as usize + 1);
    seq_cum.push(0.0);
    for i in 0..ticks_total {
        let mid = (i as f64 + 0.5) * tick_seconds;
        let mut seq = 0.0;
        for (e, w) in expected.iter_mut().zip(&scenario.workloads) {
            let real = w.rate * w.factor(mid) * tick_seconds;
            *e += real;
            if w.op == OpKind::Write && w.keys == KeyDist::Sequential {
                seq += real;
            }
        }
        let last = seq_cum.last().copied().unwrap_or(0.0);
        seq_cum.push(last + seq);
    }
    let drivers = drivers(scenario, &expected, initial_rows);
    let new_total: f64 = drivers
        .iter()
        .filter(|d| d.spec.op == OpKind::Write)
        .map(|d| d.expected * d.new_rows)
        .sum();
    let plan = Plan {
        t_n,
        bucket_seconds,
        ticks_per_bucket,
        ticks_total,
        tick_seconds,
        duration,
        costs,
        entities,
        row_bytes: t.row_bytes as f64,
        version_cap,
        initial_rows,
        seq_cum,
        start_micros: scenario.start.0,
        history: t.history.0,
        new_total,
        fine_max: kv.fine_buckets as usize,
        n_initial: 0,
        quotas: Vec::new(),
    };
    (plan, drivers)
}

/// One driver per workload, with the weight a drawn operation carries.
fn drivers(scenario: &Scenario, expected: &[f64], initial_rows: f64) -> Vec<Driver> {
    let t = &scenario.table;
    let entities = t.entities;
    let nodes = scenario.cluster.nodes as usize;
    let budget = scenario.sim.sample_ops as f64;
    let sampled_real: f64 = scenario
        .workloads
        .iter()
        .zip(expected)
        .filter(|(w, _)| w.op != OpKind::FullScan)
        .map(|(_, e)| e)
        .sum();
    let seed = scenario.seed;
    let mut drivers = Vec::with_capacity(scenario.workloads.len());
    for (i, (w, &exp)) in scenario.workloads.iter().zip(expected).enumerate() {
        let weight = if w.op == OpKind::FullScan || sampled_real <= budget || exp <= 0.0 {
            1.0
        } else {
            let samples = (budget * exp / sampled_real).max(exp.min(1000.0));
            (exp / samples).max(1.0)
        };
        let family = scenario.family_of(w);
        let grows = family.and_then(|f| f.max_versions) != Some(1);
        let value_bytes = w.value_bytes.unwrap_or(t.row_bytes) as f64;
        let new_rows = new_row_fraction(scenario, w, exp, initial_rows);
        drivers.push(Driver {
            spec: w.clone(),
            weight,
            expected: exp,
            zipf: match w.keys {
                KeyDist::Zipf(s) => Some(Zipf::new(entities, s)),
                _ => None,
            },
            scatter: Scatter::new(entities, seed ^ (i as u64) << 8),
            new_rows,
            value_bytes,
            grows,
            prefix_card: prefix_cardinality(scenario, w),
            rng: Rng::new(seed, 100 + i as u64),
            real: 0.0,
            sampled: 0,
            tablets_sum: 0.0,
            tablets_max: 0,
            rows_sum: 0.0,
            scanned_sum: 0.0,
            weighted: 0.0,
            node_work: vec![0.0; nodes],
            work_total: vec![0.0; nodes],
            latency_weighted: 0.0,
            throttled_work: 0.0,
        });
    }
    drivers
}

/// Distinct prefixes a prefix scan of `w` chooses from (`None`: unknown).
fn prefix_cardinality(scenario: &Scenario, w: &crate::scenario::Workload) -> Option<f64> {
    let entities = scenario.table.entities;
    let k = w.prefix_segments? as usize;
    let segment = scenario
        .key
        .segments
        .get(k.wrapping_sub(1))
        .map(|s| &s.kind);
    match segment {
        Some(SegmentKind::Domain { sites, .. }) if w.prefix_labels.is_some() => {
            let before = scenario.key.prefix_cardinality(k - 1, entities)? as f64;
            Some((before * f64::from(*sites)).min(entities as f64).max(1.0))
        }
        _ => scenario
            .key
            .prefix_cardinality(k, entities)
            .map(|c| c.max(1) as f64),
    }
}

/// Sample keys each workload renders of the rows to be written: writers
/// by their share of new rows; with no rows at all, every workload.
fn quotas(drivers: &[Driver], n_new: usize, total_rows: f64) -> Vec<usize> {
    if n_new == 0 {
        return vec![0; drivers.len()];
    }
    let shares: Vec<f64> = drivers
        .iter()
        .map(|d| {
            if total_rows > 0.0 {
                if d.spec.op == OpKind::Write {
                    d.expected * d.new_rows
                } else {
                    0.0
                }
            } else {
                d.expected.max(1.0)
            }
        })
        .collect();
    let share_sum: f64 = shares.iter().sum();
    shares
        .iter()
        .map(|share| {
            if share_sum <= 0.0 || *share <= 0.0 {
                0
            } else {
                (n_new as f64 * share / share_sum).round() as usize
            }
        })
        .collect()
}

/// One key a workload writes, at a time drawn from its shape.
fn sample_write(d: &Driver, p: &Plan, rng: &mut Rng, renderer: &mut KeyRenderer) -> Vec<u8> {
    let duration = p.duration;
    let max_f = d.spec.shape.max_factor().max(1e-9);
    let mut at = rng.next_f64() * duration;
    for _ in 0..32 {
        if rng.next_f64() * max_f <= d.spec.factor(at) {
            break;
        }
        at = rng.next_f64() * duration;
    }
    // Sequential entities created by time `at`, interpolated within its
    // tick.
    let pos = at / p.tick_seconds;
    let tick = (pos as usize).min(p.ticks_total as usize);
    let lo = p.seq_cum.get(tick).copied().unwrap_or(0.0);
    let hi = p.seq_cum.get(tick + 1).copied().unwrap_or(lo);
    let seq_before = lo + (hi - lo) * (pos - tick as f64).clamp(0.0, 1.0);
    let entity = match d.spec.keys {
        KeyDist::Sequential if d.spec.op == OpKind::Write => p.entities + seq_before as u64,
        KeyDist::Zipf(_) => d
            .zipf
            .as_ref()
            .map_or(0, |z| d.scatter.apply(z.sample(rng))),
        KeyDist::HotKey => d.spec.hot_entity.unwrap_or(0),
        _ => rng.below(p.entities + seq_before as u64),
    };
    let input = KeyInput {
        entity,
        time_micros: p.start_micros + (at * 1e6) as i64,
        op_seq: (p.initial_rows + at / duration * p.new_total) as u64,
        op_random: rng.next_u64(),
    };
    let mut k = Vec::new();
    renderer.render(&input, &mut k);
    k
}

/// The simulation at its start, from the plan, the axis and the rows on it.
fn assemble(
    scenario: Scenario,
    renderer: KeyRenderer,
    drivers: Vec<Driver>,
    p: &Plan,
    axis: KeyAxis,
    rows: Vec<f64>,
) -> Simulation {
    let fine = axis.len();
    let bytes: Vec<f64> = rows.iter().map(|r| r * p.row_bytes).collect();
    let c = &scenario.cluster;
    let rebalance_every = c.rebalance_every.0.max(p.tick_seconds);
    let th = Thresholds {
        split_bytes: c.split_bytes as f64,
        split_load: c.split_load,
        merge_bytes: c.merge_bytes as f64,
        merge_load: (c.split_load * 0.08).min(0.02),
        merge_cooldown: 5.0 * rebalance_every,
        move_gap: 0.1,
        max_moves: (c.nodes as usize).max(2),
    };
    let cluster = Cluster::new(c.nodes as usize, fine, &bytes, th);
    let nodes = c.nodes as usize;
    let mut rec = Recorder::new(p.t_n, fine, p.bucket_seconds);
    rec.set_base_latency_ms(c.base_latency_ms);
    let mut sim = Simulation {
        rec,
        renderer,
        cluster,
        drivers,
        load: vec![0.0; fine],
        tick_cost: vec![0.0; fine],
        tick_write_cost: vec![0.0; fine],
        fine_node: vec![0; fine],
        bucket_cost: vec![0.0; fine],
        scan_coef: vec![0.0; fine + 1],
        scan_even: vec![0.0; fine + 1],
        scan_coef_kept: vec![0.0; fine + 1],
        scan_even_kept: vec![0.0; fine + 1],
        scan_ops: vec![0.0; fine + 1],
        scan_scale: 0.0,
        prefix_rows: Vec::with_capacity(fine + 1),
        full_scans: 0.0,
        full_scan_returned: 0.0,
        heavy: HeavyHitters::new(32),
        key: Vec::with_capacity(64),
        costs: p.costs,
        start_micros: p.start_micros,
        history: p.history,
        row_bytes: p.row_bytes,
        version_cap: p.version_cap,
        tick: 0,
        ticks_total: p.ticks_total,
        ticks_per_bucket: p.ticks_per_bucket,
        tick_seconds: p.tick_seconds,
        rebalance_every,
        last_rebalance: 0.0,
        ewma_alpha: 1.0 - det_exp(-p.tick_seconds / rebalance_every),
        next_entity: p.entities as f64,
        op_seq: p.initial_rows,
        point_ops: 0.0,
        node_cpu: vec![0.0; p.t_n * nodes],
        node_bucket_acc: vec![0.0; nodes],
        node_stats: vec![Default::default(); nodes],
        hot_tablets: Vec::new(),
        events: Vec::new(),
        served: ServedLog::default(),
        views: ViewQueues::new(&scenario.views),
        rows,
        bytes,
        axis,
        scenario,
    };
    sim.refresh_fine_node();
    sim.served.note(0.0, &sim.cluster.tablets);
    sim
}
