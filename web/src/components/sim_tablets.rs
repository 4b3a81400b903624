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
//!
//! Simulated tablets have no rows behind them, so choosing one (a click,
//! or the arrow keys on the bar) shows its key range, node and load, not
//! rows; a line under the bar says so, and offers the design's real table
//! when *Create table with rows* made one (its tablets do show rows).

use std::rc::Rc;

use yew::prelude::*;

use super::key_view::key_html;
use super::sim_controls::SimControls;
use super::tablets_panel::SplitLine;
use crate::state::sim::{SimAction, SimState, TabletsView};
use crate::view_model::keys::{DisplayKey, key_parts};
use crate::view_model::keyviz::short_number;
use crate::view_model::sim::{SimSnapshot, SimTablet, event_lines, node_bars, node_class, sim_bar};
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
    /// The real table *Create table with rows* made from the current
    /// design, if it is still there.
    #[prop_or_default]
    pub real_table: Option<AttrValue>,
    /// Shows that table's tablets (and selects it).
    #[prop_or_default]
    pub on_show_table: Callback<AttrValue>,
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
                <SimBar snapshot={Rc::clone(snapshot)} real_table={props.real_table.clone()}
                    on_show_table={props.on_show_table.clone()} />
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

/// Props of [`SimBar`].
#[derive(Properties, PartialEq)]
struct SimBarProps {
    snapshot: Rc<SimSnapshot>,
    real_table: Option<AttrValue>,
    on_show_table: Callback<AttrValue>,
}

/// The simulated key space as a bar of tablets coloured by node, its
/// split points labelled, the chosen tablet's line, what simulated
/// tablets are, and a CPU bar per node. A tablet is chosen by id, so it
/// stays chosen while the simulation plays (until a split or merge ends
/// it).
#[component(SimBar)]
fn sim_bar_area(props: &SimBarProps) -> Html {
    let chosen_id = use_state(|| None::<u64>);
    let snapshot = &props.snapshot;
    let bar = sim_bar(snapshot);
    let layout: Vec<_> = bar.iter().map(|t| t.segment.clone()).collect();
    let labels = labelled_splits(&layout, LABEL_GAP);
    let nodes = node_bars(&snapshot.nodes);
    let chosen = chosen_id.and_then(|id| bar.iter().position(|t| t.id == id));
    let n = bar.len();
    let ids: Rc<Vec<u64>> = Rc::new(bar.iter().map(|t| t.id).collect());
    let choose = {
        let chosen_id = chosen_id.clone();
        let ids = Rc::clone(&ids);
        move |i: usize| chosen_id.set(ids.get(i).copied())
    };
    let onkeydown = {
        let choose = choose.clone();
        Callback::from(move |e: KeyboardEvent| {
            let next = match (e.key().as_str(), chosen) {
                ("ArrowRight" | "ArrowDown", Some(at)) => (at + 1).min(n.saturating_sub(1)),
                ("ArrowLeft" | "ArrowUp", Some(at)) => at.saturating_sub(1),
                ("ArrowRight" | "ArrowDown" | "ArrowLeft" | "ArrowUp" | "Home", None) => 0,
                ("Home", _) => 0,
                ("End", _) => n.saturating_sub(1),
                _ => return,
            };
            e.prevent_default();
            choose(next);
        })
    };
    let onclick = {
        let layout = layout.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(percent) = crate::browser::click_percent_across(&e, ".sim-bar") else {
                return;
            };
            choose(
                layout
                    .partition_point(|s| s.left <= percent)
                    .saturating_sub(1),
            );
        })
    };
    html! {
        <div class="bar-area">
            <div class="tablet-bar sim-bar" role="group" tabindex="0" {onkeydown} {onclick}
                aria-label={format!("Simulated key space: {} coloured by node; arrow keys choose one and show its key range and node", count_noun(n as u64, "tablet"))}>
                { for bar.iter().enumerate().map(|(i, t)| html! {
                    // Keyed by the tablet: a split or merge
                    // adds or drops blocks, the rest stay.
                    <div key={t.id}
                        class={classes!("tablet", node_class(t.node), t.change.map(|c| c.class()), (Some(i) == chosen).then_some("chosen"))}
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
            { chosen_line(chosen.and_then(|i| Some((bar.get(i)?, snapshot.tablets.get(i)?)))) }
            { simulated_hint(props.real_table.as_ref(), &props.on_show_table) }
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

/// The chosen simulated tablet in one line: key range, node, size and
/// load (a live region, present while nothing is chosen, so choosing is
/// read out).
fn chosen_line(chosen: Option<(&SimTablet, &tabletop_core::sim::TabletView)>) -> Html {
    let key = |text: &str| {
        let key = DisplayKey {
            text: text.to_string(),
            parts: key_parts(text),
        };
        html! { <span class="mono key-inline">{ key_html(&key) }</span> }
    };
    html! {
        <p class="tablet-detail sim-tablet-detail" aria-live="polite">
            if let Some((t, v)) = chosen {
                <span class="mono">{ format!("#{}", t.id) }</span>
                { " from " }
                if v.start_key.is_empty() { { "the first key" } } else { { key(&v.start_key) } }
                { " to " }
                { match &v.end_key { Some(e) => key(e), None => html! { "the end" } } }
                <span class="tablet-node">{ format!(" · node {}", t.node) }</span>
                { format!(" · {} · {} rows · {:.0}% of a node", tabletop_core::human_bytes(v.bytes.max(0.0)), short_number(v.rows), v.load * 100.0) }
            }
        </p>
    }
}

/// What simulated tablets are, in one line, with the way to real ones:
/// the design's table when it exists, else the button that makes it.
fn simulated_hint(real_table: Option<&AttrValue>, on_show_table: &Callback<AttrValue>) -> Html {
    match real_table {
        Some(table) => {
            let onclick = {
                let (on, table) = (on_show_table.clone(), table.clone());
                Callback::from(move |_: MouseEvent| on.emit(table.clone()))
            };
            html! {
                <p class="hint sim-tablets-hint">
                    { "Simulated tablets: no rows behind them. " }
                    <button type="button" class="link-button" {onclick}>{ format!("Show the tablets of {table}") }</button>
                    { ", the table made from this design, to see their rows." }
                </p>
            }
        }
        None => html! {
            <p class="hint sim-tablets-hint">
                { "Simulated tablets: no rows behind them. Create table with rows (in the Key Visualizer) to see their rows." }
            </p>
        },
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
