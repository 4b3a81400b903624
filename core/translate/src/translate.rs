//! Migration in, production out: table designs from DynamoDB and Oracle
//! NoSQL become Bigtable tables (families, GC rules, row keys and the
//! sample rows as cells), and a design in an [`Instance`] goes back out as
//! a `cbt` script, `gcloud` commands or a Terraform configuration.
//!
//! # Overview
//!
//! - [`from_oracle_ddl`] reads `CREATE TABLE` statements of Oracle NoSQL
//!   (every field type, SHARD keys, IDENTITY and UUID columns,
//!   `USING TTL`) and, optionally, rows as Oracle-style JSON records.
//! - [`from_dynamodb`] reads a NoSQL Workbench data-model export (tables,
//!   key attributes, GSIs, facets, a TTL attribute, the sample data) and
//!   recognises the plain, composite-key, single-table and adjacency-list
//!   designs of the DynamoDB migration guide.
//! - Both give a [`Translation`]: per table the row-key layout, the
//!   families with their GC rules and the reason for each, the rows as
//!   cells, the indexes as continuous materialized views (with their SQL)
//!   or hand-maintained index tables, notes (TTL is lazy GC, identity
//!   columns are sequential, ...) and the advisor's findings on the new
//!   key. [`Translation::apply`] creates the tables and writes the
//!   rows into an instance; [`Translation::to_text`] / [`Translation::to_json`]
//!   report it.
//! - [`export`] turns tables of an instance into a script for the real
//!   tools ([`ExportFormat`]): `cbt` (tables, families, GC rules, aggregate
//!   types, split points and the data as `set` lines or CSV files for
//!   `cbt import`), `gcloud bigtable instances tables create`, or Terraform
//!   (`google_bigtable_table` and `google_bigtable_gc_policy`).
//! - [`import_cbt_csv`] loads a CSV file in `cbt import`'s format, creating
//!   the table from its header when it does not exist yet.
//!
//! Every error in the input is a [`TranslateError`] with the line and
//! column it is about.
//!
//! ```
//! use tabletop_core::{Instance, cbt, translate};
//!
//! let ddl = "CREATE TABLE users (id INTEGER, name STRING, PRIMARY KEY(id)) USING TTL 30 DAYS";
//! let rows = r#"{"id": 7, "name": "Ada"}"#;
//! let options = translate::Options { now_micros: 1_700_000_000_000_000, ..Default::default() };
//! let t = translate::from_oracle_ddl(ddl, rows, &options)?;
//! let mut db = Instance::default();
//! t.apply(&mut db)?;
//! assert!(cbt::run_line(&mut db, "read users")?.contains("0000000007"));
//! let script = translate::export(&mut db, &translate::ExportOptions::default())?;
//! assert!(script.main.text.contains("createtable users"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod csv_import;
mod dynamo;
mod export;
mod index;
mod json;
pub mod keycodec;
mod oracle;
mod report;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use tabletop_design::keydesign::KeyTemplate;
use tabletop_sql::Instance;
use tabletop_store::{AggregateInput, Mutation};
use tabletop_store::{ColumnFamily, GcRule, TableSchema, ValueType};
use tabletop_store::{CreateTableRequest, MutateRowsEntry};
use tabletop_store::{Error, Result};
use tabletop_teach::advisor::{self, Design, FamilyDesign, Finding, TableDesign};

pub use csv_import::{CsvImportOptions, CsvImportReport, import_cbt_csv};
pub use export::{
    DataFormat, Export, ExportFile, ExportFormat, ExportOptions, SplitSource, export,
};
pub use keycodec::{Decimal, KeyEncoding, KeyValue};

/// Which input text a [`TranslateError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// Oracle NoSQL DDL.
    Ddl,
    /// Oracle-style JSON records.
    Rows,
    /// A NoSQL Workbench data model (JSON).
    Model,
    /// A CSV file in `cbt import`'s format.
    Csv,
}

impl Input {
    /// `DDL`, `rows`, `model` or `CSV`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Input::Ddl => "DDL",
            Input::Rows => "rows",
            Input::Model => "model",
            Input::Csv => "CSV",
        }
    }
}

/// A position in an input text: 1-based line and column (columns count
/// characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in characters.
    pub column: usize,
}

/// Input that cannot be translated: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranslateError {
    input: Input,
    pos: Pos,
    message: String,
}

impl TranslateError {
    pub(crate) fn new(input: Input, pos: Pos, message: impl Into<String>) -> TranslateError {
        TranslateError {
            input,
            pos,
            message: message.into(),
        }
    }

    /// The input text the error is in.
    #[must_use]
    pub fn input(&self) -> Input {
        self.input
    }

    /// The line (from 1).
    #[must_use]
    pub fn line(&self) -> usize {
        self.pos.line
    }

    /// The column (from 1, in characters).
    #[must_use]
    pub fn column(&self) -> usize {
        self.pos.column
    }

    /// What is wrong, without the position.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for TranslateError {
    /// `line 3, column 14: unknown type STRNG ...`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.pos.line, self.pos.column, self.message
        )
    }
}

impl std::error::Error for TranslateError {}

impl From<TranslateError> for Error {
    fn from(e: TranslateError) -> Error {
        Error::invalid(format!("{} {e}", e.input.name()))
    }
}

/// How DynamoDB items become Bigtable rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DynamoLayout {
    /// Decide from the key schema and the sample data (see
    /// [`from_dynamodb`]).
    #[default]
    Auto,
    /// One row per item: partition key `#` sort key.
    Composite,
    /// One wide row per partition (single-table and adjacency-list
    /// designs).
    WideRows,
}

/// Settings of a translation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The time given to cells that carry no time of their own, in
    /// microseconds since the epoch (truncated to milliseconds). Hosts pass
    /// the instance clock; tests pass a constant.
    pub now_micros: i64,
    /// How typed key fields become bytes.
    pub key_encoding: KeyEncoding,
    /// Write IDENTITY key fields with their digits reversed (the advisor's
    /// fix for sequential ids) instead of in order.
    pub reverse_identity: bool,
    /// How DynamoDB items are laid out.
    pub dynamo_layout: DynamoLayout,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            now_micros: 0,
            key_encoding: KeyEncoding::Text,
            reverse_identity: false,
            dynamo_layout: DynamoLayout::Auto,
        }
    }
}

impl Options {
    /// `now_micros` truncated to a whole millisecond (Bigtable's
    /// granularity).
    pub(crate) fn now_ms(&self) -> i64 {
        self.now_micros.div_euclid(1000).saturating_mul(1000)
    }
}

/// Where a design came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Oracle NoSQL DDL.
    OracleDdl,
    /// A DynamoDB NoSQL Workbench model.
    DynamoDb,
}

/// The shape a source table was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// An Oracle NoSQL table: one row per record, key fields in the row key.
    OracleTable,
    /// DynamoDB, partition key only: one row per item.
    DynamoSimple,
    /// DynamoDB, partition and sort key of one kind of item: one row per
    /// item, keyed `partition#sort` (the product catalog).
    DynamoComposite,
    /// DynamoDB single-table design: one wide row per partition, a family
    /// per item kind, child items as timestamped cells, counters as
    /// aggregates (the video and its comments).
    DynamoSingleTable,
    /// DynamoDB adjacency list: one wide row per entity, related items as
    /// columns named by their id (the invoice and its payments).
    DynamoAdjacencyList,
}

impl Pattern {
    /// A short name for reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Pattern::OracleTable => "Oracle NoSQL table",
            Pattern::DynamoSimple => "DynamoDB table with a partition key",
            Pattern::DynamoComposite => "DynamoDB table with a composite primary key",
            Pattern::DynamoSingleTable => "DynamoDB single-table design",
            Pattern::DynamoAdjacencyList => "DynamoDB adjacency list",
        }
    }
}

/// How serious a note is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NoteLevel {
    /// Good to know.
    Info,
    /// Behaves differently from the source database; check it.
    Warning,
}

/// Something the translation wants the reader to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// How serious.
    pub level: NoteLevel,
    /// A stable short topic (`ttl`, `identity`, `gsi`, `timestamps`, ...).
    pub topic: &'static str,
    /// The sentence.
    pub text: String,
}

impl Note {
    pub(crate) fn info(topic: &'static str, text: impl Into<String>) -> Note {
        Note {
            level: NoteLevel::Info,
            topic,
            text: text.into(),
        }
    }

    pub(crate) fn warning(topic: &'static str, text: impl Into<String>) -> Note {
        Note {
            level: NoteLevel::Warning,
            topic,
            text: text.into(),
        }
    }
}

/// One field of the row key, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyPart {
    /// The source field or attribute.
    pub name: String,
    /// Its source type (`INTEGER`, `S`, ...).
    pub source_type: String,
    /// How it is written (`zero-padded 10-digit decimal`, ...).
    pub encoding: String,
}

/// One column (or family of columns) of a family, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnPlan {
    /// The qualifier, or a description in angle brackets for qualifiers
    /// taken from data (`<payment id>`).
    pub qualifier: String,
    /// Where the values come from.
    pub source: String,
    /// How values are written.
    pub value: String,
}

/// A column family of a translated table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilyPlan {
    /// The family name.
    pub name: String,
    /// Its GC rule.
    pub gc_rule: Option<GcRule>,
    /// Plain bytes or an aggregate.
    pub value_type: ValueType,
    /// Why these columns share this family (access and retention).
    pub why: String,
    /// What it holds.
    pub columns: Vec<ColumnPlan>,
}

impl FamilyPlan {
    /// The family as a schema entry.
    #[must_use]
    pub fn to_column_family(&self) -> ColumnFamily {
        ColumnFamily {
            gc_rule: self.gc_rule.clone(),
            value_type: self.value_type,
        }
    }
}

/// What a translated cell holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CellValue {
    /// Bytes written with SetCell.
    Bytes(Vec<u8>),
    /// An input added to an aggregate cell with AddToCell.
    Add(i64),
}

/// One cell of a translated row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellPlan {
    /// Family.
    pub family: String,
    /// Qualifier.
    pub qualifier: Vec<u8>,
    /// Microseconds, a multiple of 1000.
    pub timestamp_micros: i64,
    /// The value.
    pub value: CellValue,
}

/// One translated row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowPlan {
    /// The row key.
    pub key: Vec<u8>,
    /// Its cells.
    pub cells: Vec<CellPlan>,
}

/// A secondary index of the source and how Bigtable serves it: first a
/// continuous materialized view (an asynchronous secondary index Bigtable
/// keeps up to date), else an index table the application writes itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexPlan {
    /// The index name.
    pub name: String,
    /// What it is keyed by (`GSI1PK`, `GSI1PK, GSI1SK`, `name, age`).
    pub key: String,
    /// What it carries (`ALL`, `KEYS_ONLY`, `INCLUDE a, b`).
    pub projection: String,
    /// The first choice's view, when the translated table can have one
    /// (see [`IndexPlan::first_choice`] for why not otherwise).
    pub view: Option<IndexView>,
    /// The first choice in a few sentences: the view and how it behaves,
    /// or why no view fits this table.
    pub first_choice: String,
    /// The alternative, an index table written by the application, and
    /// what it costs, in a few sentences.
    pub alternative: String,
}

/// A continuous materialized view that serves a source index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexView {
    /// The view's name (a valid table id).
    pub name: String,
    /// Its `CREATE MATERIALIZED VIEW` statement, in the SQL that
    /// [`tabletop_sql::sql::execute`] runs.
    pub sql: String,
}

/// One source table, translated.
#[derive(Clone, Debug, PartialEq)]
pub struct TableTranslation {
    /// The Bigtable table id.
    pub id: String,
    /// The source table's name.
    pub source_name: String,
    /// What the source table was recognised as.
    pub pattern: Pattern,
    /// The row key's fields, in order.
    pub row_key: Vec<KeyPart>,
    /// How typed key fields were encoded.
    pub key_encoding: KeyEncoding,
    /// The families.
    pub families: Vec<FamilyPlan>,
    /// Split points for the new table (none unless the source implies
    /// some).
    pub splits: Vec<Vec<u8>>,
    /// The rows, in key order.
    pub rows: Vec<RowPlan>,
    /// Secondary indexes of the source and how Bigtable serves them.
    pub indexes: Vec<IndexPlan>,
    /// Notes about this table.
    pub notes: Vec<Note>,
    /// The row-key design as a key template (what the advisor checks).
    pub key_template: Option<KeyTemplate>,
    /// The advisor's findings on this table's design.
    pub findings: Vec<Finding>,
}

impl TableTranslation {
    /// The table's schema.
    #[must_use]
    pub fn schema(&self) -> TableSchema {
        TableSchema {
            families: self
                .families
                .iter()
                .map(|f| (f.name.clone(), f.to_column_family()))
                .collect(),
        }
    }

    /// The number of cells over all rows.
    #[must_use]
    pub fn cell_count(&self) -> usize {
        self.rows.iter().map(|r| r.cells.len()).sum()
    }

    fn advise(&mut self) {
        self.findings = advise(self);
    }
}

/// The result of a translation.
#[derive(Clone, Debug, PartialEq)]
pub struct Translation {
    /// Where the design came from.
    pub source: Source,
    /// The model's or the first table's name.
    pub name: String,
    /// The tables.
    pub tables: Vec<TableTranslation>,
    /// Notes about the design as a whole.
    pub notes: Vec<Note>,
}

impl Translation {
    /// Creates the tables in `db` and writes the rows. Nothing is written
    /// if any of the tables exists already; if a write fails, the tables
    /// created so far are deleted again.
    pub fn apply(&self, db: &mut Instance) -> Result<()> {
        let existing: Vec<&str> = self
            .tables
            .iter()
            .filter(|t| db.get_table(&t.id).is_ok())
            .map(|t| t.id.as_str())
            .collect();
        if !existing.is_empty() {
            return Err(Error::already_exists(format!(
                "the instance already has a table named {}; delete it first or translate into another state",
                existing.join(", ")
            )));
        }
        let mut created: Vec<&str> = Vec::new();
        let result = (|| -> Result<()> {
            for t in &self.tables {
                db.create_table(CreateTableRequest {
                    table_id: t.id.clone(),
                    schema: t.schema(),
                    initial_splits: t.splits.clone(),
                })?;
                created.push(&t.id);
                write_rows(db, &t.id, &t.rows)?;
            }
            Ok(())
        })();
        if result.is_err() {
            for id in created {
                let _ = db.delete_table(id);
            }
        }
        result
    }

    /// A fresh instance (with `config`, its clock at the translation time)
    /// holding just this translation.
    pub fn to_instance(
        &self,
        config: tabletop_store::InstanceConfig,
        now_micros: i64,
    ) -> Result<Instance> {
        let mut db = Instance::new(config);
        db.set_now(now_micros);
        self.apply(&mut db)?;
        Ok(db)
    }

    /// A report for a terminal: every table's row key, families (with GC
    /// rules and reasons), example rows, indexes, notes and findings.
    #[must_use]
    pub fn to_text(&self) -> String {
        report::text(self)
    }

    /// The same report as pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        report::json(self)
    }

    /// Every note, the design's and each table's.
    pub fn all_notes(&self) -> impl Iterator<Item = &Note> {
        self.notes
            .iter()
            .chain(self.tables.iter().flat_map(|t| t.notes.iter()))
    }
}

/// Writes rows in batches of MutateRows; the first failing entry stops it.
fn write_rows(db: &mut Instance, table: &str, rows: &[RowPlan]) -> Result<()> {
    for chunk in rows.chunks(500) {
        let entries: Vec<MutateRowsEntry<'_>> = chunk
            .iter()
            .filter(|r| !r.cells.is_empty())
            .map(|r| MutateRowsEntry {
                row_key: Cow::Borrowed(r.key.as_slice()),
                mutations: r.cells.iter().map(cell_mutation).collect(),
            })
            .collect();
        if entries.is_empty() {
            continue;
        }
        let results = db.mutate_rows(table, &entries)?;
        for (entry, r) in entries.iter().zip(results) {
            r.map_err(|e| {
                e.context(format!(
                    "table {table}, row {}",
                    tabletop_store::escape_bytes(&entry.row_key)
                ))
            })?;
        }
    }
    Ok(())
}

fn cell_mutation(c: &CellPlan) -> Mutation<'_> {
    match &c.value {
        CellValue::Bytes(v) => Mutation::SetCell {
            family_name: Cow::Borrowed(c.family.as_str()),
            column_qualifier: Cow::Borrowed(c.qualifier.as_slice()),
            timestamp_micros: c.timestamp_micros,
            value: Cow::Borrowed(v.as_slice()),
        },
        CellValue::Add(n) => Mutation::AddToCell {
            family_name: Cow::Borrowed(c.family.as_str()),
            column_qualifier: Cow::Borrowed(c.qualifier.as_slice()),
            timestamp_micros: c.timestamp_micros,
            input: AggregateInput::Int(*n),
        },
    }
}

/// Runs the advisor on a translated table (its key template and
/// families).
fn advise(t: &TableTranslation) -> Vec<Finding> {
    let Some(key) = &t.key_template else {
        return Vec::new();
    };
    if key.validate().is_err() {
        return Vec::new();
    }
    let families: BTreeMap<String, FamilyDesign> = t
        .families
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                FamilyDesign::from_family(&f.to_column_family()),
            )
        })
        .collect();
    let design = Design {
        name: t.id.clone(),
        tables: vec![TableDesign {
            id: t.id.clone(),
            families,
            in_instance: false,
        }],
        key: Some(key.clone()),
        entities: 10_000,
        nodes: 3,
        writes_per_node: 14_000.0,
        ..Design::default()
    };
    advisor::lint(&design)
}

/// Translates Oracle NoSQL `CREATE TABLE` (and `CREATE INDEX`)
/// statements, and rows given as JSON records.
///
/// `rows` holds JSON objects, one per record (JSON Lines, a sequence of
/// objects, or one array of them), for the only table of the DDL; when the
/// DDL creates several tables, it is one object mapping each table name to
/// an array of records. An empty `rows` translates the schema only.
///
/// The rules:
///
/// - Table: one Bigtable table of the same name; one row per record.
/// - Row key: the primary-key fields in order (shard-key fields first, as
///   Oracle requires), each encoded so that byte order is Oracle's order
///   (see [`keycodec`]); key fields are not repeated as cells.
/// - Families: `data` for scalar fields (read together on most reads) and
///   `doc` for JSON, RECORD, ARRAY, MAP and BINARY fields (large, fetched
///   when needed, skipped by a family filter otherwise). A field whose
///   COMMENT says `family=NAME` goes to that family. Every family keeps one
///   version (Oracle keeps only the latest value); `USING TTL n DAYS|HOURS`
///   adds a max-age of the same length (with a note that Bigtable's GC is
///   lazy).
/// - Cells: the field name is the qualifier; numbers, booleans, enums and
///   timestamps are written as text, strings as UTF-8, binaries as bytes,
///   JSON, RECORD, ARRAY and MAP values as one compact JSON text. All cells
///   get [`Options::now_micros`].
/// - IDENTITY columns get their values from the sequence (START WITH,
///   INCREMENT BY) for records that leave them out; a leading identity key
///   is reported by the advisor (`sequential_id_first`), and
///   [`Options::reverse_identity`] applies its fix. UUID columns generated
///   by default get a deterministic UUID per record.
/// - `CREATE INDEX` becomes a continuous materialized view keyed by the
///   indexed fields and the row key (its `CREATE MATERIALIZED VIEW`
///   statement), with an index table written by the application as the
///   alternative; an index on a path inside a document gets only the
///   alternative.
pub fn from_oracle_ddl(
    ddl: &str,
    rows: &str,
    options: &Options,
) -> std::result::Result<Translation, TranslateError> {
    let mut t = oracle::translate(ddl, rows, options)?;
    for table in &mut t.tables {
        table.advise();
    }
    Ok(t)
}

/// Translates a DynamoDB design given as a NoSQL Workbench data-model
/// export (`{"ModelName", "DataModel": [{"TableName", "KeyAttributes",
/// "NonKeyAttributes", "GlobalSecondaryIndexes", "TableData",
/// "TableFacets", ...}]}`), including its sample data. A table may carry
/// `"TimeToLiveSpecification": {"AttributeName": "...", "Enabled": true}`
/// as in CloudFormation.
///
/// The AWS CLI's `aws dynamodb describe-table` output (`{"Table":
/// {"TableName", "AttributeDefinitions", "KeySchema",
/// "GlobalSecondaryIndexes", "LocalSecondaryIndexes", ...}}`, or
/// create-table's input or `TableDescription`) is read too; the
/// `TimeToLiveDescription` of `describe-time-to-live` and the `Items` of a
/// `scan`, merged into the same object, add the TTL and sample items.
/// Without items the layout follows the keys alone (a note says so).
///
/// The layout follows the migration guide's examples:
///
/// - Partition key only: one row per item, keyed by the partition key.
/// - A composite key whose items are all of one kind (the product
///   catalog): one row per item keyed `partition#sort`, one family (named
///   after the table's only facet, else `item`) with a column per
///   attribute.
/// - Items whose sort key equals their partition key (the invoice among
///   its payments): an adjacency list. One row per partition (a kind
///   prefix shared by every partition key, such as `Invoice-`, is
///   dropped); the entity's attributes go to a family named after its
///   kind; each related item becomes one column, named by the id in its
///   sort key, in a family named after its kind (`payment:0680`).
/// - Items of different kinds and shapes in one partition (the video, its
///   comments and stats): a single-table design. One row per partition;
///   items with a constant sort key give a family per kind with a column
///   per attribute; items whose sort key carries an id or reverse
///   timestamp are one column whose versions are the items, timestamped
///   by their creation time (newest first, as the guide suggests for
///   comments).
/// - Counters (a whole-number `N` attribute named like a count: `Count`,
///   `Views`, `Likes`, ...) go to the aggregate family `counters` (intsum)
///   at timestamp 0, so later increments add to the same cell.
/// - An attribute named like a write time (`UploadDate`, `DateCreated`,
///   `PostedAt`, ...) holding an ISO 8601 time becomes the timestamp of
///   the item's cells instead of a column.
/// - The TTL attribute becomes a max-age GC rule as long as the longest
///   lifetime in the sample data; items already expired are left out.
/// - String sets, number sets and binary sets become a family named after
///   the attribute with one column per member; maps and lists are stored
///   as one JSON cell.
/// - Global and local secondary indexes become continuous materialized
///   views (their `CREATE MATERIALIZED VIEW` statement), with an index
///   table written by the application as the alternative. An attribute
///   an index uses stays a column even when it is the items' write time.
pub fn from_dynamodb(
    model_json: &str,
    options: &Options,
) -> std::result::Result<Translation, TranslateError> {
    let mut t = dynamo::translate(model_json, options)?;
    for table in &mut t.tables {
        table.advise();
    }
    Ok(t)
}

/// Replaces characters a family name may not hold; lower case; at most 64
/// characters; `fallback` when nothing is left.
pub(crate) fn family_name(raw: &str, fallback: &str) -> String {
    let mut s: String = raw
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.truncate(tabletop_store::MAX_FAMILY_NAME_LEN);
    if s.is_empty() || s.chars().all(|c| c == '_') {
        fallback.to_string()
    } else {
        s
    }
}

/// A key-template segment name from a field name.
pub(crate) fn segment_name(raw: &str) -> String {
    let mut s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.truncate(64);
    if s.is_empty() { "field".into() } else { s }
}

/// Reads a time for [`Options::now_micros`]: ISO 8601 in UTC unless it
/// says otherwise (`2023-09-10`, `2023-09-10T15:21:48.123Z`,
/// `2023-09-10T17:21:48+02:00`) or a whole number of microseconds since
/// the epoch.
#[must_use]
pub fn parse_time_micros(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Ok(n) = t.parse::<i64>() {
        return Some(n);
    }
    let (secs, nanos) = oracle::parse_iso_timestamp(t)?;
    secs.checked_mul(1_000_000)?
        .checked_add(i64::from(nanos / 1000))
}

/// The cbt GC-policy text of a rule (`maxage=30d || maxversions=1`), or
/// `never`.
#[must_use]
pub fn gc_policy_text(rule: Option<&GcRule>) -> String {
    export::cbt_policy(rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_names_are_sanitised() {
        assert_eq!(family_name("VideoComment", "x"), "videocomment");
        assert_eq!(family_name("a b", "x"), "a_b");
        assert_eq!(family_name("", "item"), "item");
        assert_eq!(family_name("!!", "item"), "item");
    }

    #[test]
    fn the_overview_example_runs() {
        let ddl = "CREATE TABLE users (id INTEGER, name STRING, PRIMARY KEY(id)) USING TTL 30 DAYS";
        let rows = r#"{"id": 7, "name": "Ada"}"#;
        let options = Options {
            now_micros: 1_700_000_000_000_000,
            ..Options::default()
        };
        let t = from_oracle_ddl(ddl, rows, &options).unwrap();
        let mut db = Instance::default();
        t.apply(&mut db).unwrap();
        assert!(
            tabletop_wire::cbt::run_line(&mut db, "read users")
                .unwrap()
                .contains("0000000007")
        );
        let script = export(&mut db, &ExportOptions::default()).unwrap();
        assert!(script.main.text.contains("createtable users"));
    }

    #[test]
    fn times_parse() {
        assert_eq!(parse_time_micros("1000"), Some(1000));
        assert_eq!(
            parse_time_micros("2023-09-11T00:00:00.5Z"),
            Some(1_694_390_400_500_000)
        );
        assert_eq!(parse_time_micros("soon"), None);
        let extreme = Options {
            now_micros: i64::MIN,
            ..Options::default()
        };
        assert!(extreme.now_ms() <= 0, "no overflow");
    }

    #[test]
    fn errors_say_where() {
        let e = TranslateError::new(Input::Ddl, Pos { line: 3, column: 7 }, "bad");
        assert_eq!(e.to_string(), "line 3, column 7: bad");
        let core: Error = e.into();
        assert_eq!(core.message(), "DDL line 3, column 7: bad");
    }
}
