import { test, expect } from './fixtures';

const ENTRY = '/tests/browser/webgpu_smoke.entry.ts';

test('WebGPU adapter is present with raised limits', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ info: { architecture: string }; maxStorageBufferBindingSize: number }>(ENTRY, 'adapterInfo');
  expect(typeof r.info.architecture).toBe('string');
  expect(r.maxStorageBufferBindingSize).toBeGreaterThanOrEqual(128 * 1024 * 1024);
});

test('a WebGPU validation error is caught by the error scopes', async ({ gpuPage }) => {
  const msg = await gpuPage.run<string>(ENTRY, 'provokeValidationError');
  expect(msg).toContain('WebGPU validation error');
});
