/**
 * The validation curve of an RL run: pass@1 and mean verifier score on the run's validation
 * split (train-seed tasks disjoint from the RL pool, plan.ts validationTasks) at step 0, every
 * `every` RL steps and at the last step, under the sets of spec.evaluation.validation.sets
 * ('training': each task's anchor training harness; 'base'; 'inSpace': held-out in-space
 * configurations). Hyper-parameters are chosen on this curve, never on test tasks.
 *
 * Invariant: a point is a pure function of (seed, step) and the plan (sampler seed
 * Rng.derive(seed, 'validation', step), at the evaluation's temperature), so a resumed run
 * measures exactly the points an uninterrupted one does. Infeasible cells are left out.
 */
import { runEpisodes, type EpisodeRequest, type RolloutOptions } from '../rollout/rollout';
import { BASE_HARNESS } from '../design/space';
import { Rng } from '../util/rng';
import { cellKey, validationCells, validationTasks } from './plan';
import type { ExperimentSpec, MethodSpec } from './spec';
import type { EpisodeOutcomeCell } from '../report/stats';
import { VALIDATION_SETS, validationSetPoint, type ValidationSetName } from '../report/results_schema';

/** The sets besides 'training', measured only when the spec asks for them. */
type ExtraSet = Exclude<ValidationSetName, 'training'>;
type Cell = { taskId: string; harnessId: string };

/** The split measured under one set: the episodes of its cells. */
interface ValidationSetPoint {
  /** Mean verifier pass over the episodes, in [0, 1]. */
  passAt1: number;
  /** Mean verifier partial-credit score over the episodes, in [0, 1]. */
  score: number;
  /** Episodes (cells × samples). */
  episodes: number;
  /** Every episode: its (task, harness, sample) cell, pass and score (paired comparisons between points). */
  cells: EpisodeOutcomeCell[];
}

/** One measured point of a validation curve: the 'training' set in its own fields, the other sets in `sets`. */
export interface ValidationPoint extends ValidationSetPoint {
  /** RL steps done when measured (0 = before RL). */
  step: number;
  /** Wall-clock ms of the measurement (all sets). */
  ms: number;
  /** The other sets the plan measures (absent: the training set only, as in points written before sets existed). */
  sets?: Partial<Record<ExtraSet, ValidationSetPoint>>;
}

/** What a run validates on and how often (the runner builds it from spec.evaluation.validation). */
export interface ValidationPlan {
  /** The 'training' set: one (task, harness) cell per validation task. */
  cells: ReadonlyArray<Cell>;
  /** The other requested sets with at least one cell, one cell per validation task each (absent: none). */
  sets?: Partial<Record<ExtraSet, ReadonlyArray<Cell>>>;
  /** Measure every this many RL steps (and at step 0 and the last step). */
  every: number;
  /** Episodes per cell. */
  samples: number;
}

/**
 * The validation plan of a (seed, method) run from spec.evaluation.validation: `tasks` per suite
 * of plan.ts validationTasks (disjoint from `pool`), each under its anchor harness (plan.ts
 * validationCells) and, as `sets` asks, under the base harness and under an in-space
 * configuration (the module doc), infeasible cells left out.
 * @param pool the run's full train-task pool (plan.ts trainPool)
 * @param excluded cellKey(task, harness) of the infeasible cells (feasibility.ts)
 * @param inSpaceIds the run's in-space evaluation set (plan.ts inSpaceEvalSet ids); needed when sets has 'inSpace'
 * @returns undefined when validation is off (absent or tasks = 0) or every training cell is excluded
 * @throws Error when sets has 'inSpace' and no in-space ids are passed
 */
export function validationPlan(
  spec: ExperimentSpec,
  m: MethodSpec,
  seed: number,
  pool: readonly string[],
  excluded: ReadonlySet<string> = new Set(),
  inSpaceIds?: readonly string[],
): ValidationPlan | undefined {
  const v = spec.evaluation.validation;
  if (!v || v.tasks === 0) return undefined;
  const tasks = validationTasks(spec, seed, pool, v.tasks);
  const cells = validationCells(spec, m, tasks, seed, excluded);
  if (!cells.length) return undefined;
  const sets: NonNullable<ValidationPlan['sets']> = {};
  const feasible = (cs: Cell[]) => cs.filter((c) => !excluded.has(cellKey(c.taskId, c.harnessId)));
  if (v.sets?.includes('base')) sets.base = feasible(tasks.map((taskId) => ({ taskId, harnessId: BASE_HARNESS })));
  if (v.sets?.includes('inSpace')) {
    if (!inSpaceIds) throw new Error("validation: the 'inSpace' set needs the run's in-space evaluation set ids");
    sets.inSpace = feasible(inSpaceRotation(tasks, inSpaceIds, seed));
  }
  for (const k of Object.keys(sets) as ExtraSet[]) if (!sets[k]!.length) delete sets[k];
  return { cells, ...(Object.keys(sets).length ? { sets } : {}), every: v.every, samples: v.samples };
}

/**
 * Validation task i under configuration order[i mod |ids|], order = the in-space ids shuffled
 * by Rng.derive(seed, 'validation-in-space'): a rotation, so with more tasks than configurations
 * each configuration gets about |tasks|/|ids| of them, spread over suites and families, and with
 * fewer a seeded sample of configurations rather than the first (nearest) distances. A function
 * of the run seed, the tasks and the ids, so every method of a seed measures the same cells.
 * @returns one cell per task, none when ids is empty
 */
function inSpaceRotation(tasks: readonly string[], ids: readonly string[], seed: number): Cell[] {
  if (!ids.length) return [];
  const order = Rng.derive(seed, 'validation-in-space').shuffle(ids);
  return tasks.map((taskId, i) => ({ taskId, harnessId: order[i % order.length] }));
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

/** Who acts and under which budget: the rollout options of the run's training episodes, a validation seed derived per step. */
interface ValidationOptions extends Omit<RolloutOptions, 'onProgress' | 'temperature' | 'seed' | 'contextTokens'> {
  contextTokens: number;
  /** The sampling temperature τ > 0 of validation episodes (spec.evaluation.temperature). */
  temperature: number;
  /** The run's seed. */
  seed: number;
}

/**
 * Measure one validation point: plan.samples episodes of every cell of every set, sampled at τ
 * with the (seed, 'validation', step) seed in one batch (the training cells first, in plan
 * order: with the training set alone the batch is the one measured before sets existed).
 * pass@1 counts verifier passes whatever rl.reward is.
 * @throws Error when the plan has no cells; what runEpisodes throws (an unknown id, an opening that does not fit).
 */
export async function measureValidation(plan: ValidationPlan, step: number, o: ValidationOptions): Promise<ValidationPoint> {
  if (plan.cells.length === 0) throw new Error('validation: no (task, harness) cells to measure');
  const t0 = performance.now();
  const extra = Object.entries(plan.sets ?? {}) as Array<[ExtraSet, ReadonlyArray<Cell>]>;
  const reqs: EpisodeRequest[] = [];
  const sampleOf: number[] = [];
  const request = (c: Cell) => {
    for (let k = 0; k < plan.samples; k++) {
      reqs.push({ taskId: c.taskId, harnessId: c.harnessId, group: reqs.length });
      sampleOf.push(k);
    }
  };
  plan.cells.forEach(request);
  // A cell of another set that is already in the batch (e.g. a single-harness method's base
  // cells are its training cells) is measured once and its episodes count for both sets.
  const inBatch = new Set(plan.cells.map((c) => cellKey(c.taskId, c.harnessId)));
  for (const [, cells] of extra) {
    for (const c of cells) {
      const key = cellKey(c.taskId, c.harnessId);
      if (!inBatch.has(key)) inBatch.add(key), request(c);
    }
  }
  const { trajectories } = await runEpisodes(reqs, { ...o, seed: Rng.derive(o.seed, 'validation', step).int(2 ** 31) });
  const outcomes = trajectories.map(
    (t, i): EpisodeOutcomeCell => ({ taskId: t.taskId, harnessId: t.harnessId, sample: sampleOf[i], pass: t.pass, score: t.score }),
  );
  const training = summary(outcomes.slice(0, plan.cells.length * plan.samples));
  const byCell = new Map<string, EpisodeOutcomeCell[]>();
  for (const c of outcomes) {
    const key = cellKey(c.taskId, c.harnessId);
    byCell.set(key, [...(byCell.get(key) ?? []), c]);
  }
  const sets: NonNullable<ValidationPoint['sets']> = {};
  for (const [set, cells] of extra)
    sets[set] = summary(cells.flatMap((c) => byCell.get(cellKey(c.taskId, c.harnessId))!.slice(0, plan.samples)));
  return {
    step,
    passAt1: training.passAt1,
    score: training.score,
    episodes: training.episodes,
    ms: performance.now() - t0,
    cells: training.cells,
    ...(extra.length ? { sets } : {}),
  };
}

/** pass@1, mean score and count of a non-empty list of episodes. */
function summary(cells: EpisodeOutcomeCell[]): ValidationSetPoint {
  const n = cells.length;
  return { passAt1: cells.filter((c) => c.pass).length / n, score: cells.reduce((a, c) => a + c.score, 0) / n, episodes: n, cells };
}

/** "pass@1 0.250, score 0.400 (48 episodes, 3.1 s) · base harness 0.125 · in-space 0.083": a point for the log. */
export function validationSummary(p: ValidationPoint): string {
  const others = VALIDATION_SETS.filter((s) => s.set !== 'training')
    .map((s) => ({ s, q: validationSetPoint(p, s.set) }))
    .map(({ s, q }) => (q ? ` · ${s.label} ${q.passAt1.toFixed(3)}` : ''))
    .join('');
  return `pass@1 ${p.passAt1.toFixed(3)}, score ${p.score.toFixed(3)} (${p.episodes} episodes, ${(p.ms / 1000).toFixed(1)} s)${others}`;
}
