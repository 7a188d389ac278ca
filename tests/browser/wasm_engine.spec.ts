// The CPU engine in real Chromium: threads are Web Workers over a shared WebAssembly.Memory
// (the page is cross-origin isolated), and 2 threads give bit-identical gradients to 1; the
// backend choice on SwiftShader: 'auto' takes the CPU engine and says why.
import { test, expect } from './fixtures';

const ENTRY = '/tests/browser/wasm_engine.entry.ts';

test('CPU engine on Web Workers: 2 threads = 1 thread bit for bit (gradients of a padded batch)', async ({ gpuPage }) => {
  const r = await gpuPage.run<any>(ENTRY, 'gradsByThreads');
  expect(r.crossOriginIsolated).toBe(true);
  expect(r.nonzero).toBeGreaterThan(r.P / 2);
  expect(r.identical).toBe(true);
});

test("backend 'auto' on a software adapter picks the CPU engine and names the reason; 'webgpu' and 'wasm' force one", async ({
  gpuPage,
}) => {
  const r = await gpuPage.run<any>(ENTRY, 'backendChoices');
  expect(r.wasm.kind).toBe('wasm');
  expect(r.wasm.describe).toMatch(/CPU engine \(WebAssembly SIMD, \d+ threads?\)/);
  expect(r.webgpu.kind).toBe('webgpu');
  expect(r.webgpu.describe).toContain('swiftshader');
  expect(r.auto.kind).toBe('wasm');
  expect(r.auto.reason).toContain('software');
});

test('CPU engine logprob kernels at the rollout temperature (τ = 1, 1.5, 0.7) on Web Workers match their references and 2 threads = 1', async ({
  gpuPage,
}) => {
  for (const tau of [1, 1.5, 0.7]) {
    const r = await gpuPage.run<{ logpErr: number; dlogitsErr: number; identical: boolean }>(ENTRY, 'logprobAtTemperature', tau);
    // Errors in units of the stated tolerance (logp: 1e-5 + 1e-5·|ref|; dlogits: 1e-6 + 1e-4·|ref|).
    expect(r.logpErr, `τ = ${tau}`).toBeLessThan(1);
    expect(r.dlogitsErr, `τ = ${tau}`).toBeLessThan(1);
    expect(r.identical, `τ = ${tau}`).toBe(true);
  }
});
