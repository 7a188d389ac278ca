/**
 * The WebGPU engine's forward bench (`hlab bench` runs it through the page entry
 * src/bench/forward.bench.ts and src/engine/backend_bench.ts): forward kernels' throughput and
 * batched sampling tokens/s with and without the KV cache. Returns plain JSON numbers; never used
 * in tests (speed is not asserted anywhere).
 *
 * Kernel numbers: one prepared dispatch encoded `reps` times in one compute pass, one submit,
 * timed to `onSubmittedWorkDone`, median of 5 (the ~15 µs SwiftShader dispatch overhead is
 * included). GFLOP/s from the dispatch's flop count, GB/s from the bytes it must at least move.
 * Sampling numbers: `Sampler.sample` on random prompts (untrained `initParams` weights) at a
 * total context of 512 (prompt = 512 − new tokens): tokens/s of the decode steps (prefill
 * excluded, reported apart) and dispatches / submits / readbacks per token step.
 */
import { createGpu, type Gpu } from '../device';
import { createStorage, uploadStorage } from '../buffers';
import { encodePrepared, type PreparedDispatch } from '../kernels/dispatch_plan';
import { prepareMatmulForward } from '../kernels/matmul_forward';
import { prepareAttentionForward } from '../kernels/attention_forward';
import { prepareLayernormForward } from '../kernels/layernorm_forward';
import { prepareLogprobForward } from '../kernels/logprob_forward';
import { presetConfig, validateConfig, type PresetName } from '../../../model/config';
import { initParams } from '../../../model/init';
import { GpuModel } from '../gpu_model';
import { Sampler } from '../gpu_sampler';
import { Rng } from '../../../util/rng';

interface KernelBench {
  kernel: string;
  shape: string;
  msPerDispatch: number;
  gflops: number;
  gbps: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timeDispatch(gpu: Gpu, d: PreparedDispatch, reps: number): Promise<number> {
  const run = async () => {
    const t0 = performance.now();
    const enc = gpu.device.createCommandEncoder({ label: `bench ${d.label}` });
    const pass = enc.beginComputePass();
    for (let i = 0; i < reps; i++) encodePrepared(pass, [d]);
    pass.end();
    gpu.device.queue.submit([enc.finish()]);
    await gpu.device.queue.onSubmittedWorkDone();
    return (performance.now() - t0) / reps;
  };
  await run(); // warm-up (pipeline compilation, first touch)
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) ms.push(await run());
  return median(ms);
}

function randomBuffer(gpu: Gpu, label: string, n: number, rng: Rng, scale = 1): GPUBuffer {
  return uploadStorage(
    gpu.device,
    label,
    Float32Array.from({ length: n }, () => rng.normal() * scale),
  );
}

/**
 * Per-kernel throughput at the small preset's shapes (C = 128, V = 1024, B·T = 2048 rows, or
 * 512 with `quick`) plus a square 512³ matmul.
 */
async function benchForwardKernels(opts: { quick?: boolean } = {}): Promise<KernelBench[]> {
  const gpu = await createGpu();
  const rng = new Rng(1);
  const N = opts.quick ? 512 : 2048;
  const C = 128;
  const V = 1024;
  const reps = opts.quick ? 2 : 4;
  const out: KernelBench[] = [];
  const add = async (kernel: string, shape: string, d: PreparedDispatch) => {
    const ms = await timeDispatch(gpu, d, reps);
    out.push({ kernel, shape, msPerDispatch: ms, gflops: d.flops / ms / 1e6, gbps: d.bytes / ms / 1e6 });
  };
  try {
    const sq = 512;
    const a = randomBuffer(gpu, 'a', sq * sq, rng);
    const w = randomBuffer(gpu, 'w', sq * sq, rng);
    const o = createStorage(gpu.device, 'o', sq * sq * 4);
    await add(
      'matmul_forward',
      `${sq}x${sq}x${sq}`,
      prepareMatmulForward(gpu, { N: sq, K: sq, M: sq, inp: { buffer: a }, weight: { buffer: w }, bias: null, out: { buffer: o } }),
    );
    const x = randomBuffer(gpu, 'x', N * 4 * C, rng);
    const fcw = randomBuffer(gpu, 'fcw', 4 * C * C, rng);
    const fcb = randomBuffer(gpu, 'fcb', 4 * C, rng);
    const h = createStorage(gpu.device, 'h', N * 4 * C * 4);
    await add(
      'matmul_forward',
      `fc N=${N} K=${C} M=${4 * C}`,
      prepareMatmulForward(gpu, {
        N,
        K: C,
        M: 4 * C,
        inp: { buffer: x },
        weight: { buffer: fcw },
        bias: { buffer: fcb },
        out: { buffer: h },
      }),
    );
    const wte = randomBuffer(gpu, 'wte', V * C, rng);
    const logits = createStorage(gpu.device, 'logits', N * V * 4);
    await add(
      'matmul_forward',
      `lm_head N=${N} K=${C} M=${V}`,
      prepareMatmulForward(gpu, { N, K: C, M: V, inp: { buffer: x }, weight: { buffer: wte }, bias: null, out: { buffer: logits } }),
    );
    const B = N / 256;
    const T = 256;
    const qkv = randomBuffer(gpu, 'qkv', B * T * 3 * C, rng);
    const att = createStorage(gpu.device, 'att', B * 4 * T * T * 4);
    const y = createStorage(gpu.device, 'y', B * T * C * 4);
    await add(
      'attention_forward',
      `B=${B} T=${T} C=${C} NH=4`,
      prepareAttentionForward(gpu, { B, T, C, NH: 4, qkv: { buffer: qkv }, att: { buffer: att }, out: { buffer: y } }),
    );
    const lnw = randomBuffer(gpu, 'lnw', C, rng);
    const mean = createStorage(gpu.device, 'mean', N * 4);
    const rstd = createStorage(gpu.device, 'rstd', N * 4);
    await add(
      'layernorm_forward',
      `N=${N} C=${C}`,
      prepareLayernormForward(gpu, {
        N,
        C,
        inp: { buffer: x },
        w: { buffer: lnw },
        b: { buffer: lnw },
        out: { buffer: y },
        mean: { buffer: mean },
        rstd: { buffer: rstd },
      }),
    );
    const lz = randomBuffer(gpu, 'lz', N * V, rng, 3);
    const tgt = uploadStorage(
      gpu.device,
      'tgt',
      Int32Array.from({ length: N }, () => rng.int(V)),
    );
    await add(
      'logprob_forward',
      `N=${N} V=${V}`,
      prepareLogprobForward(gpu, {
        N,
        V,
        logits: { buffer: lz },
        targets: { buffer: tgt },
        logprob: { buffer: mean },
        lse: { buffer: rstd },
      }),
    );
  } finally {
    gpu.device.destroy();
  }
  return out;
}

interface SamplingBench {
  preset: PresetName;
  params: number;
  B: number;
  context: number;
  kvCache: boolean;
  newTokens: number;
  /** Tokens sampled by the steps after the first (all rows): B·(newTokens − 1). */
  decodeTokens: number;
  /** Wall time of those steps in ms (each ends in its readback, so GPU time is included). */
  decodeMs: number;
  /** decodeTokens / decodeMs, per second (prefill excluded). */
  tokensPerSec: number;
  /** The first step (prefill over the prompts + first token) in ms. */
  prefillMs: number;
  /** Mean ms per later token step (the whole batch). */
  msPerStep: number;
  /** Dispatches of the first step (prefill: full forward + L cache writes + sampling). */
  prefillDispatches: number;
  /** Dispatches per later token step (decode: 9L + 4 incl. sampling). */
  dispatchesPerStep: number;
  submitsPerStep: number;
  readbacksPerStep: number;
}

/**
 * Sampling throughput of `preset` (V = 1024, maxT raised to 512 for tiny) for B rows at total
 * context 512, with or without the KV cache. Temperature 1, no end token.
 */
export async function benchSampling(
  preset: PresetName,
  kvCache: boolean,
  opts: { B?: number; newTokens?: number; context?: number } = {},
): Promise<SamplingBench> {
  const context = opts.context ?? 512;
  const B = opts.B ?? 4;
  const newTokens = opts.newTokens ?? (kvCache ? 32 : 4);
  const base = presetConfig(preset, 1024);
  const cfg = validateConfig({ ...base, maxT: Math.max(base.maxT, context) });
  const gpu = await createGpu();
  try {
    const model = GpuModel.create(gpu, cfg, { maxB: B, maxT: context });
    model.writeParams(initParams(cfg, 1));
    const sampler = new Sampler(model);
    const rng = new Rng(2);
    const promptLen = context - newTokens;
    const prompts = Array.from({ length: B }, () => Int32Array.from({ length: promptLen }, () => rng.int(cfg.vocabSize)));
    // Warm-up: compiles every pipeline of the prefill and decode (or full-forward) steps.
    await sampler.sample({ prompts, maxNewTokens: 2, temperature: 1, seed: 3, useKvCache: kvCache });
    const t0 = performance.now();
    const full = await sampler.sample({ prompts, maxNewTokens: newTokens, temperature: 1, seed: 3, useKvCache: kvCache });
    const wallMs = performance.now() - t0;
    const later = full.stats.steps - 1;
    const decodeMs = full.stats.ms - full.stats.firstStepMs;
    const decodeTokens = full.stats.tokens - B;
    // Refuse to report impossible numbers: every step ends in a mapAsync readback, so the decode
    // steps take real time, the call's own clock cannot exceed ours, and no row stops early
    // (no end token, prompt + newTokens = context).
    if (later < 1 || full.stats.tokens !== B * newTokens || full.stats.steps !== newTokens) {
      throw new Error(
        `benchSampling(${preset}, kvCache=${kvCache}): expected ${newTokens} steps and ${B * newTokens} tokens, got ${full.stats.steps} steps and ${full.stats.tokens} tokens`,
      );
    }
    if (!(decodeMs > 0) || full.stats.ms > wallMs + 0.1) {
      throw new Error(
        `benchSampling(${preset}, kvCache=${kvCache}): inconsistent timing: decode ${decodeMs} ms, sampler ${full.stats.ms} ms, wall ${wallMs} ms`,
      );
    }
    sampler.destroy();
    model.destroy();
    return {
      preset,
      params: model.layout.total,
      B,
      context,
      kvCache,
      newTokens,
      decodeTokens,
      decodeMs,
      tokensPerSec: decodeTokens / (decodeMs / 1000),
      prefillMs: full.stats.firstStepMs,
      msPerStep: decodeMs / later,
      prefillDispatches: full.stats.firstStepDispatches,
      dispatchesPerStep: (full.stats.dispatches - full.stats.firstStepDispatches) / later,
      submitsPerStep: full.stats.submits / full.stats.steps,
      readbacksPerStep: full.stats.readbacks / full.stats.steps,
    };
  } finally {
    gpu.device.destroy();
  }
}

/** What `benchForward` measures. */
export interface ForwardBench {
  kernels: KernelBench[];
  sampling: SamplingBench[];
  /** Per preset: decode tokens/s with the KV cache over tokens/s without it. */
  kvCacheSpeedup: Record<string, number>;
}

/** The bench (module doc): kernels, then sampling for tiny and small, with and without the cache. */
export async function benchForward(opts: { quick?: boolean } = {}): Promise<ForwardBench> {
  const kernels = await benchForwardKernels(opts);
  const sampling: SamplingBench[] = [];
  const presets: PresetName[] = ['tiny', 'small'];
  for (const p of presets) {
    const withCache = await benchSampling(p, true, { newTokens: opts.quick ? 8 : 32 });
    // Quick keeps 2 steps without the cache: the second is the one timed (the first is the prefill).
    const noCache = await benchSampling(p, false, { newTokens: opts.quick ? 2 : 4 });
    sampling.push(withCache, noCache);
  }
  const speedup: Record<string, number> = {};
  for (const p of presets) {
    const a = sampling.find((s) => s.preset === p && s.kvCache)!;
    const b = sampling.find((s) => s.preset === p && !s.kvCache)!;
    speedup[p] = a.tokensPerSec / b.tokensPerSec;
  }
  return { kernels, sampling, kvCacheSpeedup: speedup };
}
