/**
 * Launcher of src/engine/webgpu/shaders/entropy_forward.wgsl. CPU reference: entropy_forward.ref.ts.
 */
import common from '../shaders/rl_loss_common.wgsl?raw';
import body from '../shaders/entropy_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../device';
import type { TensorView } from './dispatch_plan';
import { checkDims, checkRowDims, lossParams, prepareEntry, wholeView, type LossPrepared } from './rl_launch';
import { ROW_STATS } from '../../../reference/rl_metrics';
import type { EntropyParams } from '../../../reference/entropy_forward.ref';
import { checkTemperature } from '../../../reference/ref_util';

/** Dims, parameters and tensors of both entropy kernels (the forward writes entropy, lse, dentropy; the backward reads them). */
export interface EntropyArgs {
  B: number;
  T: number;
  /** Vocabulary. */
  V: number;
  /** (B·T, V) f32. */
  logits: TensorView;
  /** (B·T) f32 out: H (nats), 0 where masked. */
  entropy: TensorView;
  /** (B·T) f32 out: logsumexp of the logits / τ, 0 where masked. */
  lse: TensorView;
  /** (B·T) f32 out: ∂L/∂H = −entCoef·w, 0 where masked. */
  dentropy: TensorView;
  p: EntropyParams;
}

interface EntropyForwardArgs extends EntropyArgs {
  /** (B,T) f32. */
  mask: TensorView;
  /** (B, ROW_STATS) f32: columns ENT_SUM and ENT_LOSS written. */
  rowStats: TensorView;
}

/**
 * @internal The dims and the views of EntropyArgs, checked (nothing created on the GPU).
 * @throws Error naming the launcher and a bad dimension or view.
 */
export function entropyViews(
  op: string,
  a: EntropyArgs,
): { n: number; logits: GPUBuffer; entropy: GPUBuffer; lse: GPUBuffer; dentropy: GPUBuffer } {
  const { B, T, V } = a;
  checkRowDims(op, B, T);
  checkDims(op, { V });
  const n = B * T;
  return {
    n,
    logits: wholeView(op, 'logits', a.logits, n * V),
    entropy: wholeView(op, 'entropy', a.entropy, n),
    lse: wholeView(op, 'lse', a.lse, n),
    dentropy: wholeView(op, 'dentropy', a.dentropy, n),
  };
}

/** @internal */
export function entropyUniform(gpu: Gpu, label: string, B: number, T: number, V: number, p: EntropyParams): GPUBuffer {
  const temperature = p.temperature ?? 1;
  checkTemperature(label, temperature);
  return lossParams(gpu, label, { B, T, V, aggregation: p.aggregation, norm: p.norm, coef: p.entCoef, temperature });
}

/**
 * Prepare the entropy forward pass at temperature p.temperature (H of softmax(z/τ); two
 * dispatches: `tokens` per position, `rows` per row),
 * writing entropy, lse, dentropy and the rowStats columns ENT_SUM, ENT_LOSS.
 * @throws Error naming a bad dimension, a view outside its buffer or a bad τ.
 */
export function prepareEntropyForward(gpu: Gpu, a: EntropyForwardArgs): LossPrepared {
  const op = 'entropy_forward';
  const { B, T, V } = a;
  const { n, logits, entropy, lse, dentropy } = entropyViews(op, a);
  const mask = wholeView(op, 'mask', a.mask, n);
  const rowStats = wholeView(op, 'rowStats', a.rowStats, B * ROW_STATS);
  const params = entropyUniform(gpu, op, B, T, V, a.p);
  const tokens = prepareEntry(gpu, op, code, 'tokens', 64, n, [
    [0, params],
    [1, logits],
    [2, mask],
    [3, entropy],
    [4, lse],
  ]);
  const rows = prepareEntry(gpu, op, code, 'rows', 64, B, [
    [0, params],
    [2, mask],
    [3, entropy],
    [5, dentropy],
    [6, rowStats],
  ]);
  return { dispatches: [tokens, rows], uniform: params };
}
