/**
 * Launcher of shaders/value_loss_forward.wgsl. CPU reference: value_loss_forward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/value_loss_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { checkRowDims, prepareEntry, type LossPrepared, lossParams } from './rl_launch';
import type { ValueLossParams } from './value_loss_forward.ref';

/** Inputs of the value-loss kernels: (B,T) f32. */
export interface ValueLossBuffers {
  values: GPUBuffer;
  oldValues: GPUBuffer;
  returns: GPUBuffer;
  mask: GPUBuffer;
}

/** @internal */
export function valueUniform(gpu: Gpu, label: string, B: number, T: number, p: ValueLossParams, coef = 0): GPUBuffer {
  return lossParams(gpu, label, { B, T, aggregation: p.aggregation, norm: p.norm, opt: p.vfClip !== null ? 1 : 0, vfClip: p.vfClip ?? 0, coef });
}

/**
 * Prepare the value-loss rowStats columns VF_LOSS … RES_M2. One invocation per row.
 * @throws Error naming a bad dimension.
 */
export function prepareValueLossForward(
  gpu: Gpu,
  bufs: ValueLossBuffers,
  rowStats: GPUBuffer,
  B: number,
  T: number,
  p: ValueLossParams,
): LossPrepared {
  checkRowDims('prepareValueLossForward', B, T);
  const params = valueUniform(gpu, 'value_loss_forward', B, T, p);
  const ds: PreparedDispatch[] = [];
  ds.push(prepareEntry(gpu, 'value_loss_forward', code, 'main', 64, B, [
    [0, params],
    [1, bufs.values],
    [2, bufs.oldValues],
    [3, bufs.returns],
    [4, bufs.mask],
    [5, rowStats],
  ]));
  return { dispatches: ds, uniform: params };
}

/** Encode `prepareValueLossForward`'s dispatches into `pass` (one-off use; the training step prepares once). */
export function encodeValueLossForward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  bufs: ValueLossBuffers,
  rowStats: GPUBuffer,
  B: number,
  T: number,
  p: ValueLossParams,
): void {
  encodePrepared(pass, prepareValueLossForward(gpu, bufs, rowStats, B, T, p).dispatches);
}
