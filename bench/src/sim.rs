//! The simulator benchmark: one million operations of a mixed workload
//! (writes, point reads, prefix scans) drawn one by one on a 4-node
//! cluster, then a 1000 x 300 Key Visualizer heatmap and the diagnostics.
//! Natively through `tabletop-sim-bench`, in wasm through `run_sim_bench`.

use std::fmt::Write as _;

use tabletop_core::keyviz::{BucketMode, ColorScale, Metric};
use tabletop_core::sim::{Simulation, Step};

/// One measured phase of the simulator benchmark.
#[derive(Clone, Debug)]
pub struct SimPhase {
    /// What was measured.
    pub name: String,
    /// Wall time in milliseconds.
    pub ms: f64,
    /// Free-form detail.
    pub note: String,
}

/// Everything one simulator benchmark run measured.
#[derive(Clone, Debug, Default)]
pub struct SimBenchReport {
    /// Operations simulated.
    pub ops: u64,
    /// The phases, in order.
    pub phases: Vec<SimPhase>,
}

impl SimBenchReport {
    /// A plain-text table.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "simulator: {} operations drawn one by one (weight 1), 2048 fine key buckets, 300 time buckets",
            self.ops
        );
        let _ = writeln!(s, "{:<44} {:>10}  note", "phase", "ms");
        for p in &self.phases {
            let _ = writeln!(s, "{:<44} {:>10.1}  {}", p.name, p.ms, p.note);
        }
        s
    }
}

/// The benchmark scenario: `ops` operations over 1000 simulated seconds
/// (90% writes, 8% point reads, 2% prefix scans of 100 rows) on keys
/// `device_type#device_id#timestamp`.
#[must_use]
pub fn scenario(ops: u64) -> String {
    let rate = ops as f64 / 1000.0;
    format!(
        r##"
name = "simulator benchmark"
description = "{ops} operations drawn one by one"
seed = 1
duration = "1000s"

[table]
rows = 1_000_000
entities = 50_000
history = "7d"

[cluster]
nodes = 4

[key]
segments = [
  {{ name = "device_type", kind = "enum", values = ["phone", "tablet"], weights = [3, 1] }},
  {{ name = "device_id", kind = "hex", width = 8 }},
  {{ name = "ts", kind = "timestamp" }},
]

[[workload]]
op = "write"
rate = {w}

[[workload]]
op = "read"
rate = {r}
keys = {{ zipf = 1.1 }}

[[workload]]
op = "scan"
rate = {s}
prefix_segments = 2
rows = 100

[keyviz]
time_buckets = 300
key_buckets = 1000
fine_buckets = 2048

[sim]
sample_ops = {ops}
"##,
        w = rate * 0.9,
        r = rate * 0.08,
        s = rate * 0.02,
    )
}

/// Runs the benchmark with `ops` operations; `now_ms` is the host clock.
pub fn run(ops: u64, now_ms: &dyn Fn() -> f64) -> SimBenchReport {
    let ops = ops.clamp(1000, 20_000_000);
    let mut report = SimBenchReport {
        ops,
        phases: Vec::new(),
    };
    let mut phase = |name: &str, ms: f64, note: String| {
        report.phases.push(SimPhase {
            name: name.to_string(),
            ms,
            note,
        });
    };
    let text = scenario(ops);

    let t = now_ms();
    let mut sim = match Simulation::from_toml(&text) {
        Ok(s) => s,
        Err(e) => {
            phase("prepare", 0.0, format!("failed: {e}"));
            return report;
        }
    };
    let prepare = now_ms() - t;
    phase(
        "prepare (parse, sample 32k keys, lay out)",
        prepare,
        format!("{} fine buckets", sim.axis().len()),
    );

    let t = now_ms();
    let out = sim.step(Step::Seconds(f64::MAX));
    let simulate = now_ms() - t;
    phase(
        "simulate",
        simulate,
        format!(
            "{} ops drawn, {:.2} M ops/s, {} ticks, {} tablets, {} balancer events",
            out.sampled_ops,
            out.sampled_ops as f64 / simulate / 1000.0,
            out.ticks,
            sim.tablets().len(),
            sim.events().len()
        ),
    );

    let t = now_ms();
    let h = sim.heatmap(Metric::Ops, BucketMode::EqualKeys, 1000);
    let one = now_ms() - t;
    phase(
        "heatmap 1000 x 300 (ops, equal keys)",
        one,
        format!("{} x {} cells", h.key_buckets, h.time_buckets),
    );

    let t = now_ms();
    let h = sim.heatmap(Metric::WriteRows, BucketMode::TrafficWeighted, 1000);
    let weighted = now_ms() - t;
    phase(
        "heatmap 1000 x 300 (traffic-weighted)",
        weighted,
        format!("{} x {} cells", h.key_buckets, h.time_buckets),
    );

    let t = now_ms();
    let p = sim.heatmap(Metric::WritePressure, BucketMode::EqualKeys, 1000);
    phase(
        "heatmap 1000 x 300 (write pressure, worst fine bucket)",
        now_ms() - t,
        format!(
            "{} x {} cells, peak {:.0}",
            p.key_buckets, p.time_buckets, p.max
        ),
    );

    let t = now_ms();
    let l = sim.heatmap(Metric::Latency, BucketMode::EqualKeys, 1000);
    phase(
        "heatmap 1000 x 300 (latency)",
        now_ms() - t,
        format!("{} x {} cells", l.key_buckets, l.time_buckets),
    );

    let t = now_ms();
    let messages = sim.messages();
    phase(
        "Google's messages (pressure over every fine bucket)",
        now_ms() - t,
        format!("{} messages", messages.len()),
    );

    let t = now_ms();
    let px = h.rgba(ColorScale::Relative);
    phase(
        "RGBA pixels of one heatmap (viridis)",
        now_ms() - t,
        format!("{} bytes", px.len()),
    );

    let t = now_ms();
    let all = sim.report_with_heatmaps(&[], BucketMode::EqualKeys, 1000);
    phase(
        "report with all 14 heatmaps + diagnostics + messages",
        now_ms() - t,
        format!(
            "{} diagnostics ({})",
            all.diagnostics.len(),
            all.diagnostics
                .iter()
                .map(|d| d.pattern.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );

    let t = now_ms();
    let tree = sim.prefix_tree(&sim.heatmap(Metric::Ops, BucketMode::EqualKeys, 1000), 3);
    phase(
        "heatmap + prefix labels (3 levels)",
        now_ms() - t,
        format!("{} labels", tree.nodes.len()),
    );

    phase(
        "total: prepare + simulate + one heatmap",
        prepare + simulate + one,
        String::new(),
    );
    report
}

/// The wasm entry point: runs the simulator benchmark under Node and
/// returns the report as text. The clock is JavaScript's
/// `performance.now()`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn run_sim_bench(ops: u32) -> String {
    let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
    let now = move || -> f64 {
        perf.as_ref()
            .and_then(|p| {
                let f = js_sys::Reflect::get(p, &"now".into()).ok()?;
                let f: js_sys::Function = f.into();
                f.call0(p).ok()?.as_f64()
            })
            .unwrap_or_else(js_sys::Date::now)
    };
    run(u64::from(ops), &now).to_text()
}
