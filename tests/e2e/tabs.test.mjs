// End-to-end test of the playground open in several tabs of one browser:
// one tab keeps the shared autosave (the one opened last, or the one that
// took it back), the others say so and keep their own work for themselves,
// so no tab's work silently overwrites another's; a tab closed without the
// autosave leaves its work as "Recovered work from another tab". Screenshots:
// autosave-other-tab*.png and recovered-work*.png in tests/e2e/screenshots/.
// Run `trunk build --release` first.
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

/**
 * Screenshots `<name>-light.png`, `-dark.png` (each checked by axe-core)
 * and `-phone.png`, leaving the page light at desktop size.
 */
async function shoot(page, name) {
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${colorScheme}.png`) });
    assert.deepEqual(await audit(page), [], `axe-core violations in ${name} (${colorScheme})`);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-phone.png`) });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Reloads or closes a page, going on past the question it asks first. */
async function leave(tab, how) {
  tab.page.removeAllListeners('dialog');
  const asked = new Promise((resolve) =>
    tab.page.once('dialog', async (d) => {
      resolve(d.type());
      await d.accept();
    }),
  );
  if (how === 'close') {
    const closed = new Promise((resolve) => tab.page.once('close', resolve));
    await tab.page.close({ runBeforeUnload: true });
    await closed;
  } else {
    await tab.page.reload();
  }
  assert.equal(await asked, 'beforeunload');
}

/**
 * Two tabs of one browser context: the first makes table `name` and
 * autosaves; the second opens that autosave and keeps it from then on, so
 * the first says so.
 */
async function twoTabs(name) {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const first = await openApp({ context });
  await createTable(first.page, name);
  await settle(first.page);
  const second = await openApp({ context });
  await waitForTables(second.page, [name, 'mobile-time-series']);
  await bar(first.page).waitFor();
  return { context, first, second };
}

test('two tabs: the newer keeps the autosave, the older says so, and either can take it back', async () => {
  // A second tab opens the autosave and keeps it from now on.
  const { context, first, second } = await twoTabs('from_first');
  assert.equal(await bar(second.page).count(), 0, 'the tab that keeps the autosave shows no strip');
  await shoot(first.page, 'autosave-other-tab');

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
  await leave(third, 'reload');
  await waitForTables(third.page, ['from_first', 'from_second', 'mobile-time-series']);
  await bar(fourth.page).waitFor();

  // Closing a tab whose work is not the autosave asks first too.
  await leave(second, 'close');
  for (const tab of [first, second, third, fourth]) assert.deepEqual(tab.problems, []);
  await context.close();
});

const recovered = (page) => region(page, 'Recovered work from another tab');

/** The recovery slots in the context's localStorage. */
const slots = (page) =>
  page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('tabletop.recovered.')));

test('a tab closed without the autosave leaves its work to recover, to open or discard', async () => {
  const { context, first, second } = await twoTabs('kept_first');

  // A reload of a tab without the autosave takes its work back and leaves
  // nothing behind to recover.
  await createTable(first.page, 'first_only');
  await leave(first, 'reload');
  await waitForTables(first.page, ['first_only', 'kept_first', 'mobile-time-series']);
  await bar(second.page).waitFor();
  await settle(second.page);
  assert.deepEqual(await slots(second.page), []);
  assert.equal(await recovered(second.page).count(), 0);

  // Closing one keeps its latest work (typed just before, not yet
  // autosaved), listed at once in the open tab and on the next load.
  await createTable(second.page, 'second_only');
  await leave(second, 'close');
  const summary = '3 tables: kept_first, mobile-time-series, second_only';
  await recovered(first.page).getByText(summary).waitFor();
  await shoot(first.page, 'recovered-work');
  const third = await openApp({ context });
  await recovered(third.page).getByText(summary).waitFor();

  // Opening it brings the closed tab's tables (this tab's are set aside),
  // and it leaves every tab's list.
  await recovered(first.page).getByRole('button', { name: `Open recovered work (${summary})` }).click();
  await waitForTables(first.page, ['kept_first', 'mobile-time-series', 'second_only']);
  await recovered(first.page).waitFor({ state: 'detached' });
  await recovered(third.page).waitFor({ state: 'detached' });

  // Discarding forgets it.
  await bar(first.page).waitFor();
  await createTable(first.page, 'doomed');
  await leave(first, 'close');
  await recovered(third.page).getByRole('button', { name: /^Discard recovered work/ }).click();
  await recovered(third.page).waitFor({ state: 'detached' });
  assert.deepEqual(await slots(third.page), []);
  for (const tab of [first, second, third]) assert.deepEqual(tab.problems, []);
  await context.close();
});
