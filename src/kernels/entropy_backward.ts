/**
 * Launcher of shaders/entropy_backward.wgsl. CPU reference: entropy_backward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/entropy_backward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { checkRowDims, prepareEntry, type LossPrepared } from './rl_launch';
import type { EntropyParams } from './entropy_forward.ref';
import { entropyUniform, type EntropyBuffers } from './entropy_forward';

/**
 * Prepare dlogits (B·T, V) f32 += dentropy·∂H/∂z (accumulate onto logprob_backward's output).
 * One invocation per logit.
 * @throws Error naming a bad dimension.
 */
export function prepareEntropyBackward(
  gpu: Gpu,
  bufs: EntropyBuffers,
  dlogits: GPUBuffer,
  B: number,
  T: number,
  V: number,
  p: EntropyParams,
): LossPrepared {
  checkRowDims('prepareEntropyBackward', B, T);
  if (!Number.isInteger(V) || V <= 0) throw new Error(`prepareEntropyBackward: V must be a positive integer, got ${V}`);
  const params = entropyUniform(gpu, 'entropy_backward', B, T, V, p);
  const ds: PreparedDispatch[] = [];
  ds.push(prepareEntry(gpu, 'entropy_backward', code, 'main', 256, B * T * V, [
    [0, params],
    [1, bufs.logits],
    [2, bufs.lse],
    [3, bufs.entropy],
    [4, bufs.dentropy],
    [5, dlogits],
  ]));
  return { dispatches: ds, uniform: params };
}

/** Encode `prepareEntropyBackward`'s dispatches into `pass` (one-off use; the training step prepares once). */
export function encodeEntropyBackward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  bufs: EntropyBuffers,
  dlogits: GPUBuffer,
  B: number,
  T: number,
  V: number,
  p: EntropyParams,
): void {
  encodePrepared(pass, prepareEntropyBackward(gpu, bufs, dlogits, B, T, V, p).dispatches);
}
