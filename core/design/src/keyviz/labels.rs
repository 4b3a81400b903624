//! The hierarchical key axis: buckets labelled by key prefixes, one level
//! per key segment (`phone` > `phone#4c410523` > ...), the way Key
//! Visualizer groups its y axis.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use tabletop_store::escape_bytes;

use super::{KeyAxis, KeyGrouping};

/// One label of the prefix tree: the buckets `first..=last` all start with
/// `prefix`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrefixNode {
    /// 0 for the first segment, 1 for the first two, ...
    pub depth: u8,
    /// The segment's own text (escaped), shown at this depth.
    pub label: String,
    /// The whole prefix up to and including this segment (escaped).
    pub prefix: String,
    /// First display bucket under this label.
    pub first: u32,
    /// Last display bucket under this label (inclusive).
    pub last: u32,
    /// The enclosing label one level up.
    pub parent: Option<u32>,
}

/// One prefix of a report's key-space hierarchy, with its share of the
/// table's rows and of the operations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrefixShare {
    /// 0 for the first segment, 1 for the first two, ...
    pub depth: u8,
    /// The segment's own text (escaped).
    pub label: String,
    /// The whole prefix (escaped), e.g. `phone#4c41`.
    pub prefix: String,
    /// Index of the enclosing prefix in the same list.
    pub parent: Option<u32>,
    /// Share of the rows stored under it, in %.
    pub rows_pct: f64,
    /// Share of the operations under it, in %.
    pub ops_pct: f64,
}

/// Labels of all depths, parents before children, each depth in key
/// order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrefixTree {
    /// The labels.
    pub nodes: Vec<PrefixNode>,
}

impl PrefixTree {
    /// Labels for buckets starting at `starts` (sorted), splitting each key
    /// with `split` (byte ranges of its segments), down to `max_depth`
    /// levels. A bucket is labelled by its first key; consecutive buckets
    /// whose first keys share a prefix share the label.
    pub fn build(
        starts: &[&[u8]],
        split: impl Fn(&[u8]) -> Vec<Range<usize>>,
        max_depth: usize,
    ) -> PrefixTree {
        let parts: Vec<Vec<Range<usize>>> = starts.iter().map(|k| split(k)).collect();
        let mut nodes: Vec<PrefixNode> = Vec::new();
        // The node index covering each bucket at the previous depth.
        let mut above: Vec<Option<u32>> = vec![None; starts.len()];
        for depth in 0..max_depth.min(u8::MAX as usize) {
            let mut here: Vec<Option<u32>> = vec![None; starts.len()];
            let mut b = 0usize;
            let mut any = false;
            while b < starts.len() {
                let (Some(key), Some(p)) = (starts.get(b), parts.get(b)) else {
                    break;
                };
                let Some(seg) = p.get(depth) else {
                    b += 1;
                    continue;
                };
                let prefix = key.get(..seg.end).unwrap_or(key);
                let mut last = b;
                while let (Some(next), Some(np)) = (starts.get(last + 1), parts.get(last + 1)) {
                    let same = np.get(depth).is_some_and(|s| s.end == seg.end)
                        && next.get(..seg.end) == Some(prefix)
                        && above.get(last + 1) == above.get(b);
                    if !same {
                        break;
                    }
                    last += 1;
                }
                let id = nodes.len() as u32;
                nodes.push(PrefixNode {
                    depth: depth as u8,
                    label: escape_bytes(key.get(seg.clone()).unwrap_or_default()),
                    prefix: escape_bytes(prefix),
                    first: b as u32,
                    last: last as u32,
                    parent: above.get(b).copied().flatten(),
                });
                for slot in here.iter_mut().take(last + 1).skip(b) {
                    *slot = Some(id);
                }
                any = true;
                b = last + 1;
            }
            if !any {
                break;
            }
            above = here;
        }
        PrefixTree { nodes }
    }

    /// The busiest prefixes as a hierarchy: at most `limits[0]` prefixes
    /// of the first level (by operations, then rows), under each at most
    /// `limits[1]` of the next, and so on; listed depth first in key
    /// order, parents before their children. `rows` and `ops` are per
    /// labelled bucket. A prefix that labels a single bucket is left out:
    /// a bucket is labelled by its first key, and its rows may run on past
    /// that prefix (a key space of many device ids has a few in every
    /// bucket), so only prefixes spanning buckets have a share to tell.
    #[must_use]
    pub fn shares(&self, rows: &[f64], ops: &[f64], limits: &[usize]) -> Vec<PrefixShare> {
        let total_rows: f64 = rows.iter().sum();
        let total_ops: f64 = ops.iter().sum();
        let sum = |v: &[f64], n: &PrefixNode| -> f64 {
            v.get(n.first as usize..=n.last as usize)
                .map_or(0.0, |s| s.iter().sum())
        };
        let pct = |x: f64, total: f64| if total > 0.0 { x / total * 100.0 } else { 0.0 };
        let mut out = Vec::new();
        self.add_children(
            None,
            None,
            0,
            limits,
            &mut |n, parent| {
                out.push(PrefixShare {
                    depth: n.depth,
                    label: n.label.clone(),
                    prefix: n.prefix.clone(),
                    parent,
                    rows_pct: pct(sum(rows, n), total_rows),
                    ops_pct: pct(sum(ops, n), total_ops),
                });
                (out.len() - 1) as u32
            },
            &|n| (sum(ops, n), sum(rows, n)),
        );
        out
    }

    fn add_children(
        &self,
        parent: Option<u32>,
        parent_out: Option<u32>,
        depth: u8,
        limits: &[usize],
        emit: &mut dyn FnMut(&PrefixNode, Option<u32>) -> u32,
        weight: &dyn Fn(&PrefixNode) -> (f64, f64),
    ) {
        let Some(&limit) = limits.get(depth as usize) else {
            return;
        };
        let mut kids: Vec<u32> = (0..self.nodes.len() as u32)
            .filter(|&i| {
                self.nodes.get(i as usize).is_some_and(|n| {
                    n.depth == depth
                        && n.parent == parent
                        && !n.prefix.is_empty()
                        && n.last > n.first
                })
            })
            .collect();
        let w = |i: &u32| self.nodes.get(*i as usize).map_or((0.0, 0.0), weight);
        kids.sort_by(|a, b| {
            let (wa, wb) = (w(a), w(b));
            wb.0.total_cmp(&wa.0).then(wb.1.total_cmp(&wa.1))
        });
        kids.truncate(limit);
        kids.sort_unstable();
        for i in kids {
            if let Some(n) = self.nodes.get(i as usize) {
                let at = emit(n, parent_out);
                self.add_children(Some(i), Some(at), depth + 1, limits, emit, weight);
            }
        }
    }

    /// The labels at one depth.
    pub fn at_depth(&self, depth: u8) -> impl Iterator<Item = &PrefixNode> {
        self.nodes.iter().filter(move |n| n.depth == depth)
    }
}

/// The hierarchy as indented text lines: the prefix, then its shares of
/// rows and operations.
#[must_use]
pub fn prefixes_text(prefixes: &[PrefixShare], indent: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "{indent}{:<40} {:>7} {:>7}", "prefix", "rows", "ops");
    for p in prefixes {
        let name = format!("{}{}", "  ".repeat(p.depth as usize), p.prefix);
        let name = if name.chars().count() > 40 {
            let cut: String = name.chars().take(39).collect();
            format!("{cut}…")
        } else {
            name
        };
        let _ = writeln!(
            s,
            "{indent}{name:<40} {:>6.1}% {:>6.1}%",
            p.rows_pct, p.ops_pct
        );
    }
    s
}

/// The key space as a hierarchy of prefixes, three levels deep: the
/// first key of each group of `grouping` on `axis`, cut into segments by
/// `split`, with the shares of `rows` and `ops` (per fine bucket) under
/// each prefix; the busiest ten prefixes, five under each, three under
/// those.
pub(crate) fn grouped_prefix_shares(
    axis: &KeyAxis,
    grouping: &KeyGrouping,
    split: impl Fn(&[u8]) -> Vec<Range<usize>>,
    rows: &[f64],
    ops: &[f64],
) -> Vec<PrefixShare> {
    let starts: Vec<&[u8]> = grouping
        .bounds
        .iter()
        .take(grouping.len())
        .map(|&b| axis.start(b as usize))
        .collect();
    let tree = PrefixTree::build(&starts, split, 3);
    let per_group = |v: &[f64]| -> Vec<f64> {
        grouping
            .bounds
            .windows(2)
            .map(|w| {
                v.get(w[0] as usize..w[1] as usize)
                    .map_or(0.0, |s| s.iter().sum())
            })
            .collect()
    };
    tree.shares(&per_group(rows), &per_group(ops), &[10, 5, 3])
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn split_hash(key: &[u8]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, &b) in key.iter().enumerate() {
            if b == b'#' {
                out.push(start..i);
                start = i + 1;
            }
        }
        out.push(start..key.len());
        out
    }

    #[test]
    fn groups_consecutive_prefixes() {
        let keys: Vec<&[u8]> = vec![
            b"phone#a#1",
            b"phone#a#5",
            b"phone#b#1",
            b"tablet#c#2",
            b"tablet#d#1",
        ];
        let tree = PrefixTree::build(&keys, split_hash, 3);
        let top: Vec<_> = tree.at_depth(0).collect();
        assert_eq!(top.len(), 2);
        assert_eq!(
            (top[0].label.as_str(), top[0].first, top[0].last),
            ("phone", 0, 2)
        );
        assert_eq!(
            (top[1].label.as_str(), top[1].first, top[1].last),
            ("tablet", 3, 4)
        );
        let second: Vec<_> = tree.at_depth(1).collect();
        assert_eq!(second.len(), 4);
        assert_eq!(second[0].prefix, "phone#a");
        assert_eq!(second[0].parent, Some(0));
        assert_eq!(second[3].parent, Some(1));
        assert_eq!(tree.at_depth(2).count(), 5);
        // The busiest branches, as a hierarchy with shares.
        let rows = [1.0, 1.0, 1.0, 1.0, 1.0];
        let ops = [0.0, 0.0, 0.0, 9.0, 1.0];
        let shares = tree.shares(&rows, &ops, &[2, 1]);
        let names: Vec<(&str, u8, Option<u32>)> = shares
            .iter()
            .map(|p| (p.prefix.as_str(), p.depth, p.parent))
            .collect();
        assert_eq!(
            names,
            vec![
                ("phone", 0, None),
                ("phone#a", 1, Some(0)),
                // tablet#c and tablet#d each label one bucket only.
                ("tablet", 0, None),
            ]
        );
        assert_eq!(shares[0].rows_pct, 60.0);
        assert_eq!(shares[1].rows_pct, 40.0);
        assert_eq!(shares[2].ops_pct, 100.0);
        let empty = PrefixTree::build(&[], split_hash, 3);
        assert!(empty.nodes.is_empty());
    }
}
