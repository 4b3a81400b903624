//! Native bulk-load benchmark: `tabletop-ingest-bench [ROWS] [--series]
//! [--import] [--paced] [--budget MS]` (default one million generated rows
//! of the timestamp-first scenario through the bulk write; `--series`: a
//! device time series like the page's sample data; `--import`: through the
//! sorted import; ticks whole, counted against a 24 ms budget, or
//! `--paced`: each tick given that budget).

use std::time::Instant;

use tabletop_bench::ingest::{Load, Path, TickMode};

const USAGE: &str =
    "usage: tabletop-ingest-bench [ROWS] [--series] [--import] [--paced] [--budget MS]";

fn main() {
    let mut rows = 1_000_000u64;
    let (mut load, mut path) = (Load::Scenario, Path::Write);
    let mut mode = TickMode::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            "--series" => load = Load::Series,
            "--import" => path = Path::Import,
            "--paced" => mode.paced = true,
            "--budget" => match args.next().and_then(|v| v.parse::<f64>().ok()) {
                Some(ms) if ms > 0.0 => mode.budget_ms = ms,
                _ => fail("--budget takes a number of milliseconds over 0"),
            },
            n => match n.replace('_', "").parse() {
                Ok(v) => rows = v,
                Err(_) => fail(&format!("not a row count: {n}")),
            },
        }
    }
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64() * 1000.0;
    let report = tabletop_bench::ingest::run_load(rows, load, path, mode, &now);
    print!("{}", report.to_text());
}

fn fail(why: &str) -> ! {
    eprintln!("tabletop-ingest-bench: {why}\n{USAGE}");
    std::process::exit(2);
}
