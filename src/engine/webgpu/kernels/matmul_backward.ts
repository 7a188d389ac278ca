/**
 * Launcher of src/engine/webgpu/shaders/matmul_backward.wgsl: the three gradients of out = inp·weightᵀ + bias in
 * one dispatch. CPU reference: matmul_backward.ref.ts (`matmulBackwardRef`).
 */
import code from '../shaders/matmul_backward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 64;

interface MatmulBackwardArgs {
  /** Rows (B·T positions). */
  N: number;
  /** Input features (columns of inp and weight). */
  K: number;
  /** Output features (rows of weight, columns of dout). */
  M: number;
  /** (N,M) upstream gradient. */
  dout: TensorView;
  /** (N,K) the forward input. */
  inp: TensorView;
  /** (M,K) the forward weight. */
  weight: TensorView;
  /** (N,K) written, or accumulated when `accumulateDinp` (e.g. the value head adding into dlnf). */
  dinp: TensorView;
  /** (M,K) accumulated. */
  dweight: TensorView;
  /** (M) accumulated; must live in the same buffer as `dweight`; null when the matmul has no bias. */
  dbias: TensorView | null;
  accumulateDinp?: boolean;
}

/**
 * Prepare the dispatch (params uniform, bind group, grid) once; encode it with `encodePrepared`.
 * Uses the vec4 register-tiled entry point when M, K and every offset are multiples of 4.
 * @throws Error naming the argument when a view falls outside its buffer, when dbias is not in
 *   dweight's buffer, or when dinp shares a buffer with dweight.
 */
export function prepareMatmulBackward(gpu: Gpu, a: MatmulBackwardArgs, label = 'matmul_backward'): PreparedDispatch {
  const { N, K, M } = a;
  for (const [k, v] of Object.entries({ N, K, M })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'dout', a.dout, N * M);
  checkView(label, 'inp', a.inp, N * K);
  checkView(label, 'weight', a.weight, M * K);
  checkView(label, 'dinp', a.dinp, N * K);
  checkView(label, 'dweight', a.dweight, M * K);
  if (a.dbias) {
    checkView(label, 'dbias', a.dbias, M);
    if (a.dbias.buffer !== a.dweight.buffer) throw new Error(`${label}: dbias must be in the same buffer as dweight`);
  }
  if (a.dinp.buffer === a.dweight.buffer) throw new Error(`${label}: dinp must not share a buffer with dweight`);
  const offs = [
    off('dout', a.dout),
    off('inp', a.inp),
    off('weight', a.weight),
    off('dinp', a.dinp),
    off('dweight', a.dweight),
    a.dbias ? off('dbias', a.dbias) : 0,
  ];
  const vec4 = M % 4 === 0 && K % 4 === 0 && offs.every((o) => o % 4 === 0);
  const tilesDinp = vec4 ? Math.ceil(N / 4) * (K / 4) : N * K;
  const tilesDw = vec4 ? (M / 4) * (K / 4) : M * K;
  const flags = (a.dbias ? 1 : 0) | (a.accumulateDinp ? 2 : 0);
  const pipeline = gpu.pipelines.get('matmul_backward', code, vec4 ? 'main_vec4' : 'main_scalar', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', N],
    ['u32', M],
    ['u32', K],
    ['u32', flags],
    ...offs.map((o) => ['u32', o] as ['u32', number]),
    ['u32', tilesDinp],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.dout.buffer],
    [2, a.inp.buffer],
    [3, a.weight.buffer],
    [4, a.dinp.buffer],
    [5, a.dweight.buffer],
  ]);
  return {
    label,
    pipeline,
    bindGroup,
    groups: grid(Math.ceil((tilesDinp + tilesDw) / WG)),
    flops: 4 * N * M * K + (a.dbias ? N * M : 0),
    bytes: 4 * (N * M + N * K + M * K + N * K + 2 * M * K),
  };
}
