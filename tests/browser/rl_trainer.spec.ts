// The RL trainer's GPU advantages (grpo_advantage / gae / adv_normalize kernels in the training
// step's command buffer) against the CPU references, and short updates (real Chromium WebGPU).
import { test, expect, note } from './fixtures';

const ENTRY = '/tests/browser/rl_trainer.entry.ts';

type Err = { maxAbsErr: number; refMax: number; n: number };

test('GPU advantages and returns equal the CPU references (GRPO ± std division, PPO GAE ± normalization)', async ({ gpuPage }) => {
  const r = await gpuPage.run<Record<string, { adv: Err; ret?: Err; zeroGroupMax: number }>>(ENTRY, 'advantageOracle', 7);
  note('advantage errors', r);
  expect(Object.keys(r).sort()).toEqual(['grpo', 'grpo-noStd', 'ppo', 'ppo-norm']);
  for (const [name, c] of Object.entries(r)) {
    // f32 on both sides; sums in a different order (group stats, masked whitening): 2e-5 relative.
    expect(c.adv.n, name).toBeGreaterThan(100);
    expect(c.adv.refMax, `${name}: the references are not all zero`).toBeGreaterThan(0.05);
    expect(c.adv.maxAbsErr, name).toBeLessThanOrEqual(2e-5);
    if (name.startsWith('ppo')) expect(c.ret!.maxAbsErr, name).toBeLessThanOrEqual(2e-5);
    else expect(c.zeroGroupMax, `${name}: an all-equal group gets exactly 0`).toBe(0);
  }
});

test('GRPO and PPO updates with GPU advantages run and report finite metrics', async ({ gpuPage }) => {
  for (const algorithm of ['grpo', 'ppo'] as const) {
    const m = await gpuPage.run<Array<Record<string, number>>>(ENTRY, 'shortRun', 3, { algorithm }, 2);
    note(`${algorithm} metrics`, m);
    expect(m).toHaveLength(2);
    for (const s of m) {
      expect(s.skippedSteps).toBe(0);
      expect(s.optimizerSteps).toBeGreaterThanOrEqual(2);
      for (const k of ['policyLoss', 'valueLoss', 'clipFrac', 'approxKl', 'gradNorm']) expect(Number.isFinite(s[k]), `${algorithm} ${k}`).toBe(true);
      expect(s.gradNorm).toBeGreaterThan(0);
    }
    // The second update sees the policy the first one changed.
    expect(m[1].policyLoss).not.toBe(m[0].policyLoss);
  }
});

test('KL to the frozen starting policy and the entropy bonus: 0 KL and no KL gradient at the first step, then > 0', async ({ gpuPage }) => {
  // One optimizer step per update (all rows in one minibatch of maxB = 32), 2 updates, same seed.
  // The zero-variance filter is off: it applies to the base run only (klCoef = entCoef = 0) and
  // would change its token-mean normalizer, so the runs would differ by more than the KL/entropy term.
  const run = (o: Record<string, unknown>) =>
    gpuPage.run<Array<Record<string, number>>>(ENTRY, 'shortRun', 5, { algorithm: 'grpo', klEstimator: 'k3', ...o }, 2, 32, 1, { dropZeroVarianceGroups: false });
  const base = await run({});
  const kl = await run({ klCoef: 0.1 });
  // entCoef large: near a uniform initial policy the entropy gradient is small.
  const ent = await run({ entCoef: 0.5 });
  note('metrics', { base, kl, ent });
  for (const m of [base, kl, ent]) for (const s of m) expect(s.optimizerSteps).toBe(1);
  for (const s of [...kl, ...ent]) {
    expect(s.skippedSteps).toBe(0);
    expect(Number.isFinite(s.klRef) && Number.isFinite(s.gradNorm)).toBe(true);
  }
  // Step 1: π = π_ref (same parameters), so KL = 0 up to f32 rounding, and the k3 gradient
  // 1 − π_ref/π vanishes: the gradient norm equals the KL-free run's (relative 1e-5).
  expect(Math.abs(kl[0].klRef)).toBeLessThanOrEqual(1e-6);
  expect(Math.abs(kl[0].gradNorm - base[0].gradNorm)).toBeLessThanOrEqual(1e-5 * base[0].gradNorm);
  // Step 2: the policy has moved away from the reference.
  expect(kl[1].klRef).toBeGreaterThan(1e-7);
  expect(base[1].klRef).toBe(0);
  // The entropy bonus changes the first step's gradient (no other difference between the runs).
  expect(Math.abs(ent[0].gradNorm - base[0].gradNorm)).toBeGreaterThan(1e-4 * base[0].gradNorm);
});

test('after the first step of a shape, optimizer steps create no GPU buffers or bind groups', async ({ gpuPage }) => {
  type Step = { update: number; B: number; T: number; buffers: number; bindGroups: number; labels: string[] };
  for (const o of [{ algorithm: 'grpo' }, { algorithm: 'ppo', klCoef: 0.1, entCoef: 0.01 }]) {
    const steps = await gpuPage.run<Step[]>(ENTRY, 'stepAllocations', 11, o, 2);
    note(
      `allocations ${JSON.stringify(o)}`,
      steps.map(({ labels: _l, ...s }) => s),
    );
    const first = steps.filter((s) => s.update === 1);
    expect(first.length, JSON.stringify(o)).toBeGreaterThanOrEqual(4);
    // The first step of a shape prepares the plan (and the head's dispatches) once.
    expect(first[0].bindGroups, 'the counters see the first step preparing its plan').toBeGreaterThan(0);
    const seen = new Set<string>();
    for (const s of steps) {
      const key = `${s.B}:${s.T}`;
      // Within an update (same advantage source), a shape already seen creates nothing.
      if (seen.has(`${s.update}|${key}`)) {
        expect({ buffers: s.buffers, bindGroups: s.bindGroups, labels: s.labels }, `${JSON.stringify(o)} update ${s.update} B=${s.B}`).toEqual({
          buffers: 0,
          bindGroups: 0,
          labels: [],
        });
      }
      seen.add(`${s.update}|${key}`);
    }
  }
});

test('GRPO drops zero-variance groups: same update as without them, no step when none is left, off / KL / entropy / PPO drop nothing', async ({ gpuPage }) => {
  type M = Record<string, number>;
  type Diff = { differ: number; n: number };
  const r = await gpuPage.run<{
    mixed: { metrics: M; onlyMixed: M; offAll: M; vsOnlyMixed: Diff; vsInit: Diff; vsOffAll: Diff; cpuEntropyAll: number };
    allEqual: { first: M; metrics: M; params: Diff; m: Diff; v: Diff; adamStep: number[]; mNonZero: boolean; cpuEntropyAll: number };
    off: M;
    kl: M;
    ent: M;
    ppo: M;
  }>(ENTRY, 'zeroVarianceFilter', 13);
  note('zero-variance filter', r);
  const { mixed, allEqual } = r;

  // (a) One constant group dropped: bitwise the update of the mixed group alone (same init, seed).
  expect(mixed.metrics.droppedGroups).toBe(1);
  expect(mixed.onlyMixed.droppedGroups).toBe(0);
  expect(mixed.vsInit.differ, 'the update moved the parameters').toBeGreaterThan(0);
  expect(mixed.vsOnlyMixed).toEqual({ differ: 0, n: mixed.vsInit.n });
  for (const k of ['rows', 'tokens', 'optimizerSteps', 'policyLoss', 'clipFrac', 'approxKl', 'gradNorm']) expect(mixed.metrics[k], k).toBe(mixed.onlyMixed[k]);
  // Without the filter the constant group's rows are trained on (more rows, another normalizer).
  expect(mixed.offAll.droppedGroups).toBe(0);
  expect(mixed.offAll.rows).toBeGreaterThan(mixed.metrics.rows);
  expect(mixed.vsOffAll.differ).toBeGreaterThan(0);
  // Entropy still over every trajectory: the filter-off run's value, the CPU sum, not the kept rows'.
  expect(mixed.metrics.entropy).toBe(mixed.offAll.entropy);
  expect(mixed.metrics.entropy).toBe(mixed.cpuEntropyAll);
  expect(mixed.metrics.entropy).not.toBe(mixed.onlyMixed.entropy);

  // (b) Every group constant: no optimizer step; parameters, moments and AdamW t unchanged.
  expect(allEqual.first.optimizerSteps).toBeGreaterThan(0);
  expect(allEqual.mNonZero, 'the first update left non-zero moments to compare').toBe(true);
  expect(allEqual.metrics).toEqual({
    policyLoss: 0,
    valueLoss: 0,
    clipFrac: 0,
    approxKl: 0,
    klRef: 0,
    gradNorm: 0,
    optimizerSteps: 0,
    skippedSteps: 0,
    rows: 0,
    tokens: 0,
    droppedGroups: 2,
    entropy: allEqual.cpuEntropyAll,
  });
  expect(allEqual.cpuEntropyAll).toBeGreaterThan(0.05);
  expect(allEqual.params.differ).toBe(0);
  expect(allEqual.m.differ).toBe(0);
  expect(allEqual.v.differ).toBe(0);
  expect(allEqual.adamStep[1]).toBe(allEqual.adamStep[0]);
  expect(allEqual.adamStep[0]).toBeGreaterThan(0);

  // (c) Option off: the all-constant batch is trained on as before.
  expect(r.off.droppedGroups).toBe(0);
  expect(r.off.optimizerSteps).toBeGreaterThan(0);
  expect(r.off.rows).toBe(mixed.offAll.rows);

  // (d) KL or entropy terms (non-zero gradient at A = 0) and PPO: nothing dropped.
  for (const [name, m] of [
    ['kl', r.kl],
    ['ent', r.ent],
    ['ppo', r.ppo],
  ] as const) {
    expect(m.droppedGroups, name).toBe(0);
    expect(m.rows, name).toBe(mixed.offAll.rows);
    expect(m.optimizerSteps, name).toBeGreaterThan(0);
  }
});

test("seq-mean-token-sum-norm: right-padding a row does not change the GPU head's loss; the default constant is the model's maxT", async ({ gpuPage }) => {
  const r = await gpuPage.run<{ t8: number; t58: number; t8Norm16: number; t58Norm16: number }>(ENTRY, 'sumNormPadding', 3);
  expect(Number.isFinite(r.t8) && r.t8 !== 0).toBe(true);
  expect(Math.abs(r.t58 - r.t8)).toBeLessThanOrEqual(1e-6 * Math.abs(r.t8));
  expect(Math.abs(r.t58Norm16 - r.t8Norm16)).toBeLessThanOrEqual(1e-6 * Math.abs(r.t8Norm16));
  // null → maxT = 64: loss·64 = (loss with 16)·16
  expect(Math.abs(r.t8 * 64 - r.t8Norm16 * 16)).toBeLessThanOrEqual(1e-5 * Math.abs(r.t8Norm16 * 16));
});

test('rollouts sampled at τ = 1.5 are on-policy for a trainer at τ = 1.5 at the first step (approxKl ≤ 1e-7, |ratio − 1| ≤ 1e-4, klRef ≤ 1e-6); a trainer at τ = 1 is not', async ({
  gpuPage,
}) => {
  type R = { tokens: number; optimizerSteps: number; skippedSteps: number; approxKl: number; clipFrac: number; klRef: number; ratioMin: number; ratioMax: number };
  const on = await gpuPage.run<R>(ENTRY, 'onPolicyAtTemperature', 3, 1.5, 1.5);
  const off = await gpuPage.run<R>(ENTRY, 'onPolicyAtTemperature', 3, 1.5, 1);
  note('τ = 1.5 first step', { on, off });
  expect(on.tokens).toBeGreaterThan(20);
  expect([on.optimizerSteps, on.skippedSteps]).toEqual([1, 0]);
  // Sampler (decode with a KV cache) and training forward differ only by f32 rounding.
  expect(on.approxKl).toBeLessThanOrEqual(1e-7);
  expect(on.clipFrac).toBe(0);
  expect(Math.abs(on.ratioMin - 1)).toBeLessThanOrEqual(1e-4);
  expect(Math.abs(on.ratioMax - 1)).toBeLessThanOrEqual(1e-4);
  // The reference log-probs are scored at the same τ: π = π_ref at step 1.
  expect(Math.abs(on.klRef)).toBeLessThanOrEqual(1e-6);
  expect(off.approxKl).toBeGreaterThan(1e-3);
});
