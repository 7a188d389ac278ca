// Pretraining in real Chromium WebGPU: the GPU SFT loop follows the CPU reference on the same
// demonstration batches, and the page-side `hlab pretrain` produces a verifiable checkpoint.
import { test, expect, note } from './fixtures';
import type { toyPretrain } from './pretrain_sft.entry';

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

test('page-side pretraining writes a checkpoint whose digest verifies, evaluates greedily and reports typed progress', async ({
  gpuPage,
}) => {
  const r = await gpuPage.run<Awaited<ReturnType<typeof toyPretrain>>>(ENTRY, 'toyPretrain');
  note('result', r);
  // logEvery 2 of 3 steps: the first, every second and the last step; each carries that step's loss.
  const steps = r.events.filter((e) => e.type === 'pretrainStep');
  expect(steps.map((e) => [e.progress.step, e.steps])).toEqual([
    [1, 3],
    [2, 3],
    [3, 3],
  ]);
  expect(steps.map((e) => e.progress.loss)).toEqual(r.losses);
  const notes = r.events.filter((e) => e.type === 'pretrainNote').map((e) => e.message);
  expect(notes[0]).toMatch(/^\d+ expert episodes .* model tiny P=\d+ maxT=\d+$/);
  expect(notes.at(-1)).toMatch(/^greedy pass@1 \d\.\d{3}, valid actions/);
  expect(r.backend).toBe('gpu');
  expect(r.losses.length).toBe(3);
  expect(r.verified).toBe(r.digest);
  expect(r.evalEpisodes).toBe(1);
  expect(r.passAt1).toBeGreaterThanOrEqual(0);
});
