// A length-bias suspect ("the surrogate loss sits at ≈ +0.09 every step: with
// token-mean aggregation, failed episodes (longer) outweigh the rare success, so tokens shared by
// both get a net negative push"), checked on a constructed GRPO group through the real row
// builder, advantage estimator and CPU loss (the one the CPU engine trains with; the WGSL kernels
// match it in every mode, tests/browser/rl_kernels.spec.ts): one short success and three long
// failures whose actions share a 3-token prefix after the same context.
//
// Finding: token-mean gives every valid token of a step the same weight 1/N, so the net push on a
// shared prefix token (the same context, once per episode) is −(1/N)·Σ_e A_e = 0 because GRPO's
// advantages sum to zero over a group; Dr. GRPO's seq-mean-token-sum-norm (weight 1/(S·L_max))
// is the same direction scaled by N/(S·L_max), so it gives none either. The aggregation with a
// length bias is seq-mean-token-mean (original GRPO, weight 1/(S·n_b)): the short success
// outweighs the long failures, a net positive push (Liu et al. 2025 §3.1). The positive loss
// value at ρ = 1, −(1/N)·Σ_e A_e·n_e, only says that failures are longer; it is not a gradient.
import { describe, expect, it } from 'vitest';
import { rlLossConfig } from '../../src/rl/config';
import { grpoAdvantages } from '../../src/rl/advantages';
import { rlStepRef } from '../../src/rl/loss_ref';
import { buildRows, type TrajectoryLike } from '../../src/rl/trainer_batch';
import type { LossAggregation } from '../../src/reference/rl_math';

const CONTEXT = Int32Array.of(1, 2, 3, 4);
const PREFIX = [10, 11, 12];
const L_MAX = 16;

/** One episode of group 0: the shared prefix, then `tail` ids; log π_old = −1 per sampled id. */
function episode(reward: number, tail: number[]): TrajectoryLike {
  const actionIds = Int32Array.from([...PREFIX, ...tail]);
  return {
    group: 0,
    reward,
    terminated: true,
    truncated: false,
    turns: [{ contextIds: CONTEXT, actionIds, logprobs: new Float32Array(actionIds.length).fill(-1) }],
  };
}

// One short success (4 sampled ids), three long failures (11 each).
const trajs = [
  episode(1, [20]),
  episode(0, [30, 31, 32, 33, 34, 35, 36, 37]),
  episode(0, [40, 41, 42, 43, 44, 45, 46, 47]),
  episode(0, [50, 51, 52, 53, 54, 55, 56, 57]),
];

/** ∂L/∂ℓ of every (B,T) position at ρ = 1 (ℓ = ℓ_old), the loss, and the rows, under `aggregation`. */
function lossAt(aggregation: LossAggregation) {
  const cfg = rlLossConfig({ algorithm: 'grpo', aggregation, tokenSumNorm: L_MAX });
  const rows = buildRows(trajs, 0, 64);
  const adv = grpoAdvantages(trajs, rows, cfg);
  const batch = {
    B: rows.B,
    T: rows.T,
    logprobs: Float64Array.from(rows.oldLogprobs),
    oldLogprobs: Float64Array.from(rows.oldLogprobs),
    advantages: Float64Array.from(adv.advantages),
    mask: Float64Array.from(rows.mask),
  };
  const { outputs, metrics } = rlStepRef([batch], cfg);
  return { rows, adv, dlogprob: outputs[0].dlogprob, loss: metrics.policyLoss };
}

/**
 * Net push on each shared prefix token: −Σ over rows of ∂L/∂ℓ at its position (every row has the
 * same ids before it, so the same logits and the same parameter gradient direction); > 0 raises
 * its probability under gradient descent.
 */
function sharedPush(r: ReturnType<typeof lossAt>): number[] {
  const { B, T } = r.rows;
  return PREFIX.map((_, j) => {
    let s = 0;
    for (let b = 0; b < B; b++) s -= r.dlogprob[b * T + CONTEXT.length - 1 + j];
    return s;
  });
}

describe('length bias of the loss aggregation (Dr. GRPO, Liu et al. 2025) on one short success and three long failures', () => {
  const tm = lossAt('token-mean');
  const dr = lossAt('seq-mean-token-sum-norm');
  const sm = lossAt('seq-mean-token-mean');
  const scale = Math.max(...Array.from(tm.dlogprob, Math.abs));

  it('the premises: the rows share the prefix positions, and the group advantages sum to 0', () => {
    expect(tm.rows.B).toBe(4);
    const { T } = tm.rows;
    for (let b = 0; b < 4; b++)
      for (let j = 0; j < PREFIX.length; j++) expect(tm.rows.targets[b * T + CONTEXT.length - 1 + j]).toBe(PREFIX[j]);
    const A = Array.from(tm.adv.episodeAdvantages!);
    expect(A[0]).toBeGreaterThan(0);
    for (const a of A.slice(1)) expect(a).toBeLessThan(0);
    expect(Math.abs(A.reduce((s, a) => s + a, 0))).toBeLessThan(1e-6);
    expect(scale).toBeGreaterThan(0);
  });

  it('token-mean: the loss at ρ = 1 is positive (failures are longer), yet the shared tokens get no net push', () => {
    // L = −(1/N)·Σ_e A_e·n_e > 0: the observed ≈ +0.09 is this length–advantage covariance.
    expect(tm.loss).toBeGreaterThan(0.05);
    for (const p of sharedPush(tm)) expect(Math.abs(p)).toBeLessThan(1e-6 * scale);
  });

  it("Dr. GRPO's seq-mean-token-sum-norm: the same gradient direction as token-mean (scaled by N/(S·L_max)), so no net push either", () => {
    const N = 4 + 3 * 11;
    const ratio = N / (4 * L_MAX);
    for (let i = 0; i < tm.dlogprob.length; i++) expect(Math.abs(dr.dlogprob[i] - ratio * tm.dlogprob[i])).toBeLessThan(1e-9 * scale);
    for (const p of sharedPush(dr)) expect(Math.abs(p)).toBeLessThan(1e-6 * scale);
  });

  it('seq-mean-token-mean (original GRPO, 1/|o| per sequence): the short success outweighs, a net positive push on the shared tokens', () => {
    for (const p of sharedPush(sm)) expect(p).toBeGreaterThan(0.01 * scale);
  });
});
