// Finite-difference checks (f64) of every backward reference of the RL loss, all aggregation
// modes: surrogate (with dual clip), KL k1/k2/k3, clipped value loss, entropy.
import { describe, expect, it } from 'vitest';
import { makeRlBatch } from '../browser/lib/rl_batch';
import { stepNormalizer, clampLogRatio } from '../../src/reference/rl_math';
import type { LossAggregation, KlEstimator } from '../../src/reference/rl_math';
import { surrogateForwardRef } from '../../src/reference/surrogate_forward.ref';
import { surrogateBackwardRef } from '../../src/reference/surrogate_backward.ref';
import { klForwardRef } from '../../src/reference/kl_forward.ref';
import { klBackwardRef } from '../../src/reference/kl_backward.ref';
import { valueLossForwardRef } from '../../src/reference/value_loss_forward.ref';
import { valueLossBackwardRef } from '../../src/reference/value_loss_backward.ref';
import { entropyForwardRef } from '../../src/reference/entropy_forward.ref';
import { entropyBackwardRef } from '../../src/reference/entropy_backward.ref';

const MODES: LossAggregation[] = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'];
const H = 1e-6;

/** Central difference of f at x[i]; x restored. */
function fd(x: Float64Array, i: number, f: () => number): number {
  const x0 = x[i];
  x[i] = x0 + H;
  const up = f();
  x[i] = x0 - H;
  const dn = f();
  x[i] = x0;
  return (up - dn) / (2 * H);
}

/** Compare analytic and numeric gradients at every index where `skip(i)` is false. */
function expectGrad(x: Float64Array, grad: Float64Array, f: () => number, skip: (i: number) => boolean = () => false): number {
  let checked = 0;
  for (let i = 0; i < x.length; i++) {
    if (skip(i)) continue;
    const num = fd(x, i, f);
    expect(Math.abs(grad[i] - num), `index ${i}: analytic ${grad[i]} vs numeric ${num}`).toBeLessThanOrEqual(1e-7 + 1e-5 * Math.abs(num));
    checked++;
  }
  return checked;
}

describe.each(MODES)('finite differences, %s', (aggregation) => {
  const b = makeRlBatch(11, 5, 9, { V: 6, drift: 0.4 });
  const d = { B: b.B, T: b.T };
  const norm = stepNormalizer(b.mask, b.B, b.T, 7);
  it.each([null, 1.3])('surrogate_backward (dual clip %s)', (dualClip) => {
    const p = { aggregation, norm, clipLow: 0.2, clipHigh: 0.28, dualClip };
    const g = surrogateBackwardRef(b.logprobs, b.oldLogprobs, b.advantages, b.mask, d, p);
    const f = () => surrogateForwardRef(b.logprobs, b.oldLogprobs, b.advantages, b.mask, d, p).loss;
    // skip tokens within 1e-4 of a kink (ρ at a clip edge or at the dual-clip cap)
    const kinks = [0.8, 1.28, ...(dualClip ? [dualClip] : [])];
    const near = (i: number) => kinks.some((k) => Math.abs(Math.exp(b.logprobs[i] - b.oldLogprobs[i]) - k) < 1e-4);
    const n = expectGrad(b.logprobs, g, f, near);
    expect(n).toBeGreaterThan(30);
    // some tokens are clipped (zero gradient) and some are not: both branches are exercised
    const valid = g.filter((_, i) => b.mask[i] > 0);
    expect(valid.some((x) => x === 0) && valid.some((x) => x !== 0)).toBe(true);
  });
  it.each(['k1', 'k2', 'k3'] as KlEstimator[])('kl_backward %s', (estimator) => {
    const p = { aggregation, norm, estimator };
    const g = klBackwardRef(b.logprobs, b.refLogprobs!, b.mask, d, p, 0.7);
    const f = () => 0.7 * klForwardRef(b.logprobs, b.refLogprobs!, b.mask, d, p).loss;
    expectGrad(b.logprobs, g, f);
  });
  it.each([80, -80, 25, 0.3, -19.9])('kl_backward k3 at x = log π_ref/π = %s: finite, 0 beyond the ±20 clamp', (x) => {
    const lp = Float64Array.from([0]);
    const ref = Float64Array.from([x]);
    const m = Float64Array.from([1]);
    const p = { aggregation, norm: stepNormalizer(m, 1, 1, 3), estimator: 'k3' as const };
    const g = klBackwardRef(lp, ref, m, { B: 1, T: 1 }, p, 1);
    expect(Number.isFinite(g[0])).toBe(true);
    if (!clampLogRatio(x).inside) expect(g[0] + 0).toBe(0);
    // one token per check: the loss at x = 80 is ≈ 4.9e8, too large to difference beside others
    expectGrad(lp, g, () => klForwardRef(lp, ref, m, { B: 1, T: 1 }, p).loss);
  });
  it.each([null, 0.2])('value_loss_backward (ε_v %s)', (vfClip) => {
    const p = { aggregation, norm, vfClip };
    const g = valueLossBackwardRef(b.values!, b.oldValues!, b.returns!, b.mask, d, p, 0.5);
    const f = () => 0.5 * valueLossForwardRef(b.values!, b.oldValues!, b.returns!, b.mask, d, p).loss;
    const near = (i: number) => vfClip !== null && Math.abs(Math.abs(b.values![i] - b.oldValues![i]) - vfClip) < 1e-4;
    expectGrad(b.values!, g, f, near);
  });
  it('entropy_backward', () => {
    const V = b.vocab!;
    const p = { aggregation, norm, entCoef: 0.05 };
    const e = entropyForwardRef(b.logits!, b.mask, { ...d, V }, p);
    const g = entropyBackwardRef(b.logits!, e.lse, e.entropy, e.dentropy, { N: b.B * b.T, V });
    // L = −entCoef·Σ w·H
    const f = () => -0.05 * entropyForwardRef(b.logits!, b.mask, { ...d, V }, p).loss;
    expectGrad(b.logits!, g, f);
  });
  it.each([0.5, 1.5])('entropy_backward at temperature τ = %s (H of softmax(z/τ))', (tau) => {
    const V = b.vocab!;
    const p = { aggregation, norm, entCoef: 0.05, temperature: tau };
    const e = entropyForwardRef(b.logits!, b.mask, { ...d, V }, p);
    // H at τ is the τ = 1 entropy of z/τ, and differs from it at τ = 1.
    const scaled = entropyForwardRef(
      b.logits!.map((z) => z / tau),
      b.mask,
      { ...d, V },
      { ...p, temperature: 1 },
    );
    const plain = entropyForwardRef(b.logits!, b.mask, { ...d, V }, { ...p, temperature: 1 });
    expect(e.loss).toBeCloseTo(scaled.loss, 10);
    expect(Math.abs(e.loss - plain.loss)).toBeGreaterThan(1e-3);
    const g = entropyBackwardRef(b.logits!, e.lse, e.entropy, e.dentropy, { N: b.B * b.T, V }, tau);
    const f = () => -0.05 * entropyForwardRef(b.logits!, b.mask, { ...d, V }, p).loss;
    expectGrad(b.logits!, g, f);
  });
});
