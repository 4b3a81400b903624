//! Native bulk-load benchmark: `tabletop-ingest-bench [ROWS] [--series]
//! [--import]` (default one million generated rows of the timestamp-first
//! scenario through the bulk write; `--series`: a device time series
//! like the page's sample data; `--import`: through the sorted import).

use std::time::Instant;

use tabletop_bench::ingest::{Load, Path};

fn main() {
    let mut rows = 1_000_000u64;
    let (mut load, mut path) = (Load::Scenario, Path::Write);
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("usage: tabletop-ingest-bench [ROWS] [--series] [--import]");
                return;
            }
            "--series" => load = Load::Series,
            "--import" => path = Path::Import,
            n => match n.replace('_', "").parse() {
                Ok(v) => rows = v,
                Err(_) => {
                    eprintln!("tabletop-ingest-bench: not a row count: {n}");
                    std::process::exit(2);
                }
            },
        }
    }
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64() * 1000.0;
    let report = tabletop_bench::ingest::run_load(rows, load, path, &now);
    print!("{}", report.to_text());
}
