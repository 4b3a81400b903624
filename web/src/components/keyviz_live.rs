//! The Key Visualizer's live view ("Your tables"): the selected table's
//! recorded traffic on its real key space, drawn with the simulation's
//! map, toolbar, legend and findings ([`super::keyviz_panel::map_view`]),
//! with a table picker and a line saying what was recorded; or, before
//! anything was, a sentence saying what to do to see traffic.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::keyviz_panel::{map_view, select_value};
use crate::state::live::{LiveAction, LiveState, LiveSummary, MAX_NODES};
use crate::view_model::filter::shell_quote;
use crate::view_model::format::format_count;
use crate::view_model::schema::TableSummary;
use tabletop_core::keyviz::human_seconds;

/// Props of [`LiveBody`].
#[derive(Properties, PartialEq)]
pub struct LiveBodyProps {
    /// The live slice.
    pub live: Rc<LiveState>,
    /// Its actions.
    pub on_live: Callback<LiveAction>,
    /// The real tables.
    pub tables: Rc<Vec<TableSummary>>,
    /// The selected table.
    pub selected: Option<String>,
    /// Selects a table.
    pub on_select: Callback<String>,
}

/// The live view's body.
#[component(LiveBody)]
pub fn live_body(props: &LiveBodyProps) -> Html {
    let live = &props.live;
    // Made once per `on_live` (which the workspace makes once): a new
    // callback at every redraw of this panel would redraw the map too.
    let on_map = use_memo(props.on_live.clone(), |on_live| {
        on_live.reform(LiveAction::Map)
    });
    if props.tables.is_empty() {
        return html! {
            <p class="placeholder kv-live-empty">
                { "There are no tables yet. Create one in the Schema panel or load sample data in the Rows panel, then run reads and writes in the Console: every operation shows up here, on the keys it touched." }
            </p>
        };
    }
    let shown = live.table.as_deref() == props.selected.as_deref();
    let body = match (&live.error, &live.summary, &live.map) {
        (Some(e), _, _) if shown => html! { <p class="error">{ e.clone() }</p> },
        (None, Some(summary), Some(map)) if shown && summary.has_traffic() => map_view(
            map,
            live.keyviz,
            &live.diagnostics,
            live.findings_open,
            &on_map,
        ),
        (None, Some(_), _) if shown => empty_state(props.selected.as_deref().unwrap_or("")),
        _ if live.building().is_some() => Html::default(),
        _ => html! { <p class="hint">{ "Reading the table's traffic…" }</p> },
    };
    let building = live
        .building()
        .map(|_| building_line(shown && live.map.is_some()));
    html! {
        <>
            <div class="kv-live-bar">
                { table_picker(&props.tables, props.selected.as_deref(), &props.on_select) }
                { node_picker(live.nodes(), &props.on_live) }
                if let Some(summary) = live.summary.as_ref().filter(|_| shown) {
                    <span class="kv-live-summary">{ summary_text(summary) }</span>
                }
            </div>
            { building.unwrap_or_default() }
            { body }
        </>
    }
}

/// The table the map shows (the same selection as the Rows panel's).
fn table_picker(tables: &[TableSummary], selected: Option<&str>, on: &Callback<String>) -> Html {
    let onchange = {
        let on = on.clone();
        Callback::from(move |e: Event| {
            if let Some(v) = select_value(&e) {
                on.emit(v);
            }
        })
    };
    html! {
        <label class="inline">
            <span>{ "Table" }</span>
            <select aria-label="Table" {onchange}>
                { for tables.iter().map(|t| html! {
                    <option value={t.name.clone()} selected={Some(t.name.as_str()) == selected}>{ t.name.clone() }</option>
                }) }
            </select>
        </label>
    }
}

/// How many nodes the table's tablets are given to: a browser has no
/// real nodes, so the simulator's balancer places the tablets on these.
fn node_picker(nodes: u32, on_live: &Callback<LiveAction>) -> Html {
    let onchange = {
        let on_live = on_live.clone();
        Callback::from(move |e: Event| {
            let value = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                .and_then(|i| i.value().trim().parse::<u32>().ok());
            if let Some(n) = value {
                on_live.emit(LiveAction::Nodes(n));
            }
        })
    };
    html! {
        <label class="inline kv-nodes" title="There are no real nodes here: the simulator's balancer gives the table's tablets to this many nodes, by the load recorded, and each cell names its tablet and node">
            <span>{ "Nodes" }</span>
            <input type="number" min="1" max={MAX_NODES.to_string()} step="1" value={nodes.to_string()}
                aria-label="Nodes" {onchange} />
        </label>
    }
}

/// What was recorded, in one line: `4 rows in 1 tablet on 1 node; 12 operations
/// (3 scans): 9 rows read, 4 written, over 2 min`.
pub fn summary_text(s: &LiveSummary) -> String {
    let t = &s.totals;
    let count = |v: f64| format_count(v.round().max(0.0) as u64);
    let tablets = s.tablets.len();
    let mut nodes: Vec<u32> = s.tablets.iter().map(|t| t.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let stored = format!(
        "{} row{} in {} tablet{} on {} node{}",
        count(s.rows),
        if s.rows.round() == 1.0 { "" } else { "s" },
        tablets,
        if tablets == 1 { "" } else { "s" },
        nodes.len(),
        if nodes.len() == 1 { "" } else { "s" }
    );
    if !s.has_traffic() {
        return stored;
    }
    let ops = t.point_ops + t.scans;
    format!(
        "{stored}; {} operation{} ({} scan{}): {} rows read, {} written, over {}",
        count(ops),
        if ops.round() == 1.0 { "" } else { "s" },
        count(t.scans),
        if t.scans.round() == 1.0 { "" } else { "s" },
        count(t.read_rows),
        count(t.write_rows),
        human_seconds(s.seconds)
    )
}

/// A build is under way, in slices between frames, while the map drawn
/// before (if any) stays. The line is drawn once, when the build starts:
/// drawing the panel at every slice would cost more than the slice.
fn building_line(has_map: bool) -> Html {
    let text = if has_map {
        "Adding your latest operations to the map: reading the table…"
    } else {
        "Drawing this table's map: reading the table…"
    };
    html! {
        <p class="kv-building" role="status">{ text }</p>
    }
}

/// Before any operation was recorded on the table: what to do.
fn empty_state(table: &str) -> Html {
    html! {
        <div class="kv-intro kv-live-empty">
            <p class="placeholder">
                { format!("Nothing has been recorded on {table} yet.") }
            </p>
            <p class="hint">
                { "Run a read or a write in the Console (for example " }
                <code>{ format!("read {} count=10", shell_quote(table)) }</code>
                { "), or load sample data from the Rows panel: each operation lights up the keys it touched, at the time it ran." }
            </p>
        </div>
    }
}
