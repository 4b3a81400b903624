// How the browser build of tabletop-js makes short ASCII strings from
// bytes, measured in headless Chromium: a latin1 TextDecoder, against one
// String.fromCharCode call of 32 or 64 arguments cut to length (what
// js/package/tabletop.js's ascii() does for strings of 13 to 64
// characters in browsers).
//
//   node bench/js/browser-strings.mjs
//
// 20,000 strings a round, each kept in an array; 10 untimed rounds, then
// 20 timed; the median in ns a string. CHROMIUM names the browser
// (/usr/bin/chromium by default). Serves the page itself on a loopback
// port (tests/e2e/static-server.mjs); nothing is downloaded.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serveStatic } from '../../tests/e2e/static-server.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const LENGTHS = [24, 32, 40, 48, 64];

/** `String.fromCharCode(u8[s], ..., u8[s + n - 1])`, as source text. */
const call = (n) => `String.fromCharCode(${Array.from({ length: n }, (_, i) => `u8[s + ${i}]`).join(', ')})`;

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>short strings from bytes</title>
<script>
const N = 20000;
const u8 = new Uint8Array(N * 64 + 64);
for (let i = 0; i < u8.length; i++) u8[i] = 65 + (i * 7) % 26;
const latin1 = new TextDecoder('latin1');
const ways = {
  'TextDecoder': (s, n) => latin1.decode(u8.subarray(s, s + n)),
  'one call of 32': (s, n) => (n <= 32 ? ${call(32)}.slice(0, n) : null),
  'one call of 64': (s, n) => ${call(64)}.slice(0, n),
};
window.run = (lengths) => {
  const out = {};
  for (const n of lengths) {
    for (const [way, make] of Object.entries(ways)) {
      if (make(0, n) === null) continue;
      const ns = [];
      for (let round = 0; round < 30; round++) {
        const kept = new Array(N);
        const start = performance.now();
        for (let i = 0; i < N; i++) kept[i] = make(i * 64, n);
        const took = performance.now() - start;
        if (kept[N - 1].length !== n) throw new Error(way + ': wrong length');
        if (round >= 10) ns.push((took * 1e6) / N);
      }
      ns.sort((a, b) => a - b);
      out[n + ' characters, ' + way] = Math.round(ns[ns.length >> 1]) + ' ns';
    }
  }
  return out;
};
</script>`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'tabletop-strings-'));
writeFileSync(path.join(dir, 'index.html'), PAGE);
const server = await serveStatic(dir, '/strings/');
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}index.html`);
  const figures = await page.evaluate((lengths) => window.run(lengths), LENGTHS);
  console.log(`Chromium ${browser.version()}, median ns a string (kept in an array):`);
  for (const [what, ns] of Object.entries(figures)) console.log(`  ${what}: ${ns}`);
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
