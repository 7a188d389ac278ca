import { checkAttentionDims, type AttentionDims } from './attention_forward.ref';
import { alloc, checkLen, type Floats } from './ref_util';

/**
 * CPU reference of src/engine/webgpu/shaders/attention_backward.wgsl, the gradient of attentionForwardRef.
 * Per (b, h, t), with p = att[b,h,t,:] and g = dout[b,t,head h]:
 *   datt_t2 = g·v_t2;  ds_t2 = p_t2·(datt_t2 − Σ_t3 p_t3·datt_t3)   (softmax Jacobian)
 *   dq_t += scale·Σ_t2 ds_t2·k_t2;  dk_t2 += scale·ds_t2·q_t;  dv_t2 += p_t2·g
 * over t2 ≤ t, with scale = 1/√HS. Uses the saved att (it is not recomputed from qkv, so a
 * kernel and this reference agree on the same probabilities). Sums in f64.
 * @param dout (B,T,C) @param qkv (B,T,3C) @param att (B,NH,T,T)
 * @returns dqkv (B,T,3C), written (fresh array)
 * @throws Error naming the argument on a size mismatch.
 */
export function attentionBackwardRef<A extends Floats>(dout: A, qkv: A, att: A, d: AttentionDims): A {
  const op = 'attentionBackwardRef';
  const HS = checkAttentionDims(op, d);
  const { B, T, C, NH } = d;
  checkLen(op, 'dout', dout, B * T * C, '(B,T,C)');
  checkLen(op, 'qkv', qkv, B * T * 3 * C, '(B,T,3C)');
  checkLen(op, 'att', att, B * NH * T * T, '(B,NH,T,T)');
  const scale = 1 / Math.sqrt(HS);
  // f64 accumulator for the whole (B,T,3C) gradient, rounded once at the end.
  const acc = new Float64Array(B * T * 3 * C);
  const datt = new Float64Array(T);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < NH; h++) {
      for (let t = 0; t < T; t++) {
        const ao = ((b * NH + h) * T + t) * T;
        const go = (b * T + t) * C + h * HS;
        const qo = (b * T + t) * 3 * C + h * HS;
        let dot = 0;
        for (let t2 = 0; t2 <= t; t2++) {
          const vo = (b * T + t2) * 3 * C + 2 * C + h * HS;
          let s = 0;
          for (let i = 0; i < HS; i++) s += dout[go + i] * qkv[vo + i];
          datt[t2] = s;
          dot += att[ao + t2] * s;
        }
        for (let t2 = 0; t2 <= t; t2++) {
          const p = att[ao + t2];
          const ds = p * (datt[t2] - dot) * scale;
          const ko = (b * T + t2) * 3 * C + C + h * HS;
          const vo = ko + C;
          for (let i = 0; i < HS; i++) {
            acc[qo + i] += ds * qkv[ko + i];
            acc[ko + i] += ds * qkv[qo + i];
            acc[vo + i] += p * dout[go + i];
          }
        }
      }
    }
  }
  const dqkv = alloc(dout, B * T * 3 * C);
  for (let i = 0; i < acc.length; i++) dqkv[i] = acc[i];
  return dqkv;
}
