/**
 * Playwright fixture for tests that run code in the page against real WebGPU.
 *
 * `run(path, fn, ...args)` imports `path` (a Vite-served module, e.g. '/tests/browser/x.entry.ts')
 * in the test page and returns the awaited result of its export `fn`. After each test the
 * fixture fails the test if the page recorded any uncaptured WebGPU error (validation,
 * out-of-memory, device loss) or an uncaught page error.
 */
import { test as base, expect } from '@playwright/test';

export interface PageRunner {
  run<T = unknown>(path: string, fn: string, ...args: unknown[]): Promise<T>;
}

export const test = base.extend<{ gpuPage: PageRunner }>({
  gpuPage: async ({ page }, use) => {
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto('/tests/browser/page.html');
    await page.waitForFunction(() => window.hlabReady === true);
    await use({
      run: <T>(path: string, fn: string, ...args: unknown[]) =>
        page.evaluate(([p, f, a]) => window.hlabRun(p as string, f as string, ...(a as unknown[])), [
          path,
          fn,
          args,
        ] as const) as Promise<T>,
    });
    const gpuErrors = await page.evaluate(() => window.hlabRun('/src/engine/webgpu/device.ts', 'gpuErrorsOfRealm'));
    expect(gpuErrors, 'uncaptured WebGPU errors').toEqual([]);
    expect(pageErrors, 'uncaught page errors').toEqual([]);
  },
});

export { expect };

/**
 * A measurement worth keeping from a passing test (numbers, sizes, timings): attached to the
 * test as an annotation (HTML/JSON reporters show it) instead of printed, so a clean run's
 * output holds only what matters. Set HLAB_TEST_NOTES=1 to print them as well.
 */
export function note(label: string, value: unknown): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  test.info().annotations.push({ type: label, description: text });
  if (process.env.HLAB_TEST_NOTES === '1') process.stdout.write(`${label}: ${text}\n`);
}
