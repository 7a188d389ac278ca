/**
 * Launcher of shaders/adv_normalize_forward.wgsl. CPU reference: adv_normalize_forward.ref.ts.
 */
import code from '../../shaders/adv_normalize_forward.wgsl?raw';
import type { Gpu } from '../gpu/device';
import { checkRowDims, dispatchEntry, packUniform } from './rl_launch';

/** Bytes of the scratch buffer encodeAdvNormalizeForward needs: (B + 1) vec4 f32. */
export function advNormalizeScratchBytes(B: number): number {
  return (B + 1) * 16;
}

/**
 * Encode masked whitening of `advantages` (B,T) in place (three dispatches: rows, combine,
 * apply). After it, scratch[B] holds (n, mean, std, 0) for inspection.
 * @param scratch ≥ advNormalizeScratchBytes(B)
 * @throws Error naming a bad dimension or eps ≤ 0.
 */
export function encodeAdvNormalizeForward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  advantages: GPUBuffer,
  mask: GPUBuffer,
  scratch: GPUBuffer,
  B: number,
  T: number,
  eps: number,
): void {
  checkRowDims('encodeAdvNormalizeForward', B, T);
  if (!(eps > 0)) throw new Error(`encodeAdvNormalizeForward: eps = ${eps} must be > 0`);
  if (scratch.size < advNormalizeScratchBytes(B)) throw new Error(`encodeAdvNormalizeForward: scratch has ${scratch.size} bytes, needs ${advNormalizeScratchBytes(B)}`);
  const params = packUniform(gpu, 'adv_normalize_forward-params', [{ u32: B }, { u32: T }, { u32: 0 }, { u32: 0 }, { f32: eps }]);
  const label = 'adv_normalize_forward';
  dispatchEntry(gpu, pass, label, code, 'rows', 64, B, [[0, params], [1, advantages], [2, mask], [3, scratch]]);
  dispatchEntry(gpu, pass, label, code, 'combine', 1, 1, [[0, params], [3, scratch]], false);
  dispatchEntry(gpu, pass, label, code, 'apply', 64, B * T, [[0, params], [1, advantages], [2, mask], [3, scratch]]);
}
