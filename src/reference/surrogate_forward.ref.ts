import { ClipState, k3, ratio, rowWeight, surrogateToken, type ClipParams, type LossAggregation, type StepNormalizer } from './rl_math';
import { F32_MAX, ROW, ROW_STATS } from './rl_metrics';
import { checkRows, type RowDims } from './ref_util';
import { alloc, checkLen, type Floats } from './ref_util';

/** How per-token losses become the step's loss: the mode and the step-global denominators. */
export interface AggParams {
  aggregation: LossAggregation;
  norm: StepNormalizer;
}

/** Parameters of surrogate_forward / surrogate_backward. */
export type SurrogateParams = ClipParams & AggParams;

/** @internal The rowStats array to write into (created zero-filled when absent). */
export function rowStatsFor<A extends Floats>(like: A, B: number, rowStats?: A): A {
  if (!rowStats) {
    const r = alloc(like, B * ROW_STATS);
    for (let b = 0; b < B; b++) {
      r[b * ROW_STATS + ROW.RATIO_MIN] = F32_MAX;
      r[b * ROW_STATS + ROW.RATIO_MAX] = -F32_MAX;
    }
    return r;
  }
  checkLen('rowStats', 'rowStats', rowStats, B * ROW_STATS, '(B, ROW_STATS)');
  return rowStats;
}

/** @internal Valid-token count of row b. */
export function rowCount(mask: Floats, b: number, T: number): number {
  let n = 0;
  for (let t = 0; t < T; t++) if (mask[b * T + t] > 0) n++;
  return n;
}

/**
 * CPU reference of src/engine/webgpu/shaders/surrogate_forward.wgsl: the masked clipped surrogate (PPO,
 * Schulman et al. 2017; separate ε_low/ε_high, DAPO; dual clip only where A < 0) as a loss to
 * minimize, per token l = surrogateToken(ρ, A) (src/reference/rl_math.ts), aggregated as Σ w·l with the
 * step-global weights of `rowWeight`. Per row b it writes the rowStats columns TOKENS, SEQS,
 * PG_LOSS, CLIP_LOW, CLIP_HIGH, DUAL_CLIP, APPROX_KL (Σ k3(ℓ − ℓ_old)), RATIO_SUM/MIN/MAX,
 * ADV_MEAN, ADV_M2 (src/reference/rl_metrics.ts).
 * @param logprobs ℓ (B,T) @param oldLogprobs ℓ_old (B,T) @param advantages A (B,T) @param mask M (B,T)
 * @param rowStats (B, ROW_STATS), optional: written in place (other columns untouched)
 * @returns tokenLoss (B,T) unweighted l (0 where masked), rowStats, loss = Σ_b PG_LOSS
 * @throws Error naming the argument on a size mismatch.
 */
export function surrogateForwardRef<A extends Floats>(
  logprobs: A,
  oldLogprobs: A,
  advantages: A,
  mask: A,
  d: RowDims,
  p: SurrogateParams,
  rowStats?: A,
): { tokenLoss: A; rowStats: A; loss: number } {
  checkRows('surrogateForwardRef', d, { logprobs, oldLogprobs, advantages, mask });
  const { B, T } = d;
  const rs = rowStatsFor(logprobs, B, rowStats);
  const tokenLoss = alloc(logprobs, B * T);
  let loss = 0;
  for (let b = 0; b < B; b++) {
    const nb = rowCount(mask, b, T);
    const w = rowWeight(p.aggregation, nb, p.norm);
    let pg = 0,
      low = 0,
      high = 0,
      dual = 0,
      akl = 0,
      rsum = 0,
      rmin = F32_MAX,
      rmax = -F32_MAX,
      asum = 0;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (!(mask[i] > 0)) continue;
      const { rho } = ratio(logprobs[i], oldLogprobs[i]);
      const s = surrogateToken(rho, advantages[i], p);
      tokenLoss[i] = s.loss;
      pg += w * s.loss;
      if (s.state === ClipState.Low) low++;
      else if (s.state === ClipState.High) high++;
      else if (s.state === ClipState.Dual) dual++;
      akl += k3(logprobs[i] - oldLogprobs[i]).value;
      rsum += rho;
      rmin = Math.min(rmin, rho);
      rmax = Math.max(rmax, rho);
      asum += advantages[i];
    }
    const amean = nb > 0 ? asum / nb : 0;
    let m2 = 0;
    for (let t = 0; t < T; t++) if (mask[b * T + t] > 0) m2 += (advantages[b * T + t] - amean) ** 2;
    const o = b * ROW_STATS;
    rs[o + ROW.TOKENS] = nb;
    rs[o + ROW.SEQS] = nb > 0 ? 1 : 0;
    rs[o + ROW.PG_LOSS] = pg;
    rs[o + ROW.CLIP_LOW] = low;
    rs[o + ROW.CLIP_HIGH] = high;
    rs[o + ROW.DUAL_CLIP] = dual;
    rs[o + ROW.APPROX_KL] = akl;
    rs[o + ROW.RATIO_SUM] = rsum;
    rs[o + ROW.RATIO_MIN] = rmin;
    rs[o + ROW.RATIO_MAX] = rmax;
    rs[o + ROW.ADV_MEAN] = amean;
    rs[o + ROW.ADV_M2] = m2;
    loss += pg;
  }
  return { tokenLoss, rowStats: rs, loss };
}
