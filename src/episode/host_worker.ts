/**
 * A rollout worker (docs/ARCHITECTURE.md "Rollouts"): owns harness runtimes and sandboxes (an `EpisodeHost`
 * counting with the policy's tokenizer, sent by the page with `init`) and exposes `EnvWorkerApi`
 * through comlink. Created by the page-side rollout engine's worker pool (host_pool.ts):
 *   new Worker(new URL('./host_worker.ts', import.meta.url), { type: 'module' })
 */
import { expose } from 'comlink';
import { envWorkerApi } from './host';

expose(envWorkerApi());
