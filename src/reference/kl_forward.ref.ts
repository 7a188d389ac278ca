import { klEstimate, rowWeight, type KlEstimator } from './rl_math';
import { ROW, ROW_STATS } from './rl_metrics';
import { checkRows, type RowDims } from './ref_util';
import { alloc, type Floats } from './ref_util';
import { rowCount, rowStatsFor, type AggParams } from './surrogate_forward.ref';

/** Parameters of kl_forward / kl_backward. */
export interface KlParams extends AggParams {
  estimator: KlEstimator;
}

/**
 * CPU reference of src/engine/webgpu/shaders/kl_forward.wgsl: the per-token estimator k(ℓ, ℓ_ref) of
 * KL(π‖π_ref) (k1, k2 or k3 of Schulman's KL note; k3 ≥ 0 and finite for any finite input, the
 * log-ratio clamped to ±20), aggregated as Σ w·k. Writes rowStats columns KL_SUM and KL_LOSS.
 * @param logprobs ℓ (B,T) @param refLogprobs ℓ_ref (B,T) of the frozen reference policy @param mask (B,T)
 * @returns tokenKl (B,T) (0 where masked), rowStats, loss = Σ_b KL_LOSS (before klCoef)
 * @throws Error naming the argument on a size mismatch.
 */
export function klForwardRef<A extends Floats>(
  logprobs: A,
  refLogprobs: A,
  mask: A,
  d: RowDims,
  p: KlParams,
  rowStats?: A,
): { tokenKl: A; rowStats: A; loss: number } {
  checkRows('klForwardRef', d, { logprobs, refLogprobs, mask });
  const { B, T } = d;
  const rs = rowStatsFor(logprobs, B, rowStats);
  const tokenKl = alloc(logprobs, B * T);
  let loss = 0;
  for (let b = 0; b < B; b++) {
    const w = rowWeight(p.aggregation, rowCount(mask, b, T), p.norm);
    let s = 0;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (mask[i] > 0) s += tokenKl[i] = klEstimate(p.estimator, logprobs[i], refLogprobs[i]).value;
    }
    rs[b * ROW_STATS + ROW.KL_SUM] = s;
    rs[b * ROW_STATS + ROW.KL_LOSS] = w * s;
    loss += w * s;
  }
  return { tokenKl, rowStats: rs, loss };
}
