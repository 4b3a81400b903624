//! A scenario's workload replayed against a real table: [`Replay`] turns
//! the workloads' rates and shapes into a scaled-down stream of real
//! requests (MutateRow, ReadRows of a row, a range or a prefix, full
//! scans read in chunks) and sends them to an [`Instance`], moving the
//! instance's clock through the run as it goes. The table's traffic log
//! then holds the scenario's pattern on the table's real keys, so the
//! live Key Visualizer and the real tablets show what the simulation
//! predicted (a timestamp-first key writes a diagonal there too).
//!
//! The run's duration is laid over [`ReplaySpec::columns`] traffic buckets
//! of instance time, starting at the next bucket boundary after the
//! instance's clock: a replay moves the clock forward by that much (the
//! clock never goes back, so later requests come after the replay). The
//! work is resumable ([`Replay::run`] stops when its caller says time is
//! up), so a page can replay in slices.

use super::Simulation;
use crate::keydesign::{KeyInput, KeyRenderer};
use crate::rng::{Rng, Scatter, Zipf};
use crate::scenario::{KeyDist, OpKind, Workload};
use tabletop_sql::Instance;
use tabletop_store::traffic::TRAFFIC_BUCKET_MICROS;
use tabletop_store::{
    CountRows, Error, KeyBound, Mutation, ReadRowsRequest, Result, RowRange, RowSet,
};

/// Replay steps (clock positions) per traffic bucket.
const SLOTS_PER_COLUMN: u64 = 8;
/// Rows one request of a full scan reads (a full scan is read in chunks
/// so no single request holds the host for long).
pub const FULL_SCAN_CHUNK_ROWS: i64 = 2_000;
/// Most rows a replayed range scan asks for.
const MAX_SCAN_ROWS: f64 = 10_000.0;
/// Largest replayed cell value, in bytes.
const MAX_VALUE_BYTES: u64 = 1024;

/// How much of the workload to replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplaySpec {
    /// Requests to send in all (the workloads' shares of the run, scaled
    /// to this total; full scans count once each).
    pub ops: u64,
    /// Traffic buckets ([`TRAFFIC_BUCKET_MICROS`] each) of instance time
    /// the run is laid over.
    pub columns: u32,
    /// Different seeds draw different keys.
    pub seed: u64,
}

impl Default for ReplaySpec {
    fn default() -> Self {
        ReplaySpec {
            ops: 20_000,
            columns: 30,
            seed: 0,
        }
    }
}

/// How far a replay got.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayProgress {
    /// Requests sent.
    pub ops: u64,
    /// Requests planned.
    pub total: u64,
    /// Of the sent: writes, point reads, range or prefix scans, full
    /// scans (each counted once, however many chunks).
    pub writes: u64,
    /// See [`ReplayProgress::writes`].
    pub reads: u64,
    /// See [`ReplayProgress::writes`].
    pub scans: u64,
    /// See [`ReplayProgress::writes`].
    pub full_scans: u64,
    /// Requests the instance refused (the replay goes on).
    pub refused: u64,
}

impl ReplayProgress {
    /// Progress from 0.0 to 1.0.
    #[must_use]
    pub fn fraction(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            (self.ops as f64 / self.total as f64).min(1.0)
        }
    }
}

/// One workload during a replay.
#[derive(Clone, Debug)]
struct Lane {
    spec: Workload,
    family: String,
    zipf: Option<Zipf>,
    scatter: Scatter,
    rng: Rng,
    value_bytes: usize,
    /// Requests per slot.
    plan: Vec<u64>,
    /// Real operations before each slot (for sequential keys).
    real_before: Vec<f64>,
    /// Real operations in each slot.
    real_in: Vec<f64>,
    /// Requests left in the current slot.
    left: u64,
}

/// How a replay's request rate compares with its scenario's: the live
/// Key Visualizer measures the requests the instance really served, so a
/// scaled-down replay loads a node only as much as its own rate does.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReplayRate {
    /// Operations a second the scenario's workloads send (full scans
    /// aside), averaged over its run.
    pub scenario_per_second: f64,
    /// Requests a second the replay sends (full scans aside), over the
    /// instance time it is laid over.
    pub replay_per_second: f64,
}

impl ReplayRate {
    /// The replay's rate as a share of the scenario's (1 when it runs at
    /// full rate or the scenario sends nothing).
    #[must_use]
    pub fn fraction(&self) -> f64 {
        if self.scenario_per_second > 0.0 {
            (self.replay_per_second / self.scenario_per_second).min(1.0)
        } else {
            1.0
        }
    }
}

/// A workload replay in progress (see the module docs).
#[derive(Clone, Debug)]
pub struct Replay {
    table_id: String,
    rate: ReplayRate,
    renderer: KeyRenderer,
    lanes: Vec<Lane>,
    slots: u64,
    slot: u64,
    /// Instance time of the run's start.
    base_micros: Option<i64>,
    span_micros: i64,
    duration: f64,
    history: f64,
    start_micros: i64,
    entities: u64,
    /// Sequential writes (real) before each slot, and the rows that
    /// existed before the run.
    seq_before: Vec<f64>,
    writes_before: Vec<f64>,
    initial_rows: f64,
    /// Requests sent in the current slot (to spread them over it).
    in_slot: u64,
    slot_total: u64,
    /// A full scan under way: the next key to read from.
    full_scan: Option<Vec<u8>>,
    progress: ReplayProgress,
    key: Vec<u8>,
    value: Vec<u8>,
}

impl Simulation {
    /// A replay of this scenario's workload against `table_id` (a table
    /// with the scenario's keys, such as one written from
    /// [`Simulation::sample_rows`]).
    #[must_use]
    pub fn replay(&self, table_id: &str, spec: ReplaySpec) -> Replay {
        let s = &self.scenario;
        let columns = u64::from(spec.columns.clamp(1, 1000));
        let slots = columns * SLOTS_PER_COLUMN;
        let duration = self.duration_seconds();
        let dt = duration / slots as f64;
        let families: Vec<String> = self.table_schema().families.into_keys().collect();
        let real: Vec<Vec<f64>> = s
            .workloads
            .iter()
            .map(|w| {
                (0..slots)
                    .map(|i| {
                        let r = w.rate * w.factor((i as f64 + 0.5) * dt) * dt;
                        if r.is_finite() { r.max(0.0) } else { 0.0 }
                    })
                    .collect()
            })
            .collect();
        let point_real: f64 = s
            .workloads
            .iter()
            .zip(&real)
            .filter(|(w, _)| w.op != OpKind::FullScan)
            .map(|(_, r)| r.iter().sum::<f64>())
            .sum();
        let full_real: f64 = s
            .workloads
            .iter()
            .zip(&real)
            .filter(|(w, _)| w.op == OpKind::FullScan)
            .map(|(_, r)| r.iter().sum::<f64>())
            .sum();
        // Full scans are few and each reads the whole table: at most one
        // per traffic bucket, the rest of the requests go to the others.
        let full_ops = full_real.min(columns as f64);
        let point_ops = (spec.ops as f64 - full_ops).max(0.0);
        let mut lanes = Vec::with_capacity(s.workloads.len());
        let mut seq_real = vec![0.0; slots as usize];
        let mut write_real = vec![0.0; slots as usize];
        for (i, (w, r)) in s.workloads.iter().zip(real).enumerate() {
            let scale = match w.op {
                OpKind::FullScan if full_real > 0.0 => full_ops / full_real,
                OpKind::FullScan => 0.0,
                _ if point_real > 0.0 => point_ops / point_real,
                _ => 0.0,
            };
            // Rounded running totals, so the lane's requests add up to
            // its share rounded, not rounded down slot by slot.
            let mut cum = 0.0;
            let mut sent = 0u64;
            let plan: Vec<u64> = r
                .iter()
                .map(|x| {
                    cum += x * scale;
                    let upto = (cum + 1e-9).round() as u64;
                    let n = upto.saturating_sub(sent);
                    sent = upto.max(sent);
                    n
                })
                .collect();
            let mut acc = 0.0;
            let real_before: Vec<f64> = r
                .iter()
                .map(|x| {
                    let before = acc;
                    acc += x;
                    before
                })
                .collect();
            if w.op == OpKind::Write {
                for (j, x) in r.iter().enumerate() {
                    write_real[j] += x;
                    if w.keys == KeyDist::Sequential {
                        seq_real[j] += x;
                    }
                }
            }
            let family = w
                .family
                .clone()
                .filter(|f| families.contains(f))
                .or_else(|| families.first().cloned())
                .unwrap_or_else(|| "cf".into());
            let value_bytes = w
                .value_bytes
                .unwrap_or(s.table.row_bytes)
                .clamp(1, MAX_VALUE_BYTES) as usize;
            lanes.push(Lane {
                family,
                zipf: match w.keys {
                    KeyDist::Zipf(z) => Some(Zipf::new(s.table.entities, z)),
                    _ => None,
                },
                scatter: Scatter::new(s.table.entities, s.seed ^ (i as u64) << 8),
                rng: Rng::new(s.seed ^ spec.seed, 300 + i as u64),
                value_bytes,
                left: plan.first().copied().unwrap_or(0),
                plan,
                real_before,
                real_in: r,
                spec: w.clone(),
            });
        }
        let cumulative = |xs: &[f64]| {
            let mut acc = 0.0;
            xs.iter()
                .map(|x| {
                    let before = acc;
                    acc += x;
                    before
                })
                .collect::<Vec<f64>>()
        };
        let total = lanes.iter().map(|l| l.plan.iter().sum::<u64>()).sum();
        let span_seconds = (TRAFFIC_BUCKET_MICROS * columns as i64) as f64 / 1e6;
        let mut replay = Replay {
            table_id: table_id.to_string(),
            rate: ReplayRate {
                scenario_per_second: if duration > 0.0 {
                    point_real / duration
                } else {
                    0.0
                },
                replay_per_second: point_ops / span_seconds,
            },
            renderer: self.renderer.clone(),
            lanes,
            slots,
            slot: 0,
            base_micros: None,
            span_micros: TRAFFIC_BUCKET_MICROS * columns as i64,
            duration,
            history: self.history,
            start_micros: s.start.0,
            entities: s.table.entities,
            seq_before: cumulative(&seq_real),
            writes_before: cumulative(&write_real),
            initial_rows: self.op_seq,
            in_slot: 0,
            slot_total: 0,
            full_scan: None,
            progress: ReplayProgress {
                total,
                ..ReplayProgress::default()
            },
            key: Vec::with_capacity(64),
            value: Vec::new(),
        };
        replay.slot_total = replay.lanes.iter().map(|l| l.left).sum();
        replay
    }
}

impl Replay {
    /// The table the requests go to.
    #[must_use]
    pub fn table_id(&self) -> &str {
        &self.table_id
    }

    /// Its request rate beside the scenario's.
    #[must_use]
    pub fn rate(&self) -> ReplayRate {
        self.rate
    }

    /// How far it got.
    #[must_use]
    pub fn progress(&self) -> ReplayProgress {
        self.progress
    }

    /// Whether every planned request was sent.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.slot >= self.slots && self.full_scan.is_none()
    }

    /// Instance time the replay spans, `[start, end)` in microseconds
    /// (`None` before the first [`Replay::run`]).
    #[must_use]
    pub fn instance_span(&self) -> Option<(i64, i64)> {
        self.base_micros.map(|b| (b, b + self.span_micros))
    }

    /// Sends requests until the replay is done or `out_of_time` (asked
    /// after every request) says stop. The instance's clock moves
    /// through the replayed span as it goes, and the engine's due work
    /// (flushes, splits) runs at every step. A refused request is counted
    /// and skipped; only a missing table stops the replay.
    pub fn run(&mut self, db: &mut Instance, out_of_time: &mut dyn FnMut() -> bool) -> Result<()> {
        if !db.has_table(&self.table_id) {
            return Err(Error::not_found(format!(
                "table \"{}\" not found: the replay needs the scenario's table",
                self.table_id
            )));
        }
        let base = *self.base_micros.get_or_insert_with(|| {
            let now = db.now_micros();
            (now.div_euclid(TRAFFIC_BUCKET_MICROS) + 1) * TRAFFIC_BUCKET_MICROS
        });
        while !self.is_done() {
            if let Some(from) = self.full_scan.take() {
                self.full_scan_chunk(db, from);
            } else if self.in_slot >= self.slot_total {
                self.next_slot(db, base);
                continue;
            } else {
                let u = (self.in_slot as f64 + 0.5) / self.slot_total.max(1) as f64;
                // Never back: a host may have moved the clock on meanwhile.
                db.set_now(self.micros_at(base, u).max(db.now_micros()));
                self.send_one(db, u);
                self.in_slot += 1;
            }
            if out_of_time() {
                break;
            }
        }
        Ok(())
    }

    /// Instance time at fraction `u` of the current slot, on whole
    /// milliseconds.
    fn micros_at(&self, base: i64, u: f64) -> i64 {
        let f = (self.slot as f64 + u) / self.slots as f64;
        let t = base + (f * self.span_micros as f64) as i64;
        t - t.rem_euclid(1000)
    }

    /// Moves to the next slot: the clock to its start, the engine's due
    /// work done.
    fn next_slot(&mut self, db: &mut Instance, base: i64) {
        self.slot += 1;
        self.in_slot = 0;
        let slot = self.slot as usize;
        for lane in &mut self.lanes {
            lane.left = lane.plan.get(slot).copied().unwrap_or(0);
        }
        self.slot_total = self.lanes.iter().map(|l| l.left).sum();
        let now = self.micros_at(base, 0.0).max(db.now_micros());
        db.tick(now);
    }

    /// Sends one request of the current slot: the lanes take turns, in
    /// proportion to what each has left.
    fn send_one(&mut self, db: &mut Instance, u: f64) {
        let left: u64 = self.lanes.iter().map(|l| l.left).sum();
        if left == 0 {
            return;
        }
        // The lane whose share of the slot is furthest behind.
        let pick = self
            .lanes
            .iter()
            .enumerate()
            .filter(|(_, l)| l.left > 0)
            .max_by(|(_, a), (_, b)| a.left.cmp(&b.left))
            .map_or(0, |(i, _)| i);
        let Some(lane) = self.lanes.get_mut(pick) else {
            return;
        };
        lane.left -= 1;
        let slot = self.slot as usize;
        let dt = self.duration / self.slots as f64;
        let t = (self.slot as f64 + u) * dt;
        let real_in = lane.real_in.get(slot).copied().unwrap_or(0.0);
        let seq_before = self.seq_before.get(slot).copied().unwrap_or(0.0);
        let writes_before = self.writes_before.get(slot).copied().unwrap_or(0.0);
        let population = self.entities + seq_before as u64;
        let rng = &mut lane.rng;
        let entity = match lane.spec.keys {
            KeyDist::Uniform => rng.below(population),
            KeyDist::Zipf(_) => lane
                .zipf
                .as_ref()
                .map_or(0, |z| lane.scatter.apply(z.sample(rng))),
            KeyDist::Sequential if lane.spec.op == OpKind::Write => {
                self.entities + (seq_before + u * real_in) as u64
            }
            KeyDist::Sequential => {
                let before = lane.real_before.get(slot).copied().unwrap_or(0.0);
                ((before + u * real_in) as u64) % population.max(1)
            }
            KeyDist::HotKey => lane.spec.hot_entity.unwrap_or(0),
        };
        let at = if lane.spec.op == OpKind::Write {
            t
        } else {
            let span = lane.spec.age.map_or(self.history + t, |a| a.0);
            t - rng.next_f64() * span
        };
        let op_seq = if lane.spec.op == OpKind::Write {
            (self.initial_rows + writes_before + u * real_in) as u64
        } else {
            rng.below(((self.initial_rows + writes_before) as u64).max(1))
        };
        let input = KeyInput {
            entity,
            time_micros: self.start_micros + (at * 1e6) as i64,
            op_seq,
            op_random: rng.next_u64(),
        };
        let op = lane.spec.op;
        let result = match op {
            OpKind::Write => {
                self.renderer.render(&input, &mut self.key);
                self.value.clear();
                self.value.resize(lane.value_bytes, b'w');
                let ts = db.now_micros();
                let m = [Mutation::set_cell(
                    &lane.family,
                    b"v",
                    ts - ts.rem_euclid(1000),
                    &self.value,
                )];
                self.progress.writes += 1;
                db.mutate_row(&self.table_id, &self.key, &m)
            }
            OpKind::Read => {
                self.renderer.render(&input, &mut self.key);
                self.progress.reads += 1;
                db.read_row(&self.table_id, &self.key, None).map(|_| ())
            }
            OpKind::Scan => {
                let range = match lane.spec.prefix_segments {
                    Some(k) => {
                        self.renderer.render_prefix(
                            &input,
                            k as usize,
                            lane.spec.prefix_labels.map(|l| l as usize),
                            &mut self.key,
                        );
                        RowRange::prefix(self.key.clone())
                    }
                    None => {
                        self.renderer.render(&input, &mut self.key);
                        RowRange {
                            start: KeyBound::Closed(self.key.clone()),
                            end: KeyBound::Unbounded,
                        }
                    }
                };
                let keep = lane.spec.selectivity.unwrap_or(1.0).clamp(1e-9, 1.0);
                let want = match (lane.spec.rows, lane.spec.prefix_segments) {
                    (Some(n), _) => (n as f64 / keep).ceil().min(MAX_SCAN_ROWS),
                    (None, Some(_)) => 0.0,
                    (None, None) => (1.0 / keep).ceil().min(MAX_SCAN_ROWS),
                };
                let req = ReadRowsRequest {
                    rows: RowSet::range(range),
                    rows_limit: want as i64,
                    ..ReadRowsRequest::default()
                };
                self.progress.scans += 1;
                db.read_rows(&self.table_id, &req, &mut CountRows::default())
                    .map(|_| ())
            }
            OpKind::FullScan => {
                self.progress.full_scans += 1;
                self.full_scan = Some(Vec::new());
                Ok(())
            }
        };
        self.progress.ops += 1;
        if result.is_err() {
            self.progress.refused += 1;
        }
    }

    /// Reads the next chunk of a full scan starting at `from`; keeps the
    /// scan going when the chunk was full.
    fn full_scan_chunk(&mut self, db: &mut Instance, from: Vec<u8>) {
        let req = ReadRowsRequest {
            rows: RowSet::range(RowRange {
                start: if from.is_empty() {
                    KeyBound::Unbounded
                } else {
                    KeyBound::Open(from)
                },
                end: KeyBound::Unbounded,
            }),
            rows_limit: FULL_SCAN_CHUNK_ROWS,
            ..ReadRowsRequest::default()
        };
        let mut last = LastKey::default();
        match db.read_rows(&self.table_id, &req, &mut last) {
            Ok(_) if last.rows == FULL_SCAN_CHUNK_ROWS => self.full_scan = last.key,
            Ok(_) => {}
            Err(_) => self.progress.refused += 1,
        }
    }
}

/// A sink that counts rows and keeps the last key.
#[derive(Default)]
struct LastKey {
    rows: i64,
    key: Option<Vec<u8>>,
}

impl tabletop_store::RowSink for LastKey {
    fn accept(&mut self, row: tabletop_store::RowView<'_>) -> bool {
        self.rows += 1;
        let key = self.key.get_or_insert_with(Vec::new);
        key.clear();
        key.extend_from_slice(row.key);
        true
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::sim::{SampleMoment, SampleSpec};

    const TIMESTAMP_FIRST: &str = r##"
name = "ts"
duration = "10m"
[table]
id = "events"
rows = 10000
entities = 1000
families = { e = { max_versions = 1 } }
[key]
segments = [
  { name = "ts", kind = "timestamp", unit = "ms" },
  { name = "id", kind = "hex", width = 8 },
]
[[workload]]
op = "write"
rate = 1000
[[workload]]
op = "read"
rate = 200
[keyviz]
time_buckets = 10
fine_buckets = 32
"##;

    fn loaded(text: &str) -> (Simulation, Instance) {
        let sim = Simulation::from_toml(text).unwrap();
        let mut db = Instance::default();
        db.set_now(1_700_000_000_000_000);
        db.create_table(sim.table_request("t")).unwrap();
        let mut rows = sim.sample_rows(SampleSpec {
            rows: 2_000,
            seed: 1,
            moment: SampleMoment::EndOfRun,
        });
        while rows.write_batch(&mut db, "t", 500).unwrap() > 0 {}
        (sim, db)
    }

    #[test]
    fn sends_the_planned_requests_through_the_instance_clock() {
        let (sim, mut db) = loaded(TIMESTAMP_FIRST);
        let before = db.now_micros();
        let spec = ReplaySpec {
            ops: 3_000,
            columns: 12,
            seed: 0,
        };
        let mut replay = sim.replay("t", spec);
        let total = replay.progress().total;
        assert_eq!(total, 3_000);
        // In slices: stop after every 500 requests.
        let mut slices = 0;
        while !replay.is_done() {
            let mut n = 0;
            replay
                .run(&mut db, &mut || {
                    n += 1;
                    n >= 500
                })
                .unwrap();
            slices += 1;
        }
        assert!(slices >= 6, "{slices}");
        let p = replay.progress();
        assert_eq!(p.ops, total);
        assert_eq!(p.refused, 0);
        assert!(p.writes > p.reads * 4 && p.reads > 0, "{p:?}");
        let (start, end) = replay.instance_span().unwrap();
        assert!(start > before);
        assert_eq!(end - start, 12 * TRAFFIC_BUCKET_MICROS);
        assert!(db.now_micros() >= end - TRAFFIC_BUCKET_MICROS);
        assert!((p.fraction() - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn timestamp_first_writes_walk_up_the_key_space_over_time() {
        let (sim, mut db) = loaded(TIMESTAMP_FIRST);
        db.clear_traffic(Some("t")).unwrap();
        let mut replay = sim.replay(
            "t",
            ReplaySpec {
                ops: 2_000,
                columns: 6,
                seed: 0,
            },
        );
        replay.run(&mut db, &mut || false).unwrap();
        let traffic = db.traffic("t").unwrap();
        let buckets: Vec<_> = traffic.buckets().collect();
        assert!(buckets.len() >= 6, "{}", buckets.len());
        // The written keys' first key per bucket rises with time: the
        // diagonal of sequential writes.
        let firsts: Vec<Vec<u8>> = buckets
            .iter()
            .filter_map(|b| {
                b.spans()
                    .iter()
                    .filter(|s| s.counts.write_rows > 0.0)
                    .map(|s| s.first_key())
                    .min()
            })
            .collect();
        assert!(firsts.len() >= 6);
        assert!(firsts.windows(2).all(|w| w[0] < w[1]), "{firsts:?}");
    }

    #[test]
    fn scans_and_full_scans_are_sent_in_bounded_requests() {
        let text = TIMESTAMP_FIRST
            .replace("op = \"read\"\nrate = 200", "op = \"full_scan\"\nrate = 1")
            + "[[workload]]\nop = \"scan\"\nrate = 50\nrows = 20\n";
        let (sim, mut db) = loaded(&text);
        let mut replay = sim.replay(
            "t",
            ReplaySpec {
                ops: 500,
                columns: 4,
                seed: 0,
            },
        );
        replay.run(&mut db, &mut || false).unwrap();
        let p = replay.progress();
        assert!(p.full_scans >= 1 && p.full_scans <= 4, "{p:?}");
        assert!(p.scans > 0, "{p:?}");
        assert_eq!(p.refused, 0);
        // A missing table: an error, nothing sent.
        let mut lost = sim.replay("gone", ReplaySpec::default());
        assert!(lost.run(&mut db, &mut || false).is_err());
        assert_eq!(lost.progress().ops, 0);
    }
}
