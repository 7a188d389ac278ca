/**
 * What a stub RL trainer returns from an update, for tests of the loop and the runner without a
 * model: fixed metrics (one optimizer step, policy loss 0.1, entropy and grad norm 1, a row per
 * trajectory) and an `applied` with no rows, so the loop reads only its per-episode advantages.
 */
import type { EngineRlTrainer } from '../../../src/engine/engine_api';
import type { RlUpdate, RlUpdateMetrics } from '../../../src/rl/update';

/** What a stub update changes from the fixed result: metrics, kept indices (default all), per-episode advantages (default 0). */
interface StubUpdateOptions {
  metrics?: Partial<RlUpdateMetrics>;
  kept?: number[];
  episodeAdvantages?: Float32Array;
}

/** The update result of a stub trainer over `trajectories` trajectories (module doc). */
export function stubRlUpdate(trajectories: number, o: StubUpdateOptions = {}): RlUpdate {
  return {
    metrics: {
      policyLoss: 0.1,
      valueLoss: 0,
      clipFrac: 0,
      approxKl: 0,
      klRef: 0,
      entropy: 1,
      gradNorm: 1,
      optimizerSteps: 1,
      skippedSteps: 0,
      rows: trajectories,
      tokens: 1,
      droppedGroups: 0,
      ms: 1,
      ...o.metrics,
    },
    applied: {
      kept: o.kept ?? Array.from({ length: trajectories }, (_, e) => e),
      rows: null,
      oldValues: null,
      advantages: new Float32Array(0),
      returns: null,
      episodeAdvantages: o.episodeAdvantages ?? new Float32Array(trajectories),
    },
  };
}

/** A stateless stub trainer whose updates `update` answers (its state: one zero parameter, never written). */
export function stubRlTrainer(update: (...a: Parameters<EngineRlTrainer['update']>) => RlUpdate): EngineRlTrainer {
  return {
    update: async (trajs, step) => update(trajs, step),
    async readState() {
      return { params: new Float32Array(1), m: new Float32Array(1), v: new Float32Array(1), adamStep: 0 };
    },
    writeState() {},
  };
}
