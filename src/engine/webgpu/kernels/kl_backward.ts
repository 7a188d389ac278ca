/**
 * Launcher of src/engine/webgpu/shaders/kl_backward.wgsl. CPU reference: kl_backward.ref.ts.
 */
import common from '../shaders/rl_loss_common.wgsl?raw';
import body from '../shaders/kl_backward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../device';
import type { TensorView } from './dispatch_plan';
import { prepareLossEntry, type LossPrepared } from './rl_launch';
import { klSetup, type KlInputs } from './kl_forward';

interface KlBackwardArgs extends KlInputs {
  /** Weight of the KL term in the total loss. */
  klCoef: number;
  /** (B,T) f32 in/out: ∂(klCoef · aggregated KL)/∂ℓ is added (masked tokens untouched). */
  dlogprob: TensorView;
}

/**
 * Prepare dlogprob += ∂(klCoef · aggregated KL)/∂ℓ. One invocation per row.
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareKlBackward(gpu: Gpu, a: KlBackwardArgs): LossPrepared {
  const op = 'kl_backward';
  const { params, inputs } = klSetup(gpu, op, a, a.klCoef);
  const d = prepareLossEntry(gpu, op, code, 'main', 64, a.B, params, [...inputs, ['dlogprob', a.dlogprob, a.B * a.T]]);
  return { dispatches: [d], uniform: params };
}
