//! The Tablets panel (its static part): the selected table's key space as a
//! bar of tablets in key order, each as wide as its share of the bytes,
//! split points labelled with tinted key segments, and SampleRowKeys'
//! answer beside it. A mark under the bar shows the tablet holding the rows
//! on screen; tablets the console's last read visited are coloured.
//! Clicking a tablet (or choosing one with the arrow keys and Enter)
//! scrolls the rows there.
//!
//! The bar is drawn once per change of the table's layout, not per scroll:
//! the scroll mark and the details line are separate small components.
//! With the simulation, a live view colours tablets by node and adds CPU
//! bars; it reuses [`view_model::tablets`](crate::view_model::tablets).

use std::rc::Rc;

use tabletop_core::human_bytes;
use yew::prelude::*;

use super::key_view::key_html;
use crate::view_model::tablets::{
    BarSegment, SplitNote, TabletLine, TabletsView, bar_blocks, bar_layout, labelled_splits,
    samples_print, split_note, tablet_of_key,
};
use crate::view_model::{count_noun, format_count};

/// Props of [`TabletsPanel`].
#[derive(Properties, PartialEq)]
pub struct TabletsPanelProps {
    /// The selected table's tablets and samples.
    pub view: Option<Rc<Result<TabletsView, String>>>,
    /// The key of the first row on screen.
    pub top_key: Option<Vec<u8>>,
    /// Tablets the console's last read of this table visited.
    pub read_tablets: Option<Vec<u64>>,
    /// The node of each tablet (id, node): as the live Key Visualizer's
    /// balancer rule places them on its Nodes field's count.
    #[prop_or_default]
    pub nodes: Option<Rc<Vec<(u64, u32)>>>,
    /// Scroll the rows to a key.
    pub on_go_to: Callback<Vec<u8>>,
    /// The switch to the simulation's tablets, when one is loaded.
    #[prop_or_default]
    pub switch: Option<Html>,
    /// The header's maximize button (empty where the panel cannot take
    /// the workspace).
    #[prop_or_default]
    pub maximize: Html,
    /// Whether rows are being loaded in bulk: the SampleRowKeys list then
    /// keeps what it showed until the load ends, rather than being drawn
    /// again at every refresh.
    #[prop_or_default]
    pub loading: bool,
}

/// Props of [`SplitLine`].
#[derive(Properties, PartialEq)]
pub struct SplitLineProps {
    /// What to say.
    pub note: SplitNote,
}

/// One line on when tablets split, the detail in its hover text.
#[component(SplitLine)]
pub fn split_line(props: &SplitLineProps) -> Html {
    html! {
        <p class="hint split-note" title={props.note.detail.clone()}>{ props.note.text.clone() }</p>
    }
}

/// Smallest distance between two split labels, in percent of the bar.
const LABEL_GAP: f64 = 16.0;
/// Most tablets drawn one element each. Past this (a million rows make
/// over a thousand tablets, each under a pixel wide) adjacent tablets are
/// drawn as blocks: a refresh during a load then redraws a few hundred
/// elements, not thousands.
const DRAW_EACH_UP_TO: usize = 200;
/// Narrowest block of grouped tablets, in percent of the bar.
const BLOCK_MIN_WIDTH: f64 = 0.5;

/// The panel.
#[component(TabletsPanel)]
pub fn tablets_panel(props: &TabletsPanelProps) -> Html {
    let chosen_id = use_state(|| None::<u64>);
    let samples = use_held_samples(props);
    let layout = use_memo(props.view.clone(), |view| match view.as_deref() {
        Some(Ok(v)) => bar_layout(&v.tablets),
        _ => Vec::new(),
    });
    let header_meta = match props.view.as_deref() {
        Some(Ok(view)) => Some(format!(
            "{} · {}",
            count_noun(view.tablets.len() as u64, "tablet"),
            human_bytes(view.total_bytes as f64)
        )),
        _ => None,
    };
    let body = match props.view.as_ref() {
        None => html! { <p class="empty">{ "Select a table to see its tablets." }</p> },
        Some(rc) => match rc.as_ref() {
            Err(e) => html! { <p class="error">{ e.clone() }</p> },
            Ok(view) => {
                let in_view = props
                    .top_key
                    .as_deref()
                    .and_then(|k| tablet_of_key(&view.tablets, k));
                let chosen = chosen_id.and_then(|id| view.tablets.iter().position(|t| t.id == id));
                let focus = chosen.or(in_view);
                let on_choose = {
                    let chosen_id = chosen_id.clone();
                    let on_go_to = props.on_go_to.clone();
                    let view = Rc::clone(rc);
                    Callback::from(move |i: usize| {
                        if let Ok(v) = view.as_ref()
                            && let Some(t) = v.tablets.get(i)
                        {
                            chosen_id.set(Some(t.id));
                            on_go_to.emit(t.start_bytes.clone());
                        }
                    })
                };
                let read: Vec<u64> = props.read_tablets.clone().unwrap_or_default();
                let focused = focus.and_then(|i| view.tablets.get(i)).cloned();
                let read_here = focused.as_ref().is_some_and(|t| read.contains(&t.id));
                let node = focused.as_ref().and_then(|t| {
                    props
                        .nodes
                        .as_ref()?
                        .iter()
                        .find(|(id, _)| *id == t.id)
                        .map(|(_, n)| *n)
                });
                html! {
                    <div class="tablets-body">
                        <div class="bar-area">
                            <TabletBar view={Rc::clone(rc)} layout={Rc::clone(&layout)} read={read.clone()} {chosen} on_choose={on_choose.clone()} nodes={props.nodes.clone()} />
                            <ViewMark segment={in_view.and_then(|i| layout.get(i).cloned())} />
                            <SplitLabels view={Rc::clone(rc)} layout={Rc::clone(&layout)} />
                            <TabletDetail {node} tablet={focused} {read_here} />
                            if !read.is_empty() {
                                <p class="hint">{ format!("Coloured: the {} the console's last read visited.", count_noun(read.len() as u64, "tablet")) }</p>
                            }
                            <SplitLine note={split_note(view.split_bytes)} />
                            if view.tablets.len() > DRAW_EACH_UP_TO {
                                <TabletList view={Rc::clone(rc)} on_choose={on_choose.clone()} />
                            }
                        </div>
                        <Samples view={samples.unwrap_or_else(|| Rc::clone(rc))} held={props.loading} />
                    </div>
                }
            }
        },
    };
    html! {
        <section class="panel tablets-panel" aria-label="Tablets">
            <header class="panel-head">
                <h2 class="panel-title">{ "Tablets" }</h2>
                if let Some(meta) = header_meta {
                    <span class="panel-meta" title={meta.clone()}>{ meta }</span>
                }
                { props.switch.clone().unwrap_or_default() }
                { props.maximize.clone() }
            </header>
            { body }
        </section>
    }
}

/// Props of [`TabletBar`].
#[derive(Properties, PartialEq)]
struct TabletBarProps {
    view: Rc<Result<TabletsView, String>>,
    layout: Rc<Vec<BarSegment>>,
    read: Vec<u64>,
    chosen: Option<usize>,
    on_choose: Callback<usize>,
    nodes: Option<Rc<Vec<(u64, u32)>>>,
}

/// The bar: one block per tablet, one click handler for all of them.
#[component(TabletBar)]
fn tablet_bar(props: &TabletBarProps) -> Html {
    let Ok(view) = props.view.as_ref() else {
        return html! {};
    };
    let n = view.tablets.len();
    let onclick = {
        let layout = Rc::clone(&props.layout);
        let on_choose = props.on_choose.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(percent) = crate::browser::click_percent_across(&e, ".tablet-bar") else {
                return;
            };
            let i = layout
                .partition_point(|s| s.left <= percent)
                .saturating_sub(1);
            on_choose.emit(i);
        })
    };
    let onkeydown = {
        let on_choose = props.on_choose.clone();
        let current = props.chosen;
        Callback::from(move |e: KeyboardEvent| {
            let at = current.unwrap_or(0);
            let next = match e.key().as_str() {
                "ArrowRight" | "ArrowDown" => (at + 1).min(n.saturating_sub(1)),
                "ArrowLeft" | "ArrowUp" => at.saturating_sub(1),
                "Home" => 0,
                "End" => n.saturating_sub(1),
                "Enter" | " " => at,
                _ => return,
            };
            e.prevent_default();
            on_choose.emit(next);
        })
    };
    let segments = if n <= DRAW_EACH_UP_TO {
        each_tablet(view, props)
    } else {
        grouped_tablets(view, props)
    };
    html! {
        <div class="tablet-bar" role="group" tabindex="0" {onclick} {onkeydown}
            aria-label={format!("{} in key order; arrow keys choose one and show its rows", count_noun(n as u64, "tablet"))}>
            { segments }
        </div>
    }
}

/// The bar's blocks, one per tablet.
fn each_tablet(view: &TabletsView, props: &TabletBarProps) -> Html {
    let segments = view
        .tablets
        .iter()
        .zip(props.layout.iter())
        .enumerate()
        .map(|(i, (tablet, seg))| {
            let classes = classes!(
                "tablet",
                (Some(i) == props.chosen).then_some("chosen"),
                props.read.contains(&tablet.id).then_some("read"),
                (tablet.bytes == 0).then_some("empty"),
            );
            let node = props
                .nodes
                .as_ref()
                .and_then(|nodes| nodes.iter().find(|(id, _)| *id == tablet.id))
                .map(|(_, n)| format!(" · node {n}"))
                .unwrap_or_default();
            html! {
                <div class={classes} style={format!("left: {:.4}%; width: {:.4}%", seg.left, seg.width)}
                    title={format!("Tablet #{} · {}{node}", tablet.id, human_bytes(tablet.bytes as f64))}></div>
            }
        });
    html! { <>{ for segments }</> }
}

/// The bar's blocks for many tablets: adjacent ones drawn together (see
/// [`bar_blocks`]), a block coloured when the last read visited any of
/// its tablets, and the chosen tablet outlined on top, where it lies.
/// Clicks and keys still choose single tablets.
fn grouped_tablets(view: &TabletsView, props: &TabletBarProps) -> Html {
    let blocks = bar_blocks(&props.layout, BLOCK_MIN_WIDTH);
    let drawn = blocks.iter().map(|block| {
        let tablets = view.tablets.get(block.first..block.end).unwrap_or_default();
        let bytes: u64 = tablets.iter().map(|t| t.bytes).sum();
        let classes = classes!(
            "tablet",
            tablets
                .iter()
                .any(|t| props.read.contains(&t.id))
                .then_some("read"),
            (bytes == 0).then_some("empty"),
        );
        let title = match tablets {
            [one] => format!("Tablet #{} · {}", one.id, human_bytes(bytes as f64)),
            _ => format!(
                "{} · {} (click to choose one)",
                count_noun(tablets.len() as u64, "tablet"),
                human_bytes(bytes as f64)
            ),
        };
        let seg = &block.segment;
        html! {
            <div class={classes} style={format!("left: {:.4}%; width: {:.4}%", seg.left, seg.width)} {title}></div>
        }
    });
    let chosen = props.chosen.and_then(|i| props.layout.get(i)).map(|seg| {
        html! {
            <div class="tablet-chosen-mark" style={format!("left: {:.4}%; width: {:.4}%", seg.left, seg.width)}></div>
        }
    });
    html! { <>{ for drawn }{ for chosen }</> }
}

/// Props of [`TabletList`].
#[derive(Properties, PartialEq)]
struct TabletListProps {
    view: Rc<Result<TabletsView, String>>,
    on_choose: Callback<usize>,
}

/// Under a bar that groups its tablets: what the grouping means, and
/// every tablet as a list on demand (drawn only while open), each a
/// button that shows its rows.
#[component(TabletList)]
fn tablet_list(props: &TabletListProps) -> Html {
    let open = use_state(|| false);
    let Ok(view) = props.view.as_ref() else {
        return html! {};
    };
    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            let details: web_sys::Element = e.target_unchecked_into();
            open.set(details.has_attribute("open"));
        })
    };
    let n = count_noun(view.tablets.len() as u64, "tablet");
    let items = open.then(|| {
        let items = view.tablets.iter().enumerate().map(|(i, t)| {
            let on_choose = props.on_choose.clone();
            let onclick = Callback::from(move |_: MouseEvent| on_choose.emit(i));
            html! {
                <li>
                    <button type="button" class="link-button" {onclick}>
                        <span class="mono">{ format!("#{}", t.id) }</span>
                        { " from " }
                        <span class="mono">{ if t.start.text.is_empty() { "the first key".to_string() } else { t.start.text.clone() } }</span>
                        { format!(" · {}", human_bytes(t.bytes as f64)) }
                    </button>
                </li>
            }
        });
        html! { <ol class="tablet-list">{ for items }</ol> }
    });
    html! {
        <details class="tablet-list-box" {ontoggle}>
            <summary class="hint">{ format!("{n}: neighbours are drawn together; list them all") }</summary>
            { for items }
        </details>
    }
}

/// Props of [`ViewMark`].
#[derive(Properties, PartialEq)]
struct ViewMarkProps {
    segment: Option<BarSegment>,
}

/// The mark under the tablet that holds the rows on screen.
#[component(ViewMark)]
fn view_mark(props: &ViewMarkProps) -> Html {
    html! {
        <div class="bar-marks" aria-hidden="true">
            if let Some(seg) = &props.segment {
                <span class="mark-view" style={format!("left: {:.4}%; width: {:.4}%", seg.left, seg.width)}
                    title="The rows on screen are in this tablet"></span>
            }
        </div>
    }
}

/// Props of [`SplitLabels`].
#[derive(Properties, PartialEq)]
struct SplitLabelsProps {
    view: Rc<Result<TabletsView, String>>,
    layout: Rc<Vec<BarSegment>>,
}

/// Split keys under the bar, as many as fit.
#[component(SplitLabels)]
fn split_labels(props: &SplitLabelsProps) -> Html {
    let Ok(view) = props.view.as_ref() else {
        return html! {};
    };
    let labels = labelled_splits(&props.layout, LABEL_GAP)
        .into_iter()
        .filter_map(|i| Some((view.tablets.get(i)?, props.layout.get(i)?)))
        .map(|(tablet, seg)| {
            html! {
                <span class="split-label mono" style={format!("left: {:.4}%", seg.left)} title={tablet.start.text.clone()}>
                    { key_html(&tablet.start) }
                </span>
            }
        });
    html! { <div class="split-labels" aria-hidden="true">{ for labels }</div> }
}

/// Props of [`TabletDetail`].
#[derive(Properties, PartialEq)]
struct TabletDetailProps {
    tablet: Option<TabletLine>,
    read_here: bool,
    /// Its node, as the balancer rule places the tablets.
    #[prop_or_default]
    node: Option<u32>,
}

/// One line about the chosen tablet (or the one on screen).
#[component(TabletDetail)]
fn tablet_detail(props: &TabletDetailProps) -> Html {
    let Some(t) = &props.tablet else {
        return html! {};
    };
    html! {
        <p class="tablet-detail">
            <span class="mono">{ format!("#{}", t.id) }</span>
            { " from " }<span class="mono key-inline">{ if t.start.text.is_empty() { html! { "the first key" } } else { key_html(&t.start) } }</span>
            { " to " }<span class="mono key-inline">{ match &t.end { Some(e) => key_html(e), None => html! { "the end" } } }</span>
            { format!(" · {} · {} in the memtable · {} in {}", human_bytes(t.bytes as f64), count_noun(t.memtable_cells, "cell"), count_noun(t.run_cells, "cell"), count_noun(t.runs as u64, "run")) }
            if let Some(n) = props.node {
                <span class="tablet-node" title="The node the balancer gives it to (see the Key Visualizer's Nodes)">{ format!(" · node {n}") }</span>
            }
            if props.read_here { <span class="badge read-badge">{ "visited by the last read" }</span> }
        </p>
    }
}

/// The view the SampleRowKeys list shows: the latest, except during a
/// load, when it keeps the one it showed of the same table (the same
/// `Rc`, so the list is not drawn again).
#[hook]
fn use_held_samples(props: &TabletsPanelProps) -> Option<Rc<Result<TabletsView, String>>> {
    let held = use_mut_ref(|| None::<Rc<Result<TabletsView, String>>>);
    let table =
        |v: &Rc<Result<TabletsView, String>>| v.as_ref().as_ref().ok().map(|v| v.table.clone());
    let mut held = held.borrow_mut();
    let same_table = match (held.as_ref(), props.view.as_ref()) {
        (Some(h), Some(v)) => table(h) == table(v),
        _ => false,
    };
    if !(props.loading && same_table) {
        held.clone_from(&props.view);
    }
    held.clone()
}

/// Props of [`Samples`].
#[derive(Properties, PartialEq)]
struct SamplesProps {
    view: Rc<Result<TabletsView, String>>,
    /// A load is running and the list waits for its end.
    held: bool,
}

/// Most sample rows listed (a million-row table has a couple of thousand).
const SAMPLES_SHOWN: usize = 200;
/// Sample rows drawn at first; the rest up to [`SAMPLES_SHOWN`] on demand.
/// Each row is a dozen elements (the key's tinted segments), so drawing
/// all of them once a large load ends made one of the load's longest tasks.
const SAMPLES_FIRST: usize = 40;

/// SampleRowKeys' answer: keys at tablet boundaries with byte offsets.
#[component(Samples)]
fn samples(props: &SamplesProps) -> Html {
    // The list "Show all" was asked for (its print): a new load, another
    // table or new keys fold the list back to its first rows.
    let expanded = use_state(|| None::<u64>);
    let scroll = use_node_ref();
    let scrolls = use_scrolls(&scroll);
    let Ok(view) = props.view.as_ref() else {
        return html! {};
    };
    let print = samples_print(view);
    let listed = view.samples.len().min(SAMPLES_SHOWN);
    let drawn = if *expanded == Some(print) {
        listed
    } else {
        listed.min(SAMPLES_FIRST)
    };
    let more = view.samples.len().saturating_sub(drawn);
    let show_all = {
        let expanded = expanded.clone();
        Callback::from(move |_: MouseEvent| expanded.set(Some(print)))
    };
    html! {
        <div class="samples">
            <h3 class="section-title" title="What the SampleRowKeys RPC answers: a key at each tablet boundary and the bytes before it">{ "SampleRowKeys" }</h3>
            if props.held {
                <p class="hint">{ "Updated when the load ends." }</p>
            }
            // Its own scrolling box where the screen bounds it (a phone,
            // where the panel grows with its content). Only a box that
            // scrolls is a tab stop, so a keyboard can scroll it.
            <div class="sample-scroll" ref={scroll} tabindex={scrolls.then_some("0")} role="region" aria-label="SampleRowKeys answer">
                <table class="sample-table">
                    <thead><tr><th>{ "row key" }</th><th class="num">{ "offset" }</th></tr></thead>
                    <tbody>
                        { for view.samples.iter().take(drawn).map(|s| html! {
                            <tr>
                                <td class="mono">{ if s.key.text.is_empty() { html! { <span class="key-empty">{ "\"\" (end)" }</span> } } else { key_html(&s.key) } }</td>
                                <td class="num mono" title={format!("{} bytes", format_count(s.offset))}>{ human_bytes(s.offset as f64) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
            if drawn < listed {
                <button type="button" class="link-button hint" onclick={show_all}>
                    { format!("Show {} more (of {})", format_count((listed - drawn) as u64), format_count(view.samples.len() as u64)) }
                </button>
            } else if more > 0 {
                <p class="hint">{ format!("and {} more", format_count(more as u64)) }</p>
            }
        </div>
    }
}

/// Whether the element scrolls (its content overflows it), checked after
/// every draw and when the window is resized (the layout bounds the box
/// on a phone only).
#[hook]
fn use_scrolls(node: &NodeRef) -> bool {
    let scrolls = use_state(|| false);
    {
        let node = node.clone();
        let scrolls = scrolls.clone();
        use_effect(move || {
            let check = move || {
                if let Some(e) = node.cast::<web_sys::Element>() {
                    let now = e.scroll_height() > e.client_height();
                    if now != *scrolls {
                        scrolls.set(now);
                    }
                }
            };
            check();
            let listener = web_sys::window()
                .map(|w| gloo::events::EventListener::new(&w, "resize", move |_| check()));
            move || drop(listener)
        });
    }
    *scrolls
}
