//! Someone else's work replacing the user's: a snapshot file (after a
//! confirmation when there is work to lose) or a link opened over work.
//! The work replaced is set aside, and Undo brings it back. A lesson's
//! tables are scratch: the lesson ends first, and what is replaced is the
//! user's own work.

use tabletop_core::Instance;

use crate::share::{SharedState, Why};
use crate::state::aside::{PendingImport, capital, tables_text};
use crate::state::{AppState, Boot, Notice};

impl AppState {
    /// A snapshot file was picked: a file that is not a snapshot is refused
    /// and changes nothing; one that is replaces the playground's work at
    /// once when there is none, else after the user confirms. Returns
    /// whether data changed.
    pub(in crate::state) fn import_snapshot(&mut self, name: String, bytes: &[u8]) -> bool {
        let instance = match Instance::restore(bytes) {
            Ok(instance) => instance,
            Err(e) => {
                self.notice = Some(Notice {
                    error: true,
                    text: format!("{name} is not a snapshot Tabletop can read: {e}"),
                });
                return false;
            }
        };
        self.pending_import = Some(PendingImport::new(name, bytes.len(), instance));
        if self.has_work_to_keep() || self.home.is_some() {
            return false;
        }
        self.confirm_import(true)
    }

    /// Replaces the playground's work with the pending snapshot (`yes`),
    /// setting that work aside for an undo, or drops the snapshot.
    pub(in crate::state) fn confirm_import(&mut self, yes: bool) -> bool {
        let Some(pending) = self.pending_import.take().filter(|_| yes) else {
            return false;
        };
        let Some(instance) = pending.take_instance() else {
            return false;
        };
        // A lesson's tables are scratch: the lesson ends and the user's own
        // work is what the snapshot replaces.
        self.leave_lesson();
        let keep = self.has_work_to_keep();
        let aside = self.set_aside(Why::Replaced(format!("the snapshot {}", pending.name)));
        *self.instance.borrow_mut() = instance;
        let undo = if keep {
            let text = format!(
                " {} can come back with Undo.",
                capital(&aside.phrase(true).0)
            );
            self.replaced = Some(aside);
            text
        } else {
            String::new()
        };
        self.notice = Some(Notice {
            error: false,
            text: format!(
                "Imported {} ({}): {}.{undo}",
                pending.name,
                tabletop_core::human_bytes(pending.bytes as f64),
                tables_text(pending.tables)
            ),
        });
        true
    }

    /// Puts back the work the last snapshot import or link replaced; what
    /// the playground holds now is dropped. Returns whether data changed.
    pub(in crate::state) fn undo_replace(&mut self) -> bool {
        let Some(aside) = self.replaced.take() else {
            return false;
        };
        self.leave_lesson();
        let (what, verb) = aside.phrase(true);
        self.put_back(aside);
        self.notice = Some(Notice {
            error: false,
            text: format!("{} {verb} back.", capital(&what)),
        });
        true
    }

    /// Opens a link pasted into the address bar of the running page: the
    /// work on the playground is set aside first, so it can come back.
    pub(in crate::state) fn open_link(&mut self, link: SharedState) {
        // A lesson's tables are scratch: the lesson ends, and the link
        // replaces the user's own work.
        self.leave_lesson();
        let earlier = self.replaced.take();
        let replaced = self
            .has_work_to_keep()
            .then(|| self.set_aside(Why::Replaced("a shared link".into())));
        self.boot(Boot::Shared(Box::new(link)));
        self.replaced = replaced.or(earlier);
    }
}
