import { defineConfig } from '@playwright/test';
import base from './playwright.config';

// The app as shipped: `vite build` into dist/, then `vite preview` (cross-origin isolation
// headers set in vite.config.ts). Only the production spec runs here; the other browser specs
// run against the dev server (playwright.config.ts).
if (!process.env.HLAB_PROD_TEST_PORT) {
  process.env.HLAB_PROD_TEST_PORT = String(41000 + Math.floor(Math.random() * 20000));
}
const port = Number(process.env.HLAB_PROD_TEST_PORT);

export default defineConfig({
  ...base,
  testMatch: '**/app_production.spec.ts',
  testIgnore: [],
  use: { ...base.use, baseURL: `http://127.0.0.1:${port}` },
  webServer: {
    command: `npx vite build --logLevel warn && npx vite preview --port ${port} --host 127.0.0.1 --strictPort`,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    // The build takes 15–60 s on a loaded 2-core machine.
    timeout: 180_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
