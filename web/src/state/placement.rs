//! Which node serves each tablet of the selected real table, for the
//! Tablets panel: the balancer's rule over the table's tablets and
//! recorded traffic ([`tabletop_core::keyviz::tablet_nodes`]), on the
//! node count the live Key Visualizer's Nodes field holds. It needs no
//! live map, so the panel names nodes before that view was ever opened;
//! the live map places its tablets with the same loads, so a heatmap
//! cell names the same node.
//!
//! Placing is cheap (one pass over the traffic log, no read of the
//! table) but not free, so it is done again only when what it depends on
//! changed: the table, the data revision, the traffic's fingerprint
//! ([`super::live::traffic_print`]) or the node count; not during a data
//! load, whose end brings it up to date.

use std::rc::Rc;

use tabletop_core::Instance;
use tabletop_core::keyviz::tablet_nodes;

/// What a placement was made from: equal inputs, equal placement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlacementInputs {
    /// The table.
    pub table: String,
    /// The app's data revision.
    pub data_rev: u64,
    /// The table's traffic fingerprint.
    pub traffic: u64,
    /// The node count.
    pub nodes: u32,
}

/// The selected table's tablets on nodes (tablet id, node), in key order.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// What it was made from.
    pub inputs: PlacementInputs,
    /// Each tablet's node.
    pub nodes: Rc<Vec<(u64, u32)>>,
}

impl Placement {
    /// The placement for `inputs`: `last` again when it was made from
    /// the same, else placed anew (`None` when the table is gone).
    pub fn follow(
        last: Option<&Placement>,
        db: &Instance,
        inputs: PlacementInputs,
    ) -> Option<Placement> {
        if let Some(last) = last.filter(|p| p.inputs == inputs) {
            return Some(last.clone());
        }
        let nodes = tablet_nodes(db, &inputs.table, inputs.nodes).ok()?;
        Some(Placement {
            inputs,
            nodes: Rc::new(nodes),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::state::console::Tab;
    use crate::state::live::{KvView, LiveAction};
    use crate::state::{Action, AppState, run_console, settle, test_app};

    fn run(state: &AppState, text: &str) -> AppState {
        run_console(state, Tab::Cbt, text)
    }

    /// The placement's (tablet id, node) pairs.
    fn placed(state: &AppState) -> Vec<(u64, u32)> {
        state
            .live
            .placement
            .as_ref()
            .expect("placed")
            .nodes
            .to_vec()
    }

    #[test]
    fn tablets_have_nodes_before_the_live_map_and_the_map_agrees() {
        // The Key Visualizer shows the simulation's view all along.
        let sim_view = test_app().apply(Action::Live(LiveAction::Show(KvView::Simulation)));
        let mut state = run(&sim_view, "createtable split families=cf splits=g,m,t");
        for key in ["a1", "h1", "n1", "u1"] {
            state = run(&state, &format!("set split {key} cf:q=v"));
        }
        // Some traffic on the first tablet (too little to move it).
        for _ in 0..3 {
            state = run(&state, "read split start=a end=b");
        }
        let state = settle(state.apply(Action::SelectTable("split".into())));
        assert!(!state.live_shown(), "the live map is not on screen");
        assert!(state.live.summary.is_none(), "and was never built");
        let before = placed(&state);
        let tablets = state.tablets.as_deref().unwrap().as_ref().unwrap();
        assert_eq!(
            before.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
            tablets.tablets.iter().map(|t| t.id).collect::<Vec<_>>(),
            "every tablet the panel shows has a node"
        );
        assert_eq!(
            before.iter().map(|(_, n)| *n).collect::<Vec<_>>(),
            vec![0, 1, 2, 0],
            "quiet tablets go to the three default nodes in turn"
        );
        // The live map, once built, names the same nodes.
        let live = settle(state.apply(Action::Live(LiveAction::Show(KvView::Live))));
        let summary = live.live.summary.as_ref().expect("the map was built");
        let map_nodes: Vec<(u64, u32)> = summary.tablets.iter().map(|t| (t.id, t.node)).collect();
        assert_eq!(map_nodes, placed(&live));
        // Another node count places them again, map or no map.
        let two = state.apply(Action::Live(LiveAction::Nodes(2)));
        assert_eq!(
            placed(&two).iter().map(|(_, n)| *n).collect::<Vec<_>>(),
            vec![0, 1, 0, 1]
        );
        let two_live = live.apply(Action::Live(LiveAction::Nodes(2)));
        let summary = two_live.live.summary.as_ref().unwrap();
        let map_nodes: Vec<(u64, u32)> = summary.tablets.iter().map(|t| (t.id, t.node)).collect();
        assert_eq!(map_nodes, placed(&two_live));
        // Nothing changed, nothing placed again: the same list.
        let again = two.apply(Action::Work);
        assert!(std::rc::Rc::ptr_eq(
            &two.live.placement.as_ref().unwrap().nodes,
            &again.live.placement.as_ref().unwrap().nodes
        ));
    }
}
