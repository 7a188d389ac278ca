/**
 * Scalar pieces of the RL objective shared by the CPU references (docs/ARCHITECTURE.md "RL objective"). Pure, f64.
 * The WGSL kernels implement the same formulas in f32; the constants here are mirrored there.
 */
import type { Floats } from './ref_util';

/** How per-token losses are reduced to one scalar (verl `agg_loss`), in kernel-code order. */
export const LOSS_AGGREGATIONS = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const;
export type LossAggregation = (typeof LOSS_AGGREGATIONS)[number];

/** Estimators of KL(π‖π_ref) from samples of π (Schulman's KL note), in kernel-code order. */
export const KL_ESTIMATORS = ['k1', 'k2', 'k3'] as const;
export type KlEstimator = (typeof KL_ESTIMATORS)[number];

/** Numeric codes of the aggregation modes as the WGSL kernels see them. */
export const AGGREGATION_CODE: Record<LossAggregation, number> = {
  'token-mean': 0,
  'seq-mean-token-mean': 1,
  'seq-mean-token-sum-norm': 2,
};

/** Numeric codes of the KL estimators as the WGSL kernels see them. */
export const KL_ESTIMATOR_CODE: Record<KlEstimator, number> = { k1: 0, k2: 1, k3: 2 };

/**
 * Log-ratios are clamped to [−20, 20] before exp (verl `compute_policy_loss` and
 * `kl_penalty` do the same): e^20 ≈ 4.9e8 stays finite in f32, and the derivative of the
 * clamp is 0 outside, so a pathological token yields a finite loss and a zero gradient.
 */
export const LOG_RATIO_CLAMP = 20;

/** clamp(x, −LOG_RATIO_CLAMP, LOG_RATIO_CLAMP) and whether x was inside (derivative 1 vs 0). */
export function clampLogRatio(x: number): { x: number; inside: boolean } {
  if (x > LOG_RATIO_CLAMP) return { x: LOG_RATIO_CLAMP, inside: false };
  if (x < -LOG_RATIO_CLAMP) return { x: -LOG_RATIO_CLAMP, inside: false };
  return { x, inside: true };
}

/**
 * k3(x) = e^x − 1 − x ≥ 0 (Schulman's KL note, with x = log of the ratio of the two policies'
 * probabilities). Naively e^x − 1 − x cancels to 0 or a negative number at |x| ≈ 1e-6, so for
 * |x| < 0.5 we sum the Taylor series x²/2! + … + x¹²/12! (truncation < 1e-13 relative; the
 * WGSL kernel uses the same switch with terms to x⁹), else expm1(x) − x; clamped at 0 against
 * the last rounding. x is clamped to ±LOG_RATIO_CLAMP first.
 * @returns value and derivative d k3/dx = e^x − 1 (0 outside the clamp)
 */
export function k3(x: number): { value: number; dx: number } {
  const c = clampLogRatio(x);
  const em1 = Math.expm1(c.x);
  let value: number;
  if (Math.abs(c.x) < 0.5) {
    // Horner form of Σ_{k=2..12} x^k/k!
    let s = 0;
    for (let k = 12; k >= 2; k--) s = (s + 1) * (c.x / k);
    value = s * c.x;
  } else value = em1 - c.x;
  return { value: Math.max(0, value), dx: c.inside ? em1 : 0 };
}

/**
 * A KL(π‖π_ref) estimator at one sampled token, from ℓ = log π(a) and ℓ_ref = log π_ref(a),
 * x = ℓ_ref − ℓ (Schulman, "Approximating KL Divergence", 2020):
 *   k1 = −x (unbiased, can be negative), k2 = ½x² (low variance, biased), k3 = e^x − 1 − x
 *   (unbiased, ≥ 0; log-ratio clamped to ±20 so it is finite at any input).
 * @returns value and derivative with respect to ℓ
 */
export function klEstimate(kind: KlEstimator, logp: number, refLogp: number): { value: number; dlogp: number } {
  const x = refLogp - logp;
  switch (kind) {
    case 'k1':
      return { value: -x, dlogp: 1 };
    case 'k2':
      return { value: 0.5 * x * x, dlogp: -x };
    case 'k3': {
      const k = k3(x);
      return { value: k.value, dlogp: -k.dx };
    }
  }
}

/**
 * Importance ratio ρ = exp(clamp(ℓ − ℓ_old, ±20)) and dρ/dℓ (ρ inside the clamp, else 0).
 */
export function ratio(logp: number, oldLogp: number): { rho: number; drho: number } {
  const c = clampLogRatio(logp - oldLogp);
  const rho = Math.exp(c.x);
  return { rho, drho: c.inside ? rho : 0 };
}

/**
 * Clip state of one token of the surrogate: None = the unclipped term ρ·A is active (gradient
 * flows); Low = A < 0 and ρ < 1 − ε_low; High = A > 0 and ρ > 1 + ε_high; Dual = A < 0 and
 * the dual-clip cap −c·A is active. Every state but None has gradient 0.
 */
export const ClipState = { None: 0, Low: 1, High: 2, Dual: 3 } as const;
export type ClipState = (typeof ClipState)[keyof typeof ClipState];

/** Parameters of the clipped surrogate. */
export interface ClipParams {
  clipLow: number;
  clipHigh: number;
  /** c > 1, or null for no dual clip. */
  dualClip: number | null;
}

/**
 * Per-token PPO clipped surrogate loss (to minimize) as in verl `compute_policy_loss`:
 *   l1 = −A·ρ, l2 = −A·clip(ρ, 1−ε_low, 1+ε_high), l = max(l1, l2);
 *   with dual clip and A < 0: l = min(l, −c·A).
 * Ties count as unclipped (their gradients agree where ρ is inside the band).
 * @returns loss, dloss/dρ, and the clip state
 */
export function surrogateToken(rho: number, adv: number, p: ClipParams): { loss: number; drho: number; state: ClipState } {
  const l1 = -adv * rho;
  const clipped = Math.min(Math.max(rho, 1 - p.clipLow), 1 + p.clipHigh);
  const l2 = -adv * clipped;
  let loss = l1;
  let drho = -adv;
  let state: ClipState = ClipState.None;
  if (l2 > l1) {
    loss = l2;
    drho = 0;
    state = adv < 0 ? ClipState.Low : ClipState.High;
  }
  if (p.dualClip !== null && adv < 0) {
    const l3 = -adv * p.dualClip;
    if (loss > l3) {
      loss = l3;
      drho = 0;
      state = ClipState.Dual;
    }
  }
  return { loss, drho, state };
}

/**
 * Per-token clipped value loss (PPO2 / verl `compute_value_loss`), against the V_old stored at
 * rollout time: V_clip = V_old + clamp(V − V_old, −ε_v, ε_v),
 * loss = ½·max((V − R)², (V_clip − R)²); with ε_v = null, loss = ½(V − R)².
 * @returns loss, dloss/dV, and whether the clipped branch is active (its gradient is 0 when
 *   V is outside the band)
 */
export function valueLossToken(
  v: number,
  vOld: number,
  ret: number,
  vfClip: number | null,
): { loss: number; dv: number; clipped: boolean } {
  const e1 = v - ret;
  if (vfClip === null) return { loss: 0.5 * e1 * e1, dv: e1, clipped: false };
  const dvOld = v - vOld;
  const inside = dvOld >= -vfClip && dvOld <= vfClip;
  const vClip = vOld + Math.min(Math.max(dvOld, -vfClip), vfClip);
  const e2 = vClip - ret;
  if (e2 * e2 > e1 * e1) return { loss: 0.5 * e2 * e2, dv: inside ? e2 : 0, clipped: true };
  return { loss: 0.5 * e1 * e1, dv: e1, clipped: false };
}

/**
 * The denominators of the aggregated loss of one optimizer step, counted over the WHOLE step
 * (all micro-batches), so that the gradient does not depend on how the step is split.
 */
export interface StepNormalizer {
  /** N: valid policy tokens of the step (Σ M), ≥ 0. */
  globalTokens: number;
  /** S: rows of the step with at least one valid policy token, ≥ 0. */
  globalSeqs: number;
  /** Constant normalizer of 'seq-mean-token-sum-norm' (Dr. GRPO), > 0. */
  tokenSumNorm: number;
}

/**
 * The normalizer of a step whose rows are `mask` (B,T) — or the concatenation of all its
 * micro-batches' masks. `tokenSumNorm` is the constant of 'seq-mean-token-sum-norm' (Dr. GRPO:
 * the maximum response length, `resolveTokenSumNorm` in src/rl/config.ts); it is required, never
 * taken from T, so right-padding a row does not change its loss.
 * @throws Error naming the bad argument.
 */
export function stepNormalizer(mask: Floats, B: number, T: number, tokenSumNorm: number): StepNormalizer {
  if (mask.length !== B * T) throw new Error(`stepNormalizer: mask has ${mask.length} values, expected (B,T) = ${B * T}`);
  if (!(Number.isFinite(tokenSumNorm) && tokenSumNorm > 0))
    throw new Error(`stepNormalizer: tokenSumNorm must be a finite number > 0, got ${tokenSumNorm}`);
  let n = 0;
  let s = 0;
  for (let b = 0; b < B; b++) {
    let nb = 0;
    for (let t = 0; t < T; t++) if (mask[b * T + t] > 0) nb++;
    n += nb;
    if (nb > 0) s++;
  }
  return { globalTokens: n, globalSeqs: s, tokenSumNorm };
}

/**
 * Weight w of each valid token of a row with `nb` valid tokens, so that the loss is Σ w·l
 * (verl `agg_loss`, with step-global counts):
 *   token-mean: 1/N;  seq-mean-token-mean: 1/(S·n_b);  seq-mean-token-sum-norm: 1/(S·T_norm).
 * 0 when the denominator is 0 (an all-padding step yields zero gradients, never NaN).
 */
export function rowWeight(mode: LossAggregation, nb: number, norm: StepNormalizer): number {
  let den: number;
  switch (AGGREGATION_CODE[mode]) {
    case 0:
      den = norm.globalTokens;
      break;
    case 1:
      den = norm.globalSeqs * nb;
      break;
    default:
      den = norm.globalSeqs * norm.tokenSumNorm;
  }
  return nb > 0 && den > 0 ? 1 / den : 0;
}
