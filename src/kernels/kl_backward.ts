/**
 * Launcher of shaders/kl_backward.wgsl. CPU reference: kl_backward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/kl_backward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { KL_ESTIMATOR_CODE } from './rl_math';
import { checkRowDims, prepareEntry, type LossPrepared, lossParams } from './rl_launch';
import type { KlParams } from './kl_forward.ref';

/**
 * Prepare dlogprob += klCoef·w·∂k/∂ℓ (accumulate; run after encodeSurrogateBackward).
 * @param logprobs,refLogprobs,mask (B,T) f32 @param dlogprob (B,T) f32 in/out
 * @throws Error naming a bad dimension.
 */
export function prepareKlBackward(
  gpu: Gpu,
  logprobs: GPUBuffer,
  refLogprobs: GPUBuffer,
  mask: GPUBuffer,
  dlogprob: GPUBuffer,
  B: number,
  T: number,
  p: KlParams,
  klCoef: number,
): LossPrepared {
  checkRowDims('prepareKlBackward', B, T);
  const params = lossParams(gpu, 'kl_backward', { B, T, aggregation: p.aggregation, norm: p.norm, opt: KL_ESTIMATOR_CODE[p.estimator], coef: klCoef });
  const ds: PreparedDispatch[] = [];
  ds.push(prepareEntry(gpu, 'kl_backward', code, 'main', 64, B, [
    [0, params],
    [1, logprobs],
    [2, refLogprobs],
    [3, mask],
    [4, dlogprob],
  ]));
  return { dispatches: ds, uniform: params };
}

/** Encode `prepareKlBackward`'s dispatches into `pass` (one-off use; the training step prepares once). */
export function encodeKlBackward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  logprobs: GPUBuffer,
  refLogprobs: GPUBuffer,
  mask: GPUBuffer,
  dlogprob: GPUBuffer,
  B: number,
  T: number,
  p: KlParams,
  klCoef: number,
): void {
  encodePrepared(pass, prepareKlBackward(gpu, logprobs, refLogprobs, mask, dlogprob, B, T, p, klCoef).dispatches);
}
