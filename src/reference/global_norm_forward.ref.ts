import type { Floats } from './ref_util';

/**
 * The clipping multiplier of global-norm gradient clipping (Pascanu et al. 2013):
 * min(1, maxNorm/(norm + 1e-6)); 1 when maxNorm is +Infinity (no clipping).
 * A non-finite norm gives 0 for +Infinity and NaN for NaN: the trainer must check the norm.
 * @throws Error when maxNorm is not > 0.
 */
function gradScaleFromNorm(norm: number, maxNorm: number): number {
  if (!(maxNorm > 0)) throw new Error(`gradScaleFromNorm: maxNorm = ${maxNorm} must be > 0`);
  if (maxNorm === Infinity) return 1;
  return Math.min(1, maxNorm / (norm + 1e-6));
}

/**
 * CPU reference of src/engine/webgpu/shaders/global_norm_forward.wgsl: norm = √Σ g², summed in f64 in
 * increasing index order (the kernel's two-stage fixed-order reduction in f32 agrees to within
 * rounding), and the clipping multiplier gradScale = min(1, maxNorm/(norm + 1e-6)).
 * @param grads (P)
 * @param maxNorm clip threshold > 0 (default +Infinity: no clipping, gradScale = 1)
 * @returns sumsq, norm, gradScale (numbers)
 * @throws Error when maxNorm is not > 0.
 */
export function globalNormForwardRef(grads: Floats, maxNorm = Infinity): { sumsq: number; norm: number; gradScale: number } {
  let sumsq = 0;
  for (let i = 0; i < grads.length; i++) sumsq += grads[i] * grads[i];
  const norm = Math.sqrt(sumsq);
  return { sumsq, norm, gradScale: gradScaleFromNorm(norm, maxNorm) };
}
