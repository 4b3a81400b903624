// End-to-end tests of the page before the app runs: index.html shows what
// Tabletop is and that it is loading (with the bytes of the .wasm received)
// at once, and a clear message, never a blank page, when the WebAssembly
// cannot be loaded or run. The build is served under /tabletop/, as in the
// other e2e files. Screenshots go to tests/e2e/screenshots/boot-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { DIST, SCREENSHOTS, SUB_PATH, useApp } from './harness.mjs';

const env = useApp();

/** A page with the given routes set up before it loads. */
async function openBoot({ scheme = 'light', init, routes = {} } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme: scheme });
  if (init) await page.addInitScript(init);
  for (const [pattern, handler] of Object.entries(routes)) await page.route(pattern, handler);
  return { page, context };
}

/** The boot message's problem box, once shown. */
async function problem(page) {
  const box = page.locator('#boot-problem');
  await box.waitFor({ timeout: 30_000 });
  assert.equal(await box.getAttribute('role'), 'alert');
  assert.ok(await box.isVisible());
  return box.textContent();
}

test('while the .wasm is held back, the page says what Tabletop is and that it is loading', async () => {
  let release;
  const held = new Promise((resolve) => (release = resolve));
  const { page, context } = await openBoot({
    routes: {
      '**/*.wasm': async (route) => {
        await held;
        await route.continue();
      },
    },
  });
  await page.goto(env.server.url);
  const boot = page.locator('#boot');
  await boot.waitFor();
  assert.match(await boot.locator('h1').textContent(), /^Tabletop$/);
  assert.match(await boot.textContent(), /playground for designing Cloud Bigtable schemas/);
  assert.equal(await page.locator('#boot-state').textContent(), 'Loading the playground…');
  assert.equal(await page.locator('#boot-state').getAttribute('role'), 'status');
  assert.ok(await page.locator('#boot-bar').isVisible(), 'a progress bar');
  // Still loading a moment later: nothing replaced it.
  await page.waitForTimeout(500);
  assert.ok(await boot.isVisible());
  assert.equal(await page.locator('.shell').count(), 0, 'the app is not there yet');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'boot-loading.png') });
  // Let it through: the app replaces the message.
  release();
  await page.waitForSelector('#rows .row', { timeout: 60_000 });
  assert.equal(await page.locator('#boot').count(), 0);
  assert.equal(await page.locator('#boot-problem').count(), 0);
  await context.close();
});

test('the bytes of the .wasm received are shown while it downloads', async () => {
  // A server of its own, which sends the first part of the .wasm and then
  // waits: the page must show how much arrived, out of the whole.
  const wasmName = (await readdir(DIST)).find((f) => f.endsWith('.wasm'));
  const wasm = await readFile(path.join(DIST, wasmName));
  const half = Math.floor(wasm.length / 2);
  let finish;
  const rest = new Promise((resolve) => (finish = resolve));
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const name = url.pathname.slice(SUB_PATH.length) || 'index.html';
    if (!url.pathname.startsWith(SUB_PATH)) {
      res.writeHead(404).end();
      return;
    }
    if (name === wasmName) {
      res.writeHead(200, { 'content-type': 'application/wasm', 'content-length': wasm.length, 'cache-control': 'no-store' });
      res.write(wasm.subarray(0, half));
      await rest;
      res.end(wasm.subarray(half));
      return;
    }
    try {
      const body = await readFile(path.join(DIST, path.basename(name)));
      const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' }[path.extname(name)];
      res.writeHead(200, { 'content-type': type ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { page, context } = await openBoot();
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}${SUB_PATH}`);
    const bytes = page.locator('#boot-bytes');
    await page.waitForFunction(() => /received/.test(document.querySelector('#boot-bytes')?.textContent ?? ''), null, {
      timeout: 30_000,
    });
    const text = await bytes.textContent();
    const match = /^([\d.]+) (KiB|MiB) of ([\d.]+) (KiB|MiB) received \((\d+)%\)$/.exec(text);
    assert.ok(match, `progress in bytes: ${text}`);
    const percent = Number(match[5]);
    assert.ok(percent > 0 && percent < 100, `part of it arrived: ${text}`);
    const bar = await page.locator('#boot-bar').evaluate((b) => ({ value: b.value, max: b.max }));
    assert.equal(bar.max, wasm.length, 'the bar runs to the size of the .wasm');
    assert.ok(bar.value > 0 && bar.value < bar.max, `the bar is part way: ${bar.value}`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'boot-progress.png') });
    finish();
    await page.waitForSelector('#rows .row', { timeout: 60_000 });
  } finally {
    finish();
    await context.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a .wasm answered with 404 shows what failed and what to do', async () => {
  const { page, context } = await openBoot({
    scheme: 'dark',
    routes: { '**/*.wasm': (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' }) },
  });
  await page.goto(env.server.url);
  const text = await problem(page);
  assert.match(text, /Tabletop could not load/);
  assert.match(text, /HTTP 404/);
  assert.match(text, /upload every file of the build/);
  assert.equal(await page.locator('#boot-state').count(), 0, 'no longer says it is loading');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'boot-404-dark.png') });
  await context.close();
});

test('a .wasm request that fails on the network says so', async () => {
  const { page, context } = await openBoot({ routes: { '**/*.wasm': (route) => route.abort('failed') } });
  await page.goto(env.server.url);
  const text = await problem(page);
  assert.match(text, /could not be downloaded/);
  assert.match(text, /Check the network connection/);
  await context.close();
});

test('a file that is not WebAssembly is reported, not left blank', async () => {
  const { page, context } = await openBoot({
    routes: {
      '**/*.wasm': (route) => route.fulfill({ status: 200, contentType: 'application/wasm', body: Buffer.from('<!doctype html>oops') }),
    },
  });
  await page.goto(env.server.url);
  const text = await problem(page);
  assert.match(text, /Tabletop could not start/);
  assert.match(text, /not the WebAssembly this page expects/);
  await context.close();
});

test('a missing JavaScript loader is reported too', async () => {
  const { page, context } = await openBoot({
    routes: { '**/tabletop-web-*.js': (route) => route.fulfill({ status: 404, body: 'not found' }) },
  });
  await page.goto(env.server.url);
  const text = await problem(page);
  assert.match(text, /could not be loaded/);
  await context.close();
});

test('a browser without WebAssembly is told it cannot run the playground', async () => {
  const { page, context } = await openBoot({
    init: () => {
      delete window.WebAssembly;
    },
  });
  await page.goto(env.server.url);
  const text = await problem(page);
  assert.match(text, /This browser cannot run Tabletop/);
  assert.match(text, /no WebAssembly/);
  assert.match(text, /current version of Chrome, Edge, Firefox or Safari/);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'boot-no-webassembly.png') });
  await context.close();
});

test('every asset URL in index.html is relative', async () => {
  const html = await readFile(path.join(DIST, 'index.html'), 'utf8');
  const urls = [...html.matchAll(/(?:src|href)=["']([^"']+)["']|from ['"]([^'"]+)['"]|download\('([^']+)'\)|module_or_path: '([^']+)'/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? m[4],
  );
  assert.ok(urls.some((u) => u.endsWith('.wasm')), `the loader names the .wasm: ${urls}`);
  assert.ok(urls.length >= 4, `assets found: ${urls}`);
  for (const url of urls) assert.match(url, /^\.\//, `relative: ${url}`);
});

test('the release build has .gz and .br copies that unpack to the same bytes', async () => {
  const files = await readdir(DIST);
  const wasm = files.find((f) => f.endsWith('.wasm'));
  for (const name of [wasm, files.find((f) => /^tabletop-web-.*\.js$/.test(f)), files.find((f) => f.endsWith('.css'))]) {
    const body = await readFile(path.join(DIST, name));
    const gz = await readFile(path.join(DIST, `${name}.gz`));
    const br = await readFile(path.join(DIST, `${name}.br`));
    assert.ok(gunzipSync(gz).equals(body), `${name}.gz`);
    assert.ok(brotliDecompressSync(br).equals(body), `${name}.br`);
    assert.ok(br.length < body.length && gz.length < body.length, `${name}: the copies are smaller`);
  }
});
