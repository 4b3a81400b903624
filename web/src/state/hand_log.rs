//! The user's own row writes since the last data load, kept beside the
//! loads so that a reload past autosave's snapshot limit can run them again
//! after the loads, in the order they were made.
//!
//! Each write is the command as it ran (a `cbt` line or a JSON request)
//! with the instance clock at that moment. Running it again with the clock
//! set back to that moment gives every cell the timestamp the instance gave
//! it the first time, so writes that let the server choose the timestamp
//! come back exactly as they were. Only commands that change rows alone are
//! kept (writes, deletes of cells or rows, dropped row ranges); the tables'
//! definitions travel on their own, as they always did.
//!
//! The log stands for the work only while it holds every change made by
//! hand since the instance was last rebuilt (see [`AppState::hand_log_whole`]):
//! a change it cannot keep (a table deleted, an import, a SQL write, a
//! load started after hand-made writes, a log past [`MAX_LOG_BYTES`])
//! leaves the autosave to say what it loses instead.

use serde::{Deserialize, Serialize};
use tabletop_core::Instance;
use tabletop_core::cbt::MemFiles;

use super::console::{self, Tab};
use super::{AppState, Notice};

/// The performance measure of running the log again after a reload.
pub const REPLAY_MEASURE: &str = "tabletop:hand-writes";

/// Largest log autosave keeps, in bytes of commands.
pub const MAX_LOG_BYTES: usize = 256 * 1024;

/// One write made by hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandWrite {
    /// The console tab's name (`cbt` or `json`).
    pub tab: String,
    /// The command as it ran.
    pub command: String,
    /// The instance clock when it ran.
    pub at_micros: i64,
}

/// The bytes a log holds.
pub fn log_bytes(log: &[HandWrite]) -> usize {
    log.iter().map(|w| w.command.len()).sum()
}

/// Runs `writes` again on `instance`, each with the clock at its own
/// moment; returns the messages of those that failed.
pub fn replay(instance: &mut Instance, writes: &[HandWrite]) -> Vec<String> {
    let mut failed = Vec::new();
    for write in writes {
        instance.set_now(write.at_micros);
        let tab = Tab::from_slug(&write.tab);
        let entry = match tab {
            Tab::Json => console::run_json(instance, &write.command, Default::default()),
            _ => {
                let mut host = MemFiles {
                    wall_clock_micros: Some(write.at_micros),
                    ..MemFiles::default()
                };
                console::run_cbt(instance, &mut host, &write.command, Default::default())
            }
        };
        if !entry.ok {
            failed.push(entry.output.trim().to_string());
        }
    }
    failed
}

impl AppState {
    /// Whether the log holds every change made by hand since the instance
    /// was last rebuilt, so that the loads and the log rebuild it all.
    pub fn hand_log_whole(&self) -> bool {
        self.hand_log.len() as u64 == self.hand_changes
    }

    /// Takes the writes the console logged in this action into the log,
    /// while it stays within [`MAX_LOG_BYTES`].
    pub(super) fn take_hand_writes(&mut self) {
        if self.console.hand_writes.is_empty() {
            return;
        }
        let fresh = std::mem::take(&mut std::rc::Rc::make_mut(&mut self.console).hand_writes);
        let mut bytes = log_bytes(&self.hand_log);
        let log = std::rc::Rc::make_mut(&mut self.hand_log);
        for write in fresh {
            bytes += write.command.len();
            if bytes > MAX_LOG_BYTES {
                break;
            }
            log.push(write);
        }
    }

    /// A data load starts: writes made by hand before it cannot be run
    /// again after it, so the log no longer stands for them.
    pub(super) fn load_starts(&mut self) {
        if !self.hand_log.is_empty() {
            self.hand_log = std::rc::Rc::default();
        }
    }

    /// Runs the logged writes a reload brought back, once the loads before
    /// them have run; the clock then goes back to the present.
    pub(super) fn replay_hand_writes(&mut self) {
        let start = self.clock.now_ms();
        let writes = std::mem::take(&mut self.replay);
        let failed = replay(&mut self.instance.borrow_mut(), &writes);
        self.sync_clock();
        self.clock.measure(REPLAY_MEASURE, start);
        if let Some(first) = failed.first() {
            self.notice = Some(Notice {
                error: true,
                text: format!(
                    "{} of the {} writes made by hand could not be made again after the data loads: {first}",
                    failed.len(),
                    writes.len()
                ),
            });
        }
    }
}
