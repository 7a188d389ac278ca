/**
 * `hlab serve`: an HTTP JSON environment server over the harness runtime and the task suites,
 * for external RL engines (docs/SCALE-OUT.md has the routes). This file is the server's
 * lifecycle (listen, count, expire, drain, close); routes.ts, episodes.ts and http.ts do the rest.
 *
 * Invariants: every input is bounded (protocol.ts) and every client error is a 4xx naming the
 * field, so a 5xx always means a server fault; steps run on worker threads (one slow episode
 * never blocks another) and one episode's steps are serialized (a concurrent step is a 409);
 * with a token every route but /v1/health needs `Authorization: Bearer <token>`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { EnvPool, defaultWorkers } from './pool';
import type { WatchdogTimer } from '../episode/worker_pool';
import { DEFAULT_LIMITS, HttpError, createEpisodeSchema, stepSchema, type ServeLimits } from './protocol';
import { sendJson } from './http';
import { EpisodeRegistry } from './episodes';
import { route, type RouteContext } from './routes';

/** Options of `startServer`. */
interface ServeOptions {
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
interface ServeStats {
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

/** A running server. */
interface RunningServer {
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

/**
 * Answer a request (routes.ts) and send the result; an HttpError becomes its 4xx, anything else a
 * logged 503 ('internal').
 */
function respond(ctx: RouteContext, req: IncomingMessage, res: ServerResponse, log: (line: string) => void): void {
  route(ctx, req).then(
    (r) => sendJson(res, r.status, r.body),
    (e: unknown) => {
      if (res.headersSent) return;
      if (e instanceof HttpError) {
        // After a refused oversized or stalled body the rest is not read: close the connection instead.
        sendJson(res, e.status, { error: e.message, field: e.field, code: e.code }, !req.complete ? { connection: 'close' } : {});
      } else {
        const msg = (e as Error)?.message ?? String(e);
        log(`[serve] internal error on ${req.method} ${req.url}: ${(e as Error)?.stack ?? msg}`);
        sendJson(res, 503, { error: `environment failure: ${msg.split('\n')[0].slice(0, 300)}`, field: null, code: 'internal' });
      }
    },
  );
}

/** Request counters by response class, updated when each response closes. */
interface RequestCounts {
  requests: number;
  status2xx: number;
  status4xx: number;
  status5xx: number;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Start a server. Resolves once it listens.
 * @throws Error when a non-loopback host has no token, or the port cannot be bound.
 */
export async function startServer(opts: ServeOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopback(host) && !opts.token)
    throw new Error(`host ${host} is not loopback: a bearer token is required (--token or HLAB_SERVE_TOKEN)`);
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
  const episodes = new EpisodeRegistry(pool, limits, now);
  const counts: RequestCounts = { requests: 0, status2xx: 0, status4xx: 0, status5xx: 0 };
  const ctx: RouteContext = {
    pool,
    episodes,
    limits,
    now,
    started: now(),
    token: opts.token ? Buffer.from(opts.token) : null,
    createBody: createEpisodeSchema(limits),
    stepBody: stepSchema(limits),
    requestCounts: () => ({ ...counts }),
  };
  let closing = false;
  let inFlight = 0;
  let drained: (() => void) | null = null;

  // Open connections per client address: one beyond the cap is answered 429 and closed.
  const perClient = new Map<string, number>();
  const overCap = new WeakSet<Socket>();
  const server: Server = createServer((req, res) => {
    counts.requests++;
    inFlight++;
    res.on('close', () => {
      inFlight--;
      const s = res.statusCode;
      if (s >= 500) counts.status5xx++;
      else if (s >= 400) counts.status4xx++;
      else counts.status2xx++;
      if (closing && inFlight === 0) drained?.();
    });
    if (closing) sendJson(res, 503, { error: 'server is shutting down', field: null, code: 'shutting_down' }, { connection: 'close' });
    else if (overCap.has(req.socket))
      sendJson(
        res,
        429,
        {
          error: `more than ${limits.maxConnectionsPerClient} open connections from ${req.socket.remoteAddress}`,
          field: null,
          code: 'too_many_connections',
        },
        { connection: 'close' },
      );
    else respond(ctx, req, res, log);
  });
  server.on('connection', (socket: Socket) => {
    const who = socket.remoteAddress ?? '?';
    const n = (perClient.get(who) ?? 0) + 1;
    perClient.set(who, n);
    if (n > limits.maxConnectionsPerClient) {
      overCap.add(socket);
      // It gets one answer (the 429) if it asks soon; otherwise it is dropped.
      socket.setTimeout(limits.bodyTimeoutMs, () => socket.destroy());
    }
    socket.once('close', () => {
      const left = (perClient.get(who) ?? 1) - 1;
      if (left > 0) perClient.set(who, left);
      else perClient.delete(who);
    });
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  server.keepAliveTimeout = 30_000;

  const sweep = () => episodes.sweep();
  const sweeper = setInterval(sweep, Math.max(1000, Math.min(30_000, limits.idleMs / 2)));
  sweeper.unref();

  await listen(server, opts.port ?? 0, host);
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | null = null;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    host,
    get stats() {
      return { ...episodes.counts, held: episodes.size, ...counts };
    },
    sweep,
    close() {
      closed ??= (async () => {
        closing = true;
        clearInterval(sweeper);
        const stopped = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        if (inFlight > 0) {
          await Promise.race([
            new Promise<void>((r) => (drained = r)),
            new Promise<void>((r) => setTimeout(r, opts.drainMs ?? 10_000).unref()),
          ]);
        }
        server.closeAllConnections();
        await stopped;
        pool.terminate();
      })();
      return closed;
    },
  };
}
