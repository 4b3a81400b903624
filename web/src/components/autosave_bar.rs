//! The strip that says another tab keeps the autosave (see
//! `crate::autosave_owner`), with the way to take it back.

use yew::prelude::*;

/// Props of [`AutosaveBar`].
#[derive(Properties, PartialEq)]
pub struct AutosaveBarProps {
    /// Make this tab the one that keeps the autosave.
    pub on_take: Callback<()>,
}

/// Shown while another tab of the playground keeps the autosave.
#[component(AutosaveBar)]
pub fn autosave_bar(props: &AutosaveBarProps) -> Html {
    let on_take = {
        let cb = props.on_take.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    html! {
        <section class="autosave-bar" role="region" aria-label="Autosave in another tab">
            <p>
                <strong>{ "The playground is open in another tab, which now keeps the autosave." }</strong>
                { " Work in this tab is kept for this tab only (a reload brings it back) and in its link; \
                   a new tab opens the other tab's work." }
            </p>
            <button type="button" class="button small primary" onclick={on_take}>{ "Keep this tab's work as the autosave" }</button>
        </section>
    }
}
