//! The advisor's findings on the current design, kept up to date in the
//! state so the designer only draws them.
//!
//! The advisor reads the design, the tables' schema (not their rows) and,
//! once a simulation of the design has run to its end, its report (hot
//! rows, sequential writes). `AdvisorState::follow` runs it again only
//! when one of those changed since the findings were made.

use std::rc::Rc;

use tabletop_core::Instance;
use tabletop_core::sim::Report;

use super::design::DesignState;
use crate::view_model::learn::{AdvisorView, advisor_view};
use crate::view_model::schema::{FamilySummary, TableSummary};

/// What the findings were made from.
#[derive(Clone, Debug, PartialEq)]
struct Inputs {
    design_rev: u64,
    schema: Vec<(String, Vec<FamilySummary>)>,
    finished: bool,
}

/// The advisor's slice: its findings, and what they were made from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AdvisorState {
    /// The findings and access patterns of the current design.
    pub view: Rc<AdvisorView>,
    made_from: Option<Inputs>,
    /// The table list last looked at (a new list may hold the same schema).
    tables: Option<Rc<Vec<TableSummary>>>,
}

impl AdvisorState {
    /// Runs the advisor again if the design, the tables' schema or the
    /// finished report changed. `report` is asked for only then, and only
    /// when `finished`.
    pub(crate) fn follow(
        &mut self,
        design: &DesignState,
        tables: &Rc<Vec<TableSummary>>,
        instance: &Instance,
        finished: bool,
        report: impl FnOnce() -> Option<Report>,
    ) {
        let same_list = self.tables.as_ref().is_some_and(|t| Rc::ptr_eq(t, tables));
        if same_list
            && self
                .made_from
                .as_ref()
                .is_some_and(|m| m.design_rev == design.rev && m.finished == finished)
        {
            return;
        }
        self.tables = Some(Rc::clone(tables));
        let inputs = Inputs {
            design_rev: design.rev,
            schema: tables
                .iter()
                .map(|t| (t.name.clone(), t.families.clone()))
                .collect(),
            finished,
        };
        if self.made_from.as_ref() == Some(&inputs) {
            return;
        }
        let report = if finished { report() } else { None };
        self.view = Rc::new(advisor_view(
            design.scenario.as_deref(),
            instance,
            report.as_ref(),
        ));
        self.made_from = Some(inputs);
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use crate::state::learn::LearnAction;
    use crate::state::test_app as app;
    use crate::state::{Action, AppState};
    use crate::view_model::learn::advisor_view;

    fn fresh(state: &AppState) -> crate::view_model::learn::AdvisorView {
        advisor_view(state.design.scenario.as_deref(), &state.instance(), None)
    }

    fn cbt(state: &AppState, line: &str) -> AppState {
        state
            .apply(Action::ConsoleInput(line.into()))
            .apply(Action::ConsoleRun)
    }

    #[test]
    fn the_findings_follow_the_design_and_the_schema_not_the_rows() {
        let state = app();
        assert_eq!(*state.advisor.view, fresh(&state));
        let picked = state.apply(Action::Learn(LearnAction::PickScenario(
            "lesson_scores_unpadded.toml".into(),
        )));
        assert_eq!(*picked.advisor.view, fresh(&picked));
        assert_ne!(picked.advisor.view, state.advisor.view, "a new design");
        // A table without a GC rule is a new finding.
        let created = cbt(&picked, "createtable events families=cf");
        assert_eq!(*created.advisor.view, fresh(&created));
        assert!(
            created
                .advisor
                .view
                .findings
                .iter()
                .any(|f| f.rule == "no_gc_rule")
        );
        // A row written changes no schema: the findings are not made again.
        let written = cbt(&created, "set events r cf:q=v");
        assert!(Rc::ptr_eq(&written.advisor.view, &created.advisor.view));
    }
}
