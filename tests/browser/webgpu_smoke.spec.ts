import { test, expect } from './fixtures';

const ENTRY = '/tests/browser/webgpu_smoke.entry.ts';

test('WebGPU adapter is present with raised limits', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ info: { architecture: string }; maxStorageBufferBindingSize: number }>(ENTRY, 'adapterInfo');
  expect(typeof r.info.architecture).toBe('string');
  expect(r.maxStorageBufferBindingSize).toBeGreaterThanOrEqual(128 * 1024 * 1024);
});

for (const [n, pad] of [
  [1, 0],
  [255, 0],
  [257, 3],
  [100_003, 0],
]) {
  test(`residual_forward matches its CPU reference exactly (n=${n}, offset ${pad})`, async ({ gpuPage }) => {
    const r = await gpuPage.run<{ ok: boolean; maxAbsErr: number; firstBad: number }>(ENTRY, 'residualCheck', n, 7, pad);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(r.maxAbsErr).toBe(0);
  });
}

test('a WebGPU validation error is caught by the error scopes', async ({ gpuPage }) => {
  const msg = await gpuPage.run<string>(ENTRY, 'provokeValidationError');
  expect(msg).toContain('WebGPU validation error');
});
