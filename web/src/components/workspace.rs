//! The one screen: the header, then the panels in a grid with drag handles
//! between them. Schema on the left; the Tablets bar and the Rows in the
//! middle; the Key Visualizer on the right; the Console along the bottom.
//! An embed (`?embed=1&panels=rows,console`) lays out only the panels it
//! names.

use std::rc::Rc;

use yew::prelude::*;

use super::app_header::AppHeader;
use super::autosave_bar::AutosaveBar;
use super::console_panel::ConsolePanel;
use super::export_dialog::ExportDialog;
use super::import_dialog::ImportDialog;
use super::kept_work::ConfirmImport;
use super::keyviz_panel::KeyVizPanel;
use super::lessons_panel::LeftColumn;
use super::maximize::MaximizeButton;
use super::recovered_bar::RecoveredBar;
use super::rows_panel::RowsPanel;
use super::scenario_data_bar::ScenarioDataBar;
use super::schema_panel::SchemaPanel;
use super::sim_tablets::{SimTabletsPanel, TabletsSwitch};
use super::splitter::SplitHandle;
use super::tablets_panel::TabletsPanel;
use super::unsaved_bar::UnsavedBar;
use super::views_list::ViewsList;
use crate::browser;
use crate::share;
use crate::state::console::Tab;
use crate::state::generator::GeneratorSpec;
use crate::state::layout::{Layout, PanelId, Panels, Splitter};
use crate::state::{Action, AppContext, Clock, Notice, VIEWS_MEASURE};
use crate::view_model::instance_views::ViewLists;
use tabletop_core::{CreateTableRequest, FamilyChange};

/// Every callback the panels get, made once so that props stay equal
/// between renders (a new callback would repaint every panel).
#[derive(Clone, PartialEq)]
pub struct Callbacks {
    pub select_table: Callback<String>,
    pub create_table: Callback<CreateTableRequest>,
    pub delete_table: Callback<String>,
    pub modify_families: Callback<(String, Vec<FamilyChange>)>,
    pub viewport: Callback<crate::state::rows::Viewport>,
    pub scroll: Callback<u64>,
    pub go_to_key: Callback<Vec<u8>>,
    pub toggle_row: Callback<Vec<u8>>,
    pub compact: Callback<()>,
    pub ghost_done: Callback<u64>,
    pub generator: Callback<GeneratorSpec>,
    pub start_generator: Callback<()>,
    pub cancel_job: Callback<()>,
    pub console_tab: Callback<Tab>,
    pub console_input: Callback<String>,
    pub console_run: Callback<()>,
    pub console_history: Callback<bool>,
    pub console_clear: Callback<()>,
    pub console_insert: Callback<(Tab, String)>,
    pub change_stream: Callback<(String, Option<u32>)>,
    pub emulator_parity: Callback<bool>,
    pub resize: Callback<(Splitter, i64)>,
    pub reset_layout: Callback<()>,
    pub maximize: Callback<Option<PanelId>>,
    pub import: Callback<(String, Rc<Vec<u8>>)>,
    pub confirm_import: Callback<bool>,
    pub export: Callback<()>,
    pub make_link: Callback<(), String>,
    pub notify: Callback<Notice>,
    pub dismiss: Callback<()>,
    /// A message's time is up.
    pub expire: Callback<Notice>,
    /// This tab takes the autosave back from another tab.
    pub take_autosave: Callback<()>,
    /// Open a closed tab's recovered work.
    pub open_recovered: Callback<Box<share::SharedState>>,
    pub sim: Callback<crate::state::sim::SimAction>,
    pub live: Callback<crate::state::live::LiveAction>,
    pub scenario_data: Callback<crate::state::scenario_data::ScenarioDataAction>,
    pub ab: Callback<crate::state::ab::AbAction>,
    pub tools: Callback<crate::state::tools::ToolsAction>,
    pub open_export: Callback<()>,
    pub open_import: Callback<()>,
    pub learn: Callback<crate::state::learn::LearnAction>,
    pub undo_replace: Callback<()>,
    pub forget_replaced: Callback<()>,
}

fn callbacks(app: &AppContext) -> Callbacks {
    let d = app.dispatcher();
    let to = |f: fn(()) -> Action| {
        let d = d.clone();
        Callback::from(move |()| d.dispatch(f(())))
    };
    let export_app = app.clone();
    let link_app = app.clone();
    let notify = d.to_callback().reform(Action::Notify);
    let export_notify = notify.clone();
    Callbacks {
        select_table: d.to_callback().reform(Action::SelectTable),
        create_table: d.to_callback().reform(Action::CreateTable),
        delete_table: d.to_callback().reform(Action::DeleteTable),
        modify_families: d
            .to_callback()
            .reform(|(table, changes)| Action::ModifyFamilies { table, changes }),
        viewport: d.to_callback().reform(Action::RowsViewport),
        scroll: d.to_callback().reform(Action::ScrollRows),
        go_to_key: d.to_callback().reform(Action::GoToKey),
        toggle_row: d.to_callback().reform(Action::ToggleRow),
        compact: to(|()| Action::CompactNow),
        emulator_parity: d.to_callback().reform(Action::SetEmulatorParity),
        ghost_done: d.to_callback().reform(Action::GhostDone),
        generator: d.to_callback().reform(Action::SetGenerator),
        start_generator: to(|()| Action::StartGenerator),
        cancel_job: to(|()| Action::CancelJob),
        console_tab: d.to_callback().reform(Action::ConsoleTab),
        console_input: d.to_callback().reform(Action::ConsoleInput),
        console_run: to(|()| Action::ConsoleRun),
        console_history: d.to_callback().reform(Action::ConsoleHistory),
        console_clear: to(|()| Action::ConsoleClear),
        console_insert: d
            .to_callback()
            .reform(|(tab, text)| Action::ConsoleInsert(tab, text)),
        change_stream: d
            .to_callback()
            .reform(|(table, retention_days)| Action::SetChangeStream {
                table,
                retention_days,
            }),
        resize: d
            .to_callback()
            .reform(|(splitter, px)| Action::Resize(splitter, px)),
        reset_layout: to(|()| Action::ResetLayout),
        maximize: d.to_callback().reform(Action::Maximize),
        confirm_import: d.to_callback().reform(Action::ConfirmImport),
        import: d
            .to_callback()
            .reform(|(name, bytes)| Action::ImportSnapshot(name, bytes)),
        export: Callback::from(move |()| {
            let bytes = export_app.snapshot();
            let name = browser::snapshot_file_name(export_app.instance().now_micros());
            let text = match browser::download(&bytes, &name) {
                Ok(()) => Notice {
                    error: false,
                    text: format!(
                        "Exported {name} ({})",
                        tabletop_core::human_bytes(bytes.len() as f64)
                    ),
                },
                Err(e) => Notice {
                    error: true,
                    text: format!("The snapshot could not be downloaded: {e}"),
                },
            };
            export_notify.emit(text);
        }),
        make_link: Callback::from(move |()| -> String {
            let fragment = share::encode(&link_app.to_shared(true));
            browser::set_fragment(&fragment);
            let href = browser::href();
            let base = href.split('#').next().unwrap_or_default();
            format!("{base}#{fragment}")
        }),
        notify,
        dismiss: to(|()| Action::DismissNotice),
        expire: d.to_callback().reform(Action::ExpireNotice),
        take_autosave: to(|()| Action::AutosaveElsewhere(false)),
        open_recovered: d.to_callback().reform(Action::OpenLink),
        sim: d.to_callback().reform(Action::Sim),
        live: d.to_callback().reform(Action::Live),
        scenario_data: d.to_callback().reform(Action::ScenarioData),
        ab: d.to_callback().reform(Action::Ab),
        tools: d.to_callback().reform(Action::Tools),
        open_export: to(|()| Action::Tools(crate::state::tools::ToolsAction::OpenExport(None))),
        open_import: to(|()| Action::Tools(crate::state::tools::ToolsAction::OpenImport)),
        learn: d.to_callback().reform(Action::Learn),
        undo_replace: to(|()| Action::UndoReplace),
        forget_replaced: to(|()| Action::ForgetReplaced),
    }
}

/// The grid's template for the panels shown.
/// The most the Schema column takes of the width (and the least the Key
/// Visualizer may be held to).
const SIDE_MAX: &str = "32%";
/// What the Key Visualizer leaves for the Schema and middle columns while
/// it shows a heatmap: on a laptop it grows into the rest of the width (up
/// to its own size), so the heatmap is the largest thing on screen. With
/// nothing simulated yet it keeps to a third, and the rows get the room.
const KEYVIZ_LEAVES: &str = "760px";
/// The least width of the Schema column while a lesson runs: the lesson's
/// dock sits at its top, and narrower its task wraps into a sliver on a
/// laptop (still held to [`SIDE_MAX`] of the width).
const LESSON_LEFT_PX: u32 = 340;

/// The layout the grid draws: the user's, with the Schema column widened
/// to [`LESSON_LEFT_PX`] while a lesson runs (the saved layout is not
/// changed, so leaving the lesson gives the user's width back).
fn lesson_layout(layout: &Layout, lesson: bool) -> Layout {
    let mut drawn = *layout;
    if lesson {
        drawn.left = drawn.left.max(LESSON_LEFT_PX);
    }
    drawn
}

/// The most the console takes of the window's height at its default size.
const CONSOLE_MAX: &str = "26vh";

fn grid_style(layout: &Layout, panels: Panels, heatmap: bool) -> String {
    let middle = has_middle(panels);
    let schema = has_left(panels);
    let keyviz = panels.has(PanelId::KeyVisualizer);
    let mut columns: Vec<(&str, String)> = Vec::new();
    // Side columns keep their dragged width on wide screens but never take
    // more than a third of a narrow one each, so the rows in the middle
    // stay readable on a laptop or a tablet.
    if schema {
        let width = if middle || keyviz {
            format!("min({}px, {SIDE_MAX})", layout.left)
        } else {
            "minmax(0, 1fr)".into()
        };
        columns.push(("schema", width));
        if middle || keyviz {
            columns.push(("ls", "6px".into()));
        }
    }
    if middle {
        columns.push(("mid", "minmax(0, 1fr)".into()));
    }
    if keyviz {
        if middle {
            columns.push(("rs", "6px".into()));
            let most = if heatmap {
                format!("max({SIDE_MAX}, 100% - {KEYVIZ_LEAVES})")
            } else {
                SIDE_MAX.to_string()
            };
            columns.push(("keyviz", format!("min({}px, {most})", layout.right)));
        } else {
            columns.push(("keyviz", "minmax(0, 1fr)".into()));
        }
    }
    let top = !columns.is_empty();
    let console = panels.has(PanelId::Console);
    let names: Vec<&str> = columns.iter().map(|c| c.0).collect();
    let n = names.len().max(1);
    let mut areas = Vec::new();
    let mut rows = Vec::new();
    if top {
        areas.push(names.join(" "));
        rows.push("minmax(0, 1fr)".to_string());
    }
    // Beside the middle, the Key Visualizer runs the full height and the
    // console sits under the columns left of it.
    let tall_keyviz = keyviz && middle;
    let under = |name: &'static str| -> String {
        names
            .iter()
            .map(|c| {
                if tall_keyviz && matches!(*c, "rs" | "keyviz") {
                    *c
                } else {
                    name
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    if console {
        if top {
            areas.push(under("hs"));
            rows.push("6px".into());
            // The default height gives way on a short window (a 768 px
            // laptop screen keeps room for the panels above); a height
            // someone dragged to is kept as it is.
            if layout.bottom == Layout::default().bottom {
                rows.push(format!("min({}px, {CONSOLE_MAX})", layout.bottom));
            } else {
                rows.push(format!("{}px", layout.bottom));
            }
        } else {
            rows.push("minmax(0, 1fr)".into());
        }
        areas.push(if top {
            under("console")
        } else {
            vec!["console"; n].join(" ")
        });
    }
    let template_columns = if columns.is_empty() {
        "minmax(0, 1fr)".to_string()
    } else {
        columns
            .iter()
            .map(|c| c.1.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let areas: String = areas.iter().map(|a| format!("\"{a}\" ")).collect();
    format!(
        "grid-template-columns: {template_columns}; grid-template-rows: {}; grid-template-areas: {areas};",
        rows.join(" ")
    )
}

/// Reads the app context and lays out the panels.
#[component(Workspace)]
pub fn workspace() -> Html {
    let app =
        use_context::<AppContext>().expect("Workspace is rendered inside App's ContextProvider");
    let cb = {
        let app = app.clone();
        use_memo((), move |()| callbacks(&app))
    };
    let grid = Grid::new(&app);
    let views = use_view_lists(&app);
    let on_escape = {
        let restore = cb.maximize.clone();
        let maximized = app.maximized.is_some();
        Callback::from(move |e: KeyboardEvent| {
            // Escapes that closed or released something else (a pinned
            // heatmap cell) have already prevented the default.
            if maximized && e.key() == "Escape" && !e.default_prevented() {
                restore.emit(None);
            }
        })
    };
    let (all, panels) = (grid.all, grid.panels);
    let instance_name = app.instance().name();
    html! {
        <div class={classes!("shell", app.embed.then_some("embed"))}>
            <AppHeader
                instance_name={instance_name.clone()}
                table_count={app.tables.len()}
                embed={app.embed}
                booted={app.booted}
                notice={app.notice.clone()}
                on_export={cb.export.clone()}
                on_import={cb.import.clone()}
                make_link={cb.make_link.clone()}
                on_notify={cb.notify.clone()}
                on_dismiss={cb.dismiss.clone()}
                on_expire={cb.expire.clone()}
                on_reset_layout={cb.reset_layout.clone()}
                on_open_export={cb.open_export.clone()}
                on_open_import={cb.open_import.clone()}
                emulator_parity={app.emulator_parity()}
                on_emulator_parity={cb.emulator_parity.clone()}
            >
                if app.autosave_elsewhere {
                    <AutosaveBar on_take={cb.take_autosave.clone()} />
                }
                <RecoveredBar embed={app.embed} on_open={cb.open_recovered.clone()} />
                if app.unsaved_work() && !app.embed {
                    <UnsavedBar loads={app.loads.len()} on_export={cb.export.clone()} />
                }
            </AppHeader>
            { dialogs(&app, &cb) }
            <main class={classes!("workspace", app.maximized.is_some().then_some("maximized"))} style={grid_style(&lesson_layout(&app.layout, app.learn.active.is_some()), panels, kv_has_map(&app))} onkeydown={on_escape}>
                // Every panel the page shows stays mounted while another is
                // maximized (half-typed forms, the console's input and the
                // heatmap's pin survive); the hidden ones are `display:
                // none` slots, the visible ones place themselves in the grid.
                if has_left(all) {
                    { left_slot(&app, &cb, &grid, &views) }
                    if has_middle(all) || all.has(PanelId::KeyVisualizer) {
                        { grid.handle(Splitter::Left, app.layout.left, &cb, "grid-area: ls") }
                    }
                }
                if has_middle(all) {
                    { middle_slot(&app, &cb, &grid) }
                }
                if all.has(PanelId::KeyVisualizer) {
                    if has_middle(all) {
                        { grid.handle(Splitter::Right, app.layout.right, &cb, "grid-area: rs") }
                    }
                    <div class="slot" hidden={!panels.has(PanelId::KeyVisualizer)}>
                        <KeyVizPanel sim={Rc::clone(&app.sim)} on_sim={cb.sim.clone()} live={Rc::clone(&app.live)} on_live={cb.live.clone()}
                            ab={Rc::clone(&app.ab)} on_ab={cb.ab.clone()}
                            design_name={app.design.scenario.as_ref().map(|s| AttrValue::from(s.name.clone()))}
                            tables={Rc::clone(&app.tables)} selected={app.selected.clone()} on_select={cb.select_table.clone()}
                            maximize={grid.maximize(PanelId::KeyVisualizer, &cb)} data_bar={data_bar(&app, &cb)} />
                    </div>
                }
                if all.has(PanelId::Console) {
                    if grid.above_console() {
                        { grid.handle(Splitter::Bottom, app.layout.bottom, &cb, "grid-area: hs") }
                    }
                    { console_slot(&app, &cb, &grid, instance_name) }
                }
            </main>
        </div>
    }
}

/// The instance's views for the Schema panel, made again only when they
/// may have changed: data or schema changed (a view made or deleted goes
/// through the console, which counts as such), the instance's clock moved
/// (a materialized view's lag counts down with it) or the tables list was
/// made anew. Other redraws (a slice of the live map, typing in the
/// console) reuse them. Each making is measured as [`VIEWS_MEASURE`].
#[hook]
fn use_view_lists(app: &AppContext) -> Rc<ViewLists> {
    let key = (
        app.data_rev,
        app.instance().now_micros(),
        Rc::clone(&app.tables),
        app.panels.has(PanelId::Schema),
    );
    let app = app.clone();
    use_memo(key, move |(_, _, tables, shown)| {
        if !*shown {
            return ViewLists::default();
        }
        let clock = browser::BrowserClock;
        let start = clock.now_ms();
        let lists = ViewLists::of(&app.instance(), tables.iter().map(|t| t.name.as_str()));
        clock.measure(VIEWS_MEASURE, start);
        lists
    })
}

/// The design's data bar for the Key Visualizer panel.
fn data_bar(app: &AppContext, cb: &Callbacks) -> Html {
    let names: Vec<String> = app.tables.iter().map(|t| t.name.clone()).collect();
    let replay_table = app
        .scenario_data
        .replay_table(app.design.rev, &names)
        .map(str::to_string);
    html! {
        // Only where the rows can be seen (not in an embed of the map).
        <ScenarioDataBar has_design={app.design.scenario.is_some() && app.panels.has(PanelId::Rows)}
            {replay_table} on_action={cb.scenario_data.clone()} />
    }
}

/// Whether the Key Visualizer shows a simulation's heatmap (then it takes
/// more of the width). The live map of a table does not widen it: while
/// the person works on their rows, the Rows panel keeps its room.
fn kv_has_map(app: &AppContext) -> bool {
    use crate::state::live::KvView;
    match app.live.shown(true) {
        KvView::Simulation => app.sim.loaded(),
        KvView::Ab => true,
        KvView::Live => false,
    }
}

/// Whether `panels` has a panel of the left column.
fn has_left(panels: Panels) -> bool {
    panels.has(PanelId::Schema) || panels.has(PanelId::Lessons)
}

/// Whether `panels` has a panel of the middle column.
fn has_middle(panels: Panels) -> bool {
    panels.has(PanelId::Tablets) || panels.has(PanelId::Rows)
}

/// Which panels the page has and which are laid out now (a maximized panel
/// is laid out as if it were the only one shown; the others stay mounted,
/// hidden).
struct Grid {
    /// Every panel the page has.
    all: Panels,
    /// The panels laid out now.
    panels: Panels,
    /// The maximized panel, if one is.
    maximized: Option<PanelId>,
}

impl Grid {
    fn new(app: &AppContext) -> Self {
        let all = app.panels;
        Grid {
            all,
            panels: app.maximized.map_or(all, |p| all.focused(p)),
            maximized: app.maximized,
        }
    }

    /// Whether the page has a panel above the console (so a handle between
    /// them).
    fn above_console(&self) -> bool {
        has_middle(self.all) || has_left(self.all) || self.all.has(PanelId::KeyVisualizer)
    }

    /// The maximize (or restore) button of a panel's header: empty where
    /// the panel (or its column) is all there is.
    fn maximize(&self, panel: PanelId, cb: &Callbacks) -> Html {
        let maximized = self
            .maximized
            .is_some_and(|m| self.all.focused(m).has(panel));
        if !maximized && self.all.focused(panel) == self.all {
            return Html::default();
        }
        html! { <MaximizeButton {panel} {maximized} on_focus={cb.maximize.clone()} /> }
    }

    /// A drag handle between two columns or rows, in a slot hidden (no
    /// handles) while a panel is maximized.
    fn handle(&self, splitter: Splitter, size: u32, cb: &Callbacks, style: &'static str) -> Html {
        html! {
            <div class="slot" hidden={self.maximized.is_some()}>
                <SplitHandle {splitter} {size} on_resize={cb.resize.clone()} {style} />
            </div>
        }
    }
}

/// The dialogs open over the workspace: Export, the confirmation of an
/// import that replaces work, Import.
fn dialogs(app: &AppContext, cb: &Callbacks) -> Html {
    html! {
        <>
            if let Some(export) = &app.tools.export {
                <ExportDialog state={export.clone()} tables={Rc::clone(&app.tables)}
                    on_action={cb.tools.clone()} on_notify={cb.notify.clone()} />
            }
            if let Some(pending) = &app.pending_import {
                <ConfirmImport pending={pending.clone()} tables={app.tables.len()}
                    in_lesson={app.learn.active.is_some()} on_answer={cb.confirm_import.clone()} />
            }
            if let Some(import) = &app.tools.import {
                <ImportDialog state={import.clone()} tables={Rc::clone(&app.tables)} on_action={cb.tools.clone()} />
            }
        </>
    }
}

/// The left column's slot: Schema and Lessons.
fn left_slot(app: &AppContext, cb: &Callbacks, grid: &Grid, views: &Rc<ViewLists>) -> Html {
    let all = grid.all;
    html! {
        <div class="slot" hidden={!has_left(grid.panels)}>
            <LeftColumn schema={all.has(PanelId::Schema)} lessons={all.has(PanelId::Lessons)}
                learn={Rc::clone(&app.learn)} embed={app.embed} replaced={app.replaced.clone()}
                on_learn={cb.learn.clone()} on_undo={cb.undo_replace.clone()} on_forget={cb.forget_replaced.clone()}
                lessons_maximize={grid.maximize(PanelId::Lessons, cb)}>
                if all.has(PanelId::Schema) {
                    <SchemaPanel
                        tables={Rc::clone(&app.tables)}
                        selected={app.selected.clone()}
                        on_select={cb.select_table.clone()}
                        on_create={cb.create_table.clone()}
                        on_delete={cb.delete_table.clone()}
                        on_modify={cb.modify_families.clone()}
                        maximize={grid.maximize(PanelId::Schema, cb)}
                    >
                        <ViewsList lists={Rc::clone(views)} />
                    </SchemaPanel>
                }
            </LeftColumn>
        </div>
    }
}

/// The middle column's slot: the Tablets bar (the live one or the
/// simulation's) above the Rows, with a handle between them.
fn middle_slot(app: &AppContext, cb: &Callbacks, grid: &Grid) -> Html {
    let (all, panels) = (grid.all, grid.panels);
    let layout = app.layout;
    let both_middle = panels.has(PanelId::Tablets) && panels.has(PanelId::Rows);
    let middle_style = if both_middle {
        format!(
            "grid-area: mid; grid-template-rows: {}px 6px minmax(0, 1fr);",
            layout.tablets
        )
    } else {
        "grid-area: mid; grid-template-rows: minmax(0, 1fr);".into()
    };
    html! {
        <div class="slot" hidden={!has_middle(panels)}>
            <div class="middle" style={middle_style}>
                if all.has(PanelId::Tablets) {
                    <div class="slot" hidden={!panels.has(PanelId::Tablets)}>
                        { tablets_panel(app, cb, grid) }
                    </div>
                }
                if all.has(PanelId::Tablets) && all.has(PanelId::Rows) {
                    <div class="slot" hidden={!both_middle}>
                        <SplitHandle splitter={Splitter::Tablets} size={layout.tablets} on_resize={cb.resize.clone()} />
                    </div>
                }
                if all.has(PanelId::Rows) {
                    <div class="slot" hidden={!panels.has(PanelId::Rows)}>
                        { rows_panel(app, cb, grid) }
                    </div>
                }
            </div>
        </div>
    }
}

/// The Tablets bar: the simulation's tablets while one is loaded and
/// chosen, else the live table's.
fn tablets_panel(app: &AppContext, cb: &Callbacks, grid: &Grid) -> Html {
    if app.sim.loaded() && app.sim.tablets_view == crate::state::sim::TabletsView::Simulation {
        // The table made from the design, whose tablets have rows.
        let names: Vec<String> = app.tables.iter().map(|t| t.name.clone()).collect();
        let real_table = app
            .scenario_data
            .replay_table(app.design.rev, &names)
            .map(|t| AttrValue::from(t.to_string()));
        let on_show_table = {
            let (on_sim, select) = (cb.sim.clone(), cb.select_table.clone());
            Callback::from(move |table: AttrValue| {
                select.emit(table.to_string());
                on_sim.emit(crate::state::sim::SimAction::TabletsView(
                    crate::state::sim::TabletsView::Table,
                ));
            })
        };
        return html! {
            <SimTabletsPanel sim={Rc::clone(&app.sim)} with_controls={!grid.panels.has(PanelId::KeyVisualizer)} on_sim={cb.sim.clone()} maximize={grid.maximize(PanelId::Tablets, cb)}
                {real_table} {on_show_table} />
        };
    }
    let top_key = app.rows.window.lines.first().map(|l| l.key_bytes.clone());
    let last_read = app
        .console
        .last_read()
        .filter(|r| Some(&r.table) == app.selected.as_ref())
        .map(|r| r.tablets.clone());
    // The nodes of the table's tablets: as the live map on screen placed
    // them (even when it is behind the table, its cells and this panel
    // then agree), else as the same rule places them without the map.
    let nodes = app
        .live
        .summary
        .as_ref()
        .filter(|_| app.live_shown() && app.live.table.is_some() && app.live.table == app.selected)
        .map(|s| Rc::new(s.tablets.iter().map(|t| (t.id, t.node)).collect::<Vec<_>>()))
        .or_else(|| {
            app.live
                .placement
                .as_ref()
                .filter(|p| Some(&p.inputs.table) == app.selected.as_ref())
                .map(|p| Rc::clone(&p.nodes))
        });
    html! {
        <TabletsPanel
            view={app.tablets.clone()}
            top_key={top_key}
            read_tablets={last_read}
            {nodes}
            on_go_to={cb.go_to_key.clone()}
            switch={app.sim.loaded().then(|| html! { <TabletsSwitch view={app.sim.tablets_view} on_sim={cb.sim.clone()} /> })}
            maximize={grid.maximize(PanelId::Tablets, cb)}
            loading={app.samples_held()}
        />
    }
}

/// The Rows panel of the selected table.
fn rows_panel(app: &AppContext, cb: &Callbacks, grid: &Grid) -> Html {
    let selected_summary = app
        .selected
        .as_ref()
        .and_then(|s| app.tables.iter().find(|t| &t.name == s).cloned());
    html! {
        <RowsPanel
            rows={Rc::clone(&app.rows)}
            table={selected_summary}
            loading={app.job.is_some()}
            generator={app.generator.clone()}
            on_viewport={cb.viewport.clone()}
            on_scroll={cb.scroll.clone()}
            on_go_to={cb.go_to_key.clone()}
            on_toggle={cb.toggle_row.clone()}
            on_compact={cb.compact.clone()}
            on_ghost_done={cb.ghost_done.clone()}
            on_generator={cb.generator.clone()}
            on_start={cb.start_generator.clone()}
            on_cancel={cb.cancel_job.clone()}
            maximize={grid.maximize(PanelId::Rows, cb)}
        />
    }
}

/// The Console's slot, along the bottom.
fn console_slot(app: &AppContext, cb: &Callbacks, grid: &Grid, instance_name: String) -> Html {
    html! {
        <div class="slot" hidden={!grid.panels.has(PanelId::Console)}>
            <ConsolePanel
                console={Rc::clone(&app.console)}
                tables={Rc::clone(&app.tables)}
                selected={app.selected.clone()}
                sample={app.rows.table.clone().zip(app.rows.window.lines.first().map(|l| l.key_bytes.clone()))}
                emulator_parity={app.emulator_parity()}
                instance_name={instance_name}
                height={app.layout.bottom}
                resizable={grid.maximized.is_none() && grid.above_console()}
                on_resize={cb.resize.clone()}
                on_tab={cb.console_tab.clone()}
                on_input={cb.console_input.clone()}
                on_run={cb.console_run.clone()}
                on_history={cb.console_history.clone()}
                on_clear={cb.console_clear.clone()}
                on_insert={cb.console_insert.clone()}
                changes={Rc::clone(&app.changes)}
                on_change_stream={cb.change_stream.clone()}
                maximize={grid.maximize(PanelId::Console, cb)}
            />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_lesson_widens_a_narrow_schema_column_only_while_it_runs() {
        let usual = Layout::default();
        let style = grid_style(&lesson_layout(&usual, true), Panels::default(), true);
        assert!(
            style.contains("grid-template-columns: min(340px, 32%) "),
            "{style}"
        );
        assert_eq!(lesson_layout(&usual, false), usual);
        let wide = Layout {
            left: 420,
            ..Layout::default()
        };
        assert_eq!(
            lesson_layout(&wide, true),
            wide,
            "a wider column stays as dragged"
        );
    }

    #[test]
    fn the_full_grid_has_every_area() {
        let style = grid_style(&Layout::default(), Panels::default(), true);
        // The Key Visualizer runs the full height, beside the console.
        assert!(
            style.contains(r#""schema ls mid rs keyviz" "hs hs hs rs keyviz" "console console console rs keyviz""#),
            "{style}"
        );
        assert!(
            style.contains(
                "grid-template-columns: min(280px, 32%) 6px minmax(0, 1fr) 6px min(680px, max(32%, 100% - 760px));"
            ),
            "{style}"
        );
        // With nothing simulated, the Key Visualizer keeps to a third.
        let style = grid_style(&Layout::default(), Panels::default(), false);
        assert!(
            style.contains(
                "grid-template-columns: min(280px, 32%) 6px minmax(0, 1fr) 6px min(680px, 32%);"
            ),
            "{style}"
        );
        // The console's default height gives way on a short window; a
        // dragged height is kept.
        assert!(style.contains("grid-template-rows: minmax(0, 1fr) 6px min(230px, 26vh);"));
        let mut dragged = Layout::default();
        dragged.resize(Splitter::Bottom, 330);
        let style = grid_style(&dragged, Panels::default(), true);
        assert!(
            style.contains("grid-template-rows: minmax(0, 1fr) 6px 330px;"),
            "{style}"
        );
    }

    #[test]
    fn embeds_lay_out_only_their_panels() {
        let style = grid_style(&Layout::default(), Panels::parse("rows,console"), true);
        assert!(style.contains(r#""mid" "hs" "console""#), "{style}");
        // Without the middle, the console spans the Key Visualizer too.
        let style = grid_style(&Layout::default(), Panels::parse("keyviz,console"), true);
        assert!(style.contains(r#""keyviz" "hs" "console""#), "{style}");
        let style = grid_style(
            &Layout::default(),
            Panels::parse("schema,keyviz,console"),
            true,
        );
        assert!(
            style.contains(r#""schema ls keyviz" "hs hs hs" "console console console""#),
            "{style}"
        );
        let style = grid_style(
            &Layout::default(),
            Panels::parse("rows,keyviz,console"),
            true,
        );
        assert!(
            style.contains(r#""mid rs keyviz" "hs rs keyviz" "console rs keyviz""#),
            "{style}"
        );
        let style = grid_style(&Layout::default(), Panels::parse("console"), true);
        assert!(
            style.contains(r#"grid-template-areas: "console""#),
            "{style}"
        );
        let style = grid_style(&Layout::default(), Panels::parse("schema"), true);
        assert!(
            style.contains("grid-template-columns: minmax(0, 1fr);"),
            "{style}"
        );
    }
}
