/**
 * Advantage estimators, one registry in the manner of verl's `core_algos`: an estimator name
 * (the run's cfg.algorithm) → one CPU reference that turns a rollout batch (trajectories, their
 * training rows, V_old) into per-token advantages and, for a critic, returns. Pure TS, f32 out.
 *
 * Who uses what:
 * - the CPU engine's trainer (src/engine/wasm/wasm_rl_trainer.ts) trains on exactly these values;
 * - the WebGPU trainer (src/engine/webgpu/gpu_rl_trainer.ts) runs the same formulas as WGSL kernels
 *   (grpo_advantage, gae, adv_normalize) whose CPU references these estimators call, and reads
 *   back what it applied; the tests compare the two (tests/browser/rl_trainer.spec.ts);
 * - the display (src/experiment/trajectory_sample.ts) reads what the update applied
 *   (`AppliedAdvantages` → `trajectoryAdvantages`), never a recomputation.
 *
 * Estimators:
 * - grpo: group-relative outcome advantage (Shao et al. 2024 §4.1.2; Dr. GRPO, Liu et al. 2025,
 *   with cfg.noStdDivision): A_e = (r_e − mean_g)/(std_g + ε), 0 when std_g ≤ stdFloor,
 *   broadcast to every policy token of episode e. Groups must be contiguous.
 * - ppo: GAE over policy tokens (Schulman et al. 2016), reward on an episode's last policy token,
 *   rows of one episode chained, bootstrap on truncation (`gaeRowInputs`), then masked whitening
 *   when cfg.normalizeAdvantages.
 */
import { advNormalizeForwardRef } from '../reference/adv_normalize_forward.ref';
import { gaeForwardRef } from '../reference/gae_forward.ref';
import { grpoAdvantageForwardRef, type GrpoParams } from '../reference/grpo_advantage_forward.ref';
import type { RlLossConfig } from './config';
import type { RlRows, TrajectoryLike } from './trainer_batch';

/** What an estimator computes for one rollout batch of E trajectories laid out as (B,T) rows. */
interface BatchAdvantages {
  /** (B·T) f32 advantages at policy tokens (mask 1), 0 elsewhere. */
  advantages: Float32Array;
  /** (B·T) f32 value targets (GAE returns), null for an estimator without a critic. */
  returns: Float32Array | null;
  /** (E) f32 one advantage per trajectory for an outcome estimator (GRPO), null otherwise. */
  episodeAdvantages: Float32Array | null;
}

/** One entry of the registry. */
interface AdvantageEstimator {
  readonly name: RlLossConfig['algorithm'];
  /** True when `compute` reads V_old (the trainer then runs one value forward before any update). */
  readonly usesValues: boolean;
  /**
   * @param trajs the batch's trajectories (rows.rowEpisode indexes them)
   * @param rows their training rows (trainer_batch.ts buildRows)
   * @param oldValues (B·T) V_old at the rows' positions (ignored unless usesValues)
   * @throws Error naming the bad input (e.g. a GRPO group that is not contiguous).
   */
  compute(trajs: readonly TrajectoryLike[], rows: RlRows, oldValues: Float32Array, cfg: RlLossConfig): BatchAdvantages;
}

/** The estimators by name (= RlLossConfig.algorithm). */
export const ADVANTAGE_ESTIMATORS: Readonly<Record<RlLossConfig['algorithm'], AdvantageEstimator>> = {
  grpo: { name: 'grpo', usesValues: false, compute: (trajs, rows, _v, cfg) => grpoAdvantages(trajs, rows, cfg) },
  ppo: { name: 'ppo', usesValues: true, compute: (trajs, rows, v, cfg) => ppoAdvantages(trajs, rows, v, cfg) },
};

/**
 * GRPO advantages (CPU reference of the grpo_advantage kernel): episodes must be ordered so that
 * each group is contiguous.
 * @returns (B·T) advantages broadcast to each row's policy tokens, (E) per-episode advantages,
 *   and the group offsets
 * @throws Error when a group's episodes are not contiguous.
 */
export function grpoAdvantages(
  trajs: readonly TrajectoryLike[],
  rows: RlRows,
  cfg: GrpoParams,
): BatchAdvantages & { groupOffsets: Int32Array } {
  const groupOffsets = grpoGroupOffsets(trajs);
  const rewards = Float32Array.from(trajs, (t) => t.reward);
  const r = grpoAdvantageForwardRef(rewards, groupOffsets, rows.rowEpisode, rows.mask, { B: rows.B, T: rows.T }, cfg);
  return { advantages: r.advantages, returns: null, episodeAdvantages: r.episodeAdvantages, groupOffsets };
}

/**
 * (numGroups + 1) i32 offsets of contiguous groups of episodes.
 * @throws Error when a group's episodes are not contiguous.
 */
export function grpoGroupOffsets(trajs: readonly Pick<TrajectoryLike, 'group'>[]): Int32Array {
  const offsets: number[] = [0];
  const seen = new Set<number>();
  for (let e = 1; e <= trajs.length; e++) {
    if (e === trajs.length || trajs[e].group !== trajs[e - 1].group) {
      if (seen.has(trajs[e - 1].group)) throw new Error(`grpoAdvantages: group ${trajs[e - 1].group} is not contiguous`);
      seen.add(trajs[e - 1].group);
      offsets.push(e);
    }
  }
  return Int32Array.from(offsets);
}

/**
 * PPO advantages by GAE over policy tokens (CPU reference of the gae kernel), then masked
 * whitening when cfg.normalizeAdvantages.
 * Rows of one episode chain: a non-final row bootstraps from V at the first policy token of the
 * episode's next row (the next state); the final row gets the episode's reward; a truncated
 * episode bootstraps from V at its last policy token (we do not encode the state after a
 * truncation), a terminated one does not bootstrap.
 * @param values (B·T) V_old from the value head at the rows' positions
 */
export function ppoAdvantages(
  trajs: readonly TrajectoryLike[],
  rows: RlRows,
  values: Float32Array,
  cfg: RlLossConfig,
): BatchAdvantages & { returns: Float32Array } {
  const { B, T } = rows;
  const { rewards, nextValue, truncated } = gaeRowInputs(trajs, rows, values);
  const g = gaeForwardRef(rewards, values, rows.mask, nextValue, truncated, { B, T }, { gamma: cfg.gamma, lambda: cfg.lambda });
  const adv = cfg.normalizeAdvantages ? advNormalizeForwardRef(g.advantages, rows.mask, { B, T }, cfg.eps).advantages : g.advantages;
  return { advantages: adv, returns: g.returns, episodeAdvantages: null };
}

/**
 * The per-row inputs of GAE (see ppoAdvantages for the chaining rules), shared by the CPU
 * reference and the GPU path (trainer.ts uploads them with the batch).
 * @param values (B·T) V_old
 * @returns (B) f32 rewards, bootstrap values V(s_next) and truncation flags (1 = bootstrap)
 */
export function gaeRowInputs(
  trajs: readonly TrajectoryLike[],
  rows: RlRows,
  values: Float32Array,
): { rewards: Float32Array; nextValue: Float32Array; truncated: Float32Array } {
  const { B, T } = rows;
  const rewards = new Float32Array(B);
  const nextValue = new Float32Array(B);
  const truncated = new Float32Array(B);
  const firstPolicy = (b: number) => {
    for (let t = 0; t < T; t++) if (rows.mask[b * T + t] > 0) return values[b * T + t];
    return 0;
  };
  const lastPolicy = (b: number) => {
    for (let t = T - 1; t >= 0; t--) if (rows.mask[b * T + t] > 0) return values[b * T + t];
    return 0;
  };
  for (let b = 0; b < B; b++) {
    const tr = trajs[rows.rowEpisode[b]];
    if (rows.lastRow[b]) {
      rewards[b] = tr.reward;
      truncated[b] = tr.truncated && !tr.terminated ? 1 : 0;
      nextValue[b] = truncated[b] ? lastPolicy(b) : 0;
    } else {
      truncated[b] = 1;
      nextValue[b] = b + 1 < B && rows.rowEpisode[b + 1] === rows.rowEpisode[b] ? firstPolicy(b + 1) : 0;
    }
  }
  return { rewards, nextValue, truncated };
}

/**
 * The advantages an RL update trained on, as the trainers return them (`RlUpdate.applied`):
 * the batch after the zero-variance group filter, its rows and the values read from where the
 * loss read them (the GPU buffers on WebGPU, the CPU estimator on the CPU engine).
 */
export interface AppliedAdvantages {
  /** Indices, into the update's input trajectories, of those trained on (rows.rowEpisode indexes this list). */
  kept: readonly number[];
  /** Rows of the kept trajectories; null when nothing was trained on (every group dropped). */
  rows: RlRows | null;
  /** (B·T) V_old the estimator read (estimators with usesValues), else null. */
  oldValues: Float32Array | null;
  /** (B·T) advantages the loss read (empty when rows is null). */
  advantages: Float32Array;
  /** (B·T) value targets the loss read (estimators with a critic), else null. */
  returns: Float32Array | null;
  /** (kept.length) per-trajectory advantages of an outcome estimator (GRPO), else null. */
  episodeAdvantages: Float32Array | null;
}

/** Advantages of a step's trajectories, one entry per trajectory: a scalar (outcome estimator) or per-token values. */
type TrajectoryAdvantages = Array<number | number[]>;

/**
 * One entry per input trajectory of the update, from what it applied: an outcome estimator's
 * scalar (0 for a trajectory left out by the zero-variance filter: its group's advantage is 0
 * by definition), or, for per-token estimators, the values at the trajectory's policy tokens in
 * turn order (Σ actionIds.length values; empty when left out or without sampled tokens).
 * @param numTrajectories E, the update's input size
 * @throws Error naming the field when `applied` is inconsistent (a kept index outside [0, E),
 *   advantages not (B·T), a row's episode outside the kept list).
 */
export function trajectoryAdvantages(numTrajectories: number, applied: AppliedAdvantages): TrajectoryAdvantages {
  const op = 'trajectoryAdvantages';
  for (const e of applied.kept)
    if (!(Number.isInteger(e) && e >= 0 && e < numTrajectories))
      throw new Error(`${op}: kept index ${e} is outside [0, ${numTrajectories})`);
  if (applied.episodeAdvantages) {
    if (applied.episodeAdvantages.length !== applied.kept.length)
      throw new Error(
        `${op}: episodeAdvantages has ${applied.episodeAdvantages.length} values, expected one per kept trajectory (${applied.kept.length})`,
      );
    const out: number[] = new Array<number>(numTrajectories).fill(0);
    applied.kept.forEach((e, i) => (out[e] = applied.episodeAdvantages![i]));
    return out;
  }
  const out: number[][] = Array.from({ length: numTrajectories }, () => []);
  if (!applied.rows) return out;
  const perKept = rowAdvantagesPerTrajectory(applied.kept.length, applied.rows, applied.advantages);
  applied.kept.forEach((e, i) => (out[e] = perKept[i]));
  return out;
}

/**
 * Per-trajectory per-token advantages gathered from a (B·T) advantage buffer: for each row in
 * order, the values at its masked positions belong to the row's episode; concatenated in turn
 * order (buildRows lays an episode's rows out in turn order).
 * @param numTrajectories E (trajectories without any action token get an empty array)
 * @param rows the rows the advantages were computed for (trainer_batch.ts buildRows)
 * @param advantages (B·T)
 * @throws Error naming the field when advantages' length is not B·T or a row's episode is outside [0, E).
 */
function rowAdvantagesPerTrajectory(
  numTrajectories: number,
  rows: Pick<RlRows, 'B' | 'T' | 'mask' | 'rowEpisode'>,
  advantages: ArrayLike<number>,
): number[][] {
  const op = 'rowAdvantagesPerTrajectory';
  if (advantages.length !== rows.B * rows.T)
    throw new Error(`${op}: advantages has ${advantages.length} values, expected (B,T) = ${rows.B * rows.T}`);
  const out: number[][] = Array.from({ length: numTrajectories }, () => []);
  for (let b = 0; b < rows.B; b++) {
    const e = rows.rowEpisode[b];
    if (!(e >= 0 && e < numTrajectories)) throw new Error(`${op}: rows.rowEpisode[${b}] = ${e} is outside [0, ${numTrajectories})`);
    for (let t = 0; t < rows.T; t++) if (rows.mask[b * rows.T + t] > 0) out[e].push(advantages[b * rows.T + t]);
  }
  return out;
}
