//! The learning slice: lessons, their progress, and the advisor's findings.

use super::AppState;

/// What this slice holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LearnState {}

/// What this slice does.
#[derive(Clone, Debug, PartialEq)]
pub enum LearnAction {}

impl AppState {
    /// Applies an action of this slice; returns whether data or schema
    /// changed.
    pub(crate) fn reduce_learn(&mut self, action: LearnAction) -> bool {
        match action {}
    }
}
