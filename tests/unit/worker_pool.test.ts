// WorkerPool in Node with stand-in workers (a MessagePort with terminate): terminate() rejects
// every pending call, also those still waiting for a free worker.
import { describe, expect, it } from 'vitest';
import { MessageChannel } from 'node:worker_threads';
import { memoryUsage } from 'node:process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WorkerPool } from '../../src/episode/worker_pool';

function fakeWorker(): Worker {
  const { port1 } = new MessageChannel();
  return Object.assign(port1, { terminate: () => port1.close() }) as unknown as Worker;
}

/** Settlement of a promise, observable without waiting on it. */
function track<T>(p: Promise<T>) {
  const s: { state: 'pending' | 'resolved' | 'rejected'; error?: string } = { state: 'pending' };
  p.then(
    () => (s.state = 'resolved'),
    (e: Error) => ((s.state = 'rejected'), (s.error = e.message)),
  );
  return s;
}

describe('WorkerPool.terminate', () => {
  it('rejects the running call and the calls waiting for a worker', async () => {
    const pool = new WorkerPool<unknown>({ size: 1, create: fakeWorker, watchdogMs: 600_000, maxRetries: 0 });
    const never = () => new Promise<number>(() => {});
    const running = track(pool.run(never));
    const waiting = [track(pool.run(async () => 1)), track(pool.run(async () => 2))];
    await new Promise((r) => setImmediate(r));
    expect([running.state, ...waiting.map((w) => w.state)]).toEqual(['pending', 'pending', 'pending']);
    pool.terminate();
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(running.state).toBe('rejected');
    expect(waiting).toEqual([
      { state: 'rejected', error: 'WorkerPool: closed while the call waited for a worker' },
      { state: 'rejected', error: 'WorkerPool: closed while the call waited for a worker' },
    ]);
    await expect(pool.run(async () => 3)).rejects.toThrow('WorkerPool: closed');
  });
});

/** `gc()` without a `--expose-gc` command line: the flag is set at run time (V8's documented escape hatch). */
function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function settledGc(gc: () => void): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
}

// A past leak: every job was raced against one never-settling per-worker promise, so each race's
// reaction — and with it the job's result — lived as long as the worker (≈ 56 KB per `hlab serve`
// episode). A result nobody holds must be collectable once its `run` has returned it.
describe('WorkerPool retention', () => {
  it('keeps no job result alive after run() returns', async () => {
    const gc = exposeGc();
    const pool = new WorkerPool<unknown>({ size: 2, create: fakeWorker, watchdogMs: 600_000 });
    const refs: WeakRef<object>[] = [];
    // A separate async function, so no local of this test keeps the last result alive.
    const runAll = async () => {
      for (let i = 0; i < 400; i++) refs.push(new WeakRef(await pool.run(async () => ({ episode: i, tokens: new Array(64).fill(i) }))));
    };
    await runAll();
    await settledGc(gc);
    const alive = refs.filter((r) => r.deref() !== undefined).length;
    pool.terminate();
    expect(alive).toBe(0);
  });

  it('heap after GC stays within 10 % over 20,000 jobs', async () => {
    const gc = exposeGc();
    const pool = new WorkerPool<unknown>({ size: 4, create: fakeWorker, watchdogMs: 600_000 });
    const heap: number[] = [];
    for (let block = 0; block < 5; block++) {
      await Promise.all(Array.from({ length: 4000 }, (_, i) => pool.run(async () => ({ i, tokens: new Array(256).fill(block) }))));
      await settledGc(gc);
      heap.push(memoryUsage().heapUsed);
    }
    pool.terminate();
    // The first block warms code and caches up; from then on the heap must be flat.
    expect(Math.max(...heap.slice(1)) / heap[1], `heapUsed per 4,000 jobs: ${heap.join(', ')}`).toBeLessThan(1.1);
  });
});
