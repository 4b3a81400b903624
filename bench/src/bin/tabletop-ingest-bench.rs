//! Native bulk-load benchmark: `tabletop-ingest-bench [--paced] [--budget
//! MS] [ROWS]` (default one million generated rows of the timestamp-first
//! scenario; ticks whole, counted against a 24 ms budget, or `--paced`:
//! each tick given that budget).

use std::time::Instant;

use tabletop_bench::ingest::TickMode;

const USAGE: &str = "usage: tabletop-ingest-bench [--paced] [--budget MS] [ROWS]";

fn main() {
    let mut rows = 1_000_000u64;
    let mut mode = TickMode {
        budget_ms: 24.0,
        paced: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
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
    print!(
        "{}",
        tabletop_bench::ingest::run(rows, mode, &now).to_text()
    );
}

fn fail(why: &str) -> ! {
    eprintln!("tabletop-ingest-bench: {why}\n{USAGE}");
    std::process::exit(2);
}
