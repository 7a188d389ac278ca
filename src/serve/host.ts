/**
 * The compute side of `hlab serve`: harness × sandbox episodes keyed by episode id, rebuilt by
 * replay when a host does not hold one (the same restartable-step design as
 * src/rollout/env.ts `EnvHost`, which returns only the context text; the server also needs the
 * chat messages and live tags, hence this host).
 *
 * Every call carries the episode's identity and, for `step`, its whole action history, so any
 * host — another worker thread, a fresh one after a crash or a watchdog kill, or the main
 * thread — can serve any step. Harnesses and sandboxes are deterministic, so a replayed
 * episode is identical. A held copy is stepped only when its applied actions equal the
 * history's (env.ts `holdsEpisode`), else the episode is replayed. A host keeps at most `capacity` episodes (least recently used dropped
 * first); dropping one only costs a replay.
 *
 * Runs in a worker thread (thread.ts) or in-process. Pure: no I/O.
 */
import { createHarness } from '../harness/registry';
import { episodeOutcome, holdsEpisode } from '../rollout/env';
import type { ActionKind, BehaviourTags, Harness, Message, TruncationReason } from '../harness/types';
import { taskFromId } from '../tasks';
import type { Task } from '../tasks/types';

/** Identity and budget of one served episode (sent with every call). */
export interface ServeEpisodeSpec {
  /** The server's episode id. */
  key: string;
  /** Full task id 'suite/family/tN/seed'. */
  taskId: string;
  /** Composed id (S0-T1-O2-C0-W1) or black-box id (bb-coding-cli, bb-assistant). */
  harnessId: string;
  /** Turn budget, integer ≥ 1 (the harness truncates at it). */
  maxTurns: number;
}

/** One action of an episode's history: its text and whether the engine cut it at its token cap. */
export interface ServeAction {
  text: string;
  cutOff: boolean;
}

/** A chat message as engines take it (`policy`: the text is a verbatim earlier action). */
export interface ChatMessage {
  role: Message['role'];
  content: string;
  policy: boolean;
}

/** The first view of an episode. */
export interface ServeOpening {
  /** What the policy sees, as chat messages (system, user, …). */
  messages: ChatMessage[];
  /** The same view rendered with role markers, ending with the open assistant marker. */
  prompt: string;
}

/** What one step returns (the HTTP step response is this object). */
export interface ServeStepOut {
  observation: string;
  kind: ActionKind;
  /** The next view as chat messages; [] when the episode is done. */
  messages: ChatMessage[];
  /** The next rendered context; '' when the episode is done. */
  prompt: string;
  /** Verifier pass as 0/1 on the step that ends the episode; 0 before. */
  reward: number;
  /** Verifier partial-credit score in [0, 1] (progress gated by preservation and completion, src/tasks/common.ts `verification`) on the final step; 0 before. */
  score: number;
  pass: boolean;
  done: boolean;
  /** Ended by the policy's finish. */
  terminated: boolean;
  /** Ended by a budget (turns, or an action the engine cut off). */
  truncated: boolean;
  truncationReason: TruncationReason | null;
  /** Behaviour tags so far (the verifier's verdict folded in on the final step). */
  tags: BehaviourTags;
  /** This call rebuilt the episode by replaying its history. */
  replayed: boolean;
}

interface Live {
  spec: ServeEpisodeSpec;
  task: Task;
  h: Harness;
  /** The actions applied so far, in order. */
  applied: ServeAction[];
}

/** Chat messages of a harness view. */
export function chatMessages(view: readonly Message[]): ChatMessage[] {
  return view.map((m) => ({ role: m.role, content: m.text, policy: m.policy }));
}

function makeHarness(spec: ServeEpisodeSpec): Harness {
  if (!Number.isInteger(spec.maxTurns) || spec.maxTurns < 1) throw new Error(`maxTurns must be an integer ≥ 1, got ${spec.maxTurns}`);
  // Token budgets belong to the engine (its max response length); the server bounds action
  // length in characters before a step reaches the harness. The harness counts turns (maxTurns
  // as given: the engine's cap, no workflow overhead), and tokens for C2 and the coding-CLI
  // compaction as ⌈chars / 4⌉ (the default): the engine's tokenizer is not the server's to know.
  return createHarness(spec.harnessId, { budget: { maxTurns: spec.maxTurns, maxContextTokens: Number.POSITIVE_INFINITY, maxActionTokens: Number.MAX_SAFE_INTEGER } });
}

/** Live episodes of one thread, bounded (LRU). */
export class ServeHost {
  private readonly live = new Map<string, Live>();

  /** @param capacity most episodes held (≥ 1); the least recently used is dropped beyond it. */
  constructor(private readonly capacity = 4096) {}

  /** Episodes currently held. */
  get size(): number {
    return this.live.size;
  }

  private hold(key: string, e: Live): void {
    this.live.delete(key);
    this.live.set(key, e); // Map order = recency
    while (this.live.size > this.capacity) this.live.delete(this.live.keys().next().value as string);
  }

  /**
   * Start (or restart) an episode.
   * @throws Error naming an unknown task or harness id, or a bad maxTurns.
   */
  create(spec: ServeEpisodeSpec): ServeOpening {
    const task = taskFromId(spec.taskId);
    const h = makeHarness(spec);
    h.reset(task);
    this.hold(spec.key, { spec, task, h, applied: [] });
    return { messages: chatMessages(h.view()), prompt: h.contextText() };
  }

  /**
   * Apply the last action of `history`, replaying the earlier ones first when this host does
   * not hold the episode after exactly history[0 … n−2] (`holdsEpisode`: the same key and turn
   * count with other actions — a step re-sent with another action — is not the episode).
   * Never throws on any action text.
   * @throws Error on an empty history, a history past the end of the episode, or unknown ids.
   */
  step(spec: ServeEpisodeSpec, history: readonly ServeAction[]): ServeStepOut {
    if (history.length === 0) throw new Error(`step(${spec.key}): empty action history`);
    let e = this.live.get(spec.key);
    let replayed = false;
    if (!holdsEpisode(e, spec, history)) {
      this.create(spec);
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
    const out: ServeStepOut = {
      observation: r.observation,
      kind: r.kind,
      messages: [],
      prompt: '',
      reward: 0,
      score: 0,
      pass: false,
      done: e.h.done,
      terminated: r.terminated,
      truncated: r.truncated,
      truncationReason: r.truncationReason ?? null,
      tags: e.h.tags(),
      replayed,
    };
    if (!e.h.done) {
      out.messages = chatMessages(e.h.view());
      out.prompt = e.h.contextText();
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

/** The API a serve worker thread exposes (every method may be awaited). */
export interface ServeHostApi {
  create(spec: ServeEpisodeSpec): ServeOpening | Promise<ServeOpening>;
  step(spec: ServeEpisodeSpec, history: ServeAction[]): ServeStepOut | Promise<ServeStepOut>;
  close(key: string): void | Promise<void>;
}
