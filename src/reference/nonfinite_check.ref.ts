import type { Floats } from './ref_util';

/**
 * CPU reference of src/engine/webgpu/shaders/nonfinite_check.wgsl: `bit` if any value of `x` is NaN or ±Inf,
 * else 0. The shader tests the f32 exponent bits ((bits & 0x7f800000) == 0x7f800000) rather than
 * `x != x`, which WGSL compilers may fold to false under fast-math assumptions.
 * @param x any f32 tensor, every element checked (padding included: NaN logits at padding would
 *   still poison dlogits and the parameters)
 * @param bit the source's bit of the flag word (src/reference/rl_metrics.ts NONFINITE)
 */
export function nonfiniteCheckRef(x: Floats, bit: number): number {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i])) return bit;
  return 0;
}
