// Pretraining in real Chromium WebGPU: the GPU SFT loop follows the CPU reference on the same
// demonstration batches, and the page-side `hlab pretrain` produces a verifiable checkpoint.
import { test, expect, note } from './fixtures';

const ENTRY = '/tests/browser/pretrain_sft.entry.ts';

test('GPU SFT matches the CPU model step for step on demonstration rows and lowers the loss', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ gpu: number[]; cpu: number[]; rows: number }>(ENTRY, 'gpuVsCpu');
  note('losses', { rows: r.rows, gpu: r.gpu.map((x) => +x.toFixed(4)), cpu: r.cpu.map((x) => +x.toFixed(4)) });
  expect(r.gpu.length).toBe(12);
  let maxDiff = 0;
  r.gpu.forEach((x, i) => (maxDiff = Math.max(maxDiff, Math.abs(x - r.cpu[i]))));
  // f32 reductions in different orders over 12 AdamW steps: within 2e-3 nats/token.
  expect(maxDiff).toBeLessThan(2e-3);
  expect(r.gpu[11]).toBeLessThan(r.gpu[0] - 1);
});

test('page-side pretraining writes a checkpoint whose digest verifies, and evaluates greedily', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ backend: string; steps: number; losses: number[]; digest: string; verified: string; evalEpisodes: number; passAt1: number }>(ENTRY, 'toyPretrain');
  note('result', r);
  expect(r.backend).toBe('gpu');
  expect(r.losses.length).toBe(3);
  expect(r.verified).toBe(r.digest);
  expect(r.evalEpisodes).toBe(1);
  expect(r.passAt1).toBeGreaterThanOrEqual(0);
});
