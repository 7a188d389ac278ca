/**
 * The environment side of rollouts (docs/ARCHITECTURE.md "Rows and trajectories", "Rollouts"): harness runtime × sandbox episodes,
 * addressed by an episode key. Runs inside a rollout worker (env_worker.ts, via comlink) or
 * in-process (tests, Node) — the same class either way.
 *
 * Restartable steps: every `step` call carries the episode's whole action history. A host that
 * already holds the episode at the right turn steps it once; a fresh host (a replacement worker
 * after a crash, hang or throw) rebuilds it by replaying the history from the task's initial
 * state. Harnesses and sandboxes are deterministic, so the replayed episode is identical and the
 * policy-side data (sampled ids, log-probs) stays valid. This is what lets the worker pool
 * retry a job on a fresh worker without losing the episode.
 *
 * Reward: the task verifier's pass (1) or fail (0), given on the step that ends the episode;
 * the verifier's partial-credit score (mean of sub-checks) is reported beside it, not trained on.
 */
import { createHarness } from '../harness/registry';
import { episodeTags } from '../harness/episode';
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
  /** Turn budget (the harness truncates at it). */
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
  /** Verifier score in [0,1] (mean of sub-checks) on the final step; 0 before. */
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
  steps: number;
}

function makeHarness(spec: EpisodeSpec): Harness {
  if (!Number.isInteger(spec.maxTurns) || spec.maxTurns < 1) throw new Error(`EpisodeSpec.maxTurns must be an integer ≥ 1, got ${spec.maxTurns}`);
  // Token budgets are enforced on the policy side (rows.ts truncation rule, the sampler's
  // maxNewTokens); the harness only counts turns.
  return createHarness(spec.harnessId, { budget: { maxTurns: spec.maxTurns, maxContextTokens: Number.POSITIVE_INFINITY, maxActionTokens: Number.MAX_SAFE_INTEGER } });
}

/** Holds the live episodes of one worker (or of the page, in-process). */
export class EnvHost {
  private readonly live = new Map<string, Live>();

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
    const h = makeHarness(spec);
    h.reset(task);
    this.live.set(spec.key, { spec, task, h, steps: 0 });
    return h.contextText();
  }

  /**
   * Apply the last action of `history` (replaying the earlier ones first when this host does
   * not hold the episode at turn history.length − 1). Never throws on any action text.
   * @throws Error on an empty history, or unknown task / harness ids.
   */
  step(spec: EpisodeSpec, history: readonly ActionInput[]): EnvStepOut {
    if (history.length === 0) throw new Error(`EnvHost.step(${spec.key}): empty action history`);
    let e = this.live.get(spec.key);
    let replayed = false;
    if (!e || e.steps !== history.length - 1 || e.spec.taskId !== spec.taskId || e.spec.harnessId !== spec.harnessId) {
      this.reset(spec);
      e = this.live.get(spec.key)!;
      for (let i = 0; i < history.length - 1; i++) {
        e.h.step(history[i].text, { cutOff: history[i].cutOff });
        e.steps++;
      }
      replayed = history.length > 1;
    }
    const a = history[history.length - 1];
    const r = e.h.step(a.text, { cutOff: a.cutOff });
    e.steps++;
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

/** An EnvApi around an in-process host (tests, Node, and the no-worker fallback). */
export function localEnvApi(host = new EnvHost()): EnvApi {
  return {
    reset: (s) => host.reset(s),
    step: (s, h) => host.step(s, h),
    close: (k) => host.close(k),
  };
}
