//! The user's own work, set aside while something else holds the
//! playground.
//!
//! A few actions put a different instance in front of the user: a lesson
//! sets up its own tables, a snapshot file or a share link brings someone
//! else's. None of them may lose what the user built. Before such an action
//! the work on the playground (the instance, its data loads, the selected
//! table, the design and its simulation) is taken out whole into a
//! [`SetAside`]; it comes back when the lesson ends, or when the user undoes
//! the replacement.
//!
//! Set-aside work has two forms. The live one is the instance itself
//! (moved, never copied) with the design and simulation as they were; the
//! saved one is the same work as a [`SharedState`], made once when the work
//! is set aside, which autosave keeps. After a reload only the saved form
//! exists, and putting it back rebuilds the instance the way opening a
//! link does.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use tabletop_core::Instance;

use super::AppState;
use super::design::DesignState;
use super::generator::GeneratorSpec;
use super::sim::SimState;
use crate::share::{self, SharedAside, SharedState, Why};

/// The work on the playground, taken out whole.
struct Work {
    instance: Instance,
    loads: Vec<GeneratorSpec>,
    queue: Vec<GeneratorSpec>,
    selected: Option<String>,
    design: Rc<DesignState>,
    sim: Rc<SimState>,
    hand_changes: u64,
    hand_log: Rc<Vec<super::hand_log::HandWrite>>,
}

/// Work set aside, and why. Cheap to clone: every revision of the app
/// state shares the one live work, which is moved out once when it is put
/// back.
#[derive(Clone)]
pub struct SetAside {
    /// Why it was set aside.
    pub why: Why,
    /// How many tables it holds (for the messages).
    pub tables: usize,
    /// The work as autosave keeps it.
    saved: Rc<SharedState>,
    /// The work itself, until it is put back (absent after a reload).
    live: Rc<RefCell<Option<Work>>>,
}

impl PartialEq for SetAside {
    fn eq(&self, other: &Self) -> bool {
        self.why == other.why
            && Rc::ptr_eq(&self.saved, &other.saved)
            && Rc::ptr_eq(&self.live, &other.live)
    }
}

impl fmt::Debug for SetAside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetAside")
            .field("why", &self.why)
            .field("tables", &self.tables)
            .field("live", &self.live.borrow().is_some())
            .finish_non_exhaustive()
    }
}

impl SetAside {
    /// Work known only in its saved form (from autosave).
    pub fn from_saved(aside: SharedAside) -> SetAside {
        SetAside {
            why: aside.why,
            tables: aside.work.tables.len(),
            saved: Rc::new(aside.work),
            live: Rc::default(),
        }
    }

    /// The form autosave keeps.
    pub fn to_shared(&self) -> SharedAside {
        SharedAside {
            why: self.why.clone(),
            work: (*self.saved).clone(),
        }
    }

    /// What it holds, for a sentence: "your earlier table", "your 3
    /// tables", "your work" (no tables, a design), and the verb to follow
    /// ("is" or "are").
    pub fn phrase(&self, earlier: bool) -> (String, &'static str) {
        let your = if earlier { "your earlier" } else { "your" };
        match self.tables {
            0 => (format!("{your} work"), "is"),
            1 => (format!("{your} table"), "is"),
            n => (format!("{your} {n} tables"), "are"),
        }
    }

    /// The lesson it was set aside for, if any.
    pub fn lesson(&self) -> Option<&str> {
        match &self.why {
            Why::Lesson(id) => Some(id),
            Why::Replaced(_) => None,
        }
    }
}

/// "1 table", "3 tables".
pub fn tables_text(n: usize) -> String {
    match n {
        1 => "1 table".into(),
        n => format!("{n} tables"),
    }
}

/// The phrase with a capital first letter.
pub fn capital(phrase: &str) -> String {
    let mut chars = phrase.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Whether a saved state holds anything a person made: tables, or a design.
pub fn holds_work(state: &SharedState) -> bool {
    !state.tables.is_empty() || state.snapshot.is_some() || state.sim.is_some()
}

impl AppState {
    /// Whether the playground holds anything worth setting aside.
    pub(crate) fn has_work_to_keep(&self) -> bool {
        !self.tables.is_empty() || self.design.scenario.is_some()
    }

    /// Takes the playground's work out, leaving an empty instance and no
    /// design. A data load in progress stops; the rows it wrote are kept.
    pub(crate) fn set_aside(&mut self, why: Why) -> SetAside {
        if let Some(job) = self.job.take() {
            self.finish_job(job);
        }
        self.catch_up = None;
        let mut instance = std::mem::take(&mut *self.instance.borrow_mut());
        let loads = std::mem::take(&mut self.loads);
        let queue = std::mem::take(&mut self.queue);
        let selected = self.selected.take();
        // Logged writes still waiting for their loads cannot be put back in
        // order: the log then no longer stands for the work.
        if !std::mem::take(&mut self.replay).is_empty() {
            self.hand_log = Rc::default();
        }
        let hand_changes = std::mem::take(&mut self.hand_changes);
        let hand_log = std::mem::take(&mut self.hand_log);
        let saved = SharedState {
            tables: share::table_requests(&mut instance),
            snapshot: if queue.is_empty() {
                share::small_snapshot(&mut instance, share::SAVE_SNAPSHOT_BYTES)
            } else {
                None
            },
            loads: loads.iter().chain(queue.iter().rev()).cloned().collect(),
            selected: selected.clone(),
            sim: self.sim.shared(&self.design),
            hand_changes,
            hand_log: if hand_log.len() as u64 == hand_changes {
                hand_log.to_vec()
            } else {
                Vec::new()
            },
            ..SharedState::default()
        };
        // Dependants compare revisions: the empty design is a new one.
        let design_rev = self.design.rev + 1;
        let design = std::mem::replace(
            &mut self.design,
            Rc::new(DesignState {
                rev: design_rev,
                ..DesignState::default()
            }),
        );
        let unloaded = Rc::new(self.sim.unloaded(design_rev));
        let sim = std::mem::replace(&mut self.sim, unloaded);
        Rc::make_mut(&mut self.learn).undo.clear();
        SetAside {
            why,
            tables: saved.tables.len(),
            saved: Rc::new(saved),
            live: Rc::new(RefCell::new(Some(Work {
                instance,
                loads,
                queue,
                selected,
                design,
                sim,
                hand_changes,
                hand_log,
            }))),
        }
    }

    /// Puts set-aside work back in place of whatever the playground holds
    /// now (which is dropped).
    pub(crate) fn put_back(&mut self, aside: SetAside) {
        self.job = None;
        self.catch_up = None;
        if self.scenario_data.job.is_some() || self.scenario_data.table.is_some() {
            Rc::make_mut(&mut self.scenario_data).forget_instance();
        }
        Rc::make_mut(&mut self.learn).undo.clear();
        let live = aside.live.borrow_mut().take();
        match live {
            Some(work) => {
                *self.instance.borrow_mut() = work.instance;
                self.loads = work.loads;
                self.queue = work.queue;
                self.selected = work.selected;
                self.hand_changes = work.hand_changes;
                self.hand_log = work.hand_log;
                self.replay.clear();
                // The design and the simulation come back as they were
                // (the heatmap too), under a revision newer than any seen.
                let rev = self.design.rev + 1;
                self.design = work.design;
                Rc::make_mut(&mut self.design).rev = rev;
                let mut sim = work.sim;
                Rc::make_mut(&mut sim).revive(rev, &self.sim);
                self.sim = sim;
            }
            None => self.load_work(Rc::unwrap_or_clone(aside.saved)),
        }
    }
}

/// A snapshot file read and waiting for the user to confirm that it may
/// replace the playground's tables.
#[derive(Clone)]
pub struct PendingImport {
    /// The file's name.
    pub name: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// How many tables it holds.
    pub tables: usize,
    /// The instance it holds, taken when the import is confirmed.
    instance: Rc<RefCell<Option<Instance>>>,
}

impl PartialEq for PendingImport {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.instance, &other.instance)
    }
}

impl fmt::Debug for PendingImport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingImport")
            .field("name", &self.name)
            .field("tables", &self.tables)
            .finish_non_exhaustive()
    }
}

impl PendingImport {
    /// A snapshot file of `bytes` bytes read into `instance`.
    pub(crate) fn new(name: String, bytes: usize, instance: Instance) -> PendingImport {
        PendingImport {
            name,
            bytes,
            tables: instance.list_tables().len(),
            instance: Rc::new(RefCell::new(Some(instance))),
        }
    }

    /// The instance it holds (once: every revision of the state shares
    /// it).
    pub(crate) fn take_instance(&self) -> Option<Instance> {
        self.instance.borrow_mut().take()
    }
}
