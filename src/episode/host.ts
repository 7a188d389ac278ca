/**
 * The episode host: harness × sandbox episodes addressed by an episode key. One class serves the
 * RL rollouts (in a page worker, host_worker.ts, or in-process), `hlab serve` (in a worker
 * thread, src/serve/thread.ts, or in-process) and the export's openings (src/export). A rollout
 * host also runs the expert's demonstrations for the in-run SFT phase (EnvApi `demonstrate`).
 *
 * Restartable steps: every `step` call carries the episode's whole action history. A host that
 * already holds the episode after exactly that history's earlier actions steps it once; any
 * other host (a replacement worker after a crash, hang or throw, or simply another worker: the
 * pool gives each job to whichever worker is free) rebuilds it by replaying the history from
 * the task's initial state. Harnesses and sandboxes are deterministic, so the replayed episode
 * is identical and the policy-side data (sampled ids, log-probs) stays valid. A held copy counts
 * only when its actions equal the history's (`holdsEpisode`).
 *
 * Reward: the task verifier's pass (1) or fail (0), given on the step that ends the episode;
 * the verifier's partial-credit score (src/tasks/common.ts `verification`) is reported beside it.
 *
 * Tokens and turns are the host's options: rollouts count with the policy's tokenizer
 * (rows.ts `tokenCounter`) and read `maxTurns` as tool-call turns (the harness adds its
 * workflow's overhead, src/harness/turn_budget.ts `turnCap`); the server counts ⌈chars / 4⌉
 * (the engine's tokenizer is not its to know) and takes `maxTurns` as the engine's cap.
 */
import { createHarness } from '../harness/registry';
import { episodeTags } from '../harness/episode';
import { turnCap } from '../harness/turn_budget';
import { demonstrate, type DemoRequest, type DemoRows } from './demonstrations';
import { tokenCounter } from './rows';
import { Tokenizer, type TokenizerFile } from '../model/tokenizer';
import type { ActionKind, BehaviourTags, Harness, Message, TruncationReason } from '../harness/types';
import { getSuite, taskFromId } from '../tasks';
import type { Task } from '../tasks/types';

/** One action of the history: its text and whether the sampler cut it off at the token budget. */
export interface ActionInput {
  text: string;
  cutOff: boolean;
}

/** Identity and budget of one episode (sent with every call so any host can rebuild it). */
export interface EpisodeSpec {
  /** Unique key of the episode on its hosts (a rollout batch's key, the server's episode id). */
  key: string;
  /** Task id 'suite/family/tN/seed' (taskFromId). */
  taskId: string;
  /** Composed id (S0-T1-O2-C0-W1) or black-box id. */
  harnessId: string;
  /** Turn budget, integer ≥ 1, read as the host's `maxTurns` option says. */
  maxTurns: number;
}

/** A chat message as engines take it (`policy`: the text is a verbatim earlier action). */
export interface ChatMessage {
  role: Message['role'];
  content: string;
  policy: boolean;
}

/** What the policy sees next: the context text (ending with the open assistant marker) and the same view as chat messages. */
export interface EpisodeOpening {
  context: string;
  messages: ChatMessage[];
}

/** What one step returns. */
export interface EnvStepOut {
  /** The next context text the policy continues, or null when the episode is done. */
  context: string | null;
  /** The next view as chat messages; [] when the episode is done. */
  messages: ChatMessage[];
  observation: string;
  kind: ActionKind;
  done: boolean;
  /** Ended by the policy's finish. */
  terminated: boolean;
  /** Ended by a budget (turns, or an action cut off). */
  truncated: boolean;
  truncationReason: TruncationReason | null;
  /** Verifier pass as 0/1 on the final step; 0 before. */
  reward: number;
  /** Verifier score in [0, 1] (src/tasks/common.ts `verification`) on the final step; 0 before. */
  score: number;
  pass: boolean;
  /** Behaviour tags so far (the verifier's verdict folded in on the final step). */
  tags: BehaviourTags;
  /** True when this call had to rebuild the episode by replay (a fresh host). */
  replayed: boolean;
}

/** How a host counts tokens and turns, and how many episodes it keeps. */
interface EpisodeHostOptions {
  /** Token count of the harnesses' context policies (C2 summaries, coding-CLI compaction); default ⌈chars / 4⌉. */
  tokenLength?: (text: string) => number;
  /** 'tool-calls': the harness's cap adds its workflow's overhead (`turnCap`); 'turns': the cap as given. */
  maxTurns: 'tool-calls' | 'turns';
  /** Most episodes held (≥ 1); the least recently used is dropped beyond it, costing only a replay. Default unbounded. */
  capacity?: number;
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
 * another action, has the key, task, harness and turn count but other actions.
 */
export function holdsEpisode<E extends HeldEpisode>(e: E | undefined, spec: HeldEpisode['spec'], history: readonly ActionInput[]): e is E {
  if (!e || e.spec.taskId !== spec.taskId || e.spec.harnessId !== spec.harnessId || e.spec.maxTurns !== spec.maxTurns) return false;
  if (e.applied.length !== history.length - 1) return false;
  return e.applied.every((a, i) => a.text === history[i].text && a.cutOff === history[i].cutOff);
}

/** Chat messages of a harness view. */
function chatMessages(view: readonly Message[]): ChatMessage[] {
  return view.map((m) => ({ role: m.role, content: m.text, policy: m.policy }));
}

/** Live episodes of one worker, thread or process. */
export class EpisodeHost {
  private readonly live = new Map<string, Live>();

  constructor(private readonly opts: EpisodeHostOptions) {}

  /** Episodes currently held. */
  get size(): number {
    return this.live.size;
  }

  private hold(key: string, e: Live): void {
    this.live.delete(key);
    this.live.set(key, e); // Map order = recency
    const cap = this.opts.capacity ?? Number.POSITIVE_INFINITY;
    while (this.live.size > cap) this.live.delete(this.live.keys().next().value as string);
  }

  private makeHarness(spec: EpisodeSpec, task: Task): Harness {
    if (!Number.isInteger(spec.maxTurns) || spec.maxTurns < 1) throw new Error(`maxTurns must be an integer ≥ 1, got ${spec.maxTurns}`);
    // Token budgets belong to the policy side (rows.ts truncation rule, the sampler's or the
    // engine's max new tokens); the harness counts turns, and tokens only for its context policies.
    const maxTurns = this.opts.maxTurns === 'tool-calls' ? turnCap(spec.maxTurns, spec.harnessId, task) : spec.maxTurns;
    const budget = { maxTurns, maxContextTokens: Number.POSITIVE_INFINITY, maxActionTokens: Number.MAX_SAFE_INTEGER };
    return createHarness(spec.harnessId, this.opts.tokenLength ? { budget, tokenLength: this.opts.tokenLength } : { budget });
  }

  /**
   * Start (or restart) an episode.
   * @returns the first view
   * @throws Error naming an unknown task or harness id, or a bad maxTurns.
   */
  reset(spec: EpisodeSpec): EpisodeOpening {
    const task = taskFromId(spec.taskId);
    const h = this.makeHarness(spec, task);
    h.reset(task);
    this.hold(spec.key, { spec, task, h, applied: [] });
    return { context: h.contextText(), messages: chatMessages(h.view()) };
  }

  /**
   * Apply the last action of `history`, replaying the earlier ones first when this host does
   * not hold the episode after exactly history[0 … n−2]. Never throws on any action text.
   * @throws Error on an empty history, a history past the end of the episode, or unknown ids.
   */
  step(spec: EpisodeSpec, history: readonly ActionInput[]): EnvStepOut {
    if (history.length === 0) throw new Error(`step(${spec.key}): empty action history`);
    let e = this.live.get(spec.key);
    let replayed = false;
    if (!holdsEpisode(e, spec, history)) {
      this.reset(spec);
      e = this.live.get(spec.key)!;
      for (let i = 0; i < history.length - 1; i++) {
        if (e.h.done) throw new Error(`step(${spec.key}): history continues after the episode ended at turn ${i}`);
        e.h.step(history[i].text, { cutOff: history[i].cutOff });
        e.applied.push(history[i]);
      }
      replayed = history.length > 1;
    } else {
      this.hold(spec.key, e);
    }
    const a = history[history.length - 1];
    const r = e.h.step(a.text, { cutOff: a.cutOff });
    e.applied.push(a);
    const out: EnvStepOut = {
      context: null,
      messages: [],
      observation: r.observation,
      kind: r.kind,
      done: e.h.done,
      terminated: r.terminated,
      truncated: r.truncated,
      truncationReason: r.truncationReason ?? null,
      reward: 0,
      score: 0,
      pass: false,
      tags: e.h.tags(),
      replayed,
    };
    if (!e.h.done) {
      out.context = e.h.contextText();
      out.messages = chatMessages(e.h.view());
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
 * reward (1 on pass, else 0), the verifier's partial score and the behaviour tags.
 */
function episodeOutcome(task: Task, h: Harness): { pass: boolean; reward: number; score: number; tags: BehaviourTags } {
  const v = getSuite(task.suite).verify(task, h.sandboxState(), h.transcript());
  return { pass: v.pass, reward: v.pass ? 1 : 0, score: v.score, tags: episodeTags(h, task, v) };
}

/** The episodes of a host behind a worker (comlink) or in-process: every method may be awaited. */
export interface EpisodeApi {
  reset(spec: EpisodeSpec): EpisodeOpening | Promise<EpisodeOpening>;
  step(spec: EpisodeSpec, history: ActionInput[]): EnvStepOut | Promise<EnvStepOut>;
  close(key: string): void | Promise<void>;
}

/** A rollout host's API: its episodes, and the expert's episodes as training rows counted with the policy's tokenizer (demonstrations.ts). */
export interface EnvApi extends EpisodeApi {
  demonstrate(req: DemoRequest): DemoRows | Promise<DemoRows>;
}

/** An EnvApi around an in-process rollout host: tokens counted with the policy's tokenizer `tok`, `maxTurns` in tool calls (tests, Node, and the no-worker fallback). */
export function localEnvApi(tok: Tokenizer): EnvApi {
  const tokenLength = tokenCounter(tok);
  const host = new EpisodeHost({ tokenLength, maxTurns: 'tool-calls' });
  return {
    reset: (s) => host.reset(s),
    step: (s, h) => host.step(s, h),
    close: (k) => host.close(k),
    demonstrate: (req) => demonstrate(tok, req, tokenLength),
  };
}

/** A rollout worker's API: an EnvApi whose host exists once `init` has given it the policy's tokenizer. */
export interface EnvWorkerApi extends EnvApi {
  init(tokenizer: TokenizerFile): void;
}

/**
 * The API a rollout worker exposes (host_worker.ts): `init` builds the host from the tokenizer
 * file the page sends (host_pool.ts `initTokenizer`, before a fresh worker's first job); any
 * other call before it throws.
 */
export function envWorkerApi(): EnvWorkerApi {
  let api: EnvApi | null = null;
  const ready = (): EnvApi => {
    if (!api) throw new Error('env worker: init(tokenizer) must come before reset/step/close/demonstrate');
    return api;
  };
  return {
    init: (file) => {
      api = localEnvApi(Tokenizer.fromJSON(file));
    },
    reset: (s) => ready().reset(s),
    step: (s, h) => ready().step(s, h),
    close: (k) => ready().close(k),
    demonstrate: (req) => ready().demonstrate(req),
  };
}
