//! The value-regex full scan with the processor's caches emptied first:
//! `tabletop-cold-scan [ROWS] [ROUNDS]` (defaults 100000 and 41).
//!
//! The store of `WarmReads` (the mobile data set, loaded and compacted),
//! warmed by ten rounds of every read phase; then in each round a sweep
//! that reads and writes 512 MiB (more than the caches hold), the scan
//! timed ("cold"), and the scan timed again at once ("hot"). Prints the
//! medians and the lowest of each, in ms. What a scan costs when its data
//! is not cached is what passing cells read ahead (`RunReader::read_ahead`)
//! is for; BENCHMARKS.md, "Passing cells read ahead".

use std::time::Instant;

use tabletop_bench::warm::WarmReads;

/// Bytes the sweep between rounds goes through.
const SWEEP_BYTES: usize = 512 << 20;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut number = |default: usize| match args.next() {
        None => default,
        Some(a) => a.replace('_', "").parse().unwrap_or_else(|_| {
            eprintln!("usage: tabletop-cold-scan [ROWS] [ROUNDS]");
            std::process::exit(2);
        }),
    };
    let rows = number(100_000);
    let rounds = number(41).max(1);
    let mut store = WarmReads::new(rows);
    if store.load() != 0 {
        eprintln!("tabletop-cold-scan: the load failed writes");
        std::process::exit(1);
    }
    store.compact();
    for _ in 0..10 {
        store.point_reads();
        store.prefix_scans();
        store.regex_scan();
    }
    let mut sweep = vec![1u64; SWEEP_BYTES / 8];
    let (mut cold, mut hot) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    let mut returned = 0;
    for _ in 0..rounds {
        let mut acc = 0u64;
        // One word per cache line, read and written back.
        for word in sweep.iter_mut().step_by(8) {
            acc = acc.wrapping_add(*word);
            *word = acc;
        }
        std::hint::black_box(acc);
        let start = Instant::now();
        returned = store.regex_scan();
        cold.push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        store.regex_scan();
        hot.push(start.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "value-regex scan of {} rows ({returned} returned), {rounds} rounds, ms median (lowest):",
        store.rows()
    );
    println!("  caches emptied first: {}", summary(&mut cold));
    println!("  right after:          {}", summary(&mut hot));
}

/// "median (lowest)" of `ms`.
fn summary(ms: &mut [f64]) -> String {
    ms.sort_by(f64::total_cmp);
    format!("{:.2} ({:.2})", ms[ms.len() / 2], ms[0])
}
