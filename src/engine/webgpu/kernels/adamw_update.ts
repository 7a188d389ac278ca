/**
 * Launcher of src/engine/webgpu/shaders/adamw_update.wgsl: AdamW with bias correction, decoupled weight decay and
 * the global-norm clip multiplier read on the GPU. CPU reference: adamw_update.ref.ts.
 */
import code from '../shaders/adamw_update.wgsl?raw';
import type { Gpu } from '../device';
import { checkAdamW, type AdamWParams } from '../../../reference/adamw_update.ref';
import { bindAll, checkView, grid, off, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 256;

interface AdamWArgs {
  /** Number of parameters. */
  P: number;
  /** (P) parameters, updated in place. */
  params: TensorView;
  /** (P) gradients (read). */
  grads: TensorView;
  /** (P) first and second moments, updated in place; whole buffers starting at element 0. */
  m: GPUBuffer;
  v: GPUBuffer;
  /** One f32: the clip multiplier (global_norm_forward's out[1], or a CPU-written 1). */
  gradScale: TensorView;
}

/** The hyper-parameters of one step, without gradScale (that one lives on the GPU). */
type AdamWHyper = Omit<AdamWParams, 'gradScale'>;

/**
 * A prepared AdamW dispatch with its own hyper-parameter uniform; call `setHyper` before each
 * submit (queue.writeBuffer, ordered before the submit), then encode `dispatch`.
 */
export class AdamWUpdate {
  readonly dispatch: PreparedDispatch;
  private readonly hyper: GPUBuffer;
  private readonly head: Uint32Array;

  /** @throws Error naming the argument on a bad size or aliasing. */
  constructor(
    private readonly gpu: Gpu,
    a: AdamWArgs,
    label = 'adamw_update',
  ) {
    if (!Number.isInteger(a.P) || a.P <= 0) throw new Error(`${label}: P must be a positive integer, got ${a.P}`);
    checkView(label, 'params', a.params, a.P);
    checkView(label, 'grads', a.grads, a.P);
    checkView(label, 'm', { buffer: a.m }, a.P);
    checkView(label, 'v', { buffer: a.v }, a.P);
    checkView(label, 'gradScale', a.gradScale, 1);
    const rw = [a.params.buffer, a.m, a.v];
    if (new Set(rw).size !== 3) throw new Error(`${label}: params, m and v must be three different buffers`);
    for (const k of ['grads', 'gradScale'] as const) {
      if (rw.includes(a[k].buffer)) throw new Error(`${label}: ${k} must not share a buffer with params, m or v`);
    }
    this.head = new Uint32Array([a.P, off('params', a.params), off('grads', a.grads), off('gradScale', a.gradScale)]);
    this.hyper = gpu.device.createBuffer({ label: `${label}-hyper`, size: 64, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const pipeline = gpu.pipelines.get('adamw_update', code, 'main', { WG });
    this.dispatch = {
      label,
      pipeline,
      bindGroup: bindAll(gpu, `${label}-bind`, pipeline, [
        [0, this.hyper],
        [1, a.params.buffer],
        [2, a.grads.buffer],
        [3, a.m],
        [4, a.v],
        [5, a.gradScale.buffer],
      ]),
      groups: grid(Math.ceil(a.P / WG)),
      flops: 16 * a.P,
      bytes: 4 * 7 * a.P,
    };
  }

  /**
   * Write this step's hyper-parameters (lands before the next submit). Bias corrections
   * 1 − β^t and 1 − β are computed in f64 here.
   * @throws Error naming the first invalid hyper-parameter.
   */
  setHyper(hp: AdamWHyper): void {
    checkAdamW('adamw_update', { ...hp, gradScale: 1 });
    const ab = new ArrayBuffer(64);
    new Uint32Array(ab, 0, 4).set(this.head);
    new Float32Array(ab, 16, 9).set([
      hp.lr,
      hp.beta1,
      hp.beta2,
      hp.eps,
      hp.weightDecay,
      1 - Math.pow(hp.beta1, hp.step),
      1 - Math.pow(hp.beta2, hp.step),
      1 - hp.beta1,
      1 - hp.beta2,
    ]);
    this.gpu.device.queue.writeBuffer(this.hyper, 0, ab);
  }
}
