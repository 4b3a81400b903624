// What every end-to-end test file shares: where the release build is, how
// Chromium is launched, how the app is opened (with its errors recorded),
// and the handful of ways a test talks to the panels.
//
// The build is read from dist/, or from $TABLETOP_DIST when set (so two
// builds can be tested side by side).
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from './static-server.mjs';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
export const DIST = process.env.TABLETOP_DIST ? path.resolve(process.env.TABLETOP_DIST) : path.join(ROOT, 'dist');
export const SCREENSHOTS = path.join(HERE, 'screenshots');
export const SUB_PATH = '/tabletop/';
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps trying to reach
// Google's hosts, which this sandbox's network refuses.
export const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Registers before/after hooks that serve the build under SUB_PATH and
 * launch Chromium. Returns an object whose `server`, `browser` and
 * `downloads` (a scratch folder) are set once the hooks have run.
 */
export function useApp() {
  const env = { server: null, browser: null, downloads: null };
  before(async () => {
    assert.ok(
      existsSync(path.join(DIST, 'index.html')),
      `${DIST}/index.html is missing: run \`trunk build --release\` first`,
    );
    env.server = await serveStatic(DIST, SUB_PATH);
    env.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    env.downloads = await mkdtemp(path.join(tmpdir(), 'tabletop-e2e-'));
    await mkdir(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
    if (env.downloads) await rm(env.downloads, { recursive: true, force: true });
  });
  return env;
}

/**
 * Opens the app in a fresh browser context (its own localStorage) and waits
 * for `waitFor`. Returns the page, the problems it logged (page errors,
 * console errors, failed requests, dialogs) and its context.
 */
export async function openApp(
  env,
  { url = env.server.url, colorScheme = 'light', context, waitFor = '#rows .row', viewport } = {},
) {
  const ctx =
    context ??
    (await env.browser.newContext({ viewport: viewport ?? { width: 1440, height: 900 }, acceptDownloads: true }));
  const page = await ctx.newPage();
  await page.emulateMedia({ colorScheme });
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`));
  page.on('dialog', async (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    await dialog.dismiss();
  });
  await page.goto(url);
  if (waitFor) await page.waitForSelector(waitFor, { timeout: 30_000 });
  return { page, problems, context: ctx };
}

/** The panel (a labelled region) with this name. */
export const region = (page, name) => page.getByRole('region', { name, exact: true });

/** The row keys the rows panel shows, in order. */
export const rowKeys = (page) => page.$$eval('#rows .row .key', (els) => els.map((e) => e.textContent));

/** Types a command into a console tab and runs it with the Run button. */
export async function runCommand(page, command, { tab = 'cbt' } = {}) {
  const console = region(page, 'Console');
  await console.getByRole('tab', { name: tab === 'cbt' ? 'cbt' : tab === 'json' ? 'JSON' : tab }).click();
  const before = await page.locator('.transcript .entry').count();
  await console.getByRole('textbox', { name: 'Command' }).fill(command);
  await console.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction((n) => document.querySelectorAll('.transcript .entry').length > n, before);
  return page.locator('.transcript .entry').last();
}

/** Waits until the data generator (and the row index after it) is done. */
export async function waitForLoad(page) {
  await page.waitForSelector('[role=progressbar]', { state: 'detached', timeout: 120_000 });
  // The panels catch up with a load in tasks of their own after the
  // progress bar goes; the page marks its body until they have.
  await page.waitForFunction(() => document.body.dataset.settling === 'false', null, { timeout: 60_000 });
  await page.waitForFunction(() => !document.querySelector('#rows-position')?.textContent.includes('counting'), null, {
    timeout: 60_000,
  });
}

const AXE = readFile(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/**
 * Runs axe-core on the page and returns its serious and critical
 * violations as readable lines (rule, help, the first few elements).
 */
export async function audit(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: await AXE });
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').split('\n')[1] ?? ''}`),
      }));
  });
  return violations.map((v) => `[${v.impact}] ${v.id} (${v.help})\n    ${v.nodes.join('\n    ')}`);
}
