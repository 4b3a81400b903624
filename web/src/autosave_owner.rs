//! Which tab keeps the autosave, when the playground is open in several.
//!
//! Every tab writes its state to its own sessionStorage copy (a reload of
//! that tab opens it), but only one tab writes the shared localStorage
//! autosave that a new tab opens: the tab opened last (it opened the
//! autosave, so it carries that work on) or the one whose user took the
//! autosave back. The owner's id is in localStorage
//! ([`browser::AUTOSAVE_OWNER_KEY`]); the browser's `storage` event tells
//! the other tabs at once that they no longer own it, and they say so
//! ([`crate::state::AppState::autosave_elsewhere`]) until the user takes
//! it back. A tab that is not the owner asks before it closes, and once
//! the user goes on it leaves its work in a slot of its own
//! ([`crate::recovered_work`]), listed in the other tabs and on the next
//! load. Without this, two tabs overwrote each other's autosave and the
//! last writer won.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use crate::browser;
use crate::recovered_work;
use crate::state::{Action, AppContext};

/// This tab's id: random per page load, so a reloaded or duplicated tab
/// is a new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TabId(Rc<str>);

impl TabId {
    fn new() -> TabId {
        // 52 random bits are plenty to tell a handful of tabs apart.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let n = (js_sys::Math::random() * 4_503_599_627_370_496.0) as u64;
        TabId(format!("{n:x}").into())
    }

    /// Whether this tab may write the shared autosave: it owns it, or no
    /// tab does (then it claims it).
    pub fn owns_autosave(&self) -> bool {
        match browser::storage_get(browser::AUTOSAVE_OWNER_KEY) {
            Some(owner) => *owner == *self.0,
            None => browser::storage_set(browser::AUTOSAVE_OWNER_KEY, &self.0),
        }
    }

    fn claim(&self) {
        browser::storage_set(browser::AUTOSAVE_OWNER_KEY, &self.0);
    }
}

/// Runs the ownership for the app: claims the autosave once the state has
/// booted (and again when the user takes it back), hears other tabs'
/// claims, and guards closing a tab that does not own it. `save` writes
/// the state now; `save_leaving` writes this tab's own copy as it goes
/// away. Returns this tab's id. Embeds never autosave, so they
/// take no part.
#[hook]
pub fn use_autosave_owner(
    state: &AppContext,
    save: Callback<TabId>,
    save_leaving: Callback<()>,
) -> TabId {
    let tab = (*use_memo((), |()| TabId::new())).clone();
    let elsewhere = use_mut_ref(|| Rc::new(Cell::new(false)));
    let embed = state.embed;
    // The save of this render's state, for the moment the tab goes away.
    let latest_save = use_mut_ref(|| save_leaving.clone());
    *latest_save.borrow_mut() = save_leaving;

    // Another tab's claim: the storage event fires in every tab but the
    // writer.
    {
        let dispatcher = state.dispatcher();
        let tab = tab.clone();
        use_effect_with((), move |()| {
            let listener = (!embed).then(|| {
                gloo::events::EventListener::new(&gloo::utils::window(), "storage", move |e| {
                    if string_field(e, "key").as_deref() != Some(browser::AUTOSAVE_OWNER_KEY) {
                        return;
                    }
                    let owner = string_field(e, "newValue");
                    if owner.is_some_and(|o| *o != *tab.0) {
                        dispatcher.dispatch(Action::AutosaveElsewhere(true));
                    }
                })
            });
            move || drop(listener)
        });
    }

    // Claim after boot, and when the user takes the autosave back.
    {
        let tab = tab.clone();
        let flag = Rc::clone(&elsewhere.borrow());
        use_effect_with(
            (state.booted, state.autosave_elsewhere),
            move |&(booted, away): &(bool, bool)| {
                flag.set(away);
                if booted && !away && !embed {
                    tab.claim();
                    save.emit(tab);
                }
            },
        );
    }

    // Closing a tab whose work is only its own asks first.
    {
        let flag = Rc::clone(&elsewhere.borrow());
        use_effect_with((), move |()| {
            let listener = (!embed).then(|| {
                gloo::events::EventListener::new_with_options(
                    &gloo::utils::window(),
                    "beforeunload",
                    gloo::events::EventListenerOptions::enable_prevent_default(),
                    move |e| {
                        if flag.get() {
                            e.prevent_default();
                            let _ = js_sys::Reflect::set(
                                e.as_ref(),
                                &JsValue::from_str("returnValue"),
                                &JsValue::from_str(""),
                            );
                        }
                    },
                )
            });
            move || drop(listener)
        });
    }

    // A tab going away that does not keep the autosave (the user went on
    // past the question above) saves its latest state and leaves it in
    // its recovery slot.
    {
        let flag = Rc::clone(&elsewhere.borrow());
        let tab = tab.clone();
        use_effect_with((), move |()| {
            let listener = (!embed).then(|| {
                gloo::events::EventListener::new(&gloo::utils::window(), "pagehide", move |_| {
                    if flag.get() {
                        latest_save.borrow().emit(());
                        recovered_work::keep(&tab.0);
                    }
                })
            });
            move || drop(listener)
        });
    }
    tab
}

/// A string property of an event (`key`, `newValue` of a storage event),
/// read without a web-sys binding for the event type.
fn string_field(event: &web_sys::Event, name: &str) -> Option<String> {
    js_sys::Reflect::get(event.unchecked_ref(), &JsValue::from_str(name))
        .ok()?
        .as_string()
}
