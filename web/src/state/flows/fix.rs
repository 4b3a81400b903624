//! The design edited by hand or by the advisor, and the undo of a fix.

use std::rc::Rc;

use tabletop_core::advisor::Fix;

use crate::state::learn::Undo;
use crate::state::{Action, AppState, Notice};
use crate::view_model::keydesign::DraftEdit;

impl AppState {
    /// An edit in the row-key designer: a draft that makes a valid design
    /// replaces the design, and keeps its text as typed for the new
    /// revision.
    pub(super) fn edit_draft(&mut self, edit: DraftEdit) {
        let Some((mut draft, next)) = self.learn.edit_draft(edit, &self.design) else {
            return;
        };
        if let Some(s) = next {
            self.reduce_in_place(Action::SetDesign("edited".into(), Box::new(s)));
            draft.rev = self.design.rev;
        }
        Rc::make_mut(&mut self.learn).draft = draft;
    }

    /// Applies an advisor fix to the design and the instance (through the
    /// lesson's session when one runs), keeping what an undo needs.
    /// Returns whether data changed.
    pub(super) fn apply_fix(&mut self, fix: &Fix) -> bool {
        let before = self.design.scenario.clone();
        let undo = Undo::before(fix, before.clone(), &self.instance.borrow());
        let touches_instance = undo.touches_instance();
        let result = self
            .learn
            .fix(fix, before.as_deref(), &self.instance, touches_instance);
        match result {
            Ok(next) => {
                if let Some(s) = next
                    && Some(&s) != before.as_deref()
                {
                    self.reduce_in_place(Action::SetDesign("edited".into(), Box::new(s)));
                }
                self.notice = Some(Notice {
                    error: false,
                    text: format!("Applied: {}", fix.title),
                });
                Rc::make_mut(&mut self.learn).push_undo(undo);
                // A fix that changed the instance is work autosave's
                // replay of loads cannot redo.
                self.hand_changes += u64::from(touches_instance);
                true
            }
            Err(e) => {
                // An instance copy made for the undo is restored if a
                // partial instance change happened before the error.
                if let Some(i) = undo.instance {
                    *self.instance.borrow_mut() = (*i).clone();
                }
                self.notice = Some(Notice {
                    error: true,
                    text: format!("The fix could not be applied: {e}"),
                });
                touches_instance
            }
        }
    }

    /// Takes back the last fix: the instance and the design as they were.
    /// Returns whether data changed.
    pub(super) fn undo_fix(&mut self) -> bool {
        let Some(undo) = Rc::make_mut(&mut self.learn).undo.pop() else {
            return false;
        };
        let mut data = false;
        if let Some(i) = undo.instance {
            *self.instance.borrow_mut() = Rc::unwrap_or_clone(i);
            self.hand_changes += 1;
            data = true;
        }
        match undo.scenario {
            Some(s) if self.design.scenario.as_ref() != Some(&s) => {
                self.reduce_in_place(Action::SetDesign("edited".into(), Box::new((*s).clone())));
                data = true;
            }
            _ => {}
        }
        self.notice = Some(Notice {
            error: false,
            text: format!("Undone: {}", undo.title),
        });
        data
    }
}
