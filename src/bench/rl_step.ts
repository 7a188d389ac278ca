/**
 * `hlab bench` section `rlStep`: one RL step of the CPU engine as a run does it (rl_loop.ts:
 * rollout of the step's episodes with `runEpisodes`, then `trainer.update`), timed in parts, for
 * mini and small. The run's pieces are the runner's own (Engine.createRlStack, trainerOptions and maxRows
 * of the `main` preset, GRPO, 2 env workers), with a fixed shape so numbers compare across
 * commits: the untrained policy (initParams seed 1) never ends an action, so every episode runs
 * `maxTurns` turns of `maxNewTokens` tokens. The update keeps zero-variance groups (the
 * untrained policy's rewards are all 0, and a dropped batch would measure nothing).
 *
 *  rollout  = wall time of runEpisodes (sampling + environments + encoding);
 *  update   = wall time of trainer.update (forward, loss, backward, AdamW over the episodes);
 *  overhead = the rest of the step: the schedule, rewards and the rollout's non-sampler time
 *             (environment steps, tokenizing, context fitting) — rollout minus its sampler ms.
 * Episodes/s = episodes / (rollout + update). One untimed warm-up step first.
 */
import { presetConfig } from '../model/config';
import { initParams } from '../model/init';
import { loadTokenizer } from '../model/tokenizer';
import { taskSet } from '../tasks';
import { runEpisodes, type EpisodeRequest } from '../rollout/rollout';
import { envWorkerPool } from '../episode/host_pool';
import { chooseEngine } from '../engine/choose';
import { getPreset } from '../experiment/presets';
import { maxRows } from '../model/config';
import { trainerOptions } from '../experiment/compile';

export interface RlStepRow {
  preset: 'mini' | 'small';
  threads: number;
  episodes: number;
  maxTurns: number;
  maxNewTokens: number;
  sampledTokens: number;
  /** Whole step (rollout + update), ms. */
  stepMs: number;
  rolloutMs: number;
  /** Of rolloutMs: time inside the sampler. */
  samplerMs: number;
  updateMs: number;
  /** stepMs − samplerMs − updateMs: environments, tokenizing, context fitting, bookkeeping. */
  overheadMs: number;
  episodesPerSec: number;
}

/**
 * The section (module doc).
 * @param o.quick 16 episodes of 1 turn × 16 tokens instead of 64 of 2 × 32
 * @param log progress, one line per preset (the page entry sends it to the CLI)
 */
export async function benchRlStep(o: { quick?: boolean } = {}, log: (line: string) => void = () => {}): Promise<RlStepRow[]> {
  const tok = await loadTokenizer();
  const spec = getPreset('main');
  const threads = Math.min(2, navigator.hardwareConcurrency || 1);
  const engine = await chooseEngine('wasm', { threads });
  const [episodes, maxTurns, maxNewTokens] = o.quick ? [16, 1, 16] : [64, 2, 32];
  const group = spec.rl.groupSize;
  const harnesses = ['S0-T0-O0-C0-W0', 'S1-T1-O1-C1-W1', 'S2-T2-O2-C2-W2', 'bb-coding-cli'];
  const tasks = taskSet('workspace', 'train', Math.ceil(episodes / group), 5);
  const reqs: EpisodeRequest[] = Array.from({ length: episodes }, (_, i) => ({
    taskId: tasks[Math.floor(i / group)].id,
    harnessId: harnesses[Math.floor(i / group) % harnesses.length],
    group: Math.floor(i / group),
  }));
  const env = envWorkerPool(spec.rollout.workers, spec.rollout.watchdogMs, tok);
  const rows: RlStepRow[] = [];
  try {
    for (const preset of ['mini', 'small'] as const) {
      const cfg = presetConfig(preset, tok.vocabSize);
      const opts = { ...trainerOptions(spec, 'grpo', tok.padId, 1), dropZeroVarianceGroups: false };
      const stack = engine.createRlStack(cfg, initParams(cfg, 1), maxRows(cfg), opts);
      try {
        const step = async (s: number) => {
          const t0 = performance.now();
          const ro = await runEpisodes(reqs, {
            tok,
            policy: stack.policy,
            env,
            maxTurns,
            maxNewTokens,
            contextTokens: spec.rollout.contextTokens,
            temperature: 1,
            seed: s,
          });
          const t1 = performance.now();
          await stack.trainer.update(ro.trajectories, s);
          const t2 = performance.now();
          return { rolloutMs: t1 - t0, updateMs: t2 - t1, samplerMs: ro.stats.sampleMs, tokens: ro.stats.sampledTokens };
        };
        await step(1);
        const r = await step(2);
        const stepMs = r.rolloutMs + r.updateMs;
        rows.push({
          preset,
          threads,
          episodes,
          maxTurns,
          maxNewTokens,
          sampledTokens: r.tokens,
          stepMs,
          rolloutMs: r.rolloutMs,
          samplerMs: r.samplerMs,
          updateMs: r.updateMs,
          overheadMs: stepMs - r.samplerMs - r.updateMs,
          episodesPerSec: episodes / (stepMs / 1000),
        });
        log(
          `${preset}: ${stepMs.toFixed(0)} ms (rollout ${r.rolloutMs.toFixed(0)}, of it sampler ${r.samplerMs.toFixed(0)}; update ${r.updateMs.toFixed(0)})`,
        );
      } finally {
        stack.destroy();
      }
    }
  } finally {
    env.terminate();
    engine.destroy();
  }
  return rows;
}
