/**
 * Screenshots of every view of the app for docs/APP.md: docs/app/<shot>-<width>.jpg at 1280×800
 * and 390×844, viewport-sized JPEG (quality 70, lowered to 60 or 50 for a shot over 150 KB), so
 * each stays small enough to commit.
 *
 *   npx tsx scripts/screenshots.ts                   # all views, both widths (runs the whole lesson: about half an hour)
 *   npx tsx scripts/screenshots.ts results door      # only the named views
 *   npx tsx scripts/screenshots.ts --steps=4 train   # development only: a shortened lesson (not for docs/)
 *
 * Starts the repo's Vite dev server (vite.config.ts: cross-origin isolation, and the committed
 * results of the presets cut into parts under committed/, fetched by the app when a preset is
 * opened — nothing of them is bundled) on a free port and a headless Chromium with the flags the
 * tests use (src/cli/browser_flags.ts: HLAB_CHROMIUM names the browser). Each view gets a fresh
 * browser context at each width, so nothing of the reader's own browser (saved runs,
 * checkpoints, cached committed parts) shows.
 *
 * door: a cold load of `/` (the app's default route: Train on the lesson, unmodified) — the intro
 * with what the committed map of conditions found, and the Run card, then the card "What harness scaling did in the committed experiment"
 * (train_committed.ts: the committed cell the lesson is one seed of, fetched after the first paint),
 * each shot once it has loaded.
 *
 * train: `/` again, Start runs the lesson to the end on the engine the app picks (the CPU engine
 * without a hardware GPU), then train-<width>.jpg shows the Run card with its evaluations,
 * train-curves-<width>.jpg the validation charts and train-results-<width>.jpg the before → after
 * table — measurements of this run. The lesson runs once, at 1280×800; the same page is then
 * resized to 390×844. Its wall time (Start to done) is printed.
 *
 * results, compare, trajectories: the committed results of the presets as a reader opens them,
 * fetched on demand — Results `#/results?preset=main` (the map of conditions, the pass@1 table,
 * the Between methods panel, the training curves), Compare `#/compare?runs=[{"preset":"main"},{"preset":"lesson"}]`
 * (main as A beside lesson as B: the two ticked, the overlaid training curves, then Between methods
 * across the two outputs), Trajectories `#/trajectories?preset=main` (main's sample trajectories). Every shot
 * waits until the view has nothing left loading ("Loading…", "A: loading curves…", "Reading the
 * list…").
 * Vite's dependency cache goes to the system's temporary folder, not the shared node_modules/.vite
 * a running test server may be using.
 */
import { mkdirSync, statSync } from 'node:fs';
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
/**
 * Compare's picks: the committed outputs of `main` (A) and `lesson` (B), and the Between methods
 * pair across the two (B's single-harness run − A's: they pair on seed 0's base-harness tasks only,
 * which the panel says) instead of its default within A (the pair Results shows).
 */
const COMPARE_QUERY = [
  `runs=${encodeURIComponent(JSON.stringify([{ preset: 'main' }, { preset: 'lesson' }]))}`,
  `a=${encodeURIComponent('A · single harness (GRPO)')}`,
  `b=${encodeURIComponent('B · single harness (GRPO)')}`,
].join('&');
/** A shot larger than this is taken again at the next of QUALITIES, and reported if still over at the last: docs/APP.md's images should stay small. */
const MAX_BYTES = 150 * 1024;
const QUALITIES = [70, 60, 50];
/** A whole lesson on a loaded 2-core machine, with room to spare (a liveness bound, not a speed goal). */
const LESSON_TIMEOUT_MS = 120 * 60_000;

/** One image of a view: its file name and what is scrolled to the top of the window (a selector, or by width; none: the page top). */
interface Frame {
  name: string;
  scrollTo?: string | ((width: number) => string | undefined);
}

/** One view: its URL, what shows it is drawn (after which nothing may be loading), and its images. */
interface Shot {
  name: string;
  url: string;
  ready: (p: Page) => Promise<unknown>;
  frames: Frame[];
}

/** Committed parts arrive after the first paint: the view is settled when no text says something is still loading. */
async function settled(page: Page): Promise<void> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the reader sees (textContent also holds closed <details>).
  await page.waitForFunction(() => !/\bloading\b|Reading the list/i.test(document.body.innerText), undefined, { polling: 250 });
}

/** Every chart of `selector` has drawn its canvas. */
const chartsDrawn = (page: Page, selector: string) =>
  page.waitForFunction((sel) => {
    const charts = [...document.querySelectorAll(sel)];
    return charts.length > 0 && charts.every((c) => c.querySelector('canvas'));
  }, selector);

const SHOTS: Shot[] = [
  {
    // `/` before any run: the door (intro, Run card) and the committed comparison card.
    name: 'door',
    url: '/',
    ready: async (p) => {
      await p.locator('#train-lesson-intro').waitFor();
      await p.locator('#train-map-finding').waitFor();
      await p.locator('#train-committed-table').waitFor();
    },
    frames: [{ name: 'door' }, { name: 'train-committed', scrollTo: '#train-committed' }],
  },
  { name: 'design', url: '/#/design', ready: (p) => p.locator('#training-table tbody tr').nth(17).waitFor(), frames: [{ name: 'design' }] },
  {
    name: 'inspect',
    url: '/#/inspect',
    ready: (p) => p.locator('#side-a pre.context').filter({ hasText: '<|system|>' }).waitFor(),
    frames: [{ name: 'inspect' }],
  },
  {
    name: 'results',
    url: '/#/results?preset=main',
    ready: async (p) => {
      await p.locator('#paper-table tbody tr').first().waitFor();
      await p.locator('#between-table').waitFor();
      await p.locator('#map-table').waitFor();
      await chartsDrawn(p, '#curves hl-curve-chart');
    },
    frames: [
      { name: 'results-map', scrollTo: '#map' },
      { name: 'results', scrollTo: '#paper-h' },
      { name: 'results-between', scrollTo: '#between-h' },
      // At 390 px the runs' legend fills the window: the charts are scrolled to instead.
      { name: 'results-curves', scrollTo: (width) => (width >= 1000 ? '#curves-h' : '#curves') },
    ],
  },
  {
    name: 'compare',
    url: `/#/compare?${COMPARE_QUERY}`,
    ready: async (p) => {
      await p.locator('#compare-table tbody tr').nth(2).waitFor();
      await p.locator('#compare-between-pairing').waitFor();
      await chartsDrawn(p, '#compare-curves hl-curve-chart');
    },
    frames: [
      // The page top: the committed presets ticked (A, B), then the overlaid curves begin.
      { name: 'compare' },
      { name: 'compare-between', scrollTo: '#compare-between-h' },
    ],
  },
  {
    name: 'trajectories',
    url: '/#/trajectories?preset=main',
    ready: (p) => p.locator('.tokens .tok').first().waitFor(),
    frames: [{ name: 'trajectories', scrollTo: '#traj-count' }],
  },
];
/**
 * The Train view's images after the lesson. At 1280 px the Run card, the committed card and the
 * next steps fill the right column above the charts, so the validation chart is a shot of its own.
 */
const TRAIN_FRAMES: Frame[] = [
  { name: 'train', scrollTo: '#train-status-h' },
  { name: 'train-curves', scrollTo: '#train-charts-h' },
  { name: 'train-results', scrollTo: '#train-results-h' },
];

const nextFrames = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Scroll the frame's element (or the page top) into view, wait for charts to draw, write the JPEG; returns its path when still over MAX_BYTES. */
async function shoot(page: Page, frame: Frame): Promise<string | null> {
  const { width, height } = page.viewportSize()!;
  const scrollTo = typeof frame.scrollTo === 'function' ? frame.scrollTo(width) : frame.scrollTo;
  if (scrollTo) await page.locator(scrollTo).evaluate((el) => el.scrollIntoView({ block: 'start' }));
  else await page.evaluate(() => window.scrollTo(0, 0));
  // Charts draw on the next frames after layout (and after a resize).
  await nextFrames(page);
  await page.waitForTimeout(300);
  await nextFrames(page);
  const path = resolve(OUT, `${frame.name}-${width}.jpg`);
  let quality = QUALITIES[0];
  for (const q of QUALITIES) {
    await page.screenshot({ path, type: 'jpeg', quality: (quality = q) });
    if (statSync(path).size <= MAX_BYTES) break;
  }
  const bytes = statSync(path).size;
  console.log(`${path.slice(process.cwd().length + 1)}  ${width}×${height}  ${(bytes / 1024).toFixed(0)} KB  (quality ${quality})`);
  return bytes > MAX_BYTES ? path : null;
}

/** Run the lesson (or `steps` RL steps of it) from `/` to the end at 1280 px, shoot, resize to 390 px, shoot. */
async function trainShots(browser: Browser, baseURL: string, steps: number | null): Promise<string[]> {
  const [[w0, h0], ...rest] = SIZES;
  const context = await browser.newContext({ viewport: { width: w0, height: h0 }, baseURL });
  context.setDefaultTimeout(120_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error (train): ${e.message}`));
  await page.goto(steps === null ? '/' : `/#/train?steps=${steps}`);
  await page.locator('#train-spec').waitFor();
  const spec = JSON.parse(await page.locator('#train-spec').inputValue()) as { name: string };
  if (spec.name !== 'lesson') throw new Error(`screenshots: / opened the preset '${spec.name}', expected the lesson`);
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
  await page.locator('#train-committed-table').waitFor();
  await settled(page);
  const oversized: string[] = [];
  for (const size of [[w0, h0], ...rest]) {
    await page.setViewportSize({ width: size[0], height: size[1] });
    for (const f of TRAIN_FRAMES) {
      const big = await shoot(page, f);
      if (big) oversized.push(big);
    }
  }
  await context.close();
  return oversized;
}

/** One view at one width, in a fresh browser context: load, wait until drawn and settled, shoot each frame. */
async function viewShots(browser: Browser, baseURL: string, shot: Shot, [width, height]: readonly [number, number]): Promise<string[]> {
  const context = await browser.newContext({ viewport: { width, height }, baseURL });
  context.setDefaultTimeout(120_000);
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error (${shot.name}, ${width} px): ${e.message}`));
  await page.goto(shot.url);
  await shot.ready(page);
  await settled(page);
  const oversized: string[] = [];
  for (const f of shot.frames) {
    const big = await shoot(page, f);
    if (big) oversized.push(big);
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
    for (const s of shots) for (const size of SIZES) oversized.push(...(await viewShots(browser, baseURL, s, size)));
    if (train) oversized.push(...(await trainShots(browser, baseURL, steps)));
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
