import { defineConfig } from '@playwright/test';
import { chromiumExecutable, webgpuLaunchArgs } from './src/cli/browser_flags';

// One port per test run, chosen in the main process and inherited by the workers, so that
// two runs on one machine never share (and kill) each other's Vite server.
if (!process.env.HLAB_TEST_PORT) {
  process.env.HLAB_TEST_PORT = String(41000 + Math.floor(Math.random() * 20000));
}
const port = Number(process.env.HLAB_TEST_PORT);

export default defineConfig({
  testDir: 'tests/browser',
  testMatch: '**/*.spec.ts',
  // The production build's spec has its own config (build + preview): playwright.production.config.ts.
  testIgnore: '**/app_production.spec.ts',
  fullyParallel: false,
  // SwiftShader runs WebGPU on the CPU: on a 2-core machine one browser at a time is fastest.
  workers: 1,
  retries: 0,
  timeout: 120_000,
  // Web-first assertions poll until they hold; 5 s (the default) failed on a loaded 2-core
  // machine for the wrong reason (e.g. a view still "Loading…" while a pretraining job ran).
  // A liveness bound, not a speed bound: speed is reported by `hlab bench`.
  expect: { timeout: 30_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    launchOptions: { executablePath: chromiumExecutable(), args: webgpuLaunchArgs() },
    trace: 'off',
  },
  webServer: {
    command: `npx vite --port ${port} --host 127.0.0.1 --strictPort`,
    url: `http://127.0.0.1:${port}/tests/browser/page.html`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
