//! Google's read and write pressure indexes, and the latency model they
//! read.
//!
//! Cloud Bigtable's Key Visualizer shows, per key range, an opaque score
//! built from the CPU and the latency of its reads (the *read pressure
//! index*) and of its writes (the *write pressure index*); 100 or more
//! means the range performs poorly. Google does not publish the formula,
//! so Tabletop uses its own, chosen to keep the same meaning:
//!
//! ```text
//! cpu      = CPU the range's reads (or writes) need, as a share of one node
//! slowdown = latency its operations saw / latency of an idle node
//! index    = 100 * sqrt( (cpu / 0.5) * ((slowdown - 1) / 9) )
//! ```
//!
//! Each of the two ratios is 1 at the edge of poor performance: a key
//! range that alone needs half a node (a tablet that busy cannot be split
//! away from its own load, and with anything else on its node the node
//! saturates), and operations ten times slower than on an idle node (a
//! node about 90% busy under the queueing model below). The geometric mean
//! asks for both: a busy range on an idle node, or a quiet range on a
//! saturated one (the cluster's problem, not the range's), stays well
//! under 100. Examples: a range needing 50% of a node on a node at 90%
//! scores 100; the end of a timestamp-first table taking 20,000 writes a
//! second (1.4 nodes) scores several hundred; a thousandth of an evenly
//! spread load scores about 1.
//!
//! A display bucket shows the highest index of the fine buckets it groups,
//! as Google reports warnings for the worst row or range inside a bucket.

/// Where the index reaches 100 on CPU: half a node.
pub const CPU_AT_POOR: f64 = 0.5;
/// Where the index reaches 100 on latency: ten times an idle node's.
pub const SLOWDOWN_AT_POOR: f64 = 10.0;
/// The index from which performance counts as poor.
pub const POOR_PRESSURE: f64 = 100.0;

/// The pressure index of a key range whose reads (or writes) need
/// `cpu_share` of a node while its operations take `latency_ms`, on nodes
/// that answer in `base_ms` when idle.
#[must_use]
pub fn pressure_index(cpu_share: f64, latency_ms: f64, base_ms: f64) -> f64 {
    if !(cpu_share.is_finite() && latency_ms.is_finite()) || base_ms <= 0.0 {
        return 0.0;
    }
    let cpu = (cpu_share / CPU_AT_POOR).max(0.0);
    let slow = ((latency_ms / base_ms - 1.0) / (SLOWDOWN_AT_POOR - 1.0)).max(0.0);
    POOR_PRESSURE * (cpu * slow).sqrt()
}

/// Queueing-style latency of a node at `load` (1.0 = fully busy):
/// `base / (1 - load)`, rising steeply (and linearly) past 95%.
#[must_use]
pub fn queue_latency_ms(base: f64, load: f64) -> f64 {
    if load < 0.95 {
        base / (1.0 - load.max(0.0))
    } else {
        base * 20.0 + base * 400.0 * (load - 0.95)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn the_index_reaches_100_at_the_documented_point() {
        let at_90 = queue_latency_ms(5.0, 0.9);
        assert!((pressure_index(0.5, at_90, 5.0) - 100.0).abs() < 1e-6);
        // Busy range on an idle node, quiet range on a busy node: low.
        assert_eq!(pressure_index(0.4, 5.0, 5.0), 0.0);
        assert!(pressure_index(0.001, queue_latency_ms(5.0, 0.99), 5.0) < 10.0);
        // A range needing 1.4 nodes: far above 100.
        assert!(pressure_index(1.4, queue_latency_ms(5.0, 1.4), 5.0) > 300.0);
        assert_eq!(pressure_index(f64::NAN, 5.0, 5.0), 0.0);
        assert_eq!(pressure_index(1.0, 50.0, 0.0), 0.0);
    }
}
