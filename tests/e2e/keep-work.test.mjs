// End-to-end tests of the first minutes: nothing the user made is lost by
// starting a lesson, a reload, a snapshot import or someone else's link;
// a first visit shows where to start; a running lesson keeps its task and
// Check on screen beside the editors. Screenshots: first-load*.png and
// lesson-in-progress*.png in tests/e2e/screenshots/. Run
// `trunk build --release` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import path from 'node:path';
import { SCREENSHOTS, openApp as open, region, runCommand, useApp, waitForLoad } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);

/** Waits until the Schema panel lists exactly these tables. */
async function waitForTables(page, names) {
  await page.waitForFunction(
    (want) => {
      const got = [...document.querySelectorAll('#table-list .table-name')].map((e) => e.textContent);
      return JSON.stringify(got) === JSON.stringify(want);
    },
    names,
    { timeout: 15_000 },
  );
}

/** Autosave writes once the page has been still for a moment. */
const settle = (page) => page.waitForTimeout(1000);

/** Whether the element's box lies inside the viewport. */
async function onScreen(page, locator) {
  const box = await locator.boundingBox();
  const view = page.viewportSize();
  return box && box.y >= 0 && box.x >= 0 && box.y + box.height <= view.height && box.x + box.width <= view.width;
}

async function makeMyTable(page) {
  for (const line of ['createtable mine families=cf', 'set mine r1 cf:q=typed-by-hand']) {
    const entry = await runCommand(page, line);
    assert.doesNotMatch(await entry.getAttribute('class'), /error/);
  }
  await waitForTables(page, ['mine', 'mobile-time-series']);
}

test('a first visit shows where to start, and the lesson keeps the user’s tables aside', async () => {
  const { page, problems, context } = await openApp();
  const start = page.getByRole('region', { name: 'New to Bigtable? Start here' });
  await start.waitFor();
  await page.screenshot({ path: path.join(SCREENSHOTS, 'first-load.png') });
  await makeMyTable(page);

  await start.getByRole('button', { name: 'Start lesson 1' }).click();
  const dock = region(page, 'Lesson in progress');
  await dock.waitFor();
  await waitForTables(page, ['mobile']);
  assert.equal(await start.count(), 0, 'the welcome is gone once a lesson started');

  // The task, Check and the verdict are on screen without scrolling.
  const check = dock.getByRole('button', { name: 'Check', exact: true });
  assert.ok(await onScreen(page, check), 'Check is on screen');
  await check.click();
  const verdict = dock.locator('.verdict');
  await verdict.waitFor();
  assert.ok(await onScreen(page, verdict.locator('.verdict-message')), 'the verdict is on screen');
  assert.ok(await onScreen(page, dock.locator('.dock-text p').first()), 'the task is on screen');
  assert.ok(await onScreen(page, region(page, 'Console').getByRole('textbox', { name: 'Command' })));
  await page.screenshot({ path: path.join(SCREENSHOTS, 'lesson-in-progress.png') });

  // A reload mid-lesson: the lesson goes on, on its own tables.
  await settle(page);
  await page.reload();
  await page.waitForSelector('#rows .row');
  await dock.waitFor();
  await waitForTables(page, ['mobile']);

  // Leaving brings the user's tables back, rows and all; a reload keeps them.
  await dock.getByRole('button', { name: 'Leave lesson' }).click();
  await waitForTables(page, ['mine', 'mobile-time-series']);
  assert.equal(await dock.count(), 0);
  const read = await runCommand(page, 'read mine');
  assert.match(await read.textContent(), /typed-by-hand/);
  await settle(page);
  await page.reload();
  await page.waitForSelector('#rows .row');
  await waitForTables(page, ['mine', 'mobile-time-series']);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the check’s result is on screen at 1280x720 and on a phone', async () => {
  for (const viewport of [
    { width: 1280, height: 720 },
    { width: 390, height: 844 },
  ]) {
    const { page, problems, context } = await openApp({ viewport, colorScheme: 'dark' });
    await page.getByRole('button', { name: 'Start lesson 1' }).click();
    const dock = region(page, 'Lesson in progress');
    await dock.scrollIntoViewIfNeeded();
    if (viewport.width === 1280) {
      // On a laptop the task reads whole without scrolling, in a column
      // wide enough for it, and the Schema panel below keeps a usable share.
      const room = await page.evaluate(() => {
        const box = (s) => document.querySelector(s).getBoundingClientRect();
        const text = box('.dock-text');
        const task = box('.dock-text p');
        return { width: box('.lesson-dock').width, taskFits: task.bottom <= text.bottom + 1, schema: box('#left-pane-schema').height };
      });
      assert.ok(room.width >= 330, `the dock is ${room.width}px wide`);
      assert.ok(room.taskFits, 'the task paragraph is on screen whole');
      assert.ok(room.schema >= 120, `the Schema panel keeps ${room.schema}px`);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.screenshot({ path: path.join(SCREENSHOTS, 'lesson-in-progress-1280-light.png') });
      await page.emulateMedia({ colorScheme: 'dark' });
    }
    await dock.getByRole('button', { name: 'Check', exact: true }).click();
    const message = dock.locator('.verdict-message');
    await message.waitFor();
    assert.ok(await onScreen(page, message), `the verdict is on screen at ${viewport.width}x${viewport.height}`);
    assert.ok(await onScreen(page, dock.getByRole('button', { name: 'Check', exact: true })));
    await page.screenshot({ path: path.join(SCREENSHOTS, `lesson-in-progress-${viewport.width}-dark.png`) });
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('a snapshot import asks first and can be undone', async () => {
  const { page, problems, context } = await openApp();
  await page.getByRole('button', { name: 'Not now' }).click();
  // A snapshot of the sample playground.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export snapshot' }).click(),
  ]);
  const file = path.join(env.downloads, 'sample.tabletop');
  await download.saveAs(file);
  await makeMyTable(page);

  await page.getByLabel('Snapshot file to import').setInputFiles({
    name: 'sample.tabletop',
    mimeType: 'application/octet-stream',
    buffer: await readFile(file),
  });
  const dialog = page.getByRole('dialog', { name: 'Replace the tables with this snapshot?' });
  await dialog.waitFor();
  assert.match(await dialog.textContent(), /sample\.tabletop .* 1 table\) replaces the playground's 2 tables/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await waitForTables(page, ['mine', 'mobile-time-series']);

  await page.getByLabel('Snapshot file to import').setInputFiles({
    name: 'sample.tabletop',
    mimeType: 'application/octet-stream',
    buffer: await readFile(file),
  });
  await dialog.getByRole('button', { name: 'Replace' }).click();
  await waitForTables(page, ['mobile-time-series']);
  const kept = region(page, 'Earlier work kept aside');
  assert.match(await kept.textContent(), /2 tables .* the snapshot sample\.tabletop/);
  // The kept work survives a reload.
  await settle(page);
  await page.reload();
  await page.waitForSelector('#rows .row');
  await kept.getByRole('button', { name: /Undo/ }).click();
  await waitForTables(page, ['mine', 'mobile-time-series']);
  assert.match(await (await runCommand(page, 'read mine')).textContent(), /typed-by-hand/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('someone else’s link opens over saved work without losing it; a damaged link says so', async () => {
  const ctx = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  // Someone else's link: their own playground with a table of theirs.
  const other = await openApp();
  await runCommand(other.page, 'createtable theirs families=cf');
  await waitForTables(other.page, ['mobile-time-series', 'theirs']);
  await settle(other.page);
  const link = other.page.url();
  assert.match(link, /#v1\./);
  await other.context.close();

  const mine = await openApp({ context: ctx });
  await makeMyTable(mine.page);
  await settle(mine.page);

  const opened = await openApp({ context: ctx, url: link });
  await waitForTables(opened.page, ['mobile-time-series', 'theirs']);
  const kept = region(opened.page, 'Earlier work kept aside');
  assert.match(await kept.textContent(), /2 tables .* a shared link/);
  await kept.getByRole('button', { name: /Undo/ }).click();
  await waitForTables(opened.page, ['mine', 'mobile-time-series']);
  assert.deepEqual(opened.problems, []);

  // A damaged link: a visible message, and the saved work is shown.
  await settle(opened.page);
  const damaged = await openApp({ context: ctx, url: `${env.server.url}#v1.not-a-state` });
  const status = damaged.page.getByRole('status').filter({ hasText: 'could not be read' });
  await status.first().waitFor();
  assert.match(await status.first().textContent(), /saved work is shown instead/);
  await waitForTables(damaged.page, ['mine', 'mobile-time-series']);
  assert.deepEqual(mine.problems, []);
  await ctx.close();
});

/** The state an autosave text holds (format v1: deflated JSON, base64url). */
function decodeSaved(text) {
  assert.match(text, /^v1\./);
  const base64 = text.slice(3).replace(/-/g, '+').replace(/_/g, '/');
  return JSON.parse(inflateRawSync(Buffer.from(base64, 'base64')).toString('utf8'));
}

test('autosave waits while rows load, keeps what was made before, and saves the load once it ends', async () => {
  const { page, problems, context } = await openApp();
  await makeMyTable(page);
  await settle(page);
  const saved = () => page.evaluate(() => localStorage.getItem('tabletop.autosave'));
  const beforeLoad = await saved();
  const kept = decodeSaved(beforeLoad);
  assert.ok(kept.snapshot, 'the rows typed by hand are in the autosave');
  // Every autosave write from now on, and whether a load was on screen.
  await page.evaluate(() => {
    window.__autosaveWrites = [];
    const setItem = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key, value) {
      if (this === window.localStorage && key === 'tabletop.autosave') {
        window.__autosaveWrites.push({ at: performance.now(), loading: !!document.querySelector('[role=progressbar]') });
      }
      return setItem.call(this, key, value);
    };
  });
  // A slower page, so that the load outlasts the longest wait between two
  // saves of a busy page (3 s) on any machine.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const rows = region(page, 'Rows');
  await rows.getByText('Load sample data').click();
  await rows.getByRole('textbox', { name: 'Table to load into' }).fill('big');
  await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption('1000000');
  await rows.getByRole('button', { name: 'Generate' }).click();
  await page.waitForSelector('[aria-label="Loading sample data"]');
  const started = await page.evaluate(() => performance.now());
  // Mid-load (as a crash would find it), the autosave is the one made
  // before the load, whole.
  await page.waitForFunction((t) => performance.now() - t > 4000, started, { polling: 200, timeout: 120_000 });
  assert.ok(await page.locator('[role=progressbar]').count(), 'the load is still running 4 s in');
  assert.equal(await saved(), beforeLoad);
  await waitForLoad(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  // Saved promptly once the load is over.
  await page.waitForFunction(() => window.__autosaveWrites.length > 0, null, { timeout: 5_000 });
  const writes = await page.evaluate(() => window.__autosaveWrites);
  assert.deepEqual(
    writes.filter((w) => w.loading),
    [],
    'nothing was written while the load ran',
  );
  const after = decodeSaved(await saved());
  assert.ok(after.loads.some((l) => l.table === 'big'), JSON.stringify(after.loads));
  // A reload brings both tables back.
  await page.reload();
  await page.waitForSelector('#rows .row');
  await waitForTables(page, ['big', 'mine', 'mobile-time-series']);
  assert.deepEqual(problems, []);
  await context.close();
});
