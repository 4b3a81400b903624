//! The header: product name, the core's status, and the state's ways in and
//! out: a share link, snapshot export and import, and a layout reset. Below
//! it, the status line (`role=status`) for messages.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::toast::Toast;
use crate::browser;
use crate::state::Notice;

/// Props of [`AppHeader`].
#[derive(Properties, PartialEq)]
pub struct AppHeaderProps {
    /// The instance's resource name (`projects/p/instances/i`).
    pub instance_name: String,
    /// How many tables the instance holds.
    pub table_count: usize,
    /// Whether the page is an embed (a slim header).
    pub embed: bool,
    /// Whether the start state has loaded.
    pub booted: bool,
    /// The status line's message.
    pub notice: Option<Notice>,
    /// Download the snapshot.
    pub on_export: Callback<()>,
    /// A snapshot file's bytes to import.
    pub on_import: Callback<(String, Rc<Vec<u8>>)>,
    /// Makes a share link of the current state.
    pub make_link: Callback<(), String>,
    /// Shows a message.
    pub on_notify: Callback<Notice>,
    /// Hides the message.
    pub on_dismiss: Callback<()>,
    /// The message's time is up.
    #[prop_or_default]
    pub on_expire: Callback<Notice>,
    /// Back to the default panel sizes.
    pub on_reset_layout: Callback<()>,
    /// Open the Export dialog (files for production).
    #[prop_or_default]
    pub on_open_export: Callback<()>,
    /// Open the Import dialog (DynamoDB, Oracle NoSQL, cbt CSV).
    #[prop_or_default]
    pub on_open_import: Callback<()>,
    /// A line under the header's own (the autosave strip).
    #[prop_or_default]
    pub children: Html,
    /// Whether the instance answers as Google's Bigtable emulator does
    /// where it differs from production (emulator parity).
    #[prop_or_default]
    pub emulator_parity: bool,
    /// Turn emulator parity on or off.
    #[prop_or_default]
    pub on_emulator_parity: Callback<bool>,
}

/// The top bar.
#[component(AppHeader)]
pub fn app_header(props: &AppHeaderProps) -> Html {
    // The share link made last, shown while the share box is open.
    let link = use_state(|| None::<String>);
    let file_input = use_node_ref();
    let notice = props
        .notice
        .as_ref()
        .map(|n| html! { <Toast notice={n.clone()} on_dismiss={props.on_dismiss.clone()} on_expire={props.on_expire.clone()} /> });
    if props.embed {
        return slim_header(notice);
    }
    let tables = match props.table_count {
        1 => "1 table".to_string(),
        n => format!("{n} tables"),
    };
    html! {
        <header class="app-header">
            <h1 class="brand">{ "Tabletop" }</h1>
            <p class="tagline">{ "Bigtable schema-design playground" }</p>
            <p class="core-status" id="core-status">
                <span class={classes!("dot", (!props.booted).then_some("loading"))} aria-hidden="true"></span>
                { "Core running in your browser (WebAssembly) · " }
                <span class="mono" title="Instance">{ &props.instance_name }</span>
                { format!(" · {tables}") }
            </p>
            { header_actions(props, &link, &file_input) }
            if let Some(text) = (*link).clone() {
                { share_box(text) }
            }
            <div class="status-line" role="status" aria-live="polite">{ for notice }</div>
            { props.children.clone() }
        </header>
    }
}

/// An embed's bar: the name, a link to the full playground (the same state
/// without the embed parameters) and the status line.
fn slim_header(notice: Option<Html>) -> Html {
    let href = browser::href();
    let (before, fragment) = href.split_once('#').unwrap_or((&href, ""));
    let path = before.split('?').next().unwrap_or_default();
    let full = format!("{path}#{fragment}");
    html! {
        <header class="app-header slim">
            <h1 class="brand">{ "Tabletop" }</h1>
            <p class="tagline">{ "Bigtable schema-design playground" }</p>
            <a class="open-full" href={full} target="_blank" rel="noopener">{ "Open the full playground ↗" }</a>
            <div class="status-line" role="status" aria-live="polite">{ for notice }</div>
        </header>
    }
}

/// The playground's buttons: share, snapshot out and in (through the
/// hidden `file_input`), Export…, Import…, reset layout.
fn header_actions(
    props: &AppHeaderProps,
    link: &UseStateHandle<Option<String>>,
    file_input: &NodeRef,
) -> Html {
    let click = |cb: &Callback<()>| {
        let cb = cb.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let on_share = {
        let link = link.clone();
        let make_link = props.make_link.clone();
        Callback::from(move |_: MouseEvent| {
            if link.is_some() {
                link.set(None);
            } else {
                let text = make_link.emit(());
                browser::copy_text(&text);
                link.set(Some(text));
            }
        })
    };
    let on_pick = {
        let input = file_input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = input.cast::<web_sys::HtmlInputElement>() {
                input.click();
            }
        })
    };
    let on_file = {
        let on_import = props.on_import.clone();
        let on_notify = props.on_notify.clone();
        browser::on_file_picked(
            Callback::from(move |(name, bytes): (String, Vec<u8>)| {
                on_import.emit((name, Rc::new(bytes)))
            }),
            Callback::from(move |text| on_notify.emit(Notice { error: true, text })),
        )
    };
    html! {
        <nav class="header-actions" aria-label="Playground">
            <button type="button" class="button" onclick={on_share} aria-expanded={link.is_some().to_string()}>{ "Share link" }</button>
            <button type="button" class="button" onclick={click(&props.on_export)} title="Download the whole instance as a snapshot file (the format of the CLI's --state file)">{ "Export snapshot" }</button>
            <button type="button" class="button" onclick={on_pick} title="Replace everything with a snapshot file">{ "Import snapshot" }</button>
            <input ref={file_input.clone()} type="file" class="visually-hidden" aria-label="Snapshot file to import" tabindex="-1" onchange={on_file} />
            <button type="button" class="button" onclick={click(&props.on_open_export)} aria-haspopup="dialog" title="The cbt script, gcloud commands, Terraform file and CSV rows for a real Bigtable instance">{ "Export…" }</button>
            <button type="button" class="button" onclick={click(&props.on_open_import)} aria-haspopup="dialog" title="A DynamoDB model, an Oracle NoSQL DDL or a cbt CSV file into the playground">{ "Import…" }</button>
            { parity_toggle(props.emulator_parity, &props.on_emulator_parity) }
            <button type="button" class="button subtle" onclick={click(&props.on_reset_layout)}>{ "Reset layout" }</button>
        </nav>
    }
}

/// The emulator-parity switch: a toggle button whose pressed state is the
/// setting (the CLI's `--emulator-parity`).
fn parity_toggle(on: bool, on_change: &Callback<bool>) -> Html {
    let onclick = {
        let cb = on_change.clone();
        Callback::from(move |_: MouseEvent| cb.emit(!on))
    };
    html! {
        <button type="button" id="emulator-parity" class={classes!("button", "parity-toggle", on.then_some("on"))}
            aria-pressed={on.to_string()} {onclick}
            title="Answer as Google's Bigtable emulator does where it differs from production Bigtable (looser checks, other error codes, writes applied up to a failing mutation), as the CLI's --emulator-parity does. Off: as production.">
            { "Emulator parity" }
            <span class="parity-state">{ if on { "on" } else { "off" } }</span>
        </button>
    }
}

/// The share link just made (and copied), selected whole on focus.
fn share_box(text: String) -> Html {
    let on_select_all = Callback::from(|e: FocusEvent| {
        if let Some(input) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            input.select();
        }
    });
    html! {
        <div class="share-box">
            <label for="share-link">{ "Link to this schema, data settings and layout (copied to the clipboard):" }</label>
            <input id="share-link" class="mono" readonly=true value={text} onfocus={on_select_all} />
            <p class="hint">{ "Rows typed by hand travel in the link only while the tables are small; export a snapshot to share everything." }</p>
        </div>
    }
}
