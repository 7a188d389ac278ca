/**
 * Configuration of the RL objective (docs/ARCHITECTURE.md, RL objective) and its validation.
 *
 * Sources of the formulas behind each field:
 * - PPO clipped surrogate and clipped value loss: Schulman et al. 2017, "Proximal Policy
 *   Optimization Algorithms" (arXiv:1707.06347); value clipping as in OpenAI baselines / verl.
 * - GAE: Schulman et al. 2016, "High-Dimensional Continuous Control Using Generalized
 *   Advantage Estimation" (arXiv:1506.02438).
 * - GRPO group-relative advantages: Shao et al. 2024, "DeepSeekMath" (arXiv:2402.03300).
 * - Dr. GRPO (no std division, constant token-sum normalizer): Liu et al. 2025,
 *   "Understanding R1-Zero-Like Training: A Critical Perspective" (arXiv:2503.20783).
 * - Decoupled clip ranges ε_low/ε_high ("clip-higher") and token-level loss: Yu et al. 2025,
 *   "DAPO" (arXiv:2503.14476).
 * - Dual clip (c > 1, only where A < 0): Ye et al. 2020, "Mastering Complex Control in MOBA
 *   Games with Deep RL" (arXiv:1912.09729), as in verl `compute_policy_loss`.
 * - KL estimators k1, k2, k3: J. Schulman, "Approximating KL Divergence" (2020 blog note).
 * - Aggregation modes: verl `trainer/ppo/core_algos.py` `agg_loss`.
 * - Temperature: verl divides the logits by the rollout temperature before every log-prob /
 *   entropy of the update (`logits.div_(temperature)` in compute_log_prob and update_policy).
 */

import { z } from 'zod';
import { KL_ESTIMATORS, LOSS_AGGREGATIONS } from '../reference/rl_math';

/**
 * The one schema of the RL loss hyper-parameters an experiment spec carries; spec.ts embeds its
 * shape in `RlSpec` (field order as in the presets). Ranges are the ones the math and the kernels
 * accept.
 */
export const RlLossSpec = z.object({
  /** ε_low: the ratio is clipped below at 1 − clipLow (PPO: 0.2). */
  clipLow: z.number().min(0).max(1),
  /** ε_high: the ratio is clipped above at 1 + clipHigh (DAPO clip-higher: 0.28). */
  clipHigh: z.number().min(0).max(10),
  /** Dual-clip constant c > 1: for A < 0 the loss is capped at −c·A (Ye et al. 2020); null disables it. */
  dualClip: z.number().gt(1).nullable(),
  /** Reduction of per-token losses (verl agg_loss); token-mean divides by the valid tokens of the whole step (DAPO). */
  aggregation: z.enum(LOSS_AGGREGATIONS),
  /** Weight of the KL(π‖π_ref) penalty added to the loss (0: no reference policy needed). */
  klCoef: z.number().min(0),
  /** KL estimator: k1 = log π/π_ref, k2 = ½(log π/π_ref)², k3 = π_ref/π − 1 − log(π_ref/π). */
  klEstimator: z.enum(KL_ESTIMATORS),
  /** Weight of the entropy bonus (the loss gets −entCoef·H). */
  entCoef: z.number().min(0),
  /** Weight of the value loss (PPO only). */
  vfCoef: z.number().min(0),
  /** PPO value clip range ε_v around the rollout's V_old; null disables value clipping. */
  vfClip: z.number().positive().nullable(),
  /** Discount γ ∈ [0, 1] of GAE (PPO). */
  gamma: z.number().min(0).max(1),
  /** GAE λ ∈ [0, 1] (PPO). */
  lambda: z.number().min(0).max(1),
  /** GRPO: a group whose reward std is below this floor gets A = 0 exactly (≥ 0). */
  stdFloor: z.number().min(0),
  /** GRPO: A = r − mean without std division (Dr. GRPO, Liu et al. 2025). */
  noStdDivision: z.boolean(),
});

/** Every hyper-parameter of the RL loss, advantages and metrics: the spec's part plus what the runner derives. */
const RlLossConfigSchema = RlLossSpec.extend({
  /** 'grpo': group-relative outcome advantages, no value head; 'ppo': GAE with a value head (from the method). */
  algorithm: z.enum(['grpo', 'ppo']),
  /**
   * Normalizer of 'seq-mean-token-sum-norm': Dr. GRPO's constant, the maximum response length in
   * tokens (an experiment passes spec.rollout.maxNewTokens); null uses the policy's context
   * length maxT. Never the padded row length: a row's loss must not depend on its padding.
   */
  tokenSumNorm: z.number().positive().nullable(),
  /** δ > 0 in (r − mean)/(std + δ) and in the PPO advantage whitening (A − mean)/(std + δ). */
  eps: z.number().positive(),
  /** PPO: whiten advantages with the masked mean/std over the batch's valid tokens. */
  normalizeAdvantages: z.boolean(),
  /**
   * τ ∈ (0, 10]: the rollouts' sampling temperature (spec.rl.temperature). The trainer scores
   * ℓ = log softmax(z/τ)[a] (and the entropy bonus, the KL reference's log-probs) at this τ, so
   * ℓ matches the sampler's ℓ_old and the first minibatch's ratio is 1 for any τ.
   */
  temperature: z.number().positive().max(10),
});

export type RlLossConfig = z.infer<typeof RlLossConfigSchema>;

/** Defaults: GRPO with DAPO clip-higher 0.2/0.28, token-mean, no KL, no entropy (ClawGym recipe). */
const DEFAULT_RL_LOSS_CONFIG: Readonly<RlLossConfig> = Object.freeze({
  algorithm: 'grpo',
  clipLow: 0.2,
  clipHigh: 0.28,
  dualClip: null,
  aggregation: 'token-mean',
  tokenSumNorm: null,
  klCoef: 0,
  klEstimator: 'k3',
  entCoef: 0,
  vfCoef: 0.5,
  vfClip: 0.2,
  gamma: 1,
  lambda: 1,
  stdFloor: 1e-6,
  noStdDivision: false,
  eps: 1e-6,
  normalizeAdvantages: true,
  temperature: 1,
});

/**
 * A full config from defaults and overrides, validated.
 * @throws Error naming the first invalid field and its value.
 */
export function rlLossConfig(overrides: Partial<RlLossConfig> = {}): RlLossConfig {
  const c: RlLossConfig = { ...DEFAULT_RL_LOSS_CONFIG, ...overrides };
  validateRlLossConfig(c);
  return c;
}

/** @throws Error naming the first invalid field of `c` and its value. */
function validateRlLossConfig(c: RlLossConfig): void {
  const r = RlLossConfigSchema.safeParse(c);
  if (r.success) return;
  const issue = r.error.issues[0];
  const k = issue.path.join('.');
  throw new Error(`RlLossConfig.${k} = ${String((c as Record<string, unknown>)[k])} ${issue.message}`);
}

/**
 * The constant normalizer of 'seq-mean-token-sum-norm' for a policy of context length `maxT`:
 * cfg.tokenSumNorm, else maxT (see RlLossConfig.tokenSumNorm); for the other modes, where it is
 * unused, 1 when neither is known.
 * @throws Error when the mode is 'seq-mean-token-sum-norm' and neither is given.
 */
export function resolveTokenSumNorm(cfg: Pick<RlLossConfig, 'tokenSumNorm' | 'aggregation'>, maxT?: number): number {
  if (cfg.tokenSumNorm !== null) return cfg.tokenSumNorm;
  if (maxT !== undefined) {
    if (!(Number.isInteger(maxT) && maxT > 0)) throw new Error(`resolveTokenSumNorm: maxT must be a positive integer, got ${maxT}`);
    return maxT;
  }
  if (cfg.aggregation !== 'seq-mean-token-sum-norm') return 1;
  throw new Error(
    "resolveTokenSumNorm: 'seq-mean-token-sum-norm' needs a constant normalizer (cfg.tokenSumNorm, the maximum response length) or the policy's maxT",
  );
}
