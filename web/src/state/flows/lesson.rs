//! A lesson taking the playground, and giving it back.
//!
//! Starting a lesson sets the user's own work aside (once: a second lesson
//! replaces only the first one's tables), moves the lesson's instance in,
//! has the console trace the learner's reads, and makes the lesson's
//! scenario the design. Resuming (after a reload) goes on with the tables
//! the playground holds. Leaving puts the user's work back.

use std::rc::Rc;

use tabletop_core::lesson::{RECORD_OPTIONS, ReadRecord};
use tabletop_core::sim::Scenario;
use tabletop_core::{Instance, TraceOptions};

use crate::share::Why;
use crate::state::console::{Source, Tab};
use crate::state::{Action, AppState, Notice, aside, learn};

impl AppState {
    /// Starts the lesson `id` (`fresh`: on its own tables, the user's work
    /// set aside) or resumes it on the playground as it is. Returns
    /// whether the tables changed.
    pub(super) fn start_lesson(&mut self, id: &str, fresh: bool) -> bool {
        let mut session = match learn::start_session(id, self.learn.saved.sample_rows) {
            Ok(s) => s,
            Err(text) => {
                self.notice = Some(Notice { error: true, text });
                return false;
            }
        };
        let title = session.lesson().title.clone();
        let setup_reads = learn::setup_reads(&session);
        let scenario = session.scenario().cloned();
        // The session's instance becomes the playground's; the session
        // keeps an empty placeholder.
        let lesson_instance = std::mem::take(session.instance_mut());
        if !fresh {
            // Resuming: the sample rows are on the playground already.
            let _ = session.take_sample();
        }
        if fresh {
            self.hand_over_to_lesson(id, lesson_instance);
        }
        let console_mark = self.console.entries.last().map_or(0, |e| e.id + 1);
        // The console's reads from now on are the learner's: traced with
        // the keys the checks look at.
        Rc::make_mut(&mut self.console).trace_options = RECORD_OPTIONS;
        Rc::make_mut(&mut self.learn).begin(id, session, console_mark);
        self.lesson_design(id, scenario, fresh);
        if fresh {
            self.run_setup_reads(&setup_reads);
            self.notice = Some(Notice {
                error: false,
                text: format!(
                    "Lesson started: {title}. Your own tables are kept aside and come back when you leave the lesson."
                ),
            });
        }
        fresh
    }

    /// Sets the user's own work aside (once: a second lesson replaces only
    /// the first one's tables; it comes back when they leave the lesson)
    /// and puts the lesson's instance in its place.
    fn hand_over_to_lesson(&mut self, id: &str, lesson_instance: Instance) {
        match &mut self.home {
            Some(home) => home.why = Why::Lesson(id.to_string()),
            None => self.home = Some(self.set_aside(Why::Lesson(id.to_string()))),
        }
        *self.instance.borrow_mut() = lesson_instance;
        self.job = None;
        if self.scenario_data.job.is_some() || self.scenario_data.table.is_some() {
            Rc::make_mut(&mut self.scenario_data).forget_instance();
        }
        self.queue.clear();
        self.loads.clear();
        self.selected = None;
    }

    /// The lesson's scenario becomes the design when starting afresh or
    /// when there is none; resuming with a design already there (the
    /// learner's edits), the session takes that one. A fresh lesson
    /// without a scenario clears the design.
    fn lesson_design(&mut self, id: &str, scenario: Option<Scenario>, fresh: bool) {
        match scenario {
            Some(s) if fresh || self.design.scenario.is_none() => {
                self.reduce_in_place(Action::SetDesign(format!("lesson {id}"), Box::new(s)));
            }
            Some(_) => {
                let effects = self.learn.follow_design(&cx!(self));
                // The resumed lesson's rows are already on the playground.
                self.apply_effects(effects);
            }
            None if fresh => {
                let design = Rc::make_mut(&mut self.design);
                design.scenario = None;
                design.source.clear();
                design.rev += 1;
            }
            None => {}
        }
    }

    /// The setup's reads (the slow read the lesson starts from) go through
    /// the console, so the learner sees what they cost.
    fn run_setup_reads(&mut self, lines: &[String]) {
        let mut host = self.host();
        let console = Rc::make_mut(&mut self.console);
        for line in lines {
            console.run(
                &mut self.instance.borrow_mut(),
                &mut host,
                Tab::Cbt,
                line,
                Source::Panel("Lessons"),
            );
        }
    }

    /// Goes on with a lesson on the tables the playground holds (after a
    /// reload, autosave brought them back).
    pub(crate) fn resume_lesson(&mut self, id: &str) {
        self.start_lesson(id, false);
    }

    /// Ends the started lesson: the lesson's tables go and the user's own
    /// work, set aside when it started, comes back. Returns whether the
    /// tables changed.
    pub(crate) fn leave_lesson(&mut self) -> bool {
        let was_running = self.learn.active.is_some();
        self.stop_lesson_session();
        let Some(home) = self.home.take() else {
            return false;
        };
        let (what, verb) = home.phrase(false);
        self.put_back(home);
        self.notice = Some(Notice {
            error: false,
            text: if was_running {
                format!("You left the lesson; {what} {verb} back.")
            } else {
                format!("{} {verb} back.", aside::capital(&what))
            },
        });
        true
    }

    /// Forgets the lesson session (the tables stay as they are) and the
    /// console's tracing for it.
    pub(crate) fn stop_lesson_session(&mut self) {
        if self.learn.in_lesson() {
            Rc::make_mut(&mut self.learn).end();
        }
        if self.console.trace_options != TraceOptions::default() {
            Rc::make_mut(&mut self.console).trace_options = TraceOptions::default();
        }
    }

    /// Hands the sample rows the lesson wants written (their table made,
    /// empty) to the design's data loader, which writes them in slices
    /// with progress and a Stop. Returns whether the tables changed.
    pub(in crate::state) fn follow_lesson_sample(&mut self) -> bool {
        let Some(sample) = self.learn.take_sample() else {
            return false;
        };
        let effects = Rc::make_mut(&mut self.scenario_data).adopt(sample, self.design.rev);
        self.apply_effects(effects);
        true
    }

    /// Runs the started lesson's checks on the newest read the learner ran
    /// in the console since the lesson started, as its trace recorded it.
    /// Returns whether data changed (the session rewrote its sample rows
    /// for a new design).
    pub(super) fn check_lesson(&mut self) -> bool {
        let read = self.learn.active.as_ref().and_then(|active| {
            self.console
                .last_traced_read(active.console_mark())
                .map(|(entry, trace)| ReadRecord::from_trace(entry.input.trim(), trace))
        });
        let effects = Rc::make_mut(&mut self.learn).check(read, &cx!(self));
        self.apply_effects(effects)
    }
}
