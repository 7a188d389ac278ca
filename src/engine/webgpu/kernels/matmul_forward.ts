/**
 * Launcher of src/engine/webgpu/shaders/matmul_forward.wgsl: out (N,M) = inp (N,K) · weight (M,K)ᵀ + bias (M),
 * optionally + residual (N,M) fused into the store. CPU reference: matmul_forward.ref.ts
 * (`matmulForwardRef`; the fused residual equals a separate add bit for bit).
 */
import code from '../shaders/matmul_forward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WGX = 8;
const WGY = 8;

interface MatmulForwardArgs {
  /** Rows (B·T positions). */
  N: number;
  /** Input features. */
  K: number;
  /** Output features (rows of weight). */
  M: number;
  /** (N,K) */
  inp: TensorView;
  /** (M,K), nn.Linear layout. */
  weight: TensorView;
  /** (M), or null for no bias (the tied lm head). */
  bias: TensorView | null;
  /** (N,M) added after the bias (the transformer's residual stream), or omitted. */
  residual?: TensorView | null;
  /** (N,M) written. Must not share a buffer with any input. */
  out: TensorView;
}

const dummies = new WeakMap<GPUDevice, GPUBuffer>();

/** A 16-byte zero storage buffer bound where an optional input (bias, residual) is absent. */
function dummyStorage(gpu: Gpu): GPUBuffer {
  let b = dummies.get(gpu.device);
  if (!b) {
    b = gpu.device.createBuffer({ label: 'dummy-storage', size: 16, usage: GPUBufferUsage.STORAGE });
    dummies.set(gpu.device, b);
  }
  return b;
}

/**
 * Prepare the dispatch once (params uniform, bind group, grid); encode it with `encodePrepared`.
 * Uses the vec4 entry point when K and the inp/weight offsets are multiples of 4, the scalar
 * one otherwise (the choice depends on K and the layout, never on N).
 * @throws Error naming the argument when a dimension is not a positive integer, a view falls
 *   outside its buffer, the grid exceeds the device limit, or out aliases an input buffer.
 */
export function prepareMatmulForward(gpu: Gpu, a: MatmulForwardArgs, label = 'matmul_forward'): PreparedDispatch {
  const { N, K, M } = a;
  for (const [k, v] of Object.entries({ N, K, M })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'inp', a.inp, N * K);
  checkView(label, 'weight', a.weight, M * K);
  if (a.bias) checkView(label, 'bias', a.bias, M);
  if (a.residual) checkView(label, 'residual', a.residual, N * M);
  checkView(label, 'out', a.out, N * M);
  for (const [k, v] of Object.entries({ inp: a.inp, weight: a.weight, bias: a.bias, residual: a.residual })) {
    if (v && v.buffer === a.out.buffer) throw new Error(`${label}: out must not share buffer '${a.out.buffer.label}' with ${k}`);
  }
  const oi = off('inp', a.inp);
  const ow = off('weight', a.weight);
  const vec4 = K % 4 === 0 && oi % 4 === 0 && ow % 4 === 0;
  const pipeline = gpu.pipelines.get('matmul_forward', code, vec4 ? 'main_vec4' : 'main_scalar', {
    WGX,
    WGY,
    HAS_BIAS: a.bias ? 1 : 0,
    HAS_RES: a.residual ? 1 : 0,
  });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', N],
    ['u32', K],
    ['u32', M],
    ['u32', oi],
    ['u32', ow],
    ['u32', a.bias ? off('bias', a.bias) : 0],
    ['u32', a.residual ? off('residual', a.residual) : 0],
    ['u32', off('out', a.out)],
  ]);
  const dummy = dummyStorage(gpu);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.inp.buffer],
    [2, a.weight.buffer],
    [3, a.bias?.buffer ?? dummy],
    [4, a.residual?.buffer ?? dummy],
    [5, a.out.buffer],
  ]);
  const gx = Math.ceil(Math.ceil(M / 4) / WGX);
  const gy = Math.ceil(Math.ceil(N / 4) / WGY);
  const maxG = gpu.device.limits.maxComputeWorkgroupsPerDimension;
  if (gx > maxG || gy > maxG)
    throw new Error(`${label}: grid ${gx}×${gy} exceeds maxComputeWorkgroupsPerDimension = ${maxG} (N=${N}, M=${M})`);
  return {
    label,
    pipeline,
    bindGroup,
    groups: [gx, gy, 1],
    flops: 2 * N * M * K + (a.bias ? N * M : 0) + (a.residual ? N * M : 0),
    bytes: 4 * (N * K + M * K + (a.bias ? M : 0) + (a.residual ? 2 : 1) * N * M),
  };
}
