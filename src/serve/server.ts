/**
 * `hlab serve`: an HTTP JSON environment server over the harness runtime and the task suites,
 * for external RL engines (verl, slime, OpenRLHF) — docs/SCALE-OUT.md.
 *
 *   GET    /v1/health                         liveness, counters, limits
 *   GET    /v1/harnesses                      the space's components, the 243 ids, black-box ids
 *   GET    /v1/design?method=oa&k=18&seed=0   training set, held-out set with distances
 *   GET    /v1/tasks?suite=S&split=train&n=20&seed=0   a balanced seeded task draw
 *   POST   /v1/episodes {suite, task?, harness, seed?, maxTurns?, …} → 201 {episodeId, messages, prompt, …}
 *   POST   /v1/episodes/{id}/step {action, cutOff?} → {observation, messages, prompt, reward, score, pass, done, truncated, tags, …}
 *   GET    /v1/episodes/{id}                  state and transcript
 *   DELETE /v1/episodes/{id}
 *
 * Robustness: bodies, actions, episodes and turns are bounded (protocol.ts); every client
 * error is a 4xx with a JSON body naming the field; a step runs on a worker thread (pool.ts)
 * so one slow episode never blocks another; steps of one episode are serialized (a second
 * concurrent step is a 409); idle episodes expire; with a token every route but /v1/health
 * needs `Authorization: Bearer <token>`; `close()` drains in-flight requests, then stops.
 * A 5xx means a server fault (a worker that failed twice, a bug), never a policy's input.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { DEFAULT_SPACE, selectTraining } from '../design';
import { BLACKBOX_IDS, allComposedIds, createHarness } from '../harness/registry';
import { resolveTask } from '../tasks/task_ref';
import { getSuite, taskSet } from '../tasks';
import type { SuiteName, Task } from '../tasks/types';
import { EnvPool, defaultWorkers } from './pool';
import type { ChatMessage, ServeAction, ServeEpisodeSpec, ServeStepOut } from './host';
import type { WatchdogTimer } from '../rollout/worker_pool';
import { DEFAULT_LIMITS, HttpError, createEpisodeSchema, designQuery, parseWith, stepSchema, tasksQuery, type ServeLimits } from './protocol';

export const SERVE_API_VERSION = 1;

/** Options of `startServer`. */
export interface ServeOptions {
  /** Interface to bind (default 127.0.0.1). A non-loopback host requires `token`. */
  host?: string;
  /** TCP port; 0 = any free port (default 0; the CLI defaults to 8765). */
  port?: number;
  /** Bearer token; required on every route but /v1/health when set. */
  token?: string;
  /** Worker threads (0 = in-process; default `defaultWorkers()`). */
  workers?: number;
  /** Watchdog of one step on a worker, ms (default 30 000). */
  watchdogMs?: number;
  /** Retries of a failed or hung step on a fresh worker before a 503 (default 1). */
  maxRetries?: number;
  limits?: Partial<ServeLimits>;
  /** Clock for idle expiry (ms; default Date.now) — injectable so tests need no waiting. */
  now?: () => number;
  /** Fault injection for tests (pool.ts `stallAction`). */
  stallAction?: string;
  /** The workers' watchdog timer (worker_pool.ts `WatchdogTimer`; default setTimeout after `watchdogMs`). */
  startWatchdog?: WatchdogTimer;
  /** Most ms `close()` waits for in-flight requests before cutting connections (default 10 000). */
  drainMs?: number;
  /** Where operator diagnostics go (an internal error with its stack), one call per line (default stderr). */
  log?: (line: string) => void;
}

/** Server counters (GET /v1/health `episodes` and `requests`). */
export interface ServeStats {
  created: number;
  /** Episodes that reached done (terminated or truncated). */
  finished: number;
  deleted: number;
  expired: number;
  /** Episodes held now (live or finished, not yet deleted). */
  held: number;
  requests: number;
  /** Responses by class. */
  status2xx: number;
  status4xx: number;
  status5xx: number;
}

/** One transcript entry of GET /v1/episodes/{id}. */
export interface TurnEntry {
  turn: number;
  action: string;
  cutOff: boolean;
  observation: string;
  kind: ServeStepOut['kind'];
}

interface Episode {
  id: string;
  spec: ServeEpisodeSpec;
  suite: SuiteName;
  task: Task;
  seed: number | null;
  createdAt: number;
  lastActive: number;
  history: ServeAction[];
  turns: TurnEntry[];
  messages: ChatMessage[];
  prompt: string;
  busy: boolean;
  final: ServeStepOut | null;
}

/** A running server. */
export interface RunningServer {
  /** e.g. http://127.0.0.1:8765 */
  url: string;
  port: number;
  host: string;
  readonly stats: ServeStats;
  /** Delete idle episodes now (the server also does it on a timer); returns how many. */
  sweep(): number;
  /** Graceful shutdown: refuse new requests (503), drain in-flight ones, stop the workers. Idempotent. */
  close(): Promise<void>;
}

/** True for 127.0.0.0/8, ::1 and 'localhost'. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function sendJson(res: ServerResponse, status: number, body: unknown, extraHeaders: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...extraHeaders });
  res.end(text);
}

/**
 * Read the body up to `limit` bytes. A longer body is read to its end and discarded (so the
 * connection stays usable) unless it declares more than 16× the limit, which is refused at once.
 * @throws HttpError 413 (field 'body') beyond the limit.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > 16 * limit)
    return Promise.reject(new HttpError(413, 'body', `body is ${declared} bytes, more than the ${limit}-byte limit`, 'too_large'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
      else if (size > 16 * limit) req.destroy();
    });
    req.on('end', () => {
      if (size > limit) reject(new HttpError(413, 'body', `body is ${size} bytes, more than the ${limit}-byte limit`, 'too_large'));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', (e) => reject(new HttpError(400, 'body', `could not read the body: ${e.message}`)));
    req.on('close', () => {
      if (size > 16 * limit) reject(new HttpError(413, 'body', `body is more than 16 × the ${limit}-byte limit`, 'too_large'));
    });
  });
}

function parseJson(text: string): unknown {
  if (text.trim() === '') throw new HttpError(400, 'body', 'body: expected a JSON object, got an empty body');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, 'body', `body: invalid JSON (${(e as Error).message.slice(0, 120)})`);
  }
}

function queryObject(url: URL): Record<string, string> {
  const q: Record<string, string> = {};
  for (const [k, v] of url.searchParams) {
    if (k in q) throw new HttpError(400, k, `${k}: given twice`);
    q[k] = v;
  }
  return q;
}

/**
 * Start a server. Resolves once it listens.
 * @throws Error when a non-loopback host has no token, or the port cannot be bound.
 */
export async function startServer(opts: ServeOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopback(host) && !opts.token) throw new Error(`host ${host} is not loopback: a bearer token is required (--token or HLAB_SERVE_TOKEN)`);
  const limits: ServeLimits = { ...DEFAULT_LIMITS, ...(opts.limits ?? {}) };
  if (limits.defaultMaxTurns > limits.maxTurns) limits.defaultMaxTurns = limits.maxTurns;
  const now = opts.now ?? Date.now;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pool = new EnvPool({
    workers: opts.workers ?? defaultWorkers(),
    watchdogMs: opts.watchdogMs ?? 30_000,
    maxRetries: opts.maxRetries,
    stallAction: opts.stallAction,
    startWatchdog: opts.startWatchdog,
  });
  const createBody = createEpisodeSchema(limits);
  const stepBody = stepSchema(limits);
  const tokenBuf = opts.token ? Buffer.from(opts.token) : null;
  const episodes = new Map<string, Episode>();
  const stats: ServeStats = { created: 0, finished: 0, deleted: 0, expired: 0, held: 0, requests: 0, status2xx: 0, status4xx: 0, status5xx: 0 };
  const started = now();
  let closing = false;
  let inFlight = 0;
  let drained: (() => void) | null = null;
  // The design report of the default OA is fixed: compute once.
  let oaReport: ReturnType<typeof selectTraining> | null = null;

  const authorized = (req: IncomingMessage): boolean => {
    if (!tokenBuf) return true;
    const h = req.headers.authorization ?? '';
    const m = /^Bearer (.+)$/.exec(h);
    if (!m) return false;
    const given = Buffer.from(m[1]);
    return given.length === tokenBuf.length && timingSafeEqual(given, tokenBuf);
  };

  const getEpisode = (id: string): Episode => {
    const e = episodes.get(id);
    if (!e) throw new HttpError(404, 'episodeId', `no episode '${id.slice(0, 80)}' (never created, deleted, or expired after ${limits.idleMs} ms idle)`, 'not_found');
    return e;
  };

  const resolveEpisodeTask = (b: { suite: SuiteName; task?: string | number; seed?: number; split?: 'train' | 'test'; family?: string; tier?: number }): Task => {
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
  };

  const publicState = (e: Episode) => ({
    episodeId: e.id,
    suite: e.suite,
    task: e.task.id,
    harness: e.spec.harnessId,
    seed: e.seed,
    maxTurns: e.spec.maxTurns,
    turn: e.history.length,
    done: e.final !== null,
    createdAt: new Date(e.createdAt).toISOString(),
    lastActiveAt: new Date(e.lastActive).toISOString(),
    messages: e.messages,
    prompt: e.prompt,
    transcript: e.turns,
    result: e.final
      ? {
          reward: e.final.reward,
          score: e.final.score,
          pass: e.final.pass,
          terminated: e.final.terminated,
          truncated: e.final.truncated,
          truncationReason: e.final.truncationReason,
          tags: e.final.tags,
        }
      : null,
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      // Prefix the origin instead of resolving against it: '//x' is a path here, not a host.
      url = new URL('http://serve' + (req.url ?? '/'));
    } catch {
      throw new HttpError(400, 'path', `malformed request target '${String(req.url).slice(0, 120)}'`);
    }
    const method = req.method ?? 'GET';
    const parts = url.pathname.split('/').filter((p) => p !== '');
    if (parts[0] !== 'v1') throw new HttpError(404, 'path', `no route ${url.pathname.slice(0, 120)}; routes are under /v1 (see docs/SCALE-OUT.md)`, 'not_found');
    const allow = (...methods: string[]) => {
      if (!methods.includes(method)) throw new HttpError(405, 'method', `${method} ${url.pathname.slice(0, 120)}: allowed ${methods.join(', ')}`, 'method_not_allowed');
    };
    const noQuery = () => {
      const first = url.searchParams.keys().next();
      if (!first.done) throw new HttpError(400, first.value, `unknown query parameter '${first.value}'`);
    };
    const [, a, b, c] = parts;
    if (a === 'health' && parts.length === 2) {
      allow('GET');
      return sendJson(res, 200, {
        ok: true,
        apiVersion: SERVE_API_VERSION,
        uptimeS: Math.round((now() - started) / 1000),
        workers: pool.workers,
        pool: pool.stats,
        episodes: { ...stats, held: episodes.size },
        limits,
        auth: tokenBuf !== null,
      });
    }
    if (!authorized(req)) throw new HttpError(401, 'authorization', 'missing or wrong bearer token (Authorization: Bearer <token>)', 'unauthorized');
    if (a === 'harnesses' && parts.length === 2) {
      allow('GET');
      noQuery();
      return sendJson(res, 200, {
        components: DEFAULT_SPACE.components.map((k) => ({ key: k.key, name: k.name, realizations: k.realizations })),
        composed: allComposedIds(),
        blackbox: [...BLACKBOX_IDS],
      });
    }
    if (a === 'design' && parts.length === 2) {
      allow('GET');
      const q = parseWith(designQuery, queryObject(url), 'query');
      if (q.method === 'oa') {
        oaReport ??= selectTraining(DEFAULT_SPACE, { method: 'oa' });
        if (q.k !== undefined && q.k !== oaReport.runSize) throw new HttpError(400, 'k', `k: method oa has ${oaReport.runSize} runs; a different k needs method=random`);
        return sendJson(res, 200, oaReport);
      }
      return sendJson(res, 200, selectTraining(DEFAULT_SPACE, { method: 'random', k: q.k, seed: q.seed }));
    }
    if (a === 'tasks' && parts.length === 2) {
      allow('GET');
      const q = parseWith(tasksQuery, queryObject(url), 'query');
      const tasks = taskSet(q.suite, q.split, q.n, q.seed);
      return sendJson(res, 200, {
        suite: q.suite,
        split: q.split,
        seed: q.seed,
        n: q.n,
        families: getSuite(q.suite).families,
        tasks: tasks.map((t) => ({ id: t.id, family: t.family, tier: t.tier, seed: t.seed, instruction: t.instruction })),
      });
    }
    if (a !== 'episodes') throw new HttpError(404, 'path', `no route ${url.pathname.slice(0, 120)}`, 'not_found');
    if (parts.length === 2) {
      allow('POST');
      noQuery();
      const body = parseWith(createBody, parseJson(await readBody(req, limits.maxBodyBytes)), 'body');
      if (episodes.size >= limits.maxEpisodes) {
        throw new HttpError(429, 'episodes', `${episodes.size} episodes held, the limit (--max-episodes ${limits.maxEpisodes}); DELETE finished ones`, 'too_many_episodes');
      }
      const task = resolveEpisodeTask(body);
      try {
        createHarness(body.harness);
      } catch (e) {
        throw new HttpError(400, 'harness', `harness: ${(e as Error).message}`);
      }
      const id = randomUUID();
      const spec: ServeEpisodeSpec = { key: id, taskId: task.id, harnessId: body.harness, maxTurns: body.maxTurns ?? limits.defaultMaxTurns };
      // Reserve the slot before awaiting the worker, so concurrent creates respect maxEpisodes.
      const t = now();
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
      episodes.set(id, ep);
      try {
        const open = await pool.create(spec);
        ep.messages = open.messages;
        ep.prompt = open.prompt;
      } catch (e) {
        episodes.delete(id);
        pool.close(id);
        throw e;
      } finally {
        ep.busy = false;
        ep.lastActive = now();
      }
      stats.created++;
      return sendJson(res, 201, {
        episodeId: id,
        suite: body.suite,
        task: task.id,
        harness: body.harness,
        seed: ep.seed,
        maxTurns: spec.maxTurns,
        messages: ep.messages,
        prompt: ep.prompt,
      });
    }
    let id: string;
    try {
      id = decodeURIComponent(b);
    } catch {
      throw new HttpError(400, 'episodeId', `episode id '${b.slice(0, 80)}' is not valid percent-encoding`);
    }
    if (parts.length === 4 && c === 'step') {
      allow('POST');
      noQuery();
      const ep = getEpisode(id);
      const body = parseWith(stepBody, parseJson(await readBody(req, limits.maxBodyBytes)), 'body');
      if (ep.final) throw new HttpError(409, 'episodeId', `episode '${id}' is done (turn ${ep.history.length}); create a new one`, 'episode_done');
      if (ep.busy) throw new HttpError(409, 'episodeId', `episode '${id}' has a step in progress; steps of one episode are sequential`, 'step_in_progress');
      ep.busy = true;
      const action: ServeAction = { text: body.action, cutOff: body.cutOff ?? false };
      let out: ServeStepOut;
      try {
        out = await pool.step(ep.spec, [...ep.history, action]);
      } finally {
        ep.busy = false;
        ep.lastActive = now();
      }
      if (!episodes.has(id)) throw new HttpError(404, 'episodeId', `episode '${id}' was deleted during the step`, 'not_found');
      ep.history.push(action);
      ep.turns.push({ turn: ep.history.length, action: action.text, cutOff: action.cutOff, observation: out.observation, kind: out.kind });
      ep.messages = out.messages;
      ep.prompt = out.prompt;
      if (out.done) {
        ep.final = out;
        stats.finished++;
      }
      const { replayed: _r, ...rest } = out;
      return sendJson(res, 200, { episodeId: id, turn: ep.history.length, ...rest });
    }
    if (parts.length === 3) {
      allow('GET', 'DELETE');
      noQuery();
      const ep = getEpisode(id);
      if (method === 'GET') return sendJson(res, 200, publicState(ep));
      episodes.delete(id);
      pool.close(id);
      stats.deleted++;
      return sendJson(res, 200, { episodeId: id, deleted: true, turn: ep.history.length, done: ep.final !== null });
    }
    throw new HttpError(404, 'path', `no route ${url.pathname.slice(0, 120)}`, 'not_found');
  }

  const server: Server = createServer((req, res) => {
    stats.requests++;
    inFlight++;
    res.on('close', () => {
      inFlight--;
      const s = res.statusCode;
      if (s >= 500) stats.status5xx++;
      else if (s >= 400) stats.status4xx++;
      else stats.status2xx++;
      if (closing && inFlight === 0) drained?.();
    });
    if (closing) {
      sendJson(res, 503, { error: 'server is shutting down', field: null, code: 'shutting_down' }, { connection: 'close' });
      return;
    }
    route(req, res).catch((e: unknown) => {
      if (res.headersSent) return;
      if (e instanceof HttpError) {
        // After a refused oversized body the rest is not read: close the connection instead.
        sendJson(res, e.status, { error: e.message, field: e.field, code: e.code }, e.status === 413 && !req.complete ? { connection: 'close' } : {});
      } else {
        const msg = (e as Error)?.message ?? String(e);
        log(`[serve] internal error on ${req.method} ${req.url}: ${(e as Error)?.stack ?? msg}`);
        sendJson(res, 503, { error: `environment failure: ${msg.split('\n')[0].slice(0, 300)}`, field: null, code: 'internal' });
      }
    });
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  server.keepAliveTimeout = 30_000;

  const sweep = (): number => {
    const t = now();
    let n = 0;
    for (const [id, e] of episodes) {
      if (!e.busy && t - e.lastActive > limits.idleMs) {
        episodes.delete(id);
        pool.close(id);
        stats.expired++;
        n++;
      }
    }
    return n;
  };
  const sweeper = setInterval(sweep, Math.max(1000, Math.min(30_000, limits.idleMs / 2)));
  sweeper.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | null = null;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    host,
    get stats() {
      return { ...stats, held: episodes.size };
    },
    sweep,
    close() {
      closed ??= (async () => {
        closing = true;
        clearInterval(sweeper);
        const stopped = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        if (inFlight > 0) {
          await Promise.race([new Promise<void>((r) => (drained = r)), new Promise<void>((r) => setTimeout(r, opts.drainMs ?? 10_000).unref())]);
        }
        server.closeAllConnections();
        await stopped;
        pool.terminate();
      })();
      return closed;
    },
  };
}
