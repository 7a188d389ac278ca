/**
 * The CPU engine (src/engine/wasm: AssemblyScript kernels compiled to WebAssembly SIMD, run on the
 * calling thread plus workers over one shared memory) as an `Engine`: WasmModel, the
 * KV-cache WasmSampler (as a SamplerPolicy), WasmRlTrainer, the CPU engine's SFT step and its held-out
 * scorer (`ScoringEngine`). Models live on the
 * WasmEngine's stack: what a policy, stack or trainer allocates is released by its `destroy`,
 * so they are destroyed in the reverse order of their creation.
 */
import type { ModelConfig } from '../../model/config';
import type { RlTrainerOptions } from '../../rl/update';
import type { RowBatch } from '../../episode/rows';
import { WasmEngine, type WasmEngineOptions } from './wasm_runtime';
import { WasmModel } from './wasm_model';
import { WasmSampler } from './wasm_sampler';
import { SamplerPolicy } from '../sampler_policy';
import { WasmRlTrainer } from './wasm_rl_trainer';
import { cpuSftTrainer, sftBatchNll } from './wasm_sft';
import type { BatchNll, EnginePolicy, RlStack, ScoringEngine, SftHyper, SftTrainer } from '../engine_api';

export class CpuEngine implements ScoringEngine {
  readonly kind = 'wasm' as const;
  readonly describe: string;

  private constructor(
    readonly wasm: WasmEngine,
    readonly reason: string,
  ) {
    this.describe = `CPU engine (WebAssembly SIMD, ${wasm.threads} thread${wasm.threads === 1 ? '' : 's'})`;
  }

  /**
   * Start the CPU engine.
   * @param reason why it was chosen (shown with every result)
   * @throws Error when WebAssembly (SIMD, shared memory for threads > 1) is unavailable.
   */
  static async create(reason: string, opts: WasmEngineOptions = {}): Promise<CpuEngine> {
    return new CpuEngine(await WasmEngine.create(opts), reason);
  }

  /** A WasmModel holding `params`, and the release of everything allocated since. */
  private model(cfg: ModelConfig, params: Float32Array): { model: WasmModel; release(): void } {
    const mark = this.wasm.mark();
    const model = WasmModel.create(this.wasm, cfg);
    model.writeParams(params);
    return { model, release: () => this.wasm.release(mark) };
  }

  createPolicy(cfg: ModelConfig, params: Float32Array, maxB: number): EnginePolicy {
    const { model, release } = this.model(cfg, params);
    return Object.assign(new SamplerPolicy(new WasmSampler(model), maxB, cfg.maxT, cfg.vocabSize), { destroy: release });
  }

  createRlStack(cfg: ModelConfig, params: Float32Array, maxB: number, opts: RlTrainerOptions): RlStack {
    const { model, release } = this.model(cfg, params);
    const trainer = WasmRlTrainer.create(model, opts, maxB);
    const policy = Object.assign(new SamplerPolicy(new WasmSampler(model), maxB, cfg.maxT, cfg.vocabSize), { destroy: () => {} });
    return { policy, trainer, readParams: async () => model.readParams(), destroy: release };
  }

  /** The CPU engine's SFT trainer; `nll` scores batches at its current parameters (src/pretrain/heldout.ts). maxB and maxT are not needed here. */
  createSftTrainer(cfg: ModelConfig, init: Float32Array, hp: SftHyper): SftTrainer & { nll: BatchNll } {
    const trainer = cpuSftTrainer(this.wasm, cfg, init, hp);
    return Object.assign(trainer, { nll: (b: RowBatch) => sftBatchNll(trainer.model, b) });
  }

  createScorer(cfg: ModelConfig, params: Float32Array): { nll: BatchNll; destroy(): void } {
    const { model, release } = this.model(cfg, params);
    return { nll: (b) => sftBatchNll(model, b), destroy: release };
  }

  errors(): readonly string[] {
    return [];
  }

  destroy(): void {
    this.wasm.destroy();
  }
}
