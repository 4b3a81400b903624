//! The design's data bar in the Key Visualizer panel: how many rows to
//! generate, "Create table with rows" (the design's table filled with
//! rows that follow its row-key template), "Replay workload on the
//! table", their progress, pause and stop.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::state::AppContext;
use crate::state::scenario_data::{Job, SIZES, ScenarioDataAction};
use crate::view_model::format::format_count;

/// Props of [`ScenarioDataBar`]. The slice itself (its progress moves on
/// every slice of a load) comes from the app's context, so the Key
/// Visualizer panel around the bar, whose props these are part of, is
/// not drawn again with every slice.
#[derive(Properties, PartialEq)]
pub struct ScenarioDataBarProps {
    /// Whether a design is chosen (otherwise the bar is not drawn).
    pub has_design: bool,
    /// The table the replay would use (made from the current design and
    /// still there).
    pub replay_table: Option<String>,
    /// The slice's actions.
    pub on_action: Callback<ScenarioDataAction>,
}

/// The bar.
#[component(ScenarioDataBar)]
pub fn scenario_data_bar(props: &ScenarioDataBarProps) -> Html {
    let app = use_context::<AppContext>();
    let Some(app) = app.filter(|_| props.has_design) else {
        return html! {};
    };
    let data: Rc<_> = Rc::clone(&app.scenario_data);
    let send = |action: ScenarioDataAction| {
        let on = props.on_action.clone();
        Callback::from(move |_: MouseEvent| on.emit(action.clone()))
    };
    let on_size = {
        let on = props.on_action.clone();
        Callback::from(move |e: Event| {
            let value = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                .and_then(|s| s.value().parse::<u64>().ok());
            if let Some(n) = value {
                on.emit(ScenarioDataAction::SetRows(n));
            }
        })
    };
    let busy = data.job.is_some();
    let progress = data.job.as_ref().map(|job| {
        let label = match job {
            Job::Start(_) | Job::Load(_) => "Rows written",
            Job::Replay(..) => "Requests replayed",
        };
        html! {
            <div class="progress" role="progressbar" aria-label={label}
                aria-valuemin="0" aria-valuemax="100" aria-valuenow={format!("{:.0}", data.fraction * 100.0)}>
                <div class="progress-fill" style={format!("width: {:.2}%", data.fraction * 100.0)}></div>
            </div>
        }
    });
    let buttons = match &data.job {
        Some(Job::Start(_) | Job::Load(_)) => html! {
            <button type="button" class="button small" onclick={send(ScenarioDataAction::Cancel)}>{ "Stop" }</button>
        },
        Some(Job::Replay(_, running)) => html! {
            <>
                <button type="button" class="button small" onclick={send(ScenarioDataAction::PauseReplay(*running))}>
                    { if *running { "Pause" } else { "Resume" } }
                </button>
                <button type="button" class="button small" onclick={send(ScenarioDataAction::Cancel)}>{ "Stop" }</button>
            </>
        },
        None => html! {
            <>
                <label class="inline">
                    <span class="visually-hidden">{ "Rows to generate" }</span>
                    <select aria-label="Rows to generate" onchange={on_size}>
                        { for SIZES.iter().map(|&n| html! {
                            <option value={n.to_string()} selected={n == data.rows}>{ format!("{} rows", format_count(n)) }</option>
                        }) }
                    </select>
                </label>
                <button type="button" class="button small" onclick={send(ScenarioDataAction::Load)}
                    title="Create the design's table (a new one, never over yours) and fill it with rows whose keys follow its row-key template">
                    { "Create table with rows" }
                </button>
                <button type="button" class="button small" onclick={send(ScenarioDataAction::Replay)}
                    disabled={props.replay_table.is_none()}
                    title={match &props.replay_table {
                        Some(t) => format!("Send the design's reads, writes and scans to {t}; the live Key Visualizer shows them"),
                        None => "Create the design's table with its rows first".to_string(),
                    }}>
                    { "Run workload on the table" }
                </button>
            </>
        },
    };
    html! {
        <div class="scenario-data" role="group" aria-label="The design as real data" data-busy={busy.to_string()}>
            <div class="sim-buttons">{ buttons }</div>
            if busy || !data.status.is_empty() {
                <div class="sim-progress scenario-data-progress">
                    { for progress }
                    <span class="scenario-data-text" aria-live="polite">{ data.status.clone() }</span>
                </div>
            }
        </div>
    }
}
