import { rowWeight, valueLossToken } from './rl_math';
import { ROW, ROW_STATS } from './rl_metrics';
import { checkRows, type RowDims } from './ref_util';
import { alloc, type Floats } from './ref_util';
import { rowCount, rowStatsFor, type AggParams } from './surrogate_forward.ref';

/** Parameters of value_loss_forward / value_loss_backward. */
export interface ValueLossParams extends AggParams {
  /** ε_v > 0, or null for an unclipped value loss. */
  vfClip: number | null;
}

/**
 * CPU reference of src/engine/webgpu/shaders/value_loss_forward.wgsl: the clipped value loss (PPO2 / verl
 * `compute_value_loss`) l = ½·max((V − R)², (V_clip − R)²), V_clip = V_old + clamp(V − V_old, ±ε_v),
 * against the V_old stored at rollout time, aggregated as Σ w·l. Writes rowStats columns VF_LOSS,
 * VF_CLIP, RET_MEAN, RET_M2, RES_MEAN, RES_M2 (residual R − V, for the explained variance).
 * @param values V (B,T) current value head @param oldValues V_old (B,T) @param returns R (B,T) @param mask (B,T)
 * @param rowStats (B, ROW_STATS), optional: written in place
 * @returns tokenLoss (B,T) (0 where masked), rowStats, loss = Σ_b VF_LOSS
 * @throws Error naming the argument on a size mismatch.
 */
export function valueLossForwardRef<A extends Floats>(
  values: A,
  oldValues: A,
  returns: A,
  mask: A,
  d: RowDims,
  p: ValueLossParams,
  rowStats?: A,
): { tokenLoss: A; rowStats: A; loss: number } {
  checkRows('valueLossForwardRef', d, { values, oldValues, returns, mask });
  const { B, T } = d;
  const rs = rowStatsFor(values, B, rowStats);
  const tokenLoss = alloc(values, B * T);
  let loss = 0;
  for (let b = 0; b < B; b++) {
    const nb = rowCount(mask, b, T);
    const w = rowWeight(p.aggregation, nb, p.norm);
    let vf = 0,
      clip = 0,
      rsum = 0,
      esum = 0;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (!(mask[i] > 0)) continue;
      const v = valueLossToken(values[i], oldValues[i], returns[i], p.vfClip);
      tokenLoss[i] = v.loss;
      vf += w * v.loss;
      if (v.clipped) clip++;
      rsum += returns[i];
      esum += returns[i] - values[i];
    }
    const rmean = nb > 0 ? rsum / nb : 0;
    const emean = nb > 0 ? esum / nb : 0;
    let rm2 = 0,
      em2 = 0;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (!(mask[i] > 0)) continue;
      rm2 += (returns[i] - rmean) ** 2;
      em2 += (returns[i] - values[i] - emean) ** 2;
    }
    const o = b * ROW_STATS;
    rs[o + ROW.VF_LOSS] = vf;
    rs[o + ROW.VF_CLIP] = clip;
    rs[o + ROW.RET_MEAN] = rmean;
    rs[o + ROW.RET_M2] = rm2;
    rs[o + ROW.RES_MEAN] = emean;
    rs[o + ROW.RES_M2] = em2;
    loss += vf;
  }
  return { tokenLoss, rowStats: rs, loss };
}
