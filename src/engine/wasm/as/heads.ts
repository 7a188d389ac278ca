// logprob_forward / logprob_backward at scored rows (the cross-entropy of SFT is −logprob), at
// temperature τ (x = z/τ, divided as the sampler does; SFT passes τ = 1, RL the rollout's τ):
// lse (S) = logsumexp(x), logp (S) = x[target] − lse;
// dlogits (S,V) = (coef[s]/τ)·(softmax(x) − onehot(target)), so SFT passes coef = weight/Σweight
// and RL passes coef = −∂L/∂ℓ. CPU references: src/kernels/logprob_{forward,backward}.ref.ts. Plus the optimizer:
// sum-of-squares partials for the global norm (fixed chunks, summed in chunk order by the
// caller) and AdamW with a per-element decay coefficient. All row- or element-wise.
import { partLo, partHi } from './partition';
import { exp4, exp1, hsum, hmax } from './simd_math';

export const SUMSQ_CHUNK: i32 = 8192;

/** max over j of z[j]/τ for a row z (V): 4 lanes, then across (NaN propagates); the max both logprobForwardTask and the sampler (sample.ts) subtract. */
export function scaledRowMax(z: usize, V: i32, tau: f32): f32 {
  const V4 = V & ~3;
  const tv = f32x4.splat(tau);
  let mv = f32x4.splat(-Infinity);
  let v = 0;
  for (; v < V4; v += 4) mv = f32x4.max(mv, f32x4.div(v128.load(z + (<usize>v << 2)), tv));
  let mx = hmax(mv);
  for (; v < V; v++) mx = max(mx, load<f32>(z + (<usize>v << 2)) / tau);
  return mx;
}

export function logprobForwardTask(logits: usize, targets: usize, lse: usize, logp: usize, S: i32, V: i32, tau: f32, tid: i32, nth: i32): void {
  const s0 = partLo(S, 1, tid, nth);
  const s1 = partHi(S, 1, tid, nth);
  const V4 = V & ~3;
  const tv = f32x4.splat(tau);
  for (let s = s0; s < s1; s++) {
    const z = logits + (<usize>(s * V) << 2);
    const mx = scaledRowMax(z, V, tau);
    const mxv = f32x4.splat(mx);
    let sv = f32x4.splat(0);
    let v = 0;
    for (; v < V4; v += 4) sv = f32x4.add(sv, exp4(f32x4.sub(f32x4.div(v128.load(z + (<usize>v << 2)), tv), mxv)));
    let sum = hsum(sv);
    for (; v < V; v++) sum += exp1(load<f32>(z + (<usize>v << 2)) / tau - mx);
    const l = mx + Mathf.log(sum);
    store<f32>(lse + (<usize>s << 2), l);
    const t = load<i32>(targets + (<usize>s << 2));
    store<f32>(logp + (<usize>s << 2), load<f32>(z + (<usize>t << 2)) / tau - l);
  }
}

export function logprobBackwardTask(logits: usize, targets: usize, lse: usize, coef: usize, dlogits: usize, S: i32, V: i32, tau: f32, tid: i32, nth: i32): void {
  const s0 = partLo(S, 1, tid, nth);
  const s1 = partHi(S, 1, tid, nth);
  const V4 = V & ~3;
  const tv = f32x4.splat(tau);
  for (let s = s0; s < s1; s++) {
    const z = logits + (<usize>(s * V) << 2);
    const d = dlogits + (<usize>(s * V) << 2);
    const l = load<f32>(lse + (<usize>s << 2));
    const c = load<f32>(coef + (<usize>s << 2)) / tau;
    const lv = f32x4.splat(l);
    const cv = f32x4.splat(c);
    let v = 0;
    for (; v < V4; v += 4) v128.store(d + (<usize>v << 2), f32x4.mul(cv, exp4(f32x4.sub(f32x4.div(v128.load(z + (<usize>v << 2)), tv), lv))));
    for (; v < V; v++) store<f32>(d + (<usize>v << 2), c * exp1(load<f32>(z + (<usize>v << 2)) / tau - l));
    const t = load<i32>(targets + (<usize>s << 2));
    store<f32>(d + (<usize>t << 2), load<f32>(d + (<usize>t << 2)) - c);
  }
}

/** partials[k] = Σ x² over chunk k (SUMSQ_CHUNK elements, in order). */
export function sumsqTask(x: usize, n: i32, partials: usize, tid: i32, nth: i32): void {
  const chunks = (n + SUMSQ_CHUNK - 1) / SUMSQ_CHUNK;
  const k0 = partLo(chunks, 1, tid, nth);
  const k1 = partHi(chunks, 1, tid, nth);
  for (let k = k0; k < k1; k++) {
    const i0 = k * SUMSQ_CHUNK;
    const i1 = min(n, i0 + SUMSQ_CHUNK);
    let v = f32x4.splat(0);
    let i = i0;
    for (; i + 4 <= i1; i += 4) {
      const a = v128.load(x + (<usize>i << 2));
      v = f32x4.add(v, f32x4.mul(a, a));
    }
    let s: f32 = hsum(v);
    for (; i < i1; i++) {
      const a = load<f32>(x + (<usize>i << 2));
      s += a * a;
    }
    store<f32>(partials + (<usize>k << 2), s);
  }
}

/**
 * AdamW (Loshchilov & Hutter 2019, Alg. 2; the decay uses the pre-update p):
 * g = grad·gradScale; m ← β1 m + (1−β1) g; v ← β2 v + (1−β2) g²;
 * p ← p − lr·((m/bc1)/(√(v/bc2) + ε) + decay[i]·p).
 */
export function adamwTask(params: usize, grads: usize, m: usize, v: usize, decay: usize, n: i32, lr: f32, b1: f32, b2: f32, eps: f32, bc1: f32, bc2: f32, gs: f32, tid: i32, nth: i32): void {
  const i0 = partLo(n, 4, tid, nth);
  const i1 = partHi(n, 4, tid, nth);
  for (let i = i0; i < i1; i++) {
    const o = <usize>i << 2;
    const g = load<f32>(grads + o) * gs;
    const mi = b1 * load<f32>(m + o) + (1 - b1) * g;
    const vi = b2 * load<f32>(v + o) + (1 - b2) * g * g;
    store<f32>(m + o, mi);
    store<f32>(v + o, vi);
    const p = load<f32>(params + o);
    store<f32>(params + o, p - lr * (mi / bc1 / (Mathf.sqrt(vi / bc2) + eps) + load<f32>(decay + o) * p));
  }
}
