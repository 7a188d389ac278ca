// Runs in the page: the comlink worker pool under throws, hangs, crashes and load.
import { WorkerPool } from '../../src/episode/worker_pool';
import type { FlakyApi } from './workers/flaky_worker';

function pool(size: number, watchdogMs = 500, maxRetries = 2) {
  return new WorkerPool<FlakyApi>({
    size,
    watchdogMs,
    maxRetries,
    create: () => new Worker(new URL('./workers/flaky_worker.ts', import.meta.url), { type: 'module' }),
  });
}

/** 20 jobs over 3 workers: all results, in order of submission. */
export async function manyJobs() {
  const p = pool(3);
  const out = await Promise.all(Array.from({ length: 20 }, (_, i) => p.run((api) => api.work('ok', i))));
  const stats = { ...p.stats };
  p.terminate();
  return { out, stats };
}

/** A job that fails once (per `mode`) and then succeeds on the fresh worker. */
export async function failOnce(mode: 'throw' | 'hang' | 'die') {
  // The watchdog must outlast a fresh worker's first module load on a loaded machine (400 ms did
  // not: a replacement timed out once more), yet still end the hang.
  const p = pool(2, 3000);
  let first = true;
  const value = await p.run((api) => {
    const m = first ? mode : 'ok';
    first = false;
    return api.work(m, 7);
  });
  // The pool goes on: more jobs run fine afterwards.
  const after = await Promise.all([1, 2, 3].map((i) => p.run((api) => api.work('ok', i))));
  const stats = { ...p.stats };
  p.terminate();
  return { value, after, stats };
}

/** A job that always throws: the error surfaces after maxRetries retries. */
export async function alwaysThrows() {
  const p = pool(1, 400, 2);
  let msg = '';
  try {
    await p.run((api) => api.work('throw', 3));
  } catch (e) {
    msg = (e as Error).message;
  }
  const ok = await p.run((api) => api.work('ok', 4));
  const stats = { ...p.stats };
  p.terminate();
  return { msg, ok, stats };
}
