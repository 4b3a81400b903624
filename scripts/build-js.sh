#!/usr/bin/env bash
# Builds the tabletop-js package (the Tabletop core for JavaScript) into
# target/tabletop-js/: a folder that `npm install ./target/tabletop-js`
# accepts and `npm pack` packs.
#
#   scripts/build-js.sh [OUT_DIR]      default: target/tabletop-js
#
#   node/   wasm-bindgen --target nodejs, with CommonJS (index.cjs) and ES
#           module (index.mjs) entry points
#   web/    wasm-bindgen --target web, with an ES module entry (index.js)
#           whose default export `init()` loads the wasm
#   lib/    the package's own JavaScript (js/package/tabletop.js) as
#           CommonJS and as an ES module
#   index.d.ts, index.d.mts, web/index.d.ts   the TypeScript declarations
#           (for require, for import, for the browser build)
#
# Needs the wasm32 target and wasm-bindgen-cli (the version in Cargo.lock),
# as scripts/setup.sh installs them; wasm-opt from node_modules/.bin
# (npm's binaryen) is used when present (TABLETOP_JS_WASM_OPT=0 skips it).
# Nothing is downloaded.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
OUT="${1:-$ROOT/target/tabletop-js}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
SRC="$ROOT/js/package"

cargo build --quiet --release --locked -p tabletop-js --target wasm32-unknown-unknown
WASM="$TARGET_DIR/wasm32-unknown-unknown/release/tabletop_js.wasm"

rm -rf "$OUT"
mkdir -p "$OUT/node" "$OUT/web" "$OUT/lib"
wasm-bindgen --target nodejs --out-dir "$OUT/node" "$WASM"
wasm-bindgen --target web --out-dir "$OUT/web" "$WASM"
if [ "${TABLETOP_JS_WASM_OPT:-1}" != 0 ] && command -v wasm-opt >/dev/null; then
    for f in "$OUT/node/tabletop_js_bg.wasm" "$OUT/web/tabletop_js_bg.wasm"; do
        wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int \
            --enable-sign-ext --enable-mutable-globals --enable-reference-types \
            --enable-multivalue -o "$f.opt" "$f"
        mv "$f.opt" "$f"
    done
fi
# wasm-bindgen's own declarations describe the inner class; the package's
# are in index.d.ts.
rm -f "$OUT"/node/*.d.ts "$OUT"/web/*.d.ts

{ cat "$SRC/tabletop.js"; echo; echo 'module.exports = { makeTabletop };'; } > "$OUT/lib/tabletop.cjs"
{ cat "$SRC/tabletop.js"; echo; echo 'export { makeTabletop };'; } > "$OUT/lib/tabletop.mjs"
cp "$SRC/node-index.cjs" "$OUT/node/index.cjs"
cp "$SRC/node-index.mjs" "$OUT/node/index.mjs"
cp "$SRC/web-index.js" "$OUT/web/index.js"
cp "$SRC/index.d.ts" "$OUT/index.d.ts"
# The same declarations read as an ES module's (for `import`): a .d.ts in
# this CommonJS package describes `require`, where the default export is
# `module.exports.default`.
cp "$SRC/index.d.ts" "$OUT/index.d.mts"
cp "$SRC/web-index.d.ts" "$OUT/web/index.d.ts"
cp "$SRC/README.md" "$OUT/README.md"
echo '{ "type": "commonjs" }' > "$OUT/node/package.json"
echo '{ "type": "module" }' > "$OUT/web/package.json"
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
sed "s/@VERSION@/$VERSION/" "$SRC/package.json" > "$OUT/package.json"
echo "built $OUT (tabletop-js $VERSION)"
