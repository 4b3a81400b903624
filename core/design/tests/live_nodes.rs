//! A real table's tablets on nodes: the live Key Visualizer gives them to
//! [`LiveOptions::nodes`] nodes with the simulator's balancer rule, so a
//! heatmap cell can name its node as a simulated one does.

mod common;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use tabletop_design::keyviz::{LiveKeyViz, LiveOptions, tablet_nodes};
use tabletop_sql::Instance;
use tabletop_store::{CountRows, Mutation, ReadRowsRequest, RowRange, RowSet};

/// A table split into six tablets (at b, c, d, e, f), a row in each.
fn six_tablets() -> Instance {
    let mut db = common::split_table(&["b", "c", "d", "e", "f"]);
    for key in ["a1", "b1", "c1", "d1", "e1", "f1"] {
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", b"q", 1000, b"v")],
        )
        .unwrap();
    }
    db
}

fn nodes_of(db: &mut Instance, nodes: u32) -> Vec<u32> {
    let opts = LiveOptions {
        nodes,
        ..LiveOptions::default()
    };
    let live = LiveKeyViz::build(db, "t", &opts).unwrap();
    let placed: Vec<(u64, u32)> = live.tablets().iter().map(|t| (t.id, t.node)).collect();
    // Placing the tablets without the map (as the Tablets panel does)
    // names the same nodes.
    assert_eq!(tablet_nodes(db, "t", nodes).unwrap(), placed);
    placed.into_iter().map(|(_, n)| n).collect()
}

#[test]
fn quiet_tablets_go_to_the_nodes_in_turn() {
    let mut db = six_tablets();
    assert_eq!(
        LiveOptions::default().nodes,
        3,
        "a scenario's default cluster"
    );
    assert_eq!(nodes_of(&mut db, 3), vec![0, 1, 2, 0, 1, 2]);
    assert_eq!(nodes_of(&mut db, 2), vec![0, 1, 0, 1, 0, 1]);
    assert_eq!(nodes_of(&mut db, 1), vec![0; 6]);
}

#[test]
fn two_busy_tablets_that_start_on_one_node_end_on_two() {
    let mut db = six_tablets();
    // About 12% and 9% of a node over one 10-second traffic bucket, on
    // the tablets of a and d: both start on node 0.
    for _ in 0..20_000 {
        db.read_row("t", b"a1", None).unwrap();
    }
    for _ in 0..15_000 {
        db.read_row("t", b"d1", None).unwrap();
    }
    let nodes = nodes_of(&mut db, 3);
    assert_ne!(nodes[0], nodes[3], "{nodes:?}");
    assert!(nodes.iter().all(|&n| n < 3), "{nodes:?}");
    // Each node still holds two tablets: the balancer evens out counts
    // with idle tablets.
    for n in 0..3 {
        assert_eq!(nodes.iter().filter(|&&x| x == n).count(), 2, "{nodes:?}");
    }
    // The report carries the nodes too (`tabletop keyviz --json`).
    let live = LiveKeyViz::build(&mut db, "t", &LiveOptions::default()).unwrap();
    let report = live.report(None);
    assert_eq!(
        report.tablets.iter().map(|t| t.node).collect::<Vec<_>>(),
        nodes
    );
}

#[test]
fn a_range_read_loads_every_tablet_it_covers_and_the_map_agrees() {
    let mut db = six_tablets();
    // Scans over b to e: their work is shared by the four tablets they
    // cover, which then count as busy; the map's nodes and the placement
    // without it stay one.
    for _ in 0..4_000 {
        let req = ReadRowsRequest::rows(RowSet::range(RowRange::closed_open("b", "e1")));
        db.read_rows("t", &req, &mut CountRows::default()).unwrap();
    }
    for nodes in 1..=4 {
        let placed = nodes_of(&mut db, nodes);
        assert!(placed.iter().all(|&n| n < nodes), "{placed:?}");
    }
    assert!(
        tablet_nodes(&db, "nope", 3).is_err(),
        "an unknown table is an error"
    );
}
