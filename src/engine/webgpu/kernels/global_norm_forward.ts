/**
 * Launcher of src/engine/webgpu/shaders/global_norm_forward.wgsl: the gradient's global L2 norm and the clipping
 * multiplier, two dispatches, result left on the GPU for AdamW.
 * CPU reference: global_norm_forward.ref.ts (`globalNormForwardRef`).
 */
import code from '../shaders/global_norm_forward.wgsl?raw';
import type { Gpu } from '../device';
import { createStorage } from '../buffers';
import { bindAll, checkView, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 64;
/** Partial sums of the first stage: enough parallelism for a GPU, few enough for one finisher. */
const MAX_PARTIALS = 4096;

interface GlobalNormArgs {
  /** Number of gradient elements. */
  P: number;
  /** (P) gradients. */
  grads: TensorView;
  /** Two f32 written: [norm, gradScale]. Must not be the grads buffer. */
  out: TensorView;
  /** Clip threshold > 0; Infinity or undefined = no clipping (gradScale = 1). */
  maxNorm?: number;
  /**
   * One u32 word read by the finalize entry after everything before it in the command buffer:
   * non-zero ⇒ gradScale = −1 (AdamW skips: params, m, v untouched), whatever the norm. The RL
   * loss head's non-finite flag (src/engine/webgpu/gpu_loss.ts `state.flags`, word 0). Undefined ⇒ a
   * zero word owned by this dispatch (never skips for that reason).
   */
  skipFlag?: TensorView;
}

/**
 * Prepare the two dispatches (partials, finalize).
 * @throws Error naming the argument on a bad size or a maxNorm that is not > 0.
 */
export function prepareGlobalNorm(gpu: Gpu, a: GlobalNormArgs, label = 'global_norm_forward'): PreparedDispatch[] {
  if (!Number.isInteger(a.P) || a.P <= 0) throw new Error(`${label}: P must be a positive integer, got ${a.P}`);
  const maxNorm = a.maxNorm ?? Infinity;
  if (!(maxNorm > 0)) throw new Error(`${label}: maxNorm = ${maxNorm} must be > 0 (Infinity disables clipping)`);
  checkView(label, 'grads', a.grads, a.P);
  checkView(label, 'out', a.out, 2);
  if (a.out.buffer === a.grads.buffer) throw new Error(`${label}: out must not be the grads buffer`);
  const G = Math.min(MAX_PARTIALS, Math.ceil(a.P / 64));
  const partials = createStorage(gpu.device, `${label}-partials (${G})`, G * 4);
  const clip = Number.isFinite(maxNorm) ? 1 : 0;
  const skip: TensorView = a.skipFlag ?? { buffer: createStorage(gpu.device, `${label}-skip (zero u32)`, 4) };
  checkView(label, 'skipFlag', skip, 1);
  if (skip.buffer === a.out.buffer || skip.buffer === a.grads.buffer)
    throw new Error(`${label}: skipFlag must not share a buffer with grads or out`);
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', a.P],
    ['u32', G],
    ['u32', off('grads', a.grads)],
    ['u32', off('out', a.out)],
    ['u32', clip],
    ['f32', clip ? maxNorm : 0],
    ['u32', off('skipFlag', skip)],
    ['u32', 0],
  ]);
  const p1 = gpu.pipelines.get('global_norm_forward-partials', code, 'partials_main', { WG });
  const p2 = gpu.pipelines.get('global_norm_forward-finalize', code, 'finalize');
  return [
    {
      label: `${label}-partials`,
      pipeline: p1,
      bindGroup: bindAll(gpu, `${label}-partials-bind`, p1, [
        [0, params],
        [1, a.grads.buffer],
        [2, partials],
      ]),
      groups: [Math.ceil(G / WG), 1, 1],
      flops: 2 * a.P,
      bytes: 4 * a.P,
    },
    {
      label: `${label}-finalize`,
      pipeline: p2,
      bindGroup: bindAll(gpu, `${label}-finalize-bind`, p2, [
        [0, params],
        [2, partials],
        [3, a.out.buffer],
        [4, skip.buffer],
      ]),
      groups: [1, 1, 1],
      flops: G,
      bytes: 4 * G,
    },
  ];
}
