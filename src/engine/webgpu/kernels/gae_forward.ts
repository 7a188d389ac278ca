/**
 * Launcher of src/engine/webgpu/shaders/gae_forward.wgsl. CPU reference: gae_forward.ref.ts.
 */
import code from '../shaders/gae_forward.wgsl?raw';
import type { Gpu } from '../device';
import type { PreparedDispatch, TensorView } from './dispatch_plan';
import { checkRowDims, packUniform, prepareEntry, wholeView } from './rl_launch';

interface GaeForwardArgs {
  B: number;
  T: number;
  /** (B) f32: the reward at each row's last policy token. */
  rewards: TensorView;
  /** (B,T) f32: V_old. */
  values: TensorView;
  /** (B,T) f32. */
  mask: TensorView;
  /** (B) f32: bootstrap value after each row. */
  nextValue: TensorView;
  /** (B) f32: 1 where the row was truncated (bootstrapped), 0 where it terminated. */
  truncated: TensorView;
  /** (B,T) f32 out (written). */
  advantages: TensorView;
  /** (B,T) f32 out (written). */
  returns: TensorView;
  p: { gamma: number; lambda: number };
}

/**
 * Prepare GAE over policy tokens (one invocation per row).
 * @throws Error naming a bad dimension, γ or λ outside [0, 1], or a view outside its buffer.
 */
export function prepareGaeForward(gpu: Gpu, a: GaeForwardArgs): PreparedDispatch {
  const op = 'gae_forward';
  const { B, T, p } = a;
  checkRowDims(op, B, T);
  if (!(p.gamma >= 0 && p.gamma <= 1)) throw new Error(`${op}: gamma = ${p.gamma} must be in [0, 1]`);
  if (!(p.lambda >= 0 && p.lambda <= 1)) throw new Error(`${op}: lambda = ${p.lambda} must be in [0, 1]`);
  const n = B * T;
  const sizes = { rewards: B, values: n, mask: n, nextValue: B, truncated: B, advantages: n, returns: n } as const;
  const bufs = (Object.keys(sizes) as Array<keyof typeof sizes>).map((k, i) => [i + 1, wholeView(op, k, a[k], sizes[k])] as const);
  const params = packUniform(gpu, `${op}-params`, [{ u32: B }, { u32: T }, { u32: 0 }, { u32: 0 }, { f32: p.gamma }, { f32: p.lambda }]);
  return prepareEntry(gpu, op, code, 'main', 64, B, [[0, params], ...bufs]);
}
