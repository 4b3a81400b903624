//! The Key Visualizer panel: a choice between the real tables' recorded
//! traffic ("Your tables", see [`super::keyviz_live`]) and the simulation
//! (its controls, then the heatmap of the running simulation). Both draw
//! the same map: time left to right, the key space top to bottom, with
//! metric, scale, bucket and zoom controls, the colour legend, key-prefix
//! labels at the side, round ticks along the time axis, a tooltip under
//! the pointer (click pins it), drag to zoom into a key range, the
//! findings (one folded line that opens into each finding's remedy and
//! evidence), and a data table with the same numbers for screen readers.
//!
//! The canvas is painted from one reused pixel buffer
//! ([`Painter`](crate::view_model::keyviz::Painter)) with `putImageData`,
//! only when the map, the scale or the canvas size change; the time the
//! last redraw took is kept in the canvas's `data-redraw-ms` attribute (the
//! performance test reads it).

use std::cell::RefCell;
use std::rc::Rc;

use tabletop_core::keyviz::{BucketMode, ColorScale, Diagnostic, Metric};
use wasm_bindgen::{Clamped, JsCast};
use yew::prelude::*;

use super::key_view::key_html;
use super::keyviz_ab::AbBody;
use super::keyviz_live::LiveBody;
use super::sim_controls::SimControls;
use crate::state::ab::{AbAction, AbState};
use crate::state::live::{KvView, LiveAction, LiveState, MapAction};
use crate::state::sim::{SimAction, SimState};
use crate::view_model::keys::{DisplayKey, key_parts};
use crate::view_model::keyviz::{
    Banner, KeyVizSettings, MapData, Painter, banners, cell_info, data_table, findings_summary,
    hit, label_boxes, label_widths, legend, metric_label, time_ticks, zoom_in, zoom_out,
    zoom_to_rows,
};
use crate::view_model::schema::TableSummary;
use crate::view_model::sim::scenario_choices;

/// Props of [`KeyVizPanel`].
#[derive(Properties, PartialEq)]
pub struct KeyVizPanelProps {
    /// The simulation slice.
    pub sim: Rc<SimState>,
    /// The simulation's actions.
    pub on_sim: Callback<SimAction>,
    /// The live Key Visualizer slice.
    pub live: Rc<LiveState>,
    /// Its actions.
    pub on_live: Callback<LiveAction>,
    /// The A/B slice.
    pub ab: Rc<AbState>,
    /// Its actions.
    pub on_ab: Callback<AbAction>,
    /// The current design's name (the A/B view offers it).
    #[prop_or_default]
    pub design_name: Option<AttrValue>,
    /// The real tables (for the live view's table picker).
    pub tables: Rc<Vec<TableSummary>>,
    /// The selected table.
    pub selected: Option<String>,
    /// Selects a table (the live view's picker; the Rows panel follows).
    pub on_select: Callback<String>,
    /// The header's maximize button (empty where the panel cannot take
    /// the workspace).
    #[prop_or_default]
    pub maximize: Html,
    /// The design as real data (its table, rows and replay), above the
    /// simulation and the live view (the views of the current design and
    /// of its table); the A/B view compares two designs and has no
    /// place for it.
    #[prop_or_default]
    pub data_bar: Html,
}

pub(super) fn select_value(e: &Event) -> Option<String> {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
        .map(|s| s.value())
}

/// The panel.
#[component(KeyVizPanel)]
pub fn keyviz_panel(props: &KeyVizPanelProps) -> Html {
    let sim = &props.sim;
    let live = &props.live;
    let view = live.shown(sim.loaded());
    let meta = match view {
        KvView::Simulation => sim.snapshot.as_ref().map(|s| s.title.clone()),
        KvView::Live => live.table.clone(),
        KvView::Ab => props.ab.ran.as_ref().map(|[a, b]| format!("{a} vs {b}")),
    };
    // Made once per `on_sim`, as the live view's (see `LiveBody`): a new
    // callback at every redraw of the panel would redraw the map too.
    let on_sim_map = use_memo(props.on_sim.clone(), |on_sim| {
        on_sim.reform(SimAction::from)
    });
    let body = match view {
        KvView::Simulation => sim_body(sim, &props.on_sim, &on_sim_map, &props.on_live),
        KvView::Live => html! {
            <LiveBody live={Rc::clone(live)} on_live={props.on_live.clone()} tables={Rc::clone(&props.tables)}
                selected={props.selected.clone()} on_select={props.on_select.clone()} />
        },
        KvView::Ab => html! {
            <AbBody ab={Rc::clone(&props.ab)} on_ab={props.on_ab.clone()} current={props.design_name.clone()} />
        },
    };
    html! {
        <section class={classes!("panel", "keyviz-panel", (view == KvView::Live).then_some("live"))}
            aria-label="Key Visualizer" style="grid-area: keyviz"
            data-view={match view { KvView::Live => "live", KvView::Simulation => "simulation", KvView::Ab => "ab" }}
            data-map-ms={format!("{:.2}", sim.map_ms)} data-diagnose-ms={format!("{:.2}", sim.diagnose_ms)}
            data-live-build-ms={format!("{:.2}", live.build_ms)} data-live-builds={live.builds.to_string()}
            data-live-slice-ms={format!("{:.2}", live.slice_ms)} data-live-build-wall-ms={format!("{:.2}", live.build_wall_ms)}
            data-live-building={live.building().is_some().to_string()}>
            <header class="panel-head">
                <h2 class="panel-title">{ "Key Visualizer" }</h2>
                <span class="panel-meta" title={meta.clone().unwrap_or_default()}>{ meta.unwrap_or_default() }</span>
                { view_switch(view, &props.on_live) }
                { props.maximize.clone() }
            </header>
            <div class="panel-body kv-body">
                if view != KvView::Ab {
                    { props.data_bar.clone() }
                }
                { body }
            </div>
        </section>
    }
}

/// The two views, as a pair of toggle buttons.
fn view_switch(view: KvView, on_live: &Callback<LiveAction>) -> Html {
    let button = |v: KvView, text: &'static str, title: &'static str| {
        let on_live = on_live.clone();
        let onclick = Callback::from(move |_: MouseEvent| on_live.emit(LiveAction::Show(v)));
        html! {
            <button type="button" class={classes!("seg-button", (v == view).then_some("pressed"))}
                aria-pressed={(v == view).to_string()} {title} {onclick}>{ text }</button>
        }
    };
    html! {
        <span class="seg-switch kv-switch" role="group" aria-label="What the Key Visualizer shows">
            { button(KvView::Live, "Your tables", "The traffic your operations put on the selected table") }
            { button(KvView::Simulation, "Simulation", "A scenario's workload on a simulated cluster") }
            { button(KvView::Ab, "A/B", "Two row-key designs on one workload, side by side") }
        </span>
    }
}

/// The simulation's controls, then its map (or why there is none).
fn sim_body(
    sim: &SimState,
    on_sim: &Callback<SimAction>,
    on_map: &Callback<MapAction>,
    on_live: &Callback<LiveAction>,
) -> Html {
    let body = match (&sim.map, &sim.error) {
        (_, Some(e)) => html! { <p class="error">{ e.clone() }</p> },
        (None, None) => intro(on_sim, on_live),
        (Some(map), None) => map_view(map, sim.keyviz, &sim.diagnostics, sim.findings_open, on_map),
    };
    html! {
        <>
            <SimControls snapshot={sim.snapshot.clone()} source={sim.source.clone()} playing={sim.playing}
                seeking={sim.seek_to.is_some()} speed={sim.speed} on_sim={on_sim.clone()} />
            { body }
        </>
    }
}

/// Before any simulation: what the panel shows, the two designs to
/// compare first, one click each, and where the person's own operations
/// are drawn.
fn intro(on_sim: &Callback<SimAction>, on_live: &Callback<LiveAction>) -> Html {
    let to_live = {
        let on_live = on_live.clone();
        Callback::from(move |_: MouseEvent| on_live.emit(LiveAction::Show(KvView::Live)))
    };
    let try_button = |file: &'static str| {
        let title = scenario_choices()
            .iter()
            .find(|c| c.file == file)
            .map_or_else(|| file.to_string(), |c| c.title.clone());
        let on_sim = on_sim.clone();
        let onclick = Callback::from(move |_: MouseEvent| {
            on_sim.emit(SimAction::PickScenario(file.to_string()));
        });
        html! { <button type="button" class="link-button" {onclick}>{ title }</button> }
    };
    html! {
        <div class="kv-intro">
            <p class="placeholder">
                { "Pick a scenario to simulate it: the heatmap shows reads and writes over time and key space, and a row-key design that makes a hotspot lights up." }
            </p>
            <p class="hint">
                { "Try " }{ try_button("mobile_timestamp_first.toml") }{ ", then " }
                { try_button("mobile_device_first.toml") }{ " to compare." }
            </p>
            <p class="hint">
                { "The reads and writes you run on your own tables have a map too: " }
                <button type="button" class="link-button" onclick={to_live}>{ "show your tables' traffic" }</button>{ "." }
            </p>
        </div>
    }
}

/// A map, simulated or live: the findings, the toolbar, the legend with
/// the zoom, then the heatmap or its data table.
pub(super) fn map_view(
    map: &Rc<MapData>,
    settings: KeyVizSettings,
    diagnostics: &[Diagnostic],
    findings_open: bool,
    on_map: &Callback<MapAction>,
) -> Html {
    let findings = banners(diagnostics, map.origin_micros);
    html! {
        <>
            if !findings.is_empty() {
                <Findings banners={Rc::new(findings)} open={findings_open} on_map={on_map.clone()} />
            }
            { toolbar(settings, on_map) }
            { legend_row(map, settings.scale, on_map) }
            if settings.table {
                <KeyVizTable map={Rc::clone(map)} />
            } else {
                <Heatmap map={Rc::clone(map)} scale={settings.scale} on_map={on_map.clone()} />
            }
        </>
    }
}

/// The metric, scale and bucket choices, and the Data table toggle.
pub(super) fn toolbar(settings: KeyVizSettings, on_map: &Callback<MapAction>) -> Html {
    let on_select = |f: fn(Option<String>) -> Option<MapAction>| {
        let on_map = on_map.clone();
        Callback::from(move |e: Event| {
            if let Some(a) = f(select_value(&e)) {
                on_map.emit(a);
            }
        })
    };
    let on_metric = on_select(|v| v.and_then(|v| Metric::from_name(&v)).map(MapAction::Metric));
    let on_scale = on_select(|v| {
        Some(MapAction::Scale(match v.as_deref() {
            Some("absolute") => ColorScale::Absolute,
            _ => ColorScale::Relative,
        }))
    });
    let on_mode = on_select(|v| {
        Some(MapAction::Mode(match v.as_deref() {
            Some("traffic") => BucketMode::TrafficWeighted,
            _ => BucketMode::EqualKeys,
        }))
    });
    let table_toggle = {
        let on_map = on_map.clone();
        let on = settings.table;
        Callback::from(move |_: MouseEvent| on_map.emit(MapAction::ShowTable(!on)))
    };
    html! {
        <div class="kv-toolbar">
            <label class="inline">
                <span>{ "Metric" }</span>
                <select onchange={on_metric} aria-label="Metric">
                    { for Metric::ALL.into_iter().map(|m| html! {
                        <option value={m.name()} selected={m == settings.metric}>{ metric_label(m) }</option>
                    }) }
                </select>
            </label>
            <label class="inline">
                <span>{ "Scale" }</span>
                <select onchange={on_scale} aria-label="Scale">
                    <option value="relative" selected={settings.scale == ColorScale::Relative}>{ "Relative" }</option>
                    <option value="absolute" selected={settings.scale == ColorScale::Absolute}>{ "Absolute" }</option>
                </select>
            </label>
            <label class="inline">
                <span>{ "Buckets" }</span>
                <select onchange={on_mode} aria-label="Key buckets">
                    <option value="equal" selected={settings.mode == BucketMode::EqualKeys} title="Each bucket holds about the same number of rows, as Bigtable draws it">{ "Equal keys" }</option>
                    <option value="traffic" selected={settings.mode == BucketMode::TrafficWeighted} title="Busy ranges get narrower buckets">{ "Traffic-weighted" }</option>
                </select>
            </label>
            <button type="button" class="button small" aria-pressed={settings.table.to_string()} onclick={table_toggle}
                title="The same numbers as a table, for screen readers">{ "Data table" }</button>
        </div>
    }
}

/// The colour legend, and the zoom buttons beside it.
fn legend_row(map: &MapData, scale: ColorScale, on_map: &Callback<MapAction>) -> Html {
    let zoom_button = |text: &'static str, zoom: Option<Option<[u32; 2]>>, title: &'static str| {
        let on_map = on_map.clone();
        let disabled = zoom.is_none();
        let onclick = Callback::from(move |_: MouseEvent| {
            if let Some(z) = zoom {
                on_map.emit(MapAction::Zoom(z));
            }
        });
        html! { <button type="button" class="button small" {onclick} {disabled} {title}>{ text }</button> }
    };
    let legend = legend(map, scale);
    html! {
        <div class="kv-legend-row">
            <div class="kv-legend">
                <span class="kv-legend-low">{ legend.low.clone() }</span>
                <span class="kv-gradient" aria-hidden="true"></span>
                <span class="kv-legend-high">{ legend.high.clone() }</span>
                <span class="kv-legend-caption">{ legend.caption.clone() }</span>
            </div>
            <span class="kv-zoom" role="group" aria-label="Zoom">
                { zoom_button("Zoom in", zoom_in(map).map(Some), "Show the middle half of the key range") }
                { zoom_button("Zoom out", map.zoomed().then(|| zoom_out(map)), "Show twice the key range") }
                { zoom_button("Reset zoom", map.zoomed().then_some(None), "Show the whole key space") }
            </span>
        </div>
    }
}

/// Props of [`Findings`].
#[derive(Properties, PartialEq)]
struct FindingsProps {
    /// Most severe first.
    banners: Rc<Vec<Banner>>,
    /// Whether they are unfolded.
    open: bool,
    on_map: Callback<MapAction>,
}

/// The findings: folded, one line naming the most severe (and how many
/// more there are), which opens on a click or a key into every finding
/// with its remedy, where and when it was seen, and the evidence.
#[component(Findings)]
fn findings(props: &FindingsProps) -> Html {
    let Some(summary) = findings_summary(&props.banners) else {
        return Html::default();
    };
    let severity = props.banners.first().map_or("info", |b| b.severity);
    let open = props.open;
    let onclick = {
        let on_map = props.on_map.clone();
        Callback::from(move |_: MouseEvent| on_map.emit(MapAction::ShowFindings(!open)))
    };
    html! {
        <div class={classes!("kv-findings", open.then_some("open"))} role="region" aria-label="Key Visualizer findings">
            <button type="button" class={classes!("kv-findings-toggle", severity)} aria-expanded={open.to_string()}
                aria-controls="kv-findings-detail" {onclick}>
                <span class="kv-caret" aria-hidden="true">{ if open { "▾" } else { "▸" } }</span>
                <span class="badge">{ severity }</span>
                <span class="kv-findings-title">{ summary }</span>
                <span class="kv-findings-action">{ if open { "Hide" } else { "Remedy and evidence" } }</span>
            </button>
            <div id="kv-findings-detail" class="kv-findings-detail" hidden={!open}>
                { for props.banners.iter().map(|b| html! {
                    <div class={classes!("kv-banner", b.severity)}>
                        <p class="kv-banner-title"><span class="badge">{ b.severity }</span>{ " " }<strong>{ b.title.clone() }</strong></p>
                        <p class="kv-banner-remedy"><strong>{ "Remedy: " }</strong>{ b.remedy.clone() }</p>
                        <p class="kv-banner-place mono">{ b.place.clone() }</p>
                        <p class="kv-banner-evidence">{ b.evidence.clone() }</p>
                    </div>
                }) }
            </div>
        </div>
    }
}

/// Props of [`Heatmap`].
#[derive(Properties)]
pub(super) struct HeatmapProps {
    pub map: Rc<MapData>,
    pub scale: ColorScale,
    pub on_map: Callback<MapAction>,
    /// The canvas's accessible name (two maps on a page need two).
    #[prop_or(AttrValue::Static("Key Visualizer heatmap"))]
    pub label: AttrValue,
    /// The id of its description (unique on the page).
    #[prop_or(AttrValue::Static("kv-canvas-help"))]
    pub help_id: AttrValue,
    /// Whether a drag zooms into a key range (else a press is a click).
    #[prop_or(true)]
    pub zoomable: bool,
}

// The map is compared by identity: the reducer makes a new one whenever
// its data changes, and comparing 150,000 values every frame would waste
// time.
impl PartialEq for HeatmapProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.map, &other.map)
            && self.scale == other.scale
            && self.on_map == other.on_map
            && self.label == other.label
            && self.help_id == other.help_id
            && self.zoomable == other.zoomable
    }
}

/// A point of the map being dragged over (CSS pixels from the map's top).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Drag {
    from: f64,
    to: f64,
}

/// Least drag, in CSS pixels, that zooms rather than clicks.
const DRAG_PX: f64 = 5.0;
/// Smallest height of a prefix label, in CSS pixels.
const LABEL_MIN_PX: f64 = 14.0;
/// Levels of key-prefix labels shown beside the map, and the most
/// characters of a label (the rest is in its hover text).
const LABEL_DEPTHS: usize = 2;
const LABEL_CHARS: usize = 14;
/// Width allowed per character of a time-axis label (11 px text), and the
/// least space between two labels, in CSS pixels.
const TICK_CHAR_PX: f64 = 7.0;
const TICK_GAP_PX: f64 = 10.0;

/// A cell of the map under the pointer or pinned: its row and column, and
/// the point (CSS pixels in the canvas) the tooltip is placed from.
type Cell = (usize, usize, f64, f64);

/// The canvas, its labels, tooltip and drag selection.
#[component(Heatmap)]
pub(super) fn heatmap(props: &HeatmapProps) -> Html {
    let canvas = use_node_ref();
    let frame = use_node_ref();
    let painter = use_mut_ref(Painter::default);
    // The canvas's size in CSS pixels, and the device pixel ratio.
    let size = use_state(|| (0u32, 0u32, 1.0f64));
    use_frame_size(&frame, &size);
    use_paint(&canvas, &painter, &props.map, props.scale, *size);
    let hover = use_state(|| None::<Cell>);
    let pinned = use_state(|| None::<Cell>);
    let drag = use_state(|| None::<Drag>);
    let pressed: Rc<RefCell<Option<f64>>> = use_mut_ref(|| None);
    // How many times the map was drawn (in `data-renders`): a redraw of
    // the panel around it should not draw it again (the tests check).
    let renders = use_mut_ref(|| 0u64);
    *renders.borrow_mut() += 1;

    let (w, h, _) = *size;
    let map = &props.map;
    let pointer = Pointer {
        canvas: canvas.clone(),
        map: Rc::clone(map),
        pressed,
        hover: hover.clone(),
        pinned: pinned.clone(),
        drag: drag.clone(),
        zoomable: props.zoomable,
    };
    let onmousedown = pointer.on_down();
    let onmousemove = pointer.on_move();
    let onmouseup = pointer.on_up(props.on_map.clone());
    let onmouseleave = pointer.on_leave();
    let onkeydown = keyboard_cursor(Rc::clone(map), pinned.clone(), (w, h));
    let (labels, gutter) = prefix_labels(map, h);
    let selection = drag.map(|d| {
        let (a, b) = (d.from.min(d.to), d.from.max(d.to));
        html! { <div class="kv-selection" style={format!("top: {a:.0}px; height: {:.0}px", b - a)}></div> }
    });
    let tooltip = pinned
        .or(*hover)
        .and_then(|cell| tooltip_html(map, cell, pinned.is_some(), (w, h)));
    html! {
        <div class="kv-map" style={format!("--kv-gutter: {gutter}ch")} data-renders={renders.borrow().to_string()}>
            { labels }
            <div class="kv-frame" ref={frame}>
                <canvas ref={canvas} class="kv-canvas" role="img" aria-label={props.label.clone()} tabindex="0"
                    aria-describedby={props.help_id.clone()}
                    {onmousedown} {onmousemove} {onmouseup} {onmouseleave} {onkeydown}></canvas>
                { selection.unwrap_or_default() }
                { tooltip.unwrap_or_default() }
            </div>
            // Present from the start (a live region that appears with its
            // text is often not read out), filled as the cursor moves.
            <p class="visually-hidden kv-cursor-live" aria-live="polite" aria-atomic="true">{ cursor_text(map, *pinned) }</p>
            <p id={props.help_id.clone()} class="visually-hidden">
                { format!("{} over time (left to right, {} columns) and key space (top to bottom, {} key buckets). Arrow keys move a cursor over the cells; the Data table button shows the numbers.",
                    metric_label(map.metric), map.time_total, map.rows()) }
            </p>
            { time_axis(map, w) }
        </div>
    }
}

/// Keeps `size` at the frame's size in CSS pixels and the device pixel
/// ratio, as the frame is resized.
fn use_frame_size(
    frame: &NodeRef,
    size: &UseStateHandle<(u32, u32, f64)>,
) -> impl Hook<Output = ()> {
    let frame = frame.clone();
    let size = size.clone();
    use_effect_with((), move |()| {
        let watch = frame.cast::<web_sys::HtmlElement>().and_then(|element| {
            let watched = element.clone();
            crate::browser::watch_size(&watched, move || {
                let w = element.client_width().max(0) as u32;
                let h = element.client_height().max(0) as u32;
                let dpr = gloo::utils::window().device_pixel_ratio().clamp(1.0, 2.0);
                if w > 0 && h > 0 && *size != (w, h, dpr) {
                    size.set((w, h, dpr));
                }
            })
        });
        move || drop(watch)
    })
}

/// Paints the map into the canvas with `painter` when the map, the scale
/// or the size change, and keeps how long that took in `data-redraw-ms`.
fn use_paint(
    canvas: &NodeRef,
    painter: &Rc<RefCell<Painter>>,
    map: &Rc<MapData>,
    scale: ColorScale,
    size: (u32, u32, f64),
) -> impl Hook<Output = ()> {
    let canvas = canvas.clone();
    let painter = Rc::clone(painter);
    let map = Rc::clone(map);
    let key = (Rc::as_ptr(&map) as usize, scale, size);
    use_effect_with(key, move |&(_, scale, (w, h, dpr))| {
        if let Some(element) = canvas.cast::<web_sys::HtmlCanvasElement>() {
            let started = gloo::utils::window().performance().map(|p| p.now());
            let pw = ((f64::from(w) * dpr).round() as u32).max(1);
            let ph = ((f64::from(h) * dpr).round() as u32).max(1);
            if element.width() != pw {
                element.set_width(pw);
            }
            if element.height() != ph {
                element.set_height(ph);
            }
            let context = element
                .get_context("2d")
                .ok()
                .flatten()
                .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok());
            if let Some(context) = context {
                let mut painter = painter.borrow_mut();
                let pixels = painter.paint(&map, scale, pw as usize, ph as usize);
                if let Ok(image) =
                    web_sys::ImageData::new_with_u8_clamped_array_and_sh(Clamped(pixels), pw, ph)
                {
                    let _ = context.put_image_data(&image, 0.0, 0.0);
                }
            }
            if let (Some(started), Some(perf)) = (started, gloo::utils::window().performance()) {
                let _ = element
                    .set_attribute("data-redraw-ms", &format!("{:.2}", perf.now() - started));
            }
        }
    })
}

/// What the mouse does over the canvas: hover shows a cell, a click pins
/// it (or unpins it), a drag selects a key range to zoom into.
struct Pointer {
    canvas: NodeRef,
    map: Rc<MapData>,
    /// Where the button went down (CSS pixels from the map's top).
    pressed: Rc<RefCell<Option<f64>>>,
    hover: UseStateHandle<Option<Cell>>,
    pinned: UseStateHandle<Option<Cell>>,
    drag: UseStateHandle<Option<Drag>>,
    /// Whether a drag zooms (else every press is a click).
    zoomable: bool,
}

impl Pointer {
    /// The event's point in the canvas, and the canvas's size (CSS pixels).
    fn locate(canvas: &NodeRef, e: &MouseEvent) -> Option<(f64, f64, f64, f64)> {
        let element = canvas.cast::<web_sys::Element>()?;
        let rect = element.get_bounding_client_rect();
        Some((
            f64::from(e.client_x()) - rect.left(),
            f64::from(e.client_y()) - rect.top(),
            rect.width(),
            rect.height(),
        ))
    }

    fn on_down(&self) -> Callback<MouseEvent> {
        let canvas = self.canvas.clone();
        let pressed = Rc::clone(&self.pressed);
        Callback::from(move |e: MouseEvent| {
            if e.button() == 0
                && let Some((_, y, _, _)) = Self::locate(&canvas, &e)
            {
                *pressed.borrow_mut() = Some(y);
            }
        })
    }

    fn on_move(&self) -> Callback<MouseEvent> {
        let canvas = self.canvas.clone();
        let pressed = Rc::clone(&self.pressed);
        let hover = self.hover.clone();
        let drag = self.drag.clone();
        let map = Rc::clone(&self.map);
        let zoomable = self.zoomable;
        Callback::from(move |e: MouseEvent| {
            let Some((x, y, cw, ch)) = Self::locate(&canvas, &e) else {
                return;
            };
            if let Some(from) = *pressed.borrow()
                && zoomable
                && (y - from).abs() >= DRAG_PX
            {
                let next = Some(Drag {
                    from,
                    to: y.clamp(0.0, ch),
                });
                if *drag != next {
                    drag.set(next);
                }
            }
            let cell = hit(&map, cw, ch, x, y).map(|(r, c)| (r, c, x, y));
            if cell.map(|c| (c.0, c.1)) != hover.map(|c| (c.0, c.1)) {
                hover.set(cell);
            }
        })
    }

    fn on_up(&self, on_map: Callback<MapAction>) -> Callback<MouseEvent> {
        let canvas = self.canvas.clone();
        let pressed = Rc::clone(&self.pressed);
        let drag = self.drag.clone();
        let pinned = self.pinned.clone();
        let map = Rc::clone(&self.map);
        let zoomable = self.zoomable;
        Callback::from(move |e: MouseEvent| {
            let Some(from) = pressed.borrow_mut().take() else {
                return;
            };
            drag.set(None);
            let Some((x, y, cw, ch)) = Self::locate(&canvas, &e) else {
                return;
            };
            if zoomable && (y - from).abs() >= DRAG_PX {
                let rows = map.rows() as f64;
                let row = |py: f64| ((py.clamp(0.0, ch - 0.01) / ch) * rows) as usize;
                if let Some(zoom) = zoom_to_rows(&map, row(from), row(y)) {
                    pinned.set(None);
                    on_map.emit(MapAction::Zoom(Some(zoom)));
                }
            } else {
                // A click pins the tooltip here (or unpins it).
                let cell = hit(&map, cw, ch, x, y).map(|(r, c)| (r, c, x, y));
                if pinned.map(|p| (p.0, p.1)) == cell.map(|c| (c.0, c.1)) {
                    pinned.set(None);
                } else {
                    pinned.set(cell);
                }
            }
        })
    }

    fn on_leave(&self) -> Callback<MouseEvent> {
        let hover = self.hover.clone();
        let pressed = Rc::clone(&self.pressed);
        let drag = self.drag.clone();
        Callback::from(move |_: MouseEvent| {
            hover.set(None);
            *pressed.borrow_mut() = None;
            drag.set(None);
        })
    }
}

/// Keyboard: arrows move a pinned cursor over the cells of a canvas of
/// `(w, h)` CSS pixels, Escape unpins it.
fn keyboard_cursor(
    map: Rc<MapData>,
    pinned: UseStateHandle<Option<Cell>>,
    (w, h): (u32, u32),
) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        let rows = map.rows();
        let cols = map.time_total.max(1);
        if rows == 0 || w == 0 || h == 0 {
            return;
        }
        let (r, c) = pinned.map_or((0, map.time_filled.saturating_sub(1)), |p| (p.0, p.1));
        let (r, c) = match e.key().as_str() {
            "ArrowUp" => (r.saturating_sub(1), c),
            "ArrowDown" => ((r + 1).min(rows - 1), c),
            "ArrowLeft" => (r, c.saturating_sub(1)),
            "ArrowRight" => (r, (c + 1).min(cols - 1)),
            "Escape" => {
                // Releasing a pin is all this Escape does (it does
                // not also restore a maximized layout).
                if pinned.is_some() {
                    e.prevent_default();
                }
                pinned.set(None);
                return;
            }
            _ => return,
        };
        e.prevent_default();
        let x = (c as f64 + 0.5) / cols as f64 * f64::from(w);
        let y = (r as f64 + 0.5) / rows as f64 * f64::from(h);
        pinned.set(Some((r, c, x, y)));
    })
}

/// What the keyboard cursor (or a pinned cell) points at, in words, for
/// the live region that screen readers announce.
fn cursor_text(map: &MapData, pinned: Option<Cell>) -> String {
    pinned
        .and_then(|(r, c, _, _)| cell_info(map, r, c))
        .map(|info| {
            let start = if info.key_start.is_empty() {
                "the start of the table".to_string()
            } else {
                info.key_start.clone()
            };
            let end = info
                .key_end
                .clone()
                .unwrap_or_else(|| "the end of the table".into());
            let place = info.place.map(|p| format!("; {p}")).unwrap_or_default();
            format!(
                "Keys {start} to {end}; {}; {}{place}",
                info.time, info.value
            )
        })
        .unwrap_or_default()
}

/// The tooltip of the cell shown (hovered or pinned), kept inside a
/// canvas of `(w, h)` CSS pixels.
fn tooltip_html(
    map: &MapData,
    (r, c, x, y): Cell,
    pinned: bool,
    (w, h): (u32, u32),
) -> Option<Html> {
    let info = cell_info(map, r, c)?;
    let start = DisplayKey {
        text: info.key_start.clone(),
        parts: key_parts(&info.key_start),
    };
    let end = info.key_end.as_ref().map(|k| DisplayKey {
        text: k.clone(),
        parts: key_parts(k),
    });
    // Keep the tooltip inside the map: flip it left or up near the far
    // edges.
    let left = f64::from(w) > 0.0 && x > f64::from(w) * 0.55;
    let up = f64::from(h) > 0.0 && y > f64::from(h) * 0.6;
    let style = format!(
        "{}: {:.0}px; {}: {:.0}px",
        if left { "right" } else { "left" },
        if left {
            f64::from(w) - x + 10.0
        } else {
            x + 10.0
        },
        if up { "bottom" } else { "top" },
        if up {
            f64::from(h) - y + 10.0
        } else {
            y + 10.0
        }
    );
    Some(html! {
        <div class={classes!("kv-tooltip", pinned.then_some("pinned"))} {style}>
            <div class="kv-tip-keys mono">
                { if start.text.is_empty() { html! { "start of table" } } else { key_html(&start) } }
                { " to " }
                { match &end { Some(e) => key_html(e), None => html! { "end of table" } } }
            </div>
            <div class="kv-tip-time">{ info.time }</div>
            <div class="kv-tip-value">{ info.value }</div>
            if let Some(place) = info.place {
                <div class="kv-tip-place">{ place }</div>
            }
            if pinned { <div class="kv-tip-hint">{ "Pinned: click again or press Escape to release" }</div> }
        </div>
    })
}

/// The key-prefix labels beside a map `h` CSS pixels tall, and the width
/// (in `ch`) of the gutter they take.
fn prefix_labels(map: &MapData, h: u32) -> (Html, usize) {
    let labels = label_boxes(map, f64::from(h.max(1)), LABEL_MIN_PX, LABEL_DEPTHS);
    let widths = label_widths(&labels, LABEL_CHARS);
    // Each depth's column starts after the ones before it (in `ch`, plus
    // a little padding).
    let lefts: Vec<usize> = widths
        .iter()
        .scan(0, |at, w| {
            let left = *at;
            *at += w + 1;
            Some(left)
        })
        .collect();
    let gutter = widths.iter().map(|w| w + 1).sum::<usize>();
    let html = html! {
        <div class="kv-labels" aria-label="Key prefixes" role="list">
            { for labels.iter().map(|l| html! {
                <div class={classes!("kv-label", format!("depth-{}", l.depth))} role="listitem"
                    style={format!("top: {:.3}%; height: {:.3}%; left: {}ch; width: {}ch",
                        l.top, l.height,
                        lefts.get(usize::from(l.depth)).copied().unwrap_or(0),
                        widths.get(usize::from(l.depth)).copied().unwrap_or(3))}
                    title={l.prefix.clone()}>
                    <span class={classes!("kv-label-text", format!("seg-{}", l.depth.min(5)))}>{ l.text.clone() }</span>
                </div>
            }) }
        </div>
    };
    (html, gutter)
}

/// Round ticks under a map `w` CSS pixels wide, as many as fit without
/// their labels touching.
fn time_axis(map: &MapData, w: u32) -> Html {
    let ticks = time_ticks(
        map.bucket_seconds * map.time_total as f64,
        f64::from(w),
        TICK_CHAR_PX,
        TICK_GAP_PX,
    );
    html! {
        <div class="kv-axis" aria-hidden="true">
            { for ticks.iter().map(|t| html! {
                <span class={classes!("kv-tick", t.align.class())} style={format!("left: {:.3}%", t.at)}>{ t.label.clone() }</span>
            }) }
        </div>
    }
}

/// Props of [`KeyVizTable`].
#[derive(Properties)]
pub(super) struct KeyVizTableProps {
    pub map: Rc<MapData>,
}

impl PartialEq for KeyVizTableProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.map, &other.map)
    }
}

/// Rows and columns of the data table.
const TABLE_ROWS: usize = 24;
const TABLE_COLUMNS: usize = 8;

/// The data-table alternative.
#[component(KeyVizTable)]
pub(super) fn key_viz_table(props: &KeyVizTableProps) -> Html {
    let table = use_memo(Rc::as_ptr(&props.map) as usize, {
        let map = Rc::clone(&props.map);
        move |_| data_table(&map, TABLE_ROWS, TABLE_COLUMNS)
    });
    if table.columns.is_empty() {
        return html! { <p class="hint">{ "Nothing simulated yet: play or step the simulation." }</p> };
    }
    html! {
        <div class="kv-table-wrap">
            <table class="kv-table">
                <caption>{ table.caption.clone() }</caption>
                <thead>
                    <tr>
                        <th scope="col">{ "key range" }</th>
                        { for table.columns.iter().map(|c| html! { <th scope="col" class="num">{ c.clone() }</th> }) }
                    </tr>
                </thead>
                <tbody>
                    { for table.rows.iter().map(|(label, cells)| html! {
                        <tr>
                            <th scope="row" class="mono">{ label.clone() }</th>
                            { for cells.iter().map(|v| html! { <td class="num">{ v.clone() }</td> }) }
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}
