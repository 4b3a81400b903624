#!/usr/bin/env bash
# Drives `tabletop serve` with the official Python client for Bigtable:
# tests/serve/python_client.py (the admin API, writes, streamed reads, a
# reversed scan, an error's status and a cancelled stream), then the
# differential suite's JSON scenarios with Tabletop's side served by
# `tabletop serve` (tests/differential/run.py --serve), compared with
# Google's emulator as `tabletop json` is, and the cbt scenarios through
# the real `cbt` pointed at `tabletop serve` (run.py --serve --cbt-only).
#
#   tests/serve/run.sh
#
# Uses the differential suite's virtual environment (target/differential-venv,
# made on first use) and the release build of tabletop
# (`cargo build --release -p tabletop-cli`, a no-op when it is current);
# set TABLETOP=/path/to/tabletop to test another build. Ends with
# `N passed, M failed` for each part; exits non-zero if anything failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

SUITE=serve
# shellcheck source=tests/differential/preamble.sh
. "$ROOT/tests/differential/preamble.sh"

status=0
"$VENV/bin/python" "$ROOT/tests/serve/python_client.py" --tabletop "$TABLETOP" || status=1
"$VENV/bin/python" "$ROOT/tests/differential/run.py" --tabletop "$TABLETOP" --serve || status=1
"$VENV/bin/python" "$ROOT/tests/differential/run.py" --tabletop "$TABLETOP" --serve --cbt-only || status=1
exit "$status"
