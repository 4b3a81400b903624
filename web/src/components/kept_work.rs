//! What the playground says before and after it replaces the user's work.
//!
//! [`ConfirmImport`] asks before a snapshot file replaces the tables;
//! [`ReplacedBar`] stays in the left column while the replaced work is kept,
//! with the one click that brings it back.

use yew::prelude::*;

use super::export_dialog::Modal;
use crate::state::PendingImport;
use crate::state::aside::tables_text;

/// Props of [`ConfirmImport`].
#[derive(Properties, PartialEq)]
pub struct ConfirmImportProps {
    /// The snapshot waiting.
    pub pending: PendingImport,
    /// How many tables the playground holds now.
    pub tables: usize,
    /// Whether a lesson runs (it ends).
    pub in_lesson: bool,
    /// The answer: replace, or not.
    pub on_answer: Callback<bool>,
}

/// Asks whether a snapshot may replace the playground's tables.
#[component(ConfirmImport)]
pub fn confirm_import(props: &ConfirmImportProps) -> Html {
    let p = &props.pending;
    let answer = |yes: bool| {
        let on_answer = props.on_answer.clone();
        Callback::from(move |_: MouseEvent| on_answer.emit(yes))
    };
    let on_close = {
        let on_answer = props.on_answer.clone();
        Callback::from(move |()| on_answer.emit(false))
    };
    let now = match props.tables {
        1 => "the playground's table".to_string(),
        n => format!("the playground's {n} tables"),
    };
    html! {
        <Modal id="confirm-import" title="Replace the tables with this snapshot?" {on_close}>
            <p>
                { format!("{} ({}, {}) replaces {now} and the design.", p.name, tabletop_core::human_bytes(p.bytes as f64), tables_text(p.tables)) }
                if props.in_lesson {
                    { " The lesson ends first, so it is your own tables that are replaced." }
                }
            </p>
            <p>{ "Nothing is lost: your current work is kept aside, and Undo in the Schema column brings it back." }</p>
            <div class="lesson-actions">
                <button type="button" class="button primary" onclick={answer(true)}>{ "Replace" }</button>
                <button type="button" class="button" onclick={answer(false)}>{ "Cancel" }</button>
            </div>
        </Modal>
    }
}

/// Props of [`ReplacedBar`].
#[derive(Properties, PartialEq)]
pub struct ReplacedBarProps {
    /// What replaced the work ("the snapshot x.tabletop").
    pub what: String,
    /// What was replaced: "Your earlier 2 tables".
    pub work: String,
    /// Its verb: "is" or "are".
    pub verb: &'static str,
    /// Bring the work back.
    pub on_undo: Callback<()>,
    /// Forget it.
    pub on_forget: Callback<()>,
}

/// The work a snapshot or link replaced, kept until the user decides.
#[component(ReplacedBar)]
pub fn replaced_bar(props: &ReplacedBarProps) -> Html {
    let undo = props.on_undo.reform(|_: MouseEvent| ());
    let forget = props.on_forget.reform(|_: MouseEvent| ());
    let it = if props.verb == "are" { "them" } else { "it" };
    html! {
        <section class="replaced-bar" aria-label="Earlier work kept aside">
            <p>{ format!("{} {} kept aside since {} replaced {it}.", props.work, props.verb, props.what) }</p>
            <div class="lesson-actions">
                <button type="button" class="button small primary" onclick={undo}>{ format!("Undo: bring {it} back") }</button>
                <button type="button" class="button small subtle" onclick={forget}>{ format!("Forget {it}") }</button>
            </div>
        </section>
    }
}
