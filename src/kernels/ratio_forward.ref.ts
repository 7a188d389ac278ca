import { ratio } from './rl_math';
import { alloc, checkDim, checkLen, type Floats } from './ref_util';

/** Rows × tokens of a (B, T) batch of the RL kernels. */
export interface RowDims {
  /** Rows. */
  B: number;
  /** Tokens per row (padded). */
  T: number;
}

/** @internal @throws Error naming the argument unless B, T are positive integers and each array is (B,T). */
export function checkRows(op: string, d: RowDims, arrays: Record<string, Floats | null | undefined>): void {
  checkDim(op, 'B', d.B);
  checkDim(op, 'T', d.T);
  for (const [name, a] of Object.entries(arrays)) checkLen(op, name, a, d.B * d.T, '(B,T)');
}

/**
 * CPU reference of shaders/ratio_forward.wgsl: the importance ratio
 * ρ = exp(clamp(ℓ − ℓ_old, ±20)) at valid tokens (mask > 0) and exactly 1 elsewhere, so that
 * garbage log-probs at padding never produce NaN (PPO, Schulman et al. 2017; clamp as verl).
 * @param logprobs ℓ (B,T) under the current parameters
 * @param oldLogprobs ℓ_old (B,T) recorded by the sampler at rollout time
 * @param mask M (B,T), 1 at policy tokens, 0 at context/observation/padding
 * @returns ρ (B,T)
 * @throws Error naming the argument on a size mismatch.
 */
export function ratioForwardRef<A extends Floats>(logprobs: A, oldLogprobs: A, mask: A, d: RowDims): A {
  checkRows('ratioForwardRef', d, { logprobs, oldLogprobs, mask });
  const out = alloc(logprobs, d.B * d.T);
  for (let i = 0; i < out.length; i++) out[i] = mask[i] > 0 ? ratio(logprobs[i], oldLogprobs[i]).rho : 1;
  return out;
}
