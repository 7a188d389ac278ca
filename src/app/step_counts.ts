/**
 * The app's one reading of how much a run trained, in one vocabulary:
 *   - RL steps: rollout-and-update rounds (one StepRecord each);
 *   - optimizer steps: parameter updates applied (attempted minus skipped);
 *   - skipped optimizer steps: attempted updates skipped because the loss or gradient was not finite;
 *   - RL steps without an update: RL steps that applied no optimizer step (every group dropped,
 *     or every attempt skipped) — their loss, KL, clip fraction and gradient norm do not exist.
 * Every view reads these numbers through this module, so a rename of the JSON fields
 * (StepRecord `optimizerSteps` / `skippedSteps`; RunResult `rlSteps`, `optimizerSteps`,
 * `skippedOptimizerSteps`, `rlStepsWithoutUpdate`, which src/report/results_upgrade.ts
 * `upgradeRuns` maps older files onto) is one edit here.
 */

/** The fields of one RL step's record that say what its update did (StepRecord of src/experiment/runner.ts, or its JSON). */
interface StepUpdateFields {
  step: number;
  optimizerSteps?: number | null;
  skippedSteps?: number | null;
}

/** What one RL step's update did; null where the record does not say (an older producer). */
interface StepUpdate {
  /** Optimizer steps applied at this RL step. */
  applied: number | null;
  /** Optimizer steps skipped as non-finite at this RL step. */
  skipped: number | null;
}

const count = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/**
 * One RL step's update: applied = attempted (`optimizerSteps`) − skipped (`skippedSteps`).
 * @returns applied null when the record has no attempted count (nothing is known about its update)
 */
export function stepUpdate(r: StepUpdateFields): StepUpdate {
  const attempted = count(r.optimizerSteps);
  const skipped = count(r.skippedSteps);
  return { applied: attempted === null ? null : attempted - (skipped ?? 0), skipped };
}

/** Whether an RL step is known to have applied no optimizer step (its update metrics do not exist). */
export const withoutUpdate = (r: StepUpdateFields): boolean => stepUpdate(r).applied === 0;

/** The four counts of a run, each null where its records do not carry it. */
interface RunStepCounts {
  rlSteps: number | null;
  optimizerSteps: number | null;
  skippedOptimizerSteps: number | null;
  rlStepsWithoutUpdate: number | null;
}

/**
 * A run's counts from its per-step records (a run's curve); for a run without records (`steps`
 * null), from its results row (RunResult's four counts; NaN or absent = not recorded, never 0).
 */
export function runStepCounts(
  steps: readonly StepUpdateFields[] | null,
  run?: Partial<Record<keyof RunStepCounts, number | null>>,
): RunStepCounts {
  const ups = (steps ?? []).map(stepUpdate);
  const known = steps !== null && ups.every((u) => u.applied !== null);
  const sum = (xs: (number | null)[]) => xs.reduce<number>((a, x) => a + (x ?? 0), 0);
  return {
    rlSteps: steps ? steps.length : count(run?.rlSteps),
    optimizerSteps: known ? sum(ups.map((u) => u.applied)) : count(run?.optimizerSteps),
    skippedOptimizerSteps: known ? sum(ups.map((u) => u.skipped)) : count(run?.skippedOptimizerSteps),
    rlStepsWithoutUpdate: known ? ups.filter((u) => u.applied === 0).length : count(run?.rlStepsWithoutUpdate),
  };
}

const n = (x: number | null, one: string, many: string) => (x === null ? `${many}: not recorded` : `${x} ${x === 1 ? one : many}`);

/** "12 RL steps · 9 optimizer steps · 0 skipped optimizer steps · 3 RL steps without an update" (unrecorded counts say so). */
export function stepCountsText(c: RunStepCounts): string {
  return [
    n(c.rlSteps, 'RL step', 'RL steps'),
    n(c.optimizerSteps, 'optimizer step', 'optimizer steps'),
    n(c.skippedOptimizerSteps, 'skipped optimizer step', 'skipped optimizer steps'),
    n(c.rlStepsWithoutUpdate, 'RL step without an update', 'RL steps without an update'),
  ].join(' · ');
}
