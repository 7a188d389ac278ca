/**
 * The episodes `hlab serve` holds (server.ts): create one on a pool worker, step it (steps of
 * one episode are serialized: a concurrent second step is a 409), read its state and
 * transcript, delete it, and expire idle ones. Bounded by ServeLimits (maxEpisodes, idleMs).
 * Every client error is an HttpError naming its field.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { createHarness } from '../harness/registry';
import { resolveTask } from '../tasks/task_ref';
import { taskSet } from '../tasks';
import type { SuiteName, Task } from '../tasks/types';
import type { EnvPool } from './pool';
import type { ActionInput, ChatMessage, EnvStepOut, EpisodeSpec } from '../episode/host';
import { HttpError, type createEpisodeSchema, type ServeLimits, type stepSchema } from './protocol';

/** One transcript entry of GET /v1/episodes/{id}. */
interface TurnEntry {
  turn: number;
  action: string;
  cutOff: boolean;
  observation: string;
  kind: EnvStepOut['kind'];
}

interface Episode {
  id: string;
  spec: EpisodeSpec;
  suite: SuiteName;
  task: Task;
  seed: number | null;
  createdAt: number;
  lastActive: number;
  history: ActionInput[];
  turns: TurnEntry[];
  messages: ChatMessage[];
  prompt: string;
  busy: boolean;
  final: EnvStepOut | null;
}

/** The body of POST /v1/episodes and of POST /v1/episodes/{id}/step, as validated by protocol.ts. */
type CreateEpisodeBody = z.infer<ReturnType<typeof createEpisodeSchema>>;
type StepBody = z.infer<ReturnType<typeof stepSchema>>;

/** Episode counters (GET /v1/health `episodes`). */
interface EpisodeCounts {
  created: number;
  /** Episodes that reached done (terminated or truncated). */
  finished: number;
  deleted: number;
  expired: number;
}

/** The task of a create request: a named task, or a seeded draw from the suite's split. */
function resolveEpisodeTask(b: {
  suite: SuiteName;
  task?: string | number;
  seed?: number;
  split?: 'train' | 'test';
  family?: string;
  tier?: number;
}): Task {
  if (b.task === undefined) {
    if (b.family !== undefined || b.tier !== undefined) throw new HttpError(400, 'task', 'task: required when family or tier is given');
    return taskSet(b.suite, b.split ?? 'train', 1, b.seed ?? 0)[0];
  }
  try {
    return resolveTask(b.suite, String(b.task), b.family, b.tier ?? 1);
  } catch (e) {
    const msg = (e as Error).message.replace(/^--task /, '');
    throw new HttpError(400, msg.startsWith('unknown family') ? (b.family !== undefined ? 'family' : 'task') : 'task', `task: ${msg}`);
  }
}

/** A step's fields in the order the HTTP step response gives them (`prompt`: '' when done). */
function stepBody(o: EnvStepOut): Record<string, unknown> {
  const { observation, kind, messages, reward, score, pass, done, terminated, truncated, truncationReason, tags } = o;
  return { observation, kind, messages, prompt: o.context ?? '', reward, score, pass, done, terminated, truncated, truncationReason, tags };
}

/** The episodes of one server, over its worker pool. */
export class EpisodeRegistry {
  private readonly episodes = new Map<string, Episode>();
  readonly counts: EpisodeCounts = { created: 0, finished: 0, deleted: 0, expired: 0 };

  /** @param now clock for idle expiry, ms */
  constructor(
    private readonly pool: EnvPool,
    private readonly limits: ServeLimits,
    private readonly now: () => number,
  ) {}

  /** Episodes held now (live or finished, not yet deleted or expired). */
  get size(): number {
    return this.episodes.size;
  }

  private get(id: string): Episode {
    const e = this.episodes.get(id);
    if (!e)
      throw new HttpError(
        404,
        'episodeId',
        `no episode '${id.slice(0, 80)}' (never created, deleted, or expired after ${this.limits.idleMs} ms idle)`,
        'not_found',
      );
    return e;
  }

  /**
   * Open an episode on a worker. @returns the 201 body (id, task, opening messages and prompt)
   * @throws HttpError 429 at maxEpisodes, 400 for an unknown task or harness
   */
  async create(body: CreateEpisodeBody): Promise<Record<string, unknown>> {
    if (this.episodes.size >= this.limits.maxEpisodes) {
      throw new HttpError(
        429,
        'episodes',
        `${this.episodes.size} episodes held, the limit (--max-episodes ${this.limits.maxEpisodes}); DELETE finished ones`,
        'too_many_episodes',
      );
    }
    const task = resolveEpisodeTask(body);
    try {
      createHarness(body.harness);
    } catch (e) {
      throw new HttpError(400, 'harness', `harness: ${(e as Error).message}`);
    }
    const id = randomUUID();
    const spec: EpisodeSpec = { key: id, taskId: task.id, harnessId: body.harness, maxTurns: body.maxTurns ?? this.limits.defaultMaxTurns };
    // Reserve the slot before awaiting the worker, so concurrent creates respect maxEpisodes.
    const t = this.now();
    const ep: Episode = {
      id,
      spec,
      suite: body.suite,
      task,
      seed: body.seed ?? null,
      createdAt: t,
      lastActive: t,
      history: [],
      turns: [],
      messages: [],
      prompt: '',
      busy: true,
      final: null,
    };
    this.episodes.set(id, ep);
    try {
      const open = await this.pool.create(spec);
      ep.messages = open.messages;
      ep.prompt = open.context;
    } catch (e) {
      this.episodes.delete(id);
      this.pool.close(id);
      throw e;
    } finally {
      ep.busy = false;
      ep.lastActive = this.now();
    }
    this.counts.created++;
    return {
      episodeId: id,
      suite: body.suite,
      task: task.id,
      harness: body.harness,
      seed: ep.seed,
      maxTurns: spec.maxTurns,
      messages: ep.messages,
      prompt: ep.prompt,
    };
  }

  /** The episode's id must exist before its body is read (a 404 before a 400). */
  assertExists(id: string): void {
    this.get(id);
  }

  /**
   * Take one action. @returns the step's body (observation, reward, done, …)
   * @throws HttpError 404 unknown (or deleted during the step), 409 done or a step in progress
   */
  async step(id: string, body: StepBody): Promise<Record<string, unknown>> {
    const ep = this.get(id);
    if (ep.final)
      throw new HttpError(409, 'episodeId', `episode '${id}' is done (turn ${ep.history.length}); create a new one`, 'episode_done');
    if (ep.busy)
      throw new HttpError(
        409,
        'episodeId',
        `episode '${id}' has a step in progress; steps of one episode are sequential`,
        'step_in_progress',
      );
    ep.busy = true;
    const action: ActionInput = { text: body.action, cutOff: body.cutOff ?? false };
    let out: EnvStepOut;
    try {
      out = await this.pool.step(ep.spec, [...ep.history, action]);
    } finally {
      ep.busy = false;
      ep.lastActive = this.now();
    }
    if (!this.episodes.has(id)) throw new HttpError(404, 'episodeId', `episode '${id}' was deleted during the step`, 'not_found');
    ep.history.push(action);
    ep.turns.push({ turn: ep.history.length, action: action.text, cutOff: action.cutOff, observation: out.observation, kind: out.kind });
    ep.messages = out.messages;
    ep.prompt = out.context ?? '';
    if (out.done) {
      ep.final = out;
      this.counts.finished++;
    }
    return { episodeId: id, turn: ep.history.length, ...stepBody(out) };
  }

  /** State and transcript of an episode (GET /v1/episodes/{id}). @throws HttpError 404 */
  state(id: string): Record<string, unknown> {
    const e = this.get(id);
    const f = e.final;
    return {
      episodeId: e.id,
      suite: e.suite,
      task: e.task.id,
      harness: e.spec.harnessId,
      seed: e.seed,
      maxTurns: e.spec.maxTurns,
      turn: e.history.length,
      done: f !== null,
      createdAt: new Date(e.createdAt).toISOString(),
      lastActiveAt: new Date(e.lastActive).toISOString(),
      messages: e.messages,
      prompt: e.prompt,
      transcript: e.turns,
      result: f
        ? {
            reward: f.reward,
            score: f.score,
            pass: f.pass,
            terminated: f.terminated,
            truncated: f.truncated,
            truncationReason: f.truncationReason,
            tags: f.tags,
          }
        : null,
    };
  }

  /** Delete an episode and free its worker state. @throws HttpError 404 */
  remove(id: string): Record<string, unknown> {
    const ep = this.get(id);
    this.episodes.delete(id);
    this.pool.close(id);
    this.counts.deleted++;
    return { episodeId: id, deleted: true, turn: ep.history.length, done: ep.final !== null };
  }

  /** Delete the episodes idle longer than limits.idleMs (never one mid-step). @returns how many */
  sweep(): number {
    const t = this.now();
    let n = 0;
    for (const [id, e] of this.episodes) {
      if (!e.busy && t - e.lastActive > this.limits.idleMs) {
        this.episodes.delete(id);
        this.pool.close(id);
        this.counts.expired++;
        n++;
      }
    }
    return n;
  }
}
