// What running the log of writes made by hand costs a reload. Run by hand
// on a release build:
//
//   trunk build --release && node tests/e2e/perf-handlog.mjs [rows] [writes]
//
// Loads `rows` sample rows, runs `writes` cbt `set` lines in pastes of 300 (the
// log keeps up to 256 KiB of commands: 4,500 such lines are about 240 KiB),
// waits for the autosave, reloads, and once the last typed row is back
// prints how long the replay of the log took (its measure) and the longest
// task of the reload. TABLETOP_DIST=/some/dist measures another build.
import os from 'node:os';
import { withApp } from './perf-watch.mjs';

const ROWS = Number(process.argv[2] ?? 10_000);
const WRITES = Number(process.argv[3] ?? 4_500);
const region = (page, name) => page.getByRole('region', { name, exact: true });

async function run(page, command) {
  const console = region(page, 'Console');
  const last = command.split('\n').at(-1);
  await console.getByRole('textbox', { name: 'Command' }).fill(command);
  await console.getByRole('button', { name: 'Run', exact: true }).click();
  // The transcript keeps 200 entries: wait for the paste's last line.
  await page.waitForFunction(
    (line) => [...document.querySelectorAll('.transcript .entry')].at(-1)?.textContent.includes(line),
    last,
    { timeout: 120_000 },
  );
  return page.locator('.transcript .entry').last().textContent();
}

console.log(`Build: ${process.env.TABLETOP_DIST ?? 'dist'}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await withApp(async ({ fresh }) => {
  const page = await fresh();
  const rows = region(page, 'Rows');
  await rows.getByText('Load sample data').click();
  await rows.getByRole('textbox', { name: 'Table to load into' }).fill('perf');
  await rows.getByRole('combobox', { name: 'Rows to generate' }).selectOption(String(ROWS));
  await rows.getByRole('button', { name: 'Generate' }).click();
  await page.waitForSelector('[role=progressbar]', { state: 'detached', timeout: 600_000 });
  const key = (i) => `zz-hand-${String(i).padStart(5, '0')}`;
  const lines = Array.from({ length: WRITES }, (_, i) => `set perf ${key(i)} stats_summary:q=value-${i}`);
  // In pastes of 300 lines (the console's input grows slow to fill past that).
  for (let i = 0; i < lines.length; i += 300) await run(page, lines.slice(i, i + 300).join('\n'));
  await page.waitForTimeout(2000);
  const saved = await page.evaluate(() => JSON.parse(JSON.stringify(localStorage.getItem('tabletop.autosave')?.length ?? 0)));
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__long.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.reload();
  await page.waitForSelector('#rows .row', { timeout: 60_000 });
  const last = key(WRITES - 1);
  for (let i = 0; i < 300; i += 1) {
    if ((await run(page, `lookup perf ${last}`)).includes(`value-${WRITES - 1}`)) break;
    await page.waitForTimeout(500);
  }
  const result = await page.evaluate(() => ({
    replay: performance.getEntriesByName('tabletop:hand-writes').map((m) => m.duration),
    long: window.__long,
  }));
  const ms = (x) => `${Math.round(x)} ms`;
  console.log(`${ROWS} rows, ${WRITES} writes; autosave ${(saved / 1024).toFixed(0)} KiB of text`);
  console.log(`replay of the log: ${result.replay.map(ms).join(', ') || 'none measured'}`);
  console.log(`long tasks of the reload: ${result.long.length}, longest ${ms(Math.max(0, ...result.long))}`);
});
