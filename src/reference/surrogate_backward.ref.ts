import { ratio, rowWeight, surrogateToken } from './rl_math';
import { checkRows, type RowDims } from './ref_util';
import { alloc, type Floats } from './ref_util';
import { rowCount, type SurrogateParams } from './surrogate_forward.ref';

/**
 * CPU reference of src/engine/webgpu/shaders/surrogate_backward.wgsl: the gradient of the aggregated clipped
 * surrogate loss Σ w·l with respect to the log-probs ℓ (logprob_backward turns it into dlogits):
 *   dℓ = w · ∂l/∂ρ · ∂ρ/∂ℓ = w · (−A) · ρ where the unclipped term is active, 0 where the
 *   clip or dual clip is active, where the log-ratio is outside ±20, and at masked tokens.
 * @param logprobs ℓ (B,T) @param oldLogprobs ℓ_old (B,T) @param advantages A (B,T) @param mask M (B,T)
 * @returns dlogprob (B,T), written (surrogate_backward overwrites; kl_backward adds to it)
 * @throws Error naming the argument on a size mismatch.
 */
export function surrogateBackwardRef<A extends Floats>(
  logprobs: A,
  oldLogprobs: A,
  advantages: A,
  mask: A,
  d: RowDims,
  p: SurrogateParams,
): A {
  checkRows('surrogateBackwardRef', d, { logprobs, oldLogprobs, advantages, mask });
  const { B, T } = d;
  const out = alloc(logprobs, B * T);
  for (let b = 0; b < B; b++) {
    const w = rowWeight(p.aggregation, rowCount(mask, b, T), p.norm);
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (!(mask[i] > 0)) continue;
      const r = ratio(logprobs[i], oldLogprobs[i]);
      out[i] = w * surrogateToken(r.rho, advantages[i], p).drho * r.drho;
    }
  }
  return out;
}
