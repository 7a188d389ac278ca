/**
 * Launcher of src/engine/webgpu/shaders/crossentropy_backward.wgsl (SFT loss gradient, dlogits written).
 * CPU reference: crossentropy_backward.ref.ts (`crossentropyBackwardRef`).
 */
import code from '../shaders/crossentropy_backward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 256;

interface CrossentropyBackwardArgs {
  N: number;
  V: number;
  /** (N,V) logits. */
  logits: TensorView;
  /** (N) i32 targets. */
  targets: TensorView;
  /** (N) f32 loss mask (1 valid, 0 context/padding). */
  mask: TensorView;
  /** (N) saved log-sum-exp of the forward. */
  lse: TensorView;
  /** One f32: the loss scale (1/Σmask for the token mean, 0 for an all-masked batch). */
  scale: TensorView;
  /** (N,V) written. */
  dlogits: TensorView;
}

/** Prepare the crossentropy_backward dispatch. @throws Error naming the argument on a bad size or aliasing. */
export function prepareCrossentropyBackward(gpu: Gpu, a: CrossentropyBackwardArgs, label = 'crossentropy_backward'): PreparedDispatch {
  const { N, V } = a;
  for (const [k, v] of Object.entries({ N, V })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'logits', a.logits, N * V);
  checkView(label, 'targets', a.targets, N);
  checkView(label, 'mask', a.mask, N);
  checkView(label, 'lse', a.lse, N);
  checkView(label, 'scale', a.scale, 1);
  checkView(label, 'dlogits', a.dlogits, N * V);
  for (const k of ['logits', 'targets', 'mask', 'lse', 'scale'] as const) {
    if (a[k].buffer === a.dlogits.buffer) throw new Error(`${label}: dlogits must not share a buffer with ${k}`);
  }
  const pipeline = gpu.pipelines.get('crossentropy_backward', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', N],
    ['u32', V],
    ['u32', off('logits', a.logits)],
    ['u32', off('targets', a.targets)],
    ['u32', off('mask', a.mask)],
    ['u32', off('lse', a.lse)],
    ['u32', off('dlogits', a.dlogits)],
    ['u32', off('scale', a.scale)],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.logits.buffer],
    [2, a.targets.buffer],
    [3, a.mask.buffer],
    [4, a.lse.buffer],
    [5, a.scale.buffer],
    [6, a.dlogits.buffer],
  ]);
  return { label, pipeline, bindGroup, groups: grid(Math.ceil((N * V) / WG)), flops: 4 * N * V, bytes: 8 * N * V };
}
