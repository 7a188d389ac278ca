/**
 * The serve worker pool: episodes' steps run on node worker threads (thread.ts) through the
 * rollout `WorkerPool` (src/rollout/worker_pool.ts: a watchdog per job, a thrown / hung /
 * dead worker replaced and the job retried on a fresh one), so the HTTP thread stays free and
 * one slow step occupies one worker only. Jobs are restartable because every step carries
 * the episode's whole history (host.ts). `workers: 0` runs a `ServeHost` in-process instead
 * (tests, tiny deployments): simpler, but then a slow step does block the server.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool, type WorkerPoolStats } from '../rollout/worker_pool';
import { ServeHost, type ServeAction, type ServeEpisodeSpec, type ServeHostApi, type ServeOpening, type ServeStepOut } from './host';
import { WebWorkerShim } from './node_endpoint';

export interface EnvPoolOptions {
  /** Worker threads, integer ≥ 0 (0 = in-process host). */
  workers: number;
  /** A step or create running longer than this (ms) is abandoned, its worker replaced. */
  watchdogMs: number;
  /** Retries of a job on a fresh worker (default 1). */
  maxRetries?: number;
  /** Episodes each worker caches (LRU) before it must replay (default 4096). */
  capacity?: number;
  /** Fault injection for tests: a step with exactly this action text hangs its worker. */
  stallAction?: string;
}

/** Default worker count: the cores minus one for the HTTP thread, between 1 and 8. */
export function defaultWorkers(): number {
  return Math.max(1, Math.min(8, availableParallelism() - 1));
}

/** Episode compute behind the server: worker threads or in-process. */
export class EnvPool {
  private readonly pool: WorkerPool<ServeHostApi> | null;
  private readonly inline: ServeHost | null;

  /** @throws Error naming a bad option (workers < 0, watchdogMs ≤ 0). */
  constructor(readonly opts: EnvPoolOptions) {
    if (!Number.isInteger(opts.workers) || opts.workers < 0) throw new Error(`EnvPool: workers must be an integer ≥ 0, got ${opts.workers}`);
    if (opts.workers === 0) {
      this.pool = null;
      this.inline = new ServeHost(opts.capacity);
      return;
    }
    this.inline = null;
    // From TypeScript sources (tsx, vitest) the thread starts at a bootstrap that registers tsx.
    const url = new URL(import.meta.url.endsWith('.ts') ? './thread_boot.mjs' : './thread.js', import.meta.url);
    this.pool = new WorkerPool<ServeHostApi>({
      size: opts.workers,
      watchdogMs: opts.watchdogMs,
      maxRetries: opts.maxRetries ?? 1,
      create: () =>
        new WebWorkerShim(url, { workerData: { capacity: opts.capacity ?? 4096, stallAction: opts.stallAction } }) as unknown as Worker,
    });
  }

  /** Worker threads (0 = in-process). */
  get workers(): number {
    return this.pool?.size ?? 0;
  }

  /** Counters of the worker pool (all 0 in-process). */
  get stats(): WorkerPoolStats {
    return this.pool?.stats ?? { completed: 0, retries: 0, thrown: 0, timeouts: 0, crashes: 0, replaced: 0 };
  }

  /** The first view of an episode. @throws Error from the host (unknown ids) or the pool (watchdog, closed). */
  async create(spec: ServeEpisodeSpec): Promise<ServeOpening> {
    if (this.inline) return this.inline.create(spec);
    return this.pool!.run(async (api) => api.create(spec));
  }

  /** One step (with replay when needed). @throws Error from the host or the pool. */
  async step(spec: ServeEpisodeSpec, history: ServeAction[]): Promise<ServeStepOut> {
    if (this.inline) return this.inline.step(spec, history);
    return this.pool!.run(async (api) => api.step(spec, history));
  }

  /** Drop an episode from the in-process host (workers drop theirs by LRU). */
  close(key: string): void {
    this.inline?.close(key);
  }

  /** Stop every worker; later calls reject. */
  terminate(): void {
    this.pool?.terminate();
  }
}
