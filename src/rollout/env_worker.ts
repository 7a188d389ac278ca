/**
 * A rollout worker (docs/ARCHITECTURE.md "Rollouts"): owns harness runtimes and sandboxes (an `EnvHost`) and
 * exposes `EnvApi` through comlink. Created by the page-side rollout engine's worker pool:
 *   new Worker(new URL('./env_worker.ts', import.meta.url), { type: 'module' })
 */
import { expose } from 'comlink';
import { EnvHost, type EnvApi } from './env';

const host = new EnvHost();

const api: EnvApi = {
  reset: (spec) => host.reset(spec),
  step: (spec, history) => host.step(spec, history),
  close: (key) => host.close(key),
};

expose(api);
