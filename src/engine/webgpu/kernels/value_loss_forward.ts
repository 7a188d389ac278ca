/**
 * Launcher of src/engine/webgpu/shaders/value_loss_forward.wgsl. CPU reference: value_loss_forward.ref.ts.
 */
import common from '../shaders/rl_loss_common.wgsl?raw';
import body from '../shaders/value_loss_forward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../device';
import type { TensorView } from './dispatch_plan';
import { lossUniform, prepareLossEntry, type LossPrepared, type LossTensor } from './rl_launch';
import { ROW_STATS } from '../../../reference/rl_metrics';
import type { ValueLossParams } from '../../../reference/value_loss_forward.ref';

/** Inputs of the value-loss kernels: (B,T) f32 each. */
export interface ValueLossInputs {
  B: number;
  T: number;
  values: TensorView;
  oldValues: TensorView;
  returns: TensorView;
  mask: TensorView;
  p: ValueLossParams;
}

interface ValueLossForwardArgs extends ValueLossInputs {
  /** (B, ROW_STATS) f32: columns VF_LOSS … RES_M2 written. */
  rowStats: TensorView;
}

/** @internal The LossParams (coef = vfCoef) and input tensors of the value-loss kernels (bindings 0–4). */
export function valueLossSetup(gpu: Gpu, op: string, a: ValueLossInputs, coef = 0): { params: GPUBuffer; inputs: LossTensor[] } {
  const { B, T, p } = a;
  const clip = { opt: p.vfClip !== null ? 1 : 0, vfClip: p.vfClip ?? 0 };
  const params = lossUniform(gpu, op, { B, T, aggregation: p.aggregation, norm: p.norm, ...clip, coef });
  const n = B * T;
  return {
    params,
    inputs: [
      ['values', a.values, n],
      ['oldValues', a.oldValues, n],
      ['returns', a.returns, n],
      ['mask', a.mask, n],
    ],
  };
}

/**
 * Prepare the value-loss rowStats columns. One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareValueLossForward(gpu: Gpu, a: ValueLossForwardArgs): LossPrepared {
  const op = 'value_loss_forward';
  const { params, inputs } = valueLossSetup(gpu, op, a);
  const d = prepareLossEntry(gpu, op, code, 'main', 64, a.B, params, [...inputs, ['rowStats', a.rowStats, a.B * ROW_STATS]]);
  return { dispatches: [d], uniform: params };
}
