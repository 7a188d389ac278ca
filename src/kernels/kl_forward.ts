/**
 * Launcher of shaders/kl_forward.wgsl. CPU reference: kl_forward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/kl_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { KL_ESTIMATOR_CODE } from './rl_math';
import { checkRowDims, prepareEntry, type LossPrepared, lossParams } from './rl_launch';
import type { KlParams } from './kl_forward.ref';

/**
 * Prepare the KL-to-reference rowStats columns KL_SUM and KL_LOSS. One invocation per row.
 * @param logprobs,refLogprobs,mask (B,T) f32 @param rowStats (B, ROW_STATS) f32
 * @throws Error naming a bad dimension.
 */
export function prepareKlForward(
  gpu: Gpu,
  logprobs: GPUBuffer,
  refLogprobs: GPUBuffer,
  mask: GPUBuffer,
  rowStats: GPUBuffer,
  B: number,
  T: number,
  p: KlParams,
): LossPrepared {
  checkRowDims('prepareKlForward', B, T);
  const params = lossParams(gpu, 'kl_forward', { B, T, aggregation: p.aggregation, norm: p.norm, opt: KL_ESTIMATOR_CODE[p.estimator] });
  const ds: PreparedDispatch[] = [];
  ds.push(prepareEntry(gpu, 'kl_forward', code, 'main', 64, B, [
    [0, params],
    [1, logprobs],
    [2, refLogprobs],
    [3, mask],
    [4, rowStats],
  ]));
  return { dispatches: ds, uniform: params };
}

/** Encode `prepareKlForward`'s dispatches into `pass` (one-off use; the training step prepares once). */
export function encodeKlForward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  logprobs: GPUBuffer,
  refLogprobs: GPUBuffer,
  mask: GPUBuffer,
  rowStats: GPUBuffer,
  B: number,
  T: number,
  p: KlParams,
): void {
  encodePrepared(pass, prepareKlForward(gpu, logprobs, refLogprobs, mask, rowStats, B, T, p).dispatches);
}
