//! The tools slice: export and import dialogs, the SQL console and views.

use super::AppState;

/// What this slice holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolsState {}

/// What this slice does.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolsAction {}

impl AppState {
    /// Applies an action of this slice; returns whether data or schema
    /// changed.
    pub(crate) fn reduce_tools(&mut self, action: ToolsAction) -> bool {
        match action {}
    }
}
