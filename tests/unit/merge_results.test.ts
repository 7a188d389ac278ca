// Seed chunks merge into the whole: the runner (on a fake engine, in-process environments, an
// in-memory store) runs a two-seed spec in one call and as two one-seed chunks; mergeResults of the
// chunks' results files equals the one call's runs, curves and trajectories (timings aside).
// Chunks that cannot make one experiment are refused naming the field.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compilePlan } from '../../src/experiment/compile';
import { checkSpecConsistency } from '../../src/experiment/plan';
import { baseMix } from '../../src/experiment/run_start';
import { runExperiment } from '../../src/experiment/runner';
import { parseSpec } from '../../src/experiment/spec';
import { shippedTokenizer } from '../../src/cli/cli_util';
import { resultsFile } from '../../src/report/results_json';
import { mergeResults, type ResultsChunk } from '../../src/report/merge_results';
import type { RunCurves } from '../../src/experiment/run_events';
import { fakeEngine, memoryStore } from './lib/fake_engine';
import { SMOKE_SPEC_JSON } from './lib/smoke_spec';
import { stringifyFinite } from '../../src/util/encoding';

const tok = shippedTokenizer();

const specWith = (seeds: number[]) => {
  const s = structuredClone(SMOKE_SPEC_JSON);
  return {
    ...s,
    name: 'merge-unit',
    seeds,
    model: { preset: 'tiny', init: 'scratch' },
    methods: [
      { name: 'scaling', harnesses: 'scaling', K: 2, algorithm: 'grpo' },
      { name: 'single', harnesses: 'single', K: 1, algorithm: 'grpo' },
    ],
    rl: { ...s.rl, steps: 2, tasksPerStep: 2, groupSize: 2, epochs: 1, minibatches: 1 },
    rollout: { ...s.rollout, maxTurns: 2, maxNewTokens: 12, contextTokens: 512 },
    evaluation: { testTasks: 4, samples: 1, inSpace: { mode: 'stratified', perDistance: 1, seed: 0 }, blackbox: [] },
  };
};

async function chunk(seeds: number[]): Promise<ResultsChunk<RunCurves>> {
  const json = specWith(seeds);
  const spec = checkSpecConsistency(parseSpec(json, 'spec'));
  const plan = compilePlan(spec, tok, { specJson: json, mix: baseMix(spec, new Map()), infeasible: [] });
  const out = await runExperiment(
    plan,
    { tokenizer: tok, inProcessEnv: true },
    { engine: fakeEngine(() => ({ optimizerSteps: 1, skippedSteps: 0, droppedGroups: 0 })), store: memoryStore() },
  );
  return {
    where: `seeds ${seeds.join(',')}`,
    specJson: json,
    file: resultsFile(out, { command: 'test', specJson: json, infeasibleCells: [] }),
  };
}

/** The value with every timing field (seconds, milliseconds) removed: they differ from call to call. */
function untimed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(untimed);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !/seconds|Ms$|^ms$/.test(k))
        .map(([k, x]) => [k, untimed(x)]),
    );
  return v;
}

describe('mergeResults', () => {
  beforeAll(() => void vi.stubGlobal('navigator', { hardwareConcurrency: 2, userAgent: 'node' }));
  afterAll(() => void vi.unstubAllGlobals());

  it('makes the one-call results of two seeds from their one-seed chunks, in either order', async () => {
    const [whole, a, b] = [await chunk([0, 1]), await chunk([0]), await chunk([1])];
    const { specJson, file } = mergeResults([b, a], 'hlab merge');
    expect(specJson).toEqual(specWith([0, 1]));
    expect(file.runs.map((r) => [r.seed, r.method])).toEqual(whole.file.runs.map((r) => [r.seed, r.method]));
    expect(untimed(file.runs)).toEqual(untimed(whole.file.runs));
    expect(untimed(file.curves)).toEqual(untimed(whole.file.curves));
    expect(untimed(file.trajectories)).toEqual(untimed(whole.file.trajectories));
    // The second chunk's segment is re-based after the first chunk's runs.
    expect(file.segments.map((s) => s.from.runIndex)).toEqual([0, a.file.runs.length]);
    expect(file.seconds).toBeCloseTo(a.file.seconds + b.file.seconds, 6);
    // The comparison has teeth: another seed draws other rollouts (tasks), so seed 1's are not seed 0's.
    expect(b.file.trajectories.map((t) => t.taskId)).not.toEqual(a.file.trajectories.map((t) => t.taskId));
    expect(b.file.trajectories.length).toBeGreaterThan(0);
  }, 120_000);

  it('refuses chunks that are not one experiment, naming the chunk and the field', async () => {
    const a = await chunk([0]);
    const other = { ...a, where: 'lr', specJson: { ...specWith([1]), rl: { ...specWith([1]).rl, lr: 0.5 } } };
    expect(() => mergeResults([a, other], 'm')).toThrow("lr: spec.rl differs from seeds 0's; only seeds may differ");
    expect(() => mergeResults([a, { ...a, where: 'again' }], 'm')).toThrow('again: seed 0 is also in seeds 0');
    expect(() => mergeResults([{ ...a, file: { ...a.file, status: 'interrupted' } }], 'm')).toThrow("status 'interrupted'");
    expect(() => mergeResults([{ ...a, specJson: specWith([5]) }], 'm')).toThrow('a run of seed 0, which its spec.seeds does not list');
    expect(() => mergeResults([], 'm')).toThrow('no results to merge');
  }, 120_000);

  it('hlab merge writes the joined folder; chunks of two experiments, or a bad --seeds, exit 2 in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-merge-'));
    const save = (name: string, c: ResultsChunk<RunCurves>) => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'spec.json'), JSON.stringify(c.specJson));
      writeFileSync(join(dir, name, 'results.json'), stringifyFinite(c.file, 2));
    };
    const a = await chunk([0]);
    const b = await chunk([1]);
    save('a', a);
    save('b', b);
    save('lr', { ...b, specJson: { ...specWith([1]), rl: { ...specWith([1]).rl, lr: 0.5 } } });
    const hlab = (args: string[]) =>
      spawnSync('npx', ['tsx', 'src/cli/main.ts', ...args], { cwd: join(__dirname, '..', '..'), encoding: 'utf8', timeout: 120_000 });
    const ok = hlab(['merge', join(dir, 'a'), join(dir, 'b'), '--out', join(dir, 'm')]);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'm', 'spec.json'), 'utf8')).seeds).toEqual([0, 1]);
    const merged = JSON.parse(readFileSync(join(dir, 'm', 'results.json'), 'utf8'));
    expect(merged.runs.map((r: { seed: number }) => r.seed)).toEqual([0, 0, 1, 1]);
    for (const f of ['results.csv', 'results.md', 'curves.svg', 'curves.csv']) expect(existsSync(join(dir, 'm', f))).toBe(true);
    const bad = hlab(['merge', join(dir, 'a'), join(dir, 'lr'), '--out', join(dir, 'n')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([
      `error: ${join(dir, 'lr')}: spec.rl differs from ${join(dir, 'a')}'s; only seeds may differ`,
    ]);
    expect(existsSync(join(dir, 'n'))).toBe(false);
    const seeds = hlab(['run', '--preset', 'quick', '--seeds', '0,0', '--out', join(dir, 'q')]);
    expect(seeds.status).toBe(2);
    expect(seeds.stderr).toContain("--seeds <list>' argument '0,0' is invalid. expected distinct integers");
  }, 240_000);
});
