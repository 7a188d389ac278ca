/**
 * A serve worker thread (node:worker_threads): owns an `EpisodeHost` (src/episode/host.ts) and
 * exposes its `EpisodeApi` through comlink, so the HTTP thread never runs harness or sandbox code and one slow step
 * never delays another episode. Started by pool.ts.
 *
 * workerData: { capacity: number, stallAction?: string }. `stallAction` is fault injection
 * for tests only: a step whose action text equals it blocks this thread until the pool's
 * watchdog terminates it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { expose } from 'comlink';
import { EpisodeHost, type EpisodeApi } from '../episode/host';
import { nodeEndpoint } from './node_endpoint';

const data = (workerData ?? {}) as { capacity?: number; stallAction?: string };
const host = new EpisodeHost({ maxTurns: 'turns', capacity: data.capacity ?? 4096 });

const api: EpisodeApi = {
  reset: (spec) => host.reset(spec),
  step: (spec, history) => {
    if (data.stallAction !== undefined && history.length > 0 && history[history.length - 1].text === data.stallAction) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // blocks until terminated
    }
    return host.step(spec, history);
  },
  close: (key) => host.close(key),
};

if (!parentPort) throw new Error('src/serve/thread.ts must run in a worker thread');
expose(api, nodeEndpoint(parentPort));
