/**
 * The loss-head contract of the WebGPU training step (src/engine/webgpu/gpu_train.ts GpuTrainer): the
 * batch a step trains on, where a chunk sits in its optimizer step (gradient accumulation), what a
 * head gets to build its dispatches, the head interface, and the SFT head. The RL head is
 * src/engine/webgpu/trainer_head.ts.
 */
import type { Gpu } from './device';
import { createStorage } from './buffers';
import type { PreparedDispatch, TensorView } from './kernels/dispatch_plan';
import { prepareCrossentropyForward } from './kernels/crossentropy_forward';
import { prepareCrossentropyBackward } from './kernels/crossentropy_backward';
import { crossentropyScale } from '../../reference/crossentropy_forward.ref';
import type { GpuModel } from './gpu_model';

/** One training batch: B right-padded rows of T tokens plus whatever the loss head needs. */
export interface TrainBatch {
  B: number;
  T: number;
  /** (B,T) i32 input ids (padding: any valid id). */
  ids: Int32Array;
  /** (B·T) i32 next-token targets (SFT: from `sftTargets`; RL: the sampled ids). */
  targets: Int32Array;
  /** (B·T) f32 ≥ 0 loss weights (1 on scored tokens, 0 on context and padding). */
  mask: Float32Array;
  /** Extra per-token inputs of a custom loss head (e.g. advantages, old log-probs), by name. */
  extra?: Record<string, Float32Array>;
  /**
   * (B) i32: each row's index in a whole-update tensor the loss head gathers per-row inputs from
   * on the GPU (the RL head's AdvantageSource); unused by other heads.
   */
  rowIndex?: Int32Array;
}

/** Where a batch sits in its optimizer step: chunk `chunk` of `chunks` (gradient accumulation). */
export interface StepChunk {
  /** 0-based index of the batch in `chunks`. */
  chunk: number;
  /** Every batch of the optimizer step, in order (a head derives step-global normalizers from their masks). */
  chunks: readonly TrainBatch[];
}

/** What a loss head gets to build its dispatches for one batch shape. */
export interface LossContext {
  gpu: Gpu;
  model: GpuModel;
  B: number;
  T: number;
  /** B·T */
  N: number;
  V: number;
  /** (maxB·maxT) i32 targets (the model's `targets` buffer, written by the trainer). */
  targets: GPUBuffer;
  /** (maxB·maxT) f32 loss mask, written by the trainer. */
  mask: GPUBuffer;
  /** (N,V) the head must WRITE every element of rows 0…N−1 (zeros where nothing flows). */
  dlogits: GPUBuffer;
  /** (N) the head must write it when `usesValues`; ignored otherwise. */
  dvalues: GPUBuffer;
}

/**
 * A loss head: dispatches that read the forward's activations (`ctx.model.acts.logits`,
 * `.values`) and write dlogits (and dvalues), plus metric words left on the GPU for the single
 * metrics readback.
 */
export interface LossHead {
  /** Name shown in labels and errors. */
  readonly name: string;
  /** Run the value head in the forward and backpropagate `dvalues`. */
  readonly usesValues: boolean;
  /** Names of the metric words, in order (e.g. ['loss', 'tokens']). */
  readonly metricNames: readonly string[];
  /**
   * Build the head's dispatches for one batch shape (called once per shape, then cached).
   * @returns the dispatches and where its metric words live (one f32 each, `metricNames` order)
   */
  prepare(ctx: LossContext): { dispatches: PreparedDispatch[]; metrics: TensorView };
  /** Write the batch's inputs (queue.writeBuffer) before its submit; `step` places it in its optimizer step. */
  write(ctx: LossContext, batch: TrainBatch, step: StepChunk): void;
  /**
   * Optional u32 word the head's dispatches leave non-zero when the step must not be applied
   * (non-finite inputs). Read by global_norm_forward after the last chunk's backward, which then
   * writes gradScale = −1, so AdamW leaves params and moments untouched. The head must clear it
   * once at the start of every step (`perStep.begin`, or its own dispatches when it has no perStep).
   */
  readonly skipFlag?: TensorView;
  /**
   * Present when the head sums its loss over several chunks of one optimizer step (gradient
   * accumulation): `begin` runs once before the first chunk's forward (e.g. clear the skip word
   * and metric accumulators), `end` once after the last chunk's backward (e.g. finalize the
   * metrics). Shape-independent. Without it a step takes exactly one batch.
   */
  readonly perStep?: { readonly begin: readonly PreparedDispatch[]; readonly end: readonly PreparedDispatch[] };
}

/**
 * The SFT head: token-mean masked cross-entropy (crossentropy_forward, 2 dispatches) and its
 * gradient (crossentropy_backward with scale = 1/Σmask written by the CPU, 0 for an all-masked
 * batch). Metrics: loss (nats/token over valid tokens), tokens (Σmask).
 */
export function sftLossHead(): LossHead {
  let bufs: { loss: GPUBuffer; lse: GPUBuffer; stats: GPUBuffer; scale: GPUBuffer } | null = null;
  return {
    name: 'sft',
    usesValues: false,
    metricNames: ['loss', 'tokens'],
    prepare(ctx) {
      const { gpu, model, N, V } = ctx;
      const cap = model.maxB * model.maxT;
      bufs ??= {
        loss: createStorage(gpu.device, 'sft-loss (N)', cap * 4),
        lse: createStorage(gpu.device, 'sft-lse (N)', cap * 4),
        stats: createStorage(gpu.device, 'sft-stats [meanLoss, Σmask]', 8),
        scale: createStorage(gpu.device, 'sft-scale 1/Σmask', 4),
      };
      const logits = { buffer: model.acts.logits };
      const dispatches = [
        ...prepareCrossentropyForward(
          gpu,
          { N, V, logits, targets: ctx.targets, mask: ctx.mask, loss: bufs.loss, lse: bufs.lse, stats: bufs.stats },
          'sft crossentropy_forward',
        ),
        prepareCrossentropyBackward(
          gpu,
          {
            N,
            V,
            logits,
            targets: { buffer: ctx.targets },
            mask: { buffer: ctx.mask },
            lse: { buffer: bufs.lse },
            scale: { buffer: bufs.scale },
            dlogits: { buffer: ctx.dlogits },
          },
          'sft crossentropy_backward',
        ),
      ];
      return { dispatches, metrics: { buffer: bufs.stats, offset: 0 } };
    },
    write(ctx, batch) {
      if (!bufs) throw new Error('sftLossHead.write: prepare() was not called');
      ctx.gpu.device.queue.writeBuffer(bufs.scale, 0, new Float32Array([crossentropyScale(batch.mask)]));
    },
  };
}
