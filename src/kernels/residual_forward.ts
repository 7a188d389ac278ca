/**
 * Launcher of shaders/residual_forward.wgsl (out = a + b). CPU reference: residual_forward.ref.ts.
 */
import code from '../../shaders/residual_forward.wgsl?raw';
import type { Gpu } from '../gpu/device';
import { bindAll, checkView, encodePrepared, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 256;

interface ResidualForwardArgs {
  /** Element count. */
  n: number;
  /** (n) */
  a: TensorView;
  /** (n) */
  b: TensorView;
  /** (n) written; must not share a buffer with a or b. */
  out: TensorView;
}

/**
 * Prepare once (pipeline from the cache, uniform and bind group created here), encode many times.
 * @throws Error naming the argument on a bad n, a view outside its buffer, or aliasing.
 */
function prepareResidualForward(gpu: Gpu, args: ResidualForwardArgs, label = 'residual_forward'): PreparedDispatch {
  const { n, a, b, out } = args;
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${label}: n must be a positive integer, got ${n}`);
  checkView(label, 'a', a, n);
  checkView(label, 'b', b, n);
  checkView(label, 'out', out, n);
  if (out.buffer === a.buffer || out.buffer === b.buffer) throw new Error(`${label}: out must not share a buffer with a or b`);
  const pipeline = gpu.pipelines.get('residual_forward', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', n],
    ['u32', off('a', a)],
    ['u32', off('b', b)],
    ['u32', off('out', out)],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.buffer],
    [2, b.buffer],
    [3, out.buffer],
  ]);
  return { label, pipeline, bindGroup, groups: grid(Math.ceil(n / WG)), flops: n, bytes: 12 * n };
}

/** Encode residual_forward into `pass` (prepares on every call: for one-off use). */
export function encodeResidualForward(gpu: Gpu, pass: GPUComputePassEncoder, args: ResidualForwardArgs): void {
  encodePrepared(pass, [prepareResidualForward(gpu, args)]);
}
