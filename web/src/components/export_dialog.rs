//! The Export dialog: the instance (or one table) as the files `tabletop
//! export` writes for production — the cbt script, the gcloud commands,
//! the Terraform configuration — and one table's rows as a CSV file for
//! `cbt import`. Each file is previewed, can be copied, and downloads
//! under a name that says what it is.
//!
//! [`Modal`] is the dialog frame both tool dialogs use: a real `<dialog>`
//! opened with `showModal()`, so the browser keeps focus inside it and
//! makes the page behind inert; Escape closes it, and focus returns to the
//! button that opened it.

use std::rc::Rc;

use tabletop_core::human_bytes;
use tabletop_core::translate::{DataFormat, SplitSource};
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use crate::browser;
use crate::state::Notice;
use crate::state::tools::{ExportDialog as ExportState, ToolsAction};
use crate::view_model::schema::TableSummary;
use crate::view_model::tools::{ExportChoice, ExportKind, ExportedFile};

/// The longest preview drawn (the download always has everything): a
/// million-row script would make the page crawl.
const PREVIEW_CHARS: usize = 200_000;

/// Props of [`Modal`].
#[derive(Properties, PartialEq)]
pub struct ModalProps {
    /// The element id of the dialog (its title gets `{id}-title`).
    pub id: AttrValue,
    /// The title.
    pub title: AttrValue,
    /// Close the dialog (Escape, the close button).
    pub on_close: Callback<()>,
    /// The body.
    #[prop_or_default]
    pub children: Html,
}

/// A modal `<dialog>`.
#[component(Modal)]
pub fn modal(props: &ModalProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        let on_close = props.on_close.clone();
        use_effect_with((), move |()| {
            let opener = gloo::utils::document().active_element();
            let mut listener = None;
            let element = node.cast::<web_sys::Element>();
            if let Some(dialog) = &element {
                call(dialog, "showModal");
                // Escape fires `cancel`: the state closes the dialog (which
                // unmounts it), not the browser.
                listener = Some(gloo::events::EventListener::new_with_options(
                    dialog,
                    "cancel",
                    gloo::events::EventListenerOptions::enable_prevent_default(),
                    move |e| {
                        e.prevent_default();
                        on_close.emit(());
                    },
                ));
            }
            move || {
                drop(listener);
                // Out of the top layer first: while the modal is open the
                // page behind it is inert and cannot take the focus.
                if let Some(dialog) = &element {
                    call(dialog, "close");
                }
                if let Some(el) = opener.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                    let _ = el.focus();
                }
            }
        });
    }
    let on_close = {
        let cb = props.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let title_id = format!("{}-title", props.id);
    html! {
        <dialog ref={node} id={props.id.clone()} class="modal" aria-labelledby={title_id.clone()}>
            <header class="modal-head">
                <h2 id={title_id} class="modal-title">{ props.title.clone() }</h2>
                <button type="button" class="button small subtle modal-close" aria-label="Close" onclick={on_close}>{ "×" }</button>
            </header>
            <div class="modal-body">{ props.children.clone() }</div>
        </dialog>
    }
}

/// Calls a method of the `<dialog>` element without arguments, through
/// reflection: web-sys's dialog binding is behind a feature this crate
/// does not otherwise need.
fn call(dialog: &web_sys::Element, method: &str) {
    if let Ok(f) = js_sys::Reflect::get(dialog, &JsValue::from_str(method))
        && let Some(f) = f.dyn_ref::<js_sys::Function>()
    {
        let _ = f.call0(dialog);
    }
}

/// Props of [`ExportDialog`].
#[derive(Properties, PartialEq)]
pub struct ExportDialogProps {
    /// The dialog's state.
    pub state: ExportState,
    /// The tables, for the table choice.
    pub tables: Rc<Vec<TableSummary>>,
    /// Dispatches the tools' actions.
    pub on_action: Callback<ToolsAction>,
    /// Shows a message in the status line.
    pub on_notify: Callback<Notice>,
}

fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlSelectElement>()
        .value()
}

/// The dialog: what to export above the tabs of its files, and the file
/// shown.
#[component(ExportDialog)]
pub fn export_dialog(props: &ExportDialogProps) -> Html {
    let choice = &props.state.bundle.choice;
    let kind = props.state.kind;
    let copied = use_state(|| None::<ExportKind>);
    let on_close = {
        let cb = props.on_action.clone();
        Callback::from(move |()| cb.emit(ToolsAction::CloseExport))
    };
    html! {
        <Modal id="export-dialog" title="Export for production" {on_close}>
            <p class="hint">{ "The files tabletop export writes, for a real Bigtable instance or its emulator. Each preview is the exact file." }</p>
            { export_options(choice, &props.tables, &props.on_action) }
            { file_tabs(kind, &props.on_action) }
            <div class="export-file" id="export-file" role="tabpanel" aria-labelledby={format!("export-tab-{}", kind.slug())}>
                <p class="export-command mono" title="The same file from the command line">{ format!("$ {}", choice.command_line(kind)) }</p>
                { file_view(props.state.bundle.file(kind), kind, &copied, &props.on_notify) }
            </div>
        </Modal>
    }
}

/// The tables to export, the data in the cbt script and the split points.
fn export_options(
    choice: &ExportChoice,
    tables: &[TableSummary],
    on_action: &Callback<ToolsAction>,
) -> Html {
    let act = |f: fn(String) -> Option<ToolsAction>| {
        let cb = on_action.clone();
        Callback::from(move |e: Event| {
            if let Some(a) = f(select_value(&e)) {
                cb.emit(a);
            }
        })
    };
    let on_table = act(|v| {
        Some(ToolsAction::ExportTable(
            (!v.is_empty()).then_some(v.strip_prefix("t:").unwrap_or(&v).to_string()),
        ))
    });
    let on_data = act(|v| DataFormat::from_name(&v).map(ToolsAction::ExportData));
    let on_splits = act(|v| {
        Some(ToolsAction::ExportSplits(if v == "tablets" {
            SplitSource::Tablets
        } else {
            SplitSource::Initial
        }))
    });
    let table_value = choice
        .table
        .as_ref()
        .map(|t| format!("t:{t}"))
        .unwrap_or_default();
    html! {
        <div class="tool-options">
            <label>{ "Tables " }
                <select onchange={on_table} aria-label="Tables to export">
                    <option value="" selected={choice.table.is_none()}>{ "Every table" }</option>
                    { for tables.iter().map(|t| {
                        let v = format!("t:{}", t.name);
                        html! { <option value={v.clone()} selected={v == table_value}>{ t.name.clone() }</option> }
                    }) }
                </select>
            </label>
            <label>{ "Data in the cbt script " }
                <select onchange={on_data} aria-label="Data in the cbt script">
                    { for [(DataFormat::Set, "set lines"), (DataFormat::Csv, "CSV files for cbt import"), (DataFormat::None, "none (schema only)")].into_iter().map(|(d, label)| html! {
                        <option value={d.name()} selected={choice.data == d}>{ label }</option>
                    }) }
                </select>
            </label>
            <label>{ "Split points " }
                <select onchange={on_splits} aria-label="Split points">
                    <option value="initial" selected={choice.splits == SplitSource::Initial}>{ "as created" }</option>
                    <option value="tablets" selected={choice.splits == SplitSource::Tablets}>{ "current tablets" }</option>
                </select>
            </label>
        </div>
    }
}

/// A tab per file; arrow keys move between them, as a tablist should.
fn file_tabs(kind: ExportKind, on_action: &Callback<ToolsAction>) -> Html {
    let tab = |k: ExportKind| {
        let cb = on_action.clone();
        let onclick = Callback::from(move |_: MouseEvent| cb.emit(ToolsAction::ExportShow(k)));
        let selected = k == kind;
        html! {
            <button type="button" role="tab" id={format!("export-tab-{}", k.slug())}
                aria-selected={selected.to_string()} aria-controls="export-file"
                tabindex={if selected { "0" } else { "-1" }}
                class={classes!("tab", selected.then_some("active"))} {onclick}>
                { k.label() }
            </button>
        }
    };
    let on_tab_key = {
        let cb = on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            let i = ExportKind::ALL
                .iter()
                .position(|k| *k == kind)
                .unwrap_or_default();
            let n = ExportKind::ALL.len();
            let next = match e.key().as_str() {
                "ArrowRight" => (i + 1) % n,
                "ArrowLeft" => (i + n - 1) % n,
                "Home" => 0,
                "End" => n - 1,
                _ => return,
            };
            e.prevent_default();
            let k = ExportKind::ALL[next];
            cb.emit(ToolsAction::ExportShow(k));
            if let Some(el) = gloo::utils::document()
                .get_element_by_id(&format!("export-tab-{}", k.slug()))
                .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = el.focus();
            }
        })
    };
    html! {
        <div class="tabs export-tabs" role="tablist" aria-label="File" onkeydown={on_tab_key}>
            { for ExportKind::ALL.into_iter().map(tab) }
        </div>
    }
}

/// The file of `kind`: Download and Copy (`copied` remembers which file
/// was copied last), its warnings and a preview; or why there is none.
fn file_view(
    file: &ExportedFile,
    kind: ExportKind,
    copied: &UseStateHandle<Option<ExportKind>>,
    on_notify: &Callback<Notice>,
) -> Html {
    if let Some(why) = &file.unavailable {
        return html! { <p class="empty" role="status">{ why.clone() }</p> };
    }
    let on_download = {
        let bytes = Rc::clone(&file.bytes);
        let name = file.file_name.clone();
        let notify = on_notify.clone();
        Callback::from(move |_: MouseEvent| {
            let notice = match browser::download(&bytes, &name) {
                Ok(()) => Notice {
                    error: false,
                    text: format!("Downloaded {name} ({})", human_bytes(bytes.len() as f64)),
                },
                Err(e) => Notice {
                    error: true,
                    text: format!("{name} could not be downloaded: {e}"),
                },
            };
            notify.emit(notice);
        })
    };
    let on_copy = {
        let text = file.text();
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            browser::copy_text(&text);
            copied.set(Some(kind));
        })
    };
    let text = file.text();
    let (shown, cut) = if text.len() > PREVIEW_CHARS {
        let mut end = PREVIEW_CHARS;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        (text[..end].to_string(), true)
    } else {
        (text, false)
    };
    html! {
        <>
            <div class="export-actions">
                <button type="button" class="button primary" onclick={on_download}>{ format!("Download {}", file.file_name) }</button>
                <button type="button" class="button" onclick={on_copy}>{ if **copied == Some(kind) { "Copied" } else { "Copy" } }</button>
                <span class="hint">{ human_bytes(file.bytes.len() as f64) }</span>
            </div>
            if !file.warnings.is_empty() {
                <ul class="export-warnings">
                    { for file.warnings.iter().map(|w| html! { <li>{ w.clone() }</li> }) }
                </ul>
            }
            <pre class="export-preview mono" tabindex="0" aria-label={format!("Preview of {}", file.file_name)}>{ shown }</pre>
            if cut {
                <p class="hint">{ format!("Preview cut at {} characters; the download holds all {}.", PREVIEW_CHARS, human_bytes(file.bytes.len() as f64)) }</p>
            }
        </>
    }
}
