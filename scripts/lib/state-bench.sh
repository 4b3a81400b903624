# Shared by the state-file benchmarks (scripts/bench-state.sh,
# scripts/bench-schema.sh); sourced, not run. Both measure `tabletop`
# binaries on a state of the seeds' mobile time series (5 cells a row).
#
# Expects ROOT (the checkout) to be set and `set -euo pipefail` in force.

# bench_binaries BINARY...: sets the array `bins` to the binaries given as
# absolute paths, or, when none is given, to this checkout's release build
# (built first).
bench_binaries() {
    bins=("$@")
    if [ ${#bins[@]} -eq 0 ]; then
        cargo build --quiet --release -p tabletop-cli
        bins=("$ROOT/target/release/tabletop")
    fi
    local i
    for i in "${!bins[@]}"; do bins[$i]="$(realpath "${bins[$i]}")"; done
}

# bench_workdir NAME: makes target/NAME, sets `work` to it and enters it.
bench_workdir() {
    work="$ROOT/target/$1"
    mkdir -p "$work"
    cd "$work"
}

# ms START END: the milliseconds between two `now` readings.
ms() { echo $(( ($2 - $1) / 1000000 )); }
# now: the wall clock in nanoseconds.
now() { date +%s%N; }

# mobile_csv ROWS > FILE: a cbt import CSV of ROWS rows
# phone#NNNNN#2020MMDD (10,000 phones, ROWS/10,000 days each) with the
# families stats_summary (os_build, connected_cell, connected_wifi) and
# stats_detail (memory, cpu). The same ROWS always gives the same file.
mobile_csv() {
    awk -v rows="$1" 'BEGIN {
        print ",stats_summary,stats_summary,stats_summary,stats_detail,stats_detail";
        print ",os_build,connected_cell,connected_wifi,memory,cpu";
        days = int(rows / 10000); if (days < 1) days = 1;
        srand(1);
        for (p = 0; p < rows / days; p++)
            for (d = 0; d < days; d++)
                printf "phone#%05d#2020%02d%02d,PQ2A.190405.%03d,1,%d,%d,%d\n",
                    p, int(d / 28) + 1, d % 28 + 1, p % 1000, d % 2,
                    1000 + int(rand() * 9000), 1 + int(rand() * 99);
    }'
}

# machine_line: one line naming the machine and its load, for the report.
machine_line() {
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
