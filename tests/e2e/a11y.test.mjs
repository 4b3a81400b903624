// Accessibility, tested: axe-core (from npm, injected into the page) finds
// no serious or critical violation in the states a person goes through,
// in the light and the dark theme, on a laptop and on a phone. Run
// `trunk build --release` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { audit, openApp as open, region, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);
async function expectClean(page, what) {
  assert.deepEqual(await audit(page), [], `axe-core violations in ${what}`);
}

for (const colorScheme of ['light', 'dark']) {
  test(`no serious accessibility violation in the ${colorScheme} theme`, async () => {
    const { page, problems, context } = await openApp({ colorScheme });
    await expectClean(page, 'the first load');

    // A read and an EXPLAIN in the console; the filter builder open.
    await runCommand(page, 'read mobile-time-series prefix=phone');
    await runCommand(page, 'EXPLAIN SELECT * FROM `mobile-time-series` WHERE _key = "phone#1"', { tab: 'SQL' });
    await region(page, 'Console').getByRole('button', { name: 'Filter builder' }).click();
    // The reads are the person's work: the Key Visualizer shows the live
    // map of the table, which is audited with the rest.
    await page.waitForSelector('section.keyviz-panel[data-view=live] canvas.kv-canvas');
    await expectClean(page, 'the console with output, the filter builder and the live Key Visualizer');
    await region(page, 'Console').getByRole('button', { name: 'Filter builder' }).click();

    // A scenario run to its end: the heatmap, its banners and controls.
    const keyviz = region(page, 'Key Visualizer');
    await keyviz.getByRole('button', { name: 'Simulation', exact: true }).click();
    await keyviz.getByRole('combobox', { name: 'Scenario' }).selectOption('mobile_timestamp_first.toml');
    await keyviz.getByRole('combobox', { name: 'Speed' }).selectOption('max');
    await keyviz.getByRole('button', { name: 'Play' }).click();
    await page.waitForFunction(
      () => document.querySelector('.keyviz-panel [role=progressbar]')?.getAttribute('aria-valuenow') === '100',
      null,
      { timeout: 60_000 },
    );
    await expectClean(page, 'the Key Visualizer after a run');
    // The heatmap's keyboard cursor is announced through a live region
    // that is there before it speaks.
    const live = keyviz.locator('.kv-cursor-live[aria-live=polite]');
    assert.equal(await live.textContent(), '');
    await keyviz.getByRole('img', { name: 'Key Visualizer heatmap' }).focus();
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction(() => document.querySelector('.kv-cursor-live')?.textContent.startsWith('Keys '));
    const said = await live.textContent();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction((before) => document.querySelector('.kv-cursor-live')?.textContent !== before, said);
    assert.match(await live.textContent(), /^Keys .+ to .+; .+; .+/);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('.kv-cursor-live')?.textContent === '');

    // A lesson in progress, with its verdict.
    await page.getByRole('tab', { name: 'Lessons' }).click();
    await region(page, 'Lessons').locator('.lesson-open[data-lesson="row-ranges"]').click();
    await region(page, 'Lessons').getByRole('button', { name: 'Start lesson', exact: true }).click();
    const dock = region(page, 'Lesson in progress');
    await dock.getByRole('button', { name: 'Check', exact: true }).click();
    await dock.locator('.verdict').waitFor();
    await expectClean(page, 'a lesson in progress');

    // The dialogs.
    await page.getByRole('button', { name: 'Export…' }).click();
    await page.getByRole('dialog').waitFor();
    await expectClean(page, 'the Export dialog');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Import…' }).click();
    await page.getByRole('dialog').waitFor();
    await expectClean(page, 'the Import dialog');
    await page.keyboard.press('Escape');
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('no serious accessibility violation on a phone', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems, context } = await openApp({ colorScheme, viewport: { width: 390, height: 844 } });
    await expectClean(page, `the phone layout (${colorScheme})`);
    await runCommand(page, 'read mobile-time-series prefix=phone');
    await page.waitForSelector('section.keyviz-panel[data-view=live] .kv-live-summary', { state: 'attached' });
    await expectClean(page, `the live Key Visualizer on a phone (${colorScheme})`);
    assert.deepEqual(problems, []);
    await context.close();
  }
});
