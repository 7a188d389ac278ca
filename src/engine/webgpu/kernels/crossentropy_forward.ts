/**
 * Launcher of src/engine/webgpu/shaders/crossentropy_forward.wgsl: per-token SFT loss −logprob·mask, lse, and the
 * token-mean loss reduced in fixed order. CPU reference: crossentropy_forward.ref.ts
 * (`crossentropyForwardRef`). Two dispatches: the row pass, then a one-invocation mean.
 */
import code from '../shaders/crossentropy_forward.wgsl?raw';
import type { Gpu } from '../device';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 64;

interface CrossentropyForwardArgs {
  N: number;
  V: number;
  /** (N,V) at `logits.offset`. */
  logits: TensorView;
  /** (N) i32, whole buffer from element 0. */
  targets: GPUBuffer;
  /** (N) f32 ≥ 0, whole buffer from element 0 (1 = scored token). */
  mask: GPUBuffer;
  /** (N) written. */
  loss: GPUBuffer;
  /** (N) written (saved for the backward pass). */
  lse: GPUBuffer;
  /** (2) written: [meanLoss = Σloss/Σmask (0 if Σmask = 0), Σmask]. */
  stats: GPUBuffer;
}

/**
 * Prepare both dispatches once (row pass, then mean).
 * @throws Error naming the argument on a bad dimension or a buffer that is too small.
 */
export function prepareCrossentropyForward(gpu: Gpu, a: CrossentropyForwardArgs, label = 'crossentropy_forward'): PreparedDispatch[] {
  const { N, V } = a;
  for (const [k, v] of Object.entries({ N, V })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  checkView(label, 'logits', a.logits, N * V);
  for (const [k, b, n] of [
    ['targets', a.targets, N],
    ['mask', a.mask, N],
    ['loss', a.loss, N],
    ['lse', a.lse, N],
    ['stats', a.stats, 2],
  ] as const) {
    checkView(label, k, { buffer: b }, n);
  }
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', N],
    ['u32', V],
    ['u32', off('logits', a.logits)],
    ['u32', 0],
  ]);
  const rows = gpu.pipelines.get('crossentropy_forward', code, 'main', { WG });
  const mean = gpu.pipelines.get('crossentropy_forward', code, 'mean', { WG });
  return [
    {
      label,
      pipeline: rows,
      bindGroup: bindAll(gpu, `${label}-bind`, rows, [
        [0, params],
        [1, a.logits.buffer],
        [2, a.targets],
        [3, a.mask],
        [4, a.loss],
        [5, a.lse],
      ]),
      groups: grid(Math.ceil(N / WG)),
      flops: 4 * N * V,
      bytes: 4 * (N * V + 4 * N),
    },
    {
      label: `${label}-mean`,
      pipeline: mean,
      bindGroup: bindAll(gpu, `${label}-mean-bind`, mean, [
        [0, params],
        [3, a.mask],
        [4, a.loss],
        [6, a.stats],
      ]),
      groups: [1, 1, 1],
      flops: 2 * N,
      bytes: 8 * N,
    },
  ];
}
