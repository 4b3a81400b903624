//! The hierarchical key axis: buckets labelled by key prefixes, one level
//! per key segment (`phone` > `phone#4c410523` > ...), the way Key
//! Visualizer groups its y axis.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use tabletop_store::escape_bytes;

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

    /// The labels at one depth.
    pub fn at_depth(&self, depth: u8) -> impl Iterator<Item = &PrefixNode> {
        self.nodes.iter().filter(move |n| n.depth == depth)
    }
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
        let empty = PrefixTree::build(&[], split_hash, 3);
        assert!(empty.nodes.is_empty());
    }
}
