//! The tables panel: every table with its column families and GC rules.

use yew::prelude::*;

use crate::view_model::{TableSummary, format_bytes};

/// Props of [`TableList`].
#[derive(Properties, PartialEq)]
pub struct TableListProps {
    /// The instance's tables, sorted by id.
    pub tables: Vec<TableSummary>,
    /// The table whose rows are shown.
    pub selected: Option<String>,
    /// Called with a table id when a person picks it.
    pub on_select: Callback<String>,
}

/// Lists tables; clicking one shows its rows.
#[component(TableList)]
pub fn table_list(props: &TableListProps) -> Html {
    let body = if props.tables.is_empty() {
        html! { <p class="empty">{ "No tables yet." }</p> }
    } else {
        props
            .tables
            .iter()
            .map(|table| {
                let selected = props.selected.as_deref() == Some(table.name.as_str());
                let onclick = {
                    let on_select = props.on_select.clone();
                    let name = table.name.clone();
                    Callback::from(move |_: MouseEvent| on_select.emit(name.clone()))
                };
                html! {
                    <li class={classes!("table", selected.then_some("selected"))} key={table.name.clone()}>
                        <button type="button" class="table-name mono" aria-pressed={selected.to_string()} {onclick}>
                            { &table.name }
                        </button>
                        <p class="table-meta">
                            { format!(
                                "{} {} · {} stored",
                                table.tablet_count,
                                if table.tablet_count == 1 { "tablet" } else { "tablets" },
                                format_bytes(table.bytes)
                            ) }
                        </p>
                        <ul class="families">
                            { for table.families.iter().map(|family| html! {
                                <li class="family" key={family.name.clone()}>
                                    <span class="mono family-name">{ &family.name }</span>
                                    <span class="gc-rule" title="Garbage-collection rule">
                                        { format!("GC: {}", family.gc_rule) }
                                    </span>
                                </li>
                            }) }
                        </ul>
                    </li>
                }
            })
            .collect::<Html>()
    };
    html! {
        <section class="panel tables-panel" aria-labelledby="tables-title">
            <h2 id="tables-title" class="panel-title">{ "Tables" }</h2>
            if props.tables.is_empty() { { body } } else { <ul class="table-list" id="table-list">{ body }</ul> }
        </section>
    }
}
