//! `tabletop sim SCENARIO.toml [--json]`: runs a simulation scenario (see
//! `tabletop_core::sim`) to the end and prints its report; with `--vs
//! B.toml`, compares two designs on one workload and only formats what
//! `tabletop_core::compare` found.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use tabletop_core::advisor;
use tabletop_core::compare::{self, AbRun};
use tabletop_core::keyviz::Metric;
use tabletop_core::sim::{self, Output, Scenario};

use crate::heatmap_html::{LABEL_DEPTH, STYLE, esc, heatmap_img, prefix_axis};

/// Runs the scenario in `path` (`-` is stdin). Returns the exit status: 0,
/// or 1 when the file cannot be read or the scenario is refused.
pub fn run(path: &Path, json: bool) -> u8 {
    let text = match crate::input::read_text(path, "scenario") {
        Ok(text) => text,
        Err(message) => {
            eprintln!("{message}");
            return 1;
        }
    };
    let output = if json { Output::Json } else { Output::Text };
    match sim::run_toml(&text, output) {
        Ok(mut report) => {
            if !report.ends_with('\n') {
                report.push('\n');
            }
            let mut out = io::stdout().lock();
            // A closed pipe (`tabletop sim s.toml | head`) ends quietly.
            let _ = out.write_all(report.as_bytes()).and_then(|()| out.flush());
            0
        }
        Err(e) => {
            eprintln!("tabletop: {}: {}", path.display(), e.message());
            1
        }
    }
}

/// Reads and parses one scenario file for an A/B run; the error is the
/// sentence to print.
fn scenario(path: &Path) -> Result<Scenario, String> {
    let text = crate::input::read_text(path, "scenario")?;
    Scenario::from_toml(&text).map_err(|e| format!("tabletop: {}: {}", path.display(), e.message()))
}

/// `tabletop sim A.toml --vs B.toml [--json] [--out AB.html]`: both
/// designs on one workload (see `tabletop_core::compare`), printed as text
/// or JSON, and optionally as an HTML page. Returns 0, or 1 when a file
/// cannot be read, a scenario is refused, the workloads differ or the
/// page cannot be written.
pub fn run_vs(a: &Path, b: &Path, json: bool, out: Option<&Path>) -> u8 {
    let (sa, sb) = match (scenario(a), scenario(b)) {
        (Ok(sa), Ok(sb)) => (sa, sb),
        (Err(m), _) | (_, Err(m)) => {
            eprintln!("{m}");
            return 1;
        }
    };
    let ab = match compare::compare(&sa, &sb, advisor::access_cases) {
        Ok(ab) => ab,
        Err(e) => {
            eprintln!(
                "tabletop: {} --vs {}: {}",
                a.display(),
                b.display(),
                e.message()
            );
            return 1;
        }
    };
    let c = &ab.comparison;
    let mut text = if json { c.to_json() } else { c.to_text() };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let mut stdout = io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
    if let Some(out) = out {
        if let Err(e) = std::fs::write(out, ab_page(&ab)) {
            eprintln!("tabletop: cannot write {}: {e}", out.display());
            return 1;
        }
        eprintln!("tabletop: wrote {}", out.display());
    }
    0
}

/// Heatmaps the A/B page shows, each for both designs on one scale.
const PAGE_METRICS: [Metric; 4] = [
    Metric::Ops,
    Metric::WritePressure,
    Metric::ReadPressure,
    Metric::RowsScanned,
];
/// Key buckets of the page's heatmaps.
const PAGE_KEY_BUCKETS: usize = 1000;

/// A self-contained page: for each metric, both designs' heatmaps side by
/// side on one colour scale with their prefix axes, then the comparison's
/// text.
fn ab_page(ab: &AbRun) -> String {
    let c = &ab.comparison;
    let mut body = String::new();
    for metric in PAGE_METRICS {
        let maps = ab.heatmaps(metric, PAGE_KEY_BUCKETS);
        let _ = write!(
            body,
            "<h2>{} ({}); one colour scale for both, brightest = {:.3}</h2><div class=\"pair\">",
            metric.name(),
            esc(metric.unit()),
            maps[0].max
        );
        for (h, (sim, run)) in maps.iter().zip([(&ab.a, &c.a), (&ab.b, &c.b)]) {
            let axis = prefix_axis(&sim.prefix_tree(h, LABEL_DEPTH), h.key_buckets);
            let _ = write!(
                body,
                "<figure><figcaption>Design {}: {} <code>{}</code></figcaption>\
                 <div class=\"map\">{axis}{}</div></figure>",
                run.side.name(),
                esc(&run.scenario),
                esc(&run.key_pattern),
                heatmap_img(
                    h,
                    &format!("{} heatmap of design {}", metric.name(), run.side.name())
                ),
            );
        }
        body.push_str("</div>");
    }
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\">\
<title>A/B: {a} vs {b}</title>\n<style>{STYLE}.pair .hm{{width:540px}}figure{{margin:0}}</style>\
</head><body>\n\
<h1>A/B: {a} vs {b}</h1>\n<p><strong>{verdict}</strong></p>\n<p>Time runs left to right; \
the key space from the top (start) to the bottom (end), labelled by key prefix.</p>\n\
{body}\n<pre>{text}</pre>\n</body></html>\n",
        a = esc(&c.a.scenario),
        b = esc(&c.b.scenario),
        verdict = esc(&c.verdict),
        text = esc(&c.to_text()),
    )
}
