/**
 * The one seam between the harness code and the model: an `Engine` runs the policy transformer
 * on one kind of hardware. Everything above it (runner, evaluation, pretraining, benchmarks, the
 * app's train worker) takes an `Engine` and never names GpuModel, WasmModel or their samplers.
 *
 *   Engine ─┬─ createPolicy     sample at any τ (greedy = τ 0), KV cache, log-probs at τ
 *           ├─ createRlStack    policy + RL trainer over one model (scores at the options' τ)
 *           ├─ createSftTrainer one optimizer step per SFT batch
 *           └─ destroy
 *
 * Two implementations, each in its folder and tested against the same CPU references
 * (src/reference): `WebGpuEngine` (webgpu/: GpuModel, Sampler, RlTrainer, GpuTrainer) and
 * `CpuEngine` (wasm/: WasmModel, WasmSampler, WasmRlTrainer); both policies are a SamplerPolicy
 * over the sampler. `chooseEngine` (choose.ts) picks one for a spec's `backend`
 * ('auto' | 'webgpu' | 'wasm'); "backend" means that choice and nothing else. Held-out scoring
 * (a synchronous forward-only loss) exists on the CPU engine alone: `ScoringEngine`, which
 * `startCpuEngine` (choose.ts) returns.
 */
import type { ModelConfig } from '../model/config';
import type { RowBatch } from '../episode/rows';
import type { TrajectoryLike } from '../rl/trainer_batch';
import type { RlTrainerOptions, RlUpdate } from '../rl/update';
import type { Policy } from '../rollout/rollout';

/** Which engine runs the model. */
type EngineKind = 'webgpu' | 'wasm';

/** A spec's or a command line's `backend`: an engine, or 'auto' (chooseEngine). */
export type BackendChoice = 'auto' | EngineKind;

/** A rollout policy with throughput counters (what the RL loop reads). */
export interface MeteredPolicy extends Policy {
  /** Tokens sampled and sampler wall time (ms) so far. */
  tokens: number;
  ms: number;
}

/** A rollout policy on an engine: `sample` at any τ ≥ 0 (0 = greedy), with throughput counters. */
export interface EnginePolicy extends MeteredPolicy {
  /** Release the policy's model and caches (the engine stays). */
  destroy(): void;
}

/** Parameters, AdamW moments and step of a trainer (checkpoints). */
interface TrainerState {
  params: Float32Array;
  m: Float32Array;
  v: Float32Array;
  adamStep: number;
}

/** The RL trainer of an engine (RlTrainer on WebGPU, WasmRlTrainer on the CPU engine). */
export interface EngineRlTrainer {
  /** One RL update: its metrics and the advantages its loss read (src/rl/update.ts). */
  update(trajs: readonly TrajectoryLike[], step: number): Promise<RlUpdate>;
  readState(): Promise<TrainerState>;
  /** @throws Error on a size mismatch. */
  writeState(s: TrainerState): void;
}

/** Policy and RL trainer over one model (one run). */
export interface RlStack {
  policy: EnginePolicy;
  trainer: EngineRlTrainer;
  readParams(): Promise<Float32Array>;
  destroy(): void;
}

/** One SFT optimizer step per batch (src/pretrain/sft.ts `trainSft` drives it). */
export interface SftTrainer {
  readonly name: string;
  /**
   * One optimizer step on `batch` at learning rate `lr`; `step` is 1-based and consecutive.
   * @returns the weighted token-mean loss (nats), the pre-clip gradient norm and Σ mask
   */
  step(batch: RowBatch, lr: number, step: number): Promise<{ loss: number; gradNorm: number; tokens: number }>;
  /** The current parameters (P). */
  params(): Promise<Float32Array>;
}

/** SFT hyper-parameters the trainers take. */
export interface SftHyper {
  weightDecay: number;
  maxNorm: number;
  /** Decay every parameter, LayerNorms and biases included (older checkpoints' rule; CPU engine). */
  decayAll?: boolean;
}

/** An engine (module doc). */
export interface Engine {
  readonly kind: EngineKind;
  /** What runs, for people: "WebGPU vendor/arch" or "CPU engine (WebAssembly SIMD, n threads)". */
  readonly describe: string;
  /** Why this engine was chosen. */
  readonly reason: string;
  /**
   * A rollout policy over `params`.
   * @param maxB prompts per sample call
   */
  createPolicy(cfg: ModelConfig, params: Float32Array, maxB: number): EnginePolicy;
  /**
   * Policy and RL trainer over one model starting from `params`.
   * @param maxB rows per sampler call and per optimizer step
   */
  createRlStack(cfg: ModelConfig, params: Float32Array, maxB: number, opts: RlTrainerOptions): RlStack;
  /**
   * An SFT trainer starting from `init`.
   * @param maxB,maxT the largest batch shape (rows, tokens) the run uses
   */
  createSftTrainer(cfg: ModelConfig, init: Float32Array, hp: SftHyper, maxB: number, maxT: number): SftTrainer;
  /** Errors the engine recorded so far (WebGPU validation errors; none on the CPU engine). */
  errors(): readonly string[];
  /** Release the engine (every policy, stack and trainer of it is invalid afterwards). */
  destroy(): void;
}

/** Σ mask·(−log p) over a batch's scored (action) tokens, and Σ mask: forward only, parameters untouched. */
export type BatchNll = (batch: RowBatch) => { nll: number; tokens: number };

/**
 * The CPU engine as held-out scoring sees it (`hlab pretrain --backend wasm`, `hlab heldout`):
 * an SFT trainer that also scores batches at its current parameters, and a scorer over given ones.
 */
export interface ScoringEngine extends Engine {
  /** An SFT trainer starting from `init` (the CPU engine needs no batch shape). */
  createSftTrainer(cfg: ModelConfig, init: Float32Array, hp: SftHyper): SftTrainer & { nll: BatchNll };
  /** A forward-only scorer over `params`; `destroy` releases its model. */
  createScorer(cfg: ModelConfig, params: Float32Array): { nll: BatchNll; destroy(): void };
}
