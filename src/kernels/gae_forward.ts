/**
 * Launcher of shaders/gae_forward.wgsl. CPU reference: gae_forward.ref.ts.
 */
import code from '../../shaders/gae_forward.wgsl?raw';
import type { Gpu } from '../gpu/device';
import { checkRowDims, dispatchEntry, packUniform } from './rl_launch';

/** Buffers of the GAE kernel: (B) per-row inputs and (B,T) tensors, all f32. */
export interface GaeBuffers {
  rewards: GPUBuffer;
  values: GPUBuffer;
  mask: GPUBuffer;
  nextValue: GPUBuffer;
  truncated: GPUBuffer;
  /** (B,T) out, written. */
  advantages: GPUBuffer;
  /** (B,T) out, written. */
  returns: GPUBuffer;
}

/**
 * Encode GAE over policy tokens (one invocation per row).
 * @throws Error naming a bad dimension or γ, λ outside [0, 1].
 */
export function encodeGaeForward(gpu: Gpu, pass: GPUComputePassEncoder, bufs: GaeBuffers, B: number, T: number, p: { gamma: number; lambda: number }): void {
  checkRowDims('encodeGaeForward', B, T);
  if (!(p.gamma >= 0 && p.gamma <= 1)) throw new Error(`encodeGaeForward: gamma = ${p.gamma} must be in [0, 1]`);
  if (!(p.lambda >= 0 && p.lambda <= 1)) throw new Error(`encodeGaeForward: lambda = ${p.lambda} must be in [0, 1]`);
  const params = packUniform(gpu, 'gae_forward-params', [{ u32: B }, { u32: T }, { u32: 0 }, { u32: 0 }, { f32: p.gamma }, { f32: p.lambda }]);
  dispatchEntry(gpu, pass, 'gae_forward', code, 'main', 64, B, [
    [0, params],
    [1, bufs.rewards],
    [2, bufs.values],
    [3, bufs.mask],
    [4, bufs.nextValue],
    [5, bufs.truncated],
    [6, bufs.advantages],
    [7, bufs.returns],
  ]);
}
