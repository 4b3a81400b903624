//! Tests of how the playground counts work that autosave's replay of
//! table definitions and data loads cannot rebuild
//! ([`AppState::hand_changes`], [`AppState::unsaved_work`]).

use super::console::Tab;
use super::generator::GeneratorSpec;
use super::{Action, AppState, Boot, run_console, settle, test_app};
use crate::demo;
use crate::share;

fn cbt(state: &AppState, line: &str) -> AppState {
    run_console(state, Tab::Cbt, line)
}

/// The state a reload of its autosave opens.
fn reload(state: &AppState) -> AppState {
    let text = share::encode(&state.to_shared(false));
    let shared = share::decode(&text).expect("the autosave reads back");
    test_app().apply(Action::Boot(Boot::Shared(Box::new(shared))))
}

fn mutate_row(state: &AppState, table: &str) -> String {
    format!(
        r#"{{"method": "mutateRow", "request": {{"tableName": "{}/tables/{table}", "rowKey": "aGFuZA==", "mutations": [{{"setCell": {{"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": "1000", "value": "dg=="}}}}]}}}}"#,
        state.instance().name()
    )
}

fn load(state: &AppState, table: &str, rows: u64) -> AppState {
    settle(
        state
            .apply(Action::SetGenerator(GeneratorSpec {
                table: table.into(),
                rows,
                seed: 3,
            }))
            .apply(Action::StartGenerator),
    )
}

#[test]
fn reads_and_definitions_are_not_hand_work_but_writes_are() {
    let start = test_app();
    assert_eq!(
        start.hand_changes, 0,
        "the sample table is not the user's work"
    );
    let mut state = start;
    for line in [
        "ls",
        "read mobile-time-series",
        "createtable t families=cf",
        "createfamily t other",
        "setgcpolicy t cf maxversions=2",
        "compact t",
        "set nosuch r cf:q=v",
    ] {
        state = cbt(&state, line);
        assert_eq!(state.hand_changes, 0, "after `{line}`");
    }
    let state = cbt(&state, "set t r1 cf:q=v");
    assert_eq!(state.hand_changes, 1);
    let state = cbt(&state, "deleterow t r1");
    assert_eq!(state.hand_changes, 2);
    // Two commands in one paste are two changes.
    let state = cbt(&state, "set t r2 cf:q=v\nset t r3 cf:q=v");
    assert_eq!(state.hand_changes, 4);
}

#[test]
fn json_writes_count_and_json_table_creation_does_not() {
    let state = test_app();
    let create = format!(
        r#"{{"method": "createTable", "request": {{"parent": "{}", "tableId": "t", "table": {{"columnFamilies": {{"cf": {{}}}}}}}}}}"#,
        state.instance().name()
    );
    let state = run_console(&state, Tab::Json, &create);
    assert!(state.console.entries.last().unwrap().ok);
    assert_eq!(state.hand_changes, 0);
    let written = run_console(&state, Tab::Json, &mutate_row(&state, "t"));
    assert!(written.console.entries.last().unwrap().ok);
    assert_eq!(written.hand_changes, 1);
    // A request that fails changed nothing.
    let failed = run_console(&written, Tab::Json, &mutate_row(&written, "nosuch"));
    assert!(!failed.console.entries.last().unwrap().ok);
    assert_eq!(failed.hand_changes, 1);
}

#[test]
fn deleting_a_table_in_the_schema_panel_counts() {
    let state = test_app().apply(Action::DeleteTable(demo::TABLE_ID.into()));
    assert!(state.tables.is_empty());
    assert_eq!(state.hand_changes, 1);
}

#[test]
fn data_loads_are_not_hand_work() {
    let state = load(&test_app(), "gen", 2_000);
    assert_eq!(state.loads.len(), 1);
    assert_eq!(state.hand_changes, 0);
}

#[test]
fn the_notice_needs_both_hand_work_and_a_save_without_the_snapshot() {
    let state = test_app().apply(Action::SnapshotLeftOut(true));
    assert!(
        !state.unsaved_work(),
        "nothing made by hand: the replay rebuilds it all"
    );
    let typed = cbt(&state, "set mobile-time-series by-hand stats_summary:q=v");
    assert!(typed.unsaved_work());
    let kept = typed.apply(Action::SnapshotLeftOut(false));
    assert!(
        !kept.unsaved_work(),
        "a save that kept the snapshot keeps the work"
    );
    // Booting afresh leaves nothing made by hand.
    let reset = typed.apply(Action::Boot(Boot::Demo));
    assert!(!reset.unsaved_work());
}

#[test]
fn a_snapshot_kept_by_autosave_keeps_the_count_and_a_replay_starts_from_zero() {
    let typed = cbt(
        &test_app(),
        "set mobile-time-series by-hand stats_summary:q=v",
    );
    let saved = typed.to_shared(false);
    assert!(saved.snapshot.is_some(), "a small instance is saved whole");
    let back = reload(&typed);
    assert_eq!(
        back.hand_changes, 1,
        "the snapshot still holds the typed row"
    );
    let read = cbt(&back, "lookup mobile-time-series by-hand");
    assert!(
        read.console
            .entries
            .last()
            .unwrap()
            .output
            .contains("by-hand")
    );

    // Past the size autosave stores, the snapshot is left out: a reload
    // replays the load and the typed row is gone, which the notice warns of.
    let big = load(&typed, "gen", 10_000);
    let big = cbt(&big, "set gen zz-by-hand stats_summary:q=v");
    assert_eq!(big.hand_changes, 2);
    assert!(big.to_shared(false).snapshot.is_none());
    let replayed = settle(reload(&big));
    assert_eq!(replayed.hand_changes, 0);
    assert_eq!(replayed.loads.len(), 1);
    let read = cbt(&replayed, "lookup gen zz-by-hand");
    assert!(
        !read
            .console
            .entries
            .last()
            .unwrap()
            .output
            .contains("zz-by-hand")
    );
}

#[test]
fn work_set_aside_keeps_its_count() {
    let typed = cbt(
        &test_app(),
        "set mobile-time-series by-hand stats_summary:q=v",
    );
    let link = share::decode(&share::encode(&test_app().to_shared(true))).unwrap();
    let opened = typed.apply(Action::OpenLink(Box::new(link)));
    assert!(opened.replaced.is_some());
    assert_eq!(
        opened.hand_changes, 0,
        "the link holds nothing made by hand"
    );
    let undone = opened.apply(Action::UndoReplace);
    assert_eq!(undone.hand_changes, 1);
    // The same after a reload, when only the saved form is left.
    let undone = reload(&opened).apply(Action::UndoReplace);
    assert_eq!(undone.hand_changes, 1);
}
