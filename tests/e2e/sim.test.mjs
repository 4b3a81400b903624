// End-to-end tests of the simulation in the release build: pick the
// timestamp-first scenario, run it, and check what a person would see: the
// Key Visualizer's heatmap filling (canvas pixels), the live tablet map
// splitting and spreading over nodes, node CPU bars, the diagnostic banner
// naming the hotspot, the data table, the tooltip, zooming, share links that
// reopen the same run and settings, an embed of just these panels, and the
// dark theme. Screenshots of both panels mid-run go to tests/e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SCREENSHOTS, openApp as open, region, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);
const SCENARIO = 'mobile_timestamp_first.toml';

const heatmap = (page) => page.getByRole('img', { name: 'Key Visualizer heatmap' });

/** How many of the canvas's pixels are painted, and a checksum of them. */
async function canvasStats(page) {
  return page.evaluate(() => {
    const canvas = document.querySelector('canvas.kv-canvas');
    const { width, height } = canvas;
    const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    let opaque = 0;
    let sum = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 0) {
        opaque += 1;
        sum = (sum + data[i] * 3 + data[i + 1] * 5 + data[i + 2] * 7) % 1_000_000_007;
      }
    }
    return { width, height, opaque, sum };
  });
}

/** What the simulated Tablets panel shows. */
async function tabletStats(page) {
  return page.evaluate(() => {
    const tablets = [...document.querySelectorAll('.sim-bar .tablet')];
    const fills = [...document.querySelectorAll('.node-bar .cpu-fill')].map((e) => e.style.width);
    return {
      tablets: tablets.length,
      nodes: [...new Set(tablets.map((t) => t.dataset.node))].sort(),
      colours: [...new Set(tablets.map((t) => getComputedStyle(t).backgroundColor))].sort(),
      fills,
      meta: document.querySelector('.sim-tablets-panel .panel-meta')?.textContent ?? '',
    };
  });
}

const progressText = (page) => page.locator('.keyviz-panel .sim-progress-text').textContent();

async function pickScenario(page, file = SCENARIO) {
  const kv = region(page, 'Key Visualizer');
  await kv.getByLabel('Scenario', { exact: true }).selectOption(file);
  await heatmap(page).waitFor();
  await page.waitForSelector('.sim-bar .tablet');
}

/** Plays until the progress passes `percent`, then pauses. */
async function playTo(page, percent, { screenshotsAt } = {}) {
  const kv = region(page, 'Key Visualizer');
  await kv.getByRole('button', { name: 'Play' }).click();
  let shot = false;
  for (;;) {
    const now = Number(await kv.getByRole('progressbar', { name: 'Simulated time' }).getAttribute('aria-valuenow'));
    if (screenshotsAt !== undefined && !shot && now >= screenshotsAt) {
      // Mid-run, while it plays.
      await region(page, 'Key Visualizer').screenshot({ path: path.join(SCREENSHOTS, 'sim-keyviz-running.png') });
      await region(page, 'Tablets').screenshot({ path: path.join(SCREENSHOTS, 'sim-tablets-running.png') });
      shot = true;
    }
    if (now >= percent) break;
    await page.waitForTimeout(100);
  }
  await kv.getByRole('button', { name: 'Pause' }).click();
  await kv.getByRole('button', { name: 'Play' }).waitFor();
}

test('running the timestamp-first scenario fills the heatmap, splits tablets and names the hotspot', async () => {
  const { page, problems, context } = await openApp();
  const kv = region(page, 'Key Visualizer');
  // Nothing loaded yet: the first half's Tablets panel, a hint here.
  assert.equal(await page.locator('.sim-bar').count(), 0);
  assert.match(await kv.textContent(), /Pick a scenario/);

  await pickScenario(page);
  assert.equal(await kv.getByLabel('Scenario', { exact: true }).inputValue(), SCENARIO);
  assert.match(await progressText(page), /^0s of 60m simulated \(0%\)/);
  const before = await canvasStats(page);
  const tabletsBefore = await tabletStats(page);
  assert.equal(before.opaque, 0, 'nothing simulated, nothing painted');
  assert.ok(before.width > 200 && before.height > 200, `canvas ${before.width}x${before.height}`);

  await kv.getByLabel('Speed', { exact: true }).selectOption('quadruple');
  await playTo(page, 50, { screenshotsAt: 30 });

  const after = await canvasStats(page);
  const tabletsAfter = await tabletStats(page);
  // About half of the run's columns are painted now.
  const share = after.opaque / (after.width * after.height);
  assert.ok(share > 0.4 && share < 0.65, `painted share ${share}`);
  assert.ok(tabletsAfter.tablets > tabletsBefore.tablets + 10, `${tabletsBefore.tablets} -> ${tabletsAfter.tablets} tablets`);
  assert.deepEqual(tabletsAfter.nodes, ['0', '1', '2', '3'], 'tablets on all four nodes');
  assert.equal(tabletsAfter.colours.length, 4, `one colour per node: ${tabletsAfter.colours}`);
  assert.notDeepEqual(tabletsAfter.fills, tabletsBefore.fills, 'CPU bars moved');
  assert.match(tabletsAfter.meta, /\d+ splits, \d+ merges, \d+ moves/);
  assert.ok((await page.locator('.event-list .event-split').count()) > 0, 'splits are listed');
  // The busy node is past 100%: throttled, and drawn so.
  assert.ok((await page.locator('.node-bar.throttled').count()) >= 1, 'a throttled node');

  // The diagnostic banner names the hotspot and its remedy.
  const banner = kv.locator('.kv-banner').first();
  assert.match(await banner.textContent(), /Hotspot: sequential writes/);
  assert.match(await banner.textContent(), /Remedy: Start the row key with a field that has many values/);

  // Hovering shows the key range, time and value.
  const box = await heatmap(page).boundingBox();
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.1);
  const tip = kv.locator('.kv-tooltip');
  await tip.waitFor();
  assert.match(await tip.textContent(), /into the run/);
  assert.match(await tip.textContent(), /Operations: [\d.,]+( k| M)? ops\/s/);
  // Past the simulated part.
  await page.mouse.move(box.x + box.width * 0.9, box.y + box.height * 0.5);
  await page.waitForFunction(() => document.querySelector('.kv-tooltip')?.textContent.includes('not simulated yet'));
  // A click pins it; moving away keeps it.
  await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.3);
  await kv.locator('.kv-tooltip.pinned').waitFor();
  await page.mouse.move(box.x + 5, box.y + box.height - 5);
  assert.equal(await kv.locator('.kv-tooltip.pinned').count(), 1);
  await heatmap(page).press('Escape');

  // The same numbers as a table.
  await kv.getByRole('button', { name: 'Data table' }).click();
  const table = kv.getByRole('table');
  await table.waitFor();
  assert.match(await table.locator('caption').textContent(), /Operations \(ops\/s\), averaged/);
  const cells = await table.locator('tbody td').allTextContents();
  assert.ok(cells.length >= 24, `${cells.length} cells`);
  assert.ok(cells.some((c) => /[1-9]/.test(c) && /ops\/s$/.test(c)), `numbers: ${cells.slice(0, 8)}`);
  assert.equal(await heatmap(page).count(), 0, 'the table replaces the canvas');
  await kv.getByRole('button', { name: 'Data table' }).click();
  await heatmap(page).waitFor();

  // Drag to zoom into a key range, then reset.
  const painted = await canvasStats(page);
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.05);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.3, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(() => !document.querySelector('button[title="Show the whole key space"]')?.disabled);
  const zoomed = await canvasStats(page);
  assert.notEqual(zoomed.sum, painted.sum, 'the zoomed map differs');
  await kv.getByRole('button', { name: 'Reset zoom' }).click();
  await page.waitForFunction(() => document.querySelector('button[title="Show the whole key space"]')?.disabled);

  // Other metrics and the absolute scale redraw it.
  await kv.getByLabel('Metric', { exact: true }).selectOption('write_rows');
  await kv.getByLabel('Scale', { exact: true }).selectOption('absolute');
  await page.waitForFunction(() => document.querySelector('.kv-legend-caption')?.textContent.startsWith('Absolute'));
  assert.notEqual((await canvasStats(page)).sum, painted.sum);
  // The canvas reports its last paint's cost (perf.mjs reads it; speed is
  // judged there, not here).
  const redraw = Number(await heatmap(page).getAttribute('data-redraw-ms'));
  assert.ok(Number.isFinite(redraw) && redraw >= 0, `data-redraw-ms is ${redraw}`);

  // The Tablets panel switches to the table's tablets and back.
  const tablets = region(page, 'Tablets');
  await tablets.getByRole('button', { name: 'Table', exact: true }).click();
  await tablets.locator('.sample-table').waitFor();
  await tablets.getByRole('button', { name: 'Simulation', exact: true }).click();
  await page.waitForSelector('.sim-bar .tablet');

  await kv.screenshot({ path: path.join(SCREENSHOTS, 'sim-keyviz.png') });
  await tablets.screenshot({ path: path.join(SCREENSHOTS, 'sim-tablets.png') });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'sim-app.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a share link reopens the same scenario, progress and Key Visualizer settings', async () => {
  const { page, problems, context } = await openApp();
  const kv = region(page, 'Key Visualizer');
  await pickScenario(page);
  await kv.getByLabel('Speed', { exact: true }).selectOption('double');
  for (let i = 0; i < 20; i += 1) await kv.getByRole('button', { name: 'Step' }).click();
  await page.waitForFunction(() => document.querySelector('.kv-canvas') && /\(7%\)/.test(document.querySelector('.sim-progress-text')?.textContent));
  await kv.getByLabel('Metric', { exact: true }).selectOption('write_bytes');
  await kv.getByLabel('Scale', { exact: true }).selectOption('absolute');
  await kv.getByRole('button', { name: 'Zoom in' }).click();
  await page.waitForFunction(() => !document.querySelector('button[title="Show the whole key space"]')?.disabled);
  const progress = await progressText(page);
  const pixels = await canvasStats(page);

  await page.getByRole('button', { name: 'Share link' }).click();
  const link = await page.locator('#share-link').inputValue();
  assert.match(link, /#v1\./);

  const other = await openApp({ url: link, waitFor: 'canvas.kv-canvas' });
  const kv2 = region(other.page, 'Key Visualizer');
  await other.page.waitForFunction((p) => document.querySelector('.sim-progress-text')?.textContent === p, progress);
  assert.equal(await kv2.getByLabel('Scenario', { exact: true }).inputValue(), SCENARIO);
  assert.equal(await kv2.getByLabel('Metric', { exact: true }).inputValue(), 'write_bytes');
  assert.equal(await kv2.getByLabel('Scale', { exact: true }).inputValue(), 'absolute');
  assert.equal(await kv2.getByLabel('Speed', { exact: true }).inputValue(), 'double');
  assert.equal(await kv2.getByRole('button', { name: 'Reset zoom' }).isEnabled(), true, 'still zoomed');
  assert.ok(await kv2.getByRole('button', { name: 'Play' }).isEnabled(), 'paused at the position');
  // The same run on the same canvas size paints the same pixels.
  await other.page.waitForFunction((s) => {
    const c = document.querySelector('canvas.kv-canvas');
    return c.width === s.width && c.height === s.height;
  }, pixels);
  await other.page.waitForTimeout(100);
  const again = await canvasStats(other.page);
  assert.equal(again.opaque, pixels.opaque);
  assert.equal(again.sum, pixels.sum);
  assert.deepEqual([...problems, ...other.problems], []);
  await other.context.close();
  await context.close();
});

test('a playing simulation is saved every few seconds, and a reload resumes there', async () => {
  const { page, problems, context } = await openApp();
  const kv = region(page, 'Key Visualizer');
  await pickScenario(page);
  // At a quarter of normal speed the hour takes two minutes: every frame
  // changes the state, so only the save's longest wait lets it through.
  await kv.getByLabel('Speed', { exact: true }).selectOption('quarter');
  await page.waitForTimeout(600);
  const before = await page.evaluate(() => location.hash);
  await kv.getByRole('button', { name: 'Play' }).click();
  await page.waitForFunction((h) => location.hash !== h, before, { timeout: 8_000 });
  const saved = await page.evaluate(() => location.hash);
  assert.notEqual(saved, before, 'the address bar followed the run while it played');
  await kv.getByRole('button', { name: 'Pause' }).click();

  const again = await openApp({ url: `${env.server.url}${saved}`, waitFor: 'canvas.kv-canvas', context });
  const percent = () =>
    again.page.evaluate(() => Number(document.querySelector('[role=progressbar][aria-label="Simulated time"]')?.getAttribute('aria-valuenow')));
  await again.page.waitForFunction(
    () => Number(document.querySelector('[role=progressbar][aria-label="Simulated time"]')?.getAttribute('aria-valuenow')) > 0,
  );
  assert.ok((await percent()) > 0, 'the reloaded page resumes past the start');
  assert.deepEqual([...problems, ...again.problems], []);
  await context.close();
});

test('an embed shows just the Key Visualizer and the live tablets, in the dark theme too', async () => {
  const first = await openApp();
  await pickScenario(first.page);
  await first.page.getByRole('button', { name: 'Share link' }).click();
  const link = await first.page.locator('#share-link').inputValue();
  const fragment = link.slice(link.indexOf('#'));
  const embed = await openApp({
    url: `${env.server.url}?embed=1&panels=keyviz,tablets${fragment}`,
    waitFor: 'canvas.kv-canvas',
    colorScheme: 'dark',
  });
  for (const [name, count] of [['Key Visualizer', 1], ['Tablets', 1], ['Rows', 0], ['Console', 0], ['Schema', 0]]) {
    assert.equal(await region(embed.page, name).count(), count, `${name} regions`);
  }
  const kv = region(embed.page, 'Key Visualizer');
  await kv.getByLabel('Speed', { exact: true }).selectOption('max');
  await kv.getByRole('button', { name: 'Play' }).click();
  await kv.getByRole('button', { name: 'Replay' }).waitFor({ timeout: 60_000 });
  assert.match(await kv.locator('.sim-progress-text').textContent(), /^60m of 60m simulated \(100%\)/);
  assert.match(await kv.locator('.kv-banner').first().textContent(), /Hotspot: sequential writes/);
  await embed.page.screenshot({ path: path.join(SCREENSHOTS, 'sim-embed-dark.png') });
  assert.deepEqual([...first.problems, ...embed.problems], []);
  await embed.context.close();
  await first.context.close();
});

test('the Key Visualizer can take the whole workspace and give it back', async () => {
  const { page, problems, context } = await openApp();
  await pickScenario(page);
  const kv = region(page, 'Key Visualizer');
  await kv.getByLabel('Speed', { exact: true }).selectOption('max');
  await kv.getByRole('button', { name: 'Play' }).click();
  await kv.getByRole('button', { name: 'Replay' }).waitFor({ timeout: 60_000 });
  const small = await canvasStats(page);
  const maximize = page.getByRole('button', { name: 'Maximize Key Visualizer' });
  assert.equal(await maximize.getAttribute('aria-pressed'), 'false');
  await maximize.click();
  assert.equal(await maximize.getAttribute('aria-pressed'), 'true');
  // Only the Key Visualizer is laid out, and its heatmap is redrawn bigger.
  for (const [name, count] of [['Key Visualizer', 1], ['Tablets', 0], ['Rows', 0], ['Console', 0], ['Schema', 0]]) {
    assert.equal(await region(page, name).count(), count, `${name} regions while maximized`);
  }
  await page.waitForFunction((w) => document.querySelector('canvas.kv-canvas').width > w * 2, small.width);
  const big = await canvasStats(page);
  assert.ok(big.height > small.height, `height ${small.height} -> ${big.height}`);
  // (The default heatmap is already big: the maximized one has over
  // twice its pixels.)
  assert.ok(big.opaque > small.opaque * 2, `painted ${small.opaque} -> ${big.opaque} pixels`);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'sim-keyviz-maximized.png') });
  // Escape restores the layout, the panels keep their state.
  await maximize.focus();
  await page.keyboard.press('Escape');
  for (const name of ['Tablets', 'Rows', 'Console', 'Schema']) {
    assert.equal(await region(page, name).count(), 1, `${name} is back`);
  }
  assert.equal(await maximize.getAttribute('aria-pressed'), 'false');
  assert.match(await progressText(page), /^60m of 60m simulated \(100%\)/);
  await page.waitForFunction((w) => document.querySelector('canvas.kv-canvas').width === w, small.width);
  // The other panels maximize the same way, by their own buttons, and
  // the hidden ones keep what was typed into them.
  const schema = region(page, 'Schema');
  await schema.getByRole('button', { name: 'New table' }).click();
  await schema.getByRole('textbox', { name: 'Table id' }).fill('half-typed');
  await page.getByRole('button', { name: 'Maximize Rows' }).click();
  assert.equal(await region(page, 'Key Visualizer').count(), 0);
  assert.equal(await region(page, 'Schema').count(), 0);
  assert.equal(await region(page, 'Rows').count(), 1);
  await page.getByRole('button', { name: 'Maximize Rows' }).click();
  assert.equal(await region(page, 'Key Visualizer').count(), 1);
  assert.equal(await schema.getByRole('textbox', { name: 'Table id' }).inputValue(), 'half-typed');
  assert.deepEqual(problems, []);
  await context.close();
});

test('in a narrow middle column the balancer events go under the node bars', async () => {
  const { page, problems, context } = await openApp({ viewport: { width: 900, height: 700 } });
  await pickScenario(page);
  const boxes = await page.evaluate(() => {
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    return {
      nodes: [...document.querySelectorAll('.node-bar')].map(box),
      events: box(document.querySelector('.sim-events')),
      body: box(document.querySelector('.sim-tablets-body')),
    };
  });
  assert.ok(boxes.nodes.length > 0);
  for (const n of boxes.nodes) {
    const overlaps = n.left < boxes.events.right && boxes.events.left < n.right && n.top < boxes.events.bottom && boxes.events.top < n.bottom;
    assert.ok(!overlaps, `a node bar ${JSON.stringify(n)} overlaps the events ${JSON.stringify(boxes.events)}`);
    assert.ok(n.right <= boxes.body.right + 1, 'node bars stay inside the panel');
  }
  assert.ok(boxes.events.top >= Math.max(...boxes.nodes.map((n) => n.bottom)) - 1, 'events below the bars');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a materialized view falls behind a batch in the Tablets panel and catches up', async () => {
  const { page, problems, context } = await openApp();
  await pickScenario(page, 'periodic_batch.toml');
  const views = region(page, 'Tablets').getByRole('list', { name: 'Materialized views' });
  assert.match(await views.textContent(), /^readings by daycaught up$/);
  // The first batch writes from 1m to 3m, four times faster than the view applies.
  await playTo(page, 5);
  assert.match(await views.textContent(), /readings by day\d+(\.\d+)?m behind · [\d.]+ M rows waiting/);
  await region(page, 'Tablets').screenshot({ path: path.join(SCREENSHOTS, 'sim-tablets-view-lag.png') });
  // It catches up at 9m, before the next batch at 11m: by 17% (10.2m) it
  // is current again, and remembers how far behind it was.
  await playTo(page, 17);
  assert.match(await views.textContent(), /caught up$/);
  assert.match(await views.locator('li').getAttribute('title'), /at worst 6m behind \(at 3m\)/);
  assert.deepEqual(problems, []);
  await context.close();
});
