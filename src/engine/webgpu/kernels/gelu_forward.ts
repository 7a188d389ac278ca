/**
 * Launcher of src/engine/webgpu/shaders/gelu_forward.wgsl (tanh-approximate GELU, elementwise).
 * CPU reference: gelu_forward.ref.ts (`geluForwardRef`).
 */
import code from '../shaders/gelu_forward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 256;

interface GeluForwardArgs {
  /** Element count. */
  n: number;
  /** (n) */
  inp: TensorView;
  /** (n) written; must not share inp's buffer. */
  out: TensorView;
}

/** Prepare once. @throws Error naming the argument on a bad n or a view outside its buffer. */
export function prepareGeluForward(gpu: Gpu, a: GeluForwardArgs, label = 'gelu_forward'): PreparedDispatch {
  if (!Number.isInteger(a.n) || a.n <= 0) throw new Error(`${label}: n must be a positive integer, got ${a.n}`);
  checkView(label, 'inp', a.inp, a.n);
  checkView(label, 'out', a.out, a.n);
  if (a.inp.buffer === a.out.buffer) throw new Error(`${label}: out must not share a buffer with inp`);
  const pipeline = gpu.pipelines.get('gelu_forward', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', a.n],
    ['u32', off('inp', a.inp)],
    ['u32', off('out', a.out)],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.inp.buffer],
    [2, a.out.buffer],
  ]);
  return { label, pipeline, bindGroup, groups: grid(Math.ceil(a.n / WG)), flops: 10 * a.n, bytes: 8 * a.n };
}
