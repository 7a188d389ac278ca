/**
 * How often rollout environment steps rebuild their episode, and what that costs (standalone,
 * Node; not part of `hlab bench`):
 *   nice -n 19 npx tsx src/bench/env_replays.ts [--batches 3] [--workers 2] [--threads 1] [--policy base|stall]
 *
 * A run's shape (preset `main`): the shipped base (public/base-mini.ckpt) on the CPU engine at
 * τ = 1, batches of 8 tier-1 tasks of its five families × groups of 8 = 64 episodes, each task
 * under one of the 18 orthogonal-array training harnesses, rollout.maxTurns 6, 96 new tokens,
 * a 480-token context, `--workers` env workers (the production pool, host_pool.ts
 * `envWorkerPool`, on Node worker threads: env_thread.ts), the batches one after another on
 * the same pool as RL steps are. Per batch: steps; rebuilt steps (the worker did not hold the
 * episode: a replay of the earlier actions, or a reset for the first one); the worker-side time
 * of in-place and of rebuilt steps (ms); the rollout's environment wall time and total wall time.
 * Replay overhead = Σ rebuilt ms − rebuilt × mean in-place ms. `--policy stall`: a stand-in
 * that answers every turn with the same non-call text, so every episode runs to its turn cap
 * (the longest histories, the most replayed actions; its sampler time is nil). Timings are of a shared machine
 * (its load average is printed); counts do not depend on it.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { chooseEngine } from '../engine/choose';
import { decodeBaseCheckpoint } from '../model/checkpoint';
import { Tokenizer, type TokenizerFile } from '../model/tokenizer';
import { maxRows } from '../model/config';
import { selectTrainingOA } from '../design/selection';
import { encodeAction } from '../episode/rows';
import { runEpisodes, type EnvHost, type EpisodeRequest, type Policy } from '../rollout/rollout';
import type { EnvApi } from '../episode/host';
import { envWorkerPool } from '../episode/host_pool';
import { WebWorkerShim } from '../serve/node_endpoint';
import { taskSet } from '../tasks';
import { Rng } from '../util/rng';
import type { TimedStepOut } from './env_thread';

const FAMILIES = ['workspace/misplaced', 'workspace/organize', 'workspace/team-list', 'workspace/replace-text', 'errands/recall'];

interface Tally {
  steps: number;
  rebuilt: number;
  /** Rebuilt steps with ≥ 1 earlier action (EnvStepOut.replayed). */
  replayed: number;
  inPlaceMs: number;
  rebuiltMs: number;
  /** Earlier actions re-applied by the rebuilt steps. */
  replayedActions: number;
}

const tally = (): Tally => ({ steps: 0, rebuilt: 0, replayed: 0, inPlaceMs: 0, rebuiltMs: 0, replayedActions: 0 });

/** `env` with every step's answer counted into `t`. */
function counted<H extends EnvHost>(env: H, t: () => Tally): H {
  const spy = (api: EnvApi): EnvApi => ({
    reset: (s) => api.reset(s),
    close: (k) => api.close(k),
    demonstrate: (r) => api.demonstrate(r),
    step: async (s, h) => {
      const out = (await api.step(s, h)) as TimedStepOut;
      const c = t();
      c.steps++;
      if (out.replayed !== (out.rebuilt && h.length > 1))
        throw new Error(`env_replays: ${s.key} replayed = ${out.replayed} but rebuilt = ${out.rebuilt} at turn ${h.length}`);
      if (out.rebuilt) {
        c.rebuilt++;
        c.rebuiltMs += out.workerMs;
        c.replayedActions += h.length - 1;
      } else c.inPlaceMs += out.workerMs;
      if (out.replayed) c.replayed++;
      return out;
    },
  });
  return { ...env, run: (job) => env.run((api) => job(spy(api))) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      batches: { type: 'string', default: '3' },
      workers: { type: 'string', default: '2' },
      threads: { type: 'string', default: '1' },
      policy: { type: 'string', default: 'base' },
    },
  });
  if (values.policy !== 'base' && values.policy !== 'stall')
    throw new Error(`env_replays: --policy must be base or stall, got ${values.policy}`);
  const batches = Number(values.batches);
  const workers = Number(values.workers);
  const threads = Number(values.threads);
  for (const [k, v] of Object.entries({ batches, workers, threads }))
    if (!Number.isInteger(v) || v < 1) throw new Error(`env_replays: --${k} must be an integer ≥ 1, got ${v}`);
  const root = new URL('../../', import.meta.url);
  const tok = Tokenizer.fromJSON(JSON.parse(readFileSync(new URL('public/tokenizer-v2.json', root), 'utf8')) as TokenizerFile);
  const ck = await decodeBaseCheckpoint(new Uint8Array(readFileSync(new URL('public/base-mini.ckpt', root))));
  const engine = await chooseEngine('wasm', { threads });
  const cfg = ck.header.config;
  // Rows per sampler call as a run has them.
  const base = engine.createPolicy(cfg, ck.params, maxRows(cfg));
  const stallIds = encodeAction(tok, 'thinking');
  const stall: Policy = {
    maxB: 64,
    maxT: cfg.maxT,
    sample: async (prompts) =>
      prompts.map(() => ({ ids: Int32Array.from(stallIds), logprobs: new Float32Array(stallIds.length), stop: 'end' as const })),
  };
  const policy = values.policy === 'base' ? base : stall;
  const harnesses = selectTrainingOA().training;
  const pool = (['workspace', 'errands'] as const)
    .flatMap((s) => taskSet(s, 'train', 400, 0))
    .filter((t) => t.tier === 1 && FAMILIES.includes(`${t.suite}/${t.family}`));
  const boot = new URL('./env_thread_boot.mjs', import.meta.url);
  let cur = tally();
  const env = counted(
    envWorkerPool(workers, 30_000, tok, () => new WebWorkerShim(boot) as unknown as Worker),
    () => cur,
  );
  const all = tally();
  let envMs = 0;
  let ms = 0;
  console.log(
    `env_replays: policy ${values.policy}, ${batches} batches × 64 episodes, ${workers} env workers, CPU engine ${threads} thread(s), load average ${loadavg()[0].toFixed(1)} on this machine`,
  );
  try {
    for (let b = 0; b < batches; b++) {
      const tasks = Rng.derive(0, 'env_replays', b)
        .shuffle([...pool])
        .slice(0, 8);
      const reqs: EpisodeRequest[] = tasks.flatMap((t, g) =>
        Array.from({ length: 8 }, () => ({ taskId: t.id, harnessId: harnesses[(4 * g + b) % harnesses.length], group: g })),
      );
      cur = tally();
      const { stats } = await runEpisodes(reqs, {
        tok,
        policy,
        env,
        maxTurns: 6,
        maxNewTokens: 96,
        contextTokens: 480,
        temperature: 1,
        seed: b + 1,
      });
      const inPlace = cur.steps - cur.rebuilt;
      const meanIn = inPlace > 0 ? cur.inPlaceMs / inPlace : Number.NaN;
      const overhead = cur.rebuiltMs - cur.rebuilt * meanIn;
      console.log(
        `batch ${b}: ${cur.steps} steps, ${cur.rebuilt} rebuilt (${cur.replayed} replays of ${cur.replayedActions} earlier actions), ` +
          `in place ${meanIn.toFixed(2)} ms/step, rebuilt ${(cur.rebuiltMs / Math.max(1, cur.rebuilt)).toFixed(2)} ms/step, replay overhead ${overhead.toFixed(0)} ms; ` +
          `env wall ${stats.envMs.toFixed(0)} ms, sampler ${stats.sampleMs.toFixed(0)} ms, rollout ${stats.ms.toFixed(0)} ms`,
      );
      for (const k of Object.keys(all) as (keyof Tally)[]) all[k] += cur[k];
      envMs += stats.envMs;
      ms += stats.ms;
    }
  } finally {
    env.terminate();
    base.destroy();
    engine.destroy();
  }
  const inPlace = all.steps - all.rebuilt;
  const meanIn = all.inPlaceMs / Math.max(1, inPlace);
  const overhead = all.rebuiltMs - all.rebuilt * meanIn;
  console.log(
    JSON.stringify({
      policy: values.policy,
      batches,
      workers,
      steps: all.steps,
      rebuilt: all.rebuilt,
      replays: all.replayed,
      replayedActions: all.replayedActions,
      inPlaceMsPerStep: +meanIn.toFixed(3),
      rebuiltMsPerStep: +(all.rebuiltMs / Math.max(1, all.rebuilt)).toFixed(3),
      workerMs: +(all.inPlaceMs + all.rebuiltMs).toFixed(0),
      replayOverheadMs: +overhead.toFixed(0),
      envWallMs: +envMs.toFixed(0),
      rolloutMs: +ms.toFixed(0),
      overheadShareOfRollout: +(overhead / ms).toFixed(4),
      loadavg1: +loadavg()[0].toFixed(2),
    }),
  );
}

await main();
