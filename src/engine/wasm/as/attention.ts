// attention_forward / attention_backward: causal multi-head self-attention over qkv (B,T,3C)
// ([q | k | v], head h at channels h·HS), scaled by 1/√HS, softmax probabilities saved
// (B,NH,T,T) for the backward pass. Positions t ≥ lengths[b] (right padding) are skipped:
// their outputs are 0 and nothing valid reads them (causal mask). The (b, h) pairs are
// partitioned across threads; each pair's gradients are accumulated by one thread in a fixed
// order. Plus the KV-cache decode step of the sampler.
import { partLo, partHi } from './partition';
import { exp4, exp1, hmax, hsum, madd } from './simd_math';
import { gemmRows } from './matmul';

// @ts-ignore: decorator
@inline
function dot(a: usize, b: usize, HS: i32): f32 {
  let v = f32x4.splat(0);
  let i = 0;
  for (; i + 4 <= HS; i += 4) v = madd(v128.load(a + (<usize>i << 2)), v128.load(b + (<usize>i << 2)), v);
  let s: f32 = hsum(v);
  for (; i < HS; i++) s += load<f32>(a + (<usize>i << 2)) * load<f32>(b + (<usize>i << 2));
  return s;
}

// @ts-ignore: decorator
@inline
function axpy(y: usize, a: f32, x: usize, HS: i32): void {
  const av = f32x4.splat(a);
  let i = 0;
  for (; i + 4 <= HS; i += 4) {
    const p = <usize>i << 2;
    v128.store(y + p, madd(av, v128.load(x + p), v128.load(y + p)));
  }
  for (; i < HS; i++) store<f32>(y + (<usize>i << 2), load<f32>(y + (<usize>i << 2)) + a * load<f32>(x + (<usize>i << 2)));
}

/** dst (HS, len) = the head's k (or v) rows 0..len−1 transposed, from qkv at channel offset `off`. */
// @ts-ignore: decorator
@inline
function transposeHead(qkv: usize, dst: usize, b: i32, T: i32, C3: i32, off: i32, HS: i32, len: i32): void {
  for (let t2 = 0; t2 < len; t2++) {
    const src = qkv + (<usize>((b * T + t2) * C3 + off) << 2);
    for (let i = 0; i < HS; i++) store<f32>(dst + (<usize>(i * len + t2) << 2), load<f32>(src + (<usize>i << 2)));
  }
}

/** dst (len, HS) = the head's rows 0..len−1 of qkv at channel offset `off`, contiguous. */
// @ts-ignore: decorator
@inline
function copyHead(qkv: usize, dst: usize, b: i32, T: i32, C3: i32, off: i32, HS: i32, len: i32): void {
  for (let t2 = 0; t2 < len; t2++) memory.copy(dst + (<usize>(t2 * HS) << 2), qkv + (<usize>((b * T + t2) * C3 + off) << 2), <usize>HS << 2);
}

/** p[0..n) = softmax of p[0..n) in place (max-subtracted, vector exp). */
// @ts-ignore: decorator
@inline
function softmaxInPlace(p: usize, n: i32): void {
  let mv = f32x4.splat(-Infinity);
  let t = 0;
  for (; t + 4 <= n; t += 4) mv = f32x4.max(mv, v128.load(p + (<usize>t << 2)));
  let mx = hmax(mv);
  for (; t < n; t++) mx = max(mx, load<f32>(p + (<usize>t << 2)));
  const mxv = f32x4.splat(mx);
  let sv = f32x4.splat(0);
  t = 0;
  for (; t + 4 <= n; t += 4) {
    const e = exp4(f32x4.sub(v128.load(p + (<usize>t << 2)), mxv));
    v128.store(p + (<usize>t << 2), e);
    sv = f32x4.add(sv, e);
  }
  let sum = hsum(sv);
  for (; t < n; t++) {
    const e = exp1(load<f32>(p + (<usize>t << 2)) - mx);
    store<f32>(p + (<usize>t << 2), e);
    sum += e;
  }
  const inv = f32x4.splat(1 / sum);
  t = 0;
  for (; t + 4 <= n; t += 4) v128.store(p + (<usize>t << 2), f32x4.mul(v128.load(p + (<usize>t << 2)), inv));
  const invs: f32 = 1 / sum;
  for (; t < n; t++) store<f32>(p + (<usize>t << 2), load<f32>(p + (<usize>t << 2)) * invs);
}

// Per (b, h) with len valid positions, the attention is three small matrix products run by
// the GEMM of matmul.ts on this thread (the head's q, k, v are row-strided views of qkv):
//   forward   S = q·kᵀ·scale (len × len), P = causal softmax(S), out = P·v
//   backward  dP = dout·vᵀ, dS = P ⊙ (dP − rowsum(P ⊙ dP))·scale, dq = dS·k, dk = dSᵀ·q, dv = Pᵀ·dout
// The upper triangle is computed and then zeroed (P and dS are 0 there): twice the causal
// flops, at GEMM speed instead of scalar dot products.

/** out, att from qkv (module doc); scratch: 2·HS·T floats per thread (the head's kᵀ, then its v). */
export function attentionForwardTask(qkv: usize, out: usize, att: usize, lengths: usize, scratch: usize, B: i32, T: i32, C: i32, NH: i32, tid: i32, nth: i32): void {
  const HS = C / NH;
  const scale: f32 = 1 / Mathf.sqrt(<f32>HS);
  const C3 = 3 * C;
  const KT = scratch + (<usize>(tid * 2 * HS * T) << 2);
  const j0 = partLo(B * NH, 1, tid, nth);
  const j1 = partHi(B * NH, 1, tid, nth);
  for (let j = j0; j < j1; j++) {
    const b = j / NH;
    const h = j % NH;
    const len = load<i32>(lengths + (<usize>b << 2));
    const pa0 = att + (<usize>((b * NH + h) * T * T) << 2);
    const q0 = qkv + (<usize>(b * T * C3 + h * HS) << 2);
    const o0 = out + (<usize>(b * T * C + h * HS) << 2);
    for (let t = len; t < T; t++) {
      memory.fill(o0 + (<usize>(t * C) << 2), 0, <usize>HS << 2);
      memory.fill(pa0 + (<usize>(t * T) << 2), 0, <usize>T << 2);
    }
    if (len == 0) continue;
    transposeHead(qkv, KT, b, T, C3, C + h * HS, HS, len);
    // S rows n0..n0+3 need columns ≤ n0+3 only (causal): the GEMM per 4-row block stops there.
    for (let n0 = 0; n0 < len; n0 += 4) gemmRows(q0, C3, 1, KT, len, pa0, T, 0, 0, n0, min(len, n0 + 4), min(len, (n0 + 11) & ~7), HS, 0);
    const sc = f32x4.splat(scale);
    for (let t = 0; t < len; t++) {
      const pa = pa0 + (<usize>(t * T) << 2);
      let t2 = 0;
      for (; t2 + 4 <= t + 1; t2 += 4) v128.store(pa + (<usize>t2 << 2), f32x4.mul(v128.load(pa + (<usize>t2 << 2)), sc));
      for (; t2 <= t; t2++) store<f32>(pa + (<usize>t2 << 2), load<f32>(pa + (<usize>t2 << 2)) * scale);
      softmaxInPlace(pa, t + 1);
      memory.fill(pa + (<usize>(t + 1) << 2), 0, <usize>(T - t - 1) << 2);
    }
    // out = P·v: row t sums over t2 ≤ t only (P is 0 above the diagonal). v is read from a
    // contiguous (len, HS) copy: in place its rows sit 3C floats apart, a stride whose lines
    // share a few L1 sets, so each 4-row block would fetch the head's v from L2 again.
    const Vc = KT + (<usize>(HS * T) << 2);
    copyHead(qkv, Vc, b, T, C3, 2 * C + h * HS, HS, len);
    for (let n0 = 0; n0 < len; n0 += 4) gemmRows(pa0, T, 1, Vc, HS, o0, C, 0, 0, n0, min(len, n0 + 4), HS, min(len, n0 + 4), 0);
  }
}

/** dqkv (B,T,3C) written; scratch: (HS + T)·T floats per thread (vᵀ, then dP → dS). */
export function attentionBackwardTask(dout: usize, qkv: usize, att: usize, dqkv: usize, lengths: usize, scratch: usize, B: i32, T: i32, C: i32, NH: i32, tid: i32, nth: i32): void {
  const HS = C / NH;
  const scale: f32 = 1 / Mathf.sqrt(<f32>HS);
  const C3 = 3 * C;
  const VT = scratch + (<usize>(tid * (HS + T) * T) << 2);
  const dS = VT + (<usize>(HS * T) << 2);
  const j0 = partLo(B * NH, 1, tid, nth);
  const j1 = partHi(B * NH, 1, tid, nth);
  for (let j = j0; j < j1; j++) {
    const b = j / NH;
    const h = j % NH;
    const len = load<i32>(lengths + (<usize>b << 2));
    const pa0 = att + (<usize>((b * NH + h) * T * T) << 2);
    const q0 = qkv + (<usize>(b * T * C3 + h * HS) << 2);
    const g0 = dout + (<usize>(b * T * C + h * HS) << 2);
    const dq0 = dqkv + (<usize>(b * T * C3 + h * HS) << 2);
    for (let t = len; t < T; t++) {
      const r = dq0 + (<usize>(t * C3) << 2);
      memory.fill(r, 0, <usize>HS << 2);
      memory.fill(r + (<usize>C << 2), 0, <usize>HS << 2);
      memory.fill(r + (<usize>(2 * C) << 2), 0, <usize>HS << 2);
    }
    if (len == 0) continue;
    transposeHead(qkv, VT, b, T, C3, 2 * C + h * HS, HS, len);
    for (let n0 = 0; n0 < len; n0 += 4) gemmRows(g0, C, 1, VT, len, dS, len, 0, 0, n0, min(len, n0 + 4), min(len, (n0 + 11) & ~7), HS, 0);
    const sc = f32x4.splat(scale);
    for (let t = 0; t < len; t++) {
      const pa = pa0 + (<usize>(t * T) << 2);
      const ds = dS + (<usize>(t * len) << 2);
      let dpv = f32x4.splat(0);
      let t2 = 0;
      for (; t2 + 4 <= t + 1; t2 += 4) dpv = madd(v128.load(pa + (<usize>t2 << 2)), v128.load(ds + (<usize>t2 << 2)), dpv);
      let dp = hsum(dpv);
      for (; t2 <= t; t2++) dp += load<f32>(pa + (<usize>t2 << 2)) * load<f32>(ds + (<usize>t2 << 2));
      const dpb = f32x4.splat(dp);
      t2 = 0;
      for (; t2 + 4 <= t + 1; t2 += 4) {
        const o = <usize>t2 << 2;
        v128.store(ds + o, f32x4.mul(f32x4.mul(v128.load(pa + o), f32x4.sub(v128.load(ds + o), dpb)), sc));
      }
      for (; t2 <= t; t2++) {
        const o = <usize>t2 << 2;
        store<f32>(ds + o, load<f32>(pa + o) * (load<f32>(ds + o) - dp) * scale);
      }
      if (t + 1 < len) memory.fill(ds + (<usize>(t + 1) << 2), 0, <usize>(len - t - 1) << 2);
    }
    // dq = dS·k, dk = dSᵀ·q, dv = Pᵀ·dout (written: init 0).
    // Causal ranges: dq row t sums over t2 ≤ t; dk and dv row t2 over t ≥ t2 (from its block start).
    for (let n0 = 0; n0 < len; n0 += 4) {
      const n1 = min(len, n0 + 4);
      gemmRows(dS, len, 1, q0 + (<usize>C << 2), C3, dq0, C3, 0, 0, n0, n1, HS, n1, 0);
      gemmRows(dS + (<usize>(n0 * len) << 2), 1, len, q0 + (<usize>(n0 * C3) << 2), C3, dq0 + (<usize>C << 2), C3, 0, 0, n0, n1, HS, len - n0, 0);
      gemmRows(pa0 + (<usize>(n0 * T) << 2), 1, T, g0 + (<usize>(n0 * C) << 2), C, dq0 + (<usize>(2 * C) << 2), C3, 0, 0, n0, n1, HS, len - n0, 0);
    }
  }
}

/**
 * One decode step with a KV cache: row b's query (in qkv (B,3C)) attends over its cached keys
 * and values at positions 0..pos[b] (the current token's k, v already written there).
 * kc, vc: (B, maxT, C) per layer. out (B,C). scratch: maxT floats per thread.
 */
export function attentionDecodeTask(qkv: usize, kc: usize, vc: usize, pos: usize, out: usize, scratch: usize, B: i32, maxT: i32, C: i32, NH: i32, tid: i32, nth: i32): void {
  const HS = C / NH;
  const scale: f32 = 1 / Mathf.sqrt(<f32>HS);
  const s = scratch + (<usize>(tid * maxT) << 2);
  const j0 = partLo(B * NH, 1, tid, nth);
  const j1 = partHi(B * NH, 1, tid, nth);
  for (let j = j0; j < j1; j++) {
    const b = j / NH;
    const h = j % NH;
    const t = load<i32>(pos + (<usize>b << 2));
    const q = qkv + (<usize>(b * 3 * C + h * HS) << 2);
    const po = out + (<usize>(b * C + h * HS) << 2);
    memory.fill(po, 0, <usize>HS << 2);
    if (t < 0) continue;
    for (let t2 = 0; t2 <= t; t2++) store<f32>(s + (<usize>t2 << 2), dot(q, kc + (<usize>((b * maxT + t2) * C + h * HS) << 2), HS) * scale);
    softmaxInPlace(s, t + 1);
    for (let t2 = 0; t2 <= t; t2++) axpy(po, load<f32>(s + (<usize>t2 << 2)), vc + (<usize>((b * maxT + t2) * C + h * HS) << 2), HS);
  }
}
