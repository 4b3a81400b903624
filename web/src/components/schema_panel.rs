//! The Schema panel: the instance's tables (create, select, delete) and
//! the selected table's column families with their GC rules and value
//! types (add, change the rule, drop). Every field is checked as you type
//! with the core's own validation, and the final check is a dry run on a
//! scratch instance, so the messages are the core's. The edits themselves
//! run as Bigtable admin requests through the console's JSON tab.
//!
//! The row-key designer joins this panel with the simulation: whatever the
//! `children` prop holds is drawn below the families.

use std::rc::Rc;

use tabletop_core::{ColumnFamily, CreateTableRequest, FamilyChange, ValueType, human_bytes};
use yew::prelude::*;

use super::gc_rule_editor::GcRuleEditor;
use super::key_view::key_html;
use crate::view_model::count_noun;
use crate::view_model::schema::{
    FamilyDraft, FamilySummary, GcDraft, TableSummary, VALUE_TYPES, check_family_name,
    check_table_id, dry_run_modify, parse_splits, table_request, value_type_text,
};

/// Props of [`SchemaPanel`].
#[derive(Properties, PartialEq)]
pub struct SchemaPanelProps {
    /// The tables, sorted by id.
    pub tables: Rc<Vec<TableSummary>>,
    /// The selected table.
    pub selected: Option<String>,
    /// Select a table.
    pub on_select: Callback<String>,
    /// Create a table.
    pub on_create: Callback<CreateTableRequest>,
    /// Delete a table.
    pub on_delete: Callback<String>,
    /// Change the families of a table.
    pub on_modify: Callback<(String, Vec<FamilyChange>)>,
    /// More sections (the row-key designer arrives here).
    #[prop_or_default]
    pub children: Html,
    /// The header's maximize button (empty where the panel cannot take
    /// the workspace).
    #[prop_or_default]
    pub maximize: Html,
}

fn input_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<web_sys::HtmlInputElement>()
        .value()
}

fn textarea_value(e: &InputEvent) -> String {
    e.target_unchecked_into::<web_sys::HtmlTextAreaElement>()
        .value()
}

fn select_value(e: &Event) -> String {
    e.target_unchecked_into::<web_sys::HtmlSelectElement>()
        .value()
}

/// A validation message under a field: the problem, in red, announced.
fn field_message(result: &Result<(), String>, id: &str) -> Html {
    match result {
        Ok(()) => html! {},
        Err(message) => {
            html! { <p class="field-error" id={id.to_string()} role="alert">{ message.clone() }</p> }
        }
    }
}

fn value_type_select(value: ValueType, on_change: Callback<ValueType>, label: &str) -> Html {
    let onchange = Callback::from(move |e: Event| {
        let v = select_value(&e);
        let vt = VALUE_TYPES
            .iter()
            .find(|(_, name)| *name == v)
            .map_or(ValueType::Bytes, |(vt, _)| *vt);
        on_change.emit(vt);
    });
    html! {
        <select {onchange} aria-label={label.to_string()} title="Value type: plain bytes, or an aggregate over int64 inputs">
            { for VALUE_TYPES.iter().map(|(vt, name)| html! {
                <option value={*name} selected={*vt == value}>{ value_type_text(*vt) }</option>
            }) }
        </select>
    }
}

fn families_text(n: usize) -> String {
    match n {
        1 => "1 family".into(),
        n => format!("{n} families"),
    }
}

/// The panel.
#[component(SchemaPanel)]
pub fn schema_panel(props: &SchemaPanelProps) -> Html {
    let creating = use_state(|| false);
    let toggle = {
        let creating = creating.clone();
        Callback::from(move |_: MouseEvent| creating.set(!*creating))
    };
    let on_created = {
        let creating = creating.clone();
        let on_create = props.on_create.clone();
        Callback::from(move |request: CreateTableRequest| {
            creating.set(false);
            on_create.emit(request);
        })
    };
    let selected = props
        .selected
        .as_ref()
        .and_then(|s| props.tables.iter().find(|t| &t.name == s));
    html! {
        <section class="panel schema-panel" aria-label="Schema" style="grid-area: schema">
            <header class="panel-head">
                <h2 class="panel-title">{ "Schema" }</h2>
                <button type="button" class="button small" onclick={toggle} aria-expanded={creating.to_string()}>
                    { if *creating { "Cancel" } else { "New table" } }
                </button>
                { props.maximize.clone() }
            </header>
            <div class="panel-body">
                if *creating {
                    <NewTableForm tables={Rc::clone(&props.tables)} on_create={on_created} />
                }
                <h3 class="section-title">{ "Tables" }</h3>
                if props.tables.is_empty() {
                    <p class="empty">{ "No tables yet. Create one, load sample data from the Rows panel, or type " }<code>{ "createtable" }</code>{ " in the console." }</p>
                } else {
                    <ul class="table-list" id="table-list">
                        { for props.tables.iter().map(|table| {
                            let is_selected = props.selected.as_deref() == Some(table.name.as_str());
                            let onclick = {
                                let on_select = props.on_select.clone();
                                let name = table.name.clone();
                                Callback::from(move |_: MouseEvent| on_select.emit(name.clone()))
                            };
                            html! {
                                <li class={classes!("table-item", is_selected.then_some("selected"))} key={table.name.clone()}>
                                    <button type="button" class="table-name mono" aria-pressed={is_selected.to_string()} {onclick}>{ &table.name }</button>
                                    <span class="table-meta">{ format!("{} · {} · {}", families_text(table.families.len()), count_noun(table.tablet_count as u64, "tablet"), human_bytes(table.bytes as f64)) }</span>
                                </li>
                            }
                        }) }
                    </ul>
                }
                if let Some(table) = selected {
                    <TableDetail
                        key={table.name.clone()}
                        table={table.clone()}
                        on_delete={props.on_delete.clone()}
                        on_modify={props.on_modify.clone()}
                    />
                }
                <super::key_designer::DesignSection />
                { props.children.clone() }
            </div>
        </section>
    }
}

/// Props of [`NewTableForm`].
#[derive(Properties, PartialEq)]
struct NewTableFormProps {
    tables: Rc<Vec<TableSummary>>,
    on_create: Callback<CreateTableRequest>,
}

/// The new-table form: id, families, initial splits.
#[component(NewTableForm)]
fn new_table_form(props: &NewTableFormProps) -> Html {
    let id = use_state(String::new);
    let families = use_state(Vec::<FamilyDraft>::new);
    let splits = use_state(String::new);
    let touched = use_state(|| false);

    let id_check = check_table_id(&id, &props.tables);
    let splits_check = parse_splits(&splits).map(|_| ());
    let result = table_request(&id, &families, &splits, &props.tables);

    let on_id = {
        let id = id.clone();
        let touched = touched.clone();
        Callback::from(move |e: InputEvent| {
            id.set(input_value(&e));
            touched.set(true);
        })
    };
    let on_splits = {
        let splits = splits.clone();
        Callback::from(move |e: InputEvent| splits.set(textarea_value(&e)))
    };
    let on_add_family = {
        let families = families.clone();
        Callback::from(move |_: MouseEvent| {
            let mut list = (*families).clone();
            list.push(FamilyDraft {
                name: String::new(),
                gc: GcDraft::MaxVersions("1".into()),
                value_type: ValueType::Bytes,
            });
            families.set(list);
        })
    };
    let onsubmit = {
        let result = result.clone();
        let on_create = props.on_create.clone();
        let touched = touched.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            touched.set(true);
            if let Ok(request) = &result {
                on_create.emit(request.clone());
            }
        })
    };
    let family_rows = families
        .iter()
        .enumerate()
        .map(|(i, draft)| family_draft_row(&families, i, draft));
    let show_id_error = *touched || !id.is_empty();
    html! {
        <form class="new-table" {onsubmit} aria-label="New table">
            <label class="field">
                <span>{ "Table id" }</span>
                <input class="mono" type="text" value={(*id).clone()} oninput={on_id} placeholder="mobile-time-series"
                    aria-invalid={(show_id_error && id_check.is_err()).to_string()} aria-describedby="new-table-id-error" autocomplete="off" spellcheck="false" />
            </label>
            if show_id_error { { field_message(&id_check, "new-table-id-error") } }
            <fieldset class="families">
                <legend>{ "Column families" }</legend>
                if families.is_empty() {
                    <p class="hint">{ "None yet; a table can start without any." }</p>
                }
                <ol>{ for family_rows }</ol>
                <button type="button" class="link-button" onclick={on_add_family}>{ "+ add a column family" }</button>
            </fieldset>
            <label class="field">
                <span>{ "Initial splits" }<span class="hint">{ " (row keys, one per line or comma-separated; \\xNN for bytes)" }</span></span>
                <textarea class="mono" rows="2" value={(*splits).clone()} oninput={on_splits} placeholder="phone, tablet" aria-describedby="new-table-splits-error" />
            </label>
            { field_message(&splits_check, "new-table-splits-error") }
            if let (Err(message), true, Ok(()), Ok(())) = (&result, show_id_error, &id_check, &splits_check) {
                if families.iter().all(|f| f.to_family().is_ok()) {
                    <p class="field-error" role="alert">{ message.clone() }</p>
                }
            }
            <div class="form-actions">
                <button type="submit" class="button primary" disabled={result.is_err()}>{ "Create table" }</button>
            </div>
        </form>
    }
}

/// One family of the new-table form: its name, value type and GC rule,
/// each checked, and remove; `families` is the form's list, `i` its place
/// there.
fn family_draft_row(
    families: &UseStateHandle<Vec<FamilyDraft>>,
    i: usize,
    draft: &FamilyDraft,
) -> Html {
    let update = {
        let families = families.clone();
        move |f: Box<dyn Fn(&mut FamilyDraft)>| {
            let mut list = (*families).clone();
            f(&mut list[i]);
            families.set(list);
        }
    };
    let on_name = {
        let update = update.clone();
        Callback::from(move |e: InputEvent| {
            let v = input_value(&e);
            update(Box::new(move |d| d.name.clone_from(&v)));
        })
    };
    let on_type = {
        let update = update.clone();
        Callback::from(move |vt: ValueType| update(Box::new(move |d| d.value_type = vt)))
    };
    let on_gc = {
        let update = update.clone();
        Callback::from(move |gc: GcDraft| update(Box::new(move |d| d.gc = gc.clone())))
    };
    let on_remove = {
        let families = families.clone();
        Callback::from(move |_: MouseEvent| {
            let mut list = (*families).clone();
            list.remove(i);
            families.set(list);
        })
    };
    let taken: Vec<&str> = families
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .map(|(_, f)| f.name.as_str())
        .collect();
    let name_check = check_family_name(&draft.name, &taken);
    let gc_check = draft.gc.to_rule().map(|_| ());
    let msg_id = format!("new-family-{i}-error");
    html! {
        <li class="family-draft">
            <div class="row-fields">
                <input class="mono" type="text" placeholder="family name" value={draft.name.clone()} oninput={on_name}
                    aria-label={format!("Family {} name", i + 1)} aria-invalid={name_check.is_err().to_string()} aria-describedby={msg_id.clone()} />
                { value_type_select(draft.value_type, on_type, &format!("Family {} value type", i + 1)) }
                <button type="button" class="link-button" onclick={on_remove} aria-label={format!("Remove family {}", i + 1)}>{ "remove" }</button>
            </div>
            { field_message(&name_check, &msg_id) }
            <GcRuleEditor draft={draft.gc.clone()} on_change={on_gc} id={format!("new-family-{i}-gc")} />
            { field_message(&gc_check, &format!("new-family-{i}-gc-error")) }
        </li>
    }
}

/// Props of [`TableDetail`].
#[derive(Properties, PartialEq)]
struct TableDetailProps {
    table: TableSummary,
    on_delete: Callback<String>,
    on_modify: Callback<(String, Vec<FamilyChange>)>,
}

/// The selected table: its families and what can be done to them.
#[component(TableDetail)]
fn table_detail(props: &TableDetailProps) -> Html {
    let table = &props.table;
    // The family whose GC rule is being edited, with the draft; the
    // family asked to be dropped.
    let editing = use_state(|| None::<(String, GcDraft)>);
    let dropping = use_state(|| None::<String>);
    let new_family = NewFamily {
        name: use_state(String::new),
        value_type: use_state(|| ValueType::Bytes),
        gc: use_state(|| GcDraft::MaxVersions("1".into())),
    };
    let confirm_delete = use_state(|| false);
    let family_items = table
        .families
        .iter()
        .map(|family| family_item(&table.name, family, &editing, &dropping, &props.on_modify));
    html! {
        <div class="table-detail">
            <h3 class="section-title">
                { "Column families of " }<span class="mono">{ &table.name }</span>
            </h3>
            if table.families.is_empty() {
                <p class="empty">{ "No column families: add one below before writing cells." }</p>
            } else {
                <ul class="family-list">{ for family_items }</ul>
            }
            { add_family_form(table, &props.on_modify, &new_family) }
            if !table.initial_splits.is_empty() {
                <p class="splits">
                    { "Initial splits: " }
                    { for table.initial_splits.iter().map(|k| html! { <span class="mono split-key">{ key_html(k) }</span> }) }
                </p>
            }
            { delete_table(&table.name, &props.on_delete, &confirm_delete) }
        </div>
    }
}

/// One family of the selected table: its name, type and GC rule, with
/// edit GC (the rule's editor opens under it) and drop (asked first).
fn family_item(
    table: &str,
    family: &FamilySummary,
    editing: &UseStateHandle<Option<(String, GcDraft)>>,
    dropping: &UseStateHandle<Option<String>>,
    on_modify: &Callback<(String, Vec<FamilyChange>)>,
) -> Html {
    let name = family.name.clone();
    let is_editing = editing.as_ref().is_some_and(|(n, _)| *n == name);
    let is_dropping = dropping.as_deref() == Some(name.as_str());
    let on_edit = {
        let editing = editing.clone();
        let name = name.clone();
        let rule = family.gc_rule.clone();
        Callback::from(move |_: MouseEvent| {
            editing.set(Some((name.clone(), GcDraft::from_rule(rule.as_ref()))));
        })
    };
    let on_drop = {
        let dropping = dropping.clone();
        let name = name.clone();
        Callback::from(move |_: MouseEvent| dropping.set(Some(name.clone())))
    };
    let confirm_drop = {
        let dropping = dropping.clone();
        let on_modify = on_modify.clone();
        let table = table.to_string();
        let name = name.clone();
        Callback::from(move |_: MouseEvent| {
            dropping.set(None);
            on_modify.emit((table.clone(), vec![FamilyChange::Drop(name.clone())]));
        })
    };
    let cancel_drop = {
        let dropping = dropping.clone();
        Callback::from(move |_: MouseEvent| dropping.set(None))
    };
    let editor = if is_editing {
        gc_rule_edit(table, family, editing, on_modify)
    } else {
        html! {}
    };
    html! {
        <li class="family" key={name.clone()}>
            <div class="family-line">
                <span class="mono family-name">{ &family.name }</span>
                <span class="family-type">{ value_type_text(family.value_type) }</span>
                <span class="gc-rule mono" title="Garbage-collection rule, as cbt ls prints it">{ format!("GC: {}", family.gc_text) }</span>
                <span class="family-actions">
                    <button type="button" class="link-button" onclick={on_edit} aria-label={format!("edit GC rule of family {name}")}>{ "edit GC" }</button>
                    <button type="button" class="link-button danger" onclick={on_drop} aria-label={format!("Drop family {name}")}>{ "drop" }</button>
                </span>
            </div>
            if is_dropping {
                <div class="confirm" role="alertdialog" aria-label={format!("Drop family {name}?")}>
                    { format!("Drop family {name} and every cell in it?") }
                    <button type="button" class="button danger small" onclick={confirm_drop}>{ "Drop" }</button>
                    <button type="button" class="button small" onclick={cancel_drop}>{ "Keep" }</button>
                </div>
            }
            { editor }
        </li>
    }
}

/// The editor of a family's GC rule, with Save rule and Cancel.
fn gc_rule_edit(
    table: &str,
    family: &FamilySummary,
    editing: &UseStateHandle<Option<(String, GcDraft)>>,
    on_modify: &Callback<(String, Vec<FamilyChange>)>,
) -> Html {
    let name = family.name.clone();
    let draft = editing.as_ref().map(|(_, d)| d.clone()).unwrap_or_default();
    let check = draft.to_rule();
    let on_change = {
        let editing = editing.clone();
        let name = name.clone();
        Callback::from(move |d: GcDraft| editing.set(Some((name.clone(), d))))
    };
    let on_save = {
        let editing = editing.clone();
        let on_modify = on_modify.clone();
        let table = table.to_string();
        let name = name.clone();
        let value_type = family.value_type;
        let check = check.clone();
        Callback::from(move |_: MouseEvent| {
            if let Ok(gc_rule) = &check {
                let family = ColumnFamily {
                    gc_rule: gc_rule.clone(),
                    value_type,
                };
                on_modify.emit((
                    table.clone(),
                    vec![FamilyChange::Update(name.clone(), family)],
                ));
                editing.set(None);
            }
        })
    };
    let on_cancel = {
        let editing = editing.clone();
        Callback::from(move |_: MouseEvent| editing.set(None))
    };
    html! {
        <div class="family-edit">
            <GcRuleEditor {draft} {on_change} id={format!("edit-{name}")} />
            { field_message(&check.as_ref().map(|_| ()).map_err(Clone::clone), &format!("edit-{name}-error")) }
            <div class="form-actions">
                <button type="button" class="button primary small" onclick={on_save} disabled={check.is_err()}>{ "Save rule" }</button>
                <button type="button" class="button small" onclick={on_cancel}>{ "Cancel" }</button>
            </div>
        </div>
    }
}

/// The add-family form's fields, kept by [`TableDetail`].
struct NewFamily {
    name: UseStateHandle<String>,
    value_type: UseStateHandle<ValueType>,
    gc: UseStateHandle<GcDraft>,
}

/// The form that adds a family to the selected table, checked as you type
/// (a dry run of the change).
fn add_family_form(
    table: &TableSummary,
    on_modify: &Callback<(String, Vec<FamilyChange>)>,
    fields: &NewFamily,
) -> Html {
    let (new_name, new_type, new_gc) = (
        fields.name.clone(),
        fields.value_type.clone(),
        fields.gc.clone(),
    );

    let taken: Vec<&str> = table.families.iter().map(|f| f.name.as_str()).collect();
    let name_check = check_family_name(&new_name, &taken).map_err(|e| {
        if e.ends_with("is already in the list") {
            format!(
                "column family \"{}\" already exists in table \"{}\"",
                *new_name, table.name
            )
        } else {
            e
        }
    });
    let new_family = (*new_gc).to_rule().map(|gc_rule| ColumnFamily {
        gc_rule,
        value_type: *new_type,
    });
    let add_check: Result<Vec<FamilyChange>, String> = name_check.clone().and_then(|()| {
        let family = new_family.clone()?;
        let changes = vec![FamilyChange::Create((*new_name).clone(), family)];
        dry_run_modify(table, &changes)?;
        Ok(changes)
    });

    let on_add = {
        let on_modify = on_modify.clone();
        let name = table.name.clone();
        let add_check = add_check.clone();
        let new_name = new_name.clone();
        let new_type = new_type.clone();
        let new_gc = new_gc.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Ok(changes) = &add_check {
                on_modify.emit((name.clone(), changes.clone()));
                new_name.set(String::new());
                new_type.set(ValueType::Bytes);
                new_gc.set(GcDraft::MaxVersions("1".into()));
            }
        })
    };
    let on_new_name = {
        let new_name = new_name.clone();
        Callback::from(move |e: InputEvent| new_name.set(input_value(&e)))
    };
    let on_new_type = {
        let new_type = new_type.clone();
        Callback::from(move |vt: ValueType| new_type.set(vt))
    };
    let on_new_gc = {
        let new_gc = new_gc.clone();
        Callback::from(move |gc: GcDraft| new_gc.set(gc))
    };
    let show_name_error = !new_name.is_empty();
    html! {
        <form class="add-family" onsubmit={on_add} aria-label="Add a column family">
            <div class="row-fields">
                <input class="mono" type="text" placeholder="new family" value={(*new_name).clone()} oninput={on_new_name}
                    aria-label="New family name" aria-invalid={(show_name_error && name_check.is_err()).to_string()} aria-describedby="add-family-error" autocomplete="off" spellcheck="false" />
                { value_type_select(*new_type, on_new_type, "New family value type") }
            </div>
            <GcRuleEditor draft={(*new_gc).clone()} on_change={on_new_gc} id="add-family-gc" />
            if show_name_error {
                { field_message(&add_check.as_ref().map(|_| ()).map_err(Clone::clone), "add-family-error") }
            } else if let Err(message) = &new_family {
                <p class="field-error" id="add-family-error" role="alert">{ message.clone() }</p>
            }
            <div class="form-actions">
                <button type="submit" class="button small" disabled={add_check.is_err()}>{ "Add family" }</button>
            </div>
        </form>
    }
}

/// Delete table…, asked first (`confirm_delete`: the question is open).
fn delete_table(
    name: &str,
    on_delete: &Callback<String>,
    confirm_delete: &UseStateHandle<bool>,
) -> Html {
    let on_delete_ask = {
        let confirm_delete = confirm_delete.clone();
        Callback::from(move |_: MouseEvent| confirm_delete.set(true))
    };
    let on_delete_no = {
        let confirm_delete = confirm_delete.clone();
        Callback::from(move |_: MouseEvent| confirm_delete.set(false))
    };
    let on_delete_yes = {
        let on_delete = on_delete.clone();
        let name = name.to_string();
        Callback::from(move |_: MouseEvent| on_delete.emit(name.clone()))
    };
    html! {
        <div class="danger-zone">
            if **confirm_delete {
                <div class="confirm" role="alertdialog" aria-label={format!("Delete table {name}?")}>
                    { format!("Delete table {name} and all its rows?") }
                    <button type="button" class="button danger small" onclick={on_delete_yes}>{ "Delete" }</button>
                    <button type="button" class="button small" onclick={on_delete_no}>{ "Keep" }</button>
                </div>
            } else {
                <button type="button" class="link-button danger" onclick={on_delete_ask}>{ format!("Delete table {name}…") }</button>
            }
        </div>
    }
}
