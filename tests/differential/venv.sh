# Sourced by preamble.sh (the scripts that drive the official Python
# client: tests/differential/run.sh, tests/serve/run.sh): makes the virtual
# environment target/differential-venv from tests/differential/requirements.txt
# (once, about ten seconds; again only when the requirements change) and
# sets VENV. Expects ROOT and a fail function.

VENV="$ROOT/target/differential-venv"
REQ="$ROOT/tests/differential/requirements.txt"
STAMP="$VENV/.requirements-sha256"
PYTHON="${PYTHON:-python3}"

want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$STAMP" 2>/dev/null || true)" != "$want" ]; then
    echo "installing the Python client into ${VENV#"$ROOT"/} (once)"
    "$PYTHON" -m venv "$VENV" || fail "cannot create a virtual environment with $PYTHON"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ" ||
        fail "cannot install $REQ"
    echo "$want" >"$STAMP"
fi
