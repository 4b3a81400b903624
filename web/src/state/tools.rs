//! The tools slice: the Export and Import dialogs and the upkeep of
//! materialized views.
//!
//! The dialogs' state lives here while they are open and is transient: it
//! never goes into share links or autosave (the SQL tab's input and
//! history do, through the console slice). Every file the Export dialog
//! shows is made by the core's export once, when the dialog opens or a
//! choice changes; the Import dialog translates its text on every edit
//! (a design is a few kilobytes) so the preview follows the typing.
//!
//! Views are maintained by the instance's clock ([`Instance::tick`]): while
//! one is behind, [`views_have_work`] asks for animation frames and
//! [`views_work`] moves the clock on in the `Work` arm, so
//! the lag shown in the views list counts down as the core applies it.

use std::rc::Rc;

pub use super::console::sql::{sql_name, sql_ready};
use tabletop_core::translate::{DataFormat, DynamoLayout, KeyEncoding, SplitSource};

use tabletop_core::Instance;

use super::{Cx, Effects, Notice};
use crate::view_model::tools::{
    self as vm, CsvChoice, CsvOutcome, ExportBundle, ExportChoice, ExportKind, ImportError,
    ImportSource, TranslateChoice, TranslationPreview,
};

/// The Export dialog while it is open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportDialog {
    /// The file shown.
    pub kind: ExportKind,
    /// The files, for the current choices.
    pub bundle: Rc<ExportBundle>,
}

/// The Import dialog while it is open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportDialog {
    /// What is being imported.
    pub source: ImportSource,
    /// The DynamoDB model or the Oracle DDL.
    pub text: String,
    /// Oracle records (JSON), optional.
    pub rows: String,
    /// The translation's settings.
    pub choice: TranslateChoice,
    /// The translation of `text`, or where it fails (`None` while the text
    /// is empty).
    pub preview: Option<Result<Rc<TranslationPreview>, ImportError>>,
    /// Whether `preview` is of an earlier text: a large design is
    /// translated once typing pauses (see [`LARGE_DESIGN`]), not on every
    /// keystroke.
    pub stale: bool,
    /// Why Apply failed (the instance is unchanged).
    pub apply_error: Option<String>,
    /// The CSV import's settings.
    pub csv: CsvChoice,
    /// The picked CSV file's name and bytes.
    pub csv_file: Option<(String, Rc<Vec<u8>>)>,
    /// What the last CSV import did, or why it failed.
    pub csv_result: Option<Result<CsvOutcome, String>>,
}

/// Designs longer than this (bytes, with the records) are translated when
/// typing pauses rather than on every keystroke: a few megabytes take the
/// better part of a second in the page.
pub const LARGE_DESIGN: usize = 64 * 1024;

/// What this slice holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolsState {
    /// The Export dialog, when open.
    pub export: Option<ExportDialog>,
    /// The Import dialog, when open.
    pub import: Option<ImportDialog>,
}

/// What this slice does.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolsAction {
    /// Open the Export dialog for one table (or every table).
    OpenExport(Option<String>),
    /// Export one table, or every table (`None`).
    ExportTable(Option<String>),
    /// How the cbt script writes data.
    ExportData(DataFormat),
    /// Which split points the files carry.
    ExportSplits(SplitSource),
    /// Show one file.
    ExportShow(ExportKind),
    /// Close the Export dialog.
    CloseExport,
    /// Open the Import dialog.
    OpenImport,
    /// Choose what is imported.
    ImportSource(ImportSource),
    /// The model or DDL text changed (typed, pasted or read from a file).
    ImportText(String),
    /// The Oracle records changed.
    ImportRows(String),
    /// Translate a large design now (typing paused).
    ImportRefresh,
    /// How typed key fields are encoded.
    ImportKeyEncoding(KeyEncoding),
    /// Reverse a leading IDENTITY key's digits.
    ImportReverseIdentity(bool),
    /// How DynamoDB items become rows.
    ImportLayout(DynamoLayout),
    /// Create the translated tables (and their rows).
    ApplyImport,
    /// A CSV file was picked (name, bytes).
    CsvFile(String, Rc<Vec<u8>>),
    /// The CSV import's table, family and timestamp setting.
    CsvChoice(CsvChoice),
    /// Import the picked CSV file.
    CsvImport,
    /// Close the Import dialog.
    CloseImport,
}

impl ToolsState {
    /// Applies an action of this slice, with only what `cx` lends.
    pub(crate) fn reduce(&mut self, action: ToolsAction, cx: &Cx<'_>) -> Effects {
        match action {
            ToolsAction::OpenExport(table) => {
                // The whole instance, with the selected table's rows for
                // the CSV file (or the table asked for).
                let table = table.filter(|t| cx.tables.iter().any(|s| &s.name == t));
                // Much data: a schema-only script first, the data on request.
                let bytes = vm::logical_bytes(&cx.instance.borrow(), table.as_deref());
                let choice = ExportChoice {
                    rows_table: table.clone().or_else(|| cx.selected.map(str::to_string)),
                    table,
                    data: if bytes > vm::DEFAULT_DATA_BYTES {
                        DataFormat::None
                    } else {
                        DataFormat::Set
                    },
                    ..ExportChoice::default()
                };
                self.open_export(choice, ExportKind::Cbt, cx);
            }
            ToolsAction::ExportTable(table) => self.change_export(cx, |c| {
                if table.is_some() {
                    c.rows_table.clone_from(&table);
                }
                c.table = table;
            }),
            ToolsAction::ExportData(data) => self.change_export(cx, |c| c.data = data),
            ToolsAction::ExportSplits(splits) => self.change_export(cx, |c| c.splits = splits),
            ToolsAction::ExportShow(kind) => {
                if let Some(dialog) = &mut self.export {
                    dialog.kind = kind;
                }
            }
            ToolsAction::CloseExport => self.export = None,
            ToolsAction::OpenImport => {
                let table = cx.selected.unwrap_or_default().to_string();
                self.import = Some(ImportDialog {
                    csv: CsvChoice {
                        table,
                        family: String::new(),
                        value_encoded: true,
                    },
                    ..ImportDialog::default()
                });
            }
            ToolsAction::ImportSource(source) => self.change_import(cx, |d| d.source = source),
            ToolsAction::ImportText(text) => self.change_import_text(cx, |d| {
                // A pasted design of the other kind switches the source.
                if d.text.is_empty()
                    && let Some(guess) = vm::guess_source(&text)
                    && guess != ImportSource::CbtCsv
                {
                    d.source = guess;
                }
                d.text = text;
            }),
            ToolsAction::ImportRows(rows) => self.change_import_text(cx, |d| d.rows = rows),
            ToolsAction::ImportRefresh => {
                if self.import.as_ref().is_some_and(|d| d.stale) {
                    self.change_import(cx, |_| {});
                }
            }
            ToolsAction::ImportKeyEncoding(e) => {
                self.change_import(cx, |d| d.choice.key_encoding = e);
            }
            ToolsAction::ImportReverseIdentity(r) => {
                self.change_import(cx, |d| d.choice.reverse_identity = r);
            }
            ToolsAction::ImportLayout(l) => self.change_import(cx, |d| d.choice.layout = l),
            ToolsAction::ApplyImport => return self.apply_import(cx),
            ToolsAction::CsvFile(name, bytes) => {
                if let Some(dialog) = &mut self.import {
                    if dialog.csv.table.is_empty() {
                        dialog.csv.table = csv_table_name(&name);
                    }
                    dialog.csv_file = Some((name, bytes));
                    dialog.csv_result = None;
                }
            }
            ToolsAction::CsvChoice(choice) => {
                if let Some(dialog) = &mut self.import {
                    dialog.csv = choice;
                }
            }
            ToolsAction::CsvImport => return self.csv_import(cx),
            ToolsAction::CloseImport => self.import = None,
        }
        Effects::default()
    }

    fn open_export(&mut self, choice: ExportChoice, kind: ExportKind, cx: &Cx<'_>) {
        cx.sync_clock();
        let bundle = vm::export_bundle(&mut cx.instance.borrow_mut(), &choice);
        self.export = Some(ExportDialog {
            kind,
            bundle: Rc::new(bundle),
        });
    }

    fn change_export(&mut self, cx: &Cx<'_>, change: impl FnOnce(&mut ExportChoice)) {
        let Some(dialog) = &self.export else {
            return;
        };
        let mut choice = dialog.bundle.choice.clone();
        let kind = dialog.kind;
        change(&mut choice);
        if choice != dialog.bundle.choice {
            self.open_export(choice, kind, cx);
        }
    }

    /// A change of the typed text: translated at once while the design is
    /// small, marked stale (for [`ToolsAction::ImportRefresh`]) once large.
    fn change_import_text(&mut self, cx: &Cx<'_>, change: impl FnOnce(&mut ImportDialog)) {
        let Some(dialog) = &mut self.import else {
            return;
        };
        change(dialog);
        if dialog.text.len() + dialog.rows.len() > LARGE_DESIGN
            && dialog.source != ImportSource::CbtCsv
        {
            dialog.stale = true;
            dialog.apply_error = None;
        } else {
            self.change_import(cx, |_| {});
        }
    }

    fn change_import(&mut self, cx: &Cx<'_>, change: impl FnOnce(&mut ImportDialog)) {
        let instance = cx.instance.borrow();
        let now = instance.now_micros();
        let Some(dialog) = &mut self.import else {
            return;
        };
        change(dialog);
        dialog.apply_error = None;
        dialog.stale = false;
        dialog.preview = if dialog.text.trim().is_empty() || dialog.source == ImportSource::CbtCsv {
            None
        } else {
            Some(
                vm::translate_input(
                    dialog.source,
                    &dialog.text,
                    &dialog.rows,
                    dialog.choice,
                    now,
                )
                .map(|t| Rc::new(vm::preview(&t, &instance))),
            )
        };
    }

    fn apply_import(&mut self, cx: &Cx<'_>) -> Effects {
        let Some(dialog) = &mut self.import else {
            return Effects::default();
        };
        if dialog.source == ImportSource::CbtCsv || dialog.text.trim().is_empty() {
            return Effects::default();
        }
        cx.sync_clock();
        let now = cx.instance.borrow().now_micros();
        // Translate again at the time of applying, so the cells get the
        // clock of now rather than of the last keystroke.
        let translated = vm::translate_input(
            dialog.source,
            &dialog.text,
            &dialog.rows,
            dialog.choice,
            now,
        );
        let result = match translated {
            Err(e) => Err(format!("Nothing was created: {}", e.text())),
            Ok(t) => t
                .apply(&mut cx.instance.borrow_mut())
                .map(|()| t)
                .map_err(|e| format!("Nothing was created: {}", e.message())),
        };
        let t = match result {
            Ok(t) => t,
            Err(text) => {
                dialog.apply_error = Some(text);
                return Effects::default();
            }
        };
        let rows: usize = t.tables.iter().map(|t| t.rows.len()).sum();
        let ids: Vec<&str> = t.tables.iter().map(|t| t.id.as_str()).collect();
        let text = format!(
            "Created {} {} from {}: {} ({})",
            ids.len(),
            if ids.len() == 1 { "table" } else { "tables" },
            dialog.source.label(),
            ids.join(", "),
            crate::view_model::count_noun(rows as u64, "row"),
        );
        let select = ids.first().map(|s| (*s).to_string());
        self.import = None;
        Effects {
            data_changed: true,
            notice: Some(Notice { error: false, text }),
            select,
            then: None,
        }
    }

    fn csv_import(&mut self, cx: &Cx<'_>) -> Effects {
        let Some(dialog) = &mut self.import else {
            return Effects::default();
        };
        let Some((_, bytes)) = &dialog.csv_file else {
            return Effects::default();
        };
        cx.sync_clock();
        let result = vm::import_csv(&mut cx.instance.borrow_mut(), &dialog.csv, bytes);
        let effects = Effects {
            data_changed: result.is_ok(),
            select: result.as_ref().ok().map(|outcome| outcome.table.clone()),
            ..Effects::default()
        };
        dialog.csv_result = Some(result);
        effects
    }
}

/// Whether a materialized view is catching up with its source (and the
/// clock, kept at wall time, will get it there).
pub fn views_have_work(instance: &Instance) -> bool {
    !instance.clock_is_simulated() && vm::views_catching_up(instance)
}

/// One frame's upkeep for views: moves the instance clock to now, which
/// applies the view changes that are due. Cheap when no view waits.
pub(crate) fn views_work(cx: &Cx<'_>) {
    if views_have_work(&cx.instance.borrow()) {
        cx.sync_clock();
    }
}

/// A table id from a file name: `orders (2).csv` becomes `orders__2_`.
fn csv_table_name(file_name: &str) -> String {
    let stem = file_name.rsplit_once('.').map_or(file_name, |(s, _)| s);
    let id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.is_empty() { "imported".into() } else { id }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::console::Tab;
    use crate::state::layout::Panels;
    use crate::state::{Action, AppState, Boot};
    use tabletop_core::Instance;

    const NOW: i64 = 1_700_000_000_000_000;
    const CATALOG: &str =
        include_str!("../../../core/tests/translate_fixtures/product_catalog.json");

    use crate::state::test_app as app;

    fn tools(state: &AppState, action: ToolsAction) -> AppState {
        state.apply(Action::Tools(action))
    }

    fn sql(state: &AppState, text: &str) -> AppState {
        state
            .apply(Action::ConsoleTab(Tab::Sql))
            .apply(Action::ConsoleInput(text.into()))
            .apply(Action::ConsoleRun)
    }

    #[test]
    fn the_export_dialog_shows_the_cores_export_of_the_instance() {
        let state = tools(&app(), ToolsAction::OpenExport(None));
        let dialog = state.tools.export.clone().unwrap();
        assert_eq!(dialog.kind, ExportKind::Cbt);
        // Every table, and the selected table's rows for the CSV file.
        assert_eq!(dialog.bundle.choice.table, None);
        assert_eq!(
            dialog.bundle.file(ExportKind::Cbt).file_name,
            "playground.cbt"
        );
        assert_eq!(
            dialog.bundle.file(ExportKind::Csv).file_name,
            "mobile-time-series.csv"
        );
        assert!(dialog.bundle.file(ExportKind::Csv).unavailable.is_none());
        let mut twin = Instance::restore(&state.snapshot()).unwrap();
        let core = tabletop_core::translate::export(
            &mut twin,
            &tabletop_core::translate::ExportOptions::default(),
        )
        .unwrap();
        let ours = dialog.bundle.file(ExportKind::Cbt).text();
        for (a, b) in ours.lines().zip(core.main.text.lines()) {
            assert_eq!(a, b);
        }
        assert_eq!(ours, core.main.text);

        let one = tools(
            &state,
            ToolsAction::ExportTable(Some(crate::demo::TABLE_ID.into())),
        );
        let one = tools(&one, ToolsAction::ExportData(DataFormat::None));
        let one = tools(&one, ToolsAction::ExportShow(ExportKind::Terraform));
        let dialog = one.tools.export.clone().unwrap();
        assert_eq!(dialog.kind, ExportKind::Terraform);
        assert_eq!(dialog.bundle.choice.data, DataFormat::None);
        let cbt = dialog.bundle.file(ExportKind::Cbt).text();
        assert!(
            cbt.contains("createtable") && !cbt.contains(" set mobile-time-series "),
            "{cbt}"
        );
        assert!(dialog.bundle.file(ExportKind::Csv).unavailable.is_none());
        assert!(tools(&one, ToolsAction::CloseExport).tools.export.is_none());
        // An unknown table is not offered.
        let unknown = tools(&app(), ToolsAction::OpenExport(Some("nope".into())));
        assert_eq!(
            unknown.tools.export.clone().unwrap().bundle.choice.table,
            None
        );
    }

    #[test]
    fn much_data_opens_a_schema_only_export() {
        let mut state = app()
            .apply(Action::SetGenerator(
                crate::state::generator::GeneratorSpec {
                    table: "gen".into(),
                    rows: 30_000,
                    seed: 3,
                },
            ))
            .apply(Action::StartGenerator);
        while state.has_work() {
            state = state.apply(Action::Work);
        }
        let bytes = vm::logical_bytes(&state.instance(), None);
        assert!(bytes > vm::DEFAULT_DATA_BYTES, "{bytes}");
        let open = tools(&state, ToolsAction::OpenExport(None));
        let dialog = open.tools.export.clone().unwrap();
        assert_eq!(dialog.bundle.choice.data, DataFormat::None);
        let script = dialog.bundle.file(ExportKind::Cbt).text();
        assert!(script.contains("createtable gen") && !script.contains(" set gen "));
        // The small sample table still gets its data on request.
        let small = tools(
            &open,
            ToolsAction::ExportTable(Some(crate::demo::TABLE_ID.into())),
        );
        let small = tools(&small, ToolsAction::ExportData(DataFormat::Set));
        let script = small
            .tools
            .export
            .clone()
            .unwrap()
            .bundle
            .file(ExportKind::Cbt)
            .text();
        assert!(script.contains(" set mobile-time-series "), "{script}");
    }

    #[test]
    fn a_dynamodb_design_previews_live_and_applies() {
        let state = tools(&app(), ToolsAction::OpenImport);
        let state = tools(&state, ToolsAction::ImportText(CATALOG.into()));
        let dialog = state.tools.import.clone().unwrap();
        assert_eq!(dialog.source, ImportSource::DynamoDb);
        let preview = dialog.preview.clone().unwrap().unwrap();
        assert_eq!(preview.tables[0].id, "ProductCatalog");
        let data_rev = state.data_rev;
        let applied = tools(&state, ToolsAction::ApplyImport);
        assert!(applied.tools.import.is_none(), "the dialog closes");
        assert!(applied.data_rev > data_rev);
        assert_eq!(applied.selected.as_deref(), Some("ProductCatalog"));
        assert!(applied.tables.iter().any(|t| t.name == "ProductCatalog"));
        assert_eq!(applied.rows.total_rows(), 5);
        assert!(!applied.notice.clone().unwrap().error);
        // Applying the same design again is refused and changes nothing.
        let again = tools(
            &tools(&applied, ToolsAction::OpenImport),
            ToolsAction::ImportText(CATALOG.into()),
        );
        assert!(
            again
                .tools
                .import
                .as_ref()
                .unwrap()
                .preview
                .clone()
                .unwrap()
                .unwrap()
                .tables[0]
                .exists
        );
        let refused = tools(&again, ToolsAction::ApplyImport);
        let error = refused.tools.import.clone().unwrap().apply_error.unwrap();
        assert!(
            error.contains("already has a table named ProductCatalog"),
            "{error}"
        );
        assert_eq!(refused.tables.len(), 2);
    }

    #[test]
    fn describe_table_output_is_a_dynamodb_design_too() {
        let described = r#"{"Table": {"TableName": "Orders",
            "AttributeDefinitions": [{"AttributeName": "CustomerId", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "CustomerId", "KeyType": "HASH"}]},
            "Items": [{"CustomerId": {"S": "c-1"}, "Total": {"N": "12"}}]}"#;
        let state = tools(&app(), ToolsAction::OpenImport);
        let state = tools(&state, ToolsAction::ImportText(described.into()));
        let dialog = state.tools.import.clone().unwrap();
        assert_eq!(dialog.source, ImportSource::DynamoDb);
        let preview = dialog.preview.unwrap().unwrap();
        assert_eq!(preview.tables[0].id, "Orders");
        let applied = tools(&state, ToolsAction::ApplyImport);
        assert_eq!(applied.selected.as_deref(), Some("Orders"));
        assert_eq!(applied.rows.total_rows(), 1);
    }

    #[test]
    fn a_large_design_is_translated_when_typing_pauses() {
        // The catalog padded past LARGE_DESIGN with whitespace.
        let padding = " ".repeat(LARGE_DESIGN);
        let large = format!("{CATALOG}{padding}");
        let state = tools(&app(), ToolsAction::OpenImport);
        let typed = tools(&state, ToolsAction::ImportText(large.clone()));
        let dialog = typed.tools.import.clone().unwrap();
        assert!(
            dialog.stale && dialog.preview.is_none(),
            "not translated per keystroke"
        );
        assert_eq!(dialog.text, large, "the text itself is kept at once");
        let paused = tools(&typed, ToolsAction::ImportRefresh);
        let dialog = paused.tools.import.clone().unwrap();
        assert!(!dialog.stale);
        assert_eq!(
            dialog.preview.unwrap().unwrap().tables[0].id,
            "ProductCatalog"
        );
        // A refresh with nothing stale changes nothing.
        let again = tools(&paused, ToolsAction::ImportRefresh);
        assert_eq!(again.tools.import, paused.tools.import);
        // Apply works on the current text even before the pause.
        let edited = tools(
            &paused,
            ToolsAction::ImportText(large.replace("brandA", "brandZ")),
        );
        assert!(edited.tools.import.as_ref().unwrap().stale);
        let applied = tools(&edited, ToolsAction::ApplyImport);
        assert!(applied.tools.import.is_none());
        assert!(applied.rows.total_rows() > 0);
        // Small designs still translate on every change.
        let small = tools(&state, ToolsAction::ImportText(CATALOG.into()));
        assert!(!small.tools.import.as_ref().unwrap().stale);
    }

    #[test]
    fn a_broken_oracle_ddl_gives_line_and_column_and_changes_nothing() {
        let state = tools(&app(), ToolsAction::OpenImport);
        let state = tools(&state, ToolsAction::ImportSource(ImportSource::OracleDdl));
        let ddl = "CREATE TABLE users (\n  id INTEGER,\n  name STRNG,\n  PRIMARY KEY(id)\n)";
        let state = tools(&state, ToolsAction::ImportText(ddl.into()));
        let error = state
            .tools
            .import
            .clone()
            .unwrap()
            .preview
            .unwrap()
            .unwrap_err();
        assert_eq!(error.line, 3);
        assert!(error.text().starts_with(&format!("3:{}:", error.column)));
        let snapshot = state.snapshot();
        let after = tools(&state, ToolsAction::ApplyImport);
        assert!(
            after
                .tools
                .import
                .clone()
                .unwrap()
                .apply_error
                .unwrap()
                .contains("3:")
        );
        assert_eq!(after.snapshot(), snapshot, "nothing changed");
        assert_eq!(after.data_rev, state.data_rev);

        // A DynamoDB model cut short: the same, at the end of the text.
        let cut = &CATALOG[..CATALOG.len() / 2];
        let dynamo = tools(&after, ToolsAction::ImportSource(ImportSource::DynamoDb));
        let dynamo = tools(&dynamo, ToolsAction::ImportText(cut.into()));
        let error = dynamo
            .tools
            .import
            .clone()
            .unwrap()
            .preview
            .unwrap()
            .unwrap_err();
        assert_eq!(error.line, cut.lines().count(), "{error:?}");
        let refused = tools(&dynamo, ToolsAction::ApplyImport);
        assert!(refused.tools.import.clone().unwrap().apply_error.is_some());
        assert_eq!(refused.snapshot(), snapshot, "nothing changed");
    }

    #[test]
    fn oracle_rows_are_written_and_reverse_identity_applies() {
        let ddl = "CREATE TABLE users (id INTEGER GENERATED ALWAYS AS IDENTITY, name STRING, PRIMARY KEY(id)) USING TTL 30 DAYS";
        let state = tools(&app(), ToolsAction::OpenImport);
        let state = tools(&state, ToolsAction::ImportText(ddl.into()));
        assert_eq!(
            state.tools.import.as_ref().unwrap().source,
            ImportSource::OracleDdl
        );
        let state = tools(
            &state,
            ToolsAction::ImportRows("{\"name\": \"Ada\"}\n{\"name\": \"Bob\"}".into()),
        );
        let state = tools(&state, ToolsAction::ImportReverseIdentity(true));
        let preview = state
            .tools
            .import
            .clone()
            .unwrap()
            .preview
            .unwrap()
            .unwrap();
        assert_eq!(preview.tables[0].rows, 2);
        assert!(
            preview.tables[0]
                .families
                .iter()
                .any(|f| f.gc.contains("maxage=30d"))
        );
        let applied = tools(&state, ToolsAction::ApplyImport);
        assert_eq!(applied.selected.as_deref(), Some("users"));
        assert_eq!(applied.rows.total_rows(), 2);
    }

    #[test]
    fn csv_files_import_with_counts_and_errors() {
        let state = tools(&app(), ToolsAction::OpenImport);
        let state = tools(&state, ToolsAction::ImportSource(ImportSource::CbtCsv));
        let state = tools(
            &state,
            ToolsAction::CsvFile(
                "orders.csv".into(),
                Rc::new(b",cf\n,q\nr1,a\nr2,b\n".to_vec()),
            ),
        );
        let mut choice = state.tools.import.clone().unwrap().csv;
        assert_eq!(
            choice.table,
            crate::demo::TABLE_ID,
            "the selected table is the default"
        );
        choice.table = "orders".into();
        let state = tools(&state, ToolsAction::CsvChoice(choice));
        let done = tools(&state, ToolsAction::CsvImport);
        let result = done
            .tools
            .import
            .clone()
            .unwrap()
            .csv_result
            .unwrap()
            .unwrap();
        assert_eq!((result.rows, result.cells), (2, 2));
        assert!(result.created_table);
        assert_eq!(done.selected.as_deref(), Some("orders"));
        assert_eq!(done.rows.total_rows(), 2);

        let bad = tools(
            &done,
            ToolsAction::CsvFile("x.csv".into(), Rc::new(b",cf\n,q\nr3,\"a\"b\n".to_vec())),
        );
        let failed = tools(&bad, ToolsAction::CsvImport);
        let e = failed
            .tools
            .import
            .clone()
            .unwrap()
            .csv_result
            .unwrap()
            .unwrap_err();
        assert!(e.contains("line 3"), "{e}");
        assert_eq!(failed.rows.total_rows(), 2);
        assert_eq!(csv_table_name("orders (2).csv"), "orders__2_");
        assert_eq!(csv_table_name(".csv"), "imported");
    }

    #[test]
    fn views_catch_up_in_background_frames() {
        // A clock whose wall time we move by hand.
        #[derive(Debug)]
        struct Wall(std::cell::Cell<i64>, std::cell::Cell<f64>);
        impl crate::state::Clock for Wall {
            fn wall_micros(&self) -> i64 {
                self.0.get()
            }
            fn now_ms(&self) -> f64 {
                self.1.set(self.1.get() + 0.5);
                self.1.get()
            }
        }
        let clock = Rc::new(Wall(std::cell::Cell::new(NOW), std::cell::Cell::new(0.0)));
        let state =
            AppState::new(clock.clone(), false, Panels::default()).apply(Action::Boot(Boot::Demo));
        let state = sql(
            &state,
            "CREATE MATERIALIZED VIEW builds AS SELECT stats_summary['os_build'] AS build, COUNT(*) AS n FROM `mobile-time-series` GROUP BY build",
        );
        assert!(state.console.entries.last().unwrap().ok);
        assert!(!state.tools_has_work());
        let state = state
            .apply(Action::ConsoleTab(Tab::Cbt))
            .apply(Action::ConsoleInput(
                "set mobile-time-series phone#9 stats_summary:os_build=X".into(),
            ))
            .apply(Action::ConsoleRun);
        assert!(state.tools_has_work(), "the view is behind");
        assert!(state.has_work(), "so frames keep coming");
        let lag = vm::view_lines(&state.instance())[0].lag.clone();
        assert!(lag.contains("1 row pending"), "{lag}");
        clock.0.set(NOW + 2_000_000);
        let state = state.apply(Action::Work);
        assert!(!state.tools_has_work());
        assert_eq!(vm::view_lines(&state.instance())[0].lag, "caught up");
    }
}
