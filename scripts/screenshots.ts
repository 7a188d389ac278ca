/**
 * Screenshots of every view of the app for docs/APP.md: docs/app/<view>-<width>.jpg at 1280×800
 * and 390×844, viewport-sized JPEG (quality 70), so each stays small enough to commit.
 *
 *   npx tsx scripts/screenshots.ts                # all views, both widths (runs the whole lesson: minutes)
 *   npx tsx scripts/screenshots.ts results train  # only the named views
 *   npx tsx scripts/screenshots.ts --steps=4 train   # development only: a shortened lesson (not for docs/)
 *
 * Starts the repo's Vite dev server (vite.config.ts: cross-origin isolation, committed results)
 * on a free port and a headless Chromium with the flags the tests use (src/cli/browser_flags.ts:
 * HLAB_CHROMIUM names the browser).
 *
 * Train: a cold load of `#/train` opens the lesson (the app's default preset), unmodified; Start
 * runs it to the end on the engine the app picks (the CPU engine without a hardware GPU), then
 * train-<width>.jpg shows the Run card and the validation chart and train-results-<width>.jpg the
 * before → after table — measurements of this run. The lesson runs once, at 1280×800; the same
 * page is then resized to 390×844. Its wall time (Start to done) is printed.
 *
 * Results, Trajectories and Compare show the committed results of the `main` preset
 * (docs/results/main/results.json, measured by `hlab run --preset main`): Results through
 * `#/results?preset=main` (the copy bundled into the app), Trajectories through the file opened in
 * the tab (the bundled copy leaves out trajectories), Compare with `main` and `lesson`'s committed
 * outputs saved in the browser (Compare takes saved runs only). Each browser context is fresh, so
 * nothing of the reader's own browser shows. Vite's dependency cache goes to the system's
 * temporary folder, not the shared node_modules/.vite a running test server may be using.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { createServer } from 'vite';
import { chromiumExecutable, webgpuLaunchArgs } from '../src/cli/browser_flags';

const OUT = resolve('docs/app');
const SIZES = [
  [1280, 800],
  [390, 844],
] as const;
/** The committed outputs shown (the name a file keeps when opened in the tab, and the saved run names for Compare). */
const MAIN_FILE = 'results.json';
const COMMITTED = ['main', 'lesson'] as const;
const savedName = (preset: string) => `${preset} (docs/results/${preset})`;
/** A shot larger than this is reported: docs/APP.md's images should stay small. */
const MAX_BYTES = 150 * 1024;
/** A whole lesson on a loaded 2-core machine, with room to spare (a liveness bound, not a speed goal). */
const LESSON_TIMEOUT_MS = 40 * 60_000;

/** One view: its URL, what shows it is drawn, and the heading to scroll to (the view's main content). */
interface Shot {
  name: string;
  url: string;
  ready: (p: Page) => Promise<unknown>;
  scrollTo?: string;
}

const SHOTS: Shot[] = [
  { name: 'design', url: '/#/design', ready: (p) => p.locator('#training-table tbody tr').nth(17).waitFor() },
  { name: 'inspect', url: '/#/inspect', ready: (p) => p.locator('#side-a pre.context').filter({ hasText: '<|system|>' }).waitFor() },
  {
    name: 'results',
    url: '/#/results?preset=main',
    ready: (p) => p.locator('#scaling-table tbody tr').first().waitFor(),
    scrollTo: '#results-h',
  },
  {
    name: 'compare',
    url: `/#/compare?runs=${encodeURIComponent(JSON.stringify(COMMITTED.map(savedName)))}`,
    ready: (p) => p.locator('#compare-table tbody tr').nth(2).waitFor(),
    scrollTo: '#compare-table-h',
  },
  {
    name: 'trajectories',
    url: `/#/trajectories?file=${MAIN_FILE}`,
    ready: (p) => p.locator('.tokens .tok').first().waitFor(),
    scrollTo: '#traj-list-h',
  },
];
/**
 * The Train view's shots after the lesson, what is scrolled to the top of the window by width: at
 * 1280 px the Run card sits beside the charts, so its top shows the validation chart too; at 390 px
 * the cards stack and the Run card alone fills the window, so the chart is scrolled to instead.
 */
const TRAIN_SHOTS = [
  { name: 'train', scrollTo: (width: number) => (width >= 1000 ? '#train-status-h' : '.train-chart-validation') },
  { name: 'train-results', scrollTo: () => '#train-results-h' },
] as const;

const committedText = (preset: string) => readFileSync(resolve(`docs/results/${preset}/results.json`), 'utf8');

/** Save the committed outputs in the browser (for Compare) and open main's results.json in the tab (for Trajectories). */
async function loadCommitted(page: Page): Promise<void> {
  await page.goto('/#/results');
  await page.locator('#results-file').waitFor({ state: 'attached' });
  for (const preset of COMMITTED) {
    await page.evaluate(
      async ([name, text]) => {
        const store = (await import(/* @vite-ignore */ '/src/app/results_store.ts'.toString())) as typeof import('../src/app/results_store');
        await store.saveRunOutput(name, store.parseResultsText(text, name));
      },
      [savedName(preset), committedText(preset)] as const,
    );
  }
  await page.setInputFiles('#results-file', { name: MAIN_FILE, mimeType: 'application/json', buffer: Buffer.from(committedText('main')) });
  await page.locator('#paper-table tbody tr').first().waitFor();
}

const nextFrames = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Scroll `selector` (or the page top) into view, wait for charts to draw, write the JPEG; returns its path when over MAX_BYTES. */
async function shoot(page: Page, name: string, scrollTo: string | undefined): Promise<string | null> {
  if (scrollTo) await page.locator(scrollTo).evaluate((el) => el.scrollIntoView({ block: 'start' }));
  else await page.evaluate(() => window.scrollTo(0, 0));
  // Charts draw on the next frames after layout (and after a resize).
  await nextFrames(page);
  await page.waitForTimeout(300);
  await nextFrames(page);
  const { width, height } = page.viewportSize()!;
  const path = resolve(OUT, `${name}-${width}.jpg`);
  await page.screenshot({ path, type: 'jpeg', quality: 70 });
  const bytes = statSync(path).size;
  console.log(`${path.slice(process.cwd().length + 1)}  ${width}×${height}  ${(bytes / 1024).toFixed(0)} KB`);
  return bytes > MAX_BYTES ? path : null;
}

/** Run the lesson (or `steps` RL steps of it) to the end at 1280 px, shoot, resize to 390 px, shoot. */
async function trainShots(browser: Browser, baseURL: string, steps: number | null): Promise<string[]> {
  const [[w0, h0], ...rest] = SIZES;
  const context = await browser.newContext({ viewport: { width: w0, height: h0 }, baseURL });
  context.setDefaultTimeout(120_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error (train): ${e.message}`));
  await page.goto(steps === null ? '/#/train' : `/#/train?steps=${steps}`);
  await page.locator('#train-spec').waitFor();
  const spec = JSON.parse(await page.locator('#train-spec').inputValue()) as { name: string };
  if (spec.name !== 'lesson') throw new Error(`screenshots: #/train opened the preset '${spec.name}', expected the lesson`);
  const t0 = Date.now();
  await page.locator('#train-start').click();
  const phase = page.locator('#train-phase');
  await phase.and(page.locator('[data-phase="running"]')).waitFor();
  await page.locator('#train-phase[data-phase="done"], #train-phase[data-phase="failed"]').waitFor({ timeout: LESSON_TIMEOUT_MS });
  const seconds = (Date.now() - t0) / 1000;
  if ((await phase.getAttribute('data-phase')) !== 'done') {
    const why = (await page.locator('#train-failure').count()) ? await page.locator('#train-failure').textContent() : '(no failure text)';
    throw new Error(`screenshots: the lesson failed: ${why}`);
  }
  console.log(`lesson${steps === null ? '' : ` (steps=${steps}, shortened: not for docs/)`}: Start → done in ${seconds.toFixed(0)} s`);
  await page.locator('#train-results-table tbody tr').first().waitFor();
  const oversized: string[] = [];
  for (const size of [[w0, h0], ...rest]) {
    await page.setViewportSize({ width: size[0], height: size[1] });
    for (const s of TRAIN_SHOTS) {
      const big = await shoot(page, s.name, s.scrollTo(size[0]));
      if (big) oversized.push(big);
    }
  }
  await context.close();
  return oversized;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const stepsArg = args.find((a) => a.startsWith('--steps='));
  const steps = stepsArg === undefined ? null : Number(stepsArg.slice('--steps='.length));
  if (steps !== null && !(Number.isInteger(steps) && steps > 0)) {
    console.error(`screenshots: --steps must be a positive integer, got ${stepsArg}`);
    process.exit(2);
  }
  const only = args.filter((a) => !a.startsWith('--'));
  const names = ['train', ...SHOTS.map((s) => s.name)];
  const unknown = only.filter((n) => !names.includes(n));
  if (unknown.length) {
    console.error(`screenshots: unknown view ${unknown.join(', ')}; views: ${names.join(', ')}`);
    process.exit(2);
  }
  const shots = only.length ? SHOTS.filter((s) => only.includes(s.name)) : SHOTS;
  const train = !only.length || only.includes('train');
  mkdirSync(OUT, { recursive: true });
  const port = 43000 + Math.floor(Math.random() * 20000);
  const baseURL = `http://127.0.0.1:${port}`;
  const server = await createServer({
    server: { port, host: '127.0.0.1', strictPort: true },
    cacheDir: join(tmpdir(), 'hlab-screenshots-vite'),
    logLevel: 'warn',
  });
  await server.listen();
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), args: webgpuLaunchArgs() });
  const oversized: string[] = [];
  try {
    if (train) oversized.push(...(await trainShots(browser, baseURL, steps)));
    for (const [width, height] of shots.length ? SIZES : []) {
      const context = await browser.newContext({ viewport: { width, height }, baseURL });
      context.setDefaultTimeout(120_000);
      const page = await context.newPage();
      page.on('pageerror', (e) => console.error(`page error (${width} px): ${e.message}`));
      await loadCommitted(page);
      for (const s of shots) {
        await page.goto(s.url);
        await s.ready(page);
        const big = await shoot(page, s.name, s.scrollTo);
        if (big) oversized.push(big);
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  if (oversized.length) {
    console.error(`screenshots: over ${MAX_BYTES / 1024} KB: ${oversized.join(', ')}`);
    process.exit(1);
  }
}

await main();
