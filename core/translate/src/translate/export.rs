//! Production out: the tables of an instance as a `cbt` script (with the
//! data as `set`/`addtocell` lines or CSV files for `cbt import`),
//! `gcloud` commands, or a Terraform configuration.
//!
//! What each tool can carry, and what the export does where it cannot:
//!
//! - `cbt` takes arguments as strings: a NUL byte cannot pass, and `set`
//!   reads a value up to the first line break and a qualifier up to the
//!   first `=`. Such cells go to the CSV file instead (Go's CSV reader
//!   takes any byte, but turns CR LF into LF and skips empty values). A
//!   cell neither can carry is left out with a warning. Other bytes are
//!   written as bash `$'\xNN'` escapes.
//! - `cbt addtocell` adds whole numbers: sum, min and max cells are written
//!   as their current value; HyperLogLog cells cannot be written.
//! - `cbt createtable` parses `a || b || c` as `(a || b) || c`: an n-ary
//!   union or intersection is written nested (it collects the same
//!   cells).
//! - `gcloud bigtable instances tables create` takes one rule or one
//!   binary union or intersection per family, no aggregate types, and no
//!   data; anything more is added with `cbt` lines.
//! - Terraform strings are Unicode: split keys that are not UTF-8 are left
//!   out with a warning.

use std::time::Duration;

use tabletop_sql::Instance;
use tabletop_store::CollectRows;
use tabletop_store::{Aggregator, GcRule, ValueType};
use tabletop_store::{Error, Result};
use tabletop_store::{ReadRowsRequest, TableInfo};

/// Which tool the export is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ExportFormat {
    /// A script of `cbt` commands (schema and data).
    #[default]
    Cbt,
    /// `gcloud bigtable instances tables create` commands (schema only).
    Gcloud,
    /// A Terraform configuration (schema only).
    Terraform,
}

impl ExportFormat {
    /// `cbt`, `gcloud` or `terraform`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Cbt => "cbt",
            ExportFormat::Gcloud => "gcloud",
            ExportFormat::Terraform => "terraform",
        }
    }

    /// Parses a name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<ExportFormat> {
        match name {
            "cbt" => Some(ExportFormat::Cbt),
            "gcloud" => Some(ExportFormat::Gcloud),
            "terraform" | "tf" => Some(ExportFormat::Terraform),
            _ => None,
        }
    }
}

/// How a `cbt` export writes the data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DataFormat {
    /// `set` and `addtocell` lines (cells `set` cannot carry go to a CSV
    /// file).
    #[default]
    Set,
    /// One CSV file per table for `cbt import ... timestamp=value-encoded`
    /// (aggregate cells still as `addtocell` lines).
    Csv,
    /// No data, only the schema.
    None,
}

impl DataFormat {
    /// `set`, `csv` or `none`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DataFormat::Set => "set",
            DataFormat::Csv => "csv",
            DataFormat::None => "none",
        }
    }

    /// Parses a name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<DataFormat> {
        match name {
            "set" => Some(DataFormat::Set),
            "csv" => Some(DataFormat::Csv),
            "none" => Some(DataFormat::None),
            _ => None,
        }
    }
}

/// Which split points the export carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SplitSource {
    /// The split keys the table was created with (the design's own).
    #[default]
    Initial,
    /// The current tablet boundaries (including the playground's own
    /// splits, made at its scaled-down thresholds).
    Tablets,
}

/// What to export and how.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// The tool.
    pub format: ExportFormat,
    /// How a `cbt` export writes data (ignored by the other formats).
    pub data: DataFormat,
    /// The tables to export, in this order; empty means every table.
    pub tables: Vec<String>,
    /// Which split points.
    pub splits: SplitSource,
    /// Project id in the commands; the instance's own when `None`.
    pub project: Option<String>,
    /// Instance id in the commands; the instance's own when `None`.
    pub instance: Option<String>,
}

/// The main file of an export: a script or a configuration, always text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    /// A file name for it (`playground.cbt`, `playground.gcloud.sh`,
    /// `playground.tf`).
    pub name: String,
    /// The contents.
    pub text: String,
    /// Its media type, for a download.
    pub media_type: &'static str,
}

/// A file the main script refers to (a CSV file for `cbt import`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFile {
    /// The file name the script uses (relative to the script).
    pub name: String,
    /// The contents (any bytes).
    pub contents: Vec<u8>,
    /// Its media type, for a download.
    pub media_type: &'static str,
}

/// An export: the main file, the files it refers to, and what could not
/// be carried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    /// The script or configuration.
    pub main: Script,
    /// Files the script needs next to it.
    pub files: Vec<ExportFile>,
    /// Things the tool cannot express, each left out or changed as said.
    pub warnings: Vec<String>,
    /// Aggregate cells the main script writes with `cbt addtocell` lines
    /// (0 for the tools without them): a CSV file cannot carry those.
    pub addtocell_lines: usize,
}

/// Exports tables of `db` for the real tools (see the module
/// documentation for what each carries). Reads the data with a full scan,
/// hence `&mut`. Fails with `NOT_FOUND` for a named table that does not
/// exist.
pub fn export(db: &mut Instance, options: &ExportOptions) -> Result<Export> {
    let all = db.list_tables();
    let tables: Vec<TableInfo> = if options.tables.is_empty() {
        all
    } else {
        let mut out = Vec::new();
        for name in &options.tables {
            match all.iter().find(|t| &t.id == name) {
                Some(t) => out.push(t.clone()),
                None => return Err(Error::table_not_found(name)),
            }
        }
        out
    };
    let project = options
        .project
        .clone()
        .unwrap_or_else(|| db.config().project.clone());
    let instance = options
        .instance
        .clone()
        .unwrap_or_else(|| db.config().instance.clone());
    let mut splits = Vec::new();
    for t in &tables {
        splits.push(match options.splits {
            SplitSource::Initial => t.initial_splits.clone(),
            SplitSource::Tablets => db
                .tablets(&t.id)?
                .into_iter()
                .skip(1)
                .map(|tab| tab.start_key)
                .collect(),
        });
    }
    let ctx = Ctx {
        project,
        instance,
        tables,
        splits,
    };
    match options.format {
        ExportFormat::Cbt => cbt_export(db, &ctx, options.data),
        ExportFormat::Gcloud => Ok(gcloud_export(&ctx)),
        ExportFormat::Terraform => Ok(terraform_export(&ctx)),
    }
}

struct Ctx {
    project: String,
    instance: String,
    tables: Vec<TableInfo>,
    splits: Vec<Vec<Vec<u8>>>,
}

// ---------------------------------------------------------------------------
// Shared text

/// A duration in the largest unit that divides it (`30d`, `12h`, `90m`,
/// `45s`, `1500ms`); sub-millisecond parts are rounded up.
pub(crate) fn human_duration(d: Duration) -> String {
    let ms = d.as_millis() + u128::from(!d.subsec_nanos().is_multiple_of(1_000_000));
    for (unit, name) in [
        (86_400_000u128, "d"),
        (3_600_000, "h"),
        (60_000, "m"),
        (1000, "s"),
    ] {
        if ms >= unit && ms.is_multiple_of(unit) {
            return format!("{}{name}", ms / unit);
        }
    }
    format!("{}ms", ms.max(1))
}

/// The longest age `cbt`, gcloud and Terraform can read: each parses an
/// age into Go's `time.Duration`, at most about 292 years, and refuses a
/// longer one. Bigtable itself takes longer ages (up to 10,000 years).
const LONGEST_WRITABLE_AGE: Duration = Duration::from_secs(2_562_047 * 3_600);

/// `age` as the tools can read it: a longer age is written as
/// [`LONGEST_WRITABLE_AGE`]. The rule collects the same cells either way
/// until the year 2262, since no timestamp is older than 1970.
fn writable_age(age: Duration) -> Duration {
    age.min(LONGEST_WRITABLE_AGE)
}

/// Go's `time.ParseDuration` form (no days): `720h`, `90m`, `1500ms`.
fn go_duration(d: Duration) -> String {
    let s = human_duration(d);
    match s.strip_suffix('d').and_then(|n| n.parse::<u128>().ok()) {
        Some(days) => format!("{}h", days * 24),
        None => s,
    }
}

/// The GC rule in `cbt`'s policy language (`maxage=30d || maxversions=1`),
/// or `never`.
pub(crate) fn cbt_policy(rule: Option<&GcRule>) -> String {
    fn go(rule: &GcRule, nested: bool) -> String {
        match rule {
            GcRule::MaxNumVersions(n) => format!("maxversions={n}"),
            GcRule::MaxAge(d) => format!("maxage={}", human_duration(writable_age(*d))),
            GcRule::Union(rules) | GcRule::Intersection(rules) => {
                let op = if matches!(rule, GcRule::Union(_)) {
                    " || "
                } else {
                    " && "
                };
                let inner: Vec<String> = rules.iter().map(|r| go(r, true)).collect();
                let text = inner.join(op);
                if nested && rules.len() > 1 {
                    format!("({text})")
                } else {
                    text
                }
            }
        }
    }
    match rule {
        None => "never".into(),
        Some(r) => go(r, false),
    }
}

/// Whether cbt can write the rule so that it reads back the same (no
/// n-ary combinations, whole milliseconds).
fn cbt_exact(rule: &GcRule) -> bool {
    match rule {
        GcRule::MaxNumVersions(_) => true,
        GcRule::MaxAge(d) => d.subsec_nanos() % 1_000_000 == 0,
        GcRule::Union(r) | GcRule::Intersection(r) => r.len() <= 2 && r.iter().all(cbt_exact),
    }
}

fn aggregate_name(v: ValueType) -> Option<&'static str> {
    match v {
        ValueType::Bytes => None,
        ValueType::Aggregate(a) => Some(a.cbt_name()),
    }
}

/// A word for bash: bare when safe, in single quotes when printable,
/// otherwise `$'...'` with escapes. `None` for a NUL byte, which no
/// argument can carry.
pub(crate) fn shell_word(bytes: &[u8]) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    if bytes.is_empty() {
        return Some("''".into());
    }
    let safe = |b: u8| b.is_ascii_alphanumeric() || b"_@%+=:,./-#".contains(&b);
    if bytes.iter().all(|&b| safe(b)) && bytes[0] != b'#' {
        return Some(String::from_utf8_lossy(bytes).into_owned());
    }
    if let Ok(text) = std::str::from_utf8(bytes)
        && !text.contains('\'')
        && !text.chars().any(char::is_control)
    {
        return Some(format!("'{text}'"));
    }
    let mut s = String::from("$'");
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\'' => s.push_str("\\'"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('\'');
    Some(s)
}

/// Text for a `#` comment: control characters (a line break would end the
/// comment and start a command) are escaped, as Rust's debug form does.
fn comment_text(s: &str) -> String {
    s.escape_debug().to_string()
}

/// A file name part: anything but letters, digits and `-_.` becomes `_`
/// (no path separator, no hidden file).
fn file_stem(s: &str) -> String {
    let stem: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match stem.trim_start_matches('.') {
        "" => "instance".to_string(),
        t => t.to_string(),
    }
}

fn shell_text(s: &str) -> String {
    shell_word(s.as_bytes()).unwrap_or_else(|| "''".into())
}

/// One field for Go's CSV reader: quoted when it holds a comma, a quote or
/// a line break, or starts with a space, as Go's `encoding/csv` writer
/// quotes. (The `csv` crate's writer, measured with csv 1.3 and
/// `QuoteStyle::Necessary`, leaves ` lead` unquoted, so exports would
/// change byte for byte; this is the one CSV writer of the workspace.)
fn csv_field(bytes: &[u8], out: &mut Vec<u8>) {
    let quote = bytes
        .iter()
        .any(|&b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
        || bytes.first() == Some(&b' ');
    if !quote {
        out.extend_from_slice(bytes);
        return;
    }
    out.push(b'"');
    for &b in bytes {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

fn esc(bytes: &[u8]) -> String {
    tabletop_store::escape_bytes(bytes)
}

// ---------------------------------------------------------------------------
// cbt

/// A data cell as exported.
struct Cell {
    family: String,
    qualifier: Vec<u8>,
    ts: i64,
    value: Vec<u8>,
}

fn set_ok(key: &[u8], qualifier: &[u8], value: Option<&[u8]>) -> bool {
    !key.contains(&0)
        && !qualifier.contains(&0)
        && !qualifier.contains(&b'=')
        && value.is_none_or(|v| !v.contains(&0) && !v.contains(&b'\n'))
}

fn has_crlf(b: &[u8]) -> bool {
    b.windows(2).any(|w| w == b"\r\n")
}

fn csv_ok(key: &[u8], c: &Cell) -> bool {
    !c.value.is_empty() && !has_crlf(key) && !has_crlf(&c.qualifier) && !has_crlf(&c.value)
}

fn cbt_export(db: &mut Instance, ctx: &Ctx, data: DataFormat) -> Result<Export> {
    let prefix = format!(
        "cbt -project {} -instance {}",
        shell_text(&ctx.project),
        shell_text(&ctx.instance)
    );
    let mut warnings = Vec::new();
    let mut files = Vec::new();
    let mut out = String::new();
    let mut addtocell_lines = 0;
    let names: Vec<&str> = ctx.tables.iter().map(|t| t.id.as_str()).collect();
    out.push_str(&format!(
        "# Tabletop export of projects/{}/instances/{}: {} (cbt 1.23 syntax).\n",
        comment_text(&ctx.project),
        comment_text(&ctx.instance),
        if names.is_empty() {
            "no tables".to_string()
        } else {
            format!(
                "table{} {}",
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            )
        }
    ));
    out.push_str(
        "# Run it with bash from this directory (cbt on the PATH; set BIGTABLE_EMULATOR_HOST\n\
         # for the emulator), or replay it into Tabletop with: tabletop cbt < this-file\n",
    );
    for (t, splits) in ctx.tables.iter().zip(&ctx.splits) {
        out.push('\n');
        let mut args = vec![format!("{prefix} createtable {}", shell_text(&t.id))];
        if !t.schema.families.is_empty() {
            let fams: Vec<String> = t
                .schema
                .families
                .iter()
                .map(|(name, f)| {
                    if let Some(rule) = &f.gc_rule
                        && !cbt_exact(rule)
                    {
                        warnings.push(format!(
                            "table {}, family {name}: cbt writes the GC rule {rule} as {} (the same cells are collected)",
                            t.id,
                            cbt_policy(Some(rule))
                        ));
                    }
                    match (aggregate_name(f.value_type), &f.gc_rule) {
                        (None, None) => name.clone(),
                        (None, Some(r)) => format!("{name}:{}", cbt_policy(Some(r))),
                        (Some(agg), r) => format!("{name}:{}:{agg}", cbt_policy(r.as_ref())),
                    }
                })
                .collect();
            args.push(shell_text(&format!("families={}", fams.join(","))));
        }
        let mut split_field = Vec::new();
        let mut n = 0;
        for s in splits {
            if s.contains(&0) {
                warnings.push(format!(
                    "table {}: the split key {} holds a NUL byte, which no cbt argument can carry; left out",
                    t.id,
                    esc(s)
                ));
                continue;
            }
            if n > 0 {
                split_field.push(b',');
            }
            csv_field(s, &mut split_field);
            n += 1;
        }
        if n > 0 {
            let mut arg = b"splits=".to_vec();
            arg.extend_from_slice(&split_field);
            args.push(shell_word(&arg).unwrap_or_default());
        }
        out.push_str(&args.join(" "));
        out.push('\n');
        if data == DataFormat::None {
            continue;
        }
        let mut rows = CollectRows::default();
        db.read_rows(&t.id, &ReadRowsRequest::default(), &mut rows)?;
        let mut csv_rows: Vec<(Vec<u8>, Vec<Cell>)> = Vec::new();
        let table_word = shell_text(&t.id);
        for row in &rows.rows {
            let key_word = shell_word(&row.key);
            let mut set_args: Vec<String> = Vec::new();
            let mut csv_cells: Vec<Cell> = Vec::new();
            for c in &row.cells {
                let vt = t
                    .schema
                    .families
                    .get(&c.family)
                    .map(|f| f.value_type)
                    .unwrap_or_default();
                let where_ = || {
                    format!(
                        "table {}, row {}, {}:{} @{}",
                        t.id,
                        esc(&row.key),
                        c.family,
                        esc(&c.qualifier),
                        c.timestamp_micros
                    )
                };
                if let ValueType::Aggregate(agg) = vt {
                    let value = match (agg, <[u8; 8]>::try_from(c.value.as_slice())) {
                        (Aggregator::HllppUniqueCount, _) => {
                            warnings.push(format!(
                                "{}: a HyperLogLog sketch cannot be written with cbt (addtocell adds integers); left out",
                                where_()
                            ));
                            continue;
                        }
                        (_, Ok(b)) => i64::from_be_bytes(b),
                        (_, Err(_)) => {
                            warnings.push(format!("{}: not an 8-byte integer; left out", where_()));
                            continue;
                        }
                    };
                    match (&key_word, set_ok(&row.key, &c.qualifier, None)) {
                        (Some(k), true) => {
                            let mut arg = c.family.clone().into_bytes();
                            arg.push(b':');
                            arg.extend_from_slice(&c.qualifier);
                            arg.extend_from_slice(format!("={value}@{}", c.timestamp_micros).as_bytes());
                            out.push_str(&format!(
                                "{prefix} addtocell {table_word} {k} {}\n",
                                shell_word(&arg).unwrap_or_default()
                            ));
                            addtocell_lines += 1;
                        }
                        _ => warnings.push(format!(
                            "{}: the row key or qualifier cannot pass through cbt addtocell; left out",
                            where_()
                        )),
                    }
                    continue;
                }
                let cell = Cell {
                    family: c.family.clone(),
                    qualifier: c.qualifier.clone(),
                    ts: c.timestamp_micros,
                    value: c.value.clone(),
                };
                let by_set = set_ok(&row.key, &c.qualifier, Some(&c.value));
                let by_csv = csv_ok(&row.key, &cell);
                let use_csv = match data {
                    DataFormat::Csv => by_csv || !by_set,
                    _ => !by_set,
                };
                if use_csv && by_csv {
                    csv_cells.push(cell);
                } else if by_set {
                    let mut arg = c.family.clone().into_bytes();
                    arg.push(b':');
                    arg.extend_from_slice(&c.qualifier);
                    arg.push(b'=');
                    arg.extend_from_slice(&c.value);
                    arg.extend_from_slice(format!("@{}", c.timestamp_micros).as_bytes());
                    set_args.push(shell_word(&arg).unwrap_or_default());
                } else {
                    warnings.push(format!(
                        "{}: neither cbt set (NUL byte or line break) nor cbt import (CR LF, or an empty value) can carry this cell; left out",
                        where_()
                    ));
                }
            }
            if let Some(k) = &key_word {
                for chunk in set_args.chunks(100) {
                    out.push_str(&format!(
                        "{prefix} set {table_word} {k} {}\n",
                        chunk.join(" ")
                    ));
                }
            }
            if !csv_cells.is_empty() {
                csv_rows.push((row.key.clone(), csv_cells));
            }
        }
        if !csv_rows.is_empty() {
            match csv_file(&csv_rows) {
                Some(contents) => {
                    let name = format!("{}.csv", t.id);
                    out.push_str(&format!(
                        "{prefix} import {table_word} {} timestamp=value-encoded\n",
                        shell_text(&name)
                    ));
                    files.push(ExportFile {
                        name,
                        contents,
                        media_type: "text/csv",
                    });
                }
                None => warnings.push(format!(
                    "table {}: cbt import needs a non-empty qualifier in the first data column, and every cell for the CSV file has an empty one; those cells were left out",
                    t.id
                )),
            }
        }
    }
    Ok(Export {
        main: Script {
            name: format!("{}.cbt", file_stem(&ctx.instance)),
            text: out,
            media_type: "text/x-shellscript",
        },
        files,
        warnings,
        addtocell_lines,
    })
}

/// The CSV file for `cbt import ... timestamp=value-encoded`: a family
/// row, a qualifier row, then one line per row and version.
fn csv_file(rows: &[(Vec<u8>, Vec<Cell>)]) -> Option<Vec<u8>> {
    let mut columns: Vec<(String, Vec<u8>)> = rows
        .iter()
        .flat_map(|(_, cells)| {
            cells
                .iter()
                .map(|c| (c.family.clone(), c.qualifier.clone()))
        })
        .collect();
    columns.sort();
    columns.dedup();
    // The first data column needs a qualifier.
    let first = columns.iter().position(|(_, q)| !q.is_empty())?;
    let lead = columns.remove(first);
    columns.insert(0, lead);
    let mut out = Vec::new();
    for (i, (fam, _)) in columns.iter().enumerate() {
        let _ = i;
        out.push(b',');
        csv_field(fam.as_bytes(), &mut out);
    }
    out.push(b'\n');
    for (_, q) in &columns {
        out.push(b',');
        csv_field(q, &mut out);
    }
    out.push(b'\n');
    for (key, cells) in rows {
        // Versions of each column, newest first (the read order).
        let per_column: Vec<Vec<&Cell>> = columns
            .iter()
            .map(|(f, q)| {
                cells
                    .iter()
                    .filter(|c| &c.family == f && &c.qualifier == q)
                    .collect()
            })
            .collect();
        let lines = per_column.iter().map(Vec::len).max().unwrap_or(0);
        for v in 0..lines {
            csv_field(key, &mut out);
            for col in &per_column {
                out.push(b',');
                if let Some(c) = col.get(v) {
                    let mut field = c.value.clone();
                    field.extend_from_slice(format!("@{}", c.ts).as_bytes());
                    csv_field(&field, &mut out);
                }
            }
            out.push(b'\n');
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------
// gcloud

/// The rule in `--column-families` syntax, if gcloud can take it (one rule,
/// or a union or intersection of two).
fn gcloud_rule(rule: &GcRule) -> Option<String> {
    let single = |r: &GcRule| match r {
        GcRule::MaxNumVersions(n) => Some(format!("maxversions={n}")),
        GcRule::MaxAge(d) => Some(format!("maxage={}", human_duration(writable_age(*d)))),
        _ => None,
    };
    match rule {
        GcRule::Union(r) | GcRule::Intersection(r) if r.len() == 2 => {
            let op = if matches!(rule, GcRule::Union(_)) {
                "||"
            } else {
                "&&"
            };
            Some(format!("{}{op}{}", single(&r[0])?, single(&r[1])?))
        }
        GcRule::Union(r) | GcRule::Intersection(r) if r.len() == 1 => single(&r[0]),
        other => single(other),
    }
}

fn gcloud_export(ctx: &Ctx) -> Export {
    let mut warnings = Vec::new();
    let mut out = String::new();
    out.push_str("#!/usr/bin/env bash\n");
    out.push_str(&format!(
        "# Tabletop export of projects/{}/instances/{} for gcloud: tables, column\n\
         # families, GC rules and split points. gcloud has no command that writes\n\
         # rows: load the data with `tabletop export --format cbt` (cbt set/import).\n\
         # What --column-families cannot say (nested GC rules, aggregate types) is\n\
         # added with cbt.\n\
         set -euo pipefail\n",
        comment_text(&ctx.project),
        comment_text(&ctx.instance)
    ));
    let cbt = format!(
        "cbt -project {} -instance {}",
        shell_text(&ctx.project),
        shell_text(&ctx.instance)
    );
    for (t, splits) in ctx.tables.iter().zip(&ctx.splits) {
        out.push('\n');
        let mut plain: Vec<String> = Vec::new();
        let mut after: Vec<String> = Vec::new();
        for (name, f) in &t.schema.families {
            match (aggregate_name(f.value_type), &f.gc_rule) {
                (Some(agg), rule) => after.push(format!(
                    "{cbt} createfamily {} {}",
                    shell_text(&t.id),
                    shell_text(&format!("{name}:{}:{agg}", cbt_policy(rule.as_ref())))
                )),
                (None, None) => plain.push(name.clone()),
                (None, Some(rule)) => match gcloud_rule(rule) {
                    Some(r) => plain.push(format!("{name}:{r}")),
                    None => {
                        plain.push(name.clone());
                        after.push(format!(
                            "{cbt} setgcpolicy {} {name} {}",
                            shell_text(&t.id),
                            shell_text(&cbt_policy(Some(rule)))
                        ));
                    }
                },
            }
        }
        let mut good_splits: Vec<String> = Vec::new();
        for s in splits {
            match std::str::from_utf8(s) {
                Ok(text) if text.contains('\0') => warnings.push(format!(
                    "table {}: the split key {} holds a NUL byte, which no gcloud argument can carry; left out",
                    t.id,
                    esc(s)
                )),
                Ok(text) => good_splits.push(text.to_string()),
                Err(_) => warnings.push(format!(
                    "table {}: gcloud sends split keys as UTF-8; the split key {} is not, left out",
                    t.id,
                    esc(s)
                )),
            }
        }
        if plain.is_empty() {
            // gcloud insists on at least one family: let cbt create it.
            out.push_str(
                "# gcloud needs a family without an aggregate type; cbt creates this table.\n",
            );
            let mut line = format!("{cbt} createtable {}", shell_text(&t.id));
            if !good_splits.is_empty() {
                let mut field = Vec::new();
                for (i, s) in good_splits.iter().enumerate() {
                    if i > 0 {
                        field.push(b',');
                    }
                    csv_field(s.as_bytes(), &mut field);
                }
                let mut arg = b"splits=".to_vec();
                arg.extend_from_slice(&field);
                line.push(' ');
                line.push_str(&shell_word(&arg).unwrap_or_default());
            }
            out.push_str(&line);
            out.push('\n');
        } else {
            out.push_str(&format!(
                "gcloud bigtable instances tables create {} \\\n  --project={} \\\n  --instance={} \\\n  --column-families={}",
                shell_text(&t.id),
                shell_text(&ctx.project),
                shell_text(&ctx.instance),
                shell_text(&plain.join(","))
            ));
            if !good_splits.is_empty() {
                // An argument list splits at commas; `^X^` picks another
                // delimiter when a key holds one (see `gcloud topic escaping`).
                let joined = if good_splits.iter().any(|s| s.contains(',')) {
                    match [";", "|", "~", "!", "^"]
                        .iter()
                        .find(|d| good_splits.iter().all(|s| !s.contains(*d)))
                    {
                        Some(d) => format!("^{d}^{}", good_splits.join(d)),
                        None => {
                            warnings.push(format!(
                                "table {}: the split keys use every delimiter gcloud offers; splits left out",
                                t.id
                            ));
                            String::new()
                        }
                    }
                } else {
                    good_splits.join(",")
                };
                if !joined.is_empty() {
                    out.push_str(&format!(" \\\n  --splits={}", shell_text(&joined)));
                }
            }
            out.push('\n');
        }
        for line in after {
            out.push_str(&line);
            out.push('\n');
        }
    }
    Export {
        main: Script {
            name: format!("{}.gcloud.sh", file_stem(&ctx.instance)),
            text: out,
            media_type: "text/x-shellscript",
        },
        files: Vec::new(),
        warnings,
        addtocell_lines: 0,
    }
}

// ---------------------------------------------------------------------------
// Terraform

/// A Terraform (HCL) string literal.
fn hcl_string(s: &str) -> String {
    let mut out = String::from("\"");
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '$' | '%' if chars.peek() == Some(&'{') => {
                out.push(c);
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Terraform resource name from a table or family name.
fn tf_name(raw: &str) -> String {
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
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert_str(0, "t_");
    }
    s
}

/// The rule as the HCL object for `gc_rules = jsonencode(...)` (the
/// provider's nested-policy JSON: `mode` and `rules`, `max_age` in Go's
/// duration syntax, `max_version`).
fn tf_rule(rule: &GcRule, top: bool) -> String {
    let leaf = |r: &GcRule| match r {
        GcRule::MaxNumVersions(n) => Some(format!("{{ max_version = {n} }}")),
        GcRule::MaxAge(d) => Some(format!(
            "{{ max_age = \"{}\" }}",
            go_duration(writable_age(*d))
        )),
        _ => None,
    };
    match rule {
        GcRule::Union(r) | GcRule::Intersection(r) if r.len() >= 2 => {
            let mode = if matches!(rule, GcRule::Union(_)) {
                "union"
            } else {
                "intersection"
            };
            let inner: Vec<String> = r.iter().map(|x| tf_rule(x, false)).collect();
            format!("{{ mode = \"{mode}\", rules = [{}] }}", inner.join(", "))
        }
        GcRule::Union(r) | GcRule::Intersection(r) if r.len() == 1 => tf_rule(&r[0], top),
        other => {
            let l = leaf(other).unwrap_or_default();
            if top {
                format!("{{ rules = [{l}] }}")
            } else {
                l
            }
        }
    }
}

fn terraform_export(ctx: &Ctx) -> Export {
    let mut warnings = Vec::new();
    let mut out = String::new();
    out.push_str(&format!(
        "# Tabletop export of projects/{}/instances/{} for Terraform (hashicorp/google):\n\
         # tables, column families, split keys and GC policies. Terraform creates no\n\
         # rows: load the data with `tabletop export --format cbt`.\n\n",
        comment_text(&ctx.project),
        comment_text(&ctx.instance)
    ));
    out.push_str(&format!(
        "variable \"project\" {{\n  type    = string\n  default = {}\n}}\n\n\
         variable \"instance_name\" {{\n  type    = string\n  default = {}\n}}\n",
        hcl_string(&ctx.project),
        hcl_string(&ctx.instance)
    ));
    let mut used: Vec<String> = Vec::new();
    let mut unique = |base: String| -> String {
        let mut name = base.clone();
        let mut n = 2;
        while used.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        used.push(name.clone());
        name
    };
    for (t, splits) in ctx.tables.iter().zip(&ctx.splits) {
        let res = unique(tf_name(&t.id));
        out.push_str(&format!(
            "\nresource \"google_bigtable_table\" \"{res}\" {{\n"
        ));
        let mut keys = Vec::new();
        for s in splits {
            match std::str::from_utf8(s) {
                Ok(text) => keys.push(hcl_string(text)),
                Err(_) => warnings.push(format!(
                    "table {}: Terraform strings are Unicode; the split key {} is not UTF-8, left out",
                    t.id,
                    esc(s)
                )),
            }
        }
        out.push_str("  project       = var.project\n");
        out.push_str(&format!("  name          = {}\n", hcl_string(&t.id)));
        out.push_str("  instance_name = var.instance_name\n");
        if !keys.is_empty() {
            out.push_str(&format!("  split_keys    = [{}]\n", keys.join(", ")));
        }
        for (name, f) in &t.schema.families {
            out.push_str("\n  column_family {\n");
            match aggregate_name(f.value_type) {
                Some(agg) => {
                    out.push_str(&format!("    family = {}\n", hcl_string(name)));
                    out.push_str(&format!("    type   = {}\n", hcl_string(agg)));
                }
                None => out.push_str(&format!("    family = {}\n", hcl_string(name))),
            }
            out.push_str("  }\n");
        }
        out.push_str("}\n");
        for (name, f) in &t.schema.families {
            let Some(rule) = &f.gc_rule else {
                continue;
            };
            let gres = unique(format!("{res}_{}", tf_name(name).trim_start_matches("t_")));
            out.push_str(&format!(
                "\nresource \"google_bigtable_gc_policy\" \"{gres}\" {{\n\
                 \x20 project         = var.project\n\
                 \x20 instance_name   = google_bigtable_table.{res}.instance_name\n\
                 \x20 table           = google_bigtable_table.{res}.name\n\
                 \x20 column_family   = {}\n\
                 \x20 deletion_policy = \"ABANDON\"\n\
                 \x20 gc_rules        = jsonencode({})\n\
                 }}\n",
                hcl_string(name),
                tf_rule(rule, true)
            ));
        }
    }
    Export {
        main: Script {
            name: format!("{}.tf", file_stem(&ctx.instance)),
            text: out,
            media_type: "text/plain",
        },
        files: Vec::new(),
        warnings,
        addtocell_lines: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_for_bash() {
        assert_eq!(shell_word(b"phone#1").as_deref(), Some("phone#1"));
        assert_eq!(shell_word(b"#x").as_deref(), Some("'#x'"));
        assert_eq!(shell_word(b"a b").as_deref(), Some("'a b'"));
        assert_eq!(shell_word("é".as_bytes()).as_deref(), Some("'é'"));
        assert_eq!(shell_word(b"it's").as_deref(), Some("$'it\\'s'"));
        assert_eq!(shell_word(b"\xff\n").as_deref(), Some("$'\\xff\\n'"));
        assert_eq!(shell_word(b""), Some("''".into()));
        assert_eq!(shell_word(b"a\0"), None);
    }

    #[test]
    fn durations_and_policies() {
        assert_eq!(human_duration(Duration::from_secs(30 * 86_400)), "30d");
        assert_eq!(human_duration(Duration::from_secs(5400)), "90m");
        assert_eq!(human_duration(Duration::from_millis(1500)), "1500ms");
        assert_eq!(go_duration(Duration::from_secs(86_400)), "24h");
        // Longer than Go's time.Duration holds: written at its longest.
        let long = GcRule::MaxAge(Duration::from_secs(4_236_481 * 3_600));
        assert_eq!(cbt_policy(Some(&long)), "maxage=2562047h");
        assert_eq!(gcloud_rule(&long).as_deref(), Some("maxage=2562047h"));
        let r = GcRule::Union(vec![
            GcRule::MaxAge(Duration::from_secs(86_400)),
            GcRule::MaxNumVersions(1),
        ]);
        assert_eq!(cbt_policy(Some(&r)), "maxage=1d || maxversions=1");
        assert_eq!(gcloud_rule(&r).as_deref(), Some("maxage=1d||maxversions=1"));
        assert_eq!(
            tf_rule(&r, true),
            "{ mode = \"union\", rules = [{ max_age = \"24h\" }, { max_version = 1 }] }"
        );
        let nested = GcRule::Intersection(vec![r.clone(), GcRule::MaxNumVersions(3)]);
        assert_eq!(
            cbt_policy(Some(&nested)),
            "(maxage=1d || maxversions=1) && maxversions=3"
        );
        assert_eq!(gcloud_rule(&nested), None);
        assert_eq!(cbt_policy(None), "never");
        assert_eq!(
            tf_rule(&GcRule::MaxNumVersions(2), true),
            "{ rules = [{ max_version = 2 }] }"
        );
    }

    #[test]
    fn names_cannot_inject_commands_or_paths() {
        let mut db = Instance::default();
        tabletop_wire::cbt::run_line(&mut db, "createtable t families=cf").unwrap();
        for format in [
            ExportFormat::Cbt,
            ExportFormat::Gcloud,
            ExportFormat::Terraform,
        ] {
            let options = ExportOptions {
                format,
                project: Some("x\ntouch pwned #".into()),
                instance: Some("../i\nrm -rf x".into()),
                ..ExportOptions::default()
            };
            let out = export(&mut db, &options).unwrap();
            for line in out.main.text.lines() {
                assert!(
                    !line.starts_with("touch") && !line.starts_with("rm "),
                    "{format:?}: {line}"
                );
            }
            assert!(!out.main.name.contains('/'), "{}", out.main.name);
            assert!(!out.main.name.starts_with('.'), "{}", out.main.name);
        }
    }

    #[test]
    fn hcl_strings_escape_templates() {
        assert_eq!(hcl_string("a\"b${c}%{d}\n"), "\"a\\\"b$${c}%%{d}\\n\"");
        assert_eq!(tf_name("9lives.t"), "t_9lives_t");
    }
}
