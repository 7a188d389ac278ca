/**
 * Launcher of src/engine/webgpu/shaders/layernorm_forward.wgsl (one invocation per row, eps = 1e-5).
 * CPU reference: layernorm_forward.ref.ts (`layernormForwardRef`).
 */
import code from '../shaders/layernorm_forward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';
import { LAYERNORM_EPS } from '../../../reference/layernorm_forward.ref';

const WG = 64;

interface LayernormForwardArgs {
  /** Rows (B·T). */
  N: number;
  /** Channels. */
  C: number;
  /** (N,C) */
  inp: TensorView;
  /** (C) gain. */
  w: TensorView;
  /** (C) bias. */
  b: TensorView;
  /** (N,C) written. */
  out: TensorView;
  /** (N) written, saved for the backward pass. */
  mean: TensorView;
  /** (N) written: 1/√(var + eps). */
  rstd: TensorView;
}

/**
 * Prepare the dispatch once; encode with `encodePrepared`.
 * @throws Error naming the argument on a bad dimension or a view outside its buffer.
 */
export function prepareLayernormForward(gpu: Gpu, a: LayernormForwardArgs, label = 'layernorm_forward'): PreparedDispatch {
  const { N, C } = a;
  for (const [k, v] of Object.entries({ N, C })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'inp', a.inp, N * C);
  checkView(label, 'w', a.w, C);
  checkView(label, 'b', a.b, C);
  checkView(label, 'out', a.out, N * C);
  checkView(label, 'mean', a.mean, N);
  checkView(label, 'rstd', a.rstd, N);
  const pipeline = gpu.pipelines.get('layernorm_forward', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', N],
    ['u32', C],
    ['u32', off('inp', a.inp)],
    ['u32', off('w', a.w)],
    ['u32', off('b', a.b)],
    ['u32', off('out', a.out)],
    ['u32', off('mean', a.mean)],
    ['u32', off('rstd', a.rstd)],
    ['f32', LAYERNORM_EPS],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.inp.buffer],
    [2, a.w.buffer],
    [3, a.b.buffer],
    [4, a.out.buffer],
    [5, a.mean.buffer],
    [6, a.rstd.buffer],
  ]);
  return { label, pipeline, bindGroup, groups: grid(Math.ceil(N / WG)), flops: 8 * N * C, bytes: 4 * (2 * N * C + 2 * C + 2 * N) };
}
