/**
 * The environment side of rollouts (docs/ARCHITECTURE.md "Rows and trajectories", "Rollouts"): harness runtime × sandbox episodes,
 * addressed by an episode key. Runs inside a rollout worker (env_worker.ts, via comlink) or
 * in-process (tests, Node) — the same class either way.
 *
 * Restartable steps: every `step` call carries the episode's whole action history. A host that
 * already holds the episode after exactly that history's earlier actions steps it once; any
 * other host (a replacement worker after a crash, hang or throw, or simply another worker: the
 * pool gives each job to whichever worker is free) rebuilds it by replaying the history from
 * the task's initial state. Harnesses and sandboxes are deterministic, so the replayed episode
 * is identical and the policy-side data (sampled ids, log-probs) stays valid. A held copy counts
 * only when its actions equal the history's: a copy left behind on a worker, in an earlier batch
 * whose episode had the same key, task, harness and turn count (evaluations repeat their
 * requests), must not be stepped, or the outcome would depend on which worker got the job.
 *
 * Reward: the task verifier's pass (1) or fail (0), given on the step that ends the episode;
 * the verifier's partial-credit score (src/tasks/common.ts `verification`; 0 for doing nothing) is reported beside it; the loop trains on it when `rl.reward` is `score` (src/rl/reward.ts).
 *
 * Tokens: a host counts with the policy's tokenizer (rows.ts `tokenCounter`), so the harness's
 * context policies (C2 summaries, coding-CLI compaction) fire at their budgets in the tokens the
 * policy sees, not at ⌈chars / 4⌉. A worker gets the tokenizer file from the page on its first
 * job (`envWorkerApi`, env_pool.ts), so it loads nothing itself.
 *
 * Turns: `EpisodeSpec.maxTurns` counts tool-call turns; the harness's cap adds its workflow's
 * overhead (src/harness/turn_budget.ts `turnCap`).
 */
import { createHarness } from '../harness/registry';
import { episodeTags } from '../harness/episode';
import { turnCap } from '../harness/turn_budget';
import { tokenCounter } from '../model/rows';
import { Tokenizer, type TokenizerFile } from '../model/tokenizer';
import type { ActionKind, BehaviourTags, Harness, TruncationReason } from '../harness/types';
import { getSuite, taskFromId } from '../tasks';
import type { Task } from '../tasks/types';

/** One action of the history: its text and whether the sampler cut it off at the token budget. */
export interface ActionInput {
  text: string;
  cutOff: boolean;
}

/** Identity and budget of one episode (sent with every call so any host can rebuild it). */
export interface EpisodeSpec {
  /** Unique key of the episode within a rollout batch. */
  key: string;
  /** Task id 'suite/family/tN/seed' (taskFromId). */
  taskId: string;
  /** Composed id (S0-T1-O2-C0-W1) or black-box id. */
  harnessId: string;
  /** Tool-call turns (rollout.maxTurns); the harness truncates at this plus its workflow overhead (`turnCap`). */
  maxTurns: number;
}

/** What one step returns to the rollout engine. */
export interface EnvStepOut {
  /** The next context text the policy continues, or null when the episode is done. */
  context: string | null;
  observation: string;
  kind: ActionKind;
  done: boolean;
  terminated: boolean;
  truncated: boolean;
  truncationReason: TruncationReason | null;
  /** Verifier pass as 0/1 on the final step; 0 before. */
  reward: number;
  /** Verifier score in [0, 1] (src/tasks/common.ts `verification`) on the final step; 0 before. */
  score: number;
  pass: boolean;
  /** Behaviour tags with the verdict folded in (final step only). */
  tags: BehaviourTags | null;
  /** True when this call had to rebuild the episode by replay (a fresh worker). */
  replayed: boolean;
}

interface Live {
  spec: EpisodeSpec;
  task: Task;
  h: Harness;
  /** The actions applied so far, in order. */
  applied: ActionInput[];
}

/** What `holdsEpisode` reads of a held episode: its identity and the actions applied to it, in order. */
interface HeldEpisode {
  spec: { taskId: string; harnessId: string; maxTurns: number };
  applied: readonly ActionInput[];
}

/**
 * Whether the held copy `e` is the episode of `spec` after exactly the actions
 * history[0 … n−2], so that applying history[n−1] to it equals replaying the whole history.
 * Same key is not enough: a copy left by an earlier batch, or by a step a client re-sent with
 * another action, has the key, task, harness and turn count but other actions. Shared by the
 * rollout host (EnvHost) and the serve host (src/serve/host.ts).
 */
export function holdsEpisode<E extends HeldEpisode>(e: E | undefined, spec: HeldEpisode['spec'], history: readonly ActionInput[]): e is E {
  if (!e || e.spec.taskId !== spec.taskId || e.spec.harnessId !== spec.harnessId || e.spec.maxTurns !== spec.maxTurns) return false;
  if (e.applied.length !== history.length - 1) return false;
  return e.applied.every((a, i) => a.text === history[i].text && a.cutOff === history[i].cutOff);
}

function makeHarness(spec: EpisodeSpec, task: Task, tokenLength: (text: string) => number): Harness {
  if (!Number.isInteger(spec.maxTurns) || spec.maxTurns < 1) throw new Error(`EpisodeSpec.maxTurns must be an integer ≥ 1, got ${spec.maxTurns}`);
  // Token budgets are enforced on the policy side (rows.ts truncation rule, the sampler's
  // maxNewTokens); the harness counts turns, and tokens only for its context policies.
  const budget = { maxTurns: turnCap(spec.maxTurns, spec.harnessId, task), maxContextTokens: Number.POSITIVE_INFINITY, maxActionTokens: Number.MAX_SAFE_INTEGER };
  return createHarness(spec.harnessId, { budget, tokenLength });
}

/** Holds the live episodes of one worker (or of the page, in-process). */
class EnvHost {
  private readonly live = new Map<string, Live>();
  /** The policy tokenizer's count (rows.ts `tokenCounter`), shared by the host's harnesses. */
  private readonly tokenLength: (text: string) => number;

  /** @param tok the tokenizer the policy samples with */
  constructor(tok: Tokenizer) {
    this.tokenLength = tokenCounter(tok);
  }

  /** Episodes currently held. */
  get size(): number {
    return this.live.size;
  }

  /**
   * Start (or restart) an episode.
   * @returns the first context text
   * @throws Error naming an unknown task or harness id.
   */
  reset(spec: EpisodeSpec): string {
    const task = taskFromId(spec.taskId);
    const h = makeHarness(spec, task, this.tokenLength);
    h.reset(task);
    this.live.set(spec.key, { spec, task, h, applied: [] });
    return h.contextText();
  }

  /**
   * Apply the last action of `history` (replaying the earlier ones first when this host does
   * not hold the episode after exactly those actions). Never throws on any action text.
   * @throws Error on an empty history, or unknown task / harness ids.
   */
  step(spec: EpisodeSpec, history: readonly ActionInput[]): EnvStepOut {
    if (history.length === 0) throw new Error(`EnvHost.step(${spec.key}): empty action history`);
    let e = this.live.get(spec.key);
    let replayed = false;
    if (!holdsEpisode(e, spec, history)) {
      this.reset(spec);
      e = this.live.get(spec.key)!;
      for (let i = 0; i < history.length - 1; i++) {
        e.h.step(history[i].text, { cutOff: history[i].cutOff });
        e.applied.push(history[i]);
      }
      replayed = history.length > 1;
    }
    const a = history[history.length - 1];
    const r = e.h.step(a.text, { cutOff: a.cutOff });
    e.applied.push(a);
    const out: EnvStepOut = {
      context: null,
      observation: r.observation,
      kind: r.kind,
      done: e.h.done,
      terminated: r.terminated,
      truncated: r.truncated,
      truncationReason: r.truncationReason ?? null,
      reward: 0,
      score: 0,
      pass: false,
      tags: null,
      replayed,
    };
    if (!e.h.done) {
      out.context = e.h.contextText();
      return out;
    }
    Object.assign(out, episodeOutcome(e.task, e.h));
    this.live.delete(spec.key);
    return out;
  }

  /** Forget an episode (no-op when unknown). */
  close(key: string): void {
    this.live.delete(key);
  }
}

/**
 * A finished episode's outcome: the suite's verifier on the final sandbox and transcript, the
 * reward (1 on pass, else 0), the verifier's partial score and the behaviour tags. Shared by
 * the rollout host and the serve host.
 */
export function episodeOutcome(task: Task, h: Harness): { pass: boolean; reward: number; score: number; tags: ReturnType<typeof episodeTags> } {
  const v = getSuite(task.suite).verify(task, h.sandboxState(), h.transcript());
  return { pass: v.pass, reward: v.pass ? 1 : 0, score: v.score, tags: episodeTags(h, task, v) };
}

/** The API a rollout worker exposes through comlink (all methods may be awaited). */
export interface EnvApi {
  reset(spec: EpisodeSpec): string | Promise<string>;
  step(spec: EpisodeSpec, history: ActionInput[]): EnvStepOut | Promise<EnvStepOut>;
  close(key: string): void | Promise<void>;
}

/** An EnvApi around an in-process host counting with `tok` (tests, Node, and the no-worker fallback). */
export function localEnvApi(tok: Tokenizer): EnvApi {
  return hostApi(new EnvHost(tok));
}

function hostApi(host: EnvHost): EnvApi {
  return {
    reset: (s) => host.reset(s),
    step: (s, h) => host.step(s, h),
    close: (k) => host.close(k),
  };
}

/** A rollout worker's API: an EnvApi whose host exists once `init` has given it the policy's tokenizer. */
export interface EnvWorkerApi extends EnvApi {
  init(tokenizer: TokenizerFile): void;
}

/**
 * The API a rollout worker exposes (env_worker.ts): `init` builds the host from the tokenizer
 * file the page sends (env_pool.ts `initTokenizer`, before a fresh worker's first job); any
 * other call before it throws.
 */
export function envWorkerApi(): EnvWorkerApi {
  let api: EnvApi | null = null;
  const ready = (): EnvApi => {
    if (!api) throw new Error('env worker: init(tokenizer) must come before reset/step/close');
    return api;
  };
  return {
    init: (file) => {
      api = hostApi(new EnvHost(Tokenizer.fromJSON(file)));
    },
    reset: (s) => ready().reset(s),
    step: (s, h) => ready().step(s, h),
    close: (k) => ready().close(k),
  };
}
