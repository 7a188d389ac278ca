/**
 * Launcher of src/engine/webgpu/shaders/kl_forward.wgsl. CPU reference: kl_forward.ref.ts.
 */
import common from '../shaders/rl_loss_common.wgsl?raw';
import body from '../shaders/kl_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../device';
import type { TensorView } from './dispatch_plan';
import { KL_ESTIMATOR_CODE } from '../../../reference/rl_math';
import { lossUniform, prepareLossEntry, type LossPrepared, type LossTensor } from './rl_launch';
import { ROW_STATS } from '../../../reference/rl_metrics';
import type { KlParams } from '../../../reference/kl_forward.ref';

/** Inputs of the KL kernels: (B,T) f32 each. */
export interface KlInputs {
  B: number;
  T: number;
  logprobs: TensorView;
  refLogprobs: TensorView;
  mask: TensorView;
  p: KlParams;
}

interface KlForwardArgs extends KlInputs {
  /** (B, ROW_STATS) f32: columns KL_SUM and KL_LOSS written. */
  rowStats: TensorView;
}

/** @internal The LossParams (coef = klCoef) and input tensors of the KL kernels (bindings 0–3). */
export function klSetup(gpu: Gpu, op: string, a: KlInputs, coef = 0): { params: GPUBuffer; inputs: LossTensor[] } {
  const { B, T, p } = a;
  const params = lossUniform(gpu, op, { B, T, aggregation: p.aggregation, norm: p.norm, opt: KL_ESTIMATOR_CODE[p.estimator], coef });
  const n = B * T;
  return {
    params,
    inputs: [
      ['logprobs', a.logprobs, n],
      ['refLogprobs', a.refLogprobs, n],
      ['mask', a.mask, n],
    ],
  };
}

/**
 * Prepare the KL-to-reference rowStats columns. One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareKlForward(gpu: Gpu, a: KlForwardArgs): LossPrepared {
  const op = 'kl_forward';
  const { params, inputs } = klSetup(gpu, op, a);
  const d = prepareLossEntry(gpu, op, code, 'main', 64, a.B, params, [...inputs, ['rowStats', a.rowStats, a.B * ROW_STATS]]);
  return { dispatches: [d], uniform: params };
}
