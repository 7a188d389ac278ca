/**
 * Launcher of shaders/ratio_forward.wgsl. CPU reference: ratio_forward.ref.ts.
 */
import code from '../../shaders/ratio_forward.wgsl?raw';
import type { Gpu } from '../gpu/device';
import type { PreparedDispatch, TensorView } from './dispatch_plan';
import { checkRowDims, packUniform, prepareEntry, wholeView } from './rl_launch';

interface RatioForwardArgs {
  B: number;
  T: number;
  /** (B,T) f32 each. */
  logprobs: TensorView;
  oldLogprobs: TensorView;
  mask: TensorView;
  /** (B,T) f32 out (written). */
  ratio: TensorView;
}

/**
 * Prepare ρ = exp(clamp(ℓ − ℓ_old, ±20)) at valid tokens, 1 elsewhere, over (B,T).
 * @throws Error naming a bad dimension or a view outside its buffer.
 */
export function prepareRatioForward(gpu: Gpu, a: RatioForwardArgs): PreparedDispatch {
  const op = 'ratio_forward';
  checkRowDims(op, a.B, a.T);
  const n = a.B * a.T;
  const bufs = (['logprobs', 'oldLogprobs', 'mask', 'ratio'] as const).map((k) => wholeView(op, k, a[k], n));
  const params = packUniform(gpu, `${op}-params`, [{ u32: n }]);
  return prepareEntry(gpu, op, code, 'main', 256, n, [[0, params], ...bufs.map((b, i) => [i + 1, b] as const)]);
}
