//! The Import dialog: a DynamoDB model or an Oracle NoSQL DDL (pasted,
//! typed or read from a file) translated live into Bigtable tables —
//! families, GC rules, the row-key mapping and the note behind every
//! decision — and created in the playground with Apply; or a CSV file in
//! `cbt import`'s format written into a table.
//!
//! A parse error names its `line:column`; the line is highlighted behind
//! the text (a backdrop drawn under a transparent textarea, scrolled with
//! it) and *Go to* puts the caret there. Nothing changes until Apply, and
//! an Apply that fails changes nothing.

use std::rc::Rc;

use tabletop_core::human_bytes;
use tabletop_core::translate::{DynamoLayout, KeyEncoding};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::export_dialog::Modal;
use super::rich_text::inline;
use crate::browser;
use crate::state::tools::{ImportDialog as ImportState, ToolsAction};
use crate::view_model::count_noun;
use crate::view_model::schema::TableSummary;
use crate::view_model::tools::{
    CsvChoice, ImportError, ImportSource, IndexLine, NoteLine, TablePreview, TranslationPreview,
};

/// A DynamoDB model to start from: the product catalog of the migration
/// guide.
const DYNAMO_EXAMPLE: &str =
    include_str!("../../../core/tests/translate_fixtures/product_catalog.json");
/// An Oracle NoSQL DDL to start from, with its records.
const ORACLE_EXAMPLE: &str = include_str!("../../../core/tests/translate_fixtures/oracle_shop.ddl");
const ORACLE_ROWS_EXAMPLE: &str =
    include_str!("../../../core/tests/translate_fixtures/oracle_shop_rows.json");

/// Props of [`ImportDialog`].
#[derive(Properties, PartialEq)]
pub struct ImportDialogProps {
    /// The dialog's state.
    pub state: ImportState,
    /// The tables (the CSV import's table choice).
    pub tables: Rc<Vec<TableSummary>>,
    /// Dispatches the tools' actions.
    pub on_action: Callback<ToolsAction>,
}

fn target_value(e: &Event) -> String {
    let target = e.target();
    if let Some(t) = target
        .as_ref()
        .and_then(|t| t.dyn_ref::<web_sys::HtmlTextAreaElement>())
    {
        return t.value();
    }
    if let Some(t) = target
        .as_ref()
        .and_then(|t| t.dyn_ref::<web_sys::HtmlSelectElement>())
    {
        return t.value();
    }
    target
        .as_ref()
        .and_then(|t| t.dyn_ref::<web_sys::HtmlInputElement>())
        .map(web_sys::HtmlInputElement::value)
        .unwrap_or_default()
}

/// A text area with a highlighted error line behind it.
#[derive(Properties, PartialEq)]
struct CodeAreaProps {
    id: AttrValue,
    label: AttrValue,
    value: String,
    placeholder: AttrValue,
    /// The 1-based line to highlight, with the error's element id.
    error: Option<(usize, usize, String)>,
    on_input: Callback<String>,
    #[prop_or(12)]
    rows: u32,
    /// Take the focus when the dialog opens.
    #[prop_or_default]
    autofocus: bool,
}

#[component(CodeArea)]
fn code_area(props: &CodeAreaProps) -> Html {
    let backdrop = use_node_ref();
    let onscroll = {
        let backdrop = backdrop.clone();
        Callback::from(move |e: Event| {
            let area: web_sys::Element = e.target_unchecked_into();
            if let Some(b) = backdrop.cast::<web_sys::Element>() {
                b.set_scroll_top(area.scroll_top());
                b.set_scroll_left(area.scroll_left());
            }
        })
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
    // The backdrop repeats the text (as text, never markup) down to the
    // error line, which it marks; lines after it are not needed to place
    // the mark, so a long input costs nothing while it is valid.
    let lines = props.error.as_ref().map(|(line, _, _)| {
        let upto = line.saturating_sub(1);
        let before: Vec<&str> = props.value.split('\n').take(upto).collect();
        let marked = props.value.split('\n').nth(upto).unwrap_or_default();
        // Blank space as tall and wide as the rest, so the backdrop scrolls
        // as far as the text does.
        let rest = props.value.split('\n').skip(upto + 1);
        let (count, widest) = rest.fold((0, 0), |(n, w), l| (n + 1, w.max(l.chars().count())));
        html! {
            <>
                { format!("{}{}", before.join("\n"), if before.is_empty() { "" } else { "\n" }) }
                <span class="code-line error-line">{ format!("{marked}\n") }</span>
                { format!("{}{}", "\n".repeat(count), " ".repeat(widest)) }
            </>
        }
    });
    html! {
        <div class={classes!("code-area", props.error.is_some().then_some("invalid"))}>
            <pre class="code-backdrop mono" ref={backdrop} aria-hidden="true">{ for lines }</pre>
            <textarea id={props.id.clone()} class="mono" aria-label={props.label.clone()} rows={props.rows.to_string()}
                wrap="off" spellcheck="false" autocomplete="off" placeholder={props.placeholder.clone()}
                aria-invalid={props.error.is_some().then_some("true")}
                aria-describedby={props.error.as_ref().map(|(_, _, id)| AttrValue::from(id.clone()))}
                autofocus={props.autofocus} value={props.value.clone()} {oninput} {onscroll} />
        </div>
    }
}

/// Puts the caret at `line:column` of the textarea `id` and scrolls there.
fn go_to(id: &str, text: &str, line: usize, column: usize) {
    let Some(area) = gloo::utils::document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
    else {
        return;
    };
    // Selection offsets count UTF-16 units.
    let mut offset = 0usize;
    for (i, l) in text.split('\n').enumerate() {
        if i + 1 == line {
            offset += l
                .chars()
                .take(column.saturating_sub(1))
                .map(char::len_utf16)
                .sum::<usize>();
            break;
        }
        offset += l.encode_utf16().count() + 1;
    }
    let _ = area.focus();
    let at = u32::try_from(offset).unwrap_or(u32::MAX);
    let _ = area.set_selection_range(at, at.saturating_add(1));
    // About 1.5em per line: bring the line into view.
    let line_px = 18;
    area.set_scroll_top(i32::try_from(line.saturating_sub(3) * line_px).unwrap_or(i32::MAX));
}

fn error_box(e: &ImportError, area_id: &'static str, text: String) -> Html {
    let (before, mark, after) = e.marked_line();
    let (line, column) = (e.line, e.column);
    let onclick = Callback::from(move |_: MouseEvent| go_to(area_id, &text, line, column));
    html! {
        <div class="import-error" id="import-error" role="alert">
            <p><strong class="mono">{ format!("{}{}:{}", if e.in_rows { "rows " } else { "" }, e.line, e.column) }</strong>{ " " }{ inline(&e.message) }</p>
            if !e.line_text.is_empty() || e.column > 1 {
                <pre class="error-context mono">
                    <span class="gutter">{ format!("{:>4} │ ", e.line) }</span>{ before }<mark>{ mark }</mark>{ after }
                </pre>
            }
            <button type="button" class="button small" {onclick}>{ format!("Go to line {}, column {}", e.line, e.column) }</button>
        </div>
    }
}

fn notes_html(title: &str, notes: &[NoteLine]) -> Html {
    if notes.is_empty() {
        return html! {};
    }
    html! {
        <>
            <h4 class="preview-subtitle">{ title.to_string() }</h4>
            <ul class="notes">
                { for notes.iter().map(|n| html! {
                    <li class={classes!(n.warning.then_some("warning"))}>
                        <span class="note-topic">{ n.topic.clone() }</span>{ " " }{ inline(&n.text) }
                    </li>
                }) }
            </ul>
        </>
    }
}

fn indexes_html(indexes: &[IndexLine]) -> Html {
    if indexes.is_empty() {
        return html! {};
    }
    html! {
        <>
            <h4 class="preview-subtitle">{ "Indexes" }</h4>
            <ul class="notes index-plans">
                { for indexes.iter().map(|ix| html! { <IndexCard line={ix.clone()} /> }) }
            </ul>
        </>
    }
}

/// Props of [`IndexCard`].
#[derive(Properties, PartialEq)]
struct IndexCardProps {
    line: IndexLine,
}

/// One index: the view first (with its statement and a copy button), the
/// index table second.
#[component(IndexCard)]
fn index_card(props: &IndexCardProps) -> Html {
    let ix = &props.line;
    let copied = use_state(|| false);
    let on_copy = ix.sql.clone().map(|sql| {
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            browser::copy_text(&sql);
            copied.set(true);
        })
    });
    html! {
        <li class="index-plan">
            <span class="note-topic">{ ix.title.clone() }</span>
            <p><strong>{ "First choice: " }</strong>{ ix.first_choice.clone() }</p>
            if let (Some(sql), Some(onclick)) = (ix.sql.clone(), on_copy) {
                // A named, focusable region: keyboard users can scroll a
                // long line.
                <pre class="index-sql mono" tabindex="0" role="region"
                    aria-label={format!("SQL of the view for {}", ix.title)}>{ sql }</pre>
                <p class="index-sql-actions">
                    <button type="button" class="button small" {onclick}>{ if *copied { "Copied" } else { "Copy SQL" } }</button>
                    <span class="hint">{ " Run it in the console's SQL tab once the tables exist." }</span>
                </p>
            }
            <p><strong>{ "Alternative: " }</strong>{ ix.alternative.clone() }</p>
        </li>
    }
}

fn table_html(t: &TablePreview) -> Html {
    html! {
        <article class="translated-table" aria-label={format!("Table {}", t.id)}>
            <h3 class="preview-title">
                <span class="mono">{ t.id.clone() }</span>
                <span class="hint">{ format!(" from {} · {}", t.source_name, t.pattern) }</span>
            </h3>
            if t.exists {
                <p class="field-error">{ format!("The playground already has a table {}; delete it first to apply.", t.id) }</p>
            }
            <dl class="facts">
                <dt>{ "Row key" }</dt>
                <dd class="mono">{ t.row_key.join(" # ") }</dd>
                if let Some(k) = &t.example_key {
                    <dt>{ "Example" }</dt>
                    <dd class="mono">{ k.clone() }</dd>
                }
                <dt>{ "Sample data" }</dt>
                <dd>{ format!("{} · {}{}", count_noun(t.rows as u64, "row"), count_noun(t.cells as u64, "cell"), if t.splits > 0 { format!(" · {}", count_noun(t.splits as u64, "split point")) } else { String::new() }) }</dd>
            </dl>
            <table class="families-table">
                <thead><tr><th scope="col">{ "Family" }</th><th scope="col">{ "GC rule" }</th><th scope="col">{ "Type" }</th><th scope="col">{ "Columns and why" }</th></tr></thead>
                <tbody>
                    { for t.families.iter().map(|f| html! {
                        <tr>
                            <td class="mono">{ f.name.clone() }</td>
                            <td class="mono">{ f.gc.clone() }</td>
                            <td class="mono">{ f.value_type.clone() }</td>
                            <td>
                                <p>{ inline(&f.why) }</p>
                                <ul class="columns">{ for f.columns.iter().map(|c| html! { <li class="mono">{ c.clone() }</li> }) }</ul>
                            </td>
                        </tr>
                    }) }
                </tbody>
            </table>
            { indexes_html(&t.indexes) }
            { notes_html("Notes", &t.notes) }
            { notes_html("Advisor", &t.findings) }
        </article>
    }
}

fn preview_html(p: &TranslationPreview) -> Html {
    html! {
        <div class="translation">
            <p class="preview-lead">{ format!("{}: {}", p.name, count_noun(p.tables.len() as u64, "Bigtable table")) }</p>
            { for p.tables.iter().map(table_html) }
            { notes_html("Notes on the design", &p.notes) }
            <details class="report">
                <summary>{ "The whole report, as tabletop translate prints it" }</summary>
                <pre class="mono">{ p.report.clone() }</pre>
            </details>
        </div>
    }
}

/// How long typing must pause before a large design is translated.
const TRANSLATE_PAUSE_MS: u32 = 300;

/// The dialog: the source picker above the body for the chosen source.
#[component(ImportDialog)]
pub fn import_dialog(props: &ImportDialogProps) -> Html {
    let state = &props.state;
    // Why a picked file could not be read; kept across a change of source.
    let file_error = use_state(|| None::<String>);
    use_translate_on_pause(state, &props.on_action);
    let on_close = {
        let cb = props.on_action.clone();
        Callback::from(move |()| cb.emit(ToolsAction::CloseImport))
    };
    let body = if state.source == ImportSource::CbtCsv {
        csv_import(props, &file_error)
    } else {
        design_import(props, &file_error)
    };
    html! {
        <Modal id="import-dialog" title="Import a design or data" {on_close}>
            { source_picker(state.source, &props.on_action) }
            { body }
        </Modal>
    }
}

/// Translates a large design when typing pauses for a moment.
fn use_translate_on_pause(
    state: &ImportState,
    on_action: &Callback<ToolsAction>,
) -> impl Hook<Output = ()> {
    let cb = on_action.clone();
    let key = (state.stale, state.text.len(), state.rows.len());
    use_effect_with(key, move |&(stale, _, _)| {
        let timer = stale.then(|| {
            gloo::timers::callback::Timeout::new(TRANSLATE_PAUSE_MS, move || {
                cb.emit(ToolsAction::ImportRefresh);
            })
        });
        // Dropping the timer (a new keystroke) cancels it.
        move || drop(timer)
    })
}

/// A change of a text field, select or input, turned into an action (or
/// none).
fn on_value(
    on_action: &Callback<ToolsAction>,
    f: fn(String) -> Option<ToolsAction>,
) -> Callback<Event> {
    let cb = on_action.clone();
    Callback::from(move |e: Event| {
        if let Some(a) = f(target_value(&e)) {
            cb.emit(a);
        }
    })
}

/// Whether a checkbox was checked, from its change event.
fn checked(e: &Event) -> bool {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .checked()
}

/// A picked file's text handed to `on_text`, or why it is not text
/// (`not_text` ends that sentence) kept in `file_error`.
fn picked_text(
    file_error: &UseStateHandle<Option<String>>,
    on_text: Callback<String>,
    not_text: &'static str,
) -> Callback<(String, Vec<u8>)> {
    let file_error = file_error.clone();
    Callback::from(
        move |(name, bytes): (String, Vec<u8>)| match String::from_utf8(bytes) {
            Ok(text) => {
                file_error.set(None);
                on_text.emit(text);
            }
            Err(_) => file_error.set(Some(format!("{name} is not UTF-8 text{not_text}"))),
        },
    )
}

/// Keeps why a file could not be read.
fn file_failed(file_error: &UseStateHandle<Option<String>>) -> Callback<String> {
    let file_error = file_error.clone();
    Callback::from(move |e: String| file_error.set(Some(e)))
}

/// Why a picked file could not be read, if it could not.
fn file_error_html(file_error: &UseStateHandle<Option<String>>) -> Option<Html> {
    (**file_error).clone().map(|e| {
        html! { <p class="field-error" role="alert">{ inline(&e) }</p> }
    })
}

/// The radio buttons choosing what to import.
fn source_picker(source: ImportSource, on_action: &Callback<ToolsAction>) -> Html {
    let on_source = on_value(on_action, |v| {
        ImportSource::from_slug(&v).map(ToolsAction::ImportSource)
    });
    html! {
        <fieldset class="source-picker">
            <legend>{ "Import" }</legend>
            { for ImportSource::ALL.into_iter().map(|s| html! {
                <label class="radio">
                    <input type="radio" name="import-source" value={s.slug()} checked={source == s} onchange={on_source.clone()} />
                    { s.label() }
                </label>
            }) }
        </fieldset>
    }
}

/// The body for a CSV file in `cbt import`'s format: the file, the table
/// and family it goes into, Import CSV and what came of it.
fn csv_import(props: &ImportDialogProps, file_error: &UseStateHandle<Option<String>>) -> Html {
    let state = &props.state;
    let on_csv_file = {
        let cb = props.on_action.clone();
        browser::on_file_picked(
            Callback::from(move |(name, bytes): (String, Vec<u8>)| {
                cb.emit(ToolsAction::CsvFile(name, Rc::new(bytes)));
            }),
            file_failed(file_error),
        )
    };
    let csv_change = |f: fn(&mut CsvChoice, &Event)| {
        let cb = props.on_action.clone();
        let choice = state.csv.clone();
        Callback::from(move |e: Event| {
            let mut c = choice.clone();
            f(&mut c, &e);
            cb.emit(ToolsAction::CsvChoice(c));
        })
    };
    let on_csv_table = csv_change(|c, e| c.table = target_value(e));
    let on_csv_family = csv_change(|c, e| c.family = target_value(e).trim().to_string());
    let on_csv_encoded = csv_change(|c, e| c.value_encoded = checked(e));
    let on_csv_import = {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(ToolsAction::CsvImport))
    };
    html! {
        <div class="csv-import">
            <p class="hint">{ "A CSV file in cbt import's format: an optional family row and a qualifier row (first field empty), then a row key and values per line. The whole file is checked first; a bad line writes nothing." }</p>
            <div class="tool-options">
                <label class="button">{ "Choose CSV file…" }
                    <input type="file" accept=".csv,text/csv" class="visually-hidden" aria-label="CSV file" onchange={on_csv_file} />
                </label>
                <span class="mono">{ state.csv_file.as_ref().map(|(n, b)| format!("{n} ({})", human_bytes(b.len() as f64))).unwrap_or_else(|| "no file chosen".into()) }</span>
            </div>
            <div class="tool-options">
                <label>{ "Table " }
                    <input type="text" class="mono" list="import-csv-tables" aria-label="Table" value={state.csv.table.clone()} onchange={on_csv_table} />
                    <datalist id="import-csv-tables">
                        { for props.tables.iter().map(|t| html! { <option value={t.name.clone()} /> }) }
                    </datalist>
                </label>
                <label>{ "Family " }
                    <input type="text" class="mono" aria-label="Family" placeholder="from the file's family row" value={state.csv.family.clone()} onchange={on_csv_family} />
                </label>
                <label class="check">
                    <input type="checkbox" checked={state.csv.value_encoded} onchange={on_csv_encoded} />
                    { " values carry @timestamp (timestamp=value-encoded)" }
                </label>
            </div>
            <p class="hint">{ "A missing table is created with the chosen family, or the families of the file's first row. With a family, the file has no family row (cbt import's column-family=)." }</p>
            { file_error_html(file_error) }
            <div class="modal-actions">
                <button type="button" class="button primary" onclick={on_csv_import} disabled={state.csv_file.is_none() || state.csv.table.is_empty()}>{ "Import CSV" }</button>
            </div>
            { csv_outcome(state) }
        </div>
    }
}

/// What the last CSV import wrote, or why it wrote nothing, and its log.
fn csv_outcome(state: &ImportState) -> Html {
    let result = match &state.csv_result {
        None => html! {},
        Some(Ok(o)) => html! {
            <p class="import-result" role="status">
                { format!("Wrote {} and {} into {}{}.", count_noun(o.rows, "row"), count_noun(o.cells, "cell"), o.table, if o.created_table { " (table created)" } else { "" }) }
            </p>
        },
        Some(Err(e)) => html! {
            <div class="import-error" role="alert"><p>{ "Nothing was written: " }{ inline(e) }</p></div>
        },
    };
    let log = match &state.csv_result {
        Some(Ok(o)) if !o.log.is_empty() => html! {
            <details class="report"><summary>{ "cbt import's log" }</summary><pre class="mono">{ o.log.clone() }</pre></details>
        },
        _ => html! {},
    };
    html! {
        <>
            { result }
            { log }
        </>
    }
}

/// The body for a design (DynamoDB or Oracle NoSQL): the input on the
/// left, the translation on the right, Apply below.
fn design_import(props: &ImportDialogProps, file_error: &UseStateHandle<Option<String>>) -> Html {
    let state = &props.state;
    let can_apply = matches!(&state.preview, Some(Ok(p)) if p.clashes().is_empty());
    let on_apply = {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(ToolsAction::ApplyImport))
    };
    html! {
      <>
        <div class="import-columns">
            <div class="import-input">
                { design_input(props, file_error) }
                { design_options(state, &props.on_action) }
                { file_error_html(file_error) }
            </div>
            <section class={classes!("import-preview", state.stale.then_some("stale"))} aria-label="Translation" aria-live="polite" aria-busy={state.stale.to_string()}>
                if state.stale {
                    <p class="hint">{ "A large design: the translation follows when you pause typing." }</p>
                }
                { translation(state) }
            </section>
        </div>
        <div class="modal-actions">
            if let Some(e) = &state.apply_error {
                <p class="field-error" role="alert">{ inline(e) }</p>
            }
            <span class="spacer"></span>
            <button type="button" class="button primary" onclick={on_apply} disabled={!can_apply}>{ "Apply" }</button>
        </div>
      </>
    }
}

/// The design's text (and an Oracle DDL's records), each with Open file…,
/// the example and the error's line marked.
fn design_input(props: &ImportDialogProps, file_error: &UseStateHandle<Option<String>>) -> Html {
    let state = &props.state;
    let oracle = state.source == ImportSource::OracleDdl;
    let on_text = props.on_action.reform(ToolsAction::ImportText);
    let on_rows = props.on_action.reform(ToolsAction::ImportRows);
    let on_design_file = {
        let cb = props.on_action.clone();
        browser::on_file_picked(
            picked_text(
                file_error,
                Callback::from(move |text: String| {
                    if let Some(source) = crate::view_model::tools::guess_source(&text) {
                        cb.emit(ToolsAction::ImportSource(source));
                    }
                    cb.emit(ToolsAction::ImportText(text));
                }),
                "; a DynamoDB model or an Oracle DDL is.",
            ),
            file_failed(file_error),
        )
    };
    let on_rows_file = browser::on_file_picked(
        picked_text(
            file_error,
            props.on_action.reform(ToolsAction::ImportRows),
            ".",
        ),
        file_failed(file_error),
    );
    let on_example = {
        let cb = props.on_action.clone();
        let source = state.source;
        Callback::from(move |_: MouseEvent| {
            if source == ImportSource::OracleDdl {
                cb.emit(ToolsAction::ImportText(ORACLE_EXAMPLE.into()));
                cb.emit(ToolsAction::ImportRows(ORACLE_ROWS_EXAMPLE.into()));
            } else {
                cb.emit(ToolsAction::ImportText(DYNAMO_EXAMPLE.into()));
            }
        })
    };
    // The error's line, marked in the text it is in.
    let error_at = |in_rows: bool| match &state.preview {
        Some(Err(e)) if e.in_rows == in_rows => {
            Some((e.line, e.column, "import-error".to_string()))
        }
        _ => None,
    };
    let (label, placeholder) = if oracle {
        (
            "Oracle NoSQL DDL",
            "CREATE TABLE users (id INTEGER, name STRING, PRIMARY KEY(id)) USING TTL 30 DAYS",
        )
    } else {
        (
            "DynamoDB model",
            "A NoSQL Workbench model {\"DataModel\": [...]}, or aws dynamodb describe-table output {\"Table\": ...} (with a scan's \"Items\" merged in for sample rows)",
        )
    };
    let lines = state.text.lines().count();
    html! {
        <>
            <div class="tool-options">
                <label class="button small">{ "Open file…" }
                    <input type="file" accept=".json,.ddl,.sql,.txt,application/json,text/plain" class="visually-hidden" aria-label="Design file" onchange={on_design_file} />
                </label>
                <button type="button" class="button small subtle" onclick={on_example}>{ if oracle { "Example: online shop" } else { "Example: product catalog" } }</button>
                <span class="hint">{ format!("{} · {}", count_noun(lines as u64, "line"), human_bytes(state.text.len() as f64)) }</span>
            </div>
            <CodeArea id="import-text" label={label} value={state.text.clone()} placeholder={placeholder}
                error={error_at(false)} on_input={on_text} rows={16} autofocus=true />
            if oracle {
                <div class="tool-options">
                    <label for="import-rows">{ "Records (JSON, optional)" }</label>
                    <label class="button small">{ "Open file…" }
                        <input type="file" accept=".json,.jsonl,application/json" class="visually-hidden" aria-label="Records file" onchange={on_rows_file} />
                    </label>
                </div>
                <CodeArea id="import-rows" label="Records (JSON)" value={state.rows.clone()} placeholder="{\"id\": 1, \"name\": \"Ada\"} — one object per line, or an array"
                    error={error_at(true)} on_input={on_rows} rows={5} />
            }
        </>
    }
}

/// The translation's choices: an Oracle key's reversal, or a DynamoDB
/// model's layout; the key encoding for both.
fn design_options(state: &ImportState, on_action: &Callback<ToolsAction>) -> Html {
    let oracle = state.source == ImportSource::OracleDdl;
    let on_layout = on_value(on_action, |v| {
        Some(ToolsAction::ImportLayout(match v.as_str() {
            "composite" => DynamoLayout::Composite,
            "wide" => DynamoLayout::WideRows,
            _ => DynamoLayout::Auto,
        }))
    });
    let on_encoding = on_value(on_action, |v| {
        Some(ToolsAction::ImportKeyEncoding(if v == "binary" {
            KeyEncoding::Binary
        } else {
            KeyEncoding::Text
        }))
    });
    let on_reverse = {
        let cb = on_action.clone();
        Callback::from(move |e: Event| cb.emit(ToolsAction::ImportReverseIdentity(checked(&e))))
    };
    html! {
        <div class="tool-options">
            if oracle {
                <label class="check">
                    <input type="checkbox" checked={state.choice.reverse_identity} onchange={on_reverse} />
                    { " reverse a leading IDENTITY key" }
                </label>
            } else {
                <label>{ "Layout " }
                    <select aria-label="Layout" onchange={on_layout}>
                        <option value="auto" selected={state.choice.layout == DynamoLayout::Auto}>{ "decide from the data" }</option>
                        <option value="composite" selected={state.choice.layout == DynamoLayout::Composite}>{ "one row per item" }</option>
                        <option value="wide" selected={state.choice.layout == DynamoLayout::WideRows}>{ "one row per partition" }</option>
                    </select>
                </label>
            }
            <label>{ "Key encoding " }
                <select aria-label="Key encoding" onchange={on_encoding}>
                    <option value="text" selected={state.choice.key_encoding == KeyEncoding::Text}>{ "text (readable)" }</option>
                    <option value="binary" selected={state.choice.key_encoding == KeyEncoding::Binary}>{ "binary (compact)" }</option>
                </select>
            </label>
        </div>
    }
}

/// The translated design, the input's error, or what to do first.
fn translation(state: &ImportState) -> Html {
    match &state.preview {
        None => html! {
            <p class="empty">{ "Paste or type a design on the left, open a file, or start from the example; the Bigtable design appears here as you type." }</p>
        },
        Some(Err(e)) => {
            let (id, text) = if e.in_rows {
                ("import-rows", state.rows.clone())
            } else {
                ("import-text", state.text.clone())
            };
            html! {
                <>
                    { error_box(e, id, text) }
                    <p class="hint">{ "Nothing is created while the input has an error." }</p>
                </>
            }
        }
        Some(Ok(p)) => preview_html(p),
    }
}
