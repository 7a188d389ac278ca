/**
 * results.json as `hlab run` writes it (results_schema.ts ResultsFile): the experiment's results
 * plus how they came about — the engine, the call segments, the curves, sampled trajectories and
 * the resolved spec. The runner's curves are checked against the schema's (`C`) and kept with their
 * own type, so the CLI renders them as the runner made them (NaN, not null).
 */
import type { ExperimentResults, ResultsFile, RunCurvesJson } from './results_schema';

/**
 * Assemble results.json from a run's output and the CLI's context. Warnings are the runner's
 * plus `extraWarnings` (the feasibility note), in that order.
 */
export function resultsFile<C extends RunCurvesJson>(
  out: {
    engine: ResultsFile['engine'];
    status: ResultsFile['status'];
    results: ExperimentResults;
    warnings: readonly string[];
    starts: readonly string[];
    segments?: ResultsFile['segments'];
    seconds: number;
    curves: readonly C[];
    trajectories: ResultsFile['trajectories'];
  },
  ctx: { command: string; specJson: unknown; infeasibleCells: ResultsFile['infeasibleCells']; extraWarnings?: readonly string[] },
): ResultsFile<C> {
  return {
    ...out.results,
    command: ctx.command,
    engine: out.engine,
    status: out.status,
    warnings: [...out.warnings, ...(ctx.extraWarnings ?? [])],
    infeasibleCells: ctx.infeasibleCells,
    starts: [...out.starts],
    segments: [...(out.segments ?? [])],
    seconds: out.seconds,
    curves: [...out.curves],
    trajectories: [...out.trajectories],
    specJson: ctx.specJson,
  };
}
