// Reused 'before' batches (evaluate.ts, before_reuse.ts, runner.ts evaluateBefore): an evaluation
// that finds the shared batch of an identical earlier one runs only its own training harnesses'
// episodes, one that also finds the batch of the same training harnesses runs none, and each
// returns exactly what it would have computed alone; a batch of another evaluation is never found
// and one handed back under the wrong key is refused; the cache finds a batch only for the same
// starting point and key; the provenance survives a checkpoint round trip and results.json;
// results.md says it once.
import { randomTokenPolicy } from './lib/random_policy';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { evaluate, type EvalBatch, type EvalResult, type EvalSets } from '../../src/experiment/evaluate';
import { SharedBeforeBatches } from '../../src/experiment/before_reuse';
import { smallEvalOptions } from './lib/eval_options';
import { localEnvApi, type EnvApi } from '../../src/episode/host';
import { taskSet } from '../../src/tasks';
import { cellKey } from '../../src/experiment/plan';
import { Rng } from '../../src/util/rng';
import { ExperimentResultsSchema, type RunResult } from '../../src/report/results_schema';
import { beforeReuseNote, markdownTable } from '../../src/report/results_markdown';
import { decodeRunCheckpoint, encodeRunCheckpoint, type RunState } from '../../src/experiment/run_checkpoint';
import { rolloutStats } from './lib/rollout_stats';
import { storedRunCheckpoint } from './lib/stored_run_checkpoint';

/** The evaluation's options. */
type EvalOptions = Parameters<typeof evaluate>[1];

const tok = Tokenizer.fromJSON(
  JSON.parse(readFileSync(new URL('../../public/tokenizer-v2.json', import.meta.url), 'utf8')) as TokenizerFile,
);
const BASE = 'S0-T0-O0-C0-W0';

/** A policy drawing random tokens from the call's seed (so outcomes follow the batch's seeds). */
const policy = randomTokenPolicy(tok.vocabSize);

/**
 * The real environment, with a verdict that is a hash of (task, harness, actions so far) on the
 * final step, so outcomes differ by episode and depend on what was sampled; counts resets
 * (= episodes run).
 */
function countingEnv(): { env: EnvApi; resets: () => number; harnesses: () => string[] } {
  const base = localEnvApi(tok);
  let resets = 0;
  const seen: string[] = [];
  const env: EnvApi = {
    reset: (x) => {
      resets++;
      seen.push(x.harnessId);
      return base.reset(x);
    },
    async step(x, h) {
      const out = await base.step(x, h);
      if (!out.done) return out;
      const v = Rng.derive(7, x.taskId, x.harnessId, h.map((a) => a.text).join('\u0000')).int(4);
      return { ...out, pass: v === 0, reward: v === 0 ? 1 : 0, score: v / 3 };
    },
    close: (k) => base.close(k),
    demonstrate: (r) => base.demonstrate(r),
  };
  return { env, resets: () => resets, harnesses: () => seen };
}

const testTasks = taskSet('workspace', 'test', 3, 1).map((t) => t.id);
/** A single-harness method (trains on the base harness) and a harness-scaling one (base plus two others). */
const single: EvalSets = { testTasks, training: [BASE], inSpace: ['S2-T2-O2-C2-W2'], blackbox: ['bb-assistant'] };
const scaling: EvalSets = { ...single, training: [BASE, 'S1-T1-O1-C1-W1', 'S1-T0-O1-C0-W1'] };
const opts = (env: EnvApi, over: Partial<EvalOptions> = {}) => smallEvalOptions(tok, policy, env, over);
const withoutStats = ({ stats: _s, ...r }: EvalResult) => r;
/** A lookup that finds these batches by their key. */
const lookupOf =
  (...batches: EvalBatch[]) =>
  (key: string) =>
    batches.find((b) => b.key === key);

/** The keys an evaluation of `sets` under `o` looks up (shared, then the method's), without running an episode. */
async function keysOf(sets: EvalSets, o: EvalOptions): Promise<string[]> {
  const keys: string[] = [];
  const stop = new Error('keys read');
  await evaluate(sets, o, (key) => {
    keys.push(key);
    // Both lookups happen before any batch runs: stop there (after the shared one when there is no method batch).
    if (keys.length === 2 || sets.training.every((h) => h === BASE)) throw stop;
    return undefined;
  }).catch((e) => {
    if (e !== stop) throw e;
  });
  return keys;
}

describe('reused before batches', () => {
  it('a later method given the shared batch runs only its own training harnesses and gets exactly its stand-alone evaluation', async () => {
    const a = countingEnv();
    const first = await evaluate(single, opts(a.env));
    // Single harness: the base harness is its training set, so the shared batch is all of it.
    expect(a.resets()).toBe(3 * 3 * 2);
    expect(first.result.cells!.train).toEqual(first.result.cells!.base);

    const alone = countingEnv();
    const full = await evaluate(scaling, opts(alone.env));
    expect(alone.resets()).toBe(5 * 3 * 2);

    const reused = countingEnv();
    const r = await evaluate(scaling, opts(reused.env), lookupOf(first.shared));
    // Only the two training harnesses outside the shared batch ran.
    expect(reused.resets()).toBe(2 * 3 * 2);
    expect(new Set(reused.harnesses())).toEqual(new Set(['S1-T1-O1-C1-W1', 'S1-T0-O1-C0-W1']));
    expect(r.result.stats.episodes).toBe(12);
    // Bit for bit the evaluation it would have run alone (counters aside), and its shared batch is the one given.
    expect(withoutStats(r.result)).toEqual(withoutStats(full.result));
    expect(r.shared).toBe(first.shared);
    // The shared columns are literally the first method's.
    for (const k of ['base', 'inSpace', 'bb-assistant']) expect(r.result.cells![k]).toEqual(first.result.cells![k]);
    // Outcomes vary (the test can tell batches apart).
    expect(new Set(full.result.cells!.train.map((c) => c.score)).size).toBeGreaterThan(1);
  });

  it('a method with the same training harnesses finds both batches and runs nothing; another training set only the shared one', async () => {
    const { env } = countingEnv();
    const first = await evaluate(scaling, opts(env));
    expect(first.own).not.toBeNull();
    const same = countingEnv();
    const r = await evaluate(scaling, opts(same.env), lookupOf(first.shared, first.own!));
    expect(same.resets()).toBe(0);
    expect(r.result.stats.episodes).toBe(0);
    expect(withoutStats(r.result)).toEqual(withoutStats(first.result));
    expect(r.own).toBe(first.own);
    // Other training harnesses: the method's batch has another key, so only the shared batch is reused.
    const other = countingEnv();
    const o = await evaluate({ ...scaling, training: [BASE, 'S2-T1-O0-C1-W2'] }, opts(other.env), lookupOf(first.shared, first.own!));
    expect(new Set(other.harnesses())).toEqual(new Set(['S2-T1-O0-C1-W2']));
    expect(o.own).not.toBe(first.own);
  });

  it('never finds a batch of another evaluation (seed, samples, tasks or harnesses differ), and refuses one handed back under the wrong key', async () => {
    const { env } = countingEnv();
    const first = await evaluate(scaling, opts(env));
    const found = lookupOf(first.shared, first.own!);
    const others: Array<(e: EnvApi) => [EvalSets, EvalOptions]> = [
      (e) => [scaling, opts(e, { seed: 4 })],
      (e) => [scaling, opts(e, { samples: 1 })],
      (e) => [{ ...scaling, testTasks: testTasks.slice(1) }, opts(e)],
    ];
    for (const other of others) {
      const c = countingEnv();
      const r = await evaluate(...other(c.env), found);
      expect(r.shared).not.toBe(first.shared);
      expect(r.own).not.toBe(first.own);
      // Everything ran again.
      expect(r.result.stats.episodes).toBe(c.resets());
      expect(c.resets()).toBeGreaterThan(0);
    }
    // Another black-box harness changes the shared batch only: the training harnesses' batch is still the same episodes.
    const bb = countingEnv();
    const r = await evaluate({ ...scaling, blackbox: ['bb-coding-cli'] }, opts(bb.env), found);
    expect(r.shared).not.toBe(first.shared);
    expect(r.own).toBe(first.own);
    expect(new Set(bb.harnesses())).toEqual(new Set([BASE, 'S2-T2-O2-C2-W2', 'bb-coding-cli']));
    // A lookup answering the method's key with the shared batch: refused.
    await expect(evaluate(scaling, opts(env), () => first.shared)).rejects.toThrow(/reused train batch is of another evaluation/);
  });

  it('the shared key ignores the training set and nothing else; the method key is the training set', async () => {
    const { env } = countingEnv();
    const [k] = await keysOf(single, opts(env));
    const [ks, kTrain] = await keysOf(scaling, opts(env));
    expect(ks).toBe(k);
    expect(kTrain).not.toBe(k);
    expect((await keysOf(scaling, opts(env)))[1]).toBe(kTrain);
    expect((await keysOf({ ...scaling, training: [BASE, 'S1-T1-O1-C1-W1'] }, opts(env)))[1]).not.toBe(kTrain);
    expect((await keysOf(single, opts(env, { seed: 4 })))[0]).not.toBe(k);
    expect((await keysOf(single, opts(env, { maxNewTokens: 9 })))[0]).not.toBe(k);
    expect((await keysOf(single, opts(env, { contextTokens: 400 })))[0]).not.toBe(k);
    expect((await keysOf({ ...single, inSpace: [] }, opts(env)))[0]).not.toBe(k);
    expect((await keysOf({ ...single, excluded: new Set([cellKey(testTasks[0], BASE)]) }, opts(env)))[0]).not.toBe(
      (await keysOf({ ...single, excluded: new Set() }, opts(env)))[0],
    );
  });

  it('the cache finds a batch only for the same starting parameters, preset and key; the first stays', async () => {
    const { env } = countingEnv();
    const { shared } = await evaluate(single, opts(env));
    const c = new SharedBeforeBatches();
    c.remember('d1', 'mini', shared, { method: 'single', seed: 0 });
    c.remember('d1', 'mini', { ...shared }, { method: 'other', seed: 0 });
    expect(c.find('d1', 'mini', shared.key)?.from).toEqual({ method: 'single', seed: 0 });
    expect(c.find('d1', 'mini', shared.key)?.batch).toBe(shared);
    expect(c.find('d2', 'mini', shared.key)).toBeUndefined();
    expect(c.find('d1', 'tiny', shared.key)).toBeUndefined();
    expect(c.find('d1', 'mini', (await keysOf(single, opts(env, { seed: 9 })))[0])).toBeUndefined();
  });
});

const run = (method: string, reused?: RunResult['beforeReusedFrom'], trainReused?: RunResult['beforeTrainReusedFrom']): RunResult => ({
  method,
  algorithm: 'grpo',
  seed: 0,
  rlSteps: 1,
  optimizerSteps: 1,
  skippedOptimizerSteps: 0,
  rlStepsWithoutUpdate: 0,
  before: { base: 0.5, inSpace: 0.25, blackbox: { 'bb-assistant': 0 } },
  after: { base: 0.5, inSpace: 0.25, blackbox: { 'bb-assistant': 0 } },
  trainHarnesses: { before: 0.5, after: 0.5 },
  behaviour: {
    before: { parseErrors: 0, workflowViolations: 0, recoveryRate: NaN, stateTrackingErrors: 0 },
    after: { parseErrors: 0, workflowViolations: 0, recoveryRate: NaN, stateTrackingErrors: 0 },
  },
  perHarness: {},
  seconds: 1,
  ...(reused ? { beforeReusedFrom: reused } : {}),
  ...(trainReused ? { beforeTrainReusedFrom: trainReused } : {}),
});

describe("a run's use of the cache (reuseFor)", () => {
  it('a batch run here is remembered for later runs; one found is reported with its source and episodes', async () => {
    const { env } = countingEnv();
    const c = new SharedBeforeBatches();
    const first = c.reuseFor('d1', 'mini', { method: 'K=1', seed: 0 });
    const a = await evaluate(scaling, opts(env), first.lookup);
    expect(first.provenance(a.shared)).toBeUndefined();
    expect(first.provenance(a.own!)).toBeUndefined();
    const later = c.reuseFor('d1', 'mini', { method: 'K=8', seed: 0 });
    const counted = countingEnv();
    const b = await evaluate(scaling, opts(counted.env), later.lookup);
    expect(counted.resets()).toBe(0);
    expect(later.provenance(b.shared)).toEqual({ method: 'K=1', seed: 0, episodes: a.shared.outcomes.length });
    expect(later.provenance(b.own!)).toEqual({ method: 'K=1', seed: 0, episodes: a.own!.outcomes.length });
    // Another starting point finds nothing.
    const other = c.reuseFor('d2', 'mini', { method: 'K=2', seed: 0 });
    const o = countingEnv();
    await evaluate(scaling, opts(o.env), other.lookup);
    expect(o.resets()).toBe(5 * 3 * 2);
  });
});

describe('provenance of a reused before', () => {
  it('results.json keeps beforeReusedFrom; an older file without it parses; results.md says it once', () => {
    const res = {
      resultsVersion: 1 as const,
      spec: 's',
      evalSet: 'all',
      machine: 'm',
      runs: [run('single'), run('scaling', { method: 'single', seed: 0, episodes: 36 })],
    };
    const back = ExperimentResultsSchema.parse(JSON.parse(JSON.stringify(res)));
    expect(back.runs[1].beforeReusedFrom).toEqual({ method: 'single', seed: 0, episodes: 36 });
    expect(back.runs[0].beforeReusedFrom).toBeUndefined();
    const md = markdownTable(back);
    // Said once: a lead sentence, then one bullet per reusing run (here only 'scaling').
    expect(md.match(/evaluated once per starting point/g)).toHaveLength(1);
    expect(md.split('\n').filter((l) => l.startsWith('- '))).toEqual(['- scaling, seed 0: reused from single, 36 episodes']);
    const two = beforeReuseNote([
      run('single'),
      run('scaling', { method: 'single', seed: 0, episodes: 36 }),
      run('ppo', { method: 'single', seed: 0, episodes: 36 }),
    ]);
    expect(two?.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      '- scaling, seed 0: reused from single, 36 episodes',
      '- ppo, seed 0: reused from single, 36 episodes',
    ]);
    expect(beforeReuseNote([run('single'), run('scaling')])).toBeNull();
    // A second method with the scaling arm's training harnesses: both parts reused, said in its bullet and the lead.
    const k8 = run('K=8', { method: 'K=1', seed: 0, episodes: 36 }, { method: 'K=1', seed: 0, episodes: 216 });
    const withTrain = beforeReuseNote([run('K=1'), k8]);
    expect(withTrain).toContain("and those under a method's training harnesses once per starting point and training set:");
    expect(withTrain?.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      '- K=8, seed 0: reused from K=1, 36 episodes; training harnesses reused from K=1, 216 episodes',
    ]);
    expect(ExperimentResultsSchema.parse({ ...res, runs: [k8] }).runs[0].beforeTrainReusedFrom).toEqual({
      method: 'K=1',
      seed: 0,
      episodes: 216,
    });
    expect(markdownTable({ ...back, runs: [run('single'), run('scaling')] })).not.toContain('reused');
  });

  it('a run checkpoint keeps before.reusedFrom (a resumed run keeps its reused before and says so)', () => {
    const before: EvalResult = {
      passAt1: { base: 0.25, inSpace: 0.5, blackbox: {} },
      training: 0.5,
      behaviour: { parseErrors: 0, workflowViolations: 0, recoveryRate: NaN, stateTrackingErrors: 0 },
      perHarness: {},
      episodes: 4,
      stats: rolloutStats(),
      reusedFrom: { method: 'single', seed: 0, episodes: 4 },
    };
    const state: RunState = { runIndex: 1, step: 0, before, history: [], schedule: {}, skippedSteps: 0, seconds: 1 };
    const enc = encodeRunCheckpoint(
      'run-x',
      {
        spec: {},
        run: { runIndex: 1, method: 'scaling', seed: 0 },
        state,
        schedule: { draws: {} },
        results: [],
        curves: [],
        trajectories: [],
      },
      { params: Float32Array.of(1), adamM: Float32Array.of(0), adamV: Float32Array.of(0), adamStep: 0 },
      0,
    );
    const s = storedRunCheckpoint(enc);
    expect(decodeRunCheckpoint(s.meta, s.tensors).checkpoint.state.before?.reusedFrom).toEqual({ method: 'single', seed: 0, episodes: 4 });
  });
});
