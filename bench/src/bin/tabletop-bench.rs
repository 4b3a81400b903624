//! Native benchmark runner: `tabletop-bench [ROWS] [--no-baseline]`.

use std::time::Instant;

fn main() {
    let mut rows = 100_000usize;
    let mut baseline = true;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--no-baseline" => baseline = false,
            "-h" | "--help" => {
                println!("usage: tabletop-bench [ROWS] [--no-baseline]");
                return;
            }
            n => match n.replace('_', "").parse() {
                Ok(v) => rows = v,
                Err(_) => {
                    eprintln!("tabletop-bench: not a row count: {n}");
                    std::process::exit(2);
                }
            },
        }
    }
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64() * 1000.0;
    print!("{}", tabletop_bench::run(rows, baseline, &now).to_text());
}
