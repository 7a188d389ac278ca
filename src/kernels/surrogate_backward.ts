/**
 * Launcher of shaders/surrogate_backward.wgsl. CPU reference: surrogate_backward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/surrogate_backward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { checkRowDims, prepareEntry, type LossPrepared } from './rl_launch';
import type { SurrogateParams } from './surrogate_forward.ref';
import { surrogateUniform, type SurrogateBuffers } from './surrogate_forward';

/**
 * Prepare dlogprob (B,T) f32 = ∂(aggregated surrogate)/∂ℓ, written (masked tokens 0).
 * @throws Error naming a bad dimension.
 */
export function prepareSurrogateBackward(
  gpu: Gpu,
  bufs: SurrogateBuffers,
  dlogprob: GPUBuffer,
  B: number,
  T: number,
  p: SurrogateParams,
): LossPrepared {
  checkRowDims('prepareSurrogateBackward', B, T);
  const params = surrogateUniform(gpu, 'surrogate_backward', B, T, p);
  const ds: PreparedDispatch[] = [];
  ds.push(prepareEntry(gpu, 'surrogate_backward', code, 'main', 64, B, [
    [0, params],
    [1, bufs.logprobs],
    [2, bufs.oldLogprobs],
    [3, bufs.advantages],
    [4, bufs.mask],
    [5, dlogprob],
  ]));
  return { dispatches: ds, uniform: params };
}

/** Encode `prepareSurrogateBackward`'s dispatches into `pass` (one-off use; the training step prepares once). */
export function encodeSurrogateBackward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  bufs: SurrogateBuffers,
  dlogprob: GPUBuffer,
  B: number,
  T: number,
  p: SurrogateParams,
): void {
  encodePrepared(pass, prepareSurrogateBackward(gpu, bufs, dlogprob, B, T, p).dispatches);
}
