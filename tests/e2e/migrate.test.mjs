// End-to-end tests of the tools, on the release build served under
// /tabletop/: migration in (a DynamoDB model through the Import dialog,
// into the Schema and Rows panels; a broken Oracle DDL that changes
// nothing), production out (the Export dialog's cbt script and Terraform
// file, byte for byte what the CLI's `tabletop export` prints for the same
// snapshot), and the console's SQL tab (SELECT and EXPLAIN).
// Screenshots of both dialogs and of the SQL tab go to
// tests/e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, SCREENSHOTS, openApp as open, region, rowKeys, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);

const CATALOG = await readFile(path.join(ROOT, 'core/tests/translate_fixtures/product_catalog.json'), 'utf8');

/** The `tabletop` CLI: a built binary when there is one, else cargo. */
function tabletop(args) {
  for (const bin of ['target/debug/tabletop', 'target/release/tabletop']) {
    const file = path.join(ROOT, bin);
    if (existsSync(file)) return execFileSync(file, args, { cwd: ROOT, env: { ...process.env, TZ: 'UTC' } });
  }
  return execFileSync('cargo', ['run', '-q', '-p', 'tabletop-cli', '--', ...args], { cwd: ROOT });
}

/** Saves a download and returns its path. */
async function saved(download) {
  const file = path.join(env.downloads, download.suggestedFilename());
  await download.saveAs(file);
  return file;
}

test('a DynamoDB model is previewed as it is pasted, applied, and shows in Schema and Rows', async () => {
  const { page, problems, context } = await openApp();
  await page.getByRole('button', { name: 'Import…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a design or data' });
  await dialog.waitFor();
  assert.equal(await dialog.evaluate((d) => d.open && d.matches(':modal')), true, 'a modal dialog');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'DynamoDB model', 'the text has the focus');
  await dialog.getByRole('textbox', { name: 'DynamoDB model' }).fill(CATALOG);
  const preview = dialog.getByRole('region', { name: 'Translation' });
  await preview.getByRole('article', { name: 'Table ProductCatalog' }).waitFor();
  const text = await preview.textContent();
  assert.match(text, /DynamoDB table with a composite primary key/);
  assert.match(text, /Hats#fedora#brandA/);
  assert.match(text, /5 rows/);
  assert.match(text, /maxversions=1|never/, 'the GC rules');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dialog-import.png') });

  await dialog.getByRole('button', { name: 'Apply', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.waitForSelector('#table-list .table-name:text-is("ProductCatalog")');
  await page.waitForFunction(() => document.querySelector('#rows .row .key')?.textContent === 'Hats#fedora#brandA');
  // The rows in key order (as many as fit on screen), five in all.
  const keys = await rowKeys(page);
  assert.deepEqual(keys, ['Hats#fedora#brandA', 'Hats#fedora#brandB', 'Hats#newsboy#brandB', 'Shoes#sneakers#brandA', 'Shoes#sneakers#brandB'].slice(0, keys.length));
  assert.ok(keys.length >= 3, `rows are shown: ${keys}`);
  assert.match(await page.textContent('#rows-position'), /of 5 rows$/);
  await region(page, 'Rows').screenshot({ path: path.join(SCREENSHOTS, 'panel-rows-imported.png') });
  assert.match(await page.locator('.notice').textContent(), /Created 1 table from DynamoDB model \(JSON\): ProductCatalog \(5 rows\)/);
  assert.match(await region(page, 'Schema').textContent(), /ProductCatalog/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a broken Oracle DDL shows a line:column error, highlights the line, and changes nothing', async () => {
  const { page, problems, context } = await openApp();
  const before = await page.locator('#table-list .table-name').allTextContents();
  await page.getByRole('button', { name: 'Import…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a design or data' });
  await dialog.getByRole('radio', { name: 'Oracle NoSQL DDL' }).check();
  const ddl = dialog.getByRole('textbox', { name: 'Oracle NoSQL DDL' });
  await ddl.fill('CREATE TABLE users (\n  id INTEGER,\n  name STRNG,\n  PRIMARY KEY(id)\n)');
  const alert = dialog.locator('#import-error');
  await alert.waitFor();
  const where = await alert.locator('strong').textContent();
  assert.match(where, /^3:\d+$/, 'line:column');
  assert.match(await alert.textContent(), /STRNG/);
  assert.equal(await dialog.locator('.code-line.error-line').textContent(), '  name STRNG,\n');
  assert.equal(await ddl.getAttribute('aria-invalid'), 'true');
  assert.equal(await dialog.getByRole('button', { name: 'Apply', exact: true }).isDisabled(), true);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dialog-import-error.png') });
  // Go to puts the caret on the error.
  await alert.getByRole('button', { name: /^Go to line 3/ }).click();
  const caretLine = await ddl.evaluate((t) => t.value.slice(0, t.selectionStart).split('\n').length);
  assert.equal(caretLine, 3);
  // Escape closes the dialog and gives the focus back; nothing was created.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Import…');
  assert.deepEqual(await page.locator('#table-list .table-name').allTextContents(), before);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Export downloads the cbt script and Terraform exactly as `tabletop export` prints them', async () => {
  const { page, problems, context } = await openApp();
  for (const command of ['createtable extra families=cf:maxversions=2 splits=m', "set extra 'k#1' cf:q=v@1588291200000000"]) {
    const entry = await runCommand(page, command);
    assert.equal(await entry.getAttribute('class'), 'entry ok', command);
  }
  // The snapshot of the same state, for the CLI.
  const [snapshotDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export snapshot' }).click(),
  ]);
  const state = await saved(snapshotDownload);

  await page.getByRole('button', { name: 'Export…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Export for production' });
  await dialog.waitFor();
  await dialog.getByRole('combobox', { name: 'Tables to export' }).selectOption({ label: 'Every table' });
  await dialog.getByRole('tab', { name: 'cbt script' }).click();
  await dialog.getByRole('button', { name: 'Download playground.cbt' }).waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dialog-export.png') });
  const [cbtDownload] = await Promise.all([
    page.waitForEvent('download'),
    dialog.getByRole('button', { name: 'Download playground.cbt' }).click(),
  ]);
  assert.equal(cbtDownload.suggestedFilename(), 'playground.cbt');
  const cbt = await readFile(await saved(cbtDownload), 'utf8');
  assert.equal(cbt, tabletop(['export', '--state', state, '--format', 'cbt']).toString('utf8'));
  assert.match(cbt, /createtable extra families=cf:maxversions=2 splits=m\n/);
  assert.equal(await dialog.locator('.export-preview').textContent(), cbt, 'the preview is the file');

  await dialog.getByRole('tab', { name: 'Terraform' }).click();
  const [tfDownload] = await Promise.all([
    page.waitForEvent('download'),
    dialog.getByRole('button', { name: 'Download playground.tf' }).click(),
  ]);
  const tf = await readFile(await saved(tfDownload), 'utf8');
  assert.equal(tf, tabletop(['export', '--state', state, '--format', 'terraform']).toString('utf8'));
  assert.match(tf, /resource "google_bigtable_table"/);

  // One table: its name on the files, and its rows as CSV.
  await dialog.getByRole('combobox', { name: 'Tables to export' }).selectOption({ label: 'extra' });
  await dialog.getByRole('tab', { name: 'Rows as CSV' }).click();
  const [csvDownload] = await Promise.all([
    page.waitForEvent('download'),
    dialog.getByRole('button', { name: 'Download extra.csv' }).click(),
  ]);
  const csv = await readFile(await saved(csvDownload), 'utf8');
  assert.equal(csv, ',cf\n,q\nk#1,v@1588291200000000\n');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(problems, []);
  await context.close();
});

test('the SQL tab runs SELECT and EXPLAIN and reports what the read cost', async () => {
  const { page, problems, context } = await openApp();
  const select = await runCommand(page, "SELECT _key, stats_summary['os_build'] AS build FROM `mobile-time-series` WHERE STARTS_WITH(_key, 'phone#')", { tab: 'SQL' });
  const out = await select.locator('.entry-output').textContent();
  assert.match(out, /_key\s+\|\s+build/);
  assert.match(out, /phone#4c410523#20200501\s+\|\s+PQ2A\.190405\.004/);
  assert.doesNotMatch(out, /tablet#/);
  assert.match(out, /3 rows/);
  assert.equal(
    await select.locator('.read-report').textContent(),
    'rows: 3 returned / 3 seen · cells: 6 returned / 10 seen · tablets visited: 1 of 1 (#0)',
  );
  // Byte for byte what `tabletop sql` prints for the same snapshot.
  const [snapshotDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export snapshot' }).click(),
  ]);
  const state = await saved(snapshotDownload);
  const cli = tabletop([
    'sql',
    '--state',
    state,
    "SELECT _key, stats_summary['os_build'] AS build FROM `mobile-time-series` WHERE STARTS_WITH(_key, 'phone#')",
  ]).toString('utf8');
  assert.equal(out, cli);
  const explain = await runCommand(page, "EXPLAIN SELECT _key FROM `mobile-time-series` WHERE STARTS_WITH(_key, 'phone#')", { tab: 'SQL' });
  const plan = await explain.locator('.entry-output').textContent();
  assert.match(plan, /access\s+prefix scan of "phone#"/);
  assert.match(plan, /row set\s+\["phone#", "phone\$"\)/);
  const scan = await runCommand(page, "EXPLAIN SELECT _key FROM `mobile-time-series` WHERE stats_summary['os_build'] = 'none'", { tab: 'SQL' });
  assert.match(await scan.locator('.entry-output').textContent(), /full/i);

  // A view shows in the Schema panel with its lag.
  await runCommand(
    page,
    "CREATE MATERIALIZED VIEW builds AS SELECT stats_summary['os_build'] AS build, COUNT(*) AS n FROM `mobile-time-series` GROUP BY build",
    { tab: 'SQL' },
  );
  await page.waitForSelector('#views-list .view-name:text-is("builds")');
  assert.match(await page.locator('#views-list .view-lag').textContent(), /caught up/);
  await runCommand(page, 'set mobile-time-series phone#9 stats_summary:os_build=X', { tab: 'cbt' });
  await page.waitForSelector('#views-list .view-lag.behind');
  await page.waitForSelector('#views-list .view-lag.caught-up', { timeout: 10_000 });

  await page.getByRole('tab', { name: 'SQL' }).click();
  await region(page, 'Console').screenshot({ path: path.join(SCREENSHOTS, 'panel-console-sql.png') });
  await page.locator('#views-list').scrollIntoViewIfNeeded();
  await region(page, 'Schema').screenshot({ path: path.join(SCREENSHOTS, 'panel-schema-views.png') });
  // The SQL tab survives a share link.
  await page.getByRole('textbox', { name: 'Command' }).fill('SELECT 1');
  await page.waitForTimeout(700);
  const link = page.url();
  const again = await openApp({ url: link });
  assert.equal(await again.page.getByRole('tab', { name: 'SQL' }).getAttribute('aria-selected'), 'true');
  assert.equal(await again.page.getByRole('textbox', { name: 'Command' }).inputValue(), 'SELECT 1');
  assert.deepEqual([...problems, ...again.problems], []);
  await again.context.close();
  await context.close();
});

test('a cbt CSV file imports into a new table with counts, and a bad one writes nothing', async () => {
  const { page, problems, context } = await openApp();
  const good = path.join(env.downloads, 'orders.csv');
  const bad = path.join(env.downloads, 'broken.csv');
  await writeFile(good, ',cf,,other\n,a,b,c\nr1,x@1000,y@2000,\nr2,,,z@3000\n');
  await writeFile(bad, ',cf\n,q\nk1,ok\nk2,"unclosed\n');
  await page.getByRole('button', { name: 'Import…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a design or data' });
  await dialog.getByRole('radio', { name: 'cbt CSV file' }).check();
  await dialog.getByLabel('CSV file', { exact: true }).setInputFiles(good);
  await dialog.getByText('orders.csv (').waitFor();
  const table = dialog.getByRole('combobox', { name: 'Table' });
  await table.fill('orders');
  await table.blur();
  await dialog.getByRole('button', { name: 'Import CSV' }).click();
  const result = dialog.locator('.import-result');
  await result.waitFor();
  assert.equal(await result.textContent(), 'Wrote 2 rows and 3 cells into orders (table created).');
  await page.waitForSelector('#table-list .table-name:text-is("orders")');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dialog-import-csv.png') });

  await dialog.getByLabel('CSV file', { exact: true }).setInputFiles(bad);
  await dialog.getByText('broken.csv (').waitFor();
  await dialog.getByRole('button', { name: 'Import CSV' }).click();
  const error = dialog.locator('.import-error');
  await error.waitFor();
  assert.match(await error.textContent(), /^Nothing was written: .*line 4/);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await page.locator('#table-list .table-name', { hasText: 'orders' }).click();
  await page.waitForFunction(() => document.querySelector('#rows-position')?.textContent.endsWith('of 2 rows'));
  assert.deepEqual(problems, []);
  await context.close();
});

test('the dialogs read well in the dark theme', async () => {
  const { page, problems, context } = await openApp({ colorScheme: 'dark' });
  await page.getByRole('button', { name: 'Import…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a design or data' });
  await dialog.getByRole('textbox', { name: 'DynamoDB model' }).fill(CATALOG.replace('"TableData"', '"TableData" x'));
  await dialog.locator('#import-error').waitFor();
  // Go to scrolls the text to the error; the highlight moves with it.
  await dialog.getByRole('button', { name: /^Go to line 30/ }).click();
  const area = await dialog.getByRole('textbox', { name: 'DynamoDB model' }).boundingBox();
  const mark = await dialog.locator('.code-line.error-line').boundingBox();
  assert.ok(mark.y >= area.y && mark.y + mark.height <= area.y + area.height, 'the marked line is in view');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'dialog-import-dark.png') });
  assert.deepEqual(problems, []);
  await context.close();
});
