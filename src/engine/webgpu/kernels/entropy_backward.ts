/**
 * Launcher of src/engine/webgpu/shaders/entropy_backward.wgsl. CPU reference: entropy_backward.ref.ts.
 */
import common from '../shaders/rl_loss_common.wgsl?raw';
import body from '../shaders/entropy_backward.wgsl?raw';

const code = common + body;
import type { Gpu } from '../device';
import type { TensorView } from './dispatch_plan';
import { prepareEntry, wholeView, type LossPrepared } from './rl_launch';
import { entropyUniform, entropyViews, type EntropyArgs } from './entropy_forward';

/** The logits entropy_forward read and the entropy, lse, dentropy it wrote, with their dims. */
interface EntropyBackwardArgs extends EntropyArgs {
  /** (B·T, V) f32, accumulated onto (+=, after logprob_backward wrote it). */
  dlogits: TensorView;
}

/**
 * Prepare dlogits += dentropy·∂H/∂z at temperature p.temperature (∂H/∂z carries a 1/τ). One
 * invocation per logit.
 * @throws Error naming a bad dimension, a view outside its buffer or a bad τ.
 */
export function prepareEntropyBackward(gpu: Gpu, a: EntropyBackwardArgs): LossPrepared {
  const op = 'entropy_backward';
  const { B, T, V } = a;
  const { n, logits, entropy, lse, dentropy } = entropyViews(op, a);
  const dlogits = wholeView(op, 'dlogits', a.dlogits, n * V);
  const params = entropyUniform(gpu, op, B, T, V, a.p);
  const d = prepareEntry(gpu, op, code, 'main', 256, n * V, [
    [0, params],
    [1, logits],
    [2, lse],
    [3, entropy],
    [4, dentropy],
    [5, dlogits],
  ]);
  return { dispatches: [d], uniform: params };
}
