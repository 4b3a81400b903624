//! The strip that lists work other tabs left when they closed without
//! keeping the autosave (see `crate::recovered_work`), each to open or
//! discard.

use yew::prelude::*;

use crate::browser;
use crate::recovered_work::{self, Recovered};
use crate::share::SharedState;

/// Props of [`RecoveredBar`].
#[derive(Properties, PartialEq)]
pub struct RecoveredBarProps {
    /// Embeds never autosave, so they list nothing.
    pub embed: bool,
    /// Open recovered work (the playground's own work is set aside).
    pub on_open: Callback<Box<SharedState>>,
}

/// Shown while some closed tab's work waits in its recovery slot.
#[component(RecoveredBar)]
pub fn recovered_bar(props: &RecoveredBarProps) -> Html {
    let found = recovered_work::use_recovered_work(props.embed);
    if found.is_empty() {
        return html! {};
    }
    let item = |r: &Recovered| {
        let open = {
            let found = found.clone();
            let on_open = props.on_open.clone();
            let r = r.clone();
            Callback::from(move |_: MouseEvent| {
                browser::storage_remove(&r.key);
                found.set(recovered_work::list());
                on_open.emit(Box::new(r.work.clone()));
            })
        };
        let discard = {
            let found = found.clone();
            let key = r.key.clone();
            Callback::from(move |_: MouseEvent| {
                browser::storage_remove(&key);
                found.set(recovered_work::list());
            })
        };
        html! {
            <li key={r.key.clone()}>
                <span class="recovered-summary">{ &r.summary }</span>
                <button type="button" class="button small primary" onclick={open}
                    aria-label={format!("Open recovered work ({})", r.summary)}>{ "Open" }</button>
                <button type="button" class="button small" onclick={discard}
                    aria-label={format!("Discard recovered work ({})", r.summary)}>{ "Discard" }</button>
            </li>
        }
    };
    html! {
        <section class="autosave-bar recovered-bar" role="region" aria-label="Recovered work from another tab">
            <p>
                <strong>{ "Recovered work from another tab." }</strong>
                { " A tab that did not keep the autosave was closed with this work in it. \
                   Opening it sets this tab's work aside (one click brings it back)." }
            </p>
            <ul class="recovered-list">
                { for found.iter().map(item) }
            </ul>
        </section>
    }
}
