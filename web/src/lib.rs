//! The Tabletop playground in the browser.
//!
//! A Yew app over [`tabletop_core`]: the core keeps the tables and does
//! everything Bigtable would do; this crate holds the app state, turns what
//! the core returns into display data and draws it.
//!
//! - [`state`]: the one reducer ([`state::AppState`], [`state::Action`]) and
//!   its slices (layout, console, rows, data generator); plain Rust, tested
//!   natively.
//! - [`view_model`]: pure functions from core results to display data.
//! - [`share`]: the state as text, for share links and autosave.
//! - [`browser`]: clocks, the address bar, storage, files.
//! - [`autosave_owner`]: which tab writes the autosave when several are open.
//! - [`recovered_work`]: the work of a closed tab that did not keep it.
//! - [`save_schedule`]: when the state is saved (never in the middle of a load).
//! - [`demo`]: the sample table the page opens with.
//! - `components`: Yew components, one file per panel.
//! - [`fatal`]: the panic hook that keeps a crash from leaving a blank page.
//!
//! [`start`] is what the browser build runs; [`mount`] renders the same
//! [`App`] into any element, which is how the browser tests use it.

pub mod autosave_owner;
pub mod browser;
mod components;
pub mod demo;
pub mod fatal;
pub mod recovered_work;
pub mod save_schedule;
pub mod share;
pub mod state;
pub mod view_model;

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use crate::components::Workspace;
use crate::save_schedule::{SAVE_DELAY_MS, SaveSchedule, SaveStep};
use crate::state::learn::LearnAction;
use crate::state::{Action, AppContext, AppState, Clock, Notice};
use crate::view_model::learn::PROGRESS_KEY;

pub use crate::fatal::{install_panic_hook, show_fatal_error};

/// The whole app: owns the state, runs its effects (boot, background work
/// per animation frame, saving to the address bar and autosave) and
/// provides the state to the components below.
#[component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| {
        let (embed, panels) = browser::embed_settings();
        AppState::new(Rc::new(browser::BrowserClock), embed, panels)
    });

    // Boot once, after the first render (the shell appears at once): the
    // learner's progress, then the link or the autosave.
    {
        let state = state.clone();
        use_effect_with((), move |()| {
            state.dispatch(Action::Learn(LearnAction::LoadProgress(
                browser::storage_get(PROGRESS_KEY),
            )));
            // This tab's own copy first (a reload of this tab), else the
            // shared autosave.
            let autosave = browser::session_get(browser::AUTOSAVE_KEY)
                .or_else(|| browser::storage_get(browser::AUTOSAVE_KEY));
            let (boot, notice) =
                state::boot::choose(&browser::fragment(), autosave.as_deref(), state.embed);
            state.dispatch(Action::Boot(boot));
            if let Some(notice) = notice {
                state.dispatch(Action::Notify(notice));
            }
        });
    }

    // The learner's progress is written whenever its saved part changes
    // (not on every frame of other work), once it has been read.
    let progress_written = use_mut_ref(String::new);
    {
        let learn = Rc::clone(&state.learn);
        use_effect_with(learn, move |learn| {
            if learn.loaded {
                let text = learn.saved.to_json();
                if *progress_written.borrow() != text {
                    browser::storage_set(PROGRESS_KEY, &text);
                    *progress_written.borrow_mut() = text;
                }
            }
        });
    }

    // A link pasted into the address bar of this page changes only the
    // fragment (no reload): boot from it in place. The app's own writes use
    // history.replaceState, which fires no hashchange.
    {
        let dispatcher = state.dispatcher();
        use_effect_with((), move |()| {
            let listener =
                gloo::events::EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
                    match share::decode(&browser::fragment()) {
                        Ok(shared) => dispatcher.dispatch(Action::OpenLink(Box::new(shared))),
                        Err(e) => dispatcher.dispatch(Action::Notify(Notice {
                            error: true,
                            text: format!("The link could not be read: {e}"),
                        })),
                    }
                });
            move || drop(listener)
        });
    }

    // A message in the status line goes by itself: its timer is the
    // toast's (components/toast.rs), which waits while it is read.

    // Background work while there is any: one slice per animation frame,
    // or, while rows are written in bulk, slices back to back as separate
    // tasks (each within its budget, so the page still draws between
    // them and no task grows long).
    let frame: Rc<RefCell<Option<gloo::render::AnimationFrame>>> = use_mut_ref(|| None);
    let posted: Rc<RefCell<bool>> = use_mut_ref(|| false);
    let poster: Rc<Option<browser::TaskPoster>> = {
        let dispatcher = state.dispatcher();
        let posted = Rc::clone(&posted);
        use_memo((), move |()| {
            browser::TaskPoster::new(move || {
                *posted.borrow_mut() = false;
                dispatcher.dispatch(Action::Work);
            })
        })
    };
    {
        let state = state.clone();
        let frame = Rc::clone(&frame);
        use_effect_with(state.rev(), move |_| {
            browser::measure_redraw_after_slice();
            browser::mark_settling(state.settling());
            let scheduled = frame.borrow().is_some() || *posted.borrow();
            if state.has_work() && !scheduled {
                let by_message = state.loading() && (*poster).as_ref().is_some_and(|p| p.post());
                if by_message {
                    *posted.borrow_mut() = true;
                } else {
                    let dispatcher = state.dispatcher();
                    let slot = Rc::clone(&frame);
                    *frame.borrow_mut() = Some(gloo::render::request_animation_frame(move |_| {
                        slot.borrow_mut().take();
                        dispatcher.dispatch(Action::Work);
                    }));
                }
            }
        });
    }

    let tab = {
        let state = state.clone();
        let leaving = state.clone();
        autosave_owner::use_autosave_owner(
            &state.clone(),
            Callback::from(move |tab| save(&state, &tab)),
            Callback::from(move |()| save_leaving(&leaving)),
        )
    };

    // Save the state to the address bar (a share link at all times) and to
    // autosave, once it has been still for a moment; while it keeps changing
    // (every frame of a playing simulation is a change), at least every few
    // seconds; while rows load in bulk, not at all until the load ends
    // (see [`save_schedule`]).
    let save_timer: Rc<RefCell<Option<gloo::timers::callback::Timeout>>> = use_mut_ref(|| None);
    let schedule: Rc<RefCell<SaveSchedule>> = use_mut_ref(SaveSchedule::default);
    {
        let state = state.clone();
        use_effect_with(
            (state.rev(), state.booted),
            move |&(_, booted): &(u64, bool)| {
                if booted {
                    let step = schedule
                        .borrow_mut()
                        .changed(js_sys::Date::now(), state.load_in_progress());
                    match step {
                        SaveStep::Hold => {
                            save_timer.borrow_mut().take();
                        }
                        SaveStep::Now => {
                            save_timer.borrow_mut().take();
                            save(&state, &tab);
                        }
                        SaveStep::AfterDelay => {
                            let handle = state.clone();
                            let tab = tab.clone();
                            let schedule = Rc::clone(&schedule);
                            *save_timer.borrow_mut() = Some(gloo::timers::callback::Timeout::new(
                                SAVE_DELAY_MS,
                                move || {
                                    schedule.borrow_mut().saved();
                                    save(&handle, &tab);
                                },
                            ));
                        }
                    }
                }
            },
        );
    }

    html! {
        <ContextProvider<AppContext> context={state}>
            <Workspace />
        </ContextProvider<AppContext>>
    }
}

/// What a tab that does not keep the autosave saves as it goes away: its
/// latest state, in its own copy only, noted as written with the link
/// already in the address bar (the one a reload opens, so a reload brings
/// this state back); the address bar is left as it is.
fn save_leaving(state: &AppContext) {
    // Mid-load, the copy saved before the load stays (see
    // [`save_schedule`]): it holds what the user made, whole.
    if state.embed || state.load_in_progress() {
        return;
    }
    let mut saved = state.to_shared(false);
    saved.link = Some(share::link_hash(&browser::fragment()));
    browser::session_set(browser::AUTOSAVE_KEY, &share::encode(&saved));
}

/// Writes the state into the fragment and (outside embeds) autosave,
/// which notes the link it was written with (so a reload can tell the
/// page's own link from someone else's): this tab's own copy always, the
/// shared one only while this tab owns it (see [`autosave_owner`]). When the browser refuses the
/// autosave (its storage is full), it is written again without the
/// tables' recorded traffic, then without the rows of work set aside,
/// then without any rows; the status line says so.
fn save(state: &AppContext, tab: &autosave_owner::TabId) {
    // Never in the middle of a load (the tab claiming the autosave then
    // saves when the load ends, see [`save_schedule`]).
    if state.load_in_progress() {
        return;
    }
    let clock = browser::BrowserClock;
    let start = clock.now_ms();
    write_saves(state, tab);
    clock.measure(save_schedule::SAVE_MEASURE, start);
}

/// The writing of [`save`].
fn write_saves(state: &AppContext, tab: &autosave_owner::TabId) {
    let link = share::encode(&state.to_shared(true));
    browser::set_fragment(&link);
    if state.embed {
        return;
    }
    let mut saved = state.to_shared(false);
    saved.link = Some(share::link_hash(&link));
    let text = share::encode(&saved);
    browser::session_set(browser::AUTOSAVE_KEY, &text);
    note_snapshot_left_out(state, saved.snapshot.is_none());
    if !tab.owns_autosave() {
        if !state.autosave_elsewhere {
            state.dispatch(Action::AutosaveElsewhere(true));
        }
        return;
    }
    if browser::storage_set(browser::AUTOSAVE_KEY, &text) {
        return;
    }
    // The recorded traffic goes first: the rows must not give way to it.
    if saved.snapshot.is_some() {
        saved.snapshot = state.saved_snapshot_without_traffic();
        if browser::storage_set(browser::AUTOSAVE_KEY, &share::encode(&saved)) {
            return;
        }
    }
    for aside in [&mut saved.home, &mut saved.replaced].into_iter().flatten() {
        aside.work.snapshot = None;
    }
    let stored = browser::storage_set(browser::AUTOSAVE_KEY, &share::encode(&saved)) || {
        saved.snapshot = None;
        note_snapshot_left_out(state, true);
        browser::storage_set(browser::AUTOSAVE_KEY, &share::encode(&saved))
    };
    let text = if stored {
        "The browser's storage is full: autosave now keeps only the tables' definitions, the data loads and the writes made by hand since the last load. Export snapshot keeps everything."
    } else {
        "The browser refused to store the playground: use Export snapshot to keep your work."
    };
    if state.notice.as_ref().is_none_or(|n| n.text != text) {
        state.dispatch(Action::Notify(Notice {
            error: true,
            text: text.into(),
        }));
    }
}

/// Tells the state whether the autosave just written holds the instance's
/// snapshot (the unsaved-work strip follows it), when that changed.
fn note_snapshot_left_out(state: &AppContext, left_out: bool) {
    if state.snapshot_left_out != left_out {
        state.dispatch(Action::SnapshotLeftOut(left_out));
    }
}

/// Renders [`App`] into `root` and returns the handle that keeps it alive.
pub fn mount(root: web_sys::Element) -> yew::AppHandle<App> {
    yew::Renderer::<App>::with_root(root).render()
}

/// Starts the app in the page: installs the panic hook, then mounts [`App`]
/// into `#app` (or `<body>` if the page has no such element).
pub fn start() {
    install_panic_hook();
    let document = gloo::utils::document();
    match document.get_element_by_id("app") {
        Some(root) => {
            // Drop the <noscript> fallback and anything else in the mount point.
            root.set_text_content(None);
            // The handle is not needed: dropping it leaves the app running
            // (only `AppHandle::destroy` stops it).
            let _app = mount(root);
        }
        None => {
            yew::Renderer::<App>::new().render();
        }
    }
}
