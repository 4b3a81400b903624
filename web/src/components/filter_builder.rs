//! The visual filter builder: a chain of filter steps that becomes a
//! `RowFilter` in proto3 JSON (checked by the core as you edit) and, where
//! `cbt read` has options for every step, the equivalent `cbt` command.
//! Either can be put into the console.

use std::rc::Rc;

use yew::prelude::*;

use crate::state::console::Tab;
use crate::view_model::filter::{
    FilterStep, STEP_KINDS, cbt_options, cbt_read_line, filter_json, read_rows_line,
};
use crate::view_model::schema::TableSummary;

/// Props of [`FilterBuilder`].
#[derive(Properties, PartialEq)]
pub struct FilterBuilderProps {
    /// The tables to read.
    pub tables: Rc<Vec<TableSummary>>,
    /// The selected table (the default).
    pub selected: Option<String>,
    /// The instance's name, for the JSON request's table name.
    pub instance_name: String,
    /// Put a command into a console tab.
    pub on_insert: Callback<(Tab, String)>,
}

fn text_field(label: &str, value: &str, on: Callback<String>) -> Html {
    let oninput = Callback::from(move |e: InputEvent| {
        on.emit(
            e.target_unchecked_into::<web_sys::HtmlInputElement>()
                .value(),
        );
    });
    html! {
        <input class="mono" type="text" value={value.to_string()} {oninput} aria-label={label.to_string()} spellcheck="false" />
    }
}

/// The builder.
#[component(FilterBuilder)]
pub fn filter_builder(props: &FilterBuilderProps) -> Html {
    let steps = use_state(|| vec![FilterStep::new("family"), FilterStep::new("latest")]);
    let kind = use_state(|| "row-key".to_string());
    let table = use_state(|| None::<String>);
    let limit = use_state(|| "10".to_string());

    let table_name = (*table)
        .clone()
        .or_else(|| props.selected.clone())
        .or_else(|| props.tables.first().map(|t| t.name.clone()))
        .unwrap_or_else(|| "mobile-time-series".into());
    let limit_value: Option<u64> = limit.trim().parse().ok().filter(|n| *n > 0);
    let json = filter_json(&steps);
    let cbt = cbt_options(&steps);

    let step_items = steps
        .iter()
        .enumerate()
        .map(|(i, step)| step_item(&steps, i, step));
    let on_table = {
        let table = table.clone();
        Callback::from(move |e: Event| {
            table.set(Some(
                e.target_unchecked_into::<web_sys::HtmlSelectElement>()
                    .value(),
            ))
        })
    };
    let on_limit = {
        let limit = limit.clone();
        Callback::from(move |e: InputEvent| {
            limit.set(
                e.target_unchecked_into::<web_sys::HtmlInputElement>()
                    .value(),
            )
        })
    };

    let json_line = json.as_ref().ok().map(|f| {
        read_rows_line(
            &format!("{}/tables/{table_name}", props.instance_name),
            f.as_ref(),
            limit_value,
        )
    });
    let cbt_line = match (&json, &cbt) {
        (Ok(_), Ok(options)) => Some(cbt_read_line(&table_name, options, limit_value)),
        _ => None,
    };
    let insert = |tab: Tab, line: Option<String>| {
        let on_insert = props.on_insert.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(line) = &line {
                on_insert.emit((tab, line.clone()));
            }
        })
    };
    let pretty = json.as_ref().ok().map(|f| match f {
        Some(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
        None => "no filter: every cell of every row".into(),
    });

    html! {
        <aside class="filter-builder" aria-label="Filter builder">
            <div class="fb-head">
                <label class="inline">
                    { "Read " }
                    <select onchange={on_table} aria-label="Table to read">
                        { for props.tables.iter().map(|t| html! { <option value={t.name.clone()} selected={t.name == table_name}>{ &t.name }</option> }) }
                    </select>
                </label>
                <label class="inline">
                    { " rows limit " }
                    <input class="num" type="number" min="0" value={(*limit).clone()} oninput={on_limit} aria-label="Rows limit" />
                </label>
            </div>
            <p class="hint">{ "A chain: each step filters what the previous one let through." }</p>
            <ol class="filter-steps">{ for step_items }</ol>
            { add_step(&steps, &kind) }
            { outputs(pretty.as_deref(), &json, cbt_line.as_deref(), &cbt) }
            <div class="form-actions">
                <button type="button" class="button small" disabled={cbt_line.is_none()} onclick={insert(Tab::Cbt, cbt_line.clone())}>{ "Insert into cbt tab" }</button>
                <button type="button" class="button small" disabled={json_line.is_none()} onclick={insert(Tab::Json, json_line.clone())}>{ "Insert into JSON tab" }</button>
            </div>
        </aside>
    }
}

/// One step of the chain: its fields and remove; `steps` is the chain,
/// `i` its place there.
fn step_item(steps: &UseStateHandle<Vec<FilterStep>>, i: usize, step: &FilterStep) -> Html {
    let set = {
        let steps = steps.clone();
        move |step: FilterStep| {
            let mut list = (*steps).clone();
            list[i] = step;
            steps.set(list);
        }
    };
    let on_remove = {
        let steps = steps.clone();
        Callback::from(move |_: MouseEvent| {
            let mut list = (*steps).clone();
            list.remove(i);
            steps.set(list);
        })
    };
    html! {
        <li class="filter-step">
            <span class="step-label">{ step.label() }</span>
            { step_fields(step, set) }
            <button type="button" class="link-button" onclick={on_remove} aria-label={format!("Remove step {}", i + 1)}>{ "remove" }</button>
        </li>
    }
}

/// The fields of a step, each edit handed to `set` as the whole step.
fn step_fields(step: &FilterStep, set: impl Fn(FilterStep) + Clone + 'static) -> Html {
    match step {
        FilterStep::RowKeyRegex(v) => text_field(
            "Row key regex",
            v,
            Callback::from(move |v| set(FilterStep::RowKeyRegex(v))),
        ),
        FilterStep::FamilyRegex(v) => text_field(
            "Family regex",
            v,
            Callback::from(move |v| set(FilterStep::FamilyRegex(v))),
        ),
        FilterStep::QualifierRegex(v) => text_field(
            "Qualifier regex",
            v,
            Callback::from(move |v| set(FilterStep::QualifierRegex(v))),
        ),
        FilterStep::ValueRegex(v) => text_field(
            "Value regex",
            v,
            Callback::from(move |v| set(FilterStep::ValueRegex(v))),
        ),
        FilterStep::LatestVersions(v) => text_field(
            "Versions per column",
            v,
            Callback::from(move |v| set(FilterStep::LatestVersions(v))),
        ),
        FilterStep::CellsPerRowLimit(v) => text_field(
            "Cells per row",
            v,
            Callback::from(move |v| set(FilterStep::CellsPerRowLimit(v))),
        ),
        FilterStep::CellsPerRowOffset(v) => text_field(
            "Cells to skip per row",
            v,
            Callback::from(move |v| set(FilterStep::CellsPerRowOffset(v))),
        ),
        FilterStep::RowSample(v) => text_field(
            "Probability",
            v,
            Callback::from(move |v| set(FilterStep::RowSample(v))),
        ),
        FilterStep::StripValue => html! {},
        FilterStep::TimestampRange { start, end } => {
            let set_start = {
                let set = set.clone();
                let end = end.clone();
                Callback::from(move |v: String| {
                    set(FilterStep::TimestampRange {
                        start: v,
                        end: end.clone(),
                    })
                })
            };
            let set_end = {
                let start = start.clone();
                Callback::from(move |v: String| {
                    set(FilterStep::TimestampRange {
                        start: start.clone(),
                        end: v,
                    })
                })
            };
            html! {
                <span class="range">
                    { text_field("From (µs, inclusive)", start, set_start) }
                    { text_field("To (µs, exclusive)", end, set_end) }
                </span>
            }
        }
    }
}

/// The kind of step to add, and Add step.
fn add_step(steps: &UseStateHandle<Vec<FilterStep>>, kind: &UseStateHandle<String>) -> Html {
    let on_kind = {
        let kind = kind.clone();
        Callback::from(move |e: Event| {
            kind.set(
                e.target_unchecked_into::<web_sys::HtmlSelectElement>()
                    .value(),
            )
        })
    };
    let on_add = {
        let steps = steps.clone();
        let kind = kind.clone();
        Callback::from(move |_: MouseEvent| {
            let mut list = (*steps).clone();
            list.push(FilterStep::new(&kind));
            steps.set(list);
        })
    };
    html! {
        <div class="fb-add">
            <select onchange={on_kind} aria-label="Kind of step to add">
                { for STEP_KINDS.iter().map(|(k, label)| html! { <option value={*k} selected={*k == **kind}>{ *label }</option> }) }
            </select>
            <button type="button" class="button small" onclick={on_add}>{ "Add step" }</button>
        </div>
    }
}

/// The filter as proto3 JSON (or why it is not valid), and the `cbt read`
/// line (or why there is none).
fn outputs(
    pretty: Option<&str>,
    json: &Result<Option<serde_json::Value>, String>,
    cbt_line: Option<&str>,
    cbt: &Result<Vec<String>, Vec<&'static str>>,
) -> Html {
    html! {
        <>
            <h3 class="section-title">{ "RowFilter (proto3 JSON)" }</h3>
            {
                match (pretty, json) {
                    (Some(text), _) => html! { <pre class="fb-json mono">{ text.to_string() }</pre> },
                    (None, Err(message)) => html! { <p class="field-error" role="alert">{ message.clone() }</p> },
                    (None, Ok(_)) => html! {},
                }
            }
            <h3 class="section-title">{ "cbt" }</h3>
            {
                match (cbt_line, cbt) {
                    (Some(line), _) => html! { <pre class="fb-cbt mono">{ line.to_string() }</pre> },
                    (None, Err(missing)) => html! { <p class="hint">{ format!("cbt read has no option for: {}.", missing.join(", ")) }</p> },
                    (None, Ok(_)) => html! { <p class="hint">{ "Fix the filter first." }</p> },
                }
            }
        </>
    }
}
