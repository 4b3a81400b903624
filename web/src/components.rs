//! The app's components: one file per panel, small and pure (props in,
//! HTML out, callbacks out). [`Workspace`] reads the app context, hands
//! plain data down and turns callbacks into actions; the one other reader
//! is the key designer's `DesignSection` (key_designer.rs), which takes
//! the context for the design advisor. A long component is split into
//! sub-components (where props that stay equal let Yew skip a re-render)
//! or helper functions named for the part they draw.
//!
//! The simulation half adds its panels as files of their own (the live
//! tablet map, the Key Visualizer heatmap, the simulation controls, the
//! row-key designer) and places them in [`Workspace`].

mod app_header;
mod autosave_bar;
mod change_feed;
mod console_panel;
mod export_dialog;
mod filter_builder;
mod findings;
mod gc_rule_editor;
mod import_dialog;
mod kept_work;
mod key_designer;
mod key_view;
mod keyviz_ab;
mod keyviz_live;
mod keyviz_panel;
mod lesson_dock;
mod lessons_panel;
mod maximize;
mod recovered_bar;
mod rich_text;
mod rows_panel;
mod scenario_data_bar;
mod schema_panel;
mod sim_controls;
mod sim_tablets;
mod splitter;
mod tablets_panel;
mod toast;
mod unsaved_bar;
mod views_list;
mod workspace;

pub use workspace::Workspace;
