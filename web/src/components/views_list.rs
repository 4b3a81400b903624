//! The views of the instance, in the Schema panel: the materialized views
//! (each view's source, kind, key, defining query, rows and lag), the
//! logical views (each with its query) and the authorized views (each
//! table's, with the rows and columns they let through). The lag comes
//! from the core's view status; it counts down as the background frames
//! move the instance clock on and the core applies the queued changes.

use std::rc::Rc;

use yew::prelude::*;

use crate::view_model::format_count;
use crate::view_model::instance_views::{AuthorizedLine, LogicalLine, ViewLists};
use crate::view_model::tools::ViewLine;

/// Props of [`ViewsList`].
#[derive(Properties, PartialEq)]
pub struct ViewsListProps {
    /// The materialized, logical and authorized views (made once per
    /// change of the instance, see the workspace).
    pub lists: Rc<ViewLists>,
}

/// The lists (nothing at all while there are no views of a kind).
#[component(ViewsList)]
pub fn views_list(props: &ViewsListProps) -> Html {
    let lists = &props.lists;
    html! {
        <>
            { materialized(&lists.materialized) }
            { logical(&lists.logical) }
            { authorized(&lists.authorized) }
        </>
    }
}

/// The materialized views.
fn materialized(views: &[ViewLine]) -> Html {
    if views.is_empty() {
        return html! {};
    }
    html! {
        <div class="views-list" id="views-list">
            <h3 class="section-title">{ "Materialized views" }</h3>
            <ul>
                { for views.iter().map(|v| html! {
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

/// The logical views: saved queries other queries read in FROM.
fn logical(views: &[LogicalLine]) -> Html {
    if views.is_empty() {
        return html! {};
    }
    html! {
        <div class="views-list" id="logical-views-list">
            <h3 class="section-title">{ "Logical views" }</h3>
            <ul>
                { for views.iter().map(|v| html! {
                    <li class="view-item" key={v.name.clone()}>
                        <p class="view-head">
                            <span class="mono view-name">{ v.name.clone() }</span>
                            <span class="table-meta">{ if v.protected { " · protected from deletion" } else { "" } }</span>
                        </p>
                        <pre class="mono view-query">{ v.query.clone() }</pre>
                    </li>
                }) }
            </ul>
        </div>
    }
}

/// The authorized views: a table's rows and columns a reader may see.
fn authorized(views: &[AuthorizedLine]) -> Html {
    if views.is_empty() {
        return html! {};
    }
    html! {
        <div class="views-list" id="authorized-views-list">
            <h3 class="section-title">{ "Authorized views" }</h3>
            <ul>
                { for views.iter().map(|v| html! {
                    <li class="view-item" key={format!("{}/{}", v.table, v.name)}>
                        <p class="view-head">
                            <span class="mono view-name">{ v.name.clone() }</span>
                            <span class="table-meta">{ format!(" of {}{}", v.table, if v.protected { " · protected from deletion" } else { "" }) }</span>
                        </p>
                        <p class="table-meta">{ format!("{} · {}", v.rows, v.columns) }</p>
                    </li>
                }) }
            </ul>
        </div>
    }
}
