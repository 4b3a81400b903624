//! `tabletop keyviz`: the live Key Visualizer of the traffic the state
//! file recorded (see `tabletop_core::keyviz::LiveKeyViz`), as text, JSON,
//! or a self-contained HTML page or PNG heatmap.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Parser;
use tabletop_core::Instance;
use tabletop_core::keyviz::{
    BucketMode, Heatmap, LiveKeyViz, LiveOptions, LiveReport, MAX_KEY_BUCKETS, Metric,
};
use tabletop_core::sim::ClusterSpec;

use crate::args::{Options, Shared, no_extra_words, parse_words};
use crate::export_cmd::Parsed;
use crate::heatmap_html::{LABEL_DEPTH, STYLE, esc, heatmap_img, heatmap_png, prefix_axis};
use crate::state;

/// Exit status when the report could not be made or written.
const FAILED: u8 = 1;
/// Key buckets of the heatmap an HTML page or PNG shows.
const KEY_BUCKETS: usize = MAX_KEY_BUCKETS;

pub fn help_text() -> String {
    "\
Print the live Key Visualizer of the traffic the state file recorded.

Usage: tabletop keyviz [OPTIONS] [--table TABLE] [--metric METRIC] [--json]
                       [--nodes N] [--out FILE.html|FILE.png]

Every operation on a table (cbt, json, sql, imports) is counted on the
instance clock, in 10-second buckets of time by ranges of keys. This
command lays that traffic over the table's real key space and tablets and
reports what the simulator reports: totals, findings such as
sequential_writes, hot_key_range, full_scans, each with a remedy, Google's
messages (high read or write pressure, large rows, no data scanned, key
space not to scale) and the key space by prefix.

Options:
      --table TABLE      The table (default: every table that has traffic)
      --metric METRIC    What the heatmap of --out shows: ops (default),
                         read_rows, write_rows, read_bytes, write_bytes,
                         rows_scanned, data_stored, rows, scan_ratio,
                         read_cpu, write_cpu, latency, read_pressure,
                         write_pressure
      --json             The report as JSON (with --table one object, else
                         {\"tables\": [...]})
      --nodes N          Nodes the tablets are given to, as the simulator's
                         balancer gives them by the CPU recorded: 1 to 1000
                         (default 3, a scenario's default cluster); each
                         tablet's node is in the JSON, the count per node
                         in the text and the HTML page
      --out FILE         Write a heatmap of up to 1000 key buckets:
                         FILE.html (a self-contained page, the key axis
                         labelled by prefix, with the findings) or
                         FILE.png; needs one table
      --state FILE       The state file [default: $TABLETOP_STATE, else
                         ./tabletop.state]
  -h, --help             Print help

The state file is only read. Exit status: 0 success; 1 the state file
could not be read, the table does not exist or a file could not be
written; 2 the command line was not understood.

Examples:
  tabletop cbt read mobile prefix=phone#4c41 && tabletop keyviz --table mobile
  tabletop keyviz --table mobile --json | jq '.diagnostics[].pattern'
  tabletop keyviz --table mobile --metric read_rows --out keyviz.html
  tabletop keyviz --table mobile --nodes 5
"
    .to_string()
}

/// `--nodes N`: 1 to [`ClusterSpec::MAX_NODES`] (also `serve`'s, for the
/// page of `--keyviz-out`).
pub(crate) fn nodes(v: &str) -> Result<u32, String> {
    let max = ClusterSpec::MAX_NODES;
    v.parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("--nodes {v}: want a whole number from 1 to {max}"))
}

fn metric(v: &str) -> Result<Metric, String> {
    Metric::from_name(v).ok_or_else(|| {
        let names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
        format!("--metric {v}: want one of {}", names.join(", "))
    })
}

/// What `keyviz` was asked for, besides the shared options.
#[derive(Debug, Default)]
pub struct KeyvizArgs {
    table: Option<String>,
    metric: Option<Metric>,
    json: bool,
    nodes: Option<u32>,
    out: Option<PathBuf>,
}

#[derive(Parser, Debug)]
#[command(name = "keyviz", disable_help_flag = true)]
pub struct KeyvizCli {
    #[command(flatten)]
    shared: Shared,
    #[arg(long, value_name = "TABLE")]
    table: Option<String>,
    #[arg(long, value_name = "METRIC", value_parser = metric)]
    metric: Option<Metric>,
    #[arg(long)]
    json: bool,
    #[arg(long, value_name = "N", value_parser = nodes)]
    nodes: Option<u32>,
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    #[arg(short = 'h', long = "help")]
    help: bool,
    #[arg(hide = true)]
    unexpected: Vec<OsString>,
}

pub fn parse(
    mut options: Options,
    args: &[OsString],
) -> Result<(Options, Parsed<KeyvizArgs>), String> {
    let takes_options = ": tabletop keyviz takes options only (--table names a table)";
    let a: KeyvizCli = parse_words("keyviz", args, takes_options)?;
    if a.help {
        return Ok((options, Parsed::Help));
    }
    no_extra_words(&a.unexpected, takes_options)?;
    if let Some(out) = &a.out
        && out_kind(out).is_none()
    {
        return Err(format!(
            "--out {}: the file name must end in .html or .png",
            out.display()
        ));
    }
    a.shared.apply(&mut options);
    Ok((
        options,
        Parsed::Run(KeyvizArgs {
            table: a.table,
            metric: a.metric,
            json: a.json,
            nodes: a.nodes,
            out: a.out,
        }),
    ))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutKind {
    Html,
    Png,
}

fn out_kind(path: &Path) -> Option<OutKind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => Some(OutKind::Html),
        "png" => Some(OutKind::Png),
        _ => None,
    }
}

/// Runs `tabletop keyviz` with the words after `keyviz`.
pub fn run(options: Options, args: &[OsString]) -> u8 {
    let (options, parsed) = match parse(options, args) {
        Ok(p) => p,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return 2;
        }
    };
    let args = match parsed {
        Parsed::Help => return print(&help_text()),
        Parsed::Run(a) => a,
    };
    let path = options.state_path();
    let names = options.names();
    let mut all = match state::load(&path, names) {
        Ok(db) => db,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return FAILED;
        }
    };
    let db = match state::select(&mut all, names) {
        Ok(db) => db,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return FAILED;
        }
    };
    let tables = match tables(db, args.table.as_deref()) {
        Ok(t) => t,
        Err(message) => {
            eprintln!("tabletop: {message}");
            return FAILED;
        }
    };
    let live_options = live_options(args.nodes);
    let mut lives = Vec::with_capacity(tables.len());
    for t in &tables {
        match LiveKeyViz::build(db, t, &live_options) {
            Ok(l) => lives.push(l),
            Err(e) => {
                eprintln!("tabletop: {t}: {}", e.message());
                return FAILED;
            }
        }
    }
    let metric = args.metric.unwrap_or(Metric::Ops);
    if let Some(out) = &args.out {
        let [live] = lives.as_slice() else {
            eprintln!(
                "tabletop: --out draws one table; name it with --table (tables with traffic: {})",
                tables.join(", ")
            );
            return FAILED;
        };
        return write_out(live, metric, out);
    }
    let reports: Vec<LiveReport> = lives.iter().map(|l| l.report(None)).collect();
    print(&format_reports(&reports, args.json, args.table.is_some()))
}

/// The tables to report: the one named (which must exist), else every
/// table with traffic (every table when none has any).
fn tables(db: &Instance, named: Option<&str>) -> Result<Vec<String>, String> {
    if let Some(t) = named {
        db.get_table(t).map_err(|e| e.message().to_string())?;
        return Ok(vec![t.to_string()]);
    }
    let all: Vec<String> = db.list_tables().into_iter().map(|t| t.id).collect();
    let busy: Vec<String> = all
        .iter()
        .filter(|t| db.traffic(t).is_ok_and(|tr| !tr.is_empty()))
        .cloned()
        .collect();
    Ok(if busy.is_empty() { all } else { busy })
}

fn format_reports(reports: &[LiveReport], json: bool, single: bool) -> String {
    if json {
        let mut text = if single && reports.len() == 1 {
            reports.first().map(LiveReport::to_json).unwrap_or_default()
        } else {
            // `{"tables": [...]}`, each report's fields in their order.
            let list: Vec<String> = reports.iter().map(LiveReport::to_json).collect();
            format!("{{\"tables\": [\n{}\n]}}", list.join(",\n"))
        };
        text.push('\n');
        return text;
    }
    if reports.is_empty() {
        return "The state holds no tables.\n".to_string();
    }
    reports
        .iter()
        .map(LiveReport::to_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn print(text: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`tabletop keyviz | head`) ends quietly.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    0
}

fn write_out(live: &LiveKeyViz, metric: Metric, out: &Path) -> u8 {
    let heatmap = live.heatmap(metric, BucketMode::EqualKeys, KEY_BUCKETS);
    let bytes = match out_kind(out) {
        Some(OutKind::Png) => heatmap_png(&heatmap, true),
        _ => html_page(live, &heatmap).into_bytes(),
    };
    match std::fs::write(out, bytes) {
        Ok(()) => {
            eprintln!("tabletop: wrote {}", out.display());
            0
        }
        Err(e) => {
            eprintln!("tabletop: cannot write {}: {e}", out.display());
            FAILED
        }
    }
}

/// A page that needs nothing from the network: the heatmap as an inline
/// PNG, the key axis labelled by prefix levels beside it, the report's
/// text below.
fn html_page(live: &LiveKeyViz, h: &Heatmap) -> String {
    let title = format!("Key Visualizer: {}", esc(live.table()));
    html_document(&title, &html_section(live, h))
}

/// One table's part of a page: its heading, heatmap and report.
fn html_section(live: &LiveKeyViz, h: &Heatmap) -> String {
    let report = live.report(None);
    let axis = prefix_axis(&live.prefix_tree(h, LABEL_DEPTH), h.key_buckets);
    format!(
        "<h1>Key Visualizer: {table}</h1>\n<p>{metric} ({unit}), {t} time buckets of {secs} s; \
key space from the top (start) to the bottom (end), labelled by key prefix; brighter is \
busier.</p>\n<div class=\"map\">{axis}{img}</div>\n<pre>{text}</pre>\n",
        table = esc(live.table()),
        metric = h.metric.name(),
        unit = esc(&h.unit),
        t = h.time_buckets,
        secs = h.bucket_seconds,
        img = heatmap_img(h, "heatmap"),
        text = esc(&report.to_text()),
    )
}

/// A self-contained page around `body` (`title` already escaped).
fn html_document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\">\
<title>{title}</title>\n<style>{STYLE}</style></head><body>\n{body}</body></html>\n"
    )
}

/// The page of every table with traffic (every table when none has
/// any), one section each with its operations heatmap and its tablets
/// given to `nodes` nodes (the default cluster's when `None`): what
/// `tabletop serve --keyviz-out` writes when it stops.
pub fn served_page(db: &mut Instance, nodes: Option<u32>) -> Result<String, String> {
    let options = live_options(nodes);
    let mut body = String::new();
    for t in tables(db, None)? {
        let live =
            LiveKeyViz::build(db, &t, &options).map_err(|e| format!("{t}: {}", e.message()))?;
        let heatmap = live.heatmap(Metric::Ops, BucketMode::EqualKeys, KEY_BUCKETS);
        body.push_str(&html_section(&live, &heatmap));
    }
    if body.is_empty() {
        body.push_str("<p>The server held no tables.</p>\n");
    }
    Ok(html_document("Key Visualizer of the served traffic", &body))
}

/// The live Key Visualizer's options: its defaults, with the tablets
/// given to `nodes` nodes when asked.
fn live_options(nodes: Option<u32>) -> LiveOptions {
    let default = LiveOptions::default();
    LiveOptions {
        nodes: nodes.unwrap_or(default.nodes),
        ..default
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_names_the_format() {
        assert_eq!(out_kind(Path::new("a.html")), Some(OutKind::Html));
        assert_eq!(out_kind(Path::new("a.PNG")), Some(OutKind::Png));
        assert_eq!(out_kind(Path::new("a.svg")), None);
        let err = parse(Options::default(), &["--out".into(), "x.txt".into()])
            .err()
            .unwrap_or_default();
        assert!(err.contains("must end in .html or .png"), "{err}");
        let err = parse(Options::default(), &["--metric".into(), "heat".into()])
            .err()
            .unwrap_or_default();
        assert!(err.contains("want one of ops"), "{err}");
    }
}
