//! Work of a tab that closed while another tab kept the autosave.
//!
//! Such a tab's work lives in its own sessionStorage copy, which the
//! browser forgets with the tab (see [`crate::autosave_owner`]). When it
//! goes away (closed, after the user confirmed), it copies that work into a
//! slot of its own in localStorage, `tabletop.recovered.<tab id>`. Every
//! tab lists the slots as "Recovered work from another tab", at once (the
//! `storage` event) and on its next load, where the user opens one (the
//! playground's work is set aside, as for a link) or discards it. A tab
//! that is only reloading writes its slot too, and removes it when it
//! comes back with the same work (its sessionStorage names the slot).

use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::browser;
use crate::share::{self, SharedState};

/// The localStorage keys of the slots start with this, then the tab id.
pub const SLOT_PREFIX: &str = "tabletop.recovered.";

/// The sessionStorage key naming the slot this tab wrote when it went away
/// (so a reload of it takes its work back from there).
const OWN_SLOT_KEY: &str = "tabletop.recovered-slot";

/// One tab's recovered work.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovered {
    /// Its localStorage key.
    pub key: String,
    /// What it holds, in a few words for the list.
    pub summary: String,
    /// The work itself.
    pub work: SharedState,
}

/// What a recovered state holds, for the list: its tables by name.
#[must_use]
pub fn summary(work: &SharedState) -> String {
    let names: Vec<&str> = work
        .tables
        .iter()
        .filter_map(|t| t.get("tableId").and_then(serde_json::Value::as_str))
        .collect();
    match names.as_slice() {
        [] if work.sim.is_some() => "a key design, no tables".into(),
        [] => "no tables".into(),
        [one] => format!("1 table: {one}"),
        many => format!("{} tables: {}", many.len(), many.join(", ")),
    }
}

/// Copies this tab's own saved work (its sessionStorage autosave) into its
/// slot, as it goes away without keeping the shared autosave.
pub fn keep(tab_id: &str) {
    let Some(text) = browser::session_get(browser::AUTOSAVE_KEY) else {
        return;
    };
    let key = format!("{SLOT_PREFIX}{tab_id}");
    if browser::storage_set(&key, &text) {
        browser::session_set(OWN_SLOT_KEY, &key);
    }
}

/// Removes the slot this tab wrote before a reload: its work came back
/// through its own sessionStorage copy.
pub fn forget_own_slot() {
    if let Some(key) = browser::session_get(OWN_SLOT_KEY) {
        browser::storage_remove(&key);
        browser::session_remove(OWN_SLOT_KEY);
    }
}

/// Every slot that holds readable work, oldest key first. Slots that
/// cannot be read (damaged, from a newer Tabletop) are left alone.
#[must_use]
pub fn list() -> Vec<Recovered> {
    let mut found: Vec<Recovered> = browser::storage_keys()
        .into_iter()
        .filter(|k| k.starts_with(SLOT_PREFIX))
        .filter_map(|key| {
            let work = share::decode(&browser::storage_get(&key)?).ok()?;
            Some(Recovered {
                summary: summary(&work),
                key,
                work,
            })
        })
        .collect();
    found.sort_by(|a, b| a.key.cmp(&b.key));
    found
}

/// The recovered work, kept current as other tabs write or remove slots.
/// Embeds take no part (they never autosave).
#[hook]
pub fn use_recovered_work(embed: bool) -> UseStateHandle<Vec<Recovered>> {
    let found = use_state(Vec::new);
    {
        let found = found.clone();
        use_effect_with((), move |()| {
            let listener = (!embed).then(|| {
                forget_own_slot();
                found.set(list());
                gloo::events::EventListener::new(&gloo::utils::window(), "storage", move |e| {
                    let key = js_sys::Reflect::get(e.as_ref(), &JsValue::from_str("key"))
                        .ok()
                        .and_then(|k| k.as_string());
                    if key.is_none_or(|k| k.starts_with(SLOT_PREFIX)) {
                        found.set(list());
                    }
                })
            });
            move || drop(listener)
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_summary_names_the_tables() {
        let mut work = SharedState::default();
        assert_eq!(summary(&work), "no tables");
        work.tables.push(json!({"tableId": "orders", "table": {}}));
        assert_eq!(summary(&work), "1 table: orders");
        work.tables.push(json!({"tableId": "users"}));
        assert_eq!(summary(&work), "2 tables: orders, users");
    }
}
