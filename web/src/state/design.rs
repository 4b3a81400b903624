//! The design being worked on: one scenario (see `static/scenarios/`) —
//! the table, its row-key template, declared access patterns, columns and
//! workload. It is the meeting point of three features: the simulation
//! runs it, the row-key designer and the advisor's one-click fixes edit
//! it, and lessons and the scenario picker replace it.
//!
//! Dependants do not subscribe: they compare [`DesignState::rev`] with the
//! revision they last computed from.

use std::rc::Rc;

use tabletop_core::sim::Scenario;

/// The current design.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DesignState {
    /// Where the design came from, for people: a scenario file's name, a
    /// lesson's id, or "edited".
    pub source: String,
    /// The design, if one has been chosen.
    pub scenario: Option<Rc<Scenario>>,
    /// Bumped on every change.
    pub rev: u64,
}

impl DesignState {
    /// Replaces the design.
    pub fn set(&mut self, source: String, scenario: Scenario) {
        self.source = source;
        self.scenario = Some(Rc::new(scenario));
        self.rev += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_change_bumps_the_revision() {
        let text = include_str!("../../../static/scenarios/mobile_device_first.toml");
        let mut design = DesignState::default();
        assert_eq!(design.rev, 0);
        design.set(
            "mobile_device_first".into(),
            Scenario::from_toml(text).unwrap(),
        );
        design.set("edited".into(), Scenario::from_toml(text).unwrap());
        assert_eq!(design.rev, 2);
        assert_eq!(design.source, "edited");
        assert!(design.scenario.is_some());
    }
}
