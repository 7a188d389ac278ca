/**
 * Rollout throughput (`hlab bench` reports environment steps/s and sampled tokens/s
 * with 1, 2 and 4 workers). Page-side: a tiny seeded policy on the WebGPU engine, a fixed batch of
 * (task, harness) episodes, the same batch rolled out once per worker count after an unmeasured
 * in-process warm-up. Worker start-up is inside the measurement (a run pays it too). Call from the bench
 * command via withBrowser: `s.run('/src/bench/rollout_bench.ts', 'benchRollouts', {...})`.
 */
import { chooseEngine } from '../engine/choose';
import { presetConfig } from '../model/config';
import { initParams } from '../model/init';
import { loadTokenizer } from '../model/tokenizer';
import { taskSet } from '../tasks';
import { inProcessEnv, runEpisodes, type EpisodeRequest } from '../rollout/rollout';
import { localEnvApi } from '../episode/host';
import { envWorkerPool } from '../episode/host_pool';

export interface RolloutBenchRow {
  workers: number;
  episodes: number;
  envSteps: number;
  sampledTokens: number;
  seconds: number;
  envStepsPerSec: number;
  tokensPerSec: number;
  /** Share of wall time in the sampler (the rest: environments, encoding, decoding). */
  samplerShare: number;
}

/**
 * @param o.workers worker counts to measure (default [1, 2, 4]); o.episodes per batch (default 16)
 * @returns one row per worker count (same episodes and seeds each time)
 */
export async function benchRollouts(
  o: { workers?: number[]; episodes?: number; maxTurns?: number; maxNewTokens?: number } = {},
): Promise<RolloutBenchRow[]> {
  const tok = await loadTokenizer();
  const engine = await chooseEngine('webgpu');
  const cfg = presetConfig('tiny', tok.vocabSize);
  const policy = engine.createPolicy(cfg, initParams(cfg, 1), 16);
  const n = o.episodes ?? 16;
  const harnesses = ['S0-T0-O0-C0-W0', 'S1-T1-O1-C1-W1', 'S2-T2-O2-C2-W2', 'bb-coding-cli'];
  const tasks = taskSet('workspace', 'train', n, 5);
  const reqs: EpisodeRequest[] = tasks.map((t, i) => ({ taskId: t.id, harnessId: harnesses[i % harnesses.length], group: i }));
  const rows: RolloutBenchRow[] = [];
  try {
    // Warm-up (pipeline compilation, tokenizer caches), in-process and unmeasured.
    await runEpisodes(reqs.slice(0, 4), {
      tok,
      policy,
      env: inProcessEnv(localEnvApi(tok)),
      maxTurns: 1,
      maxNewTokens: 4,
      temperature: 1,
      seed: 1,
    });
    for (const w of o.workers ?? [1, 2, 4]) {
      const env = envWorkerPool(w, 60_000, tok);
      try {
        const { stats } = await runEpisodes(reqs, {
          tok,
          policy,
          env,
          maxTurns: o.maxTurns ?? 4,
          maxNewTokens: o.maxNewTokens ?? 24,
          temperature: 1,
          seed: 7,
        });
        const s = stats.ms / 1000;
        rows.push({
          workers: w,
          episodes: n,
          envSteps: stats.envSteps,
          sampledTokens: stats.sampledTokens,
          seconds: s,
          envStepsPerSec: stats.envSteps / s,
          tokensPerSec: stats.sampledTokens / s,
          samplerShare: stats.sampleMs / stats.ms,
        });
      } finally {
        env.terminate();
      }
    }
  } finally {
    policy.destroy();
    engine.destroy();
  }
  return rows;
}
