//! The flows that move work between rooms.
//!
//! A slice reduces its own part with what it is lent (see
//! [`Cx`](super::Cx)); what needs several rooms at once is coordinated
//! here, and only here:
//!
//! - [`lesson`]: starting, resuming, leaving and checking a lesson (the
//!   user's own work is set aside while the lesson holds the playground,
//!   and comes back when they leave);
//! - [`fix`]: the designer's edits, the advisor's fixes and their undo
//!   (the design, the instance and the lesson's session together);
//! - [`replace`]: a snapshot import (with its confirmation), a link opened
//!   over work, and the undo that brings the replaced work back.
//!
//! Setting work aside and putting it back, which several of these share,
//! is in [`aside`](super::aside).

mod fix;
mod lesson;
mod replace;

use std::rc::Rc;

use super::AppState;
use super::learn::LearnAction;

impl AppState {
    /// Lessons' and the advisor's actions: the flows here, the rest to the
    /// learning slice. Returns whether data or schema changed.
    pub(super) fn reduce_learn(&mut self, action: LearnAction) -> bool {
        match action {
            LearnAction::Start(id) => self.start_lesson(&id, true),
            LearnAction::Resume(id) => self.start_lesson(&id, false),
            LearnAction::Stop => self.leave_lesson(),
            LearnAction::Check => self.check_lesson(),
            LearnAction::Draft(edit) => {
                self.edit_draft(edit);
                false
            }
            LearnAction::ApplyFix(fix) => self.apply_fix(&fix),
            LearnAction::Undo => self.undo_fix(),
            LearnAction::SampleRows(rows) => {
                let effects = Rc::make_mut(&mut self.learn).resize_sample(rows, &cx!(self));
                self.apply_effects(effects)
            }
            action => {
                let effects = Rc::make_mut(&mut self.learn).reduce(action);
                self.apply_effects(effects)
            }
        }
    }
}
