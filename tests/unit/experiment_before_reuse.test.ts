// The shared 'before' batch (evaluate.ts, before_reuse.ts, runner.ts evaluateBefore): an
// evaluation given the shared batch of an identical earlier one runs only its own training
// harnesses' episodes and returns exactly what it would have computed alone; a batch of another
// evaluation is refused; the cache finds a batch only for the same starting point and key; the
// provenance survives a checkpoint round trip and results.json; results.md says it once.
import { randomTokenPolicy } from './lib/random_policy';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Tokenizer, type TokenizerFile } from '../../src/model/tokenizer';
import { evaluate, sharedBatchKey, type EvalResult, type EvalSets } from '../../src/experiment/evaluate';
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

describe('shared before batch', () => {
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
    const r = await evaluate(scaling, opts(reused.env), first.shared);
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

  it('refuses the shared batch of another evaluation (seed, samples, tasks or harnesses differ)', async () => {
    const { env } = countingEnv();
    const first = await evaluate(single, opts(env));
    await expect(evaluate(scaling, opts(env, { seed: 4 }), first.shared)).rejects.toThrow(/shared batch given is of another evaluation/);
    await expect(evaluate(scaling, opts(env, { samples: 1 }), first.shared)).rejects.toThrow(/another evaluation/);
    await expect(evaluate({ ...scaling, blackbox: ['bb-coding-cli'] }, opts(env), first.shared)).rejects.toThrow(/another evaluation/);
    await expect(evaluate({ ...scaling, testTasks: testTasks.slice(1) }, opts(env), first.shared)).rejects.toThrow(/another evaluation/);
  });

  it('the key ignores the training set and nothing else', () => {
    const { env } = countingEnv();
    const k = sharedBatchKey(single, opts(env));
    expect(sharedBatchKey(scaling, opts(env))).toBe(k);
    expect(sharedBatchKey(single, opts(env, { seed: 4 }))).not.toBe(k);
    expect(sharedBatchKey(single, opts(env, { maxNewTokens: 9 }))).not.toBe(k);
    expect(sharedBatchKey(single, opts(env, { contextTokens: 400 }))).not.toBe(k);
    expect(sharedBatchKey({ ...single, inSpace: [] }, opts(env))).not.toBe(k);
    expect(sharedBatchKey({ ...single, excluded: new Set([cellKey(testTasks[0], BASE)]) }, opts(env))).not.toBe(
      sharedBatchKey({ ...single, excluded: new Set() }, opts(env)),
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
    expect(c.find('d1', 'mini', sharedBatchKey(single, opts(env, { seed: 9 })))).toBeUndefined();
  });
});

const run = (method: string, reused?: RunResult['beforeReusedFrom']): RunResult => ({
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
