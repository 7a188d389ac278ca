/**
 * The plan of one experiment run (docs/ARCHITECTURE.md "Harness space and design"), pure and
 * seeded: which harnesses a method trains through (strategies single, scaling, random-k,
 * random-assignment, blackbox, none), each task's K harnesses used round-robin, which train tasks
 * each RL step draws, the validation split and the evaluation sets. compile.ts compiles a spec's
 * runs from these draws once.
 *
 * Invariant: every draw is a pure function of (seed, step), so a resumed run draws exactly what
 * an uninterrupted one would. The train pool is walked in epochs (each task once per epoch), and
 * the validation split never shares a task seed with the pool.
 */
import {
  BASE_HARNESS,
  hammingDistance,
  selectBalancedSubset,
  selectTraining,
  assignHarnesses,
  RoundRobinSchedule,
  type DesignReport,
  type TaskAssignment,
  type RoundRobinState,
} from '../design';
import { getSuite, taskSet } from '../tasks';
import type { SuiteName, TaskSuite } from '../tasks/types';
import { Rng } from '../util/rng';
import { SpecError, type ExperimentSpec, type MethodSpec } from './spec';
import { presetConfig } from '../model/config';

/** Default train-task pool size per suite (not a spec field; stated in results). */
export const TRAIN_POOL_PER_SUITE = 16;

/** The design (training set and held-out set) the spec selects. */
function specDesign(spec: ExperimentSpec): DesignReport {
  return spec.design.method === 'random'
    ? selectTraining(undefined, { method: 'random', k: spec.design.k, seed: spec.design.seed })
    : selectTraining(undefined, { method: 'oa' });
}

/**
 * The design a method's training set comes from: a random-k method's own draw for run seed
 * `seed` (design.k configurations, Rng.derive(design.seed, 'random-k', seed)), the first
 * `harnessCount` harnesses of the spec's design in its balanced order, else the spec's design.
 */
export function methodDesign(spec: ExperimentSpec, m: MethodSpec, seed: number): DesignReport {
  if (m.harnesses === 'random-k') return randomKDesign(spec, seed);
  return m.harnessCount === undefined ? specDesign(spec) : selectBalancedSubset(specDesign(spec), m.harnessCount);
}

/** The random-k training set of run seed `seed`: design.k configurations, a fresh seeded draw per run seed. */
function randomKDesign(spec: ExperimentSpec, seed: number): DesignReport {
  return selectTraining(undefined, {
    method: 'random',
    k: spec.design.k,
    seed: Rng.derive(spec.design.seed, 'random-k', seed).int(2 ** 31),
  });
}

/** One (seed, method) run of a call, in the runner's order (seeds outer, methods inner). */
export interface PlannedRun {
  seed: number;
  method: MethodSpec;
  /** RL steps the run takes: `steps`, or 0 for a method without training harnesses or an 'sft' method (its SFT phase only). */
  rlSteps: number;
  /** Its progress units: one per RL step, per evaluation (`evalUnits`: before and after) and for its SFT phase. */
  units: number;
}

/**
 * The call's runs with their RL steps and progress units (the runner's plan; the app's progress
 * and ETA count the same units).
 * @param steps RL steps of a training run (spec.rl.steps unless overridden)
 * @param evalUnits evaluations per run (2: before and after)
 */
export function plannedRuns(spec: ExperimentSpec, steps: number, evalUnits = 2): PlannedRun[] {
  return spec.seeds.flatMap((seed) =>
    spec.methods.map((method) => {
      const rlSteps = method.algorithm !== 'sft' && trainingHarnesses(spec, method, seed).length > 0 ? steps : 0;
      return { seed, method, rlSteps, units: rlSteps + evalUnits + (method.sft ? 1 : 0) };
    }),
  );
}

/**
 * The training harness ids of a method (empty for 'none'): the harnesses its run updates the
 * policy through, by RL or by its in-run SFT phase (MethodSpec.sft).
 * @param seed the run seed: random-k draws its k configurations per seed; no other strategy reads it
 */
export function trainingHarnesses(spec: ExperimentSpec, m: MethodSpec, seed: number): string[] {
  switch (m.harnesses) {
    case 'single':
      return [BASE_HARNESS];
    case 'blackbox':
      return [m.blackbox!];
    case 'none':
      return [];
    default:
      return methodDesign(spec, m, seed).training;
  }
}

/**
 * The suite as the spec sees it: only the families of spec.families (all when absent). taskSet
 * balances over the families it is given, so a filtered suite draws only (and evenly) from those.
 */
function specSuite(spec: ExperimentSpec, suite: SuiteName): TaskSuite {
  const s = getSuite(suite);
  if (!spec.families) return s;
  return { ...s, families: s.families.filter((f) => spec.families!.includes(`${suite}/${f.name}`)) };
}

/**
 * `n` task ids of `suite`/`split` with tier ≤ spec.maxTier, of spec.families. taskSet is balanced
 * over family × tier in every prefix, so drawing 3n and keeping the first n of allowed tiers stays
 * balanced over families × allowed tiers; with maxTier 3 and every family it is exactly taskSet's
 * first n (unchanged ids).
 */
function tasksUpTo(spec: ExperimentSpec, suite: SuiteName, split: 'train' | 'test', n: number, seed: number): string[] {
  const s = specSuite(spec, suite);
  if (spec.maxTier >= 3) return taskSet(s, split, n, seed).map((t) => t.id);
  return taskSet(s, split, 3 * n, seed)
    .filter((t) => t.tier <= spec.maxTier)
    .slice(0, n)
    .map((t) => t.id);
}

/**
 * One warning per method whose training set shares configurations (other than the base harness)
 * with the base checkpoint's pretraining mix: RL through them starts from demonstrations, which
 * a reader of e.g. the selection ablation (random-18 may draw mix configurations) must know.
 * @param mixIds the recorded mix's harness ids (src/pretrain/mix.ts `pretrainMixOf`)
 */
export function mixOverlapWarnings(spec: ExperimentSpec, mixIds: readonly string[]): string[] {
  const mix = new Set(mixIds);
  const out: string[] = [];
  for (const m of spec.methods) {
    if (m.harnesses === 'none') continue;
    const seen = [...new Set(spec.seeds.flatMap((seed) => trainingHarnesses(spec, m, seed)))].filter(
      (h) => h !== BASE_HARNESS && mix.has(h),
    );
    if (seen.length > 0)
      out.push(
        `method '${m.name}': ${seen.length} of its training configurations were in the base checkpoint's pretraining mix (${seen.join(', ')}); RL through them starts from demonstrations`,
      );
  }
  return out;
}

/** Train-task ids of a run: `perSuite` (default spec.rl.trainTasks, else TRAIN_POOL_PER_SUITE) per suite, balanced over families (spec.families) × tiers ≤ spec.maxTier. */
export function trainPool(spec: ExperimentSpec, seed: number, perSuite = spec.rl.trainTasks ?? TRAIN_POOL_PER_SUITE): string[] {
  return spec.suites.flatMap((s) => tasksUpTo(spec, s, 'train', perSuite, Rng.derive(seed, 'train-pool', s).int(2 ** 31)));
}

/** Test-task ids: spec.evaluation.testTasks per suite from the test seed range, tiers ≤ spec.maxTier, of spec.families (the same for every method of a seed). */
export function testTasks(spec: ExperimentSpec, seed: number): string[] {
  return spec.suites.flatMap((s) => tasksUpTo(spec, s, 'test', spec.evaluation.testTasks, Rng.derive(seed, 'test-tasks', s).int(2 ** 31)));
}

/** The task seed of a task id 'suite/family/tN/seed'. */
const taskSeedOf = (id: string): number => Number(id.slice(id.lastIndexOf('/') + 1));

/**
 * The validation split of a run (spec.evaluation.validation): `n` task ids per suite from the
 * *train* seed range (so never a test task), tiers ≤ spec.maxTier, balanced over families × tiers
 * as the pool is, drawn with Rng.derive(seed, 'validation-tasks', suite) — and disjoint from the
 * RL train-task pool by construction: a candidate whose task seed any pool task uses (in any
 * family or suite) is skipped. The same for every method of a seed, so their curves compare.
 * @param pool the run's full train-task pool (trainPool, before infeasible cells are dropped)
 * @returns n ids per suite (fewer only if the train range ran out of candidates, which 3·(n + |pool|) draws make practically impossible)
 */
export function validationTasks(spec: ExperimentSpec, seed: number, pool: readonly string[], n: number): string[] {
  const used = new Set(pool.map(taskSeedOf));
  // taskSet balances every prefix; 3× covers the tier filter (as tasksUpTo), + |pool| the skipped seeds.
  return spec.suites.flatMap((s) =>
    taskSet(specSuite(spec, s), 'train', 3 * (n + pool.length), Rng.derive(seed, 'validation-tasks', s).int(2 ** 31))
      .filter((t) => t.tier <= spec.maxTier && !used.has(t.seed))
      .slice(0, n)
      .map((t) => t.id),
  );
}

/**
 * The (task, harness) cells of a method's validation: each validation task under its *anchor*
 * harness — the first of the K that taskAssignments gives it, a uniform seeded draw from the
 * method's training set (design/assignment.ts) — so the split measures the training distribution
 * (the harnesses RL trains through, one per task) with the same assignment code as the pool;
 * single harness: the base harness; black-box: its black-box harness. A task whose anchor cell
 * is infeasible (`excluded`) is left out rather than moved to another harness, so only anchor
 * cells need a feasibility check (feasibility.ts specCells).
 */
export function validationCells(
  spec: ExperimentSpec,
  m: MethodSpec,
  tasks: readonly string[],
  seed: number,
  excluded: ReadonlySet<string> = new Set(),
): Array<{ taskId: string; harnessId: string }> {
  return taskAssignments(spec, m, tasks, seed)
    .map((a) => ({ taskId: String(a.task), harnessId: a.harnesses[0] }))
    .filter((c) => !excluded.has(cellKey(c.taskId, c.harnessId)));
}

/**
 * Each task's K harnesses (anchor first).
 * @throws Error naming K when it exceeds the training-set size.
 */
export function taskAssignments(spec: ExperimentSpec, m: MethodSpec, pool: readonly string[], seed: number): TaskAssignment[] {
  const training = trainingHarnesses(spec, m, seed);
  if (m.harnesses === 'single' || m.harnesses === 'blackbox' || m.harnesses === 'none') {
    return pool.map((task) => ({ task, harnesses: training.length ? [training[0]] : [BASE_HARNESS], distances: [0] }));
  }
  if (m.K > training.length) throw new Error(`spec.methods['${m.name}'].K = ${m.K} exceeds the training-set size ${training.length}`);
  return assignHarnesses({
    training,
    K: m.K,
    tasks: pool,
    strategy: m.harnesses === 'random-assignment' ? 'random' : 'locality',
    seed: spec.design.seed,
  });
}

/** The key of a (task, harness) cell in exclusion sets. */
export const cellKey = (taskId: string, harnessId: string): string => `${taskId}\u0000${harnessId}`;

/**
 * Assignments without the excluded (task, harness) cells (feasibility.ts `excludedCells`): each
 * task keeps its other harnesses in order (the anchor may go; the next one leads), and a task
 * left with none leaves the pool.
 * @param excluded cellKey(task, harness) of every cell to drop
 * @returns the kept assignments, the kept pool (in pool order) and the dropped (task, harness) count
 */
export function withoutCells(
  assignments: readonly TaskAssignment[],
  excluded: ReadonlySet<string>,
): { assignments: TaskAssignment[]; pool: string[]; dropped: number } {
  let dropped = 0;
  const kept: TaskAssignment[] = [];
  for (const a of assignments) {
    const idx = a.harnesses.map((h, i) => (excluded.has(cellKey(String(a.task), h)) ? -1 : i)).filter((i) => i >= 0);
    dropped += a.harnesses.length - idx.length;
    if (idx.length) kept.push({ task: a.task, harnesses: idx.map((i) => a.harnesses[i]), distances: idx.map((i) => a.distances[i]) });
  }
  return { assignments: kept, pool: kept.map((a) => String(a.task)), dropped };
}

/** The schedule of a run (from checkpointed state on resume). */
export function makeSchedule(assignments: readonly TaskAssignment[], state?: RoundRobinState): RoundRobinSchedule {
  return new RoundRobinSchedule(assignments, state);
}

/**
 * The train tasks of RL step `step` (1-based), by an epoch sampler: the run's draws form one
 * stream, draw i = (step − 1)·tasksPerStep + j (j < tasksPerStep) is position i mod |pool| of
 * epoch ⌊i / |pool|⌋, whose order is Rng.derive(seed, 'rl-epoch', epoch).shuffle(pool). Each
 * task is drawn once per epoch, so after S steps every task has ⌊S·tasksPerStep/|pool|⌋ or one
 * more draws (and sees that many of its K harnesses, up to K). A step that straddles an epoch
 * boundary can hold a task twice (two groups, the next harnesses of its round robin).
 * @returns tasksPerStep ids of `pool`
 * @throws Error on an empty pool
 */
export function stepTasks(pool: readonly string[], tasksPerStep: number, seed: number, step: number): string[] {
  if (pool.length === 0) throw new Error('stepTasks: empty train-task pool');
  const orders = new Map<number, string[]>();
  const first = (step - 1) * tasksPerStep;
  return Array.from({ length: tasksPerStep }, (_, j) => {
    const epoch = Math.floor((first + j) / pool.length);
    let order = orders.get(epoch);
    if (!order) orders.set(epoch, (order = Rng.derive(seed, 'rl-epoch', epoch).shuffle([...pool])));
    return order[(first + j) % pool.length];
  });
}

/**
 * Draws per pool task over a whole run (stepTasks over steps 1…steps): what the schedule gives
 * each task, for coverage reports (scripts/schedule_coverage.ts, results).
 * @returns task id → draws (tasks never drawn are absent)
 */
function drawCounts(pool: readonly string[], tasksPerStep: number, seed: number, steps: number): Map<string, number> {
  const draws = new Map<string, number>();
  for (let step = 1; step <= steps; step++)
    for (const t of stepTasks(pool, tasksPerStep, seed, step)) draws.set(t, (draws.get(t) ?? 0) + 1);
  return draws;
}

/** How many of the design's held-out configurations each exclusion of the in-space set removed. */
interface InSpaceExclusions {
  /** Held-out configurations some method of the spec trains on. */
  trainingSets: number;
  /** Of the rest, those in the base checkpoint's pretraining mix (src/pretrain/mix.ts). */
  pretrainMix: number;
  /** What the mix exclusion was based on, e.g. "mix 'base:1' (11 harnesses)" or "no mix recorded". */
  mix: string;
}

/**
 * The held-out in-space configurations evaluated, and how they were chosen (stated in results):
 * the spec design's held-out configurations minus every configuration *any* method of the spec
 * trains on (random-k trains on its own draw, which can lie in the design's held-out set), then
 * minus every configuration the base checkpoint's demonstrations were rendered under (its
 * pretraining mix), so all methods are scored on the same configurations and none of them was
 * trained or pretrained on; then all of them, or a seeded sample stratified by Hamming distance
 * to the design's training set. A configuration in both is counted under the training sets.
 * @param mix the pretraining mix's harness ids (empty: none recorded)
 * @param mixLabel how the mix is named in the description (src/pretrain/mix.ts `describeMix`)
 */
export function inSpaceEvalSet(
  spec: ExperimentSpec,
  mix: readonly string[] = [],
  mixLabel = 'no mix recorded',
): { ids: string[]; description: string; excluded: InSpaceExclusions } {
  const d = specDesign(spec);
  const trained = new Set(spec.methods.flatMap((m) => spec.seeds.flatMap((seed) => trainingHarnesses(spec, m, seed))));
  const mixed = new Set(mix);
  const untrained = d.heldOut.filter((h) => !trained.has(h.id));
  const pool = untrained.filter((h) => !mixed.has(h.id));
  const excluded: InSpaceExclusions = {
    trainingSets: d.heldOut.length - untrained.length,
    pretrainMix: untrained.length - pool.length,
    mix: mixLabel,
  };
  const why =
    `; left out: ${excluded.trainingSets} held-out configurations a method trains on, ` +
    `${excluded.pretrainMix} in the base checkpoint's pretraining mix (${mixLabel})`;
  const mode = spec.evaluation.inSpace;
  if (mode.mode === 'all')
    return {
      ids: pool.map((h) => h.id),
      description: `all ${pool.length} held-out configurations of the ${d.method} design${why}`,
      excluded,
    };
  const toBase = mode.by === 'base';
  const byDist = new Map<number, string[]>();
  for (const h of pool) {
    const dist = toBase ? hammingDistance(h.id, BASE_HARNESS) : h.distance;
    byDist.set(dist, [...(byDist.get(dist) ?? []), h.id]);
  }
  const ids: string[] = [];
  const parts: string[] = [];
  // The 'training' stream keeps the draws of specs written before `by` existed.
  const stream = toBase ? 'in-space-base' : 'in-space';
  for (const dist of [...byDist.keys()].sort((a, b) => a - b)) {
    const pick = Rng.derive(mode.seed, stream, dist).shuffle(byDist.get(dist)!).slice(0, mode.perDistance);
    ids.push(...pick);
    parts.push(`${toBase ? 'base d' : 'd'}=${dist}: ${pick.length}/${byDist.get(dist)!.length}`);
  }
  const to = toBase ? 'the base harness' : `the ${d.method} training set`;
  return {
    ids,
    description: `stratified by Hamming distance to ${to}, ${mode.perDistance} per distance, seed ${mode.seed} (${ids.length} configs; ${parts.join(', ')})${tasksNote(spec)}${why}`,
    excluded,
  };
}

/**
 * The distance the spec's in-space set is stratified by, one meaning per experiment: Hamming
 * distance to the base harness (`evaluation.inSpace.by: 'base'`) or to the nearest
 * configuration of the design's training set (otherwise, as inSpaceEvalSet and selectTraining
 * define it). `to` names the reference for labels ("base harness", "OA training set").
 * @returns `of(id)`: an integer in 0…5 for a harness id of DEFAULT_SPACE; throws on an id that is not one
 */
export function inSpaceDistance(spec: ExperimentSpec): { to: string; of: (harnessId: string) => number } {
  const mode = spec.evaluation.inSpace;
  if (mode.mode === 'stratified' && mode.by === 'base') return { to: 'base harness', of: (h) => hammingDistance(h, BASE_HARNESS) };
  const d = specDesign(spec);
  return {
    to: `${d.method === 'oa' ? 'OA' : d.method} training set`,
    of: (h) => Math.min(...d.training.map((t) => hammingDistance(h, t))),
  };
}

/** How many test tasks each in-space configuration is evaluated on, for the set's description. */
function tasksNote(spec: ExperimentSpec): string {
  const n = spec.evaluation.inSpace.tasksPerConfig;
  return n === undefined || n >= spec.evaluation.testTasks
    ? ''
    : `, ${n} of the ${spec.evaluation.testTasks} test tasks per suite each (a rotation)`;
}

/**
 * The test tasks each in-space configuration is evaluated on when spec.evaluation.inSpace
 * .tasksPerConfig = m is below testTasks = n: configuration c (its index in `ids`) takes, in every
 * suite, the m tasks at positions (c·m + j) mod n of that suite's test tasks — a rotation, so the
 * configurations together use every test task about equally often (C·m/n times each) and each
 * window keeps testTasks' balance over families. Absent (null): every configuration gets every test task.
 * @param tests the seed's test tasks (testTasks: n per suite, suite after suite)
 */
export function inSpaceTasks(spec: ExperimentSpec, tests: readonly string[], ids: readonly string[]): Map<string, string[]> | null {
  const m = spec.evaluation.inSpace.tasksPerConfig;
  const n = spec.evaluation.testTasks;
  if (m === undefined || m >= n) return null;
  const bySuite = spec.suites.map((s) => tests.filter((t) => t.startsWith(`${s}/`)));
  return new Map(
    ids.map((h, c) => [
      h,
      bySuite.flatMap((ts) => (ts.length ? Array.from({ length: Math.min(m, ts.length) }, (_, j) => ts[(c * m + j) % ts.length]) : [])),
    ]),
  );
}

/**
 * Constraints between fields of a spec that the schema (each field alone) cannot see, checked
 * before any browser or GPU work starts: K within the training-set size, the action budget
 * inside the context budget and the models' context. One line per problem, `path: what is wrong`;
 * empty when the spec is consistent.
 */
export function specConsistencyIssues(spec: ExperimentSpec): string[] {
  const issues: string[] = [];
  let size: number | undefined;
  const sizeOf = () => (size ??= specDesign(spec).training.length);
  spec.methods.forEach((m, i) => {
    const where = `spec.methods[${i}]`;
    if (m.harnesses === 'scaling' || m.harnesses === 'random-assignment' || m.harnesses === 'random-k') {
      const full = m.harnesses === 'random-k' ? spec.design.k : sizeOf();
      const from =
        m.harnesses === 'random-k' || spec.design.method === 'random'
          ? `design.k = ${spec.design.k} random configurations`
          : 'the orthogonal-array design';
      if (m.harnessCount !== undefined && m.harnessCount > full)
        issues.push(`${where}.harnessCount: ${m.harnessCount} exceeds the training-set size ${full} (${from}); it must be in 1..${full}`);
      const n = Math.min(full, m.harnessCount ?? full);
      if (m.K > n)
        issues.push(
          `${where}.K: ${m.K} exceeds the training-set size ${n} (${m.harnessCount !== undefined ? `harnessCount of ${from}` : from}); K must be in 1..${n}`,
        );
    }
    if (spec.rl.dynamicSampling && m.algorithm === 'ppo')
      issues.push(
        `spec.rl.dynamicSampling: applies to GRPO groups; ${where} ('${m.name}') uses PPO, whose value baseline learns from all-equal groups too`,
      );
    if (m.blackbox !== undefined && m.harnesses !== 'blackbox')
      issues.push(`${where}.blackbox: '${m.blackbox}' is only used with harnesses 'blackbox', got harnesses '${m.harnesses}'`);
    const preset = m.modelPreset ?? spec.model.preset;
    const maxT = presetConfig(preset, 1).maxT;
    if (spec.rollout.maxNewTokens >= maxT)
      issues.push(
        `spec.rollout.maxNewTokens: ${spec.rollout.maxNewTokens} must be below the context length maxT = ${maxT} of model '${preset}'`,
      );
  });
  if (spec.rollout.maxNewTokens >= spec.rollout.contextTokens) {
    issues.push(
      `spec.rollout.maxNewTokens: ${spec.rollout.maxNewTokens} must be below spec.rollout.contextTokens = ${spec.rollout.contextTokens}`,
    );
  }
  return [...new Set(issues)];
}

/** `specConsistencyIssues` as an exception. @throws SpecError listing every problem. */
export function checkSpecConsistency(spec: ExperimentSpec, source = 'spec'): ExperimentSpec {
  const issues = specConsistencyIssues(spec);
  if (issues.length) throw new SpecError(source, issues);
  return spec;
}

/** How much of its K harnesses per task a method's schedule uses (scheduleCoverage). */
export interface ScheduleCoverage {
  method: string;
  K: number;
  /** Pool tasks, and those drawn at least once. */
  pool: number;
  drawn: number;
  /** Share of drawn tasks drawn at least K times (so trained under all K of their harnesses). */
  fullK: number;
  /** Mean distinct harnesses a drawn task trains under: mean of min(draws, K). */
  distinct: number;
  /** Share of draws that use a harness other than the task's anchor. */
  offAnchor: number;
}

/**
 * The schedule coverage of every training method of `spec` for run seed `seed`: draws per task
 * from stepTasks over rl.steps, each task's harnesses from its K (round robin), before infeasible
 * cells are removed (they need the tokenizer; the runner drops a handful). Counts only.
 */
export function scheduleCoverage(spec: ExperimentSpec, seed: number): ScheduleCoverage[] {
  const pool = trainPool(spec, seed);
  const draws = [...drawCounts(pool, spec.rl.tasksPerStep, seed, spec.rl.steps).values()];
  const total = draws.reduce((a, b) => a + b, 0);
  return spec.methods
    .filter((m) => m.algorithm !== 'sft' && m.harnesses !== 'none')
    .map((m) => {
      const K = m.harnesses === 'single' || m.harnesses === 'blackbox' ? 1 : m.K;
      return {
        method: m.name,
        K,
        pool: pool.length,
        drawn: draws.length,
        fullK: draws.filter((d) => d >= K).length / draws.length,
        distinct: draws.reduce((a, d) => a + Math.min(d, K), 0) / draws.length,
        offAnchor: draws.reduce((a, d) => a + d - Math.ceil(d / K), 0) / total,
      };
    });
}
