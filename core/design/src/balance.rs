//! Which node serves each tablet: the balancer's node rule, shared by the
//! simulated cluster ([`crate::sim`]) and the live Key Visualizer's real
//! tablets ([`crate::keyviz::LiveKeyViz`]), so both name nodes the same
//! way.
//!
//! Tablets start on the nodes in turn, in key order. Then, a round at a
//! time, the balancer moves the busiest tablet that still narrows the gap
//! from the busiest node to the idlest, while the gap is worth a move;
//! when loads are even, one idle tablet per round evens out the tablet
//! counts. A move changes metadata only (no data is copied), as in
//! Bigtable.

/// When the balancer moves a tablet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveRule {
    /// Node load gap (share of one node) worth a move.
    pub move_gap: f64,
    /// Most load moves per round.
    pub max_moves: usize,
    /// A tablet below this load counts as idle (free to move to even out
    /// counts).
    pub idle_load: f64,
}

impl MoveRule {
    /// The simulator's rule for a cluster of `nodes` nodes whose tablets
    /// count as idle under `idle_load` of a node.
    #[must_use]
    pub fn for_nodes(nodes: usize, idle_load: f64) -> MoveRule {
        MoveRule {
            move_gap: 0.1,
            max_moves: nodes.max(2),
            idle_load,
        }
    }
}

/// One tablet moved: its index among the tablets, the old node and the
/// new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeMove {
    /// Index of the tablet (in the slices given to [`even_out`]).
    pub index: usize,
    /// Old node.
    pub from: u32,
    /// New node.
    pub to: u32,
}

/// The first placement: tablet `i` (in key order) on node `i % nodes`.
#[must_use]
pub fn in_turn(tablets: usize, nodes: usize) -> Vec<u32> {
    let nodes = nodes.max(1);
    (0..tablets).map(|i| (i % nodes) as u32).collect()
}

/// One round of moves over tablets on `node_of` (changed in place) with
/// loads `load` (shares of a node, same length) on `nodes` nodes; returns
/// the moves, in the order made.
pub fn even_out(node_of: &mut [u32], load: &[f64], nodes: usize, rule: MoveRule) -> Vec<NodeMove> {
    let nodes = nodes.max(1);
    let mut node_load = vec![0.0; nodes];
    let mut node_count = vec![0usize; nodes];
    for (&n, &l) in node_of.iter().zip(load) {
        if let Some(x) = node_load.get_mut(n as usize) {
            *x += l;
        }
        if let Some(x) = node_count.get_mut(n as usize) {
            *x += 1;
        }
    }
    let mut moves = Vec::new();
    for _ in 0..rule.max_moves {
        let (h, c) = (busiest(&node_load), idlest(&node_load));
        let gap = at(&node_load, h) - at(&node_load, c);
        if h == c || gap < rule.move_gap {
            break;
        }
        // The biggest tablet on h that still narrows the gap.
        let pick = (0..node_of.len())
            .filter(|&i| {
                let l = at(load, i);
                node_of[i] as usize == h && l > 0.0 && l < 0.9 * gap
            })
            .max_by(|&i, &j| at(load, i).total_cmp(&at(load, j)).then(j.cmp(&i)));
        let Some(i) = pick else {
            break;
        };
        moves.push(move_to(node_of, i, c));
        node_load[h] -= at(load, i);
        node_load[c] += at(load, i);
        node_count[h] = node_count[h].saturating_sub(1);
        node_count[c] += 1;
    }
    // Even out tablet counts with one idle tablet per round.
    let counts: Vec<f64> = node_count.iter().map(|&c| c as f64).collect();
    let (h, c) = (busiest(&counts), idlest(&counts));
    if at(&counts, h) - at(&counts, c) > 1.5 {
        let pick = (0..node_of.len())
            .rev()
            .find(|&i| node_of[i] as usize == h && at(load, i) < rule.idle_load);
        if let Some(i) = pick {
            moves.push(move_to(node_of, i, c));
        }
    }
    moves
}

/// Rounds of the balancer over tablets that stay put otherwise (a live
/// table's, placed from scratch): the first placement, then rounds of
/// [`even_out`] until one moves nothing (at most `max_rounds`).
#[must_use]
pub fn settle(load: &[f64], nodes: usize, rule: MoveRule, max_rounds: usize) -> Vec<u32> {
    let mut node_of = in_turn(load.len(), nodes);
    for _ in 0..max_rounds {
        if even_out(&mut node_of, load, nodes, rule).is_empty() {
            break;
        }
    }
    node_of
}

fn move_to(node_of: &mut [u32], i: usize, to: usize) -> NodeMove {
    let from = node_of[i];
    node_of[i] = to as u32;
    NodeMove {
        index: i,
        from,
        to: to as u32,
    }
}

fn at(v: &[f64], i: usize) -> f64 {
    v.get(i).copied().unwrap_or(0.0)
}

/// The node with the most (ties: the highest number).
fn busiest(v: &[f64]) -> usize {
    (0..v.len())
        .max_by(|&a, &b| v[a].total_cmp(&v[b]).then(b.cmp(&a)))
        .unwrap_or(0)
}

/// The node with the least (ties: the lowest number).
fn idlest(v: &[f64]) -> usize {
    (0..v.len())
        .min_by(|&a, &b| v[a].total_cmp(&v[b]).then(a.cmp(&b)))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn tablets_start_on_the_nodes_in_turn() {
        assert_eq!(in_turn(5, 3), vec![0, 1, 2, 0, 1]);
        assert_eq!(in_turn(2, 0), vec![0, 0], "no nodes counts as one");
    }

    #[test]
    fn a_busy_node_hands_tablets_to_the_idlest() {
        // Node 0 holds the two busy tablets (0 and 3) at first.
        let load = [0.4, 0.0, 0.0, 0.3, 0.0, 0.0];
        let rule = MoveRule::for_nodes(3, 0.01);
        let mut node_of = in_turn(6, 3);
        let moves = even_out(&mut node_of, &load, 3, rule);
        // The biggest tablet under 90% of the gap moves to the idlest
        // node (ties: the lowest number); then node 1 has three tablets
        // to node 0's one, and gives it its last idle one.
        assert_eq!(
            moves,
            vec![
                NodeMove {
                    index: 0,
                    from: 0,
                    to: 1
                },
                NodeMove {
                    index: 4,
                    from: 1,
                    to: 0
                }
            ]
        );
        assert_eq!(node_of, vec![1, 1, 2, 0, 0, 2]);
        // A placement from scratch ends with the busy tablets apart.
        let placed = settle(&load, 3, rule, 8);
        assert_ne!(placed[0], placed[3]);
    }

    #[test]
    fn a_small_gap_moves_nothing_and_counts_even_out_with_idle_tablets() {
        let rule = MoveRule::for_nodes(2, 0.01);
        let mut node_of = vec![0, 0, 0, 1];
        let moves = even_out(&mut node_of, &[0.05, 0.0, 0.0, 0.0], 2, rule);
        // The load gap (0.05) is under the rule's 0.1: only the count
        // (3 against 1) is evened, with the last idle tablet of node 0.
        assert_eq!(
            moves,
            vec![NodeMove {
                index: 2,
                from: 0,
                to: 1
            }]
        );
        assert_eq!(node_of, vec![0, 0, 1, 1]);
        assert_eq!(settle(&[0.05, 0.0, 0.0, 0.0], 2, rule, 8), vec![0, 1, 0, 1]);
    }
}
