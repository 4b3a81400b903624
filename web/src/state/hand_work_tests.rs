//! Tests of how the playground counts work that autosave's replay of
//! table definitions and data loads cannot rebuild
//! ([`AppState::hand_changes`], [`AppState::unsaved_work`]).

use std::rc::Rc;

use super::console::Tab;
use super::generator::GeneratorSpec;
use super::layout::Panels;
use super::{Action, AppState, Boot, TestClock, hand_log, run_console, settle, test_app};
use crate::demo;
use crate::share;

fn cbt(state: &AppState, line: &str) -> AppState {
    run_console(state, Tab::Cbt, line)
}

/// The state a reload of its autosave opens, an hour later.
fn reload(state: &AppState) -> AppState {
    let text = share::encode(&state.to_shared(false));
    let shared = share::decode(&text).expect("the autosave reads back");
    let later = TestClock::new(super::tests::NOW + 3_600_000_000, 0.5);
    AppState::new(Rc::new(later), false, Panels::default())
        .apply(Action::Boot(Boot::Shared(Box::new(shared))))
}

fn mutate_row(state: &AppState, table: &str, family: &str) -> String {
    format!(
        r#"{{"method": "mutateRow", "request": {{"tableName": "{}/tables/{table}", "rowKey": "aGFuZA==", "mutations": [{{"setCell": {{"familyName": "{family}", "columnQualifier": "cQ==", "timestampMicros": "1000", "value": "dg=="}}}}]}}}}"#,
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
    let written = run_console(&state, Tab::Json, &mutate_row(&state, "t", "cf"));
    assert!(written.console.entries.last().unwrap().ok);
    assert_eq!(written.hand_changes, 1);
    // A request that fails changed nothing.
    let failed = run_console(&written, Tab::Json, &mutate_row(&written, "nosuch", "cf"));
    assert!(!failed.console.entries.last().unwrap().ok);
    assert_eq!(failed.hand_changes, 1);
}

#[test]
fn the_schema_panels_family_changes_count_only_when_a_family_goes() {
    use tabletop_core::{ColumnFamily, FamilyChange};
    let updated = test_app().apply(Action::ModifyFamilies {
        table: demo::TABLE_ID.into(),
        changes: vec![FamilyChange::Create(
            "extra".into(),
            ColumnFamily::default(),
        )],
    });
    assert!(updated.console.entries.last().unwrap().ok);
    assert_eq!(
        updated.hand_changes, 0,
        "a new family is in the definitions"
    );
    let dropped = updated.apply(Action::ModifyFamilies {
        table: demo::TABLE_ID.into(),
        changes: vec![FamilyChange::Drop(demo::DETAIL_FAMILY.into())],
    });
    assert!(dropped.console.entries.last().unwrap().ok);
    assert_eq!(dropped.hand_changes, 1, "a dropped family takes its cells");
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
fn the_notice_needs_work_the_log_does_not_hold_and_a_save_without_the_snapshot() {
    let state = test_app().apply(Action::SnapshotLeftOut(true));
    assert!(
        !state.unsaved_work(),
        "nothing made by hand: the replay rebuilds it all"
    );
    let typed = cbt(&state, "set mobile-time-series by-hand stats_summary:q=v");
    assert!(
        typed.hand_log_whole() && !typed.unsaved_work(),
        "the log keeps a typed row"
    );
    // A family dropped is a table change the log does not keep.
    let dropped = cbt(&typed, "deletefamily mobile-time-series stats_detail");
    assert_eq!(dropped.hand_changes, 2);
    assert!(!dropped.hand_log_whole());
    assert!(dropped.unsaved_work());
    assert!(
        dropped.to_shared(false).hand_log.is_empty(),
        "a partial log is not saved"
    );
    let kept = dropped.apply(Action::SnapshotLeftOut(false));
    assert!(
        !kept.unsaved_work(),
        "a save that kept the snapshot keeps the work"
    );
    // Booting afresh leaves nothing made by hand.
    let reset = dropped.apply(Action::Boot(Boot::Demo));
    assert!(!reset.unsaved_work());
    assert_eq!(reset.hand_changes, 0);
}

/// The output of `line` run in the console.
fn output(state: &AppState, line: &str) -> String {
    cbt(state, line)
        .console
        .entries
        .last()
        .unwrap()
        .output
        .clone()
}

#[test]
fn a_small_instance_is_saved_whole_with_its_count() {
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
    assert!(back.hand_log_whole());
    assert!(output(&back, "lookup mobile-time-series by-hand").contains("by-hand"));
}

#[test]
fn writes_after_the_loads_run_again_after_them_with_their_own_timestamps() {
    let big = load(&test_app(), "gen", 10_000);
    let first = output(&big, "read gen count=1");
    let first_key = first.lines().next().unwrap().trim().to_string();
    // A cell whose timestamp the instance chose, a deleted loaded row, and
    // a JSON write with its own timestamp.
    let typed = cbt(&big, "set gen zz-by-hand stats_summary:q=typed");
    let typed = cbt(&typed, &format!("deleterow gen {first_key}"));
    let typed = run_console(
        &typed,
        Tab::Json,
        &mutate_row(&typed, "gen", "stats_summary"),
    );
    assert!(typed.console.entries.last().unwrap().ok);
    assert_eq!(typed.hand_changes, 3);
    assert!(typed.hand_log_whole());
    let before = output(&typed, "lookup gen zz-by-hand");
    assert!(
        before.contains("typed") && before.contains("2023/11/14"),
        "{before}"
    );
    assert!(!output(&typed, &format!("lookup gen {first_key}")).contains("stats_"));

    let saved = typed.to_shared(false);
    assert!(
        saved.snapshot.is_none(),
        "past the limit the rows are left out"
    );
    assert_eq!(saved.hand_log.len(), 3);
    let replayed = settle(reload(&typed));
    assert_eq!(replayed.loads.len(), 1);
    assert_eq!(replayed.hand_changes, 3);
    assert!(replayed.hand_log_whole());
    assert_eq!(
        output(&replayed, "lookup gen zz-by-hand"),
        before,
        "the same cell, the same timestamp"
    );
    assert!(!output(&replayed, &format!("lookup gen {first_key}")).contains("stats_"));
    assert!(
        output(&replayed, "lookup gen hand").contains("stats_summary:q"),
        "the JSON write came back"
    );
    // The clock is back in the present.
    assert!(replayed.instance().now_micros() >= typed.instance().now_micros());
}

#[test]
fn a_load_after_writes_made_by_hand_leaves_them_out_of_the_log() {
    let typed = cbt(
        &test_app(),
        "set mobile-time-series by-hand stats_summary:q=v",
    );
    let loaded = load(&typed, "gen", 10_000).apply(Action::SnapshotLeftOut(true));
    assert!(!loaded.hand_log_whole());
    assert!(loaded.unsaved_work());
    // A reload loses the typed row, as the notice says.
    let replayed = settle(reload(&loaded));
    assert_eq!(replayed.hand_changes, 0);
    assert!(!output(&replayed, "lookup mobile-time-series by-hand").contains("by-hand"));
}

#[test]
fn a_log_past_its_bound_no_longer_stands_for_the_work() {
    let value = "x".repeat(hand_log::MAX_LOG_BYTES);
    let typed = cbt(
        &test_app(),
        &format!("set mobile-time-series big stats_summary:q={value}"),
    );
    assert_eq!(typed.hand_changes, 1);
    assert!(typed.hand_log.is_empty() && !typed.hand_log_whole());
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
