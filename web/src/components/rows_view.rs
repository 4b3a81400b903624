//! The rows panel: one table's rows as the core returned them, in byte
//! order of their keys, each cell as `family:qualifier @ time = value`.

use yew::prelude::*;

use crate::view_model::{KeySegment, RowLine, RowsPage};

/// Props of [`RowsView`].
#[derive(Properties, PartialEq)]
pub struct RowsViewProps {
    /// The selected table, if any.
    pub table: Option<String>,
    /// The last read of that table, or the core's error.
    pub rows: Option<Result<RowsPage, String>>,
}

/// Shows the rows of the selected table.
#[component(RowsView)]
pub fn rows_view(props: &RowsViewProps) -> Html {
    let title = match &props.table {
        Some(table) => html! { <>{ "Rows of " }<span class="mono">{ table }</span></> },
        None => html! { "Rows" },
    };
    let body = match &props.rows {
        None => html! { <p class="empty">{ "Select a table to read its rows." }</p> },
        Some(Err(message)) => {
            html! { <p class="error" role="status">{ format!("ReadRows failed: {message}") }</p> }
        }
        Some(Ok(page)) if page.rows.is_empty() => {
            html! { <p class="empty">{ "The table has no rows." }</p> }
        }
        Some(Ok(page)) => html! {
            <>
                <ol class="rows" id="rows">{ for page.rows.iter().map(row_html) }</ol>
                <p class="read-stats" id="read-stats">
                    { read_stats_text(page) }
                </p>
            </>
        },
    };
    html! {
        <section class="panel rows-panel" aria-labelledby="rows-title">
            <h2 id="rows-title" class="panel-title">{ title }</h2>
            <p class="panel-note">{ "Sorted by row key bytes, as Bigtable stores them. Versions newest first." }</p>
            { body }
        </section>
    }
}

fn read_stats_text(page: &RowsPage) -> String {
    let more = if page.truncated {
        format!(" (showing the first {})", page.rows.len())
    } else {
        String::new()
    };
    format!(
        "ReadRows returned {} rows, {} cells, {} bytes{more}",
        page.rows_returned, page.cells_returned, page.bytes_returned
    )
}

fn row_html(row: &RowLine) -> Html {
    html! {
        <li class="row" key={row.key.clone()}>
            <div class="row-key mono" data-key={row.key.clone()}>
                { for row.segments.iter().map(|segment| match segment {
                    KeySegment::Part(i, text) => html! { <span class={format!("seg seg-{}", i % 4)}>{ text }</span> },
                    KeySegment::Separator => html! { <span class="sep">{ "#" }</span> },
                }) }
            </div>
            <ul class="cells">
                { for row.cells.iter().map(|cell| html! {
                    <li class={classes!("cell", "mono", cell.gc_eligible.then_some("gc-eligible"))}>
                        <span class="column">{ &cell.column }</span>
                        <span class="at">{ " @ " }</span>
                        <time class="ts" title={format!("{} µs since the Unix epoch", cell.timestamp_micros)}>{ &cell.time }</time>
                        <span class="eq">{ " = " }</span>
                        <span class="value">{ &cell.value }</span>
                        if cell.gc_eligible {
                            <span class="badge" title="The family's GC rule allows deleting this version; Bigtable deletes it at the next compaction.">
                                { "awaiting GC" }
                            </span>
                        }
                    </li>
                }) }
            </ul>
        </li>
    }
}
