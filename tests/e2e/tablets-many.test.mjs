// End-to-end test of the Tablets panel with over a thousand tablets (a
// million sample rows), on the release build: the bar draws adjacent
// tablets as blocks (a few hundred elements, not one per tablet), a click
// on it still chooses one tablet and shows its rows, the list under it
// names every tablet on demand and each entry shows its rows too, and axe
// finds nothing. The SampleRowKeys list shows its first 40 keys and the
// rest up to 200 on demand; on a phone it scrolls in a bounded, focusable
// box, on a laptop (where it does not scroll) it is no tab stop.
// Screenshots: tests/e2e/screenshots/panel-tablets-1m*.png,
// panel-tablets-phone-*.png and page-phone-100k-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SCREENSHOTS, audit, openApp as open, region, useApp, waitForLoad } from './harness.mjs';

const env = useApp();

/** The key of the first row on screen. */
const firstKey = (page) => page.locator('#rows .row .key').first().textContent();

test('a million rows: the tablet bar groups neighbours, and clicks and the list still choose one tablet', async () => {
  const { page, problems, context } = await open(env);
  const rows = region(page, 'Rows');
  await rows.getByText('Load sample data').click();
  await rows.getByRole('textbox', { name: 'Table to load into' }).fill('many');
  await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption('1000000');
  await rows.getByRole('button', { name: 'Generate' }).click();
  await page.waitForSelector('[aria-label="Loading sample data"]');
  await waitForLoad(page);

  const tablets = region(page, 'Tablets');
  const meta = await tablets.locator('.panel-meta').textContent();
  const count = Number(meta.match(/^([\d,]+) tablets/)[1].replace(/,/g, ''));
  assert.ok(count > 200, meta);
  const drawn = await tablets.locator('.tablet-bar .tablet').count();
  assert.ok(drawn > 50 && drawn < 450, `${drawn} blocks for ${count} tablets`);

  // The SampleRowKeys list draws its first keys, the rest on demand. On a
  // laptop the panel scrolls, not the list: the list is no tab stop.
  const samples = tablets.getByRole('region', { name: 'SampleRowKeys answer' });
  assert.equal(await samples.locator('tbody tr').count(), 40);
  assert.equal(await samples.getAttribute('tabindex'), null);
  await tablets.getByRole('button', { name: /^Show 160 more \(of [\d,]+\)$/ }).click();
  await samples.locator('tbody tr').nth(199).waitFor();
  assert.equal(await samples.locator('tbody tr').count(), 200);
  assert.match(await tablets.locator('.samples').textContent(), /and [\d,]+ more/);

  // A click in the bar chooses the tablet under it and shows its rows.
  const bar = tablets.locator('.tablet-bar');
  const box = await bar.boundingBox();
  await bar.click({ position: { x: box.width * 0.37, y: box.height / 2 } });
  await tablets.locator('.tablet-chosen-mark').waitFor();
  const detail = tablets.locator('.tablet-detail');
  const start = await detail.locator('.key-inline').first().textContent();
  await page.waitForFunction((key) => (document.querySelector('#rows .row .key')?.textContent ?? '') >= key, start);
  const mark = await tablets.locator('.tablet-chosen-mark').boundingBox();
  assert.ok(Math.abs(mark.x - (box.x + box.width * 0.37)) < 6, 'the outline is where the click was');
  await tablets.screenshot({ path: path.join(SCREENSHOTS, 'panel-tablets-1m.png') });

  // The list names every tablet; choosing one shows its rows.
  await tablets.getByText(/neighbours are drawn together; list them all/).click();
  const items = tablets.locator('.tablet-list li');
  await items.first().waitFor();
  assert.equal(await items.count(), count);
  const pick = items.nth(Math.floor(count / 2)).getByRole('button');
  const [, id, key] = (await pick.textContent()).match(/^#(\d+) from (.+) · /);
  await pick.click();
  await page.waitForFunction((k) => (document.querySelector('#rows .row .key')?.textContent ?? '') >= k, key);
  assert.equal(await detail.locator('.mono').first().textContent(), `#${id}`);
  assert.ok((await firstKey(page)) >= key);
  await tablets.screenshot({ path: path.join(SCREENSHOTS, 'panel-tablets-1m-list.png') });

  assert.deepEqual(await audit(page), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('on a phone the SampleRowKeys list scrolls in a box of its own, which a keyboard reaches', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems, context } = await open(env, { colorScheme, viewport: { width: 390, height: 844 } });
    const rows = region(page, 'Rows');
    await rows.getByText('Load sample data').click();
    await rows.getByRole('textbox', { name: 'Table to load into' }).fill('phone');
    await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption('100000');
    await rows.getByRole('button', { name: 'Generate' }).click();
    await page.waitForSelector('[aria-label="Loading sample data"]');
    await waitForLoad(page);

    const tablets = region(page, 'Tablets');
    const list = tablets.getByRole('region', { name: 'SampleRowKeys answer' });
    assert.ok((await list.locator('tbody tr').count()) > 20, 'the load made a long list');
    const size = await list.evaluate((e) => ({
      box: e.getBoundingClientRect().height,
      content: e.scrollHeight,
      rem: parseFloat(getComputedStyle(document.documentElement).fontSize),
      tabindex: e.getAttribute('tabindex'),
    }));
    assert.ok(size.box <= 16 * size.rem + 1, `the list is ${size.box} px tall`);
    assert.ok(size.content > size.box + 100, 'the rest of the list is a scroll away');
    assert.equal(size.tabindex, '0');
    // The keyboard scrolls it once focused.
    await list.focus();
    await page.keyboard.press('PageDown');
    await page.waitForFunction((e) => e.scrollTop > 0, await list.elementHandle());
    const panel = await tablets.boundingBox();
    assert.ok(panel.height < 900, `the Tablets panel is ${panel.height} px tall`);

    await tablets.screenshot({ path: path.join(SCREENSHOTS, `panel-tablets-phone-${colorScheme}.png`) });
    await page.screenshot({ path: path.join(SCREENSHOTS, `page-phone-100k-${colorScheme}.png`), fullPage: true });
    assert.deepEqual(await audit(page), []);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('the SampleRowKeys list folds back to its first keys for a new load or another table', async () => {
  const { page, problems, context } = await open(env);
  const rows = region(page, 'Rows');
  const tablets = region(page, 'Tablets');
  const samples = tablets.getByRole('region', { name: 'SampleRowKeys answer' });
  /** Waits until the Rows panel shows `table`, and its list is drawn anew. */
  const waitForShown = async (table) => {
    await page.waitForFunction((t) => document.querySelector('section[aria-label=Rows] .title-table')?.textContent.includes(t), table);
    await tablets.locator('.samples:not(:has-text("Updated when the load ends"))').waitFor();
  };
  const load = async (table) => {
    await rows.getByText('Load sample data').click();
    await rows.getByRole('textbox', { name: 'Table to load into' }).fill(table);
    await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption('1000000');
    await rows.getByRole('button', { name: 'Generate' }).click();
    await page.waitForSelector('[aria-label="Loading sample data"]');
    await waitForLoad(page);
    await waitForShown(table);
  };
  const showMore = tablets.getByRole('button', { name: /^Show [\d,]+ more \(of [\d,]+\)$/ });
  await load('first');
  assert.equal(await samples.locator('tbody tr').count(), 40);
  await showMore.click();
  await samples.locator('tbody tr').nth(199).waitFor();

  // A second load, into a new table: its list starts folded.
  await load('second');
  assert.equal(await samples.locator('tbody tr').count(), 40);
  await showMore.waitFor();

  // Unfolded again, then back to the first table: folded too.
  await showMore.click();
  await samples.locator('tbody tr').nth(199).waitFor();
  await region(page, 'Schema').getByRole('button', { name: 'first', exact: true }).click();
  await waitForShown('first');
  await page.waitForFunction(() => document.querySelectorAll('[aria-label="SampleRowKeys answer"] tbody tr').length === 40);
  await showMore.waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});
