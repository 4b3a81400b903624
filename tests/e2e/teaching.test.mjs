// End-to-end tests that what the page teaches stays true, on the release
// build: the importer offers a continuous materialized view for a DynamoDB
// index (its SQL runs in the console's SQL tab and answers the index's
// lookup), the Tablets panel says its split size is scaled down (and the
// simulated one gives the scenario's thresholds), the sequential-writes
// evidence names the direction the map draws, and every byte figure on the
// page is in binary units. Screenshots go to tests/e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, SCREENSHOTS, openApp as open, region, runCommand, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);

/** The product catalog of the migration guide with a GSI by price. */
async function catalogWithIndex() {
  const model = JSON.parse(await readFile(path.join(ROOT, 'core/tests/translate_fixtures/product_catalog.json'), 'utf8'));
  model.DataModel[0].GlobalSecondaryIndexes = [
    {
      IndexName: 'ByPrice',
      KeyAttributes: { PartitionKey: { AttributeName: 'Price', AttributeType: 'N' } },
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['Description'] },
    },
  ];
  return JSON.stringify(model, null, 2);
}

/** How many lines of text an element takes. */
const lines = (locator) =>
  locator.evaluate((e) => Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)));

/** Byte figures in decimal units (`12 kB`, `3.4 MB`, `1 GB`). */
const DECIMAL_BYTES = /\d\s?(kB|KB|MB|GB|TB)\b/;

test('the importer offers a materialized view for a GSI, and its SQL runs in the console', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems, context } = await openApp({ colorScheme });
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import a design or data' });
    await dialog.getByRole('textbox', { name: 'DynamoDB model' }).fill(await catalogWithIndex());
    const preview = dialog.getByRole('region', { name: 'Translation' });
    const index = preview.locator('.index-plan');
    await index.waitFor();
    const text = await index.textContent();
    assert.match(text, /ByPrice on Price \(INCLUDE Description\)/);
    assert.match(text, /First choice: A continuous materialized view keyed by Price/);
    assert.match(text, /asynchronous secondary index/);
    assert.match(text, /Alternative: An index table the application writes itself/);
    assert.doesNotMatch(await preview.textContent(), /no secondary indexes/i);
    const sql = await index.locator('.index-sql').textContent();
    assert.match(sql, /^CREATE MATERIALIZED VIEW ProductCatalog_ByPrice AS\nSELECT /);
    await index.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, `dialog-import-index-${colorScheme}.png`) });
    await index.getByRole('button', { name: 'Copy SQL' }).click();
    await index.getByRole('button', { name: 'Copied' }).waitFor();

    if (colorScheme === 'light') {
      // Apply, then the offered statement in the SQL tab: the view is
      // created and answers a lookup by price with a prefix scan.
      await dialog.getByRole('button', { name: 'Apply', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      const created = await runCommand(page, sql, { tab: 'SQL' });
      assert.match(await created.textContent(), /ProductCatalog_ByPrice/);
      assert.doesNotMatch(await created.textContent(), /error/i);
      const found = await runCommand(page, 'SELECT ProductCatalog_key, Description FROM ProductCatalog_ByPrice WHERE Price = 40', { tab: 'SQL' });
      assert.match(await found.textContent(), /Shoes#sneakers#brandA/);
      assert.match(await found.textContent(), /Light and cushioned/);
      const plan = await runCommand(page, 'EXPLAIN SELECT ProductCatalog_key FROM ProductCatalog_ByPrice WHERE Price = 40', { tab: 'SQL' });
      assert.match(await plan.textContent(), /prefix scan/i);
    }
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('the Tablets panels state their split sizes, the evidence matches the map, and bytes are binary', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems, context } = await openApp({ colorScheme });
    const tablets = region(page, 'Tablets');
    const note = tablets.locator('.split-note');
    assert.equal(await note.textContent(), 'Scaled down: splits past 128 KiB here, hundreds of MiB in Bigtable.');
    assert.match(await note.getAttribute('title'), /Bigtable splits tablets itself, by size and load/);
    assert.equal(await lines(note), 1, 'one line');
    await tablets.screenshot({ path: path.join(SCREENSHOTS, `panel-tablets-split-note-${colorScheme}.png`) });

    // The timestamp-first scenario, run to its end.
    const kv = region(page, 'Key Visualizer');
    await kv.getByLabel('Scenario', { exact: true }).selectOption('mobile_timestamp_first.toml');
    await page.waitForSelector('.sim-bar .tablet');
    await kv.getByLabel('Speed', { exact: true }).selectOption('max');
    await kv.getByRole('button', { name: 'Play' }).click();
    await page.waitForFunction(
      () => document.querySelector('.keyviz-panel [role=progressbar]')?.getAttribute('aria-valuenow') === '100',
      null,
      { timeout: 120_000 },
    );
    assert.equal(await note.textContent(), 'Splits past 512 MiB or 25% of a node.');
    assert.match(await note.getAttribute('title'), /this scenario's settings .*Bigtable decides its own splits, by size and load/);
    assert.equal(await lines(note), 1, 'one line');
    const evidence = await kv.locator('.kv-banner-evidence').allTextContents();
    const sequential = evidence.find((e) => /narrow band moved steadily/.test(e));
    assert.ok(sequential, `a sequential-writes finding: ${evidence}`);
    assert.match(sequential, /towards the end of the key space \(down the map/);
    assert.doesNotMatch(sequential, /upwards/);
    await tablets.screenshot({ path: path.join(SCREENSHOTS, `panel-sim-tablets-split-note-${colorScheme}.png`) });

    // No byte figure in decimal units anywhere, hover texts included.
    const everything = await page.evaluate(() =>
      [document.body.innerText, ...[...document.querySelectorAll('[title]')].map((e) => e.getAttribute('title'))].join('\n'),
    );
    assert.doesNotMatch(everything, DECIMAL_BYTES);
    assert.match(everything, /\d (KiB|MiB|GiB)/, 'some sizes are shown');
    assert.deepEqual(problems, []);
    await context.close();
  }
});
