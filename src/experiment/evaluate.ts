/**
 * Evaluation (docs/ARCHITECTURE.md "Experiments, evaluation and results"): pass@1 = mean verifier pass over test tasks × samples, under the
 * base harness, the held-out in-space set, each black-box harness and the method's training
 * harnesses, with behaviour metrics and a per-harness breakdown. All (task, harness, sample)
 * episodes of one evaluation advance together in one rollout batch.
 *
 * Sampling: samples = 1 → greedy decoding (τ = 0, one episode per task); samples > 1 →
 * τ = spec.evaluation.temperature (not the rollouts' rl.temperature) with a per-sample seed.
 */
import { cellKey } from './plan';
import type { EpisodeOutcomeCell } from './stats';
import { BASE_HARNESS } from '../design';
import type { Tokenizer } from '../model/tokenizer';
import { runEpisodes, type EnvHost, type EpisodeRequest, type Policy, type RolloutStats } from '../rollout/engine';
import type { BehaviourMetrics, PassAt1 } from './results_file';
import { Rng } from '../util/rng';

export interface EvalSets {
  testTasks: string[];
  inSpace: string[];
  blackbox: string[];
  training: string[];
  /** cellKey(task, harness) of (task, harness) cells not to evaluate (infeasible under the run's budgets). */
  excluded?: ReadonlySet<string>;
}

export interface EvalOptions {
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
  stats: RolloutStats;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/**
 * Run the evaluation episodes and summarize them.
 * @throws Error when there are no test tasks or samples < 1.
 */
export async function evaluate(sets: EvalSets, o: EvalOptions): Promise<EvalResult> {
  if (sets.testTasks.length === 0) throw new Error('evaluate: no test tasks');
  if (!Number.isInteger(o.samples) || o.samples < 1) throw new Error(`evaluate: samples must be an integer ≥ 1, got ${o.samples}`);
  const harnesses = [...new Set([BASE_HARNESS, ...sets.inSpace, ...sets.blackbox, ...sets.training])];
  const reqs: EpisodeRequest[] = [];
  for (const h of harnesses) {
    for (const t of sets.testTasks) {
      if (sets.excluded?.has(cellKey(t, h))) continue;
      for (let s = 0; s < o.samples; s++) reqs.push({ taskId: t, harnessId: h, group: reqs.length });
    }
  }
  const temperature = o.samples === 1 ? 0 : o.temperature;
  const { trajectories, stats } = await runEpisodes(reqs, {
    tok: o.tok,
    policy: o.policy,
    env: o.env,
    maxTurns: o.maxTurns,
    maxNewTokens: o.maxNewTokens,
    contextTokens: o.contextTokens,
    temperature,
    seed: Rng.derive(o.seed, 'eval').int(2 ** 31),
    onProgress: o.onProgress,
  });
  const perHarness: Record<string, number> = {};
  // pass@1 counts verifier passes (the reward of an evaluation episode is its pass, whatever rl.reward is).
  const passOf = (t: (typeof trajectories)[number]) => (t.pass ? 1 : 0);
  for (const h of harnesses) perHarness[h] = mean(trajectories.filter((t) => t.harnessId === h).map(passOf));
  const over = (ids: string[]) => mean(trajectories.filter((t) => ids.includes(t.harnessId)).map(passOf));
  const outcome = trajectories.map((t, i): EpisodeOutcomeCell => ({ taskId: t.taskId, harnessId: t.harnessId, sample: i % o.samples, pass: t.pass, score: t.score }));
  const column = (ids: readonly string[]) => outcome.filter((c) => ids.includes(c.harnessId));
  const cells: Record<string, EpisodeOutcomeCell[]> = { base: column([BASE_HARNESS]), train: column(sets.training) };
  if (sets.inSpace.length) cells.inSpace = column(sets.inSpace);
  for (const b of sets.blackbox) cells[b] = column([b]);
  const tags = trajectories.map((t) => t.tags);
  const withIssue = tags.filter((t) => t && t.recovered !== null);
  return {
    passAt1: {
      base: perHarness[BASE_HARNESS],
      inSpace: sets.inSpace.length ? over(sets.inSpace) : NaN,
      blackbox: Object.fromEntries(sets.blackbox.map((b) => [b, perHarness[b]])),
    },
    training: sets.training.length ? over(sets.training) : NaN,
    behaviour: {
      parseErrors: mean(tags.map((t) => t?.parseErrors ?? 0)),
      workflowViolations: mean(tags.map((t) => t?.workflowViolations ?? 0)),
      // No episode had anything to recover from: the rate is undefined (NaN → "—"), not 0.
      recoveryRate: withIssue.length ? withIssue.filter((t) => t!.recovered).length / withIssue.length : NaN,
      stateTrackingErrors: mean(tags.map((t) => t?.stateTrackingErrors ?? 0)),
    },
    perHarness,
    episodes: trajectories.length,
    cells,
    stats,
  };
}
