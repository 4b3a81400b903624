//! The Tablets panel while a simulation is loaded: the simulated key
//! space as a bar of tablets coloured by the node serving each (a
//! colour-blind-safe palette, with the node number in the hover text),
//! split points labelled, a CPU bar per node (the part past 100% is
//! throttled and drawn hatched), and the balancer's splits, merges and
//! moves: tablets that just changed are outlined for a moment, and the
//! event list names them.
//!
//! A switch in the header goes back to the real instance's tablets (the
//! first half's panel), which shows the same switch.

use std::rc::Rc;

use yew::prelude::*;

use super::key_view::key_html;
use super::sim_controls::SimControls;
use super::tablets_panel::SplitLine;
use crate::state::sim::{SimAction, SimState, TabletsView};
use crate::view_model::keys::{DisplayKey, key_parts};
use crate::view_model::sim::{SimSnapshot, event_lines, node_bars, node_class, sim_bar};
use crate::view_model::tablets::labelled_splits;
use crate::view_model::{count_noun, format_count};

/// Smallest distance between two split labels, in percent of the bar.
const LABEL_GAP: f64 = 16.0;

/// The "Simulation | Table" switch of the Tablets panel's header.
#[derive(Properties, PartialEq)]
pub struct TabletsSwitchProps {
    /// What is shown.
    pub view: TabletsView,
    /// The simulation's actions.
    pub on_sim: Callback<SimAction>,
}

/// Two buttons, the pressed one showing.
#[component(TabletsSwitch)]
pub fn tablets_switch(props: &TabletsSwitchProps) -> Html {
    let button = |view: TabletsView, text: &'static str, title: &'static str| {
        let on_sim = props.on_sim.clone();
        let onclick =
            Callback::from(move |_: MouseEvent| on_sim.emit(SimAction::TabletsView(view)));
        let pressed = props.view == view;
        html! {
            <button type="button" class={classes!("seg-button", pressed.then_some("pressed"))}
                aria-pressed={pressed.to_string()} {onclick} {title}>{ text }</button>
        }
    };
    html! {
        <div class="seg-switch" role="group" aria-label="Tablets to show">
            { button(TabletsView::Simulation, "Simulation", "The simulated cluster's tablets and nodes") }
            { button(TabletsView::Table, "Table", "The selected table's tablets in this playground") }
        </div>
    }
}

/// Props of [`SimTabletsPanel`].
#[derive(Properties, PartialEq)]
pub struct SimTabletsPanelProps {
    /// The simulation slice.
    pub sim: Rc<SimState>,
    /// Whether to show the simulation controls here (when the Key
    /// Visualizer, which has them, is not on screen).
    pub with_controls: bool,
    /// The simulation's actions.
    pub on_sim: Callback<SimAction>,
    /// The header's maximize button (empty where the panel cannot take
    /// the workspace).
    #[prop_or_default]
    pub maximize: Html,
}

/// The panel.
#[component(SimTabletsPanel)]
pub fn sim_tablets_panel(props: &SimTabletsPanelProps) -> Html {
    let sim = &props.sim;
    let meta = sim.snapshot.as_ref().map(|s| {
        format!(
            "{} on {} · {} splits, {} merges, {} moves",
            count_noun(s.tablets.len() as u64, "tablet"),
            count_noun(s.nodes.len() as u64, "node"),
            format_count(s.counts.splits as u64),
            format_count(s.counts.merges as u64),
            format_count(s.counts.moves as u64)
        )
    });
    let body = match &sim.snapshot {
        None => html! {
            <p class="empty">{ sim.error.clone().unwrap_or_else(|| "No simulation is loaded.".into()) }</p>
        },
        Some(snapshot) => html! {
            <div class="sim-tablets-body" tabindex="0" role="group" aria-label="Simulated tablets and nodes">
                { bar_area(snapshot) }
                <div class="sim-side">
                    { views_list(snapshot) }
                    { balancer_events(snapshot) }
                </div>
            </div>
        },
    };
    html! {
        <section class="panel tablets-panel sim-tablets-panel" aria-label="Tablets">
            <header class="panel-head">
                <h2 class="panel-title">{ "Tablets" }</h2>
                if let Some(meta) = meta {
                    <span class="panel-meta" title={meta.clone()}>{ meta }</span>
                }
                <TabletsSwitch view={sim.tablets_view} on_sim={props.on_sim.clone()} />
                { props.maximize.clone() }
            </header>
            if props.with_controls {
                <SimControls snapshot={sim.snapshot.clone()} source={sim.source.clone()} playing={sim.playing}
                    seeking={sim.seek_to.is_some()} speed={sim.speed} on_sim={props.on_sim.clone()} />
            }
            { body }
        </section>
    }
}

/// The simulated key space as a bar of tablets coloured by node, its
/// split points labelled, and a CPU bar per node.
fn bar_area(snapshot: &SimSnapshot) -> Html {
    let bar = sim_bar(snapshot);
    let layout: Vec<_> = bar.iter().map(|t| t.segment.clone()).collect();
    let labels = labelled_splits(&layout, LABEL_GAP);
    let nodes = node_bars(&snapshot.nodes);
    html! {
        <div class="bar-area">
            <div class="tablet-bar sim-bar" role="img"
                aria-label={format!("Simulated key space: {} coloured by node", count_noun(bar.len() as u64, "tablet"))}>
                { for bar.iter().map(|t| html! {
                    // Keyed by the tablet: a split or merge
                    // adds or drops blocks, the rest stay.
                    <div key={t.id}
                        class={classes!("tablet", node_class(t.node), t.change.map(|c| c.class()))}
                        style={format!("left: {:.4}%; width: {:.4}%", t.segment.left, t.segment.width)}
                        title={t.title.clone()} data-node={t.node.to_string()}></div>
                }) }
            </div>
            <div class="split-labels" aria-hidden="true">
                { for labels.iter().filter_map(|&i| bar.get(i)).map(|t| {
                    let key = DisplayKey { text: t.start.clone(), parts: key_parts(&t.start) };
                    html! {
                        <span class="split-label mono" style={format!("left: {:.4}%", t.segment.left)} title={t.start.clone()}>
                            { key_html(&key) }
                        </span>
                    }
                }) }
            </div>
            <div class="node-bars" role="list" aria-label="Node CPU">
                { for nodes.iter().map(|n| html! {
                    <div class={classes!("node-bar", n.throttled.then_some("throttled"))} role="listitem"
                        aria-label={format!("Node {}: {}", n.node, n.label)}>
                        <span class={classes!("node-swatch", node_class(n.node))} aria-hidden="true"></span>
                        <span class="node-name">{ format!("node {}", n.node) }</span>
                        <span class="cpu-track" aria-hidden="true">
                            <span class={classes!("cpu-fill", node_class(n.node))} style={format!("width: {:.2}%", n.fill)}></span>
                            <span class="cpu-over" style={format!("left: {:.2}%; width: {:.2}%", n.fill, n.over)}></span>
                            <span class="cpu-full" style={format!("left: {:.2}%", n.full_mark)} title="100%"></span>
                        </span>
                        <span class="node-label" title={n.label.clone()}>{ n.short.clone() }</span>
                    </div>
                }) }
            </div>
        </div>
    }
}

/// The simulated materialized views and how far behind each is, if there
/// are any.
fn views_list(snapshot: &SimSnapshot) -> Html {
    if snapshot.views.is_empty() {
        return Html::default();
    }
    html! {
        <div class="sim-views">
            <h3 class="section-title">{ "Materialized views" }</h3>
            <ul class="sim-view-list" aria-label="Materialized views">
                { for snapshot.views.iter().map(|v| html! {
                    <li class={classes!("sim-view", v.behind.then_some("behind"))} title={v.detail.clone()}>
                        <span class="sim-view-name">{ v.name.clone() }</span>
                        <span class="sim-view-state">{ v.state.clone() }</span>
                    </li>
                }) }
            </ul>
        </div>
    }
}

/// The balancer's latest splits, merges and moves, newest first.
fn balancer_events(snapshot: &SimSnapshot) -> Html {
    let events = event_lines(&snapshot.recent);
    // The events' numbers in the whole run (the list is newest first), to
    // key the list: new events are inserted at the top instead of every
    // line being rewritten.
    let total = snapshot.counts.splits + snapshot.counts.merges + snapshot.counts.moves;
    html! {
        <div class="sim-events">
            <h3 class="section-title">{ "Balancer events" }</h3>
            <SplitLine note={snapshot.split_note()} />
            if events.is_empty() {
                <p class="hint">{ "No splits, merges or moves yet." }</p>
            } else {
                <ol class="event-list" aria-label="Latest balancer events, newest first">
                    { for events.iter().enumerate().map(|(i, e)| html! {
                        <li key={total.saturating_sub(i)} class={classes!("event", format!("event-{}", e.kind))}>
                            <span class="event-at mono">{ e.at.clone() }</span>
                            <span class="event-kind">{ e.kind }</span>
                            <span class="event-text mono" title={e.text.clone()}>{ e.text.clone() }</span>
                        </li>
                    }) }
                </ol>
            }
        </div>
    }
}
