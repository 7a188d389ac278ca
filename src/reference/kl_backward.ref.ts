import { klEstimate, rowWeight } from './rl_math';
import type { KlParams } from './kl_forward.ref';
import { checkRows, type RowDims } from './ref_util';
import { alloc, type Floats } from './ref_util';
import { rowCount } from './surrogate_forward.ref';

/**
 * CPU reference of src/engine/webgpu/shaders/kl_backward.wgsl: klCoef·w·∂k/∂ℓ at valid tokens, 0 elsewhere, with
 * ∂k1/∂ℓ = 1, ∂k2/∂ℓ = ℓ − ℓ_ref, ∂k3/∂ℓ = 1 − e^{x} (x = ℓ_ref − ℓ, 0 when |x| > 20).
 * The kernel ADDS this to dlogprob (after surrogate_backward wrote it); the reference returns
 * the contribution alone.
 * @param logprobs ℓ (B,T) @param refLogprobs ℓ_ref (B,T) @param mask (B,T)
 * @param klCoef weight of the KL term in the total loss
 * @returns the contribution to dlogprob (B,T)
 * @throws Error naming the argument on a size mismatch.
 */
export function klBackwardRef<A extends Floats>(logprobs: A, refLogprobs: A, mask: A, d: RowDims, p: KlParams, klCoef: number): A {
  checkRows('klBackwardRef', d, { logprobs, refLogprobs, mask });
  const { B, T } = d;
  const out = alloc(logprobs, B * T);
  for (let b = 0; b < B; b++) {
    const w = rowWeight(p.aggregation, rowCount(mask, b, T), p.norm);
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (mask[i] > 0) out[i] = klCoef * w * klEstimate(p.estimator, logprobs[i], refLogprobs[i]).dlogp;
    }
  }
  return out;
}
