//! The advisor's findings on the current design, each with its severity,
//! rule, what it points at, why it matters, one-click fixes (hover or
//! focus to preview, click to apply, undo afterwards) and the lesson that
//! explains it; then the declared access patterns and how each reads under
//! the current key.

use std::rc::Rc;

use tabletop_core::advisor::Fix;
use yew::prelude::*;

use super::key_designer::keys_list;
use super::rich_text::inline;
use crate::view_model::DisplayKey;
use crate::view_model::learn::{AdvisorView, FindingView, FixView};

/// Props of [`Findings`].
#[derive(Properties, PartialEq)]
pub struct FindingsProps {
    /// The advisor's view of the design.
    pub view: Rc<AdvisorView>,
    /// The title of the fix an Undo takes back, and how many fixes can
    /// be undone in all.
    pub undo: Option<(String, usize)>,
    /// The title of the fix being previewed.
    pub previewing: Option<String>,
    /// The example keys of the previewed fix.
    pub preview_keys: Option<Rc<Vec<DisplayKey>>>,
    /// Apply a fix.
    pub on_apply: Callback<Fix>,
    /// Undo the last fix.
    pub on_undo: Callback<()>,
    /// Preview a fix (`None`: stop previewing).
    pub on_preview: Callback<Option<FixView>>,
    /// Open a lesson in the Lessons panel.
    pub on_lesson: Callback<String>,
}

fn counts_text(counts: [usize; 3]) -> String {
    let part = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{}, {}, {}",
        part(counts[2], "error", "errors"),
        part(counts[1], "warning", "warnings"),
        part(counts[0], "note", "notes")
    )
}

fn fix_button(i: usize, j: usize, fix: &FixView, props: &FindingsProps) -> Html {
    let onclick = {
        let on_apply = props.on_apply.clone();
        let f = fix.fix.clone();
        Callback::from(move |_: MouseEvent| on_apply.emit(f.clone()))
    };
    let show = {
        let on_preview = props.on_preview.clone();
        let f = fix.clone();
        move || on_preview.emit(Some(f.clone()))
    };
    let hide = {
        let on_preview = props.on_preview.clone();
        move || on_preview.emit(None)
    };
    let onmouseenter = {
        let show = show.clone();
        Callback::from(move |_: MouseEvent| show())
    };
    let onfocus = Callback::from(move |_: FocusEvent| show());
    let onmouseleave = {
        let hide = hide.clone();
        Callback::from(move |_: MouseEvent| hide())
    };
    let onblur = Callback::from(move |_: FocusEvent| hide());
    let previewing = props.previewing.as_deref() == Some(fix.title.as_str());
    let detail_id = format!("fix-{i}-{j}");
    html! {
        <li class={classes!("fix", previewing.then_some("previewing"))}>
            <button
                type="button"
                class="button small fix-apply"
                aria-describedby={detail_id.clone()}
                disabled={fix.error.is_some()}
                {onclick}
                {onmouseenter}
                {onmouseleave}
                {onfocus}
                {onblur}
            >
                { "Fix: " }{ inline(&fix.title) }
            </button>
            <div class="fix-detail" id={detail_id}>
                if let Some(e) = &fix.error {
                    <p class="field-error">{ format!("Cannot be applied: {e}") }</p>
                }
                if previewing {
                    if let Some(p) = &fix.key_pattern {
                        <p class="mono fix-pattern">{ format!("key: {p}") }</p>
                    }
                    if let Some(keys) = props.preview_keys.as_ref().filter(|k| !k.is_empty()) {
                        <div class="kd-preview" aria-live="polite">
                            <p class="kd-subtitle">{ "Example keys after the fix" }</p>
                            { keys_list(keys, "kd-preview-keys") }
                        </div>
                    }
                    // The families matter when the fix changes them, not
                    // when it changes the key.
                    if fix.key_pattern.is_none() && !fix.families.is_empty() {
                        <p class="fix-families">{ format!("families: {}", fix.families.join(", ")) }</p>
                    }
                    <p class="muted">
                        { if fix.resolves { "Resolves this finding." } else { "Does not fully resolve this finding." } }
                        if !fix.introduces.is_empty() {
                            { format!(" Newly raises: {}.", fix.introduces.join(", ")) }
                        }
                    </p>
                }
            </div>
        </li>
    }
}

fn finding_item(i: usize, f: &FindingView, props: &FindingsProps) -> Html {
    let lesson = f.lesson.as_ref().map(|(id, title)| {
        let onclick = {
            let on_lesson = props.on_lesson.clone();
            let id = id.clone();
            Callback::from(move |_: MouseEvent| on_lesson.emit(id.clone()))
        };
        html! {
            <button type="button" class="link-button finding-lesson" {onclick}>
                { format!("Lesson: {title}") }
            </button>
        }
    });
    html! {
        <li class={classes!("finding", format!("sev-{}", f.severity))} key={format!("{}-{}", f.rule, f.target)}>
            <div class="finding-head">
                <span class={classes!("sev-badge", format!("sev-{}", f.severity))}>{ f.severity }</span>
                <code class="rule-id">{ f.rule.clone() }</code>
                <span class="finding-target">{ f.target.clone() }</span>
            </div>
            <p class="finding-title">{ inline(&f.title) }</p>
            <details class="finding-why">
                <summary>{ "Why it matters" }</summary>
                <p>{ inline(&f.why) }</p>
                if !f.evidence.is_empty() {
                    <ul class="finding-evidence">
                        { for f.evidence.iter().map(|e| html! { <li>{ inline(e) }</li> }) }
                    </ul>
                }
            </details>
            if !f.fixes.is_empty() {
                <ul class="fix-list">
                    { for f.fixes.iter().enumerate().map(|(j, fix)| fix_button(i, j, fix, props)) }
                </ul>
            }
            { for lesson }
        </li>
    }
}

/// The findings list and the access patterns.
#[component(Findings)]
pub fn findings(props: &FindingsProps) -> Html {
    let view = &props.view;
    let on_undo = {
        let on_undo = props.on_undo.clone();
        Callback::from(move |_: MouseEvent| on_undo.emit(()))
    };
    html! {
        <>
            <section class="learn-block findings" aria-labelledby="advisor-title">
                <h3 class="section-title" id="advisor-title">
                    { "Advisor" }
                    <span class="advisor-counts">{ counts_text(view.counts) }</span>
                </h3>
                <p class="advisor-evidence">
                    if view.with_report {
                        { "Checked against the design and the finished simulation's evidence." }
                    } else {
                        { "Checked against the design; run its simulation to the end to add the traffic's evidence." }
                    }
                </p>
                if let Some((title, depth)) = &props.undo {
                    <div class="undo-bar" role="status">
                        <span>{ "Applied \u{201c}" }{ inline(title) }{ "\u{201d}" }</span>
                        <button type="button" class="button small" onclick={on_undo}>{ "Undo" }</button>
                        if *depth > 1 {
                            <span class="muted">{ format!("{} earlier {} can be undone after it", depth - 1, if *depth == 2 { "fix" } else { "fixes" }) }</span>
                        }
                    </div>
                }
                if view.findings.is_empty() {
                    <p class="empty">{ "No findings: the design follows every rule the advisor knows." }</p>
                } else {
                    <ul class="finding-list" aria-label="Findings">
                        { for view.findings.iter().enumerate().map(|(i, f)| finding_item(i, f, props)) }
                    </ul>
                }
            </section>
            if !view.access.is_empty() {
                <section class="learn-block access" aria-labelledby="access-title">
                    <h3 class="section-title" id="access-title">{ "Access patterns" }</h3>
                    <ul class="access-list">
                        { for view.access.iter().map(|a| html! {
                            <li class="access-item" key={a.name.clone()}>
                                <div class="access-head">
                                    <span class={classes!("shape-badge", format!("shape-{}", a.shape), a.good.then_some("good"))}>{ a.shape_label }</span>
                                    <span class="access-name">{ a.name.clone() }</span>
                                </div>
                                <p class="access-why">{ a.explanation.clone() }</p>
                                if !a.row_set.is_empty() {
                                    <ul class="access-rows mono">
                                        { for a.row_set.iter().map(|r| html! { <li>{ r.clone() }</li> }) }
                                    </ul>
                                }
                            </li>
                        }) }
                    </ul>
                </section>
            }
        </>
    }
}
