//! Native simulator benchmark: `tabletop-sim-bench [OPS]` (default one
//! million operations).

use std::time::Instant;

fn main() {
    let mut ops = 1_000_000u64;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("usage: tabletop-sim-bench [OPS]");
                return;
            }
            n => match n.replace('_', "").parse() {
                Ok(v) => ops = v,
                Err(_) => {
                    eprintln!("tabletop-sim-bench: not an operation count: {n}");
                    std::process::exit(2);
                }
            },
        }
    }
    let origin = Instant::now();
    let now = move || origin.elapsed().as_secs_f64() * 1000.0;
    print!("{}", tabletop_bench::sim::run(ops, &now).to_text());
}
