//! The change stream feed beside the console's transcript: the selected
//! table's newest recorded changes, newest first, each with its commit
//! time, kind (USER or GC), row key and what changed; a new change comes in
//! at the top as it commits. A table without a change stream gets an offer
//! to turn one on (through updateTable, which the transcript shows).

use std::rc::Rc;

use yew::prelude::*;

use super::key_view::key_html;
use crate::view_model::change_feed::{ChangeFeed, FeedLine, OFFERED_RETENTION_DAYS};
use crate::view_model::format_count;

/// Props of [`ChangeFeedPane`].
#[derive(Properties, PartialEq)]
pub struct ChangeFeedPaneProps {
    /// What to show.
    pub feed: Rc<ChangeFeed>,
    /// Turn a table's change stream on (days kept) or off (`None`).
    pub on_change_stream: Callback<(String, Option<u32>)>,
}

/// The feed.
#[component(ChangeFeedPane)]
pub fn change_feed_pane(props: &ChangeFeedPaneProps) -> Html {
    let feed = &props.feed;
    let Some(table) = feed.table.clone() else {
        return html! {
            <aside class="change-feed" aria-label="Change stream">
                <h3 class="cf-title">{ "Change stream" }</h3>
                <p class="hint">{ "Create a table first: its changes show here once it records them." }</p>
            </aside>
        };
    };
    let set = |days: Option<u32>| {
        let cb = props.on_change_stream.clone();
        let table = table.clone();
        Callback::from(move |_: MouseEvent| cb.emit((table.clone(), days)))
    };
    let body = match feed.retention_days {
        None => html! {
            <div class="cf-offer">
                <p>{ "Bigtable can record every change to a table in commit order (writes, deletes, and the cells garbage collection removes) for 1 to 7 days, for ReadChangeStream to replay. This table does not record its changes." }</p>
                <button type="button" class="button primary small" onclick={set(Some(OFFERED_RETENTION_DAYS))}>
                    { format!("Record changes of {table} (keep {OFFERED_RETENTION_DAYS} day)") }
                </button>
            </div>
        },
        Some(_) if feed.lines.is_empty() => html! {
            <p class="hint">{ format!("No changes yet. Write to {table} (a set, a delete, a load of sample data) and each change appears here as it commits; Compact now shows what GC removes.") }</p>
        },
        Some(_) => html! {
            <div class="cf-log" role="log" aria-label={format!("Changes to {table}, newest first")} tabindex="0">
                <ol class="cf-lines">
                    { for feed.lines.iter().map(line_html) }
                </ol>
            </div>
        },
    };
    html! {
        <aside class="change-feed" aria-label="Change stream">
            <div class="cf-head">
                <h3 class="cf-title">{ "Change stream " }<span class="mono">{ table.clone() }</span></h3>
                if let Some(days) = feed.retention_days {
                    <span class="cf-meta">
                        { format!("{} kept · {} {}", format_count(feed.kept as u64), days, if days == 1 { "day" } else { "days" }) }
                    </span>
                    <button type="button" class="button small subtle" onclick={set(None)}
                        title="Stop recording changes (updateTable without changeStreamConfig); the recorded ones are dropped">
                        { "Turn off" }
                    </button>
                }
            </div>
            { body }
        </aside>
    }
}

fn line_html(line: &FeedLine) -> Html {
    let kind = line.kind.label();
    html! {
        <li class="cf-line" key={line.sequence.to_string()}>
            <span class="cf-when">
                <time class="cf-time mono" title={line.when.clone()}>{ line.time.clone() }</time>
                <span class={classes!("cf-kind", kind.to_ascii_lowercase())} title={line.kind.title()}>{ kind }</span>
                <span class="cf-key mono" title={line.key.text.clone()}>{ key_html(&line.key) }</span>
            </span>
            <span class="cf-summary mono">{ line.summary.clone() }</span>
        </li>
    }
}
