/**
 * Launcher of shaders/nonfinite_check.wgsl. CPU reference: nonfinite_check.ref.ts.
 */
import code from '../../shaders/nonfinite_check.wgsl?raw';
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { packUniform, prepareEntry } from './rl_launch';

/**
 * Prepare flags[0] |= bit when any of the first n f32 of x is NaN or ±Inf (exponent-bit test).
 * @param flags ≥ 4 bytes, u32 (src/kernels/rl_metrics.ts NONFINITE bits)
 * @throws Error when n is not a positive integer or bit is not a single bit.
 */
export function prepareNonfiniteCheck(gpu: Gpu, x: GPUBuffer, n: number, flags: GPUBuffer, bit: number): PreparedDispatch {
  if (!Number.isInteger(n) || n <= 0) throw new Error(`prepareNonfiniteCheck: n must be a positive integer, got ${n}`);
  if (!(bit > 0 && bit <= 0x80000000 && (bit & (bit - 1)) === 0)) throw new Error(`prepareNonfiniteCheck: bit = ${bit} must be a single bit`);
  const params = packUniform(gpu, 'nonfinite_check-params', [{ u32: n }, { u32: bit >>> 0 }]);
  return prepareEntry(gpu, 'nonfinite_check', code, 'check', 256, n, [[0, params], [1, x], [2, flags]]);
}

/** Prepare flags[0] = 0 (start of an optimizer step). */
export function prepareNonfiniteClear(gpu: Gpu, flags: GPUBuffer): PreparedDispatch {
  return prepareEntry(gpu, 'nonfinite_check', code, 'clear', 1, 1, [[2, flags]], false);
}

/** Encode prepareNonfiniteCheck. */
export function encodeNonfiniteCheck(gpu: Gpu, pass: GPUComputePassEncoder, x: GPUBuffer, n: number, flags: GPUBuffer, bit: number): void {
  encodePrepared(pass, [prepareNonfiniteCheck(gpu, x, n, flags, bit)]);
}

/** Encode prepareNonfiniteClear. */
export function encodeNonfiniteClear(gpu: Gpu, pass: GPUComputePassEncoder, flags: GPUBuffer): void {
  encodePrepared(pass, [prepareNonfiniteClear(gpu, flags)]);
}
