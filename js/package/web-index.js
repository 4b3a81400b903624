// tabletop-js for browsers (ES module). Call the default export once
// before creating objects: it fetches and instantiates the wasm.
//
//   import init, { Tabletop } from 'tabletop-js';
//   await init();            // or init(urlOrBytesOfTheWasm)
//   const db = new Tabletop();
import initWasm, * as raw from './tabletop_js.js';
import { makeTabletop } from '../lib/tabletop.mjs';

let loading = null;
let loaded = false;
/** Why the last init() failed, until one succeeds. */
let failure = null;
const api = makeTabletop(raw, () => {
  if (loaded) return null;
  if (failure !== null) return `init() failed (${failure}); call init() again`;
  return "the WebAssembly module is not loaded yet; await init() (the package's default export) first";
});

export const { Tabletop, TabletopError } = api;

/**
 * Loads the wasm (once); `input` is its URL, a Response or its bytes. When
 * loading fails, the promise rejects with the reason, objects made
 * meanwhile say init() failed and why, and init() may be called again.
 */
export async function init(input) {
  loading ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(
    () => {
      loaded = true;
      failure = null;
    },
    (error) => {
      loading = null;
      failure = error instanceof Error ? error.message : String(error);
      throw error;
    },
  );
  await loading;
  return api;
}

export default init;
