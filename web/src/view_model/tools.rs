//! Display data and plain-Rust logic behind the tools: the Export dialog
//! (what `tabletop export` writes), the Import dialog (what `tabletop
//! translate` reads, and `cbt import` CSV files), SQL results in the
//! console, and the list of materialized views.
//!
//! Everything here calls the core's public API and returns plain,
//! comparable structs, so the dialogs stay thin and the outputs can be
//! compared with the CLI's in native tests.

use std::rc::Rc;

use tabletop_core::cbt::{self, MemFiles};
use tabletop_core::translate::{
    self, CsvImportOptions, DataFormat, DynamoLayout, ExportFormat, ExportOptions, Input,
    KeyEncoding, NoteLevel, SplitSource, TranslateError, Translation,
};
use tabletop_core::views::{self, ViewKind};
use tabletop_core::{CountRows, CreateTableRequest, Instance, ReadRowsRequest, ValueType};

// ---------------------------------------------------------------------------
// Export

/// One file the Export dialog previews and downloads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportedFile {
    /// What the tab says (`cbt script`, `Terraform`, ...).
    pub label: &'static str,
    /// The file name offered for the download.
    pub file_name: String,
    /// The contents, as bytes (CSV cells may hold any byte).
    pub bytes: Rc<Vec<u8>>,
    /// Things the tool cannot express, as the core reported them.
    pub warnings: Vec<String>,
    /// Why there is nothing to show, when there is not (no table chosen
    /// for the CSV, say).
    pub unavailable: Option<String>,
}

impl ExportedFile {
    /// The contents as text for the preview (bytes that are not UTF-8
    /// replaced; the download keeps them).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Which files the Export dialog offers, in tab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportKind {
    /// `tabletop export --format cbt`.
    Cbt,
    /// `tabletop export --format gcloud`.
    Gcloud,
    /// `tabletop export --format terraform`.
    Terraform,
    /// The chosen table's rows in `cbt import`'s CSV format.
    Csv,
}

impl ExportKind {
    /// Every kind, in tab order.
    pub const ALL: [ExportKind; 4] = [
        ExportKind::Cbt,
        ExportKind::Gcloud,
        ExportKind::Terraform,
        ExportKind::Csv,
    ];

    /// The tab's label.
    pub fn label(self) -> &'static str {
        match self {
            ExportKind::Cbt => "cbt script",
            ExportKind::Gcloud => "gcloud commands",
            ExportKind::Terraform => "Terraform",
            ExportKind::Csv => "Rows as CSV",
        }
    }

    /// A short id for element ids and test selectors.
    pub fn slug(self) -> &'static str {
        match self {
            ExportKind::Cbt => "cbt",
            ExportKind::Gcloud => "gcloud",
            ExportKind::Terraform => "terraform",
            ExportKind::Csv => "csv",
        }
    }
}

/// What to export: the same choices as `tabletop export`'s options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportChoice {
    /// One table, or every table (`None`).
    pub table: Option<String>,
    /// The table whose rows the CSV file holds when every table is
    /// exported (a CSV file holds one table): the selected one.
    pub rows_table: Option<String>,
    /// How the cbt script writes data (`--data`).
    pub data: DataFormat,
    /// Which split points (`--splits`).
    pub splits: SplitSource,
}

impl ExportChoice {
    /// The core's options for `format` (what the CLI builds from its
    /// command line).
    pub fn options(&self, format: ExportFormat) -> ExportOptions {
        ExportOptions {
            format,
            data: self.data,
            tables: self.table.iter().cloned().collect(),
            splits: self.splits,
            project: None,
            instance: None,
        }
    }

    /// The table of the CSV file: the chosen one, else the selected one.
    pub fn csv_table(&self) -> Option<&String> {
        self.table.as_ref().or(self.rows_table.as_ref())
    }

    /// The `tabletop export` command line that prints the same file, for
    /// the dialog to show (and for people to reproduce it).
    pub fn command_line(&self, kind: ExportKind) -> String {
        let format = match kind {
            ExportKind::Cbt | ExportKind::Csv => "cbt",
            ExportKind::Gcloud => "gcloud",
            ExportKind::Terraform => "terraform",
        };
        let mut line = format!("tabletop export --format {format}");
        let data = if kind == ExportKind::Csv {
            Some(DataFormat::Csv)
        } else if kind == ExportKind::Cbt && self.data != DataFormat::Set {
            Some(self.data)
        } else {
            None
        };
        if let Some(data) = data {
            line.push_str(&format!(" --data {}", data.name()));
        }
        let table = if kind == ExportKind::Csv {
            self.csv_table()
        } else {
            self.table.as_ref()
        };
        if let Some(t) = table {
            line.push_str(&format!(
                " --table {}",
                crate::view_model::filter::shell_quote(t)
            ));
        }
        if self.splits == SplitSource::Tablets && kind != ExportKind::Csv {
            line.push_str(" --splits tablets");
        }
        if kind == ExportKind::Csv {
            line.push_str(" --out DIR");
        }
        line
    }
}

/// Every file the Export dialog shows, made at once when the dialog opens
/// or its choices change (not per frame).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportBundle {
    /// The choices they were made with.
    pub choice: ExportChoice,
    /// One per [`ExportKind`], in [`ExportKind::ALL`]'s order.
    pub files: Vec<ExportedFile>,
}

impl ExportBundle {
    /// The file of one kind.
    pub fn file(&self, kind: ExportKind) -> &ExportedFile {
        let i = ExportKind::ALL
            .iter()
            .position(|k| *k == kind)
            .unwrap_or_default();
        &self.files[i]
    }
}

fn unavailable(label: &'static str, file_name: String, why: String) -> ExportedFile {
    ExportedFile {
        label,
        file_name,
        bytes: Rc::default(),
        warnings: Vec::new(),
        unavailable: Some(why),
    }
}

/// A name for a downloaded file: the instance id, or the table's id when
/// one table is exported, so `mobile-time-series.tf` says what it holds.
fn file_stem(db: &Instance, choice: &ExportChoice) -> String {
    let raw = choice
        .table
        .clone()
        .unwrap_or_else(|| db.config().instance.clone());
    let clean: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.trim_matches('.').is_empty() {
        "tabletop".into()
    } else {
        clean
    }
}

/// The most data (logical bytes of the tables exported) the dialog writes
/// into a script or CSV file: past it the file would take the page
/// seconds and hundreds of megabytes to make.
pub const MAX_DATA_BYTES: u64 = 64 * 1024 * 1024;
/// Past this much data the dialog opens with a schema-only script (the
/// data is one choice away).
pub const DEFAULT_DATA_BYTES: u64 = 4 * 1024 * 1024;

/// The logical bytes of one table, or of every table.
pub fn logical_bytes(db: &Instance, table: Option<&str>) -> u64 {
    db.list_tables()
        .iter()
        .filter(|t| table.is_none_or(|name| t.id == name))
        .map(|t| t.bytes)
        .sum()
}

fn too_big(bytes: u64) -> String {
    format!(
        "The data is {}, more than the page writes into one file ({}). Choose \"none (schema only)\", or export a snapshot and run tabletop export on it.",
        tabletop_core::human_bytes(bytes as f64),
        tabletop_core::human_bytes(MAX_DATA_BYTES as f64)
    )
}

/// Makes every file of the Export dialog with the core's
/// [`translate::export`], exactly as `tabletop export` does. The file
/// names follow the core's (`playground.cbt`, `playground.tf`, ...) but
/// use the table's id when one table is chosen.
pub fn export_bundle(db: &mut Instance, choice: &ExportChoice) -> ExportBundle {
    let stem = file_stem(db, choice);
    let mut files = Vec::with_capacity(ExportKind::ALL.len());
    let data_bytes = logical_bytes(db, choice.table.as_deref());
    for kind in ExportKind::ALL {
        if kind == ExportKind::Cbt && choice.data != DataFormat::None && data_bytes > MAX_DATA_BYTES
        {
            files.push(unavailable(
                kind.label(),
                format!("{stem}.cbt"),
                too_big(data_bytes),
            ));
            continue;
        }
        let (format, ext) = match kind {
            ExportKind::Cbt => (ExportFormat::Cbt, "cbt"),
            ExportKind::Gcloud => (ExportFormat::Gcloud, "gcloud.sh"),
            ExportKind::Terraform => (ExportFormat::Terraform, "tf"),
            ExportKind::Csv => (ExportFormat::Cbt, "csv"),
        };
        if kind == ExportKind::Csv {
            files.push(csv_file(db, choice));
            continue;
        }
        let file_name = format!("{stem}.{ext}");
        match translate::export(db, &choice.options(format)) {
            Ok(export) => {
                let mut warnings = export.warnings;
                if !export.files.is_empty() {
                    let names: Vec<&str> = export.files.iter().map(|f| f.name.as_str()).collect();
                    warnings.push(format!(
                        "The script imports files that must sit next to it: {} (download them from the Rows as CSV tab, one table at a time).",
                        names.join(", ")
                    ));
                }
                files.push(ExportedFile {
                    label: kind.label(),
                    file_name,
                    bytes: Rc::new(export.main.text.into_bytes()),
                    warnings,
                    unavailable: None,
                });
            }
            Err(e) => files.push(unavailable(kind.label(), file_name, e.message().into())),
        }
    }
    ExportBundle {
        choice: choice.clone(),
        files,
    }
}

/// The chosen table's rows as the CSV file `tabletop export --data csv`
/// writes for it (the `cbt import ... timestamp=value-encoded` format).
fn csv_file(db: &mut Instance, choice: &ExportChoice) -> ExportedFile {
    let label = ExportKind::Csv.label();
    let Some(table) = choice.csv_table() else {
        return unavailable(
            label,
            "rows.csv".into(),
            "Choose one table above: a CSV file holds the rows of one table.".into(),
        );
    };
    let one = ExportChoice {
        table: Some(table.clone()),
        ..choice.clone()
    };
    let file_name = format!("{}.csv", file_stem(db, &one));
    let bytes = logical_bytes(db, Some(table));
    if bytes > MAX_DATA_BYTES {
        return unavailable(label, file_name, too_big(bytes));
    }
    let options = ExportOptions {
        data: DataFormat::Csv,
        ..one.options(ExportFormat::Cbt)
    };
    match translate::export(db, &options) {
        Ok(mut export) => {
            let mut warnings = export.warnings;
            if export.addtocell_lines > 0 {
                warnings.push(
                    "Aggregate cells are not in the CSV file; the cbt script writes them with addtocell."
                        .into(),
                );
            }
            match export.files.pop() {
                Some(file) => ExportedFile {
                    label,
                    file_name,
                    bytes: Rc::new(file.contents),
                    warnings,
                    unavailable: None,
                },
                None => ExportedFile {
                    label,
                    file_name,
                    bytes: Rc::default(),
                    warnings,
                    unavailable: Some(format!("Table {table} has no cells a CSV file can carry.")),
                },
            }
        }
        Err(e) => unavailable(label, file_name, e.message().into()),
    }
}

// ---------------------------------------------------------------------------
// Import: DynamoDB and Oracle NoSQL designs

/// What the Import dialog reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ImportSource {
    /// A DynamoDB NoSQL Workbench model (JSON).
    #[default]
    DynamoDb,
    /// Oracle NoSQL DDL, with optional JSON records.
    OracleDdl,
    /// A CSV file in `cbt import`'s format.
    CbtCsv,
}

impl ImportSource {
    /// Every source, in the dialog's order.
    pub const ALL: [ImportSource; 3] = [
        ImportSource::DynamoDb,
        ImportSource::OracleDdl,
        ImportSource::CbtCsv,
    ];

    /// The choice's label.
    pub fn label(self) -> &'static str {
        match self {
            ImportSource::DynamoDb => "DynamoDB model (JSON)",
            ImportSource::OracleDdl => "Oracle NoSQL DDL",
            ImportSource::CbtCsv => "cbt CSV file",
        }
    }

    /// A short id for element ids and values.
    pub fn slug(self) -> &'static str {
        match self {
            ImportSource::DynamoDb => "dynamodb",
            ImportSource::OracleDdl => "oracle",
            ImportSource::CbtCsv => "csv",
        }
    }

    /// The source named `slug`.
    pub fn from_slug(slug: &str) -> Option<ImportSource> {
        ImportSource::ALL.into_iter().find(|s| s.slug() == slug)
    }
}

/// Guesses the source of a pasted or picked text: JSON is a DynamoDB
/// model, `CREATE` is Oracle DDL, a first line starting with a comma is a
/// `cbt import` header. `None` when it cannot tell.
pub fn guess_source(text: &str) -> Option<ImportSource> {
    let start = text.trim_start_matches('\u{feff}').trim_start();
    if start.starts_with('{') {
        Some(ImportSource::DynamoDb)
    } else if start
        .get(..6)
        .is_some_and(|w| w.eq_ignore_ascii_case("create"))
        || start.starts_with("--")
        || start.starts_with("/*")
    {
        Some(ImportSource::OracleDdl)
    } else if start.starts_with(',') {
        Some(ImportSource::CbtCsv)
    } else {
        None
    }
}

/// The translation's settings the dialog offers (the CLI's
/// `--key-encoding`, `--reverse-identity` and `--layout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TranslateChoice {
    /// How typed key fields become bytes.
    pub key_encoding: KeyEncoding,
    /// Reverse the digits of a leading IDENTITY key.
    pub reverse_identity: bool,
    /// DynamoDB: how items become rows.
    pub layout: DynamoLayout,
}

/// A translation error placed in the text it is about, for the dialog to
/// point at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    /// Which text: the DDL or model (`false`) or the Oracle rows (`true`).
    pub in_rows: bool,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The text of the line the error is on (empty past the end).
    pub line_text: String,
}

impl ImportError {
    fn from_core(e: &TranslateError, source: &str, rows: &str) -> ImportError {
        let in_rows = e.input() == Input::Rows;
        let text = if in_rows { rows } else { source };
        ImportError {
            in_rows,
            line: e.line(),
            column: e.column(),
            message: e.message().to_string(),
            line_text: text
                .lines()
                .nth(e.line().saturating_sub(1))
                .unwrap_or_default()
                .to_string(),
        }
    }

    /// `3:14: unknown type STRNG` (with `rows ` in front for the rows).
    pub fn text(&self) -> String {
        format!(
            "{}{}:{}: {}",
            if self.in_rows { "rows " } else { "" },
            self.line,
            self.column,
            self.message
        )
    }

    /// The error line split at the column: before, the character at the
    /// column (a space past the end of the line), after.
    pub fn marked_line(&self) -> (String, String, String) {
        let chars: Vec<char> = self.line_text.chars().collect();
        let at = self.column.saturating_sub(1).min(chars.len());
        let before: String = chars[..at].iter().collect();
        let mark = chars.get(at).map_or(" ".to_string(), char::to_string);
        let after: String = chars.get(at + 1..).unwrap_or_default().iter().collect();
        (before, mark, after)
    }
}

/// Translates the dialog's text with the core, as `tabletop translate
/// --from dynamodb|oracle` does. `now_micros` is the time given to cells
/// that carry none (the instance clock).
pub fn translate_input(
    source: ImportSource,
    text: &str,
    rows: &str,
    choice: TranslateChoice,
    now_micros: i64,
) -> Result<Translation, ImportError> {
    let options = translate::Options {
        now_micros,
        key_encoding: choice.key_encoding,
        reverse_identity: choice.reverse_identity,
        dynamo_layout: choice.layout,
    };
    let result = match source {
        ImportSource::DynamoDb => translate::from_dynamodb(text, &options),
        ImportSource::OracleDdl => translate::from_oracle_ddl(text, rows, &options),
        ImportSource::CbtCsv => {
            return Err(ImportError {
                in_rows: false,
                line: 1,
                column: 1,
                message: "a CSV file is imported into a table, not translated".into(),
                line_text: String::new(),
            });
        }
    };
    result.map_err(|e| ImportError::from_core(&e, text, rows))
}

/// One family of a translated table, for the preview.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilyLine {
    /// The family name.
    pub name: String,
    /// Its GC rule in cbt's words (`maxversions=1`, `never`).
    pub gc: String,
    /// `bytes` or the aggregate (`intsum`).
    pub value_type: String,
    /// Why these columns share the family.
    pub why: String,
    /// Its columns: `qualifier ← source (value)`.
    pub columns: Vec<String>,
}

/// A note or a finding, for the preview.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteLine {
    /// Whether it asks for attention (a warning or an advisor's finding
    /// above info).
    pub warning: bool,
    /// The topic or the rule.
    pub topic: String,
    /// The sentence.
    pub text: String,
}

/// One index of the source and how Bigtable serves it, for the preview.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexLine {
    /// `ByUser on UserId, CreatedAt (INCLUDE Active)`.
    pub title: String,
    /// The first choice: the view, or why none fits.
    pub first_choice: String,
    /// The view's `CREATE MATERIALIZED VIEW` statement, when there is one.
    pub sql: Option<String>,
    /// The alternative: an index table the application writes.
    pub alternative: String,
}

/// One translated table, for the preview.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TablePreview {
    /// The Bigtable table id.
    pub id: String,
    /// The source table's name.
    pub source_name: String,
    /// What the source was recognised as.
    pub pattern: String,
    /// The row key: `Category#Product` with each field's encoding.
    pub row_key: Vec<String>,
    /// An example row key, escaped, when there are rows.
    pub example_key: Option<String>,
    /// The families.
    pub families: Vec<FamilyLine>,
    /// How many rows and cells the sample data gives.
    pub rows: usize,
    /// Cells over all rows.
    pub cells: usize,
    /// Split points.
    pub splits: usize,
    /// The source's indexes and how Bigtable serves them.
    pub indexes: Vec<IndexLine>,
    /// Notes on this table's decisions.
    pub notes: Vec<NoteLine>,
    /// The advisor's findings on the new row key.
    pub findings: Vec<NoteLine>,
    /// Whether the instance already has a table with this id (Apply
    /// would be refused).
    pub exists: bool,
}

/// The Import dialog's preview of a translation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranslationPreview {
    /// The model's or first table's name.
    pub name: String,
    /// The tables.
    pub tables: Vec<TablePreview>,
    /// Notes on the design as a whole.
    pub notes: Vec<NoteLine>,
    /// The whole report as `tabletop translate` prints it.
    pub report: String,
}

impl TranslationPreview {
    /// Tables the instance already has (Apply refuses them).
    pub fn clashes(&self) -> Vec<&str> {
        self.tables
            .iter()
            .filter(|t| t.exists)
            .map(|t| t.id.as_str())
            .collect()
    }
}

fn value_type_name(v: ValueType) -> String {
    match v {
        ValueType::Bytes => "bytes".into(),
        ValueType::Aggregate(a) => a.cbt_name().into(),
    }
}

/// The preview of a translation against the instance it would go into.
pub fn preview(t: &Translation, db: &Instance) -> TranslationPreview {
    let note = |n: &translate::Note| NoteLine {
        warning: n.level == NoteLevel::Warning,
        topic: n.topic.to_string(),
        text: n.text.clone(),
    };
    let tables = t
        .tables
        .iter()
        .map(|table| TablePreview {
            id: table.id.clone(),
            source_name: table.source_name.clone(),
            pattern: table.pattern.name().to_string(),
            row_key: table
                .row_key
                .iter()
                .map(|k| format!("{} ({}, {})", k.name, k.source_type, k.encoding))
                .collect(),
            example_key: table
                .rows
                .first()
                .map(|r| tabletop_core::escape_bytes(&r.key)),
            families: table
                .families
                .iter()
                .map(|f| FamilyLine {
                    name: f.name.clone(),
                    gc: translate::gc_policy_text(f.gc_rule.as_ref()),
                    value_type: value_type_name(f.value_type),
                    why: f.why.clone(),
                    columns: f
                        .columns
                        .iter()
                        .map(|c| format!("{} ← {} ({})", c.qualifier, c.source, c.value))
                        .collect(),
                })
                .collect(),
            rows: table.rows.len(),
            cells: table.cell_count(),
            splits: table.splits.len(),
            indexes: table
                .indexes
                .iter()
                .map(|i| IndexLine {
                    title: format!("{} on {} ({})", i.name, i.key, i.projection),
                    first_choice: i.first_choice.clone(),
                    sql: i.view.as_ref().map(|v| v.sql.clone()),
                    alternative: i.alternative.clone(),
                })
                .collect(),
            notes: table.notes.iter().map(note).collect(),
            findings: table
                .findings
                .iter()
                .map(|f| NoteLine {
                    warning: f.severity.name() != "info",
                    topic: format!("advisor, {}", f.severity.name()),
                    text: format!("{} — {}", f.title, f.why),
                })
                .collect(),
            exists: db.get_table(&table.id).is_ok(),
        })
        .collect();
    TranslationPreview {
        name: t.name.clone(),
        tables,
        notes: t.notes.iter().map(note).collect(),
        report: t.to_text(),
    }
}

// ---------------------------------------------------------------------------
// Import: cbt CSV files

/// How a CSV file is imported (the `cbt import` options the dialog
/// offers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CsvChoice {
    /// The table to write into (created from the header when missing).
    pub table: String,
    /// `column-family=`: the file has no family row and every column goes
    /// to this family. Empty: the file's first row names the families.
    pub family: String,
    /// `timestamp=value-encoded`: cells are written `value@micros`.
    pub value_encoded: bool,
}

/// What a CSV import did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvOutcome {
    /// The table written.
    pub table: String,
    /// Whether it was created first.
    pub created_table: bool,
    /// Rows written.
    pub rows: u64,
    /// Cells written.
    pub cells: u64,
    /// What `cbt import` logged.
    pub log: String,
}

fn import_args(choice: &CsvChoice) -> Vec<String> {
    let mut args = vec![
        "import".to_string(),
        choice.table.clone(),
        "upload.csv".to_string(),
    ];
    if !choice.family.is_empty() {
        args.push(format!("column-family={}", choice.family));
    }
    if choice.value_encoded {
        args.push("timestamp=value-encoded".into());
    }
    args
}

fn cells_in(db: &mut Instance, table: &str) -> Result<(u64, u64), String> {
    let mut count = CountRows::default();
    db.read_rows(table, &ReadRowsRequest::default(), &mut count)
        .map_err(|e| e.message().to_string())?;
    Ok((count.rows, count.cells))
}

/// Imports a CSV file in `cbt import`'s format with `cbt import` itself.
///
/// All or nothing: the file is first imported into a scratch instance
/// holding an empty copy of the table, so a malformed line, an unknown
/// family or a value an aggregate family refuses is reported (with cbt's
/// message and the CSV line) before anything is written; `cbt import`
/// alone would keep the batches before the error. The scratch run also
/// counts the rows and cells the file writes.
pub fn import_csv(db: &mut Instance, choice: &CsvChoice, csv: &[u8]) -> Result<CsvOutcome, String> {
    if let Err(e) = tabletop_core::validate_table_id(&choice.table) {
        return Err(e.message().to_string());
    }
    if !choice.family.is_empty()
        && let Err(e) = tabletop_core::validate_family_name(&choice.family)
    {
        return Err(e.message().to_string());
    }
    // The dry run, in a scratch instance with the same clock and an empty
    // table of the same schema (or none, when the file's header is to
    // create it).
    let mut scratch = Instance::new(db.config().clone());
    scratch.set_now(db.now_micros());
    let existing = db.get_table(&choice.table).ok();
    let from_header = existing.is_none() && choice.family.is_empty();
    match &existing {
        Some(info) => create_empty(&mut scratch, &choice.table, info.schema.clone())?,
        None if !from_header => {
            create_empty(&mut scratch, &choice.table, family_schema(&choice.family))?
        }
        None => {}
    }
    run_import(&mut scratch, choice, csv, from_header)?;
    let (rows, cells) = cells_in(&mut scratch, &choice.table)?;
    // The real run cannot fail where the trial did not (same schema, same
    // file, same clock); should it all the same, a table it created goes.
    let created_table = existing.is_none();
    if created_table && !from_header {
        create_empty(db, &choice.table, family_schema(&choice.family))?;
    }
    let log = match run_import(db, choice, csv, from_header) {
        Ok(log) => log,
        Err(e) => {
            if created_table {
                let _ = db.delete_table(&choice.table);
            }
            return Err(e);
        }
    };
    Ok(CsvOutcome {
        table: choice.table.clone(),
        created_table,
        rows,
        cells,
        log,
    })
}

fn family_schema(family: &str) -> tabletop_core::TableSchema {
    let mut schema = tabletop_core::TableSchema::default();
    schema
        .families
        .insert(family.to_string(), tabletop_core::ColumnFamily::default());
    schema
}

fn create_empty(
    db: &mut Instance,
    table: &str,
    schema: tabletop_core::TableSchema,
) -> Result<(), String> {
    db.create_table(CreateTableRequest {
        table_id: table.to_string(),
        schema,
        initial_splits: Vec::new(),
    })
    .map(|_| ())
    .map_err(|e| e.message().to_string())
}

/// Runs `cbt import` on `csv`; `from_header` lets the core create the
/// missing table from the file's family row first. Returns cbt's log.
fn run_import(
    db: &mut Instance,
    choice: &CsvChoice,
    csv: &[u8],
    from_header: bool,
) -> Result<String, String> {
    if from_header {
        let options = CsvImportOptions {
            value_encoded_timestamps: choice.value_encoded,
            create_table: true,
        };
        return translate::import_cbt_csv(db, &choice.table, csv, &options)
            .map(|r| r.log)
            .map_err(|e| e.message().to_string());
    }
    let mut host = MemFiles::default();
    host.insert("upload.csv", csv.to_vec());
    let outcome = cbt::exec_args(db, &import_args(choice), &mut host);
    match outcome.status {
        Ok(()) => Ok(outcome.stderr_lossy()),
        Err(e) => Err(e.message().to_string()),
    }
}

// ---------------------------------------------------------------------------
// Materialized views

/// One materialized view, for the views list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewLine {
    /// The view's name.
    pub name: String,
    /// The table it reads.
    pub source: String,
    /// `aggregation` or `secondary index`.
    pub kind: &'static str,
    /// Its key columns.
    pub key: String,
    /// The defining query.
    pub query: String,
    /// Rows it holds.
    pub rows: u64,
    /// `caught up`, or what is pending and how far behind.
    pub lag: String,
    /// Whether nothing is pending.
    pub caught_up: bool,
    /// The last maintenance error, if any.
    pub error: Option<String>,
}

/// Every materialized view of `db`, by name.
pub fn view_lines(db: &Instance) -> Vec<ViewLine> {
    views::list_views(db)
        .into_iter()
        .map(|s| ViewLine {
            caught_up: s.is_caught_up(),
            lag: s.lag_text(),
            kind: match s.kind {
                ViewKind::Aggregation => "aggregation",
                ViewKind::SecondaryIndex => "secondary index",
            },
            key: if s.key_columns.is_empty() {
                "_key".into()
            } else {
                s.key_columns.join(", ")
            },
            name: s.name,
            source: s.source_table,
            query: s.query,
            rows: s.rows,
            error: s.error,
        })
        .collect()
}

/// Whether some view waits for maintenance that the clock moving on will
/// do (not one stuck on a query that no longer compiles).
pub fn views_catching_up(db: &Instance) -> bool {
    views::list_views(db)
        .iter()
        .any(|s| !(s.is_caught_up() || (s.rebuild_pending && s.error.is_some())))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_700_000_000_000_000;

    fn demo() -> Instance {
        let mut db = Instance::default();
        db.set_now(NOW);
        crate::demo::load(&mut db, NOW).unwrap();
        db
    }

    #[test]
    fn export_files_are_the_cores_export() {
        let mut db = demo();
        let choice = ExportChoice::default();
        let bundle = export_bundle(&mut db, &choice);
        for (kind, format) in [
            (ExportKind::Cbt, ExportFormat::Cbt),
            (ExportKind::Gcloud, ExportFormat::Gcloud),
            (ExportKind::Terraform, ExportFormat::Terraform),
        ] {
            let core = translate::export(&mut db, &choice.options(format)).unwrap();
            let file = bundle.file(kind);
            assert_eq!(file.text(), core.main.text, "{kind:?}");
            assert!(file.unavailable.is_none());
        }
        assert_eq!(bundle.file(ExportKind::Cbt).file_name, "playground.cbt");
        assert_eq!(
            bundle.file(ExportKind::Terraform).file_name,
            "playground.tf"
        );
        assert_eq!(
            bundle.file(ExportKind::Gcloud).file_name,
            "playground.gcloud.sh"
        );
        assert!(bundle.file(ExportKind::Csv).unavailable.is_some());
    }

    #[test]
    fn one_tables_csv_is_what_export_data_csv_writes() {
        let mut db = demo();
        let choice = ExportChoice {
            table: Some(crate::demo::TABLE_ID.into()),
            ..ExportChoice::default()
        };
        let bundle = export_bundle(&mut db, &choice);
        let csv = bundle.file(ExportKind::Csv);
        assert_eq!(csv.file_name, "mobile-time-series.csv");
        let core = translate::export(
            &mut db,
            &ExportOptions {
                data: DataFormat::Csv,
                ..choice.options(ExportFormat::Cbt)
            },
        )
        .unwrap();
        assert_eq!(*csv.bytes, core.files[0].contents);
        assert!(csv.text().starts_with(",stats_detail"), "{}", csv.text());
        assert_eq!(
            choice.command_line(ExportKind::Csv),
            "tabletop export --format cbt --data csv --table mobile-time-series --out DIR"
        );
        assert_eq!(
            choice.command_line(ExportKind::Terraform),
            "tabletop export --format terraform --table mobile-time-series"
        );
        // The CSV goes back in through cbt import, cell for cell.
        let mut fresh = Instance::default();
        fresh.set_now(NOW);
        let outcome = import_csv(
            &mut fresh,
            &CsvChoice {
                table: "copy".into(),
                family: String::new(),
                value_encoded: true,
            },
            &csv.bytes,
        )
        .unwrap();
        assert_eq!(
            (outcome.rows, outcome.cells),
            cells_in(&mut db, "mobile-time-series").unwrap()
        );
    }

    #[test]
    fn a_missing_table_is_reported_not_panicked() {
        let mut db = demo();
        let bundle = export_bundle(
            &mut db,
            &ExportChoice {
                table: Some("gone".into()),
                ..ExportChoice::default()
            },
        );
        for file in &bundle.files {
            assert!(
                file.unavailable.as_deref().unwrap().contains("gone"),
                "{file:?}"
            );
        }
    }

    #[test]
    fn errors_point_into_the_text() {
        let ddl = "CREATE TABLE t (\n  id INTEGER,\n  name STRNG,\n  PRIMARY KEY(id))";
        let e = translate_input(
            ImportSource::OracleDdl,
            ddl,
            "",
            TranslateChoice::default(),
            NOW,
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(!e.in_rows);
        assert_eq!(e.line_text, "  name STRNG,");
        assert!(e.text().starts_with("3:"), "{}", e.text());
        let (before, mark, after) = e.marked_line();
        assert_eq!(format!("{before}{mark}{after}"), "  name STRNG,");
        let rows = translate_input(
            ImportSource::OracleDdl,
            "CREATE TABLE t (id INTEGER, PRIMARY KEY(id))",
            "{\"id\": 1}\n{\"id\": }",
            TranslateChoice::default(),
            NOW,
        )
        .unwrap_err();
        assert!(rows.in_rows && rows.line == 2, "{rows:?}");
        assert!(rows.text().starts_with("rows 2:"), "{}", rows.text());
        let json = translate_input(
            ImportSource::DynamoDb,
            "{\n  \"ModelName\": \"x\",\n  \"DataModel\": [\n}",
            "",
            TranslateChoice::default(),
            NOW,
        )
        .unwrap_err();
        assert_eq!(json.line, 4, "{json:?}");
    }

    #[test]
    fn marks_past_the_end_of_a_line_are_a_space() {
        let e = ImportError {
            in_rows: false,
            line: 1,
            column: 9,
            message: "m".into(),
            line_text: "abc".into(),
        };
        assert_eq!(
            e.marked_line(),
            ("abc".to_string(), " ".to_string(), String::new())
        );
    }

    #[test]
    fn the_product_catalog_previews_its_decisions() {
        let model = include_str!("../../../core/tests/translate_fixtures/product_catalog.json");
        let t = translate_input(
            ImportSource::DynamoDb,
            model,
            "",
            TranslateChoice::default(),
            NOW,
        )
        .unwrap();
        let db = demo();
        let p = preview(&t, &db);
        assert_eq!(p.tables.len(), 1);
        let table = &p.tables[0];
        assert_eq!(table.rows, 5);
        assert!(table.cells >= 15);
        assert_eq!(table.example_key.as_deref(), Some("Hats#fedora#brandA"));
        assert!(!table.families.is_empty());
        assert!(
            table
                .families
                .iter()
                .all(|f| !f.gc.is_empty() && !f.why.is_empty())
        );
        assert!(!table.exists);
        assert_eq!(p.report, t.to_text());
        assert!(p.clashes().is_empty());
    }

    #[test]
    fn indexes_preview_the_view_first_and_the_index_table_second() {
        let model = include_str!("../../../core/tests/translate_fixtures/user_sessions.json");
        let t = translate_input(
            ImportSource::DynamoDb,
            model,
            "",
            TranslateChoice::default(),
            NOW,
        )
        .unwrap();
        let p = preview(&t, &demo());
        let [ix] = p.tables[0].indexes.as_slice() else {
            panic!("{:?}", p.tables[0].indexes)
        };
        assert_eq!(ix.title, "ByUser on UserId, CreatedAt (INCLUDE Active)");
        assert!(
            ix.first_choice
                .starts_with("A continuous materialized view")
        );
        let sql = ix.sql.as_deref().unwrap();
        assert!(sql.starts_with("CREATE MATERIALIZED VIEW UserSessions_ByUser AS"));
        assert!(ix.alternative.starts_with("An index table"));
        // The statement runs in the playground once the tables exist.
        let mut db = t.to_instance(Default::default(), NOW).unwrap();
        tabletop_core::sql::execute(&mut db, sql).unwrap();
    }

    #[test]
    fn sources_are_guessed_from_the_text() {
        assert_eq!(guess_source("  {\"a\": 1}"), Some(ImportSource::DynamoDb));
        assert_eq!(
            guess_source("create table x"),
            Some(ImportSource::OracleDdl)
        );
        assert_eq!(guess_source(",cf\n,q\n"), Some(ImportSource::CbtCsv));
        assert_eq!(guess_source("hello"), None);
        assert_eq!(guess_source(""), None);
        for s in ImportSource::ALL {
            assert_eq!(ImportSource::from_slug(s.slug()), Some(s));
        }
    }

    #[test]
    fn csv_imports_count_and_change_nothing_on_error() {
        let mut db = demo();
        let choice = CsvChoice {
            table: "new".into(),
            family: String::new(),
            value_encoded: true,
        };
        let out = import_csv(
            &mut db,
            &choice,
            b",cf,,other\n,a,b,c\nr1,x@1000,y@2000,\nr2,,,z@3000\n",
        )
        .unwrap();
        assert!(out.created_table);
        assert_eq!((out.rows, out.cells), (2, 3));
        assert!(out.log.contains("Done importing 2 rows."), "{}", out.log);

        // An unknown family: cbt's error, and no row written.
        let bad = CsvChoice {
            table: crate::demo::TABLE_ID.into(),
            family: "nope".into(),
            value_encoded: false,
        };
        let before = cells_in(&mut db, crate::demo::TABLE_ID).unwrap();
        let e = import_csv(&mut db, &bad, b",q\nk1,v\n").unwrap_err();
        assert!(e.contains("nope"), "{e}");
        assert_eq!(cells_in(&mut db, crate::demo::TABLE_ID).unwrap(), before);

        // A malformed line after a good batch: nothing is kept.
        let mut body = String::from(",q\n");
        for i in 0..600 {
            body.push_str(&format!("k{i},v\n"));
        }
        body.push_str("\"broken\n");
        let mid = CsvChoice {
            table: "fresh".into(),
            family: "cf".into(),
            value_encoded: false,
        };
        let e = import_csv(&mut db, &mid, body.as_bytes()).unwrap_err();
        assert!(e.contains("line 602"), "{e}");
        assert!(
            db.get_table("fresh").is_err(),
            "the table is not left behind"
        );

        // With a chosen family, a missing table is created with it.
        let ok = import_csv(
            &mut db,
            &CsvChoice {
                table: "fam".into(),
                ..mid
            },
            b",q\nk,v\n",
        )
        .unwrap();
        assert!(ok.created_table);
        assert_eq!((ok.rows, ok.cells), (1, 1));
        assert!(
            import_csv(
                &mut db,
                &CsvChoice {
                    table: "bad id!".into(),
                    ..CsvChoice::default()
                },
                b""
            )
            .is_err()
        );
    }

    #[test]
    fn views_list_their_definition_and_lag() {
        let mut db = demo();
        assert!(view_lines(&db).is_empty());
        tabletop_core::sql::execute(
            &mut db,
            "CREATE MATERIALIZED VIEW builds AS SELECT stats_summary['os_build'] AS build, COUNT(*) AS n FROM `mobile-time-series` GROUP BY build",
        )
        .unwrap();
        let lines = view_lines(&db);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].name, "builds");
        assert_eq!(lines[0].kind, "aggregation");
        assert_eq!(lines[0].lag, "caught up");
        assert!(!views_catching_up(&db));
        cbt::run_line(
            &mut db,
            "set mobile-time-series phone#9 stats_summary:os_build=X",
        )
        .unwrap();
        assert!(views_catching_up(&db));
        let lines = view_lines(&db);
        assert!(lines[0].lag.contains("1 row pending"), "{}", lines[0].lag);
        db.tick(NOW + 2_000_000);
        assert!(!views_catching_up(&db));
    }
}
