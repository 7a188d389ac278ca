/**
 * Launcher of shaders/entropy_forward.wgsl. CPU reference: entropy_forward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/entropy_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import { encodePrepared, type PreparedDispatch } from './dispatch_plan';
import { checkRowDims, prepareEntry, type LossPrepared, lossParams } from './rl_launch';
import type { EntropyParams } from './entropy_forward.ref';

/** Buffers of the entropy kernels. */
export interface EntropyBuffers {
  /** (B·T, V) f32. */
  logits: GPUBuffer;
  /** (B,T) f32. */
  mask: GPUBuffer;
  /** (B·T) f32 out: H (nats), 0 where masked. */
  entropy: GPUBuffer;
  /** (B·T) f32 out: logsumexp of the logits, 0 where masked. */
  lse: GPUBuffer;
  /** (B·T) f32 out: ∂L/∂H = −entCoef·w, 0 where masked. */
  dentropy: GPUBuffer;
}

/** @internal */
export function entropyUniform(gpu: Gpu, label: string, B: number, T: number, V: number, p: EntropyParams): GPUBuffer {
  return lossParams(gpu, label, { B, T, V, aggregation: p.aggregation, norm: p.norm, coef: p.entCoef });
}

/**
 * Prepare the entropy forward pass (two dispatches: `tokens` per position, `rows` per row),
 * writing entropy, lse, dentropy and the rowStats columns ENT_SUM, ENT_LOSS.
 * @throws Error naming a bad dimension.
 */
export function prepareEntropyForward(
  gpu: Gpu,
  bufs: EntropyBuffers,
  rowStats: GPUBuffer,
  B: number,
  T: number,
  V: number,
  p: EntropyParams,
): LossPrepared {
  checkRowDims('prepareEntropyForward', B, T);
  if (!Number.isInteger(V) || V <= 0) throw new Error(`prepareEntropyForward: V must be a positive integer, got ${V}`);
  const params = entropyUniform(gpu, 'entropy_forward', B, T, V, p);
  const ds: PreparedDispatch[] = [];
  ds.push(prepareEntry(gpu, 'entropy_forward', code, 'tokens', 64, B * T, [
    [0, params],
    [1, bufs.logits],
    [2, bufs.mask],
    [3, bufs.entropy],
    [4, bufs.lse],
  ]));
  ds.push(prepareEntry(gpu, 'entropy_forward', code, 'rows', 64, B, [
    [0, params],
    [2, bufs.mask],
    [3, bufs.entropy],
    [5, bufs.dentropy],
    [6, rowStats],
  ]));
  return { dispatches: ds, uniform: params };
}

/** Encode `prepareEntropyForward`'s dispatches into `pass` (one-off use; the training step prepares once). */
export function encodeEntropyForward(
  gpu: Gpu,
  pass: GPUComputePassEncoder,
  bufs: EntropyBuffers,
  rowStats: GPUBuffer,
  B: number,
  T: number,
  V: number,
  p: EntropyParams,
): void {
  encodePrepared(pass, prepareEntropyForward(gpu, bufs, rowStats, B, T, V, p).dispatches);
}
