// The RL loop (src/experiment/rl_loop.ts) in Node with a stub policy and trainer and in-process
// environments: step order (the after-rollout seam runs before the update and what it leaves is
// what the update, the record and the samples see), checkpoint cadence, stop requests, and the
// samples carrying the advantages the update applied. And: no production option type carries a
// test hook (checked by the type checker).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { parseSpec } from '../../src/experiment/spec';
import { makeSchedule, specConsistencyIssues, taskAssignments, trainPool } from '../../src/experiment/plan';
import { rlLoop } from '../../src/experiment/rl_loop';
import type { RunEvent } from '../../src/experiment/run_events';
import type { EngineRlTrainer } from '../../src/engine/engine_api';
import type { RunnerOptions } from '../../src/experiment/runner';
import type { evaluate } from '../../src/experiment/evaluate';
import type { RolloutOptions } from '../../src/rollout/rollout';
import type { Trajectory } from '../../src/rollout/trajectory';
import { inProcessEnv } from '../../src/rollout/rollout';
import { localEnvApi, type EnvApi } from '../../src/episode/host';
import type { RlTrainerOptions } from '../../src/rl/update';
import { randomTokenPolicy } from './lib/random_policy';
import { envWithOutcomes } from './lib/env_outcome';
import { SMOKE_SPEC_JSON } from './lib/smoke_spec';
import { stubRlTrainer, stubRlUpdate } from './lib/stub_rl_update';

/** Sample trajectories the loop keeps per RL step. */
const TRAJECTORIES_PER_STEP = 2;

/** One run of the RL loop; the evaluation's options. */
type RlLoopRun = Parameters<typeof rlLoop>[0];
type EvalOptions = Parameters<typeof evaluate>[1];

// Type-level: none of the former test hooks is a field of a production option type.
type Hooks = 'syntheticReward' | 'poisonStep' | 'crashAtJob' | 'stopAfterSteps' | 'crash';
type Clean<T> = Extract<keyof T, Hooks> extends never ? true : false;
const clean: [Clean<RunnerOptions>, Clean<RolloutOptions>, Clean<EvalOptions>, Clean<EnvApi>, Clean<RlTrainerOptions>] = [
  true,
  true,
  true,
  true,
  true,
];

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);
const quick = parseSpec(structuredClone(SMOKE_SPEC_JSON), 'quick');
const spec = parseSpec(
  { ...quick, rl: { ...quick.rl, tasksPerStep: 2, groupSize: 2 }, rollout: { ...quick.rollout, maxTurns: 2, maxNewTokens: 8 } },
  'tiny',
);

/** Uniformly random short actions (a scratch policy), seeded by the sampler seed. */
const stubPolicy = () => randomTokenPolicy(tok.vocabSize, { maxB: 4 });

/** Records what each update saw; applies a per-trajectory advantage of reward − 0.5 (an outcome estimator's shape). */
function stubTrainer(seen: Array<{ step: number; rewards: number[] }>): EngineRlTrainer {
  return stubRlTrainer((trajs, step) => {
    seen.push({ step, rewards: trajs.map((t) => t.reward) });
    return stubRlUpdate(trajs.length, { episodeAdvantages: Float32Array.from(trajs, (t) => t.reward - 0.5) });
  });
}

function makeRun(o: {
  runSteps: number;
  every: number;
  stopAfter?: number;
  seen: Array<{ step: number; rewards: number[] }>;
  saves: number[];
  events: RunEvent[];
}): RlLoopRun {
  const method = spec.methods[0];
  const pool = trainPool(spec, 0, 6);
  const state = { step: 0, history: [], skippedSteps: 0 };
  return {
    spec,
    method,
    seed: 0,
    runIndex: 0,
    runSteps: o.runSteps,
    tok,
    policy: stubPolicy(),
    trainer: stubTrainer(o.seen),
    env: inProcessEnv(localEnvApi(tok)),
    pool,
    schedule: makeSchedule(taskAssignments(spec, method, pool, 0)),
    state,
    trajectories: [],
    checkpointEvery: o.every,
    progress: { done: 0, total: o.runSteps },
    stopRequested: () => o.stopAfter !== undefined && state.step >= o.stopAfter,
    save: async () => void o.saves.push(state.step),
    emit: (ev) => void o.events.push(ev),
    hooks: {
      afterRollout: (_step: number, trajs: Trajectory[]) => {
        for (const t of trajs) t.reward = t.index % 2;
      },
    },
  };
}

describe('rlLoop', () => {
  it('runs schedule → rollout → hook → update → record → checkpoint for every step', async () => {
    expect(clean).toEqual([true, true, true, true, true]);
    const seen: Array<{ step: number; rewards: number[] }> = [];
    const saves: number[] = [];
    const events: RunEvent[] = [];
    const run = makeRun({ runSteps: 3, every: 2, seen, saves, events });
    const r = await rlLoop(run);
    expect(r).toEqual({ interrupted: false, stepsRun: 3 });
    // The update saw the hook's rewards (2 tasks × 2 rollouts: index mod 2).
    expect(seen).toEqual([1, 2, 3].map((step) => ({ step, rewards: [0, 1, 0, 1] })));
    expect(run.state.step).toBe(3);
    expect(run.state.history.map((h) => [h.step, h.reward, h.optimizerSteps])).toEqual([
      [1, 0.5, 1],
      [2, 0.5, 1],
      [3, 0.5, 1],
    ]);
    expect(run.progress.done).toBe(3);
    // Every `every` steps and the last one.
    expect(saves).toEqual([2, 3]);
    expect(events.filter((e) => e.type === 'step').length).toBe(3);
    // Samples carry the advantage the update applied (reward − 0.5), not a recomputation.
    expect(run.trajectories).toHaveLength(3 * TRAJECTORIES_PER_STEP);
    for (const t of run.trajectories) expect(t.advantage).toBe(t.reward - 0.5);
  });

  it('a stop request after step k saves that step and returns interrupted before step k + 1', async () => {
    const seen: Array<{ step: number; rewards: number[] }> = [];
    const saves: number[] = [];
    const run = makeRun({ runSteps: 4, every: 10, stopAfter: 2, seen, saves, events: [] });
    expect(await rlLoop(run)).toEqual({ interrupted: true, stepsRun: 2 });
    expect(seen.map((s) => s.step)).toEqual([1, 2]);
    expect(saves).toEqual([2]);
  });

  it("rl.reward: 'score' trains on the verifier's partial credit, 'pass' on 0/1; pass rates count passes either way", async () => {
    // An environment whose final steps report a partial score 0.25 · (1 + n mod 3), never a pass.
    const { env, reset } = envWithOutcomes(tok, (n) => ({ pass: false, reward: 0, score: 0.25 * (1 + (n % 3)) }));
    for (const mode of ['score', 'pass'] as const) {
      reset();
      const seen: Array<{ step: number; rewards: number[] }> = [];
      const run = {
        ...makeRun({ runSteps: 1, every: 10, seen, saves: [], events: [] }),
        spec: { ...spec, rl: { ...spec.rl, reward: mode } },
        env: inProcessEnv(env),
        hooks: {},
      };
      await rlLoop(run);
      const rewards = seen[0].rewards;
      expect(rewards).toHaveLength(4);
      if (mode === 'pass') expect(rewards).toEqual([0, 0, 0, 0]);
      else {
        expect(new Set(rewards).size).toBeGreaterThan(1);
        for (const r of rewards) expect([0.25, 0.5, 0.75]).toContain(r);
      }
      for (const p of Object.values(run.state.history[0].passByHarness)) expect(p).toBe(0);
    }
  });

  it('rollouts sample at rl.temperature, validation at evaluation.temperature (τ = 1.5 vs 1)', async () => {
    // The loop announces a validation measurement (a 'progress' event whose phase names it) and
    // reports it (a 'validation' event); every sampler call in between is a validation call.
    let phase: 'rollout' | 'validation' = 'rollout';
    const temps: Array<{ phase: string; t: number }> = [];
    const policy = stubPolicy();
    const sample = policy.sample.bind(policy);
    policy.sample = (prompts, maxNew, t, seed, end) => (temps.push({ phase, t }), sample(prompts, maxNew, t, seed, end));
    const base = makeRun({ runSteps: 2, every: 10, seen: [], saves: [], events: [] });
    const pool = base.pool;
    const cells = [{ taskId: pool[0], harnessId: taskAssignments(spec, spec.methods[0], pool, 0)[0].harnesses[0] }];
    const run: RlLoopRun = {
      ...base,
      policy,
      spec: { ...spec, rl: { ...spec.rl, temperature: 1.5 }, evaluation: { ...spec.evaluation, temperature: 1 } },
      validation: { cells, every: 1, samples: 1 },
      emit: (ev) => {
        if (ev.type === 'progress' && ev.phase?.startsWith('validation')) phase = 'validation';
        if (ev.type === 'validation') phase = 'rollout';
      },
    };
    await rlLoop(run);
    expect(run.state.validation?.map((p) => p.step)).toEqual([0, 1, 2]);
    const at = (ph: string) => new Set(temps.filter((x) => x.phase === ph).map((x) => x.t));
    expect(at('validation')).toEqual(new Set([1]));
    expect(at('rollout')).toEqual(new Set([1.5]));
  });
});

describe('dynamic sampling (rl.dynamicSampling)', () => {
  /** Group 0 of every round informative (rewards 0, 1), the other groups all 0. */
  const hook = (_step: number, trajs: Trajectory[]) => {
    for (const t of trajs) t.reward = t.group === 0 ? t.index % 2 : 0;
  };
  const runWith = (maxRounds: number | null, seen: Array<{ step: number; rewards: number[] }>) => {
    const run = makeRun({ runSteps: 2, every: 1, seen, saves: [], events: [] });
    run.spec = maxRounds === null ? run.spec : { ...run.spec, rl: { ...run.spec.rl, dynamicSampling: { maxRounds } } };
    run.hooks = { afterRollout: hook };
    return run;
  };

  it('samples more rounds until the step holds tasksPerStep informative groups, and records rounds, groups and episodes', async () => {
    const seen: Array<{ step: number; rewards: number[] }> = [];
    const run = runWith(3, seen);
    await rlLoop(run);
    // Round 0 gives one informative group of two, round 1 the second: the update sees two, both informative.
    expect(seen).toEqual([1, 2].map((step) => ({ step, rewards: [0, 1, 0, 1] })));
    for (const h of run.state.history) expect([h.generationRounds, h.groups, h.sampledGroups, h.sampledEpisodes]).toEqual([2, 2, 4, 8]);
  });

  it('stops at maxRounds with the informative groups it has; without the field one round and no drops of its own', async () => {
    const capped: Array<{ step: number; rewards: number[] }> = [];
    const one = runWith(1, capped);
    await rlLoop(one);
    expect(capped[0].rewards).toEqual([0, 1]);
    expect([one.state.history[0].generationRounds, one.state.history[0].groups, one.state.history[0].sampledEpisodes]).toEqual([1, 1, 4]);
    const plain: Array<{ step: number; rewards: number[] }> = [];
    const off = runWith(null, plain);
    await rlLoop(off);
    expect(plain[0].rewards).toEqual([0, 1, 0, 0]);
    expect(off.state.history[0].generationRounds).toBeUndefined();
    expect([off.state.history[0].groups, off.state.history[0].sampledEpisodes]).toEqual([2, 4]);
  });

  it('is deterministic: the same run twice samples the same rounds', async () => {
    const a: Array<{ step: number; rewards: number[] }> = [];
    const b: Array<{ step: number; rewards: number[] }> = [];
    const ra = runWith(3, a);
    const rb = runWith(3, b);
    await rlLoop(ra);
    await rlLoop(rb);
    expect(ra.schedule.state()).toEqual(rb.schedule.state());
    expect(ra.state.history.map((h) => h.passByHarness)).toEqual(rb.state.history.map((h) => h.passByHarness));
  });

  it('is refused with PPO, naming the field', () => {
    const ppo = {
      ...spec,
      rl: { ...spec.rl, dynamicSampling: { maxRounds: 2 } },
      methods: [{ ...spec.methods[0], algorithm: 'ppo' as const }],
    };
    expect(specConsistencyIssues(ppo).join('\n')).toMatch(/spec\.rl\.dynamicSampling: applies to GRPO groups/);
  });
});
