// End-to-end tests of emulator parity and the instance's views in the
// Schema panel, on the release build served under /tabletop/: the header's
// Emulator parity switch makes the console answer as Google's emulator
// (UNKNOWN for a family the table lacks, the write kept up to it), says so
// in the console, survives a reload (autosave) and turns off again; logical
// and authorized views made and deleted in the console's JSON tab show in
// the Schema panel with their definitions. axe-core checks both.
// Screenshots go to tests/e2e/screenshots/parity-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, SCREENSHOTS, openApp as open, region, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);
const AXE = readFile(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** axe-core's serious and critical violations, as readable lines. */
async function audit(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: await AXE });
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `[${v.impact}] ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

const output = async (entry) => (await entry.locator('.entry-output').textContent()) ?? '';
const parity = (page) => page.locator('#emulator-parity');

test('the Emulator parity switch makes the console answer as the emulator, and autosave keeps it', async () => {
  const { page, problems, context } = await openApp();
  await runCommand(page, 'createtable par families=cf');
  const write = 'set par r cf:a=1 nope:b=2';
  assert.match(await output(await runCommand(page, write)), /code = NotFound/);
  assert.equal(await parity(page).getAttribute('aria-pressed'), 'false');

  await parity(page).click();
  assert.equal(await parity(page).getAttribute('aria-pressed'), 'true');
  const console = region(page, 'Console');
  await console.locator('.parity-note', { hasText: "emulator's answers" }).waitFor();
  assert.match(await page.locator('.notice').textContent(), /Emulator parity is on/);
  assert.match(await output(await runCommand(page, write)), /code = Unknown desc = unknown family "nope"/);
  // The emulator kept the mutation before the failing one.
  assert.match(await output(await runCommand(page, 'read par')), /cf:a/);
  assert.deepEqual(await audit(page), [], 'axe-core with parity on');
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: path.join(SCREENSHOTS, `parity-on-1440-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // A reload without the fragment: autosave brings the setting back.
  await page.waitForTimeout(900);
  await page.goto(env.server.url);
  await page.waitForSelector('#table-list .table-name:text-is("par")');
  assert.equal(await parity(page).getAttribute('aria-pressed'), 'true');
  assert.match(await output(await runCommand(page, 'set par r2 nope:b=2')), /code = Unknown/);

  // Off again: production's answers.
  await parity(page).click();
  assert.equal(await parity(page).getAttribute('aria-pressed'), 'false');
  assert.equal(await console.locator('.parity-note').count(), 0);
  assert.match(await output(await runCommand(page, 'set par r3 nope:b=2')), /code = NotFound/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the switch fits a phone screen', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems, context } = await openApp({ viewport: { width: 390, height: 844 }, colorScheme });
    await parity(page).click();
    assert.equal(await parity(page).getAttribute('aria-pressed'), 'true');
    await page.screenshot({ path: path.join(SCREENSHOTS, `parity-on-390-${colorScheme}.png`) });
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('logical and authorized views made in the console show in the Schema panel', async () => {
  const { page, problems, context } = await openApp();
  const parent = (await page.locator('#core-status .mono').textContent()).trim();
  await runCommand(page, 'createtable shop families=o');
  const json = (method, request) => runCommand(page, JSON.stringify({ method, request }), { tab: 'json' });
  const query = "SELECT _key AS id FROM shop WHERE STARTS_WITH(_key, 'open#')";
  assert.match(await output(await json('createLogicalView', {
    parent, logicalViewId: 'open_orders', logicalView: { query, deletionProtection: true },
  })), /"response"/);
  const schema = region(page, 'Schema');
  const logical = schema.locator('#logical-views-list');
  await logical.locator('.view-name', { hasText: 'open_orders' }).waitFor();
  assert.equal(await logical.locator('.view-query').textContent(), query);
  assert.match(await logical.locator('.table-meta').textContent(), /protected from deletion/);

  assert.match(await output(await json('createAuthorizedView', {
    parent: `${parent}/tables/shop`, authorizedViewId: 'mine',
    authorizedView: { subsetView: { rowPrefixes: [btoa('open#')], familySubsets: { o: { qualifierPrefixes: [''] } } } },
  })), /"response"/);
  const authorized = schema.locator('#authorized-views-list');
  await authorized.locator('.view-name', { hasText: 'mine' }).waitFor();
  assert.match(await authorized.textContent(), /of shop.*rows starting open#.*o: every column/s);
  assert.deepEqual(await audit(page), [], 'axe-core with the views listed');
  // The lists sit under the tables and families: show them, maximized.
  await schema.getByRole('button', { name: /Maximize/ }).click();
  await logical.scrollIntoViewIfNeeded();
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: path.join(SCREENSHOTS, `parity-views-${colorScheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await schema.getByRole('button', { name: /Maximize/ }).click();

  // Deleted in the console: gone from the panel.
  await json('updateLogicalView', { logicalView: { name: `${parent}/logicalViews/open_orders`, deletionProtection: false }, updateMask: 'deletionProtection' });
  assert.match(await output(await json('deleteLogicalView', { name: `${parent}/logicalViews/open_orders` })), /"response"/);
  await logical.waitFor({ state: 'detached' });
  await json('deleteAuthorizedView', { name: `${parent}/tables/shop/authorizedViews/mine` });
  await authorized.waitFor({ state: 'detached' });
  assert.deepEqual(problems, []);
  await context.close();
});
