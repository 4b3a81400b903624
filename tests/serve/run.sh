#!/usr/bin/env bash
# Drives `tabletop serve` with the official Python client for Bigtable
# (tests/serve/python_client.py): the admin API, writes, streamed reads, a
# reversed scan, an error's status and a cancelled stream.
#
#   tests/serve/run.sh
#
# Uses the differential suite's virtual environment (target/differential-venv,
# made on first use) and the release build of tabletop
# (`cargo build --release -p tabletop-cli`, a no-op when it is current);
# set TABLETOP=/path/to/tabletop to test another build. Ends with
# `N passed, M failed`; exits non-zero if anything failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

fail() {
    echo "serve: $*"
    echo "0 passed, 1 failed"
    exit 1
}

# shellcheck source=tests/differential/venv.sh
. "$ROOT/tests/differential/venv.sh"

if [ -z "${TABLETOP:-}" ]; then
    cargo build --quiet --release -p tabletop-cli || fail "the release build of tabletop-cli failed"
    TABLETOP="${CARGO_TARGET_DIR:-$ROOT/target}/release/tabletop"
fi

exec "$VENV/bin/python" "$ROOT/tests/serve/python_client.py" --tabletop "$TABLETOP"
