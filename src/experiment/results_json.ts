/**
 * results.json as `hlab run` writes it: the experiment's results (results_file.ts) plus how they
 * came about — the engine, the call segments (run_checkpoint.ts `RunSegment`), the curves
 * (run_events.ts `RunCurves`), sampled trajectories and the resolved spec. Kept apart from the
 * results record, which the run checkpoint and the evaluation build on, so that no file circle
 * runs through the schema.
 */
import type { ExperimentResults } from './results_file';
import type { RunSegment } from './run_checkpoint';
import type { RunCurves } from './run_events';
import type { TrajectorySample } from './trajectory_sample';

/** What `hlab run` writes as results.json: the results at the top level plus how they came about. */
export interface ResultsFile extends ExperimentResults {
  /** The command line that produced the file. */
  command: string;
  /** The engine of the last call (src/engine). */
  engine: { kind: 'webgpu' | 'wasm'; describe: string; reason: string };
  status: 'done' | 'interrupted';
  warnings: string[];
  /** (task, harness) cells left out as infeasible for the expert under the spec's budgets (feasibility.ts). */
  infeasibleCells: ReadonlyArray<{ taskId: string; harnessId: string; reason: string; detail: string }>;
  starts: string[];
  segments: RunSegment[];
  /** Seconds in the page (this call). */
  seconds: number;
  curves: RunCurves[];
  trajectories: TrajectorySample[];
  /** The resolved spec that ran (also written as spec.json). */
  specJson: unknown;
}

/**
 * Assemble results.json from a run's output and the CLI's context. Warnings are the runner's
 * plus `extraWarnings` (the feasibility note), in that order.
 */
export function resultsFile(
  out: {
    engine: ResultsFile['engine'];
    status: ResultsFile['status'];
    results: ExperimentResults;
    warnings: readonly string[];
    starts: readonly string[];
    segments?: readonly RunSegment[];
    seconds: number;
    curves: readonly RunCurves[];
    trajectories: readonly TrajectorySample[];
  },
  ctx: { command: string; specJson: unknown; infeasibleCells: ResultsFile['infeasibleCells']; extraWarnings?: readonly string[] },
): ResultsFile {
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
