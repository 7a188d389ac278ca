/**
 * Launcher of src/engine/webgpu/shaders/encoder_backward.wgsl (token and position embedding gradients, both
 * accumulated). CPU reference: encoder_backward.ref.ts (`encoderBackwardRef`).
 */
import code from '../shaders/encoder_backward.wgsl?raw';
import type { Gpu } from '../device';
import { createStorage } from '../buffers';
import { tokenBuckets } from './token_buckets';
import { bindAll, checkView, grid, off, paramsUniform, type PreparedDispatch, type TensorView } from './dispatch_plan';

const WG = 64;

/** GPU buffers holding the token buckets of one batch; rewritten each step with `write`. */
export class TokenBucketBuffers {
  readonly start: GPUBuffer;
  readonly pos: GPUBuffer;
  constructor(
    private readonly gpu: Gpu,
    readonly V: number,
    readonly maxPositions: number,
    label = 'encoder_backward',
  ) {
    this.start = createStorage(gpu.device, `${label}-bucket_start`, (V + 1) * 4);
    this.pos = createStorage(gpu.device, `${label}-bucket_pos`, Math.max(1, maxPositions) * 4);
  }
  /**
   * Upload the buckets of `ids` (queue.writeBuffer: lands before the next submit).
   * @throws Error when ids has more than maxPositions entries or an id is out of range.
   */
  write(ids: Int32Array): void {
    if (ids.length > this.maxPositions) throw new Error(`TokenBucketBuffers: ${ids.length} ids exceed maxPositions = ${this.maxPositions}`);
    const { start, pos } = tokenBuckets(ids, this.V);
    this.gpu.device.queue.writeBuffer(this.start, 0, start.buffer as ArrayBuffer, start.byteOffset, start.byteLength);
    this.gpu.device.queue.writeBuffer(this.pos, 0, pos.buffer as ArrayBuffer, pos.byteOffset, ids.length * 4);
  }
}

interface EncoderBackwardArgs {
  B: number;
  T: number;
  C: number;
  V: number;
  /** (B,T,C) gradient of the encoder output (the residual stream's gradient). */
  dout: TensorView;
  /** Token buckets of the batch's ids (`TokenBucketBuffers.write(ids)` before the submit). */
  buckets: TokenBucketBuffers;
  /** (V,C) accumulated. */
  dwte: TensorView;
  /** (maxT,C) accumulated (rows t < T); same buffer as dwte. */
  dwpe: TensorView;
}

/**
 * Prepare the encoder_backward dispatch.
 * @throws Error naming the argument on a bad size or when dwte and dwpe are in different buffers.
 */
export function prepareEncoderBackward(gpu: Gpu, a: EncoderBackwardArgs, label = 'encoder_backward'): PreparedDispatch {
  const { B, T, C, V } = a;
  for (const [k, v] of Object.entries({ B, T, C, V })) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${label}: ${k} must be a positive integer, got ${v}`);
  }
  if (a.buckets.V !== V) throw new Error(`${label}: buckets were built for V = ${a.buckets.V}, not ${V}`);
  if (a.buckets.maxPositions < B * T) throw new Error(`${label}: buckets hold ${a.buckets.maxPositions} positions < B·T = ${B * T}`);
  checkView(label, 'dout', a.dout, B * T * C);
  checkView(label, 'dwte', a.dwte, V * C);
  checkView(label, 'dwpe', a.dwpe, T * C);
  if (a.dwte.buffer !== a.dwpe.buffer) throw new Error(`${label}: dwte and dwpe must be in one buffer`);
  const pipeline = gpu.pipelines.get('encoder_backward', code, 'main', { WG });
  const params = paramsUniform(gpu, `${label}-params`, [
    ['u32', B],
    ['u32', T],
    ['u32', C],
    ['u32', V],
    ['u32', off('dout', a.dout)],
    ['u32', off('dwte', a.dwte)],
    ['u32', off('dwpe', a.dwpe)],
    ['u32', 0],
  ]);
  const bindGroup = bindAll(gpu, `${label}-bind`, pipeline, [
    [0, params],
    [1, a.dout.buffer],
    [2, a.buckets.start],
    [3, a.buckets.pos],
    [4, a.dwte.buffer],
  ]);
  return {
    label,
    pipeline,
    bindGroup,
    groups: grid(Math.ceil((V * C + T * C) / WG)),
    flops: 2 * B * T * C,
    bytes: 4 * (2 * B * T * C + 2 * V * C + 2 * T * C),
  };
}
