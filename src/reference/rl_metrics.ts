/**
 * Layouts of the RL metric buffers, shared by the CPU references and the WGSL kernels
 * (the shaders repeat these indices as `const`; tests/unit/rl_layout.test.ts checks they agree).
 *
 * Three stages, all deterministic (fixed order, no float atomics):
 * 1. rowStats (B, ROW_STATS) f32: each loss kernel's per-row partials (one invocation per row,
 *    tokens in increasing t), written for the current micro-batch.
 * 2. acc (ROW_STATS) f32: the optimizer step's accumulator; `rl_metrics_forward` `accumulate`
 *    folds rowStats into it in increasing b after every micro-batch (sums add, min/max
 *    combine, (mean, M2) pairs merge with Chan et al.'s parallel update).
 * 3. metrics (RL_METRICS) f32: `finalize` turns acc and the non-finite flags into the named
 *    metrics below, the step's one readback.
 */

/** Columns of rowStats and slots of acc. Sums are over valid tokens (mask > 0) of the row. */
export const ROW = {
  /** n_b = Σ_t M (written by surrogate_forward). */
  TOKENS: 0,
  /** 1 if n_b > 0 else 0 (written by surrogate_forward). */
  SEQS: 1,
  /** Σ_t w·l_pg: the row's share of the aggregated policy loss. */
  PG_LOSS: 2,
  /** Count of tokens clipped low (A < 0, ρ < 1 − ε_low). */
  CLIP_LOW: 3,
  /** Count of tokens clipped high (A > 0, ρ > 1 + ε_high). */
  CLIP_HIGH: 4,
  /** Count of tokens where the dual clip is active. */
  DUAL_CLIP: 5,
  /** Σ k3(ℓ − ℓ_old): approximate KL(π_old‖π). */
  APPROX_KL: 6,
  /** Σ ρ. */
  RATIO_SUM: 7,
  /** min ρ (+3.4e38 for an empty row). */
  RATIO_MIN: 8,
  /** max ρ (−3.4e38 for an empty row). */
  RATIO_MAX: 9,
  /** Mean of A over the row's valid tokens (pairs with TOKENS as count). */
  ADV_MEAN: 10,
  /** Σ (A − mean)² (Welford M2). */
  ADV_M2: 11,
  /** Σ k(ℓ, ℓ_ref), the KL estimator to the reference policy. */
  KL_SUM: 12,
  /** Σ w·k: the row's share of the aggregated KL term. */
  KL_LOSS: 13,
  /** Σ H (entropy of the full softmax, nats). */
  ENT_SUM: 14,
  /** Σ w·H: the row's share of the aggregated entropy. */
  ENT_LOSS: 15,
  /** Σ w·½max((V−R)², (V_clip−R)²): the row's share of the aggregated value loss. */
  VF_LOSS: 16,
  /** Count of tokens whose clipped value branch is active. */
  VF_CLIP: 17,
  /** Mean of the returns R over valid tokens. */
  RET_MEAN: 18,
  /** Σ (R − mean)². */
  RET_M2: 19,
  /** Mean of the residual R − V. */
  RES_MEAN: 20,
  /** Σ (R − V − mean)². */
  RES_M2: 21,
} as const;

/** Columns of rowStats / slots of acc (padded to a multiple of 4). */
export const ROW_STATS = 24;

/** Initial value of a min slot and of a max slot (±f32 max, so an empty row never wins). */
export const F32_MAX = 3.4028234663852886e38;

/** Names of the finalized metrics, in buffer order. */
export const RL_METRIC_NAMES = [
  'loss',
  'policyLoss',
  'valueLoss',
  'klRef',
  'entropy',
  'approxKl',
  'clipFracLow',
  'clipFracHigh',
  'dualClipFrac',
  'vfClipFrac',
  'ratioMean',
  'ratioMin',
  'ratioMax',
  'advMean',
  'advStd',
  'explainedVariance',
  'returnMean',
  'tokens',
  'sequences',
  'gradNorm',
  'skipped',
  'nonfiniteMask',
] as const;

type RlMetricName = (typeof RL_METRIC_NAMES)[number];

/** The metrics of one optimizer step. */
export type RlMetrics = Record<RlMetricName, number>;

/** Slot of each metric in the metrics buffer. */
export const METRIC: Record<RlMetricName, number> = Object.fromEntries(RL_METRIC_NAMES.map((n, i) => [n, i])) as Record<
  RlMetricName,
  number
>;

/** Length of the metrics buffer (f32, padded to a multiple of 4). */
export const RL_METRICS = 24;

/**
 * Bits of the non-finite flag word (u32). A set bit means a NaN or ±Inf was found in that
 * tensor; any set bit marks the step as skipped.
 */
export const NONFINITE = {
  rewards: 1 << 0,
  logprobs: 1 << 1,
  oldLogprobs: 1 << 2,
  refLogprobs: 1 << 3,
  values: 1 << 4,
  oldValues: 1 << 5,
  returns: 1 << 6,
  advantages: 1 << 7,
  logits: 1 << 8,
  gradNorm: 1 << 9,
  lossGrad: 1 << 10,
} as const;

type NonfiniteSource = keyof typeof NONFINITE;

/** The names of the set bits of a flag word, e.g. ['rewards', 'values']. */
export function nonfiniteSources(mask: number): NonfiniteSource[] {
  return (Object.keys(NONFINITE) as NonfiniteSource[]).filter((k) => (mask & NONFINITE[k]) !== 0);
}

/**
 * Decode a metrics buffer.
 * @throws Error when it has fewer than RL_METRIC_NAMES.length values.
 */
export function decodeRlMetrics(buf: ArrayLike<number>): RlMetrics {
  if (buf.length < RL_METRIC_NAMES.length) {
    throw new Error(`decodeRlMetrics: buffer has ${buf.length} values, expected at least ${RL_METRIC_NAMES.length}`);
  }
  const out = {} as RlMetrics;
  RL_METRIC_NAMES.forEach((n, i) => (out[n] = buf[i]));
  return out;
}
