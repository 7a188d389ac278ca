/**
 * What a sampler call takes and returns, and its validation: shared by the WebGPU sampler
 * (engine/webgpu/gpu_sampler.ts) and the CPU engine's (engine/wasm/wasm_sampler.ts). GPU-free, so Node code (the CPU
 * engine's pretraining) can import it.
 */
import { DEFAULT_SPECIALS } from '../model/tokenizer';

export interface SampleRequest {
  /** B prompts of token ids, each of length ≥ 1 (B ≤ model.maxB). */
  prompts: Int32Array[];
  /** New-token budget per row (one number for all rows, or B numbers), each ≥ 1. */
  maxNewTokens: number | number[];
  /** τ ≥ 0; 0 = greedy (argmax). */
  temperature: number;
  /** Nucleus mass in (0,1] (default 1 = no truncation). */
  topP?: number;
  /** Integer seed of this call. */
  seed: number;
  /** A row stops after sampling this id (which is included in its output). */
  endToken?: number;
  /**
   * Ids lo ≤ id < hi that are never sampled, except `endToken` (the special tokens: a special
   * mid-action would neither stop the row nor reach the harness's text, so the ids trained and
   * the text acted on would disagree). Their log-probs are unaffected (sample_tokens.wgsl).
   */
  banIds?: { lo: number; hi: number };
  /** Default true; false recomputes the full forward every step (benchmark baseline). */
  useKvCache?: boolean;
}

export type StopReason = 'end' | 'length' | 'context';

export interface SampledRow {
  /** Sampled ids, in order (the end token included when it stopped the row). */
  ids: Int32Array;
  /** log π(id) of each sampled id under the sampled distribution (see the module doc). */
  logprobs: Float32Array;
  /** Entropy of the policy softmax(z) at τ = 1 at each sampled position, nats (sample_tokens.ref.ts). */
  entropies: Float32Array;
  /** 'end' (end token), 'length' (maxNewTokens reached), 'context' (model.maxT reached). */
  stop: StopReason;
}

export interface SampleStats {
  /** Token steps (prefill's first token included). */
  steps: number;
  submits: number;
  readbacks: number;
  dispatches: number;
  /** Tokens returned over all rows. */
  tokens: number;
  /** Wall time of the call in ms. */
  ms: number;
  /** Wall time of the first step (prefill + first token) in ms; ms − firstStepMs is the decoding. */
  firstStepMs: number;
  /** Dispatches of the first step (the prefill); later steps have (dispatches − this)/(steps − 1). */
  firstStepDispatches: number;
}

/**
 * Validate a SampleRequest against a model (both engines' samplers use it).
 * @returns B, the prompt lengths, the per-row budgets and the ban range
 * @throws Error prefixed by `op` naming the bad field: B outside [1, maxB], a prompt of length 0
 *   or ≥ maxT, an id outside [0, V), a budget < 1, τ < 0, a non-integer seed, an endToken outside
 *   [0, V), a ban range outside [0, V].
 */
export function checkSampleRequest(
  op: string,
  req: SampleRequest,
  V: number,
  Tmax: number,
  maxB = Infinity,
): { B: number; lens: number[]; budgets: number[]; ban: { lo: number; hi: number } | undefined } {
  const B = req.prompts.length;
  if (B < 1 || B > maxB) throw new Error(`${op}: prompts must hold 1…maxB = ${maxB} rows, got ${B}`);
  const lens = req.prompts.map((p) => p.length);
  lens.forEach((l, b) => {
    if (l < 1 || l >= Tmax) throw new Error(`${op}: prompts[${b}] has length ${l}, must be in [1, maxT − 1 = ${Tmax - 1}]`);
    const p = req.prompts[b];
    for (let i = 0; i < l; i++) if (!(p[i] >= 0 && p[i] < V)) throw new Error(`${op}: prompts[${b}][${i}] = ${p[i]} is outside [0, ${V})`);
  });
  const budgets = typeof req.maxNewTokens === 'number' ? new Array<number>(B).fill(req.maxNewTokens) : req.maxNewTokens;
  if (budgets.length !== B) throw new Error(`${op}: maxNewTokens has ${budgets.length} entries, expected B = ${B}`);
  budgets.forEach((n, b) => {
    if (!Number.isInteger(n) || n < 1) throw new Error(`${op}: maxNewTokens[${b}] = ${n} must be an integer ≥ 1`);
  });
  if (!(req.temperature >= 0)) throw new Error(`${op}: temperature must be ≥ 0, got ${req.temperature}`);
  if (!Number.isInteger(req.seed)) throw new Error(`${op}: seed must be an integer, got ${req.seed}`);
  if (req.endToken !== undefined && !(Number.isInteger(req.endToken) && req.endToken >= 0 && req.endToken < V)) {
    throw new Error(`${op}: endToken = ${req.endToken} is outside [0, ${V})`);
  }
  const ban = req.banIds;
  if (ban && !(Number.isInteger(ban.lo) && Number.isInteger(ban.hi) && ban.lo >= 0 && ban.lo <= ban.hi && ban.hi <= V)) {
    throw new Error(`${op}: banIds [${ban.lo}, ${ban.hi}) must be a range inside [0, ${V}]`);
  }
  return { B, lens, budgets, ban };
}

/** The ids of the default tokenizer's specials (256 …), clipped to the vocabulary; null when none fit. */
export function defaultSpecialIds(vocabSize: number): { lo: number; hi: number } | null {
  const lo = 256;
  const hi = Math.min(vocabSize, 256 + DEFAULT_SPECIALS.length);
  return hi > lo ? { lo, hi } : null;
}
