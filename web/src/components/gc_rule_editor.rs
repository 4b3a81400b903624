//! An editor for a garbage-collection rule: none, max versions, max age, or
//! a union or intersection of nested rules. It edits a [`GcDraft`] (numbers
//! stay text until checked); the form around it shows the core's verdict.

use yew::prelude::*;

use crate::view_model::schema::{AgeUnit, GcDraft, GcKind};

/// Props of [`GcRuleEditor`].
#[derive(Properties, PartialEq)]
pub struct GcRuleEditorProps {
    /// The rule being edited.
    pub draft: GcDraft,
    /// Called with the edited rule.
    pub on_change: Callback<GcDraft>,
    /// A unique prefix for element ids.
    pub id: AttrValue,
    /// How deep in a union or intersection this rule is.
    #[prop_or_default]
    pub depth: u32,
}

/// Deepest nesting the editor offers (the core accepts deeper ones).
const MAX_DEPTH: u32 = 3;

fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlSelectElement>()
        .value()
}

/// The editor.
#[component(GcRuleEditor)]
pub fn gc_rule_editor(props: &GcRuleEditorProps) -> Html {
    let draft = props.draft.clone();
    let kind_id = format!("{}-kind", props.id);
    let on_kind = {
        let draft = draft.clone();
        let on_change = props.on_change.clone();
        Callback::from(move |e: Event| {
            on_change.emit(draft.with_kind(GcKind::from_value(&select_value(&e))));
        })
    };
    let kinds = GcKind::ALL.iter().filter(|(k, _)| {
        props.depth < MAX_DEPTH || !matches!(k, GcKind::Union | GcKind::Intersection)
    });
    let body = match &draft {
        GcDraft::None => {
            html! { <span class="hint">{ "Every version is kept until deleted." }</span> }
        }
        GcDraft::MaxVersions(text) => {
            let on_change = props.on_change.clone();
            let oninput = Callback::from(move |e: InputEvent| {
                on_change.emit(GcDraft::MaxVersions(input_value(&e)));
            });
            html! {
                <label class="inline">
                    { "keep the newest " }
                    <input class="num" type="number" min="1" value={text.clone()} {oninput} aria-label="Versions to keep" />
                    { " versions" }
                </label>
            }
        }
        GcDraft::MaxAge { amount, unit } => max_age_fields(amount, *unit, &props.on_change),
        GcDraft::Union(rules) | GcDraft::Intersection(rules) => {
            rule_group(rules, matches!(draft, GcDraft::Union(_)), props)
        }
    };
    html! {
        <div class="gc-editor">
            <select id={kind_id} onchange={on_kind} aria-label={if props.depth == 0 { "GC rule".to_string() } else { format!("Nested GC rule (level {})", props.depth) }}>
                { for kinds.map(|(kind, label)| html! {
                    <option value={kind.value()} selected={*kind == draft.kind()}>{ *label }</option>
                }) }
            </select>
            { body }
        </div>
    }
}

/// A maximum age: the amount and its unit.
fn max_age_fields(amount: &str, unit: AgeUnit, on_change: &Callback<GcDraft>) -> Html {
    let on_amount = {
        let on_change = on_change.clone();
        Callback::from(move |e: InputEvent| {
            on_change.emit(GcDraft::MaxAge {
                amount: input_value(&e),
                unit,
            });
        })
    };
    let on_unit = {
        let on_change = on_change.clone();
        let amount = amount.to_string();
        Callback::from(move |e: Event| {
            let value = select_value(&e);
            let unit = AgeUnit::ALL
                .into_iter()
                .find(|u| u.label() == value)
                .unwrap_or_default();
            on_change.emit(GcDraft::MaxAge {
                amount: amount.clone(),
                unit,
            });
        })
    };
    html! {
        <span class="inline">
            { "delete versions older than " }
            <input class="num" type="number" min="1" value={amount.to_string()} oninput={on_amount} aria-label="Maximum age" />
            <select onchange={on_unit} aria-label="Unit of the maximum age">
                { for AgeUnit::ALL.iter().map(|u| html! {
                    <option value={u.label()} selected={*u == unit}>{ u.label() }</option>
                }) }
            </select>
        </span>
    }
}

/// A union (`union`) or an intersection of nested rules, each with its own
/// editor and remove, and a rule to add.
fn rule_group(rules: &[GcDraft], union: bool, props: &GcRuleEditorProps) -> Html {
    // Hands the group, with its rules changed, to the parent.
    let emit = {
        let on_change = props.on_change.clone();
        move |rules: Vec<GcDraft>| {
            on_change.emit(if union {
                GcDraft::Union(rules)
            } else {
                GcDraft::Intersection(rules)
            });
        }
    };
    let items = rules.iter().enumerate().map(|(i, rule)| {
        let on_change = {
            let rules = rules.to_vec();
            let emit = emit.clone();
            Callback::from(move |edited: GcDraft| {
                let mut rules = rules.clone();
                rules[i] = edited;
                emit(rules);
            })
        };
        let on_remove = {
            let rules = rules.to_vec();
            let emit = emit.clone();
            Callback::from(move |_: MouseEvent| {
                let mut rules = rules.clone();
                rules.remove(i);
                emit(rules);
            })
        };
        html! {
            <li class="gc-nested">
                <GcRuleEditor draft={rule.clone()} {on_change} id={format!("{}-{i}", props.id)} depth={props.depth + 1} />
                <button type="button" class="link-button" onclick={on_remove} aria-label={format!("Remove rule {}", i + 1)}>{ "remove" }</button>
            </li>
        }
    });
    let on_add = {
        let rules = rules.to_vec();
        let emit = emit.clone();
        Callback::from(move |_: MouseEvent| {
            let mut rules = rules.clone();
            rules.push(GcDraft::MaxVersions("1".into()));
            emit(rules);
        })
    };
    html! {
        <div class="gc-group">
            <span class="hint">{ if union { "a version goes when any of these would delete it:" } else { "a version goes only when all of these would delete it:" } }</span>
            <ol>{ for items }</ol>
            <button type="button" class="link-button" onclick={on_add}>{ "+ add a rule" }</button>
        </div>
    }
}
