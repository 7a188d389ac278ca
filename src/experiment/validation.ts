/**
 * The validation curve of an RL run (issue 28, "exploration and signal, measured"): pass@1 and
 * mean verifier score of the policy on the run's validation split — train-seed tasks disjoint
 * from the RL train-task pool (plan.ts validationTasks), each under its anchor training harness
 * (plan.ts validationCells) — at step 0 (before RL), every `every` RL steps and at the last step.
 * Hyper-parameters (temperature, group size, lr, KL/entropy terms, the SFT stopping point) are
 * chosen on this curve, never on test tasks.
 *
 * Sampling: `samples` episodes per task at spec.evaluation.temperature (default 1; its own
 * field, not spec.rl.temperature, so a run that rolls out at τ = 1.5 is still measured at the
 * evaluation's τ and its curve stays comparable with runs at other rollout temperatures),
 * sampler seed Rng.derive(seed, 'validation', step): a pure function
 * of (seed, step) and the parameters, so a resumed run measures exactly the points an
 * uninterrupted one does. The rl_loop calls `measureValidation`; the points ride in the run
 * state (run_checkpoint.ts) and the run's curve (run_events.ts RunCurves.validation).
 */
import type { Tokenizer } from '../model/tokenizer';
import { runEpisodes, type EnvHost, type EpisodeRequest, type Policy } from '../rollout/engine';
import { Rng } from '../util/rng';
import { validationCells, validationTasks } from './plan';
import type { ExperimentSpec, MethodSpec } from './spec';
import type { EpisodeOutcomeCell } from './stats';

/** One measured point of a validation curve. */
export interface ValidationPoint {
  /** RL steps done when measured (0 = before RL). */
  step: number;
  /** Mean verifier pass over the episodes, in [0, 1]. */
  passAt1: number;
  /** Mean verifier partial-credit score over the episodes, in [0, 1]. */
  score: number;
  /** Episodes (cells × samples). */
  episodes: number;
  /** Wall-clock ms of the measurement. */
  ms: number;
  /** Every episode: its (task, harness, sample) cell, pass and score (paired comparisons between points). */
  cells: EpisodeOutcomeCell[];
}

/** What a run validates on and how often (the runner builds it from spec.evaluation.validation). */
export interface ValidationPlan {
  /** One (task, harness) cell per validation task. */
  cells: ReadonlyArray<{ taskId: string; harnessId: string }>;
  /** Measure every this many RL steps (and at step 0 and the last step). */
  every: number;
  /** Episodes per cell. */
  samples: number;
}

/**
 * The validation plan of a (seed, method) run from spec.evaluation.validation: `tasks` per suite
 * of plan.ts validationTasks (disjoint from `pool`), each under its anchor harness, infeasible
 * cells left out (plan.ts validationCells).
 * @param pool the run's full train-task pool (plan.ts trainPool)
 * @param excluded cellKey(task, harness) of the infeasible cells (feasibility.ts)
 * @returns undefined when validation is off (absent or tasks = 0) or every cell is excluded
 */
export function validationPlan(spec: ExperimentSpec, m: MethodSpec, seed: number, pool: readonly string[], excluded?: ReadonlySet<string>): ValidationPlan | undefined {
  const v = spec.evaluation.validation;
  if (!v || v.tasks === 0) return undefined;
  const cells = validationCells(spec, m, validationTasks(spec, seed, pool, v.tasks), seed, excluded);
  return cells.length ? { cells, every: v.every, samples: v.samples } : undefined;
}

/**
 * Whether step `step` of a run of `runSteps` RL steps gets a validation point: 0, every
 * multiple of `every`, and `runSteps`; none when the run has no RL steps.
 * @throws Error when every is not a positive integer.
 */
export function isValidationStep(step: number, runSteps: number, every: number): boolean {
  if (!Number.isInteger(every) || every < 1) throw new Error(`validation: every must be a positive integer, got ${every}`);
  if (runSteps < 1 || step < 0 || step > runSteps) return false;
  return step % every === 0 || step === runSteps;
}

/** The steps `isValidationStep` accepts, ascending. */
export function validationSteps(runSteps: number, every: number): number[] {
  const out: number[] = [];
  for (let s = 0; s <= runSteps; s++) if (isValidationStep(s, runSteps, every)) out.push(s);
  return out;
}

interface ValidationOptions {
  tok: Tokenizer;
  policy: Policy;
  env: EnvHost;
  maxTurns: number;
  maxNewTokens: number;
  contextTokens: number;
  /** The sampling temperature τ > 0 of validation episodes (spec.evaluation.temperature). */
  temperature: number;
  /** The run's seed. */
  seed: number;
}

/**
 * Measure one validation point: plan.samples episodes of every cell, sampled at τ with the
 * (seed, 'validation', step) seed. pass@1 counts verifier passes whatever rl.reward is.
 * @throws Error when the plan has no cells; what runEpisodes throws (an unknown id, an opening that does not fit).
 */
export async function measureValidation(plan: ValidationPlan, step: number, o: ValidationOptions): Promise<ValidationPoint> {
  if (plan.cells.length === 0) throw new Error('validation: no (task, harness) cells to measure');
  const t0 = performance.now();
  const reqs: EpisodeRequest[] = [];
  const sampleOf: number[] = [];
  for (const c of plan.cells) {
    for (let k = 0; k < plan.samples; k++) {
      reqs.push({ taskId: c.taskId, harnessId: c.harnessId, group: reqs.length });
      sampleOf.push(k);
    }
  }
  const { trajectories } = await runEpisodes(reqs, {
    tok: o.tok,
    policy: o.policy,
    env: o.env,
    maxTurns: o.maxTurns,
    maxNewTokens: o.maxNewTokens,
    contextTokens: o.contextTokens,
    temperature: o.temperature,
    seed: Rng.derive(o.seed, 'validation', step).int(2 ** 31),
  });
  const cells = trajectories.map((t, i): EpisodeOutcomeCell => ({ taskId: t.taskId, harnessId: t.harnessId, sample: sampleOf[i], pass: t.pass, score: t.score }));
  const n = cells.length;
  return {
    step,
    passAt1: cells.filter((c) => c.pass).length / n,
    score: cells.reduce((a, c) => a + c.score, 0) / n,
    episodes: n,
    ms: performance.now() - t0,
    cells,
  };
}
