/**
 * Evaluation (docs/ARCHITECTURE.md "Experiments, evaluation and results"): pass@1 = mean verifier pass over test tasks × samples, under the
 * base harness, the held-out in-space set, each black-box harness and the method's training
 * harnesses, with behaviour metrics and a per-harness breakdown. All (task, harness, sample)
 * episodes of one evaluation advance together in one rollout batch.
 *
 * Sampling: samples = 1 → greedy decoding (τ = 0, one episode per task); samples > 1 →
 * τ = spec.evaluation.temperature (not the rollouts' rl.temperature) with a per-sample seed.
 *
 * Two rollout batches: the shared batch (base harness, in-space set, black-box harnesses — the
 * same for every method of a seed) and the method's batch (its training harnesses not in the
 * shared one). Each batch has its own seed and episodes sample by their position in their batch,
 * so neither batch's outcomes depend on the method: the runner evaluates each once per starting
 * point and reuses it — the shared batch in every method of a seed, the method's batch in methods
 * with the same training harnesses (runner.ts evaluateBefore, before_reuse.ts).
 */
import { cellKey } from './plan';
import type { EpisodeOutcomeCell } from '../report/stats';
import { BASE_HARNESS } from '../design';
import type { Tokenizer } from '../model/tokenizer';
import { runEpisodes, type EnvHost, type EpisodeRequest, type Policy } from '../rollout/rollout';
import type { RolloutStats } from '../rollout/trajectory';
import type { BehaviourMetrics, PassAt1 } from '../report/results_schema';
import type { BehaviourTags } from '../harness/types';
import { Rng } from '../util/rng';

export interface EvalSets {
  testTasks: string[];
  inSpace: string[];
  /** Harness id → the test tasks evaluated under it, where not every test task (the in-space rotation, plan.ts inSpaceTasks). */
  cellTasks?: ReadonlyMap<string, readonly string[]>;
  blackbox: string[];
  training: string[];
  /** cellKey(task, harness) of (task, harness) cells not to evaluate (infeasible under the run's budgets). */
  excluded?: ReadonlySet<string>;
}

interface EvalOptions {
  tok: Tokenizer;
  policy: Policy;
  env: EnvHost;
  /** Tool-call turns per episode; the env host's cap adds the harness's workflow turns (harness/turn_budget.ts `turnCap`). */
  maxTurns: number;
  maxNewTokens: number;
  /** Context budget in tokens (capped at the policy's maxT). */
  contextTokens?: number;
  samples: number;
  temperature: number;
  seed: number;
  /** Episodes finished / total, after every rollout round (progress displays). */
  onProgress?: (done: number, total: number) => void;
}

export interface EvalResult {
  passAt1: PassAt1;
  /** pass@1 over the training harnesses (equal weight per episode). */
  training: number;
  behaviour: BehaviourMetrics;
  /** Harness id → pass@1. */
  perHarness: Record<string, number>;
  episodes: number;
  /**
   * Every episode by results column ('base', 'inSpace', 'train', each black-box id): its (task,
   * harness, sample) cell, pass and score — for Wilson intervals and paired before→after tests
   * (results.ts RunEpisodes). An episode under the base harness that is also a training harness
   * sits in both columns. Absent in evaluations restored from checkpoints older than it.
   */
  cells?: Record<string, EpisodeOutcomeCell[]>;
  /** Rollout counters of the batches this evaluation ran (a reused batch is not counted again). */
  stats: RolloutStats;
  /**
   * Set by the runner when the shared batch was not run here but reused from run (method, seed)
   * of the same call: same starting parameters, tasks, harnesses, samples and seeds
   * (before_reuse.ts); `episodes` is its episode count. Absent when every episode ran here.
   */
  reusedFrom?: { method: string; seed: number; episodes: number };
  /** The same for the method's batch (its training harnesses outside the shared one), reused from a method with the same training harnesses. */
  trainReusedFrom?: { method: string; seed: number; episodes: number };
}

/** A batch an identical evaluation of the same policy ran earlier, by its key (before_reuse.ts); undefined when none did. */
export type BatchLookup = (key: string) => EvalBatch | undefined;

/**
 * The episodes of one rollout batch of an evaluation, in request order: outcome cell and
 * behaviour tags of each, and the batch's rollout counters (no token data: a shared batch is
 * kept for reuse).
 */
export interface EvalBatch {
  /** What the batch evaluated (batchKey): harnesses, tasks, exclusions, samples, τ, seed, budgets. */
  key: string;
  outcomes: EpisodeOutcomeCell[];
  tags: (BehaviourTags | null)[];
  stats: RolloutStats;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Harnesses of the shared batch, in order: base, the in-space set, the black-box harnesses. */
const sharedHarnesses = (sets: EvalSets): string[] => [...new Set([BASE_HARNESS, ...sets.inSpace, ...sets.blackbox])];

/** The episode requests of `harnesses` × test tasks × samples, excluded cells left out (harness-major). */
function requests(harnesses: readonly string[], sets: EvalSets, samples: number): EpisodeRequest[] {
  const reqs: EpisodeRequest[] = [];
  for (const h of harnesses)
    for (const t of sets.cellTasks?.get(h) ?? sets.testTasks) {
      if (sets.excluded?.has(cellKey(t, h))) continue;
      for (let s = 0; s < samples; s++) reqs.push({ taskId: t, harnessId: h, group: reqs.length });
    }
  return reqs;
}

/** How large one evaluation of `sets` is. */
export interface EvalSize {
  /** Episodes rolled out: harnesses × their test tasks × samples, infeasible cells left out. */
  episodes: number;
  /** Harness columns evaluated (base, in-space, black-box and the training harnesses, each once). */
  harnesses: number;
  /** Test tasks per harness (before the in-space rotation and infeasible cells). */
  tasks: number;
}

/**
 * The size of one evaluation of `sets` with `samples` samples per cell: exactly what `evaluate`
 * rolls out when nothing is reused (the shared batch plus the method's own harnesses).
 */
export function evalSize(sets: EvalSets, samples: number): EvalSize {
  const harnesses = [...new Set([...sharedHarnesses(sets), ...sets.training])];
  return { episodes: requests(harnesses, sets, samples).length, harnesses: harnesses.length, tasks: sets.testTasks.length };
}

/** Sampling temperature of an evaluation: greedy for one sample. */
const evalTemperature = (o: EvalOptions) => (o.samples === 1 ? 0 : o.temperature);

/** Everything besides the policy that a batch's outcomes depend on, as one string. */
function batchKey(label: string, reqs: readonly EpisodeRequest[], o: EvalOptions): string {
  const cells = reqs.map((r) => `${r.taskId}|${r.harnessId}`);
  const { maxTurns, maxNewTokens, contextTokens, samples, seed } = o;
  return JSON.stringify({
    label,
    cells,
    samples,
    temperature: evalTemperature(o),
    seed,
    maxTurns,
    maxNewTokens,
    contextTokens: contextTokens ?? null,
  });
}

/** Roll out one batch; `offset`/`total` place its progress within the whole evaluation. */
async function runBatch(label: string, reqs: EpisodeRequest[], o: EvalOptions, offset: number, total: number): Promise<EvalBatch> {
  const { trajectories, stats } = await runEpisodes(reqs, {
    tok: o.tok,
    policy: o.policy,
    env: o.env,
    maxTurns: o.maxTurns,
    maxNewTokens: o.maxNewTokens,
    contextTokens: o.contextTokens,
    temperature: evalTemperature(o),
    // The shared batch keeps the seed of the single-batch evaluation; the method's batch derives its own.
    seed: (label === 'shared' ? Rng.derive(o.seed, 'eval') : Rng.derive(o.seed, 'eval', label)).int(2 ** 31),
    onProgress: o.onProgress && ((done) => o.onProgress!(offset + done, total)),
  });
  return {
    key: batchKey(label, reqs, o),
    outcomes: trajectories.map((t, i) => ({
      taskId: t.taskId,
      harnessId: t.harnessId,
      sample: i % o.samples,
      pass: t.pass,
      score: t.score,
    })),
    tags: trajectories.map((t) => t.tags),
    stats,
  };
}

/** Counters of batches added field by field. */
function addStats(a: RolloutStats, b: RolloutStats): RolloutStats {
  return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v + b[k as keyof RolloutStats]])) as unknown as RolloutStats;
}

/**
 * Run the evaluation episodes and summarize them (module doc: the shared batch, then the
 * method's). A batch `reuse` finds by its key is not run again: it is an identical evaluation's
 * of the same policy (the caller proves the policy is the same; the key proves the rest).
 * @returns the evaluation, its shared batch and its method's batch (null when every training harness is in the shared one), run or reused
 * @throws Error when there are no test tasks, samples < 1, or `reuse` returns a batch of another key.
 */
export async function evaluate(
  sets: EvalSets,
  o: EvalOptions,
  reuse?: BatchLookup,
): Promise<{ result: EvalResult; shared: EvalBatch; own: EvalBatch | null }> {
  if (sets.testTasks.length === 0) throw new Error('evaluate: no test tasks');
  if (!Number.isInteger(o.samples) || o.samples < 1) throw new Error(`evaluate: samples must be an integer ≥ 1, got ${o.samples}`);
  const sharedIds = sharedHarnesses(sets);
  const own = sets.training.filter((h) => !sharedIds.includes(h));
  const sharedReqs = requests(sharedIds, sets, o.samples);
  const ownReqs = requests([...new Set(own)], sets, o.samples);
  const found = (label: string, reqs: readonly EpisodeRequest[]) => {
    const key = batchKey(label, reqs, o);
    const b = reqs.length ? reuse?.(key) : undefined;
    if (b && b.key !== key)
      throw new Error(`evaluate: the reused ${label} batch is of another evaluation (harnesses, tasks, samples or seeds differ)`);
    return b;
  };
  const [sharedFound, ownFound] = [found('shared', sharedReqs), found('train', ownReqs)];
  const total = (sharedFound ? 0 : sharedReqs.length) + (ownFound ? 0 : ownReqs.length);
  const s = sharedFound ?? (await runBatch('shared', sharedReqs, o, 0, total));
  const m = ownReqs.length ? (ownFound ?? (await runBatch('train', ownReqs, o, sharedFound ? 0 : sharedReqs.length, total))) : null;
  const zero = Object.fromEntries(Object.keys(s.stats).map((k) => [k, 0])) as unknown as RolloutStats;
  const ran = [...(sharedFound ? [] : [s]), ...(m && !ownFound ? [m] : [])];
  const stats = ran.map((b) => b.stats).reduce(addStats, zero);
  return { result: summarize(sets, [...sharedIds, ...new Set(own)], [s, ...(m ? [m] : [])], stats), shared: s, own: m };
}

/** pass@1, behaviour and per-episode cells of an evaluation's batches. */
function summarize(sets: EvalSets, harnesses: readonly string[], batches: readonly EvalBatch[], stats: RolloutStats): EvalResult {
  const outcome = batches.flatMap((b) => b.outcomes);
  const tags = batches.flatMap((b) => b.tags);
  // pass@1 counts verifier passes (the reward of an evaluation episode is its pass, whatever rl.reward is).
  const passes = (ids: readonly string[]) => mean(outcome.filter((c) => ids.includes(c.harnessId)).map((c) => (c.pass ? 1 : 0)));
  const perHarness: Record<string, number> = {};
  for (const h of harnesses) perHarness[h] = passes([h]);
  const column = (ids: readonly string[]) => outcome.filter((c) => ids.includes(c.harnessId));
  const cells: Record<string, EpisodeOutcomeCell[]> = { base: column([BASE_HARNESS]), train: column(sets.training) };
  if (sets.inSpace.length) cells.inSpace = column(sets.inSpace);
  for (const b of sets.blackbox) cells[b] = column([b]);
  const withIssue = tags.filter((t) => t && t.recovered !== null);
  return {
    passAt1: {
      base: perHarness[BASE_HARNESS],
      inSpace: sets.inSpace.length ? passes(sets.inSpace) : NaN,
      blackbox: Object.fromEntries(sets.blackbox.map((b) => [b, perHarness[b]])),
    },
    training: sets.training.length ? passes(sets.training) : NaN,
    behaviour: {
      parseErrors: mean(tags.map((t) => t?.parseErrors ?? 0)),
      workflowViolations: mean(tags.map((t) => t?.workflowViolations ?? 0)),
      // No episode had anything to recover from: the rate is undefined (NaN → "—"), not 0.
      recoveryRate: withIssue.length ? withIssue.filter((t) => t!.recovered).length / withIssue.length : NaN,
      stateTrackingErrors: mean(tags.map((t) => t?.stateTrackingErrors ?? 0)),
    },
    perHarness,
    episodes: outcome.length,
    cells,
    stats,
  };
}
