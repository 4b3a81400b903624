// End-to-end tests on the release build: the Tablets panel and the Key
// Visualizer tell one story (issue 16, the last web gaps).
// - A real table's tablets name their nodes before the live Key Visualizer
//   was ever opened, and a heatmap cell then names the same node.
// - After picking a scenario the Tablets panel shows simulated tablets: it
//   says they have no rows, a tablet can be chosen (click or keyboard) to
//   see its key range and node, and once the design's table exists one
//   button shows that table's tablets, whose clicks show rows.
// - The scenario data bar is not drawn above the A/B view.
// axe-core audits each state. Screenshots go to
// tests/e2e/screenshots/tablet-links-*.png (1440x900 and 390x844, light and
// dark).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, SCREENSHOTS, openApp as open, region, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);
const AXE = readFile(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** axe-core's serious and critical violations in `selector`. */
async function audit(page, selector) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: await AXE });
  return page.evaluate(async (selector) => {
    const result = await window.axe.run(document.querySelector(selector), { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `[${v.impact}] ${v.id} (${v.help}): ${v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(', ')}`);
  }, selector);
}

/** Tablet id -> node, from the real tablets' hover text in the bar. */
async function barNodes(tablets) {
  const titles = await tablets.locator('.tablet-bar .tablet').evaluateAll((els) => els.map((e) => e.title));
  return new Map(
    titles.map((t) => {
      const m = /^Tablet #(\d+) · .+ · node (\d+)$/.exec(t);
      assert.ok(m, `a tablet names its node: ${t}`);
      return [m[1], m[2]];
    }),
  );
}

test("a real table's tablets name their nodes before the live view, and its cells agree", async () => {
  const { page, problems, context } = await openApp();
  const kv = region(page, 'Key Visualizer');
  const tablets = region(page, 'Tablets');
  assert.notEqual(await kv.getAttribute('data-view'), 'live', 'a fresh page shows no live map');
  // The sample table has one tablet: on node 0.
  const node = tablets.locator('.tablet-detail .tablet-node');
  await node.waitFor();
  assert.equal((await node.textContent()).trim(), '· node 0');

  // Keep the simulation's view while the console makes a table of four
  // tablets (a person's operations would otherwise bring the live view).
  await kv.getByRole('button', { name: 'Simulation', exact: true }).click();
  await runCommand(page, 'createtable placed families=cf splits=g,m,t');
  for (const key of ['a1', 'h1', 'n1', 'u1']) await runCommand(page, `set placed ${key} cf:q=v`);
  await page.locator('#table-list .table-name', { hasText: 'placed' }).click();
  await page.waitForFunction(() => document.querySelectorAll('.tablets-panel .tablet-bar .tablet').length === 4);
  assert.equal(await kv.getAttribute('data-view'), 'simulation');
  assert.equal(await kv.locator('.kv-live-summary').count(), 0, 'the live map was never built');
  const before = await barNodes(tablets);
  assert.deepEqual([...before.values()], ['0', '1', '2', '0'], 'in turn on the default three nodes');
  await page.waitForFunction((el) => / · node \d/.test(el.textContent), await tablets.locator('.tablet-detail').elementHandle());

  // The live map: every cell of one tablet names the node the panel named.
  await kv.getByRole('button', { name: 'Your tables', exact: true }).click();
  await kv.locator('.kv-live-summary').waitFor();
  const canvas = kv.getByRole('img', { name: 'Key Visualizer heatmap' });
  await canvas.focus();
  const live = kv.locator('.kv-cursor-live');
  const seen = new Set();
  for (let i = 0; i < 12; i++) {
    const was = await live.textContent();
    await page.keyboard.press('ArrowDown');
    // The bottom row does not move the cursor: then the text stays.
    await page
      .waitForFunction(([el, was]) => el.textContent !== was, [await live.elementHandle(), was], { timeout: 2_000 })
      .catch(() => {});
    const m = /tablet #(\d+) on node (\d+),/.exec(await live.textContent());
    if (m) {
      assert.equal(m[2], before.get(m[1]), `tablet #${m[1]}: the cell and the Tablets panel name one node`);
      seen.add(m[1]);
    }
  }
  assert.ok(seen.size >= 2, `cells of several tablets were read: ${[...seen]}`);
  assert.deepEqual(await barNodes(tablets), before, 'the panel says the same beside the live map');

  // Two nodes picked in the live view: the panel follows, map or not.
  const nodes = kv.getByRole('spinbutton', { name: 'Nodes' });
  await nodes.fill('2');
  await nodes.press('Enter');
  await page.waitForFunction(() => /on 2 nodes;/.test(document.querySelector('.kv-live-summary')?.textContent ?? ''));
  await kv.getByRole('button', { name: 'Simulation', exact: true }).click();
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.tablets-panel .tablet-bar .tablet')].map((e) => e.title.slice(-1)).join('') === '0101',
  );
  assert.deepEqual(await audit(page, 'section.tablets-panel'), [], 'axe-core violations in the Tablets panel');
  assert.deepEqual(problems, []);
  await context.close();
});

for (const [viewport, size] of [
  [{ width: 1440, height: 900 }, 'wide'],
  [{ width: 390, height: 844 }, 'phone'],
]) {
  for (const colorScheme of ['light', 'dark']) {
    test(`simulated tablets say what they are and lead to the real ones; A/B has no data bar (${size}, ${colorScheme})`, async () => {
      const { page, problems, context } = await openApp({ viewport, colorScheme });
      const kv = region(page, 'Key Visualizer');
      const tablets = region(page, 'Tablets');
      await kv.getByRole('combobox', { name: 'Scenario' }).selectOption('mobile_timestamp_first.toml');
      await tablets.locator('.sim-bar').waitFor();
      const hint = tablets.locator('.sim-tablets-hint');
      assert.match(await hint.textContent(), /^Simulated tablets: no rows behind them\. Create table with rows/);

      // A simulated tablet is chosen by keyboard, then by a click.
      const bar = tablets.getByRole('group', { name: /^Simulated key space: \d+ tablets? coloured by node/ });
      await bar.scrollIntoViewIfNeeded();
      await bar.focus();
      await page.keyboard.press('ArrowRight');
      const detail = tablets.locator('.sim-tablet-detail');
      await page.waitForFunction((el) => el.textContent.length > 0, await detail.elementHandle());
      assert.match(await detail.textContent(), /^#\d+ from .+ to .+ · node \d+ · .+ · .+ rows · \d+% of a node$/);
      assert.equal(await tablets.locator('.sim-bar .tablet.chosen').count(), 1);
      const box = await bar.boundingBox();
      await page.mouse.click(box.x + box.width - 2, box.y + box.height / 2);
      await page.waitForFunction((el) => / to the end · node/.test(el.textContent), await detail.elementHandle());
      assert.deepEqual(await audit(page, 'section.tablets-panel'), [], `axe-core violations, simulated tablets (${size}, ${colorScheme})`);
      await tablets.screenshot({ path: path.join(SCREENSHOTS, `tablet-links-sim-${size}-${colorScheme}.png`) });

      // The design's table: the hint offers its tablets, which have rows.
      await kv.getByRole('combobox', { name: 'Rows to generate' }).selectOption('10000');
      await kv.getByRole('button', { name: 'Create table with rows' }).click();
      await page.waitForFunction(() => /10,000 rows in mobile_time_series\./.test(document.querySelector('.scenario-data')?.textContent ?? ''), null, {
        timeout: 60_000,
      });
      if ((await tablets.locator('.sim-bar').count()) === 0) {
        await tablets.getByRole('button', { name: 'Simulation', exact: true }).click();
      }
      const show = tablets.getByRole('button', { name: 'Show the tablets of mobile_time_series' });
      await show.click();
      await tablets.locator('.tablet-bar:not(.sim-bar)').waitFor();
      // The Rows panel follows: the design's keys (a timestamp first).
      await page.waitForFunction(() => /^\d{13}#(phone|tablet)#/.test(document.querySelector('#rows .row .key')?.textContent ?? ''));
      const real = await barNodes(tablets);
      assert.ok(real.size >= 1, 'the real tablets, each on a node');
      // Choosing the last real tablet scrolls the rows to its first key.
      const realBar = tablets.locator('.tablet-bar');
      await realBar.focus();
      await page.keyboard.press('End');
      const detailLine = tablets.locator('.tablet-detail');
      await page.waitForFunction((el) => / · node \d+/.test(el.textContent), await detailLine.elementHandle());
      const start = /from (\S+) to the end/.exec(await detailLine.textContent());
      assert.ok(start, await detailLine.textContent());
      await page.waitForFunction((k) => document.querySelector('#rows .row .key')?.textContent >= k, start[1] === 'the' ? '' : start[1]);
      assert.deepEqual(await audit(page, 'section.tablets-panel'), [], `axe-core violations, real tablets (${size}, ${colorScheme})`);
      await tablets.screenshot({ path: path.join(SCREENSHOTS, `tablet-links-nodes-${size}-${colorScheme}.png`) });

      // The A/B view: no scenario data bar above it.
      await kv.scrollIntoViewIfNeeded();
      await kv.getByRole('button', { name: 'Simulation', exact: true }).click();
      await kv.locator('.scenario-data').waitFor();
      await kv.getByRole('button', { name: 'A/B', exact: true }).click();
      await kv.getByRole('button', { name: 'Run A/B' }).click();
      await kv.locator('.ab-verdict').waitFor({ timeout: 120_000 });
      assert.equal(await kv.locator('.scenario-data').count(), 0, 'the data bar is not above the A/B view');
      assert.equal(await kv.locator('.ab-map-waiting').count(), 0, 'both maps are drawn');
      assert.deepEqual(await audit(page, 'section.keyviz-panel'), [], `axe-core violations, A/B (${size}, ${colorScheme})`);
      await kv.screenshot({ path: path.join(SCREENSHOTS, `tablet-links-ab-${size}-${colorScheme}.png`) });
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
}
