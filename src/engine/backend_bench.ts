/**
 * The engines' benchmark parts for `hlab bench` (src/bench: the sections and their peer
 * comparisons), each engine's module loaded on first use: what measures an engine's internals
 * (its kernels, sampler timings, trainer counters) lives in that engine's bench/ folder, and
 * src/bench reaches it only here.
 *
 *   cpuBenchRig       src/engine/wasm/bench/cpu_rig.ts      GEMM, SFT trainers, sampler tokens/s
 *   gpuTrainRig       src/engine/webgpu/bench/train_step.ts our training step, counters, per kernel
 *   benchForward      src/engine/webgpu/bench/forward.ts    forward kernels, sampling with/without KV cache
 *   benchGpuSampling  src/engine/webgpu/bench/forward.ts    one sampling measurement
 */
import type { PresetName } from '../model/config';
import type { CpuBenchRig } from './wasm/bench/cpu_rig';
import type { GpuTrainRig } from './webgpu/bench/train_step';
import type { ForwardBench } from './webgpu/bench/forward';

export type { CpuBenchRig, CpuGemmRow } from './wasm/bench/cpu_rig';
export type { GpuStepBench, GpuTrainRig, KernelResult } from './webgpu/bench/train_step';
export type { ForwardBench } from './webgpu/bench/forward';

/**
 * The CPU engine on each of `threadCounts` (one WasmEngine each; `destroy` releases them).
 * @throws Error when WebAssembly (SIMD, shared memory for threads > 1) is unavailable.
 */
export async function cpuBenchRig(threadCounts: readonly number[]): Promise<CpuBenchRig> {
  return (await import('./wasm/bench/cpu_rig')).cpuBenchRig(threadCounts);
}

/** A WebGPU device for the training section. @throws WebGpuUnavailableError without an adapter or device */
export async function gpuTrainRig(): Promise<GpuTrainRig> {
  return (await import('./webgpu/bench/train_step')).gpuTrainRig();
}

/** The WebGPU forward bench: kernels, then sampling for tiny and small with and without the KV cache. */
export async function benchForward(opts: { quick?: boolean } = {}): Promise<ForwardBench> {
  return (await import('./webgpu/bench/forward')).benchForward(opts);
}

/**
 * Sampling throughput of the WebGPU sampler for `preset` (V = 1024) at total context 512 (or
 * `opts.context`), with or without the KV cache.
 */
export async function benchGpuSampling(
  preset: PresetName,
  kvCache: boolean,
  opts: { B?: number; newTokens?: number; context?: number } = {},
): Promise<ForwardBench['sampling'][number]> {
  return (await import('./webgpu/bench/forward')).benchSampling(preset, kvCache, opts);
}
