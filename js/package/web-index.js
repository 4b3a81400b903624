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
const api = makeTabletop(raw, () => loaded);

export const { Tabletop, TabletopError } = api;

/** Loads the wasm (once); `input` is its URL, a Response or its bytes. */
export async function init(input) {
  loading ??= initWasm(input === undefined ? undefined : { module_or_path: input });
  await loading;
  loaded = true;
  return api;
}

export default init;
