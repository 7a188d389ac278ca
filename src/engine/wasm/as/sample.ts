// sample_tokens on the CPU engine: one token per row of logits (B,V). The math is that of the
// CPU reference sampleTokensRef (src/reference/sample_tokens.ref.ts, which documents it): τ and
// greedy, nucleus (top-p) by 30 bisection steps, banned ids never drawn, log-prob under the
// distribution sampled from, entropy of softmax(z) at τ = 1. Here in f32 with the vector exp,
// as the WGSL kernel does it in f32 (src/engine/webgpu/shaders/sample_tokens.wgsl); the reference sums in f64, so
// ids agree except where u·S lands within f32 rounding of a cumulative boundary.
// The row's uniform u comes from the caller (sampleUniform(seed, row, step), computed in JS).
// max x and S = Σ e are summed exactly as logprobForwardTask sums them (4 lanes, then across),
// so at τ = 1 without top-p the sampled log-prob equals the trainer's re-scored one bit for bit
// when the logits are the same. Row-wise: any partition of the rows gives the same result.
import { partLo, partHi } from './partition';
import { exp4, exp1, hsum } from './simd_math';
import { scaledRowMax } from './heads';

// @ts-ignore: decorator
@inline
function allowed(j: i32, banLo: i32, banHi: i32, allow: i32): bool {
  return j < banLo || j >= banHi || j == allow;
}

/** First argmax of z/τ among the allowed ids (−1 when the ban leaves none). */
function argmaxAllowed(z: usize, V: i32, tau: f32, banLo: i32, banHi: i32, allow: i32): i32 {
  let a = -1;
  let best: f32 = -Infinity;
  for (let j = 0; j < V; j++) {
    const x = load<f32>(z + (<usize>j << 2)) / tau;
    if (allowed(j, banLo, banHi, allow) && (a < 0 || x > best)) {
      a = j;
      best = x;
    }
  }
  return a;
}

/**
 * Row z (V) → id, log-prob, entropy (written at idOut, lpOut, entOut). e: V floats of scratch.
 * temperature ≤ 0: greedy. banLo ≥ banHi: no ban. allow: a banned id that may be drawn (−1: none).
 */
export function sampleRow(z: usize, V: i32, temperature: f32, topP: f32, banLo: i32, banHi: i32, allow: i32, u: f32, e: usize, idOut: usize, lpOut: usize, entOut: usize): void {
  const greedy = temperature <= 0;
  const tau: f32 = greedy ? 1 : temperature;
  const V4 = V & ~3;
  const tv = f32x4.splat(tau);
  // m = max x, x = z/τ
  const mx = scaledRowMax(z, V, tau);
  // e = exp(x − m), S = Σ e and, for the entropy at τ = 1, Σ e·(x − m)
  const mxv = f32x4.splat(mx);
  let sv = f32x4.splat(0);
  let tsv = f32x4.splat(0);
  let j = 0;
  for (; j < V4; j += 4) {
    const d = f32x4.sub(f32x4.div(v128.load(z + (<usize>j << 2)), tv), mxv);
    const ev = exp4(d);
    v128.store(e + (<usize>j << 2), ev);
    sv = f32x4.add(sv, ev);
    tsv = f32x4.add(tsv, f32x4.mul(ev, d));
  }
  let s = hsum(sv);
  let t1 = hsum(tsv);
  for (; j < V; j++) {
    const d = load<f32>(z + (<usize>j << 2)) / tau - mx;
    const ev = exp1(d);
    store<f32>(e + (<usize>j << 2), ev);
    s += ev;
    t1 += ev * d;
  }
  // entropy of softmax(z) at τ = 1: log S₁ − Σ e₁·(z − m₁) / S₁ (the sums above when τ = 1)
  store<f32>(entOut, tau == 1 ? Mathf.log(s) - t1 / s : entropyAtOne(z, V));
  if (greedy) {
    const a = argmaxAllowed(z, V, 1, banLo, banHi, allow);
    store<i32>(idOut, a);
    store<f32>(lpOut, load<f32>(z + (<usize>a << 2)) - (mx + Mathf.log(s)));
    return;
  }
  // nucleus threshold θ on e ∈ (0, 1]: the largest θ whose kept mass is ≥ top_p·S
  let theta: f32 = 0;
  let kept = s;
  if (topP < 1) {
    const want = topP * s;
    let lo: f32 = 0;
    let hi: f32 = 1;
    for (let it = 0; it < 30; it++) {
      const mid: f32 = 0.5 * (lo + hi);
      if (massAtLeast(e, V, mid) >= want) lo = mid;
      else hi = mid;
    }
    theta = lo;
    kept = massAtLeast(e, V, theta);
  }
  // the mass the draw can land on: kept ids that are not banned
  let dv = f32x4.splat(0);
  const thv = f32x4.splat(theta);
  const lov = i32x4.splat(banLo);
  const hiv = i32x4.splat(banHi);
  const alv = i32x4.splat(allow);
  let idx = i32x4(0, 1, 2, 3);
  const four = i32x4.splat(4);
  j = 0;
  for (; j < V4; j += 4) {
    const ev = v128.load(e + (<usize>j << 2));
    const banned = v128.and(v128.and(i32x4.ge_s(idx, lov), i32x4.lt_s(idx, hiv)), i32x4.ne(idx, alv));
    dv = f32x4.add(dv, v128.and(ev, v128.andnot(f32x4.ge(ev, thv), banned)));
    idx = i32x4.add(idx, four);
  }
  let drawable = hsum(dv);
  for (; j < V; j++) {
    const ev = load<f32>(e + (<usize>j << 2));
    if (ev >= theta && allowed(j, banLo, banHi, allow)) drawable += ev;
  }
  // inverse CDF: the first kept, allowed id whose running sum exceeds u·drawable
  const target = u * drawable;
  let c: f32 = 0;
  let pick = -1;
  let last = -1;
  for (j = 0; j < V; j++) {
    const ev = load<f32>(e + (<usize>j << 2));
    if (ev >= theta && ev > 0 && allowed(j, banLo, banHi, allow)) {
      c += ev;
      last = j;
      if (c > target) {
        pick = j;
        break;
      }
    }
  }
  if (pick < 0) pick = last >= 0 ? last : argmaxAllowed(z, V, tau, banLo, banHi, allow);
  store<i32>(idOut, pick);
  store<f32>(lpOut, load<f32>(z + (<usize>pick << 2)) / tau - (mx + Mathf.log(kept)));
}

/** H(softmax(z)) in nats: log S₁ − Σ e₁·(z − m₁) / S₁ with m₁ = max z, e₁ = exp(z − m₁). */
function entropyAtOne(z: usize, V: i32): f32 {
  const V4 = V & ~3;
  const m1 = scaledRowMax(z, V, 1);
  const m1v = f32x4.splat(m1);
  let sv = f32x4.splat(0);
  let tv = f32x4.splat(0);
  let j = 0;
  for (; j < V4; j += 4) {
    const d = f32x4.sub(v128.load(z + (<usize>j << 2)), m1v);
    const ev = exp4(d);
    sv = f32x4.add(sv, ev);
    tv = f32x4.add(tv, f32x4.mul(ev, d));
  }
  let s1 = hsum(sv);
  let t1 = hsum(tv);
  for (; j < V; j++) {
    const d = load<f32>(z + (<usize>j << 2)) - m1;
    const ev = exp1(d);
    s1 += ev;
    t1 += ev * d;
  }
  return Mathf.log(s1) - t1 / s1;
}

/** Σ e_j over e_j ≥ θ (4 lanes, then across). */
function massAtLeast(e: usize, V: i32, theta: f32): f32 {
  const V4 = V & ~3;
  const thv = f32x4.splat(theta);
  let mv = f32x4.splat(0);
  let j = 0;
  for (; j < V4; j += 4) {
    const ev = v128.load(e + (<usize>j << 2));
    mv = f32x4.add(mv, v128.and(ev, f32x4.ge(ev, thv)));
  }
  let m = hsum(mv);
  for (; j < V; j++) {
    const ev = load<f32>(e + (<usize>j << 2));
    if (ev >= theta) m += ev;
  }
  return m;
}

/**
 * Rows of logits (B,V) → ids (B) i32, logprob (B), entropy (B); uniforms (B); scratch: V floats
 * per thread. Thread tid samples its block of rows.
 */
export function sampleTokensTask(logits: usize, V: i32, B: i32, uniforms: usize, ids: usize, lp: usize, ent: usize, scratch: usize, temperature: f32, topP: f32, banLo: i32, banHi: i32, allow: i32, tid: i32, nth: i32): void {
  const e = scratch + (<usize>(tid * V) << 2);
  const r0 = partLo(B, 1, tid, nth);
  const r1 = partHi(B, 1, tid, nth);
  for (let r = r0; r < r1; r++) {
    const o = <usize>r << 2;
    sampleRow(logits + (<usize>(r * V) << 2), V, temperature, topP, banLo, banHi, allow, load<f32>(uniforms + o), e, ids + o, lp + o, ent + o);
  }
}
