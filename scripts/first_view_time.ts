/**
 * Time to the app's first view, as a reader gets it: `/` opened in a fresh browser profile until
 * the view's heading (`#view-root h1`) is visible, on the Vite dev server (`npm run dev`) and on
 * the production build served by `vite preview`. Prints each load and the machine's load average.
 *
 *   npx tsx scripts/first_view_time.ts              # dev, then production; 4 loads each
 *   npx tsx scripts/first_view_time.ts dev --loads=6
 *   npx tsx scripts/first_view_time.ts prod
 *
 * dev: a new server (the repository's vite.config.ts, warmup included) with its dependency cache
 * in the system's temporary folder (not the shared node_modules/.vite a test server may be
 * using); the first load starts as soon as the server listens (cold: the server may still be
 * transforming), the others find it warm. prod: `vite build` into a temporary folder (not dist/,
 * which a running production test may be serving; its JS assets are listed with their sizes), then
 * `vite preview` of it. Every load is a
 * new browser context (empty cache, no service state), one at a time.
 */
import { readdirSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { build, createServer, preview } from 'vite';
import { chromiumExecutable, webgpuLaunchArgs } from '../src/cli/browser_flags';

/** One load of `/` in a fresh context: milliseconds to the heading, and the navigation's own marks. */
async function firstView(browser: Browser, baseURL: string): Promise<{ ms: number; dcl: number; load: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL });
  const page = await context.newPage();
  const t0 = Date.now();
  await page.goto('/', { waitUntil: 'commit' });
  await page.locator('#view-root h1').first().waitFor({ state: 'visible', timeout: 120_000 });
  const ms = Date.now() - t0;
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return { dcl: Math.round(n.domContentLoadedEventEnd), load: Math.round(n.loadEventEnd) };
  });
  await context.close();
  return { ms, ...nav };
}

/** `loads` first views one after another, each printed. */
async function measure(label: string, baseURL: string, loads: number): Promise<number[]> {
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), args: webgpuLaunchArgs() });
  const times: number[] = [];
  try {
    for (let i = 0; i < loads; i++) {
      const t = await firstView(browser, baseURL);
      times.push(t.ms);
      const load = loadavg().map((l) => l.toFixed(2));
      console.log(
        `${label} load ${i + 1}: ${t.ms} ms to the heading (DOMContentLoaded ${t.dcl} ms, load ${t.load} ms; load average ${load.join(' ')})`,
      );
    }
  } finally {
    await browser.close();
  }
  return times;
}

const port = () => 43000 + Math.floor(Math.random() * 20000);

async function dev(loads: number): Promise<number[]> {
  const p = port();
  const server = await createServer({
    server: { port: p, host: '127.0.0.1', strictPort: true },
    cacheDir: join(tmpdir(), 'hlab-first-view-vite'),
    logLevel: 'warn',
  });
  await server.listen();
  try {
    return await measure('dev', `http://127.0.0.1:${p}`, loads);
  } finally {
    await server.close();
  }
}

async function prod(loads: number): Promise<number[]> {
  const outDir = join(tmpdir(), 'hlab-first-view-dist');
  const t0 = Date.now();
  await build({ logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  console.log(`vite build: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const js = readdirSync(join(outDir, 'assets'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => ({ f, kB: statSync(join(outDir, 'assets', f)).size / 1e3 }))
    .sort((a, b) => b.kB - a.kB);
  console.log(`JS assets (${js.length}), largest first: ${js.map((a) => `${a.f} ${a.kB.toFixed(0)} kB`).join(', ')}`);
  const p = port();
  const server = await preview({ preview: { port: p, host: '127.0.0.1', strictPort: true }, build: { outDir }, logLevel: 'warn' });
  try {
    return await measure('prod', `http://127.0.0.1:${p}`, loads);
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const loads = Number(args.find((a) => a.startsWith('--loads='))?.slice(8) ?? 4);
  const modes = args.filter((a) => !a.startsWith('--'));
  const bad = modes.filter((m) => m !== 'dev' && m !== 'prod');
  if (bad.length || !(loads >= 1)) {
    console.error('usage: npx tsx scripts/first_view_time.ts [dev] [prod] [--loads=N]');
    process.exit(2);
  }
  const summary: string[] = [];
  for (const m of modes.length ? modes : ['dev', 'prod']) {
    const t = await (m === 'dev' ? dev(loads) : prod(loads));
    summary.push(`${m}: ${t.map((x) => (x / 1000).toFixed(1)).join(', ')} s`);
  }
  console.log(`first view: ${summary.join('; ')}`);
}

await main();
