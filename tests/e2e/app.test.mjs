// End-to-end test of the release build: serves dist/ under /tabletop/ (not
// the site root) and drives Debian's Chromium with playwright-core.
// Run `trunk build --release` first; scripts/test.sh does both.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from './static-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const DIST = path.join(ROOT, 'dist');
const SCREENSHOTS = path.join(HERE, 'screenshots');
const SUB_PATH = '/tabletop/';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps trying to reach
// Google's hosts, which this sandbox's network refuses.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const EXPECTED_KEYS = [
  'phone#4c410523#20200501',
  'phone#4c410523#20200502',
  'phone#5c10102#20200501',
  'tablet#a0b81f74#20200501',
];

let server;
let context;
let profile;

before(async () => {
  assert.ok(
    existsSync(path.join(DIST, 'index.html')),
    'dist/index.html is missing: run `trunk build --release` first',
  );
  server = await serveStatic(DIST, SUB_PATH);
  profile = await mkdtemp(path.join(tmpdir(), 'tabletop-e2e-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 720 },
  });
  await mkdir(SCREENSHOTS, { recursive: true });
});

after(async () => {
  await context?.close();
  await server?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** Opens the app and waits until the rows the core returned are on screen. */
async function openApp({ colorScheme = 'light' } = {}) {
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme });
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`));
  await page.goto(server.url);
  await page.waitForSelector('#rows .row', { timeout: 30_000 });
  return { page, problems };
}

test('the page shows the header, the core\'s table and its rows in byte order', async () => {
  const { page, problems } = await openApp();

  assert.equal(await page.textContent('h1'), 'Tabletop');
  assert.match(await page.title(), /^Tabletop/);
  assert.equal(
    (await page.textContent('#core-status')).trim(),
    'Core running in your browser (WebAssembly) · projects/tabletop/instances/playground · 1 table',
  );

  const tables = await page.$$eval('#table-list .table-name', (els) => els.map((e) => e.textContent.trim()));
  assert.deepEqual(tables, ['mobile-time-series']);
  const families = await page.$$eval('#table-list .family', (els) => els.map((e) => e.textContent));
  assert.deepEqual(families, ['stats_detailGC: versions() > 3', 'stats_summaryGC: versions() > 1']);

  // Written out of order; the core returns them sorted by key bytes.
  const keys = await page.$$eval('#rows .row-key', (els) => els.map((e) => e.textContent));
  assert.deepEqual(keys, EXPECTED_KEYS);

  const firstRowCells = await page.$$eval('#rows .row:first-child .cell', (els) => els.map((e) => e.textContent));
  const time = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} UTC';
  assert.equal(firstRowCells.length, 4);
  assert.match(firstRowCells[0], new RegExp(`^stats_detail:connected_cell @ ${time} = 1$`));
  assert.match(firstRowCells[1], new RegExp(`^stats_detail:connected_wifi @ ${time} = 1$`));
  assert.match(firstRowCells[2], new RegExp(`^stats_summary:os_build @ ${time} = PQ2A\\.190405\\.004$`));
  // The older version outlives its GC rule until a compaction runs.
  assert.match(firstRowCells[3], new RegExp(`^stats_summary:os_build @ ${time} = PQ2A\\.190405\\.003awaiting GC$`));

  assert.match(await page.textContent('#read-stats'), /^ReadRows returned 4 rows, 13 cells, \d+ bytes$/);
  const activity = await page.$$eval('#activity .entry', (els) =>
    els.map((e) => [e.classList.contains('ok'), e.querySelector('.op').textContent]));
  assert.deepEqual(activity, [
    [true, 'CreateTable mobile-time-series'],
    [true, 'MutateRow tablet#a0b81f74#20200501'],
    [true, 'MutateRow phone#5c10102#20200501'],
    [true, 'MutateRow phone#4c410523#20200502'],
    [true, 'MutateRow phone#4c410523#20200501'],
    [true, 'ReadRows mobile-time-series'],
  ]);
  assert.match(await page.textContent('#table-list .table-meta'), /^1 tablet · \d+(\.\d)? (B|KiB) stored$/);

  assert.equal(await page.$('#fatal-error'), null, 'no crash alert on a normal load');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'tabletop.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('every request stays under the sub-path and succeeds', async () => {
  const outside = server.requests.filter((r) => !r.path.startsWith(SUB_PATH));
  assert.deepEqual(outside, [], 'no absolute asset URLs');
  const failed = server.requests.filter((r) => r.status !== 200);
  assert.deepEqual(failed, []);
  const loaded = server.requests.map((r) => path.extname(r.path));
  for (const ext of ['.js', '.wasm', '.css']) assert.ok(loaded.includes(ext), `a ${ext} file was loaded: ${loaded}`);
});

test('the dark theme follows the system setting', async () => {
  const background = async (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await openApp({ colorScheme: 'light' });
  const dark = await openApp({ colorScheme: 'dark' });
  assert.equal(await background(light.page), 'rgb(246, 247, 249)');
  assert.equal(await background(dark.page), 'rgb(20, 23, 28)');
  await dark.page.screenshot({ path: path.join(SCREENSHOTS, 'tabletop-dark.png'), fullPage: true });
  assert.deepEqual([...light.problems, ...dark.problems], []);
  await light.page.close();
  await dark.page.close();
});
