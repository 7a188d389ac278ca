/**
 * The results record: one zod schema of a run's result (`RunResultSchema`) and of an
 * experiment's results (`ExperimentResultsSchema`) that the runner produces, the run checkpoint
 * stores, the CLI writes (results.json, assembled by results_json.ts `resultsFile`) and the app
 * reads (src/app/results_store.ts). Non-finite numbers are `null` in JSON and read back as NaN
 * ("not measured"; the views show "—").
 *
 * Step vocabulary (issue 27), the same in results.json, results.csv, the console and results.md:
 *   rlSteps               RL steps run (rollout + update attempt)
 *   optimizerSteps        optimizer steps applied: the SFT phase's (sft.steps) and the RL steps'
 *   skippedOptimizerSteps optimizer steps skipped because the loss or gradient was not finite
 *   rlStepsWithoutUpdate  RL steps in which no optimizer step was applied (all groups dropped as
 *                         equal-reward, or every optimizer step skipped)
 * Older files (before this vocabulary) say `steps` (= optimizerSteps) and `skippedSteps`
 * (= skippedOptimizerSteps): `upgradeRuns` maps them here, the one place; their RL step
 * counts are taken from the file's curves when present, else NaN (not recorded).
 */
import { z } from 'zod';
import type { InSpaceExclusions } from './plan';

/** A number stored JSON-safe: null (a NaN or ±Infinity when written) reads back as NaN; NaN itself (a record read again) passes. */
const metric = z.preprocess((x) => (Number.isNaN(x) ? null : x), z.number().nullable()).transform((x) => x ?? NaN);
const int = (min = 0) => z.number().int().min(min);

const PassAt1Schema = z.object({ base: metric, inSpace: metric, blackbox: z.record(z.string(), metric) });
const BehaviourSchema = z.object({ parseErrors: metric, workflowViolations: metric, recoveryRate: metric, stateTrackingErrors: metric });
const EpisodeCellSchema = z.object({ taskId: z.string(), harnessId: z.string(), sample: int(), pass: z.boolean(), score: z.number().min(0).max(1) });

/**
 * Older results and checkpoints name optimizer steps `steps` and `skippedSteps` (module doc):
 * rename them; the RL step counts they lack become null (NaN: not recorded) unless `curve`
 * (the run's per-step records) gives them. New records pass unchanged.
 */
function upgradeOldStepNames(raw: unknown, curve?: { steps: ReadonlyArray<{ optimizerSteps?: unknown; skippedSteps?: unknown }> }): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || !('steps' in raw) || 'optimizerSteps' in raw) return raw;
  const { steps, skippedSteps, ...rest } = raw as Record<string, unknown>;
  const applied = (h: { optimizerSteps?: unknown; skippedSteps?: unknown }) => Number(h.optimizerSteps ?? 0) - Number(h.skippedSteps ?? 0);
  return {
    ...rest,
    rlSteps: curve ? curve.steps.length : null,
    optimizerSteps: steps,
    skippedOptimizerSteps: skippedSteps,
    rlStepsWithoutUpdate: curve ? curve.steps.filter((h) => applied(h) === 0).length : null,
  };
}

/** One (method, seed) run's result. */
export const RunResultSchema = z.object({
  method: z.string().min(1),
  algorithm: z.enum(['grpo', 'ppo', 'sft', 'none']),
  seed: int(),
  /** RL steps run. NaN: not recorded (an older file without curves). */
  rlSteps: metric,
  /** Optimizer steps applied (skipped ones excluded). */
  optimizerSteps: metric,
  /** Optimizer steps skipped because the loss or gradient was not finite. */
  skippedOptimizerSteps: metric,
  /** Episodes rolled out for training over all RL steps and generation rounds (dynamic sampling makes it exceed steps × tasksPerStep × groupSize); absent in older files. */
  sampledEpisodes: metric.optional(),
  /** RL steps in which no optimizer step was applied. NaN: not recorded. */
  rlStepsWithoutUpdate: metric,
  /** pass@1 (mean success over test tasks × samples, in [0, 1]): base harness, held-out in-space set, each black-box harness. */
  before: PassAt1Schema,
  after: PassAt1Schema,
  /** pass@1 on the training harnesses, before and after (the learning signal of `quick`). */
  trainHarnesses: z.object({ before: metric, after: metric }),
  /** Behaviour metrics averaged over evaluation episodes (per episode; recoveryRate a fraction, NaN when no episode needed one). */
  behaviour: z.object({ before: BehaviourSchema, after: BehaviourSchema }),
  /** Per-harness pass@1 after training, id → value. */
  perHarness: z.record(z.string(), metric),
  /** Seconds of wall-clock time over all call segments. */
  seconds: metric,
  /**
   * Per-episode outcomes of the before and after evaluations by results column ('base',
   * 'inSpace', 'train', each black-box id), for intervals, scores and paired tests; absent in
   * older files ("n/a" then).
   */
  episodes: z.object({ before: z.record(z.string(), z.array(EpisodeCellSchema)), after: z.record(z.string(), z.array(EpisodeCellSchema)) }).optional(),
  /**
   * Where the shared part of 'before' (the episodes under the base harness, the in-space set and
   * the black-box harnesses; `episodes` of them) came from when it was not evaluated again: the
   * run (method, seed) of the same call with the same starting parameters, tasks, harnesses,
   * samples and seeds (before_reuse.ts). Absent when all of 'before' was evaluated for this run,
   * and in older files.
   */
  beforeReusedFrom: z.object({ method: z.string().min(1), seed: int(), episodes: int() }).optional(),
  /**
   * The run's starting checkpoint by name: the spec's `model.init` ('base', 'scratch'). Any
   * name parses: files of session 10 name a method's own shipped checkpoint there (e.g. a
   * black-box SFT checkpoint, removed in session 11 for the in-run SFT phase), and runs with
   * different starting checkpoints get different starting rows in results.md. Absent in files
   * before session 10.
   */
  startingCheckpoint: z.string().min(1).optional(),
  /**
   * The run's in-run SFT phase (sft_phase.ts), before its RL steps: SFT optimizer steps (counted
   * in `optimizerSteps` too) and the mean SFT loss (nats per action token) over its first and
   * last 10 % of steps. Absent for runs without one, and in files before session 11.
   */
  sft: z.object({ steps: int(), firstLoss: metric, lastLoss: metric }).optional(),
});

/** The results of an experiment: one RunResult per (seed, method), with how the in-space set was evaluated. */
export const ExperimentResultsSchema = z.looseObject({
  resultsVersion: z.literal(1),
  spec: z.string(),
  /** How the in-space set was evaluated, e.g. 'all 225' or 'stratified: 2 per distance, seed 0 (6 configs)'. */
  evalSet: z.string(),
  /** Held-out configurations each exclusion left out of the in-space set (plan.ts inSpaceEvalSet); absent in older files. */
  evalSetExcluded: z.object({ trainingSets: int(), pretrainMix: int(), mix: z.string() }).optional(),
  /**
   * The base checkpoint each model preset's runs started from: its exposure (spec.model.exposure,
   * 'broad' when absent), file, digest and the pretraining mix it records. Absent in older files
   * (they all started from the shipped broad base) and for model.init 'scratch'.
   */
  bases: z.array(z.object({ preset: z.string(), exposure: z.string(), file: z.string(), digest: z.string(), mix: z.string() })).optional(),
  machine: z.string(),
  runs: z.array(RunResultSchema),
});

export type RunResult = z.output<typeof RunResultSchema>;
export type PassAt1 = RunResult['before'];
export type BehaviourMetrics = RunResult['behaviour']['before'];
/** One evaluated episode: the (task, harness, sample) cell it measures, pass and score in [0, 1]. */
export type EpisodeCell = z.output<typeof EpisodeCellSchema>;
/** A run's evaluated episodes by results column, before and after training (the 'after' cells must match 'before' to pair). */
export type RunEpisodes = NonNullable<RunResult['episodes']>;
/** ExperimentResultsSchema's fields (its extra fields aside). */
export interface ExperimentResults {
  resultsVersion: 1;
  spec: string;
  evalSet: string;
  evalSetExcluded?: InSpaceExclusions;
  bases?: StartingBase[];
  machine: string;
  runs: RunResult[];
}

/** A base checkpoint a results file's runs started from (ExperimentResultsSchema `bases`). */
export type StartingBase = NonNullable<z.output<typeof ExperimentResultsSchema>['bases']>[number];

/**
 * `runs` (a results object's or a checkpoint's, as stored) with old step names mapped
 * (upgradeOldStepNames), each run's RL step counts taken from its curve in `curves` (matched by
 * method and seed) when present. Anything that is not a list passes unchanged (the schema names it).
 */
export function upgradeRuns(runs: unknown, curves: unknown): unknown {
  if (!Array.isArray(runs)) return runs;
  const cs = Array.isArray(curves) ? (curves as Array<{ method?: unknown; seed?: unknown; steps?: unknown }>) : [];
  return runs.map((r) => {
    const o = r as { method?: unknown; seed?: unknown } | null;
    const c = cs.find((x) => x && x.method === o?.method && x.seed === o?.seed && Array.isArray(x.steps));
    return upgradeOldStepNames(r, c as { steps: Array<{ optimizerSteps?: unknown; skippedSteps?: unknown }> } | undefined);
  });
}
