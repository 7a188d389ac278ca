/**
 * The rollout engine's `Policy` on the GPU: the batched KV-cache `Sampler` over a `GpuModel`
 * (browser only). Log-probs are the sampler's (log π at the sampling temperature, module doc
 * of sampler.ts), returned unchanged to the trainer. The special tokens other than the stop
 * id are never sampled (`banIds`): mid-action they would neither stop the action nor reach the
 * harness's text, so the text acted on and the ids trained would disagree.
 */
import type { GpuModel } from '../model/gpu_model';
import { Sampler } from './sampler';
import type { Policy, PolicySample } from './engine';
import { defaultSpecialIds } from './sample_request';

export class GpuPolicy implements Policy {
  readonly sampler: Sampler;
  /** Sampled tokens and sampler wall time so far (throughput metrics). */
  tokens = 0;
  ms = 0;

  /** Ids never sampled except the stop id (default: the default tokenizer's specials). */
  readonly banIds: { lo: number; hi: number } | null;

  constructor(
    readonly model: GpuModel,
    opts: { banIds?: { lo: number; hi: number } | null } = {},
  ) {
    this.sampler = new Sampler(model);
    this.banIds = opts.banIds !== undefined ? opts.banIds : defaultSpecialIds(model.cfg.vocabSize);
  }

  get maxB(): number {
    return this.model.maxB;
  }

  get maxT(): number {
    return this.model.maxT;
  }

  async sample(prompts: Int32Array[], maxNewTokens: number, temperature: number, seed: number, endToken: number): Promise<PolicySample[]> {
    const { rows, stats } = await this.sampler.sample({ prompts, maxNewTokens, temperature, seed, endToken, ...(this.banIds ? { banIds: this.banIds } : {}) });
    this.tokens += stats.tokens;
    this.ms += stats.ms;
    return rows;
  }

  destroy(): void {
    this.sampler.destroy();
  }
}
