// Test rollout worker: the production env worker's EnvWorkerApi (an EnvHost through comlink) plus
// `crash()`, which kills the worker with an uncaught error outside the comlink call, so the pool
// sees it die exactly as a real crash (run_e2e.entry.ts `crashingEnv`).
import { expose } from 'comlink';
import { envWorkerApi, type EnvWorkerApi } from '../../../src/episode/host';

const env = envWorkerApi();

const api: EnvWorkerApi & { crash(): Promise<never> } = {
  init: (file) => env.init(file),
  reset: (spec) => env.reset(spec),
  step: (spec, history) => env.step(spec, history),
  close: (key) => env.close(key),
  demonstrate: (req) => env.demonstrate(req),
  crash(): Promise<never> {
    setTimeout(() => {
      throw new Error('crash_env_worker: injected crash');
    });
    return new Promise<never>(() => {});
  },
};
export type CrashEnvApi = typeof api;

expose(api);
