//! Native bulk-load benchmark: `tabletop-ingest-bench [ROWS]` (default one
//! million generated rows of the timestamp-first scenario).

use std::time::Instant;

fn main() {
    let mut rows = 1_000_000u64;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("usage: tabletop-ingest-bench [ROWS]");
                return;
            }
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
    print!("{}", tabletop_bench::ingest::run(rows, &now).to_text());
}
