/**
 * Launcher of src/engine/webgpu/shaders/value_loss_backward.wgsl. CPU reference: value_loss_backward.ref.ts.
 */
import common from '../shaders/rl_loss_common.wgsl?raw';
import body from '../shaders/value_loss_backward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../device';
import type { TensorView } from './dispatch_plan';
import { prepareLossEntry, type LossPrepared } from './rl_launch';
import { valueLossSetup, type ValueLossInputs } from './value_loss_forward';

interface ValueLossBackwardArgs extends ValueLossInputs {
  /** Weight of the value loss in the total loss. */
  vfCoef: number;
  /** (B,T) f32 out: ∂(vfCoef · aggregated value loss)/∂V, written (masked tokens 0). */
  dvalues: TensorView;
}

/**
 * Prepare dvalues. One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareValueLossBackward(gpu: Gpu, a: ValueLossBackwardArgs): LossPrepared {
  const op = 'value_loss_backward';
  const { params, inputs } = valueLossSetup(gpu, op, a, a.vfCoef);
  const d = prepareLossEntry(gpu, op, code, 'main', 64, a.B, params, [...inputs, ['dvalues', a.dvalues, a.B * a.T]]);
  return { dispatches: [d], uniform: params };
}
