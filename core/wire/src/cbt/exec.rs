//! Running one `cbt` command: argument checks in `cbt`'s order and words,
//! the request it sends, and what it prints.
//!
//! Each `do_*` function mirrors one `cbt` command. A command either
//! finishes (`Ok`) or stops with a [`Fatal`]: the line `cbt` passes to Go's
//! `log.Fatal` (printed on stderr, exit status 1) and the status code the
//! playground reports for it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::csv::{CsvError, CsvReader, Record, read_one};
use super::defs::{self, Kind};
use super::format::{print_row, print_stats, value_type_json};
use super::gcpolicy::{self, parse_duration};
use super::gostr::{atoi, format_rfc3339, parse_bool, parse_int, parse_rfc3339, quote, tabwrite};
use super::valuefmt::ValueFormatting;
use super::{Host, Outcome};
use tabletop_sql::Instance;
use tabletop_store::RowFilter;
use tabletop_store::{AggregateInput, Mutation};
use tabletop_store::{Aggregator, ColumnFamily, FamilyChange, TableSchema, ValueType};
use tabletop_store::{Cause, Code, Error, Place};
use tabletop_store::{CellView, ReadStats, RowView};
use tabletop_store::{CreateTableRequest, DropTarget, MutateRowsEntry, ReadRowsRequest, Traces};
use tabletop_store::{KeyBound, RowRange, RowSet};

/// A command that stopped: what `cbt` logs before exiting with status 1.
#[derive(Debug)]
pub(crate) struct Fatal {
    code: Code,
    message: String,
    /// A global flag Go's flag package refuses (exit status 2).
    flag: bool,
}

impl Fatal {
    /// A mistake on the command line (`cbt` exits before sending anything).
    fn usage(message: impl Into<String>) -> Fatal {
        Fatal::new(Code::InvalidArgument, message)
    }

    /// A global flag Go's flag package refuses, before `cbt` runs at all.
    fn bad_flag(message: impl Into<String>) -> Fatal {
        Fatal {
            flag: true,
            ..Fatal::usage(message)
        }
    }

    fn new(code: Code, message: impl Into<String>) -> Fatal {
        Fatal {
            code,
            message: message.into(),
            flag: false,
        }
    }
}

type CmdResult = Result<(), Fatal>;

/// The state of one command run.
struct Ctx<'a> {
    instance: &'a mut Instance,
    host: &'a mut dyn Host,
    /// Where the data operations the command makes are recorded.
    traces: &'a mut Traces,
    out: Vec<u8>,
    err: Vec<u8>,
    /// Rows read but not printed (past the host's output limit).
    rows_not_printed: u64,
}

/// The name grpc-go gives a status code (`rpc error: code = NotFound`).
fn go_code_name(code: Code) -> &'static str {
    match code {
        Code::Cancelled => "Canceled",
        Code::Unknown => "Unknown",
        Code::InvalidArgument => "InvalidArgument",
        Code::NotFound => "NotFound",
        Code::AlreadyExists => "AlreadyExists",
        Code::PermissionDenied => "PermissionDenied",
        Code::Aborted => "Aborted",
        Code::ResourceExhausted => "ResourceExhausted",
        Code::FailedPrecondition => "FailedPrecondition",
        Code::OutOfRange => "OutOfRange",
        Code::Unimplemented => "Unimplemented",
        Code::Internal => "Internal",
        // `Code` may grow (it is non-exhaustive); grpc-go calls what it
        // does not know Unknown.
        _ => "Unknown",
    }
}

/// Lossy text of an argument, for names the engine takes as `&str`.
fn text(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// Go's `%s` of a `[]string`: `[a b c]`.
fn go_list(args: &[&[u8]]) -> String {
    let parts: Vec<Cow<'_, str>> = args.iter().map(|a| text(a)).collect();
    format!("[{}]", parts.join(" "))
}

/// `strings.Split(arg, "=")[1]`: the text between the first and second `=`.
fn second_field(arg: &[u8]) -> &[u8] {
    let mut parts = arg.split(|&b| b == b'=');
    parts.next();
    parts.next().unwrap_or(b"")
}

impl Ctx<'_> {
    fn println(&mut self, s: impl AsRef<[u8]>) {
        self.out.extend_from_slice(s.as_ref());
        self.out.push(b'\n');
    }

    /// Go's `log.Printf`: one entry on stderr.
    fn log(&mut self, s: impl AsRef<[u8]>) {
        let s = s.as_ref();
        self.err.extend_from_slice(s);
        if !s.ends_with(b"\n") {
            self.err.push(b'\n');
        }
    }

    /// The full resource name of a table, as the server spells it.
    fn table_name(&self, id: &str) -> String {
        format!("{}/tables/{id}", self.instance.name())
    }

    /// The status message as `cbt` shows it: the playground's message, with
    /// table ids spelled as full resource names as the server does, and the
    /// server's wording for a few messages (see the module docs).
    fn describe(&self, e: &Error) -> String {
        match e.cause() {
            // An id with a quote in it is left as the core words it.
            Some(Cause::TableNotFound { table }) if !table.contains('"') => {
                return format!("table \"{}\" not found", self.table_name(table));
            }
            Some(Cause::TableExists { table }) if !table.contains('"') => {
                return format!("table \"{}\" already exists", self.table_name(table));
            }
            Some(Cause::FamilyExists { family }) => {
                return format!("family \"{family}\" already exists");
            }
            Some(Cause::NoMutations) => return "No mutations provided".to_string(),
            Some(Cause::EmptyRowKey) => return "Row keys must be non-empty".to_string(),
            _ => {}
        }
        // The server does not name the one change `cbt` sends.
        match e.place() {
            Some(Place::Modification(0)) => e.message_within_place().to_string(),
            _ => e.message().to_string(),
        }
    }

    /// `log.Fatalf("<what>: %v", err)` for an error the server returned.
    fn rpc(&self, what: &str, e: &Error) -> Fatal {
        Fatal::new(e.code(), format!("{what}: {}", self.rpc_text(e)))
    }

    /// grpc-go's `rpc error: code = X desc = Y`.
    fn rpc_text(&self, e: &Error) -> String {
        format!(
            "rpc error: code = {} desc = {}",
            go_code_name(e.code()),
            self.describe(e)
        )
    }

    /// `bigtable.Now()`: the clock truncated to milliseconds.
    /// MutateRow, recorded in the command's traces.
    fn mutate_row(&mut self, table: &str, row: &[u8], muts: &[Mutation<'_>]) -> Result<(), Error> {
        self.mutate_row_in(table, None, row, muts)
    }

    /// MutateRow to a table, or through one of its authorized views.
    fn mutate_row_in(
        &mut self,
        table: &str,
        view: Option<&str>,
        row: &[u8],
        muts: &[Mutation<'_>],
    ) -> Result<(), Error> {
        let instance = &mut *self.instance;
        self.traces.record(|t| match view {
            None => instance.mutate_row_traced(table, row, muts, t),
            Some(v) => instance.mutate_row_in_view_traced(table, v, row, muts, t),
        })
    }

    fn now_millis(&self) -> i64 {
        let now = self.instance.now_micros();
        now - now.rem_euclid(1000)
    }
}

/// Runs one command (arguments without the program name).
pub(crate) fn run(
    instance: &mut Instance,
    host: &mut dyn Host,
    args: &[&[u8]],
    traces: &mut Traces,
) -> Outcome {
    let mut ctx = Ctx {
        instance,
        host,
        traces,
        out: Vec::new(),
        err: Vec::new(),
        rows_not_printed: 0,
    };
    let status = dispatch(&mut ctx, args);
    let mut flag_error = false;
    let status = match status {
        Ok(()) => Ok(()),
        Err(f) => {
            ctx.log(&f.message);
            flag_error = f.flag;
            Err(Error::new(f.code, f.message))
        }
    };
    Outcome {
        stdout: ctx.out,
        stderr: ctx.err,
        status,
        rows_not_printed: ctx.rows_not_printed,
        flag_error,
    }
}

/// `cbt`'s global flags that take a value; the playground accepts and
/// ignores them, so commands pasted from documentation work.
const VALUE_FLAGS: &[&str] = &[
    "project",
    "instance",
    "creds",
    "admin-endpoint",
    "data-endpoint",
    "auth-token",
    "timeout",
    "user-agent",
    "access-token",
    "cert-file",
];

/// The words of a command past a leading `cbt` and `cbt`'s global flags,
/// as Go's flag package reads them: -name value, -name=value, with one or
/// two dashes, up to the first non-flag.
fn command_words<'a, 'b>(args: &'a [&'b [u8]]) -> Result<&'a [&'b [u8]], Fatal> {
    let mut args = args;
    if args.first() == Some(&&b"cbt"[..]) {
        args = &args[1..];
    }
    while let Some(&first) = args.first() {
        if first.len() < 2 || first[0] != b'-' {
            break;
        }
        if first == b"--" {
            args = &args[1..];
            break;
        }
        let name = first.strip_prefix(b"--").unwrap_or(&first[1..]);
        let (name, inline) = match name.iter().position(|&b| b == b'=') {
            Some(i) => (&name[..i], true),
            None => (name, false),
        };
        let name = text(name).into_owned();
        if name == "o" {
            return Err(Fatal::new(
                Code::Unimplemented,
                "-o (redirect stdout to a file) is not supported by the Tabletop playground",
            ));
        }
        if !VALUE_FLAGS.contains(&name.as_str()) {
            return Err(Fatal::bad_flag(format!(
                "flag provided but not defined: -{name}"
            )));
        }
        if inline {
            args = &args[1..];
        } else if args.len() >= 2 {
            args = &args[2..];
        } else {
            return Err(Fatal::bad_flag(format!("flag needs an argument: -{name}")));
        }
    }
    Ok(args)
}

/// The values of the `-project` and `-instance` global flags before the
/// command word (the last of each, as Go's flag package keeps them).
pub(crate) fn global_names(args: &[&[u8]]) -> (Option<String>, Option<String>) {
    let mut names = (None, None);
    let mut rest = args;
    if rest.first() == Some(&&b"cbt"[..]) {
        rest = &rest[1..];
    }
    while let Some(&first) = rest.first() {
        if first.len() < 2 || first[0] != b'-' || first == b"--" {
            break;
        }
        let name = first.strip_prefix(b"--").unwrap_or(&first[1..]);
        let (name, value, used) = match name.iter().position(|&b| b == b'=') {
            Some(i) => (&name[..i], Some(&name[i + 1..]), 1),
            None => (name, rest.get(1).copied(), 2),
        };
        let value = value.map(|v| text(v).into_owned());
        match name {
            b"project" => names.0 = value,
            b"instance" => names.1 = value,
            _ => {}
        }
        rest = rest.get(used..).unwrap_or(&[]);
    }
    names
}

fn dispatch(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let args = command_words(args)?;
    let Some((&name, rest)) = args.split_first() else {
        ctx.err.extend(defs::summary());
        return Err(Fatal::usage("no command given; try \"help\""));
    };
    let Some(def) = defs::find(name) else {
        return Err(Fatal::usage(format!("Unknown command {}", quote(name))));
    };
    match def.name {
        "addtocell" => do_set(ctx, rest, true),
        "count" => do_count(ctx, rest),
        "createfamily" => do_create_family(ctx, rest),
        "createtable" => do_create_table(ctx, rest),
        "deleteallrows" => do_delete_all_rows(ctx, rest),
        "deletecolumn" => do_delete_column(ctx, rest),
        "deletefamily" => do_delete_family(ctx, rest),
        "deleterow" => do_delete_row(ctx, rest),
        "deletetable" => do_delete_table(ctx, rest),
        "help" => do_help(ctx, rest),
        "import" => do_import(ctx, rest),
        "lookup" => do_lookup(ctx, rest),
        "ls" => do_ls(ctx, rest),
        "read" => do_read(ctx, rest),
        "set" => do_set(ctx, rest, false),
        "setgcpolicy" => do_set_gc_policy(ctx, rest),
        "compact" => do_compact(ctx, rest),
        "clock" => do_clock(ctx, rest),
        other => Err(unavailable(other)),
    }
}

fn unavailable(name: &str) -> Fatal {
    Fatal::new(
        Code::Unimplemented,
        format!(
            "cbt {name} is not available in the Tabletop playground: it has one instance, \
             without clusters, app profiles or replication"
        ),
    )
}

/// `cbt`'s `parseArgs`: `key=value` arguments with keys from `valid`; the
/// last of repeated keys wins.
fn parse_args<'a>(args: &[&'a [u8]], valid: &[&str]) -> Result<BTreeMap<String, &'a [u8]>, Fatal> {
    let mut parsed = BTreeMap::new();
    for &arg in args {
        let Some(i) = arg.iter().position(|&b| b == b'=') else {
            return Err(Fatal::usage(format!("bad arg {}", quote(arg))));
        };
        let key = &arg[..i];
        if !valid.iter().any(|v| v.as_bytes() == key) {
            return Err(Fatal::usage(format!("unknown arg key {}", quote(key))));
        }
        parsed.insert(text(key).into_owned(), &arg[i + 1..]);
    }
    Ok(parsed)
}

/// A non-empty option value.
fn opt<'a>(parsed: &BTreeMap<String, &'a [u8]>, key: &str) -> Option<&'a [u8]> {
    parsed.get(key).copied().filter(|v| !v.is_empty())
}

// ---------------------------------------------------------------------------
// Writes: set, addtocell, deletecolumn, deleterow, deleteallrows.

/// `cbt`'s `([^:]+):([^=]*)=(.*)` on a `set` argument, found anywhere in it
/// as Go's `FindStringSubmatch` would: family, qualifier, value. `.` does
/// not match a newline, so the value ends at the first one.
fn match_set_arg(arg: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let mut p = 0;
    while p < arg.len() {
        if arg[p] == b':' {
            p += 1;
            continue;
        }
        let colon = p + arg[p..].iter().position(|&b| b == b':')?;
        if let Some(eq) = arg[colon + 1..].iter().position(|&b| b == b'=') {
            let eq = colon + 1 + eq;
            let value = &arg[eq + 1..];
            let end = value
                .iter()
                .position(|&b| b == b'\n')
                .unwrap_or(value.len());
            return Some((&arg[p..colon], &arg[colon + 1..eq], &value[..end]));
        }
        // No '=' after the first colon: no later start can match either.
        return None;
    }
    None
}

/// `set` and `addtocell`.
fn do_set(ctx: &mut Ctx<'_>, args: &[&[u8]], add: bool) -> CmdResult {
    if args.len() < 3 {
        return Err(Fatal::usage(if add {
            "usage: cbt addtocell <table> <row> [app-profile=<app profile id>] family:[column]=val[@ts] ..."
        } else {
            "usage: cbt set <table> <row> [authorized-view=<authorized-view-id>] [app-profile=<app profile id>] family:[column]=val[@ts] ..."
        }));
    }
    let table = text(args[0]).into_owned();
    let row = args[1];
    let mut authorized_view: &[u8] = b"";
    let mut muts: Vec<Mutation<'_>> = Vec::new();
    for &arg in &args[2..] {
        if arg.starts_with(b"app-profile=") {
            continue;
        }
        if !add && arg.starts_with(b"authorized-view=") {
            authorized_view = second_field(arg);
            continue;
        }
        let Some((family, qualifier, mut value)) = match_set_arg(arg) else {
            return Err(Fatal::usage(format!("Bad set arg {}", quote(arg))));
        };
        let mut ts = ctx.now_millis();
        if let Some(i) = value.iter().rposition(|&b| b == b'@')
            && let Ok(n) = parse_int(&value[i + 1..], 0)
        {
            value = &value[..i];
            ts = truncate_to_millis(n);
        }
        let family_name = Cow::Owned(text(family).into_owned());
        if add {
            let Ok(n) = parse_int(value, 0) else {
                return Err(Fatal::usage("Only int values are supported by addtocell."));
            };
            muts.push(Mutation::AddToCell {
                family_name,
                column_qualifier: Cow::Borrowed(qualifier),
                timestamp_micros: ts,
                input: AggregateInput::Int(n),
            });
        } else {
            muts.push(Mutation::SetCell {
                family_name,
                column_qualifier: Cow::Borrowed(qualifier),
                timestamp_micros: ts,
                value: Cow::Borrowed(value),
            });
        }
    }
    let view = (!authorized_view.is_empty()).then(|| text(authorized_view).into_owned());
    ctx.mutate_row_in(&table, view.as_deref(), row, &muts)
        .map_err(|e| ctx.rpc("Applying mutation", &e))
}

/// A cell timestamp as `cbt` sends it: the Go client truncates every
/// timestamp but the server's (-1) to milliseconds before the request
/// leaves, so `@1999` writes at 1000 on any server.
fn truncate_to_millis(micros: i64) -> i64 {
    if micros == -1 {
        micros
    } else {
        micros - micros % 1000
    }
}

/// The optional `app-profile=` argument of `deleterow` / `deletecolumn`.
fn check_app_profile(args: &[&[u8]], at: usize, usage: &str) -> CmdResult {
    if args.len() == at + 1 && !args[at].starts_with(b"app-profile=") {
        return Err(Fatal::usage(usage));
    }
    Ok(())
}

fn do_delete_column(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let usage =
        "usage: cbt deletecolumn <table> <row> <family> <column> [app-profile=<app profile id>]";
    if args.len() != 4 && args.len() != 5 {
        return Err(Fatal::usage(usage));
    }
    check_app_profile(args, 4, usage)?;
    let table = text(args[0]).into_owned();
    let m = Mutation::DeleteFromColumn {
        family_name: Cow::Owned(text(args[2]).into_owned()),
        column_qualifier: Cow::Borrowed(args[3]),
        time_range: None,
    };
    ctx.mutate_row(&table, args[1], &[m])
        .map_err(|e| ctx.rpc("Deleting cells in column", &e))
}

fn do_delete_row(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let usage = "usage: cbt deleterow <table> <row> [app-profile=<app profile id>]";
    if args.len() != 2 && args.len() != 3 {
        return Err(Fatal::usage(usage));
    }
    check_app_profile(args, 2, usage)?;
    let table = text(args[0]).into_owned();
    ctx.mutate_row(&table, args[1], &[Mutation::DeleteFromRow])
        .map_err(|e| ctx.rpc("Deleting row", &e))
}

fn do_delete_all_rows(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    if args.len() != 1 {
        return Err(Fatal::usage(format!(
            "Can't do `cbt deleteallrows {}`",
            go_list(args)
        )));
    }
    let table = text(args[0]).into_owned();
    let instance = &mut *ctx.instance;
    ctx.traces
        .record(|t| instance.drop_row_range_traced(&table, &DropTarget::AllData, t))
        .map_err(|e| ctx.rpc("Deleting all rows", &e))
}

// ---------------------------------------------------------------------------
// Tables and families.

/// `cbt`'s value types for `families=fam:policy:type`.
fn parse_family_type(s: &[u8]) -> Result<ValueType, Fatal> {
    let lower = text(s).to_lowercase();
    let agg = match lower.as_str() {
        "intsum" => Aggregator::Sum,
        "intmin" => Aggregator::Min,
        "intmax" => Aggregator::Max,
        "inthll" => Aggregator::HllppUniqueCount,
        "stringutf8bytes" => {
            return Err(Fatal::new(
                Code::Unimplemented,
                "the stringutf8bytes value type is not supported by the Tabletop playground",
            ));
        }
        _ => return Err(Fatal::usage(format!("unknown type {}", text(s)))),
    };
    Ok(ValueType::Aggregate(agg))
}

/// `cbt`'s `family[:gcpolicy[:type]]`. A type is read only when there are
/// exactly three parts, as in `cbt`.
fn parse_family_text(s: &[u8]) -> Result<(String, ColumnFamily), Fatal> {
    let parts: Vec<&[u8]> = s.split(|&b| b == b':').collect();
    let mut def = ColumnFamily::default();
    if parts.len() >= 2 {
        def.gc_rule = gcpolicy::parse(&text(parts[1])).map_err(Fatal::usage)?;
        if parts.len() == 3 {
            def.value_type = parse_family_type(parts[2])?;
        }
    }
    Ok((text(parts[0]).into_owned(), def))
}

fn do_create_table(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    if args.is_empty() {
        return Err(Fatal::usage(
            "usage: cbt createtable <table> [families=family[:gcpolicy[:type]],...] [splits=split,...]",
        ));
    }
    let parsed = parse_args(&args[1..], &["families", "splits"])?;
    let mut req = CreateTableRequest {
        table_id: text(args[0]).into_owned(),
        schema: TableSchema::default(),
        initial_splits: Vec::new(),
    };
    for (key, val) in &parsed {
        let chunks =
            read_one(val).map_err(|e| Fatal::usage(format!("Invalid {key} arg format: {e}")))?;
        if key == "families" {
            for family in chunks {
                let (name, def) = parse_family_text(&family)?;
                req.schema.families.insert(name, def);
            }
        } else {
            req.initial_splits = chunks;
        }
    }
    ctx.instance
        .create_table(req)
        .map(|_| ())
        .map_err(|e| ctx.rpc("Creating table", &e))
}

fn do_delete_table(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    if args.len() != 1 {
        return Err(Fatal::usage(format!(
            "Can't do `cbt deletetable {}`",
            go_list(args)
        )));
    }
    let table = text(args[0]).into_owned();
    ctx.instance
        .delete_table(&table)
        .map_err(|e| ctx.rpc("Deleting table", &e))
}

fn do_create_family(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    if args.len() != 2 {
        return Err(Fatal::usage("usage: cbt createfamily <table> <family>"));
    }
    let (name, def) = parse_family_text(args[1])?;
    let table = text(args[0]).into_owned();
    ctx.instance
        .modify_column_families(&table, &[FamilyChange::Create(name, def)])
        .map(|_| ())
        .map_err(|e| ctx.rpc("Creating column family", &e))
}

fn do_delete_family(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    if args.len() != 2 {
        return Err(Fatal::usage("usage: cbt deletefamily <table> <family>"));
    }
    let table = text(args[0]).into_owned();
    let family = text(args[1]).into_owned();
    ctx.instance
        .modify_column_families(&table, &[FamilyChange::Drop(family)])
        .map(|_| ())
        .map_err(|e| ctx.rpc("Deleting column family", &e))
}

fn do_set_gc_policy(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    if args.len() < 3 {
        return Err(Fatal::usage(
            "usage: cbt setgcpolicy <table> <family> ((maxage=<d> | maxversions=<n>) [(and|or) (maxage=<d> | maxversions=<n>),...] | never) [force]",
        ));
    }
    let table = text(args[0]).into_owned();
    let family = text(args[1]).into_owned();
    let mut rest = &args[2..];
    if rest.first() == Some(&&b"force"[..]) {
        rest = &rest[1..];
    } else if rest.last() == Some(&&b"force"[..]) {
        rest = &rest[..rest.len() - 1];
    }
    let joined: Vec<Cow<'_, str>> = rest.iter().map(|a| text(a)).collect();
    let rule = gcpolicy::parse(&joined.join(" ")).map_err(Fatal::usage)?;
    // Only the GC rule changes (cbt sends an update mask of gc_rule); keep
    // the family's value type.
    let value_type = ctx
        .instance
        .get_table(&table)
        .map_err(|e| ctx.rpc("Setting GC policy", &e))?
        .schema
        .families
        .get(&family)
        .map(|f| f.value_type)
        .unwrap_or_default();
    let def = ColumnFamily {
        gc_rule: rule,
        value_type,
    };
    ctx.instance
        .modify_column_families(&table, &[FamilyChange::Update(family, def)])
        .map(|_| ())
        .map_err(|e| ctx.rpc("Setting GC policy", &e))
}

fn do_ls(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    match args {
        [] => {
            let mut names: Vec<String> = ctx
                .instance
                .list_tables()
                .into_iter()
                .map(|t| t.id)
                .collect();
            names.sort();
            for n in names {
                ctx.println(n);
            }
            Ok(())
        }
        [table] => {
            let table = text(table).into_owned();
            let info = ctx
                .instance
                .get_table(&table)
                .map_err(|e| ctx.rpc("Getting table info", &e))?;
            let mut lines = vec![
                vec![
                    b"Family Name".to_vec(),
                    b"GC Policy".to_vec(),
                    b"Value Type".to_vec(),
                ],
                vec![
                    b"-----------".to_vec(),
                    b"---------".to_vec(),
                    b"----------".to_vec(),
                ],
            ];
            for (name, fam) in &info.schema.families {
                lines.push(vec![
                    name.clone().into_bytes(),
                    gcpolicy::to_string(fam.gc_rule.as_ref()).into_bytes(),
                    value_type_json(fam.value_type).into_bytes(),
                ]);
            }
            ctx.out.extend(tabwrite(&lines));
            Ok(())
        }
        _ => Err(Fatal::usage(format!("Can't do `cbt ls {}`", go_list(args)))),
    }
}

// ---------------------------------------------------------------------------
// Reads: lookup, read, count.

/// `cbt`'s `columns=` option: `fam:qual`, `fam:`, `:qual` or `qual`
/// (regular expressions), comma-separated; several become an interleave.
fn parse_columns_filter(columns: &[u8]) -> Result<RowFilter, Fatal> {
    let parts: Vec<&[u8]> = columns
        .split(|&b| b == b',')
        .filter(|p| !p.is_empty())
        .collect();
    let column_filter = |col: &[u8]| -> Result<RowFilter, Fatal> {
        let pieces: Vec<&[u8]> = col.split(|&b| b == b':').collect();
        match pieces.as_slice() {
            [q] => Ok(RowFilter::ColumnQualifierRegex(q.to_vec())),
            [f, q] => {
                if col.ends_with(b":") {
                    Ok(RowFilter::FamilyNameRegex(text(f).into_owned()))
                } else if col.starts_with(b":") {
                    Ok(RowFilter::ColumnQualifierRegex(q.to_vec()))
                } else {
                    Ok(RowFilter::Chain(vec![
                        RowFilter::FamilyNameRegex(text(f).into_owned()),
                        RowFilter::ColumnQualifierRegex(q.to_vec()),
                    ]))
                }
            }
            _ => Err(Fatal::usage(format!(
                "bad format for column {}",
                quote(col)
            ))),
        }
    };
    if parts.len() == 1 {
        return column_filter(parts[0]);
    }
    let filters = parts
        .into_iter()
        .map(column_filter)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RowFilter::Interleave(filters))
}

/// `LatestNFilter(n)`: Go converts the `int` to the proto's `int32`.
fn cells_per_column(s: &[u8]) -> Result<RowFilter, Fatal> {
    let n = atoi(s)
        .map_err(|e| Fatal::usage(format!("Bad number of cells per column {}: {e}", quote(s))))?;
    // Truncation to 32 bits is what Go's int32(n) does.
    #[allow(clippy::cast_possible_truncation)]
    Ok(RowFilter::CellsPerColumnLimit(n as i32))
}

fn keys_only(parsed: &BTreeMap<String, &[u8]>) -> Result<bool, Fatal> {
    match opt(parsed, "keys-only") {
        Some(v) => parse_bool(v).map_err(|e| Fatal::usage(e.to_string())),
        None => Ok(false),
    }
}

fn include_stats(parsed: &BTreeMap<String, &[u8]>) -> Result<bool, Fatal> {
    match parsed.get("include-stats").copied().unwrap_or(b"") {
        b"" => Ok(false),
        b"full" => Ok(true),
        other => Err(Fatal::usage(format!(
            "Bad include-stats value: {} is not one of the supported stats views.",
            quote(other)
        ))),
    }
}

fn chain(mut filters: Vec<RowFilter>) -> Option<RowFilter> {
    match filters.len() {
        0 => None,
        1 => filters.pop(),
        _ => Some(RowFilter::Chain(filters)),
    }
}

/// The value formatting a `format-file=` option asks for.
fn value_formatting(ctx: &mut Ctx<'_>, path: &[u8]) -> Result<ValueFormatting, String> {
    if path.is_empty() {
        return Ok(ValueFormatting::default());
    }
    let path = text(path).into_owned();
    let data = ctx.host.read_file(&path)?;
    ValueFormatting::setup(&data)
}

/// Reads rows and prints each as it arrives; returns the read's statistics.
fn read_and_print(
    ctx: &mut Ctx<'_>,
    (table, view): (&str, Option<&str>),
    req: &ReadRowsRequest,
    fmt: &ValueFormatting,
) -> Result<Result<ReadStats, Error>, String> {
    let mut out = std::mem::take(&mut ctx.out);
    let mut failure: Option<String> = None;
    let limit = ctx.host.stdout_limit().unwrap_or(usize::MAX);
    let mut not_printed = 0;
    let mut print = |row: RowView<'_>| {
        // Past the host's limit the rows are still read (for the
        // stats), just not formatted.
        if out.len() >= limit {
            not_printed += 1;
            return true;
        }
        match print_row(&mut out, row.key, row.cells, fmt) {
            Ok(()) => true,
            Err(e) => {
                failure = Some(e);
                false
            }
        }
    };
    let instance = &mut *ctx.instance;
    let result = ctx.traces.record(|t| match view {
        None => instance.read_rows_traced(table, req, &mut print, t),
        Some(v) => instance.read_rows_in_view_traced(table, v, req, &mut print, t),
    });
    ctx.out = out;
    ctx.rows_not_printed += not_printed;
    match failure {
        Some(e) => Err(e),
        None => Ok(result),
    }
}

/// A read command (`lookup`, `read`, `count`) as parsed: its table, the
/// request it sends, and its options.
struct ReadCommand<'a> {
    table: String,
    req: ReadRowsRequest,
    parsed: BTreeMap<String, &'a [u8]>,
    stats_wanted: bool,
}

/// `lookup <table> <row> [options]`: the request, before any file is read.
fn lookup_command<'a>(args: &[&'a [u8]]) -> Result<ReadCommand<'a>, Fatal> {
    if args.len() < 2 {
        return Err(Fatal::usage(
            "usage: cbt lookup <table> <row> [columns=<family:qualifier>...] [cells-per-column=<n>] [app-profile=<app profile id>]",
        ));
    }
    let parsed = parse_args(
        &args[2..],
        &[
            "columns",
            "cells-per-column",
            "app-profile",
            "format-file",
            "keys-only",
            "include-stats",
        ],
    )?;
    let mut filters = Vec::new();
    if let Some(n) = opt(&parsed, "cells-per-column") {
        filters.push(cells_per_column(n)?);
    }
    if let Some(c) = opt(&parsed, "columns") {
        filters.push(parse_columns_filter(c)?);
    }
    if keys_only(&parsed)? {
        filters.push(RowFilter::StripValue);
    }
    let stats_wanted = include_stats(&parsed)?;
    let table = text(args[0]).into_owned();
    let row = args[1];
    let req = ReadRowsRequest {
        rows: RowSet::single(row.to_vec()),
        filter: chain(filters),
        ..ReadRowsRequest::default()
    };
    Ok(ReadCommand {
        table,
        req,
        parsed,
        stats_wanted,
    })
}

fn do_lookup(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let ReadCommand {
        table,
        req,
        parsed,
        stats_wanted,
    } = lookup_command(args)?;
    let mut found: Option<tabletop_store::OwnedRow> = None;
    let mut keep = |r: RowView<'_>| {
        found = Some(r.to_owned_row());
        true
    };
    let instance = &mut *ctx.instance;
    let stats = ctx
        .traces
        .record(|t| instance.read_rows_traced(&table, &req, &mut keep, t))
        .map_err(|e| ctx.rpc("Reading row", &e))?;
    let format_file = parsed.get("format-file").copied().unwrap_or(b"");
    let fmt = value_formatting(ctx, format_file)
        .map_err(|e| Fatal::usage(format!("Reading row: {e}")))?;
    let (key, cells) = match &found {
        Some(r) => (r.key.as_slice(), r.cells.as_slice()),
        None => (&b""[..], &[][..]),
    };
    let views: Vec<CellView<'_>> = cells
        .iter()
        .map(|c| CellView {
            family: &c.family,
            qualifier: &c.qualifier,
            timestamp_micros: c.timestamp_micros,
            value: &c.value,
            label: c.labels.first().map(String::as_str),
            gc_eligible: c.gc_eligible,
        })
        .collect();
    print_row(&mut ctx.out, key, &views, &fmt).map_err(Fatal::usage)?;
    if stats_wanted {
        print_stats(&mut ctx.out, &stats);
    }
    Ok(())
}

/// A row range as the Go client builds it, and whether it is worth a
/// request (the client skips the call for an empty range).
fn read_range(parsed: &BTreeMap<String, &[u8]>) -> (RowSet, bool) {
    let start = opt(parsed, "start");
    let end = opt(parsed, "end");
    if let Some(prefix) = opt(parsed, "prefix") {
        return (RowSet::range(RowRange::prefix(prefix)), true);
    }
    match (start, end) {
        (start, Some(end)) => {
            let start = start.unwrap_or(b"");
            let valid = start < end;
            let range = RowRange {
                start: KeyBound::Closed(start.to_vec()),
                end: KeyBound::Open(end.to_vec()),
            };
            (RowSet::range(range), valid)
        }
        (Some(start), None) => (
            RowSet::range(RowRange {
                start: KeyBound::Closed(start.to_vec()),
                end: KeyBound::Unbounded,
            }),
            true,
        ),
        (None, None) => (RowSet::all(), true),
    }
}

/// `read <table> [options]`, parsed up to the value formatting (which may
/// read a file): the command, whether its range is worth a request (the
/// Go client skips an empty one), and its rows limit.
fn read_command<'a>(args: &[&'a [u8]]) -> Result<(ReadCommand<'a>, bool, Option<i64>), Fatal> {
    if args.is_empty() {
        return Err(Fatal::usage("usage: cbt read <table> [args ...]"));
    }
    let parsed = parse_args(
        &args[1..],
        &[
            "authorized-view",
            "start",
            "end",
            "prefix",
            "columns",
            "count",
            "cells-per-column",
            "regex",
            "app-profile",
            "limit",
            "format-file",
            "keys-only",
            "include-stats",
            "reversed",
        ],
    )?;
    if parsed.contains_key("limit") {
        return Err(Fatal::usage("Unknown arg key 'limit'; did you mean 'end'?"));
    }
    if (opt(&parsed, "start").is_some() || opt(&parsed, "end").is_some())
        && opt(&parsed, "prefix").is_some()
    {
        return Err(Fatal::usage(
            "\"start\"/\"end\" may not be mixed with \"prefix\"",
        ));
    }
    let (rows, valid) = read_range(&parsed);
    let mut limit: Option<i64> = None;
    if let Some(count) = opt(&parsed, "count") {
        let n = parse_int(count, 0)
            .map_err(|e| Fatal::usage(format!("Bad count {}: {e}", quote(count))))?;
        limit = Some(n);
    }
    let mut reversed = false;
    if let Some(r) = opt(&parsed, "reversed") {
        reversed = parse_bool(r).map_err(|e| Fatal::usage(e.to_string()))?;
    }
    let stats_wanted = include_stats(&parsed)?;
    let mut filters = Vec::new();
    if let Some(n) = opt(&parsed, "cells-per-column") {
        filters.push(cells_per_column(n)?);
    }
    if let Some(re) = opt(&parsed, "regex") {
        filters.push(RowFilter::RowKeyRegex(re.to_vec()));
    }
    if let Some(c) = opt(&parsed, "columns") {
        filters.push(parse_columns_filter(c)?);
    }
    if keys_only(&parsed)? {
        filters.push(RowFilter::StripValue);
    }
    let table = text(args[0]).into_owned();
    let req = ReadRowsRequest {
        rows,
        filter: chain(filters),
        rows_limit: limit.unwrap_or(0),
        reversed,
    };
    let command = ReadCommand {
        table,
        req,
        parsed,
        stats_wanted,
    };
    Ok((command, valid, limit))
}

/// What the Go client checks of a `read` before sending anything: `false`
/// when it sends nothing and succeeds.
fn read_is_sent(command: &ReadCommand<'_>, valid: bool, limit: Option<i64>) -> Result<bool, Fatal> {
    if !valid {
        return Ok(false);
    }
    if limit.is_some_and(|n| n < 0) {
        return Err(Fatal::usage(
            "Reading rows: bigtable: row limit cannot be negative",
        ));
    }
    if limit == Some(0) {
        stats_not_received(command.stats_wanted)?;
        return Ok(false);
    }
    Ok(true)
}

fn do_read(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let (command, valid, limit) = read_command(args)?;
    let format_file = command.parsed.get("format-file").copied().unwrap_or(b"");
    let fmt = value_formatting(ctx, format_file).map_err(Fatal::usage)?;
    if !read_is_sent(&command, valid, limit)? {
        return Ok(());
    }
    let view = opt(&command.parsed, "authorized-view").map(|v| text(v).into_owned());
    let ReadCommand {
        table,
        req,
        stats_wanted,
        ..
    } = command;
    match read_and_print(ctx, (&table, view.as_deref()), &req, &fmt) {
        Err(e) => Err(Fatal::usage(e)),
        Ok(Err(e)) => Err(ctx.rpc("Reading rows", &e)),
        Ok(Ok(stats)) => {
            if stats_wanted {
                print_stats(&mut ctx.out, &stats);
            }
            Ok(())
        }
    }
}

fn stats_not_received(stats_wanted: bool) -> CmdResult {
    if stats_wanted {
        return Err(Fatal::new(
            Code::Internal,
            "Stats were requested but not received.",
        ));
    }
    Ok(())
}

/// `count <table> [prefix=...]`: the request.
fn count_command<'a>(args: &[&'a [u8]]) -> Result<ReadCommand<'a>, Fatal> {
    if args.is_empty() {
        return Err(Fatal::usage(
            "usage: cbt count <table> [prefix=<row-key-prefix>]",
        ));
    }
    let parsed = parse_args(&args[1..], &["prefix"])?;
    let rows = match parsed.get("prefix") {
        Some(p) => RowSet::range(RowRange::prefix(p.to_vec())),
        None => RowSet::all(),
    };
    let table = text(args[0]).into_owned();
    // cbt asks for one stripped cell per row; the count is the same without.
    Ok(ReadCommand {
        table,
        req: ReadRowsRequest::rows(rows),
        parsed,
        stats_wanted: false,
    })
}

fn do_count(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let ReadCommand { table, req, .. } = count_command(args)?;
    let mut n: u64 = 0;
    let mut count = |_: RowView<'_>| {
        n += 1;
        true
    };
    let instance = &mut *ctx.instance;
    ctx.traces
        .record(|t| instance.read_rows_traced(&table, &req, &mut count, t))
        .map_err(|e| ctx.rpc("Reading rows", &e))?;
    ctx.println(n.to_string());
    Ok(())
}

/// The ReadRows request a `read`, `lookup` or `count` command sends, and
/// its table, parsed exactly as running it parses it (`None` for other
/// commands, bad arguments, or a read the client would not send).
pub(crate) fn read_request(args: &[&[u8]]) -> Option<(String, ReadRowsRequest)> {
    let words = command_words(args).ok()?;
    let (&name, rest) = words.split_first()?;
    let command = match defs::find(name)?.name {
        "lookup" => lookup_command(rest).ok()?,
        "count" => count_command(rest).ok()?,
        "read" => {
            let (command, valid, limit) = read_command(rest).ok()?;
            if !read_is_sent(&command, valid, limit).ok()? {
                return None;
            }
            command
        }
        _ => return None,
    };
    Some((command.table, command.req))
}

// ---------------------------------------------------------------------------
// import

struct ImportArgs {
    family: Vec<u8>,
    batch_size: usize,
    value_encoded: bool,
}

fn parse_import_args(args: &[&[u8]]) -> Result<ImportArgs, String> {
    let mut ia = ImportArgs {
        family: Vec::new(),
        batch_size: 500,
        value_encoded: false,
    };
    if args.len() < 2 {
        return Err("usage: cbt import <table-id> <input-file> [app-profile=<app-profile-id>] [column-family=<family-name>] [batch-size=<500>] [workers=<1>] [timestamp=<now|value-encoded>]".to_string());
    }
    for &arg in &args[2..] {
        let val = second_field(arg);
        if arg.starts_with(b"app-profile=") {
            // Accepted and ignored: the playground has one app profile.
        } else if arg.starts_with(b"column-family=") {
            if val.is_empty() {
                return Err("column-family cannot be ''".to_string());
            }
            ia.family = val.to_vec();
        } else if arg.starts_with(b"batch-size=") {
            match atoi(val) {
                Ok(n) if n > 0 && n < 100_000 => ia.batch_size = usize::try_from(n).unwrap_or(500),
                _ => return Err("batch-size must be > 0 and <= 100000".to_string()),
            }
        } else if arg.starts_with(b"workers=") {
            match atoi(val) {
                Ok(n) if n > 0 => {}
                Ok(_) => return Err("workers must be > 0, err:%!s(<nil>)".to_string()),
                Err(e) => return Err(format!("workers must be > 0, err:{e}")),
            }
        } else if arg.starts_with(b"timestamp=") {
            match val {
                b"now" => ia.value_encoded = false,
                b"value-encoded" => ia.value_encoded = true,
                _ => return Err("timestamp must be one of 'now' or 'value-encoded'".to_string()),
            }
        }
    }
    Ok(ia)
}

/// `cbt`'s `parseCsvHeaders`: the family row (unless `column-family=` was
/// given) and the qualifier row.
fn parse_csv_headers<R: std::io::BufRead>(
    r: &mut CsvReader<R>,
    family: &[u8],
) -> Result<(Record, Record), String> {
    let mut fams = Vec::new();
    if family.is_empty() {
        fams = r
            .read()
            .map_err(|e| format!("family header reader error:{e}"))?;
    }
    let cols = r
        .read()
        .map_err(|e| format!("columns header reader error:{e}"))?;
    if !family.is_empty() {
        if cols.len() < 2 {
            // Real cbt indexes past the end here and panics.
            return Err(format!(
                "panic: runtime error: index out of range [1] with length {}",
                cols.len()
            ));
        }
        fams = vec![Vec::new(); cols.len()];
        fams[1] = family.to_vec();
    }
    if fams.len() < 2 || cols.len() < 2 {
        return Err("at least 2 columns are required (rowkey + data)".to_string());
    }
    if !fams[0].is_empty() || !cols[0].is_empty() {
        return Err(
            "the first column must be empty for column-family and column name rows".to_string(),
        );
    }
    if fams[1].is_empty() || cols[1].is_empty() {
        return Err("the second column (first data column) must have values for column family and column name rows if present".to_string());
    }
    for i in 1..cols.len().min(fams.len()) {
        if fams[i].is_empty() {
            fams[i] = fams[i - 1].clone();
        }
    }
    Ok((fams, cols))
}

fn do_import(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let ia = parse_import_args(args)
        .map_err(|e| Fatal::usage(format!("error parsing importer args: {e}")))?;
    let path = text(args[1]).into_owned();
    let data = ctx
        .host
        .open_file(&path)
        .map_err(|e| Fatal::new(Code::NotFound, format!("couldn't open the csv file: {e}")))?;
    let table = text(args[0]).into_owned();
    let mut r = CsvReader::new(data);
    let (fams, cols) = parse_csv_headers(&mut r, &ia.family)
        .map_err(|e| Fatal::usage(format!("error parsing headers: {e}")))?;
    let ts = ctx.now_millis();
    let mut total = 0usize;
    loop {
        let mut keys: Vec<Vec<u8>> = Vec::new();
        let mut muts: Vec<Vec<Mutation<'static>>> = Vec::new();
        while keys.len() < ia.batch_size {
            let line = match r.read() {
                Ok(line) => line,
                Err(CsvError::Eof) => break,
                Err(e) => return Err(Fatal::usage(e.to_string())),
            };
            let mut row_muts = Vec::new();
            for (i, val) in line.iter().enumerate() {
                if i == 0 || val.is_empty() {
                    continue;
                }
                let mut val = val.as_slice();
                let mut cell_ts = ts;
                if ia.value_encoded
                    && let Some(at) = val.iter().rposition(|&b| b == b'@')
                    && let Ok(n) = parse_int(&val[at + 1..], 0)
                {
                    val = &val[..at];
                    cell_ts = n;
                }
                row_muts.push(Mutation::SetCell {
                    family_name: Cow::Owned(text(&fams[i]).into_owned()),
                    column_qualifier: Cow::Owned(cols[i].clone()),
                    timestamp_micros: cell_ts,
                    value: Cow::Owned(val.to_vec()),
                });
            }
            let key = line.first().cloned().unwrap_or_default();
            if row_muts.is_empty() {
                let mut msg = b"[0] RowKey '".to_vec();
                msg.extend_from_slice(&key);
                msg.extend_from_slice(b"' has no mutations, skipping");
                ctx.log(msg);
                continue;
            }
            if key.is_empty() {
                ctx.log("[0] RowKey not present, skipping line");
                continue;
            }
            keys.push(key);
            muts.push(row_muts);
        }
        if keys.is_empty() {
            break;
        }
        let mut msg =
            format!("[0] Writing batch:: size: {}, firstRowKey: ", keys.len()).into_bytes();
        msg.extend_from_slice(&keys[0]);
        msg.extend_from_slice(b", lastRowKey: ");
        msg.extend_from_slice(&keys[keys.len() - 1]);
        ctx.log(msg);
        let entries: Vec<MutateRowsEntry<'_>> = keys
            .iter()
            .zip(muts)
            .map(|(k, m)| MutateRowsEntry {
                row_key: Cow::Borrowed(k.as_slice()),
                mutations: m,
            })
            .collect();
        let instance = &mut *ctx.instance;
        let results = ctx
            .traces
            .record(|t| instance.mutate_rows_traced(&table, &entries, t))
            .map_err(|e| {
                Fatal::new(
                    e.code(),
                    format!(
                        "error: applying bulk mutations process error: {}",
                        ctx.rpc_text(&e)
                    ),
                )
            })?;
        if let Some(message) = batch_failure(ctx, &keys, &results) {
            return Err(message);
        }
        total += keys.len();
        ctx.host.import_progress(total);
    }
    ctx.log(format!("Done importing {total} rows."));
    Ok(())
}

/// The error of an import batch with failed entries, if it has any.
///
/// When the batch's first entry failed, this is cbt's own line (the Go
/// client reports one slot per entry and cbt prints the batch size and the
/// first slot). When the first entry was written, cbt would print
/// `first:<nil>`, which says nothing; Tabletop says instead how many rows
/// failed, that the others were written, and the first failed row with
/// its reason.
fn batch_failure(ctx: &Ctx<'_>, keys: &[Vec<u8>], results: &[Result<(), Error>]) -> Option<Fatal> {
    let (index, failed) = results
        .iter()
        .enumerate()
        .find_map(|(i, r)| r.as_ref().err().map(|e| (i, e)))?;
    let message = if index == 0 {
        format!(
            "error: applying bulk mutations had {} errors, first:{}",
            results.len(),
            ctx.rpc_text(failed)
        )
    } else {
        let count = results.iter().filter(|r| r.is_err()).count();
        format!(
            "error: applying bulk mutations: {count} of the batch's {} rows failed \
             (the others were written); the first is row '{}': {}",
            results.len(),
            String::from_utf8_lossy(&keys[index]),
            ctx.rpc_text(failed)
        )
    };
    Some(Fatal::new(failed.code(), message))
}

// ---------------------------------------------------------------------------
// help and the playground extensions.

fn do_help(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let Some(&name) = args.first() else {
        ctx.out.extend(defs::summary());
        return Ok(());
    };
    match defs::find(name) {
        Some(def) if def.kind == Kind::Unavailable => Err(unavailable(def.name)),
        Some(def) => {
            ctx.println(def.usage);
            Ok(())
        }
        None => Err(Fatal::usage(format!("Don't know command {}", quote(name)))),
    }
}

fn do_compact(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let table = match args {
        [] => None,
        [t] => Some(text(t).into_owned()),
        _ => return Err(Fatal::usage("usage: cbt compact [<table-id>]")),
    };
    let events = ctx
        .instance
        .compact(table.as_deref())
        .map_err(|e| ctx.rpc("Compacting", &e))?;
    let mut per_table: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for ev in events {
        if let tabletop_store::EngineEvent::Compaction {
            table,
            collected,
            kept,
            ..
        } = ev
        {
            let e = per_table.entry(table).or_default();
            e.0 += 1;
            e.1 += collected;
            e.2 += kept;
        }
    }
    for (t, (tablets, collected, kept)) in per_table {
        let s = |n: u64| if n == 1 { "" } else { "s" };
        ctx.println(format!(
            "{t}: compacted {tablets} tablet{}; GC collected {collected} cell{}, {kept} cell{} kept",
            s(tablets),
            s(collected),
            s(kept)
        ));
    }
    Ok(())
}

fn clock_line(micros: i64) -> String {
    format!(
        "{} ({micros} microseconds since the Unix epoch)",
        format_rfc3339(micros)
    )
}

fn do_clock(ctx: &mut Ctx<'_>, args: &[&[u8]]) -> CmdResult {
    let now = ctx.instance.now_micros();
    let target = match args {
        [] => {
            ctx.println(clock_line(now));
            return Ok(());
        }
        [arg] => {
            let s = text(arg).into_owned();
            let bad = || {
                Fatal::usage(format!(
                    "clock: cannot use {}: want a duration (1h, 30d, 500ms), -<duration>, now, \
                     an RFC 3339 time (2020-05-01T00:00:00Z) or microseconds since the epoch",
                    quote(arg)
                ))
            };
            let micros = |d: std::time::Duration| i64::try_from(d.as_micros()).unwrap_or(i64::MAX);
            if s == "now" {
                ctx.host.wall_clock_micros().ok_or_else(|| {
                    Fatal::new(
                        Code::FailedPrecondition,
                        "clock: this host has no wall clock to read",
                    )
                })?
            } else if let Some(back) = s.strip_prefix('-') {
                let d = parse_duration(back).map_err(|_| bad())?;
                now.saturating_sub(micros(d))
            } else if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                s.parse::<i64>().map_err(|_| bad())?
            } else if let Ok(d) = parse_duration(&s) {
                now.saturating_add(micros(d))
            } else {
                parse_rfc3339(&s).ok_or_else(bad)?
            }
        }
        _ => {
            return Err(Fatal::usage(
                "usage: cbt clock [<duration> | -<duration> | now | <RFC 3339 time> | <microseconds>]",
            ));
        }
    };
    // `clock now` hands the clock back to the wall; any other setting
    // makes it simulated, so hosts stop moving it.
    let simulated = !matches!(args, [arg] if *arg == b"now");
    ctx.instance.set_clock_simulated(simulated);
    if target >= now {
        ctx.instance.tick(target);
    } else {
        ctx.instance.set_now(target);
    }
    ctx.println(clock_line(target));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_args_match_like_go_regexp() {
        assert_eq!(
            match_set_arg(b"cf:col=v"),
            Some((&b"cf"[..], &b"col"[..], &b"v"[..]))
        );
        assert_eq!(
            match_set_arg(b"a:b:c=v"),
            Some((&b"a"[..], &b"b:c"[..], &b"v"[..]))
        );
        assert_eq!(
            match_set_arg(b"::cf:col=v"),
            Some((&b"cf"[..], &b"col"[..], &b"v"[..]))
        );
        assert_eq!(
            match_set_arg(b"cf:a=line1\nline2"),
            Some((&b"cf"[..], &b"a"[..], &b"line1"[..]))
        );
        assert_eq!(
            match_set_arg(b"cf:=x=y"),
            Some((&b"cf"[..], &b""[..], &b"x=y"[..]))
        );
        assert_eq!(match_set_arg(b"novalue"), None);
        assert_eq!(match_set_arg(b":c=v"), None);
        assert_eq!(match_set_arg(b"a:b"), None);
    }

    #[test]
    fn columns_option_builds_cbt_filters() {
        assert_eq!(
            parse_columns_filter(b"cf:").unwrap(),
            RowFilter::FamilyNameRegex("cf".into())
        );
        assert_eq!(
            parse_columns_filter(b",:q,").unwrap(),
            RowFilter::ColumnQualifierRegex(b"q".to_vec())
        );
        assert!(
            matches!(parse_columns_filter(b"a:b,c").unwrap(), RowFilter::Interleave(v) if v.len() == 2)
        );
        assert_eq!(
            parse_columns_filter(b"a:b:c").unwrap_err().message,
            "bad format for column \"a:b:c\""
        );
    }
}
