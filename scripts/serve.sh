#!/usr/bin/env bash
# Builds the playground and serves it on http://127.0.0.1:8080, rebuilding
# when a source file changes. Installs what is missing first (setup.sh).
# Extra arguments go to `trunk serve`, for example `--release` for the
# optimised build or `--port 9000`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh
# trunk finds wasm-bindgen in ~/.cargo/bin and wasm-opt (npm binaryen, used
# by --release builds) in node_modules/.bin; it never downloads either.
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
echo "serve: building, then serving http://127.0.0.1:8080/ (Ctrl-C stops)"
exec trunk serve "$@"
