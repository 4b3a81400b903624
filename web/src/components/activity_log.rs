//! The activity panel: every call the app made into the core and what
//! came back, oldest first.

use yew::prelude::*;

use crate::state::{ActivityEntry, Outcome};

/// Props of [`ActivityLog`].
#[derive(Properties, PartialEq)]
pub struct ActivityLogProps {
    /// The calls so far.
    pub entries: Vec<ActivityEntry>,
}

/// Lists operations and outcomes.
#[component(ActivityLog)]
pub fn activity_log(props: &ActivityLogProps) -> Html {
    html! {
        <section class="panel activity-panel" aria-labelledby="activity-title">
            <h2 id="activity-title" class="panel-title">{ "Activity" }</h2>
            if props.entries.is_empty() {
                <p class="empty">{ "Nothing has run yet." }</p>
            } else {
                <ol class="activity" id="activity">
                    { for props.entries.iter().map(|entry| {
                        let (class, text) = match &entry.outcome {
                            Outcome::Ok(text) => ("ok", text),
                            Outcome::Error(text) => ("err", text),
                        };
                        html! {
                            <li class={classes!("entry", class)}>
                                <span class="op mono">{ &entry.operation }</span>
                                <span class="outcome">{ text }</span>
                            </li>
                        }
                    }) }
                </ol>
            }
        </section>
    }
}
