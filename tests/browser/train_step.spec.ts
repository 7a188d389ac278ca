// The whole GPU training step vs the CPU model (tiny configs, real Chromium WebGPU).
import { test, expect, note } from './fixtures';

const ENTRY = '/tests/browser/train_step.entry.ts';

type Cmp = { ok: boolean; bad: string[]; maxAbsErr: number; refMax: number; atol: number; rtol: number };

test('one training step (1 submit, 1 readback): loss, grad norm, every gradient and the AdamW update match the CPU model', async ({
  gpuPage,
}) => {
  const r = await gpuPage.run<{
    loss: { gpu: number; cpu: number };
    tokens: number;
    norm: { gpu: number; cpu: number };
    gradScale: { gpu: number; cpu: number };
    grads: Cmp;
    params: Cmp;
    counters: { submits: number; readbacks: number; dispatches: number };
  }>(ENTRY, 'gradientCheck', 21);
  note('gradient check', {
    loss: r.loss,
    norm: r.norm,
    gradScale: r.gradScale,
    grads: { maxAbsErr: r.grads.maxAbsErr, refMax: r.grads.refMax },
    params: { maxAbsErr: r.params.maxAbsErr },
  });
  // Loss and norm: f32 reductions in different orders, relative 1e-5.
  expect(Math.abs(r.loss.gpu - r.loss.cpu)).toBeLessThanOrEqual(1e-5 * Math.abs(r.loss.cpu));
  expect(r.tokens).toBe(11 + 6); // rows of length 12, 7, 1 score 11 + 6 + 0 tokens
  expect(Math.abs(r.norm.gpu - r.norm.cpu)).toBeLessThanOrEqual(1e-4 * r.norm.cpu);
  expect(Math.abs(r.gradScale.gpu - r.gradScale.cpu)).toBeLessThanOrEqual(1e-4 * r.gradScale.cpu);
  expect(r.grads.ok, JSON.stringify(r.grads)).toBe(true);
  expect(r.params.ok, JSON.stringify(r.params)).toBe(true);
  expect(r.counters.submits).toBe(1);
  expect(r.counters.readbacks).toBe(1);
  // Submits and maps counted independently by wrapping queue.submit and GPUBuffer.mapAsync.
  const c = await gpuPage.run<{
    perStep: Array<{ submits: number; maps: number }>;
    counters: { submits: number; readbacks: number };
    dispatches: number;
  }>(ENTRY, 'submitCount', 3);
  note('counters', c);
  for (const s of c.perStep) {
    expect(s.submits).toBe(1);
    expect(s.maps).toBe(1);
  }
  expect(c.dispatches).toBeGreaterThan(20);
  // A non-finite gradient norm: the step throws and nothing changes.
  const nf = await gpuPage.run<{ message: string; changed: number; momentsZero: boolean; step: number }>(ENTRY, 'nonFiniteCheck');
  expect(nf.message).toContain('skipped, parameters and moments unchanged');
  expect(nf.changed).toBe(0);
  expect(nf.momentsZero).toBe(true);
  expect(nf.step).toBe(0);
});

test("a loss head's skip flag makes the step a true no-op (params, m, v, t and the LR schedule untouched)", async ({ gpuPage }) => {
  const r = await gpuPage.run<{
    afterSkip: { skipped: boolean; gradScale: number; step: number; changedParams: number; nonzeroMoments: number };
    applied: { skipped: boolean; step: number; changedParams: number };
    lrCalls: number[];
    vsFresh: { params: number; m: number; v: number };
  }>(ENTRY, 'skipFlagCheck');
  note('result', r);
  expect(r.afterSkip).toEqual({ skipped: true, gradScale: -1, step: 0, changedParams: 0, nonzeroMoments: 0 });
  expect(r.applied.skipped).toBe(false);
  expect(r.applied.step).toBe(1);
  expect(r.applied.changedParams).toBeGreaterThan(1000);
  expect(r.lrCalls).toEqual([1, 1]); // the skipped step did not advance the schedule
  expect(r.vsFresh).toEqual({ params: 0, m: 0, v: 0 }); // bit-identical to never having seen it
});

test('determinism: same seed, same adapter → bit-identical params and moments after 5 steps', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ words: number; mismatches: number; changed: number; losses1: number[] }>(ENTRY, 'determinismCheck', 5, 5);
  expect(r.words).toBeGreaterThan(10_000);
  expect(r.changed, 'training moved the parameters').toBeGreaterThan(r.words / 6);
  expect(r.mismatches).toBe(0);
});

test('a tiny model overfits a fixed corpus on GPU and CPU with matching loss curves', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ gpu: number[]; cpu: number[] }>(ENTRY, 'overfitCheck', 9, 40);
  note('losses', { gpu: r.gpu.map((x) => +x.toFixed(4)), cpu: r.cpu.map((x) => +x.toFixed(4)) });
  let maxDiff = 0;
  r.gpu.forEach((x, i) => (maxDiff = Math.max(maxDiff, Math.abs(x - r.cpu[i]))));
  note('max |gpu − cpu| loss', maxDiff);
  expect(r.gpu[0]).toBeGreaterThan(3.5); // ≈ ln 64 = 4.16 at init
  // Bound: below 0.15 nats/token after 40 steps (from ≈ 4.16); curves within 1e-3 nats.
  expect(r.gpu[r.gpu.length - 1]).toBeLessThan(0.15);
  expect(r.cpu[r.cpu.length - 1]).toBeLessThan(0.15);
  expect(maxDiff).toBeLessThan(1e-3);
});
