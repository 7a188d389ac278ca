/**
 * The rollout engine's `Policy` on the GPU: the batched KV-cache `Sampler` over a `GpuModel`
 * (browser only). Log-probs are the sampler's (log π at the sampling temperature, module doc
 * of sampler.ts), returned unchanged to the trainer.
 */
import type { GpuModel } from '../model/gpu_model';
import { Sampler } from './sampler';
import type { Policy, PolicySample } from './engine';

export class GpuPolicy implements Policy {
  readonly sampler: Sampler;
  /** Sampled tokens and sampler wall time so far (throughput metrics). */
  tokens = 0;
  ms = 0;

  constructor(readonly model: GpuModel) {
    this.sampler = new Sampler(model);
  }

  get maxB(): number {
    return this.model.maxB;
  }

  get maxT(): number {
    return this.model.maxT;
  }

  async sample(prompts: Int32Array[], maxNewTokens: number, temperature: number, seed: number, endToken: number): Promise<PolicySample[]> {
    const { rows, stats } = await this.sampler.sample({ prompts, maxNewTokens, temperature, seed, endToken });
    this.tokens += stats.tokens;
    this.ms += stats.ms;
    return rows;
  }

  destroy(): void {
    this.sampler.destroy();
  }
}
