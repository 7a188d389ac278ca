/**
 * Configuration of the RL objective (DESIGN.md §9) and its validation.
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
 */

/** How per-token losses are reduced to one scalar (verl `agg_loss`). */
export type LossAggregation = 'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum-norm';

/** Estimator of KL(π‖π_ref) from samples of π (Schulman's KL note). */
export type KlEstimator = 'k1' | 'k2' | 'k3';

/** Numeric codes of the aggregation modes as the WGSL kernels see them. */
export const AGGREGATION_CODE: Record<LossAggregation, number> = {
  'token-mean': 0,
  'seq-mean-token-mean': 1,
  'seq-mean-token-sum-norm': 2,
};

/** Numeric codes of the KL estimators as the WGSL kernels see them. */
export const KL_ESTIMATOR_CODE: Record<KlEstimator, number> = { k1: 0, k2: 1, k3: 2 };

/** Every hyper-parameter of the RL loss, advantages and metrics. */
export interface RlLossConfig {
  /** 'grpo': group-relative outcome advantages, no value head; 'ppo': GAE with a value head. */
  algorithm: 'grpo' | 'ppo';
  /** ε_low: the ratio is clipped below at 1 − clipLow (PPO: 0.2). */
  clipLow: number;
  /** ε_high: the ratio is clipped above at 1 + clipHigh (DAPO clip-higher: 0.28). */
  clipHigh: number;
  /** Dual-clip constant c > 1: for A < 0 the loss is capped at −c·A; null disables it. */
  dualClip: number | null;
  /** Reduction of per-token losses (default 'token-mean' over the whole optimizer step, DAPO). */
  aggregation: LossAggregation;
  /**
   * Normalizer of 'seq-mean-token-sum-norm': Dr. GRPO's constant, the maximum response length in
   * tokens (an experiment passes spec.rollout.maxNewTokens); null uses the policy's context
   * length maxT. Never the padded row length: a row's loss must not depend on its padding.
   */
  tokenSumNorm: number | null;
  /** Weight of the KL(π‖π_ref) penalty added to the loss (0: no reference policy needed). */
  klCoef: number;
  /** KL estimator: k1 = log π/π_ref, k2 = ½(log π/π_ref)², k3 = π_ref/π − 1 − log(π_ref/π). */
  klEstimator: KlEstimator;
  /** Weight of the entropy bonus (the loss gets −entCoef·H). */
  entCoef: number;
  /** Weight of the value loss (PPO only). */
  vfCoef: number;
  /** Value clip range ε_v around the rollout's V_old; null disables value clipping. */
  vfClip: number | null;
  /** Discount γ ∈ [0, 1] of GAE (PPO). */
  gamma: number;
  /** GAE λ ∈ [0, 1] (PPO). */
  lambda: number;
  /** GRPO: a group whose reward std is below this floor gets A = 0 exactly (≥ 0). */
  stdFloor: number;
  /** GRPO: A = r − mean without std division (Dr. GRPO, Liu et al. 2025). */
  noStdDivision: boolean;
  /** δ > 0 in (r − mean)/(std + δ) and in the PPO advantage whitening (A − mean)/(std + δ). */
  eps: number;
  /** PPO: whiten advantages with the masked mean/std over the batch's valid tokens. */
  normalizeAdvantages: boolean;
}

/** Defaults: GRPO with DAPO clip-higher 0.2/0.28, token-mean, no KL, no entropy (ClawGym recipe). */
export const DEFAULT_RL_LOSS_CONFIG: Readonly<RlLossConfig> = Object.freeze({
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
export function validateRlLossConfig(c: RlLossConfig): void {
  const bad = (k: string, v: unknown, why: string): Error => new Error(`RlLossConfig.${k} = ${String(v)} ${why}`);
  const finite = (k: keyof RlLossConfig, lo: number, hi = Infinity): void => {
    const v = c[k] as number;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) {
      throw bad(k, v, `must be a finite number in [${lo}, ${hi}]`);
    }
  };
  if (c.algorithm !== 'grpo' && c.algorithm !== 'ppo') throw bad('algorithm', c.algorithm, "must be 'grpo' or 'ppo'");
  finite('clipLow', 0, 1);
  finite('clipHigh', 0);
  if (c.dualClip !== null && !(Number.isFinite(c.dualClip) && c.dualClip > 1)) throw bad('dualClip', c.dualClip, 'must be null or a finite number > 1');
  if (!(c.aggregation in AGGREGATION_CODE)) throw bad('aggregation', c.aggregation, `must be one of ${Object.keys(AGGREGATION_CODE).join(', ')}`);
  if (c.tokenSumNorm !== null && !(Number.isFinite(c.tokenSumNorm) && c.tokenSumNorm > 0)) throw bad('tokenSumNorm', c.tokenSumNorm, 'must be null or > 0');
  finite('klCoef', 0);
  if (!(c.klEstimator in KL_ESTIMATOR_CODE)) throw bad('klEstimator', c.klEstimator, "must be 'k1', 'k2' or 'k3'");
  finite('entCoef', 0);
  finite('vfCoef', 0);
  if (c.vfClip !== null && !(Number.isFinite(c.vfClip) && c.vfClip > 0)) throw bad('vfClip', c.vfClip, 'must be null or a finite number > 0');
  finite('gamma', 0, 1);
  finite('lambda', 0, 1);
  finite('stdFloor', 0);
  if (typeof c.noStdDivision !== 'boolean') throw bad('noStdDivision', c.noStdDivision, 'must be a boolean');
  if (!(Number.isFinite(c.eps) && c.eps > 0)) throw bad('eps', c.eps, 'must be a finite number > 0');
  if (typeof c.normalizeAdvantages !== 'boolean') throw bad('normalizeAdvantages', c.normalizeAdvantages, 'must be a boolean');
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
  throw new Error("resolveTokenSumNorm: 'seq-mean-token-sum-norm' needs a constant normalizer (cfg.tokenSumNorm, the maximum response length) or the policy's maxT");
}
