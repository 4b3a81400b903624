//! The strip that says autosave is not keeping everything: the instance is
//! past the size whose rows autosave stores, and it holds work made by
//! hand that a reload (tables from their definitions, data loads and the
//! log of writes made after them run again) would not bring back. It
//! offers *Export snapshot*, which keeps it all.

use yew::prelude::*;

use crate::share::SAVE_SNAPSHOT_BYTES;
use crate::state::hand_log::MAX_LOG_BYTES;

/// Props of [`UnsavedBar`].
#[derive(Properties, PartialEq)]
pub struct UnsavedBarProps {
    /// How many data loads a reload would replay.
    pub loads: usize,
    /// Download the whole instance as a snapshot file.
    pub on_export: Callback<()>,
}

/// What a reload would bring back and what not, for `loads` data loads.
pub fn unsaved_text(loads: usize) -> String {
    let limit = tabletop_core::human_bytes(SAVE_SNAPSHOT_BYTES as f64);
    let rebuilt = match loads {
        0 => "brings the tables back empty, from their definitions".to_string(),
        1 => {
            "rebuilds the tables from their definitions and runs the 1 data load again".to_string()
        }
        n => {
            format!("rebuilds the tables from their definitions and runs the {n} data loads again")
        }
    };
    let deleted = if loads == 0 {
        ""
    } else {
        ", and rows deleted from loaded data would come back"
    };
    let log = tabletop_core::human_bytes(MAX_LOG_BYTES as f64);
    format!(
        "It keeps rows only up to {limit}: past that, a reload {rebuilt}, then the writes made by \
         hand since. This playground also holds changes a reload cannot redo (a deleted table or \
         family, an import, a SQL write, a design's rows, writes made before a load, or over {log} \
         of writes): they would be lost{deleted}. Export snapshot keeps everything."
    )
}

/// Shown while the instance holds work that autosave leaves out.
#[component(UnsavedBar)]
pub fn unsaved_bar(props: &UnsavedBarProps) -> Html {
    let on_export = {
        let cb = props.on_export.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    html! {
        <section class="autosave-bar unsaved-bar" role="region" aria-label="Work autosave does not keep">
            <p>
                <strong>{ "Autosave is not keeping all of your work." }</strong>
                { " " }{ unsaved_text(props.loads) }
            </p>
            <button type="button" class="button small primary" onclick={on_export}>{ "Export snapshot" }</button>
        </section>
    }
}
