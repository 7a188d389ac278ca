// The RL kernels in real Chromium WebGPU against their CPU references (tolerances stated in
// rl_kernels.entry.ts beside each comparison), and the loss head's invariances.
import { test, expect } from './fixtures';
import type { Check } from './rl_kernels.entry';

const ENTRY = '/tests/browser/rl_kernels.entry.ts';
const MODES = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const;

function expectAll(checks: Check[]): void {
  expect(checks.length).toBeGreaterThan(0);
  for (const c of checks) expect(c.ok, `${c.name}: ${JSON.stringify(c)}`).toBe(true);
}

test('GRPO, GAE and advantage whitening kernels match their references', async ({ gpuPage }) => {
  expectAll(await gpuPage.run<Check[]>(ENTRY, 'advantageKernels', 21));
});

test('surrogate, KL, value and entropy kernels match their references (every aggregation mode); KL at log-ratios 0, ±1e-6, ±80 is finite, k3 ≥ 0', async ({
  gpuPage,
}) => {
  expectAll(await gpuPage.run<Check[]>(ENTRY, 'lossKernels', 22, MODES));
  const r = await gpuPage.run<{ checks: Check[]; k3: number[]; dk3: number[] }>(ENTRY, 'klExtremes');
  expectAll(r.checks);
  for (const v of r.k3) expect(Number.isFinite(v) && v >= 0).toBe(true);
  for (const g of r.dk3) expect(Number.isFinite(g)).toBe(true);
  expect(r.k3[0]).toBe(0);
});

test('the RL launchers check their views: a buffer too small or an offset is an error naming the tensor', async ({ gpuPage }) => {
  const errors = await gpuPage.run<string[]>(ENTRY, 'launcherViewChecks');
  expect(errors[0]).toMatch(/surrogate_forward: rowStats needs elements \[0, 48\)/);
  expect(errors[1]).toMatch(/surrogate_backward: mask\.offset must be 0/);
});

test('first minibatch: every ratio is 1 (|ρ − 1| ≤ 2⁻²³) and the clip fractions are 0', async ({ gpuPage }) => {
  const r = await gpuPage.run<{ metrics: Record<string, number>; refMetrics: Record<string, number> }>(ENTRY, 'firstMinibatch', 23);
  for (const m of [r.metrics, r.refMetrics]) {
    expect(m.clipFracLow).toBe(0);
    expect(m.clipFracHigh).toBe(0);
    expect(m.dualClipFrac).toBe(0);
    expect(Math.abs(m.ratioMin - 1)).toBeLessThanOrEqual(2 ** -23);
    expect(Math.abs(m.ratioMax - 1)).toBeLessThanOrEqual(2 ** -23);
    expect(m.skipped).toBe(0);
  }
  expect(r.metrics.gradNorm).toBe(2.5);
});

test("the step's gradients and metrics are the same whole or in 2 or 4 micro-batches, and padding changes nothing (every aggregation mode)", async ({
  gpuPage,
}) => {
  expectAll(await gpuPage.run<Check[]>(ENTRY, 'microBatchInvariance', 24, MODES));
  expectAll(await gpuPage.run<Check[]>(ENTRY, 'paddingInvariance', 25, MODES));
});

test('NaN/Inf in rewards, log-probs, values or logits (valid or padded) marks the step skipped', async ({ gpuPage }) => {
  const r = await gpuPage.run<{
    raw: Array<{ value: string; flag: number }>;
    steps: Array<{ source: string; where: string; skipped: number; mask: number; want: number }>;
    clean: number;
  }>(ENTRY, 'nonfiniteDetection', 26);
  const flagged = Object.fromEntries(r.raw.map((x) => [x.value, x.flag !== 0]));
  expect(flagged).toEqual({
    NaN: true,
    '+Inf': true,
    '-Inf': true,
    F32_MAX: false,
    '-F32_MAX': false,
    denormal: false,
    '-0': false,
    '1': false,
  });
  expect(r.steps.length).toBe(17);
  for (const s of r.steps) {
    expect(s.skipped, `${s.source} at ${s.where}`).toBe(1);
    expect(s.mask, `${s.source} at ${s.where}`).toBe(s.want);
  }
  expect(r.clean).toBe(0);
});
