/**
 * Launcher of shaders/ratio_forward.wgsl. CPU reference: ratio_forward.ref.ts.
 */
import code from '../../shaders/ratio_forward.wgsl?raw';
import type { Gpu } from '../gpu/device';
import { checkRowDims, dispatchEntry, packUniform } from './rl_launch';

/**
 * Encode ρ = exp(clamp(ℓ − ℓ_old, ±20)) at valid tokens, 1 elsewhere, over (B,T).
 * @param logprobs,oldLogprobs,mask (B,T) f32 @param ratio (B,T) f32 out (written)
 * @throws Error when B or T is not a positive integer.
 */
export function encodeRatioForward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  logprobs: GPUBuffer,
  oldLogprobs: GPUBuffer,
  mask: GPUBuffer,
  ratio: GPUBuffer,
  B: number,
  T: number,
): void {
  checkRowDims('encodeRatioForward', B, T);
  const params = packUniform(gpu, 'ratio_forward-params', [{ u32: B * T }]);
  dispatchEntry(gpu, pass, 'ratio_forward', code, 'main', 256, B * T, [
    [0, params],
    [1, logprobs],
    [2, oldLogprobs],
    [3, mask],
    [4, ratio],
  ]);
}
