/**
 * The results file: the one zod schema of what `hlab run` writes as results.json and what the app
 * reads (src/app/results_store.ts) — an experiment's results (`ExperimentResultsSchema`, one
 * `RunResultSchema` per (method, seed) run, also kept in run checkpoints) plus how they came about
 * (`ResultsFileSchema`: engine, segments, curves, sampled trajectories, the resolved spec). The
 * writer's types are derived from it. Older shapes are mapped onto it first (results_upgrade.ts).
 * Non-finite run metrics are `null` in JSON and read back as NaN ("not measured"; the views show
 * "—"); curve and trajectory numbers read back as null.
 *
 * Step vocabulary, the same in results.json, results.csv, the console and results.md:
 *   rlSteps               RL steps run (rollout + update attempt)
 *   optimizerSteps        optimizer steps applied: the SFT phase's (sft.steps) and the RL steps'
 *   skippedOptimizerSteps optimizer steps skipped because the loss or gradient was not finite
 *   rlStepsWithoutUpdate  RL steps in which no optimizer step was applied (all groups dropped as
 *                         equal-reward, or every optimizer step skipped)
 */
import { z } from 'zod';

/** A number stored JSON-safe: null (a NaN or ±Infinity when written) reads back as NaN; NaN itself (a record read again) passes. */
const metric = z.preprocess((x) => (Number.isNaN(x) ? null : x), z.number().nullable()).transform((x) => x ?? NaN);
const int = (min = 0) => z.number().int().min(min);

const PassAt1Schema = z.object({ base: metric, inSpace: metric, blackbox: z.record(z.string(), metric) });
const BehaviourSchema = z.object({ parseErrors: metric, workflowViolations: metric, recoveryRate: metric, stateTrackingErrors: metric });
const EpisodeCellSchema = z.object({
  taskId: z.string(),
  harnessId: z.string(),
  sample: int(),
  pass: z.boolean(),
  score: z.number().min(0).max(1),
});

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
  episodes: z
    .object({ before: z.record(z.string(), z.array(EpisodeCellSchema)), after: z.record(z.string(), z.array(EpisodeCellSchema)) })
    .optional(),
  /**
   * Where the shared part of 'before' (the episodes under the base harness, the in-space set and
   * the black-box harnesses; `episodes` of them) came from when it was not evaluated again: the
   * run (method, seed) of the same call with the same starting parameters, tasks, harnesses,
   * samples and seeds (before_reuse.ts). Absent when all of 'before' was evaluated for this run,
   * and in older files.
   */
  beforeReusedFrom: z.object({ method: z.string().min(1), seed: int(), episodes: int() }).optional(),
  /**
   * The same for the part of 'before' under the run's training harnesses outside the shared part:
   * the run (method, seed) of the same call with the same starting parameters and training
   * harnesses (before_reuse.ts). Absent when evaluated for this run, and in older files.
   */
  beforeTrainReusedFrom: z.object({ method: z.string().min(1), seed: int(), episodes: int() }).optional(),
  /**
   * The run's starting checkpoint by name: the spec's `model.init` ('base', 'scratch'). Any
   * name parses: older files may name a method's own shipped checkpoint there (e.g. a black-box
   * SFT checkpoint, from before the in-run SFT phase), and runs with different starting
   * checkpoints get different starting rows in results.md. Absent in files written before this
   * field existed.
   */
  startingCheckpoint: z.string().min(1).optional(),
  /**
   * The run's in-run SFT phase (sft_phase.ts), before its RL steps: SFT optimizer steps (counted
   * in `optimizerSteps` too) and the mean SFT loss (nats per action token) over its first and
   * last 10 % of steps. Absent for runs without one, and in files written before the in-run SFT phase existed.
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
  evalSetExcluded?: z.output<typeof ExperimentResultsSchema>['evalSetExcluded'];
  bases?: StartingBase[];
  machine: string;
  runs: RunResult[];
}

/** A base checkpoint a results file's runs started from (ExperimentResultsSchema `bases`). */
export type StartingBase = NonNullable<z.output<typeof ExperimentResultsSchema>['bases']>[number];

/** A curve or trajectory number: null in JSON where the writer had NaN or ±Infinity, and null once read. */
const num = z.number().nullable();

/** Metrics of one RL step (the RL loop's StepRecord); fields added later are optional, absent in older files. */
const StepRecordSchema = z.object({
  step: int(1),
  /** Mean verifier pass (the reward) over the step's rollouts. */
  reward: num,
  passByHarness: z.record(z.string(), num).optional(),
  policyLoss: num.optional(),
  valueLoss: num.optional(),
  clipFrac: num.optional(),
  approxKl: num.optional(),
  klRef: num.optional(),
  entropy: num.optional(),
  gradNorm: num.optional(),
  optimizerSteps: num.optional(),
  skippedSteps: num.optional(),
  rows: num.optional(),
  tokens: num.optional(),
  droppedGroups: num.optional(),
  groups: num.optional(),
  sampledEpisodes: num.optional(),
  generationRounds: num.optional(),
  sampledGroups: num.optional(),
  tokensPerSec: num.optional(),
  workerRetries: num.optional(),
  envFailures: num.optional(),
  droppedContextTokens: num.optional(),
  cutContexts: num.optional(),
  rolloutMs: num.optional(),
  updateMs: num.optional(),
});

/** The sets a validation split is measured under, with their report label and curves.csv column prefix, in report order. */
export const VALIDATION_SETS = [
  { set: 'training', label: 'training harnesses', column: 'validation' },
  { set: 'base', label: 'base harness', column: 'validation_base' },
  { set: 'inSpace', label: 'in-space', column: 'validation_in_space' },
] as const;
/** A set of harnesses a validation split is measured under. */
export type ValidationSetName = (typeof VALIDATION_SETS)[number]['set'];

/** The validation split measured under one set; older files lack score and episodes, committed parts the cells. */
const ValidationSetPointSchema = z.object({
  passAt1: num,
  score: num.optional(),
  episodes: int().optional(),
  cells: z.array(EpisodeCellSchema).optional(),
});
/** One point of a run's validation curve: the 'training' set in its own fields, the other sets in `sets`. */
const ValidationPointSchema = ValidationSetPointSchema.extend({
  /** RL steps done when measured (0 = before RL). */
  step: int(0),
  /** Wall-clock ms of the measurement. */
  ms: num.optional(),
  sets: z.object({ base: ValidationSetPointSchema.optional(), inSpace: ValidationSetPointSchema.optional() }).optional(),
});
/** A validation point's values under `set` ('training': the point's own fields), or undefined when not measured. */
export function validationSetPoint<P extends { sets?: { base?: unknown; inSpace?: unknown } }>(
  p: P,
  set: ValidationSetName,
): P | NonNullable<P['sets']>[Exclude<ValidationSetName, 'training'>] | undefined {
  return set === 'training' ? p : p.sets?.[set];
}

/** One (method, seed) run's curve: its RL steps and, when validation ran, its validation points ascending by step. */
const RunCurvesSchema = z.object({
  method: z.string(),
  seed: int(),
  steps: z.array(StepRecordSchema),
  validation: z.array(ValidationPointSchema).optional(),
});

/** Behaviour tags of a sampled trajectory (src/harness/types.ts BehaviourTags). */
const TagsSchema = z.object({
  turns: int(),
  toolCalls: int(),
  parseErrors: int(),
  workflowViolations: int(),
  toolErrors: int(),
  recovered: z.boolean().nullable(),
  stateTrackingErrors: int(),
  stateTrackingEvents: z.array(z.string()),
  terminated: z.boolean(),
  truncated: z.boolean(),
  truncationReason: z.string().nullable(),
});

/** One policy turn of a sampled trajectory: the kept context tail, the sampled ids and their log-probs. */
const TrajectoryTurnSchema = z
  .object({
    /** The last context ids the policy saw (loss mask 0). */
    contextIds: z.array(int()),
    /** Leading context ids dropped to keep the file small (0: the whole context is kept). */
    contextOffset: int(),
    /** Sampled ids (loss mask 1), `<|end|>` included when it stopped the action. */
    actionIds: z.array(int()),
    /** log π_old of each sampled id (nats, rounded to 4 decimals). */
    logprobs: z.array(num),
    /** Action kind as the harness classified it (tool, message, parse_error, …, env_failed). */
    kind: z.string(),
  })
  .check((ctx) => {
    if (ctx.value.logprobs.length !== ctx.value.actionIds.length) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value.logprobs,
        path: ['logprobs'],
        message: `has ${ctx.value.logprobs.length} values but actionIds has ${ctx.value.actionIds.length}`,
      });
    }
  });

/** A sampled rollout of an RL step; older files lack index, suite and envFailed. */
const TrajectorySampleSchema = z
  .object({
    method: z.string(),
    seed: int(),
    /** RL step (1-based) the rollout belongs to. */
    step: int(0),
    /** Index of the trajectory in its step's rollout batch. */
    index: int().optional(),
    taskId: z.string(),
    /** Suite and task family, parsed from the task id 'suite/family/tN/seed'. */
    suite: z.string().optional(),
    family: z.string(),
    harnessId: z.string(),
    group: z.number().int(),
    reward: num,
    score: num,
    pass: z.boolean(),
    truncated: z.boolean(),
    envFailed: z.boolean().optional(),
    tags: TagsSchema.nullable(),
    /** GRPO: one advantage for the whole trajectory. PPO: one per action token over all turns, in turn order. */
    advantage: z.union([num, z.array(num)]),
    turns: z.array(TrajectoryTurnSchema),
  })
  .check((ctx) => {
    const a = ctx.value.advantage;
    if (Array.isArray(a)) {
      const n = ctx.value.turns.reduce((s, t) => s + t.actionIds.length, 0);
      if (a.length !== n)
        ctx.issues.push({
          code: 'custom',
          input: a,
          path: ['advantage'],
          message: `has ${a.length} per-token values but the turns have ${n} action tokens`,
        });
    }
  });

/** One (task, harness) cell `hlab run` left out as infeasible for the expert under the spec's budgets. */
export const InfeasibleCellSchema = z.object({ taskId: z.string(), harnessId: z.string(), reason: z.string(), detail: z.string() });

const RunPositionSchema = z.object({ runIndex: int(), step: int() });
/** One runner call of an experiment: its engine ('unrecorded' in segments of checkpoints written before they were), start and positions. */
const RunSegmentSchema = z.object({
  engine: z.enum(['webgpu', 'wasm', 'unrecorded']),
  /** The engine in words. */
  describe: z.string(),
  /** The first run's starting checkpoint, or the run checkpoint the call resumed from. */
  start: z.string(),
  from: RunPositionSchema,
  /** The position of the segment's last checkpoint. */
  to: RunPositionSchema,
});

/**
 * The results file: the experiment's results at the top level plus how they came about. The
 * fields after `status`, `warnings` and `curves` are optional because older files and the app's
 * own saves lack some of them; `hlab run` writes them all (ResultsFile).
 */
export const ResultsFileSchema = z.object({
  ...ExperimentResultsSchema.shape,
  status: z.enum(['done', 'interrupted']),
  warnings: z.array(z.string()),
  curves: z.array(RunCurvesSchema),
  /** The command line that produced the file. */
  command: z.string().optional(),
  /** The engine of the last call. */
  engine: z.object({ kind: z.enum(['webgpu', 'wasm']), describe: z.string(), reason: z.string() }).optional(),
  infeasibleCells: z.array(InfeasibleCellSchema).optional(),
  /** Where each run's starting parameters came from. */
  starts: z.array(z.string()).optional(),
  segments: z.array(RunSegmentSchema).optional(),
  /** Seconds in the page (the last call). */
  seconds: num.optional(),
  trajectories: z.array(TrajectorySampleSchema).optional(),
  /** The resolved spec that ran (also written as spec.json). */
  specJson: z.unknown().optional(),
});

type ResultsFileJson = z.output<typeof ResultsFileSchema>;
/** A run's curve as the file holds it. */
export type RunCurvesJson = ResultsFileJson['curves'][number];
/**
 * What `hlab run` writes as results.json: every field of the schema, with the curves of type `C`
 * (the runner's, whose numbers may be NaN where the file has null).
 */
export type ResultsFile<C extends RunCurvesJson = RunCurvesJson> = Omit<ResultsFileJson, 'curves'> &
  Required<Pick<ResultsFileJson, 'command' | 'engine' | 'infeasibleCells' | 'starts' | 'segments' | 'trajectories'>> & {
    curves: C[];
    seconds: number;
    specJson: unknown;
  };
/** A sampled trajectory as the file holds it. */
export type TrajectorySampleJson = z.output<typeof TrajectorySampleSchema>;
/** A runner call of an experiment (ResultsFile `segments`). */
export type RunSegment = z.output<typeof RunSegmentSchema>;
