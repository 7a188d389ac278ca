/**
 * The compiled plan of an experiment: every fact a run of the spec needs that follows from the
 * validated spec, the tokenizer, the base checkpoints' pretraining mix and the infeasible cells,
 * derived once (plan.ts holds the pure draws it is made of). The runner, the CLI and the app's
 * train worker run from it, so one spec is one experiment wherever it runs.
 * Invariant: JSON-safe (it travels from the CLI to its page) and a pure function of its inputs.
 */
import { BASE_HARNESS, type TaskAssignment } from '../design';
import { runBudget } from '../episode/budget';
import type { RowLimits } from '../episode/rows';
import { presetConfig, type PresetName } from '../model/config';
import type { Tokenizer } from '../model/tokenizer';
import { resolveSftConfig } from '../pretrain/sft';
import { Rng } from '../util/rng';
import { rlLossConfig, RlLossSpec } from '../rl/config';
import type { RlTrainerOptions } from '../rl/update';
import type { ExcludedCell } from './feasibility';
import type { StartingBase } from '../report/results_schema';
import { checkSpecOpenings } from './openings';
import {
  cellKey,
  inSpaceEvalSet,
  inSpaceTasks,
  mixOverlapWarnings,
  plannedRuns,
  taskAssignments,
  testTasks,
  trainingHarnesses,
  trainPool,
  withoutCells,
} from './plan';
import type { ExperimentSpec, MethodSpec } from './spec';
import { validationPlan, type ValidationPlan } from './validation';

/** What one (seed, method) run trains on and is evaluated on. */
export interface RunPlan {
  seed: number;
  method: MethodSpec;
  /** The run's model preset (method.modelPreset or spec.model.preset). */
  preset: PresetName;
  /** RL steps: the plan's steps, or 0 for a method without training harnesses or an 'sft' method. */
  rlSteps: number;
  /** Train-task pool with every task of which all harnesses are infeasible left out. */
  pool: string[];
  /** Each pool task's harnesses (anchor first), infeasible ones left out. */
  assignments: TaskAssignment[];
  /** The evaluation sets ('before' and 'after'); evaluate.ts EvalSets without the excluded cells. */
  evaluation: {
    testTasks: string[];
    inSpace: string[];
    /** Harness id → its test tasks where not every test task (the in-space rotation); absent: all. */
    cellTasks?: Record<string, string[]>;
    blackbox: string[];
    training: string[];
  };
  /** The validation split (validation.ts); absent when the spec asks for none. */
  validation?: ValidationPlan;
  /** The RL trainer's options. */
  trainer: RlTrainerOptions;
  /** The in-run SFT phase (sft_phase.ts); absent for a method without `sft`. */
  sft?: SftPlan;
}

/** What a run's SFT phase demonstrates and how it trains (sft_phase.ts). */
export interface SftPlan {
  /** The harness it demonstrates and trains through: the method's black-box harness, or the base harness for 'single'. */
  harness: string;
  /** The demonstrated train tasks: the run's pool, or a seeded draw of `sft.demos` of it. */
  taskIds: string[];
  /** The rows' context budget: the model's maxT capped by spec.rollout (episode/budget.ts runBudget). */
  limits: RowLimits;
  /** The optimizer's settings, model config included (pretrain/sft.ts resolveSftConfig). */
  config: ReturnType<typeof resolveSftConfig>;
}

/** An experiment as it runs: the spec, its runs in runner order (seeds outer, methods inner) and what they share. */
export interface ExperimentPlan {
  spec: ExperimentSpec;
  /** The spec as given (written into checkpoints and spec.json). */
  specJson: unknown;
  /** RL steps of a training run (spec.rl.steps unless overridden). */
  steps: number;
  /** The (task, harness) cells left out of training and evaluation (feasibility.ts). */
  infeasible: ExcludedCell[];
  /** The held-out in-space configurations evaluated (plan.ts inSpaceEvalSet). */
  inSpace: ReturnType<typeof inSpaceEvalSet>;
  /** Warnings the plan raises (training configurations inside the base's pretraining mix). */
  warnings: string[];
  /** The base checkpoints the runs start from, as results.json records them (none for 'scratch'). */
  bases: StartingBase[];
  runs: RunPlan[];
}

/** What compilePlan needs besides the spec and the tokenizer. */
interface PlanInputs {
  specJson: unknown;
  /** Override spec.rl.steps. */
  steps?: number;
  /** The base checkpoints' pretraining mix (run_start.ts baseMix). */
  mix: { ids: string[]; label: string };
  /** The infeasible cells (feasibility.ts excludedCells). */
  infeasible: ExcludedCell[];
  /** The base checkpoints read (run_start.ts startingBases); default none. */
  bases?: StartingBase[];
  /** Notes on the bases' budgets (run_start.ts baseBudgetNotes), shown with the plan's warnings. */
  budgetNotes?: string[];
}

/**
 * The RL trainer's options for a run of `algorithm` under the spec (GRPO for anything but PPO:
 * an 'sft' or harness-free method takes no RL step, its trainer only holds the parameters). The
 * loss hyper-parameters are the spec's fields of src/rl/config.ts `RlLossSpec` (one schema).
 */
export function trainerOptions(spec: ExperimentSpec, algorithm: MethodSpec['algorithm'], padId: number, seed: number): RlTrainerOptions {
  const cfg = rlLossConfig({
    ...RlLossSpec.parse(spec.rl),
    algorithm: algorithm === 'ppo' ? 'ppo' : 'grpo',
    // The trainer scores log-probs at the rollouts' sampling temperature.
    temperature: spec.rl.temperature,
    // Dr. GRPO's constant for seq-mean-token-sum-norm: the maximum response length (never the padded T).
    tokenSumNorm: spec.rollout.maxNewTokens,
  });
  const { lr, weightDecay, maxGradNorm, epochs, minibatches, dropZeroVarianceGroups } = spec.rl;
  return { cfg, lr, weightDecay, maxGradNorm, epochs, minibatches, padId, seed, dropZeroVarianceGroups };
}

/**
 * The SFT phase of a (seed, method) run over its train-task `pool` (spec.ts MethodSpec.sft):
 * every choice derives from the seed, so a resumed run redoes the same phase.
 * @returns undefined for a method without `sft`
 * @throws Error when the method has `sft` but does not train through one harness ('blackbox' or 'single')
 */
function sftPlan(spec: ExperimentSpec, method: MethodSpec, seed: number, pool: readonly string[], tok: Tokenizer): SftPlan | undefined {
  const sft = method.sft;
  if (!sft) return undefined;
  const blackbox = method.harnesses === 'blackbox' ? method.blackbox : undefined;
  const harness = blackbox ?? (method.harnesses === 'single' ? BASE_HARNESS : undefined);
  if (!harness) throw new Error(`method '${method.name}': an SFT phase needs spec.methods[].sft and harnesses 'blackbox' or 'single'`);
  const preset = method.modelPreset ?? spec.model.preset;
  const taskIds =
    sft.demos !== undefined && sft.demos < pool.length
      ? Rng.derive(seed, 'sft-demos')
          .shuffle([...pool])
          .slice(0, sft.demos)
      : [...pool];
  const config = resolveSftConfig(
    {
      preset,
      steps: sft.steps,
      batchSize: sft.batchSize,
      lr: sft.lr,
      seed: Rng.derive(seed, 'sft-batches').int(2 ** 31),
      demos: taskIds.length,
      // The recipe's optimizer settings; demonstrations come from `harness` above. A base-harness
      // phase is resolved as the base model's recipe with the mix of the base harness alone.
      ...(blackbox ? { blackbox } : { blackbox: null, mix: 'base:1' }),
    },
    tok.vocabSize,
  );
  return { harness, taskIds, limits: runBudget(presetConfig(preset, tok.vocabSize).maxT, spec.rollout), config };
}

/**
 * Compile a validated spec (spec.ts parseSpec, plan.ts checkSpecConsistency) into its plan.
 * @throws ContextBudgetError when an opening exceeds the context budget (openings.ts); Error
 *   when every training task of a run is infeasible or K exceeds a training set
 */
export function compilePlan(spec: ExperimentSpec, tok: Tokenizer, inputs: PlanInputs): ExperimentPlan {
  const steps = inputs.steps ?? spec.rl.steps;
  // Every opening fits the context budget, checked before any rollout (throws naming harness, task, sizes).
  checkSpecOpenings(spec, tok);
  const excluded = new Set(inputs.infeasible.map((c) => cellKey(c.taskId, c.harnessId)));
  const inSpace = inSpaceEvalSet(spec, inputs.mix.ids, inputs.mix.label);
  const runs = plannedRuns(spec, steps).map(({ seed, method, rlSteps }): RunPlan => {
    const training = trainingHarnesses(spec, method, seed);
    const fullPool = trainPool(spec, seed);
    const { pool, assignments } = withoutCells(taskAssignments(spec, method, fullPool, seed), excluded);
    if (pool.length === 0) throw new Error(`method '${method.name}', seed ${seed}: every training task is excluded as infeasible`);
    const tests = testTasks(spec, seed);
    const cellTasks = inSpaceTasks(spec, tests, inSpace.ids);
    const validates = rlSteps > 0 || !!method.sft;
    const validation = validates ? validationPlan(spec, method, seed, fullPool, excluded, inSpace.ids) : undefined;
    const sft = sftPlan(spec, method, seed, pool, tok);
    const preset = method.modelPreset ?? spec.model.preset;
    return {
      seed,
      method,
      preset,
      rlSteps,
      pool,
      assignments,
      evaluation: {
        testTasks: tests,
        inSpace: inSpace.ids,
        ...(cellTasks ? { cellTasks: Object.fromEntries(cellTasks) } : {}),
        blackbox: spec.evaluation.blackbox,
        training,
      },
      ...(validation ? { validation } : {}),
      trainer: trainerOptions(spec, method.algorithm, tok.padId, seed),
      ...(sft ? { sft } : {}),
    };
  });
  return {
    spec,
    specJson: inputs.specJson,
    steps,
    infeasible: inputs.infeasible,
    inSpace,
    warnings: [...mixOverlapWarnings(spec, inputs.mix.ids), ...(inputs.budgetNotes ?? [])],
    bases: inputs.bases ?? [],
    runs,
  };
}
