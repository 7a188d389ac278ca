import { alloc, checkDim, checkLen, type Floats } from './ref_util';

/** Dimensions of causal multi-head self-attention. */
export interface AttentionDims {
  B: number;
  T: number;
  /** Channels (C = NH·HS). */
  C: number;
  /** Heads; HS = C/NH. */
  NH: number;
}

/** @internal validates dims, returns HS. */
export function checkAttentionDims(op: string, d: AttentionDims): number {
  for (const k of ['B', 'T', 'C', 'NH'] as const) checkDim(op, k, d[k]);
  if (d.C % d.NH !== 0) throw new Error(`${op}: C = ${d.C} is not divisible by NH = ${d.NH}`);
  return d.C / d.NH;
}

/**
 * CPU reference of src/engine/webgpu/shaders/attention_forward.wgsl: causal scaled dot-product attention
 * (Vaswani et al. 2017). qkv is (B,T,3C) as [q ‖ k ‖ v]; head h uses channels h·HS … (h+1)·HS−1
 * of each part. For t2 ≤ t: s = q_t·k_t2 / √HS, att = softmax over t2 (max-subtracted, f64);
 * att is 0 for t2 > t; out_t = Σ_t2 att·v_t2.
 *
 * No padding mask is needed: rows are right-padded, so under the causal mask a valid position
 * never sees a padded one; padded positions compute finite values that nothing valid reads.
 * Every row of att has at least its diagonal, so it is never empty (no NaN).
 * @param qkv (B,T,3C)
 * @returns out (B,T,C), att (B,NH,T,T) softmax probabilities (saved for the backward pass)
 * @throws Error naming the argument on a size mismatch or C not divisible by NH.
 */
export function attentionForwardRef<A extends Floats>(qkv: A, d: AttentionDims): { out: A; att: A } {
  const op = 'attentionForwardRef';
  const HS = checkAttentionDims(op, d);
  const { B, T, C, NH } = d;
  checkLen(op, 'qkv', qkv, B * T * 3 * C, '(B,T,3C)');
  const out = alloc(qkv, B * T * C);
  const att = alloc(qkv, B * NH * T * T);
  const scale = 1 / Math.sqrt(HS);
  const s = new Float64Array(T);
  const acc = new Float64Array(HS);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < NH; h++) {
      for (let t = 0; t < T; t++) {
        const qo = (b * T + t) * 3 * C + h * HS;
        let mx = -Infinity;
        for (let t2 = 0; t2 <= t; t2++) {
          const ko = (b * T + t2) * 3 * C + C + h * HS;
          let dot = 0;
          for (let i = 0; i < HS; i++) dot += qkv[qo + i] * qkv[ko + i];
          s[t2] = dot * scale;
          if (s[t2] > mx) mx = s[t2];
        }
        let sum = 0;
        for (let t2 = 0; t2 <= t; t2++) {
          s[t2] = Math.exp(s[t2] - mx);
          sum += s[t2];
        }
        const ao = ((b * NH + h) * T + t) * T;
        acc.fill(0);
        for (let t2 = 0; t2 <= t; t2++) {
          const p = s[t2] / sum;
          att[ao + t2] = p;
          const vo = (b * T + t2) * 3 * C + 2 * C + h * HS;
          for (let i = 0; i < HS; i++) acc[i] += p * qkv[vo + i];
        }
        const oo = (b * T + t) * C + h * HS;
        for (let i = 0; i < HS; i++) out[oo + i] = acc[i];
      }
    }
  }
  return { out, att };
}
