// Invariances of the RL loss references: micro-batching (every aggregation mode), padding,
// the first minibatch (ρ = 1, clip fraction 0), and non-finite inputs flagging the step.
import { describe, expect, it } from 'vitest';
import { makeRlBatch, padBatch, sliceRows, toF32 } from '../browser/lib/rl_batch';
import { rlLossConfig, type RlLossConfig } from '../../src/rl/config';
import type { LossAggregation } from '../../src/reference/rl_math';
import { rlStepRef, type RlBatch } from '../../src/rl/loss_ref';
import { NONFINITE, RL_METRIC_NAMES } from '../../src/reference/rl_metrics';

const MODES: LossAggregation[] = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'];
const full = (aggregation: LossAggregation): RlLossConfig =>
  rlLossConfig({
    algorithm: 'ppo',
    aggregation,
    dualClip: 3,
    klCoef: 0.1,
    klEstimator: 'k3',
    entCoef: 0.01,
    vfCoef: 0.5,
    tokenSumNorm: 16,
  });

function concat(parts: Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, o), (o += p.length);
  return out;
}

function expectClose(a: ArrayLike<number>, b: ArrayLike<number>, tol: number, what: string): void {
  expect(a.length, what).toBe(b.length);
  for (let i = 0; i < a.length; i++)
    expect(Math.abs(a[i] - b[i]), `${what}[${i}]: ${a[i]} vs ${b[i]}`).toBeLessThanOrEqual(tol * (1 + Math.abs(b[i])));
}

function expectSameMetrics(a: Record<string, number>, b: Record<string, number>, tol: number): void {
  for (const k of RL_METRIC_NAMES)
    expect(Math.abs(a[k] - b[k]), `metric ${k}: ${a[k]} vs ${b[k]}`).toBeLessThanOrEqual(tol * (1 + Math.abs(b[k])));
}

describe.each(MODES)('%s', (mode) => {
  const cfg = full(mode);
  const batch = makeRlBatch(3, 8, 12, { V: 5 });
  const whole = rlStepRef([batch], cfg);

  it.each([2, 4])('the step gradient and metrics are the same in %i micro-batches', (k) => {
    const per = batch.B / k;
    const parts = Array.from({ length: k }, (_, i) => sliceRows(batch, i * per, (i + 1) * per));
    const split = rlStepRef(parts, cfg);
    expect(split.norm).toEqual(whole.norm);
    expectClose(concat(split.outputs.map((o) => o.dlogprob)), whole.outputs[0].dlogprob, 1e-14, 'dlogprob');
    expectClose(concat(split.outputs.map((o) => o.dvalues!)), whole.outputs[0].dvalues!, 1e-14, 'dvalues');
    expectClose(concat(split.outputs.map((o) => o.dlogitsEntropy!)), whole.outputs[0].dlogitsEntropy!, 1e-14, 'dlogits');
    expectSameMetrics(split.metrics, whole.metrics, 1e-12);
  });

  it('a per-micro-batch token count would NOT give the same gradient (the test can fail)', () => {
    const parts = [sliceRows(batch, 0, 3), sliceRows(batch, 3, 8)];
    const local = parts.map((p) => rlStepRef([p], cfg).outputs[0].dlogprob);
    const diff = concat(local).some((v, i) => Math.abs(v - whole.outputs[0].dlogprob[i]) > 1e-9);
    expect(diff).toBe(true);
  });

  it('padding columns and all-padding rows change nothing', () => {
    const padded = padBatch(batch, 5, 3, 99);
    const p = rlStepRef([padded], cfg);
    expectSameMetrics(p.metrics, whole.metrics, 1e-12);
    const T2 = padded.T;
    const g = p.outputs[0];
    const w = whole.outputs[0];
    for (let b = 0; b < padded.B; b++) {
      for (let t = 0; t < T2; t++) {
        const i = b * T2 + t;
        const inside = b < batch.B && t < batch.T;
        const j = b * batch.T + t;
        expect(g.dlogprob[i]).toBe(inside ? w.dlogprob[j] : 0);
        expect(g.dvalues![i]).toBe(inside ? w.dvalues![j] : 0);
      }
    }
  });
});

describe('first minibatch of an update (ℓ = ℓ_old)', () => {
  it('every ratio is 1 and the clip fractions are 0, in f64 and in f32 storage', () => {
    const b64 = makeRlBatch(5, 6, 16, { drift: 0 });
    for (const b of [b64, toF32(b64)] as RlBatch[]) {
      const m = rlStepRef([b], rlLossConfig({ dualClip: 2 })).metrics;
      expect(m.clipFracLow + m.clipFracHigh + m.dualClipFrac).toBe(0);
      expect(m.ratioMin).toBe(1);
      expect(m.ratioMax).toBe(1);
      expect(m.approxKl).toBe(0);
    }
  });
});

describe('non-finite inputs mark the step skipped', () => {
  const cfg = full('token-mean');
  it.each([
    ['logprobs', NONFINITE.logprobs, NaN],
    ['oldLogprobs', NONFINITE.oldLogprobs, Infinity],
    ['values', NONFINITE.values, -Infinity],
    ['returns', NONFINITE.returns, NaN],
    ['refLogprobs', NONFINITE.refLogprobs, NaN],
    ['logits', NONFINITE.logits, Infinity],
  ] as const)('%s (also at a padded position)', (key, bit, bad) => {
    for (const where of ['valid', 'padding'] as const) {
      const b = makeRlBatch(8, 4, 10, { V: 3 });
      const x = b[key]!;
      const i = (where === 'valid' ? b.mask.findIndex((m) => m > 0) : b.mask.indexOf(0)) * (key === 'logits' ? 3 : 1);
      x[i] = bad;
      const m = rlStepRef([b], cfg).metrics;
      expect(m.skipped).toBe(1);
      expect(m.nonfiniteMask).toBe(bit);
    }
  });
  it('a clean step is not skipped; rewards flagged upstream are reported', () => {
    const b = makeRlBatch(8, 4, 10, { V: 3 });
    expect(rlStepRef([b], cfg).metrics.skipped).toBe(0);
    expect(rlStepRef([b], cfg, NONFINITE.rewards).metrics.nonfiniteMask).toBe(NONFINITE.rewards);
  });
});

describe('seq-mean-token-sum-norm: a constant normalizer, never the padded length', () => {
  const cfg = rlLossConfig({ algorithm: 'grpo', aggregation: 'seq-mean-token-sum-norm', tokenSumNorm: null });
  const batch = makeRlBatch(5, 4, 10, { V: 5 });
  it('right-padding by 50 leaves the loss unchanged (the policy maxT is the constant when none is given)', () => {
    const a = rlStepRef([batch], cfg, 0, 64);
    const b = rlStepRef([padBatch(batch, 50, 0, 7)], cfg, 0, 64);
    expect(a.norm.tokenSumNorm).toBe(64);
    expect(b.norm.tokenSumNorm).toBe(64);
    expect(Math.abs(b.metrics.policyLoss - a.metrics.policyLoss)).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(a.metrics.policyLoss)));
    expect(a.metrics.policyLoss).not.toBe(0);
    // An explicit constant (the spec's maximum response length) wins, and scales the loss by it.
    const c = rlStepRef([batch], { ...cfg, tokenSumNorm: 16 }, 0, 64);
    expect(c.metrics.policyLoss * 16).toBeCloseTo(a.metrics.policyLoss * 64, 10);
  });
  it('without a constant or a maxT it refuses instead of using T', () => {
    expect(() => rlStepRef([batch], cfg)).toThrow(/needs a constant normalizer/);
    // The other modes do not use it.
    expect(() => rlStepRef([batch], { ...cfg, aggregation: 'token-mean' })).not.toThrow();
  });
});
