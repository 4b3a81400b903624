#!/usr/bin/env bash
# The state file's cost per schema change (issue 20 item 2): on a state of
# ROWS rows (the seeds' mobile time series, 5 cells a row),
#   - one-shot `tabletop cbt createfamily` and `setgcpolicy`, each its own
#     process, then a one-shot `cbt set` after them;
#   - `tabletop serve --state` taking CreateFamily (ModifyColumnFamilies)
#     from the real `cbt` (each call its own `cbt` process; `cbt ls` shows
#     what a call costs without a change).
#
#   scripts/bench-schema.sh [ROWS] [BINARY...]
#
# ROWS defaults to 100000; BINARY defaults to the release build of this
# checkout (built first). Give two binaries (an older build first) to
# measure before and after in one sitting. Files go under
# target/bench-schema/ and are removed at the end. Results go to stdout;
# BENCHMARKS.md explains them.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
# shellcheck source=lib/state-bench.sh
source "$ROOT/scripts/lib/state-bench.sh"
rows="${1:-100000}"
shift $(( $# < 1 ? $# : 1 ))
bench_binaries "$@"
bench_workdir bench-schema
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -f "$work"/mobile.csv "$work"/base.state* "$work"/.base.state* "$work"/big.state* \
        "$work"/.big.state* "$work"/serve.out
}
trap cleanup EXIT

mobile_csv "$rows" > mobile.csv

# Runs "$@" five times with the run number in place of {}; prints the
# times in ms.
five() {
    local out=() t0 t1
    for i in 1 2 3 4 5; do
        t0=$(now)
        "${@//\{\}/$i}" > /dev/null
        t1=$(now)
        out+=("$(ms "$t0" "$t1")")
    done
    echo "${out[*]}"
}

machine_line
for bin in "${bins[@]}"; do
    echo
    echo "== $bin ($rows rows)"
    rm -f base.state* .base.state* big.state* .big.state*
    "$bin" --state base.state cbt createtable mobile families=stats_summary,stats_detail
    "$bin" --state base.state --no-progress cbt import mobile mobile.csv 2>/dev/null
    echo "snapshot: $(stat -c %s base.state) bytes"
    cp -p base.state big.state
    t0=$(now); "$bin" --state big.state cbt ls > /dev/null; t1=$(now)
    echo "open the state whole (cbt ls): $(ms "$t0" "$t1") ms"

    echo "one-shot cbt createfamily, 5 runs: $(five "$bin" --state big.state cbt createfamily mobile extra{}) ms"
    echo "one-shot cbt setgcpolicy, 5 runs: $(five "$bin" --state big.state cbt setgcpolicy mobile extra{} maxversions=1) ms"
    echo "one-shot cbt set after them, 5 runs: $(five "$bin" --state big.state cbt set mobile phone#00001#20200101 extra1:q=v{}) ms"
    echo "log: $(stat -c %s big.state.wal 2>/dev/null || echo 0) bytes"

    # Served: the state stays loaded; each change is kept as it commits.
    rm -f big.state* .big.state*
    cp -p base.state big.state
    "$bin" serve -host 127.0.0.1 -port 0 --state big.state > serve.out &
    server=$!
    for _ in $(seq 1 600); do grep -q "running on" serve.out 2>/dev/null && break; sleep 0.1; done
    addr=$(sed -n 's/.*running on //p' serve.out)
    export BIGTABLE_EMULATOR_HOST="$addr"
    echo "served cbt ls (a call, no change), 5 runs: $(five cbt -project tabletop -instance playground -creds /dev/null ls mobile) ms"
    echo "served cbt createfamily, 5 runs: $(five cbt -project tabletop -instance playground -creds /dev/null createfamily mobile served{}) ms"
    echo "served cbt setgcpolicy, 5 runs: $(five cbt -project tabletop -instance playground -creds /dev/null setgcpolicy mobile served{} maxversions=1) ms"
    kill "$server"
    wait "$server" || true
    server=""
    unset BIGTABLE_EMULATOR_HOST
done
