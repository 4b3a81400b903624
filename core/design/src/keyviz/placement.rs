//! Which node serves each of a real table's tablets, from the tablets'
//! boundaries and the table's recorded traffic alone: no read of the
//! table, no key axis. The live Key Visualizer places its tablets with
//! these loads too ([`super::LiveKeyViz`]), so a heatmap cell and a
//! Tablets panel that never built the map name the same node.
//!
//! A tablet's load is the node CPU its traffic needs (the published
//! per-node capacity, as the map's CPU metrics), averaged over the
//! recorded time: every recorded span's work goes to the tablets its keys
//! cover, shared evenly among them. The balancer's rule
//! ([`crate::balance::settle`]) then places them.

use tabletop_sql::Instance;
use tabletop_store::Result;
use tabletop_store::traffic::{TRAFFIC_BUCKET_MICROS, TableTraffic, TrafficCounts, key_prefix16};

use crate::balance::{MoveRule, settle};
use crate::scenario::ClusterSpec;

/// A tablet under this share of a node counts as idle for the balancer.
const IDLE_LOAD: f64 = 0.02;
/// Most balancer rounds when the tablets are placed.
const PLACE_ROUNDS: usize = 16;

/// The node of each tablet of `table` (tablet id, node) on `nodes` nodes,
/// as the live Key Visualizer of that table would place them.
///
/// # Errors
///
/// When the table does not exist.
pub fn tablet_nodes(db: &Instance, table: &str, nodes: u32) -> Result<Vec<(u64, u32)>> {
    let tablets = db.tablets(table)?;
    let starts: Vec<u128> = tablets.iter().map(|t| key_prefix16(&t.start_key)).collect();
    let load = tablet_loads(db.traffic(table)?, &starts, &ClusterSpec::default());
    let placed = place(&load, nodes);
    Ok(tablets.iter().map(|t| t.id).zip(placed).collect())
}

/// Nodes for tablets with loads `load` (shares of one node, in key
/// order) on `nodes` nodes: in turn, then rounds of the balancer.
pub(super) fn place(load: &[f64], nodes: u32) -> Vec<u32> {
    let nodes = nodes.max(1) as usize;
    settle(
        load,
        nodes,
        MoveRule::for_nodes(nodes, IDLE_LOAD),
        PLACE_ROUNDS,
    )
}

/// Each tablet's mean load (share of one node) over the recorded time;
/// `starts` are the tablets' first keys' 16-byte prefixes, in key order
/// (the first tablet starts the table).
pub(super) fn tablet_loads(
    traffic: &TableTraffic,
    starts: &[u128],
    cluster: &ClusterSpec,
) -> Vec<f64> {
    let mut load = vec![0.0; starts.len()];
    if starts.is_empty() {
        return load;
    }
    let (mut first, mut last) = (None::<i64>, None::<i64>);
    for b in traffic.buckets() {
        first = Some(first.map_or(b.start_micros, |f| f.min(b.start_micros)));
        last = Some(last.map_or(b.start_micros, |l| l.max(b.start_micros)));
        for s in b.spans() {
            let (r, w) = node_seconds(cluster, &s.counts);
            // The tablets holding the span's first and last keys, and
            // every one between.
            let a = starts.partition_point(|&k| k <= s.lo).saturating_sub(1);
            let z = starts
                .partition_point(|&k| k <= s.hi)
                .saturating_sub(1)
                .max(a);
            let share = (r + w) / (z - a + 1) as f64;
            for l in load.get_mut(a..=z).into_iter().flatten() {
                *l += share;
            }
        }
    }
    let buckets = match (first, last) {
        (Some(f), Some(l)) => (l - f) / TRAFFIC_BUCKET_MICROS + 1,
        _ => 1,
    };
    let seconds = buckets.max(1) as f64 * TRAFFIC_BUCKET_MICROS as f64 / 1e6;
    for l in &mut load {
        *l /= seconds;
    }
    load
}

/// Node-seconds of reading and of writing the counts need from one node
/// of `cluster`'s published capacity.
pub(super) fn node_seconds(cluster: &ClusterSpec, c: &TrafficCounts) -> (f64, f64) {
    let c64 = |v: f32| f64::from(v).max(0.0);
    let point_reads = (c64(c.point_ops) - c64(c.write_rows)).max(0.0);
    let read = point_reads / cluster.reads_per_second()
        + c64(c.scans) / cluster.reads_per_second()
        + c64(c.read_bytes) / cluster.scan_bytes_per_second();
    let write = c64(c.write_rows) / cluster.writes_per_second();
    (read, write)
}
