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
 * ends in a readback or onSubmittedWorkDone, so GPU time is included. Our step and the per-kernel
 * timing need the engine's internals: they live with it (src/engine/webgpu/bench/train_step.ts),
 * reached through src/engine/backend_bench.ts; this file runs the comparison.
 */
import { gpuTrainRig, type GpuStepBench, type GpuTrainRig, type KernelResult } from '../engine/backend_bench';
import { presetConfig, type ModelConfig, type PresetName } from '../model/config';
import { initParams } from '../model/init';
import { sftTargets } from '../model/cpu_model';
import { Rng } from '../util/rng';
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
  rig: GpuTrainRig,
  preset: PresetName,
  B: number,
  T: number,
  o: Required<TrainBenchOptions>,
  log: (s: string) => void,
): Promise<{ result: PresetResult; ours: GpuStepBench }> {
  const cfg = presetConfig(preset, o.vocabSize);
  const params = initParams(cfg, 1);
  const batch = benchBatch(cfg, B, T, 2);
  const lr = 1e-4;
  const trainer = rig.trainer(cfg, params, batch, lr);
  log(`${preset}: B=${B} T=${T} P=${params.length}: warming up ours`);
  const oursFirst = await trainer.step();
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
    ours.push(await timeIt(() => trainer.step()));
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
    counters: trainer.counters(),
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
  return { result, ours: trainer };
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
  const rig = await gpuTrainRig();
  const presets: PresetResult[] = [];
  let kernels: KernelResult[] = [];
  let kernelShape = { preset: 'small', B: 0, T: 0 };
  for (const [preset, B, T] of shapes(o.quick).filter(([p]) => o.presets.includes(p))) {
    const { result, ours } = await benchPreset(rig, preset, B, T, o, log);
    presets.push(result);
    if (preset === 'small') {
      log(`kernels: timing each dispatch of the small step`);
      kernels = await ours.kernels(o.quick ? 3 : 10);
      kernelShape = { preset, B, T };
    }
    ours.destroy();
  }
  let wasm: { simd: boolean; threads: boolean } | null = null;
  if (o.backends.includes('wasm')) {
    await useTfBackend('wasm');
    wasm = await tfWasmFeatures();
  }
  const errors = rig.errors();
  rig.destroy();
  return {
    adapter: rig.adapter,
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
