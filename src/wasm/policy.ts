/**
 * The CPU engine's rollout `Policy`: the KV-cache `WasmSampler` over a `WasmModel`, the
 * contract of the WebGPU engine's GpuPolicy (src/rollout/gpu_policy.ts): log-probs at the
 * sampling τ returned unchanged to the trainer, and the tokenizer's specials other than the stop
 * id never sampled (`banIds`).
 */
import type { Policy, PolicySample } from '../rollout/engine';
import { defaultSpecialIds } from '../rollout/sample_request';
import type { WasmModel } from './model';
import { WasmSampler } from './sampler';

export class WasmPolicy implements Policy {
  readonly sampler: WasmSampler;
  /** Sampled tokens and sampler wall time so far (throughput metrics). */
  tokens = 0;
  ms = 0;
  /** Ids never sampled except the stop id (default: the default tokenizer's specials). */
  readonly banIds: { lo: number; hi: number } | null;

  /** @param maxB prompts per sample call */
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
