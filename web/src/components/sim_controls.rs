//! The simulation's controls: the scenario picker (the shipped scenario
//! files; picking one makes it the shared design), play and pause, one
//! step, reset, the speed, and the progress in simulated time.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::state::sim::SimAction;
use crate::view_model::sim::{SimSnapshot, Speed, scenario_choices};

/// Props of [`SimControls`].
#[derive(Properties, PartialEq)]
pub struct SimControlsProps {
    /// The run as of the last slice (`None`: nothing loaded).
    pub snapshot: Option<Rc<SimSnapshot>>,
    /// Where the design came from (a scenario file's name when picked
    /// here).
    pub source: String,
    /// Whether the run is playing.
    pub playing: bool,
    /// Whether it is running to a link's position.
    pub seeking: bool,
    /// The speed.
    pub speed: Speed,
    /// The simulation's actions.
    pub on_sim: Callback<SimAction>,
}

fn select_value(e: &Event) -> Option<String> {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
        .map(|s| s.value())
}

/// The controls.
#[component(SimControls)]
pub fn sim_controls(props: &SimControlsProps) -> Html {
    let choices = scenario_choices();
    let known = choices.iter().any(|c| c.file == props.source);
    let on_pick = {
        let on_sim = props.on_sim.clone();
        Callback::from(move |e: Event| {
            if let Some(file) = select_value(&e).filter(|f| !f.is_empty()) {
                on_sim.emit(SimAction::PickScenario(file));
            }
        })
    };
    let on_speed = {
        let on_sim = props.on_sim.clone();
        Callback::from(move |e: Event| {
            if let Some(slug) = select_value(&e) {
                on_sim.emit(SimAction::Speed(Speed::from_slug(&slug)));
            }
        })
    };
    let send = |action: SimAction| {
        let on_sim = props.on_sim.clone();
        Callback::from(move |_: MouseEvent| on_sim.emit(action.clone()))
    };
    let loaded = props.snapshot.is_some();
    let finished = props.snapshot.as_ref().is_some_and(|s| s.finished);
    let duration = props
        .snapshot
        .as_ref()
        .map_or(3600.0, |s| s.duration_seconds);
    let option = |c: &crate::view_model::sim::ScenarioChoice| {
        html! {
            <option value={c.file} selected={c.file == props.source} title={c.description.clone()}>
                { c.title.clone() }
            </option>
        }
    };
    html! {
        <div class="sim-controls" role="group" aria-label="Simulation controls">
            <label class="field sim-pick">
                <span>{ "Scenario" }</span>
                <select onchange={on_pick} aria-label="Scenario">
                    if !known {
                        <option value="" selected=true>
                            { if props.source.is_empty() { "Choose a scenario…".to_string() } else { format!("Current design ({})", props.source) } }
                        </option>
                    }
                    <optgroup label="Examples">
                        { for choices.iter().filter(|c| !c.lesson).map(option) }
                    </optgroup>
                    <optgroup label="Lesson designs">
                        { for choices.iter().filter(|c| c.lesson).map(option) }
                    </optgroup>
                </select>
            </label>
            <div class="sim-buttons">
                if props.playing {
                    <button type="button" class="button small primary" onclick={send(SimAction::Pause)} disabled={!loaded}>{ "Pause" }</button>
                } else {
                    <button type="button" class="button small primary" onclick={send(SimAction::Play)} disabled={!loaded || props.seeking}
                        title={if finished { "Run again from the start" } else { "Run the simulation" }}>
                        { if finished { "Replay" } else { "Play" } }
                    </button>
                }
                <button type="button" class="button small" onclick={send(SimAction::Step)} disabled={!loaded || finished}
                    title="Advance one heatmap column">{ "Step" }</button>
                <button type="button" class="button small" onclick={send(SimAction::Reset)} disabled={!loaded}
                    title="Back to the start of the run">{ "Reset" }</button>
                <label class="inline sim-speed">
                    <span class="visually-hidden">{ "Speed" }</span>
                    <select onchange={on_speed} aria-label="Speed">
                        { for Speed::ALL.into_iter().map(|s| html! {
                            <option value={s.slug()} selected={s == props.speed}>
                                // The simulated time per second needs the run's length.
                                { if loaded { s.label(duration) } else { s.short_label() } }
                            </option>
                        }) }
                    </select>
                </label>
            </div>
            if let Some(s) = &props.snapshot {
                <div class="sim-progress">
                    <div class="progress" role="progressbar" aria-label="Simulated time"
                        aria-valuemin="0" aria-valuemax="100" aria-valuenow={format!("{:.0}", s.progress * 100.0)}
                        aria-valuetext={s.progress_label()}>
                        <div class="progress-fill" style={format!("width: {:.2}%", s.progress * 100.0)}></div>
                    </div>
                    <span class="sim-progress-text">
                        { s.progress_label() }
                        if props.seeking { { " · catching up with the link…" } }
                    </span>
                </div>
            }
        </div>
    }
}
