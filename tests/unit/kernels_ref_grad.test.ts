/**
 * Finite-difference checks of every backward CPU reference (src/reference/*.ref.ts).
 *
 * Each op is run in f64 (the references accept Float64Array), with a scalar probe loss
 * L = Σ r ⊙ out for a random r; the analytic gradient from the backward reference (with
 * dout = r) is compared coordinate by coordinate with central differences
 * (L(x + h) − L(x − h)) / 2h, h = 1e-5, within 1e-6 + 1e-5·|fd|. Sizes are small and odd.
 * Accumulating outputs start from non-zero buffers so the accumulate contract is checked too.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/util/rng';
import { encoderForwardRef } from '../../src/reference/encoder_forward.ref';
import { encoderBackwardRef } from '../../src/reference/encoder_backward.ref';
import { layernormForwardRef } from '../../src/reference/layernorm_forward.ref';
import { layernormBackwardRef } from '../../src/reference/layernorm_backward.ref';
import { matmulForwardRef } from '../../src/reference/matmul_forward.ref';
import { matmulBackwardRef } from '../../src/reference/matmul_backward.ref';
import { attentionForwardRef } from '../../src/reference/attention_forward.ref';
import { attentionBackwardRef } from '../../src/reference/attention_backward.ref';
import { geluForwardRef } from '../../src/reference/gelu_forward.ref';
import { geluBackwardRef } from '../../src/reference/gelu_backward.ref';
import { logprobForwardRef } from '../../src/reference/logprob_forward.ref';
import { logprobBackwardRef } from '../../src/reference/logprob_backward.ref';
import { crossentropyForwardRef, crossentropyScale } from '../../src/reference/crossentropy_forward.ref';
import { crossentropyBackwardRef } from '../../src/reference/crossentropy_backward.ref';

const H = 1e-5;
const ATOL = 1e-6;
const RTOL = 1e-5;

function randn(rng: Rng, n: number, std = 1): Float64Array {
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = rng.normal() * std;
  return a;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * Compare `analytic` with central differences of `loss` w.r.t. every coordinate of `x`
 * (x is perturbed in place and restored). Returns the worst |analytic − fd|.
 */
function checkGrad(name: string, x: Float64Array, loss: () => number, analytic: ArrayLike<number>): number {
  expect(analytic.length, `${name} length`).toBe(x.length);
  let worst = 0;
  for (let i = 0; i < x.length; i++) {
    const x0 = x[i];
    x[i] = x0 + H;
    const lp = loss();
    x[i] = x0 - H;
    const lm = loss();
    x[i] = x0;
    const fd = (lp - lm) / (2 * H);
    const err = Math.abs(analytic[i] - fd);
    worst = Math.max(worst, err);
    if (err > ATOL + RTOL * Math.abs(fd)) {
      throw new Error(`${name}[${i}]: analytic ${analytic[i]} vs finite difference ${fd} (err ${err})`);
    }
  }
  return worst;
}

/** acc-after − acc-before: what a backward added to an accumulating buffer. */
function added(after: Float64Array, before: Float64Array): Float64Array {
  return after.map((v, i) => v - before[i]);
}

describe('finite-difference gradients of the CPU references (f64)', () => {
  it('the checker itself rejects a gradient that is off by 0.1%', () => {
    const rng = new Rng(10);
    const inp = randn(rng, 9);
    const r = randn(rng, 9);
    const loss = () => dot(r, geluForwardRef(inp));
    const g = geluBackwardRef(r, inp);
    expect(() =>
      checkGrad(
        'dinp',
        inp,
        loss,
        g.map((x) => x * 1.001),
      ),
    ).toThrow(/finite difference/);
    expect(checkGrad('dinp', inp, loss, g)).toBeLessThan(1e-8);
  });

  it('encoder: dwte, dwpe (accumulate; repeated ids)', () => {
    const rng = new Rng(1);
    const d = { B: 2, T: 3, C: 5, V: 4, maxT: 7 };
    const ids = new Int32Array([1, 3, 1, 0, 1, 2]);
    const wte = randn(rng, d.V * d.C);
    const wpe = randn(rng, d.maxT * d.C);
    const r = randn(rng, d.B * d.T * d.C);
    const loss = () => dot(r, encoderForwardRef(ids, wte, wpe, d));
    const dwte0 = randn(rng, d.V * d.C);
    const dwpe0 = randn(rng, d.maxT * d.C);
    const g = encoderBackwardRef(r, ids, d, { dwte: dwte0.slice(), dwpe: dwpe0.slice() });
    checkGrad('dwte', wte, loss, added(g.dwte, dwte0));
    checkGrad('dwpe', wpe, loss, added(g.dwpe, dwpe0));
  });

  it('layernorm: dinp, dw, db (accumulate)', () => {
    const rng = new Rng(2);
    const d = { N: 3, C: 7 };
    const inp = randn(rng, d.N * d.C, 2);
    const w = randn(rng, d.C);
    const b = randn(rng, d.C);
    const r = randn(rng, d.N * d.C);
    const loss = () => dot(r, layernormForwardRef(inp, w, b, d).out);
    const { mean, rstd } = layernormForwardRef(inp, w, b, d);
    const acc0 = { dinp: randn(rng, d.N * d.C), dw: randn(rng, d.C), db: randn(rng, d.C) };
    const g = layernormBackwardRef(r, inp, w, mean, rstd, d, {
      dinp: acc0.dinp.slice(),
      dw: acc0.dw.slice(),
      db: acc0.db.slice(),
    });
    checkGrad('dinp', inp, loss, added(g.dinp, acc0.dinp));
    checkGrad('dw', w, loss, added(g.dw, acc0.dw));
    checkGrad('db', b, loss, added(g.db, acc0.db));
  });

  it('matmul with bias: dinp (write), dweight, dbias (accumulate)', () => {
    const rng = new Rng(3);
    const d = { N: 5, K: 3, M: 7 };
    const inp = randn(rng, d.N * d.K);
    const weight = randn(rng, d.M * d.K);
    const bias = randn(rng, d.M);
    const r = randn(rng, d.N * d.M);
    const loss = () => dot(r, matmulForwardRef(inp, weight, bias, d));
    const dw0 = randn(rng, d.M * d.K);
    const db0 = randn(rng, d.M);
    const g = matmulBackwardRef(r, inp, weight, d, { dweight: dw0.slice(), dbias: db0.slice() });
    checkGrad('dinp', inp, loss, g.dinp);
    checkGrad('dweight', weight, loss, added(g.dweight, dw0));
    checkGrad('dbias', bias, loss, added(g.dbias as Float64Array, db0));
  });

  it('matmul without bias (tied lm head)', () => {
    const rng = new Rng(4);
    const d = { N: 3, K: 4, M: 9 };
    const inp = randn(rng, d.N * d.K);
    const weight = randn(rng, d.M * d.K);
    const r = randn(rng, d.N * d.M);
    const loss = () => dot(r, matmulForwardRef(inp, weight, null, d));
    const g = matmulBackwardRef(r, inp, weight, d, { dweight: new Float64Array(d.M * d.K), dbias: null });
    expect(g.dbias).toBeNull();
    checkGrad('dinp', inp, loss, g.dinp);
    checkGrad('dweight', weight, loss, g.dweight);
  });

  it('attention: dqkv (B=2, T=5, C=6, NH=2)', () => {
    const rng = new Rng(5);
    const d = { B: 2, T: 5, C: 6, NH: 2 };
    const qkv = randn(rng, d.B * d.T * 3 * d.C);
    const r = randn(rng, d.B * d.T * d.C);
    const loss = () => dot(r, attentionForwardRef(qkv, d).out);
    const { att } = attentionForwardRef(qkv, d);
    checkGrad('dqkv', qkv, loss, attentionBackwardRef(r, qkv, att, d));
  });

  it('attention: dqkv with one head and T=1', () => {
    const rng = new Rng(6);
    for (const d of [
      { B: 1, T: 1, C: 3, NH: 1 },
      { B: 3, T: 4, C: 3, NH: 3 },
    ]) {
      const qkv = randn(rng, d.B * d.T * 3 * d.C, 1.5);
      const r = randn(rng, d.B * d.T * d.C);
      const loss = () => dot(r, attentionForwardRef(qkv, d).out);
      checkGrad('dqkv', qkv, loss, attentionBackwardRef(r, qkv, attentionForwardRef(qkv, d).att, d));
    }
  });

  it('gelu: dinp over [-6, 6]', () => {
    const rng = new Rng(7);
    const inp = new Float64Array(41).map((_, i) => -6 + 0.3 * i + 0.01 * rng.normal());
    const r = randn(rng, inp.length);
    const loss = () => dot(r, geluForwardRef(inp));
    checkGrad('dinp', inp, loss, geluBackwardRef(r, inp));
  });

  it('logprob: dlogits, including a row with dlogprob = 0', () => {
    const rng = new Rng(8);
    const d = { N: 4, V: 11 };
    const logits = randn(rng, d.N * d.V, 3);
    const targets = new Int32Array([0, 10, 5, 5]);
    const r = randn(rng, d.N);
    r[2] = 0;
    const loss = () => dot(r, logprobForwardRef(logits, targets, d).logprob);
    const { lse } = logprobForwardRef(logits, targets, d);
    const g = logprobBackwardRef(logits, targets, lse, r, d);
    checkGrad('dlogits', logits, loss, g);
    for (let j = 0; j < d.V; j++) expect(g[2 * d.V + j]).toBe(0);
  });

  it.each([0.5, 1.5])('logprob at temperature τ = %s: dlogits = (onehot − softmax(z/τ))·dlogprob/τ, and ℓ = log softmax(z/τ)[a]', (tau) => {
    const rng = new Rng(18);
    const d = { N: 4, V: 11 };
    const logits = randn(rng, d.N * d.V, 3);
    const targets = new Int32Array([0, 10, 5, 5]);
    const r = randn(rng, d.N);
    r[2] = 0;
    const loss = () => dot(r, logprobForwardRef(logits, targets, d, tau).logprob);
    const { lse, logprob } = logprobForwardRef(logits, targets, d, tau);
    // ℓ at τ equals the τ = 1 log-prob of the scaled logits z/τ.
    const scaled = logprobForwardRef(
      logits.map((z) => z / tau),
      targets,
      d,
    ).logprob;
    for (let i = 0; i < d.N; i++) expect(logprob[i]).toBeCloseTo(scaled[i], 12);
    const g = logprobBackwardRef(logits, targets, lse, r, d, tau);
    checkGrad('dlogits', logits, loss, g);
    for (let j = 0; j < d.V; j++) expect(g[2 * d.V + j]).toBe(0);
    expect(() => logprobForwardRef(logits, targets, d, 0)).toThrow(/temperature must be finite, > 0 and ≤ 10, got 0/);
    expect(() => logprobBackwardRef(logits, targets, lse, r, d, NaN)).toThrow(/temperature .* got NaN/);
  });

  it('crossentropy: token-mean loss with a fractional and a zero mask', () => {
    const rng = new Rng(9);
    const d = { N: 5, V: 7 };
    const logits = randn(rng, d.N * d.V, 2);
    const targets = new Int32Array([1, 6, 0, 3, 3]);
    const mask = new Float64Array([1, 0, 0.5, 1, 1]);
    const loss = () => crossentropyForwardRef(logits, targets, mask, d).meanLoss;
    const { lse } = crossentropyForwardRef(logits, targets, mask, d);
    const g = crossentropyBackwardRef(logits, targets, mask, lse, crossentropyScale(mask), d);
    checkGrad('dlogits', logits, loss, g);
  });
});
