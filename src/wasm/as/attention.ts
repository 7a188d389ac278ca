// attention_forward / attention_backward: causal multi-head self-attention over qkv (B,T,3C)
// ([q | k | v], head h at channels h·HS), scaled by 1/√HS, softmax probabilities saved
// (B,NH,T,T) for the backward pass. Positions t ≥ lengths[b] (right padding) are skipped:
// their outputs are 0 and nothing valid reads them (causal mask). The (b, h) pairs are
// partitioned across threads; each pair's gradients are accumulated by one thread in a fixed
// order. Plus the KV-cache decode step of the sampler.
import { partLo, partHi } from './partition';

// @ts-ignore: decorator
@inline
function dot(a: usize, b: usize, HS: i32): f32 {
  let v = f32x4.splat(0);
  let i = 0;
  for (; i + 4 <= HS; i += 4) v = f32x4.add(v, f32x4.mul(v128.load(a + (<usize>i << 2)), v128.load(b + (<usize>i << 2))));
  let s: f32 = f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
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
    v128.store(y + p, f32x4.add(v128.load(y + p), f32x4.mul(av, v128.load(x + p))));
  }
  for (; i < HS; i++) store<f32>(y + (<usize>i << 2), load<f32>(y + (<usize>i << 2)) + a * load<f32>(x + (<usize>i << 2)));
}

export function attentionForwardTask(qkv: usize, out: usize, att: usize, lengths: usize, B: i32, T: i32, C: i32, NH: i32, tid: i32, nth: i32): void {
  const HS = C / NH;
  const scale: f32 = 1 / Mathf.sqrt(<f32>HS);
  const C3 = 3 * C;
  const j0 = partLo(B * NH, 1, tid, nth);
  const j1 = partHi(B * NH, 1, tid, nth);
  for (let j = j0; j < j1; j++) {
    const b = j / NH;
    const h = j % NH;
    const len = load<i32>(lengths + (<usize>b << 2));
    for (let t = 0; t < T; t++) {
      const po = out + (<usize>((b * T + t) * C + h * HS) << 2);
      const pa = att + (<usize>(((b * NH + h) * T + t) * T) << 2);
      memory.fill(po, 0, <usize>HS << 2);
      if (t >= len) { memory.fill(pa, 0, <usize>T << 2); continue; }
      const q = qkv + (<usize>((b * T + t) * C3 + h * HS) << 2);
      let mx: f32 = -Infinity;
      for (let t2 = 0; t2 <= t; t2++) {
        const k = qkv + (<usize>((b * T + t2) * C3 + C + h * HS) << 2);
        const s = dot(q, k, HS) * scale;
        store<f32>(pa + (<usize>t2 << 2), s);
        if (s > mx) mx = s;
      }
      let sum: f32 = 0;
      for (let t2 = 0; t2 <= t; t2++) {
        const e = Mathf.exp(load<f32>(pa + (<usize>t2 << 2)) - mx);
        store<f32>(pa + (<usize>t2 << 2), e);
        sum += e;
      }
      const inv: f32 = 1 / sum;
      for (let t2 = 0; t2 <= t; t2++) {
        const p = load<f32>(pa + (<usize>t2 << 2)) * inv;
        store<f32>(pa + (<usize>t2 << 2), p);
        axpy(po, p, qkv + (<usize>((b * T + t2) * C3 + 2 * C + h * HS) << 2), HS);
      }
      memory.fill(pa + (<usize>(t + 1) << 2), 0, <usize>(T - t - 1) << 2);
    }
  }
}

/** dqkv (B,T,3C) written (zeroed first); scratch: T floats per thread at scratch + tid·T. */
export function attentionBackwardTask(dout: usize, qkv: usize, att: usize, dqkv: usize, lengths: usize, scratch: usize, B: i32, T: i32, C: i32, NH: i32, tid: i32, nth: i32): void {
  const HS = C / NH;
  const scale: f32 = 1 / Mathf.sqrt(<f32>HS);
  const C3 = 3 * C;
  const datt = scratch + (<usize>(tid * T) << 2);
  const j0 = partLo(B * NH, 1, tid, nth);
  const j1 = partHi(B * NH, 1, tid, nth);
  for (let j = j0; j < j1; j++) {
    const b = j / NH;
    const h = j % NH;
    const len = load<i32>(lengths + (<usize>b << 2));
    for (let t = 0; t < T; t++) {
      const base = (b * T + t) * C3 + h * HS;
      memory.fill(dqkv + (<usize>base << 2), 0, <usize>HS << 2);
      memory.fill(dqkv + (<usize>(base + C) << 2), 0, <usize>HS << 2);
      memory.fill(dqkv + (<usize>(base + 2 * C) << 2), 0, <usize>HS << 2);
    }
    for (let t = 0; t < len; t++) {
      const pa = att + (<usize>(((b * NH + h) * T + t) * T) << 2);
      const g = dout + (<usize>((b * T + t) * C + h * HS) << 2);
      const q = qkv + (<usize>((b * T + t) * C3 + h * HS) << 2);
      const dq = dqkv + (<usize>((b * T + t) * C3 + h * HS) << 2);
      let dp: f32 = 0;
      for (let t2 = 0; t2 <= t; t2++) {
        const v = qkv + (<usize>((b * T + t2) * C3 + 2 * C + h * HS) << 2);
        const s = dot(g, v, HS);
        store<f32>(datt + (<usize>t2 << 2), s);
        dp += load<f32>(pa + (<usize>t2 << 2)) * s;
      }
      for (let t2 = 0; t2 <= t; t2++) {
        const p = load<f32>(pa + (<usize>t2 << 2));
        const ds = p * (load<f32>(datt + (<usize>t2 << 2)) - dp) * scale;
        const ko = (b * T + t2) * C3 + C + h * HS;
        axpy(dq, ds, qkv + (<usize>ko << 2), HS);
        axpy(dqkv + (<usize>ko << 2), ds, q, HS);
        axpy(dqkv + (<usize>(ko + C) << 2), p, g, HS);
      }
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
    let mx: f32 = -Infinity;
    for (let t2 = 0; t2 <= t; t2++) {
      const x = dot(q, kc + (<usize>((b * maxT + t2) * C + h * HS) << 2), HS) * scale;
      store<f32>(s + (<usize>t2 << 2), x);
      if (x > mx) mx = x;
    }
    let sum: f32 = 0;
    for (let t2 = 0; t2 <= t; t2++) {
      const e = Mathf.exp(load<f32>(s + (<usize>t2 << 2)) - mx);
      store<f32>(s + (<usize>t2 << 2), e);
      sum += e;
    }
    const inv: f32 = 1 / sum;
    for (let t2 = 0; t2 <= t; t2++) axpy(po, load<f32>(s + (<usize>t2 << 2)) * inv, vc + (<usize>((b * maxT + t2) * C + h * HS) << 2), HS);
  }
}
