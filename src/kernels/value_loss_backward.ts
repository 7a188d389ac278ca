/**
 * Launcher of shaders/value_loss_backward.wgsl. CPU reference: value_loss_backward.ref.ts.
 */
import common from '../../shaders/rl_loss_common.wgsl?raw';
import body from '../../shaders/value_loss_backward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../gpu/device';
import type { TensorView } from './dispatch_plan';
import { prepareEntry, wholeView, type LossPrepared } from './rl_launch';
import { valueLossSetup, type ValueLossInputs } from './value_loss_forward';

export interface ValueLossBackwardArgs extends ValueLossInputs {
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
  const { params, inputs } = valueLossSetup(op, gpu, a, a.vfCoef);
  const dvalues = wholeView(op, 'dvalues', a.dvalues, a.B * a.T);
  const d = prepareEntry(gpu, op, code, 'main', 64, a.B, [[0, params], ...inputs.map((b, i) => [i + 1, b] as const), [5, dvalues]]);
  return { dispatches: [d], uniform: params };
}
