//! The Console: a `cbt` tab, a JSON tab and a SQL tab, run by the same
//! interpreters as the command line, with a transcript, history on the
//! arrow keys, and a report under every read (rows and cells seen against
//! returned, the tablets visited). The filter builder sits beside the
//! transcript.
//!
//! Keys in the Command box: Enter runs in the cbt tab, and in the SQL tab
//! once the statement is complete (Shift+Enter adds a line); Ctrl+Enter or
//! Cmd+Enter runs in every tab; Up and Down at the first or last line
//! browse this tab's history.

use std::rc::Rc;

use yew::prelude::*;

use super::filter_builder::FilterBuilder;
use crate::state::console::{ConsoleState, Entry, Source, Tab};
use crate::view_model::format_count;
use crate::view_model::schema::TableSummary;

/// Props of [`ConsolePanel`].
#[derive(Properties, PartialEq)]
pub struct ConsolePanelProps {
    /// The console's state.
    pub console: Rc<ConsoleState>,
    /// The tables (for the filter builder).
    pub tables: Rc<Vec<TableSummary>>,
    /// The selected table.
    pub selected: Option<String>,
    /// The instance's name, for JSON table names.
    pub instance_name: String,
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
    /// The header's maximize button (empty where the panel cannot take
    /// the workspace).
    #[prop_or_default]
    pub maximize: Html,
}

/// The panel.
#[component(ConsolePanel)]
pub fn console_panel(props: &ConsolePanelProps) -> Html {
    let transcript = use_node_ref();
    let input_ref = use_node_ref();
    let builder_open = use_state(|| false);
    let console = &props.console;
    let tab = console.tab;

    // Follow the newest entry.
    {
        let transcript = transcript.clone();
        let last = console.entries.last().map(|e| e.id);
        use_effect_with(last, move |_| {
            if let Some(element) = transcript.cast::<web_sys::Element>() {
                element.set_scroll_top(element.scroll_height());
            }
        });
    }

    let tab_button = |t: Tab| {
        let on_tab = props.on_tab.clone();
        let input_ref = input_ref.clone();
        let onclick = Callback::from(move |_: MouseEvent| {
            on_tab.emit(t);
            if let Some(input) = input_ref.cast::<web_sys::HtmlElement>() {
                let _ = input.focus();
            }
        });
        html! {
            <button type="button" role="tab" id={format!("console-tab-{}", t.slug())}
                aria-selected={(t == tab).to_string()} aria-controls="console-io"
                class={classes!("tab", (t == tab).then_some("active"))} {onclick}>
                { t.label() }
            </button>
        }
    };
    let on_builder = {
        let builder_open = builder_open.clone();
        Callback::from(move |_: MouseEvent| builder_open.set(!*builder_open))
    };
    let on_clear = {
        let cb = props.on_clear.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let oninput = {
        let cb = props.on_input.clone();
        Callback::from(move |e: InputEvent| {
            cb.emit(
                e.target_unchecked_into::<web_sys::HtmlTextAreaElement>()
                    .value(),
            );
        })
    };
    let onkeydown = {
        let on_run = props.on_run.clone();
        let on_history = props.on_history.clone();
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
    };
    let onsubmit = {
        let on_run = props.on_run.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            on_run.emit(());
        })
    };
    let table = props
        .selected
        .clone()
        .or_else(|| props.tables.first().map(|t| t.name.clone()))
        .unwrap_or_else(|| "mobile-time-series".into());
    let examples: Vec<(Tab, String)> = match tab {
        Tab::Cbt => vec![
            (Tab::Cbt, "ls".into()),
            (Tab::Cbt, format!("ls {table}")),
            (Tab::Cbt, format!("read {table} count=5")),
            (
                Tab::Cbt,
                format!("read {table} prefix=phone columns=stats_summary: count=3"),
            ),
            (Tab::Cbt, format!("count {table}")),
            (Tab::Cbt, "help".into()),
        ],
        Tab::Json => vec![
            (
                Tab::Json,
                format!(
                    r#"{{"method": "listTables", "request": {{"parent": "{}"}}}}"#,
                    props.instance_name
                ),
            ),
            (
                Tab::Json,
                format!(
                    r#"{{"method": "readRows", "request": {{"tableName": "{}/tables/{table}", "rowsLimit": "3"}}}}"#,
                    props.instance_name
                ),
            ),
            (
                Tab::Json,
                format!(
                    r#"{{"method": "sampleRowKeys", "request": {{"tableName": "{}/tables/{table}"}}}}"#,
                    props.instance_name
                ),
            ),
        ],
        Tab::Sql => crate::state::tools::sql_examples(&table)
            .into_iter()
            .map(|s| (Tab::Sql, s))
            .collect(),
    };
    let example_buttons = examples.into_iter().map(|(t, text)| {
        let on_insert = props.on_insert.clone();
        let label = if t == Tab::Json {
            serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v.get("method").and_then(|m| m.as_str()).map(str::to_string))
                .unwrap_or_else(|| text.clone())
        } else {
            text.clone()
        };
        let onclick = Callback::from(move |_: MouseEvent| on_insert.emit((t, text.clone())));
        html! { <button type="button" class="chip mono" {onclick}>{ label }</button> }
    });
    let placeholder = match tab {
        Tab::Cbt => "a cbt command, e.g. read mobile-time-series count=5",
        Tab::Json => "{\"method\": \"readRows\", \"request\": {...}}",
        Tab::Sql => "a GoogleSQL statement, e.g. SELECT _key FROM `mobile-time-series` LIMIT 5",
    };
    let rows = if tab != Tab::Cbt || console.input().contains('\n') {
        "3"
    } else {
        "1"
    };

    html! {
        <section class="panel console-panel" aria-label="Console" style="grid-area: console">
            <header class="panel-head">
                <h2 class="panel-title">{ "Console" }</h2>
                <div class="tabs" role="tablist" aria-label="Language">
                    { tab_button(Tab::Cbt) }
                    { tab_button(Tab::Json) }
                    { tab_button(Tab::Sql) }
                </div>
                <span class="panel-meta">{ "same interpreters as the tabletop CLI" }</span>
                <span class="spacer"></span>
                <button type="button" class="button small" onclick={on_builder} aria-expanded={builder_open.to_string()}>{ "Filter builder" }</button>
                <button type="button" class="button small subtle" onclick={on_clear}>{ "Clear" }</button>
                { props.maximize.clone() }
            </header>
            <div class={classes!("console-body", builder_open.then_some("with-builder"))}>
                <div class="transcript" ref={transcript} role="log" aria-label="Console output" tabindex="0">
                    if console.entries.is_empty() {
                        <div class="welcome">
                            <p>{ "Type a command below, or start from one of these:" }</p>
                            <div class="chips">{ for example_buttons }</div>
                            <p class="hint">{ "The cbt tab speaks the cbt tool's language and prints exactly what cbt prints; the JSON tab takes Bigtable's REST requests in proto3 JSON, one per line; the SQL tab runs GoogleSQL for Bigtable as tabletop sql does (EXPLAIN shows the plan). Every read also reports rows and cells seen against returned, and the tablets it visited." }</p>
                        </div>
                    } else {
                        { for console.entries.iter().map(entry_html) }
                    }
                </div>
                if *builder_open {
                    <FilterBuilder tables={Rc::clone(&props.tables)} selected={props.selected.clone()}
                        instance_name={props.instance_name.clone()} on_insert={props.on_insert.clone()} />
                }
            </div>
            <form class="console-input" id="console-io" role="tabpanel" aria-labelledby={format!("console-tab-{}", tab.slug())} {onsubmit}>
                <span class="prompt mono" aria-hidden="true">{ format!("{}>", tab.slug()) }</span>
                <textarea ref={input_ref} class="mono" aria-label="Command" rows={rows} spellcheck="false" autocomplete="off"
                    value={console.input().to_string()} {oninput} {onkeydown} placeholder={placeholder} />
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
        </section>
    }
}

fn entry_html(entry: &Rc<Entry>) -> Html {
    let source = match entry.source {
        Source::Typed => html! {},
        Source::Panel(panel) => {
            html! { <span class="source">{ format!("from the {panel} panel") }</span> }
        }
    };
    html! {
        <div class={classes!("entry", if entry.ok { "ok" } else { "err" })} key={entry.id.to_string()}>
            <div class="entry-input mono">
                <span class="prompt">{ format!("{}>", entry.tab.slug()) }</span>
                <span class="command">{ entry.input.clone() }</span>
                { source }
            </div>
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
