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

VENV="$ROOT/target/differential-venv"
REQ="$ROOT/tests/differential/requirements.txt"
STAMP="$VENV/.requirements-sha256"
PYTHON="${PYTHON:-python3}"

fail() {
    echo "differential: $*"
    echo "0 passed, 1 failed"
    exit 1
}

want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$STAMP" 2>/dev/null || true)" != "$want" ]; then
    echo "differential: installing the Python client into ${VENV#"$ROOT"/} (once)"
    "$PYTHON" -m venv "$VENV" || fail "cannot create a virtual environment with $PYTHON"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ" ||
        fail "cannot install $REQ"
    echo "$want" >"$STAMP"
fi

if [ -z "${TABLETOP:-}" ]; then
    cargo build --quiet --release -p tabletop-cli || fail "the release build of tabletop-cli failed"
    TABLETOP="${CARGO_TARGET_DIR:-$ROOT/target}/release/tabletop"
fi

exec "$VENV/bin/python" "$ROOT/tests/differential/run.py" --tabletop "$TABLETOP" "$@"
