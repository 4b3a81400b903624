#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

// The instance clock as hosts drive it from the wall clock
// (`sync_wall_clock`): it follows the wall, never goes back, and a clock
// put ahead (a workload replay writes minutes of traffic in seconds) keeps
// its lead and moves on at the wall's pace instead of standing still.

use tabletop_store::*;

const W: i64 = 1_700_000_000_000_000;
const SECOND: i64 = 1_000_000;

#[test]
fn the_clock_follows_the_wall_without_drifting() {
    let mut db = Instance::default();
    db.sync_wall_clock(W);
    assert_eq!(db.now_micros(), W);
    db.sync_wall_clock(W + SECOND);
    assert_eq!(db.now_micros(), W + SECOND);
    // A host that only sets the clock between syncs (the CLI does, to
    // batch engine work) adds nothing.
    db.set_now(W + SECOND + 2_000);
    db.sync_wall_clock(W + SECOND + 10_000);
    assert_eq!(db.now_micros(), W + SECOND + 10_000);
    // A wall that steps back leaves the clock where it was.
    db.sync_wall_clock(W);
    assert_eq!(db.now_micros(), W + SECOND + 10_000);
}

#[test]
fn a_clock_put_ahead_moves_on_at_the_walls_pace() {
    let mut db = Instance::default();
    db.sync_wall_clock(W);
    // Five minutes of replayed traffic, written in a moment.
    db.set_now(W + 300 * SECOND);
    // The first sync after the jump finds the clock ahead and keeps it;
    // from then on it moves as the wall does.
    db.sync_wall_clock(W + 5 * SECOND);
    assert_eq!(db.now_micros(), W + 300 * SECOND);
    db.sync_wall_clock(W + 10 * SECOND);
    assert_eq!(db.now_micros(), W + 305 * SECOND);
    // So two writes a few seconds apart get two timestamps.
    db.create_table(CreateTableRequest::with_families(
        "t",
        [("cf", ColumnFamily::with_gc(None))],
    ))
    .unwrap();
    let set = |db: &mut Instance| {
        let m = Mutation::SetCell {
            family_name: "cf".into(),
            column_qualifier: b"q".as_slice().into(),
            timestamp_micros: SERVER_TIMESTAMP,
            value: b"v".as_slice().into(),
        };
        db.mutate_row("t", b"r", &[m]).unwrap();
    };
    set(&mut db);
    db.sync_wall_clock(W + 12 * SECOND);
    set(&mut db);
    let mut rows = CollectRows::default();
    db.read_rows("t", &ReadRowsRequest::default(), &mut rows)
        .unwrap();
    assert_eq!(rows.rows[0].cells.len(), 2);
}

#[test]
fn a_simulated_clock_is_left_alone() {
    let mut db = Instance::default();
    db.set_clock_simulated(true);
    db.set_now(5 * SECOND);
    db.sync_wall_clock(W);
    assert_eq!(db.now_micros(), 5 * SECOND);
}
