/**
 * Numerics and contracts of the CPU references: stability at extreme logits, masked and fully
 * padded rows, huge/tiny GELU inputs, causal structure, AdamW against a hand-computed step,
 * global norm, and errors that name the bad argument.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/util/rng';
import { encoderForwardRef } from '../../src/reference/encoder_forward.ref';
import { layernormForwardRef } from '../../src/reference/layernorm_forward.ref';
import { matmulForwardRef } from '../../src/reference/matmul_forward.ref';
import { attentionForwardRef } from '../../src/reference/attention_forward.ref';
import { attentionBackwardRef } from '../../src/reference/attention_backward.ref';
import { geluForwardRef } from '../../src/reference/gelu_forward.ref';
import { geluBackwardRef } from '../../src/reference/gelu_backward.ref';
import { logprobForwardRef } from '../../src/reference/logprob_forward.ref';
import { logprobBackwardRef } from '../../src/reference/logprob_backward.ref';
import { crossentropyForwardRef, crossentropyScale } from '../../src/reference/crossentropy_forward.ref';
import { crossentropyBackwardRef } from '../../src/reference/crossentropy_backward.ref';
import { adamwUpdateRef } from '../../src/reference/adamw_update.ref';
import { globalNormForwardRef } from '../../src/reference/global_norm_forward.ref';

const allFinite = (a: ArrayLike<number>) => Array.from(a).every(Number.isFinite);

describe('log-prob and cross-entropy numerics', () => {
  it('logprob is exact and finite at logits ±1e4 (f32)', () => {
    const d = { N: 3, V: 4 };
    const logits = new Float32Array([1e4, -1e4, 0, 1e4 - 1, -1e4, -1e4, -1e4, -1e4, 1e4, 1e4, 1e4, 1e4]);
    const targets = new Int32Array([1, 2, 0]);
    const { logprob, lse } = logprobForwardRef(logits, targets, d);
    expect(allFinite(logprob) && allFinite(lse)).toBe(true);
    // row 0: lse = 1e4 + log(1 + e^-1) ; target 1 → −1e4 − lse
    const lse0 = 1e4 + Math.log(1 + Math.exp(-1));
    expect(lse[0]).toBeCloseTo(Math.fround(lse0), 0);
    expect(logprob[0]).toBeCloseTo(-1e4 - lse0, 0);
    // row 1: all equal → logprob = −log 4 exactly up to f32 rounding of lse
    expect(logprob[1]).toBeCloseTo(-Math.log(4), 2);
    expect(logprob[2]).toBeCloseTo(-Math.log(4), 2);
    const dl = logprobBackwardRef(logits, targets, lse, new Float32Array([1, 1, 1]), d);
    expect(allFinite(dl)).toBe(true);
    // Each row of dlogits sums to 0 (onehot − softmax), up to the f32 rounding of the saved
    // lse: at |lse| ≈ 1e4 its ulp is ~1e-3, i.e. a relative error of ~5e-4 in exp(z − lse).
    for (let i = 0; i < d.N; i++) {
      let s = 0;
      for (let j = 0; j < d.V; j++) s += dl[i * d.V + j];
      expect(Math.abs(s)).toBeLessThan(1e-3);
    }
  });

  it('masked and fully padded rows give exact zeros, an all-masked batch gives 0 not NaN', () => {
    const d = { N: 3, V: 5 };
    const logits = new Float32Array(15).map((_, i) => (i % 2 ? 1e4 : -1e4));
    const targets = new Int32Array([0, 1, 2]);
    const mask = new Float32Array([0, 1, 0]);
    const f = crossentropyForwardRef(logits, targets, mask, d);
    expect(f.loss[0]).toBe(0);
    expect(f.loss[2]).toBe(0);
    expect(f.maskSum).toBe(1);
    expect(Math.abs(f.meanLoss - f.loss[1]) / f.loss[1]).toBeLessThan(1e-7);
    const g = crossentropyBackwardRef(logits, targets, mask, f.lse, crossentropyScale(mask), d);
    for (let j = 0; j < d.V; j++) {
      expect(g[j]).toBe(0);
      expect(g[2 * d.V + j]).toBe(0);
    }
    const none = new Float32Array(3);
    const f0 = crossentropyForwardRef(logits, targets, none, d);
    expect(f0.meanLoss).toBe(0);
    expect(crossentropyScale(none)).toBe(0);
    const g0 = crossentropyBackwardRef(logits, targets, none, f0.lse, crossentropyScale(none), d);
    expect(g0.every((x) => x === 0)).toBe(true);
  });

  it('cross-entropy of uniform logits is log V', () => {
    const d = { N: 2, V: 7 };
    const f = crossentropyForwardRef(new Float64Array(14), new Int32Array([3, 6]), new Float64Array([1, 1]), d);
    expect(f.meanLoss).toBeCloseTo(Math.log(7), 12);
  });
});

describe('attention, layernorm, gelu numerics', () => {
  it('attention probabilities are causal, sum to 1 and stay finite for large scores', () => {
    const rng = new Rng(11);
    const d = { B: 2, T: 6, C: 4, NH: 2 };
    const qkv = new Float32Array(d.B * d.T * 3 * d.C).map(() => rng.normal() * 300);
    const { out, att } = attentionForwardRef(qkv, d);
    expect(allFinite(out) && allFinite(att)).toBe(true);
    for (let bh = 0; bh < d.B * d.NH; bh++) {
      for (let t = 0; t < d.T; t++) {
        let s = 0;
        for (let t2 = 0; t2 < d.T; t2++) {
          const p = att[(bh * d.T + t) * d.T + t2];
          if (t2 > t) expect(p).toBe(0);
          s += p;
        }
        expect(s).toBeCloseTo(1, 5);
      }
    }
    const dq = attentionBackwardRef(new Float32Array(d.B * d.T * d.C).fill(1), qkv, att, d);
    expect(allFinite(dq)).toBe(true);
  });

  it('attention position 0 copies its own value vector', () => {
    const d = { B: 1, T: 3, C: 2, NH: 1 };
    const qkv = new Float64Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
    const { out } = attentionForwardRef(qkv, d);
    expect([out[0], out[1]]).toEqual([5, 6]);
  });

  it('layernorm of a constant row is the bias (finite, var = 0)', () => {
    const { out, rstd } = layernormForwardRef(
      new Float32Array([3, 3, 3, 3]),
      new Float32Array([2, 2, 2, 2]),
      new Float32Array([0.5, -1, 0, 7]),
      { N: 1, C: 4 },
    );
    expect(Array.from(out)).toEqual([0.5, -1, 0, 7]);
    expect(rstd[0]).toBeCloseTo(1 / Math.sqrt(1e-5), 0);
  });

  it('layernorm output has zero mean and unit variance per row (w = 1, b = 0)', () => {
    const rng = new Rng(12);
    const C = 9;
    const inp = new Float64Array(2 * C).map(() => 100 + 10 * rng.normal());
    const { out } = layernormForwardRef(inp, new Float64Array(C).fill(1), new Float64Array(C), { N: 2, C });
    for (let i = 0; i < 2; i++) {
      const row = Array.from(out.subarray(i * C, (i + 1) * C));
      const m = row.reduce((a, b) => a + b, 0) / C;
      const v = row.reduce((a, b) => a + (b - m) ** 2, 0) / C;
      expect(Math.abs(m)).toBeLessThan(1e-12);
      expect(v).toBeCloseTo(1, 5);
    }
  });

  it('gelu: known values, tiny and huge inputs', () => {
    const x = new Float32Array([0, 1, -1, 1e-30, 1e30, -1e30, 3e38, -3e38]);
    const y = geluForwardRef(x);
    expect(y[0]).toBe(0);
    expect(y[1]).toBeCloseTo(0.841192, 5);
    expect(y[2]).toBeCloseTo(-0.158808, 5);
    expect(y[3]).toBeCloseTo(5e-31, 36);
    expect(y[4]).toBe(Math.fround(1e30));
    expect(Math.abs(y[5])).toBe(0);
    expect(y[6]).toBe(Math.fround(3e38));
    expect(Math.abs(y[7])).toBe(0);
    const g = geluBackwardRef(new Float32Array(x.length).fill(1), x);
    expect(Array.from(g.subarray(4))).toEqual([1, 0, 1, 0]);
    expect(g[0]).toBe(0.5);
    expect(g[3]).toBe(0.5);
  });
});

describe('AdamW and global norm', () => {
  it('matches a hand-computed first and second step, with decoupled decay and clipping', () => {
    const hp = { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, step: 1, gradScale: 0.5 };
    const p = new Float64Array([1, -2, 0]);
    const g = new Float64Array([4, -0.2, 0]);
    const m = new Float64Array(3);
    const v = new Float64Array(3);
    adamwUpdateRef(p, g, m, v, hp);
    // Step 1: m̂ = g·s, v̂ = (g·s)², so the Adam part is sign(g)·|gs|/(|gs| + ε).
    const gs = [2, -0.1, 0];
    const want = [1, -2, 0].map((p0, i) => p0 - 0.1 * ((gs[i] === 0 ? 0 : gs[i] / (Math.abs(gs[i]) + 1e-8)) + 0.01 * p0));
    for (let i = 0; i < 3; i++) expect(p[i]).toBeCloseTo(want[i], 12);
    for (let i = 0; i < 3; i++) expect(m[i]).toBeCloseTo(0.1 * gs[i], 15);
    // Step 2 with a zero gradient: m = 0.9·m1, v = 0.999·v1.
    const p1 = Array.from(p);
    adamwUpdateRef(p, new Float64Array(3), m, v, { ...hp, step: 2 });
    const mh = gs.map((x) => (0.9 * 0.1 * x) / (1 - 0.81));
    const vh = gs.map((x) => (0.999 * 0.001 * x * x) / (1 - 0.999 ** 2));
    for (let i = 0; i < 3; i++) {
      expect(p[i]).toBeCloseTo(p1[i] - 0.1 * (mh[i] / (Math.sqrt(vh[i]) + 1e-8) + 0.01 * p1[i]), 12);
    }
  });

  it('rejects bad hyper-parameters by name', () => {
    const a = () => new Float32Array(2);
    const hp = { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, step: 1, gradScale: 1 };
    expect(() => adamwUpdateRef(a(), a(), a(), a(), { ...hp, step: 0 })).toThrow(/step/);
    expect(() => adamwUpdateRef(a(), a(), a(), a(), { ...hp, beta2: 1 })).toThrow(/beta2/);
    expect(() => adamwUpdateRef(a(), new Float32Array(3), a(), a(), hp)).toThrow(/grads/);
  });

  it('global norm and the clipping multiplier', () => {
    const r = globalNormForwardRef(new Float32Array([3, 4, 0]), 1);
    expect(r.sumsq).toBe(25);
    expect(r.norm).toBe(5);
    expect(r.gradScale).toBeCloseTo(1 / (5 + 1e-6), 12);
    expect(globalNormForwardRef(new Float32Array([0.3, 0.4]), 1).gradScale).toBe(1);
    expect(globalNormForwardRef(new Float32Array([3, 4])).gradScale).toBe(1);
    expect(globalNormForwardRef(new Float32Array(0), 1).norm).toBe(0);
  });
});

describe('errors name the bad argument', () => {
  it('size mismatches and out-of-range ids', () => {
    const f = (n: number) => new Float32Array(n);
    expect(() => encoderForwardRef(new Int32Array([0, 5]), f(8), f(8), { B: 1, T: 2, C: 2, V: 4, maxT: 4 })).toThrow(/ids\[1\] = 5/);
    expect(() => encoderForwardRef(new Int32Array(2), f(8), f(6), { B: 1, T: 2, C: 2, V: 4, maxT: 4 })).toThrow(/wpe/);
    expect(() => encoderForwardRef(new Int32Array(5), f(8), f(8), { B: 1, T: 5, C: 2, V: 4, maxT: 4 })).toThrow(/maxT/);
    expect(() => matmulForwardRef(f(6), f(5), f(2), { N: 2, K: 3, M: 2 })).toThrow(/weight/);
    expect(() => matmulForwardRef(f(6), f(6), f(3), { N: 2, K: 3, M: 2 })).toThrow(/bias/);
    expect(() => attentionForwardRef(f(36), { B: 1, T: 2, C: 6, NH: 4 })).toThrow(/NH/);
    expect(() => layernormForwardRef(f(6), f(3), f(2), { N: 2, C: 3 })).toThrow(/\bb\b/);
    expect(() => logprobForwardRef(f(6), new Int32Array([0, 3]), { N: 2, V: 3 })).toThrow(/targets\[1\]/);
    expect(() => crossentropyForwardRef(f(6), new Int32Array(2), new Float32Array([1, -1]), { N: 2, V: 3 })).toThrow(/mask\[1\]/);
    expect(() => crossentropyBackwardRef(f(6), new Int32Array(2), f(2), f(2), Infinity, { N: 2, V: 3 })).toThrow(/scale/);
    expect(() => matmulForwardRef(f(6), f(6), null, { N: 2, K: 3.5, M: 2 })).toThrow(/K must be/);
  });
});
