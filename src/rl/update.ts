/**
 * The engine-independent part of an RL update, shared by both engines' trainers (the WebGPU
 * `RlTrainer`, src/engine/webgpu/gpu_rl_trainer.ts; the CPU engine's `WasmRlTrainer`, src/engine/wasm/wasm_rl_trainer.ts):
 * the trainer options, the update's metrics and result, and the zero-variance group filter
 * (DAPO dynamic sampling without re-sampling) every update runs through.
 */
import type { RlLossConfig } from './config';
import type { TrajectoryLike } from './trainer_batch';
import { ADVANTAGE_ESTIMATORS, grpoGroupOffsets, type AppliedAdvantages } from './advantages';

export interface RlTrainerOptions {
  cfg: RlLossConfig;
  lr: number;
  weightDecay: number;
  maxGradNorm: number;
  epochs: number;
  minibatches: number;
  padId: number;
  /** Seed of the minibatch shuffles. */
  seed: number;
  /**
   * GRPO with klCoef = 0 and entCoef = 0: train only on groups whose rewards are not all equal
   * (DAPO dynamic sampling, without re-sampling); see `RlTrainer.update`. Default true.
   */
  dropZeroVarianceGroups?: boolean;
}

/** Metrics of one RL update (one RL step), averaged over its applied optimizer steps. */
export interface RlUpdateMetrics {
  policyLoss: number;
  valueLoss: number;
  /** Fraction of valid tokens whose ratio was clipped (low + high). */
  clipFrac: number;
  /** k3 estimate of KL(π_old‖π) over valid tokens. */
  approxKl: number;
  /** KL(π‖π_ref) to the frozen starting policy with cfg.klEstimator, over valid tokens (0 when klCoef = 0). */
  klRef: number;
  /** Mean −log π_old(a) of the sampled tokens: a Monte-Carlo estimate of the entropy of the sampling policy softmax(z/τ) (nats/token, τ = cfg.temperature). */
  entropy: number;
  gradNorm: number;
  /** Optimizer steps attempted / skipped (non-finite loss or gradient). */
  optimizerSteps: number;
  skippedSteps: number;
  /** Training rows and valid (policy) tokens of the step (after dropping zero-variance groups). */
  rows: number;
  tokens: number;
  /** GRPO groups left out of this update because their rewards were all equal (0 when the filter is off). */
  droppedGroups: number;
  /** Wall time of the update (ms). */
  ms: number;
}

/** What one RL update did (both engines): its metrics and the advantages its loss read. */
export interface RlUpdate {
  metrics: RlUpdateMetrics;
  applied: AppliedAdvantages;
}

/** `applied` of an update that trained on nothing (every group dropped). */
function nothingApplied(cfg: RlLossConfig): AppliedAdvantages {
  return {
    kept: [],
    rows: null,
    oldValues: null,
    advantages: new Float32Array(0),
    returns: null,
    episodeAdvantages: ADVANTAGE_ESTIMATORS[cfg.algorithm].usesValues ? null : new Float32Array(0),
  };
}
/** The metrics of an update that applied nothing: no loss, no optimizer step. */
function noUpdateMetrics(entropy: number, droppedGroups: number, t0: number): RlUpdateMetrics {
  return {
    policyLoss: 0,
    valueLoss: 0,
    clipFrac: 0,
    approxKl: 0,
    klRef: 0,
    entropy,
    gradNorm: 0,
    optimizerSteps: 0,
    skippedSteps: 0,
    rows: 0,
    tokens: 0,
    droppedGroups,
    ms: performance.now() - t0,
  };
}

/**
 * The zero-variance group filter around an update, as `RlTrainer.update` documents it (both
 * engines' trainers use it): GRPO with klCoef = entCoef = 0 and the option on drops the
 * all-equal groups, runs `run` on the rest, or applies nothing when none is left.
 * @param t0 the update's start (performance.now()), for `ms`
 */
export async function filteredUpdate(
  trajs: readonly TrajectoryLike[],
  opts: RlTrainerOptions,
  t0: number,
  run: (trajs: readonly TrajectoryLike[]) => Promise<RlUpdate> | RlUpdate,
): Promise<RlUpdate> {
  const cfg = opts.cfg;
  // Nothing to train on (a dynamic-sampling step whose rounds found no informative group): no update.
  if (trajs.length === 0) return { metrics: noUpdateMetrics(0, 0, t0), applied: nothingApplied(cfg) };
  const filter = cfg.algorithm === 'grpo' && opts.dropZeroVarianceGroups !== false && cfg.klCoef === 0 && cfg.entCoef === 0;
  if (filter) {
    const { kept, keptIndices, droppedGroups } = dropZeroVarianceGroups(trajs);
    if (droppedGroups > 0) {
      const entropy = policyTokenEntropy(trajs);
      if (kept.length === 0) {
        const metrics = noUpdateMetrics(entropy, droppedGroups, t0);
        return { metrics, applied: nothingApplied(cfg) };
      }
      const u = await run(kept);
      // `run` saw only the kept trajectories: map its indices back to the caller's.
      return {
        metrics: { ...u.metrics, entropy, droppedGroups, ms: performance.now() - t0 },
        applied: { ...u.applied, kept: u.applied.kept.map((i) => keptIndices[i]) },
      };
    }
  }
  return run(trajs);
}

/**
 * Split GRPO trajectories into the groups to train on and the zero-variance groups to drop: a
 * group (contiguous, grpoGroupOffsets) is dropped when all its rewards, rounded to f32 as the
 * advantage kernel reads them, are finite and equal (+0 = −0). Order is kept.
 * @returns the kept trajectories, their indices in `trajs`, and the number of dropped groups
 * @throws Error when a group is not contiguous.
 */
function dropZeroVarianceGroups(trajs: readonly TrajectoryLike[]): {
  kept: TrajectoryLike[];
  keptIndices: number[];
  droppedGroups: number;
} {
  const offsets = grpoGroupOffsets(trajs);
  const kept: TrajectoryLike[] = [];
  const keptIndices: number[] = [];
  let droppedGroups = 0;
  for (let g = 0; g + 1 < offsets.length; g++) {
    const lo = offsets[g];
    const hi = offsets[g + 1];
    const r0 = Math.fround(trajs[lo].reward);
    let constant = Number.isFinite(r0);
    for (let e = lo + 1; e < hi && constant; e++) constant = Math.fround(trajs[e].reward) === r0;
    if (constant) droppedGroups++;
    else for (let e = lo; e < hi; e++) kept.push(trajs[e]), keptIndices.push(e);
  }
  return { kept, keptIndices, droppedGroups };
}

/**
 * Mean −log π_old(a) over every sampled token of `trajs` (nats/token; 0 without tokens): the
 * `entropy` metric of RlUpdateMetrics, summed in the order buildRows lays the tokens out (rows =
 * turns in order, then positions), so it equals the value runEpochs computes from the rows.
 */
export function policyTokenEntropy(trajs: readonly TrajectoryLike[]): number {
  let sum = 0;
  let n = 0;
  for (const tr of trajs) {
    for (const t of tr.turns) {
      for (let j = 0; j < t.logprobs.length; j++) sum -= t.logprobs[j];
      n += t.logprobs.length;
    }
  }
  return n > 0 ? sum / n : 0;
}
