#!/usr/bin/env bash
# Installs what building and testing Tabletop needs, skipping whatever is
# already there at the right version, so running it again costs about a
# second. Sources: crates.io (cargo install), Debian (apt) and the npm
# registry (npm ci). Nothing is downloaded from anywhere else, and trunk is
# configured (Trunk.toml: offline = true) never to fetch tools itself.
#
# First run on a bare machine: roughly 10-15 minutes, almost all of it
# compiling trunk and wasm-bindgen-cli.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# trunk 0.22 needs rustc >= 1.96.1; 0.21.14 is the newest release that
# builds with the toolchain on this project's machines (rustc 1.95).
TRUNK_VERSION="0.21.14"
WASM_TARGET="wasm32-unknown-unknown"
APT_PACKAGES=(chromium chromium-driver)

export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root (or sudo) to run: $*"
    fi
}

command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust with rustup first"

# --- Rust target for the browser build --------------------------------------
if rustup target list --installed 2>/dev/null | grep -qx "$WASM_TARGET"; then
    say "rust target $WASM_TARGET: present"
else
    say "rust target $WASM_TARGET: installing"
    rustup target add "$WASM_TARGET"
fi

# --- trunk --------------------------------------------------------------------
if [ "$(trunk --version 2>/dev/null || true)" = "trunk $TRUNK_VERSION" ]; then
    say "trunk $TRUNK_VERSION: present"
else
    say "trunk $TRUNK_VERSION: installing from crates.io (about 10 minutes on 2 cores)"
    cargo install trunk --version "$TRUNK_VERSION" --locked
fi

# --- wasm-bindgen-cli, at exactly the wasm-bindgen version in Cargo.lock -----
# trunk and wasm-bindgen-test-runner both refuse a CLI whose version differs
# from the wasm-bindgen library the app was compiled with.
# Brings Cargo.lock up to date with the manifests (no-op when it is).
cargo metadata --format-version 1 >/dev/null
WB_VERSION="$(awk '
    $0 == "name = \"wasm-bindgen\"" { found = 1; next }
    found && /^version = / { gsub(/"/, "", $3); print $3; exit }
' Cargo.lock)"
[ -n "$WB_VERSION" ] || die "no wasm-bindgen entry in Cargo.lock"
if [ "$(wasm-bindgen --version 2>/dev/null || true)" = "wasm-bindgen $WB_VERSION" ] &&
    [ "$(wasm-bindgen-test-runner --version 2>/dev/null || true)" = "wasm-bindgen-test-runner $WB_VERSION" ]; then
    say "wasm-bindgen-cli $WB_VERSION: present"
else
    say "wasm-bindgen-cli $WB_VERSION: installing from crates.io (about 3 minutes)"
    # --locked can fail when the registry mirror lacks a locked dependency
    # version (seen: webpki-roots); resolving afresh works.
    cargo install wasm-bindgen-cli --version "$WB_VERSION" --locked ||
        cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi

# --- Chromium and ChromeDriver (Debian) for browser tests and e2e ------------
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" != "install ok installed" ]; then
        missing+=("$pkg")
    fi
done
if [ "${#missing[@]}" -eq 0 ] && [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    say "apt ${APT_PACKAGES[*]}: present"
else
    say "apt ${missing[*]:-${APT_PACKAGES[*]}}: installing"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${APT_PACKAGES[@]}"
fi

# --- npm tools: wasm-opt (binaryen) and playwright-core ----------------------
command -v node >/dev/null 2>&1 || die "node not found (Node.js 20 or newer is needed)"
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"
[ "$NODE_MAJOR" -ge 20 ] || die "Node.js $NODE_MAJOR is too old: 20 or newer is needed"
LOCK_SUM="$(sha256sum package-lock.json | cut -d' ' -f1)"
STAMP="node_modules/.tabletop-lock-sha256"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$LOCK_SUM" ] &&
    [ -x node_modules/.bin/wasm-opt ] && [ -d node_modules/playwright-core ]; then
    say "npm packages: present"
else
    say "npm packages: installing with npm ci"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$LOCK_SUM" >"$STAMP"
fi

say "done"
