//! The JSON protocol: Bigtable's REST requests and answers in proto3 JSON,
//! one request per line, against an [`Instance`].
//!
//! This is the one entry point the native CLI (`tabletop json`), the web
//! console's JSON tab and the JS API share. A request line is
//!
//! ```text
//! {"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/t", "rowsLimit": "10"}}
//! ```
//!
//! where `method` is a REST method name of Bigtable's data API
//! (`bigtable.googleapis.com/v2`) or table admin API
//! (`bigtableadmin.googleapis.com/v2`) and `request` is the request body
//! exactly as those APIs take it in proto3 JSON: lowerCamelCase field
//! names (the proto's snake_case names are accepted too), `bytes` in base64
//! (standard or URL-safe, padding optional), `int64` as strings (numbers
//! accepted), enums by name (numbers accepted), durations as `"3600s"`,
//! full resource names. The answer is one line, either
//! `{"response": X}` with X in the same proto3 JSON (default values left
//! out, object keys sorted) or
//! `{"error": {"code": 3, "status": "INVALID_ARGUMENT", "message": "..."}}`.
//!
//! # Methods
//!
//! Bigtable's: `createTable`, `getTable`, `listTables`, `deleteTable`,
//! `modifyColumnFamilies`, `dropRowRange`, `createAuthorizedView`,
//! `getAuthorizedView`, `listAuthorizedViews`, `updateAuthorizedView`,
//! `deleteAuthorizedView`, `mutateRow`, `mutateRows`,
//! `checkAndMutateRow`, `readModifyWriteRow`, `readRows`, `sampleRowKeys`;
//! change streams: `updateTable` (its `changeStreamConfig` and
//! `deletionProtection`),
//! `generateInitialChangeStreamPartitions` and `readChangeStream`, which
//! answer the JSON array of the messages their stream would carry (see
//! `api/change_stream.rs`); and of the instance admin API, the logical
//! views: `createLogicalView`, `getLogicalView`, `listLogicalViews`,
//! `updateLogicalView`, `deleteLogicalView` (`parent` the instance, `name`
//! `projects/{p}/instances/{i}/logicalViews/{v}`; the `sql` method reads
//! them in FROM).
//! See [`METHODS`].
//!
//! The playground's own, **not part of Bigtable**: `compact`
//! (`{"tableName": ...}` or `{}` for every table; flushes and compacts so
//! due GC rules take effect; answers `{}`), `advanceClock` (`{"micros":
//! "1000000"}`, `{"seconds": 5}` or `{"nowMicros": "..."}` moves the
//! instance clock forward and runs the engine work that became due;
//! `{}` only reads it; answers `{"nowMicros", "time", "events"}`) and
//! `listTablets` (`{"tableName": ...}`; answers the tablets with their
//! memtable and runs), `sql` and `explain` (the SQL console and EXPLAIN,
//! see `api/sql.rs`).
//!
//! # Resource names
//!
//! `parent` (createTable, listTables) is `projects/{p}/instances/{i}`;
//! `name` (getTable, deleteTable, modifyColumnFamilies, dropRowRange) and
//! `tableName` (data methods) are `projects/{p}/instances/{i}/tables/{t}`;
//! authorized views are `.../tables/{t}/authorizedViews/{v}` (`name` of
//! the view methods, `authorizedViewName` of the data methods, which then
//! see and touch only the view's subset; `parent` of create and list is
//! the table). Malformed names are `INVALID_ARGUMENT`.
//!
//! [`handle_in`] keeps instances apart: each request goes to the instance
//! its name spells, out of [`Instances`], so a table created under
//! `projects/p/instances/other` is not seen under `projects/p/instances/i`
//! (an instance exists as soon as it is named, as in the emulator; see
//! [`Instances`]). [`handle`] serves one instance under any project and
//! instance id, for hosts that keep one. Answers echo the names the
//! request used, so transcripts compare equal with the emulator's.
//!
//! # Where this differs from Bigtable's REST API, on purpose
//!
//! - `readRows` answers the merged rows (`{"rows": [Row...]}`, each the
//!   proto3 JSON of `google.bigtable.v2.Row`), not the stream of
//!   `ReadRowsResponse` chunks; with `"requestStatsView":
//!   "REQUEST_STATS_FULL"` it adds `requestStats` for the whole read.
//! - `sampleRowKeys` and `mutateRows` answer one object holding every
//!   message of the stream (`{"samples": [...]}`, `{"entries": [...]}`).
//! - Admin methods answer at once (no long-running operations); the
//!   `Table` they return has `name`, `columnFamilies` and `granularity`
//!   (`NAME_ONLY`, the default of listTables, gives only `name`).
//! - Aggregate families are described in the short form
//!   `{"aggregateType": {"inputType": {"int64Type": {}}, "sum": {}}}`
//!   (no `stateType`, no encoding); on input, `stateType` and the
//!   big-endian int64 encoding are accepted, and the output-only
//!   `Table.name` of createTable is ignored (AIP-203).
//! - Through an authorized view, `sampleRowKeys` answers the table's
//!   samples that fall in the view's rows (and the last one); a
//!   `deleteFromRow` or `deleteFromFamily` is refused when the row holds
//!   cells it would delete outside the view; a `mutateRows` entry that
//!   leaves the view gets `PERMISSION_DENIED` as its own status. An
//!   authorized view may only name families the table has.
//! - Instances exist as soon as they are named (see above); production
//!   creates them through its instance admin API and answers `NOT_FOUND`
//!   for one that was never created.
//! - `appProfileId` is accepted and ignored (one app profile);
//!   materialized views, deletion protection of tables, change
//!   streams, backups, row key schemas and typed `Value`s are refused with
//!   `UNIMPLEMENTED`. Other Bigtable methods answer `UNIMPLEMENTED`; names
//!   that are no method at all are `INVALID_ARGUMENT`.
//! - Unknown fields are `INVALID_ARGUMENT` (as Google's JSON front end
//!   does), and so are oneof choices that are `false`
//!   (`{"sink": false}`, `{"drop": false}`): leave the field out instead.
//! - Errors name the field path, as in
//!   `request.rows.rowRanges[0].startKeyClosed: invalid base64: ...`.
//! - Default values are left out of proto3 messages, as proto3 JSON
//!   does, but the playground's own wrappers always have their fixed
//!   form: `readRows` answers `{"rows": [...]}` (`[]` when nothing
//!   matched), `sampleRowKeys` `{"samples": [...]}`, and `mutateRows`
//!   `{"entries": [{"index": 0, "status": {"code": 0}}, ...]}`: one entry
//!   per request entry, in order, `index` a JSON number and `code` always
//!   there (with a `message` when it is not 0). Object keys come in sorted
//!   order, not field order. The CLI, the JS API and the console answer
//!   the same text.

mod admin;
mod authorized_views;
mod change_stream;
mod data;
mod fast;
mod logical_views;
mod names;
mod paging;
mod playground;
mod proto_json;
mod read_pages;
mod sql;
mod update_mask;

use serde_json::{Map, Value};

use tabletop_sql::{Instance, Instances};
use tabletop_store::GcRule;
use tabletop_store::Mutation;
use tabletop_store::OwnedRow;
use tabletop_store::RowFilter;
use tabletop_store::{Error, ReadRowsRequest, ReadStats, Result, Trace, Traces};

pub use self::proto_json::to_line;
use self::proto_json::{At, error_object};
pub use self::read_pages::ReadPages;

/// Which API a method belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Service {
    /// `google.bigtable.v2.Bigtable` (bigtable.googleapis.com).
    Data,
    /// `google.bigtable.admin.v2.BigtableTableAdmin`
    /// (bigtableadmin.googleapis.com).
    TableAdmin,
    /// `google.bigtable.admin.v2.BigtableInstanceAdmin`
    /// (bigtableadmin.googleapis.com): only its logical views.
    InstanceAdmin,
    /// Tabletop's own methods; not part of Bigtable.
    Playground,
}

/// Whether a method only reads the instance or may change it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Answers from the instance and leaves it as it was (apart from the
    /// traffic a read records for the Key Visualizer).
    Read,
    /// May change the instance: its tables, views, data or clock.
    Write,
}

/// A method of the protocol: the one list the dispatcher, the CLI (which
/// saves its state file after a write), the console and the help texts
/// read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodInfo {
    /// The REST method name, as in `{"method": "readRows"}`.
    pub name: &'static str,
    /// The API it belongs to.
    pub service: Service,
    /// Whether it may change the instance.
    pub access: Access,
    /// One line saying what it does.
    pub summary: &'static str,
    /// A minimal example request body.
    pub example: &'static str,
}

type Handler = fn(&mut Instance, &At<'_>, &mut Traces) -> Result<Value>;

macro_rules! methods {
    ($($name:literal, $service:ident, $access:ident, $handler:path, $summary:literal, $example:literal;)*) => {
        /// Every method of the protocol, Bigtable's first.
        pub const METHODS: &[MethodInfo] = &[
            $(MethodInfo {
                name: $name,
                service: Service::$service,
                access: Access::$access,
                summary: $summary,
                example: $example,
            },)*
        ];

        fn handler(name: &str) -> Option<Handler> {
            match name {
                $($name => Some($handler),)*
                _ => None,
            }
        }
    };
}

methods! {
    "createTable", TableAdmin, Write, admin::create_table,
        "Creates a table with column families and optional initial splits.",
        r#"{"parent": "projects/p/instances/i", "tableId": "t", "table": {"columnFamilies": {"cf": {"gcRule": {"maxNumVersions": 1}}}}}"#;
    "getTable", TableAdmin, Read, admin::get_table,
        "Describes a table: its column families and GC rules.",
        r#"{"name": "projects/p/instances/i/tables/t"}"#;
    "listTables", TableAdmin, Read, admin::list_tables,
        "Lists the tables of the instance (names only unless a view asks for more).",
        r#"{"parent": "projects/p/instances/i", "view": "SCHEMA_VIEW"}"#;
    "deleteTable", TableAdmin, Write, admin::delete_table,
        "Deletes a table and all its data.",
        r#"{"name": "projects/p/instances/i/tables/t"}"#;
    "modifyColumnFamilies", TableAdmin, Write, admin::modify_column_families,
        "Creates, updates or drops column families, all or none.",
        r#"{"name": "projects/p/instances/i/tables/t", "modifications": [{"id": "cf2", "create": {"gcRule": {"maxAge": "86400s"}}}]}"#;
    "updateTable", TableAdmin, Write, change_stream::update_table,
        "Changes a table's change stream (sets its retention, 1 to 7 days, or, left out under the mask, turns it off) or its deletion protection.",
        r#"{"table": {"name": "projects/p/instances/i/tables/t", "changeStreamConfig": {"retentionPeriod": "86400s"}}, "updateMask": "changeStreamConfig"}"#;
    "dropRowRange", TableAdmin, Write, admin::drop_row_range,
        "Deletes every row with a key prefix, or every row.",
        r#"{"name": "projects/p/instances/i/tables/t", "rowKeyPrefix": "cGhvbmUj"}"#;
    "createAuthorizedView", TableAdmin, Write, authorized_views::create,
        "Creates an authorized view: a subset of a table (row prefixes, families, qualifiers).",
        r#"{"parent": "projects/p/instances/i/tables/t", "authorizedViewId": "v", "authorizedView": {"subsetView": {"rowPrefixes": ["cm93"], "familySubsets": {"cf": {"qualifierPrefixes": [""]}}}}}"#;
    "getAuthorizedView", TableAdmin, Read, authorized_views::get,
        "Describes an authorized view.",
        r#"{"name": "projects/p/instances/i/tables/t/authorizedViews/v"}"#;
    "listAuthorizedViews", TableAdmin, Read, authorized_views::list,
        "Lists a table's authorized views (names only unless a view asks for more).",
        r#"{"parent": "projects/p/instances/i/tables/t", "view": "BASIC"}"#;
    "updateAuthorizedView", TableAdmin, Write, authorized_views::update,
        "Changes an authorized view's subset or deletion protection.",
        r#"{"authorizedView": {"name": "projects/p/instances/i/tables/t/authorizedViews/v", "deletionProtection": true}, "updateMask": "deletionProtection"}"#;
    "deleteAuthorizedView", TableAdmin, Write, authorized_views::delete,
        "Deletes an authorized view (not its data).",
        r#"{"name": "projects/p/instances/i/tables/t/authorizedViews/v"}"#;
    "createLogicalView", InstanceAdmin, Write, logical_views::create,
        "Creates a logical view: a saved SQL query that queries read like a table.",
        r#"{"parent": "projects/p/instances/i", "logicalViewId": "lv", "logicalView": {"query": "SELECT _key, cf['q'] AS q FROM t"}}"#;
    "getLogicalView", InstanceAdmin, Read, logical_views::get,
        "Describes a logical view: its query, etag and deletion protection.",
        r#"{"name": "projects/p/instances/i/logicalViews/lv"}"#;
    "listLogicalViews", InstanceAdmin, Read, logical_views::list,
        "Lists the logical views of the instance.",
        r#"{"parent": "projects/p/instances/i"}"#;
    "updateLogicalView", InstanceAdmin, Write, logical_views::update,
        "Changes a logical view's query or deletion protection.",
        r#"{"logicalView": {"name": "projects/p/instances/i/logicalViews/lv", "query": "SELECT _key FROM t"}, "updateMask": "query"}"#;
    "deleteLogicalView", InstanceAdmin, Write, logical_views::delete,
        "Deletes a logical view (not the data it reads).",
        r#"{"name": "projects/p/instances/i/logicalViews/lv"}"#;
    "mutateRow", Data, Write, data::mutate_row,
        "Applies mutations to one row atomically.",
        r#"{"tableName": "projects/p/instances/i/tables/t", "rowKey": "cm93MQ==", "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": "-1", "value": "dg=="}}]}"#;
    "mutateRows", Data, Write, data::mutate_rows,
        "Applies mutations to many rows, each atomically; one status per entry.",
        r#"{"tableName": "projects/p/instances/i/tables/t", "entries": [{"rowKey": "cm93MQ==", "mutations": [{"deleteFromRow": {}}]}]}"#;
    "checkAndMutateRow", Data, Write, data::check_and_mutate_row,
        "Applies true or false mutations to a row depending on a filter.",
        r#"{"tableName": "projects/p/instances/i/tables/t", "rowKey": "cm93MQ==", "predicateFilter": {"familyNameRegexFilter": "cf"}, "trueMutations": [{"deleteFromRow": {}}]}"#;
    "readModifyWriteRow", Data, Write, data::read_modify_write_row,
        "Appends to or increments cells of one row atomically; returns the new cells.",
        r#"{"tableName": "projects/p/instances/i/tables/t", "rowKey": "cm93MQ==", "rules": [{"familyName": "cf", "columnQualifier": "bg==", "incrementAmount": "1"}]}"#;
    "readRows", Data, Read, data::read_rows,
        "Reads rows by keys and ranges, with a filter, a limit, forward or reversed.",
        r#"{"tableName": "projects/p/instances/i/tables/t", "rows": {"rowRanges": [{"startKeyClosed": "cm93"}]}, "rowsLimit": "10"}"#;
    "sampleRowKeys", Data, Read, data::sample_row_keys,
        "Returns row keys at tablet boundaries with byte offsets.",
        r#"{"tableName": "projects/p/instances/i/tables/t"}"#;
    "generateInitialChangeStreamPartitions", Data, Read, change_stream::generate_initial_partitions,
        "Lists the partitions to read a table's change stream by (one per tablet).",
        r#"{"tableName": "projects/p/instances/i/tables/t"}"#;
    "readChangeStream", Data, Read, change_stream::read_change_stream,
        "Reads a partition's recorded changes from a start time or token, up to now or an end time.",
        r#"{"tableName": "projects/p/instances/i/tables/t", "partition": {"rowRange": {}}, "startTime": "2024-01-01T00:00:00Z"}"#;
    "compact", Playground, Write, playground::compact,
        "Playground only: flushes and compacts one table (or all), applying due GC rules.",
        r#"{"tableName": "projects/p/instances/i/tables/t"}"#;
    "advanceClock", Playground, Write, playground::advance_clock,
        "Playground only: moves the instance clock forward and runs due engine work; {} reads it.",
        r#"{"seconds": 60}"#;
    "listTablets", Playground, Read, playground::list_tablets,
        "Playground only: lists a table's tablets with their memtables and runs.",
        r#"{"tableName": "projects/p/instances/i/tables/t"}"#;
    "sql", Playground, Write, sql::run_sql,
        "Playground only: runs one GoogleSQL statement (query, EXPLAIN, materialized views, row key schemas).",
        r#"{"instanceName": "projects/p/instances/i", "query": "SELECT _key FROM t LIMIT 10"}"#;
    "explain", Playground, Read, sql::explain,
        "Playground only: explains a SQL query or a ReadRows request (row set, filter, tablets, rows scanned vs returned).",
        r#"{"tableName": "projects/p/instances/i/tables/t", "rows": {"rowRanges": [{"startKeyClosed": "cm93"}]}}"#;
}

/// The method of this name, if the protocol has one.
pub fn method(name: &str) -> Option<&'static MethodInfo> {
    METHODS.iter().find(|m| m.name == name)
}

/// Whether `name` is a method that may change the instance (an unknown
/// name changes nothing: it is answered with an error).
pub fn may_write(name: &str) -> bool {
    method(name).is_some_and(|m| m.access == Access::Write)
}

/// Whether `name` is a method of Bigtable's own APIs (not one of the
/// playground's) that may change the instance: what a state log or a
/// journal must keep.
pub fn is_bigtable_write(name: &str) -> bool {
    method(name).is_some_and(|m| m.access == Access::Write && m.service != Service::Playground)
}

/// Whether `name` is a Bigtable write that changes only rows: the data
/// API's writes and DropRowRange. Every other Bigtable write changes the
/// schema (tables, families, views, table settings).
pub fn writes_rows_only(name: &str) -> bool {
    is_bigtable_write(name)
        && method(name).is_some_and(|m| m.service == Service::Data || m.name == "dropRowRange")
}

/// Methods of Bigtable's data and table admin APIs that the playground
/// does not offer; they answer `UNIMPLEMENTED` rather than "no such method".
const NOT_OFFERED: &[&str] = &[
    "pingAndWarm",
    "executeQuery",
    "prepareQuery",
    "createTableFromSnapshot",
    "undeleteTable",
    "generateConsistencyToken",
    "checkConsistency",
    "snapshotTable",
    "getSnapshot",
    "listSnapshots",
    "deleteSnapshot",
    "createBackup",
    "getBackup",
    "updateBackup",
    "deleteBackup",
    "listBackups",
    "copyBackup",
    "restoreTable",
    "getIamPolicy",
    "setIamPolicy",
    "testIamPermissions",
    "createSchemaBundle",
    "updateSchemaBundle",
    "getSchemaBundle",
    "listSchemaBundles",
    "deleteSchemaBundle",
];

/// Runs one request given as a method name and a JSON body, and returns the
/// answer body (the `X` of `{"response": X}`). This is the typed layer
/// under [`handle`], for callers that already hold JSON values.
pub fn handle_value(instance: &mut Instance, method: &str, request: &Value) -> Result<Value> {
    handle_value_traced(instance, method, request, &mut Traces::off())
}

/// [`handle_value`], recording the data operations the request made.
pub fn handle_value_traced(
    instance: &mut Instance,
    method: &str,
    request: &Value,
    traces: &mut Traces,
) -> Result<Value> {
    let Some(run) = handler(method) else {
        return Err(unknown_method(method));
    };
    // A missing body is the empty message, as in proto3.
    let empty = Value::Object(Map::new());
    let request = if request.is_null() { &empty } else { request };
    run(instance, &At::new("request", request), traces)
}

/// With [`tabletop_store::Fidelity::Emulator`]: `UNIMPLEMENTED` for a
/// part of the API the emulator does not offer (`what`).
fn not_on_emulator(db: &Instance, what: &str) -> Result<()> {
    if db.fidelity().is_emulator() {
        return Err(Error::unimplemented(format!(
            "the Bigtable emulator does not implement {what}"
        )));
    }
    Ok(())
}

fn unknown_method(method: &str) -> Error {
    if let Some(known) = NOT_OFFERED.iter().find(|m| m.eq_ignore_ascii_case(method)) {
        return Error::unimplemented(format!(
            "method {known} of Bigtable is not offered by the playground"
        ));
    }
    let names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
    match METHODS.iter().find(|m| m.name.eq_ignore_ascii_case(method)) {
        Some(m) => Error::invalid(format!(
            "method: unknown method \"{method}\"; did you mean \"{}\"?",
            m.name
        )),
        None => Error::invalid(format!(
            "method: unknown method \"{method}\"; the methods are {}",
            names.join(", ")
        )),
    }
}

/// Splits a request line into its method and request body.
fn parse_line(line: &str) -> Result<(String, Value)> {
    if line.trim().is_empty() {
        return Err(Error::invalid(
            "empty request line; send {\"method\": ..., \"request\": {...}}",
        ));
    }
    let v: Value = serde_json::from_str(line)
        .map_err(|e| Error::invalid(format!("the request line is not valid JSON: {e}")))?;
    let Value::Object(mut map) = v else {
        return Err(Error::invalid(
            "the request line must be a JSON object {\"method\": ..., \"request\": {...}}",
        ));
    };
    let method = match map.remove("method") {
        Some(Value::String(m)) => m,
        Some(other) => {
            return Err(Error::invalid(format!(
                "method: expected a string, got {other}"
            )));
        }
        None => return Err(Error::invalid("method: required field is missing")),
    };
    let request = match map.remove("request") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(r) => r,
    };
    if let Some(key) = map.keys().next() {
        return Err(Error::invalid(format!(
            "{key}: unknown field \"{key}\" in the request line; it has method, request"
        )));
    }
    Ok((method, request))
}

/// Wraps an answer into its line: `{"response": X}` or `{"error": {...}}`.
#[must_use]
pub fn answer_line(answer: &Result<Value>) -> String {
    let mut map = Map::new();
    match answer {
        Ok(v) => map.insert("response".into(), v.clone()),
        Err(e) => map.insert("error".into(), error_object(e)),
    };
    to_line(&Value::Object(map))
}

/// An answer line and whether it is a response rather than an error, so
/// a host tells the two apart without reading the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// `{"response": X}` or `{"error": {...}}`, without a newline.
    pub line: String,
    /// Whether the request succeeded (the line is a response).
    pub ok: bool,
}

impl Answer {
    fn of(answer: &Result<Value>) -> Answer {
        Answer {
            line: answer_line(answer),
            ok: answer.is_ok(),
        }
    }
}

/// Runs one request line and returns one answer line (without a newline).
///
/// ```
/// use tabletop_core::{Instance, api};
///
/// let mut db = Instance::default();
/// let out = api::handle(&mut db, r#"{"method": "listTables", "request": {"parent": "projects/p/instances/i"}}"#);
/// assert_eq!(out, r#"{"response":{}}"#);
/// ```
pub fn handle(instance: &mut Instance, line: &str) -> String {
    handle_traced(instance, line, &mut Traces::off())
}

/// [`handle`], also handing back what the request did: the [`Trace`] of
/// each data operation it made (readRows, mutateRow(s),
/// checkAndMutateRow, readModifyWriteRow, dropRowRange, sampleRowKeys, and
/// the read of a `sql` or `explain` query) is added to `traces`; a request
/// that failed adds none. Hosts report reads from these (rows and cells
/// seen and returned, tablets visited) without asking for
/// `requestStatsView` or parsing the answer.
///
/// ```
/// use tabletop_core::{Instance, TraceOptions, Traces, api};
///
/// let mut db = Instance::default();
/// api::handle(&mut db, r#"{"method": "createTable", "request": {"parent": "projects/p/instances/i", "tableId": "t", "table": {"columnFamilies": {"cf": {}}}}}"#);
/// let mut traces = Traces::new(TraceOptions::default());
/// api::handle_traced(&mut db, r#"{"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/t"}}"#, &mut traces);
/// let read = traces.last_read().unwrap();
/// assert_eq!((read.read.rows_seen, read.tablet_count), (0, 1));
/// ```
pub fn handle_traced(instance: &mut Instance, line: &str, traces: &mut Traces) -> String {
    handle_capped(instance, line, traces, usize::MAX)
}

/// [`handle_traced`] with a cap on the answer: a readRows whose rows would
/// take more than `max_answer_bytes` of JSON text stops reading there and
/// answers `RESOURCE_EXHAUSTED` (asking for fewer rows at a time), so an
/// answer too big for the host is never built.
pub fn handle_capped(
    instance: &mut Instance,
    line: &str,
    traces: &mut Traces,
    max_answer_bytes: usize,
) -> String {
    answer_capped(instance, line, traces, max_answer_bytes).line
}

/// [`handle_traced`], handing back whether the request succeeded with its
/// answer line.
pub fn answer_traced(instance: &mut Instance, line: &str, traces: &mut Traces) -> Answer {
    answer_capped(instance, line, traces, usize::MAX)
}

/// [`handle_capped`], handing back whether the request succeeded with its
/// answer line.
pub fn answer_capped(
    instance: &mut Instance,
    line: &str,
    traces: &mut Traces,
    max_answer_bytes: usize,
) -> Answer {
    if let Some(answer) = fast::try_handle(instance, line, traces) {
        return answer;
    }
    general(instance, line, traces, max_answer_bytes)
}

/// [`handle`] for a host that keeps several instances: the request goes to
/// the instance its resource name spells (`parent`, `name`, `tableName`,
/// `authorizedViewName`, `instanceName`, or the `name` of an
/// `authorizedView`), made when first named; a request naming none (such
/// as `advanceClock`) goes to the primary instance. Afterwards every
/// clock is brought to the latest and instances left holding nothing are
/// forgotten (see [`Instances`]).
///
/// ```
/// use tabletop_core::{Instances, api};
///
/// let mut all = Instances::default();
/// let create = r#"{"method": "createTable", "request": {"parent": "projects/p/instances/other", "tableId": "e"}}"#;
/// assert!(api::handle_in(&mut all, create).starts_with(r#"{"response""#));
/// let list = r#"{"method": "listTables", "request": {"parent": "projects/p/instances/i"}}"#;
/// assert_eq!(api::handle_in(&mut all, list), r#"{"response":{}}"#);
/// ```
pub fn handle_in(instances: &mut Instances, line: &str) -> String {
    handle_in_traced(instances, line, &mut Traces::off())
}

/// [`handle_in`], recording the data operations the request made (see
/// [`handle_traced`]).
pub fn handle_in_traced(instances: &mut Instances, line: &str, traces: &mut Traces) -> String {
    let answer = match routed_instance(line) {
        Some((project, instance)) => match instances.select(&project, &instance) {
            Ok(db) => handle_traced(db, line, traces),
            Err(e) => answer_line(&Err(e)),
        },
        None => handle_traced(instances.primary_mut(), line, traces),
    };
    instances.prune();
    instances.sync_clocks();
    answer
}

/// The project and instance ids of the resource a request line names
/// (`parent`, `name`, `tableName`, `authorizedViewName`, `instanceName`, or
/// an `authorizedView`'s `name`), if it names one: the instance
/// [`handle_in`] sends it to. Read without building the request's JSON
/// tree, so bulk writes stay cheap.
#[must_use]
pub fn instance_of_line(line: &str) -> Option<(String, String)> {
    routed_instance(line)
}

/// Whether a request line is sent to an authorized view
/// (`authorizedViewName`), read as cheaply as [`instance_of_line`].
#[must_use]
pub fn addresses_authorized_view(line: &str) -> bool {
    line_names(line).is_some_and(|n| n.authorized_view_name.is_some())
}

/// The resource names a request line may carry.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct LineNames {
    parent: Option<String>,
    name: Option<String>,
    #[serde(alias = "table_name")]
    table_name: Option<String>,
    #[serde(alias = "authorized_view_name")]
    authorized_view_name: Option<String>,
    #[serde(alias = "instance_name")]
    instance_name: Option<String>,
    #[serde(alias = "authorized_view")]
    authorized_view: Option<NameOnly>,
    #[serde(alias = "logical_view")]
    logical_view: Option<NameOnly>,
}

#[derive(serde::Deserialize)]
struct NameOnly {
    name: Option<String>,
}

/// The names of a request line's body, without building its JSON tree.
fn line_names(line: &str) -> Option<LineNames> {
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        request: Option<&'a serde_json::value::RawValue>,
    }
    let envelope: Envelope<'_> = serde_json::from_str(line).ok()?;
    serde_json::from_str(envelope.request?.get()).ok()
}

fn routed_instance(line: &str) -> Option<(String, String)> {
    let names = line_names(line)?;
    let name = [
        names.parent,
        names.name,
        names.table_name,
        names.authorized_view_name,
        names.instance_name,
        names.authorized_view.and_then(|v| v.name),
        names.logical_view.and_then(|v| v.name),
    ]
    .into_iter()
    .flatten()
    .next()?;
    let (p, i) = names::instance_ids(&name)?;
    Some((p.to_string(), i.to_string()))
}

/// The bulk-write fast path alone: `None` when it declines the line (for
/// testing that it is taken).
#[doc(hidden)]
pub fn handle_fast(instance: &mut Instance, line: &str) -> Option<String> {
    fast::try_handle(instance, line, &mut Traces::off()).map(|a| a.line)
}

/// [`handle`] without the bulk-write fast path (for comparing the two).
#[doc(hidden)]
pub fn handle_general(instance: &mut Instance, line: &str) -> String {
    general(instance, line, &mut Traces::off(), usize::MAX).line
}

fn general(instance: &mut Instance, line: &str, traces: &mut Traces, cap: usize) -> Answer {
    match parse_line(line) {
        // Rows are written out as they stream, not built as one tree.
        Ok((method, request)) if method == "readRows" => {
            let empty = Value::Object(Map::new());
            let request = if request.is_null() { &empty } else { &request };
            match data::read_rows_line(instance, &At::new("request", request), traces, cap) {
                Ok(line) => Answer { line, ok: true },
                Err(e) => Answer::of(&Err(e)),
            }
        }
        parsed => Answer::of(&parsed.and_then(|(method, request)| {
            handle_value_traced(instance, &method, &request, traces)
        })),
    }
}

/// Reads a ReadRows request body (`{"tableName", "rows", "filter",
/// "rowsLimit", "reversed", ...}`) as `readRows` does: the table id and
/// the request. The one decoder of ReadRowsRequest JSON (the console and
/// the lessons use it too).
///
/// A request sent to an authorized view (`authorizedViewName`) is refused
/// here: the view's subset is applied only by the instance's own read
/// ([`handle`], [`handle_value`]), and a host running the read itself
/// would read the whole table.
pub fn read_rows_request(request: &Value) -> Result<(String, ReadRowsRequest)> {
    let (table, req, _) = read_rows_request_full(request)?;
    Ok((table, req))
}

/// [`read_rows_request`], also saying whether the request asks for
/// `requestStatsView: REQUEST_STATS_FULL` (then the answer carries
/// [`read_stats_to_json`] as `requestStats`). For hosts that run the read
/// themselves (the JS API streams rows into its own format).
pub fn read_rows_request_full(request: &Value) -> Result<(String, ReadRowsRequest, bool)> {
    let (table, req, full_stats) = data::read_rows_request(
        &At::new("request", request),
        tabletop_store::Fidelity::Production,
    )?;
    if table.view.is_some() {
        return Err(Error::failed_precondition(
            "a read through an authorized view is answered only by the instance's own readRows \
             (handle); this host reads tables itself",
        ));
    }
    Ok((table.table.table_id, req, full_stats))
}

/// The `requestStats` of a readRows answer: `{"fullReadStatsView":
/// {"readIterationStats": {...}}}` with the counts as int64 strings.
#[must_use]
pub fn read_stats_to_json(stats: &ReadStats) -> Value {
    data::request_stats(stats)
}

/// The `{"code", "status", "message"}` object an answer line carries under
/// `"error"`.
#[must_use]
pub fn error_to_json(e: &Error) -> Value {
    error_object(e)
}

/// The read a request line makes, if it is a valid `readRows`: its table
/// id and request.
#[must_use]
pub fn read_rows_request_of_line(line: &str) -> Option<(String, ReadRowsRequest)> {
    match parse_line(line) {
        Ok((method, request)) if method == "readRows" => read_rows_request(&request).ok(),
        _ => None,
    }
}

/// A trace as JSON, for hosts that speak JSON (the JS API): the operation,
/// table, request shape, what was seen and returned, tablets visited and
/// what was written. Byte strings are base64, as in the protocol;
/// counts are numbers.
#[must_use]
pub fn trace_to_json(t: &Trace) -> Value {
    let mut m = Map::new();
    let n = |v: u64| Value::from(v);
    m.insert("operation".into(), Value::from(t.operation.name()));
    m.insert("table".into(), Value::from(t.table.as_str()));
    m.insert("tabletCount".into(), Value::from(t.tablet_count));
    m.insert(
        "tabletsVisited".into(),
        Value::Array(t.read.tablets.iter().map(|&id| n(id)).collect()),
    );
    if t.is_read() || t.request.row_keys > 0 {
        let r = &t.request;
        m.insert("shape".into(), Value::from(r.shape().name()));
        m.insert("rowKeys".into(), Value::from(r.row_keys));
        m.insert("rowRanges".into(), Value::from(r.row_ranges));
        m.insert(
            "ranges".into(),
            Value::Array(
                r.ranges
                    .iter()
                    .map(|k| Value::from(tabletop_store::range_text(k)))
                    .collect(),
            ),
        );
        m.insert("filtered".into(), Value::from(r.filtered));
        m.insert("reversed".into(), Value::from(r.reversed));
        m.insert("rowsLimit".into(), Value::from(r.rows_limit));
    }
    let s = &t.read;
    m.insert("rowsSeen".into(), n(s.rows_seen));
    m.insert("rowsReturned".into(), n(s.rows_returned));
    m.insert("cellsSeen".into(), n(s.cells_seen));
    m.insert("cellsReturned".into(), n(s.cells_returned));
    m.insert("bytesSeen".into(), n(s.bytes_seen));
    m.insert("bytesReturned".into(), n(s.bytes_returned));
    if !t.returned_keys.is_empty() {
        m.insert(
            "returnedKeys".into(),
            Value::Array(
                t.returned_keys
                    .iter()
                    .map(|k| Value::from(encode_base64(k)))
                    .collect(),
            ),
        );
    }
    let w = &t.write;
    m.insert("rowsWritten".into(), n(w.rows));
    m.insert("mutations".into(), n(w.mutations));
    m.insert("cellsWritten".into(), n(w.cells));
    m.insert("bytesWritten".into(), n(w.bytes));
    if !w.keys.is_empty() {
        m.insert(
            "writtenKeys".into(),
            Value::Array(
                w.keys
                    .iter()
                    .map(|k| Value::from(encode_base64(k)))
                    .collect(),
            ),
        );
    }
    if let Some(d) = &w.dropped {
        m.insert("dropped".into(), Value::from(tabletop_store::range_text(d)));
    }
    if w.failed_entries > 0 {
        m.insert("failedEntries".into(), n(w.failed_entries));
    }
    if let Some(matched) = t.predicate_matched {
        m.insert("predicateMatched".into(), Value::from(matched));
    }
    Value::Object(m)
}

/// Reads a `google.bigtable.v2.RowFilter` from proto3 JSON.
pub fn row_filter_from_json(filter: &Value) -> Result<RowFilter> {
    data::row_filter_from_json(&At::new("filter", filter), 0)
}

/// Reads a `google.bigtable.v2.Mutation` from proto3 JSON.
pub fn mutation_from_json(mutation: &Value) -> Result<Mutation<'static>> {
    data::mutation_from_json(&At::new("mutation", mutation))
}

/// Writes a row as the proto3 JSON of `google.bigtable.v2.Row`.
#[must_use]
pub fn row_to_json(row: &OwnedRow) -> Value {
    data::row_to_json(row)
}

/// Reads a `google.bigtable.admin.v2.GcRule` from proto3 JSON; `{}` is no
/// rule.
pub fn gc_rule_from_json(rule: &Value) -> Result<Option<GcRule>> {
    admin::gc_rule_from_json(
        &At::new("gcRule", rule),
        0,
        tabletop_store::Fidelity::Production,
    )
}

/// Writes a GC rule as the proto3 JSON of `google.bigtable.admin.v2.GcRule`.
#[must_use]
pub fn gc_rule_to_json(rule: &GcRule) -> Value {
    admin::gc_rule_to_json(rule)
}

/// Encodes bytes as proto3 JSON writes `bytes` (standard base64, padded).
#[must_use]
pub fn encode_base64(bytes: &[u8]) -> String {
    tabletop_store::base64_text::encode(bytes)
}

/// Decodes base64 as proto3 JSON reads `bytes` (standard or URL-safe,
/// padding optional).
pub fn decode_base64(text: &str) -> Result<Vec<u8>> {
    tabletop_store::base64_text::decode(text)
        .map_err(|e| Error::invalid(format!("invalid base64: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_store::Code;

    #[test]
    fn an_answer_says_whether_it_is_a_response_on_either_path() {
        let mut db = Instance::default();
        let t = "projects/p/instances/i/tables/t";
        let mut ask = |line: String| answer_traced(&mut db, &line, &mut Traces::off());
        let made = ask(
            r#"{"method":"createTable","request":{"parent":"projects/p/instances/i","tableId":"t","table":{"columnFamilies":{"cf":{}}}}}"#
                .to_string(),
        );
        assert!(
            made.ok && made.line.starts_with(r#"{"response""#),
            "{made:?}"
        );
        // mutateRow takes the fast path; a missing family fails there.
        let set = |fam: &str| {
            format!(
                r#"{{"method":"mutateRow","request":{{"tableName":"{t}","rowKey":"aw==","mutations":[{{"setCell":{{"familyName":"{fam}","columnQualifier":"cQ==","value":"dg=="}}}}]}}}}"#
            )
        };
        assert!(ask(set("cf")).ok);
        let bad = ask(set("nope"));
        assert!(!bad.ok && bad.line.starts_with(r#"{"error""#), "{bad:?}");
        let read = ask(format!(
            r#"{{"method":"readRows","request":{{"tableName":"{t}"}}}}"#
        ));
        assert!(read.ok, "{read:?}");
        let missing = ask(
            r#"{"method":"readRows","request":{"tableName":"projects/p/instances/i/tables/x"}}"#
                .into(),
        );
        assert!(!missing.ok, "{missing:?}");
        assert!(!ask("not json".into()).ok);
    }

    #[test]
    fn bigtable_writes_split_into_row_writes_and_schema_changes() {
        let rows: Vec<&str> = METHODS
            .iter()
            .map(|m| m.name)
            .filter(|n| writes_rows_only(n))
            .collect();
        assert_eq!(
            rows,
            [
                "dropRowRange",
                "mutateRow",
                "mutateRows",
                "checkAndMutateRow",
                "readModifyWriteRow"
            ]
        );
        for schema in [
            "createTable",
            "updateTable",
            "deleteAuthorizedView",
            "createLogicalView",
        ] {
            assert!(
                is_bigtable_write(schema) && !writes_rows_only(schema),
                "{schema}"
            );
        }
        for not_kept in [
            "readRows",
            "getTable",
            "compact",
            "advanceClock",
            "sql",
            "nope",
        ] {
            assert!(!is_bigtable_write(not_kept), "{not_kept}");
        }
    }

    #[test]
    fn request_lines_are_checked() {
        let mut db = Instance::default();
        let err = |line: &str| {
            let out: Value = serde_json::from_str(&handle(&mut Instance::default(), line)).unwrap();
            out["error"]["message"].as_str().unwrap().to_string()
        };
        assert!(err("").contains("empty request line"));
        assert!(err("{").contains("not valid JSON"));
        assert!(err("[]").contains("must be a JSON object"));
        assert!(err(r#"{"request": {}}"#).contains("method: required"));
        assert!(err(r#"{"method": 1}"#).contains("method: expected a string"));
        assert!(err(r#"{"method": "listTables", "x": 1}"#).contains("unknown field \"x\""));
        assert!(err(r#"{"method": "ReadRows"}"#).contains("did you mean \"readRows\""));
        assert!(err(r#"{"method": "frobnicate"}"#).contains("the methods are createTable"));
        let out = handle(&mut db, r#"{"method": "executeQuery", "request": {}}"#);
        assert!(
            out.starts_with(r#"{"error":{"code":12,"message":"method executeQuery"#),
            "{out}"
        );
    }

    #[test]
    fn every_method_has_a_handler_and_a_valid_example() {
        for m in METHODS {
            assert!(handler(m.name).is_some(), "{}", m.name);
            let v: Value = serde_json::from_str(m.example).unwrap();
            assert!(v.is_object(), "{}", m.name);
        }
        assert_eq!(
            handle_value(&mut Instance::default(), "nope", &Value::Null)
                .unwrap_err()
                .code(),
            Code::InvalidArgument
        );
    }

    #[test]
    fn errors_have_code_status_message() {
        let line = answer_line(&Err(Error::not_found("table \"t\" not found")));
        assert_eq!(
            line,
            r#"{"error":{"code":5,"message":"table \"t\" not found","status":"NOT_FOUND"}}"#
        );
    }

    #[test]
    fn a_read_answer_past_the_cap_is_refused_before_it_is_built() {
        let mut db = Instance::default();
        crate::cbt::run_line(&mut db, "createtable t families=cf").unwrap();
        for i in 0..100 {
            crate::cbt::run_line(&mut db, &format!("set t r{i:03} cf:q=0123456789")).unwrap();
        }
        let line = r#"{"method": "readRows", "request": {"tableName": "projects/p/instances/i/tables/t"}}"#;
        let whole = handle(&mut db, line);
        let mut traces = Traces::off();
        assert_eq!(
            handle_capped(&mut db, line, &mut traces, whole.len()),
            whole
        );
        let out = handle_capped(&mut db, line, &mut traces, 1000);
        assert!(
            out.starts_with(r#"{"error":{"code":8,"message":"the readRows answer would be larger than 1000 bytes"#),
            "{out}"
        );
        assert!(out.contains("RESOURCE_EXHAUSTED"), "{out}");
    }
}
