/**
 * A finished (method, seed) run's row of the results (src/report/results_schema.ts RunResult, its step
 * vocabulary) from the runner's run state, and the warning of a run whose RL steps applied no
 * update (runner.ts "result" and "evaluate" phases).
 */
import type { EvalResult } from './evaluate';
import type { RunResult } from '../report/results_schema';
import type { RunState } from './run_checkpoint';
import type { StepRecord } from './run_events';

/** Optimizer steps applied in one RL step (skipped non-finite ones excluded). */
export const applied = (h: StepRecord) => h.optimizerSteps - h.skippedSteps;

/** The warning of a run whose RL steps applied no update (its 'after' evaluation reuses 'before'). */
export function noSignalWarning(method: string, seed: number, history: readonly StepRecord[]): string {
  const dropped = history.reduce((a, h) => a + h.droppedGroups, 0);
  const skipped = history.reduce((a, h) => a + h.skippedSteps, 0);
  return (
    `method '${method}', seed ${seed}: no learning signal — 0 optimizer steps applied in ${history.length} RL steps ` +
    `(${dropped} groups dropped because all their rewards were equal${skipped ? `, ${skipped} skipped optimizer steps (non-finite)` : ''}); ` +
    `the 'after' evaluation is the 'before' one, reused (same parameters and seeds)`
  );
}

/**
 * A finished run's row of the results (src/report/results_schema.ts RunResult, its step vocabulary); NaN
 * where an evaluation did not run.
 * @param seconds the run's time over all call segments
 * @param startingCheckpoint the run's starting checkpoint by name (spec.model.init)
 */
export function runResult(
  method: string,
  algorithm: RunResult['algorithm'],
  seed: number,
  st: RunState,
  after: EvalResult | null,
  seconds: number,
  startingCheckpoint: string,
): RunResult {
  const empty = { base: NaN, inSpace: NaN, blackbox: {} };
  const noBeh = { parseErrors: NaN, workflowViolations: NaN, recoveryRate: NaN, stateTrackingErrors: NaN };
  return {
    method,
    algorithm,
    seed,
    startingCheckpoint,
    rlSteps: st.history.length,
    // The SFT phase's optimizer steps count as applied optimizer steps (results_schema.ts vocabulary).
    optimizerSteps: (st.sft?.steps ?? 0) + st.history.reduce((a, h) => a + applied(h), 0),
    skippedOptimizerSteps: st.skippedSteps,
    ...(st.history.length && st.history.every((h) => h.sampledEpisodes !== undefined)
      ? { sampledEpisodes: st.history.reduce((a, h) => a + h.sampledEpisodes!, 0) }
      : {}),
    rlStepsWithoutUpdate: st.history.filter((h) => applied(h) === 0).length,
    before: st.before?.passAt1 ?? empty,
    after: after?.passAt1 ?? empty,
    trainHarnesses: { before: st.before?.training ?? NaN, after: after?.training ?? NaN },
    behaviour: { before: st.before?.behaviour ?? noBeh, after: after?.behaviour ?? noBeh },
    perHarness: after?.perHarness ?? {},
    seconds,
    ...(st.before?.cells && after?.cells ? { episodes: { before: st.before.cells, after: after.cells } } : {}),
    ...(st.before?.reusedFrom ? { beforeReusedFrom: st.before.reusedFrom } : {}),
    ...(st.before?.trainReusedFrom ? { beforeTrainReusedFrom: st.before.trainReusedFrom } : {}),
    ...(st.sft ? { sft: { steps: st.sft.steps, firstLoss: st.sft.firstLoss, lastLoss: st.sft.lastLoss } } : {}),
  };
}
