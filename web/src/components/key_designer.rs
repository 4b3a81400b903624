//! The row-key designer and the advisor, under the Schema panel's tables.
//!
//! [`DesignSection`] is the one part that reads the app context (so the
//! Schema panel renders it with one line): it computes the advisor's view
//! only when the design or the tables' schema changed, keeps which fix is
//! being previewed, and hands plain props to [`KeyDesigner`] and
//! [`super::findings::Findings`].

use std::rc::Rc;

use yew::prelude::*;

use super::findings::Findings;
use super::key_view::key_html;
use crate::state::learn::LearnAction;
use crate::state::{Action, AppContext};
use crate::view_model::DisplayKey;
use crate::view_model::KeyPart;
use crate::view_model::keydesign::{DraftEdit, KeyDraft, SegField, example_keys, fields_for};
use crate::view_model::learn::{FixView, preview_keys, scenario_choices};

/// Example keys the designer shows.
const EXAMPLES: usize = 5;

/// Props of [`KeyDesigner`].
#[derive(Properties, PartialEq)]
pub struct KeyDesignerProps {
    /// Where the design came from (`edited`, a scenario, a lesson).
    pub source: String,
    /// The design's key pattern; `None` when there is no design.
    pub pattern: Option<String>,
    /// What is typed.
    pub draft: KeyDraft,
    /// Example keys of the design.
    pub examples: Rc<Vec<DisplayKey>>,
    /// Edit the draft.
    pub on_edit: Callback<DraftEdit>,
    /// Start from a shipped scenario (its file name).
    pub on_pick: Callback<String>,
}

fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlSelectElement>()
        .value()
}

/// Keys as a list, each tinted by segment.
pub fn keys_list(keys: &[DisplayKey], class: &'static str) -> Html {
    html! {
        <ul class={classes!("kd-keys", class)}>
            { for keys.iter().map(|k| html! { <li class="mono">{ key_html(k) }</li> }) }
        </ul>
    }
}

/// One parameter field of a segment.
fn param_field(
    index: usize,
    field: SegField,
    value: &str,
    others: &[String],
    on_edit: &Callback<DraftEdit>,
) -> Html {
    let label = format!("Segment {} {}", index + 1, field.label());
    let emit = {
        let on_edit = on_edit.clone();
        move |text: String| on_edit.emit(DraftEdit::Field(index, field, text))
    };
    let control = if field.is_flag() {
        let checked = value == "true";
        let onchange = Callback::from(move |e: Event| {
            let on = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .checked();
            emit(if on { "true" } else { "false" }.to_string());
        });
        html! { <input type="checkbox" aria-label={label.clone()} {checked} {onchange} /> }
    } else if field == SegField::Of {
        let onchange = Callback::from(move |e: Event| emit(select_value(&e)));
        html! {
            <select aria-label={label.clone()} {onchange}>
                <option value="" selected={value.is_empty()}>{ "(random per operation)" }</option>
                { for others.iter().map(|o| html! {
                    <option value={o.clone()} selected={o == value}>{ o.clone() }</option>
                }) }
                // A name that is not (or no longer) a segment stays visible.
                if !value.is_empty() && !others.iter().any(|o| o == value) {
                    <option value={value.to_string()} selected=true>{ value.to_string() }</option>
                }
            </select>
        }
    } else if let Some(choices) = field.choices() {
        let onchange = Callback::from(move |e: Event| emit(select_value(&e)));
        html! {
            <select aria-label={label.clone()} {onchange}>
                // Kinds show their scenario-file name too, as lessons and
                // the advisor use it.
                { for choices.iter().map(|(v, text)| html! {
                    <option value={*v} selected={*v == value}>
                        { if field == SegField::Kind { format!("{v} · {text}") } else { (*text).to_string() } }
                    </option>
                }) }
            </select>
        }
    } else {
        let oninput = Callback::from(move |e: InputEvent| emit(input_value(&e)));
        let wide = matches!(field, SegField::Values | SegField::Hosts | SegField::Value);
        html! {
            <input
                type="text"
                class={classes!("input", "mono", if wide { "kd-wide" } else { "kd-narrow" })}
                aria-label={label.clone()}
                value={value.to_string()}
                spellcheck="false"
                {oninput}
            />
        }
    };
    html! {
        <label class="kd-param">
            <span class="kd-param-label">{ field.label() }</span>
            { control }
        </label>
    }
}

/// Segment `i` of a key of `names.len()` segments: its number, name and
/// kind, the buttons that move or remove it, and its parameters.
fn segment_item(
    i: usize,
    seg: &crate::view_model::keydesign::SegmentDraft,
    names: &[String],
    on_edit: &Callback<DraftEdit>,
) -> Html {
    let n = names.len();
    let others: Vec<String> = names
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .map(|(_, s)| s.clone())
        .collect();
    let edit = |edit: DraftEdit| {
        let on_edit = on_edit.clone();
        Callback::from(move |_: MouseEvent| on_edit.emit(edit.clone()))
    };
    let on_name = {
        let on_edit = on_edit.clone();
        Callback::from(move |e: InputEvent| {
            on_edit.emit(DraftEdit::Field(i, SegField::Name, input_value(&e)));
        })
    };
    html! {
        <li class="kd-segment" key={i}>
            <div class="kd-row">
                <span class={classes!("kd-num", KeyPart::tint_class(i))} aria-hidden="true">{ i + 1 }</span>
                <input
                    type="text"
                    class="input mono kd-name"
                    aria-label={format!("Segment {} name", i + 1)}
                    value={seg.name().to_string()}
                    spellcheck="false"
                    oninput={on_name}
                />
                { param_field(i, SegField::Kind, seg.kind(), &others, on_edit) }
                <span class="kd-moves">
                    <button type="button" class="icon-button" aria-label={format!("Move segment {} up", i + 1)} disabled={i == 0} onclick={edit(DraftEdit::Move(i, true))}>{ "↑" }</button>
                    <button type="button" class="icon-button" aria-label={format!("Move segment {} down", i + 1)} disabled={i + 1 == n} onclick={edit(DraftEdit::Move(i, false))}>{ "↓" }</button>
                    <button type="button" class="icon-button" aria-label={format!("Remove segment {}", i + 1)} disabled={n == 1} onclick={edit(DraftEdit::Remove(i))}>{ "✕" }</button>
                </span>
            </div>
            <div class="kd-params">
                { for fields_for(seg.kind()).iter().map(|f| param_field(i, *f, seg.get(*f), &others, on_edit)) }
            </div>
        </li>
    }
}

/// The key template editor with live example keys.
#[component(KeyDesigner)]
pub fn key_designer(props: &KeyDesignerProps) -> Html {
    let on_pick = {
        let on_pick = props.on_pick.clone();
        Callback::from(move |e: Event| {
            let el = e.target_unchecked_into::<web_sys::HtmlSelectElement>();
            let file = el.value();
            if !file.is_empty() {
                on_pick.emit(file);
            }
            el.set_value("");
        })
    };
    let picker = html! {
        <select class="kd-picker" aria-label="Start from a scenario" onchange={on_pick}>
            <option value="" selected=true>{ "Start from a scenario…" }</option>
            { for scenario_choices().iter().map(|c| html! {
                <option value={c.file}>{ format!("{}{}", if c.for_lesson { "Lesson: " } else { "" }, c.name) }</option>
            }) }
        </select>
    };
    let Some(pattern) = props.pattern.clone() else {
        return html! {
            <section class="learn-block key-designer" aria-labelledby="kd-title">
                <h3 class="section-title" id="kd-title">{ "Row-key design" }</h3>
                <p class="empty">{ "No design yet. Start from one of the shipped scenarios to edit its row key, see example keys, and get the advisor's findings." }</p>
                { picker }
            </section>
        };
    };
    let draft = &props.draft;
    let names: Vec<String> = draft
        .segments
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    let on_delimiter = {
        let on_edit = props.on_edit.clone();
        Callback::from(move |e: InputEvent| on_edit.emit(DraftEdit::Delimiter(input_value(&e))))
    };
    let on_add = {
        let on_edit = props.on_edit.clone();
        Callback::from(move |_: MouseEvent| on_edit.emit(DraftEdit::Add))
    };
    let n = draft.segments.len();
    html! {
        <section class="learn-block key-designer" aria-labelledby="kd-title">
            <h3 class="section-title" id="kd-title">{ "Row-key design" }</h3>
            <p class="kd-source">
                <span class="muted">{ "Design: " }</span>
                <span class="kd-source-name">{ props.source.clone() }</span>
            </p>
            { picker }
            <p class="kd-pattern mono" aria-label="Key pattern">{ pattern }</p>
            <label class="kd-param kd-delimiter">
                <span class="kd-param-label">{ "delimiter" }</span>
                <input
                    type="text"
                    class="input mono kd-narrow"
                    aria-label="Key delimiter"
                    value={draft.delimiter.clone()}
                    spellcheck="false"
                    oninput={on_delimiter}
                />
            </label>
            <ol class="kd-segments">
                { for draft.segments.iter().enumerate().map(|(i, seg)| segment_item(i, seg, &names, &props.on_edit)) }
            </ol>
            <button type="button" class="button small" onclick={on_add} disabled={n >= tabletop_core::keydesign::MAX_SEGMENTS}>{ "Add segment" }</button>
            if let Some(error) = &draft.error {
                <p class="field-error" role="alert">{ error.clone() }</p>
            }
            <h4 class="kd-subtitle">{ "Example keys" }</h4>
            { keys_list(&props.examples, "kd-examples") }
        </section>
    }
}

/// The designer and the advisor for the current design, from the app
/// context (rendered inside the Schema panel).
#[component(DesignSection)]
pub fn design_section() -> Html {
    let app = use_context::<AppContext>()
        .expect("DesignSection is rendered inside App's ContextProvider");
    let preview = use_state(|| None::<FixView>);
    // The advisor's findings are kept up to date by the state.
    let view = Rc::clone(&app.advisor.view);
    let examples = {
        let design = Rc::clone(&app.design);
        use_memo(design.rev, move |_| {
            Rc::new(
                design
                    .scenario
                    .as_ref()
                    .map(|s| example_keys(&s.key, EXAMPLES))
                    .unwrap_or_default(),
            )
        })
    };
    // Callbacks are made once, so the designer and the findings keep
    // equal props and skip re-rendering when other parts of the app change
    // (this section reads the context, so it runs on every app update).
    let cbs = {
        let d = app.dispatcher();
        let set_preview = preview.setter();
        use_memo((), move |()| {
            let on_apply = {
                let d = d.clone();
                let set_preview = set_preview.clone();
                Callback::from(move |fix| {
                    set_preview.set(None);
                    d.dispatch(Action::Learn(LearnAction::ApplyFix(Box::new(fix))));
                })
            };
            DesignCallbacks {
                on_edit: d
                    .to_callback()
                    .reform(|e| Action::Learn(LearnAction::Draft(e))),
                on_pick: d
                    .to_callback()
                    .reform(|f| Action::Learn(LearnAction::PickScenario(f))),
                on_apply,
                on_undo: d
                    .to_callback()
                    .reform(|()| Action::Learn(LearnAction::Undo)),
                on_lesson: d
                    .to_callback()
                    .reform(|id| Action::Learn(LearnAction::Open(id))),
                on_preview: Callback::from(move |fix: Option<FixView>| set_preview.set(fix)),
            }
        })
    };
    let scenario = app.design.scenario.clone();
    // The preview's keys are cut into the segments of the design with the
    // fix applied, so they are tinted like the designer's examples.
    let preview_keys = {
        let scenario = scenario.clone();
        use_memo(((*preview).clone(), app.design.rev), move |(fix, _)| {
            fix.as_ref()
                .map(|fix| Rc::new(preview_keys(scenario.as_deref(), fix)))
        })
    };
    let draft = scenario
        .as_ref()
        .map(|s| app.learn.draft_for(&s.key, app.design.rev))
        .unwrap_or_default();
    html! {
        <div class="design-section">
            <KeyDesigner
                source={app.design.source.clone()}
                pattern={scenario.as_ref().map(|s| s.key.pattern())}
                {draft}
                examples={(*examples).clone()}
                on_edit={cbs.on_edit.clone()}
                on_pick={cbs.on_pick.clone()}
            />
            <Findings
                view={Rc::clone(&view)}
                undo={app.learn.undo_top()}
                previewing={(*preview).as_ref().map(|f| f.title.clone())}
                preview_keys={(*preview_keys).clone()}
                on_apply={cbs.on_apply.clone()}
                on_undo={cbs.on_undo.clone()}
                on_preview={cbs.on_preview.clone()}
                on_lesson={cbs.on_lesson.clone()}
            />
        </div>
    }
}

/// The section's callbacks, made once.
struct DesignCallbacks {
    on_edit: Callback<DraftEdit>,
    on_pick: Callback<String>,
    on_apply: Callback<tabletop_core::advisor::Fix>,
    on_undo: Callback<()>,
    on_lesson: Callback<String>,
    on_preview: Callback<Option<FixView>>,
}
