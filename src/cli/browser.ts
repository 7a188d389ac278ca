/**
 * Headless runs for the command line: serve the app with Vite on a free loopback port, start
 * the system Chromium with WebGPU flags (Playwright, no browser download), open the command
 * line's page (src/page/index.html) and call its typed entry points (src/page/entries.ts).
 *
 * Used by `hlab bench`, `hlab run`, `hlab evaluate`, `hlab pretrain`: the GPU work happens in the
 * page, the CLI only prints. Events come back through one exposed function (PAGE_EVENT_BINDING),
 * typed `PageEvent`s; the page's questions (`hlab bench`'s PyTorch peer) through another
 * (PAGE_QUERY_BINDING), answered by `BrowserOptions.answers`. Node-only module.
 */
import type { ViteDevServer } from 'vite';
import type { Browser, Page } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { chromiumExecutable, webgpuLaunchArgs } from './browser_flags';
import type { PageEntryArg, PageEntryName, PageEntryResult } from '../page/entries';
import { PAGE_EVENT_BINDING, PAGE_QUERY_BINDING, type PageAnswers, type PageEvent, type PageQuery } from '../page/protocol';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface BrowserSession {
  page: Page;
  /** Run the page's entry `name` (src/page/entries.ts PAGE_ENTRIES) with `arg`; resolves with its result. */
  call<K extends PageEntryName>(name: K, arg: PageEntryArg<K>): Promise<PageEntryResult<K>>;
  /** Ask the running entry to stop (`hlab run`: checkpoint after the current RL step). */
  stop(): Promise<void>;
}

interface BrowserOptions {
  /** Called with every event the page sends (awaited before the page's send resolves). */
  onEvent?: (ev: PageEvent) => void | Promise<void>;
  /** The questions this command answers (protocol.ts PageQueries); a question without an answer fails in the page, naming it. */
  answers?: Partial<PageAnswers>;
  /** Leave SIGINT and SIGTERM to the caller (Playwright otherwise closes the browser on them); `hlab run` checkpoints first. */
  keepBrowserOnSignals?: boolean;
}

/**
 * Start Vite + Chromium, open /src/page/index.html, run `body`, and always tear both down (also
 * on Ctrl-C via the returned promise rejecting).
 * @throws Error when Chromium is missing (message names HLAB_CHROMIUM) or the page fails to load.
 */
export async function withBrowser<T>(body: (s: BrowserSession) => Promise<T>, opts: BrowserOptions = {}): Promise<T> {
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  try {
    // Loaded lazily: commands that never start a browser should not pay for Vite and Playwright.
    const { createServer, createLogger } = await import('vite');
    const { chromium } = await import('@playwright/test');
    const sigtermBefore = new Set(process.listeners('SIGTERM'));
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
    // Vite's dev server exits the process on SIGTERM; a caller that keeps signals saves a checkpoint first.
    if (opts.keepBrowserOnSignals) for (const l of process.listeners('SIGTERM')) if (!sigtermBefore.has(l)) process.off('SIGTERM', l);
    await server.listen();
    const addr = server.httpServer?.address();
    if (!addr || typeof addr === 'string') throw new Error('vite: no TCP address');
    const base = `http://127.0.0.1:${addr.port}`;
    browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      args: webgpuLaunchArgs(),
      headless: true,
      ...(opts.keepBrowserOnSignals ? { handleSIGINT: false, handleSIGTERM: false } : {}),
    });
    const page = await browser.newPage();
    await page.exposeFunction(PAGE_EVENT_BINDING, async (ev: PageEvent) => {
      await opts.onEvent?.(ev);
    });
    await page.exposeFunction(PAGE_QUERY_BINDING, (q: PageQuery) => answer(opts.answers ?? {}, q));
    await page.goto(`${base}/src/page/index.html`);
    await page.waitForFunction(() => window.hlabPage !== undefined);
    const session: BrowserSession = {
      page,
      call: <K extends PageEntryName>(name: K, arg: PageEntryArg<K>) =>
        page.evaluate(([n, a]) => window.hlabPage!.call(n, a as never), [name, arg] as const) as Promise<PageEntryResult<K>>,
      stop: () => page.evaluate(() => window.hlabPage!.stop()),
    };
    return await body(session);
  } finally {
    await browser?.close().catch(() => {});
    await server?.close().catch(() => {});
  }
}

/**
 * The CLI's answer to one page question.
 * @throws Error when this command has no answer for `q.name` (the page's `io.ask` rejects with it)
 */
function answer(answers: Partial<PageAnswers>, q: PageQuery): Promise<unknown> {
  const f = answers[q.name] as ((arg: PageQuery['arg']) => Promise<unknown>) | undefined;
  if (!f) return Promise.reject(new Error(`page question '${q.name}': this command does not answer it`));
  return f(q.arg);
}
