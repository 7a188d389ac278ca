// WorkerPool in Node with stand-in workers (a MessagePort with terminate): terminate() rejects
// every pending call, also those still waiting for a free worker.
import { describe, expect, it } from 'vitest';
import { MessageChannel } from 'node:worker_threads';
import { WorkerPool } from '../../src/rollout/worker_pool';

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
