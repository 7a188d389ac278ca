/**
 * Launcher of src/engine/webgpu/shaders/gelu_backward.wgsl (dinp = dout·GELU'(inp), written).
 * CPU reference: gelu_backward.ref.ts (`geluBackwardRef`).
 */
import code from '../shaders/gelu_backward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 256;

interface GeluBackwardArgs {
  /** Element count. */
  n: number;
  /** (n) upstream gradient. */
  dout: TensorView;
  /** (n) the forward input (pre-activation). */
  inp: TensorView;
  /** (n) written; must not be dout's or inp's buffer. */
  dinp: TensorView;
}

/** Prepare the gelu_backward dispatch. @throws Error naming the argument on a bad size or aliasing. */
export function prepareGeluBackward(gpu: Gpu, a: GeluBackwardArgs, label = 'gelu_backward'): PreparedDispatch {
  if (!Number.isInteger(a.n) || a.n <= 0) throw new Error(`${label}: n must be a positive integer, got ${a.n}`);
  checkView(label, 'dout', a.dout, a.n);
  checkView(label, 'inp', a.inp, a.n);
  checkView(label, 'dinp', a.dinp, a.n);
  if (a.dinp.buffer === a.dout.buffer || a.dinp.buffer === a.inp.buffer) throw new Error(`${label}: dinp must not alias dout or inp`);
  const pipeline = gpu.pipelines.get('gelu_backward', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', a.n],
    ['u32', off('dout', a.dout)],
    ['u32', off('inp', a.inp)],
    ['u32', off('dinp', a.dinp)],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.dout.buffer],
    [2, a.inp.buffer],
    [3, a.dinp.buffer],
  ]);
  return { label, pipeline, bindGroup, groups: grid(Math.ceil(a.n / WG)), flops: 20 * a.n, bytes: 12 * a.n };
}
