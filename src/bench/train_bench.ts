/**
 * Page-side benchmark of the training step (run by `hlab bench` through withBrowser; never a
 * timed test). Measures, on the page's WebGPU adapter:
 *   - our whole training step (GpuTrainer: forward + SFT loss + backward + clip + AdamW, one
 *     submit, one metrics readback) for the tiny and small presets: median step time, tokens/s;
 *   - the same model's step in TF.js on the webgpu, wasm and cpu backends, same page, the
 *     backends interleaved with ours in every repetition, median of ≥ 5, and the ratios;
 *   - dispatches, submits and readbacks per step (the trainer's counters);
 *   - per-kernel throughput: every dispatch of the small preset's step re-encoded alone
 *     `repeat` times in one pass, grouped by pipeline (GFLOP/s and GB/s from the launchers'
 *     flop and byte counts; SwiftShader's ~15 µs per-dispatch cost is included).
 * Timings are wall-clock (performance.now, 5 µs under cross-origin isolation) around work that
 * ends in a readback or onSubmittedWorkDone, so GPU time is included.
 */
import { createGpu, type Gpu } from '../engine/webgpu/device';
import { encodePrepared } from '../engine/webgpu/kernels/dispatch_plan';
import { GpuModel } from '../engine/webgpu/gpu_model';
import { GpuTrainer } from '../engine/webgpu/gpu_train';
import { presetConfig, type ModelConfig, type PresetName } from '../model/config';
import { initParams } from '../model/init';
import { sftTargets } from '../model/cpu_model';
import { Rng } from '../util/rng';
import { DEFAULT_OPTIMIZER } from '../model/optimizer';
import { TfTransformer, tfWasmFeatures, useTfBackend, type TfBackend } from './tfjs_transformer';

interface TrainBenchOptions {
  /** Smaller shapes and fewer kernel repeats. */
  quick?: boolean;
  /** Timed repetitions per contender (≥ 5). */
  reps?: number;
  /** TF.js backends to compare (default all three). */
  backends?: TfBackend[];
  /** Vocabulary size (default 1024, the shipped tokenizer's). */
  vocabSize?: number;
  /** Presets to run (default tiny and small; per-kernel timing needs small). */
  presets?: PresetName[];
}

interface StepTiming {
  medianMs: number;
  samplesMs: number[];
  tokensPerSec: number;
  /** Loss of the first (warm-up) step: ours and TF.js start from the same parameters. */
  firstLoss: number;
}

interface PresetResult {
  preset: PresetName;
  B: number;
  T: number;
  params: number;
  ours: StepTiming;
  counters: { dispatches: number; submits: number; readbacks: number };
  tfjs: Partial<Record<TfBackend, StepTiming | { error: string }>>;
  /** tfjs median / ours median per backend (> 1: ours is faster). */
  speedupVsTfjs: Partial<Record<TfBackend, number>>;
}

interface KernelResult {
  pipeline: string;
  /** Dispatches of this pipeline per training step. */
  count: number;
  /** Summed median time per step (ms). */
  msPerStep: number;
  gflops: number;
  gbps: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A batch of B full rows of random ids (seeded) with SFT targets. */
function benchBatch(cfg: ModelConfig, B: number, T: number, seed: number) {
  const rng = new Rng(seed);
  const ids = Int32Array.from({ length: B * T }, () => rng.int(cfg.vocabSize));
  const lengths = new Int32Array(B).fill(T);
  const { targets, mask } = sftTargets(ids, lengths, { B, T });
  return { B, T, ids, targets, mask };
}

/** Shapes per preset: (B, T). */
function shapes(quick: boolean): Array<[PresetName, number, number]> {
  return quick
    ? [
        ['tiny', 4, 32],
        ['small', 2, 64],
      ]
    : [
        ['tiny', 8, 64],
        ['small', 4, 128],
      ];
}

async function timeIt(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

/**
 * Our step vs TF.js for one preset, interleaved: each repetition runs ours, then each TF.js
 * backend once. The first step of each contender is an untimed warm-up (pipeline compilation,
 * TF.js kernel compilation).
 */
async function benchPreset(
  gpu: Gpu,
  preset: PresetName,
  B: number,
  T: number,
  o: Required<TrainBenchOptions>,
  log: (s: string) => void,
): Promise<{ result: PresetResult; trainer: GpuTrainer; model: GpuModel }> {
  const cfg = presetConfig(preset, o.vocabSize);
  const params = initParams(cfg, 1);
  const batch = benchBatch(cfg, B, T, 2);
  const model = GpuModel.create(gpu, cfg, { maxB: B, maxT: T });
  model.writeParams(params);
  const lr = 1e-4;
  const trainer = GpuTrainer.create(model, { ...DEFAULT_OPTIMIZER, lr });
  log(`${preset}: B=${B} T=${T} P=${params.length}: warming up ours`);
  const oursFirst = (await trainer.trainStep(batch)).head.loss;
  const tfs = new Map<TfBackend, { model: TfTransformer; first: number; samples: number[] } | { error: string }>();
  for (const b of o.backends) {
    let m: TfTransformer | null = null;
    try {
      log(`${preset}: warming up TF.js ${b}`);
      await useTfBackend(b);
      m = new TfTransformer(b, cfg, params, lr, T);
      m.setBatch(B, T, batch.ids, batch.targets, batch.mask);
      const first = await m.trainStep();
      tfs.set(b, { model: m, first, samples: [] });
    } catch (e) {
      m?.dispose();
      tfs.set(b, { error: (e as Error).message });
    }
  }
  const ours: number[] = [];
  for (let r = 0; r < o.reps; r++) {
    ours.push(await timeIt(() => trainer.trainStep(batch)));
    for (const [b, t] of tfs) {
      if ('error' in t) continue;
      await useTfBackend(b);
      t.samples.push(await timeIt(() => t.model.trainStep()));
    }
    log(
      `${preset}: repetition ${r + 1}/${o.reps}: ours ${ours[r].toFixed(1)} ms` +
        [...tfs].map(([b, t]) => ('error' in t ? '' : `, ${b} ${t.samples[r].toFixed(1)} ms`)).join(''),
    );
  }
  const timing = (samples: number[], firstLoss: number): StepTiming => {
    const med = median(samples);
    return { medianMs: med, samplesMs: samples.map((x) => +x.toFixed(3)), tokensPerSec: (B * T) / (med / 1000), firstLoss };
  };
  const oursT = timing(ours, oursFirst);
  const result: PresetResult = {
    preset,
    B,
    T,
    params: params.length,
    ours: oursT,
    counters: {
      dispatches: trainer.lastCounters.dispatches,
      submits: trainer.lastCounters.submits,
      readbacks: trainer.lastCounters.readbacks,
    },
    tfjs: {},
    speedupVsTfjs: {},
  };
  for (const [b, t] of tfs) {
    if ('error' in t) {
      result.tfjs[b] = t;
      continue;
    }
    result.tfjs[b] = timing(t.samples, t.first);
    result.speedupVsTfjs[b] = median(t.samples) / oursT.medianMs;
    await useTfBackend(b);
    t.model.dispose();
  }
  return { result, trainer, model };
}

/**
 * Per-pipeline throughput of one training step's dispatches (shape B,T of `trainer`): each
 * dispatch is encoded `repeat` times alone in one pass and timed to onSubmittedWorkDone
 * (median of 3). Destroys the trainer's numerical state (AdamW runs repeatedly): run last.
 */
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

/**
 * The whole training benchmark.
 * @param log progress, one line each (the page entry sends it to the CLI, which prints it to stderr)
 * @returns adapter, TF.js wasm features, per-preset step results, per-kernel results (small)
 */
export async function benchTraining(opts: TrainBenchOptions = {}, log: (line: string) => void = () => {}) {
  const o: Required<TrainBenchOptions> = {
    quick: opts.quick ?? false,
    reps: Math.max(5, opts.reps ?? 5),
    backends: opts.backends ?? ['webgpu', 'wasm', 'cpu'],
    vocabSize: opts.vocabSize ?? 1024,
    presets: opts.presets ?? ['tiny', 'small'],
  };
  const gpu = await createGpu();
  const presets: PresetResult[] = [];
  let kernels: KernelResult[] = [];
  let kernelShape = { preset: 'small', B: 0, T: 0 };
  for (const [preset, B, T] of shapes(o.quick).filter(([p]) => o.presets.includes(p))) {
    const { result, trainer, model } = await benchPreset(gpu, preset, B, T, o, log);
    presets.push(result);
    if (preset === 'small') {
      log(`kernels: timing each dispatch of the small step`);
      kernels = await benchKernels(gpu, trainer, B, T, o.quick ? 3 : 10);
      kernelShape = { preset, B, T };
    }
    trainer.destroy();
    model.destroy();
  }
  let wasm: { simd: boolean; threads: boolean } | null = null;
  if (o.backends.includes('wasm')) {
    await useTfBackend('wasm');
    wasm = await tfWasmFeatures();
  }
  const errors = [...gpu.errors];
  gpu.device.destroy();
  return {
    adapter: gpu.info,
    crossOriginIsolated: globalThis.crossOriginIsolated ?? false,
    hardwareConcurrency: navigator.hardwareConcurrency,
    userAgent: navigator.userAgent,
    tfjsWasm: wasm,
    reps: o.reps,
    presets,
    kernelShape,
    kernels,
    gpuErrors: errors,
  };
}
