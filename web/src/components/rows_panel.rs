//! The Rows panel: the selected table in byte order of its keys, as
//! Bigtable stores it, with every cell version and its timestamp.
//!
//! The list is virtual. The scrollbar stands for row positions (24 CSS
//! pixels each, capped for huge tables); scrolling tells the state which
//! position is on top, the state reads just the rows that fit from the core,
//! and they are drawn in a window that stays put (`position: sticky`) while
//! the spacer below it scrolls. A million rows cost the same as a hundred.
//!
//! The toolbar holds "go to key", "compact now" (GC-eligible versions fade
//! out as they are collected) and the sample-data generator.

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use super::key_view::key_html;
use crate::state::AppContext;
use crate::state::generator::{GeneratorSpec, SIZES};
use crate::state::rows::{RowsState, RowsWindow, Viewport};
use crate::view_model::keys::parse_key_text;
use crate::view_model::rows::{CELLS_SHOWN, RowLine};
use crate::view_model::schema::TableSummary;
use crate::view_model::{count_noun, format_count};

/// Scroll pixels per row position.
const ROW_UNIT_PX: f64 = 24.0;
/// Most scroll pixels (browsers cap element heights around 16 to 33 million).
const MAX_SCROLL_PX: f64 = 4_000_000.0;
/// How long collected cells take to fade out, in milliseconds.
const FADE_MS: u32 = 1400;

/// Props of [`RowsPanel`].
#[derive(Properties, PartialEq)]
pub struct RowsPanelProps {
    /// The panel's state.
    pub rows: Rc<RowsState>,
    /// The selected table.
    pub table: Option<TableSummary>,
    /// Whether a data load is in progress. Its progress, which moves on
    /// every slice of the load, is read from the app's context by
    /// [`Progress`] alone, so a slice redraws the progress bar and not the
    /// whole panel.
    pub loading: bool,
    /// The generator form.
    pub generator: GeneratorSpec,
    /// The visible area changed size.
    pub on_viewport: Callback<Viewport>,
    /// Scrolled to a row position.
    pub on_scroll: Callback<u64>,
    /// Go to the first row at or after a key.
    pub on_go_to: Callback<Vec<u8>>,
    /// Expand or collapse a row.
    pub on_toggle: Callback<Vec<u8>>,
    /// Compact now.
    pub on_compact: Callback<()>,
    /// The fade-out is over.
    pub on_ghost_done: Callback<u64>,
    /// The generator form changed.
    pub on_generator: Callback<GeneratorSpec>,
    /// Start generating.
    pub on_start: Callback<()>,
    /// Stop generating.
    pub on_cancel: Callback<()>,
    /// The header's maximize button (empty where the panel cannot take
    /// the workspace).
    #[prop_or_default]
    pub maximize: Html,
}

/// Scroll pixels for positions up to `max_top`.
fn scroll_range(max_top: u64) -> f64 {
    // Display arithmetic: positions are far below 2^52.
    #[allow(clippy::cast_precision_loss)]
    let px = max_top as f64 * ROW_UNIT_PX;
    px.min(MAX_SCROLL_PX)
}

/// The position on top for a scroll offset.
fn top_for_scroll(scroll: f64, max_top: u64) -> u64 {
    let range = scroll_range(max_top);
    if range <= 0.0 {
        return 0;
    }
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let top = ((scroll / range).clamp(0.0, 1.0) * max_top as f64).round() as u64;
    top
}

/// The scroll offset for a position on top.
fn scroll_for_top(top: u64, max_top: u64) -> f64 {
    if max_top == 0 {
        return 0.0;
    }
    #[allow(clippy::cast_precision_loss)]
    let fraction = top.min(max_top) as f64 / max_top as f64;
    fraction * scroll_range(max_top)
}

/// The panel.
#[component(RowsPanel)]
pub fn rows_panel(props: &RowsPanelProps) -> Html {
    let viewport = use_node_ref();
    // The scroll offset the panel itself set last, so the scroll event
    // that follows is not taken for a person scrolling.
    let programmatic = use_mut_ref(|| None::<i32>);
    // The position the last scroll event asked for: when the state arrives
    // there, the scrollbar is already right and need not be read (reading
    // scrollTop right after a render forces a layout).
    let scrolled_to = use_mut_ref(|| None::<u64>);
    let rows = &props.rows;
    let max_top = rows.max_top();

    use_report_viewport(&viewport, &props.on_viewport);
    use_keep_scroll(&viewport, rows, &programmatic, &scrolled_to);
    use_end_fade(rows, &props.on_ghost_done);

    let onscroll = {
        let on_scroll = props.on_scroll.clone();
        let current = rows.top;
        let programmatic = programmatic.clone();
        let scrolled_to = scrolled_to.clone();
        Callback::from(move |e: Event| {
            let element: web_sys::Element = e.target_unchecked_into();
            let offset = element.scroll_top();
            if programmatic.borrow_mut().take() == Some(offset) {
                return;
            }
            let top = top_for_scroll(f64::from(offset), max_top);
            if top != current {
                *scrolled_to.borrow_mut() = Some(top);
                on_scroll.emit(top);
            }
        })
    };

    let (window, fading) = match &rows.ghost {
        Some((_, ghost)) => (Rc::clone(ghost), true),
        None => (Rc::clone(&rows.window), false),
    };
    let any_eligible = window
        .lines
        .iter()
        .any(|l| l.cells.iter().any(|c| c.gc_eligible));
    let body = body_html(props, &window, fading);
    let spacer = format!("height: {}px", scroll_range(max_top).round());
    let table_name = props.table.as_ref().map(|t| t.name.clone());

    html! {
        <section class="panel rows-panel" aria-label="Rows">
            <header class="panel-head">
                <h2 class="panel-title">
                    { "Rows" }
                    if let Some(name) = &table_name {
                        <span class="title-table mono">{ name.clone() }</span>
                    }
                </h2>
                <Toolbar
                    has_table={table_name.is_some()}
                    loading={props.loading}
                    generator={props.generator.clone()}
                    on_go_to={props.on_go_to.clone()}
                    on_compact={props.on_compact.clone()}
                    on_generator={props.on_generator.clone()}
                    on_start={props.on_start.clone()}
                    on_cancel={props.on_cancel.clone()}
                />
                { props.maximize.clone() }
            </header>
            if props.loading {
                <Progress on_cancel={props.on_cancel.clone()} />
            }
            <div class={classes!("rows-viewport", rows.stacked.then_some("stacked"))} ref={viewport} {onscroll} tabindex="0"
                aria-label="Rows in key order: scroll, or use the arrow, Page Up, Page Down, Home and End keys">
                <div class="rows-window">{ body }</div>
                <div class="rows-spacer" style={spacer}></div>
            </div>
            <footer class="rows-foot">
                <span id="rows-position">{ position_text(rows, &window) }</span>
                <span id="read-stats" class="muted">{ read_text(&window) }</span>
                if any_eligible && !fading {
                    <span class="hint">{ "Struck-out versions are past their GC rule but stay readable until a compaction: try Compact now." }</span>
                }
            </footer>
        </section>
    }
}

/// Reports the visible size now and whenever the panel is resized. The
/// style sheet sizes the viewport without regard to its content
/// (`contain: size`), so the spacer that the reported height resizes
/// cannot resize the viewport again.
fn use_report_viewport(
    viewport: &NodeRef,
    on_viewport: &Callback<Viewport>,
) -> impl Hook<Output = ()> {
    let viewport = viewport.clone();
    let on_viewport = on_viewport.clone();
    use_effect_with((), move |()| {
        let watch = viewport.cast::<web_sys::HtmlElement>().and_then(|element| {
            let watched = element.clone();
            crate::browser::watch_size(&watched, move || {
                let h = element.client_height();
                if h > 0 {
                    on_viewport.emit(Viewport {
                        height_px: u32::try_from(h).unwrap_or(0),
                        width_px: u32::try_from(element.offset_width()).unwrap_or(0),
                    });
                }
            })
        });
        move || drop(watch)
    })
}

/// Keeps the scrollbar where the state says (after "go to key", a jump
/// from the Tablets bar, or a new table). `programmatic` is the offset set
/// here last; `scrolled_to`, the position the last scroll event asked for.
fn use_keep_scroll(
    viewport: &NodeRef,
    rows: &RowsState,
    programmatic: &Rc<RefCell<Option<i32>>>,
    scrolled_to: &Rc<RefCell<Option<u64>>>,
) -> impl Hook<Output = ()> {
    let viewport = viewport.clone();
    let programmatic = Rc::clone(programmatic);
    let scrolled_to = Rc::clone(scrolled_to);
    use_effect_with(
        (rows.top, rows.max_top(), rows.table.clone()),
        move |(top, max_top, _)| {
            if scrolled_to.borrow_mut().take() == Some(*top) {
                return;
            }
            if let Some(element) = viewport.cast::<web_sys::Element>() {
                let current = f64::from(element.scroll_top());
                if top_for_scroll(current, *max_top) != *top {
                    // Whole pixels: scrollTop takes an integer here.
                    #[allow(clippy::cast_possible_truncation)]
                    element.set_scroll_top(scroll_for_top(*top, *max_top).round() as i32);
                    *programmatic.borrow_mut() = Some(element.scroll_top());
                }
            }
        },
    )
}

/// Ends the fade-out after a compaction.
fn use_end_fade(rows: &RowsState, on_ghost_done: &Callback<u64>) -> impl Hook<Output = ()> {
    let ghost = rows.ghost.as_ref().map(|(id, _)| *id);
    let on_ghost_done = on_ghost_done.clone();
    use_effect_with(ghost, move |ghost| {
        let timer = ghost.map(|id| {
            gloo::timers::callback::Timeout::new(FADE_MS, move || on_ghost_done.emit(id))
        });
        move || drop(timer)
    })
}

fn body_html(props: &RowsPanelProps, window: &RowsWindow, fading: bool) -> Html {
    let rows = &props.rows;
    if props.table.is_none() {
        return html! { <p class="empty">{ "Select a table in the Schema panel, or load sample data." }</p> };
    }
    if let Some(error) = &window.error {
        return html! { <p class="error" role="status">{ format!("ReadRows failed: {error}") }</p> };
    }
    if window.lines.is_empty() {
        return html! {
            <p class="empty">
                { "The table has no rows yet. Write some in the console (" }<code>{ "set TABLE ROW FAMILY:COLUMN=VALUE" }</code>
                { ") or load sample data." }
            </p>
        };
    }
    let lines = window.lines.iter().enumerate().map(|(i, line)| {
        row_html(
            line,
            i,
            window.first_row + i as u64,
            fading,
            &props.on_toggle,
        )
    });
    html! {
        <ol class={classes!("rows", fading.then_some("fading"))} id="rows" aria-busy={(!rows.index.exact).to_string()}>
            { for lines }
        </ol>
    }
}

/// One row. Rows are keyed by their slot on screen, not by row key, so
/// scrolling updates the same few DOM nodes instead of replacing them.
fn row_html(
    line: &RowLine,
    slot: usize,
    position: u64,
    fading: bool,
    on_toggle: &Callback<Vec<u8>>,
) -> Html {
    let toggle = line.can_expand().then(|| {
        let on_toggle = on_toggle.clone();
        let key = line.key_bytes.clone();
        let onclick = Callback::from(move |_: MouseEvent| on_toggle.emit(key.clone()));
        let text = if line.expanded {
            "show fewer cells".to_string()
        } else {
            format!("show all {} cells (+{})", line.total_cells, line.total_cells - CELLS_SHOWN)
        };
        html! {
            <li class="cell more">
                <button type="button" class="link-button" {onclick} aria-expanded={line.expanded.to_string()}>{ text }</button>
            </li>
        }
    });
    html! {
        <li class="row" key={slot} style={format!("height: {}px", line.height_px())}>
            <div class="row-key mono" title={line.key.text.clone()}>
                <span class="row-pos" aria-label={format!("row {}", position + 1)}>{ format_count(position + 1) }</span>
                <span class="key">{ key_html(&line.key) }</span>
            </div>
            <ul class="cells">
                { for line.cells.iter().map(|cell| {
                    let column = if cell.first_version {
                        html! { <><span class="fam">{ cell.family.clone() }</span><span class="colon">{ ":" }</span><span class="qual">{ cell.qualifier.clone() }</span></> }
                    } else {
                        html! { <span class="older" title={format!("an older version of {}:{}", cell.family, cell.qualifier)}>{ "↳ older version" }</span> }
                    };
                    let classes = classes!(
                        "cell",
                        "mono",
                        cell.gc_eligible.then_some("gc-eligible"),
                        (cell.gc_eligible && fading).then_some("collecting"),
                    );
                    let col = html! {
                        <span class="col" title={format!("{}:{}", cell.family, cell.qualifier)}>{ column }</span>
                    };
                    let ts = html! {
                        <time class="ts" title={format!("{} µs since the Unix epoch", format_count_signed(cell.timestamp_micros))}>{ cell.time.clone() }</time>
                    };
                    let value = html! {
                        <>
                            <span class="value" title={cell.full_value.clone().unwrap_or_else(|| cell.value.clone())}>{ cell.value.clone() }</span>
                            if let Some(decoded) = &cell.decoded {
                                <span class="decoded">{ decoded.clone() }</span>
                            }
                            if cell.gc_eligible {
                                <span class="badge" title="The family's GC rule allows deleting this version; Bigtable deletes it at the next compaction.">
                                    { if fading { "collected" } else { "awaiting GC" } }
                                </span>
                            }
                        </>
                    };
                    if line.stacked {
                        // Two lines: the column; the value, then its
                        // timestamp (which gives way first). The timestamp
                        // comes first in the text, as on one line; the style
                        // sheet draws it after the value.
                        html! {
                            <li class={classes!(classes, "stacked")}>
                                <div class="cell-line">{ col }</div>
                                <div class="cell-line">{ ts }{ value }</div>
                            </li>
                        }
                    } else {
                        html! { <li class={classes}>{ col }{ ts }{ value }</li> }
                    }
                }) }
                { for toggle }
            </ul>
        </li>
    }
}

fn format_count_signed(n: i64) -> String {
    if n < 0 {
        format!("-{}", format_count(n.unsigned_abs()))
    } else {
        format_count(n.unsigned_abs())
    }
}

fn position_text(rows: &RowsState, window: &RowsWindow) -> String {
    let total = rows.total_rows();
    if rows.table.is_none() {
        return String::new();
    }
    if let Some(error) = &rows.index.error {
        return format!("Row count unavailable: {error}");
    }
    let of = if rows.index.exact {
        count_noun(total, "row")
    } else {
        format!("{}+ rows (counting…)", format_count(total))
    };
    if window.lines.is_empty() {
        return of;
    }
    let first = window.first_row + 1;
    let last = window.first_row + window.lines.len() as u64;
    format!(
        "Rows {}–{} of {of}",
        format_count(first),
        format_count(last)
    )
}

fn read_text(window: &RowsWindow) -> String {
    if window.lines.is_empty() {
        return String::new();
    }
    let tablets = match window.tablets.as_slice() {
        [] => String::new(),
        [one] => format!(" in tablet #{one}"),
        many => format!(" in {} tablets", many.len()),
    };
    format!(
        "This view read {} and {}{tablets}",
        count_noun(window.rows_seen, "row"),
        count_noun(window.cells_seen, "cell"),
    )
}

/// Props of [`Toolbar`].
#[derive(Properties, PartialEq)]
struct ToolbarProps {
    has_table: bool,
    loading: bool,
    generator: GeneratorSpec,
    on_go_to: Callback<Vec<u8>>,
    on_compact: Callback<()>,
    on_generator: Callback<GeneratorSpec>,
    on_start: Callback<()>,
    on_cancel: Callback<()>,
}

/// Go to key, compact now, and the generator form.
#[component(Toolbar)]
fn toolbar(props: &ToolbarProps) -> Html {
    let key_text = use_state(String::new);
    let key_error = use_state(|| None::<String>);
    let details = use_node_ref();
    let on_compact = {
        let cb = props.on_compact.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    html! {
        <div class="toolbar">
            { go_to_key(props.has_table, &props.on_go_to, &key_text, &key_error) }
            <button type="button" class="button small" onclick={on_compact} disabled={!props.has_table || props.loading}
                title="Flush and compact every tablet of the table now: versions the GC rules allow deleting are collected">
                { "Compact now" }
            </button>
            { sample_data(props, &details) }
        </div>
    }
}

/// The go-to-key form, its key (`key_text`) checked as it is typed
/// (`key_error`).
fn go_to_key(
    has_table: bool,
    on_go_to: &Callback<Vec<u8>>,
    key_text: &UseStateHandle<String>,
    key_error: &UseStateHandle<Option<String>>,
) -> Html {
    let on_key = {
        let key_text = key_text.clone();
        let key_error = key_error.clone();
        Callback::from(move |e: InputEvent| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value();
            key_error.set(parse_key_text(&v).err());
            key_text.set(v);
        })
    };
    let on_go = {
        let key_text = key_text.clone();
        let on_go_to = on_go_to.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Ok(key) = parse_key_text(&key_text) {
                on_go_to.emit(key);
            }
        })
    };
    html! {
        <form class="go-to" onsubmit={on_go} aria-label="Go to a row key">
            <input class="mono" type="search" placeholder="go to key…" value={(**key_text).clone()} oninput={on_key}
                aria-label="Go to row key" aria-invalid={key_error.is_some().to_string()} disabled={!has_table} />
            <button type="submit" class="button small" disabled={!has_table || key_error.is_some()}>{ "Go" }</button>
        </form>
    }
}

/// Load sample data: the generator's table, rows and seed, behind a
/// disclosure (`details`) that closes when it starts.
fn sample_data(props: &ToolbarProps, details: &NodeRef) -> Html {
    let spec = props.generator.clone();
    // A change of one field, made into the whole spec.
    let set = |f: fn(&mut GeneratorSpec, String)| {
        let spec = spec.clone();
        let cb = props.on_generator.clone();
        move |value: String| {
            let mut next = spec.clone();
            f(&mut next, value);
            cb.emit(next);
        }
    };
    let on_table = {
        let set = set(|s, v| s.table = v);
        Callback::from(move |e: InputEvent| {
            set(e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value());
        })
    };
    let on_rows = {
        let set = set(|s, v| s.rows = v.parse().unwrap_or(s.rows));
        Callback::from(move |e: Event| {
            set(e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value());
        })
    };
    let on_seed = {
        let set = set(|s, v| s.seed = v.parse().unwrap_or(s.seed));
        Callback::from(move |e: InputEvent| {
            set(e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value());
        })
    };
    let on_start = {
        let cb = props.on_start.clone();
        let details = details.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            // Close the form: the progress bar takes over.
            if let Some(d) = details.cast::<web_sys::Element>() {
                let _ = d.remove_attribute("open");
            }
            cb.emit(());
        })
    };
    let table_ok =
        tabletop_core::validate_table_id(&spec.table).map_err(|e| e.message().to_string());
    html! {
        <details class="generator" ref={details.clone()}>
            <summary class="button small">{ "Load sample data" }</summary>
            <form class="generator-form" onsubmit={on_start} aria-label="Sample data">
                <p class="hint">{ "The phone and tablet time series of Bigtable's schema guide: " }<span class="mono">{ "phone#4c410523#20200501" }</span>{ ", three or four cells per row, generated in your browser a slice per frame." }</p>
                <label class="field">
                    <span>{ "Table" }</span>
                    <input class="mono" type="text" value={spec.table.clone()} oninput={on_table} aria-label="Table to load into" />
                </label>
                if let Err(message) = &table_ok {
                    <p class="field-error" role="alert">{ message.clone() }</p>
                }
                <label class="field">
                    <span>{ "Rows" }</span>
                    <select onchange={on_rows} aria-label="Rows to generate">
                        { for SIZES.iter().map(|n| html! {
                            <option value={n.to_string()} selected={*n == spec.rows}>{ format_count(*n) }</option>
                        }) }
                    </select>
                </label>
                <label class="field">
                    <span>{ "Seed" }</span>
                    <input class="num" type="number" min="0" value={spec.seed.to_string()} oninput={on_seed} aria-label="Seed" />
                </label>
                <button type="submit" class="button primary small" disabled={props.loading || table_ok.is_err()}>{ "Generate" }</button>
            </form>
        </details>
    }
}

/// Props of [`Progress`].
#[derive(Properties, PartialEq)]
struct ProgressProps {
    on_cancel: Callback<()>,
}

/// The data generator's progress bar. The job comes from the app's
/// context: this small component is all a slice of the load redraws.
#[component(Progress)]
fn progress(props: &ProgressProps) -> Html {
    let app = use_context::<AppContext>();
    let Some(job) = app.as_ref().and_then(|app| app.job.as_ref()) else {
        return html! {};
    };
    // Display arithmetic.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let percent = (job.fraction() * 100.0).round() as u32;
    let on_cancel = {
        let cb = props.on_cancel.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    html! {
        <div class="progress-line">
            <div class="progress" role="progressbar" aria-label="Loading sample data" aria-valuemin="0" aria-valuemax="100" aria-valuenow={percent.to_string()}>
                <div class="progress-fill" style={format!("width: {percent}%")}></div>
            </div>
            <span class="progress-text">
                { format!("Loading {} of {} rows into {}", format_count(job.done), format_count(job.spec.rows), job.spec.table) }
            </span>
            <button type="button" class="button small" onclick={on_cancel}>{ "Cancel" }</button>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scroll_offsets_and_positions_map_both_ways() {
        assert_eq!(top_for_scroll(0.0, 0), 0);
        assert!((scroll_range(100) - 2400.0).abs() < f64::EPSILON);
        assert_eq!(top_for_scroll(1200.0, 100), 50);
        assert_eq!(top_for_scroll(99_999.0, 100), 100);
        for top in [0, 1, 17, 999_980] {
            assert_eq!(top_for_scroll(scroll_for_top(top, 999_980), 999_980), top);
        }
        // A million rows fit in the capped range.
        assert!((scroll_range(1_000_000) - MAX_SCROLL_PX).abs() < f64::EPSILON);
    }
}
