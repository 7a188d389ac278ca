import { rowWeight, valueLossToken } from './rl_math';
import { checkRows, type RowDims } from './ref_util';
import { alloc, type Floats } from './ref_util';
import { rowCount } from './surrogate_forward.ref';
import type { ValueLossParams } from './value_loss_forward.ref';

/**
 * CPU reference of src/engine/webgpu/shaders/value_loss_backward.wgsl: dvalues = vfCoef·w·∂l/∂V with
 * ∂l/∂V = V − R on the unclipped branch, V_clip − R on the clipped branch while V is inside the
 * band (0 outside it), 0 at masked tokens.
 * @param values V (B,T) @param oldValues V_old (B,T) @param returns R (B,T) @param mask (B,T)
 * @param vfCoef weight of the value loss in the total loss
 * @returns dvalues (B,T), written
 * @throws Error naming the argument on a size mismatch.
 */
export function valueLossBackwardRef<A extends Floats>(
  values: A,
  oldValues: A,
  returns: A,
  mask: A,
  d: RowDims,
  p: ValueLossParams,
  vfCoef: number,
): A {
  checkRows('valueLossBackwardRef', d, { values, oldValues, returns, mask });
  const { B, T } = d;
  const out = alloc(values, B * T);
  for (let b = 0; b < B; b++) {
    const w = rowWeight(p.aggregation, rowCount(mask, b, T), p.norm);
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (mask[i] > 0) out[i] = vfCoef * w * valueLossToken(values[i], oldValues[i], returns[i], p.vfClip).dv;
    }
  }
  return out;
}
