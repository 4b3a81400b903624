// After a forced full collection V8 still sweeps the heap on its background
// threads for a few milliseconds. On an idle machine those threads run at
// once, inside whatever is timed next, and count in the process's CPU time
// (in goals.mjs the core's regex scan read 8.7 ms of CPU for 4.8 ms of wall
// time); on a busy one they wait for a core. The benchmarks wait this long
// after each collection, outside their clocks, so that they finish first.
const SETTLE_MS = 30;
const cell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the main thread for SETTLE_MS, letting the collector's threads finish. */
export function settle() {
  Atomics.wait(cell, 0, 0, SETTLE_MS);
}

/** A full collection (needs `node --expose-gc`), then `settle()`. */
export function collectAndSettle() {
  globalThis.gc();
  settle();
}
