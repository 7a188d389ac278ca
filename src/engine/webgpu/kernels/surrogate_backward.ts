/**
 * Launcher of src/engine/webgpu/shaders/surrogate_backward.wgsl. CPU reference: surrogate_backward.ref.ts.
 */
import common from '../shaders/rl_loss_common.wgsl?raw';
import body from '../shaders/surrogate_backward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../device';
import type { TensorView } from './dispatch_plan';
import { prepareLossEntry, type LossPrepared } from './rl_launch';
import { surrogateSetup, type SurrogateInputs } from './surrogate_forward';

interface SurrogateBackwardArgs extends SurrogateInputs {
  /** (B,T) f32 out: ∂(aggregated surrogate)/∂ℓ, written (masked tokens 0). */
  dlogprob: TensorView;
}

/**
 * Prepare dlogprob = ∂(aggregated surrogate)/∂ℓ. One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareSurrogateBackward(gpu: Gpu, a: SurrogateBackwardArgs): LossPrepared {
  const op = 'surrogate_backward';
  const { params, inputs } = surrogateSetup(gpu, op, a);
  const d = prepareLossEntry(gpu, op, code, 'main', 64, a.B, params, [...inputs, ['dlogprob', a.dlogprob, a.B * a.T]]);
  return { dispatches: [d], uniform: params };
}
