//! The simulation slice: the running scenario, its Key Visualizer and tablets.

use super::AppState;

/// What this slice holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimState {}

/// What this slice does.
#[derive(Clone, Debug, PartialEq)]
pub enum SimAction {}

impl AppState {
    /// Applies an action of this slice; returns whether data or schema
    /// changed.
    pub(crate) fn reduce_sim(&mut self, action: SimAction) -> bool {
        match action {}
    }
}
