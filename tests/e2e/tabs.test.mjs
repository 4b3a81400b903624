// End-to-end test of the playground open in several tabs of one browser:
// one tab keeps the shared autosave (the one opened last, or the one that
// took it back), the others say so and keep their own work for themselves,
// so no tab's work silently overwrites another's. Screenshots:
// autosave-other-tab*.png in tests/e2e/screenshots/. Run
// `trunk build --release` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SCREENSHOTS, audit, openApp as open, region, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);

const tableNames = (page) => page.$$eval('#table-list .table-name', (els) => els.map((e) => e.textContent));

/** Waits until the Schema panel lists exactly these tables. */
async function waitForTables(page, names) {
  await page.waitForFunction(
    (want) => JSON.stringify([...document.querySelectorAll('#table-list .table-name')].map((e) => e.textContent)) === JSON.stringify(want),
    names,
    { timeout: 15_000 },
  );
}

/** Autosave writes once the page has been still for a moment. */
const settle = (page) => page.waitForTimeout(1000);

async function createTable(page, name) {
  const entry = await runCommand(page, `createtable ${name} families=cf`);
  assert.doesNotMatch(await entry.getAttribute('class'), /error/);
}

const bar = (page) => region(page, 'Autosave in another tab');

test('two tabs: the newer keeps the autosave, the older says so, and either can take it back', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const first = await openApp({ context });
  await createTable(first.page, 'from_first');
  await settle(first.page);

  // A second tab opens the autosave and keeps it from now on.
  const second = await openApp({ context });
  await waitForTables(second.page, ['from_first', 'mobile-time-series']);
  await bar(first.page).waitFor();
  assert.equal(await bar(second.page).count(), 0, 'the tab that keeps the autosave shows no strip');
  for (const colorScheme of ['light', 'dark']) {
    await first.page.emulateMedia({ colorScheme });
    await first.page.screenshot({ path: path.join(SCREENSHOTS, `autosave-other-tab-${colorScheme}.png`) });
    assert.deepEqual(await audit(first.page), [], `axe-core violations with the strip (${colorScheme})`);
  }
  await first.page.setViewportSize({ width: 390, height: 844 });
  await first.page.screenshot({ path: path.join(SCREENSHOTS, 'autosave-other-tab-phone.png') });
  await first.page.setViewportSize({ width: 1440, height: 900 });

  // Both go on working; the older tab no longer writes the shared autosave.
  await createTable(second.page, 'from_second');
  await settle(second.page);
  await createTable(first.page, 'late_first');
  await settle(first.page);
  const third = await openApp({ context });
  await waitForTables(third.page, ['from_first', 'from_second', 'mobile-time-series']);
  await bar(second.page).waitFor();

  // The first tab takes the autosave back: its own work, kept all along.
  assert.deepEqual(await tableNames(first.page), ['from_first', 'late_first', 'mobile-time-series']);
  await bar(first.page).getByRole('button', { name: "Keep this tab's work as the autosave" }).click();
  await bar(first.page).waitFor({ state: 'detached' });
  await bar(third.page).waitFor();
  const fourth = await openApp({ context });
  await waitForTables(fourth.page, ['from_first', 'late_first', 'mobile-time-series']);

  // A reload of a tab that does not keep the autosave asks first (its
  // work would be gone if this were a close); once the user goes on, it
  // brings back that tab's own work, not the shared autosave's, and keeps
  // the autosave from then on.
  third.page.removeAllListeners('dialog');
  const reloadAsked = new Promise((resolve) =>
    third.page.once('dialog', async (d) => {
      resolve(d.type());
      await d.accept();
    }),
  );
  await third.page.reload();
  assert.equal(await reloadAsked, 'beforeunload');
  await waitForTables(third.page, ['from_first', 'from_second', 'mobile-time-series']);
  await bar(fourth.page).waitFor();

  // Closing a tab whose work is not the autosave asks first too.
  second.page.removeAllListeners('dialog');
  const asked = new Promise((resolve) =>
    second.page.once('dialog', async (d) => {
      resolve(d.type());
      await d.accept();
    }),
  );
  const closed = new Promise((resolve) => second.page.once('close', resolve));
  await second.page.close({ runBeforeUnload: true });
  assert.equal(await asked, 'beforeunload');
  await closed;
  for (const tab of [first, second, third, fourth]) assert.deepEqual(tab.problems, []);
  await context.close();
});
