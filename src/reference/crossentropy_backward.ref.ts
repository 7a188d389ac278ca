import { checkMask } from './crossentropy_forward.ref';
import { checkLogits, type LogitsDims } from './logprob_forward.ref';
import { alloc, checkLen, type Floats } from './ref_util';

/**
 * CPU reference of src/engine/webgpu/shaders/crossentropy_backward.wgsl, gradient of scale·Σ loss:
 * dlogits[i,j] = scale·mask[i]·(p_ij − 1[j = a_i]), p_ij = exp(z_ij − lse_i). Rows with
 * mask = 0 are exactly zero. For the token-mean loss pass scale = crossentropyScale(mask).
 * @param logits (N,V) @param targets (N) i32 @param mask (N) @param lse (N) from the forward
 * @param scale finite number (1/Σmask, or 0 for an all-masked batch)
 * @returns dlogits (N,V), written
 * @throws Error naming the argument on a size mismatch, a bad mask or a non-finite scale.
 */
export function crossentropyBackwardRef<A extends Floats>(
  logits: A,
  targets: Int32Array,
  mask: A,
  lse: A,
  scale: number,
  d: LogitsDims,
): A {
  const op = 'crossentropyBackwardRef';
  checkLogits(op, logits, targets, d);
  const { N, V } = d;
  checkMask(op, mask, N);
  checkLen(op, 'lse', lse, N, '(N)');
  if (!Number.isFinite(scale)) throw new Error(`${op}: scale = ${scale} must be finite (use crossentropyScale(mask))`);
  const dlogits = alloc(logits, N * V);
  for (let i = 0; i < N; i++) {
    const g = scale * mask[i];
    if (g === 0) continue;
    const o = i * V;
    for (let j = 0; j < V; j++) dlogits[o + j] = g * Math.exp(logits[o + j] - lse[i]);
    dlogits[o + targets[i]] -= g;
  }
  return dlogits;
}
