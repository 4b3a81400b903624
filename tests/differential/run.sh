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

SUITE=differential
# shellcheck source=tests/differential/preamble.sh
. "$ROOT/tests/differential/preamble.sh"

exec "$VENV/bin/python" "$ROOT/tests/differential/run.py" --tabletop "$TABLETOP" "$@"
