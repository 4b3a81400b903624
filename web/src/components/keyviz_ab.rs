//! The Key Visualizer's A/B view: two row-key designs on one workload.
//! The two design pickers and Run (Stop while running, with the progress),
//! then the verdict, the two heatmaps side by side on one colour scale
//! (stacked in a narrow panel) with each design's key, tablets and node
//! load under its map, and the table of every workload and access pattern
//! with who wins it and why.

use std::rc::Rc;

use yew::prelude::*;

use super::keyviz_panel::{Heatmap, KeyVizTable, select_value, toolbar};
use crate::state::ab::{AbAction, AbState, Pick};
use crate::state::live::MapAction;
use crate::view_model::ab::{
    AbDesign, AbMaps, AbView, DesignCard, PatternRow, ab_options, ab_view, progress_text,
};
use crate::view_model::keyviz::{MapData, legend};

/// Props of [`AbBody`].
#[derive(Properties, PartialEq)]
pub struct AbBodyProps {
    /// The A/B slice.
    pub ab: Rc<AbState>,
    /// Its actions.
    pub on_ab: Callback<AbAction>,
    /// The current design's name, if there is one.
    #[prop_or_default]
    pub current: Option<AttrValue>,
}

/// The view.
#[component(AbBody)]
pub fn ab_body(props: &AbBodyProps) -> Html {
    let ab = &props.ab;
    let view = use_memo(ab.comparison.as_ref().map(|c| Rc::as_ptr(c) as usize), {
        let comparison = ab.comparison.clone();
        move |_| comparison.as_deref().map(ab_view)
    });
    // One callback for the run's life: a new one every frame would draw
    // both heatmaps again every frame (their props compare it).
    let on_map = use_memo(props.on_ab.clone(), |on_ab| on_ab.reform(AbAction::Map));
    html! {
        <div class="ab-view" data-maps-ms={format!("{:.2}", ab.maps_ms)} data-finish-ms={format!("{:.2}", ab.finish_ms)}>
            { controls(ab, &props.on_ab, props.current.as_deref()) }
            if let Some(e) = &ab.error {
                <p class="error" role="alert">{ e.clone() }</p>
            }
            if let Some(v) = view.as_ref() {
                { verdict(v) }
            }
            { maps_part(ab, view.as_ref().as_ref(), &on_map) }
            if let Some(v) = view.as_ref() {
                { patterns_table(&v.patterns) }
            }
        </div>
    }
}

/// The toolbar, the shared legend and both maps; before any run, what the
/// view does.
fn maps_part(ab: &AbState, view: Option<&AbView>, on_map: &Callback<MapAction>) -> Html {
    match &ab.maps {
        Some(maps) => html! {
            <>
                { toolbar(ab.keyviz, on_map) }
                { shared_legend(maps, ab) }
                { pair(maps, ab, view, on_map) }
            </>
        },
        None if ab.error.is_none() => intro(),
        None => html! {},
    }
}

/// The two pickers, Swap, Run or Stop, and the progress.
fn controls(ab: &AbState, on_ab: &Callback<AbAction>, current: Option<&str>) -> Html {
    let options = ab_options(current);
    let picker = |pick: Pick, chosen: &AbDesign, label: &'static str| {
        let on_ab = on_ab.clone();
        let onchange = Callback::from(move |e: Event| {
            if let Some(v) = select_value(&e) {
                on_ab.emit(AbAction::Pick(pick, AbDesign::from_value(&v)));
            }
        });
        let chosen = chosen.value();
        html! {
            <label class="ab-pick">
                <span class="ab-side">{ label }</span>
                <select {onchange} aria-label={format!("Design {label}")} disabled={ab.running}>
                    { for options.iter().map(|o| html! {
                        <option value={o.value.clone()} selected={o.value == chosen}>{ o.label.clone() }</option>
                    }) }
                </select>
            </label>
        }
    };
    let emit = |action: AbAction| {
        let on_ab = on_ab.clone();
        Callback::from(move |_: MouseEvent| on_ab.emit(action.clone()))
    };
    let phase = ab.phase();
    html! {
        <div class="ab-controls">
            { picker(Pick::A, &ab.a, "A") }
            { picker(Pick::B, &ab.b, "B") }
            <div class="ab-buttons">
                <button type="button" class="button small" onclick={emit(AbAction::Swap)} disabled={ab.running}
                    title="Swap design A and design B">{ "Swap" }</button>
                // One button that turns from Run into Stop and back, so
                // the keyboard focus stays on it.
                <button type="button" class={classes!("button", "small", (!ab.running).then_some("primary"))}
                    onclick={emit(if ab.running { AbAction::Stop } else { AbAction::Run })}
                    title={if ab.running { "Stop both runs where they are" } else { "Run both designs on their common workload" }}>
                    { if ab.running { "Stop" } else { "Run A/B" } }
                </button>
            </div>
            if let Some(phase) = phase {
                <div class="sim-progress ab-progress">
                    <div class="progress" role="progressbar" aria-label="A/B run"
                        aria-valuemin="0" aria-valuemax="100" aria-valuenow={format!("{:.0}", ab.progress * 100.0)}
                        aria-valuetext={progress_text(ab.progress, ab.seconds, phase)}>
                        <div class="progress-fill" style={format!("width: {:.2}%", ab.progress * 100.0)}></div>
                    </div>
                    <span class="sim-progress-text">{ progress_text(ab.progress, ab.seconds, phase) }</span>
                </div>
            }
        </div>
    }
}

/// Before any run: what this view does.
fn intro() -> Html {
    html! {
        <div class="kv-intro">
            <p class="placeholder">
                { "Pick two designs that share one workload (two scenario files, or the current design and a shipped one) and run them. Both heatmaps are drawn on one colour scale; under each are its tablets and node load, and the verdict says which design serves each access pattern better, and why." }
            </p>
            <p class="hint">
                { "The pair offered first keys one mobile time series by timestamp (A) and by device (B)." }
            </p>
        </div>
    }
}

/// The verdict, in the core's words, and the workload both designs ran.
fn verdict(v: &AbView) -> Html {
    html! {
        <div class={classes!("ab-verdict", v.winner.map(|w| format!("wins-{}", w.to_lowercase())))}
            role="status">
            <p class="ab-verdict-text">{ v.verdict.clone() }</p>
            <p class="ab-workload">{ v.workload.clone() }</p>
        </div>
    }
}

/// The legend both maps share.
fn shared_legend(maps: &AbMaps, ab: &AbState) -> Html {
    let l = legend(&maps.a, ab.keyviz.scale);
    html! {
        <div class="kv-legend-row">
            <div class="kv-legend">
                <span class="kv-legend-low">{ l.low }</span>
                <span class="kv-gradient" aria-hidden="true"></span>
                <span class="kv-legend-high">{ l.high }</span>
                <span class="kv-legend-caption">{ format!("One colour scale for both designs. {}", l.caption) }</span>
            </div>
        </div>
    }
}

/// The two maps, each with its design's card.
fn pair(maps: &AbMaps, ab: &AbState, view: Option<&AbView>, on_map: &Callback<MapAction>) -> Html {
    let names = ab.ran.clone().unwrap_or_default();
    let side = |i: usize, map: &Rc<MapData>| {
        let letter = if i == 0 { "A" } else { "B" };
        if i == 1 && ab.b_waits {
            return waiting_side(letter, &names[i]);
        }
        let card = view.and_then(|v| v.designs.get(i));
        html! {
            <figure class="ab-design" aria-label={format!("Design {letter}")}>
                <figcaption>
                    <span class="ab-side">{ letter }</span>
                    <span class="ab-name">{ names[i].clone() }</span>
                    if let Some(c) = card {
                        <code class="ab-key">{ c.key_pattern.clone() }</code>
                    }
                </figcaption>
                if ab.keyviz.table {
                    <KeyVizTable map={Rc::clone(map)} />
                } else {
                    <Heatmap map={Rc::clone(map)} scale={ab.keyviz.scale} on_map={on_map.clone()}
                        label={format!("Design {letter} heatmap")} help_id={format!("ab-help-{}", letter.to_lowercase())}
                        zoomable={false} />
                }
                if let Some(c) = card {
                    { design_card(c) }
                }
            </figure>
        }
    };
    html! {
        <div class="ab-maps">
            { side(0, &maps.a) }
            { side(1, &maps.b) }
        </div>
    }
}

/// A design whose first map is drawn in the next frame (see
/// [`AbState::b_waits`]): its caption and an empty map of the same size,
/// so nothing moves when the map comes.
fn waiting_side(letter: &str, name: &str) -> Html {
    html! {
        <figure class="ab-design" aria-label={format!("Design {letter}")}>
            <figcaption>
                <span class="ab-side">{ letter }</span>
                <span class="ab-name">{ name.to_string() }</span>
            </figcaption>
            <div class="kv-map ab-map-waiting" aria-hidden="true"><div class="kv-frame"></div></div>
        </figure>
    }
}

/// One design's tablets, node load and Google's messages.
fn design_card(c: &DesignCard) -> Html {
    html! {
        <div class="ab-card">
            <p class="ab-tablets">{ c.tablets.clone() }</p>
            <div class="ab-scroll" tabindex="0" role="region" aria-label={format!("Node load of design {}", c.side)}>
                <table class="kv-table ab-nodes">
                    <caption>{ format!("Node load of design {}", c.side) }</caption>
                    <thead>
                        <tr>
                            <th scope="col">{ "node" }</th>
                            <th scope="col" class="num">{ "tablets" }</th>
                            <th scope="col" class="num">{ "mean CPU" }</th>
                            <th scope="col" class="num">{ "peak CPU" }</th>
                            <th scope="col" class="num">{ "throttled" }</th>
                            <th scope="col" class="num">{ "latency" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for c.nodes.iter().map(|n| html! {
                            <tr class={classes!(n.hot.then_some("hot"))}>
                                <th scope="row">{ n.node.clone() }</th>
                                <td class="num">{ n.tablets.clone() }</td>
                                <td class="num">{ n.mean_cpu.clone() }</td>
                                <td class="ab-peak">
                                    <span class="num">{ n.peak_cpu.clone() }</span>
                                    <span class="ab-bar" aria-hidden="true"><span style={format!("width: {:.1}%", n.bar)}></span></span>
                                </td>
                                <td class="num">{ n.throttled.clone() }</td>
                                <td class="num">{ n.latency.clone() }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
            if !c.messages.is_empty() {
                <p class="ab-messages">
                    { "Google's Key Visualizer would say: " }{ c.messages.join("; ") }
                </p>
            }
        </div>
    }
}

/// Every workload and access pattern, a card each: both designs'
/// figures side by side, the winner and why.
fn patterns_table(rows: &[PatternRow]) -> Html {
    html! {
        <section class="ab-patterns" aria-label="Patterns compared">
            <h3 class="section-title">{ "Each workload and access pattern under both designs" }</h3>
            <div class="ab-pattern-list">
                { for rows.iter().map(pattern_card) }
            </div>
        </section>
    }
}

/// One pattern: a measure per row, design A and B in two columns, then
/// why the winner wins.
fn pattern_card(p: &PatternRow) -> Html {
    let [a, b] = &p.sides;
    let won = |letter: &str| classes!("num", (p.winner == Some(letter)).then_some("won"));
    let line = |label: &'static str, va: &str, vb: &str| {
        html! {
            <tr>
                <th scope="row">{ label }</th>
                <td class="num">{ va.to_string() }</td>
                <td class="num">{ vb.to_string() }</td>
            </tr>
        }
    };
    html! {
        <article class="ab-pattern" data-pattern={p.name.clone()} aria-label={p.name.clone()}>
            <header class="ab-pattern-head">
                <span class="ab-pattern-name">{ p.name.clone() }</span>
                <span class="ab-pattern-kind">{ p.kind }</span>
                <span class={classes!("ab-winner", p.winner.map(|w| format!("wins-{}", w.to_lowercase())))}>
                    { p.winner_text() }
                </span>
            </header>
            <table class="kv-table ab-figures">
                <caption class="visually-hidden">{ format!("{} under design A and design B", p.name) }</caption>
                <thead>
                    <tr>
                        <th scope="col">{ "measure" }</th>
                        // The winner's column is marked at its head only:
                        // it may lose on some measures.
                        <th scope="col" class={won("A")}>{ "A" }</th>
                        <th scope="col" class={won("B")}>{ "B" }</th>
                    </tr>
                </thead>
                <tbody>
                    <tr>
                        <th scope="row">{ "runs as" }</th>
                        <td class="num" title={a.how.clone()}>{ a.op.clone() }</td>
                        <td class="num" title={b.how.clone()}>{ b.op.clone() }</td>
                    </tr>
                    { line("rows scanned per row returned", &a.scanned, &b.scanned) }
                    { line("mean latency", &a.latency, &b.latency) }
                    { line("tablets per operation", &a.tablets, &b.tablets) }
                    { line("throttled", &a.throttled, &b.throttled) }
                </tbody>
            </table>
            <p class="ab-why">{ p.why.clone() }</p>
        </article>
    }
}
