//! The Key Visualizer panel. The heatmap (reads and writes over time and
//! key space, with its colour scale) arrives with the simulation; until
//! then the panel says so plainly and points to what already shows the key
//! space.

use yew::prelude::*;

/// The panel, for now a note.
#[component(KeyVizPanel)]
pub fn keyviz_panel() -> Html {
    html! {
        <section class="panel keyviz-panel" aria-label="Key Visualizer" style="grid-area: keyviz">
            <header class="panel-head">
                <h2 class="panel-title">{ "Key Visualizer" }</h2>
            </header>
            <div class="panel-body">
                <p class="placeholder">
                    { "The Key Visualizer arrives with the simulation: a heatmap of reads and writes over time and key space, where a row-key design that makes a hotspot lights up." }
                </p>
                <p class="hint">
                    { "Until then, the Tablets bar shows how the key space is split, and every console read reports the tablets it visited." }
                </p>
            </div>
        </section>
    }
}
