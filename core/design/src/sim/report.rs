//! What a run produces: diagnostics, a node and tablet summary, per
//! workload figures and (optionally) heatmaps; as serde data for `--json`
//! and as plain text for terminals.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::cluster::SimEvent;
use super::views::ViewLag;
use crate::keyviz::{
    Diagnostic, GoogleMessage, Heatmap, PrefixShare, human_seconds, messages_text, prefixes_text,
};
use tabletop_store::human_bytes;

/// The result of a simulation (or of its first part, for a run still in
/// progress).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Scenario name.
    pub scenario: String,
    /// Scenario description.
    pub description: String,
    /// The seed used.
    pub seed: u64,
    /// Simulated seconds covered so far.
    pub simulated_seconds: f64,
    /// The scenario's full duration in seconds.
    pub duration_seconds: f64,
    /// Nodes in the cluster.
    pub nodes: u32,
    /// `ssd` or `hdd`.
    pub storage: String,
    /// The row-key design as a pattern.
    pub key_pattern: String,
    /// A few keys of the design.
    pub example_keys: Vec<String>,
    /// Operations simulated (real operations, after sampling weights).
    pub operations: f64,
    /// Operations actually drawn one by one.
    pub sampled_operations: u64,
    /// Rows stored at the end.
    pub rows: f64,
    /// Bytes stored at the end.
    pub bytes: f64,
    /// Findings, most severe first.
    pub diagnostics: Vec<Diagnostic>,
    /// Google's Key Visualizer messages for the same run (high read or
    /// write pressure, large rows, no data scanned, key space not to scale).
    #[serde(default)]
    pub messages: Vec<GoogleMessage>,
    /// The key space as a hierarchy of prefixes (one level per key
    /// segment), with each prefix's share of rows and operations.
    #[serde(default)]
    pub prefixes: Vec<PrefixShare>,
    /// One entry per workload.
    pub workloads: Vec<WorkloadSummary>,
    /// One entry per node.
    pub node_summaries: Vec<NodeSummary>,
    /// The tablets at the end, in key order.
    pub tablets: Vec<TabletSummary>,
    /// How often the balancer acted.
    pub events: EventCounts,
    /// The hottest tablets seen (each tablet once, at its hottest).
    pub hot_tablets: Vec<HotTablet>,
    /// The materialized views' queues (none when the scenario has no
    /// `[[view]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<ViewLag>,
    /// Heatmaps, when asked for (`--json` with matrices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heatmaps: Option<Vec<Heatmap>>,
}

/// What one workload did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkloadSummary {
    /// Its name.
    pub name: String,
    /// `write`, `read`, `scan` or `full_scan`.
    pub op: String,
    /// Operations simulated.
    pub operations: f64,
    /// Operations drawn one by one (each standing for `weight` real ones).
    pub sampled: u64,
    /// Real operations per drawn one.
    pub weight: f64,
    /// Mean tablets one operation touched.
    pub mean_tablets_per_op: f64,
    /// Most tablets one operation touched.
    pub max_tablets_per_op: u64,
    /// Mean rows one operation returned (reads and scans) or wrote.
    pub mean_rows_per_op: f64,
    /// Rows examined per row returned (reads and scans; 1 when every row
    /// read is wanted, far more for filtered scans; 0 for writes).
    #[serde(default)]
    pub rows_scanned_per_row: f64,
    /// Mean latency of its operations (ms): the latency of the node that
    /// served each, weighted by the work.
    #[serde(default)]
    pub mean_latency_ms: f64,
    /// Share of its work that asked more of a node than the node had, in %.
    #[serde(default)]
    pub throttled_pct: f64,
    /// Share of its work done by the node that did the most of it, in %
    /// (100 / nodes when spread evenly; 100 when one node does it all).
    #[serde(default)]
    pub busiest_node_pct: f64,
}

impl WorkloadSummary {
    /// A summary holding only how the workload was served: from its work
    /// per node (node-seconds), the work times latency (ms), and the work
    /// that was throttled.
    #[must_use]
    pub fn served(
        work_per_node: &[f64],
        latency_weighted: f64,
        throttled_work: f64,
        base_latency_ms: f64,
    ) -> WorkloadSummary {
        let work: f64 = work_per_node.iter().sum();
        let busiest = work_per_node.iter().copied().fold(0.0, f64::max);
        let (mean_latency_ms, throttled_pct, busiest_node_pct) = if work > 0.0 {
            (
                latency_weighted / work,
                throttled_work / work * 100.0,
                busiest / work * 100.0,
            )
        } else {
            (base_latency_ms, 0.0, 0.0)
        };
        WorkloadSummary {
            mean_latency_ms,
            throttled_pct,
            busiest_node_pct,
            ..WorkloadSummary::default()
        }
    }
}

/// What one node did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeSummary {
    /// Node number.
    pub node: u32,
    /// Tablets it serves at the end.
    pub tablets: usize,
    /// Bytes it serves at the end.
    pub bytes: f64,
    /// Mean CPU %, over the run.
    pub mean_cpu_pct: f64,
    /// Highest CPU % of any time bucket.
    pub peak_cpu_pct: f64,
    /// Seconds spent at 90% CPU or more.
    pub hot_seconds: f64,
    /// Share of the work asked of it that it could not do in time (%):
    /// those requests were throttled or timed out.
    pub throttled_pct: f64,
    /// Mean latency of its requests, weighted by work (ms).
    pub mean_latency_ms: f64,
    /// Highest latency of any tick (ms).
    pub peak_latency_ms: f64,
}

/// A tablet at the end of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TabletSummary {
    /// Tablet id.
    pub id: u64,
    /// Serving node.
    pub node: u32,
    /// First key (escaped; empty: start of table).
    pub start_key: String,
    /// Key after the tablet (escaped; `None`: end of table).
    pub end_key: Option<String>,
    /// The key segment its start boundary falls in.
    pub split_segment: Option<String>,
    /// Bytes stored.
    pub bytes: f64,
    /// Rows stored.
    pub rows: f64,
    /// Recent CPU need, % of a node.
    pub cpu_pct: f64,
}

/// A tablet that was hot in some time bucket.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HotTablet {
    /// Start of the time bucket, seconds.
    pub time_seconds: f64,
    /// Tablet id.
    pub tablet: u64,
    /// Serving node.
    pub node: u32,
    /// First key (escaped).
    pub start_key: String,
    /// Key after it (escaped; `None`: end of table).
    pub end_key: Option<String>,
    /// CPU it needed, % of a node, averaged over the bucket.
    pub cpu_pct: f64,
}

/// Balancer activity.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventCounts {
    /// Splits because a tablet grew too big.
    pub size_splits: u64,
    /// Splits because a tablet was too busy.
    pub load_splits: u64,
    /// Merges of small, cold neighbours.
    pub merges: u64,
    /// Moves between nodes.
    pub moves: u64,
}

impl EventCounts {
    /// Counts `events`.
    #[must_use]
    pub fn of(events: &[SimEvent]) -> EventCounts {
        use super::cluster::{EventKind, SplitReason};
        let mut c = EventCounts::default();
        for e in events {
            match &e.kind {
                EventKind::Split { reason, .. } => match reason {
                    SplitReason::Size => c.size_splits += 1,
                    SplitReason::Load => c.load_splits += 1,
                },
                EventKind::Merge { .. } => c.merges += 1,
                EventKind::Move { .. } => c.moves += 1,
            }
        }
        c
    }
}

/// `1.2 M`, `340 k`, `12`.
#[must_use]
pub fn human_count(n: f64) -> String {
    if !n.is_finite() {
        return "?".into();
    }
    for (unit, size) in [("G", 1e9), ("M", 1e6), ("k", 1e3)] {
        if n >= size {
            return format!("{:.1} {unit}", n / size);
        }
    }
    format!("{n:.0}")
}

fn key_or(k: &str, empty: &str) -> String {
    if k.is_empty() {
        empty.to_string()
    } else {
        k.to_string()
    }
}

impl Report {
    /// The report as JSON (heatmaps included when present).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The report as plain text for a terminal.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "Scenario: {} (seed {})", self.scenario, self.seed);
        if !self.description.is_empty() {
            let _ = writeln!(s, "  {}", self.description.trim());
        }
        let _ = writeln!(
            s,
            "Simulated {} of {} on {} {} node{}: {} operations ({} drawn one by one); {} rows, {} stored.",
            human_seconds(self.simulated_seconds),
            human_seconds(self.duration_seconds),
            self.nodes,
            self.storage.to_uppercase(),
            if self.nodes == 1 { "" } else { "s" },
            human_count(self.operations),
            human_count(self.sampled_operations as f64),
            human_count(self.rows),
            human_bytes(self.bytes)
        );
        let _ = writeln!(s, "Row key: {}", self.key_pattern);
        if !self.example_keys.is_empty() {
            let _ = writeln!(s, "  e.g. {}", self.example_keys.join(", "));
        }

        let _ = writeln!(s, "\nDiagnostics");
        if self.diagnostics.is_empty() {
            let _ = writeln!(s, "  (none: not enough traffic to judge)");
        }
        for d in &self.diagnostics {
            let _ = writeln!(
                s,
                "  {:<8} {}  keys [{}, {})  time {}..{}",
                d.severity.name().to_uppercase(),
                d.pattern.name(),
                key_or(&d.key_start, "start"),
                d.key_end
                    .as_deref()
                    .map_or("end".into(), |k| key_or(k, "start")),
                human_seconds(d.time_start_seconds),
                human_seconds(d.time_end_seconds)
            );
            let _ = writeln!(s, "           {}", d.evidence);
            let _ = writeln!(s, "           Remedy: {}", d.remedy);
        }

        let _ = writeln!(s, "\nKey Visualizer messages (Google's)");
        s.push_str(&messages_text(&self.messages, "  "));
        if !self.prefixes.is_empty() {
            let _ = writeln!(s, "\nKey space by prefix (busiest first levels)");
            s.push_str(&prefixes_text(&self.prefixes, "  "));
        }

        let _ = writeln!(s, "\nWorkloads");
        let _ = writeln!(
            s,
            "  {:<24} {:<9} {:>12} {:>9} {:>14} {:>12}",
            "name", "op", "operations", "weight", "tablets/op", "rows/op"
        );
        for w in &self.workloads {
            let _ = writeln!(
                s,
                "  {:<24} {:<9} {:>12} {:>9.1} {:>8.2} (max {:>3}) {:>12.1}",
                truncate(&w.name, 24),
                w.op,
                human_count(w.operations),
                w.weight,
                w.mean_tablets_per_op,
                w.max_tablets_per_op,
                w.mean_rows_per_op
            );
        }

        if !self.views.is_empty() {
            let _ = writeln!(
                s,
                "\nMaterialized views (maintained from the table's writes, asynchronously)"
            );
            let _ = writeln!(
                s,
                "  {:<24} {:>10} {:>12} {:>12} {:>10} {:>10} {:>16}",
                "name", "applies/s", "written", "applied", "queued", "lag", "peak lag (at)"
            );
            for v in &self.views {
                let _ = writeln!(
                    s,
                    "  {:<24} {:>10} {:>12} {:>12} {:>10} {:>10} {:>16}",
                    truncate(&v.name, 24),
                    human_count(v.rows_per_second),
                    human_count(v.rows_written),
                    human_count(v.rows_applied),
                    human_count(v.backlog_rows),
                    human_seconds(v.lag_seconds),
                    format!(
                        "{} ({})",
                        human_seconds(v.peak_lag_seconds),
                        human_seconds(v.peak_at_seconds)
                    )
                );
            }
        }

        let _ = writeln!(s, "\nNodes");
        let _ = writeln!(
            s,
            "  {:<5} {:>8} {:>10} {:>9} {:>9} {:>9} {:>10} {:>13}",
            "node",
            "tablets",
            "data",
            "mean CPU",
            "peak CPU",
            "hot time",
            "throttled",
            "mean latency"
        );
        for n in &self.node_summaries {
            let _ = writeln!(
                s,
                "  {:<5} {:>8} {:>10} {:>8.1}% {:>8.1}% {:>9} {:>9.1}% {:>10.1} ms",
                n.node,
                n.tablets,
                human_bytes(n.bytes),
                n.mean_cpu_pct,
                n.peak_cpu_pct,
                human_seconds(n.hot_seconds),
                n.throttled_pct,
                n.mean_latency_ms
            );
        }

        let e = &self.events;
        let _ = writeln!(
            s,
            "\nTablets: {} at the end; {} size splits, {} load splits, {} merges, {} moves.",
            self.tablets.len(),
            e.size_splits,
            e.load_splits,
            e.merges,
            e.moves
        );
        let shown = 12;
        let mut order: Vec<&TabletSummary> = self.tablets.iter().collect();
        order.sort_by(|a, b| b.cpu_pct.total_cmp(&a.cpu_pct).then(a.id.cmp(&b.id)));
        let _ = writeln!(
            s,
            "  {:>6} {:>5} {:>9} {:>10} {:>9}  range (busiest {} shown)",
            "tablet",
            "node",
            "CPU",
            "data",
            "rows",
            shown.min(self.tablets.len())
        );
        for t in order.into_iter().take(shown) {
            let _ = writeln!(
                s,
                "  {:>6} {:>5} {:>8.1}% {:>10} {:>9}  [{}, {}){}",
                t.id,
                t.node,
                t.cpu_pct,
                human_bytes(t.bytes),
                human_count(t.rows),
                truncate(&key_or(&t.start_key, "start"), 40),
                truncate(
                    &t.end_key
                        .as_deref()
                        .map_or("end".into(), |k| key_or(k, "start")),
                    40
                ),
                t.split_segment
                    .as_deref()
                    .map(|g| format!("  cut in {g}"))
                    .unwrap_or_default()
            );
        }

        if !self.hot_tablets.is_empty() {
            let _ = writeln!(s, "\nBusiest tablets (each at its peak)");
            for h in &self.hot_tablets {
                let _ = writeln!(
                    s,
                    "  at {:>7}  tablet {:>5} on node {:<3} {:>6.1}% of a node  [{}, {})",
                    human_seconds(h.time_seconds),
                    h.tablet,
                    h.node,
                    h.cpu_pct,
                    truncate(&key_or(&h.start_key, "start"), 40),
                    truncate(
                        &h.end_key
                            .as_deref()
                            .map_or("end".into(), |k| key_or(k, "start")),
                        40
                    )
                );
            }
        }

        if let Some(maps) = &self.heatmaps {
            let _ = writeln!(s, "\nHeatmaps");
            for h in maps {
                let _ = writeln!(
                    s,
                    "  {:<13} {} key buckets x {} time buckets of {}, max {:.1} {}",
                    h.metric.name(),
                    h.key_buckets,
                    h.time_buckets,
                    human_seconds(h.bucket_seconds),
                    h.max,
                    h.unit
                );
            }
        }
        s
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('~');
        t
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn human_units() {
        assert_eq!(human_count(1234.0), "1.2 k");
        assert_eq!(human_count(12.0), "12");
        assert_eq!(truncate("abcdef", 4), "abc~");
    }
}
