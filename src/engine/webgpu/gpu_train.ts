/**
 * The whole training step on the GPU (docs/ARCHITECTURE.md "The WebGPU engine"): forward
 * (GpuModel) → pluggable loss head (`LossHead`: SFT cross-entropy or the RL head) → backward
 * (gpu_backward.ts, mirroring cpuBackward) → global-norm clip → AdamW, one submit per chunk of ≤ maxB rows and one
 * small metrics readback per step. Gradients are summed over a step's chunks, so several chunks
 * make one optimizer step.
 *
 * Invariant: a non-finite gradient norm or a head's skip word (`LossHead.skipFlag`) makes the step
 * a true no-op — params, m, v, the step count t and the LR schedule unchanged — and `trainStep`
 * throws (or, with `onSkip: 'report'`, returns `skipped: true`). Nothing is read back before the
 * update; per step the CPU only writes inputs and hyper-parameters.
 */
import type { Gpu } from './device';
import { createStorage, readF32 } from './buffers';
import { DeviceLostError, mapReadChecked } from '../device_lost';
import { encodePrepared, type PreparedDispatch, type TensorView } from './kernels/dispatch_plan';
import { TokenBucketBuffers } from './kernels/encoder_backward';
import { prepareGlobalNorm } from './kernels/global_norm_forward';
import { AdamWUpdate } from './kernels/adamw_update';
import type { GpuModel } from './gpu_model';
import { DEFAULT_OPTIMIZER, type OptimizerStep } from '../../model/optimizer';
import { sftLossHead, type LossContext, type LossHead, type TrainBatch } from './loss_head';
import { backwardDispatches, createBackwardScratch, type BackwardScratch } from './gpu_backward';

/** Optimizer settings (each defaults to DEFAULT_OPTIMIZER, src/model/optimizer.ts) and the loss head. */
interface TrainerOptions extends Partial<Omit<OptimizerStep, 'lr' | 'step'>> {
  /** Learning rate, constant or per 1-based step. */
  lr?: number | ((step: number) => number);
  /** Loss head (default SFT cross-entropy). */
  lossHead?: LossHead;
  /**
   * What `trainStep` does when the step was skipped on the GPU (non-finite norm or the head's
   * skip flag): 'throw' (default) an Error, or 'report' it as `StepMetrics.skipped`. Either way
   * nothing was applied and the step count is unchanged.
   */
  onSkip?: 'throw' | 'report';
}

/** Metrics of one step, from the single readback. */
interface StepMetrics {
  /** 1-based step number. */
  step: number;
  /** Global gradient L2 norm before clipping. */
  gradNorm: number;
  /** Clip multiplier applied, in (0, 1]. */
  gradScale: number;
  /** The loss head's metric words by name (SFT: loss, tokens). */
  head: Record<string, number>;
  /** True when AdamW skipped the step (only with `onSkip: 'report'`; `step` is then the last applied step). */
  skipped: boolean;
}

/** GPU work per training step, counted by the trainer (tests also count submits independently). */
interface StepCounters {
  dispatches: number;
  submits: number;
  readbacks: number;
  /** Compute passes and buffer clears/copies encoded. */
  passes: number;
  clears: number;
  copies: number;
}

interface ShapePlan {
  B: number;
  T: number;
  /** One chunk: forward → loss head → backward (grads accumulated), in order. */
  chunk: PreparedDispatch[];
  headMetrics: TensorView;
  ctx: LossContext;
}

// Grad norm, clip multiplier and up to 30 loss-head metric words (the RL head has 22).
const METRIC_WORDS_MAX = 32;

/**
 * The GPU trainer of one GpuModel: owns gradients, moments, backward scratch and the step.
 * Create with `GpuTrainer.create(model, opts)`; the model's parameters must be written first.
 */
export class GpuTrainer {
  readonly P: number;
  /** (P) gradients, same layout as the parameters. */
  readonly grads: GPUBuffer;
  /** (P) AdamW first and second moments. */
  readonly m: GPUBuffer;
  readonly v: GPUBuffer;
  /** [gradNorm, gradScale] written on the GPU each step. */
  readonly normOut: GPUBuffer;
  /** Steps taken so far (the next step is step + 1). */
  step = 0;
  /** Counters of the last step. */
  lastCounters: StepCounters = { dispatches: 0, submits: 0, readbacks: 0, passes: 0, clears: 0, copies: 0 };
  readonly head: LossHead;
  private readonly gpu: Gpu;
  private readonly opts: Required<Omit<TrainerOptions, 'lossHead'>>;
  private readonly mask: GPUBuffer;
  private readonly buckets: TokenBucketBuffers;
  private readonly s: BackwardScratch;
  private readonly adamw: AdamWUpdate;
  private readonly optimizer: PreparedDispatch[];
  private readonly staging: GPUBuffer;
  private readonly plans = new Map<string, ShapePlan>();
  private inFlight = false;

  private constructor(
    readonly model: GpuModel,
    opts: TrainerOptions,
  ) {
    this.gpu = model.gpu;
    const d = this.gpu.device;
    const { vocabSize: V } = model.cfg;
    this.P = model.layout.total;
    this.opts = {
      lr: opts.lr ?? DEFAULT_OPTIMIZER.lr,
      beta1: opts.beta1 ?? DEFAULT_OPTIMIZER.beta1,
      beta2: opts.beta2 ?? DEFAULT_OPTIMIZER.beta2,
      eps: opts.eps ?? DEFAULT_OPTIMIZER.eps,
      weightDecay: opts.weightDecay ?? DEFAULT_OPTIMIZER.weightDecay,
      maxNorm: opts.maxNorm ?? DEFAULT_OPTIMIZER.maxNorm,
      onSkip: opts.onSkip ?? 'throw',
    };
    if (this.opts.onSkip !== 'throw' && this.opts.onSkip !== 'report')
      throw new Error(`GpuTrainer: onSkip = ${String(this.opts.onSkip)} must be 'throw' or 'report'`);
    if (!(this.opts.maxNorm > 0)) throw new Error(`GpuTrainer: maxNorm = ${this.opts.maxNorm} must be > 0 (Infinity disables clipping)`);
    this.head = opts.lossHead ?? sftLossHead();
    if (this.head.metricNames.length > METRIC_WORDS_MAX - 2)
      throw new Error(`GpuTrainer: loss head '${this.head.name}' has more than ${METRIC_WORDS_MAX - 2} metrics`);
    const N = model.maxB * model.maxT;
    this.grads = createStorage(d, `grads (P=${this.P})`, this.P * 4);
    this.m = createStorage(d, `adamw-m (P=${this.P})`, this.P * 4);
    this.v = createStorage(d, `adamw-v (P=${this.P})`, this.P * 4);
    this.normOut = createStorage(d, 'global-norm [norm, gradScale]', 8);
    this.mask = createStorage(d, 'loss-mask (N)', N * 4);
    this.buckets = new TokenBucketBuffers(this.gpu, V, N, 'train encoder_backward');
    this.s = createBackwardScratch(this.gpu, model);
    this.optimizer = prepareGlobalNorm(this.gpu, {
      P: this.P,
      grads: { buffer: this.grads },
      out: { buffer: this.normOut },
      maxNorm: this.opts.maxNorm,
      skipFlag: this.head.skipFlag,
    });
    this.adamw = new AdamWUpdate(this.gpu, {
      P: this.P,
      params: { buffer: model.params },
      grads: { buffer: this.grads },
      m: this.m,
      v: this.v,
      gradScale: { buffer: this.normOut, offset: 1 },
    });
    this.optimizer.push(this.adamw.dispatch);
    this.staging = d.createBuffer({
      label: 'train-metrics-staging',
      size: METRIC_WORDS_MAX * 4,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
  }

  /**
   * A trainer for `model` (moments zero, step 0).
   * @throws Error naming a bad option, or a tensor that exceeds the device's binding limit.
   */
  static create(model: GpuModel, opts: TrainerOptions = {}): GpuTrainer {
    return new GpuTrainer(model, opts);
  }

  /** The prepared step of shape (B,T) (built once, cached): forward → loss head → backward. */
  private plan(B: number, T: number): ShapePlan {
    const key = `${B}:${T}`;
    const hit = this.plans.get(key);
    if (hit) return hit;
    const model = this.model;
    const N = B * T;
    const ctx: LossContext = {
      gpu: this.gpu,
      model,
      B,
      T,
      N,
      V: model.cfg.vocabSize,
      targets: model.targets,
      mask: this.mask,
      dlogits: this.s.dlogits,
      dvalues: this.s.dvalues,
    };
    const head = this.head.prepare(ctx);
    const chunk: PreparedDispatch[] = [
      ...model.forwardDispatches(B, T, { values: this.head.usesValues, logprob: false }),
      ...head.dispatches,
      ...this.backward(B, T),
    ];
    const plan: ShapePlan = { B, T, chunk, headMetrics: head.metrics, ctx };
    this.plans.set(key, plan);
    return plan;
  }

  /** The backward dispatches of shape (B,T), in the order of the module note (lm head … encoder). */
  private backward(B: number, T: number): PreparedDispatch[] {
    const model = this.model;
    const grad = (name: string): TensorView => {
      const e = model.layout.byName.get(name);
      if (!e) throw new Error(`GpuTrainer: unknown parameter '${name}'`);
      return { buffer: this.grads, offset: e.offset };
    };
    return backwardDispatches({ g: this.gpu, model, s: this.s, B, T, N: B * T, grad }, this.head.usesValues, this.buckets);
  }

  /** Validate a batch. @throws Error naming the bad field. */
  private checkBatch(b: TrainBatch): void {
    this.model.checkShape('GpuTrainer.trainStep', b.B, b.T);
    const N = b.B * b.T;
    if (b.ids?.length !== N) throw new Error(`GpuTrainer.trainStep: batch.ids has ${b.ids?.length} values, expected (B,T) = ${N}`);
    if (b.targets?.length !== N)
      throw new Error(`GpuTrainer.trainStep: batch.targets has ${b.targets?.length} values, expected (B·T) = ${N}`);
    if (b.mask?.length !== N) throw new Error(`GpuTrainer.trainStep: batch.mask has ${b.mask?.length} values, expected (B·T) = ${N}`);
    for (let i = 0; i < N; i++) {
      if (!(b.mask[i] >= 0) || !Number.isFinite(b.mask[i]))
        throw new Error(`GpuTrainer.trainStep: batch.mask[${i}] = ${b.mask[i]} must be finite and ≥ 0`);
    }
  }

  /**
   * Write chunk `k` of a step (ids, targets, mask, token buckets, the head's inputs) and encode it
   * into `encoder`: before the first chunk the gradient clear and the head's step begin; dres
   * cleared (the backward accumulates the residual gradient in place); one compute pass of
   * forward → head → backward; after the last chunk the head's step end, global norm, AdamW and
   * the metrics copies into the staging buffer.
   * @returns counts of what was encoded
   */
  private encodeChunk(encoder: GPUCommandEncoder, chunks: readonly TrainBatch[], k: number): Omit<StepCounters, 'submits' | 'readbacks'> {
    const batch = chunks[k];
    const first = k === 0;
    const last = k === chunks.length - 1;
    const plan = this.plan(batch.B, batch.T);
    const N = batch.B * batch.T;
    // Queue writes are ordered after the previous chunk's submit and before this one's.
    this.model.writeIds(batch.ids, batch.B, batch.T, 'ids');
    this.model.writeIds(batch.targets, batch.B, batch.T, 'targets');
    this.gpu.device.queue.writeBuffer(this.mask, 0, batch.mask.buffer, batch.mask.byteOffset, batch.mask.byteLength);
    this.buckets.write(batch.ids);
    this.head.write(plan.ctx, batch, { chunk: k, chunks });

    if (first) encoder.clearBuffer(this.grads);
    encoder.clearBuffer(this.s.dres, 0, N * this.model.cfg.C * 4);
    const pass = encoder.beginComputePass({ label: `train step B=${batch.B} T=${batch.T} (chunk ${k + 1}/${chunks.length})` });
    let dispatches = 0;
    if (first && this.head.perStep) dispatches += encodePrepared(pass, this.head.perStep.begin);
    dispatches += encodePrepared(pass, plan.chunk);
    if (last) {
      if (this.head.perStep) dispatches += encodePrepared(pass, this.head.perStep.end);
      dispatches += encodePrepared(pass, this.optimizer);
    }
    pass.end();
    if (!last) return { dispatches, passes: 1, clears: first ? 2 : 1, copies: 0 };
    encoder.copyBufferToBuffer(this.normOut, 0, this.staging, 0, 8);
    const hm = plan.headMetrics;
    encoder.copyBufferToBuffer(hm.buffer, (hm.offset ?? 0) * 4, this.staging, 8, this.head.metricNames.length * 4);
    return { dispatches, passes: 1, clears: first ? 2 : 1, copies: 2 };
  }

  /**
   * One optimizer step: one command buffer and one submit per batch (chunk), one metrics readback
   * (mapAsync of at most 32 words). Parameters, gradients and moments stay on the GPU.
   * Several batches (each ≤ maxB rows) make one step with their gradients summed (gradient
   * accumulation, module note); this needs a head with `perStep` (e.g. the RL head, which
   * normalizes every chunk by the whole step's tokens). Every batch is validated before any is
   * submitted.
   * @param batch one batch, or the chunks of one step in order
   * @param prelude optional work encoded into the first chunk's command buffer before the step
   *   (e.g. the RL trainer's GPU advantages, once per rollout batch), so it costs no extra submit
   * @returns the step's metrics (grad norm, clip multiplier, the loss head's metrics)
   * @throws Error naming a bad batch field, on no chunks or several chunks for a head without
   *   perStep, or when the device is lost.
   */
  async trainStep(batch: TrainBatch | readonly TrainBatch[], prelude?: (encoder: GPUCommandEncoder) => void): Promise<StepMetrics> {
    if (this.inFlight) throw new Error('GpuTrainer.trainStep: the previous step has not finished (await each step)');
    const chunks: readonly TrainBatch[] = Array.isArray(batch) ? (batch as readonly TrainBatch[]) : [batch as TrainBatch];
    if (chunks.length === 0) throw new Error('GpuTrainer.trainStep: no batches (an optimizer step needs at least one)');
    if (chunks.length > 1 && !this.head.perStep)
      throw new Error(`GpuTrainer.trainStep: loss head '${this.head.name}' scores one batch per step, got ${chunks.length} chunks`);
    if (this.gpu.lost) throw new DeviceLostError(`${this.gpu.lost.reason}: ${this.gpu.lost.message}`);
    chunks.forEach((c) => this.checkBatch(c));
    this.inFlight = true;
    try {
      const step = this.step + 1;
      const lr = typeof this.opts.lr === 'function' ? this.opts.lr(step) : this.opts.lr;
      this.adamw.setHyper({
        lr,
        beta1: this.opts.beta1,
        beta2: this.opts.beta2,
        eps: this.opts.eps,
        weightDecay: this.opts.weightDecay,
        step,
      });
      const c: StepCounters = { dispatches: 0, submits: 0, readbacks: 1, passes: 0, clears: 0, copies: 0 };
      for (let k = 0; k < chunks.length; k++) {
        const enc = this.gpu.device.createCommandEncoder({ label: `train step ${step} chunk ${k + 1}/${chunks.length}` });
        if (k === 0) prelude?.(enc);
        const e = this.encodeChunk(enc, chunks, k);
        this.gpu.device.queue.submit([enc.finish()]);
        c.dispatches += e.dispatches;
        c.passes += e.passes;
        c.clears += e.clears;
        c.copies += e.copies;
        c.submits++;
      }
      this.step = step;
      // A loss in the middle of the step rejects the map: the same DeviceLostError as before a step.
      await mapReadChecked(this.gpu.device, this.staging);
      const words = new Float32Array(this.staging.getMappedRange().slice(0));
      this.staging.unmap();
      this.lastCounters = c;
      const head: Record<string, number> = {};
      this.head.metricNames.forEach((n, i) => (head[n] = words[2 + i]));
      if (words[1] < 0) {
        // The AdamW kernel skipped the update (non-finite gradient norm or the head's skip
        // flag): params and moments unchanged; rewind t so the next step reuses t and its LR.
        this.step--;
        if (this.opts.onSkip === 'report') return { step: this.step, gradNorm: words[0], gradScale: words[1], head, skipped: true };
        throw new Error(
          `GpuTrainer.trainStep: gradient norm is ${words[0]}; step ${this.step + 1} skipped, parameters and moments unchanged`,
        );
      }
      return { step: this.step, gradNorm: words[0], gradScale: words[1], head, skipped: false };
    } finally {
      this.inFlight = false;
    }
  }

  /** Read the gradients of the last step (P) (test and debugging helper; one submit + map). */
  async readGrads(): Promise<Float32Array> {
    return readF32(this.gpu.device, this.grads, this.P);
  }

  /** Read the AdamW moments (checkpoints). */
  async readMoments(): Promise<{ m: Float32Array; v: Float32Array }> {
    return { m: await readF32(this.gpu.device, this.m, this.P), v: await readF32(this.gpu.device, this.v, this.P) };
  }

  /**
   * Restore moments and the step counter (checkpoint resume).
   * @throws Error when m or v does not have P values or step is not a non-negative integer.
   */
  writeMoments(m: Float32Array, v: Float32Array, step: number): void {
    if (m.length !== this.P || v.length !== this.P)
      throw new Error(`GpuTrainer.writeMoments: m and v must have P = ${this.P} values, got ${m.length} and ${v.length}`);
    if (!Number.isInteger(step) || step < 0) throw new Error(`GpuTrainer.writeMoments: step must be an integer ≥ 0, got ${step}`);
    this.gpu.device.queue.writeBuffer(this.m, 0, m.buffer, m.byteOffset, m.byteLength);
    this.gpu.device.queue.writeBuffer(this.v, 0, v.buffer, v.byteOffset, v.byteLength);
    this.step = step;
  }

  /** Dispatches a one-batch step of shape (B,T) encodes (head step begin + forward + head + backward + head step end + optimizer). */
  dispatchCount(B: number, T: number): number {
    return this.stepDispatches(B, T).length;
  }

  /** The prepared dispatches of a one-batch step, in encode order (benchmarks time them by label). */
  stepDispatches(B: number, T: number): readonly PreparedDispatch[] {
    const ps = this.head.perStep;
    return [...(ps?.begin ?? []), ...this.plan(B, T).chunk, ...(ps?.end ?? []), ...this.optimizer];
  }

  /** Release the trainer's buffers (not the model's). */
  destroy(): void {
    for (const b of [
      this.grads,
      this.m,
      this.v,
      this.normOut,
      this.mask,
      this.buckets.start,
      this.buckets.pos,
      this.staging,
      ...Object.values(this.s),
    ])
      b.destroy();
    this.plans.clear();
  }
}
