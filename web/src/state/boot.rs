//! Where the app starts, and how a saved state comes back.
//!
//! On load the page can hold a share link (the address bar's fragment) and
//! an autosave (localStorage). [`choose`] decides between them without
//! losing either:
//!
//! - the page's own link (the autosave says it wrote it) opens the
//!   autosave, which is richer: hand-written rows up to a larger size, the
//!   console history, work set aside for a lesson;
//! - someone else's link opens the link, and the saved work is set aside
//!   (one click brings it back);
//! - a link that cannot be read opens the saved work (or the sample table)
//!   with a visible message saying why.
//!
//! [`AppState::boot`] then loads the chosen state; [`AppState::load_work`]
//! is the part that rebuilds the tables, rows, loads and design, shared
//! with putting set-aside work back.

use std::rc::Rc;

use tabletop_core::Instance;

use super::aside::{SetAside, holds_work};
use super::console::Tab;
use super::layout::Layout;
use super::sim::SimShared;
use super::{Action, AppState, Notice};
use crate::demo;
use crate::share::{self, SharedAside, SharedState, Why};

/// How the app starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Boot {
    /// The sample table (first visit).
    Demo,
    /// A share link or an autosave.
    Shared(Box<SharedState>),
    /// Someone else's link opened over saved work: the link is shown and
    /// the saved work is set aside, to come back on request.
    LinkOver {
        /// The link.
        link: Box<SharedState>,
        /// The user's saved work.
        saved: Box<SharedState>,
    },
}

/// Chooses how to start from the page's `fragment` and the `autosave`
/// text (ignored in embeds, which never use autosave), with a message for
/// the status line when something could not be read.
pub fn choose(fragment: &str, autosave: Option<&str>, embed: bool) -> (Boot, Option<Notice>) {
    let saved = if embed {
        None
    } else {
        autosave.and_then(|text| share::decode(text).ok())
    };
    if fragment.trim().trim_start_matches('#').is_empty() {
        return (
            saved.map_or(Boot::Demo, |s| Boot::Shared(Box::new(s))),
            None,
        );
    }
    match share::decode(fragment) {
        Ok(link) => match saved {
            Some(saved) if saved.link.as_deref() == Some(&share::link_hash(fragment)) => {
                (Boot::Shared(Box::new(saved)), None)
            }
            Some(saved) => match own_work(saved) {
                Some(work) => (
                    Boot::LinkOver {
                        link: Box::new(link),
                        saved: Box::new(work),
                    },
                    None,
                ),
                None => (Boot::Shared(Box::new(link)), None),
            },
            None => (Boot::Shared(Box::new(link)), None),
        },
        Err(e) => {
            let (boot, instead) = match saved {
                Some(saved) => (Boot::Shared(Box::new(saved)), "your saved work is shown"),
                None => (Boot::Demo, "the sample table is shown"),
            };
            let text =
                format!("The link in the address bar could not be read ({e}); {instead} instead.");
            (boot, Some(Notice { error: true, text }))
        }
    }
}

/// The user's own work in an autosave: what a lesson set aside if one was
/// running (the playground then holds the lesson's tables), else the
/// playground itself; `None` when it holds nothing a person made.
fn own_work(saved: SharedState) -> Option<SharedState> {
    let work = match saved.home {
        Some(home) => home.work,
        None => SharedState {
            home: None,
            replaced: None,
            ..saved
        },
    };
    holds_work(&work).then_some(work)
}

impl AppState {
    /// Loads the start state, replacing everything.
    pub(super) fn boot(&mut self, boot: Boot) {
        self.stop_lesson_session();
        self.pending_import = None;
        self.layout = Layout::default();
        self.home = None;
        self.replaced = None;
        let (live, ab) = match &boot {
            Boot::Shared(shared) => (shared.live.clone(), shared.ab.clone()),
            Boot::LinkOver { link, .. } => (link.live.clone(), link.ab.clone()),
            Boot::Demo => (None, None),
        };
        Rc::make_mut(&mut self.ab).take_shared(ab.as_ref());
        match boot {
            Boot::Demo => {
                self.load_work(SharedState::default());
                let now = self.clock.wall_micros();
                let mut instance = self.instance.borrow_mut();
                if let Err(e) = demo::load(&mut instance, now) {
                    self.notice = Some(Notice {
                        error: true,
                        text: e,
                    });
                }
                drop(instance);
                self.selected = Some(demo::TABLE_ID.to_string());
            }
            Boot::Shared(shared) => {
                let mut shared = *shared;
                self.restore_screen(&shared);
                let home = shared.home.take();
                let replaced = shared.replaced.take();
                self.load_work(shared);
                self.replaced = replaced.map(|r| SetAside::from_saved(*r));
                if let Some(home) = home {
                    let lesson = match &home.why {
                        Why::Lesson(id) => Some(id.clone()),
                        Why::Replaced(_) => None,
                    };
                    self.home = Some(SetAside::from_saved(*home));
                    // The lesson was running when the page closed: it goes
                    // on, on the lesson's tables that autosave brought back.
                    if let Some(id) = lesson {
                        self.resume_lesson(&id);
                    }
                }
            }
            Boot::LinkOver { link, saved } => {
                self.restore_screen(&link);
                self.load_work(*link);
                self.replaced = Some(SetAside::from_saved(SharedAside {
                    why: Why::Replaced("a shared link".into()),
                    work: *saved,
                }));
            }
        }
        self.sync_clock();
        // The traffic there is now is not the person's work of this visit.
        let state = Rc::make_mut(&mut self.live);
        state.restart();
        if let Some(live) = live {
            state.take_shared(&live);
        }
    }

    /// The screen part of a saved state: panel sizes, the generator form,
    /// the console's tab, inputs and history.
    fn restore_screen(&mut self, shared: &SharedState) {
        self.layout = shared.layout.upgraded().clamped();
        self.generator = shared.generator.clone();
        let console = Rc::make_mut(&mut self.console);
        console.tab = Tab::from_slug(&shared.tab);
        for (slot, text) in console.inputs.iter_mut().zip(&shared.input) {
            slot.clone_from(text);
        }
        console.history = shared
            .history
            .iter()
            .map(|(tab, text)| (Tab::from_slug(tab), text.clone()))
            .collect();
    }

    /// Restores the simulation of a share link or autosave (or, with
    /// `None`, unloads it: booting replaces everything). The design is set
    /// through the shared design action, so every slice that follows the
    /// design hears of it; the run then goes to the link's position in
    /// frames of work, and pauses there.
    fn restore_sim(&mut self, shared: Option<&SimShared>) {
        let Some(shared) = shared else {
            self.sim = Rc::new(self.sim.unloaded(self.design.rev));
            return;
        };
        match shared.design() {
            None => {}
            Some(Ok((source, scenario))) => {
                self.reduce_in_place(Action::SetDesign(source, Box::new(scenario)));
                self.follow_design();
                Rc::make_mut(&mut self.sim).take_shared(shared);
            }
            Some(Err(e)) => {
                self.notice = Some(Notice {
                    error: true,
                    text: format!("The link's simulation could not be loaded: {e}"),
                });
            }
        }
    }

    /// The work part of a saved state, replacing the playground's: the
    /// design and its simulation, then the tables with their rows (from the
    /// snapshot when there is one, else created empty with the data loads
    /// queued to run again), and the selected table.
    pub(super) fn load_work(&mut self, shared: SharedState) {
        let now = self.clock.wall_micros();
        self.restore_sim(shared.sim.as_ref());
        if shared.sim.is_none() && self.design.scenario.is_some() {
            let design = Rc::make_mut(&mut self.design);
            design.scenario = None;
            design.source.clear();
            design.rev += 1;
            self.sim = Rc::new(self.sim.unloaded(self.design.rev));
        }
        *self.instance.borrow_mut() = Instance::default();
        self.job = None;
        self.catch_up = None;
        self.queue.clear();
        self.loads.clear();
        self.selected = shared.selected;
        let parity = shared.emulator_parity;
        let restored = match shared.snapshot.as_deref().map(share::restore_snapshot) {
            Some(Ok(instance)) => Some(instance),
            Some(Err(e)) => {
                self.notice = Some(Notice {
                    error: true,
                    text: format!(
                        "The saved rows could not be restored ({e}); the tables are shown empty."
                    ),
                });
                None
            }
            None => None,
        };
        match restored {
            Some(instance) => {
                *self.instance.borrow_mut() = instance;
                self.loads = shared.loads;
                self.hand_changes = shared.hand_changes;
                self.hand_log = Rc::new(shared.hand_log);
                self.replay.clear();
            }
            None => {
                // Definitions, loads and the log of writes made by hand
                // after them are all there is; the log runs once the loads
                // have.
                self.hand_changes = shared.hand_log.len() as u64;
                self.replay.clone_from(&shared.hand_log);
                self.hand_log = Rc::new(shared.hand_log);
                let mut instance = self.instance.borrow_mut();
                instance.set_now(now);
                let errors = share::create_tables(&mut instance, &shared.tables);
                if !errors.is_empty() {
                    self.notice = Some(Notice {
                        error: true,
                        text: format!(
                            "Some saved tables could not be created: {}",
                            errors.join("; ")
                        ),
                    });
                }
                self.queue = shared.loads;
                self.queue.reverse();
            }
        }
        // A snapshot carries the setting; the field keeps it without one.
        // Entering parity is never refused (only leaving it is checked).
        if parity {
            let _entered = self
                .instance
                .borrow_mut()
                .switch_fidelity(super::parity::fidelity(true));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state_with_table(id: &str) -> SharedState {
        SharedState {
            tables: vec![serde_json::json!({ "tableId": id })],
            ..SharedState::default()
        }
    }

    #[test]
    fn no_link_opens_the_autosave_or_the_demo() {
        assert_eq!(choose("", None, false), (Boot::Demo, None));
        let saved = share::encode(&state_with_table("mine"));
        let (boot, notice) = choose("", Some(&saved), false);
        assert_eq!(boot, Boot::Shared(Box::new(state_with_table("mine"))));
        assert_eq!(notice, None);
        // Embeds never read autosave.
        assert_eq!(choose("", Some(&saved), true).0, Boot::Demo);
    }

    #[test]
    fn the_pages_own_link_opens_the_richer_autosave() {
        let link = share::encode(&state_with_table("mine"));
        let saved = SharedState {
            link: Some(share::link_hash(&link)),
            history: vec![("cbt".into(), "ls".into())],
            ..state_with_table("mine")
        };
        let (boot, notice) = choose(&format!("#{link}"), Some(&share::encode(&saved)), false);
        assert_eq!(boot, Boot::Shared(Box::new(saved)));
        assert_eq!(notice, None);
    }

    #[test]
    fn someone_elses_link_sets_the_saved_work_aside() {
        let link = share::encode(&state_with_table("theirs"));
        let saved = share::encode(&state_with_table("mine"));
        let (boot, _) = choose(&link, Some(&saved), false);
        assert_eq!(
            boot,
            Boot::LinkOver {
                link: Box::new(state_with_table("theirs")),
                saved: Box::new(state_with_table("mine")),
            }
        );
        // Mid-lesson, the user's work is what the lesson set aside.
        let mid_lesson = SharedState {
            home: Some(Box::new(SharedAside {
                why: Why::Lesson("row-ranges".into()),
                work: state_with_table("mine"),
            })),
            ..state_with_table("lesson-scratch")
        };
        let (boot, _) = choose(&link, Some(&share::encode(&mid_lesson)), false);
        assert_eq!(
            boot,
            Boot::LinkOver {
                link: Box::new(state_with_table("theirs")),
                saved: Box::new(state_with_table("mine")),
            }
        );
        // An empty autosave has nothing to keep.
        let empty = share::encode(&SharedState::default());
        assert_eq!(
            choose(&link, Some(&empty), false).0,
            Boot::Shared(Box::new(state_with_table("theirs")))
        );
    }

    #[test]
    fn a_damaged_link_says_so_and_keeps_the_saved_work() {
        let saved = share::encode(&state_with_table("mine"));
        let (boot, notice) = choose("#v1.!!!", Some(&saved), false);
        assert_eq!(boot, Boot::Shared(Box::new(state_with_table("mine"))));
        let notice = notice.expect("a visible message");
        assert!(notice.error);
        assert!(notice.text.contains("could not be read"), "{}", notice.text);
        assert!(notice.text.contains("saved work"), "{}", notice.text);
        let (boot, notice) = choose("#v1.!!!", None, false);
        assert_eq!(boot, Boot::Demo);
        assert!(notice.unwrap().text.contains("sample table"));
    }
}
