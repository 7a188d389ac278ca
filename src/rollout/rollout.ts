/**
 * The page-side rollout engine (docs/ARCHITECTURE.md "Rows and trajectories", "Rollouts"): the episodes of a batch advance together.
 * Each round gathers every live episode's context text, encodes and truncates it with the
 * pretraining rule (`rolloutContextFit`, src/episode/rows.ts: the opening whole, middle turns
 * dropped, dropped tokens counted per turn and in the stats), samples one action per episode
 * for the whole batch with the policy (chunks of ≤ maxB rows, one sampler call each), decodes
 * the actions, steps all environments in parallel (worker pool), and repeats until all are done.
 *
 * Trajectories (trajectory.ts) keep, per turn, the exact context ids the policy saw, the sampled
 * ids and their sampling log-probs (never recomputed), so each turn is one training row and
 * every sampled token enters training exactly once (history-rewriting harnesses C1, C2, compaction need one
 * row per turn anyway). An action that hits the token budget without `<|end|>` is passed to the
 * harness as cut off (truncation, not a parse error).
 *
 * Failures: an environment job that throws, hangs or kills its worker is retried by the pool on
 * a fresh worker (the episode is replayed, src/episode/host.ts). If every retry fails the episode ends as
 * failed (reward 0, `envFailed`), is counted, and the batch goes on. A policy emitting garbage
 * cannot crash a run: harnesses turn any text into a parse-error observation.
 */
import type { Tokenizer } from '../model/tokenizer';
import { decodeAction, endTokenId, rolloutContextFit } from '../episode/rows';
import { ContextBudgetError } from '../harness/context_budget';
import type { RolloutStats, SampleStop, Trajectory, TurnSample } from './trajectory';
import { Rng } from '../util/rng';
import type { ActionInput, EnvApi, EnvStepOut, EpisodeSpec } from '../episode/host';

/** One sampled row, as the GPU sampler returns it. */
export interface PolicySample {
  ids: Int32Array;
  logprobs: Float32Array;
  /** The policy's entropy at τ = 1 at each sampled position, nats (absent: the policy does not report it). */
  entropies?: Float32Array;
  stop: SampleStop;
}

/** The policy as the engine needs it (the GPU sampler in the page; a CPU model or a stub in tests). */
export interface Policy {
  /** Largest number of prompts one `sample` call accepts. */
  readonly maxB: number;
  /** The model's context limit (prompt + new tokens). */
  readonly maxT: number;
  /**
   * @param prompts ≤ maxB prompts of ids (each 1 ≤ length < maxT)
   * @param temperature τ ≥ 0 (0 = greedy)
   */
  sample(prompts: Int32Array[], maxNewTokens: number, temperature: number, seed: number, endToken: number): Promise<PolicySample[]>;
}

/** Where environment jobs run: a WorkerPool of host_worker.ts (src/episode/host_pool.ts), or in-process. */
export interface EnvHost {
  run<R>(job: (api: EnvApi) => Promise<R>): Promise<R>;
  /** Retries so far (fresh-worker replacements after a throw, hang or crash). */
  retries(): number;
}

export interface EpisodeRequest {
  taskId: string;
  harnessId: string;
  /** GRPO group index (rollouts of one (task, harness)); any integer for evaluation. */
  group: number;
}

export interface RolloutOptions {
  tok: Tokenizer;
  policy: Policy;
  env: EnvHost;
  /** Tool-call turns per episode; the env host's cap adds the harness's workflow turns (harness/turn_budget.ts `turnCap`). */
  maxTurns: number;
  /** New-token budget per action (= the context reserve of the truncation rule). */
  maxNewTokens: number;
  /** τ (0 = greedy). */
  temperature: number;
  /** Seed of the sampler calls (each round and chunk derives its own). */
  seed: number;
  /** Context budget in tokens (spec.rollout.contextTokens), capped at the policy's maxT (default maxT). */
  contextTokens?: number;
  /** Called after the resets and after every round with the episodes finished so far (for progress displays). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Roll out every requested episode to the end.
 * @returns trajectories in request order, and counters
 * @throws Error for an unknown task or harness id (any other environment failure only ends its episode);
 *   ContextBudgetError naming the harness, the task and the sizes when an opening does not fit
 *   the context budget (raised in the first round, before any sampling; `checkOpeningsFit`
 *   finds it before the run).
 */
export async function runEpisodes(
  reqs: readonly EpisodeRequest[],
  o: RolloutOptions,
): Promise<{ trajectories: Trajectory[]; stats: RolloutStats }> {
  const t0 = performance.now();
  if (!Number.isInteger(o.maxNewTokens) || o.maxNewTokens < 1 || o.maxNewTokens >= o.policy.maxT) {
    throw new Error(`runEpisodes: maxNewTokens = ${o.maxNewTokens} must be an integer in [1, maxT − 1 = ${o.policy.maxT - 1}]`);
  }
  const maxT = Math.min(o.policy.maxT, o.contextTokens ?? o.policy.maxT);
  if (o.maxNewTokens >= maxT)
    throw new Error(`runEpisodes: maxNewTokens = ${o.maxNewTokens} must be below the context budget contextTokens = ${maxT}`);
  const limits = { maxT, actionReserve: o.maxNewTokens };
  const end = endTokenId(o.tok);
  const stats: RolloutStats = {
    episodes: reqs.length,
    envSteps: 0,
    sampledTokens: 0,
    sampleMs: 0,
    envMs: 0,
    ms: 0,
    rounds: 0,
    envFailures: 0,
    replays: 0,
    droppedContextTokens: 0,
    cutContexts: 0,
  };
  const e0 = performance.now();
  const eps = await startEpisodes(reqs, o, stats);
  stats.envMs += performance.now() - e0;

  for (let round = 0; ; round++) {
    const live = eps.filter((e) => e.context !== null);
    o.onProgress?.(eps.length - live.length, eps.length);
    if (live.length === 0) break;
    stats.rounds++;
    const fits = live.map((e) => {
      try {
        return rolloutContextFit(o.tok, e.context!, limits);
      } catch (err) {
        if (err instanceof ContextBudgetError)
          throw new ContextBudgetError(`harness ${e.spec.harnessId}, task ${e.spec.taskId}: ${err.message}`, err.headTokens, err.budget);
        throw err;
      }
    });
    const prompts = fits.map((f) => Int32Array.from(f.ids));
    const s0 = performance.now();
    const samples = await sampleRound(prompts, round, end, o);
    stats.sampleMs += performance.now() - s0;
    const s1 = performance.now();
    await Promise.all(
      live.map((e, i) => stepEpisode(e, { contextIds: prompts[i], sample: samples[i], dropped: fits[i].dropped }, o, stats)),
    );
    stats.envMs += performance.now() - s1;
  }
  stats.ms = performance.now() - t0;
  return { trajectories: eps.map((e) => e.traj), stats };
}

/** An episode in progress: its env spec, its trajectory so far, its actions, and its next context (null: ended). */
interface LiveEpisode {
  spec: EpisodeSpec;
  traj: Trajectory;
  history: ActionInput[];
  context: string | null;
}

/**
 * Reset every requested episode's environment (in parallel). An episode whose every retry fails
 * ends at once as failed; a malformed task or harness id throws.
 */
async function startEpisodes(reqs: readonly EpisodeRequest[], o: RolloutOptions, stats: RolloutStats): Promise<LiveEpisode[]> {
  const eps: LiveEpisode[] = reqs.map((r, i) => ({
    spec: { key: `e${i}`, taskId: r.taskId, harnessId: r.harnessId, maxTurns: o.maxTurns },
    traj: {
      index: i,
      taskId: r.taskId,
      harnessId: r.harnessId,
      group: r.group,
      turns: [],
      reward: 0,
      score: 0,
      pass: false,
      terminated: false,
      truncated: false,
      tags: null,
      envFailed: false,
    },
    history: [],
    context: '',
  }));
  await Promise.all(
    eps.map(async (e) => {
      try {
        e.context = (await o.env.run(async (api) => api.reset(e.spec))).context;
      } catch (err) {
        // A malformed id fails the same way on every worker: that is a caller bug, surface it.
        if (/unknown harness id|task id '/.test((err as Error).message)) throw err;
        stats.envFailures++;
        e.traj.envFailed = true;
        e.traj.truncated = true;
        e.context = null;
      }
    }),
  );
  return eps;
}

/** One action per prompt from the policy, in chunks of ≤ maxB prompts; each chunk's seed derives from (seed, round, chunk). */
async function sampleRound(prompts: Int32Array[], round: number, end: number, o: RolloutOptions): Promise<PolicySample[]> {
  const samples: PolicySample[] = [];
  for (let c = 0; c * o.policy.maxB < prompts.length; c++) {
    const chunk = prompts.slice(c * o.policy.maxB, (c + 1) * o.policy.maxB);
    const seed = Rng.derive(o.seed, 'rollout', round, c).int(2 ** 31);
    samples.push(...(await o.policy.sample(chunk, o.maxNewTokens, o.temperature, seed, end)));
  }
  return samples;
}

/**
 * Record one sampled action as a turn of the episode and step its environment with it; the
 * episode ends when the environment says done, or as failed when every retry of the step fails.
 * @param turnIn the context ids the policy saw, its sample and the context tokens the cut dropped
 */
async function stepEpisode(
  e: LiveEpisode,
  turnIn: { contextIds: Int32Array; sample: PolicySample; dropped: number },
  o: RolloutOptions,
  stats: RolloutStats,
): Promise<void> {
  const { sample: s, dropped } = turnIn;
  const text = decodeAction(o.tok, s.ids);
  e.history.push({ text, cutOff: s.stop !== 'end' });
  stats.sampledTokens += s.ids.length;
  stats.envSteps++;
  const turn: TurnSample = {
    contextIds: turnIn.contextIds,
    actionIds: s.ids,
    logprobs: s.logprobs,
    stop: s.stop,
    kind: 'env_failed',
    droppedContextTokens: dropped,
  };
  if (s.entropies) turn.entropies = s.entropies;
  stats.droppedContextTokens += dropped;
  if (dropped > 0) stats.cutContexts++;
  e.traj.turns.push(turn);
  let r: EnvStepOut;
  try {
    r = await o.env.run(async (api) => api.step(e.spec, e.history));
  } catch {
    // Every retry failed: the episode ends here with no reward; the batch goes on.
    stats.envFailures++;
    e.traj.envFailed = true;
    e.traj.truncated = true;
    e.context = null;
    return;
  }
  if (r.replayed) stats.replays++;
  turn.kind = r.kind;
  e.context = r.context;
  if (r.done) {
    e.context = null;
    Object.assign(e.traj, {
      reward: r.reward,
      score: r.score,
      pass: r.pass,
      terminated: r.terminated,
      truncated: r.truncated,
      tags: r.tags,
    });
  }
}

/** An in-process EnvHost (no workers): tests, Node, and a fallback. Never retries. */
export function inProcessEnv(api: EnvApi): EnvHost {
  return { run: (job) => job(api), retries: () => 0 };
}
