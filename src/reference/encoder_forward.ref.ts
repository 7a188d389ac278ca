import { alloc, checkDim, checkIds, checkLen, type Floats } from './ref_util';

/** Dimensions of the token + position embedding (docs/KERNELS.md). */
export interface EncoderDims {
  /** Batch rows. */
  B: number;
  /** Sequence length (T ≤ maxT). */
  T: number;
  /** Channels. */
  C: number;
  /** Vocabulary size (rows of wte). */
  V: number;
  /** Positions table size (rows of wpe). */
  maxT: number;
}

/** Validates EncoderDims and ids; shared by forward and backward. @internal */
export function checkEncoder(op: string, ids: Int32Array, d: EncoderDims): void {
  for (const k of ['B', 'T', 'C', 'V', 'maxT'] as const) checkDim(op, k, d[k]);
  if (d.T > d.maxT) throw new Error(`${op}: T = ${d.T} exceeds maxT = ${d.maxT}`);
  checkLen(op, 'ids', ids, d.B * d.T, '(B,T)');
  checkIds(op, 'ids', ids, d.V);
}

/**
 * CPU reference of src/engine/webgpu/shaders/encoder_forward.wgsl: out[b,t,:] = wte[ids[b,t],:] + wpe[t,:].
 * Padded positions hold a real token id (e.g. <pad>) and are embedded like any other.
 * @param ids (B,T) i32 in [0, V)
 * @param wte (V,C) token embedding (tied with the lm head)
 * @param wpe (maxT,C) learned positions
 * @returns out (B,T,C), same float type as wte
 * @throws Error naming the argument on a size mismatch, a bad dimension or an id out of range.
 */
export function encoderForwardRef<A extends Floats>(ids: Int32Array, wte: A, wpe: A, d: EncoderDims): A {
  const op = 'encoderForwardRef';
  checkEncoder(op, ids, d);
  const { B, T, C, V, maxT } = d;
  checkLen(op, 'wte', wte, V * C, '(V,C)');
  checkLen(op, 'wpe', wpe, maxT * C, '(maxT,C)');
  const out = alloc(wte, B * T * C);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * C;
      const w = ids[b * T + t] * C;
      const p = t * C;
      for (let c = 0; c < C; c++) out[o + c] = wte[w + c] + wpe[p + c];
    }
  }
  return out;
}
