/**
 * A rollout env worker as a Node worker thread, for src/bench/env_replays.ts: the production
 * `envWorkerApi` (src/episode/host.ts) behind comlink, whose `step` answer also carries what the
 * measurement needs: the step's time in the worker (ms) and whether the worker had to rebuild
 * the episode (a replay, or a reset for the first action when another worker ran the reset).
 * The rebuild flag mirrors the host's own check (`holdsEpisode` on a copy of the applied
 * actions) so that history-length-1 rebuilds, which `EnvStepOut.replayed` does not count, are seen.
 */
import { parentPort } from 'node:worker_threads';
import { expose } from 'comlink';
import { envWorkerApi, holdsEpisode, type ActionInput, type EnvStepOut, type EpisodeSpec } from '../episode/host';
import { nodeEndpoint } from '../serve/node_endpoint';

/** A step answer with the measurement fields. */
export interface TimedStepOut extends EnvStepOut {
  /** Time of the step inside the worker, ms (replay included). */
  workerMs: number;
  /** The worker did not hold the episode after history[0 … n−2] and rebuilt it. */
  rebuilt: boolean;
}

const api = envWorkerApi();
const mirror = new Map<string, { spec: EpisodeSpec; applied: ActionInput[] }>();

if (!parentPort) throw new Error('src/bench/env_thread.ts must run in a worker thread');
expose(
  {
    init: api.init,
    close: api.close,
    reset: (spec: EpisodeSpec) => {
      const out = api.reset(spec);
      mirror.set(spec.key, { spec, applied: [] });
      return out;
    },
    step: (spec: EpisodeSpec, history: ActionInput[]): TimedStepOut => {
      const rebuilt = !holdsEpisode(mirror.get(spec.key), spec, history);
      const t0 = performance.now();
      const out = api.step(spec, history) as EnvStepOut;
      const workerMs = performance.now() - t0;
      if (out.done) mirror.delete(spec.key);
      else mirror.set(spec.key, { spec, applied: [...history] });
      return { ...out, workerMs, rebuilt };
    },
  },
  nodeEndpoint(parentPort),
);
