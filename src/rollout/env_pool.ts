/**
 * The rollout environments of a page: a WorkerPool of env_worker.ts (one EnvHost per worker,
 * watchdog and retry on a fresh worker, worker_pool.ts) as the EnvBackend the rollout engine
 * runs its jobs on. The in-process counterpart is engine.ts `inProcessEnv`.
 */
import type { EnvBackend } from './engine';
import type { EnvApi } from './env';
import { WorkerPool } from './worker_pool';

/**
 * @param size workers (≥ 1)
 * @param watchdogMs a job running longer is abandoned and its worker replaced
 * @throws Error from WorkerPool on a bad size or watchdog.
 */
export function envWorkerPool(size: number, watchdogMs: number): EnvBackend & { terminate(): void } {
  const pool = new WorkerPool<EnvApi>({
    size,
    watchdogMs,
    create: () => new Worker(new URL('./env_worker.ts', import.meta.url), { type: 'module' }),
  });
  return {
    // comlink's Remote<EnvApi> answers every method with a promise, which EnvApi allows.
    run: (job) => pool.run((api) => job(api as unknown as EnvApi)),
    retries: () => pool.stats.retries,
    terminate: () => pool.terminate(),
  };
}
