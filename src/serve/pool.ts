/**
 * The serve worker pool: episodes' steps run on node worker threads (thread.ts), each behind
 * a one-worker rollout `WorkerPool` (src/episode/worker_pool.ts: a watchdog per job, a
 * thrown / hung / dead worker replaced and the job retried on a fresh one), so the HTTP
 * thread stays free. Jobs are restartable because every step carries the episode's whole
 * history (src/episode/host.ts).
 *
 * Routing: an episode's step goes to the worker that served its previous call (it holds the
 * episode: no replay) when that worker is idle; otherwise to the least-loaded worker, which
 * rebuilds the episode by replay and becomes its new home. So a slow or hung step holds up
 * only its own worker: other episodes move to free workers instead of queueing behind it.
 * `workers: 0` runs an `EpisodeHost` in-process instead (tests, tiny deployments): simpler,
 * but then a slow step does block the server.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool, type WatchdogTimer, type WorkerPoolStats } from '../episode/worker_pool';
import { EpisodeHost, type ActionInput, type EpisodeApi, type EnvStepOut, type EpisodeOpening, type EpisodeSpec } from '../episode/host';
import { WebWorkerShim } from './node_endpoint';

interface EnvPoolOptions {
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
  /** The workers' watchdog timer (worker_pool.ts `WatchdogTimer`; default setTimeout). */
  startWatchdog?: WatchdogTimer;
}

/** Default worker count: the cores minus one for the HTTP thread, between 1 and 8. */
export function defaultWorkers(): number {
  return Math.max(1, Math.min(8, availableParallelism() - 1));
}

/** Episode compute behind the server: worker threads or in-process. */
export class EnvPool {
  private readonly pools: WorkerPool<EpisodeApi>[] = [];
  private readonly inflight: number[] = [];
  private readonly home = new Map<string, number>();
  private readonly inline: EpisodeHost | null;
  /** Steps that ran on a worker other than the episode's home (each costs a replay). */
  migrations = 0;

  /** @throws Error naming a bad option (workers < 0, watchdogMs ≤ 0). */
  constructor(readonly opts: EnvPoolOptions) {
    if (!Number.isInteger(opts.workers) || opts.workers < 0)
      throw new Error(`EnvPool: workers must be an integer ≥ 0, got ${opts.workers}`);
    if (opts.workers === 0) {
      this.inline = new EpisodeHost({ maxTurns: 'turns', capacity: opts.capacity ?? 4096 });
      return;
    }
    this.inline = null;
    // From TypeScript sources (tsx, vitest) the thread starts at a bootstrap that registers tsx.
    const url = new URL(import.meta.url.endsWith('.ts') ? './thread_boot.mjs' : './thread.js', import.meta.url);
    for (let i = 0; i < opts.workers; i++) {
      this.pools.push(
        new WorkerPool<EpisodeApi>({
          size: 1,
          watchdogMs: opts.watchdogMs,
          maxRetries: opts.maxRetries ?? 1,
          startWatchdog: opts.startWatchdog,
          create: () =>
            new WebWorkerShim(url, { workerData: { capacity: opts.capacity ?? 4096, stallAction: opts.stallAction } }) as unknown as Worker,
        }),
      );
      this.inflight.push(0);
    }
  }

  /** Worker threads (0 = in-process). */
  get workers(): number {
    return this.pools.length;
  }

  /** Counters of the worker pools, summed (all 0 in-process), and the migrations. */
  get stats(): WorkerPoolStats & { migrations: number } {
    const s = { completed: 0, retries: 0, thrown: 0, timeouts: 0, crashes: 0, replaced: 0, migrations: this.migrations };
    for (const p of this.pools) for (const k of Object.keys(p.stats) as (keyof WorkerPoolStats)[]) s[k] += p.stats[k];
    return s;
  }

  /** The worker for `key`: its home when idle, else the least loaded (ties: the home, then the lowest index). */
  private pick(key: string): number {
    const h = this.home.get(key);
    if (h !== undefined && this.inflight[h] === 0) return h;
    let best = h ?? 0;
    for (let i = 0; i < this.inflight.length; i++) if (this.inflight[i] < this.inflight[best]) best = i;
    if (h !== undefined && best !== h) this.migrations++;
    return best;
  }

  private async run<R>(key: string, job: (api: EpisodeApi) => Promise<R> | R): Promise<R> {
    const i = this.pick(key);
    this.home.set(key, i);
    this.inflight[i]++;
    try {
      return await this.pools[i].run(async (api) => job(api as unknown as EpisodeApi));
    } finally {
      this.inflight[i]--;
    }
  }

  /** The first view of an episode. @throws Error from the host (unknown ids) or the pool (watchdog, closed). */
  async create(spec: EpisodeSpec): Promise<EpisodeOpening> {
    if (this.inline) return this.inline.reset(spec);
    return this.run(spec.key, (api) => api.reset(spec));
  }

  /** One step (with replay when needed). @throws Error from the host or the pool. */
  async step(spec: EpisodeSpec, history: ActionInput[]): Promise<EnvStepOut> {
    if (this.inline) return this.inline.step(spec, history);
    return this.run(spec.key, (api) => api.step(spec, history));
  }

  /** Forget an episode: the in-process host drops it; workers drop theirs by LRU. */
  close(key: string): void {
    this.inline?.close(key);
    this.home.delete(key);
  }

  /** Stop every worker; later calls reject. */
  terminate(): void {
    for (const p of this.pools) p.terminate();
  }
}
