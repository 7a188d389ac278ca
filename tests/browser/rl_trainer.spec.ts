// The RL trainer's GPU advantages (grpo_advantage / gae / adv_normalize kernels in the training
// step's command buffer) against the CPU references, and short updates (real Chromium WebGPU).
import { test, expect } from './fixtures';

const ENTRY = '/tests/browser/rl_trainer.entry.ts';

type Err = { maxAbsErr: number; refMax: number; n: number };

test('GPU advantages and returns equal the CPU references (GRPO ± std division, PPO GAE ± normalization)', async ({ gpuPage }) => {
  const r = await gpuPage.run<Record<string, { adv: Err; ret?: Err; zeroGroupMax: number }>>(ENTRY, 'advantageOracle', 7);
  console.log(JSON.stringify(r));
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
    console.log(algorithm, JSON.stringify(m));
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
  const run = (o: Record<string, unknown>) => gpuPage.run<Array<Record<string, number>>>(ENTRY, 'shortRun', 5, { algorithm: 'grpo', klEstimator: 'k3', ...o }, 2, 32, 1);
  const base = await run({});
  const kl = await run({ klCoef: 0.1 });
  // entCoef large: near a uniform initial policy the entropy gradient is small.
  const ent = await run({ entCoef: 0.5 });
  console.log(JSON.stringify({ base, kl, ent }));
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
    console.log(JSON.stringify(o), JSON.stringify(steps.map(({ labels: _l, ...s }) => s)));
    const first = steps.filter((s) => s.update === 1);
    expect(first.length, JSON.stringify(o)).toBeGreaterThanOrEqual(4);
    // The first step of a shape prepares the plan (and the head's dispatches) once.
    expect(first[0].bindGroups, 'the counters see the first step preparing its plan').toBeGreaterThan(0);
    const seen = new Set<string>();
    for (const s of steps) {
      const key = `${s.B}:${s.T}`;
      // Within an update (same advantage source), a shape already seen creates nothing.
      if (seen.has(`${s.update}|${key}`)) {
        expect({ buffers: s.buffers, bindGroups: s.bindGroups, labels: s.labels }, `${JSON.stringify(o)} update ${s.update} B=${s.B}`).toEqual({ buffers: 0, bindGroups: 0, labels: [] });
      }
      seen.add(`${s.update}|${key}`);
    }
  }
});
