//! The materialized views of the instance, in the Schema panel: each
//! view's source, kind, key, defining query, rows and lag. The lag comes
//! from the core's view status; it counts down as the background frames
//! move the instance clock on and the core applies the queued changes.

use yew::prelude::*;

use crate::view_model::format_count;
use crate::view_model::tools::ViewLine;

/// Props of [`ViewsList`].
#[derive(Properties, PartialEq)]
pub struct ViewsListProps {
    /// The views, by name.
    pub views: Vec<ViewLine>,
}

/// The list (nothing at all while there are no views).
#[component(ViewsList)]
pub fn views_list(props: &ViewsListProps) -> Html {
    if props.views.is_empty() {
        return html! {};
    }
    html! {
        <div class="views-list" id="views-list">
            <h3 class="section-title">{ "Materialized views" }</h3>
            <ul>
                { for props.views.iter().map(|v| html! {
                    <li class="view-item" key={v.name.clone()}>
                        <p class="view-head">
                            <span class="mono view-name">{ v.name.clone() }</span>
                            <span class="table-meta">{ format!(" {} of {} · key {} · {} rows", v.kind, v.source, v.key, format_count(v.rows)) }</span>
                        </p>
                        <p class={classes!("view-lag", if v.caught_up { "caught-up" } else { "behind" })} aria-live="polite">
                            { format!("Lag: {}", v.lag) }
                        </p>
                        if let Some(e) = &v.error {
                            <p class="field-error">{ e.clone() }</p>
                        }
                        <details>
                            <summary>{ "Definition" }</summary>
                            <pre class="mono view-query">{ v.query.clone() }</pre>
                        </details>
                    </li>
                }) }
            </ul>
        </div>
    }
}
