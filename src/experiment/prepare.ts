/**
 * Plan an experiment from a validated spec: read the pretraining mix its base checkpoints
 * record, find the infeasible (task, harness) cells with the honest expert, and compile the plan
 * (compile.ts). The CLI calls it in Node (checkpoints read from public/), the app's train worker
 * in the page (through the asset cache): one spec gives one plan wherever it runs.
 */
import type { Tokenizer } from '../model/tokenizer';
import { compilePlan, type ExperimentPlan } from './compile';
import { excludedCells } from './feasibility';
import {
  baseBudgetNotes,
  baseMix,
  loadLeaveOutCheckpoints,
  loadStartingCheckpoints,
  startingBases,
  type CheckpointLoad,
} from './run_start';
import type { ExperimentSpec } from './spec';

/** Where the plan's inputs come from besides the spec and the tokenizer. */
interface PlanOptions {
  /** The spec as given (written into checkpoints and spec.json); default the validated spec. */
  specJson?: unknown;
  /** Override spec.rl.steps. */
  steps?: number;
  /** How a same-origin asset path is fetched (default the app's asset cache; the CLI reads public/). */
  fetchAsset?: (url: string) => Promise<Response>;
  /** The CLI's --base file, replacing every preset's shipped base. */
  baseCheckpoint?: Uint8Array;
}

/**
 * The plan of `spec` (validated: spec.ts parseSpec, plan.ts checkSpecConsistency), with the base
 * checkpoints it read (by model preset; run_start.ts loadStartingCheckpoints).
 * @throws Error when a leaveOutMixOf base cannot be loaded or a mix is malformed (run_start.ts
 *   baseMix), or what compilePlan throws (an opening over budget, every training task infeasible)
 */
export async function planExperiment(
  spec: ExperimentSpec,
  tok: Tokenizer,
  o: PlanOptions = {},
): Promise<{ plan: ExperimentPlan; bases: Map<string, CheckpointLoad> }> {
  const bases = await loadStartingCheckpoints(spec, o.baseCheckpoint, o.fetchAsset);
  const mix = baseMix(spec, bases, await loadLeaveOutCheckpoints(spec, o.fetchAsset));
  // With the policy's tokenizer and the workflow-extended turn cap, as the rollout environments count.
  const infeasible = excludedCells(spec, tok);
  const plan = compilePlan(spec, tok, {
    specJson: o.specJson ?? spec,
    ...(o.steps !== undefined ? { steps: o.steps } : {}),
    mix,
    infeasible,
    bases: startingBases(spec, bases).bases ?? [],
    budgetNotes: baseBudgetNotes(spec, bases, tok),
  });
  return { plan, bases };
}
