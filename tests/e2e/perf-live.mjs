// What rebuilding the live Key Visualizer costs in the release build, in
// headless Chromium. Run by hand, not in CI (its figures depend on the
// machine):
//
//   trunk build --release && node tests/e2e/perf-live.mjs [rows...]
//
// For each size (default 10,000 and 100,000 sample rows): loads the sample
// data, then runs five prefix reads in the console, bringing the map up to
// date after each (by itself, or with Update map when the panel waits for
// it), and prints the update times the panel reports (data-live-build-ms:
// for a full build, reading the table, laying its traffic over the key
// space, the map and the findings; for a refresh after a read, which keeps
// the last build's key axis, all but the reading), sorted, with their
// median.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from './static-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST = process.env.TABLETOP_DIST ? path.resolve(process.env.TABLETOP_DIST) : path.resolve(HERE, '..', '..', 'dist');
const SIZES = process.argv.length > 2 ? process.argv.slice(2) : ['10000', '100000'];
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const server = await serveStatic(DIST, '/tabletop/');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS });
try {
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (const rows of SIZES) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(server.url);
    await page.waitForSelector('#rows .row', { timeout: 30_000 });
    const kv = page.getByRole('region', { name: 'Key Visualizer', exact: true });
    await kv.getByRole('button', { name: 'Your tables', exact: true }).click();
    const panel = page.getByRole('region', { name: 'Rows', exact: true });
    await panel.getByText('Load sample data').click();
    await panel.getByRole('combobox', { name: 'Rows to generate' }).selectOption(rows);
    await panel.getByRole('button', { name: 'Generate' }).click();
    await page.waitForSelector('[role=progressbar]', { state: 'detached', timeout: 600_000 });
    await page.waitForTimeout(1500);
    const console_ = page.getByRole('region', { name: 'Console', exact: true });
    const times = [];
    for (let i = 0; i < 5; i++) {
      const before = Number(await kv.getAttribute('data-live-builds'));
      await console_.getByRole('textbox', { name: 'Command' }).fill(`read mobile-time-series prefix=phone#${i} count=20`);
      await console_.getByRole('button', { name: 'Run', exact: true }).click();
      const update = page.locator('.kv-behind button');
      await page.waitForFunction(
        (n) => Number(document.querySelector('section.keyviz-panel').dataset.liveBuilds) > n || !!document.querySelector('.kv-behind button'),
        before,
      );
      if (await update.count()) await update.click();
      await page.waitForFunction((n) => Number(document.querySelector('section.keyviz-panel').dataset.liveBuilds) > n, before);
      times.push(Number(await kv.getAttribute('data-live-build-ms')));
    }
    times.sort((a, b) => a - b);
    console.log(`${rows} rows: live rebuild ${times.join(', ')} ms; median ${times[2]} ms`);
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
