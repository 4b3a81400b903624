//! The Console: a `cbt` tab, a JSON tab and a SQL tab, run by the same
//! interpreters as the command line, with a transcript, history on the
//! arrow keys, a report under every read (rows and cells seen against
//! returned, the tablets visited) and a mark beside silent successes and
//! failures. The filter builder sits beside the transcript; under it, a
//! line of suggestions built from the tables there are
//! ([`crate::view_model::console`]). *Change stream* puts the selected
//! table's live change feed there instead ([`super::change_feed`]). *Taller* gives the console most of
//! the window's height, so an EXPLAIN or a read fits, and back.
//!
//! Keys in the Command box: Enter runs in the cbt tab, and in the SQL tab
//! once the statement is complete (Shift+Enter adds a line); Ctrl+Enter or
//! Cmd+Enter runs in every tab; Up and Down at the first or last line
//! browse this tab's history.

use std::rc::Rc;

use yew::prelude::*;

use super::change_feed::ChangeFeedPane;
use super::filter_builder::FilterBuilder;
use crate::state::console::{ConsoleState, Entry, Source, Tab};
use crate::state::layout::{Layout, Splitter};
use crate::view_model::change_feed::ChangeFeed;
use crate::view_model::console::{
    EntryMark, SuggestionInput, done_title, echo_note, entry_mark, suggestions,
};
use crate::view_model::format_count;
use crate::view_model::schema::TableSummary;

/// The share of the window's height the console takes when made taller.
const TALL_SHARE: f64 = 0.62;

/// Props of [`ConsolePanel`].
#[derive(Properties, PartialEq)]
pub struct ConsolePanelProps {
    /// The console's state.
    pub console: Rc<ConsoleState>,
    /// The tables (for the filter builder).
    pub tables: Rc<Vec<TableSummary>>,
    /// The selected table.
    pub selected: Option<String>,
    /// A row key on screen and its table, for the suggestions' key prefix.
    #[prop_or_default]
    pub sample: Option<(String, Vec<u8>)>,
    /// The instance's name, for JSON table names.
    pub instance_name: String,
    /// The console's height setting, in CSS pixels.
    #[prop_or(Layout::default().bottom)]
    pub height: u32,
    /// Whether the console has a height of its own to change (not when it
    /// is alone in an embed, or maximized).
    #[prop_or_default]
    pub resizable: bool,
    /// Resize the console (the same request its drag handle makes).
    #[prop_or_default]
    pub on_resize: Callback<(Splitter, i64)>,
    /// Show a tab.
    pub on_tab: Callback<Tab>,
    /// The input changed.
    pub on_input: Callback<String>,
    /// Run the input.
    pub on_run: Callback<()>,
    /// Browse history (`true`: back).
    pub on_history: Callback<bool>,
    /// Clear the transcript.
    pub on_clear: Callback<()>,
    /// Put a command into a tab.
    pub on_insert: Callback<(Tab, String)>,
    /// The selected table's change stream feed.
    #[prop_or_default]
    pub changes: Rc<ChangeFeed>,
    /// Turn a table's change stream on (days kept) or off.
    #[prop_or_default]
    pub on_change_stream: Callback<(String, Option<u32>)>,
    /// The header's maximize button (empty where the panel cannot take
    /// the workspace).
    #[prop_or_default]
    pub maximize: Html,
    /// Whether answers are Google's emulator's (emulator parity is on).
    #[prop_or_default]
    pub emulator_parity: bool,
}

/// What sits beside the transcript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    None,
    Builder,
    Changes,
}

/// The panel.
#[component(ConsolePanel)]
pub fn console_panel(props: &ConsolePanelProps) -> Html {
    let transcript = use_node_ref();
    let input_ref = use_node_ref();
    let side = use_state(|| Side::None);
    let console = &props.console;
    let tab = console.tab;

    // Follow the newest entry.
    {
        let transcript = transcript.clone();
        let last = console.entries.last().map(|e| e.id);
        use_effect_with(last, move |last| {
            if let (Some(_), Some(element)) = (last, transcript.cast::<web_sys::Element>()) {
                element.set_scroll_top(element.scroll_height());
            }
        });
    }

    let toggle = |which: Side| {
        let side = side.clone();
        Callback::from(move |_: MouseEvent| {
            side.set(if *side == which { Side::None } else { which });
        })
    };
    let on_builder = toggle(Side::Builder);
    let on_changes = toggle(Side::Changes);
    let on_clear = {
        let cb = props.on_clear.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let tall = props.height > Layout::default().bottom;
    html! {
        <section class={classes!("panel", "console-panel", tall.then_some("tall"))} aria-label="Console" style="grid-area: console">
            <header class="panel-head">
                <h2 class="panel-title">{ "Console" }</h2>
                <div class="tabs" role="tablist" aria-label="Language">
                    { tab_button(Tab::Cbt, tab, &props.on_tab, &input_ref) }
                    { tab_button(Tab::Json, tab, &props.on_tab, &input_ref) }
                    { tab_button(Tab::Sql, tab, &props.on_tab, &input_ref) }
                </div>
                if props.emulator_parity {
                    <span class="panel-meta parity-note" title="Emulator parity is on (in the page header): answers are the ones Google's Bigtable emulator gives where it differs from production">{ "emulator's answers" }</span>
                } else {
                    <span class="panel-meta">{ "same interpreters as the tabletop CLI" }</span>
                }
                <span class="spacer"></span>
                <button type="button" class="button small" onclick={on_builder} aria-expanded={(*side == Side::Builder).to_string()}>{ "Filter builder" }</button>
                <button type="button" class="button small change-stream-toggle" onclick={on_changes} aria-expanded={(*side == Side::Changes).to_string()}
                    title="The selected table's change stream: each change as it commits">
                    { "Change stream" }
                    if !props.changes.lines.is_empty() {
                        <span class="count-badge">{ format_count(props.changes.kept as u64) }</span>
                    }
                </button>
                <button type="button" class="button small subtle" onclick={on_clear}>{ "Clear" }</button>
                if props.resizable {
                    { taller_button(tall, &props.on_resize) }
                }
                { props.maximize.clone() }
            </header>
            <div class={classes!("console-body", match *side {
                Side::None => None,
                Side::Builder => Some("with-builder"),
                Side::Changes => Some("with-changes"),
            })}>
                <div class="transcript" ref={transcript} role="log" aria-label="Console output" tabindex="0">
                    if console.entries.is_empty() {
                        <div class="welcome">
                            <p>{ "Type a command below, or pick one of the suggestions under this box. The cbt tab prints exactly what the cbt tool prints; JSON takes Bigtable's REST requests in proto3 JSON, one per line; SQL runs GoogleSQL for Bigtable (EXPLAIN shows the plan). Every read also reports the rows and cells it saw against those it returned, and the tablets it visited." }</p>
                        </div>
                    } else {
                        { for console.entries.iter().map(entry_html) }
                    }
                </div>
                if *side == Side::Builder {
                    <FilterBuilder tables={Rc::clone(&props.tables)} selected={props.selected.clone()}
                        instance_name={props.instance_name.clone()} on_insert={props.on_insert.clone()} />
                }
                if *side == Side::Changes {
                    <ChangeFeedPane feed={Rc::clone(&props.changes)} on_change_stream={props.on_change_stream.clone()} />
                }
            </div>
            { console_io(props, &input_ref) }
        </section>
    }
}

/// A language tab; choosing it puts the caret in the Command box.
fn tab_button(t: Tab, shown: Tab, on_tab: &Callback<Tab>, input_ref: &NodeRef) -> Html {
    let on_tab = on_tab.clone();
    let input_ref = input_ref.clone();
    let onclick = Callback::from(move |_: MouseEvent| {
        on_tab.emit(t);
        if let Some(input) = input_ref.cast::<web_sys::HtmlElement>() {
            let _ = input.focus();
        }
    });
    html! {
        <button type="button" role="tab" id={format!("console-tab-{}", t.slug())}
            aria-selected={(t == shown).to_string()} aria-controls="console-io"
            class={classes!("tab", (t == shown).then_some("active"))} {onclick}>
            { t.label() }
        </button>
    }
}

/// Taller: the console takes most of the window (so an EXPLAIN or a read
/// fits), through the same resize its drag handle makes; pressed again
/// (`tall`), it goes back to its default height.
fn taller_button(tall: bool, on_resize: &Callback<(Splitter, i64)>) -> Html {
    let default_height = Layout::default().bottom;
    let on_tall = {
        let on_resize = on_resize.clone();
        Callback::from(move |_: MouseEvent| {
            let px = if tall {
                i64::from(default_height)
            } else {
                let window = gloo::utils::window()
                    .inner_height()
                    .ok()
                    .and_then(|h| h.as_f64())
                    .unwrap_or(900.0);
                #[allow(clippy::cast_possible_truncation)]
                let px = (window * TALL_SHARE).round() as i64;
                px.max(i64::from(default_height) + 1)
            };
            on_resize.emit((Splitter::Bottom, px));
        })
    };
    html! {
        <button type="button" class="button small tall-toggle" onclick={on_tall} aria-pressed={tall.to_string()}
            title={if tall { "Back to the console's usual height" } else { "Give the console most of the window's height" }}>
            <span aria-hidden="true">{ "↕ " }</span>{ "Taller" }
        </button>
    }
}

/// What changes with the language tab: the suggestions, the Command box
/// and its keys (the transcript keeps every language).
fn console_io(props: &ConsolePanelProps, input_ref: &NodeRef) -> Html {
    let console = &props.console;
    let tab = console.tab;
    let oninput = {
        let cb = props.on_input.clone();
        Callback::from(move |e: InputEvent| {
            cb.emit(
                e.target_unchecked_into::<web_sys::HtmlTextAreaElement>()
                    .value(),
            );
        })
    };
    let onkeydown = command_keys(tab, &props.on_run, &props.on_history);
    let onsubmit = {
        let on_run = props.on_run.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on_run.emit(());
        })
    };
    let suggested = suggestions(
        tab,
        &SuggestionInput {
            tables: &props.tables,
            selected: props.selected.as_deref(),
            sample: props
                .sample
                .as_ref()
                .map(|(table, key)| (table.as_str(), key.as_slice())),
            instance_name: &props.instance_name,
        },
    );
    let chips = suggested.chips.into_iter().map(|chip| {
        let on_insert = props.on_insert.clone();
        let title = (chip.text != chip.label).then(|| chip.text.clone());
        let (t, text) = (chip.tab, chip.text);
        let onclick = Callback::from(move |_: MouseEvent| on_insert.emit((t, text.clone())));
        html! { <button type="button" class="chip mono" {title} {onclick}>{ chip.label }</button> }
    });
    let rows = if tab != Tab::Cbt || console.input().contains('\n') {
        "3"
    } else {
        "1"
    };
    html! {
        <div class="console-io" id="console-io" role="tabpanel" aria-labelledby={format!("console-tab-{}", tab.slug())}>
        <div class="console-suggestions chips" role="group" aria-label="Suggested commands">
            <span class="suggestions-label" aria-hidden="true">{ "Try" }</span>
            { for chips }
        </div>
        <form class="console-input" {onsubmit}>
            <span class="prompt mono" aria-hidden="true">{ format!("{}>", tab.slug()) }</span>
            <textarea ref={input_ref.clone()} class="mono" aria-label="Command" rows={rows} spellcheck="false" autocomplete="off"
                value={console.input().to_string()} {oninput} {onkeydown} placeholder={suggested.placeholder} />
            <button type="submit" class="button primary">{ "Run" }</button>
        </form>
        <p class="console-hint hint">
            { match tab {
                Tab::Cbt => "Enter runs · Shift+Enter new line · ",
                Tab::Json => "Ctrl/⌘+Enter runs · ",
                Tab::Sql => "Enter runs a complete statement · Shift+Enter new line · Ctrl/⌘+Enter runs · ",
            } }
            { "↑ ↓ history" }
            { format!(" · {} in history", format_count(console.history.iter().filter(|(t, _)| *t == tab).count() as u64)) }
        </p>
        </div>
    }
}

/// The Command box's keys in `tab`: Enter (or Ctrl/Cmd+Enter) runs, Up and
/// Down at the first or last line browse history.
fn command_keys(
    tab: Tab,
    on_run: &Callback<()>,
    on_history: &Callback<bool>,
) -> Callback<KeyboardEvent> {
    let on_run = on_run.clone();
    let on_history = on_history.clone();
    Callback::from(move |e: KeyboardEvent| {
        let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
        let value = area.value();
        let key = e.key();
        if key == "Enter"
            && (e.ctrl_key()
                || e.meta_key()
                || (!e.shift_key()
                    && (tab == Tab::Cbt
                        || (tab == Tab::Sql && crate::state::tools::sql_ready(&value)))))
        {
            e.prevent_default();
            on_run.emit(());
            return;
        }
        let caret = area.selection_start().ok().flatten().unwrap_or(0) as usize;
        let caret_end = area.selection_end().ok().flatten().unwrap_or(0) as usize;
        // Positions are UTF-16 units; compare against byte offsets only
        // through line breaks, which are one unit in both.
        let units: Vec<u16> = value.encode_utf16().collect();
        let first_break = units.iter().position(|&u| u == u16::from(b'\n'));
        let last_break = units.iter().rposition(|&u| u == u16::from(b'\n'));
        if key == "ArrowUp" && first_break.is_none_or(|b| caret <= b) {
            e.prevent_default();
            on_history.emit(true);
        } else if key == "ArrowDown" && last_break.is_none_or(|b| caret_end > b) {
            e.prevent_default();
            on_history.emit(false);
        }
    })
}

fn entry_html(entry: &Rc<Entry>) -> Html {
    let source = match entry.source {
        Source::Typed => html! {},
        Source::Panel(panel) => {
            html! { <span class="source">{ format!("from the {panel} panel") }</span> }
        }
    };
    // cbt prints nothing when createtable or set works; the output stays
    // exactly that, and the mark beside the command says it worked.
    let mark = entry_mark(entry);
    let mark = match mark {
        EntryMark::Printed => html! {},
        EntryMark::Done | EntryMark::Failed => html! {
            <span class={classes!("entry-mark", if mark == EntryMark::Done { "done" } else { "failed" })}
                title={(mark == EntryMark::Done).then(|| done_title(entry.tab))}>
                <span aria-hidden="true">{ mark.symbol() }</span>{ " " }{ mark.text() }
            </span>
        },
    };
    html! {
        <div class={classes!("entry", if entry.ok { "ok" } else { "err" })} key={entry.id.to_string()}>
            <div class="entry-input mono">
                <span class="prompt">{ format!("{}>", entry.tab.slug()) }</span>
                <span class="command">{ entry.input.clone() }</span>
                { mark }
                { source }
            </div>
            if let Some(note) = echo_note(entry) {
                <p class="hint echo-note">{ note }</p>
            }
            if !entry.output.is_empty() {
                // Long output scrolls: focusable, so a keyboard can scroll it.
                <pre class="entry-output" tabindex="0" aria-label="Output">{ entry.output.clone() }</pre>
            }
            if entry.rows_not_printed > 0 {
                <p class="hint">{ format!("(output cut: {} more {} read but not printed; count= or a narrower range prints them)", format_count(entry.rows_not_printed), if entry.rows_not_printed == 1 { "row was" } else { "rows were" }) }</p>
            } else if let Some(total) = entry.cut_from {
                <p class="hint">{ format!("(output cut: {} of {} characters shown)", format_count(entry.output.len() as u64), format_count(total as u64)) }</p>
            }
            if let Some(report) = &entry.read {
                <p class="read-report">{ report.text() }</p>
            }
        </div>
    }
}
