import { checkEncoder, type EncoderDims } from './encoder_forward.ref';
import { alloc, checkLen, type Floats } from './ref_util';

/** Gradients of the embeddings; both are accumulated into (shared with the tied lm head). */
interface EncoderGrads<A extends Floats> {
  /** (V,C) */
  dwte: A;
  /** (maxT,C) */
  dwpe: A;
}

/**
 * CPU reference of src/engine/webgpu/shaders/encoder_backward.wgsl: dwte[v,:] += Σ_{(b,t): ids[b,t]=v} dout[b,t,:],
 * dwpe[t,:] += Σ_b dout[b,t,:]. Sums run over positions in increasing (b,t) order, the same
 * fixed order the deterministic kernel uses (one invocation per (v or t, c), no atomics);
 * each sum is formed in f64 and added to the existing value once.
 * @param dout (B,T,C)
 * @param ids (B,T) i32
 * @param acc existing gradients to accumulate into; zeros of the type of dout when omitted
 * @returns the accumulated {dwte (V,C), dwpe (maxT,C)} (the `acc` arrays when given)
 * @throws Error naming the argument on a size mismatch or an id out of range.
 */
export function encoderBackwardRef<A extends Floats>(dout: A, ids: Int32Array, d: EncoderDims, acc?: EncoderGrads<A>): EncoderGrads<A> {
  const op = 'encoderBackwardRef';
  checkEncoder(op, ids, d);
  const { B, T, C, V, maxT } = d;
  checkLen(op, 'dout', dout, B * T * C, '(B,T,C)');
  const dwte = acc?.dwte ?? alloc(dout, V * C);
  const dwpe = acc?.dwpe ?? alloc(dout, maxT * C);
  checkLen(op, 'acc.dwte', dwte, V * C, '(V,C)');
  checkLen(op, 'acc.dwpe', dwpe, maxT * C, '(maxT,C)');
  const sumWte = new Float64Array(V * C);
  const sumWpe = new Float64Array(T * C);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * C;
      const w = ids[b * T + t] * C;
      for (let c = 0; c < C; c++) {
        sumWte[w + c] += dout[o + c];
        sumWpe[t * C + c] += dout[o + c];
      }
    }
  }
  for (let i = 0; i < V * C; i++) dwte[i] += sumWte[i];
  for (let i = 0; i < T * C; i++) dwpe[i] += sumWpe[i];
  return { dwte, dwpe };
}
