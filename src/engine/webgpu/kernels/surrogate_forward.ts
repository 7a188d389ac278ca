/**
 * Launcher of src/engine/webgpu/shaders/surrogate_forward.wgsl. CPU reference: surrogate_forward.ref.ts.
 */
import common from '../shaders/rl_loss_common.wgsl?raw';
import body from '../shaders/surrogate_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../device';
import type { TensorView } from './dispatch_plan';
import { lossUniform, prepareLossEntry, type LossPrepared, type LossTensor } from './rl_launch';
import { ROW_STATS } from '../../../reference/rl_metrics';
import type { SurrogateParams } from '../../../reference/surrogate_forward.ref';

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

interface SurrogateForwardArgs extends SurrogateInputs {
  /** (B, ROW_STATS) f32: columns TOKENS … ADV_M2 written, others untouched. */
  rowStats: TensorView;
}

/** @internal The LossParams and input tensors of the surrogate kernels (bindings 0–4). */
export function surrogateSetup(gpu: Gpu, op: string, a: SurrogateInputs): { params: GPUBuffer; inputs: LossTensor[] } {
  const { B, T, p } = a;
  const dual = { opt: p.dualClip !== null ? 1 : 0, dualClip: p.dualClip ?? 0 };
  const params = lossUniform(gpu, op, {
    B,
    T,
    aggregation: p.aggregation,
    norm: p.norm,
    clipLow: p.clipLow,
    clipHigh: p.clipHigh,
    ...dual,
  });
  const n = B * T;
  return {
    params,
    inputs: [
      ['logprobs', a.logprobs, n],
      ['oldLogprobs', a.oldLogprobs, n],
      ['advantages', a.advantages, n],
      ['mask', a.mask, n],
    ],
  };
}

/**
 * Prepare the clipped surrogate's per-row statistics. One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareSurrogateForward(gpu: Gpu, a: SurrogateForwardArgs): LossPrepared {
  const op = 'surrogate_forward';
  const { params, inputs } = surrogateSetup(gpu, op, a);
  const d = prepareLossEntry(gpu, op, code, 'main', 64, a.B, params, [...inputs, ['rowStats', a.rowStats, a.B * ROW_STATS]]);
  return { dispatches: [d], uniform: params };
}
