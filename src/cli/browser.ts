/**
 * Headless runs for the command line: serve the app with Vite on a free loopback port, start
 * the system Chromium with WebGPU flags (Playwright, no browser download), open the runner
 * page and call exported functions of Vite-served modules in it.
 *
 * Used by `hlab bench`, `hlab run`, `hlab pretrain`: the GPU work happens in the page, the
 * CLI only prints. Node-only module.
 */
import type { ViteDevServer } from 'vite';
import type { Browser, Page } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { chromiumExecutable, webgpuLaunchArgs } from './browser_flags';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface BrowserSession {
  page: Page;
  /** Import `path` in the page and await its export `fn(...args)`; args and result JSON-safe. */
  run<T = unknown>(path: string, fn: string, ...args: unknown[]): Promise<T>;
  /** Uncaptured WebGPU errors the page recorded so far. */
  gpuErrors(): Promise<string[]>;
}

export interface BrowserOptions {
  /** Forward the page's console lines to this callback (progress, logs). */
  onConsole?: (text: string) => void;
  /** Leave Ctrl-C to the caller (Playwright otherwise closes the browser on SIGINT); `hlab run` checkpoints first. */
  keepBrowserOnSigint?: boolean;
}

/**
 * Start Vite + Chromium, run `body`, and always tear both down (also on Ctrl-C via the
 * returned promise rejecting). The page is /tests/browser/page.html, which exposes `hlabRun`.
 * @throws Error when Chromium is missing (message names HLAB_CHROMIUM) or the page fails to load.
 */
export async function withBrowser<T>(body: (s: BrowserSession) => Promise<T>, opts: BrowserOptions = {}): Promise<T> {
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  try {
    // Loaded lazily: commands that never start a browser should not pay for Vite and Playwright.
    const { createServer, createLogger } = await import('vite');
    const { chromium } = await import('@playwright/test');
    server = await createServer({
      root: ROOT,
      configFile: resolve(ROOT, 'vite.config.ts'),
      logLevel: 'silent',
      // vite.config.ts sets a customLogger (info level), which would override logLevel and put
      // "[vite] … bundling dependencies" on stdout, in front of a command's --json output.
      customLogger: createLogger('silent'),
      clearScreen: false,
      server: { port: 0, host: '127.0.0.1', strictPort: false, hmr: false },
    });
    await server.listen();
    const addr = server.httpServer?.address();
    if (!addr || typeof addr === 'string') throw new Error('vite: no TCP address');
    const base = `http://127.0.0.1:${addr.port}`;
    browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      args: webgpuLaunchArgs(),
      headless: true,
      ...(opts.keepBrowserOnSigint ? { handleSIGINT: false } : {}),
    });
    const page = await browser.newPage();
    if (opts.onConsole) page.on('console', (m) => opts.onConsole!(m.text()));
    await page.goto(`${base}/tests/browser/page.html`);
    await page.waitForFunction(() => (window as unknown as { hlabReady?: boolean }).hlabReady === true);
    const session: BrowserSession = {
      page,
      run: <R>(path: string, fn: string, ...args: unknown[]) =>
        page.evaluate(
          ([p, f, a]) => (window as unknown as { hlabRun: (p: string, f: string, ...a: unknown[]) => Promise<unknown> }).hlabRun(p as string, f as string, ...(a as unknown[])),
          [path, fn, args] as const,
        ) as Promise<R>,
      gpuErrors: () => page.evaluate(() => (window as unknown as { __hlabGpuErrors?: string[] }).__hlabGpuErrors ?? []),
    };
    return await body(session);
  } finally {
    await browser?.close().catch(() => {});
    await server?.close().catch(() => {});
  }
}
