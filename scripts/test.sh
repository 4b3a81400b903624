#!/usr/bin/env bash
# Runs every check and test of Tabletop, in order, and reports each:
#   formatting, clippy (native and wasm32), native tests, the core built and
#   tested as wasm in Node, the web app's tests in headless Chromium, the
#   tabletop-js package in Node and headless Chromium, the differential suite
#   against Google's Bigtable emulator (real cbt and the official Python
#   client), `tabletop serve` driven by the Python client, the release build,
#   and an end-to-end test of that build served under a sub-path. Ends with the test runners' summary lines and one line
#   `summary: N passed, M failed` (tests, plus one per check step); exits
#   non-zero if anything failed. Installs what is missing first (setup.sh).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if ! bash scripts/setup.sh; then
    echo "test: setup failed; nothing was tested"
    echo "summary: 0 passed, 1 failed"
    exit 1
fi

export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CARGO_TERM_PROGRESS_WHEN=never
# A clean clone never reuses incremental state; it only costs disk.
if [ "${CI:-}" = "true" ]; then export CARGO_INCREMENTAL=0; fi

# Chromium keeps a profile of about 90 MB per launch under $TMPDIR, and
# chromedriver (behind wasm-bindgen-test-runner) leaves them there. The
# browser steps get a temporary directory of their own, removed after them.
BROWSER_TMP="$ROOT/target/browser-tmp"
browser_step() {
    rm -rf "$BROWSER_TMP"
    mkdir -p "$BROWSER_TMP"
    TMPDIR="$BROWSER_TMP" run_step "$@"
    rm -rf "$BROWSER_TMP"
}

# Free disk decides whether a run can finish (a full one writes several GB
# under target/); say how much there was, so a full disk is easy to spot.
disk_free() { df -h "$ROOT" | awk 'NR == 2 { print $4 " free on " $6 }'; }
echo "disk: $(disk_free) before the run"

LOG_DIR="$ROOT/target/test-logs"
mkdir -p "$LOG_DIR"

TOTAL_PASSED=0
TOTAL_FAILED=0
RESULTS=()   # one formatted line per step
RUNNER_LINES=()
STEP_NO=0
FAILED_STEPS=()

# run_step KIND NAME COMMAND...
#   KIND "check": the step counts as one passed or failed check.
#   KIND "tests": the runners' own counts are added up (libtest and
#   wasm-bindgen-test-runner `test result:` lines, node's `# pass`/`# fail`);
#   a step that fails without reporting a failed test counts one failure.
run_step() {
    local kind="$1" name="$2"
    shift 2
    STEP_NO=$((STEP_NO + 1))
    local log="$LOG_DIR/$(printf '%02d' "$STEP_NO")-${name// /-}.log"
    printf '\n===== [%d] %s: %s\n' "$STEP_NO" "$name" "$*"
    local start=$EPOCHREALTIME
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    local secs
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

    local passed=0 failed=0 detail
    if [ "$kind" = "check" ]; then
        if [ "$rc" -eq 0 ]; then passed=1; else failed=1; fi
        detail="check"
    else
        local clean counts
        clean=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
        counts=$(printf '%s\n' "$clean" | awk '
            /^test result: / {
                for (i = 1; i <= NF; i++) {
                    if ($(i + 1) ~ /^passed;?$/) p += $i
                    if ($(i + 1) ~ /^failed;?$/) f += $i
                }
            }
            /^# pass [0-9]+$/ { p += $3 }
            /^# fail [0-9]+$/ { f += $3 }
            /^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3 }
            END { printf "%d %d", p, f }')
        passed=${counts% *}
        failed=${counts#* }
        if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
        detail="$passed passed, $failed failed"
        while IFS= read -r line; do
            RUNNER_LINES+=("$line")
        done < <(printf '%s\n' "$clean" | grep -E '^(test result: |# (tests|pass|fail) [0-9]+$|[0-9]+ passed, [0-9]+ failed$)')
    fi
    TOTAL_PASSED=$((TOTAL_PASSED + passed))
    TOTAL_FAILED=$((TOTAL_FAILED + failed))
    local status="ok"
    if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then
        status="FAILED"
        FAILED_STEPS+=("$name (log: ${log#"$ROOT"/})")
    fi
    RESULTS+=("$(printf '%-7s %-34s %-22s %7s s' "$status" "$name" "$detail" "$secs")")
    return 0
}

WASM=wasm32-unknown-unknown

# --no-fail-fast: run every test binary even after one fails, so the counts
# below are complete.

run_step check "fmt" cargo fmt --all --check
run_step check "clippy" cargo clippy --workspace --all-targets -- -D warnings
run_step check "clippy web wasm32" cargo clippy -p tabletop-web --target "$WASM" --all-targets -- -D warnings
run_step tests "native tests" cargo test --workspace --no-fail-fast
# The core's crates, bottom floor first; tabletop-store builds and tests on
# its own (it depends on none of the others).
CORE_CRATES=(-p tabletop-store -p tabletop-sql -p tabletop-wire -p tabletop-design
    -p tabletop-teach -p tabletop-translate -p tabletop-core)
run_step check "core check wasm32" cargo check "${CORE_CRATES[@]}" --target "$WASM"
run_step tests "core tests wasm32 (Node)" cargo test "${CORE_CRATES[@]}" --target "$WASM" --tests --no-fail-fast
browser_step tests "web tests (headless Chromium)" cargo test -p tabletop-web --target "$WASM" --test '*' --no-fail-fast
# Builds the tabletop-js package (js/, scripts/build-js.sh), installs it
# into a temporary project and drives it there: in Node (ES module and
# CommonJS) and, its browser build, in headless Chromium.
# wasm-opt is skipped here (it only shrinks and speeds up the same code, and
# its two passes would add minutes); scripts/build-js.sh runs it otherwise.
run_step check "build tabletop-js" env TABLETOP_JS_WASM_OPT=0 bash scripts/build-js.sh
browser_step tests "tabletop-js (Node, Chromium)" env TABLETOP_JS_PKG="$ROOT/target/tabletop-js" \
    node --test --test-reporter=tap tests/js/
# The real oracle: Google's emulator with the real cbt and Python client.
run_step tests "differential vs emulator" bash tests/differential/run.sh
# The same scenarios with Tabletop's --emulator-parity switch: the
# emulator's answer at every difference the switch covers.
run_step tests "differential, emulator parity" bash tests/differential/run.sh --parity
# tabletop serve (gRPC) with the official Python client.
run_step tests "serve with the Python client" bash tests/serve/run.sh
run_step check "trunk build --release" trunk build --release
if [ -f dist/index.html ] && [[ " ${FAILED_STEPS[*]-} " != *"trunk build"* ]]; then
    browser_step tests "e2e (Chromium, sub-path)" node --test --test-reporter=tap tests/e2e/
else
    STEP_NO=$((STEP_NO + 1))
    TOTAL_FAILED=$((TOTAL_FAILED + 1))
    FAILED_STEPS+=("e2e (not run: the release build failed)")
    RESULTS+=("$(printf '%-7s %-34s %-22s %7s' "FAILED" "e2e (Chromium, sub-path)" "not run: no build" "-")")
fi

printf '\n===== results\n'
printf '%s\n' "${RESULTS[@]}"
if [ "${#FAILED_STEPS[@]}" -gt 0 ]; then
    printf '\nfailed:\n'
    printf '  %s\n' "${FAILED_STEPS[@]}"
fi
printf '\n===== test runners\n'
printf '%s\n' "${RUNNER_LINES[@]}"
echo "disk: $(disk_free) after the run, target/ holds $(du -sh "$ROOT/target" | cut -f1)"
echo "summary: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
[ "$TOTAL_FAILED" -eq 0 ]
