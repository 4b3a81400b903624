//! The header: product name, what it is, and the core's status.

use yew::prelude::*;

/// Props of [`AppHeader`].
#[derive(Properties, PartialEq)]
pub struct AppHeaderProps {
    /// The instance's resource name (`projects/p/instances/i`).
    pub instance_name: String,
    /// How many tables the instance holds.
    pub table_count: usize,
}

/// The top bar.
#[component(AppHeader)]
pub fn app_header(props: &AppHeaderProps) -> Html {
    let tables = match props.table_count {
        1 => "1 table".to_string(),
        n => format!("{n} tables"),
    };
    html! {
        <header class="app-header">
            <h1 class="brand">{ "Tabletop" }</h1>
            <p class="tagline">{ "Bigtable schema-design playground" }</p>
            <p class="core-status" id="core-status">
                <span class="dot" aria-hidden="true"></span>
                { "Core running in your browser (WebAssembly) · " }
                <span class="mono" title="Instance">{ &props.instance_name }</span>
                { format!(" · {tables}") }
            </p>
        </header>
    }
}
