// Test rollout worker: the production env worker's EnvApi (an EnvHost through comlink) plus
// `crash()`, which kills the worker with an uncaught error outside the comlink call, so the pool
// sees it die exactly as a real crash (run_e2e.entry.ts `crashingEnv`).
import { expose } from 'comlink';
import { EnvHost, type EnvApi } from '../../../src/rollout/env';

const host = new EnvHost();

const api: EnvApi & { crash(): Promise<never> } = {
  reset: (spec) => host.reset(spec),
  step: (spec, history) => host.step(spec, history),
  close: (key) => host.close(key),
  crash(): Promise<never> {
    setTimeout(() => {
      throw new Error('crash_env_worker: injected crash');
    });
    return new Promise<never>(() => {});
  },
};
export type CrashEnvApi = typeof api;

expose(api);
