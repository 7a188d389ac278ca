/**
 * The rollout environments of a page: a WorkerPool of host_worker.ts (one EpisodeHost per worker,
 * watchdog and retry on a fresh worker, worker_pool.ts) as the EnvHost the rollout engine
 * runs its jobs on. Every worker counts tokens with the policy's tokenizer: the page sends the
 * tokenizer file to each fresh worker before its first job (no worker fetches anything, so the
 * app stays offline-safe). The in-process counterpart is engine.ts `inProcessEnv` over
 * host.ts `localEnvApi(tok)`.
 */
import type { Tokenizer } from '../model/tokenizer';
import type { EnvApi, EnvWorkerApi } from './host';
import { WorkerPool } from './worker_pool';

/**
 * A guard to await at the start of every job on a worker: the first time it sees a worker's
 * proxy (a fresh worker, also a replacement after a crash) it sends `init(tok)`.
 */
export function initTokenizer(tok: Tokenizer): (api: Pick<EnvWorkerApi, 'init'>) => Promise<void> {
  const file = tok.toJSON();
  const ready = new WeakSet<object>();
  return async (api) => {
    if (ready.has(api)) return;
    await api.init(file);
    ready.add(api);
  };
}

/** Env jobs on workers, as the rollout engine runs them (its `EnvHost`, src/rollout/rollout.ts), and the pool's end. */
interface EnvWorkerPool {
  run<R>(job: (api: EnvApi) => Promise<R>): Promise<R>;
  /** Jobs retried on a fresh worker so far. */
  retries(): number;
  terminate(): void;
}

const webEnvWorker = (): Worker => new Worker(new URL('./host_worker.ts', import.meta.url), { type: 'module' });

/**
 * @param size workers (≥ 1)
 * @param watchdogMs a job running longer is abandoned and its worker replaced
 * @param tok the tokenizer the policy samples with (the workers' harnesses count with it)
 * @param create makes worker number `index` exposing `EnvWorkerApi` (default: host_worker.ts as a
 *   module Web Worker; Node measurements and tests pass worker threads or in-process ports)
 * @throws Error from WorkerPool on a bad size or watchdog.
 */
export function envWorkerPool(
  size: number,
  watchdogMs: number,
  tok: Tokenizer,
  create: (index: number) => Worker = webEnvWorker,
): EnvWorkerPool {
  const pool = new WorkerPool<EnvWorkerApi>({ size, watchdogMs, create });
  const init = initTokenizer(tok);
  return {
    // comlink's Remote<EnvWorkerApi> answers every method with a promise, which EnvApi allows.
    run: (job) =>
      pool.run(async (api) => {
        await init(api);
        return job(api as unknown as EnvApi);
      }),
    retries: () => pool.stats.retries,
    terminate: () => pool.terminate(),
  };
}
