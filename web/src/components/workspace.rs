//! The one screen: header, tables, rows and activity, laid out in a grid.

use yew::prelude::*;

use crate::components::{ActivityLog, AppHeader, RowsView, TableList};
use crate::state::{Action, AppContext};
use crate::view_model;

/// Reads the app context and lays out the panels.
#[component(Workspace)]
pub fn workspace() -> Html {
    let app =
        use_context::<AppContext>().expect("Workspace is rendered inside App's ContextProvider");
    let (instance_name, tables) = {
        let instance = app.instance();
        (instance.name(), view_model::tables(&instance))
    };
    let on_select = {
        let app = app.clone();
        Callback::from(move |table: String| app.dispatch(Action::SelectTable(table)))
    };

    html! {
        <div class="shell">
            <AppHeader instance_name={instance_name} table_count={tables.len()} />
            <main class="workspace">
                <TableList
                    tables={tables}
                    selected={app.ui.selected_table.clone()}
                    on_select={on_select}
                />
                <RowsView table={app.ui.selected_table.clone()} rows={app.ui.rows.clone()} />
                <ActivityLog entries={app.ui.activity.clone()} />
            </main>
        </div>
    }
}
