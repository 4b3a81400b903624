#!/usr/bin/env bash
# The state file's cost per write (issue 19 item 3): one `tabletop cbt set`
# on a state of ROWS rows (the seeds' mobile time series, 5 cells a row),
# and a script of SETS `set` commands run as SETS separate processes.
#
#   scripts/bench-state.sh [ROWS] [SETS] [BINARY...]
#
# ROWS defaults to 1000000, SETS to 1000; BINARY defaults to the release
# build of this checkout (built first). Give two binaries (an older build
# first) to measure before and after in one sitting. Files go under
# target/bench-state/ and are removed at the end. Results go to stdout;
# BENCHMARKS.md explains them.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
# shellcheck source=lib/state-bench.sh
source "$ROOT/scripts/lib/state-bench.sh"
rows="${1:-1000000}"
sets="${2:-1000}"
shift $(( $# < 2 ? $# : 2 ))
bench_binaries "$@"
bench_workdir bench-state
trap 'rm -f "$work"/mobile.csv "$work"/base.state* "$work"/.base.state* "$work"/big.state* "$work"/.big.state*' EXIT

mobile_csv "$rows" > mobile.csv

machine_line
for bin in "${bins[@]}"; do
    echo
    echo "== $bin ($rows rows, $sets sets)"
    rm -f base.state* .base.state* big.state* .big.state*
    "$bin" --state base.state cbt createtable mobile families=stats_summary,stats_detail
    t0=$(now)
    "$bin" --state base.state --no-progress cbt import mobile mobile.csv 2>/dev/null
    t1=$(now)
    echo "import: $(ms "$t0" "$t1") ms; snapshot $(stat -c %s base.state) bytes"

    cp -p base.state big.state
    [ -e base.state.wal ] && cp -p base.state.wal big.state.wal
    t0=$(now); "$bin" --version > /dev/null; t1=$(now)
    echo "process start (tabletop --version): $(ms "$t0" "$t1") ms"
    t0=$(now); "$bin" --state big.state cbt ls > /dev/null; t1=$(now)
    echo "open the state whole (cbt ls): $(ms "$t0" "$t1") ms"

    # Single sets: each a new process; the first ones show the steady state.
    single=()
    for i in 1 2 3 4 5; do
        t0=$(now)
        "$bin" --state big.state cbt set mobile "phone#00001#20200101" "stats_summary:os_build=single$i"
        t1=$(now)
        single+=("$(ms "$t0" "$t1")")
    done
    echo "single set, 5 runs: ${single[*]} ms"
    json=()
    for i in 1 2 3 4 5; do
        line="{\"method\": \"mutateRow\", \"request\": {\"tableName\": \"projects/tabletop/instances/playground/tables/mobile\", \"rowKey\": \"cGhvbmUjMDAwMDIjMjAyMDAxMDE=\", \"mutations\": [{\"setCell\": {\"familyName\": \"stats_summary\", \"columnQualifier\": \"b3NfYnVpbGQ=\", \"timestampMicros\": \"-1\", \"value\": \"anNvbiRp\"}}]}}"
        t0=$(now)
        echo "$line" | "$bin" --state big.state json > /dev/null
        t1=$(now)
        json+=("$(ms "$t0" "$t1")")
    done
    echo "single json mutateRow, 5 runs: ${json[*]} ms"

    t0=$(now)
    for ((i = 0; i < sets; i++)); do
        "$bin" --state big.state cbt set mobile "phone#$(printf %05d $((i % 10000)))#20200102" "stats_summary:os_build=run$i"
    done
    t1=$(now)
    total=$(ms "$t0" "$t1")
    echo "$sets sets, one process each: $total ms ($(( total / sets )) ms a set)"
    echo "log after: $(stat -c %s big.state.wal 2>/dev/null || echo 0) bytes; snapshot $(stat -c %s big.state) bytes"
    t0=$(now); "$bin" --state big.state cbt ls > /dev/null; t1=$(now)
    echo "open the state whole, log replayed (cbt ls): $(ms "$t0" "$t1") ms"
    out=$("$bin" --state big.state cbt lookup mobile "phone#00001#20200102")
    echo "check: the lookup of phone#00001#20200102 shows run1: $(echo "$out" | grep -c '"run1"')"
done
