import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAIMS, claimsTable, withBlocks, type CommittedResults } from '../../src/experiment/claims';
import type { RunResult } from '../../src/report/results_schema';
import { Rng } from '../../src/util/rng';
import {
  CLAIMS_JSON,
  loadCommitted,
  loadRerun,
  MAP_JSON,
  MAP_SVG,
  regenerated,
  regeneratedJson,
  regeneratedMap,
  regeneratedSweepSvgs,
  RESULTS_DOC,
} from '../../scripts/claims';

const SINGLE = 'single harness (GRPO)';
const HS = 'harness scaling (GRPO, K=4)';
const CONFIGS = ['S1-T0-O0-C0-W1', 'S2-T1-O0-C0-W0', 'S0-T2-O1-C1-W0', 'S1-T1-O2-C0-W2'];

/**
 * The `main` preset's results over `seeds` seeds: in-space cells on 4 configurations × 20 tasks
 * × 2 samples, passing with probability p (single harness) or p + effect (harness scaling), drawn
 * from a seeded stream; `same` gives both arms the very same cells.
 */
function mainResults(seeds: number, effect: number, same = false, specJson?: unknown): CommittedResults {
  const rng = new Rng(1);
  const cells = (p: number) =>
    CONFIGS.flatMap((harnessId) =>
      Array.from({ length: 20 }, (_, t) =>
        [0, 1].map((sample) => {
          const pass = rng.float() < p;
          return { taskId: `t${t}`, harnessId, sample, pass, score: pass ? 1 : 0 };
        }),
      ).flat(),
    );
  const run = (method: string, seed: number, inSpace: ReturnType<typeof cells>): RunResult =>
    ({ method, seed, episodes: { before: {}, after: { inSpace } } }) as unknown as RunResult;
  const runs = Array.from({ length: seeds }, (_, s) => {
    const a = cells(0.3);
    return [run(SINGLE, s, a), run(HS, s, same ? a : cells(0.3 + effect))];
  }).flat();
  return { resultsVersion: 1, spec: 'main', evalSet: 'x', machine: 'm', runs, ...(specJson ? { specJson } : {}) };
}

/** The in-space claim's row of the table over `res`. */
const inSpaceRow = (res: CommittedResults) => claimsTable(new Map([['main', res]])).find((r) => r.spec.id === 'in-space')!;

describe('claims: verdicts computed from the committed data', () => {
  it('docs/RESULTS.md holds exactly the tables the committed results give (run `npx tsx scripts/claims.ts` after new results)', () => {
    const doc = readFileSync(RESULTS_DOC, 'utf8');
    expect(doc).toContain('<!-- claims:begin -->');
    const results = loadCommitted();
    expect(regenerated(doc, results)).toBe(doc);
    // The app's copies and the map figure too.
    expect(readFileSync(CLAIMS_JSON, 'utf8')).toBe(regeneratedJson(results));
    const map = regeneratedMap(results);
    expect(readFileSync(MAP_JSON, 'utf8')).toBe(map.json);
    expect(readFileSync(MAP_SVG, 'utf8')).toBe(map.svg);
    const sweeps = regeneratedSweepSvgs(results);
    expect([...sweeps.values()].filter((svg) => svg !== null).length).toBeGreaterThan(0);
    for (const [file, svg] of sweeps) if (svg !== null) expect(readFileSync(file, 'utf8')).toBe(svg);
    for (const block of ['map', 'sampling', 'harness-count', 'k-sweep']) expect(doc).toContain(`<!-- ${block}:begin -->`);
  }, 240_000);

  it('a changed result changes the table, so stale text fails the check', () => {
    const results = loadCommitted();
    const doc = readFileSync(RESULTS_DOC, 'utf8');
    const main = results.get('main')!;
    // Drop the last seed of main: the in-space row's numbers move.
    const lastSeed = Math.max(...main.runs.map((r) => r.seed));
    const fewer = new Map(results);
    fewer.set('main', { ...main, runs: main.runs.filter((r) => r.seed !== lastSeed) });
    expect(regenerated(doc, fewer)).not.toBe(doc);
  }, 240_000);

  it('verdicts: reproduced, refuted, equivalent (inside ±2 points), undecided; one seed never decides', () => {
    const ahead = inSpaceRow(mainResults(8, 0.25));
    expect(ahead.verdict).toBe('reproduced');
    expect(ahead.comparison!.pass.lo).toBeGreaterThan(0);
    const behind = inSpaceRow(mainResults(8, -0.25));
    expect(behind.verdict).toBe('refuted');
    expect(behind.comparison!.pass.hi).toBeLessThan(0);
    const same = inSpaceRow(mainResults(5, 0, true));
    expect(same.verdict).toBe('equivalent');
    expect(same.comparison!.pass.diff).toBe(0);
    const small = inSpaceRow(mainResults(2, 0.03));
    expect(small.verdict).toBe('undecided');
    expect(small.note).not.toBe('');
    const oneSeed = inSpaceRow(mainResults(1, 0.4));
    expect(oneSeed.comparison!.pass.seeds).toBe(1);
    expect(oneSeed.comparison!.pass.diff).toBeGreaterThan(0.2);
    expect(oneSeed.verdict).toBe('undecided');
  });

  it('the data column says whether the results use the current design (in-space set stratified by distance to the base harness)', () => {
    const current = { evaluation: { inSpace: { mode: 'stratified', by: 'base', perDistance: 6, seed: 0 } } };
    const old = { evaluation: { inSpace: { mode: 'stratified', perDistance: 2, seed: 0 } } };
    expect(inSpaceRow(mainResults(2, 0, false, current)).data).toMatch(/; current design$/);
    for (const res of [mainResults(2, 0, false, old), mainResults(2, 0)])
      expect(inSpaceRow(res).data).toMatch(/; old design \(pre-epoch schedule, 4 in-space configurations\): re-run needed$/);
  });

  it('a preset without results is "not run", and arms that fail every cell are "not measurable", not a null', () => {
    const cell = (taskId: string, pass: boolean, harnessId = 'bb-assistant') => ({
      taskId,
      harnessId,
      sample: 0,
      pass,
      score: pass ? 1 : 0,
    });
    const run = (method: string, seed: number, pass: boolean): RunResult =>
      ({
        method,
        seed,
        episodes: {
          before: {},
          after: { 'bb-assistant': [cell('a', pass), cell('b', false)], 'bb-coding-cli': [cell('a', false, 'bb-coding-cli')] },
        },
      }) as unknown as RunResult;
    const floor: CommittedResults = {
      resultsVersion: 1,
      spec: 'main',
      evalSet: 'x',
      machine: 'm',
      runs: [0, 1, 2].flatMap((s) => [run('single harness (GRPO)', s, false), run('harness scaling (GRPO, K=4)', s, false)]),
    };
    const rows = claimsTable(new Map([['main', floor]]));
    expect(rows.find((r) => r.spec.id === 'black-box')!.verdict).toBe('not measurable');
    expect(rows.find((r) => r.spec.id === 'locality')!.verdict).toBe('not run');
    expect(rows.find((r) => r.spec.id === 'sizes')!.note).toMatch(/small' base/);
    expect(rows).toHaveLength(CLAIMS.length);
  });

  it('a preset re-run in seed chunks says how many seeds are in, beside the old row or the "not run" one, and never decides from them', () => {
    const old = mainResults(3, 0.25, false, { evaluation: { inSpace: { mode: 'stratified', perDistance: 2, seed: 0 } } });
    const before = inSpaceRow(old);
    const rerun = new Map([
      ['main', { done: [0, 2], planned: 10 }],
      ['sizes', { done: [1], planned: 5 }],
    ]);
    const rows = claimsTable(new Map([['main', old]]), rerun);
    const row = rows.find((r) => r.spec.id === 'in-space')!;
    expect(row.data).toMatch(
      /old design .*: re-run in progress, 2 of 10 seeds committed in seed chunks \(s0, s2\); no verdict from them until every seed is in$/,
    );
    // The verdict and numbers are the old results' own.
    expect(row.verdict).toBe(before.verdict);
    expect(row.comparison?.pass.diff).toBe(before.comparison?.pass.diff);
    expect(rows.find((r) => r.spec.id === 'sizes')!).toMatchObject({
      verdict: 'not run',
      note: expect.stringMatching(/^1 of 5 seeds committed/),
    });
  });

  it('loadRerun reads finished chunks of the current design beside an old or missing results.json, and nothing once merged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-rerun-'));
    const current = { evaluation: { inSpace: { by: 'base' } } };
    const write = (file: string, json: unknown) => {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(json));
    };
    write(`${dir}/presets/diversity.json`, { seeds: [0, 1, 2, 3] });
    write(`${dir}/results/diversity/results.json`, { specJson: { evaluation: { inSpace: { mode: 'stratified' } } } });
    write(`${dir}/results/diversity/chunks/s1/results.json`, { status: 'done', specJson: { ...current, seeds: [1] } });
    write(`${dir}/results/diversity/chunks/s0/results.json`, { status: 'done', specJson: { ...current, seeds: [0] } });
    write(`${dir}/results/diversity/chunks/s2/results.json`, { status: 'running', specJson: { ...current, seeds: [2] } });
    expect(loadRerun(`${dir}/results`, `${dir}/presets`)).toEqual(new Map([['diversity', { done: [0, 1], planned: 4 }]]));
    write(`${dir}/results/diversity/results.json`, { specJson: current });
    expect(loadRerun(`${dir}/results`, `${dir}/presets`).size).toBe(0);
  });

  it('withBlocks replaces between markers and names a missing pair', () => {
    expect(withBlocks('a\n<!-- x:begin -->\nold\n<!-- x:end -->\nb', { x: 'new' })).toBe('a\n<!-- x:begin -->\nnew\n<!-- x:end -->\nb');
    expect(() => withBlocks('no markers', { x: 'new' })).toThrow(/<!-- x:begin -->/);
  });
});
