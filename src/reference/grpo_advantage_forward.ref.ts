import { checkRows, type RowDims } from './ref_util';
import { alloc, checkLen, type Floats } from './ref_util';

/** GRPO advantage options (a subset of RlLossConfig). */
export interface GrpoParams {
  /** A group whose reward std ≤ stdFloor gets A = 0 exactly. */
  stdFloor: number;
  /** δ in (r − mean)/(std + δ). */
  eps: number;
  /** Dr. GRPO: A = r − mean (still 0 for a group under the std floor). */
  noStdDivision: boolean;
}

/**
 * @internal @throws Error naming the argument unless groupOffsets is non-decreasing from 0 to E
 * and every rowEpisode is in [0, E).
 */
function checkGroups(op: string, E: number, groupOffsets: Int32Array, rowEpisode: Int32Array, B: number): void {
  if (groupOffsets.length < 2) throw new Error(`${op}: groupOffsets needs at least 2 entries (one group), got ${groupOffsets.length}`);
  if (groupOffsets[0] !== 0) throw new Error(`${op}: groupOffsets[0] = ${groupOffsets[0]} must be 0`);
  const G = groupOffsets.length - 1;
  if (groupOffsets[G] !== E) throw new Error(`${op}: groupOffsets[${G}] = ${groupOffsets[G]} must equal the episode count E = ${E}`);
  for (let g = 0; g < G; g++) {
    if (groupOffsets[g + 1] < groupOffsets[g])
      throw new Error(`${op}: groupOffsets[${g + 1}] = ${groupOffsets[g + 1]} < groupOffsets[${g}]`);
  }
  checkLen(op, 'rowEpisode', rowEpisode, B, '(B)');
  for (let b = 0; b < B; b++) {
    if (!(rowEpisode[b] >= 0 && rowEpisode[b] < E)) throw new Error(`${op}: rowEpisode[${b}] = ${rowEpisode[b]} is outside [0, ${E})`);
  }
}

/**
 * CPU reference of src/engine/webgpu/shaders/grpo_advantage_forward.wgsl: group-relative outcome advantages
 * (GRPO, Shao et al. 2024 §4.1.2; Dr. GRPO, Liu et al. 2025). For each group g of episodes
 * groupOffsets[g] … groupOffsets[g+1]−1 (G rollouts of one (task, harness)):
 *   mean_g = Σ r / G,  std_g = √(Σ (r − mean_g)² / (G − 1))  (unbiased, as torch.std in verl/TRL;
 *   0 for G = 1);
 *   A_e = 0 if std_g ≤ stdFloor, else (r_e − mean_g)/(std_g + δ), or r_e − mean_g (Dr. GRPO).
 * Each row b belongs to episode rowEpisode[b] (an episode may span several rows when its
 * harness rewrites history, docs/ARCHITECTURE.md "Rows and trajectories"); A is broadcast to the row's policy tokens:
 * advantages[b,t] = M[b,t] > 0 ? A_{rowEpisode[b]} : 0.
 * @param rewards (E) episode rewards (finite)
 * @param groupOffsets (numGroups + 1) i32, non-decreasing, 0 … E
 * @param rowEpisode (B) i32 in [0, E)
 * @param mask (B,T)
 * @returns episodeAdvantages (E), advantages (B,T), groupMean and groupStd (numGroups)
 * @throws Error naming the argument on a bad shape, offset or episode index.
 */
export function grpoAdvantageForwardRef<A extends Floats>(
  rewards: A,
  groupOffsets: Int32Array,
  rowEpisode: Int32Array,
  mask: A,
  d: RowDims,
  p: GrpoParams,
): { episodeAdvantages: A; advantages: A; groupMean: A; groupStd: A } {
  const op = 'grpoAdvantageForwardRef';
  checkRows(op, d, { mask });
  const E = rewards.length;
  checkGroups(op, E, groupOffsets, rowEpisode, d.B);
  const G = groupOffsets.length - 1;
  const episodeAdvantages = alloc(rewards, E);
  const groupMean = alloc(rewards, G);
  const groupStd = alloc(rewards, G);
  for (let g = 0; g < G; g++) {
    const lo = groupOffsets[g];
    const hi = groupOffsets[g + 1];
    const n = hi - lo;
    if (n === 0) continue;
    let s = 0;
    for (let e = lo; e < hi; e++) s += rewards[e];
    const mean = s / n;
    let ss = 0;
    for (let e = lo; e < hi; e++) ss += (rewards[e] - mean) ** 2;
    const std = n > 1 ? Math.sqrt(ss / (n - 1)) : 0;
    groupMean[g] = mean;
    groupStd[g] = std;
    for (let e = lo; e < hi; e++) {
      if (std <= p.stdFloor) episodeAdvantages[e] = 0;
      else episodeAdvantages[e] = p.noStdDivision ? rewards[e] - mean : (rewards[e] - mean) / (std + p.eps);
    }
  }
  const advantages = alloc(rewards, d.B * d.T);
  for (let b = 0; b < d.B; b++) {
    const a = episodeAdvantages[rowEpisode[b]];
    for (let t = 0; t < d.T; t++) advantages[b * d.T + t] = mask[b * d.T + t] > 0 ? a : 0;
  }
  return { episodeAdvantages, advantages, groupMean, groupStd };
}
