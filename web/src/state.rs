//! The app's one state and its reducer.
//!
//! [`AppState`] owns the core [`Instance`] (behind `Rc<RefCell<_>>`, so a
//! new state shares it instead of copying tables) and the UI state. Every
//! change goes through [`Action`]: the reducer borrows the instance, calls
//! the core, records the outcome in [`UiState`] and bumps a revision number
//! so Yew repaints. Components read; only the reducer writes.
//!
//! Plain Rust apart from the `yew::Reducible` glue: no browser types, so it
//! is tested natively.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use tabletop_core::{Instance, InstanceConfig};
use yew::{Reducible, UseReducerHandle};

use crate::demo;
use crate::view_model::{self, RowsPage};

/// What components get from the context: the state and a way to dispatch.
pub type AppContext = UseReducerHandle<AppState>;

/// Something a person (or the page itself) asks the app to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Create the sample table, write its rows and show them. `now_micros`
    /// is the host's clock; the core never reads one.
    LoadDemo {
        /// Microseconds since the Unix epoch.
        now_micros: i64,
    },
    /// Show the rows of this table.
    SelectTable(String),
}

/// Whether one operation on the core worked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It worked; the text says what happened.
    Ok(String),
    /// The core refused; the text is its error message.
    Error(String),
}

/// One line of the activity log: an operation and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActivityEntry {
    /// The operation, named like Bigtable's RPC (`CreateTable t`).
    pub operation: String,
    /// What came back.
    pub outcome: Outcome,
}

impl ActivityEntry {
    /// Records the result of one call into the core.
    pub fn from_result<T, E: fmt::Display>(
        operation: impl Into<String>,
        result: &Result<T, E>,
        describe: impl FnOnce(&T) -> String,
    ) -> ActivityEntry {
        ActivityEntry {
            operation: operation.into(),
            outcome: match result {
                Ok(value) => Outcome::Ok(describe(value)),
                Err(error) => Outcome::Error(error.to_string()),
            },
        }
    }
}

/// Everything on screen that is not table data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UiState {
    /// The table whose rows are shown.
    pub selected_table: Option<String>,
    /// The last read of the selected table, or why it failed.
    pub rows: Option<Result<RowsPage, String>>,
    /// Operations done on the core, oldest first.
    pub activity: Vec<ActivityEntry>,
}

/// The application state.
pub struct AppState {
    /// The core's instance. Shared by every revision of the state; only
    /// [`AppState::apply`] borrows it mutably.
    instance: Rc<RefCell<Instance>>,
    /// Bumped on every action, so a new state compares unequal even when
    /// only the instance's contents changed.
    rev: u64,
    /// Selection, last read and activity.
    pub ui: UiState,
}

impl Default for AppState {
    fn default() -> Self {
        AppState {
            instance: Rc::new(RefCell::new(Instance::new(InstanceConfig::default()))),
            rev: 0,
            ui: UiState::default(),
        }
    }
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev && self.ui == other.ui && Rc::ptr_eq(&self.instance, &other.instance)
    }
}

impl fmt::Debug for AppState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppState")
            .field("rev", &self.rev)
            .field("ui", &self.ui)
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// The revision: how many actions this state has seen.
    pub fn rev(&self) -> u64 {
        self.rev
    }

    /// Read-only access to the instance, for view models.
    pub fn instance(&self) -> std::cell::Ref<'_, Instance> {
        self.instance.borrow()
    }

    /// Applies one action and returns the next state. The instance is
    /// shared, not copied: the new state sees the same tables.
    #[must_use]
    pub fn apply(&self, action: Action) -> AppState {
        let mut ui = self.ui.clone();
        {
            let mut instance = self.instance.borrow_mut();
            match action {
                Action::LoadDemo { now_micros } => {
                    instance.set_now(now_micros);
                    let created = demo::load(&mut instance, now_micros, &mut ui.activity);
                    if created {
                        ui.selected_table = Some(demo::TABLE_ID.to_string());
                    }
                }
                Action::SelectTable(table) => ui.selected_table = Some(table),
            }
            ui.rows = ui.selected_table.as_deref().map(|table| {
                let page =
                    view_model::read_rows_page(&mut instance, table, view_model::ROWS_PER_PAGE);
                ui.activity.push(ActivityEntry::from_result(
                    format!("ReadRows {table}"),
                    &page,
                    |page| {
                        format!(
                            "{} rows, {} cells, {} returned",
                            page.rows_returned,
                            page.cells_returned,
                            view_model::format_bytes(page.bytes_returned)
                        )
                    },
                ));
                page
            });
        }
        AppState {
            instance: Rc::clone(&self.instance),
            rev: self.rev + 1,
            ui,
        }
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_700_000_000_000_000;

    #[test]
    fn load_demo_creates_the_table_selects_it_and_reads_its_rows() {
        let state = AppState::default().apply(Action::LoadDemo { now_micros: NOW });
        assert_eq!(state.rev(), 1);
        assert_eq!(state.ui.selected_table.as_deref(), Some(demo::TABLE_ID));
        let tables = view_model::tables(&state.instance());
        assert_eq!(tables.len(), 1);
        assert_eq!(tables[0].name, demo::TABLE_ID);

        let page = state
            .ui
            .rows
            .clone()
            .expect("a table is selected")
            .expect("the read works");
        let keys: Vec<&str> = page.rows.iter().map(|r| r.key.as_str()).collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted, "rows come back in byte order");
        assert_eq!(keys.len(), demo::ROWS.len());

        assert!(!state.ui.activity.is_empty());
        assert!(
            state
                .ui
                .activity
                .iter()
                .all(|e| matches!(e.outcome, Outcome::Ok(_))),
            "{:?}",
            state.ui.activity
        );
    }

    #[test]
    fn loading_the_demo_twice_reports_the_core_error_and_keeps_the_data() {
        let once = AppState::default().apply(Action::LoadDemo { now_micros: NOW });
        let twice = once.apply(Action::LoadDemo {
            now_micros: NOW + 1000,
        });
        let added = &twice.ui.activity[once.ui.activity.len()..];
        let [create, read] = added else {
            panic!("a failed CreateTable and a ReadRows: {added:?}");
        };
        assert_eq!(read.operation, format!("ReadRows {}", demo::TABLE_ID));
        let last = create;
        assert!(last.operation.starts_with("CreateTable"), "{last:?}");
        let Outcome::Error(message) = &last.outcome else {
            panic!("creating an existing table must fail: {last:?}");
        };
        assert!(message.contains(demo::TABLE_ID), "{message}");
        assert_eq!(
            twice.ui.rows, once.ui.rows,
            "the existing rows are untouched"
        );
    }

    #[test]
    fn selecting_an_unknown_table_shows_the_read_error() {
        let state = AppState::default().apply(Action::SelectTable("nope".into()));
        assert_eq!(state.ui.selected_table.as_deref(), Some("nope"));
        let Some(Err(message)) = &state.ui.rows else {
            panic!("reading a missing table must fail: {:?}", state.ui.rows);
        };
        assert!(message.contains("nope"), "{message}");
    }

    #[test]
    fn states_share_one_instance_and_differ_by_revision() {
        let first = AppState::default();
        let second = first.apply(Action::SelectTable("t".into()));
        let third = second.apply(Action::SelectTable("t".into()));
        assert!(Rc::ptr_eq(&first.instance, &third.instance));
        assert_ne!(second, third, "same ui, new revision: still a repaint");
        assert_eq!(third.rev(), 2);
    }
}
