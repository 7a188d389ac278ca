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
      // One optimizer step per minibatch (2 minibatches, 1 epoch), however many rows each has.
      expect(s.optimizerSteps).toBe(2);
      for (const k of ['policyLoss', 'valueLoss', 'clipFrac', 'approxKl', 'gradNorm'])
        expect(Number.isFinite(s[k]), `${algorithm} ${k}`).toBe(true);
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
    gpuPage.run<Array<Record<string, number>>>(ENTRY, 'shortRun', 5, { algorithm: 'grpo', klEstimator: 'k3', ...o }, 2, 32, 1, {
      dropZeroVarianceGroups: false,
    });
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
  type Step = { update: number; shapes: string[]; buffers: number; bindGroups: number; labels: string[] };
  for (const o of [{ algorithm: 'grpo' }, { algorithm: 'ppo', klCoef: 0.1, entCoef: 0.01 }]) {
    const steps = await gpuPage.run<Step[]>(ENTRY, 'stepAllocations', 11, o, 2);
    note(
      `allocations ${JSON.stringify(o)}`,
      steps.map(({ labels: _l, ...s }) => s),
    );
    const first = steps.filter((s) => s.update === 1);
    // 4 minibatches at maxB 2: 4 optimizer steps per update, chunked where a minibatch has > 2 rows.
    expect(first.length, JSON.stringify(o)).toBe(4);
    expect(
      first.some((s) => s.shapes.length >= 2),
      'some step is several chunks',
    ).toBe(true);
    // The first step of a shape prepares the plan (and the head's dispatches) once.
    expect(first[0].bindGroups, 'the counters see the first step preparing its plan').toBeGreaterThan(0);
    const seen = new Set<string>();
    for (const s of steps) {
      const keys = s.shapes.map((k) => `${s.update}|${k}`);
      // Within an update (same advantage source), a step whose chunk shapes were all seen creates nothing.
      if (keys.every((k) => seen.has(k))) {
        expect(
          { buffers: s.buffers, bindGroups: s.bindGroups, labels: s.labels },
          `${JSON.stringify(o)} update ${s.update} ${s.shapes}`,
        ).toEqual({
          buffers: 0,
          bindGroups: 0,
          labels: [],
        });
      }
      for (const k of keys) seen.add(k);
    }
  }
});

test('GRPO drops zero-variance groups: same update as without them, no step when none is left, off / KL / entropy / PPO drop nothing', async ({
  gpuPage,
}) => {
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
  for (const k of ['rows', 'tokens', 'optimizerSteps', 'policyLoss', 'clipFrac', 'approxKl', 'gradNorm'])
    expect(mixed.metrics[k], k).toBe(mixed.onlyMixed[k]);
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

test("seq-mean-token-sum-norm: right-padding a row does not change the GPU head's loss; the default constant is the model's maxT", async ({
  gpuPage,
}) => {
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
  type R = {
    tokens: number;
    optimizerSteps: number;
    skippedSteps: number;
    approxKl: number;
    clipFrac: number;
    klRef: number;
    ratioMin: number;
    ratioMax: number;
  };
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

test('a minibatch larger than maxB is ONE optimizer step (chunks of 3 rows, gradients summed): same gradient, parameters and metrics as one chunk and as the CPU engine', async ({
  gpuPage,
}) => {
  type Err = { maxAbsErr: number; n: number };
  type R = {
    rows: number;
    metrics: Record<'chunked' | 'whole' | 'cpu', Record<string, number>>;
    adamStep: Record<'chunked' | 'whole' | 'cpu', number>;
    grads: { vsWhole: number; vsCpu: number; wholeVsCpu: number };
    params: { vsWhole: Err; vsCpu: Err };
    moved: number;
    headErr: Record<string, number>;
  };
  const cases: Array<[string, Record<string, unknown>]> = [
    // seq-mean-token-mean: S (rows with a token) of the whole step, not of a chunk.
    [
      'grpo seq-mean-token-mean + KL k3 + entropy',
      { algorithm: 'grpo', aggregation: 'seq-mean-token-mean', klCoef: 0.1, klEstimator: 'k3', entCoef: 0.01 },
    ],
    ['ppo token-mean', { algorithm: 'ppo' }],
  ];
  for (const [name, o] of cases) {
    const r = await gpuPage.run<R>(ENTRY, 'chunkedStep', 17, o, 3);
    note(name, { rows: r.rows, grads: r.grads, params: r.params, moved: r.moved, headErr: r.headErr });
    expect(r.rows, `${name}: more rows than 2·maxB`).toBeGreaterThan(6);
    for (const k of ['chunked', 'whole', 'cpu'] as const) {
      expect([r.metrics[k].optimizerSteps, r.metrics[k].skippedSteps, r.adamStep[k]], `${name} ${k}`).toEqual([1, 0, 1]);
    }
    // Gradients: f32, summed in another order (per chunk, then over chunks); the CPU engine's
    // tolerance against its f64 oracle is 1e-4 of max |g|. A step per chunk, or a chunk-local
    // normalizer, is off by O(1).
    expect(r.grads.vsWhole, name).toBeLessThanOrEqual(1e-5);
    expect(r.grads.vsCpu, name).toBeLessThanOrEqual(1e-4);
    expect(r.grads.wholeVsCpu, name).toBeLessThanOrEqual(1e-4);
    // The one AdamW step (lr 1e-3) was taken with that gradient.
    expect(r.moved, name).toBeGreaterThan(0.5e-3);
    expect(r.params.vsWhole.n, name).toBeGreaterThan(1000);
    expect(r.params.vsWhole.maxAbsErr, name).toBeLessThanOrEqual(1e-6);
    expect(r.params.vsCpu.maxAbsErr, name).toBeLessThanOrEqual(1e-6);
    // The head's metrics over the step (rowStats folded over the chunks in order).
    for (const [k, e] of Object.entries(r.headErr)) expect(e, `${name} head metric ${k}`).toBeLessThanOrEqual(1e-5);
    for (const k of ['policyLoss', 'valueLoss', 'clipFrac', 'approxKl', 'klRef', 'gradNorm']) {
      const w = r.metrics.whole[k];
      expect(Math.abs(r.metrics.chunked[k] - w), `${name} ${k} vs whole`).toBeLessThanOrEqual(1e-5 * Math.max(1e-3, Math.abs(w)));
      expect(Math.abs(r.metrics.chunked[k] - r.metrics.cpu[k]), `${name} ${k} vs cpu`).toBeLessThanOrEqual(
        1e-4 * Math.max(1e-3, Math.abs(r.metrics.cpu[k])),
      );
    }
  }
});

test('a NaN in any one chunk of a step skips the whole step (params, moments, AdamW t untouched); the clean step then applies', async ({
  gpuPage,
}) => {
  for (const at of ['first', 'last'] as const) {
    const r = await gpuPage.run<{
      chunks: number;
      skipped: { skipped: boolean; gradScale: number; gradNorm: number; headSkipped: number; nonfiniteMask: number };
      params: { differ: number; n: number };
      m: { differ: number; n: number };
      v: { differ: number; n: number };
      step: number[];
      clean: { skipped: boolean; changed: number };
    }>(ENTRY, 'nonfiniteChunk', 19, at);
    note(`NaN in the ${at} chunk`, r);
    expect(r.chunks, at).toBeGreaterThanOrEqual(3);
    expect(r.skipped.skipped, at).toBe(true);
    expect(r.skipped.gradScale, at).toBe(-1);
    // The NaN sits at a padded position: the gradient is finite, only the head's flag skipped it.
    expect(Number.isFinite(r.skipped.gradNorm) && r.skipped.gradNorm > 0, at).toBe(true);
    expect(r.skipped.headSkipped, at).toBe(1);
    expect(r.skipped.nonfiniteMask, at).toBeGreaterThan(0);
    expect([r.params.differ, r.m.differ, r.v.differ], at).toEqual([0, 0, 0]);
    expect(r.step, at).toEqual([0, 0, 1]);
    expect(r.clean.skipped, at).toBe(false);
    expect(r.clean.changed, at).toBeGreaterThan(1000);
  }
});
