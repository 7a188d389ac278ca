/**
 * Launcher of shaders/surrogate_forward.wgsl. CPU reference: surrogate_forward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/surrogate_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { checkRowDims, prepareEntry, type LossPrepared, lossParams } from './rl_launch';
import type { SurrogateParams } from './surrogate_forward.ref';

/** Inputs of the surrogate kernels: (B,T) f32. */
export interface SurrogateBuffers {
  logprobs: GPUBuffer;
  oldLogprobs: GPUBuffer;
  advantages: GPUBuffer;
  mask: GPUBuffer;
}

/** @internal The LossParams of the surrogate kernels. */
export function surrogateUniform(gpu: Gpu, label: string, B: number, T: number, p: SurrogateParams): GPUBuffer {
  return lossParams(gpu, label, {
    B,
    T,
    aggregation: p.aggregation,
    norm: p.norm,
    opt: p.dualClip !== null ? 1 : 0,
    clipLow: p.clipLow,
    clipHigh: p.clipHigh,
    dualClip: p.dualClip ?? 0,
  });
}

/**
 * Prepare the clipped surrogate's per-row statistics into rowStats (B, ROW_STATS) f32 (columns
 * TOKENS … ADV_M2; others untouched). One invocation per row.
 * @throws Error naming a bad dimension.
 */
export function prepareSurrogateForward(
  gpu: Gpu,
  bufs: SurrogateBuffers,
  rowStats: GPUBuffer,
  B: number,
  T: number,
  p: SurrogateParams,
): LossPrepared {
  checkRowDims('prepareSurrogateForward', B, T);
  const params = surrogateUniform(gpu, 'surrogate_forward', B, T, p);
  const ds: PreparedDispatch[] = [];
  ds.push(prepareEntry(gpu, 'surrogate_forward', code, 'main', 64, B, [
    [0, params],
    [1, bufs.logprobs],
    [2, bufs.oldLogprobs],
    [3, bufs.advantages],
    [4, bufs.mask],
    [5, rowStats],
  ]));
  return { dispatches: ds, uniform: params };
}

/** Encode `prepareSurrogateForward`'s dispatches into `pass` (one-off use; the training step prepares once). */
export function encodeSurrogateForward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  bufs: SurrogateBuffers,
  rowStats: GPUBuffer,
  B: number,
  T: number,
  p: SurrogateParams,
): void {
  encodePrepared(pass, prepareSurrogateForward(gpu, bufs, rowStats, B, T, p).dispatches);
}
