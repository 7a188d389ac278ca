/**
 * A few rollouts of each RL step, kept in the experiment output so the app's Trajectories view
 * can replay them token by token with their loss mask and advantages.
 *
 * Pure, DOM-free (page, workers, Node). The RL loop calls `sampleTrajectories` after each
 * update with the step's trajectories and the advantages that update applied (src/rl/advantages.ts
 * `trajectoryAdvantages` of `RlUpdate.applied`: one value per trajectory for GRPO, per token for
 * PPO); nothing here recomputes them.
 *
 * Size: results.json must stay small, so each turn keeps only the last `maxTokensPerTurn`
 * context ids (`contextOffset` says how many leading ids were dropped — consecutive turns'
 * contexts overlap almost entirely, so the tail is what is new), and log-probs/advantages are
 * rounded to 4 decimals.
 */
import type { BehaviourTags } from '../harness/types';
import type { Trajectory } from '../rollout/trajectory';
import { Rng } from '../util/rng';

// Views and fixtures that have trajectories but no update take GRPO advantages from the registry.

/** One policy turn of a sampled trajectory (one training row). */
interface TrajectoryTurnSample {
  /** The last ≤ maxTokensPerTurn context ids the policy saw (loss mask 0). */
  contextIds: number[];
  /** Leading context ids dropped to keep the record small (0 = the whole context is kept). */
  contextOffset: number;
  /** Sampled ids (loss mask 1), `<|end|>` included when it stopped the action. */
  actionIds: number[];
  /** log π_old of each sampled id (nats, rounded to 4 decimals). */
  logprobs: number[];
  /** Action kind as the harness classified it (tool, message, parse_error, …, env_failed). */
  kind: string;
}

/** A rollout of an RL step, as stored in the experiment output. */
export interface TrajectorySample {
  method: string;
  seed: number;
  /** RL step (1-based) the rollout belongs to. */
  step: number;
  /** Index of the trajectory in its step's rollout batch. */
  index: number;
  taskId: string;
  /** Suite and task family, parsed from the task id 'suite/family/tN/seed'. */
  suite: string;
  family: string;
  harnessId: string;
  group: number;
  reward: number;
  score: number;
  pass: boolean;
  truncated: boolean;
  envFailed: boolean;
  tags: BehaviourTags | null;
  /**
   * GRPO: one advantage for the whole trajectory (broadcast to every action token). PPO: one
   * per action token over all turns, concatenated in turn order (Σ actionIds.length values).
   */
  advantage: number[] | number;
  turns: TrajectoryTurnSample[];
}

/** Advantages of a step's trajectories, one entry per trajectory in the same order. */
type TrajectoryAdvantages = ReadonlyArray<number | ArrayLike<number>>;

interface SampleMeta {
  method: string;
  seed: number;
  step: number;
}

interface SampleOptions {
  /** Trajectories kept per step (≥ 0; fewer when the step has fewer). */
  perStep: number;
  /** Seed of the selection (e.g. Rng.derive(runSeed, 'trajectory-sample', step).int(2 ** 31)). */
  seed: number;
  /** Context ids kept per turn (the last ones; default 192). */
  maxTokensPerTurn?: number;
}

const DEFAULT_MAX_TOKENS_PER_TURN = 192;

const round4 = (x: number): number => (Number.isFinite(x) ? Math.round(x * 1e4) / 1e4 : x);

/** 'workspace/organize/t3/28842' → suite 'workspace', family 'organize' ('' when not of that form). */
function taskSuiteFamily(taskId: string): { suite: string; family: string } {
  const p = taskId.split('/');
  return { suite: p[0] ?? '', family: p.length >= 2 ? p[1] : '' };
}

/**
 * Pick `opts.perStep` trajectories of one step and copy them into JSON-safe records.
 * Selection (deterministic in opts.seed): one passing and one failing trajectory when the
 * step has both (so the view can contrast them), the rest drawn uniformly from the others;
 * records come out in trajectory order.
 * @param trajs the step's rollouts (rollout/rollout.ts order)
 * @param advantages one entry per trajectory: a number (GRPO) or an array of Σ_turns
 *   actionIds.length per-token values (PPO)
 * @throws Error naming the field when advantages has the wrong length or a per-token array
 *   does not match the trajectory's action tokens, or when perStep / maxTokensPerTurn / seed
 *   is not a non-negative integer.
 */
export function sampleTrajectories(
  trajs: readonly Trajectory[],
  advantages: TrajectoryAdvantages,
  meta: SampleMeta,
  opts: SampleOptions,
): TrajectorySample[] {
  const op = 'sampleTrajectories';
  if (!Number.isInteger(opts.perStep) || opts.perStep < 0)
    throw new Error(`${op}: opts.perStep must be a non-negative integer, got ${opts.perStep}`);
  if (!Number.isInteger(opts.seed)) throw new Error(`${op}: opts.seed must be an integer, got ${opts.seed}`);
  const maxTok = opts.maxTokensPerTurn ?? DEFAULT_MAX_TOKENS_PER_TURN;
  if (!Number.isInteger(maxTok) || maxTok < 0)
    throw new Error(`${op}: opts.maxTokensPerTurn must be a non-negative integer, got ${maxTok}`);
  if (advantages.length !== trajs.length)
    throw new Error(`${op}: advantages has ${advantages.length} entries, expected one per trajectory (${trajs.length})`);
  const chosen = selectIndices(trajs, opts.perStep, opts.seed);
  return chosen.map((i) => toSample(trajs[i], i, advantages[i], meta, maxTok));
}

function selectIndices(trajs: readonly Trajectory[], n: number, seed: number): number[] {
  const k = Math.min(n, trajs.length);
  if (k === 0) return [];
  const rng = Rng.derive(seed, 'trajectory-sample');
  const all = trajs.map((_, i) => i);
  const passing = all.filter((i) => trajs[i].pass);
  const failing = all.filter((i) => !trajs[i].pass);
  const picked = new Set<number>();
  // Contrast first: one of each outcome when both exist.
  if (passing.length && failing.length) {
    picked.add(rng.pick(passing));
    if (picked.size < k) picked.add(rng.pick(failing));
  }
  const rest = rng.shuffle(all.filter((i) => !picked.has(i)));
  for (const i of rest) {
    if (picked.size >= k) break;
    picked.add(i);
  }
  return [...picked].sort((a, b) => a - b);
}

function toSample(t: Trajectory, index: number, adv: number | ArrayLike<number>, meta: SampleMeta, maxTok: number): TrajectorySample {
  const actionTokens = t.turns.reduce((a, u) => a + u.actionIds.length, 0);
  let advantage: number | number[];
  if (typeof adv === 'number') advantage = round4(adv);
  else {
    if (adv.length !== actionTokens)
      throw new Error(`sampleTrajectories: advantages[${index}] has ${adv.length} values, expected one per action token (${actionTokens})`);
    advantage = Array.from(adv, round4);
  }
  const { suite, family } = taskSuiteFamily(t.taskId);
  return {
    method: meta.method,
    seed: meta.seed,
    step: meta.step,
    index,
    taskId: t.taskId,
    suite,
    family,
    harnessId: t.harnessId,
    group: t.group,
    reward: t.reward,
    score: t.score,
    pass: t.pass,
    truncated: t.truncated,
    envFailed: t.envFailed,
    // Structured copy: the record must not alias the rollout's objects (they live on in the trainer).
    tags: t.tags ? (JSON.parse(JSON.stringify(t.tags)) as BehaviourTags) : null,
    advantage,
    turns: t.turns.map((u) => {
      const drop = Math.max(0, u.contextIds.length - maxTok);
      return {
        contextIds: Array.from(u.contextIds.subarray(drop)),
        contextOffset: drop,
        actionIds: Array.from(u.actionIds),
        logprobs: Array.from(u.logprobs, round4),
        kind: u.kind,
      };
    }),
  };
}
