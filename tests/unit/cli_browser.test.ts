import { it, expect } from 'vitest';
import { withBrowser } from '../../src/cli/browser';

it('the CLI can run a module in headless Chromium through Vite', async () => {
  const r = await withBrowser((s) => s.run<{ doubled: number; hasGpu: boolean }>('/tests/browser/cli_probe.entry.ts', 'echo', 21));
  expect(r).toEqual({ doubled: 42, hasGpu: true });
}, 60_000);
