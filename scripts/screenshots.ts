/**
 * Screenshots of every view of the app for docs/APP.md: docs/app/<view>-<width>.jpg at 1280×800
 * and 390×844, viewport-sized JPEG (quality 70), so each stays small enough to commit.
 *
 *   npx tsx scripts/screenshots.ts            # all views, both widths
 *   npx tsx scripts/screenshots.ts results    # only the named views
 *
 * Starts the repo's Vite dev server (vite.config.ts: cross-origin isolation, committed results)
 * on a free port and a headless Chromium with the flags the tests use (src/cli/browser_flags.ts:
 * HLAB_CHROMIUM names the browser). Results, Trajectories and Compare show the synthetic results
 * file of the browser tests (tests/browser/app_results.fixture.ts, built in the page from a
 * seeded stream: its numbers are not measurements); Compare shows two saved copies of it, the
 * second with half the after-training base passes turned to fails. Each browser context is fresh,
 * so nothing of the reader's own browser shows. Vite's dependency cache goes to the system's
 * temporary folder, not the shared node_modules/.vite a running test server may be using.
 */
import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { createServer } from 'vite';
import { chromiumExecutable, webgpuLaunchArgs } from '../src/cli/browser_flags';

const OUT = resolve('docs/app');
const SIZES = [
  [1280, 800],
  [390, 844],
] as const;
const FIXTURE = 'fixture-results.json';
const RUNS = ['fixture A', 'fixture B · half the base passes'];
/** A shot larger than this is reported: docs/APP.md's images should stay small. */
const MAX_BYTES = 150 * 1024;

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
  { name: 'train', url: '/#/train', ready: (p) => p.locator('#train-spec').waitFor() },
  {
    name: 'results',
    url: `/#/results?file=${FIXTURE}`,
    ready: (p) => p.locator('#scaling-table tbody tr').first().waitFor(),
    scrollTo: '#results-h',
  },
  {
    name: 'compare',
    url: `/#/compare?runs=${encodeURIComponent(JSON.stringify(RUNS))}`,
    ready: (p) => p.locator('#compare-scaling-table tbody tr').first().waitFor(),
    scrollTo: '#compare-scaling-h',
  },
  {
    name: 'trajectories',
    url: `/#/trajectories?file=${FIXTURE}`,
    ready: (p) => p.locator('.tokens .tok').first().waitFor(),
    scrollTo: '#traj-list-h',
  },
];

/** Build the fixture in the page, open it in Results (a file of this tab) and save two copies for Compare. */
async function loadFixture(page: Page): Promise<void> {
  await page.goto('/#/results');
  await page.locator('#results-file').waitFor({ state: 'attached' });
  const text = await page.evaluate(async (runs) => {
    const fx = (await import(/* @vite-ignore */ '/tests/browser/app_results.fixture.ts'.toString())) as typeof import('../tests/browser/app_results.fixture');
    const store = (await import(/* @vite-ignore */ '/src/app/results_store.ts'.toString())) as typeof import('../src/app/results_store');
    const text = await fx.buildFixture();
    const cli = JSON.parse(text);
    const out = {
      status: 'done' as const,
      results: { resultsVersion: cli.resultsVersion, spec: cli.spec, evalSet: cli.evalSet, machine: cli.machine, runs: cli.runs },
      curves: cli.curves,
      warnings: cli.warnings,
    };
    await store.saveRunOutput(runs[0], out);
    // B: every second passing after-training base episode failed instead (its pass@1 recomputed), or,
    // for a run without episodes, its after-training base pass@1 halved — the tables stay consistent.
    const b = JSON.parse(JSON.stringify(out));
    for (const r of b.results.runs) {
      const eps: { pass: boolean; score: number }[] | undefined = r.episodes?.after.base;
      if (!eps) {
        r.after.base /= 2;
        continue;
      }
      eps.filter((e) => e.pass).forEach((e, i) => i % 2 === 0 && Object.assign(e, { pass: false, score: Math.min(e.score, 0.5) }));
      r.after.base = eps.filter((e) => e.pass).length / eps.length;
    }
    await store.saveRunOutput(runs[1], b);
    return text;
  }, RUNS);
  await page.setInputFiles('#results-file', { name: FIXTURE, mimeType: 'application/json', buffer: Buffer.from(text) });
  await page.locator('#paper-table tbody tr').first().waitFor();
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const unknown = only.filter((n) => !SHOTS.some((s) => s.name === n));
  if (unknown.length) {
    console.error(`screenshots: unknown view ${unknown.join(', ')}; views: ${SHOTS.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  const shots = only.length ? SHOTS.filter((s) => only.includes(s.name)) : SHOTS;
  mkdirSync(OUT, { recursive: true });
  const port = 43000 + Math.floor(Math.random() * 20000);
  const server = await createServer({
    server: { port, host: '127.0.0.1', strictPort: true },
    cacheDir: join(tmpdir(), 'hlab-screenshots-vite'),
    logLevel: 'warn',
  });
  await server.listen();
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), args: webgpuLaunchArgs() });
  const oversized: string[] = [];
  try {
    for (const [width, height] of SIZES) {
      const context = await browser.newContext({ viewport: { width, height }, baseURL: `http://127.0.0.1:${port}` });
      context.setDefaultTimeout(120_000);
      const page = await context.newPage();
      page.on('pageerror', (e) => console.error(`page error (${width} px): ${e.message}`));
      await loadFixture(page);
      for (const s of shots) {
        await page.goto(s.url);
        await s.ready(page);
        if (s.scrollTo) await page.locator(s.scrollTo).evaluate((el) => el.scrollIntoView({ block: 'start' }));
        else await page.evaluate(() => window.scrollTo(0, 0));
        // Charts draw on the next frames after layout.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const path = resolve(OUT, `${s.name}-${width}.jpg`);
        await page.screenshot({ path, type: 'jpeg', quality: 70 });
        const bytes = statSync(path).size;
        console.log(`${path.slice(process.cwd().length + 1)}  ${width}×${height}  ${(bytes / 1024).toFixed(0)} KB`);
        if (bytes > MAX_BYTES) oversized.push(path);
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
