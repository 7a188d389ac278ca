/**
 * Launcher of shaders/value_loss_backward.wgsl. CPU reference: value_loss_backward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/value_loss_backward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { checkRowDims, prepareEntry, type LossPrepared } from './rl_launch';
import type { ValueLossParams } from './value_loss_forward.ref';
import { valueUniform, type ValueLossBuffers } from './value_loss_forward';

/**
 * Prepare dvalues (B,T) f32 = vfCoef·w·∂l/∂V, written (masked tokens 0).
 * @throws Error naming a bad dimension.
 */
export function prepareValueLossBackward(
  gpu: Gpu,
  bufs: ValueLossBuffers,
  dvalues: GPUBuffer,
  B: number,
  T: number,
  p: ValueLossParams,
  vfCoef: number,
): LossPrepared {
  checkRowDims('prepareValueLossBackward', B, T);
  const params = valueUniform(gpu, 'value_loss_backward', B, T, p, vfCoef);
  const ds: PreparedDispatch[] = [];
  ds.push(prepareEntry(gpu, 'value_loss_backward', code, 'main', 64, B, [
    [0, params],
    [1, bufs.values],
    [2, bufs.oldValues],
    [3, bufs.returns],
    [4, bufs.mask],
    [5, dvalues],
  ]));
  return { dispatches: ds, uniform: params };
}

/** Encode `prepareValueLossBackward`'s dispatches into `pass` (one-off use; the training step prepares once). */
export function encodeValueLossBackward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  bufs: ValueLossBuffers,
  dvalues: GPUBuffer,
  B: number,
  T: number,
  p: ValueLossParams,
  vfCoef: number,
): void {
  encodePrepared(pass, prepareValueLossBackward(gpu, bufs, dvalues, B, T, p, vfCoef).dispatches);
}
