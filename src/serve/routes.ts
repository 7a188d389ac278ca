/**
 * The routes of `hlab serve` (server.ts; the table is in its header and docs/SCALE-OUT.md): one
 * handler per route and `route`, which matches a request to one, checks its method and the
 * bearer token. Handlers return the response body; a client error is a thrown HttpError.
 */
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { DEFAULT_SPACE, selectTraining } from '../design';
import { BLACKBOX_IDS, allComposedIds } from '../harness/registry';
import { getSuite, taskSet } from '../tasks';
import type { EnvPool } from './pool';
import { HttpError, designQuery, parseWith, tasksQuery, type createEpisodeSchema, type ServeLimits, type stepSchema } from './protocol';
import { parseJson, queryObject, readBody } from './http';
import type { EpisodeRegistry } from './episodes';

const SERVE_API_VERSION = 1;

/** What the handlers read: the server's parts and counters. */
export interface RouteContext {
  pool: EnvPool;
  episodes: EpisodeRegistry;
  limits: ServeLimits;
  now: () => number;
  /** When the server started (now()), ms. */
  started: number;
  /** The bearer token's bytes (null: no token required). */
  token: Buffer | null;
  /** The request body schemas for these limits (protocol.ts), built once. */
  createBody: ReturnType<typeof createEpisodeSchema>;
  stepBody: ReturnType<typeof stepSchema>;
  /** Request and response counters (GET /v1/health). */
  requestCounts: () => Record<string, number>;
}

/** A response: status and JSON body. */
interface RouteResult {
  status: number;
  body: unknown;
}

/** One request as the handlers see it. */
interface Req {
  req: IncomingMessage;
  url: URL;
  method: string;
}

const ok = (body: unknown, status = 200): RouteResult => ({ status, body });

function authorized(req: IncomingMessage, token: Buffer | null): boolean {
  if (!token) return true;
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1]);
  return given.length === token.length && timingSafeEqual(given, token);
}

function allow(r: Req, ...methods: string[]): void {
  if (!methods.includes(r.method))
    throw new HttpError(405, 'method', `${r.method} ${r.url.pathname.slice(0, 120)}: allowed ${methods.join(', ')}`, 'method_not_allowed');
}

function noQuery(r: Req): void {
  const first = r.url.searchParams.keys().next();
  if (!first.done) throw new HttpError(400, first.value, `unknown query parameter '${first.value}'`);
}

const readJson = async (ctx: RouteContext, r: Req): Promise<unknown> =>
  parseJson(await readBody(r.req, ctx.limits.maxBodyBytes, ctx.limits.bodyTimeoutMs));

/** GET /v1/health: liveness, counters, limits (no token needed). */
function health(ctx: RouteContext, r: Req): RouteResult {
  allow(r, 'GET');
  return ok({
    ok: true,
    apiVersion: SERVE_API_VERSION,
    uptimeS: Math.round((ctx.now() - ctx.started) / 1000),
    workers: ctx.pool.workers,
    pool: ctx.pool.stats,
    episodes: { ...ctx.episodes.counts, held: ctx.episodes.size, ...ctx.requestCounts() },
    limits: ctx.limits,
    auth: ctx.token !== null,
  });
}

/** GET /v1/harnesses: the space's components, the composed ids, the black-box ids. */
function harnesses(_ctx: RouteContext, r: Req): RouteResult {
  allow(r, 'GET');
  noQuery(r);
  return ok({
    components: DEFAULT_SPACE.components.map((k) => ({ key: k.key, name: k.name, realizations: k.realizations })),
    composed: allComposedIds(),
    blackbox: [...BLACKBOX_IDS],
  });
}

// The design report of the default OA is fixed: computed once per process.
let oaReport: ReturnType<typeof selectTraining> | null = null;

/** GET /v1/design?method=oa|random&k&seed: a training set and the held-out set with distances. */
function design(_ctx: RouteContext, r: Req): RouteResult {
  allow(r, 'GET');
  const q = parseWith(designQuery, queryObject(r.url), 'query');
  if (q.method === 'oa') {
    oaReport ??= selectTraining(DEFAULT_SPACE, { method: 'oa' });
    if (q.k !== undefined && q.k !== oaReport.runSize)
      throw new HttpError(400, 'k', `k: method oa has ${oaReport.runSize} runs; a different k needs method=random`);
    return ok(oaReport);
  }
  return ok(selectTraining(DEFAULT_SPACE, { method: 'random', k: q.k, seed: q.seed }));
}

/** GET /v1/tasks?suite&split&n&seed: a balanced seeded task draw. */
function tasks(_ctx: RouteContext, r: Req): RouteResult {
  allow(r, 'GET');
  const q = parseWith(tasksQuery, queryObject(r.url), 'query');
  const drawn = taskSet(q.suite, q.split, q.n, q.seed);
  return ok({
    suite: q.suite,
    split: q.split,
    seed: q.seed,
    n: q.n,
    families: getSuite(q.suite).families,
    tasks: drawn.map((t) => ({ id: t.id, family: t.family, tier: t.tier, seed: t.seed, instruction: t.instruction })),
  });
}

/** POST /v1/episodes: open an episode (201). */
async function createEpisode(ctx: RouteContext, r: Req): Promise<RouteResult> {
  allow(r, 'POST');
  noQuery(r);
  const body = parseWith(ctx.createBody, await readJson(ctx, r), 'body');
  return ok(await ctx.episodes.create(body), 201);
}

/** POST /v1/episodes/{id}/step: take one action. */
async function stepEpisode(ctx: RouteContext, r: Req, id: string): Promise<RouteResult> {
  allow(r, 'POST');
  noQuery(r);
  ctx.episodes.assertExists(id);
  const body = parseWith(ctx.stepBody, await readJson(ctx, r), 'body');
  return ok(await ctx.episodes.step(id, body));
}

/** GET /v1/episodes/{id}: state and transcript; DELETE: delete it. */
function episode(ctx: RouteContext, r: Req, id: string): RouteResult {
  allow(r, 'GET', 'DELETE');
  noQuery(r);
  return ok(r.method === 'GET' ? ctx.episodes.state(id) : ctx.episodes.remove(id));
}

function episodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'episodeId', `episode id '${raw.slice(0, 80)}' is not valid percent-encoding`);
  }
}

const ROUTES_2: Record<string, (ctx: RouteContext, r: Req) => RouteResult | Promise<RouteResult>> = {
  harnesses,
  design,
  tasks,
  episodes: createEpisode,
};

/**
 * Answer one request. @returns the response
 * @throws HttpError for a client error (unknown route 404, wrong method 405, no token 401, bad input 4xx)
 */
export async function route(ctx: RouteContext, req: IncomingMessage): Promise<RouteResult> {
  let url: URL;
  try {
    // Prefix the origin instead of resolving against it: '//x' is a path here, not a host.
    url = new URL('http://serve' + (req.url ?? '/'));
  } catch {
    throw new HttpError(400, 'path', `malformed request target '${String(req.url).slice(0, 120)}'`);
  }
  const r: Req = { req, url, method: req.method ?? 'GET' };
  const parts = url.pathname.split('/').filter((p) => p !== '');
  if (parts[0] !== 'v1')
    throw new HttpError(404, 'path', `no route ${url.pathname.slice(0, 120)}; routes are under /v1 (see docs/SCALE-OUT.md)`, 'not_found');
  const [, a, b, c] = parts;
  if (a === 'health' && parts.length === 2) return health(ctx, r);
  if (!authorized(req, ctx.token))
    throw new HttpError(401, 'authorization', 'missing or wrong bearer token (Authorization: Bearer <token>)', 'unauthorized');
  const noRoute = () => new HttpError(404, 'path', `no route ${url.pathname.slice(0, 120)}`, 'not_found');
  if (parts.length === 2 && Object.hasOwn(ROUTES_2, a)) return ROUTES_2[a](ctx, r);
  if (a !== 'episodes') throw noRoute();
  const id = episodeId(b);
  if (parts.length === 4 && c === 'step') return stepEpisode(ctx, r, id);
  if (parts.length === 3) return episode(ctx, r, id);
  throw noRoute();
}
