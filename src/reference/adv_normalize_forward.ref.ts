import { checkRows, type RowDims } from './ref_util';
import { alloc, type Floats } from './ref_util';

/**
 * CPU reference of src/engine/webgpu/shaders/adv_normalize_forward.wgsl: advantage whitening over the batch's
 * valid tokens (verl `masked_whiten`; CleanRL detail #7):
 *   mean = Σ M·A / N,  std = √(Σ M·(A − mean)² / (N − 1))  (0 when N ≤ 1),
 *   out = M > 0 ? (A − mean)/(std + δ) : 0.
 * @param advantages (B,T) @param mask (B,T) @param eps δ > 0
 * @returns whitened advantages (B,T), mean, std, count N
 * @throws Error naming the argument on a size mismatch or eps ≤ 0.
 */
export function advNormalizeForwardRef<A extends Floats>(
  advantages: A,
  mask: A,
  d: RowDims,
  eps: number,
): { advantages: A; mean: number; std: number; count: number } {
  const op = 'advNormalizeForwardRef';
  checkRows(op, d, { advantages, mask });
  if (!(eps > 0)) throw new Error(`${op}: eps = ${eps} must be > 0`);
  let n = 0;
  let s = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] > 0) n++, (s += advantages[i]);
  const mean = n > 0 ? s / n : 0;
  let ss = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] > 0) ss += (advantages[i] - mean) ** 2;
  const std = n > 1 ? Math.sqrt(ss / (n - 1)) : 0;
  const out = alloc(advantages, mask.length);
  for (let i = 0; i < mask.length; i++) out[i] = mask[i] > 0 ? (advantages[i] - mean) / (std + eps) : 0;
  return { advantages: out, mean, std, count: n };
}
