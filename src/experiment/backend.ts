/**
 * Which engine runs the policy of an experiment, and the one interface the runner drives it
 * through: a `PolicyStack` (rollout policy + RL trainer over one model) on WebGPU (GpuModel,
 * GpuPolicy, RlTrainer: src/model, src/rollout, src/rl) or on the CPU engine (WasmModel,
 * WasmPolicy, WasmRlTrainer: src/wasm). Both implement the same contracts and are tested
 * against the same CPU references.
 *
 * `auto` (the spec default) takes WebGPU on a hardware adapter and the CPU engine when WebGPU
 * is missing or the adapter is a software rasterizer (SwiftShader: ~1 GFLOP/s, while the CPU
 * engine runs WebAssembly SIMD on every core); the choice and its reason go into every output.
 */
import { createGpu, type Gpu } from '../gpu/device';
import type { ModelConfig } from '../model/config';
import { GpuModel } from '../model/gpu_model';
import { RlTrainer, type RlTrainerOptions, type RlUpdate } from '../rl/trainer';
import type { TrajectoryLike } from '../rl/trainer_batch';
import type { Policy, PolicySample } from '../rollout/engine';
import { defaultSpecialIds, GpuPolicy } from '../rollout/gpu_policy';
import { WasmEngine } from '../wasm/engine';
import { WasmModel } from '../wasm/model';
import { WasmRlTrainer } from '../wasm/rl_trainer';
import { WasmSampler } from '../wasm/sampler';

export type BackendChoice = 'auto' | 'webgpu' | 'wasm';

/** The engine chosen for a run, with the reason shown to the user. */
export type Backend = { kind: 'webgpu'; gpu: Gpu; reason: string; describe: string } | { kind: 'wasm'; engine: WasmEngine; reason: string; describe: string };

/** A software adapter: SwiftShader (Chrome's CPU Vulkan) or an adapter flagged as fallback. */
export function isSoftwareAdapter(info: { vendor: string; architecture: string; description: string }, isFallback = false): boolean {
  return isFallback || /swiftshader/i.test(`${info.architecture} ${info.description}`) || /llvmpipe|software/i.test(info.description);
}

/**
 * Pick and start the engine for `choice` (module doc).
 * @throws Error when 'webgpu' is forced and unavailable, or the CPU engine cannot start.
 */
export async function chooseBackend(choice: BackendChoice): Promise<Backend> {
  const wasm = async (reason: string): Promise<Backend> => {
    const engine = await WasmEngine.create();
    return { kind: 'wasm', engine, reason, describe: `CPU engine (WebAssembly SIMD, ${engine.threads} thread${engine.threads === 1 ? '' : 's'})` };
  };
  if (choice === 'wasm') return wasm("forced by backend 'wasm'");
  let gpu: Gpu;
  try {
    gpu = await createGpu();
  } catch (e) {
    if (choice === 'webgpu') throw e;
    return wasm(`WebGPU unavailable (${(e as Error).message.split('\n')[0]})`);
  }
  const describe = `WebGPU ${gpu.info.vendor}/${gpu.info.architecture}${gpu.info.device ? '/' + gpu.info.device : ''}`;
  const fallback = (gpu.adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
  if (choice === 'auto' && isSoftwareAdapter(gpu.info, fallback)) {
    try {
      const b = await wasm(`the WebGPU adapter is software (${gpu.info.vendor}/${gpu.info.architecture}); the CPU engine is faster there`);
      gpu.device.destroy();
      return b;
    } catch (e) {
      return { kind: 'webgpu', gpu, reason: `software adapter, but the CPU engine cannot start here (${(e as Error).message.split('\n')[0]})`, describe };
    }
  }
  return { kind: 'webgpu', gpu, reason: choice === 'webgpu' ? "forced by backend 'webgpu'" : 'hardware WebGPU adapter', describe };
}

/** What the runner needs of the RL trainer, on either engine. */
export interface StackTrainer {
  /** One RL update: its metrics and the advantages its loss read (RlTrainer.update). */
  update(trajs: readonly TrajectoryLike[], step: number): Promise<RlUpdate>;
  readState(): Promise<{ params: Float32Array; m: Float32Array; v: Float32Array; adamStep: number }>;
  writeState(s: { params: Float32Array; m: Float32Array; v: Float32Array; adamStep: number }): void;
}

/** A rollout policy with throughput counters. */
export interface StackPolicy extends Policy {
  tokens: number;
  ms: number;
}

/** Policy, trainer and parameters of one run on one engine. */
export interface PolicyStack {
  policy: StackPolicy;
  trainer: StackTrainer;
  readParams(): Promise<Float32Array>;
  destroy(): void;
}

/** The CPU engine's Policy: the KV-cache WasmSampler (log-probs returned unchanged to the trainer). */
export class WasmPolicy implements StackPolicy {
  readonly sampler: WasmSampler;
  tokens = 0;
  ms = 0;
  /** Ids never sampled (the tokenizer's specials; the end token stays allowed), as GpuPolicy. */
  readonly banIds: { lo: number; hi: number } | null;
  constructor(
    readonly model: WasmModel,
    readonly maxB: number,
    opts: { banIds?: { lo: number; hi: number } | null } = {},
  ) {
    this.sampler = new WasmSampler(model);
    this.banIds = opts.banIds !== undefined ? opts.banIds : defaultSpecialIds(model.cfg.vocabSize);
  }
  get maxT(): number {
    return this.model.cfg.maxT;
  }
  async sample(prompts: Int32Array[], maxNewTokens: number, temperature: number, seed: number, endToken: number): Promise<PolicySample[]> {
    const { rows, stats } = await this.sampler.sample({ prompts, maxNewTokens, temperature, seed, endToken, ...(this.banIds ? { banIds: this.banIds } : {}) });
    this.tokens += stats.tokens;
    this.ms += stats.ms;
    return rows;
  }
}

/**
 * Model + policy + trainer for one run, starting from `params`.
 * @param maxB rows per sampler call and per optimizer step
 */
export function createStack(backend: Backend, cfg: ModelConfig, params: Float32Array, maxB: number, opts: RlTrainerOptions): PolicyStack {
  if (backend.kind === 'webgpu') {
    const model = GpuModel.create(backend.gpu, cfg, { maxB });
    model.writeParams(params);
    const policy = new GpuPolicy(model);
    const trainer = RlTrainer.create(backend.gpu, model, opts);
    return {
      policy,
      trainer,
      readParams: () => model.readParams(),
      destroy: () => {
        trainer.destroy();
        policy.destroy();
        model.destroy();
      },
    };
  }
  const base = backend.engine.mark();
  const model = WasmModel.create(backend.engine, cfg);
  model.writeParams(params);
  const trainer = WasmRlTrainer.create(model, opts, maxB);
  const policy = new WasmPolicy(model, maxB);
  return {
    policy,
    trainer,
    readParams: async () => model.readParams(),
    // The run's model memory is reused by the next run (stack discipline of WasmEngine).
    destroy: () => backend.engine.release(base),
  };
}

/** A rollout policy alone (evaluation): the engine's KV-cache sampler over `params`. */
export function createPolicy(backend: Backend, cfg: ModelConfig, params: Float32Array, maxB: number): { policy: StackPolicy; destroy(): void } {
  if (backend.kind === 'webgpu') {
    const model = GpuModel.create(backend.gpu, cfg, { maxB });
    model.writeParams(params);
    const policy = new GpuPolicy(model);
    return { policy, destroy: () => (policy.destroy(), model.destroy()) };
  }
  const base = backend.engine.mark();
  const model = WasmModel.create(backend.engine, cfg);
  model.writeParams(params);
  return { policy: new WasmPolicy(model, maxB), destroy: () => backend.engine.release(base) };
}

/** Release the engine at the end of the experiment. */
export function destroyBackend(b: Backend): void {
  if (b.kind === 'wasm') b.engine.destroy();
}
