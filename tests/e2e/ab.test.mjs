// End-to-end tests of the Key Visualizer's A/B view on the release build:
// the shipped pair (timestamp-first vs device-first keys for one mobile
// time series) runs in frames with a progress bar, draws two heatmaps on
// one colour scale with each design's node load, and shows the core's
// verdict, pattern by pattern; a pair with different workloads gets the
// core's message; a run can be stopped; the result survives switching
// views; at phone width the two maps stack. axe-core audits the view in
// both themes. Screenshots go to tests/e2e/screenshots/ab-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, SCREENSHOTS, openApp as open, region, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);
const AXE = readFile(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const PHONE = { width: 390, height: 844 };

/** axe-core's serious and critical violations, as readable lines. */
async function audit(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: await AXE });
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `[${v.impact}] ${v.id} (${v.help}): ${v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(', ')}`);
  });
  return violations;
}

/** Opens the A/B view of the Key Visualizer. */
async function showAb(page) {
  const kv = region(page, 'Key Visualizer');
  await kv.scrollIntoViewIfNeeded();
  await kv.getByRole('button', { name: 'A/B', exact: true }).click();
  await page.waitForSelector('section.keyviz-panel[data-view=ab]');
  return kv;
}

/** Runs the pair picked and waits for the verdict. */
async function runToVerdict(page, kv) {
  await kv.getByRole('button', { name: 'Run A/B' }).click();
  await kv.locator('.ab-verdict').waitFor({ timeout: 120_000 });
}

test('the shipped pair: two maps on one scale, node load and the core verdict', async () => {
  const { page, problems, context } = await openApp();
  const kv = await showAb(page);
  assert.equal(await kv.getByRole('button', { name: 'A/B', exact: true }).getAttribute('aria-pressed'), 'true');
  assert.equal(await kv.getByRole('combobox', { name: 'Design A' }).inputValue(), 'ab_mobile_timestamp_first.toml');
  assert.equal(await kv.getByRole('combobox', { name: 'Design B' }).inputValue(), 'ab_mobile_device_first.toml');

  await kv.getByRole('button', { name: 'Run A/B' }).click();
  await kv.locator('.ab-verdict').waitFor({ timeout: 120_000 });
  const bar = kv.getByRole('progressbar', { name: 'A/B run' });
  assert.equal(await bar.getAttribute('aria-valuenow'), '100');
  assert.match(await bar.getAttribute('aria-valuetext'), /^Both designs ran 30m of simulated time/);
  assert.equal(await kv.getByRole('button', { name: 'Stop' }).count(), 0, 'Stop goes when the run ends');

  // The verdict is the core's: device-first wins the per-device read.
  const verdict = await kv.locator('.ab-verdict-text').textContent();
  assert.match(verdict, /^Design B wins 2 of 3 patterns/);
  const one = kv.getByRole('article', { name: 'one device, last 10 minutes' });
  assert.equal((await one.locator('.ab-winner').textContent()).trim(), 'B wins');
  assert.match(await one.locator('.ab-why').textContent(), /rows for every row it returns/);
  const scanned = one.getByRole('row', { name: /^rows scanned per row returned/ });
  const [a, b] = await scanned.locator('td').allTextContents();
  assert.equal(b, '1.0 rows', 'device-first reads only the rows it returns');
  assert.ok(Number.parseFloat(a.replace(/,/g, '')) > 1000, `timestamp-first filters: ${a}`);
  assert.equal(await one.locator('thead th.won').textContent(), 'B', "the winner's column is marked");
  const all = kv.locator('[data-pattern="all devices, last minute"] .ab-winner');
  assert.equal((await all.textContent()).trim(), 'A wins');

  // Two heatmaps, one legend for both, each design's node load.
  await kv.getByRole('img', { name: 'Design A heatmap' }).waitFor();
  await kv.getByRole('img', { name: 'Design B heatmap' }).waitFor();
  assert.match(await kv.locator('.kv-legend-caption').textContent(), /One colour scale for both designs/);
  const nodes = kv.locator('table.ab-nodes');
  assert.equal(await nodes.count(), 2);
  assert.equal(await nodes.nth(0).locator('tbody tr').count(), 4);
  assert.ok((await nodes.nth(0).locator('tr.hot').count()) > 0, 'timestamp-first runs a node hot');
  assert.equal(await nodes.nth(1).locator('tr.hot').count(), 0, 'device-first spreads the load');
  // Both maps are filled: the data table has numbers for both.
  await kv.getByRole('combobox', { name: 'Metric' }).selectOption('write_pressure');
  await kv.getByRole('button', { name: 'Data table' }).click();
  assert.equal(await kv.locator('.ab-design .kv-table-wrap').count(), 2);
  await kv.getByRole('button', { name: 'Data table' }).click();
  await kv.getByRole('img', { name: 'Design A heatmap' }).waitFor();

  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await audit(page), [], `axe-core violations in the A/B view (${colorScheme})`);
    await kv.screenshot({ path: path.join(SCREENSHOTS, `ab-${colorScheme}.png`) });
    await page.screenshot({ path: path.join(SCREENSHOTS, `ab-page-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // At 1440 px both node tables fit their half of the panel.
  const overflow = await kv.locator('.ab-scroll').evaluateAll((els) => els.map((e) => e.scrollWidth - e.clientWidth));
  assert.deepEqual(overflow, [0, 0], 'the node tables fit their cards');

  // Maximized, the few pattern cards share the whole width (no empty
  // tracks on the right), and give it back when restored.
  const maximize = page.getByRole('button', { name: 'Maximize Key Visualizer' });
  await maximize.click();
  const spread = () =>
    kv.locator('.ab-pattern-list').evaluate((list) => {
      const cards = [...list.children].map((c) => c.getBoundingClientRect());
      const box = list.getBoundingClientRect();
      return { gap: box.right - Math.max(...cards.map((c) => c.right)), cards: cards.length, width: box.width };
    });
  const wide = await spread();
  assert.equal(wide.cards, 3);
  assert.ok(wide.width > 1200, `maximized, the list is wide: ${wide.width}`);
  assert.ok(wide.gap < 2, `the cards reach the list's right edge (${wide.gap.toFixed(1)} px short)`);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'ab-maximized.png') });
  await maximize.click();

  // Switching views keeps the result.
  await kv.getByRole('button', { name: 'Simulation', exact: true }).click();
  await page.waitForSelector('section.keyviz-panel[data-view=simulation]');
  await kv.getByRole('button', { name: 'A/B', exact: true }).click();
  assert.equal(await kv.locator('.ab-verdict-text').textContent(), verdict);
  assert.deepEqual(problems, []);
  await context.close();
});

test('different workloads get the core message, and a run can be stopped', async () => {
  const { page, problems, context } = await openApp();
  const kv = await showAb(page);
  await kv.getByRole('combobox', { name: 'Design A' }).selectOption('hot_row_counter.toml');
  await kv.getByRole('button', { name: 'Run A/B' }).click();
  const alert = kv.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.textContent(), /These two designs cannot be compared: the two designs declare different workloads/);

  await kv.getByRole('combobox', { name: 'Design A' }).selectOption('ab_mobile_timestamp_first.toml');
  // By keyboard: Enter runs, and Enter again (the same button, now Stop)
  // stops the run before its end.
  await kv.getByRole('button', { name: 'Run A/B' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await kv.getByRole('button', { name: 'Run A/B' }).waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.textContent.trim()), 'Run A/B', 'the focus stays on the button');
  assert.equal(await kv.getByRole('alert').count(), 0);
  const bar = kv.getByRole('progressbar', { name: 'A/B run' });
  assert.match(await bar.getAttribute('aria-valuetext'), /^Stopped after/);
  assert.ok(Number(await bar.getAttribute('aria-valuenow')) < 100, 'stopped part way');
  assert.equal(await kv.locator('.ab-verdict').count(), 0, 'no verdict for half a run');
  assert.deepEqual(problems, []);
  await context.close();
});

for (const colorScheme of ['dark', 'light']) {
  test(`at phone width (${colorScheme}) the two maps stack`, async () => {
    const { page, problems, context } = await openApp({ viewport: PHONE, colorScheme });
    const kv = await showAb(page);
    await runToVerdict(page, kv);
    const boxes = await kv.locator('figure.ab-design').evaluateAll((figs) =>
      figs.map((f) => {
        const r = f.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
      }),
    );
    assert.equal(boxes.length, 2);
    assert.ok(boxes[1].top >= boxes[0].bottom, `B under A: ${JSON.stringify(boxes)}`);
    for (const b of boxes) assert.ok(b.left >= 0 && b.right <= PHONE.width + 0.5, `inside the screen: ${JSON.stringify(b)}`);
    // Every column of the node-load tables shows without scrolling.
    const overflow = await kv.locator('.ab-scroll').evaluateAll((els) => els.map((e) => e.scrollWidth - e.clientWidth));
    assert.deepEqual(overflow, [0, 0], 'the node tables fit their cards');
    assert.deepEqual(await audit(page), [], `axe-core violations in the A/B view at phone width (${colorScheme})`);
    await kv.screenshot({ path: path.join(SCREENSHOTS, `ab-phone-${colorScheme}.png`) });
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('a share link keeps the two designs picked and the maps settings, ready to run', async () => {
  const { page, problems, context } = await openApp();
  const kv = await showAb(page);
  await kv.getByRole('button', { name: 'Swap' }).click();
  await runToVerdict(page, kv);
  const before = await page.evaluate(() => location.hash);
  await kv.getByRole('combobox', { name: 'Metric' }).selectOption('write_rows');
  // The address bar holds the link once the page has been still a moment.
  await page.waitForFunction((h) => location.hash !== h, before);
  const link = page.url();
  assert.match(link, /#v1\./);
  const other = await openApp({ url: link });
  const kv2 = region(other.page, 'Key Visualizer');
  await other.page.waitForSelector('section.keyviz-panel[data-view=ab]');
  assert.equal(await kv2.getByRole('combobox', { name: 'Design A' }).inputValue(), 'ab_mobile_device_first.toml');
  assert.equal(await kv2.getByRole('combobox', { name: 'Design B' }).inputValue(), 'ab_mobile_timestamp_first.toml');
  assert.equal(await kv2.locator('.ab-verdict').count(), 0, 'results are not carried');
  await runToVerdict(other.page, kv2);
  assert.equal(await kv2.getByRole('combobox', { name: 'Metric' }).inputValue(), 'write_rows');
  assert.match(await kv2.locator('.ab-verdict-text').textContent(), /^Design A wins/);
  assert.deepEqual(problems, []);
  assert.deepEqual(other.problems, []);
  await other.context.close();
  await context.close();
});
