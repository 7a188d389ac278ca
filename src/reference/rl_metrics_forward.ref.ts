import { F32_MAX, METRIC, ROW, ROW_STATS, RL_METRICS } from './rl_metrics';
import { checkDim, checkLen, type Floats } from './ref_util';

/** Slots of acc merged with Chan et al.'s (mean, M2) update, as [mean, M2] pairs counted by TOKENS. */
const MEAN_M2_PAIRS: ReadonlyArray<readonly [number, number]> = [
  [ROW.ADV_MEAN, ROW.ADV_M2],
  [ROW.RET_MEAN, ROW.RET_M2],
  [ROW.RES_MEAN, ROW.RES_M2],
];

/** A fresh step accumulator (ROW_STATS): zeros, ratio min/max at ±F32_MAX. */
export function rlAccInit(): Float64Array {
  const acc = new Float64Array(ROW_STATS);
  acc[ROW.RATIO_MIN] = F32_MAX;
  acc[ROW.RATIO_MAX] = -F32_MAX;
  return acc;
}

/**
 * CPU reference of `accumulate` in src/engine/webgpu/shaders/rl_metrics_forward.wgsl: fold rows 0…B−1 of
 * rowStats into acc in order. Sums add; RATIO_MIN/MAX take min/max; each (mean, M2) pair with
 * count TOKENS merges by Chan, Golub & LeVeque (1979): n = n_a + n_b, δ = μ_b − μ_a,
 * μ = μ_a + δ·n_b/n, M2 = M2_a + M2_b + δ²·n_a·n_b/n. Rows with TOKENS = 0 are skipped.
 * @param acc (ROW_STATS) updated in place @param rowStats (B, ROW_STATS)
 * @throws Error on a size mismatch.
 */
export function rlMetricsAccumulateRef(acc: Floats, rowStats: Floats, B: number): void {
  const op = 'rlMetricsAccumulateRef';
  checkDim(op, 'B', B);
  checkLen(op, 'acc', acc, ROW_STATS, '(ROW_STATS)');
  checkLen(op, 'rowStats', rowStats, B * ROW_STATS, '(B, ROW_STATS)');
  for (let b = 0; b < B; b++) {
    const o = b * ROW_STATS;
    const nb = rowStats[o + ROW.TOKENS];
    if (!(nb > 0)) continue;
    const na = acc[ROW.TOKENS];
    const n = na + nb;
    for (const [mi, m2i] of MEAN_M2_PAIRS) {
      const delta = rowStats[o + mi] - acc[mi];
      acc[mi] = acc[mi] + (delta * nb) / n;
      acc[m2i] = acc[m2i] + rowStats[o + m2i] + (delta * delta * na * nb) / n;
    }
    for (let k = 0; k < ROW_STATS; k++) {
      if (k === ROW.RATIO_MIN) acc[k] = Math.min(acc[k], rowStats[o + k]);
      else if (k === ROW.RATIO_MAX) acc[k] = Math.max(acc[k], rowStats[o + k]);
      else if (MEAN_M2_PAIRS.some(([a, c]) => a === k || c === k)) continue;
      else acc[k] += rowStats[o + k];
    }
  }
}

/** Coefficients of the total loss (RlLossConfig fields). */
export interface LossCoefs {
  klCoef: number;
  entCoef: number;
  vfCoef: number;
}

/**
 * CPU reference of `finalize` in src/engine/webgpu/shaders/rl_metrics_forward.wgsl: the named metrics of the step
 * from acc and the non-finite flag word (src/reference/rl_metrics.ts RL_METRIC_NAMES):
 *   loss = policyLoss + klCoef·Σw·k − entCoef·Σw·H + vfCoef·valueLoss (the aggregated terms);
 *   klRef, entropy, approxKl, ratioMean = token means; clip fractions = counts / tokens;
 *   advStd = √(M2/(N−1)); explainedVariance = 1 − Var(R − V)/Var(R) (0 when Var(R) = 0);
 *   gradNorm = 0 (the trainer copies its norm into this slot); skipped = flags ≠ 0.
 * Ratio min/max of an empty step are reported as 1 (no token deviates).
 * @returns metrics (RL_METRICS)
 */
export function rlMetricsFinalizeRef(acc: Floats, flags: number, c: LossCoefs): Float64Array {
  checkLen('rlMetricsFinalizeRef', 'acc', acc, ROW_STATS, '(ROW_STATS)');
  const m = new Float64Array(RL_METRICS);
  const n = acc[ROW.TOKENS];
  const inv = n > 0 ? 1 / n : 0;
  m[METRIC.policyLoss] = acc[ROW.PG_LOSS];
  m[METRIC.valueLoss] = acc[ROW.VF_LOSS];
  m[METRIC.loss] = acc[ROW.PG_LOSS] + c.klCoef * acc[ROW.KL_LOSS] - c.entCoef * acc[ROW.ENT_LOSS] + c.vfCoef * acc[ROW.VF_LOSS];
  m[METRIC.klRef] = acc[ROW.KL_SUM] * inv;
  m[METRIC.entropy] = acc[ROW.ENT_SUM] * inv;
  m[METRIC.approxKl] = acc[ROW.APPROX_KL] * inv;
  m[METRIC.clipFracLow] = acc[ROW.CLIP_LOW] * inv;
  m[METRIC.clipFracHigh] = acc[ROW.CLIP_HIGH] * inv;
  m[METRIC.dualClipFrac] = acc[ROW.DUAL_CLIP] * inv;
  m[METRIC.vfClipFrac] = acc[ROW.VF_CLIP] * inv;
  m[METRIC.ratioMean] = n > 0 ? acc[ROW.RATIO_SUM] * inv : 1;
  m[METRIC.ratioMin] = n > 0 ? acc[ROW.RATIO_MIN] : 1;
  m[METRIC.ratioMax] = n > 0 ? acc[ROW.RATIO_MAX] : 1;
  m[METRIC.advMean] = acc[ROW.ADV_MEAN];
  m[METRIC.advStd] = n > 1 ? Math.sqrt(Math.max(0, acc[ROW.ADV_M2]) / (n - 1)) : 0;
  const varR = acc[ROW.RET_M2];
  m[METRIC.explainedVariance] = varR > 0 ? 1 - acc[ROW.RES_M2] / varR : 0;
  m[METRIC.returnMean] = acc[ROW.RET_MEAN];
  m[METRIC.tokens] = n;
  m[METRIC.sequences] = acc[ROW.SEQS];
  m[METRIC.gradNorm] = 0;
  m[METRIC.skipped] = flags !== 0 ? 1 : 0;
  m[METRIC.nonfiniteMask] = flags;
  return m;
}
