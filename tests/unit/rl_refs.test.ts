// Hand-computed cases of the RL references (docs/ARCHITECTURE.md "RL objective"): clipped surrogate, GRPO groups, GAE,
// value clipping, KL estimators, advantage whitening, metric accumulation.
import { describe, expect, it } from 'vitest';
import { ClipState, k3, klEstimate, surrogateToken, valueLossToken, ratio, rowWeight, stepNormalizer } from '../../src/reference/rl_math';
import { grpoAdvantageForwardRef } from '../../src/reference/grpo_advantage_forward.ref';
import { gaeForwardRef } from '../../src/reference/gae_forward.ref';
import { advNormalizeForwardRef } from '../../src/reference/adv_normalize_forward.ref';
import { surrogateForwardRef } from '../../src/reference/surrogate_forward.ref';
import { klForwardRef } from '../../src/reference/kl_forward.ref';
import { entropyForwardRef } from '../../src/reference/entropy_forward.ref';
import { nonfiniteCheckRef } from '../../src/reference/nonfinite_check.ref';
import { rlAccInit, rlMetricsAccumulateRef, rlMetricsFinalizeRef } from '../../src/reference/rl_metrics_forward.ref';
import { METRIC, NONFINITE, ROW, ROW_STATS, decodeRlMetrics, nonfiniteSources } from '../../src/reference/rl_metrics';
import { rlLossConfig } from '../../src/rl/config';

const clip = { clipLow: 0.2, clipHigh: 0.28, dualClip: null };

describe('clipped surrogate, per token (ε_low 0.2, ε_high 0.28)', () => {
  // [ρ, A, dual c, loss, ∂l/∂ρ, state]
  const cases: Array<[number, number, number | null, number, number, ClipState]> = [
    [1, 1, null, -1, -1, ClipState.None],
    [1.2, 2, null, -2.4, -2, ClipState.None], // inside the band
    [1.28, 1, null, -1.28, -1, ClipState.None], // on the upper edge: a tie counts as unclipped
    [1.25, 1, null, -1.25, -1, ClipState.None], // A > 0, 1+ε_low < ρ ≤ 1+ε_high: inside the band (ε_low does not bound A > 0)
    [1.5, 1, null, -1.28, 0, ClipState.High], // A > 0, ρ above 1+ε_high: clipped
    [0.5, 1, null, -0.5, -1, ClipState.None], // A > 0, ρ below the band: min picks ρ·A, not clipped
    [0.5, -1, null, 0.8, 0, ClipState.Low], // A < 0, ρ below 1−ε_low: clipped
    [1.5, -1, null, 1.5, 1, ClipState.None], // A < 0, ρ above the band: unclipped (the dual clip's case)
    [1.5, -1, 3, 1.5, 1, ClipState.None], // dual clip on, cap −c·A = 3 not reached
    [4, -1, 3, 3, 0, ClipState.Dual], // dual clip on: capped at 3
    [4, -1, null, 4, 1, ClipState.None], // dual clip off: unbounded
    [4, 1, 3, -1.28, 0, ClipState.High], // dual clip never applies where A > 0
    [0.7, 0, 3, 0, 0, ClipState.None], // A = 0
  ];
  it.each(cases)('ρ=%s A=%s c=%s → l=%s, ∂l/∂ρ=%s, state %s', (rho, a, c, loss, drho, state) => {
    const s = surrogateToken(rho, a, { ...clip, dualClip: c });
    expect(s.loss).toBeCloseTo(loss, 12);
    expect(s.drho + 0).toBeCloseTo(drho, 12);
    expect(s.state).toBe(state);
  });

  it('aggregates with step-global weights and counts clip states per row', () => {
    // Row 0: ρ = 1.5 (A=1, high), ρ = 0.5 (A=−1, low), masked garbage; row 1: ρ = 1 (A=2).
    const lp = Float64Array.from([Math.log(1.5), Math.log(0.5), 123, 0]);
    const old = new Float64Array(4);
    const adv = Float64Array.from([1, -1, 99, 2]);
    const mask = Float64Array.from([1, 1, 0, 1]);
    const d = { B: 2, T: 2 };
    const norm = stepNormalizer(mask, 2, 2, 2);
    expect(norm).toEqual({ globalTokens: 3, globalSeqs: 2, tokenSumNorm: 2 });
    const r = surrogateForwardRef(lp, old, adv, mask, d, { ...clip, aggregation: 'token-mean', norm });
    // token losses −1.28, 0.8, −2 → mean −2.48/3
    expect(r.loss).toBeCloseTo(-2.48 / 3, 12);
    expect(r.rowStats[ROW.CLIP_HIGH]).toBe(1);
    expect(r.rowStats[ROW.CLIP_LOW]).toBe(1);
    expect(r.rowStats[ROW_STATS + ROW.TOKENS]).toBe(1);
    const sm = surrogateForwardRef(lp, old, adv, mask, d, { ...clip, aggregation: 'seq-mean-token-mean', norm });
    expect(sm.loss).toBeCloseTo(((-1.28 + 0.8) / 2 + -2) / 2, 12);
    const sn = surrogateForwardRef(lp, old, adv, mask, d, {
      ...clip,
      aggregation: 'seq-mean-token-sum-norm',
      norm: { ...norm, tokenSumNorm: 10 },
    });
    expect(sn.loss).toBeCloseTo((-1.28 + 0.8 - 2) / (2 * 10), 12);
  });

  it('counts clip states in the band between the two clip ranges correctly', () => {
    // (ρ, A): (1.25, 1) is inside (1+ε_lo, 1+ε_hi]: not clipped; (1.3, 1) high; (0.75, −1) low.
    const rho = [1.25, 1.3, 0.75, 0.85, 1.25, 0.75];
    const adv = Float64Array.from([1, 1, -1, -1, -1, 1]);
    const mask = new Float64Array(6).fill(1);
    const norm = stepNormalizer(mask, 1, 6, 6);
    const r = surrogateForwardRef(
      Float64Array.from(rho, Math.log),
      new Float64Array(6),
      adv,
      mask,
      { B: 1, T: 6 },
      { ...clip, aggregation: 'token-mean', norm },
    );
    expect([r.rowStats[ROW.CLIP_LOW], r.rowStats[ROW.CLIP_HIGH], r.rowStats[ROW.DUAL_CLIP]]).toEqual([1, 1, 0]);
    expect(r.tokenLoss[0]).toBeCloseTo(-1.25, 12);
  });

  it('rowWeight is 0, never NaN, for an empty step', () => {
    const z = { globalTokens: 0, globalSeqs: 0, tokenSumNorm: 4 };
    for (const m of ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const) expect(rowWeight(m, 0, z)).toBe(0);
  });
});

describe('ratios', () => {
  it('are exactly 1 when ℓ = ℓ_old (first minibatch)', () => {
    for (const lp of [-0.1, -7.25, -30, 5]) expect(ratio(lp, lp).rho).toBe(1);
  });
  it('clamp the log-ratio at ±20', () => {
    expect(ratio(80, 0).rho).toBeCloseTo(Math.exp(20), 0);
    expect(ratio(-80, 0).rho).toBeCloseTo(Math.exp(-20), 20);
    expect(ratio(1, 0).rho).toBeCloseTo(Math.E, 14);
  });
});

describe('GRPO group advantages', () => {
  const p = { stdFloor: 1e-6, eps: 1e-6, noStdDivision: false };
  const one = (rewards: number[], opts = p) => {
    const E = rewards.length;
    const mask = new Float64Array(E).fill(1);
    return grpoAdvantageForwardRef(
      Float64Array.from(rewards),
      Int32Array.from([0, E]),
      Int32Array.from(rewards.map((_, i) => i)),
      mask,
      { B: E, T: 1 },
      opts,
    );
  };
  it.each([
    ['all equal', [1, 1, 1, 1]],
    ['all zeros', [0, 0, 0, 0]],
    ['non-dyadic constant 0.1 (mean rounds off 0.1)', [0.1, 0.1, 0.1]],
    ['near-constant, std 5e-10 under the floor', [0.3, 0.3, 0.3, 0.3 + 1e-9]],
    ['a group of one', [0.7]],
  ])('%s → exactly 0', (_name, rewards) => {
    for (const noStdDivision of [false, true]) {
      const r = one(rewards as number[], { ...p, noStdDivision });
      for (const a of r.episodeAdvantages) expect(a).toBe(0);
    }
  });
  it('one success in 4: unbiased std 0.5', () => {
    const r = one([1, 0, 0, 0]);
    expect(r.groupMean[0]).toBeCloseTo(0.25, 15);
    expect(r.groupStd[0]).toBeCloseTo(0.5, 15);
    expect(r.episodeAdvantages[0]).toBeCloseTo(0.75 / 0.500001, 12);
    expect(r.episodeAdvantages[1]).toBeCloseTo(-0.25 / 0.500001, 12);
    const dr = one([1, 0, 0, 0], { ...p, noStdDivision: true });
    expect(Array.from(dr.episodeAdvantages)).toEqual([0.75, -0.25, -0.25, -0.25]);
  });
  it('non-dyadic rewards just above the floor are not zeroed', () => {
    const r = one([0.1, 0.1, 0.1 + 1e-4], { ...p, stdFloor: 1e-5 });
    expect(r.groupStd[0]).toBeCloseTo(1e-4 / Math.sqrt(3), 10);
    expect(r.episodeAdvantages[2]).toBeCloseTo(2e-4 / 3 / (1e-4 / Math.sqrt(3) + 1e-6), 6);
  });
  it('broadcasts to the policy tokens of every row of the episode, per group', () => {
    // groups {e0, e1} and {e2, e3}; rows: e0, e1 (two rows: a history rewrite), e2, e3.
    const rewards = Float64Array.from([1, 0, 2, 2]);
    const rowEpisode = Int32Array.from([0, 1, 1, 2, 3]);
    const mask = Float64Array.from([0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1]);
    const r = grpoAdvantageForwardRef(rewards, Int32Array.from([0, 2, 4]), rowEpisode, mask, { B: 5, T: 3 }, p);
    const a = 0.5 / (Math.SQRT1_2 + 1e-6);
    const want = [0, a, a, -a, 0, -a, -a, 0, -a, 0, 0, 0, 0, 0, 0];
    r.advantages.forEach((v, i) => expect(v).toBeCloseTo(want[i], 12));
  });
  it('names the bad field', () => {
    const m = new Float64Array(2).fill(1);
    expect(() =>
      grpoAdvantageForwardRef(Float64Array.from([1, 0]), Int32Array.from([0, 3]), Int32Array.from([0, 1]), m, { B: 2, T: 1 }, p),
    ).toThrow(/groupOffsets\[1\] = 3/);
    expect(() =>
      grpoAdvantageForwardRef(Float64Array.from([1, 0]), Int32Array.from([0, 2]), Int32Array.from([0, 2]), m, { B: 2, T: 1 }, p),
    ).toThrow(/rowEpisode\[1\] = 2/);
  });
});

describe('GAE over policy tokens only', () => {
  // Row 0: policy tokens at t = 1, 2, 5 (values 1, 2, 3); masked values 9 are garbage and must be
  // ignored. Row 1 has no policy token. Reward 1 on the last policy token.
  const mask = Float64Array.from([0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
  const values = Float64Array.from([9, 1, 2, 9, 9, 3, 9, 9, 9, 9, 9, 9]);
  const rewards = Float64Array.from([1, 5]);
  const run = (gamma: number, lambda: number, truncated: number) =>
    gaeForwardRef(
      rewards,
      values,
      mask,
      Float64Array.from([4, 4]),
      Float64Array.from([truncated, truncated]),
      { B: 2, T: 6 },
      { gamma, lambda },
    );
  const at = (x: Float64Array) => [x[1], x[2], x[5]];
  it.each([
    // γ, λ, truncated, A at the 3 policy tokens, R there
    [0.5, 0.5, 0, [-0.25, -1, -2], [0.75, 1, 1]],
    [0.5, 0.5, 1, [-0.125, -0.5, 0], [0.875, 1.5, 3]], // bootstraps from nextValue 4
    [0, 0.5, 0, [-1, -2, -2], [0, 0, 1]], // γ = 0: one-step, the reward only on the last token
    [0, 0.5, 1, [-1, -2, -2], [0, 0, 1]], // γ = 0: the bootstrap is discounted away
    [1, 1, 0, [0, -1, -2], [1, 1, 1]], // γ = λ = 1: Monte-Carlo return r − V
    [1, 1, 1, [4, 3, 2], [5, 5, 5]], // γ = λ = 1, truncated: r + V_next − V
  ])('γ=%s λ=%s truncated=%s', (g, l, tr, adv, ret) => {
    const r = run(g as number, l as number, tr as number);
    at(r.advantages).forEach((v, i) => expect(v).toBeCloseTo((adv as number[])[i], 14));
    at(r.returns).forEach((v, i) => expect(v).toBeCloseTo((ret as number[])[i], 14));
    // masked tokens and the empty row carry nothing
    for (const i of [0, 3, 4, 6, 7, 8, 9, 10, 11]) expect(r.advantages[i] + r.returns[i]).toBe(0);
  });
  it('terminated ignores nextValue', () => {
    const a = gaeForwardRef(
      rewards,
      values,
      mask,
      Float64Array.from([4, 0]),
      Float64Array.from([0, 0]),
      { B: 2, T: 6 },
      { gamma: 0.9, lambda: 0.8 },
    );
    const b = gaeForwardRef(
      rewards,
      values,
      mask,
      Float64Array.from([-100, 0]),
      Float64Array.from([0, 0]),
      { B: 2, T: 6 },
      { gamma: 0.9, lambda: 0.8 },
    );
    expect(Array.from(a.advantages)).toEqual(Array.from(b.advantages));
  });
});

describe('advantage whitening', () => {
  it('uses the valid tokens only (unbiased std)', () => {
    const r = advNormalizeForwardRef(Float64Array.from([1, 100, 3, -50]), Float64Array.from([1, 0, 1, 0]), { B: 2, T: 2 }, 1e-8);
    expect(r.mean).toBe(2);
    expect(r.std).toBeCloseTo(Math.SQRT2, 14);
    expect(r.advantages[0]).toBeCloseTo(-1 / (Math.SQRT2 + 1e-8), 12);
    expect(r.advantages[1]).toBe(0);
    expect(r.advantages[3]).toBe(0);
  });
});

describe('value loss clipping (ε_v 0.2, V_old 1, R 2)', () => {
  it.each([
    // V, V_old, R, ε_v, loss, ∂l/∂V, clipped
    [1.1, 1, 2, 0.2, 0.405, -0.9, false], // inside the band: both branches agree
    [1.5, 1, 2, 0.2, 0.32, 0, true], // outside, toward R: the clipped (larger) loss, gradient 0
    [0.5, 1, 2, 0.2, 1.125, -1.5, false], // outside, away from R: the unclipped loss is larger
    [2.5, 1, 2, 0.2, 0.32, 0, true], // overshoot past R
    [1.5, 1, 2, null, 0.125, -0.5, false], // no clipping
  ])('V=%s V_old=%s R=%s ε_v=%s', (v, vo, r, e, loss, dv, clipped) => {
    const o = valueLossToken(v as number, vo as number, r as number, e as number | null);
    expect(o.loss).toBeCloseTo(loss as number, 14);
    expect(o.dv).toBeCloseTo(dv as number, 14);
    expect(o.clipped).toBe(clipped);
  });
});

describe('KL estimators at x = log π_ref/π ∈ {0, ±1e-6, ±80}', () => {
  const xs = [0, 1e-6, -1e-6, 80, -80];
  it.each(xs)('x = %s', (x) => {
    const k1 = klEstimate('k1', 0, x);
    const k2 = klEstimate('k2', 0, x);
    const k3e = klEstimate('k3', 0, x);
    expect(k1.value + 0).toBe(-x + 0);
    expect(k1.dlogp).toBe(1);
    expect(k2.value).toBe(0.5 * x * x);
    expect(k2.dlogp + 0).toBe(-x + 0);
    expect(k3e.value).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(k3e.value) && Number.isFinite(k3e.dlogp)).toBe(true);
  });
  it('k3 values: 0, x²/2 near 0, clamped at ±20', () => {
    expect(k3(0).value).toBe(0);
    expect(k3(1e-6).value).toBeCloseTo(5e-13 + 1e-18 / 6, 24);
    expect(k3(-1e-6).value).toBeCloseTo(5e-13 - 1e-18 / 6, 24);
    expect(k3(80).value).toBeCloseTo(Math.exp(20) - 21, 3);
    expect(k3(-80).value).toBeCloseTo(Math.exp(-20) + 19, 12);
    expect(k3(80).dx).toBe(0); // outside the clamp: zero gradient, not e^80
    expect(klEstimate('k3', 0, 1e-6).dlogp).toBeCloseTo(-(1e-6 + 5e-13), 18);
  });
  it('kl_forward in f32 storage stays ≥ 0 and finite at the extremes', () => {
    const lp = new Float32Array(5);
    const ref = Float32Array.from(xs);
    const mask = new Float32Array(5).fill(1);
    const norm = stepNormalizer(mask, 1, 5, 5);
    const r = klForwardRef(lp, ref, mask, { B: 1, T: 5 }, { aggregation: 'token-mean', norm, estimator: 'k3' });
    for (const v of r.tokenKl) expect(v >= 0 && Number.isFinite(v)).toBe(true);
  });
});

describe('entropy', () => {
  it('is log V for uniform logits, 0 for a one-hot limit, finite at |z| = 1e4, valid tokens only', () => {
    const V = 4;
    const logits = Float64Array.from([0, 0, 0, 0, 1e4, -1e4, 0, 0, 7, 7, 7, 7]);
    const mask = Float64Array.from([1, 1, 0]);
    const norm = stepNormalizer(mask, 1, 3, 3);
    const r = entropyForwardRef(logits, mask, { B: 1, T: 3, V }, { aggregation: 'token-mean', norm, entCoef: 0.01 });
    expect(r.entropy[0]).toBeCloseTo(Math.log(4), 14);
    expect(r.entropy[1]).toBeCloseTo(0, 12);
    expect(r.entropy[2]).toBe(0);
    expect(r.rowStats[ROW.ENT_SUM]).toBeCloseTo(Math.log(4), 14);
    expect(r.dentropy[0]).toBeCloseTo(-0.01 / 2, 15);
    expect(r.dentropy[2]).toBe(0);
  });
});

describe('non-finite detection and metrics', () => {
  it('flags NaN and ±Inf, not large finite values', () => {
    expect(nonfiniteCheckRef(Float32Array.from([1, 3.4e38, -3.4e38]), 4)).toBe(0);
    expect(nonfiniteCheckRef(Float32Array.from([1, NaN]), 4)).toBe(4);
    expect(nonfiniteCheckRef(Float32Array.from([-Infinity]), 2)).toBe(2);
    expect(nonfiniteSources(NONFINITE.rewards | NONFINITE.values)).toEqual(['rewards', 'values']);
  });
  it('accumulate + finalize: Chan-merged moments equal the pooled ones, skip flag reported', () => {
    const rows = new Float64Array(3 * ROW_STATS);
    const data = [[1, 2, 3], [], [10, -4]];
    data.forEach((xs, b) => {
      const n = xs.length;
      const mean = n ? xs.reduce((s, x) => s + x, 0) / n : 0;
      rows[b * ROW_STATS + ROW.TOKENS] = n;
      rows[b * ROW_STATS + ROW.SEQS] = n ? 1 : 0;
      rows[b * ROW_STATS + ROW.ADV_MEAN] = mean;
      rows[b * ROW_STATS + ROW.ADV_M2] = xs.reduce((s, x) => s + (x - mean) ** 2, 0);
      rows[b * ROW_STATS + ROW.RATIO_MIN] = n ? 1 - b / 10 : 3.4e38;
      rows[b * ROW_STATS + ROW.RATIO_MAX] = n ? 1 + b / 10 : -3.4e38;
    });
    const acc = rlAccInit();
    rlMetricsAccumulateRef(acc, rows, 3);
    const cfg = rlLossConfig();
    const m = decodeRlMetrics(rlMetricsFinalizeRef(acc, NONFINITE.values, cfg));
    const all = [1, 2, 3, 10, -4];
    const mu = all.reduce((s, x) => s + x, 0) / 5;
    expect(m.advMean).toBeCloseTo(mu, 14);
    expect(m.advStd).toBeCloseTo(Math.sqrt(all.reduce((s, x) => s + (x - mu) ** 2, 0) / 4), 13);
    expect(m.tokens).toBe(5);
    expect(m.sequences).toBe(2);
    expect(m.ratioMin).toBeCloseTo(0.8, 15);
    expect(m.ratioMax).toBeCloseTo(1.2, 15);
    expect(m.skipped).toBe(1);
    expect(m.nonfiniteMask).toBe(NONFINITE.values);
    expect(rlMetricsFinalizeRef(acc, 0, cfg)[METRIC.skipped]).toBe(0);
  });
});

describe('RlLossConfig', () => {
  it('names the bad field', () => {
    expect(() => rlLossConfig({ clipLow: -0.1 })).toThrow(/clipLow = -0.1/);
    expect(() => rlLossConfig({ dualClip: 0.5 })).toThrow(/dualClip = 0.5/);
    expect(() => rlLossConfig({ aggregation: 'mean' as never })).toThrow(/aggregation = mean/);
    expect(() => rlLossConfig({ klEstimator: 'k4' as never })).toThrow(/klEstimator = k4/);
    expect(() => rlLossConfig({ gamma: 1.5 })).toThrow(/gamma = 1.5/);
    expect(rlLossConfig().clipHigh).toBe(0.28);
  });
});
