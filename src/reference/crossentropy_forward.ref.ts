import { checkLogits, type LogitsDims } from './logprob_forward.ref';
import { alloc, checkLen, logSumExp, type Floats } from './ref_util';

/** @internal @throws Error unless every mask entry is finite and ≥ 0. */
export function checkMask(op: string, mask: Floats, N: number): void {
  checkLen(op, 'mask', mask, N, '(N)');
  for (let i = 0; i < N; i++) {
    if (!(mask[i] >= 0) || !Number.isFinite(mask[i])) throw new Error(`${op}: mask[${i}] = ${mask[i]} must be finite and ≥ 0`);
  }
}

/**
 * The scale the backward pass uses for a token-mean loss: 1/Σmask, or 0 when no token is
 * valid (an all-padding batch then yields zero gradients instead of 0·∞ = NaN).
 * @param mask (N) f32 ≥ 0
 */
export function crossentropyScale(mask: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < mask.length; i++) s += mask[i];
  return s > 0 ? 1 / s : 0;
}

/**
 * CPU reference of src/engine/webgpu/shaders/crossentropy_forward.wgsl, the SFT next-token loss:
 * loss[i] = −(z[a_i] − logsumexp(z_i))·mask[i] (exactly 0 where mask = 0), and the token mean
 * meanLoss = Σ loss / Σ mask, reduced in f64 in increasing i (0 when Σ mask = 0).
 * @param logits (N,V) @param targets (N) i32 @param mask (N) f32 ≥ 0 (1 valid, 0 padding/context)
 * @returns loss (N), lse (N) (saved for the backward pass), meanLoss and maskSum (numbers)
 * @throws Error naming the argument on a size mismatch, a target out of range, or a bad mask.
 */
export function crossentropyForwardRef<A extends Floats>(
  logits: A,
  targets: Int32Array,
  mask: A,
  d: LogitsDims,
): { loss: A; lse: A; meanLoss: number; maskSum: number } {
  const op = 'crossentropyForwardRef';
  checkLogits(op, logits, targets, d);
  const { N, V } = d;
  checkMask(op, mask, N);
  const loss = alloc(logits, N);
  const lse = alloc(logits, N);
  let total = 0;
  let maskSum = 0;
  for (let i = 0; i < N; i++) {
    const l = logSumExp(logits, i * V, V);
    lse[i] = l;
    const li = mask[i] === 0 ? 0 : -(logits[i * V + targets[i]] - l) * mask[i];
    loss[i] = li;
    total += li;
    maskSum += mask[i];
  }
  return { loss, lse, meanLoss: maskSum > 0 ? total / maskSum : 0, maskSum };
}
