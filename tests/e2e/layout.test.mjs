// End-to-end tests of the default layout at laptop and phone sizes: after
// a scenario has run, the Key Visualizer's heatmap is big and fully on
// screen, its findings are folded into one line that opens on demand, and
// its time axis has several labelled ticks that never overlap; on a phone
// the page settles (nothing keeps rewriting attributes while idle) and a
// row's qualifier and value are both readable within the screen's width, as
// is the Rows panel's footer (it wraps there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { SCREENSHOTS, openApp as open, region, useApp } from './harness.mjs';

const env = useApp();
const openApp = (options) => open(env, options);

/** Picks the timestamp-first scenario and plays it to its end at Max speed. */
async function runScenario(page) {
  const kv = region(page, 'Key Visualizer');
  await kv.getByLabel('Scenario', { exact: true }).selectOption('mobile_timestamp_first.toml');
  await page.getByRole('img', { name: 'Key Visualizer heatmap' }).waitFor();
  await kv.getByLabel('Speed', { exact: true }).selectOption('max');
  await kv.getByRole('button', { name: 'Play' }).click();
  await kv.getByRole('button', { name: 'Replay' }).waitFor({ timeout: 120_000 });
  // The findings of the finished run are shown.
  await page.waitForSelector('.kv-findings');
}

/**
 * The heatmap canvas's box, and whether each of its corners (and its
 * centre) is the canvas itself on screen: not outside the window, not
 * scrolled out of its panel, not covered.
 */
const heatmapBox = (page) =>
  page.evaluate(() => {
    const canvas = document.querySelector('canvas.kv-canvas');
    const r = canvas.getBoundingClientRect();
    const inset = 2;
    const points = [
      [r.left + inset, r.top + inset],
      [r.right - inset, r.top + inset],
      [r.left + inset, r.bottom - inset],
      [r.right - inset, r.bottom - inset],
      [(r.left + r.right) / 2, (r.top + r.bottom) / 2],
    ];
    const seen = points.map(([x, y]) => document.elementFromPoint(x, y) === canvas);
    return {
      left: r.left,
      top: r.top,
      right: r.right,
      bottom: r.bottom,
      width: r.width,
      height: r.height,
      seen,
      window: [innerWidth, innerHeight],
    };
  });

/** The time axis's tick labels and their boxes. */
const ticks = (page) =>
  page.$$eval('.kv-axis .kv-tick', (els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { text: e.textContent.trim(), left: r.left, right: r.right };
    }),
  );

function assertTicksReadable(list, where) {
  assert.ok(list.length >= 3, `${where}: at least three ticks, got ${JSON.stringify(list)}`);
  for (const t of list) assert.match(t.text, /^\d+ (s|min|h|d)$/, `${where}: a tick with a unit: ${t.text}`);
  assert.equal(new Set(list.map((t) => t.text)).size, list.length, `${where}: distinct labels`);
  for (let i = 1; i < list.length; i += 1) {
    assert.ok(list[i].left >= list[i - 1].right, `${where}: ${list[i - 1].text} and ${list[i].text} overlap`);
  }
}

test('after a scenario runs at 1440x900 the heatmap is big, fully on screen, with folded findings and a readable time axis', async () => {
  const { page, problems, context } = await openApp({ viewport: { width: 1440, height: 900 } });
  await runScenario(page);
  const box = await heatmapBox(page);
  assert.ok(box.width >= 480 && box.height >= 300, `heatmap ${box.width}x${box.height} CSS px`);
  assert.ok(
    box.left >= 0 && box.top >= 0 && box.right <= box.window[0] && box.bottom <= box.window[1],
    `heatmap inside the window: ${JSON.stringify(box)}`,
  );
  assert.deepEqual(box.seen, [true, true, true, true, true], 'every corner of the heatmap is on screen');

  // The findings are one folded line naming the most severe one.
  const kv = region(page, 'Key Visualizer');
  const toggle = kv.getByRole('button', { name: /Hotspot: sequential writes/ });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  const remedy = kv.locator('.kv-banner-remedy').first();
  assert.equal(await remedy.isVisible(), false, 'the remedy is folded away');
  const folded = await kv.locator('.kv-findings').boundingBox();
  assert.ok(folded.height < 40, `the folded findings take one line (${folded.height} px)`);
  // A click opens the remedy and the evidence, with no second click.
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  assert.equal(await remedy.isVisible(), true);
  assert.match(await remedy.textContent(), /Remedy: Start the row key with a field that has many values/);
  assert.equal(await kv.locator('.kv-banner-evidence').first().isVisible(), true);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'layout-findings-open.png') });
  // The keyboard folds it again.
  await toggle.focus();
  await page.keyboard.press('Enter');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await remedy.isVisible(), false);

  // The time axis: several labelled round ticks with units.
  const list = await ticks(page);
  assertTicksReadable(list, 'default layout');
  assert.deepEqual(
    list.map((t) => t.text).slice(0, 3),
    ['0 min', '10 min', '20 min'],
    'ten-minute ticks over the hour-long run',
  );
  // They still do not overlap in the narrowest Key Visualizer.
  const handle = page.getByRole('separator', { name: 'Resize the Key Visualizer panel' });
  await handle.focus();
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.querySelector('canvas.kv-canvas').getBoundingClientRect().width < 200);
  const narrow = await ticks(page);
  assert.ok(narrow.length >= 2, `narrow: ${JSON.stringify(narrow)}`);
  for (let i = 1; i < narrow.length; i += 1) {
    assert.ok(narrow[i].left >= narrow[i - 1].right, `narrow: ${narrow[i - 1].text} and ${narrow[i].text} overlap`);
  }
  // The key axis keeps its prefix labels.
  assert.ok((await kv.locator('.kv-labels .kv-label').count()) > 5, 'key-prefix labels');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'layout-keyviz-narrow.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('at 1280x720 the heatmap after a run is fully on screen too', async () => {
  const { page, problems, context } = await openApp({ viewport: { width: 1280, height: 720 } });
  await runScenario(page);
  const box = await heatmapBox(page);
  assert.ok(box.width >= 300 && box.height >= 250, `heatmap ${box.width}x${box.height} CSS px`);
  assert.deepEqual(box.seen, [true, true, true, true, true], `every corner on screen: ${JSON.stringify(box)}`);
  assertTicksReadable(await ticks(page), '1280x720');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'layout-1280x720.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

const PHONE = { width: 390, height: 844 };

test('on a phone the page settles: no attribute changes while idle', async () => {
  const { page, problems, context } = await openApp({ viewport: PHONE });
  // Let the first frames (fonts, the first size reports) pass.
  await page.waitForTimeout(1000);
  const changes = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const seen = [];
        const observer = new MutationObserver((records) => {
          for (const r of records) {
            if (r.type === 'attributes') seen.push(`${r.target.className || r.target.tagName} ${r.attributeName}`);
          }
        });
        observer.observe(document.documentElement, { attributes: true, subtree: true });
        setTimeout(() => {
          observer.disconnect();
          resolve(seen);
        }, 2000);
      }),
  );
  assert.deepEqual(changes.slice(0, 5), [], `${changes.length} attribute changes in 2 s of idling`);
  assert.deepEqual(problems, []);
  await context.close();
});

test("on a phone a row's qualifier and value are both fully visible", async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems, context } = await openApp({ viewport: PHONE, colorScheme });
    await page.evaluate(() => document.querySelector('.rows-panel').scrollIntoView());
    const cells = await page.$$eval('#rows .row:first-child .cell:not(.more)', (els) =>
      els.map((cell) => {
        const part = (selector) => {
          const e = cell.querySelector(selector);
          if (!e) return null;
          // The text's own extent (not its box's, which may be narrower
          // than the text when an ellipsis cuts it).
          const range = document.createRange();
          range.selectNodeContents(e);
          const r = range.getBoundingClientRect();
          // Cut off: the text reaches past the element itself or an
          // ancestor that clips (where an ellipsis or the panel's edge
          // would hide it).
          let cut = false;
          for (let a = e; a && a !== document.body; a = a.parentElement) {
            if (getComputedStyle(a).overflowX === 'visible') continue;
            const ar = a.getBoundingClientRect();
            if (r.left < ar.left - 0.01 || r.right > ar.right + 0.01) cut = true;
          }
          return { text: e.textContent, left: r.left, right: r.right, cut };
        };
        return { qualifier: part('.qual'), value: part('.value') };
      }),
    );
    assert.ok(cells.length >= 3, `cells of the first row: ${cells.length}`);
    for (const { qualifier, value } of cells) {
      for (const [name, part] of [['qualifier', qualifier], ['value', value]]) {
        if (!part) continue; // an older version shows no qualifier of its own
        assert.ok(part.text.length > 0, `${name} has text`);
        assert.ok(part.left >= 0 && part.right <= PHONE.width, `${name} ${part.text} inside the screen: ${part.left}-${part.right}`);
        assert.equal(part.cut, false, `${name} ${part.text} is not cut off`);
      }
    }
    assert.ok(cells.some((c) => c.qualifier && c.value), 'a cell with both');
    await page.screenshot({ path: path.join(SCREENSHOTS, `layout-phone-${colorScheme}.png`) });
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test("on a phone the Rows panel's footer shows all it says (it wraps, never cut at the edge)", async () => {
  const { page, problems, context } = await openApp({ viewport: PHONE });
  await page.evaluate(() => document.querySelector('.rows-panel').scrollIntoView());
  await page.waitForFunction(() => document.querySelector('#read-stats')?.textContent.includes('This view read'));
  const foot = await page.evaluate(() => {
    const box = document.querySelector('.rows-foot');
    const b = box.getBoundingClientRect();
    const spans = ['#rows-position', '#read-stats'].map((selector) => {
      const e = box.querySelector(selector);
      const range = document.createRange();
      range.selectNodeContents(e);
      const r = range.getBoundingClientRect();
      return { selector, text: e.textContent, left: r.left, right: r.right, bottom: r.bottom };
    });
    return { left: b.left, right: b.right, bottom: b.bottom, clipped: box.scrollWidth > box.clientWidth + 1, spans };
  });
  assert.equal(foot.clipped, false, `the footer's content is wider than the footer: ${JSON.stringify(foot)}`);
  for (const s of foot.spans) {
    assert.ok(s.text.length > 0, `${s.selector} has text`);
    assert.ok(s.left >= foot.left - 0.5 && s.right <= foot.right + 0.5, `${s.selector} "${s.text}" inside the footer: ${JSON.stringify(foot)}`);
    assert.ok(s.bottom <= foot.bottom + 0.5, `${s.selector} "${s.text}" not below the footer's edge: ${JSON.stringify(foot)}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});
