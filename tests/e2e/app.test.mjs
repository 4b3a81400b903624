// End-to-end tests of the release build: serves dist/ under /tabletop/ (not
// the site root) and drives Debian's Chromium with playwright-core, the way
// a person would use the playground: panels, console, schema editing, the
// data generator and the virtual rows panel, share links, snapshots, embeds.
// Screenshots of the app and of each panel go to tests/e2e/screenshots/.
// Run `trunk build --release` first; scripts/test.sh does both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SCREENSHOTS, SUB_PATH, openApp as open, region, rowKeys, runCommand, useApp, waitForLoad } from './harness.mjs';

const PANELS = ['Schema', 'Rows', 'Tablets', 'Key Visualizer', 'Console'];
const DEMO_KEYS = [
  'phone#4c410523#20200501',
  'phone#4c410523#20200502',
  'phone#5c10102#20200501',
  'tablet#a0b81f74#20200501',
];

const env = useApp();
const openApp = (options) => open(env, options);

test('the page shows every panel, the sample rows in byte order, and no errors', async () => {
  const { page, problems, context } = await openApp();
  assert.equal(await page.textContent('h1'), 'Tabletop');
  assert.match(await page.title(), /^Tabletop/);
  for (const name of PANELS) {
    assert.equal(await region(page, name).count(), 1, `one region named ${name}`);
  }
  assert.match(
    await page.textContent('#core-status'),
    /Core running in your browser \(WebAssembly\) · projects\/tabletop\/instances\/playground · 1 table/,
  );
  // Written out of order; the core returns them sorted by key bytes.
  assert.deepEqual(await rowKeys(page), DEMO_KEYS);
  const firstRow = page.locator('#rows .row').first();
  const cells = await firstRow.locator('.cell').allTextContents();
  const time = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} UTC';
  assert.equal(cells.length, 4);
  assert.match(cells[0], new RegExp(`^stats_detail:connected_cell${time}1$`));
  assert.match(cells[2], new RegExp(`^stats_summary:os_build${time}PQ2A\\.190405\\.004$`));
  // The older build outlives its GC rule until a compaction runs.
  assert.match(cells[3], new RegExp(`^↳ older version${time}PQ2A\\.190405\\.003awaiting GC$`));
  // Key segments are tinted by position.
  const tints = await firstRow.locator('.key span').evaluateAll((els) => els.map((e) => e.className));
  assert.deepEqual(tints, ['seg-0', 'sep', 'seg-1', 'sep', 'seg-2']);
  assert.match(await page.textContent('#rows-position'), /^Rows 1–4 of 4 rows$/);
  assert.match(await page.textContent('#read-stats'), /^This view read 4 rows and 13 cells in tablet #0$/);
  assert.equal(await page.$('#fatal-error'), null, 'no crash alert on a normal load');

  await page.screenshot({ path: path.join(SCREENSHOTS, 'app.png') });
  const shots = { Schema: 'schema', Rows: 'rows', Tablets: 'tablets', 'Key Visualizer': 'keyviz', Console: 'console' };
  for (const [name, file] of Object.entries(shots)) {
    await region(page, name).screenshot({ path: path.join(SCREENSHOTS, `panel-${file}.png`) });
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('every request stays under the sub-path and succeeds', async () => {
  const outside = env.server.requests.filter((r) => !r.path.startsWith(SUB_PATH));
  assert.deepEqual(outside, [], 'no absolute asset URLs');
  const failed = env.server.requests.filter((r) => r.status !== 200);
  assert.deepEqual(failed, []);
  const loaded = env.server.requests.map((r) => path.extname(r.path));
  for (const ext of ['.js', '.wasm', '.css']) assert.ok(loaded.includes(ext), `a ${ext} file was loaded: ${loaded}`);
});

test('the dark theme follows the system setting', async () => {
  const background = async (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await openApp({ colorScheme: 'light' });
  const dark = await openApp({ colorScheme: 'dark' });
  assert.equal(await background(light.page), 'rgb(246, 247, 249)');
  assert.equal(await background(dark.page), 'rgb(20, 23, 28)');
  await dark.page.screenshot({ path: path.join(SCREENSHOTS, 'app-dark.png') });
  assert.deepEqual([...light.problems, ...dark.problems], []);
  await light.context.close();
  await dark.context.close();
});

test('the console runs cbt and JSON like the CLI, reports reads, and keeps a history', async () => {
  const { page, problems, context } = await openApp();
  const ls = await runCommand(page, 'ls');
  assert.equal(await ls.locator('.entry-output').textContent(), 'mobile-time-series\n');

  // Ctrl+Enter runs too; reads report rows and cells seen against returned.
  const input = page.getByRole('textbox', { name: 'Command' });
  await input.fill('read mobile-time-series prefix=phone#4c count=1');
  await input.press('Control+Enter');
  const read = page.locator('.transcript .entry').last();
  await read.locator('.read-report').waitFor();
  const output = await read.locator('.entry-output').textContent();
  assert.match(output, /^-{40}\nphone#4c410523#20200501\n  stats_detail:connected_cell/);
  assert.ok(!output.includes('Summary Stats'), 'stats gathered behind the scenes stay out of the output');
  assert.equal(
    await read.locator('.read-report').textContent(),
    'rows: 1 returned / 1 seen · cells: 4 returned / 4 seen · tablets visited: 1 of 1 (#0)',
  );

  // History: arrow up brings back the last command, again the one before.
  await input.press('ArrowUp');
  assert.equal(await input.inputValue(), 'read mobile-time-series prefix=phone#4c count=1');
  await input.press('ArrowUp');
  assert.equal(await input.inputValue(), 'ls');
  await input.press('ArrowDown');
  await input.press('ArrowDown');
  assert.equal(await input.inputValue(), '');

  const bad = await runCommand(page, 'read nope');
  assert.ok(await bad.evaluate((e) => e.classList.contains('err')));
  assert.match(await bad.locator('.entry-output').textContent(), /NotFound/);

  const json = await runCommand(page, '{"method": "listTables", "request": {"parent": "projects/p/instances/i"}}', {
    tab: 'json',
  });
  assert.equal(
    await json.locator('.entry-output').textContent(),
    '{"response":{"tables":[{"name":"projects/p/instances/i/tables/mobile-time-series"}]}}',
  );

  // The filter builder makes a filter and puts it into the console.
  await page.getByRole('button', { name: 'Filter builder' }).click();
  const builder = page.getByRole('complementary', { name: 'Filter builder' });
  await builder.getByRole('button', { name: 'Insert into JSON tab' }).click();
  const inserted = await input.inputValue();
  assert.match(inserted, /"method":"readRows"/);
  assert.match(inserted, /"familyNameRegexFilter":"stats_summary"/);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('.transcript .entry:last-child .read-report'));
  const report = await page.locator('.transcript .entry').last().locator('.read-report').textContent();
  assert.match(report, /^rows: 4 returned \/ 4 seen · cells: 4 returned \/ 13 seen/);
  await builder.getByRole('button', { name: 'Insert into cbt tab' }).click();
  assert.equal(await input.inputValue(), 'read mobile-time-series cells-per-column=1 columns=stats_summary: count=10');
  await region(page, 'Console').screenshot({ path: path.join(SCREENSHOTS, 'panel-console-used.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('tables and families are made in the Schema panel, checked as you type', async () => {
  const { page, problems, context } = await openApp();
  const schema = region(page, 'Schema');
  await schema.getByRole('button', { name: 'New table' }).click();
  const id = schema.getByRole('textbox', { name: 'Table id' });
  await id.fill('-bad');
  assert.equal(
    await schema.locator('#new-table-id-error').textContent(),
    'table id "-bad" must match [_a-zA-Z0-9][-_.a-zA-Z0-9]*',
  );
  assert.ok(await schema.getByRole('button', { name: 'Create table' }).isDisabled());
  await id.fill('mobile-time-series');
  assert.equal(await schema.locator('#new-table-id-error').textContent(), 'table "mobile-time-series" already exists');
  await id.fill('events');
  await schema.getByRole('textbox', { name: 'Initial splits' }).fill('m');
  await schema.getByRole('button', { name: 'Create table' }).click();
  await page.waitForSelector('#table-list .table-name:text-is("events")');
  assert.equal(await schema.locator('.table-item.selected .table-name').textContent(), 'events');

  const name = schema.getByRole('textbox', { name: 'New family name' });
  await name.fill('bad name');
  assert.equal(
    await schema.locator('#add-family-error').textContent(),
    'column family name "bad name" must match [-_.a-zA-Z0-9]+',
  );
  await name.fill('clicks');
  await schema.getByRole('spinbutton', { name: 'Versions to keep' }).fill('0');
  assert.equal(
    await schema.locator('#add-family-error').textContent(),
    'GC rule max_num_versions must be at least 1, got 0',
  );
  await schema.getByRole('combobox', { name: 'GC rule', exact: true }).last().selectOption('union');
  await schema.getByRole('combobox', { name: 'New family value type' }).selectOption('sum');
  await schema.getByRole('button', { name: 'Add family' }).click();
  await page.waitForSelector('.family-name:text-is("clicks")');
  assert.equal(
    await schema.locator('.family').first().textContent(),
    'clickssum (int64)GC: (versions() > 1) || (age() > 168h)edit GCdrop',
  );
  // The panel's requests ran through the JSON protocol and show in the console.
  const log = await page.locator('.transcript .entry .command').allTextContents();
  assert.ok(log.some((l) => l.includes('"method":"createTable"') && l.includes('"tableId":"events"')), log.join('\n'));
  assert.ok(log.some((l) => l.includes('"method":"modifyColumnFamilies"')), log.join('\n'));
  // The Tablets bar shows the initial split.
  assert.equal(await page.locator('.tablet-bar .tablet').count(), 2);
  await region(page, 'Schema').screenshot({ path: path.join(SCREENSHOTS, 'panel-schema-edited.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('generated data loads in slices and the rows panel scrolls through it', async () => {
  const { page, problems, context } = await openApp();
  const rows = region(page, 'Rows');
  await rows.getByText('Load sample data').click();
  await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption('100000');
  await rows.getByRole('button', { name: 'Generate' }).click();
  await page.waitForSelector('[role=progressbar]');
  await waitForLoad(page);
  assert.match(await page.textContent('#rows-position'), /^Rows 1–\d+ of 100,004 rows$/);
  // Only the visible rows are in the page.
  const drawn = await page.locator('#rows .row').count();
  assert.ok(drawn > 3 && drawn < 40, `${drawn} rows drawn`);

  // Scroll to the middle: the rows there, still in byte order.
  const viewport = page.locator('.rows-viewport');
  await viewport.evaluate((el) => { el.scrollTop = el.scrollHeight / 2; });
  await page.waitForFunction(() => /^Rows 5\d,\d{3}–/.test(document.querySelector('#rows-position').textContent));
  const middle = await rowKeys(page);
  assert.deepEqual([...middle].sort(), middle);
  // The keyboard scrolls too: End goes to the last rows.
  await viewport.focus();
  await page.keyboard.press('End');
  await page.waitForFunction(() => /–100,004 of 100,004 rows$/.test(document.querySelector('#rows-position').textContent));
  const last = await rowKeys(page);
  assert.ok(last.at(-1).startsWith('tablet#'), last.at(-1));

  // Go to a key.
  await rows.getByRole('searchbox', { name: 'Go to row key' }).fill('phone#4c410523#20200502');
  await rows.getByRole('button', { name: 'Go', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('#rows .row .key')?.textContent === 'phone#4c410523#20200502');

  // The table split into tablets; the bar shows them, the samples list them.
  const tablets = await page.locator('.tablet-bar .tablet').count();
  assert.ok(tablets > 10, `${tablets} tablets`);
  assert.ok((await page.locator('.sample-table tbody tr').count()) > 10);
  await region(page, 'Rows').screenshot({ path: path.join(SCREENSHOTS, 'panel-rows-100k.png') });
  await region(page, 'Tablets').screenshot({ path: path.join(SCREENSHOTS, 'panel-tablets-100k.png') });

  assert.deepEqual(problems, []);
  await context.close();
});

test('compact now collects the versions GC allows, and they fade out', async () => {
  const { page, problems, context } = await openApp();
  assert.equal(await page.locator('#rows .cell.gc-eligible').count(), 1, 'the demo has one version awaiting GC');
  await region(page, 'Rows').getByRole('button', { name: 'Compact now' }).click();
  await page.waitForSelector('#rows .cell.collecting');
  await region(page, 'Rows').screenshot({ path: path.join(SCREENSHOTS, 'panel-rows-collecting.png') });
  await page.waitForSelector('#rows .cell.collecting', { state: 'detached', timeout: 5000 });
  assert.equal(await page.locator('#rows .cell.gc-eligible').count(), 0);
  assert.equal(await page.locator('#rows .row').first().locator('.cell').count(), 3);
  const compact = page.locator('.transcript .entry').last();
  assert.equal(
    await compact.locator('.entry-output').textContent(),
    'mobile-time-series: compacted 1 tablet; GC collected 1 cell, 12 cells kept\n',
  );
  assert.equal(await compact.locator('.source').textContent(), 'from the Rows panel');
  assert.deepEqual(problems, []);
  await context.close();
});

test('row keys and values are text, never markup', async () => {
  const { page, problems, context } = await openApp();
  await runCommand(
    page,
    "set mobile-time-series '<img src=x onerror=alert(1)>' stats_summary:os_build='<script>alert(2)</script>'",
  );
  await page.waitForFunction(() =>
    [...document.querySelectorAll('#rows .row .key')].some((e) => e.textContent.startsWith('<img')));
  assert.equal(await page.locator('#rows img, #rows script, .transcript img').count(), 0);
  const keys = await rowKeys(page);
  assert.equal(keys[0], '<img src=x onerror=alert(1)>');
  const values = await page.locator('#rows .row').first().locator('.value').allTextContents();
  assert.deepEqual(values, ['<script>alert(2)</script>']);
  // Binary bytes are shown escaped.
  await runCommand(page, "set mobile-time-series $'bin\\x01\\xff' stats_summary:os_build=$'\\x02'");
  await page.waitForFunction(() =>
    [...document.querySelectorAll('#rows .row .key')].some((e) => e.textContent === 'bin\\x01\\xff'));
  const binary = page.locator('#rows .row', { hasText: 'bin\\x01' });
  assert.deepEqual(await binary.locator('.value').allTextContents(), ['\\x02']);
  await page.waitForTimeout(200);
  assert.deepEqual(problems, [], 'no alert ran');
  await context.close();
});

test('a share link reopens the same schema, data and layout', async () => {
  const first = await openApp();
  const page = first.page;
  await runCommand(page, 'createtable links families=cf:maxversions=2');
  await region(page, 'Rows').getByText('Load sample data').click();
  await region(page, 'Rows').getByRole('textbox', { name: 'Table to load into' }).fill('gen');
  await region(page, 'Rows').getByRole('combobox', { name: 'Rows to generate' }).selectOption('10000');
  await region(page, 'Rows').getByRole('button', { name: 'Generate' }).click();
  await waitForLoad(page);
  // Resize the Schema panel from the keyboard.
  const handle = page.getByRole('separator', { name: 'Resize the Schema panel' });
  await handle.focus();
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await handle.getAttribute('aria-valuenow'), '360');
  await page.locator('#table-list .table-name', { hasText: 'links' }).click();

  await page.getByRole('button', { name: 'Share link' }).click();
  const link = await page.locator('#share-link').inputValue();
  assert.ok(link.startsWith(`${env.server.url}#v1.`), link);
  const tablesBefore = await page.$$eval('#table-list .table-name', (els) => els.map((e) => e.textContent));

  // A different browser profile (no autosave) opens the link.
  const second = await openApp({ url: link, waitFor: '#table-list' });
  await waitForLoad(second.page);
  const tablesAfter = await second.page.$$eval('#table-list .table-name', (els) => els.map((e) => e.textContent));
  assert.deepEqual(tablesAfter, tablesBefore);
  assert.equal(await second.page.locator('.table-item.selected .table-name').textContent(), 'links');
  assert.equal(
    await second.page.getByRole('separator', { name: 'Resize the Schema panel' }).getAttribute('aria-valuenow'),
    '360',
  );
  assert.match(await second.page.locator('.family').first().textContent(), /^cfbytesGC: versions\(\) > 2/);
  // Rows typed by hand are not in a link once the tables are big.
  assert.equal(await second.page.locator('#table-list .table-meta').nth(2).textContent(), '2 families · 1 tablet · 0 B');
  // The generated rows are back: same count, same keys.
  await second.page.locator('#table-list .table-name', { hasText: 'gen' }).click();
  await page.locator('#table-list .table-name', { hasText: 'gen' }).click();
  await second.page.waitForFunction(() => document.querySelector('#rows-position').textContent.includes('10,000 rows'));
  assert.match(await second.page.textContent('#rows-position'), /of 10,000 rows$/);
  assert.deepEqual((await rowKeys(second.page)).slice(0, 3), (await rowKeys(page)).slice(0, 3));

  // Pasting the link into an open page's address bar loads it in place.
  await runCommand(second.page, 'createtable later');
  await second.page.waitForSelector('#table-list .table-name:text-is("later")');
  // (after the page has written its own state into the address bar)
  await second.page.waitForFunction((old) => window.location.hash !== old, link.slice(link.indexOf('#')));
  await second.page.evaluate((hash) => { window.location.hash = hash; }, link.slice(link.indexOf('#')));
  await second.page.waitForSelector('#table-list .table-name:text-is("later")', { state: 'detached' });
  await waitForLoad(second.page);
  assert.deepEqual(
    await second.page.$$eval('#table-list .table-name', (els) => els.map((e) => e.textContent)),
    tablesBefore,
  );
  assert.deepEqual([...first.problems, ...second.problems], []);
  await first.context.close();
  await second.context.close();
});

test('autosave brings the state back after a reload', async () => {
  const { page, problems, context } = await openApp();
  await runCommand(page, 'createtable saved');
  await page.waitForTimeout(900);
  // Reload without the fragment: localStorage has it.
  await page.goto(env.server.url);
  await page.waitForSelector('#table-list .table-name:text-is("saved")');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a snapshot exports to a file and imports into a fresh playground', async () => {
  const first = await openApp();
  await runCommand(first.page, 'createtable snap families=cf');
  await runCommand(first.page, "set snap 'row#1' cf:q=hello@1588291200000000");
  const [download] = await Promise.all([
    first.page.waitForEvent('download'),
    first.page.getByRole('button', { name: 'Export snapshot' }).click(),
  ]);
  assert.match(download.suggestedFilename(), /^tabletop-\d{8}-\d{6}\.snapshot$/);
  const file = path.join(env.downloads, download.suggestedFilename());
  await download.saveAs(file);
  const bytes = await readFile(file);
  assert.equal(bytes.subarray(0, 8).toString('latin1'), 'TBLTOPSN', 'the CLI snapshot format');

  const second = await openApp();
  await second.page.locator('input[type=file]').setInputFiles(file);
  // The sample table is there: the import asks before it replaces it.
  await second.page.getByRole('dialog', { name: 'Replace the tables with this snapshot?' }).getByRole('button', { name: 'Replace' }).click();
  await second.page.waitForSelector('#table-list .table-name:text-is("snap")');
  await second.page.locator('#table-list .table-name', { hasText: 'snap' }).click();
  await second.page.waitForFunction(() => document.querySelector('#rows .row .key')?.textContent === 'row#1');
  assert.match(await second.page.locator('.notice').textContent(), /Imported tabletop-\d{8}-\d{6}\.snapshot \([\d.]+ (B|KiB|MiB)\): 2 tables\. Your earlier table can come back with Undo\./);
  const cell = await second.page.locator('#rows .cell').first().textContent();
  assert.equal(cell, 'cf:q2020-05-01 00:00:00.000 UTChello');

  // A file that is no snapshot is refused with the core's reason.
  const junk = path.join(env.downloads, 'junk.snapshot');
  await (await import('node:fs/promises')).writeFile(junk, 'not a snapshot');
  await second.page.locator('input[type=file]').setInputFiles(junk);
  await second.page.waitForSelector('.notice-error');
  assert.match(await second.page.locator('.notice-error').textContent(), /not a snapshot Tabletop can read/);
  assert.equal(await second.page.locator('#table-list .table-name').count(), 2, 'nothing replaced');
  assert.deepEqual([...first.problems, ...second.problems], []);
  await first.context.close();
  await second.context.close();
});

test('embed mode shows only the panels asked for', async () => {
  const first = await openApp();
  await runCommand(first.page, "set mobile-time-series 'embedded#1' stats_summary:os_build=E");
  await first.page.getByRole('button', { name: 'Share link' }).click();
  const link = await first.page.locator('#share-link').inputValue();
  const fragment = link.slice(link.indexOf('#'));
  const embed = await openApp({ url: `${env.server.url}?embed=1&panels=rows,console${fragment}` });
  for (const name of PANELS) {
    const expected = name === 'Rows' || name === 'Console' ? 1 : 0;
    assert.equal(await region(embed.page, name).count(), expected, name);
  }
  assert.deepEqual((await rowKeys(embed.page)).slice(0, 1), ['embedded#1']);
  assert.equal(await embed.page.getByRole('button', { name: 'Share link' }).count(), 0, 'a slim header');
  assert.ok(await embed.page.getByRole('link', { name: /Open the full playground/ }).isVisible());
  await embed.page.screenshot({ path: path.join(SCREENSHOTS, 'embed.png') });
  assert.deepEqual([...first.problems, ...embed.problems], []);
  await first.context.close();
  await embed.context.close();
});

test('panels resize by dragging and from the keyboard', async () => {
  const { page, problems, context } = await openApp();
  const handle = page.getByRole('separator', { name: 'Resize the Console panel' });
  const before = Number(await handle.getAttribute('aria-valuenow'));
  const box = await handle.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 - 100, { steps: 5 });
  await page.mouse.up();
  const dragged = Number(await handle.getAttribute('aria-valuenow'));
  assert.equal(dragged, before + 100);
  const consoleBox = await region(page, 'Console').boundingBox();
  assert.equal(Math.round(consoleBox.height), dragged);
  await handle.focus();
  await page.keyboard.press('Home');
  assert.equal(await handle.getAttribute('aria-valuenow'), '120');
  await page.getByRole('button', { name: 'Reset layout' }).click();
  assert.equal(await handle.getAttribute('aria-valuenow'), String(before));
  assert.deepEqual(problems, []);
  await context.close();
});

test('on a phone-sized screen the panels stack and nothing overflows sideways', async () => {
  const { page, problems, context } = await openApp({ viewport: { width: 390, height: 844 } });
  // Every box from one settled frame (panels fill in after the first rows).
  await page.waitForSelector('.tablet-bar .tablet');
  const boxes = await page.evaluate(
    () =>
      new Promise((resolve) =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() =>
            resolve(
              Object.fromEntries(
                [...document.querySelectorAll('section[aria-label]')].map((s) => {
                  const r = s.getBoundingClientRect();
                  return [s.getAttribute('aria-label'), { x: r.x, y: r.y + window.scrollY, width: r.width, height: r.height }];
                }),
              ),
            ),
          ),
        ),
      ),
  );
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
  let lastBottom = 0;
  for (const name of ['Schema', 'Tablets', 'Rows', 'Key Visualizer', 'Console']) {
    const box = boxes[name];
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `${name} within the width: ${JSON.stringify(box)}`);
    assert.ok(box.y >= lastBottom - 1, `${name} below the panel before it`);
    assert.ok(box.height >= 150, `${name} is ${box.height} px tall`);
    lastBottom = box.y + box.height;
  }
  await page.screenshot({ path: path.join(SCREENSHOTS, 'app-phone.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a side column capped on a narrow screen answers the first arrow key', async () => {
  // At 1000 px the Key Visualizer's 680 px setting is drawn at a third of
  // the width; one key press shrinks what is drawn, not the setting.
  const { page, problems, context } = await openApp({ viewport: { width: 1000, height: 800 } });
  const kv = region(page, 'Key Visualizer');
  const drawn = (await kv.boundingBox()).width;
  assert.ok(drawn < 400, `capped at ${drawn} px`);
  const handle = page.getByRole('separator', { name: 'Resize the Key Visualizer panel' });
  await handle.focus();
  await page.keyboard.press('ArrowRight');
  const after = (await kv.boundingBox()).width;
  assert.ok(Math.abs(drawn - 16 - after) <= 2, `${drawn} px -> ${after} px after one step`);
  assert.ok(Number(await handle.getAttribute('aria-valuenow')) < 400);
  assert.deepEqual(problems, []);
  await context.close();
});
