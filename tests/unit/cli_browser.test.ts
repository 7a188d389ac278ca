import { it, expect } from 'vitest';
import { withBrowser } from '../../src/cli/browser';

it('the CLI opens its page in headless Chromium through Vite and calls a typed entry point', async () => {
  const r = await withBrowser((s) => s.call('capabilities', null));
  expect(r.webgpu).toBe(true);
  expect(r.crossOriginIsolated).toBe(true);
  expect(r.hardwareConcurrency).toBeGreaterThan(0);
}, 60_000);
