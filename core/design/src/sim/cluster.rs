//! The simulated cluster: tablets as contiguous ranges of fine key
//! buckets, each served by one node; splits on size and load, merges of
//! small cold neighbours, and moves between nodes to even out CPU.
//!
//! A tablet's size and load are sums over its fine buckets, so a split can
//! only fall on a fine-bucket boundary (a bucket is about 1/2048 of the
//! rows) and a single hot row can never be split, just as in Bigtable.
//! Moves change metadata only: no data is copied, so they are instant.

use serde::{Deserialize, Serialize};

use crate::balance::{MoveRule, even_out, in_turn};

/// Balancer thresholds, in bytes and in shares of one node's capacity.
#[derive(Clone, Debug)]
pub(crate) struct Thresholds {
    pub split_bytes: f64,
    pub split_load: f64,
    pub merge_bytes: f64,
    /// A tablet below this load counts as cold.
    pub merge_load: f64,
    /// Tablets younger than this (seconds) are not merged (no flapping).
    pub merge_cooldown: f64,
    /// Node load gap (share of a node) worth a move.
    pub move_gap: f64,
    pub max_moves: usize,
}

/// One tablet: fine buckets `lo..hi`, served by `node`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tablet {
    pub id: u64,
    pub lo: u32,
    pub hi: u32,
    pub node: u32,
    pub born: f64,
}

/// Why a tablet was split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitReason {
    /// It grew past `split_bytes`.
    Size,
    /// It needed more than `split_load` of a node.
    Load,
}

/// Something the balancer did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    /// A tablet became two.
    Split {
        /// The tablet split.
        tablet: u64,
        /// The two new tablets, in key order.
        into: [u64; 2],
        /// First key of the right-hand tablet (escaped).
        at_key: String,
        /// Size or load.
        reason: SplitReason,
    },
    /// Two neighbouring tablets became one.
    Merge {
        /// The two tablets, in key order.
        from: [u64; 2],
        /// The new tablet.
        into: u64,
    },
    /// A tablet moved to another node (metadata only).
    Move {
        /// The tablet.
        tablet: u64,
        /// Old node.
        from_node: u32,
        /// New node.
        to_node: u32,
    },
}

/// A balancer event and when it happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimEvent {
    /// Seconds since the start of the run.
    pub time_seconds: f64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

#[derive(Clone, Debug)]
pub(crate) struct Cluster {
    pub nodes: usize,
    /// In key order, covering `0..fine` without gaps.
    pub tablets: Vec<Tablet>,
    /// Index into `tablets` for each fine bucket.
    pub tablet_of_fine: Vec<u32>,
    next_id: u64,
    pub th: Thresholds,
}

/// Prefix sums of `v` (length `v.len() + 1`).
pub(crate) fn prefix_sums(v: &[f64], out: &mut Vec<f64>) {
    out.clear();
    out.reserve(v.len() + 1);
    let mut acc = 0.0;
    out.push(0.0);
    for x in v {
        acc += x;
        out.push(acc);
    }
}

fn range_sum(prefix: &[f64], lo: u32, hi: u32) -> f64 {
    prefix.get(hi as usize).copied().unwrap_or(0.0)
        - prefix.get(lo as usize).copied().unwrap_or(0.0)
}

/// The cut in `lo+1..hi` closest to halving the weight of `lo..hi`.
fn halving_cut(prefix: &[f64], lo: u32, hi: u32) -> Option<u32> {
    if hi < lo + 2 {
        return None;
    }
    let base = prefix.get(lo as usize).copied().unwrap_or(0.0);
    let half = (range_sum(prefix, lo, hi)) / 2.0;
    // First cut whose left part reaches half, then the better of it and the
    // one before.
    let mut a = lo + 1;
    let mut b = hi - 1;
    while a < b {
        let mid = a + (b - a) / 2;
        if prefix.get(mid as usize).copied().unwrap_or(0.0) - base >= half {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    let score = |c: u32| (prefix.get(c as usize).copied().unwrap_or(0.0) - base - half).abs();
    let mut best = a;
    if a > lo + 1 && score(a - 1) <= score(a) {
        best = a - 1;
    }
    Some(best)
}

impl Cluster {
    /// Tablets cut from the initial data by size, assigned to nodes in
    /// turn.
    pub fn new(nodes: usize, fine: usize, bytes: &[f64], th: Thresholds) -> Cluster {
        let nodes = nodes.max(1);
        let fine = fine.max(1);
        let mut tablets = Vec::new();
        let mut lo = 0u32;
        let mut acc = 0.0;
        for f in 0..fine {
            acc += bytes.get(f).copied().unwrap_or(0.0);
            if acc >= th.split_bytes * 0.5 && f + 1 < fine {
                tablets.push((lo, f as u32 + 1));
                lo = f as u32 + 1;
                acc = 0.0;
            }
        }
        tablets.push((lo, fine as u32));
        let placed = in_turn(tablets.len(), nodes);
        let tablets: Vec<Tablet> = tablets
            .into_iter()
            .zip(placed)
            .enumerate()
            .map(|(i, ((lo, hi), node))| Tablet {
                id: i as u64 + 1,
                lo,
                hi,
                node,
                born: f64::NEG_INFINITY,
            })
            .collect();
        let mut c = Cluster {
            nodes,
            next_id: tablets.len() as u64 + 1,
            tablets,
            tablet_of_fine: vec![0; fine],
            th,
        };
        c.reindex();
        c
    }

    fn reindex(&mut self) {
        for (i, t) in self.tablets.iter().enumerate() {
            for f in t.lo..t.hi {
                if let Some(slot) = self.tablet_of_fine.get_mut(f as usize) {
                    *slot = i as u32;
                }
            }
        }
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Tablet index serving fine bucket `f`.
    pub fn tablet_index(&self, f: usize) -> usize {
        self.tablet_of_fine.get(f).copied().unwrap_or(0) as usize
    }

    /// Splits, merges and moves. `bytes` and `load` are per fine bucket
    /// (load in shares of a node); `key_at` names a fine bucket's first key
    /// for events.
    pub fn rebalance(
        &mut self,
        now: f64,
        bytes: &[f64],
        load: &[f64],
        key_at: &dyn Fn(u32) -> String,
        events: &mut Vec<SimEvent>,
    ) {
        let mut pb = Vec::new();
        let mut pl = Vec::new();
        prefix_sums(bytes, &mut pb);
        prefix_sums(load, &mut pl);

        // 1. Splits: by size (repeatedly), then by load (one cut per
        // tablet per round, so hot spots are carved out step by step).
        let mut out: Vec<Tablet> = Vec::with_capacity(self.tablets.len() + 8);
        let old = std::mem::take(&mut self.tablets);
        let mut work: Vec<Tablet> = old.into_iter().rev().collect();
        while let Some(t) = work.pop() {
            let size = range_sum(&pb, t.lo, t.hi);
            let hot = range_sum(&pl, t.lo, t.hi);
            let (cut, reason) = if size > self.th.split_bytes {
                (halving_cut(&pb, t.lo, t.hi), SplitReason::Size)
            } else if hot > self.th.split_load && now - t.born > 0.0 {
                (halving_cut(&pl, t.lo, t.hi), SplitReason::Load)
            } else {
                (None, SplitReason::Size)
            };
            let Some(cut) = cut else {
                out.push(t);
                continue;
            };
            let left = Tablet {
                id: self.fresh_id(),
                lo: t.lo,
                hi: cut,
                node: t.node,
                born: now,
            };
            let right = Tablet {
                id: self.fresh_id(),
                lo: cut,
                hi: t.hi,
                node: t.node,
                born: now,
            };
            events.push(SimEvent {
                time_seconds: now,
                kind: EventKind::Split {
                    tablet: t.id,
                    into: [left.id, right.id],
                    at_key: key_at(cut),
                    reason,
                },
            });
            if reason == SplitReason::Size {
                // Halves may still be too big.
                work.push(right);
                work.push(left);
            } else {
                out.push(left);
                out.push(right);
            }
        }
        self.tablets = out;

        // 2. Merges of cold, small, settled neighbours.
        let mut merged: Vec<Tablet> = Vec::with_capacity(self.tablets.len());
        let mut i = 0;
        while i < self.tablets.len() {
            let (Some(a), b) = (
                self.tablets.get(i).cloned(),
                self.tablets.get(i + 1).cloned(),
            ) else {
                break;
            };
            if let Some(b) = b {
                let cold = |t: &Tablet| {
                    range_sum(&pl, t.lo, t.hi) < self.th.merge_load
                        && now - t.born >= self.th.merge_cooldown
                };
                let small = range_sum(&pb, a.lo, b.hi) < self.th.merge_bytes;
                if cold(&a) && cold(&b) && small {
                    let into = Tablet {
                        id: self.fresh_id(),
                        lo: a.lo,
                        hi: b.hi,
                        node: a.node,
                        born: now,
                    };
                    events.push(SimEvent {
                        time_seconds: now,
                        kind: EventKind::Merge {
                            from: [a.id, b.id],
                            into: into.id,
                        },
                    });
                    merged.push(into);
                    i += 2;
                    continue;
                }
            }
            merged.push(a);
            i += 1;
        }
        self.tablets = merged;

        // 3. Moves between nodes, by the balancer's node rule.
        let tablet_load: Vec<f64> = self
            .tablets
            .iter()
            .map(|t| range_sum(&pl, t.lo, t.hi))
            .collect();
        let mut node_of: Vec<u32> = self.tablets.iter().map(|t| t.node).collect();
        let rule = MoveRule {
            move_gap: self.th.move_gap,
            max_moves: self.th.max_moves,
            idle_load: self.th.merge_load,
        };
        for m in even_out(&mut node_of, &tablet_load, self.nodes, rule) {
            self.move_tablet(m.index, m.to as usize, now, events);
        }
        self.reindex();
    }

    fn move_tablet(&mut self, i: usize, to: usize, now: f64, events: &mut Vec<SimEvent>) {
        if let Some(t) = self.tablets.get_mut(i) {
            events.push(SimEvent {
                time_seconds: now,
                kind: EventKind::Move {
                    tablet: t.id,
                    from_node: t.node,
                    to_node: to as u32,
                },
            });
            t.node = to as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn th() -> Thresholds {
        Thresholds {
            split_bytes: 100.0,
            split_load: 0.5,
            merge_bytes: 30.0,
            merge_load: 0.01,
            merge_cooldown: 0.0,
            move_gap: 0.1,
            max_moves: 4,
        }
    }

    fn key(f: u32) -> String {
        format!("k{f}")
    }

    fn check_cover(c: &Cluster, fine: usize) {
        let mut next = 0;
        for t in &c.tablets {
            assert_eq!(t.lo, next);
            assert!(t.hi > t.lo);
            next = t.hi;
        }
        assert_eq!(next as usize, fine);
        for (f, &i) in c.tablet_of_fine.iter().enumerate() {
            let t = &c.tablets[i as usize];
            assert!((t.lo..t.hi).contains(&(f as u32)));
        }
    }

    #[test]
    fn initial_tablets_by_size() {
        let c = Cluster::new(3, 10, &[20.0; 10], th());
        assert_eq!(c.tablets.len(), 4);
        check_cover(&c, 10);
        assert_eq!(c.tablets[3].node, 0);
    }

    #[test]
    fn splits_moves_and_merges() {
        let mut c = Cluster::new(2, 16, &[1.0; 16], th());
        assert_eq!(c.tablets.len(), 1);
        let mut ev = Vec::new();
        // Grow: a size split, repeated until every tablet fits.
        c.rebalance(1.0, &[30.0; 16], &[0.0; 16], &key, &mut ev);
        check_cover(&c, 16);
        assert!(c.tablets.len() >= 5);
        assert!(ev.iter().all(|e| matches!(
            e.kind,
            EventKind::Split {
                reason: SplitReason::Size,
                ..
            } | EventKind::Move { .. }
        )));
        // Load on one end: load splits carve it out and moves spread it.
        let mut load = vec![0.0; 16];
        for l in load.iter_mut().take(4) {
            *l = 0.3;
        }
        ev.clear();
        for r in 0..6 {
            c.rebalance(2.0 + f64::from(r), &[1.0; 16], &load, &key, &mut ev);
            check_cover(&c, 16);
        }
        assert!(ev.iter().any(|e| matches!(
            e.kind,
            EventKind::Split {
                reason: SplitReason::Load,
                ..
            }
        )));
        let mut per_node = [0.0; 2];
        for t in &c.tablets {
            per_node[t.node as usize] += load[t.lo as usize..t.hi as usize].iter().sum::<f64>();
        }
        assert!((per_node[0] - per_node[1]).abs() <= 0.31, "{per_node:?}");
        // Cold and small: neighbours merge back.
        ev.clear();
        for r in 0..10 {
            c.rebalance(20.0 + f64::from(r), &[1.0; 16], &[0.0; 16], &key, &mut ev);
            check_cover(&c, 16);
        }
        assert!(ev.iter().any(|e| matches!(e.kind, EventKind::Merge { .. })));
        assert!(c.tablets.len() <= 2, "{}", c.tablets.len());
    }

    #[test]
    fn a_single_hot_bucket_is_not_split() {
        let mut c = Cluster::new(1, 1, &[1.0], th());
        let mut ev = Vec::new();
        c.rebalance(1.0, &[1000.0], &[5.0], &key, &mut ev);
        assert_eq!(c.tablets.len(), 1);
        assert!(ev.is_empty());
        assert_eq!(halving_cut(&[0.0, 1.0, 2.0, 3.0, 4.0], 0, 4), Some(2));
        assert_eq!(halving_cut(&[0.0, 0.0, 10.0, 10.0], 0, 3), Some(1));
    }
}
