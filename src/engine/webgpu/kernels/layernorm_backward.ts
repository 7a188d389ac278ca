/**
 * Launcher of src/engine/webgpu/shaders/layernorm_backward.wgsl (dinp, dw, db, all accumulated).
 * CPU reference: layernorm_backward.ref.ts (`layernormBackwardRef`).
 */
import code from '../shaders/layernorm_backward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 64;

interface LayernormBackwardArgs {
  N: number;
  C: number;
  /** (N,C) gradient of the LayerNorm output. */
  dout: TensorView;
  /** (N,C) the forward input. */
  inp: TensorView;
  /** (C) gain. */
  w: TensorView;
  /** (N) saved mean and (N) saved 1/std of the forward pass. */
  mean: TensorView;
  rstd: TensorView;
  /** (N,C) accumulated (the residual stream's gradient). */
  dinp: TensorView;
  /** (C) accumulated; dw and db in one buffer, which must differ from dinp's. */
  dw: TensorView;
  db: TensorView;
}

/**
 * Prepare the layernorm_backward dispatch.
 * @throws Error naming the argument on a bad size or buffer sharing the kernel cannot do.
 */
export function prepareLayernormBackward(gpu: Gpu, a: LayernormBackwardArgs, label = 'layernorm_backward'): PreparedDispatch {
  const { N, C } = a;
  for (const [k, v] of Object.entries({ N, C })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'dout', a.dout, N * C);
  checkView(label, 'inp', a.inp, N * C);
  checkView(label, 'w', a.w, C);
  checkView(label, 'mean', a.mean, N);
  checkView(label, 'rstd', a.rstd, N);
  checkView(label, 'dinp', a.dinp, N * C);
  checkView(label, 'dw', a.dw, C);
  checkView(label, 'db', a.db, C);
  if (a.dw.buffer !== a.db.buffer) throw new Error(`${label}: dw and db must be in one buffer`);
  if (a.dinp.buffer === a.dw.buffer) throw new Error(`${label}: dinp must not share a buffer with dw`);
  const pipeline = gpu.pipelines.get('layernorm_backward', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', N],
    ['u32', C],
    ['u32', off('dout', a.dout)],
    ['u32', off('inp', a.inp)],
    ['u32', off('w', a.w)],
    ['u32', off('mean', a.mean)],
    ['u32', off('rstd', a.rstd)],
    ['u32', off('dinp', a.dinp)],
    ['u32', off('dw', a.dw)],
    ['u32', off('db', a.db)],
    ['u32', 0],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.dout.buffer],
    [2, a.inp.buffer],
    [3, a.w.buffer],
    [4, a.mean.buffer],
    [5, a.rstd.buffer],
    [6, a.dw.buffer],
    [7, a.dinp.buffer],
  ]);
  return {
    label,
    pipeline,
    bindGroup,
    groups: grid(Math.ceil((N + C) / WG)),
    flops: 14 * N * C,
    bytes: 4 * (4 * N * C + 2 * N + 4 * C),
  };
}
