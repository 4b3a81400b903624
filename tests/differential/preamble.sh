# Sourced by the scripts that drive Tabletop with the official Python
# client (tests/differential/run.sh, tests/serve/run.sh): what they share.
# Expects ROOT and SUITE (the name their messages start with). Defines
# fail (a message, the `0 passed, 1 failed` line the test runner counts,
# exit 1), makes the virtual environment (venv.sh, sets VENV) and sets
# TABLETOP to the release build of tabletop (`cargo build --release -p
# tabletop-cli`, a no-op when it is current) unless TABLETOP is set.

fail() {
    echo "$SUITE: $*"
    echo "0 passed, 1 failed"
    exit 1
}

# shellcheck source=tests/differential/venv.sh
. "$ROOT/tests/differential/venv.sh"

if [ -z "${TABLETOP:-}" ]; then
    cargo build --quiet --release -p tabletop-cli || fail "the release build of tabletop-cli failed"
    TABLETOP="${CARGO_TARGET_DIR:-$ROOT/target}/release/tabletop"
fi
