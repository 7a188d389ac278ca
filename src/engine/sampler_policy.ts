/**
 * The rollout engine's `Policy` over either engine's KV-cache sampler (the WebGPU `Sampler`,
 * engine/webgpu/gpu_sampler.ts; the CPU engine's `WasmSampler`, engine/wasm/wasm_sampler.ts). Log-probs are the
 * sampler's (log π at the sampling temperature), returned unchanged to the trainer. The special
 * tokens other than the stop id are never sampled (`banIds`): mid-action they would neither stop
 * the action nor reach the harness's text, so the text acted on and the ids trained would disagree.
 */
import type { Policy, PolicySample } from '../rollout/rollout';
import { defaultSpecialIds, type SampleRequest, type SampledRow, type SampleStats } from './sample_request';

/** What a policy needs of a sampler (both engines' samplers). */
interface KvSampler {
  sample(req: SampleRequest): Promise<{ rows: SampledRow[]; stats: SampleStats }>;
}

export class SamplerPolicy implements Policy {
  /** Sampled tokens and sampler wall time so far (throughput metrics). */
  tokens = 0;
  ms = 0;
  /** Ids never sampled except the stop id (default: the default tokenizer's specials). */
  readonly banIds: { lo: number; hi: number } | null;

  /**
   * @param maxB prompts per sample call (≤ what the sampler's model holds)
   * @param maxT the model's context limit
   * @param vocabSize V, for the default ban range
   */
  constructor(
    readonly sampler: KvSampler,
    readonly maxB: number,
    readonly maxT: number,
    vocabSize: number,
    opts: { banIds?: { lo: number; hi: number } | null } = {},
  ) {
    this.banIds = opts.banIds !== undefined ? opts.banIds : defaultSpecialIds(vocabSize);
  }

  async sample(prompts: Int32Array[], maxNewTokens: number, temperature: number, seed: number, endToken: number): Promise<PolicySample[]> {
    const { rows, stats } = await this.sampler.sample({
      prompts,
      maxNewTokens,
      temperature,
      seed,
      endToken,
      ...(this.banIds ? { banIds: this.banIds } : {}),
    });
    this.tokens += stats.tokens;
    this.ms += stats.ms;
    return rows;
  }
}
