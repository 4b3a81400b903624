// End-to-end tests on the release build: a heatmap cell names the tablet
// and the node that served its keys. On the live map ("Your tables") the
// real tablets are given to the nodes of the Nodes field by the
// simulator's balancer rule; on the A/B view's simulated maps each cell
// names the tablet and node of its own time bucket. Checked by keyboard
// (the arrow keys move a cursor over the cells; its words go to a live
// region) and by the pointer (the tooltip); axe-core audits both.
// Screenshots go to tests/e2e/screenshots/cell-place-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, SCREENSHOTS, openApp as open, region, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);
const AXE = readFile(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const PHONE = { width: 390, height: 844 };

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

/** Focuses `canvas` and moves the keyboard cursor one cell down; returns
 * what the live region says and the pinned tooltip's place line. */
async function cursorDown(page, scope, canvas) {
  await canvas.focus();
  const live = scope.locator('.kv-cursor-live');
  const before = await live.textContent();
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(
    ([el, before]) => el.textContent !== before && el.textContent.startsWith('Keys '),
    [await live.elementHandle(), before],
  );
  const tip = scope.locator('.kv-tooltip.pinned .kv-tip-place');
  await tip.waitFor();
  return { said: await live.textContent(), place: await tip.textContent() };
}

test('a live cell names its real tablet and the node the balancer gave it', async () => {
  const { page, problems, context } = await openApp();
  const kv = region(page, 'Key Visualizer');
  await runCommand(page, 'read mobile-time-series prefix=phone#4c41');
  const canvas = kv.getByRole('img', { name: 'Key Visualizer heatmap' });
  await canvas.waitFor();
  const nodes = kv.getByRole('spinbutton', { name: 'Nodes' });
  assert.equal(await nodes.inputValue(), '3', "a scenario's default cluster");
  assert.match(await kv.locator('.kv-live-summary').textContent(), / tablets? on \d nodes?;/);

  const { said, place } = await cursorDown(page, kv, canvas);
  assert.match(place, /^tablet #\d+ on node [0-2], [\d,]+ rows? stored$/);
  assert.ok(said.endsWith(`; ${place}`), `the live region says it too: ${said}`);

  // One node: every tablet is on node 0.
  await nodes.fill('1');
  await nodes.press('Enter');
  await nodes.blur();
  await page.waitForFunction(() => /on 1 node;/.test(document.querySelector('.kv-live-summary')?.textContent ?? ''));
  const again = await cursorDown(page, kv, canvas);
  assert.match(again.place, /^tablet #\d+ on node 0, /);
  // The Tablets panel names the node of the tablet it describes.
  const detail = region(page, 'Tablets').locator('.tablet-detail');
  await page.waitForFunction((el) => / · node 0/.test(el.textContent), await detail.elementHandle());
  assert.deepEqual(await audit(page, 'section.keyviz-panel'), [], 'axe-core violations in the live view');
  await kv.screenshot({ path: path.join(SCREENSHOTS, 'cell-place-live.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

for (const [viewport, size] of [
  [{ width: 1440, height: 900 }, 'wide'],
  [PHONE, 'phone'],
]) {
  for (const colorScheme of ['light', 'dark']) {
    test(`an A/B cell names the tablet and node of its time bucket (${size}, ${colorScheme})`, async () => {
      const { page, problems, context } = await openApp({ viewport, colorScheme });
      const kv = region(page, 'Key Visualizer');
      await kv.scrollIntoViewIfNeeded();
      await kv.getByRole('button', { name: 'A/B', exact: true }).click();
      await kv.getByRole('button', { name: 'Run A/B' }).click();
      await kv.locator('.ab-verdict').waitFor({ timeout: 120_000 });
      // The pointer: hovering a cell shows the line in its tooltip.
      const hovered = kv.getByRole('img', { name: 'Design B heatmap' });
      await hovered.scrollIntoViewIfNeeded();
      const box = await hovered.boundingBox();
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.4);
      const tip = kv.locator('figure[aria-label="Design B"] .kv-tooltip .kv-tip-place');
      await tip.waitFor();
      assert.match(await tip.textContent(), /^(tablet #\d+|\d+ tablets, #\d+ to #\d+,) on nodes? \d/);
      await page.mouse.move(0, 0);
      // The keyboard: the cursor's cell, pinned, in words and in the
      // tooltip.
      for (const letter of ['A', 'B']) {
        const figure = kv.locator(`figure[aria-label="Design ${letter}"]`);
        const canvas = figure.getByRole('img', { name: `Design ${letter} heatmap` });
        const { said, place } = await cursorDown(page, figure, canvas);
        // The cursor starts in the last time bucket: the tablets the run
        // ended with, each on one of the scenario's nodes.
        assert.match(place, /^(tablet #\d+|\d+ tablets, #\d+ to #\d+,) on nodes? \d+( and \d+|(, \d+)+ and \d+)?$/);
        assert.ok(!place.includes('stored'), 'a simulation stores no real rows');
        assert.ok(said.endsWith(`; ${place}`), said);
        if (letter === 'A') await page.keyboard.press('Escape');
      }
      assert.deepEqual(await audit(page, 'section.keyviz-panel'), [], `axe-core violations (${size}, ${colorScheme})`);
      // B's cell stays pinned for the picture.
      await kv.locator('figure[aria-label="Design B"]').screenshot({ path: path.join(SCREENSHOTS, `cell-place-ab-${size}-${colorScheme}.png`) });
      assert.deepEqual(problems, []);
      await context.close();
    });
  }
}
