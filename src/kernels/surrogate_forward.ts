/**
 * Launcher of shaders/surrogate_forward.wgsl. CPU reference: surrogate_forward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/surrogate_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import type { TensorView } from './dispatch_plan';
import { checkRowDims, lossParams, prepareEntry, wholeView, type LossPrepared } from './rl_launch';
import { ROW_STATS } from './rl_metrics';
import type { SurrogateParams } from './surrogate_forward.ref';

/** Inputs of the surrogate kernels: (B,T) f32 each. */
export interface SurrogateInputs {
  B: number;
  T: number;
  logprobs: TensorView;
  oldLogprobs: TensorView;
  advantages: TensorView;
  mask: TensorView;
  p: SurrogateParams;
}

export interface SurrogateForwardArgs extends SurrogateInputs {
  /** (B, ROW_STATS) f32: columns TOKENS … ADV_M2 written, others untouched. */
  rowStats: TensorView;
}

/** @internal The LossParams of the surrogate kernels, after checking the dimensions and inputs. */
export function surrogateSetup(op: string, gpu: Gpu, a: SurrogateInputs): { params: GPUBuffer; inputs: GPUBuffer[] } {
  checkRowDims(op, a.B, a.T);
  const n = a.B * a.T;
  const inputs = (['logprobs', 'oldLogprobs', 'advantages', 'mask'] as const).map((k) => wholeView(op, k, a[k], n));
  const { p } = a;
  const params = lossParams(gpu, op, {
    B: a.B,
    T: a.T,
    aggregation: p.aggregation,
    norm: p.norm,
    opt: p.dualClip !== null ? 1 : 0,
    clipLow: p.clipLow,
    clipHigh: p.clipHigh,
    dualClip: p.dualClip ?? 0,
  });
  return { params, inputs };
}

/**
 * Prepare the clipped surrogate's per-row statistics. One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareSurrogateForward(gpu: Gpu, a: SurrogateForwardArgs): LossPrepared {
  const op = 'surrogate_forward';
  const { params, inputs } = surrogateSetup(op, gpu, a);
  const rowStats = wholeView(op, 'rowStats', a.rowStats, a.B * ROW_STATS);
  const d = prepareEntry(gpu, op, code, 'main', 64, a.B, [[0, params], ...inputs.map((b, i) => [i + 1, b] as const), [5, rowStats]]);
  return { dispatches: [d], uniform: params };
}
