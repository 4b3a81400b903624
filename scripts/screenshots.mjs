// Takes the README's screenshots from the release build in dist/ (run
// `trunk build --release` first), at 1440x900, into docs/: the first load,
// a lesson in progress, the live Key Visualizer of a real table (the
// timestamp-first design's table with rows, its workload replayed, then a
// console read), and the A/B view after a run. By hand:
//   node scripts/screenshots.mjs
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from '../tests/e2e/static-server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = path.join(ROOT, 'docs');
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const server = await serveStatic(path.join(ROOT, 'dist'), '/tabletop/');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS });
const open = async (colorScheme = 'light') => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme });
  await page.goto(server.url);
  await page.waitForSelector('#rows .row', { timeout: 30_000 });
  return { page, context };
};
// Messages in the header go by themselves; wait them out.
const quiet = (page) => page.waitForFunction(() => !document.querySelector('.notice'), null, { timeout: 20_000 });

try {
  {
    const { page, context } = await open();
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(DOCS, 'first-load.png') });
    await context.close();
  }
  {
    const { page, context } = await open();
    await page.getByRole('button', { name: 'Start lesson 1' }).click();
    const dock = page.getByRole('region', { name: 'Lesson in progress' });
    await dock.getByRole('button', { name: 'Check', exact: true }).click();
    await dock.locator('.verdict').waitFor();
    await quiet(page);
    await page.screenshot({ path: path.join(DOCS, 'lesson.png') });
    await context.close();
  }
  {
    // The live map of a real table: the design's rows, its workload
    // replayed on them, then a read typed into the console.
    const { page, context } = await open();
    await page.getByRole('button', { name: 'Not now' }).click();
    const kv = page.getByRole('region', { name: 'Key Visualizer', exact: true });
    await kv.getByRole('combobox', { name: 'Scenario' }).selectOption('mobile_timestamp_first.toml');
    await kv.getByRole('button', { name: 'Create table with rows' }).click();
    await page.waitForFunction(() => / rows in /.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
      timeout: 120_000,
    });
    await kv.getByRole('button', { name: 'Run workload on the table' }).click();
    await page.waitForFunction(() => /Replayed/.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
      timeout: 120_000,
    });
    const console = page.getByRole('region', { name: 'Console', exact: true });
    await console.getByRole('tab', { name: 'cbt' }).click();
    await console.getByRole('textbox', { name: 'Command' }).fill('read mobile_time_series prefix=158800');
    await console.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForSelector('section.keyviz-panel[data-view=live] .kv-live-summary');
    await quiet(page);
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(DOCS, 'screenshot.png') });
    await context.close();
  }
  {
    // The A/B view, given the whole workspace.
    const { page, context } = await open();
    await page.getByRole('button', { name: 'Not now' }).click();
    const kv = page.getByRole('region', { name: 'Key Visualizer', exact: true });
    await kv.getByRole('button', { name: 'A/B', exact: true }).click();
    await kv.getByRole('button', { name: 'Maximize Key Visualizer' }).click();
    await kv.getByRole('button', { name: 'Run A/B' }).click();
    await kv.locator('.ab-verdict').waitFor({ timeout: 120_000 });
    await quiet(page);
    await page.screenshot({ path: path.join(DOCS, 'ab.png') });
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
