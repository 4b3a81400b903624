#!/usr/bin/env bash
# Runs the core benchmarks natively and as wasm under Node, on the mobile
# time series data set, beside the naive BTreeMap baseline.
#
#   scripts/bench.sh [ROWS ...]      default: 100000 1000000
#   scripts/bench.sh --js [ROWS]     tabletop-js against sql.js (default 100000
#                                    rows), beside the core's own wasm figures
#                                    on the same data, in the same sitting;
#                                    wall-clock and CPU-time figures both;
#                                    then issue 18's goals measured warm, all
#                                    stores in one process (bench/js/goals.mjs);
#                                    then the browser build's reads in
#                                    headless Chromium (bench/js/browser.mjs)
#                                    and its short strings
#                                    (bench/js/browser-strings.mjs)
#
# Results go to stdout; BENCHMARKS.md explains them. Needs what
# scripts/setup.sh installs (the wasm32 target and wasm-bindgen-cli).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
if [ "${1:-}" = "--js" ]; then
    rows="${2:-100000}"
    bash scripts/build-js.sh >/dev/null
    cargo build --quiet --release -p tabletop-bench --lib --target wasm32-unknown-unknown
    wasm-bindgen --target nodejs --out-dir target/bench-node \
        target/wasm32-unknown-unknown/release/tabletop_bench.wasm
    echo "== the core in-process (wasm in Node, bench/src/lib.rs), $rows rows"
    node -e '
        const b = require(process.argv[1]);
        process.stdout.write(b.run_bench(Number(process.argv[2]), false));
    ' "$ROOT/target/bench-node/tabletop_bench.js" "$rows"
    echo
    # The benchmark reads its clock through performance.now(); here that
    # answers the process's CPU time (user + system) instead, which counts
    # the work done but not the time spent waiting for a core on a busy
    # machine.
    echo "== the same, timed by the CPU time of the process (process.cpuUsage)"
    node -e '
        const b = require(process.argv[1]);
        const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
        Object.defineProperty(globalThis, "performance", { value: { now: cpuMs }, configurable: true });
        process.stdout.write(b.run_bench(Number(process.argv[2]), false));
    ' "$ROOT/target/bench-node/tabletop_bench.js" "$rows"
    echo
    echo "== the core's reads warm: 10 untimed rounds, then 11 timed (read_rounds, CPU time), $rows rows"
    node -e '
        const b = require(process.argv[1]);
        const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
        Object.defineProperty(globalThis, "performance", { value: { now: cpuMs }, configurable: true });
        process.stdout.write(b.read_rounds(Number(process.argv[2]), 10, 11) + "\n");
    ' "$ROOT/target/bench-node/tabletop_bench.js" "$rows"
    echo
    echo "== tabletop-js and sql.js (bench/js/peer.mjs), $rows rows"
    node bench/js/peer.mjs "$rows" target/tabletop-js
    echo
    echo "== issue 18's goals, warm, in one process (bench/js/goals.mjs), $rows rows"
    node --expose-gc bench/js/goals.mjs "$rows" 11 target/tabletop-js
    echo
    echo "== the browser build's reads in headless Chromium (bench/js/browser.mjs), $rows rows"
    node bench/js/browser.mjs "$rows" 15 target/tabletop-js
    echo
    echo "== short strings from bytes in headless Chromium (bench/js/browser-strings.mjs)"
    node bench/js/browser-strings.mjs
    exit 0
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)

cargo build --quiet --release -p tabletop-bench
cargo build --quiet --release -p tabletop-bench --lib --target wasm32-unknown-unknown
wasm-bindgen --target nodejs --out-dir target/bench-node \
    target/wasm32-unknown-unknown/release/tabletop_bench.wasm

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr)"
echo "rustc: $(rustc --version); node: $(node --version)"
for rows in "${sizes[@]}"; do
    echo
    echo "== native, $rows rows"
    ./target/release/tabletop-bench "$rows"
    echo
    echo "== native, the value-regex scan with the caches emptied first, $rows rows"
    ./target/release/tabletop-cold-scan "$rows"
    echo
    echo "== wasm in Node, $rows rows"
    node -e '
        const b = require(process.argv[1]);
        process.stdout.write(b.run_bench(Number(process.argv[2]), true));
    ' "$ROOT/target/bench-node/tabletop_bench.js" "$rows"
done
