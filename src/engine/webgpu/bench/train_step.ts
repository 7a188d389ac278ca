/**
 * The WebGPU engine's side of `hlab bench`'s training section (src/bench/train_bench.ts compares
 * it with TF.js, reached through src/engine/backend_bench.ts): one device for the section, our
 * whole training step (GpuTrainer: forward + SFT loss + backward + clip + AdamW, one submit, one
 * metrics readback) with its counters, and per-kernel throughput of that step's dispatches.
 * Timings are wall-clock around work that ends in a readback or onSubmittedWorkDone, so GPU time
 * is included.
 */
import { createGpu, type Gpu } from '../device';
import { encodePrepared } from '../kernels/dispatch_plan';
import { GpuModel } from '../gpu_model';
import { GpuTrainer } from '../gpu_train';
import type { ModelConfig } from '../../../model/config';
import { DEFAULT_OPTIMIZER } from '../../../model/optimizer';

export interface KernelResult {
  pipeline: string;
  /** Dispatches of this pipeline per training step. */
  count: number;
  /** Summed median time per step (ms). */
  msPerStep: number;
  gflops: number;
  gbps: number;
}

/** A batch of B rows of T tokens with SFT targets and mask. */
interface BenchBatch {
  B: number;
  T: number;
  ids: Int32Array;
  targets: Int32Array;
  mask: Float32Array;
}

/** Our training step on one batch (`GpuTrainRig.trainer`). */
export interface GpuStepBench {
  /** One step on the batch. @returns its loss */
  step(): Promise<number>;
  /** Dispatches, submits and readbacks of the last step. */
  counters(): { dispatches: number; submits: number; readbacks: number };
  /**
   * Per-pipeline throughput of the step's dispatches: each dispatch encoded `repeat` times alone
   * in one pass, timed to onSubmittedWorkDone (median of 3). Destroys the numerical state (AdamW
   * runs repeatedly): run last.
   */
  kernels(repeat: number): Promise<KernelResult[]>;
  destroy(): void;
}

/** The device of the section (module doc). */
export interface GpuTrainRig {
  readonly adapter: Gpu['info'];
  /** Our step on `batch` from `params` at learning rate `lr` (AdamW otherwise the default). */
  trainer(cfg: ModelConfig, params: Float32Array, batch: BenchBatch, lr: number): GpuStepBench;
  /** Uncaptured WebGPU errors so far. */
  errors(): string[];
  destroy(): void;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** @throws WebGpuUnavailableError without an adapter or device */
export async function gpuTrainRig(): Promise<GpuTrainRig> {
  const gpu = await createGpu();
  return {
    adapter: gpu.info,
    trainer(cfg, params, batch, lr) {
      const model = GpuModel.create(gpu, cfg, { maxB: batch.B, maxT: batch.T });
      model.writeParams(params);
      const trainer = GpuTrainer.create(model, { ...DEFAULT_OPTIMIZER, lr });
      return {
        step: async () => (await trainer.trainStep(batch)).head.loss,
        counters: () => ({
          dispatches: trainer.lastCounters.dispatches,
          submits: trainer.lastCounters.submits,
          readbacks: trainer.lastCounters.readbacks,
        }),
        kernels: (repeat) => benchKernels(gpu, trainer, batch.B, batch.T, repeat),
        destroy() {
          trainer.destroy();
          model.destroy();
        },
      };
    },
    errors: () => [...gpu.errors],
    destroy: () => gpu.device.destroy(),
  };
}

/** `GpuStepBench.kernels` of `trainer` at shape (B, T). */
async function benchKernels(gpu: Gpu, trainer: GpuTrainer, B: number, T: number, repeat: number): Promise<KernelResult[]> {
  const byPipe = new Map<string, KernelResult & { flops: number; bytes: number }>();
  for (const d of trainer.stepDispatches(B, T)) {
    const trials: number[] = [];
    for (let k = 0; k < 3; k++) {
      const enc = gpu.device.createCommandEncoder({ label: `bench ${d.label}` });
      const pass = enc.beginComputePass();
      for (let r = 0; r < repeat; r++) encodePrepared(pass, [d]);
      pass.end();
      const t0 = performance.now();
      gpu.device.queue.submit([enc.finish()]);
      await gpu.device.queue.onSubmittedWorkDone();
      trials.push((performance.now() - t0) / repeat);
    }
    const ms = median(trials);
    const key = d.pipeline.label || d.label;
    const e = byPipe.get(key) ?? { pipeline: key, count: 0, msPerStep: 0, gflops: 0, gbps: 0, flops: 0, bytes: 0 };
    e.count++;
    e.msPerStep += ms;
    e.flops += d.flops;
    e.bytes += d.bytes;
    byPipe.set(key, e);
  }
  return [...byPipe.values()]
    .map(({ flops, bytes, ...e }) => ({
      ...e,
      msPerStep: +e.msPerStep.toFixed(4),
      gflops: +(flops / (e.msPerStep * 1e6)).toFixed(3),
      gbps: +(bytes / (e.msPerStep * 1e6)).toFixed(3),
    }))
    .sort((a, b) => b.msPerStep - a.msPerStep);
}
