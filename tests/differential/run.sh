#!/usr/bin/env bash
# Runs the differential suite: Tabletop against Google's Bigtable emulator,
# through the real `cbt` and the official Python client (see README.md).
#
#   tests/differential/run.sh [run.py options: -k NAME, --show, --cbt-only, --json-only, -j N]
#
# The first run makes a virtual environment in target/differential-venv and
# installs tests/differential/requirements.txt into it from PyPI (about ten
# seconds); later runs reuse it, and reinstall only when the requirements
# change. The `tabletop` binary is the release build
# (`cargo build --release -p tabletop-cli`, a no-op when it is current);
# set TABLETOP=/path/to/tabletop to test another build instead.
# Ends with `N passed, M failed`; exits non-zero if anything failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

fail() {
    echo "differential: $*"
    echo "0 passed, 1 failed"
    exit 1
}

# shellcheck source=tests/differential/venv.sh
. "$ROOT/tests/differential/venv.sh"

if [ -z "${TABLETOP:-}" ]; then
    cargo build --quiet --release -p tabletop-cli || fail "the release build of tabletop-cli failed"
    TABLETOP="${CARGO_TARGET_DIR:-$ROOT/target}/release/tabletop"
fi

exec "$VENV/bin/python" "$ROOT/tests/differential/run.py" --tabletop "$TABLETOP" "$@"
